//! Builds the test kernels (`tests/kernels`) to PTX for the PTX, CPU-backend and GPU tests.
//! Also rebuilds coop-host's own kernels, whose PTX coop-host ships as text
//! (`host/ptx/`), so that `tests/ptx.rs` can check the shipped files are
//! what the sources give.
fn main() {
    coop_build::PtxBuilder::new("kernels")
        .watch("../gpu/src")
        .build_or_exit();
    // One module a family of coop-host's kernels, as coop-host ships them.
    for family in [
        "reduce",
        "transform",
        "arg",
        "scan",
        "segmented",
        "histogram",
        "select",
        "runs",
        "sort",
        "segmented_sort",
    ] {
        let mut builder = coop_build::PtxBuilder::new("../host/kernels")
            .features(&[family])
            .name(&format!("coop-host-kernels-{family}"))
            .watch("../gpu/src")
            .silent_panics();
        if family == "scan" {
            // More tiles in flight a multiprocessor: four blocks of 256
            // threads for the 4-byte scans instead of three, five for the
            // 8-byte ones instead of three (chapter 7 of the guide has the
            // figures).
            let names = |types: [&str; 3]| -> Vec<String> {
                ["sum", "min", "max"]
                    .iter()
                    .flat_map(|op| types.map(|t| format!("scan_{op}_{t}")))
                    .collect()
            };
            let (four, eight) = (names(["f32", "i32", "u32"]), names(["f64", "i64", "u64"]));
            builder = builder
                .max_registers(&four.iter().map(String::as_str).collect::<Vec<_>>(), 64)
                .max_registers(&eight.iter().map(String::as_str).collect::<Vec<_>>(), 48);
        }
        if family == "select" {
            // Six blocks of 256 threads a multiprocessor for 4-byte
            // elements, five for 8-byte ones, without spills (chapter 7 of
            // the guide has the figures).
            let names = |types: [&str; 3]| -> Vec<String> {
                ["select_flagged", "unique"]
                    .iter()
                    .flat_map(|k| types.map(|t| format!("{k}_{t}")))
                    .collect()
            };
            let (four, eight) = (names(["f32", "i32", "u32"]), names(["f64", "i64", "u64"]));
            builder = builder
                .max_registers(&four.iter().map(String::as_str).collect::<Vec<_>>(), 40)
                .max_registers(&eight.iter().map(String::as_str).collect::<Vec<_>>(), 48);
        }
        if family == "segmented" {
            // Four blocks of 256 threads a multiprocessor, as before the
            // long segments' vector loads raised the kernels to 64-72
            // registers (the first phase, segments of 1 to 32 elements,
            // lost 18 % at three blocks; chapter 7 of the guide).
            let names: Vec<String> = ["sum", "min", "max"]
                .iter()
                .flat_map(|op| {
                    ["f32", "i32", "u32", "f64", "i64", "u64"]
                        .map(|t| format!("segmented_{op}_{t}"))
                })
                .collect();
            builder =
                builder.max_registers(&names.iter().map(String::as_str).collect::<Vec<_>>(), 64);
        }
        if family == "segmented_sort" {
            // Four blocks of 256 threads a multiprocessor instead of two
            // (the kernels take 94-134 registers uncapped): segments of 32
            // to 20000 keys sorted 1.2-1.5 times as fast on an H200, for
            // 128-192 bytes of spills (chapter 7 of the guide has the
            // figures against caps of 80 and 96).
            let names: Vec<String> = ["8", "16", "32", "64"]
                .iter()
                .flat_map(|k| {
                    [
                        format!("segmented_sort_keys_k{k}"),
                        format!("segmented_sort_pairs_k{k}_v32"),
                        format!("segmented_sort_pairs_k{k}_v64"),
                    ]
                })
                .collect();
            builder =
                builder.max_registers(&names.iter().map(String::as_str).collect::<Vec<_>>(), 64);
            // The radix route's kernels: two blocks of 256 threads a
            // multiprocessor, as the device-wide sort's passes (uncapped
            // ptxas gives them 128-227 registers).
            let radix: Vec<String> = ["8", "16", "32", "64"]
                .iter()
                .flat_map(|k| {
                    [
                        format!("segmented_radix_keys_k{k}"),
                        format!("segmented_radix_pairs_k{k}_v32"),
                        format!("segmented_radix_pairs_k{k}_v64"),
                    ]
                })
                .collect();
            builder =
                builder.max_registers(&radix.iter().map(String::as_str).collect::<Vec<_>>(), 128);
        }
        if family == "runs" {
            // Four blocks of 256 threads a multiprocessor for the sums by
            // key (64 registers), five for the encodings and the scans by
            // key (48), where the compiler's choice fit two or three:
            // chapter 7 of the guide has the figures of each cap.
            let keys = ["u32", "i32", "u64", "i64"];
            let sums: Vec<String> = keys
                .iter()
                .flat_map(|k| {
                    ["i32", "u32", "i64", "u64", "f32", "f64"]
                        .map(|v| format!("sum_by_key_{k}_{v}"))
                })
                .collect();
            let mut at_48: Vec<String> = [
                "u8", "i8", "u16", "i16", "u32", "i32", "f32", "u64", "i64", "f64",
            ]
            .iter()
            .map(|k| format!("encode_{k}"))
            .collect();
            at_48.extend(["k32", "k64"].iter().flat_map(|k| {
                ["v32", "v64", "f32", "f64"].map(|v| format!("sum_scan_by_key_{k}_{v}"))
            }));
            // The deterministic float sums (look-back in tile order) at
            // the same caps as their plain twins.
            let mut sums = sums;
            for k in ["k32", "k64"] {
                for v in ["f32", "f64"] {
                    sums.push(format!("ordered_sum_by_key_{k}_{v}"));
                    at_48.push(format!("ordered_sum_scan_by_key_{k}_{v}"));
                }
            }
            builder = builder
                .max_registers(&sums.iter().map(String::as_str).collect::<Vec<_>>(), 64)
                .max_registers(&at_48.iter().map(String::as_str).collect::<Vec<_>>(), 48);
        }
        builder.build_or_exit();
    }
}

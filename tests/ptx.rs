//! PTX tests, no GPU needed: the instructions and member masks each tile
//! size lowers to, and that every PTX the workspace builds assembles with
//! `ptxas` for sm_80 and sm_90 without a kernel spilling registers.

use coop_tests::{
    all_ptx, entry_instructions, find_cuda_tool, resolve_mask, Instruction, Mask, EXAMPLES_PTX,
};

/// The `c` operand of `shfl.sync` for a tile of `n`: segment bits, and the
/// clamp lane (31 for idx/down/bfly, 0 for up).
fn clamp(n: u32, up: bool) -> String {
    (((32 - n) << 8) | if up { 0 } else { 0x1f }).to_string()
}

fn collectives(instrs: &[Instruction]) -> Vec<&Instruction> {
    instrs
        .iter()
        .filter(|i| {
            ["shfl.sync", "vote.sync", "match."]
                .iter()
                .any(|p| i.opcode.starts_with(p))
        })
        .collect()
}

#[test]
fn each_tile_size_lowers_to_one_instruction_per_collective_with_its_tile_mask() {
    for sm in [80, 90] {
        let ptx = EXAMPLES_PTX
            .get(sm)
            .expect("examples are built for sm_80 and sm_90");
        for n in [4u32, 16, 32] {
            let instrs = entry_instructions(ptx, &format!("tile_tour_{n}"));
            let found = collectives(&instrs);
            let opcodes: Vec<&str> = found.iter().map(|i| i.opcode.as_str()).collect();
            assert_eq!(
                opcodes,
                [
                    "shfl.sync.idx.b32",
                    "shfl.sync.up.b32",
                    "shfl.sync.down.b32",
                    "shfl.sync.bfly.b32",
                    "vote.sync.ballot.b32",
                    "vote.sync.any.pred",
                    "vote.sync.all.pred",
                    "match.any.sync.b32",
                    "match.all.sync.b32",
                ],
                "sm_{sm}, tile {n}"
            );
            let expected_mask = if n == 32 {
                Mask::Constant(u32::MAX)
            } else {
                Mask::TileOfLane {
                    base: (1 << n) - 1,
                    lane_bits: 32 - n,
                }
            };
            for i in &found {
                let mask = resolve_mask(&instrs, i.operands.last().unwrap());
                assert_eq!(
                    mask, expected_mask,
                    "sm_{sm}, tile {n}: member mask of {i:?}"
                );
            }
            // Segment and clamp: the shuffle stays inside the tile.
            for i in found.iter().filter(|i| i.opcode.starts_with("shfl")) {
                let up = i.opcode.contains(".up.");
                // d, a, b, c, mask
                assert_eq!(
                    i.operands[3],
                    clamp(n, up),
                    "sm_{sm}, tile {n}: clamp of {i:?}"
                );
            }
        }
    }
}

#[test]
fn the_dot_product_reduces_a_warp_in_five_full_warp_shuffles() {
    for sm in [80, 90] {
        let instrs = entry_instructions(EXAMPLES_PTX.get(sm).unwrap(), "dot");
        let shuffles: Vec<_> = collectives(&instrs);
        let deltas: Vec<&str> = shuffles.iter().map(|i| i.operands[2].as_str()).collect();
        assert_eq!(deltas, ["16", "8", "4", "2", "1"], "sm_{sm}");
        for i in &shuffles {
            assert_eq!(i.opcode, "shfl.sync.down.b32");
            assert_eq!(i.operands[3], "31");
            assert_eq!(
                resolve_mask(&instrs, &i.operands[4]),
                Mask::Constant(u32::MAX)
            );
        }
    }
}

#[test]
fn slices_are_pointer_and_length_parameters_loaded_from_global_memory() {
    let ptx = EXAMPLES_PTX.get(80).unwrap();
    let start = ptx.find(".entry dot(").unwrap();
    let header = &ptx[start..start + ptx[start..].find(')').unwrap()];
    let params: Vec<&str> = header.lines().skip(1).map(str::trim).collect();
    assert_eq!(
        params.len(),
        6,
        "a, b, partial as (pointer, length) pairs: {params:?}"
    );
    assert!(
        params.iter().all(|p| p.starts_with(".param .u64")),
        "{params:?}"
    );
    let instrs = entry_instructions(ptx, "dot");
    assert!(
        instrs.iter().any(|i| i.opcode.starts_with("ld.global")),
        "loads go to global memory"
    );
    assert!(
        instrs.iter().any(|i| i.opcode.starts_with("st.global")),
        "stores go to global memory"
    );
}

#[test]
fn every_ptx_assembles_for_sm_80_and_sm_90_without_spills() {
    // ptxas is not part of a Rust toolchain: without it this test says so
    // and passes, unless COOP_REQUIRE_PTXAS=1 (set by `.ci/run`), so that CI
    // can never silently stop running it.
    let ptxas = match find_cuda_tool("ptxas", "PTXAS") {
        Ok(ptxas) => ptxas,
        Err(e) if std::env::var_os("COOP_REQUIRE_PTXAS").is_none_or(|v| v != "1") => {
            eprintln!(
                "SKIPPED every_ptx_assembles_for_sm_80_and_sm_90_without_spills: {e}\n\
                 (install ptxas, e.g. `pip install nvidia-cuda-nvcc-cu12`, or set PTXAS; \
                 COOP_REQUIRE_PTXAS=1 makes its absence a failure)"
            );
            println!("cargo:warning=SKIPPED: ptxas not found");
            return;
        }
        Err(e) => panic!("{e} (COOP_REQUIRE_PTXAS=1)"),
    };
    let dir = std::env::temp_dir().join(format!("coop-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // coop-host ships ptxas's output for its families' PTX (`host/sass/`):
    // with the ptxas that built it (its version line in `BUILT-BY`), the
    // cubins this test makes must be those bytes; `COOP_BLESS=1` rewrites
    // them (and `BUILT-BY`) instead.
    let sass_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/sass");
    let version = std::process::Command::new(&ptxas)
        .arg("--version")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_default();
    let built_by = std::fs::read_to_string(sass_dir.join("BUILT-BY")).unwrap_or_default();
    let bless = std::env::var_os("COOP_BLESS").is_some_and(|v| v == "1");
    if bless {
        std::fs::write(sass_dir.join("BUILT-BY"), format!("{version}\n")).unwrap();
    }
    let compare_sass = bless || built_by.trim() == version;
    if !compare_sass {
        eprintln!(
            "host/sass is not compared: this ptxas is `{version}`, the shipped cubins were \
             built by `{}`",
            built_by.trim()
        );
    }
    // One thread a PTX file: ptxas takes most of this test's time.
    let assemble = |name: &str, sm: u32, text: &str| -> usize {
        let mut checked = 0;
        let file = dir.join(format!("{name}.sm_{sm}.ptx"));
        std::fs::write(&file, text).unwrap();
        // PTX for sm_80 also runs on sm_90 (JIT), so assemble it for both;
        // coop-host's families ship sm_90 PTX beside it, which a driver
        // picks on sm_90.
        let archs: &[u32] = if sm == 80 && !name.starts_with("coop-host-kernels") {
            &[80, 90]
        } else {
            &[sm]
        };
        for &arch in archs {
            let out = std::process::Command::new(&ptxas)
                .arg(format!("-arch=sm_{arch}"))
                .arg("-v")
                .arg(&file)
                .arg("-o")
                .arg(dir.join(format!("{name}.sm_{sm}.{arch}.cubin")))
                .output()
                .expect("ptxas runs");
            let log = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success(),
                "ptxas -arch=sm_{arch} rejected {name} (sm_{sm}):\n{log}"
            );
            // Kernels must not spill. The device functions of the panic
            // path (core's panic entry points, the formatting functions
            // their arguments name, coop's fault report) run only when a
            // thread is about to trap, and may.
            // One pass over ptxas's report: each kernel's properties (its
            // spills, and for the examples its registers) follow
            // `Function properties for <kernel>`.
            let entry_names: Vec<&str> = log
                .lines()
                .filter_map(|l| l.split("Compiling entry function '").nth(1))
                .filter_map(|rest| rest.split('\'').next())
                .collect();
            let capped = register_capped_kernels(text);
            let mut function = "";
            let mut spills = Vec::new();
            for line in log.lines() {
                if let Some(f) = line.split("Function properties for ").nth(1) {
                    function = f.trim();
                    continue;
                }
                if !entry_names.contains(&function) {
                    continue;
                }
                if line.contains("spill")
                    && !line.contains("0 bytes spill stores, 0 bytes spill loads")
                {
                    // A kernel built with a register cap
                    // (`PtxBuilder::max_registers`) trades some spilling
                    // for blocks, as measured (the scans, chapter 7): up
                    // to 256 bytes a thread; the segmented sorts' phases
                    // share one kernel whose merges hold 8 keys, values
                    // and sources a thread, and measured faster at 64
                    // registers with up to 700 bytes (chapter 7).
                    let allowed = if name == "coop-host-kernels-segmented_sort" {
                        768
                    } else {
                        256
                    };
                    let stored: u32 = line
                        .split(" bytes spill stores")
                        .next()
                        .and_then(|l| l.rsplit(' ').next())
                        .and_then(|n| n.trim().parse().ok())
                        .unwrap_or(u32::MAX);
                    if !(capped.iter().any(|k| k == function) && stored <= allowed) {
                        spills.push(format!("{function}: {}", line.trim()));
                    }
                }
                // The examples' kernels fit 32 registers (full occupancy at
                // 2048 threads a multiprocessor), the panic path included:
                // a fault report that raised every kernel that can panic to
                // 50 registers once cost the block reduction 25 %. A kernel
                // whose shared memory keeps fewer threads on a
                // multiprocessor carries its own cap (`.maxnreg`, from
                // `examples/build.rs`), which ptxas keeps.
                if let Some(rest) = line.split("Used ").nth(1) {
                    let used: u32 = rest.split(' ').next().unwrap().parse().unwrap();
                    assert!(
                        name != "coop-example-kernels"
                            || used <= 32
                            || capped.iter().any(|k| k == function),
                        "{function} uses {used} registers on sm_{arch}"
                    );
                }
            }
            assert!(
                spills.is_empty(),
                "{name} spills on sm_{arch}:\n{}",
                spills.join("\n")
            );
            if name.starts_with("coop-host-kernels") && arch == sm && compare_sass {
                let made = std::fs::read(dir.join(format!("{name}.sm_{sm}.{arch}.cubin"))).unwrap();
                let shipped = sass_dir.join(format!("{name}.sm_{sm}.cubin"));
                if bless {
                    std::fs::write(&shipped, &made).unwrap();
                } else {
                    assert!(
                        std::fs::read(&shipped).is_ok_and(|bytes| bytes == made),
                        "{} is not what ptxas makes of the shipped PTX: regenerate it with \
                         `COOP_BLESS=1 cargo test -p coop-tests --test ptx every_ptx` (and \
                         commit the files)",
                        shipped.display()
                    );
                }
            }
            let entries = entry_names.len();
            assert!(entries > 0, "ptxas saw no kernels in {name}:\n{log}");
            checked += entries;
        }
        checked
    };
    let checked: usize = std::thread::scope(|scope| {
        let jobs: Vec<_> = all_ptx()
            .into_iter()
            .map(|(name, sm, text)| scope.spawn(move || assemble(name, sm, text)))
            .collect();
        jobs.into_iter().map(|j| j.join().unwrap()).sum()
    });
    std::fs::remove_dir_all(&dir).ok();
    println!("ptxas: {checked} kernels assembled without spills");
}

/// The kernels of `ptx` that set their own registers: a `.maxnreg`
/// directive (`PtxBuilder::max_registers`, `#[kernel(max_registers)]`) or
/// launch bounds (`#[kernel(max_threads, min_blocks)]`), whose spills ptxas
/// trades for the blocks they ask for; and the conjugate-gradient sample's
/// unbounded twin, which is there to show what those bounds buy (51
/// registers, chapter 7); and the block benchmarks declared for each block
/// size (`block_reduce_<type>_<threads>`, `block_scan_<type>_<threads>`),
/// which take what their declared block allows, as the CUB kernels they
/// are timed against do (up to 46 registers below 1024 threads, 8 bytes
/// spilled by the 64-bit reductions at 1024).
fn register_capped_kernels(ptx: &str) -> Vec<String> {
    let mut capped = vec!["conjugate_gradient_unbounded".to_string()];
    let mut entry = "";
    for line in ptx.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix(".visible .entry ") {
            entry = rest.split('(').next().unwrap_or("").trim();
            let shaped_bench = (entry.starts_with("block_reduce_")
                || entry.starts_with("block_scan_"))
                && entry
                    .rsplit('_')
                    .next()
                    .is_some_and(|n| n.parse::<u32>().is_ok());
            if shaped_bench {
                capped.push(entry.to_string());
            }
        } else if line.starts_with(".maxnreg") || line.starts_with(".minnctapersm") {
            capped.push(entry.to_string());
        }
    }
    capped
}

/// The collective instructions of an entry, in order.
/// `block::load_vectorized` and `store_vectorized` move a thread's run
/// of 8 `u32`s with two 16-byte loads and two 16-byte stores (the element
/// by element path beside them for partial or unaligned runs), where
/// `load_blocked` would issue eight of each.
#[test]
fn vectorized_block_loads_and_stores_are_16_byte_accesses() {
    use coop_tests::TEST_KERNELS_PTX;
    for sm in [80, 90] {
        let ptx = TEST_KERNELS_PTX.get(sm).unwrap();
        let instrs = entry_instructions(ptx, "block_copy_vectorized_u32");
        let count = |op: &str| instrs.iter().filter(|i| i.opcode.starts_with(op)).count();
        assert_eq!(count("ld.global.v4."), 2, "sm_{sm}: two 16-byte loads");
        assert_eq!(count("st.global.v4."), 2, "sm_{sm}: two 16-byte stores");
        // Three f32s a thread are no whole chunk: element by element.
        let instrs = entry_instructions(ptx, "block_copy_vectorized_f32x3");
        assert!(
            !instrs.iter().any(|i| i.opcode.contains(".v4")),
            "sm_{sm}: no vector access for runs of 12 bytes"
        );
    }
}

/// The smoothing stencil's runs of four (`stencil_bulk`): each run is one
/// 16-byte shared load of the stage (`Stage::get_array::<4>`) and one
/// 16-byte global store (`Out::write_array`); the index is a multiple of
/// four, so no element-by-element path of the stage's load is left.
#[test]
fn a_stages_runs_of_four_are_16_byte_shared_loads() {
    for sm in [80, 90] {
        let instrs = entry_instructions(EXAMPLES_PTX.get(sm).unwrap(), "stencil_bulk");
        let count = |op: &str| instrs.iter().filter(|i| i.opcode.starts_with(op)).count();
        assert_eq!(count("ld.shared.v4."), 1, "sm_{sm}: one 16-byte stage load");
        assert_eq!(count("st.global.v4."), 1, "sm_{sm}: one 16-byte store");
        // Two neighbours of the run and three of the tail's one-at-a-time
        // outputs; four more would be the element-by-element fallback.
        assert_eq!(count("ld.shared."), 6, "sm_{sm}: no fallback loads");
    }
}

/// A cluster's tile copied a part a block (`cluster_windows`): the copies
/// are `cp.async` chunks waited for with `cp.async.wait_group 1` (the next
/// window stays in flight), and what makes every part readable is the
/// cluster's barrier, twice a window (after the wait, and before the
/// refill); the block's barrier appears only in the two waits after the
/// loop.
#[test]
fn a_clusters_copy_waits_with_the_clusters_barrier() {
    use coop_tests::TEST_KERNELS_PTX;
    let ptx = TEST_KERNELS_PTX.get(90).unwrap();
    let entry = "cluster_windows";
    let instrs = entry_instructions(ptx, entry);
    let start = ptx.find(&format!(".entry {entry}(")).unwrap();
    let text = &ptx[start..start + ptx[start..].find("\n}\n").unwrap()];
    assert!(
        text.contains("cp.async.cg.shared.global") || text.contains("cp.async.ca.shared.global"),
        "cp.async"
    );
    let waits: Vec<String> = instrs
        .iter()
        .filter(|i| i.opcode.starts_with("cp.async.wait_group"))
        .map(|i| i.operands.join(","))
        .collect();
    assert!(waits.iter().any(|w| w == "1"), "waits {waits:?}");
    let count = |op: &str| instrs.iter().filter(|i| i.opcode.starts_with(op)).count();
    let (arrive, wait) = (
        count("barrier.cluster.arrive"),
        count("barrier.cluster.wait"),
    );
    assert!(
        arrive >= 2 && wait >= 2,
        "cluster barriers: {arrive} arrives, {wait} waits"
    );
    let block_barriers = instrs
        .iter()
        .filter(|i| {
            (i.opcode.starts_with("bar.sync") || i.opcode.starts_with("barrier.sync"))
                && i.operands.first().map(String::as_str) == Some("0")
        })
        .count();
    assert_eq!(block_barriers, 2, "block barriers");
}

/// A tile's copy into its row and its wait: `cp.async` chunks committed
/// as a group, `cp.async.wait_group 1` for `wait_prior::<1>` and 0 for
/// `wait`, and the tile's own barrier after each (`bar.warp.sync` for a
/// tile of up to 32 threads, a named barrier of 64 or 128 threads for a
/// multi-warp tile); no block barrier (`barrier.sync 0`) but the one that
/// sets up a multi-warp tile.
#[test]
fn a_tiles_copy_waits_with_the_tiles_barrier_not_the_blocks() {
    use coop_tests::TEST_KERNELS_PTX;
    for sm in [80, 90] {
        let ptx = TEST_KERNELS_PTX.get(sm).unwrap();
        for (entry, threads) in [
            ("tile_rows_t8", 8),
            ("tile_rows_t32", 32),
            ("tile_rows_t64", 64),
            ("tile_rows_t128", 128),
        ] {
            let instrs = entry_instructions(ptx, entry);
            // The chunk copies sit in inline-assembly blocks of their own,
            // which `entry_instructions` leaves out: search the entry's text.
            let start = ptx.find(&format!(".entry {entry}(")).unwrap();
            let text = &ptx[start..start + ptx[start..].find("\n}\n").unwrap()];
            let has = |op: &str| text.contains(op);
            let what = format!("sm_{sm} {entry}");
            assert!(
                has("cp.async.cg.shared.global") || has("cp.async.ca.shared.global"),
                "{what}: cp.async"
            );
            assert!(has("cp.async.commit_group"), "{what}: commit");
            let waits: Vec<String> = instrs
                .iter()
                .filter(|i| i.opcode.starts_with("cp.async.wait_group"))
                .map(|i| i.operands.join(","))
                .collect();
            assert!(
                waits.iter().any(|w| w == "1") && waits.iter().any(|w| w == "0"),
                "{what}: waits {waits:?}"
            );
            let barriers: Vec<&Instruction> = instrs
                .iter()
                .filter(|i| i.opcode.starts_with("bar") && !i.opcode.starts_with("barrier.cluster"))
                .collect();
            let block_barriers = barriers
                .iter()
                .filter(|b| b.operands.first().map(String::as_str) == Some("0"))
                .count();
            let tile_barriers = barriers
                .iter()
                .filter(|b| {
                    if threads <= 32 {
                        b.opcode.starts_with("bar.warp.sync")
                    } else {
                        b.operands.len() == 2 && b.operands[1] == threads.to_string()
                    }
                })
                .count();
            // A multi-warp tile's creation resets its barrier behind one
            // block barrier; nothing after it is the block's.
            let expected = if threads <= 32 { 0 } else { 1 };
            assert_eq!(block_barriers, expected, "{what}: block barriers");
            assert!(
                tile_barriers >= 3,
                "{what}: the tile's barriers, {tile_barriers}"
            );
        }
    }
}

fn collective_opcodes(ptx: &str, entry: &str) -> Vec<String> {
    entry_instructions(ptx, entry)
        .into_iter()
        .filter(|i| {
            [
                "shfl.sync",
                "vote.sync",
                "match.",
                "redux.sync",
                "bar.",
                "barrier.",
            ]
            .iter()
            .any(|p| i.opcode.starts_with(p))
        })
        .map(|i| i.opcode)
        .collect()
}

#[test]
fn reductions_lower_to_redux_or_a_butterfly_of_log2_n_shuffles() {
    use coop_tests::TEST_KERNELS_PTX;
    for sm in [80, 90] {
        let ptx = TEST_KERNELS_PTX.get(sm).unwrap();
        let ops = |entry: &str| collective_opcodes(ptx, entry);
        let bfly = |n: usize| vec!["shfl.sync.bfly.b32".to_string(); n];
        // 32-bit integer sum/min/max/xor on 16- and 32-thread tiles: one redux.sync.
        assert_eq!(
            ops("lower_reduce_u32_sum_32"),
            ["redux.sync.add.s32"],
            "sm_{sm}"
        );
        assert_eq!(
            ops("lower_reduce_i32_min_16"),
            ["redux.sync.min.s32"],
            "sm_{sm}"
        );
        assert_eq!(
            ops("lower_reduce_u32_max_32"),
            ["redux.sync.max.u32"],
            "sm_{sm}"
        );
        assert_eq!(
            ops("lower_reduce_u32_xor_16"),
            ["redux.sync.xor.b32"],
            "sm_{sm}"
        );
        // Otherwise log2(N) butterfly steps, one shuffle per 32-bit word.
        assert_eq!(ops("lower_reduce_u32_sum_8"), bfly(3), "sm_{sm}");
        assert_eq!(ops("lower_reduce_f32_sum_32"), bfly(5), "sm_{sm}");
        assert_eq!(ops("lower_reduce_f64_max_16"), bfly(8), "sm_{sm}");
        assert_eq!(ops("lower_reduce_i64_sum_32"), bfly(10), "sm_{sm}");
        assert_eq!(
            ops("lower_scan_f32_sum_32"),
            vec!["shfl.sync.up.b32".to_string(); 5],
            "sm_{sm}"
        );
        // A block of f32: three butterfly steps in every warp (4 partial
        // results a warp), a barrier (`barrier.sync`, non-aligned), warp 0 folding
        // the partials (one `ld.shared.v4` a lane) and combining its lanes
        // in two steps (blocks of up to four warps) or five (the two paths
        // of one branch, in that order in the PTX), and a barrier before
        // every thread reads the total.
        let block = ops("lower_block_reduce_f32");
        let barriers: Vec<usize> = (0..block.len())
            .filter(|&i| block[i] == "barrier.sync")
            .collect();
        assert_eq!(barriers.len(), 2, "sm_{sm}: {block:?}");
        assert_eq!(block[..barriers[0]], bfly(3), "sm_{sm}");
        // Warp 0's test, `w == 0`, as a vote that ptxas knows is uniform.
        let vote_then_bfly: Vec<String> = std::iter::once("vote.sync.all.pred".to_string())
            .chain(bfly(2))
            .chain(bfly(5))
            .collect();
        assert_eq!(
            block[barriers[0] + 1..barriers[1]],
            vote_then_bfly,
            "sm_{sm}"
        );
        assert_eq!(barriers[1], block.len() - 1, "sm_{sm}");
        // 32-bit integer sums: one redux.sync per stage.
        assert_eq!(
            ops("lower_block_reduce_i32"),
            [
                "redux.sync.add.s32",
                "barrier.sync",
                "vote.sync.all.pred",
                "redux.sync.add.s32",
                "barrier.sync"
            ],
            "sm_{sm}"
        );
    }
}

#[test]
fn a_generic_warp_reduction_costs_what_the_hand_written_loop_costs() {
    use coop_tests::TEST_KERNELS_PTX;
    for sm in [80, 90] {
        let ptx = TEST_KERNELS_PTX.get(sm).unwrap();
        let generic = entry_instructions(ptx, "warp_sum_generic");
        let by_hand = entry_instructions(ptx, "warp_sum_by_hand");
        assert_eq!(generic.len(), by_hand.len(), "sm_{sm}: instruction counts");
        let opcodes = |v: &[Instruction]| v.iter().map(|i| i.opcode.clone()).collect::<Vec<_>>();
        assert_eq!(
            opcodes(&generic),
            opcodes(&by_hand),
            "sm_{sm}: the same instructions"
        );
    }
}

/// No PTX the workspace builds holds an instruction whose correctness
/// depends on convergence the compiler does not promise to keep (an
/// aligned barrier, an `.aligned` warp instruction, a pre-Volta shuffle or
/// vote): coop's PTX builder refuses such PTX, and this test re-checks
/// every module, naming each offending kernel and instruction.
#[test]
fn no_ptx_holds_a_convergence_dependent_instruction() {
    let mut kernels = 0;
    let mut found = Vec::new();
    for (name, sm, text) in all_ptx() {
        kernels += text.matches(".entry ").count();
        for f in coop_host::convergence::check(text) {
            found.push(format!("{name} (sm_{sm}): {f}: {}", f.reason()));
        }
    }
    assert!(kernels > 100, "only {kernels} kernels checked");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The user-shaped kernels keep their block barriers non-aligned even where
/// the compiler copied a barrier into two paths: each path holds
/// `barrier.sync`, none `bar.sync`.
#[test]
fn user_shaped_kernels_use_only_non_aligned_block_barriers() {
    use coop_tests::TEST_KERNELS_PTX;
    for sm in [80, 90] {
        let ptx = TEST_KERNELS_PTX.get(sm).unwrap();
        for (kernel, which, _) in coop_tests::user_shapes::kernels() {
            let ops = collective_opcodes(ptx, kernel);
            // `barrier.red` comes from inline asm, inside a `{ .. }` scope
            // that `entry_instructions` skips: count it in the entry's text.
            let body = &ptx[ptx.find(&format!(".entry {kernel}(")).unwrap()..];
            let body = &body[..body.find("\n}\n").unwrap()];
            let reductions = body.matches("barrier.red.").count();
            assert!(
                !body.contains("barrier.red.") || !body.contains(".aligned"),
                "sm_{sm} {kernel}: an aligned barrier.red"
            );
            let barriers = ops.iter().filter(|o| o.starts_with("bar")).count() + reductions;
            let block_level = which != coop_tests::kernels::user_shapes::Collective::TileLaneMasks;
            assert!(
                barriers >= 1 || !block_level,
                "sm_{sm} {kernel}: no barrier in {ops:?}"
            );
            assert!(
                ops.iter()
                    .filter(|o| o.starts_with("bar"))
                    .all(|o| o == "barrier.sync" || o.starts_with("barrier.red.")),
                "sm_{sm} {kernel}: {ops:?}"
            );
        }
        let scans = collective_opcodes(ptx, "block_scans");
        assert!(
            scans.iter().filter(|o| *o == "barrier.sync").count() >= 4,
            "sm_{sm} block_scans: {scans:?}"
        );
    }
}

/// coop-host ships the PTX of its own kernels as text (`host/ptx/`), so
/// that its users build no device code of coop-host's. The files must be
/// what the sources give: this test rebuilds them (`tests/build.rs`) and
/// compares, ignoring only the crate hashes inside mangled symbol names
/// (which depend on where the sources lie on disk). With `COOP_BLESS=1`
/// it rewrites the shipped files instead.
#[test]
fn coop_hosts_shipped_ptx_is_what_its_kernel_sources_give() {
    macro_rules! fresh {
        ($($family:literal),*) => {
            [$(
                ($family, 80, include_str!(concat!(env!("OUT_DIR"), "/coop-host-kernels-", $family, ".sm_80.ptx"))),
                ($family, 90, include_str!(concat!(env!("OUT_DIR"), "/coop-host-kernels-", $family, ".sm_90.ptx"))),
            )*]
        };
    }
    let fresh = fresh!(
        "reduce",
        "transform",
        "arg",
        "scan",
        "segmented",
        "histogram",
        "select",
        "runs",
        "sort",
        "segmented_sort"
    );
    let shipped_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/ptx");
    let bless = std::env::var_os("COOP_BLESS").is_some_and(|v| v == "1");
    for (family, sm, fresh) in fresh {
        let path = shipped_dir.join(format!("coop-host-kernels-{family}.sm_{sm}.ptx"));
        if bless {
            std::fs::write(&path, fresh).unwrap();
            continue;
        }
        let shipped = std::fs::read_to_string(&path).unwrap();
        assert!(
            without_crate_hashes(&shipped) == without_crate_hashes(fresh),
            "{} is stale: it differs from a build of host/kernels with this \
             toolchain. Regenerate it with `COOP_BLESS=1 cargo test -p coop-tests \
             --test ptx coop_hosts_shipped_ptx` (and commit the files)",
            path.display()
        );
    }
}

/// `ptx` with every crate hash of a v0-mangled name (`Cs<base62>_`)
/// replaced by `Cs_`.
fn without_crate_hashes(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut rest = ptx;
    while let Some(i) = rest.find("Cs") {
        out.push_str(&rest[..i + 2]);
        rest = &rest[i + 2..];
        let hash = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        if rest[hash..].starts_with('_') && hash > 0 {
            rest = &rest[hash..];
        }
    }
    out.push_str(rest);
    out
}

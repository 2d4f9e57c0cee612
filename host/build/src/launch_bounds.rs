//! Launch bounds from the kernel's source: `#[kernel(max_threads = ..,
//! min_blocks = .., max_registers = ..)]` leaves, in the PTX rustc writes,
//! one exported byte per bounded kernel whose name carries the figures
//! (`__coop_bounds_<max_threads>_<min_blocks>_<max_registers>_<kernel>`,
//! 0 for a figure not given). This module removes those bytes and puts the
//! figures on the kernel's entry point as the PTX performance-tuning
//! directives ptxas reads: `.maxntid`, `.minnctapersm` and `.maxnreg`.
//! `#[kernel(block = (x, y, z))]` leaves a second kind of byte,
//! `__coop_block_<x>_<y>_<z>_<kernel>`, which becomes `.reqntid x, y, z`.

/// The prefix of a bounds marker's name.
const MARKER: &str = "__coop_bounds_";
/// The prefix of a block-shape marker's name.
const BLOCK_MARKER: &str = "__coop_block_";

/// One kernel's bounds, as read from its marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelBounds {
    /// The kernel's entry point.
    pub kernel: String,
    /// `.maxntid` (threads a block).
    pub max_threads: Option<u32>,
    /// `.minnctapersm` (blocks a multiprocessor).
    pub min_blocks: Option<u32>,
    /// `.maxnreg` (registers a thread).
    pub max_registers: Option<u32>,
    /// `.reqntid` (the one block shape).
    pub block: Option<[u32; 3]>,
}

impl KernelBounds {
    /// The bounds of `kernel` with none given.
    fn none(kernel: &str) -> Self {
        KernelBounds {
            kernel: kernel.to_string(),
            max_threads: None,
            min_blocks: None,
            max_registers: None,
            block: None,
        }
    }

    /// The directives for the entry point, one a line.
    fn directives(&self) -> String {
        let mut out = String::new();
        if let Some([x, y, z]) = self.block {
            // `.reqntid` and `.maxntid` exclude each other; the shape
            // bounds the threads as well.
            out.push_str(&format!(".reqntid {x}, {y}, {z}\n"));
        } else if let Some(t) = self.max_threads {
            out.push_str(&format!(".maxntid {t}, 1, 1\n"));
        }
        if let Some(b) = self.min_blocks {
            out.push_str(&format!(".minnctapersm {b}\n"));
        }
        if let Some(r) = self.max_registers {
            out.push_str(&format!(".maxnreg {r}\n"));
        }
        out
    }
}

/// Reads a marker's name (what follows [`MARKER`]).
fn parse_marker(rest: &str) -> Option<KernelBounds> {
    let mut parts = rest.splitn(4, '_');
    let mut figure = || -> Option<Option<u32>> {
        let v: u32 = parts.next()?.parse().ok()?;
        Some((v != 0).then_some(v))
    };
    let (max_threads, min_blocks, max_registers) = (figure()?, figure()?, figure()?);
    let kernel = parts.next()?.to_string();
    (!kernel.is_empty()).then_some(KernelBounds {
        kernel,
        max_threads,
        min_blocks,
        max_registers,
        block: None,
    })
}

/// Reads a block-shape marker's name (what follows [`BLOCK_MARKER`]):
/// the kernel and its shape.
fn parse_block_marker(rest: &str) -> Option<(String, [u32; 3])> {
    let mut parts = rest.splitn(4, '_');
    let mut extent = || -> Option<u32> { parts.next()?.parse().ok().filter(|&v| v > 0) };
    let shape = [extent()?, extent()?, extent()?];
    let kernel = parts.next()?.to_string();
    (!kernel.is_empty()).then_some((kernel, shape))
}

/// The names that follow `prefix` in the marker bytes of `ptx`.
fn marker_names<'a>(ptx: &'a str, prefix: &'a str) -> impl Iterator<Item = String> + 'a {
    ptx.lines()
        .filter(move |l| l.contains(".global") && l.contains(prefix))
        .filter_map(move |l| {
            let start = l.find(prefix)? + prefix.len();
            Some(
                l[start..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                    .collect(),
            )
        })
}

/// `ptx` without its bounds markers and with each bounded kernel's
/// directives after its parameter list, and the bounds found.
///
/// ```
/// use coop_build::launch_bounds::apply;
/// let ptx = "// .globl\tscan\n\
///            .visible .global .align 1 .b8 __coop_bounds_256_4_0_scan;\n\n\
///            .visible .entry scan(\n\t.param .u64 scan_param_0\n)\n{\n\tret;\n}\n";
/// let (out, bounds) = apply(ptx);
/// assert!(!out.contains("__coop_bounds"));
/// assert!(out.contains("scan_param_0\n)\n.maxntid 256, 1, 1\n.minnctapersm 4\n{"));
/// assert_eq!(bounds[0].kernel, "scan");
/// assert_eq!(bounds[0].max_registers, None);
/// ```
pub fn apply(ptx: &str) -> (String, Vec<KernelBounds>) {
    let mut bounds: Vec<KernelBounds> = marker_names(ptx, MARKER)
        .filter_map(|name| parse_marker(&name))
        .collect();
    for (kernel, shape) in marker_names(ptx, BLOCK_MARKER).filter_map(|n| parse_block_marker(&n)) {
        match bounds.iter_mut().find(|b| b.kernel == kernel) {
            Some(b) => b.block = Some(shape),
            None => bounds.push(KernelBounds {
                block: Some(shape),
                ..KernelBounds::none(&kernel)
            }),
        }
    }
    if bounds.is_empty() {
        return (ptx.to_string(), bounds);
    }
    let directives: Vec<(String, String)> = bounds
        .iter()
        .map(|b| (b.kernel.clone(), b.directives()))
        .collect();
    let without: String = ptx
        .split_inclusive('\n')
        .filter(|l| !l.contains(MARKER) && !l.contains(BLOCK_MARKER))
        .collect();
    let (out, _) = insert_directives(&without, &directives);
    (out, bounds)
}

/// `ptx` with `text` after the parameter list of each kernel named in
/// `directives` (kernel, text); returns the names it did not find.
pub(crate) fn insert_directives(
    ptx: &str,
    directives: &[(String, String)],
) -> (String, Vec<String>) {
    let mut out = String::with_capacity(ptx.len() + 32 * directives.len());
    let mut found = vec![false; directives.len()];
    let mut pending: Option<&str> = None;
    for line in ptx.split_inclusive('\n') {
        out.push_str(line);
        let text = line.trim();
        if let Some(rest) = text
            .strip_prefix(".visible .entry ")
            .or_else(|| text.strip_prefix(".entry "))
        {
            let name = rest.split('(').next().unwrap_or("").trim();
            pending = directives.iter().position(|(k, _)| k == name).map(|i| {
                found[i] = true;
                directives[i].1.as_str()
            });
        }
        // The directives go after the parameter list's closing line.
        if let Some(text_to_add) = pending {
            if text.ends_with(')') {
                out.push_str(text_to_add);
                pending = None;
            }
        }
    }
    let missing = directives
        .iter()
        .zip(&found)
        .filter(|(_, &f)| !f)
        .map(|((k, _), _)| k.clone())
        .collect();
    (out, missing)
}

/// The kernels of `bounds` that spill registers, from the output of
/// `ptxas -v`: (kernel, spill-store bytes, spill-load bytes).
///
/// ```
/// use coop_build::launch_bounds::{spills, KernelBounds};
/// let log = "ptxas info    : Compiling entry function 'mix' for 'sm_90'\n\
///            ptxas info    : Function properties for mix\n    \
///            184 bytes stack frame, 44 bytes spill stores, 288 bytes spill loads\n\
///            ptxas info    : Function properties for _ZN4core9panicking5panic\n    \
///            0 bytes stack frame, 0 bytes spill stores, 12 bytes spill loads\n";
/// let bounds = [KernelBounds {
///     kernel: "mix".into(), max_threads: None, min_blocks: None, max_registers: Some(24),
///     block: None,
/// }];
/// assert_eq!(spills(log, &bounds), [("mix".to_string(), 44, 288)]);
/// ```
pub fn spills(ptxas_log: &str, bounds: &[KernelBounds]) -> Vec<(String, u32, u32)> {
    let mut out = Vec::new();
    let mut current: Option<&str> = None;
    for line in ptxas_log.lines() {
        // ptxas lists the properties of each function it compiles, the
        // entry's and those of functions it calls, under this line.
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(rest.trim());
        }
        if let (Some(kernel), true) = (current, line.contains("bytes spill stores")) {
            let figure = |label: &str| -> u32 {
                line.split(',')
                    .find(|part| part.contains(label))
                    .and_then(|part| part.split_whitespace().next()?.parse().ok())
                    .unwrap_or(0)
            };
            let (stores, loads) = (figure("spill stores"), figure("spill loads"));
            if (stores > 0 || loads > 0) && bounds.iter().any(|b| b.kernel == kernel) {
                out.push((kernel.to_string(), stores, loads));
            }
        }
    }
    out
}

impl std::fmt::Display for KernelBounds {
    /// The bounds as the kernel's source writes them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some([x, y, z]) = self.block {
            parts.push(format!("block = ({x}, {y}, {z})"));
        }
        for (name, v) in [
            ("max_threads", self.max_threads),
            ("min_blocks", self.min_blocks),
            ("max_registers", self.max_registers),
        ] {
            if let Some(v) = v {
                parts.push(format!("{name} = {v}"));
            }
        }
        write!(f, "#[kernel({})]", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_name_their_figures_and_kernel() {
        assert_eq!(
            parse_marker("512_0_40_conjugate_gradient"),
            Some(KernelBounds {
                kernel: "conjugate_gradient".into(),
                max_threads: Some(512),
                min_blocks: None,
                max_registers: Some(40),
                block: None,
            })
        );
        assert_eq!(parse_marker("512_x_40_k"), None);
        assert_eq!(parse_marker("512_0_40_"), None);
    }

    #[test]
    fn only_bounded_kernels_get_directives() {
        let ptx = ".visible .global .align 1 .b8 __coop_bounds_0_0_40_b;\n\
                   .visible .global .align 1 .b8 __coop_bounds_128_2_0_c;\n\
                   .visible .entry a(\n\t.param .u32 a_param_0\n)\n{\n}\n\
                   .visible .entry b(\n\t.param .u32 b_param_0\n)\n{\n}\n\
                   .visible .entry c()\n{\n}\n";
        let (out, bounds) = apply(ptx);
        assert_eq!(bounds.len(), 2);
        assert!(!out.contains(MARKER));
        assert_eq!(out.matches(".maxnreg").count(), 1);
        assert!(out.contains("b_param_0\n)\n.maxnreg 40\n{"));
        assert!(out.contains(".entry c()\n.maxntid 128, 1, 1\n.minnctapersm 2\n{"));
        assert!(out.contains("a_param_0\n)\n{"));
    }

    #[test]
    fn block_shapes_become_reqntid() {
        let ptx = ".visible .global .align 1 .b8 __coop_block_32_8_1_strip;\n\
                   .visible .global .align 1 .b8 __coop_bounds_0_2_0_strip;\n\
                   .visible .entry strip(\n\t.param .u32 strip_param_0\n)\n{\n}\n";
        let (out, bounds) = apply(ptx);
        assert_eq!(bounds.len(), 1);
        assert_eq!(bounds[0].block, Some([32, 8, 1]));
        assert!(!out.contains(BLOCK_MARKER) && !out.contains(MARKER));
        assert!(
            out.contains("strip_param_0\n)\n.reqntid 32, 8, 1\n.minnctapersm 2\n{"),
            "{out}"
        );
        assert_eq!(parse_block_marker("32_0_1_k"), None);
        assert_eq!(
            parse_block_marker("32_8_1_k"),
            Some(("k".into(), [32, 8, 1]))
        );
    }

    #[test]
    fn ptx_without_markers_is_unchanged() {
        let ptx = ".visible .entry a()\n{\n}\n";
        assert_eq!(apply(ptx), (ptx.to_string(), vec![]));
    }
}

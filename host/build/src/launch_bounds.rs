//! Launch bounds from the kernel's source: `#[kernel(max_threads = ..,
//! min_blocks = .., max_registers = ..)]` leaves, in the PTX rustc writes,
//! one exported byte per bounded kernel whose name carries the figures
//! (`__coop_bounds_<max_threads>_<min_blocks>_<max_registers>_<kernel>`,
//! 0 for a figure not given). This module removes those bytes and puts the
//! figures on the kernel's entry point as the PTX performance-tuning
//! directives ptxas reads: `.maxntid`, `.minnctapersm` and `.maxnreg`.

/// The prefix of a bounds marker's name.
const MARKER: &str = "__coop_bounds_";

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
}

impl KernelBounds {
    /// The directives for the entry point, one a line.
    fn directives(&self) -> String {
        let mut out = String::new();
        if let Some(t) = self.max_threads {
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
    let bounds: Vec<KernelBounds> = ptx
        .lines()
        .filter(|l| l.contains(".global") && l.contains(MARKER))
        .filter_map(|l| {
            let start = l.find(MARKER)? + MARKER.len();
            let name: String = l[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            parse_marker(&name)
        })
        .collect();
    if bounds.is_empty() {
        return (ptx.to_string(), bounds);
    }
    let directives: Vec<(String, String)> = bounds
        .iter()
        .map(|b| (b.kernel.clone(), b.directives()))
        .collect();
    let without: String = ptx
        .split_inclusive('\n')
        .filter(|l| !l.contains(MARKER))
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
    fn ptx_without_markers_is_unchanged() {
        let ptx = ".visible .entry a()\n{\n}\n";
        assert_eq!(apply(ptx), (ptx.to_string(), vec![]));
    }
}

//! Register limits on kernels: a `.maxnreg` directive after a kernel's
//! parameter list in the PTX, which caps the registers ptxas gives each of
//! its threads (CUDA C++ has `__launch_bounds__` and `__maxnreg__` for
//! this; rustc has no attribute that reaches the PTX).
//!
//! Fewer registers a thread let more blocks share a multiprocessor; ptxas
//! spills what does not fit to local memory. Whether that pays is a
//! measurement: chapter 7 of the guide has the scans' figures.

/// The least and most registers a limit may name.
pub const REGISTER_LIMITS: std::ops::RangeInclusive<u32> = 16..=255;

/// `ptx` with `.maxnreg registers` on each kernel in `limits` (kernel
/// name, registers). Returns the names of the kernels in `limits` that the
/// PTX does not define, in order; the PTX is unchanged for those.
///
/// ```
/// use coop_build::register_limits::limit_registers;
/// let ptx = ".visible .entry scan(\n\t.param .u64 scan_param_0\n)\n{\n\tret;\n}\n";
/// let (out, missing) = limit_registers(ptx, &[("scan".into(), 64), ("gone".into(), 32)]);
/// assert!(out.contains(".entry scan(\n\t.param .u64 scan_param_0\n)\n.maxnreg 64\n{"));
/// assert_eq!(missing, ["gone"]);
/// ```
pub fn limit_registers(ptx: &str, limits: &[(String, u32)]) -> (String, Vec<String>) {
    let mut out = String::with_capacity(ptx.len() + 32 * limits.len());
    let mut found = vec![false; limits.len()];
    let mut pending: Option<u32> = None;
    for line in ptx.split_inclusive('\n') {
        out.push_str(line);
        let text = line.trim();
        if let Some(rest) = text
            .strip_prefix(".visible .entry ")
            .or_else(|| text.strip_prefix(".entry "))
        {
            let name = rest.split('(').next().unwrap_or("").trim();
            pending = limits.iter().position(|(k, _)| k == name).map(|i| {
                found[i] = true;
                limits[i].1
            });
        }
        // The directive goes after the parameter list's closing line.
        if let Some(registers) = pending {
            if text.ends_with(')') {
                out.push_str(&format!(".maxnreg {registers}\n"));
                pending = None;
            }
        }
    }
    let missing = limits
        .iter()
        .zip(&found)
        .filter(|(_, &f)| !f)
        .map(|((k, _), _)| k.clone())
        .collect();
    (out, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_kernels_get_a_limit() {
        let ptx = ".visible .entry a(\n\t.param .u32 a_param_0\n)\n{\n}\n\
                   .visible .entry b(\n\t.param .u32 b_param_0\n)\n{\n}\n\
                   .visible .entry c()\n{\n}\n";
        let limits = [("b".to_string(), 40), ("c".to_string(), 72)];
        let (out, missing) = limit_registers(ptx, &limits);
        assert!(missing.is_empty());
        assert_eq!(out.matches(".maxnreg").count(), 2);
        assert!(out.contains("b_param_0\n)\n.maxnreg 40\n{"));
        assert!(out.contains(".entry c()\n.maxnreg 72\n{"));
        assert!(out.contains("a_param_0\n)\n{"));
    }
}

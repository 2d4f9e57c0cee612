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
    let directives: Vec<(String, String)> = limits
        .iter()
        .map(|(k, r)| (k.clone(), format!(".maxnreg {r}\n")))
        .collect();
    crate::launch_bounds::insert_directives(ptx, &directives)
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

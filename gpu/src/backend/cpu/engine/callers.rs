//! Where a waiting thread's collective was called from: the frames of the
//! thread's own stack between the call the kernel wrote and the kernel's
//! entry, read only when a diagnosis names that call.
//!
//! Two readers give the frames. On Linux, [`super::symbolize`] maps the
//! program's file and reads its symbol table and the line table of each
//! unit a frame of the kernel's crate falls in, nothing else. Where it
//! cannot (another system, compressed debug sections, a unit it has no
//! address ranges for or whose functions are in a split DWARF file), the
//! standard library's `Backtrace` does, which loads all of the program's
//! debug information on its first use in a process.

use crate::backend::Site;
use crate::backend::cpu::PanicLocation;

/// Where the function holding `site` was called from, innermost first: the
/// frames of the running thread's stack in the kernel's crate (not coop's,
/// the standard library's or the coroutine library's) above the one at
/// `site`, at most four. Empty without line information.
#[cold]
pub(crate) fn callers_of(site: Site) -> Vec<PanicLocation> {
    #[cfg(target_os = "linux")]
    let program = super::symbolize::Program::get();
    #[cfg(target_os = "linux")]
    if let Err(super::symbolize::Unavailable::NoLines) = program {
        return Vec::new(); // a release build: no symbolizer names a line
    }
    #[cfg(target_os = "linux")]
    if let Ok(program) = program {
        let ips = super::symbolize::return_addresses();
        let mut frames = Vec::new();
        let mut unread = false;
        for (symbol, ip) in program.symbols(&ips).into_iter().zip(ips) {
            let Some(symbol) = symbol else { continue };
            let entry = symbol.contains(KERNEL_ENTRY);
            if in_kernel_crate(&symbol) {
                // Only the kernel crate's functions are read for lines
                // and inlined calls (coop's inlined into them included).
                // An inlined call of unknown name is left out.
                let Some(inner) = program.frames(ip) else {
                    // A Rust function (a path) has line information in a
                    // program that has some; a bare symbol (an assembly
                    // trampoline) has none anywhere.
                    if symbol.contains("::") {
                        unread = true;
                        break;
                    }
                    continue;
                };
                let last = inner.len() - 1;
                for (i, (name, at)) in inner.into_iter().enumerate() {
                    match name {
                        Some(name) => frames.push((name, at)),
                        None if i == last => frames.push((symbol.clone(), at)),
                        None => {}
                    }
                }
            } else {
                frames.push((symbol, None));
            }
            if entry {
                break;
            }
        }
        if !unread {
            // Every frame of the kernel's crate was read: the standard
            // library's symbolizer would find no more (a collective in
            // tail position leaves no frame of its caller on the stack).
            return chain(frames.into_iter(), |at| at.clone(), site).unwrap_or_default();
        }
    }
    chain(std_frames(), |at| at.clone(), site).unwrap_or_default()
}

/// Part of the name of the function through which every emulated thread
/// enters its kernel.
const KERNEL_ENTRY: &str = "as coop::kernel::Kernel>::run_lane";

/// The call chain above `site` among `frames` (symbol and what `locate`
/// turns into a source line; innermost first), or `None` when no frame of
/// the kernel's crate is at `site`.
fn chain<L>(
    frames: impl Iterator<Item = (String, L)>,
    mut locate: impl FnMut(&L) -> Option<PanicLocation>,
    site: Site,
) -> Option<Vec<PanicLocation>> {
    // The stack above the kernel's entry is the scheduler's, then the
    // launching program's; only frames of the kernel's crate are read.
    let user: Vec<PanicLocation> = frames
        .take_while(|(symbol, _)| !symbol.contains(KERNEL_ENTRY))
        .filter(|(symbol, _)| in_kernel_crate(symbol))
        .filter_map(|(_, at)| locate(&at))
        .filter(|at| !in_toolchain(&at.file))
        .collect();
    let i = user.iter().position(|l| {
        l.line == site.line() && (l.file.ends_with(site.file()) || site.file().ends_with(&l.file))
    })?;
    let frame = user[i].file.clone();
    Some(
        user.into_iter()
            .skip(i + 1)
            .take(4)
            .map(|mut l| {
                l.file = in_site_style(&l.file, site.file(), &frame);
                l
            })
            .collect(),
    )
}

/// The running thread's frames as the standard library's `Backtrace`
/// prints them: symbol and source line, innermost first.
fn std_frames() -> impl Iterator<Item = (String, Option<PanicLocation>)> {
    let trace = std::backtrace::Backtrace::force_capture().to_string();
    let mut frames = Vec::new();
    let mut lines = trace.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((number, symbol)) = line.trim_start().split_once(": ") else {
            continue;
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let at = lines
            .peek()
            .and_then(|l| l.trim_start().strip_prefix("at "))
            .and_then(parse_location);
        frames.push((symbol.to_string(), at));
    }
    frames.into_iter()
}

/// `file`, a caller's path as the debug information names it, written as
/// `site_file` (the `Location` of the call inside the helper) is written,
/// `frame_file` being the debug information's name for `site_file`: paths
/// relative to the package's folder get the workspace folder `site_file`
/// adds, and absolute paths lose the folder that `site_file` is relative
/// to, so that a call chain has one style.
fn in_site_style(file: &str, site_file: &str, frame_file: &str) -> String {
    if file.starts_with('/') {
        if !site_file.starts_with('/')
            && let Some(root) = frame_file.strip_suffix(site_file)
            && let Some(rest) = file.strip_prefix(root)
        {
            return rest.to_string();
        }
        return file.to_string();
    }
    match site_file.strip_suffix(frame_file) {
        Some(prefix) => format!("{prefix}{file}"),
        None => file.to_string(),
    }
}

/// Whether a frame's symbol belongs to the kernel's own code.
fn in_kernel_crate(symbol: &str) -> bool {
    const NOT: [&str; 8] = [
        "coop::",
        "std::",
        "core::",
        "alloc::",
        "corosensei",
        "__rust",
        "rust_",
        "_start",
    ];
    let bare = symbol.trim_start_matches('<');
    !NOT.iter().any(|p| bare.starts_with(p))
}

/// Whether `file` is the standard library's source: an inlined call of
/// it named without its path (debug information of line tables only
/// names functions by their bare names) is no caller of the kernel's.
fn in_toolchain(file: &str) -> bool {
    file.starts_with("/rustc/") || file.contains("/lib/rustlib/src/rust/library/")
}

/// `path:line:column`.
fn parse_location(text: &str) -> Option<PanicLocation> {
    let mut parts = text.rsplitn(3, ':');
    let column = parts.next()?.trim().parse().ok()?;
    let line = parts.next()?.trim().parse().ok()?;
    let file = parts.next()?.trim_start_matches("./").to_string();
    Some(PanicLocation { file, line, column })
}

#[cfg(test)]
mod call_chain_tests {
    use super::{in_site_style, in_toolchain};

    #[test]
    fn the_standard_librarys_sources_are_no_callers() {
        assert!(in_toolchain(
            "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/iter/range.rs"
        ));
        assert!(in_toolchain(
            "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/core/src/ops/function.rs"
        ));
        assert!(!in_toolchain("/home/u/proj/src/rustc/x.rs"));
        assert!(!in_toolchain("src/x.rs"));
    }

    #[test]
    fn a_call_chain_takes_the_sites_path_style() {
        // Debug information relative to the package, `Location` to the
        // workspace.
        assert_eq!(
            in_site_style("src/x.rs", "kernels/src/x.rs", "src/x.rs"),
            "kernels/src/x.rs"
        );
        // Absolute debug information, `Location` relative.
        assert_eq!(
            in_site_style("/home/u/proj/src/x.rs", "src/x.rs", "/home/u/proj/src/x.rs"),
            "src/x.rs"
        );
        assert_eq!(
            in_site_style(
                "/home/u/proj/kernels/src/y.rs",
                "kernels/src/x.rs",
                "/home/u/proj/kernels/src/x.rs"
            ),
            "kernels/src/y.rs"
        );
        // A caller outside the site's folder keeps its absolute path.
        assert_eq!(
            in_site_style("/elsewhere/src/z.rs", "src/x.rs", "/home/u/proj/src/x.rs"),
            "/elsewhere/src/z.rs"
        );
        // The same style already.
        assert_eq!(
            in_site_style("src/y.rs", "src/x.rs", "src/x.rs"),
            "src/y.rs"
        );
    }
}

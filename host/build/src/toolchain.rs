//! The toolchain checks before a build: a compiler new enough to emit PTX
//! that ptxas and the driver accept, and the `rust-src` component, since
//! device code rebuilds `core`.

use crate::BuildError;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

/// Fails with [`BuildError::MissingRustSrc`], naming the toolchain, when
/// the sources of `core` are not in the sysroot of `$RUSTC`.
pub(crate) fn check_rust_src() -> Result<(), BuildError> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
    let out = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|source| BuildError::Spawn {
            program: rustc.to_string_lossy().into_owned(),
            source,
        })?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let core = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
    if core.exists() {
        return Ok(());
    }
    let toolchain = std::env::var("RUSTUP_TOOLCHAIN").unwrap_or_else(|_| {
        sysroot
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "stable".into())
    });
    Err(BuildError::MissingRustSrc { toolchain })
}

/// The oldest rustc that builds coop and emits PTX ptxas accepts: 1.92
/// (`core::panic::Location::file_as_c_str`, and LLVM 21; LLVM 20, in rustc
/// 1.87 to 1.90, names an intrinsic in the PTX that ptxas rejects).
pub const MIN_RUSTC: (u32, u32) = (1, 92);
/// The oldest LLVM whose NVPTX back end coop's PTX needs.
pub const MIN_LLVM: u32 = 21;

/// Fails with [`BuildError::OldToolchain`] when `$RUSTC` (or `rustc`) is
/// older than [`MIN_RUSTC`] or built on an LLVM older than [`MIN_LLVM`].
pub(crate) fn check_rustc_version() -> Result<(), BuildError> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
    let out = Command::new(&rustc)
        .arg("-vV")
        .output()
        .map_err(|source| BuildError::Spawn {
            program: rustc.to_string_lossy().into_owned(),
            source,
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (release, llvm) = parse_version(&text);
    let old_rustc = release.is_some_and(|(major, minor)| (major, minor) < MIN_RUSTC);
    let old_llvm = llvm.is_some_and(|major| major < MIN_LLVM);
    if old_rustc || old_llvm {
        return Err(BuildError::OldToolchain {
            found: text
                .lines()
                .next()
                .unwrap_or("an unknown rustc")
                .to_string(),
            llvm: llvm.map_or_else(|| "unknown".into(), |v| v.to_string()),
        });
    }
    Ok(())
}

/// `(major, minor)` of `release:` and the major of `LLVM version:` in
/// `rustc -vV`'s output.
fn parse_version(text: &str) -> (Option<(u32, u32)>, Option<u32>) {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    let release = field("release:").and_then(|v| {
        let mut parts = v.split(['.', '-']);
        Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
    });
    let llvm = field("LLVM version:").and_then(|v| v.split('.').next()?.parse().ok());
    (release, llvm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_rustc_vv() {
        let text = "rustc 1.90.0 (1159e78c4 2025-09-14)\nbinary: rustc\nrelease: 1.90.0\nLLVM version: 20.1.8\n";
        assert_eq!(parse_version(text), (Some((1, 90)), Some(20)));
        let text = "rustc 1.95.0-nightly\nrelease: 1.95.0-nightly\nLLVM version: 21.1.2\n";
        assert_eq!(parse_version(text), (Some((1, 95)), Some(21)));
    }
}

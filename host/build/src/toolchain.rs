//! The toolchain checks before a build: a compiler new enough to emit PTX
//! that ptxas and the driver accept, and the `rust-src` component, since
//! device code rebuilds `core`.

use crate::BuildError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that keeps coop-build from installing `rust-src` itself.
pub const NO_RUSTUP_VAR: &str = "COOP_NO_RUSTUP";

/// Makes sure the sources of `core` are in the sysroot of `$RUSTC`.
///
/// When they are missing and the toolchain is managed by rustup, runs
/// `rustup component add rust-src --toolchain <toolchain>` once (under a
/// lock, since several build scripts may get here at the same time) and
/// says so in a cargo warning: rustup adds a `rust-toolchain.toml`'s
/// components only when it installs the toolchain itself, so a machine
/// that already had the pinned release stops here otherwise. With
/// `COOP_NO_RUSTUP` set, or without rustup, fails with
/// [`BuildError::MissingRustSrc`] naming the toolchain and the command.
pub(crate) fn check_rust_src() -> Result<(), BuildError> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
    let sysroot = sysroot(&rustc)?;
    if has_core_sources(&sysroot) {
        return Ok(());
    }
    let toolchain = std::env::var("RUSTUP_TOOLCHAIN").unwrap_or_else(|_| {
        sysroot
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "stable".into())
    });
    let missing = |tried: Option<String>| BuildError::MissingRustSrc {
        toolchain: toolchain.clone(),
        tried,
    };
    if std::env::var_os(NO_RUSTUP_VAR).is_some() {
        return Err(missing(None));
    }
    // Only a toolchain rustup manages can be completed by rustup.
    if std::env::var_os("RUSTUP_TOOLCHAIN").is_none() && std::env::var_os("RUSTUP_HOME").is_none() {
        return Err(missing(None));
    }
    let lock = std::env::temp_dir().join("coop-build-rust-src.lock");
    let lock = std::fs::File::create(&lock).ok();
    if let Some(file) = &lock {
        // Waits for another build script that is installing it now.
        let _ = file.lock();
    }
    if has_core_sources(&sysroot) {
        return Ok(());
    }
    let rustup = std::env::var_os("RUSTUP").unwrap_or_else(|| OsString::from("rustup"));
    let result = Command::new(&rustup)
        .args(["component", "add", "rust-src", "--toolchain", &toolchain])
        .output();
    match result {
        Ok(out) if out.status.success() && has_core_sources(&sysroot) => {
            println!(
                "cargo::warning=coop: installed the `rust-src` component of toolchain \
                 `{toolchain}` (device code rebuilds `core`; {NO_RUSTUP_VAR}=1 turns this off)"
            );
            Ok(())
        }
        Ok(out) => {
            let said = String::from_utf8_lossy(&out.stderr);
            let said = said.trim();
            Err(missing(Some(if said.is_empty() {
                format!("`rustup component add` ended with {}", out.status)
            } else {
                format!("`rustup component add` said: {said}")
            })))
        }
        Err(e) => Err(missing(Some(format!(
            "`{}` could not be started: {e}",
            rustup.to_string_lossy()
        )))),
    }
}

/// `rustc --print sysroot`.
fn sysroot(rustc: &OsString) -> Result<PathBuf, BuildError> {
    let out = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|source| BuildError::Spawn {
            program: rustc.to_string_lossy().into_owned(),
            source,
        })?;
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

fn has_core_sources(sysroot: &Path) -> bool {
    sysroot
        .join("lib/rustlib/src/rust/library/core/Cargo.toml")
        .exists()
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

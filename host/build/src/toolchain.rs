//! The toolchain check before a build: device code rebuilds `core`, which
//! needs the `rust-src` component.

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

#![warn(missing_docs)]
//! Compiles a coop kernel crate to PTX from a `build.rs`.
//!
//! The kernel crate is built by a nested `cargo rustc` for
//! `nvptx64-nvidia-cuda`, in its own target directory, with the settings
//! device code needs (`-Zbuild-std=core`, `panic = "abort"`, fat LTO, one
//! codegen unit, `--emit=asm`). With fat LTO every crate is merged into one
//! module, so the single `.s` file rustc writes is the PTX of the whole
//! kernel crate. On a stable toolchain `RUSTC_BOOTSTRAP=1` unlocks the
//! unstable flags this needs; nightly works as is.
//!
//! Each PTX is then checked for instructions that are only correct when
//! every thread of a warp executes the very same instruction (see
//! [`convergence`]): the compiler does not promise to keep that, and such a
//! kernel can hang the GPU while the CPU backend runs it fine.

pub mod convergence;

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The SM targets built when none are named: Ampere (sm_80), which every
/// GPU coop supports can run, and Hopper (sm_90).
pub const DEFAULT_TARGETS: [u32; 2] = [80, 90];

/// Builds a kernel crate to PTX, for use in a `build.rs`.
///
/// In the `build.rs` of the crate that launches the kernels:
///
/// ```no_run
/// coop_build::PtxBuilder::new("kernels").build_or_exit();
/// ```
///
/// and in that crate:
///
/// ```text
/// static PTX: coop_host::PtxSet = coop_host::include_ptx!("my-kernels");
/// ```
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    crate_dir: PathBuf,
    targets: Vec<u32>,
    watch: Vec<PathBuf>,
    allow_convergence_dependent: bool,
}

/// Why the PTX build failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Not running inside a build script (no `OUT_DIR`).
    #[error("PtxBuilder runs inside a build script: `{0}` is not set")]
    NotInBuildScript(&'static str),
    /// The kernel crate's manifest could not be read or has no package name.
    #[error("cannot read the kernel crate at {path}: {reason}")]
    BadManifest {
        /// The manifest's path.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// A target that is not an SM number coop can build for.
    #[error("sm_{0} is not a target coop builds for: use 70 or higher (80 and 90 by default)")]
    BadTarget(u32),
    /// The Rust standard library's sources are missing.
    #[error(
        "the Rust source component is missing from toolchain `{toolchain}`: device code \
         rebuilds `core` for nvptx64-nvidia-cuda, which needs it. Run:\n    \
         rustup component add rust-src --toolchain {toolchain}"
    )]
    MissingRustSrc {
        /// The toolchain in use.
        toolchain: String,
    },
    /// A tool could not be started.
    #[error("could not run `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The nested build failed; `output` is what cargo printed.
    #[error("building the kernel crate `{package}` for sm_{sm} failed:\n{output}")]
    Compile {
        /// The kernel crate.
        package: String,
        /// The SM target.
        sm: u32,
        /// cargo's output.
        output: String,
    },
    /// The build succeeded but left no PTX where expected.
    #[error("the build of `{package}` succeeded but wrote no PTX at {path}")]
    NoPtx {
        /// The kernel crate.
        package: String,
        /// Where the PTX was expected.
        path: PathBuf,
    },
    /// The PTX holds instructions that need every thread of a warp to
    /// execute the same instruction (see [`convergence`]).
    #[error(
        "the PTX of `{package}` (sm_{sm}) holds instructions that are correct only if every \
         thread of a warp executes that very instruction, which rustc and LLVM do not promise \
         (they may copy code into both arms of a branch):\n{}",
        convergence::describe(findings)
    )]
    ConvergenceDependent {
        /// The kernel crate.
        package: String,
        /// The SM target.
        sm: u32,
        /// Each such instruction, with its function and line.
        findings: Vec<convergence::Finding>,
    },
    /// Writing the output failed.
    #[error("could not write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl BuildError {
    /// Reports the error to cargo and ends the build script with a failure.
    pub fn exit(&self) -> ! {
        for line in self.to_string().lines() {
            println!("cargo::error={line}");
        }
        std::process::exit(1)
    }
}

impl PtxBuilder {
    /// A builder for the kernel crate at `crate_dir`, relative to the
    /// manifest directory of the crate whose build script runs it.
    pub fn new(crate_dir: impl AsRef<Path>) -> Self {
        let base = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_default();
        PtxBuilder {
            crate_dir: base.join(crate_dir),
            targets: DEFAULT_TARGETS.to_vec(),
            watch: Vec::new(),
            allow_convergence_dependent: false,
        }
    }

    /// Accepts PTX that holds convergence-dependent instructions
    /// ([`convergence::check`]) instead of failing the build. Only for a
    /// kernel crate whose own inline `asm!` uses such instructions (the
    /// `.aligned` matrix instructions, say) where control flow is uniform
    /// across each warp; coop itself never emits them.
    pub fn allow_convergence_dependent(mut self) -> Self {
        self.allow_convergence_dependent = true;
        self
    }

    /// Builds for exactly these SM targets (`10 * major + minor`, e.g. 80,
    /// 86, 90) instead of the default sm_80 and sm_90. The environment
    /// variable `COOP_PTX_TARGETS` (e.g. `80,90`) overrides both.
    pub fn targets(mut self, targets: &[u32]) -> Self {
        self.targets = targets.to_vec();
        self
    }

    /// Also rebuilds when anything under `path` changes (relative to the
    /// calling crate's manifest directory). The kernel crate itself is
    /// always watched, as are the sources of its path dependencies.
    pub fn watch(mut self, path: impl AsRef<Path>) -> Self {
        let base = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_default();
        self.watch.push(base.join(path));
        self
    }

    /// Builds, or reports the error to cargo and fails the build script.
    pub fn build_or_exit(self) -> Vec<PathBuf> {
        self.build().unwrap_or_else(|e| e.exit())
    }

    /// Builds the PTX for each target into `OUT_DIR` as
    /// `<package>.sm_<N>.ptx`, writes `<package>.ptx.rs` for
    /// `coop_host::include_ptx!`, and returns the PTX paths.
    ///
    /// When `DOCS_RS` is set (docs.rs has no GPU toolchain), it writes empty
    /// PTX instead of building.
    pub fn build(self) -> Result<Vec<PathBuf>, BuildError> {
        let out_dir = PathBuf::from(
            std::env::var_os("OUT_DIR").ok_or(BuildError::NotInBuildScript("OUT_DIR"))?,
        );
        let manifest = self.crate_dir.join("Cargo.toml");
        let package = package_name(&manifest)?;
        let targets = targets_from_env().unwrap_or(self.targets.clone());
        if let Some(&bad) = targets.iter().find(|&&t| t < 70) {
            return Err(BuildError::BadTarget(bad));
        }
        println!("cargo::rerun-if-env-changed=COOP_PTX_TARGETS");
        println!("cargo::rerun-if-changed={}", manifest.display());
        println!(
            "cargo::rerun-if-changed={}",
            self.crate_dir.join("src").display()
        );
        for w in &self.watch {
            println!("cargo::rerun-if-changed={}", w.display());
        }

        let docs_rs = std::env::var_os("DOCS_RS").is_some();
        if !docs_rs {
            check_rust_src()?;
        }
        let mut paths = Vec::new();
        for &sm in &targets {
            let dest = out_dir.join(format!("{package}.sm_{sm}.ptx"));
            let ptx = if docs_rs {
                String::new()
            } else {
                self.build_one(&package, sm, &out_dir)?
            };
            let findings = convergence::check(&ptx);
            if !findings.is_empty() && !self.allow_convergence_dependent {
                return Err(BuildError::ConvergenceDependent {
                    package: package.clone(),
                    sm,
                    findings,
                });
            }
            std::fs::write(&dest, ptx).map_err(|source| BuildError::Write {
                path: dest.clone(),
                source,
            })?;
            paths.push(dest);
        }
        let mut rs = format!("::coop_host::PtxSet::new({package:?}, &[\n");
        for (sm, path) in targets.iter().zip(&paths) {
            let _ = writeln!(
                rs,
                "    ({sm}, include_str!({:?})),",
                path.display().to_string()
            );
        }
        rs.push_str("])\n");
        let rs_path = out_dir.join(format!("{package}.ptx.rs"));
        std::fs::write(&rs_path, rs).map_err(|source| BuildError::Write {
            path: rs_path,
            source,
        })?;
        Ok(paths)
    }

    fn build_one(&self, package: &str, sm: u32, out_dir: &Path) -> Result<String, BuildError> {
        let target_dir = ptx_target_dir(out_dir)
            .join(package)
            .join(format!("sm_{sm}"));
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
        let mut cmd = Command::new(&cargo);
        scrub_env(&mut cmd);
        cmd.arg("rustc")
            .arg("--manifest-path")
            .arg(self.crate_dir.join("Cargo.toml"))
            .args(["--lib", "--release", "--target", "nvptx64-nvidia-cuda"])
            .args(["-Zbuild-std=core", "--crate-type", "cdylib"])
            .arg("--target-dir")
            .arg(&target_dir)
            .args([
                "--",
                "--emit=asm",
                "-Zcrate-attr=feature(abi_ptx)",
                // `#[kernel]` declares shared arrays with `global_asm!`.
                "-Zcrate-attr=feature(asm_experimental_arch)",
            ])
            .env("RUSTC_BOOTSTRAP", "1")
            .env("CARGO_ENCODED_RUSTFLAGS", format!("-Ctarget-cpu=sm_{sm}"))
            .env("CARGO_TARGET_NVPTX64_NVIDIA_CUDA_LINKER", "true")
            .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
            .env("CARGO_PROFILE_RELEASE_LTO", "fat")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
            .env("CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS", "false")
            .env("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "false")
            .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false");
        let output = cmd.output().map_err(|source| BuildError::Spawn {
            program: cargo.to_string_lossy().into_owned(),
            source,
        })?;
        if !output.status.success() {
            return Err(BuildError::Compile {
                package: package.to_string(),
                sm,
                output: String::from_utf8_lossy(&output.stderr).into_owned(),
            });
        }
        let release = target_dir.join("nvptx64-nvidia-cuda").join("release");
        let lib = package.replace('-', "_");
        // Cargo's dep-info lists every local source file of the crate and its
        // path dependencies: watch them all.
        if let Ok(dep_info) = std::fs::read_to_string(release.join(format!("lib{lib}.d"))) {
            for file in dep_info_files(&dep_info) {
                println!("cargo::rerun-if-changed={file}");
            }
        }
        let asm = release.join("deps").join(format!("{lib}.s"));
        std::fs::read_to_string(&asm).map_err(|_| BuildError::NoPtx {
            package: package.to_string(),
            path: asm,
        })
    }
}

/// `<workspace target>/coop-ptx`, found from `OUT_DIR`
/// (`<target>/<profile>/build/<pkg>-<hash>/out`), so that the nested builds
/// are cached across profiles and `cargo clean` removes them.
fn ptx_target_dir(out_dir: &Path) -> PathBuf {
    out_dir
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "build"))
        .and_then(|build| build.parent()?.parent())
        .map(|target| target.join("coop-ptx"))
        .unwrap_or_else(|| out_dir.join("coop-ptx"))
}

fn targets_from_env() -> Option<Vec<u32>> {
    let v = std::env::var("COOP_PTX_TARGETS").ok()?;
    let parsed: Vec<u32> = v
        .split(',')
        .filter_map(|s| s.trim().trim_start_matches("sm_").parse().ok())
        .collect();
    (!parsed.is_empty()).then_some(parsed)
}

/// Removes what the outer build set for its own compilation, which would
/// otherwise leak into the nested one (flags, wrappers, target, jobserver).
fn scrub_env(cmd: &mut Command) {
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let leaks = key.starts_with("CARGO_FEATURE_")
            || key.starts_with("CARGO_CFG_")
            || key.starts_with("CARGO_PKG_")
            || key.starts_with("CARGO_MANIFEST_")
            || key.starts_with("CARGO_PROFILE_")
            || key.starts_with("CARGO_TARGET_")
            || key.starts_with("CARGO_BUILD_")
            || key.starts_with("CARGO_LLVM_COV")
            || key.starts_with("DEP_")
            || matches!(
                key,
                "RUSTFLAGS"
                    | "RUSTDOCFLAGS"
                    | "CARGO_ENCODED_RUSTFLAGS"
                    | "CARGO_ENCODED_RUSTDOCFLAGS"
                    | "RUSTC_WRAPPER"
                    | "RUSTC_WORKSPACE_WRAPPER"
                    | "CARGO_MAKEFLAGS"
                    | "MAKEFLAGS"
                    | "MFLAGS"
                    | "CARGO_PRIMARY_PACKAGE"
                    | "CARGO_CRATE_NAME"
                    | "OUT_DIR"
                    | "TARGET"
                    | "HOST"
                    | "PROFILE"
                    | "DEBUG"
                    | "OPT_LEVEL"
                    | "NUM_JOBS"
                    | "RUSTC_LINKER"
                    | "CARGO_INCREMENTAL"
                    | "LLVM_PROFILE_FILE"
            );
        if leaks {
            cmd.env_remove(key);
        }
    }
}

fn package_name(manifest: &Path) -> Result<String, BuildError> {
    let bad = |reason: String| BuildError::BadManifest {
        path: manifest.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(manifest).map_err(|e| bad(e.to_string()))?;
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        if let Some(rest) = line.strip_prefix("name") {
            if let Some(value) = rest.trim_start().strip_prefix('=') {
                let value = value.trim().trim_matches('"');
                if !value.is_empty() {
                    return Ok(value.to_string());
                }
            }
        }
    }
    Err(bad("no `name` in its [package] section".into()))
}

fn check_rust_src() -> Result<(), BuildError> {
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

/// The files after the first `:` of a Makefile-style dep-info file.
fn dep_info_files(dep_info: &str) -> Vec<String> {
    let Some(first) = dep_info.lines().next() else {
        return Vec::new();
    };
    let Some((_, deps)) = first.split_once(": ") else {
        return Vec::new();
    };
    let mut files = Vec::new();
    let mut current = String::new();
    let mut chars = deps.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                current.push(' ');
                chars.next();
            }
            ' ' => {
                if !current.is_empty() {
                    files.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if !current.is_empty() {
        files.push(current);
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dep_info_lists_files_with_escaped_spaces() {
        let d = "/t/libk.so: /a/src/lib.rs /b/my\\ dir/x.rs /c/y.rs\n\n/a/src/lib.rs:\n";
        assert_eq!(
            dep_info_files(d),
            ["/a/src/lib.rs", "/b/my dir/x.rs", "/c/y.rs"]
        );
    }

    #[test]
    fn nested_builds_go_next_to_the_profile_dirs() {
        let out = Path::new("/w/target/debug/build/app-0123/out");
        assert_eq!(ptx_target_dir(out), Path::new("/w/target/coop-ptx"));
    }

    #[test]
    fn package_name_is_read_from_the_package_section() {
        let dir = std::env::temp_dir().join(format!("coop-builder-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = dir.join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[lib]\nname = \"nope\"\n[package]\nname = \"my-kernels\"\n",
        )
        .unwrap();
        assert_eq!(package_name(&manifest).unwrap(), "my-kernels");
        std::fs::write(&manifest, "[package]\nversion = \"1\"\n").unwrap();
        let e = package_name(&manifest).unwrap_err().to_string();
        assert!(e.contains("no `name`"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_rust_src_says_what_to_install() {
        let e = BuildError::MissingRustSrc {
            toolchain: "stable-x86_64-unknown-linux-gnu".into(),
        };
        assert!(e
            .to_string()
            .contains("rustup component add rust-src --toolchain stable-x86_64-unknown-linux-gnu"));
    }
}

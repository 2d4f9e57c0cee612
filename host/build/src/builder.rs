//! [`PtxBuilder`]: the nested `cargo rustc` that compiles a kernel crate
//! to PTX for each SM target, checks the PTX, and writes the files
//! `include_ptx!` embeds.

use crate::dep_info::dep_info_files;
use crate::manifest::package_name;
use crate::nested_outputs::NestedOutputs;
use crate::toolchain::{check_rust_src, check_rustc_version};
use crate::{convergence, BuildError};
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
#[must_use = "a PtxBuilder builds nothing until `build` or `build_or_exit` is called"]
pub struct PtxBuilder {
    crate_dir: PathBuf,
    targets: Vec<u32>,
    watch: Vec<PathBuf>,
    allow_convergence_dependent: bool,
    silent_panics: bool,
    features: Vec<String>,
    name: Option<String>,
    max_registers: Vec<(String, u32)>,
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
            silent_panics: false,
            features: Vec::new(),
            name: None,
            max_registers: Vec::new(),
        }
    }

    /// Builds the kernel crate with exactly these cargo features (its
    /// default features off), to make PTX of a part of its kernels. Name
    /// the result with [`name`](Self::name) when one crate gives several.
    ///
    /// ```no_run
    /// coop_build::PtxBuilder::new("kernels")
    ///     .features(&["scans"])
    ///     .name("my-kernels-scans")
    ///     .build_or_exit();
    /// ```
    pub fn features(mut self, features: &[&str]) -> Self {
        self.features = features.iter().map(|f| f.to_string()).collect();
        self
    }

    /// Names the output `<name>.sm_<N>.ptx` and `<name>.ptx.rs` (for
    /// `include_ptx!("<name>")`) instead of after the package.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Builds the kernels so that a panic or a failed coop check traps
    /// without printing its report (block, thread, `file:line`). By default
    /// a kernel that can panic reports, which keeps a calling convention in
    /// it: at least 24 registers, and a few per cent on the smallest,
    /// launch-bound kernels (chapter 7 of the guide). coop builds its own
    /// device-wide reduction kernels this way; the host still names a
    /// faulting kernel in `Error::KernelFault`.
    pub fn silent_panics(mut self) -> Self {
        self.silent_panics = true;
        self
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

    /// Caps the registers of each thread of the kernels named in `kernels`
    /// at `registers` (a `.maxnreg` directive in their PTX; see
    /// [`register_limits`](crate::register_limits)), so that more blocks fit
    /// on a multiprocessor; ptxas spills what does not fit. The build fails
    /// with [`BuildError::UnknownKernel`] if the PTX has no such kernel,
    /// and with [`BuildError::BadRegisterLimit`] unless `registers` is in
    /// [`REGISTER_LIMITS`](crate::register_limits::REGISTER_LIMITS). A
    /// block of `t` threads then needs `t × registers` of the
    /// multiprocessor's 65536 registers.
    ///
    /// ```no_run
    /// coop_build::PtxBuilder::new("kernels")
    ///     .max_registers(&["scan_sum_i32", "scan_sum_f32"], 64)
    ///     .build_or_exit();
    /// ```
    pub fn max_registers(mut self, kernels: &[&str], registers: u32) -> Self {
        self.max_registers
            .extend(kernels.iter().map(|k| (k.to_string(), registers)));
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
        let output = self.name.clone().unwrap_or_else(|| package.clone());
        let targets = targets_from_env().unwrap_or(self.targets.clone());
        if let Some(&bad) = targets.iter().find(|&&t| t < 70) {
            return Err(BuildError::BadTarget(bad));
        }
        println!("cargo::rerun-if-env-changed=COOP_PTX_TARGETS");
        println!("cargo::rerun-if-env-changed=COOP_PTX_QUIET");
        // An empty PTX written for docs.rs must not be reused by a normal
        // build.
        println!("cargo::rerun-if-env-changed=DOCS_RS");
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
            check_rustc_version()?;
            check_rust_src()?;
        }
        let started = std::time::Instant::now();
        // The targets build at once, each in a nested cargo of its own: a
        // build is mostly one crate at a time (`core`, then the kernel crate
        // under fat LTO), so two of them use two cores.
        let built: Vec<Result<String, BuildError>> = if docs_rs {
            targets.iter().map(|_| Ok(String::new())).collect()
        } else {
            let this = &self;
            std::thread::scope(|scope| {
                let builds: Vec<_> = targets
                    .iter()
                    .map(|&sm| {
                        let (package, out_dir) = (&package, &out_dir);
                        scope.spawn(move || this.build_one(package, sm, out_dir))
                    })
                    .collect();
                builds
                    .into_iter()
                    .map(|b| b.join().expect("a PTX build thread panicked"))
                    .collect()
            })
        };
        let mut paths = Vec::new();
        for (&sm, ptx) in targets.iter().zip(built) {
            let dest = out_dir.join(format!("{output}.sm_{sm}.ptx"));
            let (ptx, bounds) = crate::launch_bounds::apply(&ptx?);
            if let Some(b) = bounds.iter().find(|b| {
                (b.max_registers.is_some() || b.min_blocks.is_some())
                    && self.max_registers.iter().any(|(k, _)| *k == b.kernel)
            }) {
                return Err(BuildError::RegisterLimitTwice {
                    kernel: b.kernel.clone(),
                });
            }
            let ptx = self.limit_registers(ptx, &package, sm)?;
            if !bounds.is_empty() && std::env::var_os("COOP_PTX_QUIET").is_none() {
                report_spills(
                    &ptx,
                    sm,
                    &bounds,
                    out_dir.join(format!("{output}.sm_{sm}.bounds.ptx")),
                );
            }
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
        let mut rs = format!("::coop_host::PtxSet::new({output:?}, &[\n");
        for (sm, path) in targets.iter().zip(&paths) {
            let _ = writeln!(
                rs,
                "    ({sm}, include_str!({:?})),",
                path.display().to_string()
            );
        }
        rs.push_str("])\n");
        let rs_path = out_dir.join(format!("{output}.ptx.rs"));
        std::fs::write(&rs_path, rs).map_err(|source| BuildError::Write {
            path: rs_path,
            source,
        })?;
        if !docs_rs && std::env::var_os("COOP_PTX_QUIET").is_none() {
            // The one line a PTX build prints (cargo shows a build script's
            // output only as warnings): what was built, and how long it took.
            let sms: Vec<String> = targets.iter().map(|sm| format!("sm_{sm}")).collect();
            println!(
                "cargo::warning=coop: built the PTX of `{output}` for {} in {:.1} s \
                 (COOP_PTX_QUIET=1 hides this line)",
                sms.join(", "),
                started.elapsed().as_secs_f64()
            );
        }
        Ok(paths)
    }

    /// `ptx` with the register limits of [`max_registers`](Self::max_registers).
    fn limit_registers(&self, ptx: String, package: &str, sm: u32) -> Result<String, BuildError> {
        if self.max_registers.is_empty() || ptx.is_empty() {
            return Ok(ptx);
        }
        if let Some((kernel, registers)) = self
            .max_registers
            .iter()
            .find(|(_, r)| !crate::register_limits::REGISTER_LIMITS.contains(r))
        {
            return Err(BuildError::BadRegisterLimit {
                kernel: kernel.clone(),
                registers: *registers,
            });
        }
        let (ptx, missing) = crate::register_limits::limit_registers(&ptx, &self.max_registers);
        match missing.into_iter().next() {
            Some(kernel) => Err(BuildError::UnknownKernel {
                package: package.to_string(),
                sm,
                kernel,
            }),
            None => Ok(ptx),
        }
    }

    fn build_one(&self, package: &str, sm: u32, out_dir: &Path) -> Result<String, BuildError> {
        // One nested target folder for every kernel crate built with the
        // same flags for the same SM, so that `core` (rebuilt for the GPU)
        // is compiled once for all of them; a lock keeps two build scripts
        // from interleaving their builds and reads of the PTX there (cargo
        // would serialise the builds; the reads are ours).
        let flavour = if self.silent_panics {
            "silent-panics"
        } else {
            "default"
        };
        let target_dir = ptx_target_dir(out_dir)
            .join(flavour)
            .join(format!("sm_{sm}"));
        std::fs::create_dir_all(&target_dir).map_err(|source| BuildError::Write {
            path: target_dir.clone(),
            source,
        })?;
        let lock_path = target_dir.join("coop-ptx.lock");
        let lock = std::fs::File::create(&lock_path).map_err(|source| BuildError::Write {
            path: lock_path,
            source,
        })?;
        // Held until the PTX has been read (dropped at the end of this call).
        let _ = lock.lock();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
        let mut cmd = Command::new(&cargo);
        scrub_env(&mut cmd);
        cmd.arg("rustc")
            .arg("--manifest-path")
            .arg(self.crate_dir.join("Cargo.toml"))
            .args(["--lib", "--release", "--target", "nvptx64-nvidia-cuda"])
            .args(["-Zbuild-std=core", "--crate-type", "cdylib"])
            .arg("--target-dir")
            .arg(&target_dir);
        if !self.features.is_empty() {
            cmd.arg("--no-default-features")
                .arg("--features")
                .arg(self.features.join(","));
        }
        cmd.args([
            "--",
            "--emit=asm",
            "-Zcrate-attr=feature(abi_ptx)",
            // `#[kernel]` declares shared arrays with `global_asm!`.
            "-Zcrate-attr=feature(asm_experimental_arch)",
        ])
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_ENCODED_RUSTFLAGS", {
            // Clusters (their special registers and barrier) exist
            // from sm_90; the kernel crate reads this cfg.
            let mut flags = format!("-Ctarget-cpu=sm_{sm}");
            // The PTX ISA version LLVM writes follows the target alone (7.0
            // for sm_80, 7.8 for sm_90); the asynchronous copies need newer:
            // 7.1 for an mbarrier's parity waits; for sm_90, 8.0 for the bulk
            // copies, `mbarrier.try_wait` and `fence.proxy.async`, and 8.3 for
            // the fence that acquires a tensor map (drivers of CUDA 12.3 and
            // later read it).
            flags.push_str(if sm >= 90 {
                "\x1f-Ctarget-feature=+ptx83"
            } else {
                "\x1f-Ctarget-feature=+ptx71"
            });
            if sm >= 90 {
                flags.push_str("\x1f--cfg=coop_sm90");
            }
            if self.silent_panics {
                flags.push_str("\x1f--cfg=coop_silent_panics");
            }
            flags
        })
        .env("CARGO_TARGET_NVPTX64_NVIDIA_CUDA_LINKER", "true")
        .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
        .env("CARGO_PROFILE_RELEASE_LTO", "fat")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS", "false")
        .env("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "false")
        .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false");
        let release = target_dir.join("nvptx64-nvidia-cuda").join("release");
        let lib = package.replace('-', "_");
        let outputs = NestedOutputs::new(&release, package, &target_dir, &self.features);
        // What this crate and feature set left in the shared folder last
        // time, so that cargo judges its freshness against its own outputs.
        outputs.restore();
        let output = cmd.output().map_err(|source| BuildError::Spawn {
            program: cargo.to_string_lossy().into_owned(),
            source,
        })?;
        if !output.status.success() {
            let said = String::from_utf8_lossy(&output.stderr);
            // The kernel crate is also a dependency of the host crate, whose
            // build cargo runs beside this one and whose errors it prints
            // itself: an error the host build shares is said once, there.
            if self.host_build_fails(&target_dir) {
                return Err(BuildError::CompileShared {
                    package: package.to_string(),
                    sm,
                });
            }
            return Err(BuildError::Compile {
                package: package.to_string(),
                sm,
                output: compiler_messages(&said, &self.crate_dir),
            });
        }
        outputs.keep();
        // Cargo's dep-info lists every local source file of the crate and its
        // path dependencies: watch them all.
        if let Ok(dep_info) = std::fs::read_to_string(release.join(format!("{lib}.d"))) {
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

impl PtxBuilder {
    /// Whether the kernel crate fails to build for the host too (a
    /// `cargo check` in a target folder of its own): then its errors are
    /// the ones cargo prints for the host build.
    fn host_build_fails(&self, target_dir: &Path) -> bool {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
        let mut cmd = Command::new(&cargo);
        scrub_env(&mut cmd);
        cmd.arg("check")
            .arg("--manifest-path")
            .arg(self.crate_dir.join("Cargo.toml"))
            .args(["--lib", "--quiet", "--message-format=short"])
            .arg("--target-dir")
            .arg(target_dir.join("host-check"));
        if !self.features.is_empty() {
            cmd.arg("--no-default-features")
                .arg("--features")
                .arg(self.features.join(","));
        }
        cmd.output().is_ok_and(|out| !out.status.success())
    }
}

/// The compiler's messages in a nested build's output that concern the
/// kernel crate: every error, and the warnings located in `crate_dir`;
/// cargo's progress lines and the warnings of other crates (coop's own
/// among them) are left out.
fn compiler_messages(stderr: &str, crate_dir: &Path) -> String {
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    for line in stderr.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("Compiling ")
            || trimmed.starts_with("Blocking waiting")
            || trimmed.starts_with("Finished ")
        {
            continue;
        }
        if line.starts_with("warning") || line.starts_with("error") || blocks.is_empty() {
            blocks.push(Vec::new());
        }
        blocks.last_mut().expect("pushed above").push(line);
    }
    let crate_dir = crate_dir.to_string_lossy();
    let ours = |block: &[&str]| {
        let location = block
            .iter()
            .find_map(|l| l.trim_start().strip_prefix("--> "));
        match location {
            // A relative path is the workspace's; an absolute one is ours
            // when it lies in the kernel crate.
            Some(path) => !path.starts_with('/') || path.starts_with(crate_dir.as_ref()),
            None => false,
        }
    };
    blocks
        .iter()
        .filter(|block| {
            let first = block.first().copied().unwrap_or("");
            let summary = first.starts_with("warning: `") && first.contains("generated");
            !summary && (first.starts_with("error") || ours(block))
        })
        .map(|block| block.join("\n"))
        .collect::<Vec<_>>()
        .join("\n")
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

/// Prints a cargo warning for each kernel with launch bounds or a register
/// cap that spills registers under them, when ptxas is at hand (`$PTXAS`,
/// `ptxas` on `PATH` or in `/usr/local/cuda/bin`); says nothing without
/// it (the GPU's driver assembles the PTX at load time either way, and
/// `Module::kernel_resources` reports the local memory a kernel uses).
fn report_spills(
    ptx: &str,
    sm: u32,
    bounds: &[crate::launch_bounds::KernelBounds],
    scratch: PathBuf,
) {
    println!("cargo::rerun-if-env-changed=PTXAS");
    let candidates = [
        std::env::var_os("PTXAS").map(PathBuf::from),
        Some(PathBuf::from("ptxas")),
        Some(PathBuf::from("/usr/local/cuda/bin/ptxas")),
    ];
    let Some(ptxas) = candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        return;
    };
    if std::fs::write(&scratch, ptx).is_err() {
        return;
    }
    let mut cmd = Command::new(&ptxas);
    cmd.arg(format!("-arch=sm_{sm}")).arg("-v");
    for b in bounds {
        cmd.arg("-e").arg(&b.kernel);
    }
    cmd.arg(&scratch)
        .arg("-o")
        .arg(scratch.with_extension("cubin"));
    let Ok(out) = cmd.output() else { return };
    let log =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    for (kernel, stores, loads) in crate::launch_bounds::spills(&log, bounds) {
        let declared = bounds
            .iter()
            .find(|b| b.kernel == kernel)
            .expect("spills names bounded kernels");
        println!(
            "cargo::warning=coop: `{kernel}` spills registers under its {declared} on sm_{sm} \
             ({stores} bytes stored to local memory, {loads} loaded; ptxas -v): loosen the bound \
             if the kernel runs slower than without it"
        );
    }
    let _ = std::fs::remove_file(&scratch);
    let _ = std::fs::remove_file(scratch.with_extension("cubin"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_nested_build_says_only_what_concerns_the_kernel_crate() {
        let stderr = "    Blocking waiting for file lock on package cache
warning: associated function `scratch_store` is never used
  --> /home/u/.cargo/registry/src/x/coop-gpu-0.1.0/src/backend/scratch.rs:20:8
   |
20 |     fn scratch_store(offset: u32, word: u32, site: Site);
   |        ^^^^^^^^^^^^^

warning: `coop-gpu` (lib) generated 1 warning
   Compiling kernels v0.1.0 (/home/u/app/kernels)
warning: unused variable: `x`
  --> /home/u/app/kernels/src/lib.rs:3:9
error[E0308]: mismatched types
  --> /home/u/app/kernels/src/lib.rs:9:26
   |
9  | pub fn broken() -> u32 { \"x\" }
error: could not compile `kernels` (lib) due to 1 previous error
";
        let said = compiler_messages(stderr, Path::new("/home/u/app/kernels"));
        assert!(!said.contains("scratch_store"), "{said}");
        assert!(
            !said.contains("Blocking") && !said.contains("Compiling"),
            "{said}"
        );
        assert!(said.contains("unused variable: `x`"), "{said}");
        assert!(said.contains("error[E0308]: mismatched types"), "{said}");
        assert!(said.contains("could not compile `kernels`"), "{said}");
    }

    #[test]
    fn nested_builds_go_next_to_the_profile_dirs() {
        let out = Path::new("/w/target/debug/build/app-0123/out");
        assert_eq!(ptx_target_dir(out), Path::new("/w/target/coop-ptx"));
    }
}

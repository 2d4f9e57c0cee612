//! [`BuildError`]: why building a kernel crate to PTX failed, and how a
//! build script reports it to cargo.

use crate::convergence;
use std::path::PathBuf;

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
         rustup component add rust-src --toolchain {toolchain}{}",
        tried.as_ref().map_or_else(String::new, |t| format!("\n(coop tried to add it and failed: {t})"))
    )]
    MissingRustSrc {
        /// The toolchain in use.
        toolchain: String,
        /// Why coop's own attempt to add it failed, if it tried.
        tried: Option<String>,
    },
    /// The compiler is older than coop's floor.
    #[error(
        "{found} (LLVM {llvm}) is too old to build coop kernels: they need rustc 1.92 or \
         later, built on LLVM 21 or later (older compilers emit PTX that ptxas rejects). \
         Run `rustup update stable`, or use the toolchain this project pins in \
         rust-toolchain.toml"
    )]
    OldToolchain {
        /// `rustc -vV`'s first line.
        found: String,
        /// The LLVM major version.
        llvm: String,
    },
    /// A tool could not be started.
    #[error("could not run `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The nested build failed where the host build of the kernel crate
    /// succeeds (code only the GPU build compiles); `output` is what the
    /// compiler said.
    #[error("building the kernel crate `{package}` for the GPU (sm_{sm}) failed:\n{output}")]
    Compile {
        /// The kernel crate.
        package: String,
        /// The SM target.
        sm: u32,
        /// cargo's output.
        output: String,
    },
    /// The kernel crate does not compile for the GPU nor for the host:
    /// its errors are those cargo prints for the host build.
    #[error(
        "the kernel crate `{package}` does not compile, for the GPU (sm_{sm}) nor for the host: \
         its errors are the ones cargo shows for `{package}` above"
    )]
    CompileShared {
        /// The kernel crate.
        package: String,
        /// The SM target.
        sm: u32,
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
    /// A register limit names a kernel the PTX does not define.
    #[error(
        "PtxBuilder::max_registers names `{kernel}`, which the PTX of `{package}` (sm_{sm}) \
         does not define: name a `#[kernel]` fn of the crate"
    )]
    UnknownKernel {
        /// The kernel crate.
        package: String,
        /// The SM target.
        sm: u32,
        /// The name given.
        kernel: String,
    },
    /// A register limit given both on the kernel and to the builder.
    #[error(
        "PtxBuilder::max_registers names `{kernel}`, whose `#[kernel(..)]` caps its registers \
         already (`max_registers` or `min_blocks`): keep one of the two"
    )]
    RegisterLimitTwice {
        /// The kernel.
        kernel: String,
    },
    /// A register limit outside what ptxas takes.
    #[error(
        "PtxBuilder::max_registers gives `{kernel}` {registers} registers a thread: a limit is \
         from 16 to 255"
    )]
    BadRegisterLimit {
        /// The kernel.
        kernel: String,
        /// The limit given.
        registers: u32,
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
    ///
    /// The whole message goes to the build script's standard error, which
    /// cargo prints as it is under `--- stderr`; cargo's own error line
    /// (prefixed with the package) carries only its first line.
    pub fn exit(&self) -> ! {
        let message = self.to_string();
        eprintln!("{message}");
        let first = message.lines().next().unwrap_or("the PTX build failed");
        if message.lines().nth(1).is_some() {
            println!("cargo::error={first} (the whole message is under `--- stderr` below)");
        } else {
            println!("cargo::error={first}");
        }
        std::process::exit(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_rust_src_says_what_to_install() {
        let e = BuildError::MissingRustSrc {
            toolchain: "stable-x86_64-unknown-linux-gnu".into(),
            tried: None,
        };
        assert!(e
            .to_string()
            .contains("rustup component add rust-src --toolchain stable-x86_64-unknown-linux-gnu"));
    }
}

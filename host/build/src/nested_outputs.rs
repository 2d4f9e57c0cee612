//! The files a nested PTX build leaves, kept per feature set so that cargo
//! can tell when the build is fresh.
//!
//! The nested `cargo rustc` builds a kernel crate as a `cdylib` for
//! `nvptx64-nvidia-cuda` and takes the PTX from `--emit=asm`
//! (`deps/<lib>.s`). Its linker is `true`, so `deps/<lib>.ptx`, the file
//! cargo expects from a `cdylib` on that target, was never written, and
//! cargo rebuilt the crate (fat LTO, 3 to 20 s a crate and SM) every time a
//! build script ran, for instance on the switch from `cargo clippy` to
//! `cargo test`. [`NestedOutputs::keep`] writes that file.
//!
//! A `cdylib`'s file names carry no hash, and neither does the name of its
//! fingerprint folder change with its features, so the feature sets of one
//! crate (coop-host-kernels's algorithm families) share both in the nested
//! target folder: building the `reduce` set after the `scan` set, cargo
//! finds the features changed and compiles again. Each set's files and
//! fingerprint are therefore kept under `coop-variants/<lib>.<features>/`
//! with their modification times and put back before cargo looks
//! ([`NestedOutputs::restore`]): cargo sees what it left after building that
//! set, and rebuilds the set exactly when it would have had the set been
//! alone.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A crate's outputs in the nested target folder, each beside its kept copy.
pub(crate) struct NestedOutputs {
    /// `deps/<lib>.ptx`: the output cargo checks.
    ptx: PathBuf,
    /// `deps/<lib>.s`: the PTX itself, as `--emit=asm` writes it.
    asm: PathBuf,
    /// `(in the target folder, kept)` for every file that is put back.
    files: Vec<(PathBuf, PathBuf)>,
    /// `release/.fingerprint`, where cargo keeps a folder for each unit.
    fingerprints: PathBuf,
    /// Where this set's fingerprint folders are kept.
    kept_fingerprints: PathBuf,
    /// The start of the crate's fingerprint folders' names: `<package>-`.
    prefix: String,
}

impl NestedOutputs {
    /// The outputs of package `package` built with `features` (none: its
    /// defaults) under `release` (`<target>/nvptx64-nvidia-cuda/release`),
    /// kept under `target_dir`.
    pub(crate) fn new(
        release: &Path,
        package: &str,
        target_dir: &Path,
        features: &[String],
    ) -> Self {
        let lib = package.replace('-', "_");
        let deps = release.join("deps");
        let set = if features.is_empty() {
            "default".to_string()
        } else {
            features.join("+")
        };
        let kept = target_dir
            .join("coop-variants")
            .join(format!("{lib}.{set}"));
        let ptx = deps.join(format!("{lib}.ptx"));
        let asm = deps.join(format!("{lib}.s"));
        let dep_info = format!("{lib}.d");
        let files = vec![
            (asm.clone(), kept.join(format!("{lib}.s"))),
            (release.join(&dep_info), kept.join(&dep_info)),
            // Last: its time is the one cargo compares with the sources'.
            (ptx.clone(), kept.join(format!("{lib}.ptx"))),
        ];
        NestedOutputs {
            ptx,
            asm,
            files,
            fingerprints: release.join(".fingerprint"),
            kept_fingerprints: kept.join("fingerprint"),
            prefix: format!("{package}-"),
        }
    }

    /// Puts this set's kept files back in the target folder, times and all.
    /// Without a complete kept copy, removes the output cargo checks, so
    /// that another set's files cannot pass for this one's.
    pub(crate) fn restore(&self) {
        let restored = copy_folders(&self.kept_fingerprints, &self.fingerprints, |_| true)
            && self
                .files
                .iter()
                .all(|(there, kept)| copy_with_time(kept, there).is_ok());
        if !restored {
            let _ = std::fs::remove_file(&self.ptx);
        }
    }

    /// After a successful build: writes the output cargo checks (the PTX,
    /// when cargo compiled the crate) and keeps this set's files.
    pub(crate) fn keep(&self) {
        let asm_time = modified(&self.asm);
        if asm_time.is_none() || modified(&self.ptx) < asm_time {
            // A copy of the PTX, so that the file is what its name says.
            if std::fs::copy(&self.asm, &self.ptx).is_err() {
                let _ = std::fs::remove_file(&self.ptx);
                return;
            }
        }
        let _ = std::fs::remove_dir_all(&self.kept_fingerprints);
        let ours = |name: &str| {
            name.strip_prefix(&self.prefix)
                .is_some_and(|hash| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        };
        if !copy_folders(&self.fingerprints, &self.kept_fingerprints, ours) {
            let _ = std::fs::remove_file(&self.files.last().expect("three files").1);
            return;
        }
        for (there, kept) in &self.files {
            if copy_with_time(there, kept).is_err() {
                // An incomplete copy is never put back.
                let _ = std::fs::remove_file(kept);
                return;
            }
        }
    }
}

/// The modification time of `path`, if it exists.
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Copies the folders in `from` whose names pass `wanted` into `to`, with
/// their files' times; false if any file could not be copied (or `from`
/// cannot be read).
fn copy_folders(from: &Path, to: &Path, wanted: impl Fn(&str) -> bool) -> bool {
    let Ok(folders) = std::fs::read_dir(from) else {
        return false;
    };
    for folder in folders.flatten() {
        let name = folder.file_name();
        if !wanted(&name.to_string_lossy()) {
            continue;
        }
        let Ok(files) = std::fs::read_dir(folder.path()) else {
            return false;
        };
        for file in files.flatten() {
            if copy_with_time(&file.path(), &to.join(&name).join(file.file_name())).is_err() {
                return false;
            }
        }
    }
    true
}

/// Copies `from` to `to` (making `to`'s folder) and gives `to` the
/// modification time of `from`.
fn copy_with_time(from: &Path, to: &Path) -> std::io::Result<()> {
    let time = std::fs::metadata(from)?.modified()?;
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // A hard link cargo made (it links a `cdylib` into `release/`) must
    // not be written through: replace the file instead.
    let _ = std::fs::remove_file(to);
    std::fs::copy(from, to)?;
    std::fs::File::options()
        .write(true)
        .open(to)?
        .set_modified(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(release: &Path, package: &str, features: &[&str]) -> NestedOutputs {
        let features: Vec<String> = features.iter().map(|f| f.to_string()).collect();
        NestedOutputs::new(release, package, release, &features)
    }

    /// Writes what a nested build of one set of package `k` leaves: its PTX,
    /// dep-info and fingerprint (beside another package's).
    fn build(release: &Path, ptx: &str) {
        std::fs::create_dir_all(release.join("deps")).unwrap();
        std::fs::write(release.join("deps/k.s"), ptx).unwrap();
        std::fs::write(release.join("k.d"), format!("k: src/{ptx}.rs")).unwrap();
        for unit in ["k-0123456789abcdef", "k-extra-0123456789abcdef"] {
            let folder = release.join(".fingerprint").join(unit);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join("lib-k"), format!("features of {ptx}")).unwrap();
        }
    }

    #[test]
    fn each_feature_set_gets_its_own_files_back() {
        let dir = std::env::temp_dir().join(format!("coop-nested-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (scan, reduce) = (set(&dir, "k", &["scan"]), set(&dir, "k", &["reduce"]));
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();

        // First builds: nothing kept, so the checked output goes away
        // and cargo must compile.
        build(&dir, "scan ptx");
        scan.keep();
        assert_eq!(read("deps/k.ptx"), "scan ptx");
        reduce.restore();
        assert!(
            !dir.join("deps/k.ptx").exists(),
            "another set's output left in place"
        );
        build(&dir, "reduce ptx");
        reduce.keep();

        // Back to the first set: its PTX, dep-info, fingerprint and time;
        // another package's fingerprint is left alone.
        let scan_time = modified(&dir.join("coop-variants/k.scan/k.ptx")).unwrap();
        scan.restore();
        assert_eq!(read("deps/k.s"), "scan ptx");
        assert_eq!(read("deps/k.ptx"), "scan ptx");
        assert_eq!(read("k.d"), "k: src/scan ptx.rs");
        let fingerprint = ".fingerprint/k-0123456789abcdef/lib-k";
        assert_eq!(read(fingerprint), "features of scan ptx");
        let other = ".fingerprint/k-extra-0123456789abcdef/lib-k";
        assert_eq!(read(other), "features of reduce ptx");
        assert_eq!(modified(&dir.join("deps/k.ptx")), Some(scan_time));
        reduce.restore();
        assert_eq!(read("deps/k.s"), "reduce ptx");
        assert_eq!(read(fingerprint), "features of reduce ptx");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

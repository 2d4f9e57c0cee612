//! The kernel crate's package name, read from the `[package]` section of
//! its `Cargo.toml` (a line scan: no TOML parser for one key).

use crate::BuildError;
use std::path::Path;

/// The `name` of the `[package]` section of `manifest`.
pub(crate) fn package_name(manifest: &Path) -> Result<String, BuildError> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

//! Cargo's dep-info files: the sources a nested build read, which the
//! outer build script watches for changes.

/// The files after the first `:` of a Makefile-style dep-info file.
pub(crate) fn dep_info_files(dep_info: &str) -> Vec<String> {
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
}

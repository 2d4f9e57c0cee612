//! The crates' module structure: the kernel crate's layers import in one
//! direction only (the table in `docs/architecture.md`), and no module of
//! either crate takes part in an import cycle with its siblings.
//!
//! The sources are read as text: every `crate::`, `super::` and `self::`
//! path (in `use` trees too) is resolved to the module it names, the
//! crate root's re-exports (`coop::ThreadBlock`) to the module that
//! defines them. A reference between two modules counts as an edge between
//! the two siblings below their nearest common ancestor; a module naming
//! its own ancestor or descendant is no edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// The kernel crate's top-level modules, lowest layer first. A module may
/// import from its own layer and those below.
const KERNEL_CRATE_LAYERS: &[&[&str]] = &[
    &["kernel", "dim"],
    &["backend"],
    &["groups"],
    &["memory", "op", "math"],
    &["collectives"],
    &["warp", "block"],
    &["device"],
    &["prelude"],
];

/// coop-host's top-level modules, lowest layer first.
const HOST_CRATE_LAYERS: &[&[&str]] = &[
    &["error", "ptx", "limits", "fault", "timer"],
    &["gpu", "module", "cpu", "launch", "args", "ptx_families"],
    &["device", "tensor_map"],
    &["algorithms"],
    &["multi"],
];

struct Crate {
    /// Module of each source file.
    files: Vec<(PathBuf, Module)>,
    modules: BTreeSet<Module>,
    /// Names the crate root re-exports, and the module defining each.
    reexports: BTreeMap<String, Module>,
}

fn crate_at(src: &Path) -> Crate {
    let mut files = Vec::new();
    walk(src, src, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|(_, m)| m.clone()).collect();
    let mut krate = Crate {
        files,
        modules,
        reexports: BTreeMap::new(),
    };
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let lib = strip(&lib);
    let mut reexports = BTreeMap::new();
    for tree in statements(&lib, "pub use ") {
        for path in expand(&tree) {
            let path: Vec<String> = path
                .into_iter()
                .skip_while(|s| s == "crate" || s == "self")
                .collect();
            let Some(name) = path.last() else { continue };
            let mut full = vec!["crate".to_string()];
            full.extend(path.iter().cloned());
            if let Some(m) = krate.resolve(&[], &full) {
                reexports.insert(name.clone(), m);
            }
        }
    }
    krate.reexports = reexports;
    krate
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Module)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap().with_extension("");
            let mut parts: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            out.push((path, parts));
        }
    }
}

/// The source without comments and string literals.
fn strip(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < bytes.len() {
        if source[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if source[i..].starts_with("/*") {
            let end = source[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |e| i + 2 + e + 2);
            i = end;
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if bytes[i] == b'\'' && i + 2 < bytes.len() && bytes[i + 2] == b'\'' {
            // A character literal such as '"'.
            i += 3;
        } else {
            out.push(bytes[i] as char);
            i += 1;
        }
    }
    out
}

/// The trees of every statement starting with `keyword` (up to its `;`).
fn statements(source: &str, keyword: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find(keyword) {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + keyword.len()..];
        let end = after.find(';').unwrap_or(after.len());
        if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') {
            out.push(after[..end].to_string());
        }
        rest = &after[end..];
    }
    out
}

/// The paths of a `use` tree: `a::{b, c::{d, e}}` is `a::b`, `a::c::d`,
/// `a::c::e`.
fn expand(tree: &str) -> Vec<Vec<String>> {
    fn rec(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if tree.is_empty() {
            return;
        }
        if let Some(open) = tree.find('{') {
            let head: Vec<String> = tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            let mut path = prefix.to_vec();
            path.extend(head);
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let (mut depth, mut start) = (0, 0);
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        rec(&path, &inner[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            rec(&path, &inner[start..], out);
        } else {
            let tree = tree.split(" as ").next().unwrap_or(tree);
            let mut path = prefix.to_vec();
            path.extend(
                tree.split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
            out.push(path);
        }
    }
    let mut out = Vec::new();
    rec(&[], tree, &mut out);
    out
}

impl Crate {
    /// The module a path names, seen from module `from`.
    fn resolve(&self, from: &[String], path: &[String]) -> Option<Module> {
        let (mut base, mut rest): (Module, &[String]) = match path.first()?.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "super" | "self" => (from.to_vec(), path),
            _ => return None,
        };
        while let Some(first) = rest.first() {
            match first.as_str() {
                "super" => {
                    base.pop();
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
        if base.is_empty() {
            if let Some(first) = rest.first() {
                if !self.modules.contains(&vec![first.clone()]) {
                    if let Some(m) = self.reexports.get(first) {
                        return Some(m.clone());
                    }
                }
            }
        }
        let mut full = base;
        full.extend(rest.iter().cloned());
        (0..=full.len())
            .rev()
            .map(|n| full[..n].to_vec())
            .find(|m| self.modules.contains(m))
    }

    /// Every edge between siblings: (parent, from child, to child, file).
    fn edges(&self) -> BTreeSet<(Module, String, String, String)> {
        let mut edges = BTreeSet::new();
        for (path, from) in &self.files {
            let source = strip(&std::fs::read_to_string(path).unwrap());
            let mut paths: Vec<Vec<String>> = Vec::new();
            for tree in statements(&source, "use ") {
                let tree = tree.trim();
                if ["crate", "super", "self"]
                    .iter()
                    .any(|k| tree.starts_with(k) || tree.starts_with(&format!("{{{k}")))
                {
                    paths.extend(expand(tree));
                }
            }
            for keyword in ["crate::", "super::", "self::"] {
                let mut rest = source.as_str();
                while let Some(at) = rest.find(keyword) {
                    let before = rest[..at].chars().next_back();
                    let tail = &rest[at..];
                    let end = tail
                        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                        .unwrap_or(tail.len());
                    if before.is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != ':') {
                        paths.push(
                            tail[..end]
                                .split("::")
                                .filter(|s| !s.is_empty())
                                .map(String::from)
                                .collect(),
                        );
                    }
                    rest = &tail[end.max(1)..];
                }
            }
            for p in paths {
                let Some(to) = self.resolve(from, &p) else {
                    continue;
                };
                let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
                if common == from.len() || common == to.len() {
                    continue; // an ancestor or a descendant
                }
                let file = path.file_name().unwrap().to_string_lossy().into_owned();
                edges.insert((
                    from[..common].to_vec(),
                    from[common].clone(),
                    to[common].clone(),
                    file,
                ));
            }
        }
        edges
    }
}

/// The sibling cycles among `edges`, each as its modules.
fn cycles(edges: &BTreeSet<(Module, String, String, String)>) -> Vec<String> {
    let mut graph: BTreeMap<(Module, String), BTreeSet<String>> = BTreeMap::new();
    for (parent, a, b, _) in edges {
        graph
            .entry((parent.clone(), a.clone()))
            .or_default()
            .insert(b.clone());
    }
    let mut found = Vec::new();
    for (parent, start) in graph.keys() {
        // Is `start` reachable from itself?
        let mut seen = BTreeSet::new();
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, trail)) = stack.pop() {
            for next in graph.get(&(parent.clone(), at)).into_iter().flatten() {
                if next == start {
                    let mut cycle = trail.clone();
                    cycle.push(next.clone());
                    found.push(format!(
                        "in `{}`: {}",
                        parent.join("::"),
                        cycle.join(" -> ")
                    ));
                } else if seen.insert(next.clone()) {
                    let mut t = trail.clone();
                    t.push(next.clone());
                    stack.push((next.clone(), t));
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

fn layer_of(layers: &[&[&str]], name: &str) -> Option<usize> {
    layers.iter().position(|l| l.contains(&name))
}

/// Edges from a top-level module to one of a higher layer, and top-level
/// modules the table does not place.
fn layer_breaks(
    edges: &BTreeSet<(Module, String, String, String)>,
    layers: &[&[&str]],
    modules: &BTreeSet<Module>,
) -> Vec<String> {
    let mut breaks = Vec::new();
    for m in modules.iter().filter(|m| m.len() == 1) {
        if layer_of(layers, &m[0]).is_none() {
            breaks.push(format!("top-level module `{}` is in no layer", m[0]));
        }
    }
    for (parent, a, b, file) in edges {
        if !parent.is_empty() {
            continue;
        }
        if let (Some(la), Some(lb)) = (layer_of(layers, a), layer_of(layers, b)) {
            if lb > la {
                breaks.push(format!("`{a}` ({file}) imports `{b}`, a higher layer"));
            }
        }
    }
    breaks
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_kernel_crate_imports_down_its_layers_without_cycles() {
    let krate = crate_at(&root().join("gpu/src"));
    let edges = krate.edges();
    assert!(edges.len() > 40, "the reader found too few imports");
    let cycles = cycles(&edges);
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
    let breaks = layer_breaks(&edges, KERNEL_CRATE_LAYERS, &krate.modules);
    assert!(breaks.is_empty(), "{}", breaks.join("\n"));
}

#[test]
fn coop_host_imports_down_its_layers_without_cycles() {
    let krate = crate_at(&root().join("host/src"));
    let edges = krate.edges();
    assert!(edges.len() > 20, "the reader found too few imports");
    let cycles = cycles(&edges);
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
    let breaks = layer_breaks(&edges, HOST_CRATE_LAYERS, &krate.modules);
    assert!(breaks.is_empty(), "{}", breaks.join("\n"));
}

#[test]
fn the_reader_sees_a_cycle_and_a_layer_break() {
    // Two siblings naming each other, one of them through a `use` tree and
    // the crate root's re-export.
    let dir = std::env::temp_dir().join(format!("coop-layers-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("groups")).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "mod groups; mod device; mod kernel;\npub use groups::tile::Tile;\n",
    )
    .unwrap();
    std::fs::write(dir.join("groups/mod.rs"), "pub mod tile; pub mod block;").unwrap();
    std::fs::write(
        dir.join("groups/tile.rs"),
        "use super::{block::Block};\n// crate::device is only a comment\npub struct Tile;",
    )
    .unwrap();
    std::fs::write(
        dir.join("groups/block.rs"),
        "use crate::{Tile};\nfn f() -> crate::device::X { todo() }\npub struct Block;",
    )
    .unwrap();
    std::fs::write(dir.join("device.rs"), "pub struct X;").unwrap();
    std::fs::write(dir.join("kernel.rs"), "").unwrap();
    let krate = crate_at(&dir);
    let edges = krate.edges();
    let cycles = cycles(&edges);
    assert_eq!(
        cycles,
        [
            "in `groups`: block -> tile -> block",
            "in `groups`: tile -> block -> tile"
        ]
    );
    let breaks = layer_breaks(&edges, KERNEL_CRATE_LAYERS, &krate.modules);
    assert_eq!(
        breaks,
        ["`groups` (block.rs) imports `device`, a higher layer"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

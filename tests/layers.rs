//! The server's layers (docs/architecture.md): each module imports only the layers below it.
//! A `crate::<module>` path in a file of a layer that may not use that module fails here.

use std::path::Path;

/// Modules a layer may name with `crate::...` (besides itself).
const RULES: &[(&str, &[&str])] = &[
    ("domain", &[]),
    // The roots every outbound TLS client trusts (the site's CA, the system store).
    ("trust", &[]),
    // The server's "now" (the system's clock or a pinned one): below every layer that
    // reads the time; the domain's rules take the time as a parameter instead.
    ("clock", &[]),
    ("store", &["domain", "config", "trust", "clock"]),
    ("auth", &["domain", "store", "config", "clock"]),
    (
        "sso",
        &["domain", "store", "auth", "config", "trust", "clock"],
    ),
    (
        "notify",
        &["domain", "store", "jira", "config", "trust", "clock"],
    ),
    ("jira", &["domain", "config", "trust", "clock"]),
    (
        "api",
        &[
            "domain",
            "store",
            "auth",
            "sso",
            "notify",
            "jira",
            "config",
            "telemetry",
            "clock",
        ],
    ),
];

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module names a file's code reaches with `crate::name` (comments, where doc links name
/// the layers above, are not code).
fn crate_paths(text: &str) -> Vec<String> {
    let code: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    let code = code.join("\n");
    let mut found = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.push(name);
        }
    }
    found
}

#[test]
fn each_layer_imports_only_the_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for (layer, allowed) in RULES {
        let mut list = Vec::new();
        // A layer is a folder (`src/store/`) or one file (`src/trust.rs`).
        let dir = src.join(layer);
        if dir.is_dir() {
            files(&dir, &mut list);
        } else {
            list.push(src.join(format!("{layer}.rs")));
        }
        assert!(!list.is_empty(), "no files in src/{layer}");
        for file in list {
            let text = std::fs::read_to_string(&file).unwrap();
            for name in crate_paths(&text) {
                if name != *layer && !allowed.contains(&name.as_str()) {
                    wrong.push(format!("{}: crate::{name}", file.display()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports across layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_sees_a_wrong_import() {
    let text = "use crate::api::envelope;\n    // see crate::server\nlet x = crate::proxy::p;";
    assert_eq!(crate_paths(text), ["api", "proxy"]);
}

/// The code lines of a file (comments left out), for the checks by name below.
fn code_of(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let code: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    code.join("\n")
}

/// Whether `code` names the path segment `name::` (not as the end of a longer name:
/// `sqlite::` is not in `rusqlite::`).
fn names(code: &str, name: &str) -> bool {
    code.match_indices(&format!("{name}::")).any(|(i, _)| {
        !code[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[test]
fn each_store_backend_keeps_to_its_folder() {
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store");
    let mut wrong = Vec::new();
    // A backend's folder never names the other's: what both use is in `store/x.rs`.
    for (folder, other) in [("sqlite", "pg"), ("pg", "sqlite")] {
        let mut list = Vec::new();
        files(&store.join(folder), &mut list);
        assert!(!list.is_empty(), "no files in src/store/{folder}");
        for file in list {
            if names(&code_of(&file), other) {
                wrong.push(format!("{}: names {other}::", file.display()));
            }
        }
    }
    // The backend-neutral files name no driver; only the handle and its connections
    // (`mod.rs`), the one SQL layer (`sql.rs`) and the copy from one backend to the other
    // (`copy.rs`) work with both.
    for entry in std::fs::read_dir(&store).unwrap() {
        let file = entry.unwrap().path();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".rs") || ["mod.rs", "sql.rs", "copy.rs"].contains(&name.as_str()) {
            continue;
        }
        let code = code_of(&file);
        for driver in ["rusqlite", "tokio_postgres", "deadpool_postgres"] {
            if names(&code, driver) {
                wrong.push(format!("{}: names {driver}::", file.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "store files across backends:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_store_check_tells_a_backend_from_a_driver() {
    assert!(names("use crate::store::sqlite::backup;", "sqlite"));
    assert!(names("super::super::pg::Postgres", "pg"));
    assert!(!names("use rusqlite::Connection;", "sqlite"));
    assert!(!names("let x = tokio_postgres::Row;", "pg"));
    assert!(names("use rusqlite::Connection;", "rusqlite"));
}

/// The store's modules (`alerts`, `pg::runs`; `""` the store's own `mod.rs`) and the ones
/// each file's code (tests left out) names, by `super::x`, `crate::store::x` or, inside a
/// backend's folder, `super::x` of its siblings.
fn store_imports() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store");
    let mut list = Vec::new();
    files(&store, &mut list);
    let module = |file: &Path| {
        let rel = file.strip_prefix(&store).unwrap().with_extension("");
        let rel = rel.to_string_lossy().replace('/', "::");
        rel.trim_end_matches("mod")
            .trim_end_matches("::")
            .to_string()
    };
    let modules: std::collections::BTreeSet<String> = list.iter().map(|f| module(f)).collect();
    let mut out = std::collections::BTreeMap::new();
    for file in &list {
        let me = module(file);
        let code = code_of(file);
        let code = code.split("#[cfg(test)]").next().unwrap_or_default();
        // `super::` of a store file is the store; of a backend's file, its folder.
        let parent = match me.rsplit_once("::") {
            Some((folder, _)) if !file.ends_with("mod.rs") => folder.to_string(),
            _ => String::new(),
        };
        let mut deps = std::collections::BTreeSet::new();
        for (prefix, base) in [("crate::store::", String::new()), ("super::", parent)] {
            for (i, _) in code.match_indices(prefix) {
                if prefix == "super::" && (me.is_empty() || code[..i].ends_with("::")) {
                    continue;
                }
                let rest = &code[i + prefix.len()..];
                // `super::{a, b::c}` names each of a group.
                let paths: Vec<String> = match rest.strip_prefix('{') {
                    Some(group) => group[..group.find('}').unwrap_or(0)]
                        .split(',')
                        .map(|p| p.trim().to_string())
                        .collect(),
                    None => vec![rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                        .collect()],
                };
                for path in paths {
                    let dep = module_of(&modules, &base, &path);
                    if dep != me {
                        deps.insert(dep);
                    }
                }
            }
        }
        out.insert(me, deps);
    }
    out
}

/// The store module a path names from folder `base` (`alerts::AlertOptions` from the store:
/// `alerts`; `runs::INGEST_LOCK` from `pg`: `pg::runs`), else the folder itself (an item
/// of its `mod.rs`).
fn module_of(modules: &std::collections::BTreeSet<String>, base: &str, path: &str) -> String {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}::{b}")
        }
    };
    let mut parts = path.split("::").filter(|p| !p.is_empty());
    let one = join(base, parts.next().unwrap_or_default());
    match parts.next().map(|second| join(&one, second)) {
        Some(two) if modules.contains(&two) => two,
        _ if modules.contains(&one) => one,
        _ => base.to_string(),
    }
}

/// A circle of imports among `graph`'s modules, if there is one.
fn circle(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Option<Vec<String>> {
    // Depth first; a module met again on the path closes a circle.
    fn visit(
        m: &str,
        graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut c = path[at..].to_vec();
            c.push(m.to_string());
            return Some(c);
        }
        if !done.insert(m.to_string()) {
            return None;
        }
        path.push(m.to_string());
        for d in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(d, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = std::collections::BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

/// The store's files import one another without a circle (the store's `mod.rs`, the handle
/// that declares every module, left out as an importer), so each can be read, and moved,
/// from the ground up: `sql.rs`, the ground, names no backend.
#[test]
fn the_store_imports_no_circle() {
    let mut graph = store_imports();
    graph.remove("");
    for deps in graph.values_mut() {
        deps.remove("");
    }
    assert!(graph.contains_key("sql") && graph.contains_key("pg::alerts"));
    assert_eq!(circle(&graph), None, "an import circle in src/store");
    for backend in ["pg", "sqlite"] {
        assert!(
            !graph["sql"].iter().any(|d| d.starts_with(backend)),
            "sql.rs names {backend}"
        );
    }
}

#[test]
fn the_circle_check_finds_one() {
    let graph = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
        .into_iter()
        .map(|(m, d)| (m.to_string(), [d.to_string()].into()))
        .collect();
    assert_eq!(
        circle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

//! Every repository path the documentation names exists: the links of README.md,
//! packaging/README.md and docs/*.md, and the paths they write in backticks
//! (`src/store/outbox.rs`, `ui/e2e/lib.mjs`, `scripts/deb-test.sh`). A file moved or removed
//! leaves a doc pointing nowhere; this names the doc and the path.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn docs() -> Vec<PathBuf> {
    let root = root();
    let mut docs = vec![root.join("README.md"), root.join("packaging/README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// The text outside fenced code blocks, by paragraph (a code span never crosses a blank line).
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut current = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.trim().is_empty() {
            out.push(std::mem::take(&mut current));
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    out.push(current);
    out
}

/// A paragraph's code spans, and its text with them blanked out.
fn spans(paragraph: &str) -> (Vec<String>, String) {
    let mut spans = Vec::new();
    let mut rest = String::new();
    let mut parts = paragraph.split('`');
    if let Some(first) = parts.next() {
        rest.push_str(first);
    }
    let parts: Vec<&str> = parts.collect();
    // An odd backtick left at the end is text, not the start of a span.
    let pairs = parts.len() / 2 * 2;
    for (i, part) in parts.iter().enumerate() {
        if i < pairs && i % 2 == 0 {
            spans.push(part.to_string());
            rest.push(' ');
        } else if i < pairs {
            rest.push_str(part);
        } else {
            rest.push('`');
            rest.push_str(part);
        }
    }
    (spans, rest)
}

/// Link targets `](target)` that are repository files: no scheme, no placeholder.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split('#').next().unwrap_or("").trim();
        let scheme = target
            .split_once(':')
            .is_some_and(|(s, _)| s.chars().all(|c| c.is_ascii_lowercase()));
        if !target.is_empty() && !scheme && !target.contains(['<', ' ']) {
            out.push(target.to_string());
        }
        rest = &rest[end..];
    }
    out
}

const FILE_EXTENSIONS: &[&str] = &[
    "rs", "ts", "tsx", "mjs", "js", "sql", "sh", "py", "toml", "json", "po", "html", "md",
    "sha256", "css", "yml", "yaml", "txt", "lock",
];

/// A code span that names a repository path: relative, with a `/`, and either a file
/// extension or a first part that is a top-level entry of the repository (`packaging/`).
/// Absolute paths are the installed system's (`/etc/cxwatch/config.toml`), `<...>` and `x`
/// (`store/x.rs`) stand for any name, and URLs, MIME types and commands are not paths.
fn repo_path(span: &str, top: &[String]) -> Option<String> {
    let s = span.trim().trim_end_matches(['.', ',', ':', ';']);
    let s = match s.rsplit_once(':') {
        Some((p, line)) if line.chars().all(|c| c.is_ascii_digit() || c == '-') => p,
        _ => s,
    };
    if s.contains([' ', '<', '…', '\n']) || s.contains("...") || s.contains("://") {
        return None;
    }
    if !s.contains('/') || s.starts_with(['/', '~', '.', '$']) {
        return None;
    }
    let has_ext = s
        .rsplit_once('.')
        .is_some_and(|(_, e)| FILE_EXTENSIONS.contains(&e));
    let first = s.split('/').next().unwrap_or("");
    if !has_ext && !top.iter().any(|t| t == first) {
        return None;
    }
    let placeholder = s.split('/').any(|seg| seg.split('.').next() == Some("x"));
    (!placeholder).then(|| s.to_string())
}

/// `{a,b}` alternatives expanded.
fn braces(p: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (p.find('{'), p.find('}')) else {
        return vec![p.to_string()];
    };
    if close < open {
        return vec![p.to_string()];
    }
    p[open + 1..close]
        .split(',')
        .flat_map(|alt| braces(&format!("{}{}{}", &p[..open], alt, &p[close + 1..])))
        .collect()
}

/// Whether `name` matches `pattern`, where `*` is any run of characters.
fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.starts_with(head) && (head.len()..=name.len()).any(|i| wildcard(tail, &name[i..]))
        }
    }
}

/// Whether `pattern` (`*` within a part, `{a,b}`) names something under `base`.
fn exists(base: &Path, pattern: &str) -> bool {
    braces(pattern).iter().any(|p| {
        let mut dirs = vec![base.to_path_buf()];
        for seg in p.split('/').filter(|s| !s.is_empty()) {
            let mut next = Vec::new();
            for d in &dirs {
                if seg == ".." {
                    next.push(d.join(".."));
                } else if seg.contains('*') {
                    if let Ok(entries) = std::fs::read_dir(d) {
                        for e in entries.flatten() {
                            if wildcard(seg, &e.file_name().to_string_lossy()) {
                                next.push(e.path());
                            }
                        }
                    }
                } else if d.join(seg).exists() {
                    next.push(d.join(seg));
                }
            }
            dirs = next;
        }
        !dirs.is_empty()
    })
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = root();
    let top: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "target" && n != ".git")
        .collect();
    // A span is read from the repository's root, from the doc's folder, or, in a section
    // about a layer, from the source folders (`store/outbox.rs` in src/, `lib/dates.ts` in
    // ui/src/, `reports/chart.rs` in src/notify/).
    let mut bases = vec![
        root.clone(),
        root.join("src"),
        root.join("ui/src"),
        root.join("ui"),
    ];
    for dir in ["src", "ui/src"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
            if e.path().is_dir() {
                bases.push(e.path());
            }
        }
    }
    let mut checked = 0;
    let mut missing = Vec::new();
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(&root).unwrap().display().to_string();
        let dir = doc.parent().unwrap();
        for paragraph in paragraphs(&text) {
            let (spans, rest) = spans(&paragraph);
            for target in links(&rest) {
                checked += 1;
                if !exists(dir, &target) {
                    missing.push(format!("{name}: link ({target})"));
                }
            }
            for span in spans {
                let Some(path) = repo_path(&span, &top) else {
                    continue;
                };
                checked += 1;
                let found = exists(dir, &path) || bases.iter().any(|b| exists(b, &path));
                if !found {
                    missing.push(format!("{name}: `{path}`"));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} paths found in the docs: the reader is broken"
    );
    assert!(
        missing.is_empty(),
        "the docs name paths that do not exist ({} of {checked}):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn the_reader_finds_what_it_should() {
    let top = vec!["scripts".to_string(), "docs".to_string()];
    let (spans, rest) = spans("see `src/a.rs` and [b](docs/b.md), `text/csv`, a ` alone");
    assert_eq!(spans, vec!["src/a.rs", "text/csv"]);
    assert_eq!(links(&rest), vec!["docs/b.md"]);
    assert_eq!(repo_path("src/a.rs:12", &top).as_deref(), Some("src/a.rs"));
    assert_eq!(
        repo_path("scripts/test.sh", &top).as_deref(),
        Some("scripts/test.sh")
    );
    assert_eq!(repo_path("text/csv", &top), None);
    assert_eq!(repo_path("/etc/cxwatch/config.toml", &top), None);
    assert_eq!(repo_path("store/x.rs", &top), None);
    assert_eq!(
        links("[a](https://x.example/) [b](#anchor) [c](<link>)"),
        Vec::<String>::new()
    );
    assert!(wildcard("api*.md", "api-data.md"));
    assert!(!wildcard("api*.md", "alerting.md"));
    assert_eq!(braces("ui/{en,fr}/m.po"), vec!["ui/en/m.po", "ui/fr/m.po"]);
}

//! Builds the UI with npm + Vite into OUT_DIR, so rust-embed can bake it into the binary.
//!
//! `CXWATCH_UI_DIST=<dir>` uses a UI built beforehand instead. The npm packages are
//! installed when `node_modules` is missing or older than `package-lock.json`.
//!
//! Also writes the dependency list that src/main.rs links into the binary's `.dep-v0`
//! section, in cargo-auditable's format (see `dependency_list`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=CXWATCH_UI_DIST");
    let dist = match std::env::var_os("CXWATCH_UI_DIST") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if !dir.join("index.html").is_file() {
                fail(&format!(
                    "CXWATCH_UI_DIST={} has no index.html: build the UI there first (cd ui && npm run build -- --outDir {0})",
                    dir.display()
                ));
            }
            println!("cargo:rerun-if-changed={}", dir.display());
            dir
        }
        None => build_ui(),
    };
    write_compressed_siblings(&dist);
    report_size(&dist);
    println!("cargo:rustc-env=CXWATCH_UI_DIR={}", dist.display());
    dependency_list();
}

/// The crates compiled into the binary, as `cargo auditable build` embeds them: JSON
/// (`{"packages":[{"name","version","source","kind","dependencies","root"}]}`, format 0: from
/// `cargo metadata`), zlib-compressed, in the `.dep-v0` section. Scanners read it from the
/// installed binary (`cargo audit bin`, `rust-audit-info`, trivy, syft, grype), whichever
/// profile built it: the package test packages the tests' debug binary. Runtime and build
/// dependencies of this target, without dev-dependencies; sorted by name, version and id,
/// so the same Cargo.lock gives the same bytes.
fn dependency_list() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=Cargo.toml");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = std::env::var("TARGET").unwrap();
    let out = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .args(["--filter-platform", &target])
        .arg("--manifest-path")
        .arg(&manifest)
        .output();
    let metadata: serde_json::Value = match out {
        Ok(o) if o.status.success() => serde_json::from_slice(&o.stdout).unwrap(),
        Ok(o) => fail(&format!(
            "cargo metadata (for the binary's dependency list) failed: {}",
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(e) => fail(&format!("cargo metadata could not start: {e}")),
    };
    let json = auditable_json(&metadata);
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(json.as_bytes()).unwrap();
    let path = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("dep-v0.zlib");
    std::fs::write(&path, enc.finish().unwrap()).unwrap();
}

/// How a package is reached from the root: runtime beats build; dev is left out.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Build,
    Runtime,
}

fn auditable_json(metadata: &serde_json::Value) -> String {
    use std::collections::{BTreeMap, HashMap};
    let resolve = &metadata["resolve"];
    let root = resolve["root"]
        .as_str()
        .expect("cargo metadata names the root package");
    let nodes: HashMap<&str, &serde_json::Value> = resolve["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    // Walk from the root; a package reached both ways keeps the stronger kind, and a
    // package under a build dependency is a build dependency.
    let mut kinds: HashMap<&str, Kind> = HashMap::from([(root, Kind::Runtime)]);
    let mut queue = vec![root];
    while let Some(id) = queue.pop() {
        let parent = kinds[id];
        for dep in nodes[id]["deps"].as_array().unwrap() {
            let child = dep["pkg"].as_str().unwrap();
            let kind = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|k| match k["kind"].as_str() {
                    None => Some(Kind::Runtime),
                    Some("build") => Some(Kind::Build),
                    _ => None, // dev
                })
                .max();
            let Some(kind) = kind.map(|k| k.min(parent)) else {
                continue;
            };
            if kinds.get(child).is_none_or(|&seen| kind > seen) {
                kinds.insert(child, kind);
                queue.push(child);
            }
        }
    }
    let mut packages: Vec<&serde_json::Value> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| kinds.contains_key(p["id"].as_str().unwrap()))
        .collect();
    let key = |p: &serde_json::Value| {
        (
            p["name"].as_str().unwrap().to_owned(),
            p["version"].as_str().unwrap().to_owned(),
            p["id"].as_str().unwrap().to_owned(),
        )
    };
    packages.sort_by_key(|p| key(p));
    let index: BTreeMap<&str, usize> = packages
        .iter()
        .enumerate()
        .map(|(i, p)| (p["id"].as_str().unwrap(), i))
        .collect();
    let list: Vec<serde_json::Value> = packages
        .iter()
        .map(|p| {
            let id = p["id"].as_str().unwrap();
            let source = match p["source"].as_str() {
                None => "local",
                Some(s)
                    if s.starts_with("registry+https://github.com/rust-lang/crates.io-index")
                        || s == "sparse+https://index.crates.io/" =>
                {
                    "crates.io"
                }
                Some(s) if s.starts_with("git+") => "git",
                Some(_) => "registry",
            };
            // The edges the walk followed: not those of dev-dependencies.
            let mut deps: Vec<usize> = nodes[id]["deps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| {
                    d["dep_kinds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["kind"].as_str() != Some("dev"))
                })
                .filter_map(|d| index.get(d["pkg"].as_str().unwrap()).copied())
                .collect();
            deps.sort_unstable();
            deps.dedup();
            let mut entry = serde_json::json!({
                "name": p["name"],
                "version": p["version"],
                "source": source,
            });
            if kinds[id] == Kind::Build {
                entry["kind"] = "build".into();
            }
            if !deps.is_empty() {
                entry["dependencies"] = deps.into();
            }
            if id == root {
                entry["root"] = true.into();
            }
            entry
        })
        .collect();
    serde_json::json!({ "packages": list }).to_string()
}

fn build_ui() -> PathBuf {
    let ui = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("ui");
    for p in [
        "src",
        "index.html",
        "public",
        "package.json",
        "package-lock.json",
        "vite.config.ts",
        "tsconfig.json",
        "lingui.config.ts",
    ] {
        println!("cargo:rerun-if-changed=ui/{p}");
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("ui-dist");

    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    check_node(npm);
    let lock = ui.join("package-lock.json");
    let marker = ui.join("node_modules/.package-lock.json");
    if is_stale(&marker, &lock) {
        run(Command::new(npm)
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&ui));
    }
    run(Command::new(npm)
        .args(["run", "build", "--", "--outDir"])
        .arg(&out)
        .arg("--emptyOutDir")
        .current_dir(&ui));
    out
}

/// What Vite needs (its `engines`: ^20.19.0 || >=22.12.0); ui/package.json says the same.
const NODE_NEEDED: &str = "Node.js 20.19+ (or 22.12+) with npm 10+";

/// Fails early, and readably, when Node.js or npm is missing or too old for the UI build.
fn check_node(npm: &str) {
    let version = |cmd: &str| -> Option<Vec<u32>> {
        let out = Command::new(cmd).arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let parts = text.trim().trim_start_matches('v').split('.');
        parts.map(|p| p.parse().ok()).collect()
    };
    let hint = "or set CXWATCH_UI_DIST to a UI built beforehand (see README.md)";
    let Some(node) = version("node") else {
        fail(&format!("node not found: install {NODE_NEEDED}, {hint}"));
    };
    if !node_supported(&node) {
        fail(&format!(
            "Node.js {} is too old for the UI build: install {NODE_NEEDED}, {hint}",
            join(&node)
        ));
    }
    match version(npm) {
        None => fail(&format!("npm not found: install {NODE_NEEDED}, {hint}")),
        Some(v) if v.first().copied().unwrap_or(0) < 10 => fail(&format!(
            "npm {} is too old for the UI build: install {NODE_NEEDED}, {hint}",
            join(&v)
        )),
        Some(_) => {}
    }
}

fn node_supported(v: &[u32]) -> bool {
    let (major, minor) = (
        v.first().copied().unwrap_or(0),
        v.get(1).copied().unwrap_or(0),
    );
    (major == 20 && minor >= 19) || (major == 22 && minor >= 12) || major >= 23
}

fn join(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(".")
}

fn is_stale(marker: &Path, source: &Path) -> bool {
    let time = |p: &Path| p.metadata().and_then(|m| m.modified()).ok();
    match (time(marker), time(source)) {
        (Some(m), Some(s)) => m < s,
        _ => true,
    }
}

fn run(cmd: &mut Command) {
    let status = cmd.status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!(
            "UI build step {cmd:?} failed with {s}; run it in ui/ to see why"
        )),
        Err(e) => fail(&format!("UI build step {cmd:?} could not start: {e}")),
    }
}

/// Hashed assets get a `.gz` sibling so the server can send them compressed without work.
/// `x.js.gz` and `x.js.br` beside every text file, compressed at their best once here, so the
/// server sends each client the smallest it takes without compressing at run time.
fn write_compressed_siblings(dist: &Path) {
    let Ok(entries) = walk(dist) else { return };
    for path in entries {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !matches!(ext, "js" | "css" | "html" | "svg" | "json" | "map" | "txt") {
            continue;
        }
        let gz = path.with_extension(format!("{ext}.gz"));
        if is_stale(&gz, &path) {
            let data = std::fs::read(&path).unwrap();
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            enc.write_all(&data).unwrap();
            std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        }
        let br = path.with_extension(format!("{ext}.br"));
        if is_stale(&br, &path) {
            let data = std::fs::read(&path).unwrap();
            let mut out = Vec::new();
            let params = brotli::enc::BrotliEncoderParams {
                quality: 11,
                lgwin: 22,
                ..Default::default()
            };
            brotli::BrotliCompress(&mut data.as_slice(), &mut out, &params).unwrap();
            std::fs::write(&br, out).unwrap();
        }
    }
}

/// Prints the figure the bundle budget is checked against: all JS and CSS, gzipped.
fn report_size(dist: &Path) {
    let Ok(entries) = walk(dist) else { return };
    let total: u64 = entries
        .iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".js.gz") || name.ends_with(".css.gz")
        })
        .filter_map(|p| p.metadata().ok().map(|m| m.len()))
        .sum();
    println!(
        "cargo:warning=UI bundle: {:.1} kB of JavaScript and CSS, gzipped",
        total as f64 / 1000.0
    );
}

fn walk(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(walk(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    println!("cargo:warning={msg}");
    std::process::exit(1);
}

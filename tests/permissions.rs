//! The data directory and the database files are private whatever the umask.

use crate::common;

use std::os::unix::fs::PermissionsExt;

#[test]
fn data_directory_and_database_are_private_with_umask_000() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let script = format!(
        "umask 000; exec {:?} --data-dir {:?} apikey add --name perms",
        common::BIN,
        dir
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .env("CXWATCH_SITE__TIMEZONE", "UTC")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700, "data directory");
    for name in ["cxwatch.db", "cxwatch.db-wal", "cxwatch.db-shm"] {
        let file = dir.join(name);
        if file.exists() {
            assert_eq!(mode(&file), 0o600, "{name}");
        } else {
            assert_ne!(name, "cxwatch.db", "no database");
        }
    }
}

#[test]
fn user_help_lists_login_link() {
    let (code, out, err) = common::run_cli(&["user", "--help"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("login-link"), "{out}");
}

#[test]
fn busy_port_fails_fast_and_prints_no_passwords() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let t = std::time::Instant::now();
    let (code, out, err) = common::run_cli_env(
        &["serve", "--demo", "--listen", &listen],
        &[("CXWATCH_LOG", "warn")],
        std::time::Duration::from_secs(60),
    );
    assert_eq!(code, 1, "{out} {err}");
    assert!(err.contains("cannot listen"), "{err}");
    assert!(!out.to_lowercase().contains("password"), "{out}");
    assert!(
        t.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        t.elapsed()
    );
}

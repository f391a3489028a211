//! The data directory and the database files are private whatever the umask (issue 17
//! item 11).

mod common;

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

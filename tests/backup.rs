//! Backup and restore: a backup taken while ingest writes is whole and consistent, a
//! restore gives back every row of it; against the real binary, `backup` works beside a
//! running server and `restore` is refused until it stops.

use crate::common;
use crate::harness_trs;

use common::{run_cli, start, Opts};
use cxwatch::store::sqlite::backup::{self, table_counts};
use harness_trs::{app, db, ingest_ok, run};

fn batch(b: usize) -> Vec<serde_json::Value> {
    (0..25)
        .map(|i| {
            let n = b * 25 + i;
            let status = ["pass", "warn", "fail"][n % 3];
            let time = format!(
                "2026-07-{:02}T{:02}:{:02}:00Z",
                1 + n / 1440 % 28,
                n / 60 % 24,
                n % 60
            );
            run(&format!("bk-{n}"), 1 + (n % 7) as i64, &time, status)
        })
        .collect()
}

/// Runs counted in the rollups: a backup whose rollups disagree with its runs is torn.
fn rolled_up(conn: &rusqlite::Connection) -> i64 {
    conn.query_row(
        "SELECT coalesce(sum(pass + warn + fail + stopped), 0) FROM rollup_hour",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn backup_during_ingest_then_restore_loses_nothing() {
    // SQLite's file: on PostgreSQL a site's backups are pg_dump's (the CLI says so: below).
    if common::on_postgres() {
        return;
    }
    let (app, dir) = app();
    let key = app.api_key("engine").await;
    let out = tempfile::tempdir().unwrap();
    let during = out.path().join("during.db");

    // Ingest 40 batches; the backup starts after the 10th, while the rest go on.
    let started = std::sync::Arc::new(tokio::sync::Notify::new());
    let backup_task = {
        let (dir, during, started) = (dir.clone(), during.clone(), started.clone());
        tokio::spawn(async move {
            started.notified().await;
            tokio::task::spawn_blocking(move || backup::backup(&dir, &during))
                .await
                .unwrap()
        })
    };
    for b in 0..40 {
        ingest_ok(&app, &key, &batch(b)).await;
        if b == 10 {
            started.notify_one();
        }
    }
    let report = backup_task.await.unwrap().expect("backup during ingest");
    assert!(report.size > 0);
    let runs_then = report.checked.rows("test_runs").unwrap();
    assert!(runs_then >= 11 * 25, "the backup has the batches before it");
    assert!(runs_then <= 40 * 25);
    assert_eq!(runs_then % 25, 0, "a batch is all in or all out");
    let copy = rusqlite::Connection::open(&during).unwrap();
    assert_eq!(rolled_up(&copy), runs_then, "rollups match the runs");
    drop(copy);

    // Ingest stopped: a backup now has every row of every table the live database has.
    let after = out.path().join("after.db");
    let report = backup::backup(&dir, &after).unwrap();
    let live = table_counts(&db(&dir)).unwrap();
    assert_eq!(report.checked.counts, live);
    assert_eq!(report.checked.rows("test_runs"), Some(1000));

    // Restore both into a data directory: every table's count is the backup's; the
    // database in place before is kept beside it, whole.
    let target = tempfile::tempdir().unwrap();
    let first = backup::restore(target.path(), &during).unwrap();
    assert!(first.previous.is_none());
    let restored = db(target.path());
    assert_eq!(
        table_counts(&restored).unwrap(),
        backup::check(&during).unwrap().counts
    );
    drop(restored);
    let second = backup::restore(target.path(), &after).unwrap();
    let kept = second.previous.expect("the previous database is kept");
    assert_eq!(
        backup::check(&kept).unwrap().rows("test_runs"),
        Some(runs_then)
    );
    // The restored store opens and serves the same counts.
    let store = cxwatch::store::Store::open(target.path(), cxwatch::store::StoreOptions::default())
        .unwrap();
    drop(store);
    assert_eq!(table_counts(&db(target.path())).unwrap(), live);
}

#[test]
fn cli_backup_beside_a_server_and_restore_refused_while_it_runs() {
    let mut server = start(Opts::default());
    let config = server.data_dir.join("config.toml");
    let config = config.to_str().unwrap();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("cxwatch-backup.db");
    let file = file.to_str().unwrap();

    if common::store_url(&server.data_dir).is_some() {
        // On PostgreSQL both commands refuse and name the database's own tools.
        for what in ["backup --to", "restore --from"] {
            let (verb, flag) = what.split_once(' ').unwrap();
            let (code, _, stderr) = run_cli(&["--config", config, verb, flag, file], "");
            assert_eq!(code, 1, "{what}");
            assert!(stderr.contains("pg_dump"), "{stderr}");
        }
        return;
    }

    let (code, stdout, stderr) = run_cli(&["--config", config, "backup", "--to", file], "");
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("bytes") && stdout.contains(" s"),
        "{stdout}"
    );
    assert!(stderr.contains("recordings"), "{stderr}");
    // A second backup to the same file is refused: nothing is overwritten.
    let (code, _, stderr) = run_cli(&["--config", config, "backup", "--to", file], "");
    assert_eq!(code, 1);
    assert!(stderr.contains("exists"), "{stderr}");

    let (code, _, stderr) = run_cli(&["--config", config, "restore", "--from", file], "");
    assert_eq!(code, 1);
    assert!(stderr.contains("server is running"), "{stderr}");

    server
        .terminate(std::time::Duration::from_secs(10))
        .unwrap();
    let (code, stdout, stderr) = run_cli(&["--config", config, "restore", "--from", file], "");
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("kept as"), "{stdout}");
}

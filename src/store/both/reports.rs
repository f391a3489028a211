//! The read side on both backends over the same runs: every answer must be the same
//! (numbers, order, paging totals). Run with `TEST_POSTGRES_URL` set.

use chrono::{Duration, NaiveDate, SecondsFormat, TimeZone, Utc};
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio::sync::mpsc;

use crate::config::StoreConfig;
use crate::domain::caller::{AccessType, Role, Scope};
use crate::domain::ingest::parse_run;
use crate::domain::page::{PageRequest, Sort};
use crate::domain::report::{ReportDraft, ReportFilter, ReportSortField, ReportType, Timeframe};
use crate::domain::run::{Channel, RunSortField, RunType};
use crate::domain::user::UserDraft;
use crate::store::catalog::{GroupDraft, GroupFilter, GroupSortField};
use crate::store::metrics::{Level, MetricQuery, MosQuery};
use crate::store::reports::{ExportRow, ReportRunQuery};
use crate::store::{Store, StoreOptions};

const CASES: [&str; 7] = ["alpha", "Beta", "ÉCOLE", "école", "_under", "Zed", "b b"];
const TZ: chrono_tz::Tz = chrono_tz::America::Toronto;

fn runs(seed: u64, n: usize) -> Vec<crate::domain::ingest::IngestRun> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    // Around the spring-forward of 2026-03-08 in Toronto.
    let start = Utc.with_ymd_and_hms(2026, 3, 6, 0, 0, 0).unwrap();
    let statuses = ["pass", "warn", "fail", "stopped"];
    (0..n)
        .map(|i| {
            let case = rng.gen_range(1..=CASES.len() as i64);
            let at = start + Duration::seconds(rng.gen_range(0..5 * 86_400));
            let status = statuses[rng.gen_range(0..4)];
            let segs = if case % 2 == 0 { 3 } else { 2 };
            let segments: Vec<_> = (1..=segs)
                .map(|s| {
                    let steps: Vec<_> = (0..rng.gen_range(0..3))
                        .map(|k| {
                            let latency =
                                (rng.gen_range(0..4) > 0).then(|| rng.gen_range(0..12_000));
                            json!({"stepId": s * 10 + k, "stepType": "PROMPT",
                                       "typeDisplayText": "Prompt",
                                       "testResult": {"status": statuses[rng.gen_range(0..4)],
                                                      "latency": latency}})
                        })
                        .collect();
                    json!({"segmentId": s * 7 - 3, "segmentName": format!("Seg {s} of {case}"),
                               "steps": steps})
                })
                .collect();
            let mos = (rng.gen_range(0..5) > 0).then(|| rng.gen_range(100..=500) as f64 / 100.0);
            let ivr = 10 + case % 3;
            let ivr_name = ["Main IVR", "aux", "Élan"][(ivr - 10) as usize];
            parse_run(&json!({
                "engineRunId": format!("r{seed}-{i}"),
                "testCase": {"id": case, "name": CASES[case as usize - 1], "channel": "voice",
                             "ivr": {"id": ivr, "name": ivr_name}},
                "runTime": at.to_rfc3339_opts(SecondsFormat::Millis, true),
                "runDuration": 12.5, "status": status,
                "runType": if rng.gen_range(0..3) == 0 { "Manual" } else { "Schedule" },
                "mosCqIn": mos,
                "segments": segments,
            }))
            .unwrap()
        })
        .collect()
}

async fn export(s: &Store, id: i64, from: NaiveDate, to: NaiveDate) -> Vec<ExportRow> {
    let rep = match s.report(Scope::All, id).await.unwrap() {
        crate::domain::caller::Visibility::Visible(r) => r,
        v => panic!("{v:?}"),
    };
    let (tx, mut rx) = mpsc::channel(4);
    let (n, rows) = tokio::join!(s.export_report(rep, from, to, tx), async {
        let mut all = Vec::new();
        while let Some(b) = rx.recv().await {
            all.extend(b);
        }
        all
    });
    assert_eq!(n.unwrap(), rows.len() as u64);
    rows
}

#[tokio::test(flavor = "multi_thread")]
async fn both_backends_answer_the_same() {
    let Some(url) = crate::store::pg::testdb::fresh().await else {
        return;
    };
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let lite = Store::open(d1.path(), StoreOptions::default()).unwrap();
    let config = StoreConfig {
        url,
        ..StoreConfig::default()
    };
    let pg = Store::connect(&config, d2.path()).await.unwrap();
    let stores = [&lite, &pg];
    for s in stores {
        for seed in 0..3 {
            s.ingest_runs(TZ, runs(seed, 700)).await.unwrap();
        }
    }
    macro_rules! same {
        ($s:ident => $e:expr) => {{
            let a = {
                let $s = &lite;
                format!("{:?}", $e)
            };
            let b = {
                let $s = &pg;
                format!("{:?}", $e)
            };
            assert_eq!(a, b, "{}", stringify!($e));
            a
        }};
    }
    // The same groups and reports on both (same ids: both start empty).
    let groups = [
        ("grp", vec![1, 2, 3, 4, 5, 6, 7]),
        ("Grp two", vec![2, 4, 6]),
        ("élan", vec![3]),
        ("Alpha", vec![]),
    ];
    for s in stores {
        for (name, cases) in &groups {
            s.create_group(&GroupDraft {
                name: (*name).into(),
                channel: Channel::Voice,
                test_case_ids: cases.clone(),
            })
            .await
            .unwrap();
        }
        s.update_group(
            4,
            &GroupDraft {
                name: "alpha".into(),
                channel: Channel::Voice,
                test_case_ids: vec![1, 5],
            },
        )
        .await
        .unwrap();
        s.create_user(
            &UserDraft {
                username: "restricted@example.com".into(),
                first_name: "R".into(),
                last_name: "U".into(),
                role: Role::User,
                access: AccessType::ReadOnly,
                group_ids: vec![2, 4],
            },
            "x",
        )
        .await
        .unwrap();
    }
    let user = Scope::User(1);
    for scope in [Scope::All, user] {
        same!(s => s.list_groups(scope).await.unwrap());
        same!(s => s.ivrs(scope).await.unwrap());
        for id in 1..=5 {
            same!(s => s.group(scope, id).await.unwrap());
        }
        for field in [
            GroupSortField::Id,
            GroupSortField::Name,
            GroupSortField::CaseCount,
        ] {
            for descending in [false, true] {
                for search in [None, Some("a"), Some("2"), Some("élan"), Some("p t")] {
                    let filter = GroupFilter {
                        search: search.map(String::from),
                        sort: Sort { field, descending },
                    };
                    for no in 0..3 {
                        let page = PageRequest { no, size: 2 };
                        same!(s => s.page_groups(scope, filter.clone(), page).await.unwrap());
                    }
                }
            }
        }
    }
    same!(s => s.alert_statuses().await.unwrap());
    // SQLite's order is its scan's (unspecified); the gauges take them in any order.
    same!(s => {
        let mut v = s.last_runs().await.unwrap();
        v.sort();
        v
    });
    same!(s => s.outbox_figures().await.unwrap());

    let day = |d: u32| NaiveDate::from_ymd_opt(2026, 3, d).unwrap();
    let ranges = [
        (day(6), day(6)),
        (day(8), day(8)),
        (day(5), day(11)),
        (day(9), day(7)),
    ];
    for scope in [Scope::All, user] {
        for group_id in 1..=5 {
            for (from, to) in ranges {
                for run_type in [RunType::Schedule, RunType::Manual] {
                    for level in [Level::Case, Level::Segment] {
                        let q = MetricQuery {
                            group_id,
                            level,
                            from,
                            to,
                            run_type,
                        };
                        same!(s => s.group_metric(scope, q).await.unwrap());
                    }
                    let q = MosQuery {
                        group_id,
                        from,
                        to,
                        run_type,
                    };
                    same!(s => s.group_mos(scope, q).await.unwrap());
                }
            }
        }
    }

    // Reports.
    let names = [
        "Zeta",
        "alpha",
        "Alpha 2",
        "_x",
        "École",
        "100% sure",
        "a_b",
    ];
    for s in stores {
        for (i, name) in names.iter().enumerate() {
            let report_type = ReportType::ALL[i % ReportType::ALL.len()];
            let timeframe = Timeframe::ALL[i % Timeframe::ALL.len()];
            let custom = if timeframe == Timeframe::Custom {
                (Some(day(5)), Some(day(11)))
            } else {
                (None, None)
            };
            s.create_report(
                Scope::All,
                &ReportDraft {
                    name: (*name).into(),
                    report_type,
                    group_id: 1 + (i as i64 % 3),
                    timeframe,
                    custom,
                    run_type: if i % 4 == 3 {
                        RunType::Manual
                    } else {
                        RunType::Schedule
                    },
                    latency_warn: 1000,
                    latency_fail: 4000,
                },
            )
            .await
            .unwrap();
        }
        s.set_report_ticket(Scope::All, 2, "CX-7").await.unwrap();
    }
    // The same times of change on both (the clock moved between them), some equal.
    let same_times = "UPDATE reports SET modified_at = 1700000000 + id % 3";
    rusqlite::Connection::open(d1.path().join("cxwatch.db"))
        .unwrap()
        .execute_batch(same_times)
        .unwrap();
    let (client, conn) = tokio_postgres::connect(&config.url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let task = tokio::spawn(conn);
    client.batch_execute(same_times).await.unwrap();
    drop(client);
    let _ = task.await;
    same!(s => s.report_with_ticket(Scope::All, "CX-7").await.unwrap());
    same!(s => s.report_with_ticket(user, "CX-7").await.unwrap());
    same!(s => s.report_with_ticket(Scope::All, "CX-8").await.unwrap());
    let sorts = [
        ReportSortField::Id,
        ReportSortField::Name,
        ReportSortField::ReportType,
        ReportSortField::GroupName,
        ReportSortField::Timeframe,
        ReportSortField::LastModified,
    ];
    for scope in [Scope::All, user] {
        for id in 1..=8 {
            same!(s => s.report(scope, id).await.unwrap());
        }
        for field in sorts {
            for descending in [false, true] {
                let base = ReportFilter {
                    search: None,
                    types: vec![],
                    group_names: vec![],
                    start: None,
                    end: None,
                    timeframes: vec![],
                    sort: Sort { field, descending },
                    today: day(10),
                };
                let filters = [
                    base.clone(),
                    ReportFilter {
                        search: Some("a".into()),
                        ..base.clone()
                    },
                    ReportFilter {
                        search: Some("%".into()),
                        ..base.clone()
                    },
                    ReportFilter {
                        search: Some("_".into()),
                        ..base.clone()
                    },
                    ReportFilter {
                        search: Some("3".into()),
                        ..base.clone()
                    },
                    ReportFilter {
                        types: vec![ReportType::Trend, ReportType::Mos],
                        ..base.clone()
                    },
                    ReportFilter {
                        group_names: vec!["GRP".into()],
                        ..base.clone()
                    },
                    ReportFilter {
                        timeframes: vec![Timeframe::Custom, Timeframe::Today],
                        ..base.clone()
                    },
                    ReportFilter {
                        start: Some(day(9)),
                        ..base.clone()
                    },
                    ReportFilter {
                        end: Some(day(9)),
                        ..base.clone()
                    },
                ];
                for f in &filters {
                    for no in 0..2 {
                        let page = PageRequest { no, size: 3 };
                        same!(s => s.list_reports(scope, page, f).await.unwrap());
                    }
                }
            }
        }
    }
    for id in 1..=7 {
        for (from, to) in ranges {
            let rep = match lite.report(Scope::All, id).await.unwrap() {
                crate::domain::caller::Visibility::Visible(r) => r,
                v => panic!("{v:?}"),
            };
            same!(s => s.report_latency(rep.clone(), from, to).await.unwrap());
            same!(s => export(s, id, from, to).await);
        }
    }
    // An export whose reader goes away stops, and leaves the connections usable.
    let mut firsts = Vec::new();
    for s in stores {
        let rep = match s.report(Scope::All, 7).await.unwrap() {
            crate::domain::caller::Visibility::Visible(r) => r,
            v => panic!("{v:?}"),
        };
        let (tx, mut rx) = mpsc::channel(1);
        let (sent, first) = tokio::join!(s.export_report(rep, day(5), day(11), tx), async {
            let first = rx.recv().await.unwrap();
            drop(rx);
            first
        });
        let sent = sent.unwrap() as usize;
        assert!(first.len() < 1687 && (first.len()..=1687).contains(&sent));
        firsts.push(first);
        for _ in 0..4 {
            assert_eq!(s.list_groups(Scope::All).await.unwrap().len(), 4);
        }
    }
    assert_eq!(firsts[0], firsts[1], "the same first batch");
    // Runs behind the views.
    let ms = |d: u32| {
        TZ.from_local_datetime(&day(d).and_hms_opt(0, 0, 0).unwrap())
            .earliest()
            .unwrap()
            .timestamp_millis()
    };
    let base = ReportRunQuery {
        group_id: 1,
        tz: TZ,
        from_ms: ms(6),
        to_ms: ms(10),
        run_type: RunType::Schedule,
        status: (0, 3),
        segment_id: None,
        hour: None,
        latency: None,
        mos: None,
        sort: None,
    };
    let sorted = |field, descending| Some(Sort { field, descending });
    let queries = [
        base.clone(),
        ReportRunQuery {
            sort: sorted(RunSortField::Mos, false),
            ..base.clone()
        },
        ReportRunQuery {
            sort: sorted(RunSortField::RunDuration, true),
            hour: Some(3),
            ..base.clone()
        },
        ReportRunQuery {
            sort: sorted(RunSortField::TestCaseName, false),
            latency: Some((1000, Some(4000))),
            ..base.clone()
        },
        ReportRunQuery {
            sort: sorted(RunSortField::RunStatus, true),
            ..base.clone()
        },
        ReportRunQuery {
            status: (2, 2),
            ..base.clone()
        },
        ReportRunQuery {
            group_id: 2,
            run_type: RunType::Manual,
            ..base.clone()
        },
        ReportRunQuery {
            hour: Some(2),
            ..base.clone()
        },
        ReportRunQuery {
            hour: Some(3),
            ..base.clone()
        },
        ReportRunQuery {
            hour: Some(23),
            ..base.clone()
        },
        ReportRunQuery {
            segment_id: Some(18),
            ..base.clone()
        },
        ReportRunQuery {
            mos: Some((300, 399)),
            ..base.clone()
        },
        ReportRunQuery {
            latency: Some((1000, Some(4000))),
            ..base.clone()
        },
        ReportRunQuery {
            latency: Some((8000, None)),
            segment_id: Some(4),
            ..base.clone()
        },
        ReportRunQuery {
            latency: Some((0, Some(500))),
            hour: Some(10),
            status: (1, 2),
            ..base.clone()
        },
    ];
    for q in &queries {
        for (no, size) in [(0, 10), (1, 10), (7, 7), (0, 1000)] {
            let page = PageRequest { no, size };
            same!(s => s.report_runs(q.clone(), page).await.unwrap());
        }
    }
    for s in stores {
        s.delete_report(Scope::All, 3).await.unwrap();
        s.delete_groups(vec![3], true).await.unwrap();
    }
    same!(s => s.list_groups(Scope::All).await.unwrap());
    same!(s => s.report(Scope::All, 3).await.unwrap());
    same!(s => s.report(Scope::All, 6).await.unwrap());
}

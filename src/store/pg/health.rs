//! PostgreSQL: [`HealthStore`](crate::store::HealthStore).
use super::Postgres;
use crate::domain::caller::Scope;
use crate::domain::ingest::{ClientAppHealth, ComponentPresence, ComponentState};
use crate::domain::run::Channel;
use crate::store::catalog::channel;
use crate::store::health::*;
use crate::store::HealthStore;
use crate::store::{now_secs, StoreError, StoreResult};
use async_trait::async_trait;
use chrono::{TimeZone, Utc};

#[async_trait]
impl HealthStore for Postgres {
    async fn health(&self, scope: Scope) -> StoreResult<Vec<(Channel, Vec<ClientAppHealth>)>> {
        let c = self.client().await?;
        // The IVR applications (by channel) whose test cases are in the user's groups.
        let apps: Option<Vec<(Channel, String)>> = match scope {
            Scope::All => None,
            Scope::User(u) => Some(
                c.query(
                    &c.prepare_cached(
                        "SELECT DISTINCT i.channel, i.name FROM ivr_apps i
                           JOIN test_cases tc ON tc.ivr_id = i.id
                           JOIN group_cases gc ON gc.test_case_id = tc.id
                           JOIN user_groups ug ON ug.group_id = gc.group_id
                          WHERE ug.user_id = $1",
                    )
                    .await?,
                    &[&u],
                )
                .await?
                .iter()
                .map(|r| Ok((channel(r.get(0))?, r.get(1))))
                .collect::<StoreResult<_>>()?,
            ),
        };
        let mut out: Vec<(Channel, Vec<ClientAppHealth>)> =
            Channel::ALL.iter().map(|c| (*c, Vec::new())).collect();
        let rows = c
            .query(
                &c.prepare_cached(
                    "SELECT channel, client_end_point, last_run, app_enabled, app_status,
                            telco_enabled, telco_status, agent_enabled, agent_status, components
                       FROM client_apps
                      ORDER BY channel COLLATE \"C\", lower(client_end_point COLLATE \"C\"),
                               client_end_point COLLATE \"C\"",
                )
                .await?,
                &[],
            )
            .await?;
        for r in rows {
            let channel = channel(r.get(0))?;
            let components: Vec<ComponentPresence> =
                serde_json::from_str(r.get::<_, &str>(9)).unwrap_or_default();
            let app = ClientAppHealth {
                client_end_point: r.get(1),
                channel,
                last_run: Utc
                    .timestamp_millis_opt(r.get(2))
                    .single()
                    .unwrap_or_default(),
                app_status: ComponentState {
                    enabled: r.get(3),
                    status: r.get(4),
                },
                telco_status: ComponentState {
                    enabled: r.get(5),
                    status: r.get(6),
                },
                agent_status: ComponentState {
                    enabled: r.get(7),
                    status: r.get(8),
                },
                component_status: components,
            };
            add_visible(&mut out, apps.as_deref(), app);
        }
        Ok(out)
    }

    /// Per application the snapshot with the latest `lastRun` wins (an equal one
    /// replaces), in the order given; every snapshot is checked first.
    async fn put_health(&self, apps: Vec<ClientAppHealth>) -> StoreResult<()> {
        check_all(&apps)?;
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let stmt = tx
            .prepare_cached(
                "INSERT INTO client_apps (channel, client_end_point, last_run, app_enabled,
                        app_status, telco_enabled, telco_status, agent_enabled, agent_status,
                        components, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                 ON CONFLICT (channel, client_end_point) DO UPDATE SET
                        last_run = EXCLUDED.last_run, app_enabled = EXCLUDED.app_enabled,
                        app_status = EXCLUDED.app_status, telco_enabled = EXCLUDED.telco_enabled,
                        telco_status = EXCLUDED.telco_status,
                        agent_enabled = EXCLUDED.agent_enabled,
                        agent_status = EXCLUDED.agent_status, components = EXCLUDED.components,
                        updated_at = EXCLUDED.updated_at
                  WHERE EXCLUDED.last_run >= client_apps.last_run",
            )
            .await?;
        let now = now_secs();
        for app in &apps {
            let components = serde_json::to_string(&app.component_status)
                .map_err(|e| StoreError::Invalid(e.to_string()))?;
            tx.execute(
                &stmt,
                &[
                    &app.channel.as_str(),
                    &app.client_end_point.trim(),
                    &app.last_run.timestamp_millis(),
                    &app.app_status.enabled,
                    &app.app_status.status,
                    &app.telco_status.enabled,
                    &app.telco_status.status,
                    &app.agent_status.enabled,
                    &app.agent_status.status,
                    &components,
                    &now,
                ],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Run with `TEST_POSTGRES_URL` set (a fresh database); without it it passes at once.
    use super::*;
    use crate::config::StoreConfig;
    use crate::domain::caller::{AccessType, Role};
    use crate::domain::ingest::parse_run;
    use crate::domain::run::RunType;
    use crate::domain::user::UserDraft;
    use crate::store::catalog::GroupDraft;
    use crate::store::recent::RecentQuery;
    use crate::store::{Backend, RecentStore, Sqlite};
    use serde_json::json;

    fn run(
        id: &str,
        case: i64,
        channel: &str,
        ivr: (i64, &str),
        time: &str,
        status: &str,
    ) -> crate::domain::ingest::IngestRun {
        parse_run(&json!({
            "engineRunId": id,
            "testCase": {"id": case, "name": format!("Case {case}"), "channel": channel,
                         "ivr": {"id": ivr.0, "name": ivr.1}},
            "runTime": time, "runDuration": 10.0, "status": status,
            "runType": if case == 3 { "Manual" } else { "Schedule" },
            "segments": []
        }))
        .unwrap()
    }

    fn snapshot(name: &str, channel: &str, last: &str, status: &str) -> ClientAppHealth {
        serde_json::from_value(json!({
            "clientEndPoint": name, "channel": channel, "lastRun": last,
            "appStatus": {"enabled": true, "status": status},
            "telcoStatus": {"enabled": true, "status": "TRS_PASS"},
            "agentStatus": {"enabled": false, "status": "TRS_FAIL"},
            "componentStatus": [{"name": "CRM DB", "hasComponent": true, "enabled": true}]
        }))
        .unwrap()
    }

    /// The same data on both backends; answers the user of the voice group and everyone.
    async fn fill(store: &dyn Backend) -> i64 {
        let tz: chrono_tz::Tz = "UTC".parse().unwrap();
        let runs = vec![
            run(
                "a",
                1,
                "voice",
                (10, "Retail Banking IVR"),
                "2026-11-20T10:01:00Z",
                "pass",
            ),
            run(
                "b",
                1,
                "voice",
                (10, "Retail Banking IVR"),
                "2026-11-20T10:02:00Z",
                "fail",
            ),
            run(
                "c",
                2,
                "web",
                (11, "Support Chatbot"),
                "2026-11-20T10:03:00Z",
                "warn",
            ),
            run(
                "d",
                3,
                "voice",
                (10, "Retail Banking IVR"),
                "2026-11-20T10:04:00Z",
                "stopped",
            ),
            run(
                "e",
                1,
                "voice",
                (10, "Retail Banking IVR"),
                "2026-11-20T09:00:00Z",
                "pass",
            ),
        ];
        assert_eq!(store.ingest_runs(tz, runs).await.unwrap().accepted, 5);
        let voice = store
            .create_group(&GroupDraft {
                name: "zeta voice".into(),
                channel: Channel::Voice,
                test_case_ids: vec![1, 3],
            })
            .await
            .unwrap()
            .group
            .id;
        for (name, channel, cases) in [
            ("Alpha web", Channel::Web, vec![2]),
            ("empty", Channel::Voice, vec![]),
        ] {
            store
                .create_group(&GroupDraft {
                    name: name.into(),
                    channel,
                    test_case_ids: cases,
                })
                .await
                .unwrap();
        }
        let user = store
            .create_user(
                &UserDraft {
                    username: "u@example.com".into(),
                    first_name: "U".into(),
                    last_name: "U".into(),
                    role: Role::User,
                    access: AccessType::ReadOnly,
                    group_ids: vec![voice],
                },
                "not-a-hash",
            )
            .await
            .unwrap();
        store
            .put_health(vec![
                snapshot(
                    "RetailBanking-IVR (+1 800 555 0100)",
                    "voice",
                    "2026-11-20T10:00:00Z",
                    "TRS_PASS",
                ),
                snapshot(
                    "support.chat.example.com",
                    "web",
                    "2026-11-20T10:00:00Z",
                    "TRS_FAIL",
                ),
                snapshot("b-other", "voice", "2026-11-20T10:00:00Z", "TRS_PASS"),
                snapshot("A-other", "voice", "2026-11-20T10:00:00Z", "TRS_PASS"),
                snapshot("b-other", "voice", "2026-11-20T11:00:00Z", "TRS_FAIL"),
                snapshot("A-other", "voice", "2026-11-20T09:00:00Z", "TRS_FAIL"),
            ])
            .await
            .unwrap();
        let mut bad = snapshot(" ", "voice", "2026-11-20T10:00:00Z", "TRS_PASS");
        bad.client_end_point = " ".into();
        let err = store.put_health(vec![bad]).await.unwrap_err();
        assert!(err.to_string().contains("clientApps[0]"), "{err}");
        user
    }

    #[tokio::test]
    async fn health_and_recent_answer_as_sqlite() {
        let Some(url) = super::super::testdb::fresh().await else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let config = StoreConfig {
            url,
            ..StoreConfig::default()
        };
        let pg = Postgres::connect(&config, dir.path()).await.unwrap();
        let sdir = tempfile::tempdir().unwrap();
        let sqlite = Sqlite::open(sdir.path(), crate::store::StoreOptions::default()).unwrap();
        let (u_pg, u_sqlite) = (fill(&pg).await, fill(&sqlite).await);
        for (a, b) in [
            (Scope::All, Scope::All),
            (Scope::User(u_pg), Scope::User(u_sqlite)),
        ] {
            let h = pg.health(a).await.unwrap();
            assert_eq!(h, sqlite.health(b).await.unwrap());
            let names: Vec<usize> = h.iter().map(|(_, apps)| apps.len()).collect();
            assert_eq!(
                names,
                if a == Scope::All {
                    vec![3, 1]
                } else {
                    vec![1, 0]
                }
            );
            let ms = |t: &str| {
                chrono::DateTime::parse_from_rfc3339(t)
                    .unwrap()
                    .timestamp_millis()
            };
            for q in [
                RecentQuery {
                    from_ms: ms("2026-11-20T10:00:00Z"),
                    to_ms: ms("2026-11-20T10:05:00Z"),
                    run_type: None,
                },
                RecentQuery {
                    from_ms: ms("2026-11-20T10:00:00Z"),
                    to_ms: ms("2026-11-20T10:05:00Z"),
                    run_type: Some(RunType::Schedule),
                },
                RecentQuery {
                    from_ms: ms("2026-11-20T08:00:00Z"),
                    to_ms: ms("2026-11-20T12:00:00Z"),
                    run_type: Some(RunType::Manual),
                },
            ] {
                let r = pg.recent_status(a, q).await.unwrap();
                assert_eq!(r, sqlite.recent_status(b, q).await.unwrap());
                assert!(!r.is_empty());
            }
        }
        let all = pg
            .recent_status(
                Scope::All,
                RecentQuery {
                    from_ms: 0,
                    to_ms: i64::MAX,
                    run_type: None,
                },
            )
            .await
            .unwrap();
        let summary: Vec<_> = all
            .iter()
            .map(|g| (g.name.as_str(), g.pass, g.warn, g.fail))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("Alpha web", 0, 1, 0),
                ("empty", 0, 0, 0),
                ("zeta voice", 2, 0, 2)
            ]
        );
    }
}

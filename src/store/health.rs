//! Health of client applications (spec §3 'Client application (health)'): the latest
//! snapshot per (channel, endpoint), as test engines report it.
//!
//! A restricted user sees the applications their groups' test cases call: an endpoint
//! belongs to an IVR application (chatbot) of its channel when the endpoint, reduced to
//! lower-case letters and digits, starts with the application's name reduced the same way
//! without a trailing `IVR`, `chatbot`, `bot` or `chat` ('Retail Banking IVR' calls
//! `RetailBanking-IVR (+1 800 555 0100)`, 'Support Chatbot' calls `support.chat.example.com`).
//!
//! Written once for both backends (`store/sql.rs`): the latest snapshot per (channel,
//! endpoint) is a row of `client_apps`.

use async_trait::async_trait;
use chrono::{TimeZone, Utc};

use super::catalog::channel;
use super::sql::{self, Exec, SqlStore};
use super::{now_secs, StoreError, StoreResult};
use crate::domain::caller::Scope;
use crate::domain::ingest::{ClientAppHealth, ComponentPresence, ComponentState};
use crate::domain::run::Channel;

#[async_trait]
pub trait HealthStore {
    /// The latest snapshot of every application the scope may see, by channel (voice
    /// first), then endpoint name. A user without groups sees none.
    async fn health(&self, scope: Scope) -> StoreResult<Vec<(Channel, Vec<ClientAppHealth>)>>;
    /// Stores the snapshots; per application the one with the latest `lastRun` wins (an
    /// equal `lastRun` replaces). Nothing is written if one snapshot is bad.
    async fn put_health(&self, apps: Vec<ClientAppHealth>) -> StoreResult<()>;
}

#[async_trait]
impl<S: SqlStore> HealthStore for S {
    async fn health(&self, scope: Scope) -> StoreResult<Vec<(Channel, Vec<ClientAppHealth>)>> {
        sql::read!(self, |c| {
            // The IVR applications (by channel) whose test cases are in the user's groups.
            let apps: Option<Vec<(Channel, String)>> = match scope {
                Scope::All => None,
                Scope::User(u) => Some(
                    c.query(
                        "SELECT DISTINCT i.channel, i.name FROM ivr_apps i
                           JOIN test_cases tc ON tc.ivr_id = i.id
                           JOIN group_cases gc ON gc.test_case_id = tc.id
                           JOIN user_groups ug ON ug.group_id = gc.group_id
                          WHERE ug.user_id = $1",
                        &[&u],
                    )
                    .await?
                    .iter()
                    .map(|r| Ok((channel(&r.col::<String>("channel")?)?, r.col("name")?)))
                    .collect::<StoreResult<_>>()?,
                ),
            };
            let mut out: Vec<(Channel, Vec<ClientAppHealth>)> =
                Channel::ALL.iter().map(|c| (*c, Vec::new())).collect();
            // Endpoints without case, then byte order.
            let sql = format!(
                "SELECT channel, client_end_point, last_run, app_enabled, app_status,
                        telco_enabled, telco_status, agent_enabled, agent_status, components
                   FROM client_apps ORDER BY channel, {}, client_end_point{}",
                c.nocase("client_end_point"),
                c.pg_only(" COLLATE \"C\"")
            );
            for r in c.query(&sql, &[]).await? {
                let components: Vec<ComponentPresence> =
                    serde_json::from_str(&r.col::<String>("components")?).unwrap_or_default();
                let app = ClientAppHealth {
                    client_end_point: r.col("client_end_point")?,
                    channel: channel(&r.col::<String>("channel")?)?,
                    last_run: Utc
                        .timestamp_millis_opt(r.col("last_run")?)
                        .single()
                        .unwrap_or_default(),
                    app_status: ComponentState {
                        enabled: r.col("app_enabled")?,
                        status: r.col("app_status")?,
                    },
                    telco_status: ComponentState {
                        enabled: r.col("telco_enabled")?,
                        status: r.col("telco_status")?,
                    },
                    agent_status: ComponentState {
                        enabled: r.col("agent_enabled")?,
                        status: r.col("agent_status")?,
                    },
                    component_status: components,
                };
                add_visible(&mut out, apps.as_deref(), app);
            }
            Ok(out)
        })
    }

    /// Per application the snapshot with the latest `lastRun` wins (an equal one
    /// replaces), in the order given; every snapshot is checked first.
    async fn put_health(&self, apps: Vec<ClientAppHealth>) -> StoreResult<()> {
        check_all(&apps)?;
        sql::write!(self, |c| {
            let now = now_secs();
            for app in &apps {
                let components = serde_json::to_string(&app.component_status)
                    .map_err(|e| StoreError::Invalid(e.to_string()))?;
                c.execute(
                    "INSERT INTO client_apps (channel, client_end_point, last_run, app_enabled,
                            app_status, telco_enabled, telco_status, agent_enabled, agent_status,
                            components, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                     ON CONFLICT (channel, client_end_point) DO UPDATE SET
                            last_run = EXCLUDED.last_run, app_enabled = EXCLUDED.app_enabled,
                            app_status = EXCLUDED.app_status,
                            telco_enabled = EXCLUDED.telco_enabled,
                            telco_status = EXCLUDED.telco_status,
                            agent_enabled = EXCLUDED.agent_enabled,
                            agent_status = EXCLUDED.agent_status,
                            components = EXCLUDED.components, updated_at = EXCLUDED.updated_at
                      WHERE EXCLUDED.last_run >= client_apps.last_run",
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
            Ok(())
        })
    }
}

/// Lower-case letters and digits of `s`.
fn key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// True when `end_point` is the endpoint of the IVR application (chatbot) named `app`.
pub fn serves(app: &str, end_point: &str) -> bool {
    let mut words: Vec<&str> = app
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() > 1
        && matches!(
            words.last().map(|w| w.to_lowercase()).as_deref(),
            Some("ivr" | "chatbot" | "bot" | "chat")
        )
    {
        words.pop();
    }
    let app = key(&words.concat());
    !app.is_empty() && key(end_point).starts_with(&app)
}

/// Longest endpoint name, status text or component name accepted.
pub const MAX_TEXT: usize = 200;

/// Why a snapshot is refused, or `None` when it is fine. A NUL character is refused in
/// every text: PostgreSQL's text cannot hold one, and both backends answer alike.
pub fn problem(app: &ClientAppHealth) -> Option<String> {
    let too_long = |s: &str| s.chars().count() > MAX_TEXT;
    let nul = |s: &str| s.contains('\0');
    if app.client_end_point.trim().is_empty() {
        return Some("clientEndPoint is empty".into());
    }
    if nul(&app.client_end_point) {
        return Some("clientEndPoint holds a NUL character".into());
    }
    if too_long(&app.client_end_point) {
        return Some(format!(
            "clientEndPoint is longer than {MAX_TEXT} characters"
        ));
    }
    for (name, s) in [
        ("appStatus", &app.app_status),
        ("telcoStatus", &app.telco_status),
        ("agentStatus", &app.agent_status),
    ] {
        if too_long(&s.status) {
            return Some(format!(
                "{name}.status is longer than {MAX_TEXT} characters"
            ));
        }
        if nul(&s.status) {
            return Some(format!("{name}.status holds a NUL character"));
        }
    }
    for (i, c) in app.component_status.iter().enumerate() {
        if c.name.trim().is_empty() || too_long(&c.name) {
            return Some(format!(
                "componentStatus[{i}].name must have 1 to {MAX_TEXT} characters"
            ));
        }
        if c.status.as_deref().is_some_and(too_long) {
            return Some(format!(
                "componentStatus[{i}].status is longer than {MAX_TEXT} characters"
            ));
        }
        if nul(&c.name) || c.status.as_deref().is_some_and(nul) {
            return Some(format!("componentStatus[{i}] holds a NUL character"));
        }
    }
    None
}

/// Every snapshot is fine, or why the first bad one (by its index) is refused.
fn check_all(apps: &[ClientAppHealth]) -> StoreResult<()> {
    for (i, app) in apps.iter().enumerate() {
        if let Some(p) = problem(app) {
            return Err(StoreError::Invalid(format!("clientApps[{i}]: {p}")));
        }
    }
    Ok(())
}

/// Adds a stored snapshot to its channel's entry of `out` ([`HealthStore::health`]'s
/// answer), unless `apps` (a restricted user's applications by channel; `None` for all)
/// has none that serves its endpoint.
fn add_visible(
    out: &mut [(Channel, Vec<ClientAppHealth>)],
    apps: Option<&[(Channel, String)]>,
    app: ClientAppHealth,
) {
    let channel = app.channel;
    if let Some(apps) = apps {
        if !apps
            .iter()
            .any(|(c, name)| *c == channel && serves(name, &app.client_end_point))
        {
            return;
        }
    }
    if let Some(slot) = out.iter_mut().find(|(c, _)| *c == channel) {
        slot.1.push(app);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::caller::{AccessType, Role};
    use crate::domain::ingest::parse_run;
    use crate::domain::run::RunType;
    use crate::domain::user::UserDraft;
    use crate::store::catalog::GroupDraft;
    use crate::store::recent::RecentQuery;
    use crate::store::{Backend, RecentStore, Sqlite};
    use serde_json::json;

    #[test]
    fn endpoints_belong_to_their_applications() {
        assert!(serves(
            "Retail Banking IVR",
            "RetailBanking-IVR (+1 800 555 0100)"
        ));
        assert!(serves("Support Chatbot", "support.chat.example.com"));
        assert!(serves("Main IVR", "main-ivr"));
        assert!(!serves(
            "Card Services IVR",
            "RetailBanking-IVR (+1 800 555 0100)"
        ));
        assert!(!serves("Sales Chatbot", "support.chat.example.com"));
        assert!(!serves("IVR", ""));
    }

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
        let mut nul = snapshot("nul", "voice", "2026-11-20T10:00:00Z", "TRS_PASS");
        nul.agent_status.status = "TRS\0FAIL".into();
        let err = store.put_health(vec![nul]).await.unwrap_err();
        assert!(err.to_string().contains("agentStatus.status"), "{err}");
        user
    }

    /// Both backends answer alike: SQLite always, PostgreSQL too when `TEST_POSTGRES_URL`
    /// names a server (each backend's answers are compared with SQLite's).
    #[tokio::test(flavor = "multi_thread")]
    async fn health_and_recent_answer_as_sqlite() {
        let sdir = tempfile::tempdir().unwrap();
        let sqlite = Sqlite::open(sdir.path(), crate::store::StoreOptions::default()).unwrap();
        let u_sqlite = fill(&sqlite).await;
        let dir = tempfile::tempdir().unwrap();
        let pg = match crate::store::pg::testdb::fresh().await {
            Some(url) => Some(crate::store::pg::testdb::connect(&url, dir.path()).await),
            None => None,
        };
        let mut backends: Vec<(&dyn Backend, i64)> = vec![(&sqlite, u_sqlite)];
        if let Some(pg) = &pg {
            backends.push((pg, fill(pg).await));
        }
        for (store, user) in backends {
            for (a, b) in [
                (Scope::All, Scope::All),
                (Scope::User(user), Scope::User(u_sqlite)),
            ] {
                let h = store.health(a).await.unwrap();
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
                    let r = store.recent_status(a, q).await.unwrap();
                    assert_eq!(r, sqlite.recent_status(b, q).await.unwrap());
                    assert!(!r.is_empty());
                }
            }
            let all = store
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
}

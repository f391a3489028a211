//! SQLite: [`HealthStore`], the latest snapshot per (channel, endpoint) in `client_apps`.

use async_trait::async_trait;
use chrono::{TimeZone, Utc};
use rusqlite::{params, Connection, Transaction};

use crate::domain::caller::Scope;
use crate::domain::ingest::{ClientAppHealth, ComponentPresence, ComponentState};
use crate::domain::run::Channel;
use crate::store::channel_of;
use crate::store::health::{add_visible, check_all, HealthStore};
use crate::store::{now_secs, Sqlite, StoreError, StoreResult};

#[async_trait]
impl HealthStore for Sqlite {
    async fn health(&self, scope: Scope) -> StoreResult<Vec<(Channel, Vec<ClientAppHealth>)>> {
        self.read(move |c| list(c, scope)).await
    }
    async fn put_health(&self, apps: Vec<ClientAppHealth>) -> StoreResult<()> {
        self.write(move |tx| put(tx, &apps)).await
    }
}

/// Names of the IVR applications (by channel) whose test cases are in the user's groups.
fn visible_apps(conn: &Connection, user: i64) -> StoreResult<Vec<(Channel, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT i.channel, i.name FROM ivr_apps i
           JOIN test_cases tc ON tc.ivr_id = i.id
           JOIN group_cases gc ON gc.test_case_id = tc.id
           JOIN user_groups ug ON ug.group_id = gc.group_id
          WHERE ug.user_id = ?1",
    )?;
    let rows = stmt
        .query_map([user], |r| {
            Ok((channel_of(&r.get::<_, String>(0)?)?, r.get(1)?))
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// Stores the snapshots; per application the one with the latest `lastRun` wins (an equal
/// `lastRun` replaces). Every snapshot is checked first: nothing is written if one is bad.
fn put(tx: &Transaction, apps: &[ClientAppHealth]) -> StoreResult<()> {
    check_all(apps)?;
    let mut stmt = tx.prepare_cached(
        "INSERT INTO client_apps (channel, client_end_point, last_run, app_enabled, app_status,
                telco_enabled, telco_status, agent_enabled, agent_status, components, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
         ON CONFLICT (channel, client_end_point) DO UPDATE SET
                last_run = excluded.last_run, app_enabled = excluded.app_enabled,
                app_status = excluded.app_status, telco_enabled = excluded.telco_enabled,
                telco_status = excluded.telco_status, agent_enabled = excluded.agent_enabled,
                agent_status = excluded.agent_status, components = excluded.components,
                updated_at = excluded.updated_at
          WHERE excluded.last_run >= client_apps.last_run",
    )?;
    let now = now_secs();
    for app in apps {
        let components = serde_json::to_string(&app.component_status)
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        stmt.execute(params![
            app.channel.as_str(),
            app.client_end_point.trim(),
            app.last_run.timestamp_millis(),
            app.app_status.enabled,
            app.app_status.status,
            app.telco_status.enabled,
            app.telco_status.status,
            app.agent_status.enabled,
            app.agent_status.status,
            components,
            now,
        ])?;
    }
    Ok(())
}

/// The latest snapshot of the applications the scope sees, by channel, then endpoint name.
fn list(conn: &Connection, scope: Scope) -> StoreResult<Vec<(Channel, Vec<ClientAppHealth>)>> {
    let apps = match scope {
        Scope::All => None,
        Scope::User(u) => Some(visible_apps(conn, u)?),
    };
    let mut out: Vec<(Channel, Vec<ClientAppHealth>)> =
        Channel::ALL.iter().map(|c| (*c, Vec::new())).collect();
    let mut stmt = conn.prepare_cached(
        "SELECT channel, client_end_point, last_run, app_enabled, app_status, telco_enabled,
                telco_status, agent_enabled, agent_status, components
           FROM client_apps ORDER BY channel, client_end_point COLLATE NOCASE",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let channel = channel_of(&r.get::<_, String>(0)?)?;
        let components: Vec<ComponentPresence> =
            serde_json::from_str(&r.get::<_, String>(9)?).unwrap_or_default();
        let app = ClientAppHealth {
            client_end_point: r.get(1)?,
            channel,
            last_run: Utc
                .timestamp_millis_opt(r.get(2)?)
                .single()
                .unwrap_or_default(),
            app_status: ComponentState {
                enabled: r.get(3)?,
                status: r.get(4)?,
            },
            telco_status: ComponentState {
                enabled: r.get(5)?,
                status: r.get(6)?,
            },
            agent_status: ComponentState {
                enabled: r.get(7)?,
                status: r.get(8)?,
            },
            component_status: components,
        };
        add_visible(&mut out, apps.as_deref(), app);
    }
    Ok(out)
}

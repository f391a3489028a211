//! Health of client applications (spec §3 'Client application (health)'): the latest
//! snapshot per (channel, endpoint), as test engines report it.
//!
//! A restricted user sees the applications their groups' test cases call: an endpoint
//! belongs to an IVR application (chatbot) of its channel when the endpoint, reduced to
//! lower-case letters and digits, starts with the application's name reduced the same way
//! without a trailing `IVR`, `chatbot`, `bot` or `chat` ('Retail Banking IVR' calls
//! `RetailBanking-IVR (+1 800 555 0100)`, 'Support Chatbot' calls `support.chat.example.com`).

use async_trait::async_trait;
use chrono::{TimeZone, Utc};
use rusqlite::{params, Connection, Transaction};

use super::channel_of;
use super::{now_secs, Sqlite, StoreError, StoreResult};
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
impl HealthStore for Sqlite {
    async fn health(&self, scope: Scope) -> StoreResult<Vec<(Channel, Vec<ClientAppHealth>)>> {
        self.read(move |c| list(c, scope)).await
    }
    async fn put_health(&self, apps: Vec<ClientAppHealth>) -> StoreResult<()> {
        self.write(move |tx| put(tx, &apps)).await
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

/// Longest endpoint name, status text or component name accepted.
pub const MAX_TEXT: usize = 200;

/// Why a snapshot is refused, or `None` when it is fine.
pub fn problem(app: &ClientAppHealth) -> Option<String> {
    let too_long = |s: &str| s.chars().count() > MAX_TEXT;
    if app.client_end_point.trim().is_empty() {
        return Some("clientEndPoint is empty".into());
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
    }
    for (i, c) in app.component_status.iter().enumerate() {
        if c.name.trim().is_empty() || too_long(&c.name) {
            return Some(format!(
                "componentStatus[{i}].name must have 1 to {MAX_TEXT} characters"
            ));
        }
    }
    None
}

/// Stores the snapshots; per application the one with the latest `lastRun` wins (an equal
/// `lastRun` replaces). Every snapshot is checked first: nothing is written if one is bad.
fn put(tx: &Transaction, apps: &[ClientAppHealth]) -> StoreResult<()> {
    for (i, app) in apps.iter().enumerate() {
        if let Some(p) = problem(app) {
            return Err(StoreError::Invalid(format!("clientApps[{i}]: {p}")));
        }
    }
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
        if let Some(apps) = &apps {
            if !apps
                .iter()
                .any(|(c, name)| *c == channel && serves(name, &app.client_end_point))
            {
                continue;
            }
        }
        if let Some(slot) = out.iter_mut().find(|(c, _)| *c == channel) {
            slot.1.push(app);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::serves;

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
}

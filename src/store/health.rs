//! Health of client applications (spec §3 'Client application (health)'): the latest
//! snapshot per (channel, endpoint), as test engines report it.
//!
//! A restricted user sees the applications their groups' test cases call: an endpoint
//! belongs to an IVR application (chatbot) of its channel when the endpoint, reduced to
//! lower-case letters and digits, starts with the application's name reduced the same way
//! without a trailing `IVR`, `chatbot`, `bot` or `chat` ('Retail Banking IVR' calls
//! `RetailBanking-IVR (+1 800 555 0100)`, 'Support Chatbot' calls `support.chat.example.com`).
//!
//! The trait and the rules both backends apply; the SQL is in `sqlite/health.rs` and
//! `pg/health.rs`.

use async_trait::async_trait;

use super::{StoreError, StoreResult};
use crate::domain::caller::Scope;
use crate::domain::ingest::ClientAppHealth;
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

/// Every snapshot is fine, or why the first bad one (by its index) is refused.
pub(super) fn check_all(apps: &[ClientAppHealth]) -> StoreResult<()> {
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
pub(super) fn add_visible(
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

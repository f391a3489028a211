//! `api/site`: the site page (cxwatch's addition): how far a fresh install
//! has come (the first-run checklist), the test engines' API keys (made, listed and revoked
//! in the console as with `cxwatch apikey`), and the state of each outbound channel (mail,
//! SMS and voice gateways, webhooks, Jira, single sign-on) with a test. Administrators read;
//! read-write administrators make and revoke keys and send tests. A key is shown once, when
//! it is made; only its SHA-256 is kept. Secrets of the configuration are never answered.

use chrono::{TimeZone, Utc};
use poem::web::Data;
use poem::Request;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Enum, Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, Envelope, ErrorCode};
use super::guard::Auth;
use super::lenient::{Name, Required, Text};
use super::{distributions, params, AppState};
use crate::config::{strip_port, GatewayConfig, SmtpSecurity};
use crate::domain::caller::Need;
use crate::domain::distribution::{self as dist, ContactType};
use crate::domain::rules::{FieldError, Problems, Rule};
use crate::sso::SsoError;
use crate::store::site::LastOutcome;

pub struct SiteApi;

/// An ingest API key (never the key itself).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ApiKey {
    pub name: String,
    /// When it was made, RFC 3339 UTC.
    pub created_time: String,
    /// When an engine last posted with it, RFC 3339 UTC: up to a minute early (the time is
    /// written at most once a minute per key); null when never used since cxwatch keeps it.
    #[oai(nullable)]
    pub last_used_time: Option<String>,
}

/// Longest API key name.
const API_KEY_NAME_MAX: usize = 100;

/// A key to make.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ApiKeySave {
    /// 1 to 100 characters, unique without case (`engine-1` and `ENGINE-1` are one name):
    /// which engine uses it; a JSON string (a boolean or number is refused), no control or
    /// text-direction characters.
    pub name: Required<Text<Name<API_KEY_NAME_MAX>>>,
}

/// A key just made: the only time `key` is shown.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ApiKeyCreated {
    pub name: String,
    pub created_time: String,
    /// `cxw_` and 64 hex digits: the engine sends it as `X-API-Key`. Not kept: shown once.
    pub key: String,
}

/// How far a fresh install has come: how many of each exist.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SiteChecklist {
    pub api_keys: i64,
    /// Runs the engines have posted.
    pub runs: i64,
    /// When the newest run ran (RFC 3339 UTC).
    #[oai(nullable)]
    pub last_run_time: Option<String>,
    pub groups: i64,
    pub distribution_lists: i64,
    pub alert_settings: i64,
}

/// An outbound channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum SiteChannelKind {
    /// E-mail over SMTP (`[notify.smtp]`).
    Email,
    /// The SMS gateway (`[notify.sms]`).
    Sms,
    /// The voice gateway (`[notify.voice]`).
    Voice,
    /// Webhooks and chat (`[notify.webhook]`).
    Webhook,
    /// The issue tracker (`[jira]` or `[tenants.jira]`).
    Jira,
    /// Single sign-on (`[tenants.sso]`).
    Sso,
}

/// What became of the channel's latest message (or ticket job).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ChannelOutcome {
    /// `sent` or `failed`; `queued` when it failed and will be tried again.
    pub state: String,
    /// When it was sent, else when it was made (RFC 3339 UTC).
    pub time: String,
    /// Why its last attempt failed, in English (never a webhook's path or a secret).
    #[oai(nullable)]
    pub reason: Option<String>,
    /// The same as a stable code (`Notification.reasonCode`), worded by the console in the
    /// reader's language; null for Jira's ticket jobs.
    #[oai(nullable)]
    pub reason_code: Option<String>,
    /// The HTTP status of an `http_status` reason.
    #[oai(nullable)]
    pub reason_status: Option<u16>,
}

/// One channel's state: configured or not, where it goes (no secret), its latest outcome.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SiteChannel {
    pub channel: SiteChannelKind,
    pub configured: bool,
    /// Where it goes (host and port, the gateway's host, Jira's address, the issuer);
    /// never a password, token or secret.
    #[oai(nullable)]
    pub summary: Option<String>,
    /// The configuration key that turns it on.
    pub setting: String,
    /// The latest message's outcome (e-mail, SMS, voice, webhooks) or ticket job's (Jira).
    #[oai(nullable)]
    pub last: Option<ChannelOutcome>,
}

/// Where a test goes.
#[derive(Debug, Object, Default)]
#[oai(rename_all = "camelCase")]
pub struct SiteChannelTest {
    /// E-mail: an address (default: the caller's username); SMS and voice: an E.164
    /// number; webhook: the receiver's URL. Not used for Jira and single sign-on.
    #[oai(nullable)]
    pub to: Option<String>,
}

/// A test that went through.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SiteChannelTested {
    pub message: String,
    /// The test message in the outbox (`GET notifications/{id}`), for the messaging channels.
    #[oai(nullable)]
    pub notification_id: Option<i64>,
}

fn rfc3339_secs(secs: i64) -> String {
    Utc.timestamp_opt(secs, 0)
        .single()
        .map(params::time)
        .unwrap_or_default()
}

fn outcome(o: LastOutcome) -> ChannelOutcome {
    let (reason_code, reason_status) = match o.code.as_deref() {
        Some(_) => super::notifications::reason_code(o.code.as_deref(), o.reason.as_deref()),
        None => (None, None),
    };
    ChannelOutcome {
        reason_code,
        reason_status,
        state: o.state,
        time: Utc
            .timestamp_millis_opt(o.at_ms)
            .single()
            .map(params::time)
            .unwrap_or_default(),
        reason: o.reason,
    }
}

/// The scheme and host (and port) of an address, without user, path or query, which may
/// hold credentials.
fn origin(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    if scheme.is_empty() {
        host.to_string()
    } else {
        format!("{scheme}://{host}")
    }
}

fn gateway_summary(g: &GatewayConfig) -> Option<String> {
    (!g.url.trim().is_empty()).then(|| format!("{} {}", g.method.to_uppercase(), origin(&g.url)))
}

fn host_of(req: &Request) -> String {
    super::sso::host(req)
}

/// The request's host without port, as the tenant lookups take it.
fn bare_host(req: &Request) -> String {
    strip_port(&host_of(req))
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

fn not_configured(what: &str) -> ApiError {
    ApiError::new(ErrorCode::NotConfigured, vec![what.to_string()], Vec::new())
}

#[OpenApi(prefix_path = "/site", tag = "super::ApiTags::Site")]
impl SiteApi {
    /// The first-run checklist's counts: API keys, runs (and the newest run's time), test
    /// case groups, distribution lists and alert settings (administrators).
    #[oai(path = "/checklist", method = "get", operation_id = "siteChecklist")]
    async fn checklist(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<SiteChecklist>>, { FORBIDDEN | INTERNAL }> {
        auth.require(Need::Admin)?;
        let c = state.store.site_counts().await?;
        Ok(Envelope::ok(SiteChecklist {
            api_keys: c.api_keys,
            runs: c.runs,
            last_run_time: c
                .last_run_ms
                .and_then(|ms| Utc.timestamp_millis_opt(ms).single())
                .map(params::time),
            groups: c.groups,
            distribution_lists: c.distribution_lists,
            alert_settings: c.alert_settings,
        }))
    }

    /// The ingest API keys by name, without the keys (administrators).
    #[oai(path = "/apikeys", method = "get", operation_id = "listApiKeys")]
    async fn keys(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<Vec<ApiKey>>>, { FORBIDDEN | INTERNAL }> {
        auth.require(Need::Admin)?;
        let keys = state.store.api_keys().await?;
        Ok(Envelope::ok(
            keys.into_iter()
                .map(|k| ApiKey {
                    name: k.name,
                    created_time: rfc3339_secs(k.created_at),
                    last_used_time: k.last_used_ms.map(|ms| rfc3339_secs(ms.div_euclid(1000))),
                })
                .collect(),
        ))
    }

    /// Makes an ingest API key (read-write administrators) and answers it: the only time it
    /// is shown. 409 when another key has the name, without case (field `name`, rule
    /// `taken`). Recorded in the audit log.
    #[oai(path = "/apikeys", method = "post", operation_id = "createApiKey")]
    async fn create_key(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        body: Json<ApiKeySave>,
    ) -> Answer<Json<Envelope<ApiKeyCreated>>, { BAD_REQUEST | FORBIDDEN | CONFLICT | INTERNAL }>
    {
        auth.require(Need::AdminWrite)?;
        let mut p = Problems::default();
        let name = p.text("name", body.0.name.as_deref(), API_KEY_NAME_MAX);
        p.check()?;
        let name = name.unwrap_or_default();
        let name = name.as_str();
        let key = state.store.add_api_key(name).await?;
        let created = state
            .store
            .api_keys()
            .await?
            .into_iter()
            .find(|k| k.name == name)
            .map(|k| k.created_at)
            .unwrap_or_else(crate::store::now_secs);
        Ok(Envelope::ok(ApiKeyCreated {
            name: name.to_string(),
            created_time: rfc3339_secs(created),
            key,
        }))
    }

    /// Revokes the API key `name` (read-write administrators): engines using it are refused
    /// from then on. Recorded in the audit log.
    #[oai(
        path = "/apikeys/:name",
        method = "delete",
        operation_id = "revokeApiKey"
    )]
    async fn revoke_key(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        name: Path<String>,
    ) -> Answer<Json<Envelope<bool>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        auth.require(Need::AdminWrite)?;
        state.store.remove_api_key(&name.0).await?;
        Ok(Envelope::ok(true))
    }

    /// Each outbound channel: whether it is configured, where it goes (no secret), the key
    /// that turns it on and what became of its latest message (administrators).
    #[oai(path = "/channels", method = "get", operation_id = "listSiteChannels")]
    async fn channels(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
    ) -> Answer<Json<Envelope<Vec<SiteChannel>>>, { FORBIDDEN | INTERNAL }> {
        auth.require(Need::Admin)?;
        let config = &state.config;
        let n = &config.notify;
        let host = bare_host(req);
        let last = |ids: &[ContactType]| {
            let ids = ids.iter().map(|k| k.id()).collect::<Vec<_>>();
            let store = state.store.clone();
            async move { store.last_delivery(ids).await }
        };
        let security = match n.smtp.security {
            SmtpSecurity::None => "plain",
            SmtpSecurity::Starttls => "STARTTLS",
            SmtpSecurity::Tls => "TLS",
        };
        let jira = config.jira_for_host(Some(&host));
        let sso = crate::sso::tenant_for_host(config, &host).map(|(_, s)| s);
        let webhooks = [
            ContactType::Webhook,
            ContactType::Teams,
            ContactType::Slack,
            ContactType::Mattermost,
        ];
        let channels = vec![
            SiteChannel {
                channel: SiteChannelKind::Email,
                configured: state.notifier.configured(ContactType::Email),
                summary: (!n.smtp.host.trim().is_empty()).then(|| {
                    format!(
                        "{}:{} ({security}), from {}",
                        n.smtp.host, n.smtp.port, n.smtp.from
                    )
                }),
                setting: "notify.smtp.host".into(),
                last: last(&[ContactType::Email]).await?.map(outcome),
            },
            SiteChannel {
                channel: SiteChannelKind::Sms,
                configured: state.notifier.configured(ContactType::Sms),
                summary: gateway_summary(&n.sms),
                setting: "notify.sms.url".into(),
                last: last(&[ContactType::Sms]).await?.map(outcome),
            },
            SiteChannel {
                channel: SiteChannelKind::Voice,
                configured: state.notifier.configured(ContactType::Voice),
                summary: gateway_summary(&n.voice),
                setting: "notify.voice.url".into(),
                last: last(&[ContactType::Voice]).await?.map(outcome),
            },
            SiteChannel {
                channel: SiteChannelKind::Webhook,
                configured: state.notifier.configured(ContactType::Webhook),
                summary: None,
                setting: "notify.webhook.enabled".into(),
                last: last(&webhooks).await?.map(outcome),
            },
            SiteChannel {
                channel: SiteChannelKind::Jira,
                configured: jira.is_some(),
                summary: jira.map(|j| format!("{} ({})", origin(&j.url), j.flavour.as_str())),
                setting: "jira.url".into(),
                last: state.store.last_ticket_job().await?.map(outcome),
            },
            SiteChannel {
                channel: SiteChannelKind::Sso,
                configured: sso.is_some(),
                summary: sso.map(|s| format!("{} (client {})", s.issuer, s.client_id)),
                setting: "tenants.sso.issuer".into(),
                last: None,
            },
        ];
        Ok(Envelope::ok(channels))
    }

    /// Tests a channel (read-write administrators): a real test message to `to` (e-mail: the
    /// caller's username when not given) through the outbox, answered after its first
    /// attempt; for Jira, its projects are asked for; for single sign-on, the provider's
    /// discovery document and keys are fetched afresh. 409 `NOT_CONFIGURED` when the channel
    /// is not configured (nothing is sent or recorded); 502 with the reason when the server
    /// behind it refused or failed.
    #[oai(
        path = "/channels/:channel/test",
        method = "post",
        operation_id = "testSiteChannel"
    )]
    async fn test(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        channel: Path<SiteChannelKind>,
        body: Json<SiteChannelTest>,
    ) -> Answer<
        Json<Envelope<SiteChannelTested>>,
        { BAD_REQUEST | FORBIDDEN | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        let caller = auth.require(Need::AdminWrite)?;
        let to = body.0.to.filter(|t| !t.trim().is_empty());
        let kind = match channel.0 {
            SiteChannelKind::Jira => return Ok(Envelope::ok(test_jira(&state, req).await?)),
            SiteChannelKind::Sso => return Ok(Envelope::ok(test_sso(&state, req).await?)),
            SiteChannelKind::Email => ContactType::Email,
            SiteChannelKind::Sms => ContactType::Sms,
            SiteChannelKind::Voice => ContactType::Voice,
            SiteChannelKind::Webhook => ContactType::Webhook,
        };
        let to = match (kind, to) {
            (_, Some(to)) => to,
            (ContactType::Email, None) => caller.username.clone(),
            (_, None) => {
                let message = match kind {
                    ContactType::Webhook => "Give the URL of a webhook to post the test to.",
                    _ => "Give a number (E.164, +15145550100) to send the test to.",
                };
                return Err(vec![FieldError {
                    field: "to".into(),
                    rule: Rule::Required,
                    message: message.into(),
                }]
                .into());
            }
        };
        if !state.notifier.configured(kind) {
            // Say so before checking the address: nothing can be sent anyway.
            return Err(not_configured(&distributions::not_configured_test(kind)).into());
        }
        let to = dist::check_info("to", kind, &to).map_err(|e| vec![e])?;
        let sent = distributions::send_test(&state, kind, &to).await?;
        Ok(Envelope::ok(SiteChannelTested {
            message: sent.message,
            notification_id: Some(sent.id),
        }))
    }
}

async fn test_jira(state: &AppState, req: &Request) -> ApiResult<SiteChannelTested> {
    let host = bare_host(req);
    let Some(cfg) = state.config.jira_for_host(Some(&host)) else {
        return Err(not_configured(
            "Jira is not configured (jira.url): tickets cannot be opened.",
        ));
    };
    let jira = crate::jira::Jira::new(cfg).map_err(ApiError::internal)?;
    let projects = jira.projects().await.map_err(super::jira::jira_error)?;
    Ok(SiteChannelTested {
        message: format!(
            "Jira answered: the console's account sees {} project(s).",
            projects.len()
        ),
        notification_id: None,
    })
}

async fn test_sso(state: &AppState, req: &Request) -> ApiResult<SiteChannelTested> {
    match state.sso.check(&state.config, &host_of(req)).await {
        Ok(issuer) => Ok(SiteChannelTested {
            message: format!("The identity provider {issuer} answered with its keys."),
            notification_id: None,
        }),
        Err(SsoError::NotConfigured) => Err(not_configured(
            "Single sign-on is not configured for this host (tenants.sso).",
        )),
        Err(e) => Err(ApiError::new(
            ErrorCode::BadGateway,
            vec![e.to_string()],
            Vec::new(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::origin;

    #[test]
    fn an_origin_keeps_no_credentials_path_or_query() {
        assert_eq!(
            origin("https://user:pw@sms.example.com:8443/send?to={number}&key=abc"),
            "https://sms.example.com:8443"
        );
        assert_eq!(origin("http://gw.local/x"), "http://gw.local");
        assert_eq!(origin("gw.local"), "gw.local");
    }
}

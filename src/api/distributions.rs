//! `api/distributions`: distribution lists, the contact groups alert settings send to (spec
//! §2 'Distribution list form', §3, §5, §7 'Distributions'), and `testContact`, which sends
//! a real test message through the outbox. Administrators read them; administrators with
//! read-write access change them and send test messages.

use std::time::Duration;

use chrono::{TimeZone, Utc};
use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::dependents::{named, Dependent};
use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, Envelope, ErrorCode, Listing};
use super::guard::Auth;
use super::lenient::{AtLeastOne, Filter, IntChoices, IntOf, Name, NotBlankUpTo, Required, Text};
use super::params;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::delivery::ReasonCode;
use crate::domain::distribution::{
    self as dist, ContactInput, ContactType, Distribution as DomainDistribution,
    DistributionFilter, DistributionSortField,
};
use crate::domain::notify::NewNotification;
use crate::domain::notify::NotificationState;
use crate::domain::page::Sort;
use crate::domain::rules::{Problems, Rule};

/// Contact type ids (spec §9: Email 1, SMS 2, Voice 4; cxwatch's channels above).
pub struct ContactTypeIds;

impl IntChoices for ContactTypeIds {
    const NAME: &'static str = "integer(contact type)";
    const VALUES: &'static [i64] = &[1, 2, 4, 8, 16, 32, 64];
}

pub struct DistributionsApi;

/// Lists per page when none is given (spec §9: default 10).
const PAGE_SIZE: u32 = 10;

/// A contact type (spec §9): Email 1, SMS 2, Voice 4; cxwatch's webhook channels Webhook 8,
/// Microsoft Teams 16, Slack 32, Mattermost 64.
#[derive(Debug, Object)]
pub struct DistributionType {
    pub id: i64,
    /// `Email`, `SMS`, `Voice`, `Webhook`, `Microsoft Teams`, `Slack` or `Mattermost`.
    pub name: String,
    /// A mail server or gateway is configured for it: without one, notifications of this
    /// type are recorded but not sent.
    pub configured: bool,
}

/// One row of a list.
#[derive(Debug, Object)]
pub struct Contact {
    /// The row's label.
    pub name: String,
    /// Contact type id: 1 Email, 2 SMS, 4 Voice, 8 Webhook, 16 Microsoft Teams, 32 Slack,
    /// 64 Mattermost.
    #[oai(rename = "type")]
    pub kind: i64,
    /// An e-mail address, an E.164 number (`+15145550100`) or a webhook URL.
    pub info: String,
}

/// A distribution list (spec §3): `label`, `type` and `email` repeat the contacts' labels,
/// type names and addresses or numbers, row by row, for the list's columns.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Distribution {
    pub id: i64,
    /// The list's label.
    pub name: String,
    pub label: Vec<String>,
    #[oai(rename = "type")]
    pub kind: Vec<String>,
    pub email: Vec<String>,
    /// RFC 3339, UTC.
    pub last_modified_time: String,
    pub contacts: Vec<Contact>,
}

impl From<DomainDistribution> for Distribution {
    fn from(d: DomainDistribution) -> Self {
        Distribution {
            id: d.id,
            name: d.name,
            label: d.contacts.iter().map(|c| c.name.clone()).collect(),
            kind: d
                .contacts
                .iter()
                .map(|c| c.kind.name().to_string())
                .collect(),
            email: d.contacts.iter().map(|c| c.info.clone()).collect(),
            last_modified_time: Utc
                .timestamp_opt(d.modified_at, 0)
                .single()
                .map(params::time)
                .unwrap_or_default(),
            contacts: d
                .contacts
                .into_iter()
                .map(|c| Contact {
                    name: c.name,
                    kind: c.kind.id(),
                    info: c.info,
                })
                .collect(),
        }
    }
}

/// What uses a distribution list (cxwatch's addition): while any does, deleting it is
/// refused (409 naming them). The list screen asks this before it confirms a delete.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DistributionDependents {
    /// Alert settings that send to it (their contact group): `id` is the setting's.
    pub alert_settings: Vec<Dependent>,
    /// Alert settings that escalate to it.
    pub escalations: Vec<Dependent>,
    /// Reports whose schedule mails it: `id` is the report's.
    pub report_schedules: Vec<Dependent>,
}

impl From<dist::DistributionUses> for DistributionDependents {
    fn from(u: dist::DistributionUses) -> Self {
        DistributionDependents {
            alert_settings: named(u.alert_settings),
            escalations: named(u.escalations),
            report_schedules: named(u.report_schedules),
        }
    }
}

/// A row as a client sends it.
#[derive(Debug, Object)]
pub struct ContactSave {
    /// The row's label: 1 to 100 characters, no control or text-direction characters.
    pub name: Required<Text<Name<{ dist::LABEL_MAX }>>>,
    /// The contact type: 1 Email, 2 SMS, 4 Voice, 8 Webhook, 16 Microsoft Teams, 32 Slack,
    /// 64 Mattermost.
    #[oai(rename = "type")]
    pub kind: Required<IntOf<ContactTypeIds>>,
    /// An e-mail address (Email), an E.164 number (SMS, Voice) or the incoming webhook's
    /// URL (`https://…`; Webhook, Microsoft Teams, Slack, Mattermost).
    pub info: Required<Text<NotBlankUpTo<{ dist::URL_MAX }>>>,
}

/// Body of `POST distributions` and `PUT distributions/{id}`.
#[derive(Debug, Object)]
pub struct DistributionSave {
    /// Ignored on create; on update absent or the id of the path.
    #[oai(nullable)]
    pub id: Option<i64>,
    /// The list's label: 1 to 100 characters, no control or text-direction characters.
    pub name: Required<Text<Name<{ dist::LABEL_MAX }>>>,
    /// 1 to 200 rows.
    pub contacts: Required<AtLeastOne<ContactSave, { dist::CONTACTS_MAX }>>,
}

impl DistributionSave {
    fn draft(&self, p: &mut Problems) -> Option<dist::DistributionDraft> {
        let rows: Vec<ContactInput> = self
            .contacts
            .iter()
            .flat_map(|l| l.iter())
            .map(|c| ContactInput {
                name: c.name.as_deref(),
                kind: c.kind.map(|k| k.0),
                info: c.info.as_deref(),
            })
            .collect();
        dist::check_distribution(p, self.name.as_deref(), &rows)
    }
}

/// What became of a test message.
#[derive(Debug, Object)]
pub struct TestContactResult {
    /// The notification in the outbox (`GET notifications/{id}`).
    pub id: i64,
    /// `sent`.
    pub state: NotificationState,
    /// 'Email has been confirmed.', 'Text/SMS has been confirmed.' or, for a webhook,
    /// '{type} has been confirmed.' (e.g. 'Slack has been confirmed.').
    pub message: String,
}

async fn found(state: &AppState, id: i64) -> ApiResult<DomainDistribution> {
    state
        .store
        .distribution(id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("Distribution list {id} does not exist.")))
}

/// Subject and text of a test message.
fn test_message(state: &AppState, kind: ContactType, to: &str) -> NewNotification {
    let link = state.config.notify.public_url.clone();
    let text = match kind {
        ContactType::Email => format!(
            "This is a test message from cxwatch. Alert notifications sent to {to} will reach you.\n\n{link}"
        ),
        k if k.is_webhook() => {
            "This is a test message from cxwatch: alerts, recoveries and scheduled reports sent to this channel will reach it.".into()
        }
        _ => "cxwatch test message: alert notifications sent to this number will reach you.".into(),
    };
    let html = (kind == ContactType::Email).then(|| {
        let esc = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        };
        let link_html = if link.is_empty() {
            String::new()
        } else {
            format!("<p><a href=\"{0}\">{0}</a></p>", esc(&link))
        };
        format!(
            "<p>This is a test message from <strong>cxwatch</strong>. Alert notifications sent to {} will reach you.</p>{link_html}",
            esc(to)
        )
    });
    let mut vars = std::collections::BTreeMap::new();
    vars.insert("message".into(), text.clone());
    vars.insert("testCase".into(), String::new());
    vars.insert("status".into(), "TEST".into());
    vars.insert("link".into(), link);
    NewNotification {
        key: format!("test-{}", random_key()),
        channel: kind,
        recipient: to.to_string(),
        subject: "cxwatch test message".into(),
        text,
        html,
        vars,
        attachments: Vec::new(),
        cause: "testContact".into(),
    }
}

/// Why a test message cannot be sent: the channel has no server configured.
pub(super) fn not_configured_test(kind: ContactType) -> String {
    match kind {
        ContactType::Email => {
            "No mail server is configured (notify.smtp.host): a test e-mail cannot be sent."
        }
        ContactType::Sms => {
            "No SMS gateway is configured (notify.sms.url): a test SMS cannot be sent."
        }
        ContactType::Voice => {
            "No voice gateway is configured (notify.voice.url): a test call cannot be made."
        }
        _ => "Webhooks are off (notify.webhook.enabled): a test message cannot be sent.",
    }
    .into()
}

/// Sends a real test message of type `kind` to `to` (already checked) through the outbox
/// and waits for its first attempt: the confirmation, or 409 `NOT_CONFIGURED` when the
/// channel has no server (nothing is recorded then), or 502 with the reason it failed.
pub(super) async fn send_test(
    state: &AppState,
    kind: ContactType,
    to: &str,
) -> ApiResult<TestContactResult> {
    // Nothing to send through: say so (409 NOT_CONFIGURED), nothing is recorded.
    if !state.notifier.configured(kind) {
        return Err(ApiError::new(
            ErrorCode::NotConfigured,
            vec![not_configured_test(kind)],
            Vec::new(),
        ));
    }
    let n = test_message(state, kind, to);
    let c = &state.config.notify;
    // The console's own requests give up after 30 s (spec §9): answer before.
    let within = (match kind {
        ContactType::Email => c.smtp.timeout_secs * 3,
        ContactType::Sms => c.sms.timeout_secs,
        ContactType::Voice => c.voice.timeout_secs,
        _ => c.webhook.timeout_secs,
    } + 2)
        .min(25);
    let (id, outcome) = state
        .notifier
        .send_one(&state.store, n, Duration::from_secs(within))
        .await?;
    match outcome {
        Some(o) => match o.failure {
            None => Ok(TestContactResult {
                id,
                state: NotificationState::Sent,
                message: match kind {
                    ContactType::Email => "Email has been confirmed.".into(),
                    k if k.is_webhook() => format!("{} has been confirmed.", k.name()),
                    _ => "Text/SMS has been confirmed.".into(),
                },
            }),
            Some(reason) => {
                let code = ReasonCode::parse(o.code.as_deref().unwrap_or("failed"));
                // A webhook's answer is the target's: neither its body nor whether its port
                // is open is told (the test would scan the network from the server). What
                // cxwatch itself refused is said.
                let (reason, code) = if kind.is_webhook()
                    && !matches!(
                        code,
                        ReasonCode::BlockedHost
                            | ReasonCode::BadAddress
                            | ReasonCode::NotConfigured
                    ) {
                    (
                        format!(
                            "{} did not take the test message: check the URL",
                            kind.name()
                        ),
                        ReasonCode::Failed,
                    )
                } else {
                    (reason, code)
                };
                Err(ApiError::new(
                    ErrorCode::BadGateway,
                    vec![if o.will_retry {
                        format!("{reason} (notification {id}; it will be tried again)")
                    } else {
                        format!("{reason} (notification {id})")
                    }],
                    Vec::new(),
                )
                .with_reason(Some(code.name().to_string()), code.status()))
            }
        },
        None => Err(ApiError::new(
            ErrorCode::BadGateway,
            vec![format!(
                "The test message is still being sent; see notification {id} for its state."
            )],
            Vec::new(),
        )),
    }
}

fn random_key() -> String {
    use rand::RngCore;
    let mut b = [0u8; 12];
    rand::thread_rng().fill_bytes(&mut b);
    hex::encode(b)
}

#[OpenApi(prefix_path = "/distributions", tag = "super::ApiTags::Distributions")]
impl DistributionsApi {
    /// Contact types: Email 1, SMS 2, Voice 4, Webhook 8, Microsoft Teams 16, Slack 32,
    /// Mattermost 64, and whether each can be sent.
    #[oai(
        path = "/types",
        method = "get",
        operation_id = "listDistributionTypes"
    )]
    async fn types(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<Vec<DistributionType>>>, { FORBIDDEN }> {
        auth.require(Need::Admin)?;
        Ok(Envelope::ok(
            ContactType::ALL
                .into_iter()
                .map(|t| DistributionType {
                    id: t.id(),
                    name: t.name().into(),
                    configured: state.notifier.configured(t),
                })
                .collect(),
        ))
    }

    /// Distribution lists, one page at a time (administrators).
    #[oai(path = "/", method = "get", operation_id = "listDistributions")]
    #[allow(clippy::too_many_arguments)]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Lists per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// Part of the list label, a contact label, address or number, without case.
        search: Query<Option<Filter>>,
        /// Only lists with a contact of this type: 1 Email, 2 SMS, 4 Voice, 8 Webhook, 16
        /// Microsoft Teams, 32 Slack, 64 Mattermost.
        #[oai(name = "type")]
        kind: Query<Option<IntOf<ContactTypeIds>>>,
        /// `field,direction`: field `id`, `name` or `lastModifiedTime`, direction `asc` or
        /// `desc` (default `lastModifiedTime,desc`).
        sort: Query<Option<Text<params::DistributionSort>>>,
    ) -> Answer<Json<Envelope<Listing<Distribution>>>, { BAD_REQUEST | FORBIDDEN | INTERNAL }> {
        auth.require(Need::Admin)?;
        let mut p = Problems::default();
        let page = params::listing(
            params::value(page_no.0),
            params::value(page_size.0),
            PAGE_SIZE,
            &mut p,
        );
        let sort = params::sort(
            sort.0.as_deref(),
            DistributionSortField::parse,
            Sort {
                field: DistributionSortField::LastModified,
                descending: true,
            },
            &mut p,
        );
        let kind = kind.0.map(|k| k.0).and_then(|t| {
            ContactType::of_id(t).or_else(|| {
                p.push(
                    "type",
                    Rule::Invalid,
                    format!("type {t} is not {}.", dist::TYPE_CHOICES),
                );
                None
            })
        });
        p.check()?;
        let list = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let page = list.page;
        let filter = DistributionFilter {
            search: search.0.map(Filter::into_string),
            kind,
            sort,
        };
        Ok(Listing::ok(
            list,
            state.store.list_distributions(page, &filter).await?,
        ))
    }

    /// One distribution list with its contacts.
    #[oai(path = "/:id", method = "get", operation_id = "getDistribution")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<Distribution>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        auth.require(Need::Admin)?;
        Ok(Envelope::ok(found(&state, id.0).await?.into()))
    }

    /// Creates a list (administrators with read-write access). The UI then says
    /// ' Distribution has been successfully created'. A name another list has (without
    /// case) is 409, field `name`, rule `taken`.
    #[oai(path = "/", method = "post", operation_id = "createDistribution")]
    async fn create(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        body: Json<DistributionSave>,
    ) -> Answer<Json<Envelope<Distribution>>, { BAD_REQUEST | FORBIDDEN | CONFLICT | INTERNAL }>
    {
        auth.require(Need::AdminWrite)?;
        let mut p = Problems::default();
        let draft = body.draft(&mut p);
        p.check()?;
        let draft = draft.ok_or_else(|| ApiError::bad_request("The list is incomplete."))?;
        let id = state.store.create_distribution(&draft).await?;
        Ok(Envelope::ok(found(&state, id).await?.into()))
    }

    /// Replaces a list's label and contacts (administrators with read-write access). A name
    /// another list has (without case) is 409, field `name`, rule `taken`.
    #[oai(path = "/:id", method = "put", operation_id = "updateDistribution")]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<DistributionSave>,
    ) -> Answer<
        Json<Envelope<Distribution>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL },
    > {
        auth.require(Need::AdminWrite)?;
        let mut p = Problems::default();
        p.same_id(id.0, body.id, "distribution list");
        let draft = body.draft(&mut p);
        p.check()?;
        let draft = draft.ok_or_else(|| ApiError::bad_request("The list is incomplete."))?;
        state.store.update_distribution(id.0, &draft).await?;
        Ok(Envelope::ok(found(&state, id.0).await?.into()))
    }

    /// What uses a list (administrators): the alert settings that send or escalate to it
    /// and the reports scheduled to it. A list that anything uses is not deleted (409).
    #[oai(
        path = "/:id/dependents",
        method = "get",
        operation_id = "getDistributionDependents"
    )]
    async fn dependents(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<DistributionDependents>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        auth.require(Need::Admin)?;
        let uses = state.store.distribution_uses(id.0).await?.ok_or_else(|| {
            ApiError::not_found(format!("Distribution list {} does not exist.", id.0))
        })?;
        Ok(Envelope::ok(uses.into()))
    }

    /// Deletes a list (administrators with read-write access). While an alert setting sends
    /// or escalates to it, or a report is scheduled to it, 409 naming them
    /// (`GET distributions/{id}/dependents` lists them first).
    #[oai(path = "/:id", method = "delete", operation_id = "deleteDistribution")]
    async fn delete(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<bool>>, { FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL }> {
        auth.require(Need::AdminWrite)?;
        state.store.delete_distribution(id.0).await?;
        Ok(Envelope::ok(true))
    }

    /// Sends a real test message to one address or number (administrators with read-write
    /// access): `email`, `sms` or `voice`, exactly one, with an empty body. The message goes
    /// through the outbox; the answer waits for the first attempt: 200 when the mail server
    /// or gateway took it, 502 with its reason when not (it is retried as any notification;
    /// `GET notifications/{id}` tells its state), 502 too when the attempt takes longer.
    /// 409 with code `NOT_CONFIGURED` when the channel has no mail server or gateway
    /// configured: nothing is sent or recorded.
    #[oai(path = "/testContact", method = "post", operation_id = "testContact")]
    #[allow(clippy::too_many_arguments)]
    async fn test_contact(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// An e-mail address to send a test e-mail to.
        email: Query<Option<String>>,
        /// An E.164 number to send a test SMS to.
        sms: Query<Option<String>>,
        /// An E.164 number to call with a test message.
        voice: Query<Option<String>>,
        /// A generic webhook's URL to post a test message to.
        webhook: Query<Option<String>>,
        /// A Microsoft Teams (Workflows) webhook's URL.
        teams: Query<Option<String>>,
        /// A Slack incoming webhook's URL.
        slack: Query<Option<String>>,
        /// A Mattermost incoming webhook's URL.
        mattermost: Query<Option<String>>,
    ) -> Answer<
        Json<Envelope<TestContactResult>>,
        { BAD_REQUEST | FORBIDDEN | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        auth.require(Need::AdminWrite)?;
        let given: Vec<(ContactType, &str, String)> = [
            (ContactType::Email, "email", email.0),
            (ContactType::Sms, "sms", sms.0),
            (ContactType::Voice, "voice", voice.0),
            (ContactType::Webhook, "webhook", webhook.0),
            (ContactType::Teams, "teams", teams.0),
            (ContactType::Slack, "slack", slack.0),
            (ContactType::Mattermost, "mattermost", mattermost.0),
        ]
        .into_iter()
        .filter_map(|(k, f, v)| v.filter(|v| !v.trim().is_empty()).map(|v| (k, f, v)))
        .collect();
        let mut p = Problems::default();
        let [(kind, field, value)] = given.as_slice() else {
            p.push(
                "email",
                Rule::Required,
                "Give exactly one of email, sms, voice, webhook, teams, slack or mattermost.",
            );
            p.check()?;
            return Err(ApiError::bad_request(
                "Give exactly one of email, sms, voice, webhook, teams, slack or mattermost.",
            )
            .into());
        };
        let to = dist::check_info(field, *kind, value).map_err(|e| vec![e])?;
        Ok(Envelope::ok(send_test(&state, *kind, &to).await?))
    }
}

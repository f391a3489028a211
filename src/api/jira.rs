//! `api/jira/v1`: the issue-tracker calls (spec §2 'Ticket dialog', §3 'Ticket', §7
//! 'Issue-tracker calls'). The console talks to the Jira of the request's tenant
//! (`[tenants.jira]`, else `[jira]`) through `crate::jira`; without one every call but
//! `config` answers 409 naming the missing section.
//!
//! A ticket belongs to a report: it is opened for a report of one of the caller's groups
//! (read-write access), its key is then stored on the report, and it is read or changed
//! only by callers who may see that report.

use poem::web::Data;
use poem::Request;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::types::multipart::{JsonField, Upload};
use poem_openapi::{Multipart, Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, Envelope, ErrorCode};
use super::guard::Auth;
use super::lenient::{NotBlank, Text};
use super::params;
use super::AppState;
use crate::config::strip_port;
use crate::domain::caller::{Caller, Need, Visibility};
use crate::domain::ticket;
use crate::jira::{Attachment, IssueDraft, Jira, JiraError};

pub struct JiraApi;

/// Largest ticket form (the `data` part and the CSV file) accepted.
pub const MAX_ISSUE_BODY: usize = 10 * 1024 * 1024;

/// Whether the console has an issue tracker for this host (the UI hides the ticket
/// controls without one).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct JiraSettings {
    pub configured: bool,
    /// `cloud` or `server` (absent when not configured).
    #[oai(skip_serializing_if_is_none)]
    pub flavour: Option<String>,
}

/// A person a ticket can be assigned to or mention.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct JiraUser {
    /// Jira Cloud accountId, or the Jira Server/DC username.
    pub account_id: String,
    /// Display name.
    pub name: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct JiraProject {
    pub key: String,
    pub name: String,
}

/// The `data` part of the ticket form (spec §3 'Ticket').
#[derive(Debug, Object, Clone, Default)]
#[oai(rename_all = "camelCase")]
pub struct IssueData {
    /// Create: the id of the report the ticket is opened for (its key is stored there).
    #[oai(nullable)]
    pub report_id: Option<i64>,
    /// Create, instead of `reportId`: the id of the alert event the ticket is opened for (alert
    /// details; its key is stored on the event as `jiraTicket`).
    #[oai(nullable)]
    pub alert_id: Option<i64>,
    /// Project key (not changed on edit).
    #[oai(nullable)]
    pub project: Option<String>,
    #[oai(nullable)]
    pub summary: Option<String>,
    /// Ignored: the issue type is always Bug.
    #[oai(nullable)]
    pub issue_type: Option<String>,
    /// accountId (Cloud) or username (Server/DC); empty: unassigned.
    #[oai(nullable)]
    pub assignee: Option<String>,
    #[oai(nullable)]
    pub labels: Option<Vec<String>>,
    /// The console user the ticket is made for; not sent to Jira (the console's own
    /// Jira account opens every ticket).
    #[oai(nullable)]
    pub username: Option<String>,
    /// Text; a mention is `@[Display Name](id)`, sent to Jira as an ADF mention (Cloud) or
    /// `[~username]` (Server/DC). A mention with an empty, `null` or `undefined` id is
    /// kept as plain text.
    #[oai(nullable)]
    pub description: Option<String>,
    /// Edit: the status to move the ticket to (one of `issueStatus`).
    #[oai(nullable)]
    pub status: Option<String>,
    /// Edit: whether the ticket was opened by the alert engine.
    #[oai(nullable)]
    pub is_auto_jira_ticket: Option<bool>,
}

impl IssueData {
    pub(super) fn draft(&self) -> IssueDraft {
        let t = |v: &Option<String>| v.as_deref().unwrap_or("").trim().to_string();
        IssueDraft {
            project: t(&self.project),
            summary: t(&self.summary),
            assignee: t(&self.assignee),
            labels: self
                .labels
                .iter()
                .flatten()
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty())
                .collect(),
            description: self.description.clone().unwrap_or_default(),
        }
    }
}

/// `POST` and `PUT api/jira/v1/issue`: a `data` JSON part and an optional CSV `file`.
#[derive(Debug, Multipart)]
pub struct IssueForm {
    pub data: JsonField<IssueData>,
    /// A `.csv` file attached to the ticket.
    pub file: Option<Upload>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct IssueKey {
    pub key: String,
}

/// A ticket as read (spec §3: labels, summary, assigneeId, project, status, description).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct IssueView {
    pub key: String,
    pub labels: Vec<String>,
    pub summary: String,
    /// accountId (Cloud) or username (Server/DC); absent when unassigned.
    #[oai(skip_serializing_if_is_none)]
    pub assignee_id: Option<String>,
    pub project: String,
    pub status: String,
    /// The description, mentions as `@[Display Name](id)`.
    pub description: String,
    /// The report holding the ticket (absent for an alert's ticket).
    #[oai(skip_serializing_if_is_none)]
    pub report_id: Option<i64>,
    /// The alert event holding the ticket (a user's from alert details, or the engine's).
    #[oai(skip_serializing_if_is_none)]
    pub alert_id: Option<i64>,
    /// The auto ticket (`PUT autojiraticket/{id}` edits it) when the alert engine opened
    /// this ticket.
    #[oai(skip_serializing_if_is_none)]
    pub auto_ticket_id: Option<i64>,
}

/// The Jira of the request's tenant, or the 409 naming what to configure.
pub(super) fn jira_of(state: &AppState, req: &Request) -> ApiResult<Jira> {
    let host = req
        .header(poem::http::header::HOST)
        .map(|h| strip_port(h).trim_end_matches('.').to_ascii_lowercase());
    let Some(cfg) = state.config.jira_for_host(host.as_deref()) else {
        return Err(ApiError::conflict(
            "Jira is not configured: set url, flavour, email and token in the [jira] section \
             of the console's configuration (or [tenants.jira] for this tenant).",
        ));
    };
    Jira::new(cfg).map_err(ApiError::internal)
}

/// Jira's refusals as the envelope: its messages, 400 for what Jira finds wrong with the
/// ticket, 404 for a ticket it does not have, 502 for the console's account or an outage.
pub(super) fn jira_error(e: JiraError) -> ApiError {
    match e {
        JiraError::Refused { status, messages } => {
            tracing::warn!(status, ?messages, "Jira refused a call");
            let code = match status {
                400 => ErrorCode::BadRequest,
                404 => ErrorCode::NotFound,
                _ => ErrorCode::BadGateway,
            };
            ApiError::new(code, messages, Vec::new())
        }
        JiraError::Untrusted(why) => {
            tracing::warn!(error = %why, "Jira call failed: Jira's certificate not trusted");
            ApiError::new(
                ErrorCode::BadGateway,
                vec![format!("Jira's {why}")],
                Vec::new(),
            )
        }
        JiraError::Unreachable(why) | JiraError::Unexpected(why) => {
            tracing::warn!(error = %why, "Jira call failed");
            ApiError::new(ErrorCode::BadGateway, vec![why], Vec::new())
        }
    }
}

/// The CSV file of a form, refused unless named `*.csv` (spec §5). Its cells that a
/// spreadsheet would read as formulas get a `'` in front before it goes to Jira
/// (`domain::csv`); a file without such cells goes unchanged.
pub(super) async fn attachment(file: Option<Upload>) -> ApiResult<Option<Attachment>> {
    let Some(file) = file else { return Ok(None) };
    let name = file.file_name().unwrap_or("").to_string();
    if name.is_empty() && file.size() == 0 {
        return Ok(None);
    }
    if !ticket::is_csv_name(&name) {
        return Err(ApiError::bad_request("Please upload a CSV file"));
    }
    let bytes = file
        .into_vec()
        .await
        .map_err(|e| ApiError::bad_request(format!("file: {e}")))?;
    let bytes = match crate::domain::csv::neutralise_upload(&bytes) {
        Ok(std::borrow::Cow::Borrowed(_)) => bytes,
        Ok(std::borrow::Cow::Owned(safe)) => safe,
        Err(e) => {
            return Err(ApiError::bad_request(format!(
                "Please upload a CSV file ({e})"
            )))
        }
    };
    Ok(Some(Attachment {
        file_name: name,
        content_type: "text/csv".into(),
        bytes,
    }))
}

/// The report holding ticket `key`, as the caller may see it.
/// What a ticket was opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ticketed {
    Report(i64),
    Alert(i64),
}

impl std::fmt::Display for Ticketed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ticketed::Report(id) => write!(f, "Report {id}"),
            Ticketed::Alert(id) => write!(f, "Alert {id}"),
        }
    }
}

/// The report or alert event whose ticket is `key`, when the caller may see it.
async fn ticketed(state: &AppState, caller: &Caller, key: &str) -> ApiResult<Ticketed> {
    let scope = caller.scope();
    let report = state.store.report_with_ticket(scope, key).await?;
    if let Visibility::Visible(r) = report {
        return Ok(Ticketed::Report(r.id));
    }
    let v = match state.store.alert_with_ticket(scope, key).await? {
        Visibility::Missing if matches!(report, Visibility::Hidden) => Visibility::Hidden,
        other => other.map(Ticketed::Alert),
    };
    params::visible(v, format_args!("Ticket {key}"))
}

fn issue_id(v: Text<NotBlank>) -> ApiResult<String> {
    let key = v.trim().to_string();
    if key.is_empty() {
        return Err(ApiError::from(vec![crate::domain::rules::FieldError {
            field: "issueId".into(),
            rule: crate::domain::rules::Rule::Required,
            message: "issueId is required".into(),
        }]));
    }
    Ok(key)
}

#[OpenApi(prefix_path = "/jira/v1", tag = "super::ApiTags::Tickets")]
impl JiraApi {
    /// Whether an issue tracker is configured for this host, and which flavour.
    #[oai(path = "/config", method = "get", operation_id = "jiraConfig")]
    async fn config(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
    ) -> Answer<Json<Envelope<JiraSettings>>, { NONE }> {
        auth.require(Need::SignedIn)?;
        let j = jira_of(&state, req).ok();
        Ok(Envelope::ok(JiraSettings {
            configured: j.is_some(),
            flavour: j.map(|j| j.flavour().as_str().to_string()),
        }))
    }

    /// People of the issue tracker whose name matches `username` (all when empty): the
    /// assignee choices and the description's mentions.
    #[oai(path = "/users", method = "get", operation_id = "jiraUsers")]
    async fn users(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        username: Query<Option<String>>,
    ) -> Answer<
        Json<Envelope<Vec<JiraUser>>>,
        { BAD_REQUEST | NOT_FOUND | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        auth.require(Need::SignedIn)?;
        let jira = jira_of(&state, req)?;
        let users = jira
            .users(username.0.as_deref().unwrap_or(""))
            .await
            .map_err(jira_error)?;
        Ok(Envelope::ok(
            users
                .into_iter()
                .map(|u| JiraUser {
                    account_id: u.account_id,
                    name: u.name,
                })
                .collect(),
        ))
    }

    /// The projects the console's Jira account sees. `username` (the console user) is
    /// accepted and not used: the console's own account answers.
    #[oai(path = "/projects", method = "get", operation_id = "jiraProjects")]
    async fn projects(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        #[oai(name = "username")] _username: Query<Option<String>>,
    ) -> Answer<
        Json<Envelope<Vec<JiraProject>>>,
        { BAD_REQUEST | NOT_FOUND | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        auth.require(Need::SignedIn)?;
        let jira = jira_of(&state, req)?;
        let list = jira.projects().await.map_err(jira_error)?;
        Ok(Envelope::ok(
            list.into_iter()
                .map(|p| JiraProject {
                    key: p.key,
                    name: p.name,
                })
                .collect(),
        ))
    }

    /// The names of the issue statuses (the edit mode's status choices). `username` is
    /// accepted and not used.
    #[oai(
        path = "/issueStatus",
        method = "get",
        operation_id = "jiraIssueStatuses"
    )]
    async fn statuses(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        #[oai(name = "username")] _username: Query<Option<String>>,
    ) -> Answer<
        Json<Envelope<Vec<String>>>,
        { BAD_REQUEST | NOT_FOUND | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        auth.require(Need::SignedIn)?;
        let jira = jira_of(&state, req)?;
        Ok(Envelope::ok(jira.statuses().await.map_err(jira_error)?))
    }

    /// Opens a Bug for a report of one of the caller's groups (read-write access), attaches
    /// the CSV file when one is given, and stores the key on the report. 409 when the report
    /// already has a ticket.
    #[oai(path = "/issue", method = "post", operation_id = "createJiraIssue")]
    async fn create(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        form: IssueForm,
    ) -> Answer<
        Json<Envelope<IssueKey>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        let caller = auth.require(Need::Write)?;
        let data = form.data.0;
        let target = match (data.report_id, data.alert_id) {
            (Some(id), _) => Ticketed::Report(id),
            (None, Some(id)) => Ticketed::Alert(id),
            (None, None) => {
                return Err(ApiError::from(vec![crate::domain::rules::FieldError {
                    field: "reportId".into(),
                    rule: crate::domain::rules::Rule::Required,
                    message: "reportId or alertId is required".into(),
                }])
                .into())
            }
        };
        let file = attachment(form.file).await?;
        let jira = jira_of(&state, req)?;
        let scope = caller.scope();
        let existing = match target {
            Ticketed::Report(id) => {
                let v = state.store.report(scope, id).await?;
                params::visible(v, format_args!("Report {id}"))?.jira_ticket
            }
            Ticketed::Alert(id) => {
                let v = state.store.alert_event(scope, id).await?;
                params::visible(v, format_args!("Alert {id}"))?
                    .event
                    .jira_ticket
            }
        };
        if let Some(k) = existing {
            return Err(ApiError::conflict(format!("{target} already has ticket {k}.")).into());
        }
        let key = jira.create_issue(&data.draft()).await.map_err(jira_error)?;
        let stored = match target {
            Ticketed::Report(id) => state.store.set_report_ticket(scope, id, &key).await?,
            Ticketed::Alert(id) => state.store.set_alert_ticket(scope, id, &key).await?,
        };
        params::visible(stored, format_args!("{target}"))?;
        if let Some(f) = file {
            jira.attach(&key, &f).await.map_err(jira_error)?;
        }
        Ok(Envelope::ok(IssueKey { key }))
    }

    /// Changes the ticket `issueId` of a report the caller may change: summary, assignee,
    /// labels, description, then the status; attaches the CSV file when one is given.
    #[oai(path = "/issue", method = "put", operation_id = "updateJiraIssue")]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        #[oai(name = "username")] _username: Query<Option<String>>,
        #[oai(name = "issueId")] issue: Query<Text<NotBlank>>,
        form: IssueForm,
    ) -> Answer<
        Json<Envelope<IssueKey>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        let caller = auth.require(Need::Write)?;
        let key = issue_id(issue.0)?;
        let data = form.data.0;
        let file = attachment(form.file).await?;
        let jira = jira_of(&state, req)?;
        ticketed(&state, caller, &key).await?;
        jira.update_issue(&key, &data.draft(), data.status.as_deref())
            .await
            .map_err(jira_error)?;
        if let Some(f) = file {
            jira.attach(&key, &f).await.map_err(jira_error)?;
        }
        Ok(Envelope::ok(IssueKey { key }))
    }

    /// Reads the ticket `issueId` of a report the caller may see, or of an auto ticket of
    /// the caller's groups.
    #[oai(path = "/issue", method = "get", operation_id = "getJiraIssue")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        #[oai(name = "username")] _username: Query<Option<String>>,
        #[oai(name = "issueId")] issue: Query<Text<NotBlank>>,
    ) -> Answer<
        Json<Envelope<IssueView>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        let caller = auth.require(Need::SignedIn)?;
        let key = issue_id(issue.0)?;
        let jira = jira_of(&state, req)?;
        // A report's ticket, or an alert's (a user's from alert details, or the engine's).
        let (report_id, alert_id) = match ticketed(&state, caller, &key).await? {
            Ticketed::Report(id) => (Some(id), None),
            Ticketed::Alert(id) => (None, Some(id)),
        };
        let auto_ticket_id = match alert_id {
            Some(_) => state
                .store
                .auto_ticket_with_key(caller.scope(), &key)
                .await?
                .map(|t| t.id),
            None => None,
        };
        let i = jira.issue(&key).await.map_err(jira_error)?;
        Ok(Envelope::ok(IssueView {
            key: i.key,
            labels: i.labels,
            summary: i.summary,
            assignee_id: i.assignee_id,
            project: i.project,
            status: i.status,
            description: i.description,
            report_id,
            alert_id,
            auto_ticket_id,
        }))
    }
}

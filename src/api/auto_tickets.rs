//! Auto tickets (spec §2 'Auto tickets list', §3 'Auto ticket', §7 'Alerts'): the Jira
//! issues the alert engine opened for a setting's events (`store::auto_tickets`,
//! `notify::tickets`). `GET api/alerts/autojiraticket/{alertSettingId}` lists them newest
//! first, for a setting of one of the caller's groups; `PUT api/autojiraticket/{id}` edits
//! the ticket in Jira (the ticket form of `api/jira/v1/issue`) and stores the new
//! description on the alert.

use poem::web::Data;
use poem::Request;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope, Listing};
use super::guard::Auth;
use super::jira::{attachment, jira_error, jira_of, IssueForm, IssueKey};
use super::params;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::rules::Problems;
use crate::store::auto_tickets::{AutoTicket as DomainTicket, WaitingTicket};

pub struct AutoTicketsApi;

const PAGE_SIZE: u32 = 10;

/// A ticket the alert engine opened (spec §3 'Auto ticket').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AutoTicket {
    pub id: i64,
    pub alert_setting_id: i64,
    /// The alert event the ticket is for.
    pub alert_id: i64,
    pub testcase_id: i64,
    pub jira_ticket: String,
    /// The event's run ids, comma-separated, oldest first.
    pub run_ids: String,
    /// When the event opened, RFC 3339 UTC.
    pub alert_time: String,
}

impl From<DomainTicket> for AutoTicket {
    fn from(t: DomainTicket) -> Self {
        AutoTicket {
            id: t.id,
            alert_setting_id: t.alert_setting_id,
            alert_id: t.event_id,
            testcase_id: t.testcase_id,
            jira_ticket: t.jira_ticket,
            run_ids: t.run_ids,
            alert_time: params::time(
                chrono::DateTime::from_timestamp_millis(t.alert_ms).unwrap_or_default(),
            ),
        }
    }
}

/// A ticket the alert engine has not opened yet (cxwatch's): the attempts Jira
/// refused or did not answer, the last reason, and when it is tried again.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct WaitingAutoTicket {
    /// The ticket job.
    pub id: i64,
    pub alert_setting_id: i64,
    /// The alert event the ticket is for.
    pub alert_id: i64,
    pub testcase_id: i64,
    /// When the event opened, RFC 3339 UTC.
    pub alert_time: String,
    /// Attempts made so far (0: not tried yet, e.g. no Jira configured).
    pub attempts: u32,
    /// Why the last attempt failed: Jira's messages, or why Jira was not reached.
    #[oai(skip_serializing_if_is_none)]
    pub reason: Option<String>,
    /// When the next attempt is due, RFC 3339 UTC.
    pub next_attempt: String,
    /// The project and assignee the ticket will be opened with.
    pub project: String,
    pub assignee: String,
}

fn utc(ms: i64) -> String {
    params::time(chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default())
}

impl From<WaitingTicket> for WaitingAutoTicket {
    fn from(w: WaitingTicket) -> Self {
        WaitingAutoTicket {
            id: w.id,
            alert_setting_id: w.setting_id,
            alert_id: w.event_id,
            testcase_id: w.testcase_id,
            alert_time: utc(w.alert_ms),
            attempts: w.attempts,
            reason: w.reason,
            next_attempt: utc(w.next_ms),
            project: w.project,
            assignee: w.assignee,
        }
    }
}

#[OpenApi(tag = "super::ApiTags::Tickets")]
impl AutoTicketsApi {
    /// The tickets the engine opened for alert setting `alertSettingId` (of one of the
    /// caller's groups), newest first.
    #[oai(
        path = "/alerts/autojiraticket/:alertSettingId",
        method = "get",
        operation_id = "listAutoTickets"
    )]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        #[oai(name = "alertSettingId")] setting: Path<i64>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Tickets per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
    ) -> Answer<
        Json<Envelope<Listing<AutoTicket>>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL },
    > {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let page = params::listing(
            params::value(page_no.0),
            params::value(page_size.0),
            PAGE_SIZE,
            &mut p,
        );
        p.check()?;
        let list = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let page = list.page;
        let v = state.store.alert_setting(caller.scope(), setting.0).await?;
        params::visible(v, format_args!("Alert setting {}", setting.0))?;
        Ok(Listing::ok(
            list,
            state
                .store
                .list_auto_tickets(caller.scope(), setting.0, page)
                .await?,
        ))
    }

    /// The tickets of alert setting `alertSettingId` (of one of the caller's groups) the
    /// engine has not opened yet, newest event first (at most 100): each with its attempts,
    /// the reason the last one failed, and when it is tried again.
    #[oai(
        path = "/alerts/autojiraticket/:alertSettingId/waiting",
        method = "get",
        operation_id = "listWaitingAutoTickets"
    )]
    async fn waiting(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        #[oai(name = "alertSettingId")] setting: Path<i64>,
    ) -> Answer<Json<Envelope<Vec<WaitingAutoTicket>>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let v = state.store.alert_setting(caller.scope(), setting.0).await?;
        params::visible(v, format_args!("Alert setting {}", setting.0))?;
        let list = state
            .store
            .waiting_tickets(caller.scope(), setting.0)
            .await?;
        Ok(Envelope::ok(
            list.into_iter().map(WaitingAutoTicket::from).collect(),
        ))
    }

    /// Edits auto ticket `id` (of one of the caller's groups, read-write access) in Jira:
    /// summary, assignee, labels, description, then the status, and the CSV file when one
    /// is given; the description is then stored on the alert.
    #[oai(
        path = "/autojiraticket/:id",
        method = "put",
        operation_id = "updateAutoTicket"
    )]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        id: Path<i64>,
        form: IssueForm,
    ) -> Answer<
        Json<Envelope<IssueKey>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        let caller = auth.require(Need::Write)?;
        let data = form.data.0;
        let file = attachment(form.file).await?;
        let jira = jira_of(&state, req)?;
        let Some(t) = state.store.auto_ticket(caller.scope(), id.0).await? else {
            return Err(
                ApiError::not_found(format!("Auto ticket {} does not exist.", id.0)).into(),
            );
        };
        let key = t.jira_ticket;
        jira.update_issue(&key, &data.draft(), data.status.as_deref())
            .await
            .map_err(jira_error)?;
        if let Some(f) = file {
            jira.attach(&key, &f).await.map_err(jira_error)?;
        }
        state
            .store
            .set_auto_ticket_description(
                caller.scope(),
                id.0,
                data.description.clone().unwrap_or_default(),
            )
            .await?;
        Ok(Envelope::ok(IssueKey { key }))
    }
}

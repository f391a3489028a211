//! `api/audit`: the audit log, read-only (records cannot be changed or deleted through the
//! API; old ones go by `audit.retention_days`). Read-write administrators only.

use poem::web::Data;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope, Page};
use super::guard::Auth;
use super::lenient::{Filter, Text};
use super::params;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::rules::{Problems, Rule};
use crate::store::audit::{AuditFilter, AuditRecord};

/// Records per page unless `pageSize` says otherwise.
const AUDIT_PAGE_SIZE: u32 = 50;

/// One change: who, when, from where, what, before and after (never passwords or tokens).
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: i64,
    /// When, RFC 3339 UTC.
    pub at: String,
    /// The user who made it; absent for the command line and for anonymous calls.
    #[oai(skip_serializing_if_is_none)]
    pub user_id: Option<i64>,
    /// Their username, `cli:<system user>` for the command line, or `anonymous`.
    pub username: String,
    /// The client's IP address (`local` for the command line).
    pub address: String,
    /// What was changed: `user`, `group`, `api_key`, `session`, …
    pub kind: String,
    /// `create`, `update`, `delete`, `password`, `profile`, `sign_in`, `sign_out`, …
    pub action: String,
    /// The id or name of what was changed.
    pub target: String,
    /// The values before (absent for a creation).
    #[oai(nullable)]
    pub before: Option<serde_json::Value>,
    /// The values after (absent for a deletion).
    #[oai(nullable)]
    pub after: Option<serde_json::Value>,
}

impl From<AuditRecord> for AuditEntry {
    fn from(r: AuditRecord) -> Self {
        AuditEntry {
            id: r.id,
            at: chrono::DateTime::from_timestamp(r.at, 0)
                .unwrap_or_default()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            user_id: r.user_id,
            username: r.username,
            address: r.address,
            kind: r.kind,
            action: r.action,
            target: r.target,
            before: r.before,
            after: r.after,
        }
    }
}

fn instant(field: &str, v: Option<String>, p: &mut Problems) -> Option<i64> {
    let v = v.filter(|v| !v.is_empty())?;
    match chrono::DateTime::parse_from_rfc3339(&v) {
        Ok(t) => Some(t.timestamp()),
        Err(_) => {
            p.push(
                field,
                Rule::Invalid,
                format!("{field} {v:?} is not an RFC 3339 time (2026-11-23T05:00:00Z)."),
            );
            None
        }
    }
}

pub struct AuditApi;

#[OpenApi(tag = "super::ApiTags::Audit")]
impl AuditApi {
    /// The audit log, newest first, paged: filtered by user id, kind, action, text and time
    /// (`from` inclusive, `to` exclusive, RFC 3339). Read-write administrators only.
    #[oai(path = "/audit", method = "get", operation_id = "listAudit")]
    #[allow(clippy::too_many_arguments)]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Records per page, 1 to 1000 (default 50).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// Only changes made by this user id.
        #[oai(name = "userId")]
        user_id: Query<Option<i64>>,
        /// Only this kind: `user`, `group`, `api_key`, `session`, …
        kind: Query<Option<Filter>>,
        /// Only this action: `create`, `update`, `delete`, `sign_in`, …
        action: Query<Option<Filter>>,
        /// Text found, without case, in the username, address, kind, action, target or the
        /// values before or after (cxwatch's site page).
        search: Query<Option<Filter>>,
        /// From this time on (RFC 3339, inclusive).
        from: Query<Option<params::Instant>>,
        /// Before this time (RFC 3339, exclusive).
        to: Query<Option<params::Instant>>,
    ) -> Answer<Json<Envelope<Page<AuditEntry>>>, { BAD_REQUEST | FORBIDDEN | INTERNAL }> {
        auth.require(Need::AdminWrite)?;
        let mut p = Problems::default();
        let page = params::paging(
            params::value(page_no.0),
            params::value(page_size.0),
            AUDIT_PAGE_SIZE,
            &mut p,
        );
        let filter = AuditFilter {
            user_id: user_id.0,
            kind: kind.0.map(Filter::into_string).filter(|k| !k.is_empty()),
            action: action.0.map(Filter::into_string).filter(|a| !a.is_empty()),
            search: search
                .0
                .map(Filter::into_string)
                .filter(|s| !s.trim().is_empty()),
            from: instant("from", from.0.map(Text::into_string), &mut p),
            to: instant("to", to.0.map(Text::into_string), &mut p),
        };
        p.check()?;
        let page = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        Ok(Page::ok(state.store.list_audit(page, filter).await?))
    }
}

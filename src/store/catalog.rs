//! The catalog: channels, IVR applications, test cases, test case groups, which groups a
//! restricted user sees, and the alert-status lookup. Test cases and IVR applications are
//! written by ingest (`store::runs`); groups by the console.

use std::collections::BTreeMap;

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::{now_secs, FieldConflict, Sqlite, StoreError, StoreResult};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::page::{Page, PageRequest, Sort};
use crate::domain::rules::{FieldError, Rule};
use crate::domain::run::Channel;

/// Longest group name accepted.
pub const MAX_NAME: usize = 200;

#[async_trait]
pub trait CatalogStore {
    /// Groups the scope may see, ordered by name, with their test case and IVR counts.
    async fn list_groups(&self, scope: Scope) -> StoreResult<Vec<GroupSummary>>;
    /// One page of the groups the scope may see whose name contains `filter.search`
    /// (any case) or whose id is it, in `filter.sort` order, and how many match.
    async fn page_groups(
        &self,
        scope: Scope,
        filter: GroupFilter,
        page: PageRequest,
    ) -> StoreResult<Page<GroupSummary>>;
    /// One group with its test cases, when it exists and the scope may see it.
    async fn group(&self, scope: Scope, id: i64) -> StoreResult<Visibility<GroupDetail>>;
    /// Creates a group of existing test cases of its channel (a `testCases` problem when
    /// one does not exist or is of another channel); returns it as stored.
    async fn create_group(&self, draft: &GroupDraft) -> StoreResult<GroupDetail>;
    /// Renames a group and replaces its channel and test cases; returns it as stored.
    async fn update_group(&self, id: i64, draft: &GroupDraft) -> StoreResult<GroupDetail>;
    /// Deletes a group (its assignments to users go with it; test cases and runs stay).
    async fn delete_group(&self, id: i64) -> StoreResult<()>;
    /// Deletes the groups `ids` (the settings list's delete), each audited, in one
    /// transaction: when one does not exist, none is deleted (a not-found naming it).
    async fn delete_groups(&self, ids: Vec<i64>) -> StoreResult<()>;
    /// IVR applications with their test cases; a restricted scope sees only the test cases
    /// of its groups (and only IVR applications that have any).
    async fn ivrs(&self, scope: Scope) -> StoreResult<Vec<Ivr>>;
    /// The alert-status lookup (spec §3): pass 3, warning 4, failure 7.
    async fn alert_statuses(&self) -> StoreResult<Vec<AlertStatus>>;
}

#[async_trait]
impl CatalogStore for Sqlite {
    async fn list_groups(&self, scope: Scope) -> StoreResult<Vec<GroupSummary>> {
        self.read(move |c| list_groups(c, scope)).await
    }
    async fn page_groups(
        &self,
        scope: Scope,
        filter: GroupFilter,
        page: PageRequest,
    ) -> StoreResult<Page<GroupSummary>> {
        self.read(move |c| page_groups(c, scope, &filter, page))
            .await
    }
    async fn group(&self, scope: Scope, id: i64) -> StoreResult<Visibility<GroupDetail>> {
        self.read(move |c| {
            Ok(match group_visibility(c, scope, id)? {
                Visibility::Visible(()) => match group(c, id)? {
                    Some(g) => Visibility::Visible(g),
                    None => Visibility::Missing,
                },
                Visibility::Hidden => Visibility::Hidden,
                Visibility::Missing => Visibility::Missing,
            })
        })
        .await
    }
    async fn create_group(&self, draft: &GroupDraft) -> StoreResult<GroupDetail> {
        let d = draft.clone();
        self.write(move |tx| {
            let id = create_group(tx, &d)?;
            super::audit::record(
                tx,
                "group",
                "create",
                id,
                None,
                super::audit::group(tx, id)?,
            )?;
            group(tx, id)?
                .ok_or_else(|| StoreError::NotFound(format!("Group {id} does not exist.")))
        })
        .await
    }
    async fn update_group(&self, id: i64, draft: &GroupDraft) -> StoreResult<GroupDetail> {
        let d = draft.clone();
        self.write(move |tx| {
            let before = super::audit::group(tx, id)?;
            update_group(tx, id, &d)?;
            let after = super::audit::group(tx, id)?;
            super::audit::record(tx, "group", "update", id, before, after)?;
            group(tx, id)?
                .ok_or_else(|| StoreError::NotFound(format!("Group {id} does not exist.")))
        })
        .await
    }
    async fn delete_group(&self, id: i64) -> StoreResult<()> {
        self.delete_groups(vec![id]).await
    }
    async fn delete_groups(&self, ids: Vec<i64>) -> StoreResult<()> {
        self.write(move |tx| {
            for id in ids {
                let before = super::audit::group(tx, id)?;
                delete_group(tx, id)?;
                super::audit::record(tx, "group", "delete", id, before, None)?;
            }
            Ok(())
        })
        .await
    }
    async fn ivrs(&self, scope: Scope) -> StoreResult<Vec<Ivr>> {
        self.read(move |c| ivrs(c, scope)).await
    }
    async fn alert_statuses(&self) -> StoreResult<Vec<AlertStatus>> {
        self.read(alert_statuses).await
    }
}

/// Columns the group list sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupSortField {
    Id,
    Name,
    CaseCount,
}

impl GroupSortField {
    pub fn parse(s: &str) -> Option<GroupSortField> {
        match s {
            "id" => Some(GroupSortField::Id),
            "name" => Some(GroupSortField::Name),
            "caseCount" => Some(GroupSortField::CaseCount),
            _ => None,
        }
    }
}

/// Which groups the settings list shows, and in what order.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupFilter {
    /// Trimmed, lowercase; `None` for all.
    pub search: Option<String>,
    pub sort: Sort<GroupSortField>,
}

/// A checked group as an administrator saves it (the name rules are the API's).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupDraft {
    pub name: String,
    pub channel: Channel,
    pub test_case_ids: Vec<i64>,
}

/// One group with its test cases (ordered by name).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupDetail {
    pub group: GroupSummary,
    pub test_cases: Vec<CaseRef>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GroupSummary {
    pub id: i64,
    pub name: String,
    pub channel: Channel,
    pub case_count: i64,
    pub ivr_count: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CaseRef {
    pub id: i64,
    pub ivr_id: i64,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ivr {
    pub id: i64,
    pub name: String,
    pub channel: Channel,
    pub test_cases: Vec<CaseRef>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AlertStatus {
    pub id: i64,
    pub code: String,
    pub text: String,
    pub status_group: String,
    pub support_channel: String,
}

pub(super) fn channel_of(s: &str) -> rusqlite::Result<Channel> {
    Channel::parse(s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("unknown channel {s:?}").into(),
        )
    })
}

fn cases_problem(message: String) -> StoreError {
    StoreError::Field(
        FieldConflict::Invalid,
        FieldError {
            field: "testCases".into(),
            rule: Rule::Invalid,
            message,
        },
    )
}

/// The data rules of a group: its test cases exist and are of its channel.
fn check_cases(tx: &Transaction, channel: Channel, ids: &[i64]) -> StoreResult<()> {
    let mut stmt = tx.prepare_cached("SELECT channel FROM test_cases WHERE id = ?1")?;
    for &id in ids {
        let found: Option<String> = stmt.query_row([id], |r| r.get(0)).optional()?;
        match found {
            None => return Err(cases_problem(format!("Test case {id} does not exist."))),
            Some(c) if c != channel.as_str() => {
                return Err(cases_problem(format!(
                    "Test case {id} is a {c} test case; the group's channel is {}.",
                    channel.as_str()
                )))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn set_group_cases(tx: &Transaction, group_id: i64, ids: &[i64]) -> StoreResult<()> {
    tx.execute("DELETE FROM group_cases WHERE group_id = ?1", [group_id])?;
    let mut ins = tx.prepare_cached(
        "INSERT OR IGNORE INTO group_cases (group_id, test_case_id) VALUES (?1, ?2)",
    )?;
    for &id in ids {
        ins.execute(params![group_id, id])?;
    }
    Ok(())
}

fn create_group(tx: &Transaction, d: &GroupDraft) -> StoreResult<i64> {
    check_cases(tx, d.channel, &d.test_case_ids)?;
    let now = now_secs();
    tx.execute(
        "INSERT INTO test_case_groups (name, channel, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
        params![d.name.trim(), d.channel.as_str(), now],
    )?;
    let id = tx.last_insert_rowid();
    set_group_cases(tx, id, &d.test_case_ids)?;
    Ok(id)
}

fn update_group(tx: &Transaction, id: i64, d: &GroupDraft) -> StoreResult<()> {
    let n = tx.execute(
        "UPDATE test_case_groups SET name = ?2, channel = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, d.name.trim(), d.channel.as_str(), now_secs()],
    )?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("Group {id} does not exist.")));
    }
    check_cases(tx, d.channel, &d.test_case_ids)?;
    set_group_cases(tx, id, &d.test_case_ids)
}

fn delete_group(tx: &Transaction, id: i64) -> StoreResult<()> {
    let n = tx.execute("DELETE FROM test_case_groups WHERE id = ?1", [id])?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("Group {id} does not exist.")));
    }
    Ok(())
}

/// Groups the scope may see, ordered by name, with their test case and IVR counts.
fn list_groups(conn: &Connection, scope: Scope) -> StoreResult<Vec<GroupSummary>> {
    let user = match scope {
        Scope::All => None,
        Scope::User(u) => Some(u),
    };
    let mut stmt = conn.prepare_cached(
        "SELECT g.id, g.name, g.channel,
                (SELECT count(*) FROM group_cases gc WHERE gc.group_id = g.id),
                (SELECT count(DISTINCT tc.ivr_id) FROM group_cases gc
                   JOIN test_cases tc ON tc.id = gc.test_case_id WHERE gc.group_id = g.id)
           FROM test_case_groups g
          WHERE ?1 IS NULL
             OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = ?1)
          ORDER BY g.name COLLATE NOCASE, g.id",
    )?;
    let rows = stmt
        .query_map([user], |r| {
            Ok(GroupSummary {
                id: r.get(0)?,
                name: r.get(1)?,
                channel: channel_of(&r.get::<_, String>(2)?)?,
                case_count: r.get(3)?,
                ivr_count: r.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// One page of the groups the scope may see, filtered and sorted, with the total.
fn page_groups(
    conn: &Connection,
    scope: Scope,
    f: &GroupFilter,
    page: PageRequest,
) -> StoreResult<Page<GroupSummary>> {
    let user = match scope {
        Scope::All => None,
        Scope::User(u) => Some(u),
    };
    let search = f.search.as_deref().map(str::to_lowercase);
    const WHERE: &str =
        "(?1 IS NULL OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = ?1))
        AND (?2 IS NULL OR instr(lower(g.name), ?2) > 0 OR CAST(g.id AS TEXT) = ?2)";
    let total: i64 = conn
        .prepare_cached(&format!(
            "SELECT count(*) FROM test_case_groups g WHERE {WHERE}"
        ))?
        .query_row(params![user, search], |r| r.get(0))?;
    let dir = if f.sort.descending { "DESC" } else { "ASC" };
    let order = match f.sort.field {
        GroupSortField::Id => format!("g.id {dir}"),
        GroupSortField::Name => format!("g.name COLLATE NOCASE {dir}, g.id {dir}"),
        GroupSortField::CaseCount => format!("case_count {dir}, g.id {dir}"),
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT g.id, g.name, g.channel,
                (SELECT count(*) FROM group_cases gc WHERE gc.group_id = g.id) AS case_count,
                (SELECT count(DISTINCT tc.ivr_id) FROM group_cases gc
                   JOIN test_cases tc ON tc.id = gc.test_case_id WHERE gc.group_id = g.id)
           FROM test_case_groups g
          WHERE {WHERE}
          ORDER BY {order}
          LIMIT ?3 OFFSET ?4"
    ))?;
    let items = stmt
        .query_map(params![user, search, page.size, page.offset()], |r| {
            Ok(GroupSummary {
                id: r.get(0)?,
                name: r.get(1)?,
                channel: channel_of(&r.get::<_, String>(2)?)?,
                case_count: r.get(3)?,
                ivr_count: r.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(Page {
        items,
        total: total.max(0) as u64,
    })
}

/// One group with its test cases (ordered by name), or `None`.
fn group(conn: &Connection, id: i64) -> StoreResult<Option<GroupDetail>> {
    let head = conn
        .query_row(
            "SELECT id, name, channel FROM test_case_groups WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    channel_of(&r.get::<_, String>(2)?)?,
                ))
            },
        )
        .optional()?;
    let Some((id, name, channel)) = head else {
        return Ok(None);
    };
    let cases = group_cases(conn, id)?;
    let mut ivrs: Vec<i64> = cases.iter().map(|c| c.ivr_id).collect();
    ivrs.sort_unstable();
    ivrs.dedup();
    Ok(Some(GroupDetail {
        group: GroupSummary {
            id,
            name,
            channel,
            case_count: cases.len() as i64,
            ivr_count: ivrs.len() as i64,
        },
        test_cases: cases,
    }))
}

/// The test cases of a group, ordered by name.
fn group_cases(conn: &Connection, group_id: i64) -> StoreResult<Vec<CaseRef>> {
    let mut stmt = conn.prepare_cached(
        "SELECT tc.id, tc.ivr_id, tc.name FROM group_cases gc
           JOIN test_cases tc ON tc.id = gc.test_case_id
          WHERE gc.group_id = ?1 ORDER BY tc.name COLLATE NOCASE, tc.id",
    )?;
    let rows = stmt
        .query_map([group_id], |r| {
            Ok(CaseRef {
                id: r.get(0)?,
                ivr_id: r.get(1)?,
                name: r.get(2)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// Does group `id` exist, and may the scope see it?
pub(super) fn group_visibility(
    conn: &Connection,
    scope: Scope,
    id: i64,
) -> StoreResult<Visibility<()>> {
    let exists: Option<i64> = conn
        .prepare_cached("SELECT id FROM test_case_groups WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    if exists.is_none() {
        return Ok(Visibility::Missing);
    }
    let Scope::User(user) = scope else {
        return Ok(Visibility::Visible(()));
    };
    let assigned: Option<i64> = conn
        .prepare_cached("SELECT 1 FROM user_groups WHERE user_id = ?1 AND group_id = ?2")?
        .query_row(params![user, id], |r| r.get(0))
        .optional()?;
    Ok(if assigned.is_some() {
        Visibility::Visible(())
    } else {
        Visibility::Hidden
    })
}

/// Does test case `id` exist, and may the scope see it (is it in one of the user's groups)?
pub(super) fn case_visibility(
    conn: &Connection,
    scope: Scope,
    id: i64,
) -> StoreResult<Visibility<()>> {
    let exists: Option<i64> = conn
        .prepare_cached("SELECT id FROM test_cases WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    if exists.is_none() {
        return Ok(Visibility::Missing);
    }
    let Scope::User(user) = scope else {
        return Ok(Visibility::Visible(()));
    };
    Ok(if case_visible(conn, user, id)? {
        Visibility::Visible(())
    } else {
        Visibility::Hidden
    })
}

/// True when test case `case_id` is in a group assigned to `user`.
fn case_visible(conn: &Connection, user: i64, case_id: i64) -> StoreResult<bool> {
    let found: Option<i64> = conn
        .prepare_cached(
            "SELECT 1 FROM group_cases gc JOIN user_groups ug ON ug.group_id = gc.group_id
              WHERE gc.test_case_id = ?1 AND ug.user_id = ?2 LIMIT 1",
        )?
        .query_row(params![case_id, user], |r| r.get(0))
        .optional()?;
    Ok(found.is_some())
}

/// IVR applications with their test cases; a restricted scope sees only the test cases of
/// its groups (and only IVR applications that have any).
fn ivrs(conn: &Connection, scope: Scope) -> StoreResult<Vec<Ivr>> {
    let user = match scope {
        Scope::All => None,
        Scope::User(u) => Some(u),
    };
    let mut apps: BTreeMap<i64, Ivr> = BTreeMap::new();
    {
        let mut stmt = conn.prepare_cached("SELECT id, name, channel FROM ivr_apps")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            apps.insert(
                id,
                Ivr {
                    id,
                    name: r.get(1)?,
                    channel: channel_of(&r.get::<_, String>(2)?)?,
                    test_cases: Vec::new(),
                },
            );
        }
    }
    let mut stmt = conn.prepare_cached(
        "SELECT tc.id, tc.ivr_id, tc.name FROM test_cases tc
          WHERE ?1 IS NULL OR tc.id IN (
                SELECT gc.test_case_id FROM group_cases gc
                  JOIN user_groups ug ON ug.group_id = gc.group_id WHERE ug.user_id = ?1)
          ORDER BY tc.name COLLATE NOCASE, tc.id",
    )?;
    let mut rows = stmt.query([user])?;
    while let Some(r) = rows.next()? {
        let case = CaseRef {
            id: r.get(0)?,
            ivr_id: r.get(1)?,
            name: r.get(2)?,
        };
        if let Some(app) = apps.get_mut(&case.ivr_id) {
            app.test_cases.push(case);
        }
    }
    Ok(ivrs_by_name(apps, user))
}

/// The applications in name order; for a user (`Some`), only those with a test case the
/// user sees.
pub(crate) fn ivrs_by_name(apps: BTreeMap<i64, Ivr>, user: Option<i64>) -> Vec<Ivr> {
    let mut out: Vec<Ivr> = apps
        .into_values()
        .filter(|a| user.is_none() || !a.test_cases.is_empty())
        .collect();
    out.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then(a.id.cmp(&b.id))
    });
    out
}

/// The alert-status lookup (spec §3): pass 3, warning 4, failure 7.
fn alert_statuses(conn: &Connection) -> StoreResult<Vec<AlertStatus>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, code, text, status_group, support_channel FROM alert_statuses ORDER BY id",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(AlertStatus {
                id: r.get(0)?,
                code: r.get(1)?,
                text: r.get(2)?,
                status_group: r.get(3)?,
                support_channel: r.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// Status id to its text ('Pass', 'Warning', 'Failure').
pub(super) fn status_texts(conn: &Connection) -> StoreResult<BTreeMap<i64, String>> {
    Ok(alert_statuses(conn)?
        .into_iter()
        .map(|s| (s.id, s.text))
        .collect())
}

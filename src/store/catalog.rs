//! The catalog: channels, IVR applications, test cases, test case groups, which groups a
//! restricted user sees, and the alert-status lookup. Test cases and IVR applications are
//! written by ingest (`store::runs`); groups by the console.

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::auth::Session;
use super::{now_secs, StoreError, StoreResult};
use crate::domain::run::Channel;

/// Longest group name accepted.
pub const MAX_NAME: usize = 200;

/// What a caller may see: everything, or the groups assigned to one restricted user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    All,
    User(i64),
}

impl Scope {
    /// A session whose first role is ROLE_USER sees only its assigned groups.
    pub fn of(session: &Session) -> Scope {
        if session.is_restricted() {
            Scope::User(session.user_id)
        } else {
            Scope::All
        }
    }
}

/// The answer to "may this caller see that item?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Granted,
    Forbidden,
    NotFound,
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

pub(crate) fn channel_of(s: &str) -> rusqlite::Result<Channel> {
    Channel::parse(s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("unknown channel {s:?}").into(),
        )
    })
}

fn check_group(tx: &Transaction, name: &str, channel: Channel, ids: &[i64]) -> StoreResult<()> {
    let name = name.trim();
    if name.is_empty() {
        return Err(StoreError::Invalid("A group needs a name.".into()));
    }
    if name.chars().count() > MAX_NAME {
        return Err(StoreError::Invalid(format!(
            "A group name may have at most {MAX_NAME} characters."
        )));
    }
    if ids.is_empty() {
        return Err(StoreError::Invalid(
            "A group needs at least one test case.".into(),
        ));
    }
    let mut stmt = tx.prepare_cached("SELECT channel FROM test_cases WHERE id = ?1")?;
    for &id in ids {
        let found: Option<String> = stmt.query_row([id], |r| r.get(0)).optional()?;
        match found {
            None => {
                return Err(StoreError::Invalid(format!(
                    "Test case {id} does not exist."
                )))
            }
            Some(c) if c != channel.as_str() => {
                return Err(StoreError::Invalid(format!(
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

/// Creates a test case group of existing test cases of `channel`; returns its id.
pub fn create_group(
    tx: &Transaction,
    name: &str,
    channel: Channel,
    test_case_ids: &[i64],
) -> StoreResult<i64> {
    check_group(tx, name, channel, test_case_ids)?;
    let now = now_secs();
    tx.execute(
        "INSERT INTO test_case_groups (name, channel, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
        params![name.trim(), channel.as_str(), now],
    )?;
    let id = tx.last_insert_rowid();
    set_group_cases(tx, id, test_case_ids)?;
    Ok(id)
}

/// Renames a group and replaces its channel and test cases.
pub fn update_group(
    tx: &Transaction,
    id: i64,
    name: &str,
    channel: Channel,
    test_case_ids: &[i64],
) -> StoreResult<()> {
    check_group(tx, name, channel, test_case_ids)?;
    let n = tx.execute(
        "UPDATE test_case_groups SET name = ?2, channel = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, name.trim(), channel.as_str(), now_secs()],
    )?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("Group {id} does not exist.")));
    }
    set_group_cases(tx, id, test_case_ids)
}

/// Deletes a group (and its assignments to users).
pub fn delete_group(tx: &Transaction, id: i64) -> StoreResult<()> {
    let n = tx.execute("DELETE FROM test_case_groups WHERE id = ?1", [id])?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("Group {id} does not exist.")));
    }
    Ok(())
}

/// Sets the groups a user is assigned to (replacing earlier assignments). Only users whose
/// first role is ROLE_USER are limited by them.
pub fn assign_groups_to_user(tx: &Transaction, user_id: i64, group_ids: &[i64]) -> StoreResult<()> {
    let exists: Option<i64> = tx
        .query_row("SELECT id FROM users WHERE id = ?1", [user_id], |r| {
            r.get(0)
        })
        .optional()?;
    if exists.is_none() {
        return Err(StoreError::NotFound(format!(
            "User {user_id} does not exist."
        )));
    }
    tx.execute("DELETE FROM user_groups WHERE user_id = ?1", [user_id])?;
    let mut check = tx.prepare_cached("SELECT id FROM test_case_groups WHERE id = ?1")?;
    let mut ins =
        tx.prepare_cached("INSERT OR IGNORE INTO user_groups (user_id, group_id) VALUES (?1, ?2)")?;
    for &g in group_ids {
        if check
            .query_row([g], |r| r.get::<_, i64>(0))
            .optional()?
            .is_none()
        {
            return Err(StoreError::Invalid(format!("Group {g} does not exist.")));
        }
        ins.execute(params![user_id, g])?;
    }
    Ok(())
}

/// Ids of the groups assigned to a user.
pub fn user_group_ids(conn: &Connection, user_id: i64) -> StoreResult<Vec<i64>> {
    let mut stmt =
        conn.prepare_cached("SELECT group_id FROM user_groups WHERE user_id = ?1 ORDER BY 1")?;
    let ids = stmt
        .query_map([user_id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

/// Groups the scope may see, ordered by name, with their test case and IVR counts.
pub fn list_groups(conn: &Connection, scope: Scope) -> StoreResult<Vec<GroupSummary>> {
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

/// One group with its test cases (ordered by name), or `None`.
pub fn group(conn: &Connection, id: i64) -> StoreResult<Option<(GroupSummary, Vec<CaseRef>)>> {
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
    Ok(Some((
        GroupSummary {
            id,
            name,
            channel,
            case_count: cases.len() as i64,
            ivr_count: ivrs.len() as i64,
        },
        cases,
    )))
}

/// The test cases of a group, ordered by name.
pub fn group_cases(conn: &Connection, group_id: i64) -> StoreResult<Vec<CaseRef>> {
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

/// May the scope see group `id`?
pub fn group_access(conn: &Connection, scope: Scope, id: i64) -> StoreResult<Access> {
    let exists: Option<i64> = conn
        .prepare_cached("SELECT id FROM test_case_groups WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    if exists.is_none() {
        return Ok(Access::NotFound);
    }
    let Scope::User(user) = scope else {
        return Ok(Access::Granted);
    };
    let assigned: Option<i64> = conn
        .prepare_cached("SELECT 1 FROM user_groups WHERE user_id = ?1 AND group_id = ?2")?
        .query_row(params![user, id], |r| r.get(0))
        .optional()?;
    Ok(if assigned.is_some() {
        Access::Granted
    } else {
        Access::Forbidden
    })
}

/// May the scope see test case `id` (is it in one of the user's groups)?
pub fn case_access(conn: &Connection, scope: Scope, id: i64) -> StoreResult<Access> {
    let exists: Option<i64> = conn
        .prepare_cached("SELECT id FROM test_cases WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    if exists.is_none() {
        return Ok(Access::NotFound);
    }
    let Scope::User(user) = scope else {
        return Ok(Access::Granted);
    };
    Ok(if case_visible(conn, user, id)? {
        Access::Granted
    } else {
        Access::Forbidden
    })
}

/// True when test case `case_id` is in a group assigned to `user`.
pub(crate) fn case_visible(conn: &Connection, user: i64, case_id: i64) -> StoreResult<bool> {
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
pub fn ivrs(conn: &Connection, scope: Scope) -> StoreResult<Vec<Ivr>> {
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
    Ok(out)
}

/// The alert-status lookup (spec §3): pass 3, warning 4, failure 7.
pub fn alert_statuses(conn: &Connection) -> StoreResult<Vec<AlertStatus>> {
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
pub fn status_texts(conn: &Connection) -> StoreResult<BTreeMap<i64, String>> {
    Ok(alert_statuses(conn)?
        .into_iter()
        .map(|s| (s.id, s.text))
        .collect())
}

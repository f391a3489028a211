//! The last minutes of every group (the dashboard's status strip): how many of the group's
//! runs passed, warned and failed in a short window ending now. The window is minutes, not
//! hours, so it reads the runs themselves through `test_runs_case_time` (a covering index:
//! one range per test case), never the hourly rollups.

use async_trait::async_trait;
use rusqlite::Connection;

use super::catalog::channel_of;
use super::{Sqlite, StoreResult};
use crate::domain::caller::Scope;
use crate::domain::run::{Channel, RunType};

/// One group's runs in the window.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupRecent {
    pub id: i64,
    pub name: String,
    pub channel: Channel,
    pub pass: i64,
    pub warn: i64,
    /// Failed and stopped runs.
    pub fail: i64,
    /// Time of the latest run in the window (ms since the epoch, UTC).
    pub last_run_ms: Option<i64>,
}

/// What to count: runs with `from_ms <= run_time < to_ms`, of one run type or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecentQuery {
    pub from_ms: i64,
    pub to_ms: i64,
    pub run_type: Option<RunType>,
}

#[async_trait]
pub trait RecentStore {
    /// Every group the scope sees, by name, with its runs in the window (zeros for none).
    async fn recent_status(&self, scope: Scope, q: RecentQuery) -> StoreResult<Vec<GroupRecent>>;
}

#[async_trait]
impl RecentStore for Sqlite {
    async fn recent_status(&self, scope: Scope, q: RecentQuery) -> StoreResult<Vec<GroupRecent>> {
        self.read(move |c| recent(c, scope, q)).await
    }
}

fn recent(conn: &Connection, scope: Scope, q: RecentQuery) -> StoreResult<Vec<GroupRecent>> {
    let user = match scope {
        Scope::All => None,
        Scope::User(u) => Some(u),
    };
    let (lo, hi) = q
        .run_type
        .map_or((0, 1), |t| (i64::from(t.code()), i64::from(t.code())));
    let mut stmt = conn.prepare_cached(
        "SELECT g.id, g.name, g.channel,
                coalesce(sum(r.status = 0), 0), coalesce(sum(r.status = 1), 0),
                coalesce(sum(r.status >= 2), 0), max(r.run_time)
           FROM test_case_groups g
           LEFT JOIN group_cases gc ON gc.group_id = g.id
           LEFT JOIN test_runs r ON r.test_case_id = gc.test_case_id
                AND r.run_time >= ?2 AND r.run_time < ?3 AND r.run_type BETWEEN ?4 AND ?5
          WHERE ?1 IS NULL
             OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = ?1)
          GROUP BY g.id
          ORDER BY g.name COLLATE NOCASE, g.id",
    )?;
    let rows = stmt
        .query_map(rusqlite::params![user, q.from_ms, q.to_ms, lo, hi], |r| {
            Ok(GroupRecent {
                id: r.get(0)?,
                name: r.get(1)?,
                channel: channel_of(&r.get::<_, String>(2)?)?,
                pass: r.get(3)?,
                warn: r.get(4)?,
                fail: r.get(5)?,
                last_run_ms: r.get(6)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

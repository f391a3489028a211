//! PostgreSQL: [`CatalogStore`](crate::store::CatalogStore), and the visibility checks
//! other PostgreSQL modules make (`group_visibility`, `case_visibility`, `status_texts`).
//!
//! Names sort as SQLite's `COLLATE NOCASE` does (ASCII letters folded, then byte order):
//! [`nocase`] wraps a column so, whatever the database's collation.

use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use deadpool_postgres::GenericClient;

use super::{audit, Postgres};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::page::{Page, PageRequest};
use crate::domain::rules::{FieldError, Rule};
use crate::domain::run::Channel;
use crate::store::catalog::*;
use crate::store::CatalogStore;
use crate::store::{now_secs, FieldConflict, StoreError, StoreResult};

/// `nocase("g.name")` is the SQL of SQLite's `g.name COLLATE NOCASE`: ASCII letters
/// lowered (`lower` under the "C" collation folds only those) and compared bytewise.
pub(crate) fn nocase(column: &str) -> String {
    format!("lower({column} COLLATE \"C\")")
}

/// The user of a restricted scope, `None` for all.
pub(crate) fn scope_user(scope: Scope) -> Option<i64> {
    match scope {
        Scope::All => None,
        Scope::User(u) => Some(u),
    }
}

/// A stored channel name.
pub(crate) fn channel(s: &str) -> StoreResult<Channel> {
    Channel::parse(s).ok_or_else(|| StoreError::Invalid(format!("unknown channel {s:?}")))
}

/// Does group `id` exist, and may the scope see it? One round trip.
pub(crate) async fn group_visibility(
    c: &impl GenericClient,
    scope: Scope,
    id: i64,
) -> StoreResult<Visibility<()>> {
    let stmt = c
        .prepare_cached(
            "SELECT $2::BIGINT IS NULL
                    OR EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = $2 AND ug.group_id = g.id)
               FROM test_case_groups g WHERE g.id = $1",
        )
        .await?;
    Ok(
        match c.query_opt(&stmt, &[&id, &scope_user(scope)]).await? {
            None => Visibility::Missing,
            Some(r) if r.get::<_, bool>(0) => Visibility::Visible(()),
            Some(_) => Visibility::Hidden,
        },
    )
}

/// Does test case `id` exist, and may the scope see it (is it in one of the user's groups)?
pub(crate) async fn case_visibility(
    c: &impl GenericClient,
    scope: Scope,
    id: i64,
) -> StoreResult<Visibility<()>> {
    let stmt = c
        .prepare_cached(
            "SELECT $2::BIGINT IS NULL
                    OR EXISTS (SELECT 1 FROM group_cases gc
                                 JOIN user_groups ug ON ug.group_id = gc.group_id
                                WHERE gc.test_case_id = tc.id AND ug.user_id = $2)
               FROM test_cases tc WHERE tc.id = $1",
        )
        .await?;
    Ok(
        match c.query_opt(&stmt, &[&id, &scope_user(scope)]).await? {
            None => Visibility::Missing,
            Some(r) if r.get::<_, bool>(0) => Visibility::Visible(()),
            Some(_) => Visibility::Hidden,
        },
    )
}

/// Status id to its text ('Pass', 'Warning', 'Failure').
pub(crate) async fn status_texts(c: &impl GenericClient) -> StoreResult<BTreeMap<i64, String>> {
    Ok(alert_statuses(c)
        .await?
        .into_iter()
        .map(|s| (s.id, s.text))
        .collect())
}

async fn alert_statuses(c: &impl GenericClient) -> StoreResult<Vec<AlertStatus>> {
    let stmt = c
        .prepare_cached(
            "SELECT id, code, text, status_group, support_channel FROM alert_statuses ORDER BY id",
        )
        .await?;
    Ok(c.query(&stmt, &[])
        .await?
        .iter()
        .map(|r| AlertStatus {
            id: r.get(0),
            code: r.get(1),
            text: r.get(2),
            status_group: r.get(3),
            support_channel: r.get(4),
        })
        .collect())
}

fn summary(r: &tokio_postgres::Row) -> StoreResult<GroupSummary> {
    Ok(GroupSummary {
        id: r.get(0),
        name: r.get(1),
        channel: channel(r.get(2))?,
        case_count: r.get(3),
        ivr_count: r.get(4),
    })
}

/// The columns of a [`GroupSummary`] of `test_case_groups g`.
const SUMMARY: &str = "g.id, g.name, g.channel,
    (SELECT count(*) FROM group_cases gc WHERE gc.group_id = g.id) AS case_count,
    (SELECT count(DISTINCT tc.ivr_id) FROM group_cases gc
       JOIN test_cases tc ON tc.id = gc.test_case_id WHERE gc.group_id = g.id)";

/// The test cases of a group, ordered by name.
async fn group_cases(c: &impl GenericClient, group_id: i64) -> StoreResult<Vec<CaseRef>> {
    let stmt = c
        .prepare_cached(&format!(
            "SELECT tc.id, tc.ivr_id, tc.name FROM group_cases gc
               JOIN test_cases tc ON tc.id = gc.test_case_id
              WHERE gc.group_id = $1 ORDER BY {}, tc.id",
            nocase("tc.name")
        ))
        .await?;
    Ok(c.query(&stmt, &[&group_id])
        .await?
        .iter()
        .map(|r| CaseRef {
            id: r.get(0),
            ivr_id: r.get(1),
            name: r.get(2),
        })
        .collect())
}

/// One group with its test cases (ordered by name), or `None`.
async fn group(c: &impl GenericClient, id: i64) -> StoreResult<Option<GroupDetail>> {
    let Some(head) = c
        .query_opt(
            "SELECT id, name, channel FROM test_case_groups WHERE id = $1",
            &[&id],
        )
        .await?
    else {
        return Ok(None);
    };
    let cases = group_cases(c, id).await?;
    let mut ivrs: Vec<i64> = cases.iter().map(|c| c.ivr_id).collect();
    ivrs.sort_unstable();
    ivrs.dedup();
    Ok(Some(GroupDetail {
        group: GroupSummary {
            id: head.get(0),
            name: head.get(1),
            channel: channel(head.get(2))?,
            case_count: cases.len() as i64,
            ivr_count: ivrs.len() as i64,
        },
        test_cases: cases,
    }))
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

/// The data rules of a group: its test cases exist and are of its channel (the first
/// offending id, in the draft's order, is named).
async fn check_cases(c: &impl GenericClient, channel: Channel, ids: &[i64]) -> StoreResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let found: HashMap<i64, String> = c
        .query(
            "SELECT id, channel FROM test_cases WHERE id = ANY($1)",
            &[&ids],
        )
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for &id in ids {
        match found.get(&id) {
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

async fn set_group_cases(c: &impl GenericClient, group_id: i64, ids: &[i64]) -> StoreResult<()> {
    c.execute("DELETE FROM group_cases WHERE group_id = $1", &[&group_id])
        .await?;
    if !ids.is_empty() {
        c.execute(
            "INSERT INTO group_cases (group_id, test_case_id)
             SELECT $1, unnest($2::BIGINT[]) ON CONFLICT DO NOTHING",
            &[&group_id, &ids],
        )
        .await?;
    }
    Ok(())
}

fn missing(id: i64) -> StoreError {
    StoreError::NotFound(format!("Group {id} does not exist."))
}

#[async_trait]
impl CatalogStore for Postgres {
    async fn list_groups(&self, scope: Scope) -> StoreResult<Vec<GroupSummary>> {
        let c = self.client().await?;
        let stmt = c
            .prepare_cached(&format!(
                "SELECT {SUMMARY} FROM test_case_groups g
                  WHERE $1::BIGINT IS NULL
                     OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = $1)
                  ORDER BY {}, g.id",
                nocase("g.name")
            ))
            .await?;
        c.query(&stmt, &[&scope_user(scope)])
            .await?
            .iter()
            .map(summary)
            .collect()
    }

    async fn page_groups(
        &self,
        scope: Scope,
        filter: GroupFilter,
        page: PageRequest,
    ) -> StoreResult<Page<GroupSummary>> {
        let c = self.client().await?;
        let user = scope_user(scope);
        let search = filter.search.as_deref().map(str::to_lowercase);
        let wher = format!(
            "($1::BIGINT IS NULL OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = $1))
             AND ($2::TEXT IS NULL OR strpos({}, $2) > 0 OR g.id::TEXT = $2)",
            nocase("g.name")
        );
        let total: i64 = c
            .query_one(
                &format!("SELECT count(*) FROM test_case_groups g WHERE {wher}"),
                &[&user, &search],
            )
            .await?
            .get(0);
        let dir = if filter.sort.descending {
            "DESC"
        } else {
            "ASC"
        };
        let order = match filter.sort.field {
            GroupSortField::Id => format!("g.id {dir}"),
            GroupSortField::Name => format!("{} {dir}, g.id {dir}", nocase("g.name")),
            GroupSortField::CaseCount => format!("case_count {dir}, g.id {dir}"),
        };
        let items = c
            .query(
                &format!(
                    "SELECT {SUMMARY} FROM test_case_groups g WHERE {wher}
                      ORDER BY {order} LIMIT $3 OFFSET $4"
                ),
                &[
                    &user,
                    &search,
                    &i64::from(page.size),
                    &(page.offset() as i64),
                ],
            )
            .await?
            .iter()
            .map(summary)
            .collect::<StoreResult<_>>()?;
        Ok(Page {
            items,
            total: total.max(0) as u64,
        })
    }

    async fn group(&self, scope: Scope, id: i64) -> StoreResult<Visibility<GroupDetail>> {
        let c = self.client().await?;
        Ok(match group_visibility(&c, scope, id).await? {
            Visibility::Visible(()) => match group(&c, id).await? {
                Some(g) => Visibility::Visible(g),
                None => Visibility::Missing,
            },
            Visibility::Hidden => Visibility::Hidden,
            Visibility::Missing => Visibility::Missing,
        })
    }

    async fn create_group(&self, draft: &GroupDraft) -> StoreResult<GroupDetail> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        check_cases(&tx, draft.channel, &draft.test_case_ids).await?;
        let id: i64 = tx
            .query_one(
                "INSERT INTO test_case_groups (name, channel, created_at, updated_at)
                 VALUES ($1, $2, $3, $3) RETURNING id",
                &[&draft.name.trim(), &draft.channel.as_str(), &now_secs()],
            )
            .await?
            .get(0);
        set_group_cases(&tx, id, &draft.test_case_ids).await?;
        let after = audit::group(&tx, id).await?;
        audit::record(&tx, "group", "create", id, None, after).await?;
        let g = group(&tx, id).await?.ok_or_else(|| missing(id))?;
        tx.commit().await?;
        Ok(g)
    }

    async fn update_group(&self, id: i64, draft: &GroupDraft) -> StoreResult<GroupDetail> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let before = audit::group(&tx, id).await?;
        let n = tx
            .execute(
                "UPDATE test_case_groups SET name = $2, channel = $3, updated_at = $4 WHERE id = $1",
                &[&id, &draft.name.trim(), &draft.channel.as_str(), &now_secs()],
            )
            .await?;
        if n == 0 {
            return Err(missing(id));
        }
        check_cases(&tx, draft.channel, &draft.test_case_ids).await?;
        set_group_cases(&tx, id, &draft.test_case_ids).await?;
        let after = audit::group(&tx, id).await?;
        audit::record(&tx, "group", "update", id, before, after).await?;
        let g = group(&tx, id).await?.ok_or_else(|| missing(id))?;
        tx.commit().await?;
        Ok(g)
    }

    async fn delete_group(&self, id: i64) -> StoreResult<()> {
        self.delete_groups(vec![id]).await
    }

    async fn delete_groups(&self, ids: Vec<i64>) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        for id in ids {
            let before = audit::group(&tx, id).await?;
            let n = tx
                .execute("DELETE FROM test_case_groups WHERE id = $1", &[&id])
                .await?;
            if n == 0 {
                return Err(missing(id));
            }
            audit::record(&tx, "group", "delete", id, before, None).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn ivrs(&self, scope: Scope) -> StoreResult<Vec<Ivr>> {
        let c = self.client().await?;
        let user = scope_user(scope);
        let mut apps: BTreeMap<i64, Ivr> = BTreeMap::new();
        for r in c
            .query("SELECT id, name, channel FROM ivr_apps", &[])
            .await?
        {
            let id: i64 = r.get(0);
            apps.insert(
                id,
                Ivr {
                    id,
                    name: r.get(1),
                    channel: channel(r.get(2))?,
                    test_cases: Vec::new(),
                },
            );
        }
        let stmt = c
            .prepare_cached(&format!(
                "SELECT tc.id, tc.ivr_id, tc.name FROM test_cases tc
                  WHERE $1::BIGINT IS NULL OR tc.id IN (
                        SELECT gc.test_case_id FROM group_cases gc
                          JOIN user_groups ug ON ug.group_id = gc.group_id WHERE ug.user_id = $1)
                  ORDER BY {}, tc.id",
                nocase("tc.name")
            ))
            .await?;
        for r in c.query(&stmt, &[&user]).await? {
            let case = CaseRef {
                id: r.get(0),
                ivr_id: r.get(1),
                name: r.get(2),
            };
            if let Some(app) = apps.get_mut(&case.ivr_id) {
                app.test_cases.push(case);
            }
        }
        Ok(ivrs_by_name(apps, user))
    }

    async fn alert_statuses(&self) -> StoreResult<Vec<AlertStatus>> {
        let c = self.client().await?;
        alert_statuses(&c).await
    }
}

//! The catalog: channels, IVR applications, test cases, test case groups, which groups a
//! restricted user sees, and the alert-status lookup. Test cases and IVR applications are
//! written by ingest (`store::runs`); groups by the console. The visibility checks here
//! ([`group_visibility`], [`case_visibility`]) serve every resource of both backends.

use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;

use super::audit;
use super::sql::{self, Exec, Row, SqlStore};
use super::{now_secs, or_name_taken, FieldConflict, StoreError, StoreResult};
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
    /// IVR applications with their test cases; a restricted scope sees only the test cases
    /// of its groups (and only IVR applications that have any).
    async fn ivrs(&self, scope: Scope) -> StoreResult<Vec<Ivr>>;
    /// The alert-status lookup (spec §3): pass 3, warning 4, failure 7.
    async fn alert_statuses(&self) -> StoreResult<Vec<AlertStatus>>;
}

#[async_trait]
impl<S: SqlStore> CatalogStore for S {
    async fn list_groups(&self, scope: Scope) -> StoreResult<Vec<GroupSummary>> {
        sql::read!(self, |c| {
            let sql = format!(
                "SELECT {SUMMARY} FROM test_case_groups g
                  WHERE CAST($1 AS BIGINT) IS NULL
                     OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = $1)
                  ORDER BY {}, g.id",
                c.nocase("g.name")
            );
            c.query(&sql, &[&scope.user()])
                .await?
                .iter()
                .map(summary)
                .collect()
        })
    }

    async fn page_groups(
        &self,
        scope: Scope,
        filter: GroupFilter,
        page: PageRequest,
    ) -> StoreResult<Page<GroupSummary>> {
        let user = scope.user();
        let search = filter.search.as_deref().map(str::to_lowercase);
        let pattern = search.as_deref().map(super::contains);
        let dir = sql::dir(filter.sort.descending);
        sql::read!(self, |c| {
            let wher = format!(
                "(CAST($1 AS BIGINT) IS NULL
                  OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = $1))
                 AND (CAST($2 AS TEXT) IS NULL OR {} LIKE $3 ESCAPE '\\'
                      OR CAST(g.id AS TEXT) = $2)",
                c.fold("g.name")
            );
            let total: i64 = c
                .scalar(
                    &format!("SELECT count(*) FROM test_case_groups g WHERE {wher}"),
                    &[&user, &search, &pattern],
                )
                .await?;
            let order = match filter.sort.field {
                GroupSortField::Id => format!("g.id {dir}"),
                GroupSortField::Name => format!("{} {dir}, g.id {dir}", c.nocase("g.name")),
                GroupSortField::CaseCount => format!("case_count {dir}, g.id {dir}"),
            };
            let items = c
                .query(
                    &format!(
                        "SELECT {SUMMARY} FROM test_case_groups g WHERE {wher}
                          ORDER BY {order} LIMIT $4 OFFSET $5"
                    ),
                    &[
                        &user,
                        &search,
                        &pattern,
                        &page.size,
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
        })
    }

    async fn group(&self, scope: Scope, id: i64) -> StoreResult<Visibility<GroupDetail>> {
        sql::read!(self, |c| {
            if let Err(unseen) = group_visibility(c, scope, id).await?.visible() {
                return Ok(unseen);
            }
            Ok(group(c, id)
                .await?
                .map_or(Visibility::Missing, Visibility::Visible))
        })
    }

    async fn create_group(&self, draft: &GroupDraft) -> StoreResult<GroupDetail> {
        sql::write!(self, [d = draft.clone()], |c| {
            check_cases(c, d.channel, &d.test_case_ids).await?;
            let name = d.name.trim();
            let id: i64 = or_name_taken(
                c.scalar(
                    "INSERT INTO test_case_groups (name, channel, created_at, updated_at)
                     VALUES ($1, $2, $3, $3) RETURNING id",
                    &[&name, &d.channel.as_str(), &now_secs()],
                )
                .await,
                "test case group",
                name,
            )?;
            set_group_cases(c, id, &d.test_case_ids).await?;
            let after = audit::group(c, id).await?;
            audit::record(c, "group", "create", id, None, after).await?;
            group(c, id).await?.ok_or_else(|| missing(id))
        })
    }

    async fn update_group(&self, id: i64, draft: &GroupDraft) -> StoreResult<GroupDetail> {
        sql::write!(self, [d = draft.clone()], |c| {
            let before = audit::group(c, id).await?;
            let name = d.name.trim();
            let n = or_name_taken(
                c.execute(
                    "UPDATE test_case_groups SET name = $2, channel = $3, updated_at = $4
                      WHERE id = $1",
                    &[&id, &name, &d.channel.as_str(), &now_secs()],
                )
                .await,
                "test case group",
                name,
            )?;
            if n == 0 {
                return Err(missing(id));
            }
            check_cases(c, d.channel, &d.test_case_ids).await?;
            set_group_cases(c, id, &d.test_case_ids).await?;
            let after = audit::group(c, id).await?;
            audit::record(c, "group", "update", id, before, after).await?;
            group(c, id).await?.ok_or_else(|| missing(id))
        })
    }

    async fn ivrs(&self, scope: Scope) -> StoreResult<Vec<Ivr>> {
        let user = scope.user();
        sql::read!(self, |c| {
            let mut apps: BTreeMap<i64, Ivr> = BTreeMap::new();
            for r in c
                .query("SELECT id, name, channel FROM ivr_apps", &[])
                .await?
            {
                let id: i64 = r.col("id")?;
                apps.insert(
                    id,
                    Ivr {
                        id,
                        name: r.col("name")?,
                        channel: channel(&r.col::<String>("channel")?)?,
                        test_cases: Vec::new(),
                    },
                );
            }
            let sql = format!(
                "SELECT tc.id, tc.ivr_id, tc.name FROM test_cases tc
                  WHERE CAST($1 AS BIGINT) IS NULL OR tc.id IN (
                        SELECT gc.test_case_id FROM group_cases gc
                          JOIN user_groups ug ON ug.group_id = gc.group_id WHERE ug.user_id = $1)
                  ORDER BY {}, tc.id",
                c.nocase("tc.name")
            );
            for r in c.query(&sql, &[&user]).await? {
                let case = case_ref(&r)?;
                if let Some(app) = apps.get_mut(&case.ivr_id) {
                    app.test_cases.push(case);
                }
            }
            Ok(ivrs_by_name(apps, user))
        })
    }

    async fn alert_statuses(&self) -> StoreResult<Vec<AlertStatus>> {
        sql::read!(self, |c| alert_statuses(c).await)
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

pub use crate::domain::alert_setting::AlertStatus;

/// A stored channel name.
pub(crate) fn channel(s: &str) -> StoreResult<Channel> {
    Channel::parse(s).ok_or_else(|| StoreError::Invalid(format!("unknown channel {s:?}")))
}

/// The columns of a [`GroupSummary`] of `test_case_groups g`.
const SUMMARY: &str = "g.id, g.name, g.channel,
    (SELECT count(*) FROM group_cases gc WHERE gc.group_id = g.id) AS case_count,
    (SELECT count(DISTINCT tc.ivr_id) FROM group_cases gc
       JOIN test_cases tc ON tc.id = gc.test_case_id WHERE gc.group_id = g.id) AS ivr_count";

fn summary(r: &Row) -> StoreResult<GroupSummary> {
    Ok(GroupSummary {
        id: r.col("id")?,
        name: r.col("name")?,
        channel: channel(&r.col::<String>("channel")?)?,
        case_count: r.col("case_count")?,
        ivr_count: r.col("ivr_count")?,
    })
}

fn case_ref(r: &Row) -> StoreResult<CaseRef> {
    Ok(CaseRef {
        id: r.col("id")?,
        ivr_id: r.col("ivr_id")?,
        name: r.col("name")?,
    })
}

fn missing(id: i64) -> StoreError {
    StoreError::NotFound(format!("Group {id} does not exist."))
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
async fn check_cases(c: &impl Exec, channel: Channel, ids: &[i64]) -> StoreResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let params: Vec<&dyn sql::Param> = ids.iter().map(|id| id as _).collect();
    let found: HashMap<i64, String> = c
        .query(
            &format!(
                "SELECT id, channel FROM test_cases WHERE id IN ({})",
                sql::placeholders(1, ids.len())
            ),
            &params,
        )
        .await?
        .iter()
        .map(|r| Ok((r.col("id")?, r.col("channel")?)))
        .collect::<StoreResult<_>>()?;
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

async fn set_group_cases(c: &impl Exec, group_id: i64, ids: &[i64]) -> StoreResult<()> {
    c.execute("DELETE FROM group_cases WHERE group_id = $1", &[&group_id])
        .await?;
    for id in ids {
        c.execute(
            "INSERT INTO group_cases (group_id, test_case_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING",
            &[&group_id, id],
        )
        .await?;
    }
    Ok(())
}

/// One group with its test cases (ordered by name), or `None`.
async fn group(c: &impl Exec, id: i64) -> StoreResult<Option<GroupDetail>> {
    let Some(head) = c
        .query_opt(
            "SELECT id, name, channel FROM test_case_groups WHERE id = $1",
            &[&id],
        )
        .await?
    else {
        return Ok(None);
    };
    let sql = format!(
        "SELECT tc.id, tc.ivr_id, tc.name FROM group_cases gc
           JOIN test_cases tc ON tc.id = gc.test_case_id
          WHERE gc.group_id = $1 ORDER BY {}, tc.id",
        c.nocase("tc.name")
    );
    let cases = c
        .query(&sql, &[&id])
        .await?
        .iter()
        .map(case_ref)
        .collect::<StoreResult<Vec<_>>>()?;
    let mut ivrs: Vec<i64> = cases.iter().map(|c| c.ivr_id).collect();
    ivrs.sort_unstable();
    ivrs.dedup();
    Ok(Some(GroupDetail {
        group: GroupSummary {
            id: head.col("id")?,
            name: head.col("name")?,
            channel: channel(&head.col::<String>("channel")?)?,
            case_count: cases.len() as i64,
            ivr_count: ivrs.len() as i64,
        },
        test_cases: cases,
    }))
}

/// A visibility read: `sql` answers one row (the item exists) whose only column says
/// whether the scope's user `$2` (NULL for all) sees it.
async fn visibility(
    c: &impl Exec,
    sql: &str,
    scope: Scope,
    id: i64,
) -> StoreResult<Visibility<()>> {
    Ok(
        match c.scalar_opt::<bool>(sql, &[&id, &scope.user()]).await? {
            None => Visibility::Missing,
            Some(true) => Visibility::Visible(()),
            Some(false) => Visibility::Hidden,
        },
    )
}

/// Does group `id` exist, and may the scope see it? One round trip.
pub(crate) async fn group_visibility(
    c: &impl Exec,
    scope: Scope,
    id: i64,
) -> StoreResult<Visibility<()>> {
    visibility(
        c,
        "SELECT CAST($2 AS BIGINT) IS NULL
                OR EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = $2 AND ug.group_id = g.id)
           FROM test_case_groups g WHERE g.id = $1",
        scope,
        id,
    )
    .await
}

/// Does test case `id` exist, and may the scope see it (is it in one of the user's groups)?
pub(crate) async fn case_visibility(
    c: &impl Exec,
    scope: Scope,
    id: i64,
) -> StoreResult<Visibility<()>> {
    visibility(
        c,
        "SELECT CAST($2 AS BIGINT) IS NULL
                OR EXISTS (SELECT 1 FROM group_cases gc
                             JOIN user_groups ug ON ug.group_id = gc.group_id
                            WHERE gc.test_case_id = tc.id AND ug.user_id = $2)
           FROM test_cases tc WHERE tc.id = $1",
        scope,
        id,
    )
    .await
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
pub(crate) async fn alert_statuses(c: &impl Exec) -> StoreResult<Vec<AlertStatus>> {
    c.query(
        "SELECT id, code, text, status_group, support_channel FROM alert_statuses ORDER BY id",
        &[],
    )
    .await?
    .iter()
    .map(|r| {
        Ok(AlertStatus {
            id: r.col("id")?,
            code: r.col("code")?,
            text: r.col("text")?,
            status_group: r.col("status_group")?,
            support_channel: r.col("support_channel")?,
        })
    })
    .collect()
}

/// Status id to its text ('Pass', 'Warning', 'Failure').
pub(crate) async fn status_texts(c: &impl Exec) -> StoreResult<BTreeMap<i64, String>> {
    Ok(alert_statuses(c)
        .await?
        .into_iter()
        .map(|s| (s.id, s.text))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::distribution::{Contact, ContactType, DistributionDraft};

    fn group(name: &str) -> GroupDraft {
        GroupDraft {
            name: name.into(),
            channel: Channel::Voice,
            test_case_ids: vec![],
        }
    }

    fn list(name: &str) -> DistributionDraft {
        DistributionDraft {
            name: name.into(),
            contacts: vec![Contact {
                name: "Desk".into(),
                kind: ContactType::Email,
                info: "desk@example.com".into(),
            }],
        }
    }

    /// The error of a name another record has: field `name`, rule `taken`, a conflict.
    fn is_taken(e: &StoreError) -> bool {
        matches!(e, StoreError::Field(FieldConflict::Conflict, f) if f.field == "name" && f.rule == Rule::Taken)
    }

    /// A second group or distribution list of a name (without case) is refused, on create
    /// and on rename, on the store's backend (both, with `TEST_POSTGRES_URL`); a record keeps
    /// its own name in another case.
    #[tokio::test(flavor = "multi_thread")]
    async fn group_and_list_names_are_unique_without_case() {
        let (_dir, store) = crate::store::testing::store().await;
        let first = store.create_group(&group("Claims - FNOL")).await.unwrap();
        let e = store
            .create_group(&group("claims - fnol"))
            .await
            .unwrap_err();
        assert!(is_taken(&e), "{e:?}");
        let e = store
            .create_group(&group(" CLAIMS - FNOL "))
            .await
            .unwrap_err();
        assert!(is_taken(&e), "{e:?}");
        let other = store.create_group(&group("Retail")).await.unwrap();
        let e = store
            .update_group(other.group.id, &group("Claims - fnol"))
            .await
            .unwrap_err();
        assert!(is_taken(&e), "{e:?}");
        let renamed = store
            .update_group(first.group.id, &group("CLAIMS - FNOL"))
            .await
            .unwrap();
        assert_eq!(renamed.group.name, "CLAIMS - FNOL");

        let a = store.create_distribution(&list("On call")).await.unwrap();
        let e = store
            .create_distribution(&list("ON CALL"))
            .await
            .unwrap_err();
        assert!(is_taken(&e), "{e:?}");
        let b = store.create_distribution(&list("Billing")).await.unwrap();
        let e = store
            .update_distribution(b, &list("on call"))
            .await
            .unwrap_err();
        assert!(is_taken(&e), "{e:?}");
        store
            .update_distribution(a, &list("On Call"))
            .await
            .unwrap();
    }
}

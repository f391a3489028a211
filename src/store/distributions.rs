//! Distribution lists (spec §3 'Distribution list'): the paged list, one list with its
//! contacts, and saves. A contact's position is its row in the form.

use std::collections::HashMap;

use async_trait::async_trait;

use super::audit;
use super::sql::{self, Exec, SqlStore};
use super::{now_secs, or_name_taken, StoreError, StoreResult};
use crate::domain::distribution::{
    Contact, ContactType, Distribution, DistributionDraft, DistributionFilter,
    DistributionSortField, DistributionUses,
};
use crate::domain::page::{Page, PageRequest};

#[async_trait]
pub trait DistributionStore {
    /// One page of lists matching the filter, each with its contacts.
    async fn list_distributions(
        &self,
        page: PageRequest,
        filter: &DistributionFilter,
    ) -> StoreResult<Page<Distribution>>;
    async fn distribution(&self, id: i64) -> StoreResult<Option<Distribution>>;
    /// Adds a list; returns its id.
    async fn create_distribution(&self, draft: &DistributionDraft) -> StoreResult<i64>;
    /// Replaces a list's label and contacts.
    async fn update_distribution(&self, id: i64, draft: &DistributionDraft) -> StoreResult<()>;
    /// Deletes a list; a conflict naming what uses it (`DistributionUses::refusal`) while
    /// anything does.
    async fn delete_distribution(&self, id: i64) -> StoreResult<()>;
    /// What uses list `id` (None when there is no such list): what a delete would be refused
    /// for, asked before the delete is confirmed.
    async fn distribution_uses(&self, id: i64) -> StoreResult<Option<DistributionUses>>;
}

/// The contacts of the lists `ids`, each list's in form order.
async fn contacts_of(c: &impl Exec, ids: &[i64]) -> StoreResult<HashMap<i64, Vec<Contact>>> {
    let mut out: HashMap<i64, Vec<Contact>> = HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let params: Vec<&dyn sql::Param> = ids.iter().map(|id| id as _).collect();
    let sql = format!(
        "SELECT list_id, name, type, info FROM distribution_contacts
          WHERE list_id IN ({}) ORDER BY list_id, position",
        sql::placeholders(1, ids.len())
    );
    for r in c.query(&sql, &params).await? {
        if let Some(kind) = ContactType::of_id(r.col("type")?) {
            out.entry(r.col("list_id")?).or_default().push(Contact {
                name: r.col("name")?,
                kind,
                info: r.col("info")?,
            });
        }
    }
    Ok(out)
}

/// Lists (id, name, modified_at) with their contacts.
async fn with_contacts(c: &impl Exec, heads: Vec<sql::Row>) -> StoreResult<Vec<Distribution>> {
    let ids = heads
        .iter()
        .map(|r| r.col("id"))
        .collect::<StoreResult<Vec<i64>>>()?;
    let mut contacts = contacts_of(c, &ids).await?;
    heads
        .iter()
        .map(|r| {
            let id: i64 = r.col("id")?;
            Ok(Distribution {
                id,
                name: r.col("name")?,
                contacts: contacts.remove(&id).unwrap_or_default(),
                modified_at: r.col("modified_at")?,
            })
        })
        .collect()
}

/// A list with its contacts, read inside any transaction (the alert engine reads the list
/// it queues to in the same transaction as the alert).
pub(crate) async fn distribution_by_id(
    c: &impl Exec,
    id: i64,
) -> StoreResult<Option<Distribution>> {
    let heads = c
        .query(
            "SELECT id, name, modified_at FROM distribution_lists WHERE id = $1",
            &[&id],
        )
        .await?;
    Ok(with_contacts(c, heads).await?.pop())
}

/// Replaces the contacts of list `id` with the draft's.
async fn set_contacts(c: &impl Exec, id: i64, d: &DistributionDraft) -> StoreResult<()> {
    c.execute(
        "DELETE FROM distribution_contacts WHERE list_id = $1",
        &[&id],
    )
    .await?;
    for (i, contact) in d.contacts.iter().enumerate() {
        c.execute(
            "INSERT INTO distribution_contacts (list_id, position, name, type, info)
             VALUES ($1, $2, $3, $4, $5)",
            &[
                &id,
                &(i as i64),
                &contact.name,
                &contact.kind.id(),
                &contact.info,
            ],
        )
        .await?;
    }
    Ok(())
}

/// What uses list `id`, each by name.
async fn uses_of(c: &impl Exec, id: i64) -> StoreResult<DistributionUses> {
    let named = move |sql: String| async move {
        c.query(&sql, &[&id])
            .await?
            .iter()
            .map(|r| Ok((r.get(0)?, r.get(1)?)))
            .collect::<StoreResult<Vec<(i64, String)>>>()
    };
    Ok(DistributionUses {
        alert_settings: named(format!(
            "SELECT id, name FROM alert_settings WHERE distribution_id = $1 ORDER BY {}, id",
            c.nocase("name")
        ))
        .await?,
        escalations: named(format!(
            "SELECT id, name FROM alert_settings WHERE escalation_distribution_id = $1
              ORDER BY {}, id",
            c.nocase("name")
        ))
        .await?,
        report_schedules: named(format!(
            "SELECT r.id, r.name FROM report_schedules s JOIN reports r ON r.id = s.id
              WHERE s.distribution_id = $1 ORDER BY {}, r.id",
            c.nocase("r.name")
        ))
        .await?,
    })
}

fn not_found(id: i64) -> StoreError {
    StoreError::NotFound(format!("Distribution list {id} does not exist."))
}

#[async_trait]
impl<S: SqlStore> DistributionStore for S {
    async fn list_distributions(
        &self,
        page: PageRequest,
        filter: &DistributionFilter,
    ) -> StoreResult<Page<Distribution>> {
        let search = sql::search(filter.search.as_deref());
        let kind = filter.kind.map(ContactType::id);
        let field = match filter.sort.field {
            DistributionSortField::Id => None,
            DistributionSortField::Name => Some("d.name"),
            DistributionSortField::LastModified => Some("d.modified_at"),
        };
        let dir = sql::dir(filter.sort.descending);
        sql::read!(self, |c| {
            let order = match field {
                None => "d.id".to_string(),
                Some("d.name") => c.nocase("d.name"),
                Some(other) => other.to_string(),
            };
            let wher = format!(
                "(CAST($1 AS TEXT) IS NULL OR {} LIKE $1 ESCAPE '\\' OR EXISTS (
                    SELECT 1 FROM distribution_contacts s WHERE s.list_id = d.id
                       AND ({} LIKE $1 ESCAPE '\\' OR {} LIKE $1 ESCAPE '\\')))
                 AND (CAST($2 AS BIGINT) IS NULL OR EXISTS (
                    SELECT 1 FROM distribution_contacts t WHERE t.list_id = d.id AND t.type = $2))",
                c.fold("d.name"),
                c.fold("s.name"),
                c.fold("s.info")
            );
            let total: i64 = c
                .scalar(
                    &format!("SELECT count(*) FROM distribution_lists d WHERE {wher}"),
                    &[&search, &kind],
                )
                .await?;
            let heads = c
                .query(
                    &format!(
                        "SELECT d.id, d.name, d.modified_at FROM distribution_lists d WHERE {wher}
                          ORDER BY {order} {dir}, d.id {dir} LIMIT $3 OFFSET $4"
                    ),
                    &[&search, &kind, &page.size, &(page.offset() as i64)],
                )
                .await?;
            Ok(Page {
                items: with_contacts(c, heads).await?,
                total: total as u64,
            })
        })
    }

    async fn distribution(&self, id: i64) -> StoreResult<Option<Distribution>> {
        sql::read!(self, |c| distribution_by_id(c, id).await)
    }

    async fn create_distribution(&self, draft: &DistributionDraft) -> StoreResult<i64> {
        sql::write!(self, [d = draft.clone()], |c| {
            let id: i64 = or_name_taken(
                c.scalar(
                    "INSERT INTO distribution_lists (name, modified_at) VALUES ($1, $2)
                     RETURNING id",
                    &[&d.name, &now_secs()],
                )
                .await,
                "distribution list",
                &d.name,
            )?;
            set_contacts(c, id, &d).await?;
            let after = audit::distribution_list(c, id).await?;
            audit::record(c, "distribution_list", "create", id, None, after).await?;
            Ok(id)
        })
    }

    async fn update_distribution(&self, id: i64, draft: &DistributionDraft) -> StoreResult<()> {
        sql::write!(self, [d = draft.clone()], |c| {
            let before = audit::distribution_list(c, id).await?;
            let n = or_name_taken(
                c.execute(
                    "UPDATE distribution_lists SET name = $2, modified_at = $3 WHERE id = $1",
                    &[&id, &d.name, &now_secs()],
                )
                .await,
                "distribution list",
                &d.name,
            )?;
            if n == 0 {
                return Err(not_found(id));
            }
            set_contacts(c, id, &d).await?;
            let after = audit::distribution_list(c, id).await?;
            audit::record(c, "distribution_list", "update", id, before, after).await
        })
    }

    async fn delete_distribution(&self, id: i64) -> StoreResult<()> {
        sql::write!(self, |c| {
            // The list's row locked first (PostgreSQL): a setting saved meanwhile with this
            // list waits for the delete (its foreign key check), then fails on the missing list.
            let exists = c
                .query_opt(
                    &format!(
                        "SELECT id FROM distribution_lists WHERE id = $1{}",
                        c.pg_only(" FOR UPDATE")
                    ),
                    &[&id],
                )
                .await?;
            if let Some(refusal) = uses_of(c, id).await?.refusal(id) {
                return Err(StoreError::Conflict(refusal));
            }
            if exists.is_none() {
                return Err(not_found(id));
            }
            let before = audit::distribution_list(c, id).await?;
            c.execute("DELETE FROM distribution_lists WHERE id = $1", &[&id])
                .await?;
            audit::record(c, "distribution_list", "delete", id, before, None).await
        })
    }

    async fn distribution_uses(&self, id: i64) -> StoreResult<Option<DistributionUses>> {
        sql::read!(self, |c| {
            let exists: Option<i64> = c
                .scalar_opt("SELECT id FROM distribution_lists WHERE id = $1", &[&id])
                .await?;
            match exists {
                None => Ok(None),
                Some(_) => Ok(Some(uses_of(c, id).await?)),
            }
        })
    }
}

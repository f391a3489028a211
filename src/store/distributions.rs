//! Distribution lists (spec §3 'Distribution list'): the paged list, one list with its
//! contacts, and saves. A contact's position is its row in the form.

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::audit;
use super::{now_secs, Sqlite, StoreError, StoreResult};
use crate::domain::distribution::{
    Contact, ContactType, Distribution, DistributionDraft, DistributionFilter,
    DistributionSortField,
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
    async fn delete_distribution(&self, id: i64) -> StoreResult<()>;
}

fn contacts_of(conn: &Connection, list_id: i64) -> StoreResult<Vec<Contact>> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, type, info FROM distribution_contacts WHERE list_id = ?1 ORDER BY position",
    )?;
    let rows = stmt
        .query_map([list_id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get(2)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows
        .into_iter()
        .filter_map(|(name, t, info)| {
            Some(Contact {
                name,
                kind: ContactType::of_id(t)?,
                info,
            })
        })
        .collect())
}

/// A list with its contacts, read inside any transaction (the alerting engine reads the
/// list it queues to in the same transaction as the alert).
pub(super) fn distribution_by_id(conn: &Connection, id: i64) -> StoreResult<Option<Distribution>> {
    let head = conn
        .query_row(
            "SELECT id, name, modified_at FROM distribution_lists WHERE id = ?1",
            [id],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get(2)?)),
        )
        .optional()?;
    let Some((id, name, modified_at)) = head else {
        return Ok(None);
    };
    Ok(Some(Distribution {
        id,
        name,
        contacts: contacts_of(conn, id)?,
        modified_at,
    }))
}

fn set_contacts(tx: &Transaction, id: i64, draft: &DistributionDraft) -> StoreResult<()> {
    tx.execute("DELETE FROM distribution_contacts WHERE list_id = ?1", [id])?;
    let mut ins = tx.prepare_cached(
        "INSERT INTO distribution_contacts (list_id, position, name, type, info)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (i, c) in draft.contacts.iter().enumerate() {
        ins.execute(params![id, i as i64, c.name, c.kind.id(), c.info])?;
    }
    Ok(())
}

#[async_trait]
impl DistributionStore for Sqlite {
    async fn list_distributions(
        &self,
        page: PageRequest,
        filter: &DistributionFilter,
    ) -> StoreResult<Page<Distribution>> {
        let filter = filter.clone();
        self.read(move |c| {
            let search = filter
                .search
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(super::contains);
            let kind = filter.kind.map(ContactType::id);
            let order = match filter.sort.field {
                DistributionSortField::Id => "d.id",
                DistributionSortField::Name => "d.name COLLATE NOCASE",
                DistributionSortField::LastModified => "d.modified_at",
            };
            let dir = if filter.sort.descending {
                "DESC"
            } else {
                "ASC"
            };
            let wher = "(?1 IS NULL OR d.name LIKE ?1 ESCAPE '\\' OR EXISTS (
                           SELECT 1 FROM distribution_contacts s WHERE s.list_id = d.id
                              AND (s.name LIKE ?1 ESCAPE '\\' OR s.info LIKE ?1 ESCAPE '\\')))
                        AND (?2 IS NULL OR EXISTS (
                           SELECT 1 FROM distribution_contacts t WHERE t.list_id = d.id AND t.type = ?2))";
            let total: i64 = c.query_row(
                &format!("SELECT count(*) FROM distribution_lists d WHERE {wher}"),
                params![search, kind],
                |r| r.get(0),
            )?;
            let mut stmt = c.prepare_cached(&format!(
                "SELECT d.id, d.name, d.modified_at FROM distribution_lists d WHERE {wher}
                  ORDER BY {order} {dir}, d.id {dir} LIMIT ?3 OFFSET ?4"
            ))?;
            let heads = stmt
                .query_map(params![search, kind, page.size, page.offset() as i64], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get(2)?))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            let mut items = Vec::with_capacity(heads.len());
            for (id, name, modified_at) in heads {
                items.push(Distribution {
                    id,
                    name,
                    contacts: contacts_of(c, id)?,
                    modified_at,
                });
            }
            Ok(Page {
                items,
                total: total as u64,
            })
        })
        .await
    }

    async fn distribution(&self, id: i64) -> StoreResult<Option<Distribution>> {
        self.read(move |c| distribution_by_id(c, id)).await
    }

    async fn create_distribution(&self, draft: &DistributionDraft) -> StoreResult<i64> {
        let d = draft.clone();
        self.write(move |tx| {
            tx.execute(
                "INSERT INTO distribution_lists (name, modified_at) VALUES (?1, ?2)",
                params![d.name, now_secs()],
            )?;
            let id = tx.last_insert_rowid();
            set_contacts(tx, id, &d)?;
            let after = audit::distribution_list(tx, id)?;
            audit::record(tx, "distribution_list", "create", id, None, after)?;
            Ok(id)
        })
        .await
    }

    async fn update_distribution(&self, id: i64, draft: &DistributionDraft) -> StoreResult<()> {
        let d = draft.clone();
        self.write(move |tx| {
            let before = audit::distribution_list(tx, id)?;
            let n = tx.execute(
                "UPDATE distribution_lists SET name = ?2, modified_at = ?3 WHERE id = ?1",
                params![id, d.name, now_secs()],
            )?;
            if n == 0 {
                return Err(StoreError::NotFound(format!(
                    "Distribution list {id} does not exist."
                )));
            }
            set_contacts(tx, id, &d)?;
            let after = audit::distribution_list(tx, id)?;
            audit::record(tx, "distribution_list", "update", id, before, after)
        })
        .await
    }

    async fn delete_distribution(&self, id: i64) -> StoreResult<()> {
        self.write(move |tx| {
            let used: Vec<String> = tx
                .prepare_cached(
                    "SELECT name FROM alert_settings WHERE distribution_id = ?1
                      ORDER BY name COLLATE NOCASE, id",
                )?
                .query_map([id], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            if !used.is_empty() {
                let names: Vec<String> = used.iter().map(|n| format!("'{n}'")).collect();
                return Err(StoreError::Conflict(format!(
                    "Distribution list {id} is the contact group of the alert setting{} {}: change {} first.",
                    if used.len() == 1 { "" } else { "s" },
                    names.join(", "),
                    if used.len() == 1 { "it" } else { "them" },
                )));
            }
            let before = audit::distribution_list(tx, id)?;
            let n = tx.execute("DELETE FROM distribution_lists WHERE id = ?1", [id])?;
            if n == 0 {
                return Err(StoreError::NotFound(format!(
                    "Distribution list {id} does not exist."
                )));
            }
            audit::record(tx, "distribution_list", "delete", id, before, None)
        })
        .await
    }
}

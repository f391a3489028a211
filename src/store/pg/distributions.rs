//! PostgreSQL: [`DistributionStore`](crate::store::DistributionStore), as
//! `store/distributions.rs` has it for SQLite.
use std::collections::HashMap;

use async_trait::async_trait;
use deadpool_postgres::GenericClient;

use super::catalog::nocase;
use super::{audit, Postgres};
use crate::domain::distribution::{
    Contact, ContactType, Distribution, DistributionDraft, DistributionFilter,
    DistributionSortField,
};
use crate::domain::page::{Page, PageRequest};
use crate::store::DistributionStore;
use crate::store::{now_secs, StoreError, StoreResult};

/// The contacts of the lists `ids`, each list's in form order.
async fn contacts_of(
    c: &impl GenericClient,
    ids: &[i64],
) -> StoreResult<HashMap<i64, Vec<Contact>>> {
    let stmt = c
        .prepare_cached(
            "SELECT list_id, name, type, info FROM distribution_contacts
              WHERE list_id = ANY($1) ORDER BY list_id, position",
        )
        .await?;
    let mut out: HashMap<i64, Vec<Contact>> = HashMap::new();
    for r in c.query(&stmt, &[&ids]).await? {
        if let Some(kind) = ContactType::of_id(r.get(2)) {
            out.entry(r.get(0)).or_default().push(Contact {
                name: r.get(1),
                kind,
                info: r.get(3),
            });
        }
    }
    Ok(out)
}

/// A list with its contacts, read inside any transaction (the alert engine reads the list
/// it queues to in the same transaction as the alert).
pub(crate) async fn distribution_by_id(
    c: &impl GenericClient,
    id: i64,
) -> StoreResult<Option<Distribution>> {
    let stmt = c
        .prepare_cached("SELECT id, name, modified_at FROM distribution_lists WHERE id = $1")
        .await?;
    let Some(head) = c.query_opt(&stmt, &[&id]).await? else {
        return Ok(None);
    };
    let mut contacts = contacts_of(c, &[id]).await?;
    Ok(Some(Distribution {
        id: head.get(0),
        name: head.get(1),
        contacts: contacts.remove(&id).unwrap_or_default(),
        modified_at: head.get(2),
    }))
}

/// Replaces the contacts of list `id` with the draft's, in one multi-row insert.
async fn set_contacts(tx: &impl GenericClient, id: i64, d: &DistributionDraft) -> StoreResult<()> {
    tx.execute(
        "DELETE FROM distribution_contacts WHERE list_id = $1",
        &[&id],
    )
    .await?;
    if d.contacts.is_empty() {
        return Ok(());
    }
    let positions: Vec<i64> = (0..d.contacts.len() as i64).collect();
    let names: Vec<&str> = d.contacts.iter().map(|c| c.name.as_str()).collect();
    let kinds: Vec<i64> = d.contacts.iter().map(|c| c.kind.id()).collect();
    let infos: Vec<&str> = d.contacts.iter().map(|c| c.info.as_str()).collect();
    tx.execute(
        "INSERT INTO distribution_contacts (list_id, position, name, type, info)
         SELECT $1::BIGINT, * FROM unnest($2::BIGINT[], $3::TEXT[], $4::BIGINT[], $5::TEXT[])",
        &[&id, &positions, &names, &kinds, &infos],
    )
    .await?;
    Ok(())
}

fn not_found(id: i64) -> StoreError {
    StoreError::NotFound(format!("Distribution list {id} does not exist."))
}

#[async_trait]
impl DistributionStore for Postgres {
    async fn list_distributions(
        &self,
        page: PageRequest,
        filter: &DistributionFilter,
    ) -> StoreResult<Page<Distribution>> {
        let c = self.client().await?;
        // SQLite's LIKE ignores the case of ASCII letters (only): both sides lowered so.
        let search = filter
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| crate::store::contains(&s.to_ascii_lowercase()));
        let kind = filter.kind.map(ContactType::id);
        // SQLite's COLLATE NOCASE.
        let order = match filter.sort.field {
            DistributionSortField::Id => "d.id".to_string(),
            DistributionSortField::Name => nocase("d.name"),
            DistributionSortField::LastModified => "d.modified_at".to_string(),
        };
        let dir = if filter.sort.descending {
            "DESC"
        } else {
            "ASC"
        };
        let wher = format!(
            "($1::TEXT IS NULL OR {} LIKE $1 OR EXISTS (
                SELECT 1 FROM distribution_contacts s WHERE s.list_id = d.id
                   AND ({} LIKE $1 OR {} LIKE $1)))
             AND ($2::BIGINT IS NULL OR EXISTS (
                SELECT 1 FROM distribution_contacts t WHERE t.list_id = d.id AND t.type = $2))",
            nocase("d.name"),
            nocase("s.name"),
            nocase("s.info")
        );
        let total: i64 = c
            .query_one(
                &format!("SELECT count(*) FROM distribution_lists d WHERE {wher}"),
                &[&search, &kind],
            )
            .await?
            .get(0);
        let stmt = c
            .prepare_cached(&format!(
                "SELECT d.id, d.name, d.modified_at FROM distribution_lists d WHERE {wher}
                  ORDER BY {order} {dir}, d.id {dir} LIMIT $3 OFFSET $4"
            ))
            .await?;
        let heads = c
            .query(
                &stmt,
                &[
                    &search,
                    &kind,
                    &i64::from(page.size),
                    &(page.offset() as i64),
                ],
            )
            .await?;
        let ids: Vec<i64> = heads.iter().map(|r| r.get(0)).collect();
        let mut contacts = contacts_of(&c, &ids).await?;
        let items = heads
            .iter()
            .map(|r| {
                let id: i64 = r.get(0);
                Distribution {
                    id,
                    name: r.get(1),
                    contacts: contacts.remove(&id).unwrap_or_default(),
                    modified_at: r.get(2),
                }
            })
            .collect();
        Ok(Page {
            items,
            total: total as u64,
        })
    }

    async fn distribution(&self, id: i64) -> StoreResult<Option<Distribution>> {
        let c = self.client().await?;
        distribution_by_id(&c, id).await
    }

    async fn create_distribution(&self, draft: &DistributionDraft) -> StoreResult<i64> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let id: i64 = tx
            .query_one(
                "INSERT INTO distribution_lists (name, modified_at) VALUES ($1, $2) RETURNING id",
                &[&draft.name, &now_secs()],
            )
            .await?
            .get(0);
        set_contacts(&tx, id, draft).await?;
        let after = audit::distribution_list(&tx, id).await?;
        audit::record(&tx, "distribution_list", "create", id, None, after).await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn update_distribution(&self, id: i64, draft: &DistributionDraft) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let before = audit::distribution_list(&tx, id).await?;
        let n = tx
            .execute(
                "UPDATE distribution_lists SET name = $2, modified_at = $3 WHERE id = $1",
                &[&id, &draft.name, &now_secs()],
            )
            .await?;
        if n == 0 {
            return Err(not_found(id));
        }
        set_contacts(&tx, id, draft).await?;
        let after = audit::distribution_list(&tx, id).await?;
        audit::record(&tx, "distribution_list", "update", id, before, after).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn delete_distribution(&self, id: i64) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        // The list's row locked first: a setting saved meanwhile with this list waits for
        // the delete (its foreign key check), then fails on the missing list.
        let exists = tx
            .query_opt(
                "SELECT id FROM distribution_lists WHERE id = $1 FOR UPDATE",
                &[&id],
            )
            .await?;
        let used: Vec<String> = tx
            .query(
                &format!(
                    "SELECT name FROM alert_settings WHERE distribution_id = $1
                      ORDER BY {}, id",
                    nocase("name")
                ),
                &[&id],
            )
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        if !used.is_empty() {
            let names: Vec<String> = used.iter().map(|n| format!("'{n}'")).collect();
            return Err(StoreError::Conflict(format!(
                "Distribution list {id} is the contact group of the alert setting{} {}: change {} first.",
                if used.len() == 1 { "" } else { "s" },
                names.join(", "),
                if used.len() == 1 { "it" } else { "them" },
            )));
        }
        if exists.is_none() {
            return Err(not_found(id));
        }
        let before = audit::distribution_list(&tx, id).await?;
        tx.execute("DELETE FROM distribution_lists WHERE id = $1", &[&id])
            .await?;
        audit::record(&tx, "distribution_list", "delete", id, before, None).await?;
        tx.commit().await?;
        Ok(())
    }
}

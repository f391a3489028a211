//! PostgreSQL: console users ([`UserStore`]), as `store/users.rs` keeps them on SQLite.
//! Usernames compare without case through the unique index on `lower(username)`; the
//! changes that could leave no read-write administrator take an advisory lock, so two
//! instances cannot each remove one of the last two.

use async_trait::async_trait;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::{audit, is_unique_violation, Postgres, Tx};
use crate::domain::caller::{AccessType, Role, ROLE_ADMIN};
use crate::domain::page::{Page, PageRequest};
use crate::domain::rules::{FieldError, Rule};
use crate::domain::user::{GroupRef, ProfileDraft, User, UserDraft, UserFilter, UserSortField};
use crate::store::auth::split_roles;
use crate::store::{now_secs, FieldConflict, StoreError, StoreResult, UserStore};

/// Advisory lock key of the changes that count read-write administrators.
const ADMINS_LOCK: i64 = 0x6378_7761_7463_6803;

const COLUMNS: &str =
    "u.id, u.username, u.first_name, u.last_name, u.roles, u.access_type, u.kiosk";

fn user_row(r: &Row) -> User {
    User {
        id: r.get(0),
        username: r.get(1),
        first_name: r.get(2),
        last_name: r.get(3),
        roles: split_roles(r.get::<_, &str>(4)),
        access: AccessType::of(r.get::<_, &str>(5)),
        groups: Vec::new(),
        kiosk: r.get(6),
    }
}

async fn with_groups(c: &impl GenericClient, mut users: Vec<User>) -> StoreResult<Vec<User>> {
    let ids: Vec<i64> = users
        .iter()
        .filter(|u| u.role() == Role::User)
        .map(|u| u.id)
        .collect();
    if ids.is_empty() {
        return Ok(users);
    }
    let stmt = c
        .prepare_cached(
            "SELECT ug.user_id, g.id, g.name FROM user_groups ug
               JOIN test_case_groups g ON g.id = ug.group_id
              WHERE ug.user_id = ANY($1) ORDER BY lower(g.name), g.id",
        )
        .await?;
    for r in c.query(&stmt, &[&ids]).await? {
        let user_id: i64 = r.get(0);
        if let Some(u) = users.iter_mut().find(|u| u.id == user_id) {
            u.groups.push(GroupRef {
                id: r.get(1),
                name: r.get(2),
            });
        }
    }
    Ok(users)
}

pub(crate) async fn user_by_id(c: &impl GenericClient, id: i64) -> StoreResult<Option<User>> {
    let u = c
        .query_opt(
            &format!("SELECT {COLUMNS} FROM users u WHERE u.id = $1"),
            &[&id],
        )
        .await?
        .map(|r| user_row(&r));
    Ok(with_groups(c, u.into_iter().collect()).await?.pop())
}

pub(crate) async fn user_by_username(
    c: &impl GenericClient,
    username: &str,
) -> StoreResult<Option<User>> {
    let u = c
        .query_opt(
            &format!("SELECT {COLUMNS} FROM users u WHERE lower(u.username) = lower($1)"),
            &[&username.trim()],
        )
        .await?
        .map(|r| user_row(&r));
    Ok(with_groups(c, u.into_iter().collect()).await?.pop())
}

fn taken(username: &str) -> StoreError {
    StoreError::Field(
        FieldConflict::Conflict,
        FieldError {
            field: "username".into(),
            rule: Rule::Taken,
            message: format!("A user named {username} already exists."),
        },
    )
}

/// A unique violation of the username becomes the field's conflict.
fn or_taken(e: tokio_postgres::Error, username: &str) -> StoreError {
    let e = StoreError::from(e);
    if is_unique_violation(&e, Some("users_username")) {
        taken(username)
    } else {
        e
    }
}

async fn set_groups(tx: &Tx<'_>, user_id: i64, draft: &UserDraft) -> StoreResult<()> {
    tx.execute("DELETE FROM user_groups WHERE user_id = $1", &[&user_id])
        .await?;
    if draft.role != Role::User || draft.group_ids.is_empty() {
        return Ok(());
    }
    let known: Vec<i64> = tx
        .query(
            "SELECT id FROM test_case_groups WHERE id = ANY($1)",
            &[&draft.group_ids],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if let Some(g) = draft.group_ids.iter().find(|g| !known.contains(g)) {
        return Err(StoreError::Field(
            FieldConflict::Invalid,
            FieldError {
                field: "testCaseGroups".into(),
                rule: Rule::Invalid,
                message: format!("Test case group {g} does not exist."),
            },
        ));
    }
    tx.execute(
        "INSERT INTO user_groups (user_id, group_id) SELECT $1, unnest($2::BIGINT[])
         ON CONFLICT DO NOTHING",
        &[&user_id, &draft.group_ids],
    )
    .await?;
    Ok(())
}

/// Read-write administrators other than `except`.
async fn other_rw_admins(tx: &Tx<'_>, except: i64) -> StoreResult<i64> {
    Ok(tx
        .query_one(
            "SELECT count(*) FROM users
              WHERE id <> $1 AND access_type = 'read-write'
                AND (roles = $2 OR roles LIKE $2 || ',%')",
            &[&except, &ROLE_ADMIN],
        )
        .await?
        .get(0))
}

fn is_rw_admin(u: &User) -> bool {
    u.role() == Role::Admin && u.access == AccessType::ReadWrite
}

const LAST_ADMIN: &str =
    "This is the last administrator with read-write access: make another one first.";

#[async_trait]
impl UserStore for Postgres {
    async fn list_users(&self, page: PageRequest, filter: &UserFilter) -> StoreResult<Page<User>> {
        let c = self.client().await?;
        let search = filter
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(crate::store::contains);
        let role = filter.role.map(|r| r.as_str());
        let order = match filter.sort.field {
            UserSortField::Id => "u.id",
            UserSortField::FirstName => "lower(u.first_name)",
            UserSortField::LastName => "lower(u.last_name)",
            UserSortField::Username => "lower(u.username)",
        };
        let dir = if filter.sort.descending {
            "DESC"
        } else {
            "ASC"
        };
        let wher = "($1::TEXT IS NULL OR u.first_name ILIKE $1 OR u.last_name ILIKE $1
                      OR u.username ILIKE $1)
                    AND ($2::TEXT IS NULL OR u.roles = $2 OR u.roles LIKE $2 || ',%')";
        let total: i64 = c
            .query_one(
                &format!("SELECT count(*) FROM users u WHERE {wher}"),
                &[&search, &role],
            )
            .await?
            .get(0);
        let (limit, offset) = (i64::from(page.size), page.offset() as i64);
        let users = c
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM users u WHERE {wher}
                      ORDER BY {order} {dir}, u.id {dir} LIMIT $3 OFFSET $4"
                ),
                &[&search, &role, &limit, &offset],
            )
            .await?
            .iter()
            .map(user_row)
            .collect();
        Ok(Page {
            items: with_groups(&c, users).await?,
            total: total as u64,
        })
    }

    async fn user(&self, id: i64) -> StoreResult<Option<User>> {
        user_by_id(&self.client().await?, id).await
    }

    async fn user_by_username(&self, username: &str) -> StoreResult<Option<User>> {
        user_by_username(&self.client().await?, username).await
    }

    async fn user_count(&self) -> StoreResult<i64> {
        Ok(self
            .client()
            .await?
            .query_one("SELECT count(*) FROM users", &[])
            .await?
            .get(0))
    }

    async fn create_user(&self, draft: &UserDraft, password_hash: &str) -> StoreResult<i64> {
        let d = draft;
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let id: i64 = tx
            .query_one(
                "INSERT INTO users (username, first_name, last_name, password_hash, roles, access_type, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                &[
                    &d.username,
                    &d.first_name,
                    &d.last_name,
                    &password_hash,
                    &d.role.as_str(),
                    &d.access.as_str(),
                    &now_secs(),
                ],
            )
            .await
            .map_err(|e| or_taken(e, &d.username))?
            .get(0);
        set_groups(&tx, id, d).await?;
        let after = audit::user(&tx, id).await?;
        audit::record(&tx, "user", "create", id, None, after).await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn update_user(&self, id: i64, draft: &UserDraft) -> StoreResult<()> {
        let d = draft;
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&ADMINS_LOCK])
            .await?;
        let Some(before) = user_by_id(&tx, id).await? else {
            return Err(StoreError::NotFound(format!("User {id} does not exist.")));
        };
        let audit_before = audit::user(&tx, id).await?;
        let stays_rw_admin = d.role == Role::Admin && d.access == AccessType::ReadWrite;
        if is_rw_admin(&before) && !stays_rw_admin && other_rw_admins(&tx, id).await? == 0 {
            return Err(StoreError::Conflict(LAST_ADMIN.into()));
        }
        tx.execute(
            "UPDATE users SET username = $2, first_name = $3, last_name = $4, roles = $5,
                    access_type = $6 WHERE id = $1",
            &[
                &id,
                &d.username,
                &d.first_name,
                &d.last_name,
                &d.role.as_str(),
                &d.access.as_str(),
            ],
        )
        .await
        .map_err(|e| or_taken(e, &d.username))?;
        set_groups(&tx, id, d).await?;
        if before.role() != d.role || before.access != d.access {
            tx.execute("DELETE FROM tokens WHERE user_id = $1", &[&id])
                .await?;
        }
        let after = audit::user(&tx, id).await?;
        audit::record(&tx, "user", "update", id, audit_before, after).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn update_profile(&self, id: i64, draft: &ProfileDraft) -> StoreResult<()> {
        let d = draft;
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let audit_before = audit::user(&tx, id).await?;
        let n = tx
            .execute(
                "UPDATE users SET username = $2, first_name = $3, last_name = $4 WHERE id = $1",
                &[&id, &d.username, &d.first_name, &d.last_name],
            )
            .await
            .map_err(|e| or_taken(e, &d.username))?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("User {id} does not exist.")));
        }
        let after = audit::user(&tx, id).await?;
        audit::record(&tx, "user", "profile", id, audit_before, after).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn password_hash(&self, id: i64) -> StoreResult<Option<String>> {
        Ok(self
            .client()
            .await?
            .query_opt("SELECT password_hash FROM users WHERE id = $1", &[&id])
            .await?
            .map(|r| r.get(0)))
    }

    async fn set_password(&self, id: i64, password_hash: &str) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let n = tx
            .execute(
                "UPDATE users SET password_hash = $2 WHERE id = $1",
                &[&id, &password_hash],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("User {id} does not exist.")));
        }
        tx.execute("DELETE FROM tokens WHERE user_id = $1", &[&id])
            .await?;
        audit::record(&tx, "user", "password", id, None, None).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn delete_user(&self, id: i64) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&ADMINS_LOCK])
            .await?;
        let Some(user) = user_by_id(&tx, id).await? else {
            return Err(StoreError::NotFound(format!("User {id} does not exist.")));
        };
        if is_rw_admin(&user) && other_rw_admins(&tx, id).await? == 0 {
            return Err(StoreError::Conflict(LAST_ADMIN.into()));
        }
        let audit_before = audit::user(&tx, id).await?;
        tx.execute("DELETE FROM users WHERE id = $1", &[&id])
            .await?;
        audit::record(&tx, "user", "delete", id, audit_before, None).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn set_kiosk(&self, id: i64, allowed: bool) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let n = tx
            .execute(
                "UPDATE users SET kiosk = $2 WHERE id = $1",
                &[&id, &allowed],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("User {id} does not exist.")));
        }
        if !allowed {
            tx.execute("DELETE FROM tokens WHERE user_id = $1 AND kiosk", &[&id])
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

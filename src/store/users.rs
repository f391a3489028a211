//! Console users (spec §3 'User'): the list the server pages, one user with their groups,
//! and the changes an administrator or the user themself makes. A user's sessions end
//! when their password, role or access changes, and when they are deleted.

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::audit;
use super::auth::split_roles;
use super::{now_secs, FieldConflict, Sqlite, StoreError, StoreResult};
use crate::domain::caller::{AccessType, Role, ROLE_ADMIN};
use crate::domain::page::{Page, PageRequest};
use crate::domain::rules::{FieldError, Rule};
use crate::domain::user::{GroupRef, ProfileDraft, User, UserDraft, UserFilter, UserSortField};

#[async_trait]
pub trait UserStore {
    /// One page of users matching the filter.
    async fn list_users(&self, page: PageRequest, filter: &UserFilter) -> StoreResult<Page<User>>;
    async fn user(&self, id: i64) -> StoreResult<Option<User>>;
    /// The user with this username, compared without case.
    async fn user_by_username(&self, username: &str) -> StoreResult<Option<User>>;
    /// How many users exist (0 on a fresh install).
    async fn user_count(&self) -> StoreResult<i64>;
    /// Adds a user; a `username` conflict when it is taken (without case). Returns the id.
    async fn create_user(&self, draft: &UserDraft, password_hash: &str) -> StoreResult<i64>;
    /// Replaces a user's names, role, access and groups. Refuses to leave no read-write
    /// administrator. Ends their sessions when the role or access changed.
    async fn update_user(&self, id: i64, draft: &UserDraft) -> StoreResult<()>;
    /// Replaces a user's own names and username.
    async fn update_profile(&self, id: i64, draft: &ProfileDraft) -> StoreResult<()>;
    /// The stored argon2id hash of a user's password.
    async fn password_hash(&self, id: i64) -> StoreResult<Option<String>>;
    /// Replaces the password hash and ends every session of the user.
    async fn set_password(&self, id: i64, password_hash: &str) -> StoreResult<()>;
    /// Deletes a user (their sessions and group assignments go with them). Refuses to
    /// delete the last read-write administrator.
    async fn delete_user(&self, id: i64) -> StoreResult<()>;
    /// Allows or forbids the user kiosk sessions (a wall display); forbidding ends the
    /// kiosk sessions they have open.
    async fn set_kiosk(&self, id: i64, allowed: bool) -> StoreResult<()>;
}

const COLUMNS: &str =
    "u.id, u.username, u.first_name, u.last_name, u.roles, u.access_type, u.kiosk";

fn user_row(r: &rusqlite::Row) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(0)?,
        username: r.get(1)?,
        first_name: r.get(2)?,
        last_name: r.get(3)?,
        roles: split_roles(&r.get::<_, String>(4)?),
        access: AccessType::of(&r.get::<_, String>(5)?),
        groups: Vec::new(),
        kiosk: r.get(6)?,
    })
}

fn with_groups(conn: &Connection, mut users: Vec<User>) -> StoreResult<Vec<User>> {
    let mut stmt = conn.prepare_cached(
        "SELECT g.id, g.name FROM user_groups ug JOIN test_case_groups g ON g.id = ug.group_id
          WHERE ug.user_id = ?1 ORDER BY g.name COLLATE NOCASE, g.id",
    )?;
    for u in &mut users {
        if u.role() == Role::User {
            u.groups = stmt
                .query_map([u.id], |r| {
                    Ok(GroupRef {
                        id: r.get(0)?,
                        name: r.get(1)?,
                    })
                })?
                .collect::<Result<_, _>>()?;
        }
    }
    Ok(users)
}

pub(super) fn user_by_id(conn: &Connection, id: i64) -> StoreResult<Option<User>> {
    let u = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM users u WHERE u.id = ?1"),
            [id],
            user_row,
        )
        .optional()?;
    Ok(with_groups(conn, u.into_iter().collect())?.pop())
}

pub(super) fn user_by_username(conn: &Connection, username: &str) -> StoreResult<Option<User>> {
    let u = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM users u WHERE u.username = ?1"),
            [username.trim()],
            user_row,
        )
        .optional()?;
    Ok(with_groups(conn, u.into_iter().collect())?.pop())
}

fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
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

fn set_groups(tx: &Transaction, user_id: i64, draft: &UserDraft) -> StoreResult<()> {
    tx.execute("DELETE FROM user_groups WHERE user_id = ?1", [user_id])?;
    if draft.role != Role::User {
        return Ok(());
    }
    let mut check = tx.prepare_cached("SELECT 1 FROM test_case_groups WHERE id = ?1")?;
    let mut ins =
        tx.prepare_cached("INSERT OR IGNORE INTO user_groups (user_id, group_id) VALUES (?1, ?2)")?;
    for &g in &draft.group_ids {
        if check.query_row([g], |_| Ok(())).optional()?.is_none() {
            return Err(StoreError::Field(
                FieldConflict::Invalid,
                FieldError {
                    field: "testCaseGroups".into(),
                    rule: Rule::Invalid,
                    message: format!("Test case group {g} does not exist."),
                },
            ));
        }
        ins.execute(params![user_id, g])?;
    }
    Ok(())
}

/// Read-write administrators other than `except`.
fn other_rw_admins(tx: &Transaction, except: i64) -> StoreResult<i64> {
    Ok(tx.query_row(
        "SELECT count(*) FROM users
          WHERE id <> ?1 AND access_type = 'read-write'
            AND (roles = ?2 OR roles LIKE ?2 || ',%')",
        params![except, ROLE_ADMIN],
        |r| r.get(0),
    )?)
}

fn is_rw_admin(u: &User) -> bool {
    u.role() == Role::Admin && u.access == AccessType::ReadWrite
}

const LAST_ADMIN: &str =
    "This is the last administrator with read-write access: make another one first.";

#[async_trait]
impl UserStore for Sqlite {
    async fn list_users(&self, page: PageRequest, filter: &UserFilter) -> StoreResult<Page<User>> {
        let filter = filter.clone();
        self.read(move |c| {
            let search = filter
                .search
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(super::contains);
            let role = filter.role.map(|r| r.as_str());
            let order = match filter.sort.field {
                UserSortField::Id => "u.id",
                UserSortField::FirstName => "u.first_name COLLATE NOCASE",
                UserSortField::LastName => "u.last_name COLLATE NOCASE",
                UserSortField::Username => "u.username COLLATE NOCASE",
            };
            let dir = if filter.sort.descending {
                "DESC"
            } else {
                "ASC"
            };
            let wher = "(?1 IS NULL OR u.first_name LIKE ?1 ESCAPE '\\'
                          OR u.last_name LIKE ?1 ESCAPE '\\' OR u.username LIKE ?1 ESCAPE '\\')
                        AND (?2 IS NULL OR u.roles = ?2 OR u.roles LIKE ?2 || ',%')";
            let total: i64 = c.query_row(
                &format!("SELECT count(*) FROM users u WHERE {wher}"),
                params![search, role],
                |r| r.get(0),
            )?;
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM users u WHERE {wher}
                  ORDER BY {order} {dir}, u.id {dir} LIMIT ?3 OFFSET ?4"
            ))?;
            let users = stmt
                .query_map(
                    params![search, role, page.size, page.offset() as i64],
                    user_row,
                )?
                .collect::<Result<_, _>>()?;
            Ok(Page {
                items: with_groups(c, users)?,
                total: total as u64,
            })
        })
        .await
    }

    async fn user(&self, id: i64) -> StoreResult<Option<User>> {
        self.read(move |c| user_by_id(c, id)).await
    }

    async fn user_by_username(&self, username: &str) -> StoreResult<Option<User>> {
        let username = username.to_string();
        self.read(move |c| user_by_username(c, &username)).await
    }

    async fn user_count(&self) -> StoreResult<i64> {
        self.read(|c| Ok(c.query_row("SELECT count(*) FROM users", [], |r| r.get(0))?))
            .await
    }

    async fn create_user(&self, draft: &UserDraft, password_hash: &str) -> StoreResult<i64> {
        let (d, hash) = (draft.clone(), password_hash.to_string());
        self.write(move |tx| {
            let inserted = tx.execute(
                "INSERT INTO users (username, first_name, last_name, password_hash, roles, access_type, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    d.username,
                    d.first_name,
                    d.last_name,
                    hash,
                    d.role.as_str(),
                    d.access.as_str(),
                    now_secs()
                ],
            );
            match inserted {
                Ok(_) => {}
                Err(e) if is_unique_violation(&e) => return Err(taken(&d.username)),
                Err(e) => return Err(e.into()),
            }
            let id = tx.last_insert_rowid();
            set_groups(tx, id, &d)?;
            audit::record(tx, "user", "create", id, None, audit::user(tx, id)?)?;
            Ok(id)
        })
        .await
    }

    async fn update_user(&self, id: i64, draft: &UserDraft) -> StoreResult<()> {
        let d = draft.clone();
        self.write(move |tx| {
            let Some(before) = user_by_id(tx, id)? else {
                return Err(StoreError::NotFound(format!("User {id} does not exist.")));
            };
            let audit_before = audit::user(tx, id)?;
            let stays_rw_admin = d.role == Role::Admin && d.access == AccessType::ReadWrite;
            if is_rw_admin(&before) && !stays_rw_admin && other_rw_admins(tx, id)? == 0 {
                return Err(StoreError::Conflict(LAST_ADMIN.into()));
            }
            let updated = tx.execute(
                "UPDATE users SET username = ?2, first_name = ?3, last_name = ?4, roles = ?5,
                        access_type = ?6 WHERE id = ?1",
                params![
                    id,
                    d.username,
                    d.first_name,
                    d.last_name,
                    d.role.as_str(),
                    d.access.as_str()
                ],
            );
            match updated {
                Ok(_) => {}
                Err(e) if is_unique_violation(&e) => return Err(taken(&d.username)),
                Err(e) => return Err(e.into()),
            }
            set_groups(tx, id, &d)?;
            if before.role() != d.role || before.access != d.access {
                tx.execute("DELETE FROM tokens WHERE user_id = ?1", [id])?;
            }
            audit::record(tx, "user", "update", id, audit_before, audit::user(tx, id)?)?;
            Ok(())
        })
        .await
    }

    async fn update_profile(&self, id: i64, draft: &ProfileDraft) -> StoreResult<()> {
        let d = draft.clone();
        self.write(move |tx| {
            let audit_before = audit::user(tx, id)?;
            let updated = tx.execute(
                "UPDATE users SET username = ?2, first_name = ?3, last_name = ?4 WHERE id = ?1",
                params![id, d.username, d.first_name, d.last_name],
            );
            match updated {
                Ok(0) => Err(StoreError::NotFound(format!("User {id} does not exist."))),
                Ok(_) => audit::record(
                    tx,
                    "user",
                    "profile",
                    id,
                    audit_before,
                    audit::user(tx, id)?,
                ),
                Err(e) if is_unique_violation(&e) => Err(taken(&d.username)),
                Err(e) => Err(e.into()),
            }
        })
        .await
    }

    async fn password_hash(&self, id: i64) -> StoreResult<Option<String>> {
        self.read(move |c| {
            Ok(
                c.query_row("SELECT password_hash FROM users WHERE id = ?1", [id], |r| {
                    r.get(0)
                })
                .optional()?,
            )
        })
        .await
    }

    async fn set_password(&self, id: i64, password_hash: &str) -> StoreResult<()> {
        let hash = password_hash.to_string();
        self.write(move |tx| {
            let n = tx.execute(
                "UPDATE users SET password_hash = ?2 WHERE id = ?1",
                params![id, hash],
            )?;
            if n == 0 {
                return Err(StoreError::NotFound(format!("User {id} does not exist.")));
            }
            tx.execute("DELETE FROM tokens WHERE user_id = ?1", [id])?;
            audit::record(tx, "user", "password", id, None, None)?;
            Ok(())
        })
        .await
    }

    async fn set_kiosk(&self, id: i64, allowed: bool) -> StoreResult<()> {
        self.write(move |tx| {
            let n = tx.execute(
                "UPDATE users SET kiosk = ?2 WHERE id = ?1",
                params![id, allowed],
            )?;
            if n == 0 {
                return Err(StoreError::NotFound(format!("User {id} does not exist.")));
            }
            if !allowed {
                tx.execute("DELETE FROM tokens WHERE user_id = ?1 AND kiosk = 1", [id])?;
            }
            Ok(())
        })
        .await
    }

    async fn delete_user(&self, id: i64) -> StoreResult<()> {
        self.write(move |tx| {
            let Some(user) = user_by_id(tx, id)? else {
                return Err(StoreError::NotFound(format!("User {id} does not exist.")));
            };
            if is_rw_admin(&user) && other_rw_admins(tx, id)? == 0 {
                return Err(StoreError::Conflict(LAST_ADMIN.into()));
            }
            let audit_before = audit::user(tx, id)?;
            tx.execute("DELETE FROM users WHERE id = ?1", [id])?;
            audit::record(tx, "user", "delete", id, audit_before, None)?;
            Ok(())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::page::Sort;
    use crate::store::Store;

    fn draft(username: &str, role: Role, access: AccessType) -> UserDraft {
        UserDraft {
            username: username.into(),
            first_name: "Ada".into(),
            last_name: "Lovelace".into(),
            role,
            access,
            group_ids: vec![],
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn users_are_unique_without_case_and_the_last_admin_stays() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
        let admin = draft("a@b.test", Role::Admin, AccessType::ReadWrite);
        let id = store.create_user(&admin, "h").await.unwrap();
        let err = store
            .create_user(&draft("A@B.TEST", Role::User, AccessType::ReadOnly), "h")
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::Field(FieldConflict::Conflict, _)),
            "{err}"
        );
        // The only read-write admin can be neither demoted nor deleted.
        let demoted = draft("a@b.test", Role::Admin, AccessType::ReadOnly);
        assert!(matches!(
            store.update_user(id, &demoted).await,
            Err(StoreError::Conflict(_))
        ));
        assert!(matches!(
            store.delete_user(id).await,
            Err(StoreError::Conflict(_))
        ));
        // With a second one, both work, and sessions of the changed user end.
        store
            .create_user(&draft("c@b.test", Role::Admin, AccessType::ReadWrite), "h")
            .await
            .unwrap();
        let token = store
            .start_session(id, false, now_secs(), now_secs() + 60)
            .await
            .unwrap();
        store.update_user(id, &demoted).await.unwrap();
        assert!(store
            .caller_for_token(&token, now_secs())
            .await
            .unwrap()
            .is_none());
        let page = store
            .list_users(
                PageRequest { no: 0, size: 10 },
                &UserFilter {
                    search: Some("B.TEST".into()),
                    role: Some(Role::Admin),
                    sort: Sort {
                        field: UserSortField::Username,
                        descending: true,
                    },
                },
            )
            .await
            .unwrap();
        assert_eq!(page.total, 2);
        assert_eq!(page.items[0].username, "c@b.test");
        store.delete_user(id).await.unwrap();
        assert!(store.user(id).await.unwrap().is_none());
    }
}

//! Console users (spec §3 'User'): the list the server pages, one user with their groups
//! and last sign-in (`sign_ins`, `store/opstate.rs`), and the changes an administrator or the user themself makes. A user's sessions end
//! when their password, role or access changes, and when they are deleted.

use async_trait::async_trait;

use super::audit;
use super::sql::{self, Exec, Row, SqlStore};
use super::{now_secs, FieldConflict, StoreError, StoreResult};
use crate::domain::caller::{AccessType, Role, ROLE_ADMIN};
use crate::domain::page::{Page, PageRequest};
use crate::domain::rules::{FieldError, Rule};
use crate::domain::user::{GroupRef, ProfileDraft, User, UserDraft, UserFilter, UserSortField};

/// The roles of a user row's comma-separated `roles`.
pub(super) fn split_roles(roles: &str) -> Vec<String> {
    roles
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(String::from)
        .collect()
}

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

/// Advisory lock key (PostgreSQL) of the changes that count read-write administrators, so
/// two instances cannot each remove one of the last two.
const ADMINS_LOCK: i64 = 0x6378_7761_7463_6803;

const COLUMNS: &str =
    "u.id, u.username, u.first_name, u.last_name, u.roles, u.access_type, u.kiosk,
     (SELECT s.last_ms FROM sign_ins s WHERE s.user_id = u.id) AS last_sign_in_ms";

fn user_row(r: &Row) -> StoreResult<User> {
    Ok(User {
        id: r.col("id")?,
        username: r.col("username")?,
        first_name: r.col("first_name")?,
        last_name: r.col("last_name")?,
        roles: split_roles(&r.col::<String>("roles")?),
        access: AccessType::of(&r.col::<String>("access_type")?),
        groups: Vec::new(),
        kiosk: r.col("kiosk")?,
        last_sign_in_ms: r.col("last_sign_in_ms")?,
    })
}

async fn users(c: &impl Exec, sql: &str, params: &[&dyn sql::Param]) -> StoreResult<Vec<User>> {
    let mut users = c
        .query(sql, params)
        .await?
        .iter()
        .map(user_row)
        .collect::<StoreResult<Vec<_>>>()?;
    let ids: Vec<i64> = users
        .iter()
        .filter(|u| u.role() == Role::User)
        .map(|u| u.id)
        .collect();
    if ids.is_empty() {
        return Ok(users);
    }
    let params: Vec<&dyn sql::Param> = ids.iter().map(|id| id as _).collect();
    let groups = c
        .query(
            &format!(
                "SELECT ug.user_id, g.id, g.name FROM user_groups ug
                   JOIN test_case_groups g ON g.id = ug.group_id
                  WHERE ug.user_id IN ({}) ORDER BY {}, g.id",
                sql::placeholders(1, ids.len()),
                c.nocase("g.name")
            ),
            &params,
        )
        .await?;
    for r in groups {
        let user_id: i64 = r.col("user_id")?;
        if let Some(u) = users.iter_mut().find(|u| u.id == user_id) {
            u.groups.push(GroupRef {
                id: r.col("id")?,
                name: r.col("name")?,
            });
        }
    }
    Ok(users)
}

pub(super) async fn user_by_id(c: &impl Exec, id: i64) -> StoreResult<Option<User>> {
    let sql = format!("SELECT {COLUMNS} FROM users u WHERE u.id = $1");
    Ok(users(c, &sql, &[&id]).await?.pop())
}

/// The user with this username, compared without case.
pub(super) async fn user_by_username(c: &impl Exec, username: &str) -> StoreResult<Option<User>> {
    let sql = format!("SELECT {COLUMNS} FROM users u WHERE lower(u.username) = lower($1)");
    Ok(users(c, &sql, &[&username.trim()]).await?.pop())
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

/// A unique violation (the username: ids are the database's) becomes the field's conflict.
fn or_taken<T>(done: StoreResult<T>, username: &str) -> StoreResult<T> {
    done.map_err(|e| {
        if sql::is_unique_violation(&e) {
            taken(username)
        } else {
            e
        }
    })
}

async fn set_groups(c: &impl Exec, user_id: i64, draft: &UserDraft) -> StoreResult<()> {
    c.execute("DELETE FROM user_groups WHERE user_id = $1", &[&user_id])
        .await?;
    if draft.role != Role::User {
        return Ok(());
    }
    for &g in &draft.group_ids {
        let inserted = c
            .execute(
                "INSERT INTO user_groups (user_id, group_id)
                 SELECT $1, id FROM test_case_groups WHERE id = $2
                 ON CONFLICT DO NOTHING",
                &[&user_id, &g],
            )
            .await?;
        let known = inserted > 0
            || c.scalar_opt::<i64>("SELECT id FROM test_case_groups WHERE id = $1", &[&g])
                .await?
                .is_some();
        if !known {
            return Err(StoreError::Field(
                FieldConflict::Invalid,
                FieldError {
                    field: "testCaseGroups".into(),
                    rule: Rule::Invalid,
                    message: format!("Test case group {g} does not exist."),
                },
            ));
        }
    }
    Ok(())
}

/// Read-write administrators other than `except`.
async fn other_rw_admins(c: &impl Exec, except: i64) -> StoreResult<i64> {
    c.scalar(
        "SELECT count(*) FROM users
          WHERE id <> $1 AND access_type = 'read-write'
            AND (roles = $2 OR roles LIKE $2 || ',%')",
        &[&except, &ROLE_ADMIN],
    )
    .await
}

fn is_rw_admin(u: &User) -> bool {
    u.role() == Role::Admin && u.access == AccessType::ReadWrite
}

const LAST_ADMIN: &str =
    "This is the last administrator with read-write access: make another one first.";

fn missing(id: i64) -> StoreError {
    StoreError::NotFound(format!("User {id} does not exist."))
}

#[async_trait]
impl<S: SqlStore> UserStore for S {
    async fn list_users(&self, page: PageRequest, filter: &UserFilter) -> StoreResult<Page<User>> {
        let search = sql::search(filter.search.as_deref());
        let role = filter.role.map(|r| r.as_str());
        let order = match filter.sort.field {
            UserSortField::Id => "u.id",
            UserSortField::FirstName => "u.first_name",
            UserSortField::LastName => "u.last_name",
            UserSortField::Username => "u.username",
            // Never signed in counts as the oldest, on both backends (their NULLs sort apart).
            UserSortField::LastSignIn => {
                "COALESCE((SELECT s.last_ms FROM sign_ins s WHERE s.user_id = u.id), 0)"
            }
        };
        let numeric = matches!(
            filter.sort.field,
            UserSortField::Id | UserSortField::LastSignIn
        );
        let dir = sql::dir(filter.sort.descending);
        sql::read!(self, |c| {
            let wher = format!(
                "(CAST($1 AS TEXT) IS NULL OR {} LIKE $1 ESCAPE '\\'
                  OR {} LIKE $1 ESCAPE '\\' OR {} LIKE $1 ESCAPE '\\')
                 AND (CAST($2 AS TEXT) IS NULL OR u.roles = $2 OR u.roles LIKE $2 || ',%')",
                c.fold("u.first_name"),
                c.fold("u.last_name"),
                c.fold("u.username")
            );
            let total: i64 = c
                .scalar(
                    &format!("SELECT count(*) FROM users u WHERE {wher}"),
                    &[&search, &role],
                )
                .await?;
            let order = if numeric {
                order.to_string()
            } else {
                c.nocase(order)
            };
            let sql = format!(
                "SELECT {COLUMNS} FROM users u WHERE {wher}
                  ORDER BY {order} {dir}, u.id {dir} LIMIT $3 OFFSET $4"
            );
            let items = users(
                c,
                &sql,
                &[&search, &role, &page.size, &(page.offset() as i64)],
            )
            .await?;
            Ok(Page {
                items,
                total: total as u64,
            })
        })
    }

    async fn user(&self, id: i64) -> StoreResult<Option<User>> {
        sql::read!(self, |c| user_by_id(c, id).await)
    }

    async fn user_by_username(&self, username: &str) -> StoreResult<Option<User>> {
        sql::read!(self, [username = username.to_string()], |c| {
            user_by_username(c, &username).await
        })
    }

    async fn user_count(&self) -> StoreResult<i64> {
        sql::read!(self, |c| c.scalar("SELECT count(*) FROM users", &[]).await)
    }

    async fn create_user(&self, draft: &UserDraft, password_hash: &str) -> StoreResult<i64> {
        sql::write!(
            self,
            [d = draft.clone(), hash = password_hash.to_string()],
            |c| {
                let inserted = c
                    .scalar(
                        "INSERT INTO users (username, first_name, last_name, password_hash, roles, access_type, created_at)
                         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                        &[
                            &d.username,
                            &d.first_name,
                            &d.last_name,
                            &hash,
                            &d.role.as_str(),
                            &d.access.as_str(),
                            &now_secs(),
                        ],
                    )
                    .await;
                let id: i64 = or_taken(inserted, &d.username)?;
                set_groups(c, id, &d).await?;
                let after = audit::user(c, id).await?;
                audit::record(c, "user", "create", id, None, after).await?;
                Ok(id)
            }
        )
    }

    async fn update_user(&self, id: i64, draft: &UserDraft) -> StoreResult<()> {
        sql::write!(self, [d = draft.clone()], |c| {
            sql::lock(c, ADMINS_LOCK).await?;
            let Some(before) = user_by_id(c, id).await? else {
                return Err(missing(id));
            };
            let audit_before = audit::user(c, id).await?;
            let stays_rw_admin = d.role == Role::Admin && d.access == AccessType::ReadWrite;
            if is_rw_admin(&before) && !stays_rw_admin && other_rw_admins(c, id).await? == 0 {
                return Err(StoreError::Conflict(LAST_ADMIN.into()));
            }
            let updated = c
                .execute(
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
                .await;
            or_taken(updated, &d.username)?;
            set_groups(c, id, &d).await?;
            if before.role() != d.role || before.access != d.access {
                c.execute("DELETE FROM tokens WHERE user_id = $1", &[&id])
                    .await?;
            }
            let after = audit::user(c, id).await?;
            audit::record(c, "user", "update", id, audit_before, after).await
        })
    }

    async fn update_profile(&self, id: i64, draft: &ProfileDraft) -> StoreResult<()> {
        sql::write!(self, [d = draft.clone()], |c| {
            let audit_before = audit::user(c, id).await?;
            let updated = c
                .execute(
                    "UPDATE users SET username = $2, first_name = $3, last_name = $4 WHERE id = $1",
                    &[&id, &d.username, &d.first_name, &d.last_name],
                )
                .await;
            if or_taken(updated, &d.username)? == 0 {
                return Err(missing(id));
            }
            let after = audit::user(c, id).await?;
            audit::record(c, "user", "profile", id, audit_before, after).await
        })
    }

    async fn password_hash(&self, id: i64) -> StoreResult<Option<String>> {
        sql::read!(self, |c| {
            c.scalar_opt("SELECT password_hash FROM users WHERE id = $1", &[&id])
                .await
        })
    }

    async fn set_password(&self, id: i64, password_hash: &str) -> StoreResult<()> {
        sql::write!(self, [hash = password_hash.to_string()], |c| {
            let n = c
                .execute(
                    "UPDATE users SET password_hash = $2 WHERE id = $1",
                    &[&id, &hash],
                )
                .await?;
            if n == 0 {
                return Err(missing(id));
            }
            c.execute("DELETE FROM tokens WHERE user_id = $1", &[&id])
                .await?;
            audit::record(c, "user", "password", id, None, None).await
        })
    }

    async fn set_kiosk(&self, id: i64, allowed: bool) -> StoreResult<()> {
        sql::write!(self, |c| {
            let n = c
                .execute(
                    "UPDATE users SET kiosk = $2 WHERE id = $1",
                    &[&id, &allowed],
                )
                .await?;
            if n == 0 {
                return Err(missing(id));
            }
            if !allowed {
                c.execute("DELETE FROM tokens WHERE user_id = $1 AND kiosk", &[&id])
                    .await?;
            }
            Ok(())
        })
    }

    async fn delete_user(&self, id: i64) -> StoreResult<()> {
        sql::write!(self, |c| {
            sql::lock(c, ADMINS_LOCK).await?;
            let Some(user) = user_by_id(c, id).await? else {
                return Err(missing(id));
            };
            if is_rw_admin(&user) && other_rw_admins(c, id).await? == 0 {
                return Err(StoreError::Conflict(LAST_ADMIN.into()));
            }
            let audit_before = audit::user(c, id).await?;
            c.execute("DELETE FROM users WHERE id = $1", &[&id]).await?;
            audit::record(c, "user", "delete", id, audit_before, None).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::page::Sort;

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
        let (_dir, store) = crate::store::testing::store().await;
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

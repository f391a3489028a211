//! `api/users`: console users and each user's own profile (spec §2 'User form', §5, §6,
//! §7 'Users'). Administrators manage every user; anyone reads and edits their own profile,
//! without role, access or groups, and changes their own password by giving the old one.

use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::{ApiError, ApiResult, Envelope, Listing};
use super::guard::Auth;
use super::params;
use super::AppState;
use crate::auth::password::{hash_password, verify_password};
use crate::domain::caller::{AccessType, Need, Role};
use crate::domain::page::Sort;
use crate::domain::rules::{Problems, Rule};
use crate::domain::user::{
    self, GroupRef as DomainGroupRef, User as DomainUser, UserDraft, UserFilter, UserSortField,
};

pub struct UsersApi;

/// Users per page when none is given (spec §9: default 10).
const USER_PAGE_SIZE: u32 = 10;

/// A test case group assigned to a user.
#[derive(Debug, Object)]
pub struct GroupRef {
    pub id: i64,
    /// Ignored when saving.
    #[oai(default)]
    pub name: String,
}

/// A console user (spec §3 'User').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct User {
    pub id: i64,
    /// An e-mail address, unique without case.
    pub username: String,
    pub first_name: String,
    pub last_name: String,
    /// `["ROLE_ADMIN"]` or `["ROLE_USER"]`.
    pub roles: Vec<String>,
    /// `read-write` or `read-only`.
    pub access_type: String,
    /// Groups a ROLE_USER sees; empty for administrators, who see all.
    pub test_case_groups: Vec<GroupRef>,
    /// The user may open kiosk sessions: a read-only wall display that is not signed out
    /// when idle (sign-in with `kiosk: true`).
    pub kiosk: bool,
}

impl From<DomainUser> for User {
    fn from(u: DomainUser) -> Self {
        User {
            id: u.id,
            username: u.username,
            first_name: u.first_name,
            last_name: u.last_name,
            roles: u.roles,
            access_type: u.access.as_str().into(),
            test_case_groups: u.groups.into_iter().map(GroupRef::from).collect(),
            kiosk: u.kiosk,
        }
    }
}

impl From<DomainGroupRef> for GroupRef {
    fn from(g: DomainGroupRef) -> Self {
        GroupRef {
            id: g.id,
            name: g.name,
        }
    }
}

/// Body of `POST users` and `PUT users/{id}`. Every field is checked by the server; missing
/// ones are named in `fields`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UserSave {
    /// Ignored on create; on update absent or the id of the path.
    pub id: Option<i64>,
    pub username: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// First role `ROLE_ADMIN` or `ROLE_USER` (administrators only; ignored on your own
    /// profile).
    pub roles: Option<Vec<String>>,
    /// `read-write` or `read-only` (administrators only; ignored on your own profile).
    pub access_type: Option<String>,
    /// Groups of a ROLE_USER (administrators only; ignored on your own profile).
    pub test_case_groups: Option<Vec<GroupRef>>,
    /// Only on create: 12 to 128 characters.
    pub password: Option<String>,
    /// Allow kiosk sessions (administrators only; ignored on your own profile). Absent:
    /// unchanged on update, not allowed on create. Forbidding ends the user's kiosk sessions.
    pub kiosk: Option<bool>,
}

/// Body of `PATCH users/{id}/overridePassword`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PasswordChange {
    /// 12 to 128 characters.
    pub new_password: Option<String>,
    /// Your current password: required when you change your own.
    pub old_password: Option<String>,
}

impl UserSave {
    /// What an administrator saves, checked in the order of the form.
    fn draft(&self, p: &mut Problems) -> Option<UserDraft> {
        let profile = user::check_profile(
            p,
            self.first_name.as_deref(),
            self.last_name.as_deref(),
            self.username.as_deref(),
        );
        let role = match self.roles.as_deref().and_then(|r| r.first()) {
            None => {
                p.push(
                    "roles",
                    Rule::Required,
                    "roles is required (ROLE_ADMIN or ROLE_USER).",
                );
                None
            }
            Some(r) => Role::parse(r).or_else(|| {
                p.push(
                    "roles",
                    Rule::Invalid,
                    format!("roles: {r:?} is not ROLE_ADMIN or ROLE_USER."),
                );
                None
            }),
        };
        let access = match self.access_type.as_deref() {
            None | Some("") => {
                p.push(
                    "accessType",
                    Rule::Required,
                    "accessType is required (read-write or read-only).",
                );
                None
            }
            Some(a) => AccessType::parse(a).or_else(|| {
                p.push(
                    "accessType",
                    Rule::Invalid,
                    format!("accessType {a:?} is not read-write or read-only."),
                );
                None
            }),
        };
        let profile = profile?;
        Some(UserDraft {
            username: profile.username,
            first_name: profile.first_name,
            last_name: profile.last_name,
            role: role?,
            access: access?,
            group_ids: self
                .test_case_groups
                .iter()
                .flatten()
                .map(|g| g.id)
                .collect(),
        })
    }
}

/// argon2id off the async threads.
async fn hash(password: String) -> ApiResult<String> {
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)
}

fn password_rule(field: &str, value: Option<&str>) -> ApiResult<String> {
    let v = value.unwrap_or("");
    user::check_password(field, v).map_err(|e| vec![e])?;
    Ok(v.to_string())
}

async fn found(state: &AppState, id: i64) -> ApiResult<DomainUser> {
    state
        .store
        .user(id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("User {id} does not exist.")))
}

#[OpenApi(prefix_path = "/users", tag = "super::ApiTags::Users")]
impl UsersApi {
    /// Users, one page at a time (administrators).
    #[oai(path = "/", method = "get", operation_id = "listUsers")]
    #[allow(clippy::too_many_arguments)]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<i64>>,
        /// Users per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<i64>>,
        /// Part of the first name, last name or username, without case.
        search: Query<Option<String>>,
        /// Only this permission level: `ROLE_ADMIN` or `ROLE_USER`.
        role: Query<Option<String>>,
        /// `field,direction`: field `id`, `firstName`, `lastName` or `username`, direction
        /// `asc` or `desc` (default `id,desc`).
        sort: Query<Option<String>>,
    ) -> ApiResult<Json<Envelope<Listing<User>>>> {
        auth.require(Need::Admin)?;
        let mut p = Problems::default();
        let page = params::listing(page_no.0, page_size.0, USER_PAGE_SIZE, &mut p);
        let sort = params::sort(
            sort.0.as_deref(),
            UserSortField::parse,
            Sort {
                field: UserSortField::Id,
                descending: true,
            },
            &mut p,
        );
        let role = role.0.as_deref().filter(|r| !r.is_empty()).and_then(|r| {
            Role::parse(r).or_else(|| {
                p.push(
                    "role",
                    Rule::Invalid,
                    format!("role {r:?} is not ROLE_ADMIN or ROLE_USER."),
                );
                None
            })
        });
        p.check()?;
        let list = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let page = list.page;
        let filter = UserFilter {
            search: search.0,
            role,
            sort,
        };
        let users = state.store.list_users(page, &filter).await?;
        Ok(Listing::ok(list, users))
    }

    /// One user: any user for administrators, yourself for anyone.
    #[oai(path = "/:id", method = "get", operation_id = "getUser")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> ApiResult<Json<Envelope<User>>> {
        auth.require(Need::SelfOrAdmin(id.0))?;
        Ok(Envelope::ok(found(&state, id.0).await?.into()))
    }

    /// Creates a user with a password (administrators with read-write access). A username
    /// already taken (without case) answers 409.
    #[oai(path = "/", method = "post", operation_id = "createUser")]
    async fn create(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        body: Json<UserSave>,
    ) -> ApiResult<Json<Envelope<User>>> {
        auth.require(Need::AdminWrite)?;
        let mut p = Problems::default();
        let draft = body.draft(&mut p);
        if let Err(e) = user::check_password("password", body.password.as_deref().unwrap_or("")) {
            p.0.push(e);
        }
        p.check()?;
        let (Some(draft), Some(password)) = (draft, body.0.password) else {
            return Err(ApiError::bad_request("The user is incomplete."));
        };
        let id = state
            .store
            .create_user(&draft, &hash(password).await?)
            .await?;
        if body.0.kiosk == Some(true) {
            state.store.set_kiosk(id, true).await?;
        }
        Ok(Envelope::ok(found(&state, id).await?.into()))
    }

    /// Saves a user. Administrators with read-write access change anything but the
    /// password; anyone else only their own names and username (role, access and groups
    /// are ignored). Sessions of the user end when their role or access changes.
    #[oai(path = "/:id", method = "put", operation_id = "updateUser")]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<UserSave>,
    ) -> ApiResult<Json<Envelope<User>>> {
        let id = id.0;
        let caller = auth.require(Need::SelfOrAdminWrite(id))?;
        let mut p = Problems::default();
        p.same_id(id, body.id, "user");
        if caller.require(Need::AdminWrite).is_ok() {
            let draft = body.draft(&mut p);
            p.check()?;
            if let Some(draft) = draft {
                state.store.update_user(id, &draft).await?;
            }
            if let Some(kiosk) = body.kiosk {
                state.store.set_kiosk(id, kiosk).await?;
            }
        } else {
            let draft = user::check_profile(
                &mut p,
                body.first_name.as_deref(),
                body.last_name.as_deref(),
                body.username.as_deref(),
            );
            p.check()?;
            if let Some(draft) = draft {
                state.store.update_profile(id, &draft).await?;
            }
        }
        Ok(Envelope::ok(found(&state, id).await?.into()))
    }

    /// Sets a new password. Your own needs `oldPassword`; an administrator with read-write
    /// access resets another user's with `newPassword` alone. Every session of the user
    /// ends: sign in again with the new password.
    #[oai(
        path = "/:id/overridePassword",
        method = "patch",
        operation_id = "overridePassword"
    )]
    async fn override_password(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<PasswordChange>,
    ) -> ApiResult<Json<Envelope<bool>>> {
        let id = id.0;
        let caller = auth.require(Need::SelfOrAdminWrite(id))?;
        let new = password_rule("newPassword", body.new_password.as_deref())?;
        if caller.user_id == id {
            let old = body.old_password.clone().unwrap_or_default();
            let stored = state.store.password_hash(id).await?.unwrap_or_default();
            let ok = tokio::task::spawn_blocking(move || verify_password(&old, &stored))
                .await
                .map_err(ApiError::internal)?;
            if !ok {
                let mut p = Problems::default();
                p.push(
                    "oldPassword",
                    Rule::Mismatch,
                    "oldPassword is not your current password.",
                );
                p.check()?;
            }
        }
        found(&state, id).await?;
        state.store.set_password(id, &hash(new).await?).await?;
        Ok(Envelope::ok(true))
    }

    /// Deletes a user (administrators with read-write access). You cannot delete yourself,
    /// nor the last administrator with read-write access.
    #[oai(path = "/:id", method = "delete", operation_id = "deleteUser")]
    async fn delete(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> ApiResult<Json<Envelope<bool>>> {
        let caller = auth.require(Need::AdminWrite)?;
        if caller.user_id == id.0 {
            return Err(ApiError::bad_request("You cannot delete yourself."));
        }
        state.store.delete_user(id.0).await?;
        Ok(Envelope::ok(true))
    }
}

//! `api/users`: console users and each user's own profile (spec §2 'User form', §5, §6,
//! §7 'Users'). Administrators with read-write access manage every user. Anyone reads their
//! own profile and changes their own password by giving the old one; only an account with
//! read-write access also changes its own username and names, and never its own role,
//! access type, groups or kiosk flag (a save that tries is refused, not silently trimmed).

use chrono::{TimeZone, Utc};
use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, Envelope, Listing};
use super::guard::Auth;
use super::lenient::{AtLeastOne, Email, Filter, Name, OneOf, Password, Required, Text};
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
    pub roles: Vec<Role>,
    pub access_type: AccessType,
    /// Groups a ROLE_USER sees; empty for administrators, who see all.
    pub test_case_groups: Vec<GroupRef>,
    /// The user may open kiosk sessions: a read-only wall display that is not signed out
    /// when idle (sign-in with `kiosk: true`).
    pub kiosk: bool,
    /// When the user last signed in (RFC 3339 UTC): with a password, single sign-on or a
    /// sign-in link; a kiosk session does not count. Null when never since cxwatch keeps it.
    /// cxwatch's addition: absent from a vendor's API.
    #[oai(nullable)]
    pub last_sign_in_time: Option<String>,
}

impl From<DomainUser> for User {
    fn from(u: DomainUser) -> Self {
        let role = u.role();
        User {
            id: u.id,
            username: u.username,
            first_name: u.first_name,
            last_name: u.last_name,
            roles: vec![role],
            access_type: u.access,
            test_case_groups: u.groups.into_iter().map(GroupRef::from).collect(),
            kiosk: u.kiosk,
            last_sign_in_time: u
                .last_sign_in_ms
                .and_then(|ms| Utc.timestamp_opt(ms.div_euclid(1000), 0).single())
                .map(params::time),
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
    #[oai(nullable)]
    pub id: Option<i64>,
    /// An e-mail address, at most 254 characters.
    pub username: Required<Text<Email>>,
    /// 1 to 100 characters, no control or text-direction characters.
    pub first_name: Required<Text<Name<{ user::NAME_MAX }>>>,
    /// 1 to 100 characters, no control or text-direction characters.
    pub last_name: Required<Text<Name<{ user::NAME_MAX }>>>,
    /// First role `ROLE_ADMIN` or `ROLE_USER`: required from an administrator with
    /// read-write access; on your own profile, absent or your current role, else 400
    /// `forbidden` (the document marks it required, as the console always sends it).
    pub roles: Required<AtLeastOne<OneOf<Role>>>,
    /// Required from an administrator with read-write access; on your own profile, absent or
    /// your current access type, else 400 `forbidden` (marked required, as `roles`).
    pub access_type: Required<OneOf<AccessType>>,
    /// Groups of a ROLE_USER (administrators only; on your own profile, absent or your
    /// current groups, else 400 `forbidden`).
    #[oai(nullable)]
    pub test_case_groups: Option<Vec<GroupRef>>,
    /// Required on create (ignored on update): 12 to 128 characters, not easy to guess
    /// (rule `weak`).
    #[oai(nullable)]
    pub password: Option<Text<Password>>,
    /// Allow kiosk sessions (administrators only; on your own profile, absent or your
    /// current setting, else 400 `forbidden`). Absent: unchanged on update, not allowed on
    /// create. Forbidding ends the user's kiosk sessions.
    #[oai(nullable)]
    pub kiosk: Option<bool>,
}

/// Body of `PATCH users/{id}/overridePassword`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PasswordChange {
    /// 12 to 128 characters, not easy to guess (rule `weak`: a common password, a pattern,
    /// the username or names).
    pub new_password: Required<Text<Password>>,
    /// Your current password: required when you change your own.
    #[oai(nullable)]
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

/// The password rule for `u`'s new password (their username and names, the product's and
/// the site's names are too easy to guess).
fn password_rule(
    state: &AppState,
    field: &str,
    value: Option<&str>,
    u: &DomainUser,
) -> ApiResult<String> {
    let v = value.unwrap_or("");
    let site = state.config.password_words();
    let mut words = user::personal_words(&u.username, &[&u.first_name, &u.last_name]);
    words.extend(site.iter().map(String::as_str));
    user::check_password(field, v, &words).map_err(|e| vec![e])?;
    Ok(v.to_string())
}

/// A save of your own profile by anyone but an administrator with read-write access: what
/// only an administrator changes (role, access type, groups, kiosk) may be absent or as it
/// is; anything else is refused (`forbidden`), so that the answer never says 'saved' for a
/// change that was dropped.
fn refuse_own_escalation(body: &UserSave, me: &DomainUser, p: &mut Problems) {
    let mut refuse = |field: &str| {
        p.push(
            field,
            Rule::Forbidden,
            format!("{field}: only an administrator with read-write access changes this."),
        )
    };
    if let Some(r) = body.roles.as_deref().and_then(|r| r.first()) {
        if Role::parse(r) != Some(me.role()) {
            refuse("roles");
        }
    }
    if let Some(a) = body.access_type.as_deref().filter(|a| !a.is_empty()) {
        if AccessType::parse(a) != Some(me.access) {
            refuse("accessType");
        }
    }
    if let Some(groups) = &body.test_case_groups {
        let ids = |it: &mut dyn Iterator<Item = i64>| {
            let mut v: Vec<i64> = it.collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        if ids(&mut groups.iter().map(|g| g.id)) != ids(&mut me.groups.iter().map(|g| g.id)) {
            refuse("testCaseGroups");
        }
    }
    if body.kiosk.is_some_and(|k| k != me.kiosk) {
        refuse("kiosk");
    }
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
        page_no: Query<Option<params::PageNo>>,
        /// Users per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// Part of the first name, last name or username, without case.
        search: Query<Option<Filter>>,
        /// Only this permission level.
        role: Query<Option<OneOf<Role>>>,
        /// `field,direction`: field `id`, `firstName`, `lastName`, `username` or
        /// `lastSignInTime` (never signed in first when ascending), direction `asc` or
        /// `desc` (default `id,desc`).
        sort: Query<Option<Text<params::UserSort>>>,
    ) -> Answer<Json<Envelope<Listing<User>>>, { BAD_REQUEST | FORBIDDEN | INTERNAL }> {
        auth.require(Need::Admin)?;
        let mut p = Problems::default();
        let page = params::listing(
            params::value(page_no.0),
            params::value(page_size.0),
            USER_PAGE_SIZE,
            &mut p,
        );
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
            search: search.0.map(Filter::into_string),
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
    ) -> Answer<Json<Envelope<User>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
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
    ) -> Answer<Json<Envelope<User>>, { BAD_REQUEST | FORBIDDEN | CONFLICT | INTERNAL }> {
        auth.require(Need::AdminWrite)?;
        let mut p = Problems::default();
        let draft = body.draft(&mut p);
        let site = state.config.password_words();
        let mut personal = user::personal_words(
            body.username.as_deref().unwrap_or(""),
            &[
                body.first_name.as_deref().unwrap_or(""),
                body.last_name.as_deref().unwrap_or(""),
            ],
        );
        personal.extend(site.iter().map(String::as_str));
        let password = body.password.as_deref().unwrap_or("");
        if let Err(e) = user::check_password("password", password, &personal) {
            p.0.push(e);
        }
        p.check()?;
        let (Some(draft), Some(password)) = (draft, body.0.password) else {
            return Err(ApiError::bad_request("The user is incomplete.").into());
        };
        let id = state
            .store
            .create_user(&draft, &hash(password.into_string()).await?)
            .await?;
        if body.0.kiosk == Some(true) {
            state.store.set_kiosk(id, true).await?;
        }
        Ok(Envelope::ok(found(&state, id).await?.into()))
    }

    /// Saves a user. Administrators with read-write access change anything but the
    /// password. Anyone else with read-write access changes only their own names and
    /// username: a role, access type, groups or kiosk flag other than theirs is 400
    /// `forbidden`. A read-only account changes nothing here (403; its password, yes).
    /// Sessions of the user end when their role or access changes.
    #[oai(path = "/:id", method = "put", operation_id = "updateUser")]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<UserSave>,
    ) -> Answer<Json<Envelope<User>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL }>
    {
        let id = id.0;
        let caller = auth.require(Need::ProfileWrite(id))?;
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
            let me = found(&state, id).await?;
            refuse_own_escalation(&body, &me, &mut p);
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

    /// Sets a new password. Anyone changes their own, read-only accounts too, with
    /// `oldPassword`; an administrator with read-write access resets another user's with
    /// `newPassword` alone. The password must not be easy to guess (rule `weak`). Every
    /// session of the user ends: sign in again with the new password.
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
    ) -> Answer<Json<Envelope<bool>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let id = id.0;
        let caller = auth.require(Need::SelfOrAdminWrite(id))?;
        let target = found(&state, id).await?;
        let new = password_rule(&state, "newPassword", body.new_password.as_deref(), &target)?;
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
    ) -> Answer<Json<Envelope<bool>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL }>
    {
        let caller = auth.require(Need::AdminWrite)?;
        if caller.user_id == id.0 {
            return Err(ApiError::bad_request("You cannot delete yourself.").into());
        }
        state.store.delete_user(id.0).await?;
        Ok(Envelope::ok(true))
    }
}

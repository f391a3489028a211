//! `api/auth`: sign-in, one-time id exchange (single sign-on) and sign-out. The logic is in
//! `crate::auth`; these handlers check input and shape the answers (see `docs/api.md`).

use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope};
use super::guard::Auth;
use super::lenient::{NotBlank, NotBlankUpTo, Required, Text};
use super::AppState;
use crate::auth::password::MAX_PASSWORD_LEN;
use crate::auth::signin::{self, BAD_CREDENTIALS, KIOSK_NOT_ALLOWED};
use crate::auth::throttle::{source_of, too_many_message};
use crate::auth::{SignInError, SignedIn, TokenLifetimes};
use crate::domain::caller::Need;
use crate::domain::caller::{AccessType, Role};
use crate::domain::rules::{Problems, Rule};

/// Longest username looked up at sign-in (an e-mail address).
const MAX_USERNAME_LEN: usize = 254;

pub struct AuthApi;

/// Body of POST /api/auth/signin.
#[derive(Debug, Object)]
pub struct SignInRequest {
    /// The user's username (an e-mail address), at most 254 characters.
    pub username: Required<Text<NotBlankUpTo<MAX_USERNAME_LEN>>>,
    /// At most 1024 characters.
    pub password: Required<Text<NotBlankUpTo<MAX_PASSWORD_LEN>>>,
    /// Remember Me: the token lives `auth.remember_ttl_days` instead of `auth.token_ttl_secs`.
    #[oai(nullable)]
    pub remember: Option<bool>,
    /// A kiosk session for a wall display: read-only whatever the user's access, not signed
    /// out when idle, with the Remember Me lifetime. Only for users an administrator allowed
    /// it (`kiosk` in the user); others get 403 after their credentials are checked.
    #[oai(nullable)]
    pub kiosk: Option<bool>,
}

/// The logged-in user, as the UI keeps it, with the token to send as
/// `Authorization: Bearer <accessToken>`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SignedInUser {
    /// Bearer token for every other `/api` call.
    pub access_token: String,
    pub id: i64,
    pub username: String,
    /// `ROLE_ADMIN` or `ROLE_USER`; a first role `ROLE_USER` means restricted.
    pub roles: Vec<Role>,
    pub access_type: AccessType,
    /// Whether the token got the longer Remember Me lifetime.
    pub remember: bool,
    pub first_name: String,
    pub last_name: String,
    /// When the token stops working (RFC 3339, UTC).
    pub expires_at: DateTime<Utc>,
    /// `true` for a kiosk session (read-only, and the console does not sign it out when
    /// idle); absent for any other session, which keeps the spec's shape.
    #[oai(skip_serializing_if_is_none)]
    pub kiosk: Option<bool>,
}

impl From<SignedIn> for SignedInUser {
    fn from(s: SignedIn) -> Self {
        let role = s.user.role();
        SignedInUser {
            access_token: s.token,
            id: s.user.id,
            username: s.user.username,
            roles: vec![role],
            access_type: s.user.access,
            remember: s.remember,
            first_name: s.user.first_name,
            last_name: s.user.last_name,
            expires_at: DateTime::from_timestamp(s.expires_at, 0)
                .unwrap_or(DateTime::<Utc>::MAX_UTC),
            kiosk: s.kiosk.then_some(true),
        }
    }
}

#[derive(ApiResponse)]
enum SignInResponse {
    /// Signed in: the token and the user. Never stored by caches.
    #[oai(status = 200)]
    Ok(
        Json<Envelope<SignedInUser>>,
        #[oai(header = "Cache-Control")] String,
    ),
}

fn signed_in(s: SignedIn) -> SignInResponse {
    SignInResponse::Ok(Envelope::ok(s.into()), "no-store".into())
}

/// The value of a required text field, trimmed, or a problem naming it.
fn required<'a, S: std::ops::Deref<Target = str>>(
    value: &'a Option<S>,
    field: &str,
    problems: &mut Problems,
) -> &'a str {
    match value.as_deref().map(str::trim) {
        Some(v) if !v.is_empty() => v,
        _ => {
            problems.push(field, Rule::Required, format!("{field} is required"));
            ""
        }
    }
}

#[OpenApi(prefix_path = "/auth", tag = "super::ApiTags::Auth")]
impl AuthApi {
    /// Signs in with a username and password. Wrong credentials (unknown user or wrong
    /// password alike) answer 401; after repeated failures for a username from one address,
    /// or many failures from one address whatever the usernames, 429 until the wait it
    /// names (`Retry-After`) is over. With `kiosk`, a read-only kiosk session, or 403 for a
    /// user not allowed one.
    #[oai(path = "/signin", method = "post", operation_id = "signin")]
    async fn signin(
        &self,
        state: Data<&AppState>,
        req: &poem::Request,
        body: Json<SignInRequest>,
    ) -> Answer<
        SignInResponse,
        { BAD_REQUEST | UNAUTHORIZED | FORBIDDEN | TOO_MANY_REQUESTS | INTERNAL },
    > {
        // The connection's peer, or the client a trusted proxy names (server.trusted_proxies).
        let source = source_of(super::client_ip(&state.config, req));
        let body = body.0;
        let mut problems = Problems::default();
        let username = required(&*body.username, "username", &mut problems).to_string();
        required(&*body.password, "password", &mut problems);
        problems.check()?;
        // Not trimmed: spaces may be part of a password.
        let password = body
            .password
            .into_inner()
            .map(Text::into_string)
            .unwrap_or_default();
        if username.chars().count() > MAX_USERNAME_LEN {
            return Err(ApiError::bad_request(format!(
                "username is too long (at most {MAX_USERNAME_LEN} characters)"
            ))
            .into());
        }
        if password.chars().count() > MAX_PASSWORD_LEN {
            return Err(ApiError::bad_request(format!(
                "password is too long (at most {MAX_PASSWORD_LEN} characters)"
            ))
            .into());
        }
        let lifetimes = TokenLifetimes::from_config(&state.config.auth);
        let remember = body.remember.unwrap_or(false);
        let outcome = if body.kiosk.unwrap_or(false) {
            signin::sign_in_kiosk(
                &state.store,
                &state.throttle,
                lifetimes,
                &username,
                &source,
                password,
            )
            .await
        } else {
            signin::sign_in(
                &state.store,
                &state.throttle,
                lifetimes,
                &username,
                &source,
                password,
                remember,
            )
            .await
        };
        match outcome {
            Ok(s) => Ok(signed_in(s)),
            Err(SignInError::BadCredentials) => Err(ApiError::unauthorized(BAD_CREDENTIALS).into()),
            Err(SignInError::Throttled(secs)) => {
                Err(ApiError::too_many(too_many_message(secs), secs).into())
            }
            Err(SignInError::KioskNotAllowed) => Err(ApiError::forbidden(KIOSK_NOT_ALLOWED).into()),
            Err(SignInError::Store(e)) => Err(e.into()),
        }
    }

    /// Exchanges a one-time id (from single sign-on or an admin's login link) for a token.
    /// Each id works once, within two minutes; otherwise 401.
    #[oai(path = "/getToken", method = "get", operation_id = "getToken")]
    async fn get_token(
        &self,
        state: Data<&AppState>,
        /// The one-time id from the `/callback?id=` address.
        id: Query<Text<NotBlank>>,
    ) -> Answer<SignInResponse, { BAD_REQUEST | UNAUTHORIZED | INTERNAL }> {
        let id = match id.0.trim() {
            "" => return Err(ApiError::bad_request("id is required").into()),
            id => id.to_string(),
        };
        let lifetimes = TokenLifetimes::from_config(&state.config.auth);
        match signin::exchange_one_time_id(&state.store, lifetimes, id).await? {
            Some(s) => Ok(signed_in(s)),
            None => Err(ApiError::unauthorized(
                "This sign-in link is unknown, already used or expired",
            )
            .into()),
        }
    }

    /// Ends the caller's session: its token stops working at once.
    #[oai(path = "/signout", method = "post", operation_id = "signout")]
    async fn signout(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<bool>>, { INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        signin::sign_out(&state.store, caller.token_hash.clone()).await?;
        Ok(Envelope::ok(true))
    }
}

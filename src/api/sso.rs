//! `api/auth/sso`: single sign-on with the tenant's OpenID Connect provider. Browser
//! navigations, not XHR calls: every answer is a redirect (302). The flow is in
//! [`crate::sso`]; see `docs/sso.md`.

use poem::web::Data;
use poem::Request;
use poem_openapi::param::Query;
use poem_openapi::{ApiResponse, OpenApi};

use super::AppState;
use crate::sso::{Return, SsoError};

pub struct SsoApi;

#[derive(ApiResponse)]
pub enum Redirect {
    /// Go to `Location`: the provider, the console's `/callback?id=`, or `/login` (with
    /// `?sso_error=<code>` when the sign-in failed).
    #[oai(status = 302)]
    Found(
        #[oai(header = "Location")] String,
        #[oai(header = "Cache-Control")] String,
    ),
}

fn to(location: String) -> Redirect {
    Redirect::Found(location, "no-store".into())
}

/// Back to the login page, which shows the reason in the user's language.
fn failed(e: &SsoError) -> Redirect {
    match e {
        SsoError::Store(_) => tracing::error!(error = %e, "single sign-on failed"),
        _ => tracing::warn!(error = %e, code = e.code(), "single sign-on failed"),
    }
    to(format!("/login?sso_error={}", e.code()))
}

/// The host the browser used (`Host`, or the authority of an HTTP/2 request).
pub(super) fn host(req: &Request) -> String {
    req.headers()
        .get(poem::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(String::from)
        .or_else(|| req.uri().authority().map(|a| a.to_string()))
        .unwrap_or_default()
}

#[OpenApi(prefix_path = "/auth/sso", tag = "super::ApiTags::Auth")]
impl SsoApi {
    /// Starts single sign-on for the tenant of the request's host: redirects to the
    /// identity provider (authorization code with PKCE, state and nonce). Without single
    /// sign-on for the host, or with the provider unreachable, back to `/login?sso_error=`.
    #[oai(path = "/start", method = "get", operation_id = "ssoStart")]
    async fn start(&self, state: Data<&AppState>, req: &Request) -> Redirect {
        match state
            .sso
            .start(&state.store, &state.config, &host(req))
            .await
        {
            Ok(url) => to(url),
            Err(e) => failed(&e),
        }
    }

    /// The provider's return: checks the state (once, before it expires), exchanges the
    /// code, verifies the ID token and maps it to a console user, then redirects to
    /// `/callback?id=<one-time id>`; on any failure to `/login?sso_error=<code>`.
    #[oai(path = "/callback", method = "get", operation_id = "ssoCallback")]
    async fn callback(
        &self,
        state: Data<&AppState>,
        /// The authorization code.
        code: Query<Option<String>>,
        /// The state cxwatch sent.
        #[oai(name = "state")]
        sso_state: Query<Option<String>>,
        /// The provider's error code, when it refused.
        error: Query<Option<String>>,
        /// The issuer that answered (RFC 9207); must be the configured one when given.
        iss: Query<Option<String>>,
    ) -> Redirect {
        let ret = Return {
            code: code.0,
            state: sso_state.0,
            error: error.0,
            iss: iss.0,
        };
        match state.sso.finish(&state.store, &state.config, ret).await {
            Ok(id) => to(format!("/callback?id={id}")),
            Err(e) => failed(&e),
        }
    }

    /// After the console session ended (`POST /api/auth/signout`): to the provider's
    /// RP-initiated logout when it offers one, which returns to `/login`; else `/login`.
    #[oai(path = "/logout", method = "get", operation_id = "ssoLogout")]
    async fn logout(&self, state: Data<&AppState>, req: &Request) -> Redirect {
        match state.sso.logout_url(&state.config, &host(req)).await {
            Ok(Some(url)) => to(url),
            Ok(None) | Err(SsoError::NotConfigured) => to("/login".into()),
            Err(e) => {
                tracing::warn!(error = %e, "single sign-on logout: provider unavailable");
                to("/login".into())
            }
        }
    }
}

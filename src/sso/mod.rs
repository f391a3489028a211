//! Single sign-on with the tenant's OpenID Connect provider: authorization code with PKCE,
//! state and nonce (the `openidconnect` crate). See `docs/sso.md`.
//!
//! 1. [`Sso::start`]: the login's SSO button opens `GET /api/auth/sso/start`; a fresh state,
//!    nonce and PKCE verifier are saved in the database ([`crate::store::SsoStore`], so any
//!    instance can finish) and the browser goes to the provider.
//! 2. [`Sso::finish`]: the provider returns to `GET /api/auth/sso/callback?code&state`; the
//!    state is taken back (once, before it expires), the code exchanged with the verifier,
//!    the ID token checked (signature, exact issuer, audience, nonce, times within
//!    `clock_skew_secs`), its claims mapped to a console user ([`mapping`]) and a one-time id
//!    minted; the browser goes to `/callback?id=`, which the UI exchanges at
//!    `GET /api/auth/getToken`.
//!
//! The HTTP client never follows redirects. The provider's discovery document and keys are
//! kept `metadata_ttl_secs`; a token signed with a key not among them makes the keys be
//! fetched again at once. Nothing logged holds a code, a token, a state or a nonce.

pub mod mapping;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreJsonWebKeySet};
use openidconnect::{
    AccessTokenHash, AuthorizationCode, ClientId, ClientSecret, CsrfToken, IssuerUrl,
    LogoutRequest, Nonce, OAuth2TokenResponse, PkceCodeChallenge, PkceCodeVerifier,
    PostLogoutRedirectUrl, ProviderMetadataWithLogout, RedirectUrl, Scope, TokenResponse,
};
use serde_json::{Map, Value};

use crate::auth::password::hash_password;
use crate::config::{Config, SsoConfig, SsoMapping, TenantConfig};
use crate::domain::caller::Role;
use crate::domain::user::{User, UserDraft};
use crate::store::auth::generate_secret;
use crate::store::sso::{PendingSsoLogin, SsoLoginLookup};
use crate::store::{now_secs, Store, StoreError};
use crate::trust::Roots;

/// Where the SSO button leads (the tenant config's `ssoUrl` when `[tenants.sso]` is set).
pub const START_PATH: &str = "/api/auth/sso/start";
/// The return address registered at the provider (after the console's own origin).
pub const CALLBACK_PATH: &str = "/api/auth/sso/callback";
/// Where sign-out sends the browser for the provider's RP-initiated logout.
pub const LOGOUT_PATH: &str = "/api/auth/sso/logout";

type Metadata = ProviderMetadataWithLogout;

/// Why a single sign-on did not end in a one-time id. [`SsoError::code`] is what the login
/// page is told (`/login?sso_error=<code>`); the `Display` text goes to the log.
#[derive(Debug, thiserror::Error)]
pub enum SsoError {
    #[error("single sign-on is not configured for this host")]
    NotConfigured,
    #[error("the identity provider cannot be reached: {0}")]
    ProviderDown(String),
    /// rustls refused the provider's certificate: its CA is missing from `ca` / `trust`.
    #[error("the identity provider's {0}")]
    ProviderUntrusted(String),
    #[error("the identity provider's issuer is not the configured one: {0}")]
    WrongIssuer(String),
    #[error("the sign-in state is unknown or already used")]
    StateReplayed,
    #[error("the sign-in state has expired")]
    StateExpired,
    #[error("user not allowed: {0}")]
    NotAllowed(String),
    #[error("the identity provider answered with an error: {0}")]
    Provider(String),
    #[error("the identity provider's answer failed verification: {0}")]
    InvalidToken(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SsoError {
    /// The short code the login page turns into a message in the user's language.
    pub fn code(&self) -> &'static str {
        match self {
            SsoError::NotConfigured => "not_configured",
            SsoError::ProviderDown(_) => "provider_down",
            SsoError::ProviderUntrusted(_) => "provider_untrusted",
            SsoError::WrongIssuer(_) => "wrong_issuer",
            SsoError::StateReplayed | SsoError::StateExpired => "state",
            SsoError::NotAllowed(_) => "not_allowed",
            SsoError::Provider(_) => "provider_error",
            SsoError::InvalidToken(_) => "invalid_token",
            SsoError::Store(_) => "server_error",
        }
    }
}

/// What the provider sent back to the callback.
#[derive(Debug, Default, Clone)]
pub struct Return {
    pub code: Option<String>,
    pub state: Option<String>,
    /// OAuth error code (e.g. `access_denied`) when the provider refused.
    pub error: Option<String>,
    /// The issuer the provider says answered (RFC 9207), when it says.
    pub iss: Option<String>,
}

/// A provider's discovery document with its keys, as fetched at `at`.
struct Fetched {
    at: Instant,
    metadata: Arc<Metadata>,
}

/// Per tenant: the HTTP client for its provider and what was fetched from it.
struct Provider {
    http: reqwest::Client,
    fetched: Option<Fetched>,
}

/// The single sign-on service: one per process, shared by the handlers.
#[derive(Default)]
pub struct Sso {
    providers: Mutex<HashMap<String, Provider>>,
}

/// The tenant with single sign-on configured for `host`.
pub fn tenant_for_host<'a>(
    config: &'a Config,
    host: &str,
) -> Option<(&'a TenantConfig, &'a SsoConfig)> {
    let t = config.tenant_for_host(host)?;
    Some((t, t.sso.as_ref()?))
}

/// A `Host` value safe to put in an address: a host name or IP, optionally with a port.
fn clean_host(host: &str) -> Option<&str> {
    let ok = !host.is_empty()
        && host.len() <= 260
        && host.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']' | b'_')
        });
    ok.then_some(host)
}

/// The return address sent to the provider: `redirect_url` if configured, else the
/// console's callback on the host the browser used.
pub fn redirect_url(sso: &SsoConfig, host: &str) -> Result<String, SsoError> {
    if let Some(u) = &sso.redirect_url {
        return Ok(u.clone());
    }
    let host = clean_host(host).ok_or(SsoError::NotConfigured)?;
    Ok(format!("https://{host}{CALLBACK_PATH}"))
}

/// A short, log-safe rendering of a provider's error code.
fn safe_code(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(64)
        .collect()
}

impl Sso {
    pub fn new() -> Sso {
        Sso::default()
    }

    /// The HTTP client for a tenant's provider: no redirects followed, bounded waits.
    fn http(&self, tenant: &str, sso: &SsoConfig) -> Result<reqwest::Client, SsoError> {
        let mut providers = self.providers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = providers.get(tenant) {
            return Ok(p.http.clone());
        }
        let key = format!("tenant '{tenant}' sso");
        let http = crate::trust::reqwest_builder(Roots::new(&key, sso.trust, sso.ca.as_deref()))
            .map_err(SsoError::ProviderDown)?
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(sso.timeout_secs))
            .connect_timeout(Duration::from_secs(sso.timeout_secs))
            .build()
            .map_err(|e| SsoError::ProviderDown(format!("HTTP client: {e}")))?;
        providers.insert(
            tenant.to_string(),
            Provider {
                http: http.clone(),
                fetched: None,
            },
        );
        Ok(http)
    }

    /// The provider's discovery document and keys: kept ones while fresh (unless `refresh`),
    /// else fetched. Discovery checks that the document names exactly the configured issuer.
    async fn metadata(
        &self,
        tenant: &str,
        sso: &SsoConfig,
        refresh: bool,
    ) -> Result<Arc<Metadata>, SsoError> {
        let http = self.http(tenant, sso)?;
        if !refresh {
            let providers = self.providers.lock().unwrap_or_else(|e| e.into_inner());
            let kept = providers.get(tenant).and_then(|p| p.fetched.as_ref());
            if let Some(f) = kept.filter(|f| f.at.elapsed().as_secs() < sso.metadata_ttl_secs) {
                return Ok(f.metadata.clone());
            }
        }
        let issuer = IssuerUrl::new(sso.issuer.clone())
            .map_err(|e| SsoError::WrongIssuer(format!("'{}': {e}", sso.issuer)))?;
        let metadata = Metadata::discover_async(issuer, &http)
            .await
            .map_err(|e| discovery_error(&e))?;
        let metadata = Arc::new(metadata);
        let mut providers = self.providers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = providers.get_mut(tenant) {
            p.fetched = Some(Fetched {
                at: Instant::now(),
                metadata: metadata.clone(),
            });
        }
        Ok(metadata)
    }

    /// Fetches the provider's keys again (a token named a key not among the kept ones).
    async fn refresh_keys(
        &self,
        tenant: &str,
        sso: &SsoConfig,
        metadata: &Metadata,
    ) -> Result<Arc<Metadata>, SsoError> {
        let http = self.http(tenant, sso)?;
        let keys = CoreJsonWebKeySet::fetch_async(metadata.jwks_uri(), &http)
            .await
            .map_err(|e| discovery_error(&e))?;
        let fresh = Arc::new(metadata.clone().set_jwks(keys));
        let mut providers = self.providers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = providers.get_mut(tenant) {
            p.fetched = Some(Fetched {
                at: Instant::now(),
                metadata: fresh.clone(),
            });
        }
        tracing::info!(
            tenant,
            "fetched the identity provider's keys again (unknown key id)"
        );
        Ok(fresh)
    }

    /// Fetches the discovery document and keys of the provider of `host`'s tenant afresh
    /// (the site page's test): the issuer that answered, or why not.
    pub async fn check(&self, config: &Config, host: &str) -> Result<String, SsoError> {
        let (tenant, sso) = tenant_for_host(config, host).ok_or(SsoError::NotConfigured)?;
        let metadata = self.metadata(&tenant.name, sso, true).await?;
        Ok(metadata.issuer().to_string())
    }

    /// Starts a sign-in for the tenant of `host`: saves state, nonce and PKCE verifier and
    /// answers the provider's authorization address to send the browser to.
    pub async fn start(
        &self,
        store: &Store,
        config: &Config,
        host: &str,
    ) -> Result<String, SsoError> {
        let (tenant, sso) = tenant_for_host(config, host).ok_or(SsoError::NotConfigured)?;
        let redirect = redirect_url(sso, host)?;
        let metadata = self.metadata(&tenant.name, sso, false).await?;
        let client = CoreClient::from_provider_metadata(
            (*metadata).clone(),
            ClientId::new(sso.client_id.clone()),
            sso.client_secret.clone().map(ClientSecret::new),
        )
        .set_redirect_uri(
            RedirectUrl::new(redirect.clone())
                .map_err(|e| SsoError::InvalidToken(format!("redirect address: {e}")))?,
        );
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client.authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        );
        for scope in sso.scopes.iter().filter(|s| s.as_str() != "openid") {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.set_pkce_challenge(challenge).url();
        let now = now_secs();
        let ttl = i64::try_from(sso.login_ttl_secs).unwrap_or(i64::MAX / 4);
        store
            .save_sso_login(
                state.secret(),
                &PendingSsoLogin {
                    tenant: tenant.name.clone(),
                    nonce: nonce.secret().clone(),
                    pkce_verifier: verifier.secret().clone(),
                    redirect_url: redirect,
                },
                now,
                now.saturating_add(ttl),
            )
            .await?;
        tracing::info!(tenant = %tenant.name, "single sign-on started");
        Ok(url.to_string())
    }

    /// Finishes a sign-in from the provider's return: a one-time id for `/callback?id=`.
    pub async fn finish(
        &self,
        store: &Store,
        config: &Config,
        ret: Return,
    ) -> Result<String, SsoError> {
        // The state is used up first, whatever else the return says.
        let state = ret
            .state
            .filter(|s| !s.is_empty())
            .ok_or(SsoError::StateReplayed)?;
        let pending = match store.take_sso_login(&state, now_secs()).await? {
            SsoLoginLookup::Found(p) => p,
            SsoLoginLookup::Expired => return Err(SsoError::StateExpired),
            SsoLoginLookup::Unknown => return Err(SsoError::StateReplayed),
        };
        let tenant = &pending.tenant;
        let sso = config
            .tenants
            .iter()
            .find(|t| &t.name == tenant)
            .and_then(|t| t.sso.as_ref())
            .ok_or(SsoError::NotConfigured)?;
        // RFC 9207: a return naming another issuer comes from another provider (mix-up).
        if let Some(iss) = ret.iss.filter(|i| i != &sso.issuer) {
            return Err(SsoError::WrongIssuer(format!("the return names '{iss}'")));
        }
        if let Some(error) = ret.error {
            return Err(SsoError::Provider(safe_code(&error)));
        }
        let code = ret
            .code
            .filter(|c| !c.is_empty())
            .ok_or_else(|| SsoError::Provider("no code in the return".into()))?;
        let claims = self.verified_claims(tenant, sso, &pending, code).await?;
        let identity =
            mapping::identity(&claims, sso).map_err(|e| SsoError::NotAllowed(e.to_string()))?;
        let user = console_user(store, sso, &identity).await?;
        let id = store.create_one_time_id(user.id, now_secs()).await?;
        tracing::info!(tenant = %tenant, username = %user.username, "single sign-on succeeded");
        Ok(id)
    }

    /// Exchanges the code and verifies the ID token: its claims, completed from the
    /// userinfo endpoint when the ID token lacks what the mapping reads.
    async fn verified_claims(
        &self,
        tenant: &str,
        sso: &SsoConfig,
        pending: &PendingSsoLogin,
        code: String,
    ) -> Result<Map<String, Value>, SsoError> {
        let mut metadata = self.metadata(tenant, sso, false).await?;
        let http = self.http(tenant, sso)?;
        let client_for = |m: &Metadata| -> Result<_, SsoError> {
            Ok(CoreClient::from_provider_metadata(
                m.clone(),
                ClientId::new(sso.client_id.clone()),
                sso.client_secret.clone().map(ClientSecret::new),
            )
            .set_redirect_uri(
                RedirectUrl::new(pending.redirect_url.clone())
                    .map_err(|e| SsoError::InvalidToken(format!("redirect address: {e}")))?,
            ))
        };
        let client = client_for(&metadata)?;
        let response = client
            .exchange_code(AuthorizationCode::new(code))
            .map_err(|e| SsoError::Provider(format!("token endpoint: {e}")))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.pkce_verifier.clone()))
            .request_async(&http)
            .await
            .map_err(token_error)?;
        let id_token = response
            .id_token()
            .ok_or_else(|| SsoError::InvalidToken("no ID token in the answer".into()))?;
        let nonce = Nonce::new(pending.nonce.clone());
        let skew = chrono::Duration::seconds(i64::try_from(sso.clock_skew_secs).unwrap_or(3600));
        let mut refreshed = false;
        loop {
            let client = client_for(&metadata)?;
            // The provider signs with its own (real) clock: its token is checked against the
            // system's clock, not the server's (`[clock] start` may pin that elsewhere).
            let verifier = client
                .id_token_verifier()
                .set_time_fn(move || chrono::Utc::now() - skew)
                .set_issue_time_verifier_fn(move |iat| {
                    if iat > chrono::Utc::now() + skew {
                        Err(format!("issued in the future ({iat})"))
                    } else {
                        Ok(())
                    }
                });
            match id_token.claims(&verifier, &nonce) {
                Ok(claims) => {
                    if let Some(expected) = claims.access_token_hash() {
                        let alg = id_token
                            .signing_alg()
                            .map_err(|e| SsoError::InvalidToken(e.to_string()))?;
                        let key = id_token
                            .signing_key(&verifier)
                            .map_err(|e| SsoError::InvalidToken(e.to_string()))?;
                        let actual = AccessTokenHash::from_token(response.access_token(), alg, key)
                            .map_err(|e| SsoError::InvalidToken(e.to_string()))?;
                        if actual != *expected {
                            return Err(SsoError::InvalidToken("access token hash differs".into()));
                        }
                    }
                    break;
                }
                Err(openidconnect::ClaimsVerificationError::SignatureVerification(
                    openidconnect::SignatureVerificationError::NoMatchingKey,
                )) if !refreshed => {
                    refreshed = true;
                    metadata = self.refresh_keys(tenant, sso, &metadata).await?;
                }
                Err(openidconnect::ClaimsVerificationError::InvalidIssuer(e)) => {
                    return Err(SsoError::WrongIssuer(e))
                }
                Err(e) => return Err(SsoError::InvalidToken(e.to_string())),
            }
        }
        // The signature is checked: read every claim of the payload, the custom ones too.
        let mut claims = jwt_payload(&id_token.to_string())?;
        if !mapping::complete(&claims, sso) {
            if let Some(url) = metadata.userinfo_endpoint() {
                let info = userinfo(&http, url.as_str(), response.access_token().secret()).await?;
                if info.get("sub") != claims.get("sub") {
                    return Err(SsoError::InvalidToken(
                        "userinfo is about another subject".into(),
                    ));
                }
                for (k, v) in info {
                    claims.entry(k).or_insert(v);
                }
            }
        }
        Ok(claims)
    }

    /// The provider's RP-initiated logout address for the tenant of `host`, returning to the
    /// console's `/login`; `None` when the provider offers none.
    pub async fn logout_url(
        &self,
        config: &Config,
        host: &str,
    ) -> Result<Option<String>, SsoError> {
        let (tenant, sso) = tenant_for_host(config, host).ok_or(SsoError::NotConfigured)?;
        let metadata = self.metadata(&tenant.name, sso, false).await?;
        let Some(end) = metadata.additional_metadata().end_session_endpoint.clone() else {
            return Ok(None);
        };
        let back = redirect_url(sso, host)?.replace(CALLBACK_PATH, "/login");
        let mut request =
            LogoutRequest::from(end).set_client_id(ClientId::new(sso.client_id.clone()));
        if let Ok(u) = PostLogoutRedirectUrl::new(back) {
            request = request.set_post_logout_redirect_uri(u);
        }
        Ok(Some(request.http_get_url().to_string()))
    }
}

/// The console user for a verified identity, under the tenant's mapping rules.
async fn console_user(
    store: &Store,
    sso: &SsoConfig,
    identity: &mapping::Identity,
) -> Result<User, SsoError> {
    let existing = store.user_by_username(&identity.username).await?;
    if sso.mapping == SsoMapping::Existing {
        return existing.ok_or_else(|| {
            SsoError::NotAllowed(format!("{} is not a console user", identity.username))
        });
    }
    let grant = mapping::grant(&identity.groups, sso).ok_or_else(|| {
        SsoError::NotAllowed(format!(
            "{} is in none of the configured groups",
            identity.username
        ))
    })?;
    let group_ids = if grant.role == Role::User {
        grant.group_ids
    } else {
        Vec::new()
    };
    match existing {
        Some(user) => {
            let draft = UserDraft {
                username: user.username.clone(),
                first_name: user.first_name.clone(),
                last_name: user.last_name.clone(),
                role: grant.role,
                access: grant.access,
                group_ids,
            };
            store.update_user(user.id, &draft).await.map_err(refused)?;
            store
                .user(user.id)
                .await?
                .ok_or_else(|| SsoError::NotAllowed("the user was deleted meanwhile".into()))
        }
        None if sso.create_users => {
            let draft = UserDraft {
                username: identity.username.clone(),
                first_name: identity.first_name.clone(),
                last_name: identity.last_name.clone(),
                role: grant.role,
                access: grant.access,
                group_ids,
            };
            // No password: a random one nobody knows (they sign in through the provider).
            let secret = generate_secret();
            let hash = tokio::task::spawn_blocking(move || hash_password(&secret))
                .await
                .map_err(|e| StoreError::Task(e.to_string()))?
                .map_err(|e| StoreError::Task(e.to_string()))?;
            let id = store.create_user(&draft, &hash).await.map_err(refused)?;
            tracing::info!(username = %draft.username, "user created on first single sign-on");
            store
                .user(id)
                .await?
                .ok_or_else(|| SsoError::NotAllowed("the user was deleted meanwhile".into()))
        }
        None => Err(SsoError::NotAllowed(format!(
            "{} is not a console user and users are not created on first sign-in",
            identity.username
        ))),
    }
}

/// A store refusal of the mapped user (e.g. a test case group that does not exist, the last
/// read-write administrator) refuses the sign-in; other store failures stay errors.
fn refused(e: StoreError) -> SsoError {
    match e {
        StoreError::Field(..)
        | StoreError::Conflict(_)
        | StoreError::Invalid(_)
        | StoreError::NotFound(_) => SsoError::NotAllowed(e.to_string()),
        e => SsoError::Store(e),
    }
}

/// A request to the provider that got no answer: its certificate not trusted, or down.
fn request_failed(what: &str, e: &(dyn std::error::Error + 'static)) -> SsoError {
    match crate::trust::untrusted(e) {
        Some(why) => SsoError::ProviderUntrusted(format!(
            "{} ({what})",
            crate::trust::untrusted_reason("tenants.sso", &why)
        )),
        None => SsoError::ProviderDown(format!("{what}: {}", crate::trust::describe(e))),
    }
}

fn discovery_error<E: std::error::Error + 'static>(
    e: &openidconnect::DiscoveryError<E>,
) -> SsoError {
    use openidconnect::DiscoveryError as D;
    match e {
        D::Validation(m) if m.contains("issuer") => SsoError::WrongIssuer(m.clone()),
        D::Request(inner) => request_failed(&e.to_string(), inner),
        D::Response(status, _, _) => SsoError::ProviderDown(format!("discovery answered {status}")),
        other => SsoError::Provider(other.to_string()),
    }
}

fn token_error<RE: std::error::Error + 'static, T: openidconnect::ErrorResponse + 'static>(
    e: openidconnect::RequestTokenError<RE, T>,
) -> SsoError {
    use openidconnect::RequestTokenError as R;
    match e {
        R::Request(inner) => request_failed("token endpoint", &inner),
        R::ServerResponse(r) => {
            let text = serde_json::to_value(&r)
                .ok()
                .and_then(|v| v.get("error").and_then(Value::as_str).map(safe_code))
                .unwrap_or_default();
            SsoError::Provider(format!("token endpoint: {text}"))
        }
        R::Parse(_, _) => SsoError::Provider("token endpoint: unreadable answer".into()),
        R::Other(m) => SsoError::Provider(format!("token endpoint: {m}")),
    }
}

/// The payload of a compact JWT (its signature checked before).
fn jwt_payload(jwt: &str) -> Result<Map<String, Value>, SsoError> {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    let part = jwt
        .split('.')
        .nth(1)
        .ok_or_else(|| SsoError::InvalidToken("not a compact JWT".into()))?;
    let bytes = URL_SAFE_NO_PAD
        .decode(part.trim_end_matches('='))
        .map_err(|e| SsoError::InvalidToken(format!("payload: {e}")))?;
    serde_json::from_slice(&bytes).map_err(|e| SsoError::InvalidToken(format!("payload: {e}")))
}

/// The userinfo answer (plain JSON; a signed one is not read).
async fn userinfo(
    http: &reqwest::Client,
    url: &str,
    token: &str,
) -> Result<Map<String, Value>, SsoError> {
    let resp = http
        .get(url)
        .bearer_auth(token)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| request_failed("userinfo", &e.without_url()))?;
    if !resp.status().is_success() {
        return Err(SsoError::Provider(format!(
            "userinfo answered {}",
            resp.status()
        )));
    }
    resp.json()
        .await
        .map_err(|e| SsoError::Provider(format!("userinfo: {}", e.without_url())))
}

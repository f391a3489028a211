//! Configuration, layered in one place: built-in defaults, then the TOML file, then
//! `CXWATCH_*` environment variables (`__` for nesting, `*_FILE` to read a value from a file),
//! then command-line overrides. Every key has its default here and a line in
//! `config.example.toml`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::providers::{Format, Serialized, Toml};
use figment::Figment;
use serde::{Deserialize, Serialize};

use crate::trust::Roots;
pub use crate::trust::Trust;

/// Where the config file is looked for when `--config` is not given.
pub const DEFAULT_CONFIG_PATH: &str = "/etc/cxwatch/config.toml";
/// Prefix of the environment variables that override config keys.
pub const ENV_PREFIX: &str = "CXWATCH_";
/// Environment variables with the prefix that are not config keys: the log filter, the
/// build-time UI switches (cargo also sets `CXWATCH_UI_DIR` when it runs tests) and the
/// tests' pinned instant (`CXWATCH_TEST_NOW`, which the tests, never cxwatch, read: they pass
/// it on as `[clock] start`; the binaries they start inherit it).
const ENV_NOT_CONFIG: &[&str] = &["UI_DIST", "UI_DIR", "LOG", "TEST_NOW"];

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Directory for the database, generated certificate and recordings.
    pub data_dir: PathBuf,
    pub server: ServerConfig,
    pub tls: TlsConfig,
    pub api: ApiConfig,
    pub site: SiteConfig,
    pub auth: AuthConfig,
    pub proxy: ProxyConfig,
    pub log: LogConfig,
    pub store: StoreConfig,
    /// Delivery of notifications: the outbox sender, e-mail over SMTP, SMS and voice gateways.
    pub notify: NotifyConfig,
    pub metrics: MetricsConfig,
    pub audit: AuditConfig,
    /// The issue tracker (Jira) of every host whose tenant has no `[tenants.jira]`; an
    /// empty `url` means no Jira (the ticket calls answer 409 naming this section).
    pub jira: JiraConfig,
    /// The server's clock: the system's, or one started at a pinned instant (tests).
    pub clock: ClockConfig,
    /// Tenants: which host names the console answers for, and (proxy mode) their upstream.
    pub tenants: Vec<TenantConfig>,
}

/// `[clock]`: what "now" is for the server and the demo (`crate::clock`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ClockConfig {
    /// Empty: the system's clock. An RFC 3339 instant: the clock starts there when the
    /// process starts and runs on at the real pace (tests and demos at a chosen time).
    pub start: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// Address and port to listen on.
    pub listen: SocketAddr,
    /// Host names of the console; used for the generated certificate.
    pub hostnames: Vec<String>,
    /// Serve plain HTTP instead of TLS (only behind a TLS-terminating proxy).
    pub plain_http: bool,
    /// Open connections at most; at the cap the oldest idle one is closed for a new one.
    pub max_connections: usize,
    /// Seconds a client has to finish the TLS handshake.
    pub tls_handshake_timeout_secs: u64,
    /// Seconds a client has to send a request's headers (and, on HTTP/1.1, between requests).
    pub header_timeout_secs: u64,
    /// Seconds a connection without a request in progress is kept open.
    pub idle_timeout_secs: u64,
    /// Add `includeSubDomains` to `Strict-Transport-Security` (every subdomain of the
    /// console's host names is then HTTPS-only in browsers that saw it).
    pub hsts_include_subdomains: bool,
    /// Origins (`https://console.example.com[:port]`) whose pages may call `/api` from the
    /// browser (CORS), for a console served elsewhere. Empty (the default): none, no CORS
    /// headers at all.
    pub cors_origins: Vec<String>,
    /// Addresses or networks of the proxies in front of cxwatch (a TLS-terminating reverse
    /// proxy, a load balancer, a cxwatch in proxy mode) whose `X-Forwarded-For` names the
    /// client, for the sign-in throttle and the audit log (`domain::client`). Empty (the
    /// default): the connection's peer is the client.
    pub trusted_proxies: Vec<String>,
}

impl ServerConfig {
    /// `trusted_proxies` as networks (checked at start-up, so none is dropped here).
    pub fn trusted_proxy_nets(&self) -> Vec<ipnet::IpNet> {
        self.trusted_proxies
            .iter()
            .filter_map(|e| crate::domain::client::parse_trusted(e).ok())
            .collect()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TlsConfig {
    /// PEM certificate chain. Empty: a self-signed certificate is generated in the data directory.
    pub cert: Option<PathBuf>,
    /// PEM private key for `cert`.
    pub key: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum ApiMode {
    /// cxwatch answers `/api` from its own store.
    #[default]
    Embedded,
    /// `/api` is forwarded to the tenant's upstream.
    Proxy,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ApiConfig {
    pub mode: ApiMode,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SiteConfig {
    /// IANA time zone of the site: days and hours of metrics are counted in it.
    pub timezone: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AuthConfig {
    /// Lifetime of a console token, in seconds (embedded mode).
    pub token_ttl_secs: u64,
    /// Lifetime of a token when Remember Me is checked, in days.
    pub remember_ttl_days: u64,
    /// Seconds a session may make no call before it ends (spec §4's 15 minutes, kept on
    /// the server too); kiosk sessions excepted. 0: no idle limit on the server.
    pub idle_timeout_secs: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ProxyConfig {
    /// Upstream time-out, in seconds (504 after it).
    pub timeout_secs: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// Filter in `tracing` syntax, e.g. `info` or `cxwatch=debug,info`.
    pub level: String,
    /// `auto` (text on a terminal, JSON otherwise), `text` or `json`.
    pub format: LogFormat,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Auto,
    Text,
    Json,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    /// SQLite's `synchronous` setting: `normal` (a power cut may drop the last commits) or
    /// `full` (every commit waits for the disk).
    pub synchronous: Synchronous,
    /// SQLite page cache of all connections together, in MiB (a quarter for the writer,
    /// the rest split over the readers).
    pub cache_mib: u32,
    /// Empty: the embedded SQLite file in `data_dir`. `postgres://user@host:5432/db`: the
    /// site's PostgreSQL (docs/postgres.md); `?sslmode=require` for TLS (rustls, the
    /// system's web roots plus `ca_file`). Keep the password out of the URL: `password_file`.
    pub url: String,
    /// The PostgreSQL password, when not in the URL. A secret: give it with `password_file`
    /// or in the environment (`CXWATCH_STORE__PASSWORD_FILE`).
    pub password: String,
    /// File holding the password (read at start-up; trailing newline removed).
    pub password_file: Option<PathBuf>,
    /// PEM file of the CA that signed the PostgreSQL server's certificate (a private CA).
    pub ca_file: Option<PathBuf>,
    /// Roots the server's certificate is checked against with TLS: `webpki` (compiled in),
    /// `system` (the machine's trust store) or `both`; `ca_file` is added to them.
    pub trust: Trust,
    /// PostgreSQL connections kept by this instance at most.
    pub pool_size: u32,
    /// Free space, in MiB, ingest leaves on the data directory's volume: below it, ingest
    /// is refused with 507 until space is freed (`store/space.rs`). 0: never refused.
    pub min_free_mb: u64,
}

impl StoreConfig {
    /// Whether the store is PostgreSQL (`url` given) rather than SQLite.
    pub fn is_postgres(&self) -> bool {
        !self.url.trim().is_empty()
    }

    fn check(&mut self) -> Result<(), String> {
        if !(4..=65536).contains(&self.cache_mib) {
            return Err(format!(
                "store.cache_mib: {} is out of range (4 to 65536)",
                self.cache_mib
            ));
        }
        if self
            .ca_file
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            self.ca_file = None;
        }
        if let Some(path) = self
            .password_file
            .as_ref()
            .filter(|p| !p.as_os_str().is_empty())
        {
            let t = std::fs::read_to_string(path)
                .map_err(|e| format!("store.password_file: cannot read {}: {e}", path.display()))?;
            let t = t.trim_end_matches(['\r', '\n']).to_string();
            if t.is_empty() {
                return Err(format!("store.password_file: {} is empty", path.display()));
            }
            self.password = t;
        } else {
            self.password_file = None;
        }
        if !self.is_postgres() {
            return Ok(());
        }
        let url = self.url.trim();
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(format!(
                "store.url: '{url}' must be a postgres:// address (or empty for SQLite)"
            ));
        }
        if !(1..=1000).contains(&self.pool_size) {
            return Err(format!(
                "store.pool_size: {} is out of range (1 to 1000)",
                self.pool_size
            ));
        }
        Ok(())
    }
}

/// `GET /metrics` (Prometheus, OpenMetrics text): docs/metrics.md.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Bearer token a scraper sends (`Authorization: Bearer <token>`). Empty: `/metrics`
    /// is not served on the main listener. A secret: give it with `token_file` in the
    /// environment (`CXWATCH_METRICS__TOKEN_FILE`).
    pub token: String,
    /// A separate `ADDR:PORT` serving only `/metrics`, plain HTTP (e.g. `127.0.0.1:9464`).
    /// Empty: none. The token is asked there too when one is set.
    pub listen: String,
}

impl MetricsConfig {
    /// The separate listener's address, checked.
    pub fn listen_addr(&self) -> Result<Option<SocketAddr>, String> {
        if self.listen.trim().is_empty() {
            return Ok(None);
        }
        self.listen
            .trim()
            .parse()
            .map(Some)
            .map_err(|e| format!("metrics.listen: {:?} is not ADDR:PORT ({e})", self.listen))
    }
}

/// The audit log (docs/api.md, `GET audit`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AuditConfig {
    /// Days an audit record is kept; older ones are deleted once a day. 0 keeps them all.
    pub retention_days: u32,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            retention_days: 400,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Synchronous {
    #[default]
    Normal,
    Full,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            synchronous: Synchronous::Normal,
            cache_mib: 32,
            url: String::new(),
            password: String::new(),
            password_file: None,
            ca_file: None,
            trust: Trust::Webpki,
            pool_size: 16,
            min_free_mb: 256,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TenantConfig {
    /// Short name of the tenant, shown in the UI.
    pub name: String,
    /// Host names (without port) this tenant is reached at.
    pub hosts: Vec<String>,
    /// Proxy mode: base address of the tenant's upstream API (the part before `/api`).
    pub upstream: Option<String>,
    /// Address of the single sign-on identity service; empty hides the SSO button.
    pub sso_url: Option<String>,
    /// Proxy mode: PEM file of the certificate authority (or the self-signed certificate)
    /// the upstream's certificate is checked against, besides the usual public roots.
    pub upstream_ca: Option<PathBuf>,
    /// Proxy mode: roots the upstream's certificate is checked against: `webpki` (compiled
    /// in), `system` (the machine's trust store) or `both`; `upstream_ca` is added to them.
    pub upstream_trust: Trust,
    /// Proxy mode: accept any upstream certificate. Only for tests; never in production.
    pub upstream_insecure: bool,
    /// Proxy mode: what the upstream's API offers. `spec` (the default): the vendor's API as
    /// the spec's section 7 describes it, and nothing more; `cxwatch`: another cxwatch in
    /// embedded mode, with its additions. Answered in `/tenant-config` as `apiFlavor`.
    pub api_flavor: ApiFlavor,
    /// Embedded mode: single sign-on with an OpenID Connect provider (`[tenants.sso]`,
    /// see docs/sso.md). When set, the tenant's SSO button starts cxwatch's own flow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sso: Option<SsoConfig>,
    /// The tenant's own issue tracker (`[tenants.jira]`), instead of the top-level `[jira]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jira: Option<JiraConfig>,
}

/// What a tenant's upstream API offers (`api_flavor`), so the console knows which of
/// cxwatch's additions it may call. See docs/proxy.md.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum ApiFlavor {
    /// The spec's section 7 calls, section 3 fields, lists as arrays.
    #[default]
    Spec,
    /// cxwatch's embedded API: section 7 and cxwatch's additions.
    Cxwatch,
}

impl ApiFlavor {
    pub fn as_str(self) -> &'static str {
        match self {
            ApiFlavor::Spec => "spec",
            ApiFlavor::Cxwatch => "cxwatch",
        }
    }
}

/// Which Jira the console talks to: Cloud speaks REST v3 (descriptions in the Atlassian
/// Document Format, users by accountId), Server and Data Center REST v2 (wiki markup,
/// users by username).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum JiraFlavour {
    #[default]
    Cloud,
    Server,
}

impl JiraFlavour {
    pub fn as_str(self) -> &'static str {
        match self {
            JiraFlavour::Cloud => "cloud",
            JiraFlavour::Server => "server",
        }
    }
}

/// `[jira]` (or `[tenants.jira]`): the issue tracker tickets are opened in.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct JiraConfig {
    /// Base address of the Jira site (`https://acme.atlassian.net`,
    /// `https://jira.acme.example`); empty: no Jira.
    pub url: String,
    /// `cloud` (REST v3) or `server` (Server / Data Center, REST v2).
    pub flavour: JiraFlavour,
    /// Cloud: the e-mail address of the account the API token belongs to (Basic auth).
    pub email: String,
    /// Cloud: the API token; Server/DC: a personal access token (Bearer). Keep it in a file:
    /// `CXWATCH_JIRA__TOKEN_FILE` or `token_file`.
    pub token: String,
    /// File holding the token (read at start-up; trailing newline removed).
    pub token_file: Option<PathBuf>,
    /// Seconds a call to Jira may take.
    pub timeout_secs: u64,
    /// PEM file of the certificate authority that signed Jira's certificate (a site's own
    /// CA, e.g. for Jira Data Center), trusted besides the roots of `trust`.
    pub ca: Option<PathBuf>,
    /// Roots Jira's certificate is checked against: `webpki` (compiled in), `system` (the
    /// machine's trust store) or `both`.
    pub trust: Trust,
}

impl Default for JiraConfig {
    fn default() -> Self {
        JiraConfig {
            url: String::new(),
            flavour: JiraFlavour::Cloud,
            email: String::new(),
            token: String::new(),
            token_file: None,
            timeout_secs: 30,
            ca: None,
            trust: Trust::Webpki,
        }
    }
}

impl JiraConfig {
    /// Whether a Jira is configured (`url` given).
    pub fn is_set(&self) -> bool {
        !self.url.trim().is_empty()
    }

    /// Checks the section and reads `token_file`; `key` names it in messages.
    fn check(&mut self, key: &str) -> Result<(), String> {
        if self.ca.as_ref().is_some_and(|p| p.as_os_str().is_empty()) {
            self.ca = None;
        }
        if let Some(path) = self
            .token_file
            .as_ref()
            .filter(|p| !p.as_os_str().is_empty())
        {
            let t = std::fs::read_to_string(path)
                .map_err(|e| format!("{key}.token_file: cannot read {}: {e}", path.display()))?;
            self.token = t.trim_end_matches(['\r', '\n']).to_string();
            if self.token.is_empty() {
                return Err(format!("{key}.token_file: {} is empty", path.display()));
            }
        } else {
            self.token_file = None;
        }
        if !self.is_set() {
            return Ok(());
        }
        let url = reqwest::Url::parse(self.url.trim())
            .map_err(|e| format!("{key}.url: '{}' is not an address: {e}", self.url))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(format!(
                "{key}.url: '{}' must be an https:// address",
                self.url
            ));
        }
        self.url = self.url.trim().trim_end_matches('/').to_string();
        if self.token.is_empty() {
            return Err(match self.flavour {
                JiraFlavour::Cloud => format!("{key}.token: Jira Cloud needs an API token"),
                JiraFlavour::Server => {
                    format!("{key}.token: Jira Server/Data Center needs a personal access token")
                }
            });
        }
        if self.flavour == JiraFlavour::Cloud && self.email.trim().is_empty() {
            return Err(format!(
                "{key}.email: Jira Cloud needs the e-mail address the API token belongs to"
            ));
        }
        if self.timeout_secs == 0 {
            return Err(format!("{key}.timeout_secs: must be at least 1"));
        }
        crate::trust::check(Roots::new(key, self.trust, self.ca.as_deref()))
    }
}

/// How roles come to a user signing in with single sign-on.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum SsoMapping {
    /// Role, access and test case groups come from the provider's groups claim at every
    /// sign-in (`admin_groups`, `read_write_groups`, `user_groups`, `test_case_groups`).
    #[default]
    Groups,
    /// Only users already created in cxwatch may sign in; their role, access and groups
    /// are cxwatch's own.
    Existing,
}

/// `[tenants.sso]`: the tenant's OpenID Connect provider (authorization code with PKCE).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SsoConfig {
    /// Issuer URL, exactly as the provider's discovery document names it.
    pub issuer: String,
    pub client_id: String,
    /// File holding the client secret (read at start-up; trailing newline removed).
    pub client_secret_file: Option<PathBuf>,
    /// The secret read from `client_secret_file`.
    #[serde(skip)]
    pub client_secret: Option<String>,
    /// Scopes asked for (`openid` is always asked).
    pub scopes: Vec<String>,
    /// Claim holding the username (an e-mail address).
    pub username_claim: String,
    /// Claim holding the user's groups (a list of names, or one name).
    pub groups_claim: String,
    /// `groups` (roles from the groups claim) or `existing` (only users already in cxwatch).
    pub mapping: SsoMapping,
    /// With `groups`: create a user on first sign-in (otherwise only existing users).
    pub create_users: bool,
    /// Provider groups whose members are ROLE_ADMIN.
    pub admin_groups: Vec<String>,
    /// Provider groups whose members get read-write access (others read-only).
    pub read_write_groups: Vec<String>,
    /// Provider groups whose members may sign in as ROLE_USER.
    pub user_groups: Vec<String>,
    /// Provider group name -> ids of cxwatch test case groups its members see (ROLE_USER);
    /// membership of one also lets a user sign in.
    pub test_case_groups: std::collections::BTreeMap<String, Vec<i64>>,
    /// Return address registered at the provider; empty: `https://<host>/api/auth/sso/callback`
    /// with the host the browser used.
    pub redirect_url: Option<String>,
    /// Tolerated clock difference with the provider when checking token times, in seconds.
    pub clock_skew_secs: u64,
    /// Seconds a started sign-in (its state, nonce and PKCE verifier) stays valid.
    pub login_ttl_secs: u64,
    /// Seconds the provider's discovery document and keys are kept before being fetched again
    /// (keys are fetched at once when a token names an unknown key).
    pub metadata_ttl_secs: u64,
    /// Seconds to wait for the provider's answer.
    pub timeout_secs: u64,
    /// PEM file of the certificate authority that signed the provider's certificate (a
    /// site's own CA, e.g. for ADFS or Keycloak), trusted besides the roots of `trust`.
    pub ca: Option<PathBuf>,
    /// Roots the provider's certificate is checked against: `webpki` (compiled in),
    /// `system` (the machine's trust store) or `both`.
    pub trust: Trust,
}

impl Default for SsoConfig {
    fn default() -> Self {
        SsoConfig {
            issuer: String::new(),
            client_id: String::new(),
            client_secret_file: None,
            client_secret: None,
            scopes: vec!["openid".into(), "email".into(), "profile".into()],
            username_claim: "email".into(),
            groups_claim: "groups".into(),
            mapping: SsoMapping::Groups,
            create_users: false,
            admin_groups: Vec::new(),
            read_write_groups: Vec::new(),
            user_groups: Vec::new(),
            test_case_groups: Default::default(),
            redirect_url: None,
            clock_skew_secs: 60,
            login_ttl_secs: 600,
            metadata_ttl_secs: 3600,
            timeout_secs: 10,
            ca: None,
            trust: Trust::Webpki,
        }
    }
}

impl SsoConfig {
    /// Checks the section and reads the client secret; `key` names it in messages.
    fn check(&mut self, key: &str) -> Result<(), String> {
        let issuer = reqwest::Url::parse(&self.issuer)
            .map_err(|e| format!("{key}.issuer: '{}' is not an address: {e}", self.issuer))?;
        if !matches!(issuer.scheme(), "http" | "https") {
            return Err(format!(
                "{key}.issuer: '{}' must start with https:// (http:// only for a provider on this machine)",
                self.issuer
            ));
        }
        if self.client_id.trim().is_empty() {
            return Err(format!("{key}.client_id: must not be empty"));
        }
        if self.username_claim.trim().is_empty() {
            return Err(format!("{key}.username_claim: must not be empty"));
        }
        if self.groups_claim.trim().is_empty() {
            return Err(format!("{key}.groups_claim: must not be empty"));
        }
        if let Some(u) = self
            .redirect_url
            .as_deref()
            .filter(|u| !u.trim().is_empty())
        {
            let url = reqwest::Url::parse(u)
                .map_err(|e| format!("{key}.redirect_url: '{u}' is not an address: {e}"))?;
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err(format!(
                    "{key}.redirect_url: '{u}' must be an https:// address"
                ));
            }
        } else {
            self.redirect_url = None;
        }
        for (k, v) in [
            ("login_ttl_secs", self.login_ttl_secs),
            ("metadata_ttl_secs", self.metadata_ttl_secs),
            ("timeout_secs", self.timeout_secs),
        ] {
            if v == 0 {
                return Err(format!("{key}.{k}: must be at least 1"));
            }
        }
        if self.mapping == SsoMapping::Existing && self.create_users {
            return Err(format!(
                "{key}.create_users: users cannot be created with mapping = \"existing\" (use mapping = \"groups\")"
            ));
        }
        if let Some(path) = self
            .client_secret_file
            .as_ref()
            .filter(|p| !p.as_os_str().is_empty())
        {
            let secret = std::fs::read_to_string(path).map_err(|e| {
                format!(
                    "{key}.client_secret_file: cannot read {}: {e}",
                    path.display()
                )
            })?;
            let secret = secret.trim_end_matches(['\r', '\n']).to_string();
            if secret.is_empty() {
                return Err(format!(
                    "{key}.client_secret_file: {} is empty",
                    path.display()
                ));
            }
            self.client_secret = Some(secret);
        } else {
            self.client_secret_file = None;
        }
        if self.ca.as_ref().is_some_and(|p| p.as_os_str().is_empty()) {
            self.ca = None;
        }
        crate::trust::check(Roots::new(key, self.trust, self.ca.as_deref()))
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data_dir: PathBuf::from("/var/lib/cxwatch"),
            server: ServerConfig::default(),
            tls: TlsConfig::default(),
            api: ApiConfig::default(),
            site: SiteConfig::default(),
            auth: AuthConfig::default(),
            proxy: ProxyConfig::default(),
            log: LogConfig::default(),
            store: StoreConfig::default(),
            notify: NotifyConfig::default(),
            metrics: MetricsConfig::default(),
            audit: AuditConfig::default(),
            jira: JiraConfig::default(),
            clock: ClockConfig::default(),
            tenants: Vec::new(),
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: SocketAddr::from(([0, 0, 0, 0], 8443)),
            hostnames: vec!["localhost".into()],
            plain_http: false,
            max_connections: 1000,
            tls_handshake_timeout_secs: 10,
            header_timeout_secs: 10,
            idle_timeout_secs: 60,
            hsts_include_subdomains: false,
            cors_origins: Vec::new(),
            trusted_proxies: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NotifyConfig {
    /// The console's address as people reach it, for the links in messages
    /// (`https://console.example.com`). Empty: messages carry no link.
    pub public_url: String,
    /// Largest call recording attached to an alert e-mail (attach recording), in bytes; a
    /// larger recording is not attached (the e-mail links to the alert).
    pub attach_recording_max_bytes: u64,
    /// Attempts per notification before it is marked failed.
    pub max_attempts: u32,
    /// Seconds before the first retry; each further retry waits twice as long.
    pub retry_first_secs: u64,
    /// Longest wait between two attempts, in seconds.
    pub retry_max_secs: u64,
    /// Notifications sent at the same time at most.
    pub concurrency: usize,
    /// Of those, at most this many to one destination (the mail server, a gateway, one
    /// webhook host): a receiver that hangs holds these slots, never all of them.
    pub per_destination: usize,
    /// Milliseconds between two looks at the outbox when nothing woke the sender.
    pub poll_ms: u64,
    pub smtp: SmtpConfig,
    pub sms: GatewayConfig,
    pub voice: GatewayConfig,
    pub webhook: WebhookConfig,
}

/// The chat and webhook channels (contact types Webhook, Microsoft Teams, Slack,
/// Mattermost): each contact's URL is its own; what is common is here.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WebhookConfig {
    /// Send to webhook contacts. Off (the default): nothing leaves the machine; their
    /// notifications are recorded and fail with that reason.
    pub enabled: bool,
    /// Key of the `X-Cxwatch-Signature` header of generic webhooks (HMAC-SHA256 of
    /// `{timestamp}.{body}`, see docs/notifications.md); empty: no signature (use the `_FILE`
    /// variable).
    pub secret: String,
    /// Extra headers of generic webhooks, e.g. `{ Authorization = "Bearer …" }`.
    pub headers: std::collections::BTreeMap<String, String>,
    /// PEM file of a private certificate authority for https receivers.
    pub ca: Option<PathBuf>,
    /// Roots an https receiver's certificate is checked against: `webpki`, `system` or `both`.
    pub trust: Trust,
    /// Seconds the whole request may take.
    pub timeout_secs: u64,
    /// Hosts (as written in the URL: a name or an address) that webhooks may reach although
    /// they are loopback or link-local (127.0.0.0/8, ::1, 169.254.0.0/16, fe80::/10), e.g.
    /// a receiver on the same machine. Any other such target is refused.
    pub allowed_hosts: Vec<String>,
}

impl Default for WebhookConfig {
    fn default() -> Self {
        WebhookConfig {
            enabled: false,
            secret: String::new(),
            headers: Default::default(),
            ca: None,
            trust: Trust::Webpki,
            timeout_secs: 15,
            allowed_hosts: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum SmtpSecurity {
    /// Plain SMTP (only on a trusted network).
    None,
    /// Plain connection upgraded with STARTTLS, which is required.
    #[default]
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SmtpConfig {
    /// Mail server host name. Empty: no e-mail is sent (notifications are recorded, and
    /// e-mail ones fail with that reason).
    pub host: String,
    pub port: u16,
    pub security: SmtpSecurity,
    /// User name for AUTH; empty: no authentication.
    pub username: String,
    /// Password for AUTH (use `CXWATCH_NOTIFY__SMTP__PASSWORD_FILE`).
    pub password: String,
    /// PEM file of a private certificate authority the server's certificate is checked
    /// against (besides the roots of `trust`).
    pub ca: Option<PathBuf>,
    /// Roots the server's certificate is checked against: `webpki` (compiled in), `system`
    /// (the machine's trust store) or `both`.
    pub trust: Trust,
    /// The From address: `cxwatch <cxwatch@example.com>` or a bare address.
    pub from: String,
    /// Name given in EHLO; empty: this machine's host name.
    pub helo: String,
    /// Seconds each network step (connect, TLS, each command) may take.
    pub timeout_secs: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct GatewayConfig {
    /// The gateway's address, with placeholders (see config.example.toml). Empty: this
    /// channel is not sent (its notifications fail with that reason).
    pub url: String,
    /// HTTP method: GET or POST.
    pub method: String,
    /// Extra request headers, with placeholders, e.g. `{ Authorization = "Bearer {secret}" }`.
    pub headers: std::collections::BTreeMap<String, String>,
    /// Request body with placeholders; empty: no body.
    pub body: String,
    /// Content-Type of the body.
    pub content_type: String,
    /// User name for HTTP Basic authentication; empty: none.
    pub username: String,
    /// Password for Basic authentication (use the `_FILE` variable).
    pub password: String,
    /// A secret (API token, gateway password) put where the template says `{secret}` (use
    /// the `_FILE` variable).
    pub secret: String,
    /// PEM file of a private certificate authority for an https gateway.
    pub ca: Option<PathBuf>,
    /// Roots an https gateway's certificate is checked against: `webpki` (compiled in),
    /// `system` (the machine's trust store) or `both`.
    pub trust: Trust,
    /// Seconds the whole request may take.
    pub timeout_secs: u64,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        NotifyConfig {
            public_url: String::new(),
            attach_recording_max_bytes: 5 * 1024 * 1024,
            max_attempts: 8,
            retry_first_secs: 5,
            retry_max_secs: 3600,
            concurrency: 8,
            per_destination: 4,
            poll_ms: 1000,
            smtp: SmtpConfig::default(),
            sms: GatewayConfig::default(),
            voice: GatewayConfig::default(),
            webhook: WebhookConfig::default(),
        }
    }
}

impl Default for SmtpConfig {
    fn default() -> Self {
        SmtpConfig {
            host: String::new(),
            port: 587,
            security: SmtpSecurity::Starttls,
            username: String::new(),
            password: String::new(),
            ca: None,
            trust: Trust::Webpki,
            from: "cxwatch <cxwatch@localhost>".into(),
            helo: String::new(),
            timeout_secs: 30,
        }
    }
}

impl Default for GatewayConfig {
    fn default() -> Self {
        GatewayConfig {
            url: String::new(),
            method: "POST".into(),
            headers: Default::default(),
            body: String::new(),
            content_type: "application/x-www-form-urlencoded".into(),
            username: String::new(),
            password: String::new(),
            secret: String::new(),
            ca: None,
            trust: Trust::Webpki,
            timeout_secs: 15,
        }
    }
}

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            timezone: "America/Toronto".into(),
        }
    }
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig {
            token_ttl_secs: 12 * 60 * 60,
            remember_ttl_days: 30,
            idle_timeout_secs: 15 * 60,
        }
    }
}

impl Default for ProxyConfig {
    fn default() -> Self {
        ProxyConfig { timeout_secs: 30 }
    }
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            level: "info".into(),
            format: LogFormat::Auto,
        }
    }
}

/// Command-line values that override the file and the environment.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub listen: Option<SocketAddr>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {0} does not exist")]
    Missing(PathBuf),
    #[error("environment variable {var}: cannot read the file {path}: {source}")]
    EnvFile {
        var: String,
        path: String,
        source: std::io::Error,
    },
    #[error("environment variable {0} does not name a config key (use CXWATCH_SECTION__KEY, e.g. CXWATCH_SERVER__LISTEN)")]
    EnvName(String),
    #[error("config: {0}")]
    Invalid(String),
}

/// Keys whose values are secrets: `cxwatch config check` shows them masked.
const SECRET_KEYS: [&str; 4] = ["password", "token", "secret", "client_secret"];

/// Replaces non-empty secrets with `********` and drops unset values (TOML has no null).
fn mask_secrets(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            for (k, v) in map.iter_mut() {
                let secret =
                    SECRET_KEYS.contains(&k.as_str()) && v.as_str().is_some_and(|s| !s.is_empty());
                if secret {
                    *v = "********".into();
                } else {
                    mask_secrets(v);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(mask_secrets),
        _ => {}
    }
}

impl Config {
    /// The effective configuration as TOML, secrets masked (`cxwatch config check`).
    pub fn masked_toml(&self) -> Result<String, ConfigError> {
        let bad = |e: &dyn std::fmt::Display| ConfigError::Invalid(format!("cannot print: {e}"));
        let mut value = serde_json::to_value(self).map_err(|e| bad(&e))?;
        mask_secrets(&mut value);
        let table = toml::Value::try_from(value).map_err(|e| bad(&e))?;
        toml::to_string(&table).map_err(|e| bad(&e))
    }

    /// Loads the layered configuration. `--config` must exist when given; otherwise
    /// `/etc/cxwatch/config.toml` is read when present.
    pub fn load(overrides: &Overrides) -> Result<Config, ConfigError> {
        let file = match &overrides.config {
            Some(path) if !path.exists() => return Err(ConfigError::Missing(path.clone())),
            Some(path) => Some(path.clone()),
            None => Some(PathBuf::from(DEFAULT_CONFIG_PATH)).filter(|p| p.exists()),
        };
        Self::load_from(file.as_deref(), std::env::vars(), overrides)
    }

    /// [`Config::load`] with the file and the environment given, for tests.
    pub fn load_from(
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
        overrides: &Overrides,
    ) -> Result<Config, ConfigError> {
        let figment = Self::figment(file, env, overrides)?;
        figment
            .extract_lossy::<Config>()
            .map_err(|e| ConfigError::Invalid(describe(e, &figment)))?
            .validate()
    }

    /// The layers, with the environment passed in so tests can give their own.
    pub fn figment(
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
        overrides: &Overrides,
    ) -> Result<Figment, ConfigError> {
        let mut fig = Figment::from(Serialized::defaults(Config::default()));
        if let Some(path) = file {
            fig = fig.merge(Toml::file_exact(path));
        }
        for var in env_vars(env)? {
            fig = fig.merge(var);
        }
        if let Some(dir) = &overrides.data_dir {
            fig = fig.merge(KeyValue {
                source: "--data-dir".into(),
                key: "data_dir".into(),
                value: dir.to_string_lossy().into_owned().into(),
            });
        }
        if let Some(listen) = &overrides.listen {
            fig = fig.merge(KeyValue {
                source: "--listen".into(),
                key: "server.listen".into(),
                value: listen.to_string().into(),
            });
        }
        Ok(fig)
    }

    fn validate(mut self) -> Result<Config, ConfigError> {
        let invalid = |msg: String| Err(ConfigError::Invalid(msg));
        // An empty value (e.g. `CXWATCH_TLS__CERT=`) means "not set".
        let empty_path = |p: &Option<PathBuf>| p.as_ref().is_some_and(|p| p.as_os_str().is_empty());
        if empty_path(&self.tls.cert) {
            self.tls.cert = None;
        }
        if empty_path(&self.tls.key) {
            self.tls.key = None;
        }
        for t in &mut self.tenants {
            if t.sso_url.as_deref().is_some_and(|u| u.trim().is_empty()) {
                t.sso_url = None;
            }
            if t.upstream.as_deref().is_some_and(|u| u.trim().is_empty()) {
                t.upstream = None;
            }
            if empty_path(&t.upstream_ca) {
                t.upstream_ca = None;
            }
        }

        if empty_path(&self.notify.smtp.ca) {
            self.notify.smtp.ca = None;
        }
        if empty_path(&self.notify.webhook.ca) {
            self.notify.webhook.ca = None;
        }
        for g in [&mut self.notify.sms, &mut self.notify.voice] {
            if empty_path(&g.ca) {
                g.ca = None;
            }
        }
        if let Err(msg) = check_notify(&self.notify) {
            return invalid(msg);
        }
        if let Err(msg) = self.jira.check("jira") {
            return invalid(msg);
        }
        for (i, t) in self.tenants.iter_mut().enumerate() {
            if let Some(j) = t.jira.as_mut() {
                if let Err(msg) = j.check(&format!("tenants[{i}].jira")) {
                    return invalid(msg);
                }
            }
        }
        if self.data_dir.as_os_str().is_empty() {
            return invalid("data_dir: must not be empty".into());
        }
        if let Err(msg) = self.store.check() {
            return invalid(msg);
        }
        if let Err(why) = crate::clock::parse_start(&self.clock.start) {
            return invalid(format!("clock.start: {why}"));
        }
        if self.site.timezone.parse::<chrono_tz::Tz>().is_err() {
            return invalid(format!(
                "site.timezone: unknown time zone '{}' (use an IANA name such as America/Toronto)",
                self.site.timezone
            ));
        }
        if let Err(why) = check_log_filter(&self.log.level) {
            return invalid(format!(
                "log.level: '{}' is not a valid filter: {why}",
                self.log.level
            ));
        }
        if self.server.hostnames.iter().any(|h| !valid_host(h)) {
            return invalid(format!(
                "server.hostnames: {:?} must be host names or IP addresses without port",
                self.server.hostnames
            ));
        }
        for entry in &self.server.trusted_proxies {
            if let Err(msg) = crate::domain::client::parse_trusted(entry) {
                return invalid(format!("server.trusted_proxies: {msg}"));
            }
        }
        for o in &mut self.server.cors_origins {
            match check_origin(o) {
                Ok(origin) => *o = origin,
                Err(msg) => return invalid(format!("server.cors_origins: {msg}")),
            }
        }
        if self.tls.cert.is_some() != self.tls.key.is_some() {
            return invalid("tls.cert and tls.key: give both or neither".into());
        }
        let s = &self.server;
        for (key, value) in [
            ("server.max_connections", s.max_connections as u64),
            (
                "server.tls_handshake_timeout_secs",
                s.tls_handshake_timeout_secs,
            ),
            ("server.header_timeout_secs", s.header_timeout_secs),
            ("server.idle_timeout_secs", s.idle_timeout_secs),
        ] {
            if value == 0 {
                return invalid(format!("{key}: must be at least 1"));
            }
        }
        if self.proxy.timeout_secs == 0 {
            return invalid("proxy.timeout_secs: must be at least 1".into());
        }
        if self.auth.token_ttl_secs == 0 {
            return invalid("auth.token_ttl_secs: must be at least 1 (seconds)".into());
        }
        if self.auth.remember_ttl_days == 0 {
            return invalid("auth.remember_ttl_days: must be at least 1".into());
        }
        let mut seen: Vec<String> = Vec::new();
        for (i, t) in self.tenants.iter().enumerate() {
            if t.name.trim().is_empty() {
                return invalid(format!("tenants[{i}].name: must not be empty"));
            }
            if t.hosts.is_empty() {
                return invalid(format!(
                    "tenants[{i}].hosts: give at least one host name of tenant '{}'",
                    t.name
                ));
            }
            for h in &t.hosts {
                if !valid_host(h) {
                    return invalid(format!(
                        "tenants[{i}].hosts: '{h}' must be a host name or IP address without port"
                    ));
                }
                let h = normalize_host(h);
                if seen.contains(&h) {
                    return invalid(format!(
                        "tenants[{i}].hosts: '{h}' is already used by another tenant"
                    ));
                }
                seen.push(h);
            }
            if let Some(u) = t.upstream.as_deref() {
                if let Err(msg) = check_upstream(u) {
                    return invalid(format!("tenants[{i}].upstream: {msg}"));
                }
            }
            if let Some(u) = t.sso_url.as_deref() {
                if !(u.starts_with("https://") || u.starts_with("http://")) {
                    return invalid(format!(
                        "tenants[{i}].sso_url: '{u}' must be an http:// or https:// address"
                    ));
                }
            }
        }
        let mode = self.api.mode;
        for (i, t) in self.tenants.iter_mut().enumerate() {
            if let Some(sso) = t.sso.as_mut() {
                if mode == ApiMode::Proxy {
                    return invalid(format!(
                        "tenants[{i}].sso: OpenID Connect sign-in needs api.mode = \"embedded\" (in proxy mode give sso_url)"
                    ));
                }
                if let Err(msg) = sso.check(&format!("tenants[{i}].sso")) {
                    return invalid(msg);
                }
            }
        }
        if self.api.mode == ApiMode::Proxy {
            if self.tenants.is_empty() {
                return invalid(
                    "tenants: proxy mode needs at least one [[tenants]] with hosts and upstream"
                        .into(),
                );
            }
            for (i, t) in self.tenants.iter().enumerate() {
                if t.upstream.is_none() {
                    return invalid(format!(
                        "tenants[{i}].upstream: proxy mode needs the upstream address of tenant '{}'",
                        t.name
                    ));
                }
            }
        }
        Ok(self)
    }

    /// The instant `[clock] start` pins the clock to (validated at load), if any.
    pub fn clock_start(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        crate::clock::parse_start(&self.clock.start).ok().flatten()
    }

    /// The site's time zone (validated at load).
    pub fn tz(&self) -> chrono_tz::Tz {
        self.site
            .timezone
            .parse()
            .unwrap_or(chrono_tz::America::Toronto)
    }

    /// The product's and the site's names, which a new password must not be made of
    /// (`domain::user::site_words`): the tenants' names, the console's host names and the
    /// host of `notify.public_url`.
    pub fn password_words(&self) -> Vec<String> {
        let public = reqwest::Url::parse(&self.notify.public_url)
            .ok()
            .and_then(|u| u.host_str().map(String::from));
        let names: Vec<&str> = self
            .tenants
            .iter()
            .map(|t| t.name.as_str())
            .chain(self.server.hostnames.iter().map(String::as_str))
            .chain(public.as_deref())
            .collect();
        crate::domain::user::site_words(names)
    }

    /// The tenant whose host names include `host` (port ignored, case-insensitive).
    pub fn tenant_for_host(&self, host: &str) -> Option<&TenantConfig> {
        let host = strip_port(host);
        self.tenants
            .iter()
            .find(|t| t.hosts.iter().any(|h| same_host(h, host)))
    }

    /// The Jira of the tenant `host` belongs to (its `[tenants.jira]`), else `[jira]`;
    /// `None` when neither is configured.
    pub fn jira_for_host(&self, host: Option<&str>) -> Option<&JiraConfig> {
        let tenant = host
            .and_then(|h| self.tenant_for_host(h))
            .and_then(|t| t.jira.as_ref());
        tenant.or(Some(&self.jira)).filter(|j| j.is_set())
    }

    /// Every host name the console answers for: `server.hostnames` and the tenants' hosts.
    pub fn all_hostnames(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let all = self.server.hostnames.iter();
        for h in all.chain(self.tenants.iter().flat_map(|t| t.hosts.iter())) {
            let h = normalize_host(h);
            if !names.contains(&h) {
                names.push(h);
            }
        }
        names
    }
}

/// The host part of a `Host` header or authority: `[::1]:8443` -> `::1`, `a.test:8443` -> `a.test`.
pub fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        // More than one colon without brackets: a bare IPv6 address.
        Some((h, _)) if h.contains(':') => host,
        Some((h, _)) => h,
        None => host,
    }
}

/// Lower case, without a trailing dot.
fn normalize_host(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// Whether two host names are one once normalised ([`normalize_host`]), without allocating.
fn same_host(a: &str, b: &str) -> bool {
    a.trim_end_matches('.')
        .eq_ignore_ascii_case(b.trim_end_matches('.'))
}

fn valid_host(h: &str) -> bool {
    if h.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    !h.is_empty()
        && h.len() <= 253
        && h.split('.').filter(|l| !l.is_empty()).all(|l| {
            l.len() <= 63
                && l.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        && !h.starts_with('.')
}

/// A browser origin as CORS compares it: `scheme://host[:port]`, lower case, nothing after.
fn check_origin(o: &str) -> Result<String, String> {
    let o = o.trim();
    let bad = || {
        format!("'{o}' must be an origin such as https://console.example.com (scheme, host and port only; '*' is not taken)")
    };
    let url = reqwest::Url::parse(o).map_err(|_| bad())?;
    let origin = url.origin();
    if !matches!(url.scheme(), "http" | "https")
        || !origin.is_tuple()
        || !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
        || url.path() != "/"
        || o.ends_with('/')
    {
        return Err(bad());
    }
    Ok(origin.ascii_serialization())
}

fn check_upstream(u: &str) -> Result<(), String> {
    let url = reqwest::Url::parse(u).map_err(|e| format!("'{u}' is not an address: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("'{u}' must start with http:// or https://"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("'{u}' has no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("'{u}' must not have a query or fragment"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("'{u}' must not contain credentials"));
    }
    if url.path().trim_end_matches('/').ends_with("/api") {
        return Err(format!(
            "'{u}' must be the base address without /api (the request's /api/... path is appended)"
        ));
    }
    Ok(())
}

fn check_notify(n: &NotifyConfig) -> Result<(), String> {
    for (key, value) in [
        ("notify.max_attempts", u64::from(n.max_attempts)),
        ("notify.retry_first_secs", n.retry_first_secs),
        ("notify.retry_max_secs", n.retry_max_secs),
        ("notify.concurrency", n.concurrency as u64),
        ("notify.per_destination", n.per_destination as u64),
        ("notify.poll_ms", n.poll_ms),
        ("notify.smtp.timeout_secs", n.smtp.timeout_secs),
        ("notify.sms.timeout_secs", n.sms.timeout_secs),
        ("notify.voice.timeout_secs", n.voice.timeout_secs),
        ("notify.webhook.timeout_secs", n.webhook.timeout_secs),
    ] {
        if value == 0 {
            return Err(format!("{key}: must be at least 1"));
        }
    }
    if !n.public_url.is_empty() {
        let ok = reqwest::Url::parse(&n.public_url)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
        if !ok {
            return Err(format!(
                "notify.public_url: '{}' must be an http:// or https:// address",
                n.public_url
            ));
        }
    }
    if !n.smtp.host.is_empty() {
        if n.smtp.port == 0 {
            return Err("notify.smtp.port: must be at least 1".into());
        }
        if n.smtp.from.parse::<lettre::message::Mailbox>().is_err() {
            return Err(format!(
                "notify.smtp.from: '{}' is not an address (name@domain or Name <name@domain>)",
                n.smtp.from
            ));
        }
    }
    for (name, g) in [("sms", &n.sms), ("voice", &n.voice)] {
        if !matches!(
            g.method.to_ascii_uppercase().as_str(),
            "GET" | "POST" | "PUT"
        ) {
            return Err(format!(
                "notify.{name}.method: '{}' must be GET, POST or PUT",
                g.method
            ));
        }
        if !(g.url.is_empty() || g.url.starts_with("http://") || g.url.starts_with("https://")) {
            return Err(format!(
                "notify.{name}.url: '{}' must start with http:// or https://",
                g.url
            ));
        }
    }
    for name in n.webhook.headers.keys() {
        if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(format!(
                "notify.webhook.headers: '{name}' is not a header name"
            ));
        }
    }
    Ok(())
}

/// One key set by an environment variable or a command-line option, as a figment
/// provider named after it, so errors say where a bad value came from.
struct KeyValue {
    source: String,
    key: String,
    value: figment::value::Value,
}

impl figment::Provider for KeyValue {
    fn metadata(&self) -> figment::Metadata {
        figment::Metadata::named(self.source.clone())
    }

    fn data(
        &self,
    ) -> Result<figment::value::Map<figment::Profile, figment::value::Dict>, figment::Error> {
        match figment::util::nest(&self.key, self.value.clone()).into_dict() {
            Some(dict) => Ok(figment::Profile::Default.collect(dict)),
            None => Err(figment::Error::from(format!(
                "{} does not name a config key",
                self.source
            ))),
        }
    }
}

/// `CXWATCH_A__B=v` sets `a.b`; `CXWATCH_A__B_FILE=/path` sets `a.b` to the file's content
/// (trailing newline removed). Values are strings (turned into numbers or booleans where the
/// key wants one); a value starting with `[` or `{` is read as an array or table.
fn env_vars(env: impl IntoIterator<Item = (String, String)>) -> Result<Vec<KeyValue>, ConfigError> {
    let mut vars: Vec<KeyValue> = Vec::new();
    let mut env: Vec<(String, String)> = env.into_iter().collect();
    env.sort();
    for (name, value) in env {
        let Some(key) = name.strip_prefix(ENV_PREFIX) else {
            continue;
        };
        if ENV_NOT_CONFIG.contains(&key) {
            continue;
        }
        let (key, value) = match key.strip_suffix("_FILE") {
            Some(k) => match std::fs::read_to_string(&value) {
                Ok(content) => (
                    k,
                    figment::value::Value::from(content.trim_end_matches(['\r', '\n']).to_string()),
                ),
                Err(source) => {
                    return Err(ConfigError::EnvFile {
                        var: name,
                        path: value,
                        source,
                    })
                }
            },
            None => (key, parse_env_value(&value)),
        };
        let path = key.to_ascii_lowercase().replace("__", ".");
        let well_formed = !path.is_empty()
            && path.split('.').all(|seg| {
                !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            });
        if !well_formed {
            return Err(ConfigError::EnvName(name));
        }
        vars.push(KeyValue {
            source: format!("environment variable {name}"),
            key: path,
            value,
        });
    }
    Ok(vars)
}

fn parse_env_value(v: &str) -> figment::value::Value {
    let t = v.trim_start();
    if t.starts_with('[') || t.starts_with('{') {
        // Never fails: what is not an array or table stays a string.
        let Ok(parsed) = v.parse::<figment::value::Value>();
        return parsed;
    }
    figment::value::Value::from(v.to_string())
}

/// One line per problem, each naming the key, what is wrong, and where the value came from.
fn describe(err: figment::Error, figment: &Figment) -> String {
    let mut lines = Vec::new();
    for e in err {
        let mut path = e.path.clone();
        let what = match &e.kind {
            figment::error::Kind::UnknownField(name, expected) => {
                if path.last() != Some(name) {
                    path.push(name.clone());
                }
                if expected.is_empty() {
                    "unknown key".to_string()
                } else {
                    format!("unknown key (known here: {})", expected.join(", "))
                }
            }
            figment::error::Kind::UnknownVariant(found, expected) => {
                format!(
                    "unknown value `{found}` (use one of: {})",
                    expected.join(", ")
                )
            }
            kind => kind.to_string(),
        };
        let key = path.join(".");
        // The provider that set the key; for unknown keys the error's own metadata is the
        // enclosing table's, which may come from another layer.
        let source = figment
            .find_metadata(&key)
            .or(e.metadata.as_ref())
            .map(source_name)
            .map(|s| format!(" (from {s})"))
            .unwrap_or_default();
        if key.is_empty() {
            lines.push(format!("{what}{source}"));
        } else {
            lines.push(format!("{key}: {what}{source}"));
        }
    }
    lines.join("; ")
}

fn source_name(m: &figment::Metadata) -> String {
    match &m.source {
        Some(figment::Source::File(path)) => format!("{} {}", m.name, path.display()),
        _ => m.name.to_string(),
    }
}

/// The levels a filter directive may name.
const LOG_LEVELS: [&str; 6] = ["trace", "debug", "info", "warn", "error", "off"];

/// Checks `log.level` as tracing's `EnvFilter` reads it, and more strictly: a directive without
/// `=` must be a level, since tracing reads any other bare word as a target (`verbose` would
/// show only the lines of a target named 'verbose', which is none of them).
fn check_log_filter(filter: &str) -> Result<(), String> {
    tracing_subscriber::EnvFilter::try_new(filter).map_err(|e| e.to_string())?;
    for d in filter.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        if !d.contains('=') && !LOG_LEVELS.contains(&d.to_ascii_lowercase().as_str()) {
            return Err(format!(
                "'{d}' is not a level (use one of {}, or target=level)",
                LOG_LEVELS.join(", ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(toml: &str, env: &[(&str, &str)]) -> Result<Config, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, toml).unwrap();
        let env = env.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        Config::load_from(Some(&path), env, &Overrides::default()).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_apply() {
        let c = load("", &[]).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.site.timezone, "America/Toronto");
        assert_eq!(c.proxy.timeout_secs, 30);
        assert_eq!(c.server.listen.to_string(), "0.0.0.0:8443");
    }

    #[test]
    fn file_then_env_then_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(
            &path,
            "data_dir = \"/srv/x\"\n[server]\nlisten = \"127.0.0.1:9000\"\n[proxy]\ntimeout_secs = 5\n",
        )
        .unwrap();
        let env = [
            ("CXWATCH_SERVER__PLAIN_HTTP", "true"),
            ("CXWATCH_DATA_DIR", "/srv/y"),
            ("CXWATCH_PROXY__TIMEOUT_SECS", "7"),
            ("CXWATCH_SERVER__HOSTNAMES", "[a.test, b.test]"),
            ("CXWATCH_LOG", "debug"),
            ("OTHER", "x"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let c = Config::load_from(Some(&path), env.clone(), &Overrides::default()).unwrap();
        assert_eq!(c.server.listen.to_string(), "127.0.0.1:9000");
        assert!(c.server.plain_http);
        assert_eq!(c.data_dir, PathBuf::from("/srv/y"));
        assert_eq!(c.proxy.timeout_secs, 7);
        assert_eq!(c.server.hostnames, vec!["a.test", "b.test"]);

        let overrides = Overrides {
            config: None,
            data_dir: Some("/srv/z".into()),
            listen: Some("127.0.0.1:9100".parse().unwrap()),
        };
        let c = Config::load_from(Some(&path), env, &overrides).unwrap();
        assert_eq!(c.data_dir, PathBuf::from("/srv/z"));
        assert_eq!(c.server.listen.to_string(), "127.0.0.1:9100");
    }

    #[test]
    fn string_keys_keep_numeric_env_values() {
        let c = load(
            "",
            &[("CXWATCH_LOG__LEVEL", "info"), ("CXWATCH_DATA_DIR", "2024")],
        )
        .unwrap();
        assert_eq!(c.data_dir, PathBuf::from("2024"));
    }

    #[test]
    fn unknown_key_is_named() {
        let err = load("[server]\nlisen = \"1.2.3.4:1\"\n", &[]).unwrap_err();
        assert!(err.contains("server.lisen: unknown key"), "{err}");
        assert!(err.contains("TOML file"), "{err}");
        let err = load("colour = 1\n", &[]).unwrap_err();
        assert!(err.contains("colour: unknown key"), "{err}");
        let err = load("", &[("CXWATCH_SERVER__PORT", "1")]).unwrap_err();
        assert!(err.contains("server.port: unknown key"), "{err}");
        assert!(
            err.contains("environment variable CXWATCH_SERVER__PORT"),
            "{err}"
        );
        let err = load("", &[("CXWATCH_SERVER__", "1")]).unwrap_err();
        assert!(err.contains("CXWATCH_SERVER__"), "{err}");
    }

    #[test]
    fn bad_value_is_named() {
        let err = load("[server]\nlisten = \"nowhere\"\n", &[]).unwrap_err();
        assert!(err.contains("server.listen"), "{err}");
        let err = load("", &[("CXWATCH_SERVER__PLAIN_HTTP", "maybe")]).unwrap_err();
        assert!(err.contains("server.plain_http"), "{err}");
        assert!(err.contains("CXWATCH_SERVER__PLAIN_HTTP"), "{err}");
        let err = load("[api]\nmode = \"sideways\"\n", &[]).unwrap_err();
        assert!(
            err.contains("api.mode: unknown value `sideways` (use one of: embedded, proxy)"),
            "{err}"
        );
        let err = load("[site]\ntimezone = \"Mars/Olympus\"\n", &[]).unwrap_err();
        assert!(err.contains("site.timezone"), "{err}");
        let err = load("[proxy]\ntimeout_secs = 0\n", &[]).unwrap_err();
        assert!(err.contains("proxy.timeout_secs"), "{err}");
        let err = load("[log]\nlevel = \"cxwatch=loud\"\n", &[]).unwrap_err();
        assert!(err.contains("log.level"), "{err}");
        // A bare word is a target to tracing: 'verbose' would silence every line.
        let err = load("[log]\nlevel = \"verbose\"\n", &[]).unwrap_err();
        assert!(
            err.contains("log.level: 'verbose' is not a valid filter: 'verbose' is not a level"),
            "{err}"
        );
        for ok in [
            "debug",
            "WARN",
            "info,cxwatch=debug",
            "cxwatch::proxy=trace",
            "off",
        ] {
            assert!(check_log_filter(ok).is_ok(), "{ok}");
        }
        let err = load("[tls]\ncert = \"/x.pem\"\n", &[]).unwrap_err();
        assert!(err.contains("tls.key"), "{err}");
        let err = load("[server]\nhostnames = [\"a.test:443\"]\n", &[]).unwrap_err();
        assert!(err.contains("server.hostnames"), "{err}");
    }

    #[test]
    fn file_variant_reads_secret() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("tz");
        std::fs::write(&secret, "Europe/Paris\n").unwrap();
        let c = load(
            "",
            &[("CXWATCH_SITE__TIMEZONE_FILE", secret.to_str().unwrap())],
        )
        .unwrap();
        assert_eq!(c.site.timezone, "Europe/Paris");
    }

    #[test]
    fn unreadable_file_variant_names_the_variable() {
        let err = load("", &[("CXWATCH_SITE__TIMEZONE_FILE", "/nonexistent/tz")]).unwrap_err();
        assert!(
            err.starts_with("environment variable CXWATCH_SITE__TIMEZONE_FILE: cannot read the file /nonexistent/tz"),
            "{err}"
        );
    }

    #[test]
    fn empty_values_mean_unset() {
        let c = load("", &[("CXWATCH_TLS__CERT", ""), ("CXWATCH_TLS__KEY", "")]).unwrap();
        assert_eq!(c.tls, TlsConfig::default());
    }

    #[test]
    fn token_lifetimes_must_be_positive() {
        let c = load("[auth]\ntoken_ttl_secs = 5\n", &[]).unwrap();
        assert_eq!(c.auth.token_ttl_secs, 5);
        assert_eq!(c.auth.remember_ttl_days, 30);
        let err = load("[auth]\ntoken_ttl_secs = 0\n", &[]).unwrap_err();
        assert!(err.contains("auth.token_ttl_secs"), "{err}");
        let err = load("", &[("CXWATCH_AUTH__REMEMBER_TTL_DAYS", "0")]).unwrap_err();
        assert!(err.contains("auth.remember_ttl_days"), "{err}");
    }

    #[test]
    fn proxy_needs_upstreams() {
        let err = load("[api]\nmode = \"proxy\"\n", &[]).unwrap_err();
        assert!(err.contains("tenants"), "{err}");
        let err = load(
            "[api]\nmode = \"proxy\"\n[[tenants]]\nname = \"a\"\nhosts = [\"a.test\"]\n",
            &[],
        )
        .unwrap_err();
        assert!(err.contains("tenants[0].upstream"), "{err}");
        let err = load(
            "[[tenants]]\nname = \"a\"\nhosts = [\"a.test\"]\nupstream = \"ftp://up.test\"\n",
            &[],
        )
        .unwrap_err();
        assert!(err.contains("tenants[0].upstream"), "{err}");
        let err = load(
            "[[tenants]]\nname = \"a\"\nhosts = [\"a.test\"]\nupstream = \"https://up.test/api\"\n",
            &[],
        )
        .unwrap_err();
        assert!(err.contains("without /api"), "{err}");
        let err = load(
            "[[tenants]]\nname = \"a\"\nhosts = [\"a.test\"]\n[[tenants]]\nname = \"b\"\nhosts = [\"A.test\"]\n",
            &[],
        )
        .unwrap_err();
        assert!(err.contains("tenants[1].hosts"), "{err}");
        let err = load(
            "[[tenants]]\nname = \"a\"\nhosts = [\"a.test\"]\nupstream_tls = 1\n",
            &[],
        )
        .unwrap_err();
        assert!(err.contains("upstream_tls: unknown key"), "{err}");
        let ok = load(
            "[api]\nmode = \"proxy\"\n[[tenants]]\nname = \"a\"\nhosts = [\"a.test\", \"10.0.0.1\"]\nupstream = \"https://up.test\"\n",
            &[],
        )
        .unwrap();
        assert_eq!(ok.tenants[0].upstream.as_deref(), Some("https://up.test"));
        assert!(!ok.tenants[0].upstream_insecure);
    }

    #[test]
    fn trusted_proxies_are_addresses_or_networks() {
        let c = load(
            "[server]\ntrusted_proxies = [\"10.0.0.5\", \"fd00::/8\"]\n",
            &[],
        )
        .unwrap();
        assert_eq!(c.server.trusted_proxy_nets().len(), 2);
        let err = load("[server]\ntrusted_proxies = [\"lb.example\"]\n", &[]).unwrap_err();
        assert!(
            err.contains("server.trusted_proxies: 'lb.example' is neither"),
            "{err}"
        );
    }

    #[test]
    fn cors_origins_are_origins() {
        assert!(load("", &[]).unwrap().server.cors_origins.is_empty());
        let c = load(
            "[server]\ncors_origins = [\"https://Console.Example.com\", \"http://127.0.0.1:5173\"]\n",
            &[],
        )
        .unwrap();
        assert_eq!(
            c.server.cors_origins,
            ["https://console.example.com", "http://127.0.0.1:5173"]
        );
        let c = load(
            "",
            &[("CXWATCH_SERVER__CORS_ORIGINS", "[https://a.test:8443]")],
        )
        .unwrap();
        assert_eq!(c.server.cors_origins, ["https://a.test:8443"]);
        for bad in [
            "*",
            "https://a.test/",
            "https://a.test/x",
            "a.test",
            "ftp://a.test",
            "https://u@a.test",
            "null",
        ] {
            let err = load(&format!("[server]\ncors_origins = [\"{bad}\"]\n"), &[]).unwrap_err();
            assert!(err.contains("server.cors_origins"), "{bad}: {err}");
        }
    }

    #[test]
    fn api_flavor_is_spec_unless_told_and_checked_at_start_up() {
        let tenant = "[api]\nmode = \"proxy\"\n[[tenants]]\nname = \"a\"\nhosts = [\"a.test\"]\nupstream = \"https://up.test\"\n";
        let c = load(tenant, &[]).unwrap();
        assert_eq!(c.tenants[0].api_flavor, ApiFlavor::Spec);
        let c = load(&format!("{tenant}api_flavor = \"cxwatch\"\n"), &[]).unwrap();
        assert_eq!(c.tenants[0].api_flavor, ApiFlavor::Cxwatch);
        let err = load(&format!("{tenant}api_flavor = \"vendor\"\n"), &[]).unwrap_err();
        assert!(err.contains("api_flavor"), "{err}");
        assert!(err.contains("unknown value `vendor`"), "{err}");
        assert!(err.contains("spec, cxwatch"), "{err}");
    }

    #[test]
    fn host_matching_ignores_port_case_and_trailing_dot() {
        let c = load(
            "[[tenants]]\nname = \"a\"\nhosts = [\"a.test\", \"::1\", \"10.0.0.1\"]\n[[tenants]]\nname = \"b\"\nhosts = [\"B.test\"]\n",
            &[],
        )
        .unwrap();
        let name = |h: &str| c.tenant_for_host(h).map(|t| t.name.clone());
        assert_eq!(name("A.test:8443").as_deref(), Some("a"));
        assert_eq!(name("a.test.").as_deref(), Some("a"));
        assert_eq!(name("b.test").as_deref(), Some("b"));
        assert_eq!(name("[::1]:8443").as_deref(), Some("a"));
        assert_eq!(name("10.0.0.1:1").as_deref(), Some("a"));
        assert_eq!(name("c.test"), None);
        assert_eq!(name("a.test.evil"), None);
        assert_eq!(name(""), None);
        assert_eq!(
            c.all_hostnames(),
            vec!["localhost", "a.test", "::1", "10.0.0.1", "b.test"]
        );
    }

    #[test]
    fn strip_port_forms() {
        assert_eq!(strip_port("a.test:1"), "a.test");
        assert_eq!(strip_port("a.test"), "a.test");
        assert_eq!(strip_port("[::1]:8443"), "::1");
        assert_eq!(strip_port("[::1]"), "::1");
        assert_eq!(strip_port("::1"), "::1");
    }

    #[test]
    fn store_settings_from_file_and_environment() {
        let c = load("", &[]).unwrap();
        assert_eq!(c.store.synchronous, Synchronous::Normal);
        assert_eq!(c.store.cache_mib, 32);
        let c = load(
            "[store]\ncache_mib = 8\n",
            &[("CXWATCH_STORE__SYNCHRONOUS", "full")],
        )
        .unwrap();
        assert_eq!(c.store.synchronous, Synchronous::Full);
        assert_eq!(c.store.cache_mib, 8);
        let err = load("[store]\nsynchronous = \"off\"\n", &[]).unwrap_err();
        assert!(err.contains("store.synchronous"), "{err}");
        let err = load("[store]\ncache_mib = 1\n", &[]).unwrap_err();
        assert!(err.contains("store.cache_mib"), "{err}");
    }

    #[test]
    fn postgres_url_and_password_file() {
        let c = load("", &[]).unwrap();
        assert!(!c.store.is_postgres(), "SQLite by default");
        let dir = tempfile::tempdir().unwrap();
        let pw = dir.path().join("pw");
        std::fs::write(&pw, "s3cret\n").unwrap();
        let c = load(
            "[store]\nurl = \"postgres://cx@db:5432/cx?sslmode=require\"\n",
            &[("CXWATCH_STORE__PASSWORD_FILE", pw.to_str().unwrap())],
        )
        .unwrap();
        assert!(c.store.is_postgres());
        assert_eq!(c.store.password, "s3cret");
        let err = load("[store]\nurl = \"mysql://db/cx\"\n", &[]).unwrap_err();
        assert!(
            err.contains("store.url") && err.contains("postgres://"),
            "{err}"
        );
        let err = load(
            "[store]\nurl = \"postgres://db/cx\"\npassword_file = \"/nonexistent/pw\"\n",
            &[],
        )
        .unwrap_err();
        assert!(err.contains("store.password_file"), "{err}");
        let err = load("[store]\nurl = \"postgres://db/cx\"\npool_size = 0\n", &[]).unwrap_err();
        assert!(err.contains("store.pool_size"), "{err}");
    }
}

//! Configuration, layered in one place: built-in defaults, then the TOML file, then
//! `CXWATCH_*` environment variables (`__` for nesting, `*_FILE` to read a value from a file),
//! then command-line overrides. Every key has its default here and a line in
//! `config.example.toml`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::providers::{Format, Serialized, Toml};
use figment::Figment;
use serde::{Deserialize, Serialize};

/// Where the config file is looked for when `--config` is not given.
pub const DEFAULT_CONFIG_PATH: &str = "/etc/cxwatch/config.toml";
/// Prefix of the environment variables that override config keys.
pub const ENV_PREFIX: &str = "CXWATCH_";
/// Environment variables with the prefix that are not config keys: build-time switches
/// (`UI_DIR` is set by build.rs and cargo passes it on to test runs) and the log filter.
const ENV_NOT_CONFIG: &[&str] = &["UI_DIST", "UI_DIR", "LOG"];

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
    /// Tenants: which host names the console answers for, and (proxy mode) their upstream.
    pub tenants: Vec<TenantConfig>,
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
    /// Lifetime of a token when Remember Me is checked, in days (embedded mode).
    pub remember_ttl_days: u64,
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
    #[error("config: {0}")]
    Invalid(String),
}

impl Config {
    /// Loads the layered configuration. `--config` must exist when given; otherwise
    /// `/etc/cxwatch/config.toml` is read when present.
    pub fn load(overrides: &Overrides) -> Result<Config, ConfigError> {
        let file = match &overrides.config {
            Some(path) if !path.exists() => return Err(ConfigError::Missing(path.clone())),
            Some(path) => Some(path.clone()),
            None => Some(PathBuf::from(DEFAULT_CONFIG_PATH)).filter(|p| p.exists()),
        };
        Self::figment(file.as_deref(), std::env::vars(), overrides)
            .extract::<Config>()
            .map_err(|e| ConfigError::Invalid(describe(e)))
            .and_then(|c| c.validate())
    }

    /// The layers, with the environment passed in so tests can give their own.
    pub fn figment(
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
        overrides: &Overrides,
    ) -> Figment {
        let mut fig = Figment::from(Serialized::defaults(Config::default()));
        if let Some(path) = file {
            fig = fig.merge(Toml::file_exact(path));
        }
        fig = fig.merge(env_layer(env));
        if let Some(dir) = &overrides.data_dir {
            fig = fig.merge(Serialized::default("data_dir", dir));
        }
        if let Some(listen) = &overrides.listen {
            fig = fig.merge(Serialized::default("server.listen", listen.to_string()));
        }
        fig
    }

    fn validate(self) -> Result<Config, ConfigError> {
        if self.site.timezone.parse::<chrono_tz::Tz>().is_err() {
            return Err(ConfigError::Invalid(format!(
                "site.timezone: unknown time zone '{}' (use an IANA name such as America/Toronto)",
                self.site.timezone
            )));
        }
        if self.auth.token_ttl_secs == 0 {
            return Err(ConfigError::Invalid(
                "auth.token_ttl_secs: must be at least 1 (seconds)".into(),
            ));
        }
        if self.auth.remember_ttl_days == 0 {
            return Err(ConfigError::Invalid(
                "auth.remember_ttl_days: must be at least 1 (days)".into(),
            ));
        }
        if self.tls.cert.is_some() != self.tls.key.is_some() {
            return Err(ConfigError::Invalid(
                "tls.cert and tls.key: give both or neither".into(),
            ));
        }
        if self.api.mode == ApiMode::Proxy {
            if self.tenants.is_empty() {
                return Err(ConfigError::Invalid(
                    "tenants: proxy mode needs at least one [[tenants]] with hosts and upstream"
                        .into(),
                ));
            }
            for (i, t) in self.tenants.iter().enumerate() {
                match t.upstream.as_deref() {
                    Some(u) if u.starts_with("http://") || u.starts_with("https://") => {}
                    _ => {
                        return Err(ConfigError::Invalid(format!(
                            "tenants[{i}].upstream: proxy mode needs an http:// or https:// address"
                        )))
                    }
                }
            }
        }
        Ok(self)
    }

    /// The site's time zone (validated at load).
    pub fn tz(&self) -> chrono_tz::Tz {
        self.site
            .timezone
            .parse()
            .unwrap_or(chrono_tz::America::Toronto)
    }

    /// The tenant whose host names include `host` (port ignored, case-insensitive).
    pub fn tenant_for_host(&self, host: &str) -> Option<&TenantConfig> {
        let host = strip_port(host);
        self.tenants
            .iter()
            .find(|t| t.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)))
    }
}

fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    host.rsplit_once(':').map_or(host, |(h, _)| h)
}

/// `CXWATCH_A__B=v` sets `a.b`; `CXWATCH_A__B_FILE=/path` sets `a.b` to the file's content
/// (trailing newline removed).
fn env_layer(env: impl IntoIterator<Item = (String, String)>) -> Figment {
    let mut fig = Figment::new();
    for (name, value) in env {
        let Some(key) = name.strip_prefix(ENV_PREFIX) else {
            continue;
        };
        if ENV_NOT_CONFIG.contains(&key) {
            continue;
        }
        let (key, value) = match key.strip_suffix("_FILE") {
            Some(k) => match std::fs::read_to_string(&value) {
                Ok(content) => (k, content.trim_end_matches(['\r', '\n']).to_string()),
                Err(e) => {
                    let msg = format!("{name}: cannot read {value}: {e}");
                    return Figment::from(Serialized::default("__error", msg));
                }
            },
            None => (key, value),
        };
        let path = key.to_ascii_lowercase().replace("__", ".");
        fig = fig.merge(Serialized::default(&path, parse_env_value(&value)));
    }
    fig
}

/// Env values are parsed like figment does: numbers, booleans and arrays `[a, b]` typed.
fn parse_env_value(v: &str) -> figment::value::Value {
    v.parse::<figment::value::Value>()
        .unwrap_or_else(|_| figment::value::Value::from(v.to_string()))
}

/// One line that names the key and what is wrong with it.
fn describe(err: figment::Error) -> String {
    let mut lines = Vec::new();
    for e in err {
        let key = if e.path.is_empty() {
            String::new()
        } else {
            format!("{}: ", e.path.join("."))
        };
        let source = e
            .metadata
            .as_ref()
            .map(|m| format!(" (from {})", m.name))
            .unwrap_or_default();
        lines.push(format!("{key}{}{source}", e.kind));
    }
    lines.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(toml: &str, env: &[(&str, &str)]) -> Result<Config, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, toml).unwrap();
        let env = env.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        Config::figment(Some(&path), env, &Overrides::default())
            .extract::<Config>()
            .map_err(describe)
            .and_then(|c| c.validate().map_err(|e| e.to_string()))
    }

    #[test]
    fn defaults_apply() {
        let c = load("", &[]).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.site.timezone, "America/Toronto");
        assert_eq!(c.proxy.timeout_secs, 30);
    }

    #[test]
    fn file_then_env_then_overrides() {
        let c = load(
            "data_dir = \"/srv/x\"\n[server]\nlisten = \"127.0.0.1:9000\"\n",
            &[
                ("CXWATCH_SERVER__PLAIN_HTTP", "true"),
                ("CXWATCH_DATA_DIR", "/srv/y"),
            ],
        )
        .unwrap();
        assert_eq!(c.server.listen.to_string(), "127.0.0.1:9000");
        assert!(c.server.plain_http);
        assert_eq!(c.data_dir, PathBuf::from("/srv/y"));
    }

    #[test]
    fn unknown_key_is_named() {
        let err = load("[server]\nlisen = \"1.2.3.4:1\"\n", &[]).unwrap_err();
        assert!(err.contains("lisen"), "{err}");
        let err = load("", &[("CXWATCH_SERVER__PORT", "1")]).unwrap_err();
        assert!(err.contains("port"), "{err}");
    }

    #[test]
    fn bad_value_is_named() {
        let err = load("[server]\nlisten = \"nowhere\"\n", &[]).unwrap_err();
        assert!(err.contains("server.listen"), "{err}");
        let err = load("[site]\ntimezone = \"Mars/Olympus\"\n", &[]).unwrap_err();
        assert!(err.contains("site.timezone"), "{err}");
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
        let ok = load(
            "[api]\nmode = \"proxy\"\n[[tenants]]\nname = \"a\"\nhosts = [\"a.test\"]\nupstream = \"https://up.test\"\n",
            &[],
        )
        .unwrap();
        assert_eq!(ok.tenant_for_host("A.test:8443").unwrap().name, "a");
        assert!(ok.tenant_for_host("b.test").is_none());
    }
}

//! `GET /tenant-config?ac=<host>`: which tenant a host name belongs to, where its API is, its
//! single sign-on address and the site's time zone. The UI asks once, on first load, and keeps the answer.
//! Outside `/api` and without a token, so it works in both API modes. See `docs/api.md`.

use std::sync::Arc;

use poem::http::{header, StatusCode};
use poem::web::{Data, Query};
use poem::{handler, Response};
use serde::Serialize;

use crate::api::envelope::{json_error, json_ok};
use crate::config::{strip_port, ApiFlavor, ApiMode, Config};

/// Name given when no tenant is configured.
pub const DEFAULT_TENANT_NAME: &str = "cxwatch";

/// The `data` of the answer.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TenantInfo {
    pub name: String,
    pub host: String,
    /// Where the UI sends its API calls: `/api` on the console's own origin (in proxy mode
    /// the console forwards them to the tenant's upstream).
    pub api_base_url: String,
    /// Address of the single sign-on service; `null` hides the SSO button. With
    /// `[tenants.sso]` it is cxwatch's own `/api/auth/sso/start`.
    pub sso_url: Option<String>,
    pub version: String,
    /// IANA time zone of the site (`site.timezone`): the UI counts "today" and shows times in
    /// it, as the metrics count days and hours in it.
    pub timezone: String,
    /// What the API behind `apiBaseUrl` offers: `cxwatch` (embedded mode, or a proxy tenant
    /// with `api_flavor = "cxwatch"`): the spec's calls and cxwatch's additions; `spec` (a
    /// proxy tenant's default): only the spec's section 7 calls, so the console falls back
    /// for each addition. See docs/proxy.md.
    pub api_flavor: &'static str,
}

/// Why a host has no tenant configuration.
#[derive(Debug, PartialEq, Eq)]
pub enum TenantLookupError {
    MissingHost,
    UnknownHost(String),
}

/// The tenant configuration for `ac`; when no tenant is configured at all, a default one.
pub fn lookup(config: &Config, ac: Option<&str>) -> Result<TenantInfo, TenantLookupError> {
    let ac = ac.map(str::trim).filter(|a| !a.is_empty());
    let host = ac.map(|a| strip_port(a).trim_end_matches('.').to_ascii_lowercase());
    let embedded = config.api.mode == ApiMode::Embedded;
    let info = |name: &str, host: String, sso_url: Option<String>, flavor: ApiFlavor| TenantInfo {
        name: name.to_string(),
        host,
        api_base_url: "/api".into(),
        sso_url,
        version: env!("CARGO_PKG_VERSION").into(),
        timezone: config.site.timezone.clone(),
        // Embedded mode answers with cxwatch's own API, whatever a tenant says.
        api_flavor: if embedded {
            ApiFlavor::Cxwatch.as_str()
        } else {
            flavor.as_str()
        },
    };
    if config.tenants.is_empty() {
        return Ok(info(
            DEFAULT_TENANT_NAME,
            host.unwrap_or_default(),
            None,
            ApiFlavor::Cxwatch,
        ));
    }
    let host = host.ok_or(TenantLookupError::MissingHost)?;
    match config.tenant_for_host(&host) {
        // With [tenants.sso] the button starts cxwatch's own OpenID Connect flow.
        Some(t) if t.sso.is_some() && embedded => Ok(info(
            &t.name,
            host,
            Some(crate::sso::START_PATH.into()),
            t.api_flavor,
        )),
        Some(t) => Ok(info(&t.name, host, t.sso_url.clone(), t.api_flavor)),
        None => Err(TenantLookupError::UnknownHost(host)),
    }
}

/// `ac` is the host name the UI was loaded from (a port is ignored).
#[handler]
pub fn tenant_config(
    Query(params): Query<Vec<(String, String)>>,
    config: Data<&Arc<Config>>,
) -> Response {
    let ac = params
        .iter()
        .find(|(k, _)| k == "ac")
        .map(|(_, v)| v.as_str());
    match lookup(&config, ac) {
        Ok(info) => {
            let mut resp = json_ok(&info);
            resp.headers_mut().insert(
                header::CACHE_CONTROL,
                header::HeaderValue::from_static("no-cache"),
            );
            resp
        }
        Err(TenantLookupError::MissingHost) => json_error(
            StatusCode::BAD_REQUEST,
            "ac: give the host name the console is reached at, e.g. ?ac=console.example.com",
        ),
        Err(TenantLookupError::UnknownHost(host)) => json_error(
            StatusCode::NOT_FOUND,
            &format!("No tenant is configured for host '{host}'."),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TenantConfig;

    fn with_tenants() -> Config {
        Config {
            tenants: vec![
                TenantConfig {
                    name: "Acme".into(),
                    hosts: vec!["acme.test".into(), "www.acme.test".into()],
                    sso_url: Some("https://sso.acme.test/login".into()),
                    ..TenantConfig::default()
                },
                TenantConfig {
                    name: "Beta".into(),
                    hosts: vec!["beta.test".into()],
                    ..TenantConfig::default()
                },
            ],
            ..Config::default()
        }
    }

    #[test]
    fn matches_by_host_ignoring_port_and_case() {
        let c = with_tenants();
        let acme = lookup(&c, Some("WWW.acme.test:8443")).unwrap();
        assert_eq!(acme.name, "Acme");
        assert_eq!(acme.host, "www.acme.test");
        assert_eq!(acme.api_base_url, "/api");
        assert_eq!(acme.sso_url.as_deref(), Some("https://sso.acme.test/login"));
        assert_eq!(acme.version, "0.1.0");
        assert_eq!(acme.timezone, "America/Toronto");
        let beta = lookup(&c, Some("beta.test")).unwrap();
        assert_eq!(beta.name, "Beta");
        assert_eq!(beta.sso_url, None);
    }

    #[test]
    fn unknown_or_missing_host_with_tenants_configured() {
        let c = with_tenants();
        assert_eq!(
            lookup(&c, Some("other.test")),
            Err(TenantLookupError::UnknownHost("other.test".into()))
        );
        assert_eq!(lookup(&c, None), Err(TenantLookupError::MissingHost));
        assert_eq!(lookup(&c, Some("  ")), Err(TenantLookupError::MissingHost));
    }

    #[test]
    fn default_tenant_without_configuration() {
        let c = Config::default();
        let info = lookup(&c, Some("anything.test:1")).unwrap();
        assert_eq!(info.name, DEFAULT_TENANT_NAME);
        assert_eq!(info.host, "anything.test");
        assert_eq!(info.api_base_url, "/api");
        assert_eq!(info.sso_url, None);
        assert_eq!(
            serde_json::to_value(&info).unwrap(),
            serde_json::json!({"name": "cxwatch", "host": "anything.test", "apiBaseUrl": "/api",
                "ssoUrl": null, "version": "0.1.0", "timezone": "America/Toronto",
                "apiFlavor": "cxwatch"})
        );
    }

    #[test]
    fn gives_the_site_time_zone() {
        let mut c = with_tenants();
        c.site.timezone = "Europe/Paris".into();
        assert_eq!(
            lookup(&c, Some("beta.test")).unwrap().timezone,
            "Europe/Paris"
        );
        let mut plain = Config::default();
        plain.site.timezone = "Asia/Kolkata".into();
        let info = lookup(&plain, Some("x.test")).unwrap();
        assert_eq!(
            serde_json::to_value(&info).unwrap()["timezone"],
            serde_json::json!("Asia/Kolkata")
        );
    }

    #[test]
    fn api_flavor_is_cxwatch_when_embedded_and_the_tenants_when_proxying() {
        let mut c = with_tenants();
        c.tenants[1].api_flavor = ApiFlavor::Cxwatch;
        // Embedded: cxwatch's own API answers, whatever the tenant says.
        assert_eq!(lookup(&c, Some("acme.test")).unwrap().api_flavor, "cxwatch");
        assert_eq!(lookup(&c, Some("beta.test")).unwrap().api_flavor, "cxwatch");
        assert_eq!(
            lookup(&Config::default(), Some("x.test"))
                .unwrap()
                .api_flavor,
            "cxwatch"
        );
        // Proxy: the tenant's, "spec" unless told.
        c.api.mode = ApiMode::Proxy;
        let acme = lookup(&c, Some("acme.test")).unwrap();
        assert_eq!(acme.api_flavor, "spec");
        assert_eq!(
            serde_json::to_value(&acme).unwrap()["apiFlavor"],
            serde_json::json!("spec")
        );
        assert_eq!(lookup(&c, Some("beta.test")).unwrap().api_flavor, "cxwatch");
    }
}

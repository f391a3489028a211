//! Single sign-on against a real OpenID Connect provider (`tests/oidc`: panva's certified
//! oidc-provider on 127.0.0.1): the whole flow to a token, and every way it must fail.

use crate::common;

use crate::harness;
use crate::harness_trs;
use crate::oidc;
use crate::private_ca;

use cxwatch::config::{SsoConfig, SsoMapping, TenantConfig, Trust};
use cxwatch::domain::caller::{AccessType, Role};
use harness::App;
use oidc::{Account, Browser, Options, Provider, CLIENT_ID, CLIENT_SECRET, CONSOLE_HOST};
use private_ca::PrivateCa;
use serde_json::{json, Value};

fn accounts() -> Vec<Account> {
    vec![
        Account {
            login: "ann@acme.test",
            password: "ann-pw",
            claims: json!({"email": "ann@acme.test", "given_name": "Ann", "family_name": "Admin",
                "groups": ["cx-admins", "cx-editors"]}),
        },
        Account {
            login: "ulf@acme.test",
            password: "ulf-pw",
            claims: json!({"email": "ulf@acme.test", "given_name": "Ulf", "family_name": "User",
                "groups": ["emea"]}),
        },
        Account {
            login: "mia@acme.test",
            password: "mia-pw",
            claims: json!({"email": "mia@acme.test", "groups": ["marketing"]}),
        },
    ]
}

/// The tenant's `[tenants.sso]` for `p`, with the client secret in a file as in production.
fn sso(p: &Provider, dir: &std::path::Path) -> SsoConfig {
    let secret = dir.join("sso-secret");
    std::fs::write(&secret, format!("{CLIENT_SECRET}\n")).unwrap();
    SsoConfig {
        issuer: p.issuer.clone(),
        client_id: CLIENT_ID.into(),
        client_secret_file: Some(secret),
        scopes: vec![
            "openid".into(),
            "email".into(),
            "profile".into(),
            "groups".into(),
        ],
        create_users: true,
        admin_groups: vec!["cx-admins".into()],
        read_write_groups: vec!["cx-editors".into()],
        ..SsoConfig::default()
    }
}

/// An app whose one tenant (host 127.0.0.1) signs in with `p`; `change` adjusts its SSO.
fn app(p: &Provider, change: impl FnOnce(&mut SsoConfig)) -> App {
    App::with_config(|c| {
        let mut s = sso(p, &c.data_dir);
        change(&mut s);
        // The config loader reads the secret file; do what it does.
        let secret = std::fs::read_to_string(s.client_secret_file.as_ref().unwrap()).unwrap();
        s.client_secret = Some(secret.trim_end().to_string());
        c.tenants = vec![TenantConfig {
            name: "acme".into(),
            hosts: vec![CONSOLE_HOST.into()],
            sso: Some(s),
            ..TenantConfig::default()
        }];
    })
}

/// GET on the console with the tenant's host: status and Location.
async fn get(app: &App, path: &str) -> (u16, String) {
    let resp = app
        .client
        .get(path)
        .header("host", CONSOLE_HOST)
        .send()
        .await;
    let status = resp.0.status().as_u16();
    let location = resp
        .0
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, location)
}

/// The provider's authorization address cxwatch redirects to.
async fn start(app: &App) -> String {
    let (status, location) = get(app, "/api/auth/sso/start").await;
    assert_eq!(status, 302, "{location}");
    location
}

/// cxwatch's answer to the provider's return address `back`.
async fn callback(app: &App, back: &str) -> String {
    let url = reqwest::Url::parse(back).unwrap();
    assert_eq!(url.path(), "/api/auth/sso/callback", "{back}");
    let (status, location) = get(app, &format!("{}?{}", url.path(), url.query().unwrap())).await;
    assert_eq!(status, 302);
    location
}

/// The whole flow for `login`: where cxwatch sends the browser at the end.
async fn sign_in(app: &App, login: &str, password: &str) -> String {
    let authorize = start(app).await;
    let back = Browser::default()
        .sign_in(&authorize, login, password)
        .await;
    callback(app, &back).await
}

/// `/callback?id=<id>` -> the id.
fn one_time_id(location: &str) -> String {
    location
        .strip_prefix("/callback?id=")
        .unwrap_or_else(|| panic!("expected /callback?id=, got {location}"))
        .to_string()
}

async fn get_token(app: &App, id: &str) -> (u16, Value) {
    app.call(
        poem::http::Method::GET,
        &format!("/api/auth/getToken?id={id}"),
        None,
        None,
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn full_flow_ends_in_a_token_for_the_mapped_user() {
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let app = app(&p, |_| {});
    let authorize = start(&app).await;
    let url = reqwest::Url::parse(&authorize).unwrap();
    let q: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
    assert!(
        authorize.starts_with(&format!("{}/auth?", p.issuer)),
        "{authorize}"
    );
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["code_challenge_method"], "S256");
    assert_eq!(q["redirect_uri"], oidc::REDIRECT);
    assert!(q["state"].len() >= 16 && q["nonce"].len() >= 16);
    assert!(
        q["scope"].split(' ').any(|s| s == "groups"),
        "{}",
        q["scope"]
    );

    let back = Browser::default()
        .sign_in(&authorize, "ann@acme.test", "ann-pw")
        .await;
    let id = one_time_id(&callback(&app, &back).await);
    let (status, body) = get_token(&app, &id).await;
    assert_eq!(status, 200, "{body}");
    let user = &body["data"];
    assert_eq!(user["username"], "ann@acme.test");
    assert_eq!(user["firstName"], "Ann");
    assert_eq!(user["roles"], json!(["ROLE_ADMIN"]));
    assert_eq!(user["accessType"], "read-write");
    // The token works.
    let token = user["accessToken"].as_str().unwrap();
    let (status, _) = app
        .call(poem::http::Method::GET, "/api/users", Some(token), None)
        .await;
    assert_eq!(status, 200);
    // The one-time id works once.
    let (status, body) = get_token(&app, &id).await;
    assert_eq!(status, 401, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn groups_claim_maps_role_access_and_test_case_groups() {
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    // "emea" members see test case group 1, the first group of the fresh store.
    let app2 = app(&p, |s| {
        s.test_case_groups = [("emea".to_string(), vec![1])].into_iter().collect();
    });
    let g = harness_trs::group(&app2, "EMEA voice", "voice", &[]).await;
    assert_eq!(g, 1, "first group of a fresh store");
    let id = one_time_id(&sign_in(&app2, "ulf@acme.test", "ulf-pw").await);
    let (status, body) = get_token(&app2, &id).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["roles"], json!(["ROLE_USER"]));
    assert_eq!(body["data"]["accessType"], "read-only");
    let user = app2
        .store
        .user_by_username("ulf@acme.test")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        user.groups.iter().map(|g| g.id).collect::<Vec<_>>(),
        vec![g]
    );

    // In no mapped group: refused, and no user is created.
    let refused = sign_in(&app2, "mia@acme.test", "mia-pw").await;
    assert_eq!(refused, "/login?sso_error=not_allowed");
    assert!(app2
        .store
        .user_by_username("mia@acme.test")
        .await
        .unwrap()
        .is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_users_are_refused_when_creation_is_off() {
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let app = app(&p, |s| s.create_users = false);
    assert_eq!(
        sign_in(&app, "ann@acme.test", "ann-pw").await,
        "/login?sso_error=not_allowed"
    );
    assert!(app
        .store
        .user_by_username("ann@acme.test")
        .await
        .unwrap()
        .is_none());
    // Created beforehand in cxwatch: let in, with the role the groups claim gives.
    app.user("ann@acme.test", Role::User, AccessType::ReadOnly, &[])
        .await;
    let id = one_time_id(&sign_in(&app, "ann@acme.test", "ann-pw").await);
    let (_, body) = get_token(&app, &id).await;
    assert_eq!(body["data"]["roles"], json!(["ROLE_ADMIN"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn existing_mapping_lets_in_only_users_of_cxwatch_with_their_own_role() {
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let app = app(&p, |s| {
        s.mapping = SsoMapping::Existing;
        s.create_users = false;
    });
    app.user("mia@acme.test", Role::User, AccessType::ReadWrite, &[])
        .await;
    let id = one_time_id(&sign_in(&app, "mia@acme.test", "mia-pw").await);
    let (_, body) = get_token(&app, &id).await;
    assert_eq!(body["data"]["roles"], json!(["ROLE_USER"]));
    assert_eq!(body["data"]["accessType"], "read-write");
    assert_eq!(
        sign_in(&app, "ulf@acme.test", "ulf-pw").await,
        "/login?sso_error=not_allowed"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_state_works_once_and_an_unknown_one_is_refused() {
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let app = app(&p, |_| {});
    let authorize = start(&app).await;
    let back = Browser::default()
        .sign_in(&authorize, "ann@acme.test", "ann-pw")
        .await;
    one_time_id(&callback(&app, &back).await);
    // The same return again (a replay): refused.
    assert_eq!(callback(&app, &back).await, "/login?sso_error=state");
    // A state cxwatch never issued, with a real code.
    let authorize = start(&app).await;
    let back = Browser::default()
        .sign_in(&authorize, "ann@acme.test", "ann-pw")
        .await;
    let forged = back.replace("state=", "state=x");
    assert_eq!(callback(&app, &forged).await, "/login?sso_error=state");
    assert_eq!(
        get(&app, "/api/auth/sso/callback?code=abc").await,
        (302, "/login?sso_error=state".to_string())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_state_is_refused() {
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let app = app(&p, |s| s.login_ttl_secs = 1);
    let authorize = start(&app).await;
    let back = Browser::default()
        .sign_in(&authorize, "ann@acme.test", "ann-pw")
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_eq!(callback(&app, &back).await, "/login?sso_error=state");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_one_time_id_is_refused() {
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let app = app(&p, |_| {});
    let id = one_time_id(&sign_in(&app, "ann@acme.test", "ann-pw").await);
    // Two minutes later (the store is asked with that clock).
    let later = common::now_secs() + cxwatch::store::auth::ONE_TIME_ID_TTL_SECS + 1;
    let found = app
        .store
        .exchange_one_time_id(&id, later, later + 60)
        .await
        .unwrap();
    assert!(found.is_none());
    assert_eq!(get_token(&app, &id).await.0, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_issuer_is_refused() {
    let accounts = accounts();
    // The provider names itself by another address than the configured one.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut p = Provider::start(Options {
        port,
        issuer: Some(format!("http://localhost:{port}")),
        accounts: &accounts,
        ..Options::default()
    });
    p.issuer = format!("http://127.0.0.1:{port}");
    let app = app(&p, |_| {});
    assert_eq!(
        get(&app, "/api/auth/sso/start").await,
        (302, "/login?sso_error=wrong_issuer".to_string())
    );
    // A return that names another issuer (RFC 9207 `iss`, a mix-up attack) is refused.
    let p3 = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let app3 = self::app(&p3, |_| {});
    let authorize = start(&app3).await;
    let back = Browser::default()
        .sign_in(&authorize, "ann@acme.test", "ann-pw")
        .await;
    let mut url = reqwest::Url::parse(&back).unwrap();
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    assert!(
        pairs.iter().any(|(k, v)| k == "iss" && v == &p3.issuer),
        "{back}"
    );
    let pairs: Vec<(String, String)> = pairs
        .into_iter()
        .map(|(k, v)| {
            if k == "iss" {
                (k, "https://evil.test".into())
            } else {
                (k, v)
            }
        })
        .collect();
    url.query_pairs_mut().clear().extend_pairs(pairs);
    assert_eq!(
        callback(&app3, url.as_str()).await,
        "/login?sso_error=wrong_issuer"
    );
    // A trailing slash is another issuer too: the match is exact.
    let p2 = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let slash = format!("{}/", p2.issuer);
    let app = self::app(&p2, |s| s.issuer = slash);
    assert_eq!(
        get(&app, "/api/auth/sso/start").await,
        (302, "/login?sso_error=wrong_issuer".to_string())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_nonce_that_differs_is_refused() {
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let app = app(&p, |_| {});
    let authorize = start(&app).await;
    // Someone swaps the nonce on the way to the provider: the ID token carries theirs.
    let mut url = reqwest::Url::parse(&authorize).unwrap();
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .into_owned()
        .map(|(k, v)| {
            if k == "nonce" {
                (k, "attacker-nonce-0123456789".into())
            } else {
                (k, v)
            }
        })
        .collect();
    url.query_pairs_mut().clear().extend_pairs(pairs);
    let back = Browser::default()
        .sign_in(url.as_str(), "ann@acme.test", "ann-pw")
        .await;
    assert_eq!(
        callback(&app, &back).await,
        "/login?sso_error=invalid_token"
    );
    assert!(app
        .store
        .user_by_username("ann@acme.test")
        .await
        .unwrap()
        .is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_providers_error_is_reported() {
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    let app = app(&p, |_| {});
    // prompt=none without a session at the provider: it returns login_required.
    let authorize = format!("{}&prompt=none", start(&app).await);
    let back = Browser::default().follow(authorize).await.unwrap();
    assert!(back.contains("error=login_required"), "{back}");
    assert_eq!(
        callback(&app, &back).await,
        "/login?sso_error=provider_error"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stopped_provider_is_reported() {
    let accounts = accounts();
    let mut p = Provider::start(Options {
        accounts: &accounts,
        ..Options::default()
    });
    // Stopped between the sign-in at the provider and its return: the token request fails.
    let app = app(&p, |_| {});
    let authorize = start(&app).await;
    let back = Browser::default()
        .sign_in(&authorize, "ann@acme.test", "ann-pw")
        .await;
    p.stop();
    assert_eq!(
        callback(&app, &back).await,
        "/login?sso_error=provider_down"
    );
    // Stopped before: nothing to start with.
    let fresh = self::app(&p, |_| {});
    assert_eq!(
        get(&fresh, "/api/auth/sso/start").await,
        (302, "/login?sso_error=provider_down".to_string())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_signed_with_a_new_key_makes_the_keys_be_fetched_again() {
    let accounts = accounts();
    let mut p = Provider::start(Options {
        accounts: &accounts,
        kid: "k1",
        ..Options::default()
    });
    let port = p.port;
    let app = app(&p, |_| {});
    // Keys of the first provider are fetched and kept (metadata_ttl_secs: an hour).
    one_time_id(&sign_in(&app, "ann@acme.test", "ann-pw").await);
    // The provider rotates: a new key "k2", the old one gone.
    p.stop();
    let _p2 = Provider::start(Options {
        port,
        accounts: &accounts,
        kid: "k2",
        ..Options::default()
    });
    let id = one_time_id(&sign_in(&app, "ann@acme.test", "ann-pw").await);
    assert_eq!(get_token(&app, &id).await.0, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tenant_config_offers_single_sign_on_only_when_configured() {
    let p = Provider::start(Options::default());
    let app = app(&p, |_| {});
    let (_, body) = app
        .call(
            poem::http::Method::GET,
            "/tenant-config?ac=127.0.0.1",
            None,
            None,
        )
        .await;
    assert_eq!(body["data"]["ssoUrl"], "/api/auth/sso/start");
    let plain = App::new();
    let (_, body) = plain
        .call(
            poem::http::Method::GET,
            "/tenant-config?ac=127.0.0.1",
            None,
            None,
        )
        .await;
    assert_eq!(body["data"]["ssoUrl"], Value::Null);
    // Without single sign-on for the host, the start goes back to the login page.
    assert_eq!(
        get(&plain, "/api/auth/sso/start").await,
        (302, "/login?sso_error=not_configured".to_string())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_out_can_go_on_to_the_providers_logout() {
    let p = Provider::start(Options::default());
    let app = app(&p, |_| {});
    let (status, location) = get(&app, "/api/auth/sso/logout").await;
    assert_eq!(status, 302);
    assert!(
        location.starts_with(&format!("{}/session/end?", p.issuer)),
        "{location}"
    );
    assert!(location.contains("post_logout_redirect_uri=https%3A%2F%2F127.0.0.1%2Flogin"));
    assert_eq!(get(&App::new(), "/api/auth/sso/logout").await.1, "/login");
}

/// A provider over HTTPS whose certificate comes from the site's own CA (ADFS, Keycloak on
/// prem): refused as not trusted without `ca`, the whole sign-in with it.
#[tokio::test(flavor = "multi_thread")]
async fn a_provider_behind_the_sites_own_ca_is_trusted_through_ca() {
    let pki = PrivateCa::new();
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        tls: Some((pki.cert.as_path(), pki.key.as_path())),
        ..Options::default()
    });
    assert!(p.issuer.starts_with("https://127.0.0.1:"), "{}", p.issuer);

    // The compiled-in roots only (today's default): not trusted, and said so.
    let untrusted = app(&p, |_| {});
    assert_eq!(
        get(&untrusted, "/api/auth/sso/start").await,
        (302, "/login?sso_error=provider_untrusted".to_string())
    );

    let app = app(&p, |s| s.ca = Some(pki.ca.clone()));
    let authorize = start(&app).await;
    assert!(authorize.starts_with(&p.issuer), "{authorize}");
    let back = Browser::with(pki.client_builder())
        .sign_in(&authorize, "ann@acme.test", "ann-pw")
        .await;
    // The code exchange and the keys go over HTTPS too.
    let id = one_time_id(&callback(&app, &back).await);
    let (status, body) = get_token(&app, &id).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["username"], "ann@acme.test", "{body}");
}

/// `trust = "system"`: the machine's trust store (here `SSL_CERT_FILE`, which names the
/// site's CA as an administrator would install it) instead of the compiled-in roots.
#[tokio::test(flavor = "multi_thread")]
async fn the_system_trust_store_is_used_when_asked() {
    let pki = PrivateCa::new();
    // This test's own process (nextest): nothing else reads the variable meanwhile.
    std::env::set_var("SSL_CERT_FILE", &pki.ca);
    std::env::remove_var("SSL_CERT_DIR");
    let accounts = accounts();
    let p = Provider::start(Options {
        accounts: &accounts,
        tls: Some((pki.cert.as_path(), pki.key.as_path())),
        ..Options::default()
    });
    let webpki = app(&p, |s| s.trust = Trust::Webpki);
    assert_eq!(
        get(&webpki, "/api/auth/sso/start").await,
        (302, "/login?sso_error=provider_untrusted".to_string())
    );
    for trust in [Trust::System, Trust::Both] {
        let app = app(&p, |s| s.trust = trust);
        let authorize = start(&app).await;
        let back = Browser::with(pki.client_builder())
            .sign_in(&authorize, "ann@acme.test", "ann-pw")
            .await;
        let id = one_time_id(&callback(&app, &back).await);
        assert_eq!(get_token(&app, &id).await.0, 200, "{trust:?}");
    }
}

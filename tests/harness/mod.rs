//! The API in-process: `cxwatch::api::routes` over a store in a temporary directory, driven
//! with poem's test client. For resource tests where no process boundary matters (TLS, the
//! CLI, signals and proxy mode keep their tests that start the binary).
#![allow(dead_code)]

use std::sync::Arc;

use cxwatch::config::Config;
use cxwatch::domain::caller::{AccessType, Role};
use cxwatch::domain::user::UserDraft;
use cxwatch::store::{now_secs, Store};
use poem::http::Method;
use poem::test::TestClient;
use serde_json::Value;

pub struct App {
    pub store: Store,
    pub client: TestClient<poem::endpoint::BoxEndpoint<'static>>,
    _dir: tempfile::TempDir,
}

/// A signed-in test user.
#[derive(Clone)]
pub struct Who {
    pub id: i64,
    pub username: String,
    pub token: String,
}

pub const PASSWORD: &str = "correct horse battery";

impl App {
    pub fn new() -> App {
        App::with_config(|_| {})
    }

    /// An app whose config `change` adjusts first.
    pub fn with_config(change: impl FnOnce(&mut Config)) -> App {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config {
            data_dir: dir.path().to_path_buf(),
            ..Config::default()
        };
        change(&mut config);
        let store = Store::open(dir.path(), cxwatch::store::StoreOptions::default()).unwrap();
        let app = cxwatch::server::app(Arc::new(config), Some(store.clone())).unwrap();
        App {
            store,
            client: TestClient::new(app),
            _dir: dir,
        }
    }

    /// A user with a password ([`PASSWORD`]) and a valid token.
    pub async fn user(
        &self,
        username: &str,
        role: Role,
        access: AccessType,
        groups: &[i64],
    ) -> Who {
        let hash = cxwatch::auth::password::hash_password(PASSWORD).unwrap();
        let draft = UserDraft {
            username: username.into(),
            first_name: "Test".into(),
            last_name: username.split('@').next().unwrap_or("").into(),
            role,
            access,
            group_ids: groups.to_vec(),
        };
        let id = self.store.create_user(&draft, &hash).await.unwrap();
        let token = self
            .store
            .start_session(id, false, now_secs(), now_secs() + 3600)
            .await
            .unwrap();
        Who {
            id,
            username: username.into(),
            token,
        }
    }

    pub async fn api_key(&self, name: &str) -> String {
        self.store.add_api_key(name).await.unwrap()
    }

    /// A call with an optional bearer token and JSON body: status and JSON answer.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        self.call_with(
            method,
            path,
            token.map(|t| ("authorization", format!("Bearer {t}"))),
            body,
        )
        .await
    }

    /// A call with one extra header (e.g. `X-API-Key`).
    pub async fn call_with(
        &self,
        method: Method,
        path: &str,
        header: Option<(&str, String)>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let mut req = self.client.request(method, path);
        if let Some((k, v)) = header {
            req = req.header(k, v);
        }
        if let Some(b) = body {
            req = req.body_json(b);
        }
        let resp = req.send().await;
        let status = resp.0.status().as_u16();
        let bytes = resp.0.into_body().into_bytes().await.unwrap_or_default();
        let json = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
        (status, json)
    }
}

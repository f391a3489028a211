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
    /// The PostgreSQL database of this app when the tests run on PostgreSQL
    /// (`TEST_POSTGRES_URL`), else None (SQLite in the temporary directory).
    pub pg_url: Option<String>,
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
        // The tests' clock (`CXWATCH_TEST_NOW`): the app runs on the test process's clock.
        if let Some(start) = crate::common::test_now() {
            config.clock.start = start.to_rfc3339();
        }
        change(&mut config);
        let pg_url = test_pg_url();
        let store = match &pg_url {
            Some(url) => {
                config.store.url = url.clone();
                // Its own runtime on another thread: a test's runtime may be current-thread.
                // The pool makes new connections on the test's runtime when first asked.
                let (c, d) = (config.store.clone(), dir.path().to_path_buf());
                std::thread::spawn(move || Store::block_on(Store::connect(&c, &d)))
                    .join()
                    .unwrap()
                    .unwrap()
            }
            None => Store::open(dir.path(), cxwatch::store::StoreOptions::default()).unwrap(),
        };
        let app = cxwatch::server::app(Arc::new(config), Some(store.clone())).unwrap();
        App {
            store,
            pg_url,
            client: TestClient::new(documented_statuses(app)),
            _dir: dir,
        }
    }

    /// The data directory (SQLite's file lives there; on PostgreSQL only local files).
    pub fn data_dir(&self) -> &std::path::Path {
        self._dir.path()
    }

    /// Runs SQL statements on the app's database, whichever backend (write SQL both
    /// dialects accept: values inline, no parameters).
    pub async fn exec(&self, sql: &str) {
        match &self.pg_url {
            Some(url) => pg_client(url).await.batch_execute(sql).await.unwrap(),
            None => {
                let c = rusqlite::Connection::open(self._dir.path().join("cxwatch.db")).unwrap();
                c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
                c.execute_batch(sql).unwrap();
            }
        }
    }

    /// The error SQL statements meet on the app's database, whichever backend (a refusal
    /// a trigger or a constraint makes); panics when they succeed.
    pub async fn exec_err(&self, sql: &str) -> String {
        match &self.pg_url {
            Some(url) => match pg_client(url).await.batch_execute(sql).await {
                Ok(()) => panic!("{sql}: succeeded"),
                Err(e) => e
                    .as_db_error()
                    .map_or(e.to_string(), |d| d.message().to_string()),
            },
            None => {
                let c = rusqlite::Connection::open(self._dir.path().join("cxwatch.db")).unwrap();
                c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
                match c.execute_batch(sql) {
                    Ok(()) => panic!("{sql}: succeeded"),
                    Err(e) => e.to_string(),
                }
            }
        }
    }

    /// The integers of the first column of a query, whichever backend.
    pub async fn ints(&self, sql: &str) -> Vec<Option<i64>> {
        match &self.pg_url {
            Some(url) => pg_client(url)
                .await
                .query(sql, &[])
                .await
                .unwrap()
                .iter()
                .map(|r| match r.columns()[0].type_().name() {
                    "int4" => r.get::<_, Option<i32>>(0).map(i64::from),
                    "int2" => r.get::<_, Option<i16>>(0).map(i64::from),
                    "bool" => r.get::<_, Option<bool>>(0).map(i64::from),
                    _ => r.get::<_, Option<i64>>(0),
                })
                .collect(),
            None => {
                let c = rusqlite::Connection::open(self._dir.path().join("cxwatch.db")).unwrap();
                c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
                let mut stmt = c.prepare(sql).unwrap();
                let rows = stmt.query_map([], |r| r.get::<_, Option<i64>>(0)).unwrap();
                rows.map(Result::unwrap).collect()
            }
        }
    }

    /// The one integer a query answers (a count, an id).
    pub async fn int(&self, sql: &str) -> i64 {
        self.ints(sql)
            .await
            .into_iter()
            .next()
            .flatten()
            .unwrap_or_else(|| panic!("{sql}: no value"))
    }

    /// The texts of the first column of a query, whichever backend.
    pub async fn texts(&self, sql: &str) -> Vec<Option<String>> {
        match &self.pg_url {
            Some(url) => pg_client(url)
                .await
                .query(sql, &[])
                .await
                .unwrap()
                .iter()
                .map(|r| r.get::<_, Option<String>>(0))
                .collect(),
            None => {
                let c = rusqlite::Connection::open(self._dir.path().join("cxwatch.db")).unwrap();
                let mut stmt = c.prepare(sql).unwrap();
                let rows = stmt
                    .query_map([], |r| r.get::<_, Option<String>>(0))
                    .unwrap();
                rows.map(Result::unwrap).collect()
            }
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

/// The app, failing any `/api` answer whose status its operation's entry in the OpenAPI
/// document does not list: every test that drives the API holds each operation's declared
/// errors (`api::envelope::fails` and the shape's) to what it really answers. Statuses no
/// single operation has are not checked: 405 (a method the path lacks), 414 and 431 (an
/// address or headers too large), 413 for a body sent to an operation that takes none.
pub fn documented_statuses(
    app: poem::endpoint::BoxEndpoint<'static>,
) -> poem::endpoint::BoxEndpoint<'static> {
    use poem::{Endpoint, EndpointExt};
    static DOC: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    app.around(|ep, req| async move {
        let method = req.method().as_str().to_ascii_lowercase();
        let path = req.uri().path().to_string();
        let resp = ep.call(req).await?;
        let status = resp.status().as_u16();
        if status < 400 || [405, 414, 431].contains(&status) {
            return Ok(resp);
        }
        let doc = DOC.get_or_init(|| serde_json::from_str(&cxwatch::api::openapi_json()).unwrap());
        let Some(template) = path
            .starts_with("/api/")
            .then(|| cxwatch::api::route_template(&path))
            .flatten()
        else {
            return Ok(resp);
        };
        let op = &doc["paths"][template.trim_start_matches("/api")][&method];
        if op.is_null() || (status == 413 && op.get("requestBody").is_none()) {
            return Ok(resp);
        }
        assert!(
            op["responses"].get(status.to_string()).is_some(),
            "{} {path} answered {status}, which its operation {} does not list in the OpenAPI \
             document (api::envelope::fails)",
            method.to_uppercase(),
            op["operationId"]
        );
        Ok(resp)
    })
    .boxed()
}

/// The server the API tests use for PostgreSQL (`TEST_POSTGRES_URL`, e.g.
/// `postgres://postgres@127.0.0.1:5432/postgres`): each app gets a fresh database on it.
/// Unset: SQLite.
pub fn test_pg_url() -> Option<String> {
    let base = std::env::var("TEST_POSTGRES_URL")
        .ok()
        .filter(|s| !s.is_empty())?;
    Some(
        std::thread::spawn(move || {
            Store::block_on(cxwatch::store::pg::create_test_database(&base))
        })
        .join()
        .unwrap(),
    )
}

async fn pg_client(url: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
}

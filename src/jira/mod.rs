//! The issue tracker: a client for Jira Cloud (REST v3) and Jira Server / Data Center
//! (REST v2) on reqwest, configured by `[jira]` or `[tenants.jira]` (`crate::config::JiraConfig`).
//!
//! What differs between the flavours stays in this file:
//! - auth: Cloud Basic with the account's e-mail and API token; Server/DC Bearer with a
//!   personal access token;
//! - descriptions: Cloud the Atlassian Document Format with `mention` nodes by accountId,
//!   Server/DC wiki markup with `[~username]` (`crate::domain::ticket`);
//! - people: Cloud by `accountId`, Server/DC by `name` (the username);
//! - search: Cloud `POST /rest/api/3/search/jql` (the old `/rest/api/3/search` is gone),
//!   Server/DC `POST /rest/api/2/search`.
//!
//! Attachments go to `POST …/issue/{key}/attachments` as multipart field `file` with
//! `X-Atlassian-Token: no-check`. Jira's error answers (`errorMessages` and `errors`) become
//! [`JiraError::Refused`] with one message per entry.

use std::time::Duration;

use reqwest::{Method, RequestBuilder, StatusCode};
use serde::Serialize;
use serde_json::{json, Value};

use crate::config::{JiraConfig, JiraFlavour};
use crate::domain::ticket;
use crate::trust::Roots;

/// Why a Jira call failed.
#[derive(Debug, thiserror::Error)]
pub enum JiraError {
    /// Jira answered with an error: its status and messages (`errorMessages`, then each
    /// `errors` entry as `field: message`).
    #[error("Jira answered {status}: {}", messages.join("; "))]
    Refused { status: u16, messages: Vec<String> },
    /// Jira could not be reached or did not answer in time.
    #[error("Jira could not be reached: {0}")]
    Unreachable(String),
    /// rustls refused Jira's certificate (its CA is not among `ca` and `trust`'s roots).
    #[error("Jira's {0}")]
    Untrusted(String),
    /// Jira answered something this client does not understand.
    #[error("Jira answered something unexpected: {0}")]
    Unexpected(String),
}

pub type JiraResult<T> = Result<T, JiraError>;

/// Pages of 100 users read at most (10,000 accounts).
const USER_PAGES: usize = 100;

/// A call that got no answer: Jira's certificate not trusted, or Jira unreachable.
fn failed(e: reqwest::Error) -> JiraError {
    match crate::trust::untrusted(&e) {
        Some(why) => JiraError::Untrusted(crate::trust::untrusted_reason("jira", &why)),
        None => JiraError::Unreachable(crate::trust::describe(&e)),
    }
}

/// A person tickets can be assigned to or mention: Cloud accountId or Server/DC username.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JiraUser {
    pub account_id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JiraProject {
    pub key: String,
    pub name: String,
}

/// What the console sends to create or change a ticket. The description is the console's
/// text with `@[name](id)` mentions (`crate::domain::ticket`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IssueDraft {
    pub project: String,
    pub summary: String,
    /// accountId (Cloud) or username (Server/DC); empty: unassigned.
    pub assignee: String,
    pub labels: Vec<String>,
    pub description: String,
}

/// A ticket as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub key: String,
    pub project: String,
    pub summary: String,
    pub assignee_id: Option<String>,
    pub labels: Vec<String>,
    pub status: String,
    /// The console's text, mentions as `@[name](id)`.
    pub description: String,
}

/// A file to attach.
#[derive(Debug, Clone)]
pub struct Attachment {
    pub file_name: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// A client for one configured Jira.
#[derive(Clone)]
pub struct Jira {
    cfg: JiraConfig,
    http: reqwest::Client,
}

impl std::fmt::Debug for Jira {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jira")
            .field("url", &self.cfg.url)
            .field("flavour", &self.cfg.flavour)
            .finish()
    }
}

impl Jira {
    pub fn new(cfg: &JiraConfig) -> JiraResult<Jira> {
        let http = crate::trust::reqwest_builder(Roots::new("jira", cfg.trust, cfg.ca.as_deref()))
            .map_err(JiraError::Unexpected)?
            .timeout(Duration::from_secs(cfg.timeout_secs.max(1)))
            .user_agent(concat!("cxwatch/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| JiraError::Unexpected(e.to_string()))?;
        Ok(Jira {
            cfg: cfg.clone(),
            http,
        })
    }

    pub fn flavour(&self) -> JiraFlavour {
        self.cfg.flavour
    }

    fn api(&self) -> String {
        let v = match self.cfg.flavour {
            JiraFlavour::Cloud => 3,
            JiraFlavour::Server => 2,
        };
        format!("{}/rest/api/{v}", self.cfg.url)
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let req = self
            .http
            .request(method, format!("{}{path}", self.api()))
            .header("Accept", "application/json");
        match self.cfg.flavour {
            JiraFlavour::Cloud => req.basic_auth(&self.cfg.email, Some(&self.cfg.token)),
            JiraFlavour::Server => req.bearer_auth(&self.cfg.token),
        }
    }

    async fn send(&self, req: RequestBuilder) -> JiraResult<Value> {
        let resp = req.send().await.map_err(|e| failed(e.without_url()))?;
        let status = resp.status();
        let bytes = resp.bytes().await.map_err(|e| failed(e.without_url()))?;
        if status.is_success() {
            if bytes.is_empty() {
                return Ok(Value::Null);
            }
            return serde_json::from_slice(&bytes)
                .map_err(|e| JiraError::Unexpected(format!("{status}: {e}")));
        }
        Err(refused(status, &bytes))
    }

    /// People whose name matches `query` (all when empty), for assignees and mentions.
    pub async fn users(&self, query: &str) -> JiraResult<Vec<JiraUser>> {
        let q = query.trim();
        // Cloud answers at most 100 accounts a page (apps and customers among them): read
        // page after page until a short one, up to USER_PAGES pages.
        let mut list: Vec<Value> = Vec::new();
        let mut start = 0usize;
        for _ in 0..USER_PAGES {
            let start_at = start.to_string();
            let req = match (self.cfg.flavour, q.is_empty()) {
                (JiraFlavour::Cloud, true) => self
                    .request(Method::GET, "/users/search")
                    .query(&[("startAt", start_at.as_str()), ("maxResults", "100")]),
                (JiraFlavour::Cloud, false) => self.request(Method::GET, "/user/search").query(&[
                    ("query", q),
                    ("startAt", start_at.as_str()),
                    ("maxResults", "100"),
                ]),
                // Server/DC searches by `username` (matched against username, name and
                // e-mail); `.` matches everyone.
                (JiraFlavour::Server, _) => self.request(Method::GET, "/user/search").query(&[
                    ("username", if q.is_empty() { "." } else { q }),
                    ("startAt", start_at.as_str()),
                    ("maxResults", "100"),
                ]),
            };
            let v = self.send(req).await?;
            let page = v
                .as_array()
                .ok_or_else(|| JiraError::Unexpected("the user search is not a list".into()))?;
            let n = page.len();
            list.extend(page.iter().cloned());
            if n < 100 {
                break;
            }
            start += n;
        }
        Ok(list
            .iter()
            .filter(|u| u["active"].as_bool().unwrap_or(true))
            .filter(|u| {
                // Cloud lists apps and customers too; only people can be assigned.
                u["accountType"].as_str().is_none_or(|t| t == "atlassian")
            })
            .filter_map(|u| {
                let id = match self.cfg.flavour {
                    JiraFlavour::Cloud => u["accountId"].as_str(),
                    JiraFlavour::Server => u["name"].as_str(),
                }?;
                let name = u["displayName"].as_str().unwrap_or(id);
                Some(JiraUser {
                    account_id: id.to_string(),
                    name: name.to_string(),
                })
            })
            .collect())
    }

    /// Server/DC: the display names of the users a description mentions (its wiki markup
    /// keeps only `[~username]`), so that a mention reads as it was written. A user Jira
    /// does not answer for keeps the username; at most 20 are looked up.
    async fn display_names(&self, wiki: &str) -> std::collections::BTreeMap<String, String> {
        let mut names = std::collections::BTreeMap::new();
        for user in ticket::wiki_mentions(wiki).into_iter().take(20) {
            let req = self
                .request(Method::GET, "/user")
                .query(&[("username", user.as_str())]);
            if let Ok(v) = self.send(req).await {
                if let Some(name) = v["displayName"].as_str().filter(|n| !n.is_empty()) {
                    names.insert(user, name.to_string());
                }
            }
        }
        names
    }

    /// The projects the configured account can see.
    pub async fn projects(&self) -> JiraResult<Vec<JiraProject>> {
        let v = match self.cfg.flavour {
            // Cloud: the paged project search (`values`), every page.
            JiraFlavour::Cloud => {
                let mut all = Vec::new();
                let mut start = 0u64;
                loop {
                    let page = self
                        .send(self.request(Method::GET, "/project/search").query(&[
                            ("startAt", start.to_string()),
                            ("maxResults", "50".to_string()),
                        ]))
                        .await?;
                    let values = page["values"].as_array().cloned().unwrap_or_default();
                    let n = values.len() as u64;
                    all.extend(values);
                    if page["isLast"].as_bool().unwrap_or(true) || n == 0 {
                        break;
                    }
                    start += n;
                }
                Value::Array(all)
            }
            JiraFlavour::Server => self.send(self.request(Method::GET, "/project")).await?,
        };
        let list = v
            .as_array()
            .ok_or_else(|| JiraError::Unexpected("the project list is not a list".into()))?;
        Ok(list
            .iter()
            .filter_map(|p| {
                Some(JiraProject {
                    key: p["key"].as_str()?.to_string(),
                    name: p["name"].as_str().unwrap_or_default().to_string(),
                })
            })
            .collect())
    }

    /// The names of the issue statuses, each once, in Jira's order.
    pub async fn statuses(&self) -> JiraResult<Vec<String>> {
        let v = self.send(self.request(Method::GET, "/status")).await?;
        let list = v
            .as_array()
            .ok_or_else(|| JiraError::Unexpected("the status list is not a list".into()))?;
        let mut names: Vec<String> = Vec::new();
        for s in list {
            if let Some(n) = s["name"].as_str() {
                if !names.iter().any(|x| x == n) {
                    names.push(n.to_string());
                }
            }
        }
        Ok(names)
    }

    fn person(&self, id: &str) -> Value {
        match self.cfg.flavour {
            JiraFlavour::Cloud => json!({"accountId": id}),
            JiraFlavour::Server => json!({"name": id}),
        }
    }

    fn description(&self, text: &str) -> Value {
        match self.cfg.flavour {
            JiraFlavour::Cloud => ticket::to_adf(text),
            JiraFlavour::Server => Value::String(ticket::to_wiki(text)),
        }
    }

    fn fields(&self, d: &IssueDraft, with_project: bool) -> Value {
        let mut f = json!({
            "summary": d.summary,
            "labels": d.labels,
            "description": self.description(&d.description),
        });
        if with_project {
            f["project"] = json!({"key": d.project});
            f["issuetype"] = json!({"name": ticket::ISSUE_TYPE});
        }
        f["assignee"] = if d.assignee.trim().is_empty() {
            Value::Null
        } else {
            self.person(d.assignee.trim())
        };
        f
    }

    /// Opens a Bug; answers its key.
    pub async fn create_issue(&self, d: &IssueDraft) -> JiraResult<String> {
        let v = self
            .send(
                self.request(Method::POST, "/issue")
                    .json(&json!({"fields": self.fields(d, true)})),
            )
            .await?;
        v["key"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| JiraError::Unexpected("the created issue has no key".into()))
    }

    /// Changes a ticket's summary, assignee, labels and description; then, when `status`
    /// is given and differs, moves it there through the transition leading to it.
    pub async fn update_issue(
        &self,
        key: &str,
        d: &IssueDraft,
        status: Option<&str>,
    ) -> JiraResult<()> {
        self.send(
            self.request(Method::PUT, &format!("/issue/{}", enc(key)))
                .json(&json!({"fields": self.fields(d, false)})),
        )
        .await?;
        let Some(status) = status.map(str::trim).filter(|s| !s.is_empty()) else {
            return Ok(());
        };
        let current = self.issue(key).await?.status;
        if current.eq_ignore_ascii_case(status) {
            return Ok(());
        }
        let t = self
            .send(self.request(Method::GET, &format!("/issue/{}/transitions", enc(key))))
            .await?;
        let id = t["transitions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| {
                t["to"]["name"]
                    .as_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case(status))
            })
            .and_then(|t| t["id"].as_str())
            .ok_or_else(|| JiraError::Refused {
                status: 400,
                messages: vec![format!("{key} cannot move from {current} to {status}.")],
            })?
            .to_string();
        self.send(
            self.request(Method::POST, &format!("/issue/{}/transitions", enc(key)))
                .json(&json!({"transition": {"id": id}})),
        )
        .await?;
        Ok(())
    }

    /// Reads a ticket.
    pub async fn issue(&self, key: &str) -> JiraResult<Issue> {
        let v = self
            .send(
                self.request(Method::GET, &format!("/issue/{}", enc(key)))
                    .query(&[(
                        "fields",
                        "summary,labels,assignee,project,status,description",
                    )]),
            )
            .await?;
        let f = &v["fields"];
        let description = match self.cfg.flavour {
            JiraFlavour::Cloud => ticket::from_adf(&f["description"]),
            JiraFlavour::Server => {
                let wiki = f["description"].as_str().unwrap_or("");
                ticket::from_wiki_named(wiki, &self.display_names(wiki).await)
            }
        };
        let assignee_id = match self.cfg.flavour {
            JiraFlavour::Cloud => f["assignee"]["accountId"].as_str(),
            JiraFlavour::Server => f["assignee"]["name"].as_str(),
        };
        Ok(Issue {
            key: v["key"].as_str().unwrap_or(key).to_string(),
            project: f["project"]["key"].as_str().unwrap_or_default().into(),
            summary: f["summary"].as_str().unwrap_or_default().into(),
            assignee_id: assignee_id.map(str::to_string),
            labels: f["labels"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|l| l.as_str().map(str::to_string))
                .collect(),
            status: f["status"]["name"].as_str().unwrap_or_default().into(),
            description,
        })
    }

    /// Attaches a file to a ticket.
    pub async fn attach(&self, key: &str, file: &Attachment) -> JiraResult<()> {
        let part = reqwest::multipart::Part::bytes(file.bytes.clone())
            .file_name(file.file_name.clone())
            .mime_str(&file.content_type)
            .map_err(|e| JiraError::Unexpected(e.to_string()))?;
        let form = reqwest::multipart::Form::new().part("file", part);
        self.send(
            self.request(Method::POST, &format!("/issue/{}/attachments", enc(key)))
                .header("X-Atlassian-Token", "no-check")
                .multipart(form),
        )
        .await?;
        Ok(())
    }

    /// The keys of the issues a JQL query finds (at most `max`).
    pub async fn search_keys(&self, jql: &str, max: u32) -> JiraResult<Vec<String>> {
        let path = match self.cfg.flavour {
            JiraFlavour::Cloud => "/search/jql",
            JiraFlavour::Server => "/search",
        };
        let v = self
            .send(self.request(Method::POST, path).json(&json!({
                "jql": jql,
                "fields": ["summary"],
                "maxResults": max,
            })))
            .await?;
        Ok(v["issues"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["key"].as_str().map(str::to_string))
            .collect())
    }
}

fn enc(key: &str) -> String {
    key.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Jira's error answer as messages: `errorMessages`, then `errors` as `field: message`;
/// a body without them gives a message naming the status.
pub fn refused(status: StatusCode, body: &[u8]) -> JiraError {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let mut messages: Vec<String> = v["errorMessages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect();
    if let Some(errors) = v["errors"].as_object() {
        for (field, m) in errors {
            let m = m
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| m.to_string());
            messages.push(format!("{field}: {m}"));
        }
    }
    if messages.is_empty() {
        messages.push(match status {
            StatusCode::UNAUTHORIZED => "Jira refused the console's credentials.".to_string(),
            StatusCode::FORBIDDEN => "Jira does not allow the console's account to do this.".into(),
            s => format!(
                "Jira answered {} {}.",
                s.as_u16(),
                s.canonical_reason().unwrap_or("")
            )
            .replace(" .", "."),
        });
    }
    JiraError::Refused {
        status: status.as_u16(),
        messages,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_answers_become_messages() {
        let body = br#"{"errorMessages":["Issue does not exist"],"errors":{"assignee":"User 'x' does not exist.","project":"project is required"}}"#;
        match refused(StatusCode::BAD_REQUEST, body) {
            JiraError::Refused { status, messages } => {
                assert_eq!(status, 400);
                assert_eq!(
                    messages,
                    vec![
                        "Issue does not exist",
                        "assignee: User 'x' does not exist.",
                        "project: project is required"
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
        match refused(StatusCode::UNAUTHORIZED, b"<html>") {
            JiraError::Refused { messages, .. } => {
                assert_eq!(messages, vec!["Jira refused the console's credentials."])
            }
            other => panic!("{other:?}"),
        }
        match refused(StatusCode::BAD_GATEWAY, b"") {
            JiraError::Refused { messages, .. } => {
                assert_eq!(messages, vec!["Jira answered 502 Bad Gateway."])
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn keys_are_path_safe() {
        assert_eq!(enc("CX-12"), "CX-12");
        assert_eq!(enc("../x y"), "%2E%2E%2Fx%20y");
    }
}

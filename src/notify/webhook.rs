//! The chat and webhook channels (`[notify.webhook]`): one HTTPS POST of JSON to the
//! contact's URL, in the format its type names:
//!
//! - **Webhook**: cxwatch's own body (docs/notifications.md 'Webhooks'): `event`, `subject`,
//!   `text`, `testCase`, `status`, `link`, `key`, `cause`, `sentAt`; with
//!   `X-Cxwatch-Timestamp`, `X-Cxwatch-Delivery` (the notification's key, the same on a
//!   retry) and, when `secret` is set, `X-Cxwatch-Signature: sha256=<hex HMAC-SHA256 of
//!   "{timestamp}.{body}">`; plus the configured `headers`.
//! - **Microsoft Teams**: the message a Workflows webhook ('When a Teams webhook request is
//!   received') and the old incoming webhooks take: `{"type": "message", "attachments":
//!   [{"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": null,
//!   "content": <Adaptive Card 1.4>}]}`, kept under Teams' 28 KB.
//! - **Slack**: an incoming webhook's `text` (the notification's fallback) and `blocks` (a
//!   header, a `mrkdwn` section, the link as a button), each within Block Kit's limits.
//! - **Mattermost**: an incoming webhook's `text`, in Markdown.
//!
//! Any 2xx answer is delivery; a 4xx other than 408 and 429 a permanent refusal.

use std::time::Duration;

use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use super::Failure;
use crate::config::WebhookConfig;
use crate::domain::distribution::ContactType;
use crate::domain::notify::Notification;
use crate::store::outbox::Claimed;
use crate::trust::Roots;

/// Teams refuses a message above 28 KB; the text is cut to stay well below.
const TEAMS_TEXT_MAX: usize = 20_000;
/// Slack: a section's text at most 3000 characters, a header's 150, a button's URL 3000.
const SLACK_SECTION_MAX: usize = 3000;
const SLACK_HEADER_MAX: usize = 150;
/// Slack truncates a message's `text` beyond 40 000 characters.
const SLACK_TEXT_MAX: usize = 4000;
/// Mattermost's post limit is 16 383 characters (4000 on old servers).
const MATTERMOST_TEXT_MAX: usize = 4000;
/// The label of the link back to the console.
const OPEN: &str = "Open in cxwatch";

pub struct Webhooks {
    client: reqwest::Client,
    config: WebhookConfig,
}

impl Webhooks {
    /// The webhook channels, `None` when `enabled` is off.
    pub fn from_config(c: &WebhookConfig) -> anyhow::Result<Option<Webhooks>> {
        if !c.enabled {
            return Ok(None);
        }
        let b =
            crate::trust::reqwest_builder(Roots::new("notify.webhook", c.trust, c.ca.as_deref()))
                .map_err(anyhow::Error::msg)?
                .timeout(Duration::from_secs(c.timeout_secs))
                .connect_timeout(Duration::from_secs(c.timeout_secs))
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy();
        Ok(Some(Webhooks {
            client: b.build()?,
            config: c.clone(),
        }))
    }

    pub async fn send(&self, item: &Claimed) -> Result<(), Failure> {
        let n = &item.notification;
        // The receiver checks the signed timestamp against its own (real) clock.
        let now = chrono::Utc::now();
        let body = payload(n.channel, n, now).to_string();
        let mut req = self
            .client
            .post(&n.recipient)
            .header("content-type", "application/json");
        if n.channel == ContactType::Webhook {
            let ts = now.timestamp().to_string();
            req = req
                .header("x-cxwatch-timestamp", &ts)
                .header("x-cxwatch-delivery", &n.key);
            if !self.config.secret.is_empty() {
                req = req.header(
                    "x-cxwatch-signature",
                    signature(&self.config.secret, &ts, &body),
                );
            }
            for (k, v) in &self.config.headers {
                req = req.header(k.as_str(), v.as_str());
            }
        }
        let shown = shown(&n.recipient);
        let name = n.channel.name();
        let resp = req.body(body).send().await.map_err(|e| {
            let what = if crate::trust::untrusted(&e).is_some() {
                "refused"
            } else if e.is_timeout() {
                "timed out"
            } else if e.is_connect() {
                "cannot be reached"
            } else {
                "failed"
            };
            Failure {
                reason: format!(
                    "{name} webhook {shown} {what}: {}",
                    crate::trust::describe(&e)
                ),
                permanent: false,
            }
        })?;
        let status = resp.status();
        if status.is_success() {
            return Ok(());
        }
        let text = resp.text().await.unwrap_or_default();
        let first: String = text
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .chars()
            .take(200)
            .collect();
        Err(Failure {
            reason: format!("{name} webhook {shown} answered {status}: {first}"),
            permanent: status.is_client_error() && status.as_u16() != 408 && status.as_u16() != 429,
        })
    }
}

/// A webhook address as reasons show it: scheme and host only (the path and query of a
/// Teams, Slack or Mattermost webhook are its secret).
pub fn shown(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => format!(
            "{}://{}{}/…",
            u.scheme(),
            u.host_str().unwrap_or(""),
            u.port().map(|p| format!(":{p}")).unwrap_or_default()
        ),
        Err(_) => "(not a URL)".into(),
    }
}

/// `sha256=` and the hex HMAC-SHA256 of `{timestamp}.{body}` under `secret`.
pub fn signature(secret: &str, timestamp: &str, body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body.as_bytes());
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// What caused a notification, as the generic body's `event`: `alert`, `recovery`,
/// `escalation`, `report`, `test`, or the cause's first part.
pub fn event_of(cause: &str) -> &str {
    match cause.split(':').next().unwrap_or("") {
        "testContact" => "test",
        other => other,
    }
}

/// At most `max` characters, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Slack's three escapes (`&`, `<`, `>`), for text in `mrkdwn` and `text`.
fn slack_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn var<'a>(n: &'a Notification, k: &str) -> &'a str {
    n.vars.get(k).map(String::as_str).unwrap_or("")
}

/// The JSON body for a contact of type `kind`.
pub fn payload(kind: ContactType, n: &Notification, now: chrono::DateTime<chrono::Utc>) -> Value {
    let link = var(n, "link");
    let title = if n.subject.is_empty() {
        "cxwatch"
    } else {
        n.subject.as_str()
    };
    match kind {
        ContactType::Teams => {
            let mut body = vec![json!({
                "type": "TextBlock",
                "text": cut(title, 500),
                "weight": "Bolder",
                "size": "Medium",
                "wrap": true
            })];
            body.push(json!({
                "type": "TextBlock",
                "text": cut(&n.text, TEAMS_TEXT_MAX),
                "wrap": true
            }));
            let facts: Vec<Value> = [
                ("Test case", var(n, "testCase")),
                ("Status", var(n, "status")),
            ]
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(t, v)| json!({ "title": t, "value": v }))
            .collect();
            if !facts.is_empty() {
                body.push(json!({ "type": "FactSet", "facts": facts }));
            }
            let mut card = json!({
                "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                "type": "AdaptiveCard",
                "version": "1.4",
                "body": body
            });
            if !link.is_empty() {
                card["actions"] = json!([{ "type": "Action.OpenUrl", "title": OPEN, "url": link }]);
            }
            json!({
                "type": "message",
                "attachments": [{
                    "contentType": "application/vnd.microsoft.card.adaptive",
                    "contentUrl": null,
                    "content": card
                }]
            })
        }
        ContactType::Slack => {
            let fallback = if link.is_empty() {
                format!("{title}\n{}", n.text)
            } else {
                format!("{title}\n{}\n{link}", n.text)
            };
            let mut blocks = vec![
                json!({
                    "type": "header",
                    "text": { "type": "plain_text", "text": cut(title, SLACK_HEADER_MAX), "emoji": false }
                }),
                json!({
                    "type": "section",
                    "text": { "type": "mrkdwn", "text": cut(&slack_escape(&n.text), SLACK_SECTION_MAX) }
                }),
            ];
            if !link.is_empty() {
                blocks.push(json!({
                    "type": "actions",
                    "elements": [{
                        "type": "button",
                        "text": { "type": "plain_text", "text": OPEN },
                        "url": cut(link, 3000)
                    }]
                }));
            }
            json!({ "text": cut(&slack_escape(&fallback), SLACK_TEXT_MAX), "blocks": blocks })
        }
        ContactType::Mattermost => {
            let mut text = format!("#### {}\n\n{}", title.replace('\n', " "), n.text);
            if !link.is_empty() {
                text.push_str(&format!("\n\n[{OPEN}]({link})"));
            }
            json!({ "text": cut(&text, MATTERMOST_TEXT_MAX) })
        }
        // The generic body (also for a type that is not a webhook, which is never sent here).
        _ => json!({
            "event": event_of(&n.cause),
            "subject": n.subject,
            "text": n.text,
            "testCase": var(n, "testCase"),
            "status": var(n, "status"),
            "link": link,
            "key": n.key,
            "cause": n.cause,
            "sentAt": now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::notify::NotificationState;

    fn note(text: &str, link: &str) -> Notification {
        Notification {
            id: 1,
            key: "alert:7:2".into(),
            channel: ContactType::Webhook,
            recipient: "https://hooks.example.com/x/y?token=s".into(),
            subject: "Billing IVR: FAILURE".into(),
            text: text.into(),
            html: None,
            vars: [
                ("testCase".to_string(), "Billing IVR".to_string()),
                ("status".to_string(), "FAILURE".to_string()),
                ("link".to_string(), link.to_string()),
            ]
            .into(),
            cause: "alert:7".into(),
            state: NotificationState::Queued,
            attempts: 1,
            reason: None,
            created_ms: 0,
            next_ms: 0,
            sent_ms: None,
        }
    }

    #[test]
    fn each_vendor_gets_its_format() {
        let now = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let n = note(
            "3 failures <in a row> & more",
            "https://console.test/alerts/7",
        );
        let g = payload(ContactType::Webhook, &n, now);
        assert_eq!(g["event"], "alert");
        assert_eq!(g["sentAt"], "2023-11-14T22:13:20Z");
        assert_eq!(g["link"], "https://console.test/alerts/7");
        assert_eq!(g["key"], "alert:7:2");
        let t = payload(ContactType::Teams, &n, now);
        assert_eq!(t["type"], "message");
        let a = &t["attachments"][0];
        assert_eq!(a["contentType"], "application/vnd.microsoft.card.adaptive");
        assert!(a["contentUrl"].is_null());
        assert_eq!(a["content"]["type"], "AdaptiveCard");
        assert_eq!(a["content"]["version"], "1.4");
        assert_eq!(a["content"]["actions"][0]["type"], "Action.OpenUrl");
        assert_eq!(a["content"]["body"][2]["facts"][1]["value"], "FAILURE");
        let s = payload(ContactType::Slack, &n, now);
        assert!(s["text"]
            .as_str()
            .unwrap()
            .contains("&lt;in a row&gt; &amp; more"));
        assert_eq!(s["blocks"][0]["type"], "header");
        assert_eq!(s["blocks"][1]["text"]["type"], "mrkdwn");
        assert_eq!(
            s["blocks"][2]["elements"][0]["url"],
            "https://console.test/alerts/7"
        );
        let m = payload(ContactType::Mattermost, &n, now);
        assert_eq!(
            m["text"],
            "#### Billing IVR: FAILURE\n\n3 failures <in a row> & more\n\n[Open in cxwatch](https://console.test/alerts/7)"
        );
        assert_eq!(m.as_object().unwrap().len(), 1);
        // No link: no button, no action.
        let n = note("x", "");
        assert!(
            payload(ContactType::Teams, &n, now)["attachments"][0]["content"]["actions"].is_null()
        );
        assert_eq!(
            payload(ContactType::Slack, &n, now)["blocks"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn long_texts_stay_within_the_vendors_limits() {
        let now = chrono::Utc::now();
        let n = note(&"é".repeat(50_000), "https://c.test/a");
        assert!(payload(ContactType::Teams, &n, now).to_string().len() < 28 * 1024 + 20_000);
        let s = payload(ContactType::Slack, &n, now);
        assert_eq!(
            s["blocks"][1]["text"]["text"]
                .as_str()
                .unwrap()
                .chars()
                .count(),
            SLACK_SECTION_MAX
        );
        assert!(s["text"].as_str().unwrap().chars().count() <= SLACK_TEXT_MAX);
        let m = payload(ContactType::Mattermost, &n, now);
        assert_eq!(
            m["text"].as_str().unwrap().chars().count(),
            MATTERMOST_TEXT_MAX
        );
    }

    #[test]
    fn signatures_are_hmac_sha256_of_time_and_body() {
        // As `openssl dgst -sha256 -hmac s3cret` computes it.
        assert_eq!(
            signature("s3cret", "1700000000", r#"{"a":1}"#),
            "sha256=1698a50bc74d1ff1db85c4e0a5297c2ad9fdba245d5737cdb789e4cc6e098940"
        );
        assert_eq!(event_of("testContact"), "test");
        assert_eq!(event_of("recovery:3"), "recovery");
        assert_eq!(
            shown("https://h.example.com:8443/hooks/secret?x=1"),
            "https://h.example.com:8443/…"
        );
    }
}

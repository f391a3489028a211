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
use crate::domain::delivery::{host_allowed, is_internal, literal, slack_literal, ReasonCode};
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
                .dns_resolver(std::sync::Arc::new(GuardedResolver {
                    allowed: c.allowed_hosts.clone(),
                }))
                .no_proxy();
        Ok(Some(Webhooks {
            client: b.build()?,
            config: c.clone(),
        }))
    }

    pub async fn send(&self, item: &Claimed) -> Result<(), Failure> {
        let n = &item.notification;
        let name = n.channel.name();
        let who = format!("{name} webhook {}", shown(&n.recipient));
        self.check_target(&n.recipient, &who).await?;
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
        let resp = req
            .body(body)
            .send()
            .await
            .map_err(|e| super::request_failure(e, &who, "notify.webhook"))?;
        if resp.status().is_success() {
            return Ok(());
        }
        Err(super::status_failure(
            &resp,
            &who,
            "the contact's URL in its distribution list",
            "the contact's URL and notify.webhook.headers",
        ))
    }

    /// Refuses a loopback or link-local target (by address, or by name when it resolves
    /// to one) unless its host is in `notify.webhook.allowed_hosts`. The client's resolver
    /// ([`GuardedResolver`]) checks again at connection time, so a name that changes its
    /// answer in between gains nothing.
    async fn check_target(&self, url: &str, who: &str) -> Result<(), Failure> {
        let bad = |why: String| Failure::new(ReasonCode::BadAddress, format!("{who}: {why}"), true);
        let u = reqwest::Url::parse(url).map_err(|e| bad(format!("not a URL ({e})")))?;
        let host = match u.host() {
            Some(h) => h,
            None => return Err(bad("no host".into())),
        };
        let name = u.host_str().unwrap_or("").to_ascii_lowercase();
        if host_allowed(&name, &self.config.allowed_hosts) {
            return Ok(());
        }
        let internal = match host {
            url::Host::Ipv4(ip) => is_internal(ip.into()),
            url::Host::Ipv6(ip) => is_internal(ip.into()),
            url::Host::Domain(d) => {
                let port = u.port_or_known_default().unwrap_or(443);
                match tokio::net::lookup_host((d, port)).await {
                    Ok(addrs) => addrs.into_iter().any(|a| is_internal(a.ip())),
                    // Not found: the request says so.
                    Err(_) => false,
                }
            }
        };
        if internal {
            return Err(Failure::new(
                ReasonCode::BlockedHost,
                format!(
                    "{who}: a loopback or link-local address is refused (list the host in \
                     notify.webhook.allowed_hosts to allow it)"
                ),
                true,
            ));
        }
        Ok(())
    }
}

/// The webhook client's resolver: the system's, without the loopback and link-local
/// addresses of a name not in `notify.webhook.allowed_hosts`.
struct GuardedResolver {
    allowed: Vec<String>,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let open = host_allowed(&host, &self.allowed);
        Box::pin(async move {
            let addrs: Vec<std::net::SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| open || !is_internal(a.ip()))
                .collect();
            if addrs.is_empty() {
                return Err(format!(
                    "{host}: no address a webhook may reach (notify.webhook.allowed_hosts)"
                )
                .into());
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
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

fn var<'a>(n: &'a Notification, k: &str) -> &'a str {
    n.vars.get(k).map(String::as_str).unwrap_or("")
}

/// The JSON body for a contact of type `kind`. What the message says (its subject and text,
/// with test case and setting names that any ingest key or read-write user chose) is data:
/// each flavour gets it as literal text (`domain::delivery::literal`), so a name like
/// `@channel` or `[x](http://…)` reads as typed and never mentions, links or formats.
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
                "text": literal(&cut(title, 500)),
                "weight": "Bolder",
                "size": "Medium",
                "wrap": true
            })];
            body.push(json!({
                "type": "TextBlock",
                "text": literal(&cut(&n.text, TEAMS_TEXT_MAX)),
                "wrap": true
            }));
            let facts: Vec<Value> = [
                ("Test case", var(n, "testCase")),
                ("Status", var(n, "status")),
            ]
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(t, v)| json!({ "title": t, "value": literal(v) }))
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
            let said = slack_literal(&format!("{title}\n{}", n.text));
            let fallback = if link.is_empty() {
                said
            } else {
                format!("{said}\n{link}")
            };
            let mut blocks = vec![
                json!({
                    "type": "header",
                    "text": { "type": "plain_text", "text": cut(title, SLACK_HEADER_MAX), "emoji": false }
                }),
                // Plain text: Slack's mrkdwn has no escape for `*`, `_`, `~`.
                json!({
                    "type": "section",
                    "text": { "type": "plain_text", "text": cut(&n.text, SLACK_SECTION_MAX), "emoji": false }
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
            json!({ "text": cut(&fallback, SLACK_TEXT_MAX), "blocks": blocks })
        }
        ContactType::Mattermost => {
            let mut text = format!(
                "#### {}\n\n{}",
                literal(&title.replace('\n', " ")),
                literal(&n.text)
            );
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
            reason_code: None,
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
        assert_eq!(s["blocks"][1]["text"]["type"], "plain_text");
        assert_eq!(
            s["blocks"][1]["text"]["text"],
            "3 failures <in a row> & more"
        );
        assert_eq!(
            s["blocks"][2]["elements"][0]["url"],
            "https://console.test/alerts/7"
        );
        let m = payload(ContactType::Mattermost, &n, now);
        assert_eq!(
            m["text"],
            "#### Billing IVR:\u{2060} FAILURE\n\n3 failures \\<in a row\\> \\& more\n\n[Open in cxwatch](https://console.test/alerts/7)"
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

    /// Names any ingest key or read-write user may choose, as an attacker would.
    const HOSTILE: [&str; 13] = [
        "@channel",
        "@here call me",
        "@all",
        "[click](http://evil.test/login)",
        "![](http://evil.test/pixel.png)",
        "*IVR*",
        "_IVR_ and **IVR** and ~~IVR~~",
        "`rm -rf`",
        "# Heading\n=====",
        "<b>html</b> <https://evil.test>",
        "> quote\n1. list\n- item",
        "~town-square :smile: http://evil.test www.evil.test",
        "| a | b |\n|---|---|\n| c | d |",
    ];

    /// Markup a CommonMark renderer (Mattermost, Teams' TextBlock) makes live out of `text`:
    /// formatting, links, images, HTML, headings, lists, quotes, code, tables; and in its
    /// text, mentions (`@word`), channel links (`~word`), emoji codes and bare links.
    fn live_markdown(text: &str) -> Vec<String> {
        use pulldown_cmark::{Event, Options, Parser, Tag};
        let mut live = Vec::new();
        let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
        for ev in Parser::new_ext(text, opts) {
            match ev {
                Event::Start(tag) => match tag {
                    Tag::Paragraph => {}
                    other => live.push(format!("{other:?}")),
                },
                Event::Code(c) => live.push(format!("code {c}")),
                Event::Html(h) | Event::InlineHtml(h) => live.push(format!("html {h}")),
                Event::Text(t) => {
                    let chars: Vec<char> = t.chars().collect();
                    for (i, c) in chars.iter().enumerate() {
                        let next = chars.get(i + 1).copied().unwrap_or(' ');
                        if matches!(c, '@' | '~') && next.is_alphanumeric() {
                            live.push(format!("mention {t}"));
                        }
                        if *c == ':' && next.is_alphanumeric() {
                            live.push(format!("emoji {t}"));
                        }
                    }
                    for scheme in ["http://", "https://", "www."] {
                        if t.contains(scheme) {
                            live.push(format!("autolink {t}"));
                        }
                    }
                }
                _ => {}
            }
        }
        live
    }

    /// Slack's mrkdwn (the fallback `text`): a `*`, `_`, `~` or `` ` `` not broken by the
    /// joiner pairs up; a raw `<` opens a link or `<!channel>`; `@word` may mention.
    fn live_mrkdwn(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut live = Vec::new();
        for (i, c) in chars.iter().enumerate() {
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            if matches!(c, '*' | '_' | '~' | '`' | '@') && next != '\u{2060}' && next != ' ' {
                live.push(format!("{c} in {text}"));
            }
            if *c == '<' {
                live.push(format!("< in {text}"));
            }
        }
        live
    }

    /// The escaping sweep: each hostile name as test case, subject and text, through each
    /// flavour, read back as each vendor's renderer would; no live markup is left.
    #[test]
    fn names_read_as_typed_in_every_flavour() {
        let now = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let mut live: Vec<String> = Vec::new();
        for name in HOSTILE {
            let mut n = note(&format!("Failure of {name} (3 in a row)"), "");
            n.subject = format!("{name}: FAILURE");
            n.vars.insert("testCase".into(), name.into());
            let m = payload(ContactType::Mattermost, &n, now);
            // Our own heading ("#### ") left aside.
            let said = m["text"].as_str().unwrap().strip_prefix("#### ").unwrap();
            live.extend(live_markdown(said));
            let t = payload(ContactType::Teams, &n, now);
            let body = &t["attachments"][0]["content"]["body"];
            for b in body.as_array().unwrap() {
                if let Some(text) = b["text"].as_str() {
                    live.extend(live_markdown(text));
                }
                for f in b["facts"].as_array().into_iter().flatten() {
                    live.extend(live_markdown(f["value"].as_str().unwrap()));
                }
            }
            let s = payload(ContactType::Slack, &n, now);
            live.extend(live_mrkdwn(s["text"].as_str().unwrap()));
            for b in s["blocks"].as_array().unwrap() {
                if b["text"]["type"] == "mrkdwn" {
                    live.extend(live_mrkdwn(b["text"]["text"].as_str().unwrap()));
                }
            }
            // Each name reads as typed once the escapes are rendered.
            let shown: String = pulldown_cmark::Parser::new(m["text"].as_str().unwrap())
                .filter_map(|e| match e {
                    pulldown_cmark::Event::Text(t) => Some(t.to_string()),
                    pulldown_cmark::Event::SoftBreak | pulldown_cmark::Event::HardBreak => {
                        Some("\n".into())
                    }
                    _ => None,
                })
                .collect::<String>()
                .replace('\u{2060}', "");
            assert!(
                shown.contains(&format!("Failure of {name} (3")),
                "{shown:?}"
            );
        }
        println!(
            "escaping sweep: {} names x 3 flavours (Mattermost, Teams, Slack), live markup: {}",
            HOSTILE.len(),
            live.len()
        );
        assert!(live.is_empty(), "live markup: {live:#?}");
        // Our own link stays a link.
        let n = note("x", "https://console.test/alert/7");
        let m = payload(ContactType::Mattermost, &n, now);
        let said = m["text"].as_str().unwrap().strip_prefix("#### ").unwrap();
        let live = live_markdown(said);
        assert!(live.len() == 1 && live[0].starts_with("Link"), "{live:?}");
    }
}

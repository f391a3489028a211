//! Notifications in the outbox: what is to be sent to one contact, its state, the retry
//! schedule and the gateway templates' placeholders. Pure; `store::outbox` keeps them and
//! `notify` delivers them.

use std::collections::BTreeMap;

use super::distribution::{Contact, ContactType};

/// Where a notification is in its life: `queued`, `sent` or `failed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum NotificationState {
    /// Waiting for its first or next attempt.
    Queued,
    /// Accepted by the mail server or gateway.
    Sent,
    /// Given up: the last attempt's reason is kept.
    Failed,
}

impl NotificationState {
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationState::Queued => "queued",
            NotificationState::Sent => "sent",
            NotificationState::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<NotificationState> {
        Some(match s {
            "queued" => NotificationState::Queued,
            "sent" => NotificationState::Sent,
            "failed" => NotificationState::Failed,
            _ => return None,
        })
    }
}

/// A file sent with an e-mail (a recording, a report).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub name: String,
    pub content_type: String,
    pub data: Vec<u8>,
    /// Shown inside the HTML part (`<img src="cid:…">`) rather than as a file: its
    /// Content-ID without the angle brackets.
    pub content_id: Option<String>,
}

impl Attachment {
    /// The call recording of run `run`, named by the run and its audio type.
    pub fn recording(run: i64, content_type: String, data: Vec<u8>) -> Attachment {
        let ext = match content_type.as_str() {
            "audio/mpeg" => "mp3",
            "audio/ogg" => "ogg",
            _ => "wav",
        };
        Attachment {
            name: format!("run-{run}.{ext}"),
            content_type,
            data,
            content_id: None,
        }
    }
}

/// One message to one contact, as it is queued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewNotification {
    /// Unique per notification: the e-mail's Message-ID and the gateway's `{key}`, so that a
    /// retry after a crash is recognised as the same message where the channel allows.
    pub key: String,
    pub channel: ContactType,
    /// An e-mail address, an E.164 number or a webhook URL.
    pub recipient: String,
    /// E-mail subject, or a webhook message's title (empty for SMS and voice).
    pub subject: String,
    /// The text: the e-mail's plain part, the SMS or the words a voice call speaks.
    pub text: String,
    /// The e-mail's HTML part.
    pub html: Option<String>,
    /// Placeholders of the gateway templates beyond `number`, `text` and `key`:
    /// `message` (sms prefix or voice message), `testCase`, `status`, `link`.
    pub vars: BTreeMap<String, String>,
    pub attachments: Vec<Attachment>,
    /// What caused it: `testContact`, `alert:{eventId}`, …
    pub cause: String,
}

/// A notification as stored, with its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    pub id: i64,
    pub key: String,
    pub channel: ContactType,
    pub recipient: String,
    pub subject: String,
    pub text: String,
    pub html: Option<String>,
    pub vars: BTreeMap<String, String>,
    pub cause: String,
    pub state: NotificationState,
    pub attempts: u32,
    /// The last failed attempt's reason (also kept while queued for a retry).
    pub reason: Option<String>,
    /// Milliseconds since the epoch.
    pub created_ms: i64,
    pub next_ms: i64,
    pub sent_ms: Option<i64>,
    /// The last failed attempt's reason as a stable code (`domain::delivery::ReasonCode`).
    pub reason_code: Option<String>,
}

/// What an alert (or any cause) says, before it is addressed to each contact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Message {
    pub subject: String,
    pub text: String,
    pub html: Option<String>,
    /// Put before the text of an SMS (the alert setting's sms prefix).
    pub sms_prefix: String,
    /// An SMS's text after the prefix (short); the text when empty.
    pub sms_text: String,
    /// What a voice call says (the alert setting's voice message); the text when empty.
    pub voice_message: String,
    pub test_case: String,
    pub status: String,
    /// Link to the console page of the cause.
    pub link: String,
    /// Sent with e-mails only.
    pub attachments: Vec<Attachment>,
}

/// One notification per contact of a list. Keys are `{key_prefix}:{row}`, unique as long
/// as the prefix is (e.g. `alert:{eventId}`).
pub fn address(
    contacts: &[Contact],
    msg: &Message,
    key_prefix: &str,
    cause: &str,
) -> Vec<NewNotification> {
    contacts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (text, message) = match c.kind {
                ContactType::Email => (msg.text.clone(), msg.subject.clone()),
                ContactType::Sms => {
                    let body = if msg.sms_text.is_empty() {
                        &msg.text
                    } else {
                        &msg.sms_text
                    };
                    let t = if msg.sms_prefix.is_empty() {
                        body.clone()
                    } else {
                        format!("{} {}", msg.sms_prefix, body)
                    };
                    (t, msg.sms_prefix.clone())
                }
                ContactType::Voice => {
                    let v = if msg.voice_message.is_empty() {
                        msg.text.clone()
                    } else {
                        msg.voice_message.clone()
                    };
                    (v.clone(), v)
                }
                // A chat or webhook message: the e-mail's text, its subject as the title.
                _ => (msg.text.clone(), msg.subject.clone()),
            };
            let mut vars = BTreeMap::new();
            vars.insert("message".into(), message);
            vars.insert("testCase".into(), msg.test_case.clone());
            vars.insert("status".into(), msg.status.clone());
            vars.insert("link".into(), msg.link.clone());
            NewNotification {
                key: format!("{key_prefix}:{i}"),
                channel: c.kind,
                recipient: c.info.clone(),
                subject: if c.kind == ContactType::Email || c.kind.is_webhook() {
                    msg.subject.clone()
                } else {
                    String::new()
                },
                text,
                html: if c.kind == ContactType::Email {
                    msg.html.clone()
                } else {
                    None
                },
                vars,
                attachments: if c.kind == ContactType::Email {
                    msg.attachments.clone()
                } else {
                    Vec::new()
                },
                cause: cause.to_string(),
            }
        })
        .collect()
}

/// Milliseconds to wait after failed attempt number `attempt` (1-based): `first`, then
/// twice as long each time, at most `max` (both in seconds).
pub fn retry_delay_ms(attempt: u32, first_secs: u64, max_secs: u64) -> i64 {
    let factor = 1u64 << attempt.saturating_sub(1).min(30);
    let secs = first_secs.saturating_mul(factor).min(max_secs);
    i64::try_from(secs.saturating_mul(1000)).unwrap_or(i64::MAX)
}

/// How a placeholder's value is written where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escape {
    /// As it is (headers, plain bodies).
    None,
    /// Percent-encoded (URLs, form bodies).
    Url,
    /// Inside a JSON string (JSON bodies).
    Json,
}

/// Replaces each `{name}` of `template` by its value, escaped; an unknown `{name}` stays as
/// it is (a JSON body's own braces are left alone).
pub fn render(template: &str, values: &BTreeMap<String, String>, escape: Escape) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('}');
        let name = close.map(|c| &after[..c]);
        match name.and_then(|n| values.get(n).map(|v| (n, v))) {
            Some((n, v)) => {
                match escape {
                    Escape::None => out.push_str(v),
                    Escape::Url => out.push_str(&percent_encode(v)),
                    Escape::Json => {
                        let quoted = serde_json_escape(v);
                        out.push_str(&quoted);
                    }
                }
                rest = &after[n.len() + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn percent_encode(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn serde_json_escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals() -> BTreeMap<String, String> {
        [
            ("number", "+15145550100"),
            ("text", "Billing IVR \"failed\" & more"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    #[test]
    fn templates_escape_where_they_stand() {
        let v = vals();
        assert_eq!(
            render("/send?to={number}&text={text}", &v, Escape::Url),
            "/send?to=%2B15145550100&text=Billing%20IVR%20%22failed%22%20%26%20more"
        );
        assert_eq!(
            render(
                r#"{"to":"{number}","body":"{text}","x":{}}"#,
                &v,
                Escape::Json
            ),
            r#"{"to":"+15145550100","body":"Billing IVR \"failed\" & more","x":{}}"#
        );
        assert_eq!(
            render("{unknown} {number", &v, Escape::None),
            "{unknown} {number"
        );
    }

    #[test]
    fn retries_back_off_to_a_cap() {
        let d: Vec<_> = (1..=6).map(|a| retry_delay_ms(a, 5, 60)).collect();
        assert_eq!(d, [5000, 10000, 20000, 40000, 60000, 60000]);
        assert_eq!(retry_delay_ms(200, 5, 3600), 3_600_000);
    }

    #[test]
    fn each_contact_gets_its_channel_s_message() {
        let contacts = [
            Contact {
                name: "Ops".into(),
                kind: ContactType::Email,
                info: "ops@example.com".into(),
            },
            Contact {
                name: "On call".into(),
                kind: ContactType::Sms,
                info: "+15145550100".into(),
            },
            Contact {
                name: "Desk".into(),
                kind: ContactType::Voice,
                info: "+15145550101".into(),
            },
            Contact {
                name: "Ops channel".into(),
                kind: ContactType::Teams,
                info: "https://example.webhook.office.com/x".into(),
            },
        ];
        let msg = Message {
            subject: "Billing failed".into(),
            text: "Billing IVR failed 3 times".into(),
            html: Some("<p>Billing</p>".into()),
            sms_prefix: "[CX]".into(),
            voice_message: "Billing is down".into(),
            attachments: vec![Attachment {
                name: "r.wav".into(),
                content_type: "audio/wav".into(),
                data: vec![1, 2],
                content_id: None,
            }],
            ..Message::default()
        };
        let n = address(&contacts, &msg, "alert:7", "alert:7");
        assert_eq!(n[0].key, "alert:7:0");
        assert_eq!(n[0].attachments.len(), 1);
        assert_eq!(n[1].text, "[CX] Billing IVR failed 3 times");
        assert!(n[1].attachments.is_empty() && n[1].html.is_none());
        assert_eq!(n[2].text, "Billing is down");
        // A chat channel: the text with the subject as its title, no file.
        assert_eq!(n[3].subject, "Billing failed");
        assert_eq!(n[3].text, "Billing IVR failed 3 times");
        assert_eq!(n[3].vars["message"], "Billing failed");
        assert!(n[3].attachments.is_empty() && n[3].html.is_none());
    }
}

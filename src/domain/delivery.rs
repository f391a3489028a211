//! The rules of one delivery attempt, apart from the network: why an attempt failed as a
//! stable code the console translates, whether trying again can help and when (the back-off
//! or the receiver's `Retry-After`), which destination an attempt counts against, which
//! webhook targets are refused, how a recipient is shown to whom, and how data is written
//! into a chat message so that it reads as text and never as markup.

use std::net::IpAddr;

use crate::domain::distribution::ContactType;

/// Why an attempt failed, as stored beside the English reason (`outbox.reason_code`) and
/// answered as `reasonCode` (+ `reasonStatus`): the console says it in the user's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasonCode {
    /// The server's certificate is not signed by a trusted CA (or expired, wrong name).
    UntrustedCertificate,
    /// The receiver answered with this HTTP status (not 2xx, not 429).
    HttpStatus(u16),
    /// 429, or 503 with `Retry-After`: tried again when the receiver says.
    RateLimited,
    /// No answer in time.
    Timeout,
    /// No connection (refused, no route, name not found).
    Unreachable,
    /// The recipient is not a valid address (e-mail, number, URL).
    BadAddress,
    /// The mail server refused the credentials.
    AuthenticationFailed,
    /// The mail server refused the message for good (5xx).
    MailRefused,
    /// The mail server refused the message for now (4xx).
    MailDeferred,
    /// The channel has no server configured.
    NotConfigured,
    /// A loopback or link-local target not listed in `notify.webhook.allowed_hosts`.
    BlockedHost,
    /// Anything else.
    Failed,
}

impl ReasonCode {
    /// The stored form: `http_status:404`, `timeout`, ….
    pub fn as_stored(self) -> String {
        match self {
            ReasonCode::HttpStatus(s) => format!("http_status:{s}"),
            other => other.name().to_string(),
        }
    }

    /// The code without its status.
    pub fn name(self) -> &'static str {
        match self {
            ReasonCode::UntrustedCertificate => "untrusted_certificate",
            ReasonCode::HttpStatus(_) => "http_status",
            ReasonCode::RateLimited => "rate_limited",
            ReasonCode::Timeout => "timeout",
            ReasonCode::Unreachable => "unreachable",
            ReasonCode::BadAddress => "bad_address",
            ReasonCode::AuthenticationFailed => "authentication_failed",
            ReasonCode::MailRefused => "mail_refused",
            ReasonCode::MailDeferred => "mail_deferred",
            ReasonCode::NotConfigured => "not_configured",
            ReasonCode::BlockedHost => "blocked_host",
            ReasonCode::Failed => "failed",
        }
    }

    /// The stored form back (an unknown code reads as `failed`).
    pub fn parse(s: &str) -> ReasonCode {
        if let Some(status) = s.strip_prefix("http_status:") {
            return status
                .parse()
                .map(ReasonCode::HttpStatus)
                .unwrap_or(ReasonCode::Failed);
        }
        [
            ReasonCode::UntrustedCertificate,
            ReasonCode::RateLimited,
            ReasonCode::Timeout,
            ReasonCode::Unreachable,
            ReasonCode::BadAddress,
            ReasonCode::AuthenticationFailed,
            ReasonCode::MailRefused,
            ReasonCode::MailDeferred,
            ReasonCode::NotConfigured,
            ReasonCode::BlockedHost,
        ]
        .into_iter()
        .find(|c| c.name() == s)
        .unwrap_or(ReasonCode::Failed)
    }

    /// The HTTP status of an `http_status` code.
    pub fn status(self) -> Option<u16> {
        match self {
            ReasonCode::HttpStatus(s) => Some(s),
            _ => None,
        }
    }
}

/// What an HTTP answer that is not 2xx means: its code and whether it is for good. 401,
/// 403, 404 and the other 4xx (but 408 and 429) cannot heal without a change of the
/// configuration or of the contact: they fail at once.
pub fn http_failure(status: u16) -> (ReasonCode, bool) {
    match status {
        429 => (ReasonCode::RateLimited, false),
        408 => (ReasonCode::HttpStatus(408), false),
        400..=499 => (ReasonCode::HttpStatus(status), true),
        _ => (ReasonCode::HttpStatus(status), false),
    }
}

/// What to do about an HTTP status, in words naming the configuration key that fixes it:
/// `contact` is what holds the address (the distribution list's contact, or `notify.sms.url`),
/// `auth` the keys of the credentials.
pub fn http_advice(status: u16, contact: &str, auth: &str) -> String {
    match status {
        401 | 403 => format!(": the receiver refused the credentials (check {auth})"),
        404 | 410 => format!(": no such receiver (check {contact})"),
        _ => String::new(),
    }
}

/// Seconds to wait that a `Retry-After` header asks for: delta-seconds or an HTTP date
/// (RFC 9110 §10.2.3), seen from `now`. A date in the past is 0; an unreadable value none.
pub fn retry_after_secs(value: &str, now: chrono::DateTime<chrono::Utc>) -> Option<u64> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(secs);
    }
    let at = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    Some((at.timestamp() - now.timestamp()).max(0) as u64)
}

/// When a failed attempt is tried again (ms after the failure): the receiver's
/// `Retry-After` when given, else the back-off (`first`, doubling); both at most `max`.
pub fn next_attempt_delay_ms(
    attempt: u32,
    first_secs: u64,
    max_secs: u64,
    retry_after_secs: Option<u64>,
) -> i64 {
    match retry_after_secs {
        Some(s) => i64::try_from(s.min(max_secs).saturating_mul(1000)).unwrap_or(i64::MAX),
        None => crate::domain::notify::retry_delay_ms(attempt, first_secs, max_secs),
    }
}

/// The destination an attempt counts against (at most `notify.per_destination` at a
/// time): the mail server, the SMS or the voice gateway, or a webhook's scheme, host and
/// port (lower case). One hung host then takes a few slots, never all.
pub fn destination(channel: ContactType, recipient: &str) -> String {
    match channel {
        ContactType::Email => "smtp".into(),
        ContactType::Sms => "sms".into(),
        ContactType::Voice => "voice".into(),
        _ => match url::Url::parse(recipient) {
            Ok(u) => format!(
                "{}://{}:{}",
                u.scheme(),
                u.host_str().unwrap_or("").to_ascii_lowercase(),
                u.port_or_known_default().unwrap_or(0)
            ),
            Err(_) => recipient.chars().take(200).collect(),
        },
    }
}

/// Whether an address is one a webhook may not reach unless its host is allowed:
/// loopback (127.0.0.0/8, ::1), link-local (169.254.0.0/16, fe80::/10, where cloud
/// metadata services answer) and the unspecified address.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_link_local() || v4.is_unspecified(),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_internal(IpAddr::V4(v4));
            }
            v6.is_loopback() || v6.is_unspecified() || (v6.segments()[0] & 0xffc0) == 0xfe80
        }
    }
}

/// Whether `host` (a URL's host, lower case, IPv6 without brackets) is in
/// `notify.webhook.allowed_hosts`.
pub fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    allowed.iter().any(|a| {
        a.trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .eq_ignore_ascii_case(host)
    })
}

/// A recipient as a caller who is not an administrator sees it: a webhook's scheme and
/// host (its path is its secret), nothing of an e-mail address or a number (the list's
/// name and the channel stand for them).
pub fn masked_recipient(channel: ContactType, recipient: &str) -> String {
    if channel.is_webhook() {
        match url::Url::parse(recipient) {
            Ok(u) => format!("{}://{}/…", u.scheme(), u.host_str().unwrap_or("")),
            Err(_) => String::new(),
        }
    } else {
        String::new()
    }
}

/// Word joiner (U+2060): invisible, keeps a `@`, `~` or `#` from starting a mention, a
/// channel link or a hashtag without changing what the reader sees.
const JOINER: char = '\u{2060}';

/// `text` as literal text in Markdown, for Mattermost (CommonMark with autolinks,
/// `@mentions`, `~channels`, `:emoji:`) and Teams (an Adaptive Card TextBlock's subset):
/// every ASCII punctuation that Markdown reads (emphasis, links, images, code, headings,
/// lists, quotes, tables, HTML, entities) is backslash-escaped, and mentions (`@channel`,
/// `@all`, `@user`), channel links (`~town-square`), emoji codes and autolinks (`http://`,
/// `www.`) are broken by an invisible joiner. The reader sees the name as typed.
pub fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for c in text.chars() {
        match c {
            '.' if out.to_ascii_lowercase().ends_with("www") => {
                out.push_str("\\.");
                out.push(JOINER);
            }
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '#' | '+' | '-' | '.' | '!' | '|'
            | '<' | '>' | '&' | '=' => {
                out.push('\\');
                out.push(c);
            }
            '@' | '~' => {
                out.push('\\');
                out.push(c);
                out.push(JOINER);
            }
            ':' => {
                // `http://…` autolinks and `:emoji:` codes: a joiner after each colon.
                out.push(':');
                out.push(JOINER);
            }
            '\r' => {}
            '\n' => {
                // A hard line break that no following `=`/`-` can turn into a heading.
                out.push_str("  \n");
            }
            _ => out.push(c),
        }
    }
    out
}

/// `text` as literal text in Slack's `mrkdwn`, which has no backslash escape: its three
/// entities, and an invisible joiner after each `*`, `_`, `~` and `` ` `` so that no pair
/// of them makes bold, italic, strike or code; `<!channel>` and links need `<`, escaped.
pub fn slack_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '*' | '_' | '~' | '`' | '@' => {
                out.push(c);
                out.push(JOINER);
            }
            ':' => {
                out.push(':');
                out.push(JOINER);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for c in [
            ReasonCode::UntrustedCertificate,
            ReasonCode::HttpStatus(404),
            ReasonCode::RateLimited,
            ReasonCode::Timeout,
            ReasonCode::Unreachable,
            ReasonCode::BadAddress,
            ReasonCode::AuthenticationFailed,
            ReasonCode::MailRefused,
            ReasonCode::MailDeferred,
            ReasonCode::NotConfigured,
            ReasonCode::BlockedHost,
            ReasonCode::Failed,
        ] {
            assert_eq!(ReasonCode::parse(&c.as_stored()), c);
        }
        assert_eq!(ReasonCode::parse("nonsense"), ReasonCode::Failed);
        assert_eq!(ReasonCode::HttpStatus(503).status(), Some(503));
    }

    #[test]
    fn client_errors_but_408_and_429_are_for_good() {
        assert_eq!(http_failure(401), (ReasonCode::HttpStatus(401), true));
        assert_eq!(http_failure(403), (ReasonCode::HttpStatus(403), true));
        assert_eq!(http_failure(404), (ReasonCode::HttpStatus(404), true));
        assert_eq!(http_failure(408), (ReasonCode::HttpStatus(408), false));
        assert_eq!(http_failure(429), (ReasonCode::RateLimited, false));
        assert_eq!(http_failure(503), (ReasonCode::HttpStatus(503), false));
        assert!(http_advice(401, "the contact's URL", "notify.sms.username")
            .contains("notify.sms.username"));
        assert!(http_advice(404, "notify.sms.url", "x").contains("notify.sms.url"));
    }

    #[test]
    fn retry_after_is_seconds_or_a_date_and_capped() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-23T15:00:00Z")
            .unwrap()
            .to_utc();
        assert_eq!(retry_after_secs("120", now), Some(120));
        assert_eq!(
            retry_after_secs("Mon, 23 Nov 2026 15:00:30 GMT", now),
            Some(30)
        );
        assert_eq!(
            retry_after_secs("Mon, 23 Nov 2026 14:00:00 GMT", now),
            Some(0)
        );
        assert_eq!(retry_after_secs("soon", now), None);
        assert_eq!(next_attempt_delay_ms(1, 5, 3600, Some(30)), 30_000);
        assert_eq!(next_attempt_delay_ms(1, 5, 60, Some(7200)), 60_000);
        assert_eq!(next_attempt_delay_ms(3, 5, 3600, None), 20_000);
    }

    #[test]
    fn destinations_are_the_server_or_the_webhooks_origin() {
        assert_eq!(destination(ContactType::Email, "a@b.c"), "smtp");
        assert_eq!(destination(ContactType::Sms, "+1"), "sms");
        assert_eq!(
            destination(ContactType::Teams, "https://Hooks.Example.com/a/secret"),
            "https://hooks.example.com:443"
        );
        assert_eq!(
            destination(ContactType::Slack, "http://h.test:8080/x"),
            "http://h.test:8080"
        );
    }

    #[test]
    fn loopback_and_link_local_are_internal() {
        for ip in [
            "127.0.0.1",
            "127.9.9.9",
            "169.254.169.254",
            "::1",
            "fe80::1",
            "0.0.0.0",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_internal(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "10.0.0.1",
            "192.168.1.1",
            "8.8.8.8",
            "2001:db8::1",
            "fec0::1",
        ] {
            assert!(!is_internal(ip.parse().unwrap()), "{ip}");
        }
        let allowed = vec!["localhost".to_string(), "[::1]".to_string()];
        assert!(host_allowed("LOCALHOST", &allowed));
        assert!(host_allowed("::1", &allowed));
        assert!(!host_allowed("127.0.0.1", &allowed));
    }

    #[test]
    fn recipients_are_masked_for_others() {
        assert_eq!(
            masked_recipient(
                ContactType::Teams,
                "https://x.example.com/webhook/SECRET?sig=1"
            ),
            "https://x.example.com/…"
        );
        assert_eq!(masked_recipient(ContactType::Email, "ops@example.com"), "");
        assert_eq!(masked_recipient(ContactType::Sms, "+15145550100"), "");
    }

    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            literal("[x](http://e.test) *IVR*"),
            "\\[x\\]\\(http:\u{2060}//e\\.test\\) \\*IVR\\*"
        );
        assert_eq!(literal("@channel"), "\\@\u{2060}channel");
        assert_eq!(literal("www.x"), "www\\.\u{2060}x");
        assert_eq!(
            slack_literal("*IVR* <!here>"),
            "*\u{2060}IVR*\u{2060} &lt;!here&gt;"
        );
    }
}

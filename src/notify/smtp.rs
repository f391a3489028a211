//! E-mail over SMTP with lettre: plain, STARTTLS (required) or implicit TLS, optional AUTH,
//! a private CA, the From address and HELO name of `[notify.smtp]`, a time-out on every
//! network step. Each message has a text and an HTML part and its attachments; its
//! Message-ID is the notification's key, so a resend after a crash is the same message.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Attachment as MailAttachment, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, CertificateStore, Tls, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use super::Failure;
use crate::config::{SmtpConfig, SmtpSecurity};
use crate::domain::delivery::ReasonCode;
use crate::store::outbox::Claimed;
use crate::trust::Roots;

/// A configured mail server.
pub struct Smtp {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// Domain of the Message-ID.
    domain: String,
    /// `host:port`, for the reasons of failures.
    server: String,
}

impl Smtp {
    /// The mail server of `[notify.smtp]`, `None` when no host is set.
    pub fn from_config(c: &SmtpConfig) -> anyhow::Result<Option<Smtp>> {
        if c.host.trim().is_empty() {
            return Ok(None);
        }
        let from: Mailbox = c
            .from
            .parse()
            .map_err(|e| anyhow::anyhow!("notify.smtp.from: {e}"))?;
        let mut b = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(c.host.trim())
            .port(c.port)
            .timeout(Some(Duration::from_secs(c.timeout_secs)));
        if !c.helo.is_empty() {
            b = b.hello_name(ClientId::Domain(c.helo.clone()));
        }
        if c.security != SmtpSecurity::None {
            let trusted =
                crate::trust::certificates(Roots::new("notify.smtp", c.trust, c.ca.as_deref()))
                    .map_err(anyhow::Error::msg)?;
            let mut params = TlsParameters::builder(c.host.trim().to_string()).certificate_store(
                if trusted.webpki {
                    CertificateStore::WebpkiRoots
                } else {
                    CertificateStore::None
                },
            );
            for der in trusted.system.iter().chain(&trusted.ca) {
                let cert = Certificate::from_der(der.to_vec())
                    .map_err(|e| anyhow::anyhow!("notify.smtp: TLS set-up: {e}"))?;
                params = params.add_root_certificate(cert);
            }
            let params = params
                .build_rustls()
                .map_err(|e| anyhow::anyhow!("notify.smtp: TLS set-up: {e}"))?;
            b = b.tls(match c.security {
                SmtpSecurity::Tls => Tls::Wrapper(params),
                _ => Tls::Required(params),
            });
        }
        if !c.username.is_empty() {
            b = b.credentials(Credentials::new(c.username.clone(), c.password.clone()));
        }
        let domain = from.email.domain().to_string();
        Ok(Some(Smtp {
            transport: b.build(),
            from,
            domain,
            server: format!("{}:{}", c.host.trim(), c.port),
        }))
    }

    pub async fn send(&self, item: &Claimed) -> Result<(), Failure> {
        let n = &item.notification;
        let to: Mailbox = n.recipient.parse().map_err(|e| {
            Failure::new(
                ReasonCode::BadAddress,
                format!(
                    "'{}' is not an e-mail address ({e}): correct the contact in its distribution list",
                    n.recipient
                ),
                true,
            )
        })?;
        let text = SinglePart::plain(n.text.clone());
        let ct = |a: &crate::domain::notify::Attachment| {
            ContentType::parse(&a.content_type).unwrap_or_else(|_| {
                ContentType::parse("application/octet-stream").expect("a MIME type")
            })
        };
        // Inline parts (a report's chart, `cid:` in the HTML) go with the HTML in a
        // multipart/related; the others are files of the multipart/mixed.
        let (inline, files): (Vec<_>, Vec<_>) = item
            .attachments
            .iter()
            .partition(|a| a.content_id.is_some() && n.html.is_some());
        let body = match &n.html {
            Some(html) if !inline.is_empty() => {
                let mut related = MultiPart::related().singlepart(SinglePart::html(html.clone()));
                for a in &inline {
                    let cid = a.content_id.clone().unwrap_or_default();
                    related = related
                        .singlepart(MailAttachment::new_inline(cid).body(a.data.clone(), ct(a)));
                }
                MultiPart::alternative().singlepart(text).multipart(related)
            }
            Some(html) => MultiPart::alternative()
                .singlepart(text)
                .singlepart(SinglePart::html(html.clone())),
            None => MultiPart::alternative().singlepart(text),
        };
        let mut mixed = MultiPart::mixed().multipart(body);
        for a in files {
            mixed =
                mixed.singlepart(MailAttachment::new(a.name.clone()).body(a.data.clone(), ct(a)));
        }
        let msg = lettre::Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(n.subject.clone())
            .message_id(Some(format!(
                "<{}@{}>",
                message_id_local(&n.key),
                self.domain
            )))
            .multipart(mixed)
            .map_err(|e| {
                Failure::new(
                    ReasonCode::Failed,
                    format!("the message cannot be built: {e}"),
                    true,
                )
            })?;
        match self.transport.send(msg).await {
            Ok(_) => Ok(()),
            Err(e) => Err(failure(&self.server, &e)),
        }
    }
}

/// The key as the left part of a Message-ID: letters, digits and `.-_` kept.
fn message_id_local(key: &str) -> String {
    key.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '.'
            }
        })
        .collect()
}

/// What a failed SMTP exchange means: a certificate not trusted, credentials refused or the
/// message refused (5xx) fail at once, naming the keys to fix for the first two; a
/// temporary refusal (4xx), a time-out or a server that cannot be reached are tried again.
fn failure(server: &str, e: &lettre::transport::smtp::Error) -> Failure {
    if let Some(why) = crate::trust::untrusted(e) {
        return Failure::new(
            ReasonCode::UntrustedCertificate,
            format!(
                "SMTP {server}: {}",
                crate::trust::untrusted_reason("notify.smtp", &why)
            ),
            true,
        );
    }
    let status = e.status().map(|c| c.to_string()).unwrap_or_default();
    if e.is_permanent() && matches!(status.as_str(), "530" | "534" | "535" | "538") {
        return Failure::new(
            ReasonCode::AuthenticationFailed,
            format!(
                "SMTP {server} refused the credentials ({status}): check notify.smtp.username and \
                 notify.smtp.password"
            ),
            true,
        );
    }
    let code = if e.is_timeout() {
        ReasonCode::Timeout
    } else if e.is_permanent() {
        ReasonCode::MailRefused
    } else if e.is_transient() {
        ReasonCode::MailDeferred
    } else {
        ReasonCode::Unreachable
    };
    Failure::new(code, describe(server, e), e.is_permanent())
}

fn describe(server: &str, e: &lettre::transport::smtp::Error) -> String {
    use std::error::Error as _;
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    let what = if e.is_timeout() {
        "timed out"
    } else if e.is_permanent() {
        "refused the message"
    } else if e.is_transient() {
        "refused the message for now"
    } else if e.is_tls() {
        "TLS failed"
    } else {
        "failed"
    };
    format!("SMTP {server} {what}: {text}")
}

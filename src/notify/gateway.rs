//! SMS and voice through the site's own HTTP gateway (`[notify.sms]`, `[notify.voice]`):
//! method, URL, headers and body are templates with placeholders — `{number}`, `{text}`,
//! `{message}` (the sms prefix or voice message), `{testCase}`, `{status}`, `{link}`,
//! `{key}` (the notification's key, for gateways that take an idempotency key) and
//! `{secret}`. Any 2xx answer is delivery; anything else a failure with the status and the
//! first line of the body (429 and 503 tried again after their `Retry-After`; 401, 403,
//! 404 at once, naming the keys).

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Method;

use super::Failure;
use crate::config::GatewayConfig;
use crate::domain::notify::{render, Escape};
use crate::store::outbox::Claimed;
use crate::trust::Roots;

pub struct Gateway {
    client: reqwest::Client,
    config: GatewayConfig,
    method: Method,
    /// `notify.sms` or `notify.voice`, for reasons.
    name: &'static str,
}

impl Gateway {
    /// The gateway of one channel, `None` when its URL is empty.
    pub fn from_config(name: &'static str, c: &GatewayConfig) -> anyhow::Result<Option<Gateway>> {
        if c.url.trim().is_empty() {
            return Ok(None);
        }
        let method = Method::from_bytes(c.method.to_ascii_uppercase().as_bytes())
            .map_err(|e| anyhow::anyhow!("{name}.method: {e}"))?;
        let b = crate::trust::reqwest_builder(Roots::new(name, c.trust, c.ca.as_deref()))
            .map_err(anyhow::Error::msg)?
            .timeout(Duration::from_secs(c.timeout_secs))
            .connect_timeout(Duration::from_secs(c.timeout_secs))
            .no_proxy();
        Ok(Some(Gateway {
            client: b.build()?,
            config: c.clone(),
            method,
            name,
        }))
    }

    /// The placeholders' values for one notification.
    fn values(&self, item: &Claimed) -> BTreeMap<String, String> {
        let n = &item.notification;
        let mut v = n.vars.clone();
        v.insert("number".into(), n.recipient.clone());
        v.insert("text".into(), n.text.clone());
        v.insert("key".into(), n.key.clone());
        v.insert("secret".into(), self.config.secret.clone());
        v.entry("message".into()).or_insert_with(|| n.text.clone());
        v
    }

    pub async fn send(&self, item: &Claimed) -> Result<(), Failure> {
        let values = self.values(item);
        let url = render(&self.config.url, &values, Escape::Url);
        let mut req = self.client.request(self.method.clone(), &url);
        for (k, t) in &self.config.headers {
            req = req.header(k.as_str(), render(t, &values, Escape::None));
        }
        if !self.config.username.is_empty() {
            req = req.basic_auth(&self.config.username, Some(&self.config.password));
        }
        if !self.config.body.is_empty() {
            let ct = self.config.content_type.to_ascii_lowercase();
            let escape = if ct.contains("json") {
                Escape::Json
            } else if ct.contains("x-www-form-urlencoded") {
                Escape::Url
            } else {
                Escape::None
            };
            req = req
                .header("content-type", &self.config.content_type)
                .body(render(&self.config.body, &values, escape));
        }
        // The address without its query (which may hold a secret), for reasons.
        let shown = url.split('?').next().unwrap_or("").to_string();
        let who = format!("{} gateway {shown}", self.name);
        let resp = req
            .send()
            .await
            .map_err(|e| super::request_failure(e, &who, self.name))?;
        if resp.status().is_success() {
            return Ok(());
        }
        let mut failure = super::status_failure(
            &resp,
            &who,
            &format!("{}.url", self.name),
            &format!("{0}.username, {0}.password and {0}.headers", self.name),
        );
        // The site's own gateway: its first line says what it did not like (a number).
        let body = resp.text().await.unwrap_or_default();
        let first: String = body
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .chars()
            .take(200)
            .collect();
        if !first.is_empty() {
            failure.reason = format!("{}: {first}", failure.reason);
        }
        Err(failure)
    }
}

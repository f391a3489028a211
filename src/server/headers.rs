//! Security headers on every response: the UI, the API, errors and proxied answers.
//!
//! The console's policy allows nothing from another origin and no inline script.
//! `style-src` allows inline styles because frappe-charts sets `style` attributes.
//! `/api/docs` (Swagger UI, which inlines its script and styles) gets a relaxed policy on
//! that path only; it still loads nothing from another origin.

use poem::http::{header, HeaderMap, HeaderValue};
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};

/// The policy of the console and of every response but the API docs.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' data: blob:; media-src 'self' blob:; font-src 'self'; connect-src 'self'; \
object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The policy of `/api/docs`: inline script and styles, still nothing from elsewhere.
pub const DOCS_CSP: &str = "default-src 'self'; script-src 'self' 'unsafe-inline'; \
style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; \
connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
frame-ancestors 'none'";

/// Sent under TLS only.
pub const HSTS: &str = "max-age=31536000";
/// [`HSTS`] with `server.hsts_include_subdomains`.
pub const HSTS_SUBDOMAINS: &str = "max-age=31536000; includeSubDomains";

/// Whether a path gets [`DOCS_CSP`].
pub fn is_docs_path(path: &str) -> bool {
    path == "/api/docs" || path.starts_with("/api/docs/")
}

/// Adds the headers to every response, error responses included.
pub struct SecurityHeaders {
    /// Served over TLS: add `Strict-Transport-Security`.
    pub tls: bool,
    /// `server.hsts_include_subdomains`: [`HSTS_SUBDOMAINS`] instead of [`HSTS`].
    pub include_subdomains: bool,
}

impl<E: Endpoint> Middleware<E> for SecurityHeaders {
    type Output = SecurityHeadersEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        SecurityHeadersEndpoint {
            inner,
            hsts: self.hsts(),
        }
    }
}

/// Sets the headers on an answer to a request for a [`is_docs_path`] path or not; `hsts`
/// under TLS only (the proxied HTTP/1.1 answers of `super::h1` get them here too).
pub fn secure(h: &mut HeaderMap, docs: bool, hsts: Option<&'static str>) {
    let csp = if docs { DOCS_CSP } else { CSP };
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(csp),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    if let Some(hsts) = hsts {
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(hsts),
        );
    } else {
        h.remove(header::STRICT_TRANSPORT_SECURITY);
    }
}

impl SecurityHeaders {
    /// The `Strict-Transport-Security` value, under TLS only.
    pub fn hsts(&self) -> Option<&'static str> {
        self.tls.then_some(if self.include_subdomains {
            HSTS_SUBDOMAINS
        } else {
            HSTS
        })
    }
}

pub struct SecurityHeadersEndpoint<E> {
    inner: E,
    /// The `Strict-Transport-Security` value, under TLS only.
    hsts: Option<&'static str>,
}

impl<E: Endpoint> Endpoint for SecurityHeadersEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let docs = is_docs_path(req.uri().path());
        let mut resp = match self.inner.call(req).await {
            Ok(r) => r.into_response(),
            Err(e) => e.into_response(),
        };
        secure(resp.headers_mut(), docs, self.hsts);
        Ok(resp)
    }
}

#[cfg(test)]
mod tests {
    use poem::endpoint::make_sync;
    use poem::http::StatusCode;
    use poem::{EndpointExt, Route};

    use super::*;

    #[test]
    fn policy_allows_no_other_origin_and_no_inline_script() {
        let script = CSP
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src"))
            .unwrap();
        assert_eq!(script, "script-src 'self'");
        assert!(CSP.contains("frame-ancestors 'none'"));
        assert!(CSP.contains("img-src 'self' data: blob:"));
        assert!(CSP.contains("media-src 'self' blob:"));
        for policy in [CSP, DOCS_CSP] {
            assert!(!policy.contains("http"), "{policy}");
            assert!(!policy.contains('*'), "{policy}");
            assert!(!policy.contains("unsafe-eval"), "{policy}");
        }
        assert!(is_docs_path("/api/docs"));
        assert!(is_docs_path("/api/docs/oauth-receiver.html"));
        assert!(!is_docs_path("/api/docsx"));
        assert!(!is_docs_path("/docs"));
    }

    #[tokio::test]
    async fn headers_on_success_and_error_responses() {
        let app = || {
            Route::new()
                .at("/ok", make_sync(|_| "ok"))
                .at(
                    "/fail",
                    poem::endpoint::make(|_| async {
                        Err::<String, _>(poem::Error::from_status(StatusCode::BAD_REQUEST))
                    }),
                )
                .at("/api/docs", make_sync(|_| "docs"))
        };
        let tls = app().with(SecurityHeaders {
            tls: true,
            include_subdomains: false,
        });
        for (path, status) in [
            ("/ok", StatusCode::OK),
            ("/fail", StatusCode::BAD_REQUEST),
            ("/missing", StatusCode::NOT_FOUND),
        ] {
            let resp = tls
                .call(Request::builder().uri_str(path).finish())
                .await
                .unwrap();
            assert_eq!(resp.status(), status, "{path}");
            let h = resp.headers();
            assert_eq!(h.get("content-security-policy").unwrap(), CSP, "{path}");
            assert_eq!(h.get("x-content-type-options").unwrap(), "nosniff");
            assert_eq!(h.get("x-frame-options").unwrap(), "DENY");
            assert_eq!(h.get("referrer-policy").unwrap(), "no-referrer");
            assert_eq!(h.get("strict-transport-security").unwrap(), HSTS);
        }
        let resp = tls
            .call(Request::builder().uri_str("/api/docs").finish())
            .await
            .unwrap();
        assert_eq!(
            resp.headers().get("content-security-policy").unwrap(),
            DOCS_CSP
        );

        let subdomains = app().with(SecurityHeaders {
            tls: true,
            include_subdomains: true,
        });
        let resp = subdomains
            .call(Request::builder().uri_str("/ok").finish())
            .await
            .unwrap();
        assert_eq!(
            resp.headers().get("strict-transport-security").unwrap(),
            "max-age=31536000; includeSubDomains"
        );

        let plain = Route::new()
            .at("/ok", make_sync(|_| "ok"))
            .with(SecurityHeaders {
                tls: false,
                include_subdomains: true,
            });
        let resp = plain
            .call(Request::builder().uri_str("/ok").finish())
            .await
            .unwrap();
        assert!(resp.headers().get("strict-transport-security").is_none());
        assert_eq!(resp.headers().get("content-security-policy").unwrap(), CSP);
    }
}

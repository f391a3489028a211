//! gzip for `/api` answers (tens of KB of JSON per dashboard load).
//!
//! Only JSON answers are compressed, and only for a client that asks (`Accept-Encoding: gzip`);
//! an event stream (`text/event-stream`) or anything else goes out as it is. Unlike poem's
//! `Compression` middleware, request bodies are never decompressed here: the body limits keep
//! measuring what arrives on the wire.

use std::io::Write;
use std::sync::Arc;

use poem::http::{header, HeaderMap, HeaderValue};
use poem::{Body, Endpoint, IntoResponse, Request, Response, Result};

/// A content coding cxwatch sends: pre-compressed UI files in both, JSON answers in gzip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Br,
    Gzip,
}

impl Coding {
    /// The `Content-Encoding` value.
    pub fn name(self) -> &'static str {
        match self {
            Coding::Br => "br",
            Coding::Gzip => "gzip",
        }
    }

    /// The file suffix of a sibling compressed so (`build.rs` writes them).
    pub fn suffix(self) -> &'static str {
        match self {
            Coding::Br => ".br",
            Coding::Gzip => ".gz",
        }
    }
}

/// Of the codings `offered` (the server's preference first), the one `Accept-Encoding`
/// gives the highest quality above zero (`*` stands for any not named; `x-gzip` is gzip);
/// `None` sends the body as it is.
pub fn negotiate(headers: &HeaderMap, offered: &[Coding]) -> Option<Coding> {
    let mut named: Vec<(String, f32)> = Vec::new();
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for part in value.split(',') {
            let mut params = part.split(';');
            let coding = params.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = params
                .filter_map(|p| {
                    let (k, v) = p.split_once('=')?;
                    k.trim().eq_ignore_ascii_case("q").then(|| v.trim())
                })
                .next()
                .map_or(1.0, |v| v.parse::<f32>().unwrap_or(0.0));
            let coding = if coding == "x-gzip" {
                "gzip".into()
            } else {
                coding
            };
            named.push((coding, q));
        }
    }
    let quality = |name: &str| {
        let q = |n: &str| named.iter().find(|(c, _)| c == n).map(|(_, q)| *q);
        q(name).or_else(|| q("*")).unwrap_or(0.0)
    };
    let mut best: Option<(Coding, f32)> = None;
    for &c in offered {
        let q = quality(c.name());
        if q > 0.0 && best.is_none_or(|(_, b)| q > b) {
            best = Some((c, q));
        }
    }
    best.map(|(c, _)| c)
}

/// A JSON answer with a body, not already encoded.
pub fn compressible(resp: &Response) -> bool {
    compressible_head(resp.status().as_u16(), resp.headers())
}

/// [`compressible`] from an answer's status and headers.
pub fn compressible_head(status: u16, headers: &HeaderMap) -> bool {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|ct| {
            let ct = ct.to_ascii_lowercase();
            ct.starts_with("application/json") || ct.starts_with("application/problem+json")
        })
        .unwrap_or(false);
    json && !headers.contains_key(header::CONTENT_ENCODING) && status != 204 && status != 304
}

/// `json` in gzip.
pub fn gzip(json: &[u8]) -> std::io::Result<Vec<u8>> {
    // The fastest level: JSON compresses well at any level, and the CPU is the server's.
    let mut gz = flate2::write::GzEncoder::new(
        Vec::with_capacity(json.len() / 4 + 64),
        flate2::Compression::fast(),
    );
    gz.write_all(json)?;
    gz.finish()
}

/// The `around` function for `/api`.
pub async fn json_answers<E: Endpoint>(ep: Arc<E>, req: Request) -> Result<Response> {
    let takes_gzip = negotiate(req.headers(), &[Coding::Gzip]).is_some();
    let mut resp = ep.call(req).await?.into_response();
    if !compressible(&resp) {
        return Ok(resp);
    }
    resp.headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept-encoding"));
    if !takes_gzip {
        return Ok(resp);
    }
    let (mut parts, body) = resp.into_parts();
    let json = body.into_bytes().await?;
    // Writing into memory fails only when memory does.
    let bytes = gzip(&json).map_err(|e| {
        poem::Error::from_string(e.to_string(), poem::http::StatusCode::INTERNAL_SERVER_ERROR)
    })?;
    parts.headers.remove(header::CONTENT_LENGTH);
    parts
        .headers
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    Ok(Response::from_parts(parts, Body::from(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(v: &str) -> HeaderMap {
        let mut m = HeaderMap::new();
        m.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        m
    }

    #[test]
    fn reads_accept_encoding() {
        let gzip = |v: &str| negotiate(&h(v), &[Coding::Gzip]) == Some(Coding::Gzip);
        assert!(gzip("gzip"));
        assert!(gzip("br, gzip;q=0.8, deflate"));
        assert!(gzip("*"));
        assert!(gzip("x-gzip"));
        assert!(!gzip("gzip;q=0"));
        assert!(!gzip("br, deflate"));
        assert!(!gzip("*, gzip;q=0"));
        assert_eq!(
            negotiate(&HeaderMap::new(), &[Coding::Br, Coding::Gzip]),
            None
        );
    }

    #[test]
    fn the_best_coding_the_client_takes() {
        let both = |v: &str| negotiate(&h(v), &[Coding::Br, Coding::Gzip]);
        assert_eq!(both("br"), Some(Coding::Br));
        assert_eq!(both("gzip, deflate, br"), Some(Coding::Br));
        assert_eq!(both("br;q=0.5, gzip"), Some(Coding::Gzip));
        assert_eq!(both("br;q=0, gzip;q=0.1"), Some(Coding::Gzip));
        assert_eq!(both("*"), Some(Coding::Br));
        assert_eq!(both("identity"), None);
        assert_eq!(both("deflate"), None);
    }

    #[test]
    fn only_json_is_compressed() {
        let json = Response::builder()
            .content_type("application/json; charset=utf-8")
            .body("{}");
        assert!(compressible(&json));
        let sse = Response::builder()
            .content_type("text/event-stream")
            .body("data: x\n\n");
        assert!(!compressible(&sse));
        let done = Response::builder()
            .content_type("application/json")
            .header(header::CONTENT_ENCODING, "gzip")
            .body("x");
        assert!(!compressible(&done));
    }
}

//! gzip for `/api` answers (issue 16, defect 13: about 90 KB of JSON per dashboard load).
//!
//! Only JSON answers are compressed, and only for a client that asks (`Accept-Encoding: gzip`);
//! an event stream (`text/event-stream`) or anything else goes out as it is. Unlike poem's
//! `Compression` middleware, request bodies are never decompressed here: the body limits keep
//! measuring what arrives on the wire.

use std::io::Write;
use std::sync::Arc;

use poem::http::{header, HeaderMap, HeaderValue};
use poem::{Body, Endpoint, IntoResponse, Request, Response, Result};

/// True when `Accept-Encoding` lists gzip (or `*`) with a quality above zero.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .filter_map(|q| q.trim().parse::<f32>().ok())
                .next()
                .unwrap_or(1.0);
            (coding == "gzip" || coding == "*") && q > 0.0
        })
}

/// A JSON answer with a body, not already encoded.
pub fn compressible(resp: &Response) -> bool {
    let json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|ct| {
            let ct = ct.to_ascii_lowercase();
            ct.starts_with("application/json") || ct.starts_with("application/problem+json")
        })
        .unwrap_or(false);
    json && !resp.headers().contains_key(header::CONTENT_ENCODING)
        && resp.status().as_u16() != 204
        && resp.status().as_u16() != 304
}

/// The `around` function for `/api`.
pub async fn json_answers<E: Endpoint>(ep: Arc<E>, req: Request) -> Result<Response> {
    let gzip = accepts_gzip(req.headers());
    let mut resp = ep.call(req).await?.into_response();
    if !compressible(&resp) {
        return Ok(resp);
    }
    resp.headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept-encoding"));
    if !gzip {
        return Ok(resp);
    }
    let (mut parts, body) = resp.into_parts();
    let json = body.into_bytes().await?;
    // The fastest level: JSON compresses well at any level, and the CPU is the server's.
    let mut gz = flate2::write::GzEncoder::new(
        Vec::with_capacity(json.len() / 4 + 64),
        flate2::Compression::fast(),
    );
    // Writing into memory fails only when memory does.
    let written = gz.write_all(&json).and_then(|()| gz.finish());
    let bytes = written.map_err(|e| {
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
        assert!(accepts_gzip(&h("gzip")));
        assert!(accepts_gzip(&h("br, gzip;q=0.8, deflate")));
        assert!(accepts_gzip(&h("*")));
        assert!(!accepts_gzip(&h("gzip;q=0")));
        assert!(!accepts_gzip(&h("br, deflate")));
        assert!(!accepts_gzip(&HeaderMap::new()));
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

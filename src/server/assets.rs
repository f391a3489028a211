//! The UI, baked in at build time (see `build.rs`). Hashed assets are cached for a year,
//! `index.html` is revalidated; every other path is answered with `index.html` so the
//! UI's router decides (the `/api` prefix is routed before this and never falls back).

use poem::http::{header, Method, StatusCode};
use poem::{Endpoint, Request, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "$CXWATCH_UI_DIR"]
struct Ui;

pub struct UiEndpoint;

impl Endpoint for UiEndpoint {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        if req.method() != Method::GET && req.method() != Method::HEAD {
            return Ok(StatusCode::METHOD_NOT_ALLOWED.into());
        }
        let path = req.uri().path().trim_start_matches('/');
        let gzip_ok = req
            .headers()
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("gzip"));
        if !path.is_empty() && path != "index.html" {
            if let Some(resp) = file(path, gzip_ok, "public, max-age=31536000, immutable") {
                return Ok(resp);
            }
        }
        Ok(file("index.html", gzip_ok, "no-cache").unwrap_or_else(|| {
            Response::builder()
                .status(StatusCode::INTERNAL_SERVER_ERROR)
                .body("the UI is missing from this build")
        }))
    }
}

fn file(path: &str, gzip_ok: bool, cache: &str) -> Option<Response> {
    let plain = Ui::get(path)?;
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let mut builder = Response::builder()
        .header(header::CONTENT_TYPE, mime.as_ref())
        .header(header::CACHE_CONTROL, cache)
        .header(header::VARY, "Accept-Encoding");
    let body = match Ui::get(&format!("{path}.gz")).filter(|_| gzip_ok) {
        Some(gz) => {
            builder = builder.header(header::CONTENT_ENCODING, "gzip");
            gz.data
        }
        None => plain.data,
    };
    Some(builder.body(body.into_owned()))
}

//! The UI, baked in at build time (see `build.rs`).
//!
//! - `/assets/*` (Vite's hashed files) are cached for a year (`immutable`);
//! - other files (`index.html`, `favicon.svg`...) are revalidated (`no-cache` + `ETag`);
//! - a missing file that looks like one (under `/assets/`, or with a file extension such as
//!   `.js`) is a 404;
//! - every other path is a client route, answered with `index.html` so the UI's router decides
//!   (its own 404 text included). `/api` is routed before this and never falls back.
//!
//! A `.br` or `.gz` sibling made by `build.rs` is sent when the client accepts it (brotli first,
//! unless the client gives gzip a higher quality); the uncompressed file only to a client that
//! takes neither.

use std::borrow::Cow;

use poem::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use poem::{Body, Endpoint, Request, Response};

use super::compress::{negotiate, Coding};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "$CXWATCH_UI_DIR"]
struct Ui;

/// `Cache-Control` of hashed assets.
pub const CACHE_IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of everything else: use it, but ask first.
pub const CACHE_REVALIDATE: &str = "no-cache";

/// A file of the UI and the SHA-256 of its content.
pub struct Asset {
    pub data: Cow<'static, [u8]>,
    pub sha256: [u8; 32],
}

/// Where the UI's files come from: the build's embedded files, or a map in tests.
pub trait AssetSource: Send + Sync + 'static {
    fn get(&self, path: &str) -> Option<Asset>;
}

/// The UI embedded by rust-embed.
pub struct Embedded;

impl AssetSource for Embedded {
    fn get(&self, path: &str) -> Option<Asset> {
        Ui::get(path).map(|f| Asset {
            sha256: f.metadata.sha256_hash(),
            data: f.data,
        })
    }
}

pub struct UiEndpoint<S: AssetSource = Embedded> {
    source: S,
}

impl UiEndpoint<Embedded> {
    pub fn embedded() -> Self {
        UiEndpoint { source: Embedded }
    }
}

impl<S: AssetSource> UiEndpoint<S> {
    pub fn new(source: S) -> Self {
        UiEndpoint { source }
    }
}

/// What a path under `/` asks for.
#[derive(Debug, PartialEq, Eq)]
enum Target<'a> {
    /// `index.html`: the app shell, for `/`, `/index.html` and client routes.
    Index,
    /// A file of the build; 404 when missing.
    File { path: &'a str, immutable: bool },
    /// Never served (`..`, backslashes).
    Refused,
}

fn classify(path: &str) -> Target<'_> {
    let rel = path.trim_start_matches('/');
    if rel.split('/').any(|s| s == ".." || s == ".") || rel.contains('\\') || rel.contains('\0') {
        return Target::Refused;
    }
    if rel.is_empty() || rel == "index.html" {
        return Target::Index;
    }
    if rel.starts_with("assets/") {
        return Target::File {
            path: rel,
            immutable: true,
        };
    }
    if has_file_extension(rel) {
        return Target::File {
            path: rel,
            immutable: false,
        };
    }
    Target::Index
}

/// `favicon.svg`, `x/y.js.map`: the last segment ends in an extension a file type is known
/// for. `/report/run/12/2.35` (a latency in a client route) does not.
fn has_file_extension(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or(path);
    match last.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() || last.starts_with('.') => {
            ext.bytes().any(|b| b.is_ascii_alphabetic())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                && mime_guess::from_ext(ext).first().is_some()
        }
        _ => false,
    }
}

/// Whether `If-None-Match` lists `etag` (or `*`); weak comparison, as for GET.
fn etag_matches(headers: &HeaderMap, etag: &str) -> bool {
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_string();
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == "*" || bare(t) == bare(etag))
}

fn content_type(path: &str) -> String {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let text = mime.type_() == "text"
        || matches!(mime.subtype().as_str(), "javascript" | "json" | "xml")
        || mime.suffix().is_some_and(|s| s == "xml" || s == "json");
    if text {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    }
}

impl<S: AssetSource> UiEndpoint<S> {
    fn respond(&self, req: &Request, path: &str, cache: &'static str) -> Option<Response> {
        let plain = self.source.get(path)?;
        // The best coding the client takes of those this file has a sibling in.
        let offered: Vec<Coding> = [Coding::Br, Coding::Gzip]
            .into_iter()
            .filter(|c| self.source.get(&format!("{path}{}", c.suffix())).is_some())
            .collect();
        let coded = negotiate(req.headers(), &offered)
            .and_then(|c| Some((c, self.source.get(&format!("{path}{}", c.suffix()))?)));
        let hash = hex::encode(&plain.sha256[..12]);
        let (data, etag, encoding) = match coded {
            Some((c, sibling)) => (
                sibling.data,
                format!("\"{hash}-{}\"", c.suffix().trim_start_matches('.')),
                Some(c.name()),
            ),
            None => (plain.data, format!("\"{hash}\""), None),
        };
        let mut resp = Response::builder()
            .header(header::CACHE_CONTROL, cache)
            .header(header::VARY, "Accept-Encoding")
            .header(header::ETAG, &etag)
            .header(header::CONTENT_TYPE, content_type(path));
        if let Some(encoding) = encoding {
            resp = resp.header(header::CONTENT_ENCODING, encoding);
        }
        if etag_matches(req.headers(), &etag) {
            return Some(resp.status(StatusCode::NOT_MODIFIED).body(Body::empty()));
        }
        let resp = resp.header(header::CONTENT_LENGTH, data.len());
        if req.method() == Method::HEAD {
            return Some(resp.body(Body::empty()));
        }
        Some(resp.body(match data {
            Cow::Borrowed(b) => Body::from(b),
            Cow::Owned(v) => Body::from_vec(v),
        }))
    }
}

fn not_found() -> Response {
    Response::builder()
        .status(StatusCode::NOT_FOUND)
        .content_type("text/plain; charset=utf-8")
        .body("Not found")
}

impl<S: AssetSource> Endpoint for UiEndpoint<S> {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        if req.method() != Method::GET && req.method() != Method::HEAD {
            return Ok(Response::builder()
                .status(StatusCode::METHOD_NOT_ALLOWED)
                .header(header::ALLOW, HeaderValue::from_static("GET, HEAD"))
                .content_type("text/plain; charset=utf-8")
                .body("Method not allowed"));
        }
        let path = req.uri().path().to_string();
        match classify(&path) {
            Target::Refused => Ok(not_found()),
            Target::File { path, immutable } => {
                let cache = if immutable {
                    CACHE_IMMUTABLE
                } else {
                    CACHE_REVALIDATE
                };
                Ok(self.respond(&req, path, cache).unwrap_or_else(not_found))
            }
            Target::Index => Ok(self
                .respond(&req, "index.html", CACHE_REVALIDATE)
                .unwrap_or_else(|| {
                    tracing::error!("index.html is missing from the embedded UI");
                    Response::builder()
                        .status(StatusCode::INTERNAL_SERVER_ERROR)
                        .content_type("text/plain; charset=utf-8")
                        .body("The UI is missing from this build.")
                })),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::io::Write;

    use super::*;

    struct Files(HashMap<&'static str, Vec<u8>>);

    impl AssetSource for Files {
        fn get(&self, path: &str) -> Option<Asset> {
            use sha2::Digest;
            let data = self.0.get(path)?.clone();
            Some(Asset {
                sha256: sha2::Sha256::digest(&data).into(),
                data: Cow::Owned(data),
            })
        }
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        // A stand-in: the endpoint sends the sibling's bytes as they are.
        let mut out = b"GZ:".to_vec();
        out.write_all(data).unwrap();
        out
    }

    fn endpoint() -> UiEndpoint<Files> {
        let index = b"<!doctype html><title>x</title>".to_vec();
        let js = b"console.log(1)".to_vec();
        let mut files = HashMap::new();
        files.insert("index.html.gz", gzip(&index));
        files.insert("index.html", index);
        files.insert("assets/index-abc123.js.gz", gzip(&js));
        files.insert(
            "assets/index-abc123.js.br",
            [b"BR:".as_slice(), &js].concat(),
        );
        files.insert("assets/index-abc123.js", js);
        files.insert("assets/logo-1.png", vec![0x89, b'P', b'N', b'G']);
        files.insert("favicon.svg", b"<svg/>".to_vec());
        UiEndpoint::new(Files(files))
    }

    async fn get(path: &str, headers: &[(&str, &str)]) -> Response {
        request(Method::GET, path, headers).await
    }

    async fn request(method: Method, path: &str, headers: &[(&str, &str)]) -> Response {
        let mut req = Request::builder().method(method).uri(path.parse().unwrap());
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        endpoint().call(req.finish()).await.unwrap()
    }

    fn h<'a>(resp: &'a Response, name: &str) -> &'a str {
        resp.headers().get(name).map_or("", |v| v.to_str().unwrap())
    }

    async fn body(resp: Response) -> Vec<u8> {
        resp.into_body().into_vec().await.unwrap()
    }

    #[test]
    fn classifies_paths() {
        let file = |path, immutable| Target::File { path, immutable };
        assert_eq!(classify("/"), Target::Index);
        assert_eq!(classify("/index.html"), Target::Index);
        assert_eq!(classify("/dashboard"), Target::Index);
        assert_eq!(classify("/report/view/3"), Target::Index);
        assert_eq!(classify("/report/run/12/2.35"), Target::Index);
        assert_eq!(classify("/report/mos/4/3.5/10/2024-05-01"), Target::Index);
        assert_eq!(classify("/users/0"), Target::Index);
        assert_eq!(classify("/nope"), Target::Index);
        assert_eq!(classify("/assets/x.js"), file("assets/x.js", true));
        assert_eq!(classify("/assets/x"), file("assets/x", true));
        assert_eq!(classify("/favicon.svg"), file("favicon.svg", false));
        assert_eq!(
            classify("/deep/path/app.css"),
            file("deep/path/app.css", false)
        );
        assert_eq!(classify("/robots.txt"), file("robots.txt", false));
        assert_eq!(classify("/assets/../index.html"), Target::Refused);
    }

    #[tokio::test]
    async fn hashed_asset_is_immutable_and_gzipped_when_accepted() {
        let resp = get("/assets/index-abc123.js", &[("accept-encoding", "gzip")]).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(h(&resp, "cache-control"), CACHE_IMMUTABLE);
        assert_eq!(h(&resp, "content-encoding"), "gzip");
        assert_eq!(h(&resp, "vary"), "Accept-Encoding");
        assert!(
            h(&resp, "content-type").contains("javascript"),
            "{}",
            h(&resp, "content-type")
        );
        assert_eq!(body(resp).await, b"GZ:console.log(1)");

        let resp = get("/assets/index-abc123.js", &[]).await;
        assert_eq!(h(&resp, "content-encoding"), "");
        assert_eq!(body(resp).await, b"console.log(1)");

        let resp = get("/assets/logo-1.png", &[("accept-encoding", "gzip")]).await;
        assert_eq!(h(&resp, "content-type"), "image/png");
        assert_eq!(h(&resp, "content-encoding"), "");
    }

    #[tokio::test]
    async fn brotli_when_the_client_takes_it_and_never_plain_to_one_that_takes_any() {
        let resp = get("/assets/index-abc123.js", &[("accept-encoding", "br")]).await;
        assert_eq!(h(&resp, "content-encoding"), "br");
        assert!(h(&resp, "etag").ends_with("-br\""), "{}", h(&resp, "etag"));
        assert_eq!(body(resp).await, b"BR:console.log(1)");
        let resp = get(
            "/assets/index-abc123.js",
            &[("accept-encoding", "gzip, deflate, br")],
        )
        .await;
        assert_eq!(h(&resp, "content-encoding"), "br");
        let resp = get(
            "/assets/index-abc123.js",
            &[("accept-encoding", "br;q=0.2, gzip")],
        )
        .await;
        assert_eq!(h(&resp, "content-encoding"), "gzip");
        // index.html has only a gzip sibling here: a brotli-only client gets it plain, a
        // client taking both gets gzip.
        let resp = get("/", &[("accept-encoding", "br, gzip")]).await;
        assert_eq!(h(&resp, "content-encoding"), "gzip");
    }

    #[tokio::test]
    async fn client_routes_get_index_revalidated() {
        for path in [
            "/",
            "/dashboard",
            "/report/view/3",
            "/settings/alert-settings/1",
            "/nope",
        ] {
            let resp = get(path, &[]).await;
            assert_eq!(resp.status(), StatusCode::OK, "{path}");
            assert_eq!(h(&resp, "cache-control"), "no-cache", "{path}");
            assert_eq!(h(&resp, "content-type"), "text/html; charset=utf-8");
            assert_eq!(body(resp).await, b"<!doctype html><title>x</title>");
        }
    }

    #[tokio::test]
    async fn missing_files_are_404_not_index() {
        for path in [
            "/assets/missing.js",
            "/assets/nothing",
            "/missing.css",
            "/x/../index.html",
        ] {
            let resp = get(path, &[]).await;
            assert_eq!(resp.status(), StatusCode::NOT_FOUND, "{path}");
        }
        let resp = get("/favicon.svg", &[]).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(h(&resp, "cache-control"), "no-cache");
    }

    #[tokio::test]
    async fn etag_revalidation_gives_304() {
        let resp = get("/dashboard", &[("accept-encoding", "gzip")]).await;
        let etag = h(&resp, "etag").to_string();
        assert!(etag.ends_with("-gz\""), "{etag}");
        let resp = get(
            "/",
            &[("accept-encoding", "gzip"), ("if-none-match", &etag)],
        )
        .await;
        assert_eq!(resp.status(), StatusCode::NOT_MODIFIED);
        assert!(body(resp).await.is_empty());
        // The plain representation has another tag.
        let resp = get("/", &[("if-none-match", &etag)]).await;
        assert_eq!(resp.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn head_has_headers_without_body() {
        let resp = request(Method::HEAD, "/assets/index-abc123.js", &[]).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(h(&resp, "content-length"), "14");
        assert!(body(resp).await.is_empty());
        let resp = request(Method::POST, "/dashboard", &[]).await;
        assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(h(&resp, "allow"), "GET, HEAD");
    }
}

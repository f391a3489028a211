//! Which certificate authorities cxwatch's own outbound TLS clients trust: single sign-on
//! (`[tenants.sso]`), Jira (`[jira]`, `[tenants.jira]`), the proxy's upstreams, the mail
//! server, the SMS and voice gateways and PostgreSQL. Each has a PEM file of extra CAs
//! (`ca`, `upstream_ca`, `ca_file`) and a [`Trust`] choosing the roots it starts from: the
//! Mozilla roots compiled in (`webpki`, the default), the system's trust store (`system`:
//! `/etc/ssl/certs` and the like, or `SSL_CERT_FILE` / `SSL_CERT_DIR` when set) or both.
//!
//! One place builds the roots ([`roots`]), the rustls configuration ([`client_config`],
//! aws-lc-rs like the server) and the reqwest client builder ([`reqwest_builder`]); the
//! configuration check reads every file at start-up ([`check`]) so a wrong path stops the
//! server with the key's name. [`untrusted`] finds, in an error's source chain, a server
//! certificate rustls refused, so failures say 'certificate not trusted' rather than
//! 'cannot be reached'.

use std::error::Error;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::RootCertStore;
use serde::{Deserialize, Serialize};

/// The roots a client starts from, before the `ca` file's certificates.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    /// The Mozilla roots compiled into cxwatch (the same on every machine).
    #[default]
    Webpki,
    /// The operating system's trust store (where the site's own CA is often installed);
    /// `SSL_CERT_FILE` and `SSL_CERT_DIR` replace it when set.
    System,
    /// Both.
    Both,
}

impl Trust {
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::Webpki => "webpki",
            Trust::System => "system",
            Trust::Both => "both",
        }
    }
}

/// The certificates of a PEM file; `key` (e.g. `jira.ca`) names it in the messages.
pub fn read_ca(key: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem =
        std::fs::read(path).map_err(|e| format!("{key}: cannot read {}: {e}", path.display()))?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{key}: {} is not PEM: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "{key}: no certificate in {} (give a PEM file with -----BEGIN CERTIFICATE-----)",
            path.display()
        ));
    }
    Ok(certs)
}

/// The system trust store, read once per process.
fn system_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for e in &found.errors {
            tracing::warn!(error = %e, "system trust store: a certificate could not be read");
        }
        found.certs
    })
}

/// What one client trusts, and the config keys it comes from (for the messages).
#[derive(Debug, Clone, Copy)]
pub struct Roots<'a> {
    /// The section, e.g. `tenants[0].sso` or `jira`.
    pub section: &'a str,
    /// The name of its trust key (`trust`, `upstream_trust`).
    pub trust_key: &'a str,
    pub trust: Trust,
    /// The name of its CA key (`ca`, `upstream_ca`, `ca_file`).
    pub ca_key: &'a str,
    pub ca: Option<&'a Path>,
}

impl<'a> Roots<'a> {
    /// A section whose keys are named `trust` and `ca`.
    pub fn new(section: &'a str, trust: Trust, ca: Option<&'a Path>) -> Roots<'a> {
        Roots {
            section,
            trust_key: "trust",
            trust,
            ca_key: "ca",
            ca,
        }
    }
}

/// What a client trusts, read: whether the compiled-in roots, and the certificates of the
/// system store (when asked for) and of the CA file.
pub struct Certificates {
    pub webpki: bool,
    /// Only the ones rustls can use as roots.
    pub system: Vec<CertificateDer<'static>>,
    pub ca: Vec<CertificateDer<'static>>,
}

/// Reads what `r` asks to trust; the messages name its keys.
pub fn certificates(r: Roots<'_>) -> Result<Certificates, String> {
    let Roots {
        section: key,
        trust_key,
        trust,
        ca_key,
        ca,
    } = r;
    let mut system = Vec::new();
    if matches!(trust, Trust::System | Trust::Both) {
        // A certificate of the store rustls cannot use is left out, as browsers do.
        system = system_roots()
            .iter()
            .filter(|c| RootCertStore::empty().add((*c).clone()).is_ok())
            .cloned()
            .collect();
        if system.is_empty() && ca.is_none() {
            return Err(format!(
                "{key}.{trust_key}: \"{}\" but the system trust store holds no certificate \
                 (install ca-certificates, set SSL_CERT_FILE, or give {key}.{ca_key})",
                trust.as_str()
            ));
        }
    }
    let ca = match ca {
        Some(path) => {
            let ca_key = format!("{key}.{ca_key}");
            let certs = read_ca(&ca_key, path)?;
            for cert in &certs {
                RootCertStore::empty()
                    .add(cert.clone())
                    .map_err(|e| format!("{ca_key}: {}: {e}", path.display()))?;
            }
            certs
        }
        None => Vec::new(),
    };
    Ok(Certificates {
        webpki: matches!(trust, Trust::Webpki | Trust::Both),
        system,
        ca,
    })
}

/// The roots for `trust` plus the certificates of `ca`.
pub fn roots(r: Roots<'_>) -> Result<RootCertStore, String> {
    let c = certificates(r)?;
    let mut roots = RootCertStore::empty();
    if c.webpki {
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    }
    roots.add_parsable_certificates(c.system.into_iter().chain(c.ca));
    Ok(roots)
}

/// The rustls client configuration trusting [`roots`] (aws-lc-rs, like the server).
pub fn client_config(r: Roots<'_>) -> Result<rustls::ClientConfig, String> {
    let key = r.section;
    let roots = roots(r)?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("{key}: TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// A rustls client configuration that takes any server certificate (signatures are still
/// checked): for a client told not to check (`upstream_insecure`) or talking to its own
/// process.
pub fn any_certificate_config() -> rustls::ClientConfig {
    let provider = rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()));
    rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .expect("the provider supports TLS 1.2 and 1.3")
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth()
}

#[derive(Debug)]
struct AnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &rustls::pki_types::ServerName<'_>,
        _ocsp: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// A reqwest client builder whose TLS trusts [`roots`]; the caller adds its time-outs.
pub fn reqwest_builder(r: Roots<'_>) -> Result<reqwest::ClientBuilder, String> {
    let tls = client_config(r)?;
    Ok(reqwest::Client::builder().use_preconfigured_tls(tls))
}

/// The start-up check of a section's trust: the CA file readable and holding a
/// certificate, the system store not empty when asked for.
pub fn check(r: Roots<'_>) -> Result<(), String> {
    roots(r).map(|_| ())
}

/// When `err` (or an error in its source chain) is rustls refusing the server's
/// certificate: why, e.g. `signed by an unknown issuer`.
pub fn untrusted(err: &(dyn Error + 'static)) -> Option<String> {
    let mut next = Some(err);
    while let Some(e) = next {
        if let Some(rustls::Error::InvalidCertificate(c)) = e.downcast_ref::<rustls::Error>() {
            return Some(certificate_reason(c));
        }
        // `io::Error::source` skips the error it wraps: look at that one itself.
        next = match e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn Error + 'static)),
            None => e.source(),
        };
    }
    None
}

fn certificate_reason(c: &rustls::CertificateError) -> String {
    use rustls::CertificateError as C;
    match c {
        C::UnknownIssuer => "signed by an unknown issuer".into(),
        C::Expired | C::ExpiredContext { .. } => "expired".into(),
        C::NotValidYet | C::NotValidYetContext { .. } => "not valid yet".into(),
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            "not issued for this host name".into()
        }
        C::Revoked => "revoked".into(),
        C::BadSignature => "bad signature".into(),
        other => format!("{other:?}"),
    }
}

/// What every client says when rustls refuses a server's certificate, in the same words
/// for the mail server, the gateways, webhooks, Jira and single sign-on: why, and the keys
/// of `section` (e.g. `notify.smtp`, `jira`) that fix it. No retry can help.
pub fn untrusted_reason(section: &str, why: &str) -> String {
    format!(
        "certificate not trusted ({why}): give the CA that signed it in {section}.ca \
         (or set {section}.trust = \"system\")"
    )
}

/// An error and its sources as one line; 'certificate not trusted (why)' first when that is
/// the cause.
pub fn describe(err: &(dyn Error + 'static)) -> String {
    if let Some(why) = untrusted(err) {
        return format!("certificate not trusted ({why})");
    }
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        let t = s.to_string();
        if !text.contains(&t) {
            text.push_str(": ");
            text.push_str(&t);
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_is_checked_with_the_keys_name() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.pem");
        let e = read_ca("jira.ca", &missing).unwrap_err();
        assert!(e.starts_with("jira.ca: cannot read "), "{e}");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let e = read_ca("tenants[0].sso.ca", &empty).unwrap_err();
        assert!(
            e.starts_with("tenants[0].sso.ca: no certificate in "),
            "{e}"
        );
        let ca = rcgen::generate_simple_self_signed(vec!["ca.test".into()]).unwrap();
        let good = dir.path().join("ca.pem");
        std::fs::write(&good, ca.cert.pem()).unwrap();
        assert_eq!(read_ca("jira.ca", &good).unwrap().len(), 1);
        let roots = roots(Roots::new("jira", Trust::Webpki, Some(good.as_path()))).unwrap();
        assert_eq!(roots.len(), webpki_roots::TLS_SERVER_ROOTS.len() + 1);
    }

    #[test]
    fn an_unknown_issuer_is_found_through_io_errors() {
        let inner = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let io = std::io::Error::new(std::io::ErrorKind::InvalidData, inner);
        #[derive(Debug, thiserror::Error)]
        #[error("client error (Connect)")]
        struct Outer(#[source] std::io::Error);
        let outer = Outer(io);
        assert_eq!(
            untrusted(&outer).as_deref(),
            Some("signed by an unknown issuer")
        );
        assert_eq!(
            describe(&outer),
            "certificate not trusted (signed by an unknown issuer)"
        );
        let other = Outer(std::io::Error::other("connection refused"));
        assert_eq!(untrusted(&other), None);
        assert_eq!(
            describe(&other),
            "client error (Connect): connection refused"
        );
    }
}

//! TLS: the configured certificate, or a self-signed one generated once for the configured
//! host names and kept in the data directory.
//!
//! The served certificate can change while the listener runs ([`Tls`]): each handshake asks
//! a resolver for the current one, and [`Tls::reload`] (SIGHUP, `systemctl reload`) reads
//! the files again and swaps it whole, or keeps the old one and says why. A daily check
//! ([`Tls::check_expiry`]) warns from [`WARN_DAYS`] before the end and renews a generated
//! certificate before it ends, so a server nobody restarts does not serve an expired one.
//!
//! One rustls crypto provider is compiled into the binary, aws-lc-rs (reqwest without its own
//! provider, rcgen on aws-lc-rs). [`install_crypto_provider`] still makes it the process
//! default once, at start-up, before anything builds a TLS config: reqwest clients built
//! without `trust::reqwest_builder` (the health check, an insecure upstream) take the default,
//! and the tests' own reqwest brings ring in as a second provider.

use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex, RwLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use crate::config::{Config, ConfigError};
use crate::telemetry::Telemetry;

/// File names of the generated certificate in the data directory.
pub const SELF_SIGNED_CERT: &str = "tls/self-signed.crt";
pub const SELF_SIGNED_KEY: &str = "tls/self-signed.key";
/// The host names the generated certificate was made for, one a line.
pub const SELF_SIGNED_NAMES: &str = "tls/self-signed.names";
/// Validity of a generated certificate: 397 days, the most browsers accept for a server
/// certificate, from an hour ago (clocks a little behind still accept it).
pub const SELF_SIGNED_DAYS: i64 = 397;
/// A generated certificate is made again (at start-up, on reload and by the daily check)
/// when it ends within this many days.
pub const RENEW_DAYS_BEFORE: i64 = 30;
/// The served certificate's end is warned about, daily, from this many days before.
pub const WARN_DAYS: i64 = 30;

/// Makes aws-lc-rs the process-wide rustls provider. Idempotent; never panics.
pub fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err only when another thread installed one first: that one is used.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    }
}

/// The server's TLS settings: the configured certificate and key, or the generated one.
pub fn load_or_generate(config: &Config) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    let (key, _) = load(config)?;
    Ok(server_config(Arc::new(SingleCert(Arc::new(key)))))
}

/// The TLS settings of the configured `tls.cert` and `tls.key`, if set. A file that cannot be
/// read or used is a configuration error (exit 78, and `cxwatch config check` says so).
pub fn configured(config: &Config) -> Option<Result<Arc<rustls::ServerConfig>, ConfigError>> {
    let key = configured_key(config)?;
    Some(key.map(|k| server_config(Arc::new(SingleCert(Arc::new(k))))))
}

fn configured_key(config: &Config) -> Option<Result<CertifiedKey, ConfigError>> {
    let (Some(cert), Some(key)) = (&config.tls.cert, &config.tls.key) else {
        return None;
    };
    install_crypto_provider();
    let read = |path: &Path, key: &str| {
        std::fs::read(path).map_err(|e| {
            ConfigError::Invalid(format!("{key}: cannot read {}: {e}", path.display()))
        })
    };
    Some((|| {
        let (cert_pem, key_pem) = (read(cert, "tls.cert")?, read(key, "tls.key")?);
        certified_key(&cert_pem, &key_pem)
            .map_err(|e| ConfigError::Invalid(format!("{e} (tls.cert = {})", cert.display())))
    })())
}

/// The certificate to serve, read (or generated) as at start-up, and whether it is the
/// generated one.
fn load(config: &Config) -> anyhow::Result<(CertifiedKey, bool)> {
    install_crypto_provider();
    if let Some(configured) = configured_key(config) {
        return Ok((configured?, false));
    }
    let (cert, key) = self_signed(config)?;
    let key = certified_key(&cert, &key).map_err(|e| {
        anyhow::anyhow!(
            "{e} (generated certificate in {})",
            config.data_dir.display()
        )
    })?;
    Ok((key, true))
}

/// A PEM chain and key, checked to fit together: a clear error at start-up (or on reload)
/// instead of a failed handshake later.
fn certified_key(cert: &[u8], key: &[u8]) -> anyhow::Result<CertifiedKey> {
    let certs = CertificateDer::pem_slice_iter(cert)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("tls.cert: not a PEM certificate chain: {e}"))?;
    if certs.is_empty() {
        anyhow::bail!("tls.cert: no certificate found in the PEM file");
    }
    let key = PrivateKeyDer::from_pem_slice(key)
        .map_err(|e| anyhow::anyhow!("tls.key: not a PEM private key: {e}"))?;
    let provider = rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()));
    CertifiedKey::from_der(certs, key, &provider)
        .map_err(|e| anyhow::anyhow!("tls.cert and tls.key do not fit together: {e}"))
}

/// The rustls settings answering each handshake with what `certs` resolves (HTTP/2 and
/// HTTP/1.1 offered by ALPN).
fn server_config(certs: Arc<dyn ResolvesServerCert>) -> Arc<rustls::ServerConfig> {
    install_crypto_provider();
    let mut tls = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_cert_resolver(certs);
    tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Arc::new(tls)
}

/// One certificate for every handshake (`config check`, [`load_or_generate`]).
#[derive(Debug)]
struct SingleCert(Arc<CertifiedKey>);

impl ResolvesServerCert for SingleCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// The certificate handshakes get now; [`Tls::reload`] replaces it whole. Connections
/// already open keep the one they were made with.
#[derive(Debug)]
struct Swappable(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for Swappable {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.read().unwrap_or_else(|e| e.into_inner()).clone())
    }
}

/// The served certificate of `serve`: loaded at start-up, reloaded on SIGHUP, checked daily.
pub struct Tls {
    config: Arc<Config>,
    current: Arc<Swappable>,
    server: Arc<rustls::ServerConfig>,
    /// notAfter of the served leaf (Unix seconds) when readable; one reload at a time.
    not_after: Mutex<Option<i64>>,
    self_signed: bool,
    telemetry: Arc<Telemetry>,
}

impl Tls {
    /// Loads (or generates) the certificate as [`load_or_generate`] does; a failure stops
    /// the start.
    pub fn load(config: Arc<Config>, telemetry: Arc<Telemetry>) -> anyhow::Result<Tls> {
        let (key, self_signed) = load(&config)?;
        let not_after = key.end_entity_cert().ok().and_then(|c| not_after_der(c));
        let current = Arc::new(Swappable(RwLock::new(Arc::new(key))));
        let tls = Tls {
            server: server_config(current.clone()),
            config,
            current,
            not_after: Mutex::new(not_after),
            self_signed,
            telemetry,
        };
        tls.telemetry.tls_certificate(tls.source(), not_after);
        Ok(tls)
    }

    /// The rustls settings of the listener: they stay, the certificate inside changes.
    pub fn server_config(&self) -> Arc<rustls::ServerConfig> {
        self.server.clone()
    }

    /// The label of where the certificate comes from.
    fn source(&self) -> &'static str {
        if self.self_signed {
            "self-signed"
        } else {
            "configured"
        }
    }

    /// notAfter (Unix seconds) of the served certificate, when readable.
    pub fn not_after(&self) -> Option<i64> {
        *self.not_after.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the certificate and key again (`tls.cert` and `tls.key`, or the generated
    /// one, made again when it ends within [`RENEW_DAYS_BEFORE`] days) and serves them to
    /// the next handshakes. On any error the served certificate stays and the error is
    /// returned (and logged): a broken file never takes the console off the air.
    pub fn reload(&self) -> anyhow::Result<()> {
        let mut not_after = self.not_after.lock().unwrap_or_else(|e| e.into_inner());
        let loaded = load(&self.config).and_then(|(key, _)| {
            let end = key.end_entity_cert().ok().and_then(|c| not_after_der(c));
            if let Some(end) = end.filter(|&e| e <= unix_now()) {
                anyhow::bail!("the new certificate ended at {end} (Unix seconds)");
            }
            Ok((key, end))
        });
        match loaded {
            Ok((key, end)) => {
                let cert = key.end_entity_cert().map(|c| fingerprint(c)).ok();
                *self.current.0.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(key);
                *not_after = end;
                self.telemetry.tls_certificate(self.source(), end);
                self.telemetry.tls_reload(true);
                tracing::info!(
                    source = self.source(),
                    not_after = end,
                    sha256 = cert.as_deref().unwrap_or(""),
                    "TLS certificate reloaded: new connections get it"
                );
                Ok(())
            }
            Err(e) => {
                self.telemetry.tls_reload(false);
                tracing::error!(error = %e,
                    "TLS certificate not reloaded: the previous one is still served");
                Err(e)
            }
        }
    }

    /// The daily check: a generated certificate that ends within [`RENEW_DAYS_BEFORE`]
    /// days is made again and served; a certificate that ends within [`WARN_DAYS`] days (or
    /// has ended) is warned about. `now` in Unix seconds.
    pub fn check_expiry(&self, now: i64) {
        let Some(end) = self.not_after() else {
            return;
        };
        if self.self_signed && end - now <= RENEW_DAYS_BEFORE * 86_400 {
            // load() makes the generated certificate again when it is this close to its end.
            let _ = self.reload();
        }
        let Some(end) = self.not_after() else {
            return;
        };
        let days_left = (end - now).div_euclid(86_400);
        let path = self.config.tls.cert.as_ref().map_or_else(
            || self.config.data_dir.join(SELF_SIGNED_CERT),
            PathBuf::clone,
        );
        if end <= now {
            tracing::error!(not_after = end, path = %path.display(),
                "the served TLS certificate has ended: browsers refuse the console; \
                 replace it and run `systemctl reload cxwatch`");
        } else if days_left < WARN_DAYS {
            tracing::warn!(not_after = end, days_left, path = %path.display(),
                "the served TLS certificate ends in {days_left} days: \
                 replace it and run `systemctl reload cxwatch`");
        }
    }
}

/// SHA-256 of a DER certificate in hex, as `openssl x509 -fingerprint -sha256` shows it
/// (without the colons).
fn fingerprint(der: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(der))
}

/// The names the generated certificate covers: the configured ones plus loopback.
pub fn self_signed_names(config: &Config) -> Vec<String> {
    let mut names = config.all_hostnames();
    for extra in ["localhost", "127.0.0.1", "::1"] {
        if !names.iter().any(|n| n == extra) {
            names.push(extra.into());
        }
    }
    names
}

fn self_signed(config: &Config) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let dir = config.data_dir.join("tls");
    let cert_path = config.data_dir.join(SELF_SIGNED_CERT);
    let key_path = config.data_dir.join(SELF_SIGNED_KEY);
    let names_path = config.data_dir.join(SELF_SIGNED_NAMES);
    let names = self_signed_names(config);
    let names_text = names.join("\n") + "\n";
    let now = unix_now();
    if cert_path.exists() && key_path.exists() {
        let same_names = std::fs::read_to_string(&names_path).is_ok_and(|n| n == names_text);
        let cert = read(&cert_path)?;
        match not_after(&cert) {
            _ if !same_names => {
                tracing::info!(hosts = ?names, "host names changed: generating a new self-signed certificate")
            }
            Some(end) if end - now > RENEW_DAYS_BEFORE * 86_400 => {
                return Ok((cert, read(&key_path)?));
            }
            Some(end) => {
                tracing::info!(not_after = end, "the self-signed certificate ends within {RENEW_DAYS_BEFORE} days: generating a new one")
            }
            None => {
                tracing::warn!(path = %cert_path.display(), "cannot read the end of the self-signed certificate: generating a new one")
            }
        }
    }
    let (cert, key) = generate(&names, now)?;
    create_private_dir(&dir)?;
    write_file(&key_path, key.as_bytes(), 0o600)?;
    write_file(&cert_path, cert.as_bytes(), 0o644)?;
    write_file(&names_path, names_text.as_bytes(), 0o644)?;
    tracing::info!(path = %cert_path.display(), hosts = ?names, "generated a self-signed certificate");
    Ok((cert.into_bytes(), key.into_bytes()))
}

/// A self-signed certificate (PEM) and its key (PEM) for `names`, valid from an hour
/// before `now` (Unix seconds) for [`SELF_SIGNED_DAYS`].
fn generate(names: &[String], now: i64) -> anyhow::Result<(String, String)> {
    let mut params = rcgen::CertificateParams::new(names.to_vec())?;
    let start = time::OffsetDateTime::from_unix_timestamp(now - 3600)?;
    params.not_before = start;
    params.not_after = start + time::Duration::days(SELF_SIGNED_DAYS);
    let mut dn = rcgen::DistinguishedName::new();
    dn.push(
        rcgen::DnType::CommonName,
        names.first().map_or("cxwatch", String::as_str),
    );
    dn.push(rcgen::DnType::OrganizationName, "cxwatch (self-signed)");
    params.distinguished_name = dn;
    let key_pair = rcgen::KeyPair::generate()?;
    let cert = params.self_signed(&key_pair)?;
    Ok((cert.pem(), key_pair.serialize_pem()))
}

/// Now in Unix seconds on the system's clock: the one TLS clients check a certificate with.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The end of validity (notAfter, Unix seconds) of the first certificate of a PEM file;
/// `None` when it cannot be read.
fn not_after(pem: &[u8]) -> Option<i64> {
    let der = CertificateDer::pem_slice_iter(pem).next()?.ok()?;
    not_after_der(&der)
}

/// notAfter of a DER X.509 certificate: Certificate ::= SEQUENCE { tbsCertificate, .. };
/// TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer,
/// validity SEQUENCE { notBefore, notAfter }, .. }; each time a UTCTime or GeneralizedTime.
fn not_after_der(der: &[u8]) -> Option<i64> {
    use yasna::models::{GeneralizedTime, UTCTime};
    use yasna::tags::{TAG_GENERALIZEDTIME, TAG_UTCTIME};
    use yasna::Tag;
    let time = |r: yasna::BERReader| -> yasna::ASN1Result<i64> {
        let v = r.read_tagged_der()?;
        let bad = || yasna::ASN1Error::new(yasna::ASN1ErrorKind::Invalid);
        if v.tag() == TAG_UTCTIME {
            let t = UTCTime::parse(v.value()).ok_or_else(bad)?;
            Ok(t.datetime().unix_timestamp())
        } else if v.tag() == TAG_GENERALIZEDTIME {
            let t = GeneralizedTime::parse(v.value()).ok_or_else(bad)?;
            Ok(t.datetime().unix_timestamp())
        } else {
            Err(bad())
        }
    };
    yasna::parse_der(der, |r| {
        r.read_sequence(|r| {
            let end = r.next().read_sequence(|r| {
                r.read_optional(|r| r.read_tagged(Tag::context(0), |r| r.read_der()))?;
                r.next().read_der()?; // serialNumber
                r.next().read_der()?; // signature
                r.next().read_der()?; // issuer
                let end = r.next().read_sequence(|r| {
                    time(r.next())?;
                    time(r.next())
                })?;
                while r.read_optional(|r| r.read_der())?.is_some() {}
                Ok(end)
            })?;
            while r.read_optional(|r| r.read_der())?.is_some() {}
            Ok(end)
        })
    })
    .ok()
}

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))
}

fn create_private_dir(dir: &PathBuf) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
    Ok(())
}

/// Writes through a temporary file and a rename, so a crash never leaves half a key.
fn write_file(path: &Path, data: &[u8], mode: u32) -> anyhow::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let result = opts
        .open(&tmp)
        .and_then(|mut f| f.write_all(data).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&tmp, path));
    result.map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn config(dir: &Path, hosts: &[&str]) -> Config {
        let mut c = Config {
            data_dir: dir.to_path_buf(),
            ..Config::default()
        };
        c.server.hostnames = hosts.iter().map(|h| h.to_string()).collect();
        c
    }

    #[test]
    fn provider_install_is_idempotent_and_config_builds() {
        install_crypto_provider();
        install_crypto_provider();
        // Panics when no default provider can be chosen.
        let _ = rustls::ServerConfig::builder();
        let _ = rustls::ClientConfig::builder();
    }

    #[test]
    fn generated_once_then_reused_and_renewed_when_names_change() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path(), &["console.test"]);
        load_or_generate(&c).unwrap();
        let first = std::fs::read(dir.path().join(SELF_SIGNED_CERT)).unwrap();
        load_or_generate(&c).unwrap();
        let second = std::fs::read(dir.path().join(SELF_SIGNED_CERT)).unwrap();
        assert_eq!(first, second);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(SELF_SIGNED_KEY))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let names = std::fs::read_to_string(dir.path().join(SELF_SIGNED_NAMES)).unwrap();
        assert_eq!(names, "console.test\nlocalhost\n127.0.0.1\n::1\n");

        let c2 = config(dir.path(), &["other.test"]);
        load_or_generate(&c2).unwrap();
        let third = std::fs::read(dir.path().join(SELF_SIGNED_CERT)).unwrap();
        assert_ne!(first, third);
    }

    #[test]
    fn configured_files_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = config(dir.path(), &["console.test"]);
        let cert = dir.path().join("c.pem");
        let key = dir.path().join("k.pem");
        std::fs::write(&cert, "not a certificate").unwrap();
        std::fs::write(&key, "not a key").unwrap();
        c.tls.cert = Some(cert.clone());
        c.tls.key = Some(dir.path().join("missing.pem"));
        let err = load_or_generate(&c).err().unwrap().to_string();
        assert!(err.starts_with("config: tls.key: cannot read"), "{err}");
        c.tls.key = Some(key.clone());
        let err = load_or_generate(&c).err().unwrap().to_string();
        assert!(err.contains("tls.cert"), "{err}");

        let (good_cert, good_key) = generate(&["console.test".into()], unix_now()).unwrap();
        std::fs::write(&cert, good_cert).unwrap();
        let err = load_or_generate(&c).err().unwrap().to_string();
        assert!(err.contains("tls.key: not a PEM private key"), "{err}");
        std::fs::write(&key, good_key).unwrap();
        load_or_generate(&c).unwrap();
    }

    #[test]
    fn generated_certificate_has_a_sane_validity() {
        let now = unix_now();
        let (cert, _) = generate(&["console.test".into()], now).unwrap();
        let end = not_after(cert.as_bytes()).unwrap();
        assert_eq!(end, now - 3600 + SELF_SIGNED_DAYS * 86_400);
        assert_eq!(not_after(b"not a certificate"), None);
    }

    #[test]
    fn certificate_near_its_end_is_renewed_at_start_up() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path(), &["console.test"]);
        let cert_path = dir.path().join(SELF_SIGNED_CERT);
        let key_path = dir.path().join(SELF_SIGNED_KEY);
        load_or_generate(&c).unwrap();
        // Made 380 days ago: 17 days left, so renewed.
        let names = self_signed_names(&c);
        let (old, old_key) = generate(&names, unix_now() - 380 * 86_400).unwrap();
        std::fs::write(&cert_path, &old).unwrap();
        std::fs::write(&key_path, &old_key).unwrap();
        load_or_generate(&c).unwrap();
        let renewed = std::fs::read_to_string(&cert_path).unwrap();
        assert_ne!(renewed, old);
        let end = not_after(renewed.as_bytes()).unwrap();
        assert!(end - unix_now() > 390 * 86_400, "{end}");
        // Made 300 days ago: 97 days left, so kept.
        let (recent, recent_key) = generate(&names, unix_now() - 300 * 86_400).unwrap();
        std::fs::write(&cert_path, &recent).unwrap();
        std::fs::write(&key_path, &recent_key).unwrap();
        load_or_generate(&c).unwrap();
        assert_eq!(std::fs::read_to_string(&cert_path).unwrap(), recent);
    }

    fn served(tls: &Tls) -> Vec<u8> {
        let key = tls.current.0.read().unwrap().clone();
        key.end_entity_cert().unwrap().to_vec()
    }

    fn pem_to_der(pem: &str) -> Vec<u8> {
        CertificateDer::pem_slice_iter(pem.as_bytes())
            .next()
            .unwrap()
            .unwrap()
            .to_vec()
    }

    #[test]
    fn reload_serves_the_new_files_and_keeps_the_old_on_a_broken_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = config(dir.path(), &["console.test"]);
        let (cert_path, key_path) = (dir.path().join("c.pem"), dir.path().join("k.pem"));
        let (first, first_key) = generate(&["console.test".into()], unix_now()).unwrap();
        std::fs::write(&cert_path, &first).unwrap();
        std::fs::write(&key_path, &first_key).unwrap();
        c.tls.cert = Some(cert_path.clone());
        c.tls.key = Some(key_path.clone());
        let telemetry = Arc::new(Telemetry::new());
        let tls = Tls::load(Arc::new(c), telemetry.clone()).unwrap();
        assert_eq!(served(&tls), pem_to_der(&first));
        let config_before = tls.server_config();

        let (second, second_key) = generate(&["console.test".into()], unix_now()).unwrap();
        std::fs::write(&cert_path, &second).unwrap();
        std::fs::write(&key_path, &second_key).unwrap();
        tls.reload().unwrap();
        assert_eq!(served(&tls), pem_to_der(&second));
        assert!(Arc::ptr_eq(&config_before, &tls.server_config()));
        assert_eq!(tls.not_after(), not_after(second.as_bytes()));

        // Broken: not PEM; a key of another certificate; an ended certificate.
        std::fs::write(&cert_path, "not a certificate").unwrap();
        let err = tls.reload().unwrap_err().to_string();
        assert!(err.contains("tls.cert"), "{err}");
        std::fs::write(&cert_path, &first).unwrap();
        let err = tls.reload().unwrap_err().to_string();
        assert!(err.contains("do not fit together"), "{err}");
        let (ended, ended_key) =
            generate(&["console.test".into()], unix_now() - 400 * 86_400).unwrap();
        std::fs::write(&cert_path, &ended).unwrap();
        std::fs::write(&key_path, &ended_key).unwrap();
        let err = tls.reload().unwrap_err().to_string();
        assert!(err.contains("ended"), "{err}");
        assert_eq!(served(&tls), pem_to_der(&second), "the old one stays");
        assert_eq!(tls.not_after(), not_after(second.as_bytes()));

        let text = Store::block_on(telemetry.scrape(None));
        assert!(
            text.contains("cxwatch_tls_reloads_total{outcome=\"ok\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("cxwatch_tls_reloads_total{outcome=\"failed\"} 3"),
            "{text}"
        );
        let end = not_after(second.as_bytes()).unwrap();
        assert!(
            text.contains(&format!(
                "cxwatch_tls_certificate_expiry_timestamp_seconds{{source=\"configured\"}} {end}"
            )),
            "{text}"
        );
    }

    #[test]
    fn the_daily_check_renews_a_generated_certificate_before_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let c = config(dir.path(), &["console.test"]);
        let telemetry = Arc::new(Telemetry::new());
        let tls = Tls::load(Arc::new(c.clone()), telemetry).unwrap();
        let fresh = served(&tls);
        // Far from its end: nothing happens.
        tls.check_expiry(unix_now());
        assert_eq!(served(&tls), fresh);
        // A server that ran for a year: the files hold a certificate 17 days from its end,
        // and that is what it serves.
        let names = self_signed_names(&c);
        let (old, old_key) = generate(&names, unix_now() - 380 * 86_400).unwrap();
        std::fs::write(dir.path().join(SELF_SIGNED_CERT), &old).unwrap();
        std::fs::write(dir.path().join(SELF_SIGNED_KEY), &old_key).unwrap();
        let old_key = certified_key(old.as_bytes(), old_key.as_bytes()).unwrap();
        *tls.current.0.write().unwrap() = Arc::new(old_key);
        *tls.not_after.lock().unwrap() = not_after(old.as_bytes());

        tls.check_expiry(unix_now());
        let renewed = std::fs::read_to_string(dir.path().join(SELF_SIGNED_CERT)).unwrap();
        assert_ne!(renewed, old);
        assert_eq!(
            served(&tls),
            pem_to_der(&renewed),
            "the renewed one is served"
        );
        assert!(tls.not_after().unwrap() - unix_now() > 390 * 86_400);
    }
}

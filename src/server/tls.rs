//! TLS: the configured certificate, or a self-signed one generated once for the configured
//! host names and kept in the data directory.
//!
//! One rustls crypto provider is compiled into the binary, aws-lc-rs (reqwest without its own
//! provider, rcgen on aws-lc-rs). [`install_crypto_provider`] still makes it the process
//! default once, at start-up, before anything builds a TLS config: reqwest clients built
//! without `trust::reqwest_builder` (the health check, an insecure upstream) take the default,
//! and the tests' own reqwest brings ring in as a second provider.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::config::{Config, ConfigError};

/// File names of the generated certificate in the data directory.
pub const SELF_SIGNED_CERT: &str = "tls/self-signed.crt";
pub const SELF_SIGNED_KEY: &str = "tls/self-signed.key";
/// The host names the generated certificate was made for, one a line.
pub const SELF_SIGNED_NAMES: &str = "tls/self-signed.names";
/// Validity of a generated certificate: 397 days, the most browsers accept for a server
/// certificate, from an hour ago (clocks a little behind still accept it).
pub const SELF_SIGNED_DAYS: i64 = 397;
/// A generated certificate is made again at start-up when it ends within this many days.
pub const RENEW_DAYS_BEFORE: i64 = 30;

/// Makes aws-lc-rs the process-wide rustls provider. Idempotent; never panics.
pub fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err only when another thread installed one first: that one is used.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    }
}

/// The server's TLS settings: the configured certificate and key, or the generated one.
pub fn load_or_generate(config: &Config) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    install_crypto_provider();
    if let Some(configured) = configured(config) {
        return Ok(configured?);
    }
    let (cert, key) = self_signed(config)?;
    server_config(&cert, &key).map_err(|e| {
        anyhow::anyhow!(
            "{e} (generated certificate in {})",
            config.data_dir.display()
        )
    })
}

/// The TLS settings of the configured `tls.cert` and `tls.key`, if set. A file that cannot be
/// read or used is a configuration error (exit 78, and `cxwatch config check` says so).
pub fn configured(config: &Config) -> Option<Result<Arc<rustls::ServerConfig>, ConfigError>> {
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
        server_config(&cert_pem, &key_pem)
            .map_err(|e| ConfigError::Invalid(format!("{e} (tls.cert = {})", cert.display())))
    })())
}

/// The rustls settings for a PEM chain and key (HTTP/2 and HTTP/1.1 offered by ALPN); a
/// clear error at start-up instead of a failed handshake later.
fn server_config(cert: &[u8], key: &[u8]) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    let certs = CertificateDer::pem_slice_iter(cert)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("tls.cert: not a PEM certificate chain: {e}"))?;
    if certs.is_empty() {
        anyhow::bail!("tls.cert: no certificate found in the PEM file");
    }
    let key = PrivateKeyDer::from_pem_slice(key)
        .map_err(|e| anyhow::anyhow!("tls.key: not a PEM private key: {e}"))?;
    let mut tls = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| anyhow::anyhow!("tls.cert and tls.key do not fit together: {e}"))?;
    tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(tls))
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

fn unix_now() -> i64 {
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
}

//! TLS: the configured certificate, or a self-signed one generated once for the configured
//! host names and kept in the data directory.

use poem::listener::{RustlsCertificate, RustlsConfig};

use crate::config::Config;

/// File names of the generated certificate in the data directory.
pub const SELF_SIGNED_CERT: &str = "tls/self-signed.crt";
pub const SELF_SIGNED_KEY: &str = "tls/self-signed.key";

pub fn load_or_generate(config: &Config) -> anyhow::Result<RustlsConfig> {
    let (cert, key) = match (&config.tls.cert, &config.tls.key) {
        (Some(cert), Some(key)) => (
            std::fs::read(cert).map_err(|e| anyhow::anyhow!("tls.cert {}: {e}", cert.display()))?,
            std::fs::read(key).map_err(|e| anyhow::anyhow!("tls.key {}: {e}", key.display()))?,
        ),
        _ => self_signed(config)?,
    };
    Ok(RustlsConfig::new().fallback(RustlsCertificate::new().cert(cert).key(key)))
}

fn self_signed(config: &Config) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let cert_path = config.data_dir.join(SELF_SIGNED_CERT);
    let key_path = config.data_dir.join(SELF_SIGNED_KEY);
    if cert_path.exists() && key_path.exists() {
        return Ok((std::fs::read(&cert_path)?, std::fs::read(&key_path)?));
    }
    let mut names = config.server.hostnames.clone();
    for extra in ["localhost", "127.0.0.1"] {
        if !names.iter().any(|n| n == extra) {
            names.push(extra.into());
        }
    }
    let generated = rcgen::generate_simple_self_signed(names.clone())?;
    let cert = generated.cert.pem();
    let key = generated.key_pair.serialize_pem();
    std::fs::create_dir_all(cert_path.parent().unwrap_or(&config.data_dir))?;
    std::fs::write(&cert_path, &cert)?;
    write_private(&key_path, key.as_bytes())?;
    tracing::info!(path = %cert_path.display(), hosts = ?names, "generated a self-signed certificate");
    Ok((cert.into_bytes(), key.into_bytes()))
}

fn write_private(path: &std::path::Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    opts.open(path)?.write_all(data)
}

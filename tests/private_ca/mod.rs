//! A site's own certificate authority, made by the test (rcgen): its certificate (what a
//! `ca` key is given) and a server certificate it signed for 127.0.0.1 and localhost, as an
//! on-prem identity provider or Jira Data Center has. Include with `mod private_ca;`.
#![allow(dead_code)]

use std::path::PathBuf;

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, KeyPair, KeyUsagePurpose,
};

pub struct PrivateCa {
    _dir: tempfile::TempDir,
    /// The CA's certificate (PEM).
    pub ca: PathBuf,
    /// The server's certificate (PEM), signed by the CA.
    pub cert: PathBuf,
    /// The server's private key (PEM).
    pub key: PathBuf,
}

impl PrivateCa {
    pub fn new() -> PrivateCa {
        let dir = tempfile::tempdir().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, "Acme Corp private CA (test)");
        params.distinguished_name = dn;
        let ca_key = KeyPair::generate().unwrap();
        let ca_cert = params.self_signed(&ca_key).unwrap();

        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, "idp.acme.test");
        params.distinguished_name = dn;
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &ca_cert, &ca_key).unwrap();

        let write = |name: &str, pem: String| {
            let path = dir.path().join(name);
            std::fs::write(&path, pem).unwrap();
            path
        };
        PrivateCa {
            ca: write("ca.pem", ca_cert.pem()),
            cert: write("server.pem", cert.pem()),
            key: write("server-key.pem", key.serialize_pem()),
            _dir: dir,
        }
    }

    /// A reqwest client (the test's own, e.g. the browser) trusting this CA.
    pub fn client_builder(&self) -> reqwest::ClientBuilder {
        let pem = std::fs::read(&self.ca).unwrap();
        reqwest::Client::builder()
            .add_root_certificate(reqwest::Certificate::from_pem(&pem).unwrap())
    }
}

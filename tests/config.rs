//! Configuration: `config.example.toml` matches the built-in defaults and documents every
//! key with its environment variable; the real binary refuses a bad config at start-up with
//! a message naming the key.

use crate::common;

use std::path::PathBuf;
use std::time::Duration;

use cxwatch::config::{Config, Overrides, TenantConfig};

fn example_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config.example.toml")
}

fn example() -> String {
    std::fs::read_to_string(example_path()).unwrap()
}

/// `section.key` of every leaf of a serialized value.
fn leaves(prefix: &str, value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(&key, v, out);
            }
        }
        _ => out.push(prefix.to_string()),
    }
}

#[test]
fn example_loads_as_the_defaults() {
    let config =
        Config::load_from(Some(&example_path()), Vec::new(), &Overrides::default()).unwrap();
    assert_eq!(config, Config::default());
}

#[test]
fn example_shows_the_real_defaults() {
    // Uncomment every `#key = value` line outside [tls] (examples, not defaults) and the
    // [[tenants]] block: the result must still be the built-in defaults.
    let mut section = String::new();
    let mut uncommented = String::new();
    let mut count = 0;
    for line in example().lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            section = trimmed.to_string();
        }
        if trimmed.starts_with("#[[tenants]]") {
            break;
        }
        let is_setting = trimmed.starts_with('#')
            && !trimmed.starts_with("##")
            && trimmed[1..]
                .split_once(" = ")
                .is_some_and(|(k, _)| k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
        if is_setting && section != "[tls]" {
            uncommented.push_str(&trimmed[1..]);
            count += 1;
        } else {
            uncommented.push_str(line);
        }
        uncommented.push('\n');
    }
    assert!(count >= 11, "only {count} settings found");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(&path, &uncommented).unwrap();
    let config = Config::load_from(Some(&path), Vec::new(), &Overrides::default())
        .unwrap_or_else(|e| panic!("{e}\n{uncommented}"));
    assert_eq!(config, Config::default(), "{uncommented}");
}

#[test]
fn example_documents_every_key_and_its_environment_variable() {
    let text = example();
    let mut keys = Vec::new();
    let mut value = serde_json::to_value(Config::default()).unwrap();
    value.as_object_mut().unwrap().remove("tenants");
    leaves("", &value, &mut keys);
    assert!(keys.len() >= 13, "{keys:?}");
    for key in &keys {
        let leaf = key.rsplit('.').next().unwrap();
        assert!(
            text.lines()
                .any(|l| l.trim_start_matches('#').starts_with(&format!("{leaf} = "))),
            "{key} has no line in config.example.toml"
        );
        let env = format!("CXWATCH_{}", key.to_ascii_uppercase().replace('.', "__"));
        assert!(
            text.lines()
                .any(|l| l.starts_with("## Env:") && l.split([' ', ',']).any(|w| w == env)),
            "{key}: {env} is not documented"
        );
    }
    let mut tenant_keys = Vec::new();
    leaves(
        "",
        &serde_json::to_value(TenantConfig::default()).unwrap(),
        &mut tenant_keys,
    );
    let tenants = &text[text.find("#[[tenants]]").expect("a [[tenants]] example")..];
    for key in tenant_keys {
        assert!(
            tenants
                .lines()
                .any(|l| l.starts_with(&format!("#{key} = "))),
            "tenants.{key} has no line in config.example.toml"
        );
    }
}

#[test]
fn example_tenant_block_is_valid_when_uncommented() {
    let text = example();
    let start = text.find("#[[tenants]]").unwrap();
    let block: String = text[start..]
        .lines()
        .filter(|l| !l.starts_with("##"))
        .map(|l| format!("{}\n", l.trim_start_matches('#')))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    let block = block.replace("/etc/cxwatch/acme-ca.pem", ca.to_str().unwrap());
    // [tenants.sso] needs the embedded mode; it has its own test below.
    let block = &block[..block.find("[tenants.sso]").unwrap_or(block.len())];
    let path = dir.path().join("c.toml");
    std::fs::write(&path, format!("[api]\nmode = \"proxy\"\n{block}")).unwrap();
    let config = Config::load_from(Some(&path), Vec::new(), &Overrides::default())
        .unwrap_or_else(|e| panic!("{e}\n{block}"));
    assert_eq!(config.tenants.len(), 1);
    assert_eq!(
        config.tenants[0].upstream.as_deref(),
        Some("https://trs.acme.example")
    );
}

#[test]
fn example_sso_block_is_valid_when_uncommented() {
    let text = example();
    let start = text.find("#[[tenants]]").unwrap();
    let block: String = text[start..]
        .lines()
        .filter(|l| !l.starts_with("##"))
        .map(|l| format!("{}\n", l.trim_start_matches('#')))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "s3cret\n").unwrap();
    let jira_token = dir.path().join("jira-token");
    std::fs::write(&jira_token, "j1ra\n").unwrap();
    // The site's CA of [tenants.sso] and [tenants.jira]: read at start-up.
    let ca = dir.path().join("acme-ca.pem");
    let cert = rcgen::generate_simple_self_signed(vec!["ca.acme.test".into()]).unwrap();
    std::fs::write(&ca, cert.cert.pem()).unwrap();
    let block = block
        .replace("/etc/cxwatch/acme-sso-secret", secret.to_str().unwrap())
        .replace("/etc/cxwatch/acme-jira-token", jira_token.to_str().unwrap())
        .replace("/etc/cxwatch/acme-ca.pem", ca.to_str().unwrap());
    let path = dir.path().join("c.toml");
    std::fs::write(&path, &block).unwrap();
    let config = Config::load_from(Some(&path), Vec::new(), &Overrides::default())
        .unwrap_or_else(|e| panic!("{e}\n{block}"));
    // [tenants.jira] reads its token from token_file.
    let jira = config.tenants[0].jira.as_ref().expect("[tenants.jira]");
    assert_eq!(jira.token, "j1ra");
    assert_eq!(
        config
            .jira_for_host(Some("console.acme.example"))
            .map(|j| j.url.as_str()),
        Some("https://acme.atlassian.net")
    );
    assert!(config.jira_for_host(Some("other.example")).is_none());
    assert_eq!(jira.ca.as_deref(), Some(ca.as_path()));
    let sso = config.tenants[0].sso.as_ref().expect("[tenants.sso]");
    assert_eq!(sso.client_secret.as_deref(), Some("s3cret"));
    assert_eq!(sso.ca.as_deref(), Some(ca.as_path()));
    assert_eq!(sso.test_case_groups["cc-emea"], vec![1, 2]);
    // Every key of the section has its line.
    let mut keys = Vec::new();
    leaves(
        "",
        &serde_json::to_value(cxwatch::config::SsoConfig::default()).unwrap(),
        &mut keys,
    );
    for key in keys {
        let key = key.split('.').next().unwrap();
        assert!(
            text.lines().any(|l| l.starts_with(&format!("#{key} = "))),
            "tenants.sso.{key} has no line in config.example.toml"
        );
    }
    // In proxy mode it is refused, naming the key.
    std::fs::write(&path, format!("[api]\nmode = \"proxy\"\n{block}")).unwrap();
    let err = Config::load_from(Some(&path), Vec::new(), &Overrides::default()).unwrap_err();
    assert!(err.to_string().contains("tenants[0].sso"), "{err}");
    // A missing secret file is named.
    std::fs::remove_file(&secret).unwrap();
    std::fs::write(&path, &block).unwrap();
    let err = Config::load_from(Some(&path), Vec::new(), &Overrides::default()).unwrap_err();
    assert!(err.to_string().contains("client_secret_file"), "{err}");
    std::fs::write(&secret, "s3cret\n").unwrap();
    // A CA file without a certificate, then none at all: refused naming the key.
    std::fs::write(&ca, "-- not a certificate --\n").unwrap();
    let err = Config::load_from(Some(&path), Vec::new(), &Overrides::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("tenants[0].jira.ca: no certificate in"),
        "{err}"
    );
    std::fs::remove_file(&ca).unwrap();
    let err = Config::load_from(Some(&path), Vec::new(), &Overrides::default()).unwrap_err();
    assert!(
        err.to_string().contains("tenants[0].jira.ca: cannot read"),
        "{err}"
    );
    let no_jira = &block[..block.find("[tenants.jira]").unwrap()];
    std::fs::write(&path, no_jira).unwrap();
    let err = Config::load_from(Some(&path), Vec::new(), &Overrides::default()).unwrap_err();
    assert!(
        err.to_string().contains("tenants[0].sso.ca: cannot read"),
        "{err}"
    );
}

#[test]
fn a_jira_ca_that_cannot_be_read_stops_start_up() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "t\n").unwrap();
    let err = refused(
        "[jira]\nurl = \"https://jira.acme.example\"\nflavour = \"server\"\n",
        &[
            ("CXWATCH_JIRA__TOKEN_FILE", token.to_str().unwrap()),
            ("CXWATCH_JIRA__CA", "/nonexistent/jira-ca.pem"),
        ],
    );
    assert!(
        err.contains("jira.ca: cannot read /nonexistent/jira-ca.pem"),
        "{err}"
    );
}

fn write_config(dir: &std::path::Path, extra: &str) -> String {
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        format!(
            "data_dir = {:?}\n[log]\nformat = \"text\"\n{extra}",
            dir.to_str().unwrap()
        ),
    )
    .unwrap();
    path.to_str().unwrap().to_string()
}

/// The message of the last line of standard error. Off a terminal, an error found before the
/// log is set up is one JSON object like the log's lines; one found later is a log line (in
/// the text format these tests' config asks for).
fn fatal_message(err: &str) -> String {
    let last = err.trim_end().lines().last().unwrap_or("");
    if let Some((_, message)) = last.split_once(" ERROR cxwatch::cli: ") {
        return message.to_string();
    }
    let line: serde_json::Value =
        serde_json::from_str(last).unwrap_or_else(|e| panic!("not JSON ({e}): {err}"));
    assert_eq!(line["level"], "ERROR", "{err}");
    line["fields"]["message"].as_str().unwrap().to_string()
}

/// Runs `serve` with a config that must be refused: it exits with 78 (EX_CONFIG, which the
/// unit does not restart on); returns the message that says why.
fn refused(extra_toml: &str, env: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), extra_toml);
    let (code, _out, err) = common::run_cli_env(
        &["--config", &config, "serve"],
        env,
        Duration::from_secs(20),
    );
    assert_ne!(code, -1, "still running: the config was accepted\n{err}");
    assert_eq!(code, 78, "{err}");
    // `config check` refuses it alike.
    let (check, _, check_err) = common::run_cli_env(
        &["--config", &config, "config", "check"],
        env,
        Duration::from_secs(20),
    );
    assert_eq!(check, 78, "{check_err}");
    assert_eq!(fatal_message(&check_err), fatal_message(&err));
    fatal_message(&err)
}

#[test]
fn config_check_prints_the_effective_config_with_secrets_masked() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("metrics-token");
    std::fs::write(&secret, "s3cret-scrape-token\n").unwrap();
    let config = write_config(dir.path(), "[site]\ntimezone = \"Europe/Paris\"\n");
    let (code, out, err) = common::run_cli_env(
        &["--config", &config, "config", "check"],
        &[
            ("CXWATCH_METRICS__TOKEN_FILE", secret.to_str().unwrap()),
            ("CXWATCH_SERVER__LISTEN", "127.0.0.1:9443"),
        ],
        Duration::from_secs(20),
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("s3cret"), "{out}");
    let printed: toml::Value = toml::from_str(&out).unwrap();
    assert_eq!(
        printed["metrics"]["token"].as_str(),
        Some("********"),
        "{out}"
    );
    assert_eq!(printed["site"]["timezone"].as_str(), Some("Europe/Paris"));
    assert_eq!(printed["server"]["listen"].as_str(), Some("127.0.0.1:9443"));
    // What it prints loads back as the same configuration, secrets aside.
    let again = dir.path().join("again.toml");
    std::fs::write(&again, &out).unwrap();
    let (code, _, err) = common::run_cli_env(
        &["--config", again.to_str().unwrap(), "config", "check"],
        &[],
        Duration::from_secs(20),
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn unknown_key_in_file_stops_start_up() {
    let err = refused("[server]\nlisen = \"127.0.0.1:1\"\n", &[]);
    assert!(err.contains("server.lisen: unknown key"), "{err}");
    assert!(err.contains("config.toml"), "{err}");
}

#[test]
fn unknown_key_in_environment_stops_start_up() {
    let err = refused("", &[("CXWATCH_SERVER__LISTN", "127.0.0.1:1")]);
    assert!(err.contains("server.listn: unknown key"), "{err}");
    assert!(
        err.contains("environment variable CXWATCH_SERVER__LISTN"),
        "{err}"
    );
}

#[test]
fn bad_values_stop_start_up() {
    let err = refused("[server]\nlisten = \"nowhere\"\n", &[]);
    assert!(err.contains("server.listen"), "{err}");
    let err = refused("", &[("CXWATCH_PROXY__TIMEOUT_SECS", "soon")]);
    assert!(err.contains("proxy.timeout_secs"), "{err}");
    assert!(err.contains("CXWATCH_PROXY__TIMEOUT_SECS"), "{err}");
    let err = refused("[api]\nmode = \"proxy\"\n", &[]);
    assert!(err.contains("tenants"), "{err}");
    let err = refused(
        "[tls]\ncert = \"/nonexistent/c.pem\"\nkey = \"/nonexistent/k.pem\"\n",
        &[],
    );
    assert!(err.contains("tls.cert"), "{err}");
}

#[test]
fn unreadable_file_variable_is_named() {
    let err = refused(
        "",
        &[("CXWATCH_SITE__TIMEZONE_FILE", "/nonexistent/secret")],
    );
    assert!(
        err.contains("environment variable CXWATCH_SITE__TIMEZONE_FILE: cannot read the file /nonexistent/secret"),
        "{err}"
    );
}

#[test]
fn missing_config_file_is_named() {
    let (code, _, err) = common::run_cli_env(
        &["--config", "/nonexistent/cxwatch.toml", "serve"],
        &[],
        Duration::from_secs(20),
    );
    assert_eq!(code, 78, "{err}");
    assert!(
        fatal_message(&err).contains("/nonexistent/cxwatch.toml does not exist"),
        "{err}"
    );
}

#[test]
fn file_variable_and_command_line_override_the_file() {
    // `--listen` and `--data-dir` win over the file; a `_FILE` variable is read.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = write_config(
        dir.path(),
        "[server]\nlisten = \"127.0.0.1:1\"\nplain_http = true\n",
    );
    let tz = dir.path().join("tz");
    std::fs::write(&tz, "Europe/Paris\n").unwrap();
    let port = common::free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut child = std::process::Command::new(common::BIN)
        .args(["--config", &config, "--data-dir", data.to_str().unwrap()])
        .args(["serve", "--listen", &listen])
        .env("CXWATCH_SITE__TIMEZONE_FILE", &tz)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let c = common::client();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut up = false;
    while std::time::Instant::now() < deadline && !up {
        up = c
            .get(format!("http://{listen}/healthz"))
            .send()
            .is_ok_and(|r| r.status().is_success());
        std::thread::sleep(Duration::from_millis(50));
    }
    let (code, out, err) = common::run_cli_env(
        &["--config", &config, "healthcheck", "--listen", &listen],
        &[],
        Duration::from_secs(20),
    );
    let _ = child.kill();
    let _ = child.wait();
    assert!(up, "not serving on --listen {listen}");
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        data.join(cxwatch::store::DB_FILE).exists(),
        "--data-dir not used"
    );
}

#[test]
fn notify_settings_are_checked_and_secrets_come_from_files() {
    let dir = tempfile::tempdir().unwrap();
    let load = |toml: &str, env: Vec<(String, String)>| {
        let path = dir.path().join("n.toml");
        std::fs::write(&path, toml).unwrap();
        Config::load_from(Some(&path), env, &Overrides::default())
    };
    for (toml, key) in [
        (
            "[notify.smtp]\nhost = \"mail.test\"\nfrom = \"nobody\"\n",
            "notify.smtp.from",
        ),
        (
            "[notify.sms]\nurl = \"ftp://gw.test/send\"\n",
            "notify.sms.url",
        ),
        (
            "[notify.voice]\nmethod = \"DELETE\"\n",
            "notify.voice.method",
        ),
        ("[notify]\nmax_attempts = 0\n", "notify.max_attempts"),
        (
            "[notify]\npublic_url = \"console.test\"\n",
            "notify.public_url",
        ),
        ("[notify.smtp]\nsecurity = \"ssl\"\n", "security"),
    ] {
        let err = load(toml, Vec::new()).unwrap_err().to_string();
        assert!(err.contains(key), "{toml}: {err}");
    }
    let secret = dir.path().join("smtp-password");
    std::fs::write(&secret, "s3cret\n").unwrap();
    let c = load(
        "[notify.smtp]\nhost = \"mail.test\"\nsecurity = \"tls\"\nport = 465\n",
        vec![(
            "CXWATCH_NOTIFY__SMTP__PASSWORD_FILE".into(),
            secret.to_str().unwrap().into(),
        )],
    )
    .unwrap();
    assert_eq!(c.notify.smtp.password, "s3cret");
    assert_eq!(c.notify.smtp.security, cxwatch::config::SmtpSecurity::Tls);
}

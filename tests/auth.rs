//! The `cxwatch user` commands, one-time sign-in links and demo accounts, driven through the
//! real binary over HTTPS. Sign-in and tokens through the API alone: `tests/auth_api.rs`.

use crate::common;

use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use common::{client, config_path, run_cli, start, Opts, Server};
use serde_json::{json, Value};

fn denied() -> Value {
    json!({"code": "UNAUTHORIZED", "messages": ["Access is denied!"]})
}

/// `cxwatch --config <server's config> <args>` with `stdin`.
fn cli(server: &Server, args: &[&str], stdin: &str) -> (i32, String, String) {
    let config = config_path(&server.data_dir);
    let mut all = vec!["--config", config.to_str().unwrap()];
    all.extend_from_slice(args);
    run_cli(&all, stdin)
}

/// Creates a user through `cxwatch user add`, password on standard input.
fn add_user(server: &Server, username: &str, role: &str, access: &str, password: &str) {
    let (code, out, err) = cli(
        server,
        &[
            "user",
            "add",
            "--username",
            username,
            "--role",
            role,
            "--access",
            access,
            "--first-name",
            "Ada",
            "--last-name",
            "Lovelace",
        ],
        &format!("{password}\n"),
    );
    assert_eq!(code, 0, "user add failed: {out} {err}");
}

fn signin(server: &Server, body: Value) -> (u16, Value) {
    let resp = client()
        .post(server.url("/api/auth/signin"))
        .json(&body)
        .send()
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().unwrap())
}

fn signin_ok(server: &Server, username: &str, password: &str, remember: bool) -> Value {
    let (status, body) = signin(
        server,
        json!({"username": username, "password": password, "remember": remember}),
    );
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

/// (status, body) of `method path` with an optional bearer token.
fn call(server: &Server, method: &str, path: &str, token: Option<&str>) -> (u16, Value) {
    let c = client();
    let mut req = match method {
        "POST" => c.post(server.url(path)),
        "PUT" => c.put(server.url(path)),
        "DELETE" => c.delete(server.url(path)),
        _ => c.get(server.url(path)),
    };
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// Paths that need a token: existing, future and unknown ones.
const PROTECTED: &[(&str, &str)] = &[
    ("POST", "/api/auth/signout"),
    ("GET", "/api/users"),
    ("GET", "/api/trs/v1/groups"),
    ("GET", "/api/trs/v1/groups/1/metric?level=case"),
    ("GET", "/api/alerts/events?pageNo=0&pageSize=10"),
    ("PUT", "/api/alerts/settings/1"),
    ("DELETE", "/api/reports/1"),
    ("GET", "/api/no/such/thing"),
];

fn assert_denied_everywhere(server: &Server, token: Option<&str>, what: &str) {
    for (method, path) in PROTECTED {
        let (status, body) = call(server, method, path, token);
        assert_eq!(status, 401, "{what}: {method} {path}: {body}");
        assert_eq!(body, denied(), "{what}: {method} {path}");
    }
}

/// A valid token gets past the guard (the path itself may not exist yet: 404 then).
fn assert_token_works(server: &Server, token: &str) {
    for (method, path) in PROTECTED.iter().filter(|(_, p)| *p != "/api/auth/signout") {
        let (status, body) = call(server, method, path, Some(token));
        assert_ne!(status, 401, "{method} {path}: {body}");
    }
}

#[test]
fn user_add_reads_the_password_from_stdin_or_a_file() {
    let server = start(Opts::default());
    let user_add = |username: &str, extra: &[&str], stdin: &str| {
        let mut args = vec![
            "user",
            "add",
            "--username",
            username,
            "--role",
            "user",
            "--access",
            "read-only",
        ];
        args.extend_from_slice(extra);
        cli(&server, &args, stdin)
    };
    // Standard input: the first line, spaces kept.
    let (code, out, err) = user_add("bob@example.com", &[], "  two long words  \nignored\n");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Created user bob@example.com"), "{out}");
    let data = signin_ok(&server, "bob@example.com", "  two long words  ", false);
    assert_eq!(data["roles"], json!(["ROLE_USER"]));
    assert_eq!(data["accessType"], "read-only");
    assert_eq!(data["firstName"], "");
    // A file.
    let file = server.data_dir.join("pw.txt");
    std::fs::write(&file, "from-a-file-too\r\n").unwrap();
    let (code, _, err) = user_add(
        "carol@example.com",
        &["--password-file", file.to_str().unwrap()],
        "not this one\n",
    );
    assert_eq!(code, 0, "{err}");
    signin_ok(&server, "carol@example.com", "from-a-file-too", false);
    let (status, _) = signin(
        &server,
        json!({"username": "carol@example.com", "password": "not this one"}),
    );
    assert_eq!(status, 401);

    // Too short.
    let (code, _, err) = user_add("dan@example.com", &[], "short\n");
    assert_eq!(code, 1);
    assert!(
        err.contains("the password needs at least 12 characters (5 given)"),
        "{err}"
    );
    // Easy to guess: common, a pattern, made of the username.
    for weak in [
        "passwordpassword\n",
        "123456789012\n",
        "dan@example.comdan\n",
    ] {
        let (code, _, err) = user_add("dan@example.com", &[], weak);
        assert_eq!(code, 1, "{weak}");
        assert!(err.contains("the password is too easy to guess"), "{err}");
    }
    // The help says what is enforced (it said 8 characters).
    let (code, out, _) = cli(&server, &["user", "add", "--help"], "");
    assert_eq!(code, 0);
    let help = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("12 to 128 characters"), "{help}");
    assert!(!help.contains("at least 8"), "{help}");
    // No password at all.
    let (code, _, err) = user_add("dan@example.com", &[], "");
    assert_eq!(code, 1);
    assert!(err.contains("no password given"), "{err}");
    // Duplicate (any case).
    let (code, _, err) = user_add("BOB@example.com", &[], "another password\n");
    assert_eq!(code, 1);
    assert!(
        err.contains("a user named bob@example.com already exists"),
        "{err}"
    );
    // Not an e-mail address.
    let (code, _, err) = user_add("bob", &[], "another password\n");
    assert_eq!(code, 1);
    assert!(err.contains("is not an e-mail address"), "{err}");
    // Unknown role.
    let (code, _, err) = cli(
        &server,
        &[
            "user",
            "add",
            "--username",
            "e@example.com",
            "--role",
            "root",
            "--access",
            "read-only",
        ],
        "password1\n",
    );
    assert_ne!(code, 0);
    assert!(err.contains("possible values: admin, user"), "{err}");
    // None of the failures created a user.
    let n: i64 = common::query_one(&server.data_dir, "SELECT COUNT(*) FROM users");
    assert_eq!(n, 2);
    // The password never appears in the command's output.
    assert!(!out.contains("two long words"));
}

#[test]
fn one_time_ids_are_exchanged_once() {
    let server = start(Opts::default());
    add_user(
        &server,
        "ada@example.com",
        "admin",
        "read-only",
        "correct horse",
    );
    let (code, out, err) = cli(
        &server,
        &["user", "login-link", "--username", "ada@example.com"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let path = out.trim();
    let id = path
        .strip_prefix("/callback?id=")
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(id.len(), 43);

    let (status, body) = call(&server, "GET", &format!("/api/auth/getToken?id={id}"), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["code"], "OK");
    let data = &body["data"];
    assert_eq!(data["username"], "ada@example.com");
    assert_eq!(data["roles"], json!(["ROLE_ADMIN"]));
    assert_eq!(data["accessType"], "read-only");
    assert_eq!(data["remember"], false);
    assert!(data["id"].as_i64().unwrap() > 0);
    let token = data["accessToken"].as_str().unwrap();
    assert_token_works(&server, token);

    // Single use.
    let (status, body) = call(&server, "GET", &format!("/api/auth/getToken?id={id}"), None);
    assert_eq!(status, 401);
    assert_eq!(body["code"], "UNAUTHORIZED");
    assert_eq!(
        body["messages"],
        json!(["This sign-in link is unknown, already used or expired"])
    );
    let (status, _) = call(&server, "GET", "/api/auth/getToken?id=made-up", None);
    assert_eq!(status, 401);
    let (status, body) = call(&server, "GET", "/api/auth/getToken", None);
    assert_eq!(status, 400);
    assert_eq!(body["messages"], json!(["id is required"]));
    // Only the hash of an id is stored, and a used id is gone.
    let n: i64 = common::query_one(&server.data_dir, "SELECT COUNT(*) FROM one_time_ids");
    assert_eq!(n, 0);

    let (code, _, err) = cli(
        &server,
        &["user", "login-link", "--username", "x@example.com"],
        "",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("there is no user named x@example.com"),
        "{err}"
    );
}

/// Reads the demo box from the server's standard output: (url, [(username, password)]).
fn read_demo_box(server: &mut Server) -> (String, Vec<(String, String)>) {
    let stdout = server.child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let mut rules = 0;
    let mut url = String::new();
    let mut accounts = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while rules < 2 && Instant::now() < deadline {
        let line = lines.next().unwrap().unwrap();
        let inner = line.trim_matches(|c| c == '|' || c == ' ');
        if line.starts_with("+--") {
            rules += 1;
        } else if let Some(u) = inner.strip_prefix("URL") {
            url = u.trim().to_string();
        } else if let Some(u) = inner.strip_prefix("username") {
            accounts.push((u.trim().to_string(), String::new()));
        } else if let Some(p) = inner.strip_prefix("password") {
            accounts.last_mut().unwrap().1 = p.trim().to_string();
        }
    }
    (url, accounts)
}

#[test]
fn demo_accounts_are_printed_usable_and_renewed() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("demo");
    let opts = Opts {
        args: vec![
            "--demo".into(),
            "--data-dir".into(),
            data_dir.to_str().unwrap().into(),
        ],
        data_dir: Some(data_dir.clone()),
        ..Opts::default()
    };
    let mut server = start(opts.clone());
    let (url, accounts) = read_demo_box(&mut server);
    assert_eq!(url, format!("https://127.0.0.1:{}/", server.port));
    assert_eq!(accounts.len(), 2, "{accounts:?}");
    assert_eq!(accounts[0].0, "admin@demo.cxwatch");
    assert_eq!(accounts[1].0, "viewer@demo.cxwatch");
    assert!(accounts.iter().all(|(_, p)| p.len() >= 12), "{accounts:?}");
    let admin = signin_ok(&server, &accounts[0].0, &accounts[0].1, false);
    assert_eq!(admin["roles"], json!(["ROLE_ADMIN"]));
    assert_eq!(admin["accessType"], "read-write");
    let viewer = signin_ok(&server, &accounts[1].0, &accounts[1].1, false);
    assert_eq!(viewer["roles"], json!(["ROLE_USER"]));
    assert_eq!(viewer["accessType"], "read-only");
    let old_token = viewer["accessToken"].as_str().unwrap().to_string();
    server.kill();
    // No first-admin hint when accounts exist.
    let mut err = String::new();
    server
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("No users yet"), "{err}");

    // Same data directory: new passwords, the old ones and their sessions stop working.
    let mut server = start(opts);
    let (_, renewed) = read_demo_box(&mut server);
    assert_eq!(renewed.len(), 2);
    assert_ne!(renewed[0].1, accounts[0].1);
    assert_ne!(renewed[1].1, accounts[1].1);
    let (status, _) = signin(
        &server,
        json!({"username": accounts[0].0, "password": accounts[0].1}),
    );
    assert_eq!(status, 401);
    signin_ok(&server, &renewed[0].0, &renewed[0].1, false);
    signin_ok(&server, &renewed[1].0, &renewed[1].1, false);
    assert_denied_everywhere(&server, Some(&old_token), "token from before the reset");
}

#[test]
fn fresh_install_says_how_to_create_the_first_admin() {
    let mut server = start(Opts::default());
    server.kill();
    let mut err = String::new();
    server
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let config = config_path(&server.data_dir);
    let command = format!(
        "cxwatch --config {} user add --username admin@example.com --role admin --access read-write",
        config.display()
    );
    // Logged at warn with the command. Standard error is not a terminal here, so the banner
    // for people (a plain paragraph) is left out: every line off a terminal is the log's.
    assert!(
        err.lines()
            .any(|l| l.contains("WARN") && l.contains("no users yet") && l.contains(&command)),
        "no warn log in: {err}"
    );
    assert!(
        !err.contains("\nNo users yet."),
        "the terminal banner off a terminal: {err}"
    );

    // Following the hint works, and the next start says nothing.
    let (code, _, e) = run_cli(
        &[
            "--config",
            config.to_str().unwrap(),
            "user",
            "add",
            "--username",
            "admin@example.com",
            "--role",
            "admin",
            "--access",
            "read-write",
        ],
        "first admin password\n",
    );
    assert_eq!(code, 0, "{e}");
    let mut server = start(Opts {
        data_dir: Some(server.data_dir.clone()),
        ..Opts::default()
    });
    signin_ok(&server, "admin@example.com", "first admin password", false);
    server.kill();
    let mut err = String::new();
    server
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("No users yet"), "{err}");
}

#[test]
fn an_administrator_locked_out_lists_resets_and_removes_users_from_the_command_line() {
    let server = start(Opts::default());
    add_user(
        &server,
        "ada@example.com",
        "admin",
        "read-write",
        "Tangerine-Ledger-47x",
    );
    add_user(
        &server,
        "bob@example.com",
        "user",
        "read-only",
        "Quartz-Harbour-93k",
    );
    let ada = signin_ok(&server, "ada@example.com", "Tangerine-Ledger-47x", false);

    let (code, out, err) = cli(&server, &["user", "list"], "");
    assert_eq!(code, 0, "{err}");
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0][..4], ["id", "username", "role", "access"], "{out}");
    assert_eq!(
        rows[1][1..4],
        ["ada@example.com", "ROLE_ADMIN", "read-write"],
        "{out}"
    );
    assert_eq!(rows[1][6], "All", "{out}");
    assert_eq!(
        rows[2][1..4],
        ["bob@example.com", "ROLE_USER", "read-only"],
        "{out}"
    );
    assert_eq!(rows.len(), 3, "{out}");

    // A new password works, the old one no longer does, and open sessions end.
    let (code, _, err) = cli(
        &server,
        &["user", "passwd", "--username", "ada@example.com"],
        "Marmalade-Compass-58q\n",
    );
    assert_eq!(code, 0, "{err}");
    let token = ada["accessToken"].as_str().unwrap();
    assert_eq!(
        call(&server, "GET", "/api/trs/v1/groups", Some(token)).0,
        401
    );
    let (status, _) = signin(
        &server,
        json!({"username": "ada@example.com", "password": "Tangerine-Ledger-47x"}),
    );
    assert_eq!(status, 401);
    signin_ok(&server, "ada@example.com", "Marmalade-Compass-58q", false);
    let (code, _, err) = cli(
        &server,
        &["user", "passwd", "--username", "ada@example.com"],
        "short\n",
    );
    assert_ne!(code, 0);
    assert!(err.contains("password"), "{err}");

    // Removing: an unknown name is named; the last read-write administrator stays.
    let (code, _, err) = cli(
        &server,
        &["user", "remove", "--username", "nobody@example.com"],
        "",
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("there is no user named nobody@example.com"),
        "{err}"
    );
    let (code, _, err) = cli(
        &server,
        &["user", "remove", "--username", "ada@example.com"],
        "",
    );
    assert_ne!(code, 0, "the last read-write administrator was removed");
    assert!(err.contains("administrator"), "{err}");
    let (code, out, err) = cli(
        &server,
        &["user", "remove", "--username", "bob@example.com"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Removed user bob@example.com"), "{out}");
    let (_, out, _) = cli(&server, &["user", "list"], "");
    assert_eq!(out.lines().count(), 2, "{out}");
}

/// A sign-in from the local address `from` (any of 127.0.0.0/8 reaches the server):
/// (status, `Retry-After`, body).
fn signin_from(
    server: &Server,
    from: &str,
    username: &str,
    password: &str,
) -> (u16, String, Value) {
    signin_via(server, from, None, username, password)
}

/// As [`signin_from`], with an `X-Forwarded-For` header when `forwarded_for` is given.
fn signin_via(
    server: &Server,
    from: &str,
    forwarded_for: Option<&str>,
    username: &str,
    password: &str,
) -> (u16, String, Value) {
    let c = reqwest::blocking::Client::builder()
        .danger_accept_invalid_certs(true)
        .local_address(Some(from.parse().unwrap()))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let mut req = c
        .post(server.url("/api/auth/signin"))
        .json(&json!({"username": username, "password": password}));
    if let Some(xff) = forwarded_for {
        req = req.header("x-forwarded-for", xff);
    }
    let resp = req.send().unwrap();
    let status = resp.status().as_u16();
    let retry = resp
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, retry, resp.json().unwrap())
}

#[test]
fn guesses_from_one_address_neither_lock_the_user_out_elsewhere_nor_spray_freely() {
    let server = start(Opts::default());
    add_user(
        &server,
        "ops@x.test",
        "admin",
        "read-write",
        "the right password",
    );
    // Five wrong guesses from one address: that address waits, even with the right password.
    for i in 0..5 {
        let (status, _, body) = signin_from(&server, "127.0.0.3", "ops@x.test", "wrong");
        assert_eq!(status, 401, "guess {i}: {body}");
    }
    let (status, retry, body) =
        signin_from(&server, "127.0.0.3", "ops@x.test", "the right password");
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["code"], "TOO_MANY_REQUESTS");
    let wait: u64 = retry.parse().unwrap();
    assert!((1..=30).contains(&wait), "{retry}");
    assert_eq!(
        body["messages"][0],
        format!("Too many failed sign-in attempts; try again in {wait} seconds")
    );
    // The rightful user, from another address, signs in.
    let (status, _, body) = signin_from(&server, "127.0.0.4", "ops@x.test", "the right password");
    assert_eq!(status, 200, "{body}");

    // One address guessing twenty usernames once each is throttled, whoever it tries next.
    for i in 0..20 {
        let (status, _, body) =
            signin_from(&server, "127.0.0.5", &format!("user{i}@x.test"), "guess");
        assert_eq!(status, 401, "username {i}: {body}");
    }
    let (status, retry, body) =
        signin_from(&server, "127.0.0.5", "ops@x.test", "the right password");
    assert_eq!(status, 429, "{body}");
    let wait: u64 = retry.parse().unwrap();
    assert!((120..=180).contains(&wait), "{retry}");
    // Other addresses are not affected.
    let (status, _, body) = signin_from(&server, "127.0.0.6", "ops@x.test", "the right password");
    assert_eq!(status, 200, "{body}");
}

#[test]
fn behind_a_trusted_proxy_the_client_it_names_is_the_source() {
    let server = start(Opts {
        env: vec![(
            "CXWATCH_SERVER__TRUSTED_PROXIES".into(),
            "[\"127.0.0.7\"]".into(),
        )],
        ..Opts::default()
    });
    add_user(
        &server,
        "ops@x.test",
        "admin",
        "read-write",
        "the right password",
    );
    // Five wrong guesses by one client behind the proxy: that client waits...
    for i in 0..5 {
        let (status, _, body) = signin_via(
            &server,
            "127.0.0.7",
            Some("198.51.100.1"),
            "ops@x.test",
            "wrong",
        );
        assert_eq!(status, 401, "guess {i}: {body}");
    }
    let (status, _, body) = signin_via(
        &server,
        "127.0.0.7",
        Some("198.51.100.1"),
        "ops@x.test",
        "the right password",
    );
    assert_eq!(status, 429, "{body}");
    // ...and the rightful user behind the same proxy does not.
    let (status, _, body) = signin_via(
        &server,
        "127.0.0.7",
        Some("6.6.6.6, 198.51.100.2"),
        "ops@x.test",
        "the right password",
    );
    assert_eq!(status, 200, "{body}");

    // A peer that is not a trusted proxy is its own source, whatever it claims.
    for i in 0..5 {
        let forged = format!("198.51.100.{}", 10 + i);
        let (status, _, body) =
            signin_via(&server, "127.0.0.8", Some(&forged), "ops@x.test", "wrong");
        assert_eq!(status, 401, "guess {i}: {body}");
    }
    let (status, _, body) = signin_via(
        &server,
        "127.0.0.8",
        Some("198.51.100.99"),
        "ops@x.test",
        "the right password",
    );
    assert_eq!(status, 429, "a forged X-Forwarded-For was believed: {body}");
}

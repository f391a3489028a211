//! The accounts of `cxwatch serve --demo`: an administrator and a read-only user, with new
//! random passwords at every start, printed in a box on standard output.

use std::net::IpAddr;

use rand::seq::SliceRandom;

use crate::auth::password::hash_password;
use crate::auth::{Access, Role};
use crate::config::Config;
use crate::store::auth::{self as db, NewUser};
use crate::store::{now_secs, Store};

/// The demo administrator (ROLE_ADMIN, read-write).
pub const DEMO_ADMIN: &str = "admin@demo.cxwatch";
/// The demo viewer (ROLE_USER, read-only).
pub const DEMO_VIEWER: &str = "viewer@demo.cxwatch";

/// Length of a generated demo password.
const PASSWORD_LEN: usize = 16;
/// Letters and digits that cannot be mistaken for one another (no 0/O, 1/l/I).
const PASSWORD_ALPHABET: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";

struct DemoAccount {
    username: &'static str,
    first_name: &'static str,
    last_name: &'static str,
    role: Role,
    access: Access,
}

const ACCOUNTS: [DemoAccount; 2] = [
    DemoAccount {
        username: DEMO_ADMIN,
        first_name: "Demo",
        last_name: "Administrator",
        role: Role::Admin,
        access: Access::ReadWrite,
    },
    DemoAccount {
        username: DEMO_VIEWER,
        first_name: "Demo",
        last_name: "Viewer",
        role: Role::User,
        access: Access::ReadOnly,
    },
];

/// A random password from [`PASSWORD_ALPHABET`].
pub fn generate_password() -> String {
    let mut rng = rand::rngs::OsRng;
    (0..PASSWORD_LEN)
        .map(|_| char::from(*PASSWORD_ALPHABET.choose(&mut rng).unwrap_or(&b'x')))
        .collect()
}

/// Creates the demo accounts, or resets them (new password, role, access; their sessions
/// end) when the data directory already has them. Returns `(username, password)` pairs,
/// administrator first. Blocking (password hashing): call it off the async threads.
pub fn ensure_demo_accounts(store: &Store) -> anyhow::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for account in &ACCOUNTS {
        let password = generate_password();
        let hash = hash_password(&password)?;
        let roles = account.role.roles();
        let access = account.access.as_str();
        store.write_blocking(|tx| {
            match db::user_by_username(tx, account.username)? {
                Some(existing) => {
                    db::reset_user(tx, existing.id, &hash, &roles, access)?;
                    db::delete_user_tokens(tx, existing.id)?;
                }
                None => {
                    db::create_user(
                        tx,
                        &NewUser {
                            username: account.username,
                            first_name: account.first_name,
                            last_name: account.last_name,
                            password_hash: &hash,
                            roles: &roles,
                            access_type: access,
                        },
                        now_secs(),
                    )?;
                }
            }
            Ok(())
        })?;
        out.push((account.username.to_string(), password));
    }
    tracing::info!(accounts = out.len(), "demo accounts ready");
    Ok(out)
}

/// The address to open the console at, from the listen address and host names.
pub fn console_url(config: &Config) -> String {
    let scheme = if config.server.plain_http {
        "http"
    } else {
        "https"
    };
    let listen = config.server.listen;
    let host = match listen.ip() {
        ip if ip.is_unspecified() => config
            .server
            .hostnames
            .first()
            .cloned()
            .unwrap_or_else(|| "localhost".into()),
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    };
    format!("{scheme}://{host}:{}/", listen.port())
}

/// The credentials box printed at start-up.
pub fn credentials_box(url: &str, accounts: &[(String, String)]) -> String {
    let mut lines = vec![
        "cxwatch demo".to_string(),
        String::new(),
        format!("URL       {url}"),
    ];
    for (username, password) in accounts {
        let label = match username.as_str() {
            DEMO_ADMIN => "Administrator (read-write)",
            DEMO_VIEWER => "Viewer (read-only)",
            _ => "Account",
        };
        lines.push(String::new());
        lines.push(label.to_string());
        lines.push(format!("username  {username}"));
        lines.push(format!("password  {password}"));
    }
    lines.push(String::new());
    lines.push("Passwords are new at every start.".to_string());
    let width = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let rule = format!("+{}+", "-".repeat(width + 2));
    let mut out = String::new();
    out.push_str(&rule);
    out.push('\n');
    for l in &lines {
        let pad = width - l.chars().count();
        out.push_str(&format!("| {l}{} |\n", " ".repeat(pad)));
    }
    out.push_str(&rule);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::password::verify_password;

    #[test]
    fn passwords_are_random_and_unambiguous() {
        let a = generate_password();
        assert_eq!(a.len(), PASSWORD_LEN);
        assert_ne!(a, generate_password());
        assert!(!a.contains(['0', 'O', '1', 'l', 'I']));
        assert!(crate::auth::password::check_new_password(&a).is_ok());
    }

    #[test]
    fn accounts_are_created_then_reset() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let first = ensure_demo_accounts(&store).unwrap();
        assert_eq!(first[0].0, DEMO_ADMIN);
        assert_eq!(first[1].0, DEMO_VIEWER);
        let admin = store
            .read_blocking(|c| db::user_by_username(c, DEMO_ADMIN))
            .unwrap()
            .unwrap();
        assert_eq!(admin.roles, vec!["ROLE_ADMIN"]);
        assert_eq!(admin.access_type, "read-write");
        assert!(verify_password(&first[0].1, &admin.password_hash));
        let viewer = store
            .read_blocking(|c| db::user_by_username(c, DEMO_VIEWER))
            .unwrap()
            .unwrap();
        assert_eq!(viewer.roles, vec!["ROLE_USER"]);
        assert_eq!(viewer.access_type, "read-only");

        // A session of the old password ends with the reset.
        let token = store
            .write_blocking(|tx| {
                db::create_token(tx, viewer.id, false, now_secs(), now_secs() + 60)
            })
            .unwrap();
        let second = ensure_demo_accounts(&store).unwrap();
        assert_ne!(first[1].1, second[1].1);
        let viewer2 = store
            .read_blocking(|c| db::user_by_username(c, DEMO_VIEWER))
            .unwrap()
            .unwrap();
        assert_eq!(viewer2.id, viewer.id);
        assert!(verify_password(&second[1].1, &viewer2.password_hash));
        assert!(!verify_password(&first[1].1, &viewer2.password_hash));
        assert!(store
            .read_blocking(|c| db::session_for_token(c, &token, now_secs()))
            .unwrap()
            .is_none());
        assert_eq!(store.read_blocking(db::user_count).unwrap(), 2);
    }

    #[test]
    fn box_lists_url_and_credentials() {
        let b = credentials_box(
            "https://localhost:8443/",
            &[
                (DEMO_ADMIN.into(), "pw-admin".into()),
                (DEMO_VIEWER.into(), "pw-viewer".into()),
            ],
        );
        assert!(b.contains("URL       https://localhost:8443/"));
        assert!(b.contains("username  admin@demo.cxwatch"));
        assert!(b.contains("password  pw-viewer"));
        let widths: Vec<_> = b.lines().map(|l| l.chars().count()).collect();
        assert!(widths.iter().all(|w| *w == widths[0]), "{b}");
    }

    #[test]
    fn url_from_listen_address() {
        let mut c = Config::default();
        assert_eq!(console_url(&c), "https://localhost:8443/");
        c.server.listen = "127.0.0.1:9000".parse().unwrap();
        c.server.plain_http = true;
        assert_eq!(console_url(&c), "http://127.0.0.1:9000/");
        c.server.listen = "[::1]:9000".parse().unwrap();
        assert_eq!(console_url(&c), "http://[::1]:9000/");
    }
}

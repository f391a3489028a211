//! The accounts of `cxwatch serve --demo`: an administrator and a read-only user, with new
//! random passwords at every start, printed in a box on standard output.

use std::net::IpAddr;

use rand::seq::SliceRandom;

use crate::auth::password::hash_password;
use crate::config::Config;
use crate::domain::caller::{AccessType, Role, Scope};
use crate::domain::user::UserDraft;
use crate::store::Store;

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
    access: AccessType,
}

const ACCOUNTS: [DemoAccount; 2] = [
    DemoAccount {
        username: DEMO_ADMIN,
        first_name: "Demo",
        last_name: "Administrator",
        role: Role::Admin,
        access: AccessType::ReadWrite,
    },
    DemoAccount {
        username: DEMO_VIEWER,
        first_name: "Demo",
        last_name: "Viewer",
        role: Role::User,
        access: AccessType::ReadOnly,
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
        let existing = Store::block_on(store.user_by_username(account.username))?;
        let draft = UserDraft {
            username: account.username.to_string(),
            first_name: account.first_name.to_string(),
            last_name: account.last_name.to_string(),
            role: account.role,
            access: account.access,
            group_ids: existing
                .iter()
                .flat_map(|u| u.groups.iter().map(|g| g.id))
                .collect(),
        };
        match existing {
            Some(u) => {
                Store::block_on(store.update_user(u.id, &draft))?;
                Store::block_on(store.set_password(u.id, &hash))?;
            }
            None => {
                Store::block_on(store.create_user(&draft, &hash))?;
            }
        }
        out.push((account.username.to_string(), password));
    }
    tracing::info!(accounts = out.len(), "demo accounts ready");
    Ok(out)
}

/// A member of the demo site's team beyond the two printed accounts.
pub struct TeamMember {
    pub first_name: &'static str,
    pub last_name: &'static str,
    pub username: &'static str,
    pub role: Role,
    pub access: AccessType,
    /// Groups (by the start of their name) a ROLE_USER is assigned.
    pub groups: &'static [&'static str],
}

const fn member(
    first_name: &'static str,
    last_name: &'static str,
    username: &'static str,
    role: Role,
    access: AccessType,
    groups: &'static [&'static str],
) -> TeamMember {
    TeamMember {
        first_name,
        last_name,
        username,
        role,
        access,
        groups,
    }
}

/// The rest of the demo site's team: administrators and users of both access types. Their
/// passwords are random and never shown.
pub const DEMO_TEAM: [TeamMember; 10] = [
    member(
        "Amélie",
        "Tremblay",
        "amelie.tremblay@demo.cxwatch",
        Role::Admin,
        AccessType::ReadWrite,
        &[],
    ),
    member(
        "Marcus",
        "Okafor",
        "marcus.okafor@demo.cxwatch",
        Role::Admin,
        AccessType::ReadWrite,
        &[],
    ),
    member(
        "Priya",
        "Raman",
        "priya.raman@demo.cxwatch",
        Role::Admin,
        AccessType::ReadOnly,
        &[],
    ),
    member(
        "Jean-François",
        "Gagnon",
        "jf.gagnon@demo.cxwatch",
        Role::Admin,
        AccessType::ReadOnly,
        &[],
    ),
    member(
        "Sofia",
        "Lindqvist",
        "sofia.lindqvist@demo.cxwatch",
        Role::User,
        AccessType::ReadWrite,
        &["Banking", "Cards"],
    ),
    member(
        "Kwame",
        "Mensah",
        "kwame.mensah@demo.cxwatch",
        Role::User,
        AccessType::ReadWrite,
        &["Claims"],
    ),
    member(
        "Chloé",
        "Bouchard",
        "chloe.bouchard@demo.cxwatch",
        Role::User,
        AccessType::ReadOnly,
        &["Chat - Support", "Chat - Sales"],
    ),
    member(
        "Daniel",
        "Kowalski",
        "daniel.kowalski@demo.cxwatch",
        Role::User,
        AccessType::ReadOnly,
        &["Banking", "After Hours"],
    ),
    member(
        "Hana",
        "Sato",
        "hana.sato@demo.cxwatch",
        Role::User,
        AccessType::ReadWrite,
        &["Cards", "Chat - Support"],
    ),
    member(
        "Olivier",
        "Nadeau",
        "olivier.nadeau@demo.cxwatch",
        Role::User,
        AccessType::ReadOnly,
        &["After Hours"],
    ),
];

/// Creates the members of [`DEMO_TEAM`] that are missing, once the demo groups exist.
pub async fn ensure_demo_team(store: &Store) -> anyhow::Result<()> {
    let groups = store.list_groups(Scope::All).await?;
    for m in &DEMO_TEAM {
        if store.user_by_username(m.username).await?.is_some() {
            continue;
        }
        let group_ids = groups
            .iter()
            .filter(|g| m.groups.iter().any(|n| g.name.starts_with(n)))
            .map(|g| g.id)
            .collect();
        let draft = UserDraft {
            username: m.username.into(),
            first_name: m.first_name.into(),
            last_name: m.last_name.into(),
            role: m.role,
            access: m.access,
            group_ids,
        };
        let hash = tokio::task::spawn_blocking(|| hash_password(&generate_password())).await??;
        store.create_user(&draft, &hash).await?;
    }
    Ok(())
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
        assert!(crate::domain::user::check_password("password", &a, &[]).is_ok());
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn accounts_are_created_then_reset() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
        let first = ensure_demo_accounts(&store).unwrap();
        assert_eq!(first[0].0, DEMO_ADMIN);
        assert_eq!(first[1].0, DEMO_VIEWER);
        let admin = store.credentials(DEMO_ADMIN).await.unwrap().unwrap();
        assert_eq!(admin.user.roles, vec!["ROLE_ADMIN"]);
        assert_eq!(admin.user.access, AccessType::ReadWrite);
        assert!(verify_password(&first[0].1, &admin.password_hash));
        let viewer = store.credentials(DEMO_VIEWER).await.unwrap().unwrap();
        assert_eq!(viewer.user.roles, vec!["ROLE_USER"]);
        assert_eq!(viewer.user.access, AccessType::ReadOnly);

        // A session of the old password ends with the reset.
        let now = crate::store::now_secs();
        let token = store
            .start_session(viewer.user.id, false, now, now + 60)
            .await
            .unwrap();
        let second = ensure_demo_accounts(&store).unwrap();
        assert_ne!(first[1].1, second[1].1);
        let viewer2 = store.credentials(DEMO_VIEWER).await.unwrap().unwrap();
        assert_eq!(viewer2.user.id, viewer.user.id);
        assert!(verify_password(&second[1].1, &viewer2.password_hash));
        assert!(!verify_password(&first[1].1, &viewer2.password_hash));
        assert!(store.caller_for_token(&token, now).await.unwrap().is_none());
        assert_eq!(store.user_count().await.unwrap(), 2);
        ensure_demo_team(&store).await.unwrap();
        ensure_demo_team(&store).await.unwrap();
        assert_eq!(store.user_count().await.unwrap(), 12);
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

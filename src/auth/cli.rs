//! `cxwatch user ...`: console users of the embedded store, from the command line, and the
//! start-up hint that tells a fresh install how to create its first administrator.

use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};

use super::password::hash_password;
use crate::config::{ApiMode, Config};
use crate::domain::caller::{AccessType, Role};
use crate::domain::page::{PageRequest, Sort};
use crate::domain::rules::check_email;
use crate::domain::user::{
    check_password, personal_words, User, UserDraft, UserFilter, UserSortField,
};
use crate::store::auth::ONE_TIME_ID_TTL_SECS;
use crate::store::{now_secs, Store};

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create a console user. The password is the first line of standard input (or of
    /// --password-file), never an argument: 12 to 128 characters, not a common password, a
    /// pattern or the user's own name.
    Add(AddArgs),
    /// Print a one-time sign-in address (/callback?id=...) for a user: it works once,
    /// within two minutes, on the console's own address.
    LoginLink(LoginLinkArgs),
    /// List the console users (tab-separated: id, username, role, access, first name, last
    /// name, groups).
    List,
    /// Remove a user; their sessions end. The last read-write administrator cannot be removed.
    Remove(UsernameArg),
    /// Set a user's password (read as for `add`); their sessions end. For an administrator
    /// locked out of the console.
    Passwd(PasswdArgs),
}

#[derive(Args, Debug)]
pub struct UsernameArg {
    /// The user's username (e-mail address).
    #[arg(long)]
    pub username: String,
}

#[derive(Args, Debug)]
pub struct PasswdArgs {
    /// The user's username (e-mail address).
    #[arg(long)]
    pub username: String,
    /// Read the password from the first line of this file instead of standard input.
    #[arg(long, value_name = "PATH")]
    pub password_file: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct AddArgs {
    /// The user's e-mail address, used to sign in.
    #[arg(long)]
    pub username: String,
    /// `admin` (ROLE_ADMIN: all groups, settings, users) or `user` (ROLE_USER: assigned
    /// groups only).
    #[arg(long, value_enum)]
    pub role: RoleArg,
    /// `read-write` or `read-only`.
    #[arg(long, value_enum)]
    pub access: AccessArg,
    #[arg(long, default_value = "")]
    pub first_name: String,
    #[arg(long, default_value = "")]
    pub last_name: String,
    /// Read the password from the first line of this file instead of standard input.
    #[arg(long, value_name = "PATH")]
    pub password_file: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct LoginLinkArgs {
    /// The user to sign in as.
    #[arg(long)]
    pub username: String,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleArg {
    Admin,
    User,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessArg {
    ReadWrite,
    ReadOnly,
}

impl From<RoleArg> for Role {
    fn from(r: RoleArg) -> Role {
        match r {
            RoleArg::Admin => Role::Admin,
            RoleArg::User => Role::User,
        }
    }
}

impl From<AccessArg> for AccessType {
    fn from(a: AccessArg) -> AccessType {
        match a {
            AccessArg::ReadWrite => AccessType::ReadWrite,
            AccessArg::ReadOnly => AccessType::ReadOnly,
        }
    }
}

/// Runs a `cxwatch user` command.
pub fn run(config: &Config, cmd: UserCommand) -> anyhow::Result<ExitCode> {
    if config.api.mode != ApiMode::Embedded {
        bail!(
            "users live in the upstream service in proxy mode; `cxwatch user` needs api.mode = \"embedded\""
        );
    }
    // Only `add` may make the database (a new site's first administrator); the others
    // need its users, and must not leave an empty database behind a mistyped --data-dir.
    let store = match cmd {
        UserCommand::Add(_) => Store::open_config(config),
        _ => Store::open_config_existing(config),
    }
    .with_context(|| format!("cannot open the store in {}", config.data_dir.display()))?;
    match cmd {
        UserCommand::Add(args) => add(&store, args, &config.password_words()),
        UserCommand::LoginLink(args) => login_link(&store, &args.username),
        UserCommand::List => list(&store),
        UserCommand::Remove(args) => remove(&store, &args.username),
        UserCommand::Passwd(args) => passwd(&store, args, &config.password_words()),
    }
}

/// The user named `username`, or an error saying there is none.
fn named(store: &Store, username: &str) -> anyhow::Result<User> {
    let username = username.trim();
    Store::block_on(store.user_by_username(username))?
        .ok_or_else(|| anyhow::anyhow!("there is no user named {username}"))
}

fn list(store: &Store) -> anyhow::Result<ExitCode> {
    let filter = UserFilter {
        search: None,
        role: None,
        sort: Sort {
            field: UserSortField::Id,
            descending: false,
        },
    };
    let mut no = 0;
    println!("id\tusername\trole\taccess\tfirst name\tlast name\tgroups");
    loop {
        let page = Store::block_on(store.list_users(PageRequest { no, size: 100 }, &filter))?;
        for u in &page.items {
            let groups = if u.roles.iter().any(|r| r == Role::Admin.as_str()) {
                "All".to_string()
            } else {
                u.groups
                    .iter()
                    .map(|g| g.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            println!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                u.id,
                u.username,
                u.roles.join(","),
                u.access.as_str(),
                u.first_name,
                u.last_name,
                groups
            );
        }
        no += 1;
        if page.items.len() < 100 || u64::from(no) * 100 >= page.total {
            return Ok(ExitCode::SUCCESS);
        }
    }
}

fn remove(store: &Store, username: &str) -> anyhow::Result<ExitCode> {
    let user = named(store, username)?;
    Store::block_on_cli(store.delete_user(user.id))?;
    tracing::info!(username = %user.username, id = user.id, "user removed");
    println!("Removed user {} (id {}).", user.username, user.id);
    Ok(ExitCode::SUCCESS)
}

fn passwd(store: &Store, args: PasswdArgs, site: &[String]) -> anyhow::Result<ExitCode> {
    let user = named(store, &args.username)?;
    let password = read_password(args.password_file.as_deref())?;
    let mut personal = personal_words(&user.username, &[&user.first_name, &user.last_name]);
    personal.extend(site.iter().map(String::as_str));
    check_password("the password", &password, &personal).map_err(|e| anyhow::anyhow!(e.message))?;
    let hash = hash_password(&password)?;
    Store::block_on_cli(store.set_password(user.id, &hash))?;
    tracing::info!(username = %user.username, id = user.id, "password set");
    println!("Set the password of {} (id {}).", user.username, user.id);
    Ok(ExitCode::SUCCESS)
}

fn add(store: &Store, args: AddArgs, site: &[String]) -> anyhow::Result<ExitCode> {
    let username =
        check_email("username", &args.username).map_err(|e| anyhow::anyhow!(e.message))?;
    if let Some(existing) = Store::block_on(store.user_by_username(&username))? {
        bail!("a user named {} already exists", existing.username);
    }
    let password = read_password(args.password_file.as_deref())?;
    let mut personal = personal_words(&username, &[&args.first_name, &args.last_name]);
    personal.extend(site.iter().map(String::as_str));
    check_password("the password", &password, &personal).map_err(|e| anyhow::anyhow!(e.message))?;
    let hash = hash_password(&password)?;
    let draft = UserDraft {
        username: username.clone(),
        first_name: args.first_name.trim().to_string(),
        last_name: args.last_name.trim().to_string(),
        role: Role::from(args.role),
        access: AccessType::from(args.access),
        group_ids: Vec::new(),
    };
    let id = Store::block_on_cli(store.create_user(&draft, &hash))?;
    let (role, access) = (draft.role.as_str(), draft.access.as_str());
    tracing::info!(%username, id, role, access, "user created");
    println!("Created user {username} (id {id}, {role}, {access}).");
    Ok(ExitCode::SUCCESS)
}

fn login_link(store: &Store, username: &str) -> anyhow::Result<ExitCode> {
    let user = named(store, username)?;
    let id = Store::block_on_cli(store.create_one_time_id(user.id, now_secs()))?;
    println!("/callback?id={id}");
    eprintln!(
        "Open this path on the console's address within {ONE_TIME_ID_TTL_SECS} seconds; it works once."
    );
    Ok(ExitCode::SUCCESS)
}

/// The password: the first line of `file`, or of standard input (asked for twice, without
/// echo, when standard input is a terminal).
fn read_password(file: Option<&Path>) -> anyhow::Result<String> {
    let line = match file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the password file {}", path.display()))?;
            first_line(&text)
        }
        None if std::io::stdin().is_terminal() => {
            let first = rpassword::prompt_password("Password: ")?;
            let again = rpassword::prompt_password("Password again: ")?;
            if first != again {
                bail!("the two passwords differ; no user was created");
            }
            first
        }
        None => {
            let mut text = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut text)
                .context("cannot read the password from standard input")?;
            first_line(&text)
        }
    };
    if line.is_empty() {
        bail!(
            "no password given: put it on the first line of standard input or of --password-file"
        );
    }
    Ok(line)
}

/// The first line without its line ending (nothing else is trimmed).
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

/// The command that creates the first administrator, with the options this server runs
/// with (`--config`, `--data-dir`) so it reaches the same store.
pub fn first_admin_command(config_path: Option<&Path>, data_dir: Option<&Path>) -> String {
    let mut cmd = String::from("cxwatch");
    if let Some(p) = config_path {
        cmd.push_str(&format!(
            " --config {}",
            shell_quote(&p.display().to_string())
        ));
    }
    if let Some(d) = data_dir {
        cmd.push_str(&format!(
            " --data-dir {}",
            shell_quote(&d.display().to_string())
        ));
    }
    cmd.push_str(" user add --username admin@example.com --role admin --access read-write");
    cmd
}

/// Quotes a path for a POSIX shell when it needs it.
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// On a store without users: logs (warn) and prints to standard error how to create the
/// first administrator. Returns whether it did.
pub fn hint_first_admin(
    store: &Store,
    config_path: Option<&Path>,
    data_dir: Option<&Path>,
) -> anyhow::Result<bool> {
    if Store::block_on(store.user_count())? > 0 {
        return Ok(false);
    }
    let command = first_admin_command(config_path, data_dir);
    tracing::warn!(
        %command,
        "no users yet: create the first administrator (password on standard input)"
    );
    // Off a terminal the log line above says it all: every line written is JSON there.
    if std::io::stderr().is_terminal() {
        eprintln!(
            "\nNo users yet. Create the first administrator with (the password is read from standard input):\n\n    {command}\n"
        );
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_line_keeps_spaces_drops_line_end() {
        assert_eq!(first_line(" pass word \r\nsecond"), " pass word ");
        assert_eq!(first_line("pw\n"), "pw");
        assert_eq!(first_line(""), "");
    }

    #[test]
    fn first_admin_command_names_the_config() {
        assert_eq!(
            first_admin_command(Some(Path::new("/etc/cxwatch/config.toml")), None),
            "cxwatch --config /etc/cxwatch/config.toml user add --username admin@example.com --role admin --access read-write"
        );
        assert_eq!(
            first_admin_command(None, Some(Path::new("/srv/my data"))),
            "cxwatch --data-dir '/srv/my data' user add --username admin@example.com --role admin --access read-write"
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn hint_only_without_users() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
        assert!(hint_first_admin(&store, None, None).unwrap());
        let draft = UserDraft {
            username: "a@b.test".into(),
            first_name: String::new(),
            last_name: String::new(),
            role: Role::Admin,
            access: AccessType::ReadWrite,
            group_ids: vec![],
        };
        Store::block_on(store.create_user(&draft, "h")).unwrap();
        assert!(!hint_first_admin(&store, None, None).unwrap());
    }
}

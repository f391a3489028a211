//! Command line: parse, load config, hand over.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

use crate::config::{ApiMode, Config, LogFormat, Overrides};

mod man;
use crate::store::Store;

#[derive(Parser, Debug)]
#[command(
    name = "cxwatch",
    version,
    about = "Console for watching automated contact-centre test calls"
)]
pub struct Cli {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Options every subcommand takes.
#[derive(Args, Debug, Clone, Default)]
pub struct Common {
    /// Config file (default: /etc/cxwatch/config.toml when it exists).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Data directory (database, certificate, recordings); overrides `data_dir`.
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the console (the default).
    Serve(ServeArgs),
    /// Call /healthz of the running server (address from the config); exit 0 when it
    /// answers, 1 otherwise. For systemd and container health checks.
    Healthcheck(HealthcheckArgs),
    /// Manage console users (embedded mode).
    #[command(subcommand)]
    User(crate::auth::cli::UserCommand),
    /// Manage the API keys test engines use for /api/ingest/v1.
    #[command(subcommand)]
    Apikey(ApikeyCommand),
    /// Copy the database into FILE while the server runs (VACUUM INTO), check the copy,
    /// print its size and how long it took. Recordings are files: see
    /// /usr/share/doc/cxwatch/backup.md.
    Backup {
        /// The file to write; it must not exist.
        #[arg(long, value_name = "FILE")]
        to: PathBuf,
    },
    /// Put a backup in place of the database. Refused while a server runs on the data
    /// directory; the database in place before is kept beside it.
    Restore {
        /// The backup file to restore.
        #[arg(long, value_name = "FILE")]
        from: PathBuf,
    },
    /// The store itself: move a site from SQLite to PostgreSQL.
    #[command(subcommand)]
    Store(StoreCommand),
    /// Print the audit log, newest first (tab-separated: time, user, address, kind,
    /// action, target, before, after).
    Audit {
        /// Only changes by this user id.
        #[arg(long)]
        user: Option<i64>,
        /// Only this kind: user, group, api_key, session, …
        #[arg(long)]
        kind: Option<String>,
        /// Only from this time on (RFC 3339).
        #[arg(long)]
        since: Option<String>,
        /// At most this many records.
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Print the OpenAPI document of the embedded API (what /api/openapi.json serves) and
    /// exit; the UI's types are generated from it.
    Openapi,
    /// The configuration: check it as `serve` would read it.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Print the shell completion script for SHELL (the Debian package installs bash, zsh
    /// and fish ones).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the man pages (roff) into DIR, made from these same definitions: cxwatch.1 and
    /// one cxwatch-<subcommand>.1 per subcommand (scripts/package-assets.sh).
    #[command(hide = true)]
    Manpage {
        #[arg(long, value_name = "DIR")]
        out_dir: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
pub enum ConfigCommand {
    /// Load the configuration as `serve` does (defaults, the file, CXWATCH_* variables, the
    /// command line), print the result as TOML with secrets masked, and exit 0; exit 78
    /// (EX_CONFIG) with the reason when it is not valid. Like `nginx -t`.
    Check,
}

/// The exit status of a configuration error (sysexits.h's EX_CONFIG). The systemd unit does
/// not restart on it (`RestartPreventExitStatus=78`): a typo is not fixed by restarting.
pub const EX_CONFIG: u8 = 78;

#[derive(Subcommand, Debug)]
pub enum StoreCommand {
    /// Copy a site's SQLite database (and its recordings) into a PostgreSQL database, in
    /// chunks that are each committed: an interrupted copy resumes where it stopped when run
    /// again. The counts of every table are compared at the end
    /// (/usr/share/doc/cxwatch/postgres.md).
    Copy(CopyArgs),
}

#[derive(Args, Debug, Clone)]
pub struct CopyArgs {
    /// The SQLite database (cxwatch.db, the recordings directory beside it), or the data
    /// directory holding it [default: the data directory's].
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// The PostgreSQL database: postgres://user@host:5432/db (?sslmode=require for TLS), a
    /// new, empty one; its schema is created first [default: store.url].
    #[arg(long, value_name = "URL")]
    pub to: Option<String>,
    /// File holding the PostgreSQL password [default: store.password, e.g. from
    /// CXWATCH_STORE__PASSWORD_FILE or store.password_file].
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// PEM file of the CA that signed the PostgreSQL server's certificate [default:
    /// store.ca_file].
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// Rows per transaction.
    #[arg(long, value_name = "N", default_value_t = crate::store::copy::CHUNK_ROWS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk_rows: u64,
}

#[derive(Subcommand, Debug)]
pub enum ApikeyCommand {
    /// Make a key and print it (only its hash is kept: it cannot be shown again).
    Add {
        /// A name for the key, e.g. the engine that uses it.
        #[arg(long)]
        name: String,
    },
    /// List the keys' names, creation times and last uses (`never` when none; written at
    /// most once a minute per key).
    List,
    /// Remove a key: engines using it are refused from then on.
    Remove {
        #[arg(long)]
        name: String,
    },
}

#[derive(Args, Debug, Clone, Default)]
pub struct HealthcheckArgs {
    /// Address and port of the server; overrides `server.listen`.
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<SocketAddr>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct ServeArgs {
    /// Address and port to listen on; overrides `server.listen`.
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<SocketAddr>,
    /// Run a demo site: a throw-away data directory (unless --data-dir is given),
    /// demo accounts and demo data.
    #[arg(long)]
    pub demo: bool,
    /// Seed of the demo data (with --demo): the same seed gives the same history.
    #[arg(long, value_name = "N", requires = "demo")]
    pub demo_seed: Option<u64>,
    /// Days of demo history to load (with --demo): 1 to 30, default 30. A shorter history
    /// loads sooner (tests, a quick look).
    #[arg(long, value_name = "DAYS", requires = "demo", value_parser = clap::value_parser!(i64).range(1..=30))]
    pub demo_days: Option<i64>,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            fatal(&format!("{e:#}"));
            if e.downcast_ref::<crate::config::ConfigError>().is_some() {
                ExitCode::from(EX_CONFIG)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// Writes the error that ends the process: through the log when it is set up (so in its
/// format), else as one JSON object like the log's when standard error is not a terminal
/// (log shippers read every line as JSON), else as a plain line.
fn fatal(message: &str) {
    use std::io::IsTerminal;
    if tracing::dispatcher::has_been_set() {
        tracing::error!("{message}");
    } else if std::io::stderr().is_terminal() {
        eprintln!("cxwatch: {message}");
    } else {
        eprintln!("{}", fatal_json(message, chrono::Utc::now()));
    }
}

/// A fatal error as the JSON log writes a line: timestamp, level, fields.message, target.
fn fatal_json(message: &str, now: chrono::DateTime<chrono::Utc>) -> String {
    serde_json::json!({
        "timestamp": now.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        "level": "ERROR",
        "fields": { "message": message },
        "target": "cxwatch",
    })
    .to_string()
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Some(Command::Openapi) => {
            println!("{}", crate::api::openapi_json());
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Completions { shell }) => {
            use clap::CommandFactory;
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "cxwatch",
                &mut std::io::stdout(),
            );
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Manpage { out_dir }) => {
            for page in man::write_all(&out_dir)? {
                println!("{}", page.display());
            }
            return Ok(ExitCode::SUCCESS);
        }
        _ => {}
    }
    let serve_args = match &cli.command {
        Some(Command::Serve(a)) => a.clone(),
        _ => ServeArgs::default(),
    };
    let listen = match &cli.command {
        Some(Command::Healthcheck(a)) => a.listen,
        _ => serve_args.listen,
    };
    let overrides = Overrides {
        config: cli.common.config.clone(),
        data_dir: cli.common.data_dir.clone(),
        listen,
    };
    if let Some(Command::Config(ConfigCommand::Check)) = cli.command {
        let config = Config::load(&overrides)?;
        if let Some(tls) = crate::server::tls::configured(&config) {
            tls?;
        }
        print!("{}", config.masked_toml()?);
        return Ok(ExitCode::SUCCESS);
    }
    let config = Config::load(&overrides)?;
    crate::clock::pin(config.clock_start());
    init_logging(&config);
    crate::server::tls::install_crypto_provider();
    let runtime = tokio::runtime::Runtime::new()?;
    match cli.command {
        None | Some(Command::Serve(_)) => runtime.block_on(serve(config, serve_args, &cli.common)),
        Some(Command::Healthcheck(_)) => runtime.block_on(healthcheck(&config)),
        Some(Command::User(cmd)) => crate::auth::cli::run(&config, cmd),
        Some(Command::Apikey(cmd)) => apikey(&config, cmd),
        Some(Command::Backup { to }) => backup(&config, &to),
        Some(Command::Audit {
            user,
            kind,
            since,
            limit,
        }) => audit(&config, user, kind, since, limit),
        Some(Command::Restore { from }) => restore(&config, &from),
        Some(Command::Store(StoreCommand::Copy(args))) => {
            runtime.block_on(store_copy(&config, args))
        }
        Some(Command::Openapi)
        | Some(Command::Config(_))
        | Some(Command::Completions { .. })
        | Some(Command::Manpage { .. }) => Ok(ExitCode::SUCCESS),
    }
}

async fn serve(mut config: Config, args: ServeArgs, common: &Common) -> anyhow::Result<ExitCode> {
    // Bind first: a busy port fails at once, before demo data is made or passwords printed.
    let listener = crate::server::bind(&config).await?;
    let _demo_dir;
    if args.demo && common.data_dir.is_none() {
        let dir = tempfile_dir()?;
        config.data_dir = dir.clone();
        _demo_dir = TempDir(dir);
    }
    // Held while serving: `cxwatch restore` is refused while it is.
    let mut _data_lock = None;
    let store = match config.api.mode {
        ApiMode::Embedded => {
            let store = Store::connect(&config.store, &config.data_dir).await?;
            if !config.store.is_postgres() {
                _data_lock = Some(crate::store::sqlite::backup::DataDirLock::shared(
                    &config.data_dir,
                )?);
            }
            Some(store)
        }
        ApiMode::Proxy => None,
    };
    if args.demo && store.is_none() {
        anyhow::bail!("--demo needs api.mode = \"embedded\"");
    }
    if let Some(store) = &store {
        if args.demo {
            let s = store.clone();
            let accounts =
                tokio::task::spawn_blocking(move || crate::demo_accounts::ensure_demo_accounts(&s))
                    .await??;
            let url = crate::demo_accounts::console_url(&config);
            print!("{}", crate::demo_accounts::credentials_box(&url, &accounts));
            crate::demo::start(store, &config, args.demo_seed, args.demo_days).await?;
        }
        let config_path = common.config.clone().or_else(|| {
            Some(PathBuf::from(crate::config::DEFAULT_CONFIG_PATH)).filter(|p| p.exists())
        });
        crate::auth::cli::hint_first_admin(
            store,
            config_path.as_deref(),
            common.data_dir.as_deref(),
        )?;
    }
    crate::server::serve(
        Arc::new(config),
        crate::server::ServeOptions {
            store,
            listener: Some(listener),
        },
    )
    .await?;
    Ok(ExitCode::SUCCESS)
}

async fn healthcheck(config: &Config) -> anyhow::Result<ExitCode> {
    let scheme = if config.server.plain_http {
        "http"
    } else {
        "https"
    };
    let mut addr = config.server.listen;
    if addr.ip().is_unspecified() {
        match addr {
            SocketAddr::V4(_) => addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into()),
            SocketAddr::V6(_) => addr.set_ip(std::net::Ipv6Addr::LOCALHOST.into()),
        }
    }
    let url = format!("{scheme}://{addr}/healthz");
    // A liveness probe of the local server, whose certificate may be self-signed.
    let client = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .no_proxy()
        .timeout(std::time::Duration::from_secs(5))
        .build()?;
    match client.get(&url).send().await {
        Ok(resp) if resp.status().is_success() => {
            println!("ok");
            Ok(ExitCode::SUCCESS)
        }
        Ok(resp) => {
            eprintln!("cxwatch healthcheck: {url} answered {}", resp.status());
            Ok(ExitCode::FAILURE)
        }
        Err(e) => {
            eprintln!("cxwatch healthcheck: {url} did not answer: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

fn apikey(config: &Config, cmd: ApikeyCommand) -> anyhow::Result<ExitCode> {
    // Only `add` may make the database; listing or removing keys of a database that is not
    // there (a mistyped --data-dir) must not leave an empty one behind.
    let store = match cmd {
        ApikeyCommand::Add { .. } => Store::open_config(config)?,
        _ => Store::open_config_existing(config)?,
    };
    match cmd {
        ApikeyCommand::Add { name } => {
            let key = Store::block_on_cli(store.add_api_key(&name))?;
            println!("{key}");
            eprintln!("API key {name:?} created. Keep it now: it cannot be shown again.");
        }
        ApikeyCommand::List => {
            for k in Store::block_on(store.api_keys())? {
                let when = chrono::DateTime::from_timestamp(k.created_at, 0).unwrap_or_default();
                let used = k
                    .last_used_ms
                    .and_then(chrono::DateTime::from_timestamp_millis)
                    .map_or_else(|| "never".to_string(), |t| t.to_rfc3339());
                println!("{}\t{}\t{used}", k.name, when.to_rfc3339());
            }
        }
        ApikeyCommand::Remove { name } => {
            Store::block_on_cli(store.remove_api_key(&name))?;
            eprintln!("API key {name:?} removed.");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn audit(
    config: &Config,
    user: Option<i64>,
    kind: Option<String>,
    since: Option<String>,
    limit: u32,
) -> anyhow::Result<ExitCode> {
    let from = match since {
        Some(s) => Some(
            chrono::DateTime::parse_from_rfc3339(&s)
                .map_err(|e| anyhow::anyhow!("--since {s:?}: not an RFC 3339 time ({e})"))?
                .timestamp(),
        ),
        None => None,
    };
    let store = Store::open_config_existing(config)?;
    let filter = crate::store::audit::AuditFilter {
        user_id: user,
        kind,
        from,
        ..Default::default()
    };
    let page = crate::domain::page::PageRequest {
        no: 0,
        size: limit.clamp(1, 100_000),
    };
    let records = Store::block_on(store.list_audit(page, filter))?;
    let show =
        |v: Option<serde_json::Value>| v.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
    for r in records.items {
        let when = chrono::DateTime::from_timestamp(r.at, 0).unwrap_or_default();
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            when.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            r.username,
            r.address,
            r.kind,
            r.action,
            r.target,
            show(r.before),
            show(r.after)
        );
    }
    eprintln!("{} record(s) in all", records.total);
    Ok(ExitCode::SUCCESS)
}

/// `backup` and `restore` copy the SQLite file; a PostgreSQL site uses its own tools.
fn sqlite_only(config: &Config, what: &str) -> anyhow::Result<()> {
    if config.store.is_postgres() {
        anyhow::bail!(
            "cxwatch {what} copies the SQLite file; this site's store is PostgreSQL ([store] url): \
             use pg_dump / pg_restore or the database's managed backups (/usr/share/doc/cxwatch/postgres.md)"
        );
    }
    Ok(())
}

fn backup(config: &Config, to: &std::path::Path) -> anyhow::Result<ExitCode> {
    sqlite_only(config, "backup")?;
    let done = crate::store::sqlite::backup::backup(&config.data_dir, to)?;
    let runs = done.checked.rows("test_runs").unwrap_or(0);
    println!(
        "backup {}: {} bytes ({:.1} MiB), {} test runs, schema {}, checked, in {:.2} s",
        done.file.display(),
        done.size,
        done.size as f64 / (1024.0 * 1024.0),
        runs,
        done.checked.schema_version,
        done.duration.as_secs_f64()
    );
    eprintln!(
        "Recordings are not in the file: copy {}/recordings too (/usr/share/doc/cxwatch/backup.md).",
        config.data_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn restore(config: &Config, from: &std::path::Path) -> anyhow::Result<ExitCode> {
    sqlite_only(config, "restore")?;
    let done = crate::store::sqlite::backup::restore(&config.data_dir, from)?;
    println!(
        "restored {} into {}: {} test runs, schema {}",
        from.display(),
        config.data_dir.display(),
        done.checked.rows("test_runs").unwrap_or(0),
        done.checked.schema_version
    );
    if let Some(previous) = done.previous {
        println!("the previous database is kept as {}", previous.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `cxwatch store copy`: the SQLite site into PostgreSQL, then the table of counts.
async fn store_copy(config: &Config, args: CopyArgs) -> anyhow::Result<ExitCode> {
    use crate::store::copy::{copy, CopyOptions, Outcome};
    let from = args
        .from
        .unwrap_or_else(|| config.data_dir.join(crate::store::DB_FILE));
    let url = match args.to {
        Some(url) => url,
        None if config.store.is_postgres() => config.store.url.clone(),
        None => anyhow::bail!(
            "--to: which PostgreSQL database? (postgres://user@host:5432/db, or store.url)"
        ),
    };
    let url = url.trim().to_string();
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        anyhow::bail!("--to: not a postgres:// address");
    }
    let password = match &args.password_file {
        Some(path) => {
            let t = std::fs::read_to_string(path).map_err(|e| {
                anyhow::anyhow!("--password-file: cannot read {}: {e}", path.display())
            })?;
            let t = t.trim_end_matches(['\r', '\n']).to_string();
            if t.is_empty() {
                anyhow::bail!("--password-file: {} is empty", path.display());
            }
            t
        }
        None => config.store.password.clone(),
    };
    let target = crate::config::StoreConfig {
        url,
        password,
        ca_file: args.ca_file.or_else(|| config.store.ca_file.clone()),
        ..config.store.clone()
    };
    let mut options = CopyOptions::new(from, target);
    options.chunk_rows = args.chunk_rows;
    let report = copy(&options).await?;
    match report.outcome {
        Outcome::AlreadyComplete => {
            println!(
                "{}: the copy was already complete; nothing copied",
                report.target
            )
        }
        Outcome::Stopped => {
            println!("{}: the copy stopped; run it again to go on", report.target);
            return Ok(ExitCode::FAILURE);
        }
        Outcome::Copied | Outcome::Resumed => println!(
            "{}: {} rows copied in {:.1} s ({} transactions){}",
            report.target,
            report.copied(),
            report.elapsed.as_secs_f64(),
            report.chunks,
            if report.outcome == Outcome::Resumed {
                ", resuming an interrupted copy"
            } else {
                ""
            }
        ),
    }
    print!("{}", report.render());
    let differ = report.mismatches();
    if !differ.is_empty() {
        let names: Vec<&str> = differ.iter().map(|t| t.table.as_str()).collect();
        eprintln!(
            "cxwatch: the counts differ in {}: the copy is not complete. Was the SQLite site \
             changed after the copy began? Copy again into a new, empty database with the \
             server stopped.",
            names.join(", ")
        );
        return Ok(ExitCode::FAILURE);
    }
    println!("every table's count matches");
    Ok(ExitCode::SUCCESS)
}

/// A data directory for `--demo` that is removed when the server stops.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempfile_dir() -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("cxwatch-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Targets too loud for their worth, quieted unless the filter names them: rustls warns
/// "Illegal SNI extension" for every client that sends an IP address as server name.
const QUIET_TARGETS: &[&str] = &["rustls::msgs::handshake=error"];

fn quiet_by_default(
    mut filter: tracing_subscriber::EnvFilter,
    config: &Config,
) -> tracing_subscriber::EnvFilter {
    let given = std::env::var("CXWATCH_LOG").unwrap_or_else(|_| config.log.level.clone());
    for directive in QUIET_TARGETS {
        let target = directive.split('=').next().unwrap_or(directive);
        if !given.contains(target) {
            if let Ok(d) = directive.parse() {
                filter = filter.add_directive(d);
            }
        }
    }
    filter
}

fn init_logging(config: &Config) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_env("CXWATCH_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&config.log.level));
    let filter = quiet_by_default(filter, config);
    let json = match config.log.format {
        LogFormat::Json => true,
        LogFormat::Text => false,
        LogFormat::Auto => !std::io::stderr().is_terminal(),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fatal_error_off_a_terminal_is_one_json_line() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-25T23:22:30Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let line = fatal_json("config: log.level: 'x'\nnext \"line\"", at);
        assert!(!line.contains('\n'), "{line}");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["level"], "ERROR");
        assert_eq!(v["timestamp"], "2026-11-25T23:22:30.000000Z");
        assert_eq!(
            v["fields"]["message"],
            "config: log.level: 'x'\nnext \"line\""
        );
    }

    #[test]
    fn rustls_sni_warnings_are_quiet_unless_asked_for() {
        let config = Config::default();
        let quiet = quiet_by_default(tracing_subscriber::EnvFilter::new("info"), &config);
        assert!(
            quiet.to_string().contains("rustls::msgs::handshake=error"),
            "{quiet}"
        );
        let asked = Config {
            log: crate::config::LogConfig {
                level: "info,rustls::msgs::handshake=warn".into(),
                ..Config::default().log
            },
            ..Config::default()
        };
        let kept = quiet_by_default(tracing_subscriber::EnvFilter::new(&asked.log.level), &asked);
        assert!(!kept.to_string().contains("handshake=error"), "{kept}");
    }
}

//! `cxwatch serve --demo`: a realistic demo site. A seeded generator produces the test
//! catalog, 30 days of runs with incidents, client application health and telephone-like
//! recordings; a live feed keeps adding runs while the server runs.
//!
//! The first start in a data directory stores the recordings, ingests the history, creates
//! the groups and remembers (seed, anchor, how far runs were ingested) in `meta`; a later
//! start in the same directory reads that back and only continues the live feed.

pub mod audio;
pub mod catalog;
pub mod generator;
pub mod live;
pub mod rng;
mod state;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;

use self::audio::ClipId;
use self::generator::Generator;
use self::state::DemoState;
use crate::ingest::IngestRun;
use crate::store::{self, Store, StoreError};

/// Seed used when `--demo-seed` is not given.
pub const DEFAULT_SEED: u64 = 20_240_515;

/// Groups the demo viewer (read-only ROLE_USER) is assigned: one per channel.
pub const VIEWER_GROUPS: [&str; 2] = ["Cards - Lost & Stolen", "Chat - Support"];

/// Runs ingested per transaction while loading the history (about one day).
const HISTORY_CHUNK: Duration = Duration::hours(24);

#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("demo data: {0}")]
    Rejected(String),
}

/// A running demo: its generator and where the live feed stands.
pub struct Demo {
    pub(crate) store: Store,
    pub(crate) tz: Tz,
    pub(crate) generator: Arc<Generator>,
    pub(crate) state: DemoState,
}

/// What start-up did, for the start-up message.
#[derive(Debug, Clone)]
pub struct Startup {
    /// False when the data directory already held the demo history.
    pub generated: bool,
    pub seed: u64,
    pub runs: usize,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub elapsed: std::time::Duration,
}

impl Demo {
    pub fn generator(&self) -> &Generator {
        &self.generator
    }

    /// Prepares the demo in `store` (blocking: call it off the async threads). On a fresh
    /// data directory this stores the clips, ingests [`generator::HISTORY_DAYS`] days of
    /// runs up to `now`, creates the groups and the health snapshots.
    pub fn prepare(
        store: &Store,
        data_dir: &Path,
        tz: Tz,
        seed: u64,
        now: DateTime<Utc>,
    ) -> Result<(Demo, Startup), DemoError> {
        let started = Instant::now();
        if let Some(state) = store.read_blocking(state::load)? {
            if state.seed != seed {
                tracing::warn!(
                    stored = state.seed,
                    asked = seed,
                    "the data directory holds demo data of another seed; continuing with it"
                );
            }
            let generator = Arc::new(Generator::new(
                state.seed,
                tz,
                state.anchor,
                state.clip_ids(),
            ));
            let startup = Startup {
                generated: false,
                seed: state.seed,
                runs: 0,
                from: generator.history_start(),
                to: state.until,
                elapsed: started.elapsed(),
            };
            let demo = Demo {
                store: store.clone(),
                tz,
                generator,
                state,
            };
            return Ok((demo, startup));
        }

        let clips = store_clips(store, data_dir)?;
        let generator = Arc::new(Generator::new(seed, tz, now, clips.clone()));
        let (from, to) = (generator.history_start(), generator.anchor());
        let runs = ingest_history(store, &generator, tz, from, to)?;
        let state = DemoState {
            seed,
            anchor: generator.anchor(),
            until: to,
            clips: clips
                .iter()
                .map(|(c, id)| (c.name().to_string(), id.clone()))
                .collect(),
        };
        let g = generator.clone();
        let st = state.clone();
        store.write_blocking(move |tx| {
            // A data directory given with --data-dir may already have groups of these names.
            let existing = group_ids(tx)?;
            for group in &g.catalog().groups {
                if !existing.contains_key(group.name) {
                    store::catalog::create_group(tx, group.name, group.channel, &group.cases)?;
                }
            }
            store::health::put(tx, &g.health_at(to))?;
            state::save(tx, &st)
        })?;
        let startup = Startup {
            generated: true,
            seed,
            runs,
            from,
            to,
            elapsed: started.elapsed(),
        };
        Ok((
            Demo {
                store: store.clone(),
                tz,
                generator,
                state,
            },
            startup,
        ))
    }
}

/// Stores every clip once (content-addressed: storing again changes nothing).
fn store_clips(store: &Store, data_dir: &Path) -> Result<HashMap<ClipId, String>, DemoError> {
    let wavs: Vec<(ClipId, Vec<u8>)> = ClipId::ALL.iter().map(|c| (*c, c.wav())).collect();
    let data_dir = data_dir.to_path_buf();
    let ids = store.write_blocking(move |tx| {
        wavs.iter()
            .map(|(c, wav)| Ok((*c, store::recordings::put(&data_dir, tx, wav, "audio/wav")?)))
            .collect::<Result<HashMap<_, _>, StoreError>>()
    })?;
    Ok(ids)
}

/// Ingests the runs that end in `(from, to]`, a day per transaction, generating the next
/// days on other threads while one is written. Returns how many runs were stored.
pub fn ingest_history(
    store: &Store,
    generator: &Arc<Generator>,
    tz: Tz,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<usize, DemoError> {
    let mut windows = Vec::new();
    let mut t = from;
    while t < to {
        let next = (t + HISTORY_CHUNK).min(to);
        windows.push((t, next));
        t = next;
    }
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 4);
    let windows = &windows;
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::sync_channel::<Vec<IngestRun>>(workers);
        for w in 0..workers {
            let send = send.clone();
            let generator = generator.clone();
            scope.spawn(move || {
                for (a, b) in windows.iter().skip(w).step_by(workers) {
                    if send.send(generator.runs_ending_in(*a, *b)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        let mut stored = 0;
        for runs in receive {
            stored += ingest(store, tz, runs)?;
        }
        Ok(stored)
    })
}

/// Ingests `runs` in one transaction; a rejected run is a bug of the generator.
pub(crate) fn ingest(store: &Store, tz: Tz, runs: Vec<IngestRun>) -> Result<usize, DemoError> {
    let out = store.write_blocking(|tx| store::runs::ingest(tx, tz, &runs))?;
    reject_check(&runs, &out)?;
    Ok(out.accepted)
}

pub(crate) fn reject_check(
    runs: &[IngestRun],
    out: &store::runs::IngestOutcome,
) -> Result<(), DemoError> {
    match out.rejected.first() {
        Some(r) => Err(DemoError::Rejected(format!(
            "run {} was rejected: {}",
            runs.get(r.index)
                .map(|r| r.engine_run_id.as_str())
                .unwrap_or("?"),
            r.reason
        ))),
        None => Ok(()),
    }
}

/// Assigns the demo viewer (a read-only ROLE_USER) one group of each channel, so that
/// signing in as them shows what a restricted user sees.
pub fn assign_demo_viewer_groups(store: &Store, user_id: i64) -> Result<(), DemoError> {
    store.write_blocking(|tx| {
        let existing = group_ids(tx)?;
        let ids: Vec<i64> = VIEWER_GROUPS
            .iter()
            .filter_map(|name| existing.get(*name).copied())
            .collect();
        store::catalog::assign_groups_to_user(tx, user_id, &ids)
    })?;
    Ok(())
}

/// Ids of the groups by name.
fn group_ids(conn: &rusqlite::Connection) -> Result<HashMap<String, i64>, StoreError> {
    Ok(
        store::catalog::list_groups(conn, store::catalog::Scope::All)?
            .into_iter()
            .map(|g| (g.name, g.id))
            .collect(),
    )
}

/// The start-up message: what was generated (or found), how long it took, the incidents.
pub fn startup_message(demo: &Demo, s: &Startup) -> String {
    let mut out = String::new();
    if s.generated {
        out.push_str(&format!(
            "demo: generated {} runs ({} to {}) in {:.1} s, seed {}\n",
            s.runs,
            s.from.format("%Y-%m-%d %H:%M UTC"),
            s.to.format("%Y-%m-%d %H:%M UTC"),
            s.elapsed.as_secs_f64(),
            s.seed
        ));
    } else {
        out.push_str(&format!(
            "demo: data directory already holds the demo history up to {}, seed {}; continuing the live feed\n",
            s.to.format("%Y-%m-%d %H:%M UTC"),
            s.seed
        ));
    }
    out.push_str("demo: incidents (site time):\n");
    for inc in demo.generator.incidents() {
        out.push_str(&format!(
            "  {} to {}  {}\n",
            inc.from.with_timezone(&demo.tz).format("%Y-%m-%d %H:%M"),
            inc.to.with_timezone(&demo.tz).format("%Y-%m-%d %H:%M"),
            inc.description
        ));
    }
    out
}

/// `serve --demo`: prepares the demo data (printing what it did and how long it took),
/// gives the demo viewer its groups and starts the live feed.
pub async fn start(
    store: &Store,
    config: &crate::config::Config,
    seed: Option<u64>,
) -> anyhow::Result<()> {
    let seed = seed.unwrap_or(DEFAULT_SEED);
    let (s, data_dir, tz) = (store.clone(), config.data_dir.clone(), config.tz());
    println!("demo: data directory {}", data_dir.display());
    let (demo, startup) =
        tokio::task::spawn_blocking(move || Demo::prepare(&s, &data_dir, tz, seed, Utc::now()))
            .await??;
    print!("{}", startup_message(&demo, &startup));
    let viewer = store
        .read(|c| store::auth::user_by_username(c, crate::demo_accounts::DEMO_VIEWER))
        .await?;
    if let Some(viewer) = viewer {
        let s = store.clone();
        tokio::task::spawn_blocking(move || assign_demo_viewer_groups(&s, viewer.id)).await??;
    }
    tokio::spawn(live::run(demo));
    Ok(())
}

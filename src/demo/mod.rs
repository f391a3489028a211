//! `cxwatch serve --demo`: a realistic demo site. A seeded generator produces the test
//! catalog, 30 days of runs with incidents, client application health and telephone-like
//! recordings; a live feed keeps adding runs while the server runs.
//!
//! The first start in a data directory stores the recordings and remembers (seed, anchor)
//! in `meta`, then loads the history in the background while the server already answers:
//! newest hour first, the groups and health as soon as the first hour is in. A later start
//! in the same directory reads the state back and only continues the live feed (or
//! finishes an interrupted history: ingest skips the runs already stored).

pub mod alert_settings;
pub mod alerts;
pub mod audio;
pub mod catalog;
pub mod distributions;
pub mod generator;
pub mod life;
pub mod live;
pub mod reports;
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
use crate::domain::caller::Scope;
use crate::domain::ingest::IngestRun;
use crate::domain::user::UserDraft;
use crate::store::catalog::GroupDraft;
use crate::store::runs::IngestOutcome;
use crate::store::{Store, StoreError};

/// Seed used when `--demo-seed` is not given.
pub const DEFAULT_SEED: u64 = 20_240_515;

/// Groups the demo viewer (read-only ROLE_USER) is assigned: one per channel.
pub const VIEWER_GROUPS: [&str; 2] = ["Cards - Lost & Stolen", "Chat - Support"];

/// Runs ingested per transaction while loading the history. A day of runs (about 4,000,
/// their steps and texts) held on each generator thread, in the channel and in the writer
/// made the load peak at a third of a gigabyte; an hour is about 170 runs.
pub(crate) const HISTORY_CHUNK: Duration = Duration::hours(1);

#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("demo data: {0}")]
    Rejected(String),
    #[error("demo task: {0}")]
    Task(String),
    #[error("demo team: {0}")]
    Team(String),
}

/// A running demo: its generator and where the live feed stands.
pub struct Demo {
    pub(crate) store: Store,
    pub(crate) tz: Tz,
    pub(crate) generator: Arc<Generator>,
    pub(crate) state: DemoState,
}

/// What loading the history did, for the message printed when it is done.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub runs: usize,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub elapsed: std::time::Duration,
}

impl Demo {
    pub fn generator(&self) -> &Generator {
        &self.generator
    }

    /// True until the history has been loaded completely.
    pub fn needs_history(&self) -> bool {
        !self.state.history_complete
    }

    /// Opens the demo of the data directory, or starts a new one anchored at `now`: stores
    /// the clips and remembers seed and anchor. Quick; blocking (call it off the async
    /// threads). A data directory that holds demo data keeps its own seed.
    pub fn open(
        store: &Store,
        data_dir: &Path,
        tz: Tz,
        seed: u64,
        days: Option<i64>,
        now: DateTime<Utc>,
    ) -> Result<Demo, DemoError> {
        let state = match Store::block_on(state::load(store))? {
            Some(state) => {
                if state.seed != seed {
                    tracing::warn!(
                        stored = state.seed,
                        asked = seed,
                        "the data directory holds demo data of another seed; continuing with it"
                    );
                }
                state
            }
            None => {
                let clips = store_clips(store, data_dir)?;
                let anchor = Generator::new(seed, tz, now, HashMap::new()).anchor();
                let state = DemoState {
                    seed,
                    anchor,
                    until: anchor,
                    clips: clips
                        .iter()
                        .map(|(c, id)| (c.name().to_string(), id.clone()))
                        .collect(),
                    history_complete: false,
                };
                Store::block_on(state::save(store, &state))?;
                state
            }
        };
        let mut generator = Generator::new(state.seed, tz, state.anchor, state.clip_ids());
        if let Some(days) = days {
            generator = generator.with_history_days(days);
        }
        let generator = Arc::new(generator);
        Ok(Demo {
            store: store.clone(),
            tz,
            generator,
            state,
        })
    }

    /// Loads [`Generator::history_days`] days of runs up to the anchor, newest hour first.
    /// As soon as the first hour is stored (every test case runs every 15 minutes, so each
    /// exists then) the groups and the health are created and `on_catalog` runs (to assign
    /// the demo viewer's groups), so the dashboard fills in from now backwards. Blocking.
    pub fn load_history(
        &mut self,
        on_catalog: impl FnOnce(&Store) -> Result<(), DemoError>,
    ) -> Result<Loaded, DemoError> {
        let started = Instant::now();
        let (from, to) = (self.generator.history_start(), self.generator.anchor());
        let generator = self.generator.clone();
        let tz = self.tz;
        let mut on_catalog = Some(on_catalog);
        let runs = ingest_history(&self.store, &self.generator, self.tz, from, to, |store| {
            // A data directory given with --data-dir may already have groups of these names.
            let existing = group_ids(store)?;
            for group in &generator.catalog().groups {
                if !existing.contains_key(group.name) {
                    Store::block_on(store.create_group(&GroupDraft {
                        name: group.name.to_string(),
                        channel: group.channel,
                        test_case_ids: group.cases.to_vec(),
                    }))?;
                }
            }
            Store::block_on(store.put_health(generator.health_at(to)))?;
            reports::seed_reports(store, tz, to)?;
            match on_catalog.take() {
                Some(f) => f(store),
                None => Ok(()),
            }
        })?;
        let mut done = self.state.clone();
        done.history_complete = true;
        done.until = to;
        Store::block_on(state::save(&self.store, &done))?;
        self.state = done;
        Ok(Loaded {
            runs,
            from,
            to,
            elapsed: started.elapsed(),
        })
    }
}

/// Stores every clip once (content-addressed: storing again changes nothing).
fn store_clips(store: &Store, data_dir: &Path) -> Result<HashMap<ClipId, String>, DemoError> {
    let _ = data_dir;
    let mut ids = HashMap::new();
    for c in ClipId::ALL {
        let rec = Store::block_on(store.put_recording(c.wav().into(), "audio/wav"))?;
        ids.insert(c, rec.id);
    }
    Ok(ids)
}

/// Ingests the runs that end in `(from, to]`, an hour per transaction, newest hour first,
/// generating the next hours on other threads while one is written; `after_first` runs once
/// the first hour is stored. Returns how many runs were stored (runs already stored are
/// skipped).
pub fn ingest_history(
    store: &Store,
    generator: &Arc<Generator>,
    tz: Tz,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    mut after_first: impl FnMut(&Store) -> Result<(), DemoError>,
) -> Result<usize, DemoError> {
    let mut windows = Vec::new();
    let mut t = to;
    while t > from {
        let prev = (t - HISTORY_CHUNK).max(from);
        windows.push((prev, t));
        t = prev;
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
        let (mut stored, mut batches) = (0, 0);
        let mut writing = std::time::Duration::ZERO;
        for runs in receive {
            let t = Instant::now();
            stored += ingest(store, tz, runs)?;
            writing += t.elapsed();
            batches += 1;
            if batches == 1 {
                after_first(store)?;
            }
        }
        tracing::info!(
            runs = stored,
            transactions = batches,
            generator_threads = workers,
            ingest_secs = writing.as_secs_f64(),
            "demo history ingested"
        );
        Ok(stored)
    })
}

/// Ingests `runs` in one transaction; a rejected run is a bug of the generator.
pub(crate) fn ingest(store: &Store, tz: Tz, runs: Vec<IngestRun>) -> Result<usize, DemoError> {
    let ids = engine_ids(&runs);
    let out = Store::block_on(store.ingest_runs(tz, runs))?;
    reject_check(&ids, &out)?;
    Ok(out.accepted)
}

/// The `engineRunId`s of `runs`, to name a rejected one.
pub(crate) fn engine_ids(runs: &[IngestRun]) -> Vec<String> {
    runs.iter().map(|r| r.engine_run_id.clone()).collect()
}

pub(crate) fn reject_check(ids: &[String], out: &IngestOutcome) -> Result<(), DemoError> {
    match out.rejected.first() {
        Some(r) => Err(DemoError::Rejected(format!(
            "run {} was rejected: {}",
            ids.get(r.index).map(String::as_str).unwrap_or("?"),
            r.reason
        ))),
        None => Ok(()),
    }
}

/// Assigns the demo viewer (a read-only ROLE_USER) one group of each channel, so that
/// signing in as them shows what a restricted user sees.
pub fn assign_demo_viewer_groups(store: &Store, user_id: i64) -> Result<(), DemoError> {
    let Some(user) = Store::block_on(store.user(user_id))? else {
        return Ok(());
    };
    let existing = group_ids(store)?;
    let group_ids: Vec<i64> = VIEWER_GROUPS
        .iter()
        .filter_map(|name| existing.get(*name).copied())
        .collect();
    let draft = UserDraft {
        role: user.role(),
        username: user.username,
        first_name: user.first_name,
        last_name: user.last_name,
        access: user.access,
        group_ids,
    };
    Store::block_on(store.update_user(user_id, &draft))?;
    Ok(())
}

/// Ids of the groups by name.
fn group_ids(store: &Store) -> Result<HashMap<String, i64>, StoreError> {
    Ok(Store::block_on(store.list_groups(Scope::All))?
        .into_iter()
        .map(|g| (g.name, g.id))
        .collect())
}

/// What is printed at start-up: what the demo does now, and its incidents.
pub fn opening_message(demo: &Demo) -> String {
    let mut out = String::new();
    if demo.needs_history() {
        out.push_str(&format!(
            "demo: loading {} days of history in the background (newest first), seed {}\n",
            demo.generator.history_days(),
            demo.state.seed
        ));
    } else {
        out.push_str(&format!(
            "demo: data directory already holds the demo history (seed {}); continuing the live feed from {}\n",
            demo.state.seed,
            demo.state.until.format("%Y-%m-%d %H:%M UTC"),
        ));
    }
    out.push_str(&format!("demo: incidents ({} time):\n", demo.tz));
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

/// `serve --demo`: opens (or starts) the demo of the data directory and, in the
/// background, loads the history (printing how many runs and how long it took), gives the
/// demo viewer its groups and runs the live feed. The server answers meanwhile.
pub async fn start(
    store: &Store,
    config: &crate::config::Config,
    seed: Option<u64>,
    days: Option<i64>,
) -> anyhow::Result<()> {
    // One instance loads the history and runs the live feed (PostgreSQL with several
    // instances: the one holding the lease `demo`; the others serve what it writes, and one
    // of them takes the feed over when its holder stops).
    let Some(lease) = store.try_lease("demo").await? else {
        println!(
            "demo: another instance loads the demo's data and runs its live feed; \
             this one takes over if that one stops"
        );
        let (store, config) = (store.clone(), config.clone());
        tokio::spawn(async move {
            let lease = crate::store::leases::acquire(&store, "demo").await;
            if let Err(e) = start_held(&store, &config, seed, days, lease).await {
                tracing::error!(error = %e, "demo could not be taken over");
            }
        });
        return Ok(());
    };
    start_held(store, config, seed, days, lease).await
}

/// [`start`] on the instance holding the lease `demo`.
async fn start_held(
    store: &Store,
    config: &crate::config::Config,
    seed: Option<u64>,
    days: Option<i64>,
    lease: crate::store::leases::Lease,
) -> anyhow::Result<()> {
    let seed = seed.unwrap_or(DEFAULT_SEED);
    let (s, data_dir, tz) = (store.clone(), config.data_dir.clone(), config.tz());
    println!("demo: data directory {}", data_dir.display());
    let mut demo = tokio::task::spawn_blocking(move || {
        Demo::open(&s, &data_dir, tz, seed, days, crate::clock::now())
    })
    .await??;
    print!("{}", opening_message(&demo));
    distributions::ensure(store, config).await?;
    let viewer = store
        .user_by_username(crate::demo_accounts::DEMO_VIEWER)
        .await?
        .map(|u| u.id);
    let history_from = demo.generator().history_start().timestamp_millis();
    let assign = move |store: &Store| {
        if let Some(id) = viewer {
            assign_demo_viewer_groups(store, id)?;
        }
        // Before the older days are stored: the weekly maintenance window marks their runs.
        life::ensure_window(store, tz, history_from)?;
        Store::block_on(crate::demo_accounts::ensure_demo_team(store))
            .map_err(|e| DemoError::Team(e.to_string()))
    };
    let public_url = config.notify.public_url.clone();
    if !demo.needs_history() {
        let s = store.clone();
        tokio::task::spawn_blocking(move || assign(&s)).await??;
        let s = store.clone();
        tokio::task::spawn_blocking(move || alerts::ensure(&s, tz, history_from)).await??;
        let s = store.clone();
        tokio::task::spawn_blocking(move || life::ensure_life(&s, tz, &public_url)).await??;
        tokio::spawn(live::run(demo, lease));
        return Ok(());
    }
    tokio::spawn(async move {
        let loaded = tokio::task::spawn_blocking(move || {
            let loaded = demo.load_history(assign);
            (demo, loaded)
        })
        .await;
        match loaded {
            Ok((demo, Ok(l))) => {
                println!(
                    "demo: generated {} runs ({} to {}) in {:.1} s, seed {}",
                    l.runs,
                    l.from.format("%Y-%m-%d %H:%M UTC"),
                    l.to.format("%Y-%m-%d %H:%M UTC"),
                    l.elapsed.as_secs_f64(),
                    demo.state.seed
                );
                // The history filled the readers' caches: hand them back.
                demo.store.release_memory();
                // The alert settings, and the engine over the history (before the live feed:
                // the engine evaluates each test case's runs in time order).
                let (s, tz) = (demo.store.clone(), demo.tz);
                match tokio::task::spawn_blocking(move || alerts::ensure(&s, tz, history_from))
                    .await
                {
                    Ok(Ok(n)) if n > 0 => {
                        println!("demo: the alert engine opened {n} alert events over the history")
                    }
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => {
                        tracing::error!(error = %e, "demo alert settings could not be added")
                    }
                    Err(e) => tracing::error!(error = %e, "demo alert settings task failed"),
                }
                // The alert's life: acknowledged, escalated, muted.
                let s = demo.store.clone();
                match tokio::task::spawn_blocking(move || life::ensure_life(&s, tz, &public_url))
                    .await
                {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::error!(error = %e, "demo alert life could not be added"),
                    Err(e) => tracing::error!(error = %e, "demo alert life task failed"),
                }
                live::run(demo, lease).await;
            }
            Ok((_, Err(e))) => {
                tracing::error!(error = %e, "demo history could not be loaded");
                eprintln!("cxwatch: demo history could not be loaded: {e}");
            }
            Err(e) => tracing::error!(error = %e, "demo history task failed"),
        }
    });
    Ok(())
}

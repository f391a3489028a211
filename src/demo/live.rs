//! The live feed: every few seconds, the runs that ended since the last tick are ingested
//! and the client application health and the demo state are written after them.
//! After a stop, the feed catches up on the missed time (at most the history length).

use chrono::{DateTime, Duration, Utc};

use super::generator::HISTORY_DAYS;
use super::{state, Demo, DemoError};
use crate::store::leases::{self, Lease};

/// Time between two ticks.
pub const TICK: std::time::Duration = std::time::Duration::from_secs(5);

/// Longest window ingested in one transaction when catching up (as the history is loaded).
const MAX_WINDOW: Duration = super::HISTORY_CHUNK;

/// Runs until the runtime stops, while `lease` (the demo's) is held. When the lease is lost
/// (PostgreSQL: its connection closed), another instance runs the feed; this one waits to
/// take it back and goes on from the state the other left.
pub async fn run(mut demo: Demo, mut lease: Lease) {
    let mut interval = tokio::time::interval(TICK);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if lease.is_lost() {
            tracing::warn!("demo: the lease is lost; another instance runs the live feed");
            lease = leases::acquire(&demo.store, "demo").await;
            match state::load(&demo.store).await {
                Ok(Some(s)) => demo.state = s,
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "demo state"),
            }
        }
        match tick(&mut demo, crate::clock::now()).await {
            Ok(0) => {}
            Ok(n) => tracing::debug!(runs = n, "demo live feed"),
            Err(e) => tracing::warn!(error = %e, "demo live feed"),
        }
    }
}

/// Ingests the runs that ended between the last tick and `now`; returns how many.
pub async fn tick(demo: &mut Demo, now: DateTime<Utc>) -> Result<usize, DemoError> {
    let mut stored = 0;
    let mut from = demo.state.until.max(now - Duration::days(HISTORY_DAYS));
    while from < now {
        let to = (from + MAX_WINDOW).min(now);
        let mut next = demo.state.clone();
        next.until = to;
        let generator = demo.generator.clone();
        let runs = tokio::task::spawn_blocking(move || generator.runs_ending_in(from, to))
            .await
            .map_err(|e| DemoError::Task(e.to_string()))?;
        let ids = super::engine_ids(&runs);
        let out = demo.store.ingest_runs(demo.tz, runs).await?;
        // A rejected run is a bug of the generator: the feed does not move past it.
        super::reject_check(&ids, &out)?;
        demo.store.put_health(demo.generator.health_at(to)).await?;
        state::save(&demo.store, &next).await?;
        let accepted = out.accepted;
        demo.state = next;
        stored += accepted;
        from = to;
    }
    Ok(stored)
}

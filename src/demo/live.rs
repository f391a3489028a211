//! The live feed: every few seconds, the runs that ended since the last tick are ingested
//! and the client application health is refreshed, in one transaction with the demo state.
//! After a stop, the feed catches up on the missed time (at most the history length).

use chrono::{DateTime, Duration, Utc};

use super::generator::HISTORY_DAYS;
use super::{state, Demo, DemoError};
use crate::store::{self, StoreError};

/// Time between two ticks.
pub const TICK: std::time::Duration = std::time::Duration::from_secs(5);

/// Longest window ingested in one transaction when catching up.
const MAX_WINDOW: Duration = Duration::hours(24);

/// Runs until the runtime stops.
pub async fn run(mut demo: Demo) {
    let mut interval = tokio::time::interval(TICK);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        match tick(&mut demo, Utc::now()).await {
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
        let tz = demo.tz;
        let saved = next.clone();
        let accepted = demo
            .store
            .write(move |tx| {
                let runs = generator.runs_ending_in(from, to);
                let out = store::runs::ingest(tx, tz, &runs)?;
                // A rejected run is a bug of the generator: keep nothing of this window.
                if let Err(e) = super::reject_check(&runs, &out) {
                    return Err(StoreError::Invalid(e.to_string()));
                }
                store::health::put(tx, &generator.health_at(to))?;
                state::save(tx, &saved)?;
                Ok(out.accepted)
            })
            .await?;
        demo.state = next;
        stored += accepted;
        from = to;
    }
    Ok(stored)
}

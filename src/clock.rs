//! The server's clock: every place that asks "what time is it" (the store's `*_at` and
//! `*_ms` columns, sessions and one-time ids, the demo's history and live feed, schedules,
//! maintenance windows, 'last 15 min', the workers) reads it here.
//!
//! By default it is the system's clock. `[clock] start` (config) pins it instead: the clock
//! then starts at that instant when the process applies its config and runs on from there
//! at the real pace (the pinned instant plus the time elapsed since). The tests use it to
//! run the server, the demo and themselves at chosen instants (midnight UTC, midnight in
//! the site's zone, the daylight-saving changes) instead of whenever CI happens to run.
//! Durations measured with `std::time::Instant` (time-outs, back-off, idle connections)
//! do not need it and do not use it.

use std::sync::RwLock;
use std::time::Instant;

use chrono::{DateTime, Utc};

/// The pinned start and the moment it was pinned at; None: the system's clock.
static PINNED: RwLock<Option<(DateTime<Utc>, Instant)>> = RwLock::new(None);

/// Runs the process's clock from `start` (None: the system's clock). Pinning again to the
/// same instant keeps the clock running (an in-process test may build several apps on one
/// config); another instant restarts it from there.
pub fn pin(start: Option<DateTime<Utc>>) {
    let mut pinned = PINNED.write().unwrap_or_else(|e| e.into_inner());
    match (start, pinned.as_ref()) {
        (Some(s), Some((at, _))) if *at == s => {}
        (Some(s), _) => *pinned = Some((s, Instant::now())),
        (None, _) => *pinned = None,
    }
}

/// The instant the clock was pinned to, if it is.
pub fn pinned() -> Option<DateTime<Utc>> {
    PINNED
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .map(|(s, _)| s)
}

/// Now.
pub fn now() -> DateTime<Utc> {
    let pinned = *PINNED.read().unwrap_or_else(|e| e.into_inner());
    match pinned {
        Some((start, at)) => {
            start + chrono::Duration::from_std(at.elapsed()).unwrap_or(chrono::Duration::zero())
        }
        None => Utc::now(),
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    now().timestamp_millis()
}

/// Seconds since the Unix epoch.
pub fn now_secs() -> i64 {
    now().timestamp()
}

/// Parses `[clock] start`: empty is the system's clock, else an RFC 3339 instant.
pub fn parse_start(s: &str) -> Result<Option<DateTime<Utc>>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    DateTime::parse_from_rfc3339(s)
        .map(|t| Some(t.with_timezone(&Utc)))
        .map_err(|e| format!("'{s}' is not an RFC 3339 instant such as 2026-03-08T06:59:00Z ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_an_instant_or_nothing() {
        assert_eq!(parse_start(" ").unwrap(), None);
        assert_eq!(
            parse_start("2026-03-08T01:59:00-05:00").unwrap(),
            Some("2026-03-08T06:59:00Z".parse().unwrap())
        );
        assert!(parse_start("2026-03-08 06:59").is_err());
    }

    #[test]
    fn a_pinned_clock_runs_from_its_start() {
        let start: DateTime<Utc> = "2026-11-01T05:59:30Z".parse().unwrap();
        pin(Some(start));
        let a = now();
        std::thread::sleep(std::time::Duration::from_millis(20));
        pin(Some(start)); // the same instant again: still running
        let b = now();
        assert!(start <= a && a < b, "{a} {b}");
        assert!(b - start < chrono::Duration::seconds(60), "{b}");
        assert_eq!(pinned(), Some(start));
        assert_eq!(now_secs(), now().timestamp());
        pin(None);
        assert_eq!(pinned(), None);
    }
}

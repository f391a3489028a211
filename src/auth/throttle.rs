//! Slows down password guessing (the rule: `domain::throttle`): per username and source,
//! the first failed sign-ins are free, then each further attempt must wait, twice as long
//! each time, up to a cap, and a success forgets them; per source across usernames, 20
//! failures at once, then one every three minutes. On SQLite kept in memory (a restart
//! forgets everything); on PostgreSQL in the database, shared by the instances.
//!
//! [`FailureLog`] is the pure logic, driven by the `now` it is given; [`Throttle`] wraps it
//! in a mutex with the real clock for the server.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::domain::throttle::{attempt_both, wait_secs, SourceFailures};
pub use crate::domain::throttle::{
    key, pair_key, source_key, source_of, wait_after, Failures, FIRST_WAIT, FREE_FAILURES,
    MAX_WAIT, SOURCE_FORGET_EVERY, SOURCE_FREE_FAILURES, WINDOW,
};
use crate::store::{Store, StoreResult};

/// The log is swept of forgotten entries when it holds this many (or twice the count
/// after the previous sweep).
const SWEEP_AT: usize = 1024;

/// Failed sign-ins per username and source ([`pair_key`]) and per source ([`source_key`]),
/// in memory.
#[derive(Debug)]
pub struct FailureLog {
    pairs: HashMap<String, Failures>,
    sources: HashMap<String, SourceFailures>,
    sweep_at: usize,
    /// The clock's origin: entries keep milliseconds since it.
    origin: Instant,
}

impl Default for FailureLog {
    fn default() -> Self {
        FailureLog {
            pairs: HashMap::new(),
            sources: HashMap::new(),
            sweep_at: SWEEP_AT,
            origin: Instant::now(),
        }
    }
}

impl FailureLog {
    fn ms(&self, now: Instant) -> i64 {
        now.saturating_duration_since(self.origin).as_millis() as i64
    }

    /// `Err(wait)` when the username from this source, or the source, must wait;
    /// otherwise the attempt counts in both ([`attempt_both`]).
    pub fn attempt(&mut self, pair: &str, source: &str, now: Instant) -> Result<(), Duration> {
        let now_ms = self.ms(now);
        if self.len() >= self.sweep_at {
            self.pairs.retain(|_, e| !e.forgotten(now_ms));
            self.sources.retain(|_, e| !e.forgotten(now_ms));
            self.sweep_at = (self.len() * 2).max(SWEEP_AT);
        }
        let mut p = self.pairs.get(pair).copied().unwrap_or_default();
        let mut s = self.sources.get(source).copied().unwrap_or_default();
        attempt_both(&mut p, &mut s, now_ms)?;
        self.pairs.insert(pair.to_string(), p);
        self.sources.insert(source.to_string(), s);
        Ok(())
    }

    /// The password was right: forget the pair's failures and take back the source's
    /// failure of this attempt.
    pub fn succeeded(&mut self, pair: &str, source: &str) {
        self.pairs.remove(pair);
        if let Some(s) = self.sources.get_mut(source) {
            s.succeeded();
        }
    }

    /// Entries currently tracked (pairs and sources).
    pub fn len(&self) -> usize {
        self.pairs.len() + self.sources.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The server's throttle. On SQLite (one process) a [`FailureLog`] behind a mutex on the
/// real clock; on PostgreSQL the store keeps the counts (`ThrottleStore`), so every
/// instance behind a load balancer counts the same attempts.
#[derive(Debug, Default)]
pub struct Throttle {
    log: Mutex<FailureLog>,
}

impl Throttle {
    /// `Err(seconds to wait)` when `username` may not try now from `source` (see
    /// [`source_of`]); otherwise the attempt counts.
    pub async fn attempt(
        &self,
        store: &Store,
        username: &str,
        source: &str,
    ) -> StoreResult<Result<(), u64>> {
        if store.keeps_throttle() {
            let now_ms = crate::clock::now_ms();
            return Ok(store
                .throttle_attempt(&pair_key(username, source), &source_key(source), now_ms)
                .await?
                .map_err(wait_secs));
        }
        Ok(self.attempt_here(username, source))
    }

    /// The password of `username`, tried from `source`, was right.
    pub async fn succeeded(&self, store: &Store, username: &str, source: &str) -> StoreResult<()> {
        if store.keeps_throttle() {
            return store
                .throttle_succeeded(&pair_key(username, source), &source_key(source))
                .await;
        }
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.succeeded(&pair_key(username, source), &source_key(source));
        Ok(())
    }

    /// [`Throttle::attempt`] in this process's memory.
    fn attempt_here(&self, username: &str, source: &str) -> Result<(), u64> {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.attempt(
            &pair_key(username, source),
            &source_key(source),
            Instant::now(),
        )
        .map_err(wait_secs)
    }
}

/// The message of the 429 answer.
pub fn too_many_message(wait_secs: u64) -> String {
    format!("Too many failed sign-in attempts; try again in {wait_secs} seconds")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    const HERE: &str = "192.0.2.1";
    const THERE: &str = "198.51.100.2";

    /// An attempt of username `name` from [`HERE`].
    fn try_at(log: &mut FailureLog, name: &str, t: Instant) -> Result<(), Duration> {
        try_from(log, name, HERE, t)
    }

    fn try_from(log: &mut FailureLog, name: &str, src: &str, t: Instant) -> Result<(), Duration> {
        log.attempt(&pair_key(name, src), &source_key(src), t)
    }

    /// `n` failed attempts, one second apart from `t`; returns the time after them.
    fn fail(log: &mut FailureLog, name: &str, t: Instant, n: u32) -> Instant {
        let mut t = t;
        for i in 0..n {
            assert_eq!(try_at(log, name, t), Ok(()), "attempt {} of {n}", i + 1);
            t += secs(1);
        }
        t
    }

    #[test]
    fn five_free_failures_then_wait() {
        let mut log = FailureLog::default();
        let t0 = Instant::now();
        let t = fail(&mut log, "a", t0, 5);
        // The 5th failure (at t0+4) started a 30 s wait.
        assert_eq!(try_at(&mut log, "a", t), Err(secs(29)));
        assert_eq!(try_at(&mut log, "a", t0 + secs(33)), Err(secs(1)));
        // Refused attempts do not extend the wait.
        assert_eq!(try_at(&mut log, "a", t0 + secs(34)), Ok(()));
    }

    #[test]
    fn waits_double_up_to_the_cap() {
        assert_eq!(wait_after(4), None);
        assert_eq!(wait_after(5), Some(secs(30)));
        assert_eq!(wait_after(6), Some(secs(60)));
        assert_eq!(wait_after(7), Some(secs(120)));
        assert_eq!(wait_after(9), Some(secs(480)));
        assert_eq!(wait_after(10), Some(MAX_WAIT));
        assert_eq!(wait_after(1000), Some(MAX_WAIT));

        let mut log = FailureLog::default();
        let mut t = fail(&mut log, "a", Instant::now(), 5);
        let mut seen = Vec::new();
        for _ in 0..8 {
            let wait = try_at(&mut log, "a", t).unwrap_err();
            seen.push(wait.as_secs());
            t += wait;
            assert_eq!(try_at(&mut log, "a", t), Ok(()));
        }
        // Each wait is measured one second after the failure that started it.
        assert_eq!(seen, vec![29, 60, 120, 240, 480, 900, 900, 900]);
    }

    #[test]
    fn success_resets() {
        let mut log = FailureLog::default();
        let t0 = Instant::now();
        let t = fail(&mut log, "a", t0, 4);
        log.succeeded(&pair_key("a", HERE), &source_key(HERE));
        assert!(log.pairs.is_empty());
        // Five free failures again.
        let t = fail(&mut log, "a", t, 5);
        assert!(try_at(&mut log, "a", t).is_err());
    }

    #[test]
    fn other_usernames_are_unaffected() {
        let mut log = FailureLog::default();
        let t = fail(&mut log, "a", Instant::now(), 5);
        assert!(try_at(&mut log, "a", t).is_err());
        assert_eq!(try_at(&mut log, "b", t), Ok(()));
    }

    #[test]
    fn guesses_from_one_source_do_not_lock_the_user_out_elsewhere() {
        let mut log = FailureLog::default();
        let t = fail(&mut log, "a", Instant::now(), 5);
        assert!(try_at(&mut log, "a", t).is_err());
        assert_eq!(try_from(&mut log, "a", THERE, t), Ok(()));
    }

    #[test]
    fn one_source_guessing_many_usernames_waits() {
        let mut log = FailureLog::default();
        let t = Instant::now();
        for i in 0..SOURCE_FREE_FAILURES {
            assert_eq!(try_at(&mut log, &format!("user{i}"), t), Ok(()), "{i}");
        }
        let wait = try_at(&mut log, "one-more", t).unwrap_err();
        assert_eq!(wait, SOURCE_FORGET_EVERY);
        // Another source is not affected.
        assert_eq!(try_from(&mut log, "one-more", THERE, t), Ok(()));
    }

    #[test]
    fn failures_are_forgotten_after_a_quiet_window() {
        let mut log = FailureLog::default();
        let t0 = Instant::now();
        let t = fail(&mut log, "a", t0, 4);
        // 15 quiet minutes: the count starts again, five more are free.
        let t = fail(&mut log, "a", t + WINDOW, 5);
        assert!(try_at(&mut log, "a", t).is_err());
    }

    #[test]
    fn a_persistent_guesser_stays_at_the_cap() {
        // The forgetting window runs from the end of a wait, so waiting out the cap does
        // not earn five free guesses again.
        let mut log = FailureLog::default();
        let mut t = fail(&mut log, "a", Instant::now(), 5);
        for _ in 0..10 {
            let wait = try_at(&mut log, "a", t).unwrap_err();
            t += wait;
            assert_eq!(try_at(&mut log, "a", t), Ok(()));
        }
        assert_eq!(try_at(&mut log, "a", t + secs(1)), Err(MAX_WAIT - secs(1)));
    }

    #[test]
    fn sweep_drops_only_forgotten_entries() {
        let mut log = FailureLog::default();
        let t0 = Instant::now();
        fail(&mut log, "locked", t0, 5);
        // Each from its own source: a pair and a source entry each.
        for i in 0..(SWEEP_AT / 2 - 1) {
            try_from(
                &mut log,
                "old",
                &format!("10.0.{}.{}", i / 256, i % 256),
                t0,
            )
            .unwrap();
        }
        assert_eq!(log.len(), SWEEP_AT);
        // Long enough for every source to have forgotten its one failure, not for the
        // locked pair (its wait ended 30 s after t0+4, so its window has not run out).
        let later = t0 + WINDOW + secs(1);
        try_from(&mut log, "new", THERE, later).unwrap();
        assert_eq!(log.pairs.len(), 2);
        assert_eq!(log.sources.len(), 1);
        assert!(try_at(&mut log, "locked", later).is_ok());
    }

    #[test]
    fn keys_ignore_case_and_spaces() {
        assert_eq!(key("  Admin@Example.COM "), "admin@example.com");
        let t = Throttle::default();
        for _ in 0..5 {
            t.attempt_here("Admin@x.test", HERE).unwrap();
        }
        let wait = t.attempt_here(" admin@x.test", HERE).unwrap_err();
        assert!((29..=30).contains(&wait), "{wait}");
        t.log
            .lock()
            .unwrap()
            .succeeded(&pair_key("ADMIN@x.test", HERE), &source_key(HERE));
        assert!(t.attempt_here("admin@x.test", HERE).is_ok());
    }

    #[test]
    fn message_names_the_wait() {
        assert_eq!(
            too_many_message(30),
            "Too many failed sign-in attempts; try again in 30 seconds"
        );
    }
}

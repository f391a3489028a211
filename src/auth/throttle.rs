//! Slows down password guessing: per username, the first failed sign-ins are free, then
//! each further attempt must wait, twice as long each time, up to a cap. A success forgets
//! the username's failures (the rule: `domain::throttle`). On SQLite kept in memory (a
//! restart forgets everything); on PostgreSQL in the database, shared by the instances.
//!
//! [`FailureLog`] is the pure logic, driven by the `now` it is given; [`Throttle`] wraps it
//! in a mutex with the real clock for the server.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::domain::throttle::wait_secs;
pub use crate::domain::throttle::{
    key, wait_after, Failures, FIRST_WAIT, FREE_FAILURES, MAX_WAIT, WINDOW,
};
use crate::store::{Store, StoreResult};

/// The log is swept of forgotten usernames when it holds this many (or twice the count
/// after the previous sweep).
const SWEEP_AT: usize = 1024;

/// Failed sign-ins per username (the caller normalises it, see [`key`]), in memory.
#[derive(Debug)]
pub struct FailureLog {
    entries: HashMap<String, Failures>,
    sweep_at: usize,
    /// The clock's origin: entries keep milliseconds since it.
    origin: Instant,
}

impl Default for FailureLog {
    fn default() -> Self {
        FailureLog {
            entries: HashMap::new(),
            sweep_at: SWEEP_AT,
            origin: Instant::now(),
        }
    }
}

impl FailureLog {
    fn ms(&self, now: Instant) -> i64 {
        now.saturating_duration_since(self.origin).as_millis() as i64
    }

    /// `Err(wait)` when the username must wait; otherwise the attempt counts
    /// ([`Failures::attempt`]).
    pub fn attempt(&mut self, key: &str, now: Instant) -> Result<(), Duration> {
        let now_ms = self.ms(now);
        if self.entries.len() >= self.sweep_at {
            self.entries.retain(|_, e| !e.forgotten(now_ms));
            self.sweep_at = (self.entries.len() * 2).max(SWEEP_AT);
        }
        self.entries
            .entry(key.to_string())
            .or_default()
            .attempt(now_ms)
    }

    /// The password was right: forget the username's failures.
    pub fn succeeded(&mut self, key: &str) {
        self.entries.remove(key);
    }

    /// Usernames currently tracked.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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
    /// `Err(seconds to wait)` when `username` may not try now; otherwise the attempt counts.
    pub async fn attempt(&self, store: &Store, username: &str) -> StoreResult<Result<(), u64>> {
        if store.keeps_throttle() {
            let now_ms = crate::store::outbox::now_ms();
            return Ok(store
                .throttle_attempt(&key(username), now_ms)
                .await?
                .map_err(wait_secs));
        }
        Ok(self.attempt_here(username))
    }

    /// The password of `username` was right.
    pub async fn succeeded(&self, store: &Store, username: &str) -> StoreResult<()> {
        if store.keeps_throttle() {
            return store.throttle_succeeded(&key(username)).await;
        }
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.succeeded(&key(username));
        Ok(())
    }

    /// [`Throttle::attempt`] in this process's memory.
    fn attempt_here(&self, username: &str) -> Result<(), u64> {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.attempt(&key(username), Instant::now())
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

    /// `n` failed attempts, one second apart from `t`; returns the time after them.
    fn fail(log: &mut FailureLog, key: &str, t: Instant, n: u32) -> Instant {
        let mut t = t;
        for i in 0..n {
            assert_eq!(log.attempt(key, t), Ok(()), "attempt {} of {n}", i + 1);
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
        assert_eq!(log.attempt("a", t), Err(secs(29)));
        assert_eq!(log.attempt("a", t0 + secs(33)), Err(secs(1)));
        // Refused attempts do not extend the wait.
        assert_eq!(log.attempt("a", t0 + secs(34)), Ok(()));
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
            let wait = log.attempt("a", t).unwrap_err();
            seen.push(wait.as_secs());
            t += wait;
            assert_eq!(log.attempt("a", t), Ok(()));
        }
        // Each wait is measured one second after the failure that started it.
        assert_eq!(seen, vec![29, 60, 120, 240, 480, 900, 900, 900]);
    }

    #[test]
    fn success_resets() {
        let mut log = FailureLog::default();
        let t0 = Instant::now();
        let t = fail(&mut log, "a", t0, 4);
        log.succeeded("a");
        assert!(log.is_empty());
        // Five free failures again.
        let t = fail(&mut log, "a", t, 5);
        assert!(log.attempt("a", t).is_err());
    }

    #[test]
    fn other_usernames_are_unaffected() {
        let mut log = FailureLog::default();
        let t = fail(&mut log, "a", Instant::now(), 5);
        assert!(log.attempt("a", t).is_err());
        assert_eq!(log.attempt("b", t), Ok(()));
    }

    #[test]
    fn failures_are_forgotten_after_a_quiet_window() {
        let mut log = FailureLog::default();
        let t0 = Instant::now();
        let t = fail(&mut log, "a", t0, 4);
        // 15 quiet minutes: the count starts again, five more are free.
        let t = fail(&mut log, "a", t + WINDOW, 5);
        assert!(log.attempt("a", t).is_err());
    }

    #[test]
    fn a_persistent_guesser_stays_at_the_cap() {
        // The forgetting window runs from the end of a wait, so waiting out the cap does
        // not earn five free guesses again.
        let mut log = FailureLog::default();
        let mut t = fail(&mut log, "a", Instant::now(), 5);
        for _ in 0..10 {
            let wait = log.attempt("a", t).unwrap_err();
            t += wait;
            assert_eq!(log.attempt("a", t), Ok(()));
        }
        assert_eq!(log.attempt("a", t + secs(1)), Err(MAX_WAIT - secs(1)));
    }

    #[test]
    fn sweep_drops_only_forgotten_usernames() {
        let mut log = FailureLog::default();
        let t0 = Instant::now();
        fail(&mut log, "locked", t0, 5);
        for i in 0..SWEEP_AT - 1 {
            log.attempt(&format!("old{i}"), t0).unwrap();
        }
        assert_eq!(log.len(), SWEEP_AT);
        let later = t0 + WINDOW + secs(1);
        // The next attempt sweeps: the old ones are gone, the locked one (its wait
        // ended 30 s after t0+4, so its window has not run out) stays.
        log.attempt("new", later).unwrap();
        assert_eq!(log.len(), 2);
        assert!(log.attempt("locked", later).is_ok());
    }

    #[test]
    fn keys_ignore_case_and_spaces() {
        assert_eq!(key("  Admin@Example.COM "), "admin@example.com");
        let t = Throttle::default();
        for _ in 0..5 {
            t.attempt_here("Admin@x.test").unwrap();
        }
        let wait = t.attempt_here(" admin@x.test").unwrap_err();
        assert!((29..=30).contains(&wait), "{wait}");
        t.log.lock().unwrap().succeeded(&key("ADMIN@x.test"));
        assert!(t.attempt_here("admin@x.test").is_ok());
    }

    #[test]
    fn message_names_the_wait() {
        assert_eq!(
            too_many_message(30),
            "Too many failed sign-in attempts; try again in 30 seconds"
        );
    }
}

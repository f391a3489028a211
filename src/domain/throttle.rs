//! The sign-in throttle's rule, pure: per username, the first failed sign-ins are free,
//! then each further attempt must wait, twice as long each time, up to a cap; a success
//! forgets the failures, and so do [`WINDOW`] quiet minutes. `auth::throttle` keeps the
//! counts in memory (SQLite: one process); the PostgreSQL store keeps them in a table so
//! that every instance behind a load balancer counts the same attempts.

use std::time::Duration;

/// Failed sign-ins allowed before attempts are refused.
pub const FREE_FAILURES: u32 = 5;
/// Failures are forgotten after this long without an attempt (counted from the end of the
/// last wait).
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// The wait after the last free failure; it doubles with every further failure.
pub const FIRST_WAIT: Duration = Duration::from_secs(30);
/// The longest wait.
pub const MAX_WAIT: Duration = Duration::from_secs(15 * 60);

/// How long to wait after `failures` failures (none before [`FREE_FAILURES`]).
pub fn wait_after(failures: u32) -> Option<Duration> {
    let extra = failures.checked_sub(FREE_FAILURES)?;
    let factor = 1u32 << extra.min(16);
    Some(FIRST_WAIT.saturating_mul(factor).min(MAX_WAIT))
}

/// The key of a username: trimmed, lower case.
pub fn key(username: &str) -> String {
    username.trim().to_lowercase()
}

/// One username's failures; times in milliseconds on one clock (any origin).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Failures {
    /// Attempts not (yet) followed by a success.
    pub count: u32,
    /// When the last attempt was counted.
    pub last_ms: i64,
    /// No attempt is allowed before this.
    pub wait_until_ms: Option<i64>,
}

impl Failures {
    /// From when the forgetting window runs.
    fn quiet_since(&self) -> i64 {
        self.wait_until_ms
            .map_or(self.last_ms, |w| w.max(self.last_ms))
    }

    /// Whether the failures are forgotten at `now_ms`.
    pub fn forgotten(&self, now_ms: i64) -> bool {
        now_ms.saturating_sub(self.quiet_since()) >= WINDOW.as_millis() as i64
    }

    /// Called before a password is checked. `Err(wait)` when the username must wait;
    /// otherwise the attempt is counted as a failure until a success forgets it (so
    /// parallel guesses cannot slip past the count).
    pub fn attempt(&mut self, now_ms: i64) -> Result<(), Duration> {
        if let Some(until) = self.wait_until_ms {
            if until > now_ms {
                return Err(Duration::from_millis((until - now_ms) as u64));
            }
        }
        if self.forgotten(now_ms) {
            self.count = 0;
            self.wait_until_ms = None;
        }
        self.count += 1;
        self.last_ms = now_ms;
        self.wait_until_ms = wait_after(self.count).map(|w| now_ms + w.as_millis() as i64);
        Ok(())
    }
}

/// Whole seconds to announce for a wait (rounded up).
pub fn wait_secs(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

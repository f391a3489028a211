//! The sign-in throttle's rule, pure. Two counts are kept for every attempt:
//!
//! - **per username and source** ([`Failures`], keyed by [`pair_key`]): the first failed
//!   sign-ins are free, then each further attempt must wait, twice as long each time, up to a
//!   cap; a success forgets the failures, and so do [`WINDOW`] quiet minutes. Guesses from
//!   one address do not make the rightful user wait at another.
//! - **per source, across usernames** ([`SourceFailures`], keyed by [`source_key`]): a
//!   source may fail [`SOURCE_FREE_FAILURES`] times at once, and each failure is forgotten
//!   [`SOURCE_FORGET_EVERY`] later, one after another (a leaky bucket, the rule of GCRA):
//!   guessing many usernames once each is slowed down too. A success takes back the failure
//!   its attempt counted.
//!
//! An attempt is refused when either count says wait; a refused attempt counts nowhere.
//! The source is the client's IP address ([`source_of`]). `auth::throttle` keeps the counts
//! in memory (SQLite: one process); the PostgreSQL store keeps them in a table so that
//! every instance behind a load balancer counts the same attempts.

use std::net::IpAddr;
use std::time::Duration;

/// Failed sign-ins allowed for one username from one source before attempts are refused.
pub const FREE_FAILURES: u32 = 5;
/// Failures are forgotten after this long without an attempt (counted from the end of the
/// last wait).
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// The wait after the last free failure; it doubles with every further failure.
pub const FIRST_WAIT: Duration = Duration::from_secs(30);
/// The longest wait.
pub const MAX_WAIT: Duration = Duration::from_secs(15 * 60);

/// Failed sign-ins one source may make, whatever the usernames, before it must wait.
pub const SOURCE_FREE_FAILURES: u32 = 20;
/// A source's failures are forgotten one at a time, one every this long: a source that
/// used them all waits this long for its next attempt, and after
/// `SOURCE_FREE_FAILURES × SOURCE_FORGET_EVERY` (an hour) without failures it has them all
/// again.
pub const SOURCE_FORGET_EVERY: Duration = Duration::from_secs(3 * 60);

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

/// The source of an attempt: the client's IP address (an IPv4 address inside IPv6 as
/// IPv4), an IPv6 address by its /64 network (one host commonly has the whole /64), or
/// `unknown` when the connection has no IP address.
pub fn source_of(ip: Option<IpAddr>) -> String {
    match ip.map(|ip| ip.to_canonical()) {
        Some(IpAddr::V4(v4)) => v4.to_string(),
        Some(IpAddr::V6(v6)) => {
            let s = v6.segments();
            let net = std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
            format!("{net}/64")
        }
        None => "unknown".into(),
    }
}

/// The key of the count per username and source.
pub fn pair_key(username: &str, source: &str) -> String {
    format!("user {source} {}", key(username))
}

/// The key of the count per source, across usernames.
pub fn source_key(source: &str) -> String {
    format!("source {source}")
}

/// One username's failures from one source; times in milliseconds on one clock (any
/// origin).
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

/// One source's failures across usernames, as the time when all of them are forgotten
/// (each adds [`SOURCE_FORGET_EVERY`]; the "theoretical arrival time" of GCRA). Times in
/// milliseconds on one clock (any origin).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceFailures {
    pub until_ms: i64,
}

fn every_ms() -> i64 {
    SOURCE_FORGET_EVERY.as_millis() as i64
}

impl SourceFailures {
    /// Failures not yet forgotten at `now_ms`.
    pub fn count(&self, now_ms: i64) -> u32 {
        let debt = (self.until_ms - now_ms).max(0);
        (debt + every_ms() - 1).checked_div(every_ms()).unwrap_or(0) as u32
    }

    /// Whether every failure is forgotten at `now_ms`.
    pub fn forgotten(&self, now_ms: i64) -> bool {
        self.until_ms <= now_ms
    }

    /// Called before a password is checked. `Err(wait)` when the source has no free
    /// failure left; otherwise the attempt is counted as a failure until a success takes it
    /// back ([`SourceFailures::succeeded`]).
    pub fn attempt(&mut self, now_ms: i64) -> Result<(), Duration> {
        let start = self.until_ms.max(now_ms);
        let allowed_until = now_ms + every_ms() * i64::from(SOURCE_FREE_FAILURES);
        let after = start + every_ms();
        if after > allowed_until {
            return Err(Duration::from_millis((after - allowed_until) as u64));
        }
        self.until_ms = after;
        Ok(())
    }

    /// The attempt counted last was a success: take its failure back.
    pub fn succeeded(&mut self) {
        self.until_ms -= every_ms();
    }
}

/// One attempt against both counts: `Err(wait)` (the longer of the two) when either says
/// wait, and then neither changes; otherwise the attempt counts in both.
pub fn attempt_both(
    pair: &mut Failures,
    source: &mut SourceFailures,
    now_ms: i64,
) -> Result<(), Duration> {
    let (mut p, mut s) = (*pair, *source);
    match (p.attempt(now_ms), s.attempt(now_ms)) {
        (Ok(()), Ok(())) => {
            *pair = p;
            *source = s;
            Ok(())
        }
        (Err(a), Err(b)) => Err(a.max(b)),
        (Err(w), Ok(())) | (Ok(()), Err(w)) => Err(w),
    }
}

/// Whole seconds to announce for a wait (rounded up).
pub fn wait_secs(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1000;

    #[test]
    fn a_source_has_twenty_free_failures_then_one_every_three_minutes() {
        let mut s = SourceFailures::default();
        let t0 = 1_000_000;
        for i in 0..SOURCE_FREE_FAILURES {
            assert_eq!(s.attempt(t0 + i64::from(i)), Ok(()), "failure {}", i + 1);
        }
        assert_eq!(s.count(t0 + 20), 20);
        let wait = s.attempt(t0 + 20).unwrap_err();
        assert!(
            wait <= SOURCE_FORGET_EVERY && wait > SOURCE_FORGET_EVERY - Duration::from_secs(1),
            "{wait:?}"
        );
        // Refused attempts do not count: after the wait, one more.
        let t = t0 + 20 + wait.as_millis() as i64;
        assert_eq!(s.attempt(t), Ok(()));
        assert!(s.attempt(t).is_err());
        // An hour later every failure is forgotten.
        let later = s.until_ms;
        assert!(s.forgotten(later));
        assert_eq!(s.count(later), 0);
        for _ in 0..SOURCE_FREE_FAILURES {
            s.attempt(later).unwrap();
        }
        assert!(s.attempt(later).is_err());
    }

    #[test]
    fn a_success_takes_back_the_failure_of_its_attempt() {
        let mut s = SourceFailures::default();
        let t = 5_000 * S;
        for _ in 0..100 {
            s.attempt(t).unwrap();
            s.succeeded();
        }
        assert_eq!(s.count(t), 0);
        // Credit does not pile up: twenty failures and the source waits.
        for _ in 0..SOURCE_FREE_FAILURES {
            s.attempt(t).unwrap();
        }
        assert!(s.attempt(t).is_err());
    }

    #[test]
    fn either_count_refuses_and_a_refusal_counts_nowhere() {
        let t = 10_000 * S;
        let mut pair = Failures::default();
        let mut source = SourceFailures::default();
        for _ in 0..FREE_FAILURES {
            attempt_both(&mut pair, &mut source, t).unwrap();
        }
        let before = (pair, source);
        assert_eq!(
            attempt_both(&mut pair, &mut source, t),
            Err(FIRST_WAIT),
            "the pair waits"
        );
        assert_eq!((pair, source), before);
        // Another username from the same source still may, until the source's count is
        // used up.
        for _ in FREE_FAILURES..SOURCE_FREE_FAILURES {
            attempt_both(&mut Failures::default(), &mut source, t).unwrap();
        }
        let mut fresh = Failures::default();
        assert!(attempt_both(&mut fresh, &mut source, t).is_err());
        assert_eq!(fresh, Failures::default());
    }

    #[test]
    fn sources_are_addresses_and_ipv6_networks() {
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        assert_eq!(source_of(ip("192.0.2.7")), "192.0.2.7");
        assert_eq!(source_of(ip("::ffff:192.0.2.7")), "192.0.2.7");
        assert_eq!(source_of(ip("2001:db8:1:2:aaaa::1")), "2001:db8:1:2::/64");
        assert_eq!(
            source_of(ip("2001:db8:1:2:ffff::9")),
            source_of(ip("2001:db8:1:2::1"))
        );
        assert_ne!(
            source_of(ip("2001:db8:1:3::1")),
            source_of(ip("2001:db8:1:2::1"))
        );
        assert_eq!(source_of(None), "unknown");
        assert_eq!(
            pair_key(" Ada@X.test", "192.0.2.7"),
            "user 192.0.2.7 ada@x.test"
        );
        assert_eq!(source_key("192.0.2.7"), "source 192.0.2.7");
    }
}

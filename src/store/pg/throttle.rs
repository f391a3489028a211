//! PostgreSQL: the sign-in throttle's counts ([`ThrottleStore`]) in `signin_failures`, one
//! row per key, read and written under row locks so that parallel attempts on several
//! instances are each counted. An attempt touches two rows (`domain::throttle`):
//!
//! - `user <source> <username>`: the [`Failures`] of a username from a source (`failures`,
//!   `last_ms`, `wait_until_ms` as named);
//! - `source <source>`: the [`SourceFailures`] of a source across usernames, kept as
//!   `wait_until_ms` = when all its failures are forgotten (`failures` holds how many are
//!   left at `last_ms`, for reading only).
//!
//! (Rows of the first version, keyed by the username alone, are no longer read and go with
//! the sweep.)

use async_trait::async_trait;

use super::Postgres;
use crate::domain::throttle::{attempt_both, Failures, SourceFailures, WINDOW};
use crate::store::throttle::ThrottleStore;
use crate::store::StoreResult;

#[async_trait]
impl ThrottleStore for Postgres {
    fn keeps_throttle(&self) -> bool {
        true
    }

    async fn throttle_attempt(
        &self,
        pair: &str,
        source: &str,
        now_ms: i64,
    ) -> StoreResult<Result<(), std::time::Duration>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        // Forgotten rows go now and then (the window has run out for them anyway): a pair
        // is forgotten WINDOW after its wait, which ends at most WINDOW after its last
        // attempt; a source when its failures are.
        if rand::random::<u8>() == 0 {
            let window = WINDOW.as_millis() as i64;
            tx.execute(
                "DELETE FROM signin_failures
                  WHERE last_ms < $1 AND COALESCE(wait_until_ms, 0) < $2",
                &[&(now_ms - 2 * window), &(now_ms - window)],
            )
            .await?;
        }
        // Both rows exist, then both are locked, always in the same order (by key: every
        // `source …` before every `user …`) so that two attempts cannot wait for each other.
        tx.execute(
            "INSERT INTO signin_failures (key, failures, last_ms) VALUES ($1, 0, $3), ($2, 0, $3)
             ON CONFLICT (key) DO NOTHING",
            &[&source, &pair, &now_ms],
        )
        .await?;
        let rows = tx
            .query(
                "SELECT key, failures, last_ms, wait_until_ms FROM signin_failures
                  WHERE key = $1 OR key = $2 ORDER BY key FOR UPDATE",
                &[&pair, &source],
            )
            .await?;
        let mut p = Failures::default();
        let mut s = SourceFailures::default();
        for row in &rows {
            let key: &str = row.get("key");
            if key == pair {
                p = Failures {
                    count: row.get::<_, i64>("failures") as u32,
                    last_ms: row.get("last_ms"),
                    wait_until_ms: row.get("wait_until_ms"),
                };
            } else {
                s = SourceFailures {
                    until_ms: row.get::<_, Option<i64>>("wait_until_ms").unwrap_or(0),
                };
            }
        }
        let verdict = attempt_both(&mut p, &mut s, now_ms);
        if verdict.is_ok() {
            tx.execute(
                "UPDATE signin_failures SET failures = $2, last_ms = $3, wait_until_ms = $4
                  WHERE key = $1",
                &[&pair, &i64::from(p.count), &p.last_ms, &p.wait_until_ms],
            )
            .await?;
            tx.execute(
                "UPDATE signin_failures SET failures = $2, last_ms = $3, wait_until_ms = $4
                  WHERE key = $1",
                &[
                    &source,
                    &i64::from(s.count(now_ms)),
                    &now_ms,
                    &Some(s.until_ms),
                ],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(verdict)
    }

    async fn throttle_succeeded(&self, pair: &str, source: &str) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        // The source's row first, as in an attempt.
        let row = tx
            .query_opt(
                "SELECT wait_until_ms FROM signin_failures WHERE key = $1 FOR UPDATE",
                &[&source],
            )
            .await?;
        if let Some(row) = row {
            let mut s = SourceFailures {
                until_ms: row.get::<_, Option<i64>>("wait_until_ms").unwrap_or(0),
            };
            s.succeeded();
            let now_ms = crate::clock::now_ms();
            tx.execute(
                "UPDATE signin_failures SET failures = $2, wait_until_ms = $3 WHERE key = $1",
                &[&source, &i64::from(s.count(now_ms)), &Some(s.until_ms)],
            )
            .await?;
        }
        tx.execute("DELETE FROM signin_failures WHERE key = $1", &[&pair])
            .await?;
        tx.commit().await?;
        Ok(())
    }
}

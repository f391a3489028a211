//! PostgreSQL: the sign-in throttle's counts ([`ThrottleStore`]) in `signin_failures`, one
//! row per username key, read and written under a row lock so that parallel attempts on
//! several instances are each counted.

use async_trait::async_trait;

use super::Postgres;
use crate::domain::throttle::{Failures, WINDOW};
use crate::store::throttle::ThrottleStore;
use crate::store::StoreResult;

#[async_trait]
impl ThrottleStore for Postgres {
    fn keeps_throttle(&self) -> bool {
        true
    }

    async fn throttle_attempt(
        &self,
        key: &str,
        now_ms: i64,
    ) -> StoreResult<Result<(), std::time::Duration>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        // Forgotten rows go now and then (the window has run out for them anyway).
        if rand::random::<u8>() == 0 {
            let before = now_ms - 2 * WINDOW.as_millis() as i64;
            tx.execute("DELETE FROM signin_failures WHERE last_ms < $1", &[&before])
                .await?;
        }
        tx.execute(
            "INSERT INTO signin_failures (key, failures, last_ms) VALUES ($1, 0, $2)
             ON CONFLICT (key) DO NOTHING",
            &[&key, &now_ms],
        )
        .await?;
        let row = tx
            .query_one(
                "SELECT failures, last_ms, wait_until_ms FROM signin_failures
                  WHERE key = $1 FOR UPDATE",
                &[&key],
            )
            .await?;
        let mut f = Failures {
            count: row.get::<_, i64>(0) as u32,
            last_ms: row.get(1),
            wait_until_ms: row.get(2),
        };
        let verdict = f.attempt(now_ms);
        if verdict.is_ok() {
            tx.execute(
                "UPDATE signin_failures SET failures = $2, last_ms = $3, wait_until_ms = $4
                  WHERE key = $1",
                &[&key, &i64::from(f.count), &f.last_ms, &f.wait_until_ms],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(verdict)
    }

    async fn throttle_succeeded(&self, key: &str) -> StoreResult<()> {
        self.client()
            .await?
            .execute("DELETE FROM signin_failures WHERE key = $1", &[&key])
            .await?;
        Ok(())
    }
}

//! Where the sign-in throttle (`auth::throttle`, rule in `domain::throttle`) keeps its
//! counts. SQLite serves one process, which keeps them in memory; PostgreSQL keeps them in
//! `signin_failures` so that every instance behind a load balancer counts the same attempts.

use async_trait::async_trait;

use super::{Sqlite, StoreResult};

#[async_trait]
pub trait ThrottleStore {
    /// Whether the store keeps the counts (several instances share them). When false the
    /// process keeps them and the two calls below are not made.
    fn keeps_throttle(&self) -> bool;
    /// Counts an attempt of `key` at `now_ms` (UTC ms): `Err(wait)` when it must wait.
    async fn throttle_attempt(
        &self,
        key: &str,
        now_ms: i64,
    ) -> StoreResult<Result<(), std::time::Duration>>;
    /// The password of `key` was right: forget its failures.
    async fn throttle_succeeded(&self, key: &str) -> StoreResult<()>;
}

#[async_trait]
impl ThrottleStore for Sqlite {
    fn keeps_throttle(&self) -> bool {
        false
    }

    async fn throttle_attempt(
        &self,
        _key: &str,
        _now_ms: i64,
    ) -> StoreResult<Result<(), std::time::Duration>> {
        Ok(Ok(()))
    }

    async fn throttle_succeeded(&self, _key: &str) -> StoreResult<()> {
        Ok(())
    }
}

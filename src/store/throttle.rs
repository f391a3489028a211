//! Where the sign-in throttle (`auth::throttle`, rule in `domain::throttle`) keeps its
//! counts. SQLite serves one process, which keeps them in memory; PostgreSQL keeps them in
//! `signin_failures` so that every instance behind a load balancer counts the same attempts.
//! Two counts per attempt: per username and source (`domain::throttle::pair_key`) and per
//! source (`source_key`).

use async_trait::async_trait;

use super::StoreResult;

#[async_trait]
pub trait ThrottleStore {
    /// Whether the store keeps the counts (several instances share them). When false the
    /// process keeps them and the two calls below are not made.
    fn keeps_throttle(&self) -> bool;
    /// Counts an attempt at `now_ms` (UTC ms) under the pair's and the source's key
    /// (`domain::throttle::attempt_both`): `Err(wait)` when either must wait, and then
    /// neither count changes.
    async fn throttle_attempt(
        &self,
        pair: &str,
        source: &str,
        now_ms: i64,
    ) -> StoreResult<Result<(), std::time::Duration>>;
    /// The password was right: forget the pair's failures, take back the source's.
    async fn throttle_succeeded(&self, pair: &str, source: &str) -> StoreResult<()>;
}

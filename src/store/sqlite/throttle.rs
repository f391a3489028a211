//! SQLite: [`ThrottleStore`]. One process serves a SQLite file, so it keeps the sign-in
//! throttle's counts in memory (`auth::throttle`); the store keeps none.

use async_trait::async_trait;

use crate::store::throttle::ThrottleStore;
use crate::store::{Sqlite, StoreResult};

#[async_trait]
impl ThrottleStore for Sqlite {
    fn keeps_throttle(&self) -> bool {
        false
    }

    async fn throttle_attempt(
        &self,
        _pair: &str,
        _source: &str,
        _now_ms: i64,
    ) -> StoreResult<Result<(), std::time::Duration>> {
        Ok(Ok(()))
    }

    async fn throttle_succeeded(&self, _pair: &str, _source: &str) -> StoreResult<()> {
        Ok(())
    }
}

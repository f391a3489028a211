//! SQLite: [`LeaseStore`]. One process serves a SQLite file (the data directory is locked),
//! so it holds every lease.

use async_trait::async_trait;

use crate::store::leases::{Lease, LeaseStore};
use crate::store::{Sqlite, StoreResult};

#[async_trait]
impl LeaseStore for Sqlite {
    async fn try_lease(&self, name: &str) -> StoreResult<Option<Lease>> {
        Ok(Some(Lease::local(name)))
    }
}

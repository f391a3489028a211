//! PostgreSQL: leases ([`LeaseStore`]) as session advisory locks, each on a connection of
//! its own (not the pool's: a pooled connection would keep the lock after going back).
//! The server releases the lock the moment that connection closes, whether the instance
//! stopped, was killed or lost the network; [`Lease::is_lost`] then tells the worker.

use async_trait::async_trait;
use sha2::{Digest, Sha256};

use super::Postgres;
use crate::store::leases::{Hold, Lease, LeaseStore};
use crate::store::{StoreError, StoreResult};

/// The advisory lock key of a lease name: the first 8 bytes of its SHA-256.
fn key_of(name: &str) -> i64 {
    let d = Sha256::digest(format!("cxwatch lease {name}").as_bytes());
    i64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
}

struct Connection {
    client: tokio_postgres::Client,
}

impl Hold for Connection {
    fn is_lost(&self) -> bool {
        self.client.is_closed()
    }
}

#[async_trait]
impl LeaseStore for Postgres {
    async fn try_lease(&self, name: &str) -> StoreResult<Option<Lease>> {
        let (client, conn) = self
            .pg_config
            .connect(self.tls.clone())
            .await
            .map_err(|e| StoreError::Unavailable(format!("database {}: {e}", self.describe)))?;
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::warn!(error = %e, "lease connection closed");
            }
        });
        let got: bool = client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&key_of(name)])
            .await?
            .get(0);
        Ok(got.then(|| Lease::held(name, Box::new(Connection { client }))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_holder_at_a_time_and_the_next_takes_over() {
        let Some(url) = super::super::testdb::fresh().await else {
            return;
        };
        let config = crate::config::StoreConfig {
            url,
            ..Default::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let a = Postgres::connect(&config, dir.path()).await.unwrap();
        let b = Postgres::connect(&config, dir.path()).await.unwrap();
        let held = a.try_lease("notify").await.unwrap().expect("free");
        assert!(!held.is_lost());
        assert!(b.try_lease("notify").await.unwrap().is_none(), "held by a");
        assert!(b.try_lease("demo").await.unwrap().is_some(), "another name");
        drop(held);
        let mut taken = None;
        for _ in 0..50 {
            taken = b.try_lease("notify").await.unwrap();
            if taken.is_some() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert!(
            taken.is_some(),
            "released when the holder's connection closed"
        );
    }
}

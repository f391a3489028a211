//! Leases: work that exactly one cxwatch instance may do at a time on one database (the
//! notification sender, the auto tickets' worker, the demo's live feed). SQLite serves one
//! process (the data directory is locked), which always holds every lease; on PostgreSQL a
//! lease is a session advisory lock held on a connection of its own, released by the server
//! the moment that connection closes, so when the holder dies another instance takes it
//! over at its next try ([`acquire`] tries every second).

use std::time::Duration;

use async_trait::async_trait;

use super::{Store, StoreResult};

/// A held lease: the work it guards may run while [`Lease::is_lost`] is false.
pub struct Lease {
    name: String,
    hold: Option<Box<dyn Hold>>,
}

/// What keeps a lease held (PostgreSQL: the connection with the advisory lock).
pub trait Hold: Send + Sync {
    /// Whether the lease is gone (the connection closed).
    fn is_lost(&self) -> bool;
}

impl Lease {
    /// A lease nobody else can ask for (SQLite: one process).
    pub fn local(name: &str) -> Lease {
        Lease {
            name: name.to_string(),
            hold: None,
        }
    }

    pub fn held(name: &str, hold: Box<dyn Hold>) -> Lease {
        Lease {
            name: name.to_string(),
            hold: Some(hold),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the lease is gone: the work must stop and [`acquire`] it again.
    pub fn is_lost(&self) -> bool {
        self.hold.as_ref().is_some_and(|h| h.is_lost())
    }
}

#[async_trait]
pub trait LeaseStore {
    /// Takes the lease `name` if no other instance holds it.
    async fn try_lease(&self, name: &str) -> StoreResult<Option<Lease>>;
}

/// How often an instance without the lease asks again.
pub const RETRY: Duration = Duration::from_secs(1);

/// Waits until this instance holds the lease `name`.
pub async fn acquire(store: &Store, name: &str) -> Lease {
    let mut waiting = false;
    loop {
        match store.try_lease(name).await {
            Ok(Some(lease)) => {
                if waiting {
                    tracing::info!(
                        lease = name,
                        "lease taken over: this instance does the work now"
                    );
                }
                return lease;
            }
            Ok(None) => {
                if !waiting {
                    tracing::info!(lease = name, "another instance holds the lease; waiting");
                    waiting = true;
                }
            }
            Err(e) => tracing::warn!(lease = name, error = %e, "cannot ask for the lease"),
        }
        tokio::time::sleep(RETRY).await;
    }
}

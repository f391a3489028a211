//! The SQLite backend's own code.

mod alerts;
pub mod backup;
pub mod outbox;
pub mod recordings;
mod reports;
mod runs;

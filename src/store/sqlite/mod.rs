//! The SQLite backend's own code.

mod alerts;
pub mod backup;
mod outbox;
pub mod recordings;
mod reports;
mod runs;

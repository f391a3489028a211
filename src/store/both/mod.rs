//! Tests that feed both backends the same data and compare every read: the code each
//! backend keeps for speed (the alert engine, the report views) must answer as the other's.
//! They belong to neither backend's folder.

pub(crate) mod alerts;
mod reports;

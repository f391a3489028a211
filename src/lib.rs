//! cxwatch: a console for watching automated contact-centre test calls.
//!
//! The binary serves the UI (baked in with rust-embed) over TLS and answers `/api`
//! either from its own store (`embedded`) or by forwarding to a tenant's upstream (`proxy`).

pub mod api;
pub mod auth;
pub mod cli;
pub mod clock;
pub mod config;
pub mod demo;
pub mod demo_accounts;
pub mod domain;
pub mod jira;
pub mod notify;
pub mod proxy;
pub mod server;
pub mod sso;
pub mod store;
pub mod telemetry;
pub mod trust;

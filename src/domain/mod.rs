//! The project's vocabulary, without storage or HTTP: who calls (roles, access, scope),
//! the words of a test run, users, pages of a list, and the pure rules over them.
//! Nothing here imports another module of cxwatch; every other layer imports from here.

pub mod alert_setting;
pub mod alerting;
pub mod buckets;
pub mod caller;
pub mod client;
pub mod csv;
pub mod delivery;
pub mod dist;
pub mod distribution;
pub mod group;
pub mod incident;
pub mod ingest;
pub mod messages;
pub mod notify;
pub mod opstate;
pub mod page;
pub mod report;
pub mod report_csv;
pub mod report_mail;
pub mod report_schedule;
pub mod rules;
pub mod run;
pub mod schedule;
pub mod throttle;
pub mod ticket;
pub mod user;
pub mod varint;

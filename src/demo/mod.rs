//! `cxwatch serve --demo`: a realistic demo site. A seeded generator produces the test
//! catalog, 30 days of runs with incidents, client application health and telephone-like
//! recordings; a live feed keeps adding runs while the server runs.

pub mod audio;
pub mod catalog;
pub mod generator;
pub mod rng;

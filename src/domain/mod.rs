//! Pure logic of test-run data, without storage or HTTP: site-local time buckets and
//! value distributions (quantised histograms, exact medians). Unit tested here.

pub mod buckets;
pub mod dist;
pub mod varint;

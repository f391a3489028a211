//! Prometheus metrics (`GET /metrics`, OpenMetrics text; every metric in `docs/metrics.md`).
//!
//! Counters are kept in memory and counted where things happen (ingest, the HTTP layer);
//! gauges that describe the data (database size, last run per test case, open alert events,
//! the notification outbox) are read from the store at scrape time ([`OpsStore`]).
//! Label values are bounded: route templates from the OpenAPI document (never raw paths),
//! test case and group ids from the catalog, fixed words for channels and statuses.

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use crate::store::runs::IngestOutcome;
use crate::store::Store;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunLabels {
    /// Group id, or "" for a test case in no group.
    group: String,
    test_case: String,
    channel: &'static str,
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CaseLabels {
    test_case: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: &'static str,
    route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: &'static str,
    status: u16,
}

type Seconds = Gauge<f64, AtomicU64>;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SourceLabels {
    source: &'static str,
}

/// The metrics of one running application.
pub struct Telemetry {
    registry: Registry,
    runs: Family<RunLabels, Counter>,
    last_run: Family<CaseLabels, Seconds>,
    ingest_batches: Counter,
    ingest_runs: Family<OutcomeLabels, Counter>,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram>,
    database_size: Gauge,
    alert_events_open: Gauge,
    outbox_depth: Gauge,
    outbox_failed: Gauge,
    live_streams: Gauge,
    tls_not_after: Family<SourceLabels, Gauge>,
    tls_reloads: Family<OutcomeLabels, Counter>,
    free_bytes: Gauge,
    min_free_bytes: Gauge,
}

impl Default for Telemetry {
    fn default() -> Self {
        Self::new()
    }
}

impl Telemetry {
    pub fn new() -> Telemetry {
        let mut registry = Registry::default();
        let runs = Family::<RunLabels, Counter>::default();
        registry.register(
            "cxwatch_test_runs",
            "Test runs stored, by group id, test case id, channel and status",
            runs.clone(),
        );
        let last_run = Family::<CaseLabels, Seconds>::default();
        registry.register(
            "cxwatch_test_case_last_run_timestamp_seconds",
            "Start time of the last stored run of each test case (Unix seconds)",
            last_run.clone(),
        );
        let ingest_batches = Counter::default();
        registry.register(
            "cxwatch_ingest_batches",
            "Run batches posted to the ingest API and answered 200",
            ingest_batches.clone(),
        );
        let ingest_runs = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "cxwatch_ingest_runs",
            "Runs posted to the ingest API, by outcome (accepted, duplicate, rejected)",
            ingest_runs.clone(),
        );
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "cxwatch_http_requests",
            "HTTP requests answered, by method, route template and status",
            requests.clone(),
        );
        let latency = Family::<RouteLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.001, 2.0, 15))
        });
        registry.register(
            "cxwatch_http_request_duration_seconds",
            "Time to answer an HTTP request (head of the answer), by method and route template",
            latency.clone(),
        );
        let database_size = Gauge::default();
        registry.register(
            "cxwatch_database_size_bytes",
            "Bytes the database takes on disk (pages in use plus the write-ahead log)",
            database_size.clone(),
        );
        let alert_events_open = Gauge::default();
        registry.register(
            "cxwatch_alert_events_open",
            "Alert events not yet closed",
            alert_events_open.clone(),
        );
        let outbox_depth = Gauge::default();
        registry.register(
            "cxwatch_notification_outbox_depth",
            "Notifications waiting in the outbox",
            outbox_depth.clone(),
        );
        let outbox_failed = Gauge::default();
        registry.register(
            "cxwatch_notification_outbox_failed",
            "Notifications given up on after their retries",
            outbox_failed.clone(),
        );
        let live_streams = Gauge::default();
        registry.register(
            "cxwatch_live_streams",
            "Open live-update streams of dashboards (server-sent events)",
            live_streams.clone(),
        );
        // No sample without TLS (plain HTTP): an alert on the expiry sees nothing rather than 0.
        let tls_not_after = Family::<SourceLabels, Gauge>::default();
        registry.register(
            "cxwatch_tls_certificate_expiry_timestamp_seconds",
            "End of validity (notAfter, Unix seconds) of the served TLS certificate, by source (configured, self-signed)",
            tls_not_after.clone(),
        );
        let tls_reloads = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "cxwatch_tls_reloads",
            "Reloads of the TLS certificate (SIGHUP, the daily renewal), by outcome (ok, failed)",
            tls_reloads.clone(),
        );
        let free_bytes = Gauge::default();
        registry.register(
            "cxwatch_data_dir_free_bytes",
            "Bytes still free for cxwatch on the volume holding the data directory",
            free_bytes.clone(),
        );
        let min_free_bytes = Gauge::default();
        registry.register(
            "cxwatch_data_dir_min_free_bytes",
            "Free bytes ingest leaves on that volume (store.min_free_mb): below, ingest is refused",
            min_free_bytes.clone(),
        );
        Telemetry {
            registry,
            runs,
            last_run,
            ingest_batches,
            ingest_runs,
            requests,
            latency,
            database_size,
            alert_events_open,
            outbox_depth,
            outbox_failed,
            live_streams,
            tls_not_after,
            tls_reloads,
            free_bytes,
            min_free_bytes,
        }
    }

    /// The served certificate's end (Unix seconds); `None` (unreadable) removes the sample.
    pub fn tls_certificate(&self, source: &'static str, not_after: Option<i64>) {
        self.tls_not_after.clear();
        if let Some(end) = not_after {
            self.tls_not_after
                .get_or_create(&SourceLabels { source })
                .set(end);
        }
    }

    /// Counts a reload of the certificate.
    pub fn tls_reload(&self, ok: bool) {
        let outcome = if ok { "ok" } else { "failed" };
        self.tls_reloads
            .get_or_create(&OutcomeLabels { outcome })
            .inc();
    }

    /// Counts an answered ingest batch: the batch, its runs by outcome, each stored run.
    pub fn ingested(&self, outcome: &IngestOutcome, rejected: usize) {
        self.ingest_batches.inc();
        let by = |o| {
            self.ingest_runs
                .get_or_create(&OutcomeLabels { outcome: o })
        };
        by("accepted").inc_by(outcome.accepted as u64);
        by("duplicate").inc_by(outcome.duplicates as u64);
        by("rejected").inc_by(rejected as u64);
        for run in &outcome.stored {
            let test_case = run.test_case_id.to_string();
            let groups: Vec<String> = if run.group_ids.is_empty() {
                vec![String::new()]
            } else {
                run.group_ids.iter().map(i64::to_string).collect()
            };
            for group in groups {
                self.runs
                    .get_or_create(&RunLabels {
                        group,
                        test_case: test_case.clone(),
                        channel: run.channel.as_str(),
                        status: run.status.as_str(),
                    })
                    .inc();
            }
        }
    }

    /// Counts an answered HTTP request. `route` is a template (`/api/users/{id}`) or a fixed
    /// word, never the raw path.
    pub fn request(&self, method: &str, route: &'static str, status: u16, seconds: f64) {
        let method = bounded_method(method);
        self.requests
            .get_or_create(&RequestLabels {
                method,
                route,
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabels { method, route })
            .observe(seconds);
    }

    /// The gauge of open live streams (`api/live.rs` adds and removes).
    pub fn live_streams(&self) -> &Gauge {
        &self.live_streams
    }

    /// Reads the store's gauges and writes the OpenMetrics text.
    pub async fn scrape(&self, store: Option<&Store>) -> String {
        if let Some(store) = store {
            if let Ok(r) = store.space().reading() {
                self.free_bytes
                    .set(i64::try_from(r.free).unwrap_or(i64::MAX));
            }
            self.min_free_bytes
                .set(i64::try_from(store.space().min_free()).unwrap_or(i64::MAX));
            if let Ok(size) = store.database_size().await {
                self.database_size.set(size);
            }
            if let Ok(n) = store.open_alert_events().await {
                self.alert_events_open.set(n);
            }
            if let Ok(o) = store.outbox_figures().await {
                self.outbox_depth.set(o.depth);
                self.outbox_failed.set(o.failed);
            }
            if let Ok(last) = store.last_runs().await {
                self.last_run.clear();
                for (case, at_ms) in last {
                    self.last_run
                        .get_or_create(&CaseLabels {
                            test_case: case.to_string(),
                        })
                        .set(at_ms as f64 / 1000.0);
                }
            }
        }
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// The method as a label: the standard ones, anything else "other".
fn bounded_method(method: &str) -> &'static str {
    ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        .into_iter()
        .find(|m| *m == method)
        .unwrap_or("other")
}

/// The content type of the OpenMetrics text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::run::{Channel, RunStatus};
    use crate::store::runs::StoredRun;

    #[test]
    fn counts_runs_per_group_and_requests_per_template() {
        let t = Telemetry::new();
        let outcome = IngestOutcome {
            accepted: 2,
            duplicates: 1,
            rejected: Vec::new(),
            stored: vec![
                StoredRun {
                    test_case_id: 7,
                    channel: Channel::Voice,
                    status: RunStatus::Fail,
                    run_time: 1_700_000_000,
                    group_ids: vec![1, 2],
                },
                StoredRun {
                    test_case_id: 8,
                    channel: Channel::Voice,
                    status: RunStatus::Pass,
                    run_time: 1_700_000_000,
                    group_ids: vec![],
                },
            ],
            ..Default::default()
        };
        t.ingested(&outcome, 3);
        t.request("GET", "/api/users/{id}", 200, 0.004);
        t.request("BREW", "/api/users/{id}", 405, 0.001);
        let text = Store::block_on(t.scrape(None));
        for line in [
            "cxwatch_test_runs_total{group=\"1\",test_case=\"7\",channel=\"voice\",status=\"fail\"} 1",
            "cxwatch_test_runs_total{group=\"2\",test_case=\"7\",channel=\"voice\",status=\"fail\"} 1",
            "cxwatch_test_runs_total{group=\"\",test_case=\"8\",channel=\"voice\",status=\"pass\"} 1",
            "cxwatch_ingest_batches_total 1",
            "cxwatch_ingest_runs_total{outcome=\"rejected\"} 3",
            "cxwatch_http_requests_total{method=\"GET\",route=\"/api/users/{id}\",status=\"200\"} 1",
            "cxwatch_http_requests_total{method=\"other\",route=\"/api/users/{id}\",status=\"405\"} 1",
            "cxwatch_http_request_duration_seconds_count{method=\"GET\",route=\"/api/users/{id}\"} 1",
            "# EOF",
        ] {
            assert!(text.contains(line), "{line} missing in\n{text}");
        }
    }
}

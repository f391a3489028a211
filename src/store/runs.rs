//! Test runs: ingest (idempotent by the engine's run id, rollups updated in the same
//! transaction), the paged run list of a test case and one run's detail. The trait and what
//! both backends share; the SQL is in `sqlite/runs.rs` and `pg/runs.rs`.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use sha2::Digest;

use super::StoreResult;
use crate::domain::caller::{Scope, Visibility};
use crate::domain::ingest::IngestRun;
use crate::domain::page::{Page, PageRequest, Sort};
use crate::domain::run::{Channel, RunSortField, RunStatus, RunType};

pub use super::run_detail::ScriptStep;

#[async_trait]
pub trait RunStore {
    /// Stores a batch of runs in one transaction: creates or updates their test cases, IVR
    /// applications and segments, skips runs whose `engineRunId` is already stored, rejects
    /// invalid runs (index and reason; nothing of them is written) and adds the stored runs
    /// to the rollups, bucketed in the site time zone `tz`. Recordings a run refers to must
    /// be stored first ([`super::RecordingStore::put_recording`]).
    async fn ingest_runs(&self, tz: Tz, runs: Vec<IngestRun>) -> StoreResult<IngestOutcome>;
    /// One page of the runs of a test case matching `filter`, newest first, with the
    /// status text of each, when the test case exists and the scope may see it.
    async fn case_runs(
        &self,
        scope: Scope,
        filter: RunFilter,
        page: PageRequest,
    ) -> StoreResult<Visibility<Page<RunRow>>>;
    /// Run `id` with its segments and steps, when it exists and the scope may see its test
    /// case.
    async fn run(&self, scope: Scope, id: i64) -> StoreResult<Visibility<RunDetail>>;
    /// One page of the runs of the test cases of group `filter.group_id` matching
    /// `filter`, newest first, when the group exists and the scope may see it (the runs
    /// behind a dashboard bar).
    async fn group_runs(
        &self,
        scope: Scope,
        filter: GroupRunFilter,
        page: PageRequest,
    ) -> StoreResult<Visibility<Page<RunRow>>>;
    /// Rebuilds the rollups from the stored runs in time zone `tz`; returns how many runs
    /// were counted.
    async fn rebuild_rollups(&self, tz: Tz) -> StoreResult<u64>;
    /// Runs stored and the time of the first and last (benchmarks, diagnostics).
    async fn run_extent(&self) -> StoreResult<RunExtent>;
    /// Copies the write-ahead log into the database file and empties it; returns how many
    /// pages the log held.
    async fn checkpoint(&self) -> StoreResult<u64>;
    /// Bytes each table and index takes, largest first (needs SQLite's `dbstat`).
    async fn table_sizes(&self) -> StoreResult<Vec<(String, u64)>>;
}

/// How many runs are stored and when the first and last started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunExtent {
    /// The highest run id (runs are never deleted, so their number).
    pub runs: u64,
    pub first: Option<DateTime<Utc>>,
    pub last: Option<DateTime<Utc>>,
}

/// The recording ids a run refers to, where (for the message) first.
pub(super) fn recording_refs(run: &IngestRun) -> Vec<(String, &str)> {
    let mut refs: Vec<(String, &str)> = Vec::new();
    if let Some(r) = &run.recording_id {
        refs.push(("recordingId".into(), r));
    }
    for (i, seg) in run.segments.iter().enumerate() {
        for (j, step) in seg.steps.iter().enumerate() {
            if let Some(r) = &step.recording_id {
                refs.push((format!("segments[{i}].steps[{j}].recordingId"), r));
            }
        }
    }
    refs
}

/// How an `engineRunId` is kept: the first 16 bytes of its SHA-256 (a fixed 16 bytes
/// whatever the engine's ids look like; two ids sharing them is as likely as two random
/// UUIDs colliding).
pub fn engine_key(engine_run_id: &str) -> [u8; 16] {
    let digest = sha2::Sha256::digest(engine_run_id.as_bytes());
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// What happened to a batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IngestOutcome {
    /// Runs stored now.
    pub accepted: usize,
    /// Runs whose `engineRunId` was already stored (earlier or in this batch): not stored again.
    pub duplicates: usize,
    /// Runs refused, with their index in the batch and the reason.
    pub rejected: Vec<Rejected>,
    /// What was stored, for the metrics and the live dashboard (`crate::telemetry`,
    /// `api/live.rs`): one entry per stored run.
    pub stored: Vec<StoredRun>,
    /// What the alert engine did with the stored runs (queued notifications: wake the
    /// notifier after the commit).
    pub alerts: crate::domain::alerting::EngineOutcome,
    /// The stored runs as the engine takes them (consumed inside the transaction).
    #[doc(hidden)]
    pub evaluated: Vec<crate::domain::alerting::Evaluated>,
}

/// A run stored by an ingest batch, with the groups its test case is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRun {
    pub test_case_id: i64,
    pub channel: crate::domain::run::Channel,
    pub status: crate::domain::run::RunStatus,
    /// Seconds since the epoch.
    pub run_time: i64,
    pub group_ids: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub index: usize,
    pub reason: String,
}

/// Which runs of a test case to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunFilter {
    pub test_case_id: i64,
    /// UTC ms, inclusive.
    pub from_ms: i64,
    /// UTC ms, exclusive.
    pub to_ms: i64,
    /// Stored status codes `lo..=hi` (0 pass, 1 warn, 2 fail, 3 stopped).
    pub status: (u8, u8),
    /// Run type codes `lo..=hi` (0 Manual, 1 Schedule).
    pub run_type: (u8, u8),
    /// The order asked for; none: newest first.
    pub sort: Option<Sort<RunSortField>>,
}

/// Which runs of a group's test cases to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupRunFilter {
    pub group_id: i64,
    /// UTC ms, inclusive.
    pub from_ms: i64,
    /// UTC ms, exclusive.
    pub to_ms: i64,
    /// Stored status codes `lo..=hi` (0 pass, 1 warn, 2 fail, 3 stopped).
    pub status: (u8, u8),
    /// Run type codes `lo..=hi` (0 Manual, 1 Schedule).
    pub run_type: (u8, u8),
    /// The order asked for; none: newest first.
    pub sort: Option<Sort<RunSortField>>,
}

/// A group a run's test case belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupName {
    pub id: i64,
    pub name: String,
}

/// A run as lists show it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    pub id: i64,
    pub test_case_id: i64,
    pub test_case_name: String,
    pub run_time: DateTime<Utc>,
    pub duration_ms: i64,
    pub status: RunStatus,
    pub run_type: RunType,
    /// Hundredths.
    pub mos: Option<u32>,
    /// Text of the run's alert status ('Pass', 'Warning', 'Failure').
    pub status_text: String,
}

pub(super) fn status_text(texts: &BTreeMap<i64, String>, status: RunStatus) -> String {
    texts.get(&status.status_id()).cloned().unwrap_or_default()
}

pub(super) fn ms_to_time(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}

/// One run with everything the run-detail screen shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RunDetail {
    pub run: RunRow,
    pub channel: Channel,
    pub ivr_id: i64,
    pub ivr_name: String,
    /// The test case's groups the reader may see, by name.
    pub groups: Vec<GroupName>,
    /// Public id of the call recording.
    pub recording_id: Option<String>,
    pub segments: Vec<SegmentDetail>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SegmentDetail {
    pub segment_id: i64,
    pub segment_name: String,
    pub steps: Vec<StepDetail>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StepDetail {
    pub script: ScriptStep,
    pub status: RunStatus,
    pub utterance: Option<String>,
    pub latency: Option<i64>,
    pub confidence: Option<f64>,
    pub recording_duration: Option<f64>,
    pub start_time: Option<DateTime<Utc>>,
    pub end_time: Option<DateTime<Utc>>,
    pub recording_id: Option<String>,
    pub barge_in_time: Option<i64>,
}

/// A run's segments and steps: its script with its stored step results in order, each
/// step's utterance (a `texts` row) and recording (a `recordings` row) named by `text` and
/// `recording`, which each backend reads its way.
pub(super) fn segment_details(
    script: Vec<super::run_detail::ScriptSegment>,
    results: Vec<super::run_detail::StoredResult>,
    mut text: impl FnMut(i64) -> StoreResult<Option<String>>,
    mut recording: impl FnMut(i64) -> StoreResult<Option<String>>,
) -> StoreResult<Vec<SegmentDetail>> {
    let mut results = results.into_iter();
    let mut segments = Vec::with_capacity(script.len());
    for seg in script {
        let mut steps = Vec::with_capacity(seg.steps.len());
        for step in seg.steps {
            let r = results.next().unwrap_or_default();
            steps.push(StepDetail {
                status: r.status(),
                utterance: r.utterance.map(&mut text).transpose()?.flatten(),
                latency: r.latency,
                confidence: r.confidence.map(|c| f64::from(c) / 10_000.0),
                recording_duration: r.recording_duration_ms.map(|d| d as f64 / 1000.0),
                start_time: r.start_ms.map(ms_to_time),
                end_time: r.end_ms.map(ms_to_time),
                recording_id: r.recording.map(&mut recording).transpose()?.flatten(),
                barge_in_time: r.barge_in_time,
                script: step,
            });
        }
        segments.push(SegmentDetail {
            segment_id: seg.segment_id,
            segment_name: seg.segment_name,
            steps,
        });
    }
    Ok(segments)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::ingest::parse_run;
    use crate::store::catalog::GroupDraft;
    use crate::store::metrics::{self, MetricQuery, MosQuery};
    use chrono_tz::America::Toronto;
    use rand::{Rng, SeedableRng};
    use serde_json::json;

    /// A voice run of two segments (a prompt, a key press) for both backends' tests.
    pub(crate) fn run(engine_id: &str, case: i64, time: &str, status: &str, mos: f64) -> IngestRun {
        parse_run(&json!({
            "engineRunId": engine_id,
            "testCase": {"id": case, "name": format!("Case {case}"), "channel": "voice",
                         "ivr": {"id": 10, "name": "Main IVR"}},
            "runTime": time, "runDuration": 42.5, "status": status, "runType": "Schedule",
            "mosCqIn": mos,
            "segments": [
                {"segmentId": 1, "segmentName": "Greeting", "steps": [
                    {"stepId": 1, "stepType": "PROMPT", "typeDisplayText": "Prompt",
                     "prompt": "Welcome", "promptLatencyMin": 100, "promptLatencyMax": 2000,
                     "testResult": {"status": "pass", "utterance": "Welcome to Acme",
                                    "latency": 850, "confidence": 0.92,
                                    "recordingDuration": 2.25,
                                    "startTime": time, "endTime": time}}]},
                {"segmentId": 2, "segmentName": "Menu", "steps": [
                    {"stepId": 2, "stepType": "DTMF", "typeDisplayText": "Key press",
                     "bargeInTime": 300,
                     "testResult": {"status": status, "latency": 1210}}]}
            ]
        }))
        .unwrap()
    }

    fn visible<T>(v: Visibility<T>) -> T {
        match v {
            Visibility::Visible(t) => t,
            _ => panic!("not visible"),
        }
    }

    #[tokio::test]
    async fn ingest_is_idempotent_and_rolls_up() {
        let (_dir, store) = crate::store::testing::store().await;
        let batch = vec![
            run("a", 1, "2026-07-15T14:05:00Z", "pass", 4.31),
            run("b", 1, "2026-07-15T14:10:00Z", "fail", 3.0),
            run("a", 1, "2026-07-15T14:05:00Z", "pass", 4.31),
        ];
        let out = store.ingest_runs(Toronto, batch.clone()).await.unwrap();
        assert_eq!((out.accepted, out.duplicates), (2, 1));
        assert_eq!(out.stored.len(), 2);
        assert_eq!(out.evaluated, vec![]);
        let again = store.ingest_runs(Toronto, batch.clone()).await.unwrap();
        assert_eq!((again.accepted, again.duplicates), (0, 3));
        let extent = store.run_extent().await.unwrap();
        assert_eq!(extent.runs, 2);
        assert_eq!(
            extent.first.unwrap().to_rfc3339(),
            "2026-07-15T14:05:00+00:00"
        );
        assert!(store
            .table_sizes()
            .await
            .unwrap()
            .iter()
            .any(|(t, _)| t == "test_runs"));
        let group = store
            .create_group(&GroupDraft {
                name: "G".into(),
                channel: Channel::Voice,
                test_case_ids: vec![1],
            })
            .await
            .unwrap()
            .group
            .id;
        let d = crate::domain::buckets::parse_date("2026-07-15").unwrap();
        let m = visible(
            store
                .group_metric(
                    Scope::All,
                    MetricQuery {
                        group_id: group,
                        level: metrics::Level::Case,
                        from: d,
                        to: d,
                        run_type: RunType::Schedule,
                    },
                )
                .await
                .unwrap(),
        );
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].counts, [1, 0, 1, 0]);
        assert_eq!(m[0].hourly[10], [1, 0, 1, 0]);
        let lat = m[0].latency.unwrap();
        assert_eq!((lat.n, lat.min, lat.max, lat.sum), (4, 850, 1210, 4120));
        let mos = m[0].mos.unwrap();
        assert_eq!((mos.n, mos.min, mos.max, mos.median_x2), (2, 300, 431, 731));
        let seg = visible(
            store
                .group_metric(
                    Scope::All,
                    MetricQuery {
                        group_id: group,
                        level: metrics::Level::Segment,
                        from: d,
                        to: d,
                        run_type: RunType::Schedule,
                    },
                )
                .await
                .unwrap(),
        );
        let names: Vec<_> = seg.iter().map(|e| e.segment.clone().unwrap()).collect();
        assert_eq!(names, vec![(1, "Greeting".into()), (2, "Menu".into())]);
        // Segment 1's steps all passed; segment 2 carries the run's failure.
        assert_eq!(seg[0].counts, [2, 0, 0, 0]);
        assert_eq!(seg[1].counts, [1, 0, 1, 0]);
        // Nothing for Manual runs.
        let manual = visible(
            store
                .group_mos(
                    Scope::All,
                    MosQuery {
                        group_id: group,
                        from: d,
                        to: d,
                        run_type: RunType::Manual,
                    },
                )
                .await
                .unwrap(),
        );
        assert_eq!(
            store
                .group_mos(
                    Scope::User(1),
                    MosQuery {
                        group_id: group,
                        from: d,
                        to: d,
                        run_type: RunType::Manual
                    }
                )
                .await
                .unwrap(),
            Visibility::Hidden
        );
        assert!(manual.iter().all(Option::is_none));
    }

    #[tokio::test]
    async fn bad_items_are_rejected_alone() {
        let (_dir, store) = crate::store::testing::store().await;
        let mut bad_mos = run("m", 1, "2026-07-15T14:05:00Z", "pass", 4.0);
        bad_mos.mos_cq_in = Some(5.5);
        let mut bad_rec = run("r", 1, "2026-07-15T14:05:00Z", "pass", 4.0);
        bad_rec.recording_id = Some("ab".repeat(32));
        let mut empty_id = run("z", 1, "2026-07-15T14:05:00Z", "pass", 4.0);
        empty_id.engine_run_id = " ".into();
        let good = run("g", 1, "2026-07-15T14:05:00Z", "warn", 4.0);
        let out = store
            .ingest_runs(Toronto, vec![bad_mos, bad_rec, good, empty_id])
            .await
            .unwrap();
        assert_eq!(out.accepted, 1);
        let reasons: Vec<_> = out
            .rejected
            .iter()
            .map(|r| (r.index, r.reason.clone()))
            .collect();
        assert_eq!(reasons.len(), 3);
        assert_eq!(reasons[0].0, 0);
        assert!(reasons[0].1.contains("mosCqIn"), "{reasons:?}");
        assert_eq!(reasons[1].0, 1);
        assert!(
            reasons[1].1.contains("not a stored recording"),
            "{reasons:?}"
        );
        assert_eq!(reasons[2].0, 3);
        // Once the recording is stored, the run is accepted.
        let rec = store
            .put_recording(bytes::Bytes::from_static(b"OggS-audio"), "audio/ogg")
            .await
            .unwrap()
            .id;
        let mut with_rec = run("r", 1, "2026-07-15T14:05:00Z", "pass", 4.0);
        with_rec.recording_id = Some(rec.clone());
        with_rec.segments[0].steps[0].recording_id = Some(rec.clone());
        let out = store.ingest_runs(Toronto, vec![with_rec]).await.unwrap();
        assert_eq!(out.accepted, 1);
        assert_eq!(store.run_extent().await.unwrap().runs, 2);
    }

    #[tokio::test]
    async fn detail_round_trips() {
        let (_dir, store) = crate::store::testing::store().await;
        let rec = store
            .put_recording(bytes::Bytes::from_static(b"RIFFxxxxWAVE"), "audio/wav")
            .await
            .unwrap()
            .id;
        let mut r = run("x", 7, "2026-03-08T06:30:00.250Z", "warn", 3.456);
        r.recording_id = Some(rec.clone());
        r.segments[1].steps[0].recording_id = Some(rec.clone());
        r.segments[1].steps[0].extra = Some(
            json!({"digits": "1#", "expected": ["a", 2]})
                .as_object()
                .unwrap()
                .clone(),
        );
        store.ingest_runs(Toronto, vec![r.clone()]).await.unwrap();
        let id = store.run_extent().await.unwrap().runs as i64;
        let d = visible(store.run(Scope::All, id).await.unwrap());
        assert_eq!(d.run.status_text, "Warning");
        assert_eq!(
            store.run(Scope::User(1), id).await.unwrap(),
            Visibility::Hidden
        );
        assert_eq!(d.run.test_case_name, "Case 7");
        assert_eq!(d.run.mos, Some(346));
        assert_eq!(d.run.duration_ms, 42_500);
        assert_eq!(d.run.status, RunStatus::Warn);
        assert_eq!(d.ivr_name, "Main IVR");
        assert_eq!(d.recording_id.as_deref(), Some(rec.as_str()));
        assert_eq!(d.segments.len(), 2);
        let s0 = &d.segments[0].steps[0];
        let src = &r.segments[0].steps[0];
        assert_eq!(s0.script.prompt, src.prompt);
        assert_eq!(s0.script.prompt_latency_max, Some(2000));
        assert_eq!(s0.utterance.as_deref(), Some("Welcome to Acme"));
        assert_eq!(s0.latency, Some(850));
        assert_eq!(s0.confidence, Some(0.92));
        assert_eq!(s0.recording_duration, Some(2.25));
        assert_eq!(s0.start_time, src.test_result.start_time);
        let s1 = &d.segments[1].steps[0];
        assert_eq!(s1.utterance, None);
        assert_eq!(s1.barge_in_time, Some(300));
        assert_eq!(s1.recording_id.as_deref(), Some(rec.as_str()));
        assert_eq!(s1.script.extra, r.segments[1].steps[0].extra);
        assert_eq!(s1.status, RunStatus::Warn);
        assert_eq!(
            store.run(Scope::All, id + 1).await.unwrap(),
            Visibility::Missing
        );
    }

    /// Random batches for both backends' tests: repeated engine ids, four test cases, two
    /// run types, three days around a DST change.
    pub(crate) fn random_batches(seed: u64, batches: usize, size: usize) -> Vec<Vec<IngestRun>> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let statuses = ["pass", "warn", "fail", "stopped"];
        (0..batches)
            .map(|_| {
                (0..size)
                    .map(|_| {
                        let t = chrono::DateTime::parse_from_rfc3339("2026-10-31T00:00:00Z")
                            .unwrap()
                            .timestamp()
                            + rng.gen_range(0..3 * 86_400);
                        let mut r = run(
                            &format!("e{}", rng.gen_range(0..400)),
                            rng.gen_range(1..5),
                            &ms_to_time(t * 1000).to_rfc3339(),
                            statuses[rng.gen_range(0..4)],
                            rng.gen_range(100..=500) as f64 / 100.0,
                        );
                        r.segments[0].steps[0].test_result.latency = Some(rng.gen_range(0..4000));
                        r.segments[0].steps[0].test_result.utterance =
                            Some(format!("Welcome {}", rng.gen_range(0..5)));
                        r.segments[1].steps[0].test_result.status =
                            RunStatus::ALL[rng.gen_range(0..4)];
                        if rng.gen_bool(0.2) {
                            r.segments[1].segment_name = format!("Menu {}", rng.gen_range(0..3));
                        }
                        if rng.gen_bool(0.3) {
                            r.mos_cq_in = None;
                            r.run_type = RunType::Manual;
                        }
                        r
                    })
                    .collect()
            })
            .collect()
    }
}

//! `GET api/live`: server-sent events telling an open dashboard that runs arrived, so it
//! refreshes within a second or two instead of waiting for its 30-second poll.
//!
//! Ingest publishes one message per stored batch on a [`Hub`] (a broadcast channel); each
//! stream keeps only what its caller may see: administrators every batch, a ROLE_USER the
//! batches touching their groups (their groups are read again every 30 s), with the test
//! case and group ids cut to theirs. The first event is `open`; a stream that fell behind
//! gets `resync` (refresh everything). The client reconnects after a drop and refreshes
//! once (`ui/src/api/live.ts`). Proxy mode has no such stream: the dashboard keeps polling.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::stream::BoxStream;
use poem::web::Data;
use poem_openapi::payload::EventStream;
use poem_openapi::{Object, OpenApi};
use tokio::sync::broadcast;

use super::envelope::fails::*;
use super::envelope::Answer;
use super::guard::Auth;
use super::AppState;
use crate::domain::caller::{Need, Scope};
use crate::store::runs::IngestOutcome;
use crate::store::Store;

/// Batches kept for a slow stream before it is told to resync.
const BACKLOG: usize = 256;
/// How often a restricted user's groups are read again.
const GROUPS_FRESH_FOR: Duration = Duration::from_secs(30);
/// A comment line this often keeps proxies from closing an idle stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One stored batch: each test case with the groups it is in.
#[derive(Debug)]
pub struct Published {
    cases: Vec<(i64, Vec<i64>)>,
    runs: usize,
}

/// Where ingest publishes and streams subscribe. Cheap to clone.
#[derive(Clone)]
pub struct Hub {
    tx: broadcast::Sender<Arc<Published>>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            tx: broadcast::channel(BACKLOG).0,
        }
    }
}

impl Hub {
    /// Tells every open stream about the runs a batch stored (nothing when none was).
    pub fn publish(&self, outcome: &IngestOutcome) {
        if outcome.stored.is_empty() {
            return;
        }
        let mut cases: Vec<(i64, Vec<i64>)> = Vec::new();
        for run in &outcome.stored {
            if !cases.iter().any(|(c, _)| *c == run.test_case_id) {
                cases.push((run.test_case_id, run.group_ids.clone()));
            }
        }
        // No receiver is not an error: nobody has a dashboard open.
        let _ = self.tx.send(Arc::new(Published {
            cases,
            runs: outcome.stored.len(),
        }));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Published>> {
        self.tx.subscribe()
    }
}

/// An event of the stream (the SSE `data:` line, JSON).
#[derive(Debug, Clone, Object, PartialEq)]
#[oai(rename_all = "camelCase")]
pub struct LiveEvent {
    /// `open` (first event), `runs` (runs were stored) or `resync` (events were missed:
    /// refresh everything).
    pub kind: String,
    /// Runs stored (for `runs`) in the test cases below.
    pub runs: u64,
    /// Test cases with new runs, those the caller may see.
    pub test_case_ids: Vec<i64>,
    /// Groups of those test cases, those the caller may see.
    pub group_ids: Vec<i64>,
}

impl LiveEvent {
    fn bare(kind: &str) -> LiveEvent {
        LiveEvent {
            kind: kind.into(),
            runs: 0,
            test_case_ids: Vec::new(),
            group_ids: Vec::new(),
        }
    }
}

/// What a caller may see of a batch: everything, or the cases in their groups.
pub fn visible(published: &Published, groups: Option<&HashSet<i64>>) -> Option<LiveEvent> {
    let mut event = LiveEvent::bare("runs");
    for (case, case_groups) in &published.cases {
        let seen: Vec<i64> = match groups {
            None => case_groups.clone(),
            Some(mine) => case_groups
                .iter()
                .copied()
                .filter(|g| mine.contains(g))
                .collect(),
        };
        if groups.is_some() && seen.is_empty() {
            continue;
        }
        event.test_case_ids.push(*case);
        for g in seen {
            if !event.group_ids.contains(&g) {
                event.group_ids.push(g);
            }
        }
    }
    if event.test_case_ids.is_empty() {
        return None;
    }
    // The count is the batch's only when every case is visible; else the visible cases'.
    event.runs = if event.test_case_ids.len() == published.cases.len() {
        published.runs as u64
    } else {
        event.test_case_ids.len() as u64
    };
    Some(event)
}

/// One open stream: its receiver, who it is for, and the gauge it holds up.
struct Stream {
    rx: broadcast::Receiver<Arc<Published>>,
    scope: Scope,
    store: Store,
    groups: Option<HashSet<i64>>,
    read_at: Instant,
    opened: bool,
    _open: OpenGauge,
}

struct OpenGauge(prometheus_client::metrics::gauge::Gauge);

impl Drop for OpenGauge {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl Stream {
    async fn groups(&mut self) -> Option<HashSet<i64>> {
        let Scope::User(user_id) = self.scope else {
            return None;
        };
        if self.groups.is_none() || self.read_at.elapsed() > GROUPS_FRESH_FOR {
            let groups = match self.store.user(user_id).await {
                Ok(Some(u)) => u.groups.iter().map(|g| g.id).collect(),
                _ => HashSet::new(),
            };
            self.groups = Some(groups);
            self.read_at = Instant::now();
        }
        self.groups.clone()
    }

    async fn next(mut self) -> Option<(LiveEvent, Stream)> {
        if !self.opened {
            self.opened = true;
            return Some((LiveEvent::bare("open"), self));
        }
        loop {
            match self.rx.recv().await {
                Ok(published) => {
                    let groups = self.groups().await;
                    if let Some(event) = visible(&published, groups.as_ref()) {
                        return Some((event, self));
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    return Some((LiveEvent::bare("resync"), self));
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

pub struct LiveApi;

#[OpenApi(tag = "super::ApiTags::Live")]
impl LiveApi {
    /// Server-sent events (`text/event-stream`) for an open dashboard: `open` first, then
    /// `runs` each time ingest stores runs the caller may see (test case and group ids),
    /// `resync` when events were missed. A comment line every 15 s keeps it open. Reconnect
    /// after a drop and refresh once. Not offered in proxy mode (404).
    #[oai(path = "/live", method = "get", operation_id = "liveUpdates")]
    async fn live(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<EventStream<BoxStream<'static, LiveEvent>>, { INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let gauge = state.telemetry.live_streams().clone();
        gauge.inc();
        let stream = Stream {
            rx: state.live.subscribe(),
            scope: caller.scope(),
            store: state.store.clone(),
            groups: None,
            read_at: Instant::now(),
            opened: false,
            _open: OpenGauge(gauge),
        };
        let events = futures_util::stream::unfold(stream, Stream::next);
        Ok(
            EventStream::new(Box::pin(events) as BoxStream<'static, LiveEvent>)
                .keep_alive(KEEP_ALIVE)
                .to_event(|e| {
                    use poem_openapi::types::ToJSON;
                    poem::web::sse::Event::message(e.to_json_string()).event_type(e.kind.clone())
                }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restricted_user_sees_only_cases_of_their_groups() {
        let p = Published {
            cases: vec![(1, vec![10]), (2, vec![10, 11]), (3, vec![])],
            runs: 5,
        };
        let all = visible(&p, None).unwrap();
        assert_eq!(all.test_case_ids, vec![1, 2, 3]);
        assert_eq!(all.runs, 5);
        let mine: HashSet<i64> = [11].into();
        let some = visible(&p, Some(&mine)).unwrap();
        assert_eq!(some.test_case_ids, vec![2]);
        assert_eq!(some.group_ids, vec![11]);
        let none: HashSet<i64> = [99].into();
        assert_eq!(visible(&p, Some(&none)), None);
    }
}

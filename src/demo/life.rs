//! The demo's alert life: a weekly maintenance window made before the history is
//! loaded (so the engine's ingest marks the runs it covers, and no alert opens for them), and,
//! once the engine has run over the history, an acknowledged alert with comments, an
//! escalated one, and an ad-hoc mute of a test case made 20 minutes ago that covers the live
//! feed (the strip and the reports say how many runs it left out). The acknowledged and the
//! muted alerts are two of the incident of the Card Services outage (the largest incident of
//! the history: one alert per test case of 'Cards - Lost & Stolen'), so its page shows an
//! incident of several alerts, one acknowledged, one muted.
//! Made once: a site that has windows already is left as it is.

use chrono_tz::Tz;

use super::{group_ids, DemoError};
use crate::clock::now_ms;
use crate::domain::caller::Scope;
use crate::domain::page::PageRequest;
use crate::domain::schedule::{SlotRange, Week};
use crate::store::alert_life::{Ack, PastLife};
use crate::store::alerts::AlertEventFilter;
use crate::store::incidents::IncidentFilter;
use crate::store::maintenance::WindowDraft;
use crate::store::Store;

/// The weekly window's group: planned releases of the claims line.
const WEEKLY_GROUP: &str = "Claims - FNOL";
/// Who made the demo's windows and acknowledged its alert.
const OPERATOR: &str = "night.operator@cxwatch.demo";

/// Before the history is loaded (the groups exist): the weekly window, Tuesdays and
/// Thursdays 01:00 to 03:00 site time, from the history's start. Blocking.
pub fn ensure_window(store: &Store, tz: Tz, history_from_ms: i64) -> Result<(), DemoError> {
    let existing = Store::block_on(store.list_windows(Scope::All, PageRequest { no: 0, size: 1 }))?;
    if existing.total > 0 {
        return Ok(());
    }
    let Some(&group) = group_ids(store)?.get(WEEKLY_GROUP) else {
        return Ok(());
    };
    let week = release_week()?;
    Store::block_on(store.create_window(
        Scope::All,
        tz,
        WindowDraft {
            reason: "Claims IVR release (every Tuesday and Thursday night)".into(),
            weekly: true,
            start_ms: history_from_ms,
            end_ms: None,
            week,
            group_ids: vec![group],
            case_ids: Vec::new(),
            event_id: None,
        },
        OPERATOR.into(),
        history_from_ms,
    ))?;
    Ok(())
}

/// The weekly window's half hours: Tuesdays and Thursdays 01:00 to 03:00 site time.
fn release_week() -> Result<Week, DemoError> {
    let ranges: Vec<SlotRange> = [2, 4]
        .into_iter()
        .map(|day| SlotRange {
            day_of_week: day,
            start: "01:00".into(),
            end: "03:00".into(),
        })
        .collect();
    Week::from_ranges(&ranges).map_err(|e| DemoError::Rejected(e.to_string()))
}

/// The test cases the weekly window covers at some moment from `from_ms` to now: their runs in
/// that span count under it, so a mute made on one of them at `from_ms` could show none. The
/// window is made of half hours and the span is shorter than one, so its two ends tell.
fn released_since(tz: Tz, from_ms: i64) -> Vec<i64> {
    let Ok(week) = release_week() else {
        return Vec::new();
    };
    let covered = |ms: i64| {
        chrono::DateTime::from_timestamp_millis(ms)
            .is_some_and(|at| week.covers(at.with_timezone(&tz).naive_local()))
    };
    if !covered(from_ms) && !covered(now_ms()) {
        return Vec::new();
    }
    super::catalog::catalog()
        .groups
        .into_iter()
        .find(|g| g.name == WEEKLY_GROUP)
        .map(|g| g.cases)
        .unwrap_or_default()
}

/// After the engine ran over the history: the outage incident's first alert (without an
/// incident of several alerts, the newest event) is acknowledged with comments, the newest
/// other event escalated to the telecom provider 15 minutes after it opened, and the test
/// case of the incident's second alert (else of the oldest event; not one the weekly window
/// covered in the last 20 minutes) muted 20 minutes ago for 4 hours. Blocking.
pub fn ensure_life(store: &Store, tz: Tz, public_url: &str) -> Result<(), DemoError> {
    let events = Store::block_on(store.list_alert_events(
        Scope::All,
        PageRequest { no: 0, size: 50 },
        AlertEventFilter::default(),
    ))?
    .items;
    let Some(first) = events.first() else {
        return Ok(());
    };
    // The outage's incident: the one with the most alerts (the oldest of equals).
    let incidents = Store::block_on(store.list_incidents(
        Scope::All,
        PageRequest { no: 0, size: 50 },
        IncidentFilter::default(),
        now_ms(),
    ))?
    .items;
    let outage = incidents
        .iter()
        .filter(|i| i.alerts.len() >= 2)
        .max_by_key(|i| (i.alerts.len(), -i.first_ms));
    // Made once: an acknowledged event means it was done.
    let mut ids: Vec<i64> = events.iter().map(|e| e.id).collect();
    ids.extend(outage.iter().flat_map(|i| i.alerts.iter().map(|a| a.id)));
    let acks = Store::block_on(store.alert_acks(ids))?;
    if !acks.is_empty() {
        return Ok(());
    }
    let lists = Store::block_on(store.contact_groups(Scope::All))?;
    let escalation_list = lists
        .iter()
        .find(|(_, n)| n == "Telecom provider escalation")
        .map(|(id, _)| *id);
    // Acknowledged: the outage's first alert, else the newest event.
    let (acked, at) = match outage.and_then(|i| i.alerts.first()) {
        Some(a) => (a.id, a.alert_ms),
        None => (first.id, first.alert_time.timestamp_millis()),
    };
    Store::block_on(store.import_alert_life(
        acked,
        PastLife {
            ack: Some(Ack {
                by: OPERATOR.into(),
                at_ms: at + 4 * 60_000,
            }),
            comments: vec![
                (
                    OPERATOR.into(),
                    "I have it: the IVR vendor sees errors on their side too.".into(),
                    at + 6 * 60_000,
                ),
                (
                    "ivr.owner@cxwatch.demo".into(),
                    "Vendor rolled back their 02:00 change; watching the next runs.".into(),
                    at + 21 * 60_000,
                ),
            ],
            escalation: None,
        },
        tz,
        public_url.to_string(),
    ))?;
    let second = events
        .iter()
        .find(|e| e.id != acked && !outage.is_some_and(|i| i.alerts.iter().any(|a| a.id == e.id)));
    if let (Some(list), Some(second)) = (escalation_list, second) {
        let opened = second.alert_time.timestamp_millis();
        Store::block_on(store.import_alert_life(
            second.id,
            PastLife {
                ack: None,
                comments: vec![(
                    "ivr.owner@cxwatch.demo".into(),
                    "Nobody picked this up at night: escalated to the provider.".into(),
                    opened + 40 * 60_000,
                )],
                escalation: Some((list, opened + 15 * 60_000)),
            },
            tz,
            public_url.to_string(),
        ))?;
    }
    // The ad-hoc mute: the test case of the outage's second alert (else of the oldest event),
    // made 20 minutes ago for 4 hours. Its runs since then are marked as it is made, so the
    // dashboard's 'Last 15 min' strip says at once that its group has runs in maintenance
    // (the case runs every 15 minutes).
    // Not a case the weekly window covered since then: the next of the outage's alerts, else
    // the next oldest event.
    let made = now_ms() - 20 * 60_000;
    let released = released_since(tz, made);
    let muted = outage
        .iter()
        .flat_map(|i| i.alerts.iter().skip(1).map(|a| (a.id, a.test_case_id)))
        .chain(events.iter().rev().map(|e| (e.id, e.test_case_id)))
        .find(|(id, case)| *id != acked && !released.contains(case));
    if let Some((muted_id, muted_case)) = muted {
        // As a mute made from the alert: no reason of its own (the console words it in the
        // reader's language from the alert and its test case).
        Store::block_on(store.create_window(
            Scope::All,
            tz,
            WindowDraft {
                reason: String::new(),
                weekly: false,
                start_ms: made,
                end_ms: Some(made + 4 * 3_600_000),
                week: Week::default(),
                group_ids: Vec::new(),
                case_ids: vec![muted_case],
                event_id: Some(muted_id),
            },
            OPERATOR.into(),
            made,
        ))?;
    }
    Ok(())
}

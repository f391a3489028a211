//! The alert engine's rules (spec §4 'Alert setting'), as plain functions over
//! `(state, run) -> (new state, action)`. The store (`store/alerts.rs`) keeps the state per
//! (setting, test case) in the database and calls [`step`] for every stored run, inside the
//! ingest transaction; this module knows nothing of SQL.
//!
//! The rules (also in `docs/alerting.md`):
//!
//! - A setting that is not active evaluates nothing (its state is left as it is).
//! - A run is *counted* when its status is among the setting's statuses and its time, in the
//!   site's zone, falls in a selected slot of the setting's week. Each counted run adds one
//!   to the count of (setting, test case).
//! - When the count reaches `failureToAlert` and no event is open, an event opens with the
//!   runs counted so far. While an event is open, counted runs join it (no storms).
//! - A run of any other status resets the count, whatever the schedule; if it is a pass, it
//!   also closes the open event (recovery).
//! - A run of a counted status outside the schedule is not evaluated: it neither counts nor
//!   resets.
//! - Late runs: runs are evaluated in run-time order per test case. A batch is sorted by run
//!   time before evaluation; a run older than the last run already evaluated for its
//!   (setting, test case) is stored but not evaluated ([`Action::Late`]).

use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;

use super::csv::CsvWriter;
use super::schedule::Week;

/// The alert-status id of a pass (spec §9).
pub const PASS: i64 = 3;

/// One stored run, as the engine takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evaluated {
    pub run_id: i64,
    pub test_case_id: i64,
    pub run_ms: i64,
    pub status_id: i64,
}

/// What the engine did to a batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineOutcome {
    pub opened: usize,
    pub closed: usize,
    /// Notifications queued (the notifier is to be woken).
    pub queued: usize,
}

/// What the engine needs of an alert setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub setting_id: i64,
    pub active: bool,
    /// 1, 2, 3, 5 or 10.
    pub failure_to_alert: u32,
    /// Alert-status ids counted (7 failure, 4 warning, 3 pass).
    pub statuses: Vec<i64>,
    pub week: Week,
}

/// The engine's memory of one (setting, test case).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaseState {
    /// Consecutive counted runs.
    pub count: u32,
    /// Counted runs not yet in an event (the runs that will make the event).
    pub pending: Vec<i64>,
    /// The open event, if any.
    pub open_event: Option<i64>,
    /// Time (ms since the epoch) of the last run evaluated.
    pub last_run_ms: Option<i64>,
}

impl CaseState {
    /// What a (setting, test case) with no stored state is. The store keeps a row only
    /// where the state departs from this, so most of a site's pairs have none:
    ///
    /// - a setting the engine has evaluated runs for (`evaluated`) is *at rest* at its test
    ///   case's `clock` (the time of the last run evaluated for the test case): nothing
    ///   counted, nothing pending, no open event, and a run older than the clock is late for
    ///   it as it is for the test case's other settings. That holds for a test case it never
    ///   saw a run of too (one added to its group since).
    /// - a setting never evaluated (new, or the backfill's, which is only for those) is
    ///   fresh: no run is late for it yet.
    pub fn unstored(evaluated: bool, clock: Option<i64>) -> CaseState {
        CaseState {
            last_run_ms: if evaluated { clock } else { None },
            ..CaseState::default()
        }
    }

    /// Whether this state is what no row means for an evaluated setting at `clock`, so that
    /// it needs no row.
    pub fn at_rest(&self, clock: Option<i64>) -> bool {
        *self == CaseState::unstored(true, clock)
    }
}

/// One stored run as the engine sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunFact {
    pub run_id: i64,
    /// Milliseconds since the epoch (UTC).
    pub run_ms: i64,
    /// Alert-status id: 3 pass, 4 warning, 7 failure.
    pub status_id: i64,
    /// The run's time in the site's zone.
    pub local: NaiveDateTime,
}

impl RunFact {
    /// A run at `run_ms` (UTC) seen from the site zone `tz`.
    pub fn new(run_id: i64, run_ms: i64, status_id: i64, tz: Tz) -> RunFact {
        let utc = DateTime::<Utc>::from_timestamp_millis(run_ms).unwrap_or_default();
        RunFact {
            run_id,
            run_ms,
            status_id,
            local: utc.with_timezone(&tz).naive_local(),
        }
    }
}

/// What the store does after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Nothing to write but the state (counted, reset, or not evaluated).
    None,
    /// Open an event with these runs (oldest first) and notify the distribution list.
    Open { runs: Vec<i64> },
    /// Add the run to the open event.
    Join { event: i64, run: i64 },
    /// Close the open event (recovery).
    Close { event: i64 },
    /// The run is older than the last evaluated one: stored, not evaluated.
    Late,
    /// The setting is inactive or the run is outside its schedule: not evaluated.
    Skip,
}

/// Evaluates one run against one setting.
pub fn step(rule: &Rule, state: &CaseState, run: &RunFact) -> (CaseState, Action) {
    if !rule.active {
        return (state.clone(), Action::Skip);
    }
    if state.last_run_ms.is_some_and(|last| run.run_ms < last) {
        return (state.clone(), Action::Late);
    }
    let mut next = state.clone();
    let counted_status = rule.statuses.contains(&run.status_id);
    if counted_status {
        if !rule.week.covers(run.local) {
            return (state.clone(), Action::Skip);
        }
        next.last_run_ms = Some(run.run_ms);
        next.count = next.count.saturating_add(1);
        if let Some(event) = state.open_event {
            return (
                next,
                Action::Join {
                    event,
                    run: run.run_id,
                },
            );
        }
        next.pending.push(run.run_id);
        if next.count >= rule.failure_to_alert {
            let runs = std::mem::take(&mut next.pending);
            return (next, Action::Open { runs });
        }
        // Only the last failureToAlert runs can make an event.
        let keep = rule.failure_to_alert.max(1) as usize;
        if next.pending.len() > keep {
            let cut = next.pending.len() - keep;
            next.pending.drain(..cut);
        }
        return (next, Action::None);
    }
    next.last_run_ms = Some(run.run_ms);
    next.count = 0;
    next.pending.clear();
    if run.status_id == PASS {
        if let Some(event) = state.open_event {
            next.open_event = None;
            return (next, Action::Close { event });
        }
    }
    (next, Action::None)
}

/// Sorts a batch's runs for evaluation: by test case, then run time, then arrival (the
/// run id).
pub fn evaluation_order(runs: &mut [(i64, RunFact)]) {
    runs.sort_by_key(|(case, r)| (*case, r.run_ms, r.run_id));
}

/// What an alert's notifications say: the facts the store gathers for an event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlertFacts {
    pub event_id: i64,
    pub setting_name: String,
    pub email_subject: String,
    pub sms_prefix: String,
    pub voice_message: String,
    pub test_case: String,
    pub group: String,
    /// 'Failure', 'Warning' or 'Pass' (the first run's status).
    pub status: String,
    /// The event's runs, oldest first: (run id, site-local time `yyyy/MM/dd HH:mm:ss`,
    /// status text).
    pub runs: Vec<(i64, String, String)>,
    /// The console's public address (`notify.public_url`), without a trailing slash; empty:
    /// no link.
    pub public_url: String,
}

impl AlertFacts {
    /// `{public_url}/alert/{id}`, or empty when the console's address is not configured.
    pub fn link(&self) -> String {
        if self.public_url.is_empty() {
            String::new()
        } else {
            format!(
                "{}/alert/{}",
                self.public_url.trim_end_matches('/'),
                self.event_id
            )
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The message of an event that opened (`recovery` false) or recovered (`recovery` true):
/// e-mail subject, text and HTML, the SMS's prefix and the voice message.
pub fn alert_message(f: &AlertFacts, recovery: bool) -> super::notify::Message {
    let link = f.link();
    let subject = match (recovery, f.email_subject.trim()) {
        (false, "") => format!("cxwatch alert: {} ({})", f.test_case, f.status),
        (false, s) => s.to_string(),
        (true, "") => format!("cxwatch recovery: {}", f.test_case),
        (true, s) => format!("Recovered: {s}"),
    };
    let head = if recovery {
        format!(
            "Recovered: test case {} of group {} passes again (alert {}).",
            f.test_case, f.group, f.event_id
        )
    } else {
        format!(
            "Alert {}: test case {} of group {} is in {} ({} run{}).",
            f.event_id,
            f.test_case,
            f.group,
            f.status,
            f.runs.len(),
            if f.runs.len() == 1 { "" } else { "s" }
        )
    };
    let mut text = format!("{head}\nAlert setting: {}\n\nRuns:\n", f.setting_name);
    for (id, time, status) in &f.runs {
        text.push_str(&format!("  {time}  run {id}  {status}\n"));
    }
    if !link.is_empty() {
        text.push_str(&format!("\n{link}\n"));
        if !recovery {
            text.push_str(&format!("Acknowledge: {}\n", acknowledge_link(&link)));
        }
    }
    let mut html = format!(
        "<p>{}</p><p>Alert setting: {}</p><table><thead><tr><th>Time</th><th>Run</th><th>Status</th></tr></thead><tbody>",
        esc(&head),
        esc(&f.setting_name)
    );
    for (id, time, status) in &f.runs {
        html.push_str(&format!(
            "<tr><td>{}</td><td>{id}</td><td>{}</td></tr>",
            esc(time),
            esc(status)
        ));
    }
    html.push_str("</tbody></table>");
    if !link.is_empty() {
        html.push_str(&format!("<p><a href=\"{0}\">{0}</a></p>", esc(&link)));
        if !recovery {
            html.push_str(&format!(
                "<p><a href=\"{}\">Acknowledge</a></p>",
                esc(&acknowledge_link(&link))
            ));
        }
    }
    let short = if recovery {
        format!("RECOVERED {} ({})", f.test_case, f.group)
    } else {
        format!(
            "{} {} ({}), {} runs",
            f.status,
            f.test_case,
            f.group,
            f.runs.len()
        )
    };
    let voice = if recovery {
        format!("Recovered. Test case {} passes again.", f.test_case)
    } else if f.voice_message.trim().is_empty() {
        format!("Alert. Test case {} is in {}.", f.test_case, f.status)
    } else {
        f.voice_message.clone()
    };
    super::notify::Message {
        subject,
        text,
        html: Some(html),
        sms_prefix: f.sms_prefix.clone(),
        sms_text: short,
        voice_message: voice,
        test_case: f.test_case.clone(),
        status: if recovery {
            "RECOVERED".into()
        } else {
            f.status.clone()
        },
        link,
        attachments: Vec::new(),
    }
}

/// The console's page of incident `id` (`{public_url}/incident/{id}`), empty without an address.
pub fn incident_link(public_url: &str, id: i64) -> String {
    if public_url.is_empty() {
        String::new()
    } else {
        format!("{}/incident/{id}", public_url.trim_end_matches('/'))
    }
}

/// An event's opening message `msg` (from [`alert_message`]) as its incident tells it
/// (`docs/alerting.md` 'Incidents'): the first event of an incident keeps its words and links
/// the incident; a later one says it joined incident N and is not a new outage: its
/// subject, text, SMS and voice words say so. Whether it is sent to pages (SMS, voice) at
/// all is [`super::incident::pages_joined`]'s.
pub fn with_incident(
    mut msg: super::notify::Message,
    f: &AlertFacts,
    note: &super::incident::Note,
) -> super::notify::Message {
    let id = note.incident_id;
    if note.joined {
        let head = format!(
            "Alert {} joined incident {id} ({} alerts): not a new outage.",
            f.event_id, note.alerts
        );
        msg.subject = format!("[Incident {id}] joined: {}", msg.subject);
        msg = led(msg, &head);
        msg.sms_text = format!("Joined incident {id}: {}", msg.sms_text);
        msg.voice_message = format!(
            "Alert for test case {} joined incident {id}, already reported.",
            f.test_case
        );
    }
    linked(msg, f, id)
}

/// An event's recovery message `msg` (from [`alert_message`]) told with where its incident
/// stands once the batch is written: `open` of its alerts not recovered yet (one part passing
/// again is not the outage's end, and the reader must not take it for the all-clear), or none,
/// the incident resolved by it.
pub fn recovered_in_incident(
    mut msg: super::notify::Message,
    f: &AlertFacts,
    id: i64,
    open: i64,
) -> super::notify::Message {
    let (head, short, voice) = if open > 0 {
        (
            format!(
                "Incident {id} is still open: {open} alert{} not recovered.",
                if open == 1 { "" } else { "s" }
            ),
            format!("incident {id}: {open} still open"),
            format!("Incident {id} is still open."),
        )
    } else {
        (
            format!("Incident {id} is resolved: all its alerts recovered."),
            format!("incident {id} resolved"),
            format!("Incident {id} is resolved."),
        )
    };
    msg.subject = format!("{} ({short})", msg.subject);
    msg = led(msg, &head);
    msg.sms_text = format!("{}; {short}", msg.sms_text);
    msg.voice_message = format!("{} {voice}", msg.voice_message);
    linked(msg, f, id)
}

/// `msg`'s text and HTML led by `head`, in bold in the HTML.
fn led(mut msg: super::notify::Message, head: &str) -> super::notify::Message {
    msg.text = format!("{head}\n{}", msg.text);
    msg.html = msg
        .html
        .map(|h| format!("<p><strong>{}</strong></p>{h}", esc(head)));
    msg
}

/// `msg` with its incident's page linked at the end of its text and HTML (none without a
/// public URL).
fn linked(mut msg: super::notify::Message, f: &AlertFacts, id: i64) -> super::notify::Message {
    let link = incident_link(&f.public_url, id);
    if !link.is_empty() {
        msg.text.push_str(&format!("Incident {id}: {link}\n"));
        msg.html = msg.html.map(|h| {
            format!(
                "{h}<p>Incident {id}: <a href=\"{0}\">{0}</a></p>",
                esc(&link)
            )
        });
    }
    msg
}

/// The alert details' address that offers to acknowledge the event (the alert mail's link;
/// the console asks the reader to sign in first, then to confirm).
pub fn acknowledge_link(link: &str) -> String {
    format!("{link}?acknowledge=1")
}

/// What acknowledging an event does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acknowledgement {
    /// Recorded now: who and when; its escalation will not happen.
    Now,
    /// Acknowledged already: the first acknowledgement stays.
    Already,
    /// A closed event: nothing to acknowledge (a conflict).
    Closed,
}

/// The acknowledgement rule: only an open event is acknowledged, once.
pub fn acknowledgement(open: bool, acknowledged: bool) -> Acknowledgement {
    match (open, acknowledged) {
        (_, true) => Acknowledgement::Already,
        (false, false) => Acknowledgement::Closed,
        (true, false) => Acknowledgement::Now,
    }
}

/// The outbox key prefix and cause of an event's escalation (a key is queued once).
pub fn escalation_prefix(event: i64) -> String {
    format!("escalation:{event}")
}

/// When an event that opened at `alert_ms` escalates after `delay_min` minutes (UTC ms).
pub fn escalation_due_ms(alert_ms: i64, delay_min: i64) -> i64 {
    alert_ms.saturating_add(delay_min.saturating_mul(60_000))
}

/// An event and its setting as the escalation rule sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EscalationState {
    pub open: bool,
    pub acknowledged: bool,
    pub escalated: bool,
    pub alert_ms: i64,
    /// The setting's delay, `None` when it names no escalation list.
    pub delay_min: Option<i64>,
}

/// The escalation rule: an event escalates once, when it is still open and unacknowledged
/// at its setting's delay after it opened.
pub fn escalates(e: &EscalationState, now_ms: i64) -> bool {
    e.open
        && !e.acknowledged
        && !e.escalated
        && e.delay_min
            .is_some_and(|d| now_ms >= escalation_due_ms(e.alert_ms, d))
}

/// What an escalation's notifications say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EscalationFacts {
    pub event_id: i64,
    pub alert_ms: i64,
    pub delay_min: i64,
    pub setting_name: String,
    pub group: String,
    pub test_case: String,
    /// The list notified when the event opened.
    pub first_list: String,
    pub email_subject: String,
    pub sms_prefix: String,
    pub public_url: String,
}

/// The message to the escalation list: nobody acknowledged the alert in time.
pub fn escalation_message(f: &EscalationFacts, tz: Tz) -> super::notify::Message {
    let link = AlertFacts {
        event_id: f.event_id,
        public_url: f.public_url.clone(),
        ..AlertFacts::default()
    }
    .link();
    let opened = DateTime::<Utc>::from_timestamp_millis(f.alert_ms)
        .unwrap_or_default()
        .with_timezone(&tz)
        .format("%Y/%m/%d %H:%M:%S")
        .to_string();
    let subject = match f.email_subject.trim() {
        "" => format!("Escalated: cxwatch alert {} on {}", f.event_id, f.test_case),
        s => format!("Escalated: {s}"),
    };
    let head = format!(
        "Escalated: alert {} (test case {} of group {}) opened at {opened} and nobody has \
         acknowledged it after {} min. {} was notified first.",
        f.event_id, f.test_case, f.group, f.delay_min, f.first_list
    );
    let mut text = format!("{head}\nAlert setting: {}\n", f.setting_name);
    let mut html = format!(
        "<p>{}</p><p>Alert setting: {}</p>",
        esc(&head),
        esc(&f.setting_name)
    );
    if !link.is_empty() {
        let ack = acknowledge_link(&link);
        text.push_str(&format!("\n{link}\nAcknowledge: {ack}\n"));
        html.push_str(&format!(
            "<p><a href=\"{0}\">{0}</a></p><p><a href=\"{1}\">Acknowledge</a></p>",
            esc(&link),
            esc(&ack)
        ));
    }
    super::notify::Message {
        subject,
        text,
        html: Some(html),
        sms_prefix: f.sms_prefix.clone(),
        sms_text: format!(
            "ESCALATED alert {} {} ({}), unacknowledged {} min",
            f.event_id, f.test_case, f.group, f.delay_min
        ),
        voice_message: format!(
            "Escalated alert. Test case {} has an alert nobody acknowledged.",
            f.test_case
        ),
        test_case: f.test_case.clone(),
        status: "ESCALATED".into(),
        link,
        attachments: Vec::new(),
    }
}

/// A maintenance window as the engine reads it: while it covers a run's test
/// case, the run is stored and marked, and the alert engine does not evaluate it (no event
/// opens, none joins, none closes, nobody is notified).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaintenanceWindow {
    pub id: i64,
    /// Once: its start (UTC ms). Weekly: from when its week applies.
    pub start_ms: i64,
    /// Once: its end (UTC ms, excluded); weekly: `None`.
    pub end_ms: Option<i64>,
    /// Ended early (UTC ms): nothing from then on is covered.
    pub ended_ms: Option<i64>,
    /// Weekly: the half hours of the week it covers, in the site's zone.
    pub week: Option<Week>,
}

/// Half an hour, in milliseconds.
const HALF_HOUR_MS: i64 = 30 * 60 * 1000;

impl MaintenanceWindow {
    /// Whether the window covers a run at `run_ms` (UTC), `local` in the site's zone. A run
    /// is judged by its own time, not by when it arrives: a run that arrives after the
    /// window but ran in it is covered.
    pub fn covers(&self, run_ms: i64, local: NaiveDateTime) -> bool {
        if run_ms < self.start_ms || self.ended_ms.is_some_and(|e| run_ms >= e) {
            return false;
        }
        match &self.week {
            None => self.end_ms.is_some_and(|e| run_ms < e),
            Some(w) => w.covers(local),
        }
    }

    /// Whether it covers the instant `ms` (UTC) seen from `tz`.
    pub fn covers_at(&self, ms: i64, tz: Tz) -> bool {
        let local = DateTime::<Utc>::from_timestamp_millis(ms)
            .unwrap_or_default()
            .with_timezone(&tz)
            .naive_local();
        self.covers(ms, local)
    }

    /// When it next begins to cover, after `now_ms` and at most `within_ms` later (the
    /// dashboard's 'next window within 24 h'); `None` when it does not.
    pub fn next_start(&self, now_ms: i64, within_ms: i64, tz: Tz) -> Option<i64> {
        let until = now_ms.saturating_add(within_ms);
        if self.week.is_none() {
            return (self.start_ms > now_ms
                && self.start_ms <= until
                && self.ended_ms.is_none_or(|e| e > self.start_ms))
            .then_some(self.start_ms);
        }
        // Weekly: the first half hour on the grid that is covered after one that is not.
        let mut t = now_ms - now_ms.rem_euclid(HALF_HOUR_MS) + HALF_HOUR_MS;
        let mut before = self.covers_at(t - HALF_HOUR_MS, tz);
        while t <= until {
            let now = self.covers_at(t, tz);
            if now && !before {
                return Some(t);
            }
            before = now;
            t += HALF_HOUR_MS;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::schedule::SlotRange;
    use chrono::TimeZone;
    use chrono_tz::America::Toronto;

    const F: i64 = 7;
    const W: i64 = 4;
    const P: i64 = 3;

    fn rule(threshold: u32, statuses: &[i64]) -> Rule {
        Rule {
            setting_id: 1,
            active: true,
            failure_to_alert: threshold,
            statuses: statuses.to_vec(),
            week: Week::all(),
        }
    }

    /// Runs `seq` (F fail, W warn, P pass), one a minute from a Monday noon in Toronto,
    /// through `rule`, the store's part played here (event ids 100, 101, …); returns one
    /// letter per run: `.` nothing, `O` open, `+` join, `C` close, `-` skipped, `L` late.
    fn play(rule: &Rule, seq: &str) -> String {
        let start = Toronto
            .with_ymd_and_hms(2026, 11, 23, 12, 0, 0)
            .unwrap()
            .timestamp_millis();
        let runs: Vec<(i64, i64)> = seq
            .chars()
            .enumerate()
            .map(|(i, c)| {
                let status = match c {
                    'F' => F,
                    'W' => W,
                    _ => P,
                };
                (start + i as i64 * 60_000, status)
            })
            .collect();
        play_at(rule, &runs)
    }

    fn play_at(rule: &Rule, runs: &[(i64, i64)]) -> String {
        let mut state = CaseState::default();
        let mut next_event = 100;
        let mut out = String::new();
        for (i, (ms, status)) in runs.iter().enumerate() {
            let fact = RunFact::new(i as i64 + 1, *ms, *status, Toronto);
            let (mut s, action) = step(rule, &state, &fact);
            out.push(match action {
                Action::None => '.',
                Action::Open { runs } => {
                    assert_eq!(runs.len() as u32, rule.failure_to_alert, "{runs:?}");
                    assert_eq!(runs.last(), Some(&fact.run_id));
                    s.open_event = Some(next_event);
                    next_event += 1;
                    'O'
                }
                Action::Join { event, run } => {
                    assert_eq!(Some(event), state.open_event);
                    assert_eq!(run, fact.run_id);
                    '+'
                }
                Action::Close { event } => {
                    assert_eq!(Some(event), state.open_event);
                    'C'
                }
                Action::Late => 'L',
                Action::Skip => '-',
            });
            state = s;
        }
        out
    }

    #[test]
    fn thresholds() {
        let table: &[(u32, &str, &str)] = &[
            (1, "F", "O"),
            (1, "FFP", "O+C"),
            (2, "F", "."),
            (2, "FF", ".O"),
            (2, "FFFP", ".O+C"),
            (3, "FF", ".."),
            (3, "FFF", "..O"),
            (5, "FFFF", "...."),
            (5, "FFFFF", "....O"),
            (5, "FFFFFFP", "....O+C"),
            (10, "FFFFFFFFF", "........."),
            (10, "FFFFFFFFFF", ".........O"),
        ];
        for (threshold, seq, want) in table {
            let got = play(&rule(*threshold, &[F]), seq);
            assert_eq!(&got, want, "threshold {threshold}, runs {seq}");
        }
    }

    #[test]
    fn resets_by_another_status() {
        let table: &[(u32, &[i64], &str, &str)] = &[
            // A pass resets the count.
            (3, &[F], "FFPFF", "....."),
            (3, &[F], "FFPFFF", ".....O"),
            // A warning resets a failure-only count, but does not close an open event.
            (3, &[F], "FFWFF", "....."),
            (2, &[F], "FFWFP", ".O.+C"),
            // Warnings counted with failures.
            (3, &[F, W], "FWF", "..O"),
            (3, &[F, W], "FWPWF", "....."),
            // Warning-only setting: a failure resets it.
            (2, &[W], "WFW", "..."),
            (2, &[W], "WW", ".O"),
            // A pass with nothing open changes nothing visible.
            (1, &[F], "PPP", "..."),
            // Recovery, then a new event.
            (2, &[F], "FFPFF", ".OC.O"),
        ];
        for (threshold, statuses, seq, want) in table {
            let got = play(&rule(*threshold, statuses), seq);
            assert_eq!(
                &got, want,
                "threshold {threshold}, {statuses:?}, runs {seq}"
            );
        }
    }

    #[test]
    fn open_event_collects_the_runs_that_made_it() {
        let r = rule(3, &[F]);
        let mut state = CaseState::default();
        let mut last = Action::None;
        for (i, status) in [F, P, F, F, F].iter().enumerate() {
            let fact = RunFact::new(i as i64 + 10, i as i64 * 1000, *status, Toronto);
            let (s, a) = step(&r, &state, &fact);
            state = s;
            last = a;
        }
        assert_eq!(
            last,
            Action::Open {
                runs: vec![12, 13, 14]
            }
        );
        assert!(state.pending.is_empty());
    }

    #[test]
    fn inactive_settings_evaluate_nothing() {
        let mut r = rule(1, &[F]);
        r.active = false;
        assert_eq!(play(&r, "FFP"), "---");
        let (s, a) = step(
            &r,
            &CaseState {
                count: 4,
                ..Default::default()
            },
            &RunFact::new(1, 0, F, Toronto),
        );
        assert_eq!((s.count, a), (4, Action::Skip));
    }

    fn local_ms(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> i64 {
        Toronto
            .with_ymd_and_hms(y, mo, d, h, mi, 0)
            .earliest()
            .unwrap()
            .timestamp_millis()
    }

    fn week(ranges: &[(u8, &str, &str)]) -> Week {
        Week::from_ranges(
            &ranges
                .iter()
                .map(|(d, s, e)| SlotRange {
                    day_of_week: *d,
                    start: s.to_string(),
                    end: e.to_string(),
                })
                .collect::<Vec<_>>(),
        )
        .unwrap()
    }

    #[test]
    fn schedule_edges_around_midnight() {
        // Monday 23:00–24:00 only (2026-11-23 is a Monday).
        let mut r = rule(2, &[F]);
        r.week = week(&[(1, "23:00", "24:00")]);
        type Runs = &'static [(u32, u32, u32, i64)];
        let table: &[(Runs, &str)] = &[
            // Sunday 23:59 is outside, Monday 23:00 and 23:59 inside.
            (&[(22, 23, 59, F), (23, 23, 0, F), (23, 23, 59, F)], "-.O"),
            // Monday 22:59 outside; Tuesday 00:00 outside.
            (&[(23, 22, 59, F), (23, 23, 30, F), (24, 0, 0, F)], "-.-"),
            // A pass on Tuesday 00:00 resets whatever the schedule.
            (&[(23, 23, 0, F), (24, 0, 0, P), (24, 0, 1, F)], "..-"),
            (&[(23, 23, 0, F), (24, 0, 0, P), (30, 23, 30, F)], "..."),
        ];
        for (runs, want) in table {
            let runs: Vec<(i64, i64)> = runs
                .iter()
                .map(|(d, h, m, s)| (local_ms(2026, 11, *d, *h, *m), *s))
                .collect();
            assert_eq!(&play_at(&r, &runs), want, "{runs:?}");
        }
    }

    #[test]
    fn schedule_across_dst_in_toronto() {
        // Spring forward: Sunday 2026-03-08, 02:00 jumps to 03:00. A 01:30–03:30 schedule
        // on Sundays: 01:45 EST inside, the next minute UTC-wise after 01:59 is 03:00 EDT
        // (inside), 03:30 outside.
        let mut r = rule(3, &[F]);
        r.week = week(&[(7, "01:30", "03:30")]);
        let runs = [
            (local_ms(2026, 3, 8, 1, 45), F),
            (local_ms(2026, 3, 8, 3, 0), F),
            (local_ms(2026, 3, 8, 3, 29), F),
            (local_ms(2026, 3, 8, 3, 30), F),
        ];
        assert_eq!(play_at(&r, &runs), "..O-");
        // The hour between was never local time: 07:00 UTC is 03:00 EDT, not 02:00.
        let utc7 = Utc
            .with_ymd_and_hms(2026, 3, 8, 7, 0, 0)
            .unwrap()
            .timestamp_millis();
        let mut only_two = rule(1, &[F]);
        only_two.week = week(&[(7, "02:00", "03:00")]);
        assert_eq!(play_at(&only_two, &[(utc7, F)]), "-");

        // Fall back: Sunday 2026-11-01, 01:00–02:00 happens twice (EDT then EST). A
        // 01:00–02:00 schedule covers both hours: four runs 30 minutes apart in UTC.
        let mut fall = rule(5, &[F]);
        fall.week = week(&[(7, "01:00", "02:00")]);
        let first = Utc
            .with_ymd_and_hms(2026, 11, 1, 5, 0, 0) // 01:00 EDT
            .unwrap()
            .timestamp_millis();
        let runs: Vec<(i64, i64)> = (0..5).map(|i| (first + i * 30 * 60_000, F)).collect();
        // 01:00 EDT, 01:30 EDT, 01:00 EST, 01:30 EST inside; 02:00 EST outside.
        assert_eq!(play_at(&fall, &runs), "....-");
    }

    #[test]
    fn recovery() {
        let table: &[(u32, &str, &str)] = &[
            (1, "FP", "OC"),
            (1, "FPP", "OC."),
            (1, "FPF", "OCO"),
            (2, "FFWP", ".O.C"),
            (2, "FFFFFP", ".O+++C"),
        ];
        for (threshold, seq, want) in table {
            assert_eq!(&play(&rule(*threshold, &[F]), seq), want, "{seq}");
        }
        // A pass outside the schedule still closes the open event.
        let mut r = rule(1, &[F]);
        r.week = week(&[(1, "12:00", "12:30")]);
        let runs = [
            (local_ms(2026, 11, 23, 12, 0), F),
            (local_ms(2026, 11, 23, 13, 0), P),
        ];
        assert_eq!(play_at(&r, &runs), "OC");
    }

    #[test]
    fn two_settings_on_one_group() {
        // The same runs through a failure-only setting with threshold 2 and a
        // failure-or-warning setting with threshold 3: each keeps its own state.
        let seq = "FWFFPF";
        let mut a = rule(2, &[F]);
        a.setting_id = 1;
        let mut b = rule(3, &[F, W]);
        b.setting_id = 2;
        assert_eq!(play(&a, seq), "...OC.");
        assert_eq!(play(&b, seq), "..O+C.");
    }

    #[test]
    fn late_runs_are_stored_not_evaluated() {
        let r = rule(2, &[F]);
        let t = |m: i64| m * 60_000;
        // The third run is older than the second: not evaluated.
        assert_eq!(play_at(&r, &[(t(10), F), (t(20), P), (t(15), F)]), "..L");
        // Equal times are evaluated (arrival order).
        assert_eq!(play_at(&r, &[(t(10), F), (t(10), F)]), ".O");
    }

    #[test]
    fn a_batch_is_evaluated_in_run_time_order_per_test_case() {
        let f = |id: i64, ms: i64| RunFact::new(id, ms, F, Toronto);
        let mut batch = vec![
            (2, f(1, 300)),
            (1, f(2, 200)),
            (1, f(3, 100)),
            (2, f(4, 100)),
        ];
        evaluation_order(&mut batch);
        let ids: Vec<i64> = batch.iter().map(|(_, r)| r.run_id).collect();
        assert_eq!(ids, vec![3, 2, 4, 1]);
    }

    #[test]
    fn messages_say_what_happened_and_link_to_the_alert() {
        let f = AlertFacts {
            event_id: 42,
            setting_name: "Billing down".into(),
            email_subject: "Billing IVR <failing>".into(),
            sms_prefix: "[CX]".into(),
            voice_message: "Billing is failing".into(),
            test_case: "Billing IVR".into(),
            group: "Voice core".into(),
            status: "Failure".into(),
            runs: vec![
                (7, "2026/11/23 12:00:00".into(), "Failure".into()),
                (8, "2026/11/23 12:05:00".into(), "Failure".into()),
            ],
            public_url: "https://console.example.com/".into(),
        };
        let m = alert_message(&f, false);
        assert_eq!(m.subject, "Billing IVR <failing>");
        assert_eq!(m.link, "https://console.example.com/alert/42");
        assert!(m
            .text
            .contains("Billing IVR of group Voice core is in Failure (2 runs)"));
        assert!(m.text.contains("2026/11/23 12:05:00  run 8  Failure"));
        assert!(m.text.contains("https://console.example.com/alert/42"));
        let html = m.html.unwrap();
        assert!(html.contains("<a href=\"https://console.example.com/alert/42\">"));
        assert_eq!(m.sms_text, "Failure Billing IVR (Voice core), 2 runs");
        assert_eq!(m.voice_message, "Billing is failing");
        let r = alert_message(&f, true);
        assert_eq!(r.subject, "Recovered: Billing IVR <failing>");
        assert!(r.text.starts_with("Recovered: test case Billing IVR"));
        assert!(r.sms_text.starts_with("RECOVERED"));
        assert!(r.voice_message.starts_with("Recovered."));
        let none = AlertFacts {
            public_url: String::new(),
            ..f
        };
        assert_eq!(alert_message(&none, false).link, "");
    }
}

/// What the engine's own Jira issue for an opened event says ('Auto tickets').
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoTicketText {
    pub summary: String,
    /// Console text (`crate::domain::ticket`): the test case, the group, the runs, the link.
    pub description: String,
    pub csv_name: String,
    /// The runs: `runId,runTime,status`, oldest first.
    pub csv: Vec<u8>,
}

/// The summary, description and runs CSV of the ticket for event `f`.
pub fn auto_ticket(f: &AlertFacts) -> AutoTicketText {
    let summary = format!(
        "cxwatch alert: {} ({}) in {}",
        f.test_case, f.status, f.group
    );
    let mut description = format!(
        "Alert {} ({}): test case {} in group {} is {}.\nRuns:\n",
        f.event_id, f.setting_name, f.test_case, f.group, f.status
    );
    for (id, time, status) in &f.runs {
        description.push_str(&format!("- run {id} at {time}: {status}\n"));
    }
    let link = f.link();
    if link.is_empty() {
        description.push_str(&format!("Alert: /alert/{}", f.event_id));
    } else {
        description.push_str(&format!("Alert: {link}"));
    }
    let mut csv = CsvWriter::new();
    csv.line(["runId", "runTime", "status"]);
    for (id, time, status) in &f.runs {
        csv.number(id).text(time).text(status).end();
    }
    AutoTicketText {
        summary,
        description,
        csv_name: format!("alert-{}-runs.csv", f.event_id),
        csv: csv.into_bytes(),
    }
}

#[cfg(test)]
mod auto_ticket_tests {
    use super::*;

    #[test]
    fn the_ticket_names_the_case_the_group_the_runs_and_the_alert() {
        let f = AlertFacts {
            event_id: 42,
            setting_name: "Night".into(),
            test_case: "Login".into(),
            group: "Web".into(),
            status: "Failure".into(),
            runs: vec![
                (7, "2026/11/24 07:00:00".into(), "Failure".into()),
                (9, "2026/11/24 07:05:00".into(), "Fail, \"hard\"".into()),
                (11, "2026/11/24 07:10:00".into(), "@SUM(1+1)".into()),
            ],
            public_url: "https://console.example/".into(),
            ..Default::default()
        };
        let t = auto_ticket(&f);
        assert_eq!(t.summary, "cxwatch alert: Login (Failure) in Web");
        assert!(t.description.contains("test case Login in group Web"));
        assert!(t.description.contains("- run 9 at 2026/11/24 07:05:00"));
        assert!(t.description.ends_with("https://console.example/alert/42"));
        assert_eq!(
            String::from_utf8(t.csv).unwrap(),
            "runId,runTime,status\r\n7,2026/11/24 07:00:00,Failure\r\n\
             9,2026/11/24 07:05:00,\"Fail, \"\"hard\"\"\"\r\n\
             11,2026/11/24 07:10:00,'@SUM(1+1)\r\n"
        );
        assert_eq!(t.csv_name, "alert-42-runs.csv");
    }
}

/// Acknowledgement, escalation, maintenance windows.
#[cfg(test)]
mod life_tests {
    use super::*;
    use crate::domain::schedule::SlotRange;
    use chrono::TimeZone;
    use chrono_tz::America::Toronto;

    const F: i64 = 7;

    #[test]
    fn only_an_open_event_is_acknowledged_and_only_once() {
        assert_eq!(acknowledgement(true, false), Acknowledgement::Now);
        assert_eq!(acknowledgement(true, true), Acknowledgement::Already);
        assert_eq!(acknowledgement(false, true), Acknowledgement::Already);
        assert_eq!(acknowledgement(false, false), Acknowledgement::Closed);
    }

    #[test]
    fn escalation_comes_at_the_delay_once_unless_acknowledged() {
        let opened = Toronto
            .with_ymd_and_hms(2026, 11, 23, 2, 0, 0)
            .unwrap()
            .timestamp_millis();
        let e = EscalationState {
            open: true,
            acknowledged: false,
            escalated: false,
            alert_ms: opened,
            delay_min: Some(15),
        };
        let due = escalation_due_ms(opened, 15);
        assert_eq!(due - opened, 15 * 60_000);
        assert!(!escalates(&e, due - 1));
        assert!(escalates(&e, due));
        assert!(
            escalates(&e, due + 3_600_000),
            "a late worker still escalates"
        );
        for other in [
            EscalationState {
                acknowledged: true,
                ..e
            },
            EscalationState {
                escalated: true,
                ..e
            },
            EscalationState { open: false, ..e },
            EscalationState {
                delay_min: None,
                ..e
            },
        ] {
            assert!(!escalates(&other, due + 60_000), "{other:?}");
        }
        assert_eq!(escalation_due_ms(i64::MAX - 5, 10), i64::MAX);
    }

    #[test]
    fn the_escalation_message_says_who_was_told_first_and_links_to_acknowledge() {
        let f = EscalationFacts {
            event_id: 42,
            alert_ms: Toronto
                .with_ymd_and_hms(2026, 11, 23, 2, 0, 0)
                .unwrap()
                .timestamp_millis(),
            delay_min: 15,
            setting_name: "Billing down".into(),
            group: "Billing".into(),
            test_case: "Balance".into(),
            first_list: "Night shift".into(),
            email_subject: "".into(),
            sms_prefix: "[CX]".into(),
            public_url: "https://console.example.com/".into(),
        };
        let m = escalation_message(&f, Toronto);
        assert_eq!(m.subject, "Escalated: cxwatch alert 42 on Balance");
        assert!(
            m.text.contains("opened at 2026/11/23 02:00:00"),
            "{}",
            m.text
        );
        assert!(m
            .text
            .contains("after 15 min. Night shift was notified first."));
        assert!(m
            .text
            .contains("Acknowledge: https://console.example.com/alert/42?acknowledge=1"));
        assert!(m.html.unwrap().contains("?acknowledge=1\">Acknowledge</a>"));
        let mut with_subject = f.clone();
        with_subject.email_subject = "Billing IVR failing".into();
        assert_eq!(
            escalation_message(&with_subject, Toronto).subject,
            "Escalated: Billing IVR failing"
        );
    }

    fn ms(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> i64 {
        Toronto
            .with_ymd_and_hms(y, mo, d, h, mi, 0)
            .earliest()
            .unwrap()
            .timestamp_millis()
    }

    fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> i64 {
        Utc.with_ymd_and_hms(y, mo, d, h, mi, 0)
            .unwrap()
            .timestamp_millis()
    }

    fn weekly(ranges: &[(u8, &str, &str)]) -> MaintenanceWindow {
        let ranges: Vec<SlotRange> = ranges
            .iter()
            .map(|(d, a, b)| SlotRange {
                day_of_week: *d,
                start: a.to_string(),
                end: b.to_string(),
            })
            .collect();
        MaintenanceWindow {
            id: 1,
            start_ms: 0,
            end_ms: None,
            ended_ms: None,
            week: Some(Week::from_ranges(&ranges).unwrap()),
        }
    }

    #[test]
    fn a_weekly_window_across_midnight() {
        // Saturday 22:00 to Sunday 02:00, site time (2026-11-21 is a Saturday).
        let w = weekly(&[(6, "22:00", "24:00"), (7, "00:00", "02:00")]);
        let at = |d, h, m| w.covers_at(ms(2026, 11, d, h, m), Toronto);
        assert!(!at(21, 21, 59));
        assert!(at(21, 22, 0));
        assert!(at(21, 23, 59));
        assert!(at(22, 0, 0));
        assert!(at(22, 1, 59));
        assert!(!at(22, 2, 0));
        // A week later again; not on a Friday night.
        assert!(at(28, 23, 0));
        assert!(!at(27, 23, 0));
        // The next one within 24 h, from Saturday noon: Saturday 22:00.
        assert_eq!(
            w.next_start(ms(2026, 11, 21, 12, 0), 24 * 3_600_000, Toronto),
            Some(ms(2026, 11, 21, 22, 0))
        );
        // From inside it, the next start is a week away: none within 24 h.
        assert_eq!(
            w.next_start(ms(2026, 11, 21, 23, 0), 24 * 3_600_000, Toronto),
            None
        );
    }

    #[test]
    fn a_weekly_window_over_the_dst_changes_in_toronto() {
        // Sunday 01:00 to 03:00 site time, every week.
        let w = weekly(&[(7, "01:00", "03:00")]);
        // 2026-03-08, clocks go from 02:00 EST to 03:00 EDT: 01:00 EST is 06:00 UTC and
        // 03:00 EDT is 07:00 UTC, so the window lasts one real hour.
        assert!(!w.covers_at(utc(2026, 3, 8, 5, 59), Toronto));
        assert!(w.covers_at(utc(2026, 3, 8, 6, 0), Toronto));
        assert!(w.covers_at(utc(2026, 3, 8, 6, 59), Toronto));
        assert!(!w.covers_at(utc(2026, 3, 8, 7, 0), Toronto), "03:00 EDT");
        // 2026-11-01, clocks go from 02:00 EDT back to 01:00 EST: 01:00 EDT is 05:00 UTC
        // and 03:00 EST is 08:00 UTC, so the window lasts three real hours (01:00-02:00
        // happens twice).
        assert!(!w.covers_at(utc(2026, 11, 1, 4, 59), Toronto));
        assert!(w.covers_at(utc(2026, 11, 1, 5, 0), Toronto), "01:00 EDT");
        assert!(w.covers_at(utc(2026, 11, 1, 6, 30), Toronto), "01:30 EST");
        assert!(w.covers_at(utc(2026, 11, 1, 7, 59), Toronto), "02:59 EST");
        assert!(!w.covers_at(utc(2026, 11, 1, 8, 0), Toronto), "03:00 EST");
        // The next start is on the grid in real time, across the change.
        assert_eq!(
            w.next_start(utc(2026, 3, 7, 12, 0), 24 * 3_600_000, Toronto),
            Some(utc(2026, 3, 8, 6, 0))
        );
        assert_eq!(
            w.next_start(utc(2026, 10, 31, 12, 0), 24 * 3_600_000, Toronto),
            Some(utc(2026, 11, 1, 5, 0))
        );
    }

    #[test]
    fn a_run_arriving_late_is_judged_by_its_own_time() {
        let w = MaintenanceWindow {
            id: 2,
            start_ms: ms(2026, 11, 23, 2, 0),
            end_ms: Some(ms(2026, 11, 23, 3, 0)),
            ended_ms: None,
            week: None,
        };
        // Ran at 02:40, inside; it may arrive at 05:00, long after the window: covered.
        let run = RunFact::new(1, ms(2026, 11, 23, 2, 40), F, Toronto);
        assert!(w.covers(run.run_ms, run.local));
        // The end is excluded; before the start is not covered.
        assert!(!w.covers_at(ms(2026, 11, 23, 3, 0), Toronto));
        assert!(!w.covers_at(ms(2026, 11, 23, 1, 59), Toronto));
        assert_eq!(
            w.next_start(ms(2026, 11, 22, 9, 0), 24 * 3_600_000, Toronto),
            Some(ms(2026, 11, 23, 2, 0))
        );
        assert_eq!(
            w.next_start(ms(2026, 11, 21, 9, 0), 24 * 3_600_000, Toronto),
            None,
            "more than 24 h away"
        );
    }

    #[test]
    fn a_window_ended_early_covers_nothing_after() {
        let mut w = MaintenanceWindow {
            id: 3,
            start_ms: ms(2026, 11, 23, 2, 0),
            end_ms: Some(ms(2026, 11, 23, 6, 0)),
            ended_ms: Some(ms(2026, 11, 23, 3, 15)),
            week: None,
        };
        assert!(w.covers_at(ms(2026, 11, 23, 3, 14), Toronto));
        assert!(!w.covers_at(ms(2026, 11, 23, 3, 15), Toronto));
        assert!(!w.covers_at(ms(2026, 11, 23, 5, 0), Toronto));
        // Ended before it began: it never starts.
        w.ended_ms = Some(ms(2026, 11, 22, 12, 0));
        assert_eq!(
            w.next_start(ms(2026, 11, 22, 13, 0), 24 * 3_600_000, Toronto),
            None
        );
        // A weekly window ended early stops covering its later weeks.
        let mut wk = weekly(&[(1, "02:00", "04:00")]);
        wk.ended_ms = Some(ms(2026, 11, 23, 3, 0));
        assert!(wk.covers_at(ms(2026, 11, 23, 2, 30), Toronto));
        assert!(!wk.covers_at(ms(2026, 11, 23, 3, 30), Toronto));
        assert!(!wk.covers_at(ms(2026, 11, 30, 2, 30), Toronto));
    }

    #[test]
    fn the_alert_mail_links_to_acknowledge_the_recovery_mail_does_not() {
        let f = AlertFacts {
            event_id: 7,
            public_url: "https://c.example".into(),
            ..AlertFacts::default()
        };
        assert!(alert_message(&f, false)
            .text
            .contains("Acknowledge: https://c.example/alert/7?acknowledge=1"));
        assert!(!alert_message(&f, true).text.contains("Acknowledge"));
    }
}

#[cfg(test)]
mod unstored_tests {
    use super::*;
    use chrono_tz::America::Toronto;

    fn rule() -> Rule {
        Rule {
            setting_id: 1,
            active: true,
            failure_to_alert: 2,
            statuses: vec![7],
            week: Week::all(),
        }
    }

    #[test]
    fn an_evaluated_setting_without_a_row_is_at_rest_at_the_clock() {
        let s = CaseState::unstored(true, Some(1_000));
        assert!(s.at_rest(Some(1_000)));
        assert!(!s.at_rest(Some(2_000)));
        assert_eq!((s.count, s.open_event), (0, None));
        assert!(s.pending.is_empty());
        // A run older than the clock is late for it, one newer is counted.
        let late = RunFact::new(1, 999, 7, Toronto);
        assert_eq!(step(&rule(), &s, &late).1, Action::Late);
        let (next, action) = step(&rule(), &s, &RunFact::new(2, 1_001, 7, Toronto));
        assert_eq!(action, Action::None);
        assert!(
            !next.at_rest(Some(1_001)),
            "a counted failure needs its row"
        );
        // A pass after it brings it back to rest: its row can go.
        let (next, _) = step(&rule(), &next, &RunFact::new(3, 1_002, 3, Toronto));
        assert!(next.at_rest(Some(1_002)));
    }

    #[test]
    fn a_setting_never_evaluated_is_fresh_whatever_the_clock() {
        let s = CaseState::unstored(false, Some(1_000));
        assert_eq!(s, CaseState::default());
        // The backfill's runs are all older than the clock: none is late.
        let (_, action) = step(&rule(), &s, &RunFact::new(1, 10, 7, Toronto));
        assert_eq!(action, Action::None);
        // Without a clock (no run of the test case evaluated yet) both meanings agree.
        assert_eq!(
            CaseState::unstored(true, None),
            CaseState::unstored(false, None)
        );
    }
}

//! Incidents: alert events that open close together and share a cause are one outage
//! (`docs/alerting.md` 'Incidents'). The engine asks [`assign`] for each event it opens, in
//! the transaction that opens it; the console reads an incident's state with [`state_of`].
//!
//! **Cause.** An event's causes are its test case group and its test case's client
//! application (the IVR application or chatbot the call or chat enters by: the journey's
//! IVR/Chatbot component, and behind it the Telco/Internet route to that entry point). Two
//! events share a cause when they watch the same group, or test cases of the same
//! application: one IVR outage behind five groups is one incident; two groups failing on two
//! applications at the same time are two.
//!
//! **Window.** An event joins an incident that shares a cause with any of its events when
//! it opens inside the incident's span widened by [`WINDOW_MS`] on both sides: from
//! `WINDOW_MS` before its first event opened to `WINDOW_MS` after its last event closed
//! (no end while one is open). So an event joins late as long as the incident is open, a
//! flap shortly after recovery reopens the incident instead of paging again, and the
//! engine's backfill, which opens events out of time order, groups them as ingest would.
//!
//! **Overlapping causes.** An event that could join several incidents (its group's and its
//! application's) joins the one whose first failure is the oldest (then the lowest id):
//! incidents never merge, so a notification that named an incident stays true.
//!
//! **Recovery.** An incident is open while one of its events is; a part that recovers
//! closes its event only. It resolves when its last event closes, at that time.

/// How close together (ms) events must open, or open after the incident resolved, to be
/// one incident.
pub const WINDOW_MS: i64 = 30 * 60_000;

/// What an event is caused by, as far as grouping goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cause {
    /// A test case group.
    Group(i64),
    /// A client application (entry point: IVR application or chatbot).
    Entry(i64),
}

/// The causes of an event of group `group` on a test case of application `entry` (`None`:
/// the test case is gone).
pub fn causes(group: i64, entry: Option<i64>) -> Vec<Cause> {
    let mut c = vec![Cause::Group(group)];
    c.extend(entry.map(Cause::Entry));
    c
}

/// An event as grouping sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub causes: Vec<Cause>,
    pub alert_ms: i64,
    /// When it closed; `None` while open.
    pub closed_ms: Option<i64>,
}

/// An incident an event may join: its id and its events. A member may stand for several
/// events of the same causes (the first opening among them, and the last close or none
/// while one is open): grouping reads no more of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub id: i64,
    pub members: Vec<Member>,
}

impl Candidate {
    /// When its first event opened.
    pub fn first_ms(&self) -> i64 {
        self.members.iter().map(|m| m.alert_ms).min().unwrap_or(0)
    }

    /// When it resolved: its last event's close, `None` while one is open (or it has none).
    pub fn resolved_ms(&self) -> Option<i64> {
        if self.members.is_empty() {
            return None;
        }
        self.members
            .iter()
            .map(|m| m.closed_ms)
            .collect::<Option<Vec<i64>>>()
            .and_then(|c| c.into_iter().max())
    }

    fn shares(&self, m: &Member) -> bool {
        self.members
            .iter()
            .any(|o| o.causes.iter().any(|c| m.causes.contains(c)))
    }

    /// Whether event `m` joins it (module doc: a shared cause, inside the widened span).
    pub fn accepts(&self, m: &Member) -> bool {
        if self.members.is_empty() || !self.shares(m) {
            return false;
        }
        let after_start = m.alert_ms >= self.first_ms() - WINDOW_MS;
        let before_end = self
            .resolved_ms()
            .is_none_or(|end| m.alert_ms <= end + WINDOW_MS);
        after_start && before_end
    }
}

/// The incident event `m` joins among `candidates` (its index), or `None`: it starts one.
pub fn assign(candidates: &[Candidate], m: &Member) -> Option<usize> {
    candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.accepts(m))
        .min_by_key(|(_, c)| (c.first_ms(), c.id))
        .map(|(i, _)| i)
}

/// An incident's events as its state is read from them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertState {
    pub open: bool,
    pub closed_ms: Option<i64>,
    /// Who acknowledged it and when.
    pub ack: Option<(String, i64)>,
}

/// Where an incident stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Some open event nobody acknowledged.
    Open,
    /// Every open event acknowledged: by whom first, and when.
    Acknowledged { by: String, at_ms: i64 },
    /// Every event closed, the last at this time.
    Resolved { at_ms: i64 },
}

/// The state of an incident of these events (not empty).
pub fn state_of(alerts: &[AlertState]) -> State {
    let open: Vec<&AlertState> = alerts.iter().filter(|a| a.open).collect();
    if open.is_empty() {
        let at_ms = alerts.iter().filter_map(|a| a.closed_ms).max().unwrap_or(0);
        return State::Resolved { at_ms };
    }
    if open.iter().all(|a| a.ack.is_some()) {
        if let Some((by, at_ms)) = open
            .iter()
            .filter_map(|a| a.ack.clone())
            .min_by_key(|(_, at)| *at)
        {
            return State::Acknowledged { by, at_ms };
        }
    }
    State::Open
}

/// A mute of one of an incident's events: until when, by whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mute {
    pub until_ms: i64,
    pub by: String,
}

/// The incident's mute at `now_ms`: the one that lasts longest among those still running.
pub fn active_mute(mutes: &[(i64, i64, String)], now_ms: i64) -> Option<Mute> {
    mutes
        .iter()
        .filter(|(start, until, _)| *start <= now_ms && now_ms < *until)
        .max_by_key(|(_, until, _)| *until)
        .map(|(_, until_ms, by)| Mute {
            until_ms: *until_ms,
            by: by.clone(),
        })
}

/// What an incident is named after: the cause all its events share, the application first
/// (one entry point behind several groups), else the group; else the first event's group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Title {
    Entry(i64),
    Group(i64),
}

/// The title of an incident of these events' causes (oldest event first; not empty).
pub fn title(causes: &[Vec<Cause>]) -> Title {
    let shared = |pick: fn(&Cause) -> Option<i64>| -> Option<i64> {
        let first = causes.first()?.iter().find_map(pick)?;
        causes
            .iter()
            .all(|c| c.iter().filter_map(pick).any(|x| x == first))
            .then_some(first)
    };
    let entry = |c: &Cause| match c {
        Cause::Entry(e) => Some(*e),
        _ => None,
    };
    let group = |c: &Cause| match c {
        Cause::Group(g) => Some(*g),
        _ => None,
    };
    if let Some(e) = shared(entry) {
        return Title::Entry(e);
    }
    let g = shared(group)
        .or_else(|| causes.first().and_then(|c| c.iter().find_map(group)))
        .unwrap_or(0);
    Title::Group(g)
}

/// What a notification of an event says of its incident.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub incident_id: i64,
    /// The event joined an incident that another event started: it is not a new outage.
    pub joined: bool,
    /// How many events the incident has with this one.
    pub alerts: usize,
    /// When its first event opened (UTC ms).
    pub first_ms: i64,
}

/// Whether an event that joined an incident is sent to a contact of this kind: e-mail,
/// chat and webhooks keep the record ('joined incident N'); SMS and voice calls page
/// someone, and the incident paged them already (as PagerDuty does not page again for an
/// alert grouped into an open incident).
pub fn pages_joined(kind: super::distribution::ContactType) -> bool {
    use super::distribution::ContactType;
    !matches!(kind, ContactType::Sms | ContactType::Voice)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = 60_000;

    fn m(group: i64, entry: i64, at_min: i64, closed_min: Option<i64>) -> Member {
        Member {
            causes: causes(group, Some(entry)),
            alert_ms: at_min * MIN,
            closed_ms: closed_min.map(|c| c * MIN),
        }
    }

    /// Runs [`assign`] over events in order, as the engine does: each joins or starts one.
    fn group_all(events: &[Member]) -> Vec<i64> {
        let mut incidents: Vec<Candidate> = Vec::new();
        let mut out = Vec::new();
        for e in events {
            match assign(&incidents, e) {
                Some(i) => {
                    incidents[i].members.push(e.clone());
                    out.push(incidents[i].id);
                }
                None => {
                    let id = incidents.len() as i64 + 1;
                    incidents.push(Candidate {
                        id,
                        members: vec![e.clone()],
                    });
                    out.push(id);
                }
            }
        }
        out
    }

    #[test]
    fn one_ivr_outage_behind_five_groups_is_one_incident() {
        // Five groups, one IVR application (7), alerts over 12 minutes.
        let events: Vec<Member> = (0..5).map(|g| m(10 + g, 7, 100 + g * 3, None)).collect();
        assert_eq!(group_all(&events), vec![1, 1, 1, 1, 1]);
    }

    #[test]
    fn unrelated_causes_at_the_same_time_are_two_incidents() {
        let events = [m(1, 7, 100, None), m(2, 8, 101, None), m(1, 9, 102, None)];
        // The third shares group 1 with the first.
        assert_eq!(group_all(&events), vec![1, 2, 1]);
    }

    #[test]
    fn the_window_separates_outages_of_one_cause() {
        // The first recovered at 130; one opening at 159 is the same outage flapping, one at
        // 161 (31 minutes after) a new one.
        let first = m(1, 7, 100, Some(130));
        assert_eq!(group_all(&[first.clone(), m(2, 7, 159, None)]), vec![1, 1]);
        assert_eq!(group_all(&[first, m(2, 7, 161, None)]), vec![1, 2]);
    }

    #[test]
    fn an_alert_joins_late_while_the_incident_is_open() {
        // A 10-failure setting fires three hours into the outage: still the same incident.
        let events = [m(1, 7, 100, None), m(2, 7, 280, None)];
        assert_eq!(group_all(&events), vec![1, 1]);
    }

    #[test]
    fn out_of_order_openings_group_as_in_time_order() {
        // The backfill opens a later event first; an earlier one within the window joins it.
        let events = [m(1, 7, 200, Some(260)), m(2, 7, 175, None)];
        assert_eq!(group_all(&events), vec![1, 1]);
        // Long before it: another outage.
        let events = [m(1, 7, 200, Some(260)), m(2, 7, 100, Some(120))];
        assert_eq!(group_all(&events), vec![1, 2]);
    }

    #[test]
    fn overlapping_causes_join_the_oldest_incident_and_never_merge() {
        // Incident 1: group 1 on app 7; incident 2: group 2 on app 8. An event of group 2 on
        // app 7 shares a cause with both: it joins the older, incident 1.
        let events = [m(1, 7, 100, None), m(2, 8, 105, None), m(2, 7, 110, None)];
        assert_eq!(group_all(&events), vec![1, 2, 1]);
        // The same with the older one second in the list.
        let c = [
            Candidate {
                id: 5,
                members: vec![m(2, 8, 105, None)],
            },
            Candidate {
                id: 9,
                members: vec![m(1, 7, 100, None)],
            },
        ];
        assert_eq!(assign(&c, &m(2, 7, 110, None)), Some(1));
    }

    #[test]
    fn an_incident_grows_through_the_causes_of_its_events() {
        // Group 1 on app 7, then group 2 on app 7 (shared app), then group 2 on app 9
        // (shared group 2 only).
        let events = [m(1, 7, 100, None), m(2, 7, 102, None), m(2, 9, 104, None)];
        assert_eq!(group_all(&events), vec![1, 1, 1]);
    }

    #[test]
    fn recovery_of_one_part_leaves_the_incident_open_until_the_last() {
        let alerts = |a: Option<i64>, b: Option<i64>| {
            vec![
                AlertState {
                    open: a.is_none(),
                    closed_ms: a,
                    ack: None,
                },
                AlertState {
                    open: b.is_none(),
                    closed_ms: b,
                    ack: None,
                },
            ]
        };
        assert_eq!(state_of(&alerts(Some(150), None)), State::Open);
        assert_eq!(
            state_of(&alerts(Some(150), Some(170))),
            State::Resolved { at_ms: 170 }
        );
        let c = Candidate {
            id: 1,
            members: vec![m(1, 7, 100, Some(150)), m(2, 7, 101, None)],
        };
        assert_eq!(c.resolved_ms(), None);
        // The recovered part's cause still joins while the other part is open.
        assert!(c.accepts(&m(1, 7, 400, None)));
    }

    #[test]
    fn acknowledged_when_every_open_alert_is_by_the_first_who_did() {
        let a = |open: bool, ack: Option<(&str, i64)>| AlertState {
            open,
            closed_ms: (!open).then_some(1),
            ack: ack.map(|(u, t)| (u.to_string(), t)),
        };
        assert_eq!(
            state_of(&[a(true, Some(("bo", 9))), a(true, None)]),
            State::Open
        );
        assert_eq!(
            state_of(&[
                a(true, Some(("bo", 9))),
                a(true, Some(("ana", 5))),
                a(false, None)
            ]),
            State::Acknowledged {
                by: "ana".into(),
                at_ms: 5
            }
        );
    }

    #[test]
    fn the_longest_running_mute_is_the_incidents() {
        let mutes = vec![
            (0, 100, "ana".to_string()),
            (0, 300, "bo".to_string()),
            (500, 900, "cy".to_string()),
        ];
        assert_eq!(
            active_mute(&mutes, 50),
            Some(Mute {
                until_ms: 300,
                by: "bo".into()
            })
        );
        assert_eq!(active_mute(&mutes, 300), None);
        assert_eq!(active_mute(&mutes, 600).map(|m| m.by), Some("cy".into()));
    }

    #[test]
    fn titled_by_the_shared_application_else_the_group() {
        let c = |g, e| causes(g, Some(e));
        assert_eq!(title(&[c(1, 7), c(2, 7)]), Title::Entry(7));
        assert_eq!(title(&[c(1, 7), c(1, 8)]), Title::Group(1));
        assert_eq!(title(&[c(1, 7), c(2, 8), c(2, 7)]), Title::Group(1));
        assert_eq!(title(&[causes(3, None)]), Title::Group(3));
    }

    #[test]
    fn a_joined_alert_pages_nobody_and_says_so() {
        use crate::domain::alerting::{alert_message, with_incident, AlertFacts};
        use crate::domain::distribution::ContactType;
        assert!(pages_joined(ContactType::Email) && pages_joined(ContactType::Teams));
        assert!(!pages_joined(ContactType::Sms) && !pages_joined(ContactType::Voice));
        let f = AlertFacts {
            event_id: 41,
            setting_name: "Cards down".into(),
            email_subject: "Cards down".into(),
            sms_prefix: "[cx]".into(),
            voice_message: "Cards are down".into(),
            test_case: "Report Lost Card".into(),
            group: "Cards".into(),
            status: "Failure".into(),
            runs: vec![(1, "2026/01/05 03:10:00".into(), "Failure".into())],
            public_url: "https://cx.example".into(),
        };
        let note = Note {
            incident_id: 7,
            joined: true,
            alerts: 3,
            first_ms: 0,
        };
        let msg = with_incident(alert_message(&f, false), &f, &note);
        assert_eq!(msg.subject, "[Incident 7] joined: Cards down");
        assert!(msg
            .text
            .starts_with("Alert 41 joined incident 7 (3 alerts): not a new outage."));
        assert!(msg
            .text
            .contains("Incident 7: https://cx.example/incident/7"));
        assert!(msg.sms_text.starts_with("Joined incident 7: "));
        assert!(msg.voice_message.contains("joined incident 7"));
        let first = with_incident(
            alert_message(&f, false),
            &f,
            &Note {
                joined: false,
                ..note
            },
        );
        assert_eq!(first.subject, "Cards down");
        assert!(first
            .text
            .contains("Incident 7: https://cx.example/incident/7"));
        assert_eq!(first.voice_message, "Cards are down");
    }

    #[test]
    fn a_recovery_says_whether_its_incident_is_still_open() {
        use crate::domain::alerting::{alert_message, recovered_in_incident, AlertFacts};
        let f = AlertFacts {
            event_id: 41,
            setting_name: "Cards down".into(),
            email_subject: "Cards down".into(),
            test_case: "Report Lost Card".into(),
            group: "Cards".into(),
            public_url: "https://cx.example".into(),
            ..Default::default()
        };
        let open = recovered_in_incident(alert_message(&f, true), &f, 7, 2);
        assert_eq!(
            open.subject,
            "Recovered: Cards down (incident 7: 2 still open)"
        );
        assert!(open
            .text
            .starts_with("Incident 7 is still open: 2 alerts not recovered.\nRecovered: "));
        assert!(open
            .text
            .contains("Incident 7: https://cx.example/incident/7"));
        assert_eq!(
            open.sms_text,
            "RECOVERED Report Lost Card (Cards); incident 7: 2 still open"
        );
        assert!(open.voice_message.ends_with(" Incident 7 is still open."));
        let one = recovered_in_incident(alert_message(&f, true), &f, 7, 1);
        assert!(one
            .text
            .starts_with("Incident 7 is still open: 1 alert not"));
        let last = recovered_in_incident(alert_message(&f, true), &f, 7, 0);
        assert_eq!(last.subject, "Recovered: Cards down (incident 7 resolved)");
        assert!(last
            .text
            .starts_with("Incident 7 is resolved: all its alerts recovered."));
        assert!(last.sms_text.ends_with("; incident 7 resolved"));
        assert!(last
            .html
            .unwrap()
            .starts_with("<p><strong>Incident 7 is resolved"));
    }
}

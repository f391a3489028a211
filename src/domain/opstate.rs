//! What the operator sees of an outage: the alert state of a failing group (the dashboard's
//! failing-now bar), the alert list's state filters, and a mute that extends instead of adding
//! a second window. Pure rules; the store gathers the facts (`store/opstate.rs`).

/// An open alert event of the group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenEvent {
    pub id: i64,
    pub alert_ms: i64,
    /// Who acknowledged it and when (UTC ms).
    pub ack: Option<(String, i64)>,
}

/// A once window active now that covers the group or one of its test cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveMute {
    pub window_id: i64,
    pub until_ms: i64,
    pub by: String,
    /// The alert it was made from, if any.
    pub event_id: Option<i64>,
    /// It covers the whole group (else one or more of its test cases).
    pub whole_group: bool,
}

/// An active alert setting of the group: its consecutive-failure count now (the highest of
/// its test cases without an open event) against the count that opens an alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingCount {
    pub setting_id: i64,
    pub count: i64,
    pub threshold: i64,
}

/// What the store knows of one group's alerting now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupFacts {
    pub open: Vec<OpenEvent>,
    pub mutes: Vec<ActiveMute>,
    pub settings: Vec<SettingCount>,
}

/// A failing group's alert state, as the failing-now bar names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupAlertState {
    /// 'muted until 04:00 by Ana'.
    Muted(ActiveMute),
    /// 'alert open, not acknowledged': the oldest such event.
    Open { event_id: i64 },
    /// 'acknowledged by Ana 03:12': every open event is acknowledged; the latest one.
    Acknowledged {
        event_id: i64,
        by: String,
        at_ms: i64,
    },
    /// 'no alert yet: 4 of 5 failures': the setting nearest to opening one.
    NotYet(SettingCount),
    /// No active alert setting covers the group.
    NoSetting,
}

/// The state the bar shows for a failing group. A mute is the operator's decision and is
/// shown first (the whole group's before one test case's, then the one ending last); then an
/// open event nobody has (the one that waits longest), so that one unhandled alert is never
/// hidden behind an acknowledged one; then the last acknowledgement; then how near the
/// nearest setting is to opening an alert.
pub fn group_state(f: &GroupFacts) -> GroupAlertState {
    if let Some(m) = f
        .mutes
        .iter()
        .max_by_key(|m| (m.whole_group, m.until_ms, m.window_id))
    {
        return GroupAlertState::Muted(m.clone());
    }
    if let Some(e) = f
        .open
        .iter()
        .filter(|e| e.ack.is_none())
        .min_by_key(|e| (e.alert_ms, e.id))
    {
        return GroupAlertState::Open { event_id: e.id };
    }
    if let Some((e, (by, at))) = f
        .open
        .iter()
        .filter_map(|e| e.ack.as_ref().map(|a| (e, a)))
        .max_by_key(|(e, (_, at))| (*at, e.id))
    {
        return GroupAlertState::Acknowledged {
            event_id: e.id,
            by: by.clone(),
            at_ms: *at,
        };
    }
    // Nearest first: the largest share of its threshold, then the most failures.
    match f.settings.iter().max_by(|a, b| {
        (a.count * b.threshold)
            .cmp(&(b.count * a.threshold))
            .then(a.count.cmp(&b.count))
            .then(b.setting_id.cmp(&a.setting_id))
    }) {
        Some(s) => GroupAlertState::NotYet(SettingCount {
            count: s.count.clamp(0, s.threshold.max(0)),
            ..*s
        }),
        None => GroupAlertState::NoSetting,
    }
}

/// The alert list's state filter (cxwatch's addition).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventState {
    /// Open events.
    Open,
    /// Open events nobody acknowledged.
    Unacknowledged,
    /// Events the caller took part in: acknowledged, commented or muted by them.
    Mine,
}

/// What a mute from an alert covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MuteTarget {
    /// The event's test case.
    TestCase,
    /// The event's whole test case group.
    Group,
}

/// A live once window's end against a new mute's: muting again extends the window that
/// covers the same thing, never shortens it. `None`: it already lasts long enough.
pub fn extended_end(current_end_ms: i64, wanted_until_ms: i64) -> Option<i64> {
    (wanted_until_ms > current_end_ms).then_some(wanted_until_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(id: i64, at: i64, ack: Option<(&str, i64)>) -> OpenEvent {
        OpenEvent {
            id,
            alert_ms: at,
            ack: ack.map(|(b, t)| (b.to_string(), t)),
        }
    }

    fn mute(id: i64, until: i64, whole: bool) -> ActiveMute {
        ActiveMute {
            window_id: id,
            until_ms: until,
            by: "ana".into(),
            event_id: Some(1),
            whole_group: whole,
        }
    }

    #[test]
    fn a_mute_comes_first_the_whole_group_before_a_case() {
        let f = GroupFacts {
            open: vec![open(1, 10, None)],
            mutes: vec![mute(5, 9_000, false), mute(6, 8_000, true)],
            settings: vec![],
        };
        assert_eq!(
            group_state(&f),
            GroupAlertState::Muted(mute(6, 8_000, true))
        );
        let f = GroupFacts {
            mutes: vec![mute(5, 9_000, false), mute(7, 10_000, false)],
            ..f
        };
        assert_eq!(
            group_state(&f),
            GroupAlertState::Muted(mute(7, 10_000, false))
        );
    }

    #[test]
    fn an_unacknowledged_event_is_not_hidden_by_an_acknowledged_one() {
        let f = GroupFacts {
            open: vec![
                open(3, 30, Some(("ana", 40))),
                open(4, 35, None),
                open(2, 20, None),
            ],
            ..Default::default()
        };
        assert_eq!(group_state(&f), GroupAlertState::Open { event_id: 2 });
    }

    #[test]
    fn every_event_acknowledged_names_the_last_acknowledgement() {
        let f = GroupFacts {
            open: vec![
                open(3, 30, Some(("ana", 40))),
                open(4, 35, Some(("bob", 50))),
            ],
            settings: vec![SettingCount {
                setting_id: 1,
                count: 5,
                threshold: 5,
            }],
            ..Default::default()
        };
        assert_eq!(
            group_state(&f),
            GroupAlertState::Acknowledged {
                event_id: 4,
                by: "bob".into(),
                at_ms: 50
            }
        );
    }

    #[test]
    fn no_alert_yet_names_the_setting_nearest_to_opening_one() {
        let s = |id, count, threshold| SettingCount {
            setting_id: id,
            count,
            threshold,
        };
        let f = GroupFacts {
            settings: vec![s(1, 4, 10), s(2, 4, 5), s(3, 1, 2)],
            ..Default::default()
        };
        assert_eq!(group_state(&f), GroupAlertState::NotYet(s(2, 4, 5)));
        // The same share: the most failures.
        let f = GroupFacts {
            settings: vec![s(1, 1, 2), s(2, 5, 10)],
            ..Default::default()
        };
        assert_eq!(group_state(&f), GroupAlertState::NotYet(s(2, 5, 10)));
        // A count past the threshold (its event closed, the count goes on) reads as full.
        let f = GroupFacts {
            settings: vec![s(1, 7, 5)],
            ..Default::default()
        };
        assert_eq!(group_state(&f), GroupAlertState::NotYet(s(1, 5, 5)));
        assert_eq!(
            group_state(&GroupFacts::default()),
            GroupAlertState::NoSetting
        );
    }

    #[test]
    fn muting_again_extends_never_shortens() {
        assert_eq!(extended_end(1_000, 2_000), Some(2_000));
        assert_eq!(extended_end(2_000, 1_000), None);
        assert_eq!(extended_end(2_000, 2_000), None);
    }
}

//! The weekly schedule of an alert setting (spec §2 'Schedule picker', §9): 7 days, Monday
//! first, by 48 half-hour slots, slot `s` starting at `s × 30` minutes of the site's day.
//!
//! The API carries a schedule as ranges `{dayOfWeek, startTimeSlot, endTimeSlot}`: day 1
//! Monday .. 7 Sunday (ISO 8601), times `HH:mm` on the half hour, the end exclusive. An end
//! of `24:00` is the end of the day and so is an end of `00:00` (spec: 'a 24:00 end is
//! treated as 00:00'), so the all-day range `00:00`–`24:00` (or `00:00`–`00:00`) expands to
//! every slot. A range cannot start at `24:00` (the picker's time error). Stored, a day is a
//! 48-bit mask; read back, a day's slots are merged into the fewest ranges.
//!
//! The UI's picker (`ui/src/lib/schedule.ts`) follows the same rules; both are tested
//! against the same table, `tests/fixtures/schedule.json`.

use chrono::{Datelike, NaiveDateTime, Timelike};

/// Half-hour slots in a day.
pub const SLOTS: u8 = 48;
const FULL_DAY: u64 = (1 << SLOTS) - 1;

/// One range of the API: `dayOfWeek` 1..=7, `startTimeSlot` and `endTimeSlot` as `HH:mm`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotRange {
    pub day_of_week: u8,
    pub start: String,
    pub end: String,
}

/// Why a schedule cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScheduleError {
    /// `dayOfWeek` outside 1..=7.
    Day(u8),
    /// A time that is not `HH:mm` on the half hour between `00:00` and `24:00`, or a range
    /// that starts at `24:00`.
    Time(String),
    /// A start at or after its end.
    Order { start: String, end: String },
}

impl std::fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScheduleError::Day(d) => {
                write!(f, "dayOfWeek {d} is not between 1 (Monday) and 7 (Sunday)")
            }
            ScheduleError::Time(t) => {
                write!(f, "'{t}' is not a half-hour time slot from 00:00 to 23:30")
            }
            ScheduleError::Order { start, end } => {
                write!(f, "the slot {start}–{end} ends before it starts")
            }
        }
    }
}

/// The index `0..=48` of `HH:mm` (`24:00` is 48).
pub fn slot_of(time: &str) -> Option<u8> {
    let (h, m) = time.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u8, u8) = (h.parse().ok()?, m.parse().ok()?);
    let slot = match m {
        0 => h.checked_mul(2)?,
        30 => h.checked_mul(2)?.checked_add(1)?,
        _ => return None,
    };
    (slot <= SLOTS).then_some(slot)
}

/// `HH:mm` of the slot index `0..=48`.
pub fn time_of(slot: u8) -> String {
    format!("{:02}:{:02}", slot / 2, (slot % 2) * 30)
}

/// The slot of a site-local time: `(day 1..=7, slot 0..48)`.
pub fn slot_at(local: NaiveDateTime) -> (u8, u8) {
    let day = local.weekday().number_from_monday() as u8;
    (day, (local.hour() * 2 + local.minute() / 30) as u8)
}

/// A week of selected slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Week {
    days: [u64; 7],
}

impl Week {
    /// Every slot of every day.
    pub fn all() -> Week {
        Week {
            days: [FULL_DAY; 7],
        }
    }

    /// Reads API ranges. Overlapping and touching ranges simply merge.
    pub fn from_ranges(ranges: &[SlotRange]) -> Result<Week, ScheduleError> {
        let mut week = Week::default();
        for r in ranges {
            if !(1..=7).contains(&r.day_of_week) {
                return Err(ScheduleError::Day(r.day_of_week));
            }
            let start = slot_of(&r.start)
                .filter(|s| *s < SLOTS)
                .ok_or_else(|| ScheduleError::Time(r.start.clone()))?;
            let end = match slot_of(&r.end).ok_or_else(|| ScheduleError::Time(r.end.clone()))? {
                0 => SLOTS,
                e => e,
            };
            if start >= end {
                return Err(ScheduleError::Order {
                    start: r.start.clone(),
                    end: r.end.clone(),
                });
            }
            let mask = (FULL_DAY >> (SLOTS - end)) & !((1u64 << start) - 1);
            week.days[usize::from(r.day_of_week - 1)] |= mask;
        }
        Ok(week)
    }

    /// The fewest ranges that cover the selected slots, by day then time; ends of day as `24:00`.
    pub fn ranges(&self) -> Vec<SlotRange> {
        let mut out = Vec::new();
        for (d, mask) in self.days.iter().enumerate() {
            let mut s = 0;
            while s < SLOTS {
                if mask >> s & 1 == 0 {
                    s += 1;
                    continue;
                }
                let start = s;
                while s < SLOTS && mask >> s & 1 == 1 {
                    s += 1;
                }
                out.push(SlotRange {
                    day_of_week: d as u8 + 1,
                    start: time_of(start),
                    end: time_of(s),
                });
            }
        }
        out
    }

    /// The stored rows: `(day 1..=7, 48-bit mask)` for each day with a selected slot.
    pub fn masks(&self) -> Vec<(u8, u64)> {
        (1..=7u8).zip(self.days).filter(|(_, m)| *m != 0).collect()
    }

    /// A week from stored rows; days outside 1..=7 and bits past slot 47 are ignored.
    pub fn from_masks(rows: impl IntoIterator<Item = (u8, u64)>) -> Week {
        let mut week = Week::default();
        for (day, mask) in rows {
            if (1..=7).contains(&day) {
                week.days[usize::from(day - 1)] |= mask & FULL_DAY;
            }
        }
        week
    }

    /// Whether slot `slot` of day `day` (1..=7) is selected.
    pub fn has(&self, day: u8, slot: u8) -> bool {
        (1..=7).contains(&day) && slot < SLOTS && self.days[usize::from(day - 1)] >> slot & 1 == 1
    }

    /// Whether the site-local time falls in a selected slot.
    pub fn covers(&self, local: NaiveDateTime) -> bool {
        let (day, slot) = slot_at(local);
        self.has(day, slot)
    }

    pub fn is_empty(&self) -> bool {
        self.days.iter().all(|m| *m == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;
    use serde::Deserialize;

    fn r(day: u8, start: &str, end: &str) -> SlotRange {
        SlotRange {
            day_of_week: day,
            start: start.into(),
            end: end.into(),
        }
    }

    #[test]
    fn slot_and_time_are_inverse() {
        for s in 0..=SLOTS {
            assert_eq!(slot_of(&time_of(s)), Some(s));
        }
        assert_eq!(time_of(0), "00:00");
        assert_eq!(time_of(47), "23:30");
        assert_eq!(time_of(48), "24:00");
        for bad in [
            "24:30", "25:00", "9:00", "09:15", "09:60", "", "0900", "ab:cd",
        ] {
            assert_eq!(slot_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn local_time_to_slot() {
        let at = |y, mo, d, h, mi| {
            NaiveDate::from_ymd_opt(y, mo, d)
                .unwrap()
                .and_hms_opt(h, mi, 0)
                .unwrap()
        };
        assert_eq!(slot_at(at(2026, 11, 23, 0, 0)), (1, 0)); // a Monday
        assert_eq!(slot_at(at(2026, 11, 23, 0, 29)), (1, 0));
        assert_eq!(slot_at(at(2026, 11, 23, 0, 30)), (1, 1));
        assert_eq!(slot_at(at(2026, 11, 29, 23, 59)), (7, 47)); // a Sunday
    }

    #[test]
    fn all_day_and_end_of_day() {
        let all = Week::from_ranges(&[r(3, "00:00", "24:00")]).unwrap();
        assert!((0..SLOTS).all(|s| all.has(3, s)));
        assert_eq!(all, Week::from_ranges(&[r(3, "00:00", "00:00")]).unwrap());
        assert_eq!(all.ranges(), vec![r(3, "00:00", "24:00")]);
        let evening = Week::from_ranges(&[r(1, "22:00", "00:00")]).unwrap();
        assert_eq!(evening.ranges(), vec![r(1, "22:00", "24:00")]);
        assert!(evening.has(1, 47) && !evening.has(2, 0));
    }

    #[test]
    fn merge_split_and_errors() {
        let w = Week::from_ranges(&[
            r(2, "09:00", "12:00"),
            r(2, "11:00", "13:30"),
            r(2, "13:30", "14:00"),
            r(2, "18:00", "18:30"),
        ])
        .unwrap();
        assert_eq!(
            w.ranges(),
            vec![r(2, "09:00", "14:00"), r(2, "18:00", "18:30")]
        );
        assert_eq!(Week::from_masks(w.masks()), w);
        assert_eq!(
            Week::from_ranges(&[r(1, "24:00", "24:00")]),
            Err(ScheduleError::Time("24:00".into()))
        );
        assert_eq!(
            Week::from_ranges(&[r(8, "00:00", "01:00")]),
            Err(ScheduleError::Day(8))
        );
        assert!(matches!(
            Week::from_ranges(&[r(1, "10:00", "09:00")]),
            Err(ScheduleError::Order { .. })
        ));
        assert!(matches!(
            Week::from_ranges(&[r(1, "10:00", "10:00")]),
            Err(ScheduleError::Order { .. })
        ));
        assert!(Week::from_ranges(&[]).unwrap().is_empty());
    }

    /// The table the UI's `lib/schedule.ts` is tested against too.
    #[derive(Deserialize)]
    struct Case {
        name: String,
        ranges: Vec<(u8, String, String)>,
        /// The merged ranges, or null when the input is refused.
        merged: Option<Vec<(u8, String, String)>>,
    }

    #[test]
    fn shared_table() {
        let cases: Vec<Case> =
            serde_json::from_str(include_str!("../../tests/fixtures/schedule.json")).unwrap();
        assert!(cases.len() >= 8);
        for c in cases {
            let input: Vec<SlotRange> = c.ranges.iter().map(|(d, s, e)| r(*d, s, e)).collect();
            let got = Week::from_ranges(&input).ok().map(|w| w.ranges());
            let want = c
                .merged
                .map(|m| m.iter().map(|(d, s, e)| r(*d, s, e)).collect::<Vec<_>>());
            assert_eq!(got, want, "{}", c.name);
        }
    }
}

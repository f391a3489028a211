//! The demo's alert settings, made once when the site has none, and the engine run over the
//! history already stored so that the Card Services outage of four days ago opened its
//! events and closed them on recovery. Everything goes through the real engine
//! (`store::alerts`); no event is written by hand. The live feed's runs then go through it
//! at ingest like any engine's.

use chrono_tz::Tz;

use super::{group_ids, DemoError};
use crate::domain::distribution::{DistributionFilter, DistributionSortField};
use crate::domain::page::{PageRequest, Sort};
use crate::domain::schedule::{SlotRange, Week};
use crate::store::alerts::SeedSetting;
use crate::store::Store;

struct Seed {
    name: &'static str,
    group: &'static str,
    list: &'static str,
    threshold: u32,
    statuses: &'static [i64],
    /// Weekdays 07:00–19:00 only; else every slot of the week.
    business_hours: bool,
    recovery: bool,
    attach: bool,
}

const SEEDS: [Seed; 4] = [
    Seed {
        name: "Card Services down",
        group: "Cards - Lost & Stolen",
        list: "Contact centre on call",
        threshold: 3,
        statuses: &[7],
        business_hours: false,
        recovery: true,
        attach: true,
    },
    Seed {
        name: "Core banking journeys failing",
        group: "Banking - Core Journeys",
        list: "IVR owners",
        threshold: 5,
        statuses: &[7],
        business_hours: false,
        recovery: true,
        attach: false,
    },
    Seed {
        name: "Claims degraded (business hours)",
        group: "Claims - FNOL",
        list: "IVR owners",
        threshold: 5,
        statuses: &[7, 4],
        business_hours: true,
        recovery: false,
        attach: false,
    },
    Seed {
        name: "Support chat failing",
        group: "Chat - Support",
        list: "Contact centre on call",
        threshold: 3,
        statuses: &[7],
        business_hours: false,
        recovery: true,
        attach: false,
    },
];

fn week(business_hours: bool) -> Week {
    if !business_hours {
        return Week::all();
    }
    let ranges: Vec<SlotRange> = (1..=5)
        .map(|d| SlotRange {
            day_of_week: d,
            start: "07:00".into(),
            end: "19:00".into(),
        })
        .collect();
    Week::from_ranges(&ranges).unwrap_or_else(|_| Week::all())
}

/// Adds the demo's settings when the site has none and runs the engine over the stored
/// history since `from_ms` for them. Returns the events opened. Blocking.
pub fn ensure(store: &Store, tz: Tz, from_ms: i64) -> Result<usize, DemoError> {
    if Store::block_on(store.alert_setting_count())? > 0 {
        return Ok(0);
    }
    let groups = group_ids(store)?;
    let filter = DistributionFilter {
        search: None,
        kind: None,
        sort: Sort {
            field: DistributionSortField::Id,
            descending: false,
        },
    };
    let lists: std::collections::HashMap<String, i64> =
        Store::block_on(store.list_distributions(PageRequest { no: 0, size: 100 }, &filter))?
            .items
            .into_iter()
            .map(|d| (d.name, d.id))
            .collect();
    let mut ids = Vec::new();
    for s in &SEEDS {
        let (Some(&group_id), Some(&distribution_id)) = (groups.get(s.group), lists.get(s.list))
        else {
            continue;
        };
        let id = Store::block_on(store.seed_alert_setting(SeedSetting {
            name: s.name.into(),
            group_id,
            distribution_id,
            email_subject: format!("[cxwatch] {}", s.name),
            voice_message: format!("cxwatch alert. {}.", s.name),
            sms_prefix: "[cxwatch]".into(),
            attach_recording: s.attach,
            failure_to_alert: s.threshold,
            notify_on_recovery: s.recovery,
            statuses: s.statuses.to_vec(),
            week: week(s.business_hours),
        }))?;
        ids.push(id);
    }
    if ids.is_empty() {
        return Ok(0);
    }
    let out = Store::block_on(store.backfill_alerts(tz, ids, from_ms))?;
    Ok(out.opened)
}

//! The demo's alert settings (`alert_settings.rs`), made once, and the engine run over the
//! history already stored so that the Card Services outage of four days ago opened its events
//! and closed them on recovery. Everything goes through the real engine (`store::alerts`); no
//! event is written by hand. The live feed's runs then go through it at ingest like any
//! engine's.

use chrono_tz::Tz;

use super::{alert_settings, DemoError};
use crate::store::Store;

/// The `meta` key set once the demo's settings are added and their history evaluated: a
/// restart adds none again, not even those an administrator deleted since.
const ADDED: &str = "demo_alert_settings";

/// Adds the demo's settings, once, and runs the engine over the stored history since
/// `from_ms` for them. Returns the events opened. Blocking.
///
/// Settings someone made before (while the history loaded, say) do not stop it: the demo's
/// are told apart by name, which also keeps a data directory made before [`ADDED`] from
/// getting them twice.
pub fn ensure(store: &Store, tz: Tz, from_ms: i64) -> Result<usize, DemoError> {
    if Store::block_on(store.meta(ADDED))?.is_some() {
        return Ok(0);
    }
    let ids = alert_settings::ensure(store)?;
    let opened = if ids.is_empty() {
        0
    } else {
        Store::block_on(store.backfill_alerts(tz, ids, from_ms))?.opened
    };
    Store::block_on(store.set_meta(ADDED, "1"))?;
    Ok(opened)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::alert_setting::{
        AlertSettingDraft, AlertSettingFilter, AlertSettingSortField,
    };
    use crate::domain::caller::Scope;
    use crate::domain::page::{PageRequest, Sort};
    use crate::store::catalog::GroupDraft;

    /// The site's settings, oldest first: id and name.
    fn settings(store: &Store) -> Vec<(i64, String)> {
        let filter = AlertSettingFilter {
            search: None,
            sort: Sort {
                field: AlertSettingSortField::Id,
                descending: false,
            },
        };
        let page = PageRequest { no: 0, size: 100 };
        Store::block_on(store.list_alert_settings(Scope::All, page, &filter))
            .unwrap()
            .items
            .into_iter()
            .map(|s| (s.id, s.name))
            .collect()
    }

    #[test]
    fn the_demo_adds_its_settings_once_beside_an_administrator_s() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
        for g in super::super::catalog::catalog().groups {
            Store::block_on(store.create_group(&GroupDraft {
                name: g.name.into(),
                channel: g.channel,
                test_case_ids: Vec::new(),
            }))
            .unwrap();
        }
        let config = crate::config::Config::default();
        Store::block_on(super::super::distributions::ensure(&store, &config)).unwrap();
        let group = Store::block_on(store.list_groups(Scope::All)).unwrap()[0].id;
        let list = Store::block_on(store.contact_groups(Scope::All)).unwrap()[0].0;
        // An administrator's setting, made while the demo's history still loads.
        Store::block_on(store.create_alert_setting(
            Scope::All,
            &AlertSettingDraft {
                name: "Made during the load".into(),
                active: true,
                group_id: group,
                distribution_id: list,
                failure_to_alert: 1,
                statuses: vec!["FAIL".into()],
                week: crate::domain::schedule::Week::all(),
                ..Default::default()
            },
        ))
        .unwrap();
        let tz = config.tz();

        ensure(&store, tz, 0).unwrap();
        let mut first = settings(&store);
        assert!(first.len() > 2, "the demo's settings are added: {first:?}");
        assert_eq!(first[0].1, "Made during the load");

        // Once: a restart adds none, not even one deleted since.
        let (last, _) = first.pop().unwrap();
        Store::block_on(store.delete_alert_setting(Scope::All, last)).unwrap();
        ensure(&store, tz, 0).unwrap();
        assert_eq!(settings(&store), first);
    }
}

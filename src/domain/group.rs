//! What a test case group takes with it when it is deleted. A group that anything uses is
//! not deleted unless the caller asks for the cascade, and then each thing it takes is
//! named and audited on its own.

/// What uses a group, each `(id, name)` by name. Its own test cases are not here: they
/// belong to it and stay in the catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupUses {
    /// Alert settings that watch it: deleted with it.
    pub alert_settings: Vec<(i64, String)>,
    /// The open alerts of those settings: closed when they go (their history stays).
    pub open_alerts: i64,
    /// Reports of it (with their schedules): deleted with it.
    pub reports: Vec<(i64, String)>,
    /// Restricted users it is assigned to: it is taken from their groups.
    pub users: Vec<(i64, String)>,
    /// Maintenance windows not ended that cover it: it is taken from what they cover, and a
    /// window left covering nothing is ended. The name is the window's reason (may be empty).
    pub windows: Vec<(i64, String)>,
}

impl GroupUses {
    pub fn is_empty(&self) -> bool {
        self.alert_settings.is_empty()
            && self.reports.is_empty()
            && self.users.is_empty()
            && self.windows.is_empty()
    }

    /// Why group `id` is not deleted without the cascade, naming what uses it (the 409's
    /// message), if anything does.
    pub fn refusal(&self, id: i64) -> Option<String> {
        let named = |what: &str, v: &[(i64, String)]| {
            let names = v
                .iter()
                .map(|(i, n)| {
                    if n.trim().is_empty() {
                        format!("#{i}")
                    } else {
                        format!("'{n}'")
                    }
                })
                .collect::<Vec<_>>()
                .join(", ");
            format!(
                "{} {what}{} ({names})",
                v.len(),
                if v.len() == 1 { "" } else { "s" }
            )
        };
        let parts: Vec<String> = [
            ("alert setting", &self.alert_settings),
            ("report", &self.reports),
            ("user", &self.users),
            ("maintenance window", &self.windows),
        ]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(what, v)| named(what, v))
        .collect();
        let open = match self.open_alerts {
            0 => String::new(),
            1 => " (closing their 1 open alert)".to_string(),
            n => format!(" (closing their {n} open alerts)"),
        };
        (!parts.is_empty()).then(|| {
            format!(
                "Test case group {id} is used by {}: change them first, or delete with \
                 cascade=true to delete its alert settings{open} and reports and take it \
                 from the users and maintenance windows.",
                parts.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::GroupUses;

    #[test]
    fn a_refusal_names_every_use_and_the_way_out() {
        assert_eq!(GroupUses::default().refusal(2), None);
        assert!(GroupUses::default().is_empty());
        let uses = GroupUses {
            alert_settings: vec![(1, "Cards down".into())],
            open_alerts: 2,
            reports: vec![(3, "Weekly cards".into()), (6, "Lost & Stolen".into())],
            users: vec![],
            windows: vec![(4, " ".into())],
        };
        assert!(!uses.is_empty());
        assert_eq!(
            uses.refusal(2).unwrap(),
            "Test case group 2 is used by 1 alert setting ('Cards down'), 2 reports \
             ('Weekly cards', 'Lost & Stolen'), 1 maintenance window (#4): change them first, \
             or delete with cascade=true to delete its alert settings (closing their 2 open \
             alerts) and reports and take it from the users and maintenance windows."
        );
    }
}

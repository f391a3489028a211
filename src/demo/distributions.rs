//! The demo site's distribution lists (contact groups for alert settings), made once, and
//! what it says when no mail server is configured.

use crate::config::Config;
use crate::domain::distribution::{
    Contact, ContactType, DistributionDraft, DistributionFilter, DistributionSortField,
};
use crate::domain::page::{PageRequest, Sort};
use crate::store::Store;

/// The demo's lists: addresses under example.com, numbers in the 555-01xx fiction range and
/// a Microsoft Teams channel's webhook under example.com (nothing is sent to it unless
/// `[notify.webhook]` is enabled).
pub fn demo_lists() -> Vec<DistributionDraft> {
    let c = |name: &str, kind, info: &str| Contact {
        name: name.into(),
        kind,
        info: info.into(),
    };
    vec![
        DistributionDraft {
            name: "Contact centre on call".into(),
            contacts: vec![
                c(
                    "Operations mailbox",
                    ContactType::Email,
                    "cc-ops@example.com",
                ),
                c("On-call engineer", ContactType::Sms, "+15145550100"),
                c(
                    "On-call engineer (call)",
                    ContactType::Voice,
                    "+15145550100",
                ),
                c(
                    "Operations channel (Teams)",
                    ContactType::Teams,
                    "https://example.webhook.office.com/webhookb2/cxwatch-demo/IncomingWebhook/ops",
                ),
            ],
        },
        DistributionDraft {
            name: "IVR owners".into(),
            contacts: vec![
                c(
                    "Billing IVR owner",
                    ContactType::Email,
                    "billing-ivr@example.com",
                ),
                c(
                    "Retail IVR owner",
                    ContactType::Email,
                    "retail-ivr@example.com",
                ),
            ],
        },
        DistributionDraft {
            name: "Telecom provider escalation".into(),
            contacts: vec![
                c(
                    "Provider NOC",
                    ContactType::Email,
                    "noc@carrier.example.com",
                ),
                c("Provider NOC hotline", ContactType::Voice, "+18005550199"),
            ],
        },
    ]
}

/// Adds the demo lists when there are none, and says plainly when messages are not sent.
pub async fn ensure(store: &Store, config: &Config) -> anyhow::Result<()> {
    let filter = DistributionFilter {
        search: None,
        kind: None,
        sort: Sort {
            field: DistributionSortField::Id,
            descending: false,
        },
    };
    let existing = store
        .list_distributions(PageRequest { no: 0, size: 1 }, &filter)
        .await?;
    if existing.total == 0 {
        for d in demo_lists() {
            store.create_distribution(&d).await?;
        }
    }
    if config.notify.smtp.host.trim().is_empty() {
        println!(
            "demo: no mail server is configured: notifications are recorded but not sent \
             (set [notify.smtp] as config.example.toml shows to send them)."
        );
    }
    Ok(())
}

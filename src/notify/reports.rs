//! Scheduled report mail: the scheduler, a durable job queue
//! (`jobs::Queue`, lease `reports`) over `store::report_schedules`, and the rendering a
//! slot and 'Send now' share.
//!
//! At a slot, the report is rendered for its timeframe computed on the slot's local date
//! (named timeframes: 'Last Week' on a Monday is the week before), against the previous
//! period of the same length: the summary in the body (English or French as the schedule
//! says, `domain::report_mail`), the daily rates as a PNG inside the HTML part, the CSV of
//! the export attached (`domain::report_csv`, neutralised cells), a link to the report. The
//! mail is queued to the list's contacts with the slot's key in the transaction that moves
//! the schedule on (`ReportScheduleStore::deliver_schedule`), and the outbox delivers it:
//! chat and webhook contacts get the summary's text and the link.

pub mod chart;

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::jobs;
use super::Notifier;
use crate::clock::now_ms;
use crate::config::Config;
use crate::domain::caller::Scope;
use crate::domain::csv::CsvWriter;
use crate::domain::notify::{Attachment, Message};
use crate::domain::report::{Report, ReportType};
use crate::domain::report_csv::{csv_line, file_name, ExportRow, CSV_HEADER};
use crate::domain::report_mail::{
    compose, previous_period, short_line, summarize, Origin, CHART_CID,
};
use crate::domain::report_schedule::{next_slot, slot_date, Language, Schedule};
use crate::store::reports::ExportLeaveOut;
use crate::store::{Store, StoreResult};

/// A slot that cannot be rendered is tried again after this long.
const RETRY_MS: i64 = 60_000;
/// How long a slot's lease lasts: longer than rendering a year's report takes.
const LEASE_MS: i64 = 10 * 60_000;

/// All the rows of a report's export for `from..=to`, and how many runs in maintenance
/// windows they leave out.
async fn rows(
    store: &Store,
    tz: chrono_tz::Tz,
    r: &Report,
    from: chrono::NaiveDate,
    to: chrono::NaiveDate,
) -> StoreResult<(Vec<ExportRow>, u64)> {
    // Runs in maintenance windows are left out, as the console's views leave them out.
    let (from_ms, to_ms) = crate::domain::buckets::local_range_ms(tz, from, to);
    let marked = store
        .marked_facts_of_group(r.group_id, from_ms, to_ms, r.run_type.code())
        .await?;
    let leave_out = ExportLeaveOut::new(&marked, tz);
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<ExportRow>>(4);
    let s = store.clone();
    let report = r.clone();
    let task = tokio::spawn(async move { s.export_report(report, from, to, tx).await });
    let mut out = Vec::new();
    while let Some(mut batch) = rx.recv().await {
        leave_out.batch(&mut batch);
        out.extend(batch);
    }
    task.await
        .map_err(|e| crate::store::StoreError::Invalid(format!("export task: {e}")))??;
    Ok((out, marked.len() as u64))
}

/// The console's page of a report (empty without `notify.public_url`).
pub fn report_link(config: &Config, id: i64) -> String {
    let base = config.notify.public_url.trim_end_matches('/');
    if base.is_empty() {
        String::new()
    } else {
        format!("{base}/report/view/{id}")
    }
}

/// The mail of report `r` as it stands on the site's date `today`, in `language`; `origin`
/// says whether it goes out on the schedule or as a copy asked for now.
pub async fn render(
    store: &Store,
    config: &Config,
    r: &Report,
    today: chrono::NaiveDate,
    language: Language,
    origin: &Origin,
) -> StoreResult<Message> {
    let (from, to) = r.range(today);
    let (pfrom, pto) = previous_period(from, to);
    let (csv_rows, maintenance) = rows(store, config.tz(), r, from, to).await?;
    // The summary counts runs of test cases: a segment report's rows are per segment.
    let (now_rows, prev_rows) = if r.report_type == ReportType::SegmentPerformance {
        let mut per_case = r.clone();
        per_case.report_type = ReportType::TestCasePerformance;
        (
            rows(store, config.tz(), &per_case, from, to).await?.0,
            rows(store, config.tz(), &per_case, pfrom, pto).await?.0,
        )
    } else {
        (
            csv_rows.clone(),
            rows(store, config.tz(), r, pfrom, pto).await?.0,
        )
    };
    let mut summary = summarize(from, to, &now_rows, &prev_rows);
    summary.maintenance = maintenance;
    let link = report_link(config, r.id);
    let tz = config.site.timezone.clone();
    let mail = compose(language, r, &summary, &link, &tz, origin);
    let png = chart::chart_png(&summary.days, language)
        .map_err(|e| crate::store::StoreError::Invalid(format!("report {}: {e}", r.id)))?;
    let mut csv = CsvWriter::with_capacity(csv_rows.len() * 120 + 256);
    let zone = config.tz();
    for row in &csv_rows {
        csv_line(&mut csv, zone, row);
    }
    let mut csv_bytes = format!("\u{feff}{CSV_HEADER}").into_bytes();
    csv_bytes.extend(csv.into_bytes());
    let short = short_line(language, r, &summary);
    Ok(Message {
        subject: mail.subject,
        text: mail.text,
        html: Some(mail.html),
        sms_prefix: String::new(),
        sms_text: if link.is_empty() {
            short.clone()
        } else {
            format!("{short} {link}")
        },
        voice_message: short,
        test_case: String::new(),
        status: String::new(),
        link,
        attachments: vec![
            Attachment {
                name: "chart.png".into(),
                content_type: "image/png".into(),
                data: png,
                content_id: Some(CHART_CID.into()),
            },
            Attachment {
                name: file_name(r, from, to),
                content_type: "text/csv".into(),
                data: csv_bytes,
                content_id: None,
            },
        ],
    })
}

/// Starts the scheduler on the current runtime.
pub fn start(store: Store, config: std::sync::Arc<Config>, notifier: Notifier) {
    tokio::spawn(jobs::run(Scheduler {
        store,
        config,
        notifier,
    }));
}

struct Scheduler {
    store: Store,
    config: std::sync::Arc<Config>,
    notifier: Notifier,
}

#[async_trait::async_trait]
impl jobs::Queue for Scheduler {
    type Job = Schedule;
    const LEASE: &'static str = "reports";

    fn store(&self) -> &Store {
        &self.store
    }

    fn poll_ms(&self) -> u64 {
        self.config.notify.poll_ms.max(1000)
    }

    async fn resume(&self) {
        if let Err(e) = self.store.release_schedule_leases().await {
            tracing::error!(error = %e, "report schedules: cannot take back old leases");
        }
    }

    async fn next_due_ms(&self) -> StoreResult<Option<i64>> {
        self.store.next_schedule_due_ms().await
    }

    async fn claim(&self, now_ms: i64) -> StoreResult<Vec<Schedule>> {
        self.store
            .claim_schedules(now_ms, now_ms + LEASE_MS, 8)
            .await
    }

    async fn work(&self, jobs: Vec<Schedule>) {
        for s in jobs {
            self.deliver(s).await;
        }
    }
}

impl Scheduler {
    async fn deliver(&self, s: Schedule) {
        let id = s.report_id;
        let Some(slot_ms) = s.next_ms else { return };
        let tz = self.config.tz();
        let slot = DateTime::<Utc>::from_timestamp_millis(slot_ms).unwrap_or_default();
        let now = DateTime::<Utc>::from_timestamp_millis(now_ms()).unwrap_or_default();
        // The next slot after now: slots missed while cxwatch was down are mailed once.
        let next = next_slot(&s.draft.cadence, tz, now.max(slot)).timestamp_millis();
        let result = async {
            let report = match self.store.report(Scope::All, id).await? {
                crate::domain::caller::Visibility::Visible(r) => r,
                _ => return Ok(None),
            };
            let msg = render(
                &self.store,
                &self.config,
                &report,
                slot_date(tz, now),
                s.draft.language,
                &Origin::Schedule,
            )
            .await?;
            self.store
                .deliver_schedule(id, slot_ms, next, msg)
                .await
                .map(Some)
        }
        .await;
        match result {
            Ok(Some(ids)) => {
                tracing::info!(report = id, slot = %slot, notifications = ids.len(), "scheduled report queued");
                self.notifier.wake();
            }
            Ok(None) => {}
            Err(e) => {
                tracing::error!(report = id, error = %e, "scheduled report not rendered");
                if let Err(e) = self
                    .store
                    .schedule_failed(id, e.to_string(), now_ms() + RETRY_MS)
                    .await
                {
                    tracing::error!(report = id, error = %e, "report schedule: cannot record a failure");
                }
            }
        }
    }
}

/// How long 'Send now' waits for the mail server (the console's requests give up at 30 s).
pub fn send_now_wait(config: &Config) -> Duration {
    Duration::from_secs((config.notify.smtp.timeout_secs * 3 + 2).min(25))
}

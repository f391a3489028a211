//! Query parameters shared by the test-run resources (dates, run types, paging) and how
//! their problems are reported: every problem of a request is named in `messages`.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};

use crate::domain::buckets::parse_date;
use crate::error::ApiError;
use crate::domain::run::RunType;
use crate::store::catalog::Access;

/// Longest date range a query may cover, in days (inclusive of both ends).
pub const MAX_RANGE_DAYS: i64 = 400;
/// Default and largest page size of server-paged lists.
pub const DEFAULT_PAGE_SIZE: u32 = 100;
pub const MAX_PAGE_SIZE: u32 = 1000;

/// Collects the problems of one request.
#[derive(Default)]
pub struct Problems(pub Vec<String>);

impl Problems {
    pub fn push(&mut self, msg: impl Into<String>) {
        self.0.push(msg.into());
    }

    /// `Err(400)` naming every problem, or `Ok` when there is none.
    pub fn check(self) -> Result<(), ApiError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ApiError::bad_request_all(self.0))
        }
    }
}

fn date(name: &str, v: &str, p: &mut Problems) -> Option<NaiveDate> {
    let d = parse_date(v);
    if d.is_none() {
        p.push(format!("{name} {v:?} is not a date (YYYY-MM-DD)."));
    }
    d
}

/// `startDate` (required) and `endDate` (defaults to `startDate`), local dates of the site.
pub fn date_range(
    start: Option<&str>,
    end: Option<&str>,
    p: &mut Problems,
) -> Option<(NaiveDate, NaiveDate)> {
    let from = match start.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => date("startDate", s, p),
        None => {
            p.push("startDate is required (YYYY-MM-DD).");
            None
        }
    };
    let to = match end.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => date("endDate", s, p),
        None => from,
    };
    let (from, to) = (from?, to?);
    if from > to {
        p.push(format!("startDate {from} is after endDate {to}."));
        return None;
    }
    if (to - from).num_days() + 1 > MAX_RANGE_DAYS {
        p.push(format!(
            "The range from {from} to {to} is longer than {MAX_RANGE_DAYS} days."
        ));
        return None;
    }
    Some((from, to))
}

/// `caseRunType`: `Manual` (the default) or `Schedule`.
pub fn run_type(v: Option<&str>, p: &mut Problems) -> Option<RunType> {
    match v.map(str::trim).filter(|s| !s.is_empty()) {
        None => Some(RunType::Manual),
        Some(s) => {
            let t = RunType::parse(s);
            if t.is_none() {
                p.push(format!(
                    "caseRunType {s:?} is not a run type (Manual or Schedule)."
                ));
            }
            t
        }
    }
}

/// `pageNo` (0-based, default 0) and `pageSize` (1 to 1000, default 100).
pub fn paging(page_no: Option<i64>, page_size: Option<i64>, p: &mut Problems) -> (u32, u32) {
    let no = page_no.unwrap_or(0);
    let size = page_size.unwrap_or(i64::from(DEFAULT_PAGE_SIZE));
    if !(0..=i64::from(u32::MAX / MAX_PAGE_SIZE)).contains(&no) {
        p.push(format!("pageNo {no} must be 0 or more."));
    }
    if !(1..=i64::from(MAX_PAGE_SIZE)).contains(&size) {
        p.push(format!(
            "pageSize {size} must be between 1 and {MAX_PAGE_SIZE}."
        ));
    }
    (
        no.max(0) as u32,
        size.clamp(1, i64::from(MAX_PAGE_SIZE)) as u32,
    )
}

/// 404 or 403 for an item the caller may not see.
pub fn require(access: Access, what: &str) -> Result<(), ApiError> {
    match access {
        Access::Granted => Ok(()),
        Access::NotFound => Err(ApiError::not_found(format!("{what} does not exist."))),
        Access::Forbidden => Err(ApiError::forbidden(format!(
            "{what} is not in your test case groups."
        ))),
    }
}

/// API time format: RFC 3339 in UTC with `Z`, milliseconds only when there are any.
pub fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(s: Option<&str>, e: Option<&str>) -> Result<(NaiveDate, NaiveDate), Vec<String>> {
        let mut p = Problems::default();
        let r = date_range(s, e, &mut p);
        match r {
            Some(r) if p.0.is_empty() => Ok(r),
            _ => Err(p.0),
        }
    }

    #[test]
    fn ranges() {
        let d = |s| parse_date(s).unwrap();
        assert_eq!(
            range(Some("2026-03-08"), None),
            Ok((d("2026-03-08"), d("2026-03-08")))
        );
        assert!(range(None, None).unwrap_err()[0].contains("required"));
        assert!(range(Some("2026-03-09"), Some("2026-03-08")).unwrap_err()[0].contains("after"));
        assert!(range(Some("2025-01-01"), Some("2026-03-08")).unwrap_err()[0].contains("400"));
        assert!(range(Some("2025-01-01"), Some("2026-02-04")).is_ok());
        let both = range(Some("x"), Some("2026-13-01")).unwrap_err();
        assert_eq!(both.len(), 2, "{both:?}");
    }

    #[test]
    fn run_types_and_paging() {
        let mut p = Problems::default();
        assert_eq!(run_type(None, &mut p), Some(RunType::Manual));
        assert_eq!(run_type(Some("Schedule"), &mut p), Some(RunType::Schedule));
        assert_eq!(run_type(Some("schedule"), &mut p), None);
        assert_eq!(paging(None, None, &mut p), (0, 100));
        paging(Some(-1), Some(1001), &mut p);
        assert_eq!(p.0.len(), 3, "{:?}", p.0);
    }
}

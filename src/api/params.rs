//! What the test-run resources share: their query parameters (dates, run types, paging,
//! status), parsed once here with every problem tied to its parameter, the answer for an
//! item the caller may not see, and the time format of every answer.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};

use super::envelope::ApiError;
use super::lenient::{DateTimeRule, IsoDate, Text, TextRule};
use crate::domain::buckets::parse_date;
use crate::domain::caller::Visibility;
use crate::domain::page::{PageRequest, Sort};
use crate::domain::rules::{Problems, Rule};
use crate::domain::run::{RunSortField, RunType};

/// Longest date range a query may cover, in days (inclusive of both ends).
pub const MAX_RANGE_DAYS: i64 = 400;
/// Page size of the run lists when none is given, and the largest of any list.
pub const RUN_PAGE_SIZE: u32 = 100;
pub const MAX_PAGE_SIZE: u32 = 1000;
/// Largest page number accepted.
pub const MAX_PAGE_NO: u32 = 1_000_000;

/// The trimmed value of a parameter, `None` when absent or blank.
fn given(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

fn date(field: &str, v: &str, p: &mut Problems) -> Option<NaiveDate> {
    let d = parse_date(v);
    if d.is_none() {
        p.push(
            field,
            Rule::Invalid,
            format!("{field} {v:?} is not a date (YYYY-MM-DD)."),
        );
    }
    d
}

/// `startDate` (required) and `endDate` (defaults to `startDate`), local dates of the site,
/// at most [`MAX_RANGE_DAYS`] days.
pub fn date_range(
    start: Option<&str>,
    end: Option<&str>,
    p: &mut Problems,
) -> Option<(NaiveDate, NaiveDate)> {
    let from = match given(start) {
        Some(s) => date("startDate", s, p),
        None => {
            p.push(
                "startDate",
                Rule::Required,
                "startDate is required (YYYY-MM-DD).",
            );
            None
        }
    };
    let to = match given(end) {
        Some(s) => date("endDate", s, p),
        None => from,
    };
    let (from, to) = (from?, to?);
    if from > to {
        p.push(
            "endDate",
            Rule::Invalid,
            format!("startDate {from} is after endDate {to}."),
        );
        return None;
    }
    if (to - from).num_days() + 1 > MAX_RANGE_DAYS {
        p.push(
            "endDate",
            Rule::Invalid,
            format!("The range from {from} to {to} is longer than {MAX_RANGE_DAYS} days."),
        );
        return None;
    }
    Some((from, to))
}

/// `caseRunType`: `Manual` or `Schedule`; `None` (and no problem) when absent.
pub fn run_type(v: Option<&str>, p: &mut Problems) -> Option<Option<RunType>> {
    match given(v) {
        None => Some(None),
        Some(s) => {
            let t = RunType::parse(s);
            if t.is_none() {
                p.push(
                    "caseRunType",
                    Rule::Invalid,
                    format!("caseRunType {s:?} is not a run type (Manual or Schedule)."),
                );
            }
            t.map(Some)
        }
    }
}

/// `pageNo` (0 to [`MAX_PAGE_NO`], default 0) and `pageSize` (1 to [`MAX_PAGE_SIZE`],
/// default `default_size`, the list's own).
pub fn paging(
    page_no: Option<i64>,
    page_size: Option<i64>,
    default_size: u32,
    p: &mut Problems,
) -> Option<PageRequest> {
    let no = page_no.unwrap_or(0);
    let size = page_size.unwrap_or(i64::from(default_size));
    let no_ok = (0..=i64::from(MAX_PAGE_NO)).contains(&no);
    let size_ok = (1..=i64::from(MAX_PAGE_SIZE)).contains(&size);
    if !no_ok {
        p.push(
            "pageNo",
            Rule::Invalid,
            format!("pageNo {no} must be between 0 and {MAX_PAGE_NO}."),
        );
    }
    if !size_ok {
        p.push(
            "pageSize",
            Rule::Invalid,
            format!("pageSize {size} must be between 1 and {MAX_PAGE_SIZE}."),
        );
    }
    (no_ok && size_ok).then_some(PageRequest {
        no: no as u32,
        size: size as u32,
    })
}

/// Most items a list asked for without paging parameters answers (more are named in the
/// answer's `messages`).
pub const MAX_UNPAGED: u32 = 10_000;

/// How a list was asked for: `paged` when `pageNo` or `pageSize` was given (one page, the
/// list's own default size when only `pageNo` is), else the whole list as the spec's array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListRequest {
    /// What to read from the store: the page, or the first [`MAX_UNPAGED`] items.
    pub page: PageRequest,
    pub paged: bool,
}

/// [`paging`] for a list the spec answers as an array: without `pageNo` and `pageSize`,
/// every item (see [`ListRequest`]).
pub fn listing(
    page_no: Option<i64>,
    page_size: Option<i64>,
    default_size: u32,
    p: &mut Problems,
) -> Option<ListRequest> {
    if page_no.is_none() && page_size.is_none() {
        return Some(ListRequest {
            page: PageRequest {
                no: 0,
                size: MAX_UNPAGED,
            },
            paged: false,
        });
    }
    paging(page_no, page_size, default_size, p).map(|page| ListRequest { page, paged: true })
}

/// `sort=field,direction` (direction `asc` or `desc`, default `asc`), the field named by
/// `parse`; `default` when absent.
pub fn sort<F: Copy>(
    value: Option<&str>,
    parse: impl Fn(&str) -> Option<F>,
    default: Sort<F>,
    p: &mut Problems,
) -> Sort<F> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return default;
    };
    let (field, dir) = v.split_once(',').unwrap_or((v, "asc"));
    let descending = match dir.trim().to_ascii_lowercase().as_str() {
        "asc" => false,
        "desc" => true,
        other => {
            p.push(
                "sort",
                Rule::Invalid,
                format!("sort direction {other:?} is not asc or desc."),
            );
            return default;
        }
    };
    match parse(field.trim()) {
        Some(field) => Sort { field, descending },
        None => {
            p.push(
                "sort",
                Rule::Invalid,
                format!(
                    "sort field {:?} is not one of this list's columns.",
                    field.trim()
                ),
            );
            default
        }
    }
}

/// `sort=field,direction` on a list of runs, by the run table's columns (`runId`,
/// `testCaseName`, `runTime`, `runDuration`, `runStatus`, `mosCqIn`); `None` when absent
/// (newest first).
pub fn run_sort(value: Option<&str>, p: &mut Problems) -> Option<Sort<RunSortField>> {
    value.map(str::trim).filter(|v| !v.is_empty())?;
    let newest = Sort {
        field: RunSortField::RunTime,
        descending: true,
    };
    Some(sort(value, RunSortField::parse, newest, p))
}

/// `hrSlot`: a local hour slot 0 to 23, `None` when absent.
pub fn hour_slot(v: Option<i64>, p: &mut Problems) -> Option<Option<u32>> {
    match v {
        None => Some(None),
        Some(h @ 0..=23) => Some(Some(h as u32)),
        Some(h) => {
            p.push(
                "hrSlot",
                Rule::Invalid,
                format!("hrSlot {h} must be an hour between 0 and 23."),
            );
            None
        }
    }
}

/// `status` of the run list: the drill statuses of the spec plus the engine's, as stored
/// status codes `lo..=hi` (0 pass, 1 warn, 2 fail, 3 stopped).
pub fn status_range(v: Option<&str>, p: &mut Problems) -> Option<(u8, u8)> {
    let Some(s) = given(v) else {
        return Some((0, 3));
    };
    let range = match s.to_ascii_lowercase().as_str() {
        "total" | "all" => (0, 3),
        "success" | "pass" => (0, 0),
        "warning" | "warn" => (1, 1),
        "failure" | "fail" => (2, 3),
        "stopped" => (3, 3),
        _ => {
            p.push(
                "status",
                Rule::Invalid,
                format!(
                    "status {s:?} is not a status (success, warning, failure, stopped or total)."
                ),
            );
            return None;
        }
    };
    Some(range)
}

/// The item when the caller may see it; 404 '`what` does not exist.' or 403 '`what` is not
/// in your test case groups.' otherwise.
pub fn visible<T>(v: Visibility<T>, what: impl std::fmt::Display) -> Result<T, ApiError> {
    match v {
        Visibility::Visible(t) => Ok(t),
        Visibility::Missing => Err(ApiError::not_found(format!("{what} does not exist."))),
        Visibility::Hidden => Err(ApiError::forbidden(format!(
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
            Some(r) if p.is_empty() => Ok(r),
            _ => Err(p.0.into_iter().map(|e| e.message).collect()),
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
        assert_eq!(run_type(None, &mut p), Some(None));
        assert_eq!(
            run_type(Some("Schedule"), &mut p),
            Some(Some(RunType::Schedule))
        );
        assert!(p.is_empty());
        assert_eq!(run_type(Some("schedule"), &mut p), None);
        assert_eq!(
            paging(None, None, 100, &mut p),
            Some(PageRequest { no: 0, size: 100 })
        );
        assert_eq!(
            paging(Some(1_000_000), Some(1000), 100, &mut p),
            Some(PageRequest {
                no: 1_000_000,
                size: 1000
            })
        );
        assert_eq!(paging(Some(-1), Some(1001), 100, &mut p), None);
        assert_eq!(paging(Some(1_000_001), Some(0), 100, &mut p), None);
        let fields: Vec<_> = p.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            ["caseRunType", "pageNo", "pageSize", "pageNo", "pageSize"]
        );
        assert!(
            p.0[1].message.contains("between 0 and 1000000"),
            "{:?}",
            p.0
        );
    }

    #[test]
    fn lists_without_paging_parameters_are_whole() {
        let mut p = Problems::default();
        let all = listing(None, None, 10, &mut p).unwrap();
        assert!(!all.paged);
        assert_eq!(
            all.page,
            PageRequest {
                no: 0,
                size: MAX_UNPAGED
            }
        );
        let page = listing(Some(2), None, 10, &mut p).unwrap();
        assert!(page.paged);
        assert_eq!(page.page, PageRequest { no: 2, size: 10 });
        let page = listing(None, Some(50), 10, &mut p).unwrap();
        assert_eq!(
            (page.paged, page.page),
            (true, PageRequest { no: 0, size: 50 })
        );
        assert!(p.is_empty());
        assert_eq!(listing(None, Some(0), 10, &mut p), None);
        assert_eq!(p.0[0].field, "pageSize");
    }

    #[test]
    fn statuses() {
        let mut p = Problems::default();
        assert_eq!(status_range(None, &mut p), Some((0, 3)));
        assert_eq!(status_range(Some("Failure"), &mut p), Some((2, 3)));
        assert_eq!(status_range(Some("great"), &mut p), None);
        assert_eq!(p.0.len(), 1);
        assert_eq!(p.0[0].field, "status");
    }

    #[test]
    fn sort_parses_field_and_direction() {
        let parse = |s: &str| (s == "name").then_some(1);
        let d = Sort {
            field: 0,
            descending: true,
        };
        let mut p = Problems::default();
        assert_eq!(
            sort(Some("name,desc"), parse, d, &mut p),
            Sort {
                field: 1,
                descending: true
            }
        );
        assert_eq!(
            sort(Some("name"), parse, d, &mut p),
            Sort {
                field: 1,
                descending: false
            }
        );
        assert_eq!(sort(None, parse, d, &mut p), d);
        assert!(p.is_empty());
        sort(Some("nope,asc"), parse, d, &mut p);
        sort(Some("name,up"), parse, d, &mut p);
        assert_eq!(p.0.len(), 2);
    }
}

/// An integer query parameter whose document states its range (`minimum`, `maximum`), so
/// that a client (or a fuzzer) knows what is accepted. Any integer parses: the handler
/// checks the range itself and names the parameter and the range in its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranged<const MIN: i64, const MAX: i64>(pub i64);

impl<const MIN: i64, const MAX: i64> poem_openapi::types::Type for Ranged<MIN, MAX> {
    const IS_REQUIRED: bool = true;
    type RawValueType = i64;
    type RawElementValueType = i64;

    fn name() -> std::borrow::Cow<'static, str> {
        format!("integer({MIN}..={MAX})").into()
    }

    fn schema_ref() -> poem_openapi::registry::MetaSchemaRef {
        poem_openapi::registry::MetaSchemaRef::Inline(Box::new(
            poem_openapi::registry::MetaSchema {
                format: Some("int64"),
                minimum: Some(MIN as f64),
                maximum: Some(MAX as f64),
                ..poem_openapi::registry::MetaSchema::new("integer")
            },
        ))
    }

    fn as_raw_value(&self) -> Option<&i64> {
        Some(&self.0)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl<const MIN: i64, const MAX: i64> poem_openapi::types::ParseFromParameter for Ranged<MIN, MAX> {
    fn parse_from_parameter(value: &str) -> poem_openapi::types::ParseResult<Self> {
        <i64 as poem_openapi::types::ParseFromParameter>::parse_from_parameter(value)
            .map(Ranged)
            .map_err(poem_openapi::types::ParseError::propagate)
    }
}

/// In a body too: any integer parses (a JSON string or boolean is refused), the handler
/// checks the range.
impl<const MIN: i64, const MAX: i64> poem_openapi::types::ParseFromJSON for Ranged<MIN, MAX> {
    fn parse_from_json(value: Option<serde_json::Value>) -> poem_openapi::types::ParseResult<Self> {
        <i64 as poem_openapi::types::ParseFromJSON>::parse_from_json(value)
            .map(Ranged)
            .map_err(poem_openapi::types::ParseError::propagate)
    }
}

impl<const MIN: i64, const MAX: i64> poem_openapi::types::ToJSON for Ranged<MIN, MAX> {
    fn to_json(&self) -> Option<serde_json::Value> {
        Some(serde_json::Value::from(self.0))
    }
}

/// The id of something a body refers to: 1 or more. The document's upper bound is the
/// largest integer a JSON number holds exactly in JavaScript (the console's): no id gets
/// near it, and `i64::MAX` written as a JSON number would round above what an id may be.
pub type Id = Ranged<1, { (1 << 53) - 1 }>;

/// `pageNo`: 0 to [`MAX_PAGE_NO`].
pub type PageNo = Ranged<0, { MAX_PAGE_NO as i64 }>;
/// `pageSize`: 1 to [`MAX_PAGE_SIZE`].
pub type PageSize = Ranged<1, { MAX_PAGE_SIZE as i64 }>;
/// `hrSlot`: a local hour, 0 to 23.
pub type HourSlot = Ranged<0, 23>;

/// The values of optional ranged parameters.
pub fn value<const MIN: i64, const MAX: i64>(p: Option<Ranged<MIN, MAX>>) -> Option<i64> {
    p.map(|r| r.0)
}

/// A number parameter whose document states its range, like [`Ranged`]: any number parses,
/// the handler checks the range and names the parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Between<const MIN: i64, const MAX: i64>(pub f64);

impl<const MIN: i64, const MAX: i64> poem_openapi::types::Type for Between<MIN, MAX> {
    const IS_REQUIRED: bool = true;
    type RawValueType = f64;
    type RawElementValueType = f64;

    fn name() -> std::borrow::Cow<'static, str> {
        format!("number({MIN}..={MAX})").into()
    }

    fn schema_ref() -> poem_openapi::registry::MetaSchemaRef {
        poem_openapi::registry::MetaSchemaRef::Inline(Box::new(
            poem_openapi::registry::MetaSchema {
                format: Some("double"),
                minimum: Some(MIN as f64),
                maximum: Some(MAX as f64),
                ..poem_openapi::registry::MetaSchema::new("number")
            },
        ))
    }

    fn as_raw_value(&self) -> Option<&f64> {
        Some(&self.0)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl<const MIN: i64, const MAX: i64> poem_openapi::types::ParseFromParameter for Between<MIN, MAX> {
    fn parse_from_parameter(value: &str) -> poem_openapi::types::ParseResult<Self> {
        <f64 as poem_openapi::types::ParseFromParameter>::parse_from_parameter(value)
            .map(Between)
            .map_err(poem_openapi::types::ParseError::propagate)
    }
}

/// The value of an optional number parameter.
pub fn number<const MIN: i64, const MAX: i64>(p: Option<Between<MIN, MAX>>) -> Option<f64> {
    p.map(|b| b.0)
}

/// A date parameter, `YYYY-MM-DD` (the handler parses it and names a bad one).
pub type Date = Text<IsoDate>;
/// An instant parameter, RFC 3339.
pub type Instant = Text<DateTimeRule>;

/// Declares the [`TextRule`] of a list's `sort` parameter: `field` or `field,direction`, the
/// field one of the list's columns (as [`sort`] reads them).
macro_rules! sort_rule {
    ($(#[$doc:meta])* $name:ident, $fields:literal) => {
        $(#[$doc])*
        pub struct $name;

        impl TextRule for $name {
            const NAME: &'static str = concat!("string(", stringify!($name), ")");
            const PATTERN: Option<&'static str> =
                Some(concat!("^(", $fields, ")(,(asc|desc))?$"));
        }
    };
}

sort_rule!(
    /// Runs (see [`RunSortField::parse`]).
    RunSort,
    "runId|testCaseName|runTime|runDuration|runStatus|runStatusId|mosCqIn|latency"
);
sort_rule!(
    /// Reports.
    ReportSort,
    "id|name|reportTypeName|reportTypeID|testCaseGroupName|timeframeName|lastModifiedTime"
);
sort_rule!(
    /// Alert settings.
    AlertSettingSort,
    "id|name|testCaseGroupName|distributionName|active"
);
sort_rule!(
    /// Distribution lists.
    DistributionSort,
    "id|name|lastModifiedTime"
);
sort_rule!(
    /// Users.
    UserSort,
    "id|firstName|lastName|username|lastSignInTime"
);

/// `status` of the run lists and `perfStatus` of a report's runs (see [`status_range`]).
pub struct RunStatusRule;

impl TextRule for RunStatusRule {
    const NAME: &'static str = "string(run status)";
    const PATTERN: Option<&'static str> =
        Some("^(total|all|success|pass|warning|warn|failure|fail|stopped)$");
}

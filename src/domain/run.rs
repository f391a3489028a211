//! The words of a test run every layer shares: its channel, its type and its status.

use serde::{Deserialize, Serialize};

/// A run's result: `pass`, `warn`, `fail` or `stopped`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, poem_openapi::Enum)]
#[serde(rename_all = "lowercase")]
#[oai(rename_all = "lowercase")]
pub enum RunStatus {
    Pass,
    Warn,
    Fail,
    Stopped,
}

/// How a run was started: `Manual` or `Schedule`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, poem_openapi::Enum)]
pub enum RunType {
    Manual,
    Schedule,
}

/// A channel's id: `voice` (shown Voice) or `web` (shown Digital).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, poem_openapi::Enum)]
#[serde(rename_all = "lowercase")]
#[oai(rename_all = "lowercase")]
pub enum Channel {
    /// Shown 'Voice'.
    Voice,
    /// Shown 'Digital'.
    Web,
}

impl Channel {
    pub const ALL: [Channel; 2] = [Channel::Voice, Channel::Web];

    /// The id used in the API and the database: `voice` or `web`.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Voice => "voice",
            Channel::Web => "web",
        }
    }

    /// How the console shows it: 'Voice' or 'Digital'.
    pub fn label(self) -> &'static str {
        match self {
            Channel::Voice => "Voice",
            Channel::Web => "Digital",
        }
    }

    pub fn parse(s: &str) -> Option<Channel> {
        match s {
            "voice" => Some(Channel::Voice),
            "web" => Some(Channel::Web),
            _ => None,
        }
    }
}

impl RunStatus {
    pub const ALL: [RunStatus; 4] = [
        RunStatus::Pass,
        RunStatus::Warn,
        RunStatus::Fail,
        RunStatus::Stopped,
    ];

    /// Stored code: 0 pass, 1 warn, 2 fail, 3 stopped (higher is worse).
    pub fn code(self) -> u8 {
        match self {
            RunStatus::Pass => 0,
            RunStatus::Warn => 1,
            RunStatus::Fail => 2,
            RunStatus::Stopped => 3,
        }
    }

    pub fn from_code(code: u8) -> Option<RunStatus> {
        RunStatus::ALL.get(usize::from(code)).copied()
    }

    /// The alert-status id of spec §9: pass 3, warning 4, failure 7 (fail and stopped).
    pub fn status_id(self) -> i64 {
        match self {
            RunStatus::Pass => 3,
            RunStatus::Warn => 4,
            RunStatus::Fail | RunStatus::Stopped => 7,
        }
    }

    /// The ingest spelling: `pass`, `warn`, `fail`, `stopped`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Pass => "pass",
            RunStatus::Warn => "warn",
            RunStatus::Fail => "fail",
            RunStatus::Stopped => "stopped",
        }
    }
}

impl RunType {
    pub const ALL: [RunType; 2] = [RunType::Manual, RunType::Schedule];

    /// Stored code: 0 Manual, 1 Schedule.
    pub fn code(self) -> u8 {
        match self {
            RunType::Manual => 0,
            RunType::Schedule => 1,
        }
    }

    pub fn from_code(code: u8) -> Option<RunType> {
        RunType::ALL.get(usize::from(code)).copied()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RunType::Manual => "Manual",
            RunType::Schedule => "Schedule",
        }
    }

    pub fn parse(s: &str) -> Option<RunType> {
        match s {
            "Manual" => Some(RunType::Manual),
            "Schedule" => Some(RunType::Schedule),
            _ => None,
        }
    }
}

/// Columns a list of runs sorts by (the run table's columns, by their API names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunSortField {
    RunId,
    TestCaseName,
    RunTime,
    RunDuration,
    RunStatus,
    Mos,
    /// The slowest step's latency: sorted in memory by the report's run list (the latency
    /// is in the stored step results, not a column); newest first in SQL.
    Latency,
}

impl RunSortField {
    pub fn parse(s: &str) -> Option<RunSortField> {
        Some(match s {
            "runId" => RunSortField::RunId,
            "testCaseName" => RunSortField::TestCaseName,
            "runTime" => RunSortField::RunTime,
            "runDuration" => RunSortField::RunDuration,
            "runStatus" | "runStatusId" => RunSortField::RunStatus,
            "mosCqIn" => RunSortField::Mos,
            "latency" => RunSortField::Latency,
            _ => return None,
        })
    }

    /// The `ORDER BY` list of a sort on `test_runs` (columns prefixed with `runs`, e.g. `r.`;
    /// `name` the test case's name as the backend orders it without case: `sql::Exec::nocase`),
    /// the same order on both backends: a run without a MOS last whichever the direction,
    /// ties newest first.
    pub fn order_by(
        sort: crate::domain::page::Sort<RunSortField>,
        runs: &str,
        name: &str,
    ) -> String {
        let dir = if sort.descending { "DESC" } else { "ASC" };
        let key = match sort.field {
            RunSortField::RunId => return format!("{runs}id {dir}"),
            RunSortField::TestCaseName => format!("{name} {dir}"),
            RunSortField::RunTime => return format!("{runs}run_time {dir}, {runs}id {dir}"),
            RunSortField::Latency => return format!("{runs}run_time DESC, {runs}id DESC"),
            RunSortField::RunDuration => format!("{runs}duration_ms {dir}"),
            RunSortField::RunStatus => format!("{runs}status {dir}"),
            RunSortField::Mos => format!("{runs}mos IS NULL, {runs}mos {dir}"),
        };
        format!("{key}, {runs}run_time DESC, {runs}id DESC")
    }
}

#[cfg(test)]
mod sort_tests {
    use super::RunSortField;
    use crate::domain::page::Sort;

    #[test]
    fn run_sort_fields_and_their_order() {
        assert_eq!(RunSortField::parse("mosCqIn"), Some(RunSortField::Mos));
        assert_eq!(
            RunSortField::parse("runStatus"),
            Some(RunSortField::RunStatus)
        );
        assert_eq!(RunSortField::parse("latency"), Some(RunSortField::Latency));
        assert_eq!(RunSortField::parse("nope"), None);
        let mos = Sort {
            field: RunSortField::Mos,
            descending: false,
        };
        assert_eq!(
            RunSortField::order_by(mos, "r.", "tc.name"),
            "r.mos IS NULL, r.mos ASC, r.run_time DESC, r.id DESC"
        );
        let name = Sort {
            field: RunSortField::TestCaseName,
            descending: true,
        };
        assert_eq!(
            RunSortField::order_by(name, "", "tc.name COLLATE NOCASE"),
            "tc.name COLLATE NOCASE DESC, run_time DESC, id DESC"
        );
    }
}

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

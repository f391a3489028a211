//! The demo's test runs, derived from a seed: every run is a pure function of (seed, test
//! case, slot), so the history and the live feed give the same runs for the same times,
//! and a restart continues where the last run left off.
//!
//! Cadence: a Schedule run of every test case every 15 minutes, Manual runs clustered in
//! the business hours of the site's time zone (more on working days), and re-tests while
//! an incident is on. Incidents are placed relative to the anchor (the moment the demo
//! data was first generated, to the minute), in site-local time.

use std::collections::HashMap;

use chrono::{DateTime, Datelike, Duration, NaiveTime, TimeZone, Timelike, Utc, Weekday};
use chrono_tz::Tz;

use super::audio::ClipId;
use super::catalog::{self, App, CaseDef, Catalog, StepDef, StepKind};
use super::rng::Rng;
use crate::domain::ingest::{
    ClientAppHealth, ComponentPresence, ComponentState, IngestIvr, IngestRun, IngestSegment,
    IngestStep, IngestTestCase, IngestTestResult,
};
use crate::domain::run::{Channel, RunStatus, RunType};

/// Seconds between two Schedule runs of a test case.
pub const SCHEDULE_SECS: i64 = 15 * 60;
/// No run lasts longer than this (seconds); used to find runs that end in a window.
pub const MAX_RUN_SECS: i64 = 600;
/// Days of history generated on first start.
pub const HISTORY_DAYS: i64 = 30;
/// Re-tests while an incident is on: one chance per case per this many seconds.
const RETEST_SECS: i64 = 20 * 60;

const TAG_SCHEDULE: u64 = 1;
const TAG_MANUAL: u64 = 2;
const TAG_RETEST: u64 = 3;
const TAG_START: u64 = 4;

pub const TRS_PASS: &str = "TRS_PASS";
pub const TRS_FAIL: &str = "TRS_FAIL";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncidentKind {
    /// The IVR does not answer or plays nothing: every run fails on a time-out.
    Outage,
    /// Latencies several times normal: warnings, some time-outs.
    LatencySpike,
    /// Poor call quality: MOS 2.x, low recognition confidence, failures.
    BadAudio,
    /// The chatbot's language understanding is down: intents fall back.
    NluDown,
    /// A back-end database is failing: claim registration fails (on at start-up).
    ClaimsDbDown,
}

#[derive(Debug, Clone)]
pub struct Incident {
    pub kind: IncidentKind,
    pub app_id: i64,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub description: String,
}

impl Incident {
    fn covers(&self, t: DateTime<Utc>) -> bool {
        self.from <= t && t < self.to
    }
    /// Testers re-run the affected cases by hand while it lasts.
    fn retested(&self) -> bool {
        matches!(
            self.kind,
            IncidentKind::Outage | IncidentKind::ClaimsDbDown | IncidentKind::NluDown
        )
    }
}

/// A run decided but not yet built.
#[derive(Debug, Clone, Copy)]
struct Planned {
    case: usize,
    run_type: RunType,
    tag: u64,
    index: i64,
    start: DateTime<Utc>,
}

/// Produces the demo's runs and health for a seed, time zone and anchor.
pub struct Generator {
    seed: u64,
    tz: Tz,
    anchor: DateTime<Utc>,
    catalog: Catalog,
    incidents: Vec<Incident>,
    recordings: HashMap<ClipId, String>,
    history_days: i64,
}

impl Generator {
    /// `anchor` is truncated to the minute. `recordings` maps clips to stored recording ids
    /// (a clip without an id is left out of the runs).
    pub fn new(
        seed: u64,
        tz: Tz,
        anchor: DateTime<Utc>,
        recordings: HashMap<ClipId, String>,
    ) -> Generator {
        let anchor = truncate(anchor, 60);
        let incidents = incidents(tz, anchor);
        Generator {
            seed,
            tz,
            anchor,
            catalog: catalog::catalog(),
            incidents,
            history_days: HISTORY_DAYS,
            recordings,
        }
    }

    pub fn anchor(&self) -> DateTime<Utc> {
        self.anchor
    }
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }
    pub fn incidents(&self) -> &[Incident] {
        &self.incidents
    }
    /// A shorter history than [`HISTORY_DAYS`] (`serve --demo --demo-days`), 1 day at least.
    pub fn with_history_days(mut self, days: i64) -> Generator {
        self.history_days = days.clamp(1, HISTORY_DAYS);
        self
    }
    /// Days of history before the anchor ([`HISTORY_DAYS`] unless shortened).
    pub fn history_days(&self) -> i64 {
        self.history_days
    }
    /// Start of the history: [`Generator::history_days`] before the anchor.
    pub fn history_start(&self) -> DateTime<Utc> {
        self.anchor - Duration::days(self.history_days)
    }

    /// Every run that ends in `(from, to]`, by start time.
    pub fn runs_ending_in(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<IngestRun> {
        let mut out: Vec<IngestRun> = self
            .plan(from - Duration::seconds(MAX_RUN_SECS), to, None)
            .into_iter()
            .map(|p| self.build(&p))
            .filter(|r| {
                let end = run_end(r);
                from < end && end <= to
            })
            .collect();
        out.sort_by(|a, b| {
            a.run_time
                .cmp(&b.run_time)
                .then(a.engine_run_id.cmp(&b.engine_run_id))
        });
        out
    }

    /// Runs starting in `(from, to]` (of one application if given), unordered.
    fn plan(&self, from: DateTime<Utc>, to: DateTime<Utc>, app: Option<usize>) -> Vec<Planned> {
        let mut out = Vec::new();
        let (f, t) = (from.timestamp(), to.timestamp());
        for (ci, case) in self.catalog.cases.iter().enumerate() {
            if app.is_some_and(|a| a != case.app) {
                continue;
            }
            let cid = case.id as u64;
            // Schedule: every 15 minutes, each case at its own offset in the slot.
            let offset = (ci as i64 * 22) % (SCHEDULE_SECS - 60);
            for slot in f.div_euclid(SCHEDULE_SECS) - 1..=t.div_euclid(SCHEDULE_SECS) {
                let jitter = Rng::keyed(&[self.seed, cid, TAG_START, slot as u64]).int(0, 15);
                let start = slot * SCHEDULE_SECS + offset + jitter;
                if f < start && start <= t {
                    out.push(Planned {
                        case: ci,
                        run_type: RunType::Schedule,
                        tag: TAG_SCHEDULE,
                        index: slot,
                        start: secs(start),
                    });
                }
            }
            // Manual: a rate per local hour.
            for hour in f.div_euclid(3600)..=t.div_euclid(3600) {
                let local = secs(hour * 3600).with_timezone(&self.tz);
                let rate = manual_rate(local.weekday(), local.hour());
                let mut rng = Rng::keyed(&[self.seed, cid, TAG_MANUAL, hour as u64]);
                let n = rate.floor() as i64 + i64::from(rng.chance(rate.fract()));
                for k in 0..n {
                    let start = hour * 3600 + rng.int(0, 3599);
                    if f < start && start <= t {
                        out.push(Planned {
                            case: ci,
                            run_type: RunType::Manual,
                            tag: TAG_MANUAL,
                            index: hour * 16 + k,
                            start: secs(start),
                        });
                    }
                }
            }
            // Re-tests by hand while an incident hits the case's application.
            let app_id = self.catalog.apps[case.app].id;
            for inc in self
                .incidents
                .iter()
                .filter(|i| i.app_id == app_id && i.retested())
            {
                let (a, b) = (inc.from.timestamp().max(f), inc.to.timestamp().min(t));
                if a > b {
                    continue;
                }
                for w in a.div_euclid(RETEST_SECS)..=b.div_euclid(RETEST_SECS) {
                    let mut rng = Rng::keyed(&[self.seed, cid, TAG_RETEST, w as u64]);
                    if !rng.chance(0.35) {
                        continue;
                    }
                    let start = w * RETEST_SECS + rng.int(0, RETEST_SECS - 1);
                    if f < start && start <= t && inc.covers(secs(start)) {
                        out.push(Planned {
                            case: ci,
                            run_type: RunType::Manual,
                            tag: TAG_RETEST,
                            index: w,
                            start: secs(start),
                        });
                    }
                }
            }
        }
        out
    }

    fn active(&self, app_id: i64, t: DateTime<Utc>, kind: IncidentKind) -> Option<&Incident> {
        self.incidents
            .iter()
            .find(|i| i.app_id == app_id && i.kind == kind && i.covers(t))
    }

    fn clip(&self, clip: ClipId) -> Option<String> {
        self.recordings.get(&clip).cloned()
    }

    /// Builds one run: its steps, results, times and status.
    fn build(&self, p: &Planned) -> IngestRun {
        let case = &self.catalog.cases[p.case];
        let app = &self.catalog.apps[case.app];
        let mut rng = Rng::keyed(&[self.seed, case.id as u64, p.tag, p.index as u64]);
        let engine_run_id = uuid_like(&mut rng);
        let local = p.start.with_timezone(&self.tz);
        let ctx = RunContext {
            outage: self.active(app.id, p.start, IncidentKind::Outage).is_some(),
            latency_factor: self
                .active(app.id, p.start, IncidentKind::LatencySpike)
                .map(|i| spike_factor(i, p.start, &mut rng))
                .unwrap_or(1.0),
            bad_audio: self
                .active(app.id, p.start, IncidentKind::BadAudio)
                .is_some(),
            nlu_down: self
                .active(app.id, p.start, IncidentKind::NluDown)
                .is_some(),
            claims_db_down: self
                .active(app.id, p.start, IncidentKind::ClaimsDbDown)
                .is_some(),
            load: load_factor(local.weekday(), local.hour()),
            no_answer: rng.chance(0.4),
        };
        let stop_chance = match p.run_type {
            RunType::Schedule => 0.003,
            RunType::Manual => 0.015,
        };
        let step_count: usize = case.segments.iter().map(|s| s.steps.len()).sum();
        let stop_at = rng
            .chance(stop_chance)
            .then(|| rng.int(1, step_count as i64 - 1) as usize);

        let mut t = p.start;
        let mut n = 0usize;
        let mut done = false;
        let mut connected = true;
        let mut segments = Vec::with_capacity(case.segments.len());
        for seg in &case.segments {
            if done {
                break;
            }
            let mut steps = Vec::with_capacity(seg.steps.len());
            for def in &seg.steps {
                let stopped = stop_at == Some(n);
                let step = self.build_step(def, &seg.name, app, &ctx, t, stopped, &mut rng);
                n += 1;
                t = step.test_result.end_time.unwrap_or(t);
                if def.kind == StepKind::CallConnect && step.test_result.status == RunStatus::Fail {
                    connected = false;
                }
                let status = step.test_result.status;
                steps.push(step);
                if matches!(status, RunStatus::Fail | RunStatus::Stopped) {
                    done = true;
                    break;
                }
            }
            segments.push(IngestSegment {
                segment_id: seg.id,
                segment_name: seg.name.clone(),
                steps,
            });
        }
        let statuses = segments
            .iter()
            .flat_map(|s| s.steps.iter().map(|st| st.test_result.status));
        let status = worst(statuses);
        let end = t + Duration::milliseconds(rng.int(150, 400));
        let voice = app.channel == Channel::Voice;
        let mos = (voice && connected).then(|| {
            let m = if ctx.bad_audio {
                rng.range(2.0, 2.95)
            } else {
                (4.18 + 0.14 * rng.normal()).clamp(3.8, 4.5)
            };
            (m * 100.0).round() / 100.0
        });
        let recording_id = if !voice {
            None
        } else if ctx.outage {
            self.clip(ClipId::RingBack)
        } else if ctx.bad_audio {
            self.clip(ClipId::CallBadAudio)
        } else {
            self.clip(ClipId::CallGood)
        };
        IngestRun {
            engine_run_id,
            test_case: ingest_case(case, app),
            run_time: p.start,
            run_duration: (end - p.start).num_milliseconds() as f64 / 1000.0,
            status,
            run_type: p.run_type,
            mos_cq_in: mos,
            recording_id,
            segments,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn build_step(
        &self,
        def: &StepDef,
        segment: &str,
        app: &App,
        ctx: &RunContext,
        t: DateTime<Utc>,
        stopped: bool,
        rng: &mut Rng,
    ) -> IngestStep {
        let timing = def.kind.timing();
        let voice = app.channel == Channel::Voice;
        let start = t + Duration::milliseconds(rng.int(150, 600));
        let (lo, hi) = timing.normal;
        let mut latency = lo as f64 + (hi - lo) as f64 * rng.unit().powf(1.3);
        latency *= ctx.load;
        if rng.chance(0.006) {
            // The occasional slow answer: above the maximum, a warning.
            latency = timing.latency_max as f64 * rng.range(1.05, 1.9);
        }
        latency *= ctx.latency_factor;
        let latency = latency.round() as i64;

        let mut outcome = if latency > timing.incomplete_timeout {
            Outcome::Timeout
        } else {
            Outcome::Heard
        };
        // An outage: the call is not answered, or answered with silence.
        let no_answer = ctx.no_answer && def.kind == StepKind::CallConnect;
        if ctx.outage && (no_answer || segment == "Greeting") {
            outcome = Outcome::Timeout;
        }
        let mut confidence = if voice { rng.range(0.8, 0.97) } else { 1.0 };
        if ctx.bad_audio && def.kind != StepKind::CallConnect {
            confidence = rng.range(0.3, 0.75);
            if confidence < 0.45 {
                outcome = if rng.chance(0.4) {
                    Outcome::Timeout
                } else {
                    Outcome::Garbled
                };
            }
        }
        if ctx.claims_db_down
            && segment == catalog::SEG_CLAIM_REGISTRATION
            && def.kind == StepKind::Prompt
        {
            outcome = Outcome::Wrong("We're sorry, we are unable to register your claim right now. Please hold for a claims representative.");
        }
        if ctx.nlu_down && segment == catalog::SEG_INTENT {
            outcome = if rng.chance(0.3) {
                Outcome::Timeout
            } else {
                Outcome::Wrong("Sorry, I'm having trouble understanding right now. Please try again later or type agent.")
            };
        }
        if outcome == Outcome::Heard && def.kind != StepKind::CallConnect && rng.chance(0.0018) {
            outcome = match rng.int(0, 4) {
                0 | 1 => Outcome::Timeout,
                2 => Outcome::Garbled,
                _ if voice => Outcome::Wrong("Sorry, I did not get that. Please try again."),
                _ => Outcome::Wrong("Sorry, I didn't quite get that. Could you rephrase?"),
            };
        }

        let prompt_ms = def
            .prompt
            .as_deref()
            .map(|p| speaking_ms(p, voice))
            .unwrap_or(0);
        let mut barge_in = None;
        let (status, utterance, latency_out, conf_out, end) = match outcome {
            Outcome::Timeout => {
                let end = start + Duration::milliseconds(timing.incomplete_timeout);
                (RunStatus::Fail, None, None, None, end)
            }
            _ => {
                let mut span = latency + prompt_ms;
                let heard: Option<String>;
                match def.kind {
                    StepKind::CallConnect => {
                        heard = None;
                    }
                    _ => {
                        let text = match outcome {
                            Outcome::Wrong(t) => t.to_string(),
                            _ => def.prompt.clone().unwrap_or_default(),
                        };
                        let mut words: Vec<&str> = text.split_whitespace().collect();
                        if def.barge_in && outcome == Outcome::Heard && rng.chance(0.25) {
                            let at = (prompt_ms as f64 * rng.range(0.35, 0.8)) as i64;
                            barge_in = Some(at);
                            span = latency + at;
                            let keep = (words.len() as f64 * at as f64 / prompt_ms.max(1) as f64)
                                .ceil() as usize;
                            words.truncate(keep.max(1));
                        }
                        if outcome == Outcome::Garbled {
                            let keep = words.len().div_ceil(3);
                            words.truncate(keep);
                        }
                        heard = Some(if voice {
                            transcript(&words, rng, ctx.bad_audio)
                        } else {
                            words.join(" ")
                        });
                        if def.kind == StepKind::UserMessage {
                            // Confidence of the intent the chatbot detected.
                            confidence = match outcome {
                                Outcome::Heard => rng.range(0.72, 0.99),
                                _ => rng.range(0.1, 0.4),
                            };
                        }
                    }
                }
                // After the prompt: the caller's input, or the silence that ends the prompt.
                span += match def.kind {
                    StepKind::Dtmf => def
                        .reply
                        .as_deref()
                        .map(|d| d.len() as i64 * 200)
                        .unwrap_or(0),
                    StepKind::Speech => {
                        def.reply
                            .as_deref()
                            .map(|p| speaking_ms(p, true))
                            .unwrap_or(0)
                            + 300
                    }
                    StepKind::UserMessage | StepKind::QuickReply | StepKind::Form => def
                        .reply
                        .as_deref()
                        .map(|m| 400 + m.len() as i64 * 35)
                        .unwrap_or(0),
                    // Hold music until the engine confirms the queue.
                    StepKind::Transfer => rng.int(3_000, 9_000),
                    StepKind::Handoff => rng.int(1_500, 4_000),
                    StepKind::Hangup => 300,
                    _ => 0,
                };
                if barge_in.is_none() && def.kind != StepKind::CallConnect {
                    span += timing.complete_timeout.unwrap_or(0);
                }
                let status = match outcome {
                    Outcome::Heard if latency > timing.latency_max => RunStatus::Warn,
                    Outcome::Heard => RunStatus::Pass,
                    _ => RunStatus::Fail,
                };
                let conf = match (def.kind, outcome) {
                    (StepKind::CallConnect, _) => None,
                    (_, Outcome::Garbled) => Some(rng.range(0.2, 0.44)),
                    _ => Some(confidence),
                };
                (
                    status,
                    heard,
                    Some(latency),
                    conf.map(|c| round(c, 3)),
                    start + Duration::milliseconds(span),
                )
            }
        };
        // A step stopped by the tester or the engine ends part-way through.
        let (status, end) = if stopped {
            let cut = ((end - start).num_milliseconds() as f64 * rng.range(0.2, 0.8)) as i64;
            (RunStatus::Stopped, start + Duration::milliseconds(cut))
        } else {
            (status, end)
        };
        let recorded = voice && !(outcome == Outcome::Timeout && def.kind != StepKind::CallConnect);
        let recording_id = match (recorded, outcome) {
            (false, _) => None,
            (true, Outcome::Wrong(_)) => self.clip(ClipId::NoMatch),
            (true, _) => def.clip.and_then(|c| self.clip(c)),
        };
        IngestStep {
            step_id: def.id,
            step_type: def.kind.code().to_string(),
            type_display_text: def.kind.display().to_string(),
            prompt: def.prompt.clone(),
            prompt_latency_min: Some(timing.latency_min),
            prompt_latency_max: Some(timing.latency_max),
            incomplete_timeout: Some(timing.incomplete_timeout),
            complete_timeout: timing.complete_timeout,
            barge_in_time: barge_in,
            recording_id,
            test_result: IngestTestResult {
                status,
                utterance,
                latency: latency_out,
                confidence: conf_out,
                recording_duration: voice
                    .then(|| round((end - start).num_milliseconds() as f64 / 1000.0, 2)),
                start_time: Some(start),
                end_time: Some(end),
            },
            // Step-type specific fields come from the script; they do not vary per run.
            extra: (!def.extra.is_empty()).then(|| def.extra.clone()),
        }
    }

    /// Health of every client application at `at`: components, and the last run that
    /// had ended by then.
    pub fn health_at(&self, at: DateTime<Utc>) -> Vec<ClientAppHealth> {
        self.catalog
            .apps
            .iter()
            .enumerate()
            .map(|(ai, app)| {
                let failing = [
                    IncidentKind::Outage,
                    IncidentKind::ClaimsDbDown,
                    IncidentKind::NluDown,
                ]
                .iter()
                .any(|k| self.active(app.id, at, *k).is_some());
                let line_bad = self.active(app.id, at, IncidentKind::BadAudio).is_some();
                // The back end that is down, by name: only its component fails.
                let db_down = self
                    .active(app.id, at, IncidentKind::ClaimsDbDown)
                    .is_some();
                let state = |enabled: bool, ok: bool| ComponentState {
                    enabled,
                    status: if ok { TRS_PASS } else { TRS_FAIL }.to_string(),
                };
                ClientAppHealth {
                    client_end_point: app.end_point.to_string(),
                    channel: app.channel,
                    last_run: self.last_run(ai, at).unwrap_or(at),
                    app_status: state(true, !failing),
                    telco_status: state(true, !line_bad),
                    agent_status: state(app.agent_enabled, true),
                    component_status: app
                        .components
                        .iter()
                        .map(|(name, has, enabled)| ComponentPresence {
                            name: name.to_string(),
                            has_component: *has,
                            enabled: *enabled,
                            status: (*has && *enabled).then(|| {
                                let down = db_down && *name == "Claims DB";
                                if down { TRS_FAIL } else { TRS_PASS }.to_string()
                            }),
                        })
                        .collect(),
                }
            })
            .collect()
    }

    /// Start of the latest run of an application that had ended by `at`.
    fn last_run(&self, app: usize, at: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let mut planned = self.plan(
            at - Duration::seconds(SCHEDULE_SECS + MAX_RUN_SECS),
            at,
            Some(app),
        );
        planned.sort_by_key(|p| std::cmp::Reverse(p.start));
        planned
            .iter()
            .find(|p| run_end(&self.build(p)) <= at)
            .map(|p| p.start)
    }
}

struct RunContext {
    outage: bool,
    latency_factor: f64,
    bad_audio: bool,
    nlu_down: bool,
    claims_db_down: bool,
    load: f64,
    /// During an outage: the call is not answered (else: answered, then silence).
    no_answer: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    /// The expected prompt was heard (or read).
    Heard,
    /// Nothing within the incomplete time-out.
    Timeout,
    /// Something else was played or written.
    Wrong(&'static str),
    /// Heard, but too poorly to match.
    Garbled,
}

/// When a run ends (start plus duration).
pub fn run_end(r: &IngestRun) -> DateTime<Utc> {
    r.run_time + Duration::milliseconds((r.run_duration * 1000.0).round() as i64)
}

fn worst(statuses: impl Iterator<Item = RunStatus>) -> RunStatus {
    let rank = |s: RunStatus| match s {
        RunStatus::Pass => 0,
        RunStatus::Warn => 1,
        RunStatus::Stopped => 2,
        RunStatus::Fail => 3,
    };
    statuses.max_by_key(|s| rank(*s)).unwrap_or(RunStatus::Pass)
}

fn ingest_case(case: &CaseDef, app: &App) -> IngestTestCase {
    IngestTestCase {
        id: case.id,
        name: case.name.clone(),
        channel: app.channel,
        ivr: IngestIvr {
            id: app.id,
            name: app.name.to_string(),
        },
    }
}

fn secs(s: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(s, 0).single().unwrap_or_default()
}

fn truncate(t: DateTime<Utc>, step: i64) -> DateTime<Utc> {
    secs(t.timestamp().div_euclid(step) * step)
}

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

/// Manual runs expected per test case in one local hour: most in business hours, and a
/// realistic share through the evening, the night shift and the weekend, so that the
/// dashboard's default run type (Manual) is never almost empty.
fn manual_rate(day: Weekday, hour: u32) -> f64 {
    let working = !matches!(day, Weekday::Sat | Weekday::Sun);
    match (working, hour) {
        (true, 9..=11) | (true, 13..=16) => 0.8,
        (true, 8) | (true, 12) | (true, 17) => 0.6,
        (true, 7) | (true, 18..=20) => 0.35,
        (true, _) => 0.12,
        (false, 8..=18) => 0.3,
        (false, _) => 0.1,
    }
}

/// Latencies are a little higher when the contact centre is busy.
fn load_factor(day: Weekday, hour: u32) -> f64 {
    let working = !matches!(day, Weekday::Sat | Weekday::Sun);
    match (working, hour) {
        (true, 10..=15) => 1.18,
        (true, 8..=9) | (true, 16..=18) => 1.08,
        (false, 10..=16) => 1.04,
        _ => 1.0,
    }
}

/// Latency multiplier during a spike: rises to 3-5.5x in the middle of the window.
fn spike_factor(inc: &Incident, t: DateTime<Utc>, rng: &mut Rng) -> f64 {
    let len = (inc.to - inc.from).num_seconds().max(1) as f64;
    let x = (t - inc.from).num_seconds() as f64 / len;
    let shape = (std::f64::consts::PI * x).sin().sqrt();
    1.0 + shape * rng.range(2.0, 4.5)
}

/// How long saying (voice, ~165 words a minute) or showing (web) a text takes, ms.
fn speaking_ms(text: &str, voice: bool) -> i64 {
    let words = text.split_whitespace().count() as i64;
    if voice {
        400 + words * 360
    } else {
        200 + words * 20
    }
}

/// What a recogniser writes for the words heard: lower case, no punctuation, sometimes a
/// word lost (more often on a bad line).
fn transcript(words: &[&str], rng: &mut Rng, bad_line: bool) -> String {
    let drop = if bad_line { 0.25 } else { 0.02 };
    let mut out = String::new();
    for w in words {
        if words.len() > 3 && rng.chance(drop) {
            continue;
        }
        let w: String = w
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '\'' || *c == '-')
            .flat_map(char::to_lowercase)
            .collect();
        if w.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&w);
    }
    out
}

fn uuid_like(rng: &mut Rng) -> String {
    let a = rng.next_u64();
    let b = rng.next_u64();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | (b >> 48) & 0x3fff,
        b & 0xffff_ffff_ffff
    )
}

/// The incidents of the demo, placed in site-local time relative to the anchor's date.
pub fn incidents(tz: Tz, anchor: DateTime<Utc>) -> Vec<Incident> {
    let today = anchor.with_timezone(&tz).date_naive();
    let at = |days_back: i64, h: u32, m: u32| -> DateTime<Utc> {
        let date = today - Duration::days(days_back);
        let naive = date.and_time(NaiveTime::from_hms_opt(h, m, 0).unwrap_or_default());
        tz.from_local_datetime(&naive)
            .earliest()
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or_else(|| Utc.from_utc_datetime(&naive))
    };
    let inc = |kind, app_id, from, to, description: &str| Incident {
        kind,
        app_id,
        from,
        to,
        description: description.to_string(),
    };
    vec![
        inc(
            IncidentKind::Outage,
            catalog::CARD_SERVICES,
            at(4, 10, 15),
            at(4, 13, 40),
            "Card Services IVR outage: calls unanswered or silent, every run fails on a time-out",
        ),
        inc(
            IncidentKind::LatencySpike,
            catalog::RETAIL_BANKING,
            at(2, 13, 0),
            at(2, 17, 30),
            "Retail Banking IVR latency spike: prompts 3-5x slower than normal",
        ),
        inc(
            IncidentKind::BadAudio,
            catalog::INSURANCE_CLAIMS,
            at(6, 8, 0),
            at(6, 12, 30),
            "Insurance Claims IVR bad audio: MOS 2.x, poor recognition",
        ),
        inc(
            IncidentKind::NluDown,
            catalog::SUPPORT_CHATBOT,
            at(9, 18, 30),
            at(9, 21, 0),
            "Support Chatbot language understanding down: intents fall back",
        ),
        inc(
            IncidentKind::ClaimsDbDown,
            catalog::INSURANCE_CLAIMS,
            anchor - Duration::minutes(75),
            anchor + Duration::hours(12),
            "Insurance Claims IVR: Claims DB failing, claim registration fails (ongoing)",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(seed: u64, anchor: DateTime<Utc>) -> Generator {
        let recordings = ClipId::ALL
            .iter()
            .map(|c| (*c, format!("rec-{}", c.name())))
            .collect();
        Generator::new(seed, chrono_tz::America::Toronto, anchor, recordings)
    }

    fn anchor() -> DateTime<Utc> {
        // A Wednesday, 15:37 in Toronto.
        Utc.with_ymd_and_hms(2024, 5, 15, 19, 37, 12).unwrap()
    }

    #[test]
    fn same_seed_same_runs_other_seed_other_runs() {
        let a = gen(7, anchor());
        let b = gen(7, anchor() + Duration::seconds(20)); // same minute
        let c = gen(8, anchor());
        let from = a.anchor() - Duration::hours(6);
        let ra = a.runs_ending_in(from, a.anchor());
        let rb = b.runs_ending_in(from, b.anchor());
        let rc = c.runs_ending_in(from, c.anchor());
        assert!(ra.len() > 100);
        assert_eq!(ra, rb);
        assert_ne!(ra, rc);
        assert_eq!(a.health_at(a.anchor()), b.health_at(b.anchor()));
    }

    #[test]
    fn windows_split_anywhere_give_the_same_runs() {
        // The live feed fetches small windows; together they equal one big window.
        let g = gen(1, anchor());
        let from = g.anchor() - Duration::hours(3);
        let whole = g.runs_ending_in(from, g.anchor());
        let mut parts = Vec::new();
        let mut t = from;
        while t < g.anchor() {
            let next = (t + Duration::seconds(7 * 60 + 13)).min(g.anchor());
            parts.extend(g.runs_ending_in(t, next));
            t = next;
        }
        parts.sort_by(|a, b| {
            a.run_time
                .cmp(&b.run_time)
                .then(a.engine_run_id.cmp(&b.engine_run_id))
        });
        assert_eq!(whole, parts);
        let mut ids: Vec<_> = whole.iter().map(|r| r.engine_run_id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), whole.len());
    }

    #[test]
    fn cadence_schedule_every_15_minutes_and_manual_in_business_hours() {
        let g = gen(3, anchor());
        let day_start = g.anchor() - Duration::days(2);
        let runs = g.runs_ending_in(day_start, day_start + Duration::days(1));
        let cases = g.catalog().cases.len();
        let schedule = runs
            .iter()
            .filter(|r| r.run_type == RunType::Schedule)
            .count();
        // 96 slots a day per case, give or take the day's edges.
        assert!(
            (schedule as i64 - 96 * cases as i64).abs() <= cases as i64,
            "{schedule}"
        );
        let manual: Vec<_> = runs
            .iter()
            .filter(|r| r.run_type == RunType::Manual)
            .collect();
        assert!(manual.len() >= 3 * cases, "{} manual runs", manual.len());
        let in_hours = manual
            .iter()
            .filter(|r| {
                (8..18).contains(
                    &r.run_time
                        .with_timezone(&chrono_tz::America::Toronto)
                        .hour(),
                )
            })
            .count();
        // Most in business hours, and some in every hour of the day (the night shift too).
        assert!(
            in_hours * 10 >= manual.len() * 6,
            "{in_hours} of {}",
            manual.len()
        );
        for hour in 0..24 {
            assert!(
                manual.iter().any(|r| r
                    .run_time
                    .with_timezone(&chrono_tz::America::Toronto)
                    .hour()
                    == hour),
                "no manual run at {hour}:00"
            );
        }
        for r in &runs {
            assert!(
                r.run_duration > 0.0 && r.run_duration < MAX_RUN_SECS as f64,
                "{}",
                r.run_duration
            );
        }
    }

    #[test]
    fn normal_days_mostly_pass_with_some_warnings_and_few_failures() {
        let g = gen(5, anchor());
        let from = g.anchor() - Duration::days(20);
        let runs = g.runs_ending_in(from, from + Duration::days(1));
        let count = |s| runs.iter().filter(|r| r.status == s).count() as f64 / runs.len() as f64;
        let (pass, warn, fail) = (
            count(RunStatus::Pass),
            count(RunStatus::Warn),
            count(RunStatus::Fail),
        );
        assert!(pass > 0.85, "pass {pass}");
        assert!(warn > 0.01 && warn < 0.12, "warn {warn}");
        assert!(fail > 0.002 && fail < 0.05, "fail {fail}");
        for r in &runs {
            let voice = r.test_case.channel == Channel::Voice;
            match r.mos_cq_in {
                Some(m) => assert!(voice && (3.8..=4.5).contains(&m), "{m}"),
                None => assert!(!voice || r.status == RunStatus::Fail),
            }
        }
    }

    #[test]
    fn steps_are_filled_and_times_consistent() {
        let g = gen(9, anchor());
        let runs = g.runs_ending_in(g.anchor() - Duration::hours(2), g.anchor());
        let mut absent_utterance = 0;
        for r in &runs {
            let end = run_end(r);
            let mut prev = r.run_time;
            for seg in &r.segments {
                for s in &seg.steps {
                    let tr = &s.test_result;
                    let (st, et) = (tr.start_time.unwrap(), tr.end_time.unwrap());
                    assert!(prev <= st && st <= et && et <= end, "{}", r.engine_run_id);
                    prev = et;
                    assert!(s.prompt_latency_min.unwrap() < s.prompt_latency_max.unwrap());
                    assert!(s.incomplete_timeout.is_some());
                    if r.test_case.channel == Channel::Voice {
                        let d = tr.recording_duration.unwrap();
                        assert!((d - (et - st).num_milliseconds() as f64 / 1000.0).abs() < 0.01);
                    } else {
                        assert!(s.recording_id.is_none() && tr.recording_duration.is_none());
                    }
                    if s.step_type != "CALL_CONNECT" && tr.status != RunStatus::Stopped {
                        if tr.utterance.is_none() {
                            absent_utterance += 1;
                        } else {
                            let c = tr.confidence.unwrap();
                            assert!((0.0..=1.0).contains(&c));
                        }
                    }
                    if let Some(b) = s.barge_in_time {
                        assert!(b > 0);
                    }
                }
            }
        }
        let _ = absent_utterance;
    }

    #[test]
    fn every_run_passes_ingest_validation() {
        // Real recording ids are SHA-256 hex, as the store hands them out.
        let recordings = ClipId::ALL
            .iter()
            .map(|c| (*c, crate::store::auth::hash_secret(c.name())))
            .collect();
        let g = Generator::new(4, chrono_tz::America::Toronto, anchor(), recordings);
        for inc in g.incidents() {
            for r in g.runs_ending_in(inc.from, inc.from + Duration::hours(3)) {
                if let Err(e) = r.validate() {
                    panic!("{}: {e}", r.engine_run_id);
                }
            }
        }
    }

    fn window_runs(g: &Generator, kind: IncidentKind) -> (Incident, Vec<IngestRun>) {
        let inc = g
            .incidents()
            .iter()
            .find(|i| i.kind == kind)
            .unwrap()
            .clone();
        let runs: Vec<_> = g
            .runs_ending_in(inc.from, inc.to)
            .into_iter()
            .filter(|r| r.test_case.ivr.id == inc.app_id && inc.covers(r.run_time))
            .collect();
        assert!(runs.len() > 20, "{kind:?}: {} runs", runs.len());
        (inc, runs)
    }

    /// The demo's history follows the date it starts on, so what `tests/demo.rs` checks of
    /// the Card Services outage must hold whatever that date: for the seed it starts with,
    /// on every date of a year (at a time of day on either side of midnight UTC),
    /// the outage's whole local hours the day before pass more than they fail in each hour
    /// and four times as often over them all.
    #[test]
    fn the_day_before_the_outage_mostly_passes_whatever_the_date() {
        let tz = chrono_tz::America::Toronto;
        let cards = catalog::catalog()
            .groups
            .into_iter()
            .find(|g| g.name == "Cards - Lost & Stolen")
            .unwrap();
        let mut worst = (0.0f64, String::new());
        for day in 0..365 {
            let anchor = Utc.with_ymd_and_hms(2026, 1, 1, 0, 30, 0).unwrap()
                + Duration::days(day)
                + Duration::hours(if day % 2 == 0 { 0 } else { 23 });
            let g = gen(7, anchor);
            let outage = g
                .incidents()
                .iter()
                .find(|i| i.kind == IncidentKind::Outage)
                .unwrap()
                .clone();
            let app = g.catalog().app_by_id(outage.app_id).unwrap();
            let (from, to) = (outage.from.with_timezone(&tz), outage.to.with_timezone(&tz));
            let (mut passed, mut failed) = (0, 0);
            for h in from.hour() + 1..to.hour() {
                let start = tz
                    .from_local_datetime(
                        &(from.date_naive() - Duration::days(1))
                            .and_hms_opt(h, 0, 0)
                            .unwrap(),
                    )
                    .earliest()
                    .unwrap()
                    .with_timezone(&Utc);
                let runs: Vec<IngestRun> = g
                    .plan(
                        start - Duration::seconds(1),
                        start + Duration::hours(1),
                        Some(app),
                    )
                    .iter()
                    .filter(|p| {
                        p.run_type == RunType::Schedule
                            && p.start >= start
                            && p.start < start + Duration::hours(1)
                    })
                    .map(|p| g.build(p))
                    .filter(|r| cards.cases.contains(&r.test_case.id))
                    .collect();
                let count = |s| runs.iter().filter(|r| r.status == s).count();
                let (p, f) = (count(RunStatus::Pass), count(RunStatus::Fail));
                assert!(runs.len() >= 12, "{anchor}: hour {h}: {} runs", runs.len());
                assert!(
                    p > f,
                    "{anchor}: hour {h} the day before: {p} passed, {f} failed"
                );
                passed += p;
                failed += f;
            }
            assert!(
                passed > 4 * failed,
                "{anchor}: {passed} passed, {failed} failed"
            );
            let share = failed as f64 / (passed + failed) as f64;
            if share > worst.0 {
                worst = (share, anchor.to_string());
            }
        }
        eprintln!(
            "the worst date fails {:.1}% of the runs ({})",
            worst.0 * 100.0,
            worst.1
        );
    }

    #[test]
    fn outage_fails_every_run_of_the_ivr_on_a_timeout() {
        let g = gen(11, anchor());
        let (_, runs) = window_runs(&g, IncidentKind::Outage);
        for r in &runs {
            assert_eq!(r.status, RunStatus::Fail, "{}", r.engine_run_id);
            let last = r.segments.last().unwrap().steps.last().unwrap();
            assert!(last.test_result.utterance.is_none() && last.test_result.latency.is_none());
        }
    }

    #[test]
    fn latency_spike_warns_and_bad_audio_has_low_mos() {
        let g = gen(11, anchor());
        let (_, runs) = window_runs(&g, IncidentKind::LatencySpike);
        let bad = runs.iter().filter(|r| r.status != RunStatus::Pass).count();
        assert!(bad * 2 > runs.len(), "{bad} of {}", runs.len());
        let (_, runs) = window_runs(&g, IncidentKind::BadAudio);
        for r in &runs {
            if let Some(m) = r.mos_cq_in {
                assert!((2.0..3.0).contains(&m), "{m}");
            }
        }
        let (_, runs) = window_runs(&g, IncidentKind::NluDown);
        assert!(runs
            .iter()
            .all(|r| r.status == RunStatus::Fail || r.status == RunStatus::Stopped));
    }

    #[test]
    fn ongoing_incident_shows_in_health_and_runs() {
        let g = gen(2, anchor());
        let health = g.health_at(g.anchor());
        assert_eq!(health.len(), 5);
        let claims = health
            .iter()
            .find(|h| h.client_end_point.starts_with("InsuranceClaims"))
            .unwrap();
        assert_eq!(claims.app_status.status, TRS_FAIL);
        let cards = health
            .iter()
            .find(|h| h.client_end_point.starts_with("CardServices"))
            .unwrap();
        assert!(!cards.agent_status.enabled);
        assert!(cards.component_status.iter().any(|c| !c.enabled));
        for h in &health {
            assert!(h.last_run <= g.anchor() && h.last_run > g.anchor() - Duration::minutes(30));
        }
        assert!(health.iter().any(|h| h.channel == Channel::Web));
        // Twelve hours later it is over.
        let later = g.health_at(g.anchor() + Duration::hours(13));
        assert!(later.iter().all(|h| h.app_status.status == TRS_PASS));
        // FNOL runs fail now, and testers re-run them by hand.
        let runs = g.runs_ending_in(g.anchor() - Duration::minutes(60), g.anchor());
        let fnol: Vec<_> = runs
            .iter()
            .filter(|r| r.test_case.name.starts_with("FNOL"))
            .collect();
        assert!(fnol
            .iter()
            .all(|r| r.status == RunStatus::Fail || r.status == RunStatus::Stopped));
        assert!(fnol.iter().any(|r| r.run_type == RunType::Manual));
    }
}

//! `cxwatch serve --demo` end to end: the real binary generates its history, and the API
//! shows the groups of both channels, the health, the incidents, playable recordings, the
//! viewer's groups and a live feed that keeps adding runs. A restart on the same data
//! directory continues instead of generating again.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use serde_json::{json, Value};

use common::{client, free_port, BIN};

const TZ: Tz = chrono_tz::America::Toronto;

/// Days of history the demo loads: the 30 of `serve --demo`, or, at the instants the README's
/// test command pins the clock to (`CXWATCH_TEST_NOW`), the 8 that hold every incident and
/// report checked here (the oldest, the bad audio, is 6 days back), so that the test runs
/// there at a few times the cost of one instead of six.
fn history_days() -> u64 {
    match common::test_now() {
        Some(_) => 8,
        None => 30,
    }
}

/// The demo server, with what it printed on standard output.
struct DemoServer {
    child: Child,
    base: String,
    out: Arc<Mutex<Vec<String>>>,
}

impl Drop for DemoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl DemoServer {
    /// Starts `serve --demo` on `data_dir`; waits until it answers (the history loads in
    /// the background: see [`DemoServer::wait_line`]).
    fn start(data_dir: &Path, seed: u64) -> DemoServer {
        let port = free_port();
        let config = data_dir.join("demo-test.toml");
        std::fs::create_dir_all(data_dir).unwrap();
        let store = common::store_url(data_dir)
            .map(|url| format!("[store]\nurl = {url:?}\n"))
            .unwrap_or_default();
        std::fs::write(
            &config,
            format!("[server]\nlisten = \"127.0.0.1:{port}\"\n[site]\ntimezone = \"America/Toronto\"\n[log]\nformat = \"text\"\nlevel = \"warn\"\n{store}{}", common::clock_toml()),
        )
        .unwrap();
        let mut child = Command::new(BIN)
            .arg("--config")
            .arg(&config)
            .arg("--data-dir")
            .arg(data_dir)
            .args(["serve", "--demo", "--demo-seed", &seed.to_string()])
            .args(["--demo-days", &history_days().to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().unwrap();
        let lines = out.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("cxwatch: {line}");
            }
        });
        let server = DemoServer {
            child,
            base: format!("https://127.0.0.1:{port}"),
            out,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        let c = client();
        loop {
            if let Ok(r) = c.get(server.url("/healthz")).send() {
                if r.status().is_success() {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "demo server did not start");
            std::thread::sleep(Duration::from_millis(200));
        }
        server
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Waits for a line of standard output starting with `prefix` (generous: a debug
    /// build loads 30 days of history).
    fn wait_line(&self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(900);
        loop {
            if let Some(l) = self.stdout().iter().find(|l| l.starts_with(prefix)) {
                return l.clone();
            }
            assert!(
                Instant::now() < deadline,
                "no {prefix:?} in {:#?}",
                self.stdout()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn stdout(&self) -> Vec<String> {
        self.out.lock().unwrap().clone()
    }

    /// The password printed for `username` in the credentials box.
    fn password(&self, username: &str) -> String {
        let lines = self.stdout();
        let at = lines
            .iter()
            .position(|l| l.contains(&format!("username  {username}")))
            .unwrap_or_else(|| panic!("no {username} in {lines:#?}"));
        let line = &lines[at + 1];
        line.split("password")
            .nth(1)
            .unwrap()
            .trim()
            .trim_end_matches('|')
            .trim()
            .to_string()
    }

    fn sign_in(&self, username: &str) -> String {
        let r = client()
            .post(self.url("/api/auth/signin"))
            .json(&json!({"username": username, "password": self.password(username)}))
            .send()
            .unwrap();
        let body: Value = r.json().unwrap();
        body["data"]["accessToken"]
            .as_str()
            .unwrap_or_else(|| panic!("sign-in failed: {body}"))
            .to_string()
    }

    fn get(&self, token: &str, path: &str) -> Value {
        let r = client()
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .unwrap();
        let status = r.status();
        let body: Value = r.json().unwrap();
        assert!(status.is_success(), "{path}: {status} {body}");
        body["data"].clone()
    }

    fn get_bytes(&self, token: &str, path: &str) -> (String, Vec<u8>) {
        let r = client()
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
        let ct = r
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        (ct, r.bytes().unwrap().to_vec())
    }

    /// An incident line of the start-up message: (from, to) in UTC.
    fn incident(&self, what: &str) -> (DateTime<Utc>, DateTime<Utc>) {
        let lines = self.stdout();
        let line = lines
            .iter()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no incident {what:?} in {lines:#?}"));
        let parts: Vec<&str> = line.split_whitespace().collect();
        let parse = |d: &str, t: &str| {
            let naive =
                NaiveDateTime::parse_from_str(&format!("{d} {t}"), "%Y-%m-%d %H:%M").unwrap();
            TZ.from_local_datetime(&naive)
                .earliest()
                .unwrap()
                .with_timezone(&Utc)
        };
        (parse(parts[0], parts[1]), parse(parts[3], parts[4]))
    }
}

fn local_date(t: DateTime<Utc>) -> NaiveDate {
    t.with_timezone(&TZ).date_naive()
}

fn group_id(groups: &Value, name: &str) -> i64 {
    groups
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == name)
        .unwrap_or_else(|| panic!("no group {name} in {groups}"))["id"]
        .as_i64()
        .unwrap()
}

/// (success, warning, failure) of the group's cases per local hour of `date`.
fn hourly(
    s: &DemoServer,
    token: &str,
    group: i64,
    date: NaiveDate,
    run_type: &str,
) -> Vec<[u64; 3]> {
    let metric = s.get(
        token,
        &format!(
            "/api/trs/v1/groups/{group}/metric?level=case&startDate={date}&caseRunType={run_type}"
        ),
    );
    let mut hours = vec![[0u64; 3]; 24];
    for entity in metric.as_array().unwrap() {
        for (h, slot) in entity["hourlyStatus"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            hours[h][0] += slot["successCount"].as_u64().unwrap();
            hours[h][1] += slot["warningCount"].as_u64().unwrap();
            hours[h][2] += slot["failureCount"].as_u64().unwrap();
        }
    }
    hours
}

/// Local hours lying wholly inside (from, to).
fn inner_hours(from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<usize> {
    let (a, b) = (from.with_timezone(&TZ), to.with_timezone(&TZ));
    (a.hour() as usize + 1..b.hour() as usize).collect()
}

/// Runs of the whole demo (all groups, Schedule and Manual) on local dates from..=to.
fn total_runs(s: &DemoServer, token: &str, groups: &Value, from: NaiveDate, to: NaiveDate) -> u64 {
    let mut total = 0;
    for g in groups.as_array().unwrap() {
        for run_type in ["Schedule", "Manual"] {
            let m = s.get(
                token,
                &format!(
                    "/api/trs/v1/groups/{}/metric?startDate={from}&endDate={to}&caseRunType={run_type}",
                    g["id"]
                ),
            );
            for e in m.as_array().unwrap() {
                total += ["successCount", "warningCount", "failureCount"]
                    .iter()
                    .map(|k| e[k].as_u64().unwrap())
                    .sum::<u64>();
            }
        }
    }
    total
}

fn check_wav(bytes: &[u8]) {
    assert!(bytes.len() > 44 + 8000, "{} bytes", bytes.len());
    assert_eq!(&bytes[0..4], b"RIFF");
    assert_eq!(&bytes[8..12], b"WAVE");
    assert_eq!(u16::from_le_bytes([bytes[20], bytes[21]]), 1, "PCM");
    assert_eq!(u16::from_le_bytes([bytes[22], bytes[23]]), 1, "mono");
    assert_eq!(u32::from_le_bytes(bytes[24..28].try_into().unwrap()), 8000);
    assert_eq!(u16::from_le_bytes([bytes[34], bytes[35]]), 16);
    let samples: Vec<f64> = bytes[44..]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]) as f64)
        .collect();
    let rms = (samples.iter().map(|s| s * s).sum::<f64>() / samples.len() as f64).sqrt();
    assert!(rms > 500.0, "silent: rms {rms}");
}

#[test]
fn demo_site_serves_history_incidents_recordings_and_a_live_feed() {
    let dir = tempfile::tempdir().unwrap();
    let s = DemoServer::start(dir.path(), 7);
    // The server answers at once; the history loads in the background.
    assert!(s
        .stdout()
        .iter()
        .any(|l| l.starts_with(&format!("demo: loading {} days of history", history_days()))));
    let generated = s.wait_line("demo: generated");
    eprintln!("{generated}");
    let runs: u64 = generated
        .split_whitespace()
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    // About 4,200 runs a day.
    assert!(runs > 110_000 * history_days() / 30, "{generated}");

    let admin = s.sign_in("admin@demo.cxwatch");

    // Groups of both channels.
    let groups = s.get(&admin, "/api/trs/v1/groups");
    let names: Vec<&str> = groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    for name in [
        "Banking - Core Journeys",
        "Cards - Lost & Stolen",
        "Claims - FNOL",
        "Chat - Support",
        "Chat - Sales",
        "After Hours",
    ] {
        assert!(names.contains(&name), "{names:?}");
    }
    let channels: Vec<&str> = groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["channel"].as_str().unwrap())
        .collect();
    assert!(
        channels.contains(&"voice") && channels.contains(&"web"),
        "{channels:?}"
    );

    // Health of both channels: Claims failing now, an agent leg and a component disabled.
    let health = s.get(&admin, "/api/trs/v1/groups/health");
    let apps: Vec<&Value> = health
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["clientApps"].as_array().unwrap())
        .collect();
    assert!(
        apps.iter().any(|a| a["channel"] == "voice") && apps.iter().any(|a| a["channel"] == "web")
    );
    let app = |prefix: &str| {
        *apps
            .iter()
            .find(|a| a["clientEndPoint"].as_str().unwrap().starts_with(prefix))
            .unwrap()
    };
    assert_eq!(
        app("InsuranceClaims-IVR")["appStatus"]["status"],
        "TRS_FAIL"
    );
    assert_eq!(app("RetailBanking-IVR")["appStatus"]["status"], "TRS_PASS");
    assert_eq!(app("CardServices-IVR")["agentStatus"]["enabled"], false);
    assert!(app("CardServices-IVR")["componentStatus"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["enabled"] == false));
    assert_eq!(
        app("support.chat.example.com")["appStatus"]["status"],
        "TRS_PASS"
    );

    // The outage: every Schedule run of the Card Services IVR fails in its hours; the day
    // before, the same hours mostly pass. A normal day fails a few runs in a hundred, so an
    // hour of 16 runs may hold two failures on some dates (the history follows the date the
    // demo starts on): each hour passes more than it fails, and the hours together pass four
    // times as often at least (the generator's own test checks it for every date of two
    // years).
    let cards = group_id(&groups, "Cards - Lost & Stolen");
    let (from, to) = s.incident("Card Services IVR outage");
    let day = local_date(from);
    let during = hourly(&s, &admin, cards, day, "Schedule");
    let before = hourly(&s, &admin, cards, day.pred_opt().unwrap(), "Schedule");
    let inner = inner_hours(from, to);
    assert!(inner.len() >= 2, "{inner:?}");
    for h in &inner {
        assert_eq!(
            during[*h][0] + during[*h][1],
            0,
            "hour {h}: {:?}",
            during[*h]
        );
        assert!(during[*h][2] >= 12, "hour {h}: {:?}", during[*h]);
        assert!(
            before[*h][0] > before[*h][2],
            "hour {h} the day before: {:?}",
            before[*h]
        );
    }
    let (passed, failed) = inner
        .iter()
        .fold((0, 0), |(p, f), h| (p + before[*h][0], f + before[*h][2]));
    assert!(
        passed > 4 * failed,
        "the outage's hours the day before: {passed} passed, {failed} failed"
    );
    // And one run of the window in detail: a failure on a time-out.
    let list = s.get(
        &admin,
        &format!(
            "/api/trs/v1/testcases/1101/runs?startDate={day}&caseRunType=Schedule&pageSize=200"
        ),
    );
    let in_window: Vec<&Value> = list["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            let t: DateTime<Utc> = r["runTime"].as_str().unwrap().parse().unwrap();
            from < t && t < to
        })
        .collect();
    assert!(in_window.len() >= 8, "{}", in_window.len());
    assert!(
        in_window.iter().all(|r| r["runStatusId"] == 7),
        "{in_window:?}"
    );
    let detail = s.get(
        &admin,
        &format!("/api/trs/v1/testruns/{}", in_window[0]["runId"]),
    );
    let last_step = detail["segments"].as_array().unwrap().last().unwrap()["steps"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert!(
        last_step["testResult"]["utterance"].is_null(),
        "{last_step}"
    );

    // The latency spike: most Schedule runs of Retail Banking warn or fail in its hours.
    let banking = group_id(&groups, "Banking - Core Journeys");
    let (from, to) = s.incident("Retail Banking IVR latency spike");
    let during = hourly(&s, &admin, banking, local_date(from), "Schedule");
    for h in inner_hours(from, to) {
        let [p, w, f] = during[h];
        assert!(w + f > p, "hour {h}: {:?}", during[h]);
    }

    // Bad audio: MOS 2.x in its hours, normal in the afternoon.
    let claims = group_id(&groups, "Claims - FNOL");
    let (from, to) = s.incident("Insurance Claims IVR bad audio");
    let mos = s.get(
        &admin,
        &format!(
            "/api/trs/v1/groups/{claims}/mos?startDate={}&caseRunType=Schedule",
            local_date(from)
        ),
    );
    for h in inner_hours(from, to) {
        let avg = mos[h]["avgMosCq"].as_f64().unwrap();
        assert!((2.0..3.0).contains(&avg), "hour {h}: {avg}");
    }
    let afternoon = mos[16]["avgMosCq"].as_f64().unwrap();
    assert!((3.8..=4.5).contains(&afternoon), "{afternoon}");

    // Recordings: a voice run's call and a step's audio are real WAV files.
    let today = local_date(common::now());
    let list = s.get(&admin, &format!("/api/trs/v1/testcases/1001/runs?startDate={}&endDate={today}&status=success&pageSize=5", today.pred_opt().unwrap()));
    let run_id = list["content"][0]["runId"]
        .as_i64()
        .expect("a passed run of case 1001");
    let detail = s.get(&admin, &format!("/api/trs/v1/testruns/{run_id}"));
    let call = detail["recordingId"]
        .as_str()
        .expect("call recording")
        .to_string();
    let (ct, wav) = s.get_bytes(&admin, &format!("/api/trs/v1/recordings/{call}"));
    assert!(ct.starts_with("audio/wav"), "{ct}");
    check_wav(&wav);
    let step_recordings: Vec<String> = detail["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["steps"].as_array().unwrap())
        .filter_map(|st| st["recordingId"].as_str().map(String::from))
        .collect();
    assert!(step_recordings.len() >= 5, "{detail}");
    for id in step_recordings.iter().take(3) {
        check_wav(
            &s.get_bytes(&admin, &format!("/api/trs/v1/recordings/{id}"))
                .1,
        );
    }

    // The viewer sees one group of each channel.
    let viewer = s.sign_in("viewer@demo.cxwatch");
    let theirs = s.get(&viewer, "/api/trs/v1/groups");
    let mut chans: Vec<&str> = theirs
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["channel"].as_str().unwrap())
        .collect();
    chans.sort();
    assert_eq!(chans, ["voice", "web"], "{theirs}");

    // The live feed adds runs (a Schedule run about every 25 s over the grouped cases). They
    // are counted up to tomorrow: midnight in the site's zone may pass while this waits, and
    // the new runs are then on the next day.
    let yesterday = today.pred_opt().unwrap();
    let tomorrow = today.succ_opt().unwrap();
    let first = total_runs(&s, &admin, &groups, yesterday, tomorrow);
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut now_count = first;
    while now_count <= first && Instant::now() < deadline {
        std::thread::sleep(Duration::from_secs(5));
        now_count = total_runs(&s, &admin, &groups, yesterday, tomorrow);
    }
    assert!(now_count > first, "no new runs in 180 s ({first})");

    // The alert life: once the engine has run over the history, the mute made
    // 20 minutes ago (no reason of its own: the console words it) has marked the muted case's
    // runs since, which the strip counts apart; the weekly Claims release window's runs are
    // left out of the Claims MOS report, which says how many.
    let deadline = Instant::now() + Duration::from_secs(180);
    let windows = loop {
        let w = s.get(&admin, "/api/maintenance/windows");
        if w["totalElements"].as_i64() == Some(2) {
            break w;
        }
        assert!(Instant::now() < deadline, "no mute: {w}");
        std::thread::sleep(Duration::from_secs(2));
    };
    let mute = windows["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| !w["alertId"].is_null())
        .unwrap_or_else(|| panic!("{windows}"));
    assert_eq!(mute["reason"], "", "{mute}");
    assert!(mute["runCount"].as_i64().unwrap() >= 1, "{mute}");
    let recent = s.get(&admin, "/api/trs/v1/groups/recent?minutes=30");
    assert!(
        recent["groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["maintenanceCount"].as_i64().unwrap_or(0) >= 1),
        "{recent}"
    );
    let reports = s.get(&admin, "/api/reports?pageSize=50");
    let mos = reports["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["reportTypeID"] == 7)
        .unwrap_or_else(|| panic!("{reports}"));
    let rows = s.get(
        &admin,
        &format!(
            "/api/trs/v1/groups/{}/mos?startDate={}&endDate={}&caseRunType={}",
            mos["testCaseGroupID"],
            mos["timeframeBegin"].as_str().unwrap(),
            mos["timeframeEnd"].as_str().unwrap(),
            mos["runType"].as_str().unwrap()
        ),
    );
    let left_out: i64 = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["maintenanceCount"].as_i64().unwrap_or(0))
        .sum();
    assert!(
        left_out > 0,
        "the MOS report leaves the release's runs out: {rows}"
    );
    eprintln!(
        "demo: the mute marked {} runs; the MOS report leaves {left_out} runs in maintenance out",
        mute["runCount"]
    );

    // A restart on the same data directory continues: no second history, same past.
    let outage_day_before = hourly(
        &s,
        &admin,
        cards,
        local_date(s.incident("Card Services IVR outage").0),
        "Schedule",
    );
    drop(s);
    let started = Instant::now();
    let s = DemoServer::start(dir.path(), 99);
    eprintln!("restart answered in {:?}", started.elapsed());
    let out = s.stdout();
    assert!(
        out.iter()
            .any(|l| l.contains("already holds the demo history")),
        "{out:#?}"
    );
    assert!(
        !out.iter().any(|l| l.starts_with("demo: generated")),
        "{out:#?}"
    );
    let admin = s.sign_in("admin@demo.cxwatch");
    let groups_again = s.get(&admin, "/api/trs/v1/groups");
    assert_eq!(
        groups_again.as_array().unwrap().len(),
        groups.as_array().unwrap().len()
    );
    let after = hourly(
        &s,
        &admin,
        cards,
        local_date(s.incident("Card Services IVR outage").0),
        "Schedule",
    );
    assert_eq!(outage_day_before, after);
    assert!(total_runs(&s, &admin, &groups_again, yesterday, tomorrow) >= now_count);
}

//! Every integration test in one binary: one link and one compile of the shared helpers
//! (the real binary, the in-process harness, the SMTP/OIDC/Jira stand-ins), instead of one
//! per file. Each file of tests/ is a module; nextest runs each test in its own process.

mod common;
mod harness;
mod harness_trs;
mod jira_standin;
mod oidc;
mod private_ca;
mod sinks;

mod abuse;
mod alert_events;
mod alert_life;
mod alert_settings;
mod api_contract;
mod audit;
mod auth;
mod auth_api;
mod auto_tickets;
mod backup;
mod compression;
mod config;
mod csv_formulas;
mod demo;
mod distributions;
mod doc_paths;
mod escalation_crash;
mod group_removal;
mod incidents;
mod ingest;
mod ingest_channel;
mod jira;
mod kiosk;
mod layers;
mod limits;
mod live_metrics;
mod notify_crash;
mod notify_delivery;
mod opstate;
mod permissions;
mod postgres;
mod proxy;
mod report_mail;
mod report_schedule_crash;
mod reports;
mod role_matrix;
mod rundetail;
mod server;
mod sessions;
mod site;
mod spec7;
mod sso;
mod store_copy;
mod store_faults;
mod storm;
mod systemd;
mod trs_api;
mod trs_dst;
mod trs_recount;
mod users;
mod webhooks;

/// A file added to tests/ runs only once it is named above (Cargo.toml sets `autotests =
/// false`): this fails until it is.
#[test]
fn every_file_of_tests_is_a_module_here() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let here = std::fs::read_to_string(dir.join("integration.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let module = if path.extension().is_some_and(|e| e == "rs") {
            name != "integration"
        } else {
            path.join("mod.rs").is_file()
        };
        if module && !here.contains(&format!("\nmod {name};\n")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/integration.rs does not name: {missing:?}"
    );
}

//! leadsync: get leads from spreadsheets into an AI calling service, fast and exactly once.
//!
//! Rows flow through the stages in this order:
//!
//! ```text
//!  source ──► edits ──► phone ──► mapping ──► guards ──► validate ──► push ──► journal ──► report
//!  (csv, xlsx,  (cells    (E.164)   (columns →   (who may   (campaigns,  (workers,  (resume,     (json, csv,
//!   url)        edited)            lead fields) be called) duplicates)  rate limit) exactly once) html, terminal)
//! ```
//!
//! **The house rule: a module uses only modules declared before it below**, so there is no
//! circle between modules and no arrow from a lower floor up (`tests/integration/house.rs`
//! checks it). The declarations follow the flow (`edits` puts a person's changes to cells into
//! the rows as they are read, before anything is checked), with three ground floors where the flow needs
//! them: `row` (the row model every stage judges and every report renders) sits right above
//! the phone code, which owns the facts about numbers and countries; `assistant` (what the
//! assistant that makes the calls needs of a lead's variables) follows `mapping`, whose plan
//! it checks, and precedes `validate`, which asks it of every row; `journal`, `ledger` (who each lead
//! is, for every run of the state folder) and `report` come before `push`, which writes them; `client` (the only module that speaks HTTP to the service)
//! and `pace` (where the rate limiter and the progress display meet) come before `progress` and
//! `push`. `pipeline` is the one place that knows the order of the stages; `progress` shows it
//! to whoever watches; `serve` is the accept loop, with its timeouts and connection cap, that
//! both local servers (`ui` and the `events` receiver) answer through; `ui` is a second front beside `cli`, in the browser, over the same
//! stages. The way back: `events` receives the service's notifications and
//! `export` writes leads and notifications out to CSV and XLSX. `sandbox` is an independent
//! implementation of the service for tests, demos and `--sandbox`; `cli` parses arguments and
//! prints, and nothing else depends on it.
//!
//! # Checking a sheet without a service
//!
//! [`pipeline::import`] runs what `leadsync import --dry-run --offline` runs: it reads a sheet,
//! infers the mapping from its headers, normalizes every number and checks every row, with no
//! service and no account (`client: None`), and writes the reports asked for.
//!
//! ```
//! use std::sync::{Arc, atomic::AtomicBool};
//!
//! use leadsync::pipeline::{ImportOptions, import};
//!
//! let dir = tempfile::tempdir()?;
//! let sheet = dir.path().join("leads.csv");
//! std::fs::write(
//!     &sheet,
//!     "Name,Phone,Campaign\n\
//!      Ada,+49 151 23456789,Spring\n\
//!      Bob,0151 CALL ME,Spring\n\
//!      Cyd,+49 (0) 151 2345 6789,Spring\n",
//! )?;
//! let report = dir.path().join("check.json");
//! let opts = ImportOptions {
//!     path: sheet.clone(),
//!     location: sheet.display().to_string(),
//!     dry_run: true,
//!     offline: true, // campaigns are not looked up
//!     reports: vec![report.clone()],
//!     ..Default::default()
//! };
//! let stop = Arc::new(AtomicBool::new(false)); // raised by Ctrl-C in the CLI
//! let result = tokio::runtime::Runtime::new()?.block_on(import(&opts, None, stop))?;
//!
//! let summary = &result.outcome.summary;
//! assert_eq!((summary.rows, summary.valid, summary.rejected, summary.duplicates), (3, 1, 1, 1));
//!
//! // The JSON report has one entry per row: its status, its E.164 number, what was wrong.
//! let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&report)?)?;
//! let rows = report["rows"].as_array().unwrap();
//! assert_eq!(rows[0]["phone"], "+4915123456789");
//! assert_eq!(rows[1]["status"], "rejected");
//! assert_eq!(rows[1]["errors"][0]["code"], "invalid_phone");
//! assert_eq!(rows[2]["status"], "duplicate"); // the same number as the first row
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod source;
pub mod edits;
pub mod phone;
pub mod row;
pub mod mapping;
pub mod assistant;
pub mod guards;
pub mod validate;
pub mod journal;
pub mod ledger;
pub mod report;
pub mod client;
pub mod pace;
pub mod progress;
pub mod push;
pub mod sync;
pub mod pipeline;
pub mod serve;
pub mod ui;
pub mod events;
pub mod export;
pub mod sandbox;
pub mod cli;

//! leadsync: get leads from spreadsheets into an AI calling service, fast and exactly once.
//!
//! The modules are declared in the order data flows through them:
//!
//! ```text
//!  source ──► phone ──► mapping ──► guards ──► validate ──► push ──► journal ──► report
//!  (csv, xlsx,  (E.164)  (columns →   (who may   (campaigns,  (workers,  (resume,     (json, csv,
//!   url)                 lead fields) be called) duplicates)  rate limit) exactly once) html, terminal)
//! ```
//!
//! `pipeline` is the one place that knows that order; `progress` shows it to whoever watches.
//! `client` is the only module that speaks HTTP to the service. The way back: `events`
//! receives the service's notifications and `export` writes leads and notifications out to CSV
//! and XLSX. `sandbox` is an independent implementation of the service for tests, demos and
//! `--sandbox`; `cli` parses arguments and prints, and nothing else depends on it.

pub mod source;
pub mod phone;
pub mod mapping;
pub mod guards;
pub mod validate;
pub mod push;
pub mod journal;
pub mod report;
pub mod pipeline;
pub mod progress;
pub mod client;
pub mod events;
pub mod export;
pub mod sandbox;
pub mod cli;

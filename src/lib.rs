//! leadsync: get leads from spreadsheets into an AI calling service, fast and exactly once.
//!
//! The modules are declared in the order data flows through them:
//!
//! ```text
//!  source ──► phone ──► mapping ──► validate ──► push ──► journal ──► report
//!  (csv, xlsx,  (E.164)  (columns →   (campaigns,  (workers,  (resume,     (json, csv,
//!   url)                 lead fields) duplicates)  rate limit) exactly once) html, terminal)
//! ```
//!
//! `pipeline` is the one place that knows that order. `client` is the only module that speaks
//! HTTP to the service; `sandbox` is an independent implementation of that service for tests,
//! demos and `--sandbox`; `cli` parses arguments and prints, and nothing else depends on it.

pub mod source;
pub mod phone;
pub mod mapping;
pub mod validate;
pub mod report;
pub mod pipeline;
pub mod client;
pub mod sandbox;
pub mod cli;

//! Reports: the row/summary model and its writers (json, csv, html, terminal).
//!
//! Writers stream: each row is handed over once, in order, and memory does not grow with the
//! number of rows. `--report PATH` picks the writer from the extension.

pub mod model;

pub use model::{
    ContactReport, Issue, IssueCode, RowReport, RowStatus, RunInfo, Summary, Variables,
};

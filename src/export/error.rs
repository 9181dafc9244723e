//! `ExportError`: why an export could not be written, naming the file or the campaign and what
//! to do about it.

use std::io;
use std::path::PathBuf;

use crate::client::ClientError;
use crate::events::EventsError;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(
        "unknown export format `{extension}` for `{path}`: use a path ending in .csv or .xlsx",
        path = path.display()
    )]
    UnknownFormat { path: PathBuf, extension: String },

    #[error(
        "export path `{path}` has no extension: use a path ending in .csv or .xlsx",
        path = path.display()
    )]
    MissingExtension { path: PathBuf },

    #[error(
        "cannot create `{path}`: {cause}; check that the folder exists and is writable",
        path = path.display()
    )]
    Create { path: PathBuf, cause: io::Error },

    #[error(
        "cannot write `{path}`: {cause}; check the free disk space and run again",
        path = path.display()
    )]
    Write { path: PathBuf, cause: io::Error },

    #[error("cannot write the workbook `{path}`: {cause}", path = path.display())]
    Xlsx { path: PathBuf, cause: rust_xlsxwriter::XlsxError },

    #[error(
        "cannot put `{path}` in place: {cause}; the unfinished copy was removed, run again",
        path = path.display()
    )]
    Finish { path: PathBuf, cause: io::Error },

    #[error(
        "`{path}` would need {rows} rows and {columns} columns, more than a worksheet holds (1,048,576 × 16,384): export to .csv instead",
        path = path.display()
    )]
    TooLarge { path: PathBuf, rows: usize, columns: usize },

    #[error("{problem}; the account's campaigns are: {campaigns}")]
    Campaign { problem: String, campaigns: String },

    #[error("the account has no campaign `{given}`: it has no campaigns at all")]
    NoCampaigns { given: String },

    #[error(transparent)]
    Service(#[from] ClientError),

    #[error(transparent)]
    Journal(#[from] EventsError),

    #[error("the export stopped unexpectedly: {0}")]
    Task(String),
}

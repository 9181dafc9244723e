//! The report writers' one error type: every variant names the file and what to do about it.

use std::io;
use std::path::PathBuf;

/// A run-level failure of a report. Row problems are never errors: they are the report's content.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(
        "unknown report format `{extension}` for `{path}`: use a path ending in .json, .csv, .html or .xlsx",
        path = path.display()
    )]
    UnknownFormat { path: PathBuf, extension: String },

    #[error(
        "report path `{path}` has no extension: use a path ending in .json, .csv, .html or .xlsx",
        path = path.display()
    )]
    MissingExtension { path: PathBuf },

    #[error("report `{path}` is given twice: give each --report a different path", path = path.display())]
    DuplicatePath { path: PathBuf },

    #[error(
        "cannot create report `{path}`: {source}; check that the folder exists and is writable",
        path = path.display()
    )]
    Create { path: PathBuf, source: io::Error },

    #[error(
        "cannot write report `{path}`: {source}; check the free disk space and run again",
        path = path.display()
    )]
    Write { path: PathBuf, source: io::Error },

    #[error(
        "cannot put report `{path}` in place: {source}; the unfinished copy was removed, run again",
        path = path.display()
    )]
    Finish { path: PathBuf, source: io::Error },
}

impl ReportError {
    /// For `map_err` in the writers, which each know their own target path.
    pub(crate) fn write(path: &std::path::Path) -> impl FnOnce(io::Error) -> ReportError + '_ {
        move |source| ReportError::Write { path: path.to_path_buf(), source }
    }
}

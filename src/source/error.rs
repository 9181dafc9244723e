//! `SourceError`: every way reading rows can fail, each naming the file (and the sheet, row and
//! column when known) and what the person can do about it.

use std::io;

use super::Format;

/// A run-level failure of the source stage. Row-level oddities (ragged rows, error cells) are
/// values on `Record`, not errors.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("`{location}` does not exist: check the path")]
    NotFound { location: String },

    #[error("cannot read `{location}`: {error}")]
    Io { location: String, error: io::Error },

    #[error("`{location}` is empty: export the data again and check that it has rows")]
    Empty { location: String },

    #[error("`{location}` has no rows with data{}: check that you exported the right sheet", sheet_note(.sheet))]
    NoData { location: String, sheet: Option<String> },

    #[error("`{location}` is {found}, not a spreadsheet or CSV: {advice}")]
    NotTabular { location: String, found: &'static str, advice: &'static str },

    #[error(
        "`{location}` is an Excel {version} spreadsheet, a format older than leadsync reads \
         (Excel 97 and later): open it in Excel or LibreOffice and save it as .xlsx, or export \
         the sheet as CSV"
    )]
    OldExcel { location: String, version: &'static str },

    #[error(
        "`{location}` is password-protected: open it in Excel, remove the password \
         (File > Info > Protect Workbook) and save an unprotected copy, or export the sheet as \
         CSV"
    )]
    PasswordProtected { location: String },

    #[error(
        "`{location}` looks like {format} but cannot be read ({detail}): it may be truncated or \
         damaged; open it in Excel or LibreOffice and save it again"
    )]
    Corrupt { location: String, format: Format, detail: String },

    #[error("`{location}` has no sheet `{wanted}`: use one of {}", list(.available))]
    SheetNotFound { location: String, wanted: String, available: Vec<String> },

    #[error(
        "sheet `{sheet}` of `{location}` is a chart, not a table of rows: use one of {}",
        list(.tables)
    )]
    NotATable { location: String, sheet: String, tables: Vec<String> },

    #[error(
        "cannot read sheet `{sheet}` of `{location}`{}: {detail}: the workbook may be damaged; \
         open it in Excel or LibreOffice and save it again", row_note(.row)
    )]
    SheetRead { location: String, sheet: String, row: Option<u64>, detail: String },

    #[error("invalid {option} `{value}` for `{location}`: {advice}")]
    InvalidOption { location: String, option: &'static str, value: String, advice: &'static str },

    #[error(
        "header row {header_row} is past the last row ({last_row}) of `{location}`{}: pick the \
         row that holds the column names", sheet_note(.sheet)
    )]
    HeaderRowMissing { location: String, sheet: Option<String>, header_row: u64, last_row: u64 },

    #[error(
        "header row {header_row} of `{location}`{} is blank: pick the row that holds the column \
         names", sheet_note(.sheet)
    )]
    HeaderRowBlank { location: String, sheet: Option<String>, header_row: u64 },

    #[error(
        "row {row} of `{location}` is longer than {limit_mib} MiB: is this really a CSV? an \
         unclosed quote can swallow the rest of the file; check the quotes near that row"
    )]
    RowTooLong { location: String, row: u64, limit_mib: u64 },

    #[error(
        "row {row} of `{location}` has {columns} columns, more than the {limit} leadsync reads \
         (Excel's own limit, which no setting raises): if the file is not that wide, the \
         delimiter is wrong; pass `--delimiter` or set `delimiter` in the mapping"
    )]
    TooManyColumns { location: String, row: u64, columns: usize, limit: usize },

    #[error("`{location}` is past a limit: {limit}: {advice}")]
    OverLimit { location: String, limit: String, advice: &'static str },

    #[error("cannot read row {row} of `{location}`: {detail}")]
    Csv { location: String, row: u64, detail: String },

    #[error(
        "`{url}` is not a URL this tool can download ({reason}): use an http:// or https:// link"
    )]
    InvalidUrl { url: String, reason: String },

    #[error("downloading `{url}` failed with HTTP {status}: {advice}")]
    Http { url: String, status: u16, advice: &'static str },

    #[error("cannot download `{url}`: {detail}: check the address and the network, then retry")]
    Download { url: String, detail: String },

    #[error(
        "`{url}` is larger than {limit_mib} MiB: download it yourself and pass the file's path"
    )]
    TooLarge { url: String, limit_mib: u64 },
}

impl SourceError {
    /// Maps an I/O error on `location`, giving a missing file its own message.
    pub(crate) fn io(location: &str, error: io::Error) -> SourceError {
        let location = location.to_owned();
        match error.kind() {
            io::ErrorKind::NotFound => SourceError::NotFound { location },
            _ => SourceError::Io { location, error },
        }
    }
}

fn sheet_note(sheet: &Option<String>) -> String {
    sheet.as_ref().map(|s| format!(" (sheet `{s}`)")).unwrap_or_default()
}

fn row_note(row: &Option<u64>) -> String {
    row.map(|r| format!(" at row {r}")).unwrap_or_default()
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "no sheet: the workbook has none".to_owned();
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    quoted.join(", ")
}

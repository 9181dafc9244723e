//! The steps of the flow, one file each, and what the Reading and Mapping steps share: the
//! user's choices of how to read the sheet (the query string of their pages, so a page is an
//! address that can be reloaded or bookmarked) and the sheet opened with them, by the library,
//! exactly as `leadsync import` opens it.

pub(super) mod callable;
pub(super) mod check;
pub(super) mod choices;
pub(super) mod edit;
pub(super) mod fixes;
pub(super) mod live;
pub(super) mod load;
pub(super) mod mapping;
pub(super) mod never;
pub(super) mod reading;
pub(super) mod source;

use serde::Deserialize;

use super::page;
use super::sources::Chosen;
use super::text::Text;
use crate::pipeline::{self, ImportOptions};
use crate::source::{Format, Record, Source, SourceError, SourceOptions};

/// Rows read at most while looking for the preview's rows, blank ones included: a sheet of a
/// million blank rows must not hold a page up.
const MAX_RECORDS_READ: usize = 10_000;
/// Rows above the header are shown when the header is this near the top (a sniffed header
/// always is: the library looks no further than a dozen rows).
const MAX_ROWS_ABOVE: u64 = 30;
/// Blank rows at the top skipped while looking for the first row to read from.
const MAX_BLANK_TOP: u64 = 5;

/// How the user asked for the sheet to be read; empty means "detect it".
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub(super) struct ReadingChoice {
    pub sheet: String,
    pub header_row: String,
    pub delimiter: String,
    pub encoding: String,
}

impl ReadingChoice {
    /// The choices as a query string, for links to the next step and back.
    pub(super) fn query(&self) -> String {
        page::query([
            ("sheet", self.sheet.as_str()),
            ("header_row", self.header_row.trim()),
            ("delimiter", self.delimiter.as_str()),
            ("encoding", self.encoding.trim()),
        ])
    }

    /// The choices a form carried (its fields in order, as `axum::Form` gives them).
    pub(super) fn from_pairs(pairs: &[(String, String)]) -> ReadingChoice {
        ReadingChoice {
            sheet: field(pairs, "sheet"),
            header_row: field(pairs, "header_row"),
            delimiter: field(pairs, "delimiter"),
            encoding: field(pairs, "encoding"),
        }
    }

    /// The choices as form fields, for a form that carries them to the next step.
    pub(super) fn fields(&self) -> [(&'static str, &str); 4] {
        [
            ("sheet", self.sheet.as_str()),
            ("header_row", self.header_row.as_str()),
            ("delimiter", self.delimiter.as_str()),
            ("encoding", self.encoding.as_str()),
        ]
    }

    /// The same choices with another header row.
    pub(super) fn with_header_row(&self, row: u64) -> ReadingChoice {
        ReadingChoice { header_row: row.to_string(), ..self.clone() }
    }

    /// The choices as the import's options: what `--sheet`, `--header-row`, `--delimiter` and
    /// `--encoding` set on the command line.
    pub(super) fn import_options(
        &self,
        chosen: &Chosen,
        t: &Text,
    ) -> Result<ImportOptions, String> {
        let header_row = match self.header_row.trim() {
            "" => None,
            raw => Some(
                raw.parse::<u64>()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| t.header_row_invalid.to_string())?,
            ),
        };
        let delimiter = match self.delimiter.as_str() {
            "" => None,
            raw => Some(crate::mapping::parse_delimiter(raw)?),
        };
        let text = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        Ok(ImportOptions {
            path: chosen.path.clone(),
            location: chosen.location.clone(),
            sheet: text(&self.sheet),
            delimiter,
            encoding: text(&self.encoding),
            header_row,
            ..ImportOptions::default()
        })
    }
}

/// A form field's value, empty when the form did not send it.
pub(super) fn field(pairs: &[(String, String)], name: &str) -> String {
    pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or_default()
}

/// What the library detected, and the first rows under the header.
#[derive(Debug)]
pub(super) struct Preview {
    pub format: Format,
    pub encoding: Option<&'static str>,
    pub delimiter: Option<u8>,
    pub sheet: Option<String>,
    pub sheets: Vec<String>,
    pub header_row: u64,
    pub headers: Vec<String>,
    /// Non-blank rows, in file order.
    pub rows: Vec<Record>,
    /// The non-blank rows above the header (row number and cells), to choose another header.
    pub above: Vec<(u64, Vec<String>)>,
    /// The error that stopped reading before `rows` was full, if any.
    pub stopped: Option<String>,
}

/// What a page needs of the sheet.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wanted {
    /// Non-blank rows under the header.
    pub rows: usize,
    /// The rows above the header too (it costs a second opening of the file).
    pub above: bool,
}

/// Opens the sheet as the pipeline does (`pipeline::source_options`, then
/// `Source::open_named`) on a blocking thread, and reads the rows `wanted`.
pub(super) async fn preview(
    chosen: &Chosen,
    choice: &ReadingChoice,
    wanted: Wanted,
    t: &Text,
) -> Result<Preview, String> {
    let opts = choice.import_options(chosen, t)?;
    let options = pipeline::source_options(&opts, None).map_err(|e| e.to_string())?;
    let read = move || -> Result<Preview, String> {
        let source =
            Source::open_named(&opts.path, &opts.location, &options).map_err(|e| e.to_string())?;
        let mut preview = Preview {
            format: source.format,
            encoding: source.encoding,
            delimiter: source.delimiter,
            sheet: source.sheet.clone(),
            sheets: source.sheets.clone(),
            header_row: source.header_row,
            headers: source.headers.clone(),
            rows: Vec::new(),
            above: match wanted.above {
                true => rows_above(&opts, &options, source.header_row),
                false => Vec::new(),
            },
            stopped: None,
        };
        for record in source.records().take(MAX_RECORDS_READ) {
            match record {
                Ok(record) if record.is_blank() => {}
                Ok(record) => preview.rows.push(record),
                Err(e) => {
                    preview.stopped = Some(e.to_string());
                    break;
                }
            }
            if preview.rows.len() == wanted.rows {
                break;
            }
        }
        Ok(preview)
    };
    tokio::task::spawn_blocking(read).await.map_err(|e| e.to_string())?
}

/// The non-blank rows above the header, read by the library itself: the sheet opened again
/// with its first non-blank row taken as the header row, with the same options.
fn rows_above(
    opts: &ImportOptions,
    options: &SourceOptions,
    header_row: u64,
) -> Vec<(u64, Vec<String>)> {
    if header_row <= 1 || header_row > MAX_ROWS_ABOVE {
        return Vec::new();
    }
    for first in (1..header_row).take(MAX_BLANK_TOP as usize) {
        let from_top = SourceOptions { header_row: Some(first), ..options.clone() };
        let source = match Source::open_named(&opts.path, &opts.location, &from_top) {
            Ok(source) => source,
            // A blank row cannot be a header: try the next one down.
            Err(SourceError::HeaderRowBlank { .. }) => continue,
            Err(_) => return Vec::new(),
        };
        let mut rows = vec![(source.header_row, source.headers.clone())];
        for record in source.records() {
            let Ok(record) = record else { break };
            if record.row >= header_row {
                break;
            }
            if !record.is_blank() {
                rows.push((record.row, record.cells.iter().map(str::to_string).collect()));
            }
        }
        return rows;
    }
    Vec::new()
}

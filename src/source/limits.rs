//! The limits that keep a crafted or damaged workbook from taking the machine down, and the
//! one-line error that names the limit hit and what raises it.
//!
//! calamine allocates from what a file declares and keeps XLS and ODS sheets, and XLSX shared
//! strings, in memory; an allocation failure aborts the process, which no `catch_unwind`
//! catches. So the checks in `zip_scan` and `xls_scan` run *before* calamine sees the file, and
//! every value here is chosen so that a file just under all of them is read within 256 MiB.

use std::fmt;

use super::SourceError;

const MIB: u64 = 1024 * 1024;

/// One cell's text, as for a CSV row: more is a damaged or crafted file.
pub(super) const MAX_CELL_BYTES: u64 = 16 * MIB;
/// One XML tag, comment or text run, which quick-xml buffers whole.
pub(super) const MAX_MARKUP_BYTES: u64 = 16 * MIB;
/// Elements open at once: quick-xml keeps every open element's name, and a real workbook
/// nests a dozen deep.
pub(super) const MAX_DEPTH: u64 = 10_000;
/// One XLSB record, which calamine reads into a buffer of the declared length.
pub(super) const MAX_RECORD_BYTES: u64 = 16 * MIB + 64 * 1024;
/// Parts in a zip workbook: a real one has tens, a huge workbook a few thousand.
pub(super) const MAX_PARTS: usize = 65_536;
/// One part's inflated size: a 1M-row, 8-column sheet is 268 MB of XML.
pub(super) const MAX_PART_BYTES: u64 = 1024 * MIB;
/// All parts together, which bounds the time spent inflating a zip bomb.
pub(super) const MAX_TOTAL_BYTES: u64 = 2048 * MIB;
/// The memory calamine needs for the shared-strings table (XLSX, XLSB, XLS), which it holds
/// while the sheet is read: a 1M-row sheet of 2.1M unique strings needs about 127 MiB.
pub(super) const MAX_SHARED_STRINGS_BYTES: u64 = 200 * MIB;
/// The memory calamine needs to load XLS and ODS sheets, which it reads whole.
pub(super) const MAX_LOADED_BYTES: u64 = 160 * MIB;

/// Styles, relationships, sheets and defined names calamine keeps at open: Excel itself
/// stops at 64,000 cell formats, so a real workbook has far fewer.
pub(super) const MAX_KEPT_ELEMENTS: u64 = 250_000;

/// What calamine's `Vec<String>` costs for one string of `len` bytes: the 24-byte `String`
/// and glibc's chunk for the text (16-byte granules, 32 at least, none for an empty string).
pub(super) fn string_cost(len: u64) -> u64 {
    match len {
        0 => 24,
        _ => 24 + (len + 8).div_ceil(16).max(2) * 16,
    }
}

/// The limit a file went past.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Limit {
    Parts { found: usize },
    PartSize { part: String },
    TotalSize,
    Cell { part: String },
    Markup { part: String },
    Depth { part: String },
    Record { part: String },
    SharedStrings { needed: u64 },
    Elements { found: u64 },
    Loaded { needed: u64 },
}

impl Limit {
    /// The error for `location`, with what raises the limit.
    pub(super) fn error(self, location: &str) -> SourceError {
        let advice = match self {
            Limit::Loaded { .. } => {
                "nothing raises it; save the workbook as .xlsx or export the sheet as CSV, which \
                 leadsync reads as a stream"
            }
            Limit::SharedStrings { .. } | Limit::TotalSize => {
                "nothing raises it; export the sheet as CSV, which leadsync reads as a stream"
            }
            _ => {
                "nothing raises it: the file is damaged or built to exhaust memory; open it in \
                 Excel or LibreOffice and save it again, or export the sheet as CSV"
            }
        };
        SourceError::OverLimit { location: location.to_owned(), limit: self.to_string(), advice }
    }
}

impl std::error::Error for Limit {}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mib = |bytes: u64| bytes / MIB;
        match self {
            Limit::Parts { found } => {
                write!(f, "it has {found} zip parts, more than the {MAX_PARTS} allowed")
            }
            Limit::PartSize { part } => write!(
                f,
                "part `{part}` inflates to more than {} MiB, the limit for one part",
                mib(MAX_PART_BYTES)
            ),
            Limit::TotalSize => write!(
                f,
                "its parts inflate to more than {} MiB in all, the limit for a workbook",
                mib(MAX_TOTAL_BYTES)
            ),
            Limit::Cell { part } => write!(
                f,
                "part `{part}` has a cell of more than {} MiB, the limit for one cell",
                mib(MAX_CELL_BYTES)
            ),
            Limit::Markup { part } => write!(
                f,
                "part `{part}` has an XML tag, comment or text of more than {} MiB, the limit \
                 for one",
                mib(MAX_MARKUP_BYTES)
            ),
            Limit::Depth { part } => {
                write!(f, "part `{part}` nests XML elements more than {MAX_DEPTH} deep, the limit")
            }
            Limit::Record { part } => write!(
                f,
                "part `{part}` declares a record of more than {} MiB, the limit for one",
                mib(MAX_CELL_BYTES)
            ),
            Limit::Elements { found } => write!(
                f,
                "it declares {found} styles, relationships, sheets and names, more than the \
                 {MAX_KEPT_ELEMENTS} allowed"
            ),
            Limit::SharedStrings { needed } => write!(
                f,
                "its shared-strings table needs about {} MiB of memory, more than the {} MiB \
                 allowed",
                mib(*needed),
                mib(MAX_SHARED_STRINGS_BYTES)
            ),
            Limit::Loaded { needed } => write!(
                f,
                "its sheets, which are read whole for this format, need about {} MiB of \
                 memory, more than the {} MiB allowed",
                mib(*needed),
                mib(MAX_LOADED_BYTES)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_costs_its_slot_and_a_glibc_chunk() {
        assert_eq!(string_cost(0), 24);
        assert_eq!(string_cost(1), 24 + 32);
        assert_eq!(string_cost(24), 24 + 32);
        assert_eq!(string_cost(25), 24 + 48);
    }

    #[test]
    fn the_message_names_the_limit_and_what_raises_it() {
        let err = Limit::Cell { part: "xl/sharedStrings.xml".into() }.error("x.xlsx").to_string();
        assert!(err.contains("`x.xlsx`") && err.contains("16 MiB"), "{err}");
        assert!(err.contains("nothing raises it"), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
}

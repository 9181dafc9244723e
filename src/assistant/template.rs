//! The empty workbook `init --assistant ID --template leads.xlsx` writes: one column per
//! variable the assistant uses, after the main and secondary phone columns, as the service
//! dashboard's own sample file has them.
//!
//! The phone columns are formatted as text before anyone types in them: Excel otherwise takes
//! `0151 12345678` for a number, drops the leading zero and shows `+49…` in scientific
//! notation, and the number sent is not the one typed.

use std::path::{Path, PathBuf};

use rust_xlsxwriter::{ColNum, Format, Workbook, XlsxError};

use super::Speaker;

/// The main phone column, named after the service's field; `init` and `import` read it as the
/// lead's number.
pub const PHONE_COLUMN: &str = "phone_number";
/// A second number, sent as a secondary contact of the lead.
pub const SECONDARY_PHONE_COLUMN: &str = "secondary_phone_number";

/// Excel's built-in number format `@`: the cell holds text, as typed.
const TEXT_FORMAT: u8 = 49;

/// The template could not be written.
#[derive(Debug, thiserror::Error)]
#[error("writing the template workbook `{}`", path.display())]
pub struct TemplateError {
    pub path: PathBuf,
    #[source]
    pub source: XlsxError,
}

/// The template's header row: the phone columns, then every variable `speaker` uses, in the
/// order [`Speaker::uses`] names them.
pub fn template_columns(speaker: &Speaker) -> Vec<String> {
    let phones = [PHONE_COLUMN, SECONDARY_PHONE_COLUMN].map(String::from);
    phones.into_iter().chain(speaker.uses().into_iter().map(|u| u.name)).collect()
}

/// Writes the empty template for `speaker` to `path` and returns its header row.
pub fn write_template(speaker: &Speaker, path: &Path) -> Result<Vec<String>, TemplateError> {
    let columns = template_columns(speaker);
    let error = |source| TemplateError { path: path.to_path_buf(), source };
    build(&columns).and_then(|mut book| book.save(path)).map_err(error)?;
    Ok(columns)
}

fn build(columns: &[String]) -> Result<Workbook, XlsxError> {
    let mut workbook = Workbook::new();
    let sheet = workbook.add_worksheet();
    sheet.set_name("Leads")?;
    let bold = Format::new().set_bold();
    // Excel's built-in text format (49, `@`), the one its Format Cells > Text writes.
    let text = Format::new().set_num_format_index(TEXT_FORMAT);
    for (col, name) in columns.iter().enumerate() {
        let col = col as ColNum;
        sheet.write_string_with_format(0, col, name, &bold)?;
        sheet.set_column_width(col, (name.chars().count() + 2).max(14) as f64)?;
    }
    // The phone columns are the first two: every cell below the header is text.
    for col in 0..2 {
        sheet.set_column_format(col, &text)?;
    }
    sheet.set_freeze_panes(1, 0)?;
    Ok(workbook)
}

//! Workbooks through calamine: XLSX, XLSM, XLSB, XLS and ODS. Opens the workbook and chooses
//! the sheet on the caller's thread, so a damaged or protected file fails in `Source::open`;
//! `sheet_rows` then reads the chosen sheet.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use calamine::{
    Cell, Data, DataRef, Ods, Range, Reader, SheetType, SheetVisible, Sheets, Xls, XlsError,
    XlsOptions, Xlsb, Xlsx,
};

use super::cell::Value;
use super::sheet_rows::SheetRows;
use super::zip_guard::{Guard, GuardedFile};
use super::{Format, SheetSelector, SourceError};

pub(super) type Book = Sheets<BufReader<GuardedFile>>;

pub(super) const PANIC_DETAIL: &str = "the reader failed on malformed data";

/// The chosen sheet and its rows.
pub(super) struct SheetSource {
    pub sheet: String,
    /// The 1-based position of the sheet's tab, so two sheets of one name are told apart.
    pub position: usize,
    /// Every sheet of the workbook, in tab order.
    pub names: Vec<String>,
    pub rows: SheetRows,
    /// The sheet's hidden columns and merged cells, known once its first row is read.
    pub layout: SheetLayout,
}

/// What an XLSX sheet says of its shape besides its cells, set by the thread that reads it.
pub(super) type SheetLayout = Arc<OnceLock<Layout>>;

#[derive(Debug, Default)]
pub(super) struct Layout {
    /// Hidden column ranges, 0-based, first and last.
    pub hidden_columns: Vec<(u32, u32)>,
    /// Merged ranges, when the sheet is small enough to look for them (`merged`).
    pub merged: Vec<super::merged::Range>,
    /// Its tables' totals rows (0-based), which the reader skips.
    pub totals_rows: Vec<u32>,
}

/// What the pre-flight found that changes how calamine is driven.
#[derive(Debug, Default)]
pub(super) struct Hints {
    /// An XLSB with formula cells holding errors, which calamine skips (see `xlsb_errors`).
    pub xlsb_formula_errors: bool,
    /// The code page XLS strings are decoded with, instead of the one the file names.
    pub xls_codepage: Option<u16>,
    /// A corrected copy of the workbook for calamine to read instead of the file: an XLS's
    /// formats (`xls_formats`), an XLSX without macro sheets (`macro_sheets`).
    pub copy: Option<File>,
    /// The parts scanned as calamine reads them (`zip_guard`).
    pub guard: Option<Arc<Guard>>,
}

/// Opens the workbook at `path`, picks the sheet and starts reading it.
pub(super) fn open(
    path: &Path,
    location: &str,
    format: Format,
    selector: Option<&SheetSelector>,
    hints: Hints,
    region: Option<&str>,
    extent: std::sync::Arc<super::Extent>,
) -> Result<SheetSource, SourceError> {
    let guard = hints.guard.unwrap_or_default();
    let file = match hints.copy {
        Some(copy) => copy,
        None => File::open(path).map_err(|e| SourceError::io(location, e))?,
    };
    let file = GuardedFile::new(file, guard.clone());
    // A part over a limit fails calamine's read: the refusal says which limit.
    let refused = |error: SourceError| guard.refusal(location).unwrap_or(error);
    let mut book = open_book(path, file, location, format, hints.xls_codepage).map_err(refused)?;
    let (sheet, loaded) = match selector {
        Some(selector) => (resolve(&book, location, selector)?, None),
        None => {
            let formula_errors = hints.xlsb_formula_errors.then_some(path);
            first_sheet_with_data(&mut book, location, formula_errors, (path, &guard))
                .map_err(refused)?
        }
    };
    let names = book.sheet_names();
    let position = names.iter().position(|name| *name == sheet).map_or(0, |i| i + 1);
    let layout = Arc::new(OnceLock::new());
    let read = super::sheet_rows::Read {
        layout: layout.clone(),
        sheet: sheet.clone(),
        loaded,
        formula_errors: hints.xlsb_formula_errors.then(|| path.to_owned()),
        guard,
        path: path.to_owned(),
        marks: super::shown::marks(region),
    };
    let rows = SheetRows::spawn(book, location, read, extent)?;
    Ok(SheetSource { sheet, position, names, rows, layout })
}

fn open_book(
    path: &Path,
    file: GuardedFile,
    location: &str,
    format: Format,
    xls_codepage: Option<u16>,
) -> Result<Book, SourceError> {
    let corrupt =
        |detail: String| SourceError::Corrupt { location: location.to_owned(), format, detail };
    if format == Format::Ods {
        super::ods_guard::check(path).map_err(corrupt)?;
    }
    let reader = BufReader::new(file);
    let opened = super::caught::catch(|| match format {
        Format::Xls => {
            let mut options = XlsOptions::default();
            options.force_codepage = xls_codepage;
            Xls::new_with_options(reader, options).map(Sheets::Xls).map_err(calamine::Error::Xls)
        }
        Format::Xlsb => Xlsb::new(reader).map(Sheets::Xlsb).map_err(calamine::Error::Xlsb),
        Format::Ods => Ods::new(reader).map(Sheets::Ods).map_err(calamine::Error::Ods),
        Format::Xlsx | Format::Xlsm | Format::Csv | Format::Tsv => {
            Xlsx::new(reader).map(Sheets::Xlsx).map_err(calamine::Error::Xlsx)
        }
    });
    match opened {
        Ok(Ok(book)) => Ok(book),
        Ok(Err(calamine::Error::Xls(XlsError::Password))) => {
            Err(SourceError::PasswordProtected { location: location.to_owned() })
        }
        Ok(Err(e)) => Err(corrupt(e.to_string())),
        Err(_) => Err(corrupt(PANIC_DETAIL.to_owned())),
    }
}

/// An exact name first, then the name ignoring case and surrounding spaces, then a number as
/// the 1-based position of the sheet's tab.
fn resolve(book: &Book, location: &str, selector: &SheetSelector) -> Result<String, SourceError> {
    let names = book.sheet_names();
    let by_position = |n: usize| n.checked_sub(1).and_then(|i| names.get(i));
    let found = match selector {
        SheetSelector::Index(n) => by_position(*n),
        SheetSelector::Name(wanted) => names
            .iter()
            .find(|name| *name == wanted)
            .or_else(|| {
                let wanted = wanted.trim().to_lowercase();
                names.iter().find(|name| name.trim().to_lowercase() == wanted)
            })
            .or_else(|| wanted.trim().parse().ok().and_then(by_position)),
    };
    let found = found.cloned().ok_or_else(|| SourceError::SheetNotFound {
        location: location.to_owned(),
        wanted: selector.to_string(),
        available: names.clone(),
    })?;
    // A chart sheet has no cells: naming one is a wrong choice, not a damaged workbook.
    let of_type = |typ: SheetType| book.sheets_metadata().iter().filter(move |s| s.typ == typ);
    if of_type(SheetType::ChartSheet).any(|s| s.name == found) {
        let tables = of_type(SheetType::WorkSheet).map(|s| s.name.clone()).collect();
        return Err(SourceError::NotATable { location: location.to_owned(), sheet: found, tables });
    }
    Ok(found)
}

/// The first worksheet with a non-empty cell, visible sheets before hidden ones. XLS and ODS
/// sheets are loaded to be probed, so the chosen one is handed on instead of loaded twice.
/// `formula_errors` is the path of an XLSB with formula error cells, which calamine skips: a
/// sheet holding only those has data too. An XLSX's sheets are probed by `xlsx` from the
/// workbook's file, a limit one goes past kept by the guard.
fn first_sheet_with_data(
    book: &mut Book,
    location: &str,
    formula_errors: Option<&Path>,
    workbook: (&Path, &Guard),
) -> Result<(String, Option<Range<Data>>), SourceError> {
    let sheets = book.sheets_metadata().to_vec();
    let worksheets = sheets.iter().filter(|s| s.typ == SheetType::WorkSheet);
    let (visible, hidden): (Vec<_>, Vec<_>) =
        worksheets.partition(|s| s.visible == SheetVisible::Visible);
    for sheet in visible.into_iter().chain(hidden) {
        let probed = super::caught::catch(|| probe(book, &sheet.name, formula_errors, workbook));
        let read_error = |detail: String| SourceError::SheetRead {
            location: location.to_owned(),
            sheet: sheet.name.clone(),
            row: None,
            detail,
        };
        match probed {
            Ok(Ok(Probe::Empty)) => continue,
            Ok(Ok(Probe::Data(loaded))) => return Ok((sheet.name.clone(), loaded)),
            Ok(Err(detail)) => return Err(read_error(detail)),
            Err(_) => return Err(read_error(PANIC_DETAIL.to_owned())),
        }
    }
    Err(SourceError::NoData { location: location.to_owned(), sheet: None })
}

enum Probe {
    Empty,
    Data(Option<Range<Data>>),
}

fn probe(
    book: &mut Book,
    name: &str,
    formula_errors: Option<&Path>,
    (path, guard): (&Path, &Guard),
) -> Result<Probe, String> {
    let has_data = match book {
        Sheets::Xlsx(wb) => xlsx_has_value(path, name, wb.has_1904_epoch(), guard)?,
        Sheets::Xlsb(wb) => {
            let mut cells = wb.worksheet_cells_reader(name).map_err(|e| e.to_string())?;
            first_value(|| cells.next_cell().map_err(|e| e.to_string()))?
                || formula_errors.is_some_and(|path| super::xlsb_errors::any_in(path, name))
        }
        Sheets::Xls(_) | Sheets::Ods(_) => {
            let range = book.worksheet_range(name).map_err(|e| e.to_string())?;
            let has_data = range.used_cells().next().is_some();
            return Ok(if has_data { Probe::Data(Some(range)) } else { Probe::Empty });
        }
    };
    Ok(if has_data { Probe::Data(None) } else { Probe::Empty })
}

fn xlsx_has_value(path: &Path, sheet: &str, is_1904: bool, guard: &Guard) -> Result<bool, String> {
    let mut found = false;
    let cell = |_, _, value: &Value<'_>, _| {
        found = !matches!(value, Value::Empty);
        !found
    };
    let marks = ssfmt::FormatOptions::default();
    match super::xlsx::read_sheet(path, sheet, is_1904, &marks, |_, _, _| {}, cell) {
        Ok(()) => Ok(found),
        Err(failure) => Err(guard.keep(failure).1),
    }
}

fn first_value<'a>(
    mut next: impl FnMut() -> Result<Option<Cell<DataRef<'a>>>, String>,
) -> Result<bool, String> {
    while let Some(cell) = next()? {
        if !matches!(cell.get_value(), DataRef::Empty) {
            return Ok(true);
        }
    }
    Ok(false)
}

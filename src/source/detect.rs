//! What a file really is, decided from its bytes: a zip (XLSX, XLSM, XLSB, ODS), an OLE
//! compound file (XLS or an encrypted OOXML workbook), text (CSV/TSV), or something else that
//! deserves a clear refusal. The extension is only a tie-breaker for damaged files, because
//! people rename files and web apps export HTML as `.xls`.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::{Format, SourceError, cfb};

/// What the first bytes say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Zip,
    Ole,
    Text,
}

const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
const ZIP_EMPTY_MAGIC: &[u8] = b"PK\x05\x06";
const OLE_MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// Classifies `prefix`, refusing well-known non-tabular files with advice.
pub(super) fn kind(location: &str, prefix: &[u8]) -> Result<Kind, SourceError> {
    if prefix.starts_with(ZIP_MAGIC) || prefix.starts_with(ZIP_EMPTY_MAGIC) {
        return Ok(Kind::Zip);
    }
    if prefix.starts_with(OLE_MAGIC) {
        return Ok(Kind::Ole);
    }
    if let Some(version) = old_excel(prefix) {
        return Err(SourceError::OldExcel { location: location.to_owned(), version });
    }
    match foreign(prefix) {
        Some((found, advice)) => {
            Err(SourceError::NotTabular { location: location.to_owned(), found, advice })
        }
        None => Ok(Kind::Text),
    }
}

/// Excel 2.x to 4.0 wrote a bare BIFF stream, not an OLE file: it opens with a BOF record
/// (0x0009, 0x0209 or 0x0409) of 4 to 16 bytes whose sheet type is one Excel writes.
fn old_excel(prefix: &[u8]) -> Option<&'static str> {
    let [0x09, version, len, 0x00, data @ ..] = prefix else { return None };
    let version = match version {
        0x00 => "2.x",
        0x02 => "3.0",
        0x04 => "4.0",
        _ => return None,
    };
    let sheet_type = u16::from_le_bytes([*data.get(2)?, *data.get(3)?]);
    let known = matches!(sheet_type, 0x0010 | 0x0020 | 0x0040 | 0x0100);
    ((4..=16).contains(len) && known).then_some(version)
}

const EXPORT_AGAIN: &str = "export the data as .xlsx or .csv";

/// Recognises files that are neither spreadsheets nor text tables.
fn foreign(prefix: &[u8]) -> Option<(&'static str, &'static str)> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"%PDF", "a PDF document"),
        (b"\x89PNG", "a PNG image"),
        (b"\xFF\xD8\xFF", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"\x1F\x8B", "a gzip archive"),
        (b"Rar!", "a RAR archive"),
        (b"7z\xBC\xAF", "a 7-Zip archive"),
        (b"{\\rtf", "an RTF document"),
        (b"SQLite format 3\0", "an SQLite database"),
        (b"\x7FELF", "a program"),
        (b"MZ", "a program"),
    ];
    if let Some((_, found)) = MAGIC.iter().find(|(magic, _)| prefix.starts_with(magic)) {
        return Some((found, EXPORT_AGAIN));
    }
    let head = ascii_lowercase_head(prefix);
    if head.contains("urn:schemas-microsoft-com:office:spreadsheet") {
        return Some(("an Excel 2003 XML spreadsheet", "open it in Excel and save it as .xlsx"));
    }
    if head.starts_with("<!doctype html") || head.starts_with("<html") || head.contains("<table") {
        return Some((
            "an HTML page",
            "if it came from a link, the link may need a login; otherwise open it in Excel and \
             save it as .xlsx",
        ));
    }
    None
}

/// The first 1 KiB, without a UTF-8 BOM and leading whitespace, lowercased.
fn ascii_lowercase_head(prefix: &[u8]) -> String {
    let head = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let head = &head[..head.len().min(1024)];
    String::from_utf8_lossy(head).trim_start().to_ascii_lowercase()
}

/// Names the workbook inside a zip by its entries.
pub(super) fn zip_format(path: &Path, location: &str) -> Result<Format, SourceError> {
    let file = File::open(path).map_err(|e| SourceError::io(location, e))?;
    let mut zip = match zip::ZipArchive::new(BufReader::new(file)) {
        Ok(zip) => zip,
        Err(e) => {
            return Err(SourceError::Corrupt {
                location: location.to_owned(),
                format: format_from_extension(path),
                detail: format!("damaged zip container: {e}"),
            });
        }
    };
    let has = |zip: &zip::ZipArchive<_>, name: &str| zip.index_for_name(name).is_some();
    if has(&zip, "xl/workbook.bin") {
        return Ok(Format::Xlsb);
    }
    // The workbook part is where the package's relationships say: `xl/workbook.xml` for
    // every writer but a few, which Excel opens all the same.
    let elsewhere = || super::xlsx::workbook_part(path).is_ok_and(|p| p.ends_with(".xml"));
    if has(&zip, "xl/workbook.xml") || elsewhere() {
        let types = small_entry(&mut zip, "[Content_Types].xml");
        let macro_enabled = types.contains("macroEnabled") || has(&zip, "xl/vbaProject.bin");
        return Ok(if macro_enabled { Format::Xlsm } else { Format::Xlsx });
    }
    let mimetype = small_entry(&mut zip, "mimetype");
    if mimetype.contains("opendocument.spreadsheet") {
        return Ok(Format::Ods);
    }
    let (found, advice) = if has(&zip, "word/document.xml") {
        ("a Word document", EXPORT_AGAIN)
    } else if has(&zip, "ppt/presentation.xml") {
        ("a PowerPoint presentation", EXPORT_AGAIN)
    } else if mimetype.contains("opendocument") {
        ("an OpenDocument file that is not a spreadsheet", EXPORT_AGAIN)
    } else {
        ("a zip archive", "unzip it and pass the spreadsheet or CSV inside")
    };
    Err(SourceError::NotTabular { location: location.to_owned(), found, advice })
}

/// Reads a small text entry (up to 64 KiB), or "" when it is missing or unreadable.
fn small_entry<R: Read + Seek>(zip: &mut zip::ZipArchive<R>, name: &str) -> String {
    let mut text = String::new();
    if let Ok(entry) = zip.by_name(name) {
        let _ = entry.take(64 * 1024).read_to_string(&mut text);
    }
    text
}

/// Names the content of an OLE compound file by its streams.
pub(super) fn ole_format(path: &Path, location: &str) -> Result<Format, SourceError> {
    let mut file = File::open(path).map_err(|e| SourceError::io(location, e))?;
    file.seek(SeekFrom::Start(0)).map_err(|e| SourceError::io(location, e))?;
    let names = cfb::stream_names(&mut file).unwrap_or_default();
    let has = |wanted: &str| names.iter().any(|n| n.eq_ignore_ascii_case(wanted));
    if has("EncryptedPackage") || has("EncryptionInfo") {
        return Err(SourceError::PasswordProtected { location: location.to_owned() });
    }
    if has("Workbook") || has("Book") || names.is_empty() {
        // An unreadable directory is left to calamine, which reports the damage precisely.
        return Ok(Format::Xls);
    }
    let found = if has("WordDocument") {
        "a Word document"
    } else if has("PowerPoint Document") {
        "a PowerPoint presentation"
    } else {
        "an OLE compound file without a workbook"
    };
    Err(SourceError::NotTabular { location: location.to_owned(), found, advice: EXPORT_AGAIN })
}

/// The format a damaged file most likely had, from its extension.
fn format_from_extension(path: &Path) -> Format {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    match ext.as_str() {
        "xlsm" => Format::Xlsm,
        "xlsb" => Format::Xlsb,
        "ods" => Format::Ods,
        _ => Format::Xlsx,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_and_pdf_are_refused_with_advice() {
        let err = kind("x.xls", b"<!DOCTYPE html><html><table>").unwrap_err();
        assert!(err.to_string().contains("an HTML page"), "{err}");
        let err = kind("x.csv", b"%PDF-1.7\n").unwrap_err();
        assert!(err.to_string().contains("a PDF document"), "{err}");
    }

    #[test]
    fn excel_2_to_4_files_are_named_as_such() {
        let biff2 = b"\x09\x00\x04\x00\x02\x00\x10\x00\x0A\x00\x00\x00";
        let err = kind("old.xls", biff2).unwrap_err().to_string();
        assert!(err.contains("is an Excel 2.x spreadsheet"), "{err}");
        assert!(err.contains("save it as .xlsx"), "{err}");
        let biff4_workbook = b"\x09\x04\x06\x00\x00\x00\x00\x01\x00\x00";
        assert!(kind("b.xlw", biff4_workbook).unwrap_err().to_string().contains("Excel 4.0"));
        assert_eq!(kind("x", b"\x09\x00\x04\x00Name").unwrap(), Kind::Text);
    }

    #[test]
    fn magic_bytes_pick_the_container() {
        assert_eq!(kind("x", b"PK\x03\x04rest").unwrap(), Kind::Zip);
        assert_eq!(kind("x", OLE_MAGIC).unwrap(), Kind::Ole);
        assert_eq!(kind("x", b"Name,Phone\n").unwrap(), Kind::Text);
    }
}

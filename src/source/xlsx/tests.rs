//! The reader against calamine's cell reader: every cell of every sheet must read the same.
//! Small crafted workbooks here; any folder of real ones with `LEADSYNC_XLSX_CORPUS=DIR`
//! (calamine's own test files are a good one: `tests/*.xlsx` of its repository).

use std::fs::File;
use std::io::{BufReader, Cursor, Write};
use std::path::{Path, PathBuf};

use calamine::{Dimensions, Reader, Xlsx};

use super::super::cell;
use super::{MAX_MERGED_RANGES, merged_ranges, read_sheet};

/// (row, column, text) of each non-empty cell, or the error.
type Read = Result<Vec<(u32, u32, String)>, String>;

fn by_calamine(path: &Path, sheet: &str) -> Read {
    let mut book: Xlsx<_> =
        Xlsx::new(BufReader::new(File::open(path).unwrap())).map_err(|e| e.to_string())?;
    let mut cells = book.worksheet_cells_reader(sheet).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(c) = cells.next_cell().map_err(|e| e.to_string())? {
        let mut text = String::new();
        if cell::write(&cell::Value::from(c.get_value()), &mut text) {
            out.push((c.get_position().0, c.get_position().1, text));
        }
    }
    Ok(out)
}

fn by_leadsync(path: &Path, sheet: &str, is_1904: bool) -> Read {
    let mut out = Vec::new();
    read_sheet(
        path,
        sheet,
        is_1904,
        &ssfmt::FormatOptions::default(),
        |_, _, _| {},
        |r, c, value, _| {
            let mut text = String::new();
            // calamine, the reference, has the stored number.
            let value = match value {
                cell::Value::Shown { stored, .. } => &cell::Value::Float(*stored),
                value => value,
            };
            if cell::write(value, &mut text) {
                out.push((r, c, text));
            }
            true
        },
    )
    .map_err(|e| format!("{e:?}"))?;
    Ok(out)
}

/// The sheets of `path` both readers read alike, and the differences between them, as lines.
fn differences(path: &Path) -> (usize, Vec<String>) {
    let Ok(book) = Xlsx::new(BufReader::new(File::open(path).unwrap())) else {
        return (0, vec![]);
    };
    let book: Xlsx<_> = book;
    let is_1904 = book.has_1904_epoch();
    let (mut alike, mut found) = (0, Vec::new());
    for sheet in book.sheet_names() {
        let (theirs, ours) = (by_calamine(path, &sheet), by_leadsync(path, &sheet, is_1904));
        match (theirs, ours) {
            (Ok(theirs), Ok(ours)) if theirs == ours => alike += 1,
            (Ok(theirs), Ok(ours)) => {
                let first = theirs.iter().zip(&ours).find(|(a, b)| a != b);
                found.push(format!(
                    "{} [{sheet}]: {} cells vs {}; first difference {first:?}",
                    path.display(),
                    theirs.len(),
                    ours.len()
                ));
            }
            // Both refuse: the messages may differ.
            (Err(_), Err(_)) => {}
            (Ok(_), Err(e)) => {
                found.push(format!("{} [{sheet}]: only leadsync fails: {e}", path.display()))
            }
            // Where calamine fails on a sheet, reading it is better.
            (Err(_), Ok(_)) => {}
        }
    }
    (alike, found)
}

/// A workbook of one sheet `Leads` with these parts' bodies.
fn workbook(dir: &Path, sheet: &str, shared: Option<&str>, styles: Option<&str>) -> PathBuf {
    let path = dir.join("book.xlsx");
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    let mut parts = vec![
        ("_rels/.rels", r#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="/xl/workbook.xml"/></Relationships>"#.to_owned()),
        ("xl/_rels/workbook.xml.rels", r#"<Relationships><Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/Sheet1.xml"/></Relationships>"#.to_owned()),
        ("xl/workbook.xml", r#"<workbook xmlns:r="r"><sheets><sheet name="Leads &amp; more" sheetId="1" r:id="rId7"/></sheets></workbook>"#.to_owned()),
        ("xl/worksheets/sheet1.xml", sheet.to_owned()),
    ];
    if let Some(shared) = shared {
        parts.push(("xl/sharedStrings.xml", shared.to_owned()));
    }
    if let Some(styles) = styles {
        parts.push(("xl/styles.xml", styles.to_owned()));
    }
    for (name, body) in parts {
        zip.start_file(name, options).unwrap();
        zip.write_all(body.as_bytes()).unwrap();
    }
    std::fs::write(&path, zip.finish().unwrap().into_inner()).unwrap();
    path
}

#[test]
fn crafted_cells_read_as_calamine_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let shared = r#"<?xml version="1.0"?><sst uniqueCount="4"><si><t>Müller &amp; Söhne</t></si>
        <si><r><t>Rich</t></r><r><rPr/><t xml:space="preserve"> text </t></r><rPh><t>フリ</t></rPh></si>
        <si/><si><t>  trimmed_x000D_
        </t></si></sst>"#;
    let styles = r#"<styleSheet><numFmts count="2"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/>
        <numFmt numFmtId="165" formatCode="[h]:mm"/></numFmts>
        <cellStyleXfs><xf numFmtId="14"/></cellStyleXfs>
        <cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"><alignment/></xf><xf numFmtId="14"/></cellXfs></styleSheet>"#;
    let sheet = r#"<x:worksheet xmlns:x="main"><x:dimension ref="B2:H9"/><x:sheetData>
        <x:row r="2"><x:c r="B2" t="s"><x:v>0</x:v></x:c><x:c r="C2" t="s"><x:v>1</x:v></x:c>
          <x:c r="D2" t="s"><x:v>2</x:v></x:c><x:c r="E2" t="s"><x:v>3</x:v></x:c></x:row>
        <x:row r="3"><x:c s="1"><x:v>45352</x:v></x:c><x:c s="2"><x:v>1.5</x:v></x:c>
          <x:c s="3"><x:v>45352.4375</x:v></x:c><x:c><x:v>4915112345678</x:v></x:c><x:c s="9"><x:v>0.1</x:v></x:c></x:row>
        <row r="5" spans="1:3"><c r="B5" t="b"><v>1</v></c><c r="C5" t="e"><f>1/0</f><v>#DIV/0!</v></c>
          <c r="D5" t="str"><f>A1</f><v>a &lt; b_x000A_c</v></c><c r="E5" t="inlineStr"><is><t><![CDATA[<cdata>]]></t></is></c>
          <c r="F5" t="inlineStr"/><c r="G5" t="d"><v>2024-03-01T00:00:00</v></c><c r="H5"><v>not a number</v></c></row>
        <!-- a comment <row> -->
        <row><c><v>7</v></c><c t="n"><v></v></c><c><v>8</v></c></row>
        <row r="9"/><row><c><v>10</v></c></row>
        <row r="12"><c r="A12" t="e"><v/></c><c r="B12" t="e"><v></v></c>
          <c r="C12" t="e"><v><!-- c -->#N/A</v></c><c r="D12"><v>&amp;1</v></c><c r="E12" t="d"><v/></c></row>
        </x:sheetData><mergeCells/></x:worksheet>"#;
    let path = workbook(dir.path(), sheet, Some(shared), Some(styles));
    let ours = by_leadsync(&path, "Leads & more", false).unwrap();
    assert_eq!(ours, by_calamine(&path, "Leads & more").unwrap());
    let text =
        |row, column| ours.iter().find(|c| (c.0, c.1) == (row, column)).map(|c| c.2.as_str());
    assert_eq!(text(1, 1), Some("Müller & Söhne"));
    assert_eq!(text(1, 2), Some("Rich text "));
    assert_eq!(text(1, 4), Some("trimmed\r"));
    assert_eq!(text(2, 0), Some("2024-03-01"));
    assert_eq!(text(2, 1), Some("36:00:00"));
    assert_eq!(text(2, 2), Some("2024-03-01T10:30:00"));
    assert_eq!(text(2, 3), Some("4915112345678"));
    assert_eq!(text(4, 3), Some("a < b\nc"));
    assert_eq!(text(4, 4), Some("<cdata>"));
    assert_eq!(text(4, 7), Some("not a number"));
    assert_eq!(text(5, 0), Some("7"), "a row without r follows the one before");
    assert_eq!(text(9, 0), Some("10"), "an empty <row/> counts");
}

#[test]
fn damaged_sheets_are_errors_with_their_row() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            r#"<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>3</v></c></row></sheetData></worksheet>"#,
            "shared string",
        ),
        (
            r#"<worksheet><sheetData><row r="1"><c r="A1" t="q"><v>3</v></c></row></sheetData></worksheet>"#,
            "cell type",
        ),
        (
            r#"<worksheet><sheetData><row r="1"><c r="1A"><v>3</v></c></row></sheetData></worksheet>"#,
            "reference",
        ),
        (
            r#"<worksheet><sheetData><row r="1"><c r="A1"><v>3</v></c></row><row r="2"><c r="A2""#,
            "ends",
        ),
    ];
    for (sheet, says) in cases {
        let path = workbook(dir.path(), sheet, None, None);
        let mut rows = 0;
        let error = read_sheet(
            &path,
            "Leads & more",
            false,
            &ssfmt::FormatOptions::default(),
            |_, _, _| {},
            |_, _, _, _| {
                rows += 1;
                true
            },
        )
        .unwrap_err();
        let super::Failure::Read { row, detail } = error else { panic!("{error:?}") };
        assert!(detail.contains(says), "{sheet}: {detail}");
        assert!(row.is_some(), "names the row: {detail}");
    }
}

/// Every XLSX and XLSM in `folders` compared: how many sheets both readers read, and the
/// differences.
fn compare(folders: &[PathBuf]) -> (usize, Vec<String>) {
    let (mut sheets, mut found) = (0, Vec::new());
    for folder in folders {
        for entry in std::fs::read_dir(folder).unwrap().flatten() {
            let path = entry.path();
            let workbook = |e: &std::ffi::OsStr| {
                e.eq_ignore_ascii_case("xlsx") || e.eq_ignore_ascii_case("xlsm")
            };
            if path.extension().is_some_and(workbook) {
                let (read, differ) = differences(&path);
                sheets += read;
                found.extend(differ);
            }
        }
    }
    (sheets, found)
}

#[test]
fn the_corpus_reads_as_calamine_reads_it() {
    // The workbooks of this repository, or any folder.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let folders = match std::env::var("LEADSYNC_XLSX_CORPUS") {
        Ok(dir) => vec![PathBuf::from(dir)],
        Err(_) => vec![root.join("tests/fixtures"), root.join("samples")],
    };
    let (sheets, found) = compare(&folders);
    eprintln!("{sheets} sheets read alike by leadsync and calamine");
    assert!(sheets > 0, "no sheet both readers read in {folders:?}");
    assert!(found.is_empty(), "{} sheets differ:\n{}", found.len(), found.join("\n"));
}

/// Merged ranges are read from a sheet up to the size bound, and at most
/// `MAX_MERGED_RANGES` of them, whatever a damaged sheet lists; a bigger sheet is not read
/// for them at all.
#[test]
fn merged_ranges_are_bounded_in_size_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut sheet = String::from(r#"<worksheet><sheetData/><mergeCells>"#);
    for _ in 0..MAX_MERGED_RANGES + 5 {
        sheet.push_str(r#"<mergeCell ref="A1:B1"/>"#);
    }
    sheet.push_str(r#"<mergeCell ref="damaged"/></mergeCells></worksheet>"#);
    let path = workbook(dir.path(), &sheet, None, None);
    let found = merged_ranges(&path, "Leads & more", 16 << 20).unwrap().unwrap();
    assert_eq!(found.len(), MAX_MERGED_RANGES);
    assert_eq!(found[0], Dimensions { start: (0, 0), end: (0, 1) });
    assert_eq!(merged_ranges(&path, "Leads & more", 1024).unwrap(), None, "past the bound");
}

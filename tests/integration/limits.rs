//! Crafted and damaged workbooks end in exit 1 and one line naming the file and the limit (or
//! the damage), never an abort or unbounded memory. The files are small versions of
//! `scripts/crafted.py`'s; that script measures time and memory, these only the outcome.

use std::io::Write;
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;

use crate::support::Cli;

/// Runs a dry import and returns its one error line, checking there is exactly one.
fn refused(path: &Path) -> String {
    let file = path.to_str().unwrap();
    let (_, stderr) = Cli::new()
        .args(["import", file, "--dry-run", "--offline", "-q", "--campaign", "1"])
        .expect_code(1);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line expected:\n{stderr}");
    assert!(lines[0].contains(&format!("`{file}`")), "names the file: {stderr}");
    lines[0].to_owned()
}

fn zip_file(dir: &Path, name: &str, parts: &[(&str, Vec<u8>)]) -> PathBuf {
    let path = dir.join(name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    for (part, bytes) in parts {
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(bytes.len() > u32::MAX as usize);
        zip.start_file(*part, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
    path
}

/// A one-sheet XLSX with these shared strings (also used by the UI's tests).
pub(crate) fn xlsx(dir: &Path, name: &str, shared_strings: Vec<u8>) -> PathBuf {
    let rels = r#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;
    let wb_rels = r#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#;
    let workbook = r#"<workbook xmlns:r="r"><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
    let sheet = r#"<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>"#;
    zip_file(
        dir,
        name,
        &[
            ("_rels/.rels", rels.into()),
            ("xl/workbook.xml", workbook.into()),
            ("xl/_rels/workbook.xml.rels", wb_rels.into()),
            ("xl/worksheets/sheet1.xml", sheet.into()),
            ("xl/sharedStrings.xml", shared_strings),
        ],
    )
}

fn ods(dir: &Path, name: &str, rows: &str) -> PathBuf {
    let content = format!(
        "<office:document-content><office:body><office:spreadsheet>\
         <table:table table:name=\"Leads\">{rows}</table:table>\
         </office:spreadsheet></office:body></office:document-content>"
    );
    zip_file(
        dir,
        name,
        &[
            ("mimetype", b"application/vnd.oasis.opendocument.spreadsheet".to_vec()),
            ("content.xml", content.into_bytes()),
        ],
    )
}

#[test]
fn an_xlsx_cell_past_16_mib_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // 17 runs of 1 MiB: each is fine alone, calamine joins them into one 17 MiB value.
    let run = [vec![b'a'; 1024 * 1024], b"<!---->".to_vec()].concat();
    let strings = [&b"<sst><si><t>"[..], &run.repeat(17), b"</t></si></sst>"].concat();
    let line = refused(&xlsx(dir.path(), "cell.xlsx", strings));
    assert!(
        line.contains("a cell of more than 16 MiB") && line.contains("nothing raises it"),
        "{line}"
    );
}

#[test]
fn a_declared_shared_string_count_is_checked_before_calamine_reserves_it() {
    let dir = tempfile::tempdir().unwrap();
    let strings = br#"<sst uniqueCount="10000000000"><si><t>Name</t></si></sst>"#.to_vec();
    let line = refused(&xlsx(dir.path(), "count.xlsx", strings));
    assert!(line.contains("shared-strings table") && line.contains("200 MiB"), "{line}");
}

/// A one-sheet XLSX with this worksheet, deflated or stored, and the officeDocument at `book`.
fn xlsx_sheet(dir: &Path, name: &str, book: &str, sheet: Vec<u8>, stored: bool) -> PathBuf {
    let rels = format!(
        r#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="{book}"/></Relationships>"#
    );
    let wb_rels = r#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#;
    let workbook = r#"<workbook xmlns:r="r"><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
    let path = dir.join(name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let method =
        if stored { zip::CompressionMethod::Stored } else { zip::CompressionMethod::Deflated };
    // The workbook's relationships sit beside whatever part the package names as the workbook.
    let (folder, file) = book.rsplit_once('/').unwrap();
    let book_rels = format!("{folder}/_rels/{file}.rels");
    let mut parts = vec![
        ("_rels/.rels".to_owned(), rels.into_bytes()),
        ("xl/workbook.xml".to_owned(), workbook.into()),
        ("xl/_rels/workbook.xml.rels".to_owned(), wb_rels.into()),
        ("xl/worksheets/sheet1.xml".to_owned(), sheet),
    ];
    if book_rels != "xl/_rels/workbook.xml.rels" {
        parts.insert(1, (book_rels, wb_rels.into()));
    }
    for (part, bytes) in parts {
        zip.start_file(part, SimpleFileOptions::default().compression_method(method)).unwrap();
        zip.write_all(&bytes).unwrap();
    }
    zip.finish().unwrap();
    path
}

/// Rows of valid leads, then `tail` (markup inside `<sheetData>`).
fn sheet_with(rows: usize, tail: &[u8]) -> Vec<u8> {
    let mut sheet = b"<worksheet><sheetData>".to_vec();
    sheet.extend_from_slice(
        br#"<row r="1"><c r="A1" t="inlineStr"><is><t>Phone</t></is></c></row>"#,
    );
    for r in 2..rows + 2 {
        let row = format!(
            r#"<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>+49 30 {}</t></is></c></row>"#,
            1_000_000 + r
        );
        sheet.extend_from_slice(row.as_bytes());
    }
    sheet.extend_from_slice(tail);
    sheet.extend_from_slice(b"</sheetData></worksheet>");
    sheet
}

#[test]
fn a_worksheet_is_held_to_the_limits_as_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    // Deep in the sheet, past the probe for data: a cell of 17 runs of 1 MiB, split by comments.
    let run = [vec![b'a'; 1024 * 1024], b"<!---->".to_vec()].concat();
    let cell =
        [&b"<row><c t=\"inlineStr\"><is><t>"[..], &run.repeat(17), b"</t></is></c></row>"].concat();
    for stored in [false, true] {
        let path = xlsx_sheet(
            base,
            &format!("cell{stored}.xlsx"),
            "xl/workbook.xml",
            sheet_with(20_000, &cell),
            stored,
        );
        let line = refused(&path);
        assert!(
            line.contains("part `xl/worksheets/sheet1.xml` has a cell of more than 16 MiB"),
            "{line}"
        );
    }

    let tag = [&b"<row r=\"2\" x=\""[..], &vec![b'a'; 17 * 1024 * 1024], b"\"/>"].concat();
    let line =
        refused(&xlsx_sheet(base, "tag.xlsx", "xl/workbook.xml", sheet_with(0, &tag), false));
    assert!(line.contains("an XML tag, comment or text of more than 16 MiB"), "{line}");

    // The same tag before any value: refused while the first sheet with data is looked for.
    let first = [&b"<worksheet><sheetData>"[..], &tag, b"</sheetData></worksheet>"].concat();
    let line = refused(&xlsx_sheet(base, "first.xlsx", "xl/workbook.xml", first, false));
    assert!(line.contains("an XML tag, comment or text of more than 16 MiB"), "{line}");

    let deep = ["<x>".repeat(10_001), "</x>".repeat(10_001)].concat();
    let sheet = sheet_with(10, deep.as_bytes());
    let line = refused(&xlsx_sheet(base, "deep.xlsx", "xl/workbook.xml", sheet, false));
    assert!(line.contains("nests XML elements more than 10000 deep"), "{line}");

    // The same sheet without the tail is read, rows and all.
    let path = xlsx_sheet(base, "ok.xlsx", "xl/workbook.xml", sheet_with(20_000, b""), false);
    let file = path.to_str().unwrap();
    Cli::new().args(["import", file, "--dry-run", "--offline", "-q", "--campaign", "1"]).ok();
}

#[test]
fn a_worksheet_read_as_the_workbook_counts_what_calamine_keeps() {
    let dir = tempfile::tempdir().unwrap();
    // The package points calamine's workbook at the worksheet's part, which is scanned as it
    // is read: 300,000 sheet entries are refused as they come, not kept.
    let sheets: String =
        (0..300_000).map(|i| format!(r#"<sheet name="s{i}" r:id="rId1"/>"#)).collect();
    let book = format!(r#"<workbook xmlns:r="r"><sheets>{sheets}</sheets></workbook>"#);
    let path =
        xlsx_sheet(dir.path(), "book.xlsx", "xl/worksheets/sheet1.xml", book.into_bytes(), false);
    let line = refused(&path);
    assert!(line.contains("styles, relationships, sheets and names"), "{line}");
}

#[test]
fn ods_spaces_and_repeats_are_counted_before_calamine_writes_them_out() {
    let dir = tempfile::tempdir().unwrap();
    let spaces = r#"<table:table-row><table:table-cell office:value-type="string"><text:p><text:s text:c="2000000000"/></text:p></table:table-cell></table:table-row>"#;
    let line = refused(&ods(dir.path(), "spaces.ods", spaces));
    assert!(line.contains("part `content.xml` has a cell of more than 16 MiB"), "{line}");

    let repeats = r#"<table:table-row table:number-rows-repeated="100000"><table:table-cell table:number-columns-repeated="1000" office:value-type="float" office:value="1"/></table:table-row>"#;
    let line = refused(&ods(dir.path(), "repeats.ods", repeats));
    assert!(line.contains("read whole") && line.contains(".xlsx"), "{line}");
}

#[test]
fn a_damaged_ods_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = ods(dir.path(), "cut.ods", &"<table:table-row/>".repeat(10_000));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let line = refused(&path);
    assert!(line.contains("cannot be read") && line.contains("save it again"), "{line}");
}

// XLS: a BIFF8 workbook stream inside a compound file of 512-byte sectors.

fn biff(typ: u16, data: &[u8]) -> Vec<u8> {
    let mut out = typ.to_le_bytes().to_vec();
    out.extend((data.len() as u16).to_le_bytes());
    out.extend(data);
    out
}

fn number(row: u16, col: u16) -> Vec<u8> {
    let mut data = [row.to_le_bytes(), col.to_le_bytes(), [0, 0]].concat();
    data.extend(1f64.to_le_bytes());
    biff(0x0203, &data)
}

fn label(row: u16, col: u16, text: &str) -> Vec<u8> {
    let head = [row.to_le_bytes(), col.to_le_bytes(), [0, 0], (text.len() as u16).to_le_bytes()];
    biff(0x0204, &[&head.concat()[..], &[0], text.as_bytes()].concat())
}

fn workbook_stream(cells: &[Vec<u8>]) -> Vec<u8> {
    let bof = |dt: u16| {
        biff(0x0809, &[&0x0600u16.to_le_bytes()[..], &dt.to_le_bytes(), &[0; 12]].concat())
    };
    let bound_sheet =
        |pos: u32| biff(0x0085, &[&pos.to_le_bytes()[..], &[0, 0, 5, 0], b"Leads"].concat());
    let globals_len = (bof(5).len() + bound_sheet(0).len() + 4) as u32;
    let mut stream = [bof(5), bound_sheet(globals_len), biff(0x000A, &[]), bof(0x10)].concat();
    stream.extend(cells.concat());
    stream.extend(biff(0x000A, &[]));
    stream
}

/// A compound file holding `stream` as `Workbook`; `looping` points its last sector back
/// at its first and declares 4 GiB, as damaged files do.
fn xls(dir: &Path, name: &str, mut stream: Vec<u8>, looping: bool) -> PathBuf {
    const END: u32 = 0xFFFF_FFFE;
    stream.resize(stream.len().max(4096).next_multiple_of(512), 0);
    let n = (stream.len() / 512) as u32;
    let mut fat: Vec<u32> = (1..n).collect();
    fat.extend([if looping { 0 } else { END }, END, 0xFFFF_FFFD]);
    fat.resize(128, 0xFFFF_FFFF);
    let mut header = vec![0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
    header.resize(24, 0);
    for v in [0x3Eu16, 3, 0xFFFE, 9, 6] {
        header.extend(v.to_le_bytes());
    }
    header.resize(44, 0);
    for v in [1u32, n, 0, 4096, END, 0, END, 0, n + 1] {
        header.extend(v.to_le_bytes());
    }
    header.resize(512, 0xFF);
    let entry = |name: &str, typ: u8, child: u32, start: u32, size: u64| {
        let mut e: Vec<u8> = name.encode_utf16().chain([0]).flat_map(u16::to_le_bytes).collect();
        let len = e.len() as u16;
        e.resize(64, 0);
        e.extend(len.to_le_bytes());
        e.extend([typ, 1]);
        for v in [u32::MAX, u32::MAX, child] {
            e.extend(v.to_le_bytes());
        }
        e.resize(116, 0);
        e.extend(start.to_le_bytes());
        e.extend(size.to_le_bytes());
        e
    };
    let size = if looping { u64::from(u32::MAX) } else { stream.len() as u64 };
    let mut directory =
        [entry("Root Entry", 5, 1, END, 0), entry("Workbook", 2, u32::MAX, 0, size)].concat();
    directory.resize(512, 0);
    let fat_bytes: Vec<u8> = fat.iter().flat_map(|v| v.to_le_bytes()).collect();
    let path = dir.join(name);
    std::fs::write(&path, [header, stream, directory, fat_bytes].concat()).unwrap();
    path
}

#[test]
fn xls_cells_far_apart_are_refused_before_calamine_loads_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let cells = [label(0, 0, "Name"), label(0, 1, "Phone"), label(1, 0, "Anna")];
    let mut cells = cells.to_vec();
    cells.push(label(1, 1, "+49 30 1234567"));
    let valid = xls(dir.path(), "ok.xls", workbook_stream(&cells), false);
    let file = valid.to_str().unwrap();
    Cli::new().args(["import", file, "--dry-run", "--offline", "-q", "--campaign", "1"]).ok();

    let far = workbook_stream(&[number(0, 0), number(65_535, 255)]);
    let line = refused(&xls(dir.path(), "far.xls", far, false));
    assert!(line.contains("read whole") && line.contains("512 MiB"), "{line}");
}

#[test]
fn a_looping_xls_sector_chain_is_damage_not_an_endless_copy() {
    let dir = tempfile::tempdir().unwrap();
    let stream = workbook_stream(&[number(0, 0), number(1, 0)]);
    let line = refused(&xls(dir.path(), "loop.xls", stream, true));
    assert!(line.contains("a sector chain loops back on itself"), "{line}");
}

//! Reading fidelity on small workbooks each test writes for itself, by editing the fixtures in
//! `tests/fixtures` byte by byte: what a person sees in Excel must be what leadsync reads.

use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

use super::{CellError, Source, SourceError, SourceOptions};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// Writes `bytes` to `name` in a fresh temporary folder, kept alive by the returned guard.
fn write_temp(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::File::create(&path).unwrap().write_all(bytes).unwrap();
    (dir, path)
}

/// The zip fixture `name` with the part `part` passed through `edit`.
fn zip_with(name: &str, part: &str, edit: impl Fn(Vec<u8>) -> Vec<u8>) -> Vec<u8> {
    zip_with_path(&fixture(name), part, edit)
}

/// The zip at `path` with the part `part` passed through `edit`.
fn zip_with_path(path: &Path, part: &str, edit: impl Fn(Vec<u8>) -> Vec<u8>) -> Vec<u8> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let entry_name = entry.name().unwrap().into_owned();
        let mut content = Vec::new();
        entry.read_to_end(&mut content).unwrap();
        let content = if entry_name == part { edit(content) } else { content };
        out.start_file(entry_name, options).unwrap();
        out.write_all(&content).unwrap();
    }
    out.finish().unwrap().into_inner()
}

fn open(path: &Path) -> Result<Source, SourceError> {
    Source::open(path, &SourceOptions::default())
}

// ------------------------------------------------------------------- XLSB formula errors

/// One XLSB record with a type below 0x80 or a two-byte one, and a length below 0x80.
fn xlsb_record(typ: u16, data: &[u8]) -> Vec<u8> {
    let mut out = match typ {
        0..0x80 => vec![typ as u8],
        _ => vec![(typ & 0x7F) as u8 | 0x80, (typ >> 7) as u8],
    };
    assert!(data.len() < 0x80);
    out.push(data.len() as u8);
    out.extend(data);
    out
}

/// A `BrtFmlaError` at `col` with the error `code` and an empty formula.
fn fmla_error(col: u32, code: u8) -> Vec<u8> {
    let mut data = col.to_le_bytes().to_vec();
    data.extend([0, 0, 0, 0, code, 0, 0]);
    data.extend([0; 8]);
    xlsb_record(0x000B, &data)
}

/// Inserts `extra` records before `BrtEndSheetData` of an XLSB sheet part.
fn before_end_of_sheet_data(part: Vec<u8>, extra: &[u8]) -> Vec<u8> {
    let mut at = 0;
    loop {
        let start = at;
        let mut typ = u16::from(part[at] & 0x7F);
        if part[at] & 0x80 != 0 {
            at += 1;
            typ |= u16::from(part[at] & 0x7F) << 7;
        }
        at += 1;
        let (mut len, mut shift) = (0usize, 0);
        loop {
            let b = part[at];
            at += 1;
            len |= usize::from(b & 0x7F) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        if typ == 0x0092 {
            let mut out = part[..start].to_vec();
            out.extend(extra);
            out.extend(&part[start..]);
            return out;
        }
        at += len;
    }
}

/// Drops the cell records (types 0x0001 to 0x000B) of an XLSB sheet part.
fn without_cells(part: Vec<u8>) -> Vec<u8> {
    let (mut out, mut at) = (Vec::new(), 0);
    while at < part.len() {
        let start = at;
        let mut typ = u16::from(part[at] & 0x7F);
        if part[at] & 0x80 != 0 {
            at += 1;
            typ |= u16::from(part[at] & 0x7F) << 7;
        }
        at += 1;
        let (mut len, mut shift) = (0usize, 0);
        loop {
            let b = part[at];
            at += 1;
            len |= usize::from(b & 0x7F) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        at += len;
        if !(0x0001..=0x000B).contains(&typ) {
            out.extend(&part[start..at]);
        }
    }
    out
}

#[test]
fn a_first_sheet_of_only_formula_errors_is_not_taken_for_empty() {
    let mut extra = fmla_error(0, 0x17);
    extra.extend(fmla_error(1, 0x2A));
    let book = zip_with("leads.xlsb", "xl/worksheets/sheet1.bin", |part| {
        before_end_of_sheet_data(without_cells(part), &extra)
    });
    let (_dir, path) = write_temp("only_errors.xlsb", &book);
    let source = open(&path).unwrap();
    assert_eq!(source.sheet.as_deref(), Some("Export"));
    assert_eq!(source.headers, ["#REF!", "#N/A"]);
}

#[test]
fn xlsb_formula_cells_holding_an_error_keep_their_row() {
    let mut row = 8u32.to_le_bytes().to_vec();
    row.extend([0; 13]);
    let mut extra = xlsb_record(0x0000, &row);
    extra.extend(fmla_error(0, 0x17));
    extra.extend(fmla_error(1, 0x0F));
    let book = zip_with("leads.xlsb", "xl/worksheets/sheet1.bin", |part| {
        before_end_of_sheet_data(part, &extra)
    });
    let (_dir, path) = write_temp("errors.xlsb", &book);
    let source = open(&path).unwrap();
    assert_eq!(source.header_row, 3);
    let records: Vec<_> = source.records().map(Result::unwrap).collect();
    let last = records.last().unwrap();
    assert_eq!(last.row, 9, "the row of formula errors is read: {records:?}");
    assert_eq!(&last.cells.iter().take(3).collect::<Vec<_>>(), &["#REF!", "#VALUE!", ""]);
    let errors = vec![
        CellError { column: 0, value: "#REF!".to_owned() },
        CellError { column: 1, value: "#VALUE!".to_owned() },
    ];
    assert_eq!(last.cell_errors, errors);
    assert_eq!(records.len(), 4);
}

// ------------------------------------------------------------------- XLS, byte by byte

/// `leads.xls` with each BIFF record of its workbook stream passed through `edit` (type, data):
/// the stream sits whole after the compound file's header in this small file.
fn xls_with(edit: impl Fn(u16, &mut Vec<u8>) -> u16) -> Vec<u8> {
    let mut bytes = std::fs::read(fixture("leads.xls")).unwrap();
    let (mut at, mut eofs) = (512, 0);
    while eofs < 3 {
        let typ = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let len = usize::from(u16::from_le_bytes([bytes[at + 2], bytes[at + 3]]));
        let mut data = bytes[at + 4..at + 4 + len].to_vec();
        let new_typ = edit(typ, &mut data);
        assert_eq!(data.len(), len, "an edit keeps the record's length");
        bytes[at..at + 2].copy_from_slice(&new_typ.to_le_bytes());
        bytes[at + 4..at + 4 + len].copy_from_slice(&data);
        eofs += usize::from(typ == 0x000A);
        at += 4 + len;
    }
    bytes
}

/// Formula cells of the Excel 3/4 record type (`0x0406`) in a later workbook, as some old
/// exporters write them: calamine dropped each such cell without a word.
#[test]
fn xls_formula_cells_of_the_excel_4_type_keep_their_value() {
    let rows = |path: &Path| -> Vec<Vec<String>> {
        let source = open(path).unwrap();
        source.records().map(|r| r.unwrap().cells.iter().map(str::to_owned).collect()).collect()
    };
    let retyped = std::cell::Cell::new(0);
    let book = xls_with(|typ, _| match typ {
        0x0006 => {
            retyped.set(retyped.get() + 1);
            0x0406
        }
        typ => typ,
    });
    assert!(retyped.get() > 0, "the fixture has formula cells");
    let (_dir, path) = write_temp("old_formulas.xls", &book);
    assert_eq!(rows(&path), rows(&fixture("leads.xls")));
}

#[test]
fn a_password_protected_xls_is_called_protected_not_too_big() {
    // Window1 becomes FilePass (RC4); the records after it are ciphertext, except BOF records
    // and a BoundSheet's stream position, which MS-XLS keeps plain.
    let encrypted = std::cell::Cell::new(false);
    // A keystream (xorshift) stands in for RC4's: any bytes that look random will do.
    let key = std::cell::Cell::new(0x2545_F491_4F6C_DD1Du64);
    let book = xls_with(|typ, data| {
        if encrypted.get() && typ != 0x0809 {
            let plain = if typ == 0x0085 { 4 } else { 0 };
            for b in data.iter_mut().skip(plain) {
                let mut k = key.get();
                k ^= k << 13;
                k ^= k >> 7;
                k ^= k << 17;
                key.set(k);
                *b ^= k as u8;
            }
            if typ == 0x0200 {
                // Ciphertext that reads as a Dimensions of a million rows by 255 columns, the
                // way the corpus's files were sized at 18944320231 MiB.
                data.copy_from_slice(&[0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0xFF, 0, 0, 0]);
            }
            return typ;
        }
        if typ == 0x003D {
            encrypted.set(true);
            data.iter_mut().for_each(|b| *b = 0);
            data[0] = 1;
            return 0x002F;
        }
        typ
    });
    let (_dir, path) = write_temp("password_2002.xls", &book);
    let err = open(&path).unwrap_err().to_string();
    assert!(err.contains("is password-protected"), "{err}");
    assert!(
        err.contains("remove the password") && err.contains("export the sheet as CSV"),
        "{err}"
    );
}

#[test]
fn an_excel_4_file_is_called_a_spreadsheet_too_old_not_binary() {
    // BOF (BIFF4, a worksheet), a LABEL "Name" in A1, EOF.
    let mut book = vec![0x09, 0x04, 0x06, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00];
    book.extend([0x04, 0x02, 0x0C, 0x00, 0, 0, 0, 0, 0x0F, 0x00, 0x04, 0x00]);
    book.extend(b"Name");
    book.extend([0x0A, 0x00, 0x00, 0x00]);
    let (_dir, path) = write_temp("excel4.xls", &book);
    let err = open(&path).unwrap_err().to_string();
    assert!(
        err.contains("is an Excel 4.0 spreadsheet, a format older than leadsync reads"),
        "{err}"
    );
}

/// `leads.xls` naming code page `page` in its CodePage record (xlwt writes 1200).
fn xls_with_codepage(page: u16) -> Vec<u8> {
    xls_with(|typ, data| {
        if typ == 0x0042 {
            data.copy_from_slice(&page.to_le_bytes());
        }
        typ
    })
}

#[test]
fn biff8_text_reads_as_unicode_whatever_code_page_the_file_names() {
    for page in [1252, 8001] {
        let (_dir, path) = write_temp("codepage.xls", &xls_with_codepage(page));
        let source = open(&path).unwrap_or_else(|e| panic!("code page {page}: {e}"));
        assert_eq!(source.headers[0], "Name", "code page {page}");
        let first = source.records().next().unwrap().unwrap();
        assert_eq!(&first.cells[0], "Jürgen Müller", "code page {page}");
    }
}

/// One BIFF record.
fn biff(typ: u16, data: &[u8]) -> Vec<u8> {
    let mut out = typ.to_le_bytes().to_vec();
    out.extend((data.len() as u16).to_le_bytes());
    out.extend(data);
    out
}

/// A compound file holding `stream` as `name`, in 512-byte sectors: the FAT in sector 0, the
/// directory in sector 1, the stream from sector 2 (padded to 4096 bytes so it is not a mini
/// stream; nothing reads past its last EOF record).
fn compound_file(name: &str, mut stream: Vec<u8>) -> Vec<u8> {
    stream.resize(stream.len().max(4096).next_multiple_of(512), 0);
    let sectors = (stream.len() / 512) as u32;
    assert!(sectors + 2 <= 128, "one FAT sector");
    let mut header = vec![0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
    header.extend([0; 16]);
    header.extend([0x3E, 0, 3, 0, 0xFE, 0xFF, 9, 0, 6, 0]);
    header.extend([0; 6]);
    for value in [0u32, 1, 1, 0, 4096, 0xFFFF_FFFE, 0, 0xFFFF_FFFE, 0, 0] {
        header.extend(value.to_le_bytes());
    }
    header.truncate(76);
    header.extend(0u32.to_le_bytes());
    header.resize(512, 0xFF);
    let mut fat: Vec<u32> = vec![0xFFFF_FFFD, 0xFFFF_FFFE];
    fat.extend((3..sectors + 2).chain([0xFFFF_FFFE]));
    fat.resize(128, 0xFFFF_FFFF);
    let entry = |name: &str, typ: u8, child: u32, start: u32, size: u32| {
        let mut e = vec![0u8; 128];
        let units: Vec<u8> = name.encode_utf16().chain([0]).flat_map(u16::to_le_bytes).collect();
        e[..units.len()].copy_from_slice(&units);
        e[64..66].copy_from_slice(&(units.len() as u16).to_le_bytes());
        (e[66], e[67]) = (typ, 1);
        e[68..76].copy_from_slice(&[0xFF; 8]);
        e[76..80].copy_from_slice(&child.to_le_bytes());
        e[116..120].copy_from_slice(&start.to_le_bytes());
        e[120..124].copy_from_slice(&size.to_le_bytes());
        e
    };
    let mut file = header;
    file.extend(fat.iter().flat_map(|v| v.to_le_bytes()));
    file.extend(entry("Root Entry", 5, 1, 0xFFFF_FFFE, 0));
    file.extend(entry(name, 2, 0xFFFF_FFFF, 2, stream.len() as u32));
    file.extend([0u8; 256]);
    file.extend(stream);
    file
}

/// An Excel 5/95 (BIFF5) workbook of one sheet `Leads` naming code page `codepage`, with the
/// number formats `formats` (id, string), a cell style per format after the 16 default ones,
/// and `cells` (records of the sheet).
fn excel95(codepage: u16, formats: &[(u16, &[u8])], cells: &[Vec<u8>]) -> Vec<u8> {
    let xf = |ifmt: u16| {
        let mut data = vec![0, 0];
        data.extend(ifmt.to_le_bytes());
        data.extend([0; 12]);
        biff(0x00E0, &data)
    };
    let mut globals = biff(0x0809, &[0x00, 0x05, 0x05, 0x00, 0, 0, 0, 0]);
    globals.extend(biff(0x0042, &codepage.to_le_bytes()));
    for (ifmt, text) in formats {
        // A BIFF5 format string has an 8-bit length.
        let mut data = ifmt.to_le_bytes().to_vec();
        data.push(text.len() as u8);
        data.extend(*text);
        globals.extend(biff(0x041E, &data));
    }
    globals.extend((0..16).flat_map(|_| xf(0)));
    globals.extend(formats.iter().flat_map(|(ifmt, _)| xf(*ifmt)));
    let sheet_name = b"Leads";
    let sheet_at = globals.len() + (4 + 4 + 3 + sheet_name.len()) + 4;
    let mut bound = (sheet_at as u32).to_le_bytes().to_vec();
    bound.extend([0, 0, sheet_name.len() as u8]);
    bound.extend(sheet_name);
    globals.extend(biff(0x0085, &bound));
    globals.extend(biff(0x000A, &[]));
    assert_eq!(globals.len(), sheet_at);
    let mut stream = globals;
    stream.extend(biff(0x0809, &[0x00, 0x05, 0x10, 0x00, 0, 0, 0, 0]));
    stream.extend(cells.concat());
    stream.extend(biff(0x000A, &[]));
    compound_file("Book", stream)
}

/// A BIFF5 LABEL: a string with a 16-bit length, in the workbook's code page.
fn label(row: u16, col: u16, text: &[u8]) -> Vec<u8> {
    let mut data = [row, col, 0].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    data.extend((text.len() as u16).to_le_bytes());
    data.extend(text);
    biff(0x0204, &data)
}

fn number(row: u16, col: u16, xf: u16, value: f64) -> Vec<u8> {
    let mut data = [row, col, xf].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    data.extend(value.to_le_bytes());
    biff(0x0203, &data)
}

#[test]
fn an_excel_95_format_with_colours_and_conditions_is_not_a_date() {
    let formats: [(u16, &[u8]); 2] =
        [(164, b"[Red][<-25]General;[Blue][>25]General"), (165, b"dd/mm/yyyy")];
    let cells = [
        label(0, 0, b"Name"),
        label(0, 1, b"Score"),
        label(0, 2, b"Signed up"),
        label(1, 0, b"Anna"),
        number(1, 1, 16, 50.0),
        number(1, 2, 17, 45352.0),
    ];
    let (_dir, path) = write_temp("excel95.xls", &excel95(1252, &formats, &cells));
    let source = open(&path).unwrap();
    assert_eq!(source.headers, ["Name", "Score", "Signed up"]);
    let row = source.records().next().unwrap().unwrap();
    assert_eq!(row.cells.iter().collect::<Vec<_>>(), ["Anna", "50", "2024-03-01"]);
}

#[test]
fn an_unknown_code_page_in_an_excel_95_file_reads_as_windows_1252_with_a_note() {
    let cells = [label(0, 0, b"Name"), label(0, 1, b"Phone"), label(1, 0, b"J\xFCrgen")];
    let (_dir, path) = write_temp("quattro.xls", &excel95(8001, &[], &cells));
    let source = open(&path).unwrap();
    assert!(source.notes[0].contains("code page 8001"), "{:?}", source.notes);
    let row = source.records().next().unwrap().unwrap();
    assert_eq!(&row.cells[0], "Jürgen");
}

// ------------------------------------------------------------------- XLSX dimension

/// A writer's `<dimension ref="B1:C3">` over data that starts in column A: the dimension is a
/// hint, and column A is read.
#[test]
fn cells_outside_an_xlsx_dimension_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let made = dir.path().join("made.xlsx");
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    for (r, row) in [["Name", "Telefon", "Ort"], ["Anna", "+49 151 1", "Köln"]].iter().enumerate()
    {
        for (c, text) in row.iter().enumerate() {
            sheet.write_string(r as u32, c as u16, *text).unwrap();
        }
    }
    book.save(&made).unwrap();
    let narrow = |xml: Vec<u8>| {
        let xml = String::from_utf8(xml).unwrap();
        let start = xml.find("<dimension ref=\"").unwrap() + "<dimension ref=\"".len();
        let end = start + xml[start..].find('"').unwrap();
        format!("{}B1:C2{}", &xml[..start], &xml[end..]).into_bytes()
    };
    let bytes = zip_with_path(&made, "xl/worksheets/sheet1.xml", narrow);
    let (_dir, path) = write_temp("narrow.xlsx", &bytes);
    let source = open(&path).unwrap();
    assert_eq!(source.headers, ["Name", "Telefon", "Ort"]);
    let rows: Vec<_> = source.records().map(|r| r.unwrap().cells).collect();
    assert_eq!(rows[0], vec!["Anna", "+49 151 1", "Köln"]);
}

// ------------------------------------------------------------------- workbooks Excel opens

/// The zip at `path` with each entry passed through `edit` (which may rename it) and the
/// `extra` parts added.
fn repack(
    path: &Path,
    edit: impl Fn(&str, String) -> (String, String),
    extra: &[(&str, &str)],
) -> Vec<u8> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let name = entry.name().unwrap().into_owned();
        let mut content = String::new();
        entry.read_to_string(&mut content).unwrap();
        let (name, content) = edit(&name, content);
        out.start_file(name, options).unwrap();
        out.write_all(content.as_bytes()).unwrap();
    }
    for (name, content) in extra {
        out.start_file(*name, options).unwrap();
        out.write_all(content.as_bytes()).unwrap();
    }
    out.finish().unwrap().into_inner()
}

/// A workbook as rust_xlsxwriter writes it: one sheet `Leads` with a header and a lead.
fn leads_workbook(dir: &Path) -> PathBuf {
    let path = dir.join("leads.xlsx");
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet().set_name("Leads").unwrap();
    for (r, row) in [["Name", "Telefon"], ["Anna", "+49 151 10000001"]].iter().enumerate() {
        for (c, text) in row.iter().enumerate() {
            sheet.write_string(r as u32, c as u16, *text).unwrap();
        }
    }
    book.save(&path).unwrap();
    path
}

/// `leads_workbook` with a second sheet `Extra` of relationship type `kind` (its last path
/// segment), held in `part` with the root element `body`.
fn with_extra_sheet(dir: &Path, kind: &str, part: &str, body: &str) -> PathBuf {
    let base = leads_workbook(dir);
    let rel = match kind {
        "xlMacrosheet" => format!("http://schemas.microsoft.com/office/2006/relationships/{kind}"),
        _ => format!("http://schemas.openxmlformats.org/officeDocument/2006/relationships/{kind}"),
    };
    let edit = |name: &str, xml: String| {
        let xml = match name {
            "xl/workbook.xml" => xml
                .replace("</sheets>", r#"<sheet name="Extra" sheetId="9" r:id="rId99"/></sheets>"#),
            "xl/_rels/workbook.xml.rels" => xml.replace(
                "</Relationships>",
                &format!(
                    r#"<Relationship Id="rId99" Type="{rel}" Target="{part}"/></Relationships>"#
                ),
            ),
            _ => xml,
        };
        (name.to_owned(), xml)
    };
    let bytes = repack(&base, edit, &[(&format!("xl/{part}"), body)]);
    let path = dir.join(format!("with_{kind}.xlsx"));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn first_cells(source: Source) -> Vec<String> {
    let record = source.records().next().unwrap().unwrap();
    record.cells.iter().map(str::to_owned).collect()
}

/// calamine refused the whole workbook for an Excel 4 macro sheet ("Unrecognized
/// sheet:type"); a dialog sheet is passed over too.
#[test]
fn workbooks_with_macro_and_dialog_sheets_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let macro_sheet = r#"<xm:macrosheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main"><sheetData/></xm:macrosheet>"#;
    let dialog = r#"<dialogsheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetPr/></dialogsheet>"#;
    for (kind, part, body) in [
        ("xlMacrosheet", "macrosheets/sheet2.xml", macro_sheet),
        ("dialogsheet", "dialogsheets/sheet2.xml", dialog),
    ] {
        let path = with_extra_sheet(dir.path(), kind, part, body);
        let source = open(&path).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(source.sheet.as_deref(), Some("Leads"), "{kind}");
        assert_eq!(first_cells(source), ["Anna", "+49 151 10000001"], "{kind}");
    }
}

/// Naming a chart sheet said the workbook was damaged.
#[test]
fn a_chart_sheet_is_named_as_a_chart_not_a_damaged_workbook() {
    let dir = tempfile::tempdir().unwrap();
    let chart = r#"<chartsheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetPr/></chartsheet>"#;
    let path = with_extra_sheet(dir.path(), "chartsheet", "chartsheets/sheet2.xml", chart);
    assert_eq!(first_cells(open(&path).unwrap()), ["Anna", "+49 151 10000001"]);
    let opts = SourceOptions { sheet: Some("Extra".parse().unwrap()), ..Default::default() };
    let error = Source::open(&path, &opts).err().unwrap();
    assert!(matches!(error, SourceError::NotATable { .. }), "{error}");
    assert!(error.to_string().contains("is a chart, not a table of rows: use one of `Leads`"));
}

/// A package whose workbook part is not at `xl/workbook.xml` was "a zip archive, not a
/// spreadsheet"; the package's relationships say where it is.
#[test]
fn a_workbook_part_elsewhere_is_found_through_the_package_relationships() {
    let dir = tempfile::tempdir().unwrap();
    let base = leads_workbook(dir.path());
    let edit = |name: &str, xml: String| match name {
        "xl/workbook.xml" => ("xl/main.xml".to_owned(), xml),
        "xl/_rels/workbook.xml.rels" => ("xl/_rels/main.xml.rels".to_owned(), xml),
        "_rels/.rels" | "[Content_Types].xml" => {
            (name.to_owned(), xml.replace("xl/workbook.xml", "xl/main.xml"))
        }
        _ => (name.to_owned(), xml),
    };
    let (_dir, path) = write_temp("moved.xlsx", &repack(&base, edit, &[]));
    assert_eq!(first_cells(open(&path).unwrap()), ["Anna", "+49 151 10000001"]);
}

//! Every fixture in `tests/fixtures` (written by `make_fixtures.py`) through
//! `Source::open(..).records()`, with exact cells and row numbers.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{CellError, Format, Record, SheetSelector, Source, SourceError, SourceOptions};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn open_with(name: &str, opts: &SourceOptions) -> Source {
    Source::open(&fixture(name), opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn open(name: &str) -> Source {
    open_with(name, &SourceOptions::default())
}

fn error(name: &str, opts: &SourceOptions) -> SourceError {
    match Source::open(&fixture(name), opts) {
        Ok(source) => panic!("{name} opened: {source:?}"),
        Err(e) => e,
    }
}

fn records(source: Source) -> Vec<Record> {
    source.records().map(|r| r.unwrap()).collect()
}

/// (row, cells) of every record.
fn rows(source: Source) -> Vec<(u64, Vec<String>)> {
    records(source)
        .into_iter()
        .map(|r| (r.row, r.cells.iter().map(str::to_owned).collect()))
        .collect()
}

fn row(n: u64, cells: &[&str]) -> (u64, Vec<String>) {
    (n, cells.iter().map(|c| c.to_string()).collect())
}

fn sheet(name: &str) -> SourceOptions {
    SourceOptions { sheet: Some(name.parse().unwrap()), ..SourceOptions::default() }
}

// ------------------------------------------------------------------------- workbooks

const WORKBOOKS: [(&str, Format); 5] = [
    ("leads.xlsx", Format::Xlsx),
    ("leads.xlsm", Format::Xlsm),
    ("leads.xlsb", Format::Xlsb),
    ("leads.xls", Format::Xls),
    ("leads.ods", Format::Ods),
];

fn export_rows() -> Vec<(u64, Vec<String>)> {
    vec![
        row(4, &["Jürgen Müller", "4915112345678", "2024-03-01", "10023", "20046", "#N/A", "TRUE"]),
        row(
            5,
            &[
                "Chloé Lefèvre",
                "+33 6 12 34 56 78",
                "2024-03-01T10:30:00",
                "3.5",
                "7",
                "ok",
                "FALSE",
            ],
        ),
        row(7, &["Giulia Rossi", "+39 02 1234 5678", "2023-12-24", "0.3", "0.6", "", "TRUE"]),
    ]
}

#[test]
fn every_workbook_format_reads_the_same_rows() {
    for (name, format) in WORKBOOKS {
        let source = open(name);
        assert_eq!(source.format, format, "{name}");
        assert_eq!(source.sheet.as_deref(), Some("Export"), "{name}");
        assert_eq!(
            source.headers,
            ["Name", "Phone", "Signed up", "Score", "Double score", "Status", "Active"],
            "{name}"
        );
        assert_eq!(source.header_row, 3, "{name}: the title row is skipped");
        assert_eq!((source.encoding, source.delimiter), (None, None), "{name}");
        let records = records(source);
        let got: Vec<_> =
            records.iter().map(|r| (r.row, r.cells.iter().map(str::to_owned).collect())).collect();
        assert_eq!(got, export_rows(), "{name}");
        let error = CellError { column: 5, value: "#N/A".to_owned() };
        assert_eq!(records[0].cell_errors, vec![error], "{name}");
        assert!(records[1].cell_errors.is_empty(), "{name}");
    }
}

#[test]
fn the_second_sheet_by_name_case_or_position() {
    for (name, _) in WORKBOOKS {
        for selector in ["Leads", "leads", " LEADS ", "2"] {
            let source = open_with(name, &sheet(selector));
            assert_eq!(source.sheet.as_deref(), Some("Leads"), "{name} {selector}");
            assert_eq!(source.headers, ["Name", "Phone"]);
            assert_eq!(source.header_row, 1);
            assert_eq!(
                rows(source),
                vec![
                    row(2, &["Anna Schmidt", "4930123456"]),
                    row(3, &["Ben Keller", "+41 44 668 18 00"]),
                ],
                "{name} {selector}"
            );
        }
        let by_index =
            SourceOptions { sheet: Some(SheetSelector::Index(2)), ..SourceOptions::default() };
        assert_eq!(open_with(name, &by_index).sheet.as_deref(), Some("Leads"));
    }
}

#[test]
fn an_unknown_sheet_lists_the_sheets() {
    let err = error("leads.xlsx", &sheet("Kunden"));
    assert!(matches!(err, SourceError::SheetNotFound { .. }), "{err}");
    let message = err.to_string();
    assert!(message.contains("no sheet `Kunden`"), "{message}");
    assert!(message.contains("`Export`, `Leads`"), "{message}");
    let err = error("leads.ods", &sheet("3"));
    assert!(matches!(err, SourceError::SheetNotFound { .. }), "{err}");
}

#[test]
fn header_row_option_overrides_the_sniffing() {
    let at = |n| SourceOptions { header_row: Some(n), ..SourceOptions::default() };
    let source = open_with("leads.xlsx", &at(3));
    assert_eq!(source.header_row, 3);
    assert_eq!(rows(source), export_rows());
    let source = open_with("leads.xls", &at(1));
    assert_eq!(source.headers, ["Leads export March 2024"]);
    assert_eq!(rows(source)[0].0, 3);
    let err = error("leads.xlsx", &at(2));
    assert!(matches!(err, SourceError::HeaderRowBlank { header_row: 2, .. }), "{err}");
    let err = error("leads.xlsb", &at(99));
    assert!(
        matches!(err, SourceError::HeaderRowMissing { header_row: 99, last_row: 7, .. }),
        "{err}"
    );
    let err = error("utf8.csv", &at(0));
    assert!(matches!(err, SourceError::InvalidOption { .. }), "{err}");
}

#[test]
fn a_workbook_named_csv_is_read_as_a_workbook() {
    let source = open("xlsx_named.csv");
    assert_eq!(source.format, Format::Xlsx);
    assert_eq!(rows(source), export_rows());
}

/// Excel opens a workbook encrypted with its default key (`VelvetSweatshop`) without asking;
/// so does leadsync, from a decrypted copy it removes when the rows are read.
#[test]
fn a_workbook_encrypted_with_excel_s_default_key_is_read() {
    let source = open("default_key.xlsx");
    assert_eq!(source.format, Format::Xlsx);
    assert!(source.location.ends_with("default_key.xlsx"), "{}", source.location);
    let copy = source.decrypted.as_ref().map(|p| p.to_path_buf()).unwrap();
    assert!(copy.exists());
    assert_eq!(rows(source), export_rows());
    assert!(!copy.exists(), "the decrypted copy is gone with the rows");
}

#[test]
fn protected_damaged_and_foreign_files_are_refused_with_advice() {
    let none = SourceOptions::default();
    let err = error("encrypted.xlsx", &none);
    assert!(matches!(err, SourceError::PasswordProtected { .. }), "{err}");
    assert!(err.to_string().contains("save an unprotected copy"), "{err}");
    let err = error("truncated.xlsx", &none);
    assert!(matches!(err, SourceError::Corrupt { format: Format::Xlsx, .. }), "{err}");
    assert!(err.to_string().contains("truncated or damaged"), "{err}");
    let err = error("report.xls", &none);
    assert!(err.to_string().contains("is an HTML page"), "{err}");
    let err = error("binary.csv", &none);
    assert!(err.to_string().contains("is a binary file"), "{err}");
    let err = error("empty.csv", &none);
    assert!(matches!(err, SourceError::Empty { .. }), "{err}");
    assert!(err.to_string().contains("is empty"), "{err}");
    let err = error("blank_only.csv", &none);
    assert!(matches!(err, SourceError::NoData { .. }), "{err}");
    let err = error("no_such_file.csv", &none);
    assert!(matches!(err, SourceError::NotFound { .. }), "{err}");
}

// ------------------------------------------------------------------------- text files

#[test]
fn utf8_csv_with_quotes_newlines_ragged_rows_and_blank_lines() {
    let source = open("utf8.csv");
    assert_eq!(source.format, Format::Csv);
    assert_eq!(source.encoding, Some("UTF-8"));
    assert_eq!(source.delimiter, Some(b','));
    assert_eq!(source.headers, ["Name", "Phone", "City", "Notes"]);
    assert_eq!(source.header_row, 1);
    let records = records(source);
    let got: Vec<_> =
        records.iter().map(|r| (r.row, r.cells.iter().map(str::to_owned).collect())).collect();
    assert_eq!(
        got,
        vec![
            row(
                2,
                &["Jürgen Müller", "+49 151 12345678", "Köln", "called back, interested", "", ""]
            ),
            row(
                3,
                &[
                    "Zoé Côté",
                    "+33 6 12 34 56 78",
                    "Besançon",
                    "line 1\nline 2 of a pasted note",
                    "",
                    ""
                ]
            ),
            row(5, &["Short Row", "+39 02 1234 5678", "", ""]),
            row(6, &["Long Row", "+41 44 668 18 00", "Zürich", "note", "extra", "more", "beyond"]),
            row(
                7,
                &[
                    "Quote \"Q\" Person",
                    "+44 20 7946 0958",
                    "London",
                    "said \"call after 5pm\"",
                    "",
                    ""
                ]
            ),
            row(8, &["", "", "", "", "", ""]),
            row(9, &["Last", "+1 415 555 2671", "Boston", "#N/A", "", ""]),
        ]
    );
    assert!(records[5].is_blank());
    assert!(!records[4].is_blank());
    assert_eq!(records[6].cell_errors[0].column, 3);
}

#[test]
fn utf8_bom_never_reaches_the_first_header() {
    let source = open("utf8_bom.csv");
    assert_eq!(source.encoding, Some("UTF-8"));
    assert_eq!(source.delimiter, Some(b';'));
    assert_eq!(source.headers, ["Name", "Telefon", "Stadt"]);
    assert_eq!(
        rows(source),
        vec![
            row(2, &["Käthe Weiß", "0151/12345678", "München"]),
            row(3, &["François", "+33 1 42 68 53 00", "Genève"]),
        ]
    );
}

#[test]
fn utf16le_unicode_text_from_excel() {
    let source = open("utf16le_bom.txt");
    assert_eq!(source.format, Format::Tsv);
    assert_eq!(source.encoding, Some("UTF-16LE"));
    assert_eq!(source.headers, ["Name", "Phone", "City"]);
    assert_eq!(
        rows(source),
        vec![
            row(2, &["Jürgen Müller", "+49 151 12345678", "Köln"]),
            row(3, &["Multi\r\nline", "+44 20 7946 0958", "London"]),
            row(4, &["Łukasz Żółć", "+48 512 345 678", "Kraków"]),
        ]
    );
}

#[test]
fn windows_1252_from_german_excel() {
    let source = open("windows1252_de.csv");
    assert_eq!(source.encoding, Some("windows-1252"));
    assert_eq!(source.delimiter, Some(b';'));
    assert_eq!(source.headers, ["Name", "Telefon", "Straße", "Betrag"]);
    assert_eq!(
        rows(source),
        vec![
            row(2, &["Jürgen Müller", "0151 12345678", "Königsallee 1", "12,50 €"]),
            row(3, &["Käthe Weiß", "+49 (0) 30 12345678", "Große Straße 5", "3,00 €"]),
        ]
    );
}

#[test]
fn windows_1252_from_french_excel_with_a_sep_line() {
    let source = open("windows1252_fr.csv");
    assert_eq!(source.encoding, Some("windows-1252"));
    assert_eq!(source.delimiter, Some(b';'));
    assert_eq!(source.headers, ["Nom", "Téléphone", "Ville"]);
    assert_eq!(source.header_row, 1, "Excel hides the sep= line");
    assert_eq!(
        rows(source),
        vec![
            row(2, &["François Lefèvre", "06 12 34 56 78", "Besançon"]),
            row(3, &["Hélène Côté", "+33 1 42 68 53 00", "Genève"]),
        ]
    );
}

#[test]
fn encoding_and_delimiter_options_override_the_sniffing() {
    let opts = SourceOptions {
        encoding: Some("utf-8".to_owned()),
        delimiter: Some(b'|'),
        ..SourceOptions::default()
    };
    let source = open_with("windows1252_de.csv", &opts);
    assert_eq!(source.encoding, Some("UTF-8"));
    assert_eq!(source.headers, ["Name;Telefon;Stra\u{FFFD}e;Betrag"]);
    let first = &rows(source)[0];
    assert_eq!(first.0, 2);
    assert!(first.1[0].starts_with("J\u{FFFD}rgen"), "{first:?}");
    let bad = SourceOptions { delimiter: Some(b'"'), ..SourceOptions::default() };
    assert!(matches!(error("pipe.csv", &bad), SourceError::InvalidOption { .. }));
}

#[test]
fn pipe_and_tab_delimiters() {
    let source = open("pipe.csv");
    assert_eq!(source.delimiter, Some(b'|'));
    assert_eq!(
        rows(source),
        vec![row(2, &["Anna", "+49 30 12345678", "a|b"]), row(3, &["Ben", "+43 664 1234567", ""]),]
    );
    let source = open("tab.tsv");
    assert_eq!((source.format, source.delimiter), (Format::Tsv, Some(b'\t')));
    assert_eq!(rows(source)[1], row(3, &["Ben", "+43 664 1234567"]));
}

#[test]
fn title_rows_above_the_header_are_skipped() {
    let source = open("title_rows.csv");
    assert_eq!(source.header_row, 4);
    assert_eq!(source.headers, ["Name", "Phone", "City"]);
    assert_eq!(
        rows(source),
        vec![
            row(5, &["Anna", "+49 30 12345678", "Berlin"]),
            row(6, &["Ben", "+43 664 1234567", "Wien"]),
        ]
    );
}

#[test]
fn the_rows_read_ahead_below_the_header_are_its_samples() {
    let source = open("title_rows.csv");
    let samples = source.samples();
    assert_eq!(
        samples,
        [["Anna", "+49 30 12345678", "Berlin"], ["Ben", "+43 664 1234567", "Wien"]]
    );
    assert_eq!(rows(source).len(), 2, "the samples are still read as rows");
    let asked = SourceOptions { header_row: Some(4), ..SourceOptions::default() };
    assert!(open_with("title_rows.csv", &asked).samples().is_empty(), "nothing read ahead");
}

#[test]
fn header_only_is_zero_records() {
    let source = open("header_only.csv");
    assert_eq!(source.headers, ["Name", "Phone"]);
    assert!(rows(source).is_empty());
}

#[test]
fn a_100_mb_line_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one_line.csv");
    let mut file = std::fs::File::create(&path).unwrap();
    let chunk = vec![b'x'; 1024 * 1024];
    for _ in 0..100 {
        file.write_all(&chunk).unwrap();
    }
    drop(file);
    let err = Source::open(&path, &SourceOptions::default()).unwrap_err();
    assert!(matches!(err, SourceError::RowTooLong { row: 1, .. }), "{err}");
    assert!(err.to_string().contains("is this really a CSV?"), "{err}");
}

#[test]
fn latin1_after_a_long_ascii_prefix_is_still_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late_umlaut.csv");
    let mut bytes = b"Name,City\n".to_vec();
    while bytes.len() < 100_000 {
        bytes.extend_from_slice(b"Anna,Berlin\n");
    }
    bytes.extend_from_slice(b"J\xFCrgen,K\xF6ln\n");
    std::fs::write(&path, bytes).unwrap();
    let source = Source::open(&path, &SourceOptions::default()).unwrap();
    let last = rows(source).pop().unwrap();
    assert_eq!(last.1, ["Jürgen", "Köln"]);
}

#[test]
fn a_downloaded_file_is_named_by_its_url() {
    let url = "https://example.com/leads.csv";
    let source = Source::open_named(&fixture("utf8.csv"), url, &SourceOptions::default()).unwrap();
    assert_eq!(source.location, url);
    let err =
        Source::open_named(&fixture("empty.csv"), url, &SourceOptions::default()).unwrap_err();
    assert!(err.to_string().contains("`https://example.com/leads.csv` is empty"), "{err}");
}

#[test]
fn sources_and_their_records_can_move_to_another_thread() {
    fn assert_send<T: Send>() {}
    fn assert_error<T: std::error::Error + Send + Sync + 'static>() {}
    assert_send::<Source>();
    assert_send::<super::Records>();
    assert_error::<SourceError>();
}

/// What Excel itself writes: shared strings, and here an empty first sheet to skip.
#[test]
fn xlsx_with_shared_strings_and_an_empty_first_sheet() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("excel_like.xlsx");
    let mut book = rust_xlsxwriter::Workbook::new();
    book.add_worksheet().set_name("Empty").unwrap();
    let sheet = book.add_worksheet();
    sheet.set_name("Kunden").unwrap();
    sheet.write_string(0, 1, "Name").unwrap();
    sheet.write_string(0, 2, "Telefon").unwrap();
    sheet.write_string(1, 1, "Käthe Weiß").unwrap();
    sheet.write_number(1, 2, 4915112345678.0).unwrap();
    sheet.write_string(2, 1, "Käthe Weiß").unwrap();
    sheet.write_boolean(2, 3, true).unwrap();
    book.save(&path).unwrap();
    let source = Source::open(&path, &SourceOptions::default()).unwrap();
    assert_eq!(source.sheet.as_deref(), Some("Kunden"));
    // Columns count from A, as in Excel, not from the first used column: a sheet's
    // `<dimension>` can be wrong, and a column left of it would be lost.
    assert_eq!(source.headers, ["", "Name", "Telefon"], "column A is empty");
    assert_eq!(
        rows(source),
        vec![row(2, &["", "Käthe Weiß", "4915112345678"]), row(3, &["", "Käthe Weiß", "", "TRUE"]),]
    );
}

/// Every fixture, truncated and with bytes overwritten, must give rows or an error.
#[test]
fn damaged_files_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut seed: u64 = 0x5EED;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let names = [
        "leads.xlsx",
        "leads.xlsb",
        "leads.xls",
        "leads.ods",
        "utf8.csv",
        "utf16le_bom.txt",
        "default_key.xlsx",
    ];
    for name in names {
        let original = std::fs::read(fixture(name)).unwrap();
        for variant in 0..24 {
            let mut bytes = original.clone();
            if variant % 3 == 0 {
                bytes.truncate(next() as usize % bytes.len());
            } else {
                for _ in 0..1 + variant % 5 {
                    let at = next() as usize % bytes.len();
                    bytes[at] = next() as u8;
                }
            }
            let path = dir.path().join(format!("{variant}_{name}"));
            std::fs::write(&path, &bytes).unwrap();
            if let Ok(source) = Source::open(&path, &SourceOptions::default()) {
                source.records().for_each(drop);
            }
        }
    }
}

/// Reads `LEADSYNC_BENCH_FILE` end to end and prints rows, bytes and time:
/// `LEADSYNC_BENCH_FILE=leads_1m.csv cargo test --release --lib bench_read -- --ignored --nocapture`
#[test]
#[ignore = "benchmark: needs LEADSYNC_BENCH_FILE"]
fn bench_read() {
    let Ok(path) = std::env::var("LEADSYNC_BENCH_FILE") else {
        return;
    };
    for _ in 0..3 {
        let started = std::time::Instant::now();
        let source = Source::open(Path::new(&path), &SourceOptions::default()).unwrap();
        let (mut rows, mut bytes) = (0u64, 0usize);
        for record in source.records() {
            let record = record.unwrap();
            rows += 1;
            bytes += record.cells.as_slice().len();
        }
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "read {rows} rows ({:.1} MB of cells) in {secs:.3} s: {:.0} rows/s",
            bytes as f64 / 1e6,
            rows as f64 / secs
        );
    }
}

//! What a person opening leadsync's files in Excel sees (issue 25, items 13 and 14): CSV reports
//! and exports in the delimiter their Excel splits by, phone numbers as typed, never behind a
//! `'`, and the HTML report's rows to fix with the phone as typed and a name to find them by.

use std::path::Path;

use crate::support::{ALICE, Cli, TestSandbox, write};

/// The CSV report of `source` (an offline dry run), without its BOM, which it must have.
fn csv_report(source: &Path, code: i32) -> String {
    let report = source.with_extension("report.csv");
    Cli::new()
        .args(["import"])
        .args([source])
        .args(["--offline", "--campaign", "1", "--report"])
        .args([&report])
        .expect_code(code);
    let text = std::fs::read_to_string(&report).unwrap();
    text.strip_prefix('\u{feff}').expect("UTF-8 with a BOM, which Excel reads").to_string()
}

/// A German CRM's `;` CSV gives a `;` report, which German Excel splits into columns (a `,` one
/// it opens as one column); a workbook, which has no delimiter, gives the usual `,`.
#[test]
fn the_csv_report_uses_the_sources_delimiter() {
    let dir = tempfile::tempdir().unwrap();
    let source = write(
        dir.path(),
        "kunden.csv",
        "Name;Telefon;Notiz\nMüller, Jürgen;+49 (0)69 1234567;=HYPERLINK(\"http://x\")\n",
    );
    let text = csv_report(&source, 0);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("Name;Telefon;Notiz;leadsync_row;"), "{text}");
    let row = lines.next().unwrap();
    // The comma inside a cell needs no quotes where the comma is not the delimiter.
    assert!(row.starts_with("Müller, Jürgen;"), "{row}");
    assert!(row.contains(";+49 (0)69 1234567;"), "the phone as typed, no `'`: {row}");
    assert!(row.contains(";\"'=HYPERLINK("), "a formula is still escaped: {row}");

    let workbook = dir.path().join("kunden.xlsx");
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    for (col, (header, cell)) in
        [("Name", "Anna"), ("Telefon", "+1 (555) 123-4567")].iter().enumerate()
    {
        sheet.write_string(0, col as u16, *header).unwrap();
        sheet.write_string(1, col as u16, *cell).unwrap();
    }
    book.save(&workbook).unwrap();
    let text = csv_report(&workbook, 3); // 555 numbers are fictional: rejected
    assert!(text.starts_with("Name,Telefon,leadsync_row,"), "{text}");
    assert!(text.contains("Anna,+1 (555) 123-4567,"), "{text}");
}

/// `leads export` and `webhook export` take `--delimiter` as `import` does (`;`, `tab`, …).
#[test]
fn exports_write_the_delimiter_asked_for() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    write(dir, "leads.csv", "Name,Telefon\nAnna,0151 62000001\n");
    sb.cli(ALICE).args(["import", "leads.csv", "--campaign", "10", "--rate", "0"]).ok();
    let read = |name: &str| {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        text.strip_prefix('\u{feff}').expect("a BOM").to_string()
    };
    sb.cli(ALICE).args(["leads", "export", "-o", "semi.csv", "--delimiter", ";"]).ok();
    let semi = read("semi.csv");
    assert!(semi.starts_with("id;campaign_id;campaign_name;phone_number;"), "{semi}");
    assert!(semi.contains(";+4915162000001;"), "{semi}");
    sb.cli(ALICE).args(["leads", "export", "-o", "tab.csv", "--delimiter", "tab"]).ok();
    assert!(read("tab.csv").starts_with("id\tcampaign_id\t"));
    sb.cli(ALICE).args(["leads", "export", "-o", "comma.csv"]).ok();
    assert!(read("comma.csv").starts_with("id,campaign_id,"), "`,` stays the default");
    let (_, err) =
        sb.cli(ALICE).args(["leads", "export", "-o", "x.csv", "--delimiter", ";;"]).expect_code(2);
    assert!(err.contains("one ASCII character"), "{err}");

    std::fs::create_dir(dir.join("events")).unwrap();
    write(&dir.join("events"), "events.jsonl", "");
    Cli::new()
        .current_dir(dir)
        .args(["webhook", "export", "--in", "events", "-o", "conversations.csv"])
        .args(["--delimiter", "|"])
        .ok();
    let conversations = read("conversations.csv");
    assert!(conversations.starts_with("received_at|kind|"), "{conversations}");
}

//! What a person sees of a run: CSV reports and exports in the
//! delimiter their Excel splits by, phone numbers as typed, never behind a `'`; the HTML
//! report's rows to fix with the phone as typed and a name to find them by; and the terminal's
//! words: every reason accounted for, `1 row`, `--report`'s formats.

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

/// The HTML report's rows to fix show what was typed, also for a duplicate, whose number
/// parsed (it showed `+4915150000002`), and who the row is about.
#[test]
fn the_html_rows_to_fix_show_the_phone_as_typed_and_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let source = write(
        dir.path(),
        "kunden.csv",
        "Vorname;Nachname;Telefon\nAnna;Schmidt;0151 50000002\nAnna;Schmidt;0151-50000002\n",
    );
    let html = dir.path().join("r.html");
    Cli::new()
        .args(["import"])
        .args([&source])
        .args(["--offline", "--campaign", "1", "--report"])
        .args([&html])
        .expect_code(3);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<th>Name</th><th>Phone as typed</th>"), "a name column");
    assert!(page.contains("<td class=\"name\">Anna Schmidt</td>"), "{page}");
    assert!(page.contains(">0151-50000002</td>"), "the duplicate as typed: {page}");
    assert!(!page.contains(">+4915150000002</td>"), "not its E.164 form");
}

/// More reasons than the top three: the rest are counted, not hidden.
#[test]
fn the_top_reasons_say_how_many_more_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let source = write(
        dir.path(),
        "r.csv",
        "Name,Telefon,Kampagne\nA,,X\nB,12,X\nC,0151 50000001,\nD,0151 50000002,X\n\
         E,0151 50000002,X\nF,0151 50000003,X\n",
    );
    let (_, err) = Cli::new().args(["import"]).args([&source]).args(["--offline"]).expect_code(3);
    assert!(err.contains("6 rows: 2 valid, 3 rejected, 1 duplicate"), "{err}");
    assert_eq!(err.matches("  fix: ").count(), 3, "three reasons listed: {err}");
    assert!(err.contains("  and 1 more reason (1 row): see the report"), "{err}");
}

/// One row is `1 row`, and `--report`'s help names every format, the XLSX fix file too.
#[test]
fn one_row_is_singular_and_the_report_help_names_xlsx() {
    let dir = tempfile::tempdir().unwrap();
    let source = write(dir.path(), "one.csv", "Name,Telefon\nA,0151 50000001\n");
    let (_, err) =
        Cli::new().args(["import"]).args([&source]).args(["--offline", "--campaign", "1"]).ok();
    assert!(err.contains("\n1 row: 1 valid\n"), "{err}");
    let (help, _) = Cli::new().args(["import", "--help"]).ok();
    let report = help.split("--report").nth(1).unwrap_or_default();
    let line = report.split("\n\n").next().unwrap_or_default();
    assert!(line.contains(".xlsx") && line.contains(".csv") && line.contains(".html"), "{help}");
}

//! Reading fidelity through the real binary: what the person is told about how a file was
//! read, in the terminal summary and the reports.

use std::path::{Path, PathBuf};

use crate::import::dry_run;
use crate::support::{Cli, write};

#[test]
fn rows_skipped_above_the_header_are_named_in_the_summary_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let text = "Leads export\nfrom CRM,2024\n\nName,Phone,City\nAnna,+49 30 12345678,Berlin\n";
    let file = write(dir.path(), "titles.csv", text);
    let (report, err) = dry_run(&file, &[], 0);
    let note = "header on row 4; rows 1\u{2013}3 skipped as titles";
    assert!(err.contains(&format!("reading: {note}")), "{err}");
    let notes = report["run"]["reading_notes"].as_array().unwrap();
    assert!(notes[0].as_str().unwrap().starts_with(note), "{report}");

    let plain = write(dir.path(), "plain.csv", "Name,Phone\nAnna,+49 30 12345678\n");
    let (report, err) = dry_run(&plain, &[], 0);
    assert!(!err.contains("reading:"), "{err}");
    assert!(report["run"].get("reading_notes").is_none(), "{report}");
}

#[test]
fn a_guessed_encoding_uses_the_region_and_says_how_to_override_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pounds.csv");
    std::fs::write(&file, b"Name,Phone,Notes\nAnna,+44 20 7946 0958,paid \xA31.00\n").unwrap();
    let (report, err) = dry_run(&file, &["--region", "GB"], 0);
    let note = "encoding was guessed as windows-1252 for a file from GB";
    assert!(err.contains(note) && err.contains("`--encoding`"), "{err}");
    assert_eq!(report["rows"][0]["variables"]["notes"], "paid \u{a3}1.00", "{report}");
}

/// With no region given, the default region (the one national numbers are read in) is the
/// hint: without one, chardetng took this file for Windows-1250 and `£1.00` became `Ł1.00`.
#[test]
fn a_legacy_encoding_is_guessed_with_the_default_region_when_none_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pounds.csv");
    std::fs::write(&file, b"Name,Phone,Notes\nAnna,+44 20 7946 0958,paid \xA31.00\n").unwrap();
    let (report, err) = dry_run(&file, &[], 0);
    assert!(err.contains("guessed as windows-1252 for a file from DE"), "{err}");
    assert_eq!(report["rows"][0]["variables"]["notes"], "paid \u{a3}1.00", "{report}");
}

#[test]
fn headers_with_line_breaks_are_quoted_in_the_no_phone_column_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = "Name,\"Notes\nfrom the call\",City\nAnna,call back,Berlin\n";
    let file = write(dir.path(), "wrapped.csv", text);
    let args = ["--offline", "--campaign", "1"];
    let (_, err) = Cli::new().args(["import"]).args([&file]).args(args).expect_code(1);
    let error = err.lines().find(|l| l.starts_with("error:")).unwrap_or_default();
    assert!(error.contains("no phone column"), "{err}");
    assert!(error.ends_with(r#"`Name`, "Notes\nfrom the call", `City`"#), "{err}");
}

/// `samples/crm_export_de.csv`, a German CRM export: a title, an export line of date and time
/// in cells of their own, the header on row 3, and an `Einwilligung Telefon` column of
/// `ja`/`nein` whose header holds the word "Telefon".
fn crm_export() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/crm_export_de.csv")
}

#[test]
fn a_crm_export_is_read_from_its_header_on_row_3_and_its_consent_column_is_no_phone() {
    // Exit 3: without a mapping the Austrian and Swiss numbers are read as German ones.
    let (report, err) = dry_run(&crm_export(), &[], 3);
    assert!(err.contains("header on row 3; rows 1\u{2013}2 skipped as titles"), "{err}");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!((rows.len(), &rows[0]["row"]), (30, &4.into()), "{report}");
    assert_eq!(rows[0]["variables"]["kunden_nr"], "10001", "{report}");
    assert_eq!(rows[0]["variables"]["einwilligung_telefon"], "ja", "{report}");
    assert!(!report.to_string().contains("invalid_secondary_phone"), "{report}");
}

#[test]
fn init_names_the_columns_of_row_3_and_proposes_the_consent_column() {
    let (mapping, _) = Cli::new().args(["init"]).args([crm_export()]).ok();
    let columns = "# Columns found: \"Kunden-Nr\", \"Vorname\", \"Nachname\", \"Firma\", \
                   \"Telefon\", \"Mobil\", \"Einwilligung Telefon\", \"Kampagne\", \"Land\"\n";
    assert!(mapping.contains(columns), "{mapping}");
    assert!(mapping.contains("\nphone = [\"Telefon\", \"Mobil\"]\n"), "{mapping}");
    assert!(mapping.contains("[consent]\ncolumn = \"Einwilligung Telefon\"\n"), "{mapping}");
    assert!(mapping.contains("region_column = \"Land\""), "{mapping}");
    // Imported with it, a `nein` is skipped and an Austrian number is read as Austrian.
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "m.toml", &mapping);
    let (report, _) = dry_run(&crm_export(), &["-m", file.to_str().unwrap()], 0);
    let row = |n: u64| report["rows"].as_array().unwrap().iter().find(|r| r["row"] == n).unwrap();
    assert_eq!(row(6)["errors"][0]["code"], "no_consent", "{report}");
    assert!(row(7)["phone"].as_str().unwrap().starts_with("+43"), "{report}");
}

/// The first rows below the header reach the inference: a phone-like header over yes and no
/// is no phone column, on `import` and `init` alike.
#[test]
fn a_phone_header_over_yes_and_no_is_told_by_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let text = "Name;Telefon;Telefon erlaubt\nAda;+49 30 1234567;ja\nBob;+49 30 1234568;nein\n";
    let file = write(dir.path(), "erlaubt.csv", text);
    let (report, err) = dry_run(&file, &[], 0);
    assert!(err.contains("`Telefon erlaubt` holds yes or no"), "{err}");
    assert!(!report.to_string().contains("invalid_secondary_phone"), "{report}");
    let (mapping, _) = Cli::new().args(["init"]).args([&file]).ok();
    assert!(mapping.contains("\nphone = \"Telefon\"\n"), "{mapping}");
    assert!(mapping.contains("[consent]\ncolumn = \"Telefon erlaubt\"\n"), "{mapping}");
}

/// On the command line against a service, a campaign column of the CRM's own campaign names is
/// not taken as the campaign (every row would be an unknown campaign): the run stops before any
/// row with the reason and what to do, and `--campaign` sends the rows, the column going along
/// as a variable.
#[test]
fn a_campaign_column_naming_no_campaign_of_the_account_is_not_the_campaign() {
    let sb = crate::support::TestSandbox::start();
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    let run = |extra: &[&str], code: i32| {
        let file = crm_export();
        let args = ["import", file.to_str().unwrap(), "--dry-run", "--report"];
        sb.cli(crate::support::ALICE)
            .args(args)
            .args([report.to_str().unwrap()])
            .args(extra)
            .expect_code(code)
    };
    let (_, err) = run(&[], 1);
    assert!(err.contains("column `Kampagne` names no campaign of the account"), "{err}");
    assert!(err.contains("pass --campaign"), "{err}");
    assert!(!report.exists(), "stopped before any row");
    let (_, err) = run(&["--campaign", "10"], 3);
    assert!(!err.contains("names no campaign"), "{err}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let text = json.to_string();
    assert!(!text.contains("unknown_campaign") && !text.contains("missing_campaign"), "{text}");
    assert_eq!(json["rows"][0]["variables"]["kampagne"], "Frühjahr 2025 Bestandskunden");
}

/// A workbook as a German sales-ops person keeps one: numbers stored as numbers, dressed by
/// their number formats. Each cell is (text or number, format).
fn formatted_workbook(dir: &Path) -> PathBuf {
    use rust_xlsxwriter::{Format, Workbook};
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let headers = ["Name", "Telefon", "PLZ", "Kundennummer", "Rabatt", "Umsatz", "Menge"];
    for (c, header) in headers.iter().enumerate() {
        sheet.write_string(0, c as u16, *header).unwrap();
    }
    let rows: [(&str, [(f64, &str); 6]); 3] = [
        (
            "Anna",
            [
                (4_915_112_345_678.0, "\"+\"0"),
                (1067.0, "00000"),
                (12.0, "\"KD-\"00000"),
                (0.125, "0.0%"),
                (1234.5, "#,##0.00\\ \"€\""),
                (3.0, "General"),
            ],
        ),
        (
            "Ben",
            [
                (15_112_345_679.0, "0### #######"),
                (80331.0, "00000"),
                (4711.0, "\"KD-\"00000"),
                (0.5, "0%"),
                (-20.0, "#,##0.00\\ \"€\";[Red]\\-#,##0.00\\ \"€\""),
                (2.5, "0.00E+00"),
            ],
        ),
        (
            "Cem",
            [
                (4_915_112_345_670.0, "#,##0.00"),
                (1.0, "00000"),
                (1.0, "0"),
                (1.0, "0%"),
                (1.0, "0.00"),
                (1.0, "0"),
            ],
        ),
    ];
    for (r, (name, numbers)) in rows.iter().enumerate() {
        let r = r as u32 + 1;
        sheet.write_string(r, 0, *name).unwrap();
        for (c, (number, code)) in numbers.iter().enumerate() {
            let format = Format::new().set_num_format(*code);
            sheet.write_number_with_format(r, c as u16 + 1, *number, &format).unwrap();
        }
    }
    let path = dir.join("formatted.xlsx");
    book.save(&path).unwrap();
    path
}

/// Postcode 01067 stored as 1067 under `00000` was sent as `1067`: a person sees the format's
/// text, so the service gets it, with the region's decimal mark. A phone is read from the
/// digits stored, with only what a format adds around them (a plus, a leading zero, spaces).
#[test]
fn numbers_are_read_as_their_number_format_shows_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = formatted_workbook(dir.path());
    let (report, err) = dry_run(&file, &[], 0);
    let anna = &report["rows"][0];
    assert_eq!(anna["phone"], "+4915112345678", "{report}\n{err}");
    let variables = &anna["variables"];
    assert_eq!(variables["plz"], "01067", "{report}");
    assert_eq!(variables["kundennummer"], "KD-00012", "{report}");
    assert_eq!(variables["rabatt"], "12,5%", "{report}");
    assert_eq!(variables["umsatz"], "1.234,50 €", "{report}");
    assert_eq!(variables["menge"], "3", "General keeps the digits: {report}");
    let ben = &report["rows"][1];
    assert_eq!(ben["phone"], "+4915112345679", "the stored digits, not `1511 2345679`: {report}");
    assert_eq!(ben["variables"]["plz"], "80331", "{report}");
    assert_eq!(ben["variables"]["rabatt"], "50%", "{report}");
    assert_eq!(ben["variables"]["umsatz"], "-20,00 €", "{report}");
    assert_eq!(ben["variables"]["menge"], "2.5", "scientific notation keeps the digits: {report}");
    let cem = &report["rows"][2];
    assert_eq!(cem["phone"], "+4915112345670", "not `4.915.112.345.670,00`: {report}");
    assert_eq!(cem["variables"]["umsatz"], "1,00", "{report}");

    // A British run shows British marks (and reads Ben's national number as British: rejected).
    let (report, _) = dry_run(&file, &["--region", "GB"], 3);
    assert_eq!(report["rows"][0]["phone"], "+4915112345678", "`\"+\"0` gives the plus: {report}");
    assert_eq!(report["rows"][0]["variables"]["rabatt"], "12.5%", "{report}");
    assert_eq!(report["rows"][0]["variables"]["umsatz"], "1,234.50 €", "{report}");
}

/// Ben and Dora are filtered out by "Status = aktiv", Eva is hidden by hand: a person sees two
/// rows, and two are sent. `hidden_rows = "read"` reads them all.
#[test]
fn hidden_and_filtered_rows_are_skipped_with_their_reasons() {
    use rust_xlsxwriter::{FilterCondition, Workbook};
    let dir = tempfile::tempdir().unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let rows = [
        ["Name", "Telefon", "Status"],
        ["Anna", "+49 151 10000001", "aktiv"],
        ["Ben", "+49 151 10000002", "inaktiv"],
        ["Cem", "+49 151 10000003", "aktiv"],
        ["Dora", "+49 151 10000004", "inaktiv"],
        ["Eva", "+49 151 10000005", "aktiv"],
    ];
    for (r, row) in rows.iter().enumerate() {
        for (c, text) in row.iter().enumerate() {
            sheet.write_string(r as u32, c as u16, *text).unwrap();
        }
    }
    sheet.autofilter(0, 0, 4, 2).unwrap();
    sheet.filter_column(2, &FilterCondition::new().add_list_filter("aktiv")).unwrap();
    sheet.set_row_hidden(5).unwrap();
    let file = dir.path().join("filtered.xlsx");
    book.save(&file).unwrap();

    let (report, err) = dry_run(&file, &[], 0);
    let status = |r: &serde_json::Value| {
        let code = r["errors"].get(0).map_or("", |e| e["code"].as_str().unwrap_or_default());
        (r["row"].as_u64().unwrap(), r["status"].as_str().unwrap().to_owned(), code.to_owned())
    };
    let seen: Vec<_> = report["rows"].as_array().unwrap().iter().map(status).collect();
    let (valid, skipped) = ("valid".to_owned(), "skipped".to_owned());
    let expected = vec![
        (2, valid.clone(), String::new()),
        (3, skipped.clone(), "filtered_out".to_owned()),
        (4, valid.clone(), String::new()),
        (5, skipped.clone(), "filtered_out".to_owned()),
        (6, skipped, "hidden_row".to_owned()),
    ];
    assert_eq!(seen, expected, "{report}\n{err}");
    assert!(err.contains("filtered_out") && err.contains("hidden_row"), "{err}");
    assert!(err.contains("5 rows: 2 valid, 3 hidden in the workbook"), "{err}");
    assert_eq!(report["summary"]["hidden"], 3, "{report}");

    let mapping = write(dir.path(), "m.toml", "phone = \"Telefon\"\nhidden_rows = \"read\"\n");
    let (report, _) = dry_run(&file, &["--mapping", mapping.to_str().unwrap()], 0);
    let statuses: Vec<_> =
        report["rows"].as_array().unwrap().iter().map(|r| &r["status"]).collect();
    assert_eq!(statuses, ["valid"; 5], "{report}");
}

/// A column hidden in the workbook (`Notiz intern`) was sent as a variable: a person does not
/// see it, so it stays out unless a mapping names it.
#[test]
fn hidden_columns_are_not_carried_as_variables() {
    use rust_xlsxwriter::Workbook;
    let dir = tempfile::tempdir().unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let rows = [
        ["Name", "Telefon", "Notiz intern", "Ort"],
        ["Anna", "+49 151 10000001", "zahlt spät", "Köln"],
    ];
    for (r, row) in rows.iter().enumerate() {
        for (c, text) in row.iter().enumerate() {
            sheet.write_string(r as u32, c as u16, *text).unwrap();
        }
    }
    sheet.set_column_hidden(2).unwrap();
    let file = dir.path().join("hidden_column.xlsx");
    book.save(&file).unwrap();

    let (report, err) = dry_run(&file, &[], 0);
    let variables = &report["rows"][0]["variables"];
    assert!(variables.get("notiz_intern").is_none(), "{report}");
    assert_eq!(variables["ort"], "Köln", "{report}");
    assert!(err.contains("other columns as variables: `Ort`\n"), "{err}");
    assert!(err.contains("hidden in the workbook, not sent: `Notiz intern`"), "{err}");

    let toml = "phone = \"Telefon\"\n[variables]\nnotiz = \"Notiz intern\"\n";
    let mapping = write(dir.path(), "m.toml", toml);
    let (report, _) = dry_run(&file, &["--mapping", mapping.to_str().unwrap()], 0);
    assert_eq!(
        report["rows"][0]["variables"]["notiz"], "zahlt spät",
        "named, it is sent: {report}"
    );
}

/// A CRM export's two-row header: `Kontakt` merged over `Vorname | Nachname`, `Adresse` over
/// `Straße | Ort`, `Telefon` and `Firma` merged down over both rows; a company merged down over
/// its two contacts. Columns were nameless and the sub-header was a rejected row.
#[test]
fn merged_headers_name_each_column_and_merged_values_fill_down() {
    use rust_xlsxwriter::{Format, Workbook};
    let dir = tempfile::tempdir().unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let plain = Format::new();
    sheet.merge_range(0, 0, 0, 1, "Kontakt", &plain).unwrap();
    sheet.merge_range(0, 2, 0, 3, "Adresse", &plain).unwrap();
    sheet.merge_range(0, 4, 1, 4, "Telefon", &plain).unwrap();
    sheet.merge_range(0, 5, 1, 5, "Firma", &plain).unwrap();
    for (c, sub) in ["Vorname", "Nachname", "Straße", "Ort"].iter().enumerate() {
        sheet.write_string(1, c as u16, *sub).unwrap();
    }
    let people = [
        ["Anna", "Schmidt", "Hauptstr. 1", "Köln", "+49 151 10000001"],
        ["Ben", "Weber", "Ringstr. 2", "Bonn", "+49 151 10000002"],
    ];
    for (r, person) in people.iter().enumerate() {
        for (c, text) in person.iter().enumerate() {
            sheet.write_string(r as u32 + 2, c as u16, *text).unwrap();
        }
    }
    sheet.merge_range(2, 5, 3, 5, "Acme GmbH", &plain).unwrap();
    let file = dir.path().join("merged.xlsx");
    book.save(&file).unwrap();

    let (report, err) = dry_run(&file, &[], 0);
    assert!(err.contains("header on rows 1\u{2013}2: cells merged across columns"), "{err}");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "the sub-header is no data row: {report}");
    for (row, (first, last, street, firm)) in rows.iter().zip([
        ("Anna", "Schmidt", "Hauptstr. 1", "Acme GmbH"),
        ("Ben", "Weber", "Ringstr. 2", "Acme GmbH"),
    ]) {
        let variables = &row["variables"];
        let names: Vec<&str> =
            variables.as_object().unwrap().values().map(|v| v.as_str().unwrap()).collect();
        assert!(names.contains(&first) && names.contains(&last), "{report}\n{err}");
        assert_eq!(variables["adresse_straße"], street, "{report}");
        assert_eq!(variables["firma"], firm, "merged down over both contacts: {report}");
    }
    assert!(err.contains("`Kontakt Nachname`"), "the mapping names the column: {err}");
}

/// A table's totals row (`Summe`) became a rejected row; it is no lead, and the run says it
/// was skipped.
#[test]
fn a_table_s_totals_row_is_skipped_with_a_note() {
    use rust_xlsxwriter::{Table, TableColumn, TableFunction, Workbook};
    let dir = tempfile::tempdir().unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let rows = [["Anna", "+49 151 10000001"], ["Ben", "+49 151 10000002"]];
    for (r, row) in rows.iter().enumerate() {
        sheet.write_string(r as u32 + 1, 0, row[0]).unwrap();
        sheet.write_string(r as u32 + 1, 1, row[1]).unwrap();
        sheet.write_number(r as u32 + 1, 2, 100.0).unwrap();
    }
    let columns = [
        TableColumn::new().set_header("Name").set_total_label("Summe"),
        TableColumn::new().set_header("Telefon"),
        TableColumn::new().set_header("Umsatz").set_total_function(TableFunction::Sum),
    ];
    let table = Table::new().set_columns(&columns).set_total_row(true);
    sheet.add_table(0, 0, 3, 2, &table).unwrap();
    let file = dir.path().join("table.xlsx");
    book.save(&file).unwrap();

    let (report, err) = dry_run(&file, &[], 0);
    assert_eq!(report["rows"].as_array().unwrap().len(), 2, "{report}\n{err}");
    assert!(err.contains("row 4 skipped: the totals row of a table"), "{err}");
}

/// A title merged across the table (the most common merge of all) is a title, skipped as
/// before, not the top of a two-row header.
#[test]
fn a_title_merged_across_the_table_is_still_a_title() {
    use rust_xlsxwriter::{Format, Workbook};
    let dir = tempfile::tempdir().unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.merge_range(0, 0, 0, 2, "Leads März 2024", &Format::new()).unwrap();
    for (r, row) in
        [["Name", "Telefon", "Ort"], ["Anna", "+49 151 10000001", "Köln"]].iter().enumerate()
    {
        for (c, text) in row.iter().enumerate() {
            sheet.write_string(r as u32 + 1, c as u16, *text).unwrap();
        }
    }
    let file = dir.path().join("title.xlsx");
    book.save(&file).unwrap();
    let (report, err) = dry_run(&file, &[], 0);
    assert!(err.contains("header on row 2; row 1 skipped as titles"), "{err}");
    assert_eq!(report["rows"][0]["variables"]["ort"], "Köln", "{report}");
}

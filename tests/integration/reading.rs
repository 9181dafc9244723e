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

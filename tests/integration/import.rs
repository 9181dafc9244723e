//! The import pipeline through the real binary: every input kind, every row code, every kind of
//! bad input, `init`, URL sources and the reports' contracts.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{ALICE, Cli, TestSandbox, json, write};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// An offline dry run of `file` into a JSON report; returns (report, stderr).
fn dry_run(file: &Path, extra: &[&str], code: i32) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    let (_, err) = Cli::new()
        .args(["import"])
        .args([file])
        .args(["--offline", "--campaign", "1", "--report"])
        .args([&report])
        .args(extra)
        .expect_code(code);
    (json(&std::fs::read_to_string(&report).unwrap()), err)
}

fn rows(report: &Value) -> &Vec<Value> {
    report["rows"].as_array().unwrap()
}

fn row(report: &Value, number: u64) -> &Value {
    rows(report)
        .iter()
        .find(|r| r["row"] == number)
        .unwrap_or_else(|| panic!("no row {number} in {report}"))
}

fn codes(row: &Value) -> Vec<String> {
    let list = |key: &str| {
        row[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["code"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    [list("errors"), list("warnings")].concat()
}

#[test]
fn csv_in_every_encoding_and_delimiter() {
    for name in ["utf8.csv", "utf8_bom.csv", "utf16le_bom.txt", "pipe.csv", "tab.tsv"] {
        let (report, err) = dry_run(&fixture(name), &[], 0);
        assert!(err.contains("mapping: phone number from column `"), "{name}: {err}");
        assert!(report["summary"]["valid"].as_u64().unwrap() >= 2, "{name}: {report}");
        assert!(
            report["run"]["headers"][0].as_str().unwrap() == "Name",
            "{name}: the BOM never reaches the header"
        );
    }
    let (report, _) = dry_run(&fixture("utf8.csv"), &[], 0);
    assert_eq!(row(&report, 2)["variables"]["customer_name"], "Jürgen Müller");
    assert_eq!(row(&report, 3)["variables"]["notes"], "line 1\nline 2 of a pasted note");
    assert_eq!(row(&report, 3)["phone"], "+33612345678");
    for name in ["windows1252_de.csv", "windows1252_fr.csv"] {
        let (report, _) = dry_run(
            &fixture(name),
            &["--region", if name.ends_with("de.csv") { "DE" } else { "FR" }],
            0,
        );
        let names: Vec<&str> = rows(&report)
            .iter()
            .map(|r| r["variables"]["customer_name"].as_str().unwrap())
            .collect();
        assert!(
            names.iter().any(|n| n.contains('ü') || n.contains('é') || n.contains('è')),
            "{name}: {names:?}"
        );
    }
}

#[test]
fn every_workbook_format_reads_numbers_dates_formulas_and_errors() {
    for name in
        ["leads.xlsx", "leads.xlsm", "leads.xlsb", "leads.xls", "leads.ods", "xlsx_named.csv"]
    {
        let (report, _) = dry_run(&fixture(name), &[], 0);
        assert_eq!(report["run"]["sheet"], "Export", "{name}");
        // The title block above the header is skipped; rows keep the numbers Excel shows.
        let jurgen = row(&report, 4);
        assert_eq!(jurgen["phone"], "+4915112345678", "{name}: a phone stored as a number");
        assert_eq!(jurgen["variables"]["score"], "10023", "{name}");
        assert_eq!(jurgen["variables"]["signed_up"], "2024-03-01", "{name}");
        assert_eq!(
            jurgen["variables"]["double_score"], "20046",
            "{name}: the cached formula value"
        );
        assert!(codes(jurgen).contains(&"cell_error".to_string()), "{name}: {jurgen}");
        assert_eq!(row(&report, 7)["variables"]["customer_name"], "Giulia Rossi", "{name}");
    }
    let (report, _) = dry_run(&fixture("leads.xlsx"), &["--sheet", "Leads"], 0);
    assert_eq!(report["run"]["sheet"], "Leads");
    assert_eq!(row(&report, 2)["phone"], "+4930123456");
}

#[test]
fn every_row_code_against_the_live_campaign_list() {
    let sb = TestSandbox::start();
    let csv = write(
        sb.dir.path(),
        "codes.csv",
        "Name,Phone,Phone 2,Campaign\n\
         ok,+49 151 23456789,,Spring Outreach\n\
         no phone,,,Spring Outreach\n\
         bad phone,0151 CALL ME,,Spring Outreach\n\
         no campaign,+49 151 23456780,,\n\
         unknown,+49 151 23456781,,Sprng Outreach\n\
         ambiguous,+49 151 23456782,,renewals\n\
         duplicate,0151 23456789,,spring outreach\n\
         ext,+49 30 1234567 ext. 12,,10\n\
         bad second,+49 30 1234568,12,Café Été\n\
         ,,,\n",
    );
    let report_path = sb.dir.path().join("r.json");
    let (_, err) = sb
        .cli(ALICE)
        .args(["import"])
        .args([&csv])
        .args(["--dry-run", "--report"])
        .args([&report_path])
        .expect_code(3);
    assert!(err.contains("8 valid") || err.contains("rows:"), "{err}");
    let report = json(&std::fs::read_to_string(&report_path).unwrap());
    let expect = [
        (2, "valid", vec![]),
        (3, "rejected", vec!["missing_phone"]),
        (4, "rejected", vec!["invalid_phone"]),
        (5, "rejected", vec!["missing_campaign"]),
        (6, "rejected", vec!["unknown_campaign"]),
        (7, "rejected", vec!["ambiguous_campaign"]),
        (8, "duplicate", vec!["duplicate_in_file"]),
        (9, "valid", vec!["extension_dropped"]),
        (10, "valid", vec!["invalid_secondary_phone"]),
    ];
    for (number, status, want) in expect {
        let r = row(&report, number);
        assert_eq!(r["status"], status, "row {number}: {r}");
        assert_eq!(codes(r), want, "row {number}: {r}");
    }
    assert!(
        row(&report, 6)["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `Spring Outreach`")
    );
    assert!(row(&report, 7)["errors"][0]["message"].as_str().unwrap().contains("11, 12"));
    assert!(row(&report, 8)["errors"][0]["message"].as_str().unwrap().contains("row 2"));
    assert_eq!(row(&report, 10)["campaign_id"], 13, "a Unicode campaign name resolves");
    assert_eq!(report["summary"]["rows"], 9, "the blank row is skipped, not counted");
    assert_eq!(report["run"]["blank_rows"], 1);
    assert_eq!(report["run"]["campaigns_checked"], true);
    let schema = json(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/report.schema.json"),
        )
        .unwrap(),
    );
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(&report),
        "{:?}",
        validator.iter_errors(&report).map(|e| e.to_string()).collect::<Vec<_>>()
    );
    // --allow-duplicates lets the repeated number through.
    let (_, err) = sb
        .cli(ALICE)
        .args(["import"])
        .args([&csv])
        .args(["--dry-run", "--allow-duplicates"])
        .expect_code(3);
    assert!(!err.contains("duplicate_in_file"), "{err}");
}

#[test]
fn all_valid_exits_0_and_offline_says_campaigns_were_not_checked() {
    let (report, err) = dry_run(&fixture("tab.tsv"), &[], 0);
    assert_eq!(report["run"]["campaigns_checked"], false);
    assert!(err.to_lowercase().contains("not checked"), "{err}");
}

#[test]
fn bad_input_is_one_clear_line_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("one_line.csv");
    std::fs::write(&huge, "x".repeat(100 * 1024 * 1024)).unwrap();
    let cases: Vec<(PathBuf, &str)> = vec![
        (fixture("empty.csv"), "is empty"),
        (fixture("header_only.csv"), "no data rows"),
        (fixture("blank_only.csv"), "no rows with data"),
        (fixture("binary.csv"), "binary file"),
        (fixture("truncated.xlsx"), "truncated or damaged"),
        (fixture("encrypted.xlsx"), "password-protected"),
        (fixture("report.xls"), "HTML page"),
        (huge.clone(), "one_line.csv"),
        (dir.path().join("missing.csv"), "missing.csv"),
    ];
    for (file, says) in cases {
        let (out, err) = Cli::new()
            .args(["import"])
            .args([&file])
            .args(["--offline", "--campaign", "1"])
            .expect_code(1);
        assert!(err.starts_with("error: ") && err.contains(says), "{}: {err}", file.display());
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
        assert!(out.is_empty());
    }
}

#[test]
fn mapping_problems_name_the_key_the_column_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let mapping = write(dir.path(), "m.toml", "phone = \"Telefon\"\ncampaign = 1\n");
    let (_, err) = Cli::new()
        .args(["import"])
        .args([fixture("utf8.csv")])
        .args(["--offline", "-m"])
        .args([&mapping])
        .expect_code(1);
    assert!(
        err.contains("`Telefon`") && err.contains("`Phone`") && err.contains("utf8.csv"),
        "{err}"
    );
    let typo = write(dir.path(), "typo.toml", "phone = \"Phone\"\ncampaing = 1\n");
    let (_, err) = Cli::new()
        .args(["import"])
        .args([fixture("utf8.csv")])
        .args(["--offline", "-m"])
        .args([&typo])
        .expect_code(1);
    assert!(err.contains("campaing") && err.contains("typo.toml"), "{err}");
    let (_, err) = Cli::new()
        .args(["import"])
        .args([fixture("utf8.csv")])
        .args(["--offline", "--campaign", "1", "--region", "XX"])
        .expect_code(1);
    assert!(err.contains("`XX`"), "{err}");
    let (_, err) =
        Cli::new().args(["import"]).args([fixture("utf8.csv")]).args(["--offline"]).expect_code(1);
    assert!(err.contains("--campaign"), "no campaign anywhere: {err}");
}

#[test]
fn init_writes_a_mapping_that_imports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.toml");
    let (_, err) = Cli::new()
        .args(["init"])
        .args([fixture("windows1252_de.csv")])
        .args(["-o"])
        .args([&out])
        .ok();
    assert!(err.contains("wrote"), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("phone = \"Telefon\"") && text.contains("# Columns found:"), "{text}");
    Cli::new()
        .args(["init"])
        .args([fixture("windows1252_de.csv")])
        .args(["-o"])
        .args([&out])
        .expect_code(1);
    let (report, _) = dry_run(&fixture("windows1252_de.csv"), &["-m", out.to_str().unwrap()], 0);
    assert_eq!(report["summary"]["valid"], 2);
}

#[test]
fn csv_reports_escape_formulas_and_keep_the_original_columns() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(
        dir.path(),
        "f.csv",
        "Name,Phone,Notes\n=cmd|' /C calc'!A0,+49 151 23456789,@SUM(A1)\nplain,+49 151 23456780,-12.5\n",
    );
    let report = dir.path().join("r.csv");
    Cli::new()
        .args(["import"])
        .args([&csv])
        .args(["--offline", "--campaign", "1", "--report"])
        .args([&report])
        .ok();
    let text = std::fs::read_to_string(&report).unwrap();
    let mut lines = text.trim_start_matches('\u{feff}').lines();
    assert!(lines.next().unwrap().starts_with("Name,Phone,Notes,leadsync_row,leadsync_status"));
    let first = lines.next().unwrap();
    assert!(
        first.contains("'=cmd") && first.contains("'@SUM(A1)") && first.contains("+4915123456789"),
        "{first}"
    );
    assert!(lines.next().unwrap().contains(",-12.5,"), "a plain negative number is not escaped");
}

#[test]
fn sources_can_be_urls() {
    let sb = TestSandbox::start();
    let body = std::fs::read(fixture("utf8.csv")).unwrap();
    let app = axum::Router::new()
        .route("/export.csv", axum::routing::get(move || async move { body.clone() }));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        tokio::runtime::Runtime::new().unwrap().block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap()
        })
    });
    let url = format!("http://{}/export.csv", rx.recv().unwrap());
    let (out, err) = sb
        .cli(ALICE)
        .args(["import", &url, "--dry-run", "--campaign", "10", "--output", "json"])
        .ok();
    assert_eq!(json(&out)["summary"]["valid"], 6, "{err}");
    let missing = url.replace("export.csv", "nope.csv");
    let (_, err) =
        sb.cli(ALICE).args(["import", &missing, "--dry-run", "--campaign", "10"]).expect_code(1);
    assert!(err.contains("404"), "{err}");
}

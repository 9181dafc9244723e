//! The import pipeline through the real binary: every input kind, every row code, every kind of
//! bad input, `init`, URL sources and the reports' contracts.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{ALICE, Cli, TestSandbox, json, write};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// An offline dry run of `file` into a JSON report; returns (report, stderr).
pub(crate) fn dry_run(file: &Path, extra: &[&str], code: i32) -> (Value, String) {
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
    let valid = [("utf8.csv", 6), ("utf8_bom.csv", 2), ("utf16le_bom.txt", 3), ("pipe.csv", 2)];
    for (name, valid) in valid.into_iter().chain([("tab.tsv", 2)]) {
        let (report, err) = dry_run(&fixture(name), &[], 0);
        assert!(err.contains("mapping: phone number from column `"), "{name}: {err}");
        assert_eq!(report["summary"]["valid"], valid, "{name}: {report}");
        assert_eq!(report["summary"]["rows"], valid, "{name}: every row is valid");
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
    let counts = "\n9 rows: 3 valid, 5 rejected, 1 duplicate (1 blank skipped)\n";
    assert!(err.contains(counts), "{err}");
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
    assert_eq!(report["run"]["interrupted"], false, "a run that read every row is whole");
    assert_schema(&report);
    // --allow-duplicates lets the repeated number through: row 8 is valid, and the counts
    // (which, unlike the top three reasons, always name duplicates) have none.
    let (_, err) = sb
        .cli(ALICE)
        .args(["import"])
        .args([&csv])
        .args(["--dry-run", "--allow-duplicates", "--report"])
        .args([&report_path])
        .expect_code(3);
    assert!(err.contains("\n9 rows: 4 valid, 5 rejected (1 blank skipped)\n"), "{err}");
    let report = json(&std::fs::read_to_string(&report_path).unwrap());
    assert_eq!(row(&report, 8)["status"], "valid", "{}", row(&report, 8));
    assert_eq!(report["summary"]["duplicates"], 0);
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
        (huge.clone(), "one_line.csv` is longer than 16 MiB"),
        (dir.path().join("missing.csv"), "missing.csv` does not exist"),
    ];
    for (file, says) in cases {
        let (out, err) = Cli::new()
            .args(["import"])
            .args([&file])
            .args(["--offline", "--campaign", "1"])
            .expect_code(1);
        // The mapping chosen is said before anything is read (a file whose headers were read
        // says it before its error); the error itself is one line.
        let err =
            err.lines().filter(|l| !l.starts_with("mapping: ")).collect::<Vec<_>>().join("\n");
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
    let (_, err) = Cli::new()
        .args(["init"])
        .args([fixture("windows1252_de.csv")])
        .args(["-o"])
        .args([&out])
        .expect_code(1);
    assert!(err.contains("exists already") && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text, "the mapping was overwritten");
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
    let url = crate::support::serve("/export.csv", std::fs::read(fixture("utf8.csv")).unwrap());
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

/// Rows in the sheet the Ctrl-C test reads: a debug build needs about half a minute for them and
/// a release build about a second, while the signal comes within milliseconds of the first row.
const BIG_ROWS: u64 = 400_000;

#[test]
fn ctrl_c_during_a_dry_run_exits_130_with_reports_that_say_they_are_partial() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("big.csv");
    let mut text = String::from("Name,Phone\n");
    for i in 0..BIG_ROWS {
        text.push_str(&format!("Lead {i},+49151{:08}\n", 20_000_000 + i));
    }
    std::fs::write(&csv, text).unwrap();
    let (json_path, html_path) = (dir.path().join("r.json"), dir.path().join("r.html"));
    let mut child = leadsync()
        .args(["import"])
        .arg(&csv)
        .args(["--dry-run", "--offline", "--campaign", "1", "--report"])
        .arg(&json_path)
        .arg("--report")
        .arg(&html_path)
        .spawn()
        .unwrap();
    // The JSON writer's row scratch file fills once rows flow: the run is reading.
    wait_until(&mut child, "rows reach the JSON report", || {
        staged_bytes(dir.path(), ".r.json.rows.") > 0
    });
    let (code, err) = interrupt(child);
    assert_eq!(code, Some(130), "{err}");
    let report = json(&std::fs::read_to_string(&json_path).unwrap());
    assert_eq!(report["run"]["interrupted"], true, "{}", report["run"]);
    let read = report["summary"]["rows"].as_u64().unwrap();
    assert!(read > 0 && read < BIG_ROWS, "{read} of {BIG_ROWS} rows: not stopped part-way");
    assert_eq!(rows(&report).len() as u64, read);
    assert_eq!(rows(&report).last().unwrap()["row"], read + 1, "the first rows, in file order");
    assert_schema(&report);
    let banner = format!("Interrupted: only the first {} rows were read", thousands(read));
    let page = std::fs::read_to_string(&html_path).unwrap();
    assert!(page.contains(&banner), "the HTML report lacks {banner:?}");
    assert!(
        err.contains(&format!("interrupted: only the first {} rows", thousands(read))),
        "{err}"
    );
    assert!(err.contains("partial reports: "), "{err}");
    let mut left: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    left.sort();
    assert_eq!(left, ["big.csv", "r.html", "r.json"], "staging files left behind");
}

/// The real binary as a child process to signal: a clean environment, stderr piped.
pub(crate) fn leadsync() -> Command {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("leadsync"));
    for var in ["LEADSYNC_BASE_URL", "LEADSYNC_TOKEN", "LEADSYNC_TOKEN_FILE", "LEADSYNC_TIMEOUT"] {
        command.env_remove(var);
    }
    command.stdout(Stdio::null()).stderr(Stdio::piped());
    command
}

/// Polls `ready` for up to a minute; fails with the child's stderr if it ends first.
pub(crate) fn wait_until(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before {what}:\n{}", stderr(child));
        }
        assert!(Instant::now() < deadline, "{what}: not within a minute");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Ctrl-C as a terminal sends it (SIGINT), then the exit code and stderr, waiting at most a
/// minute for the run to wind down.
pub(crate) fn interrupt(mut child: Child) -> (Option<i32>, String) {
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success(), "kill -INT failed");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code(), stderr(&mut child));
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("still running a minute after Ctrl-C:\n{}", stderr(&mut child));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn stderr(child: &mut Child) -> String {
    let mut text = String::new();
    child.stderr.take().unwrap().read_to_string(&mut text).unwrap();
    text
}

/// The size of the staging file in `dir` whose name starts with `prefix` (0 while there is none).
pub(crate) fn staged_bytes(dir: &Path, prefix: &str) -> u64 {
    let entries = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap());
    let mut staged = entries.filter(|e| e.file_name().to_string_lossy().starts_with(prefix));
    staged.next().and_then(|e| e.metadata().ok()).map_or(0, |m| m.len())
}

/// `1234567` → `1,234,567`, as the reports print counts.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Fails, listing why, unless `report` matches `schema/report.schema.json`.
pub(crate) fn assert_schema(report: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/report.schema.json");
    let schema = json(&std::fs::read_to_string(path).unwrap());
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<_> = validator.iter_errors(report).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// The HTML report's "Phone as typed" shows what was typed for a rejected row whatever other
/// reports are written (it used to need a CSV report beside it, and said "empty" otherwise).
#[test]
fn the_html_report_shows_the_phone_as_typed_without_a_csv_report() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(
        dir.path(),
        "typed.csv",
        "Name,Telefon,Kampagne\nA,0151 CALL ME,1\nB,+4915112345678,1\n",
    );
    let (json, html) = (dir.path().join("r.json"), dir.path().join("r.html"));
    Cli::new()
        .args(["import", csv.to_str().unwrap(), "--offline", "--report"])
        .args([&json])
        .args(["--report"])
        .args([&html])
        .expect_code(3);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(">0151 CALL ME</td>"), "the typed phone is shown");
    assert!(!page.contains("phone empty"), "not `empty`");
}

/// `--summary-json` for scripts: checked against `schema/summary.schema.json`, for a dry run
/// (to stdout) and for a sending run (to a file), with counts that match the report's.
#[test]
fn the_run_summary_for_scripts_matches_its_schema_and_the_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/summary.schema.json");
    let schema = json(&std::fs::read_to_string(path).unwrap());
    let validator = jsonschema::validator_for(&schema).unwrap();
    let valid = |doc: &Value| {
        let errors: Vec<_> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}\n{doc}");
    };
    let sb = TestSandbox::start();
    let csv = write(
        sb.dir.path(),
        "s.csv",
        "Name,Telefon,Kampagne\nA,0151 23000001,Spring Outreach\nB,12,Spring Outreach\nC,0151 23000003,Spring Outreach\n",
    );
    let csv = csv.to_str().unwrap();
    let (out, _) = sb
        .cli(ALICE)
        .args(["import", csv, "--dry-run", "--summary-json", "-", "-q"])
        .expect_code(3);
    let dry = json(&out);
    valid(&dry);
    assert_eq!(dry["exit_code"], 3);
    assert_eq!(
        (dry["counts"]["valid"].as_u64(), dry["counts"]["rejected"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(dry["codes"]["invalid_phone"], 1);
    assert!(dry["journal"].is_null() && dry["identity"].is_null() && dry["dry_run"] == true);
    let summary = sb.path("summary.json");
    sb.cli(ALICE)
        .env("LEADSYNC_STATE_DIR", sb.path("state"))
        .args(["import", csv, "--rate", "0", "--summary-json", summary.to_str().unwrap()])
        .args(["--report", sb.path("r.json").to_str().unwrap()])
        .expect_code(3);
    let sent = json(&std::fs::read_to_string(&summary).unwrap());
    valid(&sent);
    assert_eq!(sent["counts"]["created"], 2);
    assert_eq!(sent["push"]["sent"], 2);
    assert_eq!(sent["identity"]["account"], "user:1");
    assert_eq!(sent["reports"][0], sb.path("r.json").to_str().unwrap());
    let journal = sent["journal"].as_str().unwrap();
    let first_line = std::fs::read_to_string(journal).unwrap().lines().next().unwrap().to_string();
    assert_eq!(json(&first_line)["fingerprint"], sent["identity"]["fingerprint"]);
    assert!(!std::fs::read_to_string(&summary).unwrap().contains(ALICE), "no token");
}

/// `--report fix.xlsx`: original cells as text, leadsync's columns, a Summary sheet, red and
/// amber fills; a person fixes the rejected row in Excel and imports the same file again.
#[test]
fn the_xlsx_fix_file_round_trips_through_excel() {
    use calamine::{Data, Reader, Xlsx, open_workbook};
    let dir = tempfile::tempdir().unwrap();
    let csv = write(
        dir.path(),
        "fix.csv",
        "Name,Telefon,Kampagne,PLZ\nAnna,0151 23000001,Spring,01067\nBen,0151 CALL ME,Spring,01069\nCarl,0151 23000001,Spring,01099\n",
    );
    let fix = dir.path().join("fix.xlsx");
    Cli::new()
        .args(["import", csv.to_str().unwrap(), "--offline", "--report"])
        .args([&fix])
        .expect_code(3);
    let mut book: Xlsx<_> = open_workbook(&fix).unwrap();
    assert_eq!(book.sheet_names(), ["Leads", "Summary"]);
    let rows: Vec<Vec<Data>> =
        book.worksheet_range("Leads").unwrap().rows().map(<[Data]>::to_vec).collect();
    let header: Vec<String> = rows[0].iter().map(|c| c.to_string()).collect();
    assert_eq!(header[..4], ["Name", "Telefon", "Kampagne", "PLZ"]);
    assert_eq!(header[4..6], ["leadsync_row", "leadsync_status"]);
    assert_eq!(rows[1][1], Data::String("0151 23000001".into()), "the phone stays text");
    assert_eq!(rows[1][3], Data::String("01067".into()), "leading zeros stay");
    assert_eq!(rows[2][5], Data::String("rejected".into()));
    assert_eq!(rows[3][5], Data::String("duplicate".into()));
    let summary: Vec<Vec<Data>> =
        book.worksheet_range("Summary").unwrap().rows().map(<[Data]>::to_vec).collect();
    let line = |label: &str| {
        summary.iter().find(|r| r[0].to_string().starts_with(label)).map(|r| r[1].to_string())
    };
    assert_eq!(line("rejected").as_deref(), Some("1"));
    assert_eq!(line("invalid_phone").as_deref(), Some("1"));
    // Counts are numbers in the sheet, not text, so they can be summed and charted.
    let rejected = summary.iter().find(|r| r[0] == "rejected").unwrap();
    assert!(matches!(rejected[1], Data::Float(_) | Data::Int(_)), "{:?}", rejected[1]);
    let styles = unzip_entry(&fix, "xl/styles.xml");
    assert!(styles.contains("FFC7CE") && styles.contains("FFEB9C"), "red and amber fills");
    let sheet = unzip_entry(&fix, "xl/worksheets/sheet1.xml");
    assert!(
        sheet.contains("<autoFilter") && sheet.contains("state=\"frozen\""),
        "filter and frozen header"
    );
    // The person fixes Ben's number and deletes Carl's duplicate row in Excel, then imports the
    // same file again: every row is valid and leadsync's own columns are not sent as variables.
    let fixed = dir.path().join("fixed.xlsx");
    let mut out = rust_xlsxwriter::Workbook::new();
    let sheet = out.add_worksheet();
    for (r, row) in rows.iter().take(3).enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let text =
                if (r, c) == (2, 1) { "0151 23000002".to_string() } else { cell.to_string() };
            sheet.write_string(r as u32, c as u16, text).unwrap();
        }
    }
    out.save(&fixed).unwrap();
    let report = dir.path().join("again.json");
    Cli::new()
        .args(["import", fixed.to_str().unwrap(), "--offline", "--report"])
        .args([&report])
        .ok();
    let again = json(&std::fs::read_to_string(&report).unwrap());
    assert_eq!(again["summary"]["valid"], 2, "{again}");
    let variables = again["rows"][1]["variables"].as_object().unwrap();
    assert!(variables.keys().all(|k| !k.starts_with("leadsync_")), "{variables:?}");
    assert_eq!(variables["plz"], "01069");
}

pub(crate) fn unzip_entry(path: &Path, name: &str) -> String {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut text = String::new();
    archive.by_name(name).unwrap().read_to_string(&mut text).unwrap();
    text
}

/// At most 16,384 columns, Excel's own limit: a header of two million empty columns (4 MB) used
/// to take hundreds of MiB; now it is one clear line naming the file, the row and the limit.
#[test]
fn a_csv_wider_than_excel_is_refused_and_excel_width_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("wide.csv");
    std::fs::write(&wide, ",".repeat(2_000_000) + "\n" + &",".repeat(2_000_000) + "\n").unwrap();
    let (_, err) = Cli::new()
        .args(["import", wide.to_str().unwrap(), "--dry-run", "--offline"])
        .expect_code(1);
    assert!(err.contains("row 1 of") && err.contains("wide.csv"), "{err}");
    assert!(err.contains("2000001 columns, more than the 16384") && err.contains("--delimiter"));
    let header: Vec<String> = (0..16_384).map(|i| format!("c{i}")).collect();
    let mut cells = vec!["x".to_string(); 16_384];
    cells[0] = "+4915112345678".into();
    let csv = write(
        dir.path(),
        "excel.csv",
        &format!("Telefon,{}\n{}\n", header[1..].join(","), cells.join(",")),
    );
    let (_, err) =
        Cli::new().args(["import", csv.to_str().unwrap(), "--offline", "--campaign", "1"]).ok();
    assert!(err.contains("1 row: 1 valid"), "{err}");
}

/// Messages that pointed the wrong way: a text value written without quotes
/// in a mapping says that text needs quotes, and `--region` takes a country's name as a
/// country column does.
#[test]
fn an_unquoted_text_value_and_a_country_name_for_the_region_are_understood() {
    let dir = tempfile::tempdir().unwrap();
    let csv = crate::support::write(
        dir.path(),
        "l.csv",
        "Name,Telefon\nA,0151 23456789\nB,0664 1234567\n",
    );
    let mapping = crate::support::write(dir.path(), "m.toml", "phone = Telefon\n");
    let (_, err) = Cli::new()
        .args(["import", csv.to_str().unwrap(), "--mapping", mapping.to_str().unwrap()])
        .args(["--offline", "--dry-run", "--campaign", "1"])
        .expect_code(1);
    assert!(err.contains(r#"text values need quotes: write phone = "Telefon""#), "{err}");
    let report = dir.path().join("r.json");
    Cli::new()
        .args(["import", csv.to_str().unwrap(), "--region", "Österreich"])
        .args(["--offline", "--dry-run", "--campaign", "1", "--report", report.to_str().unwrap()])
        .ok();
    let rows = json(&std::fs::read_to_string(&report).unwrap());
    let phones: Vec<_> =
        rows["rows"].as_array().unwrap().iter().map(|r| r["phone"].clone()).collect();
    assert_eq!(phones[1], "+436641234567", "read as an Austrian number: {phones:?}");
}

/// `--edits`, the file a check in `leadsync ui` keeps: an edited cell is checked as edited, an
/// excluded row is reported and never sent, and the sheet is not touched.
#[test]
fn an_edits_file_changes_the_rows_as_read_and_leaves_the_sheet_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = write(
        dir.path(),
        "leads.csv",
        "name,phone\nAnna,0151 CALL ME\nBen,+4915123456789\nCem,+4917123456789\n",
    );
    let edits = write(
        dir.path(),
        "edits.json",
        r#"{"cells": {"2": {"1": "+49 151 76543210"}}, "excluded": [3]}"#,
    );
    let (report, _) = dry_run(&sheet, &["--edits", edits.to_str().unwrap()], 0);
    assert_eq!(row(&report, 2)["status"], "valid", "{report}");
    assert_eq!(row(&report, 2)["phone"], "+4915176543210");
    assert_eq!(row(&report, 3)["status"], "skipped");
    assert_eq!(codes(row(&report, 3)), ["excluded"]);
    assert_eq!(report["summary"]["excluded"], 1);
    assert_eq!(report["summary"]["valid"], 2);
    assert!(std::fs::read_to_string(&sheet).unwrap().contains("CALL ME"));

    // Without the file the sheet is what it says.
    let (plain, _) = dry_run(&sheet, &[], 3);
    assert_eq!(row(&plain, 2)["status"], "rejected");
    assert!(plain["summary"].get("excluded").is_none(), "written only when there are any");

    let bad = write(dir.path(), "bad.json", r#"{"rows": {}}"#);
    let (_, err) = Cli::new()
        .args(["import"])
        .args([&sheet])
        .args(["--offline", "--campaign", "1", "--edits"])
        .args([&bad])
        .expect_code(1);
    assert!(err.contains("bad.json") && err.contains("unknown field `rows`"), "{err}");
}

/// calamine panics on this damaged XLS (found by mutating the fixture). The panic is caught and
/// said as one line about the file, whatever `RUST_BACKTRACE` says; `-vv` shows where it was.
#[test]
fn a_caught_library_panic_is_one_line_whatever_rust_backtrace_says() {
    let file = fixture("panics_calamine.xls");
    for backtrace in ["0", "1", "full"] {
        let (_, err) = Cli::new()
            .env("RUST_BACKTRACE", backtrace)
            .args(["import"])
            .args([&file])
            .args(["--offline", "--campaign", "1", "--dry-run"])
            .expect_code(1);
        assert!(err.starts_with("error: ") && err.contains("panics_calamine.xls"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "RUST_BACKTRACE={backtrace}: {err}");
        assert!(!err.contains("panicked") && !err.contains("backtrace"), "{err}");
    }
    let (_, err) = Cli::new()
        .args(["-vv", "import"])
        .args([&file])
        .args(["--offline", "--campaign", "1", "--dry-run"])
        .expect_code(1);
    assert!(err.contains("a library panicked on the input; caught"), "{err}");
}

/// A run of a local file makes no temporary folder: one killed (by cron's timeout, by the
/// tests) cannot remove its own, and /tmp filled with thousands. The sheet here is a pipe no
/// one writes to, so the run waits while the temporary folder is looked for.
#[test]
fn a_run_of_a_local_file_leaves_no_temporary_folder_even_when_killed() {
    let dir = tempfile::tempdir().unwrap();
    let (tmp, sheet) = (dir.path().join("tmp"), dir.path().join("leads.csv"));
    std::fs::create_dir(&tmp).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&sheet).status().unwrap();
    assert!(made.success(), "mkfifo");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("leadsync"))
        .args(["import", sheet.to_str().unwrap(), "--offline", "--campaign", "1", "--dry-run"])
        .env("TMPDIR", &tmp)
        .env("LEADSYNC_STATE_DIR", dir.path().join("state"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Long enough for the binary to start and reach the sheet (a folder came first, before).
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().map(|e| e.unwrap().file_name()).collect();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(left.is_empty(), "temporary folders while the run waited: {left:?}");
}

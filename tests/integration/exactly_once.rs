//! Exactly once at the edges of "which lead is whose": the nine ways a second review found to
//! lose or double a row, each replayed through the binary against the sandbox. Every test
//! runs with `--allow-duplicates` or counts the service's leads by number, so a resend that the
//! service would otherwise refuse shows up as a second lead.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use leadsync::client::Lead;
use leadsync::sandbox::Faults;

use crate::identity::workbook;
use crate::support::{ALICE, CAROL, CAROL_ROTATED, Cli, TestSandbox, json, write};

/// A folder that outlives the sandboxes of a case, with the service's database in it, so the
/// service can be restarted on the same port (the same service to the journal) with other
/// faults.
pub(crate) struct Case {
    pub(crate) dir: tempfile::TempDir,
    port: u16,
}

impl Case {
    pub(crate) fn new() -> Case {
        Case { dir: tempfile::tempdir().unwrap(), port: 0 }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The service over this case's database, with `faults`, on the case's port.
    pub(crate) fn service(&mut self, faults: Faults) -> TestSandbox {
        let sb = TestSandbox::on_db_at(&self.path("service.db"), faults, self.port);
        self.port = sb.port();
        sb
    }

    /// A sheet of two rows, Anna's and Ben's, for campaign 10.
    fn anna_and_ben(&self) -> PathBuf {
        let text = "Name,Telefon,Kampagne\nAnna,0151 12345678,Spring Outreach\nBen,0151 22345678,Spring Outreach\n";
        write(self.dir.path(), "leads.csv", text)
    }

    /// Takes every lead off the stopped service: the writes of a killed service that never
    /// committed. (The sandbox finishes a slow commit before it stops, as a server that shuts
    /// down gracefully does; a crash that loses it is played by this.)
    fn lose_uncommitted_writes(&self) {
        let db = rusqlite::Connection::open(self.path("service.db")).unwrap();
        db.execute("DELETE FROM leads", []).unwrap();
    }

    pub(crate) fn cli(&self, sb: &TestSandbox, token: &str, args: &[&str]) -> Cli {
        sb.cli(token)
            .current_dir(self.dir.path())
            .env("LEADSYNC_STATE_DIR", self.path("state"))
            .args(args)
    }

    pub(crate) fn spawn(&self, sb: &TestSandbox, args: &[&str]) -> Child {
        Command::new(assert_cmd::cargo::cargo_bin("leadsync"))
            .current_dir(self.dir.path())
            .env("LEADSYNC_BASE_URL", &sb.base_url)
            .env("LEADSYNC_TOKEN", ALICE)
            .env("LEADSYNC_STATE_DIR", self.path("state"))
            .args(args)
            .arg("-q")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }

    /// Every journal line under the state folder.
    fn journal_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for folder in ["journals", "sync"] {
            let Ok(entries) = std::fs::read_dir(self.path("state").join(folder)) else { continue };
            for path in entries.map(|e| e.unwrap().path()) {
                if path.extension().is_some_and(|e| e == "jsonl") {
                    let text = std::fs::read_to_string(path).unwrap_or_default();
                    lines.extend(text.lines().map(String::from));
                }
            }
        }
        lines
    }

    /// Waits (bounded) until the journals hold `n` attempts.
    pub(crate) fn wait_for_attempts(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            let attempts =
                self.journal_lines().iter().filter(|l| l.contains("\"attempt\"")).count();
            if attempts >= n {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("no {n} attempts journaled in 30 s");
    }
}

pub(crate) fn leads(sb: &TestSandbox, token: &str) -> Vec<Lead> {
    sb.block_on(sb.client(token).list_leads()).unwrap()
}

/// How many leads the service holds for each number.
fn per_number(leads: &[Lead]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for lead in leads {
        *counts.entry(lead.phone_number.clone()).or_default() += 1;
    }
    counts
}

/// The sheet grows by a row, Cleo's.
fn add_cleo(csv: &Path) {
    let grown = std::fs::read_to_string(csv).unwrap() + "Cleo,0151 32345678,Spring Outreach\n";
    std::fs::write(csv, grown).unwrap();
}

pub(crate) fn kill(mut child: Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Rewrites a journal line: the outcome of `row` becomes "in doubt" with `commit_by`.
fn put_in_doubt(journal: &Path, row: u64, commit_by: u64) {
    let text = std::fs::read_to_string(journal).unwrap();
    let mut found = false;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let value = json(line);
            if value["event"] == "outcome" && value["row"] == row {
                found = true;
                let entry = serde_json::json!({"event": "outcome", "row": row,
                    "status": "in_doubt", "fp": value["fp"], "commit_by": commit_by});
                return entry.to_string();
            }
            line.to_string()
        })
        .filter(|line| !line.contains("\"finished\""))
        .collect();
    assert!(found, "row {row} has an outcome in {}", journal.display());
    std::fs::write(journal, lines.join("\n") + "\n").unwrap();
}

fn only_journal(dir: &Path) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].clone()
}

fn report_row(report: &Path, row: u64) -> serde_json::Value {
    let report = json(&std::fs::read_to_string(report).unwrap());
    report["rows"].as_array().unwrap().iter().find(|r| r["row"] == row).unwrap().clone()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

pub(crate) const FAST: [&str; 6] = ["--rate", "0", "--timeout", "1", "--max-retries", "2"];

/// Scenario 1: January's write is in doubt and never committed; February, another sheet with the same
/// row, creates its lead. Rerunning January must not call February's lead its own: one number
/// in one campaign is one lead, which January reports as already on the service.
#[test]
fn a_row_in_doubt_never_takes_another_runs_lead() {
    another_runs_lead_is_never_taken(None);
}

/// With `lead_key = false` rows in doubt are matched by campaign and number: still one lead.
#[test]
fn without_lead_keys_another_runs_claimed_lead_is_still_not_taken() {
    let mapping = "phone = \"Telefon\"\ncampaign_column = \"Kampagne\"\nlead_key = false\n[variables]\ncustomer_name = \"Name\"\n";
    another_runs_lead_is_never_taken(Some(mapping));
}

fn another_runs_lead_is_never_taken(mapping: Option<&str>) {
    let mut case = Case::new();
    let book = case.path("leads.xlsx");
    let row = vec![("Anna".to_string(), "+4915112345678".to_string())];
    workbook(&book, &[("January", row.clone()), ("February", row)]);
    let (jan_report, feb_report) = (case.path("January.json"), case.path("February.json"));
    let book_arg = book.to_str().unwrap().to_string();
    let mapping_file = mapping.map(|text| write(case.dir.path(), "mapping.toml", text));
    let mapping_args: Vec<String> = mapping_file
        .iter()
        .flat_map(|m| ["--mapping".to_string(), m.display().to_string()])
        .collect();
    let args = |sheet: &'static str, report: &Path| -> Vec<String> {
        ["import", &book_arg, "--sheet", sheet, "--allow-duplicates", "--report"]
            .into_iter()
            .map(String::from)
            .chain([report.display().to_string()])
            .chain(FAST.map(String::from))
            .chain(mapping_args.iter().cloned())
            .collect()
    };
    let (jan, feb) = (args("January", &jan_report), args("February", &feb_report));
    let (jan, feb): (Vec<&str>, Vec<&str>) =
        (jan.iter().map(String::as_str).collect(), feb.iter().map(String::as_str).collect());
    // January's write commits slowly; the import and the service are killed before it does.
    let slow = Faults { slow_commit_rate: 1.0, stall: Duration::from_secs(5), ..Faults::default() };
    let sb = case.service(slow);
    let child = case.spawn(&sb, &jan);
    case.wait_for_attempts(1);
    std::thread::sleep(Duration::from_millis(300));
    kill(child);
    drop(sb);
    case.lose_uncommitted_writes();
    let sb = case.service(Faults::default());
    let (_, err) = case.cli(&sb, ALICE, &feb).ok();
    // The plan line says when rows go without their key.
    assert_eq!(
        err.contains("without their own key (lead_key = false)"),
        mapping.is_some(),
        "{err}"
    );
    let journal = std::fs::read_dir(case.path("state/journals"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("January") && p.extension().unwrap() == "jsonl")
        .unwrap();
    assert!(journal.exists());
    // January has nothing left to send: no plan line.
    let (_, err) = case.cli(&sb, ALICE, &jan).ok();
    assert!(!err.contains("rows to send") && !err.contains("row to send"), "{err}");
    // One number in one campaign is one lead, whichever sheet holds it: February sent it once
    // January's lost write could no longer commit, and January, resumed, names February's lead
    // as already on the service, never as its own.
    let on_service = leads(&sb, ALICE);
    assert_eq!(on_service.len(), 1, "one lead for the number: {on_service:?}");
    let (jan_row, feb_row) = (report_row(&jan_report, 2), report_row(&feb_report, 2));
    assert_eq!(feb_row["status"], "created", "{feb_row}");
    assert_eq!(jan_row["status"], "skipped", "{jan_row}");
    assert_eq!(jan_row["lead_id"], feb_row["lead_id"], "the number's one lead");
}

/// Scenario 2: Two rows with one number, name and campaign but different secondary contacts, under
/// faults that leave writes in doubt: each lead carries its own row's secondary contact.
#[test]
fn rows_that_differ_only_in_their_secondary_contact_keep_their_own() {
    for seed in [27, 3, 11] {
        let mut case = Case::new();
        let csv = write(
            case.dir.path(),
            "leads.csv",
            "Name,Telefon,Mobil,Kampagne\nAnna,0151 12345678,030 1111111,Spring Outreach\nAnna,0151 12345678,030 2222222,Spring Outreach\n",
        );
        let faults =
            Faults { fail_rate: 0.4, commit_fail_rate: 0.5, seed: Some(seed), ..Faults::default() };
        let sb = case.service(faults);
        let args = ["import", csv.to_str().unwrap(), "--allow-duplicates", "--rate", "0"];
        let more = ["--concurrency", "1", "--timeout", "1", "--max-retries", "20"];
        case.cli(&sb, ALICE, &args).args(more).ok();
        let mut seconds: Vec<String> = leads(&sb, ALICE)
            .iter()
            .flat_map(|l| l.secondary_contacts.iter().map(|c| c.phone_number.clone()))
            .collect();
        seconds.sort();
        assert_eq!(seconds, ["+49301111111", "+49302222222"], "seed {seed}");
    }
}

/// Scenario 3: A journal started with `--timeout 1`, resumed with `--timeout 5` by a run that sends a
/// row with a slow commit and is killed, then resumed with `--timeout 1`: the third run must
/// wait out the second run's window (10 s), not its own (2 s), before sending the row again.
#[test]
fn the_commit_window_of_a_killed_run_is_its_own_attempts() {
    let mut case = Case::new();
    let csv = write(
        case.dir.path(),
        "leads.csv",
        "Name,Telefon,Kampagne\nAnna,0151 12345678,Spring Outreach\n",
    );
    let import = ["import", csv.to_str().unwrap(), "--allow-duplicates", "--rate", "0"];
    // Every write commits 4 s after it arrives, whether or not its client waited.
    let slow = Faults { slow_commit_rate: 1.0, stall: Duration::from_secs(4), ..Faults::default() };
    // The first run (`--timeout 1`) is killed with its write, and the service, before it commits.
    let sb = case.service(slow.clone());
    let child = case.spawn(&sb, &[&import[..], &["--timeout", "1"]].concat());
    case.wait_for_attempts(1);
    std::thread::sleep(Duration::from_millis(300));
    kill(child);
    drop(sb);
    case.lose_uncommitted_writes();
    // The second (`--timeout 5`) waits out the first's window, resends, and is killed.
    let sb = case.service(slow);
    let child = case.spawn(&sb, &[&import[..], &["--timeout", "5", "--max-retries", "2"]].concat());
    case.wait_for_attempts(2);
    std::thread::sleep(Duration::from_millis(300));
    kill(child);
    assert!(leads(&sb, ALICE).is_empty(), "the resend has not committed yet");
    case.cli(&sb, ALICE, &import).args(["--timeout", "1", "--max-retries", "2"]).ok();
    // Any resend would land 4 s after it was made.
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(leads(&sb, ALICE).len(), 1, "the row was sent twice");
}

/// Scenario 4: Anything journaled after `finished` reopens the run: a changed sheet is then refused
/// instead of starting over and sending every row again.
#[test]
fn an_attempt_after_finished_reopens_the_run() {
    let mut case = Case::new();
    let csv = case.anna_and_ben();
    let sb = case.service(Faults::default());
    let import = ["import", csv.to_str().unwrap(), "--allow-duplicates", "--rate", "0"];
    case.cli(&sb, ALICE, &import).ok();
    // A later run of the same journal sent row 3 again and lost the answer.
    let journal = only_journal(&case.path("state/journals"));
    let lines = std::fs::read_to_string(&journal).unwrap();
    let attempt =
        lines.lines().find(|l| l.contains("\"attempt\"") && l.contains("\"row\":3")).unwrap();
    let mut text = lines.clone();
    text.push_str(attempt);
    text.push('\n');
    std::fs::write(&journal, text).unwrap();
    add_cleo(&csv);
    let (_, err) = case.cli(&sb, ALICE, &import).expect_code(1);
    assert!(err.contains("changed since the unfinished run"), "{err}");
    assert_eq!(leads(&sb, ALICE).len(), 2, "nothing sent again");
}

/// Scenario 5: A row in doubt that a guard now turns away is settled from the lead list, waiting for
/// its deadline: its write commits while the run is under way, and the row is reported as
/// created (the lead is on the service), never as turned away with the journal finished.
#[test]
fn a_guarded_row_in_doubt_is_settled_before_the_run_finishes() {
    let mut case = Case::new();
    let csv = case.anna_and_ben();
    let sb = case.service(Faults::default());
    let report = case.path("report.json");
    let import = ["import", csv.to_str().unwrap(), "--allow-duplicates", "--rate", "0"];
    let report_args = ["--report", report.to_str().unwrap()];
    case.cli(&sb, ALICE, &import).args(report_args).ok();
    // Anna's write is in doubt for 4 more seconds, and not on the service yet.
    let journal = only_journal(&case.path("state/journals"));
    put_in_doubt(&journal, 2, now_ms() + 4_000);
    drop(sb);
    let db = rusqlite::Connection::open(case.path("service.db")).unwrap();
    db.execute("DELETE FROM leads WHERE phone_number = '+4915112345678'", []).unwrap();
    drop(db);
    let sb = case.service(Faults::default());
    let suppress = write(case.dir.path(), "dnc.csv", "Telefon\n0151 12345678\n");
    let extra = ["--suppress", suppress.to_str().unwrap()];
    let child = case.spawn(&sb, &[&import[..], &extra[..], &report_args[..]].concat());
    // Her write commits while the run waits.
    std::thread::sleep(Duration::from_millis(1_000));
    let attempt = std::fs::read_to_string(&journal).unwrap();
    let key = attempt
        .lines()
        .map(json)
        .find(|l| l["event"] == "attempt" && l["row"] == 2)
        .and_then(|l| l["key"].as_str().map(String::from));
    let mut variables: leadsync::client::Variables =
        [("customer_name".to_string(), "Anna".to_string())].into_iter().collect();
    if let Some(key) = key {
        variables.insert("leadsync_key".into(), key);
    }
    let lead = leadsync::client::NewLead {
        phone_number: "+4915112345678".into(),
        campaign_id: 10,
        variables,
        allow_dupplicate: true,
        secondary_contacts: Vec::new(),
    };
    sb.block_on(sb.client(ALICE).create_lead(&lead)).unwrap();
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(0));
    let anna = report_row(&report, 2);
    assert_eq!(anna["status"], "created", "{anna}");
    let last = std::fs::read_to_string(&journal).unwrap().lines().last().unwrap().to_string();
    assert!(last.contains("\"finished\""), "finished once Anna was settled: {last}");
    let counts = per_number(&leads(&sb, ALICE));
    assert!(counts.values().all(|n| *n == 1), "{counts:?}");
}

/// Scenario 6: `sync` killed while a write is in doubt, then a row appended to the sheet, then `sync`
/// again: the new run takes over the old run's doubt and its deadline instead of sending the
/// row again.
#[test]
fn sync_carries_the_doubts_of_a_killed_run_into_a_grown_sheet() {
    let (case, sb, args) = killed_sync_then_a_grown_sheet();
    case.cli(&sb, ALICE, &args.iter().map(String::as_str).collect::<Vec<_>>()).expect_code(0);
    each_number_once_after_late_commits(&sb);
}

/// Scenario 6, once more: the `sync` that took over the doubts is itself killed while it waits
/// for their deadline. The next `sync` resumes its journal and still settles each taken-over
/// row by its key (its journal holds no attempt line for them), never by content.
#[test]
fn doubts_taken_over_by_a_killed_sync_are_still_settled_by_key() {
    let (case, sb, args) = killed_sync_then_a_grown_sheet();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = case.spawn(&sb, &args);
    std::thread::sleep(Duration::from_millis(1_500));
    kill(child);
    let carried = case.journal_lines().iter().filter(|l| l.contains("\"carried\"")).count();
    assert!(carried > 0, "the second sync took the doubts over before it was killed");
    case.cli(&sb, ALICE, &args).expect_code(0);
    each_number_once_after_late_commits(&sb);
}

/// A `sync` of Anna and Ben against a service whose writes commit 3 s late, killed with its
/// first write in doubt; then Cleo is added to the sheet. Returns the sync's arguments.
fn killed_sync_then_a_grown_sheet() -> (Case, TestSandbox, Vec<String>) {
    let mut case = Case::new();
    let csv = case.anna_and_ben();
    let slow = Faults { slow_commit_rate: 1.0, stall: Duration::from_secs(3), ..Faults::default() };
    let sb = case.service(slow);
    let args: Vec<String> = [
        "sync",
        csv.to_str().unwrap(),
        "--allow-duplicates",
        "--rate",
        "0",
        "--timeout",
        "2",
        "--concurrency",
        "1",
        "--max-retries",
        "2",
    ]
    .map(String::from)
    .to_vec();
    let child = case.spawn(&sb, &args.iter().map(String::as_str).collect::<Vec<_>>());
    case.wait_for_attempts(1);
    std::thread::sleep(Duration::from_millis(200));
    kill(child);
    add_cleo(&csv);
    (case, sb, args)
}

/// Once any late commit has landed, each of the three numbers is on the service once.
fn each_number_once_after_late_commits(sb: &TestSandbox) {
    std::thread::sleep(Duration::from_secs(4));
    let counts = per_number(&leads(sb, ALICE));
    assert_eq!(counts.len(), 3, "{counts:?}");
    assert!(counts.values().all(|n| *n == 1), "a row sent twice: {counts:?}");
}

/// Scenario 7: An account without assistants is the same account after its token rotates: the second
/// import resumes the finished run instead of sending every row again.
#[test]
fn an_account_without_assistants_keeps_its_runs_across_a_token_rotation() {
    let mut case = Case::new();
    let rows: String = (0..20).map(|i| format!("K{i},0151 9900{i:04},Carol Campaign\n")).collect();
    let csv = write(case.dir.path(), "carol.csv", &format!("Name,Telefon,Kampagne\n{rows}"));
    let sb = case.service(Faults::default());
    let import = ["import", csv.to_str().unwrap(), "--allow-duplicates", "--rate", "0"];
    case.cli(&sb, CAROL, &import).ok();
    case.cli(&sb, CAROL_ROTATED, &import).ok();
    assert_eq!(leads(&sb, CAROL).len(), 20);
    let header = json(&case.journal_lines()[0]);
    let names = header.to_string();
    assert!(names.contains("campaign:30") && !names.contains("token-carol"), "{names}");
}

/// Scenario 8: One file spelled three ways (plain, through `..`, through a symbolic link) is one run
/// with one journal and one lock.
#[test]
fn a_path_spelled_three_ways_is_one_run() {
    let mut case = Case::new();
    std::fs::create_dir(case.path("sub")).unwrap();
    write(
        case.dir.path(),
        "p.csv",
        "Name,Telefon,Kampagne\nAnna,0151 12345678,Spring Outreach\nBen,0151 22345678,Spring Outreach\n",
    );
    std::os::unix::fs::symlink(case.path("p.csv"), case.path("link.csv")).unwrap();
    let sb = case.service(Faults::default());
    for spelling in ["p.csv", "sub/../p.csv", "link.csv"] {
        case.cli(&sb, ALICE, &["import", spelling, "--allow-duplicates", "--rate", "0"]).ok();
    }
    assert_eq!(leads(&sb, ALICE).len(), 2);
    let journals = std::fs::read_dir(case.path("state/journals"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "jsonl"))
        .count();
    assert_eq!(journals, 1);
}

/// Scenario 9: Suppressing the secondary number of a row an earlier, finished run created is a
/// warning on the created row, never a stop.
#[test]
fn suppressing_a_created_rows_secondary_number_is_a_warning() {
    let mut case = Case::new();
    let csv = write(
        case.dir.path(),
        "leads.csv",
        "Name,Telefon,Mobil,Kampagne\nAnna,0151 12345678,030 1111111,Spring Outreach\nBen,0151 22345678,,Spring Outreach\n",
    );
    let sb = case.service(Faults::default());
    let report = case.path("report.json");
    let import =
        ["import", csv.to_str().unwrap(), "--rate", "0", "--report", report.to_str().unwrap()];
    case.cli(&sb, ALICE, &import).ok();
    let suppress = write(case.dir.path(), "dnc.csv", "Telefon\n030 1111111\n");
    let (_, err) =
        case.cli(&sb, ALICE, &import).args(["--suppress", suppress.to_str().unwrap()]).ok();
    let anna = report_row(&report, 2);
    assert_eq!(anna["status"], "created", "{anna} {err}");
    assert!(anna.to_string().contains("already created the lead"), "{anna}");
    assert_eq!(leads(&sb, ALICE).len(), 2);
}

/// Under `sync`, a row a suppression list now names, whose lead an earlier version of the sheet
/// created, is reported as created with "remove it on the service", not as "not called" while
/// its lead waits to be called (found by the simulation, seed 30259).
#[test]
fn a_suppressed_row_an_earlier_sheet_created_is_reported_created() {
    let mut case = Case::new();
    let csv = case.anna_and_ben();
    let sb = case.service(Faults::default());
    let report = case.path("report.json");
    let sync = ["sync", csv.to_str().unwrap(), "--rate", "0", "--report", report.to_str().unwrap()];
    case.cli(&sb, ALICE, &sync).ok();
    add_cleo(&csv);
    let suppress = write(case.dir.path(), "dnc.csv", "Telefon\n0151 12345678\n");
    case.cli(&sb, ALICE, &sync).args(["--suppress", suppress.to_str().unwrap()]).ok();
    let anna = report_row(&report, 2);
    assert_eq!(anna["status"], "created", "{anna}");
    assert!(anna["lead_id"].as_u64().is_some(), "{anna}");
    assert!(anna.to_string().contains("remove it on the service"), "{anna}");
    assert_eq!(leads(&sb, ALICE).len(), 3, "Cleo sent, nothing sent twice");
}

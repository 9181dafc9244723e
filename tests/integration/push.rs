//! Sending for real: the binary against a faulty sandbox, then the service's final state is
//! checked — every valid row exactly once, variables and secondary contacts intact, nothing for
//! rejected rows — also across SIGKILL, Ctrl-C, dropped connections and duplicates allowed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use leadsync::sandbox::Faults;

use crate::support::{ALICE, ALICE_ROTATED, BOB, Cli, TestSandbox, json, write};

/// A sheet of `rows` leads for campaign 10 ("Spring Outreach"): every 10th row has an invalid
/// number, every 3rd a secondary contact, and with `repeat` every 7th repeats the number before.
fn sheet(rows: usize, repeat: bool) -> String {
    let mut csv = String::from("Name,Telefon,Mobil,Kampagne,Stadt\n");
    for i in 0..rows {
        let phone = if i % 10 == 9 {
            "12".to_string()
        } else if repeat && i % 7 == 6 {
            format!("0151 23{:06}", i - 1)
        } else {
            format!("0151 23{i:06}")
        };
        let second =
            if i % 3 == 0 { format!("+49 30 {:07}", 1_000_000 + i) } else { String::new() };
        csv.push_str(&format!("Kunde {i} Müller,{phone},{second},Spring Outreach,Köln\n"));
    }
    csv
}

/// The valid rows of `sheet`: (E.164, customer name, has a secondary contact).
fn expected(rows: usize, repeat: bool) -> Vec<(String, String, bool)> {
    (0..rows)
        .filter(|i| i % 10 != 9)
        .map(|i| {
            let n = if repeat && i % 7 == 6 { i - 1 } else { i };
            (format!("+4915123{n:06}"), format!("Kunde {i} Müller"), i % 3 == 0)
        })
        .collect()
}

/// Every expected row is on the service exactly once (per copy, when duplicates are allowed),
/// with its variables and secondary contact, and nothing else is.
fn assert_exactly_once(sb: &TestSandbox, rows: usize, repeat: bool) {
    let leads = sb.block_on(sb.client(ALICE).list_leads()).unwrap();
    let mut on_service: HashMap<(String, String), usize> = HashMap::new();
    for lead in &leads {
        assert_eq!(lead.campaign_id, 10);
        assert_eq!(lead.variables.get("stadt").map(String::as_str), Some("Köln"), "{lead:?}");
        let name = lead.variables["customer_name"].clone();
        let wants_contact =
            name.trim_start_matches("Kunde ").split(' ').next().unwrap().parse::<usize>().unwrap()
                % 3
                == 0;
        assert_eq!(lead.secondary_contacts.len(), usize::from(wants_contact), "{lead:?}");
        *on_service.entry((lead.phone_number.clone(), name)).or_default() += 1;
    }
    let wanted = expected(rows, repeat);
    for (phone, name, _) in &wanted {
        let count = on_service.remove(&(phone.clone(), name.clone())).unwrap_or(0);
        assert_eq!(count, 1, "row for {phone} {name} is on the service {count} times");
    }
    assert!(on_service.is_empty(), "leads nobody asked for: {on_service:?}");
    assert_eq!(leads.len(), wanted.len());
}

struct Run {
    dir: PathBuf,
    csv: PathBuf,
}

impl Run {
    fn new(sb: &TestSandbox, rows: usize, repeat: bool) -> Run {
        let dir = sb.dir.path().to_path_buf();
        let csv = write(&dir, "leads.csv", &sheet(rows, repeat));
        Run { dir, csv }
    }

    fn cli(&self, sb: &TestSandbox, extra: &[&str]) -> Cli {
        sb.cli(ALICE)
            .env("LEADSYNC_STATE_DIR", self.dir.join("state"))
            .args(["import"])
            .args([&self.csv])
            .args(defaults(extra))
            .args(["--report"])
            .args([self.dir.join("report.json")])
            .args(extra)
    }

    fn spawn(&self, sb: &TestSandbox, extra: &[&str]) -> Child {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("leadsync"));
        cmd.env("LEADSYNC_BASE_URL", &sb.base_url)
            .env("LEADSYNC_TOKEN", ALICE)
            .env("LEADSYNC_STATE_DIR", self.dir.join("state"))
            .arg("import")
            .arg(&self.csv)
            .args(defaults(extra))
            .arg("-q")
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd.spawn().unwrap()
    }

    fn report(&self) -> serde_json::Value {
        json(&std::fs::read_to_string(self.dir.join("report.json")).unwrap())
    }
}

/// Fast, patient sending, unless the test says otherwise. A short timeout keeps the wait for
/// writes in doubt (twice the timeout) short.
fn defaults(extra: &[&str]) -> Vec<&'static str> {
    [("--rate", "0"), ("--concurrency", "8"), ("--max-retries", "20"), ("--timeout", "2")]
        .into_iter()
        .filter(|(flag, _)| !extra.contains(flag))
        .flat_map(|(flag, value)| [flag, value])
        .collect()
}

fn summary_count(report: &serde_json::Value, key: &str) -> u64 {
    report["summary"][key].as_u64().unwrap()
}

#[test]
fn a_clean_import_creates_every_valid_row_once() {
    let sb = TestSandbox::start();
    let run = Run::new(&sb, 60, false);
    let (_, err) = run.cli(&sb, &[]).expect_code(3);
    assert!(err.contains("journal:"), "{err}");
    assert_exactly_once(&sb, 60, false);
    let report = run.report();
    assert_eq!(summary_count(&report, "created"), 54);
    assert_eq!(summary_count(&report, "rejected"), 6);
    let created: Vec<&serde_json::Value> =
        report["rows"].as_array().unwrap().iter().filter(|r| r["status"] == "created").collect();
    assert!(created.iter().all(|r| r["lead_id"].as_u64().is_some()));
    // Run again: nothing is sent, and it says so.
    let (_, err) = run.cli(&sb, &[]).expect_code(3);
    assert!(err.contains("nothing to send"), "{err}");
    assert_exactly_once(&sb, 60, false);
    assert_eq!(
        summary_count(&run.report(), "created"),
        54,
        "the rerun reports the earlier outcomes"
    );
}

#[test]
fn server_errors_are_retried_until_every_row_is_in() {
    let sb =
        TestSandbox::with_faults(Faults { fail_rate: 0.3, seed: Some(7), ..Faults::default() });
    let run = Run::new(&sb, 80, false);
    run.cli(&sb, &[]).expect_code(3);
    let report = run.report();
    assert_eq!(summary_count(&report, "created"), 72, "every valid row settled in one run");
    assert_eq!(summary_count(&report, "failed"), 0);
    let healthy = sb.reopen();
    assert_exactly_once(&healthy, 80, false);
}

#[test]
fn dropped_connections_are_reconciled_not_doubled() {
    let sb =
        TestSandbox::with_faults(Faults { drop_rate: 0.25, seed: Some(3), ..Faults::default() });
    let run = Run::new(&sb, 80, false);
    let (_, err) = run.cli(&sb, &[]).expect_code(3);
    assert!(err.contains("settled from the service's lead list"), "{err}");
    // A blind resend would be refused as a duplicate and reported skipped, not created.
    let report = run.report();
    assert_eq!(summary_count(&report, "created"), 72, "{err}");
    assert_eq!(summary_count(&report, "skipped_existing"), 0, "{err}");
    assert_exactly_once(&sb.reopen(), 80, false);
}

#[test]
fn duplicates_allowed_under_dropped_connections_are_still_exactly_once() {
    let sb =
        TestSandbox::with_faults(Faults { drop_rate: 0.25, seed: Some(11), ..Faults::default() });
    let run = Run::new(&sb, 90, true);
    run.cli(&sb, &["--allow-duplicates"]).expect_code(3);
    assert_exactly_once(&sb.reopen(), 90, true);
}

#[test]
fn rate_limits_slow_the_run_down_without_losing_rows() {
    let sb = TestSandbox::with_faults(Faults {
        rate_limit: Some(20),
        seed: Some(1),
        ..Faults::default()
    });
    let run = Run::new(&sb, 40, false);
    let (_, err) = run.cli(&sb, &[]).expect_code(3);
    assert!(err.contains("rate-limited"), "the sandbox's limit was hit: {err}");
    assert_exactly_once(&sb, 40, false);
}

#[test]
fn sigkill_at_any_point_then_rerun_gives_exactly_once() {
    for (kill_after_attempts, drop_rate, allow_duplicates) in
        [(1, 0.0, false), (40, 0.2, false), (90, 0.2, true)]
    {
        let keep = tempfile::tempdir().unwrap();
        let db = keep.path().join("sandbox.db");
        let faults = Faults {
            drop_rate,
            latency: Duration::from_millis(15),
            seed: Some(kill_after_attempts),
            ..Faults::default()
        };
        let sb = TestSandbox::on_db(&db, faults);
        let run = Run::new(&sb, 120, allow_duplicates);
        // Always with duplicates allowed: otherwise the service refuses a second lead for a
        // number, and a resend of every row would pass unseen. `allow_duplicates` picks the
        // sheet with repeated numbers.
        let extra: &[&str] = &["--allow-duplicates"];
        let mut child = run.spawn(&sb, extra);
        let journaled = wait_for_attempts(&run.dir.join("state"), kill_after_attempts);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(journaled >= kill_after_attempts, "the killed run had journaled {journaled}");
        let before = journal_lines(&run.dir.join("state"));
        let finished_before = before.iter().any(|l| l.contains("\"finished\""));
        assert!(!finished_before, "killed before it could finish");
        run.cli(&sb, extra).expect_code(3);
        // The rerun resumed the killed run's journal instead of starting a new one.
        let after = journal_lines(&run.dir.join("state"));
        assert_eq!(after[0], before[0], "the same run");
        assert_eq!(after[..before.len() - 1], before[..before.len() - 1], "appended to");
        assert!(after.last().unwrap().contains("\"finished\""), "and finished it");
        drop(sb);
        let healthy = TestSandbox::on_db(&db, Faults::default());
        assert_exactly_once(&healthy, 120, allow_duplicates);
    }
}

/// A rerun of a run that settled every row but was cut off before its `finished` line does
/// not read the lead list, which against a service holding a million leads is most of a
/// resume: nothing is in doubt and a resumed run keeps its own baseline. It still ends exactly
/// once, and `--skip-existing` does read the list.
#[test]
fn a_resume_with_nothing_in_doubt_does_not_read_the_lead_list() {
    let sb = TestSandbox::start();
    let run = Run::new(&sb, 30, false);
    let (_, first) = run.cli(&sb, &["-v"]).expect_code(3);
    assert!(!first.contains("lead list not read"), "a new run needs its baseline:\n{first}");
    let journal = only_journal(&run.dir.join("state"));
    let lines = std::fs::read_to_string(&journal).unwrap();
    let (settled, finished) = lines.trim_end().rsplit_once('\n').unwrap();
    assert!(finished.contains("\"finished\""), "{finished}");
    std::fs::write(&journal, format!("{settled}\n")).unwrap();
    let (_, resumed) = run.cli(&sb, &["-v"]).expect_code(3);
    assert!(resumed.contains("lead list not read"), "{resumed}");
    assert_exactly_once(&sb, 30, false);
    std::fs::write(&journal, format!("{settled}\n")).unwrap();
    let (_, skipping) = run.cli(&sb, &["-v", "--skip-existing"]).expect_code(3);
    assert!(!skipping.contains("lead list not read"), "{skipping}");
    assert_exactly_once(&sb, 30, false);
}

/// A row an earlier run left in doubt whose write did commit, with its commit deadline long
/// past: the resume must find its lead on the list it reads at start-up and settle it as
/// created. Without that list the row would look missing after its deadline and be sent twice.
#[test]
fn a_resume_settles_a_committed_row_in_doubt_from_the_lead_list() {
    let sb = TestSandbox::start();
    let run = Run::new(&sb, 30, false);
    run.cli(&sb, &[]).expect_code(3);
    let journal = only_journal(&run.dir.join("state"));
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    assert!(lines.pop().unwrap().contains("\"finished\""));
    let created = lines
        .iter()
        .position(|l| l.contains("\"outcome\"") && l.contains("\"created\""))
        .expect("a created row");
    let outcome = json(&lines[created]);
    lines[created] = serde_json::json!({"event": "outcome", "row": outcome["row"],
        "status": "in_doubt", "fp": outcome["fp"], "commit_by": 1})
    .to_string();
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let (_, resumed) = run.cli(&sb, &["-v"]).expect_code(3);
    assert!(!resumed.contains("lead list not read"), "{resumed}");
    assert_exactly_once(&sb, 30, false);
    let row = outcome["row"].as_u64().unwrap();
    let report = run.report();
    let settled = report["rows"].as_array().unwrap().iter().find(|r| r["row"] == row).unwrap();
    assert_eq!(settled["status"], "created", "{settled}");
}

/// Waits (bounded) until the run's journal holds `n` attempts; returns how many it holds.
fn wait_for_attempts(state: &Path, n: u64) -> u64 {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let attempts =
            journal_lines(state).iter().filter(|l| l.contains("\"attempt\"")).count() as u64;
        if attempts >= n || std::time::Instant::now() > deadline {
            return attempts;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The lines of the run's journal, or none before it exists.
pub(crate) fn journal_lines(state: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(state.join("journals")) else { return Vec::new() };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap_or_default()
                .lines()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn ctrl_c_drains_writes_and_the_rerun_finishes() {
    let sb = TestSandbox::with_faults(Faults {
        latency: Duration::from_millis(20),
        ..Faults::default()
    });
    let run = Run::new(&sb, 150, false);
    let child = run.spawn(&sb, &["--concurrency", "2"]);
    // Interrupt once sending is under way, not after a fixed time: on a loaded machine the
    // start-up alone took longer than 600 ms, and a signal before the run listens for it ends
    // (or, where the parent ignores SIGINT, misses) a run that has not begun.
    assert!(wait_for_attempts(&run.dir.join("state"), 10) >= 10, "the run never started sending");
    interrupt(&child);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    let journal = only_journal(&run.dir.join("state"));
    let lines = std::fs::read_to_string(&journal).unwrap();
    assert!(
        lines.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()),
        "every journal line is whole"
    );
    assert!(!lines.contains("\"finished\""));
    let (_, err) = run.cli(&sb, &[]).expect_code(3);
    assert!(err.contains("resumed"), "{err}");
    assert_exactly_once(&sb, 150, false);
}

#[test]
fn a_second_ctrl_c_quits_at_once_and_the_rerun_is_still_exactly_once() {
    let keep = tempfile::tempdir().unwrap();
    let db = keep.path().join("sandbox.db");
    // Slow answers: a graceful stop would wait seconds for the requests in flight.
    let slow =
        TestSandbox::on_db(&db, Faults { latency: Duration::from_secs(3), ..Faults::default() });
    let run = Run {
        dir: keep.path().to_path_buf(),
        csv: write(keep.path(), "leads.csv", &sheet(60, false)),
    };
    let child = run.spawn(&slow, &["--concurrency", "4"]);
    std::thread::sleep(Duration::from_millis(1500));
    interrupt(&child);
    std::thread::sleep(Duration::from_millis(100));
    let started = std::time::Instant::now();
    interrupt(&child);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "it did not wait for the requests in flight"
    );
    drop(slow);
    let healthy = TestSandbox::on_db(&db, Faults::default());
    run.cli(&healthy, &[]).expect_code(3);
    assert_exactly_once(&healthy, 60, false);
}

#[test]
fn a_changed_file_is_refused_until_restart() {
    let sb = TestSandbox::with_faults(Faults {
        latency: Duration::from_millis(20),
        ..Faults::default()
    });
    let run = Run::new(&sb, 100, false);
    let mut child = run.spawn(&sb, &["--concurrency", "1"]);
    // Killed once its journal exists (a fixed sleep lost that race on a loaded machine).
    let journaled = wait_for_attempts(&run.dir.join("state"), 1);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(journaled >= 1, "the run never journaled an attempt");
    std::fs::write(&run.csv, sheet(101, false)).unwrap();
    let (_, err) = run.cli(&sb, &[]).expect_code(1);
    assert!(err.contains("the source file changed") && err.contains("--restart"), "{err}");
    run.cli(&sb, &["--restart", "--skip-existing"]).expect_code(3);
    assert_exactly_once(&sb, 101, false);
}

#[test]
fn skip_existing_sends_only_new_rows_and_other_accounts_are_separate_runs() {
    let sb = TestSandbox::start();
    let run = Run::new(&sb, 30, false);
    let early = Run { dir: run.dir.clone(), csv: write(&run.dir, "early.csv", &sheet(10, false)) };
    early.cli(&sb, &[]).expect_code(3);
    let report_path = run.dir.join("skip.json");
    run.cli(&sb, &["--skip-existing", "--report"]).args([&report_path]).expect_code(3);
    let report = json(&std::fs::read_to_string(&report_path).unwrap());
    assert_eq!(summary_count(&report, "skipped_existing"), 9);
    assert_eq!(summary_count(&report, "created"), 18);
    assert_exactly_once(&sb, 30, false);
    // The same file for another account is a new run, not a resume that sends nothing.
    let (_, err) = sb
        .cli(BOB)
        .env("LEADSYNC_STATE_DIR", run.dir.join("state"))
        .args(["import"])
        .args([&run.csv])
        .args(["--rate", "0", "--campaign", "20"])
        .expect_code(3);
    assert!(!err.contains("nothing to send"), "{err}");
    assert_eq!(sb.block_on(sb.client(BOB).list_leads()).unwrap().len(), 27);
}

#[test]
fn two_syncs_at_once_one_waits_out() {
    let sb = TestSandbox::with_faults(Faults {
        latency: Duration::from_millis(30),
        ..Faults::default()
    });
    let run = Run::new(&sb, 60, false);
    let spawn_sync = || {
        Command::new(assert_cmd::cargo::cargo_bin("leadsync"))
            .env("LEADSYNC_BASE_URL", &sb.base_url)
            .env("LEADSYNC_TOKEN", ALICE)
            .env("LEADSYNC_STATE_DIR", run.dir.join("state"))
            .args(["sync"])
            .arg(&run.csv)
            .args(["--rate", "0", "--concurrency", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = spawn_sync();
    std::thread::sleep(Duration::from_millis(300));
    let second = spawn_sync().wait_with_output().unwrap();
    assert_eq!(second.status.code(), Some(4), "{}", String::from_utf8_lossy(&second.stderr));
    assert!(String::from_utf8_lossy(&second.stderr).contains("another `leadsync sync`"));
    let first = first.wait_with_output().unwrap();
    assert_eq!(first.status.code(), Some(3), "{}", String::from_utf8_lossy(&first.stderr));
    assert_exactly_once(&sb, 60, false);
    // A later sync of a grown sheet sends only the new rows.
    std::fs::write(&run.csv, sheet(70, false)).unwrap();
    let (_, err) = sb
        .cli(ALICE)
        .env("LEADSYNC_STATE_DIR", run.dir.join("state"))
        .args(["sync"])
        .args([&run.csv])
        .args(["--rate", "0"])
        .expect_code(3);
    assert!(
        err.lines().next().is_some_and(|l| l.contains(" sync: ") && l.ends_with(" started")),
        "sync's plain log line: {err}"
    );
    assert_exactly_once(&sb, 70, false);
}

fn interrupt(child: &Child) {
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

fn only_journal(state: &Path) -> PathBuf {
    let dir = state.join("journals");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries.pop().unwrap()
}

/// A sandbox whose writes misbehave after committing, in one of the ways that leave a write in
/// doubt, with duplicates allowed so that any resend of a stored row would be a second lead.
#[test]
fn writes_that_commit_then_fail_stall_or_garble_are_reconciled_never_doubled() {
    let stall = Duration::from_millis(1_500);
    let cases = [
        ("a 500 after the commit", Faults { commit_fail_rate: 0.3, ..Faults::default() }),
        (
            "an answer stalled past the timeout",
            Faults { stall_rate: 0.3, stall, ..Faults::default() },
        ),
        (
            "a commit after the client gave up",
            Faults { slow_commit_rate: 0.3, stall, ..Faults::default() },
        ),
        ("a 200 that is not the record", Faults { garble_rate: 0.3, ..Faults::default() }),
    ];
    for (what, faults) in cases {
        let sb = TestSandbox::with_faults(Faults { seed: Some(11), ..faults });
        let run = Run::new(&sb, 40, true);
        let (_, err) = run.cli(&sb, &["--allow-duplicates", "--timeout", "1"]).expect_code(3);
        assert!(err.contains("rows settled from the service's lead list"), "{what}: {err}");
        let report = run.report();
        assert_eq!(summary_count(&report, "created"), 36, "{what}: every valid row created");
        assert_eq!(summary_count(&report, "failed"), 0, "{what}");
        let healthy = sb.reopen();
        assert_exactly_once(&healthy, 40, true);
    }
}

/// A commit slower than the deadline rule allows, with no resends: the rows stay in doubt, the
/// journal is not finished, and the next run settles them from the lead list.
#[test]
fn rows_still_in_doubt_keep_the_run_unfinished_until_a_later_run_settles_them() {
    let keep = tempfile::tempdir().unwrap();
    let db = keep.path().join("sandbox.db");
    let faults = Faults {
        slow_commit_rate: 0.25,
        stall: Duration::from_millis(3_000),
        seed: Some(5),
        ..Faults::default()
    };
    let sb = TestSandbox::on_db(&db, faults);
    let port = sb.port();
    // The sheet, journal and report outlive the sandbox's own folder.
    let run = Run {
        dir: keep.path().to_path_buf(),
        csv: write(keep.path(), "leads.csv", &sheet(30, true)),
    };
    let extra = ["--allow-duplicates", "--timeout", "1", "--max-retries", "0"];
    let (_, err) = run.cli(&sb, &extra).expect_code(3);
    let report = run.report();
    let in_doubt = summary_count(&report, "failed");
    assert!(in_doubt > 0, "some rows were left in doubt: {err}");
    let journal = journal_lines(&run.dir.join("state"));
    assert!(!journal.iter().any(|l| l.contains("\"finished\"")), "not finished with rows in doubt");
    drop(sb);
    // The slow commits land meanwhile; the next run finds them instead of sending them again.
    std::thread::sleep(Duration::from_millis(3_000));
    let sb = TestSandbox::on_db_at(&db, Faults::default(), port);
    let (_, err) = run.cli(&sb, &extra).expect_code(3);
    assert!(
        err.contains(&format!("{in_doubt} rows settled from the service's lead list")),
        "{err}"
    );
    let journal = journal_lines(&run.dir.join("state"));
    assert!(journal.last().unwrap().contains("\"finished\""), "finished now");
    assert_exactly_once(&sb, 30, true);
}

#[test]
fn a_token_rotated_between_runs_resumes_the_same_run() {
    let sb = TestSandbox::with_faults(Faults {
        latency: Duration::from_millis(10),
        ..Faults::default()
    });
    let run = Run::new(&sb, 120, true);
    let mut child = run.spawn(&sb, &["--allow-duplicates", "--concurrency", "2"]);
    wait_for_attempts(&run.dir.join("state"), 20);
    child.kill().unwrap();
    child.wait().unwrap();
    let before = journal_lines(&run.dir.join("state"));
    assert!(before[0].contains("\"account\":\"user:1\""), "{}", before[0]);
    let (_, err) = sb
        .cli(ALICE_ROTATED)
        .env("LEADSYNC_STATE_DIR", run.dir.join("state"))
        .args(["import"])
        .args([&run.csv])
        .args(defaults(&[]))
        .args(["--allow-duplicates"])
        .expect_code(3);
    let after = journal_lines(&run.dir.join("state"));
    assert_eq!(after[0], before[0], "the same run, not a new one: {err}");
    assert!(!err.contains(ALICE_ROTATED) && !after.iter().any(|l| l.contains("token-alice")));
    assert_exactly_once(&sb, 120, true);
}

/// The real service's docs show its lists bare, wrapped and paged: an import that resumes
/// after a SIGKILL, under dropped connections (so rows are reconciled against the lead list,
/// walked page by page), and a sync of a grown sheet, work the same against each.
#[test]
fn import_resume_and_sync_work_with_every_list_shape() {
    use leadsync::sandbox::{ListShape, SandboxConfig};
    for shape in [ListShape::Bare, ListShape::Wrapped, ListShape::Paged] {
        let faults = Faults { drop_rate: 0.2, seed: Some(21), ..Faults::default() };
        let sb = TestSandbox::with_config(SandboxConfig {
            faults,
            list_shape: shape,
            ..SandboxConfig::default()
        });
        let run = Run::new(&sb, 60, false);
        let mut child = run.spawn(&sb, &["--concurrency", "2"]);
        wait_for_attempts(&run.dir.join("state"), 10);
        child.kill().unwrap();
        child.wait().unwrap();
        run.cli(&sb, &[]).expect_code(3);
        let report = run.report();
        assert_eq!(summary_count(&report, "created"), 54, "{shape:?}: {report}");
        std::fs::write(&run.csv, sheet(80, false)).unwrap();
        let (_, err) = sb
            .cli(ALICE)
            .env("LEADSYNC_STATE_DIR", run.dir.join("state"))
            .args(["sync"])
            .args([&run.csv])
            .args(defaults(&[]))
            .expect_code(3);
        assert!(err.contains("54 skipped"), "{shape:?}: only new rows sent: {err}");
        let healthy = sb.reopen();
        assert_exactly_once(&healthy, 80, false);
    }
}

/// SIGTERM (what `systemctl stop`, `timeout` and Kubernetes send) stops a `sync` as Ctrl-C does:
/// requests in flight finish, the summary and the report are written, the exit code is 143, and
/// the next run sends the rest exactly once.
#[test]
fn sigterm_stops_a_sync_gracefully_with_its_summary_and_report() {
    let sb = TestSandbox::with_faults(Faults {
        latency: Duration::from_millis(20),
        ..Faults::default()
    });
    let run = Run::new(&sb, 150, false);
    let report = run.dir.join("report.json");
    let child = Command::new(assert_cmd::cargo::cargo_bin("leadsync"))
        .env("LEADSYNC_BASE_URL", &sb.base_url)
        .env("LEADSYNC_TOKEN", ALICE)
        .env("LEADSYNC_STATE_DIR", run.dir.join("state"))
        .arg("sync")
        .arg(&run.csv)
        .args(defaults(&["--concurrency"]))
        .args(["--concurrency", "2", "--report"])
        .arg(&report)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{err}");
    assert!(err.contains("stopping (SIGTERM)"), "{err}");
    // The summary's lines, not the progress lines ("N rows read · …") written while it ran.
    assert!(err.contains(" rows: ") && err.contains("interrupted: "), "a summary: {err}");
    let written = json(&std::fs::read_to_string(&report).unwrap());
    assert_eq!(written["run"]["interrupted"], true, "the report says it is partial");
    sb.cli(ALICE)
        .env("LEADSYNC_STATE_DIR", run.dir.join("state"))
        .args(["sync"])
        .args([&run.csv])
        .args(defaults(&[]))
        .expect_code(3);
    assert_exactly_once(&sb, 150, false);
}

/// Ctrl-C half-way through a paced run: the rows it did not get to are "not sent yet", never
/// "failed", in the terminal, the JSON, the HTML and the XLSX report, and the next run sends
/// them exactly once.
#[test]
fn rows_a_stopped_run_did_not_get_to_are_not_sent_yet_never_failed() {
    let sb = TestSandbox::start();
    let run = Run::new(&sb, 120, false);
    let (json_report, html, xlsx) =
        (run.dir.join("r.json"), run.dir.join("r.html"), run.dir.join("r.xlsx"));
    let child = Command::new(assert_cmd::cargo::cargo_bin("leadsync"))
        .env("LEADSYNC_BASE_URL", &sb.base_url)
        .env("LEADSYNC_TOKEN", ALICE)
        .env("LEADSYNC_STATE_DIR", run.dir.join("state"))
        .arg("import")
        .arg(&run.csv)
        .args(["--rate", "20", "--concurrency", "2", "--timeout", "2"])
        .args(["--report".as_ref(), json_report.as_os_str(), "--report".as_ref(), html.as_os_str()])
        .args(["--report".as_ref(), xlsx.as_os_str()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2_500));
    interrupt(&child);
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(err.contains("all 120 rows were read; "), "{err}");
    assert!(err.contains(" not sent yet: run the same command again to send them"), "{err}");
    assert!(!err.contains("failed"), "nothing failed: {err}");
    let report = json(&std::fs::read_to_string(&json_report).unwrap());
    let not_sent = summary_count(&report, "not_sent");
    assert!(not_sent > 20, "about half not sent: {}", report["summary"]);
    assert_eq!(summary_count(&report, "failed"), 0);
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.iter().filter(|r| r["status"] == "not_sent").count() as u64, not_sent);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("not sent yet") && !page.contains("could not be sent"), "HTML");
    let mut book: calamine::Xlsx<_> = calamine::open_workbook(&xlsx).unwrap();
    let summary = calamine::Reader::worksheet_range(&mut book, "Summary").unwrap();
    let cells: Vec<String> = summary.cells().map(|(_, _, c)| c.to_string()).collect();
    assert!(cells.iter().any(|c| c.starts_with("not sent yet")), "{cells:?}");
    assert!(cells.windows(2).any(|w| w[0] == "failed" && w[1] == "0"), "{cells:?}");
    run.cli(&sb, &[]).expect_code(3);
    assert_exactly_once(&sb, 120, false);
}

/// A dry run with `--skip-existing` previews the skips: rows already on the
/// service are reported skipped, as the real run reports them, not "valid".
#[test]
fn a_dry_run_with_skip_existing_shows_what_a_real_run_skips() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    let csv = write(
        dir,
        "leads.csv",
        "Name,Telefon,Kampagne\nA,0151 81000001,Spring Outreach\nB,0151 81000002,Spring Outreach\n",
    );
    let import = |extra: &[&str]| {
        sb.cli(ALICE)
            .env("LEADSYNC_STATE_DIR", dir.join("state"))
            .args(["import", csv.to_str().unwrap(), "--rate", "0"])
            .args(extra)
    };
    import(&[]).ok();
    std::fs::write(
        &csv,
        std::fs::read_to_string(&csv).unwrap() + "C,0151 81000003,Spring Outreach\n",
    )
    .unwrap();
    let report = dir.join("preview.json");
    let (_, err) =
        import(&["--dry-run", "--skip-existing", "--report", report.to_str().unwrap()]).ok();
    assert!(err.contains("3 rows: 1 valid, 2 skipped (already on the service)"), "{err}");
    let preview = json(&std::fs::read_to_string(&report).unwrap());
    assert_eq!(summary_count(&preview, "skipped_existing"), 2);
    assert_eq!(summary_count(&preview, "valid"), 1);
    let (_, err) = import(&["--skip-existing"]).ok();
    assert!(
        err.contains("1 created, 2 skipped (already on the service)"),
        "the real run agrees: {err}"
    );
}

/// A push's reports list rows in sheet order, as a dry run's do. Answers come
/// back in any order with 16 requests in flight, slow answers and retries overtake nothing, and
/// rows in doubt (dropped connections, 500s) are settled only at the end: the JSON, CSV and
/// XLSX reports still hold each of the 10,000 rows once, in increasing row order.
#[test]
fn a_push_reports_every_row_once_in_sheet_order_under_faults() {
    let stall = Duration::from_millis(300);
    let sb = TestSandbox::with_faults(Faults {
        fail_rate: 0.02,
        drop_rate: 0.01,
        stall_rate: 0.02,
        stall,
        seed: Some(25),
        ..Faults::default()
    });
    let rows = 10_000;
    let run = Run::new(&sb, rows, false);
    let (csv, xlsx) = (run.dir.join("fix.csv"), run.dir.join("fix.xlsx"));
    let extra = ["--concurrency", "16", "--report", csv.to_str().unwrap()];
    let (_, err) =
        run.cli(&sb, &extra).args(["--report".as_ref(), xlsx.as_os_str()]).expect_code(3);
    assert!(err.contains("settled from the service's lead list"), "rows were in doubt: {err}");
    let report = run.report();
    assert_eq!(summary_count(&report, "created"), 9_000, "{err}");
    let wanted: Vec<u64> = (2..rows as u64 + 2).collect();
    let json_rows: Vec<u64> =
        report["rows"].as_array().unwrap().iter().map(|r| r["row"].as_u64().unwrap()).collect();
    assert_in_sheet_order("JSON", &json_rows, &wanted);
    let mut reader = ::csv::Reader::from_path(&csv).unwrap();
    let at = reader.headers().unwrap().iter().position(|h| h == "leadsync_row").unwrap();
    let csv_rows: Vec<u64> = reader.records().map(|r| r.unwrap()[at].parse().unwrap()).collect();
    assert_in_sheet_order("CSV", &csv_rows, &wanted);
    let mut book: calamine::Xlsx<_> = calamine::open_workbook(&xlsx).unwrap();
    let leads = calamine::Reader::worksheet_range(&mut book, "Leads").unwrap();
    let mut sheet_rows = leads.rows();
    let header = sheet_rows.next().unwrap();
    let at =
        header.iter().position(|c| matches!(c, calamine::Data::String(s) if s == "leadsync_row"));
    let at = at.unwrap();
    let xlsx_rows: Vec<u64> = sheet_rows.map(|r| r[at].to_string().parse().unwrap()).collect();
    assert_in_sheet_order("XLSX", &xlsx_rows, &wanted);
    assert_exactly_once(&sb.reopen(), rows, false);
}

/// Each row once, in strictly increasing order: the rows of the sheet, in the sheet's order.
fn assert_in_sheet_order(what: &str, got: &[u64], wanted: &[u64]) {
    if let Some(at) = got.windows(2).position(|w| w[0] >= w[1]) {
        panic!("{what}: row {} is listed after row {}", got[at + 1], got[at]);
    }
    assert_eq!(got, wanted, "{what}: every row once");
}

/// Rows whose latest attempt has no outcome on the journal: the writes a next run finds in
/// doubt.
fn attempts_without_outcome(state: &Path) -> usize {
    let mut open = std::collections::HashSet::new();
    for line in journal_lines(state) {
        let entry = json(&line);
        let row = entry["row"].as_u64();
        match (entry["event"].as_str(), row) {
            (Some("attempt"), Some(row)) => open.insert(row),
            (Some("outcome"), Some(row)) => open.remove(&row),
            _ => false,
        };
    }
    open.len()
}

/// A hard stop during a paced run leaves about `concurrency` writes in doubt, not a queue of
/// them: an attempt is journaled only once its request has a worker and a
/// turn of the rate limit, so the rows still waiting for a turn are simply not sent yet. (It
/// found 180 in doubt when every queued row was journaled before its turn.) The rerun is
/// exactly once.
#[test]
fn a_hard_stop_during_a_paced_run_leaves_at_most_concurrency_writes_in_doubt() {
    let sb = TestSandbox::with_faults(Faults {
        latency: Duration::from_millis(300),
        ..Faults::default()
    });
    let run = Run::new(&sb, 200, false);
    let state = run.dir.join("state");
    let mut child = run.spawn(&sb, &["--rate", "10", "--concurrency", "4"]);
    let journaled = wait_for_attempts(&state, 12);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(journaled >= 12, "the killed run had journaled {journaled} attempts");
    let in_doubt = attempts_without_outcome(&state);
    // The requests in flight (4 at most), and an answer or two whose outcome line was not
    // synced yet.
    assert!(in_doubt <= 4 + 2, "{in_doubt} writes in doubt at concurrency 4");
    run.cli(&sb, &[]).expect_code(3);
    assert_exactly_once(&sb, 200, false);
}

/// After a hard stop the next run may have to wait for the stopped run's writes to pass their
/// commit deadline before it can tell from the lead list whether they were stored. It says so,
/// with the time it waits until, instead of a silent "0 sent … ETA 0 s".
#[test]
fn the_wait_for_a_stopped_runs_writes_is_said_with_its_time() {
    // Writes commit 4 s after they arrive, whether or not the client is still there: before
    // their deadline (twice the 3 s timeout), long after the next run first looks for them.
    let stall = Duration::from_millis(4_000);
    let sb = TestSandbox::with_faults(Faults { slow_commit_rate: 1.0, stall, ..Faults::default() });
    let run = Run::new(&sb, 4, false);
    let state = run.dir.join("state");
    let extra = ["--concurrency", "4", "--timeout", "3"];
    let mut child = run.spawn(&sb, &extra);
    let journaled = wait_for_attempts(&state, 4);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(journaled, 4);
    let (_, err) = run.cli(&sb, &extra).expect_code(0);
    let said = err
        .lines()
        .find_map(|l| l.strip_prefix("waiting until "))
        .unwrap_or_else(|| panic!("the wait is said: {err}"));
    let (clock, rest) = said.split_at(8);
    let digits = |part: &str| part.len() == 2 && part.bytes().all(|b| b.is_ascii_digit());
    assert!(clock.split(':').filter(|p| digits(p)).count() == 3, "a time of day: {said}");
    assert!(
        rest.contains(" for 4 writes of an earlier run to pass their commit deadline before checking the lead list"),
        "{said}"
    );
    assert!(err.contains("4 rows settled from the service's lead list"), "{err}");
    assert_exactly_once(&sb, 4, false);
}

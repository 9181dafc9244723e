//! What a person watching a push sees: the plan line before sending, then the share done and an
//! ETA, on a terminal (a real pseudo-terminal, through `script`) and in the log lines written
//! off one.

use std::process::Command;

use crate::support::{ALICE, TestSandbox, write};

/// True, saying so, where `script` (util-linux), which makes the pseudo-terminal, is missing.
fn no_terminal() -> bool {
    let missing = Command::new("script").arg("--version").output().is_err();
    if missing {
        eprintln!("skipped: `script` (util-linux) makes the pseudo-terminal and is not installed");
    }
    missing
}

/// `leadsync ARGS` in a pseudo-terminal `columns` wide (through `script`), in the sandbox's
/// folder, against the sandbox as Alice.
fn in_a_terminal(sb: &TestSandbox, args: &str, columns: &str) -> Command {
    let bin = assert_cmd::cargo::cargo_bin("leadsync");
    let mut command = Command::new("script");
    command
        .args(["-qefc", &format!("{} {args}", bin.display()), "/dev/null"])
        .current_dir(sb.dir.path())
        .env("LEADSYNC_BASE_URL", &sb.base_url)
        .env("LEADSYNC_TOKEN", ALICE)
        .env("COLUMNS", columns);
    command
}

fn sheet(dir: &std::path::Path, rows: usize) {
    let mut csv = String::from("Name,Telefon\n");
    for i in 0..rows {
        csv.push_str(&format!("Kunde {i},0151 50{i:06}\n"));
    }
    write(dir, "leads.csv", &csv);
}

#[test]
fn a_terminal_sees_the_plan_then_a_percentage_and_an_eta() {
    if no_terminal() {
        return;
    }
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    sheet(dir, 40);
    let args = "import leads.csv --campaign 10 --rate 20 --state-dir state";
    let output = in_a_terminal(&sb, args, "200").env_remove("NO_COLOR").output().unwrap();
    let screen = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{screen}");
    assert!(
        screen.contains("about 40 rows to send at 20/s: about 2 s (--rate to change)"),
        "{screen}"
    );
    // The bar, redrawn in place: a share of the file and the time left.
    let percent = regex_free_find(&screen, "% · ");
    assert!(percent, "no percentage on the bar: {screen}");
    assert!(screen.contains(" · ETA "), "no ETA on the bar: {screen}");
    assert!(screen.contains("40 rows: 40 created"), "{screen}");
}

#[test]
fn log_lines_off_a_terminal_carry_the_percentage_and_the_eta() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    sheet(dir, 70);
    // Off a terminal a line comes every 5 s: 70 rows at 10/s take 7.
    let (_, err) =
        sb.cli(ALICE).args(["import", "leads.csv", "--campaign", "10", "--rate", "10"]).ok();
    assert!(err.contains("about 70 rows to send at 10/s: about 7 s"), "{err}");
    let line = err.lines().find(|l| l.contains("rows read")).unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("% · ") && line.contains(" · ETA "), "{line}");
    // The rate is the clock: rows read × ... leave about 2 s after 5 s, never an hour.
    let eta = line.rsplit("ETA ").next().unwrap();
    assert!(eta.ends_with(" s"), "{line}");
}

/// Whether `text` holds a number followed by `suffix` (`37% · `).
fn regex_free_find(text: &str, suffix: &str) -> bool {
    text.match_indices(suffix)
        .any(|(at, _)| text[..at].chars().next_back().is_some_and(|c| c.is_ascii_digit()))
}

/// The mapping leadsync chose is said before anything is read or sent, on a terminal (where it
/// used to come after the run, behind the bar) and off one alike.
#[test]
fn the_chosen_mapping_comes_before_the_run_on_a_terminal_and_off_it() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    sheet(dir, 30);
    let bin = assert_cmd::cargo::cargo_bin("leadsync");
    let args = "import leads.csv --campaign 10 --rate 20 --state-dir state";
    let off = Command::new(&bin)
        .args(args.split(' '))
        .current_dir(dir)
        .env("LEADSYNC_BASE_URL", &sb.base_url)
        .env("LEADSYNC_TOKEN", ALICE)
        .output()
        .unwrap();
    let mut screens = vec![String::from_utf8_lossy(&off.stderr).to_string()];
    if Command::new("script").arg("--version").output().is_ok() {
        write(dir, "leads.csv", "Name,Telefon\nA,0151 51000001\nB,0151 51000002\n");
        let on = in_a_terminal(&sb, args, "200").output().unwrap();
        screens.push(String::from_utf8_lossy(&on.stdout).to_string());
    }
    for screen in screens {
        let mapping = screen.find("mapping: phone number from column `Telefon`");
        let plan = screen.find("rows to send");
        let counts = screen.find(" created");
        assert!(mapping.is_some() && plan.is_some() && counts.is_some(), "{screen}");
        assert!(mapping < plan && plan < counts, "the mapping first: {screen}");
    }
}

/// `sheet`'s rows `from..to` appended to what `leads.csv` holds.
fn grow(dir: &std::path::Path, from: usize, to: usize) {
    let mut csv = std::fs::read_to_string(dir.join("leads.csv")).unwrap();
    for i in from..to {
        csv.push_str(&format!("Kunde {i},0151 50{i:06}\n"));
    }
    write(dir, "leads.csv", &csv);
}

/// Issue 25, items 5 and 14: the plan counts the rows that will be sent, not the rows of the
/// sheet: "about 25 rows to send" when 4 of 25 were invalid, "about 561 rows" when 361 were on
/// the service; and a run with nothing to send says no plan at all.
#[test]
fn the_plan_counts_only_the_rows_that_will_be_sent() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    sheet(dir, 21);
    let mut csv = std::fs::read_to_string(dir.join("leads.csv")).unwrap();
    csv.push_str("Kaputt 1,12\nKaputt 2,0151 CALL\nKaputt 3,\nKunde 0,0151 50000000\n");
    write(dir, "leads.csv", &csv);
    let import = |extra: &[&str]| {
        sb.cli(ALICE)
            .args(["import", "leads.csv", "--campaign", "10", "--rate", "50"])
            .args(extra)
            .expect_code(3)
    };
    let (_, err) = import(&[]);
    assert!(err.contains("about 21 rows to send at 50/s: about 1 s"), "{err}");
    let (_, err) = import(&["--skip-existing", "--restart"]);
    assert!(!err.contains("to send at"), "nothing left to send, no plan: {err}");

    // A grown sheet under sync: the rows already sent are skipped, and not planned.
    let sync = || {
        sb.cli(ALICE).env("LEADSYNC_STATE_DIR", dir.join("state")).args([
            "sync",
            "leads.csv",
            "--campaign",
            "10",
            "--rate",
            "50",
        ])
    };
    let (_, err) = sync().expect_code(3);
    assert!(!err.contains("to send at"), "all 21 are on the service: {err}");
    grow(dir, 100, 130);
    let (_, err) = sync().expect_code(5); // the same rejected rows as last time
    assert!(
        err.contains("about 30 rows to send (21 already on the service) at 50/s: about 1 s"),
        "{err}"
    );
}

/// The live line on a terminal shows the skipped rows, and its ETA counts the rows still to
/// send, not the rows of the sheet.
#[test]
fn a_terminal_sees_the_skipped_rows() {
    if no_terminal() {
        return;
    }
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    sheet(dir, 30);
    sb.cli(ALICE)
        .args(["import", "leads.csv", "--campaign", "10", "--rate", "0", "--state-dir", "state"])
        .ok();
    grow(dir, 100, 130);
    let args = "import leads.csv --campaign 10 --rate 10 --skip-existing --state-dir state";
    let output = in_a_terminal(&sb, args, "250").env_remove("NO_COLOR").output().unwrap();
    let screen = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{screen}");
    assert!(
        screen.contains("about 30 rows to send (30 already on the service) at 10/s: about 3 s"),
        "{screen}"
    );
    assert!(screen.contains(" · 30 skipped · "), "the live line shows the skips: {screen}");
}

/// Ctrl-C pressed on a terminal half-way through a paced import:
/// the rows sent are "sent", the rest "not sent yet", and nothing is called failed, on the
/// screen, in the JSON, the HTML and the XLSX report. The issue's run was 300 rows at `--rate 5`
/// (a minute); this one sends the 300 at `--rate 20`, the Ctrl-C typed into the pseudo-terminal
/// once the bar says about half are sent, so it takes 8 s.
#[test]
fn ctrl_c_on_a_terminal_half_way_says_sent_and_not_sent_yet_never_failed() {
    use std::io::Write;
    if no_terminal() {
        return;
    }
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    sheet(dir, 300);
    let args = "import leads.csv --campaign 10 --rate 20 --state-dir state --report r.json \
                --report r.html --report r.xlsx";
    let mut child = in_a_terminal(&sb, args, "200")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The screen as it is drawn, read on a thread of its own so the run never blocks on it.
    let drawn = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = {
        let drawn = drawn.clone();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = std::io::Read::read(&mut stdout, &mut chunk) {
                drawn.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while most_sent(&String::from_utf8_lossy(&drawn.lock().unwrap())) < 150
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Ctrl-C as typed, once the bar says half are sent: the terminal makes it SIGINT.
    child.stdin.take().unwrap().write_all(b"\x03").unwrap();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let screen = String::from_utf8_lossy(&drawn.lock().unwrap()).to_string();
    assert_eq!(status.code(), Some(130), "{screen}");
    let summary = screen.lines().find(|l| l.contains("interrupted: ")).unwrap_or_else(|| {
        panic!("no summary: {screen}");
    });
    assert!(summary.contains("all 300 rows were read; "), "{summary}");
    assert!(
        summary.contains(" sent, ")
            && summary.contains(" not sent yet: run the same command again"),
        "{summary}"
    );
    assert!(!screen.to_lowercase().contains("failed"), "nothing failed: {screen}");

    let report = crate::support::json(&std::fs::read_to_string(dir.join("r.json")).unwrap());
    let count = |key: &str| report["summary"][key].as_u64().unwrap();
    let (created, not_sent) = (count("created"), count("not_sent"));
    assert!(created >= 100 && not_sent >= 100, "about half sent: {}", report["summary"]);
    assert_eq!((created + not_sent, count("failed")), (300, 0), "{}", report["summary"]);
    let rows = report["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["status"] == "created" || r["status"] == "not_sent"));

    let page = std::fs::read_to_string(dir.join("r.html")).unwrap();
    let verdict = page.lines().find(|l| l.starts_with(r#"<p class="verdict">"#)).unwrap();
    assert!(verdict.contains("of 300 rows were created"), "every row was read: {verdict}");
    assert!(verdict.contains(&format!("<b>{not_sent}</b> not sent yet")), "{verdict}");
    assert!(verdict.contains("Nothing needs fixing"), "{verdict}");
    assert!(page.contains(&format!("Stopped: {created} sent, {not_sent} not sent yet")));
    for wrong in ["could not be sent", "Could not be sent", "the first 300 rows read"] {
        assert!(!page.contains(wrong), "the HTML says {wrong:?}");
    }
    assert!(page.contains(r#"<div class="label">Failed</div><div class="value">0</div>"#));

    let mut book: calamine::Xlsx<_> = calamine::open_workbook(dir.join("r.xlsx")).unwrap();
    let summary = calamine::Reader::worksheet_range(&mut book, "Summary").unwrap();
    let cells: Vec<String> = summary.cells().map(|(_, _, c)| c.to_string()).collect();
    assert!(cells.iter().any(|c| c.starts_with("not sent yet")), "{cells:?}");
    assert!(cells.windows(2).any(|w| w[0] == "failed" && w[1] == "0"), "{cells:?}");
    let leads = calamine::Reader::worksheet_range(&mut book, "Leads").unwrap();
    let statuses: Vec<String> = leads.cells().map(|(_, _, c)| c.to_string()).collect();
    assert!(!statuses.iter().any(|c| c == "failed"), "no row failed in the fix file");
    assert_eq!(statuses.iter().filter(|c| *c == "not_sent").count() as u64, not_sent);
}

/// The most rows the bar has said were sent (`· 152 sent (19.5/s)`).
fn most_sent(screen: &str) -> u64 {
    screen
        .match_indices(" sent (")
        .filter_map(|(at, _)| screen[..at].rsplit(' ').next()?.parse().ok())
        .max()
        .unwrap_or(0)
}

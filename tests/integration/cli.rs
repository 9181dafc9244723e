//! The real binary against the sandbox: every service command, its output modes and exit codes.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use leadsync::sandbox::Faults;

use crate::import::{interrupt, leadsync, wait_until};
use crate::support::{ALICE, BOB, Cli, TestSandbox, json, write};

#[test]
fn campaigns_list_as_table_and_as_json() {
    let sb = TestSandbox::start();
    let (out, _) = sb.cli(ALICE).args(["campaigns", "list"]).ok();
    assert!(out.lines().next().unwrap().starts_with("ID"), "{out}");
    assert!(out.contains("Spring Outreach") && out.contains("Café Été"), "{out}");
    assert!(!out.contains("Bob Campaign"));
    let (out, _) = sb.cli(ALICE).args(["campaigns", "list", "--output", "json"]).ok();
    let list = json(&out);
    assert_eq!(list.as_array().unwrap().len(), 4);
    assert_eq!(list[0]["id"], 10);
    assert!(list[0].get("allowed_days").is_some());
}

#[test]
fn assistants_list_pages_all_and_outbound() {
    let sb = TestSandbox::start();
    let (out, err) =
        sb.cli(ALICE).args(["assistants", "list", "--per-page", "1", "--page", "2"]).ok();
    assert!(out.contains("Alice Outbound") && !out.contains("Alice Inbound"), "{out}");
    assert!(err.contains("page 2 of 2"), "{err}");
    let (out, _) = sb.cli(ALICE).args(["assistants", "list", "--all", "--output", "json"]).ok();
    let all = json(&out);
    assert_eq!(all.as_array().unwrap().len(), 2);
    let (out, _) = sb.cli(ALICE).args(["assistants", "list", "--output", "json"]).ok();
    let page = json(&out);
    assert_eq!(page["total"], 2);
    assert!(page["links"].is_array());
    let (out, _) = sb.cli(ALICE).args(["assistants", "outbound"]).ok();
    assert!(
        out.contains("Alice Outbound")
            && !out.contains("Alice Inbound")
            && !out.contains("Alice Deleted"),
        "{out}"
    );
    // Page size is checked before anything is sent.
    sb.cli(ALICE).args(["assistants", "list", "--per-page", "101"]).expect_code(2);
    sb.cli(ALICE).args(["assistants", "list", "--per-page", "0"]).expect_code(2);
}

#[test]
fn leads_list_shows_created_leads() {
    let sb = TestSandbox::start();
    let lead = leadsync::client::NewLead {
        phone_number: "+4915112345678".into(),
        campaign_id: 10,
        variables: [("customer_name".to_string(), "Jürgen".to_string())].into_iter().collect(),
        ..Default::default()
    };
    sb.block_on(sb.client(ALICE).create_lead(&lead)).unwrap();
    let (out, _) = sb.cli(ALICE).args(["leads", "list"]).ok();
    assert!(out.contains("+4915112345678") && out.contains("customer_name=Jürgen"), "{out}");
    let (out, _) = sb.cli(BOB).args(["leads", "list", "--output", "json"]).ok();
    assert_eq!(json(&out), serde_json::json!([]));
}

#[test]
fn webhook_enable_succeeds_and_reports_404() {
    let sb = TestSandbox::start();
    let (_, err) = sb
        .cli(ALICE)
        .args(["webhook", "enable", "--assistant", "101", "--url", "https://hooks.example.com/a"])
        .ok();
    assert_eq!(err.trim(), "Conversation ended webhook enabled successfully", "the service's word");
    let (_, err) = sb
        .cli(ALICE)
        .args(["webhook", "enable", "--assistant", "200", "--url", "https://hooks.example.com/a"])
        .expect_code(1);
    assert!(err.starts_with("error: not found (404)"), "{err}");
    let (_, err) = sb
        .cli(ALICE)
        .args(["webhook", "enable", "--assistant", "101", "--url", "nope"])
        .expect_code(1);
    assert!(err.contains("422") && err.contains("webhook_url"), "{err}");
}

#[test]
fn tokens_come_from_env_or_file_and_never_show() {
    let sb = TestSandbox::start();
    let (_, err) = Cli::new()
        .env("LEADSYNC_BASE_URL", &sb.base_url)
        .args(["campaigns", "list"])
        .expect_code(1);
    assert!(err.contains("LEADSYNC_TOKEN") && err.contains("--token-file"), "{err}");
    let (out, err) = sb.cli("sup3r-s3cret-wrong").args(["campaigns", "list"]).expect_code(1);
    assert!(err.contains("refused the token (401)"), "{err}");
    assert!(!out.contains("sup3r-s3cret") && !err.contains("sup3r-s3cret"));
    let (_, err) = sb.cli("sup3r-s3cret-wrong").args(["-vv", "campaigns", "list"]).expect_code(1);
    assert!(!err.contains("sup3r-s3cret"), "verbose logs must not show the token: {err}");
    let token_file = write(sb.dir.path(), "token.txt", &format!("{ALICE}\n"));
    let (out, _) = Cli::new()
        .env("LEADSYNC_BASE_URL", &sb.base_url)
        .args(["campaigns", "list", "--token-file"])
        .args([&token_file])
        .ok();
    assert!(out.contains("Spring Outreach"));
    // No way to pass the token itself as an argument.
    let (_, err) = sb.cli(ALICE).args(["campaigns", "list", "--token", ALICE]).expect_code(2);
    assert!(err.contains("--token"), "{err}");
}

#[test]
fn base_urls_must_end_in_api_and_be_https_off_loopback() {
    let sb = TestSandbox::start();
    let without_api = sb.base_url.trim_end_matches("/api");
    let (_, err) =
        sb.cli(ALICE).args(["campaigns", "list", "--base-url", without_api]).expect_code(1);
    assert!(err.contains(&format!("use `{without_api}/api`")), "{err}");
    let (_, err) = sb
        .cli(ALICE)
        .args(["campaigns", "list", "--base-url", "http://calls.example.com/api"])
        .expect_code(1);
    assert!(err.contains("--allow-insecure-http"), "{err}");
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    Cli::new().args(["campaigns", "frobnicate"]).expect_code(2);
    Cli::new().args(["--no-such-flag"]).expect_code(2);
    let (out, _) = Cli::new().args(["--help"]).ok();
    assert!(out.contains("import") && out.contains("sandbox"), "{out}");
    let (out, _) = Cli::new().args(["--version"]).ok();
    assert!(out.starts_with("leadsync "));
}

#[test]
fn sandbox_flag_needs_no_account() {
    let (out, _) = Cli::new().args(["--sandbox", "campaigns", "list"]).ok();
    assert!(out.contains("Spring Outreach"), "{out}");
    let (out, _) =
        Cli::new().args(["--sandbox", "assistants", "outbound", "--output", "json"]).ok();
    let outbound = json(&out);
    let outbound = outbound.as_array().unwrap();
    assert!(!outbound.is_empty() && outbound.iter().all(|a| a["type"] == "outbound"), "{out}");
}

#[test]
fn sandbox_command_prints_its_base_url_first() {
    let dir = tempfile::tempdir().unwrap();
    let seed = write(dir.path(), "seed.json", crate::support::SEED);
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("leadsync"))
        .args(["sandbox", "--port", "0", "--seed"])
        .arg(&seed)
        .arg("--db")
        .arg(dir.path().join("s.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let base_url = first.trim().to_string();
    assert!(base_url.starts_with("http://127.0.0.1:") && base_url.ends_with("/api"), "{base_url}");
    let result = Cli::new()
        .env("LEADSYNC_BASE_URL", &base_url)
        .env("LEADSYNC_TOKEN", ALICE)
        .args(["campaigns", "list"])
        .cmd
        .output()
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(String::from_utf8_lossy(&result.stdout).contains("Spring Outreach"));
}

#[test]
fn broken_pipes_exit_quietly() {
    let sb = TestSandbox::start();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("leadsync"))
        .env("LEADSYNC_BASE_URL", &sb.base_url)
        .env("LEADSYNC_TOKEN", ALICE)
        .args(["campaigns", "list", "--output", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "a broken pipe is not worth a message: {err}");
}

/// A bad number is a usage error (exit 2) of one line that names the flag, the value and the
/// range, whether it came from the flag or the environment, and never a panic.
#[test]
fn every_number_is_held_to_its_range() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "x.csv", "Name,Phone\na,+4915112345678\n");
    let csv = csv.to_str().unwrap();
    let timeout = "from 0.1 to 3600 (default 30; set by `--timeout` or `LEADSYNC_TIMEOUT`)";
    let rate = "from 0.01 to 10000, or 0 for no limit";
    let cases: &[(&[&str], &str, &str, &str)] = &[
        (&["--timeout", "1e20", "campaigns", "list"], "--timeout", "1e20", timeout),
        (&["--timeout", "0", "campaigns", "list"], "--timeout", "0", timeout),
        (&["campaigns", "list", "--timeout", "nan"], "--timeout", "nan", timeout),
        (&["import", csv, "--rate", "1e-20"], "--rate", "1e-20", rate),
        (&["import", csv, "--rate", "-1"], "--rate", "-1", rate),
        (&["import", csv, "--workers", "-2"], "--workers", "-2", "from 0 to 256"),
        (&["sync", csv, "--rate", "inf"], "--rate", "inf", rate),
        (&["import", csv, "--max-retries", "101"], "--max-retries", "101", "from 0 to 100"),
        (&["sync", csv, "--max-retries", "-1"], "--max-retries", "-1", "from 0 to 100"),
        (&["import", csv, "--workers", "257"], "--workers", "257", "from 0 to 256"),
        (&["import", csv, "--concurrency", "0"], "--concurrency", "0", "from 1 to 256"),
        (&["sync", csv, "--concurrency", "65536"], "--concurrency", "65536", "from 1 to 256"),
        (&["import", csv, "--header-row", "0"], "--header-row", "0", "from 1 to 1048576"),
        (&["import", csv, "--header-row", "2.5"], "--header-row", "2.5", "from 1 to 1048576"),
        (&["sandbox", "--latency-ms", "99999999999"], "--latency-ms", "99999999999", "0..=600000"),
        (&["sandbox", "--rate-limit", "0"], "--rate-limit", "0", "1..=1000000"),
        (&["webhook", "listen", "--max-body", "1"], "--max-body", "1", "from 1024 to 67108864"),
    ];
    for (args, flag, value, range) in cases {
        let (_, err) = Cli::new().args(*args).expect_code(2);
        let says = format!("error: invalid value '{value}' for '{flag} <");
        assert_one_clear_line(&err, &says, range);
    }
    for value in ["1e20", "0.01", "thirty"] {
        let (_, err) =
            Cli::new().env("LEADSYNC_TIMEOUT", value).args(["campaigns", "list"]).expect_code(2);
        let says = format!("error: invalid value '{value}' for '--timeout <SECONDS>'");
        assert_one_clear_line(&err, &says, timeout);
    }
    // The ends of every range are fine.
    Cli::new()
        .env("LEADSYNC_TIMEOUT", "0.1")
        .args(["import", csv, "--offline", "--campaign", "1", "--workers", "256"])
        .args(["--header-row", "1", "--rate", "10000", "--max-retries", "100"])
        .args(["--concurrency", "256"])
        .ok();
    Cli::new().args(["--sandbox", "--timeout", "3600", "campaigns", "list"]).ok();
}

/// One `error:` line saying `says` and `range`, and clap's pointer to `--help`; nothing else.
fn assert_one_clear_line(err: &str, says: &str, range: &str) {
    assert!(!err.contains("panicked"), "{err}");
    let lines: Vec<_> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 2, "one error line and the --help pointer: {err}");
    assert!(lines[0].starts_with(says) && lines[0].contains(range), "{err}");
    assert_eq!(lines[1], "For more information, try '--help'.");
}

#[test]
fn ctrl_c_stops_a_sync_with_exit_130_and_a_partial_report_then_the_next_sync_finishes() {
    // Slow answers and one request at a time: the signal lands while the first batch is sent.
    let sb = TestSandbox::with_faults(Faults {
        latency: Duration::from_millis(50),
        ..Faults::default()
    });
    const ROWS: u64 = 1_100;
    let mut text = String::from("Name,Phone\n");
    for i in 0..ROWS {
        text.push_str(&format!("Lead {i},+49151{:08}\n", 30_000_000 + i));
    }
    let csv = write(sb.dir.path(), "leads.csv", &text);
    let (state, report) = (sb.path("state"), sb.path("r.json"));
    let sync = |concurrency: &str| {
        let mut command = leadsync();
        command.env("LEADSYNC_BASE_URL", &sb.base_url).env("LEADSYNC_TOKEN", ALICE);
        command.env("LEADSYNC_STATE_DIR", &state).args(["sync"]).arg(&csv);
        command.args(["--campaign", "10", "--rate", "0", "--concurrency", concurrency]);
        command.arg("--report").arg(&report);
        command
    };
    let mut child = sync("1").spawn().unwrap();
    wait_until(&mut child, "five leads are journaled created", || {
        created(&state.join("sync")) >= 5
    });
    let (code, err) = interrupt(child);
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("continue where it stopped"), "{err}");
    let first = json(&std::fs::read_to_string(&report).unwrap());
    assert_eq!(first["run"]["interrupted"], true, "{}", first["run"]);
    let created = first["summary"]["created"].as_u64().unwrap();
    assert!((5..ROWS).contains(&created), "{}", first["summary"]);
    let read = first["summary"]["rows"].as_u64().unwrap();
    assert!(read < ROWS, "the sync stopped reading part-way: {}", first["summary"]);
    let banner = format!("interrupted: only the first {read} rows were read; ");
    assert!(err.contains(&banner), "{err}");
    let output = sync("16").output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let second = json(&std::fs::read_to_string(&report).unwrap());
    assert_eq!(second["run"]["interrupted"], false, "{}", second["run"]);
    assert!(!err.contains("interrupted"), "{err}");
    let leads = sb.block_on(sb.client(ALICE).list_leads()).unwrap();
    let mut phones: Vec<_> = leads.iter().map(|l| l.phone_number.clone()).collect();
    phones.sort();
    phones.dedup();
    assert_eq!((leads.len(), phones.len()), (ROWS as usize, ROWS as usize), "exactly once");
}

/// Leads journaled as created so far by the runs under `folder`.
fn created(folder: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(folder) else { return 0 };
    let journals =
        entries.map(|e| e.unwrap().path()).filter(|p| p.extension() == Some("jsonl".as_ref()));
    journals
        .map(|p| {
            std::fs::read_to_string(p).unwrap_or_default().matches(r#""status":"created""#).count()
        })
        .sum()
}

/// `--color`, `NO_COLOR` and `CLICOLOR_FORCE`, through the binary (stderr is a pipe here, so
/// `auto` alone means no colour).
#[test]
fn colour_follows_the_flag_then_no_color_then_clicolor_force() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "c.csv", "Name,Phone\na,+4915112345678\nb,12\n");
    let csv = csv.to_str().unwrap();
    let run = |flag: Option<&str>, env: &[(&str, &str)]| {
        let mut cli = Cli::new().args(["import", csv, "--offline", "--campaign", "1"]);
        if let Some(flag) = flag {
            cli = cli.args(["--color", flag]);
        }
        for (key, value) in env {
            cli = cli.env(key, value);
        }
        let (_, err) = cli.expect_code(3);
        err.contains("\x1b[")
    };
    assert!(!run(None, &[]), "no colour into a pipe");
    assert!(run(Some("always"), &[]));
    assert!(run(Some("always"), &[("NO_COLOR", "1")]), "the flag beats NO_COLOR");
    assert!(!run(Some("never"), &[("CLICOLOR_FORCE", "1")]));
    assert!(run(None, &[("CLICOLOR_FORCE", "1")]));
    assert!(!run(None, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]), "NO_COLOR beats it");
    let (_, err) = Cli::new().args(["--color", "sometimes", "campaigns", "list"]).expect_code(2);
    assert!(err.contains("possible values: auto, always, never"), "{err}");
}

/// Profiles: `--profile` or `LEADSYNC_PROFILE` fills in the service, token file, region, rate
/// and state folder; a flag or the environment beats the profile, which beats the mapping file.
#[test]
fn profiles_fill_in_what_flags_and_environment_leave_open() {
    use std::os::unix::fs::PermissionsExt;
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    let token = write(dir, "alice.token", "token-alice\n");
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
    let loose = write(dir, "loose.token", "token-alice\n");
    std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o644)).unwrap();
    let state = dir.join("alice-state");
    let config = format!(
        "[profiles.alice]\nbase_url = \"{}\"\ntoken_file = \"{}\"\nregion = \"AT\"\nrate = 0\nstate_dir = \"{}\"\n\n[profiles.loose]\nbase_url = \"{}\"\ntoken_file = \"{}\"\n\n[profiles.leaky]\ntoken = \"token-alice\"\n",
        sb.base_url,
        token.display(),
        state.display(),
        sb.base_url,
        loose.display()
    );
    std::fs::create_dir_all(dir.join("xdg/leadsync")).unwrap();
    std::fs::write(dir.join("xdg/leadsync/config.toml"), config).unwrap();
    let cli = || Cli::new().env("XDG_CONFIG_HOME", dir.join("xdg"));
    let (out, err) = cli().args(["--profile", "alice", "campaigns", "list"]).ok();
    assert!(out.contains("Spring Outreach") && !err.contains("warning"), "{out}{err}");
    let (out, _) = cli().env("LEADSYNC_PROFILE", "alice").args(["campaigns", "list"]).ok();
    assert!(out.contains("Spring Outreach"));
    let (_, err) = cli().args(["--profile", "loose", "campaigns", "list"]).ok();
    assert!(err.contains("can be read by other users (mode 644)"), "{err}");
    let (_, err) = cli().args(["--profile", "leaky", "campaigns", "list"]).expect_code(1);
    assert!(err.contains("tokens live in files") && !err.contains("token-alice"), "{err}");
    let (_, err) = cli().args(["--profile", "nope", "campaigns", "list"]).expect_code(1);
    assert!(err.contains("it has: alice, leaky, loose"), "{err}");
    // Region: the flag, else the profile (AT), which beats the mapping file (DE).
    let csv = write(dir, "at.csv", "Name,Telefon\nA,0664 1234567\n");
    let mapping = write(
        dir,
        "m.toml",
        "phone = \"Telefon\"\ncampaign = 10\nregion = \"DE\"\n[variables]\ncustomer_name = \"Name\"\n",
    );
    let phone = |extra: &[&str]| {
        let (out, _) = cli()
            .args(["--profile", "alice", "import", csv.to_str().unwrap(), "--dry-run"])
            .args(["-m", mapping.to_str().unwrap(), "--summary-json", "-", "-q"])
            .args(["--report", dir.join("r.json").to_str().unwrap()])
            .args(extra)
            .ok();
        assert_eq!(json(&out)["counts"]["valid"], 1, "{out}");
        let report = json(&std::fs::read_to_string(dir.join("r.json")).unwrap());
        report["rows"][0]["phone"].as_str().unwrap().to_string()
    };
    assert_eq!(phone(&[]), "+436641234567", "the profile's region beats the mapping's");
    assert_eq!(phone(&["--region", "DE"]), "+496641234567", "the flag beats the profile");
    // The profile's state folder, unless the environment names another.
    let csv = write(dir, "send.csv", "Name,Telefon,Kampagne\nA,0151 77000001,Spring Outreach\n");
    let mut send = cli().args(["--profile", "alice", "import", csv.to_str().unwrap()]);
    send.cmd.env_remove("LEADSYNC_STATE_DIR");
    send.ok();
    assert!(state.join("journals").is_dir(), "the journal went to the profile's state_dir");
}

/// "Check, send, look" meet one sandbox: with `--state-dir`, a dry run, an import, `leads
/// list` and `campaigns list` all use the sandbox kept in that folder (a dry run used the home
/// folder's, and the list commands refused the flag).
#[test]
fn every_command_keeps_the_sandbox_in_the_one_state_folder() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let home = dir.path().join("home");
    let csv =
        write(dir.path(), "leads.csv", "Name,Telefon,Kampagne\nA,0151 61000001,Spring Outreach\n");
    let run = |args: &[&str]| {
        Cli::new()
            .env("HOME", &home)
            .env("XDG_STATE_HOME", home.join("state"))
            .args(["--sandbox"])
            .args(args)
            .args(["--state-dir", state.to_str().unwrap()])
    };
    run(&["import", csv.to_str().unwrap(), "--dry-run"]).ok();
    assert!(state.join("sandbox.sqlite").exists(), "the dry run's sandbox is in the folder");
    run(&["import", csv.to_str().unwrap(), "--rate", "0"]).ok();
    let (out, _) = run(&["leads", "list", "--output", "json"]).ok();
    assert!(out.contains("+4915161000001"), "the lead just sent: {out}");
    let (out, _) = run(&["campaigns", "list"]).ok();
    assert!(out.contains("Spring Outreach"), "{out}");
    let export = dir.path().join("leads.csv.out.csv");
    run(&["leads", "export", "-o", export.to_str().unwrap()]).ok();
    let exported = std::fs::read_to_string(&export).unwrap();
    assert!(exported.contains("+4915161000001"), "the export reads the same sandbox: {exported}");
    assert!(!home.exists(), "nothing written to the home folder");
}

/// A refused token names where it came from: a profile's `token_file`,
/// a `--token-file`, or `LEADSYNC_TOKEN`, and never the token itself.
#[test]
fn a_refused_token_names_where_it_came_from() {
    use std::os::unix::fs::PermissionsExt;
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    let token = write(dir, "stale.token", "token-stale\n");
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
    let config = format!(
        "[profiles.work]\nbase_url = \"{}\"\ntoken_file = \"{}\"\n",
        sb.base_url,
        token.display()
    );
    std::fs::create_dir_all(dir.join("xdg/leadsync")).unwrap();
    std::fs::write(dir.join("xdg/leadsync/config.toml"), config).unwrap();
    let (_, err) = Cli::new()
        .env("XDG_CONFIG_HOME", dir.join("xdg"))
        .args(["--profile", "work", "campaigns", "list"])
        .expect_code(1);
    assert!(err.contains("check the `token_file` of the profile"), "{err}");
    assert!(err.contains("stale.token") && !err.contains("token-stale"), "{err}");
    let (_, err) = Cli::new()
        .args(["--base-url", &sb.base_url, "--token-file", token.to_str().unwrap()])
        .args(["campaigns", "list"])
        .expect_code(1);
    assert!(err.contains("check the token file `") && !err.contains("token-stale"), "{err}");
    let (_, err) = sb.cli("token-wrong").args(["campaigns", "list"]).expect_code(1);
    assert!(err.contains("check `LEADSYNC_TOKEN`") && !err.contains("token-wrong"), "{err}");
}

/// Cron logs: `sync` lines carry a timestamp; a sync with nothing new says so
/// in one line; and the same rejected rows as last time exit 5, not 3, so a monitor alerts
/// once per new problem, not every ten minutes for a row nobody has fixed yet.
#[test]
fn a_sync_with_only_old_problems_says_so_in_one_line_and_exits_5() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    let csv = write(
        dir,
        "leads.csv",
        "Name,Telefon,Kampagne\nA,0151 71000001,Spring Outreach\nB,12,Spring Outreach\n",
    );
    let sync = || {
        sb.cli(ALICE).env("LEADSYNC_STATE_DIR", dir.join("state")).args([
            "sync",
            csv.to_str().unwrap(),
            "--rate",
            "0",
        ])
    };
    let (_, first) = sync().expect_code(3);
    let stamped =
        |line: &str| line.len() > 20 && line.as_bytes()[4] == b'-' && line.as_bytes()[13] == b':';
    assert!(first.lines().all(stamped), "every line timestamped: {first}");
    let (_, second) = sync().expect_code(5);
    // Besides what it chose and planned before reading, the run says one line.
    let planned = |l: &&str| [" mapping: ", " about ", " plan: "].iter().any(|p| l.contains(p));
    let told: Vec<_> = second.lines().filter(|l| !planned(l)).collect();
    assert_eq!(told.len(), 2, "started, then one line: {second}");
    assert!(
        second.contains("nothing new (2 rows, none to send); 1 row with the same problems"),
        "{second}"
    );
    std::fs::write(&csv, std::fs::read_to_string(&csv).unwrap() + "C,13,Spring Outreach\n")
        .unwrap();
    let (_, third) = sync().expect_code(3);
    assert!(third.contains("rejected"), "a new problem is told in full: {third}");
}

/// A user and password in `--base-url` never show in a message: not when the service cannot
/// be reached, not when it answers an error.
#[test]
fn a_password_in_the_base_url_is_never_printed() {
    // A port nobody listens on: bound, then closed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let sandbox = TestSandbox::start();
    let answering = sandbox.base_url.replace("http://", "http://ann:s3cret@");
    for base in [format!("http://ann:s3cret@{closed}/api"), answering] {
        let (out, err) = Cli::new()
            .env("LEADSYNC_TOKEN", "token-nobody")
            .args(["-vv", "--base-url", &base, "campaigns", "list"])
            .expect_code(1);
        assert!(err.contains("error:"), "{err}");
        for text in [&out, &err] {
            assert!(!text.contains("s3cret") && !text.contains("ann:"), "{text}");
        }
    }
}

/// The state folder and every file leadsync writes there are the user's alone, even under a
/// umask of 022: journals, the embedded sandbox's store, reports.
#[test]
fn the_state_folder_is_private_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;

    let sandbox = TestSandbox::start();
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().join("state");
    let sheet = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/leads.csv");
    let binary = assert_cmd::cargo::cargo_bin("leadsync");
    let report = state_dir.join("report.json");
    let status = Command::new("sh")
        .args(["-c", "umask 022 && exec \"$0\" \"$@\""])
        .arg(&binary)
        .args(["import", "--region", "DE", "--report"])
        .args([&report, &sheet])
        .env("LEADSYNC_STATE_DIR", &state_dir)
        .env("LEADSYNC_BASE_URL", &sandbox.base_url)
        .env("LEADSYNC_TOKEN", ALICE)
        .env("XDG_CONFIG_HOME", state.path().join("config"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.code().is_some_and(|c| c <= 3), "{status}");
    let mut seen = 0;
    let mut stack = vec![state_dir.clone()];
    while let Some(path) = stack.pop() {
        let mode = std::fs::symlink_metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{} is {:o}", path.display(), mode & 0o777);
        seen += 1;
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        }
    }
    assert!(seen >= 3, "the journal and the report at least");
    assert!(report.exists());
}

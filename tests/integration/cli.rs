//! The real binary against the sandbox: every service command, its output modes and exit codes.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

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
    assert!(err.to_lowercase().contains("webhook"), "{err}");
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
    assert!(json(&out).as_array().unwrap().iter().all(|a| a["type"] == "outbound"));
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
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
}

//! Events and exports over real HTTP: the sandbox simulates conversation ends and delivers them
//! to the real `leadsync webhook listen` binary, which stores each once; `webhook export` and
//! `leads export` write files that are read back with `csv` and `calamine`.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use calamine::{Data, Reader, Xlsx, open_workbook};
use leadsync::client::{NewContact, NewLead};
use leadsync::sandbox::{SandboxConfig, WebhookRetry};
use serde_json::{Value, json};

use crate::support::{ALICE, BOB, Cli, TestSandbox};

const SECRET: &str = "integration-secret-0123456789";

/// `leadsync webhook listen` as a child process, killed (SIGKILL: no goodbye) when dropped.
struct Listener {
    child: Child,
    base_url: String,
    /// Held open so the child never writes into a closed pipe.
    _stdout: BufReader<ChildStdout>,
}

impl Listener {
    fn start(out: &Path, port: u16) -> Listener {
        let mut child = Command::new(env!("CARGO_BIN_EXE_leadsync"))
            .args(["webhook", "listen", "--port", &port.to_string(), "--out"])
            .args([out])
            .env("LEADSYNC_WEBHOOK_SECRET", SECRET)
            .env_remove("LEADSYNC_WEBHOOK_SECRET_FILE")
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        if !line.starts_with("http://") {
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            panic!("the receiver did not start: stdout `{line}`, stderr:\n{err}");
        }
        Listener { child, base_url: line.trim().to_string(), _stdout: stdout }
    }

    fn url(&self, kind: &str) -> String {
        format!("{}/{kind}?token={SECRET}", self.base_url)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A plain HTTP client with its own runtime, for what the typed client does not cover.
struct Http {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
}

impl Http {
    fn new() -> Http {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        Http { runtime, client: reqwest::Client::builder().no_proxy().build().unwrap() }
    }

    /// Sends `request`; returns the status and the body as text.
    fn send(&self, request: reqwest::RequestBuilder) -> (u16, String) {
        self.runtime.block_on(async {
            let response = request.send().await.expect("an answer");
            (response.status().as_u16(), response.text().await.unwrap())
        })
    }

    fn post(&self, url: &str, body: impl Into<reqwest::Body>) -> (u16, String) {
        self.send(self.client.post(url).header("content-type", "application/json").body(body))
    }

    fn simulate(&self, sb: &TestSandbox, assistant: u64, overrides: Value) -> (u16, Value) {
        let url =
            format!("{}/sandbox/assistants/{assistant}/simulate-conversation-ended", sb.base_url);
        let (status, body) = self.send(self.client.post(url).bearer_auth(ALICE).json(&overrides));
        (status, serde_json::from_str(&body).unwrap())
    }

    fn deliveries(&self, sb: &TestSandbox, conversation: &str) -> Value {
        let url = format!("{}/sandbox/conversations/{conversation}/deliveries", sb.base_url);
        let (status, body) = self.send(self.client.get(url).bearer_auth(ALICE));
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }
}

/// Polls `check` until it gives a value, for at most `limit`.
fn eventually<T>(what: &str, limit: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(start.elapsed() < limit, "gave up waiting for {what} after {limit:?}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn journal_lines(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap_or_default();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn enable(sb: &TestSandbox, assistant: u64, url: &str) {
    sb.cli(ALICE)
        .args(["webhook", "enable", "--assistant", &assistant.to_string(), "--url", url])
        .ok();
}

fn assistant_uuid(sb: &TestSandbox, id: u64) -> String {
    let assistants = sb.block_on(sb.client(ALICE).all_assistants()).unwrap();
    assistants.into_iter().find(|a| a.id == id).unwrap().uuid
}

/// A CSV export's header and rows (the BOM checked and removed).
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.strip_prefix('\u{feff}').expect("the CSV starts with a BOM");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader.records().map(|r| r.unwrap().iter().map(String::from).collect()).collect();
    (header, rows)
}

/// The cells of an XLSX export's only sheet, header row first.
fn read_xlsx(path: &Path, sheet: &str) -> Vec<Vec<Data>> {
    let mut workbook: Xlsx<_> = open_workbook(path).unwrap();
    let range = workbook.worksheet_range(sheet).unwrap();
    range.rows().map(<[Data]>::to_vec).collect()
}

fn cell<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    let index = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column `{name}` in {header:?}"));
    &row[index]
}

fn xlsx_cell<'a>(rows: &'a [Vec<Data>], row: usize, name: &str) -> &'a Data {
    let index = rows[0].iter().position(|h| *h == Data::String(name.into())).unwrap();
    &rows[row][index]
}

#[test]
fn a_simulated_conversation_is_received_stored_once_and_exported() {
    let sb = TestSandbox::start();
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path(), 0);
    enable(&sb, 101, &listener.url("conversation-ended"));
    let http = Http::new();
    let overrides = json!({
        "variables": {"interested": "ja", "notiz": "Grüße 🚀 שלום", "cmd": "=cmd"},
        "customer": {"name": "Zoë Ünal", "phone": "+4915112345678", "email": "zoe@example.com"}
    });
    let (status, answer) = http.simulate(&sb, 101, overrides);
    assert_eq!(status, 202, "{answer}");
    let conversation = answer["conversation_id"].as_str().unwrap().to_string();
    eventually("the delivery", Duration::from_secs(10), || {
        let status = http.deliveries(&sb, &conversation);
        (status["state"] == "delivered").then_some(())
    });
    let lines = journal_lines(dir.path());
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["kind"], "conversation-ended");
    assert_eq!(lines[0]["payload"], answer["payload"], "the payload is stored as sent");

    let csv_path = dir.path().join("conversations.csv");
    let args = ["webhook", "export", "--in", dir.path().to_str().unwrap(), "-o"];
    Cli::new().args(args).args([&csv_path]).ok();
    let (header, rows) = read_csv(&csv_path);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(header.last().map(String::as_str), Some("raw_json"));
    assert_eq!(cell(&header, row, "kind"), "conversation-ended");
    assert_eq!(cell(&header, row, "conversation_id"), conversation);
    assert_eq!(cell(&header, row, "assistant_id"), assistant_uuid(&sb, 101));
    assert_eq!(cell(&header, row, "customer_name"), "Zoë Ünal");
    assert_eq!(cell(&header, row, "customer_phone"), "+4915112345678");
    assert_eq!(cell(&header, row, "customer_email"), "zoe@example.com");
    assert_eq!(cell(&header, row, "ended_at"), answer["payload"]["ended_at"].as_str().unwrap());
    let transcript = cell(&header, row, "transcript");
    assert!(
        transcript.starts_with("assistant: Hi!") && transcript.contains("\nuser: "),
        "{transcript}"
    );
    assert_eq!(cell(&header, row, "interested"), "ja");
    assert_eq!(cell(&header, row, "notiz"), "Grüße 🚀 שלום");
    assert_eq!(cell(&header, row, "cmd"), "'=cmd", "formulas are escaped in CSV");
    let raw: Value = serde_json::from_str(cell(&header, row, "raw_json")).unwrap();
    assert_eq!(raw, answer["payload"]);

    let xlsx_path = dir.path().join("conversations.xlsx");
    Cli::new().args(args).args([&xlsx_path]).ok();
    let rows = read_xlsx(&xlsx_path, "Conversations");
    assert_eq!(rows.len(), 2);
    assert_eq!(xlsx_cell(&rows, 1, "customer_phone"), &Data::String("+4915112345678".into()));
    assert_eq!(xlsx_cell(&rows, 1, "cmd"), &Data::String("=cmd".into()), "a value, not a formula");
    assert_eq!(xlsx_cell(&rows, 1, "notiz"), &Data::String("Grüße 🚀 שלום".into()));
}

#[test]
fn a_receiver_down_for_the_first_delivery_still_gets_the_event_exactly_once() {
    let retry = WebhookRetry::compressed(Duration::from_millis(700));
    let sb = TestSandbox::with_config(SandboxConfig {
        webhook_retry: retry,
        ..SandboxConfig::default()
    });
    let port = {
        let reserved = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        reserved.local_addr().unwrap().port()
    };
    let hook = format!("http://127.0.0.1:{port}/hooks/conversation-ended?token={SECRET}");
    enable(&sb, 101, &hook);
    let http = Http::new();
    let (status, answer) = http.simulate(&sb, 101, json!({}));
    assert_eq!(status, 202, "{answer}");
    let conversation = answer["conversation_id"].as_str().unwrap().to_string();
    let first = eventually("the first attempt", Duration::from_secs(5), || {
        let status = http.deliveries(&sb, &conversation);
        status["attempts"].as_array().filter(|a| !a.is_empty()).map(|a| a[0].clone())
    });
    assert_eq!(first["ok"], false, "nobody listens yet: {first}");

    let dir = tempfile::tempdir().unwrap();
    let _listener = Listener::start(dir.path(), port);
    let status = eventually("a retry to succeed", Duration::from_secs(10), || {
        let status = http.deliveries(&sb, &conversation);
        (status["state"] == "delivered").then_some(status)
    });
    let attempts = status["attempts"].as_array().unwrap();
    assert!(attempts.len() >= 2, "{status}");
    assert_eq!(attempts.iter().filter(|a| a["ok"] == true).count(), 1, "{status}");
    let lines = journal_lines(dir.path());
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["payload"]["conversation_id"], conversation.as_str());
}

#[test]
fn a_redelivered_notification_is_stored_once_also_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path(), 0);
    let http = Http::new();
    let url = listener.url("conversation-ended");
    let named = json!({"conversation_id": "conv-1", "transcript": "User: hallo"}).to_string();
    assert_eq!(http.post(&url, named.clone()), (200, r#"{"status":"stored"}"#.into()));
    assert_eq!(http.post(&url, named.clone()), (200, r#"{"status":"duplicate"}"#.into()));
    // Without an id the canonical payload is the key: reordered and reformatted is the same.
    let compact = r#"{"b":1,"a":[1,2]}"#;
    let pretty = "{\n  \"a\": [1, 2],\n  \"b\": 1\n}\n";
    assert_eq!(http.post(&url, compact).1, r#"{"status":"stored"}"#);
    assert_eq!(http.post(&url, pretty).1, r#"{"status":"duplicate"}"#);
    // The same event as another kind is another event.
    assert_eq!(http.post(&listener.url("post-call"), named.clone()).1, r#"{"status":"stored"}"#);
    // Concurrent redeliveries: one is stored, the rest are duplicates, lines stay whole.
    let concurrent = json!({"call_id": "c-9", "pad": "x".repeat(100_000)}).to_string();
    let answers = http.runtime.block_on(async {
        let posts = (0..16).map(|_| {
            let request = http.client.post(&url).body(concurrent.clone());
            async move { request.send().await.unwrap().text().await.unwrap() }
        });
        let handles: Vec<_> = posts.map(tokio::spawn).collect();
        let mut answers = Vec::new();
        for handle in handles {
            answers.push(handle.await.unwrap());
        }
        answers
    });
    assert_eq!(answers.iter().filter(|a| a.contains("stored")).count(), 1, "{answers:?}");
    assert_eq!(journal_lines(dir.path()).len(), 4);

    drop(listener);
    let listener = Listener::start(dir.path(), 0);
    let url = listener.url("conversation-ended");
    assert_eq!(http.post(&url, named).1, r#"{"status":"duplicate"}"#, "keys survive a restart");
    let lines = journal_lines(dir.path());
    assert_eq!(lines.len(), 4);
    let keys: Vec<&str> = lines.iter().map(|l| l["key"].as_str().unwrap()).collect();
    assert_eq!(keys[0], "conversation-ended:conversation_id=conv-1");
    assert!(keys[1].starts_with("conversation-ended:blake3="), "{keys:?}");
    assert_eq!(keys[2], "post-call:conversation_id=conv-1");
    assert_eq!(keys[3], "conversation-ended:call_id=c-9");
}

#[test]
fn bad_requests_are_refused_and_the_receiver_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path(), 0);
    let http = Http::new();
    let base = &listener.base_url;
    let body = json!({"conversation_id": "c-1"}).to_string();
    for url in [
        format!("{base}/conversation-ended?token=wrong-secret-wrong-secret"),
        format!("{base}/conversation-ended"),
        format!("{base}/conversation-ended?secret={SECRET}"),
        format!("{base}/conversation-ended?token={}", &SECRET[..SECRET.len() - 1]),
        format!("{base}/unknown-kind?token={SECRET}"),
        format!("{base}/../admin?token={SECRET}"),
    ] {
        assert_eq!(http.post(&url, body.clone()), (404, String::new()), "{url}");
    }
    let (status, _) = http.send(http.client.get(listener.url("conversation-ended")));
    assert_eq!(status, 404, "other methods are not revealed either");
    let url = listener.url("conversation-ended");
    let oversized = format!(r#"{{"pad": "{}"}}"#, "x".repeat(1024 * 1024));
    assert_eq!(http.post(&url, oversized).0, 413);
    assert_eq!(http.post(&url, "not json").0, 400);
    assert_eq!(http.post(&url, "").0, 400);
    assert_eq!(http.post(&url, "{\"cut\": ").0, 400);
    assert!(journal_lines(dir.path()).is_empty(), "nothing was stored");
    assert_eq!(http.post(&url, body), (200, r#"{"status":"stored"}"#.into()));
    assert_eq!(journal_lines(dir.path()).len(), 1);
}

#[test]
fn the_receiver_needs_a_strong_secret_and_export_names_its_formats() {
    let dir = tempfile::tempdir().unwrap();
    let mut cli = Cli::new().args(["webhook", "listen", "--port", "0", "--out"]).args([dir.path()]);
    cli.cmd.env_remove("LEADSYNC_WEBHOOK_SECRET");
    let (_, err) = cli.expect_code(1);
    assert!(err.contains("LEADSYNC_WEBHOOK_SECRET"), "{err}");
    let (_, err) = Cli::new()
        .args(["webhook", "listen", "--port", "0", "--out"])
        .args([dir.path()])
        .env("LEADSYNC_WEBHOOK_SECRET", "short")
        .expect_code(1);
    assert!(err.contains("at least 16"), "{err}");
    std::fs::write(dir.path().join("events.jsonl"), "").unwrap();
    let (_, err) = Cli::new()
        .current_dir(dir.path())
        .args(["webhook", "export", "--in"])
        .args([dir.path()])
        .args(["-o", "out.txt"])
        .expect_code(1);
    assert!(err.contains("`txt`") && err.contains(".csv or .xlsx"), "{err}");
}

fn unicode_lead(phone: &str, campaign: u64, name: &str, formula: &str) -> NewLead {
    let vars = |pairs: &[(&str, &str)]| {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    };
    NewLead {
        phone_number: phone.into(),
        campaign_id: campaign,
        variables: vars(&[
            ("customer_name", name),
            ("stadt", "Düsseldorf"),
            ("hebrew", "שלום עולם"),
            ("formula", formula),
        ]),
        allow_dupplicate: false,
        secondary_contacts: vec![NewContact {
            phone_number: "+4930123456".into(),
            variables: vars(&[("rolle", "Ehefrau 💍")]),
        }],
    }
}

#[test]
fn leads_export_round_trips_unicode_into_xlsx_and_csv() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    sb.block_on(client.create_lead(&unicode_lead("+4915112345678", 10, "Zoë Ünal 🚀", "=cmd")))
        .unwrap();
    let mut other = unicode_lead("+4915199999999", 13, "Ahmed الرحمن", "+1 (555)");
    other.variables.insert("email".into(), "a@example.com".into());
    other.secondary_contacts.clear();
    sb.block_on(client.create_lead(&other)).unwrap();
    sb.block_on(sb.client(BOB).create_lead(&unicode_lead("+4917000000000", 20, "Bob", "x")))
        .unwrap();

    let xlsx = sb.path("leads.xlsx");
    let (_, err) = sb.cli(ALICE).args(["leads", "export", "-o"]).args([&xlsx]).ok();
    assert!(err.contains("wrote 2 leads"), "{err}");
    let rows = read_xlsx(&xlsx, "Leads");
    let header: Vec<String> = rows[0].iter().map(ToString::to_string).collect();
    assert_eq!(
        header,
        [
            "id",
            "campaign_id",
            "campaign_name",
            "phone_number",
            "status",
            "created_at",
            "updated_at",
            "customer_name",
            "stadt",
            "hebrew",
            "formula",
            "email",
            "secondary_contacts",
            "secondary_1_id",
            "secondary_1_phone",
            "secondary_1_status",
            "secondary_1_rolle",
        ]
    );
    assert_eq!(rows.len(), 3, "Bob's lead is not Alice's");
    assert_eq!(xlsx_cell(&rows, 1, "phone_number"), &Data::String("+4915112345678".into()));
    assert_eq!(xlsx_cell(&rows, 1, "secondary_1_phone"), &Data::String("+4930123456".into()));
    assert!(matches!(xlsx_cell(&rows, 1, "id"), Data::Float(_)), "ids are numbers");
    assert_eq!(xlsx_cell(&rows, 1, "campaign_name"), &Data::String("Spring Outreach".into()));
    assert_eq!(xlsx_cell(&rows, 1, "customer_name"), &Data::String("Zoë Ünal 🚀".into()));
    assert_eq!(xlsx_cell(&rows, 1, "hebrew"), &Data::String("שלום עולם".into()));
    assert_eq!(xlsx_cell(&rows, 1, "formula"), &Data::String("=cmd".into()));
    assert_eq!(xlsx_cell(&rows, 1, "secondary_1_rolle"), &Data::String("Ehefrau 💍".into()));
    assert_eq!(xlsx_cell(&rows, 2, "customer_name"), &Data::String("Ahmed الرحمن".into()));
    assert_eq!(xlsx_cell(&rows, 2, "secondary_1_phone"), &Data::Empty);

    let csv_path = sb.path("spring.csv");
    sb.cli(ALICE)
        .args(["leads", "export", "--campaign", "spring OUTREACH", "-o"])
        .args([&csv_path])
        .ok();
    let (header, rows) = read_csv(&csv_path);
    assert_eq!(rows.len(), 1, "only campaign 10");
    let row = &rows[0];
    assert_eq!(cell(&header, row, "phone_number"), "+4915112345678");
    assert_eq!(cell(&header, row, "formula"), "'=cmd");
    assert_eq!(cell(&header, row, "customer_name"), "Zoë Ünal 🚀");
    assert_eq!(cell(&header, row, "hebrew"), "שלום עולם");
    let by_id = sb.path("by-id.csv");
    sb.cli(ALICE).args(["leads", "export", "--campaign", "13", "-o"]).args([&by_id]).ok();
    let (header, rows) = read_csv(&by_id);
    // A phone number as people type it is not a formula: no quote that would break it.
    assert_eq!(cell(&header, &rows[0], "formula"), "+1 (555)");

    let (_, err) =
        sb.cli(ALICE).args(["leads", "export", "--campaign", "Nope", "-o", "x.csv"]).expect_code(1);
    assert!(
        err.contains("no campaign `Nope`")
            && err.contains("`Spring Outreach` (10)")
            && err.contains("`Café Été` (13)"),
        "{err}"
    );
    let (_, err) = sb
        .cli(ALICE)
        .args(["leads", "export", "--campaign", "renewals", "-o", "x.csv"])
        .expect_code(1);
    assert!(err.contains("ids 11, 12"), "{err}");
    let (_, err) = sb.cli(ALICE).args(["leads", "export", "-o", "x.ods"]).expect_code(1);
    assert!(err.contains("`ods`") && err.contains(".csv or .xlsx"), "{err}");
    assert!(!sb.path("x.csv").exists());
}

/// Throughput of the receiver binary: distinct notifications from 32 concurrent senders, each
/// answered only after fsync, then the same again as duplicates. Run with `--ignored
/// --nocapture`; it prints the rates.
#[test]
#[ignore = "a measurement, not a check: run with --ignored --nocapture"]
fn receiver_throughput() {
    const TOTAL: usize = 4_000;
    const SENDERS: usize = 32;
    let dir = tempfile::tempdir_in(".").unwrap();
    let listener = Listener::start(dir.path(), 0);
    let http = Http::new();
    let url = listener.url("conversation-ended");
    let transcript: Vec<Value> = (0..20)
        .map(|i| json!({"role": if i % 2 == 0 { "assistant" } else { "user" }, "content": "Guten Tag, ich hätte gern ein Angebot 🚀", "timestamp": "2026-01-02T10:00:00Z"}))
        .collect();
    let body = |n: usize| {
        json!({"conversation_id": format!("c-{n}"), "transcript": transcript, "variables": {"n": n}}).to_string()
    };
    let bodies: Vec<String> = (0..TOTAL).map(body).collect();
    for round in ["stored", "duplicate"] {
        let start = Instant::now();
        let answers = http.runtime.block_on(async {
            let chunks = bodies.chunks(TOTAL / SENDERS).map(|chunk| {
                let (client, url, chunk) = (http.client.clone(), url.clone(), chunk.to_vec());
                tokio::spawn(async move {
                    let mut ok = 0;
                    for body in chunk {
                        let answer = client.post(&url).body(body).send().await.unwrap();
                        ok += usize::from(answer.text().await.unwrap().contains(round));
                    }
                    ok
                })
            });
            let handles: Vec<_> = chunks.collect();
            let mut ok = 0;
            for handle in handles {
                ok += handle.await.unwrap();
            }
            ok
        });
        let elapsed = start.elapsed();
        assert_eq!(answers, TOTAL);
        eprintln!(
            "{round}: {TOTAL} notifications of {} bytes in {elapsed:.2?}: {:.0}/s",
            bodies[0].len(),
            TOTAL as f64 / elapsed.as_secs_f64()
        );
    }
    assert_eq!(journal_lines(dir.path()).len(), TOTAL);
}

/// How long `leads export` takes for 10,000 leads with five variables and a secondary contact
/// each, to XLSX and to CSV. Run with `--ignored --nocapture`; it prints the times.
#[test]
#[ignore = "a measurement, not a check: run with --ignored --nocapture"]
fn leads_export_time() {
    const LEADS: usize = 10_000;
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    sb.block_on(async {
        let tasks = (0..16).map(|worker| {
            let client = client.clone();
            tokio::spawn(async move {
                for n in (worker..LEADS).step_by(16) {
                    let mut lead =
                        unicode_lead(&format!("+49151{n:08}"), 10, "Zoë Ünal 🚀", "=cmd");
                    lead.variables.insert("n".into(), n.to_string());
                    client.create_lead(&lead).await.unwrap();
                }
            })
        });
        for task in tasks.collect::<Vec<_>>() {
            task.await.unwrap();
        }
    });
    for name in ["big.xlsx", "big.csv"] {
        let start = Instant::now();
        sb.cli(ALICE).args(["leads", "export", "-o", name]).ok();
        let size = std::fs::metadata(sb.path(name)).unwrap().len();
        eprintln!("{name}: {LEADS} leads in {:.2?}, {size} bytes", start.elapsed());
    }
}

#[test]
fn simulation_needs_a_live_assistant_of_the_caller_with_a_webhook() {
    let sb = TestSandbox::start();
    let http = Http::new();
    let (status, body) = http.simulate(&sb, 101, json!({}));
    assert_eq!(status, 422, "no webhook enabled yet: {body}");
    assert!(
        body["errors"]["assistant_id"][0]
            .as_str()
            .unwrap()
            .contains("no conversation-ended webhook"),
        "{body}"
    );
    enable(&sb, 101, "http://127.0.0.1:9/hooks/conversation-ended");
    for (assistant, why) in [(102, "deleted"), (200, "Bob's"), (999, "missing")] {
        let (status, body) = http.simulate(&sb, assistant, json!({}));
        assert_eq!(status, 404, "{why}: {body}");
    }
    let (status, body) = http.simulate(&sb, 101, json!({"transcript": 5, "customer": "x"}));
    assert_eq!(status, 422, "{body}");
    assert!(
        body["errors"]["transcript"].is_array() && body["errors"]["customer"].is_array(),
        "{body}"
    );
    let url = format!("{}/sandbox/assistants/101/simulate-conversation-ended", sb.base_url);
    assert_eq!(http.send(http.client.post(&url)).0, 401);
    let (status, answer) = http.simulate(&sb, 101, json!({"transcript": "User: hi"}));
    assert_eq!(status, 202, "{answer}");
    assert_eq!(answer["payload"]["transcript"], "User: hi");
    let conversation = answer["conversation_id"].as_str().unwrap();
    let others = format!("{}/sandbox/conversations/{conversation}/deliveries", sb.base_url);
    assert_eq!(http.send(http.client.get(&others).bearer_auth(BOB)).0, 404, "Bob cannot see it");
}

/// Sends `bodies` to `url` from `senders` concurrent tasks; returns the indexes the receiver
/// acknowledged with 200. Stops at the first connection error of each sender (a killed
/// receiver) and never waits longer than `limit` in all.
fn send_all(url: &str, bodies: &[String], senders: usize, limit: Duration) -> Vec<usize> {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    runtime.block_on(async {
        let deadline = tokio::time::Instant::now() + limit;
        let handles: Vec<_> = (0..senders)
            .map(|sender| {
                let (client, url) = (client.clone(), url.to_string());
                let mine: Vec<(usize, String)> = bodies
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % senders == sender)
                    .map(|(i, b)| (i, b.clone()))
                    .collect();
                tokio::spawn(async move {
                    let mut acked = Vec::new();
                    for (i, body) in mine {
                        let sent = client.post(&url).body(body).send();
                        match tokio::time::timeout_at(deadline, sent).await {
                            Ok(Ok(answer)) if answer.status() == 200 => acked.push(i),
                            Ok(Ok(answer)) => panic!("refused: {}", answer.status()),
                            Ok(Err(_)) | Err(_) => break,
                        }
                    }
                    acked
                })
            })
            .collect();
        let mut acked = Vec::new();
        for handle in handles {
            acked.extend(handle.await.unwrap());
        }
        acked
    })
}

fn notification(n: usize) -> String {
    json!({"conversation_id": format!("load-{n}"), "variables": {"n": n}}).to_string()
}

fn stored_keys(dir: &Path) -> std::collections::HashMap<String, usize> {
    let mut keys = std::collections::HashMap::new();
    for line in journal_lines(dir) {
        *keys.entry(line["key"].as_str().unwrap().to_string()).or_insert(0) += 1;
    }
    keys
}

/// Peak resident memory of a process, from /proc (Linux), in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn ten_thousand_notifications_from_64_senders_are_each_stored_once() {
    const TOTAL: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path(), 0);
    let url = listener.url("conversation-ended");
    let bodies: Vec<String> = (0..TOTAL).map(notification).collect();
    let acked = send_all(&url, &bodies, 64, Duration::from_secs(240));
    assert_eq!(acked.len(), TOTAL, "every notification was acknowledged");
    // Every one again, as a service retrying: all acknowledged, nothing stored twice.
    let again = send_all(&url, &bodies[..2_000], 64, Duration::from_secs(120));
    assert_eq!(again.len(), 2_000);
    let keys = stored_keys(dir.path());
    assert_eq!(keys.len(), TOTAL);
    assert!(keys.values().all(|n| *n == 1), "a key stored twice");
    if let Some(peak) = peak_rss_kib(listener.child.id()) {
        assert!(peak < 128 * 1024, "the receiver peaked at {peak} KiB");
    }
}

#[test]
fn every_acknowledged_notification_survives_a_sigkill() {
    const TOTAL: usize = 3_000;
    let dir = tempfile::tempdir().unwrap();
    let mut listener = Listener::start(dir.path(), 0);
    let url = listener.url("conversation-ended");
    let bodies: Vec<String> = (0..TOTAL).map(notification).collect();
    let acked = std::thread::scope(|scope| {
        let sending = scope.spawn(|| send_all(&url, &bodies, 64, Duration::from_secs(120)));
        // Kill it partway: once the journal holds a few hundred lines.
        eventually("a few hundred stored", Duration::from_secs(60), || {
            (journal_lines_lossy(dir.path()) >= 300).then_some(())
        });
        listener.child.kill().unwrap();
        listener.child.wait().unwrap();
        sending.join().unwrap()
    });
    // Lines reach the disk before their 200 reaches the sender, so fewer may be acknowledged.
    assert!(acked.len() >= 100 && acked.len() < TOTAL, "killed partway: {} acked", acked.len());
    let restarted = Listener::start(dir.path(), 0);
    let keys = stored_keys(dir.path());
    for i in &acked {
        let key = format!("conversation-ended:conversation_id=load-{i}");
        assert_eq!(keys.get(&key), Some(&1), "acknowledged {key} is stored once");
    }
    let url = restarted.url("conversation-ended");
    assert_eq!(send_all(&url, &bodies, 64, Duration::from_secs(120)).len(), TOTAL);
    let keys = stored_keys(dir.path());
    assert_eq!(keys.len(), TOTAL);
    assert!(keys.values().all(|n| *n == 1));
}

/// Complete lines of the journal so far (a line being written is not counted).
fn journal_lines_lossy(dir: &Path) -> usize {
    let text = std::fs::read(dir.join("events.jsonl")).unwrap_or_default();
    text.iter().filter(|b| **b == b'\n').count()
}

#[test]
fn slow_senders_and_oversized_headers_are_cut_off() {
    use std::io::Write;
    use std::net::TcpStream;
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(dir.path(), 0);
    let addr =
        listener.base_url.trim_start_matches("http://").trim_end_matches("/hooks").to_string();
    let path = format!("/hooks/conversation-ended?token={SECRET}");
    // A body dribbled a byte at a time is cut off, and the request answered 408 or dropped.
    let dribbler = std::thread::spawn({
        let (addr, path) = (addr.clone(), path.clone());
        move || {
            let mut stream = TcpStream::connect(&addr).unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            let head = format!("POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n\r\n");
            stream.write_all(head.as_bytes()).unwrap();
            let started = Instant::now();
            for _ in 0..200 {
                if stream.write_all(b" ").is_err() || started.elapsed() > Duration::from_secs(20) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(250));
            }
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer);
            (started.elapsed(), answer)
        }
    });
    // Headers that never end are cut off too.
    let slow_head = std::thread::spawn({
        let addr = addr.clone();
        move || {
            let mut stream = TcpStream::connect(&addr).unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            let started = Instant::now();
            stream.write_all(b"POST /hooks/conversation-ended HTTP/1.1\r\nX-Slow: ").unwrap();
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer);
            started.elapsed()
        }
    });
    // Meanwhile others are served at once.
    let http = Http::new();
    let url = listener.url("conversation-ended");
    assert_eq!(http.post(&url, notification(1)).0, 200);
    let huge = "x".repeat(64 * 1024);
    let refused = http.runtime.block_on(async {
        let sent =
            http.client.post(&url).header("x-huge", &huge).body(notification(2)).send().await;
        sent.map(|answer| answer.status().as_u16())
    });
    assert!(matches!(refused, Ok(431) | Err(_)), "oversized headers refused: {refused:?}");
    let (took, answer) = dribbler.join().unwrap();
    assert!(took < Duration::from_secs(15), "the slow body was cut off after {took:?}");
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "{answer}");
    let took = slow_head.join().unwrap();
    assert!(took < Duration::from_secs(20), "the slow header was cut off after {took:?}");
    assert_eq!(stored_keys(dir.path()).len(), 1, "only the well-formed notification");
    assert_eq!(http.post(&url, notification(3)).0, 200, "and the receiver still serves");
}

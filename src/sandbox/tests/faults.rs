//! Each fault observed from the outside: 5xx before any work, a dropped connection after the
//! work, a 500, a stall or a slow commit of a write that is stored all the same, 429 with
//! Retry-After, latency, and reproducibility under a fault seed.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{ids, localhost, on_file, start, with_faults};
use crate::sandbox::{DEMO_TOKEN, Faults, OTHER_TOKEN, Sandbox, SandboxConfig, SandboxError};

fn lead(phone: &str) -> serde_json::Value {
    json!({"phone_number": phone, "campaign_id": 1})
}

/// The demo user's leads in the database file, read by a fresh sandbox without faults.
async fn leads_on_file(db: &std::path::Path) -> Vec<i64> {
    let h = start(on_file(db, None, Faults::default())).await;
    let leads = ids(&h.get(Some(DEMO_TOKEN), "/user/leads").await.body);
    h.stop().await;
    leads
}

#[tokio::test]
async fn failures_answer_5xx_before_doing_anything() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fail.db");
    let faults = Faults { fail_rate: 1.0, ..Faults::default() };
    let h = start(on_file(&db, None, faults)).await;
    let response = h
        .http
        .post(h.url("/user/lead"))
        .bearer_auth(DEMO_TOKEN)
        .json(&lead("+15550000001"))
        .send()
        .await
        .unwrap();
    let status = response.status();
    assert!(matches!(status.as_u16(), 500 | 503), "{status}");
    assert_eq!(response.headers()["x-sandbox-fault"], "fail");
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(body["message"].is_string());
    h.stop().await;
    assert!(leads_on_file(&db).await.is_empty(), "a failed request created nothing");
}

#[tokio::test]
async fn dropped_connections_close_silently_after_the_lead_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("drop.db");
    let faults = Faults { drop_rate: 1.0, ..Faults::default() };
    let h = start(on_file(&db, None, faults)).await;
    let sent = h
        .http
        .post(h.url("/user/lead"))
        .bearer_auth(DEMO_TOKEN)
        .json(&lead("+15550000001"))
        .send()
        .await;
    let error = sent.expect_err("a dropped request gets no HTTP answer");
    assert!(error.status().is_none() && error.is_request(), "{error:?}");
    // On a raw socket: the request goes out whole, and not one byte comes back before EOF.
    let body = lead("+15550000002").to_string();
    let request = format!(
        "POST /api/user/lead HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {DEMO_TOKEN}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        h.sandbox.addr,
        body.len()
    );
    let mut socket = tokio::net::TcpStream::connect(h.sandbox.addr).await.unwrap();
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let read = socket.read_to_end(&mut answer).await;
    assert!(answer.is_empty(), "got {:?}", String::from_utf8_lossy(&answer));
    assert!(read.is_ok() || read.unwrap_err().kind() == std::io::ErrorKind::ConnectionReset);
    h.stop().await;
    assert_eq!(leads_on_file(&db).await.len(), 2, "both dropped requests were performed");
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after_per_token() {
    let h = with_faults(Faults { rate_limit: Some(2), ..Faults::default() }).await;
    let mut statuses = Vec::new();
    let mut limited = None;
    for _ in 0..3 {
        let answer = h.get(Some(DEMO_TOKEN), "/user/campaigns").await;
        statuses.push(answer.status);
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            limited = Some(answer);
        }
    }
    assert_eq!(statuses, [StatusCode::OK, StatusCode::OK, StatusCode::TOO_MANY_REQUESTS]);
    let limited = limited.unwrap();
    let retry_after: u64 = limited.retry_after.unwrap().parse().unwrap();
    assert!(retry_after >= 1);
    assert_eq!(limited.body, json!({"message": "Too Many Attempts.", "retry_after": retry_after}));
    let other = h.get(Some(OTHER_TOKEN), "/user/campaigns").await;
    assert_eq!(other.status, StatusCode::OK, "each token has its own allowance");
    h.stop().await;
}

#[tokio::test]
async fn latency_delays_every_answer() {
    let latency = Duration::from_millis(250);
    let h = with_faults(Faults { latency, ..Faults::default() }).await;
    for token in [Some(DEMO_TOKEN), None] {
        let started = Instant::now();
        h.get(token, "/user/campaigns").await;
        assert!(started.elapsed() >= latency, "{token:?}: {:?}", started.elapsed());
    }
    h.stop().await;
}

#[tokio::test]
async fn a_fault_seed_repeats_the_same_faults() {
    let mut runs = Vec::new();
    for _ in 0..2 {
        let h = with_faults(Faults { fail_rate: 0.5, seed: Some(7), ..Faults::default() }).await;
        let mut statuses = Vec::new();
        for _ in 0..24 {
            statuses.push(h.get(Some(DEMO_TOKEN), "/user/campaigns").await.status.as_u16());
        }
        h.stop().await;
        runs.push(statuses);
    }
    assert_eq!(runs[0], runs[1]);
    assert!(runs[0].contains(&200) && runs[0].iter().any(|s| *s >= 500), "{:?}", runs[0]);
}

#[tokio::test]
async fn impossible_fault_settings_are_refused() {
    let bad = [
        (Faults { fail_rate: 1.5, ..Faults::default() }, "fail_rate"),
        (Faults { drop_rate: -0.1, ..Faults::default() }, "drop_rate"),
        (Faults { rate_limit: Some(0), ..Faults::default() }, "rate_limit"),
        (Faults { commit_fail_rate: 2.0, ..Faults::default() }, "commit_fail_rate"),
        (Faults { stall_rate: f64::NAN, ..Faults::default() }, "stall_rate"),
        (Faults { slow_commit_rate: 0.5, ..Faults::default() }, "stall"),
        (Faults { stall_rate: 0.5, ..Faults::default() }, "stall"),
        (Faults { stall: Duration::from_secs(601), ..Faults::default() }, "stall"),
    ];
    for (faults, setting) in bad {
        let config = SandboxConfig { faults, ..SandboxConfig::default() };
        let error = Sandbox::start(config, localhost()).await.err().unwrap();
        assert!(
            matches!(&error, SandboxError::InvalidFaults { setting: s, .. } if *s == setting),
            "{setting}: {error}"
        );
    }
}

/// A client that gives up after `timeout`, as a push worker does.
fn impatient(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder().no_proxy().timeout(timeout).build().unwrap()
}

async fn post_lead(
    http: &reqwest::Client,
    h: &super::Harness,
    phone: &str,
) -> reqwest::Result<reqwest::Response> {
    http.post(h.url("/user/lead")).bearer_auth(DEMO_TOKEN).json(&lead(phone)).send().await
}

/// The phone numbers of the demo user's leads, read through the same sandbox (reads are never
/// hit by the write faults).
async fn phones(h: &super::Harness) -> Vec<String> {
    let answer = h.get(Some(DEMO_TOKEN), "/user/leads").await;
    assert_eq!(answer.status, StatusCode::OK, "a read is not faulted: {}", answer.body);
    let leads = answer.body.as_array().expect("an array").clone();
    leads.iter().map(|l| l["phone_number"].as_str().unwrap_or_default().to_string()).collect()
}

#[tokio::test]
async fn commit_failures_store_the_lead_then_answer_500() {
    let h = with_faults(Faults { commit_fail_rate: 1.0, ..Faults::default() }).await;
    let response = post_lead(&h.http, &h, "+15550000001").await.unwrap();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(response.headers()["x-sandbox-fault"], "commit-fail");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body, json!({"message": "Server Error"}), "no trace of the created lead");
    assert_eq!(phones(&h).await, ["+15550000001"], "the write was committed");
    let again = post_lead(&h.http, &h, "+15550000001").await.unwrap();
    assert_eq!(again.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(phones(&h).await, ["+15550000001"], "the repeat met the duplicate rule");
    h.stop().await;
}

#[tokio::test]
async fn stalled_answers_come_after_the_commit_and_after_impatient_clients_left() {
    // Wide margins over the client's 150 ms: a busy CI machine can pause a test thread for
    // hundreds of milliseconds, and the order of events is what is asserted, not the time.
    let stall = Duration::from_millis(1500);
    let h = with_faults(Faults { stall_rate: 1.0, stall, ..Faults::default() }).await;
    let started = Instant::now();
    let error = post_lead(&impatient(Duration::from_millis(150)), &h, "+15550000001")
        .await
        .expect_err("the answer comes after the client's timeout");
    assert!(error.is_timeout(), "{error:?}");
    assert!(started.elapsed() < stall, "the client gave up before the stall ended");
    assert_eq!(phones(&h).await, ["+15550000001"], "stored before the answer was held back");
    let started = Instant::now();
    let response = post_lead(&h.http, &h, "+15550000002").await.unwrap();
    assert!(started.elapsed() >= stall, "a patient client waits: {:?}", started.elapsed());
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["x-sandbox-fault"], "stall");
    h.stop().await;
}

#[tokio::test]
async fn slow_commits_land_after_the_client_gave_up() {
    // Wide margins, as above: "not committed yet" must still hold when the check runs late.
    let stall = Duration::from_millis(2000);
    let h = with_faults(Faults { slow_commit_rate: 1.0, stall, ..Faults::default() }).await;
    let started = Instant::now();
    let error = post_lead(&impatient(Duration::from_millis(150)), &h, "+15550000001")
        .await
        .expect_err("the answer comes after the client's timeout");
    assert!(error.is_timeout(), "{error:?}");
    assert!(phones(&h).await.is_empty(), "not committed yet at {:?}", started.elapsed());
    let deadline = Instant::now() + Duration::from_secs(10);
    while phones(&h).await.is_empty() {
        assert!(Instant::now() < deadline, "the slow commit never landed");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(started.elapsed() >= stall, "committed after the stall: {:?}", started.elapsed());
    assert_eq!(phones(&h).await, ["+15550000001"]);
    h.stop().await;
}

#[tokio::test]
async fn a_patient_client_gets_the_slow_commits_answer() {
    let stall = Duration::from_millis(300);
    let h = with_faults(Faults { slow_commit_rate: 1.0, stall, ..Faults::default() }).await;
    let started = Instant::now();
    let response = post_lead(&h.http, &h, "+15550000001").await.unwrap();
    assert!(started.elapsed() >= stall, "{:?}", started.elapsed());
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["x-sandbox-fault"], "slow-commit");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["data"]["phone_number"], "+15550000001");
    h.stop().await;
}

#[tokio::test]
async fn a_fault_seed_repeats_write_faults_and_they_leave_the_others_alone() {
    let run = |faults: Faults| async move {
        let h = with_faults(faults).await;
        let mut statuses = Vec::new();
        for i in 0..24 {
            let write = h.post(Some(DEMO_TOKEN), "/user/lead", lead(&format!("+1555000{i:04}")));
            statuses.push(write.await.status.as_u16());
            statuses.push(h.get(Some(DEMO_TOKEN), "/user/campaigns").await.status.as_u16());
        }
        h.stop().await;
        statuses
    };
    let writes = Faults { commit_fail_rate: 0.5, seed: Some(7), ..Faults::default() };
    let (first, second) = (run(writes.clone()).await, run(writes).await);
    assert_eq!(first, second);
    let (posts, gets): (Vec<_>, Vec<_>) = first.chunks(2).map(|pair| (pair[0], pair[1])).unzip();
    assert!(posts.contains(&200) && posts.contains(&500), "{posts:?}");
    assert!(gets.iter().all(|s| *s == 200), "reads are never hit by write faults: {gets:?}");
    // The 5xx before any work fall exactly where they fell before write faults existed.
    let fails = Faults { fail_rate: 0.5, seed: Some(7), ..Faults::default() };
    let both = Faults { commit_fail_rate: 0.5, ..fails.clone() };
    let (alone, mixed) = (run(fails).await, run(both).await);
    for (index, (before, after)) in alone.iter().zip(&mixed).enumerate() {
        let get = index % 2 == 1;
        match before {
            // Only the fault before any work answers 503; a write also meets commit failures.
            503 => assert_eq!(after, before, "request {index}"),
            200 if !get => assert!(matches!(after, 200 | 500), "request {index}: {after}"),
            _ if get => assert_eq!(after, before, "request {index}"),
            _ => {}
        }
    }
    assert!(alone.contains(&503) && mixed.iter().step_by(2).any(|s| *s == 200), "{mixed:?}");
}

#[tokio::test]
async fn updates_and_deletes_meet_the_write_faults_too() {
    let h = with_faults(Faults { commit_fail_rate: 1.0, ..Faults::default() }).await;
    let created = h.post(Some(DEMO_TOKEN), "/user/lead", lead("+15550000001")).await;
    assert_eq!(created.status, StatusCode::INTERNAL_SERVER_ERROR);
    let id = ids(&h.get(Some(DEMO_TOKEN), "/user/leads").await.body)[0];
    let change = h.http.put(h.url(&format!("/leads/{id}"))).json(&json!({"status": "completed"}));
    let response = change.bearer_auth(DEMO_TOKEN).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(response.headers()["x-sandbox-fault"], "commit-fail");
    let listed = h.get(Some(DEMO_TOKEN), "/user/leads").await.body;
    assert_eq!(listed[0]["status"], "completed", "the update was committed");
    let delete = h.http.delete(h.url(&format!("/user/leads/{id}"))).bearer_auth(DEMO_TOKEN);
    let response = delete.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert!(ids(&h.get(Some(DEMO_TOKEN), "/user/leads").await.body).is_empty(), "deleted");
    h.stop().await;
}

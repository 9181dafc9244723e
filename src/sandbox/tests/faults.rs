//! Each fault observed from the outside: 5xx before any work, a dropped connection after the
//! work, 429 with Retry-After, latency, and reproducibility under a fault seed.

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
        Faults { fail_rate: 1.5, ..Faults::default() },
        Faults { drop_rate: -0.1, ..Faults::default() },
        Faults { rate_limit: Some(0), ..Faults::default() },
    ];
    for faults in bad {
        let config = SandboxConfig { faults, ..SandboxConfig::default() };
        let error = Sandbox::start(config, localhost()).await.err().unwrap();
        assert!(matches!(error, SandboxError::InvalidFaults { .. }), "{error}");
    }
}

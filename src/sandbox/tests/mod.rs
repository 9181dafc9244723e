//! The sandbox's own behaviour, over real HTTP: each test starts a sandbox on `127.0.0.1:0`
//! and talks to it with reqwest, as the client will.

mod api;
mod faults;
mod leads;
mod seeding;
mod shapes;
mod throughput;
mod webhook;

use std::net::SocketAddr;
use std::path::Path;

use reqwest::StatusCode;
use serde_json::Value;

use super::{Faults, Sandbox, SandboxConfig, Seed};

/// A running sandbox and a client for it.
struct Harness {
    sandbox: Sandbox,
    http: reqwest::Client,
}

/// The answer to one request: status, a header if asked for, and the JSON body.
struct Answer {
    status: StatusCode,
    retry_after: Option<String>,
    body: Value,
}

fn localhost() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

fn client() -> reqwest::Client {
    // No proxy: a proxy from the environment must not stand between the test and the socket.
    reqwest::Client::builder().no_proxy().build().unwrap()
}

async fn start(config: SandboxConfig) -> Harness {
    let sandbox = Sandbox::start(config, localhost()).await.unwrap();
    Harness { sandbox, http: client() }
}

/// The demo data in memory, no faults.
async fn demo() -> Harness {
    start(SandboxConfig::default()).await
}

async fn with_faults(faults: Faults) -> Harness {
    start(SandboxConfig { faults, ..SandboxConfig::default() }).await
}

/// An in-memory sandbox loaded with `seed`, no faults.
fn in_memory(seed: Seed) -> SandboxConfig {
    SandboxConfig { seed: Some(seed), ..SandboxConfig::default() }
}

fn on_file(db: &Path, seed: Option<Seed>, faults: Faults) -> SandboxConfig {
    SandboxConfig { db: Some(db.to_path_buf()), seed, faults, ..SandboxConfig::default() }
}

impl Harness {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.sandbox.base_url)
    }

    async fn get(&self, token: Option<&str>, path: &str) -> Answer {
        self.send(token, self.http.get(self.url(path))).await
    }

    async fn post(&self, token: Option<&str>, path: &str, body: Value) -> Answer {
        self.send(token, self.http.post(self.url(path)).json(&body)).await
    }

    async fn send(&self, token: Option<&str>, request: reqwest::RequestBuilder) -> Answer {
        let request = match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        };
        let response = request.send().await.expect("the sandbox answers");
        let status = response.status();
        let retry_after =
            response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
        let body = response.json().await.expect("every answer is JSON");
        Answer { status, retry_after, body }
    }

    async fn stop(self) {
        self.sandbox.shutdown().await;
    }
}

/// The ids of a JSON array of records.
fn ids(list: &Value) -> Vec<i64> {
    list.as_array().expect("an array").iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

/// The keys of a JSON object, in order.
fn keys(record: &Value) -> Vec<&str> {
    record.as_object().expect("an object").keys().map(String::as_str).collect()
}

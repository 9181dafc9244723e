//! Throughput of the sandbox under concurrent lead creation, and the time to list 100k leads.
//! Ignored by default (it takes a while); run it with
//! `cargo test --lib sandbox::tests::throughput -- --ignored --nocapture`.

use std::time::Instant;

use super::{on_file, start};
use crate::sandbox::{DEMO_TOKEN, Faults};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn create_and_list_100k_leads() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let h = start(on_file(&db, None, Faults::default())).await;
    let total = 100_000usize;
    let workers = 64;
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for w in 0..workers {
        let http = h.http.clone();
        let url = h.url("/user/lead");
        set.spawn(async move {
            for i in (w..total).step_by(workers) {
                let body = json!({"phone_number": format!("+1555{i:07}"), "campaign_id": 1,
                    "variables": {"customer_name": "Ada", "email": "a@b.c"},
                    "secondary_contacts": if i % 10 == 0 { json!([{"phone_number": "+15559999999"}]) } else { json!([]) }});
                let r = http.post(&url).bearer_auth(DEMO_TOKEN).json(&body).send().await.unwrap();
                assert_eq!(r.status(), 200);
                r.bytes().await.unwrap();
            }
        });
    }
    while set.join_next().await.is_some() {}
    let el = started.elapsed();
    eprintln!("created {total} in {el:?}: {:.0}/s", total as f64 / el.as_secs_f64());
    let started = Instant::now();
    let r = h.http.get(h.url("/user/leads")).bearer_auth(DEMO_TOKEN).send().await.unwrap();
    let bytes = r.bytes().await.unwrap();
    eprintln!("listed {} bytes in {:?}", bytes.len(), started.elapsed());
    h.stop().await;
}

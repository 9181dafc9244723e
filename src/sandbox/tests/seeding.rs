//! Seeds: loading, upserting into an existing database file, persistence across restarts, and
//! errors that name the file and the problem.

use reqwest::StatusCode;
use serde_json::json;

use super::{ids, localhost, on_file, start};
use crate::sandbox::{DEMO_TOKEN, Faults, Sandbox, SandboxError, Seed};

fn seed(json: serde_json::Value) -> Seed {
    Seed::from_json("test seed".into(), json).unwrap()
}

#[tokio::test]
async fn reseeding_an_existing_database_upserts_and_keeps_leads() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sandbox.db");
    let first = seed(json!({"users": [{"id": 1, "token": "tok-1",
        "campaigns": [{"id": 10, "name": "Spring", "max_retries": 7}],
        "assistants": [{"id": 5, "name": "Sales", "llm_temperature": "0.25"}]}]}));
    let h = start(on_file(&db, Some(first), Faults::default())).await;
    let lead = json!({"phone_number": "+15550000001", "campaign_id": 10});
    assert_eq!(h.post(Some("tok-1"), "/user/lead", lead).await.status, StatusCode::OK);
    let uuid = h.get(Some("tok-1"), "/user/assistants/get").await.body["data"][0]["uuid"].clone();
    h.stop().await;

    let second = seed(json!({"users": [{"id": 1, "token": "tok-1",
        "campaigns": [{"id": 10, "name": "Spring 2"}, {"id": 11, "unknown_key": true}],
        "assistants": [{"id": 5, "status": "inactive"}]}]}));
    let h = start(on_file(&db, Some(second), Faults::default())).await;
    let campaigns = h.get(Some("tok-1"), "/user/campaigns").await.body;
    assert_eq!(ids(&campaigns), [10, 11]);
    assert_eq!(
        (campaigns[0]["name"].clone(), campaigns[0]["max_retries"].clone()),
        (json!("Spring 2"), json!(7))
    );
    let fresh = &campaigns[1];
    assert_eq!(
        (fresh["status"].clone(), fresh["allowed_hours_start_time"].clone()),
        (json!("draft"), json!("09:00:00"))
    );
    assert_eq!(
        fresh["allowed_days"],
        json!(["monday", "tuesday", "wednesday", "thursday", "friday"])
    );
    let assistant = h.get(Some("tok-1"), "/user/assistants/get").await.body["data"][0].clone();
    assert_eq!(
        (assistant["status"].clone(), assistant["llm_temperature"].clone()),
        (json!("inactive"), json!("0.25"))
    );
    assert_eq!(assistant["uuid"], uuid, "fields the seed leaves out are kept");
    assert_eq!(h.get(Some("tok-1"), "/user/leads").await.body.as_array().unwrap().len(), 1);
    assert_eq!(
        h.get(Some(DEMO_TOKEN), "/user/leads").await.status,
        StatusCode::UNAUTHORIZED,
        "no demo data on a seeded database"
    );
    h.stop().await;
}

#[tokio::test]
async fn state_survives_a_restart_without_a_seed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sandbox.db");
    let h = start(on_file(&db, None, Faults::default())).await;
    let lead = json!({"phone_number": "+15550000001", "campaign_id": 1});
    let created = h.post(Some(DEMO_TOKEN), "/user/lead", lead.clone()).await.body["data"].clone();
    h.stop().await;
    let h = start(on_file(&db, None, Faults::default())).await;
    assert_eq!(h.get(Some(DEMO_TOKEN), "/user/leads").await.body, json!([created]));
    assert_eq!(
        h.post(Some(DEMO_TOKEN), "/user/lead", lead).await.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "still a duplicate"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_seed_cannot_move_a_record_to_another_tenant() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sandbox.db");
    let h = start(on_file(&db, None, Faults::default())).await;
    h.stop().await;
    let thief = seed(
        json!({"users": [{"id": 2, "token": "sandbox-other-token", "campaigns": [{"id": 1}]}]}),
    );
    let error = Sandbox::start(on_file(&db, Some(thief), Faults::default()), localhost())
        .await
        .err()
        .unwrap();
    assert!(matches!(error, SandboxError::SeedConflict { .. }), "{error}");
    assert!(error.to_string().contains("campaigns id 1 belongs to user 1"), "{error}");
    let stolen_token = seed(json!({"users": [{"id": 3, "token": DEMO_TOKEN}]}));
    let error = Sandbox::start(on_file(&db, Some(stolen_token), Faults::default()), localhost())
        .await
        .err()
        .unwrap();
    assert!(error.to_string().contains("already belongs to user 1"), "{error}");
}

#[test]
fn seed_files_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let error = Seed::from_path(&missing).unwrap_err();
    assert!(
        error.to_string().starts_with(&format!("cannot read seed file `{}`", missing.display())),
        "{error}"
    );
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"users\": [").unwrap();
    let error = Seed::from_path(&broken).unwrap_err();
    assert!(error.to_string().contains("broken.json"), "{error}");
    let typo = dir.path().join("typo.json");
    std::fs::write(
        &typo,
        r#"{"users": [{"id": 1, "token": "t", "assistants": [{"id": 1, "type": "outgoing"}]}]}"#,
    )
    .unwrap();
    let error = Seed::from_path(&typo).unwrap_err().to_string();
    assert!(
        error.contains("typo.json") && error.contains("users[0].assistants[0].type"),
        "{error}"
    );
    let good = dir.path().join("good.json");
    std::fs::write(
        &good,
        r#"{"users": [{"id": 1, "token": "t", "campaigns": [{"id": 10, "name": "Spring"}]}]}"#,
    )
    .unwrap();
    assert_eq!(Seed::from_path(&good).unwrap().user_count(), 1);
}

fn lead_for(campaign: i64) -> serde_json::Value {
    json!({"phone_number": "+15550000001", "campaign_id": campaign})
}

#[tokio::test]
async fn every_token_of_a_user_is_that_user() {
    let two_tokens = seed(json!({"users": [
        {"id": 1, "token": "tok-a", "tokens": ["tok-b"], "campaigns": [{"id": 10}, {"id": 11}]},
        {"id": 2, "tokens": ["tok-c"], "campaigns": [{"id": 20}]}]}));
    let h = start(super::in_memory(two_tokens)).await;
    let created = h.post(Some("tok-a"), "/user/lead", lead_for(10)).await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.body);
    let id = created.body["data"]["id"].as_i64().unwrap();
    for token in ["tok-a", "tok-b"] {
        assert_eq!(ids(&h.get(Some(token), "/user/leads").await.body), [id], "{token}");
        assert_eq!(ids(&h.get(Some(token), "/user/campaigns").await.body), [10, 11], "{token}");
    }
    assert!(ids(&h.get(Some("tok-c"), "/user/leads").await.body).is_empty());
    assert_eq!(ids(&h.get(Some("tok-c"), "/user/campaigns").await.body), [20]);
    let duplicate = h.post(Some("tok-b"), "/user/lead", lead_for(10)).await;
    assert_eq!(duplicate.status, StatusCode::UNPROCESSABLE_ENTITY, "one user, one duplicate rule");
    h.stop().await;
}

#[tokio::test]
async fn a_reseed_replaces_tokens_and_may_swap_them_between_users() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sandbox.db");
    let first = seed(json!({"users": [
        {"id": 1, "tokens": ["tok-a", "tok-b"], "campaigns": [{"id": 10}]},
        {"id": 2, "token": "tok-c", "campaigns": [{"id": 20}]}]}));
    start(on_file(&db, Some(first), Faults::default())).await.stop().await;
    let swapped = seed(json!({"users": [
        {"id": 1, "token": "tok-c"}, {"id": 2, "tokens": ["tok-a", "tok-d"]}]}));
    let h = start(on_file(&db, Some(swapped), Faults::default())).await;
    assert_eq!(ids(&h.get(Some("tok-c"), "/user/campaigns").await.body), [10]);
    for token in ["tok-a", "tok-d"] {
        assert_eq!(ids(&h.get(Some(token), "/user/campaigns").await.body), [20], "{token}");
    }
    let dropped = h.get(Some("tok-b"), "/user/campaigns").await;
    assert_eq!(dropped.status, StatusCode::UNAUTHORIZED, "a token the seed left out is gone");
    h.stop().await;
    let h = start(on_file(&db, None, Faults::default())).await;
    assert_eq!(ids(&h.get(Some("tok-d"), "/user/campaigns").await.body), [20], "kept on file");
    h.stop().await;
}

#[tokio::test]
async fn a_database_from_before_several_tokens_keeps_its_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sandbox.db");
    start(on_file(&db, None, Faults::default())).await.stop().await;
    // What an older sandbox left behind: one token per user, in `users.token` only.
    let old = rusqlite::Connection::open(&db).unwrap();
    old.execute_batch("DROP TABLE user_tokens").unwrap();
    drop(old);
    let h = start(on_file(&db, None, Faults::default())).await;
    assert_eq!(ids(&h.get(Some(DEMO_TOKEN), "/user/campaigns").await.body), [1, 2, 3, 4]);
    h.stop().await;
    let taken = seed(json!({"users": [{"id": 9, "tokens": ["fresh", DEMO_TOKEN]}]}));
    let error = Sandbox::start(on_file(&db, Some(taken), Faults::default()), localhost())
        .await
        .err()
        .unwrap();
    assert!(error.to_string().contains("token 2 of user 9 already belongs to user 1"), "{error}");
}

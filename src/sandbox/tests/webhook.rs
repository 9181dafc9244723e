//! Enabling the conversation-ended webhook: 200 and idempotent on the caller's live assistants,
//! the same 404 for foreign, deleted and missing ones, 422 for bad bodies.

use reqwest::StatusCode;
use serde_json::json;

use crate::sandbox::store::Store;
use crate::sandbox::{DEMO_TOKEN, OTHER_TOKEN};

#[tokio::test]
async fn webhook_is_enabled_only_on_the_callers_live_assistants() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sandbox.db");
    let h = super::start(super::on_file(&db, None, Default::default())).await;
    let path = "/user/assistants/enable-conversation-ended-webhook";
    let enable = |id: i64, url: &str| json!({"assistant_id": id, "webhook_url": url});
    let ok = h.post(Some(DEMO_TOKEN), path, enable(2, "https://hooks.test/one")).await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_eq!(
        ok.body,
        json!({"message": "Conversation ended webhook enabled successfully", "data": []})
    );
    let again = h.post(Some(DEMO_TOKEN), path, enable(2, "https://hooks.test/two")).await;
    assert_eq!(again.status, StatusCode::OK, "enabling again replaces the URL");
    // 50 is the other tenant's, 4 is soft-deleted, 999 does not exist: all the same 404.
    for id in [50, 4, 999] {
        let answer = h.post(Some(DEMO_TOKEN), path, enable(id, "https://hooks.test/x")).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "assistant {id}");
        assert_eq!(answer.body, json!({"message": "Assistant not found."}));
    }
    let foreign = h.post(Some(OTHER_TOKEN), path, enable(2, "https://hooks.test/x")).await;
    assert_eq!(foreign.status, StatusCode::NOT_FOUND);
    for body in [
        json!({}),
        enable(2, "ftp://hooks.test"),
        enable(2, "hooks.test/x"),
        json!({"assistant_id": "two", "webhook_url": "https://h.test"}),
    ] {
        let answer = h.post(Some(DEMO_TOKEN), path, body.clone()).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(answer.body["errors"].is_object());
    }
    h.stop().await;
    let (store, _closed) = Store::open(Some(db)).await.unwrap();
    assert_eq!(
        store.conversation_webhook(2).await.unwrap().as_deref(),
        Some("https://hooks.test/two")
    );
    assert_eq!(store.conversation_webhook(50).await.unwrap(), None);
}

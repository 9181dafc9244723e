//! Authentication, tenant isolation, the assistant and campaign lists, pagination and unknown
//! routes.

use reqwest::StatusCode;
use serde_json::json;

use super::{demo, ids, keys};
use crate::sandbox::{DEMO_TOKEN, OTHER_TOKEN};

const ROUTES: [(&str, &str); 6] = [
    ("GET", "/user/assistants/get"),
    ("GET", "/user/assistants/outbound"),
    ("POST", "/user/lead"),
    ("GET", "/user/leads"),
    ("GET", "/user/campaigns"),
    ("POST", "/user/assistants/enable-conversation-ended-webhook"),
];

/// The full assistant record, field by field as the spec's table lists it.
const ASSISTANT_FIELDS: [&str; 58] = [
    "id",
    "user_id",
    "phone_number_id",
    "engine_id",
    "synthesizer_id",
    "transcriber_id",
    "voice_id",
    "instance_id",
    "name",
    "variables",
    "post_call_evaluation",
    "fillers",
    "post_call_schema",
    "tools",
    "is_webhook_active",
    "webhook_url",
    "inbound_webhook_url",
    "language",
    "type",
    "status",
    "max_duration",
    "record",
    "initial_message",
    "system_prompt",
    "flows_platform_id",
    "timezone",
    "created_at",
    "updated_at",
    "deleted_at",
    "max_silence_duration",
    "reengagement_interval",
    "end_call_on_voicemail",
    "llm_temperature",
    "voice_stability",
    "voice_similarity",
    "allow_interruptions",
    "enable_noise_cancellation",
    "endpoint_sensitivity",
    "speech_speed",
    "endpoint_type",
    "wait_for_customer",
    "mode",
    "language_id",
    "transcriber_provider_id",
    "synthesizer_provider_id",
    "llm_model_id",
    "multimodal_model_id",
    "ambient_sound",
    "ambient_sound_volume",
    "uuid",
    "send_webhook_only_on_completed",
    "include_recording_in_webhook",
    "interrupt_sensitivity",
    "min_interrupt_words",
    "filler_config",
    "knowledgebase_id",
    "knowledgebase_mode",
    "widget_settings",
];

#[tokio::test]
async fn every_route_refuses_missing_or_unknown_tokens() {
    let h = demo().await;
    for (method, path) in ROUTES {
        for token in [None, Some("not-a-token")] {
            let request = match method {
                "GET" => h.http.get(h.url(path)),
                _ => h.http.post(h.url(path)).json(&json!({})),
            };
            let answer = h.send(token, request).await;
            assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{method} {path}");
            assert_eq!(answer.body, json!({"message": "Unauthenticated."}));
        }
    }
    let basic = h.http.get(h.url("/user/campaigns")).basic_auth("u", Some(DEMO_TOKEN));
    assert_eq!(h.send(None, basic).await.status, StatusCode::UNAUTHORIZED);
    h.stop().await;
}

#[tokio::test]
async fn lists_show_only_the_callers_records() {
    let h = demo().await;
    let campaigns = h.get(Some(DEMO_TOKEN), "/user/campaigns").await;
    assert_eq!(ids(&campaigns.body), [1, 2, 3, 4]);
    assert_eq!(campaigns.body[0]["name"], "Spring Outreach");
    assert_eq!(
        keys(&campaigns.body[0]),
        [
            "id",
            "name",
            "status",
            "max_calls_in_parallel",
            "mark_complete_when_no_leads",
            "allowed_hours_start_time",
            "allowed_hours_end_time",
            "allowed_days",
            "max_retries",
            "retry_interval",
            "created_at",
            "updated_at"
        ]
    );
    assert_eq!(ids(&h.get(Some(OTHER_TOKEN), "/user/campaigns").await.body), [50]);
    let outbound = h.get(Some(DEMO_TOKEN), "/user/assistants/outbound").await;
    assert_eq!(ids(&outbound.body), [2, 3], "inbound and soft-deleted ones are left out");
    assert_eq!(
        keys(&outbound.body[0]),
        [
            "id",
            "user_id",
            "name",
            "type",
            "mode",
            "status",
            "voice_id",
            "language_id",
            "timezone",
            "initial_message",
            "system_prompt",
            "variables",
            "webhook_url",
            "is_webhook_active",
            "created_at",
            "updated_at"
        ]
    );
    assert_eq!(ids(&h.get(Some(OTHER_TOKEN), "/user/assistants/outbound").await.body), [50]);
    let page = h.get(Some(OTHER_TOKEN), "/user/assistants/get").await;
    assert_eq!(ids(&page.body["data"]), [50]);
    h.stop().await;
}

#[tokio::test]
async fn assistant_pages_are_laravel_envelopes_of_full_records() {
    let h = demo().await;
    let page = h.get(Some(DEMO_TOKEN), "/user/assistants/get").await.body;
    let path = format!("http://{}/api/user/assistants/get", h.sandbox.addr);
    assert_eq!(
        keys(&page),
        [
            "current_page",
            "data",
            "first_page_url",
            "from",
            "last_page",
            "last_page_url",
            "links",
            "next_page_url",
            "path",
            "per_page",
            "prev_page_url",
            "to",
            "total"
        ]
    );
    assert_eq!(ids(&page["data"]), [1, 2, 3], "soft-deleted assistant 4 is never listed");
    assert_eq!(keys(&page["data"][0]), ASSISTANT_FIELDS);
    assert_eq!((page["per_page"].clone(), page["total"].clone()), (json!(10), json!(3)));
    assert_eq!(page["path"], path.as_str());
    assert_eq!(page["first_page_url"], format!("{path}?page=1"));
    let assistant = &page["data"][2];
    assert_eq!(assistant["llm_temperature"], "0.40", "decimal text comes back verbatim");
    assert!(assistant["deleted_at"].is_null());
    let created = assistant["created_at"].as_str().unwrap();
    assert!(crate::sandbox::time::is_record_timestamp(created), "{created}");
    h.stop().await;
}

#[tokio::test]
async fn pagination_edges() {
    let h = demo().await;
    let token = Some(DEMO_TOKEN);
    let path = format!("http://{}/api/user/assistants/get", h.sandbox.addr);
    let first = h.get(token, "/user/assistants/get?page=1&per_page=1").await.body;
    assert_eq!(
        (ids(&first["data"]), first["from"].clone(), first["to"].clone()),
        (vec![1], json!(1), json!(1))
    );
    assert_eq!(first["last_page"], 3);
    assert!(first["prev_page_url"].is_null());
    assert_eq!(first["next_page_url"], format!("{path}?page=2"));
    assert_eq!(
        first["links"],
        json!([
            {"url": null, "label": "&laquo; Previous", "active": false},
            {"url": format!("{path}?page=1"), "label": "1", "active": true},
            {"url": format!("{path}?page=2"), "label": "2", "active": false},
            {"url": format!("{path}?page=3"), "label": "3", "active": false},
            {"url": format!("{path}?page=2"), "label": "Next &raquo;", "active": false},
        ])
    );
    let last = h.get(token, "/user/assistants/get?page=3&per_page=1").await.body;
    assert_eq!(ids(&last["data"]), [3]);
    assert!(last["next_page_url"].is_null());
    assert_eq!(last["links"][4]["url"], json!(null));
    let past = h.get(token, "/user/assistants/get?page=9&per_page=1").await.body;
    assert_eq!(past["data"], json!([]));
    assert!(past["from"].is_null() && past["to"].is_null());
    assert_eq!((past["current_page"].clone(), past["total"].clone()), (json!(9), json!(3)));
    let all = h.get(token, "/user/assistants/get?per_page=100").await.body;
    assert_eq!((ids(&all["data"]).len(), all["last_page"].clone()), (3, json!(1)));
    for bad in ["per_page=0", "per_page=101", "per_page=abc", "page=0", "page=x"] {
        let answer = h.get(token, &format!("/user/assistants/get?{bad}")).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        let field = bad.split('=').next().unwrap();
        assert!(answer.body["errors"][field].is_array(), "{bad}: {}", answer.body);
        assert!(answer.body["message"].is_string());
    }
    h.stop().await;
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_json() {
    let h = demo().await;
    let missing = h.get(Some(DEMO_TOKEN), "/user/nothing-here").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.body["message"], "The route api/user/nothing-here could not be found.");
    let wrong = h.get(Some(DEMO_TOKEN), "/user/lead").await;
    assert_eq!(wrong.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(wrong.body["message"].as_str().unwrap().contains("GET method is not supported"));
    h.stop().await;
}

//! Creating and listing leads: the success shape, Laravel validation bodies, the duplicate rule,
//! isolation between tenants, and a large list.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{demo, ids, keys};
use crate::sandbox::{DEMO_TOKEN, OTHER_TOKEN};

const LEAD: &str = "/user/lead";

fn lead(phone: &str, campaign: i64) -> Value {
    json!({"phone_number": phone, "campaign_id": campaign})
}

#[tokio::test]
async fn created_lead_has_the_documented_shape() {
    let h = demo().await;
    let body = json!({
        "phone_number": "+15551230001", "campaign_id": 2,
        "variables": {"customer_name": "Ada", "email": "ada@example.com"},
        "secondary_contacts": [
            {"phone_number": "+15551230002", "variables": {"customer_name": "Bob"}},
            {"phone_number": "+15551230003"}
        ]
    });
    let answer = h.post(Some(DEMO_TOKEN), LEAD, body).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.body["message"], "Lead created successfully");
    let lead = &answer.body["data"];
    assert_eq!(
        keys(lead),
        [
            "id",
            "campaign_id",
            "phone_number",
            "variables",
            "status",
            "created_at",
            "updated_at",
            "campaign",
            "secondary_contacts"
        ]
    );
    assert_eq!(lead["campaign"], json!({"id": 2, "name": "Renewals"}));
    assert_eq!(keys(&lead["variables"]), ["customer_name", "email"], "key order is kept");
    assert_eq!(lead["status"], "created");
    let created = lead["created_at"].as_str().unwrap();
    assert!(
        chrono::NaiveDateTime::parse_from_str(created, "%Y-%m-%d %H:%M:%S").is_ok(),
        "{created}"
    );
    let contacts = &lead["secondary_contacts"];
    assert_eq!(
        keys(&contacts[0]),
        ["id", "phone_number", "variables", "status", "created_at", "updated_at"]
    );
    assert_eq!(contacts[1]["variables"], json!({}));
    assert_eq!(contacts[1]["status"], "created");
    let listed = h.get(Some(DEMO_TOKEN), "/user/leads").await.body;
    assert_eq!(listed, json!([lead]), "the list shows the lead exactly as created");
    h.stop().await;
}

#[tokio::test]
async fn invalid_leads_get_laravel_422_bodies() {
    let h = demo().await;
    let empty = h.post(Some(DEMO_TOKEN), LEAD, json!({})).await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        empty.body,
        json!({"message": "The phone number field is required. (and 1 more error)",
               "errors": {"phone_number": ["The phone number field is required."],
                          "campaign_id": ["The campaign id field is required."]}})
    );
    let messy = json!({
        "phone_number": "555-1234", "campaign_id": 999,
        "variables": {"email": 42}, "allow_dupplicate": "maybe",
        "secondary_contacts": [{"phone_number": "+15551230009"}, {"variables": {}}]
    });
    let answer = h.post(Some(DEMO_TOKEN), LEAD, messy).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        keys(&answer.body["errors"]),
        [
            "phone_number",
            "campaign_id",
            "variables.email",
            "allow_dupplicate",
            "secondary_contacts.1.phone_number"
        ]
    );
    assert_eq!(answer.body["errors"]["campaign_id"][0], "The selected campaign id is invalid.");
    assert_eq!(
        answer.body["message"],
        "The phone number field format is invalid. (and 4 more errors)"
    );
    let not_a_list = h.post(Some(DEMO_TOKEN), LEAD, json!({"phone_number": "+15551230001", "campaign_id": 1, "secondary_contacts": {"a": 1}})).await;
    assert!(not_a_list.body["errors"]["secondary_contacts"].is_array());
    assert_eq!(ids(&h.get(Some(DEMO_TOKEN), "/user/leads").await.body), Vec::<i64>::new());
    h.stop().await;
}

#[tokio::test]
async fn malformed_json_is_a_400_with_a_message() {
    let h = demo().await;
    let request = h
        .http
        .post(h.url(LEAD))
        .header("content-type", "application/json")
        .body("{\"phone_number\": ");
    let answer = h.send(Some(DEMO_TOKEN), request).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(
        answer.body["message"].as_str().unwrap().starts_with("The request body is not valid JSON")
    );
    h.stop().await;
}

#[tokio::test]
async fn duplicate_rule_is_per_campaign_and_waived_by_allow_dupplicate() {
    let h = demo().await;
    let token = Some(DEMO_TOKEN);
    assert_eq!(h.post(token, LEAD, lead("+15550000001", 1)).await.status, StatusCode::OK);
    let again = h.post(token, LEAD, lead("+15550000001", 1)).await;
    assert_eq!(again.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        again.body,
        json!({"message": "The phone number has already been taken.",
               "errors": {"phone_number": ["The phone number has already been taken."]}})
    );
    let explicit_false =
        json!({"phone_number": "+15550000001", "campaign_id": 1, "allow_dupplicate": false});
    assert_eq!(h.post(token, LEAD, explicit_false).await.status, StatusCode::UNPROCESSABLE_ENTITY);
    let allowed =
        json!({"phone_number": "+15550000001", "campaign_id": 1, "allow_dupplicate": true});
    assert_eq!(h.post(token, LEAD, allowed).await.status, StatusCode::OK);
    assert_eq!(
        h.post(token, LEAD, lead("+15550000001", 2)).await.status,
        StatusCode::OK,
        "other campaign"
    );
    // A secondary contact is not a main lead, so its number is free as a main lead.
    let with_contact = json!({"phone_number": "+15550000002", "campaign_id": 3,
                              "secondary_contacts": [{"phone_number": "+15550000003"}]});
    assert_eq!(h.post(token, LEAD, with_contact).await.status, StatusCode::OK);
    assert_eq!(h.post(token, LEAD, lead("+15550000003", 3)).await.status, StatusCode::OK);
    assert_eq!(h.get(token, "/user/leads").await.body.as_array().unwrap().len(), 5);
    h.stop().await;
}

#[tokio::test]
async fn tenants_cannot_reach_each_others_campaigns_or_leads() {
    let h = demo().await;
    let foreign = h.post(Some(OTHER_TOKEN), LEAD, lead("+15550000001", 1)).await;
    let missing = h.post(Some(OTHER_TOKEN), LEAD, lead("+15550000001", 999)).await;
    assert_eq!(foreign.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(foreign.body, missing.body, "a foreign campaign reads exactly like a missing one");
    assert_eq!(
        h.post(Some(OTHER_TOKEN), LEAD, lead("+15550000001", 50)).await.status,
        StatusCode::OK
    );
    assert_eq!(
        h.post(Some(DEMO_TOKEN), LEAD, lead("+15550000001", 1)).await.status,
        StatusCode::OK
    );
    let mine = h.get(Some(DEMO_TOKEN), "/user/leads").await.body;
    let theirs = h.get(Some(OTHER_TOKEN), "/user/leads").await.body;
    assert_eq!((mine.as_array().unwrap().len(), mine[0]["campaign_id"].clone()), (1, json!(1)));
    assert_eq!(
        (theirs.as_array().unwrap().len(), theirs[0]["campaign_id"].clone()),
        (1, json!(50))
    );
    h.stop().await;
}

/// Many leads, each with its own contacts: the list groups contacts under the right lead and
/// keeps id order. Requests run concurrently, as the importer sends them.
#[tokio::test]
async fn concurrent_creates_list_in_order_with_their_contacts() {
    let h = demo().await;
    let mut creates = tokio::task::JoinSet::new();
    for i in 0..300 {
        let contacts: Vec<Value> =
            (0..i % 3).map(|j| json!({"phone_number": format!("+1666{i:04}{j:03}")})).collect();
        let body = json!({"phone_number": format!("+1555{i:07}"), "campaign_id": 1 + i % 3,
                          "secondary_contacts": contacts});
        let request = h.http.post(h.url(LEAD)).bearer_auth(DEMO_TOKEN).json(&body);
        creates.spawn(async move { request.send().await.unwrap().status() });
    }
    while let Some(status) = creates.join_next().await {
        assert_eq!(status.unwrap(), StatusCode::OK);
    }
    let listed = h.get(Some(DEMO_TOKEN), "/user/leads").await.body;
    let leads = listed.as_array().unwrap();
    assert_eq!(leads.len(), 300);
    assert!(ids(&listed).windows(2).all(|w| w[0] < w[1]));
    for lead in leads {
        let i: usize = lead["phone_number"].as_str().unwrap()[5..].parse().unwrap();
        let contacts = lead["secondary_contacts"].as_array().unwrap();
        assert_eq!(contacts.len(), i % 3);
        let prefix = format!("+1666{i:04}");
        assert!(contacts.iter().all(|c| c["phone_number"].as_str().unwrap().starts_with(&prefix)));
    }
    h.stop().await;
}

#[tokio::test]
async fn oversized_bodies_are_refused_with_json() {
    let h = demo().await;
    let huge = format!("{{\"phone_number\": \"{}\"}}", "9".repeat(3 << 20));
    let request = h.http.post(h.url(LEAD)).header("content-type", "application/json").body(huge);
    let answer = h.send(Some(DEMO_TOKEN), request).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(answer.body["message"].is_string());
    h.stop().await;
}

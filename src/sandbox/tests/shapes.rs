//! The three shapes of the campaign, lead and outbound-assistant lists, over real HTTP: bare
//! arrays, objects wrapping them under the resource's name, and Laravel pages walked by `page`
//! and `per_page`; the paginated assistant list keeps its envelope whatever the shape.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{Harness, ids, start};
use crate::sandbox::{ListShape, SandboxConfig, Seed};

const TOKEN: &str = "shape-token";

/// One user with 20 campaigns (ids 1–20) and 17 assistants: ids 101–117, the odd ones outbound.
fn seed() -> Seed {
    let campaigns: Vec<Value> = (1..=20).map(|id| json!({"id": id})).collect();
    let assistants: Vec<Value> = (101..=117)
        .map(|id| json!({"id": id, "type": if id % 2 == 1 { "outbound" } else { "inbound" }}))
        .collect();
    let users = json!({"users": [{"id": 1, "token": TOKEN, "campaigns": campaigns,
        "assistants": assistants}, {"id": 2, "token": "other", "campaigns": [{"id": 99}]}]});
    Seed::from_json("shapes".into(), users).unwrap()
}

async fn shaped(list_shape: ListShape) -> Harness {
    start(SandboxConfig { seed: Some(seed()), list_shape, ..SandboxConfig::default() }).await
}

/// Creates `count` leads in campaign 1, each with `contacts` secondary contacts; their ids.
async fn leads(h: &Harness, count: usize, contacts: usize) -> Vec<i64> {
    let mut created = Vec::new();
    for i in 0..count {
        let extra: Vec<Value> = (0..contacts)
            .map(|c| json!({"phone_number": format!("+1555100{i:02}{c:02}")}))
            .collect();
        let lead = json!({"phone_number": format!("+1555000{i:04}"), "campaign_id": 1,
            "secondary_contacts": extra});
        let answer = h.post(Some(TOKEN), "/user/lead", lead).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        created.push(answer.body["data"]["id"].as_i64().unwrap());
    }
    created
}

fn range(ids: std::ops::RangeInclusive<i64>) -> Vec<i64> {
    ids.collect()
}

#[tokio::test]
async fn wrapped_lists_sit_under_the_resource_name() {
    let h = shaped(ListShape::Wrapped).await;
    let created = leads(&h, 3, 1).await;
    let campaigns = h.get(Some(TOKEN), "/user/campaigns?page=2").await.body;
    assert_eq!(super::keys(&campaigns), ["campaigns"]);
    assert_eq!(ids(&campaigns["campaigns"]), range(1..=20), "no paging: `page` is ignored");
    let listed = h.get(Some(TOKEN), "/user/leads").await.body;
    assert_eq!(super::keys(&listed), ["leads"]);
    assert_eq!(ids(&listed["leads"]), created);
    assert_eq!(listed["leads"][2]["secondary_contacts"].as_array().unwrap().len(), 1);
    let outbound = h.get(Some(TOKEN), "/user/assistants/outbound").await.body;
    assert_eq!(ids(&outbound["assistants"]), [101, 103, 105, 107, 109, 111, 113, 115, 117]);
    let other = h.get(Some("other"), "/user/campaigns").await.body;
    assert_eq!(ids(&other["campaigns"]), [99]);
    h.stop().await;
}

#[tokio::test]
async fn paged_lists_are_laravel_pages_of_fifteen() {
    let h = shaped(ListShape::Paged).await;
    let first = h.get(Some(TOKEN), "/user/campaigns").await.body;
    assert_eq!(ids(&first["data"]), range(1..=15));
    assert_eq!((first["current_page"].clone(), first["last_page"].clone()), (json!(1), json!(2)));
    assert_eq!((first["per_page"].clone(), first["total"].clone()), (json!(15), json!(20)));
    let next = first["next_page_url"].as_str().unwrap();
    assert!(next.starts_with(&h.sandbox.base_url) && next.ends_with("/user/campaigns?page=2"));
    let second = h.get(Some(TOKEN), "/user/campaigns?page=2").await.body;
    assert_eq!(ids(&second["data"]), range(16..=20));
    assert_eq!((second["from"].clone(), second["to"].clone()), (json!(16), json!(20)));
    assert!(second["next_page_url"].is_null());
    let small = h.get(Some(TOKEN), "/user/campaigns?per_page=7&page=3").await.body;
    assert_eq!((ids(&small["data"]), small["last_page"].clone()), (range(15..=20), json!(3)));
    let past = h.get(Some(TOKEN), "/user/campaigns?page=9").await.body;
    assert!(ids(&past["data"]).is_empty() && past["total"] == 20);
    let outbound = h.get(Some(TOKEN), "/user/assistants/outbound?per_page=4&page=3").await.body;
    assert_eq!((ids(&outbound["data"]), outbound["total"].clone()), (vec![117], json!(9)));
    for bad in ["page=0", "per_page=101", "page=x"] {
        let answer = h.get(Some(TOKEN), &format!("/user/leads?{bad}")).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    }
    h.stop().await;
}

#[tokio::test]
async fn paged_leads_carry_their_own_secondary_contacts() {
    let h = shaped(ListShape::Paged).await;
    let created = leads(&h, 17, 2).await;
    let first = h.get(Some(TOKEN), "/user/leads").await.body;
    let second = h.get(Some(TOKEN), "/user/leads?page=2").await.body;
    assert_eq!(ids(&first["data"]), created[..15]);
    assert_eq!(ids(&second["data"]), created[15..]);
    assert_eq!(second["total"], 17);
    for lead in first["data"].as_array().unwrap().iter().chain(second["data"].as_array().unwrap()) {
        let contacts = lead["secondary_contacts"].as_array().unwrap();
        let own = contacts.iter().all(|c| {
            let phone = c["phone_number"].as_str().unwrap();
            let main = lead["phone_number"].as_str().unwrap();
            phone[8..10] == main[10..12]
        });
        assert!(contacts.len() == 2 && own, "lead {}: {contacts:?}", lead["id"]);
    }
    let other = h.get(Some("other"), "/user/leads").await.body;
    assert_eq!((other["total"].clone(), ids(&other["data"])), (json!(0), vec![]));
    h.stop().await;
}

#[tokio::test]
async fn the_assistant_list_keeps_its_envelope_whatever_the_shape() {
    for shape in [ListShape::Bare, ListShape::Wrapped, ListShape::Paged] {
        let h = shaped(shape).await;
        let page = h.get(Some(TOKEN), "/user/assistants/get").await.body;
        assert_eq!(ids(&page["data"]), range(101..=110), "{shape:?}");
        assert_eq!((page["per_page"].clone(), page["total"].clone()), (json!(10), json!(17)));
        h.stop().await;
    }
}

//! The library client against the sandbox over real HTTP: every operation, every error path,
//! and every list in each of the shapes the service's docs show (bare, wrapped, paged).

use std::path::Path;
use std::time::{Duration, Instant};

use leadsync::client::{
    Assistant, Campaign, Client, ClientConfig, ClientError, Lead, NewContact, NewLead,
    OutboundAssistant, Page, Token,
};
use leadsync::sandbox::{Faults, ListShape, Sandbox, SandboxConfig, Seed};
use serde_json::{Value, json};

use crate::support::{ALICE, BOB, TestSandbox};

fn lead(phone: &str, campaign: u64) -> NewLead {
    NewLead {
        phone_number: phone.to_string(),
        campaign_id: campaign,
        variables: [
            ("customer_name".to_string(), "Zoë Ünal 🚀".to_string()),
            ("email".to_string(), "z@example.com".to_string()),
        ]
        .into_iter()
        .collect(),
        allow_dupplicate: false,
        secondary_contacts: vec![NewContact {
            phone_number: "+4930123456".to_string(),
            variables: [("customer_name".to_string(), "Assistant".to_string())]
                .into_iter()
                .collect(),
        }],
    }
}

/// Decoding then re-encoding a record gives back exactly what the service sent.
fn assert_round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(raw: &Value) {
    let typed: T = serde_json::from_value(raw.clone()).unwrap();
    assert_eq!(&serde_json::to_value(&typed).unwrap(), raw, "re-encoded record differs");
}

#[test]
fn campaigns_decode_every_field_and_round_trip() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let raw = sb.block_on(client.list_campaigns_raw()).unwrap();
    assert_eq!(raw.len(), 4);
    for record in &raw {
        assert_round_trip::<Campaign>(record);
    }
    let campaigns = sb.block_on(client.list_campaigns()).unwrap();
    let spring = campaigns.iter().find(|c| c.id == 10).unwrap();
    assert_eq!(spring.name, "Spring Outreach");
    assert_eq!(spring.max_calls_in_parallel, 3);
    assert_eq!(spring.status, "draft");
    assert!(
        spring.allowed_hours_start_time.len() == 8
            && spring.allowed_days.iter().all(|d| d.ends_with("day"))
    );
    // YYYY-MM-DDTHH:MM:SS.ffffffZ
    assert_eq!(spring.created_at.0.len(), 27, "{}", spring.created_at.0);
    assert!(spring.created_at.0.ends_with('Z') && spring.created_at.0.as_bytes()[19] == b'.');
}

#[test]
fn assistants_pages_walk_every_edge() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let first: Page<Assistant> = sb.block_on(client.list_assistants(1, 1)).unwrap();
    assert_eq!((first.current_page, first.per_page, first.total, first.last_page), (1, 1, 2, 2));
    assert_eq!((first.from, first.to), (Some(1), Some(1)));
    assert!(first.prev_page_url.is_none() && first.next_page_url.is_some());
    assert!(
        first.links.first().unwrap().label.contains("Previous")
            && first.links.last().unwrap().label.contains("Next")
    );
    assert!(first.links.iter().any(|l| l.label == "1" && l.active));
    let last = sb.block_on(client.list_assistants(2, 1)).unwrap();
    assert_eq!(last.data.len(), 1);
    assert!(last.next_page_url.is_none() && last.prev_page_url.is_some());
    let past = sb.block_on(client.list_assistants(3, 1)).unwrap();
    assert!(past.data.is_empty());
    assert_eq!((past.from, past.to), (None, None));
    let all = sb.block_on(client.list_assistants(1, 100)).unwrap();
    assert_eq!(all.data.len(), 2, "the soft-deleted assistant is not listed");
    assert!(all.data.iter().all(|a| a.deleted_at.is_none()));
    for bad in [0, 101] {
        let err = sb.block_on(client.list_assistants(1, bad)).unwrap_err();
        assert!(matches!(err, ClientError::Validation { .. }), "per_page {bad}: {err:?}");
    }
    let walked = sb.block_on(client.all_assistants()).unwrap();
    assert_eq!(walked.iter().map(|a| a.id).collect::<Vec<_>>(), [100, 101]);
    let mut pages = client.assistant_pages(1);
    let mut count = 0;
    while let Some(page) = sb.block_on(pages.next_page()) {
        assert_eq!(page.unwrap().data.len(), 1);
        count += 1;
    }
    assert_eq!(count, 2);
}

#[test]
fn full_and_summary_assistants_round_trip() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let page = sb.block_on(client.list_assistants_raw(1, 10)).unwrap();
    assert_round_trip::<Page<Assistant>>(&page);
    let outbound_raw = sb.block_on(client.outbound_assistants_raw()).unwrap();
    assert_eq!(outbound_raw.len(), 1, "only non-deleted outbound assistants");
    for record in &outbound_raw {
        assert_round_trip::<OutboundAssistant>(record);
        assert_eq!(record["type"], "outbound");
        assert!(
            record.get("system_prompt").is_some() && record.get("tools").is_none(),
            "summary fields only"
        );
    }
    let full = sb.block_on(client.all_assistants()).unwrap();
    let outbound = full.iter().find(|a| a.id == 101).unwrap();
    assert_eq!(outbound.llm_temperature.0, "0.70", "decimal text kept exactly");
    assert_eq!(outbound.kind, "outbound");
}

#[test]
fn leads_are_created_listed_and_round_trip() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let created = sb.block_on(client.create_lead(&lead("+4915112345678", 10))).unwrap();
    assert!(!created.message.is_empty());
    let data = created.data.unwrap();
    assert_eq!(
        (data.phone_number.as_str(), data.campaign_id, data.status.as_str()),
        ("+4915112345678", 10, "created")
    );
    assert_eq!(data.campaign.name, "Spring Outreach");
    assert_eq!(data.variables["customer_name"], "Zoë Ünal 🚀");
    assert_eq!(data.secondary_contacts.len(), 1);
    assert_eq!(data.secondary_contacts[0].status, "created");
    assert!(data.secondary_contacts[0].id > 0);
    // YYYY-MM-DD HH:MM:SS
    assert_eq!(data.created_at.0.len(), 19);
    assert_eq!(data.created_at.0.as_bytes()[10], b' ');
    let raw = sb.block_on(client.list_leads_raw()).unwrap();
    assert_eq!(raw.len(), 1);
    assert_round_trip::<Lead>(&raw[0]);
    let leads = sb.block_on(client.list_leads()).unwrap();
    assert_eq!(leads[0], data);
}

#[test]
fn duplicates_are_refused_unless_allowed() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    sb.block_on(client.create_lead(&lead("+33612345678", 10))).unwrap();
    let err = sb.block_on(client.create_lead(&lead("+33612345678", 10))).unwrap_err();
    assert!(err.is_duplicate(), "{err:?}");
    assert!(!err.is_retryable());
    // Another campaign is no duplicate.
    sb.block_on(client.create_lead(&lead("+33612345678", 11))).unwrap();
    let mut again = lead("+33612345678", 10);
    again.allow_dupplicate = true;
    sb.block_on(client.create_lead(&again)).unwrap();
    let leads = sb.block_on(client.list_leads()).unwrap();
    assert_eq!(leads.iter().filter(|l| l.campaign_id == 10).count(), 2);
}

#[test]
fn invalid_leads_get_per_field_messages() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let mut bad = lead("0151 123", 10);
    bad.secondary_contacts[0].phone_number = "nope".into();
    let err = sb.block_on(client.create_lead(&bad)).unwrap_err();
    let ClientError::Validation { fields, .. } = &err else { panic!("{err:?}") };
    let names: Vec<&str> = fields.iter().map(|f| f.field.as_str()).collect();
    assert!(names.contains(&"phone_number"), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("secondary_contacts.0")), "{names:?}");
    let err = sb.block_on(client.create_lead(&lead("+4915112345678", 999))).unwrap_err();
    assert!(
        matches!(&err, ClientError::Validation { fields, .. } if fields.iter().any(|f| f.field == "campaign_id")),
        "{err:?}"
    );
}

#[test]
fn tenants_never_see_each_other() {
    let sb = TestSandbox::start();
    let (alice, bob) = (sb.client(ALICE), sb.client(BOB));
    sb.block_on(alice.create_lead(&lead("+4915112345678", 10))).unwrap();
    sb.block_on(bob.create_lead(&lead("+4915112345679", 20))).unwrap();
    let bob_campaigns: Vec<u64> =
        sb.block_on(bob.list_campaigns()).unwrap().iter().map(|c| c.id).collect();
    assert_eq!(bob_campaigns, [20]);
    let bob_leads = sb.block_on(bob.list_leads()).unwrap();
    assert_eq!(bob_leads.len(), 1);
    assert_eq!(bob_leads[0].phone_number, "+4915112345679");
    let bob_assistants: Vec<u64> =
        sb.block_on(bob.all_assistants()).unwrap().iter().map(|a| a.id).collect();
    assert_eq!(bob_assistants, [200]);
    // Writing into the other tenant's campaign or assistant looks exactly like a missing one.
    let err = sb.block_on(alice.create_lead(&lead("+4915112345670", 20))).unwrap_err();
    assert!(matches!(err, ClientError::Validation { .. }), "{err:?}");
    let err = sb.block_on(bob.create_lead(&lead("+4915112345670", 10))).unwrap_err();
    assert!(matches!(err, ClientError::Validation { .. }), "{err:?}");
    let err = sb
        .block_on(alice.enable_conversation_ended_webhook(200, "https://hooks.example.com/x"))
        .unwrap_err();
    assert!(matches!(err, ClientError::NotFound { .. }), "{err:?}");
    let err = sb
        .block_on(bob.enable_conversation_ended_webhook(101, "https://hooks.example.com/x"))
        .unwrap_err();
    assert!(matches!(err, ClientError::NotFound { .. }), "{err:?}");
    assert_eq!(sb.block_on(alice.list_leads()).unwrap().len(), 1);
}

#[test]
fn webhook_enable_answers_200_404_422() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let message = sb
        .block_on(client.enable_conversation_ended_webhook(101, "https://hooks.example.com/ended"))
        .unwrap();
    assert!(message.to_lowercase().contains("webhook"), "{message}");
    // Enabling again is fine.
    sb.block_on(client.enable_conversation_ended_webhook(101, "https://hooks.example.com/ended2"))
        .unwrap();
    let err = sb
        .block_on(client.enable_conversation_ended_webhook(9999, "https://hooks.example.com/x"))
        .unwrap_err();
    assert!(matches!(err, ClientError::NotFound { .. }), "{err:?}");
    let err = sb
        .block_on(client.enable_conversation_ended_webhook(102, "https://hooks.example.com/x"))
        .unwrap_err();
    assert!(matches!(err, ClientError::NotFound { .. }), "a deleted assistant: {err:?}");
    let err = sb.block_on(client.enable_conversation_ended_webhook(101, "not a url")).unwrap_err();
    assert!(
        matches!(&err, ClientError::Validation { fields, .. } if fields.iter().any(|f| f.field == "webhook_url")),
        "{err:?}"
    );
}

#[test]
fn a_missing_or_wrong_token_is_401() {
    let sb = TestSandbox::start();
    let err = sb.block_on(sb.client("wrong-token").list_campaigns()).unwrap_err();
    assert!(matches!(err, ClientError::Unauthorized { status: 401, .. }), "{err:?}");
    assert!(!err.to_string().contains("wrong-token"), "the token must not appear in errors: {err}");
    let response = sb
        .block_on(reqwest::Client::new().get(format!("{}/user/campaigns", sb.base_url)).send())
        .unwrap();
    assert_eq!(response.status(), 401);
    let body: Value = sb.block_on(response.json()).unwrap();
    assert!(body["message"].is_string());
}

#[test]
fn server_errors_are_typed_and_retryable() {
    let sb =
        TestSandbox::with_faults(Faults { fail_rate: 1.0, seed: Some(1), ..Faults::default() });
    let err = sb.block_on(sb.client(ALICE).create_lead(&lead("+4915112345678", 10))).unwrap_err();
    assert!(matches!(err, ClientError::Server { status: 500 | 503, .. }), "{err:?}");
    assert!(err.is_retryable() && !err.maybe_applied());
}

#[test]
fn a_dropped_connection_after_the_write_is_interrupted_and_the_lead_exists() {
    let keep = tempfile::tempdir().unwrap();
    let db = keep.path().join("sandbox.db");
    let sb = TestSandbox::on_db(&db, Faults { drop_rate: 1.0, seed: Some(1), ..Faults::default() });
    let err = sb.block_on(sb.client(ALICE).create_lead(&lead("+4915112345678", 10))).unwrap_err();
    assert!(matches!(err, ClientError::Interrupted { .. }), "{err:?}");
    assert!(err.is_retryable() && err.maybe_applied());
    drop(sb);
    // The same database file behind a well-behaved sandbox shows the lead was written.
    let healthy = TestSandbox::on_db(&db, Faults::default());
    let leads = healthy.block_on(healthy.client(ALICE).list_leads()).unwrap();
    assert_eq!(leads.len(), 1);
}

#[test]
fn rate_limits_say_how_long_to_wait() {
    let sb = TestSandbox::with_faults(Faults {
        rate_limit: Some(1),
        seed: Some(1),
        ..Faults::default()
    });
    let client = sb.client(ALICE);
    // Writes are not retried by the client, so the 429 shows; reads wait and retry by themselves.
    let results: Vec<_> = (0..5)
        .map(|i| sb.block_on(client.create_lead(&lead(&format!("+491511234567{i}"), 10))))
        .collect();
    let limited = results.iter().find_map(|r| r.as_ref().err()).expect("some request is limited");
    assert!(matches!(limited, ClientError::RateLimited { .. }), "{limited:?}");
    let wait = limited.retry_after().expect("a wait");
    assert!(wait > Duration::ZERO && wait <= Duration::from_secs(60), "{wait:?}");
    assert_eq!(
        sb.block_on(client.list_campaigns()).unwrap().len(),
        4,
        "a read waits out the limit"
    );
}

#[test]
fn latency_and_timeouts() {
    let sb = TestSandbox::with_faults(Faults {
        latency: Duration::from_millis(300),
        ..Faults::default()
    });
    let started = Instant::now();
    sb.block_on(sb.client(ALICE).list_campaigns()).unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));
    let impatient = Client::new(
        ClientConfig::new(
            &sb.base_url,
            Token::new(ALICE).unwrap(),
            Duration::from_millis(100),
            false,
        )
        .unwrap(),
    )
    .unwrap();
    let err = sb.block_on(impatient.list_campaigns()).unwrap_err();
    assert!(matches!(err, ClientError::Timeout { .. }), "{err:?}");
}

#[test]
fn an_unreachable_service_is_a_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let config = ClientConfig::new(
        &format!("http://127.0.0.1:{port}/api"),
        Token::new("t").unwrap(),
        Duration::from_secs(2),
        false,
    )
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let err = runtime.block_on(Client::new(config).unwrap().list_campaigns()).unwrap_err();
    assert!(matches!(err, ClientError::Connect { .. }), "{err:?}");
    assert!(err.is_retryable() && !err.maybe_applied());
}

// --- Lists in every shape -------------------------------------------------------------------

const SHAPE_TOKEN: &str = "shape-alice";
const SHAPE_OTHER: &str = "shape-bob";
/// Alice's campaigns: 32, so three pages of the sandbox's 15.
const CAMPAIGNS: std::ops::RangeInclusive<u64> = 1000..=1031;
/// Alice's leads to create: three pages.
const LEADS: usize = 38;

/// Alice with 32 campaigns and 44 assistants (ids 2000–2043: even ones outbound, 2040 of those
/// soft-deleted, odd ones inbound), so 21 outbound assistants listed; Bob with one of each.
fn shape_seed() -> Seed {
    let campaigns: Vec<Value> =
        CAMPAIGNS.map(|id| json!({"id": id, "name": format!("C{id}")})).collect();
    let assistants: Vec<Value> = (2000..2044)
        .map(|id| {
            let kind = if id % 2 == 0 { "outbound" } else { "inbound" };
            let deleted = (id == 2040).then_some("2026-01-01T00:00:00.000000Z");
            json!({"id": id, "type": kind, "deleted_at": deleted})
        })
        .collect();
    let users = json!({"users": [
        {"id": 1, "token": SHAPE_TOKEN, "campaigns": campaigns, "assistants": assistants},
        {"id": 2, "token": SHAPE_OTHER, "campaigns": [{"id": 3000}],
         "assistants": [{"id": 3001, "type": "outbound"}]}]});
    Seed::from_json("list shapes".into(), users).unwrap()
}

fn outbound_ids() -> Vec<u64> {
    (2000..2044).filter(|id| id % 2 == 0 && *id != 2040).collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// A sandbox answering lists in `shape`, in process on an ephemeral loopback port.
async fn shaped(shape: ListShape, db: &Path, faults: Faults) -> Sandbox {
    let config = SandboxConfig {
        db: Some(db.to_path_buf()),
        seed: Some(shape_seed()),
        faults,
        list_shape: shape,
        ..SandboxConfig::default()
    };
    Sandbox::start(config, ([127, 0, 0, 1], 0).into()).await.unwrap()
}

fn client_of(sandbox: &Sandbox, token: &str) -> Client {
    let timeout = Duration::from_secs(10);
    let config = ClientConfig::new(&sandbox.base_url, Token::new(token).unwrap(), timeout, false);
    Client::new(config.unwrap()).unwrap()
}

/// Creates Alice's leads in the campaigns in turn, every third with two secondary contacts;
/// what was created, in order.
async fn create_leads(client: &Client) -> Vec<Lead> {
    let mut created = Vec::new();
    for i in 0..LEADS {
        let campaign = *CAMPAIGNS.start() + (i as u64 % 3);
        let mut new = lead(&format!("+49151{i:08}"), campaign);
        let contacts = if i % 3 == 0 { 2 } else { 0 };
        new.secondary_contacts = (0..contacts)
            .map(|c| NewContact {
                phone_number: format!("+49160{i:06}{c:02}"),
                ..NewContact::default()
            })
            .collect();
        created.push(client.create_lead(&new).await.unwrap().data.unwrap());
    }
    created
}

/// Every list read through the client equals what was seeded or created, for both tenants.
async fn check_every_list(sandbox: &Sandbox, created: &[Lead]) {
    let (alice, bob) = (client_of(sandbox, SHAPE_TOKEN), client_of(sandbox, SHAPE_OTHER));
    let campaigns: Vec<u64> = alice.list_campaigns().await.unwrap().iter().map(|c| c.id).collect();
    assert_eq!(campaigns, CAMPAIGNS.collect::<Vec<_>>());
    assert_eq!(alice.list_campaigns_raw().await.unwrap().len(), CAMPAIGNS.count());
    let outbound = alice.outbound_assistants().await.unwrap();
    assert_eq!(outbound.iter().map(|a| a.id).collect::<Vec<_>>(), outbound_ids());
    assert!(outbound.iter().all(|a| a.kind == "outbound"));
    assert_eq!(alice.outbound_assistants_raw().await.unwrap().len(), outbound_ids().len());
    let leads = alice.list_leads().await.unwrap();
    assert_eq!(leads, created, "every lead once, in order, with its own secondary contacts");
    assert_eq!(alice.list_leads_raw().await.unwrap().len(), created.len());
    let bob_campaigns: Vec<u64> =
        bob.list_campaigns().await.unwrap().iter().map(|c| c.id).collect();
    assert_eq!(bob_campaigns, [3000]);
    let bob_outbound: Vec<u64> =
        bob.outbound_assistants().await.unwrap().iter().map(|a| a.id).collect();
    assert_eq!(bob_outbound, [3001]);
    assert!(bob.list_leads().await.unwrap().is_empty());
}

/// What the sandbox itself answers for the lead list, read without the client.
async fn raw_leads_answer(sandbox: &Sandbox) -> Value {
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let url = format!("{}/user/leads", sandbox.base_url);
    let response = http.get(url).bearer_auth(SHAPE_TOKEN).send().await.unwrap();
    response.json().await.unwrap()
}

/// Creates the leads, checks the sandbox really answers in `shape`, and reads every list.
fn lists_are_read_whole(shape: ListShape, looks_right: fn(&Value) -> bool) {
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let sandbox = shaped(shape, &dir.path().join("sandbox.db"), Faults::default()).await;
        let created = create_leads(&client_of(&sandbox, SHAPE_TOKEN)).await;
        let answer = raw_leads_answer(&sandbox).await;
        let start: String = answer.to_string().chars().take(200).collect();
        assert!(looks_right(&answer), "{shape:?} answers the lead list as: {start}");
        check_every_list(&sandbox, &created).await;
        sandbox.shutdown().await;
    });
}

#[test]
fn lists_are_read_whole_when_bare() {
    lists_are_read_whole(ListShape::Bare, |answer| {
        answer.as_array().is_some_and(|a| a.len() == LEADS)
    });
}

#[test]
fn lists_are_read_whole_when_wrapped() {
    lists_are_read_whole(ListShape::Wrapped, |answer| {
        answer["leads"].as_array().is_some_and(|a| a.len() == LEADS)
    });
}

#[test]
fn lists_are_read_whole_across_pages() {
    // More than one page of each list, or the walk is not tested.
    lists_are_read_whole(ListShape::Paged, |answer| {
        answer["data"].as_array().is_some_and(|a| a.len() == 15)
            && answer["last_page"] == 3
            && answer["total"] == LEADS
    });
    assert!(CAMPAIGNS.count() > 30 && outbound_ids().len() > 15);
}

#[test]
fn pages_retried_after_server_errors_are_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sandbox.db");
    runtime().block_on(async {
        let sandbox = shaped(ListShape::Paged, &db, Faults::default()).await;
        let created = create_leads(&client_of(&sandbox, SHAPE_TOKEN)).await;
        sandbox.shutdown().await;
        // Reads fail now and then; the client retries a page, and must not keep it twice.
        let faults = Faults { fail_rate: 0.3, seed: Some(11), ..Faults::default() };
        let sandbox = shaped(ListShape::Paged, &db, faults).await;
        check_every_list(&sandbox, &created).await;
        sandbox.shutdown().await;
    });
}

// --- Lenient records ------------------------------------------------------------------------

#[test]
fn campaigns_with_ids_and_numbers_as_text_decode() {
    let raw = json!({"id": "10", "name": 2024, "status": null, "max_calls_in_parallel": "3",
        "mark_complete_when_no_leads": "1", "max_retries": 2.0, "retry_interval": "60",
        "allowed_days": null, "created_at": null});
    let campaign: Campaign = serde_json::from_value(raw).unwrap();
    assert_eq!((campaign.id, campaign.name.as_str(), campaign.status.as_str()), (10, "2024", ""));
    assert_eq!(
        (campaign.max_calls_in_parallel, campaign.max_retries, campaign.retry_interval),
        (3, 2, 60)
    );
    assert!(campaign.mark_complete_when_no_leads && campaign.allowed_days.is_empty());
    let bad: Result<Campaign, _> = serde_json::from_value(json!({"id": "ten"}));
    assert!(bad.unwrap_err().to_string().contains("expected an id, got `ten`"));
}

#[test]
fn leads_with_ids_and_numbers_as_text_decode() {
    let raw = json!({"id": "5", "campaign_id": "10", "phone_number": 4915112345678u64,
        "variables": {"age": 30, "vip": true, "note": null}, "status": 1,
        "campaign": {"id": "10", "name": 7},
        "secondary_contacts": [{"id": "6", "phone_number": "+4930123456", "variables": []}]});
    let lead: Lead = serde_json::from_value(raw).unwrap();
    assert_eq!((lead.id, lead.campaign_id, lead.campaign.id), (5, 10, 10));
    assert_eq!((lead.phone_number.as_str(), lead.status.as_str()), ("4915112345678", "1"));
    assert_eq!(lead.campaign.name, "7");
    let variables: Vec<(&str, &str)> =
        lead.variables.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(variables, [("age", "30"), ("vip", "true"), ("note", "")]);
    assert_eq!(lead.secondary_contacts[0].id, 6);
    assert!(lead.secondary_contacts[0].variables.is_empty(), "PHP's empty object is []");
    let bare: Lead =
        serde_json::from_value(json!({"id": 5, "campaign": null, "secondary_contacts": null}))
            .unwrap();
    assert!(bare.secondary_contacts.is_empty() && bare.campaign.id == 0);
}

#[test]
fn outbound_assistants_with_ids_and_numbers_as_text_decode() {
    let raw = json!({"id": "2", "user_id": "1", "voice_id": "3", "language_id": null,
        "is_webhook_active": "1", "webhook_url": null, "variables": [], "type": "outbound",
        "initial_message": 42});
    let assistant: OutboundAssistant = serde_json::from_value(raw).unwrap();
    assert_eq!(
        (assistant.id, assistant.user_id, assistant.voice_id, assistant.language_id),
        (2, 1, 3, 0)
    );
    assert!(assistant.is_webhook_active && assistant.webhook_url.is_none());
    assert_eq!(assistant.initial_message, "42");
}

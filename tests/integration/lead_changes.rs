//! Updating and deleting a lead with the library client against the sandbox over real HTTP:
//! the merge of variables, validation, tenant isolation, both path forms and the client's
//! fallback between them, and writes in doubt under the sandbox's write faults.

use std::path::Path;

use leadsync::client::{Client, ClientError, Lead, LeadChange, LeadStatus, NewContact, NewLead};
use leadsync::sandbox::{Faults, LeadPaths, SandboxConfig};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{ALICE, BOB, TestSandbox};

/// A lead of Alice's campaign 10 with two variables and one secondary contact.
fn new_lead(phone: &str) -> NewLead {
    NewLead {
        phone_number: phone.to_string(),
        campaign_id: 10,
        variables: [("customer_name", "Zoë"), ("email", "z@example.com")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        allow_dupplicate: false,
        secondary_contacts: vec![NewContact {
            phone_number: "+4930123456".to_string(),
            ..NewContact::default()
        }],
    }
}

fn create(sb: &TestSandbox, client: &Client, phone: &str) -> Lead {
    sb.block_on(client.create_lead(&new_lead(phone))).unwrap().data.unwrap()
}

/// The lead `id` as the list shows it now: there is no read of a single lead.
fn listed(sb: &TestSandbox, client: &Client, id: u64) -> Option<Lead> {
    sb.block_on(client.list_leads()).unwrap().into_iter().find(|lead| lead.id == id)
}

fn variables(pairs: &[(&str, &str)]) -> leadsync::client::Variables {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A request the client would never send, straight to the sandbox.
fn raw(sb: &TestSandbox, method: reqwest::Method, path: &str, body: Value) -> (StatusCode, Value) {
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let url = format!("{}/{path}", sb.base_url);
    sb.block_on(async {
        let response = http.request(method, url).bearer_auth(ALICE).json(&body).send().await;
        let response = response.unwrap();
        (response.status(), response.json().await.unwrap())
    })
}

#[test]
fn update_merges_variables_and_leaves_the_rest() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let before = create(&sb, &client, "+4915112345678");
    let change = LeadChange {
        variables: variables(&[("email", "new@example.com"), ("plan", "gold")]),
        ..LeadChange::default()
    };
    let updated = sb.block_on(client.update_lead(before.id, &change)).unwrap();
    assert_eq!(updated.message, "Lead successfully updated");
    let after = listed(&sb, &client, before.id).unwrap();
    assert_eq!(
        after.variables,
        variables(&[("customer_name", "Zoë"), ("email", "new@example.com"), ("plan", "gold")])
    );
    assert_eq!(updated.lead.as_ref(), Some(&after), "the answer's lead is the listed one");
    assert_eq!(
        (&after.phone_number, after.campaign_id, &after.status),
        (&before.phone_number, before.campaign_id, &before.status)
    );
    assert_eq!(after.secondary_contacts, before.secondary_contacts);
}

#[test]
fn an_emptied_variable_is_an_empty_string() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let lead = create(&sb, &client, "+4915112345678");
    let change = LeadChange { variables: variables(&[("email", "")]), ..LeadChange::default() };
    sb.block_on(client.update_lead(lead.id, &change)).unwrap();
    let after = listed(&sb, &client, lead.id).unwrap();
    assert_eq!(after.variables, variables(&[("customer_name", "Zoë"), ("email", "")]));
}

#[test]
fn phone_campaign_and_status_changes_show_in_the_list() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let lead = create(&sb, &client, "+4915112345678");
    let change = LeadChange {
        campaign_id: Some(11),
        phone_number: Some("+4915199999999".into()),
        status: Some(LeadStatus::Completed),
        ..LeadChange::default()
    };
    sb.block_on(client.update_lead(lead.id, &change)).unwrap();
    let after = listed(&sb, &client, lead.id).unwrap();
    assert_eq!(after.phone_number, "+4915199999999", "stored in E.164");
    assert_eq!((after.campaign_id, after.campaign.name.as_str()), (11, "Renewals"));
    assert_eq!(after.status, "completed");
    let change =
        LeadChange { status: Some(LeadStatus::ReachedMaxRetries), ..LeadChange::default() };
    sb.block_on(client.update_lead(lead.id, &change)).unwrap();
    assert_eq!(listed(&sb, &client, lead.id).unwrap().status, "reached-max-retries");
}

#[test]
fn invalid_changes_are_422_and_change_nothing() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let lead = create(&sb, &client, "+4915112345678");
    // Bob's campaign 20 reads as missing, like one that does not exist.
    for campaign in [20, 999] {
        let change = LeadChange { campaign_id: Some(campaign), ..LeadChange::default() };
        let err = sb.block_on(client.update_lead(lead.id, &change)).unwrap_err();
        let ClientError::Validation { fields, .. } = &err else { panic!("{err:?}") };
        assert_eq!(fields[0].field, "campaign_id", "{err}");
        assert!(!err.is_retryable() && !err.maybe_applied());
    }
    let change = LeadChange { phone_number: Some("0151 123".into()), ..LeadChange::default() };
    let err = sb.block_on(client.update_lead(lead.id, &change)).unwrap_err();
    assert!(
        matches!(&err, ClientError::Validation { fields, .. } if fields[0].field == "phone_number")
    );
    // The client cannot send a status the service does not know; the sandbox refuses it.
    let (status, body) =
        raw(&sb, reqwest::Method::PUT, &format!("leads/{}", lead.id), json!({"status": "done"}));
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["errors"]["status"][0], "The selected status is invalid.");
    assert_eq!(listed(&sb, &client, lead.id).unwrap(), lead);
}

#[test]
fn another_accounts_lead_is_not_found_and_stays_as_it_was() {
    let sb = TestSandbox::start();
    let (alice, bob) = (sb.client(ALICE), sb.client(BOB));
    let lead = create(&sb, &alice, "+4915112345678");
    let change = LeadChange { status: Some(LeadStatus::Completed), ..LeadChange::default() };
    let err = sb.block_on(bob.update_lead(lead.id, &change)).unwrap_err();
    assert!(matches!(err, ClientError::LeadNotFound { id, .. } if id == lead.id), "{err:?}");
    let err = sb.block_on(bob.delete_lead(lead.id)).unwrap_err();
    assert!(matches!(err, ClientError::LeadNotFound { .. }), "{err:?}");
    assert!(!err.is_retryable() && !err.maybe_applied());
    assert_eq!(listed(&sb, &alice, lead.id).unwrap(), lead);
}

#[test]
fn delete_removes_the_lead_and_its_contacts_and_then_it_is_gone() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let gone = create(&sb, &client, "+4915112345678");
    let kept = create(&sb, &client, "+4915112345679");
    let deleted = sb.block_on(client.delete_lead(gone.id)).unwrap();
    assert_eq!(deleted.message, "Lead deleted successfully");
    let leads = sb.block_on(client.list_leads()).unwrap();
    assert_eq!(leads, std::slice::from_ref(&kept), "the lead and its secondary contact are gone");
    let contact = gone.secondary_contacts[0].id;
    assert!(leads.iter().flat_map(|l| &l.secondary_contacts).all(|c| c.id != contact));
    let err = sb.block_on(client.delete_lead(gone.id)).unwrap_err();
    assert!(matches!(err, ClientError::LeadNotFound { .. }), "{err:?}");
    let change = LeadChange { status: Some(LeadStatus::Completed), ..LeadChange::default() };
    let err = sb.block_on(client.update_lead(gone.id, &change)).unwrap_err();
    assert!(matches!(err, ClientError::LeadNotFound { .. }), "{err:?}");
    // A secondary contact is no lead of its own here.
    let err = sb.block_on(client.delete_lead(kept.secondary_contacts[0].id)).unwrap_err();
    assert!(matches!(err, ClientError::LeadNotFound { .. }), "{err:?}");
}

#[test]
fn the_sandbox_serves_both_path_forms() {
    let sb = TestSandbox::start();
    let client = sb.client(ALICE);
    let one = create(&sb, &client, "+4915112345678");
    let two = create(&sb, &client, "+4915112345679");
    for (path, status) in [("leads", "completed"), ("user/leads", "reached-max-retries")] {
        let (code, body) = raw(
            &sb,
            reqwest::Method::PUT,
            &format!("{path}/{}", one.id),
            json!({"status": status, "unknown": "ignored"}),
        );
        assert_eq!((code, &body["message"]), (StatusCode::OK, &json!("Lead successfully updated")));
        assert_eq!(listed(&sb, &client, one.id).unwrap().status, status);
    }
    for (path, lead) in [("user/leads", &one), ("leads", &two)] {
        let (code, body) =
            raw(&sb, reqwest::Method::DELETE, &format!("{path}/{}", lead.id), json!({}));
        assert_eq!((code, body), (StatusCode::OK, json!({"message": "Lead deleted successfully"})));
    }
    let (code, body) =
        raw(&sb, reqwest::Method::DELETE, &format!("user/leads/{}", one.id), json!({}));
    assert_eq!((code, body), (StatusCode::NOT_FOUND, json!({"message": "Lead not found"})));
    assert!(sb.block_on(client.list_leads()).unwrap().is_empty());
}

#[test]
fn the_client_falls_back_to_the_path_form_the_service_serves() {
    for paths in [LeadPaths::UserOnly, LeadPaths::BareOnly] {
        let sb = TestSandbox::with_config(SandboxConfig {
            lead_paths: paths,
            ..SandboxConfig::default()
        });
        let client = sb.client(ALICE);
        let lead = create(&sb, &client, "+4915112345678");
        let change = LeadChange { status: Some(LeadStatus::Completed), ..LeadChange::default() };
        for _ in 0..2 {
            sb.block_on(client.update_lead(lead.id, &change))
                .unwrap_or_else(|e| panic!("{paths:?}: {e}"));
        }
        assert_eq!(listed(&sb, &client, lead.id).unwrap().status, "completed");
        sb.block_on(client.delete_lead(lead.id)).unwrap_or_else(|e| panic!("{paths:?}: {e}"));
        let err = sb.block_on(client.delete_lead(lead.id)).unwrap_err();
        assert!(matches!(err, ClientError::LeadNotFound { .. }), "{paths:?}: {err:?}");
        assert!(sb.block_on(client.list_leads()).unwrap().is_empty());
    }
}

#[test]
fn a_write_fault_leaves_the_update_in_doubt_but_applied() {
    for faults in [
        Faults { commit_fail_rate: 1.0, ..Faults::default() },
        Faults { garble_rate: 1.0, ..Faults::default() },
    ] {
        let keep = tempfile::tempdir().unwrap();
        let (sb, lead) = faulty_with_a_lead(&keep.path().join("sandbox.db"), faults.clone());
        let client = sb.client(ALICE);
        let change =
            LeadChange { variables: variables(&[("plan", "gold")]), ..LeadChange::default() };
        let err = sb.block_on(client.update_lead(lead.id, &change)).unwrap_err();
        assert!(matches!(err, ClientError::WriteInDoubt { .. }), "{faults:?}: {err:?}");
        assert!(err.maybe_applied() && err.is_retryable());
        // The write faults spare reads, so the same sandbox shows the change was made.
        assert_eq!(listed(&sb, &client, lead.id).unwrap().variables["plan"], "gold");
        let err = sb.block_on(client.delete_lead(lead.id)).unwrap_err();
        assert!(matches!(err, ClientError::WriteInDoubt { .. }), "{faults:?}: {err:?}");
        assert!(listed(&sb, &client, lead.id).is_none(), "the delete was made");
    }
}

#[test]
fn a_dropped_answer_to_an_update_is_maybe_applied_and_the_change_is_made() {
    let keep = tempfile::tempdir().unwrap();
    let db = keep.path().join("sandbox.db");
    let (sb, lead) = faulty_with_a_lead(&db, Faults { drop_rate: 1.0, ..Faults::default() });
    let change = LeadChange { status: Some(LeadStatus::Completed), ..LeadChange::default() };
    let err = sb.block_on(sb.client(ALICE).update_lead(lead.id, &change)).unwrap_err();
    assert!(matches!(err, ClientError::Interrupted { .. }), "{err:?}");
    assert!(err.maybe_applied());
    drop(sb);
    // Drops strike reads too, so a healthy sandbox over the same file reads the list.
    let healthy = TestSandbox::on_db(&db, Faults::default());
    let client = healthy.client(ALICE);
    assert_eq!(listed(&healthy, &client, lead.id).unwrap().status, "completed");
}

/// A lead of Alice's made by a healthy sandbox over `db`, then a sandbox with `faults` over
/// the same file (a faulty one could not make it: the write faults strike creates too).
fn faulty_with_a_lead(db: &Path, faults: Faults) -> (TestSandbox, Lead) {
    let healthy = TestSandbox::on_db(db, Faults::default());
    let lead = create(&healthy, &healthy.client(ALICE), "+4915112345678");
    drop(healthy);
    (TestSandbox::on_db(db, faults), lead)
}

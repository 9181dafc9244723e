//! The built-in demo data, loaded when the sandbox starts without a seed on an empty database:
//! a demo tenant with four campaigns (one German) and assistants of every kind the spec lists (inbound,
//! outbound, soft-deleted), and a second tenant so isolation can be shown. The outbound
//! assistants' texts use placeholders (`{{customer_name}}`, and in German `{{firma}}`,
//! `{{ vertrag }}`, `{vertragsende}`), so `--assistant` can be tried with `--sandbox`.

use serde_json::json;

use super::DEMO_TOKEN;
use super::seed::Seed;

/// The second tenant's token: its campaign 50 and assistant 50 are invisible to the demo user.
pub const OTHER_TOKEN: &str = "sandbox-other-token";

pub(crate) fn seed() -> Seed {
    let demo = json!({"users": [
        {"id": 1, "token": DEMO_TOKEN, "campaigns": demo_campaigns(), "assistants": demo_assistants()},
        {"id": 2, "token": OTHER_TOKEN,
         "campaigns": [{"id": 50, "name": "Other Tenant Campaign"}],
         "assistants": [{"id": 50, "name": "Other Tenant Assistant", "type": "outbound"}]}
    ]});
    Seed::from_json("built-in demo data".into(), demo).expect("the demo seed is valid")
}

fn demo_campaigns() -> serde_json::Value {
    json!([
        {"id": 1, "name": "Spring Outreach", "max_calls_in_parallel": 5},
        {"id": 2, "name": "Renewals", "max_retries": 5, "retry_interval": 7200,
         "allowed_days": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]},
        {"id": 3, "name": "Webinar Follow-up", "mark_complete_when_no_leads": true,
         "allowed_hours_start_time": "10:00:00", "allowed_hours_end_time": "16:30:00"},
        {"id": 4, "name": "Frühjahrsaktion Bestandskunden", "max_calls_in_parallel": 3,
         "allowed_days": ["monday", "tuesday", "wednesday", "thursday", "friday"],
         "allowed_hours_start_time": "09:00:00", "allowed_hours_end_time": "18:00:00"}
    ])
}

fn demo_assistants() -> serde_json::Value {
    json!([
        {"id": 1, "name": "Inbound Reception", "type": "inbound", "phone_number_id": 101,
         "inbound_webhook_url": "https://example.com/hooks/inbound",
         "initial_message": "Thanks for calling, how can I help?",
         "system_prompt": "You are the receptionist. Route callers to sales or support."},
        {"id": 2, "name": "Outbound Sales", "type": "outbound", "phone_number_id": 102,
         "variables": {"customer_name": "there", "product": "Pro plan"},
         "post_call_evaluation": true,
         "post_call_schema": [
             {"name": "interested", "description": "Did the lead want a demo?", "type": "bool"},
             {"name": "notes", "description": "Anything worth following up", "type": "string"}],
         "is_webhook_active": true, "webhook_url": "https://example.com/hooks/post-call",
         "initial_message": "Hi {{customer_name}}, do you have a minute to talk about {{product}}?",
         "system_prompt": "You sell the Pro plan. Be brief and book a demo."},
        {"id": 3, "name": "Outbound Renewals", "type": "outbound", "mode": "multimodal",
         "llm_temperature": "0.40", "speech_speed": "1.10", "language": "de",
         "variables": {"firma": "Muster GmbH", "vertrag": "", "vertragsende": ""},
         "initial_message": "Hallo {{customer_name}}, hier ist Lisa von {{firma}}. Ihr Vertrag {{ vertrag }} läuft am {vertragsende} aus: haben Sie kurz Zeit?",
         "system_prompt": "Du rufst Kunden von {{firma}} an, deren Vertrag bald endet. Sprich {{customer_name}} mit Namen an und biete die Verlängerung an."},
        {"id": 4, "name": "Old Bot", "type": "outbound", "status": "inactive",
         "deleted_at": "2024-11-02T10:00:00.000000Z"}
    ])
}

//! The service's resources as typed records, every field with the spec's name and type.
//!
//! Decoding is tolerant (unknown fields ignored, `null` where the spec promises a value, numbers
//! as text) because a client that dies on one odd field loses a whole import. Encoding writes
//! the spec's shape, so a record read from the spec-following sandbox re-encodes unchanged.

use serde::{Deserialize, Serialize};

use super::lenient;

/// Lead and assistant variables: string keys to string values, in the order received.
pub type Variables = indexmap::IndexMap<String, String>;

/// Timestamp of assistants and campaigns, `YYYY-MM-DDTHH:MM:SS.ffffffZ`, kept as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct IsoTimestamp(#[serde(deserialize_with = "lenient::text")] pub String);

/// Timestamp of leads and secondary contacts, `YYYY-MM-DD HH:MM:SS`, kept as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LeadTimestamp(#[serde(deserialize_with = "lenient::text")] pub String);

/// A decimal number the service writes as text (`"0.70"`); kept exactly, never through a float.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DecimalText(#[serde(deserialize_with = "lenient::text")] pub String);

/// One item of an assistant's `post_call_schema`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PostCallField {
    #[serde(deserialize_with = "lenient::text")]
    pub name: String,
    #[serde(deserialize_with = "lenient::text")]
    pub description: String,
    /// `bool` for booleans, `string` for text.
    #[serde(rename = "type", deserialize_with = "lenient::text")]
    pub kind: String,
}

/// Filler phrases by sentiment; missing keys are empty lists.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FillerConfig {
    #[serde(deserialize_with = "lenient::or_default")]
    pub neutral: Vec<String>,
    #[serde(deserialize_with = "lenient::or_default")]
    pub negative: Vec<String>,
    #[serde(deserialize_with = "lenient::or_default")]
    pub positive: Vec<String>,
    #[serde(deserialize_with = "lenient::or_default")]
    pub question: Vec<String>,
}

/// Web widget appearance; missing keys are empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WidgetSettings {
    #[serde(deserialize_with = "lenient::text")]
    pub theme: String,
    /// Hex colour text such as `#3366ff`.
    #[serde(deserialize_with = "lenient::text")]
    pub color: String,
    #[serde(deserialize_with = "lenient::text")]
    pub position: String,
}

/// The full assistant record of the paginated list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Assistant {
    #[serde(deserialize_with = "lenient::id")]
    pub id: u64,
    #[serde(deserialize_with = "lenient::id")]
    pub user_id: u64,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub phone_number_id: Option<u64>,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub engine_id: Option<u64>,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub synthesizer_id: Option<u64>,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub transcriber_id: Option<u64>,
    #[serde(deserialize_with = "lenient::id")]
    pub voice_id: u64,
    #[serde(deserialize_with = "lenient::id")]
    pub instance_id: u64,
    #[serde(deserialize_with = "lenient::text")]
    pub name: String,
    #[serde(deserialize_with = "lenient::string_map")]
    pub variables: Variables,
    #[serde(deserialize_with = "lenient::bool")]
    pub post_call_evaluation: bool,
    /// 1 = filler audio enabled, 0 = disabled.
    #[serde(deserialize_with = "lenient::int")]
    pub fillers: i64,
    #[serde(deserialize_with = "lenient::or_default")]
    pub post_call_schema: Vec<PostCallField>,
    /// Tool definitions; their shape is not specified, so they are kept as JSON.
    #[serde(deserialize_with = "lenient::or_default")]
    pub tools: Vec<serde_json::Value>,
    #[serde(deserialize_with = "lenient::bool")]
    pub is_webhook_active: bool,
    pub webhook_url: Option<String>,
    pub inbound_webhook_url: Option<String>,
    pub language: Option<String>,
    /// `inbound` or `outbound`.
    #[serde(rename = "type", deserialize_with = "lenient::text")]
    pub kind: String,
    /// `active` or `inactive`.
    #[serde(deserialize_with = "lenient::text")]
    pub status: String,
    /// Seconds.
    #[serde(deserialize_with = "lenient::int")]
    pub max_duration: i64,
    #[serde(deserialize_with = "lenient::bool")]
    pub record: bool,
    #[serde(deserialize_with = "lenient::text")]
    pub initial_message: String,
    #[serde(deserialize_with = "lenient::text")]
    pub system_prompt: String,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub flows_platform_id: Option<u64>,
    /// Region/City form, e.g. `Europe/Berlin`.
    #[serde(deserialize_with = "lenient::text")]
    pub timezone: String,
    #[serde(deserialize_with = "lenient::or_default")]
    pub created_at: IsoTimestamp,
    #[serde(deserialize_with = "lenient::or_default")]
    pub updated_at: IsoTimestamp,
    /// Set when soft-deleted.
    pub deleted_at: Option<IsoTimestamp>,
    #[serde(deserialize_with = "lenient::int")]
    pub max_silence_duration: i64,
    #[serde(deserialize_with = "lenient::int")]
    pub reengagement_interval: i64,
    /// 1 = end the call when voicemail is detected, 0 = do not.
    #[serde(deserialize_with = "lenient::int")]
    pub end_call_on_voicemail: i64,
    #[serde(deserialize_with = "lenient::or_default")]
    pub llm_temperature: DecimalText,
    #[serde(deserialize_with = "lenient::or_default")]
    pub voice_stability: DecimalText,
    #[serde(deserialize_with = "lenient::or_default")]
    pub voice_similarity: DecimalText,
    #[serde(deserialize_with = "lenient::bool")]
    pub allow_interruptions: bool,
    #[serde(deserialize_with = "lenient::bool")]
    pub enable_noise_cancellation: bool,
    #[serde(deserialize_with = "lenient::or_default")]
    pub endpoint_sensitivity: Number,
    #[serde(deserialize_with = "lenient::or_default")]
    pub speech_speed: DecimalText,
    /// `vad` or `ai`.
    #[serde(deserialize_with = "lenient::text")]
    pub endpoint_type: String,
    #[serde(deserialize_with = "lenient::bool")]
    pub wait_for_customer: bool,
    /// `pipeline` or `multimodal`.
    #[serde(deserialize_with = "lenient::text")]
    pub mode: String,
    #[serde(deserialize_with = "lenient::id")]
    pub language_id: u64,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub transcriber_provider_id: Option<u64>,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub synthesizer_provider_id: Option<u64>,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub llm_model_id: Option<u64>,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub multimodal_model_id: Option<u64>,
    pub ambient_sound: Option<String>,
    #[serde(deserialize_with = "lenient::or_default")]
    pub ambient_sound_volume: DecimalText,
    #[serde(deserialize_with = "lenient::text")]
    pub uuid: String,
    #[serde(deserialize_with = "lenient::bool")]
    pub send_webhook_only_on_completed: bool,
    #[serde(deserialize_with = "lenient::bool")]
    pub include_recording_in_webhook: bool,
    #[serde(deserialize_with = "lenient::or_default")]
    pub interrupt_sensitivity: Number,
    #[serde(deserialize_with = "lenient::int")]
    pub min_interrupt_words: i64,
    #[serde(deserialize_with = "lenient::or_default")]
    pub filler_config: FillerConfig,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub knowledgebase_id: Option<u64>,
    #[serde(deserialize_with = "lenient::text")]
    pub knowledgebase_mode: String,
    #[serde(deserialize_with = "lenient::or_default")]
    pub widget_settings: WidgetSettings,
}

/// A JSON number kept as the service wrote it (`0.5` stays `0.5`, `1` stays `1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Number(pub serde_json::Number);

impl Default for Number {
    fn default() -> Self {
        Number(0.into())
    }
}

/// The summary assistant record of the outbound list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OutboundAssistant {
    #[serde(deserialize_with = "lenient::id")]
    pub id: u64,
    #[serde(deserialize_with = "lenient::id")]
    pub user_id: u64,
    #[serde(deserialize_with = "lenient::text")]
    pub name: String,
    /// Always `outbound`.
    #[serde(rename = "type", deserialize_with = "lenient::text")]
    pub kind: String,
    #[serde(deserialize_with = "lenient::text")]
    pub mode: String,
    #[serde(deserialize_with = "lenient::text")]
    pub status: String,
    #[serde(deserialize_with = "lenient::id")]
    pub voice_id: u64,
    #[serde(deserialize_with = "lenient::id")]
    pub language_id: u64,
    #[serde(deserialize_with = "lenient::text")]
    pub timezone: String,
    #[serde(deserialize_with = "lenient::text")]
    pub initial_message: String,
    #[serde(deserialize_with = "lenient::text")]
    pub system_prompt: String,
    #[serde(deserialize_with = "lenient::string_map")]
    pub variables: Variables,
    pub webhook_url: Option<String>,
    #[serde(deserialize_with = "lenient::bool")]
    pub is_webhook_active: bool,
    #[serde(deserialize_with = "lenient::or_default")]
    pub created_at: IsoTimestamp,
    #[serde(deserialize_with = "lenient::or_default")]
    pub updated_at: IsoTimestamp,
}

/// The campaign a lead belongs to, as embedded in the lead.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CampaignRef {
    #[serde(deserialize_with = "lenient::id")]
    pub id: u64,
    #[serde(deserialize_with = "lenient::text")]
    pub name: String,
}

/// A contact attached to a main lead.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SecondaryContact {
    #[serde(deserialize_with = "lenient::id")]
    pub id: u64,
    /// E.164.
    #[serde(deserialize_with = "lenient::text")]
    pub phone_number: String,
    #[serde(deserialize_with = "lenient::string_map")]
    pub variables: Variables,
    #[serde(deserialize_with = "lenient::text")]
    pub status: String,
    #[serde(deserialize_with = "lenient::or_default")]
    pub created_at: LeadTimestamp,
    #[serde(deserialize_with = "lenient::or_default")]
    pub updated_at: LeadTimestamp,
}

/// A lead with its campaign and secondary contacts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Lead {
    #[serde(deserialize_with = "lenient::id")]
    pub id: u64,
    #[serde(deserialize_with = "lenient::id")]
    pub campaign_id: u64,
    /// E.164.
    #[serde(deserialize_with = "lenient::text")]
    pub phone_number: String,
    #[serde(deserialize_with = "lenient::string_map")]
    pub variables: Variables,
    /// `created` on new leads; other values are not specified.
    #[serde(deserialize_with = "lenient::text")]
    pub status: String,
    #[serde(deserialize_with = "lenient::or_default")]
    pub created_at: LeadTimestamp,
    #[serde(deserialize_with = "lenient::or_default")]
    pub updated_at: LeadTimestamp,
    #[serde(deserialize_with = "lenient::or_default")]
    pub campaign: CampaignRef,
    #[serde(deserialize_with = "lenient::or_default")]
    pub secondary_contacts: Vec<SecondaryContact>,
}

/// An outbound calling campaign.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Campaign {
    #[serde(deserialize_with = "lenient::id")]
    pub id: u64,
    #[serde(deserialize_with = "lenient::text")]
    pub name: String,
    /// `draft` occurs; other values are not specified.
    #[serde(deserialize_with = "lenient::text")]
    pub status: String,
    #[serde(deserialize_with = "lenient::int")]
    pub max_calls_in_parallel: i64,
    #[serde(deserialize_with = "lenient::bool")]
    pub mark_complete_when_no_leads: bool,
    /// `HH:MM:SS`.
    #[serde(deserialize_with = "lenient::text")]
    pub allowed_hours_start_time: String,
    /// `HH:MM:SS`.
    #[serde(deserialize_with = "lenient::text")]
    pub allowed_hours_end_time: String,
    /// Lowercase English day names.
    #[serde(deserialize_with = "lenient::text_list")]
    pub allowed_days: Vec<String>,
    #[serde(deserialize_with = "lenient::int")]
    pub max_retries: i64,
    /// Seconds.
    #[serde(deserialize_with = "lenient::int")]
    pub retry_interval: i64,
    #[serde(deserialize_with = "lenient::or_default")]
    pub created_at: IsoTimestamp,
    #[serde(deserialize_with = "lenient::or_default")]
    pub updated_at: IsoTimestamp,
}

/// One entry of a page envelope's `links`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageLink {
    pub url: Option<String>,
    #[serde(deserialize_with = "lenient::text")]
    pub label: String,
    #[serde(deserialize_with = "lenient::bool")]
    pub active: bool,
}

/// The Laravel-style page envelope of the assistant list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, bound(deserialize = "T: Deserialize<'de>"))]
pub struct Page<T> {
    #[serde(deserialize_with = "lenient::id")]
    pub current_page: u64,
    #[serde(deserialize_with = "lenient::or_default")]
    pub data: Vec<T>,
    #[serde(deserialize_with = "lenient::text")]
    pub first_page_url: String,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub from: Option<u64>,
    #[serde(deserialize_with = "lenient::id")]
    pub last_page: u64,
    #[serde(deserialize_with = "lenient::text")]
    pub last_page_url: String,
    #[serde(deserialize_with = "lenient::or_default")]
    pub links: Vec<PageLink>,
    pub next_page_url: Option<String>,
    #[serde(deserialize_with = "lenient::text")]
    pub path: String,
    #[serde(deserialize_with = "lenient::id")]
    pub per_page: u64,
    pub prev_page_url: Option<String>,
    #[serde(deserialize_with = "lenient::opt_id")]
    pub to: Option<u64>,
    #[serde(deserialize_with = "lenient::id")]
    pub total: u64,
}

impl<T> Default for Page<T> {
    fn default() -> Self {
        Page {
            current_page: 0,
            data: Vec::new(),
            first_page_url: String::new(),
            from: None,
            last_page: 0,
            last_page_url: String::new(),
            links: Vec::new(),
            next_page_url: None,
            path: String::new(),
            per_page: 0,
            prev_page_url: None,
            to: None,
            total: 0,
        }
    }
}

/// The body of a create-lead request.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NewLead {
    /// E.164.
    pub phone_number: String,
    pub campaign_id: u64,
    pub variables: Variables,
    /// Spelled as the service spells it.
    pub allow_dupplicate: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub secondary_contacts: Vec<NewContact>,
}

/// A secondary contact to create with its main lead.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NewContact {
    /// E.164.
    pub phone_number: String,
    pub variables: Variables,
}

/// The service's answer to a successful write: a message and, for a lead, the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, bound(deserialize = "T: Deserialize<'de>"))]
pub struct Created<T> {
    #[serde(deserialize_with = "lenient::text")]
    pub message: String,
    pub data: Option<T>,
}

impl<T> Default for Created<T> {
    fn default() -> Self {
        Created { message: String::new(), data: None }
    }
}

/// The body of an update-lead request: the four fields the service lets a caller change. A
/// field left `None` (or, for variables, empty) is left out of the body, so only what is meant
/// to change is sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LeadChange {
    /// Must be a campaign of the same account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub campaign_id: Option<u64>,
    /// E.164; the service validates it as on create.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<LeadStatus>,
    /// Merged into the lead's variables: these keys are set (`""` empties one), the others kept.
    #[serde(skip_serializing_if = "Variables::is_empty")]
    pub variables: Variables,
}

/// The statuses an update may set, spelled as the service spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeadStatus {
    Created,
    Completed,
    ReachedMaxRetries,
}

/// The service's answer to an update: its message, and the lead as it is now when the answer
/// carries it (the service documents only the message, so `lead` is often `None`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Updated {
    pub message: String,
    pub lead: Option<Lead>,
}

/// The service's answer to a delete: its message (empty when the body was).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Deleted {
    pub message: String,
}

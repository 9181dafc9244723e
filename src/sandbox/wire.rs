//! The JSON shapes the sandbox answers with, read straight from the service interface document
//! (`docs/service-api.md`). They are deliberately separate from the client's model: the two are
//! independent readings of the spec, and the real-HTTP tests between them catch a misreading.
//!
//! Field order follows the document, so responses list fields in the order the spec does.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// An object whose values are all strings (assistant and lead `variables`). Kept as a JSON map so
/// the caller's key order survives the round trip through the database.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct StringMap(pub Map<String, Value>);

impl<'de> Deserialize<'de> for StringMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(deserializer)?;
        match map.iter().find(|(_, value)| !value.is_string()) {
            Some((key, _)) => {
                Err(serde::de::Error::custom(format!("variable `{key}` must be a string")))
            }
            None => Ok(StringMap(map)),
        }
    }
}

/// The full assistant record of the paginated list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assistant {
    pub id: i64,
    pub user_id: i64,
    pub phone_number_id: Option<i64>,
    pub engine_id: Option<i64>,
    pub synthesizer_id: Option<i64>,
    pub transcriber_id: Option<i64>,
    pub voice_id: i64,
    pub instance_id: i64,
    pub name: String,
    pub variables: StringMap,
    pub post_call_evaluation: bool,
    pub fillers: i64,
    pub post_call_schema: Vec<PostCallField>,
    pub tools: Vec<Value>,
    pub is_webhook_active: bool,
    pub webhook_url: Option<String>,
    pub inbound_webhook_url: Option<String>,
    pub language: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    pub status: String,
    pub max_duration: i64,
    pub record: bool,
    pub initial_message: String,
    pub system_prompt: String,
    pub flows_platform_id: Option<i64>,
    pub timezone: String,
    pub created_at: String,
    pub updated_at: String,
    pub deleted_at: Option<String>,
    pub max_silence_duration: i64,
    pub reengagement_interval: i64,
    pub end_call_on_voicemail: i64,
    pub llm_temperature: String,
    pub voice_stability: String,
    pub voice_similarity: String,
    pub allow_interruptions: bool,
    pub enable_noise_cancellation: bool,
    pub endpoint_sensitivity: f64,
    pub speech_speed: String,
    pub endpoint_type: String,
    pub wait_for_customer: bool,
    pub mode: String,
    pub language_id: i64,
    pub transcriber_provider_id: Option<i64>,
    pub synthesizer_provider_id: Option<i64>,
    pub llm_model_id: Option<i64>,
    pub multimodal_model_id: Option<i64>,
    pub ambient_sound: Option<String>,
    pub ambient_sound_volume: String,
    pub uuid: String,
    pub send_webhook_only_on_completed: bool,
    pub include_recording_in_webhook: bool,
    pub interrupt_sensitivity: f64,
    pub min_interrupt_words: i64,
    pub filler_config: FillerConfig,
    pub knowledgebase_id: Option<i64>,
    pub knowledgebase_mode: String,
    pub widget_settings: WidgetSettings,
}

/// Assistant fields the spec types as "decimal number as text": stored and answered verbatim.
pub const DECIMAL_TEXT_FIELDS: [&str; 5] = [
    "llm_temperature",
    "voice_stability",
    "voice_similarity",
    "speech_speed",
    "ambient_sound_volume",
];

/// One item of an assistant's `post_call_schema`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostCallField {
    pub name: String,
    pub description: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// Filler phrases by the mood of the moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FillerConfig {
    pub neutral: Vec<String>,
    pub negative: Vec<String>,
    pub positive: Vec<String>,
    pub question: Vec<String>,
}

/// Look of the web chat widget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WidgetSettings {
    pub theme: String,
    pub color: String,
    pub position: String,
}

/// The summary record of the outbound list: only the fields the spec names for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssistantSummary {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub mode: String,
    pub status: String,
    pub voice_id: i64,
    pub language_id: i64,
    pub timezone: String,
    pub initial_message: String,
    pub system_prompt: String,
    pub variables: StringMap,
    pub webhook_url: Option<String>,
    pub is_webhook_active: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Assistant> for AssistantSummary {
    fn from(a: Assistant) -> Self {
        AssistantSummary {
            id: a.id,
            user_id: a.user_id,
            name: a.name,
            kind: a.kind,
            mode: a.mode,
            status: a.status,
            voice_id: a.voice_id,
            language_id: a.language_id,
            timezone: a.timezone,
            initial_message: a.initial_message,
            system_prompt: a.system_prompt,
            variables: a.variables,
            webhook_url: a.webhook_url,
            is_webhook_active: a.is_webhook_active,
            created_at: a.created_at,
            updated_at: a.updated_at,
        }
    }
}

/// A campaign record. The owner is not part of the record; the database keeps it beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Campaign {
    pub id: i64,
    pub name: String,
    pub status: String,
    pub max_calls_in_parallel: i64,
    pub mark_complete_when_no_leads: bool,
    pub allowed_hours_start_time: String,
    pub allowed_hours_end_time: String,
    pub allowed_days: Vec<String>,
    pub max_retries: i64,
    pub retry_interval: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// A main lead with its campaign and secondary contacts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lead {
    pub id: i64,
    pub campaign_id: i64,
    pub phone_number: String,
    pub variables: StringMap,
    pub status: String,
    pub created_at: String,
    pub updated_at: String,
    pub campaign: CampaignRef,
    pub secondary_contacts: Vec<SecondaryContact>,
}

/// The `campaign` object embedded in a lead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CampaignRef {
    pub id: i64,
    pub name: String,
}

/// A lead attached to a main lead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SecondaryContact {
    pub id: i64,
    pub phone_number: String,
    pub variables: StringMap,
    pub status: String,
    pub created_at: String,
    pub updated_at: String,
}

/// `{"message": ..., "data": ...}`, the envelope of the write endpoints.
#[derive(Debug, Serialize)]
pub struct Envelope<T> {
    pub message: &'static str,
    pub data: T,
}

/// `{"message": ...}`, the body of every error without field errors.
#[derive(Debug, Serialize)]
pub struct Message {
    pub message: String,
}

//! Defaults for fields a seed leaves out: a plausible, fully populated assistant or campaign, so
//! a seed can be as short as `{"id": 5, "name": "Sales"}`. The values are choices of the sandbox
//! (the spec shows no defaults); they are also the templates the store maps rows with.

use serde_json::Map;

use super::time::record_now;
use super::wire::{Assistant, Campaign, FillerConfig, StringMap, WidgetSettings};

/// An active outbound assistant named after its id, created now.
pub(crate) fn assistant(id: i64, user_id: i64) -> Assistant {
    let now = record_now();
    Assistant {
        id,
        user_id,
        phone_number_id: None,
        engine_id: None,
        synthesizer_id: None,
        transcriber_id: None,
        voice_id: 1,
        instance_id: 1,
        name: format!("Assistant {id}"),
        variables: StringMap(Map::new()),
        post_call_evaluation: false,
        fillers: 0,
        post_call_schema: Vec::new(),
        tools: Vec::new(),
        is_webhook_active: false,
        webhook_url: None,
        inbound_webhook_url: None,
        language: Some("en".into()),
        kind: "outbound".into(),
        status: "active".into(),
        max_duration: 600,
        record: false,
        initial_message: "Hello! Do you have a minute?".into(),
        system_prompt: "You are a friendly, concise phone assistant.".into(),
        flows_platform_id: None,
        timezone: "America/New_York".into(),
        created_at: now.clone(),
        updated_at: now,
        deleted_at: None,
        max_silence_duration: 10,
        reengagement_interval: 5,
        end_call_on_voicemail: 1,
        llm_temperature: "0.70".into(),
        voice_stability: "0.50".into(),
        voice_similarity: "0.75".into(),
        allow_interruptions: true,
        enable_noise_cancellation: true,
        endpoint_sensitivity: 0.5,
        speech_speed: "1.00".into(),
        endpoint_type: "vad".into(),
        wait_for_customer: false,
        mode: "pipeline".into(),
        language_id: 1,
        transcriber_provider_id: None,
        synthesizer_provider_id: None,
        llm_model_id: None,
        multimodal_model_id: None,
        ambient_sound: None,
        ambient_sound_volume: "0.50".into(),
        uuid: uuid_v4(),
        send_webhook_only_on_completed: false,
        include_recording_in_webhook: false,
        interrupt_sensitivity: 0.5,
        min_interrupt_words: 2,
        filler_config: fillers(),
        knowledgebase_id: None,
        knowledgebase_mode: "function_call".into(),
        widget_settings: WidgetSettings {
            theme: "light".into(),
            color: "#4F46E5".into(),
            position: "bottom-right".into(),
        },
    }
}

fn fillers() -> FillerConfig {
    let words = |list: &[&str]| list.iter().map(|word| word.to_string()).collect();
    FillerConfig {
        neutral: words(&["Okay.", "I see."]),
        negative: words(&["I understand.", "I'm sorry to hear that."]),
        positive: words(&["Great!", "Wonderful."]),
        question: words(&["Good question.", "Let me check."]),
    }
}

/// A draft campaign calling on weekdays, nine to five.
pub(crate) fn campaign(id: i64) -> Campaign {
    let now = record_now();
    let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday"];
    Campaign {
        id,
        name: format!("Campaign {id}"),
        status: "draft".into(),
        max_calls_in_parallel: 3,
        mark_complete_when_no_leads: false,
        allowed_hours_start_time: "09:00:00".into(),
        allowed_hours_end_time: "17:00:00".into(),
        allowed_days: weekdays.map(String::from).to_vec(),
        max_retries: 3,
        retry_interval: 3600,
        created_at: now.clone(),
        updated_at: now,
    }
}

/// A random (version 4) UUID in its usual 8-4-4-4-12 hex form.
pub(crate) fn uuid_v4() -> String {
    let mut bytes: [u8; 16] = rand::random();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

#[cfg(test)]
mod tests {
    use super::uuid_v4;

    #[test]
    fn uuids_are_version_4() {
        let uuid = uuid_v4();
        assert_eq!(uuid.len(), 36);
        assert_eq!(&uuid[14..15], "4");
        assert!(matches!(&uuid[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(uuid, uuid_v4());
    }
}

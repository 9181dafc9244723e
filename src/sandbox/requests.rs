//! Validation of request bodies, rule by rule as a Laravel form request would run them: every
//! rule runs (no bail), failures become field errors with Laravel's names and wording. Rules that
//! need the database (campaign exists, phone not taken) run later in the store, inside the
//! request's transaction.

use serde_json::{Map, Value};

use super::validation::{ValidationErrors, format_invalid, must_be, required, selected_invalid};
use super::wire::StringMap;

/// Order of the lead fields' rules, which is the order Laravel lists their errors in.
pub(crate) const LEAD_FIELD_ORDER: [&str; 5] =
    ["phone_number", "campaign_id", "variables", "allow_dupplicate", "secondary_contacts"];

/// A create-lead body after the pure rules: what parsed, and what failed.
#[derive(Debug, Default)]
pub(crate) struct LeadDraft {
    pub phone_number: Option<String>,
    pub campaign_id: Option<i64>,
    pub variables: StringMap,
    pub allow_duplicate: bool,
    pub secondary_contacts: Vec<ContactDraft>,
    pub errors: ValidationErrors,
}

/// Order of an update's fields, as the service's documentation lists them.
pub(crate) const CHANGE_FIELD_ORDER: [&str; 4] =
    ["campaign_id", "phone_number", "status", "variables"];

/// The statuses an update may set.
pub(crate) const LEAD_STATUSES: [&str; 3] = ["created", "completed", "reached-max-retries"];

/// An update-lead body after the pure rules: the fields that were sent and parsed (`None`:
/// leave as is), and what failed. Only the four changeable fields are read; any other field is
/// ignored, as create ignores fields it does not know.
#[derive(Debug, Default)]
pub(crate) struct ChangeDraft {
    pub campaign_id: Option<i64>,
    pub phone_number: Option<String>,
    pub status: Option<String>,
    /// Merged into the lead's variables: these keys are set, the others kept.
    pub variables: StringMap,
    pub errors: ValidationErrors,
}

#[derive(Debug)]
pub(crate) struct ContactDraft {
    pub phone_number: String,
    pub variables: StringMap,
}

/// A valid enable-webhook body.
#[derive(Debug)]
pub(crate) struct WebhookRequest {
    pub assistant_id: i64,
    pub webhook_url: String,
}

pub(crate) fn lead(body: &Value) -> LeadDraft {
    let input = as_object(body);
    let mut errors = ValidationErrors::default();
    let phone_number = phone(input.get("phone_number"), "phone_number", &mut errors);
    let campaign_id = integer(input.get("campaign_id"), "campaign_id", &mut errors);
    let variables = variables(input.get("variables"), "variables", &mut errors);
    let allow_duplicate = boolean(input.get("allow_dupplicate"), "allow_dupplicate", &mut errors);
    let secondary_contacts = contacts(input.get("secondary_contacts"), &mut errors);
    LeadDraft { phone_number, campaign_id, variables, allow_duplicate, secondary_contacts, errors }
}

/// Every field is optional, but one that is sent must be valid: like Laravel's `sometimes`, a
/// field sent as `null` or `""` is checked (and refused as required), not skipped.
pub(crate) fn lead_change(body: &Value) -> ChangeDraft {
    let input = as_object(body);
    let mut errors = ValidationErrors::default();
    let sent = |field: &str| input.get(field).map(Some);
    let campaign_id = sent("campaign_id").and_then(|v| integer(v, "campaign_id", &mut errors));
    let phone_number = sent("phone_number").and_then(|v| phone(v, "phone_number", &mut errors));
    let status = sent("status").and_then(|v| lead_status(v, "status", &mut errors));
    let variables = variables(input.get("variables"), "variables", &mut errors);
    ChangeDraft { campaign_id, phone_number, status, variables, errors }
}

pub(crate) fn webhook(body: &Value) -> Result<WebhookRequest, ValidationErrors> {
    let input = as_object(body);
    let mut errors = ValidationErrors::default();
    let assistant_id = integer(input.get("assistant_id"), "assistant_id", &mut errors);
    let webhook_url = http_url(input.get("webhook_url"), "webhook_url", &mut errors);
    match (assistant_id, webhook_url) {
        (Some(assistant_id), Some(webhook_url)) if errors.is_empty() => {
            Ok(WebhookRequest { assistant_id, webhook_url })
        }
        _ => Err(errors),
    }
}

/// A body that is JSON but not an object carries no fields (Laravel would see no known input).
fn as_object(body: &Value) -> Map<String, Value> {
    body.as_object().cloned().unwrap_or_default()
}

/// Laravel trims strings and turns empty ones into null before validating, so `"  "` is missing.
fn present(value: Option<&Value>) -> Option<&Value> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) if text.trim().is_empty() => None,
        Some(value) => Some(value),
    }
}

fn phone(value: Option<&Value>, field: &str, errors: &mut ValidationErrors) -> Option<String> {
    let Some(value) = present(value) else {
        errors.add(field, required(field));
        return None;
    };
    let Some(text) = value.as_str().map(str::trim) else {
        errors.add(field, must_be(field, "a string"));
        return None;
    };
    if !is_e164(text) {
        errors.add(field, format_invalid(field));
        return None;
    }
    Some(text.to_string())
}

/// `^\+[1-9][0-9]{6,14}$`: a plus, then 7 to 15 digits, the first not zero.
pub(crate) fn is_e164(text: &str) -> bool {
    let Some(digits) = text.strip_prefix('+') else {
        return false;
    };
    (7..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0')
}

/// Laravel's `integer` rule also accepts integer-looking strings, so `"10"` passes.
fn integer(value: Option<&Value>, field: &str, errors: &mut ValidationErrors) -> Option<i64> {
    let Some(value) = present(value) else {
        errors.add(field, required(field));
        return None;
    };
    let parsed = match value {
        Value::Number(number) => number.as_i64(),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    };
    if parsed.is_none() {
        errors.add(field, must_be(field, "an integer"));
    }
    parsed
}

/// Optional object of strings; null or absent is `{}`. Laravel calls objects "arrays".
fn variables(value: Option<&Value>, field: &str, errors: &mut ValidationErrors) -> StringMap {
    let Some(value) = value.filter(|value| !value.is_null()) else {
        return StringMap::default();
    };
    let Some(map) = value.as_object() else {
        errors.add(field, must_be(field, "an array"));
        return StringMap::default();
    };
    let not_strings = map.iter().filter(|(_, value)| !value.is_string());
    for name in not_strings.map(|(key, _)| format!("{field}.{key}")) {
        errors.add(&name, must_be(&name, "a string"));
    }
    StringMap(map.clone())
}

/// Laravel's `in:` rule over [`LEAD_STATUSES`].
fn lead_status(
    value: Option<&Value>,
    field: &str,
    errors: &mut ValidationErrors,
) -> Option<String> {
    let Some(value) = present(value) else {
        errors.add(field, required(field));
        return None;
    };
    match value.as_str().map(str::trim) {
        Some(text) if LEAD_STATUSES.contains(&text) => Some(text.to_string()),
        _ => {
            errors.add(field, selected_invalid(field));
            None
        }
    }
}

/// Laravel's `boolean` rule: true, false, 0, 1, "0" and "1"; absent or null is false.
fn boolean(value: Option<&Value>, field: &str, errors: &mut ValidationErrors) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(value) if value == 1 || value == "1" => true,
        Some(value) if value == 0 || value == "0" => false,
        Some(_) => {
            errors.add(field, must_be(field, "true or false"));
            false
        }
    }
}

fn contacts(value: Option<&Value>, errors: &mut ValidationErrors) -> Vec<ContactDraft> {
    const FIELD: &str = "secondary_contacts";
    let Some(value) = value.filter(|value| !value.is_null()) else {
        return Vec::new();
    };
    let Some(items) = value.as_array() else {
        errors.add(FIELD, must_be(FIELD, "an array"));
        return Vec::new();
    };
    let parsed = items.iter().enumerate();
    parsed.filter_map(|(index, item)| contact(index, item, errors)).collect()
}

fn contact(index: usize, item: &Value, errors: &mut ValidationErrors) -> Option<ContactDraft> {
    let field = format!("secondary_contacts.{index}");
    let Some(object) = item.as_object() else {
        errors.add(&field, must_be(&field, "an array"));
        return None;
    };
    let phone_field = format!("{field}.phone_number");
    let phone_number = phone(object.get("phone_number"), &phone_field, errors);
    let variables = variables(object.get("variables"), &format!("{field}.variables"), errors);
    phone_number.map(|phone_number| ContactDraft { phone_number, variables })
}

/// The spec asks for a URL where notifications are sent, so only absolute http(s) URLs pass.
fn http_url(value: Option<&Value>, field: &str, errors: &mut ValidationErrors) -> Option<String> {
    let Some(value) = present(value) else {
        errors.add(field, required(field));
        return None;
    };
    let text = value.as_str().map(str::trim).unwrap_or_default();
    let valid = url::Url::parse(text).is_ok_and(|url| {
        matches!(url.scheme(), "http" | "https") && url.host_str().is_some_and(|h| !h.is_empty())
    });
    if !valid {
        errors.add(field, must_be(field, "a valid URL"));
        return None;
    }
    Some(text.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{is_e164, lead, lead_change, webhook};

    #[test]
    fn e164_matches_the_documented_pattern() {
        assert!(is_e164("+15551234567"));
        assert!(is_e164("+1234567"));
        assert!(is_e164("+123456789012345"));
        assert!(!is_e164("+1234567890123456"));
        assert!(!is_e164("+123456"));
        assert!(!is_e164("+0551234567"));
        assert!(!is_e164("15551234567"));
        assert!(!is_e164("+1555 123 4567"));
    }

    #[test]
    fn empty_lead_body_reports_the_required_fields() {
        let draft = lead(&json!({}));
        let errors = serde_json::to_value(&draft.errors).unwrap();
        assert_eq!(errors["message"], "The phone number field is required. (and 1 more error)");
        assert_eq!(errors["errors"]["campaign_id"][0], "The campaign id field is required.");
    }

    #[test]
    fn nested_fields_get_laravel_names() {
        let draft = lead(&json!({
            "phone_number": "+15551234567", "campaign_id": "10",
            "variables": {"email": 5}, "allow_dupplicate": "yes",
            "secondary_contacts": [{"phone_number": "12"}, 7]
        }));
        assert_eq!(draft.campaign_id, Some(10));
        let e = &draft.errors;
        assert_eq!(
            e.messages("variables.email").unwrap()[0],
            "The variables.email field must be a string."
        );
        assert_eq!(
            e.messages("allow_dupplicate").unwrap()[0],
            "The allow dupplicate field must be true or false."
        );
        assert_eq!(
            e.messages("secondary_contacts.0.phone_number").unwrap()[0],
            "The secondary contacts.0.phone number field format is invalid."
        );
        assert!(e.messages("secondary_contacts.1").is_some());
    }

    #[test]
    fn a_change_checks_only_what_was_sent() {
        let draft = lead_change(&json!({"status": "completed", "allow_dupplicate": "nonsense"}));
        assert!(draft.errors.is_empty(), "unknown fields are ignored");
        assert_eq!(draft.status.as_deref(), Some("completed"));
        assert!(draft.phone_number.is_none() && draft.campaign_id.is_none());
        let draft = lead_change(&json!({
            "phone_number": null, "campaign_id": "x", "status": "done", "variables": {"a": 1}
        }));
        let e = &draft.errors;
        assert_eq!(e.messages("phone_number").unwrap()[0], "The phone number field is required.");
        assert_eq!(
            e.messages("campaign_id").unwrap()[0],
            "The campaign id field must be an integer."
        );
        assert_eq!(e.messages("status").unwrap()[0], "The selected status is invalid.");
        assert!(e.messages("variables.a").is_some());
    }

    #[test]
    fn webhook_needs_an_absolute_http_url() {
        assert!(webhook(&json!({"assistant_id": 1, "webhook_url": "https://x.test/hook"})).is_ok());
        for url in ["ftp://x.test", "/relative", "not a url", ""] {
            let errors = webhook(&json!({"assistant_id": 1, "webhook_url": url})).unwrap_err();
            assert!(errors.messages("webhook_url").is_some(), "{url}");
        }
        let errors = webhook(&json!({})).unwrap_err();
        assert!(errors.messages("assistant_id").is_some());
    }
}

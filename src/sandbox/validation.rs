//! Laravel-style validation failures: the 422 body
//! `{"message": "<first> (and N more errors)", "errors": {"field": ["..."]}}` and the wording of
//! each rule's message, so a client written against the real service reads ours the same way.

use serde::ser::{Serialize, SerializeMap, Serializer};

/// Field errors in the order Laravel reports them (rule order of the request's fields).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ValidationErrors {
    fields: Vec<(String, Vec<String>)>,
}

impl ValidationErrors {
    pub(crate) fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    pub(crate) fn add(&mut self, field: &str, message: String) {
        match self.fields.iter_mut().find(|(name, _)| name == field) {
            Some((_, messages)) => messages.push(message),
            None => self.fields.push((field.to_string(), vec![message])),
        }
    }

    /// Messages of one field, for tests and callers that want to inspect a failure.
    #[cfg(test)]
    pub(crate) fn messages(&self, field: &str) -> Option<&[String]> {
        self.fields.iter().find(|(name, _)| name == field).map(|(_, messages)| messages.as_slice())
    }

    /// Reorders fields by the position of their top-level name in `order`, keeping the order of
    /// equals: checks that need the database run after the pure ones, but Laravel lists errors
    /// field by field.
    pub(crate) fn sort_by_field_order(&mut self, order: &[&str]) {
        let rank = |field: &str| {
            let top = field.split('.').next().unwrap_or(field);
            order.iter().position(|name| *name == top).unwrap_or(order.len())
        };
        self.fields.sort_by_key(|(field, _)| rank(field));
    }

    /// The top-level message: the first error, then how many more there are.
    pub(crate) fn summary(&self) -> String {
        let mut all = self.fields.iter().flat_map(|(_, messages)| messages);
        let first = all.next().cloned().unwrap_or_default();
        match all.count() {
            0 => first,
            1 => format!("{first} (and 1 more error)"),
            more => format!("{first} (and {more} more errors)"),
        }
    }
}

impl Serialize for ValidationErrors {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Fields<'a>(&'a [(String, Vec<String>)]);
        impl Serialize for Fields<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for (field, messages) in self.0 {
                    map.serialize_entry(field, messages)?;
                }
                map.end()
            }
        }
        let mut body = serializer.serialize_map(Some(2))?;
        body.serialize_entry("message", &self.summary())?;
        body.serialize_entry("errors", &Fields(&self.fields))?;
        body.end()
    }
}

/// How Laravel names a field in messages: underscores become spaces, dots stay.
fn display(field: &str) -> String {
    field.replace('_', " ")
}

pub(crate) fn required(field: &str) -> String {
    format!("The {} field is required.", display(field))
}

pub(crate) fn must_be(field: &str, what: &str) -> String {
    format!("The {} field must be {what}.", display(field))
}

pub(crate) fn format_invalid(field: &str) -> String {
    format!("The {} field format is invalid.", display(field))
}

pub(crate) fn selected_invalid(field: &str) -> String {
    format!("The selected {} is invalid.", display(field))
}

pub(crate) fn taken(field: &str) -> String {
    format!("The {} has already been taken.", display(field))
}

#[cfg(test)]
mod tests {
    use super::{ValidationErrors, required, taken};

    #[test]
    fn summary_counts_the_other_messages() {
        let mut errors = ValidationErrors::default();
        errors.add("phone_number", required("phone_number"));
        assert_eq!(errors.summary(), "The phone number field is required.");
        errors.add("campaign_id", required("campaign_id"));
        assert_eq!(errors.summary(), "The phone number field is required. (and 1 more error)");
        errors.add("phone_number", taken("phone_number"));
        assert!(errors.summary().ends_with("(and 2 more errors)"));
    }

    #[test]
    fn body_lists_fields_in_rule_order() {
        let mut errors = ValidationErrors::default();
        errors.add("secondary_contacts.0.phone_number", required("x"));
        errors.add("campaign_id", required("campaign_id"));
        errors.add("phone_number", taken("phone_number"));
        errors.sort_by_field_order(&["phone_number", "campaign_id", "secondary_contacts"]);
        let body = serde_json::to_value(&errors).unwrap();
        let fields: Vec<_> = body["errors"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(fields, ["phone_number", "campaign_id", "secondary_contacts.0.phone_number"]);
        assert_eq!(body["message"], "The phone number has already been taken. (and 2 more errors)");
    }
}

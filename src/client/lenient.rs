//! Deserializers that accept what a real service sends beside what the spec says.
//!
//! The spec marks few fields nullable and types booleans as JSON booleans, but a Laravel
//! service backed by MySQL easily sends `null`, `0`/`1` or numbers where strings are expected.
//! A client that dies on such a field is useless, so these decode them into the declared type.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// `null` (or a missing field, with `#[serde(default)]`) becomes the type's default.
pub fn or_default<'de, D, T>(de: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(de)?.unwrap_or_default())
}

/// A boolean also written as `0`/`1` or `"0"`/`"1"`/`"true"`/`"false"`; `null` is false.
pub fn bool<'de, D: Deserializer<'de>>(de: D) -> Result<bool, D::Error> {
    match Value::deserialize(de)? {
        Value::Bool(b) => Ok(b),
        Value::Null => Ok(false),
        Value::Number(n) => Ok(n.as_f64().is_some_and(|f| f != 0.0)),
        Value::String(s) => match s.trim() {
            "1" | "true" | "TRUE" | "True" => Ok(true),
            "0" | "false" | "FALSE" | "False" | "" => Ok(false),
            other => Err(serde::de::Error::custom(format!("expected a boolean, got `{other}`"))),
        },
        other => Err(serde::de::Error::custom(format!("expected a boolean, got {other}"))),
    }
}

/// An integer also written as a boolean or a numeric string; `null` is 0.
pub fn int<'de, D: Deserializer<'de>>(de: D) -> Result<i64, D::Error> {
    match Value::deserialize(de)? {
        Value::Null => Ok(0),
        Value::Bool(b) => Ok(i64::from(b)),
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .ok_or_else(|| serde::de::Error::custom(format!("expected an integer, got {n}"))),
        Value::String(s) => s
            .trim()
            .parse()
            .map_err(|_| serde::de::Error::custom(format!("expected an integer, got `{s}`"))),
        other => Err(serde::de::Error::custom(format!("expected an integer, got {other}"))),
    }
}

/// An id that may arrive as a number or as a numeric string.
pub fn id<'de, D: Deserializer<'de>>(de: D) -> Result<u64, D::Error> {
    opt_id(de).map(Option::unwrap_or_default)
}

/// A nullable id that may arrive as a number or as a numeric string.
pub fn opt_id<'de, D: Deserializer<'de>>(de: D) -> Result<Option<u64>, D::Error> {
    match Value::deserialize(de)? {
        Value::Null => Ok(None),
        Value::Number(n) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("expected an id, got {n}"))),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("expected an id, got `{s}`"))),
        other => Err(serde::de::Error::custom(format!("expected an id, got {other}"))),
    }
}

/// Text that may arrive as a number (`0.7` instead of `"0.7"`); kept exactly as written.
pub fn text<'de, D: Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    match Value::deserialize(de)? {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(serde::de::Error::custom(format!("expected text, got {other}"))),
    }
}

/// A string-to-string map whose values may arrive as numbers, booleans or null; also a list
/// of `{"name"|"key": …, "value": …}` pairs or of bare names (then with empty values), the
/// shapes a form-built list of custom variables takes.
pub fn string_map<'de, D>(de: D) -> Result<indexmap::IndexMap<String, String>, D::Error>
where
    D: Deserializer<'de>,
{
    let map = match json_text_decoded(Value::deserialize(de)?) {
        Value::Object(map) => map,
        // PHP encodes an empty associative array as `[]`.
        Value::Array(items) => return Ok(items.into_iter().filter_map(listed_pair).collect()),
        Value::Null => return Ok(Default::default()),
        other => {
            return Err(serde::de::Error::custom(format!("expected an object, got {other}")));
        }
    };
    Ok(map.into_iter().map(|(k, v)| (k, scalar_text(v))).collect())
}

/// One item of a variable list as a name and a value; an item without a name is dropped.
fn listed_pair(item: Value) -> Option<(String, String)> {
    match item {
        Value::Object(mut pair) => {
            let name = ["name", "key"].iter().find_map(|k| pair.remove(*k)).map(scalar_text)?;
            let value = pair.remove("value").map(scalar_text).unwrap_or_default();
            (!name.trim().is_empty()).then_some((name, value))
        }
        Value::String(name) if !name.trim().is_empty() => Some((name, String::new())),
        _ => None,
    }
}

/// A list of texts, also when it arrives as JSON text (`"[\"monday\"]"`, as Laravel sends a
/// JSON column without a cast) or as null.
pub fn text_list<'de, D: Deserializer<'de>>(de: D) -> Result<Vec<String>, D::Error> {
    match json_text_decoded(Value::deserialize(de)?) {
        Value::Array(items) => Ok(items.into_iter().map(scalar_text).collect()),
        Value::Null => Ok(Vec::new()),
        other => Err(serde::de::Error::custom(format!("expected a list, got {other}"))),
    }
}

/// A JSON array or object that arrives encoded as text, decoded; anything else as it is.
fn json_text_decoded(value: Value) -> Value {
    match &value {
        Value::String(text) if text.trim_start().starts_with(['[', '{']) => {
            serde_json::from_str(text).unwrap_or(value)
        }
        _ => value,
    }
}

fn scalar_text(value: Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Holder {
        #[serde(deserialize_with = "text_list")]
        days: Vec<String>,
        #[serde(deserialize_with = "string_map")]
        vars: indexmap::IndexMap<String, String>,
    }

    #[test]
    fn lists_and_maps_arrive_as_json_text_too() {
        let held: Holder = serde_json::from_str(
            r#"{"days": "[\"monday\",\"friday\"]", "vars": "{\"customer_name\":\"Anna\",\"n\":3}"}"#,
        )
        .unwrap();
        assert_eq!(held.days, ["monday", "friday"]);
        assert_eq!(held.vars["customer_name"], "Anna");
        assert_eq!(held.vars["n"], "3");
        let plain: Holder = serde_json::from_str(r#"{"days": null, "vars": []}"#).unwrap();
        assert!(plain.days.is_empty() && plain.vars.is_empty());
        assert!(serde_json::from_str::<Holder>(r#"{"days": 5, "vars": {}}"#).is_err());
    }

    #[test]
    fn variables_arrive_as_lists_of_pairs_or_names() {
        let held: Holder = serde_json::from_str(
            r#"{"days": [], "vars": [{"name": "firma", "value": "Muster GmbH"},
                {"key": "termin", "value": null}, {"value": "no name"}, "customer_name", 7]}"#,
        )
        .unwrap();
        let vars: Vec<(&str, &str)> =
            held.vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(vars, [("firma", "Muster GmbH"), ("termin", ""), ("customer_name", "")]);
    }
}

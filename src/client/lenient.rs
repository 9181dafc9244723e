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

/// A string-to-string map whose values may arrive as numbers, booleans or null.
pub fn string_map<'de, D>(de: D) -> Result<indexmap::IndexMap<String, String>, D::Error>
where
    D: Deserializer<'de>,
{
    let map = match Value::deserialize(de)? {
        Value::Object(map) => map,
        // PHP encodes an empty associative array as `[]`.
        Value::Null | Value::Array(_) => return Ok(Default::default()),
        other => {
            return Err(serde::de::Error::custom(format!("expected an object, got {other}")));
        }
    };
    Ok(map.into_iter().map(|(k, v)| (k, scalar_text(v))).collect())
}

fn scalar_text(value: Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s,
        other => other.to_string(),
    }
}

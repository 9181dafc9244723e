//! Placeholders in an assistant's texts: `{{name}}`, `{{ name }}` and `{name}`.
//!
//! The service's prompts write `{{name}}`; people also write `{{ name }}` and, from other
//! template languages, `{name}`. A single-brace placeholder counts only around a bare name, so
//! a JSON example in a system prompt (`{"ok": true}`) is not taken for one.

/// The names a text's placeholders use, in order of first appearance, each once.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (_, name) in scan(text) {
        if !found.iter().any(|f| f == name) {
            found.push(name.to_string());
        }
    }
    found
}

/// A piece of a text with its placeholders filled in: words as written, or a gap where
/// nothing filled the placeholder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Piece {
    Said(String),
    Gap(String),
}

/// `text` with each placeholder replaced by what `value` gives for its name; a name without
/// a value (or an empty one) is a [`Piece::Gap`], so a reader sees the hole, not the braces.
pub fn fill(text: &str, value: impl Fn(&str) -> Option<String>) -> Vec<Piece> {
    let mut pieces: Vec<Piece> = Vec::new();
    let said = |pieces: &mut Vec<Piece>, words: &str| match pieces.last_mut() {
        Some(Piece::Said(before)) => before.push_str(words),
        _ if words.is_empty() => {}
        _ => pieces.push(Piece::Said(words.to_string())),
    };
    let mut at = 0;
    for (range, name) in scan(text) {
        said(&mut pieces, &text[at..range.start]);
        match value(name).filter(|v| !v.trim().is_empty()) {
            Some(filled) => said(&mut pieces, &filled),
            None => pieces.push(Piece::Gap(name.to_string())),
        }
        at = range.end;
    }
    said(&mut pieces, &text[at..]);
    pieces
}

/// Every placeholder in `text`, where it stands and the name it holds.
fn scan(text: &str) -> Vec<(std::ops::Range<usize>, &str)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find('{') {
        let start = at + open;
        let after = &text[start..];
        let (name, used) = match after.strip_prefix("{{") {
            Some(inner) => (double_braced(inner), 2),
            None => (single_braced(&after[1..]), 1),
        };
        match name {
            Some((name, len)) => {
                found.push((start..start + len, name));
                at = start + len;
            }
            None => at = start + used,
        }
    }
    found
}

/// `{{ name }}` after its opening braces: the name and the length of the whole placeholder.
fn double_braced(inner: &str) -> Option<(&str, usize)> {
    let close = inner.find("}}")?;
    let name = inner[..close].trim();
    is_name(name).then_some((name, close + 4))
}

/// `{name}` after its opening brace: no spaces, nothing but a name.
fn single_braced(inner: &str) -> Option<(&str, usize)> {
    let close = inner.find('}')?;
    let name = &inner[..close];
    is_name(name).then_some((name, close + 2))
}

/// A variable name: letters, digits, `_`, `-` and `.`, starting with a letter or `_`.
fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::{Piece, fill, placeholders};

    #[test]
    fn all_three_spellings_are_read_once_each_in_order() {
        let text = "Hallo {{customer_name}}, hier ist Lisa von {{ firma }}. \
                    Ihr Termin am {termin} – {{customer_name}}, passt {termin}?";
        assert_eq!(placeholders(text), ["customer_name", "firma", "termin"]);
    }

    #[test]
    fn braces_that_hold_no_name_are_not_placeholders() {
        let text = r#"Answer as JSON: {"ok": true}. {{ }} {a b} {} {{1x}} {{ straße }}"#;
        assert_eq!(placeholders(text), ["straße"]);
        assert!(placeholders("no braces at all").is_empty());
        assert!(placeholders("{{unclosed").is_empty());
    }

    #[test]
    fn filling_keeps_the_words_and_leaves_a_gap_where_nothing_fills() {
        let text = "Hallo {{ customer_name }}, hier ist Lisa von {firma}. {{ort}}";
        let value = |name: &str| match name {
            "firma" => Some("Muster GmbH".to_string()),
            "ort" => Some(" ".to_string()),
            _ => None,
        };
        assert_eq!(
            fill(text, value),
            [
                Piece::Said("Hallo ".into()),
                Piece::Gap("customer_name".into()),
                Piece::Said(", hier ist Lisa von Muster GmbH. ".into()),
                Piece::Gap("ort".into()),
            ]
        );
        assert_eq!(fill("no placeholder", |_| None), [Piece::Said("no placeholder".into())]);
        assert!(fill("", |_| None).is_empty());
    }
}

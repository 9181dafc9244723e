//! Placeholders in an assistant's texts: `{{name}}`, `{{ name }}` and `{name}`.
//!
//! The service's prompts write `{{name}}`; people also write `{{ name }}` and, from other
//! template languages, `{name}`. A single-brace placeholder counts only around a bare name, so
//! a JSON example in a system prompt (`{"ok": true}`) is not taken for one.

/// The names a text's placeholders use, in order of first appearance, each once.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open..];
        let (name, used) = match after.strip_prefix("{{") {
            Some(inner) => (double_braced(inner), 2),
            None => (single_braced(&after[1..]), 1),
        };
        match name {
            Some((name, len)) => {
                if !found.iter().any(|f| f == name) {
                    found.push(name.to_string());
                }
                rest = &after[len..];
            }
            None => rest = &after[used..],
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
    use super::placeholders;

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
}

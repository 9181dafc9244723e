//! The assistant that calls the leads, as far as their variables go: the placeholders its
//! initial message and system prompt use, its own variables, and (in `check`) a mapping and
//! each row judged against them.
//!
//! A lead's variable fills the placeholder of the same name; a placeholder the lead leaves
//! empty takes the assistant's own value of that variable, when it has one (see
//! docs/service-assumptions.md). So what a lead must fill is what the assistant uses and has
//! no value for: the call would otherwise open with a gap, or the placeholder read aloud.

mod check;
mod placeholders;
mod propose;
mod spoken;
mod template;

use indexmap::IndexMap;
use serde::Serialize;

pub use check::{AssistantCheck, Unfilled};

use crate::mapping::AssistantRef;
pub use placeholders::{Piece, fill, placeholders};
pub use propose::{Unmatched, propose};
pub use spoken::Spoken;
pub use template::{
    PHONE_COLUMN, SECONDARY_PHONE_COLUMN, TemplateError, template_columns, write_template,
};

/// Where an assistant uses a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Text {
    InitialMessage,
    SystemPrompt,
    /// Its own `variables`, with an empty value: the assistant expects the lead to bring one.
    Variables,
}

impl Text {
    /// As a sentence names it: `the initial message`.
    pub fn label(self) -> &'static str {
        match self {
            Text::InitialMessage => "the initial message",
            Text::SystemPrompt => "the system prompt",
            Text::Variables => "the assistant's variables (without a value)",
        }
    }
}

/// An assistant's variables and the texts that use them, from the service's record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Speaker {
    pub id: u64,
    pub name: String,
    /// Its custom variables with their values, as the service lists them.
    pub variables: IndexMap<String, String>,
    pub initial_message: String,
    pub system_prompt: String,
}

/// A variable the assistant uses, what uses it, and its own value (empty when it has none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Use {
    pub name: String,
    pub used_by: Vec<Text>,
    pub value: String,
}

impl Use {
    /// Whether a lead must bring it: the assistant has no value to fall back on.
    pub fn needs_lead(&self) -> bool {
        self.value.trim().is_empty()
    }

    /// `the initial message and the system prompt`.
    pub fn used_by_label(&self) -> String {
        let labels: Vec<&str> = self.used_by.iter().map(|t| t.label()).collect();
        labels.join(" and ")
    }

    /// `{{firma}}` for a placeholder, `firma` for a variable no text names.
    pub fn written(&self) -> String {
        match self.used_by.iter().all(|t| *t == Text::Variables) {
            true => format!("`{}`", self.name),
            false => format!("`{{{{{}}}}}`", self.name),
        }
    }
}

impl Speaker {
    /// `Outbound Sales` (id 2).
    pub fn title(&self) -> String {
        format!("`{}` (id {})", self.name, self.id)
    }

    /// The placeholders `text` uses.
    pub fn placeholders(&self, text: Text) -> Vec<String> {
        match text {
            Text::InitialMessage => placeholders(&self.initial_message),
            Text::SystemPrompt => placeholders(&self.system_prompt),
            Text::Variables => Vec::new(),
        }
    }

    /// Every variable it uses: the initial message's placeholders, then the system prompt's,
    /// then its variables without a value that no text names.
    pub fn uses(&self) -> Vec<Use> {
        let mut uses: Vec<Use> = Vec::new();
        let mut add = |name: &str, text: Text| match uses.iter_mut().find(|u| u.name == name) {
            Some(known) if !known.used_by.contains(&text) => known.used_by.push(text),
            Some(_) => {}
            None => uses.push(Use {
                name: name.to_string(),
                used_by: vec![text],
                value: self.variables.get(name).cloned().unwrap_or_default(),
            }),
        };
        for text in [Text::InitialMessage, Text::SystemPrompt] {
            for name in self.placeholders(text) {
                add(&name, text);
            }
        }
        for (name, value) in &self.variables {
            if value.trim().is_empty() {
                add(name, Text::Variables);
            }
        }
        uses
    }

    /// What `assistants show` tells: every variable it uses or has, and the placeholders of
    /// each text.
    pub fn overview(&self) -> Overview {
        let mut variables = self.uses();
        for (name, value) in &self.variables {
            if !variables.iter().any(|u| &u.name == name) {
                variables.push(Use {
                    name: name.clone(),
                    used_by: Vec::new(),
                    value: value.clone(),
                });
            }
        }
        Overview {
            id: self.id,
            name: self.name.clone(),
            variables: variables.into_iter().map(Variable::from).collect(),
            initial_message: TextOverview {
                placeholders: self.placeholders(Text::InitialMessage),
                text: self.initial_message.clone(),
            },
            system_prompt: TextOverview {
                placeholders: self.placeholders(Text::SystemPrompt),
                text: self.system_prompt.clone(),
            },
        }
    }

    /// Whether the assistant knows `name` at all: a placeholder or one of its variables.
    pub fn knows(&self, name: &str) -> bool {
        self.variables.contains_key(name)
            || [Text::InitialMessage, Text::SystemPrompt]
                .iter()
                .any(|&t| self.placeholders(t).iter().any(|p| p == name))
    }
}

/// An assistant's variables and texts, for people and scripts (`assistants show`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Overview {
    pub id: u64,
    pub name: String,
    /// What it uses (placeholders, then variables without a value), then its other variables.
    pub variables: Vec<Variable>,
    pub initial_message: TextOverview,
    pub system_prompt: TextOverview,
}

/// One variable of [`Overview`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Variable {
    pub name: String,
    /// The assistant's own value; empty when it has none.
    pub value: String,
    /// The texts that use it; `variables` for one of its variables without a value.
    pub used_by: Vec<Text>,
    /// Whether each lead must bring it: used, and no value of the assistant's to fall back on.
    pub from_lead: bool,
}

impl From<Use> for Variable {
    fn from(used: Use) -> Variable {
        let from_lead = !used.used_by.is_empty() && used.needs_lead();
        Variable { name: used.name, value: used.value, used_by: used.used_by, from_lead }
    }
}

/// A text and the placeholders it uses, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextOverview {
    pub text: String,
    pub placeholders: Vec<String>,
}

/// No assistant, or several, answer to what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotFound {
    #[error("no assistant `{asked}` on the account; its assistants are: {}", list(known))]
    Unknown { asked: String, known: Vec<String> },
    #[error("several assistants are named `{asked}` (ids {}): use the id", ids.join(", "))]
    Ambiguous { asked: String, ids: Vec<String> },
}

fn list(known: &[String]) -> String {
    match known.is_empty() {
        true => "none".to_string(),
        false => known.join(", "),
    }
}

/// The assistant `asked` names among `all`: by id, else by name (trimmed, any case).
pub fn pick(all: Vec<Speaker>, asked: &AssistantRef) -> Result<Speaker, NotFound> {
    let text = asked.as_text();
    let key = text.trim().to_lowercase();
    let by_id = |s: &Speaker| matches!(asked, AssistantRef::Id(id) if s.id == *id);
    if let Some(found) = all.iter().position(by_id) {
        return Ok(all.into_iter().nth(found).expect("a found position"));
    }
    let mut named: Vec<Speaker> =
        all.iter().filter(|s| s.name.trim().to_lowercase() == key).cloned().collect();
    match named.len() {
        1 => Ok(named.remove(0)),
        0 => Err(NotFound::Unknown {
            asked: text,
            known: all.iter().take(10).map(Speaker::title).collect(),
        }),
        _ => Err(NotFound::Ambiguous {
            asked: text,
            ids: named.iter().map(|s| s.id.to_string()).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lisa() -> Speaker {
        Speaker {
            id: 3,
            name: "Lisa".into(),
            variables: [("firma", "Muster GmbH"), ("vertragsende", ""), ("ton", "")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            initial_message: "Hallo {{customer_name}}, hier ist Lisa von {{firma}}.".into(),
            system_prompt: "Sprich {{ customer_name }} an; der Vertrag endet {vertragsende}."
                .into(),
        }
    }

    #[test]
    fn uses_name_every_text_and_fall_back_on_the_assistants_values() {
        let uses = lisa().uses();
        let seen: Vec<(&str, Vec<Text>, bool)> =
            uses.iter().map(|u| (u.name.as_str(), u.used_by.clone(), u.needs_lead())).collect();
        assert_eq!(
            seen,
            [
                ("customer_name", vec![Text::InitialMessage, Text::SystemPrompt], true),
                ("firma", vec![Text::InitialMessage], false),
                ("vertragsende", vec![Text::SystemPrompt, Text::Variables], true),
                ("ton", vec![Text::Variables], true),
            ]
        );
        assert_eq!(uses[0].written(), "`{{customer_name}}`");
        assert_eq!(uses[3].written(), "`ton`");
        assert!(lisa().knows("firma") && lisa().knows("customer_name") && !lisa().knows("kunde"));
    }

    #[test]
    fn an_assistant_is_picked_by_id_or_by_name() {
        let other = Speaker { id: 9, name: "Max".into(), ..Speaker::default() };
        let all = || vec![lisa(), other.clone()];
        assert_eq!(pick(all(), &AssistantRef::Id(9)).unwrap().name, "Max");
        assert_eq!(pick(all(), &AssistantRef::Name(" lisa ".into())).unwrap().id, 3);
        let unknown = pick(all(), &AssistantRef::Name("Lena".into())).unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "no assistant `Lena` on the account; its assistants are: `Lisa` (id 3), `Max` (id 9)"
        );
        let twins = vec![lisa(), Speaker { id: 4, ..lisa() }];
        assert!(matches!(
            pick(twins, &AssistantRef::Name("Lisa".into())),
            Err(NotFound::Ambiguous { .. })
        ));
    }
}

//! `init --assistant`: the mapping's variables are the assistant's, each matched to a column
//! of the sheet by the names the inference knows (six languages), by its own name, or by a
//! close spelling; one no column matches is left for a person to name.

use indexmap::IndexMap;

use super::{Speaker, Use};
use crate::mapping::{AssistantRef, Columns, MappingFile, snake_case};

/// How alike a header must be to a variable's name to be taken for it (`Vertragsende` for
/// `vertrags_ende`, not `Vertrag` for `vertragsende`'s neighbour).
const CLOSE_SPELLING: f64 = 0.9;

/// A variable of the assistant no column matched, and why it matters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmatched {
    pub name: String,
    pub note: String,
}

/// `inferred` with the assistant's variables for its own: matched ones mapped, the rest
/// returned to be written commented. Nothing else is carried along, so every variable sent
/// is one the assistant uses.
pub fn propose(
    speaker: &Speaker,
    inferred: &MappingFile,
    headers: &[String],
) -> (MappingFile, Vec<Unmatched>) {
    let mut variables: IndexMap<String, Columns> = IndexMap::new();
    let mut unmatched = Vec::new();
    for used in speaker.uses().into_iter().chain(valued_unused(speaker)) {
        match column_for(&used.name, inferred, headers, &variables) {
            Some(columns) => {
                variables.insert(used.name, columns);
            }
            None if used.needs_lead() => unmatched.push(Unmatched {
                note: format!("used by {}; no column matched: name one", used.used_by_label()),
                name: used.name,
            }),
            None => {}
        }
    }
    let file = MappingFile {
        variables,
        carry_unmapped: false,
        assistant: Some(AssistantRef::Id(speaker.id)),
        ..inferred.clone()
    };
    (file, unmatched)
}

/// The assistant's variables with a value that no text names: a column may still fill them.
fn valued_unused(speaker: &Speaker) -> Vec<Use> {
    let used: Vec<String> = speaker.uses().into_iter().map(|u| u.name).collect();
    speaker
        .variables
        .iter()
        .filter(|(name, _)| !used.contains(name))
        .map(|(name, value)| Use { name: name.clone(), used_by: Vec::new(), value: value.clone() })
        .collect()
}

/// The column(s) for `name`: what the inference made of it, a header of its very name, else
/// the closest spelling among the headers not taken yet.
fn column_for(
    name: &str,
    inferred: &MappingFile,
    headers: &[String],
    taken: &IndexMap<String, Columns>,
) -> Option<Columns> {
    if let Some(columns) = inferred.variables.get(name) {
        return Some(columns.clone());
    }
    let wanted = snake_case(name);
    let in_use = |h: &str| {
        taken.values().any(|c| c.headers().contains(&h))
            || inferred.phone.as_ref().is_some_and(|p| p.headers().contains(&h))
            || inferred.campaign_column.as_deref() == Some(h)
    };
    let free = headers.iter().filter(|h| !in_use(h));
    let (score, header) = free
        .map(|h| (strsim::jaro_winkler(&snake_case(h), &wanted), h))
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    (score >= CLOSE_SPELLING).then(|| Columns::One(header.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_german_sheet_gets_the_assistants_variables() {
        let speaker = Speaker {
            id: 5,
            name: "Lisa".into(),
            variables: [("firma", "Muster GmbH"), ("vertragsende", ""), ("tarif", "")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            initial_message: "Hallo {{customer_name}} von {{firma}}, bis {vertragsende}?".into(),
            system_prompt: String::new(),
        };
        let headers: Vec<String> = ["Telefonnummer", "Vorname", "Nachname", "Vertrags-Ende", "Ort"]
            .map(String::from)
            .to_vec();
        let (inferred, _) = crate::mapping::infer(&headers);
        let (file, unmatched) = propose(&speaker, &inferred, &headers);
        assert_eq!(
            file.variables.get("customer_name"),
            Some(&Columns::Joined(vec!["Vorname".into(), "Nachname".into()]))
        );
        assert_eq!(file.variables.get("vertragsende"), Some(&Columns::One("Vertrags-Ende".into())));
        assert!(!file.variables.contains_key("firma"), "the assistant's value stands");
        assert_eq!(file.variables.len(), 2, "{:?}", file.variables);
        assert_eq!(unmatched.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(), ["tarif"]);
        assert_eq!((file.assistant, file.carry_unmapped), (Some(AssistantRef::Id(5)), false));
    }
}

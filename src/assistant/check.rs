//! A mapping and each row judged against the assistant that calls the leads.
//!
//! Before any row is read, every variable the assistant needs from a lead must have something
//! to fill it (a column or a constant): a placeholder nothing fills opens every call with a
//! gap, one refusal beats a thousand row errors. A variable the mapping sends that the
//! assistant never uses is worth a note (a misspelt `kunde` for `customer_name`), no more.
//! Then each row: a needed variable its cells leave empty is `missing_variable`.

use super::{Speaker, Text, Use};
use crate::mapping::{MissingVariables, Plan, snake_case};
use crate::row::{AssistantText, Issue, IssueCode, RowReport, Said, intern};

/// The placeholders nothing fills, one line each: the run is refused before any row is read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .lines.join("\n"))]
pub struct Unfilled {
    pub lines: Vec<String>,
}

/// What each row is judged by: the variables a lead must fill, and what the assistant does
/// with each.
#[derive(Debug, Clone)]
pub struct AssistantCheck {
    needed: Vec<Needed>,
    severity: MissingVariables,
}

#[derive(Debug, Clone)]
struct Needed {
    name: &'static str,
    /// Why it is needed, for the row's message: the texts that say it, and the assistant.
    reason: Said,
}

/// How alike a column's name must be to a variable's to be proposed for it.
const CLOSE: f64 = 0.8;

impl AssistantCheck {
    /// The check of `plan`'s rows against `speaker`, and the notes for people (variables sent
    /// that it never uses); `Unfilled` when a variable it needs has nothing to fill it.
    pub fn new(
        speaker: &Speaker,
        plan: &Plan,
        headers: &[String],
        severity: MissingVariables,
    ) -> Result<(AssistantCheck, Vec<String>), Unfilled> {
        let sent = sent_names(plan);
        let needed: Vec<Use> = speaker.uses().into_iter().filter(Use::needs_lead).collect();
        let lines: Vec<String> = needed
            .iter()
            .filter(|u| !sent.contains(&u.name.as_str()))
            .map(|u| unfilled_line(u, headers))
            .collect();
        if !lines.is_empty() {
            return Err(Unfilled { lines });
        }
        let needed = needed
            .iter()
            .map(|u| Needed { name: intern(&u.name), reason: needed_reason(u, speaker) })
            .collect();
        Ok((AssistantCheck { needed, severity }, unused_notes(speaker, &sent)))
    }

    /// Adds `missing_variable` to `report` for each needed variable its row left empty: an
    /// error, or a warning under `missing_variables = "warn"`.
    pub fn judge(&self, report: &mut RowReport) {
        for needed in &self.needed {
            if report.variables.get(needed.name).is_some_and(|v| !v.trim().is_empty()) {
                continue;
            }
            let issue = Issue::said(
                IssueCode::MissingVariable,
                Some(needed.name.to_string()),
                needed.reason.clone(),
            );
            match self.severity {
                MissingVariables::Error => report.errors.push(issue),
                MissingVariables::Warn => report.warnings.push(issue),
            }
        }
    }
}

/// The names every lead is sent with: the mapping's variables and constants.
fn sent_names(plan: &Plan) -> Vec<&'static str> {
    let columns = plan.variables.iter().map(|(name, _)| *name);
    columns.chain(plan.constants.iter().map(|(name, _)| *name)).collect()
}

/// The row message's words for a variable `speaker` needs: the texts that say it (`the
/// initial message says `{{firma}}``), or the assistant that lists it without a value.
fn needed_reason(used: &Use, speaker: &Speaker) -> Said {
    let texts = used
        .used_by
        .iter()
        .filter_map(|text| match text {
            Text::InitialMessage => Some(AssistantText::InitialMessage),
            Text::SystemPrompt => Some(AssistantText::SystemPrompt),
            Text::Variables => None,
        })
        .collect();
    Said::MissingVariable {
        name: used.name.clone(),
        texts,
        assistant: speaker.name.clone(),
        assistant_id: speaker.id,
    }
}

/// "`{{firma}}` is used by the initial message, but nothing fills it: map a column to it, e.g.
/// `firma = "Firma"`".
fn unfilled_line(used: &Use, headers: &[String]) -> String {
    let what = match used.used_by.iter().all(|t| *t == Text::Variables) {
        true => format!("`{}` is a variable of the assistant without a value", used.name),
        false => format!("{} is used by {}", used.written(), used.used_by_label()),
    };
    let close = closest_columns(&used.name, headers);
    let fix = match close.split_first() {
        Some((best, others)) => {
            let also = match others {
                [] => String::new(),
                others => format!(
                    " (close too: {})",
                    others.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
                ),
            };
            format!("map a column to it, e.g. `{} = \"{best}\"`{also}", used.name)
        }
        None => format!(
            "map a column to it under [variables] (`{} = \"Column\"`) or give it a value under [constants]; the columns are: {}",
            used.name,
            headers.iter().take(12).map(|h| format!("`{h}`")).collect::<Vec<_>>().join(", ")
        ),
    };
    format!("{what}, but nothing fills it: {fix}")
}

/// Up to three headers whose names are close to `name`, closest first.
fn closest_columns<'h>(name: &str, headers: &'h [String]) -> Vec<&'h str> {
    let wanted = snake_case(name);
    let mut scored: Vec<(f64, &str)> = headers
        .iter()
        .map(|h| (strsim::jaro_winkler(&snake_case(h), &wanted), h.as_str()))
        .filter(|(score, _)| *score >= CLOSE)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(3).map(|(_, h)| h).collect()
}

/// One note per variable sent that the assistant never uses, with the name it perhaps meant.
fn unused_notes(speaker: &Speaker, sent: &[&'static str]) -> Vec<String> {
    let known: Vec<String> = speaker.uses().into_iter().map(|u| u.name).collect();
    sent.iter()
        .filter(|name| !speaker.knows(name))
        .map(|name| {
            let meant = known
                .iter()
                .map(|k| (strsim::jaro_winkler(k, name), k))
                .filter(|(score, _)| *score >= CLOSE)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, k)| format!(" (did you mean `{k}`?)"))
                .unwrap_or_default();
            format!(
                "`{name}` is sent with every lead, but the assistant {} never uses it{meant}",
                speaker.title()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::MappingFile;

    fn speaker() -> Speaker {
        Speaker {
            id: 7,
            name: "Lisa".into(),
            variables: [("firma".to_string(), "Muster GmbH".to_string())].into_iter().collect(),
            initial_message: "Hallo {{customer_name}}, hier ist Lisa von {{firma}}.".into(),
            system_prompt: "Der Vertrag endet {vertragsende}.".into(),
        }
    }

    fn plan(toml: &str, headers: &[String]) -> Plan {
        MappingFile::parse(toml).unwrap().resolve(headers, "leads.csv").unwrap()
    }

    fn headers() -> Vec<String> {
        ["Telefon", "Name", "Vertragsende", "Kunde"].map(String::from).to_vec()
    }

    #[test]
    fn a_placeholder_nothing_fills_is_refused_with_the_closest_column() {
        let toml = "phone = \"Telefon\"\ncampaign = 1\n[variables]\ncustomer_name = \"Name\"\n";
        let err = AssistantCheck::new(
            &speaker(),
            &plan(toml, &headers()),
            &headers(),
            MissingVariables::Error,
        )
        .unwrap_err();
        assert_eq!(
            err.lines,
            [
                "`{{vertragsende}}` is used by the system prompt, but nothing fills it: map a column to it, e.g. `vertragsende = \"Vertragsende\"`"
            ]
        );
    }

    #[test]
    fn rows_missing_a_needed_variable_and_unused_variables_are_named() {
        let toml = "phone = \"Telefon\"\ncampaign = 1\n[variables]\ncustomer_name = \"Name\"\n\
                    vertragsende = \"Vertragsende\"\nkunde = \"Kunde\"\n";
        let (check, notes) = AssistantCheck::new(
            &speaker(),
            &plan(toml, &headers()),
            &headers(),
            MissingVariables::Warn,
        )
        .unwrap();
        assert_eq!(
            notes,
            ["`kunde` is sent with every lead, but the assistant `Lisa` (id 7) never uses it"]
        );
        let mut report = RowReport::blank(2, crate::row::RowStatus::Valid);
        report.variables.insert_named("vertragsende", "31.12.");
        check.judge(&mut report);
        let messages: Vec<&str> = report.warnings.iter().map(|i| i.message.as_str()).collect();
        assert_eq!(
            messages,
            ["`customer_name` is empty, but the initial message says `{{customer_name}}`"]
        );
        assert!(report.errors.is_empty(), "warn mode only warns");
    }
}

//! The assistant's first message as one lead would hear it: each placeholder filled from the
//! lead's variables, else from the assistant's own value, else left as a visible gap. Shown
//! before the calls (the HTML report, the terminal with `-v`) so a person hears the call
//! before a lead does.

use std::fmt;

use serde::Serialize;

use super::Speaker;
use super::placeholders::{Piece, fill};

/// The first message filled in for the row `row` of the sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Spoken {
    pub row: u64,
    pub pieces: Vec<Piece>,
}

impl Spoken {
    /// The variables nothing filled, in the order the message says them.
    pub fn gaps(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Gap(name) => Some(name.as_str()),
            Piece::Said(_) => None,
        })
    }
}

/// As plain text: `Hallo [missing: customer_name], hier ist Lisa von Muster GmbH.`
impl fmt::Display for Spoken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in &self.pieces {
            match piece {
                Piece::Said(words) => f.write_str(words)?,
                Piece::Gap(name) => write!(f, "[missing: {name}]")?,
            }
        }
        Ok(())
    }
}

impl Speaker {
    /// Its initial message for row `row`, whose variables `lead` gives: a lead's value wins,
    /// as on the service, and the assistant's own fills what the lead leaves empty.
    pub fn first_message<'v>(&self, row: u64, lead: impl Fn(&str) -> Option<&'v str>) -> Spoken {
        let value = |name: &str| {
            let own = self.variables.get(name).map(String::as_str);
            [lead(name), own].into_iter().flatten().find(|v| !v.trim().is_empty()).map(String::from)
        };
        Spoken { row, pieces: fill(&self.initial_message, value) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lead_fills_first_then_the_assistant_and_a_gap_is_said_as_missing() {
        let lisa = Speaker {
            name: "Lisa".into(),
            variables: [("firma".to_string(), "Muster GmbH".to_string())].into_iter().collect(),
            initial_message: "Hallo {{customer_name}}, hier ist Lisa von {{firma}}.".into(),
            ..Speaker::default()
        };
        let anna = lisa.first_message(2, |n| (n == "customer_name").then_some("Anna Becker"));
        assert_eq!(anna.to_string(), "Hallo Anna Becker, hier ist Lisa von Muster GmbH.");
        let other = lisa.first_message(3, |n| (n == "firma").then_some("Beispiel AG"));
        assert_eq!(
            other.to_string(),
            "Hallo [missing: customer_name], hier ist Lisa von Beispiel AG."
        );
        assert_eq!(other.gaps().collect::<Vec<_>>(), ["customer_name"]);
    }
}

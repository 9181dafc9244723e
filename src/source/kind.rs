//! What kind of value a cell holds, as a person reading the sheet would tell: a word, a number,
//! a date, a phone number, a yes or a no. Header sniffing asks it of the rows it looks ahead at
//! (a header names columns with words, the rows below hold values), and the mapping inference
//! asks it of the first data rows (a column of `ja`/`nein` is consent, never a phone).
//!
//! The tests are cheap character scans, no parsing: they run on a dozen rows per file, and a
//! wrong kind only weakens one column's evidence, it never decides alone.

/// "Yes" as a form, a CRM or a person writes it, in the six languages headers are read in.
pub const YES_WORDS: &[&str] = &[
    "yes", "y", "ja", "j", "oui", "si", "sí", "sì", "x", "1", "true", "wahr", "vrai", "opt-in",
    "✓", "✔",
];
/// "No" in the same languages (Dutch `nee`, German `falsch`, French `faux`).
pub const NO_WORDS: &[&str] =
    &["no", "n", "nein", "non", "nee", "0", "false", "falsch", "faux", "opt-out", "✗", "✘"];

/// The kind of a cell's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellKind {
    Empty,
    /// Words: a name, a city, a column name.
    Text,
    Number,
    Date,
    Phone,
    YesNo,
    /// Neither words nor a value: `-`, `#`, `***`.
    Symbol,
}

/// The kind of `cell`, ignoring surrounding space.
pub fn kind_of(cell: &str) -> CellKind {
    let text = cell.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if text.is_empty() {
        CellKind::Empty
    } else if is_yes_no(text) {
        CellKind::YesNo
    } else if is_date(text) {
        CellKind::Date
    } else if text.chars().any(char::is_alphabetic) {
        CellKind::Text
    } else if is_phone(text) {
        CellKind::Phone
    } else if is_number(text) {
        CellKind::Number
    } else {
        CellKind::Symbol
    }
}

/// A yes or a no in one of the six languages, without case or surrounding space.
pub fn is_yes_no(cell: &str) -> bool {
    let folded = cell.trim().to_lowercase();
    YES_WORDS.contains(&folded.as_str()) || NO_WORDS.contains(&folded.as_str())
}

/// `25.11.2024`, `2024-03-01`, `11/2024`, `25.11.24 08:14`, `2024-03-01T10:30:00`: a day, month
/// and year (or a month and a four-digit year), with a time or not; or a time alone (`08:14`).
fn is_date(text: &str) -> bool {
    if text.contains(':') && text.chars().all(|c| c.is_ascii_digit() || c == ':') {
        return true;
    }
    let day = text.split([' ', 'T']).next().unwrap_or(text);
    let parts: Vec<&str> = day.split(['.', '/', '-']).collect();
    let digits = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !parts.iter().all(digits) {
        return false;
    }
    let short = |p: &&&str| p.len() <= 2;
    let years = parts.iter().filter(|p| p.len() == 4).count();
    let date = match parts.len() {
        2 => years == 1 && parts.iter().filter(short).count() == 1,
        3 => parts.iter().filter(short).count() + years == 3 && years <= 1,
        _ => false,
    };
    let time = &text[day.len()..];
    date && time.chars().all(|c| c.is_ascii_digit() || matches!(c, ':' | '.' | ' ' | 'T'))
}

/// Seven to fifteen digits, written the ways numbers are (`+49 151 2345678`, `030/123456`).
fn is_phone(text: &str) -> bool {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    (7..=15).contains(&digits)
        && text.chars().all(|c| c.is_ascii_digit() || "+-()/. ".contains(c))
        && !text.contains(',')
}

/// `10023`, `-12.5`, `1.200,50`, `35 %`, `99 €`.
fn is_number(text: &str) -> bool {
    let body = text.trim_start_matches(['-', '+']).trim_end_matches(['%', '€', '$', '£', ' ']);
    body.chars().any(|c| c.is_ascii_digit())
        && body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '\'' | ' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_told_apart_as_a_person_reads_them() {
        for (cell, kind) in [
            ("", CellKind::Empty),
            ("  ", CellKind::Empty),
            ("Kunden-Nr", CellKind::Text),
            ("Umsatz 2024", CellKind::Text),
            ("Exportiert am:", CellKind::Text),
            ("0151 CALL ME", CellKind::Text),
            ("10023", CellKind::Number),
            ("2024", CellKind::Number),
            ("-12.5", CellKind::Number),
            ("1.200,50", CellKind::Number),
            ("35 %", CellKind::Number),
            ("25.11.2024", CellKind::Date),
            ("25.11.2024 08:14", CellKind::Date),
            ("2024-03-01T10:30:00", CellKind::Date),
            ("11/2024", CellKind::Date),
            ("1.2.24", CellKind::Date),
            ("08:14", CellKind::Date),
            ("+49 151 23456789", CellKind::Phone),
            ("030/1234567", CellKind::Phone),
            ("0151-23456789", CellKind::Phone),
            ("4915112345678", CellKind::Phone),
            (" Ja ", CellKind::YesNo),
            ("nein", CellKind::YesNo),
            ("X", CellKind::YesNo),
            ("0", CellKind::YesNo),
            ("-", CellKind::Symbol),
        ] {
            assert_eq!(kind_of(cell), kind, "{cell:?}");
        }
    }

    #[test]
    fn yes_and_no_words_are_each_other_s_strangers() {
        for yes in YES_WORDS {
            assert!(!NO_WORDS.contains(yes), "{yes}");
            assert_eq!(kind_of(&yes.to_uppercase()), CellKind::YesNo, "{yes}");
        }
    }
}

//! Suppression (do-not-call) lists: files of numbers that must never be called.
//!
//! A list is any file the sources read (CSV, TSV, TXT, XLSX, ODS, ...): the phone-like column,
//! else the first; a first row that is itself a number is an entry, not a header. Entries are
//! normalized with the sheet's parser and default region and kept as a sorted `Vec<u64>` of
//! E.164 digits: 8 bytes a number, so a 10-million-number registry costs 80 MB and a lookup is
//! a binary search. An entry ending in `*` is a prefix (`+49900*`, or `0900*` in the default
//! region).

use std::path::Path;

use crate::phone::PhoneParser;
use crate::row::{IssueCode, Said};
use crate::source::{Source, SourceError, SourceOptions};

/// One loaded list.
#[derive(Debug, Clone, Default)]
pub struct SuppressionList {
    /// The list as the user named it, for the reports.
    pub name: String,
    numbers: Vec<u64>,
    /// E.164 digit prefixes, sorted.
    prefixes: Vec<String>,
    /// Entries that are no number, with the row of the first few, for one warning.
    pub unreadable: u64,
    pub unreadable_rows: Vec<u64>,
}

/// Rows named in the "could not read" warning.
const ROWS_NAMED: usize = 5;

#[derive(Debug, thiserror::Error)]
pub enum SuppressError {
    #[error("the suppression list {0}")]
    Source(#[from] SourceError),
}

impl SuppressionList {
    /// Reads `path` (named `name` in messages) with `phones` for numbers without a country code.
    pub fn load(path: &Path, name: &str, phones: &PhoneParser) -> Result<Self, SuppressError> {
        let opts = SourceOptions { header_row: Some(1), ..SourceOptions::default() };
        let source = Source::open_named(path, name, &opts)?;
        let mut list = SuppressionList { name: name.to_string(), ..SuppressionList::default() };
        let column = list_column(&source.headers);
        let first = source.headers.get(column).cloned().unwrap_or_default();
        if looks_like_a_number(&first) {
            list.add(&first, source.header_row, phones);
        }
        for record in source.records() {
            let record = record?;
            // A number is read from its stored digits, not from how a format shows it.
            let cell = record.stored_number(column).or(record.cells.get(column));
            list.add(cell.unwrap_or(""), record.row, phones);
        }
        list.numbers.sort_unstable();
        list.numbers.dedup();
        list.numbers.shrink_to_fit();
        list.prefixes.sort_unstable();
        list.prefixes.dedup();
        Ok(list)
    }

    fn add(&mut self, cell: &str, row: u64, phones: &PhoneParser) {
        let text = cell.trim();
        if text.is_empty() {
            return;
        }
        let parsed = match text.strip_suffix('*') {
            Some(prefix) => prefix_digits(prefix, phones).map(|p| self.prefixes.push(p)),
            None => e164_key(text, phones).map(|key| self.numbers.push(key)),
        };
        if parsed.is_none() {
            self.unreadable += 1;
            if self.unreadable_rows.len() < ROWS_NAMED {
                self.unreadable_rows.push(row);
            }
        }
    }

    /// Whether the number with E.164 digits `key` (`digits` as text) is on this list.
    fn contains(&self, key: u64, digits: &str) -> bool {
        self.numbers.binary_search(&key).is_ok() || self.has_prefix_of(digits)
    }

    fn has_prefix_of(&self, digits: &str) -> bool {
        if self.prefixes.is_empty() {
            return false;
        }
        (1..=digits.len())
            .any(|len| self.prefixes.binary_search_by(|p| p.as_str().cmp(&digits[..len])).is_ok())
    }

    pub fn len(&self) -> usize {
        self.numbers.len() + self.prefixes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Every list of a run.
#[derive(Debug, Clone, Default)]
pub struct Suppression {
    pub lists: Vec<SuppressionList>,
}

impl Suppression {
    /// The first list that holds `e164` (`+4915112345678`).
    pub fn list_of(&self, e164: &str) -> Option<&str> {
        if self.lists.is_empty() {
            return None;
        }
        let digits = e164.trim_start_matches('+');
        let key = digits.parse::<u64>().ok()?;
        self.lists.iter().find(|l| l.contains(key, digits)).map(|l| l.name.as_str())
    }
}

/// On a suppression list (or the account's do-not-call list): not called, by design.
impl super::Guard for Suppression {
    fn refuse_number(&self, phone: &crate::phone::Phone) -> Option<super::Refusal> {
        let list = self.list_of(&phone.e164)?.to_string();
        let e164 = phone.e164.clone();
        let secondary = Said::SuppressedSecondary { e164: e164.clone(), list: list.clone() };
        Some(super::Refusal {
            skip: true,
            main: (IssueCode::Suppressed, Said::Suppressed { e164, list }),
            secondary: (IssueCode::SuppressedSecondary, secondary),
        })
    }
}

/// The phone-like column by its header, else the first.
fn list_column(headers: &[String]) -> usize {
    let (file, _) = crate::mapping::infer(headers);
    let phone = file.phone.as_ref().and_then(|p| p.first());
    phone.and_then(|p| headers.iter().position(|h| h == p)).unwrap_or(0)
}

/// A first row that is itself an entry: mostly digits, or a prefix.
fn looks_like_a_number(text: &str) -> bool {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    digits >= 3 && digits * 2 >= text.chars().filter(|c| !c.is_whitespace()).count()
}

/// An entry's E.164 digits as a number. `+` and 8–15 digits is already E.164 and skips the
/// parser: a national registry in international form loads at reading speed.
fn e164_key(text: &str, phones: &PhoneParser) -> Option<u64> {
    if let Some(digits) = text.strip_prefix('+')
        && (8..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
    {
        return digits.parse().ok();
    }
    phones.parse(text).ok().map(|phone| phone.key())
}

/// A prefix entry as E.164 digits: `+49900` and `0049900` as written; `0900` (or `900`) in
/// the default region, its trunk zero dropped.
fn prefix_digits(text: &str, phones: &PhoneParser) -> Option<String> {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    let written = text.trim_start();
    let international = if written.starts_with('+') {
        digits
    } else if let Some(rest) = digits.strip_prefix("00") {
        rest.to_string()
    } else {
        let national = digits.strip_prefix('0').unwrap_or(&digits);
        format!("{}{national}", phones.country_code())
    };
    (!international.is_empty() && international.len() <= 15).then_some(international)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn de() -> PhoneParser {
        PhoneParser::new("DE").unwrap()
    }

    fn load(text: &str, name: &str) -> SuppressionList {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        SuppressionList::load(&path, name, &de()).unwrap()
    }

    fn from_e164(name: &str, numbers: &[u64]) -> SuppressionList {
        let mut list = SuppressionList { name: name.to_string(), ..SuppressionList::default() };
        list.numbers = numbers.to_vec();
        list.numbers.sort_unstable();
        list
    }

    fn on(list: &SuppressionList, e164: &str) -> bool {
        Suppression { lists: vec![list.clone()] }.list_of(e164).is_some()
    }

    #[test]
    fn a_plain_list_of_numbers_in_any_spelling() {
        let list = load("0151 12345678\n+49 30 1234567\n004989123456\n\n", "dnc.txt");
        assert_eq!(list.len(), 3);
        assert!(on(&list, "+4915112345678"));
        assert!(on(&list, "+49301234567"));
        assert!(on(&list, "+4989123456"));
        assert!(!on(&list, "+4915112345679"));
    }

    #[test]
    fn the_phone_column_of_a_table_and_its_header_is_no_entry() {
        let list = load("Name;Telefon\nAda;0151 12345678\nBob;0170 1234567\n", "dnc.csv");
        assert_eq!(list.len(), 2);
        assert!(on(&list, "+491701234567"));
        assert_eq!(list.unreadable, 0);
    }

    #[test]
    fn prefixes_in_international_and_national_form() {
        let list = load("+49900*\n0180*\n", "prefixes.txt");
        assert!(on(&list, "+499001234567"));
        assert!(on(&list, "+491801234567"));
        assert!(!on(&list, "+4915112345678"));
    }

    #[test]
    fn unreadable_entries_are_counted_with_their_rows() {
        let list = load("Phone\n0151 12345678\ncall me\n\nn/a\n", "dnc.csv");
        assert_eq!(list.len(), 1);
        assert_eq!(list.unreadable, 2);
        assert_eq!(list.unreadable_rows, vec![3, 5]);
    }

    #[test]
    fn the_first_list_that_holds_a_number_is_named() {
        let a = from_e164("a.csv", &[4915112345678]);
        let b = from_e164("b.csv", &[4915112345678, 491701234567]);
        let lists = Suppression { lists: vec![a, b] };
        assert_eq!(lists.list_of("+4915112345678"), Some("a.csv"));
        assert_eq!(lists.list_of("+491701234567"), Some("b.csv"));
        assert_eq!(lists.list_of("+491701234568"), None);
    }
}

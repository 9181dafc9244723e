//! Number formats of Excel 5/95 (BIFF5) files, which calamine 0.38 misreads: it reads a BIFF5
//! `Format` record's string with a 16-bit length where BIFF5 has an 8-bit one, so the first
//! character is lost. `[Red][<-25]General` then reads as `Red][<-25]General`, whose `d` makes
//! it a date format, and 50 became `1900-02-19`; `"Sales "0` lost its opening quote the same
//! way.
//!
//! The fix here finds each format whose kind (number, date, duration) calamine gets wrong and
//! points the cell styles (`XF` records) that use it at a built-in format of the right kind.
//! Only the kind matters to leadsync, which prints numbers as typed and dates as ISO. Remove
//! this when calamine reads BIFF5 format strings with their 8-bit length.

use std::collections::HashMap;

/// A number format's kind, as calamine tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Number,
    Date,
    Duration,
}

impl Kind {
    /// A built-in format of this kind, which calamine knows without a `Format` record.
    fn builtin(self) -> u16 {
        match self {
            Kind::Number => 0,
            Kind::Date => 22,
            Kind::Duration => 46,
        }
    }
}

/// The changes to the workbook stream (offset, new byte) that give every cell style a format
/// of the kind its `Format` record says; empty for BIFF8 files and when calamine reads right.
/// `records` are the globals' (type, data offset in the stream, data).
pub(super) fn fixes<'a>(
    records: impl IntoIterator<Item = (u16, usize, &'a [u8])>,
) -> Vec<(usize, u8)> {
    let mut records = records.into_iter();
    let Some((0x0809, _, bof)) = records.next() else { return Vec::new() };
    if !is_biff5(bof) {
        return Vec::new();
    }
    let mut wrong: HashMap<u16, Kind> = HashMap::new();
    let mut fixes = Vec::new();
    for (typ, at, data) in records {
        match typ {
            0x041E if data.len() >= 3 => {
                let ifmt = u16::from_le_bytes([data[0], data[1]]);
                let len = usize::from(data[2]);
                let written = latin1(data.get(3..3 + len).unwrap_or(&data[3..]));
                let truth = kind(&written);
                let read = calamine_kind(ifmt, data);
                if truth != read {
                    wrong.insert(ifmt, truth);
                }
            }
            0x00E0 if data.len() >= 4 => {
                let ifmt = u16::from_le_bytes([data[2], data[3]]);
                if let Some(kind) = wrong.get(&ifmt) {
                    let [lo, hi] = kind.builtin().to_le_bytes();
                    fixes.extend([(at + 2, lo), (at + 3, hi)]);
                }
            }
            _ => {}
        }
    }
    fixes
}

/// calamine's reading of BIFF versions from a BOF record: 5 for Excel 5/95.
fn is_biff5(bof: &[u8]) -> bool {
    let word = |at: usize| bof.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    match word(0) {
        Some(0x0500) => true,
        Some(0) => word(2) == Some(0x1000),
        _ => false,
    }
}

/// The kind calamine gives the format: from the string it reads after a 16-bit length (the
/// written string without its first character) for the ids it accepts, else by the id as a
/// built-in format.
fn calamine_kind(ifmt: u16, data: &[u8]) -> Kind {
    match ifmt {
        5..=8 | 23..=26 | 41..=44 | 63..=66 | 164..=382 => {
            kind(&latin1(&data[4.min(data.len())..]))
        }
        builtin => builtin_kind(builtin),
    }
}

/// The kind of Excel's built-in format `id` (ECMA-376 18.8.30), as calamine has them in XLS and
/// XLSX alike.
pub(super) fn builtin_kind(id: u16) -> Kind {
    match id {
        14..=22 | 27..=36 | 45 | 47 | 50..=58 => Kind::Date,
        46 => Kind::Duration,
        _ => Kind::Number,
    }
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// calamine's test for a date format (`formats::detect_custom_number_format`, MIT), so the two
/// readings are told apart by the same rule: a date token (`d m h y s`, or `AM/PM`) outside
/// quotes, brackets and escapes in the first section; `[h]`, `[m]` or `[s]` is a duration.
pub(super) fn kind(format: &str) -> Kind {
    let (mut escaped, mut is_quote, mut brackets) = (false, false, 0u8);
    let (mut prev, mut hms, mut ap) = (' ', false, false);
    for s in format.chars() {
        match (s, escaped, is_quote, ap, brackets) {
            (_, true, ..) => escaped = false,
            ('_' | '\\' | '*', ..) => escaped = true,
            ('"', _, true, _, _) => is_quote = false,
            (_, _, true, _, _) => (),
            ('"', _, _, _, _) => is_quote = true,
            (';', ..) => return Kind::Number,
            ('[', ..) => brackets += 1,
            (']', .., 1) if hms => return Kind::Duration,
            (']', ..) => brackets = brackets.saturating_sub(1),
            ('a' | 'A', _, _, false, 0) => ap = true,
            ('p' | 'm' | '/' | 'P' | 'M', _, _, true, 0) => return Kind::Date,
            ('d' | 'm' | 'h' | 'y' | 's' | 'D' | 'M' | 'H' | 'Y' | 'S', _, _, false, 0) => {
                return Kind::Date;
            }
            _ => {
                if !(hms && s.eq_ignore_ascii_case(&prev)) {
                    hms = prev == '[' && matches!(s, 'm' | 'h' | 's' | 'M' | 'H' | 'S');
                }
            }
        }
        prev = s;
    }
    Kind::Number
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A BIFF5 `Format` record's data: the id and the string with an 8-bit length.
    fn format(ifmt: u16, text: &str) -> Vec<u8> {
        let mut data = ifmt.to_le_bytes().to_vec();
        data.push(text.len() as u8);
        data.extend(text.bytes());
        data
    }

    fn xf(ifmt: u16) -> Vec<u8> {
        let mut data = vec![0, 0];
        data.extend(ifmt.to_le_bytes());
        data.extend([0; 12]);
        data
    }

    #[test]
    fn kinds_as_calamine_tells_them() {
        assert_eq!(kind("[Red][<-25]General;[Blue][>25]General"), Kind::Number);
        assert_eq!(kind("Red][<-25]General;[Blue][>25]General"), Kind::Date);
        assert_eq!(kind("yyyy-mm-dd"), Kind::Date);
        assert_eq!(kind("[h]:mm:ss"), Kind::Duration);
        assert_eq!(kind("\"Sales \"0"), Kind::Number);
        assert_eq!(kind("0.00"), Kind::Number);
    }

    #[test]
    fn styles_using_a_misread_biff5_format_get_one_of_the_right_kind() {
        let bof = [0x00, 0x05, 0x05, 0x00];
        let conditional = format(164, "[Red][<-25]General;[Blue][>25]General");
        let date = format(165, "dd/mm/yyyy");
        let (xf_conditional, xf_date) = (xf(164), xf(165));
        let records = [
            (0x0809, 0, &bof[..]),
            (0x041E, 10, &conditional[..]),
            (0x041E, 60, &date[..]),
            (0x00E0, 100, &xf_date[..]),
            (0x00E0, 200, &xf_conditional[..]),
        ];
        assert_eq!(fixes(records), vec![(202, 0), (203, 0)]);
        let biff8 = [0x00, 0x06, 0x05, 0x00];
        let records = [(0x0809, 0, &biff8[..]), (0x041E, 10, &conditional[..])];
        assert_eq!(fixes(records), vec![]);
    }
}

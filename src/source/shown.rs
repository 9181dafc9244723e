//! Numbers as Excel shows them: a cell's number format turns a stored 1067 into the `01067` a
//! person reads (postcodes, customer numbers `KD-00012`, phones under `"+"0`), and 0.125 into
//! `12,5%` with the decimal mark of the run's region.
//!
//! The `ssfmt` crate (SheetJS's format engine) renders a format; this module decides which
//! formats carry meaning. General, text, dates, durations and scientific notation keep
//! leadsync's own forms (digits as typed, ISO dates): `4.92E+12` says nothing a person needs,
//! and the service wants dates it can read. A phone number is read from the stored digits
//! (`Record::stored_numbers`) whenever a format changed them.

use std::fmt::Write;

use ssfmt::ast::{DigitPlaceholder, FormatPart};
use ssfmt::{FormatOptions, Locale, NumberFormat};

/// Excel keeps 15 significant digits; past them a format would print binary noise, and
/// `ssfmt` wraps integers beyond `u64`: such numbers keep the stored form.
const LARGEST_SHOWN: f64 = 1e15;

/// A format that carries meaning, ready to show numbers.
pub(super) struct Shown {
    format: NumberFormat,
    /// The shape nearly every such format has (`00000`, `"KD-"00000`, `"+"0`), shown without
    /// the engine, which parses its format again on every call.
    padded: Option<Padded>,
}

/// Text, whole digits zero-padded to a width, text.
struct Padded {
    before: String,
    width: usize,
    after: String,
}

impl Padded {
    fn of(format: &NumberFormat) -> Option<Padded> {
        let [section] = format.sections() else { return None };
        if section.color.is_some() || section.condition.is_some() {
            return None;
        }
        let (mut padded, mut digits_done) =
            (Padded { before: String::new(), width: 0, after: String::new() }, false);
        for part in &section.parts {
            match part {
                FormatPart::Digit(DigitPlaceholder::Zero) if !digits_done || padded.width == 0 => {
                    padded.width += 1;
                }
                FormatPart::Literal(text) | FormatPart::EscapedLiteral(text) => {
                    digits_done |= padded.width > 0;
                    match digits_done {
                        false => padded.before.push_str(text),
                        true => padded.after.push_str(text),
                    }
                }
                _ => return None,
            }
        }
        // `render` trims what lines a number up in a column: so do the text's outer ends.
        padded.before = padded.before.trim_start_matches(PADDING).to_owned();
        padded.after = padded.after.trim_end_matches(PADDING).to_owned();
        (padded.width > 0).then_some(padded)
    }

    /// A whole number of at most 15 digits, not negative (whose sign a format may place).
    fn write(&self, number: f64, out: &mut String) -> bool {
        if number.fract() != 0.0 || !(0.0..LARGEST_SHOWN).contains(&number) {
            return false;
        }
        let _ = write!(
            out,
            "{}{:0width$}{}",
            self.before,
            number as u64,
            self.after,
            width = self.width
        );
        true
    }
}

/// The format `code` compiled, when a number under it reads differently than its digits and
/// the difference matters to a person; `None` keeps the stored form.
pub(super) fn compile(code: &str) -> Option<Shown> {
    let format = carries_meaning(code)?;
    let padded = Padded::of(&format);
    Some(Shown { format, padded })
}

fn carries_meaning(code: &str) -> Option<NumberFormat> {
    let format = NumberFormat::parse(code).ok()?;
    let sections = format.sections();
    let first = sections.first()?;
    let has_digits = first
        .parts
        .iter()
        .any(|part| matches!(part, FormatPart::Digit(_) | FormatPart::Fraction { .. }));
    let scientific = sections
        .iter()
        .flat_map(|section| &section.parts)
        .any(|part| matches!(part, FormatPart::Scientific { .. }));
    let keeps_form = format.is_date_format() || format.is_text_format() || scientific;
    (has_digits && !keeps_form).then_some(format)
}

/// The decimal mark and digit grouping of the region the sheet comes from (`DE`: `1.234,5`),
/// as Excel set to that region shows numbers.
pub(super) fn marks(region: Option<&str>) -> FormatOptions {
    let (decimal, grouping) = match region.map(str::trim).map(str::to_ascii_uppercase).as_deref() {
        Some("DE" | "AT" | "NL" | "BE" | "ES" | "IT" | "DK" | "ID" | "TR" | "BR" | "AR") => {
            (',', '.')
        }
        Some("FR" | "SE" | "NO" | "FI" | "PL" | "CZ" | "SK" | "PT" | "HU" | "RU" | "UA") => {
            (',', '\u{a0}')
        }
        Some("CH" | "LI") => ('.', '\u{2019}'),
        _ => ('.', ','),
    };
    let mut locale = Locale::en_us();
    locale.decimal_separator = decimal;
    locale.thousands_separator = grouping;
    FormatOptions { locale, ..FormatOptions::default() }
}

/// Appends `number` as `format` shows it, without the padding that aligns it in a column;
/// false (nothing written) for a number the stored form says better.
pub(super) fn render(number: f64, shown: &Shown, marks: &FormatOptions, out: &mut String) -> bool {
    if !number.is_finite() || number.abs() >= LARGEST_SHOWN {
        return false;
    }
    if shown.padded.as_ref().is_some_and(|padded| padded.write(number, out)) {
        return true;
    }
    let shown = shown.format.format(number, marks);
    out.push_str(shown.trim_matches(PADDING));
    true
}

/// What a format pads a number with to line a column up: not part of the value.
const PADDING: [char; 2] = [' ', '\u{a0}'];

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(number: f64, code: &str, region: &str) -> Option<String> {
        let mut out = String::new();
        let format = compile(code)?;
        render(number, &format, &marks(Some(region)), &mut out).then_some(out)
    }

    #[test]
    fn formats_that_carry_meaning_give_the_text_excel_shows() {
        // Zero-padded, literal text and grouping: postcodes, customer numbers, phones.
        assert_eq!(shown(1067.0, "00000", "DE").as_deref(), Some("01067"));
        assert_eq!(shown(12.0, "\"KD-\"00000", "DE").as_deref(), Some("KD-00012"));
        assert_eq!(shown(4_915_112_345_678.0, "\"+\"0", "DE").as_deref(), Some("+4915112345678"));
        assert_eq!(shown(15_112_345_678.0, "000000000000", "DE").as_deref(), Some("015112345678"));
        assert_eq!(shown(1_234_567.0, "#,##0", "DE").as_deref(), Some("1.234.567"));
        assert_eq!(shown(1_234_567.0, "#,##0", "GB").as_deref(), Some("1,234,567"));
        // Percent, currency, fixed decimals: the shown value, in the region's marks.
        assert_eq!(shown(0.125, "0.0%", "DE").as_deref(), Some("12,5%"));
        assert_eq!(shown(0.125, "0.0%", "US").as_deref(), Some("12.5%"));
        assert_eq!(shown(1234.5, "#,##0.00\\ \"€\"", "DE").as_deref(), Some("1.234,50 €"));
        assert_eq!(shown(1234.5, "[$$-409]#,##0.00", "US").as_deref(), Some("$1,234.50"));
        assert_eq!(shown(1234.5, "0.00", "DE").as_deref(), Some("1234,50"));
        assert_eq!(shown(-5.0, "0.00;[Red]\\-0.00", "DE").as_deref(), Some("-5,00"));
        // Accounting formats pad with spaces to line up a column: not part of the value.
        let accounting =
            "_-* #,##0.00\\ \"€\"_-;\\-* #,##0.00\\ \"€\"_-;_-* \"-\"??\\ \"€\"_-;_-@_-";
        assert_eq!(shown(1234.5, accounting, "DE").as_deref(), Some("1.234,50 €"));
    }

    /// The shortcut for zero-padded formats says what the engine says.
    #[test]
    fn padded_formats_agree_with_the_engine() {
        for code in [
            "00000",
            "\"KD-\"00000",
            "\"+\"0",
            "0",
            "000000000000",
            "\"Nr. \"0\" (neu)\"",
            "00000\" \"",
            "\" \"0",
        ] {
            let format = compile(code).unwrap();
            assert!(format.padded.is_some(), "{code} takes the shortcut");
            for number in [0.0, 7.0, 1067.0, 4_915_112_345_678.0, 12.5, -3.0] {
                let (mut fast, engine) =
                    (String::new(), format.format.format(number, &marks(Some("DE"))));
                render(number, &format, &marks(Some("DE")), &mut fast);
                assert_eq!(fast, engine.trim(), "{code} of {number}");
            }
        }
        for code in ["#,##0", "0.00", "0%", "00;[Red]-00", "[Red]00000", "# ?/?", "0\\-000"] {
            assert!(compile(code).unwrap().padded.is_none(), "{code} goes to the engine");
        }
    }

    #[test]
    fn general_text_dates_and_scientific_keep_the_stored_form() {
        for code in ["General", "@", "0.00E+00", "dd.mm.yyyy", "[h]:mm", "\"Tel \"General", ";;;"] {
            assert!(compile(code).is_none(), "{code} is applied");
        }
        assert!(compile("[Red][<-25]General;[Blue][>25]General").is_none());
        // Beyond Excel's 15 digits and for what is no number, the stored form says it.
        assert_eq!(shown(1e20, "0", "DE"), None);
        assert_eq!(shown(f64::NAN, "0.00", "DE"), None);
        assert_eq!(shown(f64::INFINITY, "0.00", "DE"), None);
    }
}

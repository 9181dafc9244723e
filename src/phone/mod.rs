//! Phone numbers to E.164. Owns everything between a cell's text and `+4915112345678`: undoing
//! what spreadsheets and people do to numbers (apostrophes, `00` prefixes, `+49 (0) 151`,
//! separators of every kind, Unicode spaces and digits, extensions, a remark after the number,
//! Excel's scientific notation), then Google's
//! libphonenumber rules through `rlibphonenumber` for the country, the validity and the format.
//!
//! The cleaning writes the digits into a stack buffer, so a plain number costs the parser and
//! the output strings, nothing more; the plainest shapes skip the parser too (`shortcut`).
//! `PhoneParser` is `Copy`; the metadata behind it is a process-wide static that every thread
//! shares.

mod country;
mod kind;
mod number_type;
mod prefixes;
mod shortcut;

pub use country::{name_of as country_name, region_of};
pub use number_type::{BLOCKABLE, BlockedTypes, NumberType};

use rlibphonenumber::{
    NumberLengthType, PHONE_NUMBER_UTIL, ParseError, PhoneNumber, PhoneNumberType, Region,
    ValidationError,
};

/// Parses numbers written without a country code as numbers of its default region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhoneParser {
    region: Region,
    /// The region's calling code, e.g. 49.
    country_code: i32,
    /// Whether the region's only national prefix is `0` (see `shortcut`).
    trunk_zero_only: bool,
}

/// A parser could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhoneError {
    #[error(
        "unknown default region `{region}`: use a two-letter country code such as DE, FR, US or GB, or a country's name (Deutschland, Österreich, Schweiz)"
    )]
    UnknownRegion { region: String },
}

/// A valid number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phone {
    /// `+4915112345678`.
    pub e164: String,
    /// The number's country (`DE`), for a per-country report; `None` for non-geographic
    /// numbers such as +800.
    pub region: Option<String>,
    /// An extension found after the number (`ext. 12` -> `12`): calls cannot dial it.
    pub extension_dropped: Option<String>,
    /// Words after the number (`0172 1234567 (privat)` -> `(privat)`): not part of what is
    /// dialled, so not sent; the row says so.
    pub remark_dropped: Option<String>,
    /// Written with its country code (`+48 …`, `0048 …`, or E.164's digits without the `+`),
    /// so it reads the same whatever the row's country: a number without one needs a country
    /// to be read in, and a row whose country is unknown has none.
    pub international: bool,
    /// Mobile, fixed line, premium rate, ... by the number plan; never `Unknown` for a valid
    /// number.
    pub number_type: PhoneNumberType,
}

impl Phone {
    /// The E.164 digits as a number (at most 15 digits, so they fit), for deduplication.
    pub fn key(&self) -> u64 {
        self.e164
            .bytes()
            .filter(u8::is_ascii_digit)
            .fold(0, |key, d| key * 10 + u64::from(d - b'0'))
    }
}

/// Why a cell holds no usable number. A value, not an error: it becomes a row issue, whose
/// message keeps it (serde) to be said in the reader's language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhoneProblem {
    #[error("no phone number")]
    Missing,
    #[error("not a phone number")]
    NotANumber,
    #[error("too short for a phone number")]
    TooShort,
    #[error("too long for a phone number")]
    TooLong,
    #[error("unknown country code")]
    InvalidCountryCode,
    #[error("not a valid {region} number")]
    InvalidForRegion { region: String },
    /// `4,91511E+12`: what a CSV saved from Excel holds for a long number in a cell formatted
    /// as a number. The digits after the sixth are gone; no parser can bring them back.
    #[error("Excel stored this number in scientific notation and dropped its last digits")]
    ScientificNotation,
}

impl PhoneProblem {
    /// The machine-readable code for reports.
    pub fn code(&self) -> &'static str {
        match self {
            PhoneProblem::Missing => "missing_phone",
            PhoneProblem::ScientificNotation => "scientific_notation",
            _ => "invalid_phone",
        }
    }
}

impl PhoneParser {
    /// A parser for `default_region`, a two-letter code such as `DE` (any case).
    pub fn new(default_region: &str) -> Result<PhoneParser, PhoneError> {
        let unknown = || PhoneError::UnknownRegion { region: default_region.to_owned() };
        let region = Region::from_code(default_region.trim()).map_err(|_| unknown())?;
        // Also loads the metadata now rather than inside the first parse.
        let country_code =
            PHONE_NUMBER_UTIL.get_country_code_for_region(region).ok_or_else(unknown)?;
        let trunk_zero_only = prefixes::trunk_zero_only(&region.to_string());
        Ok(PhoneParser { region, country_code, trunk_zero_only })
    }

    /// The calling code of the default region (49 for DE).
    pub fn country_code(&self) -> i32 {
        self.country_code
    }

    /// Normalizes one cell's text.
    pub fn parse(&self, raw: &str) -> Result<Phone, PhoneProblem> {
        let text = trim(raw);
        if is_missing(raw) {
            return Err(PhoneProblem::Missing);
        }
        match scientific(text) {
            Some(Scientific::Exact(digits)) => return self.parse(&digits),
            Some(Scientific::Lost) => return Err(PhoneProblem::ScientificNotation),
            None => {}
        }
        let cleaned = clean(text)?;
        let (Valid { number, region, kind }, attempt) =
            self.parse_cleaned(&cleaned).map_err(|problem| match cleaned.remark {
                // Words after digits that are no number: the words were the cell, not a remark.
                Some(_) => PhoneProblem::NotANumber,
                None => problem,
            })?;
        Ok(Phone {
            e164: e164(&number),
            region: region.map(|r| r.to_string()),
            extension_dropped: attempt.extension.map(str::to_owned),
            remark_dropped: cleaned.remark.map(str::to_owned),
            international: attempt.digits.as_str().starts_with('+'),
            number_type: kind,
        })
    }

    /// The first valid reading, with the attempt it came from (its extension, and whether it
    /// was read with a country code); when there is none, what is wrong with the plain one.
    fn parse_cleaned<'a>(
        &self,
        cleaned: &Cleaned<'a>,
    ) -> Result<(Valid, Attempt<'a>), PhoneProblem> {
        let mut plain = None;
        for attempt in cleaned.attempts(self.country_code).into_iter().flatten() {
            let reading = self.read(attempt.digits.as_str());
            if let Ok(Reading::Valid(valid)) = reading {
                return Ok((valid, attempt));
            }
            if attempt.digits.as_str() == cleaned.digits.as_str() {
                plain = Some(reading);
            }
        }
        match plain.unwrap_or_else(|| self.read(cleaned.digits.as_str()))? {
            Reading::Valid(valid) => {
                Ok((valid, Attempt { digits: cleaned.digits, extension: cleaned.extension }))
            }
            Reading::Invalid(number) => Err(self.problem(&number)),
        }
    }

    fn read(&self, digits: &str) -> Result<Reading, PhoneProblem> {
        if let Some(valid) = shortcut::read(digits, self) {
            return Ok(Reading::Valid(valid));
        }
        self.read_with_parser(digits)
    }

    /// The long way: libphonenumber's parser, which every shape goes through.
    fn read_with_parser(&self, digits: &str) -> Result<Reading, PhoneProblem> {
        let number =
            PHONE_NUMBER_UTIL.parse(digits, Some(self.region)).map_err(from_parse_error)?;
        Ok(judge(number))
    }

    /// Why a number that parses is not valid.
    fn problem(&self, number: &PhoneNumber) -> PhoneProblem {
        if e164_digits(number) > E164_MAX_DIGITS {
            return PhoneProblem::TooLong;
        }
        match PHONE_NUMBER_UTIL.is_possible_number_with_reason(number) {
            // Possible only locally: the area code is missing.
            Err(ValidationError::TooShort) | Ok(NumberLengthType::IsPossibleLocalOnly) => {
                PhoneProblem::TooShort
            }
            Err(ValidationError::TooLong) => PhoneProblem::TooLong,
            Err(ValidationError::InvalidCountryCode) => PhoneProblem::InvalidCountryCode,
            Err(ValidationError::InvalidLength) | Ok(NumberLengthType::IsPossible) => {
                let region = PHONE_NUMBER_UTIL
                    .get_region_for_country_code(number.country_code)
                    .unwrap_or(self.region);
                PhoneProblem::InvalidForRegion { region: region.to_string() }
            }
        }
    }
}

/// Valid means "of a known type in its own region": the same test as
/// `is_valid_number_for_region`, keeping the type it finds.
fn judge(number: PhoneNumber) -> Reading {
    let (region, kind) = kind::region_and_type(&number);
    if kind == PhoneNumberType::Unknown || e164_digits(&number) > E164_MAX_DIGITS {
        return Reading::Invalid(number);
    }
    let region = region.filter(|r| *r != Region::World);
    Reading::Valid(Valid { number, region, kind })
}

/// E.164's limit, country code included. libphonenumber's metadata takes German fixed-line
/// numbers of up to 15 national digits as valid, 17 digits in all, which is no E.164 number
/// (found by fuzzing: `08 00151 23456789` became `+4980015123456789`).
const E164_MAX_DIGITS: usize = 15;

/// The digits of `number`'s E.164 form, counted without formatting it.
fn e164_digits(number: &PhoneNumber) -> usize {
    let digits = |n: u64| n.checked_ilog10().map_or(1, |log| log as usize + 1);
    digits(u64::from(number.country_code.unsigned_abs()))
        + leading_zeros(number)
        + digits(number.national_number)
}

/// The zeros a national number keeps in front (Italian fixed lines: `+39 02 …`).
fn leading_zeros(number: &PhoneNumber) -> usize {
    if number.italian_leading_zero() {
        usize::try_from(number.number_of_leading_zeros()).unwrap_or(0)
    } else {
        0
    }
}

/// `+4915112345678`: what `format(number, E164)` gives for a valid number (a `+`, the country
/// code, the national significant number), without the formatter's pattern machinery.
fn e164(number: &PhoneNumber) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(E164_MAX_DIGITS + 1);
    let zeros = leading_zeros(number);
    let _ = write!(text, "+{}{:0>zeros$}{}", number.country_code, "", number.national_number);
    text
}

/// What libphonenumber made of one attempt.
#[derive(Debug, PartialEq)]
enum Reading {
    Valid(Valid),
    Invalid(PhoneNumber),
}

/// A valid reading: the number, its region (none for +800 and the like) and its type.
#[derive(Debug, PartialEq)]
struct Valid {
    number: PhoneNumber,
    region: Option<Region>,
    kind: PhoneNumberType,
}

fn from_parse_error(error: ParseError) -> PhoneProblem {
    match error {
        ParseError::InvalidCountryCode => PhoneProblem::InvalidCountryCode,
        ParseError::NotANumber(_) => PhoneProblem::NotANumber,
        ParseError::TooShortAfterIdd | ParseError::TooShortNsn => PhoneProblem::TooShort,
        ParseError::TooLongNsn => PhoneProblem::TooLong,
    }
}

/// Whitespace (NBSP included), invisible marks from copy and paste, Excel's text apostrophe
/// and the `="0151..."` trick some exports use to keep a leading zero.
fn trim(raw: &str) -> &str {
    let text = raw.trim_matches(is_blank);
    let text = text.strip_prefix('\'').unwrap_or(text).trim_matches(is_blank);
    match text.strip_prefix("=\"").and_then(|t| t.strip_suffix('"')) {
        Some(inner) => inner.trim_matches(is_blank),
        None => text,
    }
}

fn is_blank(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2060}' | '\u{FEFF}')
}

/// Whether a cell holds no number at all: empty, blank or a placeholder (`-`, `n/a`, `keine`).
/// A phone column list (`phone = ["Telefon", "Mobil"]`) moves on past such a cell.
pub fn is_missing(raw: &str) -> bool {
    let text = trim(raw);
    text.is_empty() || is_placeholder(text)
}

/// A cell in scientific notation (`4,91511E+12`, `4.91511E+12`, `4.915112345678E+12`).
enum Scientific {
    /// Every digit is still there: the number, as digits.
    Exact(String),
    /// Fewer digits than the exponent says: the rest were rounded away.
    Lost,
}

/// Scientific notation as Excel writes it into a CSV, in either decimal separator; `None`
/// for anything else, which the cleaning judges.
fn scientific(text: &str) -> Option<Scientific> {
    let (mantissa, exponent) = text.split_once(['e', 'E'])?;
    let exponent: usize = exponent.strip_prefix('+').unwrap_or(exponent).parse().ok()?;
    let (whole, fraction) = mantissa.split_once(['.', ',']).unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) || fraction.len() > exponent
    {
        return None;
    }
    if fraction.len() < exponent {
        return Some(Scientific::Lost);
    }
    Some(Scientific::Exact(format!("{whole}{fraction}")))
}

/// What people write when there is no number.
fn is_placeholder(text: &str) -> bool {
    const PLACEHOLDERS: [&str; 15] = [
        "-", "--", "---", "–", "—", "n/a", "n.a.", "na", "none", "null", "nil", "keine", "k.a.",
        "?", "#n/a",
    ];
    text.len() <= 5 && PLACEHOLDERS.iter().any(|p| p.eq_ignore_ascii_case(text))
}

/// At most this many digits survive cleaning; E.164 allows 15, national forms add a few.
const MAX_DIGITS: usize = 30;

/// `+` and ASCII digits on the stack.
#[derive(Clone, Copy)]
struct Digits {
    buf: [u8; MAX_DIGITS + 1],
    len: usize,
}

impl Digits {
    fn new() -> Digits {
        Digits { buf: [0; MAX_DIGITS + 1], len: 0 }
    }

    fn push(&mut self, b: u8) -> Result<(), PhoneProblem> {
        let slot = self.buf.get_mut(self.len).ok_or(PhoneProblem::TooLong)?;
        *slot = b;
        self.len += 1;
        Ok(())
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }

    fn digit_count(&self) -> usize {
        self.as_str().bytes().filter(u8::is_ascii_digit).count()
    }

    /// The same number with a `+` in front, for digits-only exports of E.164 numbers.
    fn with_plus(&self) -> Option<Digits> {
        let mut plus = Digits::new();
        plus.push(b'+').ok()?;
        for &b in &self.buf[..self.len] {
            plus.push(b).ok()?;
        }
        Some(plus)
    }

    fn without_last(&self, n: usize) -> Digits {
        let mut shorter = *self;
        shorter.len = self.len.saturating_sub(n);
        shorter
    }

    fn insert_zero_at(&self, at: usize) -> Option<Digits> {
        let mut with = Digits::new();
        for (i, &b) in self.buf[..self.len].iter().enumerate() {
            if i == at {
                with.push(b'0').ok()?;
            }
            with.push(b).ok()?;
        }
        Some(with)
    }
}

/// A cell reduced to what libphonenumber needs.
struct Cleaned<'a> {
    digits: Digits,
    extension: Option<&'a str>,
    /// Words after the number (`(privat)`, `/ WhatsApp`), not part of it.
    remark: Option<&'a str>,
    /// Where a `(0)` after the country code was dropped: kept in a second reading in case it
    /// belonged to the number (Italian numbers keep their leading zero).
    dropped_trunk_zero: Option<usize>,
    /// A trailing ` -42`: German for extension 42, or the end of a direct-dial number.
    dash_suffix: Option<&'a str>,
}

/// One reading of a cell: digits and the extension that goes with them.
#[derive(Clone, Copy)]
struct Attempt<'a> {
    digits: Digits,
    extension: Option<&'a str>,
}

impl<'a> Cleaned<'a> {
    /// The readings to try, in order, given the default region's country code.
    ///
    /// Digits without `+` or a leading zero come from number cells and CRM exports, which drop
    /// the `+` of E.164 (and Excel drops a national number's leading zero). German numbers are
    /// of variable length, so `4915112345678` is also a valid number of the 0491 area: when the
    /// digits start with the default country's code and read as a valid number with a `+`,
    /// that reading wins. Any other such digits are read nationally first, then with a `+`.
    /// A `(0)` dropped after a country code is tried again in place, for Italian numbers. A
    /// trailing ` -42` stays part of the number when that is valid (`030 1234567 -0`, a
    /// company's switchboard), else it is read as an extension.
    fn attempts(&self, country_code: i32) -> [Option<Attempt<'a>>; 3] {
        let attempt = |digits| Attempt { digits, extension: self.extension };
        let plain = attempt(self.digits);
        let s = self.digits.as_str();
        if !s.starts_with(['+', '0']) && self.digits.digit_count() >= 10 {
            let with_plus = self.digits.with_plus().map(attempt);
            return if starts_with_number(s, country_code) {
                [with_plus, Some(plain), None]
            } else {
                [Some(plain), with_plus, None]
            };
        }
        let with_zero =
            self.dropped_trunk_zero.and_then(|at| self.digits.insert_zero_at(at)).map(attempt);
        let without_suffix = self.dash_suffix.map(|ext| Attempt {
            digits: self.digits.without_last(ext.len()),
            extension: Some(ext),
        });
        [Some(plain), with_zero, without_suffix]
    }
}

/// Whether the digits `s` begin with the decimal digits of `n`.
fn starts_with_number(s: &str, n: i32) -> bool {
    let width = n.checked_ilog10().map_or(1, |l| l as usize + 1);
    s.get(..width).and_then(|p| p.parse::<i32>().ok()) == Some(n)
}

/// Reduces `text` to `+`/digits, finding the extension and a `(0)` trunk prefix on the way.
fn clean(text: &str) -> Result<Cleaned<'_>, PhoneProblem> {
    let mut digits = Digits::new();
    let mut dropped_trunk_zero = None;
    let mut extension = None;
    let mut remark = None;
    // Where the last digit ends: the number's text stops there when a remark follows.
    let mut digits_end = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if let Some(d) = ascii_digit(c) {
            digits.push(d)?;
            digits_end = at + c.len_utf8();
            continue;
        }
        let started = digits.len > 0;
        if c == '+' || c == '\u{FF0B}' {
            if started {
                return Err(PhoneProblem::NotANumber);
            }
            digits.push(b'+')?;
        } else if is_separator(c) {
            if c == '(' && started && is_trunk_zero(&text[at..]) && is_international(&digits) {
                dropped_trunk_zero = Some(digits.len);
                chars.nth(1);
            }
        } else if !started {
            // A label such as `Tel.:` or `tel:` before the number.
        } else if let Some(ext) = extension_at(&text[at..]) {
            extension = Some(ext);
            break;
        } else if let Some(words) = remark_after(text, digits_end) {
            remark = Some(words);
            break;
        } else {
            return Err(PhoneProblem::NotANumber);
        }
    }
    if digits.digit_count() == 0 {
        return Err(PhoneProblem::NotANumber);
    }
    let number = if remark.is_some() { &text[..digits_end] } else { text };
    Ok(Cleaned {
        digits: international_prefix(digits),
        extension,
        remark,
        dropped_trunk_zero: dropped_trunk_zero.map(|at| at - usize::from(starts_with_00(&digits))),
        dash_suffix: extension.is_none().then(|| dash_suffix(number)).flatten(),
    })
}

/// What may stand between a number and a remark after it, besides spaces.
const REMARK_OPENERS: &str = "(/,;:-\u{2013}\u{2014}[";

/// A remark after the number's last digit (`(privat)`, `/ WhatsApp`, `, Zentrale`): words set
/// off by a space or an opening sign, with no digit between the number and the words, the
/// number's brackets closed before it (`030 1234567 (2. Büro)` is no number and a remark), and
/// fewer than five digits in it (more would be a second number, which must not go unseen).
fn remark_after(text: &str, digits_end: usize) -> Option<&str> {
    let (number, tail) = text.split_at(digits_end);
    let gap = &tail[..tail.find(char::is_alphabetic)?];
    let set_off = !gap.is_empty() && gap.chars().all(|c| is_blank(c) || REMARK_OPENERS.contains(c));
    let closed = number.matches('(').count() == number.matches(')').count();
    let words = tail
        .trim_start_matches(|c: char| is_blank(c) || (c != '(' && REMARK_OPENERS.contains(c)))
        .trim_end_matches(is_blank);
    let few_digits = words.chars().filter_map(ascii_digit).count() < 5;
    (set_off && closed && few_digits).then_some(words)
}

/// The digits of a trailing ` -42` or ` – 42` (a space before the dash, up to five digits).
fn dash_suffix(text: &str) -> Option<&str> {
    let digits_start = text.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let digits = &text[digits_start..];
    let before = text[..digits_start].trim_end_matches(is_blank);
    let before = before.strip_suffix(['-', '\u{2013}'])?;
    let spaced = before.ends_with(is_blank);
    (spaced && (1..=5).contains(&digits.len())).then_some(digits)
}

fn is_international(digits: &Digits) -> bool {
    digits.as_str().starts_with('+') || starts_with_00(digits)
}

fn starts_with_00(digits: &Digits) -> bool {
    digits.as_str().starts_with("00")
}

/// `00` is the international prefix in most of the world and never starts a national
/// number, so `0049...` is `+49...` whatever the default region.
fn international_prefix(digits: Digits) -> Digits {
    if !starts_with_00(&digits) {
        return digits;
    }
    let mut plus = Digits::new();
    let _ = plus.push(b'+');
    for &b in &digits.buf[2..digits.len] {
        let _ = plus.push(b);
    }
    plus
}

/// `(0)` as in `+49 (0) 151`.
fn is_trunk_zero(rest: &str) -> bool {
    let mut chars = rest.chars();
    chars.next() == Some('(')
        && chars.next().and_then(ascii_digit) == Some(b'0')
        && matches!(chars.next(), Some(')' | '\u{FF09}'))
}

fn is_separator(c: char) -> bool {
    matches!(
        c,
        '.' | '-' | '/' | '(' | ')' | '[' | ']' | '\'' | '\u{2010}'
            ..='\u{2015}'
                | '\u{2212}'
                | '\u{FF08}'
                | '\u{FF09}'
                | '\u{FF0D}'
                | '\u{FF0E}'
                | '\u{FF0F}'
    ) || is_blank(c)
}

/// The ASCII digit for any Unicode decimal digit (Arabic-Indic, Devanagari, full-width, ...).
fn ascii_digit(c: char) -> Option<u8> {
    if c.is_ascii_digit() {
        return Some(c as u8);
    }
    const ZEROS: [u32; 22] = [
        0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
        0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0xFF10, 0x1D7CE,
    ];
    let code = c as u32;
    ZEROS.iter().find_map(|&zero| {
        let offset = code.checked_sub(zero)?;
        // The mathematical digits at U+1D7CE are five runs of ten.
        let span = if zero == 0x1D7CE { 50 } else { 10 };
        (offset < span).then(|| b'0' + (offset % 10) as u8)
    })
}

/// Words and signs that introduce an extension, longest first so `extension` beats `ext`.
const EXTENSION_MARKS: [&str; 12] = [
    "extension",
    "durchwahl",
    "interno",
    "anexo",
    "ramal",
    "poste",
    ";ext=",
    "extn",
    "ext",
    "dw",
    "x",
    "#",
];

/// The extension digits when `rest` is a mark, optional punctuation and 1 to 7 digits.
fn extension_at(rest: &str) -> Option<&str> {
    let mark = EXTENSION_MARKS.iter().find(|m| {
        rest.len() >= m.len() && rest.as_bytes()[..m.len()].eq_ignore_ascii_case(m.as_bytes())
    })?;
    let after = rest[mark.len()..].trim_start_matches(|c: char| is_blank(c) || ".:=#-".contains(c));
    let end = after.find(|c: char| !c.is_ascii_digit()).unwrap_or(after.len());
    let (ext, tail) = after.split_at(end);
    let tail_ok = tail.chars().all(|c| is_blank(c) || c == ')');
    (!ext.is_empty() && ext.len() <= 7 && tail_ok).then_some(ext)
}

/// libphonenumber's example number of every type of every region, with the region: valid
/// numbers of every shape the metadata knows, for the tests that compare with libphonenumber.
#[cfg(test)]
fn example_numbers() -> impl Iterator<Item = (Region, PhoneNumber)> {
    PHONE_NUMBER_UTIL.get_supported_regions().flat_map(|region| {
        let kinds = PHONE_NUMBER_UTIL.get_supported_types_for_region(region).unwrap_or_default();
        kinds.into_iter().filter_map(move |kind| {
            let example = PHONE_NUMBER_UTIL.get_example_number_for_type_and_region(region, kind);
            example.ok().map(|number| (region, number))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn de() -> PhoneParser {
        PhoneParser::new("DE").unwrap()
    }

    fn e164(raw: &str) -> String {
        match de().parse(raw) {
            Ok(phone) => phone.e164,
            Err(problem) => panic!("`{raw}`: {problem}"),
        }
    }

    fn problem(raw: &str) -> PhoneProblem {
        de().parse(raw).unwrap_err()
    }

    #[test]
    fn unknown_region_is_named() {
        let err = PhoneParser::new("XX").unwrap_err();
        assert!(err.to_string().contains("`XX`"), "{err}");
        assert!(err.to_string().contains("DE, FR, US or GB"));
        assert!(PhoneParser::new("Germany").is_err());
        assert!(PhoneParser::new("de").is_ok());
    }

    #[test]
    fn german_numbers_in_every_usual_spelling() {
        for raw in [
            "+4915112345678",
            "+49 151 12345678",
            "0049 151 12345678",
            "015112345678",
            "0151/12345678",
            "0151-123 456 78",
            "(0151) 12345678",
            "0151.12345678",
            "+49 (0) 151 12345678",
            "+49(0)151-12345678",
            "'+49 151 12345678",
            "4915112345678",
            "15112345678",
            "tel:+49-151-12345678",
            "Tel.: +49 151 12345678",
            "=\"015112345678\"",
        ] {
            assert_eq!(e164(raw), "+4915112345678", "{raw}");
        }
        assert_eq!(e164("030 12345678"), "+493012345678");
        assert_eq!(de().parse("+49 30 12345678").unwrap().region.as_deref(), Some("DE"));
    }

    #[test]
    fn unicode_spaces_and_digits() {
        assert_eq!(e164("+49\u{a0}151\u{a0}12345678"), "+4915112345678");
        assert_eq!(e164("+49\u{202f}151\u{2009}1234\u{2007}5678"), "+4915112345678");
        assert_eq!(e164("\u{200e}+49 151 12345678\u{200f}"), "+4915112345678");
        assert_eq!(e164("＋４９ １５１ １２３４５６７８"), "+4915112345678");
        assert_eq!(e164("+٤٩١٥١١٢٣٤٥٦٧٨"), "+4915112345678");
        assert_eq!(e164("+49 151 1234\u{2013}5678"), "+4915112345678");
    }

    #[test]
    fn extensions_are_dropped_and_reported() {
        for (raw, ext) in [
            ("+1 415 555 2671 ext. 12", "12"),
            ("+1 415 555 2671 x12", "12"),
            ("+1 415 555 2671 x 7", "7"),
            ("+1-415-555-2671;ext=12", "12"),
            ("+1 415 555 2671 #12", "12"),
            ("+1 415 555 2671 Ext 345", "345"),
        ] {
            let phone = de().parse(raw).unwrap();
            assert_eq!(phone.e164, "+14155552671", "{raw}");
            assert_eq!(phone.extension_dropped.as_deref(), Some(ext), "{raw}");
            assert_eq!(phone.region.as_deref(), Some("US"), "{raw}");
        }
        for (raw, e164, ext) in [
            ("+49 151 12345678 -42", "+4915112345678", Some("42")),
            ("+49 (0) 160 7608954 – 46", "+491607608954", Some("46")),
            ("030 1234567 -0", "+493012345670", None),
        ] {
            let phone = de().parse(raw).unwrap_or_else(|p| panic!("`{raw}`: {p}"));
            assert_eq!(phone.e164, e164, "{raw}");
            assert_eq!(phone.extension_dropped.as_deref(), ext, "{raw}");
        }
        let phone = de().parse("+49 30 12345678 Durchwahl 12").unwrap();
        assert_eq!(phone.e164, "+493012345678");
        assert_eq!(phone.extension_dropped.as_deref(), Some("12"));
        assert_eq!(de().parse("+4915112345678").unwrap().extension_dropped, None);
    }

    #[test]
    fn numbers_from_eleven_countries() {
        let cases = [
            ("+33 6 12 34 56 78", "+33612345678", "FR"),
            ("+33 (0)1 42 68 53 00", "+33142685300", "FR"),
            ("+39 02 1234 5678", "+390212345678", "IT"),
            ("+39 06 4567 8901", "+390645678901", "IT"),
            ("+39 333 123 4567", "+393331234567", "IT"),
            ("+34 612 34 56 78", "+34612345678", "ES"),
            ("+34 91 123 45 67", "+34911234567", "ES"),
            ("+31 6 12345678", "+31612345678", "NL"),
            ("+31 20 123 4567", "+31201234567", "NL"),
            ("+44 7400 123456", "+447400123456", "GB"),
            ("+44 (0)20 7946 0958", "+442079460958", "GB"),
            ("0044 20 7946 0958", "+442079460958", "GB"),
            ("+1 (415) 555-2671", "+14155552671", "US"),
            ("001 212 555 0123", "+12125550123", "US"),
            ("+41 79 123 45 67", "+41791234567", "CH"),
            ("+41 44 668 18 00", "+41446681800", "CH"),
            ("+43 664 1234567", "+436641234567", "AT"),
            ("+43 1 5123456", "+4315123456", "AT"),
            ("+32 470 12 34 56", "+32470123456", "BE"),
            ("+32 2 555 12 12", "+3225551212", "BE"),
            ("+48 512 345 678", "+48512345678", "PL"),
            ("+48 22 123 45 67", "+48221234567", "PL"),
        ];
        for (raw, want, region) in cases {
            let phone = de().parse(raw).unwrap_or_else(|p| panic!("`{raw}`: {p}"));
            assert_eq!(phone.e164, want, "{raw}");
            assert_eq!(phone.region.as_deref(), Some(region), "{raw}");
        }
    }

    #[test]
    fn national_numbers_follow_the_default_region() {
        let fr = PhoneParser::new("FR").unwrap();
        assert_eq!(fr.parse("06 12 34 56 78").unwrap().e164, "+33612345678");
        let it = PhoneParser::new("IT").unwrap();
        assert_eq!(it.parse("02 1234 5678").unwrap().e164, "+390212345678");
        let us = PhoneParser::new("US").unwrap();
        assert_eq!(us.parse("(415) 555-2671").unwrap().e164, "+14155552671");
        assert_eq!(us.parse("011 49 151 12345678").unwrap().e164, "+4915112345678");
        let gb = PhoneParser::new("GB").unwrap();
        assert_eq!(gb.parse("07400 123456").unwrap().e164, "+447400123456");
    }

    #[test]
    fn digits_only_exports_of_foreign_numbers() {
        let us = PhoneParser::new("US").unwrap();
        assert_eq!(us.parse("447400123456").unwrap().e164, "+447400123456");
        assert_eq!(us.parse("4915112345678").unwrap().e164, "+4915112345678");
        // German numbers vary in length, so these are also valid German national numbers
        // (areas 03361 and 0447): when both readings are valid, the default region wins.
        assert_eq!(e164("33612345678"), "+4933612345678");
        assert_eq!(e164("447400123456"), "+49447400123456");
    }

    #[test]
    fn problems_are_named() {
        assert_eq!(problem(""), PhoneProblem::Missing);
        assert_eq!(problem("  \u{a0} "), PhoneProblem::Missing);
        assert_eq!(problem("n/a"), PhoneProblem::Missing);
        assert_eq!(problem("-"), PhoneProblem::Missing);
        assert_eq!(problem("asdf"), PhoneProblem::NotANumber);
        assert_eq!(problem("ask reception"), PhoneProblem::NotANumber);
        assert_eq!(problem("0151 CALL ME"), PhoneProblem::NotANumber);
        assert_eq!(problem("+49 151 1234 +49 171 1234"), PhoneProblem::NotANumber);
        assert_eq!(problem("+49 1"), PhoneProblem::TooShort);
        assert_eq!(problem("12"), PhoneProblem::TooShort);
        assert_eq!(problem("+1 (415) 555"), PhoneProblem::TooShort);
        assert_eq!(problem("+49 151 1234567890123"), PhoneProblem::TooLong);
        assert_eq!(problem("1234567890123456789012345678901234"), PhoneProblem::TooLong);
        assert_eq!(problem("+999 123 456 789"), PhoneProblem::InvalidCountryCode);
        assert_eq!(problem("000000"), PhoneProblem::InvalidCountryCode);
        assert_eq!(
            problem("+49 999 1234567"),
            PhoneProblem::InvalidForRegion { region: "DE".to_owned() }
        );
        assert_eq!(
            problem("+1 415 155 2671"),
            PhoneProblem::InvalidForRegion { region: "US".to_owned() }
        );
    }

    #[test]
    fn problem_codes_and_messages() {
        assert_eq!(PhoneProblem::Missing.code(), "missing_phone");
        assert_eq!(PhoneProblem::TooShort.code(), "invalid_phone");
        let invalid = PhoneProblem::InvalidForRegion { region: "DE".to_owned() };
        assert_eq!(invalid.to_string(), "not a valid DE number");
        assert_eq!(invalid.code(), "invalid_phone");
    }

    #[test]
    fn key_is_the_e164_digits() {
        let phone = de().parse("+49 151 12345678").unwrap();
        assert_eq!(phone.key(), 4915112345678);
        assert_ne!(phone.key(), de().parse("+49 151 12345679").unwrap().key());
    }

    #[test]
    fn nothing_panics_on_odd_input() {
        let long = "9".repeat(10_000);
        for raw in [
            "+",
            "++49",
            "(",
            "(0)",
            "+49 (0",
            "x12",
            "#",
            "ext. 5",
            ";ext=",
            "'",
            "=\"",
            "\u{FEFF}",
            long.as_str(),
            "+49 151 12345678 ext. 123456789",
            "0",
            "00",
            "+0",
            "𝟎𝟏𝟓𝟏",
        ] {
            let _ = de().parse(raw);
        }
    }

    /// Times `parse` alone on the `Phone` column of `LEADSYNC_BENCH_FILE` (first 200,000):
    /// `LEADSYNC_BENCH_FILE=leads_1m.csv cargo test --release --lib bench_parse -- --ignored --nocapture`
    #[test]
    #[ignore = "benchmark: needs LEADSYNC_BENCH_FILE"]
    fn bench_parse() {
        use crate::source::{Source, SourceOptions};
        let Ok(path) = std::env::var("LEADSYNC_BENCH_FILE") else {
            return;
        };
        let source = Source::open(std::path::Path::new(&path), &SourceOptions::default()).unwrap();
        let column = source.headers.iter().position(|h| h == "Phone").unwrap();
        let phones: Vec<String> =
            source.records().take(200_000).map(|r| r.unwrap().cells[column].to_owned()).collect();
        let parser = de();
        for _ in 0..3 {
            let started = std::time::Instant::now();
            let valid = phones.iter().filter(|p| parser.parse(p).is_ok()).count();
            let secs = started.elapsed().as_secs_f64();
            eprintln!(
                "parsed {} numbers ({valid} valid) in {secs:.3} s: {:.2} us/number",
                phones.len(),
                secs * 1e6 / phones.len() as f64
            );
        }
    }

    #[test]
    fn e164_is_what_libphonenumber_formats() {
        use rlibphonenumber::PhoneNumberFormat;
        let mut numbers: Vec<PhoneNumber> = example_numbers().map(|(_, number)| number).collect();
        let parser = PhoneParser::new("IT").unwrap();
        for raw in ["+39 02 1234 5678", "+39 0001 234567", "+390612345678", "+225 27 12 345 678"] {
            numbers.push(parser.read_with_parser(clean(raw).unwrap().digits.as_str()).map_or_else(
                |p| panic!("{raw}: {p}"),
                |reading| match reading {
                    Reading::Valid(valid) => valid.number,
                    Reading::Invalid(number) => number,
                },
            ));
        }
        assert!(numbers.len() > 1000 && numbers.iter().any(|n| n.number_of_leading_zeros() > 1));
        for number in numbers {
            let formatted = PHONE_NUMBER_UTIL.format(&number, PhoneNumberFormat::E164);
            assert_eq!(super::e164(&number), formatted, "{number:?}");
        }
    }

    #[test]
    fn a_remark_after_the_number_is_kept_apart() {
        for (raw, want, remark) in [
            ("0172 1234567 (privat)", "+491721234567", "(privat)"),
            ("030 1234567 (Zentrale)", "+49301234567", "(Zentrale)"),
            ("+49 151 12345678 / WhatsApp", "+4915112345678", "WhatsApp"),
            ("030 1234567, Zentrale", "+49301234567", "Zentrale"),
            ("+49 (0) 151 12345678 - nur abends", "+4915112345678", "nur abends"),
            ("0151 12345678 ab 18 Uhr", "+4915112345678", "ab 18 Uhr"),
        ] {
            let phone = de().parse(raw).unwrap_or_else(|p| panic!("`{raw}`: {p}"));
            assert_eq!(phone.e164, want, "{raw}");
            assert_eq!(phone.remark_dropped.as_deref(), Some(remark), "{raw}");
        }
        assert_eq!(de().parse("+49 151 12345678").unwrap().remark_dropped, None);
        // An extension is still an extension, not a remark.
        let phone = de().parse("+49 30 12345678 Durchwahl 12").unwrap();
        assert_eq!((phone.extension_dropped.as_deref(), phone.remark_dropped), (Some("12"), None));
    }

    #[test]
    fn words_that_are_no_remark_leave_the_cell_invalid() {
        for raw in [
            "0151 CALL ME",
            "0151CALL",
            "0151 12345678privat",
            "030 1234567 (2. Büro)",
            "0151 12345678 oder 0171 1234567",
            "030 1234567, 89 Zentrale",
            "privat",
        ] {
            assert_eq!(problem(raw), PhoneProblem::NotANumber, "{raw}");
        }
    }

    #[test]
    fn scientific_notation_that_lost_digits_is_named() {
        for raw in ["4,91511E+12", "4.91511E+12", "4,91511e+12", "4.9E12", "'4,91511E+12"] {
            assert_eq!(problem(raw), PhoneProblem::ScientificNotation, "{raw}");
        }
        assert_eq!(PhoneProblem::ScientificNotation.code(), "scientific_notation");
        // Every digit still there (Excel's full precision): the number is whole.
        assert_eq!(e164("4.915112345678E+12"), "+4915112345678");
        assert_eq!(e164("4915112345678"), "+4915112345678");
        // Not scientific notation at all: judged as any other text.
        assert_eq!(problem("1.23456789E-3"), PhoneProblem::NotANumber);
        assert_eq!(problem("Eva"), PhoneProblem::NotANumber);
    }

    #[test]
    fn a_number_says_whether_it_carried_its_country_code() {
        for raw in ["+48 512 345 678", "0048 512 345 678", "4915112345678", "+49 (0) 30 1234567"] {
            assert!(de().parse(raw).unwrap().international, "{raw}");
        }
        for raw in ["0512 345 678", "030 1234567", "15112345678", "33612345678"] {
            assert!(!de().parse(raw).unwrap().international, "{raw}");
        }
    }

    #[test]
    fn missing_means_empty_or_a_placeholder() {
        for raw in ["", "  ", "n/a", "-", "keine", "\u{a0}"] {
            assert!(is_missing(raw), "{raw:?}");
        }
        for raw in ["0", "0151", "x", "#REF!"] {
            assert!(!is_missing(raw), "{raw:?}");
        }
    }

    /// Found by fuzzing (`scripts/fuzz.sh`, target `phone`): libphonenumber took these as valid
    /// German numbers and leadsync sent 16 and 17 digits as E.164, which allows 15.
    #[test]
    fn numbers_longer_than_e164_allows_are_too_long() {
        assert_eq!(problem("08 00151 23456789"), PhoneProblem::TooLong);
        assert_eq!(problem("+49 (0) 30 123400123567"), PhoneProblem::TooLong);
        assert_eq!(problem("87654300300300"), PhoneProblem::TooLong);
        // 15 digits in all is still a number, and an extension is still split off one.
        assert_eq!(e164("+49 30 1234567890"), "+49301234567890");
        assert_eq!(e164("+49 30 123456 ext. 12"), "+4930123456");
    }
}

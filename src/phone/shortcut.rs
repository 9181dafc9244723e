//! Readings of the two plainest shapes without libphonenumber's parser: `+` and digits
//! (`+4915112345678`), and the default region's trunk `0` and digits (`015112345678`). Most
//! numbers in a sheet clean down to one of them, and the parser spent a third of a dry run on
//! work they never need: regexes for extensions, viability, international and national
//! prefixes, each through a regex cache pool that the checking threads contend for.
//!
//! Exact by construction. For these shapes `parse` does only three things: it splits off the
//! country code (the first 1 to 3 digits that name one), it strips a national prefix when the
//! rest begins with one, and it marks leading zeros. A shortcut is taken only where the
//! metadata (`prefixes`) says no national prefix can begin the rest and the rest has no
//! leading zero, so the parser would have split and nothing more. Only a valid reading is
//! kept: anything else goes the long way, so problems are still named by the parser. The
//! tests compare both ways on seeded random numbers of every calling code.

use rlibphonenumber::PhoneNumber;

use super::{PhoneParser, Reading, Valid, judge, prefixes};

/// libphonenumber's bounds on a national significant number.
const NSN_LENGTHS: std::ops::RangeInclusive<usize> = 2..=17;
/// Country codes have at most three digits.
const MAX_COUNTRY_CODE_DIGITS: usize = 3;

/// The valid reading of `digits` (cleaned: `+` and ASCII digits) when it has a shortcut.
pub(super) fn read(digits: &str, parser: &PhoneParser) -> Option<Valid> {
    let number = match digits.strip_prefix('+') {
        Some(international) => read_international(international)?,
        None => read_national(digits, parser)?,
    };
    match judge(number) {
        Reading::Valid(valid) => Some(valid),
        Reading::Invalid(_) => None,
    }
}

/// `4915112345678` after a `+`: the country code, then the national number.
fn read_international(digits: &str) -> Option<PhoneNumber> {
    let (country_code, refused_first, national) = split_country_code(digits)?;
    plain_number(country_code, national, refused_first)
}

/// `015112345678` in a region whose only national prefix is `0`.
fn read_national(digits: &str, parser: &PhoneParser) -> Option<PhoneNumber> {
    if !parser.trunk_zero_only {
        return None;
    }
    let national = digits.strip_prefix('0')?;
    plain_number(parser.country_code, national, prefixes::ZERO)
}

/// The first 1 to 3 digits that are a calling code, as libphonenumber's
/// `extract_country_code` finds them (a leading `0` is none), with the digits a national
/// number after it must not start with. The prefix table holds every calling code the
/// metadata knows (its test says so), so it answers both.
fn split_country_code(digits: &str) -> Option<(i32, u16, &str)> {
    if digits.starts_with('0') {
        return None;
    }
    (1..=MAX_COUNTRY_CODE_DIGITS).find_map(|width| {
        let code: i32 = digits.get(..width)?.parse().ok()?;
        let refused_first = prefixes::national_prefix_digits(code)?;
        Some((code, refused_first, &digits[width..]))
    })
}

/// The number `parse` makes of a national number it would not touch: one of possible length,
/// all digits, not starting with a digit in `refused_first` (a national prefix could begin
/// there, and `0` would also be a leading zero to mark).
fn plain_number(country_code: i32, national: &str, refused_first: u16) -> Option<PhoneNumber> {
    let first = *national.as_bytes().first()?;
    let plain = NSN_LENGTHS.contains(&national.len())
        && national.bytes().all(|b| b.is_ascii_digit())
        && refused_first & prefixes::digit_bit(first) == 0;
    if !plain {
        return None;
    }
    Some(PhoneNumber {
        country_code,
        national_number: national.parse().ok()?,
        ..PhoneNumber::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use rlibphonenumber::PHONE_NUMBER_UTIL;

    /// What the long way makes of `digits`, in the shortcut's terms.
    fn long_way(digits: &str, parser: &PhoneParser) -> Option<Valid> {
        match parser.read_with_parser(digits) {
            Ok(Reading::Valid(valid)) => Some(valid),
            _ => None,
        }
    }

    /// Every shortcut reading equals the parser's; returns how many were taken.
    fn compare(digits: &str, parser: &PhoneParser) -> usize {
        let short = read(digits, parser);
        if let Some(short) = &short {
            assert_eq!(Some(short), long_way(digits, parser).as_ref(), "`{digits}`");
        }
        usize::from(short.is_some())
    }

    fn random_digits(rng: &mut StdRng, len: usize) -> String {
        (0..len).map(|_| char::from(b'0' + rng.random_range(0..10u8))).collect()
    }

    /// Seeded random national numbers after every calling code, and each region's example
    /// numbers of every type with random tails, so that valid numbers (the only ones the
    /// shortcut keeps) are common. Prefix-like starts (`0`, `1`, `8`, `15`) are drawn often.
    #[test]
    fn shortcuts_agree_with_the_parser_on_every_calling_code() {
        let mut rng = StdRng::seed_from_u64(0x1ead_5ca1e);
        let parser = PhoneParser::new("DE").unwrap();
        let mut taken = 0;
        let mut tried = 0;
        for code in PHONE_NUMBER_UTIL.get_supported_calling_codes() {
            for _ in 0..60 {
                let start = ["", "0", "1", "8", "15", "9", "06", "180020"][rng.random_range(0..8)];
                let len = rng.random_range(2..=15);
                let digits = format!("+{code}{start}{}", random_digits(&mut rng, len));
                taken += compare(&digits, &parser);
                tried += 1;
            }
        }
        // Where a national prefix could begin: `+375 810 …` is a valid number as written, and
        // the parser strips Belarus's `80` from it.
        for code in PHONE_NUMBER_UTIL.get_supported_calling_codes() {
            let refused = prefixes::national_prefix_digits(code).unwrap();
            let starts: Vec<u8> =
                (b'1'..=b'9').filter(|&d| refused & prefixes::digit_bit(d) != 0).collect();
            for _ in 0..if starts.is_empty() { 0 } else { 5000 } {
                let start = char::from(starts[rng.random_range(0..starts.len())]);
                let len = rng.random_range(5..=10);
                let digits = format!("+{code}{start}{}", random_digits(&mut rng, len));
                taken += compare(&digits, &parser);
                tried += 1;
            }
        }
        for (region, example) in super::super::example_numbers() {
            let parser = PhoneParser::new(&region.to_string()).unwrap();
            let nsn = rlibphonenumber::get_national_significant_number_owned(&example);
            for tail in 0..4 {
                let cut = nsn.len().saturating_sub(tail);
                let national = format!("{}{}", &nsn[..cut], random_digits(&mut rng, tail));
                for digits in [
                    format!("+{}{national}", example.country_code),
                    format!("0{national}"),
                    format!("+{}0{national}", example.country_code),
                ] {
                    taken += compare(&digits, &parser);
                    tried += 1;
                }
            }
        }
        eprintln!("{taken} shortcuts in {tried} numbers");
        // The comparison means something only if many shortcuts were taken.
        assert!(taken > 5_000, "{taken} shortcuts in {tried} numbers");
    }

    #[test]
    fn the_plain_shapes_take_the_shortcut() {
        let de = PhoneParser::new("DE").unwrap();
        for digits in ["+4915112345678", "015112345678", "+14155552671", "+447400123456"] {
            assert_eq!(compare(digits, &de), 1, "{digits}");
        }
    }

    #[test]
    fn shapes_the_parser_would_change_go_the_long_way() {
        let de = PhoneParser::new("DE").unwrap();
        let us = PhoneParser::new("US").unwrap();
        for (digits, parser) in [
            // A national prefix after the country code: the parser strips it.
            ("+49015112345678", &de),
            ("+114155552671", &us),
            ("+3758107089614", &de),
            // Italian fixed lines keep their leading zero.
            ("+390212345678", &de),
            // A national number in a region whose prefix is `1`.
            ("14155552671", &us),
            // Digits without `+` or `0`: the reading order decides, in `attempts`.
            ("4915112345678", &de),
            // Not valid: the parser names the problem.
            ("+49999123", &de),
            ("+99912345678", &de),
        ] {
            assert!(read(digits, parser).is_none(), "{digits}");
        }
    }
}

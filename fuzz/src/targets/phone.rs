//! Phone clean-up and parsing. The first byte picks the default region, the rest is the cell
//! as typed. A number that parses must be E.164 and must parse again to itself: leadsync
//! sends, deduplicates and journals the E.164 form, and a second import reads it back.

use std::sync::OnceLock;

use leadsync::phone::PhoneParser;

use crate::Target;

pub const REGIONS: &[&str] =
    &["DE", "US", "GB", "FR", "AT", "CH", "NL", "IT", "ES", "IN", "BR", "JP"];

pub const TARGET: Target = Target {
    name: "phone",
    run,
    dictionary: &[
        b"+",
        b"00",
        b"0",
        b"(0)",
        b"ext. ",
        b" x",
        b"#",
        b"-",
        b"/",
        b".",
        b" ",
        b"\xc2\xa0",
        b"\xe2\x80\x8b",
        b"\xd9\xa1",
        b"\xef\xbc\x91",
        b"tel:",
        b"+49",
        b"+1",
        b"0049",
        b"n/a",
        b"1e+11",
        b".0",
        b"015112345678",
    ],
    max_len: 1024,
};

fn run(data: &[u8]) {
    let Some((&choice, rest)) = data.split_first() else { return };
    let parsers = parsers();
    let parser = &parsers[usize::from(choice) % parsers.len()];
    let typed = String::from_utf8_lossy(rest);
    let Ok(phone) = parser.parse(&typed) else { return };
    let digits = phone.e164.strip_prefix('+').unwrap_or_else(|| panic!("not E.164: {phone:?}"));
    assert!(
        (1..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()),
        "not E.164: {phone:?} from {typed:?}"
    );
    match parser.parse(&phone.e164) {
        Ok(again) => assert_eq!(again.e164, phone.e164, "{typed:?} is not stable"),
        Err(problem) => panic!("{typed:?} gave {phone:?}, which then fails: {problem}"),
    }
}

/// One parser per region, built once: building loads the metadata.
fn parsers() -> &'static [PhoneParser] {
    static PARSERS: OnceLock<Vec<PhoneParser>> = OnceLock::new();
    PARSERS.get_or_init(|| {
        REGIONS.iter().map(|r| PhoneParser::new(r).expect("a known region")).collect()
    })
}

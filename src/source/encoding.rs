//! The text encoding of a CSV: a BOM when there is one, UTF-8 when the bytes are valid UTF-8,
//! UTF-16 recognised by its zero bytes, otherwise chardetng's guess (Windows-1252 for the
//! German and French files Excel writes), helped by the default region: a short file's `£`
//! reads as Windows-1250's `Ł` and Greek as Cyrillic without it. An explicit label always
//! wins; a guess is reported, with how to override it.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, MACINTOSH, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};

use super::SourceError;

/// The decision for one file.
#[derive(Debug, Clone, Copy)]
pub(super) struct TextEncoding {
    pub encoding: &'static Encoding,
    /// Bytes of byte-order mark at the start, never part of the data.
    pub bom_len: usize,
    /// The sniffed prefix held no byte above 0x7F, so UTF-8 was a default, not a finding.
    pub ascii_prefix: bool,
    /// chardetng chose the encoding from the text: it may be wrong, and the person is told.
    pub guessed: bool,
}

/// Decides the encoding from the first bytes. `whole` says the prefix is the entire file;
/// `region` (`DE`, `GB`) is where the file most likely comes from.
pub(super) fn detect(
    location: &str,
    prefix: &[u8],
    whole: bool,
    label: Option<&str>,
    region: Option<&str>,
) -> Result<TextEncoding, SourceError> {
    let (bom_encoding, bom_len) = bom(location, prefix)?;
    let body = &prefix[bom_len..];
    let ascii_prefix = body.is_ascii();
    let (encoding, guessed) = match label {
        Some(label) => (from_label(location, label)?, false),
        None => match bom_encoding.or_else(|| utf16_without_bom(body)) {
            Some(encoding) => (encoding, false),
            None => sniff(body, whole, region),
        },
    };
    let is_utf16 = encoding == UTF_16LE || encoding == UTF_16BE;
    if !is_utf16 && body.contains(&0) {
        return Err(SourceError::NotTabular {
            location: location.to_owned(),
            found: "a binary file",
            advice: "export the data as .xlsx or .csv",
        });
    }
    Ok(TextEncoding { encoding, bom_len, ascii_prefix, guessed })
}

/// What the person is told about a guessed encoding.
pub(super) fn guess_note(encoding: &'static Encoding, region: Option<&str>) -> String {
    let hint = region.and_then(tld).map(|_| format!(" for a file from {}", region.unwrap_or("")));
    format!(
        "the text is not UTF-8; its encoding was guessed as {}{}: if letters look wrong, pass \
         `--encoding` with the right one (e.g. `windows-1250`, `iso-8859-7`) or set `encoding` \
         in the mapping",
        encoding.name(),
        hint.unwrap_or_default()
    )
}

/// The top-level domain chardetng takes as a hint for a region code (`GB` is `.uk`).
fn tld(region: &str) -> Option<String> {
    let region = region.trim();
    if region.len() != 2 || !region.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    Some(match region.to_ascii_lowercase().as_str() {
        "gb" => "uk".to_owned(),
        other => other.to_owned(),
    })
}

fn bom(location: &str, prefix: &[u8]) -> Result<(Option<&'static Encoding>, usize), SourceError> {
    if prefix.starts_with(b"\xFF\xFE\0\0") || prefix.starts_with(b"\0\0\xFE\xFF") {
        return Err(SourceError::NotTabular {
            location: location.to_owned(),
            found: "UTF-32 text",
            advice: "save it again as UTF-8 (in Excel: CSV UTF-8)",
        });
    }
    Ok(match Encoding::for_bom(prefix) {
        Some((encoding, len)) => (Some(encoding), len),
        None => (None, 0),
    })
}

fn from_label(location: &str, label: &str) -> Result<&'static Encoding, SourceError> {
    Encoding::for_label(label.trim().as_bytes()).ok_or_else(|| SourceError::InvalidOption {
        location: location.to_owned(),
        option: "encoding",
        value: label.to_owned(),
        advice: "use a label such as `utf-8`, `windows-1252`, `iso-8859-15` or `utf-16le`",
    })
}

/// UTF-16 text without a BOM shows a zero byte in every other position while it is ASCII.
fn utf16_without_bom(body: &[u8]) -> Option<&'static Encoding> {
    let sample = &body[..body.len().min(1024) & !1];
    if sample.len() < 4 {
        return None;
    }
    let pairs = sample.len() / 2;
    let zero_even = sample.iter().step_by(2).filter(|&&b| b == 0).count();
    let zero_odd = sample.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    if zero_odd * 10 >= pairs * 7 && zero_even * 10 < pairs {
        Some(UTF_16LE)
    } else if zero_even * 10 >= pairs * 7 && zero_odd * 10 < pairs {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// UTF-8 when the prefix is valid UTF-8 (a sequence cut by the prefix's end is allowed),
/// else chardetng's guess with the region's top-level domain as its hint; true for a guess.
fn sniff(body: &[u8], whole: bool, region: Option<&str>) -> (&'static Encoding, bool) {
    match std::str::from_utf8(body) {
        Ok(_) => return (UTF_8, false),
        Err(e) if e.error_len().is_none() && !whole => return (UTF_8, false),
        Err(_) => {}
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(body, whole);
    let tld = region.and_then(tld);
    let encoding = detector.guess(tld.as_deref().map(str::as_bytes), Utf8Detection::Allow);
    if encoding == WINDOWS_1252 && reads_better_as_mac_roman(body) {
        return (MACINTOSH, true);
    }
    (encoding, encoding != UTF_8)
}

/// Letters of the languages Excel for Mac users write (German, French, Spanish, the Nordic
/// ones): text that shows more of them read as Mac Roman than as Windows-1252 is Mac Roman.
/// chardetng does not know Mac Roman, which Excel for Mac still writes for "CSV (Macintosh)";
/// read as Windows-1252 it gives `JŸrgen MŸller`.
const LATIN_LETTERS: &str = "äöüÄÖÜßéèêëàâáçôóòûúùîíïñÑœŒåÅæÆøØ";

fn reads_better_as_mac_roman(body: &[u8]) -> bool {
    let letters = |encoding: &'static Encoding| {
        let (text, _) = encoding.decode_without_bom_handling(body);
        text.chars().filter(|c| LATIN_LETTERS.contains(*c)).count()
    };
    let (mac, windows) = (letters(MACINTOSH), letters(WINDOWS_1252));
    mac >= 2 && mac > windows * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(prefix: &[u8]) -> &'static str {
        detect("t.csv", prefix, true, None, None).unwrap().encoding.name()
    }

    fn decoded(prefix: &[u8], region: Option<&str>) -> String {
        let found = detect("t.csv", prefix, true, None, region).unwrap().encoding;
        found.decode_without_bom_handling(prefix).0.into_owned()
    }

    #[test]
    fn the_region_helps_guess_a_short_legacy_file() {
        let pounds = b"Name,Price\nAnna,\xA31.00\n";
        assert!(decoded(pounds, Some("GB")).contains("\u{a3}1.00"), "{}", decoded(pounds, None));
        // "Αθήνα" and "Πειραιάς" in Windows-1253.
        let greek = b"Name,City\nAnna,\xC1\xE8\xDE\xED\xE1\nBen,\xD0\xE5\xE9\xF1\xE1\xE9\xDC\xF2\n";
        let text = decoded(greek, Some("gr"));
        assert!(text.contains("Αθήνα") && text.contains("Πειραιάς"), "{text}");
        assert!(detect("t", pounds, true, None, Some("GB")).unwrap().guessed);
        assert!(!detect("t", b"a,b\n", true, None, Some("GB")).unwrap().guessed);
        assert_eq!(tld("Not a region"), None);
    }

    #[test]
    fn boms_and_utf8() {
        assert_eq!(name(b"\xEF\xBB\xBFName;Ort\n"), "UTF-8");
        assert_eq!(detect("t", b"\xEF\xBB\xBFa", true, None, None).unwrap().bom_len, 3);
        assert_eq!(name(b"\xFF\xFEN\0a\0"), "UTF-16LE");
        assert_eq!(name(b"\xFE\xFF\0N\0a"), "UTF-16BE");
        assert_eq!(name("Name;Straße\nJürgen;Köln\n".as_bytes()), "UTF-8");
    }

    #[test]
    fn windows_1252_from_german_and_french_text() {
        let german = b"Name;Stadt;Notiz\nJ\xFCrgen M\xFCller;K\xF6ln;Gr\xFC\xDFe\nK\xE4the Wei\xDF;M\xFCnchen;sch\xF6n\n";
        assert_eq!(name(german), "windows-1252");
        let french =
            b"Nom,Ville\nFran\xE7ois Lef\xE8vre,Besan\xE7on\nH\xE9l\xE8ne C\xF4t\xE9,Gen\xE8ve\n";
        assert_eq!(name(french), "windows-1252");
    }

    #[test]
    fn mac_roman_from_excel_for_mac_is_recognised() {
        // "Jürgen Müller;Köln;Grüße" and "Käthe Weiß;München" as Excel for Mac saves them.
        let mac = b"Name;Stadt;Notiz\nJ\x9Frgen M\x9Fller;K\x9Aln;Gr\x9F\xA7e\nK\x8Athe Wei\xA7;M\x9Fnchen;sch\x9An\n";
        assert_eq!(name(mac), "macintosh");
        let text = decoded(mac, None);
        assert!(text.contains("Jürgen Müller") && text.contains("Käthe Weiß"), "{text}");
        assert!(detect("t", mac, true, None, None).unwrap().guessed, "said in the note");
    }

    #[test]
    fn utf16_without_bom_is_recognised() {
        let le: Vec<u8> = "Name,Phone\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(name(&le), "UTF-16LE");
    }

    #[test]
    fn label_overrides_and_unknown_label_is_an_error() {
        let e = detect("t", b"abc", true, Some("latin1"), None).unwrap();
        assert_eq!(e.encoding.name(), "windows-1252");
        let err = detect("t", b"abc", true, Some("klingon"), None).unwrap_err();
        assert!(err.to_string().contains("`klingon`"), "{err}");
    }

    #[test]
    fn nul_bytes_mean_binary() {
        assert!(detect("t", b"abc\0\x01\x02def", true, None, None).is_err());
    }
}

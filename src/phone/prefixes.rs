//! What the shortcuts need to know of national prefixes, which rlibphonenumber keeps private:
//! for each calling code, the digits a national prefix of its main region can begin with; and
//! the regions whose only national prefix is `0`. The tables in `prefix_table.rs` are
//! generated from rlibphonenumber's own metadata, and a test regenerates and compares them, so
//! a new version of the crate cannot leave them stale.

include!("prefix_table.rs");

/// The bit of an ASCII digit in a digit mask.
pub(super) fn digit_bit(digit: u8) -> u16 {
    match digit {
        b'0'..=b'9' => 1 << (digit - b'0'),
        _ => ALL_DIGITS,
    }
}

/// The mask of `0` alone.
pub(super) const ZERO: u16 = 1;
const ALL_DIGITS: u16 = 0b11_1111_1111;

/// Digits a national number after `country_code` must not start with; `None` for a code the
/// table does not know.
pub(super) fn national_prefix_digits(country_code: i32) -> Option<u16> {
    let at = NATIONAL_PREFIX_DIGITS.binary_search_by_key(&country_code, |(code, _)| *code).ok()?;
    Some(NATIONAL_PREFIX_DIGITS[at].1)
}

/// Whether a national number in `region` (`DE`) is its `0` and the number, and nothing else.
pub(super) fn trunk_zero_only(region: &str) -> bool {
    TRUNK_ZERO_ONLY.binary_search(&region).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use rlibphonenumber::{PHONE_NUMBER_UTIL, PhoneMetadata, PhoneMetadataCollection};
    use std::fmt::Write;
    use std::path::PathBuf;

    /// Regenerate with `LEADSYNC_REGENERATE=1 cargo test --lib phone::prefixes`.
    #[test]
    fn the_tables_are_those_of_rlibphonenumbers_metadata() {
        let (version, metadata) = rlibphonenumber_metadata();
        let generated = render(&version, &metadata);
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/phone/prefix_table.rs");
        if std::env::var_os("LEADSYNC_REGENERATE").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        assert!(
            generated == include_str!("prefix_table.rs"),
            "{} is stale: regenerate it with `LEADSYNC_REGENERATE=1 cargo test --lib phone::prefixes`",
            path.display()
        );
    }

    #[test]
    fn masks_cover_every_digit_a_pattern_names() {
        assert_eq!(pattern_digits("^(?:0)$"), ZERO);
        assert_eq!(pattern_digits("^(?:0|180020)$"), 0b01_0000_0111);
        assert_eq!(pattern_digits("^(?:([2-9]\\d{6})$|1)$"), ALL_DIGITS);
        assert_eq!(pattern_digits("^(?:[08])$"), 0b01_0000_0001);
        assert_eq!(pattern_digits("^(?:[^0])$"), ALL_DIGITS);
        assert_eq!(digit_bit(b'8'), 0b01_0000_0000);
        assert!(trunk_zero_only("DE") && !trunk_zero_only("US") && !trunk_zero_only("IT"));
        assert_eq!(national_prefix_digits(49), Some(ZERO));
        assert_eq!(national_prefix_digits(1), Some(0b11));
        assert_eq!(national_prefix_digits(999), None);
    }

    #[test]
    fn international_prefixes_that_could_read_a_national_number_are_refused() {
        assert!(idd_never_starts_a_national_number(Some("^(?:00)$")));
        assert!(idd_never_starts_a_national_number(Some("^(?:00|99)$")));
        assert!(idd_never_starts_a_national_number(Some("^(?:119)$")));
        assert!(idd_never_starts_a_national_number(None));
        assert!(!idd_never_starts_a_national_number(Some("^(?:0(?:0|161))$")));
        assert!(!idd_never_starts_a_national_number(Some("^(?:0[01])$")));
    }

    /// The crate's version and its metadata, read from its source as Cargo unpacked it.
    fn rlibphonenumber_metadata() -> (String, PhoneMetadataCollection) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        // Only the host's dependencies are unpacked: other platforms' cannot be resolved offline.
        let output = std::process::Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--offline", "--filter-platform"])
            .arg(host_triple())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo metadata runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let tree: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let package = tree["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "rlibphonenumber")
            .expect("rlibphonenumber is a dependency");
        let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap());
        let bin = manifest.with_file_name("src/generated/metadata/metadata.bin");
        let bytes = std::fs::read(&bin).unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
        let version = package["version"].as_str().unwrap().to_owned();
        (version, PhoneMetadataCollection::decode(bytes.as_slice()).unwrap())
    }

    fn host_triple() -> String {
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
        let output = std::process::Command::new(rustc).arg("-vV").output().expect("rustc runs");
        let text = String::from_utf8(output.stdout).unwrap();
        let host = text.lines().find_map(|line| line.strip_prefix("host: "));
        host.expect("rustc -vV names the host").to_owned()
    }

    fn render(version: &str, metadata: &PhoneMetadataCollection) -> String {
        let mut out = format!(
            "// Generated from rlibphonenumber {version}'s metadata by `LEADSYNC_REGENERATE=1 \
             cargo test --lib phone::prefixes`.\n// Do not edit: `phone::prefixes` explains it.\n\n\
             /// Calling codes, each with a bit for every digit a national number after it must \
             not start\n/// with: `0`, and any digit a national prefix of the code's main \
             region could begin with.\n\
             const NATIONAL_PREFIX_DIGITS: &[(i32, u16)] = &[\n"
        );
        let mut codes: Vec<i32> = PHONE_NUMBER_UTIL.get_supported_calling_codes().collect();
        codes.sort_unstable();
        for code in codes {
            let region = PHONE_NUMBER_UTIL.get_region_for_country_code(code).unwrap().to_string();
            let main = metadata
                .metadata
                .iter()
                .find(|m| m.country_code == Some(code) && (m.id == region || m.id == "001"))
                .unwrap_or_else(|| panic!("no metadata for +{code} ({region})"));
            writeln!(out, "    ({code}, {:#012b}), // {region}", refused_digits(main)).unwrap();
        }
        out.push_str(
            "];\n\n/// Regions whose only national prefix is `0`, with no international prefix \
             that could read\n/// `0` and another digit as its start.\n\
             const TRUNK_ZERO_ONLY: &[&str] = &[\n",
        );
        let mut regions: Vec<&str> = metadata
            .metadata
            .iter()
            .filter(|m| m.id != "001" && has_trunk_zero_only(m))
            .map(|m| m.id.as_str())
            .collect();
        regions.sort_unstable();
        for line in regions.chunks(12) {
            let names: Vec<String> = line.iter().map(|r| format!("\"{r}\"")).collect();
            writeln!(out, "    {},", names.join(", ")).unwrap();
        }
        out.push_str("];\n");
        out
    }

    #[allow(deprecated)] // the raw fields: the wrapper that shadows them is private
    fn refused_digits(m: &PhoneMetadata) -> u16 {
        if m.national_prefix_transform_rule.as_deref().is_some_and(|rule| !rule.is_empty()) {
            return ALL_DIGITS;
        }
        [m.national_prefix.as_deref(), m.national_prefix_for_parsing.as_deref()]
            .into_iter()
            .flatten()
            .fold(ZERO, |mask, pattern| mask | pattern_digits(pattern))
    }

    #[allow(deprecated)]
    fn has_trunk_zero_only(m: &PhoneMetadata) -> bool {
        let parsing = m.national_prefix_for_parsing.as_deref().map(unwrap);
        m.national_prefix.as_deref() == Some("0")
            && matches!(parsing, None | Some("0"))
            && m.national_prefix_transform_rule.as_deref().is_none_or(str::is_empty)
            && idd_never_starts_a_national_number(m.international_prefix.as_deref())
    }

    /// Every alternative of the international prefix starts `00` or with a digit other than
    /// `0`, so it cannot match `0` followed by a non-zero digit.
    fn idd_never_starts_a_national_number(idd: Option<&str>) -> bool {
        let Some(idd) = idd.map(unwrap) else { return true };
        let mut depth = 0;
        let mut alternatives = vec![0];
        for (at, c) in idd.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '|' if depth == 0 => alternatives.push(at + 1),
                _ => {}
            }
        }
        alternatives.into_iter().all(|start| {
            let rest = &idd[start..];
            rest.starts_with("00") || rest.starts_with(|c: char| ('1'..='9').contains(&c))
        })
    }

    /// Patterns are stored as `^(?:...)$`.
    fn unwrap(pattern: &str) -> &str {
        pattern.strip_prefix("^(?:").and_then(|p| p.strip_suffix(")$")).unwrap_or(pattern)
    }

    /// Every digit the pattern can match anywhere: a literal, a class range, `\d`. Anything
    /// else that could match a digit (`.`, a negated class, another escape) counts as all.
    fn pattern_digits(pattern: &str) -> u16 {
        let inner = unwrap(pattern).as_bytes();
        let mut mask = ZERO;
        let mut at = 0;
        while at < inner.len() {
            match inner[at] {
                b'\\' if inner.get(at + 1) == Some(&b'd') => mask = ALL_DIGITS,
                b'\\' | b'.' | b'^' => return ALL_DIGITS,
                low @ b'0'..=b'9' => match (inner.get(at + 1), inner.get(at + 2)) {
                    (Some(b'-'), Some(&high)) if high.is_ascii_digit() => {
                        mask |= (low..=high).fold(0, |m, d| m | digit_bit(d));
                        at += 2;
                    }
                    _ => mask |= digit_bit(low),
                },
                _ => {}
            }
            at += 1;
        }
        mask
    }
}

//! One report row as JSON, byte for byte what `serde_json::to_writer` makes of a `RowReport`,
//! written by hand.
//!
//! Why by hand: the JSON report is written on one thread while the rows are checked on the
//! others, and serde_json escapes strings one byte at a time (`format_escaped_str` was 29% of
//! that thread in a 200k-row report). Here a string is scanned eight bytes at a time for the
//! few bytes JSON must escape, and a row's known shape is written without the serializer's
//! state machine. A seeded test compares both writers on random rows full of quotes,
//! backslashes, control characters and multi-byte text.

use super::model::{ContactReport, Issue, RowReport, Variables};
use super::status_str;

/// Appends `row` to `out` as compact JSON.
pub(super) fn write_row(out: &mut Vec<u8>, row: &RowReport) {
    write_row_as(out, row, write_issue);
}

/// `write_row` with each issue's [`Said`](crate::row::Said) beside its message (`"said"`,
/// absent for words in one language only): the rows database keeps what a page needs to say
/// the message in its own language.
pub(super) fn write_stored_row(out: &mut Vec<u8>, row: &RowReport) {
    write_row_as(out, row, write_stored_issue);
}

fn write_row_as(out: &mut Vec<u8>, row: &RowReport, write_issue: fn(&mut Vec<u8>, &Issue)) {
    out.extend_from_slice(b"{\"row\":");
    write_u64(out, row.row);
    out.extend_from_slice(b",\"status\":\"");
    out.extend_from_slice(status_str(row.status).as_bytes());
    out.extend_from_slice(b"\",\"phone\":");
    write_opt_str(out, row.phone.as_deref());
    out.extend_from_slice(b",\"campaign_id\":");
    write_opt_u64(out, row.campaign_id);
    out.extend_from_slice(b",\"lead_id\":");
    write_opt_u64(out, row.lead_id);
    out.extend_from_slice(b",\"variables\":");
    write_variables(out, &row.variables);
    out.extend_from_slice(b",\"errors\":");
    write_list(out, &row.errors, write_issue);
    out.extend_from_slice(b",\"warnings\":");
    write_list(out, &row.warnings, write_issue);
    out.extend_from_slice(b",\"secondary_contacts\":");
    write_list(out, &row.secondary_contacts, write_contact);
    out.push(b'}');
}

fn write_issue(out: &mut Vec<u8>, issue: &Issue) {
    out.extend_from_slice(b"{\"code\":\"");
    out.extend_from_slice(issue.code.as_str().as_bytes());
    out.extend_from_slice(b"\",\"field\":");
    write_opt_str(out, issue.field.as_deref());
    out.extend_from_slice(b",\"message\":");
    write_str(out, &issue.message);
    out.push(b'}');
}

fn write_stored_issue(out: &mut Vec<u8>, issue: &Issue) {
    write_issue(out, issue);
    if *issue.said == crate::row::Said::AsWritten {
        return;
    }
    // Replaces the closing brace; a said that does not serialize is left out, the English stays.
    if let Ok(said) = serde_json::to_vec(&issue.said) {
        out.pop();
        out.extend_from_slice(b",\"said\":");
        out.extend_from_slice(&said);
        out.push(b'}');
    }
}

fn write_contact(out: &mut Vec<u8>, contact: &ContactReport) {
    out.extend_from_slice(b"{\"phone\":");
    write_str(out, &contact.phone);
    out.extend_from_slice(b",\"variables\":");
    write_variables(out, &contact.variables);
    out.push(b'}');
}

fn write_variables(out: &mut Vec<u8>, variables: &Variables) {
    out.push(b'{');
    for (i, (name, value)) in variables.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, name);
        out.push(b':');
        write_str(out, value);
    }
    out.push(b'}');
}

fn write_list<T>(out: &mut Vec<u8>, items: &[T], write_item: fn(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_item(out, item);
    }
    out.push(b']');
}

fn write_opt_str(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(text) => write_str(out, text),
        None => out.extend_from_slice(b"null"),
    }
}

fn write_opt_u64(out: &mut Vec<u8>, n: Option<u64>) {
    match n {
        Some(n) => write_u64(out, n),
        None => out.extend_from_slice(b"null"),
    }
}

fn write_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A JSON string as serde_json writes it: `"` and `\` escaped with a backslash, the control
/// characters below 0x20 as `\b \t \n \f \r` or `\u00xx` (lowercase hex), everything else as it
/// is (DEL and U+2028 included).
fn write_str(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // Eight bytes at a time, each word copied whole when it holds nothing to escape: copies
    // of a known size are a few instructions, where a copy of each run between escapes was a
    // call to memmove (a quarter of the report thread's time).
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let word: [u8; 8] = word.try_into().unwrap_or([b'"'; 8]);
        if needs_escape(u64::from_le_bytes(word)) {
            word.iter().for_each(|&byte| push_escaped(out, byte));
        } else {
            out.extend_from_slice(&word);
        }
    }
    words.remainder().iter().for_each(|&byte| push_escaped(out, byte));
    out.push(b'"');
}

fn push_escaped(out: &mut Vec<u8>, byte: u8) {
    match escape(byte) {
        Some(escape) => out.extend_from_slice(escape.as_bytes()),
        None => out.push(byte),
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any of the eight bytes is below 0x20, `"` or `\`. Exact: the zero-byte test
/// `(v - 1) & !v & 0x80` can only err about which byte, never about whether any.
fn needs_escape(word: u64) -> bool {
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS != 0;
    // Below 0x20: the byte minus 0x20 borrows, and the byte had no high bit.
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS != 0;
    below_space || has_zero(word ^ (ONES * u64::from(b'"'))) || has_zero(word ^ (ONES * 0x5c))
}

/// The escape for `byte`, or `None` when it stands as it is.
fn escape(byte: u8) -> Option<&'static str> {
    const CONTROL: [&str; 32] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011",
        "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019",
        "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    match byte {
        b'"' => Some("\\\""),
        b'\\' => Some("\\\\"),
        0..0x20 => Some(CONTROL[usize::from(byte)]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::{IssueCode, RowStatus};
    use super::super::testdata::rows;
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn ours(row: &RowReport) -> String {
        let mut out = Vec::new();
        write_row(&mut out, row);
        String::from_utf8(out).unwrap()
    }

    /// Text from pieces JSON treats differently: every byte below 0x20, quotes, backslashes,
    /// DEL, multi-byte characters (U+2028 too, which serde_json leaves alone) and plain runs
    /// long enough to cross the eight-byte words.
    fn text(rng: &mut StdRng) -> String {
        // ¢, Ü and ܐ hold bytes 0xA2, 0x9C and 0xDC: `"`, `\` and below 0x20 but for the high bit.
        const PIECES: [&str; 15] = [
            "\"", "\\", "\u{7f}", "é", "日本", "🙂", "\u{2028}", "a", "0151 123", "/", "<", " ",
            "¢", "Ü", "ܐ",
        ];
        let len = rng.random_range(0..24);
        (0..len)
            .map(|_| match rng.random_range(0..4) {
                0 => char::from(rng.random_range(0..0x20u8)).to_string(),
                1 => "plain text run ".repeat(rng.random_range(0..3)),
                _ => PIECES[rng.random_range(0..PIECES.len())].to_string(),
            })
            .collect()
    }

    fn maybe<T>(rng: &mut StdRng, value: impl FnOnce(&mut StdRng) -> T) -> Option<T> {
        rng.random_bool(0.5).then(|| value(rng))
    }

    fn variables(rng: &mut StdRng) -> Variables {
        (0..rng.random_range(0..5)).map(|_| (text(rng), text(rng))).collect()
    }

    fn issues(rng: &mut StdRng) -> Vec<Issue> {
        let codes = IssueCode::ALL;
        (0..rng.random_range(0..3))
            .map(|_| {
                let code: IssueCode = codes[rng.random_range(0..codes.len())];
                Issue::new(code, maybe(rng, text), text(rng))
            })
            .collect()
    }

    fn random_row(rng: &mut StdRng) -> RowReport {
        let statuses = RowStatus::ALL;
        RowReport {
            row: rng.random(),
            status: statuses[rng.random_range(0..statuses.len())],
            phone: maybe(rng, text),
            campaign_id: maybe(rng, |r| r.random()),
            record_id: None,
            lead_id: maybe(rng, |r| r.random_range(0..1000)),
            variables: variables(rng),
            errors: issues(rng),
            warnings: issues(rng),
            secondary_contacts: (0..rng.random_range(0..3))
                .map(|_| ContactReport { phone: text(rng), variables: variables(rng) })
                .collect(),
            source_cells: vec![text(rng)],
            region: maybe(rng, text),
            campaign_name: maybe(rng, text),
            number_type: None,
        }
    }

    #[test]
    fn rows_are_written_as_serde_json_writes_them() {
        let mut rng = StdRng::seed_from_u64(0x15_0a);
        let random = (0..5_000).map(|_| random_row(&mut rng));
        let mut escapes = 0;
        for row in rows().into_iter().chain(random) {
            let theirs = serde_json::to_string(&row).unwrap();
            assert_eq!(ours(&row), theirs);
            escapes += theirs.matches("\\u00").count();
        }
        // The comparison means something only if control characters were written.
        assert!(escapes > 1_000, "{escapes} escapes");
    }

    #[test]
    fn every_byte_alone_and_inside_a_word() {
        for byte in 0..0x80u8 {
            let c = char::from(byte);
            for text in [
                c.to_string(),
                format!("abcdefg{c}hijklmnop"),
                format!("{c}{c}{c}{c}{c}{c}{c}{c}{c}"),
            ] {
                let theirs = serde_json::to_string(&text).unwrap();
                let mut out = Vec::new();
                write_str(&mut out, &text);
                assert_eq!(String::from_utf8(out).unwrap(), theirs, "byte {byte:#x}");
            }
        }
    }

    /// Clean strings of every length up to five words: whole words and every remainder.
    #[test]
    fn clean_strings_of_every_length() {
        let alphabet: String = ('a'..='z').chain('A'..='Z').collect();
        for len in 0..=40 {
            let text = &alphabet[..len];
            let mut out = b"x".to_vec();
            write_str(&mut out, text);
            assert_eq!(String::from_utf8(out).unwrap(), format!("x\"{text}\""), "length {len}");
        }
    }

    /// Throughput against serde_json on the same random rows, alternating, printed:
    /// `cargo test --release --lib bench_json_rows -- --ignored --nocapture`.
    #[test]
    #[ignore = "benchmark"]
    fn bench_json_rows() {
        // Rows like a sheet's: plain names, emails and notes, an umlaut now and then.
        let mut rng = StdRng::seed_from_u64(7);
        let words = ["Jürgen", "Müller", "beat.brunner434@outlook.com", "Brightside AG", "Basel"];
        let plain = |rng: &mut StdRng| {
            let n = rng.random_range(1..4);
            (0..n).map(|_| words[rng.random_range(0..words.len())]).collect::<Vec<_>>().join(" ")
        };
        let rows: Vec<RowReport> = (0..100_000)
            .map(|i| {
                let mut row = random_row(&mut rng);
                row.variables = (0..5).map(|v| (format!("v{v}"), plain(&mut rng))).collect();
                row.errors.truncate(usize::from(i % 10 == 0));
                row.warnings.clear();
                row.phone = Some("+4915112345678".into());
                row
            })
            .collect();
        let mut out = Vec::with_capacity(64 << 20);
        for _ in 0..3 {
            for (name, write) in [
                (
                    "serde_json",
                    (|out: &mut Vec<u8>, row: &RowReport| serde_json::to_writer(out, row).unwrap())
                        as fn(&mut Vec<u8>, &RowReport),
                ),
                ("json_row", write_row),
            ] {
                out.clear();
                let started = std::time::Instant::now();
                rows.iter().for_each(|row| write(&mut out, row));
                let secs = started.elapsed().as_secs_f64();
                eprintln!("{name:>10}: {:.0} MB/s", out.len() as f64 / secs / 1e6);
            }
        }
    }
}

//! Which byte separates the columns: Excel's `sep=` line when present, else the candidate that
//! splits the first lines most consistently (quotes respected, so `"Berlin, Mitte"` does not
//! vote for the comma).

const CANDIDATES: [u8; 4] = [b',', b';', b'\t', b'|'];
/// Enough lines to outvote a few notes with stray commas.
const SAMPLE_RECORDS: usize = 50;

/// Excel's `sep=;` first line: the delimiter and the bytes the line takes, newline included.
pub(super) fn sep_line(text: &str) -> Option<(u8, usize)> {
    // Bytes, not `str` slicing: after `sep=` may come a character of several bytes.
    let rest = text.strip_prefix("sep=")?.as_bytes();
    let (&delimiter, after) = rest.split_first()?;
    let newline = if after.starts_with(b"\r\n") {
        2
    } else if after.starts_with(b"\n") || after.starts_with(b"\r") {
        1
    } else {
        return None;
    };
    Some((delimiter, "sep=".len() + 1 + newline))
}

/// The most consistent candidate in `text`, or `None` when no candidate occurs (one column).
/// `complete` says `text` is the whole file, so its last line is not cut off.
pub(super) fn sniff(text: &str, complete: bool) -> Option<u8> {
    let mut best: Option<(usize, usize, u8)> = None;
    for d in CANDIDATES {
        let counts = counts_per_record(text.as_bytes(), d, complete);
        let Some((mode, agreeing)) = mode(&counts) else {
            continue;
        };
        if best.is_none_or(|(a, m, _)| (agreeing, mode) > (a, m)) {
            best = Some((agreeing, mode, d));
        }
    }
    best.map(|(_, _, d)| d)
}

/// How many times `d` separates fields in each non-blank record, outside quotes.
fn counts_per_record(text: &[u8], d: u8, complete: bool) -> Vec<usize> {
    let mut counts = Vec::new();
    let (mut count, mut in_quotes, mut field_start, mut blank) = (0, false, true, true);
    for &b in text {
        if counts.len() == SAMPLE_RECORDS {
            return counts;
        }
        if in_quotes {
            in_quotes = b != b'"';
            continue;
        }
        match b {
            b'"' if field_start => in_quotes = true,
            b'\n' | b'\r' => {
                if !blank {
                    counts.push(count);
                }
                (count, field_start, blank) = (0, true, true);
                continue;
            }
            _ if b == d => {
                count += 1;
                field_start = true;
                blank = false;
                continue;
            }
            _ => {}
        }
        field_start = false;
        blank = false;
    }
    if complete && !blank {
        counts.push(count);
    }
    counts
}

/// The most frequent non-zero count and how many records have it; `None` when `d` never occurs.
fn mode(counts: &[usize]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for &c in counts.iter().filter(|&&c| c > 0) {
        let agreeing = counts.iter().filter(|&&x| x == c).count();
        if best.is_none_or(|(m, a)| (agreeing, c) > (a, m)) {
            best = Some((c, agreeing));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_each_candidate() {
        assert_eq!(sniff("a,b,c\n1,2,3\n", true), Some(b','));
        assert_eq!(sniff("a;b;c\n1;2;3\n", true), Some(b';'));
        assert_eq!(sniff("a\tb\tc\n1\t2\t3\n", true), Some(b'\t'));
        assert_eq!(sniff("a|b|c\n1|2|3\n", true), Some(b'|'));
        assert_eq!(sniff("phone\n+49151\n", true), None);
    }

    #[test]
    fn quoted_delimiters_and_stray_commas_do_not_vote() {
        let text = "Name;Firma;Notiz\n\"Weiß, Käthe\";\"Acme, Berlin\";x\nMüller;Atlas GmbH;\"a;b\"\n\
                    Schmidt;Rhein AG;called back, interested\n";
        assert_eq!(sniff(text, true), Some(b';'));
        let multiline = "a,b\n\"line 1\nline;2;3;4\",x\n1,2\n";
        assert_eq!(sniff(multiline, true), Some(b','));
    }

    #[test]
    fn sep_line_is_recognised() {
        assert_eq!(sep_line("sep=;\r\nName;Phone"), Some((b';', 7)));
        assert_eq!(sep_line("sep=|\nName"), Some((b'|', 6)));
        assert_eq!(sep_line("separator\n"), None);
    }

    /// Found by fuzzing (`scripts/fuzz.sh`, target `source`): slicing the text after `sep=`
    /// panicked when a character of several bytes followed it.
    #[test]
    fn sep_line_with_a_multibyte_character_is_no_sep_line() {
        assert_eq!(sep_line("sep=é\nPhone\n"), None);
        assert_eq!(sep_line("sep=İıü|jPhone|N;"), None);
        assert_eq!(sep_line("sep="), None);
    }
}

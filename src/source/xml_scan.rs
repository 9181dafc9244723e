//! A byte-level XML scanner that measures, in constant memory, what quick-xml would buffer
//! whole: each tag (attribute values included), comment, CDATA section, declaration and text
//! run. It hands tags and text lengths to a `Sink`, which keeps the per-format tallies
//! (cells, shared strings, ODS repeats) that `zip_scan` turns into limits.
//!
//! It is not a validating parser: it only has to agree with quick-xml on where markup ends,
//! so that a run it measures is never shorter than the event quick-xml would build.

use super::limits::{Limit, MAX_DEPTH, MAX_MARKUP_BYTES};

/// What the scanner reports; each call may refuse with the limit it hit.
pub(super) trait Sink {
    /// A start tag: its bytes between `<` and `>`, without a trailing `/`.
    fn start(&mut self, tag: &[u8]) -> Result<(), Limit>;
    /// An end tag's local name (also sent right after a self-closing start tag).
    fn end(&mut self, local: &[u8]) -> Result<(), Limit>;
    /// Text of `len` bytes (character data or CDATA), possibly one piece of a longer run.
    fn text(&mut self, len: u64) -> Result<(), Limit>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Text,
    /// Inside `<...>`, with the open quote of an attribute value.
    Tag {
        quote: Option<u8>,
    },
    /// A comment, CDATA section or processing instruction, up to its terminator.
    Until {
        end: &'static [u8],
        matched: usize,
        cdata: bool,
    },
    /// `<!DOCTYPE ...>` with its internal subset in brackets.
    Doctype {
        depth: u32,
    },
}

/// Bytes of a tag kept to read its name and attributes; longer tags are a breach anyway.
const TAG_KEEP: usize = MAX_MARKUP_BYTES as usize;

pub(super) struct Scanner {
    state: State,
    tag: Vec<u8>,
    /// Length of the current text run or markup.
    run: u64,
    /// Open elements: quick-xml keeps each one's name until it closes.
    depth: u64,
    part: String,
}

impl Scanner {
    pub(super) fn new(part: &str) -> Scanner {
        Scanner { state: State::Text, tag: Vec::new(), run: 0, depth: 0, part: part.to_owned() }
    }

    fn markup_breach(&self) -> Limit {
        Limit::Markup { part: self.part.clone() }
    }

    fn grow(&mut self, n: usize) -> Result<(), Limit> {
        self.run += n as u64;
        if self.run > MAX_MARKUP_BYTES {
            return Err(self.markup_breach());
        }
        Ok(())
    }

    /// Scans the next chunk of the part.
    pub(super) fn feed(&mut self, mut data: &[u8], sink: &mut impl Sink) -> Result<(), Limit> {
        while !data.is_empty() {
            let used = match self.state {
                State::Text => self.text(data, sink)?,
                State::Tag { quote } => self.in_tag(data, quote, sink)?,
                State::Until { end, matched, cdata } => {
                    self.until(data, end, matched, cdata, sink)?
                }
                State::Doctype { depth } => self.doctype(data, depth)?,
            };
            data = &data[used..];
        }
        Ok(())
    }

    fn text(&mut self, data: &[u8], sink: &mut impl Sink) -> Result<usize, Limit> {
        let (len, used) = match memchr::memchr(b'<', data) {
            Some(at) => (at, at + 1),
            None => (data.len(), data.len()),
        };
        self.grow(len)?;
        if len > 0 {
            sink.text(len as u64)?;
        }
        if used > len {
            self.state = State::Tag { quote: None };
            self.tag.clear();
            self.run = 0;
        }
        Ok(used)
    }

    fn in_tag(
        &mut self,
        data: &[u8],
        mut quote: Option<u8>,
        sink: &mut impl Sink,
    ) -> Result<usize, Limit> {
        let mut i = 0;
        while i < data.len() {
            // A tag's first bytes may open a comment, CDATA, PI or DOCTYPE: those go byte by
            // byte; the rest of a tag is skipped quote to quote, as most of a sheet is tags.
            let (b, at) = if self.may_open_special() {
                (data[i], i)
            } else {
                let rest = &data[i..];
                let found = match quote {
                    Some(q) => memchr::memchr(q, rest),
                    None => memchr::memchr3(b'>', b'"', b'\'', rest),
                };
                let Some(offset) = found else {
                    self.keep(rest)?;
                    break;
                };
                (rest[offset], i + offset)
            };
            self.keep(&data[i..=at])?;
            i = at + 1;
            if self.tag.len() <= 8
                && let Some(special) = special_start(&self.tag)
            {
                self.state = special;
                return Ok(i);
            }
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None if b == b'"' || b == b'\'' => quote = Some(b),
                None if b == b'>' => {
                    self.tag.pop();
                    self.finish_tag(sink)?;
                    self.state = State::Text;
                    self.run = 0;
                    return Ok(i);
                }
                None => {}
            }
        }
        self.state = State::Tag { quote };
        Ok(data.len())
    }

    /// Whether the tag so far could still turn out a comment, CDATA, PI or DOCTYPE.
    fn may_open_special(&self) -> bool {
        self.tag.len() < 8 && self.tag.first().is_none_or(|b| *b == b'!' || *b == b'?')
    }

    /// Counts `bytes` of the current tag and keeps them to read its name and attributes.
    fn keep(&mut self, bytes: &[u8]) -> Result<(), Limit> {
        self.grow(bytes.len())?;
        let room = TAG_KEEP.saturating_sub(self.tag.len());
        self.tag.extend_from_slice(&bytes[..bytes.len().min(room)]);
        Ok(())
    }

    fn finish_tag(&mut self, sink: &mut impl Sink) -> Result<(), Limit> {
        let tag = std::mem::take(&mut self.tag);
        let result = match tag.strip_prefix(b"/") {
            Some(rest) => {
                self.depth = self.depth.saturating_sub(1);
                sink.end(local_name(rest))
            }
            None => match tag.strip_suffix(b"/") {
                Some(open) => sink.start(open).and_then(|()| sink.end(local_name(open))),
                None => {
                    self.depth += 1;
                    if self.depth > MAX_DEPTH {
                        self.tag = tag;
                        return Err(Limit::Depth { part: self.part.clone() });
                    }
                    sink.start(&tag)
                }
            },
        };
        self.tag = tag;
        result
    }

    fn until(
        &mut self,
        data: &[u8],
        end: &'static [u8],
        mut matched: usize,
        cdata: bool,
        sink: &mut impl Sink,
    ) -> Result<usize, Limit> {
        for (i, &b) in data.iter().enumerate() {
            if b == end[matched] {
                matched += 1;
            } else if !(matched == 2 && end[0] == end[1] && b == end[1]) {
                // `--->` and `]]]>` still end the section: a repeated first byte keeps the match.
                matched = usize::from(b == end[0]);
            }
            if matched == end.len() {
                self.grow(i + 1)?;
                if cdata {
                    sink.text(self.run)?;
                }
                self.state = State::Text;
                self.run = 0;
                return Ok(i + 1);
            }
        }
        self.grow(data.len())?;
        self.state = State::Until { end, matched, cdata };
        Ok(data.len())
    }

    fn doctype(&mut self, data: &[u8], mut depth: u32) -> Result<usize, Limit> {
        for (i, &b) in data.iter().enumerate() {
            match b {
                b'[' => depth += 1,
                b']' => depth = depth.saturating_sub(1),
                b'>' if depth == 0 => {
                    self.grow(i + 1)?;
                    self.state = State::Text;
                    self.run = 0;
                    return Ok(i + 1);
                }
                _ => {}
            }
        }
        self.grow(data.len())?;
        self.state = State::Doctype { depth };
        Ok(data.len())
    }
}

/// The state a tag's first bytes switch to, when they open a comment, CDATA, PI or DOCTYPE.
fn special_start(tag: &[u8]) -> Option<State> {
    let until = |end, cdata| Some(State::Until { end, matched: 0, cdata });
    match tag {
        b"!--" => until(b"-->", false),
        b"![CDATA[" => until(b"]]>", true),
        [b'?'] => until(b"?>", false),
        [b'!', rest @ ..] if !rest.is_empty() => {
            let comment_or_cdata = b"--".starts_with(rest) || b"[CDATA[".starts_with(rest);
            (!comment_or_cdata).then_some(State::Doctype { depth: 0 })
        }
        _ => None,
    }
}

/// The element name of a tag, without its prefix.
pub(super) fn local_name(tag: &[u8]) -> &[u8] {
    let end = tag.iter().position(|b| b.is_ascii_whitespace() || *b == b'/').unwrap_or(tag.len());
    let name = &tag[..end];
    match name.iter().rposition(|b| *b == b':') {
        Some(colon) => &name[colon + 1..],
        None => name,
    }
}

/// The value of the attribute whose local name is `wanted`, as written (not unescaped).
pub(super) fn attribute<'t>(tag: &'t [u8], wanted: &[u8]) -> Option<&'t [u8]> {
    let mut rest = &tag[tag.iter().position(u8::is_ascii_whitespace)?..];
    loop {
        rest = rest.trim_ascii_start();
        let eq = rest.iter().position(|b| *b == b'=')?;
        let name = rest[..eq].trim_ascii();
        let after = rest[eq + 1..].trim_ascii_start();
        let quote = *after.first()?;
        let close = after[1..].iter().position(|b| *b == quote)?;
        let value = &after[1..1 + close];
        if local_name(name) == wanted {
            return Some(value);
        }
        rest = &after[close + 2..];
    }
}

/// A decimal count as calamine would read it; values it could not parse read as 1, huge
/// ones saturate (calamine's caps then apply).
pub(super) fn count(value: Option<&[u8]>) -> u64 {
    let Some(value) = value else { return 1 };
    let digits = value.trim_ascii();
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return 1;
    }
    digits.iter().fold(0u64, |n, d| n.saturating_mul(10).saturating_add(u64::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<String>);

    impl Sink for Log {
        fn start(&mut self, tag: &[u8]) -> Result<(), Limit> {
            self.0.push(format!("<{}", String::from_utf8_lossy(tag)));
            Ok(())
        }
        fn end(&mut self, local: &[u8]) -> Result<(), Limit> {
            self.0.push(format!("/{}", String::from_utf8_lossy(local)));
            Ok(())
        }
        fn text(&mut self, len: u64) -> Result<(), Limit> {
            self.0.push(format!("#{len}"));
            Ok(())
        }
    }

    fn scan(chunks: &[&[u8]]) -> Vec<String> {
        let (mut scanner, mut log) = (Scanner::new("p"), Log::default());
        for chunk in chunks {
            scanner.feed(chunk, &mut log).unwrap();
        }
        log.0
    }

    #[test]
    fn tags_text_and_specials_across_chunk_boundaries() {
        let events = scan(&[b"<a x='>'>ab<!-- <b> --->c<![CDA", b"TA[<]]]>d<e/></x:a>"]);
        assert_eq!(events, ["<a x='>'", "#2", "#1", "#13", "#1", "<e", "/e", "/a"]);
    }

    #[test]
    fn a_long_text_run_is_refused() {
        let mut scanner = Scanner::new("big.xml");
        let chunk = vec![b'a'; 1 << 20];
        let mut result = Ok(());
        for _ in 0..17 {
            result = result.and_then(|()| scanner.feed(&chunk, &mut Log::default()));
        }
        assert_eq!(result, Err(Limit::Markup { part: "big.xml".into() }));
    }

    #[test]
    fn attributes_and_counts() {
        let tag =
            b"table:table-cell table:number-columns-repeated=\"16384\" office:value-type='string'";
        assert_eq!(attribute(tag, b"number-columns-repeated"), Some(&b"16384"[..]));
        assert_eq!(attribute(tag, b"value-type"), Some(&b"string"[..]));
        assert_eq!(attribute(tag, b"formula"), None);
        assert_eq!(count(Some(b"99999999999999999999999")), u64::MAX);
        assert_eq!(count(Some(b"x")), 1);
        assert_eq!(local_name(b"x:si a='1'"), b"si");
    }
}

//! A pull tokenizer over a workbook part's XML: start and end tags, text and CDATA, borrowed
//! from a buffer of its own. It agrees with quick-xml (which calamine reads with) on where
//! markup ends: quotes in attribute values, comments, CDATA, processing instructions. It does
//! not validate, and it never holds more than one token. It is its own guard, with the limits
//! `zip_scan` holds every other part to: a tag, comment or text run over `MAX_MARKUP_BYTES`,
//! elements nested deeper than `MAX_DEPTH`, and a cell's text over `MAX_CELL_BYTES` are each
//! refused with their `Limit` (inside the `io::Error`) before more of them is read.

use std::io::{self, Read};
use std::ops::Range;

use memchr::memmem;

use super::super::limits::{Limit, MAX_CELL_BYTES, MAX_DEPTH, MAX_MARKUP_BYTES};

/// Tokens as calamine's quick-xml reader is set up to give them: a tag that closes itself
/// (`<c r="A1"/>`) comes as a start and an end.
pub(super) enum Token<'a> {
    /// A start tag: its local name and its attributes' bytes.
    Start {
        name: &'a [u8],
        attrs: &'a [u8],
    },
    End {
        name: &'a [u8],
    },
    /// Character data as written, entities and line ends not yet decoded.
    Text(&'a [u8]),
    CData(&'a [u8]),
    /// A comment, processing instruction or declaration: nothing to read, but quick-xml
    /// gives it as an event too, and calamine takes a `<v>` that starts with one as empty.
    Other,
}

/// Where a token lies in the buffer; comments, processing instructions and declarations are
/// only passed over.
enum Span {
    Start { name: Range<usize>, attrs: Range<usize>, empty: bool },
    End { name: Range<usize> },
    Text(Range<usize>),
    CData(Range<usize>),
    Skip,
}

const CHUNK: usize = 256 * 1024;

pub(super) struct Markup<R> {
    input: R,
    /// The part's name, for the limit it goes past.
    part: String,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    depth: u64,
    /// Text bytes read since `start_cell`, while a cell is open.
    cell_text: Option<u64>,
    /// The name of the self-closing tag just handed out, whose end comes next.
    pending_end: Option<Range<usize>>,
}

impl<R: Read> Markup<R> {
    pub(super) fn new(input: R, part: &str) -> Markup<R> {
        Markup {
            input,
            part: part.to_owned(),
            buf: vec![0; CHUNK],
            pos: 0,
            end: 0,
            eof: false,
            depth: 0,
            cell_text: None,
            pending_end: None,
        }
    }

    /// Counts the text from here on as one cell's, until `end_cell`.
    pub(super) fn start_cell(&mut self) {
        self.cell_text = Some(0);
    }

    pub(super) fn end_cell(&mut self) {
        self.cell_text = None;
    }

    fn breach(&self, limit: Limit) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, limit)
    }

    /// Holds the token about to be handed out to the limits.
    fn admit(&mut self, span: &Span) -> io::Result<()> {
        let markup = |range: &Range<usize>| (range.end - range.start) as u64 > MAX_MARKUP_BYTES;
        match span {
            Span::Start { name, attrs, .. } => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(self.breach(Limit::Depth { part: self.part.clone() }));
                }
                if markup(&(name.start..attrs.end)) {
                    return Err(self.breach(Limit::Markup { part: self.part.clone() }));
                }
            }
            Span::End { .. } => self.depth = self.depth.saturating_sub(1),
            Span::Text(text) | Span::CData(text) => {
                if markup(text) {
                    return Err(self.breach(Limit::Markup { part: self.part.clone() }));
                }
                if let Some(cell) = &mut self.cell_text {
                    *cell += text.len() as u64;
                    if *cell > MAX_CELL_BYTES {
                        return Err(self.breach(Limit::Cell { part: self.part.clone() }));
                    }
                }
            }
            Span::Skip => {}
        }
        Ok(())
    }

    /// The bytes after the last token that are already in the buffer (none while a
    /// self-closing tag's end is due), for a caller that reads a common shape straight.
    pub(super) fn ahead(&self) -> &[u8] {
        match self.pending_end {
            Some(_) => &[],
            None => &self.buf[self.pos..self.end],
        }
    }

    /// Passes over `len` bytes of `ahead`, which held balanced elements and then the end tag
    /// of the element open before them.
    pub(super) fn pass_to_end(&mut self, len: usize) {
        self.pos += len;
        self.depth = self.depth.saturating_sub(1);
    }

    /// The next token; `None` at the end of the part.
    pub(super) fn next_token(&mut self) -> io::Result<Option<Token<'_>>> {
        if let Some(name) = self.pending_end.take() {
            self.depth = self.depth.saturating_sub(1);
            return Ok(Some(Token::End { name: &self.buf[name] }));
        }
        let span = loop {
            match self.span() {
                Some(span) => {
                    self.admit(&span)?;
                    break span;
                }
                None if self.fill()? => continue,
                None if self.pos < self.end => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the part ends inside a tag",
                    ));
                }
                None => return Ok(None),
            }
        };
        let b = &self.buf;
        Ok(Some(match span {
            Span::Start { name, attrs, empty } => {
                if empty {
                    self.pending_end = Some(name.clone());
                }
                Token::Start { name: &b[name], attrs: &b[attrs] }
            }
            Span::End { name } => Token::End { name: &b[name] },
            Span::Text(text) => Token::Text(&b[text]),
            Span::CData(text) => Token::CData(&b[text]),
            Span::Skip => Token::Other,
        }))
    }

    /// Reads more after what is left; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        // What is left is one token not yet whole.
        if (self.end - self.pos) as u64 > MAX_MARKUP_BYTES {
            return Err(self.breach(Limit::Markup { part: self.part.clone() }));
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(self.pos < self.end);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The token at the front of the buffer and past it; `None` when it is not all there.
    fn span(&mut self) -> Option<Span> {
        let at = self.pos;
        let data = &self.buf[at..self.end];
        if data.is_empty() {
            return None;
        }
        if data[0] != b'<' {
            let len = match memchr::memchr(b'<', data) {
                Some(len) => len,
                None if self.eof => data.len(),
                None => return None,
            };
            self.pos += len;
            return Some(Span::Text(at..at + len));
        }
        // Enough to tell `<![CDATA[` from the rest, unless the part ends sooner.
        if data.len() < 9 && !self.eof {
            return None;
        }
        let (used, span) = if data.starts_with(b"<!--") {
            (4 + memmem::find(&data[4..], b"-->")? + 3, Span::Skip)
        } else if data.starts_with(b"<![CDATA[") {
            let len = memmem::find(&data[9..], b"]]>")?;
            (9 + len + 3, Span::CData(at + 9..at + 9 + len))
        } else if data.starts_with(b"<?") {
            (2 + memmem::find(&data[2..], b"?>")? + 2, Span::Skip)
        } else if data.starts_with(b"<!") {
            (memchr::memchr(b'>', data)? + 1, Span::Skip)
        } else {
            let close = tag_end(data)?;
            (close + 1, tag(&data[1..close], at + 1))
        };
        self.pos += used;
        Some(span)
    }
}

/// The index of the `>` that ends the tag at the start of `data`, outside quoted values.
/// Most tags are short: their first bytes are looked at one by one, which is quicker than
/// setting up a vector search for each.
fn tag_end(data: &[u8]) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in data.iter().enumerate().take(64).skip(1) {
        match (quote, b) {
            (None, b'>') => return Some(i),
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), b) if b == q => quote = None,
            _ => {}
        }
    }
    let mut i = 64.min(data.len());
    if let Some(q) = quote {
        i += memchr::memchr(q, &data[i..])? + 1;
    }
    loop {
        let found = i + memchr::memchr3(b'>', b'"', b'\'', &data[i..])?;
        match data[found] {
            b'>' => return Some(found),
            quote => i = found + 1 + memchr::memchr(quote, &data[found + 1..])? + 1,
        }
    }
}

/// A tag's parts, `inner` being its bytes between `<` and `>` found at `base`.
fn tag(inner: &[u8], base: usize) -> Span {
    if let Some(name) = inner.strip_prefix(b"/") {
        let name = name.trim_ascii();
        let from = base + 1 + (name.as_ptr() as usize - inner[1..].as_ptr() as usize);
        let local = local_start(name);
        return Span::End { name: from + local..from + name.len() };
    }
    let empty = inner.last() == Some(&b'/');
    let inner = if empty { &inner[..inner.len() - 1] } else { inner };
    let name_len = inner.iter().position(|b| b.is_ascii_whitespace()).unwrap_or(inner.len());
    let local = local_start(&inner[..name_len]);
    Span::Start {
        name: base + local..base + name_len,
        attrs: base + name_len..base + inner.len(),
        empty,
    }
}

/// Where the local name starts, past a namespace prefix (`x:c` is `c`).
fn local_start(name: &[u8]) -> usize {
    memchr::memrchr(b':', name).map_or(0, |i| i + 1)
}

/// The attributes of a tag, as (name, raw value) pairs; a malformed rest ends them.
pub(super) fn attributes(mut attrs: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    std::iter::from_fn(move || {
        let rest = attrs.trim_ascii_start();
        let eq = memchr::memchr(b'=', rest)?;
        let name = rest[..eq].trim_ascii();
        let value = rest[eq + 1..].trim_ascii_start();
        let quote = *value.first().filter(|q| matches!(q, b'"' | b'\''))?;
        let len = memchr::memchr(quote, &value[1..])?;
        attrs = &value[len + 2..];
        Some((name, &value[1..len + 1]))
    })
}

/// The raw value of the attribute named `key` exactly (prefix included).
pub(super) fn attribute<'a>(attrs: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    attributes(attrs).find(|(name, _)| *name == key).map(|(_, value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every token of `xml`, read `chunk` bytes at a time, written back as text.
    fn tokens(xml: &str, chunk: usize) -> Vec<String> {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut markup = Markup::new(Trickle(xml.as_bytes(), chunk), "part");
        let mut out = Vec::new();
        let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        while let Some(token) = markup.next_token().unwrap() {
            out.push(match token {
                Token::Start { name, attrs } => format!("<{}|{}>", s(name), s(attrs).trim()),
                Token::End { name } => format!("</{}>", s(name)),
                Token::Text(t) => format!("T:{}", s(t)),
                Token::CData(t) => format!("C:{}", s(t)),
                Token::Other => "other".to_owned(),
            });
        }
        out
    }

    #[test]
    fn tokens_come_whole_however_the_input_is_cut() {
        // A quoted `>` in a tag of a few bytes, and in a long one past where the bytes are
        // looked at one by one.
        let long = format!("<long a=\"{}>\" b='>'/>", "x".repeat(60));
        let xml = format!(
            "<?xml version=\"1.0\"?><x:c r=\"A1\" t='a>b'><!-- <c> --><v>1 &amp; 2</v>\
             <is><t><![CDATA[<raw>]]></t></is><e/>{long}</x:c >"
        );
        let long_token = format!("<long|a=\"{}>\" b='>'>", "x".repeat(60));
        let want = [
            "other",
            "<c|r=\"A1\" t='a>b'>",
            "other",
            "<v|>",
            "T:1 &amp; 2",
            "</v>",
            "<is|>",
            "<t|>",
            "C:<raw>",
            "</t>",
            "</is>",
            "<e|>",
            "</e>",
            &long_token,
            "</long>",
            "</c>",
        ];
        for chunk in [1, 2, 3, 7, 64, 1 << 20] {
            assert_eq!(tokens(&xml, chunk), want, "read {chunk} bytes at a time");
        }
    }

    #[test]
    fn a_part_cut_inside_a_tag_is_an_error() {
        let mut markup = Markup::new(&b"<c r=\"A1"[..], "part");
        assert!(markup.next_token().is_err());
    }

    #[test]
    fn attributes_are_read_with_either_quote() {
        let attrs = b" r=\"B7\" s = '3' xml:space=\"preserve\"";
        assert_eq!(attribute(attrs, b"r"), Some(&b"B7"[..]));
        assert_eq!(attribute(attrs, b"s"), Some(&b"3"[..]));
        assert_eq!(attribute(attrs, b"xml:space"), Some(&b"preserve"[..]));
        assert_eq!(attribute(attrs, b"t"), None);
    }
}

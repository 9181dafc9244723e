//! A pull tokenizer over a workbook part's XML: start and end tags, text and CDATA, borrowed
//! from a buffer of its own. It agrees with quick-xml (which calamine reads with) on where
//! markup ends: quotes in attribute values, comments, CDATA, processing instructions. It does
//! not validate, and it never builds more than one token: a worksheet's tokens are each
//! bounded by the scan of `zip_guard`, which refuses a part with a tag or text run over the
//! limit before its bytes are read here, and the buffer has a ceiling of its own besides.

use std::io::{self, Read};
use std::ops::Range;

use memchr::memmem;

pub(super) enum Token<'a> {
    /// A start tag: its local name, its attributes' bytes, and whether it closes itself.
    Start {
        name: &'a [u8],
        attrs: &'a [u8],
        empty: bool,
    },
    End {
        name: &'a [u8],
    },
    /// Character data as written, entities and line ends not yet decoded.
    Text(&'a [u8]),
    CData(&'a [u8]),
}

/// Where a token lies in the buffer; comments, processing instructions and declarations are
/// skipped.
enum Span {
    Start { name: Range<usize>, attrs: Range<usize>, empty: bool },
    End { name: Range<usize> },
    Text(Range<usize>),
    CData(Range<usize>),
    Skip,
}

const CHUNK: usize = 256 * 1024;
/// Four times the guard's limit on one tag or text run: a token this long means the part
/// was not scanned, and holding more would break the memory promise.
const MAX_BUFFER: usize = 64 << 20;

pub(super) struct Markup<R> {
    input: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
}

impl<R: Read> Markup<R> {
    pub(super) fn new(input: R) -> Markup<R> {
        Markup { input, buf: vec![0; CHUNK], pos: 0, end: 0, eof: false }
    }

    /// The next token; `None` at the end of the part.
    pub(super) fn next_token(&mut self) -> io::Result<Option<Token<'_>>> {
        let span = loop {
            match self.span() {
                Some(Span::Skip) => continue,
                Some(span) => break span,
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
                Token::Start { name: &b[name], attrs: &b[attrs], empty }
            }
            Span::End { name } => Token::End { name: &b[name] },
            Span::Text(text) => Token::Text(&b[text]),
            Span::CData(text) => Token::CData(&b[text]),
            Span::Skip => unreachable!("skipped above"),
        }))
    }

    /// Reads more after what is left; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            if self.buf.len() >= MAX_BUFFER {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "an XML tag is too long"));
            }
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
fn tag_end(data: &[u8]) -> Option<usize> {
    let mut i = 1;
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
        let mut markup = Markup::new(Trickle(xml.as_bytes(), chunk));
        let mut out = Vec::new();
        let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        while let Some(token) = markup.next_token().unwrap() {
            out.push(match token {
                Token::Start { name, attrs, empty } => {
                    format!("<{}|{}{}>", s(name), s(attrs).trim(), if empty { "/" } else { "" })
                }
                Token::End { name } => format!("</{}>", s(name)),
                Token::Text(t) => format!("T:{}", s(t)),
                Token::CData(t) => format!("C:{}", s(t)),
            });
        }
        out
    }

    #[test]
    fn tokens_come_whole_however_the_input_is_cut() {
        let xml = "<?xml version=\"1.0\"?><x:c r=\"A1\" t='a>b'><!-- <c> --><v>1 &amp; 2</v>\
                   <is><t><![CDATA[<raw>]]></t></is><e/></x:c >";
        let want = [
            "<c|r=\"A1\" t='a>b'>",
            "<v|>",
            "T:1 &amp; 2",
            "</v>",
            "<is|>",
            "<t|>",
            "C:<raw>",
            "</t>",
            "</is>",
            "<e|/>",
            "</c>",
        ];
        for chunk in [1, 2, 3, 7, 64, 1 << 20] {
            assert_eq!(tokens(xml, chunk), want, "read {chunk} bytes at a time");
        }
    }

    #[test]
    fn a_part_cut_inside_a_tag_is_an_error() {
        let mut markup = Markup::new(&b"<c r=\"A1"[..]);
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

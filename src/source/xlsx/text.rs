//! Text as calamine decodes it from a workbook's XML, so leadsync's own reading of a worksheet
//! gives the same strings: entities (`&amp;`, `&#x41;`), XML 1.0 line ends (`\r\n` is `\n`,
//! a character reference is kept as written), Excel's `_xHHHH_` escapes of UTF-16 units, and
//! a string element's `<t>` runs without the phonetic guide (`<rPh>`).

use std::io::{self, Read};

use super::markup::{Markup, Token, attribute};

/// Appends `raw` character data to `out`, decoded. An entity nobody defines is kept as written.
pub(super) fn decode_into(raw: &[u8], out: &mut String) {
    let mut rest = raw;
    while let Some(amp) = memchr::memchr(b'&', rest) {
        push_literal(&rest[..amp], out);
        rest = &rest[amp..];
        let entity = memchr::memchr(b';', rest)
            .and_then(|semi| resolve(&rest[1..semi]).map(|resolved| (semi, resolved)));
        match entity {
            Some((semi, resolved)) => {
                resolved.push_to(out);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    push_literal(rest, out);
}

/// Literal text with XML 1.0's line ends: `\r\n` and a lone `\r` are `\n`.
fn push_literal(text: &[u8], out: &mut String) {
    let text = match std::str::from_utf8(text) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(text),
    };
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        out.push_str(&text);
        return;
    }
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            chars.next_if_eq(&'\n');
            out.push('\n');
        } else {
            out.push(c);
        }
    }
}

enum Resolved {
    Str(&'static str),
    Char(char),
}

impl Resolved {
    fn push_to(self, out: &mut String) {
        match self {
            Resolved::Str(s) => out.push_str(s),
            Resolved::Char(c) => out.push(c),
        }
    }
}

fn resolve(name: &[u8]) -> Option<Resolved> {
    let named = match name {
        b"lt" => "<",
        b"gt" => ">",
        b"amp" => "&",
        b"apos" => "'",
        b"quot" => "\"",
        _ => {
            let number = name.strip_prefix(b"#")?;
            let (digits, radix) = match number.strip_prefix(b"x") {
                Some(hex) => (hex, 16),
                None => (number, 10),
            };
            let code = u32::from_str_radix(std::str::from_utf8(digits).ok()?, radix).ok()?;
            return char::from_u32(code).filter(|c| *c != '\0').map(Resolved::Char);
        }
    };
    Some(Resolved::Str(named))
}

/// A decoded attribute value.
pub(super) fn attribute_text(raw: &[u8]) -> String {
    let mut out = String::new();
    decode_into(raw, &mut out);
    out
}

/// Excel's `_xHHHH_` escapes undone: `_x000D_` is a carriage return, a surrogate pair comes as
/// two escapes, and `_x005F_` escapes the underscore of a literal `_x000D_`.
pub(super) fn unescape_excel(text: &str) -> std::borrow::Cow<'_, str> {
    const LEN: usize = 7;
    let unit_at = |i: usize| -> Option<u16> {
        let b = text.as_bytes().get(i..i + LEN)?;
        let hex = &b[2..6];
        if b[0] != b'_' || b[1] != b'x' || b[6] != b'_' || !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let find = |from: usize| {
        text[from..].match_indices('_').map(|(i, _)| from + i).find_map(|i| Some((i, unit_at(i)?)))
    };
    let Some(mut next) = find(0) else {
        return std::borrow::Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    loop {
        let (mut index, unit) = next;
        out.push_str(&text[copied..index]);
        index += LEN;
        match unit {
            0xD800..=0xDBFF => match unit_at(index) {
                Some(low @ 0xDC00..=0xDFFF) => {
                    let code =
                        0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                    index += LEN;
                }
                _ => out.push(char::REPLACEMENT_CHARACTER),
            },
            0xDC00..=0xDFFF => out.push(char::REPLACEMENT_CHARACTER),
            _ => out.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER)),
        }
        copied = index;
        match find(index) {
            Some(found) => next = found,
            None => break,
        }
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

/// What a `<t>` run is trimmed of unless it keeps its spaces: ASCII white space only, so a
/// no-break space stays.
pub(super) const TRIMMED: [char; 4] = [' ', '\t', '\r', '\n'];

/// The text of a string element (`<si>` of the shared strings, `<is>` of a cell), read up to
/// its end tag `closing`, into `out` (cleared first): its `<t>` runs joined, phonetic runs
/// left out, each run trimmed of ASCII white space unless it asks to be kept as it is.
pub(super) fn read_string<R: Read>(
    xml: &mut Markup<R>,
    closing: &[u8],
    out: &mut String,
    run: &mut String,
) -> io::Result<()> {
    out.clear();
    let mut phonetic = false;
    loop {
        let Some(token) = xml.next_token()? else {
            return Err(unexpected_end(closing));
        };
        match token {
            Token::Start { name: b"rPh", .. } => phonetic = true,
            Token::End { name: b"rPh" } => phonetic = false,
            Token::End { name } if name == closing => return Ok(()),
            Token::Start { name: b"t", attrs } if !phonetic => {
                let preserve = attribute(attrs, b"xml:space") == Some(b"preserve");
                run.clear();
                read_text(xml, b"t", run)?;
                let kept = if preserve { run.as_str() } else { run.trim_matches(TRIMMED) };
                out.push_str(&unescape_excel(kept));
            }
            _ => {}
        }
    }
}

/// Character data and CDATA up to the end tag `closing`, decoded into `out`.
pub(super) fn read_text<R: Read>(
    xml: &mut Markup<R>,
    closing: &[u8],
    out: &mut String,
) -> io::Result<()> {
    loop {
        match xml.next_token()? {
            None => return Err(unexpected_end(closing)),
            Some(Token::Text(raw)) => decode_into(raw, out),
            Some(Token::CData(raw)) => push_literal(raw, out),
            Some(Token::End { name }) if name == closing => return Ok(()),
            Some(_) => {}
        }
    }
}

pub(super) fn unexpected_end(inside: &[u8]) -> io::Error {
    let inside = String::from_utf8_lossy(inside);
    io::Error::new(io::ErrorKind::UnexpectedEof, format!("the part ends inside <{inside}>"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(raw: &str) -> String {
        let mut out = String::new();
        decode_into(raw.as_bytes(), &mut out);
        out
    }

    #[test]
    fn entities_and_line_ends_decode_as_xml_says() {
        assert_eq!(decoded("a &amp; b &lt;&gt; &quot;&apos;"), "a & b <> \"'");
        assert_eq!(decoded("&#65;&#x42;&#xe4;"), "ABä");
        assert_eq!(decoded("one\r\ntwo\rthree&#13;"), "one\ntwo\nthree\r");
        assert_eq!(decoded("R&D &unknown; & done"), "R&D &unknown; & done");
    }

    #[test]
    fn excel_escapes_are_undone() {
        assert_eq!(unescape_excel("a_x000D_b"), "a\rb");
        assert_eq!(unescape_excel("_x005F_x000D_"), "_x000D_");
        assert_eq!(unescape_excel("_xD83D__xDCF7_"), "\u{1F4F7}");
        assert_eq!(unescape_excel("_xD83D_"), "\u{FFFD}");
        assert_eq!(unescape_excel("plain_x00_"), "plain_x00_");
    }

    #[test]
    fn a_rich_string_joins_its_runs_without_the_phonetic_guide() {
        let xml = "<r><t>Tok</t></r><r><t xml:space=\"preserve\"> yo </t></r>\
                   <rPh><t>トウキョウ</t></rPh><t>\n  end </t></si>";
        let mut markup = Markup::new(xml.as_bytes(), "xl/sharedStrings.xml");
        let (mut out, mut run) = (String::new(), String::new());
        read_string(&mut markup, b"si", &mut out, &mut run).unwrap();
        assert_eq!(out, "Tok yo end");
    }
}

//! What a worksheet's cells need from the rest of an XLSX, found as calamine finds it: the
//! worksheet's part (the package's relationships name the workbook, whose relationships name
//! each sheet's part), the shared strings, and which cell styles show a number as a date or a
//! duration. The date rules are calamine's (MIT), so a date reads the same either way.

use std::collections::HashMap;
use std::io::{self, Read, Seek};

use super::markup::{Markup, Token, attribute};
use super::text::{attribute_text, read_string};

/// How a style shows a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shown {
    Number,
    Date,
    Duration,
}

/// The parts of one workbook, looked up as calamine does: without regard to case or `\`.
pub(super) struct Package<R: Read + Seek> {
    zip: zip::ZipArchive<R>,
    names: HashMap<String, String>,
    /// The workbook part's folder (`xl/`) and name (`workbook.xml`).
    folder: String,
    workbook: String,
}

impl<R: Read + Seek> Package<R> {
    pub(super) fn open(reader: R) -> io::Result<Package<R>> {
        let zip = zip::ZipArchive::new(reader).map_err(io::Error::other)?;
        let names = zip
            .file_names()
            .filter_map(Result::ok)
            .map(|name| (name.replace('\\', "/").to_ascii_lowercase(), name.into_owned()))
            .collect();
        let mut package =
            Package { zip, names, folder: String::new(), workbook: "workbook.xml".to_owned() };
        let target = package
            .relationships("_rels/.rels")?
            .into_values()
            .find(|(_, kind)| kind.ends_with("/relationships/officeDocument"))
            .map(|(target, _)| target)
            .ok_or_else(|| missing("the workbook's relationship"))?;
        let (folder, name) = target.split_at(target.rfind('/').map_or(0, |i| i + 1));
        package.folder = folder.strip_prefix('/').unwrap_or(folder).to_owned();
        if !name.is_empty() {
            package.workbook = name.to_owned();
        }
        Ok(package)
    }

    /// The part `path`, read as it inflates.
    pub(super) fn part(
        &mut self,
        path: &str,
    ) -> io::Result<Option<Markup<zip::read::ZipFile<'_, R>>>> {
        let name = self.names.get(&path.to_ascii_lowercase()).map_or(path, String::as_str);
        match self.zip.by_name(name) {
            Ok(file) => Ok(Some(Markup::new(file, name))),
            Err(zip::result::ZipError::FileNotFound) => Ok(None),
            Err(e) => Err(io::Error::other(e)),
        }
    }

    /// The zip entry's own name for the part `path`, as calamine looks it up.
    pub(super) fn entry<'a>(&'a self, path: &'a str) -> &'a str {
        self.names.get(&path.to_ascii_lowercase()).map_or(path, String::as_str)
    }

    /// Relationship id to (target, type) in the relationships part `path`.
    fn relationships(&mut self, path: &str) -> io::Result<HashMap<String, (String, String)>> {
        let mut xml = self.part(path)?.ok_or_else(|| missing(path))?;
        let mut found = HashMap::new();
        while let Some(token) = xml.next_token()? {
            if let Token::Start { name: b"Relationship", attrs, .. } = token {
                let value = |key: &[u8]| attribute(attrs, key).map(attribute_text);
                if let Some(id) = value(b"Id") {
                    let target = value(b"Target").unwrap_or_default();
                    found.insert(id, (target, value(b"Type").unwrap_or_default()));
                }
            }
        }
        Ok(found)
    }

    /// The part that holds the sheet named `sheet`.
    pub(super) fn sheet_part(&mut self, sheet: &str) -> io::Result<String> {
        let rels = format!("{}_rels/{}.rels", self.folder, self.workbook);
        let relationships = self.relationships(&rels)?;
        let workbook = format!("{}{}", self.folder, self.workbook);
        let folder = self.folder.clone();
        let mut xml = self.part(&workbook)?.ok_or_else(|| missing(&workbook))?;
        while let Some(token) = xml.next_token()? {
            let Token::Start { name: b"sheet", attrs, .. } = token else { continue };
            let name = attribute(attrs, b"name").map(attribute_text);
            if name.as_deref() != Some(sheet) {
                continue;
            }
            let id = super::markup::attributes(attrs)
                .find(|(key, _)| key.rsplit(|b| *b == b':').next() == Some(b"id"))
                .map(|(_, value)| attribute_text(value));
            let target = id.and_then(|id| relationships.get(&id)).map(|(target, _)| target);
            let target = target.ok_or_else(|| missing("the sheet's relationship"))?;
            return Ok(match target.strip_prefix('/') {
                Some(absolute) => absolute.to_owned(),
                None => format!("{folder}{target}"),
            });
        }
        Err(missing(&format!("the sheet `{sheet}`")))
    }

    /// The shared strings, in order; none when the workbook has no such part.
    pub(super) fn shared_strings(&mut self) -> io::Result<Vec<String>> {
        let path = format!("{}sharedStrings.xml", self.folder);
        let Some(mut xml) = self.part(&path)? else { return Ok(Vec::new()) };
        let (mut strings, mut out, mut run) = (Vec::new(), String::new(), String::new());
        while let Some(token) = xml.next_token()? {
            match token {
                Token::Start { name: b"si", .. } => {
                    read_string(&mut xml, b"si", &mut out, &mut run)?;
                    strings.push(out.clone());
                }
                Token::End { name: b"sst" } => break,
                _ => {}
            }
        }
        Ok(strings)
    }

    /// How each cell style (`cellXfs`, by index) shows a number.
    pub(super) fn styles(&mut self) -> io::Result<Vec<Shown>> {
        let path = format!("{}styles.xml", self.folder);
        let Some(mut xml) = self.part(&path)? else { return Ok(Vec::new()) };
        let (mut formats, mut shown) = (HashMap::new(), Vec::new());
        let mut section: Option<&'static [u8]> = None;
        while let Some(token) = xml.next_token()? {
            match token {
                Token::Start { name: b"numFmts", .. } => section = Some(b"numFmts"),
                Token::Start { name: b"cellXfs", .. } => section = Some(b"cellXfs"),
                Token::End { name } if section == Some(name) => section = None,
                Token::Start { name: b"numFmt", attrs, .. } if section == Some(b"numFmts") => {
                    let id = attribute(attrs, b"numFmtId").map(|id| id.to_vec());
                    let code = attribute(attrs, b"formatCode").map(attribute_text);
                    if let (Some(id), Some(code)) = (id, code) {
                        formats.insert(id, code);
                    }
                }
                Token::Start { name: b"xf", attrs, .. } if section == Some(b"cellXfs") => {
                    shown.push(attribute(attrs, b"numFmtId").map_or(Shown::Number, |id| {
                        match formats.get(id) {
                            Some(code) => shown_by_code(code),
                            None => shown_by_builtin_id(id),
                        }
                    }));
                }
                _ => {}
            }
        }
        Ok(shown)
    }
}

fn missing(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, format!("{what} is missing"))
}

/// Excel's built-in formats that show a date or time (ECMA-376 18.8.30), as calamine has them.
fn shown_by_builtin_id(id: &[u8]) -> Shown {
    match id {
        b"14" | b"15" | b"16" | b"17" | b"18" | b"19" | b"20" | b"21" | b"22" | b"45" | b"47" => {
            Shown::Date
        }
        b"27" | b"28" | b"29" | b"30" | b"31" | b"32" | b"33" | b"34" | b"35" | b"36" | b"50"
        | b"51" | b"52" | b"53" | b"54" | b"55" | b"56" | b"57" | b"58" => Shown::Date,
        b"46" => Shown::Duration,
        _ => Shown::Number,
    }
}

/// Whether a custom format code shows a date, a duration (`[h]:mm`) or a number: calamine's
/// `detect_custom_number_format`, token for token. Only the first section counts.
fn shown_by_code(format: &str) -> Shown {
    let mut escaped = false;
    let mut is_quote = false;
    let mut brackets = 0u8;
    let mut prev = ' ';
    let mut hms = false;
    let mut ap = false;
    for s in format.chars() {
        match (s, escaped, is_quote, ap, brackets) {
            (_, true, ..) => escaped = false,
            ('_' | '\\' | '*', ..) => escaped = true,
            ('"', _, true, _, _) => is_quote = false,
            (_, _, true, _, _) => (),
            ('"', _, _, _, _) => is_quote = true,
            (';', ..) => return Shown::Number,
            ('[', ..) => brackets += 1,
            (']', .., 1) if hms => return Shown::Duration,
            (']', ..) => brackets = brackets.saturating_sub(1),
            ('a' | 'A', _, _, false, 0) => ap = true,
            ('p' | 'm' | '/' | 'P' | 'M', _, _, true, 0) => return Shown::Date,
            ('d' | 'm' | 'h' | 'y' | 's' | 'D' | 'M' | 'H' | 'Y' | 'S', _, _, false, 0) => {
                return Shown::Date;
            }
            _ => {
                if !(hms && s.eq_ignore_ascii_case(&prev)) {
                    hms = prev == '[' && matches!(s, 'm' | 'h' | 's' | 'M' | 'H' | 'S');
                }
            }
        }
        prev = s;
    }
    Shown::Number
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_show_dates_durations_and_numbers_as_calamine_decides() {
        assert_eq!(shown_by_code("DD/MM/YY"), Shown::Date);
        assert_eq!(shown_by_code("H:MM:SS;@"), Shown::Date);
        assert_eq!(shown_by_code("[h]:mm:ss"), Shown::Duration);
        assert_eq!(shown_by_code("#,##0.00"), Shown::Number);
        assert_eq!(shown_by_code("[Red][<-25]General;[Blue][>25]General"), Shown::Number);
        assert_eq!(shown_by_code("\"Day\" 0"), Shown::Number);
        assert_eq!(shown_by_builtin_id(b"14"), Shown::Date);
        assert_eq!(shown_by_builtin_id(b"46"), Shown::Duration);
        assert_eq!(shown_by_builtin_id(b"49"), Shown::Number);
    }
}

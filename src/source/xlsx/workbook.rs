//! What a worksheet's cells need from the rest of an XLSX, found as calamine finds it: the
//! worksheet's part (the package's relationships name the workbook, whose relationships name
//! each sheet's part), the shared strings, and which cell styles show a number as a date or a
//! duration, by the rules `xls_formats` ported from calamine, so a date reads the same either
//! way.

use std::collections::HashMap;
use std::io::{self, Read, Seek};

use super::super::shown;
use super::super::xls_formats::{Kind as Shown, builtin_kind, kind};
use super::markup::{Markup, Token, attribute};
use super::text::{attribute_text, read_string, read_text};

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
        let name = entry_in(&self.names, path);
        match self.zip.by_name(name) {
            Ok(file) => Ok(Some(Markup::new(file, name))),
            Err(zip::result::ZipError::FileNotFound) => Ok(None),
            Err(e) => Err(io::Error::other(e)),
        }
    }

    /// How many bytes the part `path` inflates to.
    pub(super) fn part_size(&mut self, path: &str) -> io::Result<u64> {
        let name = entry_in(&self.names, path);
        Ok(self.zip.by_name(name).map_err(io::Error::other)?.size())
    }

    /// The zip entry's own name for the part `path`, as calamine looks it up.
    pub(super) fn entry<'a>(&'a self, path: &'a str) -> &'a str {
        entry_in(&self.names, path)
    }

    /// The workbook part's path (`xl/workbook.xml`), as the zip names it.
    pub(super) fn workbook_entry(&self) -> String {
        let path = format!("{}{}", self.folder, self.workbook);
        self.entry(&path).to_owned()
    }

    /// The ids of the workbook's relationships whose type ends with one of `kinds`
    /// (`/xlMacrosheet`).
    pub(super) fn workbook_relationships_of(&mut self, kinds: &[&str]) -> io::Result<Vec<String>> {
        let rels = format!("{}_rels/{}.rels", self.folder, self.workbook);
        let found = self.relationships(&rels)?.into_iter();
        let of_kind = found.filter(|(_, (_, kind))| kinds.iter().any(|k| kind.ends_with(k)));
        Ok(of_kind.map(|(id, _)| id).collect())
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

    /// The part that holds the sheet named `sheet`, and the rows its autofilter covers.
    pub(super) fn sheet_part(&mut self, sheet: &str) -> io::Result<(String, Option<FilterRows>)> {
        let rels = format!("{}_rels/{}.rels", self.folder, self.workbook);
        let relationships = self.relationships(&rels)?;
        let workbook = format!("{}{}", self.folder, self.workbook);
        let folder = self.folder.clone();
        let mut xml = self.part(&workbook)?.ok_or_else(|| missing(&workbook))?;
        let (mut position, mut found, mut filter) = (0usize, None, None);
        let mut text = String::new();
        while let Some(token) = xml.next_token()? {
            match token {
                Token::Start { name: b"sheet", attrs, .. } if found.is_none() => {
                    let name = attribute(attrs, b"name").map(attribute_text);
                    if name.as_deref() != Some(sheet) {
                        position += 1;
                        continue;
                    }
                    let id = super::markup::attributes(attrs)
                        .find(|(key, _)| key.rsplit(|b| *b == b':').next() == Some(b"id"))
                        .map(|(_, value)| attribute_text(value));
                    let target = id.and_then(|id| relationships.get(&id)).map(|(t, _)| t);
                    let target = target.ok_or_else(|| missing("the sheet's relationship"))?;
                    found = Some(match target.strip_prefix('/') {
                        Some(absolute) => absolute.to_owned(),
                        None => format!("{folder}{target}"),
                    });
                }
                Token::Start { name: b"definedName", attrs, .. } if found.is_some() => {
                    let name = attribute(attrs, b"name").map(attribute_text);
                    let local = attribute(attrs, b"localSheetId").map(attribute_text);
                    let this_sheet = local.and_then(|l| l.parse().ok()) == Some(position);
                    if name.as_deref() == Some("_xlnm._FilterDatabase") && this_sheet {
                        text.clear();
                        read_text(&mut xml, b"definedName", &mut text)?;
                        filter = filter_rows(&text);
                    }
                }
                _ => {}
            }
        }
        let part = found.ok_or_else(|| missing(&format!("the sheet `{sheet}`")))?;
        Ok((part, filter))
    }

    /// The totals rows (0-based) of the tables on the worksheet in the part `sheet`: a table's
    /// last `totalsRowCount` rows.
    pub(super) fn totals_rows(&mut self, sheet: &str) -> io::Result<Vec<u32>> {
        let (folder, name) = sheet.split_at(sheet.rfind('/').map_or(0, |i| i + 1));
        let rels = format!("{folder}_rels/{name}.rels");
        if self.part(&rels)?.is_none() {
            return Ok(Vec::new());
        }
        let tables: Vec<String> = (self.relationships(&rels)?.into_values())
            .filter(|(_, kind)| kind.ends_with("/relationships/table"))
            .map(|(target, _)| joined(folder, &target))
            .collect();
        let mut rows = Vec::new();
        for table in tables {
            let Some(mut xml) = self.part(&table)? else { continue };
            while let Some(token) = xml.next_token()? {
                let Token::Start { name: b"table", attrs, .. } = token else { continue };
                // Excel's tables have one totals row or none; a larger count is damage.
                let count = attribute(attrs, b"totalsRowCount").and_then(super::parse_number);
                let range = attribute(attrs, b"ref").and_then(super::parse_dimensions);
                if let (Some(1..), Some(range)) = (count, range) {
                    rows.extend((range.end.0 > range.start.0).then_some(range.end.0));
                }
                break;
            }
        }
        Ok(rows)
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
    pub(super) fn styles(&mut self) -> io::Result<Styles> {
        let path = format!("{}styles.xml", self.folder);
        let Some(mut xml) = self.part(&path)? else { return Ok(Styles::default()) };
        let (mut formats, mut styles) = (HashMap::new(), Styles::default());
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
                    let id = attribute(attrs, b"numFmtId");
                    let custom = id.and_then(|id| formats.get(id));
                    let builtin = id.and_then(builtin_id);
                    styles.kinds.push(match (custom, builtin) {
                        (Some(code), _) => kind(code),
                        (None, Some(builtin)) => builtin_kind(builtin),
                        (None, None) => Shown::Number,
                    });
                    let code = custom.map(String::as_str);
                    let code = code
                        .or_else(|| builtin.and_then(|id| ssfmt::format_code_from_id(id.into())));
                    let format = code.and_then(|code| styles.compiled(code));
                    styles.number_formats.push(format);
                }
                _ => {}
            }
        }
        Ok(styles)
    }
}

/// How each cell style (by index) shows a number: its kind, and the format a number of the
/// kind `Number` is shown in when that format carries meaning (`shown::compile`).
#[derive(Default)]
pub(in super::super) struct Styles {
    pub kinds: Vec<Shown>,
    number_formats: Vec<Option<usize>>,
    compiled: Vec<shown::Shown>,
    /// Each format code compiled once, however many styles use it: its index in `compiled`.
    known: HashMap<String, Option<usize>>,
}

impl Styles {
    /// The format numbers of style `style` are shown in, if it changes how they read.
    pub(in super::super) fn number_format(&self, style: usize) -> Option<&shown::Shown> {
        let index = (*self.number_formats.get(style)?)?;
        self.compiled.get(index)
    }

    fn compiled(&mut self, code: &str) -> Option<usize> {
        if let Some(known) = self.known.get(code) {
            return *known;
        }
        let index = shown::compile(code).map(|format| {
            self.compiled.push(format);
            self.compiled.len() - 1
        });
        self.known.insert(code.to_owned(), index);
        index
    }
}

/// The part `target` names relative to `folder` (`xl/worksheets/` and `../tables/t1.xml` give
/// `xl/tables/t1.xml`), or absolutely.
fn joined(folder: &str, target: &str) -> String {
    if let Some(absolute) = target.strip_prefix('/') {
        return absolute.to_owned();
    }
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for piece in target.split('/') {
        match piece {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            piece => parts.push(piece),
        }
    }
    parts.join("/")
}

/// The rows an autofilter covers, 0-based: its header row, then its last row.
pub(in super::super) type FilterRows = (u32, u32);

/// `Leads!$A$1:$D$40` (or `'My leads'!$A$1:$D$40`) as the rows it spans.
fn filter_rows(range: &str) -> Option<FilterRows> {
    let cells = range.rsplit('!').next()?.replace('$', "");
    let mut ends = cells.split(':').map(|end| super::parse_reference(end.as_bytes()));
    let (first, _) = ends.next()??;
    let last = match ends.next() {
        Some(end) => end?.0,
        None => first,
    };
    Some((first, last))
}

/// The entry named `path` without regard to case or `\`, or `path` itself; a free function
/// so that `part` can borrow the names beside the zip it reads from.
fn entry_in<'a>(names: &'a HashMap<String, String>, path: &'a str) -> &'a str {
    names.get(&path.to_ascii_lowercase()).map_or(path, String::as_str)
}

/// A built-in format's id as calamine looks it up, by the digits as written: `014` or `+14`
/// names none.
fn builtin_id(id: &[u8]) -> Option<u16> {
    let canonical = id.iter().all(u8::is_ascii_digit) && (id == b"0" || id.first() != Some(&b'0'));
    std::str::from_utf8(id).ok().filter(|_| canonical)?.parse().ok()
}

fn missing(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, format!("{what} is missing"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workbook of only a styles part, for `Package::styles`.
    fn styles(xml: &str) -> Vec<Shown> {
        styles_of(xml).kinds
    }

    fn styles_of(xml: &str) -> Styles {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        zip.start_file("_rels/.rels", zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(br#"<Relationships><Relationship Id="r" Type="x/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#).unwrap();
        zip.start_file("xl/styles.xml", zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(xml.as_bytes()).unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        Package::open(std::io::Cursor::new(bytes)).unwrap().styles().unwrap()
    }

    /// The totals rows a sheet's tables (`refs` and `totalsRowCount` values) have.
    fn totals_of(tables: &[(&str, &str)]) -> Vec<u32> {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        zip.start_file("_rels/.rels", options).unwrap();
        zip.write_all(br#"<Relationships><Relationship Id="r" Type="x/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#).unwrap();
        let mut rels = String::from("<Relationships>");
        for (i, (range, count)) in tables.iter().enumerate() {
            rels.push_str(&format!(r#"<Relationship Id="t{i}" Type="x/relationships/table" Target="../tables/table{i}.xml"/>"#));
            zip.start_file(format!("xl/tables/table{i}.xml"), options).unwrap();
            let table = format!(r#"<table ref="{range}" totalsRowCount="{count}"></table>"#);
            zip.write_all(table.as_bytes()).unwrap();
        }
        rels.push_str("</Relationships>");
        zip.start_file("xl/worksheets/_rels/sheet1.xml.rels", options).unwrap();
        zip.write_all(rels.as_bytes()).unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        let mut package = Package::open(std::io::Cursor::new(bytes)).unwrap();
        let mut rows = package.totals_rows("xl/worksheets/sheet1.xml").unwrap();
        rows.sort_unstable();
        rows
    }

    #[test]
    fn a_table_s_totals_row_is_its_last_and_damage_adds_none() {
        assert_eq!(totals_of(&[("A1:C4", "1"), ("E10:F20", "1")]), [3, 19]);
        assert_eq!(totals_of(&[("A1:C4", "0")]), Vec::<u32>::new(), "no totals row");
        // Excel's tables have one; a huge count or a header-only table names no more.
        assert_eq!(totals_of(&[("A1:C1048576", "4000000000")]), [1_048_575]);
        assert_eq!(totals_of(&[("A1:C1", "1")]), Vec::<u32>::new());
    }

    #[test]
    fn relative_targets_are_joined_to_their_folder() {
        assert_eq!(joined("xl/worksheets/", "../tables/table1.xml"), "xl/tables/table1.xml");
        assert_eq!(joined("xl/worksheets/", "/xl/tables/t.xml"), "xl/tables/t.xml");
        assert_eq!(joined("xl/", "worksheets/./sheet1.xml"), "xl/worksheets/sheet1.xml");
    }

    #[test]
    fn an_autofilter_s_defined_name_gives_the_rows_it_covers() {
        assert_eq!(filter_rows("Leads!$A$1:$D$40"), Some((0, 39)));
        assert_eq!(filter_rows("'My leads!'!$B$3:$C$9"), Some((2, 8)));
        assert_eq!(filter_rows("Leads!$A$5"), Some((4, 4)));
        assert_eq!(filter_rows("#REF!"), None);
    }

    #[test]
    fn number_formats_are_compiled_once_and_only_where_they_carry_meaning() {
        let xml = r#"<styleSheet><numFmts><numFmt numFmtId="164" formatCode="00000"/>
            <numFmt numFmtId="165" formatCode="dd/mm/yyyy"/></numFmts>
            <cellXfs><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="0"/><xf numFmtId="10"/>
            <xf numFmtId="164"/><xf numFmtId="11"/><xf/></cellXfs></styleSheet>"#;
        let styles = styles_of(xml);
        let shown: Vec<bool> = (0..8).map(|i| styles.number_format(i).is_some()).collect();
        // 00000 twice, 0.00% built in; not the date, General, 0.00E+00, none, or past the end.
        assert_eq!(shown, [true, false, false, true, true, false, false, false]);
        assert_eq!(styles.compiled.len(), 2, "each code once");
    }

    #[test]
    fn styles_show_dates_durations_and_numbers_as_calamine_decides() {
        let xml = r#"<styleSheet><numFmts><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/>
            <numFmt numFmtId="165" formatCode="&quot;Day&quot; 0"/></numFmts>
            <cellStyleXfs><xf numFmtId="14"/></cellStyleXfs>
            <cellXfs><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="14"/><xf numFmtId="46"/>
            <xf numFmtId="49"/><xf numFmtId="014"/><xf/></cellXfs></styleSheet>"#;
        use Shown::{Date, Duration, Number};
        assert_eq!(styles(xml), [Date, Number, Date, Duration, Number, Number, Number]);
        // The rules themselves, shared with `xls_formats`.
        assert_eq!(kind("DD/MM/YY"), Date);
        assert_eq!(kind("H:MM:SS;@"), Date);
        assert_eq!(kind("[h]:mm:ss"), Duration);
        assert_eq!(kind("#,##0.00"), Number);
        assert_eq!(kind("[Red][<-25]General;[Blue][>25]General"), Number);
        assert_eq!(kind("\"Day\" 0"), Number);
        assert_eq!(builtin_id(b"14").map(builtin_kind), Some(Date));
        assert_eq!(builtin_id(b"46").map(builtin_kind), Some(Duration));
        assert_eq!(builtin_id(b"49").map(builtin_kind), Some(Number));
        assert_eq!(builtin_id(b"+14"), None);
    }
}

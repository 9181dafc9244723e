//! Excel 4 macro sheets, for which calamine refuses a whole workbook ("Unrecognized
//! sheet:type") although Excel opens it and its worksheets hold the data: calamine opens a
//! copy of the workbook without them instead. The copy takes every part as it is, compressed
//! bytes and all, but the workbook part, which loses the macro sheets' `<sheet>` entries; the
//! worksheets themselves are still read from the file (`xlsx`). Remove this when calamine
//! lists macro sheets as sheets of their own type.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use zip::ZipArchive;
use zip::write::{SimpleFileOptions, ZipWriter};

/// The relationship types of Excel 4 macro sheets (and their international variant).
const MACRO_SHEET_TYPES: [&str; 2] = ["/xlMacrosheet\"", "/xlIntlMacrosheet\""];
/// A workbook part or its relationships past this are left to the guard to refuse.
const MAX_PART_BYTES: u64 = 16 << 20;

/// A copy of the XLSX at `path` without its macro sheets, for calamine; `None` when it has
/// none.
pub(super) fn without_macro_sheets(path: &Path) -> io::Result<Option<File>> {
    let mut zip = ZipArchive::new(BufReader::new(File::open(path)?)).map_err(io::Error::other)?;
    let workbook = workbook_part(&mut zip);
    let (folder, name) = workbook.split_at(workbook.rfind('/').map_or(0, |i| i + 1));
    let rels = part_text(&mut zip, &format!("{folder}_rels/{name}.rels"))?;
    let macro_ids = macro_sheet_ids(&rels);
    if macro_ids.is_empty() {
        return Ok(None);
    }
    let without = without_sheets(&part_text(&mut zip, &workbook)?, &macro_ids);
    let mut copy = ZipWriter::new(tempfile::tempfile()?);
    for i in 0..zip.len() {
        let entry = zip.by_index_raw(i).map_err(io::Error::other)?;
        if entry.name().is_ok_and(|name| name == workbook) {
            copy.start_file(workbook.as_str(), SimpleFileOptions::default())?;
            copy.write_all(without.as_bytes())?;
        } else {
            copy.raw_copy_file(entry).map_err(io::Error::other)?;
        }
    }
    let mut file = copy.finish().map_err(io::Error::other)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(Some(file))
}

/// The workbook part's path, from the package's relationships; `xl/workbook.xml` by default.
fn workbook_part<R: Read + Seek>(zip: &mut ZipArchive<R>) -> String {
    let rels = part_text(zip, "_rels/.rels").unwrap_or_default();
    let target = elements(&rels, "Relationship")
        .find(|r| r.contains("/relationships/officeDocument\""))
        .and_then(|r| attribute(r, "Target"));
    match target {
        Some(target) => target.trim_start_matches('/').to_owned(),
        None => "xl/workbook.xml".to_owned(),
    }
}

/// The ids of the relationships to macro sheets in a workbook's relationships part.
fn macro_sheet_ids(rels: &str) -> Vec<String> {
    elements(rels, "Relationship")
        .filter(|r| MACRO_SHEET_TYPES.iter().any(|t| r.contains(t)))
        .filter_map(|r| attribute(r, "Id").map(str::to_owned))
        .collect()
}

/// The workbook part without the `<sheet>` entries whose relationship id is one of `ids`.
fn without_sheets(workbook: &str, ids: &[String]) -> String {
    let mut out = String::with_capacity(workbook.len());
    let mut rest = workbook;
    while let Some((before, element, after)) = next_element(rest, "sheet") {
        out.push_str(before);
        // `r:id`, whatever the prefix of the relationships namespace.
        let id = element.split(":id=\"").nth(1).and_then(|v| v.split('"').next());
        if !id.is_some_and(|id| ids.iter().any(|m| m == id)) {
            out.push_str(element);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Each empty element named `name` (any namespace prefix) in `xml`, whole.
fn elements<'x>(xml: &'x str, name: &'x str) -> impl Iterator<Item = &'x str> + 'x {
    let mut rest = xml;
    std::iter::from_fn(move || {
        let (_, element, after) = next_element(rest, name)?;
        rest = after;
        Some(element)
    })
}

/// The text before the next element named `name`, the element up to its `>`, and the rest.
fn next_element<'x>(xml: &'x str, name: &str) -> Option<(&'x str, &'x str, &'x str)> {
    let mut from = 0;
    loop {
        let start = from + xml[from..].find('<')?;
        let tag = &xml[start + 1..];
        let local_start = tag.find(|c: char| c.is_whitespace() || c == '/' || c == '>')?;
        let tag_name = &tag[..local_start];
        if tag_name.rsplit(':').next() == Some(name) {
            let end = start + xml[start..].find('>')? + 1;
            return Some((&xml[..start], &xml[start..end], &xml[end..]));
        }
        from = start + 1;
    }
}

/// The value of the attribute `key` in an element.
fn attribute<'x>(element: &'x str, key: &str) -> Option<&'x str> {
    let at = element.find(&format!(" {key}=\""))? + key.len() + 3;
    element[at..].split('"').next()
}

fn part_text<R: Read + Seek>(zip: &mut ZipArchive<R>, name: &str) -> io::Result<String> {
    let mut text = String::new();
    if let Ok(entry) = zip.by_name(name) {
        entry.take(MAX_PART_BYTES).read_to_string(&mut text)?;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macro_sheets_leave_the_workbook_part_and_nothing_else_does() {
        let rels = r#"<Relationships><Relationship Id="rId1" Type="http://x/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Target="macrosheets/sheet2.xml" Id="rId9" Type="http://schemas.microsoft.com/office/2006/relationships/xlMacrosheet"/></Relationships>"#;
        assert_eq!(macro_sheet_ids(rels), ["rId9"]);
        let workbook = r#"<workbook><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/><x:sheet name="Makro1" sheetId="2" rel:id="rId9"/></sheets><sheetPr/></workbook>"#;
        let expected = r#"<workbook><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/></sheets><sheetPr/></workbook>"#;
        assert_eq!(without_sheets(workbook, &["rId9".to_owned()]), expected);
        assert_eq!(without_sheets(workbook, &[]), workbook);
    }
}

//! Excel 4 macro sheets, for which calamine refuses a whole workbook ("Unrecognized
//! sheet:type") although Excel opens it and its worksheets hold the data: calamine opens a
//! copy of the workbook without them instead. The copy takes every part as it is, compressed
//! bytes and all, but the workbook part, which loses the macro sheets' `<sheet>` entries; the
//! worksheets themselves are still read from the file (`xlsx`), whose package finds the macro
//! sheets' relationships (`xlsx::macro_sheets`). Remove this when calamine
//! lists macro sheets as sheets of their own type.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use zip::ZipArchive;
use zip::write::{SimpleFileOptions, ZipWriter};

/// A workbook part past this is left to the guard to refuse.
const MAX_PART_BYTES: u64 = 16 << 20;

/// A copy of the XLSX at `path` without its macro sheets, for calamine; `None` when it has
/// none.
pub(super) fn without_macro_sheets(path: &Path) -> io::Result<Option<File>> {
    // A package the XLSX reader cannot find its way through is calamine's to refuse.
    let Ok((workbook, macro_ids)) = super::xlsx::macro_sheets(path) else { return Ok(None) };
    if macro_ids.is_empty() {
        return Ok(None);
    }
    let mut zip = ZipArchive::new(BufReader::new(File::open(path)?)).map_err(io::Error::other)?;
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
    fn macro_sheets_leave_the_workbook_part_and_no_other_sheet_does() {
        let workbook = r#"<workbook><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/><x:sheet name="Makro1" sheetId="2" rel:id="rId9"/></sheets><sheetPr/></workbook>"#;
        let expected = r#"<workbook><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/></sheets><sheetPr/></workbook>"#;
        assert_eq!(without_sheets(workbook, &["rId9".to_owned()]), expected);
        assert_eq!(without_sheets(workbook, &[]), workbook);
    }
}

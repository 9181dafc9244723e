//! Each workbook path through `source`: XLSX, XLSB, ODS and XLS. Raw mutations of a zip break
//! its checksums and compression and never reach the sheet parsers, so for the zip formats the
//! input is one part of a fixture workbook and the target zips it back with the fixture's
//! other parts. The first byte picks the format and part; XLS, whose container is not
//! compressed, takes the rest as the whole file.

use std::io::{Cursor, Read, Write};
use std::sync::OnceLock;

use zip::write::SimpleFileOptions;

use crate::Target;

/// A fixture workbook, embedded so the harness runs from anywhere.
pub struct Fixture {
    pub extension: &'static str,
    pub bytes: &'static [u8],
}

pub const XLSX: Fixture =
    Fixture { extension: "xlsx", bytes: include_bytes!("../../../tests/fixtures/leads.xlsx") };
pub const XLSB: Fixture =
    Fixture { extension: "xlsb", bytes: include_bytes!("../../../tests/fixtures/leads.xlsb") };
pub const ODS: Fixture =
    Fixture { extension: "ods", bytes: include_bytes!("../../../tests/fixtures/leads.ods") };
pub const XLS: &[u8] = include_bytes!("../../../tests/fixtures/leads.xls");

/// What the first byte selects.
#[derive(Clone, Copy)]
pub enum Choice {
    /// This part of a zip fixture (added when the fixture lacks it).
    Part(&'static Fixture, &'static str),
    /// A whole XLS file.
    Xls,
}

pub const CHOICES: &[Choice] = &[
    Choice::Part(&XLSX, "xl/worksheets/sheet1.xml"),
    Choice::Part(&XLSX, "xl/sharedStrings.xml"),
    Choice::Part(&XLSX, "xl/workbook.xml"),
    Choice::Part(&XLSX, "xl/_rels/workbook.xml.rels"),
    Choice::Part(&XLSX, "xl/styles.xml"),
    Choice::Part(&XLSX, "[Content_Types].xml"),
    Choice::Part(&XLSB, "xl/worksheets/sheet1.bin"),
    Choice::Part(&XLSB, "xl/sharedStrings.bin"),
    Choice::Part(&XLSB, "xl/workbook.bin"),
    Choice::Part(&XLSB, "xl/styles.bin"),
    Choice::Part(&ODS, "content.xml"),
    Choice::Xls,
];

pub const TARGET: Target = Target {
    name: "workbook",
    run,
    dictionary: &[
        b"<c r=\"A1\" t=\"s\"><v>0</v></c>",
        b"<c r=\"XFD1048576\">",
        b"t=\"inlineStr\"",
        b"<is><t>",
        b"</t></is>",
        b"<si><t>",
        b"</t></si>",
        b"<row r=\"1\">",
        b"</row>",
        b"<dimension ref=\"A1:C3\"/>",
        b"<sheet name=\"S\" sheetId=\"1\" r:id=\"rId1\"/>",
        b"&amp;",
        b"&#",
        b"<![CDATA[",
        b"<table:table-cell office:value-type=\"float\"",
        b"table:number-columns-repeated=\"",
        b"table:number-rows-repeated=\"",
        b"<table:table-row>",
        b"<text:p>",
        b"<text:s text:c=\"",
        b"\xff\xff\xff\x7f",
        b"\x00\x00\x00\x80",
        b"\x00\x00",
        b"999999999",
        b"-1",
    ],
    max_len: 256 * 1024,
};

fn run(data: &[u8]) {
    let Some((&choice, rest)) = data.split_first() else { return };
    let (extension, bytes) = match CHOICES[usize::from(choice) % CHOICES.len()] {
        Choice::Part(fixture, part) => (fixture.extension, rezip(fixture, part, rest)),
        Choice::Xls => ("xls", rest.to_vec()),
    };
    let path = crate::scratch().join(format!("input.{extension}"));
    std::fs::write(&path, bytes).expect("the scratch file can be written");
    super::source::read_all(&path);
}

/// `fixture` with `part` replaced by (or added as) `content`, stored uncompressed.
pub fn rezip(fixture: &Fixture, part: &str, content: &[u8]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in entries(fixture) {
        if name != part {
            out.start_file(name.as_str(), stored).expect("zip in memory");
            out.write_all(bytes).expect("zip in memory");
        }
    }
    out.start_file(part, stored).expect("zip in memory");
    out.write_all(content).expect("zip in memory");
    out.finish().expect("zip in memory").into_inner()
}

/// A zip's entries: name and content.
type Entries = Vec<(String, Vec<u8>)>;

/// The fixture's entries, unzipped once per process.
pub fn entries(fixture: &Fixture) -> &'static [(String, Vec<u8>)] {
    static CACHE: OnceLock<Vec<(&'static str, Entries)>> = OnceLock::new();
    let all = CACHE.get_or_init(|| {
        [&XLSX, &XLSB, &ODS].iter().map(|f| (f.extension, unzip(f.bytes))).collect()
    });
    let found = all.iter().find(|(ext, _)| *ext == fixture.extension);
    &found.expect("every zip fixture is cached").1
}

fn unzip(bytes: &[u8]) -> Entries {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).expect("the fixture is a zip");
    (0..zip.len())
        .map(|i| {
            let mut entry = zip.by_index(i).expect("the fixture's entry");
            let mut content = Vec::new();
            entry.read_to_end(&mut content).expect("the fixture's entry");
            let name = entry.name().expect("the fixture's entry names are text").into_owned();
            (name, content)
        })
        .collect()
}

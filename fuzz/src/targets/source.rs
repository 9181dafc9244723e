//! Format sniffing and the CSV reader: the bytes are a file as a user would pass it, opened
//! with default options (content decides the format, encoding, delimiter and header row) and
//! read to the end. Zip and OLE magic send it on to the workbook readers, so this target also
//! reaches them, though `workbook` does that far better.

use std::path::Path;

use leadsync::source::{Source, SourceOptions};

use crate::Target;

pub const TARGET: Target = Target {
    name: "source",
    run,
    dictionary: &[
        b",",
        b";",
        b"\t",
        b"|",
        b"\"",
        b"\"\"",
        b"\r\n",
        b"\n",
        b"\r",
        b"sep=;\n",
        b"\xef\xbb\xbf",
        b"\xff\xfe",
        b"\xfe\xff",
        b"\x00",
        b"#N/A",
        b"#DIV/0!",
        b"=",
        b"PK\x03\x04",
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        b"Phone",
        b"Telefon",
        b"\xe4",
        b"\xc3\xa4",
    ],
    max_len: 256 * 1024,
};

fn run(data: &[u8]) {
    let path = crate::scratch().join("input.csv");
    std::fs::write(&path, data).expect("the scratch file can be written");
    read_all(&path);
}

/// Opens `path` as `leadsync import` would and reads every row. Errors are fine (they are
/// what a damaged file should give); a panic or an abort is the bug.
pub fn read_all(path: &Path) {
    let Ok(source) = Source::open(path, &SourceOptions::default()) else { return };
    let width = source.headers.len();
    // A bound so a crafted file of many tiny rows cannot stall the fuzzer on one input.
    for record in source.records().take(200_000) {
        let Ok(record) = record else { return };
        assert!(record.cells.len() >= width, "a record is shorter than the header: {record:?}");
        for error in &record.cell_errors {
            assert!(error.column < record.cells.len(), "a cell error outside the row: {record:?}");
        }
    }
}

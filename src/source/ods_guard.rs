//! A guard run before calamine reads an ODS. calamine 0.38's ODS reader waits in several loops
//! (a table, a row, an annotation) for the element's closing tag and does not stop at the end
//! of `content.xml`, and it does not check that closing tags match, so a `content.xml` that
//! ends inside a table hung the import forever at full CPU. Found by fuzzing (target
//! `workbook`). Here the part is read once with end names checked: well-nested and closed, or
//! the file is refused as damaged.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use quick_xml::Reader;
use quick_xml::events::Event;

/// `Err` with what is wrong when `content.xml` is not well nested or ends inside an element.
/// A missing or unreadable part is left to calamine, which names it.
pub(super) fn check(path: &Path) -> Result<(), String> {
    let Ok(file) = File::open(path) else { return Ok(()) };
    let Ok(mut zip) = zip::ZipArchive::new(BufReader::new(file)) else { return Ok(()) };
    let Ok(content) = zip.by_name("content.xml") else { return Ok(()) };
    let mut reader = Reader::from_reader(BufReader::new(content));
    let (mut buf, mut depth) = (Vec::new(), 0usize);
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(_)) => depth += 1,
            Ok(Event::End(_)) => depth = depth.saturating_sub(1),
            Ok(Event::Eof) if depth == 0 => return Ok(()),
            Ok(Event::Eof) => return Err("content.xml ends inside an element".to_owned()),
            Err(e) => return Err(format!("content.xml: {e}")),
            Ok(_) => {}
        }
        buf.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read, Write};
    use std::path::PathBuf;
    use std::sync::mpsc;
    use std::time::Duration;

    use super::super::{Format, Source, SourceError, SourceOptions};

    fn fixture() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/leads.ods")
    }

    /// The fixture with its `content.xml` passed through `edit`.
    fn ods_with(dir: &std::path::Path, name: &str, edit: impl Fn(String) -> String) -> PathBuf {
        let mut zip = zip::ZipArchive::new(std::fs::File::open(fixture()).unwrap()).unwrap();
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        for i in 0..zip.len() {
            let mut entry = zip.by_index(i).unwrap();
            let name = entry.name().unwrap().into_owned();
            let mut content = String::new();
            entry.read_to_string(&mut content).unwrap();
            let content = if name == "content.xml" { edit(content) } else { content };
            out.start_file(name, stored).unwrap();
            out.write_all(content.as_bytes()).unwrap();
        }
        let path = dir.join(format!("{name}.ods"));
        std::fs::write(&path, out.finish().unwrap().into_inner()).unwrap();
        path
    }

    /// Opens on another thread, so a regression fails the test instead of hanging it.
    fn open_in_time(path: PathBuf) -> Result<Source, SourceError> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(Source::open(&path, &SourceOptions::default()));
        });
        rx.recv_timeout(Duration::from_secs(60)).expect("opening the ODS hung")
    }

    #[test]
    fn the_fixture_passes() {
        assert_eq!(super::check(&fixture()), Ok(()));
    }

    /// Found by fuzzing (`scripts/fuzz.sh`, target `workbook`): calamine never returned.
    #[test]
    fn a_table_left_open_is_damage_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let cut = |xml: String| xml[..xml.rfind("</table:table>").unwrap()].to_owned();
        let tag = |xml: String| xml.replace("</table:table>", "<Ltable:table>");
        let mismatched = |xml: String| xml.replace("</table:table>", "</table:tablx>");
        for (what, path) in [
            ("cut", ods_with(dir.path(), "cut", cut)),
            ("tag", ods_with(dir.path(), "tag", tag)),
            ("mismatched", ods_with(dir.path(), "mismatched", mismatched)),
        ] {
            match open_in_time(path) {
                Err(SourceError::Corrupt { format: Format::Ods, detail, .. }) => {
                    assert!(detail.starts_with("content.xml"), "{what}: {detail}");
                }
                other => panic!("{what}: {other:?}"),
            }
        }
    }
}

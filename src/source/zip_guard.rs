//! The worksheets of an XLSX, scanned while calamine reads them instead of before.
//!
//! A worksheet is most of a workbook (a 1M-row sheet is 500 MB of XML), so inflating it once
//! more before it is read cost as much as reading it. leadsync reads the chosen worksheet
//! itself (`xlsx`, which holds it to these limits as it goes and hands a breach to `keep`);
//! this guard is for a worksheet part calamine reads, which a crafted package can make it do
//! (as its workbook). The file handed to calamine is a `GuardedFile`, and the first read of a
//! deferred part starts a
//! thread that inflates the part on its own handle and runs `xml_scan` over it, on the core the
//! sheet's reader leaves. A read of the part's compressed bytes waits until the scan has passed
//! them, so calamine's inflater is never ahead of the scan, and a part over a limit fails
//! calamine's next read with that limit. Only the per-part limits apply to such a part (a cell,
//! a tag or text run, nesting) plus the count of elements calamine keeps, checked as the part
//! goes; the workbook-wide tallies (shared strings, ODS sheets) come from the parts
//! `zip_scan` still scans before, and a part nobody reads is never scanned.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;

use flate2::{Decompress, FlushDecompress, Status};

use super::limits::{self, Limit};
use super::xml_scan::Scanner;
use super::zip_scan::{CellCount, PartKind, PartSink};
use super::{SourceError, xlsx};

const CHUNK: usize = 64 * 1024;

/// A part left to be scanned as it is read: where its compressed bytes lie in the file.
#[derive(Debug, Clone)]
pub(super) struct Deferred {
    pub name: String,
    /// The compressed data, `start..end` in the file.
    pub start: u64,
    pub end: u64,
    /// Stored rather than deflated.
    pub stored: bool,
    /// The declared inflated size, where the zip crate stops reading the part.
    pub size: u64,
}

/// The deferred parts of one workbook and how far their scans have got.
#[derive(Debug, Default)]
pub(super) struct Guard {
    path: PathBuf,
    parts: Vec<Deferred>,
    /// Elements calamine keeps, counted in the parts scanned before and in deferred ones.
    kept_before: u64,
    kept: AtomicU64,
    state: Mutex<Progress>,
    moved: Condvar,
}

#[derive(Debug, Default)]
struct Progress {
    /// Per part, the compressed offset up to which it is scanned, once its scan has begun.
    scanned: Vec<Option<u64>>,
    /// Per part, the damage its scan stopped at.
    damaged: Vec<Option<String>>,
    breach: Option<Limit>,
    /// The file is closed: scans stop.
    closed: bool,
}

impl Guard {
    pub(super) fn new(path: PathBuf, parts: Vec<Deferred>, kept_before: u64) -> Guard {
        let state = Progress {
            scanned: vec![None; parts.len()],
            damaged: vec![None; parts.len()],
            ..Progress::default()
        };
        Guard { path, parts, kept_before, state: Mutex::new(state), ..Guard::default() }
    }

    /// The refusal for `location` when a deferred part went past a limit: calamine only saw
    /// a failed read, which would read as a damaged file.
    pub(super) fn refusal(&self, location: &str) -> Option<SourceError> {
        self.lock().breach.clone().map(|limit| limit.error(location))
    }

    /// A worksheet leadsync read itself (`xlsx`) failed: a limit it went past is kept as the
    /// refusal, like a deferred part's; what is left is the row and the read error.
    pub(super) fn keep(&self, failure: xlsx::Failure) -> (Option<u64>, String) {
        match failure {
            xlsx::Failure::Read { row, detail } => (row, detail),
            xlsx::Failure::Limit(limit) => {
                let detail = limit.to_string();
                self.lock().breach.get_or_insert(limit);
                self.moved.notify_all();
                (None, detail)
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, Progress> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many of `len` bytes at `at` calamine may read now: it waits for the scans of the
    /// deferred parts those bytes belong to, and starts a part's scan on its first read.
    fn allow(self: &Arc<Guard>, at: u64, len: usize) -> io::Result<usize> {
        let end = at + len as u64;
        let mut state = self.lock();
        loop {
            if let Some(limit) = &state.breach {
                return Err(io::Error::other(limit.to_string()));
            }
            let mut allowed = end;
            let mut wait = false;
            for (index, part) in self.parts.iter().enumerate() {
                let to = end.min(part.end);
                if at.max(part.start) >= to {
                    continue;
                }
                let scanned = match state.scanned[index] {
                    Some(scanned) => scanned,
                    // The scan starts when the part's data is read, which the zip crate
                    // does from its first byte: a read that only runs into the part (a
                    // buffer filled past the part before it) stops short of it, and one that
                    // begins inside it is the search for the archive's end, not its data.
                    None if at < part.start => {
                        allowed = allowed.min(part.start);
                        continue;
                    }
                    None if at > part.start => continue,
                    None => {
                        state.scanned[index] = Some(part.start);
                        self.start_scan(index)?;
                        part.start
                    }
                };
                if scanned >= to {
                    continue;
                }
                if scanned > at {
                    allowed = allowed.min(scanned);
                } else if let Some(damage) = &state.damaged[index] {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, damage.clone()));
                } else {
                    wait = true;
                }
            }
            if !wait {
                return Ok((allowed - at) as usize);
            }
            state = self.moved.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn start_scan(self: &Arc<Guard>, index: usize) -> io::Result<()> {
        let guard = Arc::clone(self);
        thread::Builder::new()
            .name("leadsync-scan".to_owned())
            .spawn(move || guard.scan_or_fail(index, Guard::scan))
            .map(drop)
    }

    /// Runs part `index`'s scan; a scan that died would leave calamine waiting for it
    /// forever, so its panic is published as damage to the part.
    fn scan_or_fail(&self, index: usize, scan: impl FnOnce(&Guard, usize)) {
        if super::caught::catch(|| scan(self, index)).is_err() {
            let failed = io::Error::other("the scan of the part failed");
            self.publish(index, Err(Failure::Damaged(failed)), 0);
        }
    }

    /// The scan thread of part `index`: inflates and scans it chunk by chunk, publishing how
    /// far it got after each, until the part ends, a limit is hit or the file is closed.
    fn scan(&self, index: usize) {
        let part = &self.parts[index];
        let mut scan = PartScan::new(part);
        let mut buf = vec![0u8; CHUNK];
        let opened = File::open(&self.path).and_then(|mut file| {
            file.seek(SeekFrom::Start(part.start))?;
            Ok(file)
        });
        let mut file = match opened {
            Ok(file) => file,
            Err(e) => {
                self.publish(index, Err(Failure::Damaged(e)), part.start);
                return;
            }
        };
        let mut next = part.start;
        while next < part.end && !scan.done {
            let want = (part.end - next).min(CHUNK as u64) as usize;
            let kept = scan.cells.kept;
            let fed = match file.read(&mut buf[..want]) {
                Ok(0) => Err(Failure::Damaged(io::ErrorKind::UnexpectedEof.into())),
                Ok(n) => {
                    next += n as u64;
                    scan.feed(part, &buf[..n])
                }
                Err(e) => Err(Failure::Damaged(e)),
            };
            let kept = self.kept.fetch_add(scan.cells.kept - kept, Ordering::Relaxed)
                + (scan.cells.kept - kept);
            let fed = match fed {
                Ok(()) if self.kept_before + kept > limits::MAX_KEPT_ELEMENTS => {
                    Err(Failure::Limit(Limit::Elements { found: self.kept_before + kept }))
                }
                fed => fed,
            };
            let at = if scan.done { part.end } else { next };
            if !self.publish(index, fed, at) {
                return;
            }
        }
    }

    /// Records how far part `index` is scanned, or why its scan stopped; false when it should.
    fn publish(&self, index: usize, fed: Result<(), Failure>, scanned: u64) -> bool {
        let mut state = self.lock();
        let going = match fed {
            Ok(()) => {
                state.scanned[index] = Some(scanned);
                !state.closed && state.breach.is_none()
            }
            Err(Failure::Limit(limit)) => {
                state.breach.get_or_insert(limit);
                false
            }
            Err(Failure::Damaged(e)) => {
                state.damaged[index] = Some(format!("part `{}`: {e}", self.parts[index].name));
                false
            }
        };
        drop(state);
        self.moved.notify_all();
        going
    }

    fn close(&self) {
        self.lock().closed = true;
    }
}

/// The workbook file as calamine reads it, held back behind the scans of deferred parts.
pub(super) struct GuardedFile {
    file: File,
    pos: u64,
    guard: Arc<Guard>,
}

impl GuardedFile {
    pub(super) fn new(file: File, guard: Arc<Guard>) -> GuardedFile {
        GuardedFile { file, pos: 0, guard }
    }
}

impl Read for GuardedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = match self.guard.parts.is_empty() {
            true => buf.len(),
            false => self.guard.allow(self.pos, buf.len())?,
        };
        let n = self.file.read(&mut buf[..len])?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for GuardedFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.pos = self.file.seek(to)?;
        Ok(self.pos)
    }
}

impl Drop for GuardedFile {
    fn drop(&mut self) {
        self.guard.close();
    }
}

enum Failure {
    Limit(Limit),
    Damaged(io::Error),
}

/// One deferred part's scan: its inflater, the XML scanner and the per-part tallies.
struct PartScan {
    inflater: Option<Decompress>,
    out: Vec<u8>,
    /// Inflated bytes scanned; past the declared size the zip crate reads nothing.
    inflated: u64,
    done: bool,
    scanner: Scanner,
    cells: CellCount,
}

impl PartScan {
    fn new(part: &Deferred) -> PartScan {
        PartScan {
            inflater: (!part.stored).then(|| Decompress::new(false)),
            out: vec![0u8; CHUNK],
            inflated: 0,
            done: false,
            scanner: Scanner::new(&part.name),
            cells: CellCount::default(),
        }
    }

    fn feed(&mut self, part: &Deferred, mut input: &[u8]) -> Result<(), Failure> {
        let Some(mut inflater) = self.inflater.take() else {
            return self.scan(part, input);
        };
        let result = loop {
            if self.done {
                break Ok(());
            }
            let (was_in, was_out) = (inflater.total_in(), inflater.total_out());
            let status = match inflater.decompress(input, &mut self.out, FlushDecompress::None) {
                Ok(status) => status,
                Err(e) => {
                    break Err(Failure::Damaged(io::Error::new(io::ErrorKind::InvalidData, e)));
                }
            };
            let used = (inflater.total_in() - was_in) as usize;
            let made = (inflater.total_out() - was_out) as usize;
            input = &input[used..];
            let out = std::mem::take(&mut self.out);
            let scanned = self.scan(part, &out[..made]);
            self.out = out;
            if let Err(failure) = scanned {
                break Err(failure);
            }
            if status == Status::StreamEnd {
                self.finish(part)?;
            }
            // Output left room: all the input so far is inflated and scanned.
            if made < self.out.len() && (input.is_empty() || used == 0) {
                break Ok(());
            }
        };
        self.inflater = Some(inflater);
        result
    }

    /// Scans inflated bytes, up to the declared size; the part's end closes an open cell.
    fn scan(&mut self, part: &Deferred, data: &[u8]) -> Result<(), Failure> {
        if self.done {
            return Ok(());
        }
        let room = part.size.saturating_sub(self.inflated);
        let data = &data[..data.len().min(room as usize)];
        self.inflated += data.len() as u64;
        let mut sink = PartSink::new(&part.name, PartKind::Other, &mut self.cells);
        self.scanner.feed(data, &mut sink).map_err(Failure::Limit)?;
        if self.inflated >= part.size {
            self.finish(part)?;
        }
        Ok(())
    }

    fn finish(&mut self, part: &Deferred) -> Result<(), Failure> {
        if !self.done {
            self.done = true;
            PartSink::new(&part.name, PartKind::Other, &mut self.cells)
                .close()
                .map_err(Failure::Limit)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Write};

    use super::*;
    use crate::source::Format;
    use crate::source::zip_scan;

    fn workbook(sheet: &[u8]) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().unwrap();
        let mut zip = zip::ZipWriter::new(file.reopen().unwrap());
        let options = zip::write::SimpleFileOptions::default();
        zip.start_file("xl/worksheets/sheet1.xml", options).unwrap();
        zip.write_all(sheet).unwrap();
        zip.finish().unwrap();
        file
    }

    /// A workbook whose sheet holds a 17 MiB text run, past the 16 MiB limit, and what the
    /// pre-flight found of it.
    fn a_sheet_with_a_17_mib_run() -> (tempfile::NamedTempFile, zip_scan::Findings) {
        let run = vec![b'a'; 17 * 1024 * 1024];
        let sheet = [&b"<worksheet><sheetData>"[..], &run, b"</sheetData></worksheet>"].concat();
        let file = workbook(&sheet);
        let found = zip_scan::check(file.path(), "x.xlsx", Format::Xlsx).unwrap();
        (file, found)
    }

    #[test]
    fn a_worksheet_passes_the_check_and_is_refused_as_it_is_read() {
        let (file, found) = a_sheet_with_a_17_mib_run();
        assert!(found.guard.refusal("x.xlsx").is_none(), "nothing is scanned before");

        // Reading the part (or the file's first bytes, which it shares) waits for its scan,
        // which refuses it before calamine could buffer the run.
        let read = || -> zip::result::ZipResult<u64> {
            let guarded = GuardedFile::new(File::open(file.path())?, found.guard.clone());
            let mut zip = zip::ZipArchive::new(BufReader::new(guarded))?;
            let mut part = zip.by_name("xl/worksheets/sheet1.xml")?;
            Ok(io::copy(&mut part, &mut io::sink())?)
        };
        let error = read().unwrap_err().to_string();
        assert!(error.contains("16 MiB"), "{error}");
        let refusal = found.guard.refusal("x.xlsx").unwrap().to_string();
        assert!(refusal.contains("an XML tag, comment or text of more than 16 MiB"), "{refusal}");
    }

    #[test]
    fn a_read_that_only_runs_into_a_worksheet_stops_short_of_it_and_scans_nothing() {
        let (file, found) = a_sheet_with_a_17_mib_run();
        let start = found.guard.parts[0].start;
        // The local header before the part's data is read, and no more.
        let mut guarded = GuardedFile::new(File::open(file.path()).unwrap(), found.guard.clone());
        let mut buf = vec![0u8; start as usize + 4096];
        let read = guarded.read(&mut buf).unwrap();
        assert_eq!(read as u64, start, "the read stops where the part begins");
        assert_eq!(found.guard.lock().scanned[0], None, "no scan started");
        // A read from inside the part (the search for the archive's end) starts none either.
        guarded.seek(SeekFrom::Start(start + 10)).unwrap();
        assert!(guarded.read(&mut buf[..64]).unwrap() > 0);
        assert_eq!(found.guard.lock().scanned[0], None, "no scan started from inside the part");
        guarded.seek(SeekFrom::Start(start)).unwrap();
        // Reading the part itself starts its scan, which refuses it.
        let error = guarded.read(&mut buf).unwrap_err().to_string();
        assert!(error.contains("16 MiB"), "{error}");
    }

    #[test]
    fn a_scan_that_panics_fails_the_read_instead_of_holding_it_forever() {
        let file = workbook(b"<worksheet><sheetData/></worksheet>");
        let found = zip_scan::check(file.path(), "x.xlsx", Format::Xlsx).unwrap();
        let start = found.guard.parts[0].start;
        // As if its scan had begun on the part's first read, then died.
        found.guard.lock().scanned[0] = Some(start);
        found.guard.scan_or_fail(0, |_, _| panic!("a scanner bug"));
        let mut guarded = GuardedFile::new(File::open(file.path()).unwrap(), found.guard.clone());
        guarded.seek(SeekFrom::Start(start)).unwrap();
        // The read runs aside, so a read held forever fails the test instead of hanging it.
        let (sent, read) = std::sync::mpsc::channel();
        thread::spawn(move || sent.send(guarded.read(&mut [0u8; 64]).map_err(|e| e.to_string())));
        let read = read.recv_timeout(std::time::Duration::from_secs(30));
        let error = read.expect("the read is answered").unwrap_err();
        assert!(error.contains("the scan of the part failed"), "{error}");
    }
}

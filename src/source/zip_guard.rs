//! The worksheets of an XLSX, scanned while calamine reads them instead of before.
//!
//! A worksheet is most of a workbook (a 1M-row sheet is 500 MB of XML), and calamine streams
//! it, so inflating it once more before calamine does cost as much as reading it. Instead the
//! file handed to calamine is a `GuardedFile`: every compressed byte of a deferred part passes
//! through its own inflater and `xml_scan` before calamine gets it, so calamine's inflater can
//! never be ahead of the scan, and a part over a limit fails calamine's next read. Only the
//! per-part limits apply to such a part (a cell, a tag or text run, nesting) plus the count of
//! elements calamine keeps, which is checked as the part goes; the workbook-wide tallies
//! (shared strings, ODS sheets) come from parts `zip_scan` still scans before.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::{Arc, Mutex};

use flate2::{Decompress, FlushDecompress, Status};

use super::SourceError;
use super::limits::{self, Limit};
use super::xml_scan::Scanner;
use super::zip_scan::{CellCount, PartKind, PartSink};

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

/// The deferred parts of one workbook and the limit one of them went past, if any.
#[derive(Debug, Default)]
pub(super) struct Guard {
    parts: Vec<Deferred>,
    /// Elements calamine keeps, counted in the parts scanned before.
    kept_before: u64,
    breach: Mutex<Option<Limit>>,
}

impl Guard {
    pub(super) fn new(parts: Vec<Deferred>, kept_before: u64) -> Guard {
        Guard { parts, kept_before, breach: Mutex::default() }
    }

    /// The refusal for `location` when a deferred part went past a limit: calamine only saw
    /// a failed read, which would read as a damaged file.
    pub(super) fn refusal(&self, location: &str) -> Option<SourceError> {
        let breach = self.breach.lock().unwrap_or_else(|e| e.into_inner()).clone();
        breach.map(|limit| limit.error(location))
    }

    fn record(&self, limit: Limit) -> io::Error {
        let error = io::Error::other(limit.to_string());
        *self.breach.lock().unwrap_or_else(|e| e.into_inner()) = Some(limit);
        error
    }
}

/// The workbook file as calamine reads it, scanning deferred parts on the way.
pub(super) struct GuardedFile {
    file: File,
    pos: u64,
    guard: Arc<Guard>,
    /// The scan of each deferred part, by index in `guard.parts`, once it has begun.
    scans: Vec<Option<PartScan>>,
    /// Kept elements counted in deferred parts so far.
    kept: u64,
}

impl GuardedFile {
    pub(super) fn new(file: File, guard: Arc<Guard>) -> GuardedFile {
        let scans = guard.parts.iter().map(|_| None).collect();
        GuardedFile { file, pos: 0, guard, scans, kept: 0 }
    }

    /// Scans the bytes `data`, read at `at`, of every deferred part they overlap.
    fn scan(&mut self, at: u64, data: &[u8]) -> io::Result<()> {
        let end = at + data.len() as u64;
        for index in 0..self.guard.parts.len() {
            let part = &self.guard.parts[index];
            let (from, to) = (at.max(part.start), end.min(part.end));
            if from >= to {
                continue;
            }
            self.catch_up(index, from)?;
            let bytes = &data[(from - at) as usize..(to - at) as usize];
            self.feed(index, bytes)?;
        }
        Ok(())
    }

    /// Brings the scan of part `index` to the compressed offset `to`: a read from the part's
    /// start begins it anew (calamine opens a sheet once to probe it, then to read it), and
    /// bytes it skipped or read before are read here.
    fn catch_up(&mut self, index: usize, to: u64) -> io::Result<()> {
        let part = &self.guard.parts[index];
        let next = self.scans[index].as_ref().map(|scan| scan.next);
        if next != Some(to) && next.is_none_or(|next| next > to) {
            if let Some(old) = self.scans[index].take() {
                self.kept -= old.cells.kept;
            }
            self.scans[index] = Some(PartScan::new(part));
        }
        let Some(mut next) = self.scans[index].as_ref().map(|scan| scan.next) else {
            return Ok(());
        };
        let mut buf = vec![0u8; CHUNK];
        while next < to {
            let want = (to - next).min(CHUNK as u64) as usize;
            self.file.seek(SeekFrom::Start(next))?;
            self.file.read_exact(&mut buf[..want])?;
            self.feed(index, &buf[..want])?;
            next += want as u64;
        }
        self.file.seek(SeekFrom::Start(self.pos))?;
        Ok(())
    }

    fn feed(&mut self, index: usize, bytes: &[u8]) -> io::Result<()> {
        let Some(scan) = self.scans[index].as_mut() else { return Ok(()) };
        let before = scan.cells.kept;
        let result = scan.feed(&self.guard.parts[index], bytes);
        self.kept += scan.cells.kept - before;
        match result {
            Ok(()) if self.guard.kept_before + self.kept > limits::MAX_KEPT_ELEMENTS => {
                let found = self.guard.kept_before + self.kept;
                Err(self.guard.record(Limit::Elements { found }))
            }
            Ok(()) => Ok(()),
            Err(Failure::Limit(limit)) => Err(self.guard.record(limit)),
            Err(Failure::Damaged(e)) => Err(e),
        }
    }
}

impl Read for GuardedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(breach) = self.guard.breach.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Err(io::Error::other(breach.to_string()));
        }
        let n = self.file.read(buf)?;
        let at = self.pos;
        self.pos += n as u64;
        self.scan(at, &buf[..n])?;
        Ok(n)
    }
}

impl Seek for GuardedFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.pos = self.file.seek(to)?;
        Ok(self.pos)
    }
}

enum Failure {
    Limit(Limit),
    Damaged(io::Error),
}

/// One deferred part's scan: its inflater, the XML scanner and the per-part tallies.
struct PartScan {
    /// The compressed offset of the next byte to scan.
    next: u64,
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
            next: part.start,
            inflater: (!part.stored).then(|| Decompress::new(false)),
            out: vec![0u8; CHUNK],
            inflated: 0,
            done: false,
            scanner: Scanner::new(&part.name),
            cells: CellCount::default(),
        }
    }

    fn feed(&mut self, part: &Deferred, mut input: &[u8]) -> Result<(), Failure> {
        self.next += input.len() as u64;
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

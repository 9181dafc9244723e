//! How far reading a source has got, for a percentage and an ETA: bytes of a CSV file (its size
//! is known up front), rows of a sheet (its dimensions say how many). Atomics, so the reading
//! thread updates and the progress display reads without a lock.

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What `done` and `total` count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Rows,
}

/// Reading progress; a total of 0 means unknown.
#[derive(Debug)]
pub struct Extent {
    pub unit: Unit,
    done: AtomicU64,
    total: AtomicU64,
    /// CSV: the estimated number of lines in the file.
    rows: AtomicU64,
    header_row: AtomicU64,
}

impl Extent {
    pub fn new(unit: Unit, total: u64) -> Arc<Extent> {
        Arc::new(Extent {
            unit,
            done: AtomicU64::new(0),
            total: AtomicU64::new(total),
            rows: AtomicU64::new(0),
            header_row: AtomicU64::new(0),
        })
    }

    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }

    pub(super) fn advance(&self, by: u64) {
        self.done.fetch_add(by, Ordering::Relaxed);
    }

    /// A sheet row was handed out: rows before it are read.
    pub(super) fn reached_row(&self, row: u64) {
        self.done.fetch_max(row, Ordering::Relaxed);
    }

    /// The part read, 0 to 1, when the total is known.
    pub fn fraction(&self) -> Option<f64> {
        let total = self.total.load(Ordering::Relaxed);
        let done = self.done.load(Ordering::Relaxed);
        (total > 0).then(|| (done as f64 / total as f64).clamp(0.0, 1.0))
    }

    /// About how many data rows the source holds: exact for sheets (their dimensions), for
    /// CSV the file's size over the bytes per line of its first 64 KiB.
    pub fn estimated_rows(&self) -> Option<u64> {
        let lines = match self.unit {
            Unit::Rows => self.total.load(Ordering::Relaxed),
            Unit::Bytes => self.rows.load(Ordering::Relaxed),
        };
        let header = self.header_row.load(Ordering::Relaxed);
        (lines > 0).then(|| lines.saturating_sub(header))
    }

    /// For CSV: the lines a sample of `sample_bytes` held, to estimate the file's lines.
    pub(super) fn set_lines_from_sample(&self, lines: u64, sample_bytes: u64) {
        let total = self.total.load(Ordering::Relaxed);
        if lines > 0 && sample_bytes > 0 {
            let estimate = (total as f64 * lines as f64 / sample_bytes as f64).round() as u64;
            self.rows.store(estimate.max(lines), Ordering::Relaxed);
        }
    }

    pub(super) fn set_header_row(&self, row: u64) {
        self.header_row.store(row, Ordering::Relaxed);
    }
}

/// A reader that counts the bytes it hands out into an [`Extent`].
pub struct Counted<R> {
    inner: R,
    extent: Arc<Extent>,
}

impl<R> Counted<R> {
    pub fn new(inner: R, extent: Arc<Extent>) -> Counted<R> {
        Counted { inner, extent }
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.extent.advance(n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_counted_and_rows_estimated_from_a_sample() {
        let extent = Extent::new(Unit::Bytes, 1000);
        let mut reader = Counted::new(&[0u8; 100][..], extent.clone());
        std::io::copy(&mut reader, &mut std::io::sink()).unwrap();
        assert_eq!(extent.fraction(), Some(0.1));
        assert_eq!(extent.estimated_rows(), None, "no sample yet");
        // 100 bytes held 10 lines: a 1000-byte file holds about 100, one the header.
        extent.set_lines_from_sample(10, 100);
        extent.set_header_row(1);
        assert_eq!(extent.estimated_rows(), Some(99));
    }

    #[test]
    fn sheet_rows_are_exact_and_an_unknown_total_says_nothing() {
        let extent = Extent::new(Unit::Rows, 0);
        assert_eq!(extent.fraction(), None);
        extent.set_total(101);
        extent.set_header_row(1);
        extent.reached_row(51);
        assert_eq!(extent.fraction(), Some(51.0 / 101.0));
        assert_eq!(extent.estimated_rows(), Some(100));
    }
}

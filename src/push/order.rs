//! Sheet order for a push's reports. Answers come back in any order (a slow request, a retry, a
//! row in doubt until the end), yet a person fixes "row 14" by its place in the fix file: rows
//! reach the reports in the order they were read, as a dry run's do.
//!
//! Each row read takes the next place. A row with its outcome waits in memory until every row
//! before it has one; a row that will not have one soon is passed over instead of holding up
//! the rest: a row in doubt (settled at the end of the run), or the oldest row without an
//! answer once `WAIT_FOR_AT_MOST` rows wait behind it. From the first row passed over on, the
//! rows go, still in order, to a scratch file beside the first report instead of the reports,
//! and at the end the passed-over rows and the scratch file are merged into the reports. Memory
//! stays bounded by the rows in flight, the rows in doubt (which the collector holds anyway)
//! and `WAIT_FOR_AT_MOST`; a run without a row passed over writes no scratch file at all.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::phone::NumberType;
use crate::report::{ReportError, Reports};
use crate::row::{ContactReport, Issue, RowReport, RowStatus, Variables};

/// Rows held in memory behind the oldest row without an answer before it is passed over.
/// Far above what a healthy run holds (about its concurrency); a row retrying for a minute at
/// a high rate reaches it. At a few KB a row (cells kept for the fix files), about 10 MB.
const WAIT_FOR_AT_MOST: usize = 4096;

pub(super) struct SheetOrder {
    reports: Reports,
    /// Without a report file order does not matter: rows go straight to the tallies.
    ordered: bool,
    /// Each row read whose outcome has not been placed yet: its place, by row number.
    place_of: HashMap<u64, u64>,
    /// Places handed out so far.
    read: u64,
    /// The next place to write.
    next: u64,
    /// Rows with their outcome, waiting for the rows before them.
    waiting: BTreeMap<u64, RowReport>,
    /// Places passed over, with their row once it has its outcome: written at the end.
    passed: BTreeMap<u64, Option<RowReport>>,
    /// The rows after the first place passed over, in order, until the end.
    spill: Option<Spill>,
}

impl SheetOrder {
    pub(super) fn new(reports: Reports) -> SheetOrder {
        SheetOrder {
            ordered: reports.scratch_dir().is_some(),
            reports,
            place_of: HashMap::new(),
            read: 0,
            next: 0,
            waiting: BTreeMap::new(),
            passed: BTreeMap::new(),
            spill: None,
        }
    }

    /// `row` was read: it takes the next place.
    pub(super) fn read(&mut self, row: u64) {
        if self.ordered {
            self.place_of.insert(row, self.read);
            self.read += 1;
        }
    }

    /// `row` will have its outcome only at the end of the run (it is in doubt): the rows after
    /// it need not wait for it.
    pub(super) fn pass_over(&mut self, row: u64) -> Result<(), ReportError> {
        if let Some(&place) = self.place_of.get(&row)
            && place >= self.next
        {
            self.passed.entry(place).or_insert(None);
            self.flush(WAIT_FOR_AT_MOST)?;
        }
        Ok(())
    }

    /// A row with its outcome: written now if every row before it was, else when they are.
    pub(super) fn place(&mut self, row: RowReport) -> Result<(), ReportError> {
        let Some(place) = self.place_of.remove(&row.row).filter(|_| self.ordered) else {
            return self.reports.write_row(&row);
        };
        match self.passed.get_mut(&place) {
            Some(slot) => *slot = Some(row),
            None => {
                self.waiting.insert(place, row);
                self.flush(WAIT_FOR_AT_MOST)?;
            }
        }
        Ok(())
    }

    /// Writes the rows whose turn it is; passes over places marked so, and the oldest place
    /// without an answer when more than `limit` rows wait behind it.
    fn flush(&mut self, limit: usize) -> Result<(), ReportError> {
        loop {
            if let Some(row) = self.waiting.remove(&self.next) {
                self.emit(self.next, &row)?;
            } else if self.passed.contains_key(&self.next) {
                self.start_spill()?;
            } else if self.waiting.len() > limit {
                self.passed.insert(self.next, None);
                self.start_spill()?;
            } else {
                return Ok(());
            }
            self.next += 1;
        }
    }

    fn emit(&mut self, place: u64, row: &RowReport) -> Result<(), ReportError> {
        match &mut self.spill {
            Some(spill) => spill.put(place, row),
            None => self.reports.write_row(row),
        }
    }

    fn start_spill(&mut self) -> Result<(), ReportError> {
        if self.spill.is_none() {
            let dir = self.reports.scratch_dir().expect("ordered reports have a folder");
            self.spill = Some(Spill::create(dir)?);
        }
        Ok(())
    }

    /// Every row has its outcome: the rows still waiting, then the rows passed over merged in
    /// their places with the scratch file's.
    pub(super) fn finish(mut self) -> Result<Reports, ReportError> {
        // Rows still waiting wait for a row that never had its outcome (none should): it is
        // passed over, and the rest keep their order.
        self.flush(0)?;
        let mut passed = std::mem::take(&mut self.passed).into_iter().peekable();
        if let Some(spill) = self.spill.take() {
            let mut spilled = spill.rows()?;
            while let Some((place, row)) = spilled.next_row()? {
                while let Some((_, row)) = passed.next_if(|(p, _)| *p < place) {
                    self.write_passed(row)?;
                }
                self.reports.write_row(&row)?;
            }
        }
        for (_, row) in passed {
            self.write_passed(row)?;
        }
        Ok(self.reports)
    }

    fn write_passed(&mut self, row: Option<RowReport>) -> Result<(), ReportError> {
        match row {
            Some(row) => self.reports.write_row(&row),
            None => {
                tracing::warn!("a row passed over in the report never had its outcome");
                Ok(())
            }
        }
    }
}

/// Rows written in order to an unnamed file (gone when closed, even after a crash) and read
/// back once.
struct Spill {
    out: BufWriter<File>,
    /// For errors: the folder the scratch file is in.
    dir: PathBuf,
}

impl Spill {
    fn create(dir: PathBuf) -> Result<Spill, ReportError> {
        let file = tempfile::tempfile_in(&dir)
            .map_err(|source| ReportError::Create { path: dir.clone(), source })?;
        Ok(Spill { out: BufWriter::with_capacity(1 << 16, file), dir })
    }

    fn put(&mut self, place: u64, row: &RowReport) -> Result<(), ReportError> {
        let write = |out: &mut BufWriter<File>| -> io::Result<()> {
            serde_json::to_writer(&mut *out, &Spilled::of(place, row))?;
            out.write_all(b"\n")
        };
        write(&mut self.out).map_err(ReportError::write(&self.dir))
    }

    fn rows(self) -> Result<SpillReader, ReportError> {
        let Spill { out, dir } = self;
        let rewind = |out: BufWriter<File>| -> io::Result<File> {
            let mut file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
            file.seek(SeekFrom::Start(0))?;
            Ok(file)
        };
        let file = rewind(out).map_err(ReportError::write(&dir))?;
        Ok(SpillReader { lines: BufReader::with_capacity(1 << 16, file), line: String::new(), dir })
    }
}

struct SpillReader {
    lines: BufReader<File>,
    line: String,
    dir: PathBuf,
}

impl SpillReader {
    fn next_row(&mut self) -> Result<Option<(u64, RowReport)>, ReportError> {
        self.line.clear();
        let read = self.lines.read_line(&mut self.line).map_err(ReportError::write(&self.dir))?;
        if read == 0 {
            return Ok(None);
        }
        let spilled: Spilled = serde_json::from_str(&self.line)
            .map_err(|e| ReportError::Write { path: self.dir.clone(), source: e.into() })?;
        Ok(Some(spilled.into_row()))
    }
}

/// A row as the scratch file holds it: everything the writers use, the fields the JSON
/// contract leaves out included.
#[derive(Serialize, Deserialize)]
struct Spilled {
    place: u64,
    row: u64,
    status: RowStatus,
    phone: Option<String>,
    campaign_id: Option<u64>,
    record_id: Option<String>,
    lead_id: Option<u64>,
    variables: Vec<(String, String)>,
    errors: Vec<Issue>,
    warnings: Vec<Issue>,
    contacts: Vec<(String, Vec<(String, String)>)>,
    cells: Vec<String>,
    region: Option<String>,
    campaign_name: Option<String>,
    number_type: Option<NumberType>,
}

impl Spilled {
    fn of(place: u64, row: &RowReport) -> Spilled {
        let pairs = |v: &Variables| v.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        Spilled {
            place,
            row: row.row,
            status: row.status,
            phone: row.phone.clone(),
            campaign_id: row.campaign_id,
            record_id: row.record_id.clone(),
            lead_id: row.lead_id,
            variables: pairs(&row.variables),
            errors: row.errors.clone(),
            warnings: row.warnings.clone(),
            contacts: row
                .secondary_contacts
                .iter()
                .map(|c| (c.phone.clone(), pairs(&c.variables)))
                .collect(),
            cells: row.source_cells.clone(),
            region: row.region.clone(),
            campaign_name: row.campaign_name.clone(),
            number_type: row.number_type,
        }
    }

    fn into_row(self) -> (u64, RowReport) {
        let variables = |pairs: Vec<(String, String)>| {
            let mut variables = Variables::with_capacity(pairs.len());
            for (name, value) in pairs {
                variables.insert_named(&name, value);
            }
            variables
        };
        let row = RowReport {
            row: self.row,
            status: self.status,
            phone: self.phone,
            campaign_id: self.campaign_id,
            record_id: self.record_id,
            lead_id: self.lead_id,
            variables: variables(self.variables),
            errors: self.errors,
            warnings: self.warnings,
            secondary_contacts: self
                .contacts
                .into_iter()
                .map(|(phone, vars)| ContactReport { phone, variables: variables(vars) })
                .collect(),
            source_cells: self.cells,
            region: self.region,
            campaign_name: self.campaign_name,
            number_type: self.number_type,
        };
        (self.place, row)
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use rand::SeedableRng;
    use rand::seq::SliceRandom;

    use super::{SheetOrder, WAIT_FOR_AT_MOST};
    use crate::report::testdata::{headers, rows, run_info};
    use crate::report::{Reports, RowReport, SourceShape};
    use crate::row::ContactReport;

    /// `n` rows numbered from 2, the test rows over and over, one with a secondary contact.
    fn sheet(n: u64) -> Vec<RowReport> {
        let kinds = rows();
        (0..n)
            .map(|i| {
                let mut row = kinds[i as usize % kinds.len()].clone();
                row.row = i + 2;
                if i % 5 == 0 {
                    let mut variables = crate::row::Variables::new();
                    variables.insert_named("name", format!("Zweitkontakt {i}"));
                    row.secondary_contacts
                        .push(ContactReport { phone: "+4930123".into(), variables });
                }
                row
            })
            .collect()
    }

    fn paths(dir: &Path, name: &str) -> Vec<PathBuf> {
        ["json", "csv", "html"].iter().map(|ext| dir.join(format!("{name}.{ext}"))).collect()
    }

    /// The reports of `rows` written straight, in order, as a dry run writes them.
    fn in_order(dir: &Path, rows: &[RowReport]) -> Vec<PathBuf> {
        let paths = paths(dir, "straight");
        let mut reports = Reports::create(&paths, &headers(), SourceShape::default()).unwrap();
        rows.iter().for_each(|row| reports.write_row(row).unwrap());
        reports.finish(&run_info()).unwrap();
        paths
    }

    /// Every row is read first, then placed in `answers` order; `doubts` are passed over
    /// first and placed last, as rows in doubt are.
    fn reordered(
        dir: &Path,
        rows: &[RowReport],
        answers: &[usize],
        doubts: &[usize],
    ) -> Vec<PathBuf> {
        let paths = paths(dir, "ordered");
        let mut order =
            SheetOrder::new(Reports::create(&paths, &headers(), SourceShape::default()).unwrap());
        rows.iter().for_each(|row| order.read(row.row));
        for &i in doubts {
            order.pass_over(rows[i].row).unwrap();
        }
        for &i in answers.iter().filter(|i| !doubts.contains(i)).chain(doubts) {
            order.place(rows[i].clone()).unwrap();
        }
        order.finish().unwrap().finish(&run_info()).unwrap();
        paths
    }

    fn assert_same(a: &[PathBuf], b: &[PathBuf]) {
        for (a, b) in a.iter().zip(b) {
            let (a_text, b_text) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
            assert!(a_text == b_text, "{} differs from {}", b.display(), a.display());
        }
    }

    #[test]
    fn answers_in_any_order_with_doubts_make_the_reports_of_sheet_order() {
        let dir = tempfile::tempdir().unwrap();
        let rows = sheet(3_000);
        let mut answers: Vec<usize> = (0..rows.len()).collect();
        // Shuffled in windows, as answers of a few requests in flight come back.
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        answers.chunks_mut(40).for_each(|window| window.shuffle(&mut rng));
        let doubts = [0, 13, 14, 999, 2_999];
        let straight = in_order(dir.path(), &rows);
        assert_same(&straight, &reordered(dir.path(), &rows, &answers, &doubts));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 6, "no scratch file is left");
    }

    /// A row whose answer takes long is passed over once too many rows wait behind it, and
    /// still lands in its place.
    #[test]
    fn a_row_answered_last_is_passed_over_and_lands_in_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let rows = sheet(WAIT_FOR_AT_MOST as u64 * 2 + 10);
        let paths = paths(dir.path(), "ordered");
        let mut order =
            SheetOrder::new(Reports::create(&paths, &headers(), SourceShape::default()).unwrap());
        rows.iter().for_each(|row| order.read(row.row));
        for row in rows.iter().filter(|row| row.row != 5) {
            order.place(row.clone()).unwrap();
        }
        assert!(order.waiting.is_empty(), "nothing waits for the slow row any more");
        assert!(order.passed.contains_key(&3) && order.spill.is_some());
        order.place(rows[3].clone()).unwrap();
        order.finish().unwrap().finish(&run_info()).unwrap();
        assert_same(&in_order(dir.path(), &rows), &paths);
    }

    #[test]
    fn without_a_report_nothing_waits() {
        let mut order =
            SheetOrder::new(Reports::create(&[], &headers(), SourceShape::default()).unwrap());
        let rows = sheet(3);
        rows.iter().for_each(|row| order.read(row.row));
        order.place(rows[2].clone()).unwrap();
        assert!(order.waiting.is_empty() && order.place_of.is_empty());
        assert_eq!(order.finish().unwrap().summary().rows, 1);
    }
}

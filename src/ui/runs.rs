//! The checks and sends started from the browser: each a `pipeline::import` running on the
//! server, under an id the Check and Send pages carry, with its reports in a folder of its own
//! under `<state>/ui/runs/<id>/`. A run goes on when its tab is closed; the page asks how it
//! stands. The table lives in memory (a restart forgets it, as it forgets the sources); the
//! journal of a send stays, so the same import resumes from the UI or the CLI.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use crate::client::Client;
use crate::edits::Edits;
use crate::pipeline::{self, ImportOptions, ImportResult};
use crate::report::rows_search::build_index;
use crate::report::{IssueCode, RowReport, Summary};

use super::sources::new_id;

/// Where the runs' folders go, under the state folder.
const RUNS: &str = "ui/runs";

/// The report files of a run, by the name a page links to them with. A send writes them all
/// as it goes; a check writes only the rows it pages through, and each report when it is first
/// asked for: for a million rows the fix file alone takes seven times as long as the check, and
/// most people download one report, if any.
pub(super) const ROWS_DB: &str = "rows.sqlite";
pub(super) const DOWNLOADS: [&str; 3] = ["report.html", "report.json", "fix.xlsx"];
/// The sheet with the person's edits in it, made on demand like a check's reports.
pub(super) const CORRECTED: &str = "corrected.xlsx";
/// The person's edits of a check, which its send and `import --edits` take as they are.
pub(super) const EDITS: &str = "edits.json";
const CHECK_WRITES: [&str; 1] = [ROWS_DB];

/// A check (a dry run) or a send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Check,
    Send,
}

/// How a run stands.
#[derive(Debug, Clone)]
pub(super) enum State {
    Running,
    Done(Arc<Finished>),
    Failed(Failure),
}

/// Why a run stopped with an error: the library's whole chain of causes, and, where the page
/// knows the case, what it means for the person in her words.
#[derive(Debug, Clone)]
pub(super) struct Failure {
    pub detail: String,
    /// The same sheet is being sent from another tab, window or the command line.
    pub busy: bool,
    /// The sheet has more rows than a check here takes: the limit.
    pub too_many_rows: Option<u64>,
}

/// What a finished run tells its page.
#[derive(Debug)]
pub(super) struct Finished {
    pub summary: Summary,
    pub top_reasons: Vec<(IssueCode, u64)>,
    /// A send's journal, to resume it from the CLI.
    pub journal: Option<PathBuf>,
    /// Stopped before its end (by the Stop button or the server's shutdown).
    pub interrupted: bool,
    /// What a send will change of the leads sent before (a check's plan), or what a send
    /// planned: changed rows update their lead, refused ones may be stopped.
    pub plan: Option<crate::sync::plan::Plan>,
}

/// One run.
#[derive(Debug)]
pub(super) struct Run {
    pub kind: Kind,
    /// The source it read, and the address query that chose how (`ReadingChoice` and the
    /// mapping's choices), so a check can become a send of exactly the same rows.
    pub source: String,
    pub query: String,
    /// What it ran with, reports aside: a send repeats its check's options.
    pub opts: ImportOptions,
    pub folder: PathBuf,
    pub stop: Arc<AtomicBool>,
    /// The service it talks to, for a report made later.
    client: Option<Client>,
    /// Held while a report is made on demand, so two downloads make it once.
    making: tokio::sync::Mutex<()>,
    /// When it started, for the rate and the time left.
    pub started: std::time::Instant,
    /// The rows a send will go through: its check's count.
    pub expected_rows: Option<u64>,
    /// A send's check, and how many leads that check found ready to send: every send of one
    /// check (the first, the rest after a pause) is one send to the person.
    pub check: Option<(String, u64)>,
    /// A check's rows that a fix made on an earlier sheet fits, found when first asked for.
    pub offers: Mutex<Option<Arc<Vec<crate::edits::Offer>>>>,
    state: Mutex<State>,
    /// The person's edits so far: a check's change on its page, a send's fixed at its start.
    edits: Mutex<Arc<Edits>>,
}

impl Run {
    pub(super) fn state(&self) -> State {
        self.state.lock().expect("the state is never left half-written").clone()
    }

    pub(super) fn rows_db(&self) -> PathBuf {
        self.folder.join(ROWS_DB)
    }

    pub(super) fn edits(&self) -> Arc<Edits> {
        self.edits.lock().expect("the edits are never left half-written").clone()
    }

    /// What it ran with, with the edits made since: what a send of it or a row checked again
    /// uses.
    pub(super) fn options(&self) -> ImportOptions {
        ImportOptions { edits: self.edits(), ..self.opts.clone() }
    }

    /// Keeps new edits: written to the run's `edits.json` first, so the file and the page never
    /// disagree, and the reports made before them are dropped, to be made again with them.
    pub(super) fn set_edits(&self, edits: Edits) -> Result<(), crate::edits::EditsError> {
        edits.save(&self.folder.join(EDITS))?;
        *self.edits.lock().expect("the edits are never left half-written") = Arc::new(edits);
        for name in DOWNLOADS.iter().chain([&CORRECTED]) {
            let _ = std::fs::remove_file(self.folder.join(name));
        }
        Ok(())
    }

    /// A row checked again after an edit: the stored row replaced, the counts and reasons
    /// recounted.
    pub(super) fn replace_row(&self, row: &RowReport) -> Result<(), crate::report::ReportError> {
        let old = crate::report::rows_db::replace_row(&self.rows_db(), row)?;
        let mut state = self.state.lock().expect("the state is never left half-written");
        if let (State::Done(finished), Some(old)) = (&*state, old) {
            let (summary, top_reasons) =
                crate::report::recount(&finished.summary, &finished.top_reasons, &old, row);
            *state = State::Done(Arc::new(Finished {
                summary,
                top_reasons,
                journal: finished.journal.clone(),
                interrupted: finished.interrupted,
                plan: finished.plan.clone(),
            }));
        }
        Ok(())
    }

    /// The corrected sheet, made now if it is not there yet.
    pub(super) async fn corrected(&self) -> Option<PathBuf> {
        let path = self.folder.join(CORRECTED);
        let _one_at_a_time = self.making.lock().await;
        if path.exists() {
            return Some(path);
        }
        let opts = self.options();
        match pipeline::write_corrected_sheet(&opts, &path, self.stop.clone()).await {
            Ok(_) => Some(path),
            Err(error) => {
                tracing::warn!(
                    "ui: the corrected sheet could not be made: {}",
                    error_chain(&error)
                );
                None
            }
        }
    }

    /// One of its reports, made now by the same dry run when a finished check has not
    /// written it yet; `None` when there is none to give.
    pub(super) async fn report(&self, name: &str) -> Option<PathBuf> {
        let path = self.folder.join(name);
        if path.exists() {
            return Some(path);
        }
        if self.kind != Kind::Check || !matches!(self.state(), State::Done(_)) {
            return None;
        }
        let _one_at_a_time = self.making.lock().await;
        if path.exists() {
            return Some(path);
        }
        let mut opts = self.options();
        opts.reports = vec![path.clone()];
        let client = self.client.clone();
        let runtime = tokio::runtime::Handle::current();
        let made = tokio::task::spawn_blocking(move || {
            let stop = Arc::new(AtomicBool::new(false));
            runtime.block_on(pipeline::import(&opts, client.as_ref(), stop)).map(|_| ())
        })
        .await;
        match made {
            Ok(Ok(())) => Some(path),
            Ok(Err(error)) => {
                tracing::warn!("ui: the report {name} could not be made: {}", error_chain(&error));
                None
            }
            Err(error) => {
                tracing::warn!("ui: the report {name} could not be made: {error}");
                None
            }
        }
    }

    fn settle(&self, result: Result<ImportResult, pipeline::PipelineError>) {
        let state = match result {
            Ok(result) => State::Done(Arc::new(Finished {
                interrupted: result.run.interrupted,
                journal: result.push.as_ref().map(|p| p.journal.clone()),
                plan: result.sync.map(|sync| sync.plan),
                summary: result.outcome.summary,
                top_reasons: result.outcome.top_reasons,
            })),
            // The whole chain of causes: "fetching the campaign list: …: connection refused".
            Err(error) => State::Failed(Failure {
                busy: matches!(
                    error,
                    pipeline::PipelineError::Journal(crate::journal::JournalError::Busy { .. })
                ),
                too_many_rows: match error {
                    pipeline::PipelineError::TooManyRows { limit } => Some(limit),
                    _ => None,
                },
                detail: error_chain(&error),
            }),
        };
        *self.state.lock().expect("the state is never left half-written") = state;
    }
}

/// Every run of this server's life.
#[derive(Debug)]
pub(super) struct Runs {
    dir: PathBuf,
    runs: Mutex<HashMap<String, Arc<Run>>>,
}

impl Runs {
    pub(super) fn new(state_dir: &Path) -> Runs {
        Runs { dir: state_dir.join(RUNS), runs: Mutex::new(HashMap::new()) }
    }

    pub(super) fn get(&self, id: &str) -> Option<Arc<Run>> {
        self.runs.lock().expect("the table is never left half-written").get(id).cloned()
    }

    /// The send of the check `check_id` that stands for it: one still going (a second tab's
    /// refused send must not hide it), else the newest; `None` if it was never sent.
    pub(super) fn latest_send_of(&self, check_id: &str) -> Option<(String, Arc<Run>)> {
        let sends: Vec<(String, Arc<Run>)> = self
            .newest_first()
            .into_iter()
            .filter(|(_, run)| {
                run.kind == Kind::Send && run.check.as_ref().is_some_and(|(id, _)| id == check_id)
            })
            .collect();
        let going = sends.iter().position(|(_, run)| matches!(run.state(), State::Running));
        sends.into_iter().nth(going.unwrap_or(0))
    }

    /// Starts `opts` (its reports set here) on a thread of its own; returns the run's id.
    pub(super) fn start(
        &self,
        kind: Kind,
        source: &str,
        query: String,
        mut opts: ImportOptions,
        client: Option<Client>,
        (expected_rows, check): (Option<u64>, Option<(String, u64)>),
    ) -> std::io::Result<String> {
        let id = new_id();
        let folder = self.dir.join(&id);
        std::fs::create_dir_all(&folder)?;
        // A send's status line, the terminal's words, for its page.
        opts.board = (kind == Kind::Send).then(Arc::default);
        opts.reports = match kind {
            Kind::Check => CHECK_WRITES.iter().map(|name| folder.join(name)).collect(),
            Kind::Send => {
                std::iter::once(ROWS_DB).chain(DOWNLOADS).map(|name| folder.join(name)).collect()
            }
        };
        if !opts.edits.is_empty() {
            // Beside the journal note, so the same run resumes from the CLI with `--edits`.
            opts.edits.save(&folder.join(EDITS)).map_err(std::io::Error::other)?;
        }
        let run = Arc::new(Run {
            edits: Mutex::new(opts.edits.clone()),
            kind,
            source: source.to_string(),
            query,
            opts: opts.clone(),
            folder,
            stop: Arc::new(AtomicBool::new(false)),
            client: client.clone(),
            making: tokio::sync::Mutex::new(()),
            started: std::time::Instant::now(),
            expected_rows,
            check,
            offers: Mutex::new(None),
            state: Mutex::new(State::Running),
        });
        self.runs
            .lock()
            .expect("the table is never left half-written")
            .insert(id.clone(), run.clone());
        let runtime = tokio::runtime::Handle::current();
        // The import reads the sheet on threads of its own and blocks between stages, so it
        // runs beside the server's workers rather than on one of them.
        std::thread::Builder::new().name(format!("ui-run-{id}")).spawn(move || {
            let result =
                runtime.block_on(pipeline::import(&opts, client.as_ref(), run.stop.clone()));
            let finished = result.is_ok();
            run.settle(result);
            // Searches of a big sheet answer from an index once it is built; until then (and
            // if it cannot be) they read the rows.
            if finished && let Err(error) = build_index(&run.rows_db(), &run.stop) {
                tracing::warn!("ui: no search index: {error}");
            }
        })?;
        Ok(id)
    }

    /// The runs a person tells apart, the newest first: every check, and of each check's sends
    /// only the newest (sending the rest is the same send to her, not a new one).
    pub(super) fn listed(&self) -> Vec<(String, Arc<Run>)> {
        let mut all = self.newest_first();
        all.retain(|(id, run)| match &run.check {
            Some((check, _)) if run.kind == Kind::Send => {
                self.latest_send_of(check).is_some_and(|(shown, _)| shown == *id)
            }
            _ => true,
        });
        all
    }

    /// Every run of this server's life, the newest first.
    pub(super) fn newest_first(&self) -> Vec<(String, Arc<Run>)> {
        let runs = self.runs.lock().expect("the table is never left half-written");
        let mut all: Vec<_> = runs.iter().map(|(id, run)| (id.clone(), run.clone())).collect();
        all.sort_by_key(|(_, run)| std::cmp::Reverse(run.started));
        all
    }

    /// Deletes a finished run's folder and forgets it; `false` for a run still going.
    pub(super) fn delete(&self, id: &str) -> std::io::Result<bool> {
        let mut runs = self.runs.lock().expect("the table is never left half-written");
        let Some(run) = runs.get(id) else { return Ok(false) };
        if matches!(run.state(), State::Running) {
            return Ok(false);
        }
        std::fs::remove_dir_all(&run.folder)?;
        runs.remove(id);
        Ok(true)
    }

    /// Asks every run still going to stop, as Ctrl-C asks the CLI's.
    pub(super) fn stop_all(&self) {
        for run in self.runs.lock().expect("the table is never left half-written").values() {
            run.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Deletes the runs' and the uploads' folders under `state_dir` not touched for `age`; returns
/// how many. A folder that cannot be read or removed is left as it is.
pub(super) fn remove_older_than(state_dir: &Path, age: std::time::Duration) -> usize {
    let now = std::time::SystemTime::now();
    let old = |path: &Path| {
        let modified = std::fs::symlink_metadata(path).and_then(|m| m.modified());
        modified.is_ok_and(|when| now.duration_since(when).is_ok_and(|since| since > age))
    };
    // A suppression list a saved mapping names is kept however old: the mapping is used week
    // after week, and without its list it would call the people on it.
    let named = super::mappings::SavedMappings::new(state_dir).suppression_lists();
    let kept = |path: &Path| named.iter().any(|list| list.starts_with(path));
    let mut removed = 0;
    for parent in [state_dir.join(RUNS), state_dir.join(super::sources::UPLOADS)] {
        let Ok(entries) = std::fs::read_dir(&parent) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && old(&path) && !kept(&path) && std::fs::remove_dir_all(&path).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

/// The bytes the UI's folder holds (uploads, runs, saved mappings), for the first page.
pub(super) fn space_used(state_dir: &Path) -> u64 {
    fn walk(dir: &Path, depth: usize) -> u64 {
        let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
        entries
            .flatten()
            .map(|entry| match entry.file_type() {
                Ok(kind) if kind.is_dir() && depth < 4 => walk(&entry.path(), depth + 1),
                Ok(kind) if kind.is_file() => entry.metadata().map_or(0, |m| m.len()),
                _ => 0,
            })
            .sum()
    }
    walk(&state_dir.join("ui"), 0)
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}

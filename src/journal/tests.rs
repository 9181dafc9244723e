use std::io::Write;

use super::*;

pub(crate) fn header() -> RunHeader {
    RunHeader {
        event: "run".into(),
        version: FORMAT_VERSION,
        source: "leads.csv".into(),
        fingerprint: "f".into(),
        reading: Reading { header_row: 1, ..Reading::default() },
        mapping: "m".into(),
        service: "http://127.0.0.1/api/".into(),
        account: "user:1".into(),
        accounts: Vec::new(),
        baseline_lead_id: 7,
        allow_duplicates: false,
        identity_keys: true,
        timeout_ms: 30_000,
        started_at: "t".into(),
    }
}

fn outcome(row: u64, status: Final, lead_id: Option<u64>) -> Entry {
    Entry::Outcome {
        row,
        status,
        fp: fp_text(row * 100),
        lead_id,
        message: None,
        commit_by: (status == Final::InDoubt).then_some(1234),
        reconciled: false,
        key: None,
        keyed: false,
    }
}

fn start(path: &Path) -> Journal {
    open_run(RunLock::acquire(path).unwrap(), header(), OnChange::Refuse, false).unwrap().0
}

fn append_raw(path: &Path, bytes: &[u8]) {
    let mut file = OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(bytes).unwrap();
}

#[test]
fn rows_are_done_in_doubt_or_retried() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    let mut journal = start(&path);
    let attempts = [(2, "+491", 10, 200), (3, "+492", 10, 300), (4, "+493", 10, 400)];
    journal.attempts(attempts.into_iter().chain([(5, "+494", 10, 500)])).unwrap();
    journal.outcome(&outcome(2, Final::Created, Some(41))).unwrap();
    journal.outcome(&outcome(4, Final::Failed, None)).unwrap();
    journal.outcome(&outcome(5, Final::InDoubt, None)).unwrap();
    journal.sync().unwrap();
    let r = Journal::recover(&path).unwrap();
    assert_eq!(r.header.unwrap(), header());
    assert_eq!(
        r.rows.get(2).unwrap(),
        RowState::Done { status: Final::Created, lead_id: Some(41), message: None, fp: 200 }
    );
    assert_eq!(r.rows.get(3).unwrap(), RowState::InDoubt { fp: 300, commit_by: None });
    assert_eq!(r.rows.get(4).unwrap(), RowState::Retry);
    assert_eq!(r.rows.get(5).unwrap(), RowState::InDoubt { fp: 500, commit_by: Some(1234) });
    assert!(r.claimed.contains(&41) && !r.finished);
}

/// Ids are recorded in journal order, not sorted, and a lookup must find each whichever way
/// the journal ends: at a clean end of file or at a torn last line.
#[test]
fn claimed_ids_out_of_order_are_found_after_either_ending() {
    for torn in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let mut journal = start(&path);
        let ids = [41, 7, 19, 3, 88];
        for (row, id) in (2..).zip(ids) {
            journal.outcome(&outcome(row, Final::Created, Some(id))).unwrap();
        }
        journal.sync().unwrap();
        drop(journal);
        if torn {
            append_raw(&path, br#"{"event":"outcome","row":9,"sta"#);
        }
        let r = Journal::recover(&path).unwrap();
        assert_eq!(r.torn_at.is_some(), torn);
        for id in ids {
            assert!(r.claimed.contains(&id), "id {id} (torn: {torn})");
        }
        assert!(!r.claimed.contains(&8) && !r.claimed.contains(&42));
    }
}

#[test]
fn a_torn_last_line_is_cut_off_before_appending() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    let mut journal = start(&path);
    journal.attempts([(2, "+491", 10, 200)]).unwrap();
    drop(journal);
    append_raw(&path, br#"{"event":"outcome","row":2,"sta"#);
    let r = Journal::recover(&path).unwrap();
    assert!(matches!(r.rows.get(2).unwrap(), RowState::InDoubt { .. }));
    let mut journal = start(&path);
    journal.outcome(&outcome(2, Final::Created, Some(5))).unwrap();
    journal.finish("now".into()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(r#""sta{"#) && !text.contains("\"sta\n"), "torn tail removed:\n{text}");
    let r = Journal::recover(&path).unwrap();
    assert!(matches!(r.rows.get(2).unwrap(), RowState::Done { lead_id: Some(5), .. }));
    assert!(r.finished);
}

#[test]
fn a_complete_last_line_without_its_newline_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    drop(start(&path));
    let line = serde_json::to_string(&outcome(2, Final::Created, Some(9))).unwrap();
    append_raw(&path, line.as_bytes());
    let mut journal = start(&path);
    journal.outcome(&outcome(3, Final::Rejected, None)).unwrap();
    journal.sync().unwrap();
    let r = Journal::recover(&path).unwrap();
    assert!(matches!(r.rows.get(2).unwrap(), RowState::Done { lead_id: Some(9), .. }));
    assert!(matches!(r.rows.get(3).unwrap(), RowState::Done { status: Final::Rejected, .. }));
}

#[test]
fn damage_in_the_middle_stops_the_run_and_names_the_line() {
    for garbage in [&b"\x00\x00garbage\n"[..], b"{\"event\":\"outcome\",\"row\":2}\n", b"[1,2]\n"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let mut journal = start(&path);
        journal.attempts([(2, "+491", 10, 200)]).unwrap();
        drop(journal);
        append_raw(&path, garbage);
        append_raw(
            &path,
            (serde_json::to_string(&outcome(3, Final::Created, Some(1))).unwrap() + "\n")
                .as_bytes(),
        );
        let err = Journal::recover(&path).unwrap_err();
        assert!(matches!(err, JournalError::Corrupt { line: 3, .. }), "{err}");
        assert!(err.to_string().contains("line 3") && err.to_string().contains("j.jsonl"), "{err}");
        let lock = RunLock::acquire(&path).unwrap();
        let refused = open_run(lock, header(), OnChange::StartOver, false).err().unwrap();
        assert!(
            matches!(refused, JournalError::Corrupt { .. }),
            "sync does not start over: {refused}"
        );
    }
}

#[test]
fn a_journal_of_another_format_version_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    std::fs::write(&path, "{\"event\":\"run\",\"version\":9}\n").unwrap();
    let err = Journal::recover(&path).unwrap_err();
    assert!(err.to_string().contains("newer leadsync"), "{err}");
    std::fs::write(&path, "{\"event\":\"run\",\"version\":1}\n{\"event\":\"attempt\"}\n").unwrap();
    let lock = RunLock::acquire(&path).unwrap();
    let err = open_run(lock, header(), OnChange::Refuse, false).err().unwrap();
    assert!(err.to_string().contains("--restart --skip-existing"), "{err}");
    // A finished old run has nothing to resume: a new journal replaces it.
    std::fs::write(
        &path,
        "{\"event\":\"run\",\"version\":1}\n{\"event\":\"finished\",\"at\":\"t\"}\n",
    )
    .unwrap();
    let lock = RunLock::acquire(&path).unwrap();
    let (_, recovered) = open_run(lock, header(), OnChange::Refuse, false).unwrap();
    assert!(recovered.header.is_none());
    assert_eq!(Journal::recover(&path).unwrap().header.unwrap(), header());
}

#[test]
fn a_foreign_file_is_not_a_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    std::fs::write(&path, "hello\n").unwrap();
    assert!(matches!(Journal::recover(&path), Err(JournalError::NotAJournal { .. })));
    assert!(Journal::recover(&dir.path().join("missing")).unwrap().header.is_none());
}

#[test]
fn the_lock_is_taken_before_the_journal_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    let held = RunLock::acquire(&path).unwrap();
    // Garbage that only a reader would notice: a second run must stop at the lock instead.
    std::fs::write(&path, "not a journal\n").unwrap();
    assert!(matches!(RunLock::acquire(&path), Err(JournalError::Busy { .. })));
    drop(held);
}

#[test]
fn another_service_or_a_changed_run_cannot_take_over_a_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    drop(start(&path));
    let elsewhere = RunHeader { service: "https://calls.example.com/api/".into(), ..header() };
    let open = |h: RunHeader, on_change, restart| {
        open_run(RunLock::acquire(&path).unwrap(), h, on_change, restart).map(|(_, r)| r)
    };
    let err = open(elsewhere.clone(), OnChange::Refuse, false).err().unwrap();
    assert!(matches!(err, JournalError::OtherService { .. }), "{err}");
    let rotated = RunHeader { account: "user:2".into(), ..header() };
    assert!(matches!(
        open(rotated, OnChange::Refuse, false),
        Err(JournalError::OtherService { .. })
    ));
    let other_sheet = RunHeader {
        reading: Reading { sheet: Some("Feb".into()), sheet_position: Some(2), ..header().reading },
        ..header()
    };
    let err = open(other_sheet.clone(), OnChange::Refuse, false).err().unwrap();
    assert!(err.to_string().starts_with("the sheet changed"), "{err}");
    assert!(open(other_sheet, OnChange::StartOver, false).unwrap().header.is_none());
    assert!(open(elsewhere, OnChange::Refuse, true).is_ok(), "--restart starts over");
}

#[test]
fn what_differs_between_two_runs_is_named() {
    let base = header();
    let with = |f: &dyn Fn(&mut RunHeader)| {
        let mut h = header();
        f(&mut h);
        base.differs_from(&h)
    };
    assert_eq!(with(&|_| {}), None);
    assert_eq!(with(&|h| h.fingerprint = "g".into()), Some("the source file"));
    assert_eq!(with(&|h| h.reading.sheet_position = Some(2)), Some("the sheet"));
    assert_eq!(with(&|h| h.reading.header_row = 3), Some("the header row, delimiter or encoding"));
    assert_eq!(
        with(&|h| h.reading.encoding = Some("UTF-8".into())),
        Some("the header row, delimiter or encoding")
    );
    assert_eq!(with(&|h| h.mapping = "n".into()), Some("the mapping"));
    assert_eq!(with(&|h| h.allow_duplicates = true), Some("the mapping"));
    assert_eq!(with(&|h| h.baseline_lead_id = 99), None, "the baseline is not identity");
}

#[test]
fn default_paths_differ_by_sheet_service_and_account() {
    let dir = Path::new("/state");
    let jan = default_path(dir, "/x/book.xlsx", Some("Jan"), &["sandbox", "user:1"]);
    let feb = default_path(dir, "/x/book.xlsx", Some("Feb"), &["sandbox", "user:1"]);
    let other = default_path(dir, "/x/book.xlsx", Some("Jan"), &["sandbox", "user:2"]);
    assert_ne!(jan, feb);
    assert_ne!(jan, other);
    assert!(jan.file_name().unwrap().to_string_lossy().starts_with("book-Jan-"), "{jan:?}");
    assert_eq!(jan, default_path(dir, "/x/book.xlsx", Some("Jan"), &["sandbox", "user:1"]));
}

fn keyed(row: u64, key: u64, timeout: Duration) -> Attempt<'static> {
    Attempt {
        row,
        phone: "+491",
        campaign_id: 10,
        fp: row * 100,
        key: Some(key),
        keyed: true,
        timeout,
    }
}

/// Only the last word counts: an attempt or an outcome after `finished` reopens the run, and a
/// later `finished` closes it again.
#[test]
fn anything_after_finished_reopens_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    let mut journal = start(&path);
    journal.outcome(&outcome(2, Final::Created, Some(5))).unwrap();
    journal.finish("t".into()).unwrap();
    assert!(Journal::recover(&path).unwrap().finished);
    journal.attempts_of([keyed(2, 0xab, Duration::from_secs(30))]).unwrap();
    assert!(!Journal::recover(&path).unwrap().finished, "an attempt reopens it");
    journal.outcome(&outcome(2, Final::InDoubt, None)).unwrap();
    journal.sync().unwrap();
    assert!(!Journal::recover(&path).unwrap().finished);
    journal.outcome(&outcome(2, Final::Created, Some(6))).unwrap();
    journal.finish("t".into()).unwrap();
    assert!(Journal::recover(&path).unwrap().finished);
}

/// Each attempt records its key and its own timeout; a new run that replaces the journal
/// carries the rows left in doubt by key, with a deadline from the timeout they were sent with
/// (or the one journaled), and keeps carried doubts only while their deadline is ahead.
#[test]
fn doubts_are_carried_by_key_with_their_own_commit_window() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    let mut journal = start(&path);
    journal
        .attempts_of([
            keyed(2, 0xa, Duration::from_secs(30)),
            keyed(3, 0xb, Duration::from_secs(1)),
            keyed(4, 0xc, Duration::from_secs(1)),
        ])
        .unwrap();
    journal.outcome(&outcome(3, Final::InDoubt, None)).unwrap();
    journal.outcome(&outcome(4, Final::Created, Some(9))).unwrap();
    journal
        .carry(&[
            CarriedDoubt { key: 0xd, keyed: true, commit_by: 5_000 },
            CarriedDoubt { key: 0xe, keyed: false, commit_by: 500 },
        ])
        .unwrap();
    let r = Journal::recover(&path).unwrap();
    assert_eq!(r.sending.len(), 2, "settled rows are dropped from it");
    assert_eq!(r.sending[&2].timeout_ms, Some(30_000));
    let carried = r.doubts_to_carry(1_000, Duration::from_secs(99));
    let expected = [
        CarriedDoubt { key: 0xa, keyed: true, commit_by: 61_000 },
        CarriedDoubt { key: 0xb, keyed: true, commit_by: 1234 },
        CarriedDoubt { key: 0xd, keyed: true, commit_by: 5_000 },
    ];
    assert_eq!(carried, expected);
}

#[test]
fn a_line_longer_than_the_bound_stops_the_reading_as_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    drop(start(&path));
    // A complete line of more than 1 MiB: no journal writes one, so it is damage, and it is
    // not read into memory whole.
    let mut long = vec![b' '; super::regular::MAX_LINE as usize + 10];
    long.push(b'\n');
    append_raw(&path, &long);
    append_raw(&path, b"{\"event\":\"finished\",\"at\":\"t\"}\n");
    let Err(err) = Journal::recover(&path) else { panic!("a line over the bound is refused") };
    assert!(matches!(err, JournalError::Corrupt { line: 2, .. }), "{err}");
}

/// The fsync of a batch runs on its own thread: a batch dropped before its answer was taken
/// (an error elsewhere) still takes it, so the next batch waits for its own fsync, never
/// returning on the answer of the one before.
#[test]
fn each_batch_waits_for_its_own_fsync() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    let mut journal = start(&path);
    drop(journal.attempts_syncing([keyed(2, 0xab, Duration::from_secs(30))]).unwrap());
    journal.attempts_syncing([keyed(3, 0xac, Duration::from_secs(30))]).unwrap().wait().unwrap();
    // Had the second batch taken the first one's answer, its own would come in now.
    std::thread::sleep(Duration::from_millis(200));
    let syncer = journal.syncer.as_ref().expect("the syncing thread started");
    assert!(syncer.done.try_recv().is_err(), "a batch returned on another batch's fsync");
    let text = std::fs::read_to_string(&path).unwrap();
    let attempts = text.lines().filter(|l| l.contains("\"event\":\"attempt\"")).count();
    assert_eq!(attempts, 2, "{text}");
}

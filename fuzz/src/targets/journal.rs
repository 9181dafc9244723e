//! Journal replay: the bytes are a journal left by an earlier run (torn, truncated, garbage in
//! the middle, lines out of order). Opening the run must either refuse with an error or resume;
//! a resumed journal, once appended to, must read back, and every row it had settled must stay
//! settled, or the next run would send that row a second time.
//!
//! An input whose first byte is below 8 is a journal whose lines (after the header) are first
//! reordered: rotated by that many places, then swapped in pairs, so reordering is reached
//! without waiting for the mutator to move whole lines.

use std::path::Path;

use leadsync::journal::{
    Entry, FORMAT_VERSION, Final, OnChange, Reading, Recovered, RowState, RunHeader, RunLock,
    fp_text, open_run,
};

use crate::Target;

/// A row number no seed uses, for the outcome appended after a resume.
const PROBE_ROW: u64 = 4_000_000_000;

pub const TARGET: Target = Target {
    name: "journal",
    run,
    dictionary: &[
        b"\n",
        b"{\"event\":\"attempt\",\"row\":",
        b"{\"event\":\"outcome\",\"row\":",
        b"{\"event\":\"finished\",\"at\":\"t\"}\n",
        b"\"status\":\"created\"",
        b"\"status\":\"in_doubt\"",
        b"\"status\":\"failed\"",
        b"\"fp\":\"",
        b"\"lead_id\":",
        b"\"commit_by\":",
        b"\"version\":",
        b"18446744073709551615",
        b"-1",
        b"null",
        b"\x00",
        b"\r",
    ],
    max_len: 64 * 1024,
};

/// The run every input is opened as: the header the seeds' journals start with.
pub fn header() -> RunHeader {
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
        identity_keys: false,
        timeout_ms: 30_000,
        started_at: "t".into(),
    }
}

fn run(data: &[u8]) {
    let bytes = match data.split_first() {
        Some((&turn, rest)) if turn < 8 => reorder(rest, usize::from(turn)),
        _ => data.to_vec(),
    };
    let path = crate::scratch().join("journal.jsonl");
    std::fs::write(&path, &bytes).expect("the scratch journal can be written");
    let lock = RunLock::acquire(&path).expect("nothing else holds the scratch journal");
    let Ok((mut journal, recovered)) = open_run(lock, header(), OnChange::Refuse, false) else {
        return;
    };
    let probe = Entry::Outcome {
        row: PROBE_ROW,
        status: Final::Created,
        fp: fp_text(1),
        lead_id: Some(1),
        message: None,
        commit_by: None,
        reconciled: false,
        key: None,
        keyed: false,
    };
    journal.outcome(&probe).expect("appending to the scratch journal");
    journal.finish("t".into()).expect("appending to the scratch journal");
    drop(journal);
    check_read_back(&path, &recovered, &bytes);
}

/// The resumed journal, appended to, still holds everything the first reading settled.
fn check_read_back(path: &Path, before: &Recovered, original: &[u8]) {
    let shown = String::from_utf8_lossy(original);
    let after = match Recovered::read(path) {
        Ok(after) => after,
        Err(e) => panic!("a resumed journal no longer reads after appending: {e}\n{shown}"),
    };
    for (row, state) in before.rows.iter() {
        if matches!(state, RowState::Done { .. }) && row != PROBE_ROW {
            assert_eq!(after.rows.get(row), Some(state), "row {row} changed\n{shown}");
        }
    }
    assert!(
        matches!(after.rows.get(PROBE_ROW), Some(RowState::Done { .. })),
        "the appended outcome was lost\n{shown}"
    );
    assert!(after.finished, "the appended finish was lost\n{shown}");
}

/// The journal with its lines after the first rotated by `turn` and swapped in pairs.
pub fn reorder(journal: &[u8], turn: usize) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = journal.split_inclusive(|b| *b == b'\n').collect();
    if lines.len() > 2 {
        let body = &mut lines[1..];
        let len = body.len();
        body.rotate_left(turn % len);
        for pair in body.chunks_mut(2) {
            pair.reverse();
        }
    }
    lines.concat()
}

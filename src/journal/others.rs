//! Claims across runs: the lead ids every other journal of the same account has settled a row
//! with, so a row matched by content never takes a lead that another run's row already owns.
//!
//! Rows sent with their own key need none of this (the key names one row of one source); only
//! rows matched by content (older versions, `lead_key = false`) do, and only when they are in
//! doubt, so a run scans the state folder at start-up only then. The scan reads each journal's
//! header, skips those of other services and accounts, and picks the lead ids out of outcome
//! lines without parsing them whole: a thousand journals of a thousand rows take a fraction of
//! a second (`cargo test --release --lib scan_a_thousand_journals -- --ignored --nocapture`).

use std::io::BufReader;
use std::path::{Path, PathBuf};

use super::{Claimed, RunHeader};

/// The lead ids claimed by the journals in `folders` (except `own`) of `header`'s service and
/// account. Journals that cannot be read are passed over: they are another run's, and that run
/// reports its own damage.
pub fn claimed_elsewhere(folders: &[PathBuf], own: &Path, header: &RunHeader) -> Claimed {
    let mut ids = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(folder) else { continue };
        for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
            let journal = path.extension().is_some_and(|e| e == "jsonl");
            if journal && path != own {
                collect_ids(&path, header, &mut ids);
            }
        }
    }
    ids.into_iter().collect()
}

fn collect_ids(path: &Path, header: &RunHeader, ids: &mut Vec<u64>) {
    // Only regular files: a FIFO named like a journal would block the run holding its lock.
    let Ok(file) = super::regular::open_regular(path) else { return };
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    if super::regular::next_line(&mut reader, &mut line).is_none() {
        return;
    }
    let Ok(theirs) = serde_json::from_slice::<RunHeader>(&line) else { return };
    if theirs.service != header.service || !theirs.same_account(header) {
        return;
    }
    while super::regular::next_line(&mut reader, &mut line).is_some() {
        if let Some(id) = lead_id_of(&line) {
            ids.push(id);
        }
    }
}

/// The `lead_id` of an outcome line, read without parsing the line.
fn lead_id_of(line: &[u8]) -> Option<u64> {
    const FIELD: &[u8] = b"\"lead_id\":";
    let at = memchr::memmem::find(line, FIELD)? + FIELD.len();
    let digits = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&line[at..at + digits]).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::tests::header;

    fn write_journal(path: &Path, header: &RunHeader, ids: impl Iterator<Item = u64>) {
        let mut text = serde_json::to_string(header).unwrap() + "\n";
        for (row, id) in ids.enumerate() {
            text.push_str(&format!(
                "{{\"event\":\"outcome\",\"row\":{},\"status\":\"created\",\"fp\":\"00\",\"lead_id\":{id}}}\n",
                row + 2
            ));
        }
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn ids_of_other_runs_of_the_account_are_claimed_and_no_others() {
        let dir = tempfile::tempdir().unwrap();
        let ours = header();
        let renamed = RunHeader {
            account: "campaign:10".into(),
            accounts: vec!["user:1".into()],
            ..header()
        };
        let stranger = RunHeader { account: "user:2".into(), ..header() };
        write_journal(&dir.path().join("a.jsonl"), &renamed, [5, 6].into_iter());
        write_journal(&dir.path().join("b.jsonl"), &stranger, [7].into_iter());
        write_journal(&dir.path().join("own.jsonl"), &ours, [8].into_iter());
        std::fs::write(dir.path().join("c.jsonl"), "not a journal\n").unwrap();
        let claimed =
            claimed_elsewhere(&[dir.path().to_path_buf()], &dir.path().join("own.jsonl"), &ours);
        assert!(claimed.contains(&5) && claimed.contains(&6), "another name of the account");
        assert!(!claimed.contains(&7), "another account");
        assert!(!claimed.contains(&8), "the run's own journal is read by the run");
        assert_eq!(lead_id_of(br#"{"event":"attempt","row":2}"#), None);
    }

    /// Prints what scanning a thousand journals of a thousand settled rows costs.
    #[test]
    #[ignore = "a measurement: cargo test --release --lib scan_a_thousand_journals -- --ignored --nocapture"]
    fn scan_a_thousand_journals() {
        let dir = tempfile::tempdir().unwrap();
        let ours = header();
        for j in 0..1_000u64 {
            let path = dir.path().join(format!("j{j}.jsonl"));
            write_journal(&path, &ours, (j * 1_000..(j + 1) * 1_000).map(|id| id + 1));
        }
        let started = std::time::Instant::now();
        let claimed =
            claimed_elsewhere(&[dir.path().to_path_buf()], &dir.path().join("own"), &ours);
        let took = started.elapsed();
        assert!(claimed.contains(&1) && claimed.contains(&1_000_000));
        println!("1,000 journals, 1,000,000 claimed ids: {took:?}");
    }
}

//! The short summary printed on stderr when a run ends: whether Ctrl-C cut it short, what
//! happened, the three most common reasons rows were refused and how to fix them, and where the
//! full reports are.

use std::fmt::Write;

use super::model::{RunInfo, Summary};
use super::{Outcome, thousands};

const TOP: usize = 3;

/// With `-v`: the assistant's first message as the first sample row would hear it, so the
/// call can be heard on the terminal before a lead hears it.
pub fn first_message_line(outcome: &Outcome) -> Option<String> {
    let first = outcome.first_messages.first()?;
    Some(format!("first message (row {}): {first}\n", first.row))
}

/// A few plain lines (no colour: the caller decides about the terminal), ending in a newline.
pub fn terminal_summary(outcome: &Outcome, run: &RunInfo) -> String {
    let mut out = String::new();
    if run.interrupted {
        out.push_str(&interrupted(&outcome.summary, run));
    }
    if run.dry_run {
        out.push_str("dry run: nothing was sent\n");
    }
    for note in &run.reading_notes {
        let _ = writeln!(out, "reading: {note}");
    }
    out.push_str(&counts(&outcome.summary, run));
    let width = outcome.top_reasons.iter().take(TOP).map(|(_, n)| thousands(*n).len()).max();
    if let Some(width) = width {
        out.push_str("top reasons:\n");
        for (code, n) in outcome.top_reasons.iter().take(TOP) {
            let n = thousands(*n);
            let _ = writeln!(out, "  {n:>width$}  {:<20}  fix: {}", code.as_str(), code.fix());
        }
        // No reason goes unmentioned: the rest are counted, and the reports list them.
        let rest = outcome.top_reasons.len().saturating_sub(TOP);
        if rest > 0 {
            let what = if rest == 1 { "reason" } else { "reasons" };
            let rows: u64 = outcome.top_reasons.iter().skip(TOP).map(|(_, n)| n).sum();
            let of = if rows == 1 { "row" } else { "rows" };
            let _ = writeln!(
                out,
                "  and {rest} more {what} ({} {of}): see the report",
                thousands(rows)
            );
        }
    }
    if !run.campaigns_checked {
        out.push_str("campaigns were not checked against the service (offline)\n");
    }
    let partial = if run.interrupted { "partial " } else { "" };
    match outcome.paths.as_slice() {
        [] => {}
        [path] => _ = writeln!(out, "{partial}report: {}", path.display()),
        paths => {
            let list: Vec<_> = paths.iter().map(|p| p.display().to_string()).collect();
            let _ = writeln!(out, "{partial}reports: {}", list.join(", "));
        }
    }
    out
}

/// First, because every count below it covers only the rows read before the stop.
fn interrupted(summary: &Summary, run: &RunInfo) -> String {
    let next = match run.dry_run {
        true => "run it again to the end to check every row",
        false => "run the same command again to continue where it stopped",
    };
    let read = match (summary.rows, run.read_whole) {
        (0, _) => return format!("interrupted: no row was read; {next}\n"),
        (1, true) => "the one row was read".to_string(),
        (n, true) => format!("all {} rows were read", thousands(n)),
        (1, false) => "only the first row was read".to_string(),
        (n, false) => format!("only the first {} rows were read", thousands(n)),
    };
    if !run.dry_run && summary.not_sent > 0 {
        // Sent: on the service now, created by this run or found there.
        let sent = summary.created + summary.skipped_existing;
        return format!(
            "interrupted: {read}; {} sent, {} not sent yet: run the same command again to send them and continue where it stopped\n",
            thousands(sent),
            thousands(summary.not_sent)
        );
    }
    let cover = if run.read_whole { "" } else { ", not the whole file" };
    format!("interrupted: {read}; the counts and reports cover those{cover}; {next}\n")
}

/// `1,000 rows: 940 valid, 40 rejected, …`, naming only the statuses that occurred.
fn counts(summary: &Summary, run: &RunInfo) -> String {
    let parts = [
        (summary.created, "created"),
        (summary.valid, if run.dry_run { "valid" } else { "valid, not sent" }),
        (summary.skipped_existing, "skipped (already on the service)"),
        (summary.do_not_call, "not to be called (suppressed or no consent)"),
        (summary.rejected, "rejected"),
        (summary.duplicates, if summary.duplicates == 1 { "duplicate" } else { "duplicates" }),
        (summary.failed, "failed (run again to retry)"),
        (summary.not_sent, "not sent yet"),
        (summary.excluded, "excluded by your edits"),
    ];
    let named: Vec<_> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{} {what}", thousands(*n)))
        .collect();
    let rows = if summary.rows == 1 { "row" } else { "rows" };
    let mut line = format!("{} {rows}", thousands(summary.rows));
    if !named.is_empty() {
        line = format!("{line}: {}", named.join(", "));
    }
    if run.blank_rows > 0 {
        line = format!("{line} ({} blank skipped)", thousands(run.blank_rows));
    }
    line + "\n"
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::model::{IssueCode, Summary};
    use super::super::testdata::run_info;
    use super::{Outcome, terminal_summary};

    fn outcome() -> Outcome {
        let summary = Summary {
            rows: 1000,
            valid: 940,
            rejected: 40,
            duplicates: 12,
            failed: 8,
            ..Summary::default()
        };
        let top_reasons = vec![
            (IssueCode::InvalidPhone, 31),
            (IssueCode::DuplicateInFile, 12),
            (IssueCode::RequestFailed, 8),
            (IssueCode::UnknownCampaign, 1),
        ];
        Outcome {
            summary,
            top_reasons,
            paths: vec![PathBuf::from("r.json"), PathBuf::from("r.html")],
            problems: vec![],
            first_messages: vec![],
        }
    }

    #[test]
    fn says_what_happened_why_and_where() {
        let text = terminal_summary(&outcome(), &run_info());
        let expected = "\
dry run: nothing was sent
1,000 rows: 940 valid, 40 rejected, 12 duplicates, 8 failed (run again to retry) (1 blank skipped)
top reasons:
  31  invalid_phone         fix: correct the number, or write it with its country code (+49 …) if it is foreign
  12  duplicate_in_file     fix: remove the repeated row, or pass --allow-duplicates
   8  request_failed        fix: run the same command again: failed rows are retried
  and 1 more reason (1 row): see the report
campaigns were not checked against the service (offline)
reports: r.json, r.html
";
        assert_eq!(text, expected);
    }

    #[test]
    fn an_interrupted_run_says_first_that_its_counts_are_partial() {
        let mut run = run_info();
        run.interrupted = true;
        let text = terminal_summary(&outcome(), &run);
        let first = text.lines().next().unwrap();
        assert_eq!(
            first,
            "interrupted: only the first 1,000 rows were read; the counts and reports cover \
             those, not the whole file; run it again to the end to check every row"
        );
        assert!(text.ends_with("partial reports: r.json, r.html\n"), "{text}");
        run.dry_run = false;
        let text = terminal_summary(&outcome(), &run);
        assert!(text.lines().next().unwrap().ends_with("continue where it stopped"), "{text}");
        let empty = Outcome {
            summary: Summary::default(),
            top_reasons: vec![],
            paths: vec![],
            problems: vec![],
            first_messages: vec![],
        };
        let text = terminal_summary(&empty, &run);
        assert!(text.starts_with("interrupted: no row was read; run the same"), "{text}");
    }

    #[test]
    fn reading_notes_come_before_the_counts() {
        let mut run = run_info();
        run.reading_notes = vec!["header on row 8; rows 1\u{2013}7 skipped as titles".into()];
        let text = terminal_summary(&outcome(), &run);
        let second = text.lines().nth(1).unwrap();
        assert_eq!(second, "reading: header on row 8; rows 1\u{2013}7 skipped as titles");
    }

    #[test]
    fn a_clean_live_run_is_two_lines() {
        let mut run = run_info();
        (run.dry_run, run.campaigns_checked, run.blank_rows) = (false, true, 0);
        let summary = Summary { rows: 1, created: 1, ..Summary::default() };
        let outcome = Outcome {
            summary,
            top_reasons: vec![],
            paths: vec![PathBuf::from("r.csv")],
            problems: vec![],
            first_messages: vec![],
        };
        assert_eq!(terminal_summary(&outcome, &run), "1 row: 1 created\nreport: r.csv\n");
    }
}

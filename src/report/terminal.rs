//! The short summary printed on stderr when a run ends: whether Ctrl-C cut it short, what
//! happened, the three most common reasons rows were refused and how to fix them, and where the
//! full reports are.

use std::fmt::Write;

use super::model::{RunInfo, Summary};
use super::{Outcome, thousands};
use crate::row::{Lang, count};

const TOP: usize = 3;

/// With `-v`: the assistant's first message as the first sample row would hear it, so the
/// call can be heard on the terminal before a lead hears it.
pub fn first_message_line(outcome: &Outcome) -> Option<String> {
    let first = outcome.first_messages.first()?;
    Some(format!("first message (row {}): {first}\n", first.row))
}

/// A few plain lines in English (no colour: the caller decides about the terminal), ending in
/// a newline.
pub fn terminal_summary(outcome: &Outcome, run: &RunInfo) -> String {
    terminal_summary_in(outcome, run, Lang::En)
}

/// [`terminal_summary`] in `lang`; the CLI asks the environment ([`Lang::from_env`]).
pub fn terminal_summary_in(outcome: &Outcome, run: &RunInfo, lang: Lang) -> String {
    let de = lang == Lang::De;
    let mut out = String::new();
    if run.interrupted {
        out.push_str(&interrupted(&outcome.summary, run, lang));
    }
    if run.dry_run {
        out.push_str(if de {
            "Probelauf: nichts wurde gesendet\n"
        } else {
            "dry run: nothing was sent\n"
        });
    }
    for note in &run.reading_notes {
        let _ = writeln!(out, "{}: {note}", if de { "Einlesen" } else { "reading" });
    }
    out.push_str(&counts(&outcome.summary, run, lang));
    out.push_str(&top_reasons(outcome, lang));
    if !run.campaigns_checked {
        out.push_str(match lang {
            Lang::En => "campaigns were not checked against the service (offline)\n",
            Lang::De => "Kampagnen wurden nicht mit dem Dienst abgeglichen (offline)\n",
        });
    }
    out.push_str(&report_paths(outcome, run, lang));
    out
}

/// The most common reasons, each with its count and the CLI's hint, and how many more.
fn top_reasons(outcome: &Outcome, lang: Lang) -> String {
    let mut out = String::new();
    let top = outcome.top_reasons.iter().take(TOP);
    let Some(width) = top.clone().map(|(_, n)| count(lang, *n).len()).max() else {
        return out;
    };
    let (heading, fix) = match lang {
        Lang::En => ("top reasons:", "fix"),
        Lang::De => ("häufigste Gründe:", "Abhilfe"),
    };
    let _ = writeln!(out, "{heading}");
    for (code, n) in top {
        let n = count(lang, *n);
        let _ = writeln!(out, "  {n:>width$}  {:<20}  {fix}: {}", code.as_str(), code.fix_in(lang));
    }
    // No reason goes unmentioned: the rest are counted, and the reports list them.
    let rest = outcome.top_reasons.len().saturating_sub(TOP) as u64;
    if rest > 0 {
        let rows: u64 = outcome.top_reasons.iter().skip(TOP).map(|(_, n)| n).sum();
        let _ = match lang {
            Lang::En => writeln!(
                out,
                "  and {rest} more {} ({} {}): see the report",
                if rest == 1 { "reason" } else { "reasons" },
                thousands(rows),
                if rows == 1 { "row" } else { "rows" }
            ),
            Lang::De => writeln!(
                out,
                "  und {} ({}): siehe den Bericht",
                crate::row::plural(lang, rest, "weiterer Grund", "weitere Gründe"),
                crate::row::plural(lang, rows, "Zeile", "Zeilen")
            ),
        };
    }
    out
}

/// Where the reports are; "partial" when the run was stopped.
fn report_paths(outcome: &Outcome, run: &RunInfo, lang: Lang) -> String {
    let (one, many) = match (lang, run.interrupted) {
        (Lang::En, false) => ("report", "reports"),
        (Lang::En, true) => ("partial report", "partial reports"),
        (Lang::De, false) => ("Bericht", "Berichte"),
        (Lang::De, true) => ("unvollständiger Bericht", "unvollständige Berichte"),
    };
    match outcome.paths.as_slice() {
        [] => String::new(),
        [path] => format!("{one}: {}\n", path.display()),
        paths => {
            let list: Vec<_> = paths.iter().map(|p| p.display().to_string()).collect();
            format!("{many}: {}\n", list.join(", "))
        }
    }
}

/// First, because every count below it covers only the rows read before the stop.
fn interrupted(summary: &Summary, run: &RunInfo, lang: Lang) -> String {
    if lang == Lang::De {
        return interrupted_de(summary, run);
    }
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

fn interrupted_de(summary: &Summary, run: &RunInfo) -> String {
    let n = |n: u64| count(Lang::De, n);
    let next = match run.dry_run {
        true => "bis zum Ende erneut ausführen, um jede Zeile zu prüfen",
        false => "denselben Befehl erneut ausführen, um dort fortzusetzen, wo er anhielt",
    };
    let read = match (summary.rows, run.read_whole) {
        (0, _) => return format!("abgebrochen: keine Zeile wurde gelesen; {next}\n"),
        (1, true) => "die eine Zeile wurde gelesen".to_string(),
        (rows, true) => format!("alle {} Zeilen wurden gelesen", n(rows)),
        (1, false) => "nur die erste Zeile wurde gelesen".to_string(),
        (rows, false) => format!("nur die ersten {} Zeilen wurden gelesen", n(rows)),
    };
    if !run.dry_run && summary.not_sent > 0 {
        let sent = summary.created + summary.skipped_existing;
        return format!(
            "abgebrochen: {read}; {} gesendet, {} noch nicht gesendet: denselben Befehl erneut ausführen, um sie zu senden und fortzusetzen\n",
            n(sent),
            n(summary.not_sent)
        );
    }
    let cover = if run.read_whole { "" } else { ", nicht die ganze Datei" };
    format!("abgebrochen: {read}; Zahlen und Berichte gelten für diese{cover}; {next}\n")
}

/// `1,000 rows: 940 valid, 40 rejected, …`, naming only the statuses that occurred.
fn counts(summary: &Summary, run: &RunInfo, lang: Lang) -> String {
    let words = match lang {
        Lang::En => count_words_en(summary, run),
        Lang::De => count_words_de(run),
    };
    let values = [
        summary.created,
        summary.valid,
        summary.skipped_existing,
        summary.do_not_call,
        summary.rejected,
        summary.duplicates,
        summary.failed,
        summary.not_sent,
        summary.excluded,
        summary.hidden,
    ];
    let named: Vec<_> = values
        .iter()
        .zip(words)
        .filter(|(n, _)| **n > 0)
        .map(|(n, what)| format!("{} {what}", count(lang, *n)))
        .collect();
    let mut line = match lang {
        Lang::En => format!(
            "{} {}",
            thousands(summary.rows),
            if summary.rows == 1 { "row" } else { "rows" }
        ),
        Lang::De => crate::row::plural(lang, summary.rows, "Zeile", "Zeilen"),
    };
    if !named.is_empty() {
        line = format!("{line}: {}", named.join(", "));
    }
    if run.blank_rows > 0 {
        let blank = if lang == Lang::De { "leere übersprungen" } else { "blank skipped" };
        line = format!("{line} ({} {blank})", count(lang, run.blank_rows));
    }
    line + "\n"
}

/// What each count is, in the order of [`counts`]' values.
fn count_words_en(summary: &Summary, run: &RunInfo) -> [&'static str; 10] {
    [
        "created",
        if run.dry_run { "valid" } else { "valid, not sent" },
        "skipped (already on the service)",
        "not to be called (suppressed or no consent)",
        "rejected",
        if summary.duplicates == 1 { "duplicate" } else { "duplicates" },
        "failed (run again to retry)",
        "not sent yet",
        "excluded by your edits",
        "hidden in the workbook (by hand or by a filter)",
    ]
}

fn count_words_de(run: &RunInfo) -> [&'static str; 10] {
    [
        "angelegt",
        if run.dry_run { "gültig" } else { "gültig, nicht gesendet" },
        "übersprungen (schon beim Dienst)",
        "nicht anzurufen (Sperrliste oder keine Einwilligung)",
        "abgelehnt",
        "doppelt",
        "fehlgeschlagen (erneut ausführen zum Wiederholen)",
        "noch nicht gesendet",
        "von Ihnen ausgeschlossen",
        "in der Arbeitsmappe ausgeblendet (von Hand oder per Filter)",
    ]
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

    #[test]
    fn a_german_environment_reads_german() {
        let text = super::terminal_summary_in(&outcome(), &run_info(), crate::row::Lang::De);
        let expected = "\
Probelauf: nichts wurde gesendet
1.000 Zeilen: 940 gültig, 40 abgelehnt, 12 doppelt, 8 fehlgeschlagen (erneut ausführen zum Wiederholen) (1 leere übersprungen)
häufigste Gründe:
  31  invalid_phone         Abhilfe: die Nummer korrigieren oder mit Ländervorwahl (+49 …) schreiben, wenn sie ausländisch ist
  12  duplicate_in_file     Abhilfe: die doppelte Zeile entfernen oder --allow-duplicates angeben
   8  request_failed        Abhilfe: denselben Befehl erneut ausführen: fehlgeschlagene Zeilen werden wiederholt
  und 1 weiterer Grund (1 Zeile): siehe den Bericht
Kampagnen wurden nicht mit dem Dienst abgeglichen (offline)
Berichte: r.json, r.html
";
        assert_eq!(text, expected);
    }
}

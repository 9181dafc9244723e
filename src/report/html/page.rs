//! The HTML page around the streamed table: everything above it (`head`) and below it (`tail`),
//! one small function per section, each writing straight to the file.

use std::io::{self, Write};

use crate::assistant::{Piece, Speaker, Spoken};

use super::super::model::{RunInfo, Summary};
use super::super::{ranked, thousands};
use super::charts::{self, percent};
use super::tally::Tally;
use super::{Esc, TABLE_CAP, labels};

const STYLE: &str = include_str!("style.css");

const DOCUMENT_START: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
"#;

const TABLE_START: &str = r#"<p class="lede">Rejected, duplicate and failed rows in file order. Correct them in the spreadsheet, or in the CSV report (its first columns are the original ones), and import again.</p>
<table>
<thead><tr><th>Row</th><th>Status</th><th>Name</th><th>Phone as typed</th><th>Problem</th><th>How to fix</th></tr></thead>
<tbody>
"#;

pub(super) struct Page<'a> {
    pub(super) summary: &'a Summary,
    pub(super) run: &'a RunInfo,
    pub(super) tally: &'a Tally,
    /// The assistant and its first message filled in for the sample rows.
    pub(super) spoken: Option<(&'a Speaker, Vec<Spoken>)>,
}

impl Page<'_> {
    /// Everything up to and including the table's `<tbody>`.
    pub(super) fn head(&self, out: &mut impl Write) -> io::Result<()> {
        self.header(out)?;
        self.verdict(out)?;
        self.banners(out)?;
        self.tiles(out)?;
        charts::strip(out, self.summary, self.run)?;
        self.reasons(out)?;
        if let Some((speaker, spoken)) = &self.spoken {
            first_messages(out, speaker, spoken)?;
        }
        writeln!(out, r#"<div class="pair pair-wrap">"#)?;
        charts::groups(out, "Leads per campaign", &self.tally.campaigns, labels::campaign)?;
        charts::groups(out, "Numbers per country", &self.tally.countries, labels::country)?;
        charts::groups(out, "Numbers per type", &self.tally.number_types, labels::number_type)?;
        writeln!(out, "</div>\n<section class=\"card\">\n<h2>Rows to fix</h2>")?;
        match self.tally.shown {
            0 => writeln!(
                out,
                r#"<p class="empty-note good-note">Nothing to fix: no row was rejected, duplicated or failed.</p>"#
            ),
            _ => out.write_all(TABLE_START.as_bytes()),
        }
    }

    /// Closes the table, says what did not fit, and ends the page.
    pub(super) fn tail(&self, out: &mut impl Write) -> io::Result<()> {
        if self.tally.shown > 0 {
            out.write_all(b"</tbody></table>\n")?;
        }
        if self.tally.hidden > 0 {
            let (hidden, cap) = (thousands(self.tally.hidden), thousands(TABLE_CAP));
            writeln!(
                out,
                r#"<p class="more">… and <b>{hidden} more rows to fix</b> that are not shown: this page lists the first {cap}. The CSV and JSON reports list every row.</p>"#
            )?;
        }
        let version = env!("CARGO_PKG_VERSION");
        writeln!(
            out,
            "</section>\n<footer>leadsync {version} · Row numbers are those of the spreadsheet \
             (the header is row 1). Every row with all its fields is in the CSV and JSON reports.\
             </footer>\n</main>\n</body>\n</html>"
        )
    }

    fn header(&self, out: &mut impl Write) -> io::Result<()> {
        let source = Esc(&self.run.source);
        out.write_all(DOCUMENT_START.as_bytes())?;
        writeln!(out, "<title>Import report · {source}</title>\n<style>\n{STYLE}</style>")?;
        writeln!(out, "</head>\n<body>\n<main>\n<header>")?;
        writeln!(out, r#"<div class="eyebrow">leadsync import report</div>"#)?;
        let sheet = self.run.sheet.as_deref().map(Esc);
        let sheet = sheet.map(|s| format!(r#" <span class="sheet">· {s}</span>"#));
        writeln!(out, "<h1>{source}{}</h1>", sheet.unwrap_or_default())?;
        let (started, finished) = (when(&self.run.started_at), when(&self.run.finished_at));
        let (started, finished) = (Esc(&started), Esc(&finished));
        write!(out, r#"<p class="meta">Started {started} · finished {finished}"#)?;
        let blank = self.run.blank_rows;
        if blank > 0 {
            let rows = if blank == 1 { "row" } else { "rows" };
            write!(out, " · {} blank {rows} skipped", thousands(blank))?;
        }
        writeln!(out, "</p>")?;
        for note in &self.run.reading_notes {
            writeln!(out, r#"<p class="meta">Reading: {}</p>"#, Esc(note))?;
        }
        writeln!(out, "</header>")
    }

    /// One sentence a manager can act on: how many rows are fine, how many are not, and the
    /// main reason.
    fn verdict(&self, out: &mut impl Write) -> io::Result<()> {
        let s = self.summary;
        // A stopped run may still have read every row: only one that did not covers "the
        // first N".
        let rows = match self.run.interrupted && !self.run.read_whole {
            true => format!("the first {} rows read", thousands(s.rows)),
            false => format!("{} rows", thousands(s.rows)),
        };
        let good = match self.run.dry_run {
            true => format!("<b>{}</b> of {rows} are ready to call.", thousands(s.valid)),
            false => {
                format!("<b>{}</b> of {rows} were created as leads.", thousands(s.created))
            }
        };
        // Rows a stop kept from being sent are not a problem: they go with the next run.
        let good = match (self.run.dry_run, s.not_sent) {
            (false, n) if n > 0 => format!(
                "{good} <b>{}</b> not sent yet: run the same command again to send them.",
                thousands(n)
            ),
            _ => good,
        };
        let to_fix = thousands(s.rejected + s.duplicates + s.failed);
        let problems = match ranked(&self.tally.reasons).first() {
            _ if !s.has_problems() => " Nothing needs fixing.".to_string(),
            Some((code, n)) => format!(
                " <b>{to_fix}</b> need fixing; the most common reason is “{}” ({} rows).",
                labels::reason(*code),
                thousands(*n)
            ),
            None => format!(" <b>{to_fix}</b> need fixing."),
        };
        writeln!(out, r#"<p class="verdict">{good}{problems}</p>"#)
    }

    fn banners(&self, out: &mut impl Write) -> io::Result<()> {
        let mut banner = |kind: &str, title: &str, text: &str| {
            let (title, text) = (Esc(title), Esc(text));
            writeln!(out, r#"<div class="banner {kind}"><strong>{title}</strong>{text}</div>"#)
        };
        if self.run.interrupted {
            let (title, text) = self.interrupted();
            banner("stop", &title, &text)?;
        }
        if self.run.dry_run {
            let text = "No lead was created and nobody will be called. This page shows what \
                        importing the file would do.";
            banner("dry", "Dry run: nothing was sent", text)?;
        }
        if !self.run.campaigns_checked {
            let text = "The run was offline, so campaign names and ids were not compared with the \
                        service. A wrong campaign is only caught when you import.";
            banner("warn", "Campaigns were not checked", text)?;
        }
        if !self.run.dry_run && self.summary.failed > 0 {
            let title = format!("{} rows could not be sent", thousands(self.summary.failed));
            let text = "Run the same command again to retry them; rows already created are not \
                        sent twice.";
            banner("warn", &title, text)?;
        }
        Ok(())
    }

    /// The interrupted banner's title and text: the page covers part of the file only.
    fn interrupted(&self) -> (String, String) {
        let s = self.summary;
        if !self.run.dry_run && s.not_sent > 0 {
            let title = format!(
                "Stopped: {} sent, {} not sent yet",
                thousands(s.created + s.skipped_existing),
                thousands(s.not_sent)
            );
            let whole = if self.run.read_whole { "" } else { " and the rest of the file" };
            let text = format!(
                "The run was stopped (Ctrl-C or SIGTERM) before it sent every row. Nothing went \
                 wrong with the rows not sent yet: run the same command again to send them{whole}; \
                 rows already sent are not sent twice."
            );
            return (title, text);
        }
        let title = match (s.rows, self.run.read_whole) {
            (0, _) => "Interrupted: no row was read".to_string(),
            (n, true) => format!("Interrupted: all {} rows were read", thousands(n)),
            (1, false) => "Interrupted: only the first row was read".to_string(),
            (n, false) => format!("Interrupted: only the first {} rows were read", thousands(n)),
        };
        let next = match self.run.dry_run {
            true => "run it again to the end to check every row",
            false => "run the same command again to continue where it stopped",
        };
        let cover = if self.run.read_whole { "" } else { ", not the whole file" };
        let text = format!(
            "The run was stopped (Ctrl-C or SIGTERM). The counts, charts and rows on this page \
             cover those rows{cover}: {next}."
        );
        (title, text)
    }

    fn tiles(&self, out: &mut impl Write) -> io::Result<()> {
        let s = self.summary;
        let share = |n: u64| format!("{} of rows", percent(n, s.rows));
        let rows_sub = match self.run.interrupted {
            true => "read before Ctrl-C",
            false => "read from the file",
        };
        let good = if self.run.dry_run || s.created == 0 && s.valid > 0 {
            ("Valid", s.valid, format!("{} · ready to call", percent(s.valid, s.rows)))
        } else if s.valid > 0 {
            ("Created", s.created, format!("+ {} valid, not sent", thousands(s.valid)))
        } else {
            ("Created", s.created, share(s.created))
        };
        let tiles = [
            ("Rows", s.rows, "ink", rows_sub.to_string()),
            (good.0, good.1, "ok", good.2),
            ("Rejected", s.rejected, "bad", share(s.rejected)),
            ("Duplicates", s.duplicates, "dup", share(s.duplicates)),
            ("Skipped", s.skipped_existing, "skip", "already on the service".to_string()),
            ("Do not call", s.do_not_call, "skip", "suppressed or no consent".to_string()),
            ("Excluded", s.excluded, "skip", "left out by you".to_string()),
            ("Failed", s.failed, "fail", "run again to retry".to_string()),
        ];
        writeln!(out, r#"<section class="tiles">"#)?;
        for (label, value, colour, sub) in tiles {
            let zero = if value == 0 && colour != "ink" { " zero" } else { "" };
            let (value, sub) = (thousands(value), Esc(&sub));
            writeln!(
                out,
                r#"<div class="tile{zero}" style="--c: var(--{colour})"><div class="label">{label}</div><div class="value">{value}</div><div class="sub">{sub}</div></div>"#
            )?;
        }
        writeln!(out, "</section>")
    }

    fn reasons(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "<section class=\"card keep\">\n<h2>Why rows were rejected</h2>")?;
        let reasons = ranked(&self.tally.reasons);
        if reasons.is_empty() {
            writeln!(out, r#"<p class="empty-note good-note">No row was rejected.</p>"#)?;
        } else {
            writeln!(
                out,
                r#"<p class="lede">Rows per reason (a row with two problems counts for both), and what to do about it.</p>"#
            )?;
            charts::reasons(out, &reasons, self.summary.rows, false)?;
        }
        let warnings = ranked(&self.tally.warnings);
        if !warnings.is_empty() {
            writeln!(out, r#"<h2 class="second">Imported with a warning</h2>"#)?;
            writeln!(
                out,
                r#"<p class="lede">These rows went through; nothing needs to be done unless the note says so.</p>"#
            )?;
            charts::reasons(out, &warnings, self.summary.rows, true)?;
        }
        writeln!(out, "</section>")
    }
}

/// `2025-05-01T09:00:02Z` → `2025-05-01 09:00:02 UTC`; anything else is shown as it is.
fn when(timestamp: &str) -> String {
    let readable = timestamp.replacen('T', " ", 1);
    match readable.strip_suffix('Z') {
        Some(utc) => format!("{utc} UTC"),
        None => readable,
    }
}

/// "What the assistant will say": its first message as each sample row would hear it, a gap
/// marked where the row leaves a variable empty, so the call is heard before a lead hears it.
fn first_messages(out: &mut impl Write, speaker: &Speaker, spoken: &[Spoken]) -> io::Result<()> {
    writeln!(out, r#"<section class="card" id="first-message">"#)?;
    writeln!(out, "<h2>What the assistant will say</h2>")?;
    let name = Esc(&speaker.name);
    writeln!(
        out,
        r#"<p class="lede">The first message of the assistant <b>{name}</b> (id {}), filled in for a few rows as it would be spoken. A marked gap is a variable the row leaves empty.</p>"#,
        speaker.id
    )?;
    match (speaker.initial_message.trim().is_empty(), spoken.is_empty()) {
        (true, _) => {
            writeln!(out, r#"<p class="empty-note">The assistant has no initial message.</p>"#)?
        }
        (false, true) => writeln!(out, r#"<p class="empty-note">No row to fill it in for.</p>"#)?,
        (false, false) => {
            writeln!(out, r#"<ul class="spoken">"#)?;
            for message in spoken {
                write!(out, r#"<li><span class="spoken-row">Row {}</span> <q>"#, message.row)?;
                for piece in &message.pieces {
                    match piece {
                        Piece::Said(words) => write!(out, "{}", Esc(words))?,
                        Piece::Gap(name) => {
                            write!(out, r#"<mark class="gap">[missing: {}]</mark>"#, Esc(name))?
                        }
                    }
                }
                writeln!(out, "</q></li>")?;
            }
            writeln!(out, "</ul>")?;
        }
    }
    writeln!(out, "</section>")
}

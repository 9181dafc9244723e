//! The page's pictures, as inline SVG: the outcome strip, the reasons with their fixes, and the
//! stacked bars per campaign and per country. Bars are scaled so the largest fills its track.

use std::io::{self, Write};

use super::super::model::{IssueCode, RunInfo, Summary};
use super::tally::{Groups, Split};
use super::{Esc, labels};
use crate::row::{Lang, count, percent};

/// Bars per campaign/country chart; the rest are summed into one "others" bar.
const TOP_GROUPS: usize = 12;

const GROUP_LEGEND: &str = r#"<ul class="legend" style="margin:0 0 14px"><li><i class="k-ok"></i>ready</li><li><i class="k-skip"></i>already on the service</li><li><i class="k-bad"></i>to fix</li></ul>"#;
const GROUP_LEGEND_DE: &str = r#"<ul class="legend" style="margin:0 0 14px"><li><i class="k-ok"></i>bereit</li><li><i class="k-skip"></i>schon beim Dienst</li><li><i class="k-bad"></i>zu korrigieren</li></ul>"#;

/// The strip's words for each outcome, in the order of its parts.
fn strip_words(lang: Lang, dry_run: bool) -> [&'static str; 6] {
    match lang {
        Lang::En => [
            if dry_run { "valid" } else { "valid or created" },
            "skipped",
            "rejected",
            "duplicates",
            "failed",
            "not sent yet",
        ],
        Lang::De => [
            if dry_run { "gültig" } else { "gültig oder angelegt" },
            "übersprungen",
            "abgelehnt",
            "doppelt",
            "fehlgeschlagen",
            "noch nicht gesendet",
        ],
    }
}

/// One bar across the page with the share of each outcome, and its legend.
pub(super) fn strip(
    out: &mut impl Write,
    s: &Summary,
    run: &RunInfo,
    lang: Lang,
) -> io::Result<()> {
    if s.rows == 0 {
        let note = match (lang, run.interrupted) {
            (Lang::En, true) => "The run was stopped before any row was read.",
            (Lang::En, false) => "The file had no rows to import.",
            (Lang::De, true) => "Der Lauf wurde angehalten, bevor eine Zeile gelesen war.",
            (Lang::De, false) => "Die Datei hatte keine Zeilen zum Importieren.",
        };
        return writeln!(out, r#"<p class="empty-note">{note}</p>"#);
    }
    let [good, skipped, rejected, duplicates, failed, not_sent] = strip_words(lang, run.dry_run);
    let parts = [
        (s.valid + s.created, "ok", good),
        (s.skipped_existing + s.do_not_call + s.excluded + s.hidden, "skip", skipped),
        (s.rejected, "bad", rejected),
        (s.duplicates, "dup", duplicates),
        (s.failed, "fail", failed),
        (s.not_sent, "skip", not_sent),
    ];
    let parts: Vec<_> = parts.into_iter().filter(|p| p.0 > 0).collect();
    let aria = match lang {
        Lang::En => r#"role="img" aria-label="share of rows by outcome""#,
        Lang::De => r#"role="img" aria-label="Anteil der Zeilen je Ergebnis""#,
    };
    write!(out, r#"<svg class="strip" viewBox="0 0 1000 10" preserveAspectRatio="none" {aria}>"#)?;
    let mut x = 0.0;
    for (n, colour, _) in &parts {
        let w = *n as f64 * 1000.0 / s.rows as f64;
        write!(out, r#"<rect class="f-{colour}" x="{x:.2}" width="{w:.2}" height="10"/>"#)?;
        x += w;
    }
    writeln!(out, "</svg>\n<ul class=\"legend\">")?;
    for (n, colour, label) in &parts {
        let (n, share) = (count(lang, *n), percent(lang, *n, s.rows));
        writeln!(out, r#"<li><i class="k-{colour}"></i>{n} {label} ({share})</li>"#)?;
    }
    writeln!(out, "</ul>")
}

/// One bar per reason, most frequent first, each with its fix underneath. Warnings are drawn
/// in amber: those rows went through.
pub(super) fn reasons(
    out: &mut impl Write,
    reasons: &[(IssueCode, u64)],
    rows: u64,
    warnings: bool,
    lang: Lang,
) -> io::Result<()> {
    let max = reasons.iter().map(|r| r.1).max().unwrap_or(1);
    writeln!(out, r#"<div class="bars reasons">"#)?;
    for (code, n) in reasons {
        let colour = match code {
            _ if warnings => "warn",
            IssueCode::DuplicateInFile => "dup",
            IssueCode::RequestFailed => "fail",
            _ => "bad",
        };
        let (label, id) = (labels::reason(*code, lang), code.as_str());
        write!(out, r#"<div class="name">{label}<small>{id}</small></div>"#)?;
        bar(out, &[(*n, colour)], max)?;
        let (count, share) = (count(lang, *n), percent(lang, *n, rows));
        writeln!(out, r#"<div class="n">{count}<small>{share}</small></div>"#)?;
        let fix = if lang == Lang::De { "Abhilfe" } else { "Fix" };
        writeln!(out, r#"<div class="fixline"><b>{fix}:</b> {}</div>"#, Esc(code.todo(lang)))?;
    }
    writeln!(out, "</div>")
}

/// A card of stacked bars, one per group: ready (green), skipped (grey), to fix (red).
pub(super) fn groups(
    out: &mut impl Write,
    title: &str,
    groups: &Groups,
    label_html: fn(&str, Lang) -> String,
    lang: Lang,
) -> io::Result<()> {
    writeln!(out, "<section class=\"card keep\">\n<h2>{title}</h2>")?;
    if groups.is_empty() {
        let none = if lang == Lang::De { "Keine Zeilen." } else { "No rows." };
        return writeln!(out, "<p class=\"empty-note\">{none}</p>\n</section>");
    }
    let legend = if lang == Lang::De { GROUP_LEGEND_DE } else { GROUP_LEGEND };
    writeln!(out, "{legend}\n<div class=\"bars\">")?;
    let top = groups.top(TOP_GROUPS);
    let others = top.others.as_ref().map(|o| o.split);
    let max = top.groups.iter().map(|g| g.1).chain(others).map(|s| s.total()).max();
    let max = max.unwrap_or(1);
    for (name, split) in &top.groups {
        group_bar(out, &label_html(name, lang), *split, max, lang)?;
    }
    if let Some(others) = top.others {
        let name = match (lang, others.groups) {
            (Lang::En, 0) => "Others".to_string(),
            (Lang::En, n) => format!("{n} others"),
            (Lang::De, 0) => "Weitere".to_string(),
            (Lang::De, n) => format!("{} weitere", count(lang, n as u64)),
        };
        group_bar(out, &name, others.split, max, lang)?;
    }
    writeln!(out, "</div>\n</section>")
}

fn group_bar(
    out: &mut impl Write,
    name_html: &str,
    split: Split,
    max: u64,
    lang: Lang,
) -> io::Result<()> {
    write!(out, r#"<div class="name">{name_html}</div>"#)?;
    bar(out, &[(split.good, "ok"), (split.skipped, "skip"), (split.problem, "bad")], max)?;
    let ready = if lang == Lang::De { "bereit" } else { "ready" };
    let ready = match split.good {
        n if n == split.total() => String::new(),
        n => format!("<small>{} {ready}</small>", count(lang, n)),
    };
    writeln!(out, r#"<div class="n">{}{ready}</div>"#, count(lang, split.total()))
}

/// A horizontal bar of coloured parts on a grey track; `max` fills the track.
fn bar(out: &mut impl Write, parts: &[(u64, &str)], max: u64) -> io::Result<()> {
    let total: u64 = parts.iter().map(|p| p.0).sum();
    let svg = r#"<svg class="bar" viewBox="0 0 100 1" preserveAspectRatio="none" role="img""#;
    write!(out, r#"{svg} aria-label="{total}"><rect class="f-track" width="100" height="1"/>"#)?;
    let mut x = 0.0;
    for (n, colour) in parts.iter().filter(|p| p.0 > 0) {
        let w = *n as f64 * 100.0 / max.max(1) as f64;
        write!(out, r#"<rect class="f-{colour}" x="{x:.3}" width="{w:.3}" height="1"/>"#)?;
        x += w;
    }
    write!(out, "</svg>")
}

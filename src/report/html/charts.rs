//! The page's pictures, as inline SVG: the outcome strip, the reasons with their fixes, and the
//! stacked bars per campaign and per country. Bars are scaled so the largest fills its track.

use std::io::{self, Write};

use super::super::model::{IssueCode, RunInfo, Summary};
use super::super::thousands;
use super::tally::{Groups, Split};
use super::{Esc, labels};

/// Bars per campaign/country chart; the rest are summed into one "others" bar.
const TOP_GROUPS: usize = 12;

const GROUP_LEGEND: &str = r#"<ul class="legend" style="margin:0 0 14px"><li><i class="k-ok"></i>ready</li><li><i class="k-skip"></i>already on the service</li><li><i class="k-bad"></i>to fix</li></ul>"#;

/// One bar across the page with the share of each outcome, and its legend.
pub(super) fn strip(out: &mut impl Write, s: &Summary, run: &RunInfo) -> io::Result<()> {
    if s.rows == 0 {
        let note = match run.interrupted {
            true => "The run was stopped before any row was read.",
            false => "The file had no rows to import.",
        };
        return writeln!(out, r#"<p class="empty-note">{note}</p>"#);
    }
    let good = if run.dry_run { "valid" } else { "valid or created" };
    let parts = [
        (s.valid + s.created, "ok", good),
        (s.skipped_existing + s.do_not_call + s.excluded, "skip", "skipped"),
        (s.rejected, "bad", "rejected"),
        (s.duplicates, "dup", "duplicates"),
        (s.failed, "fail", "failed"),
        (s.not_sent, "skip", "not sent yet"),
    ];
    let parts: Vec<_> = parts.into_iter().filter(|p| p.0 > 0).collect();
    let aria = r#"role="img" aria-label="share of rows by outcome""#;
    write!(out, r#"<svg class="strip" viewBox="0 0 1000 10" preserveAspectRatio="none" {aria}>"#)?;
    let mut x = 0.0;
    for (n, colour, _) in &parts {
        let w = *n as f64 * 1000.0 / s.rows as f64;
        write!(out, r#"<rect class="f-{colour}" x="{x:.2}" width="{w:.2}" height="10"/>"#)?;
        x += w;
    }
    writeln!(out, "</svg>\n<ul class=\"legend\">")?;
    for (n, colour, label) in &parts {
        let (n, share) = (thousands(*n), percent(*n, s.rows));
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
        let (label, id) = (labels::reason(*code), code.as_str());
        write!(out, r#"<div class="name">{label}<small>{id}</small></div>"#)?;
        bar(out, &[(*n, colour)], max)?;
        let (count, share) = (thousands(*n), percent(*n, rows));
        writeln!(out, r#"<div class="n">{count}<small>{share}</small></div>"#)?;
        writeln!(out, r#"<div class="fixline"><b>Fix:</b> {}</div>"#, Esc(code.fix()))?;
    }
    writeln!(out, "</div>")
}

/// A card of stacked bars, one per group: ready (green), skipped (grey), to fix (red).
pub(super) fn groups(
    out: &mut impl Write,
    title: &str,
    groups: &Groups,
    label_html: fn(&str) -> String,
) -> io::Result<()> {
    writeln!(out, "<section class=\"card keep\">\n<h2>{title}</h2>")?;
    if groups.is_empty() {
        return writeln!(out, "<p class=\"empty-note\">No rows.</p>\n</section>");
    }
    writeln!(out, "{GROUP_LEGEND}\n<div class=\"bars\">")?;
    let top = groups.top(TOP_GROUPS);
    let others = top.others.as_ref().map(|o| o.split);
    let max = top.groups.iter().map(|g| g.1).chain(others).map(|s| s.total()).max();
    let max = max.unwrap_or(1);
    for (name, split) in &top.groups {
        group_bar(out, &label_html(name), *split, max)?;
    }
    if let Some(others) = top.others {
        let name = match others.groups {
            0 => "Others".to_string(),
            n => format!("{n} others"),
        };
        group_bar(out, &name, others.split, max)?;
    }
    writeln!(out, "</div>\n</section>")
}

fn group_bar(out: &mut impl Write, name_html: &str, split: Split, max: u64) -> io::Result<()> {
    write!(out, r#"<div class="name">{name_html}</div>"#)?;
    bar(out, &[(split.good, "ok"), (split.skipped, "skip"), (split.problem, "bad")], max)?;
    let ready = match split.good {
        n if n == split.total() => String::new(),
        n => format!("<small>{} ready</small>", thousands(n)),
    };
    writeln!(out, r#"<div class="n">{}{ready}</div>"#, thousands(split.total()))
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

/// `12.3%`, with `<0.1%` and `>99.9%` rather than a misleading `0.0%` or `100.0%`.
pub(super) fn percent(n: u64, of: u64) -> String {
    match (n, of) {
        (0, _) | (_, 0) => "0%".to_string(),
        _ if n * 1000 < of => "<0.1%".to_string(),
        _ if n == of => "100%".to_string(),
        _ if (of - n) * 1000 < of => ">99.9%".to_string(),
        _ => format!("{:.1}%", n as f64 * 100.0 / of as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::percent;

    #[test]
    fn percentages_never_round_a_problem_away() {
        assert_eq!(percent(1, 1_000_000), "<0.1%");
        assert_eq!(percent(999_999, 1_000_000), ">99.9%");
        assert_eq!(percent(4, 10), "40.0%");
        assert_eq!(percent(0, 0), "0%");
    }
}

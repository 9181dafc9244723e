//! Renders the HTML page around the streamed table: everything above it (`head`) and below it
//! (`tail`). Small functions, one per section, each writing straight to the file.

use std::io::{self, Write};

use super::super::model::{IssueCode, RowStatus, RunInfo, Summary};
use super::super::{ranked, thousands};
use super::tally::{Groups, Split, Tally};
use super::{Esc, TABLE_CAP};

const STYLE: &str = include_str!("style.css");
/// Bars per campaign/country chart; the rest are summed into one "others" bar.
const TOP_GROUPS: usize = 12;

pub(super) struct Page<'a> {
    pub(super) summary: &'a Summary,
    pub(super) run: &'a RunInfo,
    pub(super) tally: &'a Tally,
}

impl Page<'_> {
    /// Everything up to and including the table's `<tbody>`.
    pub(super) fn head(&self, out: &mut impl Write) -> io::Result<()> {
        self.document_start(out)?;
        self.banners(out)?;
        self.tiles(out)?;
        self.reasons(out)?;
        self.groups(out)?;
        self.table_start(out)
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
                "<p class=\"more\">… and <b>{hidden} more rows to fix</b> that are not shown: this \
                 page lists the first {cap}. The CSV and JSON reports list every row.</p>"
            )?;
        }
        writeln!(out, "</section>")?;
        writeln!(
            out,
            "<footer>leadsync {} · Row numbers are those of the spreadsheet (the header is row 1). \
             Every row with all its fields is in the CSV and JSON reports.</footer>\n</main>\n</body>\n</html>",
            env!("CARGO_PKG_VERSION")
        )
    }

    fn document_start(&self, out: &mut impl Write) -> io::Result<()> {
        let source = Esc(&self.run.source);
        writeln!(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">")?;
        writeln!(out, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")?;
        writeln!(
            out,
            "<title>Import report · {source}</title>\n<style>\n{STYLE}</style>\n</head>"
        )?;
        writeln!(
            out,
            "<body>\n<main>\n<header>\n<div class=\"eyebrow\">leadsync import report</div>"
        )?;
        let sheet = self
            .run
            .sheet
            .as_deref()
            .map(|s| format!(" <span class=\"sheet\">· {}</span>", Esc(s)));
        writeln!(out, "<h1>{source}{}</h1>", sheet.unwrap_or_default())?;
        let (started, finished) = (when(&self.run.started_at), when(&self.run.finished_at));
        write!(out, "<p class=\"meta\">Started {} · finished {}", Esc(&started), Esc(&finished))?;
        if self.run.blank_rows > 0 {
            write!(out, " · {} blank rows skipped", thousands(self.run.blank_rows))?;
        }
        writeln!(out, "</p>\n</header>")
    }

    fn banners(&self, out: &mut impl Write) -> io::Result<()> {
        if self.run.dry_run {
            banner(
                out,
                "dry",
                "Dry run: nothing was sent",
                "No lead was created and nobody will be \
                called. This page shows what importing the file would do.",
            )?;
        }
        if !self.run.campaigns_checked {
            banner(
                out,
                "warn",
                "Campaigns were not checked",
                "The run was offline, so campaign names \
                and ids were not compared with the service. A wrong campaign is only caught when you import.",
            )?;
        }
        if !self.run.dry_run && self.summary.failed > 0 {
            let failed = thousands(self.summary.failed);
            let text = "Run the same command again to retry them; rows already created are not sent twice.";
            banner(out, "warn", &format!("{failed} rows could not be sent"), text)?;
        }
        Ok(())
    }

    fn tiles(&self, out: &mut impl Write) -> io::Result<()> {
        let s = self.summary;
        let share = |n: u64| format!("{} of rows", percent(n, s.rows));
        let (good_label, good, good_sub) = if self.run.dry_run || s.created == 0 && s.valid > 0 {
            ("Valid", s.valid, format!("{} · ready to call", percent(s.valid, s.rows)))
        } else if s.valid > 0 {
            ("Created", s.created, format!("+ {} valid, not sent", thousands(s.valid)))
        } else {
            ("Created", s.created, share(s.created))
        };
        let tiles = [
            ("Rows", s.rows, "ink", "read from the file".to_string()),
            (good_label, good, "ok", good_sub),
            ("Rejected", s.rejected, "bad", share(s.rejected)),
            ("Duplicates", s.duplicates, "dup", share(s.duplicates)),
            ("Skipped", s.skipped_existing, "skip", "already on the service".to_string()),
            ("Failed", s.failed, "fail", "run again to retry".to_string()),
        ];
        writeln!(out, "<section class=\"tiles\">")?;
        for (label, value, colour, sub) in tiles {
            let zero = if value == 0 && colour != "ink" { " zero" } else { "" };
            writeln!(
                out,
                "<div class=\"tile{zero}\" style=\"--c: var(--{colour})\"><div class=\"label\">{label}</div>\
                 <div class=\"value\">{}</div><div class=\"sub\">{}</div></div>",
                thousands(value),
                Esc(&sub)
            )?;
        }
        writeln!(out, "</section>")?;
        self.strip(out)
    }

    /// One bar across the page: the share of each outcome, with a legend.
    fn strip(&self, out: &mut impl Write) -> io::Result<()> {
        let s = self.summary;
        let parts = [
            (
                s.valid + s.created,
                "ok",
                if self.run.dry_run { "valid" } else { "valid or created" },
            ),
            (s.skipped_existing, "skip", "skipped"),
            (s.rejected, "bad", "rejected"),
            (s.duplicates, "dup", "duplicates"),
            (s.failed, "fail", "failed"),
        ];
        if s.rows == 0 {
            return writeln!(out, "<p class=\"empty-note\">The file had no rows to import.</p>");
        }
        write!(
            out,
            "<svg class=\"strip\" viewBox=\"0 0 1000 10\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"share of rows by outcome\">"
        )?;
        let mut x = 0.0;
        for (n, colour, _) in parts.iter().filter(|p| p.0 > 0) {
            let w = *n as f64 * 1000.0 / s.rows as f64;
            write!(
                out,
                "<rect class=\"f-{colour}\" x=\"{x:.2}\" width=\"{w:.2}\" height=\"10\"/>"
            )?;
            x += w;
        }
        writeln!(out, "</svg>\n<ul class=\"legend\">")?;
        for (n, colour, label) in parts.iter().filter(|p| p.0 > 0) {
            let share = percent(*n, s.rows);
            writeln!(
                out,
                "<li><i class=\"k-{colour}\"></i>{} {label} ({share})</li>",
                thousands(*n)
            )?;
        }
        writeln!(out, "</ul>")
    }

    fn reasons(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "<section class=\"card keep\">\n<h2>Why rows were rejected</h2>")?;
        let reasons = ranked(&self.tally.reasons);
        if reasons.is_empty() {
            writeln!(out, "<p class=\"empty-note good-note\">No row was rejected.</p>")?;
        } else {
            writeln!(
                out,
                "<p class=\"lede\">Rows per reason (a row with two problems counts for both), \
                and what to do about it.</p>"
            )?;
            reason_bars(out, &reasons, self.summary.rows, true)?;
        }
        let warnings = ranked(&self.tally.warnings);
        if !warnings.is_empty() {
            writeln!(out, "<h2 style=\"margin-top:22px\">Imported with a warning</h2>")?;
            writeln!(
                out,
                "<p class=\"lede\">These rows went through; nothing needs to be done unless the note says so.</p>"
            )?;
            reason_bars(out, &warnings, self.summary.rows, false)?;
        }
        writeln!(out, "</section>")
    }

    fn groups(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "<div class=\"pair pair-wrap\">")?;
        let campaign_label = |name: &str| Esc(name).to_string();
        group_card(out, "Leads per campaign", &self.tally.campaigns, campaign_label)?;
        group_card(out, "Numbers per country", &self.tally.countries, country_label)?;
        writeln!(out, "</div>")
    }

    fn table_start(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "<section class=\"card\">\n<h2>Rows to fix</h2>")?;
        if self.tally.shown == 0 {
            return writeln!(
                out,
                "<p class=\"empty-note good-note\">Nothing to fix: no row was rejected, \
                duplicated or failed.</p>"
            );
        }
        writeln!(
            out,
            "<p class=\"lede\">Rejected, duplicate and failed rows in file order. Correct them \
            in the spreadsheet, or in the CSV report (its first columns are the original ones), and import again.</p>"
        )?;
        writeln!(
            out,
            "<table>\n<thead><tr><th>Row</th><th>Status</th><th>Phone as typed</th>\
            <th>Problem</th><th>How to fix</th></tr></thead>\n<tbody>"
        )
    }
}

fn banner(out: &mut impl Write, kind: &str, title: &str, text: &str) -> io::Result<()> {
    writeln!(out, "<div class=\"banner {kind}\"><strong>{}</strong>{}</div>", Esc(title), Esc(text))
}

fn reason_bars(
    out: &mut impl Write,
    reasons: &[(IssueCode, u64)],
    rows: u64,
    errors: bool,
) -> io::Result<()> {
    let max = reasons.iter().map(|r| r.1).max().unwrap_or(1);
    writeln!(out, "<div class=\"bars reasons\">")?;
    for (code, n) in reasons {
        let colour = match code {
            _ if !errors => "warn",
            IssueCode::DuplicateInFile => "dup",
            IssueCode::RequestFailed => "fail",
            _ => "bad",
        };
        write!(
            out,
            "<div class=\"name\">{}<small>{}</small></div>",
            reason_label(*code),
            code.as_str()
        )?;
        bar(out, &[(*n, colour)], max)?;
        writeln!(
            out,
            "<div class=\"n\">{}<small>{}</small></div>",
            thousands(*n),
            percent(*n, rows)
        )?;
        writeln!(out, "<div class=\"fixline\"><b>Fix:</b> {}</div>", Esc(code.fix()))?;
    }
    writeln!(out, "</div>")
}

/// A card of stacked bars, one per group: ready (green), skipped (grey), to fix (red).
fn group_card(
    out: &mut impl Write,
    title: &str,
    groups: &Groups,
    label_html: impl Fn(&str) -> String,
) -> io::Result<()> {
    writeln!(out, "<section class=\"card keep\">\n<h2>{title}</h2>")?;
    if groups.is_empty() {
        return writeln!(out, "<p class=\"empty-note\">No rows.</p>\n</section>");
    }
    writeln!(
        out,
        "<ul class=\"legend\" style=\"margin:0 0 14px\"><li><i class=\"k-ok\"></i>ready</li>\
        <li><i class=\"k-skip\"></i>already on the service</li><li><i class=\"k-bad\"></i>to fix</li></ul>"
    )?;
    let (top, others) = groups.top(TOP_GROUPS);
    let max = top.iter().map(|g| g.1.total()).chain(others.map(|o| o.1.total())).max().unwrap_or(1);
    writeln!(out, "<div class=\"bars\">")?;
    for (name, split) in top {
        group_bar(out, &label_html(name), split, max)?;
    }
    if let Some((count, split)) = others {
        let name = if count > 0 { format!("{count} others") } else { "Others".to_string() };
        group_bar(out, &name, split, max)?;
    }
    writeln!(out, "</div>\n</section>")
}

fn group_bar(out: &mut impl Write, name_html: &str, split: Split, max: u64) -> io::Result<()> {
    write!(out, "<div class=\"name\">{name_html}</div>")?;
    bar(out, &[(split.good, "ok"), (split.skipped, "skip"), (split.problem, "bad")], max)?;
    let ready = if split.good == split.total() {
        String::new()
    } else {
        format!("<small>{} ready</small>", thousands(split.good))
    };
    writeln!(out, "<div class=\"n\">{}{ready}</div>", thousands(split.total()))
}

/// A horizontal bar on a grey track, scaled so that `max` fills it.
fn bar(out: &mut impl Write, parts: &[(u64, &str)], max: u64) -> io::Result<()> {
    let total: u64 = parts.iter().map(|p| p.0).sum();
    write!(
        out,
        "<svg class=\"bar\" viewBox=\"0 0 100 1\" preserveAspectRatio=\"none\" role=\"img\" \
        aria-label=\"{total}\"><rect class=\"f-track\" width=\"100\" height=\"1\"/>"
    )?;
    let mut x = 0.0;
    for (n, colour) in parts.iter().filter(|p| p.0 > 0) {
        let w = *n as f64 * 100.0 / max.max(1) as f64;
        write!(out, "<rect class=\"f-{colour}\" x=\"{x:.3}\" width=\"{w:.3}\" height=\"1\"/>")?;
        x += w;
    }
    write!(out, "</svg>")
}

/// `12.3%`, with `<0.1%` rather than a misleading `0.0%` for a few rows among many.
fn percent(n: u64, of: u64) -> String {
    match (n, of) {
        (0, _) | (_, 0) => "0%".to_string(),
        _ if n * 1000 < of => "<0.1%".to_string(),
        _ if n == of => "100%".to_string(),
        _ => format!("{:.1}%", n as f64 * 100.0 / of as f64),
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

pub(super) fn status_label(status: RowStatus) -> &'static str {
    match status {
        RowStatus::Valid => "Valid",
        RowStatus::Created => "Created",
        RowStatus::Rejected => "Rejected",
        RowStatus::Duplicate => "Duplicate",
        RowStatus::Skipped => "Skipped",
        RowStatus::Failed => "Failed",
    }
}

fn reason_label(code: IssueCode) -> &'static str {
    match code {
        IssueCode::MissingPhone => "No phone number",
        IssueCode::InvalidPhone => "Phone number not valid",
        IssueCode::MissingCampaign => "No campaign",
        IssueCode::UnknownCampaign => "Unknown campaign",
        IssueCode::AmbiguousCampaign => "Ambiguous campaign name",
        IssueCode::DuplicateInFile => "Repeated in the file",
        IssueCode::AlreadyExists => "Already on the service",
        IssueCode::ServerRejected => "Refused by the service",
        IssueCode::RequestFailed => "Could not be sent",
        IssueCode::InvalidSecondaryPhone => "Second number not valid",
        IssueCode::ExtensionDropped => "Extension dropped",
        IssueCode::CellError => "Formula error in a cell",
    }
}

/// `DE` → `Germany` with the code underneath; unknown codes are shown as they are.
fn country_label(region: &str) -> String {
    if region.is_empty() {
        return "No valid number".to_string();
    }
    match COUNTRIES.iter().find(|(code, _)| *code == region) {
        Some((code, name)) => format!("{name}<small>{code}</small>"),
        None => Esc(region).to_string(),
    }
}

const COUNTRIES: &[(&str, &str)] = &[
    ("AE", "United Arab Emirates"),
    ("AR", "Argentina"),
    ("AT", "Austria"),
    ("AU", "Australia"),
    ("BE", "Belgium"),
    ("BG", "Bulgaria"),
    ("BR", "Brazil"),
    ("CA", "Canada"),
    ("CH", "Switzerland"),
    ("CL", "Chile"),
    ("CN", "China"),
    ("CO", "Colombia"),
    ("CZ", "Czechia"),
    ("DE", "Germany"),
    ("DK", "Denmark"),
    ("EE", "Estonia"),
    ("ES", "Spain"),
    ("FI", "Finland"),
    ("FR", "France"),
    ("GB", "United Kingdom"),
    ("GR", "Greece"),
    ("HK", "Hong Kong"),
    ("HR", "Croatia"),
    ("HU", "Hungary"),
    ("IE", "Ireland"),
    ("IL", "Israel"),
    ("IN", "India"),
    ("IT", "Italy"),
    ("JP", "Japan"),
    ("KR", "South Korea"),
    ("LI", "Liechtenstein"),
    ("LT", "Lithuania"),
    ("LU", "Luxembourg"),
    ("LV", "Latvia"),
    ("MX", "Mexico"),
    ("NL", "Netherlands"),
    ("NO", "Norway"),
    ("NZ", "New Zealand"),
    ("PL", "Poland"),
    ("PT", "Portugal"),
    ("RO", "Romania"),
    ("RS", "Serbia"),
    ("SE", "Sweden"),
    ("SG", "Singapore"),
    ("SI", "Slovenia"),
    ("SK", "Slovakia"),
    ("TR", "Türkiye"),
    ("UA", "Ukraine"),
    ("US", "United States"),
    ("ZA", "South Africa"),
];

//! The HTML page around the streamed table: everything above it (`head`) and below it (`tail`),
//! one small function per section, each writing straight to the file.

use std::io::{self, Write};

use crate::assistant::{Piece, Speaker, Spoken};

use super::super::model::{RunInfo, Summary};
use super::super::ranked;
use super::charts;
use super::tally::Tally;
use super::{Esc, TABLE_CAP, labels};
use crate::row::{Lang, count, date_time, percent};

const STYLE: &str = include_str!("style.css");

const DOCUMENT_START: &str = r#"<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
"#;

const TABLE_START: &str = r#"<p class="lede">Rejected, duplicate and failed rows in file order. Correct them in the spreadsheet, or in the CSV report (its first columns are the original ones), and import again.</p>
<table>
<thead><tr><th>Row</th><th>Status</th><th>Name</th><th>Phone as typed</th><th>Problem</th><th>How to fix</th></tr></thead>
<tbody>
"#;

const TABLE_START_DE: &str = r#"<p class="lede">Abgelehnte, doppelte und fehlgeschlagene Zeilen in der Reihenfolge der Datei. Korrigieren Sie sie in der Tabelle oder im CSV-Bericht (seine ersten Spalten sind die ursprünglichen) und importieren Sie erneut.</p>
<table>
<thead><tr><th>Zeile</th><th>Status</th><th>Name</th><th>Telefon wie eingegeben</th><th>Problem</th><th>Abhilfe</th></tr></thead>
<tbody>
"#;

pub(super) struct Page<'a> {
    pub(super) summary: &'a Summary,
    pub(super) run: &'a RunInfo,
    pub(super) tally: &'a Tally,
    /// The assistant and its first message filled in for the sample rows.
    pub(super) spoken: Option<(&'a Speaker, Vec<Spoken>)>,
    pub(super) lang: Lang,
}

impl Page<'_> {
    /// The English or the German of a sentence, as the page speaks.
    fn say<'s>(&self, en: &'s str, de: &'s str) -> &'s str {
        match self.lang {
            Lang::En => en,
            Lang::De => de,
        }
    }

    fn n(&self, n: u64) -> String {
        count(self.lang, n)
    }

    /// Everything up to and including the table's `<tbody>`.
    pub(super) fn head(&self, out: &mut impl Write) -> io::Result<()> {
        self.header(out)?;
        self.verdict(out)?;
        self.banners(out)?;
        self.tiles(out)?;
        charts::strip(out, self.summary, self.run, self.lang)?;
        self.reasons(out)?;
        if let Some((speaker, spoken)) = &self.spoken {
            first_messages(out, speaker, spoken, self.lang)?;
        }
        writeln!(out, r#"<div class="pair pair-wrap">"#)?;
        let lang = self.lang;
        let title = self.say("Leads per campaign", "Leads je Kampagne");
        charts::groups(out, title, &self.tally.campaigns, labels::campaign, lang)?;
        let title = self.say("Numbers per country", "Nummern je Land");
        charts::groups(out, title, &self.tally.countries, labels::country, lang)?;
        let title = self.say("Numbers per type", "Nummern je Art");
        charts::groups(out, title, &self.tally.number_types, labels::number_type, lang)?;
        let title = self.say("Rows to fix", "Zu korrigierende Zeilen");
        writeln!(out, "</div>\n<section class=\"card\">\n<h2>{title}</h2>")?;
        let nothing = self.say(
            "Nothing to fix: no row was rejected, duplicated or failed.",
            "Nichts zu korrigieren: Keine Zeile wurde abgelehnt, war doppelt oder schlug fehl.",
        );
        match self.tally.shown {
            0 => writeln!(out, r#"<p class="empty-note good-note">{nothing}</p>"#),
            _ => out.write_all(self.say(TABLE_START, TABLE_START_DE).as_bytes()),
        }
    }

    /// Closes the table, says what did not fit, and ends the page.
    pub(super) fn tail(&self, out: &mut impl Write) -> io::Result<()> {
        if self.tally.shown > 0 {
            out.write_all(b"</tbody></table>\n")?;
        }
        if self.tally.hidden > 0 {
            let (hidden, cap) = (self.n(self.tally.hidden), self.n(TABLE_CAP));
            match self.lang {
                Lang::En => writeln!(
                    out,
                    r#"<p class="more">… and <b>{hidden} more rows to fix</b> that are not shown: this page lists the first {cap}. The CSV and JSON reports list every row.</p>"#
                )?,
                Lang::De => writeln!(
                    out,
                    r#"<p class="more">… und <b>{hidden} weitere zu korrigierende Zeilen</b>, die nicht gezeigt werden: Diese Seite listet die ersten {cap}. Die Berichte als CSV und JSON listen jede Zeile.</p>"#
                )?,
            }
        }
        let version = env!("CARGO_PKG_VERSION");
        let footer = self.say(
            "Row numbers are those of the spreadsheet (the header is row 1). Every row with all \
             its fields is in the CSV and JSON reports.",
            "Die Zeilennummern sind die der Tabelle (die Kopfzeile ist Zeile 1). Jede Zeile mit \
             allen Feldern steht in den Berichten als CSV und JSON.",
        );
        writeln!(
            out,
            "</section>\n<footer>leadsync {version} · {footer}</footer>\n</main>\n</body>\n</html>"
        )
    }

    fn header(&self, out: &mut impl Write) -> io::Result<()> {
        let source = Esc(&self.run.source);
        out.write_all(DOCUMENT_START.replace("{lang}", self.lang.code()).as_bytes())?;
        let title = self.say("Import report", "Importbericht");
        writeln!(out, "<title>{title} · {source}</title>\n<style>\n{STYLE}</style>")?;
        writeln!(out, "</head>\n<body>\n<main>\n<header>")?;
        let eyebrow = self.say("leadsync import report", "leadsync Importbericht");
        writeln!(out, r#"<div class="eyebrow">{eyebrow}</div>"#)?;
        let sheet = self.run.sheet.as_deref().map(Esc);
        let sheet = sheet.map(|s| format!(r#" <span class="sheet">· {s}</span>"#));
        writeln!(out, "<h1>{source}{}</h1>", sheet.unwrap_or_default())?;
        let when = |stamp: &str| match self.lang {
            Lang::En => when(stamp),
            Lang::De => date_time(Lang::De, stamp) + " UTC",
        };
        let (started, finished) = (when(&self.run.started_at), when(&self.run.finished_at));
        let (started, finished) = (Esc(&started), Esc(&finished));
        match self.lang {
            Lang::En => write!(out, r#"<p class="meta">Started {started} · finished {finished}"#)?,
            Lang::De => write!(out, r#"<p class="meta">Begonnen {started} · beendet {finished}"#)?,
        }
        let blank = self.run.blank_rows;
        if blank > 0 {
            match self.lang {
                Lang::En => {
                    let rows = if blank == 1 { "row" } else { "rows" };
                    write!(out, " · {} blank {rows} skipped", self.n(blank))?
                }
                Lang::De => write!(
                    out,
                    " · {} übersprungen",
                    plural_de(blank, "leere Zeile", "leere Zeilen")
                )?,
            }
        }
        writeln!(out, "</p>")?;
        let reading = self.say("Reading", "Einlesen");
        for note in &self.run.reading_notes {
            writeln!(out, r#"<p class="meta">{reading}: {}</p>"#, Esc(note))?;
        }
        writeln!(out, "</header>")
    }

    /// One sentence a manager can act on: how many rows are fine, how many are not, and the
    /// main reason.
    fn verdict(&self, out: &mut impl Write) -> io::Result<()> {
        let sentence = match self.lang {
            Lang::En => self.verdict_en(),
            Lang::De => self.verdict_de(),
        };
        writeln!(out, r#"<p class="verdict">{sentence}</p>"#)
    }

    fn verdict_en(&self) -> String {
        let s = self.summary;
        // A stopped run may still have read every row: only one that did not covers "the
        // first N".
        let rows = match self.run.interrupted && !self.run.read_whole {
            true => format!("the first {} rows read", self.n(s.rows)),
            false => format!("{} rows", self.n(s.rows)),
        };
        let good = match self.run.dry_run {
            true => format!("<b>{}</b> of {rows} are ready to call.", self.n(s.valid)),
            false => format!("<b>{}</b> of {rows} were created as leads.", self.n(s.created)),
        };
        // Rows a stop kept from being sent are not a problem: they go with the next run.
        let good = match (self.run.dry_run, s.not_sent) {
            (false, n) if n > 0 => format!(
                "{good} <b>{}</b> not sent yet: run the same command again to send them.",
                self.n(n)
            ),
            _ => good,
        };
        let to_fix = self.n(s.rejected + s.duplicates + s.failed);
        let problems = match ranked(&self.tally.reasons).first() {
            _ if !s.has_problems() => " Nothing needs fixing.".to_string(),
            Some((code, n)) => format!(
                " <b>{to_fix}</b> need fixing; the most common reason is “{}” ({} rows).",
                labels::reason(*code, Lang::En),
                self.n(*n)
            ),
            None => format!(" <b>{to_fix}</b> need fixing."),
        };
        good + &problems
    }

    fn verdict_de(&self) -> String {
        let s = self.summary;
        let rows = match self.run.interrupted && !self.run.read_whole {
            true => format!("den ersten {} gelesenen Zeilen", self.n(s.rows)),
            false => format!("{} Zeilen", self.n(s.rows)),
        };
        let good = match self.run.dry_run {
            true => format!("<b>{}</b> von {rows} sind bereit zum Anrufen.", self.n(s.valid)),
            false => {
                format!("<b>{}</b> von {rows} wurden als Leads angelegt.", self.n(s.created))
            }
        };
        let good = match (self.run.dry_run, s.not_sent) {
            (false, n) if n > 0 => format!(
                "{good} <b>{}</b> noch nicht gesendet: Führen Sie denselben Befehl erneut aus, um sie zu senden.",
                self.n(n)
            ),
            _ => good,
        };
        let to_fix = self.n(s.rejected + s.duplicates + s.failed);
        let problems = match ranked(&self.tally.reasons).first() {
            _ if !s.has_problems() => " Nichts muss korrigiert werden.".to_string(),
            Some((code, n)) => format!(
                " <b>{to_fix}</b> müssen korrigiert werden; der häufigste Grund ist „{}“ ({}).",
                labels::reason(*code, Lang::De),
                plural_de(*n, "Zeile", "Zeilen")
            ),
            None => format!(" <b>{to_fix}</b> müssen korrigiert werden."),
        };
        good + &problems
    }

    fn banners(&self, out: &mut impl Write) -> io::Result<()> {
        let mut banner = |kind: &str, title: &str, text: &str| {
            let (title, text) = (Esc(title), Esc(text));
            writeln!(out, r#"<div class="banner {kind}"><strong>{title}</strong>{text}</div>"#)
        };
        if self.run.interrupted {
            let (title, text) = match self.lang {
                Lang::En => self.interrupted(),
                Lang::De => self.interrupted_de(),
            };
            banner("stop", &title, &text)?;
        }
        if self.run.dry_run {
            let text = self.say(
                "No lead was created and nobody will be called. This page shows what importing \
                 the file would do.",
                "Kein Lead wurde angelegt, und niemand wird angerufen. Diese Seite zeigt, was der \
                 Import der Datei tun würde.",
            );
            banner(
                "dry",
                self.say("Dry run: nothing was sent", "Probelauf: nichts wurde gesendet"),
                text,
            )?;
        }
        if !self.run.campaigns_checked {
            let text = self.say(
                "The run was offline, so campaign names and ids were not compared with the \
                 service. A wrong campaign is only caught when you import.",
                "Der Lauf war offline, also wurden Namen und IDs der Kampagnen nicht mit dem \
                 Dienst abgeglichen. Eine falsche Kampagne fällt erst beim Import auf.",
            );
            let title = self.say("Campaigns were not checked", "Kampagnen wurden nicht geprüft");
            banner("warn", title, text)?;
        }
        if !self.run.dry_run && self.summary.failed > 0 {
            let failed = self.n(self.summary.failed);
            let title = match self.lang {
                Lang::En => format!("{failed} rows could not be sent"),
                Lang::De => format!("{failed} Zeilen konnten nicht gesendet werden"),
            };
            let text = self.say(
                "Run the same command again to retry them; rows already created are not sent \
                 twice.",
                "Führen Sie denselben Befehl erneut aus, um sie zu wiederholen; schon angelegte \
                 Zeilen werden nicht doppelt gesendet.",
            );
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
                self.n(s.created + s.skipped_existing),
                self.n(s.not_sent)
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
            (n, true) => format!("Interrupted: all {} rows were read", self.n(n)),
            (1, false) => "Interrupted: only the first row was read".to_string(),
            (n, false) => format!("Interrupted: only the first {} rows were read", self.n(n)),
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

    fn interrupted_de(&self) -> (String, String) {
        let s = self.summary;
        if !self.run.dry_run && s.not_sent > 0 {
            let title = format!(
                "Angehalten: {} gesendet, {} noch nicht gesendet",
                self.n(s.created + s.skipped_existing),
                self.n(s.not_sent)
            );
            let whole = if self.run.read_whole { "" } else { " und den Rest der Datei" };
            let text = format!(
                "Der Lauf wurde angehalten (Strg-C oder SIGTERM), bevor er jede Zeile gesendet \
                 hatte. Mit den noch nicht gesendeten Zeilen ist nichts falsch: Führen Sie \
                 denselben Befehl erneut aus, um sie{whole} zu senden; schon gesendete Zeilen \
                 werden nicht doppelt gesendet."
            );
            return (title, text);
        }
        let title = match (s.rows, self.run.read_whole) {
            (0, _) => "Abgebrochen: keine Zeile wurde gelesen".to_string(),
            (n, true) => format!("Abgebrochen: alle {} Zeilen wurden gelesen", self.n(n)),
            (1, false) => "Abgebrochen: nur die erste Zeile wurde gelesen".to_string(),
            (n, false) => {
                format!("Abgebrochen: nur die ersten {} Zeilen wurden gelesen", self.n(n))
            }
        };
        let next = match self.run.dry_run {
            true => "Führen Sie ihn bis zum Ende erneut aus, um jede Zeile zu prüfen",
            false => "Führen Sie denselben Befehl erneut aus, um dort fortzusetzen, wo er anhielt",
        };
        let cover = if self.run.read_whole { "" } else { ", nicht die ganze Datei" };
        let text = format!(
            "Der Lauf wurde angehalten (Strg-C oder SIGTERM). Zahlen, Diagramme und Zeilen auf \
             dieser Seite gelten für diese Zeilen{cover}: {next}."
        );
        (title, text)
    }

    fn tiles(&self, out: &mut impl Write) -> io::Result<()> {
        let s = self.summary;
        let lang = self.lang;
        let share = |n: u64| match lang {
            Lang::En => format!("{} of rows", percent(lang, n, s.rows)),
            Lang::De => format!("{} der Zeilen", percent(lang, n, s.rows)),
        };
        let rows_sub = match self.run.interrupted {
            true => self.say("read before Ctrl-C", "vor Strg-C gelesen"),
            false => self.say("read from the file", "aus der Datei gelesen"),
        };
        let (valid, created) = (self.say("Valid", "Gültig"), self.say("Created", "Angelegt"));
        let good = if self.run.dry_run || s.created == 0 && s.valid > 0 {
            let ready = self.say("ready to call", "bereit zum Anrufen");
            (valid, s.valid, format!("{} · {ready}", percent(lang, s.valid, s.rows)))
        } else if s.valid > 0 {
            let not_sent = self.say("valid, not sent", "gültig, nicht gesendet");
            (created, s.created, format!("+ {} {not_sent}", self.n(s.valid)))
        } else {
            (created, s.created, share(s.created))
        };
        let tiles = [
            (self.say("Rows", "Zeilen"), s.rows, "ink", rows_sub.to_string()),
            (good.0, good.1, "ok", good.2),
            (self.say("Rejected", "Abgelehnt"), s.rejected, "bad", share(s.rejected)),
            (self.say("Duplicates", "Doppelte"), s.duplicates, "dup", share(s.duplicates)),
            (
                self.say("Skipped", "Übersprungen"),
                s.skipped_existing,
                "skip",
                self.say("already on the service", "schon beim Dienst").to_string(),
            ),
            (
                self.say("Do not call", "Nicht anrufen"),
                s.do_not_call,
                "skip",
                self.say("suppressed or no consent", "Sperrliste oder keine Einwilligung")
                    .to_string(),
            ),
            (
                self.say("Excluded", "Ausgeschlossen"),
                s.excluded,
                "skip",
                self.say("left out by you", "von Ihnen ausgelassen").to_string(),
            ),
            (
                self.say("Hidden", "Ausgeblendet"),
                s.hidden,
                "skip",
                self.say(
                    "hidden in the workbook, by hand or by a filter",
                    "in der Arbeitsmappe ausgeblendet, von Hand oder per Filter",
                )
                .to_string(),
            ),
            (
                self.say("Failed", "Fehlgeschlagen"),
                s.failed,
                "fail",
                self.say("run again to retry", "zum Wiederholen erneut ausführen").to_string(),
            ),
        ];
        writeln!(out, r#"<section class="tiles">"#)?;
        for (label, value, colour, sub) in tiles {
            let zero = if value == 0 && colour != "ink" { " zero" } else { "" };
            let (value, sub) = (self.n(value), Esc(&sub));
            writeln!(
                out,
                r#"<div class="tile{zero}" style="--c: var(--{colour})"><div class="label">{label}</div><div class="value">{value}</div><div class="sub">{sub}</div></div>"#
            )?;
        }
        writeln!(out, "</section>")
    }

    fn reasons(&self, out: &mut impl Write) -> io::Result<()> {
        let title = self.say("Why rows were rejected", "Warum Zeilen abgelehnt wurden");
        writeln!(out, "<section class=\"card keep\">\n<h2>{title}</h2>")?;
        let reasons = ranked(&self.tally.reasons);
        if reasons.is_empty() {
            let none = self.say("No row was rejected.", "Keine Zeile wurde abgelehnt.");
            writeln!(out, r#"<p class="empty-note good-note">{none}</p>"#)?;
        } else {
            let lede = self.say(
                "Rows per reason (a row with two problems counts for both), and what to do about it.",
                "Zeilen je Grund (eine Zeile mit zwei Problemen zählt für beide), und was zu tun ist.",
            );
            writeln!(out, r#"<p class="lede">{lede}</p>"#)?;
            charts::reasons(out, &reasons, self.summary.rows, false, self.lang)?;
        }
        let warnings = ranked(&self.tally.warnings);
        if !warnings.is_empty() {
            let title = self.say("Imported with a warning", "Mit einer Warnung importiert");
            writeln!(out, r#"<h2 class="second">{title}</h2>"#)?;
            let lede = self.say(
                "These rows went through; nothing needs to be done unless the note says so.",
                "Diese Zeilen gingen durch; zu tun ist nur etwas, wenn der Hinweis es sagt.",
            );
            writeln!(out, r#"<p class="lede">{lede}</p>"#)?;
            charts::reasons(out, &warnings, self.summary.rows, true, self.lang)?;
        }
        writeln!(out, "</section>")
    }
}

/// `1 Zeile`, `2.000 Zeilen`.
fn plural_de(n: u64, one: &str, many: &str) -> String {
    crate::row::plural(Lang::De, n, one, many)
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
fn first_messages(
    out: &mut impl Write,
    speaker: &Speaker,
    spoken: &[Spoken],
    lang: Lang,
) -> io::Result<()> {
    let say = |en: &'static str, de: &'static str| if lang == Lang::De { de } else { en };
    writeln!(out, r#"<section class="card" id="first-message">"#)?;
    let title = say("What the assistant will say", "Was der Assistent sagen wird");
    writeln!(out, "<h2>{title}</h2>")?;
    let (name, id) = (Esc(&speaker.name), speaker.id);
    match lang {
        Lang::En => writeln!(
            out,
            r#"<p class="lede">The first message of the assistant <b>{name}</b> (id {id}), filled in for a few rows as it would be spoken. A marked gap is a variable the row leaves empty.</p>"#
        )?,
        Lang::De => writeln!(
            out,
            r#"<p class="lede">Die erste Nachricht des Assistenten <b>{name}</b> (ID {id}), für einige Zeilen so ausgefüllt, wie sie gesprochen würde. Eine markierte Lücke ist eine Variable, die die Zeile leer lässt.</p>"#
        )?,
    }
    match (speaker.initial_message.trim().is_empty(), spoken.is_empty()) {
        (true, _) => {
            let none = say(
                "The assistant has no initial message.",
                "Der Assistent hat keine erste Nachricht.",
            );
            writeln!(out, r#"<p class="empty-note">{none}</p>"#)?
        }
        (false, true) => {
            let none =
                say("No row to fill it in for.", "Keine Zeile, für die sie sich ausfüllen ließe.");
            writeln!(out, r#"<p class="empty-note">{none}</p>"#)?
        }
        (false, false) => {
            let (row, missing) = (say("Row", "Zeile"), say("missing", "fehlt"));
            writeln!(out, r#"<ul class="spoken">"#)?;
            for message in spoken {
                write!(out, r#"<li><span class="spoken-row">{row} {}</span> <q>"#, message.row)?;
                for piece in &message.pieces {
                    match piece {
                        Piece::Said(words) => write!(out, "{}", Esc(words))?,
                        Piece::Gap(name) => {
                            write!(out, r#"<mark class="gap">[{missing}: {}]</mark>"#, Esc(name))?
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

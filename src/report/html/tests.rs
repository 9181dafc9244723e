//! Tests of the HTML report: content, escaping, the table cap, and a real browser's reading.

use std::path::Path;
use std::process::Command;

use super::super::ReportWriter;
use super::super::model::{RowReport, RunInfo, Summary};
use super::super::testdata::{headers, many_rejected, rows, run_info};
use super::{Esc, HtmlWriter, Message, TABLE_CAP, row_name, typed_phone};
use crate::row::Lang;

/// The German page: its language, its statuses, reasons, messages and numbers, and none of
/// the English page's words.
#[test]
fn a_german_report_speaks_german() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.html");
    let mut rejected = many_rejected(1).next().unwrap();
    let problem = crate::phone::PhoneProblem::NotANumber;
    let said = crate::row::Said::InvalidPhone { typed: "0151 CALL ME".into(), problem };
    rejected.errors =
        vec![crate::row::Issue::said(crate::row::IssueCode::InvalidPhone, None, said)];
    render_in(&path, [rejected], &run_info(), Lang::De);
    let html = std::fs::read_to_string(path).unwrap();
    for german in [
        r#"<html lang="de">"#,
        "Warum Zeilen abgelehnt wurden",
        "Telefonnummer ungültig",
        "Abgelehnt",
        "„0151 CALL ME“ ist keine gültige Telefonnummer: nicht als Telefonnummer lesbar",
        "Nummer korrigieren oder mit Ländervorwahl",
    ] {
        assert!(html.contains(german), "{german} missing");
    }
    for english in ["Why rows were rejected", "Phone number not valid", "is not a valid", ">Fix:"] {
        assert!(!html.contains(english), "{english} on the German page");
    }
}

fn render_to(path: &Path, rows: impl IntoIterator<Item = RowReport>, run: &RunInfo) {
    render_in(path, rows, run, Lang::En);
}

fn render_in(path: &Path, rows: impl IntoIterator<Item = RowReport>, run: &RunInfo, lang: Lang) {
    let mut writer = Box::new(HtmlWriter::create(path, &headers(), Some(1), lang).unwrap());
    let mut summary = Summary::default();
    for row in rows {
        summary.count(&row);
        writer.write_row(&row).unwrap();
    }
    writer.finish(&summary, run).unwrap();
}

fn render(rows: impl IntoIterator<Item = RowReport>, run: &RunInfo) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.html");
    render_to(&path, rows, run);
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn escapes_the_five_characters() {
    let text = Esc(r#"<a href="x">Tom & 'Jerry'</a>"#).to_string();
    assert_eq!(text, "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
}

#[test]
fn reading_notes_are_in_the_header() {
    let mut run = run_info();
    run.reading_notes = vec!["header on row 8; rows 1\u{2013}7 skipped as <titles>".into()];
    let html = render(rows(), &run);
    let note =
        r#"<p class="meta">Reading: header on row 8; rows 1–7 skipped as &lt;titles&gt;</p>"#;
    let header = &html[..html.find("</header>").unwrap()];
    assert!(header.contains(note), "{header}");
}

#[test]
fn backticked_values_become_code() {
    let text = Message("`<b>` is not `12`").to_string();
    assert_eq!(text, "<code>&lt;b&gt;</code> is not <code>12</code>");
    assert_eq!(Message("a ` b").to_string(), "a ` b");
}

#[test]
fn shows_counts_reasons_groups_and_rows_to_fix() {
    let page = render(rows(), &run_info());
    for expected in [
        "Dry run: nothing was sent",
        "Campaigns were not checked",
        "Phone number not valid",
        "Correct the number, or write it with its country code (+49 …) if it is foreign",
        "Spring Promo",
        "Germany<small>DE</small>",
        "<td class=\"num\">3</td>",
        "<td class=\"phone\">12345</td>",
        "<code>&lt;b&gt;call&lt;/b&gt;</code> contains letters",
        "Extension dropped",
        "Numbers per type",
        "mobile",
        "Austria<small>AT</small>",
    ] {
        assert!(page.contains(expected), "the page lacks {expected:?}");
    }
    assert_eq!(
        page.matches("<tr><td class=\"num\">").count(),
        6,
        "rejected, duplicate, failed rows"
    );
    assert!(!page.contains("<td class=\"num\">2</td>"), "a valid row is in the table");
}

#[test]
fn is_self_contained_and_never_runs_user_data() {
    // Markup in every user-typed text the page shows: the source, the sheet, a campaign name,
    // a typed phone and an issue message (`rows()` carries the last two).
    let mut run = run_info();
    run.source = "<script>alert('source')</script>.csv".into();
    run.sheet = Some("<img onerror=alert(1)>".into());
    let mut rows = rows();
    rows[0].campaign_name = Some("<script>alert('campaign')</script>".into());
    let page = render(rows, &run);
    for markup in ["<script", "<img", "<b>call</b>"] {
        assert!(!page.contains(markup), "user data became markup: {markup}");
    }
    for escaped in [
        "&lt;script&gt;alert(&#39;source&#39;)&lt;/script&gt;.csv",
        "&lt;img onerror=alert(1)&gt;",
        "&lt;script&gt;alert(&#39;campaign&#39;)&lt;/script&gt;",
        "<td class=\"phone\">&lt;b&gt;call&lt;/b&gt;</td>",
    ] {
        assert!(page.contains(escaped), "the page does not show {escaped:?}");
    }
    for external in ["src=", "href=", "@import", "url(", "http://", "https://"] {
        assert!(!page.contains(external), "the page refers to something outside it: {external}");
    }
}

#[test]
fn a_live_clean_run_has_no_banners_and_nothing_to_fix() {
    let mut run = run_info();
    (run.dry_run, run.campaigns_checked) = (false, true);
    let good = rows().into_iter().filter(|r| r.errors.is_empty());
    let page = render(good, &run);
    assert!(!page.contains("class=\"banner"));
    assert!(page.contains("Nothing to fix") && page.contains("No row was rejected"));
    assert!(!page.contains("<table>"));
}

#[test]
fn an_empty_file_still_makes_a_page() {
    let page = render(Vec::new(), &run_info());
    assert!(page.contains("The file had no rows to import") && page.ends_with("</html>\n"));
}

#[test]
fn an_interrupted_run_says_first_that_the_page_covers_part_of_the_file() {
    let mut run = run_info();
    run.interrupted = true;
    let page = render(rows(), &run);
    let stop = page.find(r#"<div class="banner stop"><strong>Interrupted: only the first 10 rows were read</strong>"#);
    let dry = page.find(r#"<div class="banner dry">"#);
    assert!(stop.is_some() && stop < dry, "no interrupted banner above the others");
    assert!(page.contains("not the whole file: run it again to the end to check every row"));
    assert!(page.contains("<b>2</b> of the first 10 rows read are ready to call."));
    assert!(page.contains(r#"<div class="sub">read before Ctrl-C</div>"#));
    run.dry_run = false;
    let page = render(rows(), &run);
    assert!(page.contains("run the same command again to continue where it stopped"));
    let page = render(Vec::new(), &run);
    assert!(page.contains("Interrupted: no row was read"), "{page}");
    assert!(
        page.contains("stopped before any row was read") && !page.contains("no rows to import")
    );
    let whole = render(rows(), &run_info());
    assert!(!whole.contains("Interrupted") && !whole.contains("Ctrl-C"), "a whole run is partial");
}

#[test]
fn the_table_stops_at_the_cap_and_says_how_many_more() {
    let page = render(many_rejected(TABLE_CAP + 42), &run_info());
    assert_eq!(page.matches("<tr><td class=\"num\">").count() as u64, TABLE_CAP);
    assert!(page.contains("<b>42 more rows to fix</b>"), "no overflow line");
    assert!(page.contains(">5,042</div>"), "the tile counts every row");
}

#[test]
fn the_typed_phone_comes_from_the_column_the_issue_names() {
    let rows = rows();
    assert_eq!(typed_phone(&rows[1], &headers(), None), Some("12345"));
    let unnamed = typed_phone(&rows[3], &headers(), None);
    assert_eq!(unnamed, Some("+4915112345678"), "names no column");
    let no_issue = typed_phone(&rows[6], &headers(), None);
    assert_eq!(no_issue, Some("+14155552671"), "no phone issue, no phone column: E.164");
}

#[test]
fn the_typed_phone_falls_back_to_the_phone_column_before_e164() {
    let rows = rows();
    let mut duplicate = rows[6].clone();
    duplicate.source_cells = vec!["Ann".into(), "(415) 555-2671".into()];
    assert_eq!(typed_phone(&duplicate, &headers(), Some(1)), Some("(415) 555-2671"));
}

#[test]
fn the_name_is_the_whole_name_else_first_and_last_joined() {
    let mut row = rows()[0].clone();
    row.variables = Default::default();
    assert_eq!(row_name(&row), "");
    row.variables.insert_named("Nachname", "Schmidt");
    assert_eq!(row_name(&row), "Schmidt");
    row.variables.insert_named("first_name", "Anna");
    assert_eq!(row_name(&row), "Anna Schmidt");
    row.variables.insert_named("customer_name", " Anna M. Schmidt ");
    assert_eq!(row_name(&row), "Anna M. Schmidt", "a whole name wins");
}

/// Renders the page in headless Chromium and checks what a browser shows. Skips, saying so,
/// where no `chromium` is installed (`apt-get install chromium`), except on CI (`CI=true`),
/// where a skip would let a page no browser can read pass unnoticed.
#[test]
fn chromium_shows_the_counts_a_reason_and_a_rejected_row() {
    let Some(dom) = chromium_dom() else {
        assert!(
            !on_ci(),
            "`chromium` is not on PATH, and CI is set, so the browser rendering check would be \
             skipped: install it (`apt-get install chromium`) or unset CI to skip locally"
        );
        eprintln!("notice: `chromium` is not on PATH; skipping the browser rendering check");
        return;
    };
    let text = visible_text(&dom);
    for expected in [
        "Rows 10 read from the file",
        "Rejected 4 40.0% of rows",
        "Duplicates 1 10.0% of rows",
        "Phone number not valid invalid_phone 2 20.0%",
        "3 Rejected Eve 12345 12345 is too short to be a phone number",
        "7 Rejected <script>alert(1)</script> <b>call</b>",
        "Dry run: nothing was sent",
    ] {
        assert!(text.contains(expected), "chromium does not show {expected:?} in:\n{text}");
    }
}

/// CI services set `CI=true` (some `CI=1`); there every check must run.
fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// The rendered DOM, or `None` when there is no `chromium` to run.
fn chromium_dom() -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("r.html");
    render_to(&page, rows(), &run_info());
    let profile = dir.path().join("profile");
    let output = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output();
    let output = match output {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("cannot run `chromium`: {e}"),
    };
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).unwrap())
}

/// The DOM's body text with tags dropped, entities decoded and whitespace collapsed: roughly
/// what a reader sees, good enough to check that values sit beside their labels.
fn visible_text(dom: &str) -> String {
    let body = dom.split_once("<body>").map_or(dom, |(_, body)| body);
    let mut text = String::new();
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"");
    let text = text.replace("&#39;", "'").replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

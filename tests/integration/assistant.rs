//! Rows checked against the assistant that calls them, through the real binary on
//! the sandbox: Alice's outbound assistant 101 says `Hallo {{customer_name}}, hier ist Lisa
//! von {{firma}}.` (firma has a value of its own) and its system prompt names
//! `{{ customer_name }}` and `{vertragsende}`, a variable of its without a value.

use serde_json::Value;

use crate::support::{ALICE, TestSandbox, json, write};

const SHEET: &str = "Telefon,Name,Vertragsende,Kunde\n\
                     +4915112345678,Anna Becker,31.12.2026,A-1\n\
                     +4915112345679,,31.12.2026,A-2\n";

const MAPPING: &str = "phone = \"Telefon\"\ncampaign = 10\nassistant = 101\n\
                       [variables]\ncustomer_name = \"Name\"\nvertragsende = \"Vertragsende\"\n";

/// A dry run of the sheet on the sandbox with `mapping` and `extra`; returns the JSON report
/// (if one was written) and stderr.
fn dry_run(sb: &TestSandbox, mapping: &str, extra: &[&str], code: i32) -> (Option<Value>, String) {
    write(sb.dir.path(), "leads.csv", SHEET);
    write(sb.dir.path(), "m.toml", mapping);
    let report = sb.path("r.json");
    let _ = std::fs::remove_file(&report);
    let (_, err) = sb
        .cli(ALICE)
        .args(["import", "leads.csv", "-m", "m.toml", "--dry-run", "--report", "r.json"])
        .args(extra)
        .expect_code(code);
    let report = std::fs::read_to_string(&report).ok().map(|text| json(&text));
    (report, err)
}

fn issues<'r>(report: &'r Value, row: u64, kind: &str) -> Vec<&'r Value> {
    let row = report["rows"].as_array().unwrap().iter().find(|r| r["row"] == row).unwrap();
    row[kind].as_array().unwrap().iter().collect()
}

#[test]
fn a_row_that_leaves_a_spoken_variable_empty_is_refused() {
    let sb = TestSandbox::start();
    let (report, err) = dry_run(&sb, MAPPING, &[], 3);
    let report = report.expect("a report");
    assert_eq!(report["summary"]["valid"], 1, "{report}");
    assert!(issues(&report, 2, "errors").is_empty(), "{report}");
    let errors = issues(&report, 3, "errors");
    assert_eq!(errors.len(), 1, "{report}");
    assert_eq!(errors[0]["code"], "missing_variable");
    assert_eq!(errors[0]["field"], "customer_name");
    assert_eq!(
        errors[0]["message"],
        "`customer_name` is empty, but the initial message and the system prompt say `{{customer_name}}`"
    );
    assert!(!err.contains("note:"), "every variable sent is used: {err}");
    crate::import::assert_schema(&report);
}

#[test]
fn warn_mode_sends_the_row_with_a_warning() {
    let sb = TestSandbox::start();
    let mapping = format!("missing_variables = \"warn\"\n{MAPPING}");
    let (report, _) = dry_run(&sb, &mapping, &[], 0);
    let report = report.expect("a report");
    assert_eq!(report["summary"]["valid"], 2, "{report}");
    let warnings = issues(&report, 3, "warnings");
    assert_eq!(warnings.len(), 1, "{report}");
    assert_eq!(warnings[0]["code"], "missing_variable");
    assert!(issues(&report, 3, "errors").is_empty(), "{report}");
}

#[test]
fn a_placeholder_nothing_fills_refuses_the_run_before_any_row() {
    let sb = TestSandbox::start();
    // No vertragsende; the assistant comes from the command line, by name.
    let mapping = "phone = \"Telefon\"\ncampaign = 10\n[variables]\ncustomer_name = \"Name\"\n";
    let (report, err) = dry_run(&sb, mapping, &["--assistant", "alice outbound"], 1);
    assert!(report.is_none(), "no row was read, so no report: {err}");
    assert!(
        err.contains(
            "`{{vertragsende}}` is used by the system prompt and the assistant's variables (without a value), but nothing fills it: map a column to it, e.g. `vertragsende = \"Vertragsende\"`"
        ),
        "{err}"
    );
}

#[test]
fn a_variable_the_assistant_never_uses_is_a_note() {
    let sb = TestSandbox::start();
    // Warn mode, so that only the note could refuse anything.
    let mapping = format!("missing_variables = \"warn\"\n{MAPPING}kunde = \"Kunde\"\n");
    let (report, err) = dry_run(&sb, &mapping, &[], 0);
    assert!(
        err.contains(
            "note: `kunde` is sent with every lead, but the assistant `Alice Outbound` (id 101) never uses it"
        ),
        "{err}"
    );
    let report = report.expect("a report");
    assert_eq!(report["summary"]["valid"], 2, "a note refuses nothing: {report}");
}

#[test]
fn show_lists_the_variables_and_the_placeholders_of_each_text() {
    let sb = TestSandbox::start();
    let (out, _) = sb.cli(ALICE).args(["assistants", "show", "101"]).ok();
    assert!(out.starts_with("assistant `Alice Outbound` (id 101)"), "{out}");
    let line = |name: &str| out.lines().find(|l| l.starts_with(name)).unwrap_or("").to_string();
    let firma = line("firma ");
    assert!(firma.contains("Muster GmbH") && firma.ends_with("no"), "{out}");
    let ende = line("vertragsende ");
    assert!(ende.contains("system prompt, its variables") && ende.ends_with("yes"), "{out}");
    assert!(out.contains("initial message  {{firma}}"), "{out}");
    let (out, _) =
        sb.cli(ALICE).args(["assistants", "show", "Alice Outbound", "--output", "json"]).ok();
    let shown = json(&out);
    let names: Vec<(&str, bool)> = shown["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap(), v["from_lead"].as_bool().unwrap()))
        .collect();
    assert_eq!(names, [("customer_name", true), ("firma", false), ("vertragsende", true)]);
    assert_eq!(
        shown["initial_message"]["placeholders"],
        serde_json::json!(["customer_name", "firma"])
    );
    assert_eq!(
        shown["system_prompt"]["placeholders"],
        serde_json::json!(["customer_name", "vertragsende"])
    );
    sb.cli(ALICE).args(["assistants", "show", "Nobody"]).expect_code(1);
}

#[test]
fn init_with_the_assistant_maps_its_variables_to_a_german_sheet() {
    let sb = TestSandbox::start();
    let sheet = "Telefonnummer;Vorname;Nachname;Vertragsende;Ort\n\
                 0151 12345678;Anna;Becker;31.12.2026;Köln\n";
    write(sb.dir.path(), "de.csv", sheet);
    sb.cli(ALICE).args(["init", "de.csv", "-o", "m.toml", "--assistant", "101"]).ok();
    let mapping = std::fs::read_to_string(sb.path("m.toml")).unwrap();
    for line in [
        "assistant = 101",
        "customer_name = [\"Vorname\", \"Nachname\"]",
        "vertragsende = \"Vertragsende\"",
        "carry_unmapped = false",
    ] {
        assert!(mapping.lines().any(|l| l == line), "{line} in:\n{mapping}");
    }
    // The written mapping is what the check wants: every row valid, no variable unused.
    let (_, err) = sb
        .cli(ALICE)
        .args(["import", "de.csv", "-m", "m.toml", "--campaign", "10", "--dry-run"])
        .ok();
    assert!(!err.contains("note:"), "{err}");

    // Without a column for it, the variable is written commented with a note.
    write(sb.dir.path(), "kurz.csv", "Telefonnummer;Name\n0151 12345678;Anna Becker\n");
    let (_, err) =
        sb.cli(ALICE).args(["init", "kurz.csv", "-o", "k.toml", "--assistant", "101"]).ok();
    assert!(err.contains("no column for `vertragsende`"), "{err}");
    let mapping = std::fs::read_to_string(sb.path("k.toml")).unwrap();
    assert!(mapping.contains("customer_name = \"Name\""), "{mapping}");
    assert!(mapping.contains("# vertragsende = \"…\"   # used by the system prompt"), "{mapping}");
}

#[test]
fn the_template_has_a_column_per_variable_and_phone_columns_as_text() {
    use calamine::{Data, Reader, Xlsx, open_workbook};
    let sb = TestSandbox::start();
    let (_, err) =
        sb.cli(ALICE).args(["init", "--assistant", "101", "--template", "leads.xlsx"]).ok();
    assert!(err.contains("wrote leads.xlsx"), "{err}");
    let path = sb.path("leads.xlsx");
    let mut book: Xlsx<_> = open_workbook(&path).unwrap();
    let rows: Vec<Vec<Data>> =
        book.worksheet_range("Leads").unwrap().rows().map(<[Data]>::to_vec).collect();
    let header: Vec<String> = rows[0].iter().map(|c| c.to_string()).collect();
    assert_eq!(
        header,
        ["phone_number", "secondary_phone_number", "customer_name", "firma", "vertragsende"]
    );
    assert_eq!(rows.len(), 1, "an empty workbook: the header only");
    // calamine does not say how an empty column is formatted, so read the styles from the zip:
    // the phone columns' style is number format 49, Excel's text (`@`), the others' is not.
    let text_styles = text_style_indices(&crate::import::unzip_entry(&path, "xl/styles.xml"));
    let sheet = crate::import::unzip_entry(&path, "xl/worksheets/sheet1.xml");
    let style_of = |col: u32| column_style(&sheet, col).is_some_and(|s| text_styles.contains(&s));
    assert!(style_of(1) && style_of(2), "phone columns as text: {sheet}");
    assert!(!style_of(3), "a variable's column is not forced to text: {sheet}");
    // A second run does not overwrite the filled-in workbook by accident.
    sb.cli(ALICE).args(["init", "--assistant", "101", "--template", "leads.xlsx"]).expect_code(1);
    // `init` reads the template back as meant: both numbers, every variable in its column.
    let (mapping, _) = sb.cli(ALICE).args(["init", "leads.xlsx", "--assistant", "101"]).ok();
    for line in [
        "phone = [\"phone_number\", \"secondary_phone_number\"]",
        "secondary_contacts = [\"secondary_phone_number\"]",
        "customer_name = \"customer_name\"",
        "vertragsende = \"vertragsende\"",
    ] {
        assert!(mapping.lines().any(|l| l == line), "{line} in:\n{mapping}");
    }
}

/// The indices into `cellXfs` of the cell formats whose number format is text: Excel's
/// built-in 49, or a custom format whose code is `@`.
fn text_style_indices(styles: &str) -> Vec<usize> {
    let custom_text = styles
        .split("<numFmt ")
        .skip(1)
        .filter(|f| attr(f, "formatCode") == Some("@"))
        .filter_map(|f| attr(f, "numFmtId"));
    let text_ids: Vec<&str> = std::iter::once("49").chain(custom_text).collect();
    let xfs = styles.split("<cellXfs").nth(1).unwrap().split("</cellXfs>").next().unwrap();
    xfs.split("<xf ")
        .skip(1)
        .enumerate()
        .filter(|(_, xf)| attr(xf, "numFmtId").is_some_and(|id| text_ids.contains(&id)))
        .map(|(i, _)| i)
        .collect()
}

/// The style of 1-based column `col` from the sheet's `<cols>`, if one sets it.
fn column_style(sheet: &str, col: u32) -> Option<usize> {
    sheet.split("<col ").skip(1).find_map(|c| {
        let (min, max) = (attr(c, "min")?.parse::<u32>().ok()?, attr(c, "max")?.parse().ok()?);
        (min..=max).contains(&col).then(|| attr(c, "style")?.parse().ok())?
    })
}

fn attr<'x>(element: &'x str, name: &str) -> Option<&'x str> {
    // The split left the element's first attribute without the space before it.
    let element = element.split('>').next()?.trim_start();
    if let Some(value) = element.strip_prefix(&format!("{name}=\"")) {
        return value.split('"').next();
    }
    let start = element.find(&format!(" {name}=\""))? + name.len() + 3;
    element[start..].split('"').next()
}

const ANNA: &str = "Hallo Anna Becker, hier ist Lisa von Muster GmbH.";

/// The report's page and `-v` say the first message as row 2 (Anna) will hear it, and row 3,
/// whose name is empty, with the gap marked where the name would be.
#[test]
fn the_html_report_and_verbose_say_the_first_message_filled_in() {
    let sb = TestSandbox::start();
    write(sb.dir.path(), "leads.csv", SHEET);
    write(sb.dir.path(), "m.toml", MAPPING);
    let (_, err) = sb
        .cli(ALICE)
        .args(["-v", "import", "leads.csv", "-m", "m.toml", "--dry-run", "--report", "r.html"])
        .expect_code(3);
    assert!(err.contains(&format!("first message (row 2): {ANNA}\n")), "{err}");
    let page = std::fs::read_to_string(sb.path("r.html")).unwrap();
    assert!(page.contains("<h2>What the assistant will say</h2>"), "{page}");
    assert!(page.contains(&format!("Row 2</span> <q>{ANNA}</q>")), "{page}");
    let gap = "Hallo <mark class=\"gap\">[missing: customer_name]</mark>, hier ist Lisa von \
               Muster GmbH.";
    assert!(page.contains(&format!("Row 3</span> <q>{gap}</q>")), "{page}");
    shown_in_chromium(&sb.path("r.html"));
}

/// Headless Chromium renders the page; a copy of it carries a script that writes out the text
/// a person sees (`innerText` leaves out what CSS hides) and the gap's colours, so the check is
/// of the rendered page, not of its source. Skips where no `chromium` is installed, except on CI.
fn shown_in_chromium(page: &std::path::Path) {
    let probe = page.with_file_name("probe.html");
    let script = "<script>addEventListener('load', () => { const gap = document.querySelector('#first-message .gap'); \
        const out = document.createElement('pre'); out.id = 'seen'; \
        out.textContent = document.getElementById('first-message').innerText + '\\nGAP ' + getComputedStyle(gap).backgroundColor; \
        document.body.append(out); });</script>";
    let html =
        std::fs::read_to_string(page).unwrap().replace("</body>", &format!("{script}</body>"));
    std::fs::write(&probe, html).unwrap();
    let profile = page.with_file_name("chromium-profile");
    let dom = std::process::Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", probe.display()))
        .output();
    let dom = match dom {
        Ok(dom) => dom,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let on_ci =
                std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
            assert!(!on_ci, "`chromium` is not on PATH, and CI is set: install it");
            eprintln!("notice: `chromium` is not on PATH; skipping the render of the report");
            return;
        }
        Err(e) => panic!("cannot run `chromium`: {e}"),
    };
    let out = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.status.success(), "{}", String::from_utf8_lossy(&dom.stderr));
    let seen = out.split("<pre id=\"seen\">").nth(1).and_then(|s| s.split("</pre>").next());
    let seen = seen.unwrap_or_else(|| panic!("the probe did not run: {out}"));
    assert!(seen.contains(&format!("Row 2 {ANNA}")), "{seen}");
    assert!(
        seen.contains("Row 3 Hallo [missing: customer_name], hier ist Lisa von Muster GmbH."),
        "{seen}"
    );
    assert!(seen.contains("GAP rgb(253, 226, 223)"), "the gap is marked: {seen}");
}

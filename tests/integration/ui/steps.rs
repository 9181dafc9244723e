//! The steps a person goes through: Source (upload, path, URL, the limit), Reading (what was
//! detected, rows, header row, delimiter, sheets), Mapping; in English and German, every control
//! labelled.

use reqwest::header;

use super::{TestUi, files_under, leads_csv, sample};
use crate::support::serve;

#[test]
fn an_uploaded_csv_is_read_and_its_first_rows_shown() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let csv = leads_csv();
    let reading = ui.upload_ok(&cookie, "leads.csv", &csv);

    let stored = files_under(&ui.uploads());
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0].file_name().unwrap(), "leads.csv");
    assert_eq!(std::fs::read(&stored[0]).unwrap(), csv, "the upload is stored byte for byte");

    let page = ui.get(&reading, &cookie);
    assert_eq!(page.status, 200, "{}", page.body);
    for shown in [
        "<dt>Format</dt><dd>CSV</dd>",
        "<dt>Text encoding</dt><dd>UTF-8</dd>",
        "<dt>Delimiter</dt><dd>comma (,)</dd>",
        "<dt>Header row</dt><dd>row 1: this row holds the column names</dd>",
        "<dt>Columns</dt><dd>8</dd>",
        "<th scope=\"col\">Telefon</th>",
        "<td>Anna Schmidt</td>",
        "<td>0151 23456789</td>",
        // Cells are escaped, and a quoted line break stays in its cell.
        "<td>Müller &amp; Söhne</td>",
        "<td>Call after 2pm, &quot;urgent&quot;</td>",
        "<td>Prefers English\nmornings only</td>",
    ] {
        assert!(page.body.contains(shown), "missing {shown:?} in:\n{}", page.body);
    }
    // Each row offers itself as the header row; choosing one reads the sheet again from there.
    assert!(page.body.contains("aria-label=\"Use row 2 as the header row\""));
    let again = ui.get(&format!("{reading}?header_row=2"), &cookie);
    assert!(
        again.body.contains("<dt>Header row</dt><dd>row 2: this row holds the column names</dd>"),
        "{}",
        again.body
    );
    assert!(again.body.contains("<th scope=\"col\">Anna Schmidt</th>"));
    assert!(!again.body.contains("<td>Anna Schmidt</td>"));
    // A delimiter chosen by hand is used: with `;` the whole line is one column.
    let semicolon = ui.get(&format!("{reading}?delimiter=%3B"), &cookie);
    assert!(
        semicolon.body.contains("<dt>Delimiter</dt><dd>semicolon (;)</dd>"),
        "{}",
        semicolon.body
    );
    assert!(semicolon.body.contains("<dt>Columns</dt><dd>1</dd>"));
    assert!(semicolon.body.contains("<option value=\";\" selected>"));
    // A header row past the end is the library's error, on the page.
    let past = ui.get(&format!("{reading}?header_row=500"), &cookie);
    assert_eq!(past.status, 422);
    assert!(past.body.contains("role=\"alert\""), "{}", past.body);
    assert!(past.body.contains("value=\"500\""), "the choice stays in the form");
    let zero = ui.get(&format!("{reading}?header_row=0"), &cookie);
    assert!(zero.body.contains("The header row must be a row number, 1 or more."));
}

#[test]
fn rows_above_a_found_header_are_shown_to_choose_instead() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let csv = "Leads export, May\n\nName,Phone,City\nAnna,+49 151 23456789,Berlin\nBob,+49 30 1234567,Köln\n";
    let reading = ui.upload_ok(&cookie, "export.csv", csv.as_bytes());
    let page = ui.get(&reading, &cookie);
    assert!(
        page.body.contains("<dt>Header row</dt><dd>row 3: this row holds the column names</dd>"),
        "{}",
        page.body
    );
    assert!(page.body.contains("<caption id=\"above-caption\">Rows above the header</caption>"));
    assert!(page.body.contains("<td>Leads export</td><td>May</td>"), "{}", page.body);
    assert!(page.body.contains("aria-label=\"Use row 1 as the header row\""));
    let chosen = ui.get(&format!("{reading}?header_row=1"), &cookie);
    assert!(chosen.body.contains("<th scope=\"col\">Leads export</th>"), "{}", chosen.body);
    assert!(!chosen.body.contains("above-caption"), "nothing is above row 1");
    // Blank rows at the top are skipped on the way to the first row.
    let padded = format!("\n\n{csv}");
    let reading = ui.upload_ok(&cookie, "padded.csv", padded.as_bytes());
    let page = ui.get(&reading, &cookie);
    assert!(
        page.body.contains("<dt>Header row</dt><dd>row 5: this row holds the column names</dd>"),
        "{}",
        page.body
    );
    assert!(page.body.contains("aria-label=\"Use row 3 as the header row\""), "{}", page.body);
}

#[test]
fn a_workbooks_sheets_can_be_picked() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let path = ui.dir.path().join("book.xlsx");
    let mut book = rust_xlsxwriter::Workbook::new();
    let notes = book.add_worksheet().set_name("Notes").unwrap();
    notes.write_string(0, 0, "Exported from the CRM").unwrap();
    notes.write_string(1, 0, "Do not edit").unwrap();
    let leads = book.add_worksheet().set_name("Kunden").unwrap();
    for (row, cells) in
        [["Vorname", "Telefon"], ["Anna", "0151 23456789"], ["Jürgen", "030 1234567"]]
            .iter()
            .enumerate()
    {
        for (col, cell) in cells.iter().enumerate() {
            leads.write_string(row as u32, col as u16, *cell).unwrap();
        }
    }
    book.save(&path).unwrap();
    let reading = ui.upload_ok(&cookie, "book.xlsx", &std::fs::read(&path).unwrap());
    let first = ui.get(&reading, &cookie);
    assert!(first.body.contains("<dt>Format</dt><dd>XLSX</dd>"), "{}", first.body);
    assert!(first.body.contains("<dt>Sheet</dt><dd>Notes</dd>"));
    assert!(
        first
            .body
            .contains("<label for=\"sheet\">Sheet</label><select id=\"sheet\" name=\"sheet\">")
    );
    assert!(first.body.contains("<option value=\"Kunden\">Kunden</option>"), "{}", first.body);
    let picked = ui.get(&format!("{reading}?sheet=Kunden"), &cookie);
    assert!(picked.body.contains("<dt>Sheet</dt><dd>Kunden</dd>"), "{}", picked.body);
    assert!(picked.body.contains("<option value=\"Kunden\" selected>Kunden</option>"));
    assert!(picked.body.contains("<td>Jürgen</td>"));
    assert!(!picked.body.contains("id=\"delimiter\""), "a workbook has no delimiter to choose");
    let mapping =
        ui.get(&format!("{}?sheet=Kunden", reading.replace("/reading/", "/mapping/")), &cookie);
    assert!(
        role_of(&mapping.body, "Telefon") == "phone"
            && mapping.body.contains("<td>0151 23456789</td>"),
        "{}",
        mapping.body
    );
}

#[test]
fn an_upload_past_the_limit_is_refused_and_removed() {
    let ui = TestUi::with(|config| config.max_upload_bytes = 1000);
    let cookie = ui.login();
    let big = "Name,Phone\n".to_string() + &"Anna,+49 151 23456789\n".repeat(200);
    let reply = ui.upload(&cookie, "big.csv", big.as_bytes());
    assert_eq!(reply.status, 413, "{}", reply.body);
    assert!(reply.body.contains("role=\"alert\""));
    assert!(files_under(&ui.uploads()).is_empty(), "{:?}", files_under(&ui.uploads()));
    // Just under it is fine.
    ui.upload_ok(&cookie, "small.csv", &big.as_bytes()[..1000]);
    // A form without a file says so.
    let reply = ui.upload(&cookie, "", b"");
    assert_eq!(reply.status, 400);
    assert!(reply.body.contains("Choose a file first."));
}

#[test]
fn a_path_or_a_url_is_read_like_an_upload() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let path = sample("leads.csv");
    let reply = ui.send(ui.post("/source/location", &cookie).form(&[("location", &path)]));
    assert_eq!(reply.status, 303, "{}", reply.body);
    let page = ui.get(reply.header("location"), &cookie);
    assert!(page.body.contains("<td>Anna Schmidt</td>"), "{}", page.body);
    assert!(files_under(&ui.uploads()).is_empty(), "a path is read where it is");

    let url = serve("/export/leads.csv", leads_csv());
    let reply = ui.send(ui.post("/source/location", &cookie).form(&[("location", &url)]));
    assert_eq!(reply.status, 303, "{}", reply.body);
    let page = ui.get(reply.header("location"), &cookie);
    assert!(page.body.contains("<td>Anna Schmidt</td>"), "{}", page.body);
    assert!(page.body.contains(&format!("<dt>File</dt><dd>{url}</dd>")));
    assert_eq!(files_under(&ui.uploads()).len(), 1, "a URL is downloaded to the state folder");

    let missing = ui.dir.path().join("nope.csv");
    let reply = ui.send(ui.post("/source/location", &cookie).form(&[("location", &missing)]));
    assert_eq!(reply.status, 422);
    assert!(reply.body.contains("There is no file at"), "{}", reply.body);
}

#[test]
fn the_mapping_step_shows_each_columns_inferred_role() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let reply = ui.get(&reading.replace("/reading/", "/mapping/"), &cookie);
    assert_eq!(reply.status, 200, "{}", reply.body);
    for (column, role) in [
        ("Telefon", "phone"),
        ("Mobile 2", "phone"),
        ("Kampagne", "campaign"),
        ("Name", "variable customer_name"),
        ("Company", "variable company"),
    ] {
        assert_eq!(role_of(&reply.body, column), role, "{}", reply.body);
    }
    assert!(reply.body.contains("<td>0151 23456789</td>"), "the first value");
}

/// A column's number on the Mapping page, as its form fields name it (`role3`, `name3`).
pub(super) fn column_index(page: &str, column: &str) -> String {
    let at = page.find(&format!("\">{column}</label>")).unwrap_or_else(|| panic!("no {column}"));
    let before = &page[..at];
    before[before.rfind("for=\"role").unwrap() + "for=\"role".len()..].to_string()
}

/// A column's role as the Mapping page's form has it selected: `phone`, `variable NAME`, ….
pub(super) fn role_of(page: &str, column: &str) -> String {
    let label = format!("\">{column}</label></th>");
    let row = page.split(&label).nth(1).unwrap_or_else(|| panic!("no column {column}"));
    let row = &row[..row.find("</tr>").unwrap()];
    // `selected` as the server writes it, or `selected=""` as a browser's DOM gives it back.
    let chosen = row.split("<option value=\"").find(|o| o.contains(" selected")).unwrap();
    let role = &chosen[..chosen.find('"').unwrap()];
    let name = row.split("name=\"name").nth(1).unwrap().split("value=\"").nth(1).unwrap();
    let name = &name[..name.find('"').unwrap()];
    match role {
        "variable" => format!("variable {name}"),
        other => other.to_string(),
    }
}

/// The Mapping page's one form, from its start to its end: whatever button is pressed, every
/// control in it is sent.
pub(super) fn the_form(page: &str) -> &str {
    let start = page.find("<form id=\"choices\"").unwrap_or_else(|| panic!("no form: {page}"));
    let end = start + page[start..].find("</form>").unwrap();
    &page[start..end]
}

/// A role changed on the page is the mapping the check uses: Company ignored, City sent as
/// `stadt`, and the address keeps the choices for the way back.
#[test]
fn roles_changed_on_the_mapping_page_are_what_the_check_uses() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let mapping = reading.replace("/reading/", "/mapping/");
    let page = ui.get(&mapping, &cookie);
    let (company, city) = (column_index(&page.body, "Company"), column_index(&page.body, "City"));
    let changed = format!("{mapping}?role{company}=ignore&role{city}=variable&name{city}=stadt");
    let page = ui.get(&changed, &cookie);
    assert_eq!(role_of(&page.body, "Company"), "ignore");
    assert_eq!(role_of(&page.body, "City"), "variable stadt");
    let form = the_form(&page.body);
    assert!(
        form.contains(&format!("<select id=\"role{city}\" name=\"role{city}\">")),
        "checked as shown"
    );
    let id = mapping.trim_start_matches("/mapping/");
    let form = [
        (format!("role{company}"), "ignore".to_string()),
        (format!("role{city}"), "variable".to_string()),
        (format!("name{city}"), "stadt".to_string()),
        ("campaign".to_string(), "1".to_string()),
    ];
    let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form));
    assert_eq!(started.status, 303, "{}", started.body);
    let run = started.header("location").to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while ui.get(&run, &cookie).body.contains("data-refresh") {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let report = ui.get(&format!("{run}/files/report.json"), &cookie).body;
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let anna = &report["rows"][0]["variables"];
    assert_eq!(anna["stadt"], "Berlin", "{anna}");
    assert!(anna.get("company").is_none() && anna.get("city").is_none(), "{anna}");
    let back = ui.get(&run, &cookie).body;
    assert!(back.contains(&format!("role{company}=ignore")), "the way back keeps the roles");
}

#[test]
fn pages_speak_german_or_english_as_asked() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let german = ui.send(
        ui.http
            .get(ui.url("/"))
            .header(header::COOKIE, &cookie)
            .header(header::ACCEPT_LANGUAGE, "de-DE,de;q=0.9,en;q=0.5"),
    );
    assert!(german.body.contains("<html lang=\"de\">"), "{}", german.body);
    assert!(german.body.contains("Tabelle für den Import wählen"));
    assert!(german.body.contains("<label for=\"file\">Tabellendatei</label>"));
    let switched = ui.send(
        ui.http
            .get(ui.url("/?lang=en"))
            .header(header::COOKIE, &cookie)
            .header(header::ACCEPT_LANGUAGE, "de"),
    );
    assert!(switched.body.contains("<html lang=\"en\">"));
    assert_eq!(switched.header("set-cookie"), "leadsync_lang=en; Path=/; SameSite=Strict");
    let remembered = ui.send(
        ui.http
            .get(ui.url("/"))
            .header(header::COOKIE, format!("{cookie}; leadsync_lang=en"))
            .header(header::ACCEPT_LANGUAGE, "de"),
    );
    assert!(remembered.body.contains("Choose the sheet to import"));
    // The switch link keeps the page and its choices.
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let page = ui.get(&format!("{reading}?header_row=2"), &cookie);
    assert!(
        page.body.contains(&format!("href=\"{reading}?header_row=2&amp;lang=de\"")),
        "{}",
        page.body
    );
}

#[test]
fn every_control_has_a_label() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let mapping = reading.replace("/reading/", "/mapping/");
    let id = mapping.trim_start_matches("/mapping/").to_string();
    let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&[("campaign", "1")]));
    let run = started.header("location").to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while ui.get(&run, &cookie).body.contains("data-refresh") {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pages = ["/".to_string(), reading.clone(), format!("{reading}?sheet=x&header_row=99")];
    for path in pages.into_iter().chain([mapping, run.clone(), format!("{run}?status=rejected")]) {
        let page = ui.get(&path, &cookie);
        assert!(page.status == 200 || path.contains("header_row=99"), "{path}: {}", page.body);
        for tag in ["<input ", "<select ", "<button ", "<progress "] {
            for (at, _) in page.body.match_indices(tag) {
                let element = &page.body[at..at + page.body[at..].find('>').unwrap()];
                if element.contains("type=\"hidden\"") || element.contains("aria-label=\"") {
                    continue;
                }
                if tag == "<button " {
                    let text =
                        page.body[at..].split('>').nth(1).unwrap().split('<').next().unwrap();
                    assert!(!text.trim().is_empty(), "{path}: a button without words");
                    continue;
                }
                let id =
                    element.split("id=\"").nth(1).unwrap_or_else(|| panic!("{path}: {element}"));
                let id = id.split('"').next().unwrap();
                let labelled = page.body.match_indices(&format!("for=\"{id}\"")).any(|(at, _)| {
                    page.body[..at].rsplit('<').next().is_some_and(|tag| tag.starts_with("label"))
                });
                assert!(labelled, "{path}: no label for #{id}");
            }
        }
    }
}

/// The German CRM export of `samples/kunden.xlsx`, in German: a title above the header, a second
/// sheet, a phone number stored as a number, and every kind of column the mapping infers.
#[test]
fn a_german_crm_export_is_read_and_mapped() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let bytes = std::fs::read(sample("kunden.xlsx")).unwrap();
    let reading = ui.upload_ok(&cookie, "kunden.xlsx", &bytes);
    let german = |path: &str| {
        ui.send(
            ui.http
                .get(ui.url(path))
                .header(header::COOKIE, &cookie)
                .header(header::ACCEPT_LANGUAGE, "de-DE,de;q=0.9"),
        )
    };
    let page = german(&reading);
    assert_eq!(page.status, 200, "{}", page.body);
    for shown in [
        "<dt>Format</dt><dd>XLSX</dd>",
        "<dt>Tabellenblatt</dt><dd>Kunden</dd>",
        "<dt>Kopfzeile</dt><dd>Zeile 3: Diese Zeile enthält die Spaltennamen</dd>",
        "<option value=\"Hinweise\">Hinweise</option>",
        "<td>Kundenliste CRM-Export Mai 2026</td>",
        "<th scope=\"col\">Vorname</th>",
        "<td>Müller &amp; Söhne</td>",
        // A number typed without a leading zero stays a phone number, not 4.9E+12.
        "<td>4915798765432</td>",
    ] {
        assert!(page.body.contains(shown), "missing {shown:?} in:\n{}", page.body);
    }
    assert!(!page.body.contains("id=\"delimiter\""));
    let mapping = german(&reading.replace("/reading/", "/mapping/"));
    for (column, role) in [
        ("Vorname", "variable customer_name"),
        ("Nachname", "variable customer_name"),
        ("Telefon", "phone"),
        // Mobil: the number when Telefon is empty, a second number when it is not.
        ("Mobil", "phone"),
        ("Land", "country"),
        ("Kampagne", "campaign"),
        ("Firma", "variable firma"),
    ] {
        assert_eq!(role_of(&mapping.body, column), role, "{}", mapping.body);
    }
    for german in ["<option value=\"phone\" selected>Telefonnummer</option>", "<td>Anna</td>"] {
        assert!(mapping.body.contains(german), "missing {german:?} in:\n{}", mapping.body);
    }
}

/// The CLI's limits hold for an upload as for a file on disk: a workbook crafted to exhaust
/// memory is refused by the library when Reading opens it, with its own message, and the
/// server goes on serving.
#[test]
fn a_crafted_workbook_is_refused_by_the_librarys_limits() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let strings = br#"<sst uniqueCount="10000000000"><si><t>Name</t></si></sst>"#.to_vec();
    let bomb = crate::limits::xlsx(ui.dir.path(), "bomb.xlsx", strings);
    let reading = ui.upload_ok(&cookie, "bomb.xlsx", &std::fs::read(bomb).unwrap());
    let page = ui.get(&reading, &cookie);
    assert_eq!(page.status, 422, "{}", page.body);
    assert!(page.body.contains("role=\"alert\""), "{}", page.body);
    assert!(
        page.body.contains("shared-strings table") && page.body.contains("200 MiB"),
        "{}",
        page.body
    );
    assert_eq!(ui.get("/", &cookie).status, 200);
}

/// A mapping kept from the page: downloaded, it is a file `leadsync import --mapping` reads;
/// saved, it is proposed for the next upload with the same columns, and applying it brings
/// its roles back.
#[test]
fn a_mapping_is_kept_as_a_file_and_proposed_for_the_next_sheet() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let mapping = reading.replace("/reading/", "/mapping/");
    let page = ui.get(&mapping, &cookie);
    assert!(!page.body.contains("Use the saved mapping"), "nothing saved yet");
    let company = column_index(&page.body, "Company");
    let changed = format!("{mapping}?role{company}=ignore");
    let file = ui.get(&changed.replacen("?", "/mapping.toml?", 1), &cookie);
    assert_eq!(file.status, 200, "{}", file.body);
    assert!(file.header("content-disposition").contains("mapping.toml"));
    assert!(!file.body.contains("Company"), "the ignored column is not in it:\n{}", file.body);
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("mapping.toml");
    std::fs::write(&toml, &file.body).unwrap();
    let report = dir.path().join("r.json");
    crate::support::Cli::new()
        .args(["import"])
        .args([super::sample("leads.csv")])
        .args(["--mapping"])
        .args([&toml])
        .args(["--offline", "--dry-run", "--campaign", "1", "--report"])
        .args([&report])
        .expect_code(3);
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(rows["rows"][0]["variables"]["customer_name"], "Anna Schmidt");
    assert!(rows["rows"][0]["variables"].get("company").is_none());

    let id = mapping.trim_start_matches("/mapping/");
    let form = [(format!("role{company}"), "ignore"), ("save_name".to_string(), "weekly CRM")];
    let saved = ui.send(ui.post(&format!("/mapping/{id}/save"), &cookie).form(&form));
    assert_eq!(saved.status, 303, "{}", saved.body);
    let again = ui.upload_ok(&cookie, "leads-next-week.csv", &leads_csv());
    let next = ui.get(&again.replace("/reading/", "/mapping/"), &cookie);
    assert!(next.body.contains("Use the saved mapping “weekly CRM”"), "{}", next.body);
    let link = next.body.split("<div class=\"proposal\"").nth(1).unwrap();
    let href =
        link.split("href=\"").nth(1).unwrap().split('"').next().unwrap().replace("&amp;", "&");
    let applied = ui.get(&href, &cookie);
    assert_eq!(super::steps::role_of(&applied.body, "Company"), "ignore");
    assert_eq!(super::steps::role_of(&applied.body, "Telefon"), "phone");
}

/// The Mapping page shows what the first rows would send with the roles chosen, as the
/// library checks them: the number as sent, the variables, and what is wrong.
#[test]
fn the_mapping_page_previews_what_the_first_rows_would_send() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let mapping = reading.replace("/reading/", "/mapping/");
    let page = ui.get(&mapping, &cookie);
    let preview = page.body.split("What the first rows would send").nth(1).expect("a preview");
    let rows = preview.matches("<tr data-status=").count();
    assert!((5..=10).contains(&rows), "the first rows only: {rows}");
    assert!(preview.contains("<td>+4915123456789</td>"), "Anna's number as sent: {preview}");
    assert!(preview.contains("customer_name: Anna Schmidt"), "{preview}");
    assert!(preview.contains("extension_dropped"), "a warning of the library: {preview}");
    // Another role, another preview: the name is no longer sent.
    let name = column_index(&page.body, "Name");
    let changed = ui.get(&format!("{mapping}?role{name}=ignore"), &cookie);
    let preview = changed.body.split("What the first rows would send").nth(1).unwrap();
    assert!(preview.contains("<td>+4915123456789</td>"), "Anna's row is still previewed");
    assert!(!preview.contains("customer_name: Anna"), "{preview}");
}

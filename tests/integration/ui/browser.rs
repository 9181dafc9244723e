//! Real Chromium, headless: the printed URL opened as a person opens it, and (through
//! chromedriver) the Source and Reading steps driven by labels and button texts. Screenshots of
//! each step go to `target/tmp/ui-screenshots/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{TestUi, files_under, sample};
use crate::support::{ALICE, TestSandbox};

/// CI services set `CI=true` (some `CI=1`); there the browser check must run.
fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Headless Chromium opens the printed URL as a person would: the secret is traded for the
/// cookie, the Source page renders with its stylesheet and script under the CSP (no violation
/// in the console), and a screenshot of it is kept in `target/tmp/ui-screenshots/`. Skips,
/// saying so, where no `chromium` is installed, except on CI.
#[test]
fn chromium_opens_the_printed_url_and_shows_the_source_page() {
    let ui = TestUi::start();
    let shot = screenshots().join("1-source.png");
    let _ = std::fs::remove_file(&shot);
    let profile = ui.dir.path().join("chromium-profile");
    let run = |mode: &str| {
        Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
            ])
            .args([
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ])
            .args(["--enable-logging=stderr", "--v=0", "--window-size=1100,900", "--lang=en-US"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(mode)
            .arg(ui.ui().url())
            .output()
    };
    let dom = match run("--dump-dom") {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(!on_ci(), "`chromium` is not on PATH, and CI is set: install it");
            eprintln!("notice: `chromium` is not on PATH; skipping the browser check of the UI");
            return;
        }
        Err(e) => panic!("cannot run `chromium`: {e}"),
    };
    let stderr = String::from_utf8_lossy(&dom.stderr);
    assert!(dom.status.success(), "chromium failed: {stderr}");
    let html = String::from_utf8_lossy(&dom.stdout);
    assert!(html.contains("Choose the sheet to import"), "{html}\n{stderr}");
    assert!(html.contains("<label for=\"file\">Spreadsheet file</label>"), "{html}");
    assert!(!stderr.contains("Content Security Policy"), "a CSP violation: {stderr}");
    let screenshot = run(&format!("--screenshot={}", shot.display())).unwrap();
    assert!(screenshot.status.success(), "{}", String::from_utf8_lossy(&screenshot.stderr));
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 5_000, "{} bytes", png.len());
}

/// Chromium, driven through chromedriver (WebDriver over HTTP), by labels and button texts as a
/// person finds them: the printed URL, a path typed and sent with Enter, back, a file chosen
/// and uploaded with the button, the Reading page. Real forms send real `Origin` headers and a
/// real multipart body, which the door must let through. Skips where `chromedriver` is missing
/// (`apt-get install chromium-driver`), except on CI.
#[test]
fn chromium_chooses_a_sheet_by_keyboard_and_sees_it_read() {
    let Some(driver) = WebDriver::start_or_skip() else { return };
    let ui = TestUi::start();
    let csv = sample("leads.csv");
    let session = driver.session(&ui.dir.path().join("chromium-profile"));
    driver.call(&session, "POST", "url", serde_json::json!({"url": ui.ui().url()}));
    assert_eq!(driver.url(&session), ui.url("/"), "the secret left the address");

    let location = driver.by_label(&session, "Path or link");
    let keys = format!("{}\u{E007}", csv.display());
    driver.call(
        &session,
        "POST",
        &format!("element/{location}/value"),
        serde_json::json!({"text": keys}),
    );
    driver.wait_for_address(&session, "/reading/");
    let page = driver.source(&session);
    assert!(page.contains("comma (,)") && page.contains("Anna Schmidt"), "{page}");

    driver.call(&session, "POST", "url", serde_json::json!({"url": ui.url("/")}));
    let file = driver.by_label(&session, "Spreadsheet file");
    driver.call(
        &session,
        "POST",
        &format!("element/{file}/value"),
        serde_json::json!({"text": csv.display().to_string()}),
    );
    let upload = driver.find(&session, "//button[normalize-space()='Upload']");
    driver.call(&session, "POST", &format!("element/{upload}/click"), serde_json::json!({}));
    driver.wait_for_address(&session, "/reading/");
    let page = driver.source(&session);
    assert!(page.contains("Müller &amp; Söhne"), "{page}");
    assert_eq!(files_under(&ui.uploads()).len(), 1);
    driver.screenshot(&session, "2-reading.png");

    let next = driver.find(&session, "//a[normalize-space()='Next: the columns']");
    driver.call(&session, "POST", &format!("element/{next}/click"), serde_json::json!({}));
    let page = driver.source(&session);
    assert!(page.contains("<option value=\"phone\" selected=\"\">Phone number</option>"), "{page}");
    driver.screenshot(&session, "3-mapping.png");
    driver.call(&session, "DELETE", "", serde_json::json!({}));
}

/// The German CRM export from file to leads on the sandbox, in German, in Chromium, with the
/// keyboard alone (Enter on each control): upload, Reading, Mapping, "Alle Zeilen prüfen", the
/// check page (which reloads itself until the check is done), Sophie's invalid number fixed on
/// her row's page, Anna's first row excluded (her second is then sent), "N Leads senden", Results. The leads on the service are
/// exactly the rows the run reports created, with their secondary numbers, Sophie's fixed
/// number and Anna once. Screenshots of the check, the row and the results join the others.
#[test]
fn chromium_takes_the_german_export_from_file_to_leads() {
    let Some(driver) = WebDriver::start_or_skip() else { return };
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| {
        config.client = Some(sandbox.client(ALICE));
        config.push.rate = 0.0;
    });
    let session = driver.session(&ui.dir.path().join("chromium-profile"));
    upload_in_german(&driver, &ui, &session, &sample("kunden.xlsx"));
    driver.press_enter(&session, "//a[normalize-space()='Weiter: die Spalten']");
    let mapping = driver.url(&session);
    driver.press_enter(&session, "//button[normalize-space()='Alle Zeilen prüfen']");
    let check = driver.settled(&session, &mapping);
    assert!(check.contains("<h1>Prüfung</h1>") && check.contains("Zahlen"), "{check}");
    assert!(
        check.contains("<small class=\"code\">invalid_phone</small>"),
        "Sophie's 0151 CALL ME: {check}"
    );
    driver.screenshot(&session, "4-check.png");

    // Sophie's number fixed on her row's page, checked again by the library.
    driver.press_enter(&session, "//tr[contains(., 'CALL ME')]//a[contains(., 'bearbeiten')]");
    let phone = driver.by_label(&session, "Telefon");
    driver.call(&session, "POST", &format!("element/{phone}/clear"), serde_json::json!({}));
    let typed = serde_json::json!({"text": "0151 76543210\u{E007}"});
    driver.call(&session, "POST", &format!("element/{phone}/value"), typed);
    driver.wait_for_address(&session, "saved=1");
    let fixed = driver.source(&session);
    assert!(fixed.contains("+4915176543210") && fixed.contains("bereit zum Senden"), "{fixed}");
    driver.screenshot(&session, "4b-row.png");
    // Anna's first row left out: her second, a duplicate until now, is the one sent.
    driver.press_enter(&session, "//a[normalize-space()='Zurück zu den Zeilen']");
    let anna = "//tr[@data-status='valid' and contains(., 'Anna')]//a[contains(., 'bearbeiten')]";
    driver.press_enter(&session, anna);
    driver.press_enter(&session, "//button[contains(., 'nur diesmal ausschließen')]");
    driver.wait_for_address(&session, "saved=1");
    assert!(driver.source(&session).contains("Diese Zeile ist ausgeschlossen"));
    driver.press_enter(&session, "//a[normalize-space()='Zurück zu den Zeilen']");
    driver.wait_for_address(&session, "#rows");
    let edited = driver.source(&session);
    assert!(edited.contains("1 Zeile bearbeitet, 1 ausgeschlossen"), "{edited}");
    // The check's page as the way back left it (`…#rows`): the send's page is another address.
    let checked = driver.url(&session);
    driver.press_enter(&session, "//button[contains(., 'Leads senden')]");
    let results = driver.settled(&session, &checked);
    assert!(results.contains("<h1>Ergebnis</h1>"), "{results}");
    driver.screenshot(&session, "5-results.png");
    driver.call(&session, "DELETE", "", serde_json::json!({}));

    // What the run reports created is exactly what the service holds.
    let report_link = results.split("href=\"").find(|h| h.contains("/files/report.json")).unwrap();
    let report_path = report_link.split('"').next().unwrap();
    let cookie = ui.login();
    let report: serde_json::Value =
        serde_json::from_str(&ui.get(report_path, &cookie).body).unwrap();
    let mut created: Vec<String> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "created")
        .map(|r| r["phone"].as_str().unwrap().to_string())
        .collect();
    let leads = sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap();
    let mut on_service: Vec<String> = leads.iter().map(|l| l.phone_number.clone()).collect();
    created.sort();
    on_service.sort();
    assert!(created.len() >= 2, "{report}");
    // Lena Huber's `0664 1234567` is read in her country column's Austria, not in Germany.
    assert!(report.to_string().contains("+436641234567"), "{report}");
    assert_eq!(on_service, created);
    assert!(on_service.contains(&"+4915176543210".to_string()), "Sophie as fixed: {on_service:?}");
    assert_eq!(on_service, ["+4915123456789", "+4915176543210", "+49301234567"]);
    let status = |row: u64| {
        let rows = report["rows"].as_array().unwrap();
        let found = rows.iter().find(|r| r["row"] == row).unwrap();
        (found["status"].as_str().unwrap().to_string(), found["errors"][0]["code"].clone())
    };
    assert_eq!(status(4), ("skipped".to_string(), serde_json::json!("excluded")));
    assert_eq!(status(10).0, "created", "Anna's second row, no longer a duplicate");
    let mueller = leads.iter().find(|l| l.phone_number == "+49301234567").expect("Jürgen Müller");
    let second: Vec<&str> =
        mueller.secondary_contacts.iter().map(|c| c.phone_number.as_str()).collect();
    assert_eq!(second, ["+491719876543"], "his Mobil as a second number");
}

/// A German sales-ops lead alone with this week's CRM export (a title line and an export-date
/// line above the header on row 3, an `Einwilligung Telefon` column of ja/nein, the CRM's own
/// campaign names in `Kampagne`, AT and CH rows), in German, in Chromium, from upload to
/// results, pressing no apply button: the header is row 3, the consent column is consent (no
/// one who said "nein" or nothing is ready), the campaign is asked for, and no page of the walk
/// says a reason code outside its small label or an English word of the catalog.
#[test]
fn chromium_takes_a_german_crm_export_to_leads_without_an_apply_step() {
    let Some(driver) = WebDriver::start_or_skip() else { return };
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| {
        config.client = Some(sandbox.client(ALICE));
        config.push.rate = 0.0;
    });
    let session = driver.session(&ui.dir.path().join("chromium-profile"));
    let mut pages = Vec::new();
    let csv = sample("crm_export_de.csv");
    upload_in_german(&driver, &ui, &session, &csv);
    driver.wait_for_address(&session, "/reading/");
    let reading = driver.source(&session);
    assert!(reading.contains("Zeile 3: Diese Zeile enthält die Spaltennamen"), "{reading}");
    pages.push(reading);

    driver.press_enter(&session, "//a[normalize-space()='Weiter: die Spalten']");
    driver.wait_for_address(&session, "/mapping/");
    let mapping = driver.source(&session);
    assert_eq!(super::steps::role_of(&mapping, "Einwilligung Telefon"), "consent", "{mapping}");
    assert_eq!(super::steps::role_of(&mapping, "Land"), "country");
    assert!(
        mapping.contains("Die Spalte „Kampagne“ nennt keine Kampagne dieses Kontos"),
        "{mapping}"
    );
    assert!(
        mapping.contains("<option value=\"\">Kampagne wählen</option>"),
        "asked for: {mapping}"
    );
    let required = "<select id=\"campaign\" name=\"campaign\" required";
    assert!(mapping.contains(required), "the browser sends no check without one: {mapping}");
    pages.push(mapping);
    // She chooses the campaign and checks at once: no other button pressed.
    driver.click(&session, "//select[@id='campaign']/option[contains(., 'Spring Outreach')]");
    let address = driver.url(&session);
    driver.press_enter(&session, "//button[normalize-space()='Alle Zeilen prüfen']");
    let check = driver.settled(&session, &address);
    assert!(check.contains("Keine Einwilligung</strong>: Keine Einwilligung:"), "{check}");
    pages.push(check.clone());
    let checked = driver.url(&session);
    driver.screenshot(&session, "7-crm-check.png");

    // Nobody who said "nein" or nothing is ready to call; the others are.
    let text = std::fs::read_to_string(&csv).unwrap();
    let consent: Vec<(u64, bool)> = text
        .lines()
        .enumerate()
        .skip(3)
        .map(|(i, line)| (i as u64 + 1, line.split(';').nth(6) == Some("ja")))
        .collect();
    driver.call(
        &session,
        "POST",
        "url",
        serde_json::json!({"url": format!("{checked}?status=valid")}),
    );
    let valid = super::flow::rows_shown(&driver.source(&session));
    for (row, said_yes) in &consent {
        assert!(!valid.contains(row) || *said_yes, "row {row} said no but is ready: {valid:?}");
    }
    assert!(!valid.is_empty(), "those who said ja are ready");
    driver.call(&session, "POST", "url", serde_json::json!({"url": checked.clone()}));

    driver.press_enter(&session, "//button[contains(., 'Leads senden')]");
    let results = driver.settled(&session, &checked);
    assert!(results.contains("jetzt in der Kampagne „Spring Outreach“"), "{results}");
    pages.push(results);
    driver.screenshot(&session, "8-crm-results.png");
    driver.call(&session, "DELETE", "", serde_json::json!({}));

    let leads = sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap();
    assert_eq!(leads.len(), valid.len(), "the ready rows, each once");
    let numbers: Vec<&str> = leads.iter().map(|l| l.phone_number.as_str()).collect();
    assert!(numbers.iter().any(|n| n.starts_with("+43")), "AT rows in Austria: {numbers:?}");
    assert!(numbers.iter().any(|n| n.starts_with("+41")), "CH rows in Switzerland: {numbers:?}");
    for page in &pages {
        assert_german(page);
    }
}

/// Opens the printed address, switches the page to German and uploads `file` with the button,
/// as a person does.
fn upload_in_german(driver: &WebDriver, ui: &TestUi, session: &str, file: &Path) {
    driver.call(session, "POST", "url", serde_json::json!({"url": ui.ui().url()}));
    driver.call(session, "POST", "url", serde_json::json!({"url": ui.url("/?lang=de")}));
    let field = driver.by_label(session, "Tabellendatei");
    let typed = serde_json::json!({"text": file.display().to_string()});
    driver.call(session, "POST", &format!("element/{field}/value"), typed);
    driver.press_enter(session, "//button[normalize-space()='Hochladen']");
}

/// A German page's words: no reason code outside its small label, and none of the catalog's
/// English titles, hints or status words.
fn assert_german(page: &str) {
    use leadsync::row::{IssueCode, Lang, RowStatus};
    let text = visible_text(page);
    // The terminal's quoting, which every English row message uses and no German one does.
    assert!(!text.contains('`'), "a backtick on a German page: {text}");
    for code in IssueCode::ALL {
        assert!(
            !text.contains(code.as_str()),
            "the code {} in German words: {text}",
            code.as_str()
        );
        for english in [code.title(Lang::En), code.todo(Lang::En)] {
            assert!(!text.contains(english), "English `{english}` on a German page: {text}");
        }
    }
    for status in RowStatus::ALL {
        let english = status.word(Lang::En);
        assert!(!text.contains(english), "English `{english}` on a German page: {text}");
    }
}

/// The check above can fail: an English title, a code outside its label, English status words.
#[test]
fn the_german_words_check_sees_english() {
    let german = "<body><p>Keine Einwilligung <small class=\"code\">no_consent</small></p></body>";
    assert_german(german);
    for english in ["<body>No consent</body>", "<body>Grund: no_consent</body>"] {
        let english = english.to_string();
        assert!(std::panic::catch_unwind(move || assert_german(&english)).is_err());
    }
}

/// What a person reads on a page: its text without tags, without the small code labels kept
/// for people who script.
fn visible_text(page: &str) -> String {
    let body = page.split("<body").nth(1).unwrap_or(page);
    let mut out = String::new();
    let mut rest = body;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if rest.starts_with("<small class=\"code\">") {
            rest = &rest[rest.find("</small>").unwrap_or(rest.len())..];
        }
        rest = &rest[rest.find('>').map_or(rest.len(), |end| end + 1)..];
    }
    out.push_str(rest);
    out
}

/// A send interrupted in the browser and resumed from it: Chromium checks leads.csv with
/// duplicates allowed (so the service would take a row sent twice, and the count would show
/// it), sends at 2 a second, presses "Stop sending" midway, leaves for the Source page as if
/// the tab had been closed, finds the stopped send in its list, and presses "Send the rest".
/// The sandbox then holds every valid row exactly once.
#[test]
fn chromium_stops_a_send_midway_and_sends_the_rest_exactly_once() {
    let Some(driver) = WebDriver::start_or_skip() else { return };
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 2.0, 1);
    let session = driver.session(&ui.dir.path().join("chromium-profile"));
    driver.call(&session, "POST", "url", serde_json::json!({"url": ui.ui().url()}));
    let location = driver.by_label(&session, "Path or link");
    let keys = format!("{}\u{E007}", sample("leads.csv").display());
    driver.call(
        &session,
        "POST",
        &format!("element/{location}/value"),
        serde_json::json!({"text": keys}),
    );
    driver.press_enter(&session, "//a[normalize-space()='Next: the columns']");
    driver.click(&session, "//select[@id='campaign']/option[contains(., 'Spring Outreach')]");
    driver.click(&session, "//input[@name='allow_duplicates']");
    let mapping = driver.url(&session);
    driver.press_enter(&session, "//button[normalize-space()='Check all rows']");
    let check = driver.settled(&session, &mapping);
    let valid: usize = check
        .split("<div data-status=\"valid\"><dt>")
        .nth(1)
        .and_then(|d| d.split("<dd>").nth(1)?.split('<').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{check}"));
    assert!(valid >= 8, "enough to stop midway: {check}");
    let checked = driver.url(&session);
    driver.press_enter(&session, "//button[contains(., 'leads')]");
    let leads = || sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap().len();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    // The page reloads itself while it sends: a press can land on a page on its way out, and
    // a find must not wait for a button while the send goes on without it.
    driver.call(&session, "POST", "timeouts", serde_json::json!({"implicit": 0}));
    while leads() == 0
        || !driver.try_press_enter(&session, "//button[normalize-space()='Stop sending']")
    {
        assert!(std::time::Instant::now() < deadline, "{}", driver.source(&session));
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    driver.call(&session, "POST", "timeouts", serde_json::json!({"implicit": 15_000}));
    let stopped = driver.settled(&session, &checked);
    assert!(stopped.contains("Paused. "), "{stopped}");
    let first = leads();
    assert!(first > 0 && first < valid, "stopped midway: {first} of {valid}");
    driver.screenshot(&session, "6-stopped.png");

    // The tab closed: the app opened again lists the stopped send.
    driver.call(&session, "POST", "url", serde_json::json!({"url": ui.url("/")}));
    driver.press_enter(&session, "//ul[@class='runs']//a[contains(., 'Send')]");
    let send = driver.url(&session);
    let page = driver.source(&session);
    assert!(page.contains("Send the rest"), "{page}");
    driver.press_enter(&session, "//button[normalize-space()='Send the rest']");
    let rest = driver.settled(&session, &send);
    assert!(!rest.contains("Paused. "), "{rest}");
    assert_eq!(leads(), valid, "every valid row once, none twice");
    driver.call(&session, "DELETE", "", serde_json::json!({}));
}

/// A chromedriver child on a free port, killed when dropped.
struct WebDriver {
    child: std::process::Child,
    /// Sessions still open: closed when the driver is dropped, so a failed test leaves no
    /// Chromium behind.
    sessions: std::cell::RefCell<Vec<String>>,
    base: String,
    runtime: tokio::runtime::Runtime,
    http: reqwest::Client,
}

impl WebDriver {
    /// The driver; `None`, saying so, where `chromedriver` is missing, except on CI.
    fn start_or_skip() -> Option<WebDriver> {
        let driver = WebDriver::start();
        if driver.is_none() {
            assert!(
                !on_ci(),
                "`chromedriver` is not on PATH, and CI is set: install chromium-driver"
            );
            eprintln!(
                "notice: `chromedriver` is not on PATH; skipping the WebDriver check of the UI"
            );
        }
        driver
    }

    fn start() -> Option<WebDriver> {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = match Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => panic!("cannot run `chromedriver`: {e}"),
        };
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let sessions = std::cell::RefCell::new(Vec::new());
        let driver = WebDriver { child, sessions, base, runtime, http };
        for _ in 0..300 {
            let ready =
                driver.runtime.block_on(driver.http.get(format!("{}/status", driver.base)).send());
            if ready.is_ok_and(|r| r.status().is_success()) {
                return Some(driver);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("chromedriver did not start");
    }

    fn session(&self, profile: &Path) -> String {
        let capabilities = serde_json::json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         "--lang=en-US", "--window-size=1200,1100", format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let reply = self.send("POST", format!("{}/session", self.base), capabilities);
        let session = reply["value"]["sessionId"].as_str().unwrap().to_string();
        self.sessions.borrow_mut().push(session.clone());
        // Enter on a control returns before the page it leads to has come: a find waits for
        // its element up to this long, as a person waits for the page.
        self.call(&session, "POST", "timeouts", serde_json::json!({"implicit": 15_000}));
        session
    }

    fn send(&self, method: &str, url: String, body: serde_json::Value) -> serde_json::Value {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        self.runtime.block_on(async {
            let mut request = self.http.request(method, &url);
            if !body.is_null() {
                request = request.json(&body);
            }
            let reply = request.send().await.unwrap();
            let status = reply.status();
            let value: serde_json::Value = reply.json().await.unwrap();
            assert!(status.is_success(), "{url}: {status} {value}");
            value
        })
    }

    /// A WebDriver command of `session`; `path` is what follows `/session/{id}/`.
    fn call(
        &self,
        session: &str,
        method: &str,
        path: &str,
        body: serde_json::Value,
    ) -> serde_json::Value {
        let url = format!("{}/session/{session}/{path}", self.base);
        self.send(method, url.trim_end_matches('/').to_string(), body)
    }

    fn url(&self, session: &str) -> String {
        self.call(session, "GET", "url", serde_json::Value::Null)["value"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn source(&self, session: &str) -> String {
        self.call(session, "GET", "source", serde_json::Value::Null)["value"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The window as a PNG, kept with the other screenshots.
    fn screenshot(&self, session: &str, name: &str) {
        let shot = self.call(session, "GET", "screenshot", serde_json::Value::Null);
        let png = base64_decode(shot["value"].as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"), "{name} is not a PNG");
        std::fs::write(screenshots().join(name), png).unwrap();
    }

    /// The element an XPath finds.
    fn find(&self, session: &str, xpath: &str) -> String {
        let found = self.call(
            session,
            "POST",
            "element",
            serde_json::json!({"using": "xpath", "value": xpath}),
        );
        let id = found["value"]["element-6066-11e4-a52e-4f735466cecf"].as_str();
        id.unwrap_or_else(|| panic!("{xpath}: {found}")).to_string()
    }

    /// Waits (bounded) until the window shows an address containing `part`: a form's answer
    /// can come after the click that sent it has returned, on a loaded machine.
    fn wait_for_address(&self, session: &str, part: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while !self.url(session).contains(part) {
            assert!(std::time::Instant::now() < deadline, "{}", self.source(session));
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Presses Enter on the element an XPath finds, as a person on the keyboard does once it
    /// has focus: a link is followed, a button pressed. No mouse.
    fn press_enter(&self, session: &str, xpath: &str) {
        let element = self.find(session, xpath);
        let enter = serde_json::json!({"text": "\u{E007}"});
        self.call(session, "POST", &format!("element/{element}/value"), enter);
    }

    /// The page at a new address (a click returns before the form's answer has come) once it
    /// no longer reloads itself (a check or a send finished), bounded.
    fn settled(&self, session: &str, left: &str) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            // The address before and after the source: the same run's page, not the one left
            // nor a form's address (`/send/…`) still on its way to its answer.
            let before = self.url(session);
            let page = self.source(session);
            let arrived = before != left && before.contains("/run/") && self.url(session) == before;
            if arrived && !page.contains("data-refresh") {
                return page;
            }
            assert!(std::time::Instant::now() < deadline, "never finished: {page}");
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }

    /// Clicks the element an XPath finds (a select's option, a checkbox).
    fn click(&self, session: &str, xpath: &str) {
        let element = self.find(session, xpath);
        self.call(session, "POST", &format!("element/{element}/click"), serde_json::json!({}));
    }

    /// Enter on the element an XPath finds, if it is there and still on the page; false if the
    /// page went away under it.
    fn try_press_enter(&self, session: &str, xpath: &str) -> bool {
        let url = |path: &str| format!("{}/session/{session}/{path}", self.base);
        self.runtime.block_on(async {
            let find = serde_json::json!({"using": "xpath", "value": xpath});
            let Ok(reply) = self.http.post(url("element")).json(&find).send().await else {
                return false;
            };
            let found: serde_json::Value = reply.json().await.unwrap_or_default();
            let Some(id) = found["value"]["element-6066-11e4-a52e-4f735466cecf"].as_str() else {
                return false;
            };
            let enter = serde_json::json!({"text": "\u{E007}"});
            let pressed = self.http.post(url(&format!("element/{id}/value"))).json(&enter).send();
            pressed.await.is_ok_and(|r| r.status().is_success())
        })
    }

    /// The control a `<label>` with this text names.
    fn by_label(&self, session: &str, label: &str) -> String {
        self.find(session, &format!("//*[@id=//label[normalize-space()='{label}']/@for]"))
    }
}

impl Drop for WebDriver {
    fn drop(&mut self) {
        for session in self.sessions.take() {
            let url = format!("{}/session/{session}", self.base);
            let _ = self.runtime.block_on(self.http.delete(url).send());
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where the browser tests keep their screenshots: `target/tmp/ui-screenshots/`.
fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Standard base64 (WebDriver's screenshots), padding and line breaks ignored.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> =
        text.bytes().filter(|c| !matches!(c, b'=' | b'\n' | b'\r')).map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let bits =
            chunk.iter().enumerate().fold(0u32, |acc, (i, &d)| acc | u32::from(d) << (18 - 6 * i));
        out.extend_from_slice(&bits.to_be_bytes()[1..chunk.len()]);
    }
    out
}

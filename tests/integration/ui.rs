//! `leadsync ui` over real HTTP: the server the command starts (`leadsync::ui::Ui`, on a free
//! loopback port), driven as a browser would drive it, and the door checks a browser cannot
//! be trusted to make (a wrong Host, another site's Origin, no key).

use std::cell::RefCell;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use leadsync::ui::{CONTENT_SECURITY_POLICY_VALUE, Ui, UiConfig};
use reqwest::header::{self, HeaderMap};

use crate::support::{ALICE, Cli, TestSandbox, serve};

/// A UI server on a free port with its own state folder, and every answer it gave.
struct TestUi {
    runtime: tokio::runtime::Runtime,
    ui: Option<Ui>,
    dir: tempfile::TempDir,
    http: reqwest::Client,
    /// Every answer's headers and body, for the test that looks for the token in them.
    seen: RefCell<Vec<String>>,
}

/// One answer.
struct Reply {
    status: u16,
    headers: HeaderMap,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", |v| v.to_str().unwrap())
    }
}

impl TestUi {
    fn start() -> TestUi {
        TestUi::with(|_| {})
    }

    fn with(adjust: impl FnOnce(&mut UiConfig)) -> TestUi {
        let dir = tempfile::tempdir().unwrap();
        let mut config = UiConfig::new(dir.path().join("state"));
        adjust(&mut config);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let ui = runtime.block_on(Ui::start(config)).unwrap();
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        TestUi { runtime, ui: Some(ui), dir, http, seen: RefCell::new(Vec::new()) }
    }

    fn ui(&self) -> &Ui {
        self.ui.as_ref().unwrap()
    }

    /// `http://127.0.0.1:PORT`, what the browser's `Origin` says on this server's pages.
    fn origin(&self) -> String {
        format!("http://{}", self.ui().addr)
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin())
    }

    fn send(&self, request: reqwest::RequestBuilder) -> Reply {
        let reply = self.runtime.block_on(async {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let body = response.text().await.unwrap();
            Reply { status, headers, body }
        });
        self.seen.borrow_mut().push(format!("{:?}\n{}", reply.headers, reply.body));
        reply
    }

    /// Opens the printed URL and returns the cookie it sets, as `name=value`.
    fn login(&self) -> String {
        let reply = self.send(self.http.get(self.ui().url()));
        assert_eq!(reply.status, 303, "{}", reply.body);
        let cookie = reply.header("set-cookie");
        cookie.split(';').next().unwrap().trim().to_string()
    }

    fn get(&self, path: &str, cookie: &str) -> Reply {
        self.send(self.http.get(self.url(path)).header(header::COOKIE, cookie))
    }

    /// A POST as this server's own page sends it: the cookie and the same Origin.
    fn post(&self, path: &str, cookie: &str) -> reqwest::RequestBuilder {
        self.http
            .post(self.url(path))
            .header(header::COOKIE, cookie)
            .header(header::ORIGIN, self.origin())
    }

    /// Uploads `bytes` as `name` through the Source page's form; returns the answer.
    fn upload(&self, cookie: &str, name: &str, bytes: &[u8]) -> Reply {
        let (content_type, body) = multipart("file", name, bytes);
        self.send(
            self.post("/source/upload", cookie)
                .header(header::CONTENT_TYPE, content_type)
                .body(body),
        )
    }

    /// Uploads and follows the redirect: the Reading page's path.
    fn upload_ok(&self, cookie: &str, name: &str, bytes: &[u8]) -> String {
        let reply = self.upload(cookie, name, bytes);
        assert_eq!(reply.status, 303, "{}", reply.body);
        let location = reply.header("location").to_string();
        assert!(location.starts_with("/reading/"), "{location}");
        location
    }

    fn uploads(&self) -> PathBuf {
        self.dir.path().join("state/ui/uploads")
    }
}

impl Drop for TestUi {
    fn drop(&mut self) {
        if let Some(ui) = self.ui.take() {
            self.runtime.block_on(ui.shutdown());
        }
    }
}

/// A multipart/form-data body with one file field, as a browser builds it.
fn multipart(field: &str, name: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "----leadsyncTestBoundary7MA4YWxkTrZu0gW";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(name)
}

fn leads_csv() -> Vec<u8> {
    std::fs::read(sample("leads.csv")).unwrap()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return files };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn the_printed_url_trades_its_secret_for_a_cookie() {
    let ui = TestUi::start();
    let url = ui.ui().url().to_string();
    let secret = url.split("/?s=").nth(1).unwrap();
    assert_eq!(secret.len(), 64, "{url}");
    assert!(secret.bytes().all(|b| b.is_ascii_hexdigit()), "{url}");

    let reply = ui.send(ui.http.get(&url));
    assert_eq!(reply.status, 303);
    assert_eq!(reply.header("location"), "/", "the secret leaves the address bar");
    let cookie = reply.header("set-cookie");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.split("; ").any(|a| a == attribute), "{attribute} missing: {cookie}");
    }
    let pair = cookie.split(';').next().unwrap();
    assert_eq!(pair.split_once('=').unwrap().1, secret);

    let page = ui.get("/", pair);
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<form method=\"post\" action=\"/source/upload\""), "{}", page.body);
    // Other query parameters survive the trade.
    let reply = ui.send(ui.http.get(format!("{}/?lang=de&s={secret}", ui.origin())));
    assert_eq!(reply.header("location"), "/?lang=de");
}

#[test]
fn no_secret_no_page() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let name = cookie.split('=').next().unwrap();
    let refused = |reply: Reply| {
        assert_eq!(reply.status, 403, "{}", reply.body);
        assert!(reply.header("set-cookie").is_empty());
        assert!(reply.body.contains("leadsync ui"), "says what to open: {}", reply.body);
    };
    refused(ui.send(ui.http.get(ui.url("/"))));
    refused(ui.send(ui.http.get(ui.url("/assets/ui.css"))));
    refused(ui.send(ui.http.get(ui.url("/?s=0123"))));
    let wrong = "0".repeat(64);
    refused(ui.send(ui.http.get(ui.url(&format!("/?s={wrong}")))));
    refused(ui.get("/", &format!("{name}={wrong}")));
    refused(ui.get("/", &format!("{name}=")));
    refused(ui.get("/", &format!("leadsync_ui_1={}", cookie.split('=').nth(1).unwrap())));
    // The secret is for opening the page, not for sending forms.
    let secret = ui.ui().url().split("/?s=").nth(1).unwrap().to_string();
    let form = ui
        .http
        .post(ui.url(&format!("/source/location?s={secret}")))
        .header(header::ORIGIN, ui.origin())
        .form(&[("location", sample("leads.csv"))]);
    refused(ui.send(form));
}

#[test]
fn a_wrong_host_is_refused() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let port = ui.ui().addr.port();
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "127.0.0.1".to_string(),
        format!("localhost.evil.example:{port}"),
    ] {
        let reply = ui.send(
            ui.http.get(ui.url("/")).header(header::COOKIE, &cookie).header(header::HOST, &host),
        );
        assert_eq!(reply.status, 403, "Host {host}: {}", reply.body);
    }
    // Not even the secret gets a cookie under another name (DNS rebinding).
    let reply =
        ui.send(ui.http.get(ui.ui().url()).header(header::HOST, format!("evil.example:{port}")));
    assert_eq!(reply.status, 403);
    assert!(reply.header("set-cookie").is_empty());
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let reply = ui.send(
            ui.http.get(ui.url("/")).header(header::COOKIE, &cookie).header(header::HOST, &host),
        );
        assert_eq!(reply.status, 200, "Host {host}: {}", reply.body);
    }
}

#[test]
fn a_post_from_another_origin_or_none_is_refused() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let form = [("location", sample("leads.csv"))];
    let post = || ui.http.post(ui.url("/source/location")).header(header::COOKIE, &cookie);
    for origin in ["http://evil.example", "null", "http://localhost:1", "https://127.0.0.1"] {
        let reply = ui.send(post().header(header::ORIGIN, origin).form(&form));
        assert_eq!(reply.status, 403, "Origin {origin}: {}", reply.body);
    }
    let reply = ui.send(post().form(&form));
    assert_eq!(reply.status, 403, "a POST without Origin: {}", reply.body);
    let (content_type, body) = multipart("file", "leads.csv", &leads_csv());
    let reply = ui.send(
        ui.http
            .post(ui.url("/source/upload"))
            .header(header::COOKIE, &cookie)
            .header(header::ORIGIN, "http://evil.example")
            .header(header::CONTENT_TYPE, content_type)
            .body(body),
    );
    assert_eq!(reply.status, 403);
    assert!(files_under(&ui.uploads()).is_empty(), "a refused upload leaves nothing");
    // A GET that names another origin is refused too.
    let reply = ui.send(
        ui.http
            .get(ui.url("/"))
            .header(header::COOKIE, &cookie)
            .header(header::ORIGIN, "http://evil.example"),
    );
    assert_eq!(reply.status, 403);
    // The same form from the page itself goes through.
    let reply = ui.send(ui.post("/source/location", &cookie).form(&form));
    assert_eq!(reply.status, 303, "{}", reply.body);
}

#[test]
fn every_answer_carries_the_security_headers_and_pages_load_nothing_from_outside() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let mapping = reading.replace("/reading/", "/mapping/");
    let pages = [
        ui.get("/", &cookie),
        ui.get(&reading, &cookie),
        ui.get(&format!("{reading}?header_row=2&delimiter=%3B"), &cookie),
        ui.get(&mapping, &cookie),
        ui.get("/nowhere", &cookie),
        ui.get("/reading/0000000000000000", &cookie),
        ui.send(ui.http.get(ui.url("/"))),
    ];
    assert_eq!(
        pages.iter().map(|p| p.status).collect::<Vec<_>>(),
        [200, 200, 200, 200, 404, 404, 403]
    );
    for page in &pages {
        assert_eq!(page.header("content-security-policy"), CONTENT_SECURITY_POLICY_VALUE);
        assert_eq!(page.header("x-content-type-options"), "nosniff");
        assert_eq!(page.header("referrer-policy"), "same-origin");
        assert!(
            page.header("content-type").starts_with("text/html"),
            "{}",
            page.header("content-type")
        );
        outside_nothing(&page.body);
    }
    assert!(CONTENT_SECURITY_POLICY_VALUE.contains("default-src 'self'"));
    assert!(CONTENT_SECURITY_POLICY_VALUE.contains("script-src 'self';"));
    assert!(!CONTENT_SECURITY_POLICY_VALUE.contains("unsafe-inline"));
    let css = ui.get("/assets/ui.css", &cookie);
    assert_eq!((css.status, css.header("content-type")), (200, "text/css; charset=utf-8"));
    assert_eq!(css.header("x-content-type-options"), "nosniff");
    let js = ui.get("/assets/ui.js", &cookie);
    assert_eq!(js.status, 200);
    assert!(!js.body.contains("http"), "the script loads nothing");
}

/// Every `src` and `href` stays on this server, and there is no inline script or style that the
/// CSP would block (so a page that works in the test works under its policy).
fn outside_nothing(html: &str) {
    for attribute in ["src=\"", "href=\"", "action=\""] {
        for (at, _) in html.match_indices(attribute) {
            let value = &html[at + attribute.len()..];
            assert!(
                value.starts_with('/') || value.starts_with('?'),
                "{attribute} leaves the server: {}",
                &value[..value.len().min(60)]
            );
        }
    }
    assert!(!html.contains(" style="), "an inline style attribute");
    assert!(!html.contains("<style"), "an inline style element");
    assert_eq!(html.matches("<script").count(), html.matches("<script src=\"/assets/").count());
    assert!(
        !html.contains(" onclick=") && !html.contains(" onload=") && !html.contains(" onsubmit=")
    );
}

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
        "<dt>Header row</dt><dd>1</dd>",
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
    assert!(again.body.contains("<dt>Header row</dt><dd>2</dd>"), "{}", again.body);
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
    assert!(page.body.contains("<dt>Header row</dt><dd>3</dd>"), "{}", page.body);
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
    assert!(page.body.contains("<dt>Header row</dt><dd>5</dd>"), "{}", page.body);
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
        mapping
            .body
            .contains("<th scope=\"row\">Telefon</th><td>Phone number</td><td>0151 23456789</td>"),
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
    for row in [
        "<th scope=\"row\">Telefon</th><td>Phone number</td><td>0151 23456789</td>",
        "<th scope=\"row\">Mobile 2</th><td>Another number of the same contact</td>",
        "<th scope=\"row\">Kampagne</th><td>Campaign</td>",
        "<th scope=\"row\">Name</th><td>Variable `customer_name`</td>",
    ] {
        assert!(reply.body.contains(row), "missing {row:?} in:\n{}", reply.body);
    }
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
    for path in ["/".to_string(), reading.clone(), format!("{reading}?sheet=x&header_row=99")] {
        let page = ui.get(&path, &cookie);
        for tag in ["<input ", "<select "] {
            for (at, _) in page.body.match_indices(tag) {
                let rest = &page.body[at..];
                let id = rest.split("id=\"").nth(1).unwrap().split('"').next().unwrap();
                assert!(
                    page.body.contains(&format!("<label for=\"{id}\">")),
                    "{path}: no label for #{id}"
                );
            }
        }
    }
}

#[test]
fn the_service_token_is_in_no_answer() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| config.client = Some(sandbox.client(ALICE)));
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let page = ui.get("/", &cookie);
    let port = url::Url::parse(&sandbox.base_url).unwrap().port().unwrap();
    assert!(page.body.contains(&format!("Service: 127.0.0.1:{port}</p>")), "{}", page.body);
    ui.get(&reading, &cookie);
    ui.get(&reading.replace("/reading/", "/mapping/"), &cookie);
    ui.get("/?lang=de", &cookie);
    ui.get("/assets/ui.js", &cookie);
    ui.get("/assets/ui.css", &cookie);
    ui.get("/nowhere", &cookie);
    ui.send(ui.http.get(ui.url("/")));
    ui.send(ui.post("/source/location", &cookie).form(&[("location", "/nowhere.csv")]));
    let seen = ui.seen.borrow();
    assert!(seen.len() >= 10);
    for answer in seen.iter() {
        assert!(!answer.contains(ALICE), "the token was sent to the browser:\n{answer}");
    }
}

#[test]
fn a_bind_address_for_every_interface_is_refused() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for ip in ["0.0.0.0", "::"] {
        let config =
            UiConfig { ip: ip.parse().unwrap(), ..UiConfig::new(dir.path().to_path_buf()) };
        let error = runtime.block_on(Ui::start(config)).unwrap_err().to_string();
        assert!(error.contains("every address"), "{error}");
    }
}

/// `--bind` says out loud that it opens the page to the network, and an address that means
/// every interface is refused before anything listens.
#[test]
fn leadsync_ui_warns_about_bind_and_refuses_every_interface() {
    let state = tempfile::tempdir().unwrap();
    let (stdout, stderr) = Cli::new()
        .args(["ui", "--no-open", "--bind", "0.0.0.0"])
        .env("LEADSYNC_STATE_DIR", state.path())
        .expect_code(1);
    assert!(stdout.is_empty(), "no address printed: {stdout}");
    assert!(stderr.contains("warning: listening on 0.0.0.0: other machines"), "{stderr}");
    assert!(stderr.contains("`0.0.0.0` means every address of this machine"), "{stderr}");
}

/// The command: the URL is the first line on stdout, and it opens the page.
#[test]
fn leadsync_ui_prints_its_url_first() {
    let state = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_leadsync"))
        .args(["--sandbox", "ui", "--no-open", "--port", "0"])
        .env("LEADSYNC_STATE_DIR", state.path())
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let url = line.trim().to_string();
    let opened = || {
        assert!(url.starts_with("http://127.0.0.1:") && url.contains("/?s="), "{url:?}");
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        runtime.block_on(async {
            let reply = http.get(&url).send().await.unwrap();
            assert_eq!(reply.status(), 303);
            let cookie = reply.headers()["set-cookie"]
                .to_str()
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .to_string();
            let base = url.split("/?s=").next().unwrap();
            let page =
                http.get(format!("{base}/")).header(header::COOKIE, cookie).send().await.unwrap();
            assert_eq!(page.status(), 200);
            let body = page.text().await.unwrap();
            assert!(body.contains("the built-in sandbox"), "{body}");
            assert!(!body.contains(leadsync::sandbox::DEMO_TOKEN));
        });
    };
    let result = std::panic::catch_unwind(opened);
    let _ = child.kill();
    let _ = child.wait();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

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
    let Some(driver) = WebDriver::start() else {
        assert!(!on_ci(), "`chromedriver` is not on PATH, and CI is set: install chromium-driver");
        eprintln!("notice: `chromedriver` is not on PATH; skipping the WebDriver check of the UI");
        return;
    };
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
    assert!(driver.url(&session).contains("/reading/"), "{}", driver.source(&session));
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
    assert!(driver.url(&session).contains("/reading/"), "{}", driver.source(&session));
    let page = driver.source(&session);
    assert!(page.contains("Müller &amp; Söhne"), "{page}");
    assert_eq!(files_under(&ui.uploads()).len(), 1);
    driver.screenshot(&session, "2-reading.png");

    let next = driver.find(&session, "//a[normalize-space()='Next: the columns']");
    driver.call(&session, "POST", &format!("element/{next}/click"), serde_json::json!({}));
    let page = driver.source(&session);
    assert!(page.contains("<td>Phone number</td>"), "{page}");
    driver.screenshot(&session, "3-mapping.png");
    driver.call(&session, "DELETE", "", serde_json::json!({}));
}

/// A chromedriver child on a free port, killed when dropped.
struct WebDriver {
    child: std::process::Child,
    base: String,
    runtime: tokio::runtime::Runtime,
    http: reqwest::Client,
}

impl WebDriver {
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
        let driver = WebDriver { child, base: format!("http://127.0.0.1:{port}"), runtime, http };
        for _ in 0..100 {
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
        reply["value"]["sessionId"].as_str().unwrap().to_string()
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

    /// The control a `<label>` with this text names.
    fn by_label(&self, session: &str, label: &str) -> String {
        self.find(session, &format!("//*[@id=//label[normalize-space()='{label}']/@for]"))
    }
}

impl Drop for WebDriver {
    fn drop(&mut self) {
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

//! The door: the secret and its cookie, the Host, the Origin, the headers on every answer, and
//! the service token in none of them.

use leadsync::ui::{CONTENT_SECURITY_POLICY_VALUE, Ui, UiConfig};
use reqwest::header;

use super::{Reply, TestUi, files_under, leads_csv, multipart, sample};
use crate::support::{ALICE, TestSandbox};

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
        // In words, in both languages, without the terminal's.
        assert!(reply.body.contains("the link leadsync gave"), "says what to open: {}", reply.body);
        assert!(reply.body.contains("den Link, den leadsync"), "and in German: {}", reply.body);
        assert!(!reply.body.contains('`'), "{}", reply.body);
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
fn a_shadowing_cookie_of_the_same_name_does_not_lock_the_user_out() {
    // Another server on 127.0.0.1 (any port) can set `leadsync_ui_PORT=junk; Path=/run`: the
    // browser sends it before ours on every /run page.
    let ui = TestUi::start();
    let cookie = ui.login();
    let name = cookie.split('=').next().unwrap();
    let junk = format!("{name}={}", "0".repeat(64));
    for header in
        [format!("{junk}; {cookie}"), format!("{cookie}; {junk}"), format!("{name}=; {cookie}")]
    {
        let reply = ui.get("/", &header);
        assert_eq!(reply.status, 200, "Cookie: {header}: {}", reply.body);
    }
    // Two headers, the key in the second.
    let reply = ui.send(
        ui.http.get(ui.url("/")).header(header::COOKIE, &junk).header(header::COOKIE, &cookie),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    // Junk alone still opens nothing.
    assert_eq!(ui.get("/", &format!("{junk}; {name}=1")).status, 403);
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
    assert!(ui.seen.borrow().len() >= 10);
    ui.assert_token_never_sent();
}

#[test]
fn a_bind_address_for_every_interface_is_refused() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for ip in ["0.0.0.0", "::", "::ffff:0.0.0.0", "0:0:0:0:0:ffff:0:0"] {
        let config =
            UiConfig { ip: ip.parse().unwrap(), ..UiConfig::new(dir.path().to_path_buf()) };
        let error = runtime.block_on(Ui::start(config)).unwrap_err().to_string();
        assert!(error.contains("every address"), "{error}");
    }
}

/// What a file or a form can carry into a page: an element, an attribute broken out of, quotes.
const HOSTILE: [(&str, &str); 3] = [
    ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    (
        "\"><meta http-equiv=refresh content=0>",
        "&quot;&gt;&lt;meta http-equiv=refresh content=0&gt;",
    ),
    ("x\" onfocus=\"alert(2)", "x&quot; onfocus=&quot;alert(2)"),
];

/// No hostile value reaches `html` as markup: each is absent raw, and `shown` of them are there
/// escaped (so the test sees the values, not a page that left them out).
fn only_escaped(html: &str, shown: &[usize], page: &str) {
    for (raw, _) in HOSTILE {
        assert!(!html.contains(raw), "{page}: {raw} written raw:\n{html}");
    }
    assert!(!html.contains("<meta http-equiv"), "{page}: {html}");
    assert!(!html.contains("\" onfocus="), "{page}: {html}");
    assert_eq!(html.matches("<script").count(), 1, "{page}: only the page's own script: {html}");
    for &i in shown {
        assert!(html.contains(HOSTILE[i].1), "{page}: {} not shown escaped:\n{html}", HOSTILE[i].0);
    }
}

#[test]
fn values_from_the_sheet_and_the_form_reach_the_pages_only_escaped() {
    let ui = TestUi::start();
    let cookie = ui.login();
    // Hostile headers and cells, and a row the check rejects so its problems are shown too.
    let line = |cells: [&str; 4]| {
        let quoted: Vec<String> =
            cells.iter().map(|c| format!("\"{}\"", c.replace('"', "\"\""))).collect();
        quoted.join(";") + "\n"
    };
    let [h0, h1, h2] = HOSTILE.map(|(raw, _)| raw);
    let csv = line(["Telefon", h0, h1, h2])
        + &line(["030 1234567", h0, h1, h2])
        + &line(["not a number", h2, h0, h1]);
    let reading = ui.upload_ok(&cookie, "hostile.csv", csv.as_bytes());
    let id = reading.trim_start_matches("/reading/").to_string();
    let page = ui.get(&format!("{reading}?delimiter=%3B"), &cookie);
    only_escaped(&page.body, &[0, 1, 2], "Reading");

    // The region and the campaign as the form sent them, shown again on the Mapping page.
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("delimiter", ";")
        .append_pair("region", HOSTILE[1].0)
        .append_pair("campaign", HOSTILE[2].0)
        .finish();
    let page = ui.get(&format!("/mapping/{id}?{query}"), &cookie);
    assert_eq!(page.status, 200, "{}", page.body);
    only_escaped(&page.body, &[0, 1, 2], "Mapping");
    let region = format!("name=\"region\" value=\"{}\"", HOSTILE[1].1);
    assert!(page.body.contains(&region), "the region, escaped in its field: {}", page.body);
    let campaign = format!("aria-describedby=\"campaign-hint\" value=\"{}\"", HOSTILE[2].1);
    assert!(page.body.contains(&campaign), "the campaign, escaped in its field: {}", page.body);

    // A check with a hostile region and campaign: the library refuses the region, and the
    // page names it, escaped.
    let form = [("delimiter", ";"), ("region", HOSTILE[1].0), ("campaign", HOSTILE[2].0)];
    let reply = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form));
    let run = super::flow::redirected(&reply, "/run/");
    only_escaped(&super::flow::finished(&ui, &cookie, &run).body, &[1], "Check, hostile form");

    // A check that runs: the rows' cells in the table and on a row's page.
    let form = [("delimiter", ";"), ("region", "DE"), ("campaign", "7")];
    let reply = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form));
    let run = super::flow::redirected(&reply, "/run/");
    let page = super::flow::finished(&ui, &cookie, &run);
    only_escaped(&page.body, &[0, 1, 2], "Check");
    let rows = super::flow::rows_shown(&page.body);
    assert_eq!(rows.len(), 2, "both rows in the table: {}", page.body);
    for row in rows {
        let page = ui.get(&format!("{run}/row/{row}"), &cookie);
        assert_eq!(page.status, 200, "{}", page.body);
        only_escaped(&page.body, &[0, 1, 2], "row");
    }
}

/// A service (or a proxy before it) that repeats the request's `Authorization` in its answers,
/// for every kind of answer the client tells apart: the token shows nowhere, not on the page,
/// not in the run's files, not on a `-v` terminal.
#[test]
fn a_service_that_echoes_the_token_never_gets_it_shown() {
    use leadsync::sandbox::{EchoAuth, Faults};

    use super::flow::{finished, redirected};

    for status in [400, 401, 404, 422, 500, 200] {
        // A failed write is "in doubt" and says so in its own words; a failed read says the
        // service's: a 500 and an HTML 200 are echoed by the campaign list the check reads.
        let read = matches!(status, 500 | 200);
        let path = if read { "/api/user/campaigns" } else { "/api/user/lead" };
        let echo = EchoAuth { path: path.into(), status };
        let sandbox =
            TestSandbox::with_faults(Faults { echo_auth: Some(echo), ..Faults::default() });
        let ui = TestUi::with(|config| {
            config.client = Some(sandbox.client(ALICE));
            config.push.rate = 0.0;
            config.push.max_retries = 0;
            config.push.backoff = std::time::Duration::from_millis(1);
        });
        let cookie = ui.login();
        let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
        let id = reading.trim_start_matches("/reading/").to_string();
        let form = [("campaign", ""), ("region", "DE"), ("sheet", ""), ("header_row", "")];
        let check =
            redirected(&ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form)), "/run/");
        let mut results = finished(&ui, &cookie, &check);
        let mut send = check.clone();
        if !read {
            send =
                redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie)), "/run/");
            results = finished(&ui, &cookie, &send);
        }
        for name in ["report.json", "report.html", "report.csv", "fix.xlsx"] {
            ui.get(&format!("{send}/files/{name}"), &cookie);
        }
        let shown = ui.seen.borrow().iter().any(|answer| answer.contains("***"));
        assert!(shown, "{status}: the echo is shown, hidden: {}", results.body);
        ui.get("/", &cookie);
        ui.assert_token_never_sent();
        for file in files_under(ui.dir.path()) {
            let bytes = std::fs::read(&file).unwrap();
            let found = bytes.windows(ALICE.len()).any(|w| w == ALICE.as_bytes());
            assert!(!found, "{status}: the token is in {}", file.display());
        }

        let report = sandbox.path("r.json");
        let mut cli = sandbox
            .cli(ALICE)
            .args(["-vv", "import"])
            .args([sample("leads.csv")])
            .args(["--region", "DE", "--max-retries", "0", "--report"])
            .args([&report]);
        let output = cli.cmd.output().unwrap();
        let (out, err) = (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        );
        let report = std::fs::read_to_string(&report).unwrap_or_default();
        let said = format!("{err}{report}");
        assert!(said.contains("***"), "{status}: the echo is said, hidden:\n{said}");
        for text in [&out, &err, &report] {
            assert!(!text.contains(ALICE), "{status}: the token is printed:\n{text}");
        }
    }
}

/// The path field reads what a person could have uploaded, nothing of the machine's or of
/// leadsync's own: not the process's environment (the token is in it), not the token file by
/// any spelling, not the state folder, no device, no binary file; and shows none of their bytes.
#[test]
fn the_path_field_reads_no_private_file() {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys");
    std::fs::create_dir_all(&keys).unwrap();
    let token = keys.join("token");
    std::fs::write(&token, "Name,Phone\ntoken-in-a-file,1\n").unwrap();
    std::fs::write(keys.join("other.csv"), "Name,Phone\nkeys-folder,1\n").unwrap();
    let binary = dir.path().join("data.csv");
    std::fs::write(&binary, b"A=1\0B=2\0SECRET_BYTES=x\0").unwrap();
    std::os::unix::fs::symlink(&token, dir.path().join("link.csv")).unwrap();
    std::fs::create_dir(dir.path().join("up")).unwrap();
    let ui = TestUi::with(|config| config.private = vec![keys.clone()]);
    let cookie = ui.login();
    std::fs::create_dir_all(ui.dir.path().join("state/ui")).unwrap();
    std::fs::write(ui.dir.path().join("state/ui/x.csv"), "Name,Phone\nstate,1\n").unwrap();
    let d = dir.path().display();
    for typed in [
        "/proc/self/environ".to_string(),
        format!("/proc/{}/environ", std::process::id()),
        "/dev/zero".into(),
        "/sys/kernel/mm/transparent_hugepage/enabled".into(),
        token.display().to_string(),
        format!("{d}/link.csv"),
        format!("{d}/up/../keys/token"),
        format!("{d}/keys/other.csv"),
        format!("{}/state/ui/x.csv", ui.dir.path().display()),
        format!("{d}/data.csv"),
        d.to_string(),
    ] {
        let reply = ui.send(ui.post("/source/location", &cookie).form(&[("location", &typed)]));
        assert_eq!(reply.status, 422, "{typed} was read: {}", reply.body);
        for secret in ["token-in-a-file", "keys-folder", "state,1", "SECRET_BYTES", "LEADSYNC"] {
            assert!(!reply.body.contains(secret), "{typed}: {}", reply.body);
        }
    }
    // An ordinary sheet elsewhere is read, by a link too.
    let sheet = dir.path().join("leads.csv");
    std::fs::write(&sheet, leads_csv()).unwrap();
    let reply = ui.send(
        ui.post("/source/location", &cookie).form(&[("location", &sheet.display().to_string())]),
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
}

/// Slow clients hold nothing for long: 200 connections that never finish their headers, and
/// one that stops sending its body, do not keep the key holder from being answered, and are
/// cut once their time is up.
#[test]
fn slow_connections_are_cut_and_do_not_block_the_page() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::{Duration, Instant};

    let ui = TestUi::with(|config| {
        config.limits.header_timeout = Duration::from_secs(1);
        config.limits.body_idle = Duration::from_secs(1);
    });
    let cookie = ui.login();
    let addr = ui.ui().addr;
    let mut slow: Vec<TcpStream> = (0..200)
        .map(|_| {
            let mut stream = TcpStream::connect(addr).unwrap();
            stream.write_all(b"GET / HTTP/1.1\r\nHost: ").unwrap();
            stream
        })
        .collect();
    let mut stalled = TcpStream::connect(addr).unwrap();
    let head = format!(
        "POST /source/location HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nCookie: {cookie}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nlocation="
    );
    stalled.write_all(head.as_bytes()).unwrap();
    slow.push(stalled);

    let started = Instant::now();
    let page = ui.get("/", &cookie);
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(started.elapsed() < Duration::from_secs(1), "answered while they wait");

    for (at, stream) in slow.iter_mut().enumerate() {
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut buffer = [0u8; 1024];
        // Cut: the server closes (perhaps after a 408 or 400), it does not wait for more.
        let mut read = 0;
        loop {
            match stream.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => read += n,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                Err(e) => panic!("connection {at} still open after {:?}: {e}", started.elapsed()),
            }
        }
        assert!(read < 1024 * 16, "connection {at}: no page for a slow client");
    }
    assert!(started.elapsed() < Duration::from_secs(8), "{:?}", started.elapsed());
}

/// An upload named with 120 CJK letters (360 bytes, past a file system's 255) is kept under a
/// shorter name; and no page names the state folder's absolute path.
#[test]
fn a_long_upload_name_is_cut_and_no_page_names_the_state_folder() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let name = format!("{}.csv", "表".repeat(120));
    let reply = ui.upload(&cookie, &name, &leads_csv());
    let state = ui.dir.path().display().to_string();
    assert!(!reply.body.contains(&state), "{}", reply.body);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let page = ui.get(reply.header("location"), &cookie);
    assert_eq!(page.status, 200);
    assert!(!page.body.contains(&state), "{}", page.body);
}

/// The page speaks HTTP/1.1 only: an HTTP/2 client without TLS (which no browser is) gets no
/// HTTP/2 connection, whose slots the header timeout would not cut.
#[test]
fn an_http2_connection_is_not_served() {
    use std::io::{Read, Write};
    let ui = TestUi::start();
    let mut stream = std::net::TcpStream::connect(ui.ui().addr).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
    stream.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    // An empty SETTINGS frame, as a client sends after the preface.
    stream.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let settings_frame = answer.len() >= 9 && answer[3] == 4;
    assert!(!settings_frame, "an HTTP/2 answer: {answer:?}");
    assert!(answer.is_empty() || answer.starts_with(b"HTTP/1.1 4"), "{answer:?}");
}

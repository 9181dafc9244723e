//! `leadsync ui` over real HTTP: the server the command starts (`leadsync::ui::Ui`, on a free
//! loopback port), driven as a browser would drive it. `security` holds the door checks a
//! browser cannot be trusted to make (a wrong Host, another site's Origin, no key), `steps` the
//! pages, `command` the binary, `browser` real Chromium, `edits` the changes made to rows on the
//! Check page.

mod browser;
pub(crate) mod edits;
pub(crate) mod flow;
mod command;
mod security;
mod steps;
mod week;

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use leadsync::ui::{Ui, UiConfig};
use reqwest::header::{self, HeaderMap};

/// A UI server on a free port with its own state folder, and every answer it gave.
pub(crate) struct TestUi {
    runtime: tokio::runtime::Runtime,
    ui: Option<Ui>,
    dir: tempfile::TempDir,
    http: reqwest::Client,
    /// Every answer's headers and body, for the test that looks for the token in them.
    seen: RefCell<Vec<String>>,
}

/// One answer.
pub(crate) struct Reply {
    pub(crate) status: u16,
    headers: HeaderMap,
    pub(crate) body: String,
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

    pub(crate) fn with(adjust: impl FnOnce(&mut UiConfig)) -> TestUi {
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

    /// A UI that sends to `sandbox` as ALICE at `rate` a second (0: no limit), `concurrency`
    /// requests at once.
    fn sending_to(sandbox: &crate::support::TestSandbox, rate: f64, concurrency: usize) -> TestUi {
        TestUi::with(|config| {
            config.client = Some(sandbox.client(crate::support::ALICE));
            config.push.rate = rate;
            config.push.concurrency = concurrency;
        })
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

    pub(crate) fn send(&self, request: reqwest::RequestBuilder) -> Reply {
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

    /// No answer the UI gave so far, headers or body, carries the service token; and there
    /// were answers, so an empty record cannot pass for a clean one.
    fn assert_token_never_sent(&self) {
        let seen = self.seen.borrow();
        assert!(!seen.is_empty(), "no answer of the UI was recorded");
        for answer in seen.iter() {
            let token = crate::support::ALICE;
            assert!(!answer.contains(token), "the token was sent to the browser:\n{answer}");
        }
    }

    /// Opens the printed URL and returns the cookie it sets, as `name=value`.
    pub(crate) fn login(&self) -> String {
        let reply = self.send(self.http.get(self.ui().url()));
        assert_eq!(reply.status, 303, "{}", reply.body);
        let cookie = reply.header("set-cookie");
        cookie.split(';').next().unwrap().trim().to_string()
    }

    pub(crate) fn get(&self, path: &str, cookie: &str) -> Reply {
        self.send(self.http.get(self.url(path)).header(header::COOKIE, cookie))
    }

    /// A POST as this server's own page sends it: the cookie and the same Origin.
    pub(crate) fn post(&self, path: &str, cookie: &str) -> reqwest::RequestBuilder {
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
    pub(crate) fn upload_ok(&self, cookie: &str, name: &str, bytes: &[u8]) -> String {
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
    multipart_form(&[], field, name, bytes)
}

/// A multipart body as a browser sends a form with a file: its text fields, then the file.
fn multipart_form(
    fields: &[(&str, &str)],
    field: &str,
    name: &str,
    bytes: &[u8],
) -> (String, Vec<u8>) {
    let boundary = "----leadsyncTestBoundary7MA4YWxkTrZu0gW";
    let mut body = String::new();
    for (key, value) in fields {
        body.push_str(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{key}\"\r\n\r\n{value}\r\n"
        ));
    }
    let mut body = format!(
        "{body}--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n\
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

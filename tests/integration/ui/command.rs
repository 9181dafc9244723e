//! `leadsync ui` itself: its first line, its warning, its refusal.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use reqwest::header;

use crate::support::Cli;

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

/// `leadsync ui` as a child process, killed when dropped.
struct Running {
    child: std::process::Child,
    /// The printed URL, with its secret.
    url: String,
    /// `http://127.0.0.1:PORT`.
    base: String,
    runtime: tokio::runtime::Runtime,
    http: reqwest::Client,
}

impl Running {
    fn start(args: &[&str], state: &Path) -> Running {
        // A usual umask, whatever the test runner's: what the UI writes must not rely on it.
        // (`exec` keeps the process id, which the memory tests read.)
        let mut command = Command::new("sh");
        command.args(["-c", "umask 022; exec \"$0\" \"$@\"", env!("CARGO_BIN_EXE_leadsync")]);
        let mut child = command
            .args(args)
            .env("LEADSYNC_STATE_DIR", state)
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let url = line.trim().to_string();
        let base = url.split("/?s=").next().unwrap().to_string();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Running { child, url, base, runtime, http }
    }

    /// Opens the printed URL; returns the cookie as `name=value`.
    fn login(&self) -> String {
        let reply = self.runtime.block_on(self.http.get(&self.url).send()).unwrap();
        assert_eq!(reply.status(), 303);
        let cookie = reply.headers()["set-cookie"].to_str().unwrap();
        cookie.split(';').next().unwrap().to_string()
    }

    /// The server's peak memory so far, in KiB (Linux: `VmHWM`).
    #[cfg(target_os = "linux")]
    fn peak_kib(&self) -> usize {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse::<usize>().unwrap()
    }

    fn send(&self, request: reqwest::RequestBuilder) -> (u16, String) {
        self.runtime.block_on(async {
            let reply = request.send().await.unwrap();
            (reply.status().as_u16(), reply.text().await.unwrap())
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The command: the URL is the first line on stdout, and it opens the page.
#[test]
fn leadsync_ui_prints_its_url_first() {
    let state = tempfile::tempdir().unwrap();
    let ui = Running::start(&["--sandbox", "ui", "--no-open", "--port", "0"], state.path());
    assert!(ui.url.starts_with("http://127.0.0.1:") && ui.url.contains("/?s="), "{}", ui.url);
    let cookie = ui.login();
    let (status, body) =
        ui.send(ui.http.get(format!("{}/", ui.base)).header(header::COOKIE, cookie));
    assert_eq!(status, 200);
    assert!(body.contains("the built-in sandbox"), "{body}");
    assert!(!body.contains(leadsync::sandbox::DEMO_TOKEN));
}

/// An upload goes to disk as it arrives: a 96 MiB file raises the server's peak memory by far
/// less than its size (Linux: `VmHWM` of the process).
#[cfg(target_os = "linux")]
#[test]
fn an_upload_is_streamed_to_disk_not_held_in_memory() {
    const SIZE: usize = 96 * 1024 * 1024;
    let state = tempfile::tempdir().unwrap();
    let ui = Running::start(&["ui", "--no-open"], state.path());
    let cookie = ui.login();
    let peak_kib = || ui.peak_kib();
    let before = peak_kib();
    let line = "Anna Schmidt,+49 151 23456789,Berlin\n";
    let data = format!("Name,Phone,City\n{}", line.repeat(SIZE / line.len()));
    let (content_type, body) = super::multipart("file", "big.csv", data.as_bytes());
    let (status, answer) = ui.send(
        ui.http
            .post(format!("{}/source/upload", ui.base))
            .header(header::COOKIE, &cookie)
            .header(header::ORIGIN, &ui.base)
            .header(header::CONTENT_TYPE, content_type)
            .body(body),
    );
    assert_eq!(status, 303, "{answer}");
    let grown_mib = (peak_kib() - before) / 1024;
    assert!(grown_mib < 32, "the peak grew by {grown_mib} MiB for a {} MiB upload", SIZE >> 20);
    let stored = super::files_under(&state.path().join("ui/uploads"));
    assert_eq!(stored.len(), 1);
    assert_eq!(std::fs::metadata(&stored[0]).unwrap().len(), data.len() as u64);
}

/// Downloads stream from disk: eight at once of a report of about 20 MiB raise the server's
/// peak memory by far less than one report (read whole, they would take eight). And what the
/// check left in the state folder is readable by the user alone, whatever the umask.
#[cfg(target_os = "linux")]
#[test]
fn downloads_stream_from_disk_and_the_state_folder_stays_private() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    // A state folder the UI makes itself, under a umask of 022.
    let state_dir = base.path().join("state");
    let ui = Running::start(&["ui", "--no-open"], &state_dir);
    let cookie = ui.login();
    let peak_kib = || ui.peak_kib();
    let line = "Anna Schmidt,+49 151 23456789,Berlin\n";
    let data = format!("Name,Phone,City\n{}", line.repeat(60_000));
    let (content_type, body) = super::multipart("file", "big.csv", data.as_bytes());
    let post = |path: &str| {
        ui.http
            .post(format!("{}{path}", ui.base))
            .header(header::COOKIE, &cookie)
            .header(header::ORIGIN, &ui.base)
    };
    let uploaded = ui.runtime.block_on(
        post("/source/upload").header(header::CONTENT_TYPE, content_type).body(body).send(),
    );
    let reading = uploaded.unwrap().headers()["location"].to_str().unwrap().to_string();
    let id = reading.trim_start_matches("/reading/");
    let started =
        ui.runtime.block_on(post(&format!("/check/{id}")).form(&[("campaign", "1")]).send());
    let run = started.unwrap().headers()["location"].to_str().unwrap().to_string();
    let get =
        |path: String| ui.http.get(format!("{}{path}", ui.base)).header(header::COOKIE, &cookie);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while ui.send(get(run.clone())).1.contains("data-refresh") {
        assert!(std::time::Instant::now() < deadline, "the check never finished");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let report = format!("{run}/files/report.json");
    let (status, first) = ui.send(get(report.clone()));
    assert_eq!(status, 200);
    let size_mib = first.len() >> 20;
    assert!(size_mib >= 10, "a report big enough to see: {size_mib} MiB");
    let before = peak_kib();
    let downloads = ui.runtime.block_on(futures_util::future::join_all((0..8).map(|_| async {
        get(report.clone()).send().await.unwrap().bytes().await.unwrap().len()
    })));
    assert!(downloads.iter().all(|&n| n == first.len()), "each download whole");
    let grown_mib = (peak_kib() - before) / 1024;
    // Eight downloads held in memory would grow the peak by eight reports; the tests that run
    // beside this one in the process allocate too, so the bound leaves them room (a run of a
    // subset once saw this test's own growth pass one report's size).
    assert!(
        grown_mib < 4 * size_mib,
        "eight downloads of {size_mib} MiB grew the peak {grown_mib} MiB"
    );

    // Everything the check and its reports left is the user's alone.
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&state_dir), 0o700, "the state folder itself");
    let mut seen = 0;
    let mut stack = vec![state_dir.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            let mode = meta.permissions().mode() & 0o077;
            assert_eq!(mode, 0, "{} is readable by others", entry.path().display());
            seen += 1;
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    assert!(seen > 3, "the walk saw the state folder's files");
}

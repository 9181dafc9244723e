//! `leadsync ui` itself: its first line, its warning, its refusal.

use std::io::{BufRead, BufReader};
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

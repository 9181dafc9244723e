//! Test support: a sandbox on an ephemeral loopback port with a real SQLite file, a client
//! for it, and a small builder over the real binary.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use leadsync::client::{Client, ClientConfig, Token};
use leadsync::sandbox::{Faults, Sandbox, SandboxConfig, Seed};

/// Two tenants with known tokens, campaigns and assistants.
pub const SEED: &str = r#"{
  "users": [
    {"id": 1, "token": "token-alice", "tokens": ["token-alice-rotated"],
     "campaigns": [
       {"id": 10, "name": "Spring Outreach", "max_calls_in_parallel": 3},
       {"id": 11, "name": "Renewals"},
       {"id": 12, "name": "Renewals"},
       {"id": 13, "name": "Café Été"}
     ],
     "assistants": [
       {"id": 100, "name": "Alice Inbound", "type": "inbound"},
       {"id": 101, "name": "Alice Outbound", "type": "outbound", "llm_temperature": "0.70",
        "variables": {"firma": "Muster GmbH", "vertragsende": ""},
        "initial_message": "Hallo {{customer_name}}, hier ist Lisa von {{firma}}.",
        "system_prompt": "Der Vertrag von {{ customer_name }} endet am {vertragsende}."},
       {"id": 102, "name": "Alice Deleted", "type": "outbound", "deleted_at": "2026-01-01T00:00:00.000000Z"}
     ]},
    {"id": 2, "token": "token-bob",
     "campaigns": [{"id": 20, "name": "Bob Campaign"}],
     "assistants": [{"id": 200, "name": "Bob Outbound", "type": "outbound"}]},
    {"id": 3, "token": "token-carol", "tokens": ["token-carol-rotated"],
     "campaigns": [{"id": 30, "name": "Carol Campaign"}]}
  ]
}"#;

pub const ALICE: &str = "token-alice";
/// Alice's second token: the same account after a token rotation.
pub const ALICE_ROTATED: &str = "token-alice-rotated";
pub const BOB: &str = "token-bob";
/// A user without assistants: the service shows no user id for the account.
pub const CAROL: &str = "token-carol";
/// Carol's second token: an account without assistants after a token rotation.
pub const CAROL_ROTATED: &str = "token-carol-rotated";

/// A running sandbox, stopped when dropped, with its own runtime and temp dir.
pub struct TestSandbox {
    pub base_url: String,
    db: PathBuf,
    pub dir: tempfile::TempDir,
    runtime: Option<tokio::runtime::Runtime>,
    sandbox: Option<Sandbox>,
}

impl TestSandbox {
    pub fn start() -> TestSandbox {
        TestSandbox::with_faults(Faults::default())
    }

    pub fn with_faults(faults: Faults) -> TestSandbox {
        TestSandbox::with_config(SandboxConfig { faults, ..SandboxConfig::default() })
    }

    /// A sandbox with other settings (say, a compressed webhook retry schedule); the seed and
    /// the database file are filled in.
    pub fn with_config(config: SandboxConfig) -> TestSandbox {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sandbox.db");
        TestSandbox::launch(dir, db, config)
    }

    /// A fault-free sandbox over this one's database (this one stops first).
    pub fn reopen(self) -> TestSandbox {
        let db = self.db.clone();
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("sandbox.db");
        let old_dir = self.stop();
        for suffix in ["", "-wal", "-shm"] {
            let from = PathBuf::from(format!("{}{suffix}", db.display()));
            if from.exists() {
                std::fs::copy(&from, format!("{}{suffix}", copy.display())).unwrap();
            }
        }
        drop(old_dir);
        TestSandbox::launch(dir, copy, SandboxConfig::default())
    }

    /// A path in this sandbox's temp dir.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A sandbox over a database file that outlives it.
    pub fn on_db(db: &Path, faults: Faults) -> TestSandbox {
        TestSandbox::on_db_at(db, faults, 0)
    }

    /// A sandbox over a database file that outlives it, on `port` (0: any free one), so a
    /// restarted service keeps its base URL as a real one does.
    pub fn on_db_at(db: &Path, faults: Faults, port: u16) -> TestSandbox {
        let dir = tempfile::tempdir().unwrap();
        let config = SandboxConfig { faults, ..SandboxConfig::default() };
        TestSandbox::launch_at(dir, db.to_path_buf(), config, port)
    }

    /// The port the sandbox listens on.
    pub fn port(&self) -> u16 {
        url::Url::parse(&self.base_url).unwrap().port().unwrap()
    }

    fn launch(dir: tempfile::TempDir, db: PathBuf, config: SandboxConfig) -> TestSandbox {
        TestSandbox::launch_at(dir, db, config, 0)
    }

    fn launch_at(
        dir: tempfile::TempDir,
        db: PathBuf,
        config: SandboxConfig,
        port: u16,
    ) -> TestSandbox {
        let seed_path = dir.path().join("seed.json");
        std::fs::write(&seed_path, SEED).unwrap();
        let seed = Seed::from_path(&seed_path).unwrap();
        let config_db = db.clone();
        let config = SandboxConfig { db: Some(db), seed: Some(seed), ..config };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let sandbox = runtime.block_on(start_on(config, port));
        TestSandbox {
            base_url: sandbox.base_url.clone(),
            db: config_db,
            dir,
            runtime: Some(runtime),
            sandbox: Some(sandbox),
        }
    }

    /// A library client for `token`.
    pub fn client(&self, token: &str) -> Client {
        let config = ClientConfig::new(
            &self.base_url,
            Token::new(token).unwrap(),
            Duration::from_secs(10),
            false,
        )
        .unwrap();
        Client::new(config).unwrap()
    }

    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.as_ref().unwrap().block_on(f)
    }

    /// The real binary, pointed at this sandbox as `token`.
    pub fn cli(&self, token: &str) -> Cli {
        let mut cli = Cli::new();
        cli.cmd.env("LEADSYNC_BASE_URL", &self.base_url).env("LEADSYNC_TOKEN", token);
        cli.cmd.current_dir(self.dir.path());
        cli
    }
}

impl TestSandbox {
    /// Stops the service, keeping the temp dir.
    fn stop(mut self) -> tempfile::TempDir {
        self.shutdown();
        let dir = tempfile::tempdir().unwrap();
        std::mem::replace(&mut self.dir, dir)
    }

    fn shutdown(&mut self) {
        if let (Some(rt), Some(sb)) = (self.runtime.take(), self.sandbox.take()) {
            rt.block_on(sb.shutdown());
            rt.shutdown_timeout(Duration::from_secs(1));
        }
    }
}

impl Drop for TestSandbox {
    fn drop(&mut self) {
        if let (Some(rt), Some(sb)) = (self.runtime.take(), self.sandbox.take()) {
            rt.block_on(sb.shutdown());
            rt.shutdown_timeout(Duration::from_secs(1));
        }
    }
}

/// The real `leadsync` binary with a clean environment and a state folder of its own (so
/// `--sandbox` data and journals never leak between tests or into the home folder).
#[must_use]
pub struct Cli {
    pub cmd: Command,
    _state: tempfile::TempDir,
}

impl Cli {
    pub fn new() -> Cli {
        let mut cmd = Command::cargo_bin("leadsync").unwrap();
        for var in [
            "LEADSYNC_BASE_URL",
            "LEADSYNC_TOKEN",
            "LEADSYNC_TOKEN_FILE",
            "LEADSYNC_TIMEOUT",
            "RUST_LOG",
            "NO_COLOR",
            "CLICOLOR_FORCE",
            "LEADSYNC_PROFILE",
            // The summary speaks German under a German locale; the tests read the English.
            "LC_ALL",
            "LC_MESSAGES",
            "LANG",
        ] {
            cmd.env_remove(var);
        }
        cmd.timeout(Duration::from_secs(120));
        let state = tempfile::tempdir().unwrap();
        cmd.env("LEADSYNC_STATE_DIR", state.path());
        // No profile of the machine's user leaks into a test.
        cmd.env("XDG_CONFIG_HOME", state.path().join("config"));
        Cli { cmd, _state: state }
    }

    pub fn args<I, S>(mut self, args: I) -> Cli
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub fn current_dir(mut self, dir: &Path) -> Cli {
        self.cmd.current_dir(dir);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Cli {
        self.cmd.env(key, value);
        self
    }

    /// Runs and checks the exit code; returns (stdout, stderr).
    pub fn expect_code(mut self, code: i32) -> (String, String) {
        let output = self.cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        assert_eq!(
            output.status.code(),
            Some(code),
            "exit code\nstdout:\n{stdout}\nstderr:\n{stderr}"
        );
        (stdout, stderr)
    }

    pub fn ok(self) -> (String, String) {
        self.expect_code(0)
    }
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

pub fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

/// Serves `body` at `path` on an ephemeral loopback port, for the rest of the test binary's
/// life; returns the URL.
pub fn serve(path: &'static str, body: Vec<u8>) -> String {
    let app =
        axum::Router::new().route(path, axum::routing::get(move || async move { body.clone() }));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        tokio::runtime::Runtime::new().unwrap().block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap()
        })
    });
    format!("http://{}{path}", rx.recv().unwrap())
}

/// Starts a sandbox on `port`. A restart on the port the service had (`port` not 0) waits
/// for it to come free: on a loaded machine the stopped server's socket can linger for a
/// moment, and that is not what a test checks.
async fn start_on(config: SandboxConfig, port: u16) -> Sandbox {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut tries = 0;
    loop {
        match Sandbox::start(config.clone(), addr).await {
            Ok(sandbox) => return sandbox,
            Err(leadsync::sandbox::SandboxError::Bind { source, .. })
                if port != 0 && source.kind() == std::io::ErrorKind::AddrInUse && tries < 100 =>
            {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => panic!("the sandbox did not start on {addr}: {error}"),
        }
    }
}

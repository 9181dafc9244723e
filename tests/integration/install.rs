//! What installing needs: completion scripts for every shell clap_complete knows, and a man
//! page that renders, both generated from the real command line.

use crate::support::Cli;

#[test]
fn completion_scripts_name_the_commands_and_flags() {
    for (shell, marker) in [
        ("bash", "complete -F _leadsync"),
        ("zsh", "#compdef leadsync"),
        ("fish", "complete -c leadsync"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[leadsync]"),
    ] {
        let (script, _) = Cli::new().args(["completions", shell]).ok();
        assert!(script.contains(marker), "{shell}: {}", &script[..script.len().min(300)]);
        for word in ["import", "sync", "dry-run", "allow-duplicates"] {
            assert!(script.contains(word), "{shell} completes {word}");
        }
    }
    let (bash, _) = Cli::new().args(["completions", "bash"]).ok();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leadsync.bash");
    std::fs::write(&path, bash).unwrap();
    let checked = std::process::Command::new("bash").arg("-n").arg(&path).status().unwrap();
    assert!(checked.success(), "the bash script parses");
    let (_, err) = Cli::new().args(["completions", "tcsh"]).expect_code(2);
    assert!(err.contains("possible values"), "{err}");
}

#[test]
fn the_man_page_renders_with_every_command() {
    let (roff, _) = Cli::new().args(["man"]).ok();
    assert!(roff.contains(".TH leadsync 1"), "{}", &roff[..roff.len().min(300)]);
    let Ok(mut groff) = std::process::Command::new("groff")
        .args(["-man", "-Tutf8"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    else {
        assert!(std::env::var("CI").is_err(), "CI renders the man page with groff");
        return;
    };
    use std::io::Write;
    groff.stdin.take().unwrap().write_all(roff.as_bytes()).unwrap();
    let output = groff.wait_with_output().unwrap();
    assert!(output.status.success());
    // Bold and underline come as overstrikes (`N\x08N`): keep the letters only.
    let raw = String::from_utf8_lossy(&output.stdout);
    let mut text = String::new();
    for c in raw.chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    for word in ["NAME", "SYNOPSIS", "import", "sync", "sandbox", "completions"] {
        assert!(text.contains(word), "the rendered page names {word}");
    }
}

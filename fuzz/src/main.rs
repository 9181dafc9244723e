//! `leadsync-fuzz`: the mutation loop, the corpus seeder and crash replay. The AFL++ engine
//! is `leadsync-fuzz-afl`; `scripts/fuzz.sh` drives both.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use leadsync_fuzz::{TARGETS, Target, find, mutate, seeds};

const USAGE: &str = "usage:
  leadsync-fuzz list
  leadsync-fuzz seeds REPO OUT               write the starting corpora to OUT/<target>
  leadsync-fuzz run TARGET SECONDS CORPUS CRASHES
  leadsync-fuzz replay TARGET FILE...        run saved inputs once each";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["list"] => {
            TARGETS.iter().for_each(|t| println!("{}", t.name));
            Ok(true)
        }
        ["seeds", repo, out] => seeds::write_all(Path::new(repo), Path::new(out)).map(|()| true),
        ["run", target, seconds, corpus, crashes] => {
            run(target_named(target), seconds, Path::new(corpus), Path::new(crashes))
        }
        ["replay", target, files @ ..] => Ok(replay(target_named(target), files)),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn target_named(name: &str) -> &'static Target {
    find(name).unwrap_or_else(|| {
        let names: Vec<_> = TARGETS.iter().map(|t| t.name).collect();
        eprintln!("error: no fuzz target `{name}`; targets: {}", names.join(", "));
        std::process::exit(2)
    })
}

/// Prints one line the script parses; false when an input crashed.
fn run(target: &Target, seconds: &str, corpus: &Path, crashes: &Path) -> std::io::Result<bool> {
    let seconds: u64 = seconds.parse().map_err(std::io::Error::other)?;
    let summary = mutate::run(target, corpus, crashes, Duration::from_secs(seconds))?;
    println!("executions={} crashes={}", summary.executions, summary.crashes.len());
    Ok(summary.crashes.is_empty())
}

/// Runs each file once with the default panic hook, so a crash prints its message and place.
fn replay(target: &Target, files: &[&str]) -> bool {
    let mut all_passed = true;
    for file in files {
        let input = match std::fs::read(file) {
            Ok(input) => input,
            Err(e) => {
                eprintln!("error: cannot read `{file}`: {e}");
                all_passed = false;
                continue;
            }
        };
        let passed = std::panic::catch_unwind(|| (target.run)(&input)).is_ok();
        println!("{file}: {}", if passed { "ok" } else { "CRASH" });
        all_passed &= passed;
    }
    all_passed
}

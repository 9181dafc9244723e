//! The mutation loop: the engine that needs no instrumentation, so it builds as fast as a
//! debug build and runs anywhere (CI's brief fuzz step). It has no coverage feedback: each
//! input is a corpus entry with a few random edits, the target's dictionary spliced in.
//!
//! Before each input runs it is written to `<crashes>/current`, so when the target takes the
//! process down (an abort, a stack overflow, memory exhaustion) the script that started the
//! loop still has the input that did it.

use std::fs;
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::Target;

/// What a run of the loop did.
pub struct Summary {
    pub executions: u64,
    pub crashes: Vec<PathBuf>,
}

/// Runs `target` on every corpus entry, then on mutations of them until `time` is up.
pub fn run(target: &Target, corpus: &Path, crashes: &Path, time: Duration) -> io::Result<Summary> {
    fs::create_dir_all(crashes)?;
    let seeds = load(corpus)?;
    let current = crashes.join("current");
    install_quiet_hook();
    let mut rng = Rng::new(u64::from(std::process::id()) ^ 0x9e37_79b9_7f4a_7c15);
    let mut summary = Summary { executions: 0, crashes: Vec::new() };
    let started = Instant::now();
    let mut next = seeds.iter().cloned();
    while started.elapsed() < time {
        let input = next.next().unwrap_or_else(|| mutate(&mut rng, &seeds, target));
        fs::write(&current, &input)?;
        summary.executions += 1;
        if catch_unwind(AssertUnwindSafe(|| (target.run)(&input))).is_err() {
            let name = format!("crash-{:016x}", fnv(&input));
            let message = LAST_PANIC.lock().map(|m| m.clone()).unwrap_or_default();
            eprintln!("{}: {name}: {message}", target.name);
            fs::write(crashes.join(&name), &input)?;
            summary.crashes.push(crashes.join(name));
        }
    }
    fs::remove_file(&current)?;
    Ok(summary)
}

fn load(corpus: &Path) -> io::Result<Vec<Vec<u8>>> {
    let mut paths: Vec<_> =
        fs::read_dir(corpus)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    paths.sort();
    let mut seeds: Vec<Vec<u8>> = paths.iter().map(fs::read).collect::<Result<_, _>>()?;
    if seeds.is_empty() {
        seeds.push(Vec::new());
    }
    Ok(seeds)
}

static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

/// Keeps the last panic's message and place for the report instead of printing every one:
/// leadsync itself catches the panics of the workbook reader, and those are not crashes.
fn install_quiet_hook() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = info.to_string().replace('\n', " ");
        }
    }));
}

/// One to eight random edits of a random corpus entry.
fn mutate(rng: &mut Rng, seeds: &[Vec<u8>], target: &Target) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(8) {
        edit(rng, &mut data, seeds, target.dictionary);
    }
    data.truncate(target.max_len);
    data
}

const INTERESTING: &[u8] = &[0, 1, 0x7f, 0x80, 0xff, b'"', b',', b';', b'\n', b'\r', b'\t', b' '];

fn edit(rng: &mut Rng, data: &mut Vec<u8>, seeds: &[Vec<u8>], dictionary: &[&[u8]]) {
    let at = rng.below(data.len() + 1);
    match rng.below(9) {
        0 if at < data.len() => data[at] ^= 1 << rng.below(8),
        1 if at < data.len() => data[at] = rng.next() as u8,
        2 if at < data.len() => data[at] = INTERESTING[rng.below(INTERESTING.len())],
        3 => {
            let end = (at + 1 + rng.below(64)).min(data.len());
            data.drain(at.min(end)..end);
        }
        4 => {
            let len = 1 + rng.below(16);
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            data.splice(at..at, bytes);
        }
        5 if at < data.len() => {
            // Repeats a chunk: long runs find the quadratic and the unbounded.
            let end = (at + 1 + rng.below(32)).min(data.len());
            let chunk = data[at..end].to_vec();
            let most = if rng.below(8) == 0 { 512 } else { 4 };
            let times = 1 + rng.below(most);
            data.splice(end..end, chunk.repeat(times));
        }
        6 => {
            let other = &seeds[rng.below(seeds.len())];
            let from = rng.below(other.len() + 1);
            let end = (from + rng.below(256)).min(other.len());
            data.splice(at..at, other[from..end].iter().copied());
        }
        7 => data.truncate(at),
        _ if !dictionary.is_empty() => {
            let word = dictionary[rng.below(dictionary.len())];
            data.splice(at..at, word.iter().copied());
        }
        _ => {}
    }
}

/// xorshift64*: fast and good enough to pick edits.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// A name for a crash file that is the same for the same input.
fn fnv(data: &[u8]) -> u64 {
    data.iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

//! What a person watching sees while a run goes: indicatif bars on a terminal, a plain log line
//! every few seconds otherwise, nothing with `--quiet`. Counters are atomics so the collector
//! ticks them without caring who is watching.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::report::RowStatus;

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Display {
    /// Bars on stderr.
    Bars,
    /// A log line on stderr every few seconds (cron, CI, pipes).
    Lines,
    #[default]
    Hidden,
}

/// Seconds between log lines in `Lines` mode.
const LINE_EVERY: Duration = Duration::from_secs(5);

#[derive(Debug, Default)]
pub struct Progress {
    read: AtomicU64,
    sent: AtomicU64,
    created: AtomicU64,
    problems: AtomicU64,
}

impl Progress {
    pub fn row_read(&self) {
        self.read.fetch_add(1, Ordering::Relaxed);
    }

    pub fn sent(&self) {
        self.sent.fetch_add(1, Ordering::Relaxed);
    }

    pub fn settled(&self, status: RowStatus) {
        match status {
            RowStatus::Created => self.created.fetch_add(1, Ordering::Relaxed),
            RowStatus::Rejected | RowStatus::Duplicate | RowStatus::Failed => {
                self.problems.fetch_add(1, Ordering::Relaxed)
            }
            RowStatus::Valid | RowStatus::Skipped => 0,
        };
    }

    fn snapshot(&self) -> (u64, u64, u64, u64) {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        (get(&self.read), get(&self.sent), get(&self.created), get(&self.problems))
    }
}

/// Draws `progress` until the returned guard is dropped.
pub fn watch(
    progress: Arc<Progress>,
    display: Display,
    throttle: Option<Arc<crate::push::Throttle>>,
) -> Watcher {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let handle = match display {
        Display::Hidden => None,
        _ => {
            let stop = stop.clone();
            Some(std::thread::spawn(move || draw(&progress, display, throttle.as_deref(), &stop)))
        }
    };
    Watcher { stop, handle }
}

pub struct Watcher {
    stop: Arc<std::sync::atomic::AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

fn draw(
    progress: &Progress,
    display: Display,
    throttle: Option<&crate::push::Throttle>,
    stop: &std::sync::atomic::AtomicBool,
) {
    let started = Instant::now();
    let bar = (display == Display::Bars).then(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .expect("a valid template"),
        );
        bar
    });
    let mut last_line = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        let line = status_line(progress, throttle, started.elapsed());
        match &bar {
            Some(bar) => {
                bar.set_message(line);
                bar.tick();
            }
            None if last_line.elapsed() >= LINE_EVERY => {
                eprintln!("{line}");
                last_line = Instant::now();
            }
            None => {}
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

fn status_line(
    progress: &Progress,
    throttle: Option<&crate::push::Throttle>,
    elapsed: Duration,
) -> String {
    let (read, sent, created, problems) = progress.snapshot();
    let per_second = sent as f64 / elapsed.as_secs_f64().max(0.001);
    let mut line = format!(
        "{read} rows read · {sent} sent ({per_second:.1}/s) · {created} created · {problems} need attention"
    );
    if let Some(throttle) = throttle {
        if let Some(rate) = throttle.current_rate() {
            line.push_str(&format!(" · limit {rate:.1}/s"));
        }
        let waiting = throttle.waiting.load(Ordering::Relaxed);
        if waiting > 0 {
            line.push_str(&format!(" · {waiting} retries waiting"));
        }
    }
    line
}

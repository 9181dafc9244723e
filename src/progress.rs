//! What a person watching sees while a run goes: indicatif bars on a terminal, a plain log line
//! every few seconds otherwise, nothing with `--quiet`; both with the share of the file done and
//! an ETA, and a plan line before sending starts. Counters are atomics so the collector ticks
//! them without caring who is watching.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::pace::Pace;
use crate::report::{RowStatus, thousands};
use crate::source::Extent;

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Display {
    /// Bars on stderr.
    Bars,
    /// A log line on stderr every few seconds (CI, pipes).
    Lines,
    /// The same lines, each with the local time in front (cron: `sync`).
    Log,
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
    /// Rows not sent because their lead is on the service already.
    skipped: AtomicU64,
    /// Rows with their outcome, whatever it is.
    done: AtomicU64,
    /// The requests the plan expects the run to send, once it is known.
    planned_sends: std::sync::OnceLock<u64>,
}

impl Progress {
    /// The plan's count of rows to send: the ETA counts down from it.
    pub fn plan_sends(&self, rows: u64) {
        let _ = self.planned_sends.set(rows);
    }

    pub fn row_read(&self) {
        self.read.fetch_add(1, Ordering::Relaxed);
    }

    pub fn sent(&self) {
        self.sent.fetch_add(1, Ordering::Relaxed);
    }

    pub fn settled(&self, status: RowStatus) {
        self.done.fetch_add(1, Ordering::Relaxed);
        match status {
            RowStatus::Created => self.created.fetch_add(1, Ordering::Relaxed),
            RowStatus::Rejected | RowStatus::Duplicate | RowStatus::Failed => {
                self.problems.fetch_add(1, Ordering::Relaxed)
            }
            RowStatus::Skipped => self.skipped.fetch_add(1, Ordering::Relaxed),
            RowStatus::Valid | RowStatus::NotSent => 0,
        };
    }

    fn snapshot(&self) -> (u64, u64, u64, u64) {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        (get(&self.read), get(&self.sent), get(&self.created), get(&self.problems))
    }
}

/// What the display knows beyond the counters: the pace, and how far reading has got.
#[derive(Clone, Default)]
pub struct Context {
    pub throttle: Option<Arc<dyn Pace>>,
    pub extent: Option<Arc<Extent>>,
}

/// Draws `progress` until the returned guard is dropped.
pub fn watch(progress: Arc<Progress>, display: Display, context: Context) -> Watcher {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let handle = match display {
        Display::Hidden => None,
        _ => {
            let stop = stop.clone();
            Some(std::thread::spawn(move || draw(&progress, display, &context, &stop)))
        }
    };
    Watcher { stop, handle }
}

/// One line on stderr, as `display` shows lines: nothing when hidden, the local time in front
/// in `Log`.
pub fn say(display: Display, line: &str) {
    match display {
        Display::Hidden => {}
        Display::Log => eprintln!("{} {line}", stamp()),
        Display::Bars | Display::Lines => eprintln!("{line}"),
    }
}

/// A log line's time, as cron logs want it: local time to the second.
pub fn stamp() -> String {
    chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Before any row is read: what the inferred mapping chose, one line each.
pub fn announce_mapping(display: Display, notes: &[String]) {
    for note in notes {
        say(display, &format!("mapping: {note}"));
    }
}

/// Before any row is read: what is worth knowing but wrong with nothing, one line each.
pub fn announce_notes(display: Display, notes: &[String]) {
    for note in notes {
        say(display, &format!("note: {note}"));
    }
}

/// What a run will send, as counted before the first request (see `pipeline`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SendCount {
    /// Rows that will be sent.
    pub to_send: u64,
    /// Rows whose lead is on the service already (`sync`, `--skip-existing`).
    pub skipped: u64,
    /// Rows an earlier run of the same journal settled.
    pub settled: u64,
}

/// Before the first request: how many rows, at what pace, and so about how long. Nothing when
/// nothing is left to send: the summary says so, and "about 0 rows" would only contradict it.
pub fn announce_plan(display: Display, count: SendCount, rate: f64, lead_key: bool) {
    if count.to_send == 0 {
        return;
    }
    say(display, &plan_line(count, rate));
    if !lead_key {
        say(display, NO_LEAD_KEY);
    }
}

/// Said when `lead_key = false`: what a run gives up without the key.
pub const NO_LEAD_KEY: &str = "leads are sent without their own key (lead_key = false): rows are matched to leads by number and content, which cannot tell identical rows apart";

/// `about 200 rows to send (361 already on the service) at 5/s: about 40 s (--rate to change)`.
/// Only the rows that will be sent make the time: skipped and settled rows cost no request.
pub fn plan_line(count: SendCount, rate: f64) -> String {
    let SendCount { to_send, skipped, settled } = count;
    let noun = if to_send == 1 { "row" } else { "rows" };
    let left = if settled > 0 { " left" } else { "" };
    let mut not_sent = Vec::new();
    if settled > 0 {
        not_sent.push(format!("{} settled by an earlier run", thousands(settled)));
    }
    if skipped > 0 {
        not_sent.push(format!("{} already on the service", thousands(skipped)));
    }
    let mut what = format!("about {} {noun}{left} to send", thousands(to_send));
    if !not_sent.is_empty() {
        what.push_str(&format!(" ({})", not_sent.join(", ")));
    }
    if rate <= 0.0 {
        return format!("{what}, no rate limit (--rate to set one)");
    }
    // A request takes some time however fast the limit: never "about 0 s".
    let secs = (to_send as f64 / rate).max(1.0);
    format!("{what} at {}/s: about {} (--rate to change)", trim_rate(rate), human(secs))
}

/// The status line of a send, kept for a front that shows it elsewhere than on stderr (the
/// browser's page): the same words the terminal shows, the service's limit and the retries
/// waiting among them, so the page says what a send waits for when it waits.
#[derive(Debug, Default)]
pub struct Board(std::sync::Mutex<String>);

impl Board {
    pub fn line(&self) -> String {
        self.0.lock().map(|line| line.clone()).unwrap_or_default()
    }

    fn set(&self, line: String) {
        if let Ok(mut kept) = self.0.lock() {
            *kept = line;
        }
    }
}

/// Keeps `board` at the status line of `progress` until the returned guard is dropped.
pub fn watch_into(progress: Arc<Progress>, context: Context, board: Arc<Board>) -> Watcher {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let handle = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            while !stop.load(Ordering::Relaxed) {
                board.set(status_line(&progress, &context, started.elapsed()));
                std::thread::sleep(Duration::from_millis(250));
            }
        })
    };
    Watcher { stop, handle: Some(handle) }
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
    context: &Context,
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
        let line = status_line(progress, context, started.elapsed());
        match &bar {
            Some(bar) => {
                bar.set_message(line);
                bar.tick();
            }
            None if last_line.elapsed() >= LINE_EVERY => {
                say(display, &line);
                last_line = Instant::now();
            }
            None => {}
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

fn status_line(progress: &Progress, context: &Context, elapsed: Duration) -> String {
    let (read, sent, created, problems) = progress.snapshot();
    let done = progress.done.load(Ordering::Relaxed);
    let skipped = progress.skipped.load(Ordering::Relaxed);
    let per_second = sent as f64 / elapsed.as_secs_f64().max(0.001);
    let estimated = context.extent.as_ref().and_then(|e| e.estimated_rows()).filter(|&n| n > 0);
    // Rows with an outcome over the rows the file holds; reading runs ahead of sending, so the
    // bytes read only stand in when the row count is unknown.
    let fraction = match estimated {
        Some(total) => Some((done as f64 / total as f64).min(1.0)),
        None => context.extent.as_ref().and_then(|e| e.fraction()),
    };
    let mut line = String::new();
    if let Some(fraction) = fraction {
        line.push_str(&format!("{:.0}% · ", fraction * 100.0));
    }
    line.push_str(&format!("{read} rows read · {sent} sent ({per_second:.1}/s)"));
    if skipped > 0 {
        line.push_str(&format!(" · {skipped} skipped"));
    }
    line.push_str(&format!(" · {created} created · {problems} need attention"));
    let limit = context.throttle.as_ref().and_then(|t| t.current_rate());
    if let Some(throttle) = &context.throttle {
        if let Some(rate) = limit {
            line.push_str(&format!(" · limit {rate:.1}/s"));
        }
        let waiting = throttle.retries_waiting();
        if waiting > 0 {
            line.push_str(&format!(" · {waiting} retries waiting"));
        }
    }
    let remaining = match progress.planned_sends.get() {
        Some(&planned) => Some(planned.saturating_sub(sent) as f64),
        None => estimated.map(|rows| remaining_sends(rows, done, created)),
    };
    if let Some(secs) = eta(fraction, elapsed, remaining, send_rate(sent, elapsed, limit)) {
        line.push_str(&format!(" · ETA {}", human(secs)));
    }
    line
}

/// The pace the rest will go at: the one observed once a few requests have been answered (a
/// limit the service throttles below, or slow answers, make it lower than the limit), else
/// the limit.
fn send_rate(sent: u64, elapsed: Duration, limit: Option<f64>) -> Option<f64> {
    const OBSERVED_AFTER: u64 = 5;
    let secs = elapsed.as_secs_f64();
    match sent >= OBSERVED_AFTER && secs >= 1.0 {
        true => Some(sent as f64 / secs),
        false => limit,
    }
}

/// Requests still to go when the plan did not count them: the rows without an outcome, times
/// the share of rows so far that became leads (all of them before the first outcome).
fn remaining_sends(estimated_rows: u64, done: u64, created: u64) -> f64 {
    let share = if done == 0 { 1.0 } else { (created as f64 / done as f64).min(1.0) };
    estimated_rows.saturating_sub(done) as f64 * share
}

/// Seconds left: the requests to go at the send rate (reading is paced by sending, so sending
/// is the clock, and skipped rows cost nothing); without a rate, the time so far scaled by the
/// share done.
fn eta(
    fraction: Option<f64>,
    elapsed: Duration,
    remaining_sends: Option<f64>,
    rate: Option<f64>,
) -> Option<f64> {
    match (rate, remaining_sends, fraction) {
        (Some(rate), Some(left), _) if rate > 0.0 => Some(left / rate),
        (_, _, Some(f)) if f >= 0.01 => Some(elapsed.as_secs_f64() * (1.0 - f) / f),
        _ => None,
    }
}

/// `11 h`, `2 h 10 min`, `45 min`, `30 s`.
pub fn human(secs: f64) -> String {
    let secs = secs.max(0.0).round() as u64;
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs.div_ceil(60)),
        _ => {
            let (hours, minutes) = (secs / 3600, (secs % 3600) / 60);
            match minutes {
                0 => format!("{hours} h"),
                m => format!("{hours} h {m} min"),
            }
        }
    }
}

fn trim_rate(rate: f64) -> String {
    let text = format!("{rate:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A line said while the bar may be on the screen: on a terminal it takes the bar's line (the
/// bar is drawn again below it) instead of being glued to its end; elsewhere as `say`.
pub fn notice(display: Display, line: &str) {
    match display {
        Display::Bars => say(display, &format!("\r\x1b[2K{line}")),
        _ => say(display, line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_line_says_rows_pace_and_time() {
        let count = |to_send, skipped, settled| SendCount { to_send, skipped, settled };
        assert_eq!(
            plan_line(count(200_000, 0, 0), 5.0),
            "about 200,000 rows to send at 5/s: about 11 h 6 min (--rate to change)"
        );
        assert_eq!(
            plan_line(count(600, 0, 400), 2.5),
            "about 600 rows left to send (400 settled by an earlier run) at 2.5/s: about 4 min (--rate to change)"
        );
        assert_eq!(
            plan_line(count(10, 0, 0), 0.0),
            "about 10 rows to send, no rate limit (--rate to set one)"
        );
    }

    /// Issue 25, item 5: 561 rows, 361 of them on the service already, at 5/s.
    #[test]
    fn the_plan_counts_only_the_rows_to_send() {
        let count = SendCount { to_send: 200, skipped: 361, settled: 0 };
        assert_eq!(
            plan_line(count, 5.0),
            "about 200 rows to send (361 already on the service) at 5/s: about 40 s (--rate to change)"
        );
        let one = SendCount { to_send: 1, skipped: 0, settled: 3 };
        assert_eq!(
            plan_line(one, 50.0),
            "about 1 row left to send (3 settled by an earlier run) at 50/s: about 1 s (--rate to change)"
        );
    }

    /// Issue 25, item 5: the live line said "70% … ETA 3 s" with 170 of 200 rows still to send
    /// at 5/s, and never showed the skipped rows.
    #[test]
    fn the_live_line_shows_skips_and_counts_down_the_rows_to_send() {
        let progress = Progress::default();
        progress.plan_sends(200);
        for _ in 0..391 {
            progress.row_read();
        }
        (0..361).for_each(|_| progress.settled(RowStatus::Skipped));
        for _ in 0..30 {
            progress.sent();
            progress.settled(RowStatus::Created);
        }
        let line = status_line(&progress, &Context::default(), Duration::from_secs(6));
        assert!(line.contains("30 sent (5.0/s) · 361 skipped · 30 created"), "{line}");
        assert!(line.ends_with(" · ETA 34 s"), "170 rows at 5/s: {line}");
    }

    #[test]
    fn the_eta_follows_the_rate_limit_else_the_share_done() {
        let elapsed = Duration::from_secs(10);
        assert_eq!(eta(Some(0.5), elapsed, Some(100.0), Some(5.0)), Some(20.0));
        assert_eq!(eta(Some(0.25), elapsed, None, None), Some(30.0));
        assert_eq!(eta(Some(0.001), elapsed, None, None), None, "too early to tell");
        // Half the rows done became leads: 1,000 rows to go make about 500 requests.
        assert_eq!(remaining_sends(2_000, 1_000, 500), 500.0);
        assert_eq!(remaining_sends(2_000, 0, 0), 2_000.0);
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human(30.0), "30 s");
        assert_eq!(human(61.0), "2 min");
        assert_eq!(human(40_000.0), "11 h 6 min");
        assert_eq!(human(7200.0), "2 h");
    }
}

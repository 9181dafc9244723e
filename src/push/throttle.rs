//! The pace of sending, shared by every worker: a smooth rate limit (governor, burst of one,
//! so never a burst above the rate), a common pause when the service answers 429, and a rate
//! that backs off while 429s keep coming and climbs back when they stop.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use tokio::time::Instant;

/// Successes in a row before the rate climbs one step back up.
const CLIMB_AFTER: u32 = 50;
/// The slowest the rate adapts down to, per second.
const MIN_RATE: f64 = 0.5;
/// The pause after a 429 that names no wait.
const DEFAULT_PAUSE: Duration = Duration::from_secs(1);

pub struct Throttle {
    /// The configured rate; `None` = as fast as the workers go.
    ceiling: Option<f64>,
    state: Mutex<State>,
    successes: AtomicU32,
    /// Workers sleeping before a retry, for the progress display.
    pub waiting: AtomicUsize,
    /// 429 answers seen, for the report and the benchmark.
    pub rate_limited: AtomicUsize,
}

struct State {
    rate: f64,
    limiter: Option<Arc<DefaultDirectRateLimiter>>,
    paused_until: Option<Instant>,
}

impl Throttle {
    /// `rate` requests per second; 0 means no limit.
    pub fn new(rate: f64) -> Throttle {
        let ceiling = (rate > 0.0).then_some(rate);
        let state =
            State { rate: rate.max(0.0), limiter: ceiling.map(limiter), paused_until: None };
        Throttle {
            ceiling,
            state: Mutex::new(state),
            successes: AtomicU32::new(0),
            waiting: AtomicUsize::new(0),
            rate_limited: AtomicUsize::new(0),
        }
    }

    /// Waits until this worker may send: after any common pause, then for a rate-limit slot.
    pub async fn wait_turn(&self) {
        loop {
            let (pause, limiter) = {
                let state = self.state.lock().expect("throttle lock");
                (state.paused_until, state.limiter.clone())
            };
            if let Some(until) = pause.filter(|u| *u > Instant::now()) {
                tokio::time::sleep_until(until).await;
                continue;
            }
            if let Some(limiter) = &limiter {
                limiter.until_ready().await;
            }
            let state = self.state.lock().expect("throttle lock");
            // A slot from a limiter replaced while we waited does not count: honouring both
            // the old and the new one could briefly double the rate.
            let same_limiter = match (&limiter, &state.limiter) {
                (Some(old), Some(new)) => Arc::ptr_eq(old, new),
                (None, None) => true,
                _ => false,
            };
            // A 429 that arrived while we waited for a slot pauses this request too.
            if same_limiter && state.paused_until.is_none_or(|u| u <= Instant::now()) {
                return;
            }
        }
    }

    /// A turn if one is free right now (no common pause, a rate-limit slot at once), without
    /// waiting: lets the collector send a few requests under one fsync of their attempts.
    pub fn try_turn(&self) -> bool {
        let state = self.state.lock().expect("throttle lock");
        if state.paused_until.is_some_and(|u| u > Instant::now()) {
            return false;
        }
        state.limiter.as_ref().is_none_or(|limiter| limiter.check().is_ok())
    }

    /// The service said 429: everyone pauses for its wait, and the rate steps down.
    pub fn rate_limited(&self, wait: Option<Duration>) {
        self.rate_limited.fetch_add(1, Ordering::Relaxed);
        self.successes.store(0, Ordering::Relaxed);
        let until = Instant::now() + wait.unwrap_or(DEFAULT_PAUSE);
        let mut state = self.state.lock().expect("throttle lock");
        state.paused_until = Some(state.paused_until.map_or(until, |u| u.max(until)));
        // Without a configured rate, start limiting from a guess the 429 proves too high.
        let current = if state.limiter.is_some() { state.rate } else { 20.0 };
        state.rate = self.slower_than(current);
        state.limiter = Some(limiter(state.rate));
    }

    /// The next rate down from `current`: never below the floor, and never above the
    /// configured rate (a rate set below the floor stays where the user set it).
    fn slower_than(&self, current: f64) -> f64 {
        let stepped = (current * 0.7).max(MIN_RATE);
        match self.ceiling {
            Some(ceiling) => stepped.min(ceiling),
            None => stepped,
        }
    }

    /// A request went through: after enough of them, the rate climbs back toward the ceiling.
    pub fn succeeded(&self) {
        if self.successes.fetch_add(1, Ordering::Relaxed) + 1 < CLIMB_AFTER {
            return;
        }
        self.successes.store(0, Ordering::Relaxed);
        let mut state = self.state.lock().expect("throttle lock");
        let Some(current) = state.limiter.as_ref().map(|_| state.rate) else { return };
        let next = current * 1.25;
        match self.ceiling {
            Some(ceiling) if next >= ceiling => {
                if current < ceiling {
                    state.rate = ceiling;
                    state.limiter = Some(limiter(ceiling));
                }
            }
            // Unlimited runs drop the limiter again once the service has stopped objecting.
            None if next >= 1000.0 => state.limiter = None,
            _ => {
                state.rate = next;
                state.limiter = Some(limiter(next));
            }
        }
    }

    /// The rate currently allowed (requests per second), `None` when unlimited.
    pub fn current_rate(&self) -> Option<f64> {
        let state = self.state.lock().expect("throttle lock");
        state.limiter.as_ref().map(|_| state.rate)
    }
}

impl crate::pace::Pace for Throttle {
    fn current_rate(&self) -> Option<f64> {
        Throttle::current_rate(self)
    }

    fn retries_waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }
}

/// Rates outside this range are taken as its ends: a period must fit a `Duration`.
const RATE_RANGE: (f64, f64) = (1e-3, 1e6);

fn limiter(rate: f64) -> Arc<DefaultDirectRateLimiter> {
    let rate = if rate.is_finite() { rate.clamp(RATE_RANGE.0, RATE_RANGE.1) } else { RATE_RANGE.1 };
    let period = Duration::from_secs_f64(1.0 / rate);
    let quota = Quota::with_period(period)
        .expect("a positive rate gives a positive period")
        .allow_burst(NonZeroU32::MIN);
    Arc::new(RateLimiter::direct(quota))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_rate_steps_down_on_429_and_climbs_back() {
        let throttle = Throttle::new(10.0);
        assert_eq!(throttle.current_rate(), Some(10.0));
        throttle.rate_limited(Some(Duration::from_millis(1)));
        assert_eq!(throttle.current_rate(), Some(7.0));
        for _ in 0..CLIMB_AFTER {
            throttle.succeeded();
        }
        assert_eq!(throttle.current_rate(), Some(8.75));
        for _ in 0..CLIMB_AFTER {
            throttle.succeeded();
        }
        assert_eq!(throttle.current_rate(), Some(10.0), "never above the configured rate");
    }

    #[tokio::test]
    async fn a_429_never_raises_the_rate_above_the_configured_one() {
        for configured in [0.1, 0.3, 0.5, 0.7, 2.0] {
            let throttle = Throttle::new(configured);
            for _ in 0..3 {
                throttle.rate_limited(Some(Duration::from_millis(1)));
                let now = throttle.current_rate().unwrap();
                assert!(now <= configured, "{configured}/s became {now}/s after a 429");
            }
        }
        // Extreme settings never panic building a limiter.
        for rate in [1e-20, 1e20, f64::MIN_POSITIVE] {
            Throttle::new(rate).rate_limited(None);
        }
    }

    #[tokio::test]
    async fn a_429_pauses_every_worker_for_the_wait() {
        let throttle = Throttle::new(0.0);
        assert_eq!(throttle.current_rate(), None);
        // The clock starts before the 429, so a thread descheduled between the two lines on a
        // busy machine cannot shorten the measured wait (CI failed on exactly that).
        let started = std::time::Instant::now();
        throttle.rate_limited(Some(Duration::from_millis(200)));
        throttle.wait_turn().await;
        assert!(started.elapsed() >= Duration::from_millis(200), "{:?}", started.elapsed());
    }
}

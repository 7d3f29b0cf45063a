//! The waits between attempts of a call that may pass if sent again: growing exponentially from
//! [`Config::retry_backoff`](super::Config::retry_backoff) up to 2 s, each a random fraction of
//! the step ("full jitter", so that clients failing together spread apart), until a deadline
//! from the first attempt ([`Config::retry_deadline`](super::Config::retry_deadline)). It only
//! says how long to wait; whoever retries sleeps.

use std::time::{Duration, Instant};

/// The longest step between two attempts.
const MAX_STEP: Duration = Duration::from_secs(2);

/// The waits of one call's attempts, from its first attempt on.
#[derive(Debug)]
pub(crate) struct Backoff {
    step: Duration,
    deadline: Duration,
    started: Instant,
    attempts: u32,
}

impl Backoff {
    /// Waits starting at `first_step` (1 ms at the least: a step of zero would stay zero),
    /// within `deadline` of now (the first attempt).
    pub(crate) fn new(first_step: Duration, deadline: Duration) -> Backoff {
        Backoff {
            step: first_step.max(Duration::from_millis(1)),
            deadline,
            started: Instant::now(),
            attempts: 1,
        }
    }

    /// The wait before the next attempt (counted), or `None` when the attempt would begin at
    /// or past the deadline.
    pub(crate) fn next_wait(&mut self) -> Option<Duration> {
        let wait = self.step.mul_f64(jitter());
        if self.started.elapsed() + wait >= self.deadline {
            return None;
        }
        self.step = (self.step * 2).min(MAX_STEP);
        self.attempts += 1;
        Some(wait)
    }

    /// Attempts so far, the first included.
    pub(crate) fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Since the first attempt.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

/// A pseudo-random fraction in `[0, 1)`: every `RandomState` is seeded afresh, which is random
/// enough to spread clients apart.
fn jitter() -> f64 {
    use std::hash::BuildHasher;
    let bits = std::collections::hash_map::RandomState::new().hash_one(0u8);
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_grow_to_two_seconds_within_the_deadline() {
        let mut backoff = Backoff::new(Duration::from_millis(50), Duration::from_secs(3600));
        let waits: Vec<Duration> = (0..10).map(|_| backoff.next_wait().unwrap()).collect();
        assert_eq!(backoff.attempts(), 11);
        for (i, wait) in waits.iter().enumerate() {
            let step = (Duration::from_millis(50) * (1 << i)).min(MAX_STEP);
            assert!(
                *wait < step,
                "wait {i}: {wait:?} not under its step {step:?}"
            );
        }
    }

    #[test]
    fn jitter_stays_within_the_step() {
        for _ in 0..1000 {
            let j = jitter();
            assert!((0.0..1.0).contains(&j), "{j}");
        }
    }

    #[test]
    fn no_wait_past_the_deadline() {
        let mut backoff = Backoff::new(Duration::from_millis(50), Duration::ZERO);
        assert_eq!(backoff.next_wait(), None);
        assert_eq!(backoff.attempts(), 1);
    }
}

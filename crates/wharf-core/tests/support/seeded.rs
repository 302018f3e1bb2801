//! Randomness a failing test can replay: a seed printed at the start, taken from an environment variable when set.
//! Shared by the crash tests here and wharf's load test (crates/wharf-cli/tests/load.rs includes this file).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::{SystemTime, UNIX_EPOCH};

/// Marsaglia's xorshift64: enough to spread kill points and choices, and replayable from the printed seed.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The seed in `var` (to replay a failing run), else a fresh one; printed either way.
pub fn seed(label: &str, var: &str) -> u64 {
    let seed = match std::env::var(var) {
        Ok(seed) => seed.parse().expect("a number"),
        Err(_) => {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        }
    };
    println!("{label}: seed {seed} (replay with {var}={seed})");
    seed
}

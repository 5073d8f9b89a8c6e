//! Uncontended `fastpath::sync::enter` + `exit` from Rust: the time of one
//! pair, in ns, per round; the baseline `bench/enter_exit.c` (the same pair
//! through the C ABI) is compared with by `bench/enter_exit.sh`.
//! Usage: `cargo run --release -p fastpath-capi --example enter_exit --
//! [pairs] [rounds]`.

use std::hint::black_box;
use std::pin::pin;
use std::time::Instant;

use fastpath_core::sync::{self, Header, LockState};

fn main() {
    let mut args = std::env::args().skip(1);
    let pairs: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000_000);
    let rounds: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let obj = pin!(Header::new());
    // Warm up as the C program does: registers the thread.
    for _ in 0..1000 {
        sync::enter(obj.as_ref());
        let _ = sync::exit(obj.as_ref());
    }
    for _ in 0..rounds {
        let mut failures = 0u32;
        let start = Instant::now();
        for _ in 0..pairs {
            // black_box: the header is re-read every iteration, as the C
            // caller passes a pointer the compiler cannot see through.
            let h = black_box(obj.as_ref());
            sync::enter(h);
            failures += sync::exit(h).is_err() as u32;
        }
        let ns = start.elapsed().as_nanos() as f64 / pairs as f64;
        assert_eq!(failures, 0);
        println!("rust_enter_exit_ns {ns:.3}");
    }
    assert_eq!(obj.lock_state(), LockState::Unlocked);
}

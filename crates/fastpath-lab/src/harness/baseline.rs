//! The CAS pair: the baseline every lock row is read against (`fastpath
//! lock`'s pairs table, `fastpath jit`'s lock table), one loop for both.
//!
//! Where it sits: an experiment times [`cas_pair`] in the same run, the
//! same way, as the rows it judges, and divides by it.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::black_box;

/// `n` times: CAS 01→00 on `word`, then `inside()`, then CAS 00→01, with
/// the orderings of a lock's fast path, so the baseline pays what a lock
/// must: Acquire on taking, Release on giving back. The load and the
/// failure orderings are Relaxed because the CAS validates them (nothing
/// is read through a failed CAS). `inside` is the critical section the
/// rows it is compared with run (nothing for `fastpath lock`'s pairs, the
/// counter's increment for `fastpath jit`'s).
#[inline(never)]
pub fn cas_pair(word: &AtomicUsize, n: u64, mut inside: impl FnMut()) {
    for _ in 0..n {
        let w = black_box(word);
        let v = w.load(Ordering::Relaxed);
        if w.compare_exchange(v, v & !3, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            inside();
            let _ = w.compare_exchange(v & !3, v, Ordering::Release, Ordering::Relaxed);
        }
    }
}

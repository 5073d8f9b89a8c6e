//! The Rust rows of `fastpath jit`: the same operations as the generated
//! loops, written as Rust calls into the library (what a runtime without a
//! JIT, or a JIT that calls instead of inlining, pays), and the baselines
//! of the same run (a CAS pair, parking_lot's uncontended pair).
//!
//! Where it sits: beside [`super::code`] and [`super::clif`]; each
//! function is an `#[inline(never)]` loop of `n` operations with the body
//! the generated loop has (`*counter += 1` inside each lock pair).

use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};

use fastpath::gc::{BarrierBits, NoBarriers};
use fastpath::gc::{GcMode, Heap, HeapConfig, Mutator, Static};
use fastpath::sync::{self, Header, Synchronized};
use fastpath::thread::ThreadBlock;

use crate::harness::black_box;

/// CAS 01→00 then 00→01 on a word around the increment, Acquire /
/// Release as a lock's fast paths: the baseline of the locking rows.
#[inline(never)]
pub fn cas_pair(word: &AtomicUsize, counter: &mut u64, n: u64) {
    for _ in 0..n {
        let w = black_box(word);
        // Relaxed load: the CAS validates it. Acquire on taking, Release on
        // giving back, as the lock fast paths; failure orderings Relaxed
        // (nothing is read through a failed CAS).
        let v = w.load(Ordering::Relaxed);
        if w.compare_exchange(v, v & !3, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            *black_box(&mut *counter) += 1;
            let _ = w.compare_exchange(v & !3, v, Ordering::Release, Ordering::Relaxed);
        }
    }
}

/// parking_lot's uncontended lock, increment, unlock.
#[inline(never)]
pub fn parking_lot_pairs(m: &parking_lot::Mutex<u64>, n: u64) {
    for _ in 0..n {
        *black_box(m).lock() += 1;
    }
}

/// `sync::enter_on`, increment, `sync::exit_on`: the thread block passed
/// in, as generated code passes it in a register.
#[inline(never)]
pub fn enter_exit_on(t: &ThreadBlock, h: Pin<&Header>, counter: &mut u64, n: u64) {
    for _ in 0..n {
        let h = black_box(h);
        sync::enter_on(t, h);
        *black_box(&mut *counter) += 1;
        let _ = sync::exit_on(t, h);
    }
}

/// `Synchronized::lock`, increment through the guard, unlock.
#[inline(never)]
pub fn synchronized_pairs(v: Pin<&Synchronized<u64>>, n: u64) {
    for _ in 0..n {
        if let Ok(mut g) = black_box(v).lock() {
            *g += 1;
        }
    }
}

/// A fresh header per pair (`enter_on`/`exit_on`).
#[inline(never)]
pub fn churn_on(t: &ThreadBlock, counter: &mut u64, n: u64) {
    for _ in 0..n {
        let h = pin!(Header::new());
        let h = black_box(h.as_ref());
        sync::enter_on(t, h);
        *black_box(&mut *counter) += 1;
        let _ = sync::exit_on(t, h);
    }
}

/// A passive-mode heap of barrier set `BITS`, its mutator on the calling
/// thread, and one object of one reference and one data word (its
/// reference field pointing to itself).
pub struct PassiveObject<const BITS: u16> {
    // The mutator before the heap: dropped first.
    m: Mutator<Static<BITS>>,
    _heap: Heap,
    obj: usize,
}

impl<const BITS: u16> PassiveObject<BITS> {
    /// Builds the heap (passive: no cycle runs unless asked; every barrier
    /// of `BITS` compiled in, idle) and the object.
    pub fn new() -> anyhow::Result<Self> {
        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits(BITS), GcMode::Passive))
            .map_err(|e| anyhow::anyhow!("passive heap: {e}"))?;
        let mut m = heap
            .mutator::<Static<BITS>>()
            .map_err(|e| anyhow::anyhow!("mutator: {e}"))?;
        let h = m.alloc(1, 1).map_err(|e| anyhow::anyhow!("alloc: {e}"))?;
        let obj = m.get(h).map_err(|e| anyhow::anyhow!("{e}"))?.addr();
        Ok(PassiveObject { m, _heap: heap, obj })
    }

    /// `n` calls of `probe` (one of `fastpath::gc::probe`'s bare accesses
    /// under this set) on the object, storing the object into itself.
    #[inline(never)]
    pub fn run(&self, probe: fn(&Mutator<Static<BITS>>, &ThreadBlock, usize, usize) -> usize, n: u64) {
        // The block a JIT holds in its thread register, loaded once.
        let t = fastpath::thread::current();
        let mut sum = 0usize;
        for _ in 0..n {
            sum = sum.wrapping_add(probe(&self.m, t, black_box(self.obj), self.obj));
        }
        black_box(sum);
    }
}

/// A passive heap without barriers, for the poll.
pub struct PassiveMutator {
    m: Mutator<NoBarriers>,
    _heap: Heap,
}

impl PassiveMutator {
    /// The heap and this thread's mutator.
    pub fn new() -> anyhow::Result<Self> {
        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::NONE, GcMode::Passive))
            .map_err(|e| anyhow::anyhow!("passive heap: {e}"))?;
        let m = heap
            .mutator::<NoBarriers>()
            .map_err(|e| anyhow::anyhow!("mutator: {e}"))?;
        Ok(PassiveMutator { m, _heap: heap })
    }

    /// `n` safepoint polls (`Mutator::safepoint_poll`, inlined here).
    #[inline(never)]
    pub fn polls(&mut self, n: u64) {
        for _ in 0..n {
            black_box(&mut self.m).safepoint_poll();
        }
    }
}

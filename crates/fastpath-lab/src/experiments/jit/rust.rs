//! The Rust rows of `fastpath jit`: the same operations as the generated
//! loops, written as Rust calls into the library (what a runtime without a
//! JIT, or a JIT that calls instead of inlining, pays), and parking_lot's
//! uncontended pair, a baseline of the same run (the other, the CAS pair,
//! is `harness::baseline::cas_pair` around the same increment).
//!
//! Where it sits: beside [`super::code`] and [`super::clif`]; each
//! function is an `#[inline(never)]` loop of `n` operations with the body
//! the generated loop has (`*counter += 1` inside each lock pair).

use std::pin::{pin, Pin};

use fastpath::gc::{BarrierBits, NoBarriers};
use fastpath::gc::{GcMode, Heap, HeapConfig, Mutator, Static};
use fastpath::sync::{self, Header, Synchronized};
use fastpath::thread::ThreadBlock;

use crate::harness::black_box;

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
        let mut config = HeapConfig::new(4 << 20, BarrierBits(BITS), GcMode::Passive);
        // `Static<BITS>` is a full-width type, whatever `FASTPATH_GC_REFS` says.
        config.refs = fastpath::gc::layout::RefWidth::Full;
        let heap = Heap::new(config).map_err(|e| anyhow::anyhow!("passive heap: {e}"))?;
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
        let mut config = HeapConfig::new(4 << 20, BarrierBits::NONE, GcMode::Passive);
        // `NoBarriers` is a full-width type, whatever `FASTPATH_GC_REFS` says.
        config.refs = fastpath::gc::layout::RefWidth::Full;
        let heap = Heap::new(config).map_err(|e| anyhow::anyhow!("passive heap: {e}"))?;
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

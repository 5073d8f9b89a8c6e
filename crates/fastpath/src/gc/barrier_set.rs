//! Barrier sets as types, so every fast path is monomorphised.
//!
//! Where it sits: [`super::Mutator`] is generic over a [`BarrierSet`]; each
//! barrier's code in `barriers/` is guarded by `B::has(bit)`, which for a
//! [`Static`] set is a constant, so the compiler keeps exactly the barriers
//! of the set and nothing else (the MMTk `barriers.rs` / HotSpot
//! `BarrierSet::AccessBarrier<decorators>` approach). [`Dynamic`] reads the
//! set from the heap at run time, for any set: correct, but each barrier
//! adds a test of the set to its fast path. [`with_barrier_set`] turns a
//! set chosen at run time into its type.
//!
//! One set, one name per layer: the type (`ShenandoahBarriers`) in code,
//! the preset's word (`shenandoah`, a [`Preset`]) in `FASTPATH_GC_BARRIERS`
//! and the lab, and [`BarrierBits::SHENANDOAH`] as the value both stand
//! for. A program that picks its set in code names it once, as the type:
//! [`HeapConfig::for_set`](super::HeapConfig::for_set) builds the heap from
//! it, so its mutators of that type always match; a heap whose set comes
//! from the environment is checked against a static mutator type when the
//! mutator is made ([`super::GcError::BarrierMismatch`]), or is used
//! through [`Dynamic`].

use super::layout::RefWidth;
use super::settings::{Barrier, BarrierBits, Preset};
use crate::setting::Choices;

/// A barrier set, chosen at compile time ([`Static`]) or run time
/// ([`Dynamic`]).
pub trait BarrierSet: 'static {
    /// The set's bits when known at compile time.
    const BITS: Option<u16>;
    /// The width of the heap's reference slots when known at compile time
    /// (`gc::layout::RefWidth`): a reference access then carries no test
    /// of the width, as a barrier carries no test of the set.
    const REFS: Option<RefWidth>;

    /// Whether the set has `b`, given the heap's run-time set `dynamic`.
    #[inline(always)]
    fn has(b: Barrier, dynamic: u16) -> bool {
        match Self::BITS {
            Some(bits) => bits & b.bit() != 0,
            None => dynamic & b.bit() != 0,
        }
    }

    /// The width of the reference slots, given the heap's `dynamic` one.
    #[inline(always)]
    fn refs(dynamic: RefWidth) -> RefWidth {
        match Self::REFS {
            Some(w) => w,
            None => dynamic,
        }
    }
}

/// A compile-time barrier set: `BITS` is a [`BarrierBits`] value, for a
/// heap whose reference slots are 4 bytes when `COMPRESSED`, else
/// full-width (the default); 4-byte slots hold the address shifted right
/// by 3 (`FASTPATH_GC_REFS=compressed`), or the address itself when
/// `UNSCALED` too (`unscaled`).
pub struct Static<const BITS: u16, const COMPRESSED: bool = false, const UNSCALED: bool = false>;

impl<const BITS: u16, const COMPRESSED: bool, const UNSCALED: bool> BarrierSet
    for Static<BITS, COMPRESSED, UNSCALED>
{
    const BITS: Option<u16> = Some(BITS);
    const REFS: Option<RefWidth> = Some(match (COMPRESSED, UNSCALED) {
        (false, _) => RefWidth::Full,
        (true, false) => RefWidth::Compressed,
        (true, true) => RefWidth::Unscaled,
    });
}

/// The heap's own set and reference width, read at run time.
pub struct Dynamic;

impl BarrierSet for Dynamic {
    const BITS: Option<u16> = None;
    const REFS: Option<RefWidth> = None;
}

/// The `none` preset.
pub type NoBarriers = Static<{ BarrierBits::NONE.0 }>;
/// The `serial` preset (card).
pub type SerialBarriers = Static<{ BarrierBits::SERIAL.0 }>;
/// The `g1` preset (satb + g1-card).
pub type G1Barriers = Static<{ BarrierBits::G1.0 }>;
/// The `shenandoah-2017` preset (satb + brooks-wb + brooks-rb + cas).
pub type Shenandoah2017Barriers = Static<{ BarrierBits::SHENANDOAH_2017.0 }>;
/// The `shenandoah` preset (satb + lrb + cas).
pub type ShenandoahBarriers = Static<{ BarrierBits::SHENANDOAH.0 }>;
/// The `shenandoah` preset on a heap with compressed references.
pub type ShenandoahCompressedBarriers = Static<{ BarrierBits::SHENANDOAH.0 }, true>;
/// The `shenandoah` preset on a heap with unscaled references.
pub type ShenandoahUnscaledBarriers = Static<{ BarrierBits::SHENANDOAH.0 }, true, true>;
/// The `none` preset on a heap with unscaled references.
pub type NoBarriersUnscaled = Static<{ BarrierBits::NONE.0 }, true, true>;

/// What [`with_barrier_set`] runs: a function generic over the set's type,
/// which a closure cannot be.
pub trait WithBarrierSet {
    /// What the function returns.
    type Output;
    /// Runs with `B`, the type of the set `bits`.
    fn run<B: BarrierSet>(self, bits: BarrierBits) -> Self::Output;
}

/// The sets that get a [`Static`] type of their own: every preset, then
/// every barrier alone, from their tables.
const MONOMORPHISED: [u16; Preset::TABLE.len() + Barrier::TABLE.len()] = {
    let mut out = [0; Preset::TABLE.len() + Barrier::TABLE.len()];
    let mut i = 0;
    while i < Preset::TABLE.len() {
        out[i] = Preset::TABLE[i].value.bits().0;
        i += 1;
    }
    let mut j = 0;
    while j < Barrier::TABLE.len() {
        out[i + j] = Barrier::TABLE[j].value.bit();
        j += 1;
    }
    out
};

/// The `i`th monomorphised set (0 past the end: those arms never run).
const fn monomorphised(i: usize) -> u16 {
    if i < MONOMORPHISED.len() {
        MONOMORPHISED[i]
    } else {
        0
    }
}

/// Runs `f` with the type of the barrier set `bits` on a heap with
/// full-width references: [`Static`] for a
/// preset or a single barrier (every barrier's fast path compiled for
/// exactly that set), [`Dynamic`] for any other comma list (correct, with a
/// run-time test of the set in each barrier). The one place a set chosen at
/// run time (a name, `FASTPATH_GC_BARRIERS`) becomes a type. For a heap
/// whose references may be compressed, [`with_barrier_set_for`].
///
/// ```
/// use fastpath::gc::{with_barrier_set, BarrierBits, BarrierSet, WithBarrierSet};
/// struct Compiled;
/// impl WithBarrierSet for Compiled {
///     type Output = Option<u16>;
///     fn run<B: BarrierSet>(self, _bits: BarrierBits) -> Option<u16> {
///         B::BITS
///     }
/// }
/// let g1 = BarrierBits::G1;
/// assert_eq!(with_barrier_set(g1, Compiled), Some(g1.0));
/// let odd: BarrierBits = "satb,card".parse().unwrap();
/// assert_eq!(with_barrier_set(odd, Compiled), None);
/// ```
pub fn with_barrier_set<F: WithBarrierSet>(bits: BarrierBits, f: F) -> F::Output {
    macro_rules! arms {
        ($($i:literal)*) => {{
            const _: () = assert!(MONOMORPHISED.len() <= [$($i),*].len(), "add arms");
            match MONOMORPHISED.iter().position(|&b| b == bits.0) {
                $(Some($i) => f.run::<Static<{ monomorphised($i) }>>(bits),)*
                _ => f.run::<Dynamic>(bits),
            }
        }};
    }
    arms!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
}

/// [`with_barrier_set`] for a heap whose reference slots are `refs` wide:
/// the same types for full-width slots, [`Dynamic`] (which reads the width
/// at run time) for compressed and unscaled ones.
pub fn with_barrier_set_for<F: WithBarrierSet>(bits: BarrierBits, refs: RefWidth, f: F) -> F::Output {
    match refs {
        RefWidth::Full => with_barrier_set(bits, f),
        RefWidth::Compressed | RefWidth::Unscaled => f.run::<Dynamic>(bits),
    }
}

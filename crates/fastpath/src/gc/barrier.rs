//! Barrier sets as types, so every fast path is monomorphised.
//!
//! Where it sits: [`super::Mutator`] is generic over a [`BarrierSet`]; each
//! barrier's code in `mutator.rs` is guarded by `B::has(bit)`, which for a
//! [`Static`] set is a constant, so the compiler keeps exactly the barriers
//! of the set and nothing else (the MMTk `barriers.rs` / HotSpot
//! `BarrierSet::AccessBarrier<decorators>` approach). [`Dynamic`] reads the
//! set from the heap at run time, for sets only known from
//! `FASTPATH_GC_BARRIERS` (a comma list): correct, but each barrier adds a
//! test of the set to its fast path.

use super::settings::{Barrier, BarrierBits};

/// A barrier set, chosen at compile time ([`Static`]) or run time
/// ([`Dynamic`]).
pub trait BarrierSet: 'static {
    /// The set's bits when known at compile time.
    const BITS: Option<u16>;

    /// Whether the set has `b`, given the heap's run-time set `dynamic`.
    #[inline(always)]
    fn has(b: Barrier, dynamic: u16) -> bool {
        match Self::BITS {
            Some(bits) => bits & b.bit() != 0,
            None => dynamic & b.bit() != 0,
        }
    }
}

/// A compile-time barrier set: `BITS` is a [`BarrierBits`] value.
pub struct Static<const BITS: u16>;

impl<const BITS: u16> BarrierSet for Static<BITS> {
    const BITS: Option<u16> = Some(BITS);
}

/// The heap's own set, read at run time.
pub struct Dynamic;

impl BarrierSet for Dynamic {
    const BITS: Option<u16> = None;
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

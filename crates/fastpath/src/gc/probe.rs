//! One `#[inline(never)]` function per barrier fast path, for counting its
//! instructions in the release build's disassembly (`objdump -d`), as the
//! seed counted Shenandoah's write barrier. Each probe is the bare access
//! (no bounds or heap checks) under a one-barrier set; the `none` probe of
//! the same access is the baseline, so a barrier's cost is the difference
//! between the two functions' fast paths (the instructions from the entry to
//! the first `ret`; slow paths are `#[cold]` calls laid out after it).
//!
//! A probe takes the mutator and its thread block as two arguments, as the
//! barriers run on them (`mutator::Bound`): the block's address is in a register,
//! as HotSpot's compiled code holds the thread in `r15`, and the fast paths
//! read the block's GC fields at their published offsets from it. (The
//! block passed must be the mutator's: `Mutator` reaches it through
//! `crate::thread::current()`.)
//!
//! The lab's `fastpath gc` experiment and the `gc_disasm` test count them.

use super::barrier_set::Static;
use super::heap::mutator::{Bound, Mutator};
use super::settings::Barrier;
use crate::setting::Choices;
use crate::thread::ThreadBlock;

macro_rules! probes {
    ($($(#[$doc:meta])* $name:ident: $op:ident, $bits:expr;)*) => {
        $(
            $(#[$doc])*
            #[inline(never)]
            pub fn $name(m: &Mutator<Static<{ $bits }>>, t: &ThreadBlock, obj: usize, v: usize) -> usize {
                let b = Bound { m, t };
                probes!(@op $op, b, obj, v)
            }
        )*
        /// Every probe: (name, access, its one barrier; `None`: the
        /// access's baseline).
        pub const PROBES: &[(&str, &str, Option<Barrier>)] = &[$((stringify!($name), stringify!($op), barrier($bits))),*];
    };
    (@op load, $m:ident, $obj:ident, $v:ident) => {{ let _ = $v; $m.load_raw($obj, 0) }};
    (@op store, $m:ident, $obj:ident, $v:ident) => {{ $m.store_raw($obj, 0, $v); 0 }};
    (@op write, $m:ident, $obj:ident, $v:ident) => {{ $m.write_raw($obj, 1, 0, $v); 0 }};
    (@op cas, $m:ident, $obj:ident, $v:ident) => {{ $m.cas_raw($obj, 0, 0, $v) as usize }};
}

/// The barrier whose bit is `bits` (the probes use one barrier each; 0,
/// the baseline, is none), from the barrier table.
const fn barrier(bits: u16) -> Option<Barrier> {
    let mut i = 0;
    while i < Barrier::TABLE.len() {
        if Barrier::TABLE[i].value.bit() == bits {
            return Some(Barrier::TABLE[i].value);
        }
        i += 1;
    }
    None
}

probes! {
    /// Reference load, no barrier.
    probe_load_none: load, 0;
    /// Reference load with the Brooks read barrier.
    probe_load_brooks_rb: load, Barrier::BrooksRb.bit();
    /// Reference load with the LRB.
    probe_load_lrb: load, Barrier::Lrb.bit();
    /// Reference store, no barrier.
    probe_store_none: store, 0;
    /// Reference store with SATB.
    probe_store_satb: store, Barrier::Satb.bit();
    /// Reference store with the card mark.
    probe_store_card: store, Barrier::Card.bit();
    /// Reference store with the conditional card mark.
    probe_store_card_cond: store, Barrier::CardCond.bit();
    /// Reference store with G1's filtered card mark.
    probe_store_g1_card: store, Barrier::G1Card.bit();
    /// Reference store with the Brooks write barrier.
    probe_store_brooks_wb: store, Barrier::BrooksWb.bit();
    /// Data write, no barrier.
    probe_write_none: write, 0;
    /// Data write with the Brooks write barrier (the seed's case).
    probe_write_brooks_wb: write, Barrier::BrooksWb.bit();
    /// Reference CAS, no barrier.
    probe_cas_none: cas, 0;
    /// Reference CAS with the CAS barrier.
    probe_cas_cas: cas, Barrier::Cas.bit();
}

/// The probes' addresses, by name: taking them keeps every probe linked
/// into a binary that calls this (the lab does, then disassembles itself).
pub fn addresses() -> Vec<(&'static str, usize)> {
    macro_rules! addrs {
        ($($name:ident),*) => { vec![$((stringify!($name), $name as *const () as usize)),*] };
    }
    addrs!(
        probe_load_none,
        probe_load_brooks_rb,
        probe_load_lrb,
        probe_store_none,
        probe_store_satb,
        probe_store_card,
        probe_store_card_cond,
        probe_store_g1_card,
        probe_store_brooks_wb,
        probe_write_none,
        probe_write_brooks_wb,
        probe_cas_none,
        probe_cas_cas
    )
}

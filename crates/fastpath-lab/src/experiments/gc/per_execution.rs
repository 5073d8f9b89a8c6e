//! The seed's analysis, counted: what one barrier execution costs.
//!
//! Where it sits: after [`super::passive`] has profiled every row. The seed
//! (Shipilev, 2017) took the extra branches per operation as the number of
//! write barriers, then divided the extra instructions, loads and stores by
//! it, and found 6 instructions per 4-instruction barrier. Here the number
//! of executions is counted instead ([`super::workloads::count_accesses`]
//! gives the accesses per operation; [`executions`] maps them to the
//! barriers that run on each, as `fastpath::gc::mutator`'s table says), and
//! each counter's difference against the `none` row is divided by it
//! ([`per_execution`]). Set beside the barrier's fast path from the
//! disassembly ([`super::fast_paths`]), a row says whether the barrier
//! costs what its fast path says, or more (code the barrier displaced,
//! spills, lost scheduling).

use fastpath::gc::{Barrier, BarrierBits};

use super::workloads::PerOp as Accesses;
use crate::harness::perfnorm::PerOp;

/// Executions of barrier `b` per operation, in a set `set` (whose other
/// barriers can change where `b` runs: `brooks-rb` guards writes too when
/// `brooks-wb` is absent), for a workload issuing `a` per operation.
pub fn executions_of(b: Barrier, set: BarrierBits, a: &Accesses) -> f64 {
    let stores = a.stores + a.cas;
    match b {
        Barrier::Satb | Barrier::Card | Barrier::CardCond | Barrier::G1Card => stores,
        Barrier::BrooksRb if set.has(Barrier::BrooksWb) => a.loads + a.reads,
        Barrier::BrooksRb => a.loads + a.reads + stores + a.writes,
        Barrier::BrooksWb => stores + a.writes,
        Barrier::Lrb => a.loads,
        Barrier::Cas => a.cas,
    }
}

/// Barrier executions per operation of every barrier in `set`.
pub fn executions(set: BarrierBits, a: &Accesses) -> f64 {
    set.barriers()
        .map(|b| executions_of(b, set, a))
        .fold(0.0, |s, e| s + e)
}

/// The counters [`per_execution`] compares, by perfnorm name, with the
/// table's column headers.
pub const COUNTERS: [(&str, &str); 4] = [
    ("instructions", "Δinsns"),
    ("L1-dcache-loads", "Δloads"),
    ("L1-dcache-stores", "Δstores"),
    ("branches", "Δbranches"),
];

/// `(counter - counter of none) / executions` for each of [`COUNTERS`]
/// (`None` for a counter either row lacks). `None` when the set executes
/// no barrier.
pub fn per_execution(row: &PerOp, none: &PerOp, executions: f64) -> Option<[Option<f64>; 4]> {
    if executions.is_nan() || executions <= 0.0 {
        return None;
    }
    let get = |v: &PerOp, n: &str| v.iter().find(|(k, _)| *k == n).map(|(_, s)| s.mean);
    Some(COUNTERS.map(|(name, _)| Some((get(row, name)? - get(none, name)?) / executions)))
}

/// The fast-path length of `set` from the disassembly counts: a single
/// barrier's (both of `brooks-wb`'s probes, `a/b`, when they differ);
/// `None` for a preset, whose barriers differ.
pub fn fast_path_of(set: BarrierBits, counts: &[(&str, usize)]) -> Option<String> {
    let mut it = set.barriers();
    let (Some(b), None) = (it.next(), it.next()) else {
        return None;
    };
    let mut found: Vec<usize> = counts
        .iter()
        .filter(|(n, _)| *n == b.name())
        .map(|(_, c)| *c)
        .collect();
    found.dedup();
    if found.is_empty() {
        return None;
    }
    Some(found.iter().map(usize::to_string).collect::<Vec<_>>().join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::perfnorm::normalise;

    fn accesses() -> Accesses {
        Accesses {
            loads: 5.0,
            stores: 2.0,
            cas: 1.0,
            reads: 1.0,
            writes: 1.0,
        }
    }

    #[test]
    fn executions_follow_the_mutators_barrier_table() {
        let a = accesses();
        let one = |b: Barrier| executions(BarrierBits(b.bit()), &a);
        assert_eq!(one(Barrier::Lrb), 5.0);
        assert_eq!(one(Barrier::Satb), 3.0, "stores and CASes");
        assert_eq!(one(Barrier::Card), 3.0);
        assert_eq!(one(Barrier::Cas), 1.0);
        assert_eq!(one(Barrier::BrooksWb), 4.0, "stores, CASes, writes");
        assert_eq!(one(Barrier::BrooksRb), 10.0, "alone it guards every access");
        // With brooks-wb beside it, brooks-rb guards only loads and reads.
        assert_eq!(
            executions(BarrierBits::SHENANDOAH_2017, &a),
            3.0 + 6.0 + 4.0 + 1.0
        );
        assert_eq!(executions(BarrierBits::SHENANDOAH, &a), 3.0 + 5.0 + 1.0);
        assert_eq!(executions(BarrierBits::NONE, &a), 0.0);
    }

    #[test]
    fn differences_are_divided_by_the_executions() {
        // The seed's figures per op: 40M barriers, +238M instructions,
        // +89M loads, +19M stores, +40M branches.
        let none = normalise(
            &[
                ("instructions", 1_659_000_000),
                ("L1-dcache-loads", 520_000_000),
                ("L1-dcache-stores", 198_000_000),
                ("branches", 320_000_000),
            ],
            1,
        );
        let wb = normalise(
            &[
                ("instructions", 1_897_000_000),
                ("L1-dcache-loads", 609_000_000),
                ("L1-dcache-stores", 217_000_000),
                ("branches", 360_000_000),
            ],
            1,
        );
        let v = per_execution(&wb, &none, 40e6).unwrap();
        assert!((v[0].unwrap() - 5.95).abs() < 1e-9, "{v:?}");
        assert!((v[1].unwrap() - 2.225).abs() < 1e-9);
        assert!((v[2].unwrap() - 0.475).abs() < 1e-9);
        assert!((v[3].unwrap() - 1.0).abs() < 1e-9);
        assert!(per_execution(&wb, &none, 0.0).is_none());
        // A counter one row lacks is None, not a zero.
        let partial = normalise(&[("instructions", 1_700_000_000)], 1);
        let v = per_execution(&partial, &none, 40e6).unwrap();
        assert!(v[0].is_some() && v[1].is_none());
    }

    #[test]
    fn fast_path_lengths_are_per_single_barrier() {
        let counts = [("lrb", 3), ("brooks-wb", 4), ("brooks-wb", 4), ("card-cond", 5)];
        assert_eq!(
            fast_path_of(BarrierBits(Barrier::Lrb.bit()), &counts).as_deref(),
            Some("3")
        );
        assert_eq!(
            fast_path_of(BarrierBits(Barrier::BrooksWb.bit()), &counts).as_deref(),
            Some("4")
        );
        assert_eq!(fast_path_of(BarrierBits::SHENANDOAH, &counts), None);
        assert_eq!(fast_path_of(BarrierBits(Barrier::Cas.bit()), &counts), None);
    }
}

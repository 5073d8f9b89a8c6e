//! Mutators that run the heap dry in the middle of concurrent cycles: with
//! pacing off, two mutators rebuild checksummed lists and make garbage on a
//! small heap as fast as they can, so their refills fail during marking,
//! evacuation and update-refs. A mutator that runs dry during evacuation
//! retries when init-update-refs returns the unused evacuation reserve; one
//! that runs dry during update-refs gets a degenerated pause that does only
//! final-update-refs' work (that phase being complete); during update-refs
//! the mutators may take the part of the standing reserve the collection
//! set's release gives back. None of it may lose an object or an update:
//! every list is checked against the mutator's model, the verifier runs
//! after every cycle, and no allocation may fail. Runs `FASTPATH_STRESS_MS`
//! (default 400 ms) and past that until a mutator ran dry during
//! evacuation or update-refs (300 s at most, then it fails); prints the
//! objects checked.

// The heap is not built under `--cfg loom` (only the protocols are).
#![cfg(not(loom))]

mod common;

use std::time::Instant;

use common::{stress_time, ListModel, Lists, NO_PROGRESS_LIMIT};
use fastpath::gc::{BarrierBits, Dynamic, GcMode, GcStats, Heap, HeapConfig};

const SLOTS: usize = 64;
const LISTS: Lists = Lists {
    slots: SLOTS,
    len: 16,
};

/// A verified cycle ran and a mutator ran dry during evacuation or
/// update-refs (the paths under test).
fn progressed(s: &GcStats) -> bool {
    s.verified_cycles > 0 && s.phases.evacuation.ran_dry + s.phases.update_refs.ran_dry > 0
}

fn mutator_loop(heap: &Heap, seed: u64, deadline: Instant) -> u64 {
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let mut model = ListModel::new(LISTS, &mut m, seed);
    let started = Instant::now();
    while Instant::now() < deadline || !progressed(&heap.stats()) {
        assert!(
            started.elapsed() < NO_PROGRESS_LIMIT,
            "no mutator ran dry during evacuation or update-refs in {NO_PROGRESS_LIMIT:?}: {:?}",
            heap.stats()
        );
        for _ in 0..4 {
            model.churn(&mut m, 256, 2, 14);
        }
        model.check_some(&m, 8);
    }
    model.check_all(&m)
}

fn ran_dry(bits: BarrierBits) {
    let mut c = HeapConfig::new(4 << 20, bits, GcMode::Concurrent);
    c.pacing = false;
    c.verify = true;
    let heap = Heap::new(c).unwrap();
    let deadline = Instant::now() + stress_time();
    let checked = std::thread::scope(|s| {
        let heap = &heap;
        let a = s.spawn(move || mutator_loop(heap, 0x9e37_79b9, deadline));
        let b = s.spawn(move || mutator_loop(heap, 0x7f4a_7c15, deadline));
        a.join().unwrap() + b.join().unwrap()
    });
    let st = heap.stats();
    let p = &st.phases;
    println!(
        "{bits}: {checked} objects checked, {} cycles, ran dry in mark/evacuation/update-refs {}/{}/{}, {} degenerated, {} full, {} verified runs ({} objects)",
        st.cycles,
        p.mark.ran_dry,
        p.evacuation.ran_dry,
        p.update_refs.ran_dry,
        st.degenerated_cycles,
        st.full_compactions,
        st.verified_cycles,
        st.verified_objects
    );
    assert!(st.verify_errors.is_empty(), "{:?}", st.verify_errors);
    assert!(progressed(&st));
    assert!(checked > 0);
}

#[test]
fn ran_dry_shenandoah() {
    ran_dry(BarrierBits::SHENANDOAH);
}

#[test]
fn ran_dry_shenandoah_2017() {
    ran_dry(BarrierBits::SHENANDOAH_2017);
}

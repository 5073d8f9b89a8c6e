//! Unit tests: each barrier's fast and slow path, errors, and collections
//! in both modes with the verifier on.

use std::sync::atomic::{AtomicUsize, Ordering};

use std::time::Duration;

use super::heap::space::{CLEAN_CARD, DIRTY_CARD};
use super::layout::RefWidth;
use super::*;

fn heap(bits: BarrierBits, mode: GcMode, mib: usize) -> Heap {
    heap_with(bits, mode, mib, RefWidth::Full)
}

/// As [`heap`], with reference slots of width `refs`.
fn heap_with(bits: BarrierBits, mode: GcMode, mib: usize, refs: RefWidth) -> Heap {
    let mut c = HeapConfig::new(mib << 20, bits, mode);
    c.verify = true;
    c.refs = refs;
    Heap::new(c).unwrap()
}

/// Puts the region of `obj` in the collection set and sets the state to
/// evacuation, as final-mark would (no mutator may be running elsewhere).
fn force_evacuation<B: BarrierSet>(h: &Heap, m: &mut Mutator<B>, obj: usize) {
    let s = &h.inner.space;
    s.region(obj).in_cset.store(true, Ordering::Relaxed);
    {
        // Retire the TLAB region so copies go elsewhere.
        let mut a = s.lock_alloc();
        a.current = None;
    }
    h.inner.gc_state.set(EVACUATION | HAS_FORWARDED);
    m.refresh_gc_state_for_test();
}

fn end_evacuation<B: BarrierSet>(h: &Heap, m: &mut Mutator<B>) {
    h.inner.gc_state.set(0);
    m.refresh_gc_state_for_test();
    for r in h.inner.space.regions.iter() {
        r.in_cset.store(false, Ordering::Relaxed);
    }
}

/// A handle and an object of `other`, made by a mutator of this thread
/// that is gone when this returns (a thread has one mutator at a time).
fn foreign_object(other: &Heap) -> (Handle, usize) {
    let mut m2 = other.mutator::<ShenandoahBarriers>().unwrap();
    let f = m2.alloc(0, 0).unwrap();
    let addr = m2.get(f).unwrap().addr();
    (f, addr)
}

#[test]
fn a_heap_made_for_a_set_type_takes_its_mutators() {
    let h = Heap::new(HeapConfig::for_set::<G1Barriers>(4 << 20, GcMode::Passive)).unwrap();
    assert_eq!(h.config().barriers, BarrierBits::G1);
    drop(h.mutator::<G1Barriers>().unwrap());
    assert!(matches!(
        h.mutator::<ShenandoahBarriers>(),
        Err(GcError::BarrierMismatch { .. })
    ));
    let d = Heap::new(HeapConfig::for_set::<Dynamic>(4 << 20, GcMode::Passive)).unwrap();
    assert_eq!(d.config().barriers, HeapConfig::from_config(4 << 20).barriers);
}

/// A static type names its reference width too: a heap of the other width
/// refuses it by name, `Dynamic` takes either; `with_barrier_set_for`
/// gives a compressed heap `Dynamic` and a full one the set's static type.
#[test]
fn a_static_type_of_the_other_reference_width_is_refused() {
    let full = heap_with(BarrierBits::SHENANDOAH, GcMode::Passive, 4, RefWidth::Full);
    let e = full
        .mutator::<ShenandoahCompressedBarriers>()
        .err()
        .expect("refused");
    assert!(matches!(
        e,
        GcError::RefWidthMismatch {
            heap: RefWidth::Full,
            mutator: RefWidth::Compressed
        }
    ));
    assert!(e.to_string().contains("Dynamic"), "{e}");
    drop(full.mutator::<ShenandoahBarriers>().unwrap());
    drop(full);
    let narrow = heap_with(BarrierBits::SHENANDOAH, GcMode::Passive, 4, RefWidth::Compressed);
    assert!(matches!(
        narrow.mutator::<ShenandoahBarriers>(),
        Err(GcError::RefWidthMismatch { .. })
    ));
    drop(narrow.mutator::<ShenandoahCompressedBarriers>().unwrap());
    drop(narrow.mutator::<Dynamic>().unwrap());
    drop(narrow);
    // Unscaled slots have no static type: the compressed one is refused.
    let unscaled = heap_with(BarrierBits::SHENANDOAH, GcMode::Passive, 4, RefWidth::Unscaled);
    assert!(matches!(
        unscaled.mutator::<ShenandoahCompressedBarriers>(),
        Err(GcError::RefWidthMismatch {
            heap: RefWidth::Unscaled,
            mutator: RefWidth::Compressed
        })
    ));
    drop(unscaled.mutator::<Dynamic>().unwrap());
    struct Refs;
    impl WithBarrierSet for Refs {
        type Output = (Option<u16>, Option<RefWidth>);
        fn run<B: BarrierSet>(self, _bits: BarrierBits) -> Self::Output {
            (B::BITS, B::REFS)
        }
    }
    let bits = BarrierBits::SHENANDOAH;
    assert_eq!(
        with_barrier_set_for(bits, RefWidth::Full, Refs),
        (Some(bits.0), Some(RefWidth::Full))
    );
    assert_eq!(
        with_barrier_set_for(bits, RefWidth::Compressed, Refs),
        (None, None)
    );
    assert_eq!(with_barrier_set_for(bits, RefWidth::Unscaled, Refs), (None, None));
}

#[test]
fn errors_are_values() {
    let h = heap(BarrierBits::SHENANDOAH, GcMode::Passive, 4);
    let other = heap(BarrierBits::SHENANDOAH, GcMode::Passive, 4);
    let (f, foreign) = foreign_object(&other);
    let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
    assert!(matches!(
        h.mutator::<G1Barriers>(),
        Err(GcError::BarrierMismatch { .. })
    ));
    assert!(matches!(
        other.mutator::<ShenandoahBarriers>(),
        Err(GcError::ThreadHasMutator)
    ));
    let a = m.alloc(1, 1).unwrap();
    assert!(matches!(m.alloc(1 << 30, 0), Err(GcError::ObjectTooLarge { .. })));
    let o = m.get(a).unwrap();
    assert_eq!(m.load(o, 1), Err(GcError::FieldOutOfRange { index: 1, len: 1 }));
    assert_eq!(m.read(o, 1), Err(GcError::FieldOutOfRange { index: 1, len: 1 }));
    assert_eq!(m.get(f), Err(GcError::ForeignHandle));
    let foreign = Obj::new(foreign);
    assert_eq!(m.store(o, 0, Some(foreign)), Err(GcError::ForeignObject));
    assert_eq!(m.store(foreign, 0, None), Err(GcError::ForeignObject));
    let depth = m.roots_len();
    let b = m.alloc(0, 0).unwrap();
    m.truncate_roots(depth);
    assert_eq!(m.get(b), Err(GcError::DanglingHandle));
    let c = m.alloc(0, 0).unwrap(); // reuses b's slot: b stays dangling
    assert!(m.get(c).is_ok());
    assert_eq!(m.get(b), Err(GcError::DanglingHandle));
    let mut bad = HeapConfig::new(4 << 20, BarrierBits::G1, GcMode::Concurrent);
    assert!(matches!(Heap::new(bad.clone()), Err(GcError::Config(_))));
    bad.mode = GcMode::Passive;
    bad.region_bytes = 1000;
    assert!(matches!(Heap::new(bad), Err(GcError::BadSize(_))));
}

/// The SATB barrier alone.
type SatbOnly = Static<{ Barrier::Satb.bit() }>;

/// A passive heap with the SATB barrier alone, its mutator, and three
/// objects: `a` with one reference field, `b` and `c` with none.
fn satb_heap_with_three() -> (Heap, Mutator<SatbOnly>, [Handle; 3]) {
    let h = heap(BarrierBits(Barrier::Satb.bit()), GcMode::Passive, 4);
    let mut m = h.mutator::<SatbOnly>().unwrap();
    let objects = [
        m.alloc(1, 0).unwrap(),
        m.alloc(0, 0).unwrap(),
        m.alloc(0, 0).unwrap(),
    ];
    (h, m, objects)
}

#[test]
fn satb_enqueues_the_overwritten_value_only_while_marking() {
    let (h, mut m, [a, b, c]) = satb_heap_with_three();
    let (oa, ob, oc) = (m.get(a).unwrap(), m.get(b).unwrap(), m.get(c).unwrap());
    m.store(oa, 0, Some(ob)).unwrap();
    // Idle: nothing enqueued.
    m.store(oa, 0, Some(oc)).unwrap();
    // Objects are re-read from handles after the stop (the borrow
    // checker's rule).
    start_marking_for_test(&h, &mut m);
    let (oa, ob, oc) = (m.get(a).unwrap(), m.get(b).unwrap(), m.get(c).unwrap());
    m.store(oa, 0, Some(ob)).unwrap(); // overwrites c
    assert!(m.cas(oa, 0, Some(ob), None).unwrap()); // overwrites b
    m.store(oa, 0, Some(oc)).unwrap(); // overwrites null: nothing
    let (ca, cb) = (oc.addr(), ob.addr());
    end_marking_for_test(&h, &mut m);
    assert_eq!(*h.inner.satb_queue(), vec![ca, cb]);
}

/// Marking as the mutator sees it after init-mark: the state, every
/// region's TAMS at its top, the mutator's copy of the state refreshed (as
/// at its next stop).
fn start_marking_for_test<B: BarrierSet>(h: &Heap, m: &mut Mutator<B>) {
    h.inner.gc_state.set(MARKING);
    begin_marking_for_test(h, m);
    m.refresh_gc_state_for_test();
}

/// Marking's end as the SATB tests need it: the state cleared, the
/// mutator's queue flushed to the heap's.
fn end_marking_for_test<B: BarrierSet>(h: &Heap, m: &mut Mutator<B>) {
    h.inner.gc_state.set(0);
    m.refresh_gc_state_for_test();
    m.retire_local_for_test();
}

/// A flush moves to the heap's queue only what the marker still has to
/// mark: an overwritten object marked meanwhile, or allocated since marking
/// began (above its region's TAMS), is left out.
#[test]
fn satb_flush_leaves_out_what_marking_has_live() {
    let (h, mut m, [a, b, c]) = satb_heap_with_three();
    start_marking_for_test(&h, &mut m);
    let d = m.alloc(0, 0).unwrap();
    let (oa, ob, oc, od) = (
        m.get(a).unwrap(),
        m.get(b).unwrap(),
        m.get(c).unwrap(),
        m.get(d).unwrap(),
    );
    assert!(od.addr() >= h.inner.space.region(od.addr()).tams.load(Ordering::Relaxed));
    m.store(oa, 0, Some(ob)).unwrap(); // overwrites null: nothing
    m.store(oa, 0, Some(oc)).unwrap(); // overwrites b, not marked: kept
    m.store(oa, 0, Some(od)).unwrap(); // overwrites c, marked before the flush
    m.store(oa, 0, None).unwrap(); // overwrites d, allocated while marking
    assert!(h.inner.space.mark(oc.addr()), "c was not marked yet");
    let kept = ob.addr();
    end_marking_for_test(&h, &mut m);
    assert_eq!(*h.inner.satb_queue(), vec![kept]);
}

#[test]
fn card_barriers_dirty_the_right_cards() {
    fn run<const B: u16>(cross_only: bool) {
        let h = heap(BarrierBits(B), GcMode::Passive, 4);
        let mut m = h.mutator::<Static<B>>().unwrap();
        let a = m.alloc(2, 0).unwrap();
        let b = m.alloc(0, 0).unwrap();
        let s = &h.inner.space;
        let (oa, ob) = (m.get(a).unwrap(), m.get(b).unwrap());
        // card and card-cond mark the object's card, g1-card the field's.
        let card = |o: Obj<'_>| {
            s.card(o.addr() + if cross_only { 16 } else { 0 })
                .load(Ordering::Relaxed)
        };
        assert_eq!(card(oa), CLEAN_CARD);
        m.store(oa, 0, Some(ob)).unwrap(); // same region
        m.store(oa, 1, None).unwrap(); // null
        assert_eq!(card(oa) == DIRTY_CARD, !cross_only, "same-region/null store");
        // A cross-region store: an object in another region.
        let far = loop {
            let x = m.alloc(0, 200).unwrap();
            let ox = m.get(x).unwrap().addr();
            if s.region_index(ox) != s.region_index(m.get(a).unwrap().addr()) {
                break x;
            }
        };
        let (oa, of) = (m.get(a).unwrap(), m.get(far).unwrap());
        m.store(oa, 0, Some(of)).unwrap();
        assert_eq!(card(oa), DIRTY_CARD, "cross-region store");
        m.retire_local_for_test();
        if cross_only {
            assert_eq!(h.inner.card_queue().len(), 1, "g1-card enqueues the card once");
        }
    }
    run::<{ Barrier::Card.bit() }>(false);
    run::<{ Barrier::CardCond.bit() }>(false);
    run::<{ Barrier::G1Card.bit() }>(true);
}

/// The barriers test the mutator's copy of the state byte: it must follow
/// the heap's byte on creation and on every way out of a stop.
#[test]
fn the_state_copy_follows_the_heap_at_every_way_out_of_a_stop() {
    let bits = BarrierBits(Barrier::Satb.bit());
    let h = heap(bits, GcMode::Passive, 4);
    let mut m = h.mutator::<Static<{ Barrier::Satb.bit() }>>().unwrap();
    assert_eq!(m.gc_state_for_test(), 0);
    // Creation: copies the byte as it is.
    h.inner.gc_state.set(MARKING);
    std::thread::scope(|s| {
        s.spawn(|| {
            let m2 = h.mutator::<Static<{ Barrier::Satb.bit() }>>().unwrap();
            assert_eq!(m2.gc_state_for_test(), MARKING);
        });
    });
    assert_eq!(m.gc_state_for_test(), 0, "a running mutator's copy holds");
    // Leaving a safe region (the byte changes while `m` is stopped).
    m.safe_region(|| h.inner.gc_state.set(EVACUATION));
    assert_eq!(m.gc_state_for_test(), EVACUATION);
    // The poll's slow path: a real pause from another thread.
    let inner = h.inner.clone();
    let pauser = std::thread::spawn(move || {
        assert!(inner.safepoint.begin(false));
        inner.gc_state.set(MARKING | HAS_FORWARDED);
        inner.safepoint.end(false, 0);
    });
    // The pause cannot finish before `m` stops at a poll.
    while !pauser.is_finished() {
        m.safepoint_poll();
        std::thread::yield_now();
    }
    pauser.join().unwrap();
    assert_eq!(m.gc_state_for_test(), MARKING | HAS_FORWARDED);
    // A passive collection: its pause leaves the byte clear (cleared here
    // first: with nothing to evacuate the pause does not write it).
    h.inner.gc_state.set(0);
    assert_eq!(m.gc_state_for_test(), MARKING | HAS_FORWARDED);
    m.collect().unwrap();
    assert_eq!(m.gc_state_for_test(), 0);
    assert_eq!(h.inner.gc_state.get(), 0);
}

#[test]
fn brooks_barriers_read_and_write_through_the_copy() {
    let h = heap(BarrierBits::SHENANDOAH_2017, GcMode::Passive, 4);
    let mut m = h.mutator::<Shenandoah2017Barriers>().unwrap();
    let a = m.alloc(1, 2).unwrap();
    let b = m.alloc(0, 1).unwrap();
    let oa = m.get(a).unwrap();
    m.write(oa, 0, 7).unwrap();
    let from = oa.addr();
    force_evacuation(&h, &mut m, from);
    // The handles still hold the from-space addresses: `oa` is stale.
    let (oa, ob) = (m.get(a).unwrap(), m.get(b).unwrap());
    assert_eq!(oa.addr(), from);
    // brooks-wb: the write evacuates `a`, then lands in the copy.
    m.write(oa, 1, 9).unwrap();
    let to = h.inner.space.forwardee(from);
    assert_ne!(to, from, "evacuated on write");
    assert!(!h.inner.space.in_cset(to));
    // brooks-rb: reads through the stale reference see the copy's values.
    assert_eq!(m.read(oa, 0).unwrap(), 7);
    assert_eq!(m.read(oa, 1).unwrap(), 9);
    assert_eq!(h.inner.space.word(to + 16 + 8 * 2).load(Ordering::Relaxed), 9);
    m.store(oa, 0, Some(ob)).unwrap();
    assert!(m.same(m.load(oa, 0).unwrap(), Some(ob)));
    end_evacuation(&h, &mut m);
    assert_eq!(h.stats().evacuated_by_mutators, 1);
}

#[test]
fn lrb_evacuates_and_self_heals_and_cas_sees_through_copies() {
    lrb_self_heals::<ShenandoahBarriers>(RefWidth::Full);
    lrb_self_heals::<ShenandoahCompressedBarriers>(RefWidth::Compressed);
}

fn lrb_self_heals<B: BarrierSet>(refs: RefWidth) {
    let h = heap_with(BarrierBits::SHENANDOAH, GcMode::Passive, 4, refs);
    let mut m = h.mutator::<B>().unwrap();
    let holder = m.alloc(2, 0).unwrap();
    let target = m.alloc(0, 1).unwrap();
    let (oh, ot) = (m.get(holder).unwrap(), m.get(target).unwrap());
    m.write(ot, 0, 5).unwrap();
    m.store(oh, 0, Some(ot)).unwrap();
    m.store(oh, 1, Some(ot)).unwrap();
    let from = ot.addr();
    // The holder must not be in the set: move the target's region only if
    // they differ; allocate a fresh holder in another region otherwise.
    force_evacuation(&h, &mut m, from);
    let oh = m.get(holder).unwrap();
    h.inner
        .space
        .region(oh.addr())
        .in_cset
        .store(false, Ordering::Relaxed);
    if h.inner.space.region_index(oh.addr()) == h.inner.space.region_index(from) {
        // Same region: still a valid test of the LRB on the field value.
        h.inner.space.region(from).in_cset.store(true, Ordering::Relaxed);
    }
    let loaded = m.load(oh, 0).unwrap().unwrap();
    assert_ne!(loaded.addr(), from, "the LRB returns the to-space copy");
    assert_eq!(m.read(loaded, 0).unwrap(), 5);
    let s = &h.inner.space;
    let field = |i| s.load_ref(oh.addr() + refs.ref_offset(i), Ordering::Relaxed);
    assert_eq!(field(0), loaded.addr(), "field 0 is healed");
    assert_eq!(field(1), from, "field 1 still holds the from-space copy");
    // cas: expected is the to-space copy, the field holds the from-space one.
    assert!(
        m.cas(oh, 1, Some(loaded), None).unwrap(),
        "the CAS barrier retries a false failure"
    );
    assert_eq!(m.load(oh, 1).unwrap(), None);
    end_evacuation(&h, &mut m);
}

#[test]
fn passive_mode_collects_stop_the_world_when_the_heap_fills() {
    for bits in [
        BarrierBits::NONE,
        BarrierBits::G1,
        BarrierBits::SHENANDOAH,
        BarrierBits::SHENANDOAH_2017,
    ] {
        passive_collections_keep_a_list(bits, RefWidth::Full);
    }
    passive_collections_keep_a_list(BarrierBits::SHENANDOAH, RefWidth::Compressed);
    passive_collections_keep_a_list(BarrierBits::SHENANDOAH_2017, RefWidth::Compressed);
    passive_collections_keep_a_list(BarrierBits::SHENANDOAH, RefWidth::Unscaled);
    passive_collections_keep_a_list(BarrierBits::SHENANDOAH_2017, RefWidth::Unscaled);
}

fn passive_collections_keep_a_list(bits: BarrierBits, refs: RefWidth) {
    {
        let h = heap_with(bits, GcMode::Passive, 4, refs);
        let mut m = h.mutator::<Dynamic>().unwrap();
        let list = m.alloc(1, 1).unwrap();
        let mut len = 1;
        for i in 0..200_000usize {
            let depth = m.roots_len();
            let n = m.alloc(1, 1).unwrap();
            if i % 64 == 0 {
                // Keep one in 64: prepend to the list.
                let (on, ol) = (m.get(n).unwrap(), m.get(list).unwrap());
                m.write(on, 0, i).unwrap();
                let old = m.load(ol, 0).unwrap();
                m.store(on, 0, old).unwrap();
                m.store(ol, 0, Some(on)).unwrap();
                len += 1;
            }
            m.truncate_roots(depth);
        }
        // Walk the list: every kept node, in order.
        let mut count = 1;
        let mut cur = m.load(m.get(list).unwrap(), 0).unwrap();
        let mut expect = (199_999 / 64) * 64;
        while let Some(o) = cur {
            assert_eq!(m.read(o, 0).unwrap(), expect);
            expect = expect.wrapping_sub(64);
            count += 1;
            cur = m.load(o, 0).unwrap();
        }
        assert_eq!(count, len);
        let stats = h.stats();
        assert!(
            stats.cycles > 0,
            "{bits} {refs:?}: the heap filled and was collected"
        );
        assert_eq!(stats.verify_errors, Vec::<String>::new());
        assert_eq!(stats.verified_cycles, stats.cycles);
    }
}

/// A safe region keeps the TLAB when no pause ran during it (the next
/// object follows the last one, over the filler the region left) and drops
/// it when one did (the pause may have freed or moved its region); the
/// heap verifies after every cycle, and objects made on both sides of each
/// keep their contents.
#[test]
fn a_safe_region_keeps_the_tlab_unless_a_pause_ran() {
    let h = heap(BarrierBits::NONE, GcMode::Passive, 4);
    let mut m = h.mutator::<Dynamic>().unwrap();
    let size =
        |m: &Mutator<Dynamic>, a: Handle, b: Handle| m.get(b).unwrap().addr() - m.get(a).unwrap().addr();
    let a = m.alloc(1, 2).unwrap();
    m.write(m.get(a).unwrap(), 0, 11).unwrap();
    let b = m.alloc(1, 2).unwrap();
    let step = size(&m, a, b);
    m.safe_region(|| ());
    let c = m.alloc(1, 2).unwrap();
    assert_eq!(size(&m, b, c), step, "no pause: the same TLAB, the next cell");
    m.write(m.get(c).unwrap(), 1, 33).unwrap();

    // A collection by another mutator while this one is in a safe region.
    let (inside, collected) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|s| {
        s.spawn(|| {
            while inside.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            let mut other = h.mutator::<Dynamic>().unwrap();
            other.collect().unwrap();
            collected.store(1, Ordering::SeqCst);
        });
        m.safe_region(|| {
            inside.store(1, Ordering::SeqCst);
            while collected.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
        });
    });
    let d = m.alloc(1, 2).unwrap();
    let (cd, dd) = (m.get(c).unwrap().addr(), m.get(d).unwrap().addr());
    assert_ne!(dd, cd + step, "a pause ran: a new TLAB");
    assert_eq!(m.read(m.get(a).unwrap(), 0).unwrap(), 11);
    assert_eq!(m.read(m.get(c).unwrap(), 1).unwrap(), 33);
    m.collect().unwrap();
    let stats = h.stats();
    assert!(stats.cycles >= 2);
    assert_eq!(stats.verify_errors, Vec::<String>::new());
}

/// Writes `i` into the new node `n`; every eighth node is prepended to the
/// kept `list`. Returns what that adds to the list's sum.
fn keep_every_eighth(m: &Mutator<Dynamic>, list: Handle, n: Handle, i: usize) -> usize {
    let (on, ol) = (m.get(n).unwrap(), m.get(list).unwrap());
    m.write(on, 0, i).unwrap();
    if i % 8 != 0 {
        return 0;
    }
    let old = m.load(ol, 0).unwrap();
    m.store(on, 0, old).unwrap();
    m.store(ol, 0, Some(on)).unwrap();
    i
}

/// The sum of the values of a list kept by [`keep_every_eighth`].
fn list_sum(m: &Mutator<Dynamic>, list: Handle) -> usize {
    let mut total = 0;
    let mut cur = m.load(m.get(list).unwrap(), 0).unwrap();
    while let Some(o) = cur {
        total += m.read(o, 0).unwrap();
        cur = m.load(o, 0).unwrap();
    }
    total
}

/// The barrier sets and cell formats a concurrent collector runs: the
/// compact format (LRB), the LRB over Brooks cells, the Brooks barriers.
const CONCURRENT_SETS: [(BarrierBits, GcCellFormat, RefWidth); 6] = [
    (BarrierBits::SHENANDOAH, GcCellFormat::Auto, RefWidth::Full),
    (BarrierBits::SHENANDOAH, GcCellFormat::Brooks, RefWidth::Full),
    (BarrierBits::SHENANDOAH_2017, GcCellFormat::Auto, RefWidth::Full),
    (BarrierBits::SHENANDOAH, GcCellFormat::Auto, RefWidth::Compressed),
    (
        BarrierBits::SHENANDOAH_2017,
        GcCellFormat::Auto,
        RefWidth::Compressed,
    ),
    (BarrierBits::SHENANDOAH, GcCellFormat::Auto, RefWidth::Unscaled),
];

#[test]
fn concurrent_cycles_keep_a_list_intact() {
    for (bits, format, refs) in CONCURRENT_SETS {
        let mut c = HeapConfig::new(8 << 20, bits, GcMode::Concurrent);
        c.aggressive = true;
        c.verify = true;
        c.cell_format = format;
        c.refs = refs;
        let bits = format!("{bits} ({}, {refs:?})", format.name());
        let h = Heap::new(c).unwrap();
        let mut m = h.mutator::<Dynamic>().unwrap();
        let list = m.alloc(1, 0).unwrap();
        let mut sum = 0usize;
        let start = std::time::Instant::now();
        let mut i = 0usize;
        // At least 5 cycles, and until one of them has moved something: on
        // a loaded machine the collector can run its 5 cycles while this
        // thread has allocated too little for any region to be evacuable.
        let moved = |s: &GcStats| s.evacuated_by_collector + s.evacuated_by_mutators;
        while (h.stats().cycles < 5 || moved(&h.stats()) == 0) && start.elapsed().as_secs() < 300 {
            let depth = m.roots_len();
            let n = match m.alloc(1, 1) {
                Ok(n) => n,
                Err(e) => {
                    let s = h.stats();
                    panic!(
                        "{e} after {i} allocations: {} cycles, {} freed, {} moved, free {}, pauses {:?}",
                        s.cycles,
                        s.regions_freed,
                        s.evacuated_by_collector,
                        h.free_bytes(),
                        &s.pauses[s.pauses.len().saturating_sub(8)..]
                    );
                }
            };
            sum += keep_every_eighth(&m, list, n, i);
            m.truncate_roots(depth);
            i += 1;
        }
        assert_eq!(list_sum(&m, list), sum, "{bits}");
        drop(m);
        let stats = h.stats();
        assert!(stats.cycles >= 5, "{bits}: {} cycles", stats.cycles);
        assert_eq!(stats.verify_errors, Vec::<String>::new(), "{bits}");
        assert!(
            moved(&stats) > 0,
            "{bits}: nothing moved in {} cycles",
            stats.cycles
        );
    }
}

/// Objects locked with `fastpath::sync` while aggressive cycles run: two
/// threads increment a counter in a shared object under its lock (the
/// contention inflates it), one of them holding the lock across
/// allocations (safepoints); the locked object never moves, no increment
/// is lost, and every cycle verifies. Each thread runs `ROUNDS` rounds, and
/// more until a cycle has completed (a fast run can end before the first
/// cycle does), for at most 30 s.
#[test]
fn locking_while_the_collector_runs() {
    for bits in [BarrierBits::SHENANDOAH, BarrierBits::SHENANDOAH_2017] {
        let mut c = HeapConfig::new(8 << 20, bits, GcMode::Concurrent);
        c.aggressive = true;
        c.verify = true;
        let h = Heap::new(c).unwrap();
        let global = {
            let mut m = h.mutator::<Dynamic>().unwrap();
            let o = m.alloc(0, 1).unwrap();
            let g = m.make_global(m.get(o).unwrap()).unwrap();
            g
        };
        const ROUNDS: usize = 300;
        let rounds = AtomicUsize::new(0);
        let start = std::time::Instant::now();
        std::thread::scope(|s| {
            for t in 0..2 {
                let (h, rounds) = (&h, &rounds);
                s.spawn(move || {
                    let mut m = h.mutator::<Dynamic>().unwrap();
                    let mut round = 0;
                    while round < ROUNDS
                        || (h.stats().cycles == 0 && start.elapsed() < Duration::from_secs(30))
                    {
                        round += 1;
                        rounds.fetch_add(1, Ordering::SeqCst);
                        let depth = m.roots_len();
                        let root = m.root(m.global(global).unwrap()).unwrap();
                        let lock = m.lock(root).unwrap();
                        let held_at = h.inner.space.header(m.get(root).unwrap().addr()).get_ref() as *const _;
                        let o = m.get(root).unwrap();
                        let v = m.read(o, 0).unwrap();
                        if t == 0 && round % 10 == 0 {
                            // Hold the lock across safepoints.
                            for _ in 0..200 {
                                let d = m.roots_len();
                                m.alloc(2, 8).unwrap();
                                m.truncate_roots(d);
                            }
                        }
                        let o = m.get(root).unwrap();
                        assert_eq!(
                            h.inner.space.header(o.addr()).get_ref() as *const _,
                            held_at,
                            "a locked object never moves"
                        );
                        m.write(o, 0, v + 1).unwrap();
                        drop(lock);
                        for _ in 0..20 {
                            let d = m.roots_len();
                            m.alloc(1, 4).unwrap();
                            m.truncate_roots(d);
                        }
                        m.truncate_roots(depth);
                    }
                });
            }
        });
        let m = h.mutator::<Dynamic>().unwrap();
        let increments = rounds.load(Ordering::SeqCst);
        assert_eq!(
            m.read(m.global(global).unwrap(), 0).unwrap(),
            increments,
            "{bits}"
        );
        drop(m);
        let stats = h.stats();
        assert!(stats.cycles > 0, "{bits}: no cycle completed in 30 s of locking");
        assert_eq!(stats.verify_errors, Vec::<String>::new(), "{bits}");
        println!(
            "{bits}: {increments} increments under lock, {} cycles verified",
            stats.verified_cycles
        );
    }
}

/// The verifier is not vacuous: a reference into a free region, a
/// forwarded object and a set state byte are each reported.
#[test]
fn verifier_reports_a_broken_heap() {
    let h = heap(BarrierBits::SHENANDOAH, GcMode::Passive, 4);
    let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
    let a = m.alloc(1, 0).unwrap();
    let b = m.alloc(0, 0).unwrap();
    let (oa, ob) = (m.get(a).unwrap(), m.get(b).unwrap());
    m.store(oa, 0, Some(ob)).unwrap();
    m.retire_local_for_test();
    assert_eq!(h.inner.verify(), Ok(2));
    let s = &h.inner.space;
    let field = s.word(oa.addr() + 16);
    // A reference into a free region (the last one is never allocated here).
    let free = s.object_at_bottom(s.regions.last().unwrap());
    field.store(free, Ordering::Relaxed);
    assert!(h.inner.verify().unwrap_err().contains("free"));
    field.store(ob.addr(), Ordering::Relaxed);
    // A forwarded object (the compact format's record of a copy: the
    // original's layout word names it).
    let layout_word = s.word(ob.addr() + crate::gc::layout::LAYOUT_WORD_OFFSET);
    let own = layout_word.load(Ordering::Relaxed);
    layout_word.store(
        crate::gc::layout::forwarded_layout_word(oa.addr()),
        Ordering::Relaxed,
    );
    assert!(h.inner.verify().unwrap_err().contains("forwarded"));
    layout_word.store(own, Ordering::Relaxed);
    h.inner.gc_state.set(MARKING);
    assert!(h.inner.verify().unwrap_err().contains("state"));
    h.inner.gc_state.set(0);
    assert_eq!(h.inner.verify(), Ok(2));
}

/// Passive mode: an object locked across stop-the-world collections stays
/// where it is (its region is pinned) while everything around it moves.
#[test]
fn passive_collections_never_move_a_locked_object() {
    let h = heap(BarrierBits::SHENANDOAH_2017, GcMode::Passive, 4);
    let mut m = h.mutator::<Shenandoah2017Barriers>().unwrap();
    let keep = m.alloc(0, 1).unwrap();
    m.write(m.get(keep).unwrap(), 0, 77).unwrap();
    let before = m.get(keep).unwrap().addr();
    let lock = m.lock(keep).unwrap();
    for _ in 0..100_000 {
        let d = m.roots_len();
        m.alloc(2, 2).unwrap();
        m.truncate_roots(d);
    }
    assert!(h.stats().cycles > 0, "collections ran");
    let o = m.get(keep).unwrap();
    assert_eq!(o.addr(), before, "the locked object did not move");
    assert!(crate::sync::holds_lock(&h.inner.space.header(o.addr())));
    assert_eq!(m.read(o, 0).unwrap(), 77);
    drop(lock);
    assert!(!crate::sync::holds_lock(&h.inner.space.header(o.addr())));
    assert_eq!(h.stats().verify_errors, Vec::<String>::new());
}

/// Evacuation failure (no evacuation LAB is handed out): every object stays in
/// place, the collection is still correct (the list intact, the verifier
/// clean), the set's regions are kept rather than freed, and the next
/// collection frees them once their objects are dead.
#[test]
fn evacuation_failure_leaves_objects_in_place_and_keeps_their_regions() {
    for bits in [BarrierBits::SHENANDOAH, BarrierBits::SHENANDOAH_2017] {
        let mut c = HeapConfig::new(4 << 20, bits, GcMode::Passive);
        c.verify = true;
        c.evac_lab_limit = Some(0);
        let h = Heap::new(c).unwrap();
        let mut m = h.mutator::<Dynamic>().unwrap();
        let list = m.alloc(1, 1).unwrap();
        // One node in eight is kept: mostly garbage, so the set takes them.
        let mut kept = Vec::new();
        for i in 0..4000usize {
            let depth = m.roots_len();
            let n = m.alloc(1, 1).unwrap();
            if i % 8 == 0 {
                let (on, ol) = (m.get(n).unwrap(), m.get(list).unwrap());
                m.write(on, 0, i).unwrap();
                let old = m.load(ol, 0).unwrap();
                m.store(on, 0, old).unwrap();
                m.store(ol, 0, Some(on)).unwrap();
                kept.push((i, on.addr()));
            }
            m.truncate_roots(depth);
        }
        m.collect().unwrap();
        let stats = h.stats();
        assert_eq!(stats.verify_errors, Vec::<String>::new(), "{bits}");
        assert!(stats.evacuation_failures >= 1, "{bits}: evacuation failed");
        assert!(stats.regions_kept >= 1, "{bits}: the set's regions were kept");
        // The list is intact and nothing moved.
        let mut cur = m.load(m.get(list).unwrap(), 0).unwrap();
        for &(i, addr) in kept.iter().rev() {
            let o = cur.expect("node");
            assert_eq!((m.read(o, 0).unwrap(), o.addr()), (i, addr), "{bits}");
            cur = m.load(o, 0).unwrap();
        }
        assert!(cur.is_none());
        // The next collection can free a kept region once it is dead (the
        // last node's: the list head lives in the first region).
        let region = h.inner.space.region_index(kept.last().unwrap().1);
        assert_ne!(region, h.inner.space.region_index(m.get(list).unwrap().addr()));
        m.store(m.get(list).unwrap(), 0, None).unwrap();
        m.collect().unwrap();
        let stats = h.stats();
        assert_eq!(stats.verify_errors, Vec::<String>::new(), "{bits}");
        assert!(
            !h.inner.space.regions[region].used.load(Ordering::Relaxed),
            "{bits}: the kept region was freed by the next collection"
        );
    }
}

/// Evacuation that fails part-way: some of the set's objects copied, the
/// rest left in place. Every format keeps the list intact through the
/// cycle, the next one and a full compaction; in the compact format the
/// kept regions' copied originals have their own layout words back when
/// the cycle ends (no word of the heap names a copy), so the regions
/// parse without the copies.
#[test]
fn evacuation_failing_part_way_keeps_the_kept_regions_parsable() {
    for (bits, format, refs) in CONCURRENT_SETS {
        let mut c = HeapConfig::new(4 << 20, bits, GcMode::Passive);
        c.verify = true;
        c.cell_format = format;
        c.refs = refs;
        c.evac_lab_limit = Some(1);
        let h = Heap::new(c).unwrap();
        let what = format!("{bits} ({}, {refs:?})", format.name());
        let mut m = h.mutator::<Dynamic>().unwrap();
        let list = m.alloc(1, 1).unwrap();
        let mut sum = 0;
        for i in 0..40_000usize {
            let depth = m.roots_len();
            let n = m.alloc(1, 1).unwrap();
            sum += keep_every_eighth(&m, list, n, i);
            m.truncate_roots(depth);
        }
        let sum_of = |m: &Mutator<Dynamic>| list_sum(m, list);
        m.collect().unwrap();
        let stats = h.stats();
        assert_eq!(stats.verify_errors, Vec::<String>::new(), "{what}");
        assert!(stats.evacuation_failures >= 1, "{what}: evacuation failed");
        assert!(stats.regions_kept >= 1, "{what}: regions kept");
        assert!(
            stats.evacuated_by_collector > 0,
            "{what}: something was copied first"
        );
        let s = &h.inner.space;
        let mut parsed = 0;
        for r in s.regions.iter().filter(|r| r.used.load(Ordering::Relaxed)) {
            s.parse(r, r.top.load(Ordering::Relaxed), |obj| {
                let w = s
                    .word(obj + crate::gc::layout::LAYOUT_WORD_OFFSET)
                    .load(Ordering::Relaxed);
                assert!(
                    !crate::gc::layout::is_forwarded_layout_word(w),
                    "{what}: {obj:#x} names a copy"
                );
                parsed += 1;
            });
        }
        assert!(parsed > 5000, "{what}: {parsed} cells parsed");
        assert_eq!(sum_of(&m), sum, "{what}: after the failed cycle");
        m.collect().unwrap();
        assert_eq!(h.stats().verify_errors, Vec::<String>::new(), "{what}");
        assert_eq!(sum_of(&m), sum, "{what}: after the next cycle");
        m.retire_local_for_test();
        // This test's thread is the only mutator and makes no access
        // meanwhile: as in a pause.
        h.inner.full_compact();
        assert_eq!(h.inner.verify().map(|_| ()), Ok(()), "{what}");
        m.refresh_gc_state_for_test();
        assert_eq!(sum_of(&m), sum, "{what}: after a full compaction");
    }
}

/// Each way of waiting for a pause's end stops and releases mutators
/// correctly (two threads allocating a kept list while aggressive cycles
/// run), and every pause is decomposed: request-to-release covers reaching
/// and being at the safepoint, and released mutators record their resume.
#[test]
fn every_safepoint_wait_stops_releases_and_decomposes_pauses() {
    for wait in [
        SafepointWait::Futex,
        SafepointWait::SpinThenFutex,
        SafepointWait::Condvar,
    ] {
        let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
        c.aggressive = true;
        c.verify = true;
        c.safepoint_wait = wait;
        // Unpaced, so the mutators mostly stop at polls (a paced one waits
        // in a safe region, which a pause does not wait for).
        c.pacing = false;
        let h = Heap::new(c).unwrap();
        let resumed = |h: &Heap| {
            h.stats()
                .pauses
                .iter()
                .any(|p| p.resume > std::time::Duration::ZERO)
        };
        let sums: Vec<(usize, usize)> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..2)
                .map(|_| {
                    let h = &h;
                    s.spawn(move || {
                        let mut m = h.mutator::<Dynamic>().unwrap();
                        let list = m.alloc(1, 0).unwrap();
                        let (mut sum, mut i) = (0, 0);
                        let start = std::time::Instant::now();
                        // At least 5 cycles, and until a mutator stopped at a poll
                        // has been released (on a loaded machine the pauses can
                        // all fall while both are between polls in safe regions).
                        while (h.stats().cycles < 5 || !resumed(h)) && start.elapsed().as_secs() < 300 {
                            let depth = m.roots_len();
                            let n = m.alloc(1, 1).unwrap();
                            sum += keep_every_eighth(&m, list, n, i);
                            m.truncate_roots(depth);
                            i += 1;
                        }
                        (sum, list_sum(&m, list))
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        for (sum, total) in sums {
            assert_eq!(total, sum, "{wait:?}");
        }
        let stats = h.stats();
        assert!(stats.cycles >= 5, "{wait:?}: {} cycles", stats.cycles);
        assert_eq!(stats.verify_errors, Vec::<String>::new(), "{wait:?}");
        for p in &stats.pauses {
            assert!(p.duration >= p.time_to_safepoint + p.work, "{wait:?}: {p:?}");
        }
        assert!(resumed(&h), "{wait:?}: no released mutator recorded its resume");
    }
}

/// Runs `f` on its own thread and fails if it has not returned within
/// `secs` (a hang); the stuck thread is left behind.
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .unwrap_or_else(|e| panic!("{what}: {e:?} after {secs} s (hung or panicked)"))
}

#[test]
fn rooting_another_heaps_object_is_an_error_and_collections_go_on() {
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        let h = heap(BarrierBits::SHENANDOAH, mode, 4);
        let other = heap(BarrierBits::SHENANDOAH, GcMode::Passive, 4);
        let (_, foreign) = foreign_object(&other);
        let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
        assert_eq!(m.root(Obj::new(foreign)), Err(GcError::ForeignObject));
        let own = m.alloc(0, 1).unwrap();
        let again = m.root(m.get(own).unwrap()).unwrap();
        m.write(m.get(again).unwrap(), 0, 5).unwrap();
        m.collect().unwrap();
        m.collect().unwrap();
        assert_eq!(m.read(m.get(again).unwrap(), 0).unwrap(), 5);
        assert!(
            h.stats().verify_errors.is_empty(),
            "{:?}",
            h.stats().verify_errors
        );
    }
}

/// A panic in a collector pause poisons the heap: the stopped mutators are
/// released, and each allocation that needs a collection (and `collect`)
/// gets `Poisoned` instead of waiting forever.
#[test]
fn a_collector_panic_poisons_the_heap_instead_of_hanging_mutators() {
    let outcome = within(300, "mutators of a poisoned heap", || {
        let h = std::sync::Arc::new(heap(BarrierBits::SHENANDOAH, GcMode::Concurrent, 4));
        h.inner.panic_in_next_pause.store(true, Ordering::Relaxed);
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let h = h.clone();
                std::thread::spawn(move || {
                    let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
                    loop {
                        let d = m.roots_len();
                        let r = m.alloc(1, 16);
                        m.truncate_roots(d);
                        if let Err(e) = r {
                            return (e, m.collect());
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect::<Vec<_>>()
    });
    for (alloc, collect) in outcome {
        assert!(
            matches!(&alloc, GcError::Poisoned(msg) if msg.contains("injected")),
            "{alloc:?}"
        );
        assert!(matches!(collect, Err(GcError::Poisoned(_))), "{collect:?}");
    }
}

/// Passive mode: a panic in the stop-the-world collection, on a mutator's
/// own thread, ends the pause (the other mutator is released) and is
/// reported to both as `Poisoned`.
#[test]
fn a_passive_collection_panic_releases_the_other_mutators() {
    let outcome = within(300, "passive mutators of a poisoned heap", || {
        let h = std::sync::Arc::new(heap(BarrierBits::G1, GcMode::Passive, 4));
        // Corrupt a root: the collection's marking panics on it (an
        // address outside the heap), as a runtime bug could make it.
        let mut m = h.mutator::<G1Barriers>().unwrap();
        let a = m.alloc(0, 0).unwrap();
        m.shared.roots()[a.index as usize].addr = 8;
        let h2 = h.clone();
        let other = std::thread::spawn(move || {
            let mut m = h2.mutator::<G1Barriers>().unwrap();
            loop {
                let d = m.roots_len();
                let r = m.alloc(1, 16);
                m.truncate_roots(d);
                if let Err(e) = r {
                    return e;
                }
            }
        });
        let mine = m.collect();
        (mine, other.join().unwrap())
    });
    assert!(matches!(outcome.0, Err(GcError::Poisoned(_))), "{:?}", outcome.0);
    assert!(matches!(outcome.1, GcError::Poisoned(_)), "{:?}", outcome.1);
}

/// A global of a dropped heap never resolves on a later heap, even one
/// whose block landed at the same address.
#[test]
fn a_stale_global_is_refused_by_a_heap_at_the_same_address() {
    // The second heap asks for the first one's range (`NEXT_HEAP_AT`, a
    // mapping hint honoured when the range is free: another test's mapping
    // may take it meanwhile, so it is tried a number of times).
    let mut same_address = 0;
    for _ in 0..32 {
        let (stale, base) = {
            let h = heap(BarrierBits::G1, GcMode::Passive, 64);
            let mut m = h.mutator::<G1Barriers>().unwrap();
            let a = m.alloc(0, 0).unwrap();
            (m.make_global(m.get(a).unwrap()).unwrap(), h.inner.space.base)
        };
        crate::gc::heap::space::NEXT_HEAP_AT.with(|c| c.set(base));
        let h = heap(BarrierBits::G1, GcMode::Passive, 64);
        same_address += usize::from(h.inner.space.base == base);
        let mut m = h.mutator::<G1Barriers>().unwrap();
        let a = m.alloc(0, 0).unwrap();
        m.make_global(m.get(a).unwrap()).unwrap();
        assert_eq!(m.global(stale), Err(GcError::ForeignHandle));
        if same_address >= 2 {
            break;
        }
    }
    // The case the test is for: the allocator gave the freed block back.
    assert!(
        same_address > 0,
        "no heap reused the address; the test proved nothing"
    );
}

/// A heap the system cannot allocate is `HeapMemory`, not a size error;
/// each variant means one thing.
#[test]
fn an_unallocatable_heap_is_heap_memory() {
    // Beyond x86-64's and AArch64's 47/48-bit user address space: no
    // mapping can hold it, whatever the overcommit policy.
    let bytes = 1 << 48;
    let mut c = HeapConfig::new(bytes, BarrierBits::G1, GcMode::Passive);
    c.region_bytes = 32 << 20;
    let e = Heap::new(c).err().expect("refused");
    let GcError::HeapMemory {
        bytes: named,
        reserved,
        reason,
    } = &e
    else {
        panic!("{e:?}");
    };
    // The size asked for, the mapping's real size (one region more, to
    // align it) and the system's answer, each named.
    assert_eq!((*named, *reserved), (bytes, bytes + (32 << 20)));
    assert!(!reason.is_empty());
    let text = e.to_string();
    assert!(
        text.contains(&format!("{bytes} bytes ({} MiB)", bytes >> 20))
            && text.contains(&format!("mapping of {} bytes", bytes + (32 << 20)))
            && text.contains("align"),
        "{text}"
    );
}

/// The full compaction slides a sparse heap together: survivors and the
/// references between them intact (data, order, a locked object's region
/// left where it is), every region above the compacted ones freed, and the
/// verifier clean.
#[test]
fn full_compaction_slides_survivors_together_and_keeps_the_graph() {
    full_compaction_keeps_the_graph::<ShenandoahBarriers>(RefWidth::Full);
    full_compaction_keeps_the_graph::<ShenandoahCompressedBarriers>(RefWidth::Compressed);
}

fn full_compaction_keeps_the_graph<B: BarrierSet>(refs: RefWidth) {
    let h = heap_with(BarrierBits::SHENANDOAH, GcMode::Passive, 4, refs);
    let mut m = h.mutator::<B>().unwrap();
    let head = m.alloc(1, 0).unwrap();
    let pinned = m.alloc(0, 1).unwrap();
    m.write(m.get(pinned).unwrap(), 0, 99).unwrap();
    let lock = m.lock(pinned).unwrap();
    let pinned_at = m.get(pinned).unwrap().addr();
    let mut kept = 0;
    for i in 0..16_000 {
        let d = m.roots_len();
        let n = m.alloc(1, 2).unwrap();
        if i % 40 == 0 {
            let (no, ho) = (m.get(n).unwrap(), m.get(head).unwrap());
            m.write(no, 0, kept).unwrap();
            m.store(no, 0, m.load(ho, 0).unwrap()).unwrap();
            m.store(ho, 0, Some(no)).unwrap();
            kept += 1;
        }
        m.truncate_roots(d);
    }
    m.retire_local_for_test();
    let used = |h: &Heap| {
        h.inner
            .space
            .regions
            .iter()
            .filter(|r| r.used.load(Ordering::Relaxed))
            .count()
    };
    let before = used(&h);
    // This test's thread is the only mutator and makes no access meanwhile:
    // as in a pause.
    let freed = h.inner.full_compact();
    let after = used(&h);
    assert_eq!(before - after, freed);
    assert!(after * 4 < before, "{before} regions used before, {after} after");
    assert_eq!(h.inner.verify().map(|_| ()), Ok(()));
    m.refresh_gc_state_for_test();
    let mut cur = m.load(m.get(head).unwrap(), 0).unwrap();
    let mut i = kept;
    while let Some(node) = cur {
        i -= 1;
        assert_eq!(m.read(node, 0).unwrap(), i);
        cur = m.load(node, 0).unwrap();
    }
    assert_eq!(i, 0);
    assert_eq!(
        m.get(pinned).unwrap().addr(),
        pinned_at,
        "a locked object never moves"
    );
    assert_eq!(m.read(m.get(pinned).unwrap(), 0).unwrap(), 99);
    drop(lock);
    assert_eq!(h.stats().full_compactions, 1);
}

/// The collection-set map generated code reads names exactly the regions
/// whose flag is set, through the biased base and the region shift.
#[test]
fn cset_map_tracks_region_flags() {
    let h = heap(BarrierBits::SHENANDOAH, GcMode::Passive, 4);
    let m = h.mutator::<ShenandoahBarriers>().unwrap();
    let (biased, shift) = m.cset_map();
    let s = &h.inner.space;
    let byte = |a: usize| {
        // SAFETY: `a` is a heap address, so its byte is inside the map,
        // which lives as long as the heap.
        unsafe { ((biased + (a >> shift)) as *const u8).read_volatile() }
    };
    for (i, r) in s.regions.iter().enumerate() {
        assert_eq!(byte(r.bottom), 0, "region {i} starts outside the set");
        r.in_cset.store(i % 3 == 1, Ordering::Relaxed);
    }
    for (i, r) in s.regions.iter().enumerate() {
        let want = u8::from(i % 3 == 1);
        assert_eq!(byte(r.bottom), want, "region {i}'s first byte");
        assert_eq!(
            byte(r.bottom + s.region_bytes - 8),
            want,
            "region {i}'s last word"
        );
        r.in_cset.store(false, Ordering::Relaxed);
    }
}

/// The `extern "C"` slow paths run the Rust barriers' slow paths on the
/// calling thread's mutator: the LRB entry evacuates and heals, the SATB
/// entry enqueues (flushing a full buffer to the heap's queue).
#[test]
fn jit_slow_entries_share_the_rust_slow_paths() {
    jit_slow_entries_heal_and_enqueue::<ShenandoahBarriers>(RefWidth::Full);
    jit_slow_entries_heal_and_enqueue::<ShenandoahCompressedBarriers>(RefWidth::Compressed);
}

fn jit_slow_entries_heal_and_enqueue<B: BarrierSet>(refs: RefWidth) {
    let h = heap_with(BarrierBits::SHENANDOAH, GcMode::Passive, 4, refs);
    let mut m = h.mutator::<B>().unwrap();
    let holder = m.alloc(1, 0).unwrap();
    let target = m.alloc(0, 1).unwrap();
    let (oh, ot) = (m.get(holder).unwrap(), m.get(target).unwrap());
    m.write(ot, 0, 9).unwrap();
    m.store(oh, 0, Some(ot)).unwrap();
    let (from, field) = (ot.addr(), oh.addr() + refs.ref_offset(0));
    force_evacuation(&h, &mut m, from);
    let holder_region = h.inner.space.region(m.get(holder).unwrap().addr());
    if h.inner.space.region_index(field) != h.inner.space.region_index(from) {
        holder_region.in_cset.store(false, Ordering::Relaxed);
    }
    let block = crate::thread::current().as_ptr();
    let to = lrb_slow_entry(block, from, field);
    assert_ne!(to, from, "evacuated");
    assert_eq!(h.inner.space.load_ref(field, Ordering::Relaxed), to, "healed");
    assert_eq!(lrb_slow_entry(block, 0, field), 0, "null passes");
    end_evacuation(&h, &mut m);
    // SATB: a full queue is flushed to the heap's, then the value pushed
    // (marking as init-mark starts it, so that the copy, below its region's
    // TAMS and unmarked, is one the marker needs).
    begin_marking_for_test(&h, &m);
    let t = crate::thread::current();
    let before = h.inner.satb_queue().len();
    for _ in 0..crate::thread::SATB_BUFFER_WORDS {
        satb_slow_entry(block, to);
    }
    assert_eq!(t.satb_index.get(), 0, "the queue is full");
    satb_slow_entry(block, 0);
    assert_eq!(t.satb_index.get(), 0, "null is not enqueued");
    satb_slow_entry(block, to);
    assert_eq!(
        h.inner.satb_queue().len(),
        before + crate::thread::SATB_BUFFER_WORDS,
        "flushed"
    );
    assert_eq!(t.satb_index.get(), crate::thread::SATB_BUFFER_WORDS * 8 - 8);
    drop(m);
}

/// The reference CAS's `extern "C"` slow path: a false failure (the field
/// holds the from-space copy of the expected object) is retried and
/// succeeds, returning `expected`; a genuine failure returns the field's
/// value; null expected against a non-null field fails; `expected` itself
/// in the field succeeds.
#[test]
fn jit_cas_slow_entry_retries_false_failures() {
    // The compressed heap through `Dynamic`: the width read at run time.
    jit_cas_slow_entry_retries::<ShenandoahBarriers>(RefWidth::Full);
    jit_cas_slow_entry_retries::<Dynamic>(RefWidth::Compressed);
}

fn jit_cas_slow_entry_retries<B: BarrierSet>(refs: RefWidth) {
    let h = heap_with(BarrierBits::SHENANDOAH, GcMode::Passive, 4, refs);
    let mut m = h.mutator::<B>().unwrap();
    let holder = m.alloc(2, 0).unwrap();
    let target = m.alloc(0, 1).unwrap();
    let other = m.alloc(0, 0).unwrap();
    let (oh, ot) = (m.get(holder).unwrap(), m.get(target).unwrap());
    m.store(oh, 0, Some(ot)).unwrap();
    m.store(oh, 1, Some(ot)).unwrap();
    let (from, other) = (ot.addr(), m.get(other).unwrap().addr());
    let field = oh.addr() + refs.ref_offset(1);
    force_evacuation(&h, &mut m, from);
    let s = &h.inner.space;
    if s.region_index(field) != s.region_index(from) {
        s.region(field).in_cset.store(false, Ordering::Relaxed);
    }
    // Field 0's load evacuates the target and heals field 0; field 1 still
    // names the from-space copy.
    let oh = m.get(holder).unwrap();
    let to = m.load(oh, 0).unwrap().unwrap().addr();
    assert_ne!(to, from);
    assert_eq!(s.load_ref(field, Ordering::Relaxed), from);
    let block = crate::thread::current().as_ptr();
    assert_eq!(
        cas_ref_slow_entry(block, field, other, 0),
        from,
        "genuine: the witness"
    );
    assert_eq!(
        cas_ref_slow_entry(block, field, 0, other),
        from,
        "null expected: genuine"
    );
    assert_eq!(s.load_ref(field, Ordering::Relaxed), from, "nothing written");
    assert_eq!(
        cas_ref_slow_entry(block, field, to, other),
        to,
        "the false failure retried"
    );
    assert_eq!(s.load_ref(field, Ordering::Relaxed), other);
    assert_eq!(
        cas_ref_slow_entry(block, field, other, 0),
        other,
        "expected itself"
    );
    assert_eq!(s.load_ref(field, Ordering::Relaxed), 0);
    assert_eq!(
        cas_ref_slow_entry(block, field, 0, to),
        0,
        "null expected, null field"
    );
    assert_eq!(s.load_ref(field, Ordering::Relaxed), to);
    end_evacuation(&h, &mut m);
}

/// Every region's TAMS at its top and the marks cleared: what init-mark
/// leaves (the mutator's LABs retired first).
fn begin_marking_for_test<B: BarrierSet>(h: &Heap, m: &Mutator<B>) {
    m.retire_local_for_test();
    let s = &h.inner.space;
    s.clear_marks();
    for r in s.regions.iter() {
        r.start_marking();
        r.live_words.store(0, Ordering::Relaxed);
    }
}

/// A marking assist: with a marking phase's queues published, it marks
/// what the SATB queue holds, steals from the queues, stops at its budget,
/// and gives back what it marked but did not scan; the collector's trace
/// of that finishes the marking: every reachable object marked, the
/// garbage not. Nothing published: no work, nothing counted.
#[test]
fn a_marking_assist_steals_scans_and_gives_back_the_rest() {
    use super::collector::assist::Published;
    use super::collector::workers::TaskQueues;
    const CHAIN: usize = 500;
    let h = heap(BarrierBits::SHENANDOAH, GcMode::Passive, 8);
    let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
    let garbage = m.alloc(1, 0).unwrap();
    let satb_only = m.alloc(0, 1).unwrap();
    let mut chain = vec![m.alloc(1, 0).unwrap()];
    for _ in 1..CHAIN {
        let next = m.alloc(1, 0).unwrap();
        let (n, prev) = (m.get(next).unwrap(), m.get(*chain.last().unwrap()).unwrap());
        m.store(n, 0, Some(prev)).unwrap();
        chain.push(next);
    }
    let addr = |m: &Mutator<ShenandoahBarriers>, x: Handle| m.get(x).unwrap().addr();
    let (garbage, satb_only) = (addr(&m, garbage), addr(&m, satb_only));
    let chain: Vec<usize> = chain.iter().map(|&x| addr(&m, x)).collect();
    begin_marking_for_test(&h, &m);
    let inner = &h.inner;
    let mut seeds = Vec::new();
    inner.mark_object(*chain.last().unwrap(), &mut seeds);
    let q = std::sync::Arc::new(TaskQueues::new(1, seeds));
    inner.satb_queue().push(satb_only);
    assert_eq!(m.assist(64), 0, "nothing published: no work");
    inner.assists.publish(Published::Mark(q.clone()));
    let budget = 64;
    let words = m.assist(budget);
    let node_words = inner
        .space
        .cell_words(chain[0])
        .max(inner.space.cell_words(satb_only));
    assert!(
        words >= budget && words < budget + node_words,
        "{words} words for a budget of {budget} ({node_words} a node)"
    );
    assert!(inner.space.is_marked(satb_only), "the SATB entry is marked");
    let mut grey = inner.assists.take_grey();
    assert_eq!(grey.len(), 1, "the chain's next node, marked and not scanned");
    assert!(!q.steal(&mut Vec::new()), "the seed was stolen");
    inner.trace(&mut grey);
    inner.assists.withdraw();
    for (i, &n) in chain.iter().enumerate() {
        assert!(inner.space.is_marked(n), "chain node {i} marked");
    }
    assert!(!inner.space.is_marked(garbage), "garbage stays unmarked");
    let w = m.waits();
    assert_eq!(w.assist_slices, 1);
    assert!(w.assist > Duration::ZERO && w.total() >= w.assist);
    let st = h.stats();
    assert_eq!((st.assist_slices, st.assist_words), (1, words as u64));
    assert_eq!(m.assist(64), 0, "withdrawn: no work");
}

/// Region assists: with evacuation's claims published, a slice claims a
/// set region and copies its marked objects with the mutator's GCLAB (a
/// region is the unit: a budget of one word still does the whole
/// region); with the claims exhausted it finds nothing. Then with
/// update-refs' claims published, a slice heals the references into the
/// set of the region it claims.
#[test]
fn region_assists_evacuate_and_update_the_regions_they_claim() {
    use super::collector::assist::{Published, RegionClaims, RegionWork};
    const N: usize = 40;
    let h = heap(BarrierBits::SHENANDOAH, GcMode::Passive, 8);
    let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
    let objs: Vec<Handle> = (0..N)
        .map(|i| {
            let x = m.alloc(0, 1).unwrap();
            let o = m.get(x).unwrap();
            m.write(o, 0, 1000 + i).unwrap();
            x
        })
        .collect();
    // The holder in another region than the objects.
    m.retire_local_for_test();
    h.inner.space.lock_alloc().current = None;
    let holder = m.alloc(N, 0).unwrap();
    for (i, &x) in objs.iter().enumerate() {
        let (oh, o) = (m.get(holder).unwrap(), m.get(x).unwrap());
        m.store(oh, i, Some(o)).unwrap();
    }
    let inner = &h.inner;
    let s = &inner.space;
    let from: Vec<usize> = objs.iter().map(|&x| m.get(x).unwrap().addr()).collect();
    let holder_addr = m.get(holder).unwrap().addr();
    let set = s.region_index(from[0]);
    assert!(from.iter().all(|&a| s.region_index(a) == set), "one region");
    assert_ne!(s.region_index(holder_addr), set);
    begin_marking_for_test(&h, &m);
    let mut stack = Vec::new();
    inner.mark_object(holder_addr, &mut stack);
    inner.trace(&mut stack);
    assert!(from.iter().all(|&a| s.is_marked(a)));
    s.regions[set].in_cset.store(true, Ordering::Relaxed);
    s.lock_alloc().current = None;
    h.inner.gc_state.set(EVACUATION | HAS_FORWARDED);
    m.refresh_gc_state_for_test();
    let claims = std::sync::Arc::new(RegionClaims::new(vec![set], RegionWork::Evacuate));
    inner.assists.publish(Published::Regions(claims));
    let words = m.assist(1);
    assert_eq!(words, s.regions[set].live_words.load(Ordering::Relaxed));
    assert!(words > 0);
    for (i, &a) in from.iter().enumerate() {
        let to = s.forwardee(a);
        assert_ne!(to, a, "object {i} copied");
        assert_ne!(s.region_index(to), set);
        // Relaxed: this thread made the copy.
        let v = s.word(s.data_addr(to, 0, 0)).load(Ordering::Relaxed);
        assert_eq!(v, 1000 + i, "object {i}'s copy holds its data");
    }
    assert_eq!(m.assist(1), 0, "every region claimed: no work");
    inner.assists.withdraw();
    // Update-refs: every LAB closed, the watermarks at the tops.
    m.retire_local_for_test();
    h.inner.gc_state.set(HAS_FORWARDED);
    m.refresh_gc_state_for_test();
    for r in s.regions.iter() {
        r.watermark
            .store(r.top.load(Ordering::Relaxed), Ordering::Relaxed);
    }
    let hr = s.region_index(holder_addr);
    let claims = std::sync::Arc::new(RegionClaims::new(vec![hr], RegionWork::UpdateRefs));
    inner.assists.publish(Published::Regions(claims));
    assert!(m.assist(1) > 0);
    inner.assists.withdraw();
    for (i, &a) in from.iter().enumerate() {
        // Relaxed: this thread healed it.
        let v = s.load_ref(s.ref_addr(holder_addr, i), Ordering::Relaxed);
        assert_eq!(v, s.forwardee(a), "field {i} healed");
    }
    assert_eq!(m.waits().assist_slices, 2);
    end_evacuation(&h, &mut m);
}

/// A pause requested ends a slice after the object (marking) or before
/// the next region (evacuation, update-refs) at hand, whatever its budget:
/// the pause waits for the assisting mutator.
#[test]
fn an_assist_ends_at_the_object_at_hand_when_a_pause_is_requested() {
    use super::collector::assist::{Published, RegionClaims, RegionWork};
    use super::collector::workers::TaskQueues;
    use super::heap::space::Lab;
    let h = heap(BarrierBits::SHENANDOAH, GcMode::Passive, 8);
    let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
    let first = m.alloc(1, 0).unwrap();
    let second = m.alloc(1, 0).unwrap();
    let (a, b) = (m.get(first).unwrap(), m.get(second).unwrap());
    m.store(b, 0, Some(a)).unwrap();
    let (a, b) = (a.addr(), b.addr());
    begin_marking_for_test(&h, &m);
    let inner = &h.inner;
    let mut seeds = Vec::new();
    inner.mark_object(b, &mut seeds);
    let q = std::sync::Arc::new(TaskQueues::new(1, seeds));
    inner.assists.publish(Published::Mark(q));
    let lab = Lab::default();
    let words = inner.assist(&lab, usize::MAX, &|| true);
    assert_eq!(words, inner.space.cell_words(b), "one object scanned");
    assert_eq!(inner.assists.take_grey(), vec![a], "its child given back");
    let claims = std::sync::Arc::new(RegionClaims::new(vec![0, 1], RegionWork::UpdateRefs));
    inner.assists.publish(Published::Regions(claims.clone()));
    assert_eq!(inner.assist(&lab, usize::MAX, &|| true), 0, "no region claimed");
    assert_eq!(claims.claim(), Some(0), "the claims are untouched");
    inner.assists.withdraw();
}

/// The marking scanner (`collector/marking.rs`): a scan stopped part-way gives its
/// prefetch FIFO's objects back to the stack, so the trace that resumes
/// from that stack marks every reachable object and no garbage; each
/// region's live words are then exactly the cell words of its reachable
/// objects (the per-scanner cache flushed), and `monitor_seen` is set on
/// the region of a locked object and on no other.
#[test]
fn marking_gives_back_its_fifo_and_counts_live_words_per_region() {
    use super::collector::marking::{Scanner, RING};
    const FAN: usize = 3 * RING;
    let h = heap(BarrierBits::SHENANDOAH, GcMode::Passive, 8);
    let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
    let root = m.alloc(FAN, 0).unwrap();
    let mut reachable = vec![root];
    let mut garbage = Vec::new();
    let mut first_kid = None;
    for i in 0..FAN {
        // Sizes vary so that a miscount of any one object shows.
        let kid = m.alloc(2, i % 5).unwrap();
        first_kid.get_or_insert(kid);
        for j in 0..2 {
            let leaf = m.alloc(0, (i + j) % 3).unwrap();
            let (k, l) = (m.get(kid).unwrap(), m.get(leaf).unwrap());
            m.store(k, j, Some(l)).unwrap();
            // The first kid's second field is rewired below.
            if (i, j) == (0, 1) {
                garbage.push(leaf);
            } else {
                reachable.push(leaf);
            }
        }
        garbage.push(m.alloc(1, 1).unwrap());
        let (r, k) = (m.get(root).unwrap(), m.get(kid).unwrap());
        m.store(r, i, Some(k)).unwrap();
        reachable.push(kid);
    }
    // A locked object, alone in its own region, reached from the first kid.
    m.retire_local_for_test();
    h.inner.space.lock_alloc().current = None;
    let locked = m.alloc(0, 1).unwrap();
    let (k0, lo) = (m.get(first_kid.unwrap()).unwrap(), m.get(locked).unwrap());
    m.store(k0, 1, Some(lo)).unwrap();
    reachable.push(locked);
    let guard = m.lock(locked).unwrap();
    let addrs = |m: &Mutator<ShenandoahBarriers>, xs: &[Handle]| -> Vec<usize> {
        xs.iter().map(|&x| m.get(x).unwrap().addr()).collect()
    };
    let (live, dead) = (addrs(&m, &reachable), addrs(&m, &garbage));
    let locked_region = h.inner.space.region_index(m.get(locked).unwrap().addr());
    begin_marking_for_test(&h, &m);
    let inner = &h.inner;
    let s = &inner.space;
    for r in s.regions.iter() {
        r.monitor_seen.store(false, Ordering::Relaxed);
    }
    let mut stack = Vec::new();
    inner.mark_object(live[0], &mut stack);
    {
        let mut scanner = Scanner::new(inner);
        let obj = stack.pop().unwrap();
        scanner.step(obj, &mut stack);
        assert_eq!(stack.len(), FAN, "the root scanned: its kids grey");
        for _ in 0..RING / 2 {
            let obj = stack.pop().unwrap();
            scanner.step(obj, &mut stack);
        }
        assert_eq!(
            stack.len(),
            FAN - RING / 2,
            "half a FIFO queued, none scanned yet"
        );
        scanner.give_back(&mut stack);
        assert_eq!(stack.len(), FAN, "the queued kids back on the stack");
    }
    inner.trace(&mut stack);
    assert!(stack.is_empty());
    for (i, &a) in live.iter().enumerate() {
        assert!(s.is_marked(a), "reachable object {i} marked");
    }
    for (i, &a) in dead.iter().enumerate() {
        assert!(!s.is_marked(a), "garbage object {i} unmarked");
    }
    let mut expected = vec![0; s.regions.len()];
    for &a in &live {
        expected[s.region_index(a)] += s.cell_words(a);
    }
    for (i, r) in s.regions.iter().enumerate() {
        assert_eq!(
            r.live_words.load(Ordering::Relaxed),
            expected[i],
            "region {i}'s live words"
        );
        assert_eq!(
            r.monitor_seen.load(Ordering::Relaxed),
            i == locked_region,
            "region {i}'s monitor_seen"
        );
    }
    drop(guard);
}

/// One marking thread only when one worker marks and no assist can:
/// then marking sets bits with a plain write, which like the atomic one
/// reports a bit newly set exactly once.
#[test]
fn the_sole_marker_is_one_worker_without_assists() {
    for (workers, assists, sole) in [(1, false, true), (2, false, false), (1, true, false)] {
        let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Passive);
        (c.workers, c.assists) = (workers, assists);
        let h = Heap::new(c).unwrap();
        assert_eq!(h.inner.sole_marker, sole, "{workers} workers, assists {assists}");
        let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
        let (a, b) = (m.alloc(0, 1).unwrap(), m.alloc(0, 1).unwrap());
        let (a, b) = (m.get(a).unwrap().addr(), m.get(b).unwrap().addr());
        begin_marking_for_test(&h, &m);
        let s = &h.inner.space;
        assert!(s.mark_as_sole_marker(a) && !s.mark_as_sole_marker(a));
        assert!(s.is_marked(a) && !s.is_marked(b), "the neighbour's bit untouched");
        assert!(s.mark(b) && !s.mark_as_sole_marker(b));
    }
}

/// How [`a_lock_taken_after_marking_keeps_its_object_in_place`] holds
/// its object across final-mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HeldAs {
    /// Not locked: the control.
    Unlocked,
    /// Fast-locked: on the lock-stack only.
    LockStack,
    /// Fast-locked, then inflated by a `wait` (off the lock-stack, held).
    InflatedByWait,
    /// Stack-locked through a raw record (legacy mode).
    LegacyRecord,
    /// A monitor from the start (monitor mode).
    Monitor,
}

/// An object locked after marking scanned it (marking saw a plain unlocked
/// header and flagged nothing) and before final-mark, in a region
/// final-mark would otherwise choose (the control: the same object
/// unlocked moves), stays where it is through the collection, its lock
/// held and its data intact: a lock-stack entry or raw record because the
/// mutator pins their regions on its way into the stop, an inflated lock
/// because the call that inflated it flagged its region. While the
/// mutator runs, no region is pinned (the uncontended lock takes none).
#[test]
fn a_lock_taken_after_marking_keeps_its_object_in_place() {
    use crate::sync::{holds_lock, set_current_thread_locking_mode, LockState, LockingMode};
    let all = [
        HeldAs::Unlocked,
        HeldAs::LockStack,
        HeldAs::InflatedByWait,
        HeldAs::LegacyRecord,
        HeldAs::Monitor,
    ];
    for held in all {
        let mode = match held {
            HeldAs::LegacyRecord => LockingMode::Legacy,
            HeldAs::Monitor => LockingMode::Monitor,
            _ => LockingMode::Lightweight,
        };
        set_current_thread_locking_mode(mode).unwrap();
        let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Passive);
        c.verify = true;
        // Every region with live data is a candidate for the set.
        c.aggressive = true;
        let h = Heap::new(c).unwrap();
        let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
        let x = m.alloc(0, 1).unwrap();
        m.write(m.get(x).unwrap(), 0, 77).unwrap();
        let depth = m.roots_len();
        for _ in 0..64 {
            m.alloc(0, 7).unwrap(); // garbage beside it
        }
        m.truncate_roots(depth);
        let before = m.get(x).unwrap().addr();
        let s = &h.inner.space;
        // Init-mark and the trace, as a cycle's (the LABs retired, as the
        // mutator's stop for init-mark would).
        m.retire_local_for_test();
        s.clear_marks();
        let mut stack = Vec::new();
        h.inner.init_mark(&mut stack);
        h.inner.trace_parallel(&mut stack);
        assert!(s.is_marked(before), "{held:?}: scanned");
        let region = s.region(before);
        assert!(
            !region.monitor_seen.load(Ordering::Relaxed),
            "{held:?}: scanned unlocked"
        );
        if held != HeldAs::Unlocked {
            // SAFETY: an object of this heap, rooted by `x` until the exit.
            unsafe { m.monitor_enter_unchecked(before) };
        }
        if held == HeldAs::InflatedByWait {
            // SAFETY: as above; the wait's safe region is one of this
            // mutator's stops, before final-mark.
            let r = unsafe { m.monitor_wait_unchecked(before, Some(Duration::ZERO)) };
            assert!(r.is_ok() || r == Err(crate::sync::SyncError::TimedOut), "{r:?}");
        }
        let state = s.header(before).lock_state();
        let expected = match held {
            HeldAs::Unlocked => LockState::Unlocked,
            HeldAs::LockStack | HeldAs::LegacyRecord => LockState::FastLocked,
            HeldAs::InflatedByWait | HeldAs::Monitor => LockState::Inflated,
        };
        assert_eq!(state, expected, "{held:?}");
        let pinned = || {
            s.regions
                .iter()
                .map(|r| r.pins.load(Ordering::SeqCst))
                .sum::<usize>()
        };
        assert_eq!(pinned(), 0, "{held:?}: nothing pinned while the mutator runs");
        // Final-mark and the rest of the collection with this mutator
        // stopped (a safe region is one of its ways into a stop).
        let cycles = h.stats().cycles;
        m.safe_region(|| h.inner.stw_evacuate_and_finish());
        assert_eq!(h.stats().cycles, cycles + 1);
        assert_eq!(pinned(), 0, "{held:?}: the stop's pins dropped");
        let after = m.get(x).unwrap().addr();
        if held == HeldAs::Unlocked {
            assert_ne!(after, before, "unlocked, its region is chosen and it moves");
        } else {
            assert_eq!(after, before, "{held:?}: the locked object stays");
            assert!(holds_lock(&s.header(after)), "{held:?}");
            assert_eq!(m.read(m.get(x).unwrap(), 0).unwrap(), 77);
            // SAFETY: as above.
            unsafe { m.monitor_exit_unchecked(after) }.unwrap();
            assert!(!holds_lock(&s.header(after)), "{held:?}");
        }
        assert_eq!(h.stats().verify_errors, Vec::<String>::new(), "{held:?}");
        drop(m);
    }
    set_current_thread_locking_mode(LockingMode::Lightweight).unwrap();
}

/// Shenandoah's abbreviated cycle (`HeapConfig::immediate_garbage_percent`):
/// a list kept at the bottom of the first region, then 2 MiB of garbage,
/// so that nearly all the garbage the requested cycle finds lies in
/// regions with nothing live. At the default threshold (90 %) the cycle
/// ends at final-mark: two pauses, no collection set, nothing moved, the
/// dead regions free. At 100 % the same heap evacuates the first region
/// (mostly garbage) with the four pauses of a full cycle. Both verify and
/// keep the list.
#[test]
fn a_cycle_whose_garbage_is_in_dead_regions_ends_at_final_mark() {
    for percent in [90, 100] {
        let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
        c.verify = true;
        c.immediate_garbage_percent = percent;
        let h = Heap::new(c).unwrap();
        let mut m = h.mutator::<Dynamic>().unwrap();
        let list = m.alloc(1, 0).unwrap();
        let mut sum = 0;
        for i in 0..64 {
            let depth = m.roots_len();
            let n = m.alloc(1, 1).unwrap();
            sum += keep_every_eighth(&m, list, n, i);
            m.truncate_roots(depth);
        }
        let depth = m.roots_len();
        for _ in 0..(2 << 20) / 64 {
            m.alloc(0, 5).unwrap(); // a 64-byte cell
            m.truncate_roots(depth);
        }
        let before = h.stats();
        m.collect().unwrap();
        let after = h.stats();
        assert_eq!(list_sum(&m, list), sum, "{percent} %");
        drop(m);
        let kinds: Vec<PauseKind> = after.pauses[before.pauses.len()..]
            .iter()
            .map(|p| p.kind)
            .collect();
        let abbreviated = after.abbreviated_cycles - before.abbreviated_cycles;
        let moved = after.evacuated_by_collector - before.evacuated_by_collector;
        assert!(
            after.regions_freed - before.regions_freed >= 24,
            "{percent} %: the dead regions freed"
        );
        assert_eq!(after.verify_errors, Vec::<String>::new(), "{percent} %");
        if percent == 90 {
            assert_eq!(abbreviated, 1, "{kinds:?}");
            assert_eq!(kinds, [PauseKind::InitMark, PauseKind::FinalMark]);
            assert_eq!(moved, 0, "no collection set");
        } else {
            assert_eq!(abbreviated, 0, "{kinds:?}");
            assert_eq!(
                kinds,
                [
                    PauseKind::InitMark,
                    PauseKind::FinalMark,
                    PauseKind::InitUpdateRefs,
                    PauseKind::FinalUpdateRefs
                ]
            );
            assert!(moved >= 8, "the list's region evacuated: {moved} moved");
        }
    }
}

/// The soft capacity (`heap/capacity.rs`): garbage alone keeps a passive
/// heap within it (every object lies below it, the collections reusing its
/// regions) and leaves it as it was; live data past 60 % of it grows it at
/// the next collection, in both modes; an allocation the capacity cannot
/// hold but the heap can succeeds; the verifier passes every collection.
#[test]
fn the_soft_capacity_holds_garbage_and_grows_with_live_data() {
    for bad in [0, (16 << 20) + 1] {
        let mut c = HeapConfig::new(16 << 20, BarrierBits::SHENANDOAH, GcMode::Passive);
        c.initial_bytes = Some(bad);
        assert!(matches!(Heap::new(c), Err(GcError::BadSize(_))), "initial {bad}");
    }
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        // 256 regions of 64 KiB; a capacity of 32 of them.
        let mut c = HeapConfig::new(16 << 20, BarrierBits::SHENANDOAH, mode);
        c.initial_bytes = Some(2 << 20);
        c.verify = true;
        let h = Heap::new(c).unwrap();
        assert_eq!(h.capacity_bytes(), 2 << 20);
        let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
        let base = h.inner.space.base;
        // 16 MiB of garbage in objects of 1 KiB (126 data words and the
        // cell's three).
        for _ in 0..16 * 1024 {
            let len = m.roots_len();
            let o = m.alloc(0, 126).unwrap();
            let at = m.get(o).unwrap().addr() - base;
            if mode == GcMode::Passive {
                // Growth happens only in a collection, before this
                // allocation's refill.
                assert!(
                    at < h.capacity_bytes(),
                    "{mode:?}: an object at {at:#x}, past the capacity {:#x}",
                    h.capacity_bytes()
                );
            }
            m.truncate_roots(len);
        }
        let cycles = h.stats().cycles;
        assert!(cycles >= 1, "{mode:?}: 16 MiB through a 16 MiB heap collects");
        // 6 MiB kept live: the next collection grows the capacity to at
        // least 6 / 0.6 MiB.
        let live: Vec<Handle> = (0..6 * 1024).map(|_| m.alloc(0, 126).unwrap()).collect();
        m.collect().unwrap();
        assert!(
            h.capacity_bytes() >= 10 << 20,
            "{mode:?}: {} KiB of capacity for 6 MiB live",
            h.capacity_bytes() >> 10
        );
        // A humongous object of 4 MiB: room in the heap, whatever the capacity.
        let big = m.alloc(0, (4 << 20) / 8).unwrap();
        assert!(m.get(big).is_ok());
        assert_eq!(live.len(), 6 * 1024);
        drop(m);
        let s = h.stats();
        assert!(s.verify_errors.is_empty(), "{mode:?}: {:?}", s.verify_errors);
        assert!(s.verified_cycles >= 1);
    }
}

/// The read-ahead (`heap/read_ahead.rs`) faults in regions while the
/// mutator writes objects into the regions below and the collector copies
/// them: every object keeps its contents (the checksums of the live ones
/// and the verifier after every collection), in both modes, and the
/// statistics count the regions faulted in ahead.
#[test]
fn the_read_ahead_faults_regions_in_while_the_heap_runs_and_changes_no_object() {
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        // 256 regions of 64 KiB; a capacity of 64 of them; 8 ahead.
        let mut c = HeapConfig::new(16 << 20, BarrierBits::SHENANDOAH, mode);
        c.initial_bytes = Some(4 << 20);
        c.read_ahead_bytes = 512 << 10;
        c.verify = true;
        let h = Heap::new(c).unwrap();
        let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
        // A live list of 2048 objects of 1 KiB among 24 MiB of garbage,
        // each live one's data words its index.
        let mut live = Vec::new();
        for i in 0..24 * 1024u64 {
            let len = m.roots_len();
            let o = m.alloc(0, 126).unwrap();
            let obj = m.get(o).unwrap();
            for w in 0..126 {
                m.write(obj, w, (i ^ w as u64) as usize).unwrap();
            }
            if i % 12 == 0 {
                live.push(o);
            } else {
                m.truncate_roots(len);
            }
        }
        m.collect().unwrap();
        for (k, &o) in live.iter().enumerate() {
            let i = k as u64 * 12;
            let obj = m.get(o).unwrap();
            for w in [0usize, 63, 125] {
                assert_eq!(
                    m.read(obj, w).unwrap() as u64,
                    i ^ w as u64,
                    "{mode:?}: object {i}, word {w}"
                );
            }
        }
        drop(live);
        drop(m);
        let s = h.stats();
        assert!(s.verify_errors.is_empty(), "{mode:?}: {:?}", s.verify_errors);
        assert!(
            s.cycles >= 2,
            "{mode:?}: 24 MiB through a 4 MiB capacity collects"
        );
        // Native x86-64 Linux takes the advice; qemu-user (the aarch64
        // tests) ignores it, which the read-ahead notices and reports.
        if cfg!(target_arch = "x86_64") || !s.read_ahead_refused {
            assert!(!s.read_ahead_refused, "{mode:?}: the kernel took the advice");
            assert!(
                s.regions_read_ahead >= 8,
                "{mode:?}: {} regions read ahead",
                s.regions_read_ahead
            );
        } else {
            assert_eq!(
                s.regions_read_ahead, 0,
                "{mode:?}: an ignored advice counts nothing"
            );
        }
    }
}

/// `HeapConfig::evacuation_reserve_bytes` is the part of the soft capacity
/// a passive heap's refills leave to evacuation: with the capacity at the
/// reserve and 1 MiB, the mutator allocates 1 MiB (less at most one
/// region's tail) before its first collection.
#[test]
fn a_capacity_of_the_reserve_and_n_bytes_allocates_n_before_collecting() {
    let mut c = HeapConfig::new(16 << 20, BarrierBits::SHENANDOAH, GcMode::Passive);
    let reserve = c.evacuation_reserve_bytes();
    // 256 regions of 64 KiB; a 16th of them.
    assert_eq!((c.region_bytes, reserve), (64 << 10, 16 * (64 << 10)));
    c.initial_bytes = Some(reserve + (1 << 20));
    let h = Heap::new(c).unwrap();
    let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
    let cell = h.cell_format().cell_bytes_in(h.config().refs, 0, 126);
    let mut allocated = 0;
    while h.stats().cycles == 0 {
        let len = m.roots_len();
        m.alloc(0, 126).unwrap();
        m.truncate_roots(len);
        allocated += cell;
    }
    // The allocation that collected is counted too.
    assert!(
        allocated > (1 << 20) - (64 << 10) && allocated <= (1 << 20) + cell,
        "{allocated} bytes before the first collection"
    );
}

/// Tagged objects (the layout word's tagged form) keep their tag and
/// counts through evacuation and a full compaction in every cell format
/// and width (with 4-byte slots their reference 0 shares the layout word's
/// 8 bytes, which a compact-format original's forwarding replaces), beside
/// untagged ones; out-of-range counts and tags, and a tag's second
/// definition with other counts, are refused.
#[test]
fn tagged_objects_keep_their_tags_through_every_move() {
    use crate::gc::layout::{MAX_LAYOUT_TAG, MAX_TAGGED_COUNT};
    for (bits, format, refs) in CONCURRENT_SETS {
        let mut c = HeapConfig::new(4 << 20, bits, GcMode::Passive);
        c.verify = true;
        c.cell_format = format;
        c.refs = refs;
        let h = Heap::new(c).unwrap();
        let what = format!("{bits} ({}, {refs:?})", format.name());
        let mut m = h.mutator::<Dynamic>().unwrap();
        // The tag of node `i`, `None` for every third node (untagged); the
        // tags reach across the range below its top half, and each names
        // one shape (its low two bits are the node's `i % 4`).
        let tag_of = |i: usize| {
            (i % 3 != 0).then(|| (((i * 0x9e37_79b9) as u32) & (MAX_LAYOUT_TAG >> 1) & !3) | (i % 4) as u32)
        };
        let list = m.alloc(1, 1).unwrap();
        let mut kept = 0;
        for i in 0..20_000usize {
            let depth = m.roots_len();
            let n = match tag_of(i) {
                Some(t) => m.alloc_tagged(1, 1 + i % 4, t).unwrap(),
                None => m.alloc(1, 1 + i % 4).unwrap(),
            };
            if i % 8 == 0 {
                keep_every_eighth(&m, list, n, i);
                kept += 1;
            }
            m.truncate_roots(depth);
        }
        let check = |m: &Mutator<Dynamic>, when: &str| {
            let mut cur = m.load(m.get(list).unwrap(), 0).unwrap();
            let mut seen = 0;
            while let Some(o) = cur {
                let i = m.read(o, 0).unwrap();
                assert_eq!(m.tag(o).unwrap(), tag_of(i), "{what} {when}: node {i}'s tag");
                assert_eq!(
                    m.shape(o).unwrap(),
                    (1, 1 + i % 4),
                    "{what} {when}: node {i}'s shape"
                );
                // SAFETY: `o` is an object of this heap, no safepoint since
                // it was loaded.
                assert_eq!(unsafe { m.tag_unchecked(o) }, tag_of(i));
                seen += 1;
                cur = m.load(o, 0).unwrap();
            }
            assert_eq!(seen, kept, "{what} {when}");
        };
        check(&m, "before");
        m.collect().unwrap();
        let stats = h.stats();
        assert_eq!(stats.verify_errors, Vec::<String>::new(), "{what}");
        assert!(stats.evacuated_by_collector > 0, "{what}: nothing copied");
        check(&m, "after a cycle");
        m.retire_local_for_test();
        // This test's thread is the only mutator and makes no access
        // meanwhile: as in a pause.
        h.inner.full_compact();
        assert_eq!(h.inner.verify().map(|_| ()), Ok(()), "{what}");
        m.refresh_gc_state_for_test();
        check(&m, "after a full compaction");
        // The tagged form's limits.
        let big = MAX_TAGGED_COUNT + 1;
        for (r, d, t) in [(big, 0, 0), (0, big, 0), (0, 0, MAX_LAYOUT_TAG + 1)] {
            assert_eq!(
                m.alloc_tagged(r, d, t).map(|_| ()),
                Err(GcError::TaggedShape {
                    nrefs: r,
                    ndata: d,
                    tag: t
                }),
                "{what}"
            );
        }
        let o = m.alloc_tagged(MAX_TAGGED_COUNT, 0, MAX_LAYOUT_TAG).unwrap();
        let o = m.get(o).unwrap();
        assert_eq!(m.tag(o).unwrap(), Some(MAX_LAYOUT_TAG), "{what}");
        assert_eq!(m.shape(o).unwrap(), (MAX_TAGGED_COUNT, 0), "{what}");
        // A tag has one shape: another is refused, by allocation and by
        // definition; the same definition again is accepted.
        let t = tag_of(1).unwrap();
        let refused = Err(GcError::TaggedShape {
            nrefs: 1,
            ndata: 1,
            tag: t,
        });
        assert_eq!(m.alloc_tagged(1, 1, t).map(|_| ()), refused, "{what}");
        assert_eq!(h.define_tag(t, 1, 1), refused, "{what}");
        assert_eq!(m.define_tag(t, 1, 2), Ok(()), "{what}");
        assert!(h.define_tag(MAX_LAYOUT_TAG + 1, 0, 0).is_err(), "{what}");
    }
}

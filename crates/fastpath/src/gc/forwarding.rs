//! The forwarding word and the evacuation race.
//!
//! Where it sits: below the barriers' slow paths ([`super::mutator`]) and
//! the collector's evacuation ([`super::collector`]). Every object is
//! preceded by one *forwarding word* (Brooks, "Trading data space for
//! reduced time and code space in real-time garbage collection", 1984; as
//! Shenandoah had it until JDK 13): it holds the object's own address until
//! the object is evacuated, then the address of its to-space copy. The same
//! word serves the Brooks barriers (which always read through it) and the
//! LRB (which reads it only for objects in the collection set): the choice
//! recorded for issue 9. It is not the header's lock state 11: the header
//! belongs to `fastpath::sync`, and a separate word lets an object be read
//! through its forwarding pointer without decoding a lock state.
//!
//! The race: a mutator's barrier and the collector (or two mutators) may
//! evacuate the same object at once. Each makes a private copy, then tries
//! to CAS the forwarding word from the object's own address to its copy.
//! Exactly one CAS succeeds; every loser discards its copy and uses the
//! winner's (Shenandoah, `ShenandoahHeap::evacuate_object`). No thread
//! writes a from-space object once evacuation has begun, so every copy of
//! it has the same contents and it does not matter whose wins.
//!
//! Self-healing (LRB): a thread that loaded a from-space reference from a
//! field CASes the field from that value to the to-space one, so the next
//! load takes the fast path; a failed heal means someone stored something
//! newer, which wins.

use super::atomic::{AtomicUsize, Ordering};

/// The forwardee of an object whose forwarding word is `fwd`: the object
/// itself when not forwarded.
#[inline(always)]
pub(crate) fn forwardee(fwd: &AtomicUsize) -> usize {
    // Acquire: pairs with the Release of a successful `install`, so the
    // copy's contents are visible before its address is used (on x86-64 a
    // plain `mov`: the Brooks read barrier's one load).
    fwd.load(Ordering::Acquire)
}

/// Evacuates the object at `from` (whose forwarding word is `fwd`): if it is
/// already forwarded, returns the forwardee; otherwise `copy()` makes a
/// private copy and returns its address (or `None` when no space is left, in
/// which case the caller learns only the current forwardee), and the CAS
/// decides the winner. A loser's copy is handed to `discard`.
#[inline]
pub(crate) fn evacuate(
    fwd: &AtomicUsize,
    from: usize,
    copy: impl FnOnce() -> Option<usize>,
    discard: impl FnOnce(usize),
) -> usize {
    let current = forwardee(fwd);
    if current != from {
        return current;
    }
    let Some(to) = copy() else {
        return forwardee(fwd);
    };
    // AcqRel on success: Release publishes the copy's contents with its
    // address; Acquire on failure: we go on to use the winner's copy.
    match fwd.compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => to,
        Err(winner) => {
            discard(to);
            winner
        }
    }
}

/// Self-heals `field` from the stale reference it held to `healed`. A
/// failure means another store won; that value stands.
#[inline]
pub(crate) fn heal(field: &AtomicUsize, stale: usize, healed: usize) {
    // Release: the healed reference is published like any reference store.
    // Relaxed on failure: nothing is read.
    let _ = field.compare_exchange(stale, healed, Ordering::Release, Ordering::Relaxed);
}

// In the models, Relaxed loads are reads after `join`, which orders them;
// the mutator's payload write is Relaxed because only the joining thread
// reads it, after `join`; the Acquire loads are the mutator's, as in the
// code under test.
#[cfg(all(test, loom))]
mod loom_tests {
    //! Models of the evacuation race and of self-healing over a toy heap of
    //! two-word objects (forwarding word, payload), addressed by index.

    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// Object 1 is the from-space original; 2 and 3 are the copy slots of
    /// two evacuating threads.
    struct Toy {
        fwd: [AtomicUsize; 4],
        payload: [AtomicUsize; 4],
        field: AtomicUsize,
    }

    fn toy() -> Arc<Toy> {
        let t = Toy {
            fwd: [0, 1, 2, 3].map(AtomicUsize::new),
            payload: [0, 42, 0, 0].map(AtomicUsize::new),
            field: AtomicUsize::new(1),
        };
        Arc::new(t)
    }

    /// One evacuator: copies object 1 into `slot`, races for the forwarding
    /// word, returns the winner and checks the winner's payload is there.
    fn evacuator(t: &Toy, slot: usize, discarded: &AtomicUsize) -> usize {
        let to = evacuate(
            &t.fwd[1],
            1,
            || {
                t.payload[slot].store(t.payload[1].load(Ordering::Relaxed), Ordering::Relaxed);
                t.fwd[slot].store(slot, Ordering::Relaxed);
                Some(slot)
            },
            |lost| {
                discarded.fetch_add(lost, Ordering::Relaxed);
            },
        );
        // Complete: the original's 42 (or a later write into the winner),
        // never the 0 of a copy slot not yet filled.
        assert_ne!(
            t.payload[to].load(Ordering::Relaxed),
            0,
            "the winner's copy is complete"
        );
        to
    }

    /// Mutator vs collector and two mutators are the same race at this
    /// level: two threads evacuating one object. Exactly one copy wins;
    /// every thread uses it; the loser discards its own copy.
    #[test]
    fn loom_evacuation_race_one_copy_wins() {
        loom::model(|| {
            let t = toy();
            let lost = Arc::new(AtomicUsize::new(0));
            let (t2, lost2) = (t.clone(), lost.clone());
            let other = thread::spawn(move || evacuator(&t2, 2, &lost2));
            let mine = evacuator(&t, 3, &lost);
            let theirs = other.join().unwrap();
            assert_eq!(mine, theirs, "both threads use one copy");
            assert_eq!(t.fwd[1].load(Ordering::Relaxed), mine);
            // The loser discarded its own slot (2 + 3 - winner), unless it
            // saw the winner's forwarding before copying at all.
            let lost = lost.load(Ordering::Relaxed);
            assert!(lost == 0 || lost == 5 - mine, "discarded {lost}, winner {mine}");
        });
    }

    /// LRB self-healing: two threads load the field (holding the from-space
    /// object), evacuate and heal. Both use the one winning copy, and the
    /// field ends healed to it, never left stale nor healed to a loser.
    #[test]
    fn loom_lrb_self_heal() {
        loom::model(|| {
            let t = toy();
            let lost = Arc::new(AtomicUsize::new(0));
            let t2 = t.clone();
            let lost2 = lost.clone();
            let loader = move |t: &Toy, slot, lost: &AtomicUsize| {
                let v = t.field.load(Ordering::Acquire);
                if v == 1 {
                    let to = evacuator(t, slot, lost);
                    heal(&t.field, v, to);
                    to
                } else {
                    v
                }
            };
            let other = thread::spawn(move || loader(&t2, 2, &lost2));
            let mine = loader(&t, 3, &lost);
            let theirs = other.join().unwrap();
            let fwd = t.fwd[1].load(Ordering::Relaxed);
            assert_eq!(mine, fwd);
            assert_eq!(theirs, fwd);
            assert_eq!(t.field.load(Ordering::Relaxed), fwd, "the field is healed");
        });
    }

    /// A heal (by a mutator's LRB or by the collector's update-refs, the
    /// same CAS) racing a mutator's store of a new reference: the store is
    /// never undone, whatever the interleaving.
    #[test]
    fn loom_heal_never_overwrites_a_newer_store() {
        loom::model(|| {
            let t = toy();
            let t2 = t.clone();
            // A swap stands for the mutator's plain Release store: the same
            // on hardware (an RMW must read the latest value in modification
            // order), but loom mis-orders a plain store racing an RMW on one
            // word (tokio-rs/loom#254, #389; see sync::interrupt).
            let storer = thread::spawn(move || t2.field.swap(7, Ordering::Release));
            let lost = AtomicUsize::new(0);
            let v = t.field.load(Ordering::Acquire);
            if v == 1 {
                let to = evacuator(&t, 3, &lost);
                heal(&t.field, v, to);
            }
            storer.join().unwrap();
            assert_eq!(t.field.load(Ordering::Relaxed), 7, "the newer store stands");
        });
    }

    /// Mutator vs collector, as the heap runs them: the collector evacuates
    /// the object and heals the field (update-refs); the mutator loads the
    /// field through the LRB (evacuating and healing too) and writes into
    /// the object it got. The write lands in the copy that won, and the
    /// field ends pointing at that copy.
    #[test]
    fn loom_mutator_write_lands_in_the_winning_copy() {
        loom::model(|| {
            let t = toy();
            let t2 = t.clone();
            let collector = thread::spawn(move || {
                let lost = AtomicUsize::new(0);
                let to = evacuator(&t2, 2, &lost);
                heal(&t2.field, 1, to);
            });
            let lost = AtomicUsize::new(0);
            let v = t.field.load(Ordering::Acquire);
            let obj = if v == 1 {
                let to = evacuator(&t, 3, &lost);
                heal(&t.field, v, to);
                to
            } else {
                v
            };
            t.payload[obj].store(43, Ordering::Relaxed);
            collector.join().unwrap();
            let winner = t.fwd[1].load(Ordering::Relaxed);
            assert_eq!(obj, winner, "the mutator wrote into the winning copy");
            assert_eq!(t.payload[winner].load(Ordering::Relaxed), 43);
            assert_eq!(t.field.load(Ordering::Relaxed), winner);
        });
    }
}

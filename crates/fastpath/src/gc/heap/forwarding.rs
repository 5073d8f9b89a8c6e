//! The forwarding slot and the evacuation race.
//!
//! Where it sits: below the barriers' slow paths ([`super::mutator`]) and
//! the collector's evacuation ([`crate::gc::collector::cycle`]). Where an
//! object's copy is recorded depends on the heap's cell format
//! (`layout.rs`), and a [`Slot`] hides which:
//! - **Brooks format**: every object is preceded by a *forwarding word*
//!   (Brooks, "Trading data space for reduced time and code space in
//!   real-time garbage collection", 1984; as Shenandoah had it until JDK
//!   13): the object's own address until the object is evacuated, then the
//!   address of its to-space copy. The Brooks barriers read through it on
//!   every access; the LRB reads it only for objects in the collection set.
//! - **Compact format**: no forwarding word. The 8 bytes at the original's
//!   layout word are its own (the layout word, and with 4-byte slots a
//!   tagged object's reference 0) until the object is evacuated, then the
//!   copy's address with bit 31 set (`layout.rs`'s `forwarded_layout_word`).
//!   Shenandoah since JDK 13 records the copy in the original's mark word
//!   (lock state 11); here the header belongs to `fastpath::sync`, so the
//!   layout word serves, which no mutator reads of a from-space object (the
//!   LRB hands out copies only). A racing copier reads the layout word once
//!   and copies the shape it read, so a winner's overwrite never reaches a
//!   copy.
//!
//! The race: a mutator's barrier and the collector (or two mutators) may
//! evacuate the same object at once. Each makes a private copy, then tries
//! to CAS the slot from its unforwarded value to its copy's.
//! Exactly one CAS succeeds; every loser discards its copy and uses the
//! winner's (Shenandoah, `ShenandoahHeap::evacuate_object`). No thread
//! writes a from-space object once evacuation has begun, so every copy of
//! it has the same contents and it does not matter whose wins.
//!
//! Self-healing (LRB): a thread that loaded a from-space reference from a
//! field CASes the field from that value to the to-space one, so the next
//! load takes the fast path; a failed heal means someone stored something
//! newer, which wins.
//!
//! Evacuation failure: a thread that finds no space for a copy must leave
//! the object where it is, and from then on nobody may copy it, or a write
//! made in the original would be lost to a later copy. G1 says so by
//! forwarding the object to itself; the Brooks word cannot: "its own
//! address" already means "not forwarded", and any other value would cost
//! the Brooks read barrier its one plain load. So the failure closes evacuation for
//! everyone, as Shenandoah's `ShenandoahEvacOOMHandler` does: every copier
//! runs inside an [`EvacScope`]; the failing thread marks the scope failed
//! and waits until no copier is inside; a thread entering a failed scope
//! waits the same way and copies nothing. After that wait every copy that
//! will ever win has won, so the forwardee read then is final: objects not
//! copied stay in place for good this cycle (self-forwarded, in effect), and
//! their regions are kept, not freed (`collector/cycle.rs`). A mutator's barrier
//! enters the scope for its one copy ([`evacuate`]); the collector enters
//! it once for a batch of copies ([`evacuate_inside`]), which spares two
//! locked read-modify-writes of the scope's shared word per object.

use crate::gc::atomic::{AtomicUsize, Ordering};

/// The word that records one object's copy, and how (module docs).
#[derive(Clone, Copy)]
pub(crate) struct Slot<'a> {
    word: &'a AtomicUsize,
    /// The object whose copy the word records.
    obj: usize,
    /// The compact format's layout word, else the Brooks word.
    compact: bool,
}

impl<'a> Slot<'a> {
    /// The Brooks forwarding word `word` of `obj`.
    #[inline(always)]
    pub(crate) fn brooks(word: &'a AtomicUsize, obj: usize) -> Slot<'a> {
        Slot {
            word,
            obj,
            compact: false,
        }
    }

    /// The compact format's layout word `word` of `obj`.
    #[inline(always)]
    pub(crate) fn compact(word: &'a AtomicUsize, obj: usize) -> Slot<'a> {
        Slot {
            word,
            obj,
            compact: true,
        }
    }

    /// The slot's value now. Acquire: pairs with the Release of a winning
    /// [`Slot::install`], so a copy's contents are visible before its
    /// address is used (on x86-64 a plain `mov`: the Brooks read barrier's
    /// one load).
    #[inline(always)]
    pub(crate) fn load(self) -> usize {
        self.word.load(Ordering::Acquire)
    }

    /// The copy a value of the slot names, `None` while it names none.
    #[inline(always)]
    pub(crate) fn forwarded(self, seen: usize) -> Option<usize> {
        if self.compact {
            super::layout::is_forwarded_layout_word(seen)
                .then(|| super::layout::forwardee_of_layout_word(seen))
        } else {
            (seen != self.obj).then_some(seen)
        }
    }

    /// The object itself, or its copy.
    #[inline(always)]
    pub(crate) fn forwardee(self) -> usize {
        self.forwarded(self.load()).unwrap_or(self.obj)
    }

    /// Races to record `to` as the copy, the slot having held `seen` (its
    /// unforwarded value) when the copy began: `Ok(to)` when this call
    /// won, `Err(winner)` otherwise.
    #[inline]
    fn install(self, seen: usize, to: usize) -> Result<usize, usize> {
        let new = if self.compact {
            super::layout::forwarded_layout_word(to)
        } else {
            to
        };
        // AcqRel on success: Release publishes the copy's contents with its
        // address; Acquire on failure: we go on to use the winner's copy.
        match self
            .word
            .compare_exchange(seen, new, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(to),
            Err(now) => Err(self
                .forwarded(now)
                .expect("only a copy replaces an unforwarded slot")),
        }
    }
}

/// Evacuates the object whose slot is `slot`: if it is already forwarded,
/// returns the forwardee; otherwise, inside `scope`, `race()` copies it and
/// races for the slot ([`evacuate_inside`] with the caller's copy and
/// discard) and returns the winner. When `race()` finds no space (`None`),
/// or evacuation has already failed, the object is left in place: the
/// result is then the final forwardee, the object itself unless a copy won
/// before evacuation closed.
#[inline]
pub(crate) fn evacuate(scope: &EvacScope, slot: Slot<'_>, race: impl FnOnce() -> Option<usize>) -> usize {
    if let Some(to) = slot.forwarded(slot.load()) {
        return to;
    }
    if !scope.enter() {
        // Closed: `enter` waited until no copier was left, so this is final.
        return slot.forwardee();
    }
    match race() {
        Some(to) => {
            scope.leave();
            to
        }
        None => {
            scope.fail();
            slot.forwardee()
        }
    }
}

/// [`evacuate`]'s copy and race, for a caller already inside the scope
/// (the collector enters it once for a batch of copies: `collector/cycle.rs`):
/// reads the slot once; a copy recorded there is the result; otherwise
/// `copy(seen)` makes the private copy from the slot's unforwarded value
/// `seen` (the compact format's layout word: the shape to copy) and the
/// CAS from `seen` decides the winner, whose address is returned (a
/// loser's copy goes to `discard`). `None`: `copy` found no space; the
/// caller must then [`EvacScope::fail`], which leaves the scope.
#[inline]
pub(crate) fn evacuate_inside(
    slot: Slot<'_>,
    copy: impl FnOnce(usize) -> Option<usize>,
    discard: impl FnOnce(usize),
) -> Option<usize> {
    let seen = slot.load();
    if let Some(to) = slot.forwarded(seen) {
        return Some(to);
    }
    let to = copy(seen)?;
    Some(match slot.install(seen, to) {
        Ok(to) => to,
        Err(winner) => {
            discard(to);
            winner
        }
    })
}

/// The evacuation scope: how many threads are copying, and whether
/// evacuation has failed this cycle (module docs; Shenandoah's
/// `ShenandoahEvacOOMHandler`, simplified to one counter).
#[derive(Default)]
pub(crate) struct EvacScope {
    /// Threads inside, plus [`EvacScope::FAILED`] once a copy found no space.
    state: AtomicUsize,
}

impl EvacScope {
    const FAILED: usize = 1 << (usize::BITS - 1);

    /// Enters to copy; `false` when evacuation has failed, after waiting
    /// until no thread is copying any more. A thread inside may copy any
    /// number of objects before it leaves, as long as it waits for nothing
    /// that waits for the scope: a failing thread waits for it to leave.
    #[inline]
    pub(crate) fn enter(&self) -> bool {
        // Relaxed first read: the CAS below decides.
        let mut v = self.state.load(Ordering::Relaxed);
        loop {
            if v & Self::FAILED != 0 {
                self.wait_for_no_copiers();
                return false;
            }
            // Relaxed: entering orders nothing; the forwarding CAS does.
            match self
                .state
                .compare_exchange_weak(v, v + 1, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => v = now,
            }
        }
    }

    /// Leaves after the forwarding CAS. Release: a thread that later sees
    /// no copier left (Acquire) also sees this thread's forwarding CAS.
    #[inline]
    pub(crate) fn leave(&self) {
        self.state.fetch_sub(1, Ordering::Release);
    }

    /// Inside, no space for a copy: leave, close evacuation, and wait until
    /// no copier is left.
    #[cold]
    pub(crate) fn fail(&self) {
        // Relaxed: a hint for the CAS.
        let mut v = self.state.load(Ordering::Relaxed);
        loop {
            // Release: as `leave` (this thread leaves too).
            match self.state.compare_exchange_weak(
                v,
                (v - 1) | Self::FAILED,
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(now) => v = now,
            }
        }
        self.wait_for_no_copiers();
    }

    #[cold]
    fn wait_for_no_copiers(&self) {
        // Acquire: reading the count zero synchronizes with every copier's
        // `leave` (each Release RMW continues the others' release
        // sequences), so their forwarding CASes are visible to the caller's
        // next read of a forwarding word. A copier inside is between its
        // allocation and its CAS: it leaves in bounded time.
        while self.state.load(Ordering::Acquire) != Self::FAILED {
            crate::gc::atomic::yield_now();
        }
    }

    /// Whether evacuation failed this cycle.
    pub(crate) fn failed(&self) -> bool {
        // Relaxed: read in a pause (ordered by the safepoint).
        self.state.load(Ordering::Relaxed) & Self::FAILED != 0
    }

    /// Opens the scope for the next cycle. In a pause: nobody is inside.
    pub(crate) fn reset(&self) {
        // Relaxed: in a pause (ordered by the safepoint).
        debug_assert_eq!(self.state.load(Ordering::Relaxed) & !Self::FAILED, 0);
        self.state.store(0, Ordering::Relaxed);
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
    //! two-word objects (forwarding slot, payload), addressed by index: the
    //! slot a Brooks forwarding word, or (the race model run again) a
    //! compact layout word.

    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// Object 1 is the from-space original; 2 and 3 are the copy slots of
    /// two evacuating threads.
    struct Toy {
        fwd: [AtomicUsize; 4],
        payload: [AtomicUsize; 4],
        field: AtomicUsize,
        scope: EvacScope,
        compact: bool,
    }

    /// A compact object's own layout word (any with bit 31 clear).
    const LAYOUT: usize = 0x3_0000_0002;

    fn toy() -> Arc<Toy> {
        toy_of(false)
    }

    fn toy_of(compact: bool) -> Arc<Toy> {
        let own = |i: usize| if compact { LAYOUT } else { i };
        let t = Toy {
            fwd: [0, 1, 2, 3].map(|i| AtomicUsize::new(own(i))),
            payload: [0, 42, 0, 0].map(AtomicUsize::new),
            field: AtomicUsize::new(1),
            scope: EvacScope::default(),
            compact,
        };
        Arc::new(t)
    }

    impl Toy {
        fn slot(&self, obj: usize) -> Slot<'_> {
            if self.compact {
                Slot::compact(&self.fwd[obj], obj)
            } else {
                Slot::brooks(&self.fwd[obj], obj)
            }
        }

        /// Object 1's forwardee as its slot records it.
        fn winner(&self) -> usize {
            self.slot(1).forwardee()
        }
    }

    /// One evacuator: copies object 1 into `slot`, races for the forwarding
    /// word, returns the winner and checks the winner's payload is there.
    fn evacuator(t: &Toy, slot: usize, discarded: &AtomicUsize) -> usize {
        let to = evacuate(&t.scope, t.slot(1), || {
            evacuate_inside(
                t.slot(1),
                |seen| {
                    assert!(
                        t.slot(1).forwarded(seen).is_none(),
                        "copies an unforwarded object"
                    );
                    t.payload[slot].store(t.payload[1].load(Ordering::Relaxed), Ordering::Relaxed);
                    // The copy's own slot value: its address, or the shape read.
                    t.fwd[slot].store(if t.compact { seen } else { slot }, Ordering::Relaxed);
                    Some(slot)
                },
                |lost| {
                    discarded.fetch_add(lost, Ordering::Relaxed);
                },
            )
        });
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
        loom::model(|| evacuation_race(toy()));
    }

    /// The same race on the compact format's layout word: the winner's
    /// `!copy` replaces the shape, and each copy holds the shape read.
    #[test]
    fn loom_evacuation_race_on_a_layout_word() {
        loom::model(|| {
            let t = toy_of(true);
            evacuation_race(t.clone());
            let w = t.winner();
            assert_eq!(
                t.fwd[w].load(Ordering::Relaxed),
                LAYOUT,
                "the copy has the original's shape"
            );
        });
    }

    fn evacuation_race(t: Arc<Toy>) {
        {
            let lost = Arc::new(AtomicUsize::new(0));
            let (t2, lost2) = (t.clone(), lost.clone());
            let other = thread::spawn(move || evacuator(&t2, 2, &lost2));
            let mine = evacuator(&t, 3, &lost);
            let theirs = other.join().unwrap();
            assert_eq!(mine, theirs, "both threads use one copy");
            assert_eq!(t.winner(), mine);
            // The loser discarded its own slot (2 + 3 - winner), unless it
            // saw the winner's forwarding before copying at all.
            let lost = lost.load(Ordering::Relaxed);
            assert!(lost == 0 || lost == 5 - mine, "discarded {lost}, winner {mine}");
        }
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
            let fwd = t.winner();
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
            let winner = t.winner();
            assert_eq!(obj, winner, "the mutator wrote into the winning copy");
            assert_eq!(t.payload[winner].load(Ordering::Relaxed), 43);
            assert_eq!(t.field.load(Ordering::Relaxed), winner);
        });
    }

    /// The collector's batch: one thread enters the scope once and copies
    /// two objects (1 and 2, into slots 3 and 4) before it leaves, while
    /// another thread finds no space for object 2 and writes into the
    /// object it got. Whatever the interleaving, both use one final object
    /// 2, the write is in it, and a copy never wins once the failing
    /// thread has read its forwardee (it waits for the batch to leave).
    #[test]
    fn loom_a_batch_of_copies_in_one_scope_against_a_failure() {
        loom::model(|| {
            let t = Arc::new(Toy2 {
                fwd: [0, 1, 2, 3, 4].map(AtomicUsize::new),
                payload: [0, 41, 42, 0, 0].map(AtomicUsize::new),
                scope: EvacScope::default(),
            });
            let t2 = t.clone();
            let batch = thread::spawn(move || {
                let t = &*t2;
                let mut got = [1, 2];
                if t.scope.enter() {
                    for (k, (obj, slot)) in [(1, 3), (2, 4)].into_iter().enumerate() {
                        let now = Slot::brooks(&t.fwd[obj], obj).forwardee();
                        if now != obj {
                            got[k] = now;
                            continue;
                        }
                        let copy = |_| {
                            let v = t.payload[obj].load(Ordering::Relaxed);
                            t.payload[slot].store(v, Ordering::Relaxed);
                            t.fwd[slot].store(slot, Ordering::Relaxed);
                            Some(slot)
                        };
                        got[k] = evacuate_inside(Slot::brooks(&t.fwd[obj], obj), copy, |_| {}).expect("room");
                    }
                    t.scope.leave();
                } else {
                    got = [
                        Slot::brooks(&t.fwd[1], 1).forwardee(),
                        Slot::brooks(&t.fwd[2], 2).forwardee(),
                    ];
                }
                got
            });
            let failed = evacuate(&t.scope, Slot::brooks(&t.fwd[2], 2), || None);
            t.payload[failed].store(43, Ordering::Relaxed);
            let got = batch.join().unwrap();
            let fwd2 = t.fwd[2].load(Ordering::Relaxed);
            assert_eq!(failed, fwd2, "the failing thread used the final object");
            assert_eq!(got[1], fwd2, "the batch too");
            assert_eq!(t.payload[fwd2].load(Ordering::Relaxed), 43, "the write stands");
            assert_eq!(got[0], t.fwd[1].load(Ordering::Relaxed));
            assert_eq!(t.payload[got[0]].load(Ordering::Relaxed), 41, "object 1 intact");
        });
    }

    /// Two objects (1, 2) and the batch's copy slots (3, 4).
    struct Toy2 {
        fwd: [AtomicUsize; 5],
        payload: [AtomicUsize; 5],
        scope: EvacScope,
    }

    /// Evacuation failure (copy vs a thread that finds no space): the
    /// failing thread writes into the object it got, as a mutator's
    /// `brooks-wb` would. Whatever the interleaving, both threads end up
    /// using one object, the forwarding word names it for good, and the
    /// write is in it: a copy can never win after the failing thread has
    /// chosen to use the original.
    #[test]
    fn loom_evacuation_failure_never_loses_a_write() {
        loom::model(|| {
            let t = toy();
            let t2 = t.clone();
            let copier = thread::spawn(move || {
                let lost = AtomicUsize::new(0);
                evacuator(&t2, 2, &lost)
            });
            let failed = evacuate(&t.scope, t.slot(1), || None);
            t.payload[failed].store(43, Ordering::Relaxed);
            let copied = copier.join().unwrap();
            let fwd = t.winner();
            assert_eq!(failed, fwd, "the failing thread used the final object");
            assert_eq!(copied, fwd, "the copier too");
            assert_eq!(t.payload[fwd].load(Ordering::Relaxed), 43, "the write stands");
            // Either the copy won before evacuation closed, or nothing moved
            // and the scope records the failure.
            assert!(fwd == 2 || t.scope.failed());
        });
    }
}

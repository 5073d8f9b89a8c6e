//! The full compacting collection: Lisp-2 sliding compaction of the whole
//! heap in one pause, the last resort before an allocation fails
//! (HotSpot Shenandoah's "Full GC", which also slides: `ShenandoahFullGC`).
//!
//! Where it sits: called by the collector ([`super::cycle`]) at the end
//! of a degenerated cycle that left the heap full, and by a passive-mode
//! collection whose own refill still failed; always in a pause with every
//! mutator stopped, every LAB retired (the heap parsable to each region's
//! top) and the GC state byte clear (no cycle's copies outstanding). It
//! needs no free space: objects slide towards the bottom of the heap,
//! within it, so it also works where evacuation cannot (no room to copy).
//!
//! What it guarantees: every live object that may move ends up below every
//! free region except those above a *fixed* region (below), so the free
//! regions form one run at the top of the heap, and a request fits after
//! it whenever the live data leaves room for it. A region is fixed when
//! nothing in it may move: it is pinned (an `ObjLock`'s object, an
//! object on a stopped mutator's lock-stack or legacy raw records, one a
//! contended enter blocks on: `cycle.rs`, "Locked objects"), or it holds a
//! live object whose header names a lock (`monitor_seen`: a lock-stack
//! entry, a lock record or `fastpath::sync`'s monitor remembers the
//! address); a
//! fixed humongous object fixes its whole run. Every other region is a
//! *target*, free ones included.
//!
//! The phases (Lisp-2; the forwarding addresses in a side table indexed by
//! the mark bitmap, [`NewPlaces`], so that no object word is overwritten
//! before the move and the compact cell format, which has no forwarding
//! word, compacts as the Brooks one does; Shenandoah's full GC stores them
//! in the mark words and preserves the marks it overwrites):
//!
//! 1. *Mark* from the roots, every region's TAMS at its top (so live means
//!    marked). Marking flags the regions with a locked or inflated object.
//!    Parallel: the roots by mutator, the trace with work stealing
//!    (`parallel.rs`).
//! 2. *Plan*: walk the regions in address order with a compaction point
//!    that starts at the bottom of the lowest target; each live object in
//!    a target gets the next address that fits, appended to the table in
//!    address order. A small object that does not fit in the point's region moves
//!    the point to the next target's bottom; a humongous object moves it to
//!    the bottom of the next run of targets as long as the object (its own
//!    run is one), and the point continues in the target after that run.
//!    The point never passes the object it places (everything placed before
//!    it came from below it, and every target between the point and the
//!    object is free for it), so the moves below never overwrite an object
//!    not yet moved. Objects in fixed regions forward to themselves.
//! 3. *Adjust*: every reference in a live object, and every root, becomes
//!    its target's new address: the table's entry at the target's rank
//!    among the marked objects (a prefix count per bitmap word and a
//!    `popcnt` within it: HotSpot's parallel compaction finds new places
//!    from its mark bitmap likewise). Parallel by region (each worker writes
//!    only its regions' fields).
//! 4. *Move*: in address order (serial, as the plan: one compaction point
//!    sliding through the heap; HotSpot splits the heap into per-worker
//!    slices to run these in parallel), each live object is copied word by
//!    word, upwards, to its new place (which may overlap the old one,
//!    lower); a humongous object's whole run at once.
//! 5. *Regions*: each target takes the top and kind (small, humongous start
//!    or continuation) the plan gave it; those left empty are freed, and the
//!    free list is rebuilt lowest region last, so TLABs are carved from the
//!    bottom of the free run and humongous runs from its top.
//!
//! Dead objects in targets that may still name a monitor (the region's
//! `lock_seen`) have their headers dropped before anything moves, as
//! freeing a region does ([`crate::gc::heap::space::Space::release_dead_locks`]).

use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::gc::heap::runtime::HeapInner;
use crate::gc::heap::space::{Space, HUMONGOUS_CONT, HUMONGOUS_START};

/// The plan's new address of every marked object, in address order, and
/// how to find an object's entry from the mark bitmap (module docs).
struct NewPlaces {
    /// Marked objects in the bitmap's words before each word.
    before_word: Vec<usize>,
    /// The new addresses, one per marked object, in address order.
    places: Vec<usize>,
}

impl NewPlaces {
    /// The prefix counts of the heap's marks; no place recorded yet.
    fn new(s: &Space) -> NewPlaces {
        let mut before_word = Vec::with_capacity(s.mark_words());
        let mut marked = 0;
        for k in 0..s.mark_words() {
            before_word.push(marked);
            marked += s.mark_word(k).count_ones() as usize;
        }
        NewPlaces {
            before_word,
            places: Vec::with_capacity(marked),
        }
    }

    /// Records the next marked object's new address (the plan visits them
    /// in address order).
    fn push(&mut self, to: usize) {
        self.places.push(to);
    }

    /// The new address of marked object `obj`.
    #[inline]
    fn of(&self, s: &Space, obj: usize) -> usize {
        let (k, bit) = s.mark_position(obj);
        let below = s.mark_word(k) & ((1u64 << bit) - 1);
        self.places[self.before_word[k] + below.count_ones() as usize]
    }
}

impl HeapInner {
    /// Slides every live object that may move towards the bottom of the
    /// heap (module docs). In a pause, the state byte clear; returns the
    /// regions freed (net: used before less used after).
    pub(crate) fn full_compact(&self) -> usize {
        let began = Instant::now();
        let s = &self.space;
        debug_assert_eq!(self.gc_state.get(), 0, "no cycle's copies outstanding");
        // Relaxed region metadata throughout: in a pause (see `Region`).
        let used_before = s
            .regions
            .iter()
            .filter(|r| r.used.load(Ordering::Relaxed))
            .count();
        {
            let mut a = s.lock_alloc();
            a.current = None;
            a.evac_current = None;
            let reserve = std::mem::take(&mut a.evac_free);
            a.free.extend(reserve);
        }
        // 1. Mark.
        s.clear_marks();
        for r in s.regions.iter() {
            r.start_marking();
            r.monitor_seen.store(false, Ordering::Relaxed);
            r.in_cset.store(false, Ordering::Relaxed);
            r.evac_failed.store(false, Ordering::Relaxed);
        }
        let mut stack = Vec::new();
        self.mark_roots(&mut stack);
        self.trace_parallel(&mut stack);
        let n = s.regions.len();
        let fixed = self.fixed_regions();
        // Dead objects' headers may name monitors: dropped before the
        // memory is reused. A target's `lock_seen` is void afterwards: a
        // live object in a target is unlocked (else its region is fixed).
        for (i, r) in s.regions.iter().enumerate() {
            if !fixed[i] && r.lock_seen.swap(false, Ordering::Relaxed) {
                s.release_dead_locks(r);
            }
        }
        // 2. Plan: each target's new top and kind.
        let mut new_top: Vec<usize> = s.regions.iter().map(|r| r.bottom).collect();
        let mut new_kind = vec![0u8; n];
        let next_target = |from: usize| (from..n).find(|&j| !fixed[j]);
        let mut target = next_target(0);
        let mut point = target.map_or(0, |t| s.regions[t].bottom);
        let mut dead_humongous = 0u64;
        let mut places = NewPlaces::new(s);
        let c2o = s.format.cell_to_object();
        for i in 0..n {
            let r = &s.regions[i];
            if !r.used.load(Ordering::Relaxed) || r.humongous() == HUMONGOUS_CONT {
                continue;
            }
            let top = r.top.load(Ordering::Relaxed);
            if fixed[i] {
                s.parse(r, top, |obj| {
                    if s.is_marked(obj) {
                        places.push(obj);
                    }
                });
                continue;
            }
            if r.humongous() == HUMONGOUS_START {
                let obj = s.object_at_bottom(r);
                if !s.is_marked(obj) {
                    dead_humongous += 1;
                    continue;
                }
                let bytes = s.cell_words(obj) * 8;
                let len = s.humongous_regions(bytes);
                let mut t = target.expect("the object's own run holds targets");
                if point != s.regions[t].bottom {
                    new_top[t] = point;
                    t = next_target(t + 1).expect("the object's own run is above");
                }
                // The lowest run of `len` targets from `t`: the object's
                // own run is one, so it is found at or below it.
                while (t..t + len).any(|j| fixed[j]) {
                    t = next_target(t + 1).expect("the object's own run is above");
                }
                debug_assert!(t <= i, "the point never passes the object it places");
                places.push(s.regions[t].bottom + c2o);
                for k in 0..len {
                    let part = (bytes - k * s.region_bytes).min(s.region_bytes);
                    new_top[t + k] = s.regions[t + k].bottom + part;
                    new_kind[t + k] = if k == 0 { HUMONGOUS_START } else { HUMONGOUS_CONT };
                }
                target = next_target(t + len);
                point = target.map_or(0, |t| s.regions[t].bottom);
                continue;
            }
            s.parse(r, top, |obj| {
                if !s.is_marked(obj) {
                    return;
                }
                let bytes = s.cell_words(obj) * 8;
                let mut t = target.expect("a target holds this object");
                if point + bytes > s.regions[t].bottom + s.region_bytes {
                    new_top[t] = point;
                    t = next_target(t + 1).expect("the object's own region is a target");
                    target = Some(t);
                    point = s.regions[t].bottom;
                }
                debug_assert!(point + c2o <= obj, "the point never passes the object it places");
                places.push(point + c2o);
                point += bytes;
            });
        }
        if let Some(t) = target {
            if new_kind[t] == 0 {
                new_top[t] = point;
            }
        }
        debug_assert_eq!(
            places.places.len(),
            places.places.capacity(),
            "a place per marked object"
        );
        let places = &places;
        // 3. Adjust references (live objects only: a dead one's fields may
        // name objects that are gone).
        let adjust = |v: usize| {
            if v == 0 {
                0
            } else {
                places.of(s, v)
            }
        };
        // By region over the workers: each writes only its own region's
        // fields and reads the plan's table.
        let used: Vec<usize> = (0..n)
            .filter(|&i| {
                let r = &s.regions[i];
                r.used.load(Ordering::Relaxed) && r.humongous() != HUMONGOUS_CONT
            })
            .collect();
        self.par_regions(&used, |_, i| {
            let r = &s.regions[i];
            s.parse(r, r.top.load(Ordering::Relaxed), |obj| {
                if !s.is_marked(obj) {
                    return;
                }
                let (nrefs, _) = s.layout_of(obj);
                for i in 0..nrefs {
                    let field = s.ref_addr(obj, i);
                    s.store_ref(
                        field,
                        adjust(s.load_ref(field, Ordering::Relaxed)),
                        Ordering::Relaxed,
                    );
                }
            });
        });
        self.par_roots(|_, r| *r = adjust(*r));
        // 4. Move, in address order. Each object's size and new place are
        // read before its words are overwritten (by its own move or a
        // later one, never an earlier one: module docs).
        for &i in &used {
            if fixed[i] {
                continue;
            }
            let r = &s.regions[i];
            let top = r.top.load(Ordering::Relaxed);
            // The objects in address order: each one's cell is read before
            // any later move writes over it.
            let mut moves = Vec::new();
            s.parse(r, top, |obj| {
                if s.is_marked(obj) {
                    moves.push((obj, s.cell_words(obj)));
                }
            });
            for (obj, words) in moves {
                let to = places.of(s, obj);
                let (from, cell) = (obj - c2o, to - c2o);
                if cell != from {
                    // Upwards, word by word: the ranges may overlap with
                    // the destination lower. A forwarding word is written
                    // below.
                    for k in c2o / 8..words {
                        let v = s.word(from + 8 * k).load(Ordering::Relaxed);
                        s.word(cell + 8 * k).store(v, Ordering::Relaxed);
                    }
                }
                if s.format.has_forwarding_word() {
                    s.brooks_fwd(to).store(to, Ordering::Relaxed);
                }
            }
        }
        // 5. Regions: the plan's tops and kinds; free what is left empty.
        let mut a = s.lock_alloc();
        for (i, r) in s.regions.iter().enumerate() {
            if fixed[i] {
                continue;
            }
            let (t, kind) = (new_top[i], new_kind[i]);
            if t == r.bottom && kind == 0 {
                if r.used.load(Ordering::Relaxed) {
                    // Pushed on the free list, rebuilt below.
                    s.free_region(&mut a, i);
                }
                continue;
            }
            r.used.store(true, Ordering::Relaxed);
            r.humongous.store(kind, Ordering::Relaxed);
            r.top.store(t, Ordering::Relaxed);
            r.tams.store(t, Ordering::Relaxed);
            r.watermark.store(t, Ordering::Relaxed);
        }
        // Lowest last: TLABs pop the bottom of the free run, humongous
        // runs are taken from its top (`free_run`).
        a.free = (0..n)
            .rev()
            .filter(|&i| !s.regions[i].used.load(Ordering::Relaxed))
            .collect();
        let used_after = n - a.free.len();
        drop(a);
        // The marks named the old places: clear them for the next cycle.
        s.clear_marks();
        // Relaxed: a statistic.
        s.humongous_reclaimed.fetch_add(dead_humongous, Ordering::Relaxed);
        let freed = used_before.saturating_sub(used_after);
        let mut stats = self.stats();
        stats.full_compactions += 1;
        stats.full_compaction_time += began.elapsed();
        stats.regions_freed += freed as u64;
        freed
    }

    /// Which regions the compaction leaves where they are (module docs):
    /// pinned, or holding a live object whose header is not plain unlocked;
    /// a humongous object's whole run when its start region is. After the
    /// compaction's marking.
    fn fixed_regions(&self) -> Vec<bool> {
        let s = &self.space;
        let mut fixed: Vec<bool> = s
            .regions
            .iter()
            .map(|r| {
                r.used.load(Ordering::Relaxed)
                    && (r.pins.load(Ordering::SeqCst) != 0 || r.monitor_seen.load(Ordering::Relaxed))
            })
            .collect();
        for (i, r) in s.regions.iter().enumerate() {
            if fixed[i] && r.humongous() == HUMONGOUS_START {
                let len = s.humongous_regions(s.cell_words(s.object_at_bottom(r)) * 8);
                fixed[i..i + len].iter_mut().for_each(|f| *f = true);
            }
        }
        fixed
    }
}

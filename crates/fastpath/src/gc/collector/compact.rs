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
//! The phases (Lisp-2, using each object's forwarding word as the
//! forwarding pointer, as Shenandoah's full GC does):
//!
//! 1. *Mark* from the roots, every region's TAMS at its top (so live means
//!    marked). Marking flags a region holding a locked or inflated object
//!    (`monitor_seen`); such regions and pinned ones are *fixed*: nothing
//!    in them moves and nothing moves into them. Parallel: the roots by
//!    mutator, the trace with work stealing (`parallel.rs`).
//! 2. *Plan*: walk the movable regions in address order with a compaction
//!    point that starts at the first one's bottom; each live object gets
//!    the next address that fits (the point skips to the next movable
//!    region when one does not), written into its forwarding word. The
//!    point never passes the object it places (every object before it is
//!    placed no higher than itself), so the moves below never overwrite an
//!    object not yet moved.
//! 3. *Adjust*: every reference in a live object, and every root, becomes
//!    its target's forwarding word (a fixed object forwards to itself).
//!    Parallel by region (each worker writes only its regions' fields).
//! 4. *Move*: in address order (serial, as the plan: one compaction point
//!    sliding through the heap; HotSpot splits the heap into per-worker
//!    slices to run these in parallel), each live object is copied word by word,
//!    upwards, to its new place (which may overlap the old one, lower).
//!    Each region's top becomes its compaction end; regions left empty are
//!    freed.
//!
//! Humongous objects (`heap/humongous.rs`) are fixed too: marked and scanned
//! like any object, never moved; a dead one's run is freed at the end.
//!
//! Dead objects in movable regions that may still name a monitor (the
//! region's `lock_seen`) have their headers dropped before anything moves,
//! as freeing a region does ([`crate::gc::heap::space::Space::release_dead_locks`]).

use std::sync::atomic::Ordering;

use crate::gc::heap::forwarding;
use crate::gc::heap::runtime::HeapInner;
use crate::gc::heap::space::{Space, HUMONGOUS_CONT, HUMONGOUS_START};

impl HeapInner {
    /// Slides every live object towards the bottom of the heap (module
    /// docs). In a pause, the state byte clear; returns the regions freed.
    pub(crate) fn full_compact(&self) -> usize {
        let s = &self.space;
        debug_assert_eq!(self.gc_state.get(), 0, "no cycle's copies outstanding");
        // Relaxed region metadata throughout: in a pause (see `Region`).
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
            r.tams.store(r.top.load(Ordering::Relaxed), Ordering::Relaxed);
            r.monitor_seen.store(false, Ordering::Relaxed);
            r.in_cset.store(false, Ordering::Relaxed);
            r.evac_failed.store(false, Ordering::Relaxed);
        }
        let mut stack = Vec::new();
        self.mark_roots(&mut stack);
        self.trace_parallel(&mut stack);
        let movable = |i: usize| {
            let r = &s.regions[i];
            r.used.load(Ordering::Relaxed)
                && r.pins.load(Ordering::SeqCst) == 0
                && !r.monitor_seen.load(Ordering::Relaxed)
                && r.humongous() == 0
        };
        for (i, r) in s.regions.iter().enumerate() {
            if movable(i) && r.lock_seen.swap(false, Ordering::Relaxed) {
                s.release_dead_locks(r);
            }
        }
        // 2. Plan: the compaction point, and each movable region's new top.
        let n = s.regions.len();
        let mut new_top: Vec<usize> = s.regions.iter().map(|r| r.bottom).collect();
        let mut target = (0..n).find(|&i| movable(i));
        let mut point = target.map_or(0, |t| s.regions[t].bottom);
        for i in 0..n {
            let r = &s.regions[i];
            if !r.used.load(Ordering::Relaxed) || r.humongous() == HUMONGOUS_CONT {
                continue;
            }
            let fixed = !movable(i);
            s.parse(r, r.top.load(Ordering::Relaxed), |obj| {
                if !s.is_marked(obj) {
                    return;
                }
                if fixed {
                    // Relaxed: in a pause; the adjust phase reads it.
                    s.fwd(obj).store(obj, Ordering::Relaxed);
                    return;
                }
                let bytes = s.cell_words(obj) * 8;
                let mut t = target.expect("a movable region holds this object");
                if point + bytes > s.regions[t].bottom + s.region_bytes {
                    new_top[t] = point;
                    t = (t + 1..n)
                        .find(|&j| movable(j))
                        .expect("the object's own region is movable");
                    target = Some(t);
                    point = s.regions[t].bottom;
                }
                debug_assert!(point + 8 <= obj, "the point never passes the object it places");
                s.fwd(obj).store(point + 8, Ordering::Relaxed);
                point += bytes;
            });
        }
        if let Some(t) = target {
            new_top[t] = point;
        }
        // 3. Adjust references (live objects only: a dead one's fields may
        // name objects that are gone).
        let adjust = |v: usize| {
            if v == 0 {
                0
            } else {
                forwarding::forwardee(s.fwd(v))
            }
        };
        // By region over the workers: each writes only its own region's
        // fields and reads the forwarding words the plan wrote.
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
                    let field = s.word(Space::ref_addr(obj, i));
                    field.store(adjust(field.load(Ordering::Relaxed)), Ordering::Relaxed);
                }
            });
        });
        self.par_roots(|_, r| *r = adjust(*r));
        // 4. Move, in address order. Each object's size and new place are
        // read before its words are overwritten (by its own move or a
        // later one, never an earlier one: module docs).
        for (i, r) in s.regions.iter().enumerate() {
            if !movable(i) {
                continue;
            }
            let top = r.top.load(Ordering::Relaxed);
            let mut p = r.bottom;
            while p < top {
                let w = s.word(p).load(Ordering::Relaxed);
                if w & 1 == 1 {
                    p += (w >> 1) * 8;
                    continue;
                }
                let obj = p + 8;
                let words = s.cell_words(obj);
                let marked = s.is_marked(obj);
                let to = forwarding::forwardee(s.fwd(obj));
                p += words * 8;
                if !marked {
                    continue;
                }
                let cell = to - 8;
                if cell != obj - 8 {
                    // Upwards, word by word: the ranges may overlap with
                    // the destination lower.
                    for k in 1..words {
                        let v = s.word(obj - 8 + 8 * k).load(Ordering::Relaxed);
                        s.word(cell + 8 * k).store(v, Ordering::Relaxed);
                    }
                }
                s.word(cell).store(to, Ordering::Relaxed);
            }
        }
        // New tops; free what is left empty.
        let mut freed = 0;
        let mut a = s.lock_alloc();
        for (i, r) in s.regions.iter().enumerate() {
            if r.humongous() == HUMONGOUS_START
                && r.pins.load(Ordering::SeqCst) == 0
                && !s.is_marked(r.bottom + 8)
            {
                // A dead humongous object: its whole run.
                freed += s.free_humongous(&mut a, i);
                continue;
            }
            if !movable(i) {
                continue;
            }
            let t = new_top[i];
            if t == r.bottom {
                s.free_region(&mut a, i);
                freed += 1;
            } else {
                r.top.store(t, Ordering::Relaxed);
                r.tams.store(t, Ordering::Relaxed);
                r.watermark.store(t, Ordering::Relaxed);
            }
        }
        drop(a);
        // The marks named the old places: clear them for the next cycle.
        s.clear_marks();
        let mut stats = self.stats();
        stats.full_compactions += 1;
        stats.regions_freed += freed as u64;
        freed
    }
}

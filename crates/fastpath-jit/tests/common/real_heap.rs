//! What the real-heap barrier scenarios (`lrb_real`, `brooks_real`,
//! `data_world`, `cas_real`) share: the object graph they build before
//! their loops, the GC-state byte their barriers test, and driving the
//! collector to a phase.

use std::time::{Duration, Instant};

use fastpath::gc::{BarrierSet, Handle, Mutator};
use fastpath::thread;

/// `n` rooted holders, each with one reference field naming a target of
/// `target_words` data words whose word 0 is `1000 + i`, in the layout
/// word's form [`target_tag`] gives (tagged or not, alternately); only the
/// holders stay rooted (a target is reached through its holder's field):
/// the graph the real-heap barrier scenarios load through.
pub fn rooted_holders<B: BarrierSet>(m: &mut Mutator<B>, n: usize, target_words: usize) -> Vec<Handle> {
    rooted_holders_with(m, n, 0, target_words)
}

/// [`rooted_holders`] whose tagged targets also have `tagged_refs`
/// references, each naming the target's holder (the untagged ones have
/// none): in a heap with 4-byte slots a tagged object's reference 0 lies
/// in the 8 bytes of its layout word (`fastpath::gc::layout`), which the
/// compact format's test of a copy loads whole.
pub fn rooted_holders_with<B: BarrierSet>(
    m: &mut Mutator<B>,
    n: usize,
    tagged_refs: usize,
    target_words: usize,
) -> Vec<Handle> {
    (0..n)
        .map(|i| {
            let d = m.roots_len();
            let holder = m.alloc(1, 0).unwrap();
            let target = match target_tag(i) {
                Some(tag) => m.alloc_tagged(tagged_refs, target_words, tag).unwrap(),
                None => m.alloc(0, target_words).unwrap(),
            };
            let (h, t) = (m.get(holder).unwrap(), m.get(target).unwrap());
            m.write(t, 0, 1000 + i).unwrap();
            m.store(h, 0, Some(t)).unwrap();
            if target_tag(i).is_some() {
                for k in 0..tagged_refs {
                    m.store(t, k, Some(h)).unwrap();
                }
            }
            m.truncate_roots(d + 1);
            holder
        })
        .collect()
}

/// The tag of [`rooted_holders`]' target `i`: the odd ones are tagged
/// (with tags from the top of the tag table down), the even ones not, so
/// that every scenario's barriers meet objects of both forms.
pub fn target_tag(i: usize) -> Option<u32> {
    use fastpath::gc::layout::MAX_LAYOUT_TAG;
    (i % 2 == 1).then(|| MAX_LAYOUT_TAG - i as u32)
}

/// The GC-state byte of this thread's block, as its barriers see it.
pub fn gc_state() -> u8 {
    // SAFETY: this thread's block at its published GC-state offset, a byte
    // only this thread writes.
    unsafe { *(thread::current().as_ptr() as *const u8).add(thread::GC_STATE_OFFSET) }
}

/// Allocates garbage and polls until the block's state has `bit` (a
/// cycle's phase, stable until the next stop), or `cap` has passed since
/// `start`.
pub fn until_state<B: BarrierSet>(m: &mut Mutator<B>, bit: u8, start: Instant, cap: Duration) {
    while gc_state() & bit == 0 && start.elapsed() < cap {
        let d = m.roots_len();
        for _ in 0..16 {
            m.alloc(2, 6).unwrap();
        }
        m.truncate_roots(d);
        m.safepoint_poll();
    }
}

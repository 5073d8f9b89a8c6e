//! The object graph the real-heap barrier scenarios (`lrb_real`,
//! `brooks_real`, `data_world`) build before their loops.

use fastpath::gc::{BarrierSet, Handle, Mutator};

/// `n` rooted holders, each with one reference field naming a target of
/// `target_words` data words whose word 0 is `1000 + i`; only the holders
/// stay rooted (a target is reached through its holder's field): the
/// graph the real-heap barrier scenarios load through.
pub fn rooted_holders<B: BarrierSet>(m: &mut Mutator<B>, n: usize, target_words: usize) -> Vec<Handle> {
    (0..n)
        .map(|i| {
            let d = m.roots_len();
            let holder = m.alloc(1, 0).unwrap();
            let target = m.alloc(0, target_words).unwrap();
            let (h, t) = (m.get(holder).unwrap(), m.get(target).unwrap());
            m.write(t, 0, 1000 + i).unwrap();
            m.store(h, 0, Some(t)).unwrap();
            m.truncate_roots(d + 1);
            holder
        })
        .collect()
}

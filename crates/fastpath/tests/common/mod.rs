//! Scaffolding shared by the GC stress tests (`gc_workers.rs`,
//! `gc_assist.rs`, `gc_ran_dry.rs`): the time budget, the cap on a run that
//! makes no progress, and lists of checksummed nodes hanging off an array,
//! which a mutator rebuilds (making garbage) and checks against its model
//! of each slot's generation while cycles run ([`ListModel`]).

use std::time::Duration;

use fastpath::gc::{Dynamic, Handle, Mutator};

/// Each configuration's time budget: `FASTPATH_STRESS_MS` (default 400
/// ms). A test runs on past it until the progress it needs has happened.
pub fn stress_time() -> Duration {
    let ms = std::env::var("FASTPATH_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    Duration::from_millis(ms)
}

/// The longest a configuration may run without the progress it needs:
/// past it the test fails instead of running on.
pub const NO_PROGRESS_LIMIT: Duration = Duration::from_secs(300);

/// The next value of a xorshift generator (`x` nonzero).
pub fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// A node's checksum word: a mix of its slot, index and generation.
fn checksum(s: usize, i: usize, generation: usize) -> usize {
    let x = (s as u64) << 40 ^ (i as u64) << 20 ^ generation as u64;
    (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7) as usize
}

/// `slots` lists of `len + 1` nodes each (refs [next], data [slot, index,
/// generation, checksum]), hanging off an array of `slots` references.
#[derive(Clone, Copy)]
pub struct Lists {
    pub slots: usize,
    pub len: usize,
}

impl Lists {
    /// Allocates the array and builds every slot's list at generation 0;
    /// returns the array's handle.
    pub fn build_all(&self, m: &mut Mutator<Dynamic>) -> Handle {
        let array = m.alloc(self.slots, 0).unwrap();
        for s in 0..self.slots {
            self.build(m, array, s, 0);
        }
        array
    }

    /// Builds slot `s`'s list for `generation` and stores it in the array.
    pub fn build(&self, m: &mut Mutator<Dynamic>, array: Handle, s: usize, generation: usize) {
        let d = m.roots_len();
        let mut head: Option<Handle> = None;
        for i in (0..=self.len).rev() {
            let node = m.alloc(1, 4).unwrap();
            let n = m.get(node).unwrap();
            for (j, v) in [s, i, generation, checksum(s, i, generation)]
                .into_iter()
                .enumerate()
            {
                m.write(n, j, v).unwrap();
            }
            if let Some(h) = head {
                let (n, h) = (m.get(node).unwrap(), m.get(h).unwrap());
                m.store(n, 0, Some(h)).unwrap();
            }
            head = Some(node);
        }
        let h = m.get(head.unwrap()).unwrap();
        m.store(m.get(array).unwrap(), s, Some(h)).unwrap();
        m.truncate_roots(d);
    }

    /// Walks slot `s`'s list against the model (`generation`); returns the
    /// nodes checked.
    pub fn check(&self, m: &Mutator<Dynamic>, array: Handle, s: usize, generation: usize) -> u64 {
        let mut cur = m.load(m.get(array).unwrap(), s).unwrap();
        let mut i = 0;
        let mut sum = 0usize;
        while let Some(n) = cur {
            assert_eq!(m.read(n, 0).unwrap(), s, "slot {s}: node {i}'s slot");
            assert_eq!(m.read(n, 1).unwrap(), i, "slot {s}: node {i}'s index");
            assert_eq!(
                m.read(n, 2).unwrap(),
                generation,
                "slot {s}: node {i}'s generation"
            );
            sum = sum.wrapping_add(m.read(n, 3).unwrap());
            cur = m.load(n, 0).unwrap();
            i += 1;
        }
        assert_eq!(i, self.len + 1, "slot {s}: nodes missing");
        let want = (0..=self.len).fold(0usize, |a, k| a.wrapping_add(checksum(s, k, generation)));
        assert_eq!(sum, want, "slot {s}: the list's checksum");
        i as u64
    }
}

/// One mutator's lists and its model of them: each slot's generation, the
/// random stream that picks slots, and the nodes checked so far.
pub struct ListModel {
    lists: Lists,
    array: Handle,
    generation: Vec<usize>,
    rng: u64,
    /// Nodes checked against the model.
    pub checked: u64,
}

impl ListModel {
    /// Builds every list at generation 0 (`seed` starts the slot picks).
    pub fn new(lists: Lists, m: &mut Mutator<Dynamic>, seed: u64) -> ListModel {
        ListModel {
            lists,
            array: lists.build_all(m),
            generation: vec![0; lists.slots],
            rng: seed | 1,
            checked: 0,
        }
    }

    /// Rebuilds a random slot's list at its next generation, then makes
    /// `garbage` objects of `refs` references and `words` data words and
    /// drops them; no allocation may fail.
    pub fn churn(&mut self, m: &mut Mutator<Dynamic>, garbage: usize, refs: usize, words: usize) {
        let s = xorshift(&mut self.rng) as usize % self.lists.slots;
        self.generation[s] += 1;
        self.lists.build(m, self.array, s, self.generation[s]);
        let d = m.roots_len();
        for _ in 0..garbage {
            m.alloc(refs, words)
                .expect("a collection frees the garbage: no OutOfMemory");
        }
        m.truncate_roots(d);
    }

    /// Checks every `stride`-th slot from a random one below `stride`.
    pub fn check_some(&mut self, m: &Mutator<Dynamic>, stride: usize) {
        for s in (self.rng as usize % stride..self.lists.slots).step_by(stride) {
            self.checked += self.lists.check(m, self.array, s, self.generation[s]);
        }
    }

    /// Checks every slot; returns all the nodes checked.
    pub fn check_all(mut self, m: &Mutator<Dynamic>) -> u64 {
        for (s, &g) in self.generation.iter().enumerate() {
            self.checked += self.lists.check(m, self.array, s, g);
        }
        self.checked
    }
}

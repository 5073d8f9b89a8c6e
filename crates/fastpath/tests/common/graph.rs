//! The graph workload's model, shared by `gc_stress.rs` (the mutators
//! reach the heap through the Rust barriers) and fastpath-jit's
//! `x64_gc_stress.rs` (through the template barriers), each by path: slots
//! of nodes (an id, a value, two edges), the random stream that picks each
//! step, and what a step does to the model. Each test applies the same
//! step to its heap and checks the heap against the model.

/// The steps' random stream (xorshift).
pub struct Rng(u64);

impl Rng {
    /// Seeded with `seed`, made odd (never the stuck zero state).
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// The next value.
    pub fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 as usize
    }
}

/// The model of one slot's node: its id, value and its edges' target ids
/// (0 for null).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub id: usize,
    pub value: usize,
    pub edges: [usize; 2],
}

/// Every slot's node as the heap must hold it, the ids handed out and the
/// random stream.
pub struct Graph {
    pub slots: Vec<Node>,
    last_id: usize,
    pub rng: Rng,
}

impl Graph {
    /// `slots` empty slots; ids after `first_id`; the stream seeded `seed`.
    pub fn new(slots: usize, first_id: usize, seed: u64) -> Graph {
        Graph {
            slots: vec![Node::default(); slots],
            last_id: first_id,
            rng: Rng::new(seed),
        }
    }

    /// A fresh id.
    pub fn next_id(&mut self) -> usize {
        self.last_id += 1;
        self.last_id
    }

    /// Slot `i` holds a new node of `value` (no edges); returns its id.
    pub fn replace(&mut self, i: usize, value: usize) -> usize {
        let id = self.next_id();
        self.slots[i] = Node {
            id,
            value,
            edges: [0, 0],
        };
        id
    }

    /// Slot `i`'s node's edge `e` points to slot `k`'s node.
    pub fn rewire(&mut self, i: usize, e: usize, k: usize) {
        self.slots[i].edges[e] = self.slots[k].id;
    }

    /// A random rewiring step: `(i, e, k)` for [`Graph::rewire`].
    pub fn pick_rewire(&mut self) -> (usize, usize, usize) {
        let n = self.slots.len();
        let (i, k, e) = (self.rng.next() % n, self.rng.next() % n, self.rng.next() % 2);
        (i, e, k)
    }

    /// A random replacement step: `(i, value)` for [`Graph::replace`].
    pub fn pick_replace(&mut self) -> (usize, usize) {
        (self.rng.next() % self.slots.len(), self.rng.next() % 1000)
    }
}

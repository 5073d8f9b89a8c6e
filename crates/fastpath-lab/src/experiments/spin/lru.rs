//! A HashMap + doubly-linked-list LRU cache: Java's `LinkedHashMap` in
//! access order with `removeEldestEntry`, which Caffeine's
//! `GetPutBenchmark` wraps in `synchronized` as `LinkedHashMap_Lru`.
//!
//! Every `get` relinks the entry at the most-recent end, so reads write
//! shared state too and need the lock; that is what makes the benchmark a
//! lock benchmark. The list lives in a slab (`Vec` of nodes linked by index)
//! so the cache allocates nothing once it is full.

use std::collections::HashMap;

const NIL: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Node {
    key: u64,
    value: u64,
    prev: u32,
    next: u32,
}

/// An LRU map from `u64` to `u64` holding at most `capacity` entries.
#[derive(Clone, Debug)]
pub struct Lru {
    index: HashMap<u64, u32>,
    nodes: Vec<Node>,
    /// Least recently used (evicted first).
    head: u32,
    /// Most recently used.
    tail: u32,
    capacity: usize,
}

impl Lru {
    /// An empty cache; `capacity` is at least 1 and below 2³².
    pub fn new(capacity: usize) -> Lru {
        let capacity = capacity.clamp(1, NIL as usize - 1);
        Lru {
            index: HashMap::with_capacity(capacity),
            nodes: Vec::with_capacity(capacity),
            head: NIL,
            tail: NIL,
            capacity,
        }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The value for `key`, making it the most recently used.
    pub fn get(&mut self, key: u64) -> Option<u64> {
        let i = *self.index.get(&key)?;
        self.move_to_tail(i);
        Some(self.nodes[i as usize].value)
    }

    /// Inserts or replaces `key`, making it the most recently used and
    /// evicting the least recently used entry if the cache is full.
    pub fn put(&mut self, key: u64, value: u64) {
        if let Some(&i) = self.index.get(&key) {
            self.nodes[i as usize].value = value;
            self.move_to_tail(i);
            return;
        }
        let i = if self.nodes.len() < self.capacity {
            self.nodes.push(Node {
                key,
                value,
                prev: NIL,
                next: NIL,
            });
            (self.nodes.len() - 1) as u32
        } else {
            // Reuse the eldest node for the new entry.
            let i = self.head;
            self.unlink(i);
            let old = std::mem::replace(&mut self.nodes[i as usize].key, key);
            self.index.remove(&old);
            self.nodes[i as usize].value = value;
            i
        };
        self.index.insert(key, i);
        self.link_at_tail(i);
    }

    /// Keys from least to most recently used (for tests).
    pub fn keys_lru_first(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.len());
        let mut i = self.head;
        while i != NIL {
            out.push(self.nodes[i as usize].key);
            i = self.nodes[i as usize].next;
        }
        out
    }

    fn move_to_tail(&mut self, i: u32) {
        if self.tail != i {
            self.unlink(i);
            self.link_at_tail(i);
        }
    }

    fn unlink(&mut self, i: u32) {
        let (prev, next) = {
            let n = &self.nodes[i as usize];
            (n.prev, n.next)
        };
        if prev == NIL {
            self.head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
    }

    fn link_at_tail(&mut self, i: u32) {
        let old_tail = self.tail;
        {
            let n = &mut self.nodes[i as usize];
            n.prev = old_tail;
            n.next = NIL;
        }
        if old_tail == NIL {
            self.head = i;
        } else {
            self.nodes[old_tail as usize].next = i;
        }
        self.tail = i;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_in_access_order() {
        let mut c = Lru::new(3);
        c.put(1, 10);
        c.put(2, 20);
        c.put(3, 30);
        assert_eq!(c.get(1), Some(10)); // 1 becomes most recent
        c.put(4, 40); // evicts 2
        assert_eq!(c.get(2), None);
        assert_eq!(c.keys_lru_first(), [3, 1, 4]);
        c.put(3, 33); // update refreshes
        assert_eq!(c.keys_lru_first(), [1, 4, 3]);
        assert_eq!(c.get(3), Some(33));
        assert_eq!(c.len(), 3);
        c.put(5, 50);
        c.put(6, 60);
        assert_eq!(c.keys_lru_first(), [3, 5, 6]);
        assert_eq!(c.index.len(), 3);
    }

    #[test]
    fn capacity_one() {
        let mut c = Lru::new(0);
        c.put(1, 1);
        c.put(2, 2);
        assert_eq!(c.get(1), None);
        assert_eq!(c.get(2), Some(2));
        assert!(!c.is_empty());
    }
}

//! Root scanners: a runtime's own roots (its frames, its statics), which
//! the collector enumerates in its pauses beside the handle stacks.
//!
//! Where it sits: in the heap's machinery, beside `roots.rs`. A runtime whose frames hold object
//! references in slots of its own (an interpreter's locals and operand
//! stack, found exactly from per-bytecode reference maps) registers a
//! [`RootScanner`] on the thread's [`Mutator`] ([`Mutator::set_root_scanner`]),
//! and one for process-wide roots (statics, interned strings) on the
//! [`Heap`] ([`Heap::add_root_scanner`]). Every root phase of the collector
//! (marking the roots, evacuating and updating them, a full compaction's
//! mark and adjust, the verifier) calls each scanner once, in a pause:
//! `par_roots_with` and `for_each_root` visit the mutators' handle stacks,
//! then each mutator's scanner, then the globals and the heap's scanners.
//!
//! The contract a scanner keeps (HotSpot's `OopClosure` over a thread's
//! frames, `Threads::oops_do`):
//! - it calls `visit` exactly once on each slot that holds a reference
//!   (null slots may be visited or not): a slot visited twice would be
//!   adjusted twice by a compaction;
//! - it runs while its mutator is stopped (at a poll, in a safe region, or
//!   collecting), so the slots do not change under it; the stop orders the
//!   mutator's writes before the scanner's reads and the scanner's updates
//!   before the mutator's next reads (the safepoint's mutex and epoch);
//! - it may run on any thread (the collector's, a worker, the mutator that
//!   collects in passive mode), hence `Send + Sync`;
//! - a mutator's scanner is called only while that mutator is registered:
//!   from [`Mutator::set_root_scanner`] until the mutator drops; a heap
//!   scanner from [`Heap::add_root_scanner`] until [`Heap::remove_root_scanner`].
//!
//! A runtime running in a safe region must not touch the slots its scanner
//! reports (the collector may be moving their objects meanwhile).

use std::sync::{Arc, Mutex, MutexGuard};

use super::mutator::Mutator;
use super::runtime::Heap;
use crate::gc::barrier_set::BarrierSet;

/// Enumerates root slots for the collector (module docs: the contract).
pub trait RootScanner: Send + Sync {
    /// Calls `visit` once on every root slot (an object address of this
    /// heap, or 0). `visit` may rewrite the slot (the object moved).
    fn scan(&self, visit: &mut dyn FnMut(&mut usize));
}

/// A heap's process-wide scanners, by registration id.
#[derive(Default)]
pub(crate) struct HeapScanners {
    scanners: Mutex<Vec<(u64, Arc<dyn RootScanner>)>>,
    next_id: std::sync::atomic::AtomicU64,
}

impl HeapScanners {
    fn lock(&self) -> MutexGuard<'_, Vec<(u64, Arc<dyn RootScanner>)>> {
        // No code panics while holding it (a scanner runs on a clone).
        self.scanners.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every registered scanner (a snapshot: scanners run unlocked).
    pub(crate) fn snapshot(&self) -> Vec<Arc<dyn RootScanner>> {
        self.lock().iter().map(|(_, s)| s.clone()).collect()
    }
}

/// The registration of a heap-wide scanner, for [`Heap::remove_root_scanner`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootScannerId(u64);

impl Heap {
    /// Registers `scanner` for the heap's process-wide roots: every root
    /// phase of every later pause calls it.
    pub fn add_root_scanner(&self, scanner: Arc<dyn RootScanner>) -> RootScannerId {
        let s = &self.inner.root_scanners;
        // Relaxed: a unique number, nothing else.
        let id = s.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        s.lock().push((id, scanner));
        RootScannerId(id)
    }

    /// Unregisters a scanner; true if it was registered. A pause running
    /// meanwhile may still call it once.
    pub fn remove_root_scanner(&self, id: RootScannerId) -> bool {
        let mut list = self.inner.root_scanners.lock();
        let before = list.len();
        list.retain(|(i, _)| *i != id.0);
        list.len() != before
    }
}

impl<B: BarrierSet> Mutator<B> {
    /// Registers (or, with `None`, removes) the scanner of this thread's
    /// own roots: its frames. Every root phase of every later pause calls
    /// it, while this mutator is stopped, until it is replaced or the
    /// mutator drops.
    pub fn set_root_scanner(&self, scanner: Option<Arc<dyn RootScanner>>) {
        *self.shared.scanner() = scanner;
    }
}

/// The scanner slot of one mutator (in `MutatorShared`).
#[derive(Default)]
pub(crate) struct MutatorScanner(Mutex<Option<Arc<dyn RootScanner>>>);

impl MutatorScanner {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Option<Arc<dyn RootScanner>>> {
        // No code panics while holding it.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The scanner, if any (a clone: it runs unlocked).
    pub(crate) fn get(&self) -> Option<Arc<dyn RootScanner>> {
        self.lock().clone()
    }
}

//! The handle stack: a mutator's roots, as the collector sees them.
//!
//! The names a runtime holds for objects live here too: an [`Obj`] (a raw
//! address that borrows its mutator), a [`Handle`] (a slot of the stack),
//! a [`Global`] (a root of the whole heap).
//!
//! Where it sits: a [`crate::gc::Mutator`] pushes and pops slots (`mutator.rs`);
//! the heap keeps every mutator's stack in its list (`runtime.rs`), which
//! the collector scans and updates in pauses, when no mutator runs.

use std::marker::PhantomData;
use std::sync::Mutex;

/// A reference to a heap object, valid until the mutator it borrows next
/// reaches a safepoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Obj<'m> {
    pub(crate) addr: usize,
    _m: PhantomData<&'m ()>,
}

impl Obj<'_> {
    /// `addr`, an object of the heap, for as long as the borrow `'m`.
    #[inline(always)]
    pub(crate) fn new(addr: usize) -> Self {
        Obj {
            addr,
            _m: PhantomData,
        }
    }

    /// The object's address (its header's). In a Brooks heap two `Obj`s of
    /// one object may differ during a cycle; compare with [`crate::gc::Mutator::same`].
    pub fn addr(self) -> usize {
        self.addr
    }
}

/// A root: an entry of a mutator's handle stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    /// The mutator's process-wide id.
    pub(crate) mutator: u32,
    /// Its slot on the stack.
    pub(crate) index: u32,
    /// The slot's stamp when the handle was made.
    pub(crate) stamp: u64,
}

/// A root shared by every mutator of a heap (a "global handle").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Global {
    /// The heap's identity (`HeapInner::id`), not its address: a heap made
    /// later at the same address has another.
    pub(crate) heap: u64,
    /// Its entry in the heap's list of globals.
    pub(crate) index: usize,
}

/// One handle-stack slot.
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    /// The object rooted (updated by the collector when it moves).
    pub(crate) addr: usize,
    /// The serial of the handle that pushed it: a popped slot's handle
    /// never matches the slot's next occupant.
    pub(crate) stamp: u64,
}

/// The part of a mutator the collector reads in pauses.
pub(crate) struct MutatorShared {
    pub(crate) roots: Mutex<Vec<Slot>>,
    /// The runtime's scanner of this thread's own roots (`root_scanner.rs`).
    pub(crate) scanner: super::root_scanner::MutatorScanner,
}

impl MutatorShared {
    pub(crate) fn new() -> MutatorShared {
        MutatorShared {
            roots: Mutex::new(Vec::new()),
            scanner: Default::default(),
        }
    }

    pub(crate) fn roots(&self) -> std::sync::MutexGuard<'_, Vec<Slot>> {
        // No code panics while holding it; see Safepoint::lock.
        self.roots.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn scanner(
        &self,
    ) -> std::sync::MutexGuard<'_, Option<std::sync::Arc<dyn super::root_scanner::RootScanner>>> {
        self.scanner.lock()
    }
}

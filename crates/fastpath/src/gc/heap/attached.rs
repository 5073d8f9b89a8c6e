//! What the slow paths entered from generated code need of the calling
//! thread's mutator beyond its thread block: the heap and the mutator's
//! GCLAB (boxed, so its address is fixed while the mutator lives). A block
//! names no mutator (a `Mutator` is a value that moves), so each thread
//! keeps this record while its mutator lives.
//!
//! Where it sits: below both of its users. `mutator.rs` writes the record
//! (its constructor, after attaching the block; its drop, before
//! detaching); `barriers/jit_entry.rs` reads it when generated code calls a barrier's
//! slow path.

use std::cell::Cell;
use std::ptr::NonNull;

use super::runtime::HeapInner;
use super::space::Lab;

std::thread_local! {
    /// The live mutator's heap and GCLAB; `None` while the thread has none.
    static ENTRY: Cell<Option<(NonNull<HeapInner>, NonNull<Lab>)>> = const { Cell::new(None) };
}

/// Records the calling thread's new mutator (from `Mutator::new`, after
/// attaching the block): its heap and GCLAB, which outlive the record
/// (the mutator's drop calls [`clear`] first).
pub(in crate::gc) fn set(heap: &HeapInner, lab: &Lab) {
    // `try_with`: `Mutator::new` has already refused a thread whose
    // thread-locals are being destroyed (its exit guard).
    let _ = ENTRY.try_with(|e| e.set(Some((NonNull::from(heap), NonNull::from(lab)))));
}

/// Forgets the calling thread's mutator (its drop).
pub(in crate::gc) fn clear() {
    let _ = ENTRY.try_with(|e| e.set(None));
}

/// The calling thread's live mutator's heap and GCLAB, `None` while it has
/// none (or its thread-locals are being destroyed).
#[inline]
pub(in crate::gc) fn get() -> Option<(NonNull<HeapInner>, NonNull<Lab>)> {
    ENTRY.try_with(Cell::get).ok().flatten()
}

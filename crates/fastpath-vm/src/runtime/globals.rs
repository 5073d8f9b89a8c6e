//! Global roots: slots holding references the VM keeps for the whole run
//! or a while (interned strings, `java.lang.Class` objects, a thread's
//! `java.lang.Thread` object while the thread runs), at stable addresses so
//! a pre-decoded `ldc` can point at its string's slot.
//!
//! Where it sits: beside the heap; the VM's heap-wide root scanner
//! (`vm.rs`) reports every slot in use, the collector rewrites them in its
//! pauses. Slots live in fixed chunks that never move; a slot is taken
//! under a lock and read and written without one (a reference in a slot
//! is published by the Release store that fills it, and rewritten by the
//! collector only while every mutator is stopped).

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::Mutex;

const CHUNK: usize = 1024;
const CHUNKS: usize = 4096;

/// The global slots (at most `CHUNK * CHUNKS`).
pub struct GlobalSlots {
    chunks: Box<[AtomicPtr<[AtomicUsize; CHUNK]>]>,
    /// Slots handed out (the scanner's bound).
    len: AtomicUsize,
    /// Freed slots for reuse, and the allocation lock.
    free: Mutex<Vec<usize>>,
}

impl Default for GlobalSlots {
    fn default() -> Self {
        GlobalSlots {
            chunks: (0..CHUNKS)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            len: AtomicUsize::new(0),
            free: Mutex::new(Vec::new()),
        }
    }
}

impl GlobalSlots {
    fn slot(&self, i: usize) -> &'static AtomicUsize {
        // Acquire: pairs with the Release that installed the chunk.
        let chunk = self.chunks[i / CHUNK].load(Ordering::Acquire);
        // SAFETY: slot `i` was handed out, so its chunk was installed (a
        // leaked, never freed allocation) before `len` covered it.
        unsafe { &(*chunk)[i % CHUNK] }
    }

    /// A slot holding `value` (an object address or 0). `None` when every
    /// slot is in use.
    pub fn alloc(&self, value: usize) -> Option<&'static AtomicUsize> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let i = match free.pop() {
            Some(i) => i,
            None => {
                // Relaxed: changed only under `free`'s lock.
                let i = self.len.load(Ordering::Relaxed);
                if i >= CHUNK * CHUNKS {
                    return None;
                }
                if i % CHUNK == 0 {
                    let chunk: &'static mut [AtomicUsize; CHUNK] =
                        Box::leak(Box::new(std::array::from_fn(|_| AtomicUsize::new(0))));
                    // Release: the zeroed chunk before its address.
                    self.chunks[i / CHUNK].store(chunk, Ordering::Release);
                }
                // Release: the chunk before the scanner's bound covers it.
                self.len.store(i + 1, Ordering::Release);
                i
            }
        };
        let s = self.slot(i);
        // Release: the object's initialization before its reference.
        s.store(value, Ordering::Release);
        Some(s)
    }

    /// Returns `slot` (from [`GlobalSlots::alloc`]) for reuse.
    pub fn free(&self, slot: &'static AtomicUsize) {
        // Relaxed: the slot is nobody's now.
        slot.store(0, Ordering::Relaxed);
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        // Find its index: chunk by chunk (rare: thread exits).
        // Acquire: as `slot`.
        let n = self.len.load(Ordering::Acquire);
        for c in 0..n.div_ceil(CHUNK) {
            let chunk = self.chunks[c].load(Ordering::Acquire);
            // SAFETY: installed chunks are never freed.
            let base = unsafe { (*chunk).as_ptr() };
            let off = (slot as *const AtomicUsize as usize).wrapping_sub(base as usize)
                / std::mem::size_of::<AtomicUsize>();
            if (slot as *const AtomicUsize as usize) >= base as usize && off < CHUNK {
                free.push(c * CHUNK + off);
                return;
            }
        }
    }

    /// Calls `visit` on every slot handed out (in a pause).
    pub fn scan(&self, visit: &mut dyn FnMut(&mut usize)) {
        // Acquire: every chunk below the bound is installed.
        let n = self.len.load(Ordering::Acquire);
        for i in 0..n {
            let s = self.slot(i);
            // Relaxed: in a pause, every mutator stopped (module docs).
            let mut v = s.load(Ordering::Relaxed);
            if v != 0 {
                visit(&mut v);
                s.store(v, Ordering::Relaxed);
            }
        }
    }
}

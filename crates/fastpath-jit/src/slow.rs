//! The library's slow paths as `extern "C"` functions a
//! [`SlowStub`](crate::SlowStub) calls from a template's `slow` label, and
//! [`LibraryPath`], the same list as data (signature by role, address),
//! which each template's [`SlowCall`](crate::SlowCall) names.
//!
//! Where it sits: the templates handle the common cases inline and leave
//! every other state unchanged; these run the library's own slow paths.
//!
//! | template | stub calls | arguments | result |
//! |---|---|---|---|
//! | monitor enter / exit | [`monitor_enter`] / [`monitor_exit`]: `fastpath::sync::enter_on` / `exit_on` (whose own fast path fails the same way, then the inflation, contention and mode-specific paths) | block, object | exit: 0 or 1 |
//! | [`crate::SatbEnqueue`] (queue full), or the SATB idle test's stub directly | [`satb_enqueue`] (`fastpath::gc::satb_slow_entry`): flush the full buffer to the heap's queue, push the value | block, previous value | - |
//! | [`crate::LrbCset`] (in the collection set, not yet copied), or the LRB idle test's stub directly | [`lrb`] (`fastpath::gc::lrb_slow_entry`): evacuate or resolve, heal the field | block, loaded reference, field address | the reference to use |
//! | [`crate::BrooksWriteBarrier`] (evacuation or forwarded objects) | [`brooks_wb`] (`fastpath::gc::brooks_wb_slow_entry`): evacuate the object if in the collection set while evacuating, else its forwardee | block, object | the object to write |
//! | [`crate::G1Card`] (a non-null store across regions into a card not dirty) | [`g1_card`] (`fastpath::gc::g1_card_slow_entry`): StoreLoad fence, re-check the card, dirty it and enqueue it | block, field address | - |
//! | [`crate::CasRef`] (a failed CAS while forwarded objects exist) | [`cas_ref`] (`fastpath::gc::cas_ref_slow_entry`): retry while the field holds `expected` or another copy of its object | block, field address, expected, new | `expected` on success, else the witnessed value |
//! | [`crate::DataStore`] under `brooks-wb` (evacuation or forwarded objects) | [`brooks_wb`] | block, object | the object to write |
//!
//! Every reference argument and result is an address (null 0) whatever
//! the heap's reference width: the templates decode a compressed slot
//! before a call and the entries read, CAS and heal a slot at the heap's
//! width (`field` a 4-byte slot on a compressed heap).
//!
//! The GC entries run the Rust barriers' slow paths for the calling
//! thread's live `fastpath::gc::Mutator`; generated code must hold no
//! object address across a stop of that mutator (it may move objects), so
//! it polls only where the runtime's Rust side does, between calls, or at
//! a safepoint poll after which it reloads its references from roots.

pub use fastpath::gc::brooks_wb_slow_entry as brooks_wb;
pub use fastpath::gc::cas_ref_slow_entry as cas_ref;
pub use fastpath::gc::g1_card_slow_entry as g1_card;
pub use fastpath::gc::lrb_slow_entry as lrb;
pub use fastpath::gc::satb_slow_entry as satb_enqueue;

use core::pin::Pin;

use fastpath::sync::Header;
use fastpath::thread::ThreadBlock;

/// `monitorenter`'s slow path.
///
/// # Safety
/// `thread` is the calling thread's block (`fastpath::thread::current()`);
/// `obj` points to a live header that stays pinned while locked.
pub unsafe extern "C" fn monitor_enter(thread: *const ThreadBlock, obj: *const Header) {
    // SAFETY: per the contract, both point to live values; the header is
    // pinned by the caller.
    unsafe { fastpath::sync::enter_on(&*thread, Pin::new_unchecked(&*obj)) }
}

/// `monitorexit`'s slow path: 0 on success, 1 if this thread does not hold
/// `obj` (`IllegalMonitorStateException`; nothing changed).
///
/// # Safety
/// As [`monitor_enter`].
pub unsafe extern "C" fn monitor_exit(thread: *const ThreadBlock, obj: *const Header) -> u32 {
    // SAFETY: as in `monitor_enter`.
    match unsafe { fastpath::sync::exit_on(&*thread, Pin::new_unchecked(&*obj)) } {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

/// One of the library's slow paths: what a JIT imports and calls from a
/// template's `slow` label (a dynasm stub's `func`, a Cranelift import's
/// target), with its C signature by role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LibraryPath {
    /// [`monitor_enter`]: `(thread, obj)`.
    MonitorEnter,
    /// [`monitor_exit`]: `(thread, obj) -> u32` status (1: not the owner).
    MonitorExit,
    /// [`satb_enqueue`]: `(thread, previous value)`.
    SatbEnqueue,
    /// [`lrb`]: `(thread, obj, field) -> the reference to use`.
    Lrb,
    /// [`brooks_wb`]: `(thread, obj) -> the object to write`.
    BrooksWb,
    /// [`g1_card`]: `(thread, field)`.
    G1Card,
    /// [`cas_ref`]: `(thread, field, expected, new) -> expected on success,
    /// else the witnessed value`.
    CasRef,
}

/// What a slow path returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlowResult {
    /// A `u32` status (0: done).
    Status,
    /// A pointer-sized word: a reference or an address.
    Word,
}

impl LibraryPath {
    /// The function's address.
    pub fn addr(self) -> usize {
        match self {
            LibraryPath::MonitorEnter => monitor_enter as *const () as usize,
            LibraryPath::MonitorExit => monitor_exit as *const () as usize,
            LibraryPath::SatbEnqueue => satb_enqueue as *const () as usize,
            LibraryPath::Lrb => lrb as *const () as usize,
            LibraryPath::BrooksWb => brooks_wb as *const () as usize,
            LibraryPath::G1Card => g1_card as *const () as usize,
            LibraryPath::CasRef => cas_ref as *const () as usize,
        }
    }

    /// Its arguments, by role, in order (each a pointer-sized integer).
    pub fn args(self) -> &'static [&'static str] {
        match self {
            LibraryPath::MonitorEnter | LibraryPath::MonitorExit | LibraryPath::BrooksWb => {
                &["thread", "obj"]
            }
            LibraryPath::SatbEnqueue => &["thread", "previous value"],
            LibraryPath::Lrb => &["thread", "obj", "field"],
            LibraryPath::G1Card => &["thread", "field"],
            LibraryPath::CasRef => &["thread", "field", "expected", "new"],
        }
    }

    /// What it returns.
    pub fn result(self) -> Option<SlowResult> {
        match self {
            LibraryPath::MonitorExit => Some(SlowResult::Status),
            LibraryPath::Lrb | LibraryPath::BrooksWb | LibraryPath::CasRef => Some(SlowResult::Word),
            LibraryPath::MonitorEnter | LibraryPath::SatbEnqueue | LibraryPath::G1Card => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_paths_name_distinct_functions() {
        let all = [
            LibraryPath::MonitorEnter,
            LibraryPath::MonitorExit,
            LibraryPath::SatbEnqueue,
            LibraryPath::Lrb,
            LibraryPath::BrooksWb,
            LibraryPath::G1Card,
            LibraryPath::CasRef,
        ];
        let addrs: std::collections::HashSet<usize> = all.iter().map(|p| p.addr()).collect();
        assert_eq!(addrs.len(), all.len());
        for p in all {
            assert_eq!(p.args()[0], "thread", "{p:?}");
        }
    }
}

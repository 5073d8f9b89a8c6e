//! The library's slow paths as `extern "C"` functions a
//! [`crate::x64::SlowStub`] calls from a template's `slow` label.
//!
//! Where it sits: the templates handle the common cases inline and leave
//! every other state unchanged; these run the library's own slow paths.
//!
//! | template | stub calls | arguments | result |
//! |---|---|---|---|
//! | monitor enter / exit | [`monitor_enter`] / [`monitor_exit`]: `fastpath::sync::enter_on` / `exit_on` (whose own fast path fails the same way, then the inflation, contention and mode-specific paths) | block, object | exit: 0 or 1 |
//! | [`crate::x64::SatbEnqueue`] (queue full), or the SATB idle test's stub directly | [`satb_enqueue`] (`fastpath::gc::satb_slow_entry`): flush the full buffer to the heap's queue, push the value | block, previous value | - |
//! | [`crate::x64::LrbCset`] (in the collection set, not yet copied), or the LRB idle test's stub directly | [`lrb`] (`fastpath::gc::lrb_slow_entry`): evacuate or resolve, heal the field | block, loaded reference, field address | the reference to use |
//! | [`crate::x64::BrooksWriteBarrier`] (evacuation or forwarded objects) | [`brooks_wb`] (`fastpath::gc::brooks_wb_slow_entry`): evacuate the object if in the collection set while evacuating, else its forwardee | block, object | the object to write |
//! | [`crate::x64::G1Card`] (a non-null store across regions into a card not dirty) | [`g1_card`] (`fastpath::gc::g1_card_slow_entry`): StoreLoad fence, re-check the card, dirty it and enqueue it | block, field address | - |
//!
//! The GC entries run the Rust barriers' slow paths for the calling
//! thread's live `fastpath::gc::Mutator`; generated code must hold no
//! object address across a stop of that mutator (it may move objects), so
//! it polls only where the runtime's Rust side does, between calls, or at
//! a safepoint poll after which it reloads its references from roots.

pub use fastpath::gc::brooks_wb_slow_entry as brooks_wb;
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

//! Object monitors with fast-locking (seed 001: HotSpot's lightweight
//! locking, PR 10590 → JDK 21 `LM_LIGHTWEIGHT`, recursive since JDK 22, the
//! default since JDK 23), legacy stack-locking (`LM_LEGACY`, the seed's
//! baseline) and monitor-only locking (`LM_MONITOR`), with async monitor
//! deflation.
//!
//! An *object* is anything that embeds a [`Header`] (one word; its address
//! is the identity). Locking it normally never leaves that word and a small
//! per-thread *lock-stack*: CAS the lock bits 01→00 and push the object's
//! address; unlock pops and CASes back. When fast-locking cannot express
//! the state (contention, `wait`, interleaved recursion, a full lock-stack,
//! unstructured exit) the object is *inflated*: a monitor-style
//! structure with an owner, an entry list, a wait set and parking is
//! installed in the header as a tagged pointer. An idle monitor is
//! *deflated* again by a background thread (or [`deflate_idle_monitors`]),
//! so the object fast-locks again.
//!
//! Data flow (dependencies run downwards only; the thread layer,
//! [`crate::thread`], sits below all of it):
//!
//! ```text
//!  api::lock / HeaderGuard / Synchronized        raw enter / exit / try_enter (+ _on)
//!                 \                          /        enter_with_record
//!   synchronizer ── fast path: lock_stack + one CAS on the header
//!                ── inline inflated path: the monitor's owner CAS (block's owner id)
//!                └─ one dispatch on the mode (op: Op, Holder, Outcome)
//!                     ├─ lightweight ── fast_lock_spin
//!                     ├─ monitor_mode
//!                     └─ legacy ── record (one CAS, displaced header)
//!   lifecycle (header drop, thread exit), hash
//!                     └─ inflate ── deflate (restore_deflated, its thread)
//!                                     └─ registry ── monitor ── thread (registration)
//!                                                                  └─ lock_stack ── header
//!   stats ◄── every inflation, by cause; every deflation
//! ```
//!
//! | file | concept |
//! |---|---|
//! | `api.rs` | the safe API: `HeaderGuard`, `Synchronized` |
//! | `synchronizer.rs` | enter/exit/try_enter and their guard forms, wait/notify, `holds_lock`: the fast paths, the inline inflated paths and the one dispatch on the mode |
//! | `op.rs` | what the dispatch hands a protocol (`Op`, `Holder`) and its one-word answer (`Outcome`) |
//! | `lightweight.rs` | lightweight locking's slow paths |
//! | `monitor_mode.rs` | monitor-only locking's slow paths |
//! | `legacy.rs` | legacy stack-locking: displaced headers in records |
//! | `fast_lock_spin.rs` | the spin for another thread's thin lock before inflating |
//! | `lifecycle.rs` | header drop and thread exit: what happens to held locks |
//! | `hash.rs` | the identity hash and the word that carries it |
//! | `embed.rs` | `HasHeader`: a header embedded in the user's own struct |
//! | `inflate.rs` | installing monitors, claiming them from a lock-stack or a record; the contended enter and monitor exit the protocols share |
//! | `deflate.rs` | async monitor deflation: the pass, its triggers, its thread, and restoring a deflated monitor's header |
//! | `registry.rs` | every installed monitor, and who may free it (the lock, the set, per-thread young monitors) |
//! | `monitor.rs` | the monitor and its owner values: entry list, successor, spinning, wait/notify; the header word's monitor form |
//! | `thread.rs` | a thread's registration: its `ThreadState`, its mode in the thread block, the block's caches, interrupts |
//! | `wait_spin.rs` | how long `Object.wait` watches for its notification before it parks |
//! | `parker.rs` | `park`/`unpark`: a thread's permit for `java.util.concurrent` (`LockSupport`), apart from the monitors' event |
//! | `record.rs` | lock records (`BasicLock`), the per-thread record arena |
//! | `lock_stack.rs` | the lock-stack's operations on the thread block ([`crate::thread`], which holds it): its fast paths and `verify` |
//! | `header.rs` | the header word and its layout |
//! | `stats.rs` | per-cause counters |
//! | `error.rs` | [`SyncError`] |
//! | `settings.rs` | `FASTPATH_LOCKING_MODE` and the knobs' starting values (`FASTPATH_FAST_LOCKING_*`, `FASTPATH_DEFLATION_*`, `FASTPATH_WAIT_SPIN_NS`) |
//! | `atomic.rs` | what `sync` takes from the crate's loom shim (`primitives.rs`); the spin pause |
//!
//! The thread layer holds what is per thread and below locking: the block
//! ([`crate::thread::ThreadBlock`]), the shared `ThreadState` (owner id,
//! park event, interrupt status) and the critical sections whose grace
//! period lets the deflater free a monitor.
//!
//! ## Transitions, one table per mode
//!
//! Rows: what the header says when the operation looks; "mine"/"other":
//! whether the current thread holds it. Every cell is a defined transition,
//! including states another mode's thread created.
//!
//! **Lightweight** (`LM_LIGHTWEIGHT`, the default):
//!
//! | header | enter | exit | wait | notify | hash |
//! |---|---|---|---|---|---|
//! | 01 unlocked | CAS 01→00, push | IllegalMonitorState | IllegalMonitorState | IllegalMonitorState | CAS into header |
//! | 00 mine, on top | push (recursion run) | pop; last: CAS 00→01 | inflate (owned), wait | 0 (nobody waits) | CAS into header |
//! | 00 mine, below top | inflate (owned, interleaved), enter monitor | inflate (unstructured), exit monitor | as on top | as on top | CAS into header |
//! | 00 other | inflate (anonymous), enter monitor | IllegalMonitorState | IllegalMonitorState | IllegalMonitorState | CAS into header |
//! | 10 anonymous, mine | claim from lock-stack, enter | claim, exit | claim, wait | claim, notify | displaced header |
//! | 10 owner mine | monitor enter (recursion) | monitor exit | monitor wait | monitor notify | displaced header |
//! | 10 other/none | monitor enter (spin, queue, park) | IllegalMonitorState | IllegalMonitorState | IllegalMonitorState | displaced header |
//! | 11 (GC) | spin | spin | spin | spin | spin |
//!
//! **Legacy** (`LM_LEGACY`, stack-locking): the lock-stack is parked in
//! legacy mode (`top` out of range); every lock has a [`LockRecord`] (the caller's, a guard's, or
//! the raw API's record stack). "mine": the word is one of my records.
//!
//! | header | enter (record R) | exit (record R) | wait | notify | hash |
//! |---|---|---|---|---|---|
//! | 01 unlocked | R ← header; CAS 01→&R | IllegalMonitorState | IllegalMonitorState | IllegalMonitorState | CAS into header |
//! | &R′ mine | R ← 0 (recursive) | R = 0: nothing; R = &header: CAS &R→displaced | inflate (INFLATING), claim, wait | 0 (nobody waits) | from R′ if set, else inflate |
//! | &R′ other | inflate (INFLATING, owner R′), enter monitor | IllegalMonitorState | IllegalMonitorState | IllegalMonitorState | inflate, then displaced header |
//! | 00 other (lightweight) | inflate (anonymous), enter monitor | IllegalMonitorState | IllegalMonitorState | IllegalMonitorState | CAS into header |
//! | INFLATING | spin | spin | spin | spin | spin |
//! | 10 owner my record | claim (recursions 0), enter | claim, exit | claim, wait | claim, notify | displaced header |
//! | 10 owner mine | monitor enter | monitor exit | monitor wait | monitor notify | displaced header |
//! | 10 other/none | monitor enter | IllegalMonitorState | IllegalMonitorState | IllegalMonitorState | displaced header |
//!
//! Lightweight and monitor threads meeting a stack-locked object inflate it
//! through INFLATING the same way (the row "&R′ other").
//!
//! **Deflated monitor** (every mode): the deflater made an idle monitor's
//! owner `DEFLATER_MARKER` and its `contentions` negative, and is putting
//! the displaced header back. Whoever meets it in a header:
//!
//! | operation | action |
//! |---|---|
//! | enter | its `contentions` increment comes back negative: help restore the header, retry from the header |
//! | try_enter | its owner CAS fails on `DEFLATER_MARKER`: once `contentions` says deflated, help restore the header; retry from the header (never "busy": the object is free) |
//! | exit, wait, notify | not owned by me: IllegalMonitorState (the object is in fact unlocked) |
//! | hash | read from the displaced header; a hash installed there is re-checked, and retried from the header if the monitor turned out deflated |
//! | header drop | under the registry lock, which the deflater holds: it sees either the monitor or the restored header |
//!
//! **Monitor** (`LM_MONITOR`): the thread block is in monitor mode (`top` out of range),
//! so both fast paths fail and every lock is a monitor.
//!
//! | header | enter | exit | wait / notify | hash |
//! |---|---|---|---|---|
//! | 01 unlocked | install a monitor owned by me (CAS 01→10) | IllegalMonitorState | IllegalMonitorState | CAS into header |
//! | 00 other (a lightweight thread) | inflate (anonymous), enter monitor | IllegalMonitorState | IllegalMonitorState | CAS into header |
//! | 10 owner mine | monitor enter (recursion) | monitor exit | monitor wait / notify | displaced header |
//! | 10 other/none | monitor enter | IllegalMonitorState | IllegalMonitorState | displaced header |
//! | 11 (GC) | spin | spin | spin | spin |
//!
//! **`try_enter`** (every mode; [`try_enter`], [`try_lock`],
//! [`Synchronized::try_lock`]): the `enter` column wherever `enter` would
//! not wait, and `false` with nothing changed wherever it would (a
//! fast-lock, stack-lock or monitor another thread holds: no inflation).
//! Waiting for a transition (INFLATING, 11, a monitor being deflated) is its
//! only spinning.
//!
//! **Inflated path** (lightweight and monitor modes): `enter`/`exit` test
//! the monitor bit right after the lock-stack fast path fails and go
//! straight to the monitor's owner CAS (exit: a release by the owner's id),
//! with the owner id and critical-section word the thread block holds (no
//! pointer chase to the thread state): the rows "10 owner mine"
//! and "10 other/none" (when free) take no slow-path call and no lock-stack
//! scan. Legacy threads keep their record per lock. `Synchronized::lock`
//! on an inflated object takes the same path and marks the monitor as
//! held through a guard (what thread exit keeps); its guard's drop clears
//! the mark and exits the monitor. The path is charged by its length (the
//! short critical section overlaps the lock with the work around it only
//! as far as the reorder buffer reaches), so it is kept straight-line:
//! the owner id and the critical-section word are read from the thread
//! block (the inline-state pointer is null for legacy or unregistered
//! threads: one test), the critical section is one word's parity
//! (`thread/critical.rs`), the
//! owner CAS's failure value answers re-entry, and everything rarer (a
//! record to claim, a hand-off, a successor to wake) is an out-of-line
//! call made at the end, with no register to save on the common path.
//!
//! Errors are values ([`SyncError`]); nothing in a lock panics.

mod api;
mod atomic;
mod deflate;
mod embed;
mod error;
pub mod fast_lock_spin;
mod hash;
mod header;
mod inflate;
mod legacy;
mod lifecycle;
mod lightweight;
mod lock_stack;
mod monitor;
mod monitor_mode;
mod op;
mod parker;
mod record;
mod registry;
pub(crate) mod settings;
mod stats;
mod synchronizer;
mod thread;
pub mod wait_spin;

#[cfg(all(test, loom))]
mod loom_tests;
// One loom file per line of work, so parallel changes never share a file.
#[cfg(all(test, loom))]
mod loom_churn;
#[cfg(all(test, loom))]
mod loom_contention;
#[cfg(all(test, loom))]
mod loom_deflate_on_exit;
#[cfg(all(test, loom))]
mod loom_guess;
#[cfg(all(test, loom))]
mod loom_lean;
#[cfg(all(test, loom))]
mod loom_release_order;
#[cfg(all(test, loom))]
mod loom_try_enter;
#[cfg(all(test, not(loom)))]
mod tests;

pub use api::{lock, notify, notify_all, try_lock, wait, HeaderGuard, Synchronized, SynchronizedGuard};
pub use deflate::{
    deflate_idle_monitors, deflates_after_contention, deflates_on_exit, deflation_policy,
    set_deflate_after_contention, set_deflate_on_exit, set_deflation_policy, DeflationPolicy,
    DeflationReport,
};
#[doc(hidden)]
pub use embed::private as embed_private;
pub use embed::HasHeader;
pub use error::SyncError;
pub use hash::identity_hash;
pub use header::{Header, LockState, SPARE_MASK};
pub use legacy::{enter_with_record, exit_with_record};
#[cfg(not(loom))]
pub use lifecycle::release_held_locks_of_current_thread;
#[cfg(all(test, not(loom)))]
use lock_stack::CAPACITY as LOCK_STACK_CAPACITY;
pub use parker::{park, unpark};
#[cfg(not(loom))]
pub(crate) use record::for_each_raw_object;
pub use record::LockRecord;
pub use registry::live_monitors;
#[cfg(not(loom))]
pub(crate) use registry::monitored_headers_in;
pub use settings::{
    DeflationIntervalMs, DeflationThreshold, FastLockingSpins, FastLockingYields, LockingMode, WaitSpinNs,
};
pub use stats::{snapshot as stats, thread_snapshot as thread_stats, InflateCause, SyncStats};
pub use synchronizer::{
    enter, enter_guessing, enter_guessing_on, enter_on, exit, exit_guessing, exit_guessing_on, exit_on,
    holds_lock, try_enter, try_enter_fast_on, try_exit_fast_on,
};
pub use thread::{
    current_sync_thread, current_thread_locking_mode, interrupt, interrupted,
    set_current_thread_locking_mode, SyncThread,
};

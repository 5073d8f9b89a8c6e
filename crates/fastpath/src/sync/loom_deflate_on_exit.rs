//! Loom models of deflation on exit (`deflate.rs`): the exit that leaves a
//! contention monitor idle deflates it with the pass's protocol and puts
//! the header back, and the next pass frees it. Raced against a contender
//! (whose `contentions` increment either stops the deflation or finds the
//! monitor deflated and retries from the restored header) and against a
//! pass (which either deflates the idle monitor itself or frees the one
//! deflated on exit, never while the exiting thread still reads it). Run
//! as the other models (`RUSTFLAGS="--cfg loom" cargo test -p fastpath
//! --release --lib -- loom`). Exclusion is loom's `UnsafeCell` check, the
//! monitor's memory its use-after-free check, progress its deadlock check.

use loom::sync::Arc;
use loom::thread;

use super::inflate::inflate_contended;
use super::loom_tests::{model, Counted};
use super::*;

/// The model thread's lock of `c`, fast-locked, then a contention monitor
/// installed on it as a contender whose spin gave up installs one
/// (anonymous owner, deflated on exit): the state the owner's exit meets.
fn held_with_contention_monitor(c: &Counted) {
    enter(c.header.as_ref());
    assert_eq!(c.header.lock_state(), LockState::FastLocked);
    let mark = c.header.load(atomic::Ordering::Acquire);
    let m = inflate_contended(&c.header, mark).expect("nobody else touches it yet");
    assert!(m.deflates_on_exit());
}

/// The owner's exit (it claims the anonymous monitor and releases it)
/// races a contender's enter: whichever leaves the monitor idle deflates
/// it, unless the other is already counted in `contentions`; a contender
/// that finds it deflated restores the header and fast-locks. Both
/// increments happen under the lock; a final pass frees the monitor.
#[test]
fn loom_deflation_on_exit_races_a_contender() {
    model(|| {
        let c = Arc::new(Counted::new());
        held_with_contention_monitor(&c);
        let c2 = c.clone();
        let t = thread::spawn(move || {
            enter(c2.header.as_ref());
            c2.bump();
            exit(c2.header.as_ref()).unwrap();
        });
        c.bump();
        exit(c.header.as_ref()).unwrap();
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
        deflate_idle_monitors();
        assert_eq!(c.header.lock_state(), LockState::Unlocked);
        assert_eq!(live_monitors(), 0, "the monitor was freed");
    });
}

/// The owner's exit races a pass and a contender: the pass deflates the
/// monitor once it is idle, or frees it once the exit deflated it; either
/// way only after its grace period, which waits for every thread that may
/// still hold the monitor's address (the exit restoring the header, the
/// contender that read the monitor's word from the header before the
/// restore). A pass that freed the monitor without it lets the contender
/// touch freed memory: loom reports it.
#[test]
fn loom_deflation_on_exit_races_a_pass() {
    model(|| {
        let c = Arc::new(Counted::new());
        held_with_contention_monitor(&c);
        let c2 = c.clone();
        let t = thread::spawn(move || {
            enter(c2.header.as_ref());
            c2.bump();
            exit(c2.header.as_ref()).unwrap();
        });
        let d = thread::spawn(|| deflate_idle_monitors().deflated);
        c.bump();
        exit(c.header.as_ref()).unwrap();
        t.join().unwrap();
        assert!(d.join().unwrap() <= 1);
        deflate_idle_monitors();
        assert_eq!(c.header.lock_state(), LockState::Unlocked);
        assert_eq!(live_monitors(), 0, "the monitor was freed");
        assert_eq!(c.locked_get(), 2);
    });
}

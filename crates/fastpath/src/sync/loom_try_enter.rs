//! Loom models of `try_enter`: one attempt that never blocks, racing with
//! deflation and with the holder's exit (run as the other models:
//! `RUSTFLAGS="--cfg loom" cargo test -p fastpath --release --lib -- loom`).
//!
//! What they check beyond mutual exclusion (loom's `UnsafeCell` flags an
//! unordered access, and a monitor freed under a reader is a loom error):
//! a `try_enter` on an object nobody holds *succeeds*, even while a
//! deflation pass takes its monitor away (the marker is not an owner), and
//! one on an object another thread holds fails without blocking.

use loom::sync::Arc;
use loom::thread;

use super::loom_tests::{bump_races_deflation, idle_monitor, model, Counted};
use super::*;

/// try_enter vs deflate: an idle monitor is free, so the attempt must
/// succeed whichever side of the deflater's CASes it lands on: before the
/// marker (the deflater then backs off), on the marker (re-read the
/// header: the restored word, or the monitor given back), after the
/// restore (a fast-lock).
#[test]
fn loom_try_enter_races_deflation() {
    model(|| {
        bump_races_deflation(|c| {
            assert!(try_enter(c.header.as_ref()), "free, though being deflated");
            c.bump();
            exit(c.header.as_ref()).unwrap();
        });
    });
}

/// The holder (the model's main thread) holds `c` and increments under it,
/// then exits while the other thread makes one `try_enter`: it either fails
/// (the owner is still in) or acquires after the release; never both
/// holding, never a hang. Returns whether the attempt acquired.
fn try_enter_racing_exit(c: Arc<Counted>) -> bool {
    enter(c.header.as_ref());
    let c2 = c.clone();
    let t = thread::spawn(move || {
        let got = try_enter(c2.header.as_ref());
        if got {
            c2.bump();
            exit(c2.header.as_ref()).unwrap();
        }
        got
    });
    c.bump();
    exit(c.header.as_ref()).unwrap();
    let got = t.join().unwrap();
    assert_eq!(c.locked_get(), 1 + u32::from(got));
    got
}

/// try_enter vs the holder's exit, on an inflated object (an acquired
/// monitor is handed back, so the final read gets it).
#[test]
fn loom_try_enter_races_inflated_exit() {
    model(|| {
        let c = Arc::new(Counted::new());
        idle_monitor(&c);
        try_enter_racing_exit(c);
    });
}

/// try_enter vs the holder's exit, on a fast-locked object: a failed
/// attempt must not inflate (so the holder's fast exit succeeds), a
/// successful one fast-locks after the release.
#[test]
fn loom_try_enter_races_fast_exit() {
    model(|| {
        let c = Arc::new(Counted::new());
        try_enter_racing_exit(c.clone());
        assert!(
            !c.header.is_inflated(),
            "try_enter never inflates a lock it cannot take"
        );
    });
}

//! Loom models of legacy stack-locking's out-of-order release (run as the
//! other models: `RUSTFLAGS="--cfg loom" cargo test -p fastpath --release
//! --lib -- loom`).
//!
//! The owner record released before a level nested under it inflates its
//! own lock (INFLATING, a monitor named after the record, claimed with the
//! nested level as a recursion, exited once), while a contender may be
//! inflating the same stack-lock: one INFLATING CAS wins, the other side
//! waits for the monitor. What is checked: the level left keeps the
//! contender out (loom's `UnsafeCell` flags an increment not ordered by the
//! lock), both increments land, and the object ends free.

use loom::sync::Arc;
use loom::thread;

use super::loom_tests::{model, Counted};
use super::*;

fn legacy() {
    set_current_thread_locking_mode(crate::config::LockingMode::Legacy).unwrap();
}

/// The contender's critical section: lock, increment, unlock.
fn contend(c: &Counted) {
    legacy();
    let g = lock(c.header.as_ref());
    c.bump();
    drop(g);
}

/// Guards (arena records): `[A A]`, the outer dropped first, the increment
/// under the inner one, racing a contender that inflates the stack-lock.
#[test]
fn loom_legacy_outer_guard_dropped_first_races_a_contender() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || contend(&c2));
        legacy();
        let outer = lock(c.header.as_ref());
        let inner = lock(c.header.as_ref());
        drop(outer); // out of order: inflates unless the contender did
        assert!(holds_lock(&c.header));
        c.bump();
        drop(inner);
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
        assert!(!holds_lock(&c.header));
    });
}

/// The inner level released in order while a contender inflates: the
/// recursive record's exit either counts down its owner (still
/// stack-locked) or exits the monitor the owner's claim gave a recursion.
#[test]
fn loom_legacy_inner_guard_dropped_first_races_a_contender() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || contend(&c2));
        legacy();
        let outer = lock(c.header.as_ref());
        let inner = lock(c.header.as_ref());
        drop(inner);
        c.bump();
        drop(outer);
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
    });
}

//! `release_held_locks_of_current_thread`: a thread that detaches from the
//! runtime gives up the locks it holds, as its exit would, and stays usable;
//! a lock taken with the caller's own record stays the caller's.

use std::pin::pin;
use std::sync::mpsc;
use std::time::Duration;

use fastpath::sync::{
    self, enter, enter_with_record, exit, exit_with_record, holds_lock, Header, LockRecord, SyncError,
};

#[test]
fn detach_releases_every_kind_of_lock_and_wakes_a_waiter() {
    let fast = Header::new();
    let nested = Header::new();
    let contended = Header::new();
    let stacked = Header::new();
    let (fast, nested, contended, stacked) = (pin!(fast), pin!(nested), pin!(contended), pin!(stacked));
    let released_before = sync::stats().released_at_thread_exit;

    std::thread::scope(|s| {
        let (locked_tx, locked_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (fast, nested, contended, stacked) = (&fast, &nested, &contended, &stacked);
        let holder = s.spawn(move || {
            // Fast-locked, recursive, contended (so inflated) and
            // stack-locked with a caller's record.
            enter(fast.as_ref());
            enter(nested.as_ref());
            enter(nested.as_ref());
            enter(contended.as_ref());
            let rec = pin!(LockRecord::new());
            enter_with_record(stacked.as_ref(), rec.as_ref()).unwrap();
            locked_tx.send(()).unwrap();
            go_rx.recv().unwrap();

            sync::release_held_locks_of_current_thread();
            for h in [fast, nested, contended] {
                assert!(!holds_lock(h), "released");
            }
            // The locks are gone: the caller's own exits change nothing.
            assert_eq!(exit(fast.as_ref()), Err(SyncError::IllegalMonitorState));
            // A lock taken with the caller's own record (a frame's lock
            // slot) is the caller's to exit: detach cannot enumerate frames.
            assert!(holds_lock(stacked));
            exit_with_record(stacked.as_ref(), rec.as_ref()).unwrap();
            assert!(!holds_lock(stacked));
            // And the thread can lock again.
            enter(fast.as_ref());
            assert!(holds_lock(fast));
            exit(fast.as_ref()).unwrap();
        });
        locked_rx.recv().unwrap();
        // A waiter on the contended object: it inflates it and parks.
        let waiter = s.spawn(move || {
            enter(contended.as_ref());
            let held = holds_lock(contended);
            exit(contended.as_ref()).unwrap();
            held
        });
        std::thread::sleep(Duration::from_millis(50));
        go_tx.send(()).unwrap();
        holder.join().unwrap();
        assert!(
            waiter.join().unwrap(),
            "the waiter got the lock the detached thread held"
        );
    });
    assert!(
        sync::stats().released_at_thread_exit >= released_before + 3,
        "three objects released (the recursive one once)"
    );
    println!("sync_detach: fast-locked, recursive and inflated locks released on detach");
}

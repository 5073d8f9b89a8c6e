//! loom models of the racy protocols (run with
//! `RUSTFLAGS="--cfg loom" cargo test -p fastpath --release --lib -- loom`,
//! LOOM_MAX_PREEMPTIONS=2 in CI). Each is small: two or three threads, one
//! or two objects, a handful of operations.

use loom::sync::Arc;
use loom::thread;

use super::*;

pub(super) fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(2);
    }
    b.check(f);
}

/// A non-atomic-in-spirit counter: loom's UnsafeCell flags any access not
/// ordered by the lock.
pub(super) struct Counted {
    pub(super) header: core::pin::Pin<Box<Header>>,
    value: loom::cell::UnsafeCell<u32>,
}
// SAFETY: `value` is only touched while `header` is locked (and loom checks
// exactly that).
unsafe impl Sync for Counted {}
// SAFETY: as above.
unsafe impl Send for Counted {}

impl Counted {
    pub(super) fn new() -> Counted {
        Counted::with_header(Header::new())
    }
    pub(super) fn with_header(header: Header) -> Counted {
        Counted {
            header: Box::pin(header),
            value: loom::cell::UnsafeCell::new(0),
        }
    }
    pub(super) fn bump(&self) {
        // SAFETY: called with the lock held.
        self.value.with_mut(|v| unsafe { *v += 1 });
    }
    fn get(&self) -> u32 {
        // SAFETY: called with the lock held (or after joins).
        self.value.with(|v| unsafe { *v })
    }
    /// Locks, increments, unlocks: one critical section of a model thread.
    fn locked_bump(&self) {
        enter(self.header.as_ref());
        self.bump();
        exit(self.header.as_ref()).unwrap();
    }
    /// Reads the value under the lock (the models' final check).
    pub(super) fn locked_get(&self) -> u32 {
        enter(self.header.as_ref());
        let v = self.get();
        exit(self.header.as_ref()).unwrap();
        v
    }
}

/// Fast-lock vs contending inflation: the holder fast-locks, a contender
/// inflates with ANONYMOUS_OWNER (or sees the lock released first), and the
/// holder's exit either unlocks the header or claims the anonymous monitor
/// and hands over. Both increments happen under the lock; nobody hangs.
#[test]
fn loom_fast_lock_vs_contending_inflation() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || {
            c2.locked_bump();
        });
        c.locked_bump();
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
    });
}

/// Exit racing a new contender on an already inflated monitor: the exiter
/// clears the owner and looks for queued threads while the contender queues
/// and re-checks the owner. Without the StoreLoad fences one side would miss
/// the other and the contender would park forever (loom reports the
/// deadlock).
#[test]
fn loom_exit_racing_contender_no_lost_wakeup() {
    model(|| {
        let c = Arc::new(Counted::new());
        // Inflate up front ([A, B, A]) so the model starts in the monitor.
        let b = Box::pin(Header::new());
        enter(c.header.as_ref());
        enter(b.as_ref());
        enter(c.header.as_ref());
        exit(c.header.as_ref()).unwrap();
        exit(b.as_ref()).unwrap();
        assert!(c.header.is_inflated());
        // Still held once: the contender must queue.
        let c2 = c.clone();
        let t = thread::spawn(move || {
            c2.locked_bump();
        });
        c.bump();
        exit(c.header.as_ref()).unwrap();
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
    });
}

/// Two contenders and an exiting owner: the successor hint and the FIFO
/// hand-off must not strand the second contender.
#[test]
fn loom_exit_racing_two_contenders() {
    model(|| {
        let c = Arc::new(Counted::new());
        enter(c.header.as_ref());
        let ts: Vec<_> = (0..2)
            .map(|_| {
                let c2 = c.clone();
                thread::spawn(move || {
                    c2.locked_bump();
                })
            })
            .collect();
        exit(c.header.as_ref()).unwrap();
        for t in ts {
            t.join().unwrap();
        }
        assert_eq!(c.locked_get(), 2);
    });
}

/// wait/notify hand-off: the waiter waits for a flag; the notifier sets it
/// and notifies. The waiter must never miss it: either it sees the flag
/// before waiting, or the notify finds it in the wait set. With `legacy`,
/// both threads stack-lock: the waiter's wait inflates its own stack-lock
/// (INFLATING, then claims the monitor from its record).
fn wait_notify_handoff(legacy_mode: bool) {
    model(move || {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || {
            if legacy_mode {
                legacy();
            }
            enter(c2.header.as_ref());
            while c2.get() == 0 {
                wait(c2.header.as_ref(), None).unwrap();
            }
            exit(c2.header.as_ref()).unwrap();
        });
        if legacy_mode {
            legacy();
        }
        enter(c.header.as_ref());
        c.bump();
        notify(c.header.as_ref()).unwrap();
        exit(c.header.as_ref()).unwrap();
        t.join().unwrap();
    });
}

#[test]
fn loom_wait_notify_handoff() {
    wait_notify_handoff(false);
}

#[test]
fn loom_legacy_wait_notify_handoff() {
    wait_notify_handoff(true);
}

/// A timed wait racing notify (under loom a timed park may time out at any
/// moment): the waiter reports `Ok` exactly when the notifier's `notify`
/// moved it, so a notification is never consumed by a thread that then
/// reports a timeout.
#[test]
fn loom_timed_wait_races_notify() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || {
            enter(c2.header.as_ref());
            c2.bump(); // "I am waiting"
            let r = wait(c2.header.as_ref(), Some(std::time::Duration::from_millis(1)));
            assert!(holds_lock(&c2.header), "wait re-acquires in every outcome");
            exit(c2.header.as_ref()).unwrap();
            r
        });
        enter(c.header.as_ref());
        let moved = if c.get() == 1 {
            notify(c.header.as_ref()).unwrap()
        } else {
            0
        };
        exit(c.header.as_ref()).unwrap();
        let r = t.join().unwrap();
        match r {
            Ok(()) => assert_eq!(moved, 1),
            Err(SyncError::TimedOut) => assert_eq!(moved, 0),
            Err(e) => panic!("unexpected {e:?}"),
        }
    });
}

/// Interrupt racing a wait: the waiter returns `Interrupted` (status
/// consumed) or, if notified first, `Ok` with the status still pending.
#[test]
fn loom_interrupt_races_notify() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let (tx, rx) = loom::sync::mpsc::channel();
        let t = thread::spawn(move || {
            tx.send(current_sync_thread()).unwrap();
            enter(c2.header.as_ref());
            c2.bump();
            let r = wait(c2.header.as_ref(), None);
            let pending = interrupted();
            exit(c2.header.as_ref()).unwrap();
            (r, pending)
        });
        let handle = rx.recv().unwrap();
        interrupt(&handle);
        enter(c.header.as_ref());
        let moved = if c.get() == 1 {
            notify(c.header.as_ref()).unwrap()
        } else {
            0
        };
        exit(c.header.as_ref()).unwrap();
        let (r, pending) = t.join().unwrap();
        match r {
            Ok(()) => assert!(moved == 1 && pending, "notified first: interrupt stays pending"),
            Err(SyncError::Interrupted) => assert!(!pending, "Interrupted consumes the status"),
            Err(e) => panic!("unexpected {e:?}"),
        }
    });
}

/// The holder of a fast-locked object waits on it while a contender is
/// inflating it with ANONYMOUS_OWNER: `wait` must claim the anonymous
/// monitor (or inflate it itself), release it to the contender and get it
/// back; the contender's notify reaches it or its timeout expires.
#[test]
fn loom_wait_claims_anonymous_monitor() {
    model(|| {
        let c = Arc::new(Counted::new());
        enter(c.header.as_ref()); // fast-locked by the main thread
        let c2 = c.clone();
        let t = thread::spawn(move || {
            enter(c2.header.as_ref()); // inflates with ANONYMOUS_OWNER, or waits
            c2.bump();
            let moved = notify(c2.header.as_ref()).unwrap();
            exit(c2.header.as_ref()).unwrap();
            moved
        });
        let r = wait(c.header.as_ref(), Some(std::time::Duration::from_millis(1)));
        assert!(holds_lock(&c.header));
        let bumped = c.get();
        exit(c.header.as_ref()).unwrap();
        let moved = t.join().unwrap();
        match r {
            Ok(()) => assert!(moved == 1 && bumped == 1),
            Err(SyncError::TimedOut) => assert_eq!(moved, 0),
            Err(e) => panic!("unexpected {e:?}"),
        }
        assert!(!holds_lock(&c.header));
    });
}

/// Thread exit releases a lock its thread still holds (HotSpot releases a
/// detaching JNI thread's monitors): the holder exits holding the object
/// while the main thread contends (inflating it with ANONYMOUS_OWNER, or
/// not yet). The release either unlocks the fast-locked header or claims
/// the anonymous monitor and hands it over; the contender always gets in.
#[test]
fn loom_thread_exit_releases_held_lock() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || {
            enter(c2.header.as_ref());
            c2.bump();
            // Exits holding `c`.
            super::lifecycle::release_on_thread_exit_for_model();
        });
        c.locked_bump();
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
        assert!(!holds_lock(&c.header));
    });
}

fn legacy() {
    set_current_thread_locking_mode(super::LockingMode::Legacy).unwrap();
}

/// Legacy stack-locking: a contender inflates a stack-locked object
/// through INFLATING (reading the holder's record) while the holder may be
/// unlocking with its CAS from the record's address. Exactly one of the two
/// CASes wins; either way both increments happen under the lock and the
/// holder, if it lost, claims the monitor from its record and hands over.
#[test]
fn loom_legacy_inflating_races_the_stack_unlock() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || {
            legacy();
            c2.locked_bump();
        });
        legacy();
        c.locked_bump();
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
    });
}

/// A lightweight contender meets a legacy thread's stack-lock (threads of
/// different modes share the object): the same INFLATING protocol.
#[test]
fn loom_lightweight_contender_meets_a_stack_lock() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || {
            c2.locked_bump(); // lightweight
        });
        legacy();
        c.locked_bump();
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
    });
}

/// The identity hash of an object another thread stack-locks: the hasher
/// inflates it (INFLATING) to reach the displaced header, racing the
/// holder's lock and unlock. Every reader sees one hash.
#[test]
fn loom_legacy_hash_races_stack_locking() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || {
            legacy();
            c2.locked_bump();
        });
        let h1 = identity_hash(&c.header);
        t.join().unwrap();
        assert_eq!(identity_hash(&c.header), h1);
        assert_eq!(c.locked_get(), 1);
    });
}

/// Thread exit releases a legacy stack-lock (an arena record on the raw
/// record stack) while another thread contends for it.
#[test]
fn loom_thread_exit_releases_a_stack_lock() {
    model(|| {
        let c = Arc::new(Counted::new());
        let c2 = c.clone();
        let t = thread::spawn(move || {
            legacy();
            enter(c2.header.as_ref());
            c2.bump();
            super::lifecycle::release_on_thread_exit_for_model();
        });
        c.locked_bump();
        t.join().unwrap();
        assert_eq!(c.locked_get(), 2);
    });
}

/// Inflates `c` and leaves its monitor idle ([A, B] + A, then all exits).
pub(super) fn idle_monitor(c: &Counted) {
    let b = Box::pin(Header::new());
    enter(c.header.as_ref());
    enter(b.as_ref());
    enter(c.header.as_ref());
    exit(c.header.as_ref()).unwrap();
    exit(b.as_ref()).unwrap();
    exit(c.header.as_ref()).unwrap();
    assert!(c.header.is_inflated());
}

/// enter vs deflate: a contender enters an idle monitor while a deflation
/// pass takes it away. Either the deflater backs off (the contender's
/// `contentions` increment came first, or it owns the monitor), or the
/// contender finds it deflated, helps restore the header and locks that.
/// The increment happens under the lock, and the monitor is freed only
/// after the contender left its critical section (loom flags a
/// use-after-free of the monitor's atomics).
#[test]
fn loom_enter_races_deflation() {
    model(|| {
        let (c, report) = bump_races_deflation(|c| c.locked_bump());
        if report.deflated == 1 {
            // Deflated: its header was restored; a new lock fast-locks.
            assert!(!c.header.is_inflated() || report.scanned > 1);
        }
    });
}

/// The shape the deflation-race models share: on an idle monitor, a
/// spawned thread runs `bump` (lock, increment once, unlock, by whichever
/// path the model tests) while this thread runs a deflation pass. Asserts
/// the increment landed exactly once and at most the one monitor was
/// deflated; returns the object and the pass's report for model-specific
/// checks.
pub(super) fn bump_races_deflation(
    bump: impl Fn(&Counted) + Send + Sync + 'static,
) -> (Arc<Counted>, DeflationReport) {
    let c = Arc::new(Counted::new());
    idle_monitor(&c);
    let c2 = c.clone();
    let t = thread::spawn(move || bump(&c2));
    let report = deflate_idle_monitors();
    t.join().unwrap();
    assert!(report.deflated <= 1);
    assert_eq!(c.locked_get(), 1);
    (c, report)
}

/// wait vs deflate: the waiter's own `contentions` count (and ownership)
/// keep its monitor from deflation for the whole wait, whatever the
/// deflater does meanwhile; the wait times out (nobody notifies) and
/// re-acquires.
#[test]
fn loom_wait_races_deflation() {
    model(|| {
        let c = Arc::new(Counted::new());
        idle_monitor(&c);
        let c2 = c.clone();
        let t = thread::spawn(move || {
            enter(c2.header.as_ref());
            let r = wait(c2.header.as_ref(), Some(std::time::Duration::from_millis(1)));
            assert!(holds_lock(&c2.header));
            c2.bump();
            exit(c2.header.as_ref()).unwrap();
            r
        });
        deflate_idle_monitors();
        assert_eq!(t.join().unwrap(), Err(SyncError::TimedOut));
        assert_eq!(c.locked_get(), 1);
    });
}

/// hash vs deflate: a hash installed in an idle monitor's displaced header
/// while a pass deflates it is either carried back into the object's
/// header, or the hasher sees the deflation and retries: every reader sees
/// one hash.
#[test]
fn loom_hash_races_deflation() {
    model(|| {
        let c = Arc::new(Counted::new());
        idle_monitor(&c);
        let c2 = c.clone();
        let t = thread::spawn(move || identity_hash(&c2.header));
        deflate_idle_monitors();
        let h = t.join().unwrap();
        assert_eq!(identity_hash(&c.header), h);
    });
}

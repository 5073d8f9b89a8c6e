//! Unit tests of the synchronizer through its public surface, plus the
//! HotSpot scenario tests (TestLockStackCapacity, TestRecursiveLocking,
//! TestUnstructuredLocking, TestRecursiveMonitorChurn under
//! test/hotspot/jtreg/runtime/locking and test/hotspot/jtreg/runtime/lockStack).

use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use std::time::{Duration, Instant};

use super::header::Mark;
use super::*;

/// For tests of lightweight-only mechanics (the lock-stack, anonymous
/// owners): pins the test thread to lightweight mode whatever
/// `FASTPATH_LOCKING_MODE` says. Every other test runs in the configured
/// mode, and CI runs this file under each of the three.
fn lightweight_only() {
    set_current_thread_locking_mode(crate::config::LockingMode::Lightweight).unwrap();
}

fn on_stack(h: &Header) -> usize {
    super::thread::with_lock_stack(|ls| (0..ls.len()).filter(|&i| ls.at(i) == h.addr()).count())
}

/// Runs `f` on `h`'s monitor, if it has one, inside a critical section (so
/// a deflation pass cannot free the monitor while the test looks).
fn with_monitor<R>(h: &Header, f: impl FnOnce(&monitor::Monitor) -> R) -> Option<R> {
    thread::with_current(|_| {
        let mark = h.load(atomic::Ordering::Acquire);
        mark.has_monitor().then(|| f(inflate::monitor_of(h, mark)))
    })
}

fn monitor_recursions(h: &Header) -> Option<usize> {
    // A test-only peek at an owner-only field, from the owner thread.
    with_monitor(h, |m| m.debug_recursions())
}

#[test]
fn uncontended_lock_is_fast_and_restores_the_header() {
    lightweight_only();
    let h = pin!(Header::with_spare_bits(0b1010_0100));
    let before = h.raw();
    {
        let _g = lock(h.as_ref());
        assert_eq!(h.lock_state(), LockState::FastLocked);
        assert_eq!(h.raw(), before & !0b11, "only the lock bits change");
        assert!(holds_lock(&h));
        assert_eq!(on_stack(&h), 1);
    }
    assert_eq!(h.raw(), before);
    assert!(!holds_lock(&h));
    assert_eq!(on_stack(&h), 0);
}

/// The inline parts alone (`try_enter_fast_on`, `try_exit_fast_on`, what
/// the C ABI's fast paths run): they take and release a thin lock and a
/// recursion level; a thread that is not registered yet, a header whose
/// word is not the guess and an inflated object are refused with nothing
/// changed, and the full path after them does the job (and teaches the
/// fast path the hashed header).
#[test]
fn fast_parts_alone_refuse_what_they_cannot_do_and_change_nothing() {
    std::thread::spawn(|| {
        let me = crate::thread::current();
        let h = pin!(Header::new());
        assert!(!try_enter_fast_on(me, h.as_ref()), "unregistered: refused");
        assert_eq!(h.lock_state(), LockState::Unlocked);
        lightweight_only();
        assert!(try_enter_fast_on(me, h.as_ref()));
        assert!(try_enter_fast_on(me, h.as_ref()), "one more level");
        assert_eq!(on_stack(&h), 2);
        assert!(try_exit_fast_on(me, h.as_ref()) && try_exit_fast_on(me, h.as_ref()));
        assert!(!try_exit_fast_on(me, h.as_ref()), "not held: refused");
        assert_eq!((h.lock_state(), on_stack(&h)), (LockState::Unlocked, 0));

        let hashed = pin!(Header::new());
        let hash = identity_hash(&hashed);
        assert!(!try_enter_fast_on(me, hashed.as_ref()), "the guess misses");
        assert_eq!(hashed.lock_state(), LockState::Unlocked);
        enter_on(me, hashed.as_ref());
        assert!(try_exit_fast_on(me, hashed.as_ref()), "the loaded form now");
        assert!(try_enter_fast_on(me, hashed.as_ref()) && try_exit_fast_on(me, hashed.as_ref()));
        assert_eq!(
            (identity_hash(&hashed), hashed.lock_state()),
            (hash, LockState::Unlocked)
        );

        let inflated = pin!(Header::new());
        enter_on(me, inflated.as_ref());
        wait(inflated.as_ref(), Some(Duration::ZERO)).unwrap_err();
        assert!(inflated.is_inflated());
        assert!(!try_exit_fast_on(me, inflated.as_ref()), "a monitor: refused");
        exit_on(me, inflated.as_ref()).unwrap();
        assert!(!try_enter_fast_on(me, inflated.as_ref()), "a monitor: refused");
        assert!(!holds_lock(&inflated));
    })
    .join()
    .unwrap();
}

#[test]
fn recursion_is_a_consecutive_run_on_the_lock_stack() {
    lightweight_only();
    let stats0 = thread_stats();
    let a = pin!(Header::new());
    for _ in 0..5 {
        enter(a.as_ref());
    }
    assert_eq!(on_stack(&a), 5);
    assert_eq!(a.lock_state(), LockState::FastLocked);
    for left in (0..5).rev() {
        exit(a.as_ref()).unwrap();
        assert_eq!(on_stack(&a), left);
    }
    assert_eq!(a.lock_state(), LockState::Unlocked);
    assert_eq!(thread_stats().since(&stats0).monitors_installed(), 0);
}

#[test]
fn interleaved_aba_inflates_a_with_the_removed_entries() {
    lightweight_only();
    let stats0 = thread_stats();
    let a = pin!(Header::new());
    let b = pin!(Header::new());
    enter(a.as_ref());
    enter(a.as_ref());
    enter(b.as_ref());
    enter(a.as_ref()); // [A, A, B] + A
    assert!(a.is_inflated());
    assert_eq!(on_stack(&a), 0);
    assert_eq!(on_stack(&b), 1);
    assert_eq!(b.lock_state(), LockState::FastLocked);
    // Two entries removed → recursions 1, plus this enter → 2.
    assert_eq!(monitor_recursions(&a), Some(2));
    let d = thread_stats().since(&stats0);
    assert_eq!(d.inflations_by(InflateCause::InterleavedRecursion), 1);
    assert_eq!(d.monitors_installed(), 1);
    exit(a.as_ref()).unwrap();
    exit(b.as_ref()).unwrap();
    exit(a.as_ref()).unwrap();
    assert!(holds_lock(&a));
    exit(a.as_ref()).unwrap();
    assert!(!holds_lock(&a) && !holds_lock(&b));
    assert_eq!(exit(a.as_ref()), Err(SyncError::IllegalMonitorState));
}

/// TestLockStackCapacity: OUTER held CAPACITY times fills the stack; the
/// first INNER enter inflates the bottom entry (all of OUTER's), so INNER
/// then fits CAPACITY times without inflating.
#[test]
fn lock_stack_capacity_inflates_the_bottom_entry() {
    lightweight_only();
    let stats0 = thread_stats();
    let outer = pin!(Header::new());
    let inner = pin!(Header::new());
    for _ in 0..LOCK_STACK_CAPACITY {
        enter(outer.as_ref());
        assert!(!outer.is_inflated());
    }
    for _ in 0..LOCK_STACK_CAPACITY {
        enter(inner.as_ref());
        assert!(!inner.is_inflated());
    }
    assert!(outer.is_inflated());
    assert_eq!(monitor_recursions(&outer), Some(LOCK_STACK_CAPACITY - 1));
    assert_eq!(on_stack(&inner), LOCK_STACK_CAPACITY);
    for _ in 0..LOCK_STACK_CAPACITY {
        exit(inner.as_ref()).unwrap();
    }
    assert!(!inner.is_inflated());
    for _ in 0..LOCK_STACK_CAPACITY {
        exit(outer.as_ref()).unwrap();
    }
    assert!(!holds_lock(&outer));
    let d = thread_stats().since(&stats0);
    assert_eq!(d.inflations_by(InflateCause::LockStackOverflow), 1);
}

#[test]
fn recursive_enter_on_a_full_stack_inflates_the_top() {
    lightweight_only();
    let stats0 = thread_stats();
    let a = pin!(Header::new());
    for _ in 0..=LOCK_STACK_CAPACITY {
        enter(a.as_ref());
    }
    assert!(a.is_inflated());
    assert_eq!(monitor_recursions(&a), Some(LOCK_STACK_CAPACITY));
    for _ in 0..=LOCK_STACK_CAPACITY {
        exit(a.as_ref()).unwrap();
    }
    assert!(!holds_lock(&a));
    assert_eq!(
        thread_stats()
            .since(&stats0)
            .inflations_by(InflateCause::LockStackOverflow),
        1
    );
}

/// TestRecursiveLocking (lock-stack scenarios): runs of recursion across
/// several objects, verifying the stack after each step.
#[test]
fn recursive_locking_patterns_keep_counts() {
    lightweight_only();
    let objs: Vec<Pin<Box<Header>>> = (0..4).map(|_| Box::pin(Header::new())).collect();
    // [0,0,1,1,1,2,3,3]: exactly full, nothing inflated.
    let pattern = [0, 0, 1, 1, 1, 2, 3, 3];
    for &i in &pattern {
        enter(objs[i].as_ref());
    }
    assert!(objs.iter().all(|o| !o.is_inflated()));
    for (i, want) in [2, 3, 1, 2].into_iter().enumerate() {
        assert_eq!(on_stack(&objs[i]), want);
    }
    for &i in pattern.iter().rev() {
        exit(objs[i].as_ref()).unwrap();
    }
    assert!(objs.iter().all(|o| o.lock_state() == LockState::Unlocked));
}

/// TestUnstructuredLocking: enter A; enter B; exit A; notify B; exit B.
#[test]
fn unstructured_locking_works() {
    lightweight_only();
    let stats0 = thread_stats();
    let a = pin!(Header::new());
    let b = pin!(Header::new());
    enter(a.as_ref());
    enter(b.as_ref());
    exit(a.as_ref()).unwrap();
    assert!(!holds_lock(&a));
    assert_eq!(notify(b.as_ref()), Ok(0));
    exit(b.as_ref()).unwrap();
    assert!(!holds_lock(&b));
    assert_eq!(
        thread_stats()
            .since(&stats0)
            .inflations_by(InflateCause::UnstructuredExit),
        1
    );
    // Both usable afterwards, from another thread too.
    let a2 = Arc::pin(Header::new());
    let a3 = a2.clone();
    enter(a2.as_ref());
    std::thread::spawn(move || {
        assert_eq!(exit(a3.as_ref()), Err(SyncError::IllegalMonitorState));
    })
    .join()
    .unwrap();
    exit(a2.as_ref()).unwrap();
}

#[test]
fn illegal_monitor_state_changes_nothing() {
    let h = pin!(Header::new());
    let raw = h.raw();
    assert_eq!(exit(h.as_ref()), Err(SyncError::IllegalMonitorState));
    assert_eq!(notify(h.as_ref()), Err(SyncError::IllegalMonitorState));
    assert_eq!(notify_all(h.as_ref()), Err(SyncError::IllegalMonitorState));
    assert_eq!(
        wait(h.as_ref(), Some(Duration::ZERO)),
        Err(SyncError::IllegalMonitorState)
    );
    assert_eq!(h.raw(), raw);

    // Held by another thread, fast-locked and then inflated.
    let shared = Arc::pin(Header::new());
    let (s2, go, done) = (
        shared.clone(),
        Arc::new(Barrier::new(2)),
        Arc::new(Barrier::new(2)),
    );
    let (go2, done2) = (go.clone(), done.clone());
    let holder = std::thread::spawn(move || {
        enter(s2.as_ref());
        go2.wait();
        done2.wait();
        exit(s2.as_ref()).unwrap();
    });
    go.wait();
    let raw = shared.raw();
    assert_eq!(exit(shared.as_ref()), Err(SyncError::IllegalMonitorState));
    assert_eq!(notify(shared.as_ref()), Err(SyncError::IllegalMonitorState));
    assert_eq!(wait(shared.as_ref(), None), Err(SyncError::IllegalMonitorState));
    assert_eq!(shared.raw(), raw);
    assert!(!holds_lock(&shared));
    done.wait();
    holder.join().unwrap();
}

#[test]
fn identity_hash_is_stable_across_every_lock_state() {
    lightweight_only();
    let stats0 = thread_stats();
    let h = pin!(Header::with_spare_bits(1 << 60));
    let g = lock(h.as_ref());
    let hash = identity_hash(&h);
    assert_ne!(hash, 0);
    assert!(hash < (1 << 31));
    assert_eq!(
        h.lock_state(),
        LockState::FastLocked,
        "hash while fast-locked must not inflate"
    );
    assert_eq!(Mark(h.raw()).hash(), hash);
    drop(g);
    assert_eq!(identity_hash(&h), hash);
    // Inflate ([A, B, A]) and check the displaced header carries it.
    let b = pin!(Header::new());
    enter(h.as_ref());
    enter(b.as_ref());
    enter(h.as_ref());
    assert!(h.is_inflated());
    assert_eq!(identity_hash(&h), hash);
    assert_eq!(h.spare_bits(), 1 << 60);
    // A hash installed while inflated lands in the displaced header.
    let c = pin!(Header::new());
    enter(c.as_ref());
    enter(b.as_ref());
    enter(c.as_ref());
    let hc = identity_hash(&c);
    assert_eq!(identity_hash(&c), hc);
    for o in [&c, &b, &c, &h, &b, &h] {
        exit(o.as_ref()).unwrap();
    }
    assert_eq!(thread_stats().since(&stats0).monitors_installed(), 2);
}

#[test]
fn contention_inflates_with_anonymous_owner_and_hands_over() {
    lightweight_only();
    let h = Arc::pin(Header::new());
    let h2 = h.clone();
    enter(h.as_ref());
    let entered = Arc::new(AtomicBool::new(false));
    let e2 = entered.clone();
    let t = std::thread::spawn(move || {
        let s0 = thread_stats();
        let g = lock(h2.as_ref());
        e2.store(true, Ordering::SeqCst);
        drop(g);
        thread_stats().since(&s0).inflations_by(InflateCause::Contention)
    });
    let deadline = Instant::now() + Duration::from_secs(300);
    while !h.is_inflated() && Instant::now() < deadline {
        std::thread::yield_now();
    }
    assert!(h.is_inflated(), "the contender inflates");
    assert_eq!(with_monitor(&h, |m| m.is_anonymous()), Some(true));
    assert!(holds_lock(&h), "still ours, found on our lock-stack");
    assert!(!entered.load(Ordering::SeqCst));
    exit(h.as_ref()).unwrap();
    assert_eq!(t.join().unwrap(), 1);
    assert!(entered.load(Ordering::SeqCst));
    assert_ne!(with_monitor(&h, |m| m.is_busy()), Some(true));
}

#[test]
fn wait_times_out_and_restores_the_depth() {
    let h = pin!(Header::new());
    let s0 = thread_stats();
    enter(h.as_ref());
    enter(h.as_ref());
    enter(h.as_ref());
    let t = Instant::now();
    assert_eq!(
        wait(h.as_ref(), Some(Duration::from_millis(30))),
        Err(SyncError::TimedOut)
    );
    assert!(t.elapsed() >= Duration::from_millis(30));
    // The depth lives in the monitor once inflated, in every mode (legacy:
    // a recursion per record nested under the owner record, which those
    // records then exit).
    let (inflated_by_wait, recursions) = match current_thread_locking_mode() {
        crate::config::LockingMode::Lightweight => (1, 2),
        crate::config::LockingMode::Legacy => (1, 2),
        crate::config::LockingMode::Monitor => (0, 2),
    };
    assert_eq!(
        thread_stats().since(&s0).inflations_by(InflateCause::Wait),
        inflated_by_wait
    );
    assert_eq!(monitor_recursions(&h), Some(recursions));
    assert_eq!(wait(h.as_ref(), Some(Duration::ZERO)), Err(SyncError::TimedOut));
    for _ in 0..3 {
        exit(h.as_ref()).unwrap();
    }
    assert!(!holds_lock(&h));
    assert_eq!(exit(h.as_ref()), Err(SyncError::IllegalMonitorState));
}

#[test]
fn notify_hands_over_to_a_waiter() {
    let obj = Arc::pin(Synchronized::new(0u32));
    let o2 = obj.clone();
    let waiter = std::thread::spawn(move || {
        let mut g = o2.as_ref().lock().unwrap();
        g.wait_while(|v| *v == 0, Some(Duration::from_secs(20))).unwrap();
        *g
    });
    // Wait until the waiter is in the wait set.
    loop {
        let mut g = obj.as_ref().lock().unwrap();
        *g = 7;
        if g.notify().unwrap() == 1 {
            break;
        }
        *g = 0;
        drop(g);
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(waiter.join().unwrap(), 7);
}

#[test]
fn notify_all_moves_every_waiter() {
    let obj = Arc::pin(Synchronized::new(false));
    let ready = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (o, r) = (obj.clone(), ready.clone());
            std::thread::spawn(move || {
                let mut g = o.as_ref().lock().unwrap();
                r.fetch_add(1, Ordering::SeqCst);
                g.wait_while(|go| !*go, Some(Duration::from_secs(20))).unwrap();
            })
        })
        .collect();
    let mut moved = 0;
    let deadline = Instant::now() + Duration::from_secs(20);
    while moved < 4 && Instant::now() < deadline {
        let mut g = obj.as_ref().lock().unwrap();
        if ready.load(Ordering::SeqCst) == 4 {
            *g = true;
            moved += g.notify_all().unwrap();
        }
        drop(g);
        std::thread::sleep(Duration::from_millis(1));
    }
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(moved, 4);
}

#[test]
fn interrupt_ends_a_wait_and_is_consumed() {
    let h = Arc::pin(Header::new());
    let h2 = h.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        tx.send(current_sync_thread()).unwrap();
        let g = lock(h2.as_ref());
        let r = g.wait(None);
        let still_interrupted = interrupted();
        (r, still_interrupted, holds_lock(&h2))
    });
    let t = rx.recv().unwrap();
    // Interrupt until it takes (the waiter may not be waiting yet; a
    // pending status also ends the wait at once).
    interrupt(&t);
    let (r, still, held) = waiter.join().unwrap();
    assert_eq!(r, Err(SyncError::Interrupted));
    assert!(!still, "Interrupted clears the status");
    assert!(held, "wait re-acquires before returning");

    // A pending interrupt fails the next wait at once.
    let me = current_sync_thread();
    interrupt(&me);
    let g = lock(h.as_ref());
    assert_eq!(g.wait(None), Err(SyncError::Interrupted));
    assert!(!interrupted());
}

/// Whether no thread holds `h`: unlocked, or inflated with no owner. Read
/// directly from the header and monitor, so it cannot block (unlike `lock`)
/// and depends on nothing but `h` itself.
fn is_free(h: &Header) -> bool {
    h.lock_state() == LockState::Unlocked || with_monitor(h, |m| m.owner() == monitor::NO_OWNER) == Some(true)
}

#[test]
fn thread_exit_releases_fast_locked_and_inflated_locks() {
    let a = Arc::pin(Header::new());
    let b = Arc::pin(Header::new());
    let c = Arc::pin(Header::new());
    let (a2, b2, c2) = (a.clone(), b.clone(), c.clone());
    let held = Arc::new(Barrier::new(2));
    let h2 = held.clone();
    let t = std::thread::spawn(move || {
        enter(a2.as_ref()); // fast-locked
        enter(b2.as_ref());
        enter(c2.as_ref());
        enter(b2.as_ref()); // B twice
                            // Inflates B (owned by this thread's id) in every mode.
        assert_eq!(wait(b2.as_ref(), Some(Duration::ZERO)), Err(SyncError::TimedOut));
        assert!(b2.is_inflated());
        h2.wait(); // held
        h2.wait(); // the main thread has looked and started a contender
                   // exits holding A (fast), B (monitor, 2 levels), C (fast)
    });
    held.wait();
    for o in [&a, &b, &c] {
        assert!(!is_free(o), "held by the spawned thread");
    }
    // A contender blocked on A before the holder exits. It reports through a
    // channel so that a lock that is never released fails the test in
    // bounded time instead of hanging it.
    let a3 = a.clone();
    let (got_a, got_a_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _g = lock(a3.as_ref());
        let _ = got_a.send(());
    });
    // Most runs: the contender is blocked on A (A inflated) before the
    // holder exits; either way A must end up free.
    std::thread::sleep(Duration::from_millis(20));
    held.wait();
    t.join().unwrap();
    // Only this test's objects are looked at, and only the exiting thread
    // ever held them: nothing but its exit can have freed them (the
    // process-wide release counter could be bumped by any parallel test).
    assert!(is_free(&b), "B's monitor (2 levels) released at thread exit");
    assert!(is_free(&c), "C (fast-locked) released at thread exit");
    assert!(
        got_a_rx.recv_timeout(Duration::from_secs(300)).is_ok(),
        "the contender on A never got in"
    );
    std::thread::sleep(Duration::from_millis(1)); // let the contender's guard drop
    for o in [&a, &b, &c] {
        let g = lock(o.as_ref());
        drop(g);
        assert!(is_free(o));
    }
}

/// What a thread-local destructor saw while it held a `SynchronizedGuard` past its
/// thread's exit, and what a contender saw when it got in.
#[derive(Default)]
struct LateGuardLog {
    /// The destructor has written 1 through its guard and is about to sleep.
    in_destructor: AtomicBool,
    /// The destructor is done with the value (wrote 2) and drops its guard.
    destructor_done: AtomicBool,
    /// The value the destructor read back after its sleep (1 unless a
    /// contender got in under the guard).
    reread: AtomicUsize,
    /// Set by the plain `HeaderGuard`'s late drop, which must not panic.
    plain_guard_dropped: AtomicBool,
}

/// Lives in a thread-local of the holder thread; its destructor runs after
/// `sync`'s own thread-exit release.
struct LateGuards {
    data: Option<SynchronizedGuard<'static, u64>>,
    plain: Option<HeaderGuard<'static>>,
    log: Arc<LateGuardLog>,
}

impl Drop for LateGuards {
    fn drop(&mut self) {
        if let Some(g) = self.data.as_mut() {
            **g = 1;
            self.log.in_destructor.store(true, Ordering::SeqCst);
            // The contender's window: it is trying to lock the value now.
            std::thread::sleep(Duration::from_millis(150));
            let seen = **g;
            self.log.reread.store(seen as usize, Ordering::SeqCst);
            **g = 2;
            self.log.destructor_done.store(true, Ordering::SeqCst);
        }
        self.data = None; // releases the value's lock (it is still ours)
                          // The thread-exit release already let the plain header go: its
                          // guard's late drop finds nothing to release and must not panic.
        self.plain = None;
        self.log.plain_guard_dropped.store(true, Ordering::SeqCst);
    }
}

/// Soundness of the thread-exit release: a `SynchronizedGuard<'static>` stored in a
/// thread-local whose destructor runs after `sync`'s own (it hands out
/// `&mut T`) must keep its lock until it is dropped, so no other thread can
/// lock the value meanwhile. A plain `HeaderGuard` protects no data: its object is
/// released at exit as before, and its later drop is a harmless no-op.
fn sync_guard_outlives_thread_exit(mode: crate::config::LockingMode) {
    sync_guard_outlives_thread_exit_on(mode, false);
}

/// [`sync_guard_outlives_thread_exit`]; `inflated`: the value's object is
/// inflated before the holder's lock, which then goes straight to the
/// monitor and marks it there instead of on the lock-stack or a list.
fn sync_guard_outlives_thread_exit_on(mode: crate::config::LockingMode, inflated: bool) {
    std::thread_local! {
        static LATE: core::cell::RefCell<Option<LateGuards>> = const { core::cell::RefCell::new(None) };
    }
    let value: Pin<&'static Synchronized<u64>> = Pin::static_ref(Box::leak(Box::new(Synchronized::new(0))));
    let plain: Pin<&'static Header> = Pin::static_ref(Box::leak(Box::new(Header::new())));
    let log = Arc::new(LateGuardLog::default());
    let log2 = log.clone();
    let holder = std::thread::spawn(move || {
        // Touch our thread-local before `sync` registers this thread:
        // thread-local destructors run in reverse order of first use, so
        // `LATE`'s runs after the registration's (the thread-exit release).
        LATE.with(|_| ());
        set_current_thread_locking_mode(mode).unwrap();
        let data = if inflated {
            lock_on_its_monitor(value)
        } else {
            value.lock().unwrap()
        };
        let plain_guard = lock(plain);
        LATE.with(|l| {
            *l.borrow_mut() = Some(LateGuards {
                data: Some(data),
                plain: Some(plain_guard),
                log: log2,
            })
        });
    });
    let deadline = Instant::now() + Duration::from_secs(300);
    while !log.in_destructor.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the holder's destructor never ran");
        std::thread::yield_now();
    }
    // The holder thread is past sync's release and inside its destructor,
    // writing through its guard: try to get in.
    let (tx, rx) = std::sync::mpsc::channel();
    let log3 = log.clone();
    std::thread::spawn(move || {
        let mut g = value.lock().unwrap();
        let after_destructor = log3.destructor_done.load(Ordering::SeqCst);
        let seen = *g;
        *g = 100;
        let _ = tx.send((after_destructor, seen));
    });
    let (after_destructor, seen) = rx
        .recv_timeout(Duration::from_secs(300))
        .expect("the late SynchronizedGuard's drop did not release the value");
    holder.join().unwrap();
    assert!(
        after_destructor,
        "{mode:?}: a contender locked the value under a live SynchronizedGuard"
    );
    assert_eq!(seen, 2, "{mode:?}: the contender saw the destructor's last write");
    assert_eq!(
        log.reread.load(Ordering::SeqCst),
        1,
        "{mode:?}: the value changed under the guard"
    );
    assert!(log.plain_guard_dropped.load(Ordering::SeqCst));
    // The plain header was released at exit; its late guard changed nothing.
    assert!(is_free(&plain), "{mode:?}: plain header still held");
    drop(lock(plain));
    assert_eq!(*value.lock().unwrap(), 100);
    println!("{mode:?} (inflated: {inflated}): late SynchronizedGuard kept its lock through thread exit; 1 contender held off");
}

#[test]
fn sync_guard_in_a_late_thread_local_keeps_its_lock_lightweight() {
    sync_guard_outlives_thread_exit(crate::config::LockingMode::Lightweight);
}

#[test]
fn sync_guard_in_a_late_thread_local_keeps_its_lock_monitor_mode() {
    sync_guard_outlives_thread_exit(crate::config::LockingMode::Monitor);
}

/// A `SynchronizedGuard` forgotten on a thread that then exits keeps its value
/// locked (like a forgotten `MutexGuard`), in a monitor owned by the dead
/// thread: dropping the value elsewhere later leaks that monitor instead of
/// aborting the process as a fast-locked header would.
#[test]
fn forgotten_sync_guard_keeps_the_lock_and_the_value_can_still_be_dropped() {
    let value = Box::pin(Synchronized::new(7u64));
    let addr = &*value as *const Synchronized<u64> as usize;
    std::thread::spawn(move || {
        // SAFETY: `value` outlives this thread (joined below before drop).
        let v = unsafe { Pin::new_unchecked(&*(addr as *const Synchronized<u64>)) };
        std::mem::forget(v.lock().unwrap());
    })
    .join()
    .unwrap();
    let h = value.header();
    assert!(h.is_inflated(), "kept lock moved to a monitor at thread exit");
    assert!(!is_free(h), "a forgotten guard's lock is never released");
    drop(value); // leaks the monitor; must not abort
}

#[test]
fn monitor_mode_inflates_every_lock_and_interoperates() {
    let t = std::thread::spawn(|| {
        set_current_thread_locking_mode(crate::config::LockingMode::Monitor).unwrap();
        assert_eq!(current_thread_locking_mode(), crate::config::LockingMode::Monitor);
        let s0 = thread_stats();
        let h = pin!(Header::new());
        {
            let g = lock(h.as_ref());
            let g2 = lock(h.as_ref());
            assert!(h.is_inflated());
            assert!(holds_lock(&h));
            assert_eq!(g2.wait(Some(Duration::from_millis(1))), Err(SyncError::TimedOut));
            drop(g2);
            drop(g);
        }
        assert!(!holds_lock(&h));
        assert_eq!(
            thread_stats().since(&s0).inflations_by(InflateCause::MonitorMode),
            1
        );
        // Counter shared with a lightweight thread.
        let shared = Arc::pin(Synchronized::new(0u64));
        let s2 = shared.clone();
        let lw = std::thread::spawn(move || {
            for _ in 0..2000 {
                *s2.as_ref().lock().unwrap() += 1;
            }
        });
        for _ in 0..2000 {
            *shared.as_ref().lock().unwrap() += 1;
        }
        lw.join().unwrap();
        let v = *shared.as_ref().lock().unwrap();
        v
    });
    assert_eq!(t.join().unwrap(), 4000);
    // Legacy is real: a stack-lock, whose word is the record's address.
    std::thread::spawn(|| {
        set_current_thread_locking_mode(crate::config::LockingMode::Legacy).unwrap();
        assert_eq!(current_thread_locking_mode(), crate::config::LockingMode::Legacy);
        let h = pin!(Header::new());
        let _g = lock(h.as_ref());
        assert_eq!(h.lock_state(), LockState::FastLocked);
        assert!(Mark(h.raw()).is_stack_locked());
    })
    .join()
    .unwrap();
    // Switching with lock-stack entries held is refused.
    lightweight_only();
    let h = pin!(Header::new());
    let _g = lock(h.as_ref());
    assert_eq!(
        set_current_thread_locking_mode(crate::config::LockingMode::Monitor),
        Err(SyncError::IllegalMonitorState)
    );
}

#[test]
fn dropping_inflated_headers_frees_their_monitors() {
    let s0 = thread_stats();
    for _ in 0..10 {
        let a = Box::pin(Header::new());
        enter(a.as_ref());
        // Inflates in every mode (monitor mode: at the enter).
        assert_eq!(wait(a.as_ref(), Some(Duration::ZERO)), Err(SyncError::TimedOut));
        exit(a.as_ref()).unwrap();
        assert!(a.is_inflated());
        drop(a);
    }
    let d = thread_stats().since(&s0);
    assert_eq!(d.monitors_installed(), 10);
    assert_eq!(d.monitors_freed, 10);
}

#[test]
fn dropping_a_header_held_through_a_leaked_guard_cleans_this_thread() {
    lightweight_only();
    // Fast-locked, leaked, dropped: the entry leaves our lock-stack.
    let a = Box::pin(Header::new());
    std::mem::forget(lock(a.as_ref()));
    let addr = a.addr();
    drop(a);
    assert!(!super::thread::with_lock_stack(|ls| ls.contains(addr)));
    // Inflated and owned by us, leaked, dropped: the monitor is freed.
    let s0 = thread_stats();
    let b = Box::pin(Header::new());
    std::mem::forget(lock(b.as_ref()));
    let c = pin!(Header::new());
    enter(c.as_ref());
    enter(b.as_ref());
    exit(b.as_ref()).unwrap();
    exit(c.as_ref()).unwrap();
    drop(b);
    assert_eq!(thread_stats().since(&s0).monitors_freed, 1);
}

/// TestRecursiveMonitorChurn: recursive lock pairs on fresh objects never
/// inflate.
#[test]
fn recursive_churn_inflates_nothing() {
    lightweight_only();
    let s0 = thread_stats();
    for _ in 0..100_000 {
        let h = pin!(Header::new());
        let g1 = lock(h.as_ref());
        let g2 = lock(h.as_ref());
        drop(g2);
        drop(g1);
    }
    assert_eq!(thread_stats().since(&s0).monitors_installed(), 0);
}

/// A port of HotSpot's test/hotspot/jtreg/runtime/locking/TestRecursiveLocking.java
/// (both modes), including its `SyncThread` that proves, through a
/// wait/notify hand-shake, that another thread can lock each object after
/// the nested locks are released. Bounded in time.
mod recursive_locking_port {
    use super::*;
    use std::cell::Cell;

    struct SynchronizedObject {
        header: Header,
        counter: Cell<usize>,
    }
    // SAFETY: `counter` is only touched while `header` is held by the
    // touching thread (the test's own discipline, as Java's `synchronized`
    // methods).
    unsafe impl Sync for SynchronizedObject {}
    // SAFETY: as above.
    unsafe impl Send for SynchronizedObject {}

    type Obj = Pin<Arc<SynchronizedObject>>;

    /// HotSpot's test checks inflation per mode: lightweight as given,
    /// legacy never inflates uncontended recursion, monitor always has one.
    fn assert_inflated(h: &Header, lightweight: bool) {
        let want = match current_thread_locking_mode() {
            crate::config::LockingMode::Lightweight => lightweight,
            crate::config::LockingMode::Legacy => false,
            crate::config::LockingMode::Monitor => true,
        };
        assert_eq!(h.is_inflated(), want, "{:?}", current_thread_locking_mode());
    }

    fn new_obj() -> Obj {
        Arc::pin(SynchronizedObject {
            header: Header::new(),
            counter: Cell::new(0),
        })
    }
    fn hdr(o: &Obj) -> Pin<&Header> {
        // SAFETY: structural pinning; `header` never moves out.
        unsafe { o.as_ref().map_unchecked(|o| &o.header) }
    }
    fn bump(o: &Obj) -> usize {
        o.counter.set(o.counter.get() + 1);
        o.counter.get()
    }

    fn run_inner(inner: &Obj, depth: usize, outer: &Obj) {
        let _g = lock(hdr(inner));
        bump(inner);
        assert_inflated(&outer.header, true);
        assert_inflated(&inner.header, false);
        if depth > 1 {
            run_inner(inner, depth - 1, outer);
        }
        assert_inflated(&inner.header, false);
    }

    fn run_outer(outer: &Obj, depth: usize, inner: &Obj) {
        let _g = lock(hdr(outer));
        bump(outer);
        assert_inflated(&outer.header, false);
        if depth == 1 {
            run_inner(inner, LOCK_STACK_CAPACITY, outer);
        } else {
            run_outer(outer, depth - 1, inner);
        }
        assert_inflated(&outer.header, true);
    }

    fn run_a(a: &Obj, depth: usize, b: &Obj) {
        let _g = lock(hdr(a));
        if bump(a) == 1 {
            assert_inflated(&a.header, false);
        } else {
            // [A, B] + A: A inflated and off the lock-stack.
            assert_inflated(&a.header, true);
        }
        run_b(b, depth, a);
    }

    fn run_b(b: &Obj, depth: usize, a: &Obj) {
        let _g = lock(hdr(b));
        bump(b);
        assert_inflated(&b.header, false);
        if depth > 1 {
            run_a(a, depth - 1, b);
        }
    }

    struct Work {
        done: bool,
        obj: Option<Obj>,
    }

    /// The Java test's SyncThread: locks whatever object main hands it.
    struct SyncThread {
        waiter: Pin<Arc<Synchronized<Work>>>,
        thread: Option<std::thread::JoinHandle<usize>>,
    }

    impl SyncThread {
        fn start() -> SyncThread {
            let waiter = Arc::pin(Synchronized::new(Work {
                done: false,
                obj: None,
            }));
            let w = waiter.clone();
            let thread = std::thread::spawn(move || {
                let mut synced = 0;
                let mut g = w.as_ref().lock().unwrap();
                loop {
                    g.wait_while(|w| !w.done && w.obj.is_none(), Some(Duration::from_secs(30)))
                        .unwrap();
                    if let Some(o) = g.obj.take() {
                        drop(lock(hdr(&o)));
                        synced += 1;
                        g.notify().unwrap();
                    } else if g.done {
                        return synced;
                    }
                }
            });
            SyncThread {
                waiter,
                thread: Some(thread),
            }
        }

        fn verify_can_be_synced(&self, obj: &Obj) {
            let mut g = self.waiter.as_ref().lock().unwrap();
            g.obj = Some(obj.clone());
            g.notify().unwrap();
            g.wait_while(|w| w.obj.is_some(), Some(Duration::from_secs(30)))
                .unwrap();
        }

        fn finish(mut self) -> usize {
            {
                let mut g = self.waiter.as_ref().lock().unwrap();
                g.done = true;
                g.notify().unwrap();
            }
            self.thread.take().map(|t| t.join().unwrap()).unwrap_or(0)
        }
    }

    #[test]
    fn test_recursive_locking_both_modes() {
        let sync_thread = SyncThread::start();
        let start = Instant::now();
        let mut loops = 0;
        while start.elapsed() < Duration::from_millis(300) {
            // mode 1: outer and inner
            let (outer, inner) = (new_obj(), new_obj());
            {
                let _g = lock(hdr(&outer));
                bump(&outer);
                run_outer(&outer, LOCK_STACK_CAPACITY - 1, &inner);
                assert_inflated(&outer.header, true);
                assert_inflated(&inner.header, false);
            }
            sync_thread.verify_can_be_synced(&outer);
            sync_thread.verify_can_be_synced(&inner);
            assert_eq!(outer.counter.get(), LOCK_STACK_CAPACITY);
            assert_eq!(inner.counter.get(), LOCK_STACK_CAPACITY);

            // mode 2: alternate A and B
            let (a, b) = (new_obj(), new_obj());
            run_a(&a, LOCK_STACK_CAPACITY, &b);
            sync_thread.verify_can_be_synced(&a);
            sync_thread.verify_can_be_synced(&b);
            assert_eq!(a.counter.get(), LOCK_STACK_CAPACITY);
            assert_eq!(b.counter.get(), LOCK_STACK_CAPACITY);
            assert_inflated(&b.header, false);
            loops += 1;
        }
        let synced = sync_thread.finish();
        assert_eq!(synced, 4 * loops);
        println!("TestRecursiveLocking port: {loops} loops of both modes, {synced} objects synced by the SyncThread");
    }
}

/// The variable naming cargo's runner for the target this test binary was
/// built for (`CARGO_TARGET_<TRIPLE>_RUNNER`, cargo's own spelling).
#[cfg(target_arch = "aarch64")]
const RUNNER_VAR: &str = "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER";
#[cfg(not(target_arch = "aarch64"))]
const RUNNER_VAR: &str = "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER";

/// A command that runs this test binary again, as a child process.
///
/// A cross-built test runs under cargo's runner (a user-mode emulator such
/// as `qemu-aarch64`), and the host kernel cannot execute the binary itself:
/// the child then fails to exec (and, since the emulator turns `vfork` into
/// `fork`, exits 127 without reporting why). So when the runner is given in
/// the environment, where cargo passes it on to the test, the child starts
/// through the same runner; otherwise (a native build) the binary runs
/// directly.
fn self_command() -> std::process::Command {
    let exe = std::env::current_exe().unwrap();
    let runner = std::env::var(RUNNER_VAR).unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut cmd = std::process::Command::new(program);
            cmd.args(words).arg(exe);
            cmd
        }
        None => std::process::Command::new(exe),
    }
}

/// The defined behaviour for the one unrecoverable misuse: dropping an
/// object that another live thread still holds fast-locked (it leaked a
/// guard). The process aborts with a message rather than leave that thread
/// a dangling lock-stack entry. Checked in a child process.
#[test]
fn dropping_an_object_held_by_another_thread_aborts() {
    const CHILD: &str = "FASTPATH_SYNC_ABORT_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let h = Box::pin(Header::new());
        let addr = &*h as *const Header as usize;
        let (locked_tx, locked_rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let holder = std::thread::spawn(move || {
            // SAFETY: the header outlives this use (the parent drops it only
            // after `locked` arrives, and then the process aborts).
            let h = unsafe { Pin::new_unchecked(&*(addr as *const Header)) };
            // Fast- or stack-locked (a monitor owned by another thread is
            // leaked instead, see `forgotten_sync_guard_...`).
            if current_thread_locking_mode() == crate::config::LockingMode::Monitor {
                lightweight_only();
            }
            std::mem::forget(lock(h));
            locked_tx.send(()).unwrap();
            let _ = done_rx.recv(); // stay alive while the header is dropped
        });
        locked_rx.recv().unwrap();
        drop(h); // aborts here
        drop(done_tx);
        let _ = holder.join();
        return;
    }
    let out = self_command()
        .args([
            "--exact",
            "sync::tests::dropping_an_object_held_by_another_thread_aborts",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    use std::os::unix::process::ExitStatusExt;
    assert!(
        !(out.status.code() == Some(127) && stderr.is_empty()),
        "the child never started (exit 127, no output): a test binary built for another \
         architecture runs under an emulator, and its children need the same runner; set \
         {RUNNER_VAR} as cargo's runner (see README, aarch64 under emulation)"
    );
    // Under qemu-user the emulator, not the kernel, delivers the guest's
    // SIGABRT: it reports "uncaught target signal 6" and kills itself with
    // the same signal, so the parent sees SIGABRT either way.
    assert_eq!(out.status.signal(), Some(6), "expected SIGABRT; stderr: {stderr}");
    assert!(
        stderr.contains("dropped while fast-locked by another thread"),
        "{stderr}"
    );
}

/// Legacy stack-locking (`LM_LEGACY`): the record, the displaced header,
/// recursion, INFLATING, hash and wait/notify on a stack-locked object.
/// (Objects shared by threads of all three modes: `tests/sync_deflation.rs`.)
mod legacy_mode {
    use super::*;
    use crate::config::LockingMode;

    fn legacy() {
        set_current_thread_locking_mode(LockingMode::Legacy).unwrap();
    }

    #[test]
    fn a_record_holds_the_displaced_header_and_recursion_is_a_zero() {
        let h = pin!(Header::with_spare_bits(0b1010_0100 | (1 << 50)));
        let hash = identity_hash(&h);
        let before = h.raw();
        let outer = pin!(LockRecord::new());
        let inner = pin!(LockRecord::new());
        enter_with_record(h.as_ref(), outer.as_ref()).unwrap();
        assert_eq!(
            h.raw(),
            &*outer as *const LockRecord as usize,
            "the header holds the record"
        );
        assert_eq!(outer.displaced(), before, "the record holds the displaced header");
        assert!(holds_lock(&h));
        enter_with_record(h.as_ref(), inner.as_ref()).unwrap();
        assert_eq!(inner.displaced(), record::RECURSIVE);
        assert_eq!(h.raw(), &*outer as *const LockRecord as usize);
        assert_eq!(identity_hash(&h), hash, "read from our record, no inflation");
        assert_eq!(h.spare_bits(), 0b1010_0100 | (1 << 50));
        assert_eq!(
            enter_with_record(h.as_ref(), inner.as_ref()),
            Err(SyncError::IllegalMonitorState),
            "a record in use is refused"
        );
        assert_eq!(
            exit_with_record(h.as_ref(), pin!(LockRecord::new()).as_ref()),
            Err(SyncError::IllegalMonitorState),
            "an idle record holds nothing"
        );
        exit_with_record(h.as_ref(), inner.as_ref()).unwrap();
        assert!(holds_lock(&h));
        exit_with_record(h.as_ref(), outer.as_ref()).unwrap();
        assert_eq!(h.raw(), before, "unlock restores the exact word");
        assert!(!holds_lock(&h) && !h.is_inflated());
        assert!(!outer.is_in_use() && !inner.is_in_use());
    }

    #[test]
    fn raw_api_and_guards_stack_lock_in_legacy_mode() {
        legacy();
        let s0 = thread_stats();
        let a = pin!(Header::new());
        let b = pin!(Header::new());
        enter(a.as_ref());
        enter(b.as_ref());
        enter(a.as_ref()); // [A, B] + A: a recursive record, no inflation
        assert!(Mark(a.raw()).is_stack_locked() && Mark(b.raw()).is_stack_locked());
        exit(a.as_ref()).unwrap();
        exit(a.as_ref()).unwrap(); // unstructured: A before B
        assert!(!holds_lock(&a) && holds_lock(&b));
        exit(b.as_ref()).unwrap();
        assert_eq!(exit(b.as_ref()), Err(SyncError::IllegalMonitorState));
        {
            let g = lock(a.as_ref());
            let g2 = lock(a.as_ref());
            assert_eq!(g2.notify(), Ok(0), "stack-locked: nobody waits, no inflation");
            drop(g2);
            drop(g);
        }
        assert_eq!(a.lock_state(), LockState::Unlocked);
        for _ in 0..1000 {
            let h = pin!(Header::new());
            let _g = lock(h.as_ref());
            let _g2 = lock(h.as_ref());
        }
        assert_eq!(thread_stats().since(&s0).monitors_installed(), 0);
        assert!(super::super::record::raw_is_empty());
        // The outer guard dropped first: its record holds the displaced
        // header while a level is nested under it, so its exit inflates.
        let g = lock(a.as_ref());
        let g2 = lock(a.as_ref());
        drop(g);
        assert!(holds_lock(&a) && a.is_inflated());
        assert_eq!(
            thread_stats()
                .since(&s0)
                .inflations_by(InflateCause::UnstructuredExit),
            1
        );
        assert_eq!(monitor_recursions(&a), Some(0), "one level left: g2's");
        drop(g2);
        assert!(!holds_lock(&a));
    }

    #[test]
    fn a_recursive_records_exit_counts_down_its_owner() {
        legacy();
        let h = pin!(Header::new());
        let outer = pin!(LockRecord::new());
        let inner = [LockRecord::new(), LockRecord::new()];
        // SAFETY: `inner` is never moved while the records are in use.
        let inner: [Pin<&LockRecord>; 2] = inner.each_ref().map(|r| unsafe { Pin::new_unchecked(r) });
        enter_with_record(h.as_ref(), outer.as_ref()).unwrap();
        enter_with_record(h.as_ref(), inner[0]).unwrap();
        enter_with_record(h.as_ref(), inner[1]).unwrap();
        assert_eq!(
            (record::nested_count(&outer), inner[0].displaced()),
            (2, record::RECURSIVE)
        );
        exit_with_record(h.as_ref(), inner[1]).unwrap();
        assert_eq!(record::nested_count(&outer), 1);
        assert_eq!(
            h.raw(),
            &*outer as *const LockRecord as usize,
            "still stack-locked"
        );
        // A contender's inflation now: the claim takes the nested level as
        // a recursion, which the inner record then exits.
        std::thread::scope(|s| {
            s.spawn(|| assert!(identity_hash(&h) != 0)); // inflates (INFLATING)
        });
        assert!(h.is_inflated());
        exit_with_record(h.as_ref(), inner[0]).unwrap();
        assert_eq!(monitor_recursions(&h), Some(0));
        assert!(holds_lock(&h));
        exit_with_record(h.as_ref(), outer.as_ref()).unwrap();
        assert!(!holds_lock(&h));
        assert_eq!(record::nested_count(&outer), 0);
    }

    #[test]
    fn a_contender_inflates_through_inflating_and_the_stack_locker_claims() {
        legacy();
        let s0 = stats();
        let h = Arc::pin(Header::new());
        let g = lock(h.as_ref());
        let g2 = lock(h.as_ref());
        let (h2, entered) = (h.clone(), Arc::new(AtomicBool::new(false)));
        let e2 = entered.clone();
        let t = std::thread::spawn(move || {
            legacy();
            let _g = lock(h2.as_ref()); // inflates, then blocks
            e2.store(true, Ordering::SeqCst);
        });
        let start = Instant::now();
        while !h.is_inflated() {
            assert!(
                start.elapsed() < Duration::from_secs(300),
                "contender never inflated"
            );
            std::thread::yield_now();
        }
        assert!(
            with_monitor(&h, |m| m.owner_record().is_some()) == Some(true),
            "owned by our record until we claim it"
        );
        assert!(holds_lock(&h));
        assert!(!entered.load(Ordering::SeqCst));
        drop(g2); // recursive record: nothing
        assert!(holds_lock(&h) && !entered.load(Ordering::SeqCst));
        drop(g); // claims, exits, hands over
        t.join().unwrap();
        assert!(entered.load(Ordering::SeqCst));
        assert!(!holds_lock(&h));
        assert!(stats().since(&s0).inflations_by(InflateCause::Contention) >= 1);
    }

    #[test]
    fn hash_and_wait_on_a_stack_locked_object_inflate_as_hotspot_does() {
        legacy();
        let s0 = thread_stats();
        let h = pin!(Header::new());
        enter(h.as_ref());
        enter(h.as_ref());
        let hash = identity_hash(&h); // no hash in our record yet: inflate
        assert!(h.is_inflated());
        assert_eq!(
            thread_stats()
                .since(&s0)
                .inflations_by(InflateCause::IdentityHash),
            1
        );
        assert_eq!(identity_hash(&h), hash);
        assert!(holds_lock(&h));
        assert_eq!(wait(h.as_ref(), Some(Duration::ZERO)), Err(SyncError::TimedOut));
        assert!(holds_lock(&h));
        exit(h.as_ref()).unwrap();
        assert!(holds_lock(&h));
        exit(h.as_ref()).unwrap();
        assert!(!holds_lock(&h));
        assert_eq!(identity_hash(&h), hash);

        // Another thread's stack-lock: its record is not ours to read.
        let o = Arc::pin(Header::new());
        let (o2, go, done) = (o.clone(), Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
        let (go2, done2) = (go.clone(), done.clone());
        let holder = std::thread::spawn(move || {
            legacy();
            let g = lock(o2.as_ref());
            go2.wait();
            done2.wait();
            drop(g);
        });
        go.wait();
        let s1 = thread_stats();
        let hash = identity_hash(&o);
        assert_eq!(
            thread_stats()
                .since(&s1)
                .inflations_by(InflateCause::IdentityHash),
            1
        );
        assert!(!holds_lock(&o));
        done.wait();
        holder.join().unwrap();
        assert_eq!(identity_hash(&o), hash);
        let _g = lock(o.as_ref());
        assert_eq!(identity_hash(&o), hash);
    }

    #[test]
    fn wait_on_a_stack_locked_object_hands_over_to_a_notifier() {
        let h = Arc::pin(Synchronized::new(false));
        let h2 = h.clone();
        let about_to_wait = Arc::new(AtomicBool::new(false));
        let flag = about_to_wait.clone();
        let t = std::thread::spawn(move || {
            legacy();
            let mut g = h2.as_ref().lock().unwrap();
            g.wait_while(
                |ready| {
                    // Relaxed: the lock orders it (set under the lock; the
                    // notifier reads it, then takes the lock).
                    flag.store(true, Ordering::Relaxed);
                    !*ready
                },
                Some(Duration::from_secs(60)),
            )
            .unwrap();
        });
        legacy();
        // The waiter sets the flag holding the lock, and releases the lock
        // only inside `wait`, after joining the wait set: once the flag is
        // seen, our lock is granted only with the waiter in the wait set.
        while !about_to_wait.load(Ordering::Relaxed) {
            std::thread::yield_now();
        }
        let mut g = h.as_ref().lock().unwrap();
        assert!(h.header().is_inflated(), "waiting inflated it");
        *g = true;
        assert_eq!(g.notify(), Ok(1));
        drop(g);
        t.join().unwrap();
    }

    #[test]
    fn dropping_a_header_held_through_a_forgotten_legacy_guard_retires_its_record() {
        legacy();
        let a = Box::pin(Header::new());
        std::mem::forget(lock(a.as_ref()));
        enter(a.as_ref()); // a raw recursive record too
        drop(a);
        assert!(super::super::record::raw_is_empty());
        assert!(super::super::record::in_use().is_empty());
        // Inflated (by wait) and dropped: the monitor is freed.
        let s0 = thread_stats();
        let b = Box::pin(Header::new());
        std::mem::forget(lock(b.as_ref()));
        assert_eq!(wait(b.as_ref(), Some(Duration::ZERO)), Err(SyncError::TimedOut));
        drop(b);
        assert_eq!(thread_stats().since(&s0).monitors_freed, 1);
        assert!(super::super::record::in_use().is_empty());
    }

    #[test]
    fn thread_exit_releases_stack_locks() {
        let h = Arc::pin(Header::new());
        let h2 = h.clone();
        std::thread::spawn(move || {
            legacy();
            enter(h2.as_ref());
            enter(h2.as_ref());
            std::mem::forget(lock(h2.as_ref()));
        })
        .join()
        .unwrap();
        assert_eq!(h.lock_state(), LockState::Unlocked);
        let _g = lock(h.as_ref());
    }
}

/// `SyncStats` prints each count with its cause's name.
#[test]
fn sync_stats_debug_and_display_label_the_causes() {
    let mut s = SyncStats::default();
    s.inflations[InflateCause::Wait as usize] = 3;
    s.monitors_deflated = 2;
    let debug = format!("{s:?}");
    assert!(debug.contains("\"wait\": 3"), "{debug}");
    assert!(debug.contains("\"contention\": 0"), "{debug}");
    assert!(debug.contains("monitors_deflated: 2"), "{debug}");
    let shown = s.to_string();
    assert!(
        shown.starts_with("monitors installed: 3 (contention=0, wait=3,"),
        "{shown}"
    );
    assert!(shown.contains("identity-hash=0)"), "{shown}");
    assert!(shown.contains("deflated: 2"), "{shown}");
}

/// A header embedded in the user's struct, locked through the
/// `embed_header!` projection; the lock is the object's (another thread
/// waits for it) and the data beside the header is the user's.
#[test]
fn embedded_header_locks_the_users_object() {
    struct Counter {
        header: Header,
        hits: std::sync::atomic::AtomicU64,
    }
    crate::embed_header!(Counter, header);
    let obj = std::sync::Arc::pin(Counter {
        header: Header::new(),
        hits: std::sync::atomic::AtomicU64::new(0),
    });
    let g = obj.as_ref().lock();
    assert!(holds_lock(&obj.as_ref().header()));
    assert_eq!(
        obj.as_ref().header().get_ref() as *const Header,
        &obj.header as *const Header,
        "the projection is the field itself"
    );
    let other = obj.clone();
    let t = std::thread::spawn(move || {
        let _g = other.as_ref().lock();
        other.hits.load(std::sync::atomic::Ordering::Relaxed)
    });
    std::thread::sleep(std::time::Duration::from_millis(20));
    obj.hits.store(7, std::sync::atomic::Ordering::Relaxed);
    drop(g);
    assert_eq!(t.join().unwrap(), 7, "the other thread ran only after our unlock");
}

// ---- `Synchronized` bookkeeping on the lock-stack ----

#[test]
fn sync_guard_in_a_late_thread_local_keeps_its_lock_legacy() {
    sync_guard_outlives_thread_exit(crate::config::LockingMode::Legacy);
}

const ALL_MODES: [crate::config::LockingMode; 3] = [
    crate::config::LockingMode::Lightweight,
    crate::config::LockingMode::Legacy,
    crate::config::LockingMode::Monitor,
];

/// Runs `body(mode, value)` on a fresh thread in each locking mode, `value`
/// a fresh leaked `Synchronized`; after the thread has exited, checks
/// `value`'s lock: still held if `body` leaves a forgotten guard on it
/// (`kept`), free otherwise.
fn on_a_thread_per_mode(kept: bool, body: fn(crate::config::LockingMode, Pin<&'static Synchronized<u64>>)) {
    for mode in ALL_MODES {
        let value: Pin<&'static Synchronized<u64>> =
            Pin::static_ref(Box::leak(Box::new(Synchronized::new(0))));
        std::thread::spawn(move || {
            set_current_thread_locking_mode(mode).unwrap();
            body(mode, value);
        })
        .join()
        .unwrap();
        assert_eq!(
            is_free(value.header()),
            !kept,
            "{mode:?}: the exit released a guarded lock, or kept a free one"
        );
    }
}

/// A `SynchronizedGuard` taken on the fast path (its lock-stack entry marked) whose
/// object is then inflated (`wait`) is still known to the thread-exit
/// release: the mark moves to the list with the entry. Forgotten, its lock
/// survives the thread's exit; were the mark lost, the exit release would
/// have released the monitor.
#[test]
fn sync_guard_marked_then_inflated_keeps_its_lock_through_thread_exit() {
    on_a_thread_per_mode(true, |_, value| {
        let mut g = value.lock().unwrap();
        assert_eq!(g.wait(Some(Duration::ZERO)), Err(SyncError::TimedOut));
        assert!(value.header().is_inflated());
        *g = 1;
        std::mem::forget(g);
    });
}

/// Non-LIFO drops of fast-path guards, a raw lock between them, and a
/// guard over a full lock-stack: every lock is released exactly once and
/// each value is lockable again, in every mode.
#[test]
fn sync_guards_dropped_out_of_order_release_exactly() {
    on_a_thread_per_mode(false, |mode, a| {
        let b = Box::pin(Synchronized::new(0u32));
        let raw = Box::pin(Header::new());
        let ga = a.lock().unwrap();
        enter(raw.as_ref());
        let gb = b.as_ref().lock().unwrap();
        assert_eq!(a.lock().err(), Some(SyncError::AlreadyHeld));
        assert_eq!(b.as_ref().try_lock().err(), Some(SyncError::AlreadyHeld));
        drop(ga); // not on top
        assert!(!holds_lock(a.header()) && holds_lock(b.header()));
        exit(raw.as_ref()).unwrap();
        drop(gb);
        assert!(!holds_lock(b.header()));
        let fill: Vec<Pin<Box<Header>>> = (0..LOCK_STACK_CAPACITY)
            .map(|_| Box::pin(Header::new()))
            .collect();
        for h in &fill {
            enter(h.as_ref());
        }
        {
            let mut g = a.lock().unwrap(); // full stack: slow path
            *g += 1;
            assert_eq!(a.lock().err(), Some(SyncError::AlreadyHeld));
        }
        for h in fill.iter().rev() {
            exit(h.as_ref()).unwrap();
        }
        assert_eq!(
            thread::take_data_guarded_at_exit(),
            Vec::<usize>::new(),
            "{mode:?}"
        );
        assert_eq!(*a.lock().unwrap(), 1);
        assert!(is_free(b.header()) && is_free(&raw));
    });
}

/// A `Synchronized` fast-locked by this thread and then inflated by a
/// contender (the monitor's owner anonymous, the marked entry still on top
/// of this thread's lock-stack): locking it again is refused, not a
/// deadlock, after this thread's enter remembered the object (its guess
/// missed: the header is loaded, a monitor goes to the slow path, whose
/// `holds_lock` answers); the contender gets it when the guard drops.
#[test]
fn synchronized_inflated_by_a_contender_while_held_refuses_reentry() {
    lightweight_only();
    let value = Box::pin(Synchronized::new(0u64));
    std::thread::scope(|s| {
        let g = value.as_ref().lock().unwrap();
        let contender = s.spawn(|| {
            *value.as_ref().lock().unwrap() += 1;
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        while !value.header().is_inflated() {
            assert!(
                Instant::now() < deadline,
                "the contender never inflated the object"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        for _ in 0..3 {
            // The first attempt's guess misses and remembers the object; the
            // later ones load its header and see the monitor.
            assert_eq!(value.as_ref().lock().err(), Some(SyncError::AlreadyHeld));
            assert_eq!(value.as_ref().try_lock().err(), Some(SyncError::AlreadyHeld));
        }
        drop(g);
        contender.join().unwrap();
    });
    assert_eq!(*value.as_ref().lock().unwrap(), 1);
}

/// `Synchronized` on an object that is already inflated (its lock goes
/// straight to the monitor): a second lock on the holding thread is
/// refused, not re-entered; another thread's `try_lock` would block; and a
/// guard taken this way, forgotten, keeps its lock through thread exit.
#[test]
fn synchronized_on_an_inflated_object_refuses_reentry_and_survives_exit() {
    on_a_thread_per_mode(true, |mode, value| {
        {
            let mut g = value.lock().unwrap();
            assert_eq!(g.wait(Some(Duration::ZERO)), Err(SyncError::TimedOut));
        }
        assert!(value.header().is_inflated() && is_free(value.header()));
        let g = value.lock().unwrap();
        assert_eq!(value.lock().err(), Some(SyncError::AlreadyHeld), "{mode:?}");
        assert_eq!(value.try_lock().err(), Some(SyncError::AlreadyHeld), "{mode:?}");
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(value.try_lock().err(), Some(SyncError::WouldBlock)));
        });
        drop(g);
        assert!(is_free(value.header()), "{mode:?}: released once");
        std::mem::forget(value.try_lock().unwrap());
    });
}

// ---- the contention protocol's fair hand-off ----

/// Four threads hammer one inflated object with a critical section long
/// enough (~20 µs) that waiters queue and park: a woken waiter that keeps
/// losing to barging threads asks for a hand-off, and exits grant it. The
/// counter is exact, and when the run ends no request is left pointing at
/// a node that is gone. Bounded by time;
/// prints the operations, the fair hand-offs and least/most served.
#[test]
fn contention_fair_hand_off_leaves_no_request_behind() {
    let stats_before = super::stats::snapshot();
    let h = Arc::pin(Header::new());
    {
        let g = lock(h.as_ref());
        // A timed wait inflates the object, as the lab's inflated row does.
        let _ = g.wait(Some(Duration::from_millis(1)));
    }
    assert!(h.is_inflated());
    let value = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(5));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (h, value, stop, start) = (h.clone(), value.clone(), stop.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                let mut ops = 0u64;
                // Relaxed (flag and value): the flag ends the loop; the value
                // is read and written only under the lock under test.
                while !stop.load(Ordering::Relaxed) {
                    let _g = lock(h.as_ref());
                    let v = value.load(Ordering::Relaxed);
                    let t = Instant::now();
                    while t.elapsed() < Duration::from_micros(20) {
                        std::hint::spin_loop();
                    }
                    value.store(v + 1, Ordering::Relaxed);
                    ops += 1;
                }
                ops
            })
        })
        .collect();
    start.wait();
    std::thread::sleep(Duration::from_millis(400));
    stop.store(true, Ordering::Relaxed);
    let per: Vec<u64> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    let total: u64 = per.iter().sum();
    assert_eq!(value.load(Ordering::Relaxed) as u64, total, "lost updates");
    // Held, the monitor cannot be deflated while we look at it. (Another
    // test's deflation pass may have deflated it between two operations;
    // then there is no monitor to look at, and the counts above suffice.)
    let _g = lock(h.as_ref());
    let seen = with_monitor(&h, |m| (m.hand_offs(), m.has_hand_off_request()));
    if let Some((monitor_hand_offs, request)) = seen {
        assert!(!request, "a hand-off request outlived its thread's wait");
        // The process-wide counter saw at least this monitor's (other tests
        // running beside this one can only add to it).
        let counted = super::stats::snapshot().since(&stats_before).fair_hand_offs;
        assert!(
            counted >= monitor_hand_offs,
            "SyncStats counted {counted} fair hand-offs, the monitor made {monitor_hand_offs}"
        );
    }
    let hand_offs = seen.map_or_else(|| "(deflated meanwhile)".to_string(), |s| s.0.to_string());
    let (least, most) = (per.iter().min().unwrap(), per.iter().max().unwrap());
    println!(
        "contention fair hand-off: {total} critical sections checked, {hand_offs} fair hand-offs, least/most served {:.3}",
        *least as f64 / (*most).max(1) as f64
    );
}

// ---- an inflated `Synchronized`'s guard marked in its monitor ----

/// A `Synchronized` guard taken on the value's monitor (its object inflated
/// first by a timed wait), asserted to be marked there, so that the test
/// covers the monitor mark and not the lock-stack or list. Retries if a
/// deflation pass took the monitor between the wait and the lock.
fn lock_on_its_monitor(value: Pin<&'static Synchronized<u64>>) -> SynchronizedGuard<'static, u64> {
    for _ in 0..100 {
        {
            let mut g = value.lock().unwrap();
            let _ = g.wait(Some(Duration::ZERO));
        }
        let g = value.lock().unwrap();
        if with_monitor(value.header(), |m| m.is_guard_held()) == Some(true) {
            return g;
        }
    }
    panic!("never locked the value on its monitor");
}

#[test]
fn inflated_sync_guard_in_a_late_thread_local_keeps_its_lock_lightweight() {
    sync_guard_outlives_thread_exit_on(crate::config::LockingMode::Lightweight, true);
}

#[test]
fn inflated_sync_guard_in_a_late_thread_local_keeps_its_lock_monitor_mode() {
    sync_guard_outlives_thread_exit_on(crate::config::LockingMode::Monitor, true);
}

/// The monitor's guard mark leaves with a waiter and comes back with it: a
/// thread that takes the value (and marks and clears the mark itself)
/// while the guard's owner waits does not take the owner's mark away, and
/// the owner's guard, forgotten, still keeps the lock through thread exit.
/// A plain `HeaderGuard` marks nothing. Lightweight and monitor mode (a legacy
/// thread's guards take records).
#[test]
fn monitor_guard_mark_survives_a_wait_and_is_owner_only() {
    for mode in [
        crate::config::LockingMode::Lightweight,
        crate::config::LockingMode::Monitor,
    ] {
        let value: Pin<&'static Synchronized<u64>> =
            Pin::static_ref(Box::leak(Box::new(Synchronized::new(0))));
        std::thread::spawn(move || {
            set_current_thread_locking_mode(mode).unwrap();
            let mut g = lock_on_its_monitor(value);
            std::thread::scope(|s| {
                let other = s.spawn(move || {
                    set_current_thread_locking_mode(mode).unwrap();
                    let mut g = value.lock().unwrap();
                    *g += 1;
                    let marked = with_monitor(value.header(), |m| m.is_guard_held());
                    g.notify().unwrap();
                    marked
                });
                // Wait until the other thread has been in and notified us.
                // A timed-out wait (a slow machine) just waits again.
                while *g == 0 {
                    match g.wait(Some(Duration::from_secs(5))) {
                        Ok(()) | Err(SyncError::TimedOut) => {}
                        Err(e) => panic!("{mode:?}: wait: {e}"),
                    }
                }
                assert_eq!(
                    other.join().unwrap(),
                    Some(true),
                    "{mode:?}: the other thread's guard marks it"
                );
            });
            assert_eq!(
                with_monitor(value.header(), |m| (m.is_guard_held(), m.debug_recursions())),
                Some((true, 0)),
                "{mode:?}: the mark came back with the waiter"
            );
            std::mem::forget(g);
        })
        .join()
        .unwrap();
        // The forgotten guard's thread is gone and kept its lock.
        std::thread::spawn(move || assert_eq!(value.try_lock().err(), Some(SyncError::WouldBlock)))
            .join()
            .unwrap();
        // A raw lock on a header never marks its monitor.
        let h = Box::pin(Header::new());
        let g = lock(h.as_ref());
        let _ = g.wait(Some(Duration::ZERO));
        assert_eq!(with_monitor(&h, |m| m.is_guard_held()), Some(false), "{mode:?}");
        drop(g);
        println!("{mode:?}: the monitor's guard mark followed its waiter; a forgotten guard kept its lock");
    }
}

/// The explicit-thread forms are the same lock as the thread-local ones:
/// levels taken one way are released the other, in the configured mode.
#[test]
fn explicit_thread_forms_mix_with_the_thread_local_ones() {
    let me = crate::thread::current();
    let h = pin!(Header::new());
    let h = h.as_ref();
    enter_on(me, h);
    enter(h);
    enter_on(me, h);
    assert!(holds_lock(h.get_ref()));
    exit(h).unwrap();
    exit_on(me, h).unwrap();
    assert!(holds_lock(h.get_ref()));
    exit_on(me, h).unwrap();
    assert!(!holds_lock(h.get_ref()));
    assert_eq!(exit_on(me, h), Err(SyncError::IllegalMonitorState));
    assert!(is_free(h.get_ref()));
    // Synchronized: a second lock through either form is refused.
    let s = pin!(Synchronized::new(5u32));
    let s = s.as_ref();
    let mut g = s.lock_on(me).unwrap();
    *g += 1;
    assert_eq!(s.lock().err(), Some(SyncError::AlreadyHeld));
    assert_eq!(s.lock_on(me).err(), Some(SyncError::AlreadyHeld));
    drop(g);
    assert_eq!(*s.lock().unwrap(), 6);
}

/// Lightweight mode through the block's published layout: `top` moves by
/// 8 bytes per entry from the first entry's offset, the entry holds the
/// header's address, and the owner id is the one monitors record.
#[test]
fn explicit_thread_lock_stack_follows_the_published_layout() {
    lightweight_only();
    use crate::thread as t;
    let me = t::current();
    let word = |off: usize| {
        // SAFETY: `off` is a published offset of a word-sized field of
        // this thread's block, read on this thread.
        unsafe { (me.as_ptr() as *const u8).add(off).cast::<usize>().read() }
    };
    let top = || {
        // SAFETY: as above, for the `u32` top.
        unsafe {
            (me.as_ptr() as *const u8)
                .add(t::LOCK_STACK_TOP_OFFSET)
                .cast::<u32>()
                .read()
        }
    };
    assert_eq!(top() as usize, t::LOCK_STACK_OFFSET);
    assert_eq!(word(t::OWNER_ID_OFFSET), current_sync_thread().id());
    let h = pin!(Header::new());
    let h = h.as_ref();
    enter_on(me, h);
    enter_on(me, h);
    assert_eq!(top() as usize, t::LOCK_STACK_OFFSET + 16);
    assert_eq!(word(t::LOCK_STACK_OFFSET), h.get_ref().addr());
    assert_eq!(word(t::LOCK_STACK_OFFSET + 8), h.get_ref().addr());
    assert_eq!(word(t::LOCK_STACK_SENTINEL_OFFSET), 0);
    exit_on(me, h).unwrap();
    exit_on(me, h).unwrap();
    assert_eq!(top() as usize, t::LOCK_STACK_OFFSET);
}

/// A thread's block is fresh however its TLS memory was used before: many
/// threads in turn exit holding fast-locks (released at their exit), and
/// each next thread, which may reuse the previous one's TLS memory, starts
/// unregistered with an out-of-range top and no owner id, then locks the
/// objects its predecessors held.
#[test]
fn a_reused_block_starts_fresh_and_held_locks_are_released_at_exit() {
    let objs: Arc<Vec<Pin<Box<Header>>>> = Arc::new((0..3).map(|_| Box::pin(Header::new())).collect());
    for round in 0..16 {
        let mine = objs.clone();
        std::thread::spawn(move || {
            let objs = mine;
            let b = crate::thread::current();
            assert_eq!(b.mode(), crate::thread::ThreadMode::Unregistered, "round {round}");
            assert_eq!(b.lock_stack_top.get(), crate::thread::LOCK_STACK_INACTIVE);
            assert_eq!(b.owner_id.get(), 0);
            assert!(b.current.get().is_null() && b.inline_state.get().is_null());
            for o in objs.iter() {
                enter_on(b, o.as_ref());
            }
            enter_on(b, objs[2].as_ref()); // recursive
            assert!(objs.iter().all(|o| holds_lock(o)));
            // Exits holding all three.
        })
        .join()
        .unwrap();
        for o in objs.iter() {
            assert!(is_free(o), "round {round}: released at the holder's exit");
        }
    }
}

/// A monitor a thread acquires only on the inline inflated path (the
/// block's owner id and its "may own monitors" flag, no slow path) is
/// released at the thread's exit, in each mode that has that path; and
/// every thread, in whatever TLS memory it runs, starts with the flag
/// clear (the exit release would otherwise scan for nothing, or, left
/// clear by a path that forgot it, skip a monitor it owns). A legacy thread
/// takes a record instead, and its exit releases that.
#[test]
fn a_monitor_taken_inline_is_released_at_exit_and_a_reused_block_starts_clear() {
    use crate::config::LockingMode;
    for mode in [
        LockingMode::Lightweight,
        LockingMode::Monitor,
        LockingMode::Legacy,
    ] {
        for round in 0..4 {
            // Inflated and free: a zero wait inflates, the unlock leaves the
            // monitor installed (a deflation pass may still take it back,
            // which only makes the thread's lock a thin one).
            let h = Arc::new(Box::pin(Header::new()));
            {
                let g = lock(h.as_ref().as_ref());
                let _ = g.wait(Some(Duration::ZERO));
            }
            let h2 = h.clone();
            let inline = std::thread::spawn(move || {
                let b = crate::thread::current();
                assert!(!b.may_own_monitors.get(), "{mode:?} round {round}: a fresh block");
                set_current_thread_locking_mode(mode).unwrap(); // registers
                assert!(!b.may_own_monitors.get());
                let inflated = h2.is_inflated();
                enter_on(b, h2.as_ref().as_ref());
                assert!(holds_lock(&h2));
                if inflated && mode != LockingMode::Legacy {
                    assert!(b.may_own_monitors.get(), "{mode:?}: the inline enter noted it");
                }
                inflated
                // Exits holding it.
            })
            .join()
            .unwrap();
            assert!(
                is_free(&h),
                "{mode:?} round {round}: released at the holder's exit (inflated: {inline})"
            );
            let g = try_lock(h.as_ref().as_ref());
            assert!(g.is_some(), "{mode:?} round {round}: free for the next thread");
        }
    }
}

/// Detaching (releasing every held lock while the thread lives on) keeps
/// the thread's mode and registration: the next lock runs the same
/// protocol, in each of the three modes.
#[test]
fn detach_keeps_the_threads_mode() {
    use crate::config::LockingMode;
    for mode in [
        LockingMode::Lightweight,
        LockingMode::Legacy,
        LockingMode::Monitor,
    ] {
        std::thread::spawn(move || {
            set_current_thread_locking_mode(mode).unwrap();
            let h = pin!(Header::new());
            let h = h.as_ref();
            enter(h);
            enter(h);
            release_held_locks_of_current_thread();
            assert!(!holds_lock(h.get_ref()), "{mode:?}");
            assert_eq!(current_thread_locking_mode(), mode);
            assert_eq!(exit(h), Err(SyncError::IllegalMonitorState));
            enter(h);
            assert!(holds_lock(h.get_ref()), "{mode:?}");
            exit(h).unwrap();
            assert_eq!(current_thread_locking_mode(), mode);
        })
        .join()
        .unwrap();
    }
}

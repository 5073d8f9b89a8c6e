//! `sync::try_enter` (and the guard forms `sync::try_lock`,
//! `Synchronized::try_lock`): one attempt that never blocks, in every
//! locking mode and every state a header can be in: free, held by another
//! thread, held by this one (recursion, including what the lock-stack
//! cannot express), inflated free, inflated held, after deflation; then a
//! bounded stress test mixing `try_enter`, `enter` and `exit` across modes
//! with deflation passes running, counts exact.
//!
//! The tests of this binary take `SERIAL` so that one test's explicit
//! deflation pass cannot deflate another's monitor between its "is
//! inflated" check and its `try_enter`. Orderings of the side atomics:
//! Relaxed, as in `sync_stress.rs` (flags end loops; counters are read after
//! joins; what is checked is protected by the lock under test).

use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use fastpath::sync::LockingMode;
use fastpath::sync::{self, Header, LockRecord, LockState, SyncError, Synchronized};
use fastpath::thread::LOCK_STACK_CAPACITY;

mod sync_workloads;

/// The longest a loop of explicit deflation passes may take to deflate an
/// idle monitor (a pass by the deflation thread or a parallel test may hold
/// it up; a loaded machine or an emulator can stall any of them): past it
/// the test fails.
const DEFLATION_CAP: Duration = Duration::from_secs(300);
use sync_workloads::{bump, header, Obj};

const MODES: [LockingMode; 3] = [
    LockingMode::Lightweight,
    LockingMode::Legacy,
    LockingMode::Monitor,
];

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn set_mode(mode: LockingMode) {
    sync::set_current_thread_locking_mode(mode).unwrap();
}

/// Inflates `h` (a zero-timeout `wait` needs a monitor) and leaves it idle.
fn inflate_idle(h: Pin<&Header>) {
    let g = sync::lock(h);
    assert_eq!(g.wait(Some(Duration::ZERO)), Err(SyncError::TimedOut));
    drop(g);
    assert!(h.is_inflated());
}

/// Runs `hold` on another thread in `mode` while it holds `obj` (entered
/// with `enter`, inflated first when `inflated`), and `check` on this
/// thread meanwhile; then lets the holder go.
fn while_another_thread_holds(obj: &Pin<Arc<Obj>>, mode: LockingMode, inflated: bool, check: impl FnOnce()) {
    let (locked_tx, locked_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let o = obj.clone();
    let t = thread::spawn(move || {
        set_mode(mode);
        let h = header(&o);
        if inflated {
            inflate_idle(h);
        }
        sync::enter(h);
        locked_tx.send(()).unwrap();
        release_rx.recv().unwrap();
        sync::exit(h).unwrap();
    });
    locked_rx.recv().unwrap();
    check();
    release_tx.send(()).unwrap();
    t.join().unwrap();
}

#[test]
fn free_object_is_acquired_in_every_mode() {
    let _s = serial();
    for mode in MODES {
        set_mode(mode);
        let h = pin!(Header::new());
        assert!(sync::try_enter(h.as_ref()), "{mode:?}");
        assert!(sync::holds_lock(&h));
        let expected = match mode {
            LockingMode::Monitor => LockState::Inflated,
            _ => LockState::FastLocked, // stack-locked shows as 00 too
        };
        assert_eq!(h.lock_state(), expected, "{mode:?}");
        sync::exit(h.as_ref()).unwrap();
        assert!(!sync::holds_lock(&h));
        assert_eq!(
            sync::exit(h.as_ref()),
            Err(SyncError::IllegalMonitorState),
            "{mode:?}"
        );
    }
    set_mode(LockingMode::Lightweight);
}

#[test]
fn held_by_another_thread_fails_without_blocking_or_inflating() {
    let _s = serial();
    for holder in MODES {
        for mode in MODES {
            let o = Obj::new();
            while_another_thread_holds(&o, holder, false, || {
                set_mode(mode);
                let before = header(&o).lock_state();
                let start = Instant::now();
                assert!(!sync::try_enter(header(&o)), "{holder:?} holds, {mode:?} tries");
                assert!(start.elapsed() < Duration::from_secs(60), "try_enter blocked");
                assert_eq!(header(&o).lock_state(), before, "nothing changed");
                assert!(!sync::holds_lock(&header(&o)));
                assert!(sync::try_lock(header(&o)).is_none());
                assert_eq!(sync::exit(header(&o)), Err(SyncError::IllegalMonitorState));
            });
            set_mode(mode);
            assert!(sync::try_enter(header(&o)), "free again");
            sync::exit(header(&o)).unwrap();
        }
    }
    set_mode(LockingMode::Lightweight);
}

#[test]
fn recursion_in_every_mode_balances() {
    let _s = serial();
    for mode in MODES {
        set_mode(mode);
        let h = pin!(Header::new());
        sync::enter(h.as_ref());
        for _ in 0..3 {
            assert!(sync::try_enter(h.as_ref()), "{mode:?}");
        }
        let g = sync::try_lock(h.as_ref()).expect("reentrant");
        drop(g);
        for _ in 0..4 {
            sync::exit(h.as_ref()).unwrap();
        }
        assert!(!sync::holds_lock(&h), "{mode:?}: every level released");
        assert_eq!(sync::exit(h.as_ref()), Err(SyncError::IllegalMonitorState));
    }
    set_mode(LockingMode::Lightweight);
}

/// Lightweight recursion the lock-stack cannot express: interleaved
/// (`[A, B]` + A) and on a full stack. `try_enter` does what `enter` does:
/// inflates its own lock, never fails on it.
#[test]
fn lightweight_recursion_beyond_the_lock_stack_inflates_like_enter() {
    let _s = serial();
    set_mode(LockingMode::Lightweight);
    let a = pin!(Header::new());
    let b = pin!(Header::new());
    sync::enter(a.as_ref());
    sync::enter(b.as_ref());
    assert!(sync::try_enter(a.as_ref()), "interleaved");
    assert!(a.is_inflated());
    sync::exit(a.as_ref()).unwrap();
    sync::exit(b.as_ref()).unwrap();
    sync::exit(a.as_ref()).unwrap();
    assert!(!sync::holds_lock(&a) && !sync::holds_lock(&b));

    let c = pin!(Header::new());
    for _ in 0..LOCK_STACK_CAPACITY {
        sync::enter(c.as_ref());
    }
    assert!(sync::try_enter(c.as_ref()), "full stack");
    for _ in 0..=LOCK_STACK_CAPACITY {
        sync::exit(c.as_ref()).unwrap();
    }
    assert!(!sync::holds_lock(&c));
    // A full stack of other objects: room is made, as `enter` makes it.
    let others: Vec<Pin<Box<Header>>> = (0..LOCK_STACK_CAPACITY)
        .map(|_| Box::pin(Header::new()))
        .collect();
    for o in &others {
        sync::enter(o.as_ref());
    }
    let d = pin!(Header::new());
    assert!(sync::try_enter(d.as_ref()), "room made on a full stack");
    sync::exit(d.as_ref()).unwrap();
    for o in others.iter().rev() {
        sync::exit(o.as_ref()).unwrap();
    }
}

/// A lightweight or monitor thread that stack-locked an object with its
/// own record (`enter_with_record` works in every mode) re-enters it.
#[test]
fn own_stack_lock_through_a_caller_record_is_reentered() {
    let _s = serial();
    for mode in MODES {
        set_mode(mode);
        let h = pin!(Header::new());
        let rec = pin!(LockRecord::new());
        sync::enter_with_record(h.as_ref(), rec.as_ref()).unwrap();
        assert!(sync::try_enter(h.as_ref()), "{mode:?}");
        sync::exit(h.as_ref()).unwrap();
        assert!(sync::holds_lock(&h));
        sync::exit_with_record(h.as_ref(), rec.as_ref()).unwrap();
        assert!(!sync::holds_lock(&h), "{mode:?}");
    }
    set_mode(LockingMode::Lightweight);
}

/// A free inflated monitor is acquired by a try-enter (never answered
/// BUSY).
#[test]
fn inflated_free_monitor_is_acquired_in_every_mode() {
    let _s = serial();
    for mode in MODES {
        set_mode(mode);
        let h = pin!(Header::new());
        inflate_idle(h.as_ref());
        assert!(sync::try_enter(h.as_ref()), "{mode:?}");
        assert!(h.is_inflated() && sync::holds_lock(&h));
        assert!(sync::try_enter(h.as_ref()), "{mode:?}: re-entered");
        sync::exit(h.as_ref()).unwrap();
        sync::exit(h.as_ref()).unwrap();
        assert!(!sync::holds_lock(&h), "{mode:?}");
    }
    set_mode(LockingMode::Lightweight);
}

#[test]
fn inflated_monitor_held_by_another_thread_fails() {
    let _s = serial();
    for holder in MODES {
        for mode in MODES {
            let o = Obj::new();
            while_another_thread_holds(&o, holder, true, || {
                set_mode(mode);
                assert!(header(&o).is_inflated());
                assert!(!sync::try_enter(header(&o)), "{holder:?} holds, {mode:?} tries");
                assert!(!sync::holds_lock(&header(&o)));
            });
            set_mode(mode);
            assert!(sync::try_enter(header(&o)));
            sync::exit(header(&o)).unwrap();
        }
    }
    set_mode(LockingMode::Lightweight);
}

#[test]
fn after_deflation_the_object_is_acquired_again() {
    let _s = serial();
    for mode in MODES {
        set_mode(mode);
        let h = pin!(Header::new());
        inflate_idle(h.as_ref());
        let start = Instant::now();
        while h.is_inflated() {
            sync::deflate_idle_monitors();
            assert!(start.elapsed() < DEFLATION_CAP, "never deflated");
        }
        assert!(sync::try_enter(h.as_ref()), "{mode:?}");
        if mode == LockingMode::Lightweight {
            assert_eq!(h.lock_state(), LockState::FastLocked, "fast-locked again");
        }
        sync::exit(h.as_ref()).unwrap();
        assert!(!sync::holds_lock(&h));
    }
    set_mode(LockingMode::Lightweight);
}

#[test]
fn synchronized_try_lock_says_why_it_failed() {
    let _s = serial();
    for mode in MODES {
        set_mode(mode);
        let s = Arc::pin(Synchronized::new(0u32));
        {
            let mut g = s.as_ref().try_lock().expect("free");
            *g += 1;
            assert_eq!(s.as_ref().try_lock().err(), Some(SyncError::AlreadyHeld));
        }
        let (tx, rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let s2 = s.clone();
        let t = thread::spawn(move || {
            set_mode(mode);
            let mut g = s2.as_ref().lock().unwrap();
            *g += 1;
            tx.send(()).unwrap();
            release_rx.recv().unwrap();
        });
        rx.recv().unwrap();
        assert_eq!(
            s.as_ref().try_lock().err(),
            Some(SyncError::WouldBlock),
            "{mode:?}"
        );
        release_tx.send(()).unwrap();
        t.join().unwrap();
        assert_eq!(*s.as_ref().try_lock().unwrap(), 2);
    }
    set_mode(LockingMode::Lightweight);
}

/// Threads of all three modes on a few shared objects, each operation a
/// `try_enter` (counted only when it succeeds), an `enter`, or a nested
/// `try_enter` on an object already held; a fourth thread runs deflation
/// passes throughout, so `try_enter` meets monitors being deflated. Every
/// increment happens under the lock: the totals are exact. Bounded by time.
#[test]
fn stress_try_enter_enter_exit_with_deflation() {
    let _s = serial();
    const THREADS: usize = 6;
    let budget = Duration::from_millis(700);
    let objs: Vec<Pin<Arc<Obj>>> = (0..3).map(|_| Obj::new()).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let tries = Arc::new(AtomicU64::new(0));
    let busy = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..THREADS)
        .map(|i| {
            let (objs, stop, tries, busy) = (objs.clone(), stop.clone(), tries.clone(), busy.clone());
            thread::spawn(move || {
                set_mode(MODES[i % 3]);
                let mut done = 0u64;
                let mut x = i as u64 + 1;
                while !stop.load(Ordering::Relaxed) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let o = &objs[(x % 3) as usize];
                    let h = header(o);
                    match x % 4 {
                        0 | 1 => {
                            tries.fetch_add(1, Ordering::Relaxed);
                            if !sync::try_enter(h) {
                                busy.fetch_add(1, Ordering::Relaxed);
                                continue;
                            }
                        }
                        2 => sync::enter(h),
                        _ => {
                            // Nested: held by `enter`, re-entered by try.
                            sync::enter(h);
                            assert!(sync::try_enter(h), "re-entering a held object");
                            bump(o);
                            done += 1;
                            sync::exit(h).unwrap();
                        }
                    }
                    bump(o);
                    done += 1;
                    if x % 64 == 0 {
                        thread::yield_now(); // let others meet it held
                    }
                    sync::exit(h).unwrap();
                }
                done
            })
        })
        .collect();
    let deflater = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut passes = 0u64;
            let mut deflated = 0usize;
            while !stop.load(Ordering::Relaxed) {
                deflated += sync::deflate_idle_monitors().deflated;
                passes += 1;
                thread::sleep(Duration::from_micros(200));
            }
            (passes, deflated)
        })
    };
    thread::sleep(budget);
    stop.store(true, Ordering::Relaxed);
    let total: u64 = workers.into_iter().map(|t| t.join().unwrap()).sum();
    let (passes, deflated) = deflater.join().unwrap();
    let counted: u64 = objs.iter().map(|o| o.count.load(Ordering::Relaxed)).sum();
    assert_eq!(counted, total, "lost or extra updates");
    for o in &objs {
        assert!(!sync::holds_lock(&header(o)));
        assert!(sync::try_enter(header(o)), "every object free at the end");
        sync::exit(header(o)).unwrap();
    }
    println!(
        "try_enter stress: {total} increments checked ({} try_enter, {} busy), {passes} deflation passes, {deflated} monitors deflated",
        tries.load(Ordering::Relaxed),
        busy.load(Ordering::Relaxed),
    );
    assert!(total > 0);
}

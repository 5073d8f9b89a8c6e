//! The fast-lock spin before inflation (`sync/fast_lock_spin.rs`, HotSpot
//! JDK 24's `fast_lock_spin_enter`): exact counts under contention at 2, 4
//! and 8 threads with the spin on, the same with it off and with its
//! smallest budget, a spin that takes a briefly held lock without a monitor,
//! and a lock held long that still inflates (the spin gives up, the waiter
//! parks on the monitor, nothing is lost) and deflates again on the exit
//! that leaves the monitor idle (or, deflation on exit off, stays). Each stress run is bounded in
//! time and prints the operations it checked and what the spins did.
//!
//! The spin budget and the counters are process-wide, so the tests of this
//! file run one at a time (`SERIAL`). Orderings: flags and side counters
//! are Relaxed (they publish nothing; counts come back through `join`);
//! what is checked is protected by the lock under test.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use fastpath::sync::fast_lock_spin::{
    fast_lock_spin_stats, fast_locking_spins, fast_locking_yields, set_fast_locking_spins,
    set_fast_locking_yields, DEFAULT_FAST_LOCKING_SPINS, DEFAULT_FAST_LOCKING_YIELDS,
};
use fastpath::sync::{self, LockState};
use fastpath::sync::{FastLockingSpins, LockingMode};

/// The spin is lightweight locking's: the single-lock tests pin both
/// threads to it, whatever the environment says.
fn lightweight() {
    sync::set_current_thread_locking_mode(LockingMode::Lightweight).unwrap();
}

mod sync_workloads;
use sync_workloads::{bump, header, Obj};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Restores the budget and yields in force before it when a test ends (or
/// fails).
struct Budget {
    log2: u32,
    yields: u32,
}

impl Budget {
    fn set(log2: u32, yields: u32) -> Budget {
        let before = Budget {
            log2: fast_locking_spins(),
            yields: fast_locking_yields(),
        };
        set_fast_locking_spins(log2).unwrap();
        set_fast_locking_yields(yields).unwrap();
        before
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        set_fast_locking_spins(self.log2).unwrap();
        set_fast_locking_yields(self.yields).unwrap();
    }
}

/// `threads` threads lock one fresh object with the raw API for `run`,
/// bumping its plain counter inside and spinning a little outside. Returns
/// the operations counted by the threads, after checking the object's
/// counter equals them.
fn stress(threads: usize, run: Duration) -> u64 {
    let o = Obj::new();
    let start = Arc::new(Barrier::new(threads));
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (o, start) = (o.clone(), start.clone());
            thread::spawn(move || {
                start.wait();
                let until = Instant::now() + run;
                let mut n = 0u64;
                while Instant::now() < until {
                    sync::enter(header(&o));
                    bump(&o);
                    sync::exit(header(&o)).unwrap();
                    n += 1;
                    for _ in 0..20 {
                        std::hint::spin_loop();
                    }
                }
                n
            })
        })
        .collect();
    let ops: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();
    assert_eq!(
        o.count.load(Ordering::Relaxed),
        ops,
        "lost updates at {threads} threads"
    );
    assert!(ops > 0);
    ops
}

#[test]
fn contended_short_sections_count_exactly_at_2_4_and_8_threads() {
    let _one = serial();
    // In the locking mode the environment names (CI runs all three): only
    // lightweight threads spin, every mode must count exactly.
    let mut total = 0;
    // The defaults (the budget calibrated to 0.5 ms, then the yield
    // phase), HotSpot's count with the yields and alone, the spin off
    // (inflate at the first contention, as before JDK 24), one look with
    // no pause, and that look plus yields.
    for (log2, yields) in [
        (FastLockingSpins::default().0, DEFAULT_FAST_LOCKING_YIELDS),
        (DEFAULT_FAST_LOCKING_SPINS, DEFAULT_FAST_LOCKING_YIELDS),
        (DEFAULT_FAST_LOCKING_SPINS, 0),
        (0, 0),
        (1, 0),
        (1, 8),
    ] {
        let _b = Budget::set(log2, yields);
        assert_eq!(fast_locking_spins(), log2);
        for threads in [2, 4, 8] {
            let (s0, spins0) = (sync::stats(), fast_lock_spin_stats());
            let ops = stress(threads, Duration::from_millis(150));
            let spins = fast_lock_spin_stats().since(&spins0);
            let inflations = sync::stats().since(&s0).monitors_installed();
            println!(
                "{:?}, spins 2^{log2}, {yields} yields, {threads} threads: {ops} operations checked; spins won {} saw a monitor {} gave up {}; {inflations} inflations",
                sync::current_thread_locking_mode(),
                spins.acquired,
                spins.saw_monitor,
                spins.gave_up
            );
            if log2 == 0 || sync::current_thread_locking_mode() != LockingMode::Lightweight {
                assert_eq!(
                    spins.acquired + spins.saw_monitor + spins.gave_up,
                    0,
                    "budget 0 never spins"
                );
            }
            total += ops;
        }
    }
    println!("{total} operations checked in all");
}

#[test]
fn a_spin_takes_a_briefly_held_lock_without_a_monitor() {
    let _one = serial();
    // The largest budget (2^20 pauses: milliseconds of the waiter's CPU
    // time) against a hold of ~5 µs after the waiter announced itself: the
    // waiter should get the fast-lock. A loaded machine can still deschedule
    // the holder for longer than the budget, so tries repeat (for 3 s at
    // least) until three clean wins, and past 3 s until the first (one
    // shows the path) under a generous cap; every try must count exactly.
    let _b = Budget::set(20, 0);
    lightweight();
    let (mut wins, mut tries) = (0, 0);
    let began = Instant::now();
    let (enough, cap) = (Duration::from_secs(3), Duration::from_secs(120));
    while wins < 3 && (began.elapsed() < enough || (wins == 0 && began.elapsed() < cap)) {
        tries += 1;
        let o = Obj::new();
        let held = Arc::new(AtomicBool::new(false));
        let coming = Arc::new(AtomicBool::new(false));
        let holder = {
            let (o, held, coming) = (o.clone(), held.clone(), coming.clone());
            thread::spawn(move || {
                lightweight();
                sync::enter(header(&o));
                held.store(true, Ordering::Relaxed);
                while !coming.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
                let t = Instant::now();
                while t.elapsed() < Duration::from_micros(5) {
                    std::hint::spin_loop();
                }
                bump(&o);
                sync::exit(header(&o)).unwrap();
            })
        };
        while !held.load(Ordering::Relaxed) {
            std::hint::spin_loop();
        }
        let s0 = sync::thread_stats();
        let spins0 = fast_lock_spin_stats();
        coming.store(true, Ordering::Relaxed);
        sync::enter(header(&o));
        bump(&o);
        let state = o.header.lock_state();
        sync::exit(header(&o)).unwrap();
        holder.join().unwrap();
        assert_eq!(o.count.load(Ordering::Relaxed), 2);
        let inflated_here = sync::thread_stats().since(&s0).monitors_installed();
        if fast_lock_spin_stats().since(&spins0).acquired >= 1
            && inflated_here == 0
            && state == LockState::FastLocked
        {
            wins += 1;
        }
    }
    println!(
        "spin took the lock without inflating in {wins} of {tries} tries ({:.2} ns per pause)",
        fastpath::spin::calibration().ns_per_pause
    );
    assert!(
        wins >= 1,
        "no try in {:?} ({tries} tries) took a 5 µs hold by spinning",
        began.elapsed()
    );
}

/// A lock held long: the waiter's spin gives up, it inflates the object
/// and parks on the monitor; nothing is lost. Its exit, the one that
/// leaves the contention monitor idle, deflates it (deflation on exit, the
/// default); with that off the monitor stays (the deflation thread is off
/// meanwhile, so that no pass can take it).
#[test]
fn a_lock_held_long_still_inflates_and_the_waiter_parks_on_its_monitor() {
    let _one = serial();
    lightweight();
    for on_exit in [true, false] {
        sync::set_deflate_on_exit(on_exit);
        let policy = sync::deflation_policy();
        if !on_exit {
            sync::set_deflation_policy(sync::DeflationPolicy {
                enabled: false,
                ..policy
            });
        }
        held_long(on_exit);
        sync::set_deflation_policy(policy);
        sync::set_deflate_on_exit(true);
    }
}

fn held_long(on_exit: bool) {
    let o = Obj::new();
    let held = Arc::new(AtomicBool::new(false));
    let holder = {
        let (o, held) = (o.clone(), held.clone());
        thread::spawn(move || {
            lightweight();
            sync::enter(header(&o));
            held.store(true, Ordering::Relaxed);
            // Held until the waiter's spin gave up and it inflated the
            // object (bounded: a broken spin that never gives up fails).
            let t = Instant::now();
            while o.header.lock_state() != LockState::Inflated {
                assert!(
                    t.elapsed() < Duration::from_secs(300),
                    "the waiter never inflated"
                );
                thread::sleep(Duration::from_micros(200));
            }
            // Long enough for the waiter to park on the monitor.
            thread::sleep(Duration::from_millis(20));
            bump(&o);
            sync::exit(header(&o)).unwrap();
        })
    };
    while !held.load(Ordering::Relaxed) {
        std::hint::spin_loop();
    }
    let (s0, spins0) = (sync::thread_stats(), fast_lock_spin_stats());
    sync::enter(header(&o));
    bump(&o);
    sync::exit(header(&o)).unwrap();
    holder.join().unwrap();
    let caused = sync::thread_stats().since(&s0);
    let spins = fast_lock_spin_stats().since(&spins0);
    println!(
        "waiter: inflations {caused:?}; spins won {} gave up {}",
        spins.acquired, spins.gave_up
    );
    assert_eq!(o.count.load(Ordering::Relaxed), 2, "both updates counted");
    assert_eq!(
        caused.inflations_by(sync::InflateCause::Contention),
        1,
        "the waiter inflated the held object once"
    );
    assert!(spins.gave_up >= 1, "the waiter's spin gave up first");
    if on_exit {
        // The waiter's exit left the contention monitor idle and deflated
        // it: the object is thin again.
        assert_eq!(o.header.lock_state(), LockState::Unlocked);
    } else {
        assert_eq!(o.header.lock_state(), LockState::Inflated, "kept until a pass");
    }
    println!(
        "deflation on exit {on_exit}: the object ended {:?}",
        o.header.lock_state()
    );
}

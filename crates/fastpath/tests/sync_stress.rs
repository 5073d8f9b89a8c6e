//! jcstress-style stress tests of `fastpath::sync`, each bounded in time
//! (about a second in a debug build; the timeout and interrupt race runs on
//! until both races happened, under a hard cap) and printing how many
//! operations it checked. Run with `--nocapture` to see the counts.
//!
//! Orderings: every `stop` flag and side counter here is Relaxed. A flag only
//! ends a loop (it publishes nothing), and counters are read after the
//! threads are joined, which synchronizes, or before only to decide when to
//! stop; what a test checks is protected by the lock under test, never by
//! these atomics.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use fastpath::sync::{self, Synchronized};

mod sync_workloads;
use sync_workloads::{bump, header, Obj};

const BUDGET: Duration = Duration::from_millis(800);

/// The longest a test that runs until something happened may run.
const RACES_CAP: Duration = Duration::from_secs(300);

/// SynchronizedMutexTest: two actors increment a pair inside the lock and
/// check it is consistent; only serial outcomes are allowed.
#[test]
fn stress_mutual_exclusion() {
    let pair = Arc::pin(Synchronized::new((0u64, 0u64)));
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (p, stop) = (pair.clone(), stop.clone());
            thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let mut g = p.as_ref().lock().unwrap();
                    let (a, b) = *g;
                    assert_eq!(a, b, "a non-serial outcome");
                    *g = (a + 1, b + 1);
                    n += 1;
                }
                n
            })
        })
        .collect();
    thread::sleep(BUDGET);
    stop.store(true, Ordering::Relaxed);
    let total: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    let g = pair.as_ref().lock().unwrap();
    assert_eq!(*g, (total, total));
    println!(
        "mutual exclusion: {total} critical sections checked, stats {:?}",
        sync::stats()
    );
}

/// A 10-thread wait/notify latch (a bounded buffer of capacity 4 between 5
/// producers and 5 consumers): every item is produced and consumed exactly
/// once, every wait/notify exchange is exact.
#[test]
fn stress_wait_notify_latch() {
    sync_workloads::wait_notify_latch();
}

/// Random-depth nested locking: chains of up to 20 objects locked in a
/// fixed order with random recursion (1..=3) at each level; exact counts.
#[test]
fn stress_nested_random_depth() {
    sync_workloads::nested_random_depth(3, 3, BUDGET);
}

/// Interleaved [A, B, A] (and unstructured exits) racing plain lockers.
#[test]
fn stress_interleaved_aba() {
    let a = Obj::new();
    let b = Obj::new();
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for kind in 0..3 {
        let (a, b, stop) = (a.clone(), b.clone(), stop.clone());
        threads.push(thread::spawn(move || {
            let (mut na, mut nb) = (0u64, 0u64);
            while !stop.load(Ordering::Relaxed) {
                match kind {
                    0 => {
                        // [A, B, A], exits in order
                        sync::enter(header(&a));
                        sync::enter(header(&b));
                        sync::enter(header(&a));
                        bump(&a);
                        bump(&b);
                        sync::exit(header(&a)).unwrap();
                        sync::exit(header(&b)).unwrap();
                        sync::exit(header(&a)).unwrap();
                    }
                    1 => {
                        // unstructured: enter A, B; exit A, B
                        sync::enter(header(&a));
                        sync::enter(header(&b));
                        bump(&a);
                        bump(&b);
                        sync::exit(header(&a)).unwrap();
                        sync::exit(header(&b)).unwrap();
                    }
                    _ => {
                        let g = sync::lock(header(&b));
                        bump(&b);
                        drop(g);
                        let g = sync::lock(header(&a));
                        bump(&a);
                        drop(g);
                    }
                }
                na += 1;
                nb += 1;
            }
            (na, nb)
        }));
    }
    thread::sleep(BUDGET);
    stop.store(true, Ordering::Relaxed);
    let (mut na, mut nb) = (0, 0);
    for t in threads {
        let (x, y) = t.join().unwrap();
        na += x;
        nb += y;
    }
    assert_eq!(a.count.load(Ordering::Relaxed), na);
    assert_eq!(b.count.load(Ordering::Relaxed), nb);
    println!("interleaved [A,B,A]: {} rounds, stats {:?}", na, sync::stats());
}

/// Identity-hash installation racing locking on fresh objects: every thread
/// sees the same hash, and the lock still excludes.
#[test]
fn stress_hash_racing_locking() {
    let start = Instant::now();
    let mut rounds = 0u64;
    while start.elapsed() < BUDGET {
        let o = Obj::new();
        let go = Arc::new(Barrier::new(3));
        let threads: Vec<_> = (0..3)
            .map(|i| {
                let (o, go) = (o.clone(), go.clone());
                thread::spawn(move || {
                    go.wait();
                    let mut hashes = Vec::new();
                    for _ in 0..50 {
                        if i == 0 {
                            hashes.push(sync::identity_hash(&header(&o)));
                        }
                        let g = sync::lock(header(&o));
                        bump(&o);
                        if i == 1 {
                            hashes.push(sync::identity_hash(&header(&o)));
                        }
                        drop(g);
                    }
                    hashes
                })
            })
            .collect();
        let all: Vec<u32> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
        let h = sync::identity_hash(&header(&o));
        assert!(all.iter().all(|&x| x == h), "hash changed");
        assert_eq!(o.count.load(Ordering::Relaxed), 150);
        rounds += 1;
    }
    println!("hash racing locking: {rounds} objects, 150 locked increments and 100 hash reads each");
}

/// A raw-API holder exits while others wait on its locks: they all proceed.
#[test]
fn stress_thread_exit_while_holding() {
    let start = Instant::now();
    let mut rounds = 0;
    while start.elapsed() < Duration::from_millis(300) {
        let o = Obj::new();
        let held = Arc::new(Barrier::new(2));
        let (o2, h2) = (o.clone(), held.clone());
        let holder = thread::spawn(move || {
            sync::enter(header(&o2));
            sync::enter(header(&o2));
            h2.wait();
        });
        held.wait();
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let o = o.clone();
                thread::spawn(move || {
                    let g = sync::lock(header(&o));
                    bump(&o);
                    drop(g);
                })
            })
            .collect();
        holder.join().unwrap();
        for w in waiters {
            w.join().unwrap();
        }
        assert_eq!(o.count.load(Ordering::Relaxed), 2);
        rounds += 1;
    }
    println!("thread exit while holding: {rounds} rounds, none stranded");
}

/// Timed waits racing notify and interrupt: every notification that moved
/// a waiter is reported as exactly one `Ok` (none lost to a waiter that
/// timed out or was interrupted at the same moment, no spurious `Ok`).
#[test]
fn stress_timeouts_and_interrupts_race_notify() {
    let obj = Arc::pin(Synchronized::new(()));
    let stop = Arc::new(AtomicBool::new(false));
    let moved = Arc::new(AtomicU64::new(0));
    let seen_timeouts = Arc::new(AtomicU64::new(0));
    let seen_interrupts = Arc::new(AtomicU64::new(0));
    let (tx, rx) = std::sync::mpsc::channel();
    let waiters: Vec<_> = (0..4u64)
        .map(|i| {
            let (o, stop, tx) = (obj.clone(), stop.clone(), tx.clone());
            let (seen_to, seen_int) = (seen_timeouts.clone(), seen_interrupts.clone());
            thread::spawn(move || {
                tx.send(sync::current_sync_thread()).unwrap();
                let (mut ok, mut timed_out, mut interrupted) = (0u64, 0u64, 0u64);
                while !stop.load(Ordering::Relaxed) {
                    let mut g = o.as_ref().lock().unwrap();
                    let timeout = Duration::from_micros(50 + 100 * i);
                    match g.wait(Some(timeout)) {
                        Ok(()) => ok += 1,
                        Err(sync::SyncError::TimedOut) => {
                            timed_out += 1;
                            seen_to.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(sync::SyncError::Interrupted) => {
                            interrupted += 1;
                            seen_int.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => panic!("{e:?}"),
                    }
                }
                // A notification may have left the status pending.
                let _ = sync::interrupted();
                (ok, timed_out, interrupted)
            })
        })
        .collect();
    drop(tx);
    let handles: Vec<sync::SyncThread> = rx.iter().take(4).collect();
    let notifier = {
        let (o, stop, moved) = (obj.clone(), stop.clone(), moved.clone());
        thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let g = o.as_ref().lock().unwrap();
                let m = if n % 7 == 0 { g.notify_all() } else { g.notify() }.unwrap();
                moved.fetch_add(m as u64, Ordering::Relaxed);
                drop(g);
                n += 1;
                if n % 64 == 0 {
                    // A quiet spell, so that waits also time out.
                    thread::sleep(Duration::from_millis(1));
                } else {
                    thread::yield_now();
                }
            }
        })
    };
    let interrupter = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut k = 0;
            while !stop.load(Ordering::Relaxed) {
                sync::interrupt(&handles[k % handles.len()]);
                k += 1;
                thread::sleep(Duration::from_micros(200));
            }
        })
    };
    // For the budget, and past it until both races happened (a loaded
    // machine or an emulator can keep the interrupter or the notifier's
    // quiet spells off the CPU for all of it), under a generous cap.
    let began = Instant::now();
    thread::sleep(BUDGET);
    while (seen_timeouts.load(Ordering::Relaxed) == 0 || seen_interrupts.load(Ordering::Relaxed) == 0)
        && began.elapsed() < RACES_CAP
    {
        thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, Ordering::Relaxed);
    notifier.join().unwrap();
    interrupter.join().unwrap();
    let (mut ok, mut to, mut int) = (0, 0, 0);
    for w in waiters {
        let (a, b, c) = w.join().unwrap();
        ok += a;
        to += b;
        int += c;
    }
    assert_eq!(
        ok,
        moved.load(Ordering::Relaxed),
        "each moved waiter reports Ok exactly once"
    );
    assert!(
        to > 0 && int > 0,
        "both races exercised: {to} timeouts, {int} interrupts"
    );
    println!(
        "timeouts/interrupts vs notify: {} waits ({ok} notified, {to} timed out, {int} interrupted)",
        ok + to + int
    );
}

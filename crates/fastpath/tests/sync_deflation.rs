//! Async monitor deflation, through the public API, in a process of its
//! own (the deflation policy is process-wide): idle monitors go back to
//! their headers, busy ones never do, and HotSpot's WaitNotify latch and
//! RandomDepthTest keep exact counts with a deflation pass every
//! millisecond, and monitor churn (young monitors freed lock-free, stolen by
//! other threads' drops, adopted by passes and thread exits) leaks nothing.
//! Each test is bounded in time and prints what it checked.

use std::pin::{pin, Pin};
use std::sync::{mpsc, Arc, Barrier, Once, RwLock, RwLockReadGuard};
use std::thread;
use std::time::{Duration, Instant};

use fastpath::sync::LockingMode;
use fastpath::sync::{self, DeflationPolicy, Header, LockState, SyncError, Synchronized};

mod sync_workloads;

/// The longest a loop of explicit deflation passes may take to deflate an
/// idle monitor (a pass by the deflation thread or a parallel test may hold
/// it up; a loaded machine or an emulator can stall any of them): past it
/// the test fails.
const DEFLATION_CAP: Duration = Duration::from_secs(300);

/// Tests run in parallel; the one that counts every live monitor of the
/// process runs alone (it takes this for writing, the others for reading).
static COUNTING: RwLock<()> = RwLock::new(());

fn not_counting() -> RwLockReadGuard<'static, ()> {
    COUNTING.read().unwrap_or_else(|e| e.into_inner())
}

/// A pass every millisecond, whatever the number of monitors.
fn extreme_deflation() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        sync::set_deflation_policy(DeflationPolicy {
            enabled: true,
            interval: Duration::from_millis(1),
            guaranteed_interval: Duration::ZERO,
            used_threshold_percent: 0,
            monitors_per_thread: 1024,
        });
    });
}

#[test]
fn an_idle_monitor_deflates_and_the_object_fast_locks_again() {
    let _serial = not_counting();
    sync::set_current_thread_locking_mode(LockingMode::Lightweight).unwrap();
    let s0 = sync::stats();
    let h = pin!(Header::with_spare_bits(0b1000_0100 | (1 << 45)));
    let hash = sync::identity_hash(&h);
    {
        let g = sync::lock(h.as_ref());
        assert_eq!(g.wait(Some(Duration::ZERO)), Err(SyncError::TimedOut)); // inflates
        assert!(h.is_inflated());
    }
    // Another deflater (the thread, or a parallel test's pass) may get
    // there first; either way the monitor goes.
    let start = Instant::now();
    while h.is_inflated() {
        sync::deflate_idle_monitors();
        assert!(start.elapsed() < DEFLATION_CAP, "never deflated");
    }
    assert_eq!(h.lock_state(), LockState::Unlocked);
    assert_eq!(
        sync::identity_hash(&h),
        hash,
        "the hash came back with the header"
    );
    assert_eq!(h.spare_bits(), 0b1000_0100 | (1 << 45));
    {
        let _g = sync::lock(h.as_ref());
        assert_eq!(h.lock_state(), LockState::FastLocked, "fast-locked again");
    }
    // A pass counts what it deflated when it ends: the pass that took this
    // monitor may be another deflater's, still running. Ours count too.
    let start = Instant::now();
    let mut d = sync::stats().since(&s0);
    while !(d.monitors_deflated >= 1 && d.deflation_passes >= 1) {
        assert!(start.elapsed() < DEFLATION_CAP, "deflated, never counted: {d:?}");
        sync::deflate_idle_monitors();
        std::thread::sleep(Duration::from_millis(1));
        d = sync::stats().since(&s0);
    }
    println!(
        "deflation: {} monitors in {} passes, {:?} in passes",
        d.monitors_deflated,
        d.deflation_passes,
        Duration::from_nanos(d.deflation_nanos)
    );
}

#[test]
fn legacy_and_monitor_mode_objects_deflate_too() {
    let _serial = not_counting();
    for mode in [LockingMode::Legacy, LockingMode::Monitor] {
        let (h, hash) = thread::spawn(move || {
            sync::set_current_thread_locking_mode(mode).unwrap();
            let h = Arc::pin(Header::new());
            let g = sync::lock(h.as_ref());
            let _g2 = sync::lock(h.as_ref());
            let hash = sync::identity_hash(&h);
            assert_eq!(g.wait(Some(Duration::ZERO)), Err(SyncError::TimedOut));
            (h.clone(), hash)
        })
        .join()
        .unwrap();
        let start = Instant::now();
        while h.is_inflated() {
            sync::deflate_idle_monitors();
            assert!(start.elapsed() < DEFLATION_CAP, "{mode:?}: never deflated");
        }
        assert_eq!(h.lock_state(), LockState::Unlocked, "{mode:?}");
        assert_eq!(sync::identity_hash(&h), hash, "{mode:?}");
    }
}

/// An owned monitor, one with a waiter and one with a queued contender
/// survive any number of passes, and keep working.
#[test]
fn busy_monitors_are_never_deflated() {
    let _serial = not_counting();
    extreme_deflation();
    let owned = Arc::pin(Header::new());
    let waited = Arc::pin(Synchronized::new(false));
    let (o2, w2) = (owned.clone(), waited.clone());
    let ready = Arc::new(Barrier::new(3));
    let (r1, r2) = (ready.clone(), ready.clone());
    let waiter = thread::spawn(move || {
        let mut g = w2.as_ref().lock().unwrap();
        r1.wait();
        g.wait_while(|go| !*go, Some(Duration::from_secs(300))).unwrap();
    });
    let g = sync::lock(owned.as_ref());
    assert_eq!(g.wait(Some(Duration::ZERO)), Err(SyncError::TimedOut)); // inflate
    let contender = thread::spawn(move || {
        r2.wait();
        let _g = sync::lock(o2.as_ref()); // queues behind us
    });
    ready.wait();
    let mut passes = 0;
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(100) {
        sync::deflate_idle_monitors();
        passes += 1;
        assert!(owned.is_inflated() && sync::holds_lock(&owned));
    }
    drop(g);
    contender.join().unwrap();
    {
        let mut go = waited.as_ref().lock().unwrap();
        *go = true;
        go.notify_all().unwrap();
    }
    waiter.join().unwrap();
    println!("busy monitors: survived {passes} explicit passes (and the 1 ms thread)");
}

/// HotSpot's WaitNotify latch (10 threads x 10 000) with a pass every ms.
#[test]
fn wait_notify_latch_under_extreme_deflation() {
    let _serial = not_counting();
    extreme_deflation();
    let s0 = sync::stats();
    let n = sync_workloads::wait_notify_latch();
    let d = sync::stats().since(&s0);
    println!(
        "latch under deflation: {n} hand-offs; {} passes deflated {} monitors meanwhile",
        d.deflation_passes, d.monitors_deflated
    );
}

/// RandomDepthTest (20-deep chains, recursion up to 10, 10 threads) with a
/// pass every ms.
#[test]
fn random_depth_under_extreme_deflation() {
    let _serial = not_counting();
    extreme_deflation();
    let s0 = sync::stats();
    let ops = sync_workloads::nested_random_depth(10, 10, Duration::from_millis(800));
    let d = sync::stats().since(&s0);
    assert!(d.deflation_passes > 0, "the deflation thread ran");
    println!(
        "random depth under deflation: {ops} pairs; {} passes deflated {} monitors meanwhile",
        d.deflation_passes, d.monitors_deflated
    );
}

/// Objects of all three modes under extreme deflation: inflate, deflate,
/// fast-lock again, over and over; hash stable.
#[test]
fn mixed_modes_churn_under_extreme_deflation() {
    let _serial = not_counting();
    extreme_deflation();
    let objs: Arc<Vec<Pin<Box<Synchronized<u64>>>>> =
        Arc::new((0..4).map(|_| Box::pin(Synchronized::new(0))).collect());
    let hashes: Vec<u32> = objs.iter().map(|o| sync::identity_hash(o.header())).collect();
    let workers: Vec<_> = [
        LockingMode::Legacy,
        LockingMode::Lightweight,
        LockingMode::Monitor,
    ]
    .into_iter()
    .flat_map(|m| [m, m])
    .map(|mode| {
        let objs = objs.clone();
        thread::spawn(move || {
            sync::set_current_thread_locking_mode(mode).unwrap();
            let start = Instant::now();
            let mut n = 0u64;
            while start.elapsed() < Duration::from_millis(400) {
                let mut g = objs[n as usize % 4].as_ref().lock().unwrap();
                *g += 1;
                if n % 64 == 0 {
                    let _ = g.wait(Some(Duration::ZERO)); // inflate now and then
                }
                n += 1;
            }
            n
        })
    })
    .collect();
    let total: u64 = workers.into_iter().map(|t| t.join().unwrap()).sum();
    let counted: u64 = objs.iter().map(|o| *o.as_ref().lock().unwrap()).sum();
    assert_eq!(counted, total);
    for (o, h) in objs.iter().zip(hashes) {
        assert_eq!(sync::identity_hash(o.header()), h);
    }
    println!("mixed-mode churn under deflation: {total} critical sections, exact");
}

/// Monitor churn as the lab's `monitor-churn` row does it (a fresh object
/// per lock in monitor mode), on 4 threads, with every way a young monitor
/// can end: dropped by its thread (the lock-free path), sent to another
/// thread and dropped there (stolen from the slot), kept alive while newer
/// ones are installed (moved into the set) and deflated by a pass every
/// millisecond, or left behind by a thread that exits (adopted). At the end
/// every monitor is freed or deflated: the process's live count is back
/// where it started, and every kept object's count is exact.
#[test]
fn monitor_churn_frees_every_monitor_under_extreme_deflation() {
    let _alone = COUNTING.write().unwrap_or_else(|e| e.into_inner());
    extreme_deflation();
    sync::deflate_idle_monitors();
    let before = sync::live_monitors();
    const THREADS: usize = 4;
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..THREADS)
        .map(|_| mpsc::channel::<Pin<Box<Synchronized<u64>>>>())
        .unzip();
    let workers: Vec<_> = receivers
        .into_iter()
        .enumerate()
        .map(|(i, inbox)| {
            let next = senders[(i + 1) % THREADS].clone();
            thread::spawn(move || {
                sync::set_current_thread_locking_mode(LockingMode::Monitor).unwrap();
                let start = Instant::now();
                let mut kept: Vec<Pin<Box<Synchronized<u64>>>> = Vec::new();
                let (mut churned, mut sent, mut locks) = (0u64, 0u64, 0u64);
                while start.elapsed() < Duration::from_millis(300) {
                    let o = Box::pin(Synchronized::new(0u64));
                    *o.as_ref().lock().unwrap() += 1;
                    locks += 1;
                    match churned % 8 {
                        0 => {
                            if next.send(o).is_ok() {
                                sent += 1;
                            }
                        }
                        1 => kept.push(o),
                        _ => drop(o),
                    }
                    if kept.len() > 16 {
                        // Relock the oldest (maybe deflated since), then drop it.
                        let old = kept.remove(0);
                        *old.as_ref().lock().unwrap() += 1;
                        locks += 1;
                        assert_eq!(*old.as_ref().lock().unwrap(), 2);
                    }
                    while let Ok(o) = inbox.try_recv() {
                        assert_eq!(*o.as_ref().lock().unwrap(), 1);
                        drop(o);
                    }
                    churned += 1;
                }
                // Exits with its last young monitor possibly on an object
                // still in a channel or in `kept`, which the main thread
                // drops after the join.
                (churned, sent, locks, kept, inbox)
            })
        })
        .collect();
    drop(senders);
    let (mut churned, mut sent, mut locks) = (0, 0, 0);
    let mut leftovers = Vec::new();
    for w in workers {
        let (c, s, l, kept, inbox) = w.join().unwrap();
        churned += c;
        sent += s;
        locks += l;
        for o in kept.into_iter().chain(inbox.try_iter()) {
            assert!(*o.as_ref().lock().unwrap() >= 1);
            leftovers.push(o);
        }
    }
    drop(leftovers);
    let report = sync::deflate_idle_monitors();
    let after = sync::live_monitors();
    println!(
        "monitor churn: {churned} objects on {THREADS} threads ({sent} dropped by another thread), {locks} locks; \
         live monitors {before} before, {after} after (last pass deflated {})",
        report.deflated
    );
    assert!(churned > 0 && sent > 0);
    assert_eq!(after, before, "every churned monitor was freed or deflated");
}

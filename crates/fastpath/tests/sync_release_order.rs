//! Nested locks released in orders the JVM never produces (its frames keep
//! monitors balanced) but the API allows: guards dropped in any order, lock
//! records exited out of order, guards mixed with the raw `enter`/`exit`.
//! Every locking mode must give the same answers to `holds_lock`, `exit`
//! and another thread's `try_lock` after every single release.
//!
//! Each scenario runs once on a thread per locking mode (lightweight,
//! legacy, monitor), so one run covers all three; the stress test at the
//! end runs its threads in the mode `FASTPATH_LOCKING_MODE` selects (CI runs
//! this file under each), plus once with the three modes mixed.
//!
//! Orderings: the stress test's flags and side counters are Relaxed (a flag
//! only ends a loop; totals are read after the joins); what it checks is
//! protected by the locks under test.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use fastpath::sync::LockingMode;
use fastpath::sync::{
    self, current_thread_locking_mode, enter_with_record, exit_with_record, holds_lock, Header, HeaderGuard,
    LockRecord, SyncError,
};
use fastpath::thread::LOCK_STACK_CAPACITY;

const MODES: [LockingMode; 3] = [
    LockingMode::Lightweight,
    LockingMode::Legacy,
    LockingMode::Monitor,
];

/// Runs `f` on a fresh thread in each locking mode, one after the other.
fn in_every_mode(f: impl Fn() + Sync) {
    for mode in MODES {
        thread::scope(|s| {
            let f = &f;
            s.spawn(move || {
                sync::set_current_thread_locking_mode(mode).unwrap();
                f();
            })
            .join()
            .unwrap_or_else(|_| panic!("failed in {mode:?} mode"));
        });
    }
}

/// A small deterministic generator (xorshift64*), so that a failing seed
/// can be replayed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

fn objects(n: usize) -> Vec<Pin<Box<Header>>> {
    (0..n).map(|_| Box::pin(Header::new())).collect()
}

/// Another thread, in the caller's locking mode, that answers "can you
/// take object `i` right now?" with one `try_lock` (released at once).
struct Prober {
    ask: mpsc::Sender<usize>,
    answer: mpsc::Receiver<bool>,
}

impl Prober {
    fn can_lock(&self, i: usize) -> bool {
        self.ask.send(i).unwrap();
        self.answer.recv().unwrap()
    }
}

fn with_prober<R>(objs: &[Pin<Box<Header>>], f: impl FnOnce(&Prober) -> R) -> R {
    let mode = current_thread_locking_mode();
    thread::scope(|s| {
        let (ask, asked) = mpsc::channel::<usize>();
        let (answered, answer) = mpsc::channel::<bool>();
        s.spawn(move || {
            sync::set_current_thread_locking_mode(mode).unwrap();
            for i in asked {
                let got = sync::try_lock(objs[i].as_ref()).is_some();
                answered.send(got).unwrap();
            }
        });
        f(&Prober { ask, answer })
    })
}

/// How one level of an object is held.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Guard,
    Raw,
    Record,
}

/// One level held by the current thread.
struct Level<'a> {
    obj: Pin<&'a Header>,
    guard: Option<HeaderGuard<'a>>,
    /// The record of a level taken with one; `None` for the other kinds.
    record: Option<Pin<Box<LockRecord>>>,
    raw: bool,
}

impl<'a> Level<'a> {
    fn take(obj: Pin<&'a Header>, kind: Kind) -> Level<'a> {
        let mut level = Level {
            obj,
            guard: None,
            record: None,
            raw: false,
        };
        match kind {
            Kind::Guard => level.guard = Some(sync::lock(obj)),
            Kind::Raw => {
                sync::enter(obj);
                level.raw = true;
            }
            Kind::Record => {
                let rec = Box::pin(LockRecord::new());
                enter_with_record(obj, rec.as_ref()).unwrap();
                level.record = Some(rec);
            }
        }
        level
    }

    fn release(mut self) {
        drop(self.guard.take());
        if core::mem::take(&mut self.raw) {
            sync::exit(self.obj).unwrap();
        }
        if let Some(rec) = self.record.take() {
            exit_with_record(self.obj, rec.as_ref()).unwrap();
            assert!(!rec.is_in_use());
        }
    }
}

impl Drop for Level<'_> {
    fn drop(&mut self) {
        // Only a failed test leaves a record in use: leak it rather than
        // abort (a record dropped in use aborts), so the failure is reported.
        if let Some(rec) = self.record.take() {
            if rec.is_in_use() {
                core::mem::forget(rec);
            }
        }
    }
}

/// After any step: this thread holds exactly the objects with a level left,
/// and another thread can take exactly the others.
fn check(objs: &[Pin<Box<Header>>], levels: &[usize], prober: &Prober, what: &dyn Fn() -> String) {
    for (i, &n) in levels.iter().enumerate() {
        assert_eq!(
            holds_lock(&objs[i]),
            n > 0,
            "holds_lock of object {i} ({n} levels left) {}",
            what()
        );
        assert_eq!(
            prober.can_lock(i),
            n == 0,
            "another thread's try_lock of object {i} ({n} levels left) {}",
            what()
        );
    }
}

/// Takes one level of `objs[seq[k]]` per `k` (how: `kinds[k]`), releases
/// them in `order` (indices into `seq`), and checks after every step.
fn take_and_release(
    objs: &[Pin<Box<Header>>],
    seq: &[usize],
    kinds: &[Kind],
    order: &[usize],
    prober: &Prober,
) {
    let what = || format!("taking {seq:?} as {kinds:?}, releasing {order:?}");
    let mut levels = vec![0; objs.len()];
    let mut held: Vec<Option<Level<'_>>> = Vec::new();
    for (&i, &kind) in seq.iter().zip(kinds) {
        held.push(Some(Level::take(objs[i].as_ref(), kind)));
        levels[i] += 1;
    }
    check(objs, &levels, prober, &|| format!("after the enters, {}", what()));
    for (step, &k) in order.iter().enumerate() {
        held[k].take().expect("each level is released once").release();
        levels[seq[k]] -= 1;
        check(objs, &levels, prober, &|| {
            format!("after release {step} (level {k}), {}", what())
        });
    }
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn go(prefix: &mut Vec<usize>, rest: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if rest.is_empty() {
            out.push(prefix.clone());
            return;
        }
        for i in 0..rest.len() {
            let x = rest.remove(i);
            prefix.push(x);
            go(prefix, rest, out);
            prefix.pop();
            rest.insert(i, x);
        }
    }
    let mut out = Vec::new();
    go(&mut Vec::new(), &mut (0..n).collect(), &mut out);
    out
}

#[test]
fn three_guards_on_one_object_released_outermost_first() {
    in_every_mode(|| {
        let objs = objects(1);
        with_prober(&objs, |p| {
            let a = objs[0].as_ref();
            let g1 = sync::lock(a);
            let g2 = sync::lock(a);
            let g3 = sync::lock(a);
            drop(g1);
            assert!(holds_lock(&a), "two levels are still held");
            assert!(!p.can_lock(0), "mutual exclusion with two levels held");
            drop(g3);
            assert!(holds_lock(&a));
            assert!(!p.can_lock(0));
            drop(g2);
            assert!(!holds_lock(&a));
            assert!(p.can_lock(0));
            assert_eq!(sync::exit(a), Err(SyncError::IllegalMonitorState));
        });
    });
}

/// `[A A A B C C]`, every one of the 720 release orders, with guards and
/// with lock records.
#[test]
fn a_a_a_b_c_c_released_in_every_order() {
    in_every_mode(|| {
        let objs = objects(3);
        let seq = [0, 0, 0, 1, 2, 2];
        with_prober(&objs, |p| {
            for kind in [Kind::Guard, Kind::Record] {
                for order in permutations(seq.len()) {
                    take_and_release(&objs, &seq, &[kind; 6], &order, p);
                }
            }
        });
    });
}

/// `[A B A]` (interleaved recursion), every release order, every way of
/// taking each level.
#[test]
fn interleaved_a_b_a_released_in_every_order() {
    in_every_mode(|| {
        let objs = objects(2);
        let seq = [0, 1, 0];
        let all = [Kind::Guard, Kind::Raw, Kind::Record];
        with_prober(&objs, |p| {
            for k0 in all {
                for k1 in all {
                    for k2 in all {
                        for order in permutations(3) {
                            take_and_release(&objs, &seq, &[k0, k1, k2], &order, p);
                        }
                    }
                }
            }
        });
    });
}

/// One object nested 2 to 64 deep, its levels released alternately from
/// the outside and from the inside.
#[test]
fn one_object_nested_deep_released_alternately_outside_and_inside() {
    in_every_mode(|| {
        let objs = objects(1);
        with_prober(&objs, |p| {
            for kind in [Kind::Guard, Kind::Record] {
                for depth in 2..=64 {
                    let (mut lo, mut hi) = (0, depth);
                    let mut order = Vec::with_capacity(depth);
                    while lo < hi {
                        order.push(lo);
                        lo += 1;
                        if lo < hi {
                            hi -= 1;
                            order.push(hi);
                        }
                    }
                    take_and_release(&objs, &vec![0; depth], &vec![kind; depth], &order, p);
                }
            }
        });
    });
}

/// More nested locks than the lock-stack holds, on objects that repeat,
/// each level taken at random by a guard, the raw API or a record, and
/// released in a random order.
#[test]
fn more_levels_than_the_lock_stack_released_at_random() {
    in_every_mode(|| {
        let objs = objects(LOCK_STACK_CAPACITY + 4);
        let kinds = [Kind::Guard, Kind::Raw, Kind::Record];
        with_prober(&objs, |p| {
            for seed in 0..40 {
                let mut rng = Rng::new(seed);
                let n = 3 * LOCK_STACK_CAPACITY;
                let seq: Vec<usize> = (0..n).map(|_| rng.below(objs.len())).collect();
                let how: Vec<Kind> = (0..n).map(|_| kinds[rng.below(3)]).collect();
                let mut order: Vec<usize> = (0..n).collect();
                rng.shuffle(&mut order);
                take_and_release(&objs, &seq, &how, &order, p);
            }
        });
    });
}

/// A raw `exit` releases a level a guard took; the guard's later drop
/// finds nothing to release and leaves the object alone.
#[test]
fn a_raw_exit_releases_a_guards_level() {
    in_every_mode(|| {
        let objs = objects(1);
        with_prober(&objs, |p| {
            let a = objs[0].as_ref();

            let g = sync::lock(a);
            assert_eq!(sync::exit(a), Ok(()), "the guard's level is released");
            assert!(!holds_lock(&a));
            assert!(p.can_lock(0));
            assert_eq!(sync::exit(a), Err(SyncError::IllegalMonitorState));
            drop(g); // nothing left to release
            assert!(!holds_lock(&a));
            assert!(p.can_lock(0));

            // Two guards, three raw exits: two succeed, the third fails.
            let g1 = sync::lock(a);
            let g2 = sync::lock(a);
            assert_eq!(sync::exit(a), Ok(()));
            assert!(holds_lock(&a));
            assert!(!p.can_lock(0));
            assert_eq!(sync::exit(a), Ok(()));
            assert!(!holds_lock(&a));
            assert!(p.can_lock(0));
            assert_eq!(sync::exit(a), Err(SyncError::IllegalMonitorState));
            drop(g1);
            drop(g2);
            assert!(!holds_lock(&a));
            assert!(p.can_lock(0));

            // The object taken again after the raw exit: a guard's level is
            // any level, so the first guard's drop releases the one the
            // second took, and the second's drop finds nothing.
            let first = sync::lock(a);
            assert_eq!(sync::exit(a), Ok(()));
            let second = sync::lock(a);
            let raw_level = {
                sync::enter(a);
                a
            };
            drop(first);
            assert!(holds_lock(&a), "one level is left");
            assert!(!p.can_lock(0));
            drop(second);
            assert!(!holds_lock(&a));
            assert!(p.can_lock(0));
            assert_eq!(sync::exit(raw_level), Err(SyncError::IllegalMonitorState));

            // A raw level inside a guard's, and a guard's inside a raw one,
            // released in both orders.
            let g = sync::lock(a);
            sync::enter(a);
            drop(g);
            assert!(holds_lock(&a));
            assert!(!p.can_lock(0));
            assert_eq!(sync::exit(a), Ok(()));
            assert!(!holds_lock(&a));
            sync::enter(a);
            let g = sync::lock(a);
            assert_eq!(sync::exit(a), Ok(()));
            assert!(holds_lock(&a));
            assert!(!p.can_lock(0));
            drop(g);
            assert!(!holds_lock(&a));
            assert!(p.can_lock(0));
        });
    });
}

/// Records exited out of order, and a record exited twice.
#[test]
fn records_exited_out_of_order() {
    in_every_mode(|| {
        let objs = objects(2);
        with_prober(&objs, |p| {
            let (a, b) = (objs[0].as_ref(), objs[1].as_ref());
            let r: Vec<Pin<Box<LockRecord>>> = (0..4).map(|_| Box::pin(LockRecord::new())).collect();
            enter_with_record(a, r[0].as_ref()).unwrap();
            enter_with_record(b, r[1].as_ref()).unwrap();
            enter_with_record(a, r[2].as_ref()).unwrap();
            enter_with_record(a, r[3].as_ref()).unwrap();
            exit_with_record(a, r[0].as_ref()).unwrap();
            assert!(!r[0].is_in_use());
            assert_eq!(
                exit_with_record(a, r[0].as_ref()),
                Err(SyncError::IllegalMonitorState),
                "a record released once holds nothing"
            );
            assert!(holds_lock(&a));
            assert!(!p.can_lock(0));
            exit_with_record(b, r[1].as_ref()).unwrap();
            assert!(!holds_lock(&b));
            assert!(p.can_lock(1));
            assert_eq!(
                exit_with_record(b, r[2].as_ref()),
                Err(SyncError::IllegalMonitorState)
            );
            exit_with_record(a, r[2].as_ref()).unwrap();
            assert!(holds_lock(&a));
            assert!(!p.can_lock(0));
            // The record that released the object's first level takes a new
            // one while the last of the old ones is still held.
            enter_with_record(a, r[0].as_ref()).unwrap();
            exit_with_record(a, r[3].as_ref()).unwrap();
            assert!(holds_lock(&a));
            assert!(!p.can_lock(0));
            exit_with_record(a, r[0].as_ref()).unwrap();
            assert!(!holds_lock(&a));
            assert!(p.can_lock(0));
        });
    });
}

/// `wait` on an object whose outer level was released first: every level
/// left is released while waiting and restored after.
#[test]
fn wait_after_an_out_of_order_release_restores_the_levels_left() {
    in_every_mode(|| {
        let objs = objects(1);
        with_prober(&objs, |p| {
            let a = objs[0].as_ref();
            let g1 = sync::lock(a);
            let g2 = sync::lock(a);
            let g3 = sync::lock(a);
            drop(g1);
            assert_eq!(g2.wait(Some(Duration::ZERO)), Err(SyncError::TimedOut));
            assert!(holds_lock(&a));
            assert!(!p.can_lock(0));
            drop(g2);
            assert!(holds_lock(&a));
            assert!(!p.can_lock(0));
            drop(g3);
            assert!(!holds_lock(&a));
            assert!(p.can_lock(0));
        });
    });
}

/// A contender blocks on (and, in legacy and lightweight mode, inflates)
/// an object held three levels deep whose outer level is released first:
/// it gets in only after the last level is released.
#[test]
fn a_contender_waits_for_the_last_level_after_an_out_of_order_release() {
    in_every_mode(|| {
        for kind in [Kind::Guard, Kind::Record] {
            let obj = Box::pin(Header::new());
            let released_all = AtomicBool::new(false);
            let mode = current_thread_locking_mode();
            let a = obj.as_ref();
            let mut held: Vec<Option<Level<'_>>> = (0..3).map(|_| Some(Level::take(a, kind))).collect();
            thread::scope(|s| {
                let contender = s.spawn(|| {
                    sync::set_current_thread_locking_mode(mode).unwrap();
                    let g = sync::lock(a);
                    // Relaxed: the lock orders it (set before the last
                    // release, read after acquiring).
                    let ok = released_all.load(Ordering::Relaxed);
                    drop(g);
                    ok
                });
                // Not a correctness wait: it only makes the contender's
                // inflation likely to come before the releases.
                thread::sleep(Duration::from_millis(20));
                held[0].take().unwrap().release();
                assert!(holds_lock(&a));
                held[2].take().unwrap().release();
                assert!(holds_lock(&a));
                released_all.store(true, Ordering::Relaxed);
                held[1].take().unwrap().release();
                assert!(
                    contender.join().unwrap(),
                    "{kind:?}: the contender got in before the last release"
                );
            });
            assert!(!holds_lock(&a));
        }
    });
}

/// Time budget of the stress tests (`FASTPATH_STRESS_MS` overrides).
fn budget() -> Duration {
    let ms = std::env::var("FASTPATH_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    Duration::from_millis(ms)
}

/// An object with a plain counter (load + store: two holders at once lose
/// counts).
struct Counted {
    header: Header,
    count: AtomicU64,
}

fn header(c: &Pin<Arc<[Counted]>>, i: usize) -> Pin<&Header> {
    // SAFETY: structural pinning: the slice is pinned and `header` is never
    // moved out of its `Counted`.
    unsafe { c.as_ref().map_unchecked(|s| &s[i].header) }
}

/// Several threads nest locks on shared objects at random (guards, raw,
/// records; objects repeating), bump the counter of every object they hold
/// after each acquisition and each release, and release in a random
/// order, checking `holds_lock` after every step. A lost update (two
/// holders at once) shows in the totals.
fn stress_random_nesting(modes: &[Option<LockingMode>]) {
    const OBJECTS: usize = 5;
    let objs: Arc<[Counted]> = (0..OBJECTS)
        .map(|_| Counted {
            header: Header::new(),
            count: AtomicU64::new(0),
        })
        .collect();
    // SAFETY: the slice's elements are never moved out of the `Arc`.
    let objs: Pin<Arc<[Counted]>> = unsafe { Pin::new_unchecked(objs) };
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = modes
        .iter()
        .enumerate()
        .map(|(t, &mode)| {
            let (objs, stop) = (objs.clone(), stop.clone());
            thread::spawn(move || {
                if let Some(mode) = mode {
                    sync::set_current_thread_locking_mode(mode).unwrap();
                }
                let kinds = [Kind::Guard, Kind::Raw, Kind::Record];
                let mut rng = Rng::new(0x5EED + t as u64);
                let mut bumps = [0u64; OBJECTS];
                let mut steps = 0u64;
                let mut levels = [0usize; OBJECTS];
                let bump_held = |levels: &[usize; OBJECTS], bumps: &mut [u64; OBJECTS]| {
                    for (i, &n) in levels.iter().enumerate() {
                        if n > 0 {
                            let c = &objs[i].count;
                            // Relaxed: the lock under test orders these.
                            c.store(c.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
                            bumps[i] += 1;
                        }
                    }
                };
                while !stop.load(Ordering::Relaxed) {
                    let n = 1 + rng.below(2 * LOCK_STACK_CAPACITY);
                    let mut held: Vec<(usize, Level<'_>)> = Vec::with_capacity(n);
                    // New objects in increasing index order (no deadlock);
                    // re-entering a held one never blocks, in any order.
                    let mut next_new = 0;
                    for _ in 0..n {
                        let i = if next_new < OBJECTS && (held.is_empty() || rng.below(3) == 0) {
                            next_new += rng.below(OBJECTS - next_new);
                            next_new += 1;
                            next_new - 1
                        } else {
                            held[rng.below(held.len())].0
                        };
                        held.push((i, Level::take(header(&objs, i), kinds[rng.below(3)])));
                        levels[i] += 1;
                        bump_held(&levels, &mut bumps);
                        steps += 1;
                    }
                    rng.shuffle(&mut held);
                    while let Some((i, level)) = held.pop() {
                        level.release();
                        levels[i] -= 1;
                        assert_eq!(
                            holds_lock(&header(&objs, i)),
                            levels[i] > 0,
                            "holds_lock of object {i}"
                        );
                        bump_held(&levels, &mut bumps);
                        steps += 1;
                        if rng.below(8) == 0 {
                            thread::yield_now(); // let another thread try while we hold some
                        }
                    }
                }
                (bumps, steps)
            })
        })
        .collect();
    // Idle monitors deflated again and again, so that objects keep going
    // back to stack-locks and fast-locks (whose out-of-order releases are
    // what is tested) instead of staying inflated after their first
    // contention.
    let deflater = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut passes = 0u64;
            while !stop.load(Ordering::Relaxed) {
                sync::deflate_idle_monitors();
                passes += 1;
                thread::sleep(Duration::from_millis(1));
            }
            passes
        })
    };
    let start = Instant::now();
    thread::sleep(budget());
    stop.store(true, Ordering::Relaxed);
    let passes = deflater.join().unwrap();
    let mut expected = [0u64; OBJECTS];
    let mut steps = 0;
    for t in threads {
        let (bumps, s) = t.join().unwrap();
        for (e, b) in expected.iter_mut().zip(bumps) {
            *e += b;
        }
        steps += s;
    }
    let counted: Vec<u64> = objs.iter().map(|c| c.count.load(Ordering::Relaxed)).collect();
    let lost: u64 = expected.iter().zip(&counted).map(|(e, c)| e - c.min(e)).sum();
    println!(
        "random nesting and release orders, {} threads ({modes:?}), {:?}: {steps} lock/unlock steps, \
         {} protected increments checked, {lost} lost; {passes} deflation passes; stats {:?}",
        modes.len(),
        start.elapsed(),
        expected.iter().sum::<u64>(),
        sync::stats()
    );
    assert_eq!(counted, expected, "lost updates: mutual exclusion broken");
}

/// All threads in the mode `FASTPATH_LOCKING_MODE` selects.
#[test]
fn stress_random_nesting_and_release_orders() {
    stress_random_nesting(&[None; 4]);
}

/// The three modes on the same objects at once.
#[test]
fn stress_random_nesting_and_release_orders_across_modes() {
    stress_random_nesting(&[
        Some(LockingMode::Lightweight),
        Some(LockingMode::Legacy),
        Some(LockingMode::Monitor),
        Some(LockingMode::Legacy),
    ]);
}

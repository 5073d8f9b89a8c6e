//! Workloads shared by `sync_stress.rs` and `sync_deflation.rs` (the same
//! checks, once with the default deflation policy and once with a pass
//! every millisecond).
//!
//! Orderings: as in `sync_stress.rs`, side counters and flags are Relaxed;
//! what is checked is protected by the lock under test.

#![allow(dead_code)] // each test binary uses part of it

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use fastpath::sync::{self, Header, Synchronized};

/// An object whose plain (non-RMW) counter is only correct under mutual
/// exclusion: a lost update shows up as a wrong total.
pub struct Obj {
    pub header: Header,
    pub count: AtomicU64,
}

impl Obj {
    pub fn new() -> Pin<Arc<Obj>> {
        Arc::pin(Obj {
            header: Header::new(),
            count: AtomicU64::new(0),
        })
    }
}

pub fn header(o: &Pin<Arc<Obj>>) -> Pin<&Header> {
    // SAFETY: structural pinning: `header` is never moved out of `Obj`.
    unsafe { o.as_ref().map_unchecked(|o| &o.header) }
}

pub fn bump(o: &Obj) {
    // Load + store, not fetch_add: two holders at once would lose counts.
    let v = o.count.load(Ordering::Relaxed);
    o.count.store(v + 1, Ordering::Relaxed);
}

/// HotSpot's WaitNotify latch shape: 10 threads x 10 000 operations (5
/// producers x 10 000 items, 5 consumers x 10 000 items) through a bounded
/// buffer of capacity 4. Returns the hand-offs checked.
pub fn wait_notify_latch() -> u64 {
    // 10 threads x 10 000 operations, as the issue asks (5 producers x
    // 10 000 items and 5 consumers x 10 000 items).
    const PER_THREAD: u64 = 10_000;
    const SIDE: u64 = 5;
    struct Buf {
        items: std::collections::VecDeque<u64>,
        produced: u64,
        consumed_sum: u64,
    }
    let buf = Arc::pin(Synchronized::new(Buf {
        items: Default::default(),
        produced: 0,
        consumed_sum: 0,
    }));
    let start = Instant::now();
    let mut threads = Vec::new();
    for p in 0..SIDE {
        let b = buf.clone();
        threads.push(thread::spawn(move || {
            for i in 0..PER_THREAD {
                let mut g = b.as_ref().lock().unwrap();
                g.wait_while(|b| b.items.len() >= 4, Some(Duration::from_secs(300)))
                    .unwrap();
                g.items.push_back(p * PER_THREAD + i + 1);
                g.produced += 1;
                g.notify_all().unwrap();
            }
        }));
    }
    for _ in 0..SIDE {
        let b = buf.clone();
        threads.push(thread::spawn(move || {
            for _ in 0..PER_THREAD {
                let mut g = b.as_ref().lock().unwrap();
                g.wait_while(|b| b.items.is_empty(), Some(Duration::from_secs(300)))
                    .unwrap();
                let v = g.items.pop_front().unwrap();
                g.consumed_sum += v;
                g.notify_all().unwrap();
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    let g = buf.as_ref().lock().unwrap();
    let n = SIDE * PER_THREAD;
    assert_eq!(g.produced, n);
    assert!(g.items.is_empty());
    assert_eq!(g.consumed_sum, n * (n + 1) / 2);
    println!(
        "wait/notify latch: {} hand-offs by 10 threads in {:?}",
        2 * n,
        start.elapsed()
    );
    2 * n
}

/// RandomDepthTest: `threads` threads lock chains of up to 20 objects in a
/// fixed order, each level entered 1..=`max_recursion` times, for `budget`;
/// every object's count must equal the increments made under its lock.
/// Returns the lock/unlock pairs checked.
pub fn nested_random_depth(threads: u64, max_recursion: u64, budget: Duration) -> u64 {
    const OBJS: usize = 20;
    let objs: Arc<Vec<Pin<Arc<Obj>>>> = Arc::new((0..OBJS).map(|_| Obj::new()).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..threads)
        .map(|seed| {
            let (objs, stop) = (objs.clone(), stop.clone());
            thread::spawn(move || {
                let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ (seed * 0x1234_5678_9ABC);
                let mut next = move || {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    rng
                };
                let mut mine = [0u64; OBJS];
                let mut ops = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let depth = 1 + (next() % OBJS as u64) as usize;
                    let mut held = Vec::with_capacity(depth * 3);
                    for (i, o) in objs.iter().enumerate().take(depth) {
                        let times = 1 + (next() % max_recursion) as usize;
                        for _ in 0..times {
                            sync::enter(header(o));
                            held.push(i);
                        }
                        assert!(sync::holds_lock(&header(o)));
                        bump(o);
                        mine[i] += 1;
                    }
                    for &i in held.iter().rev() {
                        sync::exit(header(&objs[i])).unwrap();
                        ops += 1;
                    }
                }
                (mine, ops)
            })
        })
        .collect();
    thread::sleep(budget);
    stop.store(true, Ordering::Relaxed);
    let mut expect = [0u64; OBJS];
    let mut ops = 0;
    for t in workers {
        let (mine, n) = t.join().unwrap();
        ops += n;
        for i in 0..OBJS {
            expect[i] += mine[i];
        }
    }
    for (i, o) in objs.iter().enumerate() {
        assert_eq!(o.count.load(Ordering::Relaxed), expect[i], "object {i}");
        assert!(!sync::holds_lock(&header(o)));
    }
    println!("nested random depth: {ops} lock/unlock pairs, exact counts on {OBJS} objects");
    ops
}

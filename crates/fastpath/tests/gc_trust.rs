//! The collector's edges, as a runtime meets them through the public API:
//! `OutOfMemory` only when the heap is really full, misuse refused as error
//! values, a heap dropped in any order, sizes that overflow. Each test is
//! bounded in time: a hang fails it (the stuck thread is left behind).

// The heap is not built under `--cfg loom` (only the forwarding protocol is).
#![cfg(not(loom))]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use fastpath::gc::{BarrierBits, Dynamic, GcError, GcMode, Heap, HeapConfig};

/// Runs `f` on its own thread; fails the test if it has not returned
/// within `limit` (a hang), and returns what it returned.
fn within<T: Send + 'static>(limit: Duration, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: still running after {limit:?} (hung)"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

/// `threads` mutators each allocating garbage (a live set of nothing but
/// the object under construction) for `for_time`: no allocation may fail,
/// since the heap is almost empty after any collection. Returns the
/// allocations done.
fn garbage_only(
    bits: BarrierBits,
    mode: GcMode,
    heap_bytes: usize,
    threads: usize,
    for_time: Duration,
) -> u64 {
    let heap = std::sync::Arc::new(Heap::new(HeapConfig::new(heap_bytes, bits, mode)).unwrap());
    let deadline = Instant::now() + for_time;
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let heap = heap.clone();
            std::thread::spawn(move || {
                let mut m = heap.mutator::<Dynamic>().unwrap();
                // A small live set that stays.
                for _ in 0..8 {
                    m.alloc(1, 4).unwrap();
                }
                let mut n = 0u64;
                while Instant::now() < deadline {
                    for _ in 0..256 {
                        let d = m.roots_len();
                        if let Err(e) = m.alloc(1, 16) {
                            panic!(
                                "alloc after {n} allocations: {e}; free right after: {} of {} bytes",
                                heap.free_bytes(),
                                heap.config().heap_bytes
                            );
                        }
                        m.truncate_roots(d);
                        n += 1;
                    }
                }
                n
            })
        })
        .collect();
    workers.into_iter().map(|w| w.join().expect("mutator")).sum()
}

/// Two passive mutators allocating garbage in a 4 MiB heap never see
/// `OutOfMemory` (the slow path used to give up after a fixed number of
/// refills, losing the space its own collection freed to the other thread).
#[test]
fn passive_garbage_never_runs_out() {
    let n = garbage_only(
        BarrierBits::G1,
        GcMode::Passive,
        4 << 20,
        2,
        Duration::from_millis(1500),
    );
    println!("passive, 2 mutators: {n} allocations, none failed");
    assert!(n > 10_000, "{n}");
}

/// The same with four mutators under the concurrent collector.
#[test]
fn concurrent_garbage_never_runs_out() {
    let n = garbage_only(
        BarrierBits::SHENANDOAH,
        GcMode::Concurrent,
        4 << 20,
        4,
        Duration::from_millis(1500),
    );
    println!("concurrent, 4 mutators: {n} allocations, none failed");
    assert!(n > 10_000, "{n}");
}

/// A heap really full of live objects still answers `OutOfMemory` (and
/// does not loop), in both modes, and the objects kept are intact.
#[test]
fn a_full_heap_is_out_of_memory() {
    for (bits, mode) in [
        (BarrierBits::G1, GcMode::Passive),
        (BarrierBits::SHENANDOAH, GcMode::Concurrent),
    ] {
        let kept = within(Duration::from_secs(60), "filling the heap", move || {
            let heap = Heap::new(HeapConfig::new(4 << 20, bits, mode)).unwrap();
            let mut m = heap.mutator::<Dynamic>().unwrap();
            let mut kept = Vec::new();
            loop {
                match m.alloc(0, 30) {
                    Ok(h) => {
                        let o = m.get(h).unwrap();
                        m.write(o, 0, kept.len()).unwrap();
                        kept.push(h);
                    }
                    Err(GcError::OutOfMemory) => break,
                    Err(e) => panic!("{e}"),
                }
            }
            // Every object kept is still there, in order.
            for (i, &h) in kept.iter().enumerate() {
                assert_eq!(m.read(m.get(h).unwrap(), 0).unwrap(), i);
            }
            kept.len()
        });
        // 4 MiB of 264-byte objects, less the reserve: most of the heap.
        assert!(
            kept * 264 > (4 << 20) / 2,
            "{mode:?}: only {kept} objects before OutOfMemory"
        );
    }
}

/// `alloc(usize::MAX, 0)` and the like are `ObjectTooLarge`, never an
/// arithmetic overflow (in every build profile).
#[test]
fn absurd_sizes_are_object_too_large() {
    let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::G1, GcMode::Passive)).unwrap();
    let mut m = heap.mutator::<Dynamic>().unwrap();
    for (r, d) in [
        (usize::MAX, 0),
        (0, usize::MAX),
        (usize::MAX, usize::MAX),
        (usize::MAX / 2, usize::MAX / 2),
        (usize::MAX - 2, 0),
    ] {
        assert!(
            matches!(m.alloc(r, d), Err(GcError::ObjectTooLarge { .. })),
            "alloc({r}, {d})"
        );
    }
    assert!(m.alloc(0, 0).is_ok());
}

/// Dropping the heap while the dropping thread still holds a mutator of
/// it, during a concurrent cycle, returns; the mutator goes on working
/// (allocating through further cycles) until it is dropped.
#[test]
fn dropping_the_heap_before_its_mutator_is_harmless() {
    let done = within(Duration::from_secs(30), "drop(heap) with a live mutator", || {
        let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
        c.aggressive = true; // a cycle is always under way
        c.verify = true;
        let heap = Heap::new(c).unwrap();
        let mut m = heap.mutator::<Dynamic>().unwrap();
        let keep = m.alloc(1, 1).unwrap();
        m.write(m.get(keep).unwrap(), 0, 77).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        drop(heap);
        for _ in 0..100_000 {
            let d = m.roots_len();
            m.alloc(1, 16).unwrap();
            m.truncate_roots(d);
        }
        assert_eq!(m.read(m.get(keep).unwrap(), 0).unwrap(), 77);
        drop(m);
        true
    });
    assert!(done);
}

/// `Mutator::root` of another heap's object is refused, and the heap's
/// collections go on as if it had not been tried.
#[test]
fn rooting_a_foreign_object_is_refused() {
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, mode)).unwrap();
        let other = Heap::new(HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Passive)).unwrap();
        let mut m = heap.mutator::<Dynamic>().unwrap();
        let mut m2 = other.mutator::<Dynamic>().unwrap();
        let f = m2.alloc(0, 0).unwrap();
        assert_eq!(m.root(m2.get(f).unwrap()), Err(GcError::ForeignObject));
        within(
            Duration::from_secs(30),
            "collecting after the refused root",
            move || {
                m.collect().unwrap();
                m.collect().unwrap();
            },
        );
    }
}

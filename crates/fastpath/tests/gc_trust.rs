//! The collector's edges, as a runtime meets them through the public API:
//! `OutOfMemory` only when the heap is really full, misuse refused as error
//! values, a heap dropped in any order, sizes that overflow. Each test runs
//! until it has seen what it checks (collections, pauses), whatever the
//! machine's speed (a loaded CI machine, qemu, AddressSanitizer), under a
//! generous hard cap: a hang fails it (the stuck thread is left behind).

// The heap is not built under `--cfg loom` (only the forwarding protocol is).
#![cfg(not(loom))]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use fastpath::gc::{BarrierBits, Dynamic, GcError, GcMode, Heap, HeapConfig};

/// The longest a test may take to see what it checks, or to return: past
/// it the test fails (a hang, or a collector that makes no progress).
const CAP: Duration = Duration::from_secs(300);

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

/// Collections a garbage run must see: what it tests is the allocations
/// that meet a full heap and must get the space a collection freed, so a
/// run too short to fill the heap a few times would prove nothing.
const GARBAGE_CYCLES: u64 = 4;

/// `threads` mutators each allocating garbage (a live set of nothing but
/// the object under construction) for `for_time`, and past it until the
/// heap has run [`GARBAGE_CYCLES`] collections (at most [`CAP`]): no
/// allocation may fail, since the heap is almost empty after any
/// collection. Returns the allocations done and the collections run.
fn garbage_only(
    bits: BarrierBits,
    mode: GcMode,
    heap_bytes: usize,
    threads: usize,
    for_time: Duration,
) -> (u64, u64) {
    let heap = std::sync::Arc::new(Heap::new(HeapConfig::new(heap_bytes, bits, mode)).unwrap());
    let started = Instant::now();
    let deadline = started + for_time;
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
                while Instant::now() < deadline || heap.stats().cycles < GARBAGE_CYCLES {
                    assert!(
                        started.elapsed() < CAP,
                        "{} collections in {CAP:?}",
                        heap.stats().cycles
                    );
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
    let n = workers.into_iter().map(|w| w.join().expect("mutator")).sum();
    (n, heap.stats().cycles)
}

/// Two passive mutators allocating garbage in a 4 MiB heap never see
/// `OutOfMemory` (the slow path used to give up after a fixed number of
/// refills, losing the space its own collection freed to the other thread).
#[test]
fn passive_garbage_never_runs_out() {
    let (n, cycles) = garbage_only(
        BarrierBits::G1,
        GcMode::Passive,
        4 << 20,
        2,
        Duration::from_millis(1500),
    );
    println!("passive, 2 mutators: {n} allocations through {cycles} collections, none failed");
    assert!(cycles >= GARBAGE_CYCLES, "{cycles} collections");
    assert!(n > 10_000, "{n}");
}

/// The same with four mutators under the concurrent collector.
#[test]
fn concurrent_garbage_never_runs_out() {
    let (n, cycles) = garbage_only(
        BarrierBits::SHENANDOAH,
        GcMode::Concurrent,
        4 << 20,
        4,
        Duration::from_millis(1500),
    );
    println!("concurrent, 4 mutators: {n} allocations through {cycles} cycles, none failed");
    assert!(cycles >= GARBAGE_CYCLES, "{cycles} cycles");
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
        let kept = within(CAP, "filling the heap", move || {
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
                    Err(GcError::OutOfMemory { .. }) => break,
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

/// Whether the collector has armed this thread's poll word: a pause is
/// requested and waits for this thread's mutator to stop.
fn poll_armed() -> bool {
    let block: *const u8 = fastpath::thread::current().as_ptr().cast();
    // SAFETY: the block is this thread's (alive while it runs) and the
    // poll word at its published offset is an `AtomicUsize`, aligned, that
    // the collector stores to: it is read as that atomic.
    let word = unsafe {
        &*block
            .add(fastpath::thread::POLL_WORD_OFFSET)
            .cast::<std::sync::atomic::AtomicUsize>()
    };
    // Relaxed: only whether it is armed; nothing is read through it.
    word.load(std::sync::atomic::Ordering::Relaxed) & 1 != 0
}

/// Dropping the heap while the dropping thread still holds a mutator of
/// it, during a concurrent cycle (a pause requested and waiting for that
/// very mutator), returns; the mutator goes on working (allocating
/// through further cycles) until it is dropped.
#[test]
fn dropping_the_heap_before_its_mutator_is_harmless() {
    let done = within(CAP, "drop(heap) with a live mutator", || {
        let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
        c.aggressive = true; // a cycle is always under way
        c.verify = true;
        let heap = Heap::new(c).unwrap();
        let mut m = heap.mutator::<Dynamic>().unwrap();
        let keep = m.alloc(1, 1).unwrap();
        m.write(m.get(keep).unwrap(), 0, 77).unwrap();
        // The cycle's first pause, requested and waiting for this mutator
        // (which does not poll here): the drop meets a collector stopped
        // on it, however long the collector thread took to get there.
        let began = Instant::now();
        while !poll_armed() {
            assert!(began.elapsed() < CAP, "no pause requested in {CAP:?}");
            std::thread::sleep(Duration::from_millis(1));
        }
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
        // A thread has one mutator at a time and an `Obj` borrows its
        // mutator, so another heap's object reaches a mutator only from one
        // leaked on another thread (it stays registered with `other`).
        let foreign = std::thread::scope(|s| {
            s.spawn(|| {
                let m2 = Box::leak(Box::new(other.mutator::<Dynamic>().unwrap()));
                let f = m2.alloc(0, 0).unwrap();
                let m2: &'static _ = m2;
                m2.get(f).unwrap()
            })
            .join()
            .unwrap()
        });
        within(CAP, "collecting after the refused root", move || {
            let mut m = heap.mutator::<Dynamic>().unwrap();
            assert_eq!(m.root(foreign), Err(GcError::ForeignObject));
            m.collect().unwrap();
            m.collect().unwrap();
        });
    }
}

/// A list of `n` nodes (refs [next], data [i, i * 7]) rooted by one handle.
fn build_list(m: &mut fastpath::gc::Mutator<Dynamic>, n: usize) -> fastpath::gc::Handle {
    let head = m.alloc(1, 0).unwrap();
    for i in 0..n {
        let d = m.roots_len();
        let node = m.alloc(1, 2).unwrap();
        let (no, ho) = (m.get(node).unwrap(), m.get(head).unwrap());
        m.write(no, 0, i).unwrap();
        m.write(no, 1, i * 7).unwrap();
        m.store(no, 0, m.load(ho, 0).unwrap()).unwrap();
        m.store(ho, 0, Some(no)).unwrap();
        m.truncate_roots(d);
    }
    head
}

/// Walks the list from `head`: every node, in order, with its data.
fn check_list(m: &fastpath::gc::Mutator<Dynamic>, head: fastpath::gc::Handle, n: usize) {
    let mut cur = m.load(m.get(head).unwrap(), 0).unwrap();
    let mut i = n;
    while let Some(node) = cur {
        i -= 1;
        assert_eq!(m.read(node, 0).unwrap(), i, "node order");
        assert_eq!(m.read(node, 1).unwrap(), i * 7, "node data");
        cur = m.load(node, 0).unwrap();
    }
    assert_eq!(i, 0, "nodes missing");
}

/// With no room to copy (`evac_lab_limit = Some(0)`) and cycles back to
/// back, an 8 MiB heap used to be exhausted after ~380 KB of allocation
/// (each cycle abandons allocation regions that hold one survivor and can
/// never be freed without a copy). The degenerated cycle and the full
/// compaction behind it make allocation go on far beyond that.
#[test]
fn no_room_to_copy_does_not_exhaust_the_heap() {
    let stats = within(CAP, "allocating with no room to copy", || {
        let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
        c.aggressive = true;
        c.verify = true;
        c.evac_lab_limit = Some(0);
        let heap = Heap::new(c).unwrap();
        let mut m = heap.mutator::<Dynamic>().unwrap();
        let list = build_list(&mut m, 500);
        // 64 MiB of allocation, a survivor every 32 KiB: without a copy,
        // every region ends up holding survivors and none can be freed.
        let mut survivors = Vec::new();
        for i in 0..(64 << 20) / 160 {
            let d = m.roots_len();
            let h = m
                .alloc(1, 16)
                .unwrap_or_else(|e| panic!("after {} bytes: {e}", i * 160));
            if i % 200 == 0 {
                let o = m.get(h).unwrap();
                m.write(o, 0, i).unwrap();
                survivors.push((i, m.make_global(o).unwrap()));
            }
            m.truncate_roots(d);
        }
        check_list(&m, list, 500);
        for &(i, g) in &survivors {
            assert_eq!(m.read(m.global(g).unwrap(), 0).unwrap(), i);
        }
        heap.stats()
    });
    println!(
        "64 MiB allocated in an 8 MiB heap with no room to copy: {} cycles, {} degenerated, {} full compactions, {} verified runs",
        stats.cycles, stats.degenerated_cycles, stats.full_compactions, stats.verified_cycles
    );
    assert!(stats.verify_errors.is_empty(), "{:?}", stats.verify_errors);
    assert!(
        stats.degenerated_cycles > 0,
        "the exhaustion was met by degenerated cycles"
    );
    assert!(stats.full_compactions > 0, "and by full compactions");
}

/// Passive mode with no room to copy: survivors scattered over every
/// region leave no region free after a collection; the full compaction
/// slides them together and the allocation succeeds.
#[test]
fn passive_full_compaction_before_out_of_memory() {
    let mut c = HeapConfig::new(4 << 20, BarrierBits::G1, GcMode::Passive);
    c.verify = true;
    c.evac_lab_limit = Some(0);
    let heap = Heap::new(c).unwrap();
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let list = build_list(&mut m, 300);
    let mut kept = Vec::new();
    for i in 0..(32 << 20) / 160 {
        let d = m.roots_len();
        let h = m
            .alloc(1, 16)
            .unwrap_or_else(|e| panic!("after {} bytes: {e}", i * 160));
        if i % 3000 == 0 {
            m.write(m.get(h).unwrap(), 0, i).unwrap();
            kept.push((i, m.make_global(m.get(h).unwrap()).unwrap()));
        }
        m.truncate_roots(d);
    }
    check_list(&m, list, 300);
    for &(i, g) in &kept {
        assert_eq!(m.read(m.global(g).unwrap(), 0).unwrap(), i);
    }
    let s = heap.stats();
    println!(
        "passive, no room to copy: {} collections, {} full compactions",
        s.cycles, s.full_compactions
    );
    assert!(s.verify_errors.is_empty(), "{:?}", s.verify_errors);
    assert!(
        s.full_compactions > 0,
        "the heap never needed compacting: the test proved nothing"
    );
}

/// Stress: three mutators keep checked lists and rewire a shared slot
/// while allocating garbage in a small heap with no room to copy, so
/// degenerated cycles and full compactions happen under load; the verifier
/// runs after every cycle and compaction. Bounded in time.
#[test]
fn stress_degenerated_and_full_collections() {
    let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
    c.verify = true;
    c.evac_lab_limit = Some(1);
    let heap = std::sync::Arc::new(Heap::new(c).unwrap());
    let deadline = Instant::now() + Duration::from_secs(2);
    let workers: Vec<_> = (0..3)
        .map(|t| {
            let heap = heap.clone();
            std::thread::spawn(move || {
                let mut m = heap.mutator::<Dynamic>().unwrap();
                let mut checked = 0u64;
                let mut round = 0;
                while Instant::now() < deadline {
                    let d = m.roots_len();
                    let n = 100 + 50 * t + round % 7;
                    let list = build_list(&mut m, n);
                    for _ in 0..2000 {
                        let g = m.roots_len();
                        m.alloc(2, 12).unwrap();
                        m.truncate_roots(g);
                    }
                    check_list(&m, list, n);
                    checked += n as u64;
                    m.truncate_roots(d);
                    round += 1;
                }
                checked
            })
        })
        .collect();
    let checked: u64 = workers.into_iter().map(|w| w.join().expect("mutator")).sum();
    let s = heap.stats();
    println!(
        "stress: {checked} list nodes checked; {} cycles, {} degenerated, {} full compactions, {} verifier runs",
        s.cycles, s.degenerated_cycles, s.full_compactions, s.verified_cycles
    );
    assert!(s.verify_errors.is_empty(), "{:?}", s.verify_errors);
    assert!(checked > 0);
}

/// `Mutator::waits` tells where a mutator waited. Concurrent: one that only
/// polls is stopped by every pause (its safepoint wait grows; it never
/// allocates, so it is never paced or stalled) while another allocates
/// garbage until two cycles ran. Passive: a lone mutator that fills the heap
/// stalls for the collections it runs, and never stops for another's pause.
/// Runs until the cycles happened (any machine speed, qemu included), with
/// a hard cap that fails clearly. The cycles counted begin after the
/// poller is registered: a poller thread started late (a loaded machine)
/// would otherwise miss every pause.
#[test]
fn mutator_waits_tell_pauses_from_stalls() {
    within(CAP, "waits", || {
        let cap = CAP - Duration::from_secs(30);
        let heap = Heap::new(HeapConfig::new(
            8 << 20,
            BarrierBits::SHENANDOAH,
            GcMode::Concurrent,
        ))
        .unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let (registered_tx, registered) = mpsc::channel();
        let (poller, pauses) = std::thread::scope(|s| {
            let poller = s.spawn(|| {
                let mut m = heap.mutator::<Dynamic>().unwrap();
                registered_tx.send(()).unwrap();
                // Relaxed: a stop flag; the result comes back by the join.
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    m.safepoint_poll();
                }
                m.waits()
            });
            registered.recv().expect("the poller registered");
            let mut m = heap.mutator::<Dynamic>().unwrap();
            // Two cycles begun after the poller registered (the one under
            // way may have begun before).
            let from = heap.stats().cycles + 1;
            let began = Instant::now();
            while heap.stats().cycles < from + 2 {
                assert!(began.elapsed() < cap, "no two concurrent cycles in {cap:?}");
                for _ in 0..1000 {
                    let d = m.roots_len();
                    m.alloc(1, 16).unwrap();
                    m.truncate_roots(d);
                }
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            let w = m.safe_region(|| poller.join().unwrap());
            (w, heap.stats().pauses.len())
        });
        assert!(pauses >= 2, "{pauses} pauses");
        assert!(
            poller.safepoint > Duration::ZERO,
            "the poller stopped in pauses: {poller:?}"
        );
        assert_eq!(
            (poller.paced, poller.stalled),
            (Duration::ZERO, Duration::ZERO),
            "{poller:?}"
        );
        assert_eq!(poller.total(), poller.safepoint);
        // The pauses' own work (the collector thread's CPU time in them) is
        // part of the time they held the poller, never more.
        assert!(
            poller.pause_cpu > Duration::ZERO && poller.pause_cpu <= poller.safepoint,
            "{poller:?}"
        );

        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::G1, GcMode::Passive)).unwrap();
        let mut m = heap.mutator::<Dynamic>().unwrap();
        let began = Instant::now();
        while heap.stats().cycles < 2 {
            assert!(began.elapsed() < cap, "no two passive collections in {cap:?}");
            for _ in 0..1000 {
                let d = m.roots_len();
                m.alloc(1, 16).unwrap();
                m.truncate_roots(d);
            }
        }
        let w = m.waits();
        assert!(
            w.stalled > Duration::ZERO,
            "the collections it ran are stalls: {w:?}"
        );
        assert_eq!(
            (w.safepoint, w.pause_cpu, w.paced),
            (Duration::ZERO, Duration::ZERO, Duration::ZERO),
            "{w:?}"
        );
    });
}

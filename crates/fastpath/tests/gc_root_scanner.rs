//! A runtime's own roots through `RootScanner`s, and the raw access API
//! (`alloc_unrooted`, `data_unchecked`/`data_mut_unchecked`, the monitor
//! calls) a runtime with its own frames uses: objects reachable only from
//! a scanner's slots survive collections that move them, in passive and
//! concurrent mode, under every barrier set that moves objects, with the
//! verifier on; a locked object is never moved.

// The heap is not built under `--cfg loom` (only the protocols are).
#![cfg(not(loom))]

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a test waits for a collection to do what it checks before it
/// fails (a slow machine takes longer, a broken scanner never gets there).
const NO_PROGRESS_LIMIT: Duration = Duration::from_secs(300);
use fastpath::gc::{BarrierBits, Dynamic, GcMode, Heap, HeapConfig, Mutator, Obj, RootScanner};

/// A frame-like slot array the scanner reports. The mutator thread locks it
/// only between safepoints (never across an allocation), the collector only
/// in pauses.
struct Slots(Mutex<Vec<usize>>);

impl RootScanner for Slots {
    fn scan(&self, visit: &mut dyn FnMut(&mut usize)) {
        for s in self.0.lock().unwrap().iter_mut() {
            visit(s);
        }
    }
}

const SLOTS: usize = 64;
const NREFS: usize = 1;
const NDATA: usize = 2;

/// Writes `tag` into an object's data area as 16 bytes, one byte store at a
/// time (packed fields), and its reference to `next`.
fn tag_object(m: &Mutator<Dynamic>, obj: usize, tag: u8, next: usize) {
    // SAFETY: `obj` was just allocated with this layout, or read from a
    // slot since the last safepoint; `next` is 0 or such an object.
    unsafe {
        let o = Obj::from_addr(obj);
        let p = m.data_mut_unchecked(o, NREFS);
        for k in 0..16 {
            (*(p.add(k) as *const AtomicU8)).store(tag.wrapping_add(k as u8), Ordering::Relaxed);
        }
        let n = (next != 0).then(|| Obj::from_addr(next));
        m.store_unchecked(o, 0, n);
    }
}

/// Checks an object's tag bytes and returns its successor's address.
fn check_object(m: &Mutator<Dynamic>, obj: usize, tag: u8) -> usize {
    // SAFETY: as `tag_object`.
    unsafe {
        let o = Obj::from_addr(obj);
        assert_eq!(m.shape_unchecked(o), (NREFS, NDATA));
        let p = m.data_unchecked(o, NREFS);
        for k in 0..16 {
            let b = (*(p.add(k) as *const AtomicU8)).load(Ordering::Relaxed);
            assert_eq!(
                b,
                tag.wrapping_add(k as u8),
                "byte {k} of the object tagged {tag}"
            );
        }
        m.load_unchecked(o, 0).map_or(0, |n| n.addr())
    }
}

/// Builds, in each slot, a pair of objects (the second reachable only
/// through the first), churns garbage until the collector has moved a slot's
/// object at least `moves` times and run `cycles` collections, checking every
/// pair after each allocation burst. Returns (moves seen, collections).
fn run(h: &Heap, heap_scanner: bool, moves: usize, cycles: u64) -> (usize, u64) {
    let mut m = h.mutator::<Dynamic>().unwrap();
    let slots = Arc::new(Slots(Mutex::new(vec![0; SLOTS])));
    let id = if heap_scanner {
        Some(h.add_root_scanner(slots.clone()))
    } else {
        m.set_root_scanner(Some(slots.clone()));
        None
    };
    for i in 0..SLOTS {
        let second = m.alloc_unrooted(NREFS, NDATA).unwrap().addr();
        tag_object(&m, second, 100 + i as u8, 0);
        // The next allocation may collect: park `second` in the slot first.
        slots.0.lock().unwrap()[i] = second;
        let first = m.alloc_unrooted(NREFS, NDATA).unwrap().addr();
        let second = slots.0.lock().unwrap()[i];
        tag_object(&m, first, i as u8, second);
        slots.0.lock().unwrap()[i] = first;
    }
    let start = Instant::now();
    let mut seen_moves = 0;
    let mut last: Vec<usize> = slots.0.lock().unwrap().clone();
    loop {
        for _ in 0..2000 {
            // Garbage: unrooted and never stored.
            m.alloc_unrooted(2, 6).unwrap();
        }
        let now: Vec<usize> = slots.0.lock().unwrap().clone();
        for (i, &obj) in now.iter().enumerate() {
            let second = check_object(&m, obj, i as u8);
            assert_ne!(second, 0);
            check_object(&m, second, 100 + i as u8);
            if obj != last[i] {
                seen_moves += 1;
            }
        }
        last = now;
        let collections = h.stats().cycles;
        if seen_moves >= moves && collections >= cycles {
            break;
        }
        assert!(
            start.elapsed() < NO_PROGRESS_LIMIT,
            "no moves after {collections} collections"
        );
    }
    if let Some(id) = id {
        assert!(h.remove_root_scanner(id));
    }
    let stats = h.stats();
    assert!(stats.verify_errors.is_empty(), "{:?}", stats.verify_errors);
    (seen_moves, stats.cycles)
}

fn heap(barriers: BarrierBits, mode: GcMode) -> Heap {
    let mut c = HeapConfig::new(4 << 20, barriers, mode);
    c.verify = true;
    c.aggressive = true;
    Heap::new(c).unwrap()
}

#[test]
fn a_mutators_scanner_keeps_and_updates_its_roots_in_passive_collections() {
    for set in [BarrierBits::NONE, BarrierBits::SHENANDOAH_2017] {
        let h = heap(set, GcMode::Passive);
        let (moves, cycles) = run(&h, false, 64, 4);
        println!("passive {set:?}: {moves} slot moves over {cycles} collections");
    }
}

#[test]
fn a_mutators_scanner_keeps_and_updates_its_roots_in_concurrent_cycles() {
    for set in [BarrierBits::SHENANDOAH, BarrierBits::SHENANDOAH_2017] {
        let h = heap(set, GcMode::Concurrent);
        let (moves, cycles) = run(&h, false, 64, 4);
        println!("concurrent {set:?}: {moves} slot moves over {cycles} cycles");
    }
}

#[test]
fn a_heap_scanner_keeps_and_updates_its_roots() {
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        let h = heap(BarrierBits::SHENANDOAH, mode);
        let (moves, cycles) = run(&h, true, 64, 4);
        println!("heap scanner, {mode:?}: {moves} slot moves over {cycles} collections");
    }
}

/// A locked object stays where it is across collections that move its
/// neighbours; wait with a timeout and notify work through the raw calls,
/// and the unlocked object may move again.
#[test]
fn raw_monitors_pin_their_object_and_wait_and_notify() {
    let h = heap(BarrierBits::SHENANDOAH, GcMode::Concurrent);
    let mut m = h.mutator::<Dynamic>().unwrap();
    let slots = Arc::new(Slots(Mutex::new(vec![0; 2])));
    m.set_root_scanner(Some(slots.clone()));
    let obj = m.alloc_unrooted(0, 1).unwrap().addr();
    slots.0.lock().unwrap()[0] = obj;
    // SAFETY: `obj` is this heap's and is in a reported slot across the
    // safepoints the calls may reach.
    unsafe {
        m.monitor_enter_unchecked(obj);
        m.monitor_enter_unchecked(obj); // recursion
        assert!(m.holds_monitor_unchecked(Obj::from_addr(obj)));
    }
    let cycles_before = h.stats().cycles;
    let start = Instant::now();
    while h.stats().cycles < cycles_before + 3 {
        m.alloc_unrooted(1, 4).unwrap();
        assert!(start.elapsed() < NO_PROGRESS_LIMIT);
    }
    let now = slots.0.lock().unwrap()[0];
    assert_eq!(now, obj, "a locked object moved");
    // SAFETY: as above.
    unsafe {
        let r = m.monitor_wait_unchecked(obj, Some(Duration::from_millis(5)));
        assert_eq!(r, Err(fastpath::sync::SyncError::TimedOut));
        assert_eq!(m.monitor_notify_unchecked(Obj::from_addr(obj), true), Ok(0));
        m.monitor_exit_unchecked(obj).unwrap();
        m.monitor_exit_unchecked(obj).unwrap();
        assert_eq!(
            m.monitor_exit_unchecked(obj),
            Err(fastpath::sync::SyncError::IllegalMonitorState)
        );
        assert_eq!(
            m.monitor_wait_unchecked(obj, None),
            Err(fastpath::sync::SyncError::IllegalMonitorState)
        );
    }
    // Unlocked, it may be moved again by later cycles (it is live).
    let start = Instant::now();
    while slots.0.lock().unwrap()[0] == obj {
        // The wait inflated it; a monitor naming the object keeps its
        // region out of collection sets until deflated.
        fastpath::sync::deflate_idle_monitors();
        for _ in 0..1000 {
            m.alloc_unrooted(1, 4).unwrap();
        }
        assert!(
            start.elapsed() < NO_PROGRESS_LIMIT,
            "an unlocked object never moved"
        );
    }
}

/// Two threads contend on a raw monitor while collections run: the counter
/// the lock guards comes out exact, and the blocked thread does not hold
/// pauses up (it blocks in a safe region).
#[test]
fn contended_raw_monitors_block_in_a_safe_region() {
    let h = heap(BarrierBits::SHENANDOAH, GcMode::Concurrent);
    let shared = Arc::new(Slots(Mutex::new(vec![0; 1])));
    h.add_root_scanner(shared.clone());
    {
        let mut m = h.mutator::<Dynamic>().unwrap();
        let obj = m.alloc_unrooted(0, 1).unwrap().addr();
        shared.0.lock().unwrap()[0] = obj;
    }
    let done = AtomicUsize::new(0);
    const PER_THREAD: usize = 2000;
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut m = h.mutator::<Dynamic>().unwrap();
                for i in 0..PER_THREAD {
                    let obj = shared.0.lock().unwrap()[0];
                    // SAFETY: the object is reported by the heap's scanner.
                    unsafe {
                        m.monitor_enter_unchecked(obj);
                        let obj = shared.0.lock().unwrap()[0];
                        let o = Obj::from_addr(obj);
                        let v = m.read_unchecked(o, 0, 0);
                        if i % 16 == 0 {
                            m.alloc_unrooted(0, 64).unwrap(); // may stop for a pause
                        }
                        let o = Obj::from_addr(shared.0.lock().unwrap()[0]);
                        m.write_unchecked(o, 0, 0, v + 1);
                        m.monitor_exit_unchecked(obj).unwrap();
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    let m = h.mutator::<Dynamic>().unwrap();
    // SAFETY: the heap's scanner reports the slot; no safepoint since.
    let o = unsafe { Obj::from_addr(shared.0.lock().unwrap()[0]) };
    assert_eq!(m.read(o, 0).unwrap(), 2 * PER_THREAD);
    println!(
        "{} locked increments over {} cycles",
        done.load(Ordering::Relaxed),
        h.stats().cycles
    );
}

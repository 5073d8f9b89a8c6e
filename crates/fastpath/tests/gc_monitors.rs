//! A dead heap object left inflated must not keep its monitor past the
//! memory it names: freeing its region (or dropping the heap) releases the
//! monitor, so a later deflation pass never writes a restored header into
//! reused memory.
//!
//! Its own test binary (one process): it counts `sync::live_monitors()`,
//! which is process-wide, and turns the deflation thread off so that only
//! the heap can release the monitors it checks.

use fastpath::gc::{BarrierBits, Dynamic, GcMode, Heap, HeapConfig};
use fastpath::sync::LockingMode;
use fastpath::sync::{self, DeflationPolicy};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Allocates `n` objects, locks each once in monitor mode (so each header
/// is left naming a monitor after the unlock) and keeps the first `keep`
/// rooted. Returns the number of monitors that were installed.
fn inflate_objects(h: &Heap, n: usize, keep: usize) -> usize {
    let before = sync::live_monitors();
    let mut m = h.mutator::<Dynamic>().unwrap();
    sync::set_current_thread_locking_mode(LockingMode::Monitor).unwrap();
    let base = m.roots_len();
    for i in 0..n {
        let o = m.alloc(1, 2).unwrap();
        drop(m.lock(o).unwrap());
        if i >= keep {
            m.truncate_roots(base + keep);
        }
    }
    sync::set_current_thread_locking_mode(LockingMode::Lightweight).unwrap();
    let installed = sync::live_monitors() - before;
    // Dead objects: the rooted ones stay, the rest are garbage.
    m.truncate_roots(base + keep);
    installed
}

/// A monitor installed for a contention and deflated by its last owner's
/// exit waits in the registry for the next deflation pass (off here) with
/// its header restored and the object's address kept; the object dies, its
/// region is freed and reused by objects whose words at that address may
/// read as a locked header. Freeing the region again must not take that
/// address for a monitored object (the process would stop: "dropped while
/// fast-locked"). Whether a reused word there reads as locked depends on
/// where objects land; `sync`'s registry unit test checks the filter on
/// such words directly.
fn stale_monitor_of_a_reused_region(h: &Heap, baseline: usize) {
    let mut m = h.mutator::<Dynamic>().unwrap();
    let holder = m.alloc(1, 0).unwrap();
    let x = m.alloc(0, 2).unwrap();
    {
        let (hold, xo) = (m.get(holder).unwrap(), m.get(x).unwrap());
        m.store(hold, 0, Some(xo)).unwrap();
    }
    let global = m.make_global(m.get(holder).unwrap()).unwrap();
    let (locked, released) = (AtomicBool::new(false), AtomicBool::new(false));
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut b = h.mutator::<Dynamic>().unwrap();
            let hold = b.global(global).unwrap();
            let xo = b.load(hold, 0).unwrap().unwrap();
            let xh = b.root(xo).unwrap();
            let guard = b.lock(xh).unwrap();
            locked.store(true, Ordering::SeqCst);
            // Held past the fast-lock spin's budget: the other thread
            // inflates the object and parks.
            std::thread::sleep(Duration::from_millis(50));
            drop(guard);
            released.store(true, Ordering::SeqCst);
        });
        while !locked.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        drop(m.lock(x).unwrap());
    });
    assert!(released.load(Ordering::SeqCst));
    assert_eq!(
        sync::live_monitors(),
        baseline + 1,
        "the contention installed a monitor, which stays registered"
    );
    // x dead: out of the global's field and off the handle stack.
    let hold = m.global(global).unwrap();
    m.store(hold, 0, None).unwrap();
    m.truncate_roots(0);
    // Collections free x's region and reuse it for objects of mixed sizes
    // (zeroed data words read as fast-locked headers), some of them locked
    // once (so that freeing their region looks for dead monitors), and
    // free it again.
    for i in 0..2_000_000usize {
        let d = m.roots_len();
        let o = m.alloc(i % 3, 1 + i % 5).unwrap();
        if i % 512 == 0 {
            drop(m.lock(o).unwrap());
        }
        m.truncate_roots(d);
    }
    m.collect().unwrap();
    drop(m);
    // The pass frees the monitor its owner deflated.
    sync::deflate_idle_monitors();
    assert_eq!(
        sync::live_monitors(),
        baseline,
        "the deflated monitor freed by the pass"
    );
}

#[test]
fn freeing_a_region_and_dropping_the_heap_release_dead_objects_monitors() {
    sync::set_deflation_policy(DeflationPolicy {
        enabled: false,
        ..DeflationPolicy::HOTSPOT
    });
    let baseline = sync::live_monitors();

    // 64 KiB regions: a freed region's dead monitors are found in the
    // registry's list while it holds at most one monitor per 256 bytes of
    // the region, else by parsing the region (`Space::release_dead_locks`).
    // Both ways run here: the 200 monitors of one region come from the
    // list, and 400 outnumber what the list may hold for a 64 KiB region
    // (256), so the regions freed while that many are installed are parsed.
    let h = Heap::new(HeapConfig::new(8 << 20, BarrierBits::NONE, GcMode::Passive)).unwrap();
    for n in [200, 400] {
        // Rooted while they are inflated (a collection meanwhile frees
        // none), dead once their mutator is dropped.
        let installed = inflate_objects(&h, n, n);
        assert_eq!(installed, n, "monitor mode leaves every unlocked object inflated");
        assert_eq!(sync::live_monitors(), baseline + n);

        // Fill the heap with garbage so collections run and free the regions
        // the dead inflated objects sit in.
        let mut m = h.mutator::<Dynamic>().unwrap();
        let mut allocated = 0usize;
        while sync::live_monitors() > baseline && allocated < 400_000 {
            let d = m.roots_len();
            m.alloc(4, 28).unwrap();
            m.truncate_roots(d);
            allocated += 1;
        }
        m.collect().unwrap();
        assert_eq!(
            sync::live_monitors(),
            baseline,
            "collections freed every region of the {n} dead inflated objects ({allocated} allocations)"
        );
    }

    stale_monitor_of_a_reused_region(&h, baseline);

    // Live inflated objects when the heap itself goes.
    let installed = inflate_objects(&h, 50, 50);
    assert_eq!(installed, 50);
    assert_eq!(sync::live_monitors(), baseline + 50);
    drop(h);
    assert_eq!(
        sync::live_monitors(),
        baseline,
        "dropping the heap released its objects' monitors"
    );
    println!("gc_monitors: 650 inflated heap objects, every monitor released");
}

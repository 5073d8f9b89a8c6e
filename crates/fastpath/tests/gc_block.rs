//! The thread block's GC fields, read as generated code reads them: through
//! the published offsets (`fastpath::thread::*_OFFSET`) from
//! `thread::current()`. While a mutator lives they hold its state (the
//! GC-state copy, the SATB queue, the biased card base, the TLAB, the poll
//! word the collector arms); after it drops, and in a thread that never had
//! one, they hold their idle values. Also the rules a block imposes (one
//! mutator per thread) and the held state of a thread that exits with a
//! mutator, of a new thread that reuses its TLS memory, and of a heap
//! dropped while its mutator lives. Each test is bounded in time.

// The heap is not built under `--cfg loom`.
#![cfg(not(loom))]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use fastpath::gc::{
    BarrierBits, Dynamic, GcError, GcMode, Heap, HeapConfig, SerialBarriers, ShenandoahBarriers,
};
use fastpath::thread;

/// The GC fields of the current thread's block, read at the published
/// offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GcFields {
    gc_state: u8,
    poll: usize,
    satb_index: usize,
    satb_buffer: usize,
    card_table_base: usize,
    tlab_top: usize,
    tlab_end: usize,
}

const IDLE: GcFields = GcFields {
    gc_state: 0,
    poll: 0,
    satb_index: 0,
    satb_buffer: 0,
    card_table_base: 0,
    tlab_top: 0,
    tlab_end: 0,
};

/// Words of a thread's SATB buffer (`thread::SATB_BUFFER_WORDS`).
const SATB_BYTES: usize = 256 * 8;

fn block() -> *const u8 {
    thread::current().as_ptr().cast()
}

/// Reads a `T` at `off` from the current thread's block.
fn at<T: Copy>(off: usize) -> T {
    // SAFETY: the block is this thread's (alive while it runs), every
    // published offset is inside it and aligned for its field's type, and
    // only this thread writes the fields read here but the poll word, an
    // `AtomicUsize` (a racing aligned word read is what generated code
    // does; the test reads it while no other thread can write it, or
    // accepts either value).
    unsafe { block().add(off).cast::<T>().read_volatile() }
}

fn gc_fields() -> GcFields {
    GcFields {
        gc_state: at(thread::GC_STATE_OFFSET),
        poll: at(thread::POLL_WORD_OFFSET),
        satb_index: at(thread::SATB_INDEX_OFFSET),
        satb_buffer: at(thread::SATB_BUFFER_OFFSET),
        card_table_base: at(thread::CARD_TABLE_BASE_OFFSET),
        tlab_top: at(thread::TLAB_TOP_OFFSET),
        tlab_end: at(thread::TLAB_END_OFFSET),
    }
}

/// The longest a test may run before it fails as hung: generous, since a
/// test that waits for the collector runs until it has seen it act,
/// however slow the machine (a loaded CI machine, qemu, AddressSanitizer).
const CAP: Duration = Duration::from_secs(300);

/// Runs `f` on its own thread; fails if it has not returned within
/// `limit` (a hang; the stuck thread is left behind).
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

/// The TLAB and the card base: the block's TLAB top is where the next
/// object goes, the block's card base is the biased base of the heap's
/// card table (a store dirties the card the block's base names), the SATB
/// queue is empty and attached; after the drop every field is idle.
#[test]
fn the_block_holds_what_the_mutator_holds_and_is_idle_after_drop() {
    within(CAP, "block fields", || {
        assert_eq!(gc_fields(), IDLE, "a thread that never had a mutator");
        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::SERIAL, GcMode::Passive)).unwrap();
        let mut m = heap.mutator::<SerialBarriers>().unwrap();
        let f = gc_fields();
        assert_eq!(f.gc_state, 0, "passive heap, no cycle: no barrier active");
        assert_eq!(f.poll, 0, "no pause requested");
        assert_ne!(f.satb_buffer, 0, "an attached block has its SATB buffer");
        assert_eq!(f.satb_index, SATB_BYTES, "an empty SATB queue: every byte free");
        assert_ne!(f.card_table_base, 0);
        assert_eq!(
            (f.tlab_top, f.tlab_end),
            (0, 0),
            "no TLAB before the first allocation"
        );

        let a = m.alloc(1, 1).unwrap();
        let after_first = gc_fields();
        assert!(after_first.tlab_top != 0 && after_first.tlab_top <= after_first.tlab_end);
        let b = m.alloc(1, 1).unwrap();
        let after_second = gc_fields();
        let (oa, ob) = (m.get(a).unwrap(), m.get(b).unwrap());
        // Bump allocation in the block's TLAB: the second object lies
        // between the top after the first and the top after the second.
        assert!(
            (after_first.tlab_top..after_second.tlab_top).contains(&ob.addr()),
            "{:#x} not in {:#x}..{:#x}",
            ob.addr(),
            after_first.tlab_top,
            after_second.tlab_top
        );
        assert_eq!(after_second.tlab_end, after_first.tlab_end, "same TLAB");
        assert_eq!(
            after_second.tlab_top - after_first.tlab_top,
            ob.addr() - oa.addr(),
            "two equal objects, one after the other in the TLAB"
        );

        // The card mark goes through the block's biased base.
        let card = (f.card_table_base as *const u8).wrapping_add(oa.addr() >> 9);
        // SAFETY: the card of a heap object: inside the heap's card table,
        // alive while `heap` is.
        let read_card = || unsafe { card.read_volatile() };
        let clean = read_card();
        m.store(oa, 0, Some(ob)).unwrap();
        let dirty = read_card();
        assert_ne!(clean, dirty, "the store dirtied the card the block's base names");
        assert_eq!(dirty, 0, "dirty is 0 (HotSpot's value)");

        // A stop retires the TLAB into the block's idle TLAB.
        m.collect().unwrap();
        let after_collect = gc_fields();
        assert_eq!(after_collect.card_table_base, f.card_table_base);
        assert_eq!(after_collect.satb_buffer, f.satb_buffer);
        assert_eq!(after_collect.poll, 0, "disarmed after the pause");

        drop(m);
        assert_eq!(gc_fields(), IDLE, "idle after the mutator drops");
        // The thread may be a mutator again, of this heap or another.
        let m2 = heap.mutator::<SerialBarriers>().unwrap();
        assert_ne!(gc_fields().satb_buffer, 0);
        drop(m2);
        assert_eq!(gc_fields(), IDLE);
    });
}

/// One mutator per thread: a second, of the same heap or another, is an
/// error value while the first lives, and the first's fields are
/// untouched by the refusal.
#[test]
fn a_second_mutator_on_a_thread_is_refused() {
    within(CAP, "second mutator", || {
        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Passive)).unwrap();
        let other = Heap::new(HeapConfig::new(4 << 20, BarrierBits::G1, GcMode::Passive)).unwrap();
        let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
        m.alloc(0, 1).unwrap();
        let before = gc_fields();
        assert!(matches!(
            heap.mutator::<Dynamic>(),
            Err(GcError::ThreadHasMutator)
        ));
        assert!(matches!(
            other.mutator::<Dynamic>(),
            Err(GcError::ThreadHasMutator)
        ));
        assert_eq!(gc_fields(), before);
        // Another thread is free to be a mutator of the same heap.
        std::thread::scope(|s| {
            s.spawn(|| {
                assert_eq!(gc_fields(), IDLE);
                let m2 = heap.mutator::<ShenandoahBarriers>().unwrap();
                assert_ne!(gc_fields().satb_buffer, before.satb_buffer);
                drop(m2);
            });
        });
        m.collect().unwrap();
        drop(m);
        let m = other.mutator::<Dynamic>().unwrap();
        drop(m);
    });
}

/// The collector arms the poll word of the block while it requests a pause
/// and disarms it before the release: a mutator that finds its word armed
/// stops at its poll and finds it disarmed when it returns. Also the SATB
/// queue in the block: a reference store while the block's state byte says
/// marking puts the overwritten value at the new index.
#[test]
fn the_collector_arms_the_block_poll_word_and_satb_fills_the_block_queue() {
    let (armed, satb) = within(CAP, "poll and SATB", || {
        let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
        c.aggressive = true; // back-to-back cycles
        c.verify = true;
        let heap = Heap::new(c).unwrap();
        let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
        let holder = m.alloc(1, 0).unwrap();
        // Until three of each were seen; past the cap, the asserts below
        // say which never was.
        let deadline = Instant::now() + (CAP - Duration::from_secs(30));
        let (mut armed_stops, mut disarmed_after, mut satb_checked) = (0u64, 0u64, 0u64);
        while Instant::now() < deadline && (disarmed_after < 3 || satb_checked < 3) {
            let d = m.roots_len();
            let v = m.alloc(0, 2).unwrap(); // polls, may stop
            let f = gc_fields();
            if f.gc_state & 1 != 0 {
                // Marking: overwrite the holder's field; its old value (if
                // any) goes to the block's SATB queue.
                let (h, nv) = (m.get(holder).unwrap(), m.get(v).unwrap());
                let old = m.load(h, 0).unwrap().map(|o| o.addr());
                m.store(h, 0, Some(nv)).unwrap();
                if let Some(old) = old {
                    let g = gc_fields();
                    if f.satb_index > 0 {
                        assert_eq!(g.satb_index, f.satb_index - 8, "one entry enqueued");
                        // SAFETY: the block's SATB buffer, alive while the
                        // mutator is; `g.satb_index` is within it.
                        let entry = unsafe { ((g.satb_buffer + g.satb_index) as *const usize).read() };
                        assert_eq!(entry, old, "the overwritten value, at the new index");
                        satb_checked += 1;
                    }
                }
            } else {
                // Not marking: a store over the holder's field is not
                // enqueued.
                let (h, nv) = (m.get(holder).unwrap(), m.get(v).unwrap());
                m.store(h, 0, Some(nv)).unwrap();
                assert_eq!(gc_fields().satb_index, f.satb_index);
            }
            m.truncate_roots(d);
            if gc_fields().poll & 1 != 0 {
                armed_stops += 1;
                m.safepoint_poll();
                // Disarmed before the release; the next pause may have
                // armed it again since, so count rather than assert.
                if gc_fields().poll == 0 {
                    disarmed_after += 1;
                }
            }
        }
        drop(m);
        assert_eq!(gc_fields(), IDLE);
        assert!(
            heap.stats().verify_errors.is_empty(),
            "{:?}",
            heap.stats().verify_errors
        );
        (armed_stops.min(disarmed_after), satb_checked)
    });
    assert!(
        armed >= 1,
        "saw the collector arm the block's poll word and disarm it"
    );
    assert!(satb >= 1, "checked SATB entries in the block's queue");
    println!("armed polls seen and stopped at: {armed}; SATB entries checked: {satb}");
}

/// A mutator held in a thread-local is dropped by the thread's exit: its
/// heap no longer waits for it (a passive collection on another thread
/// completes), and the next thread, which may reuse the exited thread's
/// TLS memory, starts with an idle block.
#[test]
fn a_thread_that_exits_holding_a_mutator_releases_it() {
    use std::cell::RefCell;
    use std::sync::Arc;
    std::thread_local! {
        static HELD: RefCell<Option<fastpath::gc::Mutator<Dynamic>>> = const { RefCell::new(None) };
    }
    within(CAP, "thread exit with a mutator", || {
        let heap = Arc::new(Heap::new(HeapConfig::new(4 << 20, BarrierBits::G1, GcMode::Passive)).unwrap());
        let h = heap.clone();
        let exited_block = std::thread::spawn(move || {
            let mut m = h.mutator::<Dynamic>().unwrap();
            m.alloc(1, 1).unwrap();
            HELD.with(|held| *held.borrow_mut() = Some(m));
            thread::current().as_ptr() as usize
        })
        .join()
        .unwrap();
        let (reused, fields) = std::thread::spawn(move || (thread::current().as_ptr() as usize, gc_fields()))
            .join()
            .unwrap();
        assert_eq!(
            fields,
            IDLE,
            "a new thread's block is idle (reused: {})",
            reused == exited_block
        );
        let mut m = heap.mutator::<Dynamic>().unwrap();
        m.collect().unwrap(); // would wait forever for a mutator still registered
        drop(m);
    });
}

/// A thread that exits with its mutator leaked (never dropped) keeps it
/// registered, as a mutator that never stops (every pause of that heap
/// waits for it, as without the block); but the collector stops arming
/// that thread's poll word when the thread exits, so a new thread that
/// reuses its TLS memory starts idle and stays so while the leaked
/// mutator's heap requests a pause (which arms every registered word).
#[test]
fn a_thread_that_exits_with_a_leaked_mutator_leaves_no_armed_word_behind() {
    let (reused, clean) = within(CAP, "leaked mutator", || {
        let leaked_heap: &'static Heap = Box::leak(Box::new(
            Heap::new(HeapConfig::new(4 << 20, BarrierBits::G1, GcMode::Passive)).unwrap(),
        ));
        let exited_block = std::thread::spawn(move || {
            let mut m = leaked_heap.mutator::<Dynamic>().unwrap();
            m.alloc(1, 1).unwrap();
            std::mem::forget(m);
            thread::current().as_ptr() as usize
        })
        .join()
        .unwrap();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (seen_tx, seen_rx) = mpsc::channel();
        let checker = std::thread::spawn(move || {
            let at_start = gc_fields();
            let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::G1, GcMode::Passive)).unwrap();
            let mut m = heap.mutator::<Dynamic>().unwrap();
            m.alloc(0, 1).unwrap();
            seen_tx.send(()).unwrap();
            // Wait while the leaked mutator's heap requests its pause.
            go_rx.recv().unwrap();
            let during = gc_fields();
            m.safepoint_poll(); // would stop for nothing: its heap requested no pause
            drop(m);
            (
                thread::current().as_ptr() as usize,
                at_start == IDLE && during.poll == 0,
            )
        });
        seen_rx.recv().unwrap();
        // A pause of the leaked mutator's heap: arms every registered
        // word, then waits for the leaked mutator forever (left behind).
        std::thread::spawn(move || {
            let mut m = leaked_heap.mutator::<Dynamic>().unwrap();
            let _ = m.collect();
        });
        std::thread::sleep(Duration::from_millis(200));
        go_tx.send(()).unwrap();
        let (block, clean) = checker.join().unwrap();
        (block == exited_block, clean)
    });
    assert!(clean, "the new thread's block was idle and never armed");
    println!("the new thread reused the exited thread's block: {reused}");
}

/// A heap dropped while its mutator lives (concurrent, a cycle always
/// under way): the drop returns, the block keeps the mutator's fields, the
/// collector goes on arming its poll word through further cycles, and the
/// mutator's drop leaves the block idle.
#[test]
fn a_heap_dropped_before_its_mutator_keeps_the_block_working() {
    within(CAP, "drop(heap) with a live mutator", || {
        let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
        c.aggressive = true;
        c.verify = true;
        let heap = Heap::new(c).unwrap();
        let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
        let keep = m.alloc(1, 1).unwrap();
        m.write(m.get(keep).unwrap(), 0, 5).unwrap();
        let before = gc_fields();
        drop(heap);
        let after = gc_fields();
        assert_eq!(
            (after.card_table_base, after.satb_buffer),
            (before.card_table_base, before.satb_buffer)
        );
        let mut stops = 0u64;
        for _ in 0..50_000 {
            let d = m.roots_len();
            m.alloc(1, 16).unwrap();
            m.truncate_roots(d);
            if gc_fields().poll & 1 != 0 {
                stops += 1;
            }
        }
        assert_eq!(m.read(m.get(keep).unwrap(), 0).unwrap(), 5);
        drop(m);
        assert_eq!(gc_fields(), IDLE);
        println!("armed polls seen after drop(heap): {stops}");
    });
}

/// The unchecked accesses run the same barriers as the checked ones: a
/// list built and walked with them alone, while concurrent cycles move its
/// nodes (LRB and SATB slow paths, in the unchecked calls), reads back
/// every value, and agrees with the checked accesses.
#[test]
fn unchecked_accesses_agree_with_the_checked_ones_under_concurrent_cycles() {
    let checked = within(CAP, "unchecked accesses", || {
        let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
        c.aggressive = true;
        c.verify = true;
        let heap = Heap::new(c).unwrap();
        let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
        let head = m.alloc(1, 1).unwrap();
        let mut checked = 0u64;
        for round in 0..20usize {
            // Build: head -> n_k -> ... (each node: 1 ref, 2 data).
            for k in 0..200usize {
                let d = m.roots_len();
                let node = m.alloc(1, 2).unwrap(); // polls: objects may move
                let (h, n) = (m.get(head).unwrap(), m.get(node).unwrap());
                // SAFETY: both are this heap's objects (from this mutator's
                // handles); 1 ref and 2 data words, as allocated.
                unsafe {
                    m.write_unchecked(n, 1, 0, round * 1000 + k);
                    m.write_unchecked(n, 1, 1, k * 7);
                    m.store_unchecked(n, 0, m.load_unchecked(h, 0));
                    m.store_unchecked(h, 0, Some(n));
                }
                m.truncate_roots(d);
                // Garbage, so cycles run meanwhile.
                let g = m.roots_len();
                m.alloc(0, 30).unwrap();
                m.truncate_roots(g);
            }
            // Walk: newest first.
            let h = m.get(head).unwrap();
            // SAFETY: as above; every node has 1 ref and 2 data words.
            let mut cur = unsafe { m.load_unchecked(h, 0) };
            let mut k = 200usize;
            while let (Some(n), true) = (cur, k > 0) {
                k -= 1;
                // SAFETY: as above.
                let (a, b) = unsafe { (m.read_unchecked(n, 1, 0), m.read_unchecked(n, 1, 1)) };
                assert_eq!((a, b), (round * 1000 + k, k * 7));
                assert_eq!(m.read(n, 0).unwrap(), a);
                // SAFETY: as above.
                let next = unsafe { m.load_unchecked(n, 0) };
                assert_eq!(next.map(|o| o.addr()), m.load(n, 0).unwrap().map(|o| o.addr()));
                cur = next;
                checked += 1;
            }
            assert_eq!(k, 0, "the whole round's list");
            // Cut the list: the next round builds a new one.
            // SAFETY: as above.
            unsafe { m.store_unchecked(h, 0, None) };
        }
        let cycles = heap.stats().cycles;
        assert!(
            heap.stats().verify_errors.is_empty(),
            "{:?}",
            heap.stats().verify_errors
        );
        (checked, cycles)
    });
    println!(
        "nodes checked: {}; concurrent cycles meanwhile: {}",
        checked.0, checked.1
    );
    assert_eq!(checked.0, 20 * 200);
}

//! The world the SATB enqueue and LRB collection-set medium paths run
//! against on every architecture (x64_gc_medium.rs, aarch64_gc_medium.rs):
//! a hand-built thread block with a SATB buffer, Rust slow paths standing
//! in for the runtime's (flush-and-enqueue, evacuate), a heap of four
//! 4 KiB regions with forwarding words and a collection-set map; and each
//! medium path's scenario, run on the function the test binary generated.

use std::mem::offset_of;
use std::sync::Mutex;

use fastpath_jit::ThreadLayout;
use fastpath_jit::{CsetMap, SatbQueueLayout};

pub use super::block::{HAS_FORWARDED, MARKING};

pub const SLOTS: usize = 4;

#[repr(C)]
pub struct TestThread {
    pub gc_state: u8,
    pub satb_index: usize,
    pub satb_buffer: *mut u64,
    pub buffer: [u64; SLOTS],
}

pub fn layout() -> ThreadLayout {
    ThreadLayout {
        gc_state: offset_of!(TestThread, gc_state) as i32,
        marking_bit: MARKING,
        has_forwarded_bit: HAS_FORWARDED,
        poll: 0,
        poll_bit: 2,
        card_table_base: 0,
        card_shift: 9,
        dirty_card: 0,
        tlab_top: 0,
        tlab_end: 0,
    }
}

pub fn queue() -> SatbQueueLayout {
    SatbQueueLayout {
        index: offset_of!(TestThread, satb_index) as i32,
        buffer: offset_of!(TestThread, satb_buffer) as i32,
    }
}

/// What the SATB slow path was handed: each flushed buffer's values, then
/// the value that did not fit (as a runtime's flush-and-enqueue).
static FLUSHED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// Held by each scenario below for its whole run, which starts by
/// clearing what its slow path records in a static: a binary may run one
/// scenario on several emitters' functions (tests on parallel threads).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// [`ONE_AT_A_TIME`], also after another scenario's failed assertion.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub extern "C" fn satb_flush(t: *mut TestThread, prev: u64) {
    // SAFETY: the generated code passes the test block it was given, live
    // for the call, only this thread's.
    let t = unsafe { &mut *t };
    let mut f = FLUSHED.lock().unwrap();
    // The buffer fills downwards: the oldest value is in the last slot.
    f.extend(t.buffer[t.satb_index / 8..].iter().rev());
    f.push(prev);
    t.satb_index = SLOTS * 8;
}

/// The SATB barrier of a store to a field: `fn(thread, field)`.
pub type SatbFn = extern "C" fn(*mut TestThread, *mut u64);

/// Idle, then marking over 11 stores (every third null): every non-null
/// overwritten value is recorded once, in order, the full buffer reaching
/// the slow path.
pub fn satb_records_every_overwritten_non_null_value_once(barrier: SatbFn) {
    let _alone = one_at_a_time();
    FLUSHED.lock().unwrap().clear();
    let mut t = Box::new(TestThread {
        gc_state: 0,
        satb_index: SLOTS * 8,
        satb_buffer: std::ptr::null_mut(),
        buffer: [0; SLOTS],
    });
    t.satb_buffer = t.buffer.as_mut_ptr();
    // Idle: a store enqueues nothing.
    let mut field = 7u64;
    barrier(&mut *t, &mut field);
    assert_eq!(t.satb_index, SLOTS * 8);
    // Marking: each store's old value is remembered, nulls are not.
    t.gc_state = MARKING;
    let mut expected = Vec::new();
    for v in 1..=11u64 {
        barrier(&mut *t, &mut field);
        if field != 0 {
            expected.push(field);
        }
        field = if v % 3 == 0 { 0 } else { 100 + v };
    }
    // Drain what is still buffered, as a handshake would.
    let mut got = FLUSHED.lock().unwrap().clone();
    got.extend(t.buffer[t.satb_index / 8..].iter().rev());
    assert_eq!(got, expected, "every non-null old value, once, in order");
    assert!(
        FLUSHED.lock().unwrap().len() > SLOTS,
        "the full buffer reached the slow path"
    );
    println!(
        "SATB: {} values enqueued, {} through the slow path",
        got.len(),
        FLUSHED.lock().unwrap().len()
    );
}

/// The copies the LRB slow path made and the field each was loaded from.
static EVACUATED: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());

/// The "runtime", with the library's signature (`fastpath_jit::slow::lrb`):
/// forwards `obj` to `obj + 4096` (the next region) and returns the copy;
/// the field (which the library heals) is recorded, not written.
pub extern "C" fn lrb_evacuate(_t: *mut TestThread, obj: u64, field: u64) -> u64 {
    let copy = obj + 4096;
    // SAFETY: `obj` is one of the test heap's objects, its forwarding word
    // 8 bytes below it, both in the live test heap.
    unsafe { ((obj - 8) as *mut u64).write(copy) };
    EVACUATED.lock().unwrap().push((obj, field));
    copy
}

/// The load-reference barrier of a reference loaded from a field:
/// `fn(thread, obj, field) -> obj as the caller may use it`.
pub type LrbFn = extern "C" fn(*mut TestThread, u64, u64) -> u64;

/// The field address the scenario passes (never dereferenced).
const FIELD: u64 = 0xf1e1_d000;

/// Four 4 KiB regions, region 1 in the collection set; objects `a` (region
/// 0), `b` and `c` (region 1; `b` copied to `d`), `d` (region 2).
pub struct LrbHeap {
    /// The buffer the regions lie in (read through the object addresses).
    _mem: Vec<u64>,
    /// The collection-set map (boxed: `cset` holds its address).
    _map: Box<[u8; 4]>,
    pub cset: CsetMap,
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub d: u64,
}

pub const LRB_REGION_SHIFT: u8 = 12;

pub fn lrb_heap() -> LrbHeap {
    let mut mem = vec![0u64; 5 * 4096 / 8];
    let base = (mem.as_mut_ptr() as usize + 4095) & !4095;
    let mut map = Box::new([0u8, 1, 0, 0]);
    let cset = CsetMap {
        biased: (map.as_mut_ptr() as usize).wrapping_sub(base >> LRB_REGION_SHIFT),
        region_shift: LRB_REGION_SHIFT,
    };
    let obj = |region: usize, i: usize| (base + region * 4096 + 16 + 32 * i) as u64;
    let set_fwd = |o: u64, to: u64| {
        // SAFETY: inside the test heap, 8 bytes below an object.
        unsafe { ((o - 8) as *mut u64).write(to) }
    };
    let (a, b, c, d) = (obj(0, 0), obj(1, 0), obj(1, 1), obj(2, 0));
    for o in [a, b, c, d] {
        set_fwd(o, o); // not forwarded: its own address
    }
    set_fwd(b, d); // b was copied to d
    LrbHeap {
        _mem: mem,
        _map: map,
        cset,
        a,
        b,
        c,
        d,
    }
}

/// Idle: the reference as loaded; forwarded objects exist: null and
/// objects outside the collection set pass, a copied one resolves with no
/// call, one not yet copied goes to the slow path once.
pub fn lrb_resolves_forwarded_objects_and_evacuates_through_the_slow_path(h: &LrbHeap, lrb: LrbFn) {
    let _alone = one_at_a_time();
    EVACUATED.lock().unwrap().clear();
    let (a, b, c, d) = (h.a, h.b, h.c, h.d);
    let mut t = TestThread {
        gc_state: 0,
        satb_index: 0,
        satb_buffer: std::ptr::null_mut(),
        buffer: [0; SLOTS],
    };
    assert_eq!(lrb(&mut t, b, FIELD), b, "idle: the reference as loaded");
    t.gc_state = HAS_FORWARDED;
    assert_eq!(lrb(&mut t, 0, FIELD), 0, "null");
    assert_eq!(lrb(&mut t, a, FIELD), a, "outside the collection set");
    assert_eq!(lrb(&mut t, d, FIELD), d, "outside the collection set (a copy)");
    assert_eq!(lrb(&mut t, b, FIELD), d, "forwarded: the copy, no call");
    assert!(EVACUATED.lock().unwrap().is_empty());
    assert_eq!(
        lrb(&mut t, c, FIELD),
        c + 4096,
        "not copied yet: the slow path evacuates"
    );
    assert_eq!(lrb(&mut t, c, FIELD), c + 4096, "then forwarded: no second call");
    assert_eq!(
        *EVACUATED.lock().unwrap(),
        [(c, FIELD)],
        "one call, with the field"
    );
}

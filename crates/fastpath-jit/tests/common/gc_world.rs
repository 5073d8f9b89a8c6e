//! The world the SATB enqueue and LRB collection-set medium paths run
//! against on every architecture (gc_medium.rs on its host, and
//! fastpath-cranelift's CLIF forms): a hand-built thread block with a SATB
//! buffer, Rust slow paths standing in for the runtime's
//! (flush-and-enqueue, evacuate), a heap of four 4 KiB regions in either
//! cell format (Brooks forwarding words, or compact layout words that
//! record a copy as `fastpath::gc::layout::forwarded_layout_word`) and a
//! collection-set map; and each medium
//! path's scenario, run on the function the test binary generated.

use std::mem::offset_of;
use std::sync::Mutex;

use fastpath_jit::ThreadLayout;
use fastpath_jit::{CsetMap, Forwardee, SatbQueueLayout};

pub use super::block::{HAS_FORWARDED, MARKING};

pub const SLOTS: usize = 4;

#[repr(C)]
pub struct TestThread {
    pub gc_state: u8,
    pub satb_index: usize,
    pub satb_buffer: *mut u64,
    pub buffer: [u64; SLOTS],
}

/// An idle thread block with an empty SATB buffer (its index at the end:
/// the queue fills downwards), boxed so that the buffer pointer stays put.
fn idle_thread() -> Box<TestThread> {
    let mut t = Box::new(TestThread {
        gc_state: 0,
        satb_index: SLOTS * 8,
        satb_buffer: std::ptr::null_mut(),
        buffer: [0; SLOTS],
    });
    t.satb_buffer = t.buffer.as_mut_ptr();
    t
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
    let mut t = idle_thread();
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

/// The SATB enqueue on the slots of a real passive heap whose reference
/// slots are `refs` wide (`barrier` built for that width), the middle slot
/// of three between two naming another object (a compressed slot read as
/// 8 bytes would take its neighbour's bits): idle, nothing is enqueued;
/// marking, each store's previous value is recorded once, decoded (the
/// object's address), nulls not, the full buffer reaching the slow path.
pub fn satb_records_decoded_values_of_real_slots(barrier: SatbFn, refs: fastpath_jit::RefWidth) {
    use fastpath::gc::{BarrierBits, Dynamic};
    let _alone = one_at_a_time();
    FLUSHED.lock().unwrap().clear();
    let heap = super::ref_slots::heap_of(BarrierBits::SHENANDOAH, refs);
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let h = m.alloc(3, 0).unwrap();
    let objs: Vec<_> = (0..5).map(|_| m.alloc(0, 1).unwrap()).collect();
    let holder = m.get(h).unwrap();
    let addrs: Vec<u64> = objs.iter().map(|&o| m.get(o).unwrap().addr() as u64).collect();
    let neighbour = m.get(objs[4]).unwrap();
    m.store(holder, 0, Some(neighbour)).unwrap();
    m.store(holder, 2, Some(neighbour)).unwrap();
    let field = (holder.addr() + refs.ref_offset(1)) as *mut u64;
    let mut t = idle_thread();
    m.store(holder, 1, Some(m.get(objs[0]).unwrap())).unwrap();
    barrier(&mut *t, field);
    assert_eq!(t.satb_index, SLOTS * 8, "{refs:?}: idle");
    t.gc_state = MARKING;
    let (mut expected, mut now) = (Vec::new(), addrs[0]);
    for v in 1..=11usize {
        barrier(&mut *t, field);
        if now != 0 {
            expected.push(now);
        }
        let next = (v % 3 != 0).then(|| m.get(objs[v % 4]).unwrap());
        now = next.map_or(0, |o| o.addr() as u64);
        m.store(holder, 1, next).unwrap();
    }
    let mut got = FLUSHED.lock().unwrap().clone();
    got.extend(t.buffer[t.satb_index / 8..].iter().rev());
    assert_eq!(
        got, expected,
        "{refs:?}: every non-null previous value, decoded, once, in order"
    );
    assert!(FLUSHED.lock().unwrap().len() > SLOTS, "{refs:?}: the slow path");
    let at = |k| m.load(holder, k).unwrap().map(|o| o.addr() as u64);
    assert_eq!(
        (at(0), at(2)),
        (Some(addrs[4]), Some(addrs[4])),
        "{refs:?}: the neighbours"
    );
    println!(
        "SATB on real {refs:?} slots: {} previous values enqueued, decoded",
        got.len()
    );
}

/// The copies the LRB slow path made and the field each was loaded from.
static EVACUATED: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());

/// Where the heap of the scenario running now records a copy (set under
/// [`ONE_AT_A_TIME`]), for [`lrb_evacuate`].
static FORWARDEE: Mutex<Option<Forwardee>> = Mutex::new(None);

/// The layout word of the compact test heap's untagged objects (bit 31
/// clear, as every real one: 1 reference, 2 data words).
pub const LAYOUT: u64 = 1 | 2 << 32;

/// The 8 bytes at the layout word of the compact test heap's tagged
/// object (`c`, and its copy): the 4-byte tagged word, then reference 0
/// in a 4-byte slot whose bit 31 is set, as an unscaled heap's reference
/// above 2 GiB is. Only bit 31 of the low half tells a forwarded
/// original: a test of the 8 bytes' sign would take this word for one.
pub fn tagged_layout() -> u64 {
    let tagged = fastpath::gc::layout::tagged_layout_word(0x2345).unwrap() as u64;
    tagged | 0x8000_1010 << 32
}

/// Records in `o`'s word named by `fwd` that its copy is `to` (`to == o`:
/// not copied, the compact word then `own`, the object's own layout
/// word), as the heap does in that format.
fn set_forwardee(fwd: Forwardee, o: u64, to: u64, own: u64) {
    let (at, value) = match fwd {
        Forwardee::BrooksWord { offset } => (o.wrapping_add_signed(offset.into()), to),
        Forwardee::LayoutWord { offset } => {
            let value = if to == o {
                own
            } else {
                fastpath::gc::layout::forwarded_layout_word(to as usize) as u64
            };
            (o.wrapping_add_signed(offset.into()), value)
        }
    };
    // SAFETY: inside the test heap: the word `fwd` names of one of its
    // objects, which lie at least one word from every region's edge.
    unsafe { (at as *mut u64).write(value) }
}

/// The "runtime", with the library's signature (`fastpath_jit::slow::lrb`):
/// forwards `obj` to `obj + 4096` (the next region: the copy takes the
/// original's layout word) and returns the copy; the field (which the
/// library heals) is recorded, not written.
pub extern "C" fn lrb_evacuate(_t: *mut TestThread, obj: u64, field: u64) -> u64 {
    let copy = obj + 4096;
    let fwd = FORWARDEE.lock().unwrap().expect("a scenario is running");
    let own = match fwd {
        Forwardee::BrooksWord { .. } => 0,
        // SAFETY: the layout word of an object of the test heap, not
        // forwarded (the barrier calls here only for those).
        Forwardee::LayoutWord { offset } => unsafe {
            (obj.wrapping_add_signed(offset.into()) as *const u64).read()
        },
    };
    set_forwardee(fwd, copy, copy, own);
    set_forwardee(fwd, obj, copy, own);
    EVACUATED.lock().unwrap().push((obj, field));
    copy
}

/// The load-reference barrier of a reference loaded from a field:
/// `fn(thread, obj, field) -> obj as the caller may use it`.
pub type LrbFn = extern "C" fn(*mut TestThread, u64, u64) -> u64;

/// The field address the scenario passes (never dereferenced).
const FIELD: u64 = 0xf1e1_d000;

/// Four 4 KiB regions, region 1 in the collection set; objects `a` (region
/// 0), `b` and `c` (region 1; `b` copied to `d`), `d` (region 2), each
/// recording its copy in the word `forwardee` names; in the compact
/// format `c` is tagged ([`tagged_layout`]), the others untagged
/// ([`LAYOUT`]).
pub struct LrbHeap {
    /// The buffer the regions lie in (read through the object addresses).
    _mem: Vec<u64>,
    /// The collection-set map (boxed: `cset` holds its address).
    _map: Box<[u8; 4]>,
    pub cset: CsetMap,
    pub forwardee: Forwardee,
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub d: u64,
}

pub const LRB_REGION_SHIFT: u8 = 12;

/// The heap in the format `forwardee` names: fastpath's offsets
/// (`Forwardee::fastpath`).
pub fn lrb_heap(forwardee: Forwardee) -> LrbHeap {
    let mut mem = vec![0u64; 5 * 4096 / 8];
    let base = (mem.as_mut_ptr() as usize + 4095) & !4095;
    let mut map = Box::new([0u8, 1, 0, 0]);
    let cset = CsetMap {
        biased: (map.as_mut_ptr() as usize).wrapping_sub(base >> LRB_REGION_SHIFT),
        region_shift: LRB_REGION_SHIFT,
    };
    let obj = |region: usize, i: usize| (base + region * 4096 + 16 + 32 * i) as u64;
    let (a, b, c, d) = (obj(0, 0), obj(1, 0), obj(1, 1), obj(2, 0));
    // Every object (and the copy `c` will get) not forwarded, then b
    // copied to d.
    for o in [a, b, d] {
        set_forwardee(forwardee, o, o, LAYOUT);
    }
    set_forwardee(forwardee, c, c, tagged_layout());
    set_forwardee(forwardee, b, d, LAYOUT);
    LrbHeap {
        _mem: mem,
        _map: map,
        cset,
        forwardee,
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
    *FORWARDEE.lock().unwrap() = Some(h.forwardee);
    let (a, b, c, d) = (h.a, h.b, h.c, h.d);
    let mut t = TestThread {
        gc_state: 0,
        satb_index: 0,
        satb_buffer: std::ptr::null_mut(),
        buffer: [0; SLOTS],
    };
    let f = h.forwardee;
    assert_eq!(lrb(&mut t, b, FIELD), b, "{f:?} idle: the reference as loaded");
    t.gc_state = HAS_FORWARDED;
    assert_eq!(lrb(&mut t, 0, FIELD), 0, "{f:?} null");
    assert_eq!(lrb(&mut t, a, FIELD), a, "{f:?} outside the collection set");
    assert_eq!(
        lrb(&mut t, d, FIELD),
        d,
        "{f:?} outside the collection set (a copy)"
    );
    assert_eq!(lrb(&mut t, b, FIELD), d, "{f:?} forwarded: the copy, no call");
    assert!(EVACUATED.lock().unwrap().is_empty(), "{f:?}");
    assert_eq!(
        lrb(&mut t, c, FIELD),
        c + 4096,
        "{f:?} not copied yet (compact: tagged, reference 0's bit 31 set): the slow path evacuates"
    );
    assert_eq!(
        lrb(&mut t, c, FIELD),
        c + 4096,
        "{f:?} then forwarded: no second call"
    );
    assert_eq!(
        *EVACUATED.lock().unwrap(),
        [(c, FIELD)],
        "{f:?} one call, with the field"
    );
    *FORWARDEE.lock().unwrap() = None;
}

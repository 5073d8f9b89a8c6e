//! The AArch64 SATB enqueue and LRB collection-set medium paths as a JIT
//! lays them out (the x86-64 test's flows, x64_gc_medium.rs): the idle
//! test inline, the medium path out of line at its `slow` label, the
//! AArch64 slow-path stub calling a Rust `extern "C"` function; run from
//! the `CodeCache` (on AArch64, or under qemu in .ci/aarch64) against a
//! hand-built thread block, SATB buffer, heap and collection-set map.
#![cfg(target_arch = "aarch64")]
// dynasm's dynamic registers (`X(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

use std::mem::offset_of;
use std::sync::Mutex;

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath_jit::aarch64::thread::GcBarrier;
use fastpath_jit::aarch64::*;
use fastpath_jit::reg::{Reg, RegSet};
use fastpath_jit::{Labels, ThreadLayout};

const X0: Reg = Reg(0);
const X1: Reg = Reg(1);
const X2: Reg = Reg(2);
const X3: Reg = Reg(3);
const X4: Reg = Reg(4);

const SLOTS: usize = 4;

#[repr(C)]
struct TestThread {
    gc_state: u8,
    satb_index: usize,
    satb_buffer: *mut u64,
    buffer: [u64; SLOTS],
}

const MARKING: u8 = 1;
const HAS_FORWARDED: u8 = 4;

fn layout() -> ThreadLayout {
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

fn queue() -> SatbQueueLayout {
    SatbQueueLayout {
        index: offset_of!(TestThread, satb_index) as i32,
        buffer: offset_of!(TestThread, satb_buffer) as i32,
    }
}

/// What the SATB slow path was handed: each flushed buffer's values, then
/// the value that did not fit (as a runtime's flush-and-enqueue).
static FLUSHED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

extern "C" fn satb_flush(t: *mut TestThread, prev: u64) {
    // SAFETY: the generated code passes the test block it was given, live
    // for the call, only this thread's.
    let t = unsafe { &mut *t };
    let mut f = FLUSHED.lock().unwrap();
    // The buffer fills downwards: the oldest value is in the last slot.
    f.extend(t.buffer[t.satb_index / 8..].iter().rev());
    f.push(prev);
    t.satb_index = SLOTS * 8;
}

/// fn(thread, field) -> void: the SATB barrier of a store to `field`.
fn satb_function(cache: &CodeCache) -> Entry {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let (medium, slow, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    dynasm!(ops ; .arch aarch64 ; stp x29, x30, [sp, #-16]! ; mov x29, sp);
    GcStateTest {
        barrier: GcBarrier::Satb,
        thread: X0,
        tmp: X2,
        layout: layout(),
    }
    .emit(&mut ops, Labels { slow: medium, done })
    .unwrap();
    dynasm!(ops ; .arch aarch64 ; =>done ; ldp x29, x30, [sp], #16 ; ret ; =>medium);
    SatbEnqueue {
        thread: X0,
        field: X1,
        prev: X2,
        tmp: X3,
        tmp2: X4,
        queue: queue(),
    }
    .emit(&mut ops, Labels { slow, done })
    .unwrap();
    dynasm!(ops ; .arch aarch64 ; b =>done);
    SlowStub {
        func: satb_flush as *const () as usize,
        args: vec![X0, X2],
        ret: None,
        live: RegSet::of(&[X0, X1]),
    }
    .emit(&mut ops, slow, done)
    .unwrap();
    cache.install(&ops.finalize().unwrap()).unwrap()
}

#[test]
fn satb_records_every_overwritten_non_null_value_once() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let e = satb_function(&cache);
    // SAFETY: an `extern "C" fn(*mut TestThread, *mut u64)` reading the
    // field and the test block, writing the block and its buffer.
    let barrier: extern "C" fn(*mut TestThread, *mut u64) = unsafe { e.as_fn() };
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

/// The copies the LRB slow path made (Relaxed bookkeeping for the test).
static EVACUATED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// The "runtime": forwards `obj` to `obj + 4096` (the next region) and
/// returns the copy.
extern "C" fn lrb_evacuate(_t: *mut TestThread, obj: u64) -> u64 {
    let copy = obj + 4096;
    // SAFETY: `obj` is one of the test heap's objects, its forwarding word
    // 8 bytes below it, both in the live test heap.
    unsafe { ((obj - 8) as *mut u64).write(copy) };
    EVACUATED.lock().unwrap().push(obj);
    copy
}

#[test]
fn lrb_resolves_forwarded_objects_and_evacuates_through_the_slow_path() {
    const SHIFT: u8 = 12;
    let cache = CodeCache::new(64 * 1024).unwrap();
    // Four 4 KiB regions; region 1 is in the collection set.
    let mut heap = vec![0u64; 5 * 4096 / 8];
    let base = (heap.as_mut_ptr() as usize + 4095) & !4095;
    let mut map = [0u8, 1, 0, 0];
    let cset = CsetMap {
        biased: (map.as_mut_ptr() as usize).wrapping_sub(base >> SHIFT),
        region_shift: SHIFT,
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

    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let (medium, slow, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    // fn(thread, obj) -> obj as the caller may use it.
    dynasm!(ops ; .arch aarch64 ; stp x29, x30, [sp, #-16]! ; mov x29, sp);
    GcStateTest {
        barrier: GcBarrier::Lrb,
        thread: X0,
        tmp: X2,
        layout: layout(),
    }
    .emit(&mut ops, Labels { slow: medium, done })
    .unwrap();
    dynasm!(ops ; .arch aarch64 ; =>done ; mov x0, x1 ; ldp x29, x30, [sp], #16 ; ret ; =>medium);
    LrbCset {
        obj: X1,
        tmp: X2,
        tmp2: X3,
        cset,
        forwarding: -8,
    }
    .emit(&mut ops, Labels { slow, done })
    .unwrap();
    dynasm!(ops ; .arch aarch64 ; b =>done);
    SlowStub {
        func: lrb_evacuate as *const () as usize,
        args: vec![X0, X1],
        ret: Some(X1),
        live: RegSet::of(&[X0]),
    }
    .emit(&mut ops, slow, done)
    .unwrap();
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: an `extern "C" fn(*mut TestThread, u64) -> u64` reading the
    // test block, the map and the objects' forwarding words.
    let lrb: extern "C" fn(*mut TestThread, u64) -> u64 = unsafe { e.as_fn() };
    let mut t = TestThread {
        gc_state: 0,
        satb_index: 0,
        satb_buffer: std::ptr::null_mut(),
        buffer: [0; SLOTS],
    };
    assert_eq!(lrb(&mut t, b), b, "idle: the reference as loaded");
    t.gc_state = HAS_FORWARDED;
    assert_eq!(lrb(&mut t, 0), 0, "null");
    assert_eq!(lrb(&mut t, a), a, "outside the collection set");
    assert_eq!(lrb(&mut t, d), d, "outside the collection set (a copy)");
    assert_eq!(lrb(&mut t, b), d, "forwarded: the copy, no call");
    assert!(EVACUATED.lock().unwrap().is_empty());
    assert_eq!(
        lrb(&mut t, c),
        c + 4096,
        "not copied yet: the slow path evacuates"
    );
    assert_eq!(lrb(&mut t, c), c + 4096, "then forwarded: no second call");
    assert_eq!(*EVACUATED.lock().unwrap(), [c]);
    drop(heap);
}

#[test]
fn budgets_hold() {
    let count = |t: &dyn Fn(&mut VecAssembler<Aarch64Relocation>, Labels)| {
        let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
        let labels = Labels {
            slow: ops.new_dynamic_label(),
            done: ops.new_dynamic_label(),
        };
        t(&mut ops, labels);
        ops.offset().0 / 4
    };
    let satb = SatbEnqueue {
        thread: Reg(28),
        field: X1,
        prev: X2,
        tmp: X3,
        tmp2: X4,
        queue: SatbQueueLayout::fastpath().unwrap(),
    };
    let lrb = LrbCset {
        obj: X1,
        tmp: X2,
        tmp2: X3,
        cset: CsetMap {
            biased: 0x1234_5678_9abc,
            region_shift: 19,
        },
        forwarding: -8,
    };
    let n = count(&|o, l| satb.emit(o, l).unwrap());
    assert_eq!(n, satb.budget());
    let m = count(&|o, l| lrb.emit(o, l).unwrap());
    assert_eq!(m, lrb.budget());
    println!("aarch64 SATB enqueue {n}, LRB collection-set path {m}");
}

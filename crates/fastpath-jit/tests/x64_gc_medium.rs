//! The SATB enqueue and LRB collection-set medium paths as a JIT lays them
//! out: the idle test inline, the medium path out of line at its `slow`
//! label, the slow-path stub calling a Rust `extern "C"` function; run
//! from the `CodeCache` against a hand-built thread block, SATB buffer,
//! heap with forwarding words and collection-set map. And iced-x86 checks:
//! registers written ⊆ clobbers, counts within budget, memory written only
//! the thread block and the SATB buffer.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

use std::mem::offset_of;
use std::sync::Mutex;

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::x64::thread::GcBarrier;
use fastpath_jit::x64::*;
use fastpath_jit::ThreadLayout;
use iced_x86::{Decoder, DecoderOptions, InstructionInfoFactory, OpAccess};

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
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let (medium, slow, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    dynasm!(ops ; .arch x64 ; push rbx); // rsp 16-aligned for the stub's call
    GcStateTest {
        barrier: GcBarrier::Satb,
        thread: RDI,
        layout: layout(),
    }
    .emit(&mut ops, Labels { slow: medium, done });
    dynasm!(ops ; .arch x64 ; =>done ; pop rbx ; ret ; =>medium);
    SatbEnqueue {
        thread: RDI,
        field: RSI,
        prev: RDX,
        tmp: RCX,
        queue: queue(),
    }
    .emit(&mut ops, Labels { slow, done });
    dynasm!(ops ; .arch x64 ; jmp =>done);
    SlowStub {
        func: satb_flush as *const () as usize,
        args: vec![RDI, RDX],
        ret: None,
        live: RegSet::of(&[RDI, RSI]),
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

    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let (medium, slow, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    // fn(thread, obj) -> obj as the caller may use it.
    dynasm!(ops ; .arch x64 ; push rbx);
    GcStateTest {
        barrier: GcBarrier::Lrb,
        thread: RDI,
        layout: layout(),
    }
    .emit(&mut ops, Labels { slow: medium, done });
    dynasm!(ops ; .arch x64 ; =>done ; mov rax, rsi ; pop rbx ; ret ; =>medium);
    LrbCset {
        obj: RSI,
        tmp: RCX,
        tmp2: RDX,
        cset,
        forwarding: -8,
    }
    .emit(&mut ops, Labels { slow, done });
    dynasm!(ops ; .arch x64 ; jmp =>done);
    SlowStub {
        func: lrb_evacuate as *const () as usize,
        args: vec![RDI, RSI],
        ret: Some(RSI),
        live: RegSet::of(&[RDI]),
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

/// Decodes a medium path: registers written ⊆ clobbers, memory written
/// only through the thread register or the SATB buffer pointer it
/// computes (`tmp`), common path within budget.
fn check<T: Template>(t: &T, allowed_write_bases: &[Reg]) -> usize {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    t.emit(&mut ops, labels);
    let end = ops.offset().0;
    dynasm!(ops ; .arch x64 ; =>labels.slow ; =>labels.done ; int3);
    let code = ops.finalize().unwrap();
    let mut factory = InstructionInfoFactory::new();
    let mut n = 0;
    let is_write = |a: OpAccess| {
        matches!(
            a,
            OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite
        )
    };
    for insn in Decoder::with_ip(64, &code[..end], 0, DecoderOptions::NONE).iter() {
        n += 1;
        let info = factory.info(&insn);
        for u in info.used_registers() {
            if is_write(u.access()) {
                let r = Reg(u.register().full_register().number() as u8);
                assert!(t.clobbers().contains(r), "{}: writes {r:?}: {insn}", t.name());
            }
        }
        for m in info.used_memory() {
            if is_write(m.access()) {
                let base = Reg(m.base().full_register().number() as u8);
                assert!(
                    allowed_write_bases.contains(&base),
                    "{}: writes through {base:?}: {insn}",
                    t.name()
                );
                assert!(!insn.has_lock_prefix());
            }
        }
    }
    assert!(
        n <= t.budget(),
        "{}: {n} instructions, budget {}",
        t.name(),
        t.budget()
    );
    println!("{}: {n} instructions, budget {}", t.name(), t.budget());
    n
}

#[test]
fn machine_checks_of_the_medium_paths() {
    let satb = SatbEnqueue {
        thread: R15,
        field: RSI,
        prev: RDX,
        tmp: RCX,
        queue: SatbQueueLayout::fastpath().unwrap(),
    };
    assert_eq!(check(&satb, &[R15, RCX]), 10);
    let lrb = LrbCset {
        obj: RSI,
        tmp: R8,
        tmp2: R9,
        cset: CsetMap {
            biased: 0x1234_5678,
            region_shift: 19,
        },
        forwarding: -8,
    };
    assert_eq!(check(&lrb, &[]), 11);
    // The published block's SATB offsets are the ones used.
    let q = SatbQueueLayout::fastpath().unwrap();
    assert_eq!(
        (q.index as usize, q.buffer as usize),
        (
            fastpath::thread::SATB_INDEX_OFFSET,
            fastpath::thread::SATB_BUFFER_OFFSET
        )
    );
}

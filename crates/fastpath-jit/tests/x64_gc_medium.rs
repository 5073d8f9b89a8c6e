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

mod common;

use common::gc_world::{self, layout, queue};
use common::x64::{check, check_stub};
use dynasmrt::{dynasm, x64::X64Relocation, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath_jit::reg::{x64::*, RegSet};
use fastpath_jit::*;

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
        tmp: RAX,
        layout: layout(),
    }
    .emit(&mut ops, Labels { slow: medium, done })
    .unwrap();
    dynasm!(ops ; .arch x64 ; =>done ; pop rbx ; ret ; =>medium);
    SatbEnqueue {
        thread: RDI,
        field: RSI,
        prev: RDX,
        tmp: RCX,
        tmp2: RAX,
        queue: queue(),
    }
    .emit(&mut ops, Labels { slow, done })
    .unwrap();
    dynasm!(ops ; .arch x64 ; jmp =>done);
    SlowStub {
        func: gc_world::satb_flush as *const () as usize,
        args: vec![RDI, RDX],
        ret: None,
        live: RegSet::of(&[RDI, RSI]),
    }
    .emit(&mut ops, slow, done)
    .unwrap();
    cache.install(&ops.finalize().unwrap()).unwrap()
}

/// fn(thread, obj, field) -> obj as the caller may use it: the LRB idle
/// test, the collection-set medium path on `cset`, the stub passing the
/// field as the library's slow path takes it.
fn lrb_function(cache: &CodeCache, cset: CsetMap) -> Entry {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let (medium, slow, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    dynasm!(ops ; .arch x64 ; push rbx);
    GcStateTest {
        barrier: GcBarrier::Lrb,
        thread: RDI,
        tmp: RAX,
        layout: layout(),
    }
    .emit(&mut ops, Labels { slow: medium, done })
    .unwrap();
    dynasm!(ops ; .arch x64 ; =>done ; mov rax, rsi ; pop rbx ; ret ; =>medium);
    LrbCset {
        obj: RSI,
        tmp: RCX,
        tmp2: R8,
        cset,
        forwarding: -8,
    }
    .emit(&mut ops, Labels { slow, done })
    .unwrap();
    dynasm!(ops ; .arch x64 ; jmp =>done);
    SlowStub {
        func: gc_world::lrb_evacuate as *const () as usize,
        args: vec![RDI, RSI, RDX],
        ret: Some(RSI),
        live: RegSet::of(&[RDI, RDX]),
    }
    .emit(&mut ops, slow, done)
    .unwrap();
    cache.install(&ops.finalize().unwrap()).unwrap()
}

common::cases::gc_medium_tests!(satb_function, lrb_function);

#[test]
fn machine_checks_of_the_medium_paths() {
    let satb = SatbEnqueue {
        thread: R15,
        field: RSI,
        prev: RDX,
        tmp: RCX,
        tmp2: RAX,
        queue: SatbQueueLayout::fastpath().unwrap(),
    };
    assert_eq!(check(&satb, &[R15, RCX]).count(), 10);
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
    assert_eq!(check(&lrb, &[]).count(), 11);
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

/// The two stubs as laid out above and as the GC stress lays them out:
/// each saves and restores the live caller-saved registers but its
/// result, writes memory only through rsp, one call (`check_stub`).
#[test]
fn the_medium_paths_stubs_save_what_they_declare() {
    let stub = |args: Vec<_>, ret, live| SlowStub {
        func: fastpath_jit::slow::satb_enqueue as *const () as usize,
        args,
        ret,
        live,
    };
    // SATB: (block, previous value), field and value live.
    let satb = stub(vec![RDI, RDX], None, RegSet::of(&[RDI, RSI]));
    assert_eq!(check_stub(&satb), RegSet::of(&[RSI, RDI]));
    let satb = stub(vec![RDI, RCX], None, RegSet::of(&[RDI, RSI, RDX]));
    assert_eq!(check_stub(&satb), RegSet::of(&[RDX, RSI, RDI]));
    // LRB: (block, object[, field]) -> the reference, in the object's register.
    let lrb = stub(vec![RDI, RSI], Some(RSI), RegSet::of(&[RDI]));
    assert_eq!(check_stub(&lrb), RegSet::of(&[RDI]));
    let lrb = stub(vec![RDI, RAX, RSI], Some(RAX), RegSet::of(&[RDI, RSI, RAX]));
    assert_eq!(check_stub(&lrb), RegSet::of(&[RSI, RDI]));
    // r15 as the thread: callee-saved, not saved by the stub.
    let lrb = stub(vec![R15, R8, R9], Some(R8), RegSet::of(&[R15, R8, R9, RBX]));
    assert_eq!(check_stub(&lrb), RegSet::of(&[R9]));
}

//! The AArch64 SATB enqueue and LRB collection-set medium paths as a JIT
//! lays them out (the x86-64 test's flows, x64_gc_medium.rs): the idle
//! test inline, the medium path out of line at its `slow` label, the
//! AArch64 slow-path stub calling a Rust `extern "C"` function; run from
//! the `CodeCache` (on AArch64, or under qemu in .ci/aarch64) against a
//! hand-built thread block, SATB buffer, heap and collection-set map.
#![cfg(target_arch = "aarch64")]
// dynasm's dynamic registers (`X(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;

use common::a64::count;
use common::gc_world::{self, layout, queue};
use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath_jit::reg::{aarch64::*, RegSet};
use fastpath_jit::*;

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
        func: gc_world::satb_flush as *const () as usize,
        args: vec![X0, X2],
        ret: None,
        live: RegSet::of(&[X0, X1]),
    }
    .emit(&mut ops, slow, done)
    .unwrap();
    cache.install(&ops.finalize().unwrap()).unwrap()
}

/// fn(thread, obj, field) -> obj as the caller may use it: the LRB idle
/// test, the collection-set medium path on `cset`, the stub passing the
/// field as the library's slow path takes it.
fn lrb_function(cache: &CodeCache, cset: CsetMap) -> Entry {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let (medium, slow, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    dynasm!(ops ; .arch aarch64 ; stp x29, x30, [sp, #-16]! ; mov x29, sp);
    GcStateTest {
        barrier: GcBarrier::Lrb,
        thread: X0,
        tmp: X3,
        layout: layout(),
    }
    .emit(&mut ops, Labels { slow: medium, done })
    .unwrap();
    dynasm!(ops ; .arch aarch64 ; =>done ; mov x0, x1 ; ldp x29, x30, [sp], #16 ; ret ; =>medium);
    LrbCset {
        obj: X1,
        tmp: X3,
        tmp2: X4,
        cset,
        forwarding: -8,
    }
    .emit(&mut ops, Labels { slow, done })
    .unwrap();
    dynasm!(ops ; .arch aarch64 ; b =>done);
    SlowStub {
        func: gc_world::lrb_evacuate as *const () as usize,
        args: vec![X0, X1, X2],
        ret: Some(X1),
        live: RegSet::of(&[X0, X2]),
    }
    .emit(&mut ops, slow, done)
    .unwrap();
    cache.install(&ops.finalize().unwrap()).unwrap()
}

common::cases::gc_medium_tests!(satb_function, lrb_function);

#[test]
fn budgets_hold() {
    let satb = SatbEnqueue {
        thread: RTHREAD,
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
    assert_eq!(n, satb.budget(Isa::Aarch64));
    let m = count(&|o, l| lrb.emit(o, l).unwrap());
    assert_eq!(m, lrb.budget(Isa::Aarch64));
    println!("aarch64 SATB enqueue {n}, LRB collection-set path {m}");
}

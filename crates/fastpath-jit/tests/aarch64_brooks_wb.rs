//! The AArch64 Brooks write barrier as a JIT lays it out (the x86-64
//! test's flow, x64_brooks_wb.rs): the state test and forwarding load
//! inline, the AArch64 slow-path stub out of line resuming at the
//! store-value resolution; run from the `CodeCache` (on AArch64, or under
//! qemu in .ci/aarch64) differentially against the Rust model of
//! `fastpath::gc`'s Brooks write barrier on every GC state × object ×
//! value case (`common::brooks_world`); and the same function with the
//! library's `brooks_wb_slow_entry` on a concurrent heap, reaching it and
//! checking the copy (`common::brooks_real`).
#![cfg(target_arch = "aarch64")]
// dynasm's dynamic registers (`X(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;
use common::brooks_world::{EVACUATION, HAS_FORWARDED};

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{aarch64::*, RegSet};
use fastpath_jit::*;

/// fn(thread x0, obj x1, val x2, out x3): out = [object, value]; the
/// block's GC-state byte at `gc_state`, the stub calling `slow`.
fn wb_function<F: Copy>(cache: &CodeCache, gc_state: i32, slow: usize) -> F {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let (stub, storeval, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    dynasm!(ops ; .arch aarch64 ; stp x29, x30, [sp, #-16]! ; mov x29, sp);
    BrooksWriteBarrier {
        thread: X0,
        obj: X1,
        tmp: X4,
        gc_state,
        state_bits: EVACUATION | HAS_FORWARDED,
        forwarding: -8,
    }
    .emit(&mut ops, Labels { slow: stub, done })
    .unwrap();
    dynasm!(ops
        ; .arch aarch64
        ; =>done
        ; str x1, [x3]
        ; str x2, [x3, #8]
        ; ldp x29, x30, [sp], #16
        ; ret
    );
    SlowStub {
        func: slow,
        args: vec![X0, X1],
        ret: Some(X1),
        live: RegSet::of(&[X0, X2, X3]),
    }
    .emit(&mut ops, stub, storeval)
    .unwrap();
    dynasm!(ops ; .arch aarch64 ; =>storeval);
    BrooksStoreVal {
        val: X2,
        forwarding: -8,
    }
    .emit(&mut ops, Labels { slow: done, done })
    .unwrap();
    dynasm!(ops ; .arch aarch64 ; b =>done);
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, usize, usize, *mut [usize;
    // 2])` (`F`, the caller's block type) reading the block's GC-state byte
    // and the objects' forwarding words, writing only `out` (and the heap
    // through the slow path).
    unsafe { e.as_fn() }
}

common::cases::brooks_wb_tests!(wb_function);

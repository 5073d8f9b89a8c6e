//! The AArch64 Brooks write barrier as a JIT lays it out (the x86-64
//! test's flow, x64_brooks_wb.rs): the state test and forwarding load
//! inline, the AArch64 slow-path stub out of line resuming at the
//! store-value resolution; run from the `CodeCache` (on AArch64, or under
//! qemu in .ci/aarch64) differentially against the Rust model of
//! `fastpath::gc`'s Brooks write barrier on every GC state × object ×
//! value case (`brooks_world`).
#![cfg(target_arch = "aarch64")]
// dynasm's dynamic registers (`X(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

use std::mem::offset_of;

mod brooks_world;
use brooks_world::{slow_entry, TestThread, Wb, EVACUATION, HAS_FORWARDED};

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::aarch64::*;
use fastpath_jit::reg::{Reg, RegSet};

const X0: Reg = Reg(0);
const X1: Reg = Reg(1);
const X2: Reg = Reg(2);
const X3: Reg = Reg(3);
const X4: Reg = Reg(4);

/// fn(thread x0, obj x1, val x2, out x3): out = [object, value].
fn wb_function(cache: &CodeCache) -> Wb {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let (slow, storeval, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    dynasm!(ops ; .arch aarch64 ; stp x29, x30, [sp, #-16]! ; mov x29, sp);
    BrooksWriteBarrier {
        thread: X0,
        obj: X1,
        tmp: X4,
        gc_state: offset_of!(TestThread, gc_state) as i32,
        state_bits: EVACUATION | HAS_FORWARDED,
        forwarding: -8,
    }
    .emit(&mut ops, Labels { slow, done })
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
        func: slow_entry as *const () as usize,
        args: vec![X0, X1],
        ret: Some(X1),
        live: RegSet::of(&[X0, X2, X3]),
    }
    .emit(&mut ops, slow, storeval)
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
    // SAFETY: a complete `extern "C" fn(*mut TestThread, usize, usize,
    // *mut [usize; 2])` reading the block and the objects' forwarding
    // words, writing only `out` (and the world through the slow path).
    unsafe { e.as_fn() }
}

#[test]
fn brooks_wb_template_matches_the_rust_barrier_on_every_case() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    brooks_world::differential(wb_function(&cache));
}

//! The data load and store templates and the reference CAS with the
//! library's retry on AArch64 (on AArch64 hardware, or under
//! `qemu-aarch64 -cpu neoverse-n1` in .ci/aarch64), run from the
//! `CodeCache` on real heaps: against the Rust accessors in every preset
//! and during evacuation on a Brooks and an LRB heap (`common::data_world`,
//! the store's stub calling the library's Brooks slow path), and a CAS
//! false failure retried to success (`common::cas_real`). The x86-64
//! flows of x64_data.rs and x64.rs; the words are checked on every host in
//! aarch64_encoding.rs.
#![cfg(target_arch = "aarch64")]
// dynasm's dynamic registers (`X(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;

use common::data_world::{Access, LoadFn, StoreFn};
use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{aarch64::*, Reg, RegSet};
use fastpath_jit::*;

/// `fn(block x0, obj x1, index x2) -> x0`: the load into x9 (so the
/// result's move is the harness's), the object and index kept.
fn load_function(cache: &CodeCache, a: Access) -> LoadFn {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    DataLoad {
        obj: X1,
        dst: X9,
        index: a.indexed.then_some(X2),
        offset: a.offset,
        width: a.width,
        barrier: a.barrier,
    }
    .emit(&mut ops, labels)
    .unwrap();
    dynasm!(ops ; .arch aarch64 ; mov x0, x9 ; ret);
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, obj, index) -> u64` reading
    // the object (and its forwarding word).
    unsafe { e.as_fn() }
}

/// `fn(block x0, obj x1, index x2, value x3) -> the object written`: the
/// object in x19 (callee-saved), the template's own slow call in its stub.
fn store_function(cache: &CodeCache, a: Access, slow: usize) -> StoreFn {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let t = DataStore {
        thread: X0,
        obj: Reg(19),
        src: X3,
        index: a.indexed.then_some(X2),
        tmp: Reg(10),
        tmp2: Reg(11),
        offset: a.offset,
        width: a.width,
        barrier: a.barrier,
    };
    dynasm!(ops ; .arch aarch64
        ; stp x29, x30, [sp, #-16]! ; mov x29, sp ; str x19, [sp, #-16]!
        ; mov x19, x1);
    t.emit(&mut ops, labels).unwrap();
    dynasm!(ops ; .arch aarch64
        ; mov x0, x19 ; ldr x19, [sp], #16 ; ldp x29, x30, [sp], #16 ; ret);
    if let Some(call) = t.slow_call() {
        call.stub(slow, &[], RegSet::of(&[X0, Reg(19), X2, X3]))
            .unwrap()
            .emit(&mut ops, labels.slow, labels.done)
            .unwrap();
    }
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, obj, index, value) -> obj`
    // writing the object's data (and through the stub the heap).
    unsafe { e.as_fn() }
}

common::cases::data_access_tests!(load_function, store_function);
common::cases::reference_access_tests!(load_function, store_function);

/// `fn(block x0, field x1, expected x2, new x3) -> expected on success,
/// else the witness`: the template on fastpath's block (the witness in
/// x4, x5 scratch), its own slow call in its stub.
fn cas_function(cache: &CodeCache, slow: usize) -> common::cas_real::CasFn {
    cas_function_in(cache, RefWidth::Full, slow)
}

/// [`cas_function`] on slots of width `refs`.
fn cas_function_in(cache: &CodeCache, refs: RefWidth, slow: usize) -> common::cas_real::CasFn {
    let cas = CasRef {
        thread: X0,
        addr: X1,
        expected: X2,
        new: X3,
        old: X4,
        tmp: Reg(5),
        layout: ThreadLayout::fastpath().unwrap(),
        refs,
    };
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    dynasm!(ops ; .arch aarch64 ; stp x29, x30, [sp, #-16]! ; mov x29, sp);
    cas.emit(&mut ops, l).unwrap();
    dynasm!(ops ; .arch aarch64 ; =>l.done ; mov x0, x4 ; ldp x29, x30, [sp], #16 ; ret);
    cas.slow_call()
        .unwrap()
        .stub(slow, &[], RegSet::of(&[X0, X1, X2, X3]))
        .unwrap()
        .emit(&mut ops, l.slow, l.done)
        .unwrap();
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, field, expected, new) ->
    // usize`, the CAS on the field, the stub calling `slow`.
    unsafe { e.as_fn() }
}

common::cases::cas_ref_tests!(cas_function);
common::cases::cas_ref_width_tests!(cas_function_in);

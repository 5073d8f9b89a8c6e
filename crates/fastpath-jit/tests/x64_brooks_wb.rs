//! The Brooks write barrier template (Shenandoah 2017) as a JIT lays it
//! out: the state test and forwarding load inline, the slow-path stub out
//! of line resuming at the store-value resolution; run from the
//! `CodeCache` against a hand-built thread block and heap (forwarding
//! words, a collection set, a slow path that evacuates as the library's
//! `brooks_wb_slow_entry` does), differentially against a Rust model of
//! `fastpath::gc`'s Brooks write barrier (`barriers/brooks_wb.rs`) on
//! every GC state × object × value case; the same function with the
//! library's `brooks_wb_slow_entry` on a concurrent heap, reaching it and
//! checking the copy (`common::brooks_real`). And iced-x86 checks:
//! registers written ⊆ clobbers, no memory written, counts within budget;
//! the stub saves what it must.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;
use common::brooks_world::{EVACUATION, HAS_FORWARDED};
use common::x64::{check, check_stub};

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::*;

fn barrier(thread: Reg, obj: Reg, gc_state: i32) -> BrooksWriteBarrier {
    BrooksWriteBarrier {
        thread,
        obj,
        tmp: obj,
        gc_state,
        state_bits: EVACUATION | HAS_FORWARDED,
        forwarding: -8,
    }
}

/// `fn(block, obj, val, out)`: the barrier on `obj` (the block's GC-state
/// byte at `gc_state`), its stub calling `slow`, the stored value's
/// resolution; `out` = [object to write, value to store].
fn wb_function<F: Copy>(cache: &CodeCache, gc_state: i32, slow: usize) -> F {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let (stub, storeval, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    dynasm!(ops ; .arch x64 ; push rbx); // rsp 16-aligned for the stub's call
    barrier(RDI, RSI, gc_state)
        .emit(&mut ops, Labels { slow: stub, done })
        .unwrap();
    dynasm!(ops
        ; .arch x64
        ; =>done
        ; mov [rcx], rsi
        ; mov [rcx + 8], rdx
        ; pop rbx
        ; ret
    );
    SlowStub {
        func: slow,
        args: vec![RDI, RSI],
        ret: Some(RSI),
        live: RegSet::of(&[RDI, RDX, RCX]),
    }
    .emit(&mut ops, stub, storeval)
    .unwrap();
    dynasm!(ops ; .arch x64 ; =>storeval);
    BrooksStoreVal {
        val: RDX,
        forwarding: -8,
    }
    .emit(&mut ops, Labels { slow: done, done })
    .unwrap();
    dynasm!(ops ; .arch x64 ; jmp =>done);
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, usize, usize, *mut [usize;
    // 2])` (`F`, the caller's block type) reading the block's GC-state byte
    // and the objects' forwarding words, writing only `out` (and the heap
    // through the slow path).
    unsafe { e.as_fn() }
}

common::cases::brooks_wb_tests!(wb_function);

#[test]
fn machine_checks_of_the_brooks_write_barrier() {
    for (thread, obj) in [(R15, RAX), (RDI, RSI), (R12, R11)] {
        let wb = BrooksWriteBarrier {
            state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
            gc_state: fastpath::thread::GC_STATE_OFFSET as i32,
            ..barrier(thread, obj, 0)
        };
        assert_eq!(check(&wb, &[]).count(), 3);
        assert_eq!(wb.clobbers(Isa::X64), RegSet::of(&[obj]));
        assert_eq!(
            check(
                &BrooksStoreVal {
                    val: obj,
                    forwarding: -8
                },
                &[]
            )
            .count(),
            3
        );
    }
}

/// The Brooks write barrier's stub as a JIT lays it out (object in, the
/// object to write out, the stored value and the field live): saves and
/// restores the live caller-saved registers but the result, writes memory
/// only through rsp, one call to the library's slow path.
#[test]
fn the_brooks_wb_stub_saves_what_it_declares() {
    for (thread, obj, live) in [
        (R15, RAX, RegSet::of(&[R15, RAX, RDX, RCX])),
        (RDI, RSI, RegSet::of(&[RDI, RSI, RDX, RCX, R8])),
        (R12, R11, RegSet::of(&[R12, R11, RBX, R10])),
    ] {
        let stub = SlowStub {
            func: fastpath_jit::slow::brooks_wb as *const () as usize,
            args: vec![thread, obj],
            ret: Some(obj),
            live,
        };
        let saved = check_stub(&stub);
        let want = RegSet(live.0 & CALLER_SAVED.0 & !(1 << obj.0));
        assert_eq!(saved, want, "{thread:?}, {obj:?}");
    }
}

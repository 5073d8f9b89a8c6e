//! The Brooks write barrier template (Shenandoah 2017) as a JIT lays it
//! out: the state test and forwarding load inline, the slow-path stub out
//! of line resuming at the store-value resolution; run from the
//! `CodeCache` against a hand-built thread block and heap (forwarding
//! words, a collection set, a slow path that evacuates as the library's
//! `brooks_wb_slow_entry` does), differentially against a Rust model of
//! `fastpath::gc`'s Brooks write barrier (`barriers/brooks_wb.rs`) on
//! every GC state × object × value case. And iced-x86 checks: registers
//! written ⊆ clobbers, no memory written, counts within budget.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

use std::mem::offset_of;

mod brooks_world;
use brooks_world::{slow_entry, TestThread, Wb, EVACUATION, HAS_FORWARDED};

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::x64::*;
use iced_x86::{Decoder, DecoderOptions, InstructionInfoFactory, OpAccess};

fn barrier(thread: Reg, obj: Reg) -> BrooksWriteBarrier {
    BrooksWriteBarrier {
        thread,
        obj,
        gc_state: offset_of!(TestThread, gc_state) as i32,
        state_bits: EVACUATION | HAS_FORWARDED,
        forwarding: -8,
    }
}

fn wb_function(cache: &CodeCache) -> Wb {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let (slow, storeval, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    dynasm!(ops ; .arch x64 ; push rbx); // rsp 16-aligned for the stub's call
    barrier(RDI, RSI).emit(&mut ops, Labels { slow, done });
    dynasm!(ops
        ; .arch x64
        ; =>done
        ; mov [rcx], rsi
        ; mov [rcx + 8], rdx
        ; pop rbx
        ; ret
    );
    SlowStub {
        func: slow_entry as *const () as usize,
        args: vec![RDI, RSI],
        ret: Some(RSI),
        live: RegSet::of(&[RDI, RDX, RCX]),
    }
    .emit(&mut ops, slow, storeval)
    .unwrap();
    dynasm!(ops ; .arch x64 ; =>storeval);
    BrooksStoreVal {
        val: RDX,
        forwarding: -8,
    }
    .emit(&mut ops, Labels { slow: done, done });
    dynasm!(ops ; .arch x64 ; jmp =>done);
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

/// Decodes a template: registers written ⊆ clobbers, no memory written,
/// common path within budget.
fn check<T: Template>(t: &T) -> usize {
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
            assert!(!is_write(m.access()), "{}: writes memory: {insn}", t.name());
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
fn machine_checks_of_the_brooks_write_barrier() {
    for (thread, obj) in [(R15, RAX), (RDI, RSI), (R12, R11)] {
        let wb = BrooksWriteBarrier {
            state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
            gc_state: fastpath::thread::GC_STATE_OFFSET as i32,
            ..barrier(thread, obj)
        };
        assert_eq!(check(&wb), 3);
        assert_eq!(wb.clobbers(), RegSet::of(&[obj]));
        assert_eq!(
            check(&BrooksStoreVal {
                val: obj,
                forwarding: -8
            }),
            3
        );
    }
}

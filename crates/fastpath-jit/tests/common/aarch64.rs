//! The AArch64 harness: a template run from fastpath's `CodeCache` (on
//! AArch64 hardware, or under `qemu-aarch64 -cpu neoverse-n1` in
//! .ci/aarch64) with a `#[repr(C)]` test thread block in x28 (HotSpot's
//! `rthread`), reporting which label it reached and the value of its
//! result register.

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::Reg;
use fastpath_jit::{Emit, Isa, Labels};

use super::block::TestThread;

pub const ARG: Reg = Reg(9);

/// Opens a frame saving the frame record and every callee-saved register
/// (x19–x28): sp stays 16-aligned, and the function may use any register.
pub fn save_callee_saved(ops: &mut VecAssembler<Aarch64Relocation>) {
    dynasm!(ops ; .arch aarch64
        ; stp x29, x30, [sp, #-16]! ; mov x29, sp
        ; stp x19, x20, [sp, #-16]! ; stp x21, x22, [sp, #-16]!
        ; stp x23, x24, [sp, #-16]! ; stp x25, x26, [sp, #-16]!
        ; stp x27, x28, [sp, #-16]!);
}

/// A function's start: its assembler, a template's labels and an `end`
/// label, and [`save_callee_saved`]'s frame.
pub fn start() -> (VecAssembler<Aarch64Relocation>, Labels, DynamicLabel) {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let end = ops.new_dynamic_label();
    save_callee_saved(&mut ops);
    (ops, labels, end)
}

/// Closes [`save_callee_saved`]'s frame and returns.
pub fn restore_and_return(ops: &mut VecAssembler<Aarch64Relocation>) {
    dynasm!(ops ; .arch aarch64
        ; ldp x27, x28, [sp], #16 ; ldp x25, x26, [sp], #16
        ; ldp x23, x24, [sp], #16 ; ldp x21, x22, [sp], #16
        ; ldp x19, x20, [sp], #16 ; ldp x29, x30, [sp], #16
        ; ret);
}

/// Runs `t` with x28 = `thread`, x9 = `arg`: `(reached slow, x9 after)`
/// (`done` and the fall-through both count as not slow).
pub fn run<T: Emit<Aarch64Relocation>>(t: &T, thread: &mut TestThread, arg: u64) -> (bool, u64) {
    let (label, x9) = run3(t, thread, [arg, 0, 0]);
    (label == SLOW, x9)
}

pub const FELL_THROUGH: u64 = 0;
pub const SLOW: u64 = 1;
pub const DONE: u64 = 2;

/// Runs `t` with x28 = `thread`, x9/x12/x13 = `args`: the label reached
/// and x9 after.
pub fn run3<T: Emit<Aarch64Relocation>>(t: &T, thread: &mut TestThread, args: [u64; 3]) -> (u64, u64) {
    // fn(thread, a9, out: *mut u64, a12, a13) -> label.
    let (mut ops, labels, end) = start();
    dynasm!(ops ; .arch aarch64
        ; stp x2, x3, [sp, #-16]!
        ; mov x28, x0 ; mov x9, x1 ; mov x12, x3 ; mov x13, x4);
    let n0 = ops.offset().0;
    t.emit(&mut ops, labels).unwrap();
    let n = (ops.offset().0 - n0) / 4;
    assert!(
        n <= t.budget(Isa::Aarch64) + 2,
        "{}: {n} instructions emitted",
        t.name()
    );
    dynasm!(ops ; .arch aarch64
        ; movz x0, #FELL_THROUGH as u32 ; b =>end
        ; =>labels.done ; movz x0, #DONE as u32 ; b =>end
        ; =>labels.slow ; movz x0, #SLOW as u32
        ; =>end
        ; ldp x2, x3, [sp], #16 ; str x9, [x2]);
    restore_and_return(&mut ops);
    let cache = CodeCache::new(4096).unwrap();
    let entry = cache.install(&ops.finalize().unwrap()).unwrap();
    let mut out = 0u64;
    // SAFETY: a complete `extern "C" fn(*mut TestThread, u64, *mut u64,
    // u64, u64) -> u64` that reads the test block at its layout's offsets
    // and, for the card, Brooks and CAS templates, the memory the tests give it.
    let label = unsafe {
        let f: unsafe extern "C" fn(*mut TestThread, u64, *mut u64, u64, u64) -> u64 = entry.as_fn();
        f(thread, args[0], &mut out, args[1], args[2])
    };
    println!(
        "aarch64 {}: {n} instructions emitted, budget {}",
        t.name(),
        t.budget(Isa::Aarch64)
    );
    (label, out)
}

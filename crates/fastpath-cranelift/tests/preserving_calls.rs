//! The barriers' register-preserving slow-path calls
//! (`fastpath_cranelift::preserve`), run: values loaded before the call
//! and used after it come back intact although the slow path destroys
//! every caller-saved register, the arguments and the result go through
//! the stub's argument block, and the load-reference barrier's fast path
//! keeps its values in registers (no stack access, no address computed
//! for the slow path).

#![cfg(all(target_arch = "x86_64", not(windows)))]

mod common;

use cranelift_codegen::ir::types::{F64, I64};
use cranelift_codegen::ir::{FuncRef, InstBuilder, MemFlagsData};
use fastpath::code::CodeCache;
use fastpath_cranelift::import_library_slow_path;
use fastpath_cranelift::preserve::{preserving_call_displaced, AVAILABLE};
use fastpath_jit::slow::LibraryPath;

use common::compile;

/// Integer and floating-point values live across the call.
const INTS: usize = 12;
const FLOATS: usize = 8;

/// A slow path with the LRB's signature that overwrites every
/// caller-saved general and vector register before returning
/// `obj * 1000 + field`.
extern "C" fn clobbering_slow(_t: u64, obj: u64, field: u64) -> u64 {
    // SAFETY: writes only registers declared clobbered; touches no memory.
    unsafe {
        core::arch::asm!(
            "mov rax, -1", "mov rcx, -1", "mov rdx, -1", "mov rsi, -1", "mov rdi, -1",
            "mov r8, -1", "mov r9, -1", "mov r10, -1", "mov r11, -1",
            "pcmpeqd xmm0, xmm0", "pcmpeqd xmm1, xmm1", "pcmpeqd xmm2, xmm2", "pcmpeqd xmm3, xmm3",
            "pcmpeqd xmm4, xmm4", "pcmpeqd xmm5, xmm5", "pcmpeqd xmm6, xmm6", "pcmpeqd xmm7, xmm7",
            "pcmpeqd xmm8, xmm8", "pcmpeqd xmm9, xmm9", "pcmpeqd xmm10, xmm10", "pcmpeqd xmm11, xmm11",
            "pcmpeqd xmm12, xmm12", "pcmpeqd xmm13, xmm13", "pcmpeqd xmm14, xmm14", "pcmpeqd xmm15, xmm15",
            out("rax") _, out("rcx") _, out("rdx") _, out("rsi") _, out("rdi") _,
            out("r8") _, out("r9") _, out("r10") _, out("r11") _,
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
            out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
            out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
            out("xmm12") _, out("xmm13") _, out("xmm14") _, out("xmm15") _,
        );
    }
    obj * 1000 + field
}

/// `fn(ints, floats, obj, field) -> i64`: loads `INTS` words and `FLOATS`
/// doubles, calls the slow path through the stub with `field + 24`, then
/// returns the result plus every word times its index plus the doubles'
/// sum times their index, truncated.
#[test]
fn values_live_across_a_preserving_call_survive_a_clobbering_slow_path() {
    const { assert!(AVAILABLE) };
    let cache = CodeCache::new(64 * 1024).unwrap();
    let slow = clobbering_slow as *const () as usize;
    let e = compile(&cache, 4, Some(I64), &[slow], |b, a| {
        let f: FuncRef = import_library_slow_path(b, 0, LibraryPath::Lrb, true);
        let flags = MemFlagsData::trusted();
        let ints: Vec<_> = (0..INTS)
            .map(|i| b.ins().load(I64, flags, a[0], 8 * i as i32))
            .collect();
        let floats: Vec<_> = (0..FLOATS)
            .map(|i| b.ins().load(F64, flags, a[1], 8 * i as i32))
            .collect();
        let zero = b.ins().iconst(I64, 0);
        let r = preserving_call_displaced(b, f, &[zero, a[2], a[3]], 24).expect("a result");
        let mut acc = r;
        for (i, v) in ints.into_iter().enumerate() {
            let k = b.ins().imul_imm_s(v, i as i64 + 1);
            acc = b.ins().iadd(acc, k);
        }
        let mut facc = b.ins().f64const(0.0);
        for (i, v) in floats.into_iter().enumerate() {
            let k = b.ins().f64const(i as f64 + 1.0);
            let m = b.ins().fmul(v, k);
            facc = b.ins().fadd(facc, m);
        }
        let t = b.ins().fcvt_to_sint_sat(I64, facc);
        Some(b.ins().iadd(acc, t))
    });
    let ints: Vec<i64> = (0..INTS as i64).map(|i| 3 + 5 * i).collect();
    let floats: Vec<f64> = (0..FLOATS).map(|i| 0.5 + i as f64).collect();
    // SAFETY: `e` is the function compiled above with that signature.
    let f: extern "C" fn(*const i64, *const f64, i64, i64) -> i64 = unsafe { std::mem::transmute(e.addr()) };
    let got = f(ints.as_ptr(), floats.as_ptr(), 7, 100);
    let mut want = 7 * 1000 + 124;
    for (i, v) in ints.iter().enumerate() {
        want += v * (i as i64 + 1);
    }
    let fsum: f64 = floats.iter().enumerate().map(|(i, v)| v * (i as f64 + 1.0)).sum();
    want += fsum as i64;
    assert_eq!(
        got, want,
        "a value live across the call was destroyed, or an argument lost"
    );
}

//! Slow-path calls that destroy no register: a barrier's cold call as
//! HotSpot's C2 makes it (Shenandoah's and G1's C2 stubs save the live
//! registers around the runtime call), so that the values live across a
//! barrier stay in registers on its fast path.
//!
//! Where it sits: the barrier emitters (`barrier.rs`) call their slow
//! path through [`preserving_call`] in their cold blocks. A plain
//! (System V) call there clobbers every caller-saved register on the
//! cold path, and since the cold path joins the fast one, the register
//! allocator must keep every value live across the barrier in one of
//! the few callee-saved registers or in a stack slot, spilled and
//! reloaded on the fast path too. With a `preserve_all` call
//! (`CallConv::PreserveAll`, which clobbers nothing) the cold path
//! constrains nothing.
//!
//! The call goes to `preserving_stub`, a fixed entry that keeps that
//! promise for any `extern "C"` slow path:
//!
//! ```text
//!   caller (cold block):  block = [a0, a1, a2, a3, target, disp]  ; a stack slot
//!                         stub(&block)                            ; preserve_all
//!                         result = block[0]
//!   stub(p):              push rbp; rbp = rsp
//!                         push rax, rcx, rdx, rsi, rdi, r8, r9, r10, r11  ; every caller-saved GPR
//!                         rsp -= 264; store xmm0..xmm15                   ; every vector register
//!                         rax = p.target(p.a0, p.a1, p.a2 + p.disp, p.a3) ; System V
//!                         p.a0 = rax                                      ; the result, by memory
//!                         reload xmm0..xmm15, pop r11 .. rax, pop rbp, ret
//! ```
//!
//! The arguments go by memory too: stores from whatever registers hold
//! them, where argument registers would pull those values towards `rdi`,
//! `rsi`, ... on the fast path as well (the register allocator's hints),
//! and `preserve_all` signatures cannot return values (Cranelift's
//! verifier). The target's address is the slow path's import (an
//! absolute address, relocated as any import).
//!
//! Invariants: at the stub's `call`, `rsp` is 16-byte aligned (entry at
//! 8 mod 16, then 10 pushes and 264 bytes); every register the System V
//! callee may destroy (rax, rcx, rdx, rsi, rdi, r8-r11, xmm0-xmm15) is
//! restored; the callee-saved ones the callee restores itself. The JIT's
//! floating-point values live in the low 128 bits of the vector registers
//! (Cranelift emits no 256-bit operations), which the stub saves.
//!
//! x86-64 System V only (Linux and the other ELF targets); elsewhere
//! [`preserving_call`] makes the plain call.

use cranelift_codegen::ir::{
    types::I64, AbiParam, ExtFuncData, FuncRef, InstBuilder, Signature, StackSlot, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

/// The most word arguments a slow path called through the stub takes.
pub const MAX_ARGS: usize = 4;

/// Whether this target has `preserving_stub` (x86-64 System V).
pub const AVAILABLE: bool = cfg!(all(target_arch = "x86_64", not(windows)));

/// Calls `slow` (a System V import taking at most [`MAX_ARGS`] words,
/// returning a word or nothing) with `args` through the register-preserving
/// stub, in the current (cold) block: its result, if it has one. Without
/// the stub ([`AVAILABLE`] false, or more arguments), a plain call.
pub fn preserving_call(b: &mut FunctionBuilder<'_>, slow: FuncRef, args: &[Value]) -> Option<Value> {
    preserving_call_displaced(b, slow, args, 0)
}

/// As [`preserving_call`], the third argument being `args[2] + disp`,
/// added by the stub: a field's address passed as its object and offset
/// is computed on the slow path alone. (Computed in the cold block, the
/// addition would be merged with the fast path's identical one, which its
/// load folds into an address mode, and emitted there for the call's sake.)
pub fn preserving_call_displaced(
    b: &mut FunctionBuilder<'_>,
    slow: FuncRef,
    args: &[Value],
    disp: i32,
) -> Option<Value> {
    let data = b.func.dfg.ext_funcs[slow].clone();
    let ret = {
        let sig = &b.func.dfg.signatures[data.signature];
        assert_eq!(sig.params.len(), args.len(), "the slow path's arguments");
        sig.returns.first().map(|r| r.value_type)
    };
    if !AVAILABLE || args.len() > MAX_ARGS {
        let mut args = args.to_vec();
        if disp != 0 {
            args[2] = b.ins().iadd_imm_s(args[2], i64::from(disp));
        }
        let call = b.ins().call(slow, &args);
        return b.inst_results(call).first().copied();
    }
    // The target's absolute address: the same external name, not
    // colocated, so `func_addr` is an absolute relocation whatever
    // distance separates the code from the slow path.
    let target = b.import_function(ExtFuncData {
        colocated: false,
        ..data
    });
    let target = b.ins().func_addr(I64, target);
    let block = arg_block(b);
    for (i, &a) in args.iter().enumerate() {
        b.ins().stack_store(I64, a, block, 8 * i as i32);
    }
    b.ins().stack_store(I64, target, block, TARGET_OFFSET);
    let disp = b.ins().iconst(I64, i64::from(disp));
    b.ins().stack_store(I64, disp, block, DISP_OFFSET);
    let at = b.ins().stack_addr(I64, block, 0);
    let mut sig = Signature::new(CallConv::PreserveAll);
    sig.params.push(AbiParam::new(I64));
    let sigref = b.import_signature(sig);
    let stub = b.ins().iconst(I64, stub_addr() as i64);
    b.ins().call_indirect(sigref, stub, &[at]);
    ret.map(|t| b.ins().stack_load(I64, t, block, 0))
}

/// The function's argument block: one stack slot that all its preserving
/// calls share (one call's block is dead once its result is loaded), so
/// that one address, not one per call, is what the compiler may keep.
/// Found by its key ([`crate::ARG_BLOCK_KEY`]).
fn arg_block(b: &mut FunctionBuilder<'_>) -> StackSlot {
    crate::slow::shared_block(
        b,
        crate::slow::ARG_BLOCK_KEY,
        ARG_BLOCK_BYTES,
        ARG_BLOCK_ALIGN_SHIFT,
    )
}

/// The argument block's alignment (16 bytes).
const ARG_BLOCK_ALIGN_SHIFT: u8 = 4;
/// The argument block's size: [`MAX_ARGS`] words, the target, the third
/// argument's displacement.
const ARG_BLOCK_BYTES: u32 = 8 * (MAX_ARGS as u32 + 2);
/// The target's offset in the argument block.
const TARGET_OFFSET: i32 = 8 * MAX_ARGS as i32;
/// The displacement's offset in the argument block.
const DISP_OFFSET: i32 = TARGET_OFFSET + 8;

fn stub_addr() -> usize {
    #[cfg(all(target_arch = "x86_64", not(windows)))]
    {
        preserving_stub as *const () as usize
    }
    #[cfg(not(all(target_arch = "x86_64", not(windows))))]
    {
        unreachable!("no preserving stub on this target")
    }
}

/// The register-preserving entry (see the module comment): called with
/// Cranelift's `preserve_all` convention with the address of an argument
/// block `[a0, a1, a2, a3, target, disp]`, it calls `target(a0, a1, a2 +
/// disp, a3)`
/// (System V), stores its `rax` in the block's first word, and returns
/// with every register as it found them. Only compiled code calls it (its convention is not
/// one Rust can call with).
#[cfg(all(target_arch = "x86_64", not(windows)))]
// SAFETY: the body is one `naked_asm!` that sets up its own frame and
// follows the contract above; no Rust code runs in it.
#[unsafe(naked)]
unsafe extern "C" fn preserving_stub() {
    core::arch::naked_asm!(
        "push rbp",
        "mov rbp, rsp",
        "push rax",
        "push rcx",
        "push rdx",
        "push rsi",
        "push rdi",
        "push r8",
        "push r9",
        "push r10",
        "push r11",
        "sub rsp, 264",
        "movdqu [rsp], xmm0",
        "movdqu [rsp + 16], xmm1",
        "movdqu [rsp + 32], xmm2",
        "movdqu [rsp + 48], xmm3",
        "movdqu [rsp + 64], xmm4",
        "movdqu [rsp + 80], xmm5",
        "movdqu [rsp + 96], xmm6",
        "movdqu [rsp + 112], xmm7",
        "movdqu [rsp + 128], xmm8",
        "movdqu [rsp + 144], xmm9",
        "movdqu [rsp + 160], xmm10",
        "movdqu [rsp + 176], xmm11",
        "movdqu [rsp + 192], xmm12",
        "movdqu [rsp + 208], xmm13",
        "movdqu [rsp + 224], xmm14",
        "movdqu [rsp + 240], xmm15",
        "mov r9, [rdi + 32]",
        "mov rsi, [rdi + 8]",
        "mov rdx, [rdi + 16]",
        "add rdx, [rdi + 40]",
        "mov rcx, [rdi + 24]",
        "mov rdi, [rdi]",
        "call r9",
        // The block's address, pushed fifth.
        "mov rdi, [rbp - 40]",
        "mov [rdi], rax",
        "movdqu xmm0, [rsp]",
        "movdqu xmm1, [rsp + 16]",
        "movdqu xmm2, [rsp + 32]",
        "movdqu xmm3, [rsp + 48]",
        "movdqu xmm4, [rsp + 64]",
        "movdqu xmm5, [rsp + 80]",
        "movdqu xmm6, [rsp + 96]",
        "movdqu xmm7, [rsp + 112]",
        "movdqu xmm8, [rsp + 128]",
        "movdqu xmm9, [rsp + 144]",
        "movdqu xmm10, [rsp + 160]",
        "movdqu xmm11, [rsp + 176]",
        "movdqu xmm12, [rsp + 192]",
        "movdqu xmm13, [rsp + 208]",
        "movdqu xmm14, [rsp + 224]",
        "movdqu xmm15, [rsp + 240]",
        "add rsp, 264",
        "pop r11",
        "pop r10",
        "pop r9",
        "pop r8",
        "pop rdi",
        "pop rsi",
        "pop rdx",
        "pop rcx",
        "pop rax",
        "pop rbp",
        "ret",
    )
}

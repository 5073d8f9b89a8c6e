//! The safepoint poll's stop: a `preserve_all` function between compiled
//! code and the runtime's `poll`, so that a poll destroys no register.
//!
//! Where it sits: `Jit::init` compiles [`stop_stub`] once, installs it in
//! the code cache and puts its address in the helper table as
//! [`Helper::Poll`](super::helpers::Helper::Poll), whose calls use
//! Cranelift's `preserve_all` convention (`Helper::call_conv`); every poll
//! `translate.rs` emits (method entries, loop back edges, a leaf's calls)
//! calls it from its cold block.
//!
//! Why: a loop's back edge polls, and the poll's stop joins the loop
//! again. Through a System V call, every value live around the loop would
//! have to sit in one of the four callee-saved registers the pinned
//! context register leaves, or in a stack slot reloaded on the hot path
//! too (Sieve's inner loop spilled its index and count: five stack
//! accesses an iteration). With a call that clobbers nothing the cold
//! path constrains no register. HotSpot's poll does the same: its stub
//! reaches `SafepointBlob`, which saves every register
//! (`sharedRuntime_x86_64.cpp`, `generate_handler_blob`).
//!
//! The stub is compiled by Cranelift with the `preserve_all` convention
//! itself: its prologue saves every register it clobbers, the System V
//! call's clobbers included (the integer caller-saved registers and the
//! whole 128 bits of each vector register), so it keeps the promise on
//! x86-64 and AArch64 alike. The references the safepoint spilled are
//! reloaded after it by the caller (the collector may have moved them);
//! every other value is the same bits after the stop.

use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, Signature, UserFuncName};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

/// The name space of the stub's function name, apart from the methods'
/// (0), the imports' (1), the adapters' (2), the OSR entries' (3) and the
/// OSR adapters' (4).
const NAMESPACE: u32 = 5;

/// `stub(ctx)` with the `preserve_all` convention: calls the System V
/// function at `poll` (`extern "C" fn(ctx)`) and returns.
pub fn stop_stub(poll: usize, frontend: TargetFrontendConfig) -> Function {
    let mut sig = Signature::new(CallConv::PreserveAll);
    sig.params.push(AbiParam::new(I64));
    let mut func = Function::with_name_signature(UserFuncName::user(NAMESPACE, 0), sig);
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let ctx = b.block_params(entry)[0];
    let mut target_sig = Signature::new(CallConv::SystemV);
    target_sig.params.push(AbiParam::new(I64));
    let sigref = b.import_signature(target_sig);
    let target = b.ins().iconst(I64, poll as i64);
    b.ins().call_indirect(sigref, target, &[ctx]);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(frontend);
    func
}

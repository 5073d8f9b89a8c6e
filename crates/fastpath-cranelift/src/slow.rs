//! Slow paths from CLIF: importing the `extern "C"` function a fast path
//! calls in its uncommon case (the library's, with its signature from
//! [`LibraryPath`], or the runtime's own), and the cold block that calls
//! it, which every emitter ends its uncommon case with.
//!
//! A slow path may also be a `preserve_all` function (Cranelift's
//! `CallConv::PreserveAll`, which clobbers no register), so that the values
//! live across the cold call need no callee-saved register or stack slot
//! on the fast path. Such a function cannot return values (Cranelift's
//! verifier refuses `preserve_all` signatures with returns), so it returns
//! them through memory: its last parameter is the address of a result
//! block where it stores result `i` at `i * RESULT_STRIDE`, and the caller
//! loads them after the call ([`call_slow`]). The JIT that installs such a
//! function (a stub calling a System V one, as `fastpath-vm`'s
//! `jit/preserve.rs`) keeps that side of the convention.

use cranelift_codegen::ir::{
    self, types::I32, types::I64, AbiParam, ExtFuncData, ExternalName, FuncRef, InstBuilder, Signature,
    StackSlot, StackSlotData, StackSlotKind, Type, UserExternalName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;
use fastpath_jit::slow::{LibraryPath, SlowResult};

/// Imports an `extern "C" fn(thread)`-shaped slow path (a pointer-sized
/// argument per `args`, no result) named `(namespace 1, index)`; `install`'s
/// `resolve` maps `index` to its address. `colocated` asks Cranelift for a
/// PC-relative call (a veneer if the function is out of range) instead of
/// an absolute address in a register.
pub fn import_slow_path(b: &mut FunctionBuilder<'_>, index: u32, args: usize, colocated: bool) -> FuncRef {
    import(b, index, args, None, colocated)
}

/// As [`import_slow_path`], for a slow path returning a value of type `ret`
/// (`I32` for `fastpath_jit::slow::monitor_exit`'s status, `I64` for an
/// address or a witnessed reference).
pub fn import_slow_path_with_result(
    b: &mut FunctionBuilder<'_>,
    index: u32,
    args: usize,
    ret: ir::Type,
    colocated: bool,
) -> FuncRef {
    import(b, index, args, Some(ret), colocated)
}

/// Imports the library's slow path `path` named `(namespace 1, index)`,
/// with its signature (its arguments, and a `u32` status as `I32` or a word
/// as `I64`); `install`'s `resolve` maps `index` to `path.addr()`.
pub fn import_library_slow_path(
    b: &mut FunctionBuilder<'_>,
    index: u32,
    path: LibraryPath,
    colocated: bool,
) -> FuncRef {
    let ret = path.result().map(|r| match r {
        SlowResult::Status => I32,
        SlowResult::Word => I64,
    });
    import(b, index, path.args().len(), ret, colocated)
}

fn import(
    b: &mut FunctionBuilder<'_>,
    index: u32,
    args: usize,
    ret: Option<ir::Type>,
    colocated: bool,
) -> FuncRef {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.extend((0..args).map(|_| AbiParam::new(I64)));
    sig.returns.extend(ret.map(AbiParam::new));
    let signature = b.import_signature(sig);
    let name = b
        .func
        .declare_imported_user_function(UserExternalName { namespace: 1, index });
    b.import_function(ExtFuncData {
        name: ExternalName::user(name),
        signature,
        colocated,
        patchable: false,
    })
}

/// Fills `block` (marked cold; the builder may already be in it, with the
/// arguments computed there): `slow(args)`, then a jump to `cont` with the
/// call's result as its argument if `cont` takes one. Returns the result,
/// if any.
pub(crate) fn cold_call(
    b: &mut FunctionBuilder<'_>,
    block: ir::Block,
    slow: FuncRef,
    args: &[Value],
    cont: ir::Block,
) -> Option<Value> {
    b.set_cold_block(block);
    if b.current_block() != Some(block) {
        b.switch_to_block(block);
    }
    let results: Vec<Type> = b
        .func
        .dfg
        .block_params(cont)
        .iter()
        .map(|&p| b.func.dfg.value_type(p))
        .collect();
    let r = call_slow(b, slow, args, &results).first().copied();
    let pass: Vec<ir::BlockArg> = if b.func.dfg.num_block_params(cont) > 0 {
        r.into_iter().map(Into::into).collect()
    } else {
        Vec::new()
    };
    b.ins().jump(cont, &pass);
    r
}

/// The distance between two results in a `preserve_all` slow path's
/// result block (each result is stored with its own type at its word).
pub const RESULT_STRIDE: i32 = 8;

/// The most results a `preserve_all` slow path returns through memory.
pub const MAX_RESULTS: usize = 2;

/// Whether `slow` returns its results through memory: a `preserve_all`
/// import with one parameter more than the `args` it is called with (the
/// result block's address).
fn results_by_memory(b: &FunctionBuilder<'_>, slow: FuncRef, args: usize) -> bool {
    let sig = &b.func.dfg.signatures[b.func.dfg.ext_funcs[slow].signature];
    sig.call_conv == CallConv::PreserveAll && sig.params.len() == args + 1
}

/// Calls `slow` with `args`: its results, of types `results`. A plain
/// import's results are its call's; a `preserve_all` one that takes a
/// result block's address after `args` (module docs) gets the address of
/// the function's result block and its results are loaded from there after
/// the call.
pub fn call_slow(b: &mut FunctionBuilder<'_>, slow: FuncRef, args: &[Value], results: &[Type]) -> Vec<Value> {
    if !results_by_memory(b, slow, args.len()) {
        let call = b.ins().call(slow, args);
        return b.inst_results(call).to_vec();
    }
    assert!(results.len() <= MAX_RESULTS, "a preserve_all slow path's results");
    let slot = result_block(b);
    let at = b.ins().stack_addr(I64, slot, 0);
    let mut all = args.to_vec();
    all.push(at);
    b.ins().call(slow, &all);
    results
        .iter()
        .enumerate()
        .map(|(i, &t)| b.ins().stack_load(I64, t, slot, RESULT_STRIDE * i as i32))
        .collect()
}

/// The function's result block: one stack slot that all its calls through
/// memory share (a call's results are loaded right after it, so the block
/// is dead between calls). Recognised by its size and alignment, which
/// nothing else here uses.
fn result_block(b: &mut FunctionBuilder<'_>) -> StackSlot {
    let found = b.func.sized_stack_slots.iter().find(|(_, d)| {
        d.kind == StackSlotKind::ExplicitSlot
            && d.size == RESULT_BLOCK_BYTES
            && d.align_shift == RESULT_BLOCK_ALIGN_SHIFT
    });
    match found {
        Some((slot, _)) => slot,
        None => b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            RESULT_BLOCK_BYTES,
            RESULT_BLOCK_ALIGN_SHIFT,
        )),
    }
}

/// The result block's size: [`MAX_RESULTS`] words.
const RESULT_BLOCK_BYTES: u32 = RESULT_STRIDE as u32 * MAX_RESULTS as u32;
/// The result block's alignment (16 bytes; the argument block of
/// `preserve.rs` is 48 bytes, so the two are never taken for each other).
const RESULT_BLOCK_ALIGN_SHIFT: u8 = 4;

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
    StackSlot, StackSlotData, StackSlotKey, StackSlotKind, Type, UserExternalName, Value,
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
/// is dead between calls), found by its key ([`RESULT_BLOCK_KEY`]).
fn result_block(b: &mut FunctionBuilder<'_>) -> StackSlot {
    shared_block(b, RESULT_BLOCK_KEY, RESULT_BLOCK_BYTES, RESULT_BLOCK_ALIGN_SHIFT)
}

/// The key ([`StackSlotKey`]) of the block a `preserve_all` slow path's
/// results come back through ([`call_slow`]). This crate finds the blocks
/// it shares among one function's calls by their keys, so a slot of the
/// embedder's own, whatever its size, is never taken for one; an embedder
/// that keys its own slots avoids this value and [`ARG_BLOCK_KEY`].
pub const RESULT_BLOCK_KEY: u64 = u64::from_be_bytes(*b"fp-rsblk");

/// The key of the argument block of the barriers' preserving calls
/// (`preserve.rs`), as [`RESULT_BLOCK_KEY`].
pub const ARG_BLOCK_KEY: u64 = u64::from_be_bytes(*b"fp-agblk");

/// The function's explicit stack slot keyed `key`, `bytes` long and
/// aligned to `1 << align_shift`: the one made by an earlier call, or a new
/// one.
pub(crate) fn shared_block(b: &mut FunctionBuilder<'_>, key: u64, bytes: u32, align_shift: u8) -> StackSlot {
    let key = StackSlotKey::new(key);
    let found = b
        .func
        .sized_stack_slots
        .iter()
        .find(|(_, d)| d.kind == StackSlotKind::ExplicitSlot && d.key == Some(key));
    match found {
        Some((slot, d)) => {
            debug_assert!(
                d.size == bytes && d.align_shift == align_shift,
                "a keyed block's shape"
            );
            slot
        }
        None => b.create_sized_stack_slot(StackSlotData::new_with_key(
            StackSlotKind::ExplicitSlot,
            bytes,
            align_shift,
            key,
        )),
    }
}

/// The result block's size: [`MAX_RESULTS`] words.
const RESULT_BLOCK_BYTES: u32 = RESULT_STRIDE as u32 * MAX_RESULTS as u32;
/// The result block's alignment (16 bytes).
const RESULT_BLOCK_ALIGN_SHIFT: u8 = 4;

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::ir::{Function, UserFuncName};
    use cranelift_frontend::FunctionBuilderContext;

    /// The shared blocks are found by their keys: an embedder's own slot of
    /// the result block's very shape is left alone, each key's block is made
    /// once per function, and the two keys' blocks are distinct.
    #[test]
    fn shared_blocks_are_found_by_key_not_by_shape() {
        let mut func =
            Function::with_name_signature(UserFuncName::user(0, 0), Signature::new(CallConv::SystemV));
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let entry = b.create_block();
        b.switch_to_block(entry);
        let own = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            RESULT_BLOCK_BYTES,
            RESULT_BLOCK_ALIGN_SHIFT,
        ));
        let results = result_block(&mut b);
        assert_ne!(results, own, "the embedder's slot of the same shape is its own");
        assert_eq!(result_block(&mut b), results, "one result block a function");
        let args = shared_block(&mut b, ARG_BLOCK_KEY, 48, 4);
        assert_ne!(args, results);
        assert_eq!(shared_block(&mut b, ARG_BLOCK_KEY, 48, 4), args);
        assert_eq!(b.func.sized_stack_slots.len(), 3);
        b.ins().return_(&[]);
        b.seal_all_blocks();
    }
}

//! Slow paths from CLIF: importing the `extern "C"` function a fast path
//! calls in its uncommon case (the library's, with its signature from
//! [`LibraryPath`], or the runtime's own), and the cold block that calls
//! it, which every emitter ends its uncommon case with.

use cranelift_codegen::ir::{
    self, types::I32, types::I64, AbiParam, ExtFuncData, ExternalName, FuncRef, InstBuilder, Signature,
    UserExternalName, Value,
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
    let call = b.ins().call(slow, args);
    let r = b.inst_results(call).first().copied();
    let pass: Vec<ir::BlockArg> = if b.func.dfg.num_block_params(cont) > 0 {
        r.into_iter().map(Into::into).collect()
    } else {
        Vec::new()
    };
    b.ins().jump(cont, &pass);
    r
}

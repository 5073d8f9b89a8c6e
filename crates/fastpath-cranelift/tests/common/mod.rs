//! The harness of the Cranelift emitters' tests: [`compile`] (a function
//! built with the emitters, compiled for the host and installed with its
//! relocations), and fastpath-jit's test worlds and cases, shared with the
//! dynasm templates' tests so both forms of each fast path run the same
//! scenarios (`crates/fastpath-jit/tests/common/`, by path).
// Each binary uses its own part.
#![allow(dead_code)]

use cranelift_codegen::ir::{
    types::I64, AbiParam, Function, InstBuilder, Signature, Type, UserFuncName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use fastpath::code::{CodeCache, Entry};
use fastpath_cranelift::{host_isa, install};

#[path = "../../../fastpath-jit/tests/common/block.rs"]
pub mod block;
#[path = "../../../fastpath-jit/tests/common/brooks_real.rs"]
pub mod brooks_real;
#[path = "../../../fastpath-jit/tests/common/brooks_world.rs"]
pub mod brooks_world;
#[path = "../../../fastpath-jit/tests/common/cas_real.rs"]
pub mod cas_real;
#[path = "../../../fastpath-jit/tests/common/cases.rs"]
pub mod cases;
#[path = "../../../fastpath-jit/tests/common/data_world.rs"]
pub mod data_world;
#[path = "../../../fastpath-jit/tests/common/g1_world.rs"]
pub mod g1_world;
#[path = "../../../fastpath-jit/tests/common/gc_world.rs"]
pub mod gc_world;
#[path = "../../../fastpath-jit/tests/common/lock_world.rs"]
pub mod lock_world;
#[path = "../../../fastpath-jit/tests/common/lrb_real.rs"]
pub mod lrb_real;
#[path = "../../../fastpath-jit/tests/common/real_heap.rs"]
pub mod real_heap;
#[path = "../../../fastpath-jit/tests/common/ref_slots.rs"]
pub mod ref_slots;

/// Compiles `extern "C" fn(i64 × params) -> ret?` whose body `body` emits
/// (returning the result value), links import `i` to `imports[i]`,
/// installs it in `cache`.
pub fn compile(
    cache: &CodeCache,
    params: usize,
    ret: Option<Type>,
    imports: &[usize],
    body: impl FnOnce(&mut FunctionBuilder<'_>, &[Value]) -> Option<Value>,
) -> Entry {
    let isa = host_isa();
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.extend((0..params).map(|_| AbiParam::new(I64)));
    sig.returns.extend(ret.map(AbiParam::new));
    let mut func = Function::with_name_signature(UserFuncName::user(0, 0), sig);
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let args = b.block_params(entry).to_vec();
    let r = body(&mut b, &args);
    b.ins().return_(r.as_slice());
    b.seal_all_blocks();
    b.finalize(isa.frontend_config());
    install(cache, &*isa, func, |i| imports[i as usize]).unwrap()
}

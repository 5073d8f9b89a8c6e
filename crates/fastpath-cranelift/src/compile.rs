//! Compiling a function: Cranelift's passes up to its e-graph, then one
//! pass of this crate's, [`local_constants`], then lowering and register
//! allocation. [`compile`] is what [`crate::install`] runs; a JIT that
//! prints what it compiles calls it too, so that it shows the code that
//! runs.
//!
//! Where it sits: between a JIT's finished `ir::Function` (the emitters'
//! fast paths inside it) and the installer's relocation.
//!
//! Why the pass: Cranelift's e-graph (`egraph/elaborate.rs`) copies an
//! integer constant, and an addition, subtraction or bitwise operation
//! with one constant operand (its `remat.isle`), into each block that
//! uses it, so that no such value lives from one block to another. The
//! copy of an operation keeps the operands of the instance it copied (its
//! recursive rematerialisation is left to do, bytecodealliance/wasmtime
//! issue 7313), so the constant operand of a rematerialised `x + k` still
//! comes from the block that first computed it and lives from there to
//! every copy. A JIT that addresses a frame, an object's fields or an
//! array's elements as `base + k` in hot and cold blocks alike gets
//! constants that live through whole loops and functions: one register
//! each, or a spill slot that the hot path writes (fastpath-vm's frame
//! offset and its arrays' data offset, 24 and 32, were each held through
//! the whole of Queens' `place` that way, the second stored to the stack
//! on every round of its loop). The pass gives every
//! use of an `iconst` defined in another block a copy of its own just
//! before it (one per block and constant), which is what the
//! rematerialisation meant, so a constant lives from the instruction
//! that materialises it (when one must: most become an instruction's
//! immediate) to its use.

use std::collections::HashMap;

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{self, InstructionData, Opcode};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::{CompiledCode, Context};

/// Compiles `ctx.func` for `isa` as [`Context::compile`] does, with
/// [`local_constants`] between the e-graph and lowering; `ctx.func` is
/// left as lowered (with `ctx.want_disasm`, the code carries its
/// disassembly).
pub fn compile(ctx: &mut Context, isa: &dyn TargetIsa) -> Result<CompiledCode, String> {
    let mut ctrl = ControlPlane::default();
    ctx.optimize(isa, &mut ctrl).map_err(|e| format!("{e:?}"))?;
    local_constants(&mut ctx.func);
    // The pass adds instructions inside blocks only: the control-flow
    // graph and the dominator tree `optimize` computed still hold.
    let mut regalloc = regalloc2::Ctx::default();
    let stencil = isa
        .compile_function(&ctx.func, &ctx.domtree, &mut regalloc, ctx.want_disasm, &mut ctrl)
        .map_err(|e| format!("{e:?}"))?;
    Ok(stencil.apply_params(&ctx.func.params))
}

/// Gives each block its own copy of every integer constant defined in
/// another block that one of its instructions uses, inserted before the
/// block's first such use, and makes the block's uses read the copy (see
/// the module's text). Constants used only where they are defined are
/// left as they are; a copy is an `iconst` like its original, so it
/// costs nothing where the use takes it as an immediate.
pub fn local_constants(func: &mut ir::Function) {
    let mut copies: HashMap<(ir::Block, ir::Value), ir::Value> = HashMap::new();
    let mut cur = FuncCursor::new(func);
    while let Some(block) = cur.next_block() {
        while let Some(inst) = cur.next_inst() {
            let foreign: Vec<ir::Value> = cur
                .func
                .dfg
                .inst_values(inst)
                .filter(|&v| {
                    constant_def(&cur.func.dfg, v)
                        .is_some_and(|def| cur.func.layout.inst_block(def) != Some(block))
                })
                .collect();
            if foreign.is_empty() {
                continue;
            }
            let mut local: HashMap<ir::Value, ir::Value> = HashMap::new();
            for v in foreign {
                let copy = *copies.entry((block, v)).or_insert_with(|| {
                    let def = constant_def(&cur.func.dfg, v).expect("filtered to constants");
                    let new = cur.func.dfg.clone_inst(def);
                    cur.func.layout.insert_inst(new, inst);
                    cur.func.dfg.first_result(new)
                });
                local.insert(v, copy);
            }
            cur.func
                .dfg
                .map_inst_values(inst, |v| local.get(&v).copied().unwrap_or(v));
        }
    }
}

/// The `iconst` instruction that defines `v`, if one does.
fn constant_def(dfg: &ir::DataFlowGraph, v: ir::Value) -> Option<ir::Inst> {
    let inst = dfg.value_def(v).inst()?;
    match dfg.insts[inst] {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            ..
        } => Some(inst),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::types::I64;
    use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, Signature, UserFuncName};
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
    use fastpath::code::CodeCache;

    use super::*;

    /// `f(a) = if a != 0 { (a + K) ^ K } else { a * K }` with `K` one
    /// constant made in the entry block and used in the two others.
    fn shared_constant() -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(I64));
        sig.returns.push(AbiParam::new(I64));
        let mut func = Function::with_name_signature(UserFuncName::user(0, 0), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let (entry, then, other) = (b.create_block(), b.create_block(), b.create_block());
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let a = b.block_params(entry)[0];
        let k = b.ins().iconst(I64, 0x1234_5678_9abc);
        b.ins().brif(a, then, &[], other, &[]);
        b.switch_to_block(then);
        let s = b.ins().iadd(a, k);
        let x = b.ins().bxor(s, k);
        b.ins().return_(&[x]);
        b.switch_to_block(other);
        let m = b.ins().imul(a, k);
        b.ins().return_(&[m]);
        b.seal_all_blocks();
        b.finalize(crate::host_isa().frontend_config());
        func
    }

    /// The constants each instruction of `block` reads, and where they
    /// are defined.
    fn constants_read(func: &Function, block: ir::Block) -> Vec<(i64, Option<ir::Block>)> {
        let mut out = Vec::new();
        for inst in func.layout.block_insts(block) {
            for v in func.dfg.inst_values(inst) {
                if let Some(def) = constant_def(&func.dfg, v) {
                    let InstructionData::UnaryImm { imm, .. } = func.dfg.insts[def] else {
                        unreachable!("an iconst");
                    };
                    out.push((imm.bits(), func.layout.inst_block(def)));
                }
            }
        }
        out
    }

    #[test]
    fn each_block_reads_a_constant_of_its_own() {
        let mut func = shared_constant();
        let blocks: Vec<ir::Block> = func.layout.blocks().collect();
        // Before: both blocks read the entry's constant (twice in `then`).
        for &b in &blocks[1..] {
            assert!(constants_read(&func, b)
                .iter()
                .all(|&(_, at)| at == Some(blocks[0])));
        }
        local_constants(&mut func);
        cranelift_codegen::verify_function(&func, crate::host_isa().flags()).expect("valid after the pass");
        for &b in &blocks[1..] {
            let read = constants_read(&func, b);
            assert!(!read.is_empty());
            assert!(
                read.iter().all(|&(k, at)| k == 0x1234_5678_9abc && at == Some(b)),
                "{b}: {read:?}\n{}",
                func.display()
            );
        }
        // One copy per block, however many instructions read it.
        let copies = |b: ir::Block| {
            func.layout
                .block_insts(b)
                .filter(|&i| {
                    func.dfg
                        .inst_results(i)
                        .first()
                        .is_some_and(|&r| constant_def(&func.dfg, r).is_some())
                })
                .count()
        };
        assert_eq!((copies(blocks[1]), copies(blocks[2])), (1, 1));
    }

    #[test]
    fn the_compiled_function_computes_what_it_did() {
        let cache = CodeCache::new(64 * 1024).unwrap();
        let isa = crate::host_isa();
        let entry = crate::install(&cache, &*isa, shared_constant(), |_| 0).unwrap();
        // SAFETY: `shared_constant` is an `extern "C" fn(u64) -> u64`,
        // installed in `cache`, which outlives the calls.
        let f: extern "C" fn(u64) -> u64 = unsafe { entry.as_fn() };
        let k: u64 = 0x1234_5678_9abc;
        for a in [0u64, 1, 7, u64::MAX, 0x8000_0000_0000_0000] {
            let want = if a != 0 {
                a.wrapping_add(k) ^ k
            } else {
                a.wrapping_mul(k)
            };
            assert_eq!(f(a), want, "f({a:#x})");
        }
    }
}

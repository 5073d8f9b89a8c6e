//! Compiling a function: Cranelift's passes up to its e-graph, then three
//! passes of this crate's, [`decided_branches`], [`loop_invariants`] and
//! [`local_constants`], then lowering and register allocation. [`compile`] is what [`crate::install`] runs; a JIT that
//! prints what it compiles calls it too, so that it shows the code that
//! runs.
//!
//! Where it sits: between a JIT's finished `ir::Function` (the emitters'
//! fast paths inside it) and the installer's relocation.
//!
//! Why [`decided_branches`]: Cranelift's e-graph merges equal pure values
//! (two null tests of one reference, two compares of one index with one
//! length are one `icmp` after it), but keeps every branch on them: a
//! check that a dominating branch already decided still tests and
//! branches. A JIT's own bookkeeping of what it proved (fastpath-vm's
//! `jit/facts.rs`) stops where it cannot follow the flow cheaply while it
//! builds the function (a loop head, a call's continuation, a join its
//! edges disagree on); over the finished function the dominator tree
//! follows it everywhere. The pass is the conditional half of a sparse
//! conditional propagation, restricted to what dominance gives for free:
//! a block entered only by one arm of `brif c` knows `c`'s truth, and so
//! does every block it dominates.
//!
//! Why [`loop_invariants`]: the e-graph hoists a pure value out of a loop
//! when its operands are defined outside it, but a constant operand
//! (one with no operands of its own) it places only one loop level up,
//! to keep constants out of whole functions' register pressure; a value
//! that reads it is then held in that level too. In a loop nested two
//! deep, `key * 31` (`key` from the outer loop's body) stays in the inner
//! loop and is computed on every round of it (fastpath-vm's inlined
//! constructors' fill loops, nested in the caller's loop and in the
//! reload loop of the poll's stop). The pass hoists, from the innermost
//! loop outwards, each pure instruction that cannot trap and whose
//! operands are defined outside the loop or are constants, into the
//! loop's preheader (the header's immediate dominator), with copies of
//! its constants.
//!
//! Why [`local_constants`]: Cranelift's e-graph (`egraph/elaborate.rs`) copies an
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
use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{self, InstructionData, Opcode};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::loop_analysis::LoopAnalysis;
use cranelift_codegen::{CompiledCode, Context};

/// Compiles `ctx.func` for `isa` as [`Context::compile`] does, with
/// [`local_constants`] between the e-graph and lowering; `ctx.func` is
/// left as lowered (with `ctx.want_disasm`, the code carries its
/// disassembly).
pub fn compile(ctx: &mut Context, isa: &dyn TargetIsa) -> Result<CompiledCode, String> {
    let mut ctrl = ControlPlane::default();
    ctx.optimize(isa, &mut ctrl).map_err(|e| format!("{e:?}"))?;
    // The e-graph keeps the blocks and their edges: `optimize`'s
    // control-flow graph and dominator tree describe its result.
    if decided_branches(&mut ctx.func, &ctx.cfg, &ctx.domtree) > 0 {
        // Each rewritten branch lost an edge, and the arm it no longer
        // takes may be unreachable now: Cranelift's own pass removes
        // such blocks from the layout and from the graph it is given,
        // and the tree of the blocks still reachable is the same.
        ctx.compute_cfg();
        ctx.compute_domtree();
        ctx.eliminate_unreachable_code(isa)
            .map_err(|e| format!("{e:?}"))?;
    }
    ctx.compute_loop_analysis();
    loop_invariants(&mut ctx.func, &ctx.domtree, &ctx.loop_analysis);
    local_constants(&mut ctx.func);
    // The last two passes move and add instructions inside blocks only:
    // the control-flow graph and the dominator tree still hold.
    let mut regalloc = regalloc2::Ctx::default();
    let stencil = isa
        .compile_function(&ctx.func, &ctx.domtree, &mut regalloc, ctx.want_disasm, &mut ctrl)
        .map_err(|e| format!("{e:?}"))?;
    Ok(stencil.apply_params(&ctx.func.params))
}

/// Turns every `brif` whose condition a dominating branch decided into a
/// `jump` to the arm that condition takes (see the module's text), and
/// returns how many it turned. A block is *decided* for `brif c`'s arm
/// when that arm is its only way in (one predecessor, and the branch's
/// other arm another block): there `c` is true (the first arm) or false,
/// and so in every block it dominates, since `c` is an SSA value and
/// holds one value wherever it is defined. Conditions are compared as
/// values, after the e-graph has made equal computations one value.
///
/// `cfg` and `domtree` describe `func` on entry; removing an edge only
/// strengthens dominance, so one pass over them is sound however many
/// branches it turns. The caller recomputes them afterwards and removes
/// the blocks no longer reachable.
pub fn decided_branches(func: &mut ir::Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) -> usize {
    let arms = |func: &ir::Function, inst: ir::Inst| match func.dfg.insts[inst] {
        InstructionData::Brif { arg, blocks, .. } => Some((
            func.dfg.resolve_aliases(arg),
            blocks,
            [
                blocks[0].block(&func.dfg.value_lists),
                blocks[1].block(&func.dfg.value_lists),
            ],
        )),
        _ => None,
    };
    // Condition -> the blocks that know it, each with its truth there.
    let mut decided: HashMap<ir::Value, Vec<(ir::Block, bool)>> = HashMap::new();
    let mut branches = Vec::new();
    for block in func.layout.blocks() {
        if !domtree.is_reachable(block) {
            continue;
        }
        let Some(inst) = func.layout.last_inst(block) else {
            continue;
        };
        let Some((cond, _, [taken, not_taken])) = arms(func, inst) else {
            continue;
        };
        branches.push((block, inst));
        if taken == not_taken {
            continue;
        }
        for (arm, truth) in [(taken, true), (not_taken, false)] {
            if cfg.pred_iter(arm).count() == 1 {
                decided.entry(cond).or_default().push((arm, truth));
            }
        }
    }
    let mut turned = 0;
    for (block, inst) in branches {
        let (cond, calls, _) = arms(func, inst).expect("a brif");
        let known = decided.get(&cond).and_then(|arms| {
            arms.iter()
                .find(|&&(arm, _)| domtree.block_dominates(arm, block))
                .map(|&(_, truth)| truth)
        });
        if let Some(truth) = known {
            let destination = calls[if truth { 0 } else { 1 }];
            func.dfg.insts[inst] = InstructionData::Jump {
                opcode: Opcode::Jump,
                destination,
            };
            turned += 1;
        }
    }
    turned
}

/// Hoists loop-invariant pure instructions out of their loops (see the
/// module's text) and returns how many it moved. An instruction moves to
/// the end of the loop's preheader, the header's immediate dominator,
/// which dominates every block of the loop and lies outside it, when its
/// opcode is one of `hoistable`'s (pure, no trap, no flags), it has one
/// result, a block not marked cold reads that result, no block of the
/// loop but its cold ones calls (across a call the value would live in a
/// stack slot, a load at each use instead of the instruction), and each
/// operand is defined outside the loop (so before the
/// preheader's end: a definition that reaches into a loop dominates its
/// header, hence its preheader) or is an `iconst`, which is copied
/// beside it. Loops are taken innermost first, so that an instruction
/// moved out of an inner loop can move on out of the loop around it.
pub fn loop_invariants(func: &mut ir::Function, domtree: &DominatorTree, loops: &LoopAnalysis) -> usize {
    if loops.loops().next().is_none() {
        return 0;
    }
    // The values a block not marked cold reads.
    let mut hot: SecondaryMap<ir::Value, bool> = SecondaryMap::with_capacity(func.dfg.num_values());
    for block in func.layout.blocks().filter(|&b| !func.layout.is_cold(b)) {
        for inst in func.layout.block_insts(block) {
            for v in func.dfg.inst_values(inst) {
                hot[v] = true;
            }
        }
    }
    let mut order: Vec<_> = loops.loops().collect();
    order.sort_by_key(|&lp| std::cmp::Reverse(loops.loop_level(loops.loop_header(lp)).level()));
    let mut moved = 0;
    for lp in order {
        let header = loops.loop_header(lp);
        let Some(preheader) = domtree.idom(header) else {
            continue;
        };
        let Some(end) = func.layout.last_inst(preheader) else {
            continue;
        };
        let outside = |func: &ir::Function, v: ir::Value| match func.dfg.value_def(v) {
            ir::ValueDef::Result(def, _) => func
                .layout
                .inst_block(def)
                .is_some_and(|b| !loops.is_in_loop(b, lp) && def != end),
            ir::ValueDef::Param(b, _) => !loops.is_in_loop(b, lp),
            ir::ValueDef::Union(..) => false,
        };
        let blocks: Vec<ir::Block> = domtree
            .cfg_rpo()
            .copied()
            .filter(|&b| loops.is_in_loop(b, lp))
            .collect();
        let calls = blocks.iter().any(|&b| {
            !func.layout.is_cold(b)
                && func
                    .layout
                    .block_insts(b)
                    .any(|i| func.dfg.insts[i].opcode().is_call())
        });
        if calls {
            continue;
        }
        for block in blocks {
            let insts: Vec<ir::Inst> = func.layout.block_insts(block).collect();
            for inst in insts {
                if !hoistable(func.dfg.insts[inst].opcode()) || func.dfg.inst_results(inst).len() != 1 {
                    continue;
                }
                // A value only cold blocks read stays where it is: held
                // through the loop it would take a register from the
                // loop's hot path to save an instruction on a cold one.
                if !hot[func.dfg.first_result(inst)] {
                    continue;
                }
                let args: Vec<ir::Value> = func.dfg.inst_values(inst).collect();
                if !args
                    .iter()
                    .all(|&v| outside(func, v) || constant_def(&func.dfg, v).is_some())
                {
                    continue;
                }
                func.layout.remove_inst(inst);
                func.layout.insert_inst(inst, end);
                for v in args {
                    if outside(func, v) {
                        continue;
                    }
                    let def = constant_def(&func.dfg, v).expect("a constant");
                    let copy = func.dfg.clone_inst(def);
                    func.layout.insert_inst(copy, inst);
                    let copy = func.dfg.first_result(copy);
                    func.dfg.map_inst_values(inst, |a| if a == v { copy } else { a });
                }
                moved += 1;
            }
        }
    }
    moved
}

/// The opcodes [`loop_invariants`] moves: integer arithmetic, shifts,
/// bitwise operations and conversions that cannot trap, have no effect
/// but their result, and produce no condition (a compare stays beside
/// the branch that reads it, where lowering folds the two).
fn hoistable(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Iadd
            | Opcode::Isub
            | Opcode::Ineg
            | Opcode::Imul
            | Opcode::Ishl
            | Opcode::Ushr
            | Opcode::Sshr
            | Opcode::Band
            | Opcode::Bor
            | Opcode::Bxor
            | Opcode::Bnot
            | Opcode::Sextend
            | Opcode::Uextend
            | Opcode::Ireduce
            | Opcode::Smin
            | Opcode::Smax
            | Opcode::Umin
            | Opcode::Umax
    )
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
    use cranelift_codegen::ir::condcodes::IntCC;
    use cranelift_codegen::ir::types::I64;
    use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, Signature, UserFuncName};
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
    use fastpath::code::CodeCache;

    use super::*;

    /// An empty function `index` of `params` `i64` parameters returning
    /// one `i64`, for the tests' builders.
    fn i64_function(index: u32, params: usize) -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.extend((0..params).map(|_| AbiParam::new(I64)));
        sig.returns.push(AbiParam::new(I64));
        Function::with_name_signature(UserFuncName::user(0, index), sig)
    }

    /// `f(a) = if a != 0 { (a + K) ^ K } else { a * K }` with `K` one
    /// constant made in the entry block and used in the two others.
    fn shared_constant() -> Function {
        let mut func = i64_function(0, 1);
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

    /// `f(a)`: the entry branches on `c = a != 0`; each arm branches on
    /// `c` again (decided there), and both meet in a join that branches
    /// on `c` a third time (not decided: neither arm dominates it).
    /// `f(a) = 11` for `a != 0`, `23` for `a == 0`; the blocks returning
    /// 2 and 4 are the arms the decided branches never take.
    fn branches_on_one_condition() -> Function {
        let mut func = i64_function(1, 1);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let [entry, then, other, x, y, z, w, join, j1, j2] = [(); 10].map(|_| b.create_block());
        b.append_block_params_for_function_params(entry);
        b.append_block_param(join, I64);
        b.switch_to_block(entry);
        let a = b.block_params(entry)[0];
        let c = b.ins().icmp_imm_s(IntCC::NotEqual, a, 0);
        b.ins().brif(c, then, &[], other, &[]);
        b.switch_to_block(then);
        b.ins().brif(c, x, &[], y, &[]);
        b.switch_to_block(other);
        b.ins().brif(c, w, &[], z, &[]);
        for (block, v) in [(y, 2), (w, 4)] {
            b.switch_to_block(block);
            let r = b.ins().iconst(I64, v);
            b.ins().return_(&[r]);
        }
        for (block, v) in [(x, 1), (z, 3)] {
            b.switch_to_block(block);
            let p = b.ins().iconst(I64, v);
            b.ins().jump(join, &[p.into()]);
        }
        b.switch_to_block(join);
        let p = b.block_params(join)[0];
        b.ins().brif(c, j1, &[], j2, &[]);
        for (block, v) in [(j1, 10), (j2, 20)] {
            b.switch_to_block(block);
            let r = b.ins().iadd_imm_s(p, v);
            b.ins().return_(&[r]);
        }
        b.seal_all_blocks();
        b.finalize(crate::host_isa().frontend_config());
        func
    }

    #[test]
    fn a_branch_a_dominating_branch_decided_jumps() {
        let mut func = branches_on_one_condition();
        let cfg = ControlFlowGraph::with_function(&func);
        let domtree = DominatorTree::with_function(&func, &cfg);
        // Blocks are numbered as `branches_on_one_condition` creates them.
        let block = ir::Block::from_u32;
        let (then, x, other, z, join) = (block(1), block(3), block(2), block(5), block(7));
        assert_eq!(
            decided_branches(&mut func, &cfg, &domtree),
            2,
            "{}",
            func.display()
        );
        cranelift_codegen::verify_function(&func, crate::host_isa().flags()).expect("valid after the pass");
        let last = |b: ir::Block| func.dfg.insts[func.layout.last_inst(b).unwrap()];
        let target = |b: ir::Block| match last(b) {
            InstructionData::Jump { destination, .. } => Some(destination.block(&func.dfg.value_lists)),
            _ => None,
        };
        // The true arm jumps to the branch's first target, the false arm
        // to its second; the join still tests.
        assert_eq!(target(then), Some(x));
        assert_eq!(target(other), Some(z));
        assert!(matches!(last(join), InstructionData::Brif { .. }));
        // A second pass over the result finds nothing more.
        let cfg = ControlFlowGraph::with_function(&func);
        let domtree = DominatorTree::with_function(&func, &cfg);
        assert_eq!(decided_branches(&mut func, &cfg, &domtree), 0);
    }

    #[test]
    fn decided_branches_compile_to_what_the_function_computed() {
        let cache = CodeCache::new(64 * 1024).unwrap();
        let isa = crate::host_isa();
        let mut ctx = Context::for_function(branches_on_one_condition());
        let code = compile(&mut ctx, &*isa).unwrap();
        // The arms no branch takes are gone from the compiled function.
        assert_eq!(ctx.func.layout.blocks().count(), 8, "{}", ctx.func.display());
        assert!(!code.code_buffer().is_empty());
        let entry = crate::install(&cache, &*isa, branches_on_one_condition(), |_| 0).unwrap();
        // SAFETY: `branches_on_one_condition` is an
        // `extern "C" fn(u64) -> u64`, installed in `cache`, which
        // outlives the calls.
        let f: extern "C" fn(u64) -> u64 = unsafe { entry.as_fn() };
        for a in [0u64, 1, 7, u64::MAX, 0x8000_0000_0000_0000] {
            assert_eq!(f(a), if a != 0 { 11 } else { 23 }, "f({a:#x})");
        }
    }

    /// `f(n, m, g) = Σ_{i<n} Σ_{j<m} (3i · 31 + j)`, plus `3i + 1000` for
    /// each `i` when `m > 7`, written with `k = 3i` in the outer loop's
    /// body, `k · 31` in the inner loop's (its `31` an `iconst` of the
    /// inner body, where the e-graph leaves such a value), and `k + 1000`
    /// in a cold block of the inner loop that its round `j = 7` takes.
    /// With `call`, the inner body also calls `g()` (`g` an address).
    fn nested_loops(call: bool) -> Function {
        let mut func = i64_function(2, 3);
        let callee = func.import_signature(Signature::new(CallConv::SystemV));
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let [entry, outer, obody, inner, ibody, onext, exit, cold, cont] = [(); 9].map(|_| b.create_block());
        b.append_block_params_for_function_params(entry);
        for (block, n) in [(outer, 2), (inner, 2), (onext, 1), (exit, 1), (cont, 1)] {
            for _ in 0..n {
                b.append_block_param(block, I64);
            }
        }
        b.set_cold_block(cold);
        b.switch_to_block(entry);
        let [n, m, g] = [0, 1, 2].map(|i| b.block_params(entry)[i]);
        let zero = b.ins().iconst(I64, 0);
        b.ins().jump(outer, &[zero.into(), zero.into()]);
        b.switch_to_block(outer);
        let (i, acc) = (b.block_params(outer)[0], b.block_params(outer)[1]);
        let more = b.ins().icmp(IntCC::SignedLessThan, i, n);
        b.ins().brif(more, obody, &[], exit, &[acc.into()]);
        b.switch_to_block(obody);
        let k = b.ins().imul_imm_s(i, 3);
        let zero = b.ins().iconst(I64, 0);
        b.ins().jump(inner, &[zero.into(), acc.into()]);
        b.switch_to_block(inner);
        let (j, a) = (b.block_params(inner)[0], b.block_params(inner)[1]);
        let more = b.ins().icmp(IntCC::SignedLessThan, j, m);
        b.ins().brif(more, ibody, &[], onext, &[a.into()]);
        b.switch_to_block(ibody);
        if call {
            b.ins().call_indirect(callee, g, &[]);
        }
        let k31 = b.ins().imul_imm_s(k, 31);
        let t = b.ins().iadd(k31, j);
        let a2 = b.ins().iadd(a, t);
        let seven = b.ins().icmp_imm_s(IntCC::Equal, j, 7);
        b.ins().brif(seven, cold, &[], cont, &[a2.into()]);
        b.switch_to_block(cold);
        let extra = b.ins().iadd_imm_s(k, 1000);
        let a3 = b.ins().iadd(a2, extra);
        b.ins().jump(cont, &[a3.into()]);
        b.switch_to_block(cont);
        let a4 = b.block_params(cont)[0];
        let j2 = b.ins().iadd_imm_s(j, 1);
        b.ins().jump(inner, &[j2.into(), a4.into()]);
        b.switch_to_block(onext);
        let a = b.block_params(onext)[0];
        let i2 = b.ins().iadd_imm_s(i, 1);
        b.ins().jump(outer, &[i2.into(), a.into()]);
        b.switch_to_block(exit);
        let r = b.block_params(exit)[0];
        b.ins().return_(&[r]);
        b.seal_all_blocks();
        b.finalize(crate::host_isa().frontend_config());
        func
    }

    /// `(imul, iadd with a constant)` instructions in `b`.
    fn arithmetic_in(func: &Function, b: ir::Block) -> (usize, usize) {
        let count = |op| {
            func.layout
                .block_insts(b)
                .filter(|&i| {
                    func.dfg.insts[i].opcode() == op
                        && (op == Opcode::Imul
                            || func
                                .dfg
                                .inst_values(i)
                                .any(|v| constant_def(&func.dfg, v).is_some()))
                })
                .count()
        };
        (count(Opcode::Imul), count(Opcode::Iadd))
    }

    /// Runs [`loop_invariants`] on `func` with its own analyses.
    fn hoist(func: &mut Function) -> usize {
        let cfg = ControlFlowGraph::with_function(func);
        let domtree = DominatorTree::with_function(func, &cfg);
        let mut loops = LoopAnalysis::new();
        loops.compute(func, &cfg, &domtree);
        loop_invariants(func, &domtree, &loops)
    }

    #[test]
    fn a_loop_invariant_value_leaves_its_loop() {
        let mut func = nested_loops(false);
        // Blocks are numbered as `nested_loops` creates them.
        let block = ir::Block::from_u32;
        let (obody, ibody, cold) = (block(2), block(4), block(7));
        assert_eq!(arithmetic_in(&func, obody), (1, 0));
        assert_eq!(arithmetic_in(&func, ibody).0, 1);
        assert_eq!(arithmetic_in(&func, cold), (0, 1));
        // `k · 31` moves (with a copy of its constant); `k31 + j`, whose
        // `j` is the inner loop's, and the rest stay; `3i` stays in the
        // outer loop, whose `i` it reads; `k + 1000`, invariant too, stays
        // in the cold block that alone reads it.
        assert_eq!(hoist(&mut func), 1, "{}", func.display());
        cranelift_codegen::verify_function(&func, crate::host_isa().flags()).expect("valid after the pass");
        assert_eq!(arithmetic_in(&func, obody).0, 2, "{}", func.display());
        assert_eq!(arithmetic_in(&func, ibody).0, 0, "{}", func.display());
        assert_eq!(arithmetic_in(&func, cold), (0, 1), "{}", func.display());
        assert_eq!(hoist(&mut func), 0);
    }

    #[test]
    fn a_loop_that_calls_keeps_its_values() {
        let mut func = nested_loops(true);
        let before = func.display().to_string();
        assert_eq!(hoist(&mut func), 0, "{}", func.display());
        assert_eq!(func.display().to_string(), before);
    }

    #[test]
    fn hoisted_values_compile_to_what_the_function_computed() {
        let cache = CodeCache::new(64 * 1024).unwrap();
        let isa = crate::host_isa();
        let entry = crate::install(&cache, &*isa, nested_loops(false), |_| 0).unwrap();
        // SAFETY: `nested_loops(false)` is an
        // `extern "C" fn(i64, i64, i64) -> i64` that never reads its
        // third argument, installed in `cache`, which outlives the calls.
        let f: extern "C" fn(i64, i64, i64) -> i64 = unsafe { entry.as_fn() };
        for (n, m) in [(0, 0), (0, 5), (5, 0), (1, 1), (3, 4), (17, 9), (4, 8), (-2, 3)] {
            let sum: i64 = (0..n).flat_map(|i| (0..m).map(move |j| 3 * i * 31 + j)).sum();
            let cold: i64 = if m > 7 {
                (0..n).map(|i| 3 * i + 1000).sum()
            } else {
                0
            };
            assert_eq!(f(n, m, 0), sum + cold, "f({n}, {m})");
        }
    }
}

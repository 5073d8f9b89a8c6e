//! Cold paths: the instructions from which a method can only throw, and
//! the compiled blocks only a cold block leads to.
//!
//! Where it sits: `translate.rs` asks [`throw_only`] once per method it
//! translates (the compiled method and each inlined callee) and does not
//! inline a call made at such an instruction. Those calls build an
//! exception or its message (`throw new IllegalArgumentException("bad " +
//! x)`, `throw forInputString(s)`): inlining them grows the code and
//! spends the method's inline budget on paths that run once, before the
//! calls in its loops are reached. HotSpot's C2 reaches the same end from
//! profiles (a call site never taken is not inlined, a throw is an
//! uncommon trap); this is the static version: an instruction is cold
//! when every way on from it, along normal control flow, ends at an
//! `athrow` (or a resolution error's throw) and none at a return.
//!
//! The analysis is the greatest fixed point of `cold(i) = throws(i) ||
//! (i has successors && all are cold)`, returns never cold, computed by
//! iterating from "everything cold" until nothing changes; a loop that
//! can leave only by throwing is cold with it. Exception edges are not
//! followed: a handler is where a thrown exception goes, not a way the
//! instruction's own path continues.
//!
//! # Cold blocks
//!
//! The emitters mark the first block of a rare path cold (a throw, a
//! safepoint's stop, a fast path's miss, a coarsened lock's release);
//! Cranelift emits cold blocks after the others, so the common path's
//! blocks follow one another and fall through. The blocks *behind* such a
//! block (a barrier's resolve in a throw's release, a monitor exit's own
//! blocks, the exception handler the dispatch goes to) are not marked by
//! the emitter that made them, and Cranelift orders the rest by a
//! depth-first walk that knows nothing of heat, so they can land between
//! the hot blocks of a loop and cost it a taken jump around them.
//! [`cold_blocks`] marks, once `translate.rs` has built the function,
//! every block that the entry does not reach without passing a cold
//! block: what only a rare path leads to is rare itself. A block where a
//! rare path rejoins the common one is reached from the entry and stays
//! as it is. The layout is all this changes: the code is the same.

use cranelift_codegen::entity::EntitySet;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::Function;

use super::ops::Op;
use crate::interp::insn::Switch;

/// Marks cold every block of `func` that its entry block reaches only
/// through a block already marked cold (see "Cold blocks" above).
pub fn cold_blocks(func: &mut Function) {
    let Some(entry) = func.layout.entry_block() else {
        return;
    };
    let cfg = ControlFlowGraph::with_function(func);
    let mut hot = EntitySet::with_capacity(func.dfg.num_blocks());
    hot.insert(entry);
    let mut work = vec![entry];
    while let Some(block) = work.pop() {
        for next in cfg.succ_iter(block) {
            if !func.layout.is_cold(next) && !hot.contains(next) {
                hot.insert(next);
                work.push(next);
            }
        }
    }
    let blocks: Vec<_> = func.layout.blocks().collect();
    for block in blocks {
        if !hot.contains(block) {
            func.layout.set_cold(block);
        }
    }
}

/// The instructions of `ops` from which every normal path throws.
pub fn throw_only(ops: &[Op], switches: &[Switch]) -> Vec<bool> {
    let n = ops.len();
    let mut cold = vec![true; n];
    loop {
        let mut changed = false;
        // Backwards: most paths run forwards, so one or two passes settle.
        for i in (0..n).rev() {
            if !cold[i] {
                continue;
            }
            let now = match &ops[i] {
                Op::AThrow | Op::Throw(_) => true,
                Op::Return(_) => false,
                op => {
                    let succ = op.successors(i, switches);
                    !succ.is_empty() && succ.iter().all(|&s| s < n && cold[s])
                }
            };
            if !now {
                cold[i] = false;
                changed = true;
            }
        }
        if !changed {
            return cold;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::insn::Cond;
    use crate::jit::ops::{Const, Target, K};
    use cranelift_codegen::ir::types::I64;
    use cranelift_codegen::ir::{AbiParam, InstBuilder, Signature};
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    #[test]
    fn blocks_only_a_cold_block_leads_to_are_cold_and_a_rejoin_is_not() {
        // entry -> hot | rare (cold); rare -> behind -> (inner -> behind
        // | join); hot -> join -> return: `behind` and `inner`, reached
        // only through `rare`, become cold; `join`, reached from `hot`
        // too, stays hot.
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(I64));
        sig.returns.push(AbiParam::new(I64));
        let mut func = Function::with_name_signature(Default::default(), sig);
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut ctx);
        let [entry, hot, rare, behind, inner, join] = std::array::from_fn(|_| b.create_block());
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let x = b.block_params(entry)[0];
        b.ins().brif(x, hot, &[], rare, &[]);
        b.set_cold_block(rare);
        b.switch_to_block(hot);
        b.ins().jump(join, &[]);
        b.switch_to_block(rare);
        b.ins().jump(behind, &[]);
        b.switch_to_block(behind);
        b.ins().brif(x, inner, &[], join, &[]);
        b.switch_to_block(inner);
        b.ins().jump(behind, &[]);
        b.switch_to_block(join);
        b.ins().return_(&[x]);
        b.seal_all_blocks();
        b.finalize(fastpath_cranelift::host_isa().frontend_config());
        cold_blocks(&mut func);
        let cold: Vec<bool> = [entry, hot, rare, behind, inner, join]
            .iter()
            .map(|&blk| func.layout.is_cold(blk))
            .collect();
        assert_eq!(cold, [false, false, true, true, true, false]);
    }

    fn target(index: u32, backward: bool) -> Target {
        Target { index, backward }
    }

    #[test]
    fn a_throw_path_is_cold_and_a_return_path_is_not() {
        // 0: iload 0; 1: ifge 6; 2: aconst_null; 3: dup; 4: pop; 5: athrow;
        // 6: iload 0; 7: ireturn
        let ops = [
            Op::Load(K::I, 0),
            Op::If(Cond::Ge, target(6, false)),
            Op::Const(Const::Null),
            Op::Dup,
            Op::Pop,
            Op::AThrow,
            Op::Load(K::I, 0),
            Op::Return(Some(K::I)),
        ];
        let cold = throw_only(&ops, &[]);
        assert_eq!(cold, [false, false, true, true, true, true, false, false]);
    }

    #[test]
    fn a_loop_that_only_leaves_by_throwing_is_cold() {
        // 0: iinc; 1: iload; 2: ifne 0 (back); 3: athrow; a path from 4 returns.
        let ops = [
            Op::Iinc(0, 1),
            Op::Load(K::I, 0),
            Op::If(Cond::Ne, target(0, true)),
            Op::AThrow,
            Op::Return(None),
        ];
        assert_eq!(throw_only(&ops, &[]), [true, true, true, true, false]);
        // With an exit to a return, nothing in the loop is cold.
        let ops = [
            Op::Iinc(0, 1),
            Op::Load(K::I, 0),
            Op::If(Cond::Ne, target(4, false)),
            Op::Goto(target(0, true)),
            Op::Return(None),
        ];
        assert_eq!(throw_only(&ops, &[]), [false; 5]);
    }
}

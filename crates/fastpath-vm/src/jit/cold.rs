//! Cold paths: the instructions from which a method can only throw.
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

use super::ops::Op;
use crate::interp::insn::Switch;

/// The instructions of `ops` from which every normal path throws.
pub fn throw_only(ops: &[Op], switches: &[Switch]) -> Vec<bool> {
    let n = ops.len();
    let mut cold = vec![true; n];
    let mut succ = Vec::new();
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
                    succ.clear();
                    successors(op, i, switches, &mut succ);
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

/// The instructions normal control flow may go to after `op` at `i`.
fn successors(op: &Op, i: usize, switches: &[Switch], out: &mut Vec<usize>) {
    out.extend(op.branch_targets(switches));
    if !matches!(
        op,
        Op::Goto(_) | Op::Switch(_) | Op::Return(_) | Op::AThrow | Op::Throw(_)
    ) {
        out.push(i + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::insn::Cond;
    use crate::jit::ops::{Const, Target, K};

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

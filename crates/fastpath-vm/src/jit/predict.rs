//! Static branch prediction for block layout: which way of a conditional
//! branch stays in its loop.
//!
//! Where it sits: `translate.rs` makes a [`Prediction`] once per method
//! it translates (the compiled method and each inlined callee) and, at
//! each `if*` it emits, makes the way predicted to run next the `brif`'s
//! fall-through. Cranelift places a function's blocks in the reverse
//! postorder of a depth-first walk that visits a `brif`'s taken target
//! first, so its *not-taken* target lands right after the branch
//! (`BlockLoweringOrder`, `dominator_tree.rs`): the not-taken way falls
//! through, the taken way costs a taken jump.
//!
//! javac puts a loop's test at its head and jumps out of the loop on the
//! test's failure: the body is the fall-through, and the translation,
//! which keeps bytecode's fall-through as `brif`'s not-taken way, lays it
//! out well. A test *inside* the body that leaves the loop by falling
//! through (`if (x == null) return true;` compiles to `ifnonnull` over the
//! return) puts the return after the branch and the rest of the body
//! behind a taken jump, so every iteration pays two taken jumps (this one
//! and the back edge). Where one way of a branch can come back round a
//! loop and the other cannot, the one that can is predicted: Ball and
//! Larus's loop-exit heuristic ("Branch prediction for free", PLDI 1993),
//! which C2 applies through its profile's frequencies instead
//! (`block.cpp`'s `PhaseBlockLayout`).
//!
//! Only loops that make no call are laid out this way. There the taken
//! jump is a large share of an iteration (List's list walk, inlined into
//! its recursion: 11.2 → 8.4 ms a run on the Xeon 167); a loop that calls
//! spends its iterations mostly in the call and in saving and restoring
//! what lives across it, and moving its blocks moves regalloc2's split
//! points with them: Queens' placement loop, whose inlined check has such
//! a return, kept its loop counter in a stack slot when its blocks moved
//! and ran at 14.5 ms a run instead of 9.8.
//!
//! "Can come back round a loop" is computed over the ops: an instruction
//! continues a loop when a path of forward edges from it reaches a back
//! edge (a branch to an instruction at or before itself). Forward edges
//! only go to later instructions, so one backward pass settles it.
//! Exception edges are not followed: a handler is where an exception
//! goes, not the way the instruction's path continues.

use super::ops::Op;
use crate::interp::insn::Switch;

/// A method's static prediction: by instruction, whether it continues a
/// loop and whether its innermost loop makes no call.
#[derive(Clone, Debug, Default)]
pub struct Prediction {
    continues: Vec<bool>,
    call_free: Vec<bool>,
}

impl Prediction {
    /// The prediction for the method whose ops are `ops`.
    pub fn of(ops: &[Op], switches: &[Switch]) -> Self {
        Self::with_calls(ops, switches, |op| matches!(op, Op::Invoke(..)))
    }

    /// [`Prediction::of`], with `is_call` saying which ops are calls.
    fn with_calls(ops: &[Op], switches: &[Switch], is_call: impl Fn(&Op) -> bool) -> Self {
        Self {
            continues: loop_continues(ops, switches),
            call_free: in_call_free_loop(ops, switches, is_call),
        }
    }

    /// Whether the conditional branch at `at` should fall through to its
    /// target rather than to the next instruction: it sits in a loop
    /// that makes no call, its target continues a loop and the next
    /// instruction does not.
    pub fn prefer_target(&self, at: usize, target: usize) -> bool {
        let continues = |i: usize| self.continues.get(i).copied().unwrap_or(false);
        self.call_free.get(at).copied().unwrap_or(false)
            && target > at
            && continues(target)
            && !continues(at + 1)
    }
}

/// By instruction of `ops`: whether a path of forward edges from it
/// reaches a back edge (see the module comment).
fn loop_continues(ops: &[Op], switches: &[Switch]) -> Vec<bool> {
    let n = ops.len();
    let mut continues = vec![false; n];
    for i in (0..n).rev() {
        continues[i] = ops[i]
            .successors(i, switches)
            .iter()
            .any(|&s| s <= i || (s < n && continues[s]));
    }
    continues
}

/// By instruction of `ops`: whether the innermost loop holding it (in
/// javac's layout, the shortest span from a back edge's target to the
/// back edge) makes no call (`is_call`).
fn in_call_free_loop(ops: &[Op], switches: &[Switch], is_call: impl Fn(&Op) -> bool) -> Vec<bool> {
    let spans: Vec<(usize, usize, bool)> = ops
        .iter()
        .enumerate()
        .flat_map(|(i, op)| {
            op.branch_targets(switches)
                .into_iter()
                .filter(move |&t| t <= i)
                .map(move |t| (t, i))
        })
        .map(|(h, e)| (h, e, !ops[h..=e].iter().any(&is_call)))
        .collect();
    (0..ops.len())
        .map(|i| {
            spans
                .iter()
                .filter(|&&(h, e, _)| h <= i && i <= e)
                .min_by_key(|&&(h, e, _)| e - h)
                .is_some_and(|&(_, _, free)| free)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::insn::Cond;
    use crate::jit::ops::{Target, K};

    fn fwd(index: u32) -> Target {
        Target {
            index,
            backward: false,
        }
    }

    fn back(index: u32) -> Target {
        Target {
            index,
            backward: true,
        }
    }

    /// `while (ys != null) { if (xs == null) return true; ..; } return
    /// false`, with `body` as the loop's work: 0: aload 1; 1: ifnull 8;
    /// 2: aload 0; 3: ifnonnull 6; 4: iconst_1; 5: ireturn; 6: body;
    /// 7: goto 0; 8: ireturn.
    fn walk(body: Op) -> [Op; 9] {
        [
            Op::Load(K::R, 1),
            Op::IfNull(true, fwd(8)),
            Op::Load(K::R, 0),
            Op::IfNull(false, fwd(6)),
            Op::Load(K::I, 2),
            Op::Return(Some(K::I)),
            body,
            Op::Goto(back(0)),
            Op::Return(Some(K::I)),
        ]
    }

    #[test]
    fn a_return_inside_a_loop_body_is_predicted_not_taken() {
        let p = Prediction::of(&walk(Op::Iinc(2, 1)), &[]);
        assert_eq!(
            p.continues,
            [true, true, true, true, false, false, true, true, false]
        );
        // The head's test leaves by its target: keep the fall-through.
        assert!(!p.prefer_target(1, 8));
        // The body's test leaves by its fall-through: prefer the target.
        assert!(p.prefer_target(3, 6));
    }

    #[test]
    fn a_loop_that_calls_keeps_its_layout() {
        // A monitor enter stands in for the call (an `Op::Invoke` needs
        // a linked method).
        let p = Prediction::with_calls(&walk(Op::MonitorEnter), &[], |op| matches!(op, Op::MonitorEnter));
        assert!(p.continues[6]);
        assert!(!p.prefer_target(3, 6));
    }

    #[test]
    fn without_a_loop_nothing_is_preferred() {
        // 0: iload 0; 1: ifge 4; 2: iconst; 3: ireturn; 4: iconst; 5: ireturn
        let ops = [
            Op::Load(K::I, 0),
            Op::If(Cond::Ge, fwd(4)),
            Op::Load(K::I, 1),
            Op::Return(Some(K::I)),
            Op::Load(K::I, 1),
            Op::Return(Some(K::I)),
        ];
        let p = Prediction::of(&ops, &[]);
        assert_eq!(p.continues, [false; 6]);
        assert!(!p.prefer_target(1, 4));
    }

    #[test]
    fn a_break_to_code_that_loops_again_is_not_an_exit() {
        // An inner loop's exit into an outer loop's body continues the
        // outer loop: both ways continue, so neither is preferred.
        // 0: iload; 1: ifeq 5; 2: iinc; 3: iload; 4: ifne 0 (back);
        // 5: iinc; 6: goto 0 (back)
        let ops = [
            Op::Load(K::I, 0),
            Op::If(Cond::Eq, fwd(5)),
            Op::Iinc(0, 1),
            Op::Load(K::I, 0),
            Op::If(Cond::Ne, back(0)),
            Op::Iinc(1, 1),
            Op::Goto(back(0)),
        ];
        let p = Prediction::of(&ops, &[]);
        assert!(p.continues.iter().all(|&x| x));
        assert!(p.call_free.iter().all(|&x| x));
        assert!(!p.prefer_target(1, 5));
    }
}

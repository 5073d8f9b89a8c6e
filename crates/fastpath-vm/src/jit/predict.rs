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
//! and the back edge). Where one way of a branch stays in the innermost
//! loop holding it and the other leaves it, the one that stays is
//! predicted: Ball and
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
//! "Stays in the loop" is computed over the ops, for the innermost loop
//! holding the branch (javac's layout: the shortest span from a back
//! edge's target to the back edge): a way stays when a path of forward
//! edges from it, inside the span, reaches a back edge. A return leaves
//! the loop, and so does a `break` out of an inner loop into the code of
//! an outer one (Mandelbrot's escape test): the inner loop's iterations
//! are the hot ones. Exception edges are not followed: a handler is where
//! an exception goes, not the way the instruction's path continues.

use super::ops::Op;
use crate::interp::insn::Switch;

/// A method's static prediction: its loops, and by instruction the
/// innermost loop that holds it.
#[derive(Clone, Debug, Default)]
pub struct Prediction {
    /// Each instruction's successors along normal control flow.
    succ: Vec<Vec<usize>>,
    /// The loops in javac's layout: a back edge's target `h`, the back
    /// edge `e`, and whether `h..=e` makes no call.
    loops: Vec<(usize, usize, bool)>,
    /// By instruction: its innermost loop (the shortest span holding it),
    /// an index into `loops`.
    innermost: Vec<Option<usize>>,
}

impl Prediction {
    /// The prediction for the method whose ops are `ops`.
    pub fn of(ops: &[Op], switches: &[Switch]) -> Self {
        Self::with_calls(ops, switches, |op| matches!(op, Op::Invoke(..)))
    }

    /// [`Prediction::of`], with `is_call` saying which ops are calls.
    fn with_calls(ops: &[Op], switches: &[Switch], is_call: impl Fn(&Op) -> bool) -> Self {
        let succ: Vec<Vec<usize>> = ops
            .iter()
            .enumerate()
            .map(|(i, op)| op.successors(i, switches))
            .collect();
        let loops: Vec<(usize, usize, bool)> = succ
            .iter()
            .enumerate()
            .flat_map(|(e, s)| s.iter().filter(move |&&h| h <= e).map(move |&h| (h, e)))
            .map(|(h, e)| (h, e, !ops[h..=e].iter().any(&is_call)))
            .collect();
        let innermost = (0..ops.len())
            .map(|i| {
                (0..loops.len())
                    .filter(|&l| loops[l].0 <= i && i <= loops[l].1)
                    .min_by_key(|&l| loops[l].1 - loops[l].0)
            })
            .collect();
        Self {
            succ,
            loops,
            innermost,
        }
    }

    /// Whether the conditional branch at `at` should fall through to its
    /// target rather than to the next instruction: its innermost loop
    /// makes no call, and the target stays in that loop while the next
    /// instruction leaves it.
    pub fn prefer_target(&self, at: usize, target: usize) -> bool {
        let Some(&Some(l)) = self.innermost.get(at) else {
            return false;
        };
        let (h, e, call_free) = self.loops[l];
        call_free && self.stays(target, h, e) && !self.stays(at + 1, h, e)
    }

    /// Whether a path from instruction `from` along forward edges, inside
    /// the loop `h..=e`, comes back round it: reaches a back edge to an
    /// instruction of the loop.
    fn stays(&self, from: usize, h: usize, e: usize) -> bool {
        let mut seen = vec![false; e + 1 - h];
        let mut work = vec![from];
        while let Some(k) = work.pop() {
            if k < h || k > e || std::mem::replace(&mut seen[k - h], true) {
                continue;
            }
            for &s in &self.succ[k] {
                if s <= k {
                    if s >= h {
                        return true;
                    }
                } else {
                    work.push(s);
                }
            }
        }
        false
    }
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
        assert!(!p.prefer_target(1, 4));
    }

    #[test]
    fn a_break_out_of_an_inner_loop_leaves_it() {
        // Mandelbrot's escape: an inner loop whose test falls through to
        // a `break` into the outer loop's code.
        // 0: iload; 1: ifge 6 (the inner head's exit); 2: iload;
        // 3: ifle 5 (stay); 4: goto 6 (break); 5: goto 0 (back);
        // 6: iinc; 7: goto 0 (the outer back edge)
        let ops = [
            Op::Load(K::I, 0),
            Op::If(Cond::Ge, fwd(6)),
            Op::Load(K::I, 1),
            Op::If(Cond::Le, fwd(5)),
            Op::Goto(fwd(6)),
            Op::Goto(back(0)),
            Op::Iinc(1, 1),
            Op::Goto(back(0)),
        ];
        let p = Prediction::of(&ops, &[]);
        // The inner loop is 0..=5; the break (4) leaves it for 6, which
        // only the outer loop comes back from.
        assert!(p.prefer_target(3, 5));
        // The head's exit is already the taken way.
        assert!(!p.prefer_target(1, 6));
    }
}

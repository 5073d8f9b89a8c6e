//! Which locals are live on entry to each instruction of a method: read
//! on some way on from there, normal or exceptional, before any write
//! (the backward dataflow of HotSpot's `MethodLiveness`, which C2's
//! frame states and the interpreter's oop maps both use).
//!
//! Where it sits: `translate.rs` computes it once per method it translates
//! (the compiled method and each inlined callee) from the JIT's [`Op`]s,
//! and `spill_frame` reads it at every stop of the collector (a call, a
//! poll, an allocation's slow path): a reference local that the frame map
//! names but that is dead there is neither stored for the collector nor
//! reloaded after the stop; its frame slot gets a null instead, which the
//! root scanner reads as no root (a stale address left there would be
//! updated as one after its object moved or died). Without it every
//! reference local is reloaded after every stop, and a loop with a stop
//! carries each of them around as a block parameter whether anything reads
//! it again or not: ListBenchmark's `shorter` loop, inlined into `tail`,
//! carried its own two parameters, dead once the loop starts, through its
//! back edge's poll, and regalloc2 moved them between registers on every
//! trip.
//!
//! Why a dead local needs no value: nothing reads it before writing it.
//! Compiled code reads locals only where the bytecode does, and the
//! analysis follows every way the bytecode goes on from an instruction,
//! including the handlers covering it (a handler's live locals are live
//! on entry to every instruction it covers, whatever the instruction
//! writes: the exception may come before the write). No interpreter
//! resumes a compiled frame (the JIT never deoptimises), and a synchronized
//! method's lock lives in its frame header, not in local 0.

use super::ops::{Op, K};
use crate::interp::insn::{Handler, Switch};

/// Live locals by instruction: one bit per local, on entry.
#[derive(Clone, Debug, Default)]
pub struct LiveLocals {
    /// Words of `bits` per instruction.
    words: usize,
    bits: Vec<u64>,
}

impl LiveLocals {
    /// Whether local `local` is live on entry to instruction `insn`;
    /// true for anything the analysis did not cover (an index past the
    /// method's instructions or locals), which keeps the local.
    pub fn is_live(&self, insn: usize, local: usize) -> bool {
        let w = local / 64;
        if w >= self.words {
            return true;
        }
        self.bits
            .get(insn * self.words + w)
            .is_none_or(|b| b & (1 << (local % 64)) != 0)
    }
}

/// Locals an instruction touches: the first slot and how many (a long or
/// double takes two).
type Slots = Option<(usize, usize)>;

/// The locals `op` reads and writes: `(read, written)`.
fn accesses(op: &Op) -> (Slots, Slots) {
    let width = |k: K| k.slots();
    match *op {
        Op::Load(k, l) => (Some((l as usize, width(k))), None),
        Op::Store(k, l) => (None, Some((l as usize, width(k)))),
        Op::Iinc(l, _) => (Some((l as usize, 1)), None),
        _ => (None, None),
    }
}

/// Computes the live locals of a method of `max_locals` locals.
pub fn compute(ops: &[Op], handlers: &[Handler], switches: &[Switch], max_locals: usize) -> LiveLocals {
    let n = ops.len();
    let words = max_locals.div_ceil(64).max(1);
    let mut live = LiveLocals {
        words,
        bits: vec![0; n * words],
    };
    if n == 0 {
        return live;
    }
    // Handlers by covered instruction.
    let mut covering: Vec<Vec<usize>> = vec![Vec::new(); n];
    for h in handlers {
        let target = h.handler as usize;
        if target < n {
            for c in covering
                .iter_mut()
                .take((h.end as usize).min(n))
                .skip(h.start as usize)
            {
                c.push(target);
            }
        }
    }
    let set = |row: &mut [u64], (first, count): (usize, usize)| {
        for l in first..(first + count).min(max_locals) {
            row[l / 64] |= 1 << (l % 64);
        }
    };
    let clear = |row: &mut [u64], (first, count): (usize, usize)| {
        for l in first..(first + count).min(max_locals) {
            row[l / 64] &= !(1 << (l % 64));
        }
    };
    // Normal successors by instruction.
    let succs: Vec<Vec<usize>> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let mut s = op.successors(i, switches);
            s.retain(|&t| t < n);
            s
        })
        .collect();
    let mut row = vec![0u64; words];
    loop {
        let mut changed = false;
        for i in (0..n).rev() {
            // Out: what the normal successors need.
            row.iter_mut().for_each(|w| *w = 0);
            for &s in &succs[i] {
                for (r, b) in row.iter_mut().zip(&live.bits[s * words..(s + 1) * words]) {
                    *r |= b;
                }
            }
            // In: less what this instruction writes, with what it reads,
            // and everything its handlers need.
            let (read, written) = accesses(&ops[i]);
            if let Some(wr) = written {
                clear(&mut row, wr);
            }
            if let Some(rd) = read {
                set(&mut row, rd);
            }
            for &h in &covering[i] {
                for (r, b) in row.iter_mut().zip(&live.bits[h * words..(h + 1) * words]) {
                    *r |= b;
                }
            }
            let at = &mut live.bits[i * words..(i + 1) * words];
            if at != row.as_slice() {
                at.copy_from_slice(&row);
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jit::ops::Target;

    /// `shorter(x, y)`'s shape: x and y copied into locals 2 and 3, then a
    /// loop over those: x and y are live only until the copies, 2 and 3
    /// throughout the loop, and nothing after the return.
    #[test]
    fn a_parameter_copied_before_a_loop_is_dead_in_it() {
        let ops = vec![
            Op::Load(K::R, 0),                   // 0
            Op::Store(K::R, 2),                  // 1
            Op::Load(K::R, 1),                   // 2
            Op::Store(K::R, 3),                  // 3
            Op::Load(K::R, 3),                   // 4: loop head
            Op::IfNull(true, Target::to(10, 5)), // 5
            Op::Load(K::R, 2),                   // 6
            Op::Store(K::R, 2),                  // 7 (xs = xs.next, shortened)
            Op::Load(K::R, 3),                   // 8
            Op::Goto(Target::to(4, 9)),          // 9 (ys = ..., shortened)
            Op::Return(None),                    // 10
        ];
        let l = compute(&ops, &[], &[], 4);
        assert!(l.is_live(0, 0) && l.is_live(0, 1), "both parameters on entry");
        assert!(!l.is_live(2, 0), "x after its copy");
        assert!(
            !l.is_live(4, 0) && !l.is_live(4, 1),
            "neither parameter in the loop"
        );
        assert!(
            l.is_live(4, 2) && l.is_live(4, 3),
            "the loop's locals at its head"
        );
        assert!(l.is_live(9, 2), "xs around the back edge");
        assert!(!l.is_live(10, 2), "nothing at the return");
        assert!(!l.is_live(7, 2), "xs is written at 7 before any read");
        assert!(
            l.is_live(99, 0) && l.is_live(0, 200),
            "outside the analysis: live"
        );
    }

    /// A local a handler reads is live on entry to every instruction the
    /// handler covers, even one that writes it; a wide store kills both
    /// its slots.
    #[test]
    fn a_handler_keeps_what_it_reads_live_over_what_it_covers() {
        let ops = vec![
            Op::Load(K::R, 0),  // 0
            Op::Store(K::R, 0), // 1 (covered: the write may not happen)
            Op::Load(K::J, 2),  // 2
            Op::Store(K::J, 2), // 3
            Op::Return(None),   // 4
            Op::Load(K::R, 0),  // 5: the handler
            Op::AThrow,         // 6
        ];
        let handlers = [Handler {
            start: 1,
            end: 2,
            handler: 5,
            catch: None,
            unresolved: false,
        }];
        let l = compute(&ops, &handlers, &[], 4);
        assert!(l.is_live(1, 0), "the handler reads local 0");
        assert!(!l.is_live(2, 0), "past the covered range, 0 is dead");
        assert!(l.is_live(2, 2) && l.is_live(2, 3), "a long's two slots");
        assert!(!l.is_live(3, 2) && !l.is_live(4, 3), "written by the wide store");
    }
}

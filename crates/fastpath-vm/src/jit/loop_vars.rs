//! The reference locals a loop reads and never stores: each keeps,
//! through the loop's head, the nullness and the declared type
//! (`declared.rs`) it had on every way into the loop.
//!
//! Where it sits: `translate.rs` asks [`plan`] once per method it
//! translates (the compiled method and each inlined callee), keeps the
//! answer for the heads whose every edge from outside is one it records
//! facts on (`Translator::record_edge_facts`), and starts such a head with
//! the locals non-null on all those edges as facts of the variables
//! (`facts.rs`, `BlockFacts::nonnull_vars`): a read of one in the loop is
//! then known non-null, and its null checks go (C2 gets the same from its
//! type system: a loop phi of non-null values is non-null, `PhiNode::Value`);
//! and with the declared type all those edges agree on
//! (`BlockFacts::declared_vars`): an `aastore` into an array the loop only
//! reads keeps the proof its store check passes that it had before the
//! loop (a traversal's `Node[] stack = new Node[64]`). Every such head,
//! one whose loop reads no such local included, also starts with the
//! header words of the frames around the loop that every edge in had
//! written (`Translator::loop_header_words`), so its safepoints store them
//! no more.
//!
//! Why it holds: inside the loop such a local is defined only by the
//! reloads after the collector's stops (`Translator::reload`, and
//! `stop_join`, which gives locals that held one reference the one value
//! again), which keep a non-null reference non-null (the collector moves
//! objects, it never nulls a reference, nor changes its class); so a back
//! edge brings the head a value as non-null, and of the same type, as the
//! one it entered with. "Inside the loop" is the natural loop of
//! the head: every instruction from which a back edge to it can be
//! reached without passing through it, exception handlers included (a
//! handler's predecessors are the instructions it covers), so a store on
//! any way around the loop, wherever it lies in the code, is seen.

use std::collections::{HashMap, HashSet};

use super::ops::{Op, K};
use crate::interp::insn::{Handler, Switch};

/// By loop head: the reference locals its natural loop loads and never
/// stores, in ascending order (none for a loop that loads no such local:
/// its head still starts with the frame words every way in has written,
/// `Translator::loop_header_words`). The targets of a switch's backward
/// edge are absent.
pub fn plan(ops: &[Op], handlers: &[Handler], switches: &[Switch]) -> HashMap<usize, Vec<u16>> {
    let n = ops.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut back: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut excluded: HashSet<usize> = HashSet::new();
    for (j, op) in ops.iter().enumerate() {
        let falls_through = !matches!(
            op,
            Op::Goto(_) | Op::Switch(_) | Op::Return(_) | Op::AThrow | Op::Throw(_)
        );
        if falls_through && j + 1 < n {
            preds[j + 1].push(j);
        }
        match *op {
            Op::If(_, t) | Op::IfICmp(_, t) | Op::IfACmp(_, t) | Op::IfNull(_, t) | Op::Goto(t) => {
                let t = t.index as usize;
                if t < n {
                    preds[t].push(j);
                    if t <= j {
                        back.entry(t).or_default().push(j);
                    }
                }
            }
            Op::Switch(k) => {
                if let Some(
                    Switch::Table { default, targets, .. } | Switch::Lookup { default, targets, .. },
                ) = switches.get(k as usize)
                {
                    for &t in targets.iter().chain(std::iter::once(default)) {
                        let t = t as usize;
                        if t < n {
                            preds[t].push(j);
                            if t <= j {
                                excluded.insert(t);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    for h in handlers {
        let target = h.handler as usize;
        if target < n {
            for j in h.start as usize..(h.end as usize).min(n) {
                preds[target].push(j);
            }
        }
    }
    let mut out = HashMap::new();
    for (&head, sources) in &back {
        if excluded.contains(&head) {
            continue;
        }
        // The natural loop: backwards from the back edges' sources, never
        // through the head.
        let mut body: HashSet<usize> = HashSet::from([head]);
        let mut work: Vec<usize> = sources.clone();
        while let Some(j) = work.pop() {
            if body.insert(j) {
                work.extend(preds[j].iter().copied());
            }
        }
        let mut loaded: HashSet<u16> = HashSet::new();
        let mut stored: HashSet<u16> = HashSet::new();
        for &j in &body {
            match ops[j] {
                Op::Load(K::R, local) => {
                    loaded.insert(local);
                }
                Op::Store(_, local) => {
                    stored.insert(local);
                }
                _ => {}
            }
        }
        let mut locals: Vec<u16> = loaded.difference(&stored).copied().collect();
        locals.sort_unstable();
        out.insert(head, locals);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jit::ops::Target;

    #[test]
    fn a_local_stored_anywhere_on_the_way_around_is_no_candidate() {
        // 0: aload 1; 1: aload 2; 2: ifnull 6 (a forward exit into the
        // code after the loop); 3: aload 1; 4: pop-like load; 5: goto 0;
        // 6: astore 2 (after the loop's code, but on a way back into it);
        // 7: goto 3.
        let ops = vec![
            Op::Load(K::R, 1),
            Op::Load(K::R, 2),
            Op::IfNull(true, Target::to(6, 2)),
            Op::Load(K::R, 1),
            Op::Load(K::R, 3),
            Op::Goto(Target::to(0, 5)),
            Op::Store(K::R, 2),
            Op::Goto(Target::to(3, 7)),
        ];
        let plan = plan(&ops, &[], &[]);
        // Local 2 is stored at 6, which reaches the back edge at 5
        // through 7 and 3; locals 1 and 3 are only read.
        assert_eq!(plan.get(&0), Some(&vec![1, 3]));
    }

    #[test]
    fn a_handler_inside_the_loop_counts_as_a_way_around() {
        // 0: aload 1; 1: aload 2; 2: goto 0; handler at 3 covering 0..2:
        // 3: astore 1; 4: goto 0.
        let ops = vec![
            Op::Load(K::R, 1),
            Op::Load(K::R, 2),
            Op::Goto(Target::to(0, 2)),
            Op::Store(K::R, 1),
            Op::Goto(Target::to(0, 4)),
        ];
        let handlers = [Handler {
            start: 0,
            end: 2,
            handler: 3,
            catch: None,
            unresolved: false,
        }];
        let plan = plan(&ops, &handlers, &[]);
        assert_eq!(plan.get(&0), Some(&vec![2]));
    }
}

//! Loop-invariant loads: the receiver's plain fields a loop reads, the
//! GC-state byte its barriers test and the receiver's data address, loaded
//! once before the loop instead of at every iteration.
//!
//! Where it sits: `translate.rs` asks [`plan`] once per method it
//! translates (the compiled method and each inlined callee, beside
//! `ranges.rs`); at a planned loop's head it emits the loads in a
//! preheader block (the head's own block, which every edge from outside
//! the loop enters), then the head proper, which only the back edges
//! enter, starts with them as its facts (`facts.rs`), and each planned
//! `getfield` in the loop uses the preheader's value. A back edge's poll
//! continues at the head on its hot path; after a stop its cold path goes
//! to the preheader, which loads everything again (the collector may have
//! moved the objects, and the GC-state byte changes only at a stop).
//!
//! The rule is C2's loop-invariant code motion (`PhaseIdealLoop`,
//! `loopopts.cpp`): a plain field load whose object does not change in
//! the loop, in a loop with no call, no store to that field, no monitor
//! and no volatile access, may be done once before it (the Java memory
//! model orders nothing else between its iterations), and the barrier's
//! GC-state test with it where no safepoint sits in between. Here the
//! object is the receiver (`this`, a local the method never stores, known
//! non-null, so the load is safe before the loop whatever path the loop
//! takes), and "no safepoint" means no instruction in the loop that may
//! stop for the collector and continue in it: no call, no allocation, no
//! monitor, no class initialisation or constant resolution (each of
//! these is a call of the runtime); the back edges' polls are the only
//! stops, and theirs reload. An instruction that throws leaves the loop
//! (no handler starts inside it).
//!
//! A loop that may stop (a call, an allocation, a monitor, a volatile
//! access) hoists nothing; it is planned only when it is a counted loop
//! short enough to need no poll at its back edge ([`Strip::short`]),
//! which C2 leaves without a safepoint whatever its body holds.
//!
//! Only innermost loops are planned (an inner loop's poll would stop
//! inside the outer one), in javac's layout: a back edge's target `h` and
//! the body up to the last back edge to it, contiguous, entered from
//! outside at `h` only.

use std::collections::HashMap;

use super::ops::{Op, K};
use crate::interp::insn::{Handler, Switch};
use crate::link::Kind;

/// A field of the receiver: its reference index or data byte offset,
/// and kind (as `Op::GetField` names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    /// Reference index (`Kind::Ref`) or data byte offset.
    pub off: u32,
    /// The field's kind.
    pub kind: Kind,
}

/// What one loop loads before its head.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hoist {
    /// The receiver's fields loaded once, and whether the loop reads the
    /// field's value as an array (an `arraylength` of it or an element
    /// load: its data address and length are loaded too when it is not
    /// null).
    pub fields: Vec<(Field, bool)>,
    /// The loop has barriers that test the GC-state byte.
    pub gc_state: bool,
    /// The loop reads or writes a primitive field of the receiver that is
    /// not hoisted: its data address is computed once.
    pub receiver_data: bool,
    /// A counted loop's strips (see [`Strip`]).
    pub strip: Option<Strip>,
    /// A counted loop short enough to need no poll ([`Strip::short`],
    /// its index proven `>= 0` by the translator): its back edge goes
    /// straight to its head.
    pub unpolled: bool,
    /// The loop has an instruction that may stop for the collector (a
    /// call, an allocation, a monitor, a volatile access: what
    /// `stops_nowhere` refuses): it hoists nothing and is planned only to
    /// go unpolled, so the translator drops it where its index is not
    /// proven `>= 0`.
    pub may_stop: bool,
}

/// A counted loop strip-mined as C2 does (`LoopStripMiningIter`,
/// `PhaseIdealLoop::strip_mine_loop` in `loopnode.cpp`): its head tests
/// the index against the strip's end, a value kept in a variable, and only
/// where the index reaches it does the loop poll and run its own test,
/// which computes the next strip's end: so no poll runs in the strip, and
/// one runs at least every [`STRIP_ITERATIONS`] iterations.
///
/// The shape (javac's `for (; i < n; i += s)`): the head loads the int
/// local `index`, then the bound (an int constant, an int local or the
/// length of an array local the loop does not store, or of a hoisted
/// field) and `if_icmpge` leaves the loop; the one back edge is a `goto`
/// to the head at the end of the body, right after the only update of
/// `index`, `iinc index, s` with a constant `s > 0` (C2's counted loops
/// have a constant stride), and nothing jumps to the `goto`: every
/// iteration steps the index by `s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strip {
    /// The index local.
    pub index: u16,
    /// The step, `> 0`.
    pub step: i32,
    /// The head's `if_icmpge`.
    pub test: usize,
    /// The bound, when it is a constant.
    pub bound: Option<i32>,
}

impl Strip {
    /// Whether the loop runs at most [`STRIP_ITERATIONS`] iterations when
    /// its index starts `>= 0`: a constant bound within one strip, so it
    /// needs no poll at all (C2 leaves a counted loop with such a trip
    /// count unmined, and without a safepoint).
    pub fn short(&self) -> bool {
        self.bound
            .is_some_and(|b| i64::from(b) <= STRIP_ITERATIONS * i64::from(self.step))
    }
}

/// The most iterations a strip runs without a poll (HotSpot's
/// `LoopStripMiningIter` default).
pub const STRIP_ITERATIONS: i64 = 1000;

/// The loops of one method that load something before their head.
#[derive(Default)]
pub struct Plan {
    /// By loop head (the back edges' target).
    pub heads: HashMap<usize, Hoist>,
    /// The `getfield` instructions whose value is a hoisted field's: the
    /// loop head and the index into its `fields`.
    pub loads: HashMap<usize, (usize, usize)>,
}

/// The plan for `ops` (see the module comment); `receiver_fixed` when
/// local 0 holds the receiver throughout (an instance method that never
/// stores it). `barrier_state` says whether the heap's barriers test the
/// GC-state byte.
pub fn plan(
    ops: &[Op],
    handlers: &[Handler],
    switches: &[Switch],
    receiver_fixed: bool,
    barrier_state: bool,
) -> Plan {
    let mut p = Plan::default();
    let n = ops.len();
    // Branch targets (forward and backward), with where they come from.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut back_to: HashMap<usize, usize> = HashMap::new();
    // Every backward branch, a switch's included: (from, to).
    let mut backs: Vec<(usize, usize)> = Vec::new();
    for (j, op) in ops.iter().enumerate() {
        match *op {
            Op::If(_, t) | Op::IfICmp(_, t) | Op::IfACmp(_, t) | Op::IfNull(_, t) | Op::Goto(t) => {
                let t = t.index as usize;
                if t < n {
                    preds[t].push(j);
                }
                if t <= j {
                    let e = back_to.entry(t).or_insert(j);
                    *e = (*e).max(j);
                    backs.push((j, t));
                }
            }
            Op::Switch(k) => {
                if let Some(s) = switches.get(k as usize) {
                    let (Switch::Table { default, targets, .. } | Switch::Lookup { default, targets, .. }) =
                        s;
                    for &t in targets.iter().chain(std::iter::once(default)) {
                        let t = t as usize;
                        if t < n {
                            preds[t].push(j);
                        }
                        if t <= j {
                            // A switch's back edge: not a loop planned here.
                            back_to.insert(t, usize::MAX);
                            backs.push((j, t));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let mut heads: Vec<(usize, usize)> = back_to.into_iter().filter(|&(_, e)| e != usize::MAX).collect();
    heads.sort_unstable();
    for &(h, e) in &heads {
        // Innermost: no backward branch inside to anywhere but `h` (each
        // polls, and an inner loop's stop would leave this loop's loads
        // stale).
        if backs.iter().any(|&(j, t)| (h..=e).contains(&j) && t != h) {
            continue;
        }
        // Entered from outside at `h` only; no handler inside.
        let entered_inside = (h + 1..=e).any(|t| preds[t].iter().any(|&j| j < h || j > e));
        let handler_inside = handlers.iter().any(|x| (h..=e).contains(&(x.handler as usize)));
        if entered_inside || handler_inside {
            continue;
        }
        let body = &ops[h..=e];
        if !body.iter().all(stops_nowhere) {
            // A loop that may stop hoists nothing; a short counted one
            // still needs no poll (C2 removes the safepoint of a counted
            // loop whose trip count is within one strip whatever its body
            // holds: a call's callee polls at its entry, an inner loop at
            // its back edge, so a stop is reached within 1000 iterations).
            let quiet = Hoist::default();
            if let Some(strip) = counted(ops, h, e, &preds, &quiet).filter(Strip::short) {
                p.heads.insert(
                    h,
                    Hoist {
                        strip: Some(strip),
                        may_stop: true,
                        ..quiet
                    },
                );
            }
            continue;
        }
        let (mut hoist, loads) = loop_hoist(ops, h, e, &preds, receiver_fixed, barrier_state);
        hoist.strip = counted(ops, h, e, &preds, &hoist);
        if hoist != Hoist::default() {
            for (g, k) in loads {
                p.loads.insert(g, (h, k));
            }
            p.heads.insert(h, hoist);
        }
    }
    p
}

/// The strips of loop `h..=e` when it is a counted loop ([`Strip`]), with
/// `hoist` its hoisted fields.
fn counted(ops: &[Op], h: usize, e: usize, preds: &[Vec<usize>], hoist: &Hoist) -> Option<Strip> {
    let stored = |n: u16| {
        ops[h..=e]
            .iter()
            .filter(|op| matches!(**op, Op::Store(K::I, m) | Op::Iinc(m, _) if m == n))
            .count()
    };
    let Op::Load(K::I, index) = ops[h] else {
        return None;
    };
    // The bound, and where the test is.
    let mut bound = None;
    let test = match ops.get(h + 1..)? {
        [Op::Const(super::ops::Const::I(c)), ..] => {
            bound = Some(*c);
            h + 2
        }
        [Op::Load(K::I, n), ..] if *n != index && stored(*n) == 0 => h + 2,
        [Op::Load(K::R, a), Op::ArrayLength, ..] if !stores_ref(&ops[h..=e], *a) => h + 3,
        [Op::Load(K::R, 0), Op::GetField {
            off,
            kind: Kind::Ref,
            volatile: false,
        }, Op::ArrayLength, ..]
            if hoist.fields.contains(&(
                Field {
                    off: *off,
                    kind: Kind::Ref,
                },
                true,
            )) =>
        {
            h + 4
        }
        _ => return None,
    };
    let Op::IfICmp(crate::interp::insn::Cond::Ge, exit) = *ops.get(test)? else {
        return None;
    };
    if (exit.index as usize) <= e || (h + 1..=test).any(|j| !preds[j].is_empty()) {
        return None;
    }
    // One back edge, the last instruction, after the update.
    if !matches!(ops[e], Op::Goto(t) if t.index as usize == h)
        || preds[h].iter().filter(|&&j| j >= h).count() != 1
    {
        return None;
    }
    let step = match ops[..e] {
        [.., Op::Iinc(n, s)] if n == index && s > 0 => i32::from(s),
        _ => return None,
    };
    if e - 1 <= test || !preds[e].is_empty() || stored(index) != 1 {
        return None;
    }
    Some(Strip {
        index,
        step,
        test,
        bound,
    })
}

/// Whether `ops` store reference local `n`.
fn stores_ref(ops: &[Op], n: u16) -> bool {
    ops.iter().any(|op| matches!(*op, Op::Store(K::R, m) if m == n))
}

/// What loop `h..=e` hoists (no strips yet), and its hoisted `getfield`s
/// with the index of their field.
fn loop_hoist(
    ops: &[Op],
    h: usize,
    e: usize,
    preds: &[Vec<usize>],
    receiver_fixed: bool,
    barrier_state: bool,
) -> (Hoist, Vec<(usize, usize)>) {
    let body = &ops[h..=e];
    let mut hoist = Hoist::default();
    let mut loads = Vec::new();
    if receiver_fixed {
        // Fields the loop writes (by reference index or data offset).
        let written: Vec<Field> = body
            .iter()
            .filter_map(|op| match *op {
                Op::PutField { off, kind, .. } => Some(Field { off, kind }),
                _ => None,
            })
            .collect();
        let clash = |f: Field| {
            written
                .iter()
                .any(|w| w.off == f.off && (w.kind == Kind::Ref) == (f.kind == Kind::Ref))
        };
        for g in h + 1..=e {
            let Op::GetField {
                off,
                kind,
                volatile: false,
            } = ops[g]
            else {
                continue;
            };
            // `aload_0; getfield`, the load not a branch target.
            if !matches!(ops[g - 1], Op::Load(K::R, 0)) || !preds[g].is_empty() {
                continue;
            }
            let f = Field { off, kind };
            if clash(f) {
                continue;
            }
            // Read as an array (the verifier proved the field's type one):
            // `arraylength` of it, or an element load `v[i]`.
            let quiet = |j: usize| preds.get(j).is_some_and(|p| p.is_empty());
            let array = kind == Kind::Ref
                && match ops.get(g + 1..g + 3) {
                    Some([Op::ArrayLength, ..]) => quiet(g + 1),
                    Some([Op::Load(K::I, _), Op::ALoad(_)]) => quiet(g + 1) && quiet(g + 2),
                    _ => false,
                };
            let k = match hoist.fields.iter().position(|&(x, _)| x == f) {
                Some(k) => {
                    hoist.fields[k].1 |= array;
                    k
                }
                None => {
                    hoist.fields.push((f, array));
                    hoist.fields.len() - 1
                }
            };
            loads.push((g, k));
        }
        hoist.receiver_data = body.iter().enumerate().any(|(j, op)| match *op {
            Op::PutField { kind, .. } => kind != Kind::Ref,
            Op::GetField { kind, .. } => kind != Kind::Ref && !loads.iter().any(|&(g, _)| g == h + j),
            _ => false,
        });
    }
    hoist.gc_state = barrier_state
        && body.iter().any(|op| match *op {
            Op::ALoad(k) | Op::AStore(k) => k == Kind::Ref,
            Op::GetField { kind, .. } => kind == Kind::Ref,
            Op::PutField { .. } => true,
            _ => false,
        });
    (hoist, loads)
}

/// Whether `op`, in a loop, never stops for the collector and continues
/// in the loop: no call, allocation, monitor, class initialisation,
/// constant resolution or volatile access (which orders the loop's plain
/// loads). Throwing (a failed check, `athrow`) leaves the loop.
fn stops_nowhere(op: &Op) -> bool {
    match *op {
        Op::GetField { volatile, .. } | Op::PutField { volatile, .. } => !volatile,
        Op::Invoke(..)
        | Op::New(_)
        | Op::NewArray(_)
        | Op::MultiANewArray(..)
        | Op::MonitorEnter
        | Op::MonitorExit
        | Op::GetStatic { .. }
        | Op::PutStatic { .. }
        | Op::LdcString(_)
        | Op::LdcClass(_)
        | Op::CheckCast(_)
        | Op::InstanceOf(_) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::insn::Cond;
    use crate::jit::ops::{Const, Target};

    fn t(index: u32, backward: bool) -> Target {
        Target { index, backward }
    }

    /// `for (i = 0; i < this.v.length; i++) this.v[i] = i;` with `extra`
    /// in the body before the increment.
    fn fill(extra: &[Op]) -> Vec<Op> {
        let v = Op::GetField {
            off: 0,
            kind: Kind::Ref,
            volatile: false,
        };
        let mut ops = vec![
            Op::Const(Const::I(0)),
            Op::Store(K::I, 1),
            // 2: the head.
            Op::Load(K::I, 1),
            Op::Load(K::R, 0),
            v,
            Op::ArrayLength,
        ];
        let exit_at = ops.len();
        ops.push(Op::Nop); // the exit branch, patched below
        ops.extend([
            Op::Load(K::R, 0),
            v,
            Op::Load(K::I, 1),
            Op::Load(K::I, 1),
            Op::AStore(Kind::Int),
        ]);
        ops.extend_from_slice(extra);
        ops.push(Op::Iinc(1, 1));
        ops.push(Op::Goto(t(2, true)));
        let exit = ops.len() as u32;
        ops[exit_at] = Op::IfICmp(Cond::Ge, t(exit, false));
        ops.push(Op::Return(None));
        ops
    }

    #[test]
    fn a_fill_loop_loads_its_field_and_the_gc_state_once() {
        let p = plan(&fill(&[]), &[], &[], true, true);
        let h = &p.heads[&2];
        assert_eq!(
            h.fields,
            vec![(
                Field {
                    off: 0,
                    kind: Kind::Ref
                },
                true
            )]
        );
        // The int store has no barrier; the field's load has.
        assert!(h.gc_state);
        assert!(!h.receiver_data);
        assert_eq!(p.loads.len(), 2);
        assert_eq!(p.loads[&4], (2, 0));
        assert_eq!(p.loads[&8], (2, 0));
        // Counted: `i` from the head's test to the `iinc` before the goto.
        let strip = Strip {
            index: 1,
            step: 1,
            test: 6,
            bound: None,
        };
        assert_eq!(h.strip, Some(strip));
        assert!(!strip.short());
        assert!(Strip {
            bound: Some(1000),
            ..strip
        }
        .short());
        assert!(!Strip {
            bound: Some(1001),
            ..strip
        }
        .short());
        // A second update of the index: not counted.
        let twice = [Op::Iinc(1, 1)];
        assert_eq!(plan(&fill(&twice), &[], &[], true, true).heads[&2].strip, None);
    }

    #[test]
    fn what_forbids_hoisting() {
        let store = [
            Op::Load(K::R, 0),
            Op::Const(Const::Null),
            Op::PutField {
                off: 0,
                kind: Kind::Ref,
                volatile: false,
            },
        ];
        let other = [
            Op::Load(K::R, 0),
            Op::Const(Const::Null),
            Op::PutField {
                off: 1,
                kind: Kind::Ref,
                volatile: false,
            },
        ];
        let prim = [
            Op::Load(K::R, 0),
            Op::Const(Const::I(1)),
            Op::PutField {
                off: 0,
                kind: Kind::Int,
                volatile: false,
            },
        ];
        let vol = [
            Op::Load(K::R, 0),
            Op::GetField {
                off: 4,
                kind: Kind::Int,
                volatile: true,
            },
            Op::Pop,
        ];
        let mon = [
            Op::Load(K::R, 0),
            Op::MonitorEnter,
            Op::Load(K::R, 0),
            Op::MonitorExit,
        ];
        // A store to the field: not hoisted; another field's is no clash,
        // nor is a primitive field at the same number (another space).
        let p = plan(&fill(&store), &[], &[], true, true);
        assert!(p.heads.get(&2).is_none_or(|h| h.fields.is_empty()));
        assert!(p.loads.is_empty());
        assert_eq!(plan(&fill(&other), &[], &[], true, true).loads.len(), 2);
        let p = plan(&fill(&prim), &[], &[], true, true);
        assert_eq!(p.loads.len(), 2);
        assert!(p.heads[&2].receiver_data);
        // A volatile access or a monitor: nothing.
        assert!(plan(&fill(&vol), &[], &[], true, true).heads.is_empty());
        assert!(plan(&fill(&mon), &[], &[], true, true).heads.is_empty());
        // A static method (local 0 is no receiver): the GC-state byte only.
        let p = plan(&fill(&[]), &[], &[], false, true);
        assert!(p.loads.is_empty());
        assert!(p.heads[&2].gc_state);
        // No barrier testing the byte and no receiver: nothing.
        assert!(plan(&fill(&[]), &[], &[], false, false).heads.is_empty());
        // A handler inside the loop.
        let handler = Handler {
            start: 2,
            end: 12,
            handler: 9,
            catch: None,
            unresolved: false,
        };
        assert!(plan(&fill(&[]), &[handler], &[], true, true).heads.is_empty());
    }

    /// `for (i = 0; i < bound; i++) { extra }`.
    fn constant_bound(bound: i32, extra: &[Op]) -> Vec<Op> {
        let mut ops = vec![
            Op::Const(Const::I(0)),
            Op::Store(K::I, 1),
            // 2: the head.
            Op::Load(K::I, 1),
            Op::Const(Const::I(bound)),
            Op::Nop, // the exit branch, patched below
        ];
        ops.extend_from_slice(extra);
        ops.push(Op::Iinc(1, 1));
        ops.push(Op::Goto(t(2, true)));
        let exit = ops.len() as u32;
        ops[4] = Op::IfICmp(Cond::Ge, t(exit, false));
        ops.push(Op::Return(None));
        ops
    }

    #[test]
    fn a_short_counted_loop_that_may_stop_is_planned_unpolled_only() {
        let mon = [
            Op::Load(K::R, 0),
            Op::MonitorEnter,
            Op::Load(K::R, 0),
            Op::MonitorExit,
        ];
        let p = plan(&constant_bound(8, &mon), &[], &[], true, true);
        let h = &p.heads[&2];
        assert!(h.may_stop);
        assert!(h.fields.is_empty() && !h.gc_state && !h.receiver_data && !h.unpolled);
        assert_eq!(
            h.strip,
            Some(Strip {
                index: 1,
                step: 1,
                test: 4,
                bound: Some(8),
            })
        );
        assert!(p.loads.is_empty());
        // Past one strip it polls: not planned.
        assert!(plan(&constant_bound(1001, &mon), &[], &[], true, true)
            .heads
            .is_empty());
        // A quiet short loop is no such loop (it may hoist).
        let p = plan(&constant_bound(8, &[]), &[], &[], false, true);
        assert!(p.heads.values().all(|h| !h.may_stop));
        // A second update of the index: not counted, not planned.
        let twice = [mon.as_slice(), &[Op::Iinc(1, 1)]].concat();
        assert!(plan(&constant_bound(8, &twice), &[], &[], true, true)
            .heads
            .is_empty());
    }

    #[test]
    fn only_innermost_loops_entered_at_their_head() {
        // An outer loop around the fill loop: only the inner one.
        let mut ops = vec![Op::Const(Const::I(0)), Op::Store(K::I, 2)];
        let inner = fill(&[]);
        let base = ops.len() as u32;
        for op in &inner[..inner.len() - 1] {
            ops.push(match *op {
                Op::Goto(x) => Op::Goto(t(x.index + base, x.backward)),
                Op::IfICmp(c, x) => Op::IfICmp(c, t(x.index + base, x.backward)),
                o => o,
            });
        }
        ops.push(Op::Iinc(2, 1));
        ops.push(Op::Goto(t(0, true)));
        ops.push(Op::Return(None));
        let p = plan(&ops, &[], &[], true, true);
        assert_eq!(
            p.heads.keys().copied().collect::<Vec<_>>(),
            vec![2 + base as usize]
        );
        // A jump from outside into the body: not planned.
        let mut ops = fill(&[]);
        ops.insert(0, Op::Goto(t(9, false)));
        for op in ops.iter_mut().skip(1) {
            *op = match *op {
                Op::Goto(x) => Op::Goto(t(x.index + 1, x.backward)),
                Op::IfICmp(c, x) => Op::IfICmp(c, t(x.index + 1, x.backward)),
                o => o,
            };
        }
        assert!(plan(&ops, &[], &[], true, true).heads.is_empty());
    }
}

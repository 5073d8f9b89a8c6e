//! Lock coarsening: a `monitorexit` whose object is entered again, after
//! nothing but local-variable work, keeps the lock for a few rounds
//! instead of releasing and re-acquiring it.
//!
//! Where it sits: `translate.rs` asks [`plan`] once per compiled method
//! (the outer method's ops, not an inlined callee's) and, while
//! translating, calls the `coarsened_*` and `release_deferred` emitters
//! below at the instructions the plan marks; the monitor fast paths
//! themselves are `emit.rs`'s.
//!
//! # The shape
//!
//! javac compiles `for (...) { synchronized (o) { body } }` to a
//! `monitorexit` followed by the loop's tail (`iinc`, a back edge, the
//! bound's test) and, on the next round, `aload; dup; astore; monitorenter`
//! on the same object. HotSpot's C2 unrolls such a loop and then removes
//! the unlock/lock pairs that became adjacent in the unrolled body (lock
//! coarsening, `-XX:+EliminateLocks`): the lock is taken once per unrolled
//! body. Here the same effect comes without unrolling, from a deferred
//! release carried in two SSA variables:
//!
//! - The **tail** of an exit is every instruction reachable from the one
//!   after the `monitorexit` through *quiet* instructions only: locals,
//!   constants, stack shuffles, arithmetic that cannot throw, compares and
//!   branches (a back edge's safepoint poll included). A quiet instruction
//!   cannot throw, call, touch the heap or another monitor. The tail ends
//!   at a `monitorenter` (a re-entry) or at the first instruction that is
//!   not quiet (a *way out*). An exit is **coarsenable** when its tail
//!   reaches at least one re-entry.
//! - At a coarsenable exit, when the thread holds the lock fast-locked
//!   (the object resolved for writing is its lock-stack's top entry, so
//!   the skipped exit could not have thrown `IllegalMonitorStateException`)
//!   and the round budget is not spent, the release is deferred: `deferred`
//!   holds the object and `budget` drops by one; otherwise the exit runs
//!   and the budget refills to [`ROUNDS`].
//! - At a re-entry, an object equal to `deferred` (both resolved for
//!   writing) is still locked by this thread: the enter is skipped. A
//!   different object releases the deferred one first, then enters.
//! - At a way out, a deferred lock is released before the instruction.
//!
//! `deferred` is non-zero only along a tail (every path out of one
//! passes a re-entry or a way out), so outside the tails nothing changes.
//!
//! # Why it is allowed
//!
//! The Java memory model lets a compiler move accesses into a critical
//! section (the "roach motel" rule): merging `unlock; tail; lock` into one
//! region moves the tail inside, and the tail touches only the thread's
//! own locals. Other threads see the monitor held a little longer; the
//! budget bounds that to [`ROUNDS`] rounds of a tail, as an unroll factor
//! bounds C2's. A tail may poll for a safepoint with the lock deferred:
//! the thread simply holds a lock at a safepoint, as inside any
//! `synchronized` block, and a locked object's region is neither evacuated
//! nor freed while the lock is held (`fastpath::gc::RegionLockMap`'s
//! protocol), so the address `deferred` keeps stays the object's. Only
//! lightweight locking coarsens (its lock-stack answers "held by this
//! thread" inline); the other modes call the runtime at every exit.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use cranelift_frontend::Variable;

use super::ops::{Op, Target, K};
use super::translate::Translator;
use crate::interp::insn::Arith;

/// Rounds a coarsened lock is kept before one release and re-acquire.
/// C2 coarsens within an unrolled loop body, typically 4 to 16 copies of
/// a short body; 8 keeps the extra hold time to a few short tails.
pub const ROUNDS: i64 = 8;

/// Which instructions of a method take part in coarsening.
#[derive(Debug, Default)]
pub struct Plan {
    /// `monitorexit`s whose release may be deferred.
    pub exits: Vec<bool>,
    /// `monitorenter`s a deferred lock may reach.
    pub reentries: Vec<bool>,
    /// Instructions a deferred lock may reach that are not quiet: it is
    /// released before them.
    pub ways_out: Vec<bool>,
}

/// The variables of a coarsening method: the deferred object (0: none)
/// and the rounds left before a release.
#[derive(Clone, Copy, Debug)]
pub struct Vars {
    deferred: Variable,
    budget: Variable,
}

/// A compiled method's coarsening: its plan and variables.
#[derive(Debug)]
pub struct Coarsening {
    /// Where it applies.
    pub plan: Plan,
    vars: Vars,
}

impl Coarsening {
    /// The coarsening of a method with these ops, its variables declared
    /// in `b`; `None` when no exit is coarsenable.
    pub fn new(ops: &[Op], b: &mut cranelift_frontend::FunctionBuilder) -> Option<Coarsening> {
        let plan = plan(ops)?;
        let vars = Vars {
            deferred: b.declare_var(I64),
            budget: b.declare_var(I64),
        };
        Some(Coarsening { plan, vars })
    }
}

/// An instruction of a tail: it cannot throw, call, read or write the
/// heap, or take part in locking.
fn quiet(op: &Op) -> bool {
    match op {
        Op::Nop
        | Op::Const(_)
        | Op::Load(..)
        | Op::Store(..)
        | Op::Iinc(..)
        | Op::Pop
        | Op::Pop2
        | Op::Dup
        | Op::DupX1
        | Op::DupX2
        | Op::Dup2
        | Op::Dup2X1
        | Op::Dup2X2
        | Op::Swap
        | Op::Neg(_)
        | Op::Conv(_)
        | Op::LCmp
        | Op::FCmp(_)
        | Op::DCmp(_)
        | Op::If(..)
        | Op::IfICmp(..)
        | Op::IfACmp(..)
        | Op::IfNull(..)
        | Op::Goto(_) => true,
        // Integer division and remainder throw on a zero divisor.
        Op::Arith(k, a) => !(matches!(k, K::I | K::J) && matches!(a, Arith::Div | Arith::Rem)),
        _ => false,
    }
}

/// The instructions control may go to after `op` at `i`.
fn successors(op: &Op, i: usize, out: &mut Vec<usize>) {
    let target = |t: &Target| t.index as usize;
    match op {
        Op::If(_, t) | Op::IfICmp(_, t) | Op::IfACmp(_, t) | Op::IfNull(_, t) => {
            out.push(target(t));
            out.push(i + 1);
        }
        Op::Goto(t) => out.push(target(t)),
        _ => out.push(i + 1),
    }
}

/// The coarsening plan of a method's ops, or `None` when no exit is
/// coarsenable.
pub fn plan(ops: &[Op]) -> Option<Plan> {
    let n = ops.len();
    let mut plan = Plan {
        exits: vec![false; n],
        reentries: vec![false; n],
        ways_out: vec![false; n],
    };
    let mut any = false;
    let mut next = Vec::new();
    for (x, op) in ops.iter().enumerate() {
        if !matches!(op, Op::MonitorExit) {
            continue;
        }
        // The tail from the instruction after the exit.
        let mut seen = vec![false; n];
        let (mut reentries, mut ways_out) = (Vec::new(), Vec::new());
        let mut work = vec![x + 1];
        while let Some(i) = work.pop() {
            if i >= n || seen[i] {
                continue;
            }
            seen[i] = true;
            match &ops[i] {
                Op::MonitorEnter => reentries.push(i),
                op if quiet(op) => {
                    next.clear();
                    successors(op, i, &mut next);
                    work.extend_from_slice(&next);
                }
                _ => ways_out.push(i),
            }
        }
        if reentries.is_empty() {
            continue;
        }
        any = true;
        plan.exits[x] = true;
        for i in reentries {
            plan.reentries[i] = true;
        }
        for i in ways_out {
            plan.ways_out[i] = true;
        }
    }
    any.then_some(plan)
}

impl Translator<'_, '_> {
    /// Declares and initialises the coarsening variables in the entry
    /// block (nothing deferred, a full budget).
    pub(super) fn coarsening_entry(&mut self) {
        let Some(vars) = self.coarsening().map(|c| c.vars) else {
            return;
        };
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(vars.deferred, zero);
        let rounds = self.b.ins().iconst(I64, ROUNDS);
        self.b.def_var(vars.budget, rounds);
    }

    /// Before instruction `i` of the compiled method: a way out releases
    /// a deferred lock.
    pub(super) fn coarsening_before(&mut self, i: usize) {
        let Some((vars, out)) = self.coarsening().map(|c| (c.vars, c.plan.ways_out[i])) else {
            return;
        };
        if out {
            self.release_deferred(vars);
        }
    }

    /// Whether the `monitorexit` at `i` of the compiled method is coarsenable.
    pub(super) fn coarsened_exit_at(&self, i: usize) -> bool {
        self.coarsening().is_some_and(|c| c.plan.exits[i])
    }

    /// Whether the `monitorenter` at `i` of the compiled method is a re-entry.
    pub(super) fn coarsened_enter_at(&self, i: usize) -> bool {
        self.coarsening().is_some_and(|c| c.plan.reentries[i])
    }

    /// A coarsenable `monitorexit` of `obj` (not null): deferred while
    /// the budget lasts and the lock-stack's top is the object, else the
    /// ordinary exit with the budget refilled.
    pub(super) fn coarsened_exit(&mut self, obj: Value) {
        let vars = self.coarsening().expect("a coarsening method").vars;
        self.facts().forget_memory();
        let trusted = MemFlagsData::trusted();
        let zero = self.b.ins().iconst(I64, 0);
        let (o, _) = self.resolve_write(obj, zero);
        let top = self.b.ins().uload32(trusted, self.thread, self.env.lock.top);
        let slot = self.b.ins().iadd(self.thread, top);
        let last = self.b.ins().load(I64, trusted, slot, -8);
        let held = self.b.ins().icmp(IntCC::Equal, last, o);
        let budget = self.b.use_var(vars.budget);
        let left = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, budget, 0);
        let defer = self.b.ins().band(held, left);
        let (keep, release, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(defer, keep, &[], release, &[]);

        self.b.switch_to_block(keep);
        self.b.def_var(vars.deferred, o);
        let less = self.b.ins().iadd_imm_s(budget, -1);
        self.b.def_var(vars.budget, less);
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(release);
        self.monitor_exit_obj(obj, true);
        let rounds = self.b.ins().iconst(I64, ROUNDS);
        self.b.def_var(vars.budget, rounds);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }

    /// A re-entry `monitorenter` of `obj` (not null, on the operand
    /// stack: a root through the enter's safepoint): skipped when `obj` is
    /// the deferred lock, else any deferred lock released and `obj`
    /// entered.
    pub(super) fn coarsened_enter(&mut self, obj: Value, idx: usize) {
        let vars = self.coarsening().expect("a coarsening method").vars;
        self.facts().forget_memory();
        let zero = self.b.ins().iconst(I64, 0);
        let (o, _) = self.resolve_write(obj, zero);
        let deferred = self.b.use_var(vars.deferred);
        let same = self.b.ins().icmp(IntCC::Equal, deferred, o);
        let (kept, enter, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(same, kept, &[], enter, &[]);

        self.b.switch_to_block(kept);
        let none = self.b.ins().iconst(I64, 0);
        self.b.def_var(vars.deferred, none);
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(enter);
        self.release_deferred(vars);
        self.monitor_enter_obj(obj, idx);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }

    /// Releases the deferred lock, if any, and clears it. The release
    /// cannot fail (the thread held it when it was deferred) and is no
    /// safepoint.
    fn release_deferred(&mut self, vars: Vars) {
        let deferred = self.b.use_var(vars.deferred);
        let (release, join) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(deferred, release, &[], join, &[]);
        self.b.switch_to_block(release);
        self.monitor_exit_obj(deferred, false);
        let none = self.b.ins().iconst(I64, 0);
        self.b.def_var(vars.deferred, none);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }
}

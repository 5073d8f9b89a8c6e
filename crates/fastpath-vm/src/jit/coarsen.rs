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
//!   and fewer than the exit's rounds ([`rounds`]) have been kept since the
//!   lock was last taken, the release is deferred: `deferred` holds the
//!   object and `kept` counts one more; otherwise the exit runs and `kept`
//!   returns to 0.
//!   The exit of a span that promotes fields (`promote.rs`: reached from
//!   its re-entry only, through a body that takes no part in locking)
//!   reads no lock-stack: its re-entry's real enter leaves the rounds
//!   spent unless it fast-locked the object, and a skipped enter leaves
//!   the lock as the last deferral found it, so rounds left mean the
//!   lock is the lock-stack's top.
//! - At a re-entry, an object equal to `deferred` (both resolved for
//!   writing) is still locked by this thread: the enter is skipped. A
//!   different object releases the deferred one first, then enters.
//! - The releases and real enters run once a span: their blocks are
//!   cold (`cold.rs`), laid out after the loop, whose kept round then
//!   runs straight through.
//! - At a way out, a deferred lock is released before the instruction.
//! - A re-entry whose object is null throws `NullPointerException`: a
//!   deferred lock is released before the exception is made (the handler
//!   is outside the synchronized block).
//!
//! `deferred` is non-zero only along a tail (every path out of one
//! passes a re-entry or a way out), so outside the tails nothing changes;
//! a method that promotes fields across its span (`promote.rs`) keeps it
//! set in the span's body as well, where the fields' variables belong to
//! it.
//!
//! # Why it is allowed
//!
//! The Java memory model lets a compiler move accesses into a critical
//! section (the "roach motel" rule): merging `unlock; tail; lock` into one
//! region moves the tail inside, and the tail touches only the thread's
//! own locals. Coarsening merges only the regions of one object that a
//! tail joins. Other threads see the monitor held longer, by as much as
//! the budget allows (below). A tail may poll for a safepoint with the
//! lock deferred: the thread simply holds a lock at a safepoint, as
//! inside any `synchronized` block, and a locked object's region is
//! neither evacuated nor freed while the lock is held (a stopped mutator
//! pins its lock-stack's regions: `fastpath::gc`'s `collector/cycle.rs`,
//! "Locked objects"), so the address `deferred` keeps stays the object's. Only lightweight locking coarsens (its
//! lock-stack answers "held by this thread" inline); the other modes call
//! the runtime at every exit.
//!
//! # The budget
//!
//! A thread that wants a lock another thread holds fast-locked spins on
//! its header for up to ~30 µs before it inflates it and parks
//! (`fastpath::sync` `fast_lock_spin.rs`, HotSpot's
//! `fast_lock_spin_enter`), and a lock kept across rounds is released
//! only when the budget is spent: so the budget is a latency bound for
//! the other threads (they wait for up to `1 + rounds` rounds instead of
//! one), paid for in throughput by the owner (one acquire and release,
//! two CASes, per `1 + rounds` rounds instead of per round). C2 bounds the same trade by its unroll factor: at most
//! `LoopMaxUnroll` (16) copies, fewer for a larger body (`LoopUnrollLimit`
//! counts the body's nodes). Here [`rounds`] sizes each exit's budget,
//! the releases it defers in a row, from its round (the body from the
//! re-entry to the exit, plus the tail): [`HOLD_OPS`] instructions
//! shared out, at most [`MAX_ROUNDS`], at least one. A short round keeps
//! the lock for a few hundred nanoseconds, well inside the other
//! threads' spin; a round of 1000 instructions defers once. A round whose
//! length its instructions do not tell (a call, a nested `monitorenter`,
//! a loop or a switch in the body, or a body laid out after its exit)
//! defers [`OPEN_ROUNDS`] times.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::Variable;

use super::helpers::Helper;
use super::ops::{Op, Target, K};
use super::promote::Promotion;
use super::translate::Translator;
use crate::interp::insn::{Arith, Handler, Switch};

/// The most releases an exit defers in a row: a round of SyncCounter's
/// shape (an increment, ~16 ops with the tail, ~3 ns compiled) then
/// holds the lock for ~0.2 µs, 1 % of the other threads' spin; the
/// acquire and release, ~8 ns on the Zen 3 guest, cost it 0.13 ns a
/// round where a budget of 8 cost 0.9 ns.
pub const MAX_ROUNDS: i64 = 64;

/// The instructions (ops) of the rounds one coarsened hold may add: an
/// exit whose round has `n` ops defers `HOLD_OPS / n` releases in a row,
/// at most [`MAX_ROUNDS`], at least one.
pub const HOLD_OPS: usize = 1024;

/// The releases deferred in a row for a round of unknown length (a call,
/// a nested lock, an inner loop): the lock's cost divided by five, and a
/// long round keeps other threads out for five of its own lengths.
pub const OPEN_ROUNDS: i64 = 4;

/// Which instructions of a method take part in coarsening.
#[derive(Debug, Default)]
pub struct Plan {
    /// `monitorexit`s whose release may be deferred.
    pub exits: Vec<bool>,
    /// Of them, the releases each defers in a row at most ([`rounds`]);
    /// 0 elsewhere.
    pub rounds: Vec<i64>,
    /// `monitorenter`s a deferred lock may reach.
    pub reentries: Vec<bool>,
    /// Instructions a deferred lock may reach that are not quiet: it is
    /// released before them.
    pub ways_out: Vec<bool>,
    /// Each coarsenable exit with the re-entries its tail reaches, by
    /// exit (`promote.rs` promotes fields across an exit and the one
    /// re-entry only it reaches).
    pub tails: Vec<(usize, Vec<usize>)>,
}

/// The variables of a coarsening method: the deferred object (0: none)
/// and the rounds kept since the lock was last taken.
#[derive(Clone, Copy, Debug)]
pub struct Vars {
    deferred: Variable,
    kept: Variable,
}

/// A compiled method's coarsening: its plan and variables.
#[derive(Debug)]
pub struct Coarsening {
    /// Where it applies.
    pub plan: Plan,
    vars: Vars,
    /// The fields kept in variables across one of its spans
    /// (`promote.rs`).
    pub promotion: Option<Promotion>,
}

impl Coarsening {
    /// The coarsening of a method with these ops, exception handlers and
    /// switch tables, its variables declared in `b`; `None` when no exit
    /// is coarsenable.
    pub fn new(
        ops: &[Op],
        handlers: &[Handler],
        switches: &[Switch],
        b: &mut cranelift_frontend::FunctionBuilder,
    ) -> Option<Coarsening> {
        let plan = plan(ops)?;
        let vars = Vars {
            deferred: b.declare_var(I64),
            kept: b.declare_var(I64),
        };
        let promotion =
            super::promote::plan(ops, handlers, switches, &plan).map(|p| Promotion::new(p, vars.deferred, b));
        Some(Coarsening {
            plan,
            vars,
            promotion,
        })
    }
}

/// An instruction of a tail: it cannot throw, call, read or write the
/// heap, or take part in locking.
pub(super) fn quiet(op: &Op) -> bool {
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

/// Whether `op` keeps a body's length known from its instruction count:
/// not a call, a lock (which may block), a switch or a backward branch
/// (a loop).
fn bounded(op: &Op) -> bool {
    match op {
        Op::Invoke(..) | Op::MonitorEnter | Op::Switch(_) => false,
        Op::If(_, t) | Op::IfICmp(_, t) | Op::IfACmp(_, t) | Op::IfNull(_, t) | Op::Goto(t) => !t.backward,
        _ => true,
    }
}

/// The releases the exit at `exit` defers in a row, for a tail of `tail`
/// ops and the given re-entries: its round is the longest body (the ops
/// after a re-entry up to the exit) plus the tail (see "The budget" in
/// the module comment).
pub fn rounds(ops: &[Op], exit: usize, tail: usize, reentries: &[usize]) -> i64 {
    let mut body = 0;
    for &r in reentries {
        if r >= exit || !ops[r + 1..exit].iter().all(bounded) {
            return OPEN_ROUNDS;
        }
        body = body.max(exit - r);
    }
    let round = (body + tail).max(1);
    // At most MAX_ROUNDS (64), so the cast is exact.
    (HOLD_OPS / round).clamp(1, MAX_ROUNDS as usize) as i64
}

/// The coarsening plan of a method's ops, or `None` when no exit is
/// coarsenable.
pub fn plan(ops: &[Op]) -> Option<Plan> {
    let n = ops.len();
    let mut plan = Plan {
        exits: vec![false; n],
        rounds: vec![0; n],
        reentries: vec![false; n],
        ways_out: vec![false; n],
        tails: Vec::new(),
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
        let tail = seen.iter().filter(|&&s| s).count();
        plan.rounds[x] = rounds(ops, x, tail, &reentries);
        for &i in &reentries {
            plan.reentries[i] = true;
        }
        for i in ways_out {
            plan.ways_out[i] = true;
        }
        reentries.sort_unstable();
        plan.tails.push((x, reentries));
    }
    any.then_some(plan)
}

impl Translator<'_, '_> {
    /// Declares and initialises the coarsening variables in the entry
    /// block (nothing deferred, no round kept).
    pub(super) fn coarsening_entry(&mut self) {
        let Some(vars) = self.coarsening().map(|c| c.vars) else {
            return;
        };
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(vars.deferred, zero);
        self.b.def_var(vars.kept, zero);
        self.promotion_entry();
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

    /// A throw at the current instruction of the compiled method: at a
    /// re-entry (its object null) a deferred lock is released first.
    pub(super) fn coarsening_throw(&mut self) {
        let idx = self.s.idx;
        let Some(vars) = self
            .coarsening()
            .filter(|c| c.plan.reentries[idx])
            .map(|c| c.vars)
        else {
            return;
        };
        self.release_deferred(vars);
    }

    /// Whether the `monitorexit` at `i` of the compiled method is coarsenable.
    pub(super) fn coarsened_exit_at(&self, i: usize) -> bool {
        self.coarsening().is_some_and(|c| c.plan.exits[i])
    }

    /// Whether the `monitorenter` at `i` of the compiled method is a re-entry.
    pub(super) fn coarsened_enter_at(&self, i: usize) -> bool {
        self.coarsening().is_some_and(|c| c.plan.reentries[i])
    }

    /// The coarsenable `monitorexit` at `i`, of `obj` (not null):
    /// deferred while fewer than its rounds are kept and the lock-stack's
    /// top is the object (for a promoting span's exit, the rounds tell
    /// both), else the ordinary exit, and no round kept. The
    /// exit's runtime call is `SpanExit`, through the register-preserving
    /// stub (`preserve.rs`): it runs once per span of rounds, and a System
    /// V call there would cost the loop's values their registers.
    pub(super) fn coarsened_exit(&mut self, obj: Value, i: usize) {
        let c = self.coarsening().expect("a coarsening method");
        let (vars, rounds) = (c.vars, c.plan.rounds[i]);
        self.facts().forget_memory();
        let kept = self.b.use_var(vars.kept);
        let left = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, kept, rounds);
        let span = self.promotes_exit_at(i);
        let mut o = None;
        let defer = if span {
            // The span's exit is reached from its re-entry only, through
            // a body that takes no part in locking: after a skipped enter
            // the lock is where this exit's last deferral found it, and a
            // real enter leaves the budget spent unless it fast-locked
            // the object ([`Self::span_entered`]). So rounds left means
            // held at the lock-stack's top, and no load asks it again.
            left
        } else {
            let zero = self.b.ins().iconst(I64, 0);
            let (resolved, _) = self.resolve_write(obj, zero);
            o = Some(resolved);
            let held = self.lock_stack_top_is(resolved);
            self.b.ins().band(held, left)
        };
        let (keep, release, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(defer, keep, &[], release, &[]);

        self.b.switch_to_block(keep);
        // A span's deferred variable holds its object already.
        if let Some(o) = o {
            self.b.def_var(vars.deferred, o);
        }
        let more = self.b.ins().iadd_imm_s(kept, 1);
        self.b.def_var(vars.kept, more);
        self.b.ins().jump(join, &[]);

        // The release runs once a span (rounds times rarer than the
        // keep) in the shape coarsening is for: laid out cold (`cold.rs`,
        // `cold_blocks`), so the keep falls through. Where it runs every
        // round (the lock inflated, so never deferred) it pays two taken
        // jumps beside a runtime exit.
        self.b.set_cold_block(release);
        self.b.switch_to_block(release);
        if span {
            // The promoted fields go back to the object before its release.
            self.promotion_flush(false);
        }
        self.monitor_exit_via(obj, true, Helper::SpanExit);
        let none = self.b.ins().iconst(I64, 0);
        self.b.def_var(vars.kept, none);
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
        // One edge into each: sealed, a read of a frame variable in either
        // (the enter's spill) is the value at the branch.
        self.seal(kept);
        self.seal(enter);

        self.b.switch_to_block(kept);
        if !self.promotes_at(idx) {
            let none = self.b.ins().iconst(I64, 0);
            self.b.def_var(vars.deferred, none);
        }
        self.b.ins().jump(join, &[]);

        // A real enter at a re-entry runs once a span where the tail's
        // object is the one entered again (the shape coarsening is
        // for): laid out cold, so the skipped enter falls through. A loop
        // that locks another object each round enters every round, and
        // pays two taken jumps beside the enter's CAS.
        self.b.set_cold_block(enter);
        self.b.switch_to_block(enter);
        self.release_deferred(vars);
        // Neither the release nor the skipped enter defines a frame
        // variable: the pairs the enter's join shares held one value at
        // the branch above, so on the skipped way too.
        let shared = self.monitor_enter_obj(obj, idx);
        if self.promotes_at(idx) {
            // The object as the enter's safepoint left it (still on the
            // operand stack, its top).
            let top = self.s.stack.len() - 1;
            let held = self.stack_slot(top, K::R);
            self.promotion_load(held);
            self.span_entered(vars);
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        // Both edges are in: one parameter for each shared pair (javac's
        // copy of the lock beside its local), not one per variable.
        self.seal(join);
        self.share_values(&shared);
    }

    /// Whether the lock-stack's top entry is `o` (resolved for writing):
    /// the thread holds `o` fast-locked, as its latest lock, so releasing
    /// it could not throw and its region stays pinned while it is kept.
    fn lock_stack_top_is(&mut self, o: Value) -> Value {
        let thread = self.thread_here();
        fastpath_cranelift::lock_stack_top_is(&mut self.b, thread, o, &self.env.lock)
    }

    /// After a real enter at the span's re-entry (`promote.rs`), the
    /// object in the deferred variable: a new span, its budget whole when
    /// the enter fast-locked the object (the lock-stack's top) and spent
    /// otherwise (an inflated monitor), so that the span's exit, which
    /// trusts the budget alone, releases a lock it may not defer.
    fn span_entered(&mut self, vars: Vars) {
        let c = self.coarsening().expect("a coarsening method");
        let exit = c.promotion.as_ref().expect("a promoting method").plan.exit;
        let rounds = c.plan.rounds[exit];
        let o = self.b.use_var(vars.deferred);
        let fast = self.lock_stack_top_is(o);
        let whole = self.b.ins().iconst(I64, 0);
        let spent = self.b.ins().iconst(I64, rounds);
        let kept = self.b.ins().select(fast, whole, spent);
        self.b.def_var(vars.kept, kept);
    }

    /// Releases the deferred lock, if any, and clears it. The release
    /// cannot fail (the thread held it when it was deferred) and is no
    /// safepoint.
    fn release_deferred(&mut self, vars: Vars) {
        let deferred = self.b.use_var(vars.deferred);
        let (release, join) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(deferred, release, &[], join, &[]);
        self.seal(release);
        // Once a span, at its end.
        self.b.set_cold_block(release);
        self.b.switch_to_block(release);
        // Promoted fields, held only while a span's release is deferred
        // here, go back to the object first.
        self.promotion_flush(false);
        self.monitor_exit_via(deferred, false, Helper::SpanExit);
        let none = self.b.ins().iconst(I64, 0);
        self.b.def_var(vars.deferred, none);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        // Both edges are in: a read of a frame variable below (the enter's
        // spill) is the one value both bring, not a parameter per variable.
        self.seal(join);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::insn::Cond;
    use crate::jit::ops::{Const, Target};

    fn to(index: u32, backward: bool) -> Target {
        Target { index, backward }
    }

    /// `for (i = 0; i < n; i++) synchronized (o) { body }` as javac lays it
    /// out (o in local 0, n in 1, i in 2, the lock's copy in 3), the body
    /// `body` ops of local arithmetic unless given.
    fn counted_loop(body: &[Op]) -> Vec<Op> {
        let mut ops = vec![
            Op::Const(Const::I(0)),
            Op::Store(K::I, 2),
            Op::Load(K::I, 2), // 2: the loop's test
            Op::Load(K::I, 1),
            Op::IfICmp(Cond::Ge, to(0, false)), // patched below: the loop's exit
            Op::Load(K::R, 0),
            Op::Dup,
            Op::Store(K::R, 3),
            Op::MonitorEnter, // 8
        ];
        ops.extend_from_slice(body);
        ops.extend([
            Op::Load(K::R, 3),
            Op::MonitorExit,
            Op::Iinc(2, 1),
            Op::Goto(to(2, true)),
            Op::Return(None),
        ]);
        let end = ops.len() as u32 - 1;
        ops[4] = Op::IfICmp(Cond::Ge, to(end, false));
        ops
    }

    fn exit_of(ops: &[Op]) -> usize {
        ops.iter().position(|op| matches!(op, Op::MonitorExit)).unwrap()
    }

    #[test]
    fn a_short_round_keeps_the_lock_for_the_most_rounds() {
        let body = [Op::Load(K::I, 2), Op::Pop];
        let ops = counted_loop(&body);
        let p = plan(&ops).expect("coarsenable");
        let x = exit_of(&ops);
        assert!(p.exits[x] && p.reentries[8]);
        // A round of ~12 ops: 1024 / 12 > 64.
        assert_eq!(p.rounds[x], MAX_ROUNDS);
        // The return after the loop is its way out.
        assert!(p.ways_out[ops.len() - 1]);
    }

    #[test]
    fn a_longer_round_keeps_it_for_fewer() {
        let body: Vec<Op> = (0..100).flat_map(|_| [Op::Load(K::I, 2), Op::Pop]).collect();
        let ops = counted_loop(&body);
        let p = plan(&ops).expect("coarsenable");
        let x = exit_of(&ops);
        // The body from the enter to the exit (202 ops) and the tail from
        // the exit to the enter (iinc, goto, the test, the lock's load
        // and copy: 9 ops counted with the enter and the way out).
        let round = (x - 8) + 9;
        assert_eq!(p.rounds[x], (HOLD_OPS / round) as i64);
        assert!(p.rounds[x] > 1 && p.rounds[x] < MAX_ROUNDS);

        let body: Vec<Op> = (0..1000).map(|_| Op::Nop).collect();
        let ops = counted_loop(&body);
        let x = exit_of(&ops);
        assert_eq!(plan(&ops).unwrap().rounds[x], 1);
    }

    #[test]
    fn a_round_of_unknown_length_keeps_it_for_open_rounds() {
        // An inner loop in the body.
        let body = [Op::Iinc(2, 0), Op::Load(K::I, 2), Op::If(Cond::Lt, to(9, true))];
        let ops = counted_loop(&body);
        assert_eq!(plan(&ops).unwrap().rounds[exit_of(&ops)], OPEN_ROUNDS);
        // A nested lock in the body.
        let body = [
            Op::Load(K::R, 0),
            Op::MonitorEnter,
            Op::Load(K::R, 0),
            Op::MonitorExit,
        ];
        let ops = counted_loop(&body);
        let x = ops.iter().rposition(|op| matches!(op, Op::MonitorExit)).unwrap();
        let p = plan(&ops).unwrap();
        assert!(p.exits[x]);
        assert_eq!(p.rounds[x], OPEN_ROUNDS);
        // A switch.
        let ops = counted_loop(&[Op::Load(K::I, 2), Op::Switch(0)]);
        assert_eq!(plan(&ops).unwrap().rounds[exit_of(&ops)], OPEN_ROUNDS);
        // A re-entry after its exit.
        assert_eq!(rounds(&ops, 5, 4, &[9]), OPEN_ROUNDS);
    }

    #[test]
    fn an_exit_whose_tail_leaves_the_loop_is_not_coarsened() {
        let mut ops = counted_loop(&[Op::Nop]);
        let x = exit_of(&ops);
        // A field store right after the exit: the tail ends there.
        ops.insert(
            x + 1,
            Op::PutField {
                off: 0,
                kind: crate::link::Kind::Int,
                volatile: false,
            },
        );
        assert!(plan(&ops).is_none());
    }
}

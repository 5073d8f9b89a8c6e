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
//!   after the `monitorexit` through *quiet* and *plain* instructions
//!   only. A quiet instruction cannot throw, call, touch the heap or
//!   another monitor: locals, constants, stack shuffles, arithmetic that
//!   cannot throw, compares and branches (a back edge's safepoint poll
//!   included). A plain one (`plain`) is an ordinary access of the heap
//!   that may throw: a non-volatile field read or write, an array
//!   element's load, a primitive element's store, an array's length, an
//!   integer division, and a call of an accessor (a statically bound
//!   method whose body is `aload_0; getfield; return` of a non-volatile
//!   field: `Integer.intValue()`, a record's component). The tail ends at
//!   a `monitorenter` (a re-entry) or at the first instruction that is
//!   neither (a *way out*). An exit is **coarsenable** when its tail
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
//! - An exception thrown in a tail (a plain instruction's, or a
//!   re-entry's `NullPointerException` when its object is null) releases
//!   a deferred lock before it is dispatched: the handler, or the caller
//!   the exception unwinds to, is outside the synchronized block and sees
//!   the lock free, as the program released it ([`Plan::release_on_throw`]).
//!   A throw the instruction makes releases before the exception is made
//!   (`throw_with`); an accessor's call releases in its exception
//!   dispatch block (`translate.rs`'s `dispatch_block`), which an
//!   exception pending after the call and one its inlined body unwinds
//!   both reach.
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
//! own locals and ordinary (non-volatile) fields and array elements, the
//! accesses the rule lets move. What the rule does not cover stays out of
//! a tail: a call (it may block, or take another lock, whose order with
//! the kept one the program chose), a volatile access, an allocation (a
//! stop for the collector of unknown length), a static field (its class's
//! initialiser is Java code), a reference array store (its type check is
//! a call). Coarsening merges only the regions of one object that a
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
use super::ops::{Dispatch, Op, Target, K};
use super::promote::Promotion;
use super::translate::Translator;
use crate::interp::insn::{Arith, Handler, Switch};
use crate::link::{Kind, Method};

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
    /// Instructions of a tail whose exception releases a deferred lock
    /// before it is dispatched: the re-entries and the plain instructions.
    pub release_on_throw: Vec<bool>,
    /// Each coarsenable exit's tail, by exit (`promote.rs` promotes fields
    /// across an exit and the one re-entry only its quiet tail reaches).
    pub tails: Vec<Tail>,
}

/// The tail of a coarsenable exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// The `monitorexit`.
    pub exit: usize,
    /// The re-entries it reaches, in order.
    pub reentries: Vec<usize>,
    /// Its plain instructions, in order (none: every instruction of it is
    /// quiet).
    pub plain: Vec<usize>,
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
        let mut plan = plan(ops)?;
        let vars = Vars {
            deferred: b.declare_var(I64),
            kept: b.declare_var(I64),
        };
        let promoted = super::promote::plan(ops, handlers, switches, &plan);
        if let Some(p) = &promoted {
            leave_before_promoted(&mut plan, ops, &p.fields);
        }
        let promotion = promoted.map(|p| Promotion::new(p, vars.deferred, b));
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

/// An instruction a tail may hold that is not quiet: an ordinary access
/// of the heap the memory model lets move into a critical section, which
/// may throw (see "The shape" in the module comment). Nothing plain
/// calls Java code that may block or lock, stops for long, or is a
/// synchronization action.
pub(super) fn plain(op: &Op) -> bool {
    match *op {
        Op::GetField { volatile, .. } | Op::PutField { volatile, .. } => !volatile,
        Op::ALoad(_) | Op::ArrayLength | Op::Arith(..) => true,
        Op::AStore(kind) => kind != Kind::Ref,
        Op::Invoke(dispatch, m) => accessor_field(dispatch, m).is_some(),
        _ => false,
    }
}

/// The `getfield` of `m`, called with `dispatch`, when it is an accessor:
/// statically bound, not synchronized, its body `aload_0; getfield;
/// return` of a non-volatile field. Inlined, it is the field's read;
/// called, its one exception (a `StackOverflowError` at its entry) comes
/// back to the caller's dispatch; a null receiver throws at the call.
fn accessor_field(dispatch: Dispatch, m: &'static Method) -> Option<Op> {
    if m.is_static() || !super::translate::statically_bound(dispatch, m) {
        return None;
    }
    let (_, ops) = super::inlining::body(m)?;
    match ops.as_slice() {
        [Op::Load(K::R, 0), get @ Op::GetField { volatile: false, .. }, Op::Return(Some(_))] => Some(*get),
        _ => None,
    }
}

/// The primitive field a plain instruction reads or writes, by data
/// offset: its own, or its accessor's.
fn primitive_field(op: &Op) -> Option<u32> {
    let field = match *op {
        Op::Invoke(dispatch, m) => accessor_field(dispatch, m)?,
        op => op,
    };
    match field {
        Op::GetField { off, kind, .. } | Op::PutField { off, kind, .. } if kind != Kind::Ref => Some(off),
        _ => None,
    }
}

/// Makes each plain instruction of a tail that may access a promoted
/// field (`promote.rs`: one at its offset, through any reference) a way
/// out: the fields' values are in variables along the tail and memory may
/// be older, so the deferred lock is released, which stores them, before
/// the access. (`return c.value` after a coarsened loop on `c` reads the
/// field in the loop's exit path, where the lock is still deferred.)
pub fn leave_before_promoted(plan: &mut Plan, ops: &[Op], fields: &[super::promote::Field]) {
    for tail in &plan.tails {
        for &i in &tail.plain {
            if primitive_field(&ops[i]).is_some_and(|off| fields.iter().any(|f| f.off == off)) {
                plan.ways_out[i] = true;
            }
        }
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
        release_on_throw: vec![false; n],
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
        let (mut reentries, mut ways_out, mut plains) = (Vec::new(), Vec::new(), Vec::new());
        let mut work = vec![x + 1];
        while let Some(i) = work.pop() {
            if i >= n || seen[i] {
                continue;
            }
            seen[i] = true;
            match &ops[i] {
                Op::MonitorEnter => reentries.push(i),
                op if quiet(op) || plain(op) => {
                    if !quiet(op) {
                        plains.push(i);
                    }
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
            plan.release_on_throw[i] = true;
        }
        for &i in &plains {
            plan.release_on_throw[i] = true;
        }
        for i in ways_out {
            plan.ways_out[i] = true;
        }
        reentries.sort_unstable();
        plains.sort_unstable();
        plan.tails.push(Tail {
            exit: x,
            reentries,
            plain: plains,
        });
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

    /// A throw at the current instruction of the compiled method
    /// (`throw_with`): in a tail, a deferred lock is released first, before
    /// the exception is made (so the lock's variable is not live across
    /// the call that makes it).
    pub(super) fn coarsening_throw(&mut self) {
        let idx = self.s.idx;
        let Some(vars) = self
            .coarsening()
            .filter(|c| c.plan.release_on_throw[idx])
            .map(|c| c.vars)
        else {
            return;
        };
        self.release_deferred(vars);
    }

    /// Whether the exception dispatch of instruction `idx` of the
    /// compiled method releases a deferred lock (`dispatch_block`): an
    /// accessor's call in a tail, whose exception comes back pending from
    /// the call, or from its inlined body, not from a throw made here.
    pub(super) fn releases_in_dispatch(&self, idx: usize) -> bool {
        self.coarsening()
            .is_some_and(|c| c.plan.release_on_throw[idx] && matches!(self.s.ops[idx], Op::Invoke(..)))
    }

    /// In the exception dispatch of an accessor's call in a tail: a
    /// deferred lock is released before the handlers are tried.
    pub(super) fn coarsening_dispatch(&mut self) {
        if let Some(vars) = self.coarsening().map(|c| c.vars) {
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
        // Neither way stops or defines a frame variable (the release is no
        // safepoint, a throw leaves): what holds at the branch holds on
        // both and at the join.
        let before = self.facts().clone();
        self.set_facts(keep, before.clone());
        self.set_facts(release, before.clone());

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
        self.set_facts(join, before);
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
        // (the enter's spill) is the value at the branch, and what held
        // there holds on entry to both.
        self.seal(kept);
        self.seal(enter);
        let before = self.facts().clone();
        self.set_facts(kept, before.clone());
        self.set_facts(enter, before.clone());

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
        let entered = self.here();
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        // Both edges are in: one parameter for each shared pair (javac's
        // copy of the lock beside its local), not one per variable. What
        // held at the branch and still holds after the real enter holds
        // here: the object not null, an array's length. The frame
        // variables' facts are the real enter's (`stop_join`): its stop
        // marked each variable whose value the branch knew (its spill, in
        // a block that defines no frame variable before it), and the kept
        // way holds the same values, so they hold on both; the lock's
        // local, checked as the enter's object, is one the branch's own
        // facts do not name.
        self.seal(join);
        let mut f = before;
        let e = self.facts_of(entered).clone();
        f.meet(&e);
        f.adopt_frame_var_facts(&e);
        self.set_facts(join, f);
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
        // The release neither stops nor defines a frame variable: what
        // holds at the branch, its memory facts forgotten (the exit is a
        // synchronization action, the promoted fields' stores write the
        // heap), holds on both ways and at the join.
        let mut before = self.facts().clone();
        before.forget_memory();
        self.set_facts(release, before.clone());
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
        self.set_facts(join, before);
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
        // Right after the exit, a volatile field's read or store, a
        // reference array's store, a throw: each ends the tail there.
        for out in [
            Op::GetField {
                off: 0,
                kind: Kind::Int,
                volatile: true,
            },
            Op::PutField {
                off: 0,
                kind: Kind::Int,
                volatile: true,
            },
            Op::AStore(Kind::Ref),
            Op::AThrow,
        ] {
            let mut ops = counted_loop(&[Op::Nop]);
            let x = exit_of(&ops);
            ops.insert(x + 1, out);
            let p = plan(&ops);
            assert!(p.is_none(), "{out:?} in the tail: {p:?}");
        }
    }

    #[test]
    fn plain_accesses_stay_in_the_tail_and_release_on_a_throw() {
        let mut ops = counted_loop(&[Op::Nop]);
        let x = exit_of(&ops);
        // `s.count++; sum += a[i] / d` after the block (locals 4, 5, 6, 7).
        let tail = [
            Op::Load(K::R, 4),
            Op::Dup,
            Op::GetField {
                off: 8,
                kind: Kind::Long,
                volatile: false,
            },
            Op::Const(Const::J(1)),
            Op::Arith(K::J, Arith::Add),
            Op::PutField {
                off: 8,
                kind: Kind::Long,
                volatile: false,
            },
            Op::Load(K::R, 5),
            Op::Load(K::I, 2),
            Op::ALoad(Kind::Int),
            Op::Load(K::I, 6),
            Op::Arith(K::I, Arith::Div),
            Op::Load(K::I, 7),
            Op::Arith(K::I, Arith::Add),
            Op::Store(K::I, 7),
        ];
        for (k, op) in tail.iter().enumerate() {
            ops.insert(x + 1 + k, *op);
        }
        // The loop's exit branch and its return moved by the tail.
        let end = ops.len() as u32 - 1;
        ops[4] = Op::IfICmp(Cond::Ge, to(end, false));
        let p = plan(&ops).expect("coarsenable");
        assert!(p.exits[x] && p.reentries[8]);
        assert_eq!(p.tails.len(), 1);
        assert_eq!(p.tails[0].plain, vec![x + 3, x + 6, x + 9, x + 11]);
        // Plain: the field's read and write, the element's load, the
        // division; the re-entry releases on its null object's throw.
        let throwing: Vec<usize> = (0..ops.len()).filter(|&i| p.release_on_throw[i]).collect();
        assert_eq!(throwing, vec![8, x + 3, x + 6, x + 9, x + 11]);
        assert!(!p.release_on_throw[x] && !p.ways_out[x + 3]);
        // The return after the loop is still the way out, and the tail
        // of the plain shape is quiet.
        assert!(p.ways_out[ops.len() - 1]);
        assert!(plan(&counted_loop(&[Op::Nop])).unwrap().tails[0].plain.is_empty());
    }

    #[test]
    fn a_promoted_fields_access_in_the_tail_is_a_way_out() {
        // `for (...) synchronized (o) { ... }; return s.count + o.value`
        // with `value` (offset 8) promoted: the tail's read of offset 8,
        // through whatever reference, releases first; offset 16 stays in.
        let get = |off| Op::GetField {
            off,
            kind: Kind::Long,
            volatile: false,
        };
        let mut ops = counted_loop(&[Op::Nop]);
        let ret = ops.len() - 1;
        ops.splice(
            ret..ret,
            [Op::Load(K::R, 4), get(16), Op::Load(K::R, 4), get(8), Op::Pop2],
        );
        ops[ret + 5] = Op::Return(Some(K::J));
        let mut p = plan(&ops).expect("coarsenable");
        assert_eq!(p.tails[0].plain, vec![ret + 1, ret + 3]);
        let value = super::super::promote::Field {
            off: 8,
            kind: Kind::Long,
            written: true,
        };
        leave_before_promoted(&mut p, &ops, &[value]);
        assert!(!p.ways_out[ret + 1] && p.ways_out[ret + 3] && p.ways_out[ret + 5]);
    }
}

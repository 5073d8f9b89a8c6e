//! Scalar promotion of fields across a coarsened lock: the primitive
//! fields of the locked object that a coarsened synchronized block reads
//! and writes live in SSA variables while the lock is held, loaded once
//! after the lock is taken and stored back before it is released.
//!
//! Where it sits: `coarsen.rs` makes a method's [`Promotion`] from its
//! coarsening plan ([`plan`]) and calls the emitters below at its enter,
//! exit and deferred release; `translate.rs` asks `Translator::promoted_get`
//! and `Translator::promoted_put` at each `getfield` and `putfield`, and
//! flushes at a throw inside the span and at a stop (`throw_with`,
//! `poll_to`). The field accesses themselves are `emit.rs`'s.
//!
//! # The span
//!
//! A *span* is the method's one coarsenable `monitorexit` `x` when its
//! tail reaches one re-entry `r` (`coarsen.rs`); its *body* is the
//! instructions from `r` to `x`. Control enters the body at
//! `r` only (no branch from outside and no handler lands in it) and leaves
//! it at `x` or by an exception; every branch in it goes forward, inside
//! it. The body's instructions are quiet (`coarsen.rs`), field and array
//! accesses (no reference array store: its type check is a call) and
//! arithmetic: none calls Java code, stops for the collector, takes part
//! in locking or accesses a volatile field. The body's operand stack and
//! locals are followed from `r`, where the locked object is the value
//! javac's `aload l; dup; astore t; monitorenter` left in `l` and `t`:
//! a `getfield` or `putfield` on a value known to be that object accesses
//! the locked object's field; one on any other value may be the same
//! object (two references may be one object), so a field so accessed is
//! not promoted. The promoted fields are the primitive fields of the
//! locked object the body accesses, each only through the locked object.
//!
//! # Where the fields live
//!
//! The coarsening's deferred-lock variable (`obj` here) holds the object
//! whose promoted fields the variables hold while memory may be older
//! (0: none): as in any coarsened method it is the deferred lock along
//! the span's tail, and in this span it stays set in the body as well
//! (the re-entry keeps it when it skips the enter, and sets it after a
//! real one), so that the span costs one loop-carried value per field and
//! no more. Every deferred lock is the span's (its exit is the method's
//! only coarsenable one), so wherever the coarsening releases a deferred
//! lock it stores the fields first.
//!
//! - At `r`, when the deferred lock is `r`'s object, the enter is skipped
//!   and the variables keep the values of the previous round (the
//!   deferred lock came from `x`, the only coarsenable exit).
//!   Otherwise, once the lock is taken, the fields are loaded and `obj`
//!   is the object.
//! - In the body, a promoted `getfield` reads its variable and a
//!   `putfield` writes it: no memory access, and no null check (the
//!   object is the locked one).
//! - The written fields are stored back, through the barrier set's
//!   ordinary path for a primitive store (`Translator::write_data`: the
//!   object resolved for writing, its data address computed from its
//!   layout word), and `obj` cleared: at `x` before a release that is
//!   not deferred; before a deferred release (a way out of the tail, or
//!   another object entered at `r`); and before an exception is made in
//!   the body (its handler may read the field). Before a stop in the
//!   tail (the back edge's poll) they are stored and kept: the thread
//!   still holds the lock after it. A plain access in the tail
//!   (`coarsen.rs`) at a promoted field's offset, through any reference
//!   (`return o.value` after the loop), is made a way out
//!   (`coarsen::leave_before_promoted`): the lock is released and the
//!   fields stored before it.
//!
//! # Why it is allowed
//!
//! A thread reads a field under the same lock only after acquiring it,
//! which happens after the owner's release, and every release stores the
//! fields first: such a reader sees every write (the memory model's
//! happens-before through the monitor). A thread reading the field
//! without the lock races with the owner's writes; the memory model lets
//! it see any write not ordered after its read, and the values it can
//! see here are the ones the owner stored at some earlier release or
//! stop, writes the program made in program order (a slower owner would
//! show it the same): no value out of thin air. Coarsening already moved
//! the tail inside the lock ("roach motel"); keeping a field in a
//! register within a critical section is what the model allows any
//! compiler for plain accesses with no synchronization action between
//! them, which the body and tail have none of (no volatile access, no
//! monitor, no call but an accessor's, which reads a field). HotSpot's C2 does the same to such a loop: its
//! `PhaseIdealLoop::try_move_store_after_loop` (`opto/loopopts.cpp`)
//! sinks a store whose address the loop does not change out of the loop,
//! and the load becomes the loop's phi; LLVM's LICM promotes such a
//! location the same way ("Scalar Promotion of Memory", `LICM.cpp`).
//!
//! The object stays where `obj` says while the lock is held: a fast-locked
//! object's region is neither evacuated nor freed while it is locked
//! (`fastpath::gc`'s `collector/cycle.rs`, "Locked objects"), which the
//! deferred lock's address already relies on (`coarsen.rs`); `obj` is
//! set only after the lock is taken, from the reference as the enter's
//! safepoint left it, and every store resolves it for writing again. The
//! collector never reads a primitive field, so the poll's stop needs the
//! store only for what else may look at the heap there. Only lightweight
//! locking coarsens, so only it promotes; the promoted fields are
//! primitive, so no reference barrier (SATB, card marks, load-reference)
//! applies to them.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::types::{F32, F64, I32, I64};
use cranelift_codegen::ir::{InstBuilder, Type, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::coarsen;
use super::ops::{Op, K};
use super::translate::Translator;
use crate::interp::insn::{Arith, Handler, Switch};
use crate::link::Kind;

/// A promoted field of the locked object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its data byte offset.
    pub off: u32,
    /// Its kind (primitive).
    pub kind: Kind,
    /// Whether the body writes it (only a written field is stored back).
    pub written: bool,
}

/// The span a method promotes fields across (see the module comment).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The re-entry `monitorenter`.
    pub reentry: usize,
    /// The coarsenable `monitorexit`.
    pub exit: usize,
    /// The promoted fields.
    pub fields: Vec<Field>,
    /// The body's `getfield`s and `putfield`s of a promoted field, each
    /// with its index in `fields`.
    pub accesses: HashMap<usize, usize>,
}

impl Plan {
    /// Whether instruction `i` is in the body after the re-entry (up to
    /// and with the exit): the fields are in their variables there.
    pub fn in_body(&self, i: usize) -> bool {
        self.reentry < i && i <= self.exit
    }
}

/// A compiled method's promotion: its plan and variables.
#[derive(Debug)]
pub struct Promotion {
    /// Where it applies.
    pub plan: Plan,
    /// The object whose fields the variables hold (0: none): the
    /// coarsening's deferred lock.
    obj: Variable,
    /// One per field of the plan.
    values: Vec<Variable>,
}

impl Promotion {
    /// The promotion of `plan`, its values' variables declared in `b`;
    /// `obj` is the coarsening's deferred lock (see the module comment).
    pub fn new(plan: Plan, obj: Variable, b: &mut FunctionBuilder) -> Promotion {
        let values = plan.fields.iter().map(|f| b.declare_var(ty_of(f.kind))).collect();
        Promotion { plan, obj, values }
    }
}

/// The type a field's value has in compiled code (small integers widened
/// to `int`, as `getfield` pushes them).
fn ty_of(kind: Kind) -> Type {
    match kind {
        Kind::Long | Kind::Ref => I64,
        Kind::Float => F32,
        Kind::Double => F64,
        _ => I32,
    }
}

/// The span of `ops` whose fields are promoted, with the coarsening plan
/// `coarse`, or `None` (see the module comment): a method whose one
/// coarsenable exit reaches one re-entry, so that every deferred lock is
/// the span's.
pub fn plan(ops: &[Op], handlers: &[Handler], switches: &[Switch], coarse: &coarsen::Plan) -> Option<Plan> {
    let n = ops.len();
    // Every instruction a branch or switch lands on, with where from.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (j, op) in ops.iter().enumerate() {
        for t in op.branch_targets(switches) {
            if t < n {
                preds[t].push(j);
            }
        }
    }
    let [coarsen::Tail {
        exit: x, reentries, ..
    }] = coarse.tails.as_slice()
    else {
        return None;
    };
    let &[r] = reentries.as_slice() else {
        return None;
    };
    if r >= *x {
        return None;
    }
    span(ops, handlers, switches, &preds, r, *x)
}

/// Whether `op` may be in a span's body (see the module comment): what a
/// tail may hold (`coarsen.rs`), but a call or a switch.
fn allowed(op: &Op) -> bool {
    !matches!(op, Op::Invoke(..) | Op::Switch(_)) && (coarsen::quiet(op) || coarsen::plain(op))
}

/// What the body's values are known to be: the locked object or not, per
/// local and per operand-stack slot (a long or double takes two).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tags {
    locals: HashSet<u16>,
    stack: Vec<bool>,
}

impl Tags {
    fn pop(&mut self, slots: usize) -> Option<Vec<bool>> {
        let at = self.stack.len().checked_sub(slots)?;
        Some(self.stack.split_off(at))
    }

    fn push_other(&mut self, slots: usize) {
        self.stack.extend(std::iter::repeat_n(false, slots));
    }

    /// The tags every edge into a join carries.
    fn meet(&mut self, other: &Tags) -> Option<()> {
        if self.stack.len() != other.stack.len() {
            return None;
        }
        self.locals.retain(|l| other.locals.contains(l));
        for (a, b) in self.stack.iter_mut().zip(&other.stack) {
            *a &= *b;
        }
        Some(())
    }
}

/// Applies `op` (allowed in a body) to `t`, noting its field accesses in
/// `seen` (by the locked object: (index, field, write)) and `other` (data
/// offsets accessed through any other value). `None`: the body does
/// something the walk does not follow (an operand it did not see pushed).
fn step(
    op: &Op,
    i: usize,
    t: &mut Tags,
    seen: &mut Vec<(usize, u32, Kind, bool)>,
    other: &mut HashSet<u32>,
) -> Option<()> {
    match *op {
        Op::Nop | Op::Goto(_) => {}
        Op::Const(c) => {
            use super::ops::Const;
            t.push_other(if matches!(c, Const::J(_) | Const::D(_)) {
                2
            } else {
                1
            });
        }
        Op::Load(k, n) => {
            let obj = k == K::R && t.locals.contains(&n);
            t.stack.extend(std::iter::repeat_n(obj, k.slots()));
        }
        Op::Store(k, n) => {
            let v = t.pop(k.slots())?;
            for s in 0..k.slots() as u16 {
                t.locals.remove(&(n + s));
            }
            if k == K::R && v[0] {
                t.locals.insert(n);
            }
        }
        Op::Iinc(n, _) => {
            t.locals.remove(&n);
        }
        Op::ALoad(kind) => {
            t.pop(2)?;
            t.push_other(K::of(kind).slots());
        }
        Op::AStore(kind) => {
            t.pop(2 + K::of(kind).slots())?;
        }
        Op::Pop => {
            t.pop(1)?;
        }
        Op::Pop2 => {
            t.pop(2)?;
        }
        Op::Dup | Op::DupX1 | Op::DupX2 | Op::Dup2 | Op::Dup2X1 | Op::Dup2X2 | Op::Swap => {
            // The JVM's slot shuffles (JVMS 6.5): (slots taken, their
            // order after, top last).
            let (take, order): (usize, &[usize]) = match *op {
                Op::Dup => (1, &[0, 0]),
                Op::DupX1 => (2, &[1, 0, 1]),
                Op::DupX2 => (3, &[2, 0, 1, 2]),
                Op::Dup2 => (2, &[0, 1, 0, 1]),
                Op::Dup2X1 => (3, &[1, 2, 0, 1, 2]),
                Op::Dup2X2 => (4, &[2, 3, 0, 1, 2, 3]),
                _ => (2, &[1, 0]),
            };
            let v = t.pop(take)?;
            t.stack.extend(order.iter().map(|&k| v[k]));
        }
        Op::Arith(k, a) => {
            let count = if matches!(a, Arith::Shl | Arith::Shr | Arith::Ushr) {
                1
            } else {
                k.slots()
            };
            t.pop(k.slots() + count)?;
            t.push_other(k.slots());
        }
        Op::Neg(k) => {
            t.pop(k.slots())?;
            t.push_other(k.slots());
        }
        Op::Conv(c) => {
            t.pop(super::kinds::conv_operand(c).slots())?;
            t.push_other(super::kinds::conv_result(c).slots());
        }
        Op::LCmp | Op::DCmp(_) => {
            t.pop(4)?;
            t.push_other(1);
        }
        Op::FCmp(_) => {
            t.pop(2)?;
            t.push_other(1);
        }
        Op::If(..) | Op::IfNull(..) => {
            t.pop(1)?;
        }
        Op::IfICmp(..) | Op::IfACmp(..) => {
            t.pop(2)?;
        }
        Op::ArrayLength => {
            t.pop(1)?;
            t.push_other(1);
        }
        Op::GetField { off, kind, .. } => {
            let o = t.pop(1)?[0];
            note(i, off, kind, false, o, seen, other);
            t.push_other(K::of(kind).slots());
        }
        Op::PutField { off, kind, .. } => {
            t.pop(K::of(kind).slots())?;
            let o = t.pop(1)?[0];
            note(i, off, kind, true, o, seen, other);
        }
        _ => return None,
    }
    Some(())
}

/// Notes a primitive field access (reference fields are never promoted).
fn note(
    i: usize,
    off: u32,
    kind: Kind,
    write: bool,
    locked: bool,
    seen: &mut Vec<(usize, u32, Kind, bool)>,
    other: &mut HashSet<u32>,
) {
    if kind == Kind::Ref {
        return;
    }
    if locked {
        seen.push((i, off, kind, write));
    } else {
        other.insert(off);
    }
}

/// The plan of the span from re-entry `r` to exit `x`, when it is one
/// whose fields may be promoted.
fn span(
    ops: &[Op],
    handlers: &[Handler],
    switches: &[Switch],
    preds: &[Vec<usize>],
    r: usize,
    x: usize,
) -> Option<Plan> {
    let body = r + 1..=x;
    // Entered at `r` only.
    let entered_inside = body.clone().any(|k| preds[k].iter().any(|j| !body.contains(j)));
    let handler_inside = handlers.iter().any(|h| body.contains(&(h.handler as usize)));
    if entered_inside || handler_inside {
        return None;
    }
    // The locked object's locals at `r`: javac's `aload l; dup; astore t`
    // (or `aload l`) just before it, none of it a branch target.
    let mut locals = HashSet::new();
    match ops.get(r.checked_sub(3)?..r)? {
        [Op::Load(K::R, l), Op::Dup, Op::Store(K::R, t)] if (r - 2..=r).all(|k| preds[k].is_empty()) => {
            locals.extend([*l, *t]);
        }
        [.., Op::Load(K::R, l)] if preds[r].is_empty() => {
            locals.insert(*l);
        }
        _ => return None,
    }
    let mut tags = Some(Tags {
        locals,
        stack: Vec::new(),
    });
    // The tags on forward edges into later instructions of the body.
    let mut pending: HashMap<usize, Tags> = HashMap::new();
    let (mut seen, mut other) = (Vec::new(), HashSet::new());
    for (i, op) in ops.iter().enumerate().take(x).skip(r + 1) {
        if !allowed(op) {
            return None;
        }
        if let Some(p) = pending.remove(&i) {
            match &mut tags {
                Some(t) => t.meet(&p)?,
                None => tags = Some(p),
            }
        }
        // Unreachable by fall-through and by any branch: skipped.
        let Some(t) = tags.as_mut() else {
            continue;
        };
        step(op, i, t, &mut seen, &mut other)?;
        for to in op.branch_targets(switches) {
            if to <= i || to > x {
                return None;
            }
            match pending.get_mut(&to) {
                Some(p) => p.meet(t)?,
                None => {
                    pending.insert(to, t.clone());
                }
            }
        }
        if matches!(op, Op::Goto(_)) {
            tags = None;
        }
    }
    let mut t = tags?;
    if let Some(p) = pending.remove(&x) {
        t.meet(&p)?;
    }
    // The exit releases the locked object.
    if t.stack.last() != Some(&true) {
        return None;
    }
    let mut fields: Vec<Field> = Vec::new();
    for &(_, off, kind, write) in &seen {
        if other.contains(&off) {
            continue;
        }
        match fields.iter_mut().find(|f| f.off == off) {
            Some(f) if f.kind == kind => f.written |= write,
            // One offset, two kinds: not one field of one class.
            Some(_) => return None,
            None => fields.push(Field {
                off,
                kind,
                written: write,
            }),
        }
    }
    if fields.is_empty() {
        return None;
    }
    let accesses = seen
        .iter()
        .filter_map(|&(i, off, _, _)| Some((i, fields.iter().position(|f| f.off == off)?)))
        .collect();
    Some(Plan {
        reentry: r,
        exit: x,
        fields,
        accesses,
    })
}

impl Translator<'_, '_> {
    /// The compiled method's promotion, while its own instructions are
    /// translated.
    fn promotion(&self) -> Option<&Promotion> {
        self.coarsening().and_then(|c| c.promotion.as_ref())
    }

    /// The class that declares promoted field `k`: what its accesses
    /// resolved to (its alias region's, `emit.rs`'s `HeapRegion`).
    fn promoted_holder(&self, k: usize) -> &'static crate::link::Class {
        let p = self.promotion().expect("a promoting method");
        p.plan
            .accesses
            .iter()
            .filter(|&(_, &field)| field == k)
            .find_map(|(&at, _)| self.field_at(at))
            .map(|(holder, _)| holder)
            .expect("a promoted field's getfield or putfield, decoded, is resolved")
    }

    /// Whether the method promotes fields across the re-entry at `i`.
    pub(super) fn promotes_at(&self, i: usize) -> bool {
        self.promotion().is_some_and(|p| p.plan.reentry == i)
    }

    /// Whether the `monitorexit` at `i` is the span's: its operand is the
    /// locked object, which its enter checked for null.
    pub(super) fn promotes_exit_at(&self, i: usize) -> bool {
        self.promotion().is_some_and(|p| p.plan.exit == i)
    }

    /// In the entry block, after the coarsening's (no lock deferred, so
    /// no object's fields held): the values' variables defined.
    pub(super) fn promotion_entry(&mut self) {
        let Some((values, kinds)) = self.promotion().map(|p| {
            let kinds: Vec<Kind> = p.plan.fields.iter().map(|f| f.kind).collect();
            (p.values.clone(), kinds)
        }) else {
            return;
        };
        for (v, k) in values.into_iter().zip(kinds) {
            let z = self.zero(ty_of(k));
            self.b.def_var(v, z);
        }
    }

    /// After the span's lock is taken on `obj` (the reference as the
    /// enter's safepoint left it): its fields loaded into their
    /// variables, `obj` the object they belong to.
    pub(super) fn promotion_load(&mut self, obj: Value) {
        let p = self.promotion().expect("a promoting method");
        let (var, values, fields) = (p.obj, p.values.clone(), p.plan.fields.clone());
        let zero = self.b.ins().iconst(I64, 0);
        let (o, _) = self.resolve_write(obj, zero);
        for (k, (v, f)) in values.into_iter().zip(fields).enumerate() {
            let holder = self.promoted_holder(k);
            let x = self.read_data(o, super::emit::DataField::new(holder, f.off, f.kind), false, None);
            self.b.def_var(v, x);
        }
        self.b.def_var(var, o);
    }

    /// Where the fields may be held (a release, a throw in the body, a
    /// stop): when `obj` is set, the written fields stored into it; `obj`
    /// cleared unless `keep` (a stop: the lock is still held after it).
    pub(super) fn promotion_flush(&mut self, keep: bool) {
        let Some(p) = self.promotion() else {
            return;
        };
        let (var, values, fields) = (p.obj, p.values.clone(), p.plan.fields.clone());
        let obj = self.b.use_var(var);
        let (store, join) = (self.b.create_block(), self.b.create_block());
        let t = self.null_test(obj);
        self.b.ins().brif(t, store, &[], join, &[]);
        self.seal(store);
        self.b.switch_to_block(store);
        for (k, (v, f)) in values.into_iter().zip(fields).enumerate() {
            if f.written {
                let x = self.b.use_var(v);
                let holder = self.promoted_holder(k);
                self.write_data(
                    obj,
                    super::emit::DataField::new(holder, f.off, f.kind),
                    x,
                    false,
                    None,
                );
            }
        }
        if !keep {
            let none = self.b.ins().iconst(I64, 0);
            self.b.def_var(var, none);
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        // Both edges are in: sealed, a frame variable read below (a stop's
        // spill after the flush) is the one value both bring.
        self.seal(join);
    }

    /// A throw at the current instruction: in the body, the fields stored
    /// first (the handler, or a caller, may read them).
    pub(super) fn promotion_throw(&mut self) {
        let idx = self.s.idx;
        if self.promotion().is_some_and(|p| p.plan.in_body(idx)) {
            self.promotion_flush(false);
        }
    }

    /// The value of the promoted field the `getfield` at `i` reads.
    pub(super) fn promoted_get(&mut self, i: usize) -> Option<Value> {
        let p = self.promotion()?;
        let k = *p.plan.accesses.get(&i)?;
        let v = p.values[k];
        Some(self.b.use_var(v))
    }

    /// Writes `v` to the promoted field the `putfield` at `i` writes, as
    /// memory would keep it (narrowed and widened again); false when it
    /// is not promoted.
    pub(super) fn promoted_put(&mut self, i: usize, v: Value) -> bool {
        let Some((var, kind)) = self.promotion().and_then(|p| {
            let k = *p.plan.accesses.get(&i)?;
            Some((p.values[k], p.plan.fields[k].kind))
        }) else {
            return false;
        };
        let v = self.narrow(kind, v);
        self.b.def_var(var, v);
        true
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

    const VALUE: u32 = 8;

    fn get(off: u32, kind: Kind) -> Op {
        Op::GetField {
            off,
            kind,
            volatile: false,
        }
    }

    fn put(off: u32, kind: Kind) -> Op {
        Op::PutField {
            off,
            kind,
            volatile: false,
        }
    }

    /// `for (i = 0; i < n; i++) synchronized (o) { body }` as javac lays it
    /// out (o in local 0, n in 1, i in 2, the lock's copy in 3, another
    /// object in 4; the re-entry at 8), with its exception handler.
    fn counted_loop(body: &[Op]) -> (Vec<Op>, Vec<Handler>) {
        let mut ops = vec![
            Op::Const(Const::I(0)),
            Op::Store(K::I, 2),
            Op::Load(K::I, 2), // 2: the loop's test
            Op::Load(K::I, 1),
            Op::IfICmp(Cond::Ge, to(0, false)), // patched below
            Op::Load(K::R, 0),
            Op::Dup,
            Op::Store(K::R, 3),
            Op::MonitorEnter, // 8
        ];
        ops.extend_from_slice(body);
        let exit = ops.len() + 1;
        ops.extend([
            Op::Load(K::R, 3),
            Op::MonitorExit,
            Op::Goto(to(0, false)), // patched below: to the iinc
            // The handler: release and rethrow.
            Op::Store(K::R, 5),
            Op::Load(K::R, 3),
            Op::MonitorExit,
            Op::Load(K::R, 5),
            Op::AThrow,
            Op::Iinc(2, 1),
            Op::Goto(to(2, true)),
            Op::Return(None),
        ]);
        let end = ops.len() as u32 - 1;
        ops[4] = Op::IfICmp(Cond::Ge, to(end, false));
        ops[exit + 1] = Op::Goto(to(end - 2, false));
        let handler = |start: usize, end: usize| Handler {
            start: start as u32,
            end: end as u32,
            handler: exit as u32 + 2,
            catch: None,
            unresolved: false,
        };
        (ops, vec![handler(9, exit + 1), handler(exit + 2, exit + 5)])
    }

    fn plan_of(ops: &[Op], handlers: &[Handler]) -> Option<Plan> {
        let coarse = coarsen::plan(ops).expect("coarsenable");
        plan(ops, handlers, &[], &coarse)
    }

    /// `o.value++` (a long), through local `l`.
    fn increment(l: u16) -> [Op; 6] {
        [
            Op::Load(K::R, l),
            Op::Dup,
            get(VALUE, Kind::Long),
            Op::Const(Const::J(1)),
            Op::Arith(K::J, Arith::Add),
            put(VALUE, Kind::Long),
        ]
    }

    #[test]
    fn the_counter_is_promoted_across_the_span() {
        let (ops, handlers) = counted_loop(&increment(0));
        let p = plan_of(&ops, &handlers).expect("promoted");
        assert_eq!(p.reentry, 8);
        assert_eq!(p.exit, 16);
        assert_eq!(
            p.fields,
            vec![Field {
                off: VALUE,
                kind: Kind::Long,
                written: true
            }]
        );
        assert_eq!(p.accesses, HashMap::from([(11, 0), (14, 0)]));
        assert!(p.in_body(9) && p.in_body(16) && !p.in_body(8) && !p.in_body(17));
        // Through the lock's copy too, and a field only read is not
        // written back.
        let body = [Op::Load(K::R, 3), get(16, Kind::Int), Op::Store(K::I, 6)];
        let (ops, handlers) = counted_loop(&body);
        let p = plan_of(&ops, &handlers).expect("promoted");
        assert_eq!(
            p.fields,
            vec![Field {
                off: 16,
                kind: Kind::Int,
                written: false
            }]
        );
    }

    #[test]
    fn another_reference_to_the_field_keeps_it_in_memory() {
        // `o.value++; p.value++`: p may be o.
        let mut body = increment(0).to_vec();
        body.extend(increment(4));
        let (ops, handlers) = counted_loop(&body);
        assert_eq!(plan_of(&ops, &handlers), None);
        // Another field through p: o's field is still promoted.
        let mut body = increment(0).to_vec();
        body.extend([Op::Load(K::R, 4), Op::Const(Const::I(1)), put(16, Kind::Int)]);
        let (ops, handlers) = counted_loop(&body);
        let p = plan_of(&ops, &handlers).expect("promoted");
        assert_eq!(p.fields.len(), 1);
        assert_eq!(p.fields[0].off, VALUE);
        // The lock's copy overwritten with p in the body: no longer o.
        let mut body = vec![Op::Load(K::R, 4), Op::Store(K::R, 0)];
        body.extend(increment(0));
        let (ops, handlers) = counted_loop(&body);
        assert_eq!(plan_of(&ops, &handlers), None);
    }

    #[test]
    fn a_volatile_access_a_call_or_a_stop_in_the_body_promotes_nothing() {
        let volatile = Op::GetField {
            off: 24,
            kind: Kind::Int,
            volatile: true,
        };
        let call_free = |extra: Op| {
            let mut body = increment(0).to_vec();
            body.extend([Op::Load(K::R, 0), extra, Op::Pop]);
            counted_loop(&body)
        };
        let (ops, handlers) = call_free(volatile);
        assert_eq!(plan_of(&ops, &handlers), None);
        // The promoted field itself volatile.
        let body = [
            Op::Load(K::R, 0),
            Op::Dup,
            Op::GetField {
                off: VALUE,
                kind: Kind::Long,
                volatile: true,
            },
            Op::Const(Const::J(1)),
            Op::Arith(K::J, Arith::Add),
            Op::PutField {
                off: VALUE,
                kind: Kind::Long,
                volatile: true,
            },
        ];
        let (ops, handlers) = counted_loop(&body);
        assert_eq!(plan_of(&ops, &handlers), None);
        // A reference array store (its type check may call).
        let mut body = increment(0).to_vec();
        body.extend([
            Op::Load(K::R, 4),
            Op::Const(Const::I(0)),
            Op::Load(K::R, 0),
            Op::AStore(Kind::Ref),
        ]);
        let (ops, handlers) = counted_loop(&body);
        assert_eq!(plan_of(&ops, &handlers), None);
        // A primitive one may throw only: allowed.
        let mut body = increment(0).to_vec();
        body.extend([
            Op::Load(K::R, 4),
            Op::Const(Const::I(0)),
            Op::Const(Const::I(7)),
            Op::AStore(Kind::Int),
        ]);
        let (ops, handlers) = counted_loop(&body);
        assert!(plan_of(&ops, &handlers).is_some());
    }

    #[test]
    fn a_body_entered_or_left_elsewhere_promotes_nothing() {
        // A branch from the body past the exit.
        let mut body = increment(0).to_vec();
        body.extend([Op::Load(K::I, 2), Op::If(Cond::Eq, to(40, false))]);
        let (ops, handlers) = counted_loop(&body);
        assert_eq!(plan_of(&ops, &handlers), None);
        // A handler inside the body.
        let (ops, mut handlers) = counted_loop(&increment(0));
        handlers.push(Handler {
            start: 9,
            end: 12,
            handler: 12,
            catch: None,
            unresolved: false,
        });
        assert_eq!(plan_of(&ops, &handlers), None);
        // A forward branch inside the body is followed: both ways reach
        // the putfield with the object under the value.
        let body = [
            Op::Load(K::R, 0),
            Op::Load(K::R, 0),
            get(20, Kind::Boolean),
            Op::If(Cond::Ne, to(15, false)),
            Op::Const(Const::I(1)),
            Op::Goto(to(16, false)),
            Op::Const(Const::I(0)), // 15
            put(20, Kind::Boolean), // 16
        ];
        let (ops, handlers) = counted_loop(&body);
        let p = plan_of(&ops, &handlers).expect("promoted");
        assert_eq!(p.accesses, HashMap::from([(11, 0), (16, 0)]));
    }

    #[test]
    fn a_method_with_two_coarsened_exits_promotes_nothing() {
        // Two blocks on o in one loop: each exit's tail reaches the other's
        // enter, so a deferred lock may be either's.
        let mut body = increment(0).to_vec();
        body.extend([
            Op::Load(K::R, 3),
            Op::MonitorExit,
            Op::Load(K::R, 0),
            Op::Dup,
            Op::Store(K::R, 3),
            Op::MonitorEnter,
        ]);
        body.extend(increment(0));
        let (ops, handlers) = counted_loop(&body);
        assert_eq!(coarsen::plan(&ops).expect("coarsenable").tails.len(), 2);
        assert_eq!(plan_of(&ops, &handlers), None);
    }
}

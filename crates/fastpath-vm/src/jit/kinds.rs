//! Value kinds per slot: for every instruction, the kind of each local and
//! operand-stack slot on entry to it (int, long, float, double,
//! reference, the high half of a wide value, or unusable), by forward
//! dataflow to a fixpoint over the method's [`Op`]s, merging at branch
//! targets and exception handlers (the reference-map analysis of
//! `interp/oopmap.rs` with the primitive kinds told apart).
//!
//! Where it sits: the translator (`translate.rs`) keeps one Cranelift
//! variable per slot and kind, so it needs the kind of every stack slot
//! an instruction shuffles (`dup2`, `swap`) and of every local live at a
//! loop head (on-stack replacement reads them from the interpreter's
//! frame). An instruction no path reaches has no state: it is not
//! compiled.

use super::ops::{Const, Dispatch, Op, K};
use crate::interp::insn::{Conv, Switch};
use crate::interp::Decoded;
use crate::link::{Kind, Method};

/// The entry state of every instruction (`None`: unreachable).
#[derive(Debug)]
pub struct Kinds {
    /// Locals on entry, per instruction.
    pub locals: Vec<Option<Box<[K]>>>,
    /// The operand stack on entry (bottom first, one entry per JVM slot).
    pub stacks: Vec<Option<Box<[K]>>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    locals: Vec<K>,
    stack: Vec<K>,
}

fn merge(into: &mut State, from: &State) -> Result<bool, String> {
    if into.stack.len() != from.stack.len() {
        return Err("operand stacks of different depths meet".into());
    }
    let mut changed = false;
    for (a, b) in into
        .locals
        .iter_mut()
        .chain(into.stack.iter_mut())
        .zip(from.locals.iter().chain(from.stack.iter()))
    {
        if *a != *b && *a != K::X {
            *a = K::X;
            changed = true;
        }
    }
    Ok(changed)
}

impl State {
    fn push(&mut self, k: K) {
        self.stack.push(k);
        if k.slots() == 2 {
            self.stack.push(K::Hi);
        }
    }
    fn pop(&mut self) -> Result<K, String> {
        let k = self.stack.pop().ok_or("operand stack underflow")?;
        if k == K::Hi {
            return self.stack.pop().ok_or_else(|| "operand stack underflow".into());
        }
        Ok(k)
    }
    fn pop_slot(&mut self) -> Result<K, String> {
        self.stack.pop().ok_or_else(|| "operand stack underflow".into())
    }
    fn set_local(&mut self, n: usize, k: K) -> Result<(), String> {
        let w = k.slots();
        if n + w > self.locals.len() {
            return Err("local index out of range".into());
        }
        // Overwriting half of a wide value kills the other half.
        if self.locals[n] == K::Hi && n > 0 {
            self.locals[n - 1] = K::X;
        }
        if matches!(self.locals[n + w - 1], K::J | K::D) && n + w < self.locals.len() {
            self.locals[n + w] = K::X;
        }
        self.locals[n] = k;
        if w == 2 {
            self.locals[n + 1] = K::Hi;
        }
        Ok(())
    }
}

/// The kind a method's parameters give its locals on entry.
pub fn entry_locals(m: &Method, max_locals: usize) -> Vec<K> {
    let mut locals = vec![K::X; max_locals];
    let mut n = 0;
    if !m.is_static() {
        if let Some(l) = locals.get_mut(0) {
            *l = K::R;
        }
        n = 1;
    }
    for p in &m.desc.params {
        let k = K::of_type(p);
        if n < max_locals {
            locals[n] = k;
        }
        if k.slots() == 2 && n + 1 < max_locals {
            locals[n + 1] = K::Hi;
        }
        n += k.slots();
    }
    locals
}

/// Runs the analysis over `ops`.
pub fn compute(m: &'static Method, d: &Decoded, ops: &[Op]) -> Result<Kinds, String> {
    let n = ops.len();
    let mut states: Vec<Option<State>> = vec![None; n];
    states[0] = Some(State {
        locals: entry_locals(m, d.max_locals as usize),
        stack: Vec::new(),
    });
    let mut work: Vec<usize> = vec![0];
    let mut queued = vec![false; n];
    queued[0] = true;
    while let Some(i) = work.pop() {
        queued[i] = false;
        let st = states[i].clone().expect("queued with a state");
        // Exception edges: each handler covering `i` sees `i`'s locals and
        // the exception alone on the stack.
        for h in d.handlers.iter() {
            if (h.start as usize..h.end as usize).contains(&i) {
                let hs = State {
                    locals: st.locals.clone(),
                    stack: vec![K::R],
                };
                flow(&mut states, &mut work, &mut queued, h.handler as usize, &hs)?;
            }
        }
        let (next, succs) = step(&st, &ops[i], d, i)?;
        if let Some(next) = next {
            for s in succs {
                if s >= n {
                    return Err("falls off the end of the code".into());
                }
                flow(&mut states, &mut work, &mut queued, s, &next)?;
            }
        }
    }
    Ok(Kinds {
        locals: states
            .iter()
            .map(|s| s.as_ref().map(|s| s.locals.clone().into_boxed_slice()))
            .collect(),
        stacks: states
            .iter()
            .map(|s| s.as_ref().map(|s| s.stack.clone().into_boxed_slice()))
            .collect(),
    })
}

fn flow(
    states: &mut [Option<State>],
    work: &mut Vec<usize>,
    queued: &mut [bool],
    to: usize,
    st: &State,
) -> Result<(), String> {
    let changed = match &mut states[to] {
        Some(old) => merge(old, st)?,
        slot @ None => {
            *slot = Some(st.clone());
            true
        }
    };
    if changed && !queued[to] {
        queued[to] = true;
        work.push(to);
    }
    Ok(())
}

/// The state after `op` and its successors (`None`: no normal successor
/// state, as after a return or a throw).
fn step(st: &State, op: &Op, d: &Decoded, i: usize) -> Result<(Option<State>, Vec<usize>), String> {
    let mut s = st.clone();
    let fall = vec![i + 1];
    let succ = match *op {
        Op::Nop => fall,
        Op::Const(c) => {
            s.push(match c {
                Const::I(_) => K::I,
                Const::J(_) => K::J,
                Const::F(_) => K::F,
                Const::D(_) => K::D,
                Const::Null => K::R,
            });
            fall
        }
        Op::LdcString(_) | Op::LdcClass(_) => {
            s.push(K::R);
            fall
        }
        Op::Load(k, n) => {
            s.push(k);
            let _ = n;
            fall
        }
        Op::Store(k, n) => {
            s.pop()?;
            s.set_local(n as usize, k)?;
            fall
        }
        Op::Iinc(..) => fall,
        Op::ALoad(k) => {
            s.pop()?;
            s.pop()?;
            s.push(K::of(k));
            fall
        }
        Op::AStore(_) => {
            s.pop()?;
            s.pop()?;
            s.pop()?;
            fall
        }
        Op::Pop => {
            s.pop_slot()?;
            fall
        }
        Op::Pop2 => {
            s.pop_slot()?;
            s.pop_slot()?;
            fall
        }
        Op::Dup => {
            let a = *s.stack.last().ok_or("underflow")?;
            s.stack.push(a);
            fall
        }
        Op::DupX1 => {
            let a = s.pop_slot()?;
            let b = s.pop_slot()?;
            s.stack.extend([a, b, a]);
            fall
        }
        Op::DupX2 => {
            let a = s.pop_slot()?;
            let b = s.pop_slot()?;
            let c = s.pop_slot()?;
            s.stack.extend([a, c, b, a]);
            fall
        }
        Op::Dup2 => {
            let a = s.pop_slot()?;
            let b = s.pop_slot()?;
            s.stack.extend([b, a, b, a]);
            fall
        }
        Op::Dup2X1 => {
            let a = s.pop_slot()?;
            let b = s.pop_slot()?;
            let c = s.pop_slot()?;
            s.stack.extend([b, a, c, b, a]);
            fall
        }
        Op::Dup2X2 => {
            let a = s.pop_slot()?;
            let b = s.pop_slot()?;
            let c = s.pop_slot()?;
            let e = s.pop_slot()?;
            s.stack.extend([b, a, e, c, b, a]);
            fall
        }
        Op::Swap => {
            let a = s.pop_slot()?;
            let b = s.pop_slot()?;
            s.stack.extend([a, b]);
            fall
        }
        Op::Arith(k, _) => {
            // The second operand: an int shift count for a long shift,
            // else one value of kind `k` (a slot either way).
            s.pop()?;
            s.pop()?;
            s.push(k);
            fall
        }
        Op::Neg(k) => {
            s.pop()?;
            s.push(k);
            fall
        }
        Op::Conv(c) => {
            s.pop()?;
            s.push(conv_result(c));
            fall
        }
        Op::LCmp | Op::FCmp(_) | Op::DCmp(_) => {
            s.pop()?;
            s.pop()?;
            s.push(K::I);
            fall
        }
        Op::If(_, t) | Op::IfNull(_, t) => {
            s.pop()?;
            vec![i + 1, t.index as usize]
        }
        Op::IfICmp(_, t) | Op::IfACmp(_, t) => {
            s.pop()?;
            s.pop()?;
            vec![i + 1, t.index as usize]
        }
        Op::Goto(t) => vec![t.index as usize],
        Op::Switch(k) => {
            s.pop()?;
            match &d.switches[k as usize] {
                Switch::Table { default, targets, .. } | Switch::Lookup { default, targets, .. } => {
                    let mut v: Vec<usize> = targets.iter().map(|&t| t as usize).collect();
                    v.push(*default as usize);
                    v.sort_unstable();
                    v.dedup();
                    v
                }
            }
        }
        Op::Return(_) | Op::AThrow | Op::Throw(_) => return Ok((None, Vec::new())),
        Op::GetStatic { kind, .. } => {
            s.push(K::of(kind));
            fall
        }
        Op::PutStatic { .. } => {
            s.pop()?;
            fall
        }
        Op::GetField { kind, .. } => {
            s.pop()?;
            s.push(K::of(kind));
            fall
        }
        Op::PutField { .. } => {
            s.pop()?;
            s.pop()?;
            fall
        }
        Op::Invoke(dispatch, m) => {
            for _ in 0..m.desc.params.len() {
                s.pop()?;
            }
            if dispatch != Dispatch::Static {
                s.pop()?;
            }
            if let Some(r) = &m.desc.ret {
                s.push(K::of_type(r));
            }
            fall
        }
        Op::New(_) => {
            s.push(K::R);
            fall
        }
        Op::NewArray(_) => {
            s.pop()?;
            s.push(K::R);
            fall
        }
        Op::MultiANewArray(_, dims) => {
            for _ in 0..dims {
                s.pop()?;
            }
            s.push(K::R);
            fall
        }
        Op::ArrayLength => {
            s.pop()?;
            s.push(K::I);
            fall
        }
        Op::CheckCast(_) => fall,
        Op::InstanceOf(_) => {
            s.pop()?;
            s.push(K::I);
            fall
        }
        Op::MonitorEnter | Op::MonitorExit => {
            s.pop()?;
            fall
        }
    };
    Ok((Some(s), succ))
}

/// The kind a conversion pops.
pub fn conv_operand(c: Conv) -> K {
    match c {
        Conv::L2I | Conv::L2F | Conv::L2D => K::J,
        Conv::F2I | Conv::F2L | Conv::F2D => K::F,
        Conv::D2I | Conv::D2L | Conv::D2F => K::D,
        _ => K::I,
    }
}

/// The kind a conversion pushes.
pub fn conv_result(c: Conv) -> K {
    match c {
        Conv::I2L | Conv::F2L | Conv::D2L => K::J,
        Conv::I2F | Conv::L2F | Conv::D2F => K::F,
        Conv::I2D | Conv::L2D | Conv::F2D => K::D,
        _ => K::I,
    }
}

/// The kind of a field or element value once on the stack.
pub fn stack_kind(k: Kind) -> K {
    K::of(k)
}

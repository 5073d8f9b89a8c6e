//! Range-check elimination: the array accesses whose index is proven in
//! bounds from the bytecode, so the translator emits neither their null
//! check nor their bounds check, and those whose index is proven below the
//! length only, which keep a test of the index's sign and nothing else.
//!
//! Where it sits: `translate.rs` runs [`in_range`] once per method it
//! translates (the compiled method and each inlined callee), beside
//! `kinds.rs` and `cold.rs`, and the array access emitters (`emit.rs`,
//! `array_load`, `array_store`) skip both checks at an instruction it
//! marks ([`Proofs::access`]), and skip the null check and test only
//! `index >= 0` at one whose upper bound alone is proven
//! ([`Proofs::below_length`]: a sieve's `for (k = i + i; k < n; k += i)
//! a[k] = ...` over `a = new boolean[n]`, whose `k` may wrap negative).
//! It also tells which operands of each `if_icmp` are `>= 0`
//! ([`Proofs::nonneg_operands`]): `bounded.rs` turns a signed `i < len`
//! whose `i` is one of them and whose `len` the translator loaded as an
//! array's length into a passed bounds check, the proof for arrays this
//! analysis does not track (held in fields). The proof is about bytecode locals, so it holds on every path
//! the compiled code runs, on-stack replacement included (the interpreter
//! reached the loop head through the same bytecode).
//!
//! The shape it proves is the counted loop of the literature on range
//! check elimination: an index local that starts at a value `>= 0` and
//! steps by `+1` while below `a.length` (or starts below `a.length` and
//! steps by `-1` while `>= 0`), `a` a local the loop does not store.
//! HotSpot's C2 removes those checks from the main copy of a loop it
//! splits into pre, main and post loops (`PhaseIdealLoop::do_range_check`);
//! this is the simpler proof of C1's (Würthinger, Wimmer and Mössenböck,
//! "Array Bounds Check Elimination for the Java HotSpot Client Compiler",
//! PPPJ 2007), which needs no loop copy for this shape: no loop is
//! recognised as such, a forward must-dataflow over the instructions finds
//! the facts that hold on every path into each one, and the loop's
//! invariant is its greatest fixed point (each state starts unreached,
//! meets are intersections, iteration shrinks them until stable). The
//! facts, about locals only (a local changes only at a store or `iinc` of
//! it, and an array's length never changes):
//!
//! - `nonneg(i)`: int local `i >= 0`.
//! - `below(i, a, k)`: `i + k < a.length` as integers (`k >= 0`), `a` a
//!   reference local holding an array (so not null: the fact comes from
//!   an `arraylength` of it that completed).
//! - `len_of(n) = a`: int local `n` holds `a.length` (a for-each loop's
//!   hidden length local, or the `n` of `a = new int[n]`).
//! - `capped(i)`: int local `i` is below some int value (a loop test
//!   `i < n` of any `n`, a field's array length included), so `i + 1`
//!   does not wrap: a counted loop's `nonneg(i)` survives its `i++` with
//!   no array local in the test.
//!
//! and per operand-stack slot a symbolic value: a local's value, a
//! constant, a local or an array's length plus a constant (wrapping, as
//! Java's `int`), or unknown. A comparison's branch adds facts on the edge
//! where it holds (`i < a.length` on the fall-through of `if_icmpge`), a
//! store derives facts for the stored local from its symbolic value and
//! kills every fact naming it. `a[i + c]`, `0 <= c <= k`, is in bounds
//! where `nonneg(i)` and `below(i, a, k)` hold; every derivation checks
//! that the `int` arithmetic it models cannot wrap (`i + 1` keeps
//! `nonneg` only where `i < a.length <= Integer.MAX_VALUE`). Anything the
//! analysis does not model leaves the stack unknown and the checks in
//! place: an exception handler starts with no facts, an instruction it
//! does not model forgets every stack slot, a final field's array is not
//! tracked (a `getfield` is unknown).

use super::kinds::Kinds;
use super::ops::{Const, Op, K};
use crate::interp::insn::{Arith, Cond, Switch};
use crate::interp::Decoded;
use crate::link::Kind;

/// Steps of the dataflow per instruction before it gives up (nothing
/// proven): the meets only shrink the states, so a method settles in a
/// few passes; the bound keeps a pathological one from costing more.
const MAX_VISITS_PER_INSN: usize = 64;

/// The largest constant subtracted from a length that the analysis
/// follows (`a.length - 1`): `length - c` cannot wrap for `0 <= c <=` it.
const MAX_LENGTH_OFFSET: i32 = 1 << 16;

/// What the analysis proved about one method's instructions.
#[derive(Default)]
pub struct Proofs {
    /// The array accesses (`ALoad`, `AStore`) whose array is not null and
    /// whose index is within its bounds on every path.
    access: Vec<bool>,
    /// The array accesses (`ALoad`, `AStore`) whose array is not null and
    /// whose index is below its length on every path, its sign unknown.
    below_length: Vec<bool>,
    /// The `if_icmp` instructions' operands (the lower one, the top one)
    /// that are `>= 0` on every path.
    nonneg: Vec<(bool, bool)>,
}

impl Proofs {
    /// Whether the array access at instruction `i` needs neither its null
    /// check nor its bounds check.
    pub fn access(&self, i: usize) -> bool {
        self.access.get(i).copied().unwrap_or(false)
    }

    /// Whether the array access at instruction `i` has its array not null
    /// and its index below the length (`index >= 0` is all it needs to
    /// check); also true where [`Proofs::access`] is.
    pub fn below_length(&self, i: usize) -> bool {
        self.below_length.get(i).copied().unwrap_or(false)
    }

    /// Which operands of the `if_icmp` at instruction `i` are `>= 0`
    /// whenever it runs: (the lower one, the top one).
    pub fn nonneg_operands(&self, i: usize) -> (bool, bool) {
        self.nonneg.get(i).copied().unwrap_or((false, false))
    }
}

/// What `ops` proves (see the module comment): nothing where the analysis
/// gave up.
pub fn in_range(ops: &[Op], kinds: &Kinds, d: &Decoded) -> Proofs {
    let handlers: Vec<usize> = d.handlers.iter().map(|h| h.handler as usize).collect();
    let code = Code {
        ops,
        kinds,
        handlers: &handlers,
        switches: &d.switches,
        max_locals: d.max_locals as usize,
    };
    proven(&code)
}

/// What the analysis reads of a method.
struct Code<'a> {
    ops: &'a [Op],
    kinds: &'a Kinds,
    /// The handlers' first instructions.
    handlers: &'a [usize],
    switches: &'a [Switch],
    max_locals: usize,
}

fn proven(code: &Code) -> Proofs {
    let ops = code.ops;
    let n = ops.len();
    let Some(states) = solve(code) else {
        return Proofs::default();
    };
    let value_slots = |k: Kind| {
        if matches!(k, Kind::Long | Kind::Double) {
            2
        } else {
            1
        }
    };
    let (access, below_length) = (0..n)
        .map(|i| match (&states[i], ops[i]) {
            (Some(st), Op::ALoad(_)) => st.access_proven(0),
            (Some(st), Op::AStore(k)) => st.access_proven(value_slots(k)),
            _ => (false, false),
        })
        .unzip();
    let nonneg = (0..n)
        .map(|i| match (&states[i], ops[i]) {
            (Some(st), Op::IfICmp(..)) if st.stack.len() >= 2 => {
                let m = st.stack.len();
                (st.is_nonneg(st.stack[m - 2]), st.is_nonneg(st.stack[m - 1]))
            }
            _ => (false, false),
        })
        .collect();
    Proofs {
        access,
        below_length,
        nonneg,
    }
}

/// What a value on the operand stack is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    Unknown,
    /// `base + off`, wrapping as Java's `int`.
    Int {
        base: Base,
        off: i32,
    },
    /// The reference local `n` holds.
    Ref(u16),
    /// An array just allocated with the int local `n`'s value as its
    /// length (`newarray`, `anewarray`: a negative one throws).
    New(u16),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    Zero,
    /// The int local `n`'s value.
    Local(u16),
    /// The length of the array the reference local `n` holds.
    Len(u16),
}

impl Sym {
    fn names(self, slot: u16) -> bool {
        matches!(
            self,
            Sym::Ref(s) | Sym::New(s) | Sym::Int { base: Base::Local(s) | Base::Len(s), .. } if s == slot
        )
    }

    /// `Base::Len(a)` plus `off`, where `len + off` cannot wrap.
    fn length_minus(self) -> Option<(u16, i32)> {
        match self {
            Sym::Int {
                base: Base::Len(a),
                off,
            } if (-MAX_LENGTH_OFFSET..=0).contains(&off) => Some((a, -off)),
            _ => None,
        }
    }
}

/// The facts on entry to one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    nonneg: Vec<bool>,
    len_of: Vec<Option<u16>>,
    capped: Vec<bool>,
    /// `(i, a, k)`: `i + k < a.length`; one entry per `(i, a)`, sorted.
    below: Vec<(u16, u16, u32)>,
    /// One entry per JVM slot, bottom first.
    stack: Vec<Sym>,
}

impl State {
    fn empty(locals: usize, stack: usize) -> State {
        State {
            nonneg: vec![false; locals],
            len_of: vec![None; locals],
            capped: vec![false; locals],
            below: Vec::new(),
            stack: vec![Sym::Unknown; stack],
        }
    }

    /// Intersects `from` into `self`; whether `self` changed.
    fn meet(&mut self, from: &State) -> bool {
        let before = self.clone();
        for (a, b) in self.nonneg.iter_mut().zip(&from.nonneg) {
            *a &= *b;
        }
        for (a, b) in self.capped.iter_mut().zip(&from.capped) {
            *a &= *b;
        }
        for (a, b) in self.len_of.iter_mut().zip(&from.len_of) {
            if *a != *b {
                *a = None;
            }
        }
        self.below.retain_mut(
            |(i, a, k)| match from.below.iter().find(|f| f.0 == *i && f.1 == *a) {
                Some(f) => {
                    *k = (*k).min(f.2);
                    true
                }
                None => false,
            },
        );
        if self.stack.len() == from.stack.len() {
            for (a, b) in self.stack.iter_mut().zip(&from.stack) {
                if *a != *b {
                    *a = Sym::Unknown;
                }
            }
        } else {
            self.stack.iter_mut().for_each(|s| *s = Sym::Unknown);
        }
        *self != before
    }

    fn below_k(&self, i: u16, a: u16) -> Option<u32> {
        self.below.iter().find(|f| f.0 == i && f.1 == a).map(|f| f.2)
    }

    fn add_below(&mut self, i: u16, a: u16, k: u32) {
        match self.below.iter_mut().find(|f| f.0 == i && f.1 == a) {
            Some(f) => f.2 = f.2.max(k),
            None => {
                self.below.push((i, a, k));
                self.below.sort_unstable();
            }
        }
    }

    fn set_capped(&mut self, i: u16) {
        if let Some(x) = self.capped.get_mut(i as usize) {
            *x = true;
        }
    }

    fn set_nonneg(&mut self, i: u16) {
        if let Some(x) = self.nonneg.get_mut(i as usize) {
            *x = true;
        }
    }

    /// Whether the int value `v` is `>= 0`.
    fn is_nonneg(&self, v: Sym) -> bool {
        match v {
            Sym::Int {
                base: Base::Zero,
                off,
            } => off >= 0,
            Sym::Int {
                base: Base::Len(_),
                off: 0,
            } => true,
            Sym::Int {
                base: Base::Local(i),
                off: 0,
            } => self.nonneg.get(i as usize).copied().unwrap_or(false),
            _ => false,
        }
    }

    /// An array access whose value takes `value_slots` above the index:
    /// (in bounds, below the length).
    fn access_proven(&self, value_slots: usize) -> (bool, bool) {
        let n = self.stack.len();
        if n < 2 + value_slots {
            return (false, false);
        }
        let (array, index) = (self.stack[n - 2 - value_slots], self.stack[n - 1 - value_slots]);
        let (
            Sym::Ref(a),
            Sym::Int {
                base: Base::Local(i),
                off,
            },
        ) = (array, index)
        else {
            return (false, false);
        };
        // 0 <= off <= k and i + k < a.length: i + off < a.length (and does
        // not wrap, being below an int); with i >= 0 also 0 <= i + off.
        let below = off >= 0 && self.below_k(i, a).is_some_and(|k| off as u32 <= k);
        (
            below && self.nonneg.get(i as usize).copied().unwrap_or(false),
            below,
        )
    }

    /// Forgets every fact and stack value naming local `slot`.
    fn kill(&mut self, slot: u16) {
        if let Some(x) = self.nonneg.get_mut(slot as usize) {
            *x = false;
        }
        if let Some(x) = self.capped.get_mut(slot as usize) {
            *x = false;
        }
        for l in self.len_of.iter_mut() {
            if *l == Some(slot) {
                *l = None;
            }
        }
        if let Some(l) = self.len_of.get_mut(slot as usize) {
            *l = None;
        }
        self.below.retain(|f| f.0 != slot && f.1 != slot);
        for s in self.stack.iter_mut() {
            if s.names(slot) {
                *s = Sym::Unknown;
            }
        }
    }

    /// Local `j` (of `width` slots) takes the value `v`.
    fn store(&mut self, j: u16, width: u16, v: Sym) {
        // Facts about the new value, from the state before the store.
        let mut nonneg = false;
        let mut len_of = None;
        let mut below: Vec<(u16, u32)> = Vec::new();
        match v {
            Sym::Int {
                base: Base::Zero,
                off,
            } => nonneg = off >= 0,
            Sym::Int {
                base: Base::Len(a),
                off: 0,
            } => {
                nonneg = true;
                len_of = Some(a);
            }
            Sym::Int {
                base: Base::Len(_), ..
            } => {
                // a.length - m, 1 <= m: below(j, a, m - 1).
                if let Some((a, m)) = v.length_minus() {
                    below.push((a, m as u32 - 1));
                }
            }
            Sym::Int {
                base: Base::Local(i),
                off,
            } => {
                let i_nonneg = self.nonneg.get(i as usize).copied().unwrap_or(false);
                let facts: Vec<(u16, u32)> = self
                    .below
                    .iter()
                    .filter(|f| f.0 == i)
                    .map(|f| (f.1, f.2))
                    .collect();
                if off == 0 {
                    nonneg = i_nonneg;
                    len_of = self.len_of.get(i as usize).copied().flatten();
                    below = facts;
                } else if off > 0 {
                    // i + k < a.length <= MAX: i + off does not wrap for
                    // off <= k + 1, and is below a.length - (k - off);
                    // i < some int: i + 1 does not wrap.
                    let c = off as u32;
                    let i_capped = self.capped.get(i as usize).copied().unwrap_or(false);
                    nonneg = i_nonneg && (facts.iter().any(|&(_, k)| c <= k + 1) || (c == 1 && i_capped));
                    below = facts
                        .iter()
                        .filter(|&&(_, k)| c <= k)
                        .map(|&(a, k)| (a, k - c))
                        .collect();
                } else if i_nonneg {
                    // 0 <= i: i + off >= off does not wrap, and is below i.
                    below = facts;
                }
            }
            Sym::Ref(_) | Sym::Unknown => {}
            Sym::New(_) => {}
        }
        for s in j..j + width {
            self.kill(s);
        }
        if let Sym::New(n) = v {
            // `a = new int[n]`: n holds a's length, and is not negative.
            if !(j..j + width).contains(&n) {
                if let Some(l) = self.len_of.get_mut(n as usize) {
                    *l = Some(j);
                }
                self.set_nonneg(n);
            }
        }
        let named = |s: u16| (j..j + width).contains(&s);
        if nonneg {
            self.set_nonneg(j);
        }
        if let Some(a) = len_of.filter(|&a| !named(a)) {
            if let Some(l) = self.len_of.get_mut(j as usize) {
                *l = Some(a);
            }
        }
        for (a, k) in below {
            if !named(a) {
                self.add_below(j, a, k);
            }
        }
    }

    /// Adds what `x < y` (strict) or `x <= y` tells.
    fn assume_less(&mut self, x: Sym, y: Sym, strict: bool) {
        if let (
            true,
            Sym::Int {
                base: Base::Local(i),
                off: 0,
            },
        ) = (strict, x)
        {
            // i < y, y an int: i < Integer.MAX_VALUE.
            self.set_capped(i);
        }
        match (x, y) {
            (
                Sym::Int {
                    base: Base::Local(i),
                    off: 0,
                },
                y,
            ) => {
                // i < a.length - m: i + m < a.length;
                // i <= a.length - m, 1 <= m: i + (m - 1) < a.length.
                if let Some((a, m)) = y.length_minus() {
                    if strict {
                        self.add_below(i, a, m as u32);
                    } else if m >= 1 {
                        self.add_below(i, a, m as u32 - 1);
                    }
                }
            }
            (
                Sym::Int {
                    base: Base::Zero,
                    off: c,
                },
                Sym::Int {
                    base: Base::Local(i),
                    off: 0,
                },
            ) if c >= 0 || (strict && c == -1) => {
                // c < i with c >= -1, or c <= i with c >= 0: i >= 0.
                self.set_nonneg(i);
            }
            _ => {}
        }
    }

    /// Adds what `x cond y` tells.
    fn assume(&mut self, x: Sym, cond: Cond, y: Sym) {
        match cond {
            Cond::Lt => self.assume_less(x, y, true),
            Cond::Le => self.assume_less(x, y, false),
            Cond::Gt => self.assume_less(y, x, true),
            Cond::Ge => self.assume_less(y, x, false),
            Cond::Eq | Cond::Ne => {}
        }
    }
}

/// The negation of a comparison (the fall-through edge of its branch).
fn negate(c: Cond) -> Cond {
    match c {
        Cond::Eq => Cond::Ne,
        Cond::Ne => Cond::Eq,
        Cond::Lt => Cond::Ge,
        Cond::Ge => Cond::Lt,
        Cond::Gt => Cond::Le,
        Cond::Le => Cond::Gt,
    }
}

/// The entry state of every reachable instruction, or `None` where the
/// analysis gave up.
fn solve(code: &Code) -> Option<Vec<Option<State>>> {
    let ops = code.ops;
    let n = ops.len();
    let locals = code.max_locals;
    let mut w = Work {
        states: vec![None; n],
        queue: Vec::new(),
        queued: vec![false; n],
    };
    w.flow(0, State::empty(locals, 0));
    // A handler is entered with no facts (its state is the bottom, so one
    // flow into it stands for every instruction it covers).
    for &h in code.handlers {
        w.flow(h, State::empty(locals, 1));
    }
    let mut budget = n.saturating_mul(MAX_VISITS_PER_INSN);
    while let Some(i) = w.queue.pop() {
        budget = budget.checked_sub(1)?;
        w.queued[i] = false;
        let st = w.states[i].clone().expect("queued with a state");
        for (to, mut next) in step(st, &ops[i], i, code) {
            // The operand stack's depth is the kind analysis's: where the
            // model disagrees (an instruction it counts wrongly), nothing
            // on the stack is known.
            if let Some(Some(kinds)) = code.kinds.stacks.get(to) {
                if kinds.len() != next.stack.len() {
                    next.stack = vec![Sym::Unknown; kinds.len()];
                }
            }
            w.flow(to, next);
        }
    }
    Some(w.states)
}

struct Work {
    states: Vec<Option<State>>,
    queue: Vec<usize>,
    queued: Vec<bool>,
}

impl Work {
    /// Meets `st` into instruction `to`'s state; queues it if that changed.
    fn flow(&mut self, to: usize, st: State) {
        let Some(slot) = self.states.get_mut(to) else {
            return;
        };
        let changed = match slot {
            Some(old) => old.meet(&st),
            None => {
                *slot = Some(st);
                true
            }
        };
        if changed && !self.queued[to] {
            self.queued[to] = true;
            self.queue.push(to);
        }
    }
}

/// The states `op` at `i` passes to its normal successors.
fn step(mut s: State, op: &Op, i: usize, code: &Code) -> Vec<(usize, State)> {
    let pop = |s: &mut State| s.stack.pop().unwrap_or(Sym::Unknown);
    match *op {
        Op::Nop => {}
        Op::Const(Const::I(c)) => s.stack.push(Sym::Int {
            base: Base::Zero,
            off: c,
        }),
        Op::Load(K::I, n) => s.stack.push(match s.len_of.get(n as usize).copied().flatten() {
            Some(a) => Sym::Int {
                base: Base::Len(a),
                off: 0,
            },
            None => Sym::Int {
                base: Base::Local(n),
                off: 0,
            },
        }),
        Op::Load(K::R, n) => s.stack.push(Sym::Ref(n)),
        Op::Load(k, _) => push_unknown(&mut s, k.slots()),
        Op::Const(Const::J(_) | Const::D(_)) => push_unknown(&mut s, 2),
        Op::Const(Const::F(_) | Const::Null) | Op::LdcString(_) | Op::LdcClass(_) => push_unknown(&mut s, 1),
        Op::GetStatic { kind, .. } => push_unknown(&mut s, K::of(kind).slots()),
        Op::GetField { kind, .. } => {
            pop(&mut s);
            push_unknown(&mut s, K::of(kind).slots());
        }
        Op::Invoke(_, m) => {
            for _ in 0..m.arg_slots {
                pop(&mut s);
            }
            if let Some(r) = &m.desc.ret {
                push_unknown(&mut s, K::of_type(r).slots());
            }
        }
        Op::Store(k, n) => {
            let v = pop(&mut s);
            if k.slots() == 2 {
                pop(&mut s);
            }
            s.store(n, k.slots() as u16, v);
        }
        Op::Iinc(n, c) => s.store(
            n,
            1,
            Sym::Int {
                base: Base::Local(n),
                off: i32::from(c),
            },
        ),
        Op::ArrayLength => {
            let a = pop(&mut s);
            s.stack.push(match a {
                Sym::Ref(n) => Sym::Int {
                    base: Base::Len(n),
                    off: 0,
                },
                _ => Sym::Unknown,
            });
        }
        Op::Arith(K::I, a @ (Arith::Add | Arith::Sub)) => {
            let (y, x) = (pop(&mut s), pop(&mut s));
            let r = match (x, y, a) {
                (
                    Sym::Int { base, off },
                    Sym::Int {
                        base: Base::Zero,
                        off: c,
                    },
                    Arith::Add,
                ) => Sym::Int {
                    base,
                    off: off.wrapping_add(c),
                },
                (
                    Sym::Int {
                        base: Base::Zero,
                        off: c,
                    },
                    Sym::Int { base, off },
                    Arith::Add,
                ) => Sym::Int {
                    base,
                    off: off.wrapping_add(c),
                },
                (
                    Sym::Int { base, off },
                    Sym::Int {
                        base: Base::Zero,
                        off: c,
                    },
                    Arith::Sub,
                ) => Sym::Int {
                    base,
                    off: off.wrapping_sub(c),
                },
                _ => Sym::Unknown,
            };
            s.stack.push(r);
        }
        Op::Arith(k, a) => {
            // Long shifts take an int count.
            let count = if k == K::J && matches!(a, Arith::Shl | Arith::Shr | Arith::Ushr) {
                1
            } else {
                k.slots()
            };
            for _ in 0..count + k.slots() {
                pop(&mut s);
            }
            push_unknown(&mut s, k.slots());
        }
        Op::ALoad(k) => {
            pop(&mut s);
            pop(&mut s);
            s.stack.push(Sym::Unknown);
            if matches!(k, Kind::Long | Kind::Double) {
                s.stack.push(Sym::Unknown);
            }
        }
        Op::AStore(k) => {
            let slots = if matches!(k, Kind::Long | Kind::Double) {
                4
            } else {
                3
            };
            for _ in 0..slots {
                pop(&mut s);
            }
        }
        Op::Pop => {
            pop(&mut s);
        }
        Op::Dup => {
            let top = s.stack.last().copied().unwrap_or(Sym::Unknown);
            s.stack.push(top);
        }
        Op::NewArray(_) => {
            let n = pop(&mut s);
            s.stack.push(match n {
                Sym::Int {
                    base: Base::Local(n),
                    off: 0,
                } => Sym::New(n),
                _ => Sym::Unknown,
            });
        }
        Op::Dup2 => {
            // `a[i] += x`: the array and the index, twice.
            let n = s.stack.len();
            if n >= 2 {
                let top = [s.stack[n - 2], s.stack[n - 1]];
                s.stack.extend(top);
            } else {
                push_unknown(&mut s, 2);
            }
        }
        Op::If(c, t) => {
            let x = pop(&mut s);
            return branch(
                s,
                x,
                c,
                Sym::Int {
                    base: Base::Zero,
                    off: 0,
                },
                t.index as usize,
                i + 1,
            );
        }
        Op::IfICmp(c, t) => {
            let (y, x) = (pop(&mut s), pop(&mut s));
            return branch(s, x, c, y, t.index as usize, i + 1);
        }
        Op::IfACmp(_, t) | Op::IfNull(_, t) => {
            let n = if matches!(op, Op::IfACmp(..)) { 2 } else { 1 };
            for _ in 0..n {
                pop(&mut s);
            }
            return vec![(t.index as usize, s.clone()), (i + 1, s)];
        }
        Op::Goto(t) => return vec![(t.index as usize, s)],
        Op::Switch(k) => {
            pop(&mut s);
            let mut out = Vec::new();
            if let Some(Switch::Table { default, targets, .. } | Switch::Lookup { default, targets, .. }) =
                code.switches.get(k as usize)
            {
                for &t in targets.iter().chain(std::iter::once(default)) {
                    out.push((t as usize, s.clone()));
                }
            }
            return out;
        }
        Op::Return(_) | Op::AThrow | Op::Throw(_) => return Vec::new(),
        _ => {
            // Not modelled: it changes no local (only stores and `iinc`
            // do), and every operand slot after it is unknown.
            let depth = code
                .kinds
                .stacks
                .get(i + 1)
                .and_then(|x| x.as_ref())
                .map_or(0, |x| x.len());
            s.stack = vec![Sym::Unknown; depth];
        }
    }
    vec![(i + 1, s)]
}

fn push_unknown(s: &mut State, slots: usize) {
    s.stack.extend(std::iter::repeat_n(Sym::Unknown, slots));
}

/// A conditional branch on `x c y`: the target's state with what holds
/// when it is taken, the fall-through's with its negation.
fn branch(s: State, x: Sym, c: Cond, y: Sym, target: usize, next: usize) -> Vec<(usize, State)> {
    let mut taken = s.clone();
    taken.assume(x, c, y);
    let mut fall = s;
    fall.assume(x, negate(c), y);
    vec![(target, taken), (next, fall)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jit::ops::Target;

    fn to(index: u32, backward: bool) -> Target {
        Target { index, backward }
    }

    /// The proofs of `ops`, a method without handlers or switches whose
    /// kinds the analysis does not need, with `max_locals` locals.
    fn proven_straight(ops: &[Op], max_locals: usize) -> Proofs {
        let kinds = Kinds {
            locals: vec![None; ops.len()],
            stacks: vec![None; ops.len()],
        };
        proven(&Code {
            ops,
            kinds: &kinds,
            handlers: &[],
            switches: &[],
            max_locals,
        })
    }

    /// `static int sum(int[] a)`: `s` in local 1, `i` in local 2, the
    /// loop test `i <cond> a.length` exiting at 16 on its negation, and
    /// `iinc i step`; the result at the array load (11).
    fn sum_loop(exit_if: Cond, step: i16) -> bool {
        let ops = [
            Op::Const(Const::I(0)),
            Op::Store(K::I, 1),
            Op::Const(Const::I(0)),
            Op::Store(K::I, 2),
            Op::Load(K::I, 2),
            Op::Load(K::R, 0),
            Op::ArrayLength,
            Op::IfICmp(exit_if, to(16, false)),
            Op::Load(K::I, 1),
            Op::Load(K::R, 0),
            Op::Load(K::I, 2),
            Op::ALoad(Kind::Int),
            Op::Arith(K::I, Arith::Add),
            Op::Store(K::I, 1),
            Op::Iinc(2, step),
            Op::Goto(to(4, true)),
            Op::Load(K::I, 1),
            Op::Return(Some(K::I)),
        ];
        let p = proven_straight(&ops, 3);
        // The loop test `i <cond> a.length`: the length is `>= 0`, and `i`
        // is wherever the body's access is proven.
        assert!(p.nonneg_operands(7).1);
        assert!(!p.access(11) || p.nonneg_operands(7).0);
        p.access(11)
    }

    #[test]
    fn an_index_below_the_length_stepping_up_from_zero_is_in_range() {
        assert!(sum_loop(Cond::Ge, 1));
    }

    /// `for (int i = 0; i < n; i++) {}`, `n` in local 0 and `i` in local
    /// 1 stepping by `step`: which operands of the loop test are `>= 0`.
    fn up_to_n(step: i16) -> (bool, bool) {
        let ops = [
            Op::Const(Const::I(0)),
            Op::Store(K::I, 1),
            Op::Load(K::I, 1),
            Op::Load(K::I, 0),
            Op::IfICmp(Cond::Ge, to(7, false)),
            Op::Iinc(1, step),
            Op::Goto(to(2, true)),
            Op::Return(None),
        ];
        proven_straight(&ops, 2).nonneg_operands(4)
    }

    #[test]
    fn an_index_below_any_int_stepping_by_one_stays_nonneg() {
        assert_eq!(up_to_n(1), (true, false));
        // i + 2 may wrap past Integer.MAX_VALUE below n.
        assert_eq!(up_to_n(2), (false, false));
    }

    /// `for (int k = i + i; k <cond> a.length; k += i) a[k] = 1`, `a` in
    /// local 0, `i` in 1, `k` in 2: (in range, below the length) at the
    /// store (11).
    fn strided(exit_if: Cond) -> (bool, bool) {
        let ops = [
            Op::Load(K::I, 1),
            Op::Load(K::I, 1),
            Op::Arith(K::I, Arith::Add),
            Op::Store(K::I, 2),
            Op::Load(K::I, 2),
            Op::Load(K::R, 0),
            Op::ArrayLength,
            Op::IfICmp(exit_if, to(17, false)),
            Op::Load(K::R, 0),
            Op::Load(K::I, 2),
            Op::Const(Const::I(1)),
            Op::AStore(Kind::Byte),
            Op::Load(K::I, 2),
            Op::Load(K::I, 1),
            Op::Arith(K::I, Arith::Add),
            Op::Store(K::I, 2),
            Op::Goto(to(4, true)),
            Op::Return(None),
        ];
        let p = proven_straight(&ops, 3);
        (p.access(11), p.below_length(11))
    }

    #[test]
    fn a_stride_below_the_length_keeps_only_its_sign_test() {
        // k < a.length: below it, but k + i may have wrapped negative.
        assert_eq!(strided(Cond::Ge), (false, true));
        // k <= a.length: not even below it.
        assert_eq!(strided(Cond::Gt), (false, false));
    }

    #[test]
    fn an_index_in_range_is_below_the_length() {
        let ops = [
            Op::Const(Const::I(0)),
            Op::Store(K::I, 1),
            Op::Load(K::I, 1),
            Op::Load(K::R, 0),
            Op::ArrayLength,
            Op::IfICmp(Cond::Ge, to(12, false)),
            Op::Load(K::R, 0),
            Op::Load(K::I, 1),
            Op::ALoad(Kind::Int),
            Op::Store(K::I, 2),
            Op::Iinc(1, 1),
            Op::Goto(to(2, true)),
            Op::Return(None),
        ];
        let p = proven_straight(&ops, 3);
        assert!(p.access(8) && p.below_length(8));
    }

    #[test]
    fn a_near_miss_keeps_its_check() {
        // i <= a.length.
        assert!(!sum_loop(Cond::Gt, 1));
        // A step of 2 may wrap past Integer.MAX_VALUE: i >= 0 is lost.
        assert!(!sum_loop(Cond::Ge, 2));
        // Counting down from 0: i >= 0 is lost.
        assert!(!sum_loop(Cond::Ge, -1));
    }
}

//! Bulk-zeroing reduction: a new primitive array that a
//! `System.arraycopy` fills from its first element right after its
//! allocation is not zeroed where the copy writes it.
//!
//! Where it sits: the translator (`translate.rs`) hands each `newarray`
//! here (`Translator::new_array`); `coupled_copy` looks ahead in the
//! bytecode for the copy, and when it finds one the allocation
//! (`emit.rs`, `alloc_array`) leaves the elements as the TLAB had them
//! and records the array as `Unzeroed`. The copy's intrinsic
//! (`intrinsics.rs`, `Translator::arraycopy`) takes the record at that
//! instruction: it zeroes the elements past the copied range, then
//! copies; its cold path (a null source, another class, a range out of
//! bounds) zeroes the whole array before it calls the native, which
//! throws. HotSpot's C2 does the same for a "tightly coupled allocation"
//! (`LibraryCallKit::tightly_coupled_allocation`, `ReduceBulkZeroing`,
//! and `PhaseMacroExpand::generate_arraycopy`, which clears only what
//! the copy leaves and clears all on its slow path).
//!
//! Why no code sees the unzeroed elements: between the allocation and the
//! copy `coupled_copy` allows only straight-line instructions that
//! read locals, constants, fields and array lengths, store locals and
//! compute ints; the new array goes only into locals and onto the operand
//! stack, is never read as an object, never has an element loaded, and
//! is never passed anywhere but as the copy's destination. No branch
//! target nor handler lies in the range and no exception handler of the
//! method covers it, so an exception thrown there leaves the frame and
//! the array with it (an inlined callee's caller catches in its own
//! frame, which never held the array). The collector may stop the thread
//! in the range (a class initialization, a barrier's slow path), but a
//! primitive array holds no references, so it copies or frees the
//! elements without reading them as anything.

use std::collections::HashSet;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};

use super::layout::{ELEMENTS, LENGTH_WORD, REFS};
use super::ops::{Const, Dispatch, Op, K};
use super::translate::Translator;
use crate::interp::insn::Switch;
use crate::interp::Decoded;
use crate::link::{Class, Kind, Method};

/// Instructions looked through between the allocation and the copy.
const LOOKAHEAD: usize = 16;

/// A new primitive array left unzeroed for the copy at `copy_at`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Unzeroed {
    /// The method whose instruction the copy is (the compiled one or an
    /// inlined callee).
    pub(super) method: *const Method,
    /// The copy's instruction index in it.
    pub(super) copy_at: usize,
    /// Its class.
    pub(super) class: &'static Class,
}

/// What the lookahead knows of an operand-stack slot or local.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Abs {
    /// The new array.
    Fresh,
    /// The int constant 0.
    Zero,
    /// Anything else.
    Other,
}

/// The index of the `System.arraycopy` that fills the array the
/// `newarray` at `at` allocates, from its element 0, with nothing
/// between them that could see the elements (the module comment's
/// rules); `None` when there is no such copy.
pub(super) fn coupled_copy(ops: &[Op], d: &Decoded, at: usize) -> Option<usize> {
    let Op::NewArray(ac) = ops.get(at)? else {
        return None;
    };
    if ac.elem_kind()? == Kind::Ref {
        return None;
    }
    let mut stack = vec![Abs::Fresh];
    let mut fresh_locals: HashSet<u16> = HashSet::new();
    let end = (at + 1 + LOOKAHEAD).min(ops.len());
    let mut copy_at = None;
    for (i, op) in ops.iter().enumerate().take(end).skip(at + 1) {
        match *op {
            Op::Nop => {}
            Op::Const(Const::I(0)) => stack.push(Abs::Zero),
            Op::Const(Const::I(_) | Const::Null) | Op::LdcString(_) => stack.push(Abs::Other),
            Op::Load(K::R, n) => stack.push(if fresh_locals.contains(&n) {
                Abs::Fresh
            } else {
                Abs::Other
            }),
            Op::Load(K::I, _) => stack.push(Abs::Other),
            Op::Store(k @ (K::R | K::I), n) => {
                let v = stack.pop()?;
                if k == K::R && v == Abs::Fresh {
                    fresh_locals.insert(n);
                } else {
                    fresh_locals.remove(&n);
                }
            }
            Op::Iinc(..) => {}
            Op::Arith(K::I, _) => {
                let (a, b) = (stack.pop()?, stack.pop()?);
                if a == Abs::Fresh || b == Abs::Fresh {
                    return None;
                }
                stack.push(Abs::Other);
            }
            Op::GetField { kind, .. } if K::of(kind).slots() == 1 => {
                if stack.pop()? == Abs::Fresh {
                    return None;
                }
                stack.push(Abs::Other);
            }
            Op::GetStatic { kind, .. } if K::of(kind).slots() == 1 => stack.push(Abs::Other),
            Op::ArrayLength => {
                stack.pop()?;
                stack.push(Abs::Other);
            }
            Op::Dup => {
                let top = *stack.last()?;
                stack.push(top);
            }
            Op::Invoke(Dispatch::Static, m) if super::intrinsics::is_arraycopy(m) => {
                let (len, dp, dst, sp, src) = (
                    stack.pop()?,
                    stack.pop()?,
                    stack.pop()?,
                    stack.pop()?,
                    stack.pop()?,
                );
                let others_clean = [len, sp, src].iter().all(|&v| v != Abs::Fresh);
                if dst == Abs::Fresh && dp == Abs::Zero && others_clean {
                    copy_at = Some(i);
                }
                break;
            }
            _ => return None,
        }
    }
    let copy_at = copy_at?;
    let (first, last) = (at as u32, copy_at as u32);
    let inside = |k: u32| first < k && k <= last;
    if d.handlers
        .iter()
        .any(|h| inside(h.handler) || (h.start <= last && first < h.end))
    {
        return None;
    }
    if any_target(ops, d, inside) {
        return None;
    }
    Some(copy_at)
}

/// Whether a branch or switch of the method jumps to an instruction
/// `inside` names.
fn any_target(ops: &[Op], d: &Decoded, inside: impl Fn(u32) -> bool) -> bool {
    ops.iter().any(|op| match *op {
        Op::If(_, t) | Op::IfICmp(_, t) | Op::IfACmp(_, t) | Op::IfNull(_, t) | Op::Goto(t) => {
            inside(t.index)
        }
        Op::Switch(k) => match &d.switches[k as usize] {
            Switch::Table { default, targets, .. } | Switch::Lookup { default, targets, .. } => {
                inside(*default) || targets.iter().any(|&t| inside(t))
            }
        },
        _ => false,
    })
}

impl Translator<'_, '_> {
    /// `newarray`/`anewarray` at the current instruction: the allocation,
    /// left unzeroed when `coupled_copy` finds the copy that fills it.
    pub(super) fn new_array(&mut self, ac: &'static Class, n: Value) -> Value {
        let copy_at = coupled_copy(&self.s.ops, self.s.d, self.s.idx);
        let o = self.alloc_array(ac, n, copy_at.is_none());
        if let Some(copy_at) = copy_at {
            self.unzeroed = Some(Unzeroed {
                method: self.s.m,
                copy_at,
                class: ac,
            });
        }
        o
    }

    /// The record of an unzeroed array whose copy is the current
    /// instruction, taken.
    pub(super) fn take_unzeroed(&mut self) -> Option<Unzeroed> {
        let u = self.unzeroed?;
        if std::ptr::eq(u.method, self.s.m) && u.copy_at == self.s.idx {
            self.unzeroed = None;
            Some(u)
        } else {
            None
        }
    }

    /// The first element's address of the resolved primitive array `o`
    /// of element size `1 << shift`, and the end of its last element
    /// word (the elements' bytes rounded up to a word).
    pub(super) fn element_words(&mut self, o: Value, shift: i64) -> (Value, Value) {
        let ro = MemFlagsData::trusted().with_readonly();
        let n = self.b.ins().load(I32, ro, o, REFS + LENGTH_WORD);
        let n = self.b.ins().uextend(I64, n);
        let bytes = self.b.ins().ishl_imm_s(n, shift);
        let bytes = self.b.ins().iadd_imm_s(bytes, 7);
        let bytes = self.b.ins().band_imm_s(bytes, !7);
        let first = self.b.ins().iadd_imm_s(o, i64::from(REFS + ELEMENTS));
        let end = self.b.ins().iadd(first, bytes);
        (first, end)
    }

    /// Stores zero in the words `[from, to)` (8-aligned, any number of
    /// words): [`Translator::zero_words`] from two words on.
    pub(super) fn zero_range(&mut self, from: Value, to: Value) {
        let total = self.b.ins().isub(to, from);
        let (wide, narrow, one, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let two = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, total, 16);
        self.b.ins().brif(two, wide, &[], narrow, &[]);
        self.b.switch_to_block(wide);
        self.b.seal_block(wide);
        self.zero_words(from, to);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(narrow);
        self.b.seal_block(narrow);
        self.b.ins().brif(total, one, &[], done, &[]);
        self.b.switch_to_block(one);
        self.b.seal_block(one);
        let zero = self.b.ins().iconst(I64, 0);
        self.b
            .ins()
            .store(MemFlagsData::new().with_notrap(), zero, from, 0);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
    }
}

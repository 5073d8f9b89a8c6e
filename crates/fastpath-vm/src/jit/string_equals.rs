//! The `String.equals(Object)` intrinsic: compiled code replaces the call
//! with inline tests and, for two strings of one length, a leaf call of
//! [`chars_equal`], a comparison of their `char[]`s eight units at a time.
//!
//! Where it sits: the translator (`translate.rs`) asks [`is_string_equals`]
//! at each statically bound instance call (`String` is final) and, for
//! `String.equals(Object)`, emits `Translator::string_equals` instead of
//! the call. The interpreter keeps the class library's method
//! (`classlib/java/lang/String.java`), the semantic reference, which the
//! inline form follows step by step: the same object is equal; anything
//! but a `String` (null included) is not; strings of different lengths
//! are not; else equal when every char is. The method reads only the two
//! `value` arrays, allocates nothing and throws nothing once its receiver
//! is known non-null, so the leaf call needs no frame, safepoint or
//! memory effect beyond the reads.
//!
//! Why an intrinsic: the library's method is a compiled call (about 300
//! instructions for a 10-char string in GcStrings: the call, the type
//! test, a load, compare and safepoint poll per char); HotSpot's C2
//! replaces `String.equals` with its `StrEquals`/`AryEq` nodes
//! (`LibraryCallKit::inline_string_equals`,
//! `C2_MacroAssembler::arrays_equals`, vector compares). The comparison
//! here reads eight chars at a time with SSE2, the x86-64 baseline, as
//! `index_of.rs`'s scan, and four at a time in a 64-bit word for shorter
//! strings and on other targets.
//!
//! The inline part: the receiver's null check (the call's own, with its
//! `NullPointerException`), the identity test, the argument's null test
//! and class-word compare with `String`, both `value` loads with their
//! read barriers, the length compare, then the leaf call. A `value` not
//! yet set (a string under construction) calls the method from a cold
//! block.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I32;
use cranelift_codegen::ir::InstBuilder;

use super::ops::{Dispatch, K};
use super::translate::{Translator, Unsupported};
use crate::link::{Class, Kind, Method};

/// The reference index of `String.value` (a `char[]`), when the class has
/// the field.
fn value_field(c: &Class) -> Option<u32> {
    c.fields
        .iter()
        .find(|f| &*f.name == "value" && &*f.descriptor == "[C" && f.kind == Kind::Ref && !f.is_static())
        .map(|f| f.offset)
}

/// Whether `m` is `java.lang.String.equals(Object)` of a final `String`
/// whose characters are a `char[]` field `value`.
pub fn is_string_equals(m: &Method) -> bool {
    &*m.name == "equals"
        && &*m.descriptor == "(Ljava/lang/Object;)Z"
        && &*m.class.name == "java/lang/String"
        && m.class.flags & crate::classfile::access::FINAL != 0
        && !m.is_static()
        && value_field(m.class).is_some()
}

/// Whether the `len` code units at `a` and at `b` are the same: 1 or 0.
///
/// Four units a step as one unaligned 64-bit word from each side, then
/// the rest one by one.
///
/// # Safety
///
/// `a` and `b` are readable for `len` code units each (two `char[]`s'
/// elements).
pub unsafe extern "C" fn chars_equal(a: *const u16, b: *const u16, len: usize) -> i32 {
    // SAFETY: the caller's contract.
    let (a, b) = unsafe {
        (
            std::slice::from_raw_parts(a, len),
            std::slice::from_raw_parts(b, len),
        )
    };
    i32::from(units_equal(a, b))
}

/// Whether `a` and `b`, of one length, hold the same units: from eight
/// units on, SSE2 compares of eight (`pcmpeqw`, `pmovmskb`; C2's
/// `arrays_equals` shape), the last eight overlapping the one before;
/// below, two overlapping 64-bit words of four, or the units one by one.
#[cfg(target_arch = "x86_64")]
fn units_equal(a: &[u16], b: &[u16]) -> bool {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8};
    let len = a.len();
    debug_assert_eq!(len, b.len());
    if len < 8 {
        return words_equal(a, b);
    }
    // SAFETY: SSE2 is part of x86-64; each load reads eight units at an
    // offset `i <= len - 8` of a slice of `len` units, and
    // `_mm_loadu_si128` takes any alignment.
    unsafe {
        let same = |i: usize| {
            let x = _mm_loadu_si128(a.as_ptr().add(i).cast::<__m128i>());
            let y = _mm_loadu_si128(b.as_ptr().add(i).cast::<__m128i>());
            _mm_movemask_epi8(_mm_cmpeq_epi16(x, y)) == 0xffff
        };
        let mut i = 0;
        while i + 8 < len {
            if !same(i) {
                return false;
            }
            i += 8;
        }
        same(len - 8)
    }
}

/// [`words_equal`] where no vector compare is written.
#[cfg(not(target_arch = "x86_64"))]
fn units_equal(a: &[u16], b: &[u16]) -> bool {
    words_equal(a, b)
}

/// Whether `a` and `b`, of one length, hold the same units, four at a
/// time in a 64-bit word, the last word overlapping the one before it.
fn words_equal(a: &[u16], b: &[u16]) -> bool {
    let len = a.len();
    let word = |s: &[u16], i: usize| {
        u64::from(s[i]) | u64::from(s[i + 1]) << 16 | u64::from(s[i + 2]) << 32 | u64::from(s[i + 3]) << 48
    };
    if len < 4 {
        // Unit by unit (a slice compare would call `bcmp`).
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let mut i = 0;
    while i + 4 < len {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 4;
    }
    word(a, len - 4) == word(b, len - 4)
}

impl Translator<'_, '_> {
    /// `String.equals(other)` with its receiver and argument on the
    /// operand stack, by `dispatch` (statically bound: `String` is
    /// final): the module comment's inline tests and leaf call; the
    /// method's call from a cold block when a `value` is null. Leaves the
    /// answer (an int, 1 or 0) on the stack.
    pub(super) fn string_equals(
        &mut self,
        dispatch: Dispatch,
        m: &'static Method,
    ) -> Result<(), Unsupported> {
        let value_ref = i64::from(value_field(m.class).expect("is_string_equals found the field"));
        let other = self.pop_v();
        let recv = self.pop_v();
        // The receiver's check reports the instruction's entry state.
        for k in [K::R, K::R] {
            self.s.stack.push(k);
        }
        self.null_check(recv);
        for _ in 0..2 {
            self.s.stack.pop();
        }
        let (not_same, nonnull, string, both, same_len, slow, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let result = self.b.append_block_param(done, I32);
        let (yes, no) = (self.b.ins().iconst(I32, 1), self.b.ins().iconst(I32, 0));

        let same = self.b.ins().icmp(IntCC::Equal, recv, other);
        self.b.ins().brif(same, done, &[yes.into()], not_same, &[]);
        self.b.switch_to_block(not_same);
        self.b.seal_block(not_same);
        self.b.ins().brif(other, nonnull, &[], done, &[no.into()]);

        self.b.switch_to_block(nonnull);
        self.b.seal_block(nonnull);
        let oc = self.class_of(other);
        let is = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, oc, m.class as *const Class as i64);
        self.b.ins().brif(is, string, &[], done, &[no.into()]);

        self.b.switch_to_block(string);
        self.b.seal_block(string);
        let a = self.load_ref_field(recv, m.class, value_ref, false);
        let b = self.load_ref_field(other, m.class, value_ref, false);
        let a_set = self.b.ins().icmp_imm_u(IntCC::NotEqual, a, 0);
        let b_set = self.b.ins().icmp_imm_u(IntCC::NotEqual, b, 0);
        let set = self.b.ins().band(a_set, b_set);
        self.b.ins().brif(set, both, &[], slow, &[]);

        self.b.switch_to_block(both);
        self.b.seal_block(both);
        let ra = self.resolve_read(a);
        let rb = self.resolve_read(b);
        let (fa, la) = self.prim_array_span(ra);
        let (fb, lb) = self.prim_array_span(rb);
        let eq_len = self.b.ins().icmp(IntCC::Equal, la, lb);
        self.b.ins().brif(eq_len, same_len, &[], done, &[no.into()]);

        self.b.switch_to_block(same_len);
        self.b.seal_block(same_len);
        let routine = chars_equal as unsafe extern "C" fn(*const u16, *const u16, usize) -> i32;
        let r = self
            .call_leaf(routine as usize, &[fa, fb, la], true)
            .expect("chars_equal returns its answer");
        self.b.ins().jump(done, &[r.into()]);

        self.intrinsic_fallback(slow, &[(K::R, recv), (K::R, other)], dispatch, m, done, result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(a: &[u16], b: &[u16]) -> bool {
        assert_eq!(a.len(), b.len());
        // SAFETY: two live slices of `a.len()` code units.
        match unsafe { chars_equal(a.as_ptr(), b.as_ptr(), a.len()) } {
            0 => false,
            1 => true,
            r => panic!("chars_equal returned {r}"),
        }
    }

    #[test]
    fn leaf_agrees_with_slice_equality() {
        // Every length around the step, a difference at every place, in
        // the low and in the high byte of a unit.
        for n in 0..=26usize {
            let a: Vec<u16> = (0..n).map(|i| 0x0061 + (i as u16) * 0x0101).collect();
            assert!(leaf(&a, &a.clone()), "equal of length {n}");
            for at in 0..n {
                for flip in [0x0001u16, 0x0100, 0x8000] {
                    let mut b = a.clone();
                    b[at] ^= flip;
                    assert!(!leaf(&a, &b), "length {n}, unit {at} ^ {flip:#x}");
                }
            }
        }
    }
}

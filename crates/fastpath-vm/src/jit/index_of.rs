//! The `String.indexOf(int, int)` intrinsic: compiled code replaces the
//! call with a leaf call of [`string_index_of`], a scan of the string's
//! `char[]` eight code units a step (SSE2; four, in a 64-bit word, where
//! no vector scan is written).
//!
//! Where it sits: the translator (`translate.rs`) asks [`is_string_index_of`]
//! at each statically bound instance call (`String` is final) and, for
//! `String.indexOf(int ch, int fromIndex)`, emits
//! `Translator::string_index_of` instead of the call; `indexOf(int)` is
//! `indexOf(ch, 0)` in the class library, so it reaches the intrinsic once
//! inlined. The interpreter keeps the class library's method
//! (`classlib/java/lang/String.java`), the semantic reference, which
//! [`string_index_of`] follows: a negative `fromIndex` counts from 0, a
//! code point below `MIN_SUPPLEMENTARY_CODE_POINT` is looked for as one
//! code unit (a negative one is never found), a valid supplementary one
//! as its surrogate pair, anything above `MAX_CODE_POINT` is not found;
//! the answer is the first index at or after `fromIndex`, or -1 (JDK 25's
//! `StringUTF16.indexOf` and `indexOfSupplementary`). The method reads
//! only `value`, allocates nothing and throws nothing once its receiver
//! is known non-null, so the leaf call needs no frame, safepoint or
//! memory effect beyond the read.
//!
//! Why an intrinsic: the library's loop compiles to a load, a compare and
//! a safepoint poll per character (about 20 instructions); HotSpot's C2
//! replaces `StringLatin1.indexOfChar` and `StringUTF16.indexOfChar` with
//! vector code (`LibraryCallKit::inline_string_indexOfChar`,
//! `C2_MacroAssembler::string_indexof_char`, 8 or 16 chars a step). The
//! scan here compares eight chars at a time with SSE2, the x86-64
//! baseline (`find_unit`), and four at a time in one 64-bit word
//! elsewhere and for the last few (`find_unit_words`).
//!
//! The inline part: the receiver's null check (the call's own, with its
//! `NullPointerException`), the `value` field's load and its read
//! barrier, the array's length, then the leaf call. A `value` not yet set
//! (a string under construction) calls the method from a cold block.

use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::InstBuilder;

use super::ops::{Dispatch, K};
use super::translate::{Translator, Unsupported};
use crate::link::{Kind, Method};

/// `Character.MIN_SUPPLEMENTARY_CODE_POINT` and `Character.MAX_CODE_POINT`.
const MIN_SUPPLEMENTARY: i64 = 0x1_0000;
const MAX_CODE_POINT: i64 = 0x10_ffff;

/// Code units compared in one step of the scan (one 64-bit word).
const STEP: usize = 4;

/// The reference index of `String.value` (a `char[]`), when the class has
/// the field.
fn value_field(m: &Method) -> Option<u32> {
    m.class
        .fields
        .iter()
        .find(|f| &*f.name == "value" && &*f.descriptor == "[C" && f.kind == Kind::Ref && !f.is_static())
        .map(|f| f.offset)
}

/// Whether `m` is `java.lang.String.indexOf(int, int)` of a final `String`
/// whose characters are a `char[]` field `value`.
pub fn is_string_index_of(m: &Method) -> bool {
    &*m.name == "indexOf"
        && &*m.descriptor == "(II)I"
        && &*m.class.name == "java/lang/String"
        && m.class.flags & crate::classfile::access::FINAL != 0
        && !m.is_static()
        && value_field(m).is_some()
}

/// The lanes' low bits and high bits in a word of four code units.
const LOW_BITS: u64 = 0x0001_0001_0001_0001;
const HIGH_BITS: u64 = 0x8000_8000_8000_8000;

/// Code units compared in one step of the vector scan (one 128-bit
/// register, SSE2: the x86-64 baseline).
#[cfg(target_arch = "x86_64")]
const VECTOR: usize = 8;

/// The first index `i >= from` of `s` with `s[i] == unit`, or `None`:
/// eight code units a step with SSE2's 16-bit compare and byte mask
/// (`pcmpeqw`, `pmovmskb`: the shape of C2's `string_indexof_char`, which
/// takes 8 or 16 chars a step), then the word scan below for the last
/// seven (out of line there, so that the vector loop's caller keeps few
/// registers and saves none).
#[cfg(target_arch = "x86_64")]
#[inline]
fn find_unit(s: &[u16], from: usize, unit: u16) -> Option<usize> {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi16};
    let rest = s.get(from..)?;
    let mut i = 0;
    // SAFETY: SSE2 is part of x86-64; each load reads the eight code
    // units `rest[i..i + 8]`, inside the slice (the loop's test), and
    // `_mm_loadu_si128` takes any alignment.
    unsafe {
        let pattern = _mm_set1_epi16(unit as i16);
        while i + VECTOR <= rest.len() {
            let v = _mm_loadu_si128(rest.as_ptr().add(i).cast::<__m128i>());
            // Two mask bits a lane: the lowest set one's index / 2 is the
            // first lane equal to `unit`.
            let hits = _mm_movemask_epi8(_mm_cmpeq_epi16(v, pattern)) as u32;
            if hits != 0 {
                return Some(from + i + (hits.trailing_zeros() / 2) as usize);
            }
            i += VECTOR;
        }
    }
    find_unit_words(s, from + i, unit)
}

/// [`find_unit_words`] where no vector scan is written (AArch64 and the
/// rest).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn find_unit(s: &[u16], from: usize, unit: u16) -> Option<usize> {
    find_unit_words(s, from, unit)
}

/// The first index `i >= from` of `s` with `s[i] == unit`, or `None`.
///
/// Four code units a step in one 64-bit word (SWAR): `x = w ^ (unit *
/// LOW_BITS)` has a zero lane exactly where `w` holds `unit`, and
/// `(x - LOW_BITS) & !x & HIGH_BITS` sets the high bit of the lowest zero
/// lane (a borrow only runs upwards from a zero lane, so lanes above the
/// first zero may be marked wrongly, never those below): its trailing
/// zeros / 16 are the hit's lane (the "haszero" test of Anderson's Bit
/// Twiddling Hacks, the word scan of glibc's generic `memchr`).
#[cfg_attr(target_arch = "x86_64", inline(never))]
fn find_unit_words(s: &[u16], from: usize, unit: u16) -> Option<usize> {
    let rest = s.get(from..)?;
    let pattern = u64::from(unit) * LOW_BITS;
    let mut steps = rest.chunks_exact(STEP);
    let mut base = from;
    for c in &mut steps {
        let w = u64::from(c[0]) | u64::from(c[1]) << 16 | u64::from(c[2]) << 32 | u64::from(c[3]) << 48;
        let x = w ^ pattern;
        let hit = x.wrapping_sub(LOW_BITS) & !x & HIGH_BITS;
        if hit != 0 {
            return Some(base + (hit.trailing_zeros() / 16) as usize);
        }
        base += STEP;
    }
    steps
        .remainder()
        .iter()
        .position(|&x| x == unit)
        .map(|k| base + k)
}

/// `String.indexOf(ch, from)` over the `len` code units at `chars` (the
/// module comment's rules).
///
/// # Safety
///
/// `chars` is aligned and readable for `len` code units (a `char[]`'s
/// elements).
pub unsafe extern "C" fn string_index_of(chars: *const u16, len: usize, from: i64, ch: i64) -> i32 {
    // SAFETY: the caller's contract.
    let s = unsafe { std::slice::from_raw_parts(chars, len) };
    // `from` and `ch` are Java ints, passed sign-extended.
    let from = from.max(0) as usize;
    let found = if (0..MIN_SUPPLEMENTARY).contains(&ch) {
        find_unit(s, from, ch as u16)
    } else {
        find_code_point(s, from, ch)
    };
    // A char[]'s length is below 2^31, so an index fits an i32.
    found.map_or(-1, |i| i as i32)
}

/// [`string_index_of`] for a `ch` that is not one code unit: a valid
/// supplementary code point's surrogate pair, or nothing. Out of line, so
/// that the common search keeps few registers (no saves in its prologue).
#[cold]
#[inline(never)]
fn find_code_point(s: &[u16], from: usize, ch: i64) -> Option<usize> {
    if !(MIN_SUPPLEMENTARY..=MAX_CODE_POINT).contains(&ch) {
        return None;
    }
    // Character.highSurrogate and lowSurrogate.
    let high = (((ch - MIN_SUPPLEMENTARY) >> 10) + 0xd800) as u16;
    let low = ((ch & 0x3ff) + 0xdc00) as u16;
    let mut at = from;
    loop {
        match find_unit(s, at, high) {
            Some(i) if s.get(i + 1) == Some(&low) => break Some(i),
            Some(i) => at = i + 1,
            None => break None,
        }
    }
}

impl Translator<'_, '_> {
    /// `String.indexOf(ch, fromIndex)` with its receiver and arguments on
    /// the operand stack, by `dispatch` (statically bound: `String` is
    /// final): the module comment's null check, load and leaf call; the
    /// method's call from a cold block when `value` is null. Leaves the
    /// index on the stack.
    pub(super) fn string_index_of(
        &mut self,
        dispatch: Dispatch,
        m: &'static Method,
    ) -> Result<(), Unsupported> {
        let value_ref = value_field(m).expect("is_string_index_of found the field");
        let from = self.pop_v();
        let ch = self.pop_v();
        let recv = self.pop_v();
        // The receiver's check reports the instruction's entry state.
        for k in [K::R, K::I, K::I] {
            self.s.stack.push(k);
        }
        self.null_check(recv);
        for _ in 0..3 {
            self.s.stack.pop();
        }
        let (set, slow, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let result = self.b.append_block_param(done, I32);
        let value = self.load_ref_field(recv, m.class, i64::from(value_ref), false);
        self.b.ins().brif(value, set, &[], slow, &[]);

        self.b.switch_to_block(set);
        self.b.seal_block(set);
        let chars = self.resolve_read(value);
        let (first, len) = self.prim_array_span(chars);
        let ch64 = self.b.ins().sextend(I64, ch);
        let from64 = self.b.ins().sextend(I64, from);
        let routine = string_index_of as unsafe extern "C" fn(*const u16, usize, i64, i64) -> i32;
        let i = self
            .call_leaf(routine as usize, &[first, len, from64, ch64], true)
            .expect("string_index_of returns the index");
        self.b.ins().jump(done, &[i.into()]);

        self.intrinsic_fallback(
            slow,
            &[(K::R, recv), (K::I, ch), (K::I, from)],
            dispatch,
            m,
            done,
            result,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The class library's `String.indexOf(int, int)`, written as it is.
    fn library(s: &[u16], ch: i32, from: i32) -> i32 {
        let from = from.max(0) as usize;
        if ch < 0x1_0000 {
            return (from..s.len())
                .find(|&i| i32::from(s[i]) == ch)
                .map_or(-1, |i| i as i32);
        }
        if ch > 0x10_ffff {
            return -1;
        }
        let c = char::from_u32(ch as u32).expect("a supplementary code point");
        let mut pair = [0u16; 2];
        c.encode_utf16(&mut pair);
        (from..s.len().saturating_sub(1))
            .find(|&i| s[i] == pair[0] && s[i + 1] == pair[1])
            .map_or(-1, |i| i as i32)
    }

    fn leaf(s: &[u16], ch: i32, from: i32) -> i32 {
        // SAFETY: `s` is a live slice of `s.len()` code units.
        unsafe { string_index_of(s.as_ptr(), s.len(), i64::from(from), i64::from(ch)) }
    }

    #[test]
    fn leaf_agrees_with_the_library() {
        let smile: Vec<u16> = "😀".encode_utf16().collect();
        let mut texts: Vec<Vec<u16>> = vec![Vec::new()];
        // Every length around the step, the sought unit at every place.
        for n in 0..=3 * STEP.max(8) + 1 {
            let base: Vec<u16> = (0..n).map(|i| b'a' as u16 + (i % 7) as u16).collect();
            for at in 0..n {
                let mut t = base.clone();
                t[at] = u16::from(b',');
                texts.push(t);
            }
            texts.push(base);
        }
        // Surrogates: a lone high one before the pair, a pair split at the
        // end, a pair at each end.
        let mut t: Vec<u16> = "x".encode_utf16().collect();
        t.push(smile[0]);
        t.extend("abcdefghij".encode_utf16());
        t.extend(&smile);
        t.push(smile[0]);
        texts.push(t);
        let mut t = smile.clone();
        t.extend("0123456789".encode_utf16());
        t.extend(&smile);
        texts.push(t);

        let chars = [
            i32::from(b','),
            i32::from(b'a'),
            i32::from(b'g'),
            0,
            -1,
            i32::MIN,
            i32::from(smile[0]),
            i32::from(smile[1]),
            0x1f600,
            0x1f601,
            0x10_ffff,
            0x11_0000,
            i32::MAX,
            0xffff,
        ];
        for s in &texts {
            for &ch in &chars {
                for from in [i32::MIN, -1, 0, 1, 2, 7, 8, 9, 16, 25, 26, 1000, i32::MAX] {
                    assert_eq!(
                        leaf(s, ch, from),
                        library(s, ch, from),
                        "indexOf({ch:#x}, {from}) in {s:?}"
                    );
                }
            }
        }
        let abc: Vec<u16> = "12,name-12,c,12".encode_utf16().collect();
        assert_eq!(leaf(&abc, i32::from(b','), 0), 2);
        assert_eq!(leaf(&abc, i32::from(b','), 3), 10);
        assert_eq!(leaf(&abc, i32::from(b','), 13), -1);
    }
}

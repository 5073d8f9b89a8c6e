//! The `Integer.getChars` intrinsic: the class library's package-private
//! `Integer.getChars(int i, int index, char[] buf)` (the decimal text of
//! `i` written to end just before `buf[index]`, returning where it starts;
//! what `StringBuilder.append(int)`, `Integer.toString(int)` and a string
//! concatenation's `int` arguments use) compiled as a leaf call of
//! [`integer_get_chars`], which writes two digits a step from a table.
//!
//! Where it sits: the translator (`translate.rs`) asks [`is_integer_get_chars`]
//! at each `invokestatic` and, for this method, emits
//! `Translator::integer_get_chars` instead of the call. The class library's
//! method (`classlib/java/lang/Integer.java`) stays the semantic reference
//! and what the interpreter runs.
//!
//! The inline part: `buf` non-null (a fact already proven skips the test),
//! its copy to write (`resolve_write`, as an array store) and length; the
//! leaf checks that the text's chars `[index - n, index)` lie in the array
//! (`0 <= index - n` and `index <= length`) before it writes anything, and
//! returns -1 when they do not. A null `buf` or a refusal calls the method
//! itself from a cold block, which throws where and as the method throws
//! (its stores before the failing one included). The leaf neither
//! allocates nor reaches a safepoint, so no frame is written and no
//! reference reloaded around it (as `conjoint_copy`'s call). Each char is
//! written whole, with the value the method writes there.
//!
//! Why: the method's compiled code checks `buf`'s null-ness and every
//! store's index against a reloaded length (its stores' indices count
//! down, which nothing proves in range), and every caller pays a Java
//! call (frame, spills) for it; GcStrings formats four numbers a record.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData};

use super::layout::{ELEMENTS, LENGTH_WORD, REFS};
use super::ops::{Dispatch, K};
use super::translate::{Translator, Unsupported};
use crate::link::Method;

/// Whether `m` is `java.lang.Integer.getChars(int, int, char[])` (static).
pub fn is_integer_get_chars(m: &Method) -> bool {
    &*m.name == "getChars"
        && &*m.descriptor == "(II[C)I"
        && &*m.class.name == "java/lang/Integer"
        && m.is_static()
}

/// The two-digit pairs "00" to "99" as UTF-16 code-unit pairs, tens first:
/// each written by one 32-bit store.
const PAIRS: [[u16; 2]; 100] = {
    let mut t = [[0u16; 2]; 100];
    let mut r = 0;
    while r < 100 {
        t[r] = [b'0' as u16 + (r / 10) as u16, b'0' as u16 + (r % 10) as u16];
        r += 1;
    }
    t
};

/// `10^k` for `k` in `0..10`.
const POW10: [u32; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// The number of decimal digits of `v`: `floor(log10(v)) + 1`, estimated
/// from the bit length (log10 2 ≈ 1233 / 4096) and corrected by one
/// comparison with a power of ten ("Bit Twiddling Hacks", integer log base
/// 10), where a loop of divisions takes one step a digit. `v | 1` has
/// `v`'s digits (a power of ten from 10 up is even) and makes 0 count one.
#[inline]
fn digit_count(v: u32) -> i32 {
    let v = v | 1;
    let bits = 32 - v.leading_zeros();
    let t = (bits * 1233) >> 12;
    t as i32 + 1 - i32::from(v < POW10[t as usize])
}

/// The number of chars of `i`'s decimal text, its sign included.
fn text_len(i: i32) -> i32 {
    digit_count(i.unsigned_abs()) + i32::from(i < 0)
}

/// `Integer.getChars(i, index, buf)` for a `buf` of `len` chars at
/// `chars`: writes `i`'s decimal text to end just before `index` and
/// returns where it starts, or returns -1 having written nothing when the
/// text would not lie within `[0, len)`.
///
/// # Safety
///
/// `chars` is writable for `len` code units (a `char[]`'s elements, its
/// copy to write), `len >= 0`.
pub unsafe extern "C" fn integer_get_chars(i: i64, index: i64, len: i64, chars: *mut u16) -> i32 {
    let (i, index, len) = (i as i32, index as i32, len as i32);
    let n = text_len(i);
    if index > len || index < n {
        return -1;
    }
    let start = index - n;
    let mut pos = index as usize;
    let mut v = i.unsigned_abs();
    // SAFETY: every index written is in `[start, index)`, which the test
    // above put within `[0, len)`, writable by the caller's contract; a
    // pair's store is unaligned-safe (`write_unaligned`).
    unsafe {
        while v >= 100 {
            let r = (v % 100) as usize;
            v /= 100;
            pos -= 2;
            chars.add(pos).cast::<[u16; 2]>().write_unaligned(PAIRS[r]);
        }
        if v >= 10 {
            pos -= 2;
            chars
                .add(pos)
                .cast::<[u16; 2]>()
                .write_unaligned(PAIRS[v as usize]);
        } else {
            pos -= 1;
            chars.add(pos).write(u16::from(b'0') + v as u16);
        }
        if i < 0 {
            pos -= 1;
            chars.add(pos).write(u16::from(b'-'));
        }
    }
    debug_assert_eq!(pos as i32, start);
    start
}

impl Translator<'_, '_> {
    /// `Integer.getChars(i, index, buf)` with its three arguments on the
    /// operand stack: the module comment's form. Leaves the start index on
    /// the stack.
    pub(super) fn integer_get_chars(&mut self, m: &'static Method) -> Result<(), Unsupported> {
        // The call's class initialization (`Integer`'s), with the
        // arguments still on the stack.
        self.init_check(m.class);
        let buf = self.pop_v();
        let index = self.pop_v();
        let i = self.pop_v();
        let (slow, done) = (self.b.create_block(), self.b.create_block());
        let result = self.b.append_block_param(done, I32);

        let key = self.key(buf);
        if !self.facts().nonnull.contains(&key) {
            self.continue_if(buf, slow);
            self.facts().nonnull.insert(key);
        }
        let zero = self.b.ins().iconst(I64, 0);
        let (rd, _) = self.resolve_write(buf, zero);
        let ro = MemFlagsData::trusted().with_readonly();
        let len = self.b.ins().load(I32, ro, rd, REFS + LENGTH_WORD);
        let chars = self.b.ins().iadd_imm_s(rd, i64::from(REFS + ELEMENTS));
        let args = [
            self.b.ins().sextend(I64, i),
            self.b.ins().sextend(I64, index),
            self.b.ins().sextend(I64, len),
            chars,
        ];
        let routine = integer_get_chars as unsafe extern "C" fn(i64, i64, i64, *mut u16) -> i32;
        let start = self
            .call_leaf(routine as usize, &args, true)
            .expect("integer_get_chars returns the start");
        let ok = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, start, 0);
        self.b.ins().brif(ok, done, &[start.into()], slow, &[]);

        // The method itself, which throws as it does.
        let args = [(K::I, i), (K::I, index), (K::R, buf)];
        self.intrinsic_fallback(slow, &args, Dispatch::Static, m, done, result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The class library's method, in Rust: the text as `i32::to_string`,
    /// written to end before `index`, or `None` where the method throws.
    fn library(i: i32, index: i32, buf: &mut [u16]) -> Option<i32> {
        let text: Vec<u16> = i.to_string().encode_utf16().collect();
        let start = index.checked_sub(text.len() as i32)?;
        if start < 0 || index as usize > buf.len() {
            return None;
        }
        buf[start as usize..index as usize].copy_from_slice(&text);
        Some(start)
    }

    #[test]
    fn digit_count_is_the_decimal_length() {
        let mut v: u64 = 1;
        while v <= u64::from(u32::MAX) {
            for w in [v - 1, v, v + 1, 2 * v - 1, 5 * v, 9 * v] {
                if let Ok(w) = u32::try_from(w) {
                    assert_eq!(digit_count(w) as usize, w.to_string().len(), "{w}");
                }
            }
            v *= 10;
        }
        for b in 0..32 {
            for w in [1u32 << b, (1u32 << b) - 1, (1u32 << b).wrapping_add(1)] {
                assert_eq!(digit_count(w) as usize, w.to_string().len(), "{w}");
            }
        }
        assert_eq!(digit_count(u32::MAX), 10);
    }

    #[test]
    fn leaf_writes_what_the_library_writes() {
        let mut values = vec![0, 1, -1, 9, 10, -10, 99, 100, i32::MAX, i32::MIN, i32::MIN + 1];
        let mut p: i64 = 1;
        while p <= i64::from(i32::MAX) * 10 {
            for d in [-1, 0, 1] {
                for s in [1, -1] {
                    if let Ok(v) = i32::try_from(s * (p + d)) {
                        values.push(v);
                    }
                }
            }
            p *= 10;
        }
        for &v in &values {
            for len in [0usize, 1, 5, 11, 12, 20] {
                for index in [-1, 0, 1, 5, 10, 11, 12, 20, 21] {
                    let (mut a, mut b) = (vec![0xabcd_u16; len], vec![0xabcd_u16; len]);
                    let want = library(v, index, &mut a);
                    // SAFETY: `b` has `len` writable chars.
                    let got = unsafe {
                        integer_get_chars(i64::from(v), i64::from(index), len as i64, b.as_mut_ptr())
                    };
                    match want {
                        Some(s) => assert_eq!(got, s, "getChars({v}, {index}) in {len}"),
                        None => assert_eq!(got, -1, "getChars({v}, {index}) in {len} refused"),
                    }
                    if want.is_some() {
                        assert_eq!(a, b, "getChars({v}, {index}) in {len}");
                    } else {
                        assert!(b.iter().all(|&c| c == 0xabcd), "a refusal writes nothing");
                    }
                }
            }
        }
    }
}

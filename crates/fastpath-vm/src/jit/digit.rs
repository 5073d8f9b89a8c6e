//! The `Character.digit` intrinsic: `Character.digit(char, int)` and
//! `Character.digit(int, int)` compiled as inline arithmetic for an ASCII
//! code point, a leaf call of [`character_digit`] for any other.
//!
//! Where it sits: the translator (`translate.rs`) asks [`is_character_digit`]
//! at each `invokestatic` and, for one of the two methods, emits
//! `Translator::character_digit` instead of the call. The interpreter keeps
//! the class library's methods (`classlib/java/lang/Character.java`), the
//! semantic reference: `digit(char, radix)` answers a decimal digit and
//! otherwise calls `digit(int, radix)`, which returns -1 for a radix outside
//! `[MIN_RADIX, MAX_RADIX]`, the value of `0-9`, `a-z`, `A-Z` (10 to 35) or,
//! above 127, of the native `digit0`, and -1 unless that value is below the
//! radix. Both are pure functions of their arguments, so a call is replaced
//! by the function's value with no frame, safepoint or memory effect.
//!
//! Why an intrinsic: `Integer.parseInt`'s loop calls `Character.digit(char,
//! int)` once per character; inlined, its general path is a call of
//! `digit(int, int)` (one level deeper than the inliner's depth for
//! `parseInt(String)` callers, and a call it would keep for every hex
//! letter), and that call, a safepoint, makes the loop spill its values and
//! forget what it knew of the string. HotSpot reaches the same straight
//! code by inlining `CharacterDataLatin1.digit`, a table lookup
//! (`java.base/share/classes/java/lang/CharacterDataLatin1.java.template`,
//! `Integer.parseInt` in `Integer.java`); C2 has no intrinsic for it.
//!
//! The inline form: first the class library's fast path, `cp - '0'` when
//! it is below 10 and below `radix` and `radix` is valid (three compares
//! and branches); then, for `cp` at most 127 (an unsigned compare, so a
//! negative `int` code point takes the leaf call), without branches:
//! `d = cp - '0'` when below 10, else `(cp | 0x20) - 'a' + 10` when
//! `(cp | 0x20) - 'a'` is below 26 (`| 0x20` maps exactly `A-Z` onto `a-z`
//! among code points 0..=127), else 36 (no radix exceeds 36); the result is
//! `d` when `radix - 2` is at most 34 (unsigned) and `d` is below `radix`
//! (unsigned), else -1.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::InstBuilder;

use super::ops::K;
use super::translate::{Translator, Unsupported};
use crate::link::Method;

/// `Character.MIN_RADIX` and `Character.MAX_RADIX`.
const MIN_RADIX: i32 = 2;
const MAX_RADIX: i32 = 36;

/// Whether `m` is `java.lang.Character.digit(char, int)` or
/// `java.lang.Character.digit(int, int)` (both static).
pub fn is_character_digit(m: &Method) -> bool {
    &*m.name == "digit"
        && matches!(&*m.descriptor, "(CI)I" | "(II)I")
        && &*m.class.name == "java/lang/Character"
        && m.is_static()
}

/// `Character.digit(cp, radix)` (the class library's `digit(int, int)`) for
/// any code point: the leaf compiled code calls for one above 127.
pub extern "C" fn character_digit(cp: i64, radix: i64) -> i32 {
    let (cp, radix) = (cp as i32, radix as i32);
    if !(MIN_RADIX..=MAX_RADIX).contains(&radix) {
        return -1;
    }
    let d = match cp {
        0x30..=0x39 => cp - 0x30,
        0x61..=0x7a => cp - 0x61 + 10,
        0x41..=0x5a => cp - 0x41 + 10,
        128.. => crate::runtime::natives::misc::digit0(cp),
        _ => -1,
    };
    if d >= 0 && d < radix {
        d
    } else {
        -1
    }
}

impl Translator<'_, '_> {
    /// `Character.digit(cp, radix)` with its two arguments on the operand
    /// stack: the module comment's inline form for `cp <= 127`, the leaf
    /// call of [`character_digit`] from a cold block otherwise. Leaves the
    /// digit (or -1) on the stack.
    pub(super) fn character_digit(&mut self, m: &'static Method) -> Result<(), Unsupported> {
        // The call's class initialization (`Character`'s), with the
        // arguments still on the stack.
        self.init_check(m.class);
        let radix = self.pop_v();
        let cp = self.pop_v();
        let (general, ascii, wide, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let result = self.b.append_block_param(done, I32);

        // A decimal digit below a valid radix: three compares and branches
        // (the class library's `digit(char, int)` fast path).
        let decimal = self.b.ins().iadd_imm_s(cp, -i64::from(b'0'));
        let from_min = self.b.ins().iadd_imm_s(radix, -i64::from(MIN_RADIX));
        let (below_radix, radix_valid) = (self.b.create_block(), self.b.create_block());
        let is_decimal = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, decimal, 10);
        self.b.ins().brif(is_decimal, below_radix, &[], general, &[]);
        self.b.switch_to_block(below_radix);
        self.b.seal_block(below_radix);
        let below = self.b.ins().icmp(IntCC::SignedLessThan, decimal, radix);
        self.b.ins().brif(below, radix_valid, &[], general, &[]);
        self.b.switch_to_block(radix_valid);
        self.b.seal_block(radix_valid);
        let valid = self.b.ins().icmp_imm_u(
            IntCC::UnsignedLessThanOrEqual,
            from_min,
            i64::from(MAX_RADIX - MIN_RADIX),
        );
        self.b.ins().brif(valid, done, &[decimal.into()], general, &[]);

        // Anything else: an ASCII code point inline, branch-free (a decimal
        // digit here is one the radix refuses); a wider one by the leaf call.
        self.b.switch_to_block(general);
        self.b.seal_block(general);
        let above = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, cp, 127);
        self.b.ins().brif(above, wide, &[], ascii, &[]);

        self.b.switch_to_block(ascii);
        self.b.seal_block(ascii);
        let folded = self.b.ins().bor_imm_u(cp, 0x20);
        let letter = self.b.ins().iadd_imm_s(folded, -i64::from(b'a'));
        let is_letter = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, letter, 26);
        let letter_value = self.b.ins().iadd_imm_s(letter, 10);
        let none = self.b.ins().iconst(I32, i64::from(MAX_RADIX));
        let other = self.b.ins().select(is_letter, letter_value, none);
        let d = self.b.ins().select(is_decimal, decimal, other);
        let valid = self.b.ins().icmp_imm_u(
            IntCC::UnsignedLessThanOrEqual,
            from_min,
            i64::from(MAX_RADIX - MIN_RADIX),
        );
        let below = self.b.ins().icmp(IntCC::UnsignedLessThan, d, radix);
        let ok = self.b.ins().band(valid, below);
        let minus_one = self.b.ins().iconst(I32, -1);
        let v = self.b.ins().select(ok, d, minus_one);
        self.b.ins().jump(done, &[v.into()]);

        self.b.set_cold_block(wide);
        self.b.switch_to_block(wide);
        self.b.seal_block(wide);
        let cp64 = self.b.ins().sextend(I64, cp);
        let radix64 = self.b.ins().sextend(I64, radix);
        let routine = character_digit as extern "C" fn(i64, i64) -> i32;
        let w = self
            .call_leaf(routine as usize, &[cp64, radix64], true)
            .expect("character_digit returns the digit");
        self.b.ins().jump(done, &[w.into()]);

        self.b.switch_to_block(done);
        self.b.seal_block(done);
        self.push(K::I, result);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The class library's `Character.digit(int, int)`, written as it is.
    fn library(cp: i32, radix: i32) -> i32 {
        if !(MIN_RADIX..=MAX_RADIX).contains(&radix) {
            return -1;
        }
        let d = if (0x30..=0x39).contains(&cp) {
            cp - 0x30
        } else if (0x61..=0x7a).contains(&cp) {
            cp - 0x61 + 10
        } else if (0x41..=0x5a).contains(&cp) {
            cp - 0x41 + 10
        } else if cp > 127 {
            crate::runtime::natives::misc::digit0(cp)
        } else {
            -1
        };
        if d >= 0 && d < radix {
            d
        } else {
            -1
        }
    }

    /// The inline form of the module comment, in Rust's arithmetic.
    fn inline(cp: i32, radix: i32) -> i32 {
        let decimal = cp.wrapping_sub(0x30);
        let valid = (radix.wrapping_sub(MIN_RADIX) as u32) <= (MAX_RADIX - MIN_RADIX) as u32;
        if (decimal as u32) < 10 && decimal < radix && valid {
            return decimal;
        }
        if cp as u32 > 127 {
            return character_digit(i64::from(cp), i64::from(radix));
        }
        let letter = (cp | 0x20).wrapping_sub(0x61);
        let d = if (decimal as u32) < 10 {
            decimal
        } else if (letter as u32) < 26 {
            letter + 10
        } else {
            MAX_RADIX
        };
        if valid && (d as u32) < (radix as u32) {
            d
        } else {
            -1
        }
    }

    #[test]
    fn inline_form_and_leaf_agree_with_the_library() {
        let radixes = [i32::MIN, -1, 0, 1, 2, 8, 10, 11, 16, 35, 36, 37, 1000, i32::MAX];
        let points = (-3..=0x700).chain([0xff10, 0xff19, 0xff21, 0x10ffff, 0x110000, i32::MIN, i32::MAX]);
        for cp in points {
            for &r in &radixes {
                assert_eq!(inline(cp, r), library(cp, r), "digit({cp:#x}, {r})");
            }
        }
        assert_eq!(inline('f' as i32, 16), 15);
        assert_eq!(inline('G' as i32, 16), -1);
        assert_eq!(inline('Z' as i32, 36), 35);
        assert_eq!(inline('9' as i32, 9), -1);
        assert_eq!(inline('@' as i32, 36), -1);
        assert_eq!(inline('[' as i32, 36), -1);
    }
}

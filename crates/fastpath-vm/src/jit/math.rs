//! Methods that are one machine operation or two: `Math.sqrt` and
//! `StrictMath.sqrt` (`sqrtsd`), and the raw bit moves between `double`
//! and `long`, `float` and `int` (`Double.doubleToRawLongBits`,
//! `Double.longBitsToDouble`, `Float.floatToRawIntBits`,
//! `Float.intBitsToFloat`), which compiled code computes inline instead
//! of calling the native through the `Invoke` helper and the interpreter's
//! native dispatch.
//!
//! Where it sits: the translator (`translate.rs`) asks [`unary`] at each
//! `invokestatic`; for one of these methods it emits
//! `Translator::unary_native` in place of the call. The natives
//! (`runtime/natives/numbers.rs`) stay the semantic reference and what the
//! interpreter runs: `f64::sqrt` is IEEE 754's correctly rounded square
//! root, which is what `sqrtsd` computes and what Java specifies for both
//! `Math.sqrt` and `StrictMath.sqrt`; the raw bit moves copy the bits
//! unchanged (a NaN's payload included), as the natives return the slot
//! as it is. HotSpot's C2 intrinsifies the same methods
//! (`vmIntrinsics::_dsqrt`, `_doubleToRawLongBits`, `_longBitsToDouble`,
//! `_floatToRawIntBits`, `_intBitsToFloat`; `library_call.cpp`).
//!
//!
//! The bit counts of `Integer` and `Long` (`numberOfLeadingZeros`,
//! `numberOfTrailingZeros`, `bitCount`) are Java methods of the class
//! library, not natives, and are replaced the same way by Cranelift's
//! `clz`, `ctz` and `popcnt` (C2's `_numberOfLeadingZeros_i` and the
//! others): each is defined for every input, 0 included (32 or 64 zeros),
//! as the Java methods are; a `long`'s count is narrowed to the `int`
//! the method returns. The Java bodies stay what the interpreter runs.
//!
//! `Math.abs`, `Math.min` and `Math.max` of `int` and `long` (and
//! `StrictMath`'s) are Java methods too (`(a < 0) ? -a : a`, `(a <= b) ? a
//! : b`, `(a >= b) ? a : b`), replaced by Cranelift's `iabs`, `smin` and
//! `smax`, which x86-64 computes without a branch (a `neg` or `cmp` and a
//! `cmov`), as C2's `_iabs`, `_labs`, `_min` and `_max` intrinsics do: the
//! methods' branches on data-dependent signs mispredict (Queens' `valid`,
//! `Math.abs` of a row difference whose sign is either, ran 10 % of its
//! time faster with a branch-free form on Sapphire Rapids). `iabs` wraps
//! as Java's negation does: the minimum is its own absolute value.
//!
//! Invariants: none of these can throw, allocate or reach a safepoint, so
//! the inline form has no frame, no spill and no facts to forget; the
//! class's initialization check is the call's.

use cranelift_codegen::ir::types::{F32, F64, I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData};

use super::ops::K;
use super::translate::Translator;
use crate::link::Method;

/// The operation a [`unary`] native is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    /// `Math.sqrt(D)D`, `StrictMath.sqrt(D)D`.
    Sqrt,
    /// `Double.doubleToRawLongBits(D)J`.
    DoubleBits,
    /// `Double.longBitsToDouble(J)D`.
    BitsDouble,
    /// `Float.floatToRawIntBits(F)I`.
    FloatBits,
    /// `Float.intBitsToFloat(I)F`.
    BitsFloat,
    /// `Integer.numberOfLeadingZeros(I)I`, `Long.numberOfLeadingZeros(J)I`.
    LeadingZeros,
    /// `Integer.numberOfTrailingZeros(I)I`, `Long.numberOfTrailingZeros(J)I`.
    TrailingZeros,
    /// `Integer.bitCount(I)I`, `Long.bitCount(J)I`.
    BitCount,
    /// `Math.abs(I)I`, `Math.abs(J)J` (and `StrictMath`'s).
    Abs,
}

/// The operation a [`binary`] method is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `Math.min(II)I`, `Math.min(JJ)J` (and `StrictMath`'s).
    Min,
    /// `Math.max(II)I`, `Math.max(JJ)J` (and `StrictMath`'s).
    Max,
}

/// Whether `m` is a static method of `Math` or `StrictMath` named `name`
/// of an `int` or a `long` with `desc_int` or `desc_long`.
fn math_method(m: &Method, name: &str, desc_int: &str, desc_long: &str) -> bool {
    m.is_static()
        && !m.is_native()
        && matches!(&*m.class.name, "java/lang/Math" | "java/lang/StrictMath")
        && &*m.name == name
        && (&*m.descriptor == desc_int || &*m.descriptor == desc_long)
}

/// The stack kind of what `m` returns (`abs`, `min` and `max` return their
/// operands' kind, `int` or `long`).
fn result_kind(m: &Method) -> K {
    K::of_type(m.desc.ret.as_ref().expect("abs, min and max return a value"))
}

/// The inline operation of the two-operand static method `m`, if it is
/// one of this file's.
pub fn binary(m: &Method) -> Option<Binary> {
    if math_method(m, "min", "(II)I", "(JJ)J") {
        Some(Binary::Min)
    } else if math_method(m, "max", "(II)I", "(JJ)J") {
        Some(Binary::Max)
    } else {
        None
    }
}

/// The bit count the static method `m` of `Integer` or `Long` is, if it
/// is one (Java methods of the class library, replaced as the natives are).
fn bit_count(m: &Method) -> Option<Unary> {
    if !m.is_static() {
        return None;
    }
    let (class, name, desc) = (&*m.class.name, &*m.name, &*m.descriptor);
    Some(match (class, name, desc) {
        ("java/lang/Integer", _, "(I)I") | ("java/lang/Long", _, "(J)I") => match name {
            "numberOfLeadingZeros" => Unary::LeadingZeros,
            "numberOfTrailingZeros" => Unary::TrailingZeros,
            "bitCount" => Unary::BitCount,
            _ => return None,
        },
        _ => return None,
    })
}

/// The inline operation of the native static method `m`, if it is one
/// of this file's.
pub fn unary(m: &Method) -> Option<Unary> {
    if math_method(m, "abs", "(I)I", "(J)J") {
        return Some(Unary::Abs);
    }
    if !m.is_native() || !m.is_static() {
        return bit_count(m);
    }
    let (class, name, desc) = (&*m.class.name, &*m.name, &*m.descriptor);
    Some(match (class, name, desc) {
        ("java/lang/Math" | "java/lang/StrictMath", "sqrt", "(D)D") => Unary::Sqrt,
        ("java/lang/Double", "doubleToRawLongBits", "(D)J") => Unary::DoubleBits,
        ("java/lang/Double", "longBitsToDouble", "(J)D") => Unary::BitsDouble,
        ("java/lang/Float", "floatToRawIntBits", "(F)I") => Unary::FloatBits,
        ("java/lang/Float", "intBitsToFloat", "(I)F") => Unary::BitsFloat,
        _ => return None,
    })
}

impl Translator<'_, '_> {
    /// `op` on the operand on the stack, in place of the call of `m`.
    pub(super) fn unary_native(&mut self, m: &'static Method, op: Unary) {
        // The call's class initialization, with the argument on the stack.
        self.init_check(m.class);
        let a = self.pop_v();
        let bits = MemFlagsData::new();
        let (k, v) = match op {
            Unary::Sqrt => (K::D, self.b.ins().sqrt(a)),
            Unary::DoubleBits => (K::J, self.b.ins().bitcast(I64, bits, a)),
            Unary::BitsDouble => (K::D, self.b.ins().bitcast(F64, bits, a)),
            Unary::FloatBits => (K::I, self.b.ins().bitcast(I32, bits, a)),
            Unary::BitsFloat => (K::F, self.b.ins().bitcast(F32, bits, a)),
            Unary::LeadingZeros | Unary::TrailingZeros | Unary::BitCount => {
                let n = match op {
                    Unary::LeadingZeros => self.b.ins().clz(a),
                    Unary::TrailingZeros => self.b.ins().ctz(a),
                    _ => self.b.ins().popcnt(a),
                };
                let n = if self.b.func.dfg.value_type(n) == I64 {
                    self.b.ins().ireduce(I32, n)
                } else {
                    n
                };
                (K::I, n)
            }
            Unary::Abs => (result_kind(m), self.b.ins().iabs(a)),
        };
        self.push(k, v);
    }

    /// `op` on the two operands on the stack, in place of the call of `m`.
    pub(super) fn binary_native(&mut self, m: &'static Method, op: Binary) {
        // The call's class initialization, with the arguments on the stack.
        self.init_check(m.class);
        let b = self.pop_v();
        let a = self.pop_v();
        let v = match op {
            Binary::Min => self.b.ins().smin(a, b),
            Binary::Max => self.b.ins().smax(a, b),
        };
        self.push(result_kind(m), v);
    }
}

//! Native methods that are one machine operation: `Math.sqrt` and
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
}

/// The inline operation of the native static method `m`, if it is one
/// of this file's.
pub fn unary(m: &Method) -> Option<Unary> {
    if !m.is_native() || !m.is_static() {
        return None;
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
        };
        self.push(k, v);
    }
}

//! A loop test `i < a.length` as a passed bounds check: on the edge of an
//! `if_icmp` where a non-negative `i` is below `len`, `i < len` holds
//! unsigned, which is what an array access's bounds check compares.
//!
//! Where it sits: `translate.rs` asks `Translator::index_below` at each
//! `if_icmp` and adds the pair it returns to the `in_bounds` facts
//! (`facts.rs`) of that one edge; `emit.rs`'s bounds check finds it there
//! when the access indexes the same array value with the same index value.
//! Non-negativity comes from the bytecode (`ranges.rs`,
//! `Proofs::nonneg_operands`), the rest from SSA values, so it covers the
//! arrays `ranges.rs` does not track: an array in a field
//! (`for (i = 0; i < this.v.length; i++) s += this.v[i];`), whose load in
//! the loop test the body reuses (`ref_fields`, carried to the branch's
//! fall-through) while nothing may write the field in between.
//!
//! Soundness: the fact names SSA values, not a field or a local. The
//! access skips its check only where its index is the compared value and
//! its array's length (`lengths`, keyed by the array value the access
//! reads) is the compared length, so the check removed is proven for the
//! array the access uses: a racing store to the field, a call or a
//! safepoint in between makes the body load the field again (a new value
//! with no length fact), and the check stays. This is C1's use of a
//! dominating comparison (Würthinger, Wimmer and Mössenböck, PPPJ 2007,
//! "conditions from branches"), restricted to the edge's own block and the
//! blocks it carries facts into.

use cranelift_codegen::ir::Value;

use super::translate::Translator;
use crate::interp::insn::Cond;

impl Translator<'_, '_> {
    /// For `if_icmp<c>` at the current instruction comparing `x` (the lower
    /// operand) with `y`: the edge (`true`: taken) on which one operand is
    /// proven `>= 0` and below the other, and the pair `(index, bound)`
    /// with `index < bound` unsigned there.
    pub(super) fn index_below(&self, c: Cond, x: Value, y: Value) -> Option<(bool, (Value, Value))> {
        let (x_nonneg, y_nonneg) = self.s.in_range.nonneg_operands(self.s.idx);
        // 0 <= x and x < y (signed): x < y unsigned, y > 0.
        let (taken, index, bound, index_nonneg) = match c {
            Cond::Lt => (true, x, y, x_nonneg),
            Cond::Ge => (false, x, y, x_nonneg),
            Cond::Gt => (true, y, x, y_nonneg),
            Cond::Le => (false, y, x, y_nonneg),
            Cond::Eq | Cond::Ne => return None,
        };
        index_nonneg.then(|| (taken, (self.key(index), self.key(bound))))
    }
}

//! Receiver-type profiles: the classes the interpreter saw at each
//! virtual and interface call of a method.
//!
//! Where it sits: `decode.rs` gives every decoded method a
//! [`Receivers`] table; the interpreter's dispatch loop (`exec.rs`)
//! records the receiver's class at each `invokevirtual` and
//! `invokeinterface` it runs through a vtable or itable (when a JIT
//! runs: nothing reads the table under `-Xint`); the JIT's
//! translator (`jit/translate.rs`, `profiled_candidates`) reads it when
//! it compiles the method, after the interpreter ran it, and inlines the
//! one or two classes' implementations behind guards where
//! class-hierarchy analysis (`jit/cha.rs`) finds too many to inline. The
//! profile is a guess, as CHA's answer is: compiled code checks the
//! receiver at each guard, and a miss makes the ordinary call.
//!
//! Each call site keeps two rows, as HotSpot's `ReceiverTypeData` keeps
//! `TypeProfileWidth` (2) receiver rows per call site
//! (`methodData.hpp`), without the counts: the first two distinct
//! classes seen, and [`MANY`] in the second row once a third one shows
//! up (a megamorphic site, which the translator leaves a call). A site
//! that sees one class costs the interpreter a load and a compare, a
//! bimorphic or megamorphic one two of each.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::Insn;
use crate::link::Class;

/// In a site's second row: a third class was seen.
pub const MANY: usize = 1;

/// What a call site's profile says.
#[derive(Clone, Copy, Debug)]
pub enum Seen {
    /// No receiver recorded (the site never ran in the interpreter).
    Nothing,
    /// Only these classes (one or two).
    Classes(&'static Class, Option<&'static Class>),
    /// More than two classes.
    Many,
}

/// Per instruction of a method, two receiver rows (empty when the method
/// has no dynamically dispatched call).
#[derive(Debug, Default)]
pub struct Receivers {
    rows: Box<[[AtomicUsize; 2]]>,
}

impl Receivers {
    /// The empty table for `insns`: a row pair per instruction when any
    /// of them is a virtual or interface call, none otherwise.
    pub fn for_insns(insns: &[Insn]) -> Self {
        let dynamic = insns
            .iter()
            .any(|i| matches!(i, Insn::InvokeVirtual { .. } | Insn::InvokeInterface { .. }));
        if !dynamic {
            return Self::default();
        }
        Self {
            rows: insns
                .iter()
                .map(|_| [AtomicUsize::new(0), AtomicUsize::new(0)])
                .collect(),
        }
    }

    /// Records `class` as a receiver of the call at instruction `idx`.
    #[inline]
    pub fn record(&self, idx: usize, class: &'static Class) {
        let Some(row) = self.rows.get(idx) else {
            return;
        };
        let c = class as *const Class as usize;
        // Relaxed: a heuristic; a lost or torn-between-rows update only
        // changes what the translator guesses, and every guess is checked
        // by the compiled code's guards.
        let first = row[0].load(Ordering::Relaxed);
        if first == c {
            return;
        }
        let second = row[1].load(Ordering::Relaxed);
        if second != c && second != MANY {
            Self::record_new(row, first, second, c);
        }
    }

    /// [`Self::record`] for a class neither row holds, at a site not yet
    /// megamorphic: fills the first empty row, or marks the site
    /// [`MANY`].
    #[cold]
    #[inline(never)]
    fn record_new(row: &[AtomicUsize; 2], first: usize, second: usize, c: usize) {
        // Relaxed: as in `record`.
        if first == 0 {
            row[0].store(c, Ordering::Relaxed);
        } else {
            row[1].store(if second == 0 { c } else { MANY }, Ordering::Relaxed);
        }
    }

    /// What the profile of the call at instruction `idx` says.
    pub fn seen(&self, idx: usize) -> Seen {
        let Some(row) = self.rows.get(idx) else {
            return Seen::Nothing;
        };
        // Relaxed: as in `record`.
        let (a, b) = (row[0].load(Ordering::Relaxed), row[1].load(Ordering::Relaxed));
        if b == MANY {
            return Seen::Many;
        }
        // SAFETY: a row holds 0, `MANY` or the address of a `&'static
        // Class` that `record` stored (classes are never freed).
        let class = |w: usize| unsafe { &*(w as *const Class) };
        match (a, b) {
            (0, _) => Seen::Nothing,
            (a, 0) => Seen::Classes(class(a), None),
            (a, b) => Seen::Classes(class(a), Some(class(b))),
        }
    }
}

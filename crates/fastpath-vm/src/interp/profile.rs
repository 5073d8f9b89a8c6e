//! Call-site profiles: how often the interpreter ran each call of a
//! method, and the classes it saw at each virtual and interface call.
//!
//! Where it sits: `decode.rs` gives every decoded method a
//! [`CallProfile`] table; the interpreter's dispatch loop (`exec.rs`)
//! counts each call instruction it runs and records the receiver's class
//! at each `invokevirtual` and `invokeinterface` it runs through a vtable
//! or itable (when a JIT runs: nothing reads the table under `-Xint`);
//! the JIT's inlining policy (`jit/inlining.rs`) reads it when it
//! compiles the method, after the interpreter ran it: a site's count over
//! the method's interpreted invocations is its frequency, which decides
//! whether the site's callee is inlined, how big it may be and in what
//! order the method's inlining budget is spent; and the translator
//! (`jit/translate.rs`, `profiled_candidates`) inlines the one or two
//! classes' implementations behind guards where class-hierarchy analysis
//! (`jit/cha.rs`) finds too many to inline. The receiver profile is a
//! guess, as CHA's answer is: compiled code checks the receiver at each
//! guard, and a miss makes the ordinary call.
//!
//! Each call site keeps a count and two receiver rows, as HotSpot's
//! `VirtualCallData` keeps a `CounterData` count and `TypeProfileWidth`
//! (2) receiver rows per call site (`methodData.hpp`), without per-row
//! counts: the first two distinct classes seen, and [`MANY`] in the
//! second row once a third one shows up (a megamorphic site, which the
//! translator leaves a call). Counting costs the interpreter a load, an
//! add and a store per call; a site that sees one class a load and a
//! compare more, a bimorphic or megamorphic one two of each.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

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

/// One call site's profile: its count and its two receiver rows.
#[derive(Debug, Default)]
struct Site {
    count: AtomicU32,
    rows: [AtomicUsize; 2],
}

/// Per instruction of a method, a call site's profile (empty when the
/// method makes no call).
#[derive(Debug, Default)]
pub struct CallProfile {
    sites: Box<[Site]>,
}

impl CallProfile {
    /// The empty table for `insns`: a site per instruction when any of
    /// them is a call, none otherwise.
    pub fn for_insns(insns: &[Insn]) -> Self {
        let calls = insns.iter().any(|i| {
            matches!(
                i,
                Insn::InvokeStatic(_)
                    | Insn::InvokeDirect(_)
                    | Insn::InvokeVirtual { .. }
                    | Insn::InvokeInterface { .. }
            )
        });
        if !calls {
            return Self::default();
        }
        Self {
            sites: insns.iter().map(|_| Site::default()).collect(),
        }
    }

    /// Counts a run of the call at instruction `idx` (saturating: a site
    /// that ran 2^32 times stays the hottest).
    #[inline]
    pub fn count(&self, idx: usize) {
        if let Some(site) = self.sites.get(idx) {
            // Relaxed: a heuristic; a lost increment (racing threads)
            // only changes a frequency the inlining policy estimates.
            let n = site.count.load(Ordering::Relaxed);
            site.count.store(n.saturating_add(1), Ordering::Relaxed);
        }
    }

    /// How many times the interpreter ran the call at instruction `idx`.
    pub fn count_at(&self, idx: usize) -> u32 {
        // Relaxed: as in `count`.
        self.sites.get(idx).map_or(0, |s| s.count.load(Ordering::Relaxed))
    }

    /// Records `class` as a receiver of the call at instruction `idx`.
    #[inline]
    pub fn record(&self, idx: usize, class: &'static Class) {
        let Some(row) = self.sites.get(idx).map(|s| &s.rows) else {
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
        let Some(row) = self.sites.get(idx).map(|s| &s.rows) else {
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

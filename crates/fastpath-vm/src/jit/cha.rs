//! Class-hierarchy analysis: the one implementation a virtual call can
//! reach among the classes loaded so far.
//!
//! Where it sits: the translator (`translate.rs`, `guarded_candidate`)
//! asks it at each virtual call that is not statically bound, and
//! `-Xcomp`'s callee decoding (`entry.rs`) asks it to decode what the
//! translator may inline. Its answer is a guess that is true when it is
//! made: a class loaded later may override the method. So the translator
//! inlines the answer only behind a guard on the receiver's vtable entry
//! (a monomorphic inline cache fixed at compile time, whose miss is the
//! ordinary virtual call), and no compiled code depends on the answer
//! staying true: nothing to record, nothing to deoptimise.
//!
//! The walk: every loaded class that could be a receiver's (a subclass
//! of the method's class, neither an interface nor abstract: no object
//! has such a class) names the method in its vtable at the call's index;
//! one method named by them all, with a body, is the answer. Classes
//! without instances yet count too (the guard is cheaper than a miss).

use crate::link::{Loader, Method};

/// The class registry the analysis walks (in `CompileEnv`).
#[derive(Clone, Copy)]
pub struct Classes(pub &'static Loader);

impl std::fmt::Debug for Classes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Classes(the VM's loader)")
    }
}

/// The implementation every loaded receiver class of a virtual call to
/// `m` (vtable index `index`) runs, if there is one and it has bytecode.
pub fn single_implementation(classes: Classes, m: &'static Method, index: u32) -> Option<&'static Method> {
    if m.class.is_interface() {
        return None;
    }
    let mut found: Option<&'static Method> = None;
    let mut many = false;
    classes.0.for_each_class(|c| {
        if many || c.is_interface() || c.is_abstract() || !c.is_subclass_of(m.class) {
            return;
        }
        match c.vtable_method(index as usize) {
            Some(t) if found.is_none_or(|f| std::ptr::eq(f, t)) => found = Some(t),
            _ => many = true,
        }
    });
    if many {
        return None;
    }
    found.filter(|t| !t.is_abstract() && !t.is_native() && t.code.is_some())
}

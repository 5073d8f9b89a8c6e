//! Class-hierarchy analysis: the implementations a virtual or interface
//! call can reach among the classes loaded so far.
//!
//! Where it sits: the translator (`translate.rs`, `guarded_candidates`
//! and `interface_candidates`) asks it at each virtual call that is not
//! statically bound and at each interface call, and `-Xcomp`'s callee
//! decoding (`entry.rs`) asks it to decode what the translator may
//! inline. Its answer is a guess that is true when it is made: a class
//! loaded later may override the method or implement the interface. So
//! the translator inlines the answer only behind guards (a polymorphic
//! inline cache fixed at compile time, whose miss is the ordinary call),
//! and no compiled code depends on the answer staying true: nothing to
//! record, nothing to deoptimise.
//!
//! The walk for a virtual call: every loaded class that could be a
//! receiver's (a subclass of the method's class, neither an interface
//! nor abstract: no object has such a class) names a method in its
//! vtable at the call's index; the distinct methods they name are the
//! answer, when there are at most the caller's limit of them (HotSpot's
//! C2 inlines at most two receivers from a call site's profile,
//! `TypeProfileWidth`, `doCall.cpp`; here every reachable
//! implementation is a candidate and the limit keeps the guard chain
//! short; past it, the translator falls back on the interpreter's
//! receiver profile, `interp/profile.rs`). For an interface call, the receivers are the loaded
//! concrete classes implementing the interface, each with its itable's
//! method; the guard is on the class, so the limit counts classes.
//! Classes without instances yet count too (a guard is cheaper than a
//! miss).

use crate::link::{Class, Loader, Method};

/// The class registry the analysis walks (in `CompileEnv`).
#[derive(Clone, Copy)]
pub struct Classes(pub &'static Loader);

impl std::fmt::Debug for Classes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Classes(the VM's loader)")
    }
}

/// Whether objects of class `c` can exist: not an interface, not
/// abstract, not an array (arrays implement no interface with methods
/// and inherit `Object`'s vtable only).
fn concrete(c: &Class) -> bool {
    !c.is_interface() && !c.is_abstract() && !c.is_array()
}

/// The distinct methods a virtual call to `m` (vtable index `index`) runs
/// on the loaded receiver classes, in the order the registry lists their
/// first class, if there are between one and `max` of them; `None` for
/// an interface method, a class whose vtable lacks the index, or more
/// than `max`. Abstract and native methods are in the answer (the caller
/// inlines only what has bytecode).
pub fn implementations(
    classes: Classes,
    m: &'static Method,
    index: u32,
    max: usize,
) -> Option<Vec<&'static Method>> {
    if m.class.is_interface() {
        return None;
    }
    let mut found: Vec<&'static Method> = Vec::new();
    let mut many = false;
    classes.0.for_each_class(|c| {
        if many || !concrete(c) || !c.is_subclass_of(m.class) {
            return;
        }
        match c.vtable_method(index as usize) {
            Some(t) if found.iter().any(|f| std::ptr::eq(*f, t)) => {}
            Some(t) if found.len() < max => found.push(t),
            _ => many = true,
        }
    });
    (!many && !found.is_empty()).then_some(found)
}

/// The loaded concrete classes implementing the interface of `m` (an
/// interface method, `index` among its interface's methods), each with
/// the method an interface call of `m` runs on it, if there are between
/// one and `max` of them; `None` for more, or for a class that has no
/// implementation (its call throws: left to the ordinary call).
pub fn interface_receivers(
    classes: Classes,
    m: &'static Method,
    index: u32,
    max: usize,
) -> Option<Vec<(&'static Class, &'static Method)>> {
    let iface = m.class;
    if !iface.is_interface() {
        return None;
    }
    let mut found: Vec<(&'static Class, &'static Method)> = Vec::new();
    let mut many = false;
    classes.0.for_each_class(|c| {
        if many || !concrete(c) || !c.is_subclass_of(iface) {
            return;
        }
        match c.itable_method(iface, index as usize) {
            Some(t) if found.len() < max => found.push((c, t)),
            _ => many = true,
        }
    });
    (!many && !found.is_empty()).then_some(found)
}

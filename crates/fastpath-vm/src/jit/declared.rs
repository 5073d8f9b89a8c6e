//! Declared types: what the verifier's types say of a reference value
//! wherever it is used, so that checks they prove pass are left out
//! (`aastore`'s store check, a virtual call's test that the receiver's
//! vtable has the call's entry) and loads they make needless are too (a
//! final class's data offset).
//!
//! Where it sits: `translate.rs` records a [`Declared`] for the value an
//! instruction pushes (`Translator::note_declared`): a field's or a
//! method's result's declared type (`getfield`, `getstatic`, a call's
//! descriptor), a parameter's (read from a local the method never stores
//! into; the receiver, an instance of the method's class unless that is
//! an interface), an element of an array whose component is declared,
//! `new`, `anewarray`, a string literal. `emit.rs`'s `array_store_check`
//! asks [`store_fits`] before it emits the check, and `vtable_target`
//! leaves out the vtable length's test when the receiver is declared of a
//! class whose vtable has the entry (a subclass's vtable extends its
//! superclass's), and `read_data`/`write_data` address a primitive
//! field at a fixed offset from an object declared of a final class
//! ([`final_nrefs`]: no subclass adds references before its data words).
//! A safepoint's reload carries the type to the reloaded value
//! (`Carried`). The first type recorded for a value stays; the inliner
//! types a parameter the callee never stores into as the narrower of the
//! callee's declaration and its argument's type ([`narrower`]): an
//! inlined `HashMap` method's receiver is the caller's `Lru`.
//!
//! Why it holds: the verifier (or, for the built-in class library and the
//! classes the VM spins, which it does not verify, their construction, as
//! HotSpot trusts its boot classes) keeps every value stored in a field,
//! passed as an argument or returned assignable to the declared type, and
//! `aastore`'s own check keeps every element assignable to its array's
//! component. A class type is exact about arrays and instances (an
//! interface type is not: the verifier treats interfaces as `Object`, so
//! they are never recorded). An SSA value names one object, so a type
//! recorded at its definition holds at every use; a `checkcast`'s type
//! holds only after the check, on the paths through it, and is not
//! recorded. Nor is the type a guarded inline's callee gives its
//! receiver (its own class, and the classes of what it inlines on it):
//! only the guard proves it, and an object of another class takes the
//! other ways with the same value (`Translator::guarded_receivers`; the
//! corpus's GuardedReceivers, whose final class's fields read at its
//! fixed offsets on another class's object gave wrong sums).
//!
//! The store check passes without being run when the array's component
//! class is known exactly and the value's declared class is that class or
//! a subclass: exactly, because the array is `anewarray`'s own result, or
//! because its declared component is a final class (an array of a
//! subclass cannot exist, so an array declared `C[]` is a `C[]`). HotSpot's
//! C2 drops the check by the same reasoning on its types
//! (`GraphKit::gen_checkcast`'s static test, `Parse::array_store_check`).

use crate::classfile::{access, FieldType};
use crate::link::{Class, ClassKind, Loader};

/// A reference value's type as the code declares it: null, or what the
/// variant says.
#[derive(Clone, Copy, Debug)]
pub enum Declared {
    /// An instance of this class or of a subclass (never an interface).
    Instance(&'static Class),
    /// An array whose component is this class (never an interface or an
    /// array class) or, unless `exact`, a subclass of it.
    ArrayOf {
        /// The component class.
        component: &'static Class,
        /// The component is exactly `component`.
        exact: bool,
    },
}

impl PartialEq for Declared {
    /// The same type: the same class (by identity), the same form.
    fn eq(&self, other: &Self) -> bool {
        match (*self, *other) {
            (Declared::Instance(a), Declared::Instance(b)) => std::ptr::eq(a, b),
            (
                Declared::ArrayOf {
                    component: a,
                    exact: x,
                },
                Declared::ArrayOf {
                    component: b,
                    exact: y,
                },
            ) => std::ptr::eq(a, b) && x == y,
            _ => false,
        }
    }
}

impl Eq for Declared {}

/// The declared type of a field, parameter or result of type `t`, when
/// its class is loaded (a class not loaded has no instances yet, so no
/// value of it reaches the code that would use the type).
pub fn of_type(loader: &Loader, t: &FieldType) -> Option<Declared> {
    match t {
        FieldType::Object(name) => instance_class(loader, name).map(Declared::Instance),
        FieldType::Array(component) => match &**component {
            FieldType::Object(name) => instance_class(loader, name).map(array_of),
            _ => None,
        },
        _ => None,
    }
}

/// The declared type of a field or result whose descriptor is `descriptor`.
pub fn of_descriptor(loader: &Loader, descriptor: &str) -> Option<Declared> {
    FieldType::parse(descriptor)
        .ok()
        .and_then(|t| of_type(loader, &t))
}

/// The receiver `this` of a method of class `c`: an instance of `c` or a
/// subclass, unless `c` is an interface (a default method's receiver is
/// an implementing class's instance, which the verifier types as
/// `Object`).
pub fn of_receiver(c: &'static Class) -> Option<Declared> {
    is_instance_class(c).then_some(Declared::Instance(c))
}

/// An `anewarray`'s (or a `newarray`'s) result, of array class `ac`.
pub fn of_new_array(ac: &'static Class) -> Option<Declared> {
    let c = ac.component?;
    is_instance_class(c).then_some(Declared::ArrayOf {
        component: c,
        exact: true,
    })
}

/// An element loaded from an array of type `array`.
pub fn element_of(array: Declared) -> Option<Declared> {
    match array {
        Declared::ArrayOf { component, .. } => Some(Declared::Instance(component)),
        Declared::Instance(_) => None,
    }
}

/// Whether a store of `value` into `array` passes `aastore`'s check
/// whatever the objects are (the module documentation says why).
pub fn store_fits(array: Option<Declared>, value: Option<Declared>) -> bool {
    let Some(Declared::ArrayOf {
        component,
        exact: true,
    }) = array
    else {
        return false;
    };
    if component.super_class.is_none() {
        // An `Object[]`: every reference fits.
        return true;
    }
    match value {
        Some(Declared::Instance(c)) => is_subclass(c, component),
        _ => false,
    }
}

/// The more precise of two declared types of one value: both hold (it
/// is null or an instance of each), so where one class is a subclass of
/// the other, the subclass's (an inlined `HashMap` method's receiver,
/// declared `HashMap` by its method, is the caller's `Lru`).
pub fn narrower(a: Declared, b: Declared) -> Declared {
    match (a, b) {
        (Declared::Instance(x), Declared::Instance(y)) if is_subclass(y, x) => b,
        _ => a,
    }
}

/// The reference count of every instance of declared type `d`, when it
/// is a final class: no subclass can add references before its data
/// words, so its primitive fields sit at fixed offsets from the object.
pub fn final_nrefs(d: Declared) -> Option<u32> {
    match d {
        Declared::Instance(c) if c.flags & access::FINAL != 0 => Some(c.nrefs),
        _ => None,
    }
}

/// Whether class `c` is `of` or a subclass of it (`of` a class).
fn is_subclass(c: &'static Class, of: &'static Class) -> bool {
    c.supers.get(of.depth).is_some_and(|s| std::ptr::eq(*s, of))
}

/// An array of `component`: exact when no subclass of it can exist.
fn array_of(component: &'static Class) -> Declared {
    Declared::ArrayOf {
        component,
        exact: component.flags & access::FINAL != 0,
    }
}

fn instance_class(loader: &Loader, name: &str) -> Option<&'static Class> {
    loader.find_loaded(name).filter(|c| is_instance_class(c))
}

/// A class whose instances are objects (not an interface, an array class
/// or a primitive type's class).
fn is_instance_class(c: &Class) -> bool {
    matches!(c.kind, ClassKind::Instance) && !c.is_interface()
}

//! The class hierarchy as the verifier sees it: the questions it asks the
//! linker about classes other than the one it checks.
//!
//! Where it sits: the linker implements [`ClassHierarchy`] over its loaded
//! classes and hands it to [`super::verify_class`]; tests implement it over
//! a set of class files. Each question may load a class (JVMS 5.3), as
//! HotSpot's verifier does through `SystemDictionary::resolve_or_fail`;
//! a class that cannot be loaded is a [`LinkageError`] (normally
//! `NoClassDefFoundError`) which the verifier returns unchanged, so the
//! program sees the error at the instruction HotSpot would raise it for.
//!
//! When the verifier asks (HotSpot's `VerificationType::is_reference_assignable_from`
//! and `ClassVerifier::is_protected_access`):
//! - assigning a reference to a class type other than `java/lang/Object`
//!   whose name differs from the value's: [`ClassHierarchy::is_interface`] on
//!   the target (interfaces take any object, JVMS 4.10.1.2), then, for a
//!   class target, [`ClassHierarchy::is_subclass_of`] on the value's class;
//! - `getfield`/`putfield`/`invokevirtual`/`invokespecial <init>` naming a
//!   superclass of the current class: [`ClassHierarchy::superclass`] up the
//!   current class's chain, then [`ClassHierarchy::find_field`] or
//!   [`ClassHierarchy::find_method`] for the protected-access check (JVMS 4.10.1.8).
//!
//! The class being verified is loaded before it is linked: the hierarchy
//! answers for it too.

use super::error::LinkageError;

/// A field or method the hierarchy found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The class that declares it (internal form).
    pub declaring_class: String,
    /// Its access flags (JVMS tables 4.5-A, 4.6-A).
    pub access_flags: u16,
}

/// The linker's answers about loaded classes. Names are in internal form
/// (`java/lang/String`); the verifier asks only about classes and
/// interfaces, never about array types.
pub trait ClassHierarchy {
    /// Loads `class` if needed; whether it is an interface.
    fn is_interface(&mut self, class: &str) -> Result<bool, LinkageError>;

    /// Loads `class` if needed; whether it is `ancestor`, a subclass of it,
    /// or (when `ancestor` is an interface) an implementor of it. The
    /// verifier asks only with `ancestor` a class.
    fn is_subclass_of(&mut self, class: &str, ancestor: &str) -> Result<bool, LinkageError>;

    /// Loads `class` if needed; its direct superclass (`None` for
    /// `java/lang/Object`).
    fn superclass(&mut self, class: &str) -> Result<Option<String>, LinkageError>;

    /// The field `name`:`descriptor` as field resolution finds it from
    /// `class` (JVMS 5.4.3.2: the class, its superinterfaces, its
    /// superclasses); `None` if there is none.
    fn find_field(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<Option<Member>, LinkageError>;

    /// The method `name`:`descriptor` declared by `class` or the nearest of
    /// its superclasses (HotSpot's `uncached_lookup_method`); `None` if
    /// there is none.
    fn find_method(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<Option<Member>, LinkageError>;

    /// Whether `a` and `b` are in the same run-time package (JVMS 5.3: same
    /// package name and same defining loader). The default compares package
    /// names, which is right for a VM with one loader per package.
    fn same_runtime_package(&mut self, a: &str, b: &str) -> bool {
        package_of(a) == package_of(b)
    }
}

/// The package part of an internal class name (`java/lang` for
/// `java/lang/String`, empty for a class in the unnamed package).
pub fn package_of(class: &str) -> &str {
    class.rfind('/').map_or("", |i| &class[..i])
}

//! The verifier in the VM: [`ClassHierarchy`] over the loader's classes,
//! and [`verify_linked`], the check `runtime/init.rs` runs on a class
//! before initializing it (JVMS 5.4.1: verification is part of linking,
//! which precedes initialization; HotSpot's `InstanceKlass::link_class_impl`).
//!
//! Where it sits: between the loader (`link/loader.rs`), which has loaded
//! and laid out the class, and initialization. A class's code runs only
//! after it is initialized (the interpreter's first `new`, `getstatic`,
//! `putstatic` or `invokestatic` of it, or `main`; a subclass's
//! initialization initializes it first; an interface whose default methods
//! can run is initialized with its implementors), so every method of a
//! verified class is checked before it first runs. A class that fails
//! stays linked but uninitialized, and every later attempt checks it again
//! and throws again, as HotSpot re-verifies.
//!
//! Which classes: as HotSpot's default `-Xverify:remote`
//! (`BytecodeVerificationRemote` on, `BytecodeVerificationLocal` off), the
//! classes from the class path; not the built-in class library (the boot
//! loader's, trusted) and not the classes the VM spins for
//! `invokedynamic`.

use super::{verify_class, ClassHierarchy, LinkageError, Member, VerifyError};
use crate::link::{Class, Loader};
use crate::runtime::Error;

/// Whether the linker verifies `class` (the module documentation says
/// which classes).
pub fn needs_verification(class: &Class) -> bool {
    !class.is_boot && !class.hidden && class.file.is_some()
}

/// Verifies `class` if it [`needs_verification`]. The error is the Java
/// exception to throw: `VerifyError`, `ClassFormatError`, or what loading
/// a class the verifier needed threw.
pub fn verify_linked(loader: &Loader, class: &'static Class) -> Result<(), Error> {
    if !needs_verification(class) {
        return Ok(());
    }
    let file = class.file.as_ref().expect("checked by needs_verification");
    let mut hierarchy = LoadedClasses { loader, error: None };
    verify_class(file, &mut hierarchy).map_err(|e| match e {
        VerifyError::Linkage(l) => hierarchy
            .error
            .take()
            .unwrap_or_else(|| Error::new("java/lang/NoClassDefFoundError", l.message)),
        VerifyError::Verify(_) => Error::verify(e.to_string()),
        VerifyError::Format(_) => Error::new("java/lang/ClassFormatError", e.to_string()),
    })
}

/// The loader's classes as the verifier asks about them; loading is the
/// loader's (`Loader::load`), which never initializes.
pub struct LoadedClasses<'l> {
    loader: &'l Loader,
    /// The last loading error, to be thrown as the loader made it.
    error: Option<Error>,
}

impl<'l> LoadedClasses<'l> {
    /// A hierarchy over `loader`'s classes.
    pub fn new(loader: &'l Loader) -> Self {
        LoadedClasses { loader, error: None }
    }

    fn load(&mut self, name: &str) -> Result<&'static Class, LinkageError> {
        self.loader.load(name).map_err(|e| {
            let l = LinkageError {
                java_class: e.class.to_string(),
                message: e.message.clone().unwrap_or_default(),
            };
            self.error = Some(e);
            l
        })
    }
}

/// Field resolution's search (JVMS 5.4.3.2): the class, its
/// superinterfaces (recursively), its superclass (recursively).
fn find_field_in(c: &'static Class, name: &str, descriptor: &str) -> Option<Member> {
    if let Some(f) = c.declared_field(name, descriptor) {
        return Some(Member {
            declaring_class: c.name.to_string(),
            access_flags: f.flags,
        });
    }
    for i in &c.interfaces {
        if let Some(m) = find_field_in(i, name, descriptor) {
            return Some(m);
        }
    }
    c.super_class.and_then(|s| find_field_in(s, name, descriptor))
}

impl ClassHierarchy for LoadedClasses<'_> {
    fn is_interface(&mut self, class: &str) -> Result<bool, LinkageError> {
        Ok(self.load(class)?.is_interface())
    }

    fn is_subclass_of(&mut self, class: &str, ancestor: &str) -> Result<bool, LinkageError> {
        let c = self.load(class)?;
        let a = self.load(ancestor)?;
        Ok(c.is_subclass_of(a))
    }

    fn superclass(&mut self, class: &str) -> Result<Option<String>, LinkageError> {
        Ok(self.load(class)?.super_class.map(|s| s.name.to_string()))
    }

    fn find_field(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<Option<Member>, LinkageError> {
        Ok(find_field_in(self.load(class)?, name, descriptor))
    }

    fn find_method(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<Option<Member>, LinkageError> {
        let mut next = Some(self.load(class)?);
        while let Some(c) = next {
            if let Some(m) = c.declared_method(name, descriptor) {
                return Ok(Some(Member {
                    declaring_class: c.name.to_string(),
                    access_flags: m.flags,
                }));
            }
            next = c.super_class;
        }
        Ok(None)
    }
}

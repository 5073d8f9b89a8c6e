//! The verifier in the VM: [`ClassHierarchy`] over the loader's classes,
//! and [`verify_linked`], the check `runtime/init.rs` runs on a class
//! before initializing it (JVMS 5.4.1: verification is part of linking,
//! which precedes initialization; HotSpot's `InstanceKlass::link_class_impl`).
//!
//! Where it sits: between the loader (`link/loader.rs`), which has loaded
//! and laid out the class, and initialization. Linking a class verifies
//! its superclasses and all its superinterfaces first, then the class (as
//! HotSpot's `link_class_impl` links them), each once per process: an
//! interface's default method may run on an instance of a class that
//! implements it through another interface, without the interface ever
//! being initialized, and must have been verified all the same. A class's
//! code runs only after it or a subclass or implementor is initialized
//! (the interpreter's first `new`, `getstatic`, `putstatic` or
//! `invokestatic` of it, or `main`), so every method of a class is checked
//! before it first runs. A class that fails stays linked but
//! uninitialized, and every later attempt checks it again and throws
//! again, as HotSpot re-verifies.
//!
//! Which classes: as HotSpot's default `-Xverify:remote`
//! (`BytecodeVerificationRemote` on, `BytecodeVerificationLocal` off), the
//! classes from the class path; not the built-in class library (the boot
//! loader's, trusted) and not the classes the VM spins for
//! `invokedynamic`.

use std::collections::HashSet;
use std::sync::Mutex;

use super::{verify_class, ClassHierarchy, LinkageError, Member, VerifyError};
use crate::link::{Class, Loader};
use crate::runtime::Error;

/// Whether the linker verifies `class` (the module documentation says
/// which classes).
pub fn needs_verification(class: &Class) -> bool {
    !class.is_boot && !class.hidden && class.file.is_some()
}

/// The classes verified so far, by address (classes live for the whole
/// process, so an address names one class for good).
static VERIFIED: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn is_verified(class: &'static Class) -> bool {
    let set = VERIFIED.lock().unwrap_or_else(|e| e.into_inner());
    set.as_ref()
        .is_some_and(|s| s.contains(&(class as *const Class as usize)))
}

fn set_verified(class: &'static Class) {
    let mut set = VERIFIED.lock().unwrap_or_else(|e| e.into_inner());
    set.get_or_insert_with(HashSet::new)
        .insert(class as *const Class as usize);
}

/// Verifies `class`, its superclasses and its superinterfaces (those that
/// [`needs_verification`] and were not verified before). The error is the
/// Java exception to throw: `VerifyError`, `ClassFormatError`, or what
/// loading a class the verifier needed threw.
pub fn verify_linked(loader: &Loader, class: &'static Class) -> Result<(), Error> {
    let supers = class.supers.iter().copied().filter(|s| !std::ptr::eq(*s, class));
    for c in supers.chain(class.all_interfaces.iter().copied()).chain([class]) {
        if needs_verification(c) && !is_verified(c) {
            verify_one(loader, c)?;
            set_verified(c);
        }
    }
    Ok(())
}

fn verify_one(loader: &Loader, class: &'static Class) -> Result<(), Error> {
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

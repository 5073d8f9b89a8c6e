//! The bytecode verifier: type checking with `StackMapTable` (JVMS 4.10.1)
//! and the static and structural constraints on code (JVMS 4.9), modelled
//! on HotSpot's split verifier (`classfile/verifier.cpp`,
//! `stackMapTable.cpp`, `stackMapFrame.cpp`, `verificationType.cpp`).
//!
//! Where it sits: between parsing and initialization. Class initialization
//! (`runtime/init.rs`) calls [`linker::verify_linked`] before a class's
//! `<clinit>`, which runs [`verify_class`] on the class, its superclasses
//! and its superinterfaces (JVMS 5.4.1: verification is part of linking);
//! a class that fails is never initialized and its methods never run, so
//! the interpreter may rely on what is checked here (see "What the
//! interpreter may assume"). Class questions go to the loader through
//! [`ClassHierarchy`] ([`linker::LoadedClasses`] in the VM). Files:
//! `method.rs` (the pass), `members.rs` (fields, invokes, protected
//! access), `constructor.rs` (`<init>` calls), `frame.rs`, `types.rs`,
//! `stackmaps.rs`, `hierarchy.rs`, `linker.rs`, `error.rs`, `mnemonic.rs`.
//!
//! # The algorithm
//! Each method with code is checked in one linear pass (HotSpot's
//! `ClassVerifier::verify_method`):
//! 1. decode every instruction ([`super::bytecode::decode_all`]); mark
//!    instruction starts;
//! 2. check the exception table and `LocalVariableTable` offsets against
//!    instruction starts, and each catch type against `Throwable`;
//! 3. read the `StackMapTable` into full frames ([`stackmaps`]);
//! 4. walk the instructions in order with one current frame: where the
//!    table has a frame, the current frame must be assignable to it (unless
//!    the previous instruction does not fall through) and becomes it; an
//!    instruction that cannot be reached by falling through must have a
//!    frame; each instruction pops and pushes typed values ([`frame`]); each
//!    branch target must have a frame the current frame is assignable to;
//!    inside a `try` range, the frame with the exception on its stack must
//!    be assignable to the handler's frame;
//! 5. the last instruction must not fall through the end of the code.
//!
//! The table makes one pass enough: frames are never merged, only
//! compared.
//!
//! # Rules, with HotSpot's error kinds
//! VerifyError unless marked ClassFormatError (CFE):
//! - instructions: known opcodes, operands inside the code, `wide` only
//!   before the instructions it modifies, `tableswitch` `low <= high`,
//!   sorted `lookupswitch` keys, zero `invokeinterface`/`invokedynamic`
//!   trailing bytes, `newarray` type codes, `multianewarray` dimensions
//!   (1 to the class's), `jsr`/`jsr_w`/`ret` refused ("Bad instruction");
//!   switch padding zero before version 51;
//! - operand stack: underflow, overflow past `max_stack`, the type each
//!   instruction pops (int, long, float, double, reference, the array
//!   kinds of `xaload`/`xastore`, category 1 and 2 for `pop`/`dup`/`swap`
//!   families, which never split a long or double);
//! - locals: index below `max_locals` (two slots for long/double), the
//!   type each load and `iinc` reads; a store splitting a long/double
//!   makes its other half unusable;
//! - constant pool operands: index in range and of the kind the
//!   instruction takes (`ldc` loadable single-slot constants, `ldc2_w`
//!   long/double, fields, methods, interface methods, classes,
//!   invokedynamic); `new` of a class, not an array;
//! - control flow: branch and switch targets at instruction starts with a
//!   stack map frame ("Expecting a stackmap frame at branch target");
//!   the current frame assignable to every target's frame ("Inconsistent
//!   stackmap frames at branch target"), to the frame at the next
//!   instruction, and (with the exception pushed) to every covering
//!   handler's frame; a frame after every `goto`, switch, return and
//!   `athrow`; no falling off the end of the code;
//! - `StackMapTable`: see [`stackmaps`]; exception table offsets at
//!   instruction starts (CFE); catch types subclasses of `Throwable`;
//! - objects: `uninitialized(Offset)` from `new` and `uninitializedThis` in
//!   constructors may be stored, loaded, compared and locked but not used
//!   otherwise; `invokespecial <init>` initializes every copy; the
//!   constructor's `<init>` call names the class or its direct superclass,
//!   a `new` object's names the class of the `new`; `putfield` on
//!   `uninitializedThis` only for the class's own fields; a constructor
//!   returns only after `this` is initialized; an `<init>` call inside a
//!   `try` range only if every handler path ends in `athrow`; `<init>`
//!   and `<clinit>` are called only by `invokespecial <init>`;
//! - members: field and method operand types from descriptors;
//!   `invokeinterface` count; `invokespecial` of a method of the class,
//!   of a direct superinterface, or of a superclass; protected access
//!   (JVMS 4.10.1.8): `getfield`, `putfield`, `invokevirtual` and
//!   `invokespecial <init>` of a protected member of a superclass in
//!   another run-time package need an object of the current class or a
//!   subclass;
//! - returns: `return` only from void methods, `xreturn` of the
//!   descriptor's return type; `athrow` of a `Throwable`.
//!
//! # Versions
//! Class files 50 (Java 6) and later are checked as above; a version-50
//! class that fails is not retried with type inference as HotSpot's
//! failover would. Class files before 50 have no `StackMapTable` and need
//! the type-inference verifier (JVMS 4.10.2), which this VM does not have:
//! they are refused with a VerifyError naming their version. javac's
//! oldest `--release` (8) writes version 52.
//!
//! # Differences from HotSpot
//! - HotSpot verifies only classes outside the boot loader by default
//!   (`-Xverify:remote`); [`verify_class`] checks whatever it is given.
//! - `StackMapTable` syntax (frame types, verification type tags, its
//!   length) is checked when the class is parsed rather than when it is
//!   linked; both are ClassFormatErrors.
//! - HotSpot's `ends_in_athrow` can loop forever on a handler whose
//!   switch jumps to itself; here each switch is followed once.
//! - Methods are checked in class-file order; HotSpot checks them in its
//!   own (sorted) order, so a class with faults in several methods may be
//!   reported with another method's error (of another kind, sometimes).
//! - `new` does not check that `uninitialized(Offset)` is absent from the
//!   stack (JVMS's rule), as HotSpot does not: two objects of one `new`
//!   in a loop share a type, and initializing one initializes both in the
//!   verifier's eyes (the other is a zeroed object of its class, never a
//!   memory-safety issue).
//!
//! # What the interpreter may assume
//! For every method of a verified class, at every instruction reachable
//! or not: the operand stack holds the types the instruction takes, at
//! most `max_stack` slots; local indices are below `max_locals` and hold
//! the types read; branch targets are instruction starts inside the code;
//! constant-pool operands are in range and of the right kind; no
//! instruction falls off the end; a long/double is never read half;
//! fields and methods are used with their descriptor's types; objects are
//! initialized before use. It may not assume that a referenced class,
//! field or method exists or is accessible (resolution's checks), that an
//! `aastore` value fits the array's component type (a run-time check), or
//! that a value typed as an interface implements it (interfaces are
//! `Object` to the verifier).

mod constructor;
pub mod error;
pub mod frame;
pub mod hierarchy;
pub mod linker;
mod members;
mod method;
pub mod mnemonic;
pub mod stackmaps;
pub mod types;

use std::collections::HashMap;
use std::rc::Rc;

pub use error::{Failure, LinkageError, MethodName, VerifyError};
pub use hierarchy::{ClassHierarchy, Member};

use super::constant_pool::tag;
use super::{ClassFile, MethodDescriptor};
use types::{Assignability, Type};

/// The first class-file version with `StackMapTable` (Java 6).
pub const STACKMAP_MAJOR_VERSION: u16 = 50;

/// Verifies every method of `class`, asking `hierarchy` about other
/// classes. `Ok` means the class may be initialized and run.
pub fn verify_class(class: &ClassFile, hierarchy: &mut dyn ClassHierarchy) -> Result<(), VerifyError> {
    if class.major_version < STACKMAP_MAJOR_VERSION {
        return Err(VerifyError::verify(format!(
            "Class {} has version {}.{}, which predates StackMapTable (50.0); this VM has no \
             type-inference verifier for it",
            class.this_class, class.major_version, class.minor_version
        )));
    }
    let mut cx = ClassContext::new(class, hierarchy);
    for m in &class.methods {
        if let Some(code) = &m.code {
            method::verify_method(&mut cx, m, code).map_err(|e| {
                e.in_method(
                    || MethodName {
                        class: class.this_class.clone(),
                        name: m.name.clone(),
                        descriptor: m.descriptor.clone(),
                    },
                    &code.code,
                )
            })?;
        }
    }
    Ok(())
}

/// A method descriptor in slots: what an invoke pops and pushes.
#[derive(Debug)]
struct Signature {
    /// The parameters' slots, first parameter first.
    args: Vec<Type>,
    /// The result's slots (none for void).
    ret: Vec<Type>,
}

/// What the checks of one class share: the class, the hierarchy, and
/// caches of the constant pool's class types and method signatures.
struct ClassContext<'c, 'h> {
    class: &'c ClassFile,
    assign: Assignability<'h>,
    /// The current class's type.
    this_type: Type,
    class_types: HashMap<u16, Type>,
    signatures: HashMap<&'c str, Rc<Signature>>,
    field_types: HashMap<&'c str, Rc<[Type]>>,
    /// The names of the current class's superclasses, nearest first,
    /// once asked for.
    super_chain: Option<Vec<String>>,
}

impl<'c, 'h> ClassContext<'c, 'h> {
    fn new(class: &'c ClassFile, hierarchy: &'h mut dyn ClassHierarchy) -> Self {
        ClassContext {
            class,
            assign: Assignability { hierarchy },
            this_type: Type::reference(&class.this_class),
            class_types: HashMap::new(),
            signatures: HashMap::new(),
            field_types: HashMap::new(),
            super_chain: None,
        }
    }

    /// The type a `CONSTANT_Class` at `index` names, or `None` if `index`
    /// is not a class constant.
    fn class_type(&mut self, index: u16) -> Option<Type> {
        if let Some(t) = self.class_types.get(&index) {
            return Some(t.clone());
        }
        if self.class.constant_pool.tag(index) != tag::CLASS {
            return None;
        }
        let t = Type::reference(self.class.constant_pool.class_name(index).ok()?);
        self.class_types.insert(index, t.clone());
        Some(t)
    }

    /// The slots of a method descriptor (checked by the parser).
    fn signature(&mut self, descriptor: &'c str) -> Result<Rc<Signature>, VerifyError> {
        if let Some(s) = self.signatures.get(descriptor) {
            return Ok(s.clone());
        }
        let d = MethodDescriptor::parse(descriptor)
            .map_err(|_| VerifyError::format(format!("Invalid method signature {descriptor}")))?;
        let mut args = Vec::with_capacity(d.params.len());
        for p in &d.params {
            types::push_field_type(p, &mut args);
        }
        let mut ret = Vec::new();
        if let Some(r) = &d.ret {
            types::push_field_type(r, &mut ret);
        }
        let s = Rc::new(Signature { args, ret });
        self.signatures.insert(descriptor, s.clone());
        Ok(s)
    }

    /// The slots of a field descriptor (checked by the parser).
    fn field_slots(&mut self, descriptor: &'c str) -> Result<Rc<[Type]>, VerifyError> {
        if let Some(s) = self.field_types.get(descriptor) {
            return Ok(s.clone());
        }
        let t = super::FieldType::parse(descriptor)
            .map_err(|_| VerifyError::format(format!("Invalid field signature {descriptor}")))?;
        let mut slots = Vec::with_capacity(2);
        types::push_field_type(&t, &mut slots);
        let slots: Rc<[Type]> = slots.into();
        self.field_types.insert(descriptor, slots.clone());
        Ok(slots)
    }

    /// Whether `name` is a superclass of the current class (HotSpot's
    /// `name_in_supers`), asking the hierarchy up the chain once.
    fn is_superclass_name(&mut self, name: &str) -> Result<bool, VerifyError> {
        if self.super_chain.is_none() {
            let mut chain = Vec::new();
            let mut next = self.class.super_class.clone();
            while let Some(s) = next {
                if chain.contains(&s) || chain.len() > 1000 {
                    break; // a cycle is the linker's ClassCircularityError
                }
                next = self.assign.hierarchy.superclass(&s)?;
                chain.push(s);
            }
            self.super_chain = Some(chain);
        }
        Ok(self
            .super_chain
            .as_ref()
            .is_some_and(|c| c.iter().any(|s| s == name)))
    }
}

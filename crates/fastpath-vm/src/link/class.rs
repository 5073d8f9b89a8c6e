//! Linked classes, fields and methods: the VM's class metadata, at stable
//! addresses (every `Class` and `Method` is leaked once linked and lives
//! as long as the process, as HotSpot's metaspace does for the boot and
//! application loaders), so the interpreter's pre-decoded instructions,
//! vtables and objects' class words point at them directly, and a JIT can
//! embed those addresses.
//!
//! Where it sits: built by `loader.rs` from a parsed [`ClassFile`]; read by
//! the interpreter (field offsets, vtables, itables), the object model
//! (instance layout, array element kinds) and the collector's root scanner
//! (each class's static reference slots).
//!
//! Instance layout on `fastpath::gc` (see `object/mod.rs`): the cell's
//! reference fields are every reference field of the class, the
//! superclass's first (so a field keeps its index in every subclass); its
//! data words start with the class word (this `Class`'s address), then the
//! primitive fields packed by size (8, 4, 2, 1 bytes, each aligned to its
//! size), the superclass's bytes first.

use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

use crate::classfile::{access, ClassFile, Code, FieldType, MethodDescriptor};

/// Entries of a vtable a [`Class`] holds inline ([`Class::vtable_head`]):
/// as many as keep a class within its 1 KiB slot of the class space.
pub const VTABLE_HEAD: usize = 48;

/// `vtable`'s first [`VTABLE_HEAD`] entries, as [`Class::vtable_head`]
/// holds them.
pub fn vtable_head(vtable: &[&'static Method]) -> [Option<&'static Method>; VTABLE_HEAD] {
    std::array::from_fn(|i| vtable.get(i).copied())
}

/// What a value slot holds, as field and array-element kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// `boolean` (one byte)
    Boolean,
    /// `byte`
    Byte,
    /// `char` (two bytes, unsigned)
    Char,
    /// `short`
    Short,
    /// `int`
    Int,
    /// `float`
    Float,
    /// `long`
    Long,
    /// `double`
    Double,
    /// A reference.
    Ref,
}

impl Kind {
    /// The kind of a field type.
    pub fn of(t: &FieldType) -> Kind {
        match t {
            FieldType::Boolean => Kind::Boolean,
            FieldType::Byte => Kind::Byte,
            FieldType::Char => Kind::Char,
            FieldType::Short => Kind::Short,
            FieldType::Int => Kind::Int,
            FieldType::Float => Kind::Float,
            FieldType::Long => Kind::Long,
            FieldType::Double => Kind::Double,
            FieldType::Object(_) | FieldType::Array(_) => Kind::Ref,
        }
    }

    /// Bytes a value takes in an object's data area or a primitive array
    /// (references: 8, a reference field).
    pub fn size(self) -> usize {
        match self {
            Kind::Boolean | Kind::Byte => 1,
            Kind::Char | Kind::Short => 2,
            Kind::Int | Kind::Float => 4,
            Kind::Long | Kind::Double | Kind::Ref => 8,
        }
    }

    /// The kind's descriptor letter.
    pub fn descriptor(self) -> char {
        match self {
            Kind::Boolean => 'Z',
            Kind::Byte => 'B',
            Kind::Char => 'C',
            Kind::Short => 'S',
            Kind::Int => 'I',
            Kind::Float => 'F',
            Kind::Long => 'J',
            Kind::Double => 'D',
            Kind::Ref => 'L',
        }
    }

    /// The Java name of a primitive kind.
    pub fn java_name(self) -> &'static str {
        match self {
            Kind::Boolean => "boolean",
            Kind::Byte => "byte",
            Kind::Char => "char",
            Kind::Short => "short",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Long => "long",
            Kind::Double => "double",
            Kind::Ref => "reference",
        }
    }

    /// JVM slots a value of the kind takes (long, double: 2).
    pub fn slots(self) -> usize {
        match self {
            Kind::Long | Kind::Double => 2,
            _ => 1,
        }
    }
}

/// A field, linked: where its value lives.
#[derive(Debug)]
pub struct Field {
    /// Its name.
    pub name: Box<str>,
    /// Its descriptor.
    pub descriptor: Box<str>,
    /// Access flags.
    pub flags: u16,
    /// Its kind.
    pub kind: Kind,
    /// Instance field: the reference index (`Kind::Ref`) or the byte offset
    /// in the data area. Static field: the slot in the class's statics.
    pub offset: u32,
    /// The `ConstantValue` index (static finals).
    pub constant_value: Option<u16>,
}

impl Field {
    /// Whether the field is static.
    pub fn is_static(&self) -> bool {
        self.flags & access::STATIC != 0
    }
    /// Whether the field is volatile.
    pub fn is_volatile(&self) -> bool {
        self.flags & access::VOLATILE != 0
    }
}

/// Initialization state (JVMS 5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum InitState {
    /// Linked, not initialized.
    Linked = 0,
    /// A thread runs its `<clinit>`.
    Initializing = 1,
    /// Initialized.
    Initialized = 2,
    /// Initialization failed (`NoClassDefFoundError` from now on).
    Erroneous = 3,
}

/// What sort of class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    /// A class or interface from a class file.
    Instance,
    /// An array class.
    Array {
        /// Its element kind.
        elem: Kind,
    },
    /// A primitive type's class (`int.class`).
    Primitive(Kind),
}

/// A method, linked.
pub struct Method {
    /// The class that declares it.
    pub class: &'static Class,
    /// Its name.
    pub name: Box<str>,
    /// Its descriptor text.
    pub descriptor: Box<str>,
    /// Its descriptor, parsed.
    pub desc: MethodDescriptor,
    /// Access flags.
    pub flags: u16,
    /// Argument slots, `this` included for instance methods.
    pub arg_slots: u16,
    /// Return slots (0, 1, 2).
    pub ret_slots: u8,
    /// The return kind (`None`: void).
    pub ret_kind: Option<Kind>,
    /// Index in its class's vtable (`u32::MAX`: not virtual).
    pub vtable_index: AtomicU32Cell,
    /// The code, unless native or abstract.
    pub code: Option<Code>,
    /// The pre-decoded form, made on first invocation (`interp::decode`).
    pub decoded: OnceLock<Result<crate::interp::Decoded, crate::runtime::Error>>,
    /// A native method's implementation, linked on first invocation (an
    /// erased `interp::NativeFn`; 0 = not found).
    pub native: OnceLock<usize>,
    /// Index in the VM's method table (a stack trace names methods by it).
    pub id: u32,
    /// Its compiled code and tier counters (`jit`).
    pub jit: crate::jit::MethodJit,
}

/// A `u32` cell written while linking, read afterwards.
#[derive(Debug, Default)]
pub struct AtomicU32Cell(pub std::sync::atomic::AtomicU32);

impl AtomicU32Cell {
    /// The value.
    pub fn get(&self) -> u32 {
        // Relaxed: written before the class is published (by a Release).
        self.0.load(Ordering::Relaxed)
    }
    /// Sets it (linking only).
    pub fn set(&self, v: u32) {
        // Relaxed: as `get`.
        self.0.store(v, Ordering::Relaxed)
    }
}

impl std::fmt::Debug for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}{}", self.class.name, self.name, self.descriptor)
    }
}

impl Method {
    /// Whether it is static.
    pub fn is_static(&self) -> bool {
        self.flags & access::STATIC != 0
    }
    /// Whether it is native.
    pub fn is_native(&self) -> bool {
        self.flags & access::NATIVE != 0
    }
    /// Whether it is abstract.
    pub fn is_abstract(&self) -> bool {
        self.flags & access::ABSTRACT != 0
    }
    /// Whether it is synchronized.
    pub fn is_synchronized(&self) -> bool {
        self.flags & access::SYNCHRONIZED != 0
    }
    /// Whether it is private.
    pub fn is_private(&self) -> bool {
        self.flags & access::PRIVATE != 0
    }
    /// Whether it is public.
    pub fn is_public(&self) -> bool {
        self.flags & access::PUBLIC != 0
    }
    /// `name` + `descriptor` matches.
    pub fn matches(&self, name: &str, descriptor: &str) -> bool {
        &*self.name == name && &*self.descriptor == descriptor
    }
    /// The `Class.method` text stack traces print.
    pub fn java_name(&self) -> String {
        format!("{}.{}", self.class.java_name(), self.name)
    }
}

/// A class, linked.
pub struct Class {
    /// Its name in internal form (`java/lang/String`, `[I`).
    pub name: Box<str>,
    /// What sort it is.
    pub kind: ClassKind,
    /// Access flags.
    pub flags: u16,
    /// Its superclass (`None` for `Object`, interfaces have `Object`).
    pub super_class: Option<&'static Class>,
    /// Its direct superinterfaces.
    pub interfaces: Vec<&'static Class>,
    /// Every interface it implements, transitively (for `instanceof` and
    /// interface dispatch), each once.
    pub all_interfaces: Vec<&'static Class>,
    /// The superclass chain from `Object` down to this class (a Cohen
    /// display: `a <: b` for a class `b` is `a.supers.get(b.depth) == b`).
    pub supers: Vec<&'static Class>,
    /// Index of this class in `supers`.
    pub depth: usize,
    /// Its declared fields.
    pub fields: Vec<Field>,
    /// Its declared methods.
    pub methods: Vec<&'static Method>,
    /// Virtual dispatch table (classes; arrays have `Object`'s).
    pub vtable: Vec<&'static Method>,
    /// The first [`VTABLE_HEAD`] entries of `vtable` (`None` past its
    /// end), inside the class: compiled code's virtual dispatch and the
    /// guard of a call inlined behind it read an entry with one load from
    /// the class, not the vector's pointer and then the entry (HotSpot's
    /// klass embeds its whole vtable the same way).
    pub vtable_head: [Option<&'static Method>; VTABLE_HEAD],
    /// Interface dispatch: per implemented interface, the method for each
    /// of the interface's own methods, in the interface's `methods` order
    /// (`None` where none is found: `AbstractMethodError` when called).
    pub itable: Vec<(&'static Class, Vec<Option<&'static Method>>)>,
    /// Reference slots of an instance: its reference fields (the
    /// superclass's included), rounded up to an odd count on a heap with
    /// compressed references ([`Class::ref_fields`] says why).
    pub nrefs: u32,
    /// Reference fields of an instance (the superclass's included): the
    /// index a subclass's first reference field takes. Where `nrefs`
    /// rounds it up, the last slot is never a field's and stays null; it
    /// costs no memory (a tagged instance's slots start 4 bytes into a word,
    /// `fastpath::gc::layout`, so an odd count of 4-byte slots ends where
    /// the cell would pad to anyway) and makes every instance's data words
    /// start at `4 * nrefs` past its first reference, one scaled index from
    /// the count with no rounding, as with 8-byte slots.
    pub ref_fields: u32,
    /// Bytes of an instance's data area: its primitive fields (the class is
    /// the layout word's tag, `object/mod.rs`).
    /// For an array class, the class word and the length.
    pub data_bytes: u32,
    /// Static field storage: one slot per static field.
    pub statics: Box<[AtomicU64]>,
    /// The slots of `statics` that hold references (roots).
    pub static_refs: Vec<u32>,
    /// Initialization state (`InitState` as a byte).
    pub init_state: AtomicU8,
    /// The thread (its `sync` owner id) running `<clinit>` while
    /// `Initializing`.
    pub init_thread: AtomicUsize,
    /// Initialization's lock and condition (JVMS 5.5's LC).
    pub init_lock: (Mutex<()>, Condvar),
    /// The `java.lang.Class` object, made on first use: a global root.
    pub mirror: OnceLock<&'static AtomicUsize>,
    /// The component class of an array class.
    pub component: Option<&'static Class>,
    /// The array class whose component this is, once made.
    pub array_class: OnceLock<&'static Class>,
    /// The parsed class file (constant pool, code), for instance classes.
    pub file: Option<ClassFile>,
    /// Resolved constant-pool entries (`link/resolve.rs`), by index.
    pub resolved: Box<[OnceLock<crate::link::resolve::Resolved>]>,
    /// The `SourceFile` attribute.
    pub source_file: Option<Box<str>>,
    /// Whether the class came from the built-in class library (stack
    /// traces print `java.base/` before its frames).
    pub is_boot: bool,
    /// A class the VM spun (lambda, concatenation, record methods): a
    /// hidden class, whose frames stack traces leave out, as HotSpot's.
    pub hidden: bool,
    /// Whether the class or a superclass declares a `finalize`-free
    /// `Throwable` (cached: exceptions are walked often).
    pub is_throwable: bool,
}

impl std::fmt::Debug for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Class({})", self.name)
    }
}

impl Class {
    /// Whether it is an interface.
    pub fn is_interface(&self) -> bool {
        self.flags & access::INTERFACE != 0
    }
    /// Whether it is abstract.
    pub fn is_abstract(&self) -> bool {
        self.flags & access::ABSTRACT != 0
    }
    /// Whether it is an array class.
    pub fn is_array(&self) -> bool {
        matches!(self.kind, ClassKind::Array { .. })
    }
    /// The element kind of an array class.
    pub fn elem_kind(&self) -> Option<Kind> {
        match self.kind {
            ClassKind::Array { elem } => Some(elem),
            _ => None,
        }
    }
    /// The Java name (`java.lang.String`, `[I`, `[Ljava.lang.String;`).
    pub fn java_name(&self) -> String {
        match self.kind {
            ClassKind::Primitive(k) => k.java_name().to_string(),
            _ => self.name.replace('/', "."),
        }
    }
    /// Initialization state.
    #[inline(always)]
    pub fn state(&self) -> InitState {
        // Acquire: a thread that sees Initialized sees the statics
        // `<clinit>` wrote (JVMS 5.5 step 10's happens-before).
        match self.init_state.load(Ordering::Acquire) {
            0 => InitState::Linked,
            1 => InitState::Initializing,
            2 => InitState::Initialized,
            _ => InitState::Erroneous,
        }
    }
    /// Whether initialized (the interpreter's fast check).
    #[inline(always)]
    pub fn is_initialized(&self) -> bool {
        // Acquire: as `state`.
        self.init_state.load(Ordering::Acquire) == InitState::Initialized as u8
    }

    /// Whether instances of `self` are instances of `other` (JVMS
    /// `checkcast`/`instanceof` rules, arrays covariant).
    pub fn is_subclass_of(&'static self, other: &'static Class) -> bool {
        if std::ptr::eq(self, other) {
            return true;
        }
        if other.is_interface() {
            if self.is_array() {
                return matches!(&*other.name, "java/lang/Cloneable" | "java/io/Serializable");
            }
            return self.all_interfaces.iter().any(|i| std::ptr::eq(*i, other));
        }
        if let (Some(a), Some(b)) = (self.component, other.component) {
            // Both arrays: reference components covariant, primitives exact.
            if self.elem_kind() == Some(Kind::Ref) && other.elem_kind() == Some(Kind::Ref) {
                return a.is_subclass_of(b);
            }
            return false;
        }
        if other.is_array() {
            return false;
        }
        // `other` a class: the display.
        self.supers
            .get(other.depth)
            .is_some_and(|c| std::ptr::eq(*c, other))
    }

    /// The declared field `name` with `descriptor`.
    pub fn declared_field(&self, name: &str, descriptor: &str) -> Option<&Field> {
        self.fields
            .iter()
            .find(|f| &*f.name == name && &*f.descriptor == descriptor)
    }

    /// The declared method `name` + `descriptor`.
    pub fn declared_method(&self, name: &str, descriptor: &str) -> Option<&'static Method> {
        self.methods.iter().copied().find(|m| m.matches(name, descriptor))
    }

    /// The vtable's method for a virtual call of `m` (a method of a
    /// superclass) on an instance of this class.
    #[inline(always)]
    pub fn vtable_method(&self, index: usize) -> Option<&'static Method> {
        // The class's own copy first: one load, not the vector's pointer
        // and then the entry (`None` past the vtable's end, as `get`).
        match self.vtable_head.get(index) {
            Some(&m) => m,
            None => self.vtable.get(index).copied(),
        }
    }

    /// The implementation of method `index` of interface `iface` in this
    /// class (interface dispatch).
    pub fn itable_method(&self, iface: &'static Class, index: usize) -> Option<&'static Method> {
        self.itable
            .iter()
            .find(|(i, _)| std::ptr::eq(*i, iface))
            .and_then(|(_, ms)| ms.get(index).copied().flatten())
    }

    /// The constant pool (instance classes).
    pub fn cp(&self) -> &crate::classfile::ConstantPool {
        &self
            .file
            .as_ref()
            .expect("an instance class has a class file")
            .constant_pool
    }

    /// The package part of the name (`java/lang` for `java/lang/String`).
    pub fn package(&self) -> &str {
        let n = self.name.trim_start_matches('[');
        n.rfind('/').map_or("", |i| &n[..i])
    }
}

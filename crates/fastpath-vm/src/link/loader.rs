//! Loading and linking (JVMS 5.3, 5.4): finding a class's bytes (the
//! built-in class library first, then the class path), parsing, loading
//! its superclass and interfaces, laying out its fields, building its
//! vtable and itables, and publishing it in the registry.
//!
//! Where it sits: below the interpreter and the resolver (`resolve.rs`),
//! which ask [`Loader::load`] for classes by name; above `classfile`.
//! Loading never allocates on the heap (no safepoint inside), so the
//! registry lock is never held across one; `<clinit>` runs later
//! (`init.rs`). Two threads may load the same class at once: both link
//! it, the first to publish wins and the other's copy is dropped (loading
//! has no side effect a program sees).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize};
use std::sync::{Condvar, Mutex, OnceLock};

use super::archive::Archive;
use super::class::{AtomicU32Cell, Class, ClassKind, Field, InitState, Kind, Method};
use super::classpath::ClassPath;
use crate::classfile::{access, ClassFile, FieldType, MethodDescriptor};
use crate::runtime::Error;

/// The class registry and the places classes come from.
pub struct Loader {
    boot: Option<Archive>,
    path: ClassPath,
    classes: Mutex<HashMap<Box<str>, &'static Class>>,
    methods: Mutex<Vec<&'static Method>>,
    /// Every class, in load order (the statics scanner walks it).
    all: Mutex<Vec<&'static Class>>,
    /// Round each class's reference slots up to an odd count (a heap with
    /// compressed references: [`Class::ref_fields`]).
    odd_refs: bool,
    /// The heap whose tag table learns each instance class's counts
    /// ([`Loader::set_heap`]).
    heap: OnceLock<&'static fastpath::gc::Heap>,
}

/// The deepest chain of classes loading one another (superclasses,
/// interfaces) a thread may have.
const MAX_LOAD_DEPTH: usize = 256;

std::thread_local! {
    /// Classes this thread is loading (ClassCircularityError detection).
    static LOADING: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // No code panics while holding these locks.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Loader {
    /// A loader over the built-in archive `boot` and the class path.
    pub fn new(boot: Option<Archive>, path: ClassPath) -> Loader {
        Loader {
            boot,
            path,
            classes: Mutex::new(HashMap::with_capacity(256)),
            methods: Mutex::new(Vec::with_capacity(4096)),
            all: Mutex::new(Vec::with_capacity(256)),
            odd_refs: false,
            heap: OnceLock::new(),
        }
    }

    /// This loader, laying out instances for a heap whose reference slots
    /// are compressed (`true`: an odd slot count, [`Class::ref_fields`])
    /// or full-width.
    pub fn with_odd_refs(mut self, odd: bool) -> Loader {
        self.odd_refs = odd;
        self
    }

    /// Gives the loader the heap its instances live in: every class loaded
    /// so far and from now on has its tag defined there with its counts
    /// (`fastpath::gc::Heap::define_tag`), which the collector reads for a
    /// tagged instance and compiled code's inline allocation relies on.
    pub fn set_heap(&self, heap: &'static fastpath::gc::Heap) -> Result<(), String> {
        // Under the registry's lock, which every class takes to join it
        // after defining its tag if the heap is set (`Loader::register`).
        let all = lock(&self.all);
        if self.heap.set(heap).is_err() {
            return Err("the loader has a heap already".into());
        }
        for &c in all.iter() {
            define_tag(heap, c)?;
        }
        Ok(())
    }

    /// Every class loaded so far.
    pub fn all_classes(&self) -> Vec<&'static Class> {
        lock(&self.all).clone()
    }

    /// Calls `f` on every class loaded so far, under the registry's list
    /// lock (held briefly; never across a safepoint).
    pub fn for_each_class(&self, mut f: impl FnMut(&'static Class)) {
        for c in lock(&self.all).iter() {
            f(c);
        }
    }

    /// The method with id `id`.
    pub fn method(&self, id: u32) -> Option<&'static Method> {
        lock(&self.methods).get(id as usize).copied()
    }

    /// An already loaded class.
    pub fn find_loaded(&self, name: &str) -> Option<&'static Class> {
        lock(&self.classes).get(name).copied()
    }

    /// The class `name` (internal form, or an array descriptor), loaded
    /// and linked. Errors are the Java exceptions loading throws.
    pub fn load(&self, name: &str) -> Result<&'static Class, Error> {
        if let Some(c) = self.find_loaded(name) {
            return Ok(c);
        }
        if name.starts_with('[') {
            return self.load_array(name);
        }
        if let Some(k) = primitive_kind(name) {
            return self.publish(primitive_class(k));
        }
        let (circular, depth) = LOADING.with(|l| {
            let l = l.borrow();
            (l.iter().any(|n| n == name), l.len())
        });
        if depth >= MAX_LOAD_DEPTH {
            // A hostile class path can chain superclasses without end; the
            // loader's recursion must not run the native stack out.
            return Err(Error::new(
                "java/lang/StackOverflowError",
                format!(
                    "class hierarchy deeper than {MAX_LOAD_DEPTH} at {}",
                    name.replace('/', ".")
                ),
            ));
        }
        if circular {
            return Err(Error::new(
                "java/lang/ClassCircularityError",
                name.replace('/', "."),
            ));
        }
        LOADING.with(|l| l.borrow_mut().push(name.to_string()));
        let r = self.load_instance(name);
        LOADING.with(|l| l.borrow_mut().pop());
        r
    }

    fn publish(&self, c: Class) -> Result<&'static Class, Error> {
        let mut classes = lock(&self.classes);
        if let Some(existing) = classes.get(&c.name) {
            return Ok(existing);
        }
        let c: &'static Class = place(c)?;
        self.register(c)?;
        classes.insert(c.name.clone(), c);
        Ok(c)
    }

    fn bytes_of(&self, name: &str) -> Result<(std::borrow::Cow<'static, [u8]>, bool), Error> {
        if let Some(b) = self.boot.as_ref().and_then(|a| a.get(name)) {
            return Ok((std::borrow::Cow::Borrowed(b), true));
        }
        if name.starts_with("java/") {
            // The class library is the built-in one only (java refuses
            // java.* classes from the class path too).
            return Err(Error::no_class_def(name));
        }
        match self.path.find(name) {
            Some(Ok(b)) => Ok((std::borrow::Cow::Owned(b), false)),
            Some(Err(e)) => Err(Error::new("java/lang/ClassFormatError", format!("{name}: {e}"))),
            None => Err(Error::no_class_def(name)),
        }
    }

    fn load_instance(&self, name: &str) -> Result<&'static Class, Error> {
        let (bytes, is_boot) = self.bytes_of(name)?;
        let file = ClassFile::parse(&bytes)?;
        if file.this_class != name {
            return Err(Error::no_class_def(&format!(
                "{name} (wrong name: {})",
                file.this_class
            )));
        }
        self.define(file, is_boot, false)
    }

    /// Links a parsed class (from the class path, the archive, or one the
    /// VM made: lambda and string-concatenation classes) and publishes it.
    pub fn define(&self, file: ClassFile, is_boot: bool, hidden: bool) -> Result<&'static Class, Error> {
        let name = file.this_class.clone();
        let super_class = match &file.super_class {
            None => None,
            Some(s) => {
                let sc = self.load(s)?;
                if sc.is_interface() {
                    return Err(Error::incompatible(format!(
                        "class {} has interface {} as super class",
                        name.replace('/', "."),
                        sc.java_name()
                    )));
                }
                if sc.flags & access::FINAL != 0 {
                    return Err(Error::verify(format!(
                        "Cannot inherit from final class {}",
                        sc.java_name()
                    )));
                }
                Some(sc)
            }
        };
        let mut interfaces = Vec::with_capacity(file.interfaces.len());
        for i in &file.interfaces {
            let ic = self.load(i)?;
            if !ic.is_interface() {
                return Err(Error::incompatible(format!(
                    "class {} can not implement {}, because it is not an interface",
                    name.replace('/', "."),
                    ic.java_name()
                )));
            }
            interfaces.push(ic);
        }
        // Every interface, transitively: the superclass's, then each direct
        // one's, each once.
        let mut all_interfaces: Vec<&'static Class> =
            super_class.map_or(Vec::new(), |s| s.all_interfaces.clone());
        for i in &interfaces {
            for j in i.all_interfaces.iter().chain(std::iter::once(i)) {
                if !all_interfaces.iter().any(|k| std::ptr::eq(*k, *j)) {
                    all_interfaces.push(j);
                }
            }
        }

        // Fields: instance references get indices after the superclass's;
        // primitives are packed after its data bytes, largest first.
        let (mut nrefs, mut data_bytes) = super_class.map_or((0u32, 0u32), |s| (s.ref_fields, s.data_bytes));
        let mut fields: Vec<Field> = Vec::with_capacity(file.fields.len());
        let mut nstatics = 0u32;
        let mut static_refs = Vec::new();
        for f in &file.fields {
            let kind = Kind::of(&f.field_type);
            let offset = if f.access_flags & access::STATIC != 0 {
                if kind == Kind::Ref {
                    static_refs.push(nstatics);
                }
                nstatics += 1;
                nstatics - 1
            } else if kind == Kind::Ref {
                nrefs += 1;
                nrefs - 1
            } else {
                0 // placed below
            };
            fields.push(Field {
                name: f.name.as_str().into(),
                descriptor: f.descriptor.as_str().into(),
                flags: f.access_flags,
                kind,
                offset,
                constant_value: f.constant_value,
            });
        }
        for size in [8u32, 4, 2, 1] {
            for f in fields.iter_mut() {
                if !f.is_static() && f.kind != Kind::Ref && f.kind.size() as u32 == size {
                    data_bytes = data_bytes.next_multiple_of(size);
                    f.offset = data_bytes;
                    data_bytes += size;
                }
            }
        }
        let data_bytes = data_bytes.next_multiple_of(8);
        let ref_fields = nrefs;
        if self.odd_refs && nrefs % 2 == 0 {
            nrefs += 1;
        }
        // An instance is tagged with its class (`object/mod.rs`): the
        // heap's tag table holds 16-bit counts.
        let max = fastpath::gc::layout::MAX_TAGGED_COUNT;
        if nrefs as usize > max || data_bytes as usize / 8 > max {
            return Err(Error::new(
                "java/lang/LinkageError",
                format!(
                    "{} has {ref_fields} reference fields and {data_bytes} bytes of other fields with its \
                     superclasses' ({max} references and {max} 8-byte words at most)",
                    name.replace('/', ".")
                ),
            ));
        }

        let mut supers = super_class.map_or(Vec::new(), |s| s.supers.clone());
        let depth = supers.len();
        let is_throwable = name == "java/lang/Throwable" || super_class.is_some_and(|s| s.is_throwable);

        let class = Class {
            name: name.as_str().into(),
            kind: ClassKind::Instance,
            flags: file.access_flags,
            super_class,
            interfaces,
            all_interfaces,
            supers: Vec::new(),
            depth,
            fields,
            methods: Vec::new(),
            vtable: Vec::new(),
            vtable_head: [None; super::class::VTABLE_HEAD],
            itable: Vec::new(),
            nrefs,
            ref_fields,
            data_bytes,
            statics: (0..nstatics).map(|_| AtomicU64::new(0)).collect(),
            static_refs,
            init_state: AtomicU8::new(InitState::Linked as u8),
            init_thread: AtomicUsize::new(0),
            init_lock: (Mutex::new(()), Condvar::new()),
            mirror: OnceLock::new(),
            component: None,
            array_class: OnceLock::new(),
            source_file: file.source_file.as_deref().map(Into::into),
            resolved: (0..file.constant_pool.len()).map(|_| OnceLock::new()).collect(),
            file: Some(file),
            is_boot,
            hidden,
            is_throwable,
        };
        // The class must be at its final address before methods point at
        // it: leak it, then fill in what names it (it is published only at
        // the end, so no other thread sees it half-built).
        let class: &'static mut Class = place(class)?;
        let class_ptr: *mut Class = class;
        let class_ref: &'static Class = unsafe_static(class_ptr);
        supers.push(class_ref);
        let mut methods = Vec::new();
        for m in &class_ref.file.as_ref().expect("instance class").methods {
            let method = Method {
                class: class_ref,
                name: m.name.as_str().into(),
                descriptor: m.descriptor.as_str().into(),
                desc: m.method_descriptor.clone(),
                flags: m.access_flags,
                arg_slots: m.arg_slots_with_receiver() as u16,
                ret_slots: m.method_descriptor.ret_slots() as u8,
                ret_kind: m.method_descriptor.ret.as_ref().map(Kind::of),
                vtable_index: AtomicU32Cell::default(),
                code: m.code.clone(),
                decoded: OnceLock::new(),
                jit: Default::default(),
                native: OnceLock::new(),
                id: 0,
            };
            methods.push(self.register_method(method));
        }
        let vtable = build_vtable(
            super_class,
            &methods,
            &class_ref.all_interfaces,
            class_ref.is_interface(),
        );
        let itable = build_itable(&vtable, &class_ref.all_interfaces, class_ref.is_interface());
        // SAFETY: `class_ptr` is the leaked class, not yet published to any
        // other thread or stored anywhere else; the only references made so
        // far (`class_ref`, the methods' `class`) are not read until it is
        // published below, so this exclusive write aliases no live read.
        unsafe {
            let c = &mut *class_ptr;
            c.supers = supers;
            c.methods = methods;
            c.vtable_head = super::class::vtable_head(&vtable);
            c.vtable = vtable;
            c.itable = itable;
        }
        for (i, m) in class_ref.vtable.iter().enumerate() {
            if std::ptr::eq(m.class, class_ref) {
                m.vtable_index.set(i as u32);
            }
        }
        let mut classes = lock(&self.classes);
        if let Some(existing) = classes.get(&*class_ref.name) {
            // Another thread linked it first: use its copy (ours stays in
            // the class space, unreachable, harmless).
            return Ok(existing);
        }
        self.register(class_ref)?;
        classes.insert(class_ref.name.clone(), class_ref);
        Ok(class_ref)
    }

    /// Adds `c` to the list of every class, its tag defined in the heap
    /// first when the loader has one (`OutOfMemoryError` if the heap
    /// refuses it: a tag beyond its table).
    fn register(&self, c: &'static Class) -> Result<(), Error> {
        let mut all = lock(&self.all);
        if let Some(heap) = self.heap.get() {
            define_tag(heap, c).map_err(|e| Error::new("java/lang/OutOfMemoryError", e))?;
        }
        all.push(c);
        Ok(())
    }

    fn register_method(&self, mut m: Method) -> &'static Method {
        let mut all = lock(&self.methods);
        m.id = all.len() as u32;
        let m: &'static Method = Box::leak(Box::new(m));
        all.push(m);
        m
    }

    fn load_array(&self, name: &str) -> Result<&'static Class, Error> {
        let ft = FieldType::parse(name).map_err(|_| Error::no_class_def(name))?;
        let FieldType::Array(component_type) = ft else {
            return Err(Error::no_class_def(name));
        };
        let elem = Kind::of(&component_type);
        let component = self.load(&component_type_name(&component_type))?;
        let object = self.load("java/lang/Object")?;
        let cloneable = self.load("java/lang/Cloneable")?;
        let serializable = self.load("java/io/Serializable")?;
        let class = Class {
            name: name.into(),
            kind: ClassKind::Array { elem },
            flags: access::PUBLIC | access::FINAL | access::ABSTRACT,
            super_class: Some(object),
            interfaces: vec![cloneable, serializable],
            all_interfaces: vec![cloneable, serializable],
            supers: vec![object],
            depth: 1,
            fields: Vec::new(),
            methods: Vec::new(),
            vtable: object.vtable.clone(),
            vtable_head: object.vtable_head,
            itable: vec![(cloneable, Vec::new()), (serializable, Vec::new())],
            nrefs: 0,
            ref_fields: 0,
            data_bytes: 16,
            statics: Box::new([]),
            static_refs: Vec::new(),
            init_state: AtomicU8::new(InitState::Initialized as u8),
            init_thread: AtomicUsize::new(0),
            init_lock: (Mutex::new(()), Condvar::new()),
            mirror: OnceLock::new(),
            component: Some(component),
            array_class: OnceLock::new(),
            file: None,
            resolved: Box::new([]),
            source_file: None,
            is_boot: component.is_boot,
            hidden: false,
            is_throwable: false,
        };
        let c = self.publish(class)?;
        let _ = component.array_class.set(c);
        Ok(c)
    }

    /// The array class whose components are `c`.
    pub fn array_of(&self, c: &'static Class) -> Result<&'static Class, Error> {
        if let Some(a) = c.array_class.get() {
            return Ok(a);
        }
        let name = match c.kind {
            ClassKind::Primitive(k) => format!("[{}", k.descriptor()),
            ClassKind::Array { .. } => format!("[{}", c.name),
            ClassKind::Instance => format!("[L{};", c.name),
        };
        if name.len() > 255 + 2 && name.bytes().take_while(|&b| b == b'[').count() > 255 {
            return Err(Error::new(
                "java/lang/IllegalArgumentException",
                "array type has more than 255 dimensions",
            ));
        }
        self.load(&name)
    }
}

/// `c` moved into the class space (`class_space.rs`), where its tag names it.
/// Defines the tag of instance class `c` in `heap` with its counts.
fn define_tag(heap: &fastpath::gc::Heap, c: &'static Class) -> Result<(), String> {
    if c.is_array() {
        return Ok(());
    }
    heap.define_tag(
        super::class_space::tag(c),
        c.nrefs as usize,
        c.data_bytes as usize / 8,
    )
    .map_err(|e| format!("{}: {e}", c.name))
}

fn place(c: Class) -> Result<&'static mut Class, Error> {
    super::class_space::place(c).map_err(|e| Error::new("java/lang/OutOfMemoryError", e))
}

/// `&'static` from the placed class's pointer.
fn unsafe_static(p: *mut Class) -> &'static Class {
    // SAFETY: `p` comes from `place`, so it is valid for the rest of
    // the process; the one exclusive write through it (in `define`)
    // happens before any read through this reference.
    unsafe { &*p }
}

fn component_type_name(t: &FieldType) -> String {
    match t {
        FieldType::Object(n) => n.clone(),
        FieldType::Array(_) => t.descriptor(),
        prim => Kind::of(prim).java_name().to_string(),
    }
}

/// The primitive type a registry name stands for: `int`, `boolean`, ...
/// (keywords, so no class file can take these names).
fn primitive_kind(name: &str) -> Option<Kind> {
    Some(match name {
        "boolean" => Kind::Boolean,
        "byte" => Kind::Byte,
        "char" => Kind::Char,
        "short" => Kind::Short,
        "int" => Kind::Int,
        "float" => Kind::Float,
        "long" => Kind::Long,
        "double" => Kind::Double,
        _ => return None,
    })
}

/// The class of a primitive type (`int.class`), named by its Java name in
/// the registry.
fn primitive_class(k: Kind) -> Class {
    Class {
        name: k.java_name().into(),
        kind: ClassKind::Primitive(k),
        flags: access::PUBLIC | access::FINAL | access::ABSTRACT,
        super_class: None,
        interfaces: Vec::new(),
        all_interfaces: Vec::new(),
        supers: Vec::new(),
        depth: 0,
        fields: Vec::new(),
        methods: Vec::new(),
        vtable: Vec::new(),
        vtable_head: [None; super::class::VTABLE_HEAD],
        itable: Vec::new(),
        nrefs: 0,
        ref_fields: 0,
        data_bytes: 8,
        statics: Box::new([]),
        static_refs: Vec::new(),
        init_state: AtomicU8::new(InitState::Initialized as u8),
        init_thread: AtomicUsize::new(0),
        init_lock: (Mutex::new(()), Condvar::new()),
        mirror: OnceLock::new(),
        component: None,
        array_class: OnceLock::new(),
        file: None,
        resolved: Box::new([]),
        source_file: None,
        is_boot: true,
        hidden: false,
        is_throwable: false,
    }
}

/// Whether `m` (declared in a superclass) may be overridden by a method of
/// `class` (JVMS 5.4.5: public or protected, or package-private in the
/// same package).
fn overridable(m: &Method, class_package: &str) -> bool {
    !m.is_private()
        && !m.is_static()
        && (m.flags & (access::PUBLIC | access::PROTECTED) != 0 || m.class.package() == class_package)
}

/// The vtable: the superclass's, each entry replaced by an overriding
/// declared method, then the class's new virtual methods, then (classes
/// only) one entry per interface method no class method implements (a
/// "miranda" slot: its default method, or the abstract interface method).
fn build_vtable(
    super_class: Option<&'static Class>,
    methods: &[&'static Method],
    all_interfaces: &[&'static Class],
    is_interface: bool,
) -> Vec<&'static Method> {
    if is_interface {
        return Vec::new();
    }
    let mut vt: Vec<&'static Method> = super_class.map_or(Vec::new(), |s| s.vtable.clone());
    let package = methods.first().map_or("", |m| m.class.package());
    for m in methods {
        if m.is_static() || m.is_private() || &*m.name == "<init>" || &*m.name == "<clinit>" {
            continue;
        }
        let mut overrode = false;
        for slot in vt.iter_mut() {
            if slot.matches(&m.name, &m.descriptor)
                && (slot.class.is_interface() || overridable(slot, package))
            {
                *slot = m;
                overrode = true;
            }
        }
        if !overrode {
            vt.push(m);
        }
    }
    for iface in all_interfaces {
        for im in &iface.methods {
            if im.is_static() || im.is_private() || &*im.name == "<clinit>" {
                continue;
            }
            if vt.iter().any(|v| v.matches(&im.name, &im.descriptor)) {
                continue;
            }
            vt.push(select_default(im, all_interfaces).unwrap_or(im));
        }
    }
    // A miranda slot holding an abstract method may have a default in a
    // more specific interface than the one listed first: refine.
    for slot in vt.iter_mut() {
        if slot.class.is_interface() {
            if let Some(d) = select_default(slot, all_interfaces) {
                *slot = d;
            }
        }
    }
    vt
}

/// The maximally specific non-abstract interface method matching `m`
/// among `interfaces` (JVMS 5.4.3.3), if exactly one.
fn select_default(m: &Method, interfaces: &[&'static Class]) -> Option<&'static Method> {
    let candidates: Vec<&'static Method> = interfaces
        .iter()
        .filter_map(|i| i.declared_method(&m.name, &m.descriptor))
        .filter(|c| !c.is_static() && !c.is_private())
        .collect();
    // Keep those no other candidate's interface is more specific than.
    let specific: Vec<&'static Method> = candidates
        .iter()
        .copied()
        .filter(|c| {
            !candidates
                .iter()
                .any(|o| !std::ptr::eq(o.class, c.class) && o.class.is_subclass_of(c.class))
        })
        .collect();
    let concrete: Vec<&'static Method> = specific.into_iter().filter(|c| !c.is_abstract()).collect();
    (concrete.len() == 1).then(|| concrete[0])
}

/// Per implemented interface, the implementation of each of its methods
/// (by name and descriptor in the vtable, public non-static).
fn build_itable(
    vtable: &[&'static Method],
    all_interfaces: &[&'static Class],
    is_interface: bool,
) -> Vec<(&'static Class, Vec<Option<&'static Method>>)> {
    if is_interface {
        return Vec::new();
    }
    all_interfaces
        .iter()
        .map(|iface| {
            let impls = iface
                .methods
                .iter()
                .map(|im| {
                    if im.is_static() || im.is_private() {
                        return None;
                    }
                    vtable
                        .iter()
                        .copied()
                        .find(|v| v.matches(&im.name, &im.descriptor))
                        .filter(|v| !v.is_abstract() && (v.is_public() || v.class.is_interface()))
                })
                .collect();
            (*iface, impls)
        })
        .collect()
}

/// The descriptor a method of this name and type would have (tests).
pub fn parse_method_descriptor(d: &str) -> Option<MethodDescriptor> {
    MethodDescriptor::parse(d).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loader() -> Loader {
        Loader::new(Archive::open(crate::CLASSLIB), ClassPath::default())
    }

    #[test]
    fn layouts_keep_inherited_fields_in_place_and_pack_primitives() {
        let l = loader();
        let hm = l.load("java/util/HashMap").unwrap();
        let lhm = l.load("java/util/LinkedHashMap").unwrap();
        // A subclass keeps every inherited field's reference index and
        // data offset, and adds its own after them.
        for f in hm.fields.iter().filter(|f| !f.is_static()) {
            let (owner, g) = crate::link::resolve::find_field(lhm, &f.name, &f.descriptor).unwrap();
            assert!(std::ptr::eq(owner, hm));
            assert_eq!(f.offset, g.offset);
        }
        assert!(lhm.nrefs > hm.nrefs && lhm.data_bytes >= hm.data_bytes);
        // Every primitive field is aligned to its size and inside the data
        // area (which starts with the fields: an instance has no class word).
        for c in [
            hm,
            lhm,
            l.load("java/lang/String").unwrap(),
            l.load("java/lang/Thread").unwrap(),
        ] {
            for f in c.fields.iter().filter(|f| !f.is_static() && f.kind != Kind::Ref) {
                let size = f.kind.size() as u32;
                assert_eq!(f.offset % size, 0, "{}.{}", c.name, f.name);
                assert!(f.offset + size <= c.data_bytes, "{}.{}", c.name, f.name);
            }
        }
    }

    /// For a heap with compressed references each class's reference slots
    /// are rounded up to an odd count, its fields' indices unchanged: a
    /// subclass's first reference field follows the superclass's last
    /// field (not its padding slot), and the count is the padded one.
    #[test]
    fn odd_reference_slots_keep_field_indices() {
        let (full, odd) = (loader(), loader().with_odd_refs(true));
        for name in [
            "java/util/HashMap$Node",
            "java/util/LinkedHashMap$Entry",
            "java/util/HashMap",
            "java/lang/Integer",
            "java/lang/String",
        ] {
            let (a, b) = (full.load(name).unwrap(), odd.load(name).unwrap());
            assert_eq!(a.ref_fields, b.ref_fields, "{name}");
            assert_eq!(a.nrefs, a.ref_fields, "{name}: full-width slots are not padded");
            assert_eq!(b.nrefs, b.ref_fields | 1, "{name}");
            for (f, g) in a.fields.iter().zip(&b.fields) {
                assert_eq!((&f.name, f.offset), (&g.name, g.offset), "{name}");
            }
        }
        // HashMap.Node: key, value, next (3 slots, no padding);
        // LinkedHashMap.Entry adds before and after at indices 3 and 4 (5);
        // Integer has none (one padding slot, which fills the layout
        // word's second half).
        let node = odd.load("java/util/HashMap$Node").unwrap();
        let entry = odd.load("java/util/LinkedHashMap$Entry").unwrap();
        let integer = odd.load("java/lang/Integer").unwrap();
        assert_eq!((node.ref_fields, node.nrefs), (3, 3));
        assert_eq!((entry.ref_fields, entry.nrefs), (5, 5));
        assert_eq!((integer.ref_fields, integer.nrefs), (0, 1));
        let before = entry.fields.iter().find(|f| &*f.name == "before").unwrap();
        assert_eq!(before.offset, 3);
    }

    /// Every class lives in the class space, where its tag names it: the
    /// object model's decode (`class_of_tag`) and compiled code's (a
    /// tagged layout word shifted by the slot's log2, plus the decode offset)
    /// give the class back.
    #[test]
    fn a_classs_tag_decodes_to_it_both_ways() {
        use crate::link::class_space;
        let l = loader();
        let offset = class_space::decode_offset().unwrap();
        for name in [
            "java/lang/Object",
            "java/lang/String",
            "java/util/HashMap",
            "[I",
            "[Ljava/lang/String;",
        ] {
            let c = l.load(name).unwrap();
            let tag = class_space::tag(c);
            // SAFETY: the tag of a placed class.
            let back = unsafe { class_space::class_of_tag(tag) };
            assert!(std::ptr::eq(back, c), "{name}");
            let w = fastpath::gc::layout::tagged_layout_word(tag).unwrap();
            let decoded = (w << class_space::SLOT_SHIFT).wrapping_add(offset as usize);
            assert_eq!(decoded, c as *const Class as usize, "{name}");
        }
    }

    /// A class's inline copy of its vtable's first entries is the vtable's,
    /// for an array class, for classes of short vtables and for one whose
    /// vtable runs past the copy.
    #[test]
    fn the_vtable_head_is_the_vtables_first_entries() {
        use crate::link::class::VTABLE_HEAD;
        let l = loader();
        let mut longer = false;
        for name in [
            "java/lang/Object",
            "java/lang/String",
            "java/util/LinkedHashMap",
            "[I",
        ] {
            let c = l.load(name).unwrap();
            longer |= c.vtable.len() > VTABLE_HEAD;
            for (i, entry) in c.vtable_head.iter().enumerate() {
                match c.vtable.get(i) {
                    Some(m) => assert!(entry.is_some_and(|e| std::ptr::eq(e, *m)), "{name} [{i}]"),
                    None => assert!(entry.is_none(), "{name} [{i}] past the vtable's end"),
                }
            }
        }
        assert!(longer, "no class with a vtable longer than the copy");
    }

    #[test]
    fn vtables_override_in_place_and_itables_find_defaults() {
        let l = loader();
        let object = l.load("java/lang/Object").unwrap();
        let string = l.load("java/lang/String").unwrap();
        let i = object
            .vtable
            .iter()
            .position(|m| m.matches("hashCode", "()I"))
            .unwrap();
        assert!(
            std::ptr::eq(string.vtable[i].class, string),
            "String overrides hashCode in Object's slot"
        );
        // LinkedList does not declare `replaceAll`: its itable entry is
        // List's default method.
        let list = l.load("java/util/List").unwrap();
        let ll = l.load("java/util/LinkedList").unwrap();
        let k = list
            .methods
            .iter()
            .position(|m| m.matches("replaceAll", "(Ljava/util/function/UnaryOperator;)V"))
            .unwrap();
        let imp = ll.itable_method(list, k).unwrap();
        assert!(std::ptr::eq(imp.class, list) && !imp.is_abstract());
        assert!(ll.is_subclass_of(list) && !list.is_subclass_of(ll));
    }

    #[test]
    fn arrays_primitives_and_errors() {
        let l = loader();
        let a = l.load("[[Ljava/lang/String;").unwrap();
        assert_eq!(a.elem_kind(), Some(Kind::Ref));
        let obj_arr = l.load("[Ljava/lang/Object;").unwrap();
        assert!(a.is_subclass_of(obj_arr));
        assert!(a.is_subclass_of(l.load("java/lang/Cloneable").unwrap()));
        let ints = l.load("[I").unwrap();
        assert_eq!(ints.component.unwrap().java_name(), "int");
        assert!(!ints.is_subclass_of(obj_arr));
        // A user class named like a descriptor letter is a class, not `int`.
        assert_eq!(l.load("I").unwrap_err().class, "java/lang/NoClassDefFoundError");
        assert_eq!(
            l.load("java/lang/Nope").unwrap_err().class,
            "java/lang/NoClassDefFoundError"
        );
        assert_eq!(l.load("[Q").unwrap_err().class, "java/lang/NoClassDefFoundError");
    }
}

//! Resolution of symbolic references (JVMS 5.4.3): classes, fields,
//! methods and interface methods named in a class's constant pool, each
//! resolved once and remembered (errors included: a failed resolution
//! fails the same way every time).
//!
//! Where it sits: the interpreter's pre-decoder (`interp/decode.rs`)
//! resolves every reference of a method's code when the method first
//! runs and turns a failure into an instruction that throws it when it is
//! reached; it does not initialize classes (that is the instructions'
//! first execution, `init.rs`).

use super::class::{Class, Field, Method};
use super::loader::Loader;
use crate::classfile::constant_pool::tag;
use crate::runtime::Error;

/// A resolved constant-pool entry.
#[derive(Clone, Debug)]
pub enum Resolved {
    /// A class.
    Class(&'static Class),
    /// A field: its declaring class and the field.
    Field(&'static Class, &'static Field),
    /// A method.
    Method(&'static Method),
    /// Resolution failed with this error.
    Failed(Error),
}

/// Resolves the `Class` entry `index` of `from`'s pool.
pub fn resolve_class(loader: &Loader, from: &'static Class, index: u16) -> Result<&'static Class, Error> {
    let r = cached(from, index, || {
        let name = from.cp().class_name(index).map_err(Error::from)?;
        let c = loader.load(name)?;
        check_class_access(from, c)?;
        Ok(Resolved::Class(c))
    })?;
    match r {
        Resolved::Class(c) => Ok(c),
        _ => Err(Error::verify("constant pool entry is not a class")),
    }
}

fn cached(
    from: &'static Class,
    index: u16,
    f: impl FnOnce() -> Result<Resolved, Error>,
) -> Result<Resolved, Error> {
    let Some(slot) = from.resolved.get(index as usize) else {
        return Err(Error::verify(format!("bad constant pool index {index}")));
    };
    let r = slot.get_or_init(|| f().unwrap_or_else(Resolved::Failed));
    match r {
        Resolved::Failed(e) => Err(e.clone()),
        r => Ok(r.clone()),
    }
}

/// The package-private class library class that the classes the VM spins
/// for string concatenation call (`classlib/java/lang/StringConcatHelper.java`).
pub const CONCAT_HELPER: &str = "java/lang/StringConcatHelper";

/// Whether `from` is a class the VM spun (hidden: no program defines
/// one) and `target` the concatenation helper, which such a class may
/// use whatever its package, as the JDK's concatenation code uses its
/// `StringConcatHelper` through privileged access.
pub fn spun_caller_of_helper(from: &Class, target: &Class) -> bool {
    from.hidden && &*target.name == CONCAT_HELPER
}

fn check_class_access(from: &'static Class, c: &'static Class) -> Result<(), Error> {
    let target = match c.kind {
        super::class::ClassKind::Array { .. } => {
            // An array class is accessible if its element class is.
            let mut e = c;
            while let Some(comp) = e.component {
                e = comp;
            }
            e
        }
        _ => c,
    };
    if target.flags & crate::classfile::access::PUBLIC != 0
        || target.package() == from.package()
        || spun_caller_of_helper(from, target)
        || matches!(target.kind, super::class::ClassKind::Primitive(_))
    {
        Ok(())
    } else {
        Err(Error::new(
            "java/lang/IllegalAccessError",
            format!(
                "failed to access class {} from class {}",
                target.java_name(),
                from.java_name()
            ),
        ))
    }
}

/// Resolves the `Fieldref` entry `index`: the field and its declaring
/// class (JVMS 5.4.3.2: the class, its superinterfaces, its superclasses).
pub fn resolve_field(
    loader: &Loader,
    from: &'static Class,
    index: u16,
) -> Result<(&'static Class, &'static Field), Error> {
    let r = cached(from, index, || {
        let (t, m) = from.cp().member_ref(index).map_err(Error::from)?;
        if t != tag::FIELDREF {
            return Err(Error::verify("expected a field reference"));
        }
        let class_index = match from.cp().get(index).map_err(Error::from)? {
            crate::classfile::Constant::FieldRef(i) => i.class,
            _ => unreachable!("checked above"),
        };
        let c = resolve_class(loader, from, class_index)?;
        let (owner, f) = find_field(c, m.name, m.descriptor)
            .ok_or_else(|| Error::new("java/lang/NoSuchFieldError", m.name.to_string()))?;
        Ok(Resolved::Field(owner, f))
    })?;
    match r {
        Resolved::Field(c, f) => Ok((c, f)),
        _ => Err(Error::verify("constant pool entry is not a field")),
    }
}

/// JVMS 5.4.3.2 field lookup.
pub fn find_field(c: &'static Class, name: &str, desc: &str) -> Option<(&'static Class, &'static Field)> {
    if let Some(f) = c.declared_field(name, desc) {
        return Some((c, f));
    }
    for i in &c.interfaces {
        if let Some(r) = find_field(i, name, desc) {
            return Some(r);
        }
    }
    c.super_class.and_then(|s| find_field(s, name, desc))
}

/// Resolves a `Methodref` or `InterfaceMethodref` entry (JVMS 5.4.3.3,
/// 5.4.3.4).
pub fn resolve_method(loader: &Loader, from: &'static Class, index: u16) -> Result<&'static Method, Error> {
    let r = cached(from, index, || {
        let (t, m) = from.cp().member_ref(index).map_err(Error::from)?;
        let class_index = match from.cp().get(index).map_err(Error::from)? {
            crate::classfile::Constant::MethodRef(i) | crate::classfile::Constant::InterfaceMethodRef(i) => {
                i.class
            }
            _ => return Err(Error::verify("expected a method reference")),
        };
        let c = resolve_class(loader, from, class_index)?;
        let interface_ref = t == tag::INTERFACE_METHODREF;
        if c.is_interface() != interface_ref && !c.is_array() {
            return Err(Error::incompatible(if interface_ref {
                format!("Found class {}, but interface was expected", c.java_name())
            } else {
                format!("Found interface {}, but class was expected", c.java_name())
            }));
        }
        let method = find_method(c, m.name, m.descriptor).ok_or_else(|| {
            Error::new(
                "java/lang/NoSuchMethodError",
                format!("'{}'", pretty_method(c, m.name, m.descriptor)),
            )
        })?;
        Ok(Resolved::Method(method))
    })?;
    match r {
        Resolved::Method(m) => Ok(m),
        _ => Err(Error::verify("constant pool entry is not a method")),
    }
}

/// JVMS 5.4.3.3/5.4.3.4 method lookup: the class and its superclasses,
/// then the maximally specific superinterface method (a non-abstract one
/// preferred), then any.
pub fn find_method(c: &'static Class, name: &str, desc: &str) -> Option<&'static Method> {
    let mut k = Some(c);
    while let Some(cls) = k {
        if let Some(m) = cls.declared_method(name, desc) {
            return Some(m);
        }
        k = cls.super_class;
    }
    if c.is_interface() || c.is_array() {
        let object = c.super_class.or_else(|| c.supers.first().copied());
        if let Some(m) = object.and_then(|o| o.declared_method(name, desc)) {
            if m.is_public() && !m.is_static() {
                return Some(m);
            }
        }
    }
    let mut found: Option<&'static Method> = None;
    for i in &c.all_interfaces {
        if let Some(m) = i.declared_method(name, desc) {
            if m.is_private() || m.is_static() {
                continue;
            }
            match found {
                None => found = Some(m),
                Some(f) if f.is_abstract() && !m.is_abstract() => found = Some(m),
                Some(f) if !m.is_abstract() && m.class.is_subclass_of(f.class) => found = Some(m),
                _ => {}
            }
        }
    }
    found
}

/// `void Foo.bar(int, java.lang.String)` as HotSpot prints a method in
/// `NoSuchMethodError`.
pub fn pretty_method(c: &Class, name: &str, desc: &str) -> String {
    let d = crate::classfile::MethodDescriptor::parse(desc).ok();
    let ty = |t: &crate::classfile::FieldType| pretty_type(t);
    match d {
        Some(d) => format!(
            "{} {}.{}({})",
            d.ret.as_ref().map_or("void".to_string(), ty),
            c.java_name(),
            name,
            d.params.iter().map(ty).collect::<Vec<_>>().join(", ")
        ),
        None => format!("{}.{}{}", c.java_name(), name, desc),
    }
}

/// A field type as Java source spells it (`int[]`, `java.lang.String`).
pub fn pretty_type(t: &crate::classfile::FieldType) -> String {
    use crate::classfile::FieldType as F;
    match t {
        F::Byte => "byte".into(),
        F::Char => "char".into(),
        F::Double => "double".into(),
        F::Float => "float".into(),
        F::Int => "int".into(),
        F::Long => "long".into(),
        F::Short => "short".into(),
        F::Boolean => "boolean".into(),
        F::Object(n) => n.replace('/', "."),
        F::Array(c) => format!("{}[]", pretty_type(c)),
    }
}

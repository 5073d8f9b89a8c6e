//! Class files (JVMS chapter 4): parsing and format checking.
//!
//! Where it sits: the first stage of loading. `crate::link` hands the bytes
//! of a class (from the class path or the built-in class library) to
//! [`ClassFile::parse`], which returns the class in a shape a type checker
//! consumes: the constant pool ([`ConstantPool`], entries checked for kind),
//! fields and methods with their flags, names and descriptors, each method's
//! [`Code`] with its exception table and its `StackMapTable` parsed into
//! verification types ([`stackmap`]), the bootstrap methods, and every other
//! attribute kept raw. Bytecode is decoded by [`bytecode`]. Anything
//! malformed is a [`ClassFileError`] (thrown as `ClassFormatError` or
//! `UnsupportedClassVersionError`), never a panic.
//!
//! Format checks made here (JVMS 4.8): the magic number, the version (45 to
//! 69; preview minor versions refused), every constant's tag and
//! cross-references, class/field/method names and descriptors, access-flag
//! combinations, duplicate fields and methods, attribute lengths, exactly
//! one `Code` attribute for methods that are neither native nor abstract and
//! none for those, code length 1 to 65535, exception-table ranges inside
//! the code, `max_locals` holding the parameters, no bytes after the last
//! attribute, every NameAndType's name and descriptor, and the class
//! attributes' structure ([`class_attributes`]). The type checker (JVMS 4.10.1) and the static constraints on
//! instructions (4.9) are `verify/`'s.

pub mod bytecode;
pub mod class_attributes;
pub mod constant_pool;
pub mod descriptor;
pub mod error;
pub mod reader;
pub mod stackmap;
pub mod verify;

use std::collections::HashSet;

pub use constant_pool::{Constant, ConstantPool, MemberRef};
pub use descriptor::{FieldType, MethodDescriptor};
pub use error::{ClassFileError, Result};
use reader::Reader;
pub use stackmap::{FrameKind, FullFrame, StackMapFrame, VType};

/// The newest class-file major version this VM runs (Java 25).
pub const MAX_MAJOR_VERSION: u16 = 69;
/// The oldest (JDK 1.1).
pub const MIN_MAJOR_VERSION: u16 = 45;

/// Access flags (JVMS tables 4.1-B, 4.5-A, 4.6-A).
#[allow(missing_docs)]
pub mod access {
    pub const PUBLIC: u16 = 0x0001;
    pub const PRIVATE: u16 = 0x0002;
    pub const PROTECTED: u16 = 0x0004;
    pub const STATIC: u16 = 0x0008;
    pub const FINAL: u16 = 0x0010;
    pub const SUPER: u16 = 0x0020;
    pub const SYNCHRONIZED: u16 = 0x0020;
    pub const VOLATILE: u16 = 0x0040;
    pub const BRIDGE: u16 = 0x0040;
    pub const TRANSIENT: u16 = 0x0080;
    pub const VARARGS: u16 = 0x0080;
    pub const NATIVE: u16 = 0x0100;
    pub const INTERFACE: u16 = 0x0200;
    pub const ABSTRACT: u16 = 0x0400;
    pub const STRICT: u16 = 0x0800;
    pub const SYNTHETIC: u16 = 0x1000;
    pub const ANNOTATION: u16 = 0x2000;
    pub const ENUM: u16 = 0x4000;
    pub const MODULE: u16 = 0x8000;
}

/// An attribute this parser keeps as bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawAttribute {
    /// Its name.
    pub name: String,
    /// Its body.
    pub data: Vec<u8>,
}

/// A field (JVMS 4.5).
#[derive(Clone, Debug)]
pub struct FieldInfo {
    /// Access flags.
    pub access_flags: u16,
    /// Name.
    pub name: String,
    /// Descriptor text.
    pub descriptor: String,
    /// Parsed descriptor.
    pub field_type: FieldType,
    /// The `ConstantValue` attribute's constant-pool index, if any.
    pub constant_value: Option<u16>,
    /// The other attributes.
    pub attributes: Vec<RawAttribute>,
}

/// One exception-table entry (JVMS 4.7.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExceptionHandler {
    /// First covered offset.
    pub start_pc: u16,
    /// End of the covered range (exclusive).
    pub end_pc: u16,
    /// The handler's offset.
    pub handler_pc: u16,
    /// A `Class` index, or 0 for any (`finally`).
    pub catch_type: u16,
}

/// A method's `Code` attribute (JVMS 4.7.3).
#[derive(Clone, Debug)]
pub struct Code {
    /// Operand stack depth bound, in slots.
    pub max_stack: u16,
    /// Local variable count, in slots.
    pub max_locals: u16,
    /// The bytecode.
    pub code: Vec<u8>,
    /// The exception table, in order.
    pub exception_table: Vec<ExceptionHandler>,
    /// The `StackMapTable`, parsed (None if absent).
    pub stack_map: Option<Vec<StackMapFrame>>,
    /// `LineNumberTable` entries (start pc, line), all tables concatenated.
    pub line_numbers: Vec<(u16, u16)>,
    /// The other attributes.
    pub attributes: Vec<RawAttribute>,
}

impl Code {
    /// The source line of `pc` (the entry with the greatest start ≤ pc).
    pub fn line_of(&self, pc: u32) -> Option<u16> {
        self.line_numbers
            .iter()
            .filter(|&&(start, _)| start as u32 <= pc)
            .max_by_key(|&&(start, _)| start)
            .map(|&(_, line)| line)
    }
}

/// A method (JVMS 4.6).
#[derive(Clone, Debug)]
pub struct MethodInfo {
    /// Access flags.
    pub access_flags: u16,
    /// Name.
    pub name: String,
    /// Descriptor text.
    pub descriptor: String,
    /// Parsed descriptor.
    pub method_descriptor: MethodDescriptor,
    /// Its code, unless native or abstract.
    pub code: Option<Code>,
    /// The other attributes.
    pub attributes: Vec<RawAttribute>,
}

impl MethodInfo {
    /// Whether the method is static.
    pub fn is_static(&self) -> bool {
        self.access_flags & access::STATIC != 0
    }

    /// Parameter slots including `this` for an instance method.
    pub fn arg_slots_with_receiver(&self) -> usize {
        self.method_descriptor.arg_slots() + usize::from(!self.is_static())
    }
}

/// One entry of the `BootstrapMethods` attribute (JVMS 4.7.23).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BootstrapMethod {
    /// A `MethodHandle` index.
    pub method_ref: u16,
    /// Static argument indices (loadable constants).
    pub arguments: Vec<u16>,
}

/// A parsed class file.
#[derive(Clone, Debug)]
pub struct ClassFile {
    /// Minor version.
    pub minor_version: u16,
    /// Major version.
    pub major_version: u16,
    /// The constant pool.
    pub constant_pool: ConstantPool,
    /// Access flags.
    pub access_flags: u16,
    /// This class's name (internal form).
    pub this_class: String,
    /// The superclass's name; `None` only for `java/lang/Object`.
    pub super_class: Option<String>,
    /// Direct superinterfaces' names.
    pub interfaces: Vec<String>,
    /// Fields, in order.
    pub fields: Vec<FieldInfo>,
    /// Methods, in order.
    pub methods: Vec<MethodInfo>,
    /// `BootstrapMethods`, if present.
    pub bootstrap_methods: Vec<BootstrapMethod>,
    /// `SourceFile`, if present.
    pub source_file: Option<String>,
    /// The other class attributes.
    pub attributes: Vec<RawAttribute>,
}

fn bad(msg: impl Into<String>) -> ClassFileError {
    ClassFileError::format(msg)
}

impl ClassFile {
    /// Parses and format-checks a class file.
    pub fn parse(bytes: &[u8]) -> Result<ClassFile> {
        let mut r = Reader::new(bytes);
        if r.u4().map_err(|_| bad("Truncated class file"))? != 0xCAFE_BABE {
            return Err(bad("Incompatible magic value in class file"));
        }
        let minor = r.u2()?;
        let major = r.u2()?;
        if !(MIN_MAJOR_VERSION..=MAX_MAJOR_VERSION).contains(&major) || (major >= 56 && minor != 0) {
            return Err(ClassFileError::UnsupportedVersion { major, minor });
        }
        let cp = ConstantPool::parse(&mut r)?;
        let access_flags = r.u2()?;
        let this_index = r.u2()?;
        let this_class = cp
            .class_name(this_index)
            .map_err(|_| bad(format!("Invalid this_class index {this_index} in class file")))?
            .to_string();
        if this_class.starts_with('[') {
            return Err(bad(format!("Illegal class name \"{this_class}\" in class file")));
        }
        check_class_flags(access_flags, major, &this_class)?;
        let super_index = r.u2()?;
        let super_class = if super_index == 0 {
            if this_class != "java/lang/Object" {
                return Err(bad(format!(
                    "Invalid superclass index 0 in class file {this_class}"
                )));
            }
            None
        } else {
            let s = cp.class_name(super_index).map_err(|_| {
                bad(format!(
                    "Invalid superclass index {super_index} in class file {this_class}"
                ))
            })?;
            if s.starts_with('[') {
                return Err(bad(format!("Bad superclass name in class file {this_class}")));
            }
            if access_flags & access::INTERFACE != 0 && s != "java/lang/Object" {
                return Err(bad(format!(
                    "Interfaces must have java.lang.Object as superclass in class file {this_class}"
                )));
            }
            Some(s.to_string())
        };
        let n_interfaces = r.u2()?;
        let mut interfaces = Vec::with_capacity(n_interfaces as usize);
        let mut seen = HashSet::new();
        for _ in 0..n_interfaces {
            let i = r.u2()?;
            let name = cp.class_name(i).map_err(|_| {
                bad(format!(
                    "Interface name has bad constant pool index {i} in class file {this_class}"
                ))
            })?;
            if name.starts_with('[') || !seen.insert(name.to_string()) {
                return Err(bad(format!(
                    "Duplicate or bad interface name \"{name}\" in class file {this_class}"
                )));
            }
            interfaces.push(name.to_string());
        }
        let is_interface = access_flags & access::INTERFACE != 0;
        let n_fields = r.u2()?;
        let mut fields = Vec::with_capacity(n_fields as usize);
        let mut field_keys = HashSet::new();
        for _ in 0..n_fields {
            let f = parse_field(&mut r, &cp, is_interface, &this_class)?;
            if !field_keys.insert((f.name.clone(), f.descriptor.clone())) {
                return Err(bad(format!(
                    "Duplicate field name \"{}\" with signature \"{}\" in class file {this_class}",
                    f.name, f.descriptor
                )));
            }
            fields.push(f);
        }
        let n_methods = r.u2()?;
        let mut methods = Vec::with_capacity(n_methods as usize);
        let mut method_keys = HashSet::new();
        for _ in 0..n_methods {
            let m = parse_method(&mut r, &cp, major, is_interface, &this_class)?;
            if !method_keys.insert((m.name.clone(), m.descriptor.clone())) {
                return Err(bad(format!(
                    "Duplicate method name \"{}\" with signature \"{}\" in class file {this_class}",
                    m.name, m.descriptor
                )));
            }
            methods.push(m);
        }
        let mut bootstrap_methods = Vec::new();
        let mut source_file = None;
        let mut attributes = Vec::new();
        let n_attrs = r.u2()?;
        let mut seen_bootstrap = false;
        for _ in 0..n_attrs {
            let (name, data) = read_attribute(&mut r, &cp)?;
            match name.as_str() {
                "BootstrapMethods" => {
                    if seen_bootstrap {
                        return Err(bad(format!(
                            "Multiple BootstrapMethods attributes in class file {this_class}"
                        )));
                    }
                    seen_bootstrap = true;
                    bootstrap_methods = parse_bootstrap_methods(data, &cp)?;
                }
                "SourceFile" => {
                    if data.len() != 2 {
                        return Err(bad(format!(
                            "Wrong SourceFile attribute length in class file {this_class}"
                        )));
                    }
                    source_file = Some(cp.utf8(u16::from_be_bytes([data[0], data[1]]))?.to_string());
                }
                _ => attributes.push(RawAttribute {
                    name,
                    data: data.to_vec(),
                }),
            }
        }
        if !r.at_end() {
            return Err(bad(format!("Extra bytes at the end of class file {this_class}")));
        }
        class_attributes::check(&cp, &attributes, major, access_flags, &this_class)?;
        // (invoke)dynamic constants name bootstrap methods by index.
        for c in cp.entries() {
            if let Constant::Dynamic(d) | Constant::InvokeDynamic(d) = c {
                if d.bootstrap as usize >= bootstrap_methods.len() {
                    return Err(bad(format!(
                        "Short length on BootstrapMethods in class file {this_class}"
                    )));
                }
            }
        }
        Ok(ClassFile {
            minor_version: minor,
            major_version: major,
            constant_pool: cp,
            access_flags,
            this_class,
            super_class,
            interfaces,
            fields,
            methods,
            bootstrap_methods,
            source_file,
            attributes,
        })
    }

    /// Whether the class is an interface.
    pub fn is_interface(&self) -> bool {
        self.access_flags & access::INTERFACE != 0
    }
}

pub(crate) fn check_class_flags(flags: u16, major: u16, name: &str) -> Result<()> {
    let interface = flags & access::INTERFACE != 0;
    let abstract_ = flags & access::ABSTRACT != 0;
    let final_ = flags & access::FINAL != 0;
    let ok = if flags & access::MODULE != 0 {
        false
    } else if interface {
        abstract_ && !final_ && flags & access::ENUM == 0 && (major < 53 || flags & access::SUPER == 0)
    } else {
        !(abstract_ && final_) && flags & access::ANNOTATION == 0
    };
    if ok {
        Ok(())
    } else {
        Err(bad(format!(
            "Illegal class modifiers in class {name}: 0x{flags:X}"
        )))
    }
}

fn read_attribute<'a>(r: &mut Reader<'a>, cp: &ConstantPool) -> Result<(String, &'a [u8])> {
    let name_index = r.u2()?;
    let name = cp
        .utf8(name_index)
        .map_err(|_| bad(format!("Invalid attribute name index {name_index} in class file")))?
        .to_string();
    let len = r.u4()? as usize;
    let data = r.bytes(len)?;
    Ok((name, data))
}

fn check_member_access(flags: u16) -> bool {
    let vis = flags & (access::PUBLIC | access::PRIVATE | access::PROTECTED);
    vis.count_ones() <= 1
}

fn parse_field(r: &mut Reader<'_>, cp: &ConstantPool, is_interface: bool, class: &str) -> Result<FieldInfo> {
    let access_flags = r.u2()?;
    let name = cp.utf8(r.u2()?)?.to_string();
    let descriptor = cp.utf8(r.u2()?)?.to_string();
    if !descriptor::is_unqualified_name(&name, false) {
        return Err(bad(format!("Illegal field name \"{name}\" in class {class}")));
    }
    let field_type = FieldType::parse(&descriptor).map_err(|_| {
        bad(format!(
            "Field \"{name}\" in class {class} has illegal signature \"{descriptor}\""
        ))
    })?;
    let fin = access_flags & access::FINAL != 0;
    let vol = access_flags & access::VOLATILE != 0;
    let ok = check_member_access(access_flags)
        && !(fin && vol)
        && (!is_interface
            || access_flags & (access::PUBLIC | access::STATIC | access::FINAL)
                == (access::PUBLIC | access::STATIC | access::FINAL)
                && access_flags & !(access::PUBLIC | access::STATIC | access::FINAL | access::SYNTHETIC)
                    == 0);
    if !ok {
        return Err(bad(format!(
            "Illegal field modifiers in class {class}: 0x{access_flags:X}"
        )));
    }
    let mut constant_value = None;
    let mut attributes = Vec::new();
    for _ in 0..r.u2()? {
        let (aname, data) = read_attribute(r, cp)?;
        if aname == "ConstantValue" {
            if data.len() != 2 {
                return Err(bad(format!(
                    "Invalid ConstantValue field attribute length in class {class}"
                )));
            }
            if constant_value.is_some() {
                return Err(bad(format!("Duplicate ConstantValue attribute in class {class}")));
            }
            let idx = u16::from_be_bytes([data[0], data[1]]);
            let okc = matches!(
                (cp.get(idx)?, &field_type),
                (
                    Constant::Integer(_),
                    FieldType::Int
                        | FieldType::Short
                        | FieldType::Char
                        | FieldType::Byte
                        | FieldType::Boolean
                ) | (Constant::Long(_), FieldType::Long)
                    | (Constant::Float(_), FieldType::Float)
                    | (Constant::Double(_), FieldType::Double)
                    | (Constant::String { .. }, FieldType::Object(_))
            );
            if !okc || matches!(cp.get(idx)?, Constant::String { .. }) && descriptor != "Ljava/lang/String;" {
                return Err(bad(format!("Inconsistent constant value type in class {class}")));
            }
            constant_value = Some(idx);
        } else {
            attributes.push(RawAttribute {
                name: aname,
                data: data.to_vec(),
            });
        }
    }
    Ok(FieldInfo {
        access_flags,
        name,
        descriptor,
        field_type,
        constant_value,
        attributes,
    })
}

fn parse_method(
    r: &mut Reader<'_>,
    cp: &ConstantPool,
    major: u16,
    is_interface: bool,
    class: &str,
) -> Result<MethodInfo> {
    let access_flags = r.u2()?;
    let name = cp.utf8(r.u2()?)?.to_string();
    let descriptor = cp.utf8(r.u2()?)?.to_string();
    let special = name == "<init>" || name == "<clinit>";
    if !(special || descriptor::is_unqualified_name(&name, true)) {
        return Err(bad(format!("Illegal method name \"{name}\" in class {class}")));
    }
    let method_descriptor = MethodDescriptor::parse(&descriptor).map_err(|_| {
        bad(format!(
            "Method \"{name}\" in class {class} has illegal signature \"{descriptor}\""
        ))
    })?;
    let mut flags = access_flags;
    if name == "<clinit>" {
        if method_descriptor.ret.is_some() || !method_descriptor.params.is_empty() {
            return Err(bad(format!(
                "Method <clinit> in class {class} has illegal signature \"{descriptor}\""
            )));
        }
        // JVMS 4.6: in class files of version 51+, <clinit> must be static;
        // its other flags are ignored.
        if major >= 51 && flags & access::STATIC == 0 {
            return Err(bad(format!(
                "Method <clinit> is not static in class file {class}"
            )));
        }
        flags = access::STATIC | (flags & access::STRICT);
    } else {
        let abstract_ = flags & access::ABSTRACT != 0;
        let mut ok = check_member_access(flags);
        if abstract_ {
            ok &= flags
                & (access::PRIVATE | access::STATIC | access::FINAL | access::SYNCHRONIZED | access::NATIVE)
                == 0
                && !((46..61).contains(&major) && flags & access::STRICT != 0);
        }
        if is_interface {
            if major < 52 {
                ok &= flags & (access::PUBLIC | access::ABSTRACT) == (access::PUBLIC | access::ABSTRACT);
            } else {
                ok &= flags & (access::PUBLIC | access::PRIVATE) != 0
                    && flags & (access::PROTECTED | access::FINAL | access::SYNCHRONIZED | access::NATIVE)
                        == 0;
            }
            ok &= name != "<init>";
        }
        if name == "<init>" {
            ok &= flags
                & (access::STATIC | access::FINAL | access::SYNCHRONIZED | access::NATIVE | access::ABSTRACT)
                == 0
                && method_descriptor.ret.is_none();
        }
        if !ok {
            return Err(bad(format!(
                "Method {name} in class {class} has illegal modifiers: 0x{access_flags:X}"
            )));
        }
    }
    let mut code = None;
    let mut attributes = Vec::new();
    for _ in 0..r.u2()? {
        let (aname, data) = read_attribute(r, cp)?;
        if aname == "Code" {
            if code.is_some() {
                return Err(bad(format!("Multiple Code attributes in class file {class}")));
            }
            code = Some(parse_code(data, cp, class)?);
        } else {
            attributes.push(RawAttribute {
                name: aname,
                data: data.to_vec(),
            });
        }
    }
    let needs_code = flags & (access::NATIVE | access::ABSTRACT) == 0;
    match (&code, needs_code) {
        (None, true) => {
            return Err(bad(format!(
                "Absent Code attribute in method that is not native or abstract in class file {class}"
            )))
        }
        (Some(_), false) => {
            return Err(bad(format!(
                "Code attribute in native or abstract methods in class file {class}"
            )))
        }
        _ => {}
    }
    let info = MethodInfo {
        access_flags: flags,
        name,
        descriptor,
        method_descriptor,
        code,
        attributes,
    };
    if let Some(c) = &info.code {
        if (c.max_locals as usize) < info.arg_slots_with_receiver() {
            return Err(bad(format!(
                "Arguments can't fit into locals in class file {class}, method {}",
                info.name
            )));
        }
    }
    Ok(info)
}

fn parse_code(data: &[u8], cp: &ConstantPool, class: &str) -> Result<Code> {
    let mut r = Reader::new(data);
    let max_stack = r.u2()?;
    let max_locals = r.u2()?;
    let code_len = r.u4()? as usize;
    if code_len == 0 || code_len >= 65536 {
        return Err(bad(format!(
            "Invalid method Code length {code_len} in class file {class}"
        )));
    }
    let code = r.bytes(code_len)?.to_vec();
    let n = r.u2()?;
    let mut exception_table = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let h = ExceptionHandler {
            start_pc: r.u2()?,
            end_pc: r.u2()?,
            handler_pc: r.u2()?,
            catch_type: r.u2()?,
        };
        if h.start_pc >= h.end_pc || h.end_pc as usize > code_len || h.handler_pc as usize >= code_len {
            return Err(bad(format!(
                "Illegal exception table range in class file {class}"
            )));
        }
        if h.catch_type != 0 && !matches!(cp.get(h.catch_type)?, Constant::Class { .. }) {
            return Err(bad(format!(
                "Catch type in exception table has bad constant type in class file {class}"
            )));
        }
        exception_table.push(h);
    }
    let mut stack_map = None;
    let mut line_numbers = Vec::new();
    let mut attributes = Vec::new();
    for _ in 0..r.u2()? {
        let (name, body) = read_attribute(&mut r, cp)?;
        match name.as_str() {
            "StackMapTable" => {
                if stack_map.is_some() {
                    return Err(bad(format!(
                        "Multiple StackMapTable attributes in method in class file {class}"
                    )));
                }
                stack_map = Some(stackmap::parse(body)?);
            }
            "LineNumberTable" => {
                let mut lr = Reader::new(body);
                let n = lr.u2()?;
                for _ in 0..n {
                    let start = lr.u2()?;
                    let line = lr.u2()?;
                    if start as usize >= code_len {
                        return Err(bad(format!(
                            "Invalid pc in LineNumberTable in class file {class}"
                        )));
                    }
                    line_numbers.push((start, line));
                }
                if !lr.at_end() {
                    return Err(bad(format!("Wrong LineNumberTable length in class file {class}")));
                }
            }
            _ => attributes.push(RawAttribute {
                name,
                data: body.to_vec(),
            }),
        }
    }
    if !r.at_end() {
        return Err(bad(format!(
            "Code attribute has wrong length in class file {class}"
        )));
    }
    Ok(Code {
        max_stack,
        max_locals,
        code,
        exception_table,
        stack_map,
        line_numbers,
        attributes,
    })
}

fn parse_bootstrap_methods(data: &[u8], cp: &ConstantPool) -> Result<Vec<BootstrapMethod>> {
    let mut r = Reader::new(data);
    let n = r.u2()?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let method_ref = r.u2()?;
        if !matches!(cp.get(method_ref)?, Constant::MethodHandle { .. }) {
            return Err(bad("bootstrap_method_ref is not a MethodHandle"));
        }
        let k = r.u2()?;
        let mut arguments = Vec::with_capacity(k as usize);
        for _ in 0..k {
            let a = r.u2()?;
            let loadable = matches!(
                cp.get(a)?,
                Constant::Integer(_)
                    | Constant::Float(_)
                    | Constant::Long(_)
                    | Constant::Double(_)
                    | Constant::Class { .. }
                    | Constant::String { .. }
                    | Constant::MethodHandle { .. }
                    | Constant::MethodType { .. }
                    | Constant::Dynamic(_)
            );
            if !loadable {
                return Err(bad("bootstrap argument is not a loadable constant"));
            }
            arguments.push(a);
        }
        out.push(BootstrapMethod {
            method_ref,
            arguments,
        });
    }
    if !r.at_end() {
        return Err(bad("BootstrapMethods attribute has wrong length"));
    }
    Ok(out)
}

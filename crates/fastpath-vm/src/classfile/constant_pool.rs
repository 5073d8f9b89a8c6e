//! The constant pool (JVMS 4.4): parsed entries, checked cross-references,
//! and typed accessors that turn a wrong index or kind into a
//! `ClassFormatError` instead of a panic.
//!
//! Where it sits: [`super::ClassFile::parse`] reads it first; everything else in a
//! class file names constants by index, and the linker (`crate::link`)
//! resolves the symbolic references through these accessors.

use super::descriptor::is_unqualified_name;
use super::error::{ClassFileError, Result};
use super::reader::Reader;

/// The tag of each constant kind (JVMS table 4.4-B).
pub mod tag {
    #![allow(missing_docs)]
    pub const UTF8: u8 = 1;
    pub const INTEGER: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const LONG: u8 = 5;
    pub const DOUBLE: u8 = 6;
    pub const CLASS: u8 = 7;
    pub const STRING: u8 = 8;
    pub const FIELDREF: u8 = 9;
    pub const METHODREF: u8 = 10;
    pub const INTERFACE_METHODREF: u8 = 11;
    pub const NAME_AND_TYPE: u8 = 12;
    pub const METHOD_HANDLE: u8 = 15;
    pub const METHOD_TYPE: u8 = 16;
    pub const DYNAMIC: u8 = 17;
    pub const INVOKE_DYNAMIC: u8 = 18;
    pub const MODULE: u8 = 19;
    pub const PACKAGE: u8 = 20;
}

/// A `CONSTANT_Utf8`: its text, and its UTF-16 form when the text holds
/// unpaired surrogates (which Rust's `str` cannot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Utf8 {
    /// The text (unpaired surrogates as U+FFFD when `utf16` is set).
    pub text: Box<str>,
    /// The exact UTF-16 code units, only when `text` could not hold them.
    pub utf16: Option<Box<[u16]>>,
}

impl Utf8 {
    /// The exact UTF-16 code units (a Java string's contents).
    pub fn to_utf16(&self) -> Vec<u16> {
        match &self.utf16 {
            Some(u) => u.to_vec(),
            None => self.text.encode_utf16().collect(),
        }
    }
}

/// One constant-pool entry.
#[derive(Clone, Debug, PartialEq)]
pub enum Constant {
    /// Index 0, and the slot after a `Long` or `Double`.
    Unusable,
    /// `CONSTANT_Utf8`.
    Utf8(Utf8),
    /// `CONSTANT_Integer`.
    Integer(i32),
    /// `CONSTANT_Float` (bits preserved, NaNs included).
    Float(f32),
    /// `CONSTANT_Long`.
    Long(i64),
    /// `CONSTANT_Double`.
    Double(f64),
    /// `CONSTANT_Class`: the index of its name (internal form, or an array
    /// descriptor).
    Class {
        /// A `Utf8` index.
        name: u16,
    },
    /// `CONSTANT_String`.
    String {
        /// A `Utf8` index.
        utf8: u16,
    },
    /// `CONSTANT_Fieldref`.
    FieldRef(MemberRefIndices),
    /// `CONSTANT_Methodref`.
    MethodRef(MemberRefIndices),
    /// `CONSTANT_InterfaceMethodref`.
    InterfaceMethodRef(MemberRefIndices),
    /// `CONSTANT_NameAndType`.
    NameAndType {
        /// A `Utf8` index: the member's name.
        name: u16,
        /// A `Utf8` index: its descriptor.
        descriptor: u16,
    },
    /// `CONSTANT_MethodHandle`.
    MethodHandle {
        /// The reference kind, 1 to 9 (JVMS table 5.4.3.5-A).
        kind: u8,
        /// A field or method reference index.
        reference: u16,
    },
    /// `CONSTANT_MethodType`.
    MethodType {
        /// A `Utf8` index: a method descriptor.
        descriptor: u16,
    },
    /// `CONSTANT_Dynamic`.
    Dynamic(DynamicIndices),
    /// `CONSTANT_InvokeDynamic`.
    InvokeDynamic(DynamicIndices),
    /// `CONSTANT_Module`.
    Module {
        /// A `Utf8` index.
        name: u16,
    },
    /// `CONSTANT_Package`.
    Package {
        /// A `Utf8` index.
        name: u16,
    },
}

/// The two indices of a field or method reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberRefIndices {
    /// A `Class` index.
    pub class: u16,
    /// A `NameAndType` index.
    pub name_and_type: u16,
}

/// The two indices of a (`invoke`)dynamic constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynamicIndices {
    /// An index into the class's `BootstrapMethods` attribute.
    pub bootstrap: u16,
    /// A `NameAndType` index.
    pub name_and_type: u16,
}

/// A field or method reference with its names resolved to text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberRef<'a> {
    /// The class named by the reference (internal form or array descriptor).
    pub class: &'a str,
    /// The member's name.
    pub name: &'a str,
    /// The member's descriptor.
    pub descriptor: &'a str,
}

/// The constant pool of one class file.
#[derive(Clone, Debug, Default)]
pub struct ConstantPool {
    entries: Vec<Constant>,
}

fn bad(msg: impl Into<String>) -> ClassFileError {
    ClassFileError::format(msg)
}

impl ConstantPool {
    /// Reads `constant_pool_count` and the entries (JVMS 4.4), then checks
    /// every cross-reference's kind (`check_references`).
    pub fn parse(r: &mut Reader<'_>) -> Result<ConstantPool> {
        let count = r.u2()? as usize;
        if count == 0 {
            return Err(bad("Illegal constant pool size 0"));
        }
        let mut entries = Vec::with_capacity(count);
        entries.push(Constant::Unusable);
        while entries.len() < count {
            let t = r.u1()?;
            let c = match t {
                tag::UTF8 => {
                    let len = r.u2()? as usize;
                    Constant::Utf8(decode_modified_utf8(r.bytes(len)?)?)
                }
                tag::INTEGER => Constant::Integer(r.u4()? as i32),
                tag::FLOAT => Constant::Float(f32::from_bits(r.u4()?)),
                tag::LONG | tag::DOUBLE => {
                    if entries.len() + 1 >= count {
                        return Err(bad(
                            "Invalid constant pool entry: a long or double in the last slot",
                        ));
                    }
                    let bits = r.u8()?;
                    entries.push(if t == tag::LONG {
                        Constant::Long(bits as i64)
                    } else {
                        Constant::Double(f64::from_bits(bits))
                    });
                    Constant::Unusable
                }
                tag::CLASS => Constant::Class { name: r.u2()? },
                tag::STRING => Constant::String { utf8: r.u2()? },
                tag::FIELDREF | tag::METHODREF | tag::INTERFACE_METHODREF => {
                    let m = MemberRefIndices {
                        class: r.u2()?,
                        name_and_type: r.u2()?,
                    };
                    match t {
                        tag::FIELDREF => Constant::FieldRef(m),
                        tag::METHODREF => Constant::MethodRef(m),
                        _ => Constant::InterfaceMethodRef(m),
                    }
                }
                tag::NAME_AND_TYPE => Constant::NameAndType {
                    name: r.u2()?,
                    descriptor: r.u2()?,
                },
                tag::METHOD_HANDLE => Constant::MethodHandle {
                    kind: r.u1()?,
                    reference: r.u2()?,
                },
                tag::METHOD_TYPE => Constant::MethodType { descriptor: r.u2()? },
                tag::DYNAMIC | tag::INVOKE_DYNAMIC => {
                    let d = DynamicIndices {
                        bootstrap: r.u2()?,
                        name_and_type: r.u2()?,
                    };
                    if t == tag::DYNAMIC {
                        Constant::Dynamic(d)
                    } else {
                        Constant::InvokeDynamic(d)
                    }
                }
                tag::MODULE => Constant::Module { name: r.u2()? },
                tag::PACKAGE => Constant::Package { name: r.u2()? },
                other => {
                    return Err(bad(format!(
                        "Unknown constant tag {other} in class file at constant pool index {}",
                        entries.len()
                    )))
                }
            };
            entries.push(c);
        }
        let cp = ConstantPool { entries };
        cp.check_references()?;
        Ok(cp)
    }

    /// A pool from entries (index 0 must be `Unusable`), for tests and
    /// tools that build class files; references are checked.
    pub fn from_entries(entries: Vec<Constant>) -> Result<ConstantPool> {
        let cp = ConstantPool { entries };
        cp.check_references()?;
        Ok(cp)
    }

    /// Checks the kind of every index a constant holds (JVMS 4.4's "must be
    /// a valid index into the constant_pool table ... a CONSTANT_X_info").
    /// Bootstrap-method indices are checked by the class parser, which
    /// knows the attribute's length.
    fn check_references(&self) -> Result<()> {
        for (i, c) in self.entries.iter().enumerate() {
            let i = i as u16;
            match *c {
                Constant::Class { name } => {
                    let n = self.utf8_at(name, i)?;
                    if !is_valid_class_name(n) {
                        return Err(bad(format!("Illegal class name \"{n}\" in class file")));
                    }
                }
                Constant::String { utf8 } => {
                    self.utf8_at(utf8, i)?;
                }
                Constant::FieldRef(m) | Constant::MethodRef(m) | Constant::InterfaceMethodRef(m) => {
                    self.expect(m.class, i, |c| matches!(c, Constant::Class { .. }), "Class")?;
                    let (name, desc) = self.name_and_type_at(m.name_and_type, i)?;
                    let field = matches!(c, Constant::FieldRef(_));
                    check_member_name_and_descriptor(name, desc, field)?;
                    if matches!(c, Constant::InterfaceMethodRef(_)) && name == "<init>" {
                        return Err(bad(
                            "Illegal method name \"<init>\" in an interface method reference",
                        ));
                    }
                }
                Constant::NameAndType { name, descriptor } => {
                    // Every NameAndType is format-checked, referenced or not,
                    // as a method's when its descriptor starts with `(`, else
                    // as a field's (HotSpot's class-file parser does so).
                    let n = self.utf8_at(name, i)?;
                    let d = self.utf8_at(descriptor, i)?;
                    if n.is_empty() || d.is_empty() {
                        return Err(bad(format!(
                            "Illegal zero length constant pool entry at {} in class file",
                            if d.is_empty() { descriptor } else { name }
                        )));
                    }
                    check_member_name_and_descriptor(n, d, !d.starts_with('('))?;
                }
                Constant::MethodHandle { kind, reference } => {
                    let target = self.get_at(reference, i)?;
                    let ok = match kind {
                        1..=4 => matches!(target, Constant::FieldRef(_)),
                        5 | 8 => matches!(target, Constant::MethodRef(_)),
                        6 | 7 => matches!(target, Constant::MethodRef(_) | Constant::InterfaceMethodRef(_)),
                        9 => matches!(target, Constant::InterfaceMethodRef(_)),
                        _ => return Err(bad(format!("Bad method handle kind at constant pool index {i}"))),
                    };
                    if !ok {
                        return Err(bad(format!(
                            "Bad method handle reference at constant pool index {i}"
                        )));
                    }
                    if let Constant::MethodRef(m) | Constant::InterfaceMethodRef(m) = target {
                        let (name, _) = self.name_and_type_at(m.name_and_type, i)?;
                        let init = name == "<init>";
                        if (kind == 8) != init || name == "<clinit>" {
                            return Err(bad(format!("Bad method handle name at constant pool index {i}")));
                        }
                    }
                }
                Constant::MethodType { descriptor } => {
                    let d = self.utf8_at(descriptor, i)?;
                    super::descriptor::MethodDescriptor::parse(d)?;
                }
                Constant::Dynamic(d) => {
                    let (_, desc) = self.name_and_type_at(d.name_and_type, i)?;
                    super::descriptor::FieldType::parse(desc)?;
                }
                Constant::InvokeDynamic(d) => {
                    let (_, desc) = self.name_and_type_at(d.name_and_type, i)?;
                    super::descriptor::MethodDescriptor::parse(desc)?;
                }
                Constant::Module { name } | Constant::Package { name } => {
                    self.utf8_at(name, i)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn get_at(&self, index: u16, from: u16) -> Result<&Constant> {
        match self.entries.get(index as usize) {
            Some(c) if index != 0 => Ok(c),
            _ => Err(bad(format!(
                "Invalid constant pool index {index} at constant pool index {from}"
            ))),
        }
    }

    fn expect(&self, index: u16, from: u16, ok: impl Fn(&Constant) -> bool, what: &str) -> Result<&Constant> {
        let c = self.get_at(index, from)?;
        if ok(c) {
            Ok(c)
        } else {
            Err(bad(format!(
                "Invalid constant pool index {index} at constant pool index {from}: not a {what}"
            )))
        }
    }

    fn utf8_at(&self, index: u16, from: u16) -> Result<&str> {
        match self.expect(index, from, |c| matches!(c, Constant::Utf8(_)), "Utf8")? {
            Constant::Utf8(u) => Ok(&u.text),
            _ => unreachable!("checked by expect"),
        }
    }

    fn name_and_type_at(&self, index: u16, from: u16) -> Result<(&str, &str)> {
        match self.expect(
            index,
            from,
            |c| matches!(c, Constant::NameAndType { .. }),
            "NameAndType",
        )? {
            &Constant::NameAndType { name, descriptor } => {
                Ok((self.utf8_at(name, from)?, self.utf8_at(descriptor, from)?))
            }
            _ => unreachable!("checked by expect"),
        }
    }

    /// Number of slots (`constant_pool_count`).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the pool has only the unusable slot 0.
    pub fn is_empty(&self) -> bool {
        self.entries.len() <= 1
    }

    /// The entry at `index`; an error for 0, out of range, or the second
    /// slot of a long/double.
    pub fn get(&self, index: u16) -> Result<&Constant> {
        match self.entries.get(index as usize) {
            Some(Constant::Unusable) | None => Err(bad(format!("Invalid constant pool index {index}"))),
            Some(c) => Ok(c),
        }
    }

    /// Every entry, index 0 included.
    pub fn entries(&self) -> &[Constant] {
        &self.entries
    }

    /// The `Utf8` at `index`.
    pub fn utf8(&self, index: u16) -> Result<&str> {
        Ok(&self.utf8_entry(index)?.text)
    }

    /// The `Utf8` entry at `index`, with its exact UTF-16 form.
    pub fn utf8_entry(&self, index: u16) -> Result<&Utf8> {
        match self.get(index)? {
            Constant::Utf8(u) => Ok(u),
            _ => Err(bad(format!("Constant pool index {index} is not a Utf8"))),
        }
    }

    /// The name of the `Class` at `index`.
    pub fn class_name(&self, index: u16) -> Result<&str> {
        match self.get(index)? {
            Constant::Class { name } => self.utf8(*name),
            _ => Err(bad(format!("Constant pool index {index} is not a Class"))),
        }
    }

    /// The `NameAndType` at `index` as (name, descriptor).
    pub fn name_and_type(&self, index: u16) -> Result<(&str, &str)> {
        match self.get(index)? {
            &Constant::NameAndType { name, descriptor } => Ok((self.utf8(name)?, self.utf8(descriptor)?)),
            _ => Err(bad(format!("Constant pool index {index} is not a NameAndType"))),
        }
    }

    /// The field or method reference at `index` with its texts; also returns
    /// the entry's tag (`tag::FIELDREF`, `METHODREF`, `INTERFACE_METHODREF`).
    pub fn member_ref(&self, index: u16) -> Result<(u8, MemberRef<'_>)> {
        let (t, m) = match *self.get(index)? {
            Constant::FieldRef(m) => (tag::FIELDREF, m),
            Constant::MethodRef(m) => (tag::METHODREF, m),
            Constant::InterfaceMethodRef(m) => (tag::INTERFACE_METHODREF, m),
            _ => {
                return Err(bad(format!(
                    "Constant pool index {index} is not a field or method reference"
                )))
            }
        };
        let class = self.class_name(m.class)?;
        let (name, descriptor) = self.name_and_type(m.name_and_type)?;
        Ok((
            t,
            MemberRef {
                class,
                name,
                descriptor,
            },
        ))
    }

    /// The tag of the entry at `index` (0 for unusable slots), for the
    /// verifier's kind checks.
    pub fn tag(&self, index: u16) -> u8 {
        match self.entries.get(index as usize) {
            None | Some(Constant::Unusable) => 0,
            Some(c) => match c {
                Constant::Unusable => 0,
                Constant::Utf8(_) => tag::UTF8,
                Constant::Integer(_) => tag::INTEGER,
                Constant::Float(_) => tag::FLOAT,
                Constant::Long(_) => tag::LONG,
                Constant::Double(_) => tag::DOUBLE,
                Constant::Class { .. } => tag::CLASS,
                Constant::String { .. } => tag::STRING,
                Constant::FieldRef(_) => tag::FIELDREF,
                Constant::MethodRef(_) => tag::METHODREF,
                Constant::InterfaceMethodRef(_) => tag::INTERFACE_METHODREF,
                Constant::NameAndType { .. } => tag::NAME_AND_TYPE,
                Constant::MethodHandle { .. } => tag::METHOD_HANDLE,
                Constant::MethodType { .. } => tag::METHOD_TYPE,
                Constant::Dynamic(_) => tag::DYNAMIC,
                Constant::InvokeDynamic(_) => tag::INVOKE_DYNAMIC,
                Constant::Module { .. } => tag::MODULE,
                Constant::Package { .. } => tag::PACKAGE,
            },
        }
    }
}

/// Checks a member reference's name and descriptor (JVMS 4.2.2, 4.3).
/// A field's or method's name and descriptor, as JVMS 4.2.2 and 4.3 allow
/// them (`<init>` and `<clinit>` only for methods, returning void).
pub(crate) fn check_member_name_and_descriptor(name: &str, desc: &str, field: bool) -> Result<()> {
    if field {
        if !is_unqualified_name(name, false) {
            return Err(bad(format!("Illegal field name \"{name}\" in class file")));
        }
        super::descriptor::FieldType::parse(desc)?;
    } else {
        if !(is_unqualified_name(name, true) || name == "<init>" || name == "<clinit>") {
            return Err(bad(format!("Illegal method name \"{name}\" in class file")));
        }
        let d = super::descriptor::MethodDescriptor::parse(desc)?;
        if (name == "<init>" || name == "<clinit>") && d.ret.is_some() {
            return Err(bad(format!("Method \"{name}\" has a non-void return type")));
        }
    }
    Ok(())
}

/// A `CONSTANT_Class` name: a binary name in internal form (`a/b/C`, each
/// part an unqualified name) or an array descriptor.
pub fn is_valid_class_name(name: &str) -> bool {
    if name.starts_with('[') {
        return super::descriptor::FieldType::parse(name).is_ok();
    }
    !name.is_empty() && name.split('/').all(|part| is_unqualified_name(part, false))
}

/// Decodes Java's modified UTF-8 (JVMS 4.4.7): no byte 0 and none from
/// 0xF0; NUL is `C0 80`; supplementary characters are surrogate pairs, each
/// three bytes.
pub fn decode_modified_utf8(bytes: &[u8]) -> Result<Utf8> {
    // Fast path: plain ASCII without NUL.
    if bytes.iter().all(|&b| b != 0 && b < 0x80) {
        // SAFETY-free: ASCII is valid UTF-8.
        let s = std::str::from_utf8(bytes).map_err(|_| bad("Illegal UTF8 string in constant pool"))?;
        return Ok(Utf8 {
            text: Box::from(s),
            utf16: None,
        });
    }
    let mut units: Vec<u16> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let malformed = || bad("Illegal UTF8 string in constant pool");
    while i < bytes.len() {
        let b = bytes[i];
        if b == 0 || b >= 0xF0 {
            return Err(malformed());
        }
        if b < 0x80 {
            units.push(b as u16);
            i += 1;
        } else if b & 0xE0 == 0xC0 {
            let b2 = *bytes.get(i + 1).ok_or_else(malformed)?;
            if b2 & 0xC0 != 0x80 {
                return Err(malformed());
            }
            units.push(((b as u16 & 0x1F) << 6) | (b2 as u16 & 0x3F));
            i += 2;
        } else if b & 0xF0 == 0xE0 {
            let (b2, b3) = match (bytes.get(i + 1), bytes.get(i + 2)) {
                (Some(&b2), Some(&b3)) => (b2, b3),
                _ => return Err(malformed()),
            };
            if b2 & 0xC0 != 0x80 || b3 & 0xC0 != 0x80 {
                return Err(malformed());
            }
            units.push(((b as u16 & 0x0F) << 12) | ((b2 as u16 & 0x3F) << 6) | (b3 as u16 & 0x3F));
            i += 3;
        } else {
            return Err(malformed());
        }
    }
    match String::from_utf16(&units) {
        Ok(s) => Ok(Utf8 {
            text: Box::from(s.as_str()),
            utf16: None,
        }),
        Err(_) => Ok(Utf8 {
            text: Box::from(String::from_utf16_lossy(&units).as_str()),
            utf16: Some(Box::from(units)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modified_utf8_decodes_nul_supplementary_and_lone_surrogates() {
        assert_eq!(&*decode_modified_utf8(b"abc").unwrap().text, "abc");
        assert_eq!(&*decode_modified_utf8(&[0xC0, 0x80]).unwrap().text, "\0");
        // U+1F600 as a surrogate pair, each in three bytes.
        let pair = [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80];
        assert_eq!(&*decode_modified_utf8(&pair).unwrap().text, "\u{1F600}");
        let lone = decode_modified_utf8(&[0xED, 0xA0, 0xBD]).unwrap();
        assert_eq!(lone.to_utf16(), vec![0xD83D]);
        assert!(decode_modified_utf8(&[0]).is_err());
        assert!(decode_modified_utf8(&[0xF0, 0x9F, 0x98, 0x80]).is_err());
        assert!(decode_modified_utf8(&[0xE0, 0x80]).is_err());
    }

    #[test]
    fn names_are_checked() {
        assert!(is_valid_class_name("java/lang/Object"));
        assert!(is_valid_class_name("[[I"));
        assert!(!is_valid_class_name("java//Object"));
        assert!(!is_valid_class_name("java.lang.Object"));
        assert!(!is_valid_class_name("[Q"));
        assert!(is_unqualified_name("main", true));
        assert!(!is_unqualified_name("<init>", true));
    }
}

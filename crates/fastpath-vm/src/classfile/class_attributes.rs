//! Format checks of a class's own attributes (JVMS 4.7), the ones HotSpot's
//! class-file parser makes before it accepts a class: each attribute at
//! most once, its length, and the kind of every constant-pool index it
//! holds.
//!
//! Where it sits: [`super::ClassFile::parse`] keeps every class attribute
//! other than `BootstrapMethods` and `SourceFile` raw and calls [`check`]
//! on them; nothing later reads an attribute this has not checked.
//!
//! What is checked, by class-file version as HotSpot does:
//!
//! | attribute | from major | checks |
//! |---|---|---|
//! | `InnerClasses` | 45 | entries' class/name indices, inner != outer, flags, duplicates (49+), length (49+) |
//! | `Synthetic`, `Deprecated` | 45 | length 0 |
//! | `Signature` | 49 | once, length 2, a Utf8 |
//! | `EnclosingMethod` | 49 | once, length 4, a Class, 0 or a NameAndType |
//! | annotation attributes, `SourceDebugExtension` | 49 | once each |
//! | `NestHost`, `NestMembers` | 55 | once each, not both, Class entries, length |
//! | `Record` | 60 | once, component names and descriptors, component attributes, length |
//! | `PermittedSubclasses` | 61 | once, not in a final class, Class entries, length |
//!
//! Duplicate `InnerClasses` entries are an error only until HotSpot's
//! circularity scan stops looking: at an entry whose chain of outer classes
//! loops, or at a second entry for the same inner class (HotSpot then
//! ignores the attribute rather than refusing the class).

use super::constant_pool::{check_member_name_and_descriptor, Constant, ConstantPool};
use super::{access, bad, RawAttribute, Result};

/// A cursor over one attribute's bytes; running off its end is the
/// attribute's length error `short`.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    short: &'a str,
}

impl Cursor<'_> {
    fn u2(&mut self) -> Result<u16> {
        let b = self
            .data
            .get(self.pos..self.pos + 2)
            .ok_or_else(|| bad(self.short.to_string()))?;
        self.pos += 2;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u4(&mut self) -> Result<u32> {
        let hi = self.u2()? as u32;
        Ok(hi << 16 | self.u2()? as u32)
    }

    fn skip(&mut self, n: usize) -> Result<()> {
        if self.data.len() - self.pos < n {
            return Err(bad(self.short.to_string()));
        }
        self.pos += n;
        Ok(())
    }
}

fn is_class(cp: &ConstantPool, index: u16) -> bool {
    index != 0 && matches!(cp.get(index), Ok(Constant::Class { .. }))
}

fn is_utf8(cp: &ConstantPool, index: u16) -> bool {
    index != 0 && matches!(cp.get(index), Ok(Constant::Utf8(_)))
}

fn u2_at(data: &[u8], at: usize) -> Option<u16> {
    data.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]))
}

/// Checks the class attributes of a class of version `major` with flags
/// `flags`, named `class` in messages.
pub fn check(
    cp: &ConstantPool,
    attributes: &[RawAttribute],
    major: u16,
    flags: u16,
    class: &str,
) -> Result<()> {
    let mut seen: Vec<&str> = Vec::new();
    let mut once = |name: &'static str| -> Result<()> {
        if seen.contains(&name) {
            return Err(bad(format!("Multiple {name} attributes in class file {class}")));
        }
        seen.push(name);
        Ok(())
    };
    let mut inner_classes = None;
    let mut enclosing_method = false;
    let mut nest_host = false;
    let mut nest_members = None;
    let mut record = None;
    let mut permitted = None;
    for a in attributes {
        let data = a.data.as_slice();
        match a.name.as_str() {
            "InnerClasses" => {
                once("InnerClasses")?;
                inner_classes = Some(data);
            }
            "Synthetic" | "Deprecated" if !data.is_empty() => {
                return Err(bad(format!(
                    "Invalid {} classfile attribute length {} in class file {class}",
                    a.name,
                    data.len()
                )));
            }
            "Signature" if major >= 49 => {
                once("Signature")?;
                if data.len() != 2 {
                    return Err(bad(format!(
                        "Wrong Signature attribute length {} in class file {class}",
                        data.len()
                    )));
                }
                let index = u2_at(data, 0).unwrap_or(0);
                if !is_utf8(cp, index) {
                    return Err(bad(format!(
                        "Invalid constant pool index {index} in Signature attribute in class file {class}"
                    )));
                }
            }
            "EnclosingMethod" if major >= 49 => {
                once("EnclosingMethod")?;
                enclosing_method = true;
                if data.len() != 4 {
                    return Err(bad(format!(
                        "Wrong EnclosingMethod attribute length {} in class file {class}",
                        data.len()
                    )));
                }
                let class_index = u2_at(data, 0).unwrap_or(0);
                let method_index = u2_at(data, 2).unwrap_or(0);
                if class_index == 0 {
                    return Err(bad(format!(
                        "Invalid class index in EnclosingMethod attribute in class file {class}"
                    )));
                }
                if !is_class(cp, class_index) {
                    return Err(bad(format!(
                        "Invalid or out-of-bounds class index in EnclosingMethod attribute in class file {class}"
                    )));
                }
                if method_index != 0 && !matches!(cp.get(method_index), Ok(Constant::NameAndType { .. })) {
                    return Err(bad(format!(
                        "Invalid or out-of-bounds method index in EnclosingMethod attribute in class file {class}"
                    )));
                }
            }
            "RuntimeVisibleAnnotations" if major >= 49 => once("RuntimeVisibleAnnotations")?,
            "RuntimeInvisibleAnnotations" if major >= 49 => once("RuntimeInvisibleAnnotations")?,
            "RuntimeVisibleTypeAnnotations" if major >= 49 => once("RuntimeVisibleTypeAnnotations")?,
            "RuntimeInvisibleTypeAnnotations" if major >= 49 => once("RuntimeInvisibleTypeAnnotations")?,
            "SourceDebugExtension" => once("SourceDebugExtension")?,
            "NestMembers" if major >= 55 => {
                once("NestMembers")?;
                if nest_host {
                    return Err(bad(format!(
                        "Conflicting NestHost and NestMembers attributes in class file {class}"
                    )));
                }
                nest_members = Some(data);
            }
            "NestHost" if major >= 55 => {
                once("NestHost")?;
                if nest_members.is_some() {
                    return Err(bad(format!(
                        "Conflicting NestMembers and NestHost attributes in class file {class}"
                    )));
                }
                nest_host = true;
                if data.len() != 2 {
                    return Err(bad(format!(
                        "Wrong NestHost attribute length in class file {class}"
                    )));
                }
                let index = u2_at(data, 0).unwrap_or(0);
                if !is_class(cp, index) {
                    return Err(bad(format!(
                        "Nest-host class_info_index {index} has bad constant type in class file {class}"
                    )));
                }
            }
            "Record" if major >= 60 => {
                once("Record")?;
                record = Some(data);
            }
            "PermittedSubclasses" if major >= 61 => {
                once("PermittedSubclasses")?;
                if flags & access::FINAL != 0 {
                    return Err(bad(format!(
                        "PermittedSubclasses attribute in final class file {class}"
                    )));
                }
                permitted = Some(data);
            }
            _ => {}
        }
    }
    if inner_classes.is_some() || enclosing_method {
        check_inner_classes(cp, inner_classes.unwrap_or(&[0, 0]), major, class)?;
    }
    if let Some(data) = nest_members {
        check_class_list(cp, data, "NestMembers", "Nest member", class)?;
    }
    if let Some(data) = record {
        check_record(cp, data, class)?;
    }
    if let Some(data) = permitted {
        check_class_list(cp, data, "PermittedSubclasses", "Permitted subclass", class)?;
    }
    Ok(())
}

/// A `u2` count and that many Class indices.
fn check_class_list(cp: &ConstantPool, data: &[u8], attribute: &str, entry: &str, class: &str) -> Result<()> {
    let wrong_length = format!("Wrong {attribute} attribute length in class file {class}");
    let mut c = Cursor {
        data,
        pos: 0,
        short: &wrong_length,
    };
    let n = c.u2()?;
    for _ in 0..n {
        let index = c.u2()?;
        if !is_class(cp, index) {
            return Err(bad(format!(
                "{entry} class_info_index {index} has bad constant type in class file {class}"
            )));
        }
    }
    if c.pos != data.len() {
        return Err(bad(wrong_length));
    }
    Ok(())
}

/// One `InnerClasses` entry: inner, outer and name indices, flags.
type InnerEntry = [u16; 4];

fn check_inner_classes(cp: &ConstantPool, data: &[u8], major: u16, class: &str) -> Result<()> {
    let wrong_length = format!("Wrong InnerClasses attribute length in class file {class}");
    let mut c = Cursor {
        data,
        pos: 0,
        short: &wrong_length,
    };
    let n = c.u2()?;
    let mut entries: Vec<InnerEntry> = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let inner = c.u2()?;
        if !is_class(cp, inner) {
            return Err(bad(format!(
                "inner_class_info_index {inner} has bad constant type in class file {class}"
            )));
        }
        let outer = c.u2()?;
        if outer != 0 && !is_class(cp, outer) {
            return Err(bad(format!(
                "outer_class_info_index {outer} has bad constant type in class file {class}"
            )));
        }
        let name = c.u2()?;
        if name != 0 && !is_utf8(cp, name) {
            return Err(bad(format!(
                "inner_name_index {name} has bad constant type in class file {class}"
            )));
        }
        if inner == outer {
            return Err(bad(format!(
                "Class is both outer and inner class in class file {class}"
            )));
        }
        let recognized = access::PUBLIC
            | access::PRIVATE
            | access::PROTECTED
            | access::STATIC
            | access::FINAL
            | access::SUPER
            | access::INTERFACE
            | access::ABSTRACT
            | access::SYNTHETIC
            | access::ANNOTATION
            | access::ENUM
            | if major >= 53 { access::MODULE } else { 0 };
        let mut flags = c.u2()? & recognized;
        if flags & access::INTERFACE != 0 && major < 50 {
            flags |= access::ABSTRACT;
        }
        super::check_class_flags(flags, major, class)?;
        entries.push([inner, outer, name, flags]);
    }
    if major >= 49 {
        check_inner_class_duplicates(cp, &entries, class)?;
        if c.pos != data.len() {
            return Err(bad(wrong_length));
        }
    }
    Ok(())
}

/// HotSpot's scan of the entries for loops and duplicates: it stops,
/// without error, at the first entry whose outer chain loops or that shares
/// its inner class with a later entry; an identical later entry before that
/// is an error.
fn check_inner_class_duplicates(cp: &ConstantPool, entries: &[InnerEntry], class: &str) -> Result<()> {
    let name = |index: u16| cp.class_name(index).ok();
    // The outer class of the entry whose inner class is named as `index`.
    let outer_of = |index: u16| -> Option<u16> {
        if index == 0 {
            return None;
        }
        let wanted = name(index)?;
        entries.iter().find(|e| name(e[0]) == Some(wanted)).map(|e| e[1])
    };
    for (i, e) in entries.iter().enumerate() {
        // Floyd's cycle detection along the outer-class chain.
        let mut slow = e[0];
        let mut fast = e[1];
        let mut looped = false;
        while fast != 0 {
            if slow != 0 && name(slow) == name(fast) {
                looped = true;
                break;
            }
            match outer_of(fast).and_then(outer_of) {
                Some(f) => fast = f,
                None => break,
            }
            slow = outer_of(slow).unwrap_or(0);
        }
        if looped {
            return Ok(());
        }
        for later in &entries[i + 1..] {
            if later == e {
                return Err(bad(format!(
                    "Duplicate entry in InnerClasses attribute in class file {class}"
                )));
            }
            if later[0] == e[0] {
                return Ok(());
            }
        }
    }
    Ok(())
}

fn check_record(cp: &ConstantPool, data: &[u8], class: &str) -> Result<()> {
    let wrong_length = format!("Record attribute has wrong length in class file {class}");
    let mut c = Cursor {
        data,
        pos: 0,
        short: &wrong_length,
    };
    let n = c.u2()?;
    for _ in 0..n {
        let name_index = c.u2()?;
        let name = match cp.get(name_index) {
            Ok(Constant::Utf8(u)) if name_index != 0 => u.text.to_string(),
            _ => {
                return Err(bad(format!(
                "Invalid constant pool index {name_index} for name in Record attribute in class file {class}"
            )))
            }
        };
        let descriptor_index = c.u2()?;
        let descriptor = match cp.get(descriptor_index) {
            Ok(Constant::Utf8(u)) if descriptor_index != 0 => u.text.to_string(),
            _ => {
                return Err(bad(format!(
                    "Invalid constant pool index {descriptor_index} for descriptor in Record attribute in class file {class}"
                )))
            }
        };
        check_member_name_and_descriptor(&name, &descriptor, true)?;
        let attributes = c.u2()?;
        let mut seen: Vec<&str> = Vec::new();
        for _ in 0..attributes {
            let attribute_name = c.u2()?;
            let length = c.u4()?;
            let attribute = match cp.get(attribute_name) {
                Ok(Constant::Utf8(u)) if attribute_name != 0 => u.text.to_string(),
                _ => {
                    return Err(bad(format!(
                        "Invalid Record attribute name index {attribute_name} in class file {class}"
                    )))
                }
            };
            let tracked = [
                "Signature",
                "RuntimeVisibleAnnotations",
                "RuntimeInvisibleAnnotations",
                "RuntimeVisibleTypeAnnotations",
                "RuntimeInvisibleTypeAnnotations",
            ];
            if let Some(&kind) = tracked.iter().find(|k| **k == attribute) {
                if seen.contains(&kind) {
                    return Err(bad(format!(
                        "Multiple {kind} attributes for Record component in class file {class}"
                    )));
                }
                seen.push(kind);
            }
            if attribute == "Signature" {
                if length != 2 {
                    return Err(bad(format!(
                        "Invalid Signature attribute length {length} in Record component in class file {class}"
                    )));
                }
                let index = c.u2()?;
                if !is_utf8(cp, index) {
                    return Err(bad(format!(
                        "Invalid constant pool index {index} in Signature attribute in class file {class}"
                    )));
                }
            } else {
                c.skip(length as usize)?;
            }
        }
    }
    if c.pos != data.len() {
        return Err(bad(wrong_length));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classfile::constant_pool::Utf8;

    fn utf8(s: &str) -> Constant {
        Constant::Utf8(Utf8 {
            text: s.into(),
            utf16: None,
        })
    }

    /// 1 "Outer", 2 Class Outer, 3 "Outer$In", 4 Class Outer$In, 5 "In",
    /// 6 "x", 7 "I", 8 "m", 9 "()V", 10 NameAndType m ()V, 11 "Signature".
    fn pool() -> ConstantPool {
        ConstantPool::from_entries(vec![
            Constant::Unusable,
            utf8("Outer"),
            Constant::Class { name: 1 },
            utf8("Outer$In"),
            Constant::Class { name: 3 },
            utf8("In"),
            utf8("x"),
            utf8("I"),
            utf8("m"),
            utf8("()V"),
            Constant::NameAndType {
                name: 8,
                descriptor: 9,
            },
            utf8("Signature"),
        ])
        .unwrap()
    }

    fn attr(name: &str, data: &[u8]) -> RawAttribute {
        RawAttribute {
            name: name.to_string(),
            data: data.to_vec(),
        }
    }

    fn err(attrs: &[RawAttribute], major: u16, flags: u16) -> String {
        match check(&pool(), attrs, major, flags, "Outer$In") {
            Ok(()) => format!("accepted {attrs:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn well_formed_attributes_pass() {
        let attrs = [
            attr("InnerClasses", &[0, 1, 0, 4, 0, 2, 0, 5, 0, 8]),
            attr("NestHost", &[0, 2]),
            attr("EnclosingMethod", &[0, 2, 0, 10]),
            attr("Signature", &[0, 1]),
            attr("Record", &[0, 1, 0, 6, 0, 7, 0, 1, 0, 11, 0, 0, 0, 2, 0, 1]),
            attr("PermittedSubclasses", &[0, 1, 0, 4]),
            attr("Unknown", &[1, 2, 3]),
        ];
        check(&pool(), &attrs, 65, 0, "Outer$In").unwrap();
        // Attributes a version does not know are not checked.
        check(
            &pool(),
            &[attr("NestHost", &[9]), attr("Record", &[])],
            52,
            0,
            "Outer$In",
        )
        .unwrap();
    }

    #[test]
    fn malformed_attributes_are_format_errors() {
        let cases: &[(&[RawAttribute], u16, u16, &str)] = &[
            (
                &[attr("NestHost", &[0, 2]), attr("NestHost", &[0, 2])],
                55,
                0,
                "Multiple NestHost",
            ),
            (
                &[attr("NestHost", &[0, 2, 0])],
                55,
                0,
                "Wrong NestHost attribute length",
            ),
            (
                &[attr("NestHost", &[0, 1])],
                55,
                0,
                "Nest-host class_info_index 1 has bad constant type",
            ),
            (
                &[attr("NestHost", &[0, 2]), attr("NestMembers", &[0, 0])],
                55,
                0,
                "Conflicting NestHost and NestMembers",
            ),
            (
                &[attr("NestMembers", &[0, 1, 0, 3])],
                55,
                0,
                "Nest member class_info_index 3",
            ),
            (
                &[attr("NestMembers", &[0, 1, 0, 4, 0])],
                55,
                0,
                "Wrong NestMembers attribute length",
            ),
            (
                &[attr("InnerClasses", &[0, 1, 0, 4, 0, 4, 0, 5, 0, 8])],
                52,
                0,
                "both outer and inner",
            ),
            (
                &[attr("InnerClasses", &[0, 1, 0, 0, 0, 2, 0, 5, 0, 8])],
                52,
                0,
                "inner_class_info_index 0",
            ),
            (
                &[attr("InnerClasses", &[0, 1, 0, 4, 0, 2, 0, 4, 0, 8])],
                52,
                0,
                "inner_name_index 4",
            ),
            (
                &[attr("InnerClasses", &[0, 1, 0, 4, 0, 2, 0, 5, 0x06, 0x10])],
                52,
                0,
                "Illegal class modifiers",
            ),
            (
                &[attr("InnerClasses", &[0, 1, 0, 4, 0, 2, 0, 5, 0, 8, 0])],
                52,
                0,
                "Wrong InnerClasses attribute length",
            ),
            (
                &[attr(
                    "InnerClasses",
                    &[0, 2, 0, 4, 0, 2, 0, 5, 0, 8, 0, 4, 0, 2, 0, 5, 0, 8],
                )],
                52,
                0,
                "Duplicate entry in InnerClasses",
            ),
            (
                &[attr("EnclosingMethod", &[0, 0, 0, 10])],
                52,
                0,
                "Invalid class index in EnclosingMethod",
            ),
            (
                &[attr("EnclosingMethod", &[0, 1, 0, 10])],
                52,
                0,
                "out-of-bounds class index",
            ),
            (
                &[attr("EnclosingMethod", &[0, 2, 0, 9])],
                52,
                0,
                "out-of-bounds method index",
            ),
            (
                &[attr("EnclosingMethod", &[0, 2, 0])],
                52,
                0,
                "Wrong EnclosingMethod attribute length 3",
            ),
            (
                &[attr("Signature", &[0, 2])],
                52,
                0,
                "Invalid constant pool index 2 in Signature",
            ),
            (
                &[attr("Signature", &[0, 1]), attr("Signature", &[0, 1])],
                52,
                0,
                "Multiple Signature",
            ),
            (
                &[attr("Synthetic", &[0])],
                52,
                0,
                "Invalid Synthetic classfile attribute length 1",
            ),
            (
                &[attr("Record", &[0, 1, 0, 2, 0, 7, 0, 0])],
                60,
                0,
                "for name in Record",
            ),
            (
                &[attr("Record", &[0, 1, 0, 6, 0, 9, 0, 0])],
                60,
                0,
                "Invalid descriptor \"()V\"",
            ),
            (
                &[attr("Record", &[0, 1, 0, 6, 0, 7, 0, 0, 0])],
                60,
                0,
                "Record attribute has wrong length",
            ),
            (
                &[attr(
                    "Record",
                    &[0, 1, 0, 6, 0, 7, 0, 1, 0, 11, 0, 0, 0, 3, 0, 1, 0],
                )],
                60,
                0,
                "Invalid Signature attribute length 3",
            ),
            (
                &[attr("PermittedSubclasses", &[0, 0])],
                61,
                access::FINAL,
                "PermittedSubclasses attribute in final class",
            ),
            (
                &[attr("PermittedSubclasses", &[0, 1, 0, 5])],
                61,
                0,
                "Permitted subclass class_info_index 5",
            ),
        ];
        for (attrs, major, flags, want) in cases {
            let e = err(attrs, *major, *flags);
            assert!(e.contains(want), "{attrs:?}: got {e:?}, want {want:?}");
        }
    }

    #[test]
    fn duplicate_inner_entries_after_a_repeated_inner_class_are_ignored_as_hotspot_does() {
        // Entry 0 and entry 1 share their inner class (not identical): the
        // scan stops there, so the identical pair after it is not reported.
        let e = [0, 4, 0, 2, 0, 5, 0, 8];
        let f = [0, 4, 0, 2, 0, 5, 0, 9];
        let mut data = vec![0, 3];
        data.extend_from_slice(&e);
        data.extend_from_slice(&f);
        data.extend_from_slice(&f);
        check(&pool(), &[attr("InnerClasses", &data)], 52, 0, "Outer$In").unwrap();
    }
}

//! Field and method descriptors (JVMS 4.3) and the unqualified names they
//! are made of (JVMS 4.2.2): parsed, validated, and measured in JVM slots
//! (long and double take two).
//!
//! Where it sits: the constant pool validates every descriptor it names
//! with these parsers; the linker lays out fields by [`FieldType`] and the
//! interpreter sizes argument lists by [`MethodDescriptor::arg_slots`].

use super::error::{ClassFileError, Result};

/// A field type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// `B`
    Byte,
    /// `C`
    Char,
    /// `D`
    Double,
    /// `F`
    Float,
    /// `I`
    Int,
    /// `J`
    Long,
    /// `S`
    Short,
    /// `Z`
    Boolean,
    /// `Lname;` (name in internal form).
    Object(String),
    /// `[component` (at most 255 dimensions).
    Array(Box<FieldType>),
}

impl FieldType {
    /// Parses a whole field descriptor.
    pub fn parse(s: &str) -> Result<FieldType> {
        let (t, rest) = Self::parse_prefix(s, 0)?;
        if !rest.is_empty() {
            return Err(bad_desc(s));
        }
        Ok(t)
    }

    /// Parses one field type at the start of `s`, returning it and the
    /// rest.
    pub fn parse_prefix(s: &str, depth: usize) -> Result<(FieldType, &str)> {
        let mut chars = s.char_indices();
        let (_, c) = chars.next().ok_or_else(|| bad_desc(s))?;
        let rest = &s[c.len_utf8()..];
        let t = match c {
            'B' => FieldType::Byte,
            'C' => FieldType::Char,
            'D' => FieldType::Double,
            'F' => FieldType::Float,
            'I' => FieldType::Int,
            'J' => FieldType::Long,
            'S' => FieldType::Short,
            'Z' => FieldType::Boolean,
            'L' => {
                let end = rest.find(';').ok_or_else(|| bad_desc(s))?;
                let name = &rest[..end];
                if name.is_empty() || !name.split('/').all(|p| is_unqualified_name(p, false)) {
                    return Err(bad_desc(s));
                }
                return Ok((FieldType::Object(name.to_string()), &rest[end + 1..]));
            }
            '[' => {
                if depth >= 255 {
                    return Err(ClassFileError::format(format!(
                        "Array type with more than 255 dimensions: {s}"
                    )));
                }
                let (inner, rest) = Self::parse_prefix(rest, depth + 1)?;
                return Ok((FieldType::Array(Box::new(inner)), rest));
            }
            _ => return Err(bad_desc(s)),
        };
        Ok((t, rest))
    }

    /// Slots the type takes in locals and on the operand stack (2 for long
    /// and double).
    pub fn slots(&self) -> usize {
        match self {
            FieldType::Long | FieldType::Double => 2,
            _ => 1,
        }
    }

    /// Whether values of the type are references.
    pub fn is_reference(&self) -> bool {
        matches!(self, FieldType::Object(_) | FieldType::Array(_))
    }

    /// The descriptor text.
    pub fn descriptor(&self) -> String {
        let mut s = String::new();
        self.write_descriptor(&mut s);
        s
    }

    fn write_descriptor(&self, s: &mut String) {
        match self {
            FieldType::Byte => s.push('B'),
            FieldType::Char => s.push('C'),
            FieldType::Double => s.push('D'),
            FieldType::Float => s.push('F'),
            FieldType::Int => s.push('I'),
            FieldType::Long => s.push('J'),
            FieldType::Short => s.push('S'),
            FieldType::Boolean => s.push('Z'),
            FieldType::Object(n) => {
                s.push('L');
                s.push_str(n);
                s.push(';');
            }
            FieldType::Array(c) => {
                s.push('[');
                c.write_descriptor(s);
            }
        }
    }
}

/// A method descriptor: parameter types and return type (`None` for void).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodDescriptor {
    /// The parameters, in order.
    pub params: Vec<FieldType>,
    /// The return type; `None` for `V`.
    pub ret: Option<FieldType>,
}

impl MethodDescriptor {
    /// Parses a method descriptor `(params)ret`; at most 255 parameter
    /// slots (JVMS 4.3.3), `this` not counted.
    pub fn parse(s: &str) -> Result<MethodDescriptor> {
        let mut rest = s.strip_prefix('(').ok_or_else(|| bad_desc(s))?;
        let mut params = Vec::new();
        while !rest.starts_with(')') {
            let (t, r) = FieldType::parse_prefix(rest, 0).map_err(|_| bad_desc(s))?;
            params.push(t);
            rest = r;
        }
        rest = &rest[1..];
        let ret = if rest == "V" {
            None
        } else {
            Some(FieldType::parse(rest).map_err(|_| bad_desc(s))?)
        };
        let d = MethodDescriptor { params, ret };
        if d.arg_slots() > 255 {
            return Err(ClassFileError::format(format!(
                "Too many arguments in method signature {s}"
            )));
        }
        Ok(d)
    }

    /// Slots the parameters take (without `this`).
    pub fn arg_slots(&self) -> usize {
        self.params.iter().map(FieldType::slots).sum()
    }

    /// Slots the return value takes (0 for void).
    pub fn ret_slots(&self) -> usize {
        self.ret.as_ref().map_or(0, FieldType::slots)
    }
}

fn bad_desc(s: &str) -> ClassFileError {
    ClassFileError::format(format!("Invalid descriptor \"{s}\" in class file"))
}

/// An unqualified name (JVMS 4.2.2): non-empty, none of `. ; [ /`, and for
/// methods none of `< >` either.
pub fn is_unqualified_name(name: &str, method: bool) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| matches!(c, '.' | ';' | '[' | '/') || (method && matches!(c, '<' | '>')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_measures() {
        let d = MethodDescriptor::parse("(IJ[Ljava/lang/String;D)V").unwrap();
        assert_eq!(d.arg_slots(), 1 + 2 + 1 + 2);
        assert_eq!(d.ret, None);
        assert_eq!(
            MethodDescriptor::parse("()[[I")
                .unwrap()
                .ret
                .unwrap()
                .descriptor(),
            "[[I"
        );
        for bad in [
            "(V)V",
            "(I",
            "()",
            "(L;)V",
            "(Ljava/lang/String)V",
            "()VV",
            "(I)Q",
            "()L/a;",
        ] {
            assert!(MethodDescriptor::parse(bad).is_err(), "{bad}");
        }
        assert!(FieldType::parse(&"[".repeat(256).to_string().add_i()).is_err());
        assert!(FieldType::parse(&"[".repeat(255).to_string().add_i()).is_ok());
    }

    trait AddI {
        fn add_i(self) -> String;
    }
    impl AddI for String {
        fn add_i(mut self) -> String {
            self.push('I');
            self
        }
    }
}

//! Classes the VM writes itself: a constant pool builder and a bytecode
//! assembler for straight-line methods (no branches, so no
//! `StackMapTable` is needed), producing a [`ClassFile`] the loader links
//! like any other.
//!
//! Where it sits: `indy.rs` spins one class per `invokedynamic` call site
//! with it (lambdas and method references, string concatenation, record
//! methods), as OpenJDK's `InnerClassLambdaMetafactory` spins its classes
//! with the class-file API.

use std::collections::HashMap;

use crate::classfile::bytecode::op;
use crate::classfile::constant_pool::{decode_modified_utf8, MemberRefIndices};
use crate::classfile::{
    access, ClassFile, Code, Constant, ConstantPool, FieldInfo, FieldType, MethodDescriptor, MethodInfo,
};
use crate::runtime::Error;

/// A class being written.
pub struct ClassWriter {
    cp: Vec<Constant>,
    index: HashMap<String, u16>,
    name: String,
    super_name: String,
    interfaces: Vec<String>,
    fields: Vec<FieldInfo>,
    methods: Vec<MethodInfo>,
    flags: u16,
}

/// A method body being assembled.
#[derive(Default)]
pub struct Asm {
    /// The bytecode.
    pub code: Vec<u8>,
    depth: i32,
    /// The deepest the stack got.
    pub max_stack: i32,
}

impl Asm {
    /// Appends an instruction (opcode and operand bytes) whose stack effect
    /// is `delta` slots.
    pub fn emit(&mut self, bytes: &[u8], delta: i32) {
        self.code.extend_from_slice(bytes);
        self.depth += delta;
        self.max_stack = self.max_stack.max(self.depth);
    }

    /// An instruction with a two-byte constant-pool index.
    pub fn emit_cp(&mut self, opcode: u8, index: u16, delta: i32) {
        let [hi, lo] = index.to_be_bytes();
        self.emit(&[opcode, hi, lo], delta);
    }

    /// Loads local `slot` of `t`'s kind.
    pub fn load(&mut self, t: &FieldType, slot: u16) {
        let opcode = match t {
            FieldType::Long => op::LLOAD,
            FieldType::Double => op::DLOAD,
            FieldType::Float => op::FLOAD,
            FieldType::Object(_) | FieldType::Array(_) => op::ALOAD,
            _ => op::ILOAD,
        };
        let [hi, lo] = slot.to_be_bytes();
        self.emit(&[op::WIDE, opcode, hi, lo], t.slots() as i32);
    }

    /// Stores the value of `t`'s kind on the stack's top into local `slot`.
    pub fn store(&mut self, t: &FieldType, slot: u16) {
        let opcode = match t {
            FieldType::Long => op::LSTORE,
            FieldType::Double => op::DSTORE,
            FieldType::Float => op::FSTORE,
            FieldType::Object(_) | FieldType::Array(_) => op::ASTORE,
            _ => op::ISTORE,
        };
        let [hi, lo] = slot.to_be_bytes();
        self.emit(&[op::WIDE, opcode, hi, lo], -(t.slots() as i32));
    }

    /// Returns a value of `t` (or void).
    pub fn ret(&mut self, t: Option<&FieldType>) {
        let opcode = match t {
            None => op::RETURN,
            Some(FieldType::Long) => op::LRETURN,
            Some(FieldType::Double) => op::DRETURN,
            Some(FieldType::Float) => op::FRETURN,
            Some(FieldType::Object(_) | FieldType::Array(_)) => op::ARETURN,
            Some(_) => op::IRETURN,
        };
        self.emit(&[opcode], -(t.map_or(0, FieldType::slots) as i32));
    }
}

impl ClassWriter {
    /// A class `name` extending `super_name`.
    pub fn new(name: &str, super_name: &str, interfaces: Vec<String>) -> ClassWriter {
        ClassWriter {
            cp: vec![Constant::Unusable],
            index: HashMap::new(),
            name: name.into(),
            super_name: super_name.into(),
            interfaces,
            fields: Vec::new(),
            methods: Vec::new(),
            flags: access::PUBLIC | access::FINAL | access::SUPER | access::SYNTHETIC,
        }
    }

    fn add(&mut self, key: String, c: Constant) -> u16 {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let wide = matches!(c, Constant::Long(_) | Constant::Double(_));
        self.cp.push(c);
        let i = (self.cp.len() - 1) as u16;
        if wide {
            self.cp.push(Constant::Unusable);
        }
        self.index.insert(key, i);
        i
    }

    /// A `Utf8` constant.
    pub fn utf8(&mut self, s: &str) -> u16 {
        let bytes = modified_utf8(s);
        let u = decode_modified_utf8(&bytes).expect("encoded above");
        self.add(format!("U{s}"), Constant::Utf8(u))
    }

    /// A `String` constant from UTF-16 (exact, surrogates included).
    pub fn string_utf16(&mut self, units: &[u16]) -> u16 {
        let text = String::from_utf16_lossy(units);
        let exact = String::from_utf16(units).is_ok();
        let key = format!("S{units:?}");
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let u = crate::classfile::constant_pool::Utf8 {
            text: text.as_str().into(),
            utf16: (!exact).then(|| units.into()),
        };
        let ui = self.add(format!("U16{units:?}"), Constant::Utf8(u));
        self.add(key, Constant::String { utf8: ui })
    }

    /// A `Class` constant.
    pub fn class(&mut self, name: &str) -> u16 {
        let n = self.utf8(name);
        self.add(format!("C{name}"), Constant::Class { name: n })
    }

    fn name_and_type(&mut self, name: &str, desc: &str) -> u16 {
        let (n, d) = (self.utf8(name), self.utf8(desc));
        self.add(
            format!("N{name} {desc}"),
            Constant::NameAndType {
                name: n,
                descriptor: d,
            },
        )
    }

    /// A method reference (`interface`: an `InterfaceMethodref`).
    pub fn method_ref(&mut self, class: &str, name: &str, desc: &str, interface: bool) -> u16 {
        let m = MemberRefIndices {
            class: self.class(class),
            name_and_type: self.name_and_type(name, desc),
        };
        let c = if interface {
            Constant::InterfaceMethodRef(m)
        } else {
            Constant::MethodRef(m)
        };
        self.add(format!("M{interface}{class}.{name}{desc}"), c)
    }

    /// A field reference.
    pub fn field_ref(&mut self, class: &str, name: &str, desc: &str) -> u16 {
        let m = MemberRefIndices {
            class: self.class(class),
            name_and_type: self.name_and_type(name, desc),
        };
        self.add(format!("F{class}.{name}{desc}"), Constant::FieldRef(m))
    }

    /// An `Integer` constant.
    pub fn int(&mut self, v: i32) -> u16 {
        self.add(format!("I{v}"), Constant::Integer(v))
    }

    /// Adds a field.
    pub fn field(&mut self, flags: u16, name: &str, desc: &str) -> Result<(), Error> {
        let ft = FieldType::parse(desc).map_err(Error::from)?;
        self.utf8(name);
        self.utf8(desc);
        self.fields.push(FieldInfo {
            access_flags: flags,
            name: name.into(),
            descriptor: desc.into(),
            field_type: ft,
            constant_value: None,
            attributes: Vec::new(),
        });
        Ok(())
    }

    /// Adds a method with the assembled body (`max_locals` from the
    /// descriptor unless larger).
    pub fn method(
        &mut self,
        flags: u16,
        name: &str,
        desc: &str,
        asm: Asm,
        max_locals: u16,
    ) -> Result<(), Error> {
        let md = MethodDescriptor::parse(desc).map_err(Error::from)?;
        self.utf8(name);
        self.utf8(desc);
        let args = md.arg_slots() + usize::from(flags & access::STATIC == 0);
        self.methods.push(MethodInfo {
            access_flags: flags,
            name: name.into(),
            descriptor: desc.into(),
            method_descriptor: md,
            code: Some(Code {
                max_stack: asm.max_stack.max(0) as u16,
                max_locals: max_locals.max(args as u16),
                code: asm.code,
                exception_table: Vec::new(),
                stack_map: None,
                line_numbers: Vec::new(),
                attributes: Vec::new(),
            }),
            attributes: Vec::new(),
        });
        Ok(())
    }

    /// The finished class file.
    pub fn finish(mut self) -> Result<ClassFile, Error> {
        let this = self.name.clone();
        let sup = self.super_name.clone();
        self.class(&this);
        self.class(&sup);
        for i in self.interfaces.clone() {
            self.class(&i);
        }
        Ok(ClassFile {
            minor_version: 0,
            major_version: 52,
            constant_pool: ConstantPool::from_entries(self.cp).map_err(Error::from)?,
            access_flags: self.flags,
            this_class: this,
            super_class: Some(sup),
            interfaces: self.interfaces,
            fields: self.fields,
            methods: self.methods,
            bootstrap_methods: Vec::new(),
            source_file: None,
            attributes: Vec::new(),
        })
    }
}

/// Java's modified UTF-8 of `s`.
pub fn modified_utf8(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for u in s.encode_utf16() {
        match u {
            1..=0x7f => out.push(u as u8),
            0 | 0x80..=0x7ff => {
                out.push(0xc0 | (u >> 6) as u8);
                out.push(0x80 | (u & 0x3f) as u8);
            }
            _ => {
                out.push(0xe0 | (u >> 12) as u8);
                out.push(0x80 | ((u >> 6) & 0x3f) as u8);
                out.push(0x80 | (u & 0x3f) as u8);
            }
        }
    }
    out
}

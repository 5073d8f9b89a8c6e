//! A small class-file assembler for hand-made test classes: a constant
//! pool that interns its entries, fields, methods with `Code`, exception
//! tables and `StackMapTable` full frames, and a bytecode writer with
//! labels. It writes whatever it is told (bad code included): checking is
//! the parser's and the verifier's job.

use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Entry {
    Utf8(String),
    Integer(i32),
    Float(u32),
    Long(i64),
    Double(u64),
    Class(u16),
    String(u16),
    FieldRef(u16, u16),
    MethodRef(u16, u16),
    InterfaceMethodRef(u16, u16),
    NameAndType(u16, u16),
    MethodType(u16),
    MethodHandle(u8, u16),
    Dynamic(u16, u16),
    InvokeDynamic(u16, u16),
}

/// A verification type for a stack map frame.
#[derive(Clone, Debug)]
pub enum Vt {
    Top,
    Int,
    Float,
    Long,
    Double,
    Null,
    UninitThis,
    /// A class or array type by name.
    Obj(&'static str),
    /// `uninitialized(offset)`.
    Uninit(u16),
}

/// A full stack map frame at `offset`.
#[derive(Clone, Debug)]
pub struct Frame {
    pub offset: u16,
    pub locals: Vec<Vt>,
    pub stack: Vec<Vt>,
}

/// `Frame { offset, locals, stack }`.
pub fn frame(offset: u16, locals: Vec<Vt>, stack: Vec<Vt>) -> Frame {
    Frame {
        offset,
        locals,
        stack,
    }
}

/// An exception-table entry; `catch` `None` catches everything.
#[derive(Clone, Debug)]
pub struct Handler {
    pub start: u16,
    pub end: u16,
    pub handler: u16,
    pub catch: Option<&'static str>,
}

/// A method to add: its code and what goes with it.
#[derive(Clone, Debug)]
pub struct MethodSpec {
    pub access: u16,
    pub name: String,
    pub descriptor: String,
    pub max_stack: u16,
    pub max_locals: u16,
    /// `None`: no Code attribute (abstract/native).
    pub code: Option<Vec<u8>>,
    pub handlers: Vec<Handler>,
    /// Full frames, in offset order; an empty list writes no `StackMapTable`.
    pub frames: Vec<Frame>,
    /// A raw `StackMapTable` body instead of `frames`.
    pub raw_stack_map: Option<Vec<u8>>,
}

impl MethodSpec {
    pub fn new(
        access: u16,
        name: &str,
        descriptor: &str,
        max_stack: u16,
        max_locals: u16,
        code: Vec<u8>,
    ) -> Self {
        MethodSpec {
            access,
            name: name.into(),
            descriptor: descriptor.into(),
            max_stack,
            max_locals,
            code: Some(code),
            handlers: Vec::new(),
            frames: Vec::new(),
            raw_stack_map: None,
        }
    }

    pub fn frames(mut self, frames: Vec<Frame>) -> Self {
        self.frames = frames;
        self
    }

    pub fn handlers(mut self, handlers: Vec<Handler>) -> Self {
        self.handlers = handlers;
        self
    }
}

/// A class under construction.
pub struct ClassBuilder {
    pub major: u16,
    pub access: u16,
    name: String,
    super_name: Option<String>,
    interfaces: Vec<String>,
    entries: Vec<Entry>,
    index: HashMap<Entry, u16>,
    fields: Vec<(u16, String, String)>,
    methods: Vec<MethodSpec>,
    /// `BootstrapMethods` entries: a method handle and its arguments.
    bootstrap_methods: Vec<(u16, Vec<u16>)>,
    /// Class attributes written as given (name, body), after
    /// `BootstrapMethods`.
    pub attributes: Vec<(String, Vec<u8>)>,
}

pub fn u2(v: u16) -> [u8; 2] {
    v.to_be_bytes()
}

impl ClassBuilder {
    /// A public class `name` extending `super_name`, version 52.
    pub fn new(name: &str, super_name: &str) -> ClassBuilder {
        ClassBuilder {
            major: 52,
            access: 0x0021,
            name: name.into(),
            super_name: Some(super_name.into()),
            interfaces: Vec::new(),
            entries: Vec::new(),
            index: HashMap::new(),
            fields: Vec::new(),
            methods: Vec::new(),
            bootstrap_methods: Vec::new(),
            attributes: Vec::new(),
        }
    }

    /// `java/lang/Object` itself: no superclass.
    pub fn root(name: &str) -> ClassBuilder {
        let mut c = ClassBuilder::new(name, "");
        c.super_name = None;
        c
    }

    pub fn interface(mut self, name: &str) -> Self {
        self.interfaces.push(name.into());
        self
    }

    fn add(&mut self, e: Entry) -> u16 {
        if let Some(&i) = self.index.get(&e) {
            return i;
        }
        // Indices start at 1; a long or double takes two.
        let i = 1 + self
            .entries
            .iter()
            .map(|e| {
                if matches!(e, Entry::Long(_) | Entry::Double(_)) {
                    2
                } else {
                    1
                }
            })
            .sum::<u16>();
        self.entries.push(e.clone());
        self.index.insert(e, i);
        i
    }

    pub fn utf8(&mut self, s: &str) -> u16 {
        self.add(Entry::Utf8(s.into()))
    }
    pub fn class(&mut self, name: &str) -> u16 {
        let n = self.utf8(name);
        self.add(Entry::Class(n))
    }
    pub fn string(&mut self, s: &str) -> u16 {
        let n = self.utf8(s);
        self.add(Entry::String(n))
    }
    pub fn integer(&mut self, v: i32) -> u16 {
        self.add(Entry::Integer(v))
    }
    pub fn float(&mut self, v: f32) -> u16 {
        self.add(Entry::Float(v.to_bits()))
    }
    pub fn long(&mut self, v: i64) -> u16 {
        self.add(Entry::Long(v))
    }
    pub fn double(&mut self, v: f64) -> u16 {
        self.add(Entry::Double(v.to_bits()))
    }
    pub fn name_and_type(&mut self, name: &str, descriptor: &str) -> u16 {
        let (n, d) = (self.utf8(name), self.utf8(descriptor));
        self.add(Entry::NameAndType(n, d))
    }
    pub fn field_ref(&mut self, class: &str, name: &str, descriptor: &str) -> u16 {
        let (c, nt) = (self.class(class), self.name_and_type(name, descriptor));
        self.add(Entry::FieldRef(c, nt))
    }
    pub fn method_ref(&mut self, class: &str, name: &str, descriptor: &str) -> u16 {
        let (c, nt) = (self.class(class), self.name_and_type(name, descriptor));
        self.add(Entry::MethodRef(c, nt))
    }
    pub fn interface_method_ref(&mut self, class: &str, name: &str, descriptor: &str) -> u16 {
        let (c, nt) = (self.class(class), self.name_and_type(name, descriptor));
        self.add(Entry::InterfaceMethodRef(c, nt))
    }
    pub fn method_type(&mut self, descriptor: &str) -> u16 {
        let d = self.utf8(descriptor);
        self.add(Entry::MethodType(d))
    }

    /// A `MethodHandle` of `kind` (JVMS 4.4.8) to the member `reference`.
    pub fn method_handle(&mut self, kind: u8, reference: u16) -> u16 {
        self.add(Entry::MethodHandle(kind, reference))
    }
    /// A `BootstrapMethods` entry; returns its index.
    pub fn bootstrap_method(&mut self, handle: u16, arguments: Vec<u16>) -> u16 {
        self.bootstrap_methods.push((handle, arguments));
        (self.bootstrap_methods.len() - 1) as u16
    }
    /// An `InvokeDynamic` constant for bootstrap method `bootstrap`.
    pub fn invoke_dynamic(&mut self, bootstrap: u16, name: &str, descriptor: &str) -> u16 {
        let nt = self.name_and_type(name, descriptor);
        self.add(Entry::InvokeDynamic(bootstrap, nt))
    }
    /// A `Dynamic` constant for bootstrap method `bootstrap`.
    pub fn dynamic(&mut self, bootstrap: u16, name: &str, descriptor: &str) -> u16 {
        let nt = self.name_and_type(name, descriptor);
        self.add(Entry::Dynamic(bootstrap, nt))
    }

    pub fn field(&mut self, access: u16, name: &str, descriptor: &str) -> &mut Self {
        self.fields.push((access, name.into(), descriptor.into()));
        self
    }

    pub fn method(&mut self, m: MethodSpec) -> &mut Self {
        self.methods.push(m);
        self
    }

    /// The usual `<init>()V` calling `super()`.
    pub fn default_constructor(&mut self) -> &mut Self {
        let sup = self.super_name.clone().unwrap();
        let init = self.method_ref(&sup, "<init>", "()V");
        let mut code = vec![0x2a, 0xb7];
        code.extend(u2(init));
        code.push(0xb1);
        self.method(MethodSpec::new(0x0001, "<init>", "()V", 1, 1, code))
    }

    fn vt(&mut self, v: &Vt, out: &mut Vec<u8>) {
        match v {
            Vt::Top => out.push(0),
            Vt::Int => out.push(1),
            Vt::Float => out.push(2),
            Vt::Double => out.push(3),
            Vt::Long => out.push(4),
            Vt::Null => out.push(5),
            Vt::UninitThis => out.push(6),
            Vt::Obj(name) => {
                let c = self.class(name);
                out.push(7);
                out.extend(u2(c));
            }
            Vt::Uninit(offset) => {
                out.push(8);
                out.extend(u2(*offset));
            }
        }
    }

    /// The class file.
    pub fn build(&mut self) -> Vec<u8> {
        let this = self.class(&self.name.clone());
        let sup = self.super_name.clone().map(|s| self.class(&s)).unwrap_or(0);
        let interfaces: Vec<u16> = self.interfaces.clone().iter().map(|i| self.class(i)).collect();
        let fields: Vec<(u16, u16, u16)> = self
            .fields
            .clone()
            .iter()
            .map(|(a, n, d)| (*a, self.utf8(n), self.utf8(d)))
            .collect();
        let mut class_attributes: Vec<(u16, Vec<u8>)> = Vec::new();
        if !self.bootstrap_methods.is_empty() {
            let mut body = Vec::new();
            body.extend(u2(self.bootstrap_methods.len() as u16));
            for (handle, arguments) in &self.bootstrap_methods {
                body.extend(u2(*handle));
                body.extend(u2(arguments.len() as u16));
                for a in arguments {
                    body.extend(u2(*a));
                }
            }
            class_attributes.push((self.utf8("BootstrapMethods"), body));
        }
        for (name, body) in self.attributes.clone() {
            class_attributes.push((self.utf8(&name), body));
        }
        let code_name = self.utf8("Code");
        let smt_name = self.utf8("StackMapTable");
        let mut methods = Vec::new();
        for m in self.methods.clone() {
            let mut out = Vec::new();
            out.extend(u2(m.access));
            out.extend(u2(self.utf8(&m.name)));
            out.extend(u2(self.utf8(&m.descriptor)));
            match &m.code {
                None => out.extend(u2(0)),
                Some(code) => {
                    out.extend(u2(1));
                    let mut body = Vec::new();
                    body.extend(u2(m.max_stack));
                    body.extend(u2(m.max_locals));
                    body.extend((code.len() as u32).to_be_bytes());
                    body.extend(code);
                    body.extend(u2(m.handlers.len() as u16));
                    for h in &m.handlers {
                        let catch = h.catch.map(|c| self.class(c)).unwrap_or(0);
                        for v in [h.start, h.end, h.handler, catch] {
                            body.extend(u2(v));
                        }
                    }
                    let smt = match &m.raw_stack_map {
                        Some(raw) => Some(raw.clone()),
                        None if m.frames.is_empty() => None,
                        None => {
                            let mut t = Vec::new();
                            t.extend(u2(m.frames.len() as u16));
                            let mut previous: Option<u16> = None;
                            for f in &m.frames {
                                let delta = match previous {
                                    None => f.offset,
                                    Some(p) => f.offset.wrapping_sub(p).wrapping_sub(1),
                                };
                                previous = Some(f.offset);
                                t.push(255);
                                t.extend(u2(delta));
                                t.extend(u2(f.locals.len() as u16));
                                for v in &f.locals {
                                    self.vt(v, &mut t);
                                }
                                t.extend(u2(f.stack.len() as u16));
                                for v in &f.stack {
                                    self.vt(v, &mut t);
                                }
                            }
                            Some(t)
                        }
                    };
                    match smt {
                        None => body.extend(u2(0)),
                        Some(t) => {
                            body.extend(u2(1));
                            body.extend(u2(smt_name));
                            body.extend((t.len() as u32).to_be_bytes());
                            body.extend(t);
                        }
                    }
                    out.extend(u2(code_name));
                    out.extend((body.len() as u32).to_be_bytes());
                    out.extend(body);
                }
            }
            methods.push(out);
        }
        let mut out = Vec::new();
        out.extend(0xCAFE_BABEu32.to_be_bytes());
        out.extend(u2(0));
        out.extend(u2(self.major));
        let count = 1 + self
            .entries
            .iter()
            .map(|e| {
                if matches!(e, Entry::Long(_) | Entry::Double(_)) {
                    2
                } else {
                    1
                }
            })
            .sum::<u16>();
        out.extend(u2(count));
        for e in &self.entries {
            match e {
                Entry::Utf8(s) => {
                    out.push(1);
                    out.extend(u2(s.len() as u16));
                    out.extend(s.as_bytes());
                }
                Entry::Integer(v) => {
                    out.push(3);
                    out.extend(v.to_be_bytes());
                }
                Entry::Float(v) => {
                    out.push(4);
                    out.extend(v.to_be_bytes());
                }
                Entry::Long(v) => {
                    out.push(5);
                    out.extend(v.to_be_bytes());
                }
                Entry::Double(v) => {
                    out.push(6);
                    out.extend(v.to_be_bytes());
                }
                Entry::Class(n) => {
                    out.push(7);
                    out.extend(u2(*n));
                }
                Entry::String(n) => {
                    out.push(8);
                    out.extend(u2(*n));
                }
                Entry::FieldRef(c, nt) | Entry::MethodRef(c, nt) | Entry::InterfaceMethodRef(c, nt) => {
                    out.push(match e {
                        Entry::FieldRef(..) => 9,
                        Entry::MethodRef(..) => 10,
                        _ => 11,
                    });
                    out.extend(u2(*c));
                    out.extend(u2(*nt));
                }
                Entry::NameAndType(n, d) => {
                    out.push(12);
                    out.extend(u2(*n));
                    out.extend(u2(*d));
                }
                Entry::MethodType(d) => {
                    out.push(16);
                    out.extend(u2(*d));
                }
                Entry::MethodHandle(kind, reference) => {
                    out.push(15);
                    out.push(*kind);
                    out.extend(u2(*reference));
                }
                Entry::Dynamic(b, nt) | Entry::InvokeDynamic(b, nt) => {
                    out.push(if matches!(e, Entry::Dynamic(..)) { 17 } else { 18 });
                    out.extend(u2(*b));
                    out.extend(u2(*nt));
                }
            }
        }
        out.extend(u2(self.access));
        out.extend(u2(this));
        out.extend(u2(sup));
        out.extend(u2(interfaces.len() as u16));
        for i in interfaces {
            out.extend(u2(i));
        }
        out.extend(u2(fields.len() as u16));
        for (a, n, d) in fields {
            out.extend(u2(a));
            out.extend(u2(n));
            out.extend(u2(d));
            out.extend(u2(0));
        }
        out.extend(u2(methods.len() as u16));
        for m in methods {
            out.extend(m);
        }
        out.extend(u2(class_attributes.len() as u16));
        for (name, body) in class_attributes {
            out.extend(u2(name));
            out.extend((body.len() as u32).to_be_bytes());
            out.extend(body);
        }
        out
    }
}

/// A label in [`Code`].
#[derive(Clone, Copy, Debug)]
pub struct Label(usize);

/// Bytecode with labels for branch targets.
#[derive(Default)]
pub struct Code {
    bytes: Vec<u8>,
    labels: Vec<Option<u16>>,
    /// (instruction start, operand position, label, 4-byte offset)
    fixups: Vec<(usize, usize, Label, bool)>,
}

impl Code {
    pub fn new() -> Code {
        Code::default()
    }
    /// The offset of the next instruction.
    pub fn pc(&self) -> u16 {
        self.bytes.len() as u16
    }
    pub fn op(&mut self, op: u8) -> &mut Self {
        self.bytes.push(op);
        self
    }
    pub fn op1(&mut self, op: u8, operand: u8) -> &mut Self {
        self.bytes.extend([op, operand]);
        self
    }
    pub fn op2(&mut self, op: u8, operand: u16) -> &mut Self {
        self.bytes.push(op);
        self.bytes.extend(u2(operand));
        self
    }
    pub fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.bytes.extend(bytes);
        self
    }
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }
    /// Binds `l` here and returns the offset.
    pub fn bind(&mut self, l: Label) -> u16 {
        self.labels[l.0] = Some(self.pc());
        self.pc()
    }
    /// A branch with a 2-byte offset (`goto_w`, `jsr_w`: 4 bytes) to `l`.
    pub fn branch(&mut self, op: u8, l: Label) -> &mut Self {
        let start = self.bytes.len();
        let wide = matches!(op, 0xc8 | 0xc9);
        self.bytes.push(op);
        self.fixups.push((start, self.bytes.len(), l, wide));
        self.bytes
            .extend(if wide { &[0u8; 4][..] } else { &[0u8; 2][..] });
        self
    }
    /// The bytes, branch offsets filled in.
    pub fn finish(&mut self) -> Vec<u8> {
        for &(start, at, l, wide) in &self.fixups {
            let target = self.labels[l.0].expect("unbound label") as i32;
            let off = target - start as i32;
            if wide {
                self.bytes[at..at + 4].copy_from_slice(&off.to_be_bytes());
            } else {
                self.bytes[at..at + 2].copy_from_slice(&(off as i16).to_be_bytes());
            }
        }
        self.bytes.clone()
    }
}

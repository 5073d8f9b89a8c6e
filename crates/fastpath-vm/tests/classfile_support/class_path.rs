//! A [`ClassHierarchy`] over class files: the verifier's test stand-in for
//! the VM's linker. Classes come from a map of class files (the program's)
//! and from a JDK image (`java.base`); each is parsed once, on first use.
//! A class found nowhere is a `NoClassDefFoundError`, one that does not
//! parse is the parser's `ClassFormatError`, as the linker would throw.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use fastpath_vm::classfile::verify::{ClassHierarchy, LinkageError, Member};
use fastpath_vm::classfile::{access, ClassFile};

use super::jimage::Jimage;

/// What the hierarchy keeps of a class.
#[derive(Debug)]
pub struct Shape {
    pub super_class: Option<String>,
    pub interfaces: Vec<String>,
    pub is_interface: bool,
    /// (name, descriptor, access flags)
    pub fields: Vec<(String, String, u16)>,
    /// (name, descriptor, access flags)
    pub methods: Vec<(String, String, u16)>,
}

impl Shape {
    pub fn of(class: &ClassFile) -> Shape {
        Shape {
            super_class: class.super_class.clone(),
            interfaces: class.interfaces.clone(),
            is_interface: class.access_flags & access::INTERFACE != 0,
            fields: class
                .fields
                .iter()
                .map(|f| (f.name.clone(), f.descriptor.clone(), f.access_flags))
                .collect(),
            methods: class
                .methods
                .iter()
                .map(|m| (m.name.clone(), m.descriptor.clone(), m.access_flags))
                .collect(),
        }
    }
}

/// Classes by name: the program's, then the JDK's.
pub struct ClassPath {
    program: HashMap<String, Rc<[u8]>>,
    jdk: Option<Rc<Jimage>>,
    loaded: HashMap<String, Result<Rc<Shape>, LinkageError>>,
    overrides: HashMap<String, Rc<Shape>>,
    /// How many classes were parsed (loads, not lookups).
    pub parsed: usize,
}

impl ClassPath {
    pub fn new(program: HashMap<String, Rc<[u8]>>, jdk: Option<Rc<Jimage>>) -> ClassPath {
        ClassPath {
            program,
            jdk,
            loaded: HashMap::new(),
            overrides: HashMap::new(),
            parsed: 0,
        }
    }

    /// Answers for `class`'s name with `class` until [`Self::clear_override`]
    /// (the class under verification, when it differs from the one on the
    /// path: a mutated copy).
    pub fn set_override(&mut self, class: &ClassFile) {
        self.overrides
            .insert(class.this_class.clone(), Rc::new(Shape::of(class)));
    }

    pub fn clear_override(&mut self) {
        self.overrides.clear();
    }

    pub fn load(&mut self, name: &str) -> Result<Rc<Shape>, LinkageError> {
        if let Some(s) = self.overrides.get(name) {
            return Ok(s.clone());
        }
        if let Some(r) = self.loaded.get(name) {
            return r.clone();
        }
        let bytes: Option<&[u8]> = match self.program.get(name) {
            Some(b) => Some(b),
            None => self.jdk.as_ref().and_then(|j| j.class(name)),
        };
        let result = match bytes {
            None => Err(LinkageError::no_class_def_found(name)),
            Some(b) => {
                self.parsed += 1;
                match ClassFile::parse(b) {
                    Ok(c) if c.this_class == name => Ok(Rc::new(Shape::of(&c))),
                    Ok(c) => Err(LinkageError {
                        java_class: "java/lang/NoClassDefFoundError".into(),
                        message: format!("{name} (wrong name: {})", c.this_class),
                    }),
                    Err(e) => Err(LinkageError {
                        java_class: e.java_class().into(),
                        message: e.to_string(),
                    }),
                }
            }
        };
        self.loaded.insert(name.to_string(), result.clone());
        result
    }

    /// `class` and its superclasses, nearest first (a cycle ends the walk).
    fn chain(&mut self, class: &str) -> Result<Vec<(String, Rc<Shape>)>, LinkageError> {
        let mut out: Vec<(String, Rc<Shape>)> = Vec::new();
        let mut next = Some(class.to_string());
        while let Some(n) = next {
            if out.iter().any(|(m, _)| *m == n) {
                break;
            }
            let s = self.load(&n)?;
            next = s.super_class.clone();
            out.push((n, s));
        }
        Ok(out)
    }

    fn implements(
        &mut self,
        class: &str,
        interface: &str,
        seen: &mut HashSet<String>,
    ) -> Result<bool, LinkageError> {
        for (_, shape) in self.chain(class)? {
            for i in &shape.interfaces {
                if i == interface {
                    return Ok(true);
                }
                if seen.insert(i.clone()) && self.implements(i, interface, seen)? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    fn find_field_in(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
        seen: &mut HashSet<String>,
    ) -> Result<Option<Member>, LinkageError> {
        if !seen.insert(class.to_string()) {
            return Ok(None);
        }
        let shape = self.load(class)?;
        if let Some(&(_, _, flags)) = shape.fields.iter().find(|(n, d, _)| n == name && d == descriptor) {
            return Ok(Some(Member {
                declaring_class: class.to_string(),
                access_flags: flags,
            }));
        }
        for i in &shape.interfaces {
            if let Some(m) = self.find_field_in(i, name, descriptor, seen)? {
                return Ok(Some(m));
            }
        }
        match &shape.super_class {
            Some(s) => self.find_field_in(s, name, descriptor, seen),
            None => Ok(None),
        }
    }
}

impl ClassHierarchy for ClassPath {
    fn is_interface(&mut self, class: &str) -> Result<bool, LinkageError> {
        Ok(self.load(class)?.is_interface)
    }

    fn is_subclass_of(&mut self, class: &str, ancestor: &str) -> Result<bool, LinkageError> {
        if self.chain(class)?.iter().any(|(n, _)| n == ancestor) {
            return Ok(true);
        }
        if self.is_interface(ancestor)? {
            return self.implements(class, ancestor, &mut HashSet::new());
        }
        Ok(false)
    }

    fn superclass(&mut self, class: &str) -> Result<Option<String>, LinkageError> {
        Ok(self.load(class)?.super_class.clone())
    }

    fn find_field(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<Option<Member>, LinkageError> {
        self.find_field_in(class, name, descriptor, &mut HashSet::new())
    }

    fn find_method(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<Option<Member>, LinkageError> {
        for (n, shape) in self.chain(class)? {
            if let Some(&(_, _, flags)) = shape
                .methods
                .iter()
                .find(|(m, d, _)| m == name && d == descriptor)
            {
                return Ok(Some(Member {
                    declaring_class: n,
                    access_flags: flags,
                }));
            }
        }
        Ok(None)
    }
}

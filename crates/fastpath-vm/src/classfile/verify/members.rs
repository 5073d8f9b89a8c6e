//! Field and invoke instructions (HotSpot's `verify_field_instructions`,
//! `verify_invoke_instructions`), with the protected-access check of JVMS
//! 4.10.1.8.
//!
//! Where it sits: called by [`super::method`]'s instruction step for
//! `get`/`putstatic`, `get`/`putfield` and the five invokes; `<init>`
//! calls continue in [`super::constructor`].
//!
//! Protected access: a `getfield`, `putfield` or `invokevirtual` whose
//! reference names a superclass of the current class, resolving to a
//! protected member declared in another run-time package, must act on an
//! object of the current class (or a subclass of it). HotSpot asks only
//! when the object's type is not the current class and the referenced
//! class is among the current class's superclasses by name, so most
//! instructions never touch the hierarchy for it.

use super::error::VerifyError;
use super::frame::{Frame, Want};
use super::method::MethodChecker;
use super::types::{Type, OBJECT};
use crate::classfile::access;
use crate::classfile::bytecode::{op, Instruction, Operands};
use crate::classfile::constant_pool::{tag, Constant};

impl<'c> MethodChecker<'_, 'c, '_> {
    /// The class, name and descriptor of the member reference at `index`
    /// (its kind checked by the caller).
    fn member(&mut self, index: u16) -> Result<(Type, &'c str, &'c str), VerifyError> {
        let cp = &self.cx.class.constant_pool;
        let m = match cp.get(index) {
            Ok(Constant::FieldRef(m) | Constant::MethodRef(m) | Constant::InterfaceMethodRef(m)) => *m,
            _ => unreachable!("kind checked by cp_index"),
        };
        let (name, descriptor) = cp
            .name_and_type(m.name_and_type)
            .map_err(|e| VerifyError::format(e.to_string()))?;
        let class = self.cx.class_type(m.class).ok_or_else(|| {
            VerifyError::format(format!("Invalid class index {} in member reference", m.class))
        })?;
        Ok((class, name, descriptor))
    }

    /// Whether the member `name`:`descriptor` found from `class` (a
    /// superclass of the current class) is protected and declared in
    /// another run-time package (HotSpot's `is_protected_access`).
    fn is_protected_access(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
        is_method: bool,
    ) -> Result<bool, VerifyError> {
        let h = &mut *self.cx.assign.hierarchy;
        let member = if is_method {
            h.find_method(class, name, descriptor)?
        } else {
            h.find_field(class, name, descriptor)?
        };
        Ok(match member {
            Some(m) if m.access_flags & access::PROTECTED != 0 => {
                !h.same_runtime_package(&self.cx.class.this_class, &m.declaring_class)
            }
            _ => false,
        })
    }

    /// The protected-access check after `getfield`, `putfield` and
    /// `invokevirtual` popped `object`.
    fn check_protected(
        &mut self,
        object: &Type,
        class: &Type,
        name: &str,
        descriptor: &str,
        is_method: bool,
        instruction: &str,
    ) -> Result<(), VerifyError> {
        if *object == self.cx.this_type {
            return Ok(());
        }
        let class_name = class.name().unwrap_or_default();
        if !self.cx.is_superclass_name(class_name)? {
            // Then the referenced class is the current class or a
            // subclass, and so is the object.
            return Ok(());
        }
        if !self.is_protected_access(class_name, name, descriptor, is_method)? {
            return Ok(());
        }
        if is_method && class_name == OBJECT && object.is_array() && name == "clone" {
            // Arrays implement a public clone().
            return Ok(());
        }
        let this_type = self.cx.this_type.clone();
        if !self.cx.assign.is_assignable_protected(&this_type, object)? {
            let found = format!("{object}");
            return Err(
                VerifyError::verify(format!("Bad access to protected data in {instruction}")).with_reason(
                    || {
                        format!(
                            "Type {found} (current frame, stack top) is not assignable to the current class"
                        )
                    },
                ),
            );
        }
        Ok(())
    }

    /// `getstatic`, `putstatic`, `getfield`, `putfield`.
    pub(super) fn field_instruction(
        &mut self,
        frame: &mut Frame,
        opcode: u8,
        index: u16,
    ) -> Result<(), VerifyError> {
        let ms = self.max_stack;
        self.cp_index(index, &[tag::FIELDREF])?;
        let (class, name, descriptor) = self.member(index)?;
        let statics = matches!(opcode, op::GETSTATIC | op::PUTSTATIC);
        if !(class.is_object() || statics && class.is_array()) {
            return Err(VerifyError::verify(format!(
                "Expecting reference to class in class {} at constant pool index {index}",
                self.cx.class.this_class
            )));
        }
        let slots = self.cx.field_slots(descriptor)?;
        match opcode {
            op::GETSTATIC => frame.push_slots(&slots, ms)?,
            op::PUTSTATIC => frame.pop_slots(&slots, &mut self.cx.assign)?,
            op::GETFIELD => {
                let object = frame.pop(Want::Type(&class), &mut self.cx.assign)?;
                self.check_protected(&object, &class, name, descriptor, false, "getfield")?;
                frame.push_slots(&slots, ms)?;
            }
            _ => {
                frame.pop_slots(&slots, &mut self.cx.assign)?;
                let mut object = frame.pop_any()?;
                // A constructor may set its own class's fields before
                // calling super() (JVMS 4.10.1.9 putfield).
                if object == Type::UninitializedThis
                    && class == self.cx.this_type
                    && self
                        .cx
                        .class
                        .fields
                        .iter()
                        .any(|f| f.name == name && f.descriptor == descriptor)
                {
                    object = self.cx.this_type.clone();
                }
                if !self.cx.assign.is_assignable(&class, &object)? {
                    let found = format!("{object}");
                    let wanted = format!("{class}");
                    return Err(
                        VerifyError::verify("Bad type on operand stack in putfield").with_reason(|| {
                            format!("Type {found} (current frame, stack top) is not assignable to {wanted}")
                        }),
                    );
                }
                self.check_protected(&object, &class, name, descriptor, false, "putfield")?;
            }
        }
        Ok(())
    }

    /// The five invokes. `this_uninit` is set when an `<init>` call
    /// initialized `this` (the handlers of its `try` range see the flag).
    pub(super) fn invoke_instruction(
        &mut self,
        frame: &mut Frame,
        insn: &Instruction,
        insns: &[Instruction],
        this_uninit: &mut bool,
    ) -> Result<(), VerifyError> {
        let ms = self.max_stack;
        let opcode = insn.opcode;
        let (index, count) = match insn.operands {
            Operands::Cp(i) => (i, None),
            Operands::Interface(i, c) => (i, Some(c)),
            _ => unreachable!("an invoke's operands"),
        };
        let major = self.cx.class.major_version;
        let tags: &[u8] = match opcode {
            op::INVOKEINTERFACE => &[tag::INTERFACE_METHODREF],
            op::INVOKEDYNAMIC => &[tag::INVOKE_DYNAMIC],
            op::INVOKESPECIAL | op::INVOKESTATIC if major >= 52 => {
                &[tag::METHODREF, tag::INTERFACE_METHODREF]
            }
            _ => &[tag::METHODREF],
        };
        let kind = self.cp_index(index, tags)?;
        let (class, name, descriptor) = if opcode == op::INVOKEDYNAMIC {
            if major < 51 {
                return Err(VerifyError::format(format!(
                    "invokedynamic instructions not supported by this class file version ({major}), class {}",
                    self.cx.class.this_class
                )));
            }
            let cp = &self.cx.class.constant_pool;
            let Ok(Constant::InvokeDynamic(d)) = cp.get(index) else {
                unreachable!("tag checked")
            };
            let (name, descriptor) = cp
                .name_and_type(d.name_and_type)
                .map_err(|e| VerifyError::format(e.to_string()))?;
            (None, name, descriptor)
        } else {
            let (class, name, descriptor) = self.member(index)?;
            (Some(class), name, descriptor)
        };
        let sig = self.cx.signature(descriptor)?;
        if let Some(count) = count {
            if count as usize != sig.args.len() + 1 {
                return Err(VerifyError::verify(
                    "Inconsistent args count operand in invokeinterface",
                ));
            }
        }
        let is_init = name == "<init>";
        if name.starts_with('<') {
            if opcode != op::INVOKESPECIAL || !is_init {
                return Err(VerifyError::verify("Illegal call to internal method"));
            }
        } else if opcode == op::INVOKESPECIAL {
            let class = class.as_ref().expect("not invokedynamic");
            let class_name = class.name().unwrap_or_default();
            let this = &self.cx.class;
            let same_or_direct =
                class_name == this.this_class || this.interfaces.iter().any(|i| i == class_name);
            if !same_or_direct && this.super_class.as_deref() != Some(class_name) {
                let this_type = self.cx.this_type.clone();
                if !self.cx.assign.is_assignable(class, &this_type)? {
                    return Err(VerifyError::verify(
                        "Bad invokespecial instruction: current class isn't assignable to reference class.",
                    ));
                }
                if kind == tag::INTERFACE_METHODREF {
                    return Err(VerifyError::verify(
                        "Bad invokespecial instruction: interface method reference is in an indirect superinterface.",
                    ));
                }
            }
        }
        frame.pop_slots(&sig.args, &mut self.cx.assign)?;
        if let (Some(class), true) = (&class, opcode != op::INVOKESTATIC) {
            if is_init {
                self.invoke_init(frame, insn, insns, class, this_uninit)?;
            } else if opcode == op::INVOKESPECIAL {
                let this_type = self.cx.this_type.clone();
                frame.pop(Want::Type(&this_type), &mut self.cx.assign)?;
            } else if opcode == op::INVOKEVIRTUAL {
                let object = frame.pop(Want::Type(class), &mut self.cx.assign)?;
                self.check_protected(&object, class, name, descriptor, true, "invokevirtual")?;
            } else {
                frame.pop(Want::Type(class), &mut self.cx.assign)?;
            }
        }
        if !sig.ret.is_empty() && is_init {
            return Err(VerifyError::verify("Return type must be void in <init> method"));
        }
        frame.push_slots(&sig.ret, ms)
    }
}

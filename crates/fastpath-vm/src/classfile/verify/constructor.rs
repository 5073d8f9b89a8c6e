//! `invokespecial <init>`: the instruction that turns an uninitialized
//! object into an initialized one (JVMS 4.10.1.9 invokespecial, HotSpot's
//! `verify_invoke_init` and `ends_in_athrow`).
//!
//! Where it sits: [`super::members`] hands over an `<init>` call after
//! popping its arguments. Rules:
//! - on `uninitializedThis` (a constructor calling `super(...)` or
//!   `this(...)`): the method is the current class's or its direct
//!   superclass's; if the call is inside a `try` range, every path from
//!   each covering handler ends in `athrow` (a handler that returned
//!   normally would hand out a half-built object), and the handlers'
//!   frames must accept the locals with `flagThisUninit`;
//! - on `uninitialized(Offset)`: the method is the `<init>` of the class
//!   the `new` at Offset names; if that class is a superclass of the
//!   current one and the constructor protected in another run-time
//!   package, the object must be of the current class;
//! - then every copy of the uninitialized type in the frame becomes the
//!   initialized class type.

use std::collections::HashSet;

use super::error::VerifyError;
use super::frame::{Frame, Want};
use super::method::{branch_target, MethodChecker};
use super::stackmaps::NEW_INSTRUCTION;
use super::types::Type;
use crate::classfile::access;
use crate::classfile::bytecode::{decode_at, op, Instruction, Operands};

impl MethodChecker<'_, '_, '_> {
    /// Pops the object of an `<init>` call to `class` and initializes it.
    pub(super) fn invoke_init(
        &mut self,
        frame: &mut Frame,
        insn: &Instruction,
        insns: &[Instruction],
        class: &Type,
        this_uninit: &mut bool,
    ) -> Result<(), VerifyError> {
        let bci = insn.pc;
        let in_try_block = bci >= self.try_range.0 && bci < self.try_range.1;
        let object = frame.pop(Want::Reference, &mut self.cx.assign)?;
        match object {
            Type::UninitializedThis => {
                let class_name = class.name().unwrap_or_default();
                let this = &self.cx.class;
                if class_name != this.this_class && this.super_class.as_deref() != Some(class_name) {
                    return Err(VerifyError::verify("Bad <init> method call"));
                }
                if in_try_block {
                    let covering: Vec<u32> = self
                        .handlers
                        .iter()
                        .filter(|(start, end, _, _)| bci >= *start && bci < *end)
                        .map(|&(_, _, handler, _)| handler)
                        .collect();
                    for handler in covering {
                        if !self.ends_in_athrow(handler, insns) {
                            return Err(VerifyError::verify(
                                "Bad <init> method call from after the start of a try block",
                            ));
                        }
                    }
                    // The handlers see the locals as they were before the
                    // call, with this still uninitialized.
                    self.check_handlers(bci, frame, true)?;
                }
                let this_type = self.cx.this_type.clone();
                frame.initialize_object(&Type::UninitializedThis, &this_type);
                *this_uninit = true;
            }
            Type::Uninitialized(new_offset) => {
                if self.starts.get(new_offset as usize) != Some(&NEW_INSTRUCTION) {
                    return Err(
                        VerifyError::verify("Expecting new instruction").at_bci(u32::from(new_offset))
                    );
                }
                // Decoded here rather than looked up: a stack map frame may
                // name a `new` past an instruction whose operands are bad,
                // which the pass has not decoded.
                let new_class_index = match decode_at(&self.code.code, new_offset as usize) {
                    Ok(Instruction {
                        operands: Operands::Cp(index),
                        ..
                    }) => index,
                    _ => {
                        return Err(
                            VerifyError::verify("Expecting new instruction").at_bci(u32::from(new_offset))
                        )
                    }
                };
                let new_class = self.cp_class(new_class_index)?;
                if new_class != *class {
                    return Err(VerifyError::verify("Call to wrong <init> method"));
                }
                let class_name = class.name().unwrap_or_default();
                if self.cx.is_superclass_name(class_name)? {
                    let Operands::Cp(index) = insn.operands else {
                        unreachable!("invokespecial's operand")
                    };
                    let descriptor = self
                        .cx
                        .class
                        .constant_pool
                        .member_ref(index)
                        .map_err(|e| VerifyError::format(e.to_string()))?
                        .1
                        .descriptor;
                    let h = &mut *self.cx.assign.hierarchy;
                    // Not found: resolution reports it.
                    if let Some(m) = h.find_method(class_name, "<init>", descriptor)? {
                        if m.access_flags & access::PROTECTED != 0
                            && !h.same_runtime_package(&m.declaring_class, &self.cx.class.this_class)
                        {
                            let this_type = self.cx.this_type.clone();
                            if !self.cx.assign.is_assignable_protected(&this_type, &new_class)? {
                                return Err(VerifyError::verify("Bad access to protected <init> method"));
                            }
                        }
                    }
                }
                if in_try_block {
                    self.check_handlers(bci, frame, *this_uninit)?;
                }
                frame.initialize_object(&object, &new_class);
            }
            other => {
                let found = format!("{other}");
                return Err(VerifyError::verify("Bad operand type when invoking <init>")
                    .with_reason(|| format!("Invalid type: {found} (current frame, stack top)")));
            }
        }
        Ok(())
    }

    /// Whether every path from `start` ends in `athrow` or loops, never in
    /// `return` or off the end of the code (HotSpot's `ends_in_athrow`):
    /// conditional branches are followed both ways, each once; handlers
    /// of `try` ranges the walk enters are walked too. Unlike HotSpot's,
    /// each switch is followed once too, so a switch that jumps to itself
    /// cannot loop forever.
    fn ends_in_athrow(&self, start: u32, insns: &[Instruction]) -> bool {
        let len = self.code.code.len() as u32;
        let mut pending: Vec<u32> = Vec::new();
        let mut handlers_pending: Vec<u32> = Vec::new();
        let mut handlers_seen: HashSet<u32> = HashSet::new();
        let mut visited: HashSet<u32> = HashSet::new();
        let mut pc = start;
        // Where the walk goes after a path ended in athrow or a loop;
        // `None`: every path did.
        let resume = |pending: &mut Vec<u32>, handlers_pending: &mut Vec<u32>| {
            pending.pop().or_else(|| handlers_pending.pop())
        };
        loop {
            if pc >= len {
                return false;
            }
            let Ok(i) = insns.binary_search_by_key(&pc, |i| i.pc) else {
                // A branch into the middle of an instruction: the main pass
                // rejects it; this path does not end in athrow.
                return false;
            };
            let insn = &insns[i];
            for &(s, e, handler, _) in &self.handlers {
                if pc >= s && pc < e && handlers_seen.insert(handler) {
                    handlers_pending.push(handler);
                }
            }
            let next = pc + insn.len;
            match insn.opcode {
                op::IFEQ..=op::IF_ACMPNE | op::IFNULL | op::IFNONNULL => {
                    if !visited.insert(pc) {
                        match resume(&mut pending, &mut handlers_pending) {
                            Some(p) => pc = p,
                            None => return true,
                        }
                        continue;
                    }
                    let target = branch_target(insn);
                    if target > pc {
                        pending.push(target);
                        pc = next;
                    } else {
                        pending.push(next);
                        pc = target;
                    }
                }
                op::GOTO | op::GOTO_W => {
                    if !visited.insert(pc) {
                        match resume(&mut pending, &mut handlers_pending) {
                            Some(p) => pc = p,
                            None => return true,
                        }
                        continue;
                    }
                    pc = branch_target(insn);
                }
                op::TABLESWITCH | op::LOOKUPSWITCH => {
                    if !visited.insert(pc) {
                        match resume(&mut pending, &mut handlers_pending) {
                            Some(p) => pc = p,
                            None => return true,
                        }
                        continue;
                    }
                    pending.push(next);
                    let default = match &insn.operands {
                        Operands::Table { default, targets, .. } => {
                            pending.extend(targets);
                            *default
                        }
                        Operands::Lookup { default, pairs } => {
                            pending.extend(pairs.iter().map(|&(_, t)| t));
                            *default
                        }
                        _ => unreachable!("a switch's operands"),
                    };
                    pc = default;
                }
                op::RETURN => return false,
                op::ATHROW => match resume(&mut pending, &mut handlers_pending) {
                    Some(p) => pc = p,
                    None => return true,
                },
                _ => pc = next,
            }
        }
    }
}

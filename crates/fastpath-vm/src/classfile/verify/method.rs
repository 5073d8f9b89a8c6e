//! Type checking one method's code (HotSpot's `ClassVerifier::verify_method`).
//!
//! Where it sits: [`super::verify_class`] calls [`verify_method`] for each
//! method with a `Code` attribute. The pass is linear over the decoded
//! instructions with one current [`Frame`]; the [`StackMap`] supplies the
//! frame at every offset control can reach other than by falling through.
//! Field and invoke instructions are in [`super::members`], `<init>` calls
//! in [`super::constructor`].

use super::error::VerifyError;
use super::frame::{check_assignable, Frame, Want};
use super::stackmaps::{CodeShape, StackMap, INSTRUCTION, NEW_INSTRUCTION};
use super::types::{Type, OBJECT};
use super::ClassContext;
use crate::classfile::bytecode::{decode_all, decode_at, op, Instruction, Operands};
use crate::classfile::constant_pool::{tag, Constant};
use crate::classfile::reader::Reader;
use crate::classfile::{Code, MethodInfo};

/// `java/lang/Throwable`.
pub(super) const THROWABLE: &str = "java/lang/Throwable";

/// The state of checking one method.
pub(super) struct MethodChecker<'m, 'c, 'h> {
    pub cx: &'m mut ClassContext<'c, 'h>,
    pub method: &'c MethodInfo,
    pub code: &'c Code,
    pub insns: Vec<Instruction>,
    /// Per byte of code: [`INSTRUCTION`], [`NEW_INSTRUCTION`] or 0.
    pub starts: Vec<u8>,
    pub max_stack: usize,
    pub map: StackMap,
    /// The descriptor's return type (`None`: void).
    pub return_type: Option<Type>,
    /// Each handler with the type its frame's stack holds.
    pub handlers: Vec<(u32, u32, u32, Type)>,
    /// The smallest `start_pc` and largest `end_pc` of the handlers.
    pub try_range: (u32, u32),
    /// An instruction whose operands the decoder refused: its offset and
    /// the error, reported when the pass reaches it.
    pub pending: Option<(u32, VerifyError)>,
}

/// Decodes `code` (HotSpot's `generate_code_data` and the operand checks
/// of its linear pass). An unknown opcode, a bad `wide` or an instruction
/// running past the end stops here ("Bad instruction"), before anything
/// else is checked; an instruction whose length is known but whose
/// operands are bad (a branch outside the code, a switch's keys, a
/// `newarray` type, `invokeinterface` bytes) is reported when the linear
/// pass reaches it, as HotSpot does: the instructions before it are
/// returned with it. Also returns the instruction starts.
#[allow(clippy::type_complexity)]
fn decode(code: &[u8]) -> Result<(Vec<Instruction>, Vec<u8>, Option<(u32, VerifyError)>), VerifyError> {
    let mark = |starts: &mut Vec<u8>, pc: usize| {
        starts[pc] = if code[pc] == op::NEW {
            NEW_INSTRUCTION
        } else {
            INSTRUCTION
        };
    };
    let mut starts = vec![0u8; code.len()];
    if let Ok(insns) = decode_all(code) {
        for i in &insns {
            mark(&mut starts, i.pc as usize);
        }
        return Ok((insns, starts, None));
    }
    let mut insns = Vec::new();
    let mut pending = None;
    let mut pc = 0;
    while pc < code.len() {
        let Some(len) = raw_length(code, pc) else {
            return Err(VerifyError::verify("Bad instruction").at_bci(pc as u32));
        };
        mark(&mut starts, pc);
        if pending.is_none() {
            match decode_at(code, pc) {
                Ok(i) => insns.push(i),
                Err(e) => pending = Some((pc as u32, VerifyError::verify(e.to_string()))),
            }
        }
        pc += len;
    }
    Ok((insns, starts, pending))
}

/// An instruction's length as HotSpot's `RawBytecodeStream` computes it,
/// operands unchecked; `None` for an unknown opcode, a bad `wide`, or an
/// instruction that does not fit in the code.
fn raw_length(code: &[u8], pc: usize) -> Option<usize> {
    let i32_at = |i: usize| Some(i32::from_be_bytes(code.get(i..i + 4)?.try_into().ok()?) as i64);
    let len = match code[pc] {
        0x00..=0x0f | 0x1a..=0x35 | 0x3b..=0x83 | 0x85..=0x98 | 0xac..=0xb1 | 0xbe | 0xbf | 0xc2 | 0xc3 => 1,
        0x10 | 0x12 | 0x15..=0x19 | 0x36..=0x3a | 0xa9 | 0xbc => 2,
        0x11 | 0x13 | 0x14 | 0x84 | 0x99..=0xa8 | 0xb2..=0xb8 | 0xbb | 0xbd | 0xc0 | 0xc1 | 0xc6 | 0xc7 => 3,
        0xc5 => 4,
        0xb9 | 0xba | 0xc8 | 0xc9 => 5,
        op::WIDE => match *code.get(pc + 1)? {
            0x15..=0x19 | 0x36..=0x3a | 0xa9 => 4,
            op::IINC => 6,
            _ => return None,
        },
        op::TABLESWITCH | op::LOOKUPSWITCH => {
            let aligned = (pc + 4) & !3;
            let table = code[pc] == op::TABLESWITCH;
            if aligned + if table { 12 } else { 8 } >= code.len() {
                return None;
            }
            let words = if table {
                3 + i32_at(aligned + 8)? - i32_at(aligned + 4)? + 1
            } else {
                2 + 2 * i32_at(aligned + 4)?
            };
            let len = (aligned - pc) as i64 + 4 * words;
            if len <= 0 || len > i32::MAX as i64 {
                return None;
            }
            len as usize
        }
        _ => return None,
    };
    (pc + len <= code.len()).then_some(len)
}

/// Checks `method`'s `code` (see the module documentation of
/// [`super`]); errors carry the offset at fault.
pub(super) fn verify_method<'c>(
    cx: &mut ClassContext<'c, '_>,
    method: &'c MethodInfo,
    code: &'c Code,
) -> Result<(), VerifyError> {
    let (insns, starts, pending) = decode(&code.code)?;
    let mut checker = MethodChecker {
        cx,
        method,
        code,
        insns,
        starts,
        max_stack: code.max_stack as usize,
        map: StackMap::default(),
        return_type: super::types::return_type(method.method_descriptor.ret.as_ref()),
        handlers: Vec::new(),
        try_range: (u32::MAX, 0),
        pending,
    };
    checker.check_exception_table()?;
    checker.check_local_variable_tables()?;
    let (initial, initial_slots) = checker.initial_frame();
    let shape = CodeShape {
        starts: &checker.starts,
        max_locals: code.max_locals as usize,
        max_stack: checker.max_stack,
    };
    let cx = &mut *checker.cx;
    checker.map = StackMap::read(
        code.stack_map.as_deref(),
        &initial,
        initial_slots,
        &shape,
        &mut |i| cx.class_type(i),
    )?;
    checker.run(initial)
}

impl<'c> MethodChecker<'_, 'c, '_> {
    /// The frame at offset 0 (HotSpot's `set_locals_from_arg`): `this`
    /// (`uninitializedThis` in a constructor other than `Object`'s) and the
    /// parameters; and how many slots they fill.
    fn initial_frame(&self) -> (Frame, usize) {
        let mut frame = Frame::new(self.code.max_locals as usize);
        let mut slots = Vec::new();
        if !self.method.is_static() {
            if self.method.name == "<init>" && self.cx.class.this_class != OBJECT {
                slots.push(Type::UninitializedThis);
                frame.this_uninit = true;
            } else {
                slots.push(self.cx.this_type.clone());
            }
        }
        for p in &self.method.method_descriptor.params {
            super::types::push_field_type(p, &mut slots);
        }
        // The parser checked that the parameters fit in max_locals.
        let n = slots.len().min(frame.locals.len());
        frame.locals[..n].clone_from_slice(&slots[..n]);
        (frame, n)
    }

    fn is_start(&self, pc: u32) -> bool {
        self.starts.get(pc as usize).is_some_and(|&s| s != 0)
    }

    /// Exception table entries at instruction starts (ClassFormatError, as
    /// HotSpot's `verify_exception_handler_table`) and catch types that are
    /// `Throwable`s (VerifyError).
    fn check_exception_table(&mut self) -> Result<(), VerifyError> {
        let len = self.code.code.len() as u32;
        for h in &self.code.exception_table {
            let (start, end, handler) = (
                u32::from(h.start_pc),
                u32::from(h.end_pc),
                u32::from(h.handler_pc),
            );
            if !self.is_start(start) {
                return Err(VerifyError::format(format!(
                    "Illegal exception table start_pc {start}"
                )));
            }
            if end != len && !self.is_start(end) {
                return Err(VerifyError::format(format!(
                    "Illegal exception table end_pc {end}"
                )));
            }
            if !self.is_start(handler) {
                return Err(VerifyError::format(format!(
                    "Illegal exception table handler_pc {handler}"
                )));
            }
            let throwable = Type::reference(THROWABLE);
            let catch = if h.catch_type == 0 {
                throwable
            } else {
                let Some(t) = self.cx.class_type(h.catch_type) else {
                    return Err(VerifyError::format(format!(
                        "Catch type in exception table has bad constant type {}",
                        h.catch_type
                    )));
                };
                if !self.cx.assign.is_assignable(&throwable, &t)? {
                    return Err(VerifyError::verify(format!(
                        "Catch type is not a subclass of Throwable in exception handler {handler}"
                    ))
                    .at_bci(handler));
                }
                t
            };
            self.try_range = (self.try_range.0.min(start), self.try_range.1.max(end));
            self.handlers.push((start, end, handler, catch));
        }
        Ok(())
    }

    /// `LocalVariableTable` ranges start at instructions and end at one or
    /// at the end of the code (HotSpot's `verify_local_variable_table`,
    /// ClassFormatError).
    fn check_local_variable_tables(&self) -> Result<(), VerifyError> {
        let len = self.code.code.len() as u32;
        for a in self
            .code
            .attributes
            .iter()
            .filter(|a| a.name == "LocalVariableTable")
        {
            let mut r = Reader::new(&a.data);
            let bad_length = || VerifyError::format("Invalid LocalVariableTable attribute length");
            let n = r.u2().map_err(|_| bad_length())?;
            if r.remaining() != n as usize * 10 {
                return Err(bad_length());
            }
            for _ in 0..n {
                let start = u32::from(r.u2().map_err(|_| bad_length())?);
                let length = u32::from(r.u2().map_err(|_| bad_length())?);
                r.bytes(6).map_err(|_| bad_length())?;
                if !self.is_start(start) {
                    return Err(VerifyError::format(format!(
                        "Illegal local variable table start_pc {start}"
                    )));
                }
                let end = start + length;
                if end != len && !self.is_start(end) {
                    return Err(VerifyError::format(format!(
                        "Illegal local variable table length {length}"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The linear pass.
    fn run(&mut self, mut frame: Frame) -> Result<(), VerifyError> {
        let mut next_map_index = 0;
        // Whether the previous instruction does not fall through.
        let mut no_control_flow = false;
        let insns = std::mem::take(&mut self.insns);
        for insn in &insns {
            let bci = insn.pc;
            self.match_stack_map(&mut frame, bci, &mut next_map_index, no_control_flow)
                .map_err(|e| e.at_bci(bci))?;
            no_control_flow = self.step(&mut frame, insn, &insns).map_err(|e| e.at_bci(bci))?;
            #[cfg(debug_assertions)]
            frame.verify(self.max_stack);
        }
        self.insns = insns;
        if let Some((pc, e)) = self.pending.take() {
            self.match_stack_map(&mut frame, pc, &mut next_map_index, no_control_flow)
                .map_err(|e| e.at_bci(pc))?;
            return Err(e.at_bci(pc));
        }
        if !no_control_flow {
            return Err(VerifyError::verify("Control flow falls through code end")
                .at_bci(self.code.code.len() as u32));
        }
        Ok(())
    }

    /// At an instruction start: where the table has a frame, the current
    /// frame must be assignable to it (if control falls in) and becomes
    /// it; where control cannot fall in, there must be one (HotSpot's
    /// `verify_stackmap_table`).
    fn match_stack_map(
        &mut self,
        frame: &mut Frame,
        bci: u32,
        next: &mut usize,
        no_control_flow: bool,
    ) -> Result<(), VerifyError> {
        match self.map.get(*next) {
            Some((offset, target)) => {
                if no_control_flow && offset > bci {
                    return Err(VerifyError::verify("Expecting a stack map frame"));
                }
                if offset == bci {
                    if !no_control_flow {
                        if let Some(reason) = frame.check_assignable_to(target, &mut self.cx.assign)? {
                            return Err(VerifyError::verify("Instruction type does not match stack map")
                                .with_reason(|| reason));
                        }
                    }
                    frame.clone_from(target);
                    *next += 1;
                } else if offset < bci {
                    return Err(VerifyError::format(format!("Bad stack map offset {offset}")));
                }
            }
            None if no_control_flow => return Err(VerifyError::verify("Expecting a stack map frame")),
            None => {}
        }
        Ok(())
    }

    /// A branch to `target`: a frame there that the current frame is
    /// assignable to (HotSpot's `StackMapTable::check_jump_target`).
    pub(super) fn check_jump_target(&mut self, frame: &Frame, target: u32) -> Result<(), VerifyError> {
        let Some(target_frame) = self.map.at(target) else {
            return Err(VerifyError::verify(format!(
                "Expecting a stackmap frame at branch target {target}"
            )));
        };
        if let Some(reason) = frame.check_assignable_to(target_frame, &mut self.cx.assign)? {
            return Err(VerifyError::verify(format!(
                "Inconsistent stackmap frames at branch target {target}"
            ))
            .with_reason(|| reason));
        }
        Ok(())
    }

    /// Inside a `try` range: each handler covering `bci` must have a frame
    /// that the current locals, with the caught exception alone on the
    /// stack, are assignable to (HotSpot's `verify_exception_handler_targets`).
    /// `this_uninit` adds `flagThisUninit` (an `<init>` call that
    /// initialized `this` may have thrown before doing so).
    pub(super) fn check_handlers(
        &mut self,
        bci: u32,
        frame: &Frame,
        this_uninit: bool,
    ) -> Result<(), VerifyError> {
        if bci < self.try_range.0 || bci >= self.try_range.1 {
            return Ok(());
        }
        for (start, end, handler, catch) in &self.handlers {
            if bci < *start || bci >= *end {
                continue;
            }
            let Some(target) = self.map.at(*handler) else {
                return Err(VerifyError::verify(format!(
                    "Expecting a stackmap frame at branch target {handler}"
                )));
            };
            let stack = std::slice::from_ref(catch);
            let flags = frame.this_uninit || this_uninit;
            if let Some(reason) = check_assignable(&frame.locals, stack, flags, target, &mut self.cx.assign)?
            {
                return Err(VerifyError::verify(format!(
                    "Stack map does not match the one at exception handler {handler}"
                ))
                .with_reason(|| reason));
            }
        }
        Ok(())
    }

    /// A constant-pool operand's index in range (HotSpot's
    /// `verify_cp_index`) and of a kind in `tags` (`verify_cp_type`).
    pub(super) fn cp_index(&self, index: u16, tags: &[u8]) -> Result<u8, VerifyError> {
        let cp = &self.cx.class.constant_pool;
        if index == 0 || index as usize >= cp.len() {
            return Err(VerifyError::verify(format!(
                "Illegal constant pool index {index} in class {}",
                self.cx.class.this_class
            )));
        }
        let t = cp.tag(index);
        if !tags.contains(&t) {
            return Err(VerifyError::verify(format!(
                "Illegal type at constant pool entry {index} in class {}",
                self.cx.class.this_class
            )));
        }
        Ok(t)
    }

    /// A `CONSTANT_Class` operand's type.
    pub(super) fn cp_class(&mut self, index: u16) -> Result<Type, VerifyError> {
        self.cp_index(index, &[tag::CLASS])?;
        Ok(self.cx.class_type(index).expect("checked to be a class"))
    }

    /// One instruction's effect on `frame`; whether control does not fall
    /// through to the next instruction.
    fn step(
        &mut self,
        frame: &mut Frame,
        insn: &Instruction,
        insns: &[Instruction],
    ) -> Result<bool, VerifyError> {
        use op::*;
        let bci = insn.pc;
        let ms = self.max_stack;
        let opcode = insn.opcode;
        let local = match insn.operands {
            Operands::Local(i) | Operands::Iinc(i, _) => i as usize,
            _ => 0,
        };
        // Stores check the handlers with the locals before the store
        // (JVMS: the incoming type state); other instructions after, where
        // `<init>` calls may have set `this_uninit`.
        let is_store = matches!(opcode, ISTORE..=ASTORE | ISTORE_0..=0x4e);
        if is_store {
            self.check_handlers(bci, frame, false)?;
        }
        let mut this_uninit = false;
        let mut no_control_flow = false;
        match opcode {
            NOP => {}
            ACONST_NULL => frame.push(Type::Null, ms)?,
            ICONST_M1..=ICONST_5 | BIPUSH | SIPUSH => frame.push(Type::Integer, ms)?,
            LCONST_0 | LCONST_1 => frame.push2(Type::Long, ms)?,
            FCONST_0..=FCONST_2 => frame.push(Type::Float, ms)?,
            DCONST_0 | DCONST_1 => frame.push2(Type::Double, ms)?,
            LDC | LDC_W | LDC2_W => {
                let Operands::Cp(index) = insn.operands else {
                    unreachable!()
                };
                self.ldc(frame, opcode, index)?;
            }
            ILOAD | 0x1a..=0x1d => {
                let i = if opcode == ILOAD {
                    local
                } else {
                    (opcode - 0x1a) as usize
                };
                frame.get_local(i, Want::Type(&Type::Integer), &mut self.cx.assign)?;
                frame.push(Type::Integer, ms)?;
            }
            FLOAD | 0x22..=0x25 => {
                let i = if opcode == FLOAD {
                    local
                } else {
                    (opcode - 0x22) as usize
                };
                frame.get_local(i, Want::Type(&Type::Float), &mut self.cx.assign)?;
                frame.push(Type::Float, ms)?;
            }
            LLOAD | 0x1e..=0x21 => {
                let i = if opcode == LLOAD {
                    local
                } else {
                    (opcode - 0x1e) as usize
                };
                frame.get_local2(i, Type::Long)?;
                frame.push2(Type::Long, ms)?;
            }
            DLOAD | 0x26..=0x29 => {
                let i = if opcode == DLOAD {
                    local
                } else {
                    (opcode - 0x26) as usize
                };
                frame.get_local2(i, Type::Double)?;
                frame.push2(Type::Double, ms)?;
            }
            ALOAD | 0x2a..=0x2d => {
                let i = if opcode == ALOAD {
                    local
                } else {
                    (opcode - 0x2a) as usize
                };
                let t = frame.get_local(i, Want::Reference, &mut self.cx.assign)?;
                frame.push(t, ms)?;
            }
            IALOAD | BALOAD | CALOAD | SALOAD | FALOAD | LALOAD | DALOAD | AALOAD => {
                frame.pop_primitive(Type::Integer)?;
                let array = frame.pop(Want::Reference, &mut self.cx.assign)?;
                let (ok, name) = match opcode {
                    IALOAD => (array.is_array_of(b'I'), "iaload"),
                    BALOAD => (array.is_array_of(b'B') || array.is_array_of(b'Z'), "baload"),
                    CALOAD => (array.is_array_of(b'C'), "caload"),
                    SALOAD => (array.is_array_of(b'S'), "saload"),
                    FALOAD => (array.is_array_of(b'F'), "faload"),
                    LALOAD => (array.is_array_of(b'J'), "laload"),
                    DALOAD => (array.is_array_of(b'D'), "daload"),
                    _ => (array.is_reference_array(), "aaload"),
                };
                if !ok {
                    return Err(bad_operand(name, &array));
                }
                match opcode {
                    LALOAD => frame.push2(Type::Long, ms)?,
                    DALOAD => frame.push2(Type::Double, ms)?,
                    FALOAD => frame.push(Type::Float, ms)?,
                    AALOAD if array == Type::Null => frame.push(Type::Null, ms)?,
                    AALOAD => match array.component() {
                        Some(component) => frame.push(component, ms)?,
                        None => return Err(bad_operand("aaload", &array)),
                    },
                    _ => frame.push(Type::Integer, ms)?,
                }
            }
            ISTORE | 0x3b..=0x3e => {
                let i = if opcode == ISTORE {
                    local
                } else {
                    (opcode - 0x3b) as usize
                };
                frame.pop_primitive(Type::Integer)?;
                frame.set_local(i, Type::Integer)?;
            }
            FSTORE | 0x43..=0x46 => {
                let i = if opcode == FSTORE {
                    local
                } else {
                    (opcode - 0x43) as usize
                };
                frame.pop_primitive(Type::Float)?;
                frame.set_local(i, Type::Float)?;
            }
            LSTORE | 0x3f..=0x42 => {
                let i = if opcode == LSTORE {
                    local
                } else {
                    (opcode - 0x3f) as usize
                };
                frame.pop2(Type::Long)?;
                frame.set_local2(i, Type::Long)?;
            }
            DSTORE | 0x47..=0x4a => {
                let i = if opcode == DSTORE {
                    local
                } else {
                    (opcode - 0x47) as usize
                };
                frame.pop2(Type::Double)?;
                frame.set_local2(i, Type::Double)?;
            }
            ASTORE | 0x4b..=0x4e => {
                let i = if opcode == ASTORE {
                    local
                } else {
                    (opcode - 0x4b) as usize
                };
                let t = frame.pop(Want::Reference, &mut self.cx.assign)?;
                frame.set_local(i, t)?;
            }
            IASTORE | BASTORE | CASTORE | SASTORE | FASTORE | LASTORE | DASTORE | AASTORE => {
                match opcode {
                    LASTORE => frame.pop2(Type::Long)?,
                    DASTORE => frame.pop2(Type::Double)?,
                    FASTORE => frame.pop_primitive(Type::Float)?,
                    AASTORE => {
                        frame.pop(Want::Type(&Type::reference(OBJECT)), &mut self.cx.assign)?;
                    }
                    _ => frame.pop_primitive(Type::Integer)?,
                }
                frame.pop_primitive(Type::Integer)?;
                let array = frame.pop(Want::Reference, &mut self.cx.assign)?;
                let (ok, name) = match opcode {
                    IASTORE => (array.is_array_of(b'I'), "iastore"),
                    BASTORE => (array.is_array_of(b'B') || array.is_array_of(b'Z'), "bastore"),
                    CASTORE => (array.is_array_of(b'C'), "castore"),
                    SASTORE => (array.is_array_of(b'S'), "sastore"),
                    FASTORE => (array.is_array_of(b'F'), "fastore"),
                    LASTORE => (array.is_array_of(b'J'), "lastore"),
                    DASTORE => (array.is_array_of(b'D'), "dastore"),
                    // The value's fit to the component type is a run-time
                    // check (ArrayStoreException).
                    _ => (array.is_reference_array(), "aastore"),
                };
                if !ok {
                    return Err(bad_operand(name, &array));
                }
            }
            POP => {
                frame.pop(Want::Category1, &mut self.cx.assign)?;
            }
            POP2 => {
                let t = frame.pop_any()?;
                pop_pair_rest(frame, &t, "pop2", &mut self.cx.assign)?;
            }
            DUP => {
                let t = frame.pop(Want::Category1, &mut self.cx.assign)?;
                frame.push(t.clone(), ms)?;
                frame.push(t, ms)?;
            }
            DUP_X1 => {
                let t1 = frame.pop(Want::Category1, &mut self.cx.assign)?;
                let t2 = frame.pop(Want::Category1, &mut self.cx.assign)?;
                frame.push_slots(&[t1.clone(), t2, t1], ms)?;
            }
            DUP_X2 => {
                let t1 = frame.pop(Want::Category1, &mut self.cx.assign)?;
                let t2 = frame.pop_any()?;
                let t3 = pop_pair_rest(frame, &t2, "dup_x2", &mut self.cx.assign)?;
                frame.push_slots(&[t1.clone(), t3, t2, t1], ms)?;
            }
            DUP2 => {
                let t1 = frame.pop_any()?;
                let t2 = pop_pair_rest(frame, &t1, "dup2", &mut self.cx.assign)?;
                frame.push_slots(&[t2.clone(), t1.clone(), t2, t1], ms)?;
            }
            DUP2_X1 => {
                let t1 = frame.pop_any()?;
                let t2 = pop_pair_rest(frame, &t1, "dup2_x1", &mut self.cx.assign)?;
                let t3 = frame.pop(Want::Category1, &mut self.cx.assign)?;
                frame.push_slots(&[t2.clone(), t1.clone(), t3, t2, t1], ms)?;
            }
            DUP2_X2 => {
                let t1 = frame.pop_any()?;
                let t2 = pop_pair_rest(frame, &t1, "dup2_x2", &mut self.cx.assign)?;
                let t3 = frame.pop_any()?;
                let t4 = pop_pair_rest(frame, &t3, "dup2_x2", &mut self.cx.assign)?;
                frame.push_slots(&[t2.clone(), t1.clone(), t4, t3, t2, t1], ms)?;
            }
            SWAP => {
                let t1 = frame.pop(Want::Category1, &mut self.cx.assign)?;
                let t2 = frame.pop(Want::Category1, &mut self.cx.assign)?;
                frame.push(t1, ms)?;
                frame.push(t2, ms)?;
            }
            IADD | ISUB | IMUL | IDIV | IREM | ISHL | ISHR | IUSHR | IAND | IOR | IXOR => {
                frame.pop_primitive(Type::Integer)?;
                frame.pop_primitive(Type::Integer)?;
                frame.push(Type::Integer, ms)?;
            }
            INEG | I2B | I2C | I2S => {
                frame.pop_primitive(Type::Integer)?;
                frame.push(Type::Integer, ms)?;
            }
            LADD | LSUB | LMUL | LDIV | LREM | LAND | LOR | LXOR => {
                frame.pop2(Type::Long)?;
                frame.pop2(Type::Long)?;
                frame.push2(Type::Long, ms)?;
            }
            LNEG => {
                frame.pop2(Type::Long)?;
                frame.push2(Type::Long, ms)?;
            }
            LSHL | LSHR | LUSHR => {
                frame.pop_primitive(Type::Integer)?;
                frame.pop2(Type::Long)?;
                frame.push2(Type::Long, ms)?;
            }
            FADD | FSUB | FMUL | FDIV | FREM => {
                frame.pop_primitive(Type::Float)?;
                frame.pop_primitive(Type::Float)?;
                frame.push(Type::Float, ms)?;
            }
            FNEG => {
                frame.pop_primitive(Type::Float)?;
                frame.push(Type::Float, ms)?;
            }
            DADD | DSUB | DMUL | DDIV | DREM => {
                frame.pop2(Type::Double)?;
                frame.pop2(Type::Double)?;
                frame.push2(Type::Double, ms)?;
            }
            DNEG => {
                frame.pop2(Type::Double)?;
                frame.push2(Type::Double, ms)?;
            }
            IINC => {
                frame.get_local(local, Want::Type(&Type::Integer), &mut self.cx.assign)?;
            }
            I2L | I2F | I2D | L2I | L2F | L2D | F2I | F2L | F2D | D2I | D2L | D2F => {
                let (from, to) = match opcode {
                    I2L => (Type::Integer, Type::Long),
                    I2F => (Type::Integer, Type::Float),
                    I2D => (Type::Integer, Type::Double),
                    L2I => (Type::Long, Type::Integer),
                    L2F => (Type::Long, Type::Float),
                    L2D => (Type::Long, Type::Double),
                    F2I => (Type::Float, Type::Integer),
                    F2L => (Type::Float, Type::Long),
                    F2D => (Type::Float, Type::Double),
                    D2I => (Type::Double, Type::Integer),
                    D2L => (Type::Double, Type::Long),
                    _ => (Type::Double, Type::Float),
                };
                if from.is_category2() {
                    frame.pop2(from)?;
                } else {
                    frame.pop_primitive(from)?;
                }
                if to.is_category2() {
                    frame.push2(to, ms)?;
                } else {
                    frame.push(to, ms)?;
                }
            }
            LCMP => {
                frame.pop2(Type::Long)?;
                frame.pop2(Type::Long)?;
                frame.push(Type::Integer, ms)?;
            }
            FCMPL | FCMPG => {
                frame.pop_primitive(Type::Float)?;
                frame.pop_primitive(Type::Float)?;
                frame.push(Type::Integer, ms)?;
            }
            DCMPL | DCMPG => {
                frame.pop2(Type::Double)?;
                frame.pop2(Type::Double)?;
                frame.push(Type::Integer, ms)?;
            }
            IFEQ..=IF_ICMPLE => {
                if opcode >= IF_ICMPEQ {
                    frame.pop_primitive(Type::Integer)?;
                }
                frame.pop_primitive(Type::Integer)?;
                self.check_jump_target(frame, branch_target(insn))?;
            }
            IF_ACMPEQ | IF_ACMPNE | IFNULL | IFNONNULL => {
                if matches!(opcode, IF_ACMPEQ | IF_ACMPNE) {
                    frame.pop(Want::Reference, &mut self.cx.assign)?;
                }
                frame.pop(Want::Reference, &mut self.cx.assign)?;
                self.check_jump_target(frame, branch_target(insn))?;
            }
            GOTO | GOTO_W => {
                self.check_jump_target(frame, branch_target(insn))?;
                no_control_flow = true;
            }
            TABLESWITCH | LOOKUPSWITCH => {
                self.switch(frame, insn)?;
                no_control_flow = true;
            }
            IRETURN | LRETURN | FRETURN | DRETURN | ARETURN => {
                let t = match opcode {
                    IRETURN => frame.pop_primitive(Type::Integer).map(|_| Type::Integer)?,
                    FRETURN => frame.pop_primitive(Type::Float).map(|_| Type::Float)?,
                    LRETURN => frame.pop2(Type::Long).map(|_| Type::Long)?,
                    DRETURN => frame.pop2(Type::Double).map(|_| Type::Double)?,
                    _ => frame.pop(Want::Reference, &mut self.cx.assign)?,
                };
                let Some(ret) = &self.return_type else {
                    return Err(VerifyError::verify("Method does not expect a return value"));
                };
                if !self.cx.assign.is_assignable(ret, &t)? {
                    let ret = format!("{ret}");
                    return Err(VerifyError::verify("Bad return type").with_reason(|| {
                        format!("Type {t} is not assignable to {ret} (from method signature)")
                    }));
                }
                no_control_flow = true;
            }
            RETURN => {
                if self.return_type.is_some() {
                    return Err(VerifyError::verify("Method expects a return value"));
                }
                if self.method.name == "<init>" && frame.this_uninit {
                    return Err(VerifyError::verify(
                        "Constructor must call super() or this() before return",
                    ));
                }
                no_control_flow = true;
            }
            GETSTATIC | PUTSTATIC | GETFIELD | PUTFIELD => {
                let Operands::Cp(index) = insn.operands else {
                    unreachable!()
                };
                self.field_instruction(frame, opcode, index)?;
            }
            INVOKEVIRTUAL | INVOKESPECIAL | INVOKESTATIC | INVOKEINTERFACE | INVOKEDYNAMIC => {
                self.invoke_instruction(frame, insn, insns, &mut this_uninit)?;
            }
            NEW => {
                let Operands::Cp(index) = insn.operands else {
                    unreachable!()
                };
                let t = self.cp_class(index)?;
                if !t.is_object() {
                    return Err(VerifyError::verify("Illegal new instruction"));
                }
                frame.push(Type::Uninitialized(bci as u16), ms)?;
            }
            NEWARRAY => {
                let Operands::Immediate(code) = insn.operands else {
                    unreachable!()
                };
                let name = match code {
                    4 => "[Z",
                    5 => "[C",
                    6 => "[F",
                    7 => "[D",
                    8 => "[B",
                    9 => "[S",
                    10 => "[I",
                    11 => "[J",
                    _ => return Err(VerifyError::verify("Illegal newarray instruction")),
                };
                frame.pop_primitive(Type::Integer)?;
                frame.push(Type::reference(name), ms)?;
            }
            ANEWARRAY => {
                let Operands::Cp(index) = insn.operands else {
                    unreachable!()
                };
                let component = self.cp_class(index)?;
                frame.pop_primitive(Type::Integer)?;
                if component.dimensions() >= 255 {
                    return Err(VerifyError::verify(
                        "Illegal anewarray instruction, array has more than 255 dimensions",
                    ));
                }
                frame.push(component.array_of().expect("a class type"), ms)?;
            }
            ARRAYLENGTH => {
                let t = frame.pop(Want::Reference, &mut self.cx.assign)?;
                if !(t == Type::Null || t.is_array()) {
                    return Err(bad_operand("arraylength", &t));
                }
                frame.push(Type::Integer, ms)?;
            }
            CHECKCAST | INSTANCEOF => {
                let Operands::Cp(index) = insn.operands else {
                    unreachable!()
                };
                let t = self.cp_class(index)?;
                frame.pop(Want::Type(&Type::reference(OBJECT)), &mut self.cx.assign)?;
                frame.push(if opcode == CHECKCAST { t } else { Type::Integer }, ms)?;
            }
            MONITORENTER | MONITOREXIT => {
                frame.pop(Want::Reference, &mut self.cx.assign)?;
            }
            MULTIANEWARRAY => {
                let Operands::MultiArray(index, dims) = insn.operands else {
                    unreachable!()
                };
                let t = self.cp_class(index)?;
                if !t.is_array() {
                    return Err(VerifyError::verify(
                        "Illegal constant pool index in multianewarray instruction",
                    ));
                }
                if dims == 0 || t.dimensions() < dims as usize {
                    return Err(VerifyError::verify(format!(
                        "Illegal dimension in multianewarray instruction: {dims}"
                    )));
                }
                for _ in 0..dims {
                    frame.pop_primitive(Type::Integer)?;
                }
                frame.push(t, ms)?;
            }
            ATHROW => {
                frame.pop(Want::Type(&Type::reference(THROWABLE)), &mut self.cx.assign)?;
                no_control_flow = true;
            }
            // jsr, jsr_w and ret (version 50 and later; older versions are
            // refused before), and anything else the decoder let through.
            other => return Err(VerifyError::verify(format!("Bad instruction: {other:02x}"))),
        }
        if !is_store {
            self.check_handlers(bci, frame, this_uninit)?;
        }
        Ok(no_control_flow)
    }

    /// `ldc`, `ldc_w`, `ldc2_w` (HotSpot's `verify_ldc`).
    fn ldc(&mut self, frame: &mut Frame, opcode: u8, index: u16) -> Result<(), VerifyError> {
        let ms = self.max_stack;
        let wide = opcode == op::LDC2_W;
        let tags: &[u8] = if wide {
            &[tag::LONG, tag::DOUBLE, tag::DYNAMIC]
        } else {
            &[
                tag::INTEGER,
                tag::FLOAT,
                tag::STRING,
                tag::CLASS,
                tag::METHOD_HANDLE,
                tag::METHOD_TYPE,
                tag::DYNAMIC,
            ]
        };
        let t = self.cp_index(index, tags)?;
        match t {
            tag::INTEGER => frame.push(Type::Integer, ms),
            tag::FLOAT => frame.push(Type::Float, ms),
            tag::LONG => frame.push2(Type::Long, ms),
            tag::DOUBLE => frame.push2(Type::Double, ms),
            tag::STRING => frame.push(Type::reference("java/lang/String"), ms),
            tag::CLASS => frame.push(Type::reference("java/lang/Class"), ms),
            tag::METHOD_HANDLE => frame.push(Type::reference("java/lang/invoke/MethodHandle"), ms),
            tag::METHOD_TYPE => frame.push(Type::reference("java/lang/invoke/MethodType"), ms),
            _ => {
                let cp = &self.cx.class.constant_pool;
                let Ok(Constant::Dynamic(d)) = cp.get(index) else {
                    unreachable!("tag checked")
                };
                let descriptor = cp
                    .name_and_type(d.name_and_type)
                    .map_err(|e| VerifyError::format(e.to_string()))?
                    .1;
                let ft = crate::classfile::FieldType::parse(descriptor)
                    .map_err(|e| VerifyError::format(e.to_string()))?;
                let mut slots = Vec::with_capacity(2);
                super::types::push_field_type(&ft, &mut slots);
                if (slots.len() == 2) != wide {
                    return Err(VerifyError::verify(format!(
                        "Illegal type at constant pool entry {index} in class {}",
                        self.cx.class.this_class
                    )));
                }
                frame.push_slots(&slots, ms)
            }
        }
    }

    /// `tableswitch`, `lookupswitch` (HotSpot's `verify_switch`): padding,
    /// the key, every target.
    fn switch(&mut self, frame: &mut Frame, insn: &Instruction) -> Result<(), VerifyError> {
        let pc = insn.pc as usize;
        if self.cx.class.major_version < 51 {
            let padding = &self.code.code[pc + 1..(pc + 4) & !3];
            if padding.iter().any(|&b| b != 0) {
                return Err(VerifyError::verify(
                    "Nonzero padding byte in lookupswitch or tableswitch",
                ));
            }
        }
        frame.pop_primitive(Type::Integer)?;
        match &insn.operands {
            Operands::Table { default, targets, .. } => {
                self.check_jump_target(frame, *default)?;
                for &t in targets {
                    self.check_jump_target(frame, t)?;
                }
            }
            Operands::Lookup { default, pairs } => {
                self.check_jump_target(frame, *default)?;
                for &(_, t) in pairs {
                    self.check_jump_target(frame, t)?;
                }
            }
            _ => unreachable!("a switch's operands"),
        }
        Ok(())
    }
}

/// The branch target of a branch instruction.
pub(super) fn branch_target(insn: &Instruction) -> u32 {
    match insn.operands {
        Operands::Branch(t) => t,
        _ => unreachable!("a branch's operands"),
    }
}

/// `pop2` and the `dup2`/`dup_x2` families: after popping `top`, pop
/// what makes it a pair (another category 1 value) or the first half of
/// the long/double whose second half it is.
fn pop_pair_rest(
    frame: &mut Frame,
    top: &Type,
    name: &str,
    a: &mut super::types::Assignability<'_>,
) -> Result<Type, VerifyError> {
    if top.is_category1() {
        frame.pop(Want::Category1, a)
    } else if top.is_category2_2nd() {
        frame.pop(Want::Category2, a)
    } else {
        Err(bad_operand(name, top))
    }
}

/// "Bad type on operand stack in <instruction>".
pub(super) fn bad_operand(name: &str, found: &Type) -> VerifyError {
    let found = format!("{found}");
    VerifyError::verify(format!("Bad type on operand stack in {name}"))
        .with_reason(move || format!("Invalid type: {found} (current frame, stack top)"))
}

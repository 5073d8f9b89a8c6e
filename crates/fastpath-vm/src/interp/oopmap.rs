//! Reference maps: for every instruction of a method, which local and
//! operand-stack slots hold references on entry to it, and the stack depth
//! (HotSpot's `GenerateOopMap`, by the same abstract interpretation: a
//! forward dataflow over slot kinds to a fixpoint, merging at branch
//! targets and exception handlers).
//!
//! Where it sits: `decode.rs` computes the maps when a method first runs;
//! the thread's root scanner (`stack.rs`) reads the map of each frame's
//! current instruction in a pause, so a frame costs nothing until a
//! collection (no tag per slot, no store per push).
//!
//! Slot kinds: `R` a reference (null and uninitialized objects included),
//! `V` a one-slot primitive, `L`/`H` the two halves of a long or double,
//! `X` unusable (never written, or merged from different kinds: the
//! verifier makes such a slot unreadable, so it is not a root even if it
//! holds a stale address). The analysis checks what the interpreter
//! itself relies on and reports the rest as `VerifyError`s: stack depth
//! within `max_stack`, no underflow, the same depth at every merge, local
//! indices within `max_locals`, a reference where an instruction
//! dereferences one (loads from locals, receivers, arrays, monitors,
//! `athrow`), no `jsr`/`ret`. Precondition left to the type checker
//! (`classfile/verify/`): the *class* of each reference (a `getfield`'s
//! object has the field, an `iaload`'s array is an `int[]`).

use crate::classfile::bytecode::{op, Instruction, Operands};
use crate::classfile::{Constant, ConstantPool, ExceptionHandler, FieldType, MethodDescriptor};
use crate::runtime::Error;

/// A slot's kind (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A reference.
    R,
    /// A one-slot primitive.
    V,
    /// The low half of a long or double.
    L,
    /// Its high half.
    H,
    /// Unusable.
    X,
}

/// The maps of one method.
#[derive(Debug, Default)]
pub struct OopMaps {
    /// Words of `bits` per instruction.
    pub words: usize,
    /// `max_locals`: stack slot `j` is bit `max_locals + j`.
    pub max_locals: usize,
    /// Stack depth on entry to each instruction (`u16::MAX`: unreachable).
    pub depth: Box<[u16]>,
    /// Reference bits per instruction.
    pub bits: Box<[u64]>,
}

impl OopMaps {
    /// Whether local `i` holds a reference on entry to instruction `insn`.
    #[inline]
    pub fn local_is_ref(&self, insn: usize, i: usize) -> bool {
        self.bit(insn, i)
    }

    /// Whether stack slot `j` (0 = bottom) holds one.
    #[inline]
    pub fn stack_is_ref(&self, insn: usize, j: usize) -> bool {
        self.bit(insn, self.max_locals + j)
    }

    #[inline]
    fn bit(&self, insn: usize, b: usize) -> bool {
        self.bits[insn * self.words + b / 64] & (1 << (b % 64)) != 0
    }
}

/// What the analysis needs of a method.
pub struct MethodShape<'a> {
    /// Its instructions, decoded.
    pub insns: &'a [Instruction],
    /// Bytecode offset → instruction index (`u32::MAX` inside an instruction).
    pub index_of: &'a [u32],
    /// `max_locals`.
    pub max_locals: usize,
    /// `max_stack`.
    pub max_stack: usize,
    /// The exception table.
    pub handlers: &'a [ExceptionHandler],
    /// The descriptor.
    pub desc: &'a MethodDescriptor,
    /// Static?
    pub is_static: bool,
    /// The class's constant pool.
    pub cp: &'a ConstantPool,
}

fn verr(pc: u32, msg: &str) -> Error {
    Error::verify(format!("{msg} at bci {pc}"))
}

struct State {
    locals: Vec<Slot>,
    stack: Vec<Slot>,
}

impl State {
    fn push(&mut self, s: Slot, max: usize, pc: u32) -> Result<(), Error> {
        if self.stack.len() >= max {
            return Err(verr(pc, "Operand stack overflow"));
        }
        self.stack.push(s);
        Ok(())
    }
    fn pop(&mut self, pc: u32) -> Result<Slot, Error> {
        self.stack
            .pop()
            .ok_or_else(|| verr(pc, "Operand stack underflow"))
    }
    fn pop_ref(&mut self, pc: u32) -> Result<(), Error> {
        match self.pop(pc)? {
            Slot::R => Ok(()),
            _ => Err(verr(pc, "Bad type on operand stack: expected a reference")),
        }
    }
    fn pop_prim(&mut self, pc: u32) -> Result<(), Error> {
        match self.pop(pc)? {
            Slot::V => Ok(()),
            _ => Err(verr(
                pc,
                "Bad type on operand stack: expected a one-slot primitive",
            )),
        }
    }
    fn pop_wide(&mut self, pc: u32) -> Result<(), Error> {
        match (self.pop(pc)?, self.pop(pc)?) {
            (Slot::H, Slot::L) => Ok(()),
            _ => Err(verr(pc, "Bad type on operand stack: expected a long or double")),
        }
    }
    fn pop_type(&mut self, t: &FieldType, pc: u32) -> Result<(), Error> {
        if t.is_reference() {
            self.pop_ref(pc)
        } else if t.slots() == 2 {
            self.pop_wide(pc)
        } else {
            self.pop_prim(pc)
        }
    }
    fn push_type(&mut self, t: &FieldType, max: usize, pc: u32) -> Result<(), Error> {
        if t.is_reference() {
            self.push(Slot::R, max, pc)
        } else if t.slots() == 2 {
            self.push(Slot::L, max, pc)?;
            self.push(Slot::H, max, pc)
        } else {
            self.push(Slot::V, max, pc)
        }
    }
    fn local(&self, i: usize, pc: u32) -> Result<Slot, Error> {
        self.locals
            .get(i)
            .copied()
            .ok_or_else(|| verr(pc, "Illegal local variable number"))
    }
    fn set_local(&mut self, i: usize, s: Slot, pc: u32) -> Result<(), Error> {
        if i >= self.locals.len() {
            return Err(verr(pc, "Illegal local variable number"));
        }
        // Overwriting half of a long kills the other half.
        if self.locals[i] == Slot::H && i > 0 {
            self.locals[i - 1] = Slot::X;
        }
        if self.locals[i] == Slot::L && i + 1 < self.locals.len() {
            self.locals[i + 1] = Slot::X;
        }
        self.locals[i] = s;
        Ok(())
    }
}

fn merge_slot(a: Slot, b: Slot) -> Slot {
    if a == b {
        a
    } else {
        Slot::X
    }
}

/// Runs the analysis.
pub fn compute(m: &MethodShape<'_>) -> Result<OopMaps, Error> {
    let n = m.insns.len();
    let mut locals = vec![Slot::X; m.max_locals];
    let mut k = 0;
    if !m.is_static {
        locals[0] = Slot::R;
        k = 1;
    }
    for p in &m.desc.params {
        if p.is_reference() {
            locals[k] = Slot::R;
        } else if p.slots() == 2 {
            locals[k] = Slot::L;
            locals[k + 1] = Slot::H;
        } else {
            locals[k] = Slot::V;
        }
        k += p.slots();
    }
    let mut entry: Vec<Option<(Vec<Slot>, Vec<Slot>)>> = vec![None; n];
    entry[0] = Some((locals, Vec::new()));
    let mut work: Vec<usize> = vec![0];
    let mut queued = vec![false; n];
    queued[0] = true;
    // Handlers covering each instruction.
    let index = |pc: u32| -> Result<usize, Error> {
        match m.index_of.get(pc as usize) {
            Some(&i) if i != u32::MAX => Ok(i as usize),
            _ => Err(verr(pc, "Illegal target of jump or branch")),
        }
    };
    let mut handler_ranges = Vec::with_capacity(m.handlers.len());
    for h in m.handlers {
        let start = index(h.start_pc as u32)?;
        let end = if h.end_pc as usize == m.index_of.len() {
            n
        } else {
            index(h.end_pc as u32)?
        };
        handler_ranges.push((start, end, index(h.handler_pc as u32)?));
    }
    let merge_into = |entry: &mut Vec<Option<(Vec<Slot>, Vec<Slot>)>>,
                      target: usize,
                      locals: &[Slot],
                      stack: &[Slot],
                      pc: u32|
     -> Result<bool, Error> {
        match &mut entry[target] {
            None => {
                entry[target] = Some((locals.to_vec(), stack.to_vec()));
                Ok(true)
            }
            Some((l, s)) => {
                if s.len() != stack.len() {
                    return Err(verr(pc, "Inconsistent stack height"));
                }
                let mut changed = false;
                for (a, &b) in l.iter_mut().zip(locals) {
                    let c = merge_slot(*a, b);
                    changed |= c != *a;
                    *a = c;
                }
                for (a, &b) in s.iter_mut().zip(stack) {
                    let c = merge_slot(*a, b);
                    if c == Slot::X && (*a == Slot::R || b == Slot::R) {
                        return Err(verr(pc, "Inconsistent types on the operand stack at a merge"));
                    }
                    changed |= c != *a;
                    *a = c;
                }
                Ok(changed)
            }
        }
    };
    while let Some(i) = work.pop() {
        queued[i] = false;
        let (locals, stack) = entry[i].clone().expect("queued instructions have a state");
        let insn = &m.insns[i];
        // Exception edges: the handler sees this instruction's locals.
        for &(start, end, handler) in &handler_ranges {
            if (start..end).contains(&i)
                && merge_into(&mut entry, handler, &locals, &[Slot::R], insn.pc)?
                && !queued[handler]
            {
                queued[handler] = true;
                work.push(handler);
            }
        }
        let mut st = State { locals, stack };
        let succ = step(&mut st, insn, m)?;
        let mut targets: Vec<usize> = Vec::with_capacity(2);
        if succ.falls_through {
            if i + 1 >= n {
                return Err(verr(insn.pc, "Falling off the end of the code"));
            }
            targets.push(i + 1);
        }
        for t in succ.branches {
            targets.push(index(t)?);
        }
        for t in targets {
            if merge_into(&mut entry, t, &st.locals, &st.stack, insn.pc)? && !queued[t] {
                queued[t] = true;
                work.push(t);
            }
        }
    }
    let slots = m.max_locals + m.max_stack;
    let words = slots.div_ceil(64).max(1);
    let mut bits = vec![0u64; words * n];
    let mut depth = vec![u16::MAX; n];
    for (i, e) in entry.iter().enumerate() {
        if let Some((l, s)) = e {
            depth[i] = s.len() as u16;
            for (j, &x) in l.iter().chain(s.iter()).enumerate() {
                let b = if j < l.len() {
                    j
                } else {
                    m.max_locals + (j - l.len())
                };
                if x == Slot::R {
                    bits[i * words + b / 64] |= 1 << (b % 64);
                }
            }
        }
    }
    Ok(OopMaps {
        words,
        max_locals: m.max_locals,
        depth: depth.into_boxed_slice(),
        bits: bits.into_boxed_slice(),
    })
}

struct Successors {
    falls_through: bool,
    branches: Vec<u32>,
}

fn member_type(cp: &ConstantPool, index: u16, pc: u32) -> Result<String, Error> {
    let (_, m) = cp
        .member_ref(index)
        .map_err(|_| verr(pc, "Bad constant pool index"))?;
    Ok(m.descriptor.to_string())
}

/// Applies one instruction to the state; returns its successors.
fn step(st: &mut State, insn: &Instruction, m: &MethodShape<'_>) -> Result<Successors, Error> {
    let pc = insn.pc;
    let max = m.max_stack;
    let mut falls_through = true;
    let mut branches = Vec::new();
    let o = insn.opcode;
    macro_rules! push {
        ($s:expr) => {
            st.push($s, max, pc)?
        };
    }
    macro_rules! wide {
        () => {{
            push!(Slot::L);
            push!(Slot::H);
        }};
    }
    match o {
        op::NOP => {}
        op::ACONST_NULL => push!(Slot::R),
        op::ICONST_M1..=op::ICONST_5 | op::BIPUSH | op::SIPUSH | op::FCONST_0..=op::FCONST_2 => {
            push!(Slot::V)
        }
        op::LCONST_0 | op::LCONST_1 | op::DCONST_0 | op::DCONST_1 => wide!(),
        op::LDC | op::LDC_W | op::LDC2_W => {
            let Operands::Cp(i) = insn.operands else {
                unreachable!("ldc has an index")
            };
            match m
                .cp
                .get(i)
                .map_err(|_| verr(pc, "Bad constant pool index in ldc"))?
            {
                Constant::Integer(_) | Constant::Float(_) if o != op::LDC2_W => push!(Slot::V),
                Constant::Long(_) | Constant::Double(_) if o == op::LDC2_W => wide!(),
                Constant::String { .. }
                | Constant::Class { .. }
                | Constant::MethodType { .. }
                | Constant::MethodHandle { .. }
                    if o != op::LDC2_W =>
                {
                    push!(Slot::R)
                }
                Constant::Dynamic(d) => {
                    let (_, desc) = m.cp.name_and_type(d.name_and_type).map_err(Error::from)?;
                    let t = FieldType::parse(desc).map_err(Error::from)?;
                    if (t.slots() == 2) != (o == op::LDC2_W) {
                        return Err(verr(pc, "Bad dynamic constant size in ldc"));
                    }
                    st.push_type(&t, max, pc)?;
                }
                _ => return Err(verr(pc, "Bad constant in ldc")),
            }
        }
        op::ILOAD | op::FLOAD | op::ILOAD_0..=0x1d | op::FLOAD_0..=0x25 => {
            let n = local_index(insn, o);
            if st.local(n, pc)? != Slot::V {
                return Err(verr(pc, "Bad local variable type: expected a primitive"));
            }
            push!(Slot::V)
        }
        op::LLOAD | op::DLOAD | op::LLOAD_0..=0x21 | op::DLOAD_0..=0x29 => {
            let n = local_index(insn, o);
            if st.local(n, pc)? != Slot::L || st.local(n + 1, pc)? != Slot::H {
                return Err(verr(pc, "Bad local variable type: expected a long or double"));
            }
            wide!()
        }
        op::ALOAD | op::ALOAD_0..=0x2d => {
            let n = local_index(insn, o);
            if st.local(n, pc)? != Slot::R {
                return Err(verr(pc, "Bad local variable type: expected a reference"));
            }
            push!(Slot::R)
        }
        op::IALOAD | op::FALOAD | op::BALOAD | op::CALOAD | op::SALOAD => {
            st.pop_prim(pc)?;
            st.pop_ref(pc)?;
            push!(Slot::V)
        }
        op::LALOAD | op::DALOAD => {
            st.pop_prim(pc)?;
            st.pop_ref(pc)?;
            wide!()
        }
        op::AALOAD => {
            st.pop_prim(pc)?;
            st.pop_ref(pc)?;
            push!(Slot::R)
        }
        op::ISTORE | op::FSTORE | op::ISTORE_0..=0x3e | op::FSTORE_0..=0x46 => {
            let n = local_index(insn, o);
            st.pop_prim(pc)?;
            st.set_local(n, Slot::V, pc)?;
        }
        op::LSTORE | op::DSTORE | op::LSTORE_0..=0x42 | op::DSTORE_0..=0x4a => {
            let n = local_index(insn, o);
            st.pop_wide(pc)?;
            st.set_local(n, Slot::L, pc)?;
            st.set_local(n + 1, Slot::H, pc)?;
        }
        op::ASTORE | op::ASTORE_0..=0x4e => {
            let n = local_index(insn, o);
            st.pop_ref(pc)?;
            st.set_local(n, Slot::R, pc)?;
        }
        op::IASTORE | op::FASTORE | op::BASTORE | op::CASTORE | op::SASTORE => {
            st.pop_prim(pc)?;
            st.pop_prim(pc)?;
            st.pop_ref(pc)?;
        }
        op::LASTORE | op::DASTORE => {
            st.pop_wide(pc)?;
            st.pop_prim(pc)?;
            st.pop_ref(pc)?;
        }
        op::AASTORE => {
            st.pop_ref(pc)?;
            st.pop_prim(pc)?;
            st.pop_ref(pc)?;
        }
        op::POP => {
            if matches!(st.pop(pc)?, Slot::H | Slot::L) {
                return Err(verr(pc, "Bad type on operand stack in pop"));
            }
        }
        op::POP2 => {
            let a = st.pop(pc)?;
            let b = st.pop(pc)?;
            if (a == Slot::H) != (b == Slot::L) {
                return Err(verr(pc, "Bad type on operand stack in pop2"));
            }
        }
        op::DUP => {
            let a = st.pop(pc)?;
            if matches!(a, Slot::H | Slot::L) {
                return Err(verr(pc, "Bad type on operand stack in dup"));
            }
            push!(a);
            push!(a);
        }
        op::DUP_X1 => {
            let a = st.pop(pc)?;
            let b = st.pop(pc)?;
            if matches!(a, Slot::H | Slot::L) || matches!(b, Slot::H | Slot::L) {
                return Err(verr(pc, "Bad type on operand stack in dup_x1"));
            }
            push!(a);
            push!(b);
            push!(a);
        }
        op::DUP_X2 => {
            let a = st.pop(pc)?;
            let b = st.pop(pc)?;
            let c = st.pop(pc)?;
            if matches!(a, Slot::H | Slot::L) {
                return Err(verr(pc, "Bad type on operand stack in dup_x2"));
            }
            push!(a);
            push!(c);
            push!(b);
            push!(a);
        }
        op::DUP2 => {
            let a = st.pop(pc)?;
            let b = st.pop(pc)?;
            if b == Slot::H || (a == Slot::L) {
                return Err(verr(pc, "Bad type on operand stack in dup2"));
            }
            push!(b);
            push!(a);
            push!(b);
            push!(a);
        }
        op::DUP2_X1 => {
            let a = st.pop(pc)?;
            let b = st.pop(pc)?;
            let c = st.pop(pc)?;
            if b == Slot::H || a == Slot::L || matches!(c, Slot::H | Slot::L) {
                return Err(verr(pc, "Bad type on operand stack in dup2_x1"));
            }
            push!(b);
            push!(a);
            push!(c);
            push!(b);
            push!(a);
        }
        op::DUP2_X2 => {
            let a = st.pop(pc)?;
            let b = st.pop(pc)?;
            let c = st.pop(pc)?;
            let d = st.pop(pc)?;
            if b == Slot::H || a == Slot::L || d == Slot::H || c == Slot::L {
                return Err(verr(pc, "Bad type on operand stack in dup2_x2"));
            }
            push!(b);
            push!(a);
            push!(d);
            push!(c);
            push!(b);
            push!(a);
        }
        op::SWAP => {
            let a = st.pop(pc)?;
            let b = st.pop(pc)?;
            if matches!(a, Slot::H | Slot::L) || matches!(b, Slot::H | Slot::L) {
                return Err(verr(pc, "Bad type on operand stack in swap"));
            }
            push!(a);
            push!(b);
        }
        // int/float binary ops
        op::IADD
        | op::FADD
        | op::ISUB
        | op::FSUB
        | op::IMUL
        | op::FMUL
        | op::IDIV
        | op::FDIV
        | op::IREM
        | op::FREM
        | op::ISHL
        | op::ISHR
        | op::IUSHR
        | op::IAND
        | op::IOR
        | op::IXOR => {
            st.pop_prim(pc)?;
            st.pop_prim(pc)?;
            push!(Slot::V)
        }
        op::LADD
        | op::DADD
        | op::LSUB
        | op::DSUB
        | op::LMUL
        | op::DMUL
        | op::LDIV
        | op::DDIV
        | op::LREM
        | op::DREM
        | op::LAND
        | op::LOR
        | op::LXOR => {
            st.pop_wide(pc)?;
            st.pop_wide(pc)?;
            wide!()
        }
        op::LSHL | op::LSHR | op::LUSHR => {
            st.pop_prim(pc)?;
            st.pop_wide(pc)?;
            wide!()
        }
        op::INEG | op::FNEG => {
            st.pop_prim(pc)?;
            push!(Slot::V)
        }
        op::LNEG | op::DNEG => {
            st.pop_wide(pc)?;
            wide!()
        }
        op::IINC => {
            let Operands::Iinc(n, _) = insn.operands else {
                unreachable!("iinc operands")
            };
            if st.local(n as usize, pc)? != Slot::V {
                return Err(verr(pc, "Bad local variable type in iinc"));
            }
        }
        op::I2L | op::I2D | op::F2L | op::F2D => {
            st.pop_prim(pc)?;
            wide!()
        }
        op::I2F | op::F2I | op::I2B | op::I2C | op::I2S => {
            st.pop_prim(pc)?;
            push!(Slot::V)
        }
        op::L2I | op::L2F | op::D2I | op::D2F => {
            st.pop_wide(pc)?;
            push!(Slot::V)
        }
        op::L2D | op::D2L => {
            st.pop_wide(pc)?;
            wide!()
        }
        op::LCMP | op::DCMPL | op::DCMPG => {
            st.pop_wide(pc)?;
            st.pop_wide(pc)?;
            push!(Slot::V)
        }
        op::FCMPL | op::FCMPG => {
            st.pop_prim(pc)?;
            st.pop_prim(pc)?;
            push!(Slot::V)
        }
        op::IFEQ..=op::IFLE => {
            st.pop_prim(pc)?;
            branches.push(target(insn));
        }
        op::IF_ICMPEQ..=op::IF_ICMPLE => {
            st.pop_prim(pc)?;
            st.pop_prim(pc)?;
            branches.push(target(insn));
        }
        op::IF_ACMPEQ | op::IF_ACMPNE => {
            st.pop_ref(pc)?;
            st.pop_ref(pc)?;
            branches.push(target(insn));
        }
        op::IFNULL | op::IFNONNULL => {
            st.pop_ref(pc)?;
            branches.push(target(insn));
        }
        op::GOTO | op::GOTO_W => {
            falls_through = false;
            branches.push(target(insn));
        }
        op::JSR | op::JSR_W | op::RET => {
            return Err(verr(
                pc,
                "jsr/ret are not supported (class files before version 50 only)",
            ));
        }
        op::TABLESWITCH | op::LOOKUPSWITCH => {
            st.pop_prim(pc)?;
            falls_through = false;
            match &insn.operands {
                Operands::Table { default, targets, .. } => {
                    branches.push(*default);
                    branches.extend_from_slice(targets);
                }
                Operands::Lookup { default, pairs } => {
                    branches.push(*default);
                    branches.extend(pairs.iter().map(|p| p.1));
                }
                _ => unreachable!("switch operands"),
            }
        }
        op::IRETURN | op::FRETURN | op::LRETURN | op::DRETURN | op::ARETURN | op::RETURN => {
            let want = m.desc.ret.as_ref();
            let ok = match (o, want) {
                (op::RETURN, None) => true,
                (op::ARETURN, Some(t)) if t.is_reference() => st.pop_ref(pc).is_ok(),
                (op::LRETURN | op::DRETURN, Some(t)) if t.slots() == 2 && !t.is_reference() => {
                    st.pop_wide(pc).is_ok()
                }
                (op::IRETURN | op::FRETURN, Some(t)) if t.slots() == 1 && !t.is_reference() => {
                    st.pop_prim(pc).is_ok()
                }
                _ => false,
            };
            if !ok {
                return Err(verr(pc, "Method's return type and return instruction disagree"));
            }
            falls_through = false;
        }
        op::GETSTATIC | op::PUTSTATIC | op::GETFIELD | op::PUTFIELD => {
            let Operands::Cp(i) = insn.operands else {
                unreachable!("field index")
            };
            let d = member_type(m.cp, i, pc)?;
            let t = FieldType::parse(&d).map_err(Error::from)?;
            match o {
                op::GETSTATIC => st.push_type(&t, max, pc)?,
                op::PUTSTATIC => st.pop_type(&t, pc)?,
                op::GETFIELD => {
                    st.pop_ref(pc)?;
                    st.push_type(&t, max, pc)?
                }
                _ => {
                    st.pop_type(&t, pc)?;
                    st.pop_ref(pc)?;
                }
            }
        }
        op::INVOKEVIRTUAL
        | op::INVOKESPECIAL
        | op::INVOKESTATIC
        | op::INVOKEINTERFACE
        | op::INVOKEDYNAMIC => {
            let i = match insn.operands {
                Operands::Cp(i) | Operands::Interface(i, _) => i,
                _ => unreachable!("invoke index"),
            };
            let d = if o == op::INVOKEDYNAMIC {
                match m.cp.get(i).map_err(|_| verr(pc, "Bad constant pool index"))? {
                    Constant::InvokeDynamic(d) => {
                        m.cp.name_and_type(d.name_and_type)
                            .map_err(Error::from)?
                            .1
                            .to_string()
                    }
                    _ => return Err(verr(pc, "invokedynamic needs an InvokeDynamic constant")),
                }
            } else {
                member_type(m.cp, i, pc)?
            };
            let md = MethodDescriptor::parse(&d).map_err(Error::from)?;
            for p in md.params.iter().rev() {
                st.pop_type(p, pc)?;
            }
            if o != op::INVOKESTATIC && o != op::INVOKEDYNAMIC {
                st.pop_ref(pc)?;
            }
            if let Some(r) = &md.ret {
                st.push_type(r, max, pc)?;
            }
        }
        op::NEW => push!(Slot::R),
        op::NEWARRAY | op::ANEWARRAY => {
            st.pop_prim(pc)?;
            push!(Slot::R)
        }
        op::ARRAYLENGTH => {
            st.pop_ref(pc)?;
            push!(Slot::V)
        }
        op::ATHROW => {
            st.pop_ref(pc)?;
            falls_through = false;
        }
        op::CHECKCAST => {
            st.pop_ref(pc)?;
            push!(Slot::R)
        }
        op::INSTANCEOF => {
            st.pop_ref(pc)?;
            push!(Slot::V)
        }
        op::MONITORENTER | op::MONITOREXIT => st.pop_ref(pc)?,
        op::MULTIANEWARRAY => {
            let Operands::MultiArray(_, dims) = insn.operands else {
                unreachable!("dims")
            };
            for _ in 0..dims {
                st.pop_prim(pc)?;
            }
            push!(Slot::R)
        }
        op::FUSED_CONCAT => {
            // The pre-decoder's fused concatenation: its arguments off,
            // the string on.
            let Operands::Fused { slots, .. } = insn.operands else {
                return Err(verr(pc, "Bad instruction 0xfe"));
            };
            for _ in 0..slots {
                st.pop(pc)?;
            }
            push!(Slot::R)
        }
        other => return Err(verr(pc, &format!("Bad instruction {other:#04x}"))),
    }
    Ok(Successors {
        falls_through,
        branches,
    })
}

fn target(insn: &Instruction) -> u32 {
    match insn.operands {
        Operands::Branch(t) => t,
        _ => unreachable!("branch operands"),
    }
}

/// The local index of a load/store (its operand, or the `_n` forms').
pub fn local_index(insn: &Instruction, o: u8) -> usize {
    match insn.operands {
        Operands::Local(n) => n as usize,
        _ => match o {
            0x1a..=0x2d => ((o - 0x1a) % 4) as usize,
            0x3b..=0x4e => ((o - 0x3b) % 4) as usize,
            _ => 0,
        },
    }
}

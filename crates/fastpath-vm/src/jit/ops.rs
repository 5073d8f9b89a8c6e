//! The instructions as the JIT reads them: one typed [`Op`] per
//! bytecode instruction, from the interpreter's pre-decoded form (resolved
//! operands: fields, methods, classes, branch targets) and the raw opcode
//! (the value kinds the pre-decoded form leaves out: `iload` and `fload`
//! are both `Insn::Load`).
//!
//! Where it sits: between `interp::decode` (which resolved everything the
//! code names, once, when the method first ran) and the JIT's dataflow
//! (`kinds.rs`) and translator (`translate.rs`). Superinstructions
//! (`decode::fuse`) replace only the first instruction of a run, always a
//! local load, so a load is read from the raw opcode and every other
//! instruction from its own pre-decoded slot.

use crate::classfile::bytecode::{op, Instruction, Operands};
use crate::classfile::ConstantPool;
use crate::interp::decode::BACKWARD;
use crate::interp::insn::{Arith, Cond, Conv, Insn, Switch};
use crate::interp::{oopmap, Decoded};
use crate::link::{Class, Kind, Method};
use crate::runtime::vm::Literal;

/// A value's kind in a JIT slot (a local or an operand-stack slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum K {
    /// `int` (and boolean, byte, char, short).
    I,
    /// `long` (its low slot; the high one is [`K::Hi`]).
    J,
    /// `float`.
    F,
    /// `double` (its low slot).
    D,
    /// A reference.
    R,
    /// The high slot of a long or double.
    Hi,
    /// Unusable (never written, or merged from different kinds).
    X,
}

impl K {
    /// JVM slots a value of this kind takes.
    pub fn slots(self) -> usize {
        match self {
            K::J | K::D => 2,
            _ => 1,
        }
    }

    /// The kind of a field or array element kind on the operand stack.
    pub fn of(kind: Kind) -> K {
        match kind {
            Kind::Boolean | Kind::Byte | Kind::Char | Kind::Short | Kind::Int => K::I,
            Kind::Float => K::F,
            Kind::Long => K::J,
            Kind::Double => K::D,
            Kind::Ref => K::R,
        }
    }

    /// The kind of a descriptor type.
    pub fn of_type(t: &crate::classfile::FieldType) -> K {
        K::of(Kind::of(t))
    }

    /// A stable small index (variables are kept per slot and kind).
    pub fn index(self) -> usize {
        match self {
            K::I => 0,
            K::J => 1,
            K::F => 2,
            K::D => 3,
            K::R => 4,
            K::Hi | K::X => 5,
        }
    }
}

/// A constant pushed by an instruction.
#[derive(Clone, Copy, Debug)]
pub enum Const {
    /// An int.
    I(i32),
    /// A long.
    J(i64),
    /// A float's bits.
    F(u32),
    /// A double's bits.
    D(u64),
    /// `null`.
    Null,
}

/// A branch target: the instruction index, and whether it jumps backward
/// (a loop's back edge: compiled code polls there, as the interpreter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The instruction index.
    pub index: u32,
    /// A backward branch.
    pub backward: bool,
}

impl Target {
    fn of(t: u32) -> Target {
        Target {
            index: t & !BACKWARD,
            backward: t & BACKWARD != 0,
        }
    }

    /// The target of a branch at instruction `from` to `index` (tests).
    #[cfg(test)]
    pub fn to(index: u32, from: u32) -> Target {
        Target {
            index,
            backward: index <= from,
        }
    }
}

/// How an invoke selects its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// `invokestatic` (the class initialized first).
    Static,
    /// No dispatch, receiver null-checked (`invokespecial`, final and
    /// private methods).
    Direct,
    /// Through the receiver's vtable at this index.
    Virtual(u32),
    /// Through the receiver's itable: the interface method's index among
    /// its interface's methods.
    Interface(u32),
}

/// One instruction, typed for the JIT.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// `nop`.
    Nop,
    /// Push a constant.
    Const(Const),
    /// Push a string literal.
    LdcString(&'static Literal),
    /// Push a class mirror.
    LdcClass(&'static Class),
    /// Push local n of kind k.
    Load(K, u16),
    /// Pop into local n.
    Store(K, u16),
    /// `iinc`.
    Iinc(u16, i16),
    /// Array load of an element kind.
    ALoad(Kind),
    /// Array store of an element kind (`Kind::Byte` also serves boolean
    /// arrays, which store `& 1`).
    AStore(Kind),
    /// `pop`.
    Pop,
    /// `pop2`.
    Pop2,
    /// `dup`.
    Dup,
    /// `dup_x1`.
    DupX1,
    /// `dup_x2`.
    DupX2,
    /// `dup2`.
    Dup2,
    /// `dup2_x1`.
    Dup2X1,
    /// `dup2_x2`.
    Dup2X2,
    /// `swap`.
    Swap,
    /// A binary operation on two values of kind K (long shifts take an int
    /// count).
    Arith(K, Arith),
    /// Negation.
    Neg(K),
    /// A conversion.
    Conv(Conv),
    /// `lcmp`.
    LCmp,
    /// `fcmpl`/`fcmpg` (true: NaN compares greater).
    FCmp(bool),
    /// `dcmpl`/`dcmpg`.
    DCmp(bool),
    /// `if<cond>` against 0.
    If(Cond, Target),
    /// `if_icmp<cond>`.
    IfICmp(Cond, Target),
    /// `if_acmpeq` (true) / `if_acmpne`.
    IfACmp(bool, Target),
    /// `ifnull` (true) / `ifnonnull`.
    IfNull(bool, Target),
    /// `goto`.
    Goto(Target),
    /// A switch: its table in `Decoded::switches`.
    Switch(u32),
    /// Return a value of this kind (`None`: void).
    Return(Option<K>),
    /// `getstatic`.
    GetStatic {
        /// The declaring class.
        class: &'static Class,
        /// Its statics slot.
        slot: u16,
        /// The field's kind.
        kind: Kind,
        /// Volatile.
        volatile: bool,
    },
    /// `putstatic`.
    PutStatic {
        /// The declaring class.
        class: &'static Class,
        /// Its statics slot.
        slot: u16,
        /// The field's kind.
        kind: Kind,
        /// Volatile.
        volatile: bool,
    },
    /// `getfield`: reference index or data byte offset.
    GetField {
        /// Reference index (`Kind::Ref`) or data byte offset.
        off: u32,
        /// The field's kind.
        kind: Kind,
        /// Volatile.
        volatile: bool,
    },
    /// `putfield`.
    PutField {
        /// Reference index (`Kind::Ref`) or data byte offset.
        off: u32,
        /// The field's kind.
        kind: Kind,
        /// Volatile.
        volatile: bool,
    },
    /// A call.
    Invoke(Dispatch, &'static Method),
    /// `new`.
    New(&'static Class),
    /// `newarray`/`anewarray`: the array class.
    NewArray(&'static Class),
    /// `multianewarray`.
    MultiANewArray(&'static Class, u8),
    /// `arraylength`.
    ArrayLength,
    /// `athrow`.
    AThrow,
    /// `checkcast`.
    CheckCast(&'static Class),
    /// `instanceof`.
    InstanceOf(&'static Class),
    /// `monitorenter`.
    MonitorEnter,
    /// `monitorexit`.
    MonitorExit,
    /// Throws `Decoded::errors[i]` (a resolution failed).
    Throw(u32),
}

impl Op {
    /// The instructions `self` may branch to, not its fall-through (a
    /// switch's targets from `switches`, the method's tables).
    pub fn branch_targets(&self, switches: &[Switch]) -> Vec<usize> {
        match *self {
            Op::If(_, t) | Op::IfICmp(_, t) | Op::IfACmp(_, t) | Op::IfNull(_, t) | Op::Goto(t) => {
                vec![t.index as usize]
            }
            Op::Switch(k) => match switches.get(k as usize) {
                Some(Switch::Table { default, targets, .. } | Switch::Lookup { default, targets, .. }) => {
                    targets
                        .iter()
                        .chain(std::iter::once(default))
                        .map(|&t| t as usize)
                        .collect()
                }
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// The instructions normal control flow may go to after `self` at
    /// index `i`: its branch targets and, unless it always jumps, returns
    /// or throws, the next one.
    pub fn successors(&self, i: usize, switches: &[Switch]) -> Vec<usize> {
        let mut s = self.branch_targets(switches);
        if !matches!(
            self,
            Op::Goto(_) | Op::Switch(_) | Op::Return(_) | Op::AThrow | Op::Throw(_)
        ) {
            s.push(i + 1);
        }
        s
    }
}

/// The ops of a method, index for index with its `Decoded::insns`.
pub fn ops_of(m: &'static Method, d: &Decoded) -> Result<Vec<Op>, String> {
    let code = m.code.as_ref().ok_or("no code")?;
    let own;
    let raw: &[Instruction] = match &d.fused {
        Some(fused) => fused,
        None => {
            own = crate::classfile::bytecode::decode_all(&code.code).map_err(|e| e.to_string())?;
            &own
        }
    };
    if raw.len() != d.insns.len() {
        return Err("the decoded method does not match its bytecode".into());
    }
    let cp = m.class.cp();
    raw.iter()
        .zip(d.insns.iter())
        .map(|(r, i)| op_of(r, *i, cp))
        .collect()
}

fn load_kind(o: u8) -> Option<K> {
    Some(match o {
        op::ILOAD | op::ILOAD_0..=0x1d => K::I,
        op::LLOAD | op::LLOAD_0..=0x21 => K::J,
        op::FLOAD | op::FLOAD_0..=0x25 => K::F,
        op::DLOAD | op::DLOAD_0..=0x29 => K::D,
        op::ALOAD | op::ALOAD_0..=0x2d => K::R,
        _ => return None,
    })
}

fn store_kind(o: u8) -> Option<K> {
    Some(match o {
        op::ISTORE | op::ISTORE_0..=0x3e => K::I,
        op::LSTORE | op::LSTORE_0..=0x42 => K::J,
        op::FSTORE | op::FSTORE_0..=0x46 => K::F,
        op::DSTORE | op::DSTORE_0..=0x4a => K::D,
        op::ASTORE | op::ASTORE_0..=0x4e => K::R,
        _ => return None,
    })
}

fn op_of(raw: &Instruction, insn: Insn, cp: &ConstantPool) -> Result<Op, String> {
    let o = raw.opcode;
    if let Some(k) = load_kind(o) {
        return Ok(Op::Load(k, oopmap::local_index(raw, o) as u16));
    }
    if let Insn::Throw(e) = insn {
        return Ok(Op::Throw(e));
    }
    // The pre-decoded field instructions keep the width; int and float,
    // long and double share one: the descriptor tells them apart.
    let field_kind = |narrow: Kind, wide: Kind| -> Result<Kind, String> {
        let idx = match raw.operands {
            Operands::Cp(i) => i,
            _ => return Err("a field instruction without a constant".into()),
        };
        let (_, mref) = cp.member_ref(idx).map_err(|e| e.to_string())?;
        Ok(if mref.descriptor == "F" || mref.descriptor == "D" {
            wide
        } else {
            narrow
        })
    };
    Ok(match insn {
        Insn::Nop => Op::Nop,
        Insn::Iconst(v) => Op::Const(Const::I(v)),
        Insn::Fconst(b) => Op::Const(Const::F(b)),
        Insn::Lconst(v) => Op::Const(Const::J(v)),
        Insn::Dconst(b) => Op::Const(Const::D(b)),
        Insn::Null => Op::Const(Const::Null),
        Insn::LdcString(l) => Op::LdcString(l),
        Insn::LdcClass(c) => Op::LdcClass(c),
        Insn::Store(n) | Insn::Store2(n) => Op::Store(store_kind(o).ok_or("store kind")?, n),
        Insn::Iinc(n, c) => Op::Iinc(n, c),
        Insn::ALoad4 => Op::ALoad(if o == op::FALOAD { Kind::Float } else { Kind::Int }),
        Insn::ALoad8 => Op::ALoad(if o == op::DALOAD { Kind::Double } else { Kind::Long }),
        Insn::ALoadRef => Op::ALoad(Kind::Ref),
        Insn::ALoadI8 => Op::ALoad(Kind::Byte),
        Insn::ALoadU16 => Op::ALoad(Kind::Char),
        Insn::ALoadI16 => Op::ALoad(Kind::Short),
        Insn::AStore4 => Op::AStore(if o == op::FASTORE { Kind::Float } else { Kind::Int }),
        Insn::AStore8 => Op::AStore(if o == op::DASTORE {
            Kind::Double
        } else {
            Kind::Long
        }),
        Insn::AStoreRef => Op::AStore(Kind::Ref),
        Insn::AStore8Bit => Op::AStore(Kind::Byte),
        Insn::AStore16 => Op::AStore(Kind::Char),
        Insn::Pop => Op::Pop,
        Insn::Pop2 => Op::Pop2,
        Insn::Dup => Op::Dup,
        Insn::DupX1 => Op::DupX1,
        Insn::DupX2 => Op::DupX2,
        Insn::Dup2 => Op::Dup2,
        Insn::Dup2X1 => Op::Dup2X1,
        Insn::Dup2X2 => Op::Dup2X2,
        Insn::Swap => Op::Swap,
        Insn::IArith(a) => Op::Arith(K::I, a),
        Insn::LArith(a) => Op::Arith(K::J, a),
        Insn::FArith(a) => Op::Arith(K::F, a),
        Insn::DArith(a) => Op::Arith(K::D, a),
        Insn::INeg => Op::Neg(K::I),
        Insn::LNeg => Op::Neg(K::J),
        Insn::FNeg => Op::Neg(K::F),
        Insn::DNeg => Op::Neg(K::D),
        Insn::Convert(c) => Op::Conv(c),
        Insn::LCmp => Op::LCmp,
        Insn::FCmp(g) => Op::FCmp(g),
        Insn::DCmp(g) => Op::DCmp(g),
        Insn::If(c, t) => Op::If(c, Target::of(t)),
        Insn::IfICmp(c, t) => Op::IfICmp(c, Target::of(t)),
        Insn::IfACmp(eq, t) => Op::IfACmp(eq, Target::of(t)),
        Insn::IfNull(n, t) => Op::IfNull(n, Target::of(t)),
        Insn::Goto(t) => Op::Goto(Target::of(t)),
        Insn::TableSwitch(i) | Insn::LookupSwitch(i) => Op::Switch(i),
        Insn::Return => Op::Return(None),
        Insn::Return1 => Op::Return(Some(match o {
            op::IRETURN => K::I,
            op::FRETURN => K::F,
            _ => K::R,
        })),
        Insn::Return2 => Op::Return(Some(if o == op::DRETURN { K::D } else { K::J })),
        Insn::GetStatic {
            class,
            slot,
            kind,
            volatile,
        } => Op::GetStatic {
            class,
            slot,
            kind,
            volatile,
        },
        Insn::PutStatic {
            class,
            slot,
            kind,
            volatile,
        } => Op::PutStatic {
            class,
            slot,
            kind,
            volatile,
        },
        Insn::GetFieldRef(off) => getfield(off, Kind::Ref),
        Insn::GetField4(off) => getfield(off, field_kind(Kind::Int, Kind::Float)?),
        Insn::GetField8(off) => getfield(off, field_kind(Kind::Long, Kind::Double)?),
        Insn::GetFieldI8(off) => getfield(off, Kind::Byte),
        Insn::GetFieldU8(off) => getfield(off, Kind::Boolean),
        Insn::GetFieldU16(off) => getfield(off, Kind::Char),
        Insn::GetFieldI16(off) => getfield(off, Kind::Short),
        Insn::PutFieldRef(off) => putfield(off, Kind::Ref),
        Insn::PutField4(off) => putfield(off, field_kind(Kind::Int, Kind::Float)?),
        Insn::PutField8(off) => putfield(off, field_kind(Kind::Long, Kind::Double)?),
        Insn::PutField1(off) => putfield(off, Kind::Byte),
        Insn::PutFieldBool(off) => putfield(off, Kind::Boolean),
        Insn::PutField2(off) => putfield(off, Kind::Char),
        Insn::GetFieldVolatile { off, kind } => Op::GetField {
            off,
            kind,
            volatile: true,
        },
        Insn::PutFieldVolatile { off, kind } => Op::PutField {
            off,
            kind,
            volatile: true,
        },
        Insn::InvokeStatic(m) => Op::Invoke(Dispatch::Static, m),
        Insn::InvokeDirect(m) => Op::Invoke(Dispatch::Direct, m),
        Insn::InvokeVirtual { method, index } => Op::Invoke(Dispatch::Virtual(index), method),
        Insn::InvokeInterface { method, index } => Op::Invoke(Dispatch::Interface(index), method),
        Insn::New(c) => Op::New(c),
        Insn::NewArray(c) | Insn::ANewArray(c) => Op::NewArray(c),
        Insn::MultiANewArray(c, d) => Op::MultiANewArray(c, d),
        Insn::ArrayLength => Op::ArrayLength,
        Insn::AThrow => Op::AThrow,
        Insn::CheckCast(c) => Op::CheckCast(c),
        Insn::InstanceOf(c) => Op::InstanceOf(c),
        Insn::MonitorEnter => Op::MonitorEnter,
        Insn::MonitorExit => Op::MonitorExit,
        Insn::Throw(e) => Op::Throw(e),
        Insn::LoadLoad(..)
        | Insn::Load2Load2(..)
        | Insn::IfICmpLL { .. }
        | Insn::IfICmpLC { .. }
        | Insn::IfL(..)
        | Insn::IArithLL(..)
        | Insn::IArithLC(..)
        | Insn::GetFieldRefL(..)
        | Insn::GetField4L(..)
        | Insn::GetField8L(..)
        | Insn::DArithLL(..)
        | Insn::Load(_)
        | Insn::Load2(_) => {
            return Err(format!(
                "opcode {o:#04x} decoded as {insn:?}: a fused run starts with a load"
            ))
        }
    })
}

fn getfield(off: u32, kind: Kind) -> Op {
    Op::GetField {
        off,
        kind,
        volatile: false,
    }
}

fn putfield(off: u32, kind: Kind) -> Op {
    Op::PutField {
        off,
        kind,
        volatile: false,
    }
}

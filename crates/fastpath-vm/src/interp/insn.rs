//! The pre-decoded instruction set the interpreter runs: one 16-byte
//! [`Insn`] per bytecode instruction, its operands resolved (field offsets
//! and kinds, classes, methods, vtable indices, branch targets as
//! instruction indices), so the dispatch loop reads no constant pool and
//! makes no lookup on its common path.
//!
//! Where it sits: `decode.rs` builds a method's `Box<[Insn]>` when the
//! method first runs; `exec.rs` dispatches on it. Instruction indices
//! stand in for bytecode offsets everywhere after decoding (branch targets,
//! exception ranges, reference maps); `Decoded::bcis` maps them back for
//! stack traces.

use crate::link::{Class, Kind, Method};
use crate::runtime::vm::Literal;

/// A branch condition. Each discriminant is the set of orderings it
/// accepts (bit 0: less, bit 1: equal, bit 2: greater), so a test is a
/// compare and a shift, with no branch on the condition itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cond {
    /// `==`
    Eq = 0b010,
    /// `!=`
    Ne = 0b101,
    /// `<`
    Lt = 0b001,
    /// `>=`
    Ge = 0b110,
    /// `>`
    Gt = 0b100,
    /// `<=`
    Le = 0b011,
}

impl Cond {
    /// Whether `a cond b`.
    #[inline(always)]
    pub fn test(self, a: i32, b: i32) -> bool {
        let ord = (a >= b) as u32 + (a > b) as u32; // 0: <, 1: ==, 2: >
        (self as u32 >> ord) & 1 != 0
    }
}

/// One pre-decoded instruction. Slots are 64 bits; long and double take two
/// (the value in the lower, as the JVM numbers locals and stack slots).
#[derive(Clone, Copy, Debug)]
pub enum Insn {
    /// `nop`
    Nop,
    /// Push an int (iconst, bipush, sipush, ldc of an int).
    Iconst(i32),
    /// Push a float's bits.
    Fconst(u32),
    /// Push a long (two slots).
    Lconst(i64),
    /// Push a double's bits (two slots).
    Dconst(u64),
    /// `aconst_null`
    Null,
    /// Push a string literal (interned; made on first use).
    LdcString(&'static Literal),
    /// Push a class's `java.lang.Class` object (made on first use).
    LdcClass(&'static Class),
    /// Push local n (one slot).
    Load(u16),
    /// Push locals n, n+1 (long, double).
    Load2(u16),
    /// Pop into local n.
    Store(u16),
    /// Pop two slots into locals n, n+1.
    Store2(u16),
    /// `iinc`
    Iinc(u16, i16),
    /// `iaload` (and `faload`: four bytes, sign-extended into the slot).
    ALoad4,
    /// `laload`, `daload`.
    ALoad8,
    /// `aaload`.
    ALoadRef,
    /// `baload` (byte and boolean arrays).
    ALoadI8,
    /// `caload`.
    ALoadU16,
    /// `saload`.
    ALoadI16,
    /// `iastore`, `fastore`.
    AStore4,
    /// `lastore`, `dastore`.
    AStore8,
    /// `aastore` (with the array store check).
    AStoreRef,
    /// `bastore` (a boolean array stores `& 1`).
    AStore8Bit,
    /// `castore`, `sastore`.
    AStore16,
    /// `pop`
    Pop,
    /// `pop2`
    Pop2,
    /// `dup`
    Dup,
    /// `dup_x1`
    DupX1,
    /// `dup_x2`
    DupX2,
    /// `dup2`
    Dup2,
    /// `dup2_x1`
    Dup2X1,
    /// `dup2_x2`
    Dup2X2,
    /// `swap`
    Swap,
    /// Integer arithmetic on two ints (`Arith` names the operation).
    IArith(Arith),
    /// Long arithmetic (shifts take an int count).
    LArith(Arith),
    /// Float arithmetic.
    FArith(Arith),
    /// Double arithmetic.
    DArith(Arith),
    /// `ineg`
    INeg,
    /// `lneg`
    LNeg,
    /// `fneg`
    FNeg,
    /// `dneg`
    DNeg,
    /// A conversion.
    Convert(Conv),
    /// `lcmp`
    LCmp,
    /// `fcmpl` (false) / `fcmpg` (true: NaN compares greater).
    FCmp(bool),
    /// `dcmpl` / `dcmpg`.
    DCmp(bool),
    /// `if<cond>` against 0; target instruction index.
    If(Cond, u32),
    /// `if_icmp<cond>`.
    IfICmp(Cond, u32),
    /// `if_acmpeq` (true) / `if_acmpne` (false).
    IfACmp(bool, u32),
    /// `ifnull` (true) / `ifnonnull` (false).
    IfNull(bool, u32),
    /// `goto`.
    Goto(u32),
    /// `tableswitch`: index into `Decoded::switches`.
    TableSwitch(u32),
    /// `lookupswitch`: index into `Decoded::switches`.
    LookupSwitch(u32),
    /// Return void.
    Return,
    /// Return one slot.
    Return1,
    /// Return two slots.
    Return2,
    /// `getstatic`: the declaring class (its statics, its init state).
    GetStatic {
        /// The class holding the field.
        class: &'static Class,
        /// Slot in its statics.
        slot: u16,
        /// Field kind.
        kind: Kind,
        /// Volatile.
        volatile: bool,
    },
    /// `putstatic`.
    PutStatic {
        /// The class holding the field.
        class: &'static Class,
        /// Slot in its statics.
        slot: u16,
        /// Field kind.
        kind: Kind,
        /// Volatile.
        volatile: bool,
    },
    /// `getfield` of a reference: its reference index.
    GetFieldRef(u32),
    /// `getfield` of an int or float: data byte offset.
    GetField4(u32),
    /// `getfield` of a long or double.
    GetField8(u32),
    /// `getfield` of a byte.
    GetFieldI8(u32),
    /// `getfield` of a boolean.
    GetFieldU8(u32),
    /// `getfield` of a char.
    GetFieldU16(u32),
    /// `getfield` of a short.
    GetFieldI16(u32),
    /// `putfield` of a reference.
    PutFieldRef(u32),
    /// `putfield` of an int or float.
    PutField4(u32),
    /// `putfield` of a long or double.
    PutField8(u32),
    /// `putfield` of a byte.
    PutField1(u32),
    /// `putfield` of a boolean (`& 1`).
    PutFieldBool(u32),
    /// `putfield` of a char or short.
    PutField2(u32),
    /// `getfield` of a volatile field (sequentially consistent).
    GetFieldVolatile {
        /// Reference index or data byte offset.
        off: u32,
        /// Kind.
        kind: Kind,
    },
    /// `putfield` of a volatile field.
    PutFieldVolatile {
        /// Reference index or data byte offset.
        off: u32,
        /// Kind.
        kind: Kind,
    },
    /// `invokestatic`.
    InvokeStatic(&'static Method),
    /// A call with no dispatch: `invokespecial`, and `invokevirtual` of a
    /// final or private method (receiver null-checked).
    InvokeDirect(&'static Method),
    /// `invokevirtual` through the receiver's vtable.
    InvokeVirtual {
        /// The resolved method (arguments, name for errors).
        method: &'static Method,
        /// Its vtable index.
        index: u32,
    },
    /// `invokeinterface` through the receiver's itable.
    InvokeInterface {
        /// The resolved interface method.
        method: &'static Method,
        /// Its index among its interface's methods.
        index: u32,
    },
    /// `new`.
    New(&'static Class),
    /// `newarray`: the array class of a primitive kind.
    NewArray(&'static Class),
    /// `anewarray`: the array class.
    ANewArray(&'static Class),
    /// `multianewarray`: the array class and the dimensions given.
    MultiANewArray(&'static Class, u8),
    /// `arraylength`
    ArrayLength,
    /// `athrow`
    AThrow,
    /// `checkcast`
    CheckCast(&'static Class),
    /// `instanceof`
    InstanceOf(&'static Class),
    /// `monitorenter`
    MonitorEnter,
    /// `monitorexit`
    MonitorExit,
    /// Throw `Decoded::errors[i]` (a resolution failed while decoding).
    Throw(u32),

    // Superinstructions (`decode::fuse`): a run of instructions javac
    // emits together, done in one dispatch. The fused instruction replaces
    // the run's first; the others stay in place, so a branch into the run
    // still finds them, and the fused one moves `pc` past them (before
    // anything that can throw, so a throw is at the run's last instruction,
    // whose reference map and handler ranges apply).
    /// `load a; load b` (one-slot locals).
    LoadLoad(u16, u16),
    /// `load2 a; load2 b` (long and double locals).
    Load2Load2(u16, u16),
    /// `iload a; iload b; if_icmp<c> t`.
    IfICmpLL {
        /// First local.
        a: u16,
        /// Second local.
        b: u16,
        /// Condition.
        c: Cond,
        /// Target.
        t: u32,
    },
    /// `iload a; <int constant v>; if_icmp<c> t`.
    IfICmpLC {
        /// The local.
        a: u16,
        /// Condition.
        c: Cond,
        /// The constant.
        v: i32,
        /// Target.
        t: u32,
    },
    /// `iload a; if<c> t`.
    IfL(u16, Cond, u32),
    /// `iload a; iload b; <int op>` for an operation that cannot throw.
    IArithLL(Arith, u16, u16),
    /// `iload a; <int constant v>; <int op>` for an operation that cannot
    /// throw.
    IArithLC(Arith, u16, i32),
    /// `aload a; getfield` of a reference (reference index).
    GetFieldRefL(u16, u32),
    /// `aload a; getfield` of an int or float (data byte offset).
    GetField4L(u16, u32),
    /// `aload a; getfield` of a long or double (data byte offset).
    GetField8L(u16, u32),
    /// `dload a; dload b; <double op>`.
    DArithLL(Arith, u16, u16),
}

impl Arith {
    /// The double operation (`+ - * / %`).
    #[inline(always)]
    pub fn double(self, a: f64, b: f64) -> f64 {
        match self {
            Arith::Add => a + b,
            Arith::Sub => a - b,
            Arith::Mul => a * b,
            Arith::Div => a / b,
            _ => a % b,
        }
    }

    /// Whether an int operation can throw (division by zero).
    pub fn int_can_throw(self) -> bool {
        matches!(self, Arith::Div | Arith::Rem)
    }

    /// The int operation, for one that cannot throw.
    #[inline(always)]
    pub fn int_nothrow(self, a: i32, b: i32) -> i32 {
        match self {
            Arith::Add => a.wrapping_add(b),
            Arith::Sub => a.wrapping_sub(b),
            Arith::Mul => a.wrapping_mul(b),
            Arith::Shl => a.wrapping_shl(b as u32 & 31),
            Arith::Shr => a.wrapping_shr(b as u32 & 31),
            Arith::Ushr => ((a as u32) >> (b as u32 & 31)) as i32,
            Arith::And => a & b,
            Arith::Or => a | b,
            Arith::Xor => a ^ b,
            // Never fused (`int_can_throw`).
            Arith::Div | Arith::Rem => 0,
        }
    }
}

/// A binary arithmetic or logic operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `>>>`
    Ushr,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
}

/// A conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Conv {
    I2L,
    I2F,
    I2D,
    L2I,
    L2F,
    L2D,
    F2I,
    F2L,
    F2D,
    D2I,
    D2L,
    D2F,
    I2B,
    I2C,
    I2S,
}

const _: () = assert!(std::mem::size_of::<Insn>() == 16, "an instruction is 16 bytes");

/// A switch's table.
#[derive(Clone, Debug)]
pub enum Switch {
    /// `tableswitch`.
    Table {
        /// Default target.
        default: u32,
        /// First key.
        low: i32,
        /// Targets from `low`.
        targets: Box<[u32]>,
    },
    /// `lookupswitch`, keys sorted.
    Lookup {
        /// Default target.
        default: u32,
        /// Keys.
        keys: Box<[i32]>,
        /// Targets, one per key.
        targets: Box<[u32]>,
    },
}

/// An exception handler, in instruction indices.
#[derive(Clone, Copy, Debug)]
pub struct Handler {
    /// First covered instruction.
    pub start: u32,
    /// End (exclusive).
    pub end: u32,
    /// Handler instruction.
    pub handler: u32,
    /// The class caught (`None`: any; also when the class failed to
    /// resolve, kept as `unresolved` so it matches nothing).
    pub catch: Option<&'static Class>,
    /// The catch type could not be resolved: the handler matches nothing.
    pub unresolved: bool,
}

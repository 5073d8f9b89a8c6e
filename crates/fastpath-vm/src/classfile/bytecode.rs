//! Bytecode (JVMS 6.5): the opcodes, and a decoder that walks a method's
//! code instruction by instruction, checking what the structure of the code
//! itself requires (JVMS 4.9.1): known opcodes, operands inside the code,
//! `tableswitch`/`lookupswitch` padding and ordering, `wide` only before the
//! instructions it may modify, branch targets inside the code. Whether a
//! target is an instruction start, and the type of every operand, are the
//! callers' (the verifier, the interpreter's pre-decoder).
//!
//! Where it sits: under the verifier (`classfile/verify/`) and the
//! interpreter's pre-decoder (`interp/decode.rs`), which both iterate with
//! [`decode_all`].

use super::error::{ClassFileError, Result};

/// Opcode values (JVMS chapter 6), named as the specification names them.
#[allow(missing_docs)]
pub mod op {
    pub const NOP: u8 = 0x00;
    pub const ACONST_NULL: u8 = 0x01;
    pub const ICONST_M1: u8 = 0x02;
    pub const ICONST_0: u8 = 0x03;
    pub const ICONST_1: u8 = 0x04;
    pub const ICONST_2: u8 = 0x05;
    pub const ICONST_3: u8 = 0x06;
    pub const ICONST_4: u8 = 0x07;
    pub const ICONST_5: u8 = 0x08;
    pub const LCONST_0: u8 = 0x09;
    pub const LCONST_1: u8 = 0x0a;
    pub const FCONST_0: u8 = 0x0b;
    pub const FCONST_1: u8 = 0x0c;
    pub const FCONST_2: u8 = 0x0d;
    pub const DCONST_0: u8 = 0x0e;
    pub const DCONST_1: u8 = 0x0f;
    pub const BIPUSH: u8 = 0x10;
    pub const SIPUSH: u8 = 0x11;
    pub const LDC: u8 = 0x12;
    pub const LDC_W: u8 = 0x13;
    pub const LDC2_W: u8 = 0x14;
    pub const ILOAD: u8 = 0x15;
    pub const LLOAD: u8 = 0x16;
    pub const FLOAD: u8 = 0x17;
    pub const DLOAD: u8 = 0x18;
    pub const ALOAD: u8 = 0x19;
    pub const ILOAD_0: u8 = 0x1a;
    pub const ILOAD_1: u8 = 0x1b;
    pub const LLOAD_0: u8 = 0x1e;
    pub const FLOAD_0: u8 = 0x22;
    pub const DLOAD_0: u8 = 0x26;
    pub const ALOAD_0: u8 = 0x2a;
    pub const ALOAD_1: u8 = 0x2b;
    pub const IALOAD: u8 = 0x2e;
    pub const LALOAD: u8 = 0x2f;
    pub const FALOAD: u8 = 0x30;
    pub const DALOAD: u8 = 0x31;
    pub const AALOAD: u8 = 0x32;
    pub const BALOAD: u8 = 0x33;
    pub const CALOAD: u8 = 0x34;
    pub const SALOAD: u8 = 0x35;
    pub const ISTORE: u8 = 0x36;
    pub const LSTORE: u8 = 0x37;
    pub const FSTORE: u8 = 0x38;
    pub const DSTORE: u8 = 0x39;
    pub const ASTORE: u8 = 0x3a;
    pub const ISTORE_0: u8 = 0x3b;
    pub const LSTORE_0: u8 = 0x3f;
    pub const FSTORE_0: u8 = 0x43;
    pub const DSTORE_0: u8 = 0x47;
    pub const ASTORE_0: u8 = 0x4b;
    pub const IASTORE: u8 = 0x4f;
    pub const LASTORE: u8 = 0x50;
    pub const FASTORE: u8 = 0x51;
    pub const DASTORE: u8 = 0x52;
    pub const AASTORE: u8 = 0x53;
    pub const BASTORE: u8 = 0x54;
    pub const CASTORE: u8 = 0x55;
    pub const SASTORE: u8 = 0x56;
    pub const POP: u8 = 0x57;
    pub const POP2: u8 = 0x58;
    pub const DUP: u8 = 0x59;
    pub const DUP_X1: u8 = 0x5a;
    pub const DUP_X2: u8 = 0x5b;
    pub const DUP2: u8 = 0x5c;
    pub const DUP2_X1: u8 = 0x5d;
    pub const DUP2_X2: u8 = 0x5e;
    pub const SWAP: u8 = 0x5f;
    pub const IADD: u8 = 0x60;
    pub const LADD: u8 = 0x61;
    pub const FADD: u8 = 0x62;
    pub const DADD: u8 = 0x63;
    pub const ISUB: u8 = 0x64;
    pub const LSUB: u8 = 0x65;
    pub const FSUB: u8 = 0x66;
    pub const DSUB: u8 = 0x67;
    pub const IMUL: u8 = 0x68;
    pub const LMUL: u8 = 0x69;
    pub const FMUL: u8 = 0x6a;
    pub const DMUL: u8 = 0x6b;
    pub const IDIV: u8 = 0x6c;
    pub const LDIV: u8 = 0x6d;
    pub const FDIV: u8 = 0x6e;
    pub const DDIV: u8 = 0x6f;
    pub const IREM: u8 = 0x70;
    pub const LREM: u8 = 0x71;
    pub const FREM: u8 = 0x72;
    pub const DREM: u8 = 0x73;
    pub const INEG: u8 = 0x74;
    pub const LNEG: u8 = 0x75;
    pub const FNEG: u8 = 0x76;
    pub const DNEG: u8 = 0x77;
    pub const ISHL: u8 = 0x78;
    pub const LSHL: u8 = 0x79;
    pub const ISHR: u8 = 0x7a;
    pub const LSHR: u8 = 0x7b;
    pub const IUSHR: u8 = 0x7c;
    pub const LUSHR: u8 = 0x7d;
    pub const IAND: u8 = 0x7e;
    pub const LAND: u8 = 0x7f;
    pub const IOR: u8 = 0x80;
    pub const LOR: u8 = 0x81;
    pub const IXOR: u8 = 0x82;
    pub const LXOR: u8 = 0x83;
    pub const IINC: u8 = 0x84;
    pub const I2L: u8 = 0x85;
    pub const I2F: u8 = 0x86;
    pub const I2D: u8 = 0x87;
    pub const L2I: u8 = 0x88;
    pub const L2F: u8 = 0x89;
    pub const L2D: u8 = 0x8a;
    pub const F2I: u8 = 0x8b;
    pub const F2L: u8 = 0x8c;
    pub const F2D: u8 = 0x8d;
    pub const D2I: u8 = 0x8e;
    pub const D2L: u8 = 0x8f;
    pub const D2F: u8 = 0x90;
    pub const I2B: u8 = 0x91;
    pub const I2C: u8 = 0x92;
    pub const I2S: u8 = 0x93;
    pub const LCMP: u8 = 0x94;
    pub const FCMPL: u8 = 0x95;
    pub const FCMPG: u8 = 0x96;
    pub const DCMPL: u8 = 0x97;
    pub const DCMPG: u8 = 0x98;
    pub const IFEQ: u8 = 0x99;
    pub const IFNE: u8 = 0x9a;
    pub const IFLT: u8 = 0x9b;
    pub const IFGE: u8 = 0x9c;
    pub const IFGT: u8 = 0x9d;
    pub const IFLE: u8 = 0x9e;
    pub const IF_ICMPEQ: u8 = 0x9f;
    pub const IF_ICMPNE: u8 = 0xa0;
    pub const IF_ICMPLT: u8 = 0xa1;
    pub const IF_ICMPGE: u8 = 0xa2;
    pub const IF_ICMPGT: u8 = 0xa3;
    pub const IF_ICMPLE: u8 = 0xa4;
    pub const IF_ACMPEQ: u8 = 0xa5;
    pub const IF_ACMPNE: u8 = 0xa6;
    pub const GOTO: u8 = 0xa7;
    pub const JSR: u8 = 0xa8;
    pub const RET: u8 = 0xa9;
    pub const TABLESWITCH: u8 = 0xaa;
    pub const LOOKUPSWITCH: u8 = 0xab;
    pub const IRETURN: u8 = 0xac;
    pub const LRETURN: u8 = 0xad;
    pub const FRETURN: u8 = 0xae;
    pub const DRETURN: u8 = 0xaf;
    pub const ARETURN: u8 = 0xb0;
    pub const RETURN: u8 = 0xb1;
    pub const GETSTATIC: u8 = 0xb2;
    pub const PUTSTATIC: u8 = 0xb3;
    pub const GETFIELD: u8 = 0xb4;
    pub const PUTFIELD: u8 = 0xb5;
    pub const INVOKEVIRTUAL: u8 = 0xb6;
    pub const INVOKESPECIAL: u8 = 0xb7;
    pub const INVOKESTATIC: u8 = 0xb8;
    pub const INVOKEINTERFACE: u8 = 0xb9;
    pub const INVOKEDYNAMIC: u8 = 0xba;
    pub const NEW: u8 = 0xbb;
    pub const NEWARRAY: u8 = 0xbc;
    pub const ANEWARRAY: u8 = 0xbd;
    pub const ARRAYLENGTH: u8 = 0xbe;
    pub const ATHROW: u8 = 0xbf;
    pub const CHECKCAST: u8 = 0xc0;
    pub const INSTANCEOF: u8 = 0xc1;
    pub const MONITORENTER: u8 = 0xc2;
    pub const MONITOREXIT: u8 = 0xc3;
    pub const WIDE: u8 = 0xc4;
    pub const MULTIANEWARRAY: u8 = 0xc5;
    pub const IFNULL: u8 = 0xc6;
    pub const IFNONNULL: u8 = 0xc7;
    pub const GOTO_W: u8 = 0xc8;
    pub const JSR_W: u8 = 0xc9;
    /// Not a JVM instruction: a `StringBuilder` chain fused into one
    /// concatenation (`interp/builder_fusion.rs`), which the pre-decoder
    /// alone writes (its operands [`super::Operands::Fused`]). It takes
    /// the reserved `impdep1`'s number, which [`super::decode_at`] refuses
    /// in a class file.
    pub const FUSED_CONCAT: u8 = 0xfe;
}

/// An instruction's operands, decoded (branch targets absolute).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operands {
    /// No operands (and the `_0`..`_3` forms, whose index is in the opcode).
    None,
    /// A local variable index (`iload`…, `ret`; `wide` forms too).
    Local(u16),
    /// `iinc`: local index and increment.
    Iinc(u16, i16),
    /// `bipush`: a signed byte; `sipush`: a signed short; `newarray`: the
    /// array type code (4 to 11).
    Immediate(i32),
    /// A constant-pool index (`ldc` widened; field, method, class refs).
    Cp(u16),
    /// `invokeinterface`: index and count (the zero byte checked).
    Interface(u16, u8),
    /// `multianewarray`: class index and dimensions.
    MultiArray(u16, u8),
    /// A branch target (absolute offset).
    Branch(u32),
    /// `tableswitch`: default, low, and one target per value from low to high.
    Table {
        /// The default target.
        default: u32,
        /// The first key.
        low: i32,
        /// Targets for low, low+1, ….
        targets: Vec<u32>,
    },
    /// `lookupswitch`: default and (key, target) pairs in increasing key order.
    Lookup {
        /// The default target.
        default: u32,
        /// The pairs.
        pairs: Vec<(i32, u32)>,
    },
    /// [`op::FUSED_CONCAT`]: which of the method's fused concatenations,
    /// and the stack slots its arguments take.
    Fused {
        /// The concatenation's index among the method's.
        site: u16,
        /// Its arguments' stack slots.
        slots: u16,
    },
}

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// Its offset in the code.
    pub pc: u32,
    /// The opcode (for a `wide` instruction, the modified opcode).
    pub opcode: u8,
    /// Whether it was prefixed by `wide`.
    pub wide: bool,
    /// Its length in bytes.
    pub len: u32,
    /// Its operands.
    pub operands: Operands,
}

fn verify_error(msg: String) -> ClassFileError {
    ClassFileError::format(msg)
}

/// Decodes every instruction of `code`, in order. Errors: an unknown
/// opcode, an instruction running past the end, a bad `wide`, unordered
/// `lookupswitch` keys, `low > high`, a branch target outside the code.
pub fn decode_all(code: &[u8]) -> Result<Vec<Instruction>> {
    let mut out = Vec::with_capacity(code.len() / 2 + 1);
    let mut pc = 0usize;
    while pc < code.len() {
        let insn = decode_at(code, pc)?;
        pc += insn.len as usize;
        out.push(insn);
    }
    Ok(out)
}

fn target(code: &[u8], pc: usize, offset: i64) -> Result<u32> {
    let t = pc as i64 + offset;
    if t < 0 || t >= code.len() as i64 {
        return Err(verify_error(format!(
            "Illegal target of jump or branch at bci {pc}"
        )));
    }
    Ok(t as u32)
}

/// Decodes the instruction at `pc`.
pub fn decode_at(code: &[u8], pc: usize) -> Result<Instruction> {
    let truncated = || verify_error(format!("Code truncated in the instruction at bci {pc}"));
    let byte = |i: usize| code.get(i).copied().ok_or_else(truncated);
    let u16_at = |i: usize| Ok::<u16, ClassFileError>(u16::from_be_bytes([byte(i)?, byte(i + 1)?]));
    let i32_at = |i: usize| {
        Ok::<i32, ClassFileError>(i32::from_be_bytes([
            byte(i)?,
            byte(i + 1)?,
            byte(i + 2)?,
            byte(i + 3)?,
        ]))
    };
    let opcode = byte(pc)?;
    use op::*;
    let (len, operands) = match opcode {
        NOP..=DCONST_1 => (1, Operands::None),
        BIPUSH => (2, Operands::Immediate(byte(pc + 1)? as i8 as i32)),
        SIPUSH => (3, Operands::Immediate(u16_at(pc + 1)? as i16 as i32)),
        LDC => (2, Operands::Cp(byte(pc + 1)? as u16)),
        LDC_W | LDC2_W => (3, Operands::Cp(u16_at(pc + 1)?)),
        ILOAD..=ALOAD | ISTORE..=ASTORE | RET => (2, Operands::Local(byte(pc + 1)? as u16)),
        0x1a..=0x2d | 0x3b..=0x4e => (1, Operands::None),
        IALOAD..=SALOAD | IASTORE..=LXOR => (1, Operands::None),
        IINC => (
            3,
            Operands::Iinc(byte(pc + 1)? as u16, byte(pc + 2)? as i8 as i16),
        ),
        I2L..=DCMPG => (1, Operands::None),
        IFEQ..=JSR | IFNULL | IFNONNULL => {
            let off = u16_at(pc + 1)? as i16 as i64;
            (3, Operands::Branch(target(code, pc, off)?))
        }
        GOTO_W | JSR_W => {
            let off = i32_at(pc + 1)? as i64;
            (5, Operands::Branch(target(code, pc, off)?))
        }
        TABLESWITCH => {
            let base = (pc + 4) & !3;
            let default = target(code, pc, i32_at(base)? as i64)?;
            let low = i32_at(base + 4)?;
            let high = i32_at(base + 8)?;
            if low > high {
                return Err(verify_error(format!("low > high in tableswitch at bci {pc}")));
            }
            let n = (high as i64 - low as i64 + 1) as usize;
            if base + 12 + 4 * n > code.len() {
                return Err(truncated());
            }
            let mut targets = Vec::with_capacity(n);
            for k in 0..n {
                targets.push(target(code, pc, i32_at(base + 12 + 4 * k)? as i64)?);
            }
            (
                (base + 12 + 4 * n - pc) as u32,
                Operands::Table {
                    default,
                    low,
                    targets,
                },
            )
        }
        LOOKUPSWITCH => {
            let base = (pc + 4) & !3;
            let default = target(code, pc, i32_at(base)? as i64)?;
            let npairs = i32_at(base + 4)?;
            if npairs < 0 {
                return Err(verify_error(format!(
                    "Negative npairs in lookupswitch at bci {pc}"
                )));
            }
            let n = npairs as usize;
            if base + 8 + 8 * n > code.len() {
                return Err(truncated());
            }
            let mut pairs: Vec<(i32, u32)> = Vec::with_capacity(n);
            for k in 0..n {
                let key = i32_at(base + 8 + 8 * k)?;
                if let Some(&(prev, _)) = pairs.last() {
                    if key <= prev {
                        return Err(verify_error(format!("Unsorted lookupswitch keys at bci {pc}")));
                    }
                }
                pairs.push((key, target(code, pc, i32_at(base + 12 + 8 * k)? as i64)?));
            }
            (
                (base + 8 + 8 * n - pc) as u32,
                Operands::Lookup { default, pairs },
            )
        }
        IRETURN..=RETURN => (1, Operands::None),
        GETSTATIC..=INVOKESTATIC | NEW | ANEWARRAY | CHECKCAST | INSTANCEOF => {
            (3, Operands::Cp(u16_at(pc + 1)?))
        }
        INVOKEINTERFACE => {
            let count = byte(pc + 3)?;
            if byte(pc + 4)? != 0 || count == 0 {
                return Err(verify_error(format!("Bad invokeinterface operands at bci {pc}")));
            }
            (5, Operands::Interface(u16_at(pc + 1)?, count))
        }
        INVOKEDYNAMIC => {
            if byte(pc + 3)? != 0 || byte(pc + 4)? != 0 {
                return Err(verify_error(format!("Bad invokedynamic operands at bci {pc}")));
            }
            (5, Operands::Cp(u16_at(pc + 1)?))
        }
        NEWARRAY => {
            let t = byte(pc + 1)?;
            if !(4..=11).contains(&t) {
                return Err(verify_error(format!("Bad newarray type {t} at bci {pc}")));
            }
            (2, Operands::Immediate(t as i32))
        }
        ARRAYLENGTH | ATHROW | MONITORENTER | MONITOREXIT => (1, Operands::None),
        MULTIANEWARRAY => {
            let dims = byte(pc + 3)?;
            if dims == 0 {
                return Err(verify_error(format!(
                    "multianewarray with 0 dimensions at bci {pc}"
                )));
            }
            (4, Operands::MultiArray(u16_at(pc + 1)?, dims))
        }
        WIDE => {
            let modified = byte(pc + 1)?;
            let index = u16_at(pc + 2)?;
            let (len, operands) = match modified {
                ILOAD..=ALOAD | ISTORE..=ASTORE | RET => (4, Operands::Local(index)),
                IINC => (6, Operands::Iinc(index, u16_at(pc + 4)? as i16)),
                other => {
                    return Err(verify_error(format!(
                        "Bad instruction after wide: {other:#04x} at bci {pc}"
                    )))
                }
            };
            return Ok(Instruction {
                pc: pc as u32,
                opcode: modified,
                wide: true,
                len,
                operands,
            });
        }
        other => {
            return Err(verify_error(format!("Bad instruction: {other:#04x} at bci {pc}")));
        }
    };
    if pc + len as usize > code.len() {
        return Err(truncated());
    }
    Ok(Instruction {
        pc: pc as u32,
        opcode,
        wide: false,
        len,
        operands,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_switches_wide_and_branches() {
        // 0: iload_0; 1: tableswitch (pad to 4) default +15, 0..1 -> +15, +15;
        // 24: wide iinc 300, -2; 30: goto -30; 33: return
        let mut code = vec![op::ILOAD_0, op::TABLESWITCH, 0, 0];
        code.extend_from_slice(&23i32.to_be_bytes());
        code.extend_from_slice(&0i32.to_be_bytes());
        code.extend_from_slice(&1i32.to_be_bytes());
        code.extend_from_slice(&23i32.to_be_bytes());
        code.extend_from_slice(&23i32.to_be_bytes());
        assert_eq!(code.len(), 24);
        code.extend_from_slice(&[op::WIDE, op::IINC, 1, 44, 0xff, 0xfe]);
        code.extend_from_slice(&[op::GOTO, 0xff, 0xe2]); // -30 from 30 -> 0
        code.push(op::RETURN);
        let insns = decode_all(&code).unwrap();
        let pcs: Vec<u32> = insns.iter().map(|i| i.pc).collect();
        assert_eq!(pcs, [0, 1, 24, 30, 33]);
        assert_eq!(
            insns[1].operands,
            Operands::Table {
                default: 24,
                low: 0,
                targets: vec![24, 24]
            }
        );
        assert_eq!(insns[2].operands, Operands::Iinc(300, -2));
        assert_eq!(insns[3].operands, Operands::Branch(0));
        // A branch outside the code, an unknown opcode, a truncated operand.
        assert!(decode_all(&[op::GOTO, 0, 9]).is_err());
        assert!(decode_all(&[0xcb]).is_err());
        // The pre-decoder's own fused concatenation is no class file's.
        assert!(decode_all(&[op::FUSED_CONCAT]).is_err());
        assert!(decode_all(&[op::SIPUSH, 1]).is_err());
        assert!(decode_all(&[op::WIDE, op::NOP, 0, 0]).is_err());
    }
}

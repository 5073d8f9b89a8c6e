//! `NullPointerException`s thrown by bytecodes, with the message HotSpot
//! computes (JEP 358's helpful messages): what the instruction could not
//! do, and, where the null came from a local, a field, an array element
//! or a method's result, which one.
//!
//! Where it sits: the dispatch loop calls [`JThread::throw_npe`] with the
//! failing instruction; the message is computed there, from the
//! instruction and the bytecode that pushed the null (found by walking the
//! method's straight-line code backwards, HotSpot's
//! `ExceptionMessageBuilder` in simpler form).

use fastpath::gc::BarrierSet;

use super::decode::Decoded;
use super::insn::Insn;
use crate::runtime::{JThread, Thrown};

impl<B: BarrierSet> JThread<B> {
    /// Throws the `NullPointerException` of instruction `at` of `d`.
    #[cold]
    pub fn throw_npe(&mut self, at: *const Insn, d: &'static Decoded) -> Thrown {
        let msg = npe_message(self, at, d);
        self.throw_new("java/lang/NullPointerException", msg.as_deref())
    }
}

fn npe_message<B: BarrierSet>(t: &JThread<B>, at: *const Insn, d: &'static Decoded) -> Option<String> {
    let top = t.stack.top_frame.get();
    if top.is_null() {
        return None;
    }
    // SAFETY: the current frame's header.
    let method = unsafe { (*top).method };
    let idx = (at as usize).wrapping_sub(d.insns.as_ptr() as usize) / std::mem::size_of::<Insn>();
    let bci = *d.bcis.get(idx)?;
    npe_text_impl::describe(method, bci)
}

/// The message text, from the method's bytecode (`None`: no message).
pub mod npe_text_impl {
    use crate::classfile::bytecode::{self, op, Instruction, Operands};
    use crate::classfile::{ConstantPool, FieldType, MethodDescriptor};
    use crate::link::Method;

    /// Who pushed each stack slot (bytecode offsets; `None` when paths
    /// disagree).
    pub(crate) type Producers = Vec<Option<u32>>;

    /// HotSpot's `print_klass_name`: Object and String without their
    /// package, every other class with it.
    fn strip_lang(name: &str) -> String {
        let n = name.replace('/', ".");
        match n.as_str() {
            "java.lang.Object" => "Object".into(),
            "java.lang.String" => "String".into(),
            _ => n,
        }
    }

    fn type_name(t: &FieldType) -> String {
        match t {
            FieldType::Object(n) => strip_lang(n),
            FieldType::Array(c) => format!("{}[]", type_name(c)),
            other => crate::link::resolve::pretty_type(other),
        }
    }

    fn method_text(m: &Method, r: &crate::classfile::MemberRef<'_>) -> String {
        let _ = m;
        let params = MethodDescriptor::parse(r.descriptor)
            .map(|d| d.params.iter().map(type_name).collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        format!("{}.{}({})", strip_lang(r.class), r.name, params)
    }

    /// Stack effect of `insn` on producer lists (pops, then pushes `push`
    /// slots produced by this instruction), or `None` to stop the
    /// analysis (an instruction it does not follow). Branches and returns
    /// pop nothing here (the successor computation pops a branch's
    /// operands). Also the stack model of `builder_fusion.rs`.
    pub(crate) fn effect(cp: &ConstantPool, insn: &Instruction, st: &mut Producers) -> Option<()> {
        let pc = Some(insn.pc);
        let o = insn.opcode;
        let pop = |st: &mut Producers, n: usize| -> Option<()> {
            if st.len() < n {
                return None;
            }
            st.truncate(st.len() - n);
            Some(())
        };
        let push = |st: &mut Producers, n: usize| {
            for _ in 0..n {
                st.push(pc);
            }
        };
        match o {
            op::NOP => {}
            op::ACONST_NULL..=op::SIPUSH => push(
                st,
                if matches!(o, op::LCONST_0 | op::LCONST_1 | op::DCONST_0 | op::DCONST_1) {
                    2
                } else {
                    1
                },
            ),
            op::LDC | op::LDC_W => push(st, 1),
            op::LDC2_W => push(st, 2),
            op::ILOAD..=0x2d => {
                let wide = matches!(o, op::LLOAD | op::DLOAD)
                    || (0x1e..=0x21).contains(&o)
                    || (0x26..=0x29).contains(&o);
                push(st, if wide { 2 } else { 1 })
            }
            op::IALOAD..=op::SALOAD => {
                pop(st, 2)?;
                push(
                    st,
                    if matches!(o, op::LALOAD | op::DALOAD) {
                        2
                    } else {
                        1
                    },
                )
            }
            op::ISTORE..=0x4e => {
                let wide = matches!(o, op::LSTORE | op::DSTORE)
                    || (0x3f..=0x42).contains(&o)
                    || (0x47..=0x4a).contains(&o);
                pop(st, if wide { 2 } else { 1 })?
            }
            op::IASTORE..=op::SASTORE => pop(
                st,
                if matches!(o, op::LASTORE | op::DASTORE) {
                    4
                } else {
                    3
                },
            )?,
            op::POP => pop(st, 1)?,
            op::POP2 => pop(st, 2)?,
            op::DUP => {
                let a = *st.last()?;
                st.push(a);
            }
            op::DUP_X1..=op::SWAP => return None,
            op::IADD..=op::DREM | op::ISHL..=op::LXOR => {
                let (a, r) = match o {
                    op::LADD
                    | op::LSUB
                    | op::LMUL
                    | op::LDIV
                    | op::LREM
                    | op::DADD
                    | op::DSUB
                    | op::DMUL
                    | op::DDIV
                    | op::DREM
                    | op::LAND
                    | op::LOR
                    | op::LXOR => (4, 2),
                    op::LSHL | op::LSHR | op::LUSHR => (3, 2),
                    _ => (2, 1),
                };
                pop(st, a)?;
                push(st, r)
            }
            op::INEG..=op::DNEG => {}
            op::IINC => {}
            op::I2L..=op::I2S => {
                let (a, r) = match o {
                    op::I2L | op::I2D | op::F2L | op::F2D => (1, 2),
                    op::L2I | op::L2F | op::D2I | op::D2F => (2, 1),
                    op::L2D | op::D2L => (2, 2),
                    _ => (1, 1),
                };
                pop(st, a)?;
                push(st, r)
            }
            op::LCMP | op::DCMPL | op::DCMPG => {
                pop(st, 4)?;
                push(st, 1)
            }
            op::FCMPL | op::FCMPG => {
                pop(st, 2)?;
                push(st, 1)
            }
            op::GETSTATIC | op::GETFIELD | op::PUTSTATIC | op::PUTFIELD => {
                let Operands::Cp(i) = insn.operands else {
                    return None;
                };
                let (_, r) = cp.member_ref(i).ok()?;
                let n = FieldType::parse(r.descriptor).ok()?.slots();
                match o {
                    op::GETSTATIC => push(st, n),
                    op::GETFIELD => {
                        pop(st, 1)?;
                        push(st, n)
                    }
                    op::PUTSTATIC => pop(st, n)?,
                    _ => pop(st, n + 1)?,
                }
            }
            op::INVOKEVIRTUAL..=op::INVOKEDYNAMIC => {
                let i = match insn.operands {
                    Operands::Cp(i) | Operands::Interface(i, _) => i,
                    _ => return None,
                };
                let desc = if o == op::INVOKEDYNAMIC {
                    match cp.get(i).ok()? {
                        crate::classfile::Constant::InvokeDynamic(d) => {
                            cp.name_and_type(d.name_and_type).ok()?.1.to_string()
                        }
                        _ => return None,
                    }
                } else {
                    cp.member_ref(i).ok()?.1.descriptor.to_string()
                };
                let d = MethodDescriptor::parse(&desc).ok()?;
                let recv = usize::from(o != op::INVOKESTATIC && o != op::INVOKEDYNAMIC);
                pop(st, d.arg_slots() + recv)?;
                push(st, d.ret_slots())
            }
            op::NEW => push(st, 1),
            // The cast value is still the original's: its producer stays.
            op::CHECKCAST => {}
            op::NEWARRAY | op::ANEWARRAY | op::INSTANCEOF | op::ARRAYLENGTH => {
                pop(st, 1)?;
                push(st, 1)
            }
            op::MONITORENTER | op::MONITOREXIT => pop(st, 1)?,
            // Branches pop in the successor computation; returns and
            // athrow end the path.
            op::IFEQ..=op::LOOKUPSWITCH | op::IFNULL | op::IFNONNULL | op::GOTO_W => {}
            op::IRETURN..=op::RETURN | op::ATHROW => {}
            op::MULTIANEWARRAY => {
                let Operands::MultiArray(_, dims) = insn.operands else {
                    return None;
                };
                pop(st, dims as usize)?;
                push(st, 1)
            }
            _ => return None,
        }
        Some(())
    }

    /// Entry producer stacks by instruction index (forward, merging
    /// disagreements to `None`).
    fn producers(m: &Method, insns: &[Instruction], index_of: &[u32]) -> Vec<Option<Producers>> {
        let mut entry: Vec<Option<Producers>> = vec![None; insns.len()];
        if insns.is_empty() {
            return entry;
        }
        entry[0] = Some(Vec::new());
        let code = m.code.as_ref().expect("code");
        for h in &code.exception_table {
            if let Some(&i) = index_of.get(h.handler_pc as usize) {
                if i != u32::MAX {
                    entry[i as usize] = Some(vec![None]);
                }
            }
        }
        let mut work = vec![0usize];
        for h in &code.exception_table {
            if let Some(&i) = index_of.get(h.handler_pc as usize) {
                if i != u32::MAX {
                    work.push(i as usize);
                }
            }
        }
        let mut visits = 0;
        while let Some(i) = work.pop() {
            visits += 1;
            if visits > insns.len() * 8 {
                break;
            }
            let Some(mut st) = entry[i].clone() else { continue };
            let insn = &insns[i];
            if effect(m.class.cp(), insn, &mut st).is_none() {
                continue;
            }
            let mut succ = Vec::new();
            let o = insn.opcode;
            let ends = matches!(
                o,
                op::GOTO | op::GOTO_W | op::TABLESWITCH | op::LOOKUPSWITCH | op::ATHROW
            ) || (op::IRETURN..=op::RETURN).contains(&o);
            if !ends && i + 1 < insns.len() {
                succ.push(i + 1);
            }
            match &insn.operands {
                Operands::Branch(t) => {
                    // Conditional branches pop their operands first.
                    let n = match o {
                        op::IFEQ..=op::IFLE | op::IFNULL | op::IFNONNULL => 1,
                        op::IF_ICMPEQ..=op::IF_ACMPNE => 2,
                        _ => 0,
                    };
                    if st.len() < n {
                        continue;
                    }
                    st.truncate(st.len() - n);
                    succ.push(index_of[*t as usize] as usize);
                }
                Operands::Table { default, targets, .. } => {
                    st.pop();
                    succ.push(index_of[*default as usize] as usize);
                    succ.extend(targets.iter().map(|&t| index_of[t as usize] as usize));
                }
                Operands::Lookup { default, pairs } => {
                    st.pop();
                    succ.push(index_of[*default as usize] as usize);
                    succ.extend(pairs.iter().map(|p| index_of[p.1 as usize] as usize));
                }
                _ => {}
            }
            for s in succ {
                match &mut entry[s] {
                    None => {
                        entry[s] = Some(st.clone());
                        work.push(s);
                    }
                    Some(e) => {
                        if e.len() != st.len() {
                            continue;
                        }
                        let mut changed = false;
                        for (a, b) in e.iter_mut().zip(&st) {
                            if *a != *b && a.is_some() {
                                *a = None;
                                changed = true;
                            }
                        }
                        if changed {
                            work.push(s);
                        }
                    }
                }
            }
        }
        entry
    }

    fn local_name(m: &Method, n: usize) -> String {
        if !m.is_static() && n == 0 {
            return "this".into();
        }
        let first = usize::from(!m.is_static());
        let mut slot = first;
        for (i, p) in m.desc.params.iter().enumerate() {
            if slot == n {
                return format!("<parameter{}>", i + 1);
            }
            slot += p.slots();
        }
        format!("<local{n}>")
    }

    /// Describes the value pushed by the instruction at `bci`.
    fn source(
        m: &Method,
        insns: &[Instruction],
        index_of: &[u32],
        entry: &[Option<Producers>],
        bci: u32,
        depth: u32,
    ) -> Option<String> {
        if depth > 4 {
            return None;
        }
        let i = *index_of.get(bci as usize)? as usize;
        let insn = insns.get(i)?;
        let cp = m.class.cp();
        let o = insn.opcode;
        let operand = |k: usize| -> Option<u32> {
            let st = entry[i].as_ref()?;
            st.get(st.len().checked_sub(k + 1)?).copied().flatten()
        };
        Some(match o {
            op::ACONST_NULL => "null".into(),
            op::ALOAD | op::ALOAD_0..=0x2d => {
                let n = super::super::oopmap::local_index(insn, o);
                local_name(m, n)
            }
            op::ICONST_M1..=op::ICONST_5 => (o as i32 - op::ICONST_0 as i32).to_string(),
            op::BIPUSH | op::SIPUSH => match insn.operands {
                Operands::Immediate(v) => v.to_string(),
                _ => return None,
            },
            op::ILOAD | op::ILOAD_0..=0x1d => local_name(m, super::super::oopmap::local_index(insn, o)),
            op::GETSTATIC => {
                let Operands::Cp(k) = insn.operands else {
                    return None;
                };
                let (_, r) = cp.member_ref(k).ok()?;
                format!("{}.{}", strip_lang(r.class), r.name)
            }
            op::GETFIELD => {
                let Operands::Cp(k) = insn.operands else {
                    return None;
                };
                let (_, r) = cp.member_ref(k).ok()?;
                match operand(0).and_then(|p| source(m, insns, index_of, entry, p, depth + 1)) {
                    Some(obj) => format!("{obj}.{}", r.name),
                    None => r.name.to_string(),
                }
            }
            op::AALOAD => {
                let arr = operand(1).and_then(|p| source(m, insns, index_of, entry, p, depth + 1))?;
                let idx = operand(0)
                    .and_then(|p| source(m, insns, index_of, entry, p, depth + 1))
                    .unwrap_or_else(|| "...".into());
                format!("{arr}[{idx}]")
            }
            op::INVOKEVIRTUAL..=op::INVOKEINTERFACE => {
                let k = match insn.operands {
                    Operands::Cp(k) | Operands::Interface(k, _) => k,
                    _ => return None,
                };
                let (_, r) = cp.member_ref(k).ok()?;
                return Some(format!("the return value of \"{}\"", method_text(m, &r)));
            }
            _ => return None,
        })
        .map(|s| if depth == 0 { format!("\"{s}\"") } else { s })
    }

    /// The helpful message for a null dereference by the instruction at
    /// `bci` of `m`.
    pub fn describe(m: &Method, bci: u32) -> Option<String> {
        let code = m.code.as_ref()?;
        let insns = bytecode::decode_all(&code.code).ok()?;
        let mut index_of = vec![u32::MAX; code.code.len()];
        for (k, insn) in insns.iter().enumerate() {
            index_of[insn.pc as usize] = k as u32;
        }
        let i = *index_of.get(bci as usize)? as usize;
        let insn = &insns[i];
        let cp = m.class.cp();
        let o = insn.opcode;
        let elem = |o: u8| match o {
            op::IALOAD | op::IASTORE => "int",
            op::LALOAD | op::LASTORE => "long",
            op::FALOAD | op::FASTORE => "float",
            op::DALOAD | op::DASTORE => "double",
            op::AALOAD | op::AASTORE => "object",
            op::BALOAD | op::BASTORE => "byte/boolean",
            op::CALOAD | op::CASTORE => "char",
            _ => "short",
        };
        let (action, slot_from_top) = match o {
            op::GETFIELD => {
                let Operands::Cp(k) = insn.operands else {
                    return None;
                };
                (
                    format!("Cannot read field \"{}\"", cp.member_ref(k).ok()?.1.name),
                    0,
                )
            }
            op::PUTFIELD => {
                let Operands::Cp(k) = insn.operands else {
                    return None;
                };
                let (_, r) = cp.member_ref(k).ok()?;
                let n = FieldType::parse(r.descriptor).ok()?.slots();
                (format!("Cannot assign field \"{}\"", r.name), n)
            }
            op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKEINTERFACE => {
                let k = match insn.operands {
                    Operands::Cp(k) | Operands::Interface(k, _) => k,
                    _ => return None,
                };
                let (_, r) = cp.member_ref(k).ok()?;
                let d = MethodDescriptor::parse(r.descriptor).ok()?;
                (format!("Cannot invoke \"{}\"", method_text(m, &r)), d.arg_slots())
            }
            op::IALOAD..=op::SALOAD => (format!("Cannot load from {} array", elem(o)), 1),
            op::IASTORE..=op::SASTORE => (
                format!("Cannot store to {} array", elem(o)),
                if matches!(o, op::LASTORE | op::DASTORE) {
                    3
                } else {
                    2
                },
            ),
            op::ARRAYLENGTH => ("Cannot read the array length".to_string(), 0),
            op::ATHROW => ("Cannot throw exception".to_string(), 0),
            op::MONITORENTER => ("Cannot enter synchronized block".to_string(), 0),
            op::MONITOREXIT => ("Cannot exit synchronized block".to_string(), 0),
            _ => return None,
        };
        let entry = producers(m, &insns, &index_of);
        let because = entry[i]
            .as_ref()
            .and_then(|st| {
                st.get(st.len().checked_sub(slot_from_top + 1)?)
                    .copied()
                    .flatten()
            })
            .and_then(|p| source(m, &insns, &index_of, &entry, p, 0));
        Some(match because {
            Some(b) => format!("{action} because {b} is null"),
            None => action,
        })
    }
}

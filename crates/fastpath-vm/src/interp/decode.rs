//! The pre-decoder: a method's bytecode into [`Insn`]s with resolved
//! operands, its exception table into instruction ranges with resolved
//! classes, and its reference maps, when the method first runs.
//!
//! Where it sits: between linking and the dispatch loop. It resolves every
//! symbolic reference of the code (loading classes, never initializing
//! them: that is the instructions' first execution), and a reference that
//! fails to resolve becomes an [`Insn::Throw`] of its error where it
//! stands, so the error is thrown only if that instruction runs (JVMS
//! 5.4.3). It allocates nothing on the heap: string literals get a global
//! slot that the first `ldc` to run fills (`strings.rs`).
//!
//! Preconditions the dispatch loop relies on, checked here or by the
//! reference-map analysis (`oopmap.rs`): every branch target and handler
//! is an instruction; every constant-pool operand has the kind its
//! instruction needs; stack discipline (depth, references where
//! dereferenced, category-2 values kept whole). Left to the type checker
//! (`classfile/verify/`): that each reference's class fits its use (a
//! field's object is an instance of the field's class, an array
//! instruction's array has its element kind, an `invokespecial`'s
//! receiver is initialized), and `protected` access.

use std::sync::atomic::AtomicUsize;

use fastpath::gc::BarrierSet;

use super::insn::{Arith, Cond, Conv, Handler, Insn, Switch};
use super::oopmap::{self, MethodShape, OopMaps};
use super::profile::CallProfile;
use crate::classfile::bytecode::{self, op, Instruction, Operands};
use crate::classfile::Constant;
use crate::link::resolve::{resolve_class, resolve_field, resolve_method};
use crate::link::{Class, Kind, Method};
use crate::runtime::{Error, JThread};

/// Set in a branch target that jumps backward (`exec.rs` polls there).
pub const BACKWARD: u32 = 1 << 31;

/// A method ready to run.
#[derive(Debug)]
pub struct Decoded {
    /// The instructions.
    pub insns: Box<[Insn]>,
    /// Bytecode offset of each instruction.
    pub bcis: Box<[u32]>,
    /// Exception handlers, in table order.
    pub handlers: Box<[Handler]>,
    /// Reference maps.
    pub maps: OopMaps,
    /// `max_locals`.
    pub max_locals: u16,
    /// `max_stack`.
    pub max_stack: u16,
    /// Switch tables.
    pub switches: Box<[Switch]>,
    /// Errors thrown by `Insn::Throw`.
    pub errors: Box<[Error]>,
    /// How often the interpreter ran each call, and the receiver classes
    /// it saw at each virtual and interface call (`profile.rs`).
    pub calls: CallProfile,
    /// The bytecode the instructions were decoded from, where
    /// `builder_fusion.rs` rewrote the method's (the JIT reads these; `None`:
    /// the method's own code, index for index).
    pub fused: Option<Box<[Instruction]>>,
}

fn kind_of_newarray(t: i32) -> Kind {
    match t {
        4 => Kind::Boolean,
        5 => Kind::Char,
        6 => Kind::Float,
        7 => Kind::Double,
        8 => Kind::Byte,
        9 => Kind::Short,
        10 => Kind::Int,
        _ => Kind::Long,
    }
}

impl<B: BarrierSet> JThread<B> {
    /// Decodes `m` (its code, resolved; its reference maps). Errors are the
    /// `VerifyError`s of a method that cannot run at all.
    pub fn decode(&self, m: &'static Method) -> Result<Decoded, Error> {
        let code = m.code.as_ref().ok_or_else(|| Error::verify("no code"))?;
        let class = m.class;
        let cp = class.cp();
        let mut raw = bytecode::decode_all(&code.code)
            .map_err(|e| Error::verify(format!("{e} in method {}", m.name)))?;
        let (mut max_locals, mut max_stack) = (code.max_locals, code.max_stack);
        let mut concat_sites: Vec<&'static Method> = Vec::new();
        if !self.vm.options.xx.no_optimize_string_concat {
            if let Some((f, sites)) = self.fuse_builders(m, &raw) {
                (raw, max_locals, max_stack) = (f.insns, f.max_locals, f.max_stack);
                concat_sites = sites;
            }
        }
        let fused = !concat_sites.is_empty();
        // An offset maps to the first instruction that has it (a fused
        // `toString`'s offset is carried by the instructions that replace it).
        let mut index_of = vec![u32::MAX; code.code.len()];
        for (i, insn) in raw.iter().enumerate() {
            let slot = &mut index_of[insn.pc as usize];
            if *slot == u32::MAX {
                *slot = i as u32;
            }
        }
        let shape = MethodShape {
            insns: &raw,
            index_of: &index_of,
            max_locals: max_locals as usize,
            max_stack: max_stack as usize,
            handlers: &code.exception_table,
            desc: &m.desc,
            is_static: m.is_static(),
            cp,
        };
        let maps = oopmap::compute(&shape).map_err(|e| {
            Error::verify(format!(
                "{} in method {}.{}{}",
                e.message.unwrap_or_default(),
                class.java_name(),
                m.name,
                m.descriptor
            ))
        })?;
        let target = |pc: u32| index_of[pc as usize];
        let mut errors: Vec<Error> = Vec::new();
        let mut switches = Vec::new();
        let mut insns = Vec::with_capacity(raw.len());
        for insn in &raw {
            if let (op::FUSED_CONCAT, Operands::Fused { site, .. }) = (insn.opcode, &insn.operands) {
                insns.push(Insn::InvokeStatic(concat_sites[*site as usize]));
                continue;
            }
            let i = match self.translate(m, insn, &target, &mut switches) {
                Ok(i) => i,
                Err(e) => {
                    errors.push(e);
                    Insn::Throw(errors.len() as u32 - 1)
                }
            };
            insns.push(i);
        }
        fuse(&mut insns);
        let mut handlers = Vec::with_capacity(code.exception_table.len());
        for h in &code.exception_table {
            let (catch, unresolved) = if h.catch_type == 0 {
                (None, false)
            } else {
                match resolve_class(&self.vm.loader, class, h.catch_type) {
                    Ok(c) => (Some(c), false),
                    Err(_) => (None, true),
                }
            };
            handlers.push(Handler {
                start: target(h.start_pc as u32),
                end: if h.end_pc as usize == code.code.len() {
                    raw.len() as u32
                } else {
                    target(h.end_pc as u32)
                },
                handler: target(h.handler_pc as u32),
                catch,
                unresolved,
            });
        }
        Ok(Decoded {
            calls: CallProfile::for_insns(&insns),
            insns: insns.into_boxed_slice(),
            bcis: raw.iter().map(|i| i.pc).collect(),
            handlers: handlers.into_boxed_slice(),
            maps,
            max_locals,
            max_stack,
            switches: switches.into_boxed_slice(),
            errors: errors.into_boxed_slice(),
            fused: fused.then(|| raw.into_boxed_slice()),
        })
    }

    /// `m`'s bytecode with its `StringBuilder` chains fused, and each
    /// concatenation's factory (`builder_fusion.rs`); `None` when it has
    /// none, or when a factory's class could not be made (the method then
    /// runs as written).
    fn fuse_builders(
        &self,
        m: &'static Method,
        raw: &[Instruction],
    ) -> Option<(super::builder_fusion::Fused, Vec<&'static Method>)> {
        let code = m.code.as_ref()?;
        let fused = super::builder_fusion::fuse(&super::builder_fusion::Code {
            cp: m.class.cp(),
            insns: raw,
            handlers: &code.exception_table,
            len: code.code.len(),
            max_locals: code.max_locals,
            max_stack: code.max_stack,
        })?;
        let sites = fused
            .sites
            .iter()
            .map(|s| crate::link::indy::spin_concat(self.vm, m.class, &s.descriptor(), &s.pieces))
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        Some((fused, sites))
    }

    fn translate(
        &self,
        m: &'static Method,
        insn: &Instruction,
        target: &dyn Fn(u32) -> u32,
        switches: &mut Vec<Switch>,
    ) -> Result<Insn, Error> {
        let class = m.class;
        let loader = &self.vm.loader;
        let o = insn.opcode;
        let cp_index = || match insn.operands {
            Operands::Cp(i) | Operands::Interface(i, _) | Operands::MultiArray(i, _) => i,
            _ => 0,
        };
        // A backward branch (a loop's back edge) carries `BACKWARD`: the
        // dispatch loop polls for safepoints on it.
        let br = || match insn.operands {
            Operands::Branch(t) => {
                let to = target(t);
                if t <= insn.pc {
                    to | BACKWARD
                } else {
                    to
                }
            }
            _ => 0,
        };
        let local = || oopmap::local_index(insn, o) as u16;
        Ok(match o {
            op::NOP => Insn::Nop,
            op::ACONST_NULL => Insn::Null,
            op::ICONST_M1..=op::ICONST_5 => Insn::Iconst(o as i32 - op::ICONST_0 as i32),
            op::LCONST_0 | op::LCONST_1 => Insn::Lconst((o - op::LCONST_0) as i64),
            op::FCONST_0..=op::FCONST_2 => Insn::Fconst(((o - op::FCONST_0) as f32).to_bits()),
            op::DCONST_0 | op::DCONST_1 => Insn::Dconst(((o - op::DCONST_0) as f64).to_bits()),
            op::BIPUSH | op::SIPUSH => match insn.operands {
                Operands::Immediate(v) => Insn::Iconst(v),
                _ => unreachable!("push operand"),
            },
            op::LDC | op::LDC_W | op::LDC2_W => self.translate_ldc(class, cp_index())?,
            op::ILOAD
            | op::FLOAD
            | op::ALOAD
            | op::ILOAD_0..=0x1d
            | op::FLOAD_0..=0x25
            | op::ALOAD_0..=0x2d => Insn::Load(local()),
            op::LLOAD | op::DLOAD | op::LLOAD_0..=0x21 | op::DLOAD_0..=0x29 => Insn::Load2(local()),
            op::ISTORE
            | op::FSTORE
            | op::ASTORE
            | op::ISTORE_0..=0x3e
            | op::FSTORE_0..=0x46
            | op::ASTORE_0..=0x4e => Insn::Store(local()),
            op::LSTORE | op::DSTORE | op::LSTORE_0..=0x42 | op::DSTORE_0..=0x4a => Insn::Store2(local()),
            op::IALOAD | op::FALOAD => Insn::ALoad4,
            op::LALOAD | op::DALOAD => Insn::ALoad8,
            op::AALOAD => Insn::ALoadRef,
            // baload serves byte and boolean arrays (booleans hold 0 or 1,
            // the same sign-extended).
            op::BALOAD => Insn::ALoadI8,
            op::CALOAD => Insn::ALoadU16,
            op::SALOAD => Insn::ALoadI16,
            op::IASTORE | op::FASTORE => Insn::AStore4,
            op::LASTORE | op::DASTORE => Insn::AStore8,
            op::AASTORE => Insn::AStoreRef,
            op::BASTORE => Insn::AStore8Bit,
            op::CASTORE | op::SASTORE => Insn::AStore16,
            op::POP => Insn::Pop,
            op::POP2 => Insn::Pop2,
            op::DUP => Insn::Dup,
            op::DUP_X1 => Insn::DupX1,
            op::DUP_X2 => Insn::DupX2,
            op::DUP2 => Insn::Dup2,
            op::DUP2_X1 => Insn::Dup2X1,
            op::DUP2_X2 => Insn::Dup2X2,
            op::SWAP => Insn::Swap,
            op::IADD..=op::DREM => {
                let a = [Arith::Add, Arith::Sub, Arith::Mul, Arith::Div, Arith::Rem]
                    [((o - op::IADD) / 4) as usize];
                match (o - op::IADD) % 4 {
                    0 => Insn::IArith(a),
                    1 => Insn::LArith(a),
                    2 => Insn::FArith(a),
                    _ => Insn::DArith(a),
                }
            }
            op::INEG => Insn::INeg,
            op::LNEG => Insn::LNeg,
            op::FNEG => Insn::FNeg,
            op::DNEG => Insn::DNeg,
            op::ISHL..=op::LXOR => {
                let a = [
                    Arith::Shl,
                    Arith::Shr,
                    Arith::Ushr,
                    Arith::And,
                    Arith::Or,
                    Arith::Xor,
                ][((o - op::ISHL) / 2) as usize];
                if (o - op::ISHL) % 2 == 0 {
                    Insn::IArith(a)
                } else {
                    Insn::LArith(a)
                }
            }
            op::IINC => match insn.operands {
                Operands::Iinc(n, d) => Insn::Iinc(n, d),
                _ => unreachable!("iinc operands"),
            },
            op::I2L..=op::I2S => Insn::Convert(
                [
                    Conv::I2L,
                    Conv::I2F,
                    Conv::I2D,
                    Conv::L2I,
                    Conv::L2F,
                    Conv::L2D,
                    Conv::F2I,
                    Conv::F2L,
                    Conv::F2D,
                    Conv::D2I,
                    Conv::D2L,
                    Conv::D2F,
                    Conv::I2B,
                    Conv::I2C,
                    Conv::I2S,
                ][(o - op::I2L) as usize],
            ),
            op::LCMP => Insn::LCmp,
            op::FCMPL => Insn::FCmp(false),
            op::FCMPG => Insn::FCmp(true),
            op::DCMPL => Insn::DCmp(false),
            op::DCMPG => Insn::DCmp(true),
            op::IFEQ..=op::IFLE => Insn::If(cond(o - op::IFEQ), br()),
            op::IF_ICMPEQ..=op::IF_ICMPLE => Insn::IfICmp(cond(o - op::IF_ICMPEQ), br()),
            op::IF_ACMPEQ => Insn::IfACmp(true, br()),
            op::IF_ACMPNE => Insn::IfACmp(false, br()),
            op::IFNULL => Insn::IfNull(true, br()),
            op::IFNONNULL => Insn::IfNull(false, br()),
            op::GOTO | op::GOTO_W => Insn::Goto(br()),
            op::TABLESWITCH => match &insn.operands {
                Operands::Table {
                    default,
                    low,
                    targets,
                } => {
                    switches.push(Switch::Table {
                        default: target(*default),
                        low: *low,
                        targets: targets.iter().map(|&t| target(t)).collect(),
                    });
                    Insn::TableSwitch(switches.len() as u32 - 1)
                }
                _ => unreachable!("table operands"),
            },
            op::LOOKUPSWITCH => match &insn.operands {
                Operands::Lookup { default, pairs } => {
                    switches.push(Switch::Lookup {
                        default: target(*default),
                        keys: pairs.iter().map(|p| p.0).collect(),
                        targets: pairs.iter().map(|p| target(p.1)).collect(),
                    });
                    Insn::LookupSwitch(switches.len() as u32 - 1)
                }
                _ => unreachable!("lookup operands"),
            },
            op::IRETURN | op::FRETURN | op::ARETURN => Insn::Return1,
            op::LRETURN | op::DRETURN => Insn::Return2,
            op::RETURN => Insn::Return,
            op::GETSTATIC | op::PUTSTATIC | op::GETFIELD | op::PUTFIELD => {
                let (holder, f) = resolve_field(loader, class, cp_index())?;
                let is_static = o == op::GETSTATIC || o == op::PUTSTATIC;
                if f.is_static() != is_static {
                    return Err(Error::incompatible(format!(
                        "Expected {} field {}.{}",
                        if is_static { "static" } else { "non-static" },
                        holder.java_name(),
                        f.name
                    )));
                }
                if (o == op::PUTSTATIC || o == op::PUTFIELD)
                    && f.flags & crate::classfile::access::FINAL != 0
                    && !std::ptr::eq(holder, class)
                {
                    return Err(Error::new(
                        "java/lang/IllegalAccessError",
                        format!(
                            "Update to {} final field {}.{} attempted from a different class ({}) than the field's declaring class",
                            if is_static { "static" } else { "non-static" },
                            holder.java_name(),
                            f.name,
                            class.java_name()
                        ),
                    ));
                }
                check_member_access(class, holder, f.flags, &f.name)?;
                let volatile = f.is_volatile();
                match o {
                    op::GETSTATIC => Insn::GetStatic {
                        class: holder,
                        slot: f.offset as u16,
                        kind: f.kind,
                        volatile,
                    },
                    op::PUTSTATIC => Insn::PutStatic {
                        class: holder,
                        slot: f.offset as u16,
                        kind: f.kind,
                        volatile,
                    },
                    op::GETFIELD if volatile => Insn::GetFieldVolatile {
                        off: f.offset,
                        kind: f.kind,
                    },
                    op::GETFIELD => match f.kind {
                        Kind::Ref => Insn::GetFieldRef(f.offset),
                        Kind::Int | Kind::Float => Insn::GetField4(f.offset),
                        Kind::Long | Kind::Double => Insn::GetField8(f.offset),
                        Kind::Byte => Insn::GetFieldI8(f.offset),
                        Kind::Boolean => Insn::GetFieldU8(f.offset),
                        Kind::Char => Insn::GetFieldU16(f.offset),
                        Kind::Short => Insn::GetFieldI16(f.offset),
                    },
                    _ if volatile => Insn::PutFieldVolatile {
                        off: f.offset,
                        kind: f.kind,
                    },
                    _ => match f.kind {
                        Kind::Ref => Insn::PutFieldRef(f.offset),
                        Kind::Int | Kind::Float => Insn::PutField4(f.offset),
                        Kind::Long | Kind::Double => Insn::PutField8(f.offset),
                        Kind::Byte => Insn::PutField1(f.offset),
                        Kind::Boolean => Insn::PutFieldBool(f.offset),
                        Kind::Char | Kind::Short => Insn::PutField2(f.offset),
                    },
                }
            }
            op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC | op::INVOKEINTERFACE => {
                let target_m = resolve_method(loader, class, cp_index())?;
                check_member_access(class, target_m.class, target_m.flags, &target_m.name)?;
                match o {
                    op::INVOKESTATIC => {
                        if !target_m.is_static() {
                            return Err(Error::incompatible(format!(
                                "Expected static method '{}'",
                                crate::link::resolve::pretty_method(
                                    target_m.class,
                                    &target_m.name,
                                    &target_m.descriptor
                                )
                            )));
                        }
                        Insn::InvokeStatic(target_m)
                    }
                    _ if target_m.is_static() => {
                        return Err(Error::incompatible(format!(
                            "Expecting non-static method '{}'",
                            crate::link::resolve::pretty_method(
                                target_m.class,
                                &target_m.name,
                                &target_m.descriptor
                            )
                        )))
                    }
                    op::INVOKESPECIAL => {
                        if &*target_m.name == "<init>"
                            || target_m.is_private()
                            || target_m.class.is_interface()
                        {
                            Insn::InvokeDirect(target_m)
                        } else {
                            // super.m(): the method as seen from the current
                            // class's superclass (JVMS 6.5 invokespecial).
                            let sel = class
                                .super_class
                                .and_then(|s| {
                                    crate::link::resolve::find_method(s, &target_m.name, &target_m.descriptor)
                                })
                                .filter(|_| !target_m.class.is_interface())
                                .unwrap_or(target_m);
                            Insn::InvokeDirect(sel)
                        }
                    }
                    op::INVOKEVIRTUAL => self.virtual_call(class, cp_index(), target_m)?,
                    _ => {
                        if target_m.is_private() {
                            Insn::InvokeDirect(target_m)
                        } else if !target_m.class.is_interface() {
                            // An Object method called through an interface.
                            let index = object_vtable_index(self.vm.object_class(), target_m);
                            Insn::InvokeVirtual {
                                method: target_m,
                                index,
                            }
                        } else {
                            let index = target_m
                                .class
                                .methods
                                .iter()
                                .position(|x| std::ptr::eq(*x, target_m))
                                .expect("an interface method is among its interface's")
                                as u32;
                            Insn::InvokeInterface {
                                method: target_m,
                                index,
                            }
                        }
                    }
                }
            }
            op::INVOKEDYNAMIC => Insn::InvokeStatic(self.link_invokedynamic(class, cp_index())?),
            op::NEW => {
                let c = resolve_class(loader, class, cp_index())?;
                if c.is_interface() || c.is_abstract() || c.is_array() {
                    return Err(Error::new("java/lang/InstantiationError", c.java_name()));
                }
                Insn::New(c)
            }
            op::NEWARRAY => {
                let k = match insn.operands {
                    Operands::Immediate(t) => kind_of_newarray(t),
                    _ => unreachable!("newarray operand"),
                };
                let name = format!("[{}", k.descriptor());
                Insn::NewArray(loader.load(&name)?)
            }
            op::ANEWARRAY => {
                let c = resolve_class(loader, class, cp_index())?;
                Insn::ANewArray(loader.array_of(c)?)
            }
            op::MULTIANEWARRAY => {
                let c = resolve_class(loader, class, cp_index())?;
                let dims = match insn.operands {
                    Operands::MultiArray(_, d) => d,
                    _ => unreachable!("multianewarray operands"),
                };
                let rank = c.name.bytes().take_while(|&b| b == b'[').count();
                if rank < dims as usize {
                    return Err(Error::verify("multianewarray dimensions exceed the array type's"));
                }
                Insn::MultiANewArray(c, dims)
            }
            op::ARRAYLENGTH => Insn::ArrayLength,
            op::ATHROW => Insn::AThrow,
            op::CHECKCAST => Insn::CheckCast(resolve_class(loader, class, cp_index())?),
            op::INSTANCEOF => Insn::InstanceOf(resolve_class(loader, class, cp_index())?),
            op::MONITORENTER => Insn::MonitorEnter,
            op::MONITOREXIT => Insn::MonitorExit,
            other => return Err(Error::verify(format!("Bad instruction {other:#04x}"))),
        })
    }

    fn link_invokedynamic(&self, class: &'static Class, index: u16) -> Result<&'static Method, Error> {
        crate::link::indy::link(self.vm, class, index)
    }

    fn virtual_call(
        &self,
        class: &'static Class,
        _index: u16,
        target_m: &'static Method,
    ) -> Result<Insn, Error> {
        let final_ = target_m.flags & crate::classfile::access::FINAL != 0
            || target_m.class.flags & crate::classfile::access::FINAL != 0
            || target_m.is_private();
        if final_ && !target_m.class.is_interface() {
            return Ok(Insn::InvokeDirect(target_m));
        }
        // The index in the vtable of the class named by the reference (its
        // subclasses keep it): found by name and descriptor.
        let (_, mref) = class.cp().member_ref(_index).map_err(Error::from)?;
        let named = self.vm.loader.load(mref.class)?;
        let vt_class = if named.is_array() {
            self.vm.object_class()
        } else {
            named
        };
        let index = vt_class
            .vtable
            .iter()
            .position(|v| v.matches(&target_m.name, &target_m.descriptor))
            .ok_or_else(|| {
                Error::new(
                    "java/lang/AbstractMethodError",
                    crate::link::resolve::pretty_method(target_m.class, &target_m.name, &target_m.descriptor),
                )
            })?;
        // A final class named by the reference: every receiver is an
        // instance of that class itself (the receiver is assignable to it,
        // JVMS 4.10.1.9 invokevirtual, and it has no subclass), so its
        // vtable entry is the one target, bound here as HotSpot binds a
        // call whose receiver type is exact (C2's `Compile::optimize_virtual_call`
        // on a final static receiver type). A call through a final class
        // to an inherited method (`LinkedHashMap.get` on a final subclass)
        // then needs no dispatch, and the JIT inlines it without a guard.
        if named.flags & crate::classfile::access::FINAL != 0 && !named.is_array() && !named.is_interface() {
            if let Some(t) = named
                .vtable_method(index)
                .filter(|t| !t.is_abstract() && !t.is_static())
            {
                return Ok(Insn::InvokeDirect(t));
            }
        }
        Ok(Insn::InvokeVirtual {
            method: target_m,
            index: index as u32,
        })
    }

    fn translate_ldc(&self, class: &'static Class, index: u16) -> Result<Insn, Error> {
        Ok(match class.cp().get(index).map_err(Error::from)? {
            Constant::Integer(v) => Insn::Iconst(*v),
            Constant::Float(f) => Insn::Fconst(f.to_bits()),
            Constant::Long(v) => Insn::Lconst(*v),
            Constant::Double(d) => Insn::Dconst(d.to_bits()),
            Constant::String { utf8 } => {
                let units = class.cp().utf8_entry(*utf8).map_err(Error::from)?.to_utf16();
                Insn::LdcString(self.vm.literal(units))
            }
            Constant::Class { .. } => Insn::LdcClass(resolve_class(&self.vm.loader, class, index)?),
            _ => {
                return Err(Error::new(
                    "java/lang/UnsupportedOperationException",
                    "ldc of a method handle, method type or dynamic constant",
                ))
            }
        })
    }
}

/// The vtable index of an `Object` method.
fn object_vtable_index(object: &'static Class, m: &'static Method) -> u32 {
    object
        .vtable
        .iter()
        .position(|v| v.matches(&m.name, &m.descriptor))
        .unwrap_or(0) as u32
}

fn cond(k: u8) -> Cond {
    [Cond::Eq, Cond::Ne, Cond::Lt, Cond::Ge, Cond::Gt, Cond::Le][k as usize]
}

/// JVMS 5.4.4 access control for a member (public, private, package;
/// protected is treated as package-or-subclass).
fn check_member_access(
    from: &'static Class,
    owner: &'static Class,
    flags: u16,
    name: &str,
) -> Result<(), Error> {
    use crate::classfile::access;
    let ok = if flags & access::PUBLIC != 0 || crate::link::resolve::spun_caller_of_helper(from, owner) {
        true
    } else if flags & access::PRIVATE != 0 {
        std::ptr::eq(from, owner) || nestmates(from, owner)
    } else if flags & access::PROTECTED != 0 {
        from.package() == owner.package() || from.is_subclass_of(owner)
    } else {
        from.package() == owner.package()
    };
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            "java/lang/IllegalAccessError",
            format!(
                "class {} tried to access private or package member {} of class {}",
                from.java_name(),
                name,
                owner.java_name()
            ),
        ))
    }
}

/// Whether two classes are nestmates (JEP 181), approximated by their
/// outermost class names (the `NestHost`/`NestMembers` attributes javac
/// writes name exactly these).
fn nestmates(a: &Class, b: &Class) -> bool {
    let top = |n: &str| n.split('$').next().unwrap_or("").to_string();
    top(&a.name) == top(&b.name)
}

/// A global slot for a string literal (reserved empty when new: the first
/// `ldc` to run makes the string).
pub type LiteralSlot = &'static AtomicUsize;

/// Replaces the first instruction of each run javac emits together with
/// its superinstruction (see `Insn::LoadLoad` and after). The runs' other
/// instructions are kept, so branch targets and exception ranges inside a
/// run stay valid; runs are matched on the unfused instructions, so they
/// may overlap.
pub fn fuse(insns: &mut [Insn]) {
    let orig: Vec<Insn> = insns.to_vec();
    let at = |i: usize| orig.get(i).copied();
    for i in 0..orig.len() {
        let fused = match (orig[i], at(i + 1), at(i + 2)) {
            (Insn::Load(a), Some(Insn::Load(b)), Some(Insn::IfICmp(c, t))) => {
                Some(Insn::IfICmpLL { a, b, c, t })
            }
            (Insn::Load(a), Some(Insn::Iconst(v)), Some(Insn::IfICmp(c, t))) => {
                Some(Insn::IfICmpLC { a, c, v, t })
            }
            (Insn::Load(a), Some(Insn::Load(b)), Some(Insn::IArith(op))) if !op.int_can_throw() => {
                Some(Insn::IArithLL(op, a, b))
            }
            (Insn::Load(a), Some(Insn::Iconst(v)), Some(Insn::IArith(op))) if !op.int_can_throw() => {
                Some(Insn::IArithLC(op, a, v))
            }
            (Insn::Load2(a), Some(Insn::Load2(b)), Some(Insn::DArith(op))) => Some(Insn::DArithLL(op, a, b)),
            (Insn::Load(a), Some(Insn::GetField8(off)), _) => Some(Insn::GetField8L(a, off)),
            (Insn::Load(a), Some(Insn::If(c, t)), _) => Some(Insn::IfL(a, c, t)),
            (Insn::Load(a), Some(Insn::GetFieldRef(off)), _) => Some(Insn::GetFieldRefL(a, off)),
            (Insn::Load(a), Some(Insn::GetField4(off)), _) => Some(Insn::GetField4L(a, off)),
            (Insn::Load(a), Some(Insn::Load(b)), _) => Some(Insn::LoadLoad(a, b)),
            (Insn::Load2(a), Some(Insn::Load2(b)), _) => Some(Insn::Load2Load2(a, b)),
            _ => None,
        };
        if let Some(f) = fused {
            insns[i] = f;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::insn::Arith;

    #[test]
    fn fusion_replaces_a_runs_first_instruction_and_keeps_the_rest() {
        let mut v = vec![
            Insn::Load(1),
            Insn::Load(2),
            Insn::IfICmp(Cond::Lt, 0),
            Insn::Load(3),
            Insn::Iconst(2),
            Insn::IArith(Arith::Div),
            Insn::Load(0),
            Insn::GetFieldRef(1),
            Insn::Return1,
        ];
        fuse(&mut v);
        assert!(matches!(
            v[0],
            Insn::IfICmpLL {
                a: 1,
                b: 2,
                c: Cond::Lt,
                t: 0
            }
        ));
        // The run's other instructions stay, for a branch into the run.
        assert!(matches!(v[1], Insn::Load(2)) && matches!(v[2], Insn::IfICmp(Cond::Lt, 0)));
        // A division can throw: only its loads are fused.
        assert!(matches!(v[3], Insn::Load(3)) && matches!(v[5], Insn::IArith(Arith::Div)));
        assert!(matches!(v[6], Insn::GetFieldRefL(0, 1)) && matches!(v[7], Insn::GetFieldRef(1)));
    }

    #[test]
    fn conditions_test_like_java() {
        let all = [Cond::Eq, Cond::Ne, Cond::Lt, Cond::Ge, Cond::Gt, Cond::Le];
        for (a, b) in [(1, 2), (2, 2), (3, 2), (i32::MIN, i32::MAX), (i32::MAX, i32::MIN)] {
            let want = [a == b, a != b, a < b, a >= b, a > b, a <= b];
            for (c, w) in all.iter().zip(want) {
                assert_eq!(c.test(a, b), w, "{a} {c:?} {b}");
            }
        }
    }
}

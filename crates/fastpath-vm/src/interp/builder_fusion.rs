//! `StringBuilder` chains fused into one concatenation: HotSpot C2's
//! `OptimizeStringConcat` (`opto/stringopts.cpp`, `PhaseStringOpts`),
//! done on a method's bytecode when it is pre-decoded, so that the
//! interpreter and the JIT run the same fused code and a deoptimised frame
//! finds the instructions its compiled code was made from.
//!
//! Where it sits: `decode.rs` calls [`fuse`] on the decoded bytecode
//! before the reference maps are computed; for each concatenation found it
//! spins a class as for an `invokedynamic` concatenation
//! (`link/indy/concat.rs`) and links the rewritten method's
//! [`op::FUSED_CONCAT`] to that class's static factory. The JIT reads the
//! rewritten instructions from `Decoded::fused`.
//!
//! What it finds: `new StringBuilder; dup; invokespecial <init>()V` (or
//! `<init>(I)V` of a constant capacity of at least 0), then straight-line
//! code (no branch, no branch target, no edge of an exception range) in
//! which that builder's only uses are `append` of a `String` or of a
//! primitive, `dup`, `pop`, and `astore`/`aload` of one local, ending in
//! the builder's `toString()`, after which the builder is dead: no copy
//! left on the stack, and its local written before it is read on every
//! path on, exception paths included. javac writes that shape for
//! `b.append(x).append(y)…; return b.toString();`, and C2 recognises the
//! same chains on its graph.
//!
//! What it makes: the builder becomes a null placeholder (the `new` an
//! `aconst_null`, the constructor a `pop`); each appended value is stored
//! into a fresh local past the method's `max_locals` (an appended constant,
//! an `ldc` string or a pushed `char`, `int` or `boolean`, becomes text,
//! and both instructions `nop`s); `toString()` becomes a `pop` of the
//! placeholder, the locals' loads and one [`op::FUSED_CONCAT`]. The spun
//! factory builds the string in one array of its length: no builder, no
//! growth, no final copy. Every instruction keeps its bytecode offset (the
//! inserted ones take `toString`'s), so branch targets, exception ranges
//! and stack traces read as before.
//!
//! Why it keeps Java's semantics: a builder that never escapes cannot be
//! observed; the text of a `String`, of an `int` or of a `char` is the
//! same whenever it is taken (an `Object`'s `toString()` is not, so an
//! `append(Object)` ends the search, as `CharSequence`s and arrays do); an
//! exception thrown by the code between the appends leaves the builder
//! unreachable either way. Where an `OutOfMemoryError` would strike
//! differs, as it does under C2.

use crate::classfile::bytecode::{op, Instruction, Operands};
use crate::classfile::constant_pool::tag;
use crate::classfile::{Constant, ConstantPool, ExceptionHandler, FieldType, MethodDescriptor};
use crate::interp::npe::npe_text_impl::{effect, Producers};
use crate::link::indy::Piece;

/// The class whose chains are fused.
const BUILDER: &str = "java/lang/StringBuilder";

/// The producer the stack model gives the builder's copies (no
/// instruction of a class file has this offset).
const MARK: Option<u32> = Some(u32::MAX);

/// The most argument slots of one fused concatenation (the concatenation
/// factory's limit is 200).
const MAX_ARG_SLOTS: usize = 100;

/// The most instructions a chain may span.
const MAX_CHAIN: usize = 4096;

/// One fused concatenation: its arguments' types, in order, and its pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The arguments (the values appended that are not constants).
    pub params: Vec<FieldType>,
    /// Text and arguments, in order.
    pub pieces: Vec<Piece>,
}

impl Site {
    /// The factory's descriptor: the arguments, returning a `String`.
    pub fn descriptor(&self) -> String {
        let params: String = self.params.iter().map(FieldType::descriptor).collect();
        format!("({params})Ljava/lang/String;")
    }

    /// The arguments' stack slots.
    pub fn arg_slots(&self) -> usize {
        self.params.iter().map(FieldType::slots).sum()
    }
}

/// A method's instructions with its chains fused.
#[derive(Debug)]
pub struct Fused {
    /// The instructions, each with its original offset (the inserted ones
    /// with their `toString`'s).
    pub insns: Vec<Instruction>,
    /// `max_locals`, with the appended values' locals.
    pub max_locals: u16,
    /// `max_stack`, with the loads before each concatenation.
    pub max_stack: u16,
    /// The concatenations, by [`Operands::Fused`]'s `site`.
    pub sites: Vec<Site>,
}

/// The method's code as `fuse` reads it.
pub struct Code<'a> {
    /// The constant pool.
    pub cp: &'a ConstantPool,
    /// The instructions, decoded.
    pub insns: &'a [Instruction],
    /// The exception table.
    pub handlers: &'a [ExceptionHandler],
    /// The code's length in bytes.
    pub len: usize,
    /// `max_locals`.
    pub max_locals: u16,
    /// `max_stack`.
    pub max_stack: u16,
}

/// One chain found: the replacements of its instructions, its site, and
/// the locals and stack it needs beyond the method's.
struct Chain {
    end: usize,
    replace: Vec<(usize, Vec<Instruction>)>,
    site: Site,
    locals: usize,
    stack: usize,
}

/// The method's code with every fusable chain fused, or `None` when it
/// has none (or a shape this pass does not read: `jsr`, an offset that
/// does not start an instruction).
pub fn fuse(code: &Code<'_>) -> Option<Fused> {
    let insns = code.insns;
    let n = insns.len();
    let is_new_builder = |i: &Instruction| {
        i.opcode == op::NEW && matches!(i.operands, Operands::Cp(c) if code.cp.class_name(c) == Ok(BUILDER))
    };
    if !insns.iter().any(is_new_builder) {
        return None;
    }
    let shape = Shape::of(code)?;
    let mut chains = Vec::new();
    let mut i = 0;
    while i < n {
        if is_new_builder(&insns[i]) {
            if let Some(c) = chain(code, &shape, i, chains.len()) {
                i = c.end + 1;
                chains.push(c);
                continue;
            }
        }
        i += 1;
    }
    if chains.is_empty() {
        return None;
    }
    let locals = chains.iter().map(|c| c.locals).max().unwrap_or(0);
    let stack = chains.iter().map(|c| c.stack).max().unwrap_or(0);
    let max_locals = u16::try_from(code.max_locals as usize + locals).ok()?;
    let max_stack = u16::try_from(code.max_stack as usize + stack).ok()?;
    let mut replaced: Vec<Option<Vec<Instruction>>> = vec![None; n];
    let mut sites = Vec::with_capacity(chains.len());
    for c in chains {
        for (k, with) in c.replace {
            replaced[k] = Some(with);
        }
        sites.push(c.site);
    }
    let mut out = Vec::with_capacity(n + 8);
    for (k, insn) in insns.iter().enumerate() {
        match replaced[k].take() {
            Some(with) => out.extend(with),
            None => out.push(insn.clone()),
        }
    }
    Some(Fused {
        insns: out,
        max_locals,
        max_stack,
        sites,
    })
}

/// What the search needs of the method's control flow.
struct Shape {
    /// Bytecode offset → instruction index.
    index_of: Vec<u32>,
    /// Instructions where control can enter other than from the one
    /// before, or where an exception range starts or ends.
    boundary: Vec<bool>,
    /// Exception ranges as (first, end, handler) instruction indices.
    ranges: Vec<(usize, usize, usize)>,
}

impl Shape {
    fn of(code: &Code<'_>) -> Option<Shape> {
        let n = code.insns.len();
        let mut index_of = vec![u32::MAX; code.len];
        for (i, insn) in code.insns.iter().enumerate() {
            *index_of.get_mut(insn.pc as usize)? = i as u32;
        }
        let index = |pc: u32| -> Option<usize> {
            match index_of.get(pc as usize) {
                Some(&i) if i != u32::MAX => Some(i as usize),
                _ => None,
            }
        };
        let mut boundary = vec![false; n + 1];
        for insn in code.insns {
            if matches!(insn.opcode, op::JSR | op::JSR_W | op::RET) {
                return None;
            }
            for t in targets(insn) {
                boundary[index(t)?] = true;
            }
        }
        let mut ranges = Vec::with_capacity(code.handlers.len());
        for h in code.handlers {
            let start = index(h.start_pc as u32)?;
            let end = if h.end_pc as usize == code.len {
                n
            } else {
                index(h.end_pc as u32)?
            };
            let handler = index(h.handler_pc as u32)?;
            boundary[start] = true;
            boundary[end] = true;
            boundary[handler] = true;
            ranges.push((start, end, handler));
        }
        Some(Shape {
            index_of,
            boundary,
            ranges,
        })
    }

    fn index(&self, pc: u32) -> Option<usize> {
        match self.index_of.get(pc as usize) {
            Some(&i) if i != u32::MAX => Some(i as usize),
            _ => None,
        }
    }
}

/// A branch's or switch's targets (offsets).
fn targets(insn: &Instruction) -> Vec<u32> {
    match &insn.operands {
        Operands::Branch(t) => vec![*t],
        Operands::Table { default, targets, .. } => targets.iter().copied().chain([*default]).collect(),
        Operands::Lookup { default, pairs } => pairs.iter().map(|p| p.1).chain([*default]).collect(),
        _ => Vec::new(),
    }
}

/// Whether control leaves `insn` other than to the next instruction
/// alone (a branch, a switch, a return, `athrow`).
fn ends_straight_line(o: u8) -> bool {
    matches!(
        o,
        op::IFEQ..=op::LOOKUPSWITCH
            | op::IRETURN..=op::RETURN
            | op::ATHROW
            | op::IFNULL
            | op::IFNONNULL
            | op::GOTO_W
            | op::JSR_W
    )
}

/// The local slots `insn` reads and writes: (first, count, writes).
fn local_access(insn: &Instruction) -> Option<(usize, usize, bool)> {
    let o = insn.opcode;
    let n = crate::interp::oopmap::local_index(insn, o);
    let two = |wide: bool| if wide { 2 } else { 1 };
    match o {
        op::ILOAD..=op::ALOAD | 0x1a..=0x2d => {
            let wide = matches!(o, op::LLOAD | op::DLOAD)
                || (0x1e..=0x21).contains(&o)
                || (0x26..=0x29).contains(&o);
            Some((n, two(wide), false))
        }
        op::ISTORE..=op::ASTORE | 0x3b..=0x4e => {
            let wide = matches!(o, op::LSTORE | op::DSTORE)
                || (0x3f..=0x42).contains(&o)
                || (0x47..=0x4a).contains(&o);
            Some((n, two(wide), true))
        }
        // Read, then written: a read for the search.
        op::IINC => Some((n, 1, false)),
        _ => None,
    }
}

/// The class method named by an instruction's constant: (class, name,
/// descriptor); `None` for a field or an interface method.
fn member<'a>(cp: &'a ConstantPool, insn: &Instruction) -> Option<(&'a str, &'a str, &'a str)> {
    let Operands::Cp(i) = insn.operands else {
        return None;
    };
    let (kind, r) = cp.member_ref(i).ok()?;
    (kind == tag::METHODREF).then_some((r.class, r.name, r.descriptor))
}

/// The int an instruction pushes as a constant.
fn int_constant(cp: &ConstantPool, insn: &Instruction) -> Option<i32> {
    match (insn.opcode, &insn.operands) {
        (op::ICONST_M1..=op::ICONST_5, _) => Some(insn.opcode as i32 - op::ICONST_0 as i32),
        (op::BIPUSH | op::SIPUSH, Operands::Immediate(v)) => Some(*v),
        (op::LDC | op::LDC_W, Operands::Cp(i)) => match cp.get(*i).ok()? {
            Constant::Integer(v) => Some(*v),
            _ => None,
        },
        _ => None,
    }
}

/// The text of a constant `insn` pushes as an argument of `t`, as
/// `append` would write it; `None` for anything else (floating-point
/// constants are left to the factory, whose text is Java's).
fn constant_text(cp: &ConstantPool, insn: &Instruction, t: &FieldType) -> Option<Vec<u16>> {
    match t {
        FieldType::Object(_) => {
            let Operands::Cp(i) = insn.operands else {
                return None;
            };
            if !matches!(insn.opcode, op::LDC | op::LDC_W) {
                return None;
            }
            match cp.get(i).ok()? {
                Constant::String { utf8 } => Some(cp.utf8_entry(*utf8).ok()?.to_utf16()),
                _ => None,
            }
        }
        FieldType::Char => {
            let v = int_constant(cp, insn)?;
            Some(vec![u16::try_from(v).ok()?])
        }
        FieldType::Int => Some(int_constant(cp, insn)?.to_string().encode_utf16().collect()),
        FieldType::Boolean => match int_constant(cp, insn)? {
            0 => Some("false".encode_utf16().collect()),
            1 => Some("true".encode_utf16().collect()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `append` of `t` is fused: a `String` or a primitive that
/// `StringBuilder` has an `append` for (a reference to any other, which
/// would throw `NoSuchMethodError` where it runs, is left as written).
fn fusable(t: &FieldType) -> bool {
    match t {
        FieldType::Object(n) => n == "java/lang/String",
        FieldType::Boolean
        | FieldType::Char
        | FieldType::Int
        | FieldType::Long
        | FieldType::Float
        | FieldType::Double => true,
        _ => false,
    }
}

/// An instruction at `like`'s offset.
fn at(like: &Instruction, opcode: u8, operands: Operands) -> Instruction {
    Instruction {
        pc: like.pc,
        opcode,
        wide: false,
        len: like.len,
        operands,
    }
}

/// The load (`store` false) or store of a value of `t` in local `slot`.
fn local_insn(like: &Instruction, t: &FieldType, slot: u16, store: bool) -> Instruction {
    let base = match t {
        FieldType::Long => op::LLOAD,
        FieldType::Float => op::FLOAD,
        FieldType::Double => op::DLOAD,
        FieldType::Object(_) | FieldType::Array(_) => op::ALOAD,
        _ => op::ILOAD,
    };
    let opcode = if store {
        base - op::ILOAD + op::ISTORE
    } else {
        base
    };
    at(like, opcode, Operands::Local(slot))
}

/// The chain whose `new` is instruction `start`, if it fuses (module
/// docs); `site_index` is the index its concatenation will have.
fn chain(code: &Code<'_>, shape: &Shape, start: usize, site_index: usize) -> Option<Chain> {
    let (cp, insns) = (code.cp, code.insns);
    let get = |k: usize| insns.get(k);
    if get(start + 1)?.opcode != op::DUP {
        return None;
    }
    let is_init = |k: usize, desc: &str| {
        get(k).is_some_and(|i| {
            i.opcode == op::INVOKESPECIAL && member(cp, i) == Some((BUILDER, "<init>", desc))
        })
    };
    let mut replace: Vec<(usize, Vec<Instruction>)> =
        vec![(start, vec![at(&insns[start], op::ACONST_NULL, Operands::None)])];
    let mut j = start + 2;
    if is_init(j, "()V") {
        replace.push((j, vec![at(&insns[j], op::POP, Operands::None)]));
        j += 1;
    } else if int_constant(cp, get(j)?).is_some_and(|c| c >= 0) && is_init(j + 1, "(I)V") {
        replace.push((j, vec![at(&insns[j], op::NOP, Operands::None)]));
        replace.push((j + 1, vec![at(&insns[j + 1], op::POP, Operands::None)]));
        j += 2;
    } else {
        return None;
    }
    if (start + 1..j).any(|k| shape.boundary[k]) {
        return None;
    }
    // The first instruction after the constructor: an appended constant
    // must come at or after it.
    let body = j;
    let mut stack: Producers = vec![MARK];
    let mut local: Option<usize> = None;
    let mut site_params: Vec<FieldType> = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    // The locals the values go to: (type, slot), in order.
    let mut temps: Vec<(FieldType, u16)> = Vec::new();
    let mut next_temp = code.max_locals as usize;
    let marks = |s: &Producers| s.iter().filter(|&&p| p == MARK).count();
    loop {
        if j - start > MAX_CHAIN || shape.boundary[j] {
            return None;
        }
        let insn = get(j)?;
        let o = insn.opcode;
        if o == op::INVOKEVIRTUAL {
            if let Some((BUILDER, name, desc)) = member(cp, insn) {
                let md = MethodDescriptor::parse(desc).ok()?;
                if name == "append"
                    && md.params.len() == 1
                    && md.ret == Some(FieldType::Object(BUILDER.into()))
                    && fusable(&md.params[0])
                {
                    let t = &md.params[0];
                    let s = t.slots();
                    let len = stack.len();
                    if len > s && stack[len - 1 - s] == MARK {
                        if stack[len - s..].contains(&MARK) {
                            return None;
                        }
                        let producer = j.checked_sub(1).filter(|&p| p >= body).and_then(&get);
                        let text = producer
                            .filter(|p| s == 1 && stack[len - 1] == Some(p.pc))
                            .and_then(|p| constant_text(cp, p, t));
                        if let Some(text) = text {
                            replace.push((j - 1, vec![at(&insns[j - 1], op::NOP, Operands::None)]));
                            replace.push((j, vec![at(insn, op::NOP, Operands::None)]));
                            match pieces.last_mut() {
                                Some(Piece::Text(prev)) => prev.extend(text),
                                _ => pieces.push(Piece::Text(text)),
                            }
                        } else {
                            let slot = u16::try_from(next_temp).ok()?;
                            next_temp += s;
                            replace.push((j, vec![local_insn(insn, t, slot, true)]));
                            temps.push((t.clone(), slot));
                            site_params.push(t.clone());
                            pieces.push(Piece::Arg);
                            if site_params.iter().map(FieldType::slots).sum::<usize>() > MAX_ARG_SLOTS {
                                return None;
                            }
                        }
                        stack.truncate(len - 1 - s);
                        stack.push(MARK);
                        j += 1;
                        continue;
                    }
                } else if name == "toString" && desc == "()Ljava/lang/String;" && stack.last() == Some(&MARK)
                {
                    stack.pop();
                    if stack.contains(&MARK) {
                        return None;
                    }
                    let site = Site {
                        params: site_params,
                        pieces,
                    };
                    let slots = site.arg_slots();
                    let mut with = vec![at(insn, op::POP, Operands::None)];
                    with.extend(temps.iter().map(|(t, slot)| local_insn(insn, t, *slot, false)));
                    with.push(at(
                        insn,
                        op::FUSED_CONCAT,
                        Operands::Fused {
                            site: u16::try_from(site_index).ok()?,
                            slots: slots as u16,
                        },
                    ));
                    replace.push((j, with));
                    if let Some(l) = local {
                        let mut from = vec![j + 1];
                        from.extend(
                            shape
                                .ranges
                                .iter()
                                .filter(|&&(s, e, _)| s <= j && start < e)
                                .map(|&(_, _, h)| h),
                        );
                        if read_before_written(code, shape, from, l)? {
                            return None;
                        }
                    }
                    return Some(Chain {
                        end: j,
                        replace,
                        site,
                        locals: next_temp - code.max_locals as usize,
                        stack: slots.saturating_sub(1),
                    });
                }
            }
        }
        if ends_straight_line(o) {
            return None;
        }
        let top_is_builder = stack.last() == Some(&MARK);
        match o {
            op::ASTORE | 0x4b..=0x4e if top_is_builder => {
                let n = crate::interp::oopmap::local_index(insn, o);
                if local.is_some_and(|l| l != n) {
                    return None;
                }
                local = Some(n);
                stack.pop();
            }
            op::ALOAD | 0x2a..=0x2d if local == Some(crate::interp::oopmap::local_index(insn, o)) => {
                stack.push(MARK);
            }
            op::POP if top_is_builder => {
                stack.pop();
            }
            op::CHECKCAST if top_is_builder => return None,
            _ => {
                if let (Some(l), Some((first, count, true))) = (local, local_access(insn)) {
                    if (first..first + count).contains(&l) {
                        return None;
                    }
                }
                let before = marks(&stack);
                effect(cp, insn, &mut stack)?;
                if marks(&stack) < before {
                    return None;
                }
            }
        }
        j += 1;
    }
}

/// Whether local `l` may be read before it is written on a path from any
/// of `from` (exception edges included); `None` when the search meets an
/// instruction it cannot follow.
fn read_before_written(code: &Code<'_>, shape: &Shape, mut from: Vec<usize>, l: usize) -> Option<bool> {
    let insns = code.insns;
    let mut seen = vec![false; insns.len()];
    while let Some(k) = from.pop() {
        let Some(insn) = insns.get(k) else {
            // Past the last instruction: no path goes there.
            continue;
        };
        if std::mem::replace(&mut seen[k], true) {
            continue;
        }
        if let Some((first, count, writes)) = local_access(insn) {
            if (first..first + count).contains(&l) {
                if writes {
                    continue;
                }
                return Some(true);
            }
        }
        let o = insn.opcode;
        for t in targets(insn) {
            from.push(shape.index(t)?);
        }
        let falls_through = !matches!(
            o,
            op::GOTO | op::GOTO_W | op::TABLESWITCH | op::LOOKUPSWITCH | op::IRETURN
                ..=op::RETURN | op::ATHROW
        );
        if falls_through {
            from.push(k + 1);
        }
        from.extend(
            shape
                .ranges
                .iter()
                .filter(|&&(s, e, _)| (s..e).contains(&k))
                .map(|&(_, _, h)| h),
        );
    }
    Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classfile::bytecode::decode_all;
    use crate::classfile::{access, ClassFile};
    use crate::link::synth::{Asm, ClassWriter};

    const ASTORE_1: u8 = op::ASTORE_0 + 1;
    const APPEND_INT: &str = "(I)Ljava/lang/StringBuilder;";
    const APPEND_CHAR: &str = "(C)Ljava/lang/StringBuilder;";
    const APPEND_STRING: &str = "(Ljava/lang/String;)Ljava/lang/StringBuilder;";

    /// A static `(I)String` method of one class, its body written by `body`
    /// (local 0 the int, local 1 free for the builder).
    fn method(body: impl FnOnce(&mut ClassWriter, &mut Asm), handlers: Vec<ExceptionHandler>) -> ClassFile {
        let mut w = ClassWriter::new("T", "java/lang/Object", Vec::new());
        let mut a = Asm::default();
        body(&mut w, &mut a);
        w.method(access::STATIC, "m", "(I)Ljava/lang/String;", a, 2)
            .unwrap();
        let mut file = w.finish().unwrap();
        file.methods[0].code.as_mut().unwrap().exception_table = handlers;
        file
    }

    fn fused(file: &ClassFile) -> Option<Fused> {
        let code = file.methods[0].code.as_ref().unwrap();
        let insns = decode_all(&code.code).unwrap();
        fuse(&Code {
            cp: &file.constant_pool,
            insns: &insns,
            handlers: &code.exception_table,
            len: code.code.len(),
            max_locals: code.max_locals,
            max_stack: code.max_stack,
        })
    }

    fn new_builder(w: &mut ClassWriter, a: &mut Asm) {
        let c = w.class(BUILDER);
        a.emit_cp(op::NEW, c, 1);
        a.emit(&[op::DUP], 1);
        let init = w.method_ref(BUILDER, "<init>", "()V", false);
        a.emit_cp(op::INVOKESPECIAL, init, -1);
    }

    fn call(w: &mut ClassWriter, a: &mut Asm, name: &str, desc: &str, delta: i32) {
        let m = w.method_ref(BUILDER, name, desc, false);
        a.emit_cp(op::INVOKEVIRTUAL, m, delta);
    }

    /// `b = new StringBuilder(); b.append(i).append(',').append("x");`,
    /// leaving nothing on the stack.
    fn appends(w: &mut ClassWriter, a: &mut Asm) {
        new_builder(w, a);
        a.emit(&[ASTORE_1], -1);
        a.emit(&[op::ALOAD_1, op::ILOAD_0], 2);
        call(w, a, "append", APPEND_INT, -1);
        a.emit(&[op::BIPUSH, b','], 1);
        call(w, a, "append", APPEND_CHAR, -1);
        let x = w.string_utf16(&[u16::from(b'x')]);
        a.emit_cp(op::LDC_W, x, 1);
        call(w, a, "append", APPEND_STRING, -1);
        a.emit(&[op::POP], -1);
    }

    fn to_string(w: &mut ClassWriter, a: &mut Asm) {
        a.emit(&[op::ALOAD_1], 1);
        call(w, a, "toString", "()Ljava/lang/String;", 0);
    }

    fn opcodes(f: &Fused) -> Vec<u8> {
        f.insns.iter().map(|i| i.opcode).collect()
    }

    #[test]
    fn a_chain_through_a_local_becomes_stores_and_one_concatenation() {
        let file = method(
            |w, a| {
                appends(w, a);
                to_string(w, a);
                a.emit(&[op::ARETURN], -1);
            },
            Vec::new(),
        );
        let f = fused(&file).expect("fused");
        assert_eq!(
            opcodes(&f),
            [
                op::ACONST_NULL,
                op::DUP,
                op::POP,
                ASTORE_1,
                op::ALOAD_1,
                op::ILOAD_0,
                op::ISTORE,
                op::NOP,
                op::NOP,
                op::NOP,
                op::NOP,
                op::POP,
                op::ALOAD_1,
                op::POP,
                op::ILOAD,
                op::FUSED_CONCAT,
                op::ARETURN
            ]
        );
        // The int goes to the first local past the method's two.
        assert_eq!(f.insns[6].operands, Operands::Local(2));
        assert_eq!(f.insns[14].operands, Operands::Local(2));
        assert_eq!(f.insns[15].operands, Operands::Fused { site: 0, slots: 1 });
        assert_eq!((f.max_locals, f.max_stack), (3, 2));
        let text = |s: &str| Piece::Text(s.encode_utf16().collect());
        assert_eq!(
            f.sites,
            [Site {
                params: vec![FieldType::Int],
                pieces: vec![Piece::Arg, text(",x")],
            }]
        );
        assert_eq!(f.sites[0].descriptor(), "(I)Ljava/lang/String;");
        // The inserted instructions carry toString's offset; the others keep theirs.
        let code = &file.methods[0].code.as_ref().unwrap().code;
        let original = decode_all(code).unwrap();
        let to_string_pc = original[original.len() - 2].pc;
        assert!(f.insns[13..16].iter().all(|i| i.pc == to_string_pc));
        assert_eq!(f.insns[16].pc, original.last().unwrap().pc);
    }

    #[test]
    fn a_builder_read_after_to_string_stays() {
        let file = method(
            |w, a| {
                appends(w, a);
                to_string(w, a);
                a.emit(&[op::ALOAD_1], 1);
                call(w, a, "length", "()I", 0);
                a.emit(&[op::POP], -1);
                a.emit(&[op::ARETURN], -1);
            },
            Vec::new(),
        );
        assert!(fused(&file).is_none());
    }

    #[test]
    fn a_local_written_before_its_next_read_is_dead() {
        let file = method(
            |w, a| {
                appends(w, a);
                to_string(w, a);
                a.emit(&[op::ACONST_NULL, ASTORE_1, op::ALOAD_1, op::POP], 0);
                a.emit(&[op::ARETURN], -1);
            },
            Vec::new(),
        );
        assert!(fused(&file).is_some());
    }

    /// A handler over the whole chain: whether it reads the builder's local
    /// decides.
    #[test]
    fn an_exception_path_that_reads_the_builder_keeps_it() {
        for reads in [false, true] {
            let mut end = 0;
            let file = method(
                |w, a| {
                    appends(w, a);
                    to_string(w, a);
                    end = a.code.len() as u16;
                    a.emit(&[op::ARETURN], -1);
                    // The handler: the exception on the stack.
                    a.emit(&[op::POP], 0);
                    if reads {
                        to_string(w, a);
                    } else {
                        let s = w.string_utf16(&[u16::from(b'!')]);
                        a.emit_cp(op::LDC_W, s, 1);
                    }
                    a.emit(&[op::ARETURN], -1);
                },
                Vec::new(),
            );
            let mut file = file;
            file.methods[0].code.as_mut().unwrap().exception_table = vec![ExceptionHandler {
                start_pc: 0,
                end_pc: end,
                handler_pc: end + 1,
                catch_type: 0,
            }];
            assert_eq!(fused(&file).is_some(), !reads, "handler reads the local: {reads}");
        }
    }

    /// `new StringBuilder().append(<pushed>).toString()` returned, the
    /// value pushed by `push` (with `branch`, after an `ifeq` whose target
    /// is the push: a branch into the chain), appended by `desc`.
    fn one_append(push: &'static [u8], desc: &'static str, branch: bool) -> ClassFile {
        method(
            |w, a| {
                new_builder(w, a);
                if branch {
                    a.emit(&[op::ILOAD_0], 1);
                    a.emit(&[op::IFEQ, 0, 3], -1);
                }
                a.emit(push, 1);
                call(w, a, "append", desc, -1);
                call(w, a, "toString", "()Ljava/lang/String;", 0);
                a.emit(&[op::ARETURN], -1);
            },
            Vec::new(),
        )
    }

    #[test]
    fn a_branch_into_the_chain_or_an_object_appended_keeps_it() {
        let object = "(Ljava/lang/Object;)Ljava/lang/StringBuilder;";
        assert!(fused(&one_append(&[op::ILOAD_0], APPEND_INT, true)).is_none());
        // append(Object): its toString runs at the append.
        assert!(fused(&one_append(&[op::ALOAD_1], object, false)).is_none());
        // The same chain with an int and no branch: fused, no local needed.
        assert!(fused(&one_append(&[op::ILOAD_0], APPEND_INT, false)).is_some());
    }
}

//! The verifier rejects hand-made bad methods, one rule at a time, with
//! HotSpot's error kind and message; and accepts the same method with the
//! fault removed, so each rejection is the rule's.
//!
//! Classes are written by the test assembler (`classfile_support::asm`)
//! and checked against a class path of stubs (`java/lang/Object`,
//! `Throwable`, `String`, a few interfaces, and `p/A`, `p/C`, `q/B` for
//! protected access): no JDK needed.

use crate::classfile_support;

use std::collections::HashMap;
use std::rc::Rc;

use classfile_support::asm::{frame, u2, ClassBuilder, Handler, MethodSpec, Vt};
use classfile_support::class_path::ClassPath;
use fastpath_vm::classfile::bytecode::op::*;
use fastpath_vm::classfile::verify::{verify_class, VerifyError};
use fastpath_vm::classfile::ClassFile;

const PUBLIC: u16 = 0x0001;
const PROTECTED: u16 = 0x0004;
const STATIC: u16 = 0x0008;
const NATIVE: u16 = 0x0100;
const PS: u16 = PUBLIC | STATIC;

const ILOAD_1: u8 = ILOAD_0 + 1;
const LLOAD_1: u8 = LLOAD_0 + 1;
const ALOAD_1: u8 = ALOAD_0 + 1;
const ISTORE_1: u8 = ISTORE_0 + 1;
const ASTORE_1: u8 = ASTORE_0 + 1;

const VERIFY: &str = "java/lang/VerifyError";
const FORMAT: &str = "java/lang/ClassFormatError";

/// A stub class: `<init>()V` that returns, other methods native.
fn stub(
    name: &str,
    super_name: Option<&str>,
    interfaces: &[&str],
    access: u16,
    members: &[(&str, &str, u16)],
) -> Vec<u8> {
    let mut c = match super_name {
        Some(s) => ClassBuilder::new(name, s),
        None => ClassBuilder::root(name),
    };
    for i in interfaces {
        c = c.interface(i);
    }
    c.access = access;
    for &(n, d, a) in members {
        if d.starts_with('(') {
            if n == "<init>" {
                c.method(MethodSpec::new(a, n, d, 0, 8, vec![RETURN]));
            } else {
                let flags = if a & 0x0400 != 0 { a } else { a | NATIVE };
                let mut m = MethodSpec::new(flags, n, d, 0, 0, vec![]);
                m.code = None;
                c.method(m);
            }
        } else {
            c.field(a, n, d);
        }
    }
    c.build()
}

fn stubs() -> HashMap<String, Rc<[u8]>> {
    let iface = 0x0601;
    let class = 0x0021;
    let init = ("<init>", "()V", PUBLIC);
    let list: Vec<(&str, Vec<u8>)> = vec![
        (
            "java/lang/Object",
            stub(
                "java/lang/Object",
                None,
                &[],
                class,
                &[
                    init,
                    ("toString", "()Ljava/lang/String;", PUBLIC),
                    ("clone", "()Ljava/lang/Object;", PROTECTED),
                ],
            ),
        ),
        (
            "java/io/Serializable",
            stub("java/io/Serializable", Some("java/lang/Object"), &[], iface, &[]),
        ),
        (
            "java/lang/Cloneable",
            stub("java/lang/Cloneable", Some("java/lang/Object"), &[], iface, &[]),
        ),
        (
            "java/lang/Runnable",
            stub(
                "java/lang/Runnable",
                Some("java/lang/Object"),
                &[],
                iface,
                &[("run", "()V", PUBLIC | 0x0400)],
            ),
        ),
        (
            "java/lang/Throwable",
            stub(
                "java/lang/Throwable",
                Some("java/lang/Object"),
                &["java/io/Serializable"],
                class,
                &[init],
            ),
        ),
        (
            "java/lang/Exception",
            stub(
                "java/lang/Exception",
                Some("java/lang/Throwable"),
                &[],
                class,
                &[init],
            ),
        ),
        (
            "java/lang/RuntimeException",
            stub(
                "java/lang/RuntimeException",
                Some("java/lang/Exception"),
                &[],
                class,
                &[init],
            ),
        ),
        (
            "java/lang/String",
            stub(
                "java/lang/String",
                Some("java/lang/Object"),
                &["java/io/Serializable"],
                class,
                &[init, ("length", "()I", PUBLIC)],
            ),
        ),
        (
            "java/lang/Class",
            stub("java/lang/Class", Some("java/lang/Object"), &[], class, &[]),
        ),
        (
            "java/lang/Integer",
            stub("java/lang/Integer", Some("java/lang/Object"), &[], class, &[]),
        ),
        (
            "p/A",
            stub(
                "p/A",
                Some("java/lang/Object"),
                &[],
                class,
                &[
                    ("<init>", "()V", PROTECTED),
                    ("f", "I", PROTECTED),
                    ("m", "()V", PROTECTED),
                    ("g", "I", PUBLIC),
                ],
            ),
        ),
        ("p/C", stub("p/C", Some("p/A"), &[], class, &[init])),
    ];
    list.into_iter()
        .map(|(n, b)| (n.to_string(), Rc::from(b.as_slice())))
        .collect()
}

/// Parses `bytes` (which must parse) and verifies it against the stubs.
fn verify(bytes: &[u8]) -> Result<(), VerifyError> {
    let class = ClassFile::parse(bytes).unwrap_or_else(|e| panic!("the test class does not parse: {e}"));
    let mut classes = stubs();
    classes.insert(class.this_class.clone(), Rc::from(bytes));
    let mut path = ClassPath::new(classes, None);
    verify_class(&class, &mut path)
}

/// A class `T` (or `name`) with the given methods, built by `f`.
fn class(name: &str, super_name: &str, f: impl FnOnce(&mut ClassBuilder)) -> Vec<u8> {
    let mut c = ClassBuilder::new(name, super_name);
    f(&mut c);
    c.build()
}

/// A class `T` with one static method `m` of `descriptor`.
fn method(
    descriptor: &str,
    max_stack: u16,
    max_locals: u16,
    code: Vec<u8>,
    frames: Vec<classfile_support::asm::Frame>,
) -> Vec<u8> {
    class("T", "java/lang/Object", |c| {
        c.method(MethodSpec::new(PS, "m", descriptor, max_stack, max_locals, code).frames(frames));
    })
}

#[track_caller]
fn ok(bytes: Vec<u8>) {
    if let Err(e) = verify(&bytes) {
        panic!("rejected: {}: {e}", e.java_class());
    }
}

#[track_caller]
fn rejects(bytes: Vec<u8>, kind: &str, message: &str) -> VerifyError {
    match verify(&bytes) {
        Ok(()) => panic!("accepted; expected {kind}: {message}"),
        Err(e) => {
            assert_eq!(e.java_class(), kind, "{e}");
            assert!(
                e.message().starts_with(message),
                "expected {message:?}, got {:?}",
                e.message()
            );
            e
        }
    }
}

#[test]
fn operand_stack_underflow_and_overflow() {
    ok(method(
        "()I",
        2,
        0,
        vec![ICONST_1, ICONST_2, IADD, IRETURN],
        vec![],
    ));
    let e = rejects(
        method("()I", 2, 0, vec![ICONST_1, IADD, IRETURN], vec![]),
        VERIFY,
        "Operand stack underflow",
    );
    assert_eq!(e.bci(), Some(1));
    assert_eq!(e.method().unwrap().name, "m");
    rejects(
        method("()I", 1, 0, vec![ICONST_1, ICONST_2, IADD, IRETURN], vec![]),
        VERIFY,
        "Operand stack overflow",
    );
    // A long needs two slots.
    ok(method("()J", 2, 0, vec![LCONST_1, LRETURN], vec![]));
    rejects(
        method("()J", 1, 0, vec![LCONST_1, LRETURN], vec![]),
        VERIFY,
        "Operand stack overflow",
    );
}

#[test]
fn wrong_operand_type_for_each_instruction_family() {
    let bad = "Bad type on operand stack";
    // int, long, float, double arithmetic
    rejects(
        method("()I", 2, 0, vec![ICONST_1, FCONST_1, IADD, IRETURN], vec![]),
        VERIFY,
        bad,
    );
    rejects(
        method("()J", 4, 0, vec![LCONST_1, ICONST_1, LADD, LRETURN], vec![]),
        VERIFY,
        bad,
    );
    rejects(
        method("()F", 2, 0, vec![ICONST_1, FNEG, FRETURN], vec![]),
        VERIFY,
        bad,
    );
    rejects(
        method("()D", 4, 0, vec![DCONST_1, LCONST_1, DADD, DRETURN], vec![]),
        VERIFY,
        bad,
    );
    ok(method(
        "()J",
        3,
        0,
        vec![LCONST_1, ICONST_1, LSHL, LRETURN],
        vec![],
    ));
    rejects(
        method("()J", 4, 0, vec![LCONST_1, LCONST_1, LSHL, LRETURN], vec![]),
        VERIFY,
        bad,
    );
    // conversions and comparisons
    rejects(
        method("()J", 2, 0, vec![FCONST_1, I2L, LRETURN], vec![]),
        VERIFY,
        bad,
    );
    rejects(
        method("()I", 4, 0, vec![DCONST_1, LCONST_1, DCMPL, IRETURN], vec![]),
        VERIFY,
        bad,
    );
    // stack manipulation never splits a long
    rejects(
        method("()V", 2, 0, vec![LCONST_1, POP, POP, RETURN], vec![]),
        VERIFY,
        bad,
    );
    ok(method("()V", 2, 0, vec![LCONST_1, POP2, RETURN], vec![]));
    rejects(
        method("()V", 4, 0, vec![LCONST_1, DUP, POP2, POP2, RETURN], vec![]),
        VERIFY,
        bad,
    );
    rejects(
        method("()V", 3, 0, vec![ICONST_1, LCONST_1, SWAP, RETURN], vec![]),
        VERIFY,
        bad,
    );
    ok(method(
        "()V",
        5,
        0,
        vec![ICONST_1, LCONST_1, DUP2_X1, POP2, POP, POP2, RETURN],
        vec![],
    ));
    // references
    rejects(
        method("()V", 1, 0, vec![ICONST_1, MONITORENTER, RETURN], vec![]),
        VERIFY,
        bad,
    );
    rejects(
        method("()I", 1, 0, vec![ICONST_0, ARRAYLENGTH, IRETURN], vec![]),
        VERIFY,
        bad,
    );
    rejects(
        method(
            "()V",
            2,
            0,
            vec![ICONST_0, ACONST_NULL, IF_ACMPEQ, 0, 3, RETURN],
            vec![frame(5, vec![], vec![])],
        ),
        VERIFY,
        bad,
    );
    rejects(
        method(
            "()V",
            1,
            0,
            vec![ICONST_0, IFNULL, 0, 3, RETURN],
            vec![frame(4, vec![], vec![])],
        ),
        VERIFY,
        bad,
    );
    rejects(
        method(
            "()V",
            1,
            0,
            vec![ACONST_NULL, IFEQ, 0, 3, RETURN],
            vec![frame(4, vec![], vec![])],
        ),
        VERIFY,
        bad,
    );
    ok(method(
        "()V",
        1,
        0,
        vec![ACONST_NULL, IFNULL, 0, 3, RETURN],
        vec![frame(4, vec![], vec![])],
    ));
}

#[test]
fn array_instructions_check_the_array_kind() {
    // newarray int; iconst_0; faload
    let arr = |kind: u8, load: u8, ret: u8| vec![ICONST_1, NEWARRAY, kind, ICONST_0, load, ret];
    ok(method("()I", 2, 0, arr(10, IALOAD, IRETURN), vec![]));
    ok(method("()I", 2, 0, arr(4, BALOAD, IRETURN), vec![]));
    ok(method("()I", 2, 0, arr(8, BALOAD, IRETURN), vec![]));
    rejects(
        method("()F", 2, 0, arr(10, FALOAD, FRETURN), vec![]),
        VERIFY,
        "Bad type on operand stack in faload",
    );
    rejects(
        method("()I", 2, 0, arr(5, SALOAD, IRETURN), vec![]),
        VERIFY,
        "Bad type on operand stack in saload",
    );
    rejects(
        method("()I", 2, 0, arr(9, CALOAD, IRETURN), vec![]),
        VERIFY,
        "Bad type on operand stack in caload",
    );
    // aaload of an int array; aastore into one; a reference as the index
    rejects(
        method("()Ljava/lang/Object;", 2, 0, arr(10, AALOAD, ARETURN), vec![]),
        VERIFY,
        "Bad type on operand stack in aaload",
    );
    rejects(
        method(
            "()V",
            3,
            0,
            vec![ICONST_1, NEWARRAY, 10, ICONST_0, ACONST_NULL, AASTORE, RETURN],
            vec![],
        ),
        VERIFY,
        "Bad type on operand stack in aastore",
    );
    rejects(
        method(
            "()I",
            2,
            0,
            vec![ICONST_1, NEWARRAY, 10, ACONST_NULL, IALOAD, IRETURN],
            vec![],
        ),
        VERIFY,
        "Bad type on operand stack",
    );
    // an array of strings
    let strings = class("T", "java/lang/Object", |c| {
        let s = c.class("java/lang/String");
        let mut code = vec![ICONST_1, ANEWARRAY];
        code.extend(u2(s));
        code.extend([ICONST_0, AALOAD, ARETURN]);
        c.method(MethodSpec::new(
            PS,
            "m",
            "()Ljava/lang/String;",
            2,
            0,
            code.clone(),
        ));
        code[5] = IALOAD;
        code[6] = IRETURN;
        c.method(MethodSpec::new(PS, "n", "()I", 2, 0, code));
    });
    rejects(strings, VERIFY, "Bad type on operand stack in iaload");
    rejects(
        method(
            "()I",
            1,
            0,
            vec![ICONST_0, NEWARRAY, 3, ARRAYLENGTH, IRETURN],
            vec![],
        ),
        VERIFY,
        "Bad newarray type",
    );
}

#[test]
fn locals_are_bounded_and_typed() {
    ok(method("(I)I", 1, 1, vec![ILOAD_0, IRETURN], vec![]));
    rejects(
        method("(I)I", 1, 1, vec![ILOAD_1, IRETURN], vec![]),
        VERIFY,
        "Local variable table overflow",
    );
    rejects(
        method("(I)I", 1, 1, vec![ICONST_0, ISTORE, 7, ICONST_0, IRETURN], vec![]),
        VERIFY,
        "Local variable table overflow",
    );
    rejects(
        method("(F)I", 1, 1, vec![ILOAD_0, IRETURN], vec![]),
        VERIFY,
        "Bad local variable type",
    );
    rejects(
        method("(I)V", 1, 1, vec![ALOAD_0, POP, RETURN], vec![]),
        VERIFY,
        "Bad local variable type",
    );
    rejects(
        method("(F)V", 0, 1, vec![IINC, 0, 1, RETURN], vec![]),
        VERIFY,
        "Bad local variable type",
    );
    rejects(
        method("(F)V", 0, 1, vec![WIDE, IINC, 0, 0, 0, 1, RETURN], vec![]),
        VERIFY,
        "Bad local variable type",
    );
    // a long takes two locals; its halves cannot be read alone
    ok(method("(J)J", 2, 2, vec![LLOAD_0, LRETURN], vec![]));
    rejects(
        method("(J)J", 2, 2, vec![LLOAD_1, LRETURN], vec![]),
        VERIFY,
        "get long/double overflows locals",
    );
    rejects(
        method("(J)I", 1, 2, vec![ILOAD_1, IRETURN], vec![]),
        VERIFY,
        "Bad local variable type",
    );
    rejects(
        method("()V", 2, 1, vec![LCONST_0, LSTORE_0, RETURN], vec![]),
        VERIFY,
        "Local variable table overflow",
    );
    // a store into the second half kills the first
    rejects(
        method("(J)J", 2, 2, vec![ICONST_0, ISTORE_1, LLOAD_0, LRETURN], vec![]),
        VERIFY,
        "Bad local variable type",
    );
    // a never-stored local is top
    rejects(
        method("()I", 1, 2, vec![ILOAD_1, IRETURN], vec![]),
        VERIFY,
        "Bad local variable type",
    );
}

#[test]
fn branches_land_on_instructions_with_a_frame() {
    // 0: iconst_0; 1: ifeq +5 -> 6; 4: iconst_1; 5: ireturn; 6: iconst_2; 7: ireturn
    let code = vec![ICONST_0, IFEQ, 0, 5, ICONST_1, IRETURN, ICONST_2, IRETURN];
    ok(method("()I", 1, 0, code.clone(), vec![frame(6, vec![], vec![])]));
    rejects(
        method("()I", 1, 0, code.clone(), vec![]),
        VERIFY,
        "Expecting a stackmap frame at branch target 6",
    );
    // into the middle of an instruction: no frame can be there
    let mid = vec![ICONST_0, IFEQ, 0, 3, SIPUSH, 0, 1, IRETURN];
    rejects(
        method("()I", 1, 0, mid.clone(), vec![]),
        VERIFY,
        "Expecting a stackmap frame at branch target 4",
    );
    let mut into = mid.clone();
    into[3] = 4; // -> 5, inside sipush
    rejects(
        method("()I", 1, 0, into.clone(), vec![]),
        VERIFY,
        "Expecting a stackmap frame at branch target 5",
    );
    rejects(
        method("()I", 1, 0, into, vec![frame(5, vec![], vec![])]),
        VERIFY,
        "StackMapTable error: bad offset",
    );
    // outside the code
    rejects(
        method(
            "()I",
            1,
            0,
            vec![ICONST_0, IFEQ, 0, 40, ICONST_1, IRETURN],
            vec![],
        ),
        VERIFY,
        "Illegal target of jump or branch",
    );
    // a frame after an unconditional transfer
    let dead = vec![GOTO, 0, 4, NOP, RETURN];
    rejects(
        method("()V", 0, 0, dead, vec![frame(4, vec![], vec![])]),
        VERIFY,
        "Expecting a stack map frame",
    );
    ok(method(
        "()V",
        0,
        0,
        vec![GOTO, 0, 3, RETURN],
        vec![frame(3, vec![], vec![])],
    ));
    // switches: every target needs its frame
    let mut sw = vec![ICONST_0, TABLESWITCH, 0, 0];
    for v in [23i32, 0, 1, 23, 24] {
        sw.extend(v.to_be_bytes());
    }
    sw.extend([RETURN, RETURN]);
    let f = |o| frame(o, vec![], vec![]);
    ok(method("()V", 1, 0, sw.clone(), vec![f(24), f(25)]));
    rejects(
        method("()V", 1, 0, sw, vec![f(24)]),
        VERIFY,
        "Expecting a stackmap frame at branch target 25",
    );
}

#[test]
fn frames_must_match() {
    // (I)I: 0: iload_0; 1: ifeq 6; 4: iload_0; 5: ireturn; 6: iconst_0; 7: ireturn
    let code = vec![ILOAD_0, IFEQ, 0, 5, ILOAD_0, IRETURN, ICONST_0, IRETURN];
    ok(method(
        "(I)I",
        1,
        1,
        code.clone(),
        vec![frame(6, vec![Vt::Int], vec![])],
    ));
    ok(method(
        "(I)I",
        1,
        1,
        code.clone(),
        vec![frame(6, vec![Vt::Top], vec![])],
    ));
    let e = rejects(
        method(
            "(I)I",
            1,
            1,
            code.clone(),
            vec![frame(6, vec![Vt::Float], vec![])],
        ),
        VERIFY,
        "Inconsistent stackmap frames at branch target 6",
    );
    assert!(format!("{e}").contains("locals[0]"), "{e}");
    rejects(
        method(
            "(I)I",
            2,
            1,
            code.clone(),
            vec![frame(6, vec![Vt::Int], vec![Vt::Int])],
        ),
        VERIFY,
        "Inconsistent stackmap frames at branch target 6",
    );
    // falling into a frame that does not fit
    rejects(
        method(
            "(F)F",
            1,
            1,
            vec![NOP, FLOAD_0, FRETURN],
            vec![frame(1, vec![Vt::Int], vec![])],
        ),
        VERIFY,
        "Instruction type does not match stack map",
    );
    // a reference frame needs the hierarchy: String is an Object, not an Integer
    let str_frame = |t| {
        method(
            "(Ljava/lang/String;)V",
            1,
            1,
            vec![ALOAD_0, IFNULL, 0, 3, RETURN],
            vec![frame(4, vec![t], vec![])],
        )
    };
    ok(str_frame(Vt::Obj("java/lang/Object")));
    ok(str_frame(Vt::Obj("java/io/Serializable")));
    rejects(
        str_frame(Vt::Obj("java/lang/Integer")),
        VERIFY,
        "Inconsistent stackmap frames at branch target 4",
    );
}

#[test]
fn stack_map_table_contents_are_checked() {
    let code = vec![ILOAD_0, IFEQ, 0, 3, RETURN];
    let with = |f| method("(I)V", 1, 1, code.clone(), vec![f]);
    rejects(
        with(frame(4, vec![Vt::Int, Vt::Int], vec![])),
        FORMAT,
        "StackMapTable format error: bad type array size",
    );
    rejects(
        with(frame(4, vec![Vt::Int], vec![Vt::Long])),
        FORMAT,
        "StackMapTable format error: bad type array size",
    );
    rejects(
        with(frame(4, vec![Vt::Uninit(1)], vec![])),
        FORMAT,
        "StackMapTable format error: bad offset for Uninitialized",
    );
    rejects(
        with(frame(9, vec![Vt::Int], vec![])),
        VERIFY,
        "StackMapTable error: bad offset",
    );
    // an Object naming a constant that is not a class: a raw table
    let bad_class = class("T", "java/lang/Object", |c| {
        let utf8 = c.utf8("not a class");
        let mut m = MethodSpec::new(PS, "m", "(I)V", 1, 1, code.clone());
        let mut t = vec![0, 1, 255, 0, 4, 0, 1, 7];
        t.extend(u2(utf8));
        t.extend([0, 0]);
        m.raw_stack_map = Some(t);
        c.method(m);
    });
    rejects(bad_class, FORMAT, "StackMapTable format error: bad class index");
    // a chop of more locals than there are
    let chop = class("T", "java/lang/Object", |c| {
        let mut m = MethodSpec::new(PS, "m", "(I)V", 1, 1, code.clone());
        m.raw_stack_map = Some(vec![0, 1, 249, 0, 4]);
        c.method(m);
    });
    rejects(chop, FORMAT, "StackMapTable format error: bad type array size");
}

#[test]
fn exception_handlers_need_matching_frames() {
    // 0: aconst_null; 1: athrow; 2: astore_0; 3: return  [0,2) -> 2 any
    let code = vec![ACONST_NULL, ATHROW, ASTORE_0, RETURN];
    let h = |catch| Handler {
        start: 0,
        end: 2,
        handler: 2,
        catch,
    };
    let m = |frames, catch| {
        class("T", "java/lang/Object", |c| {
            c.method(
                MethodSpec::new(PS, "m", "()V", 1, 1, code.clone())
                    .frames(frames)
                    .handlers(vec![h(catch)]),
            );
        })
    };
    ok(m(
        vec![frame(2, vec![], vec![Vt::Obj("java/lang/Throwable")])],
        None,
    ));
    ok(m(
        vec![frame(2, vec![], vec![Vt::Obj("java/lang/Exception")])],
        Some("java/lang/Exception"),
    ));
    rejects(
        m(vec![], None),
        VERIFY,
        "Expecting a stackmap frame at branch target 2",
    );
    rejects(
        m(vec![frame(2, vec![], vec![Vt::Obj("java/lang/Exception")])], None),
        VERIFY,
        "Stack map does not match the one at exception handler 2",
    );
    rejects(
        m(
            vec![frame(2, vec![], vec![Vt::Obj("java/lang/String")])],
            Some("java/lang/String"),
        ),
        VERIFY,
        "Catch type is not a subclass of Throwable in exception handler 2",
    );
    // handler offsets must be instruction starts (a ClassFormatError)
    let mid = class("T", "java/lang/Object", |c| {
        let code = vec![SIPUSH, 0, 1, POP, RETURN];
        let hs = vec![Handler {
            start: 1,
            end: 3,
            handler: 4,
            catch: None,
        }];
        c.method(MethodSpec::new(PS, "m", "()V", 1, 0, code).handlers(hs));
    });
    rejects(mid, FORMAT, "Illegal exception table start_pc 1");
    // athrow takes a Throwable
    rejects(
        class("T", "java/lang/Object", |c| {
            let s = c.string("no");
            c.method(MethodSpec::new(PS, "m", "()V", 1, 0, vec![LDC, s as u8, ATHROW]));
        }),
        VERIFY,
        "Bad type on operand stack",
    );
}

#[test]
fn returns_match_the_descriptor() {
    rejects(
        method("()V", 1, 0, vec![ICONST_0, IRETURN], vec![]),
        VERIFY,
        "Method does not expect a return value",
    );
    rejects(
        method("()I", 0, 0, vec![RETURN], vec![]),
        VERIFY,
        "Method expects a return value",
    );
    rejects(
        method("()I", 1, 0, vec![FCONST_0, FRETURN], vec![]),
        VERIFY,
        "Bad return type",
    );
    rejects(
        method("()J", 2, 0, vec![DCONST_0, DRETURN], vec![]),
        VERIFY,
        "Bad return type",
    );
    ok(method("()Z", 1, 0, vec![ICONST_1, IRETURN], vec![]));
    ok(method("()C", 1, 0, vec![ICONST_1, IRETURN], vec![]));
    rejects(
        method("()Ljava/lang/Object;", 1, 0, vec![ICONST_0, ARETURN], vec![]),
        VERIFY,
        "Bad type on operand stack",
    );
    let strings = |ret: &str| {
        let ret = ret.to_string();
        class("T", "java/lang/Object", move |c| {
            let s = c.string("x");
            c.method(MethodSpec::new(PS, "m", &ret, 1, 0, vec![LDC, s as u8, ARETURN]));
        })
    };
    ok(strings("()Ljava/lang/String;"));
    ok(strings("()Ljava/lang/Object;"));
    ok(strings("()Ljava/lang/Runnable;")); // interfaces are Object to the verifier
    rejects(strings("()Ljava/lang/Integer;"), VERIFY, "Bad return type");
    rejects(strings("()[Ljava/lang/String;"), VERIFY, "Bad return type");
}

#[test]
fn control_may_not_fall_off_the_end() {
    ok(method("()V", 1, 0, vec![ICONST_0, POP, RETURN], vec![]));
    rejects(
        method("()V", 1, 0, vec![ICONST_0, POP], vec![]),
        VERIFY,
        "Control flow falls through code end",
    );
    rejects(
        method(
            "(I)V",
            1,
            1,
            vec![ILOAD_0, IFEQ, 0, 4, RETURN, NOP],
            vec![frame(5, vec![Vt::Int], vec![])],
        ),
        VERIFY,
        "Control flow falls through code end",
    );
}

#[test]
fn instructions_are_checked_structurally() {
    rejects(
        method("()V", 0, 0, vec![0xcb, RETURN], vec![]),
        VERIFY,
        "Bad instruction",
    );
    rejects(
        method("()V", 0, 0, vec![SIPUSH, 0], vec![]),
        VERIFY,
        "Bad instruction",
    );
    rejects(
        method("()V", 1, 1, vec![WIDE, NOP, 0, 0, RETURN], vec![]),
        VERIFY,
        "Bad instruction",
    );
    // Bad operands are found where the pass reaches them (a type error
    // before them comes first), an unknown opcode before anything else.
    rejects(
        method(
            "()V",
            1,
            0,
            vec![FCONST_0, INEG, ICONST_0, NEWARRAY, 3, RETURN],
            vec![],
        ),
        VERIFY,
        "Bad type on operand stack",
    );
    rejects(
        method("()V", 1, 0, vec![ICONST_0, NEWARRAY, 3, POP, RETURN], vec![]),
        VERIFY,
        "Bad newarray type 3",
    );
    rejects(
        method(
            "(I)V",
            1,
            1,
            vec![ILOAD_0, IFEQ, 0, 4, 0xcb, RETURN],
            vec![frame(9, vec![], vec![])],
        ),
        VERIFY,
        "Bad instruction",
    );
    // jsr and ret are not allowed from version 51 (50 would fail over
    // to type inference in HotSpot)
    let jsr = vec![JSR, 0, 4, RETURN, ASTORE_0, RET, 0];
    rejects(
        method("()V", 1, 1, jsr, vec![frame(4, vec![], vec![Vt::Top])]),
        VERIFY,
        "Bad instruction: a8",
    );
    // lookupswitch keys in order
    let mut ls = vec![ICONST_0, LOOKUPSWITCH, 0, 0];
    for v in [27i32, 2, 5, 27, 1, 27] {
        ls.extend(v.to_be_bytes());
    }
    ls.push(RETURN);
    rejects(
        method("()V", 1, 0, ls, vec![frame(28, vec![], vec![])]),
        VERIFY,
        "Unsorted lookupswitch keys",
    );
}

/// A stack map frame may name a `new` that lies past an instruction whose
/// operands are bad (which the pass reports only when it gets there): an
/// `<init>` call before it still finds the `new`.
#[test]
fn a_frame_may_name_a_new_past_a_bad_instruction() {
    let bytes = class("T", "java/lang/Object", |c| {
        let s = c.class("java/lang/String");
        let init = call(c, INVOKESPECIAL, "java/lang/String", "<init>", "()V");
        // 0: return; 1: invokespecial String.<init>; 4: return;
        // 5: newarray 3 (bad); 7: new String; 10: return
        let mut code = vec![RETURN];
        code.extend(init);
        code.extend([RETURN, NEWARRAY, 3, NEW]);
        code.extend(u2(s));
        code.push(RETURN);
        let frames = vec![frame(1, vec![], vec![Vt::Uninit(7)]), frame(5, vec![], vec![])];
        c.method(MethodSpec::new(PS, "m", "()V", 1, 0, code).frames(frames));
    });
    rejects(bytes, VERIFY, "Bad newarray type 3");
}

#[test]
fn class_file_versions() {
    let straight = |major| {
        let mut c = ClassBuilder::new("T", "java/lang/Object");
        c.major = major;
        c.method(MethodSpec::new(PS, "m", "()V", 0, 0, vec![RETURN]));
        c.build()
    };
    let e = rejects(straight(49), VERIFY, "Class T has version 49.0");
    assert!(e.message().contains("predates StackMapTable"));
    ok(straight(50));
    ok(straight(69));
    // Nonzero switch padding is refused before version 51 only.
    let padded = |major| {
        let mut c = ClassBuilder::new("T", "java/lang/Object");
        c.major = major;
        let mut code = vec![ICONST_0, TABLESWITCH, 7, 7];
        for v in [19i32, 0, 0, 19] {
            code.extend(v.to_be_bytes());
        }
        code.push(RETURN);
        c.method(MethodSpec::new(PS, "m", "()V", 1, 0, code).frames(vec![frame(20, vec![], vec![])]));
        c.build()
    };
    ok(padded(51));
    rejects(
        padded(50),
        VERIFY,
        "Nonzero padding byte in lookupswitch or tableswitch",
    );
}

/// Writes a method: its code, descriptor and max_stack.
type CodeMaker = dyn Fn(&mut ClassBuilder) -> (Vec<u8>, &'static str, u16);

#[test]
fn constant_pool_operands_have_the_right_kind() {
    let with = |f: &CodeMaker| {
        class("T", "java/lang/Object", |c| {
            let (code, d, stack) = f(c);
            c.method(MethodSpec::new(PS, "m", d, stack, 0, code));
        })
    };
    rejects(
        with(&|c| {
            let m = c.method_ref("T", "m", "()V");
            (vec![LDC, m as u8, POP, RETURN], "()V", 1)
        }),
        VERIFY,
        "Illegal type at constant pool entry",
    );
    rejects(
        with(&|c| {
            let i = c.integer(5);
            let mut code = vec![LDC2_W];
            code.extend(u2(i));
            code.extend([POP2, RETURN]);
            (code, "()V", 2)
        }),
        VERIFY,
        "Illegal type at constant pool entry",
    );
    ok(with(&|c| {
        let l = c.long(5);
        let mut code = vec![LDC2_W];
        code.extend(u2(l));
        code.extend([POP2, RETURN]);
        (code, "()V", 2)
    }));
    rejects(
        with(&|_| (vec![GETSTATIC, 0x7f, 0x00, POP, RETURN], "()V", 1)),
        VERIFY,
        "Illegal constant pool index 32512",
    );
    rejects(
        with(&|c| {
            let f = c.field_ref("T", "x", "I");
            let mut code = vec![INVOKESTATIC];
            code.extend(u2(f));
            code.push(RETURN);
            (code, "()V", 1)
        }),
        VERIFY,
        "Illegal type at constant pool entry",
    );
    rejects(
        with(&|c| {
            let m = c.method_ref("java/lang/Runnable", "run", "()V");
            let mut code = vec![ACONST_NULL, INVOKEINTERFACE];
            code.extend(u2(m));
            code.extend([1, 0, RETURN]);
            (code, "()V", 1)
        }),
        VERIFY,
        "Illegal type at constant pool entry",
    );
    rejects(
        with(&|c| {
            let m = c.interface_method_ref("java/lang/Runnable", "run", "()V");
            let mut code = vec![ACONST_NULL, INVOKEINTERFACE];
            code.extend(u2(m));
            code.extend([2, 0, RETURN]);
            (code, "()V", 1)
        }),
        VERIFY,
        "Inconsistent args count operand in invokeinterface",
    );
    rejects(
        with(&|c| {
            let a = c.class("[I");
            let mut code = vec![NEW];
            code.extend(u2(a));
            code.extend([POP, RETURN]);
            (code, "()V", 1)
        }),
        VERIFY,
        "Illegal new instruction",
    );
    rejects(
        with(&|c| {
            let a = c.class("[[I");
            let mut code = vec![ICONST_1, ICONST_1, ICONST_1, MULTIANEWARRAY];
            code.extend(u2(a));
            code.extend([3, POP, RETURN]);
            (code, "()V", 3)
        }),
        VERIFY,
        "Illegal dimension in multianewarray instruction: 3",
    );
    rejects(
        with(&|c| {
            let m = c.method_ref("T", "<init>", "()V");
            let mut code = vec![INVOKESTATIC];
            code.extend(u2(m));
            code.push(RETURN);
            (code, "()V", 0)
        }),
        VERIFY,
        "Illegal call to internal method",
    );
}

#[test]
fn field_and_method_operands_follow_descriptors() {
    let fields = |value: u8, object: u8| {
        class("T", "java/lang/Object", |c| {
            c.field(PUBLIC, "x", "J");
            c.default_constructor();
            let f = c.field_ref("T", "x", "J");
            let mut code = vec![object, value, PUTFIELD];
            code.extend(u2(f));
            code.push(RETURN);
            c.method(MethodSpec::new(PUBLIC, "m", "()V", 3, 1, code));
        })
    };
    ok(fields(LCONST_1, ALOAD_0));
    rejects(fields(ICONST_1, ALOAD_0), VERIFY, "Bad type on operand stack");
    rejects(
        fields(LCONST_1, ICONST_0),
        VERIFY,
        "Bad type on operand stack in putfield",
    );
    // a getfield on an object of another class
    rejects(
        class("T", "java/lang/Object", |c| {
            c.field(PUBLIC, "x", "I");
            let f = c.field_ref("T", "x", "I");
            let s = c.string("s");
            let mut code = vec![LDC, s as u8, GETFIELD];
            code.extend(u2(f));
            code.push(IRETURN);
            c.method(MethodSpec::new(PS, "m", "()I", 1, 0, code));
        }),
        VERIFY,
        "Bad type on operand stack",
    );
    // invoke arguments
    let call = |arg: u8| {
        class("T", "java/lang/Object", |c| {
            let m = c.method_ref("T", "n", "(JLjava/lang/String;)V");
            c.method(MethodSpec::new(
                PS,
                "n",
                "(JLjava/lang/String;)V",
                0,
                3,
                vec![RETURN],
            ));
            let mut code = vec![LCONST_0, arg, INVOKESTATIC];
            code.extend(u2(m));
            code.push(RETURN);
            c.method(MethodSpec::new(PS, "m", "()V", 3, 0, code));
        })
    };
    ok(call(ACONST_NULL));
    rejects(call(ICONST_0), VERIFY, "Bad type on operand stack");
    // invokespecial of a method of an unrelated class
    rejects(
        class("T", "java/lang/Object", |c| {
            let m = c.method_ref("java/lang/String", "length", "()I");
            let mut code = vec![ALOAD_0, INVOKESPECIAL];
            code.extend(u2(m));
            code.push(IRETURN);
            c.method(MethodSpec::new(PUBLIC, "m", "()I", 1, 1, code));
        }),
        VERIFY,
        "Bad invokespecial instruction: current class isn't assignable to reference class.",
    );
}

/// `<init>` of class `T` with `code` (max_locals 1: `this`).
fn constructor(
    super_name: &str,
    code: impl FnOnce(&mut ClassBuilder) -> Vec<u8>,
    frames: Vec<classfile_support::asm::Frame>,
) -> Vec<u8> {
    class("T", super_name, |c| {
        c.field(0, "own", "I");
        let code = code(c);
        c.method(MethodSpec::new(PUBLIC, "<init>", "()V", 3, 2, code).frames(frames));
    })
}

fn call(c: &mut ClassBuilder, op: u8, class: &str, name: &str, d: &str) -> Vec<u8> {
    let m = c.method_ref(class, name, d);
    let mut v = vec![op];
    v.extend(u2(m));
    v
}

#[test]
fn objects_are_initialized_before_use() {
    let obj = "java/lang/Object";
    let sup = |c: &mut ClassBuilder| call(c, INVOKESPECIAL, obj, "<init>", "()V");
    ok(constructor(
        obj,
        |c| [vec![ALOAD_0], sup(c), vec![RETURN]].concat(),
        vec![],
    ));
    rejects(
        constructor(obj, |_| vec![RETURN], vec![]),
        VERIFY,
        "Constructor must call super() or this() before return",
    );
    rejects(
        constructor(
            obj,
            |c| {
                [
                    vec![ALOAD_0],
                    call(c, INVOKESPECIAL, "java/lang/String", "<init>", "()V"),
                    vec![RETURN],
                ]
                .concat()
            },
            vec![],
        ),
        VERIFY,
        "Bad <init> method call",
    );
    // using this before super()
    rejects(
        constructor(
            obj,
            |c| {
                [
                    vec![ALOAD_0],
                    call(c, INVOKEVIRTUAL, obj, "toString", "()Ljava/lang/String;"),
                    vec![POP, ALOAD_0],
                    sup(c),
                    vec![RETURN],
                ]
                .concat()
            },
            vec![],
        ),
        VERIFY,
        "Bad type on operand stack",
    );
    // its own fields may be set before super(), not read
    let own = |c: &mut ClassBuilder, op| {
        let f = c.field_ref("T", "own", "I");
        let mut v = vec![ALOAD_0];
        if op == PUTFIELD {
            v.push(ICONST_1);
        }
        v.push(op);
        v.extend(u2(f));
        if op == GETFIELD {
            v.push(POP);
        }
        v
    };
    ok(constructor(
        obj,
        |c| [own(c, PUTFIELD), vec![ALOAD_0], sup(c), vec![RETURN]].concat(),
        vec![],
    ));
    rejects(
        constructor(
            obj,
            |c| [own(c, GETFIELD), vec![ALOAD_0], sup(c), vec![RETURN]].concat(),
            vec![],
        ),
        VERIFY,
        "Bad type on operand stack",
    );
    // a new object: initialized by the <init> of its class only
    let make = |init_class: &'static str| {
        method_with(move |c| {
            let s = c.class("java/lang/String");
            let mut code = vec![NEW];
            code.extend(u2(s));
            code.push(DUP);
            code.extend(call(c, INVOKESPECIAL, init_class, "<init>", "()V"));
            code.push(ARETURN);
            ("()Ljava/lang/String;", code)
        })
    };
    ok(make("java/lang/String"));
    rejects(make("java/lang/Object"), VERIFY, "Call to wrong <init> method");
    // returning or calling a method on it before <init>
    rejects(
        method_with(|c| {
            let s = c.class("java/lang/String");
            let mut code = vec![NEW];
            code.extend(u2(s));
            code.push(ARETURN);
            ("()Ljava/lang/String;", code)
        }),
        VERIFY,
        "Bad return type",
    );
    rejects(
        method_with(|c| {
            let s = c.class("java/lang/String");
            let mut code = vec![NEW];
            code.extend(u2(s));
            code.extend(call(c, INVOKEVIRTUAL, "java/lang/String", "length", "()I"));
            code.push(IRETURN);
            ("()I", code)
        }),
        VERIFY,
        "Bad type on operand stack",
    );
    // <init> on an initialized object
    rejects(
        method_with(|c| {
            let s = c.string("s");
            let mut code = vec![LDC, s as u8];
            code.extend(call(c, INVOKESPECIAL, "java/lang/String", "<init>", "()V"));
            code.push(RETURN);
            ("()V", code)
        }),
        VERIFY,
        "Bad operand type when invoking <init>",
    );
    // a branch before super() to a frame without flagThisUninit
    rejects(
        constructor(
            obj,
            |c| [vec![ICONST_0, IFEQ, 0, 3, ALOAD_0], sup(c), vec![RETURN]].concat(),
            vec![frame(4, vec![Vt::Top], vec![])],
        ),
        VERIFY,
        "Inconsistent stackmap frames at branch target 4",
    );
    ok(constructor(
        obj,
        |c| [vec![ICONST_0, IFEQ, 0, 3, ALOAD_0], sup(c), vec![RETURN]].concat(),
        vec![frame(4, vec![Vt::UninitThis], vec![])],
    ));
    // an uninitialized object may cross a backward branch (JDK 8 on)
    ok(method_with(|c| {
        let s = c.class("java/lang/String");
        let mut code = vec![NEW];
        code.extend(u2(s));
        code.extend([ICONST_0, IFNE, 0xff, 0xff]); // 4: ifne -> 3 (iconst_0)
        code.push(DUP);
        code.extend(call(c, INVOKESPECIAL, "java/lang/String", "<init>", "()V"));
        code.push(ARETURN);
        ("()Ljava/lang/String;", code)
    }));
}

/// A class `T` with one static method `m`, its descriptor and code from
/// `f`, stack 3, locals 2, and a frame at offset 3 with an uninitialized
/// object from offset 0 on the stack (used by the backward-branch case).
fn method_with(f: impl FnOnce(&mut ClassBuilder) -> (&'static str, Vec<u8>)) -> Vec<u8> {
    class("T", "java/lang/Object", |c| {
        let (d, code) = f(c);
        let frames = if code.len() > 7 && code[4] == IFNE {
            vec![frame(3, vec![], vec![Vt::Uninit(0)])]
        } else {
            vec![]
        };
        c.method(MethodSpec::new(PS, "m", d, 3, 2, code).frames(frames));
    })
}

#[test]
fn super_call_inside_a_try_range_needs_handlers_that_throw() {
    // <init>: 0: aload_0; 1: invokespecial Object.<init>; 4: return;
    // handler 5: astore_1; 6: return   (covers [0, 4))
    let bytes = class("T", "java/lang/Object", |c| {
        let mut code = vec![ALOAD_0];
        code.extend(call(c, INVOKESPECIAL, "java/lang/Object", "<init>", "()V"));
        code.extend([RETURN, ASTORE_1, RETURN]);
        let hs = vec![Handler {
            start: 0,
            end: 4,
            handler: 5,
            catch: None,
        }];
        let frames = vec![frame(
            5,
            vec![Vt::UninitThis],
            vec![Vt::Obj("java/lang/Throwable")],
        )];
        c.method(
            MethodSpec::new(PUBLIC, "<init>", "()V", 1, 2, code)
                .handlers(hs)
                .frames(frames),
        );
    });
    rejects(
        bytes,
        VERIFY,
        "Bad <init> method call from after the start of a try block",
    );
}

#[test]
fn protected_members_of_a_superclass_in_another_package() {
    // q/B extends p/A; A.f, A.m() and A.<init>() are protected.
    let b = |object: &'static str, op: u8| {
        class("q/B", "p/A", |c| {
            let mut code = vec![ALOAD_1];
            match op {
                GETFIELD => {
                    let f = c.field_ref("p/A", "f", "I");
                    code.push(GETFIELD);
                    code.extend(u2(f));
                    code.push(POP);
                }
                _ => code.extend(call(c, INVOKEVIRTUAL, "p/A", "m", "()V")),
            }
            code.push(RETURN);
            let d = format!("(L{object};)V");
            c.method(MethodSpec::new(PUBLIC, "m", &d, 1, 2, code));
        })
    };
    ok(b("q/B", GETFIELD));
    rejects(
        b("p/A", GETFIELD),
        VERIFY,
        "Bad access to protected data in getfield",
    );
    rejects(
        b("p/C", GETFIELD),
        VERIFY,
        "Bad access to protected data in getfield",
    );
    ok(b("q/B", INVOKEVIRTUAL));
    rejects(
        b("p/A", INVOKEVIRTUAL),
        VERIFY,
        "Bad access to protected data in invokevirtual",
    );
    // public members, and the same package, are not checked
    ok(class("q/B", "p/A", |c| {
        let f = c.field_ref("p/A", "g", "I");
        let mut code = vec![ALOAD_1, GETFIELD];
        code.extend(u2(f));
        code.extend([POP, RETURN]);
        c.method(MethodSpec::new(PUBLIC, "m", "(Lp/A;)V", 1, 2, code));
    }));
    ok(class("p/D", "p/A", |c| {
        let f = c.field_ref("p/A", "f", "I");
        let mut code = vec![ALOAD_1, GETFIELD];
        code.extend(u2(f));
        code.extend([POP, RETURN]);
        c.method(MethodSpec::new(PUBLIC, "m", "(Lp/A;)V", 1, 2, code));
    }));
    // new p/A() from q/B: A's <init> is protected
    rejects(
        class("q/B", "p/A", |c| {
            let a = c.class("p/A");
            let mut code = vec![NEW];
            code.extend(u2(a));
            code.push(DUP);
            code.extend(call(c, INVOKESPECIAL, "p/A", "<init>", "()V"));
            code.extend([POP, RETURN]);
            c.method(MethodSpec::new(PS, "m", "()V", 2, 0, code));
        }),
        VERIFY,
        "Bad access to protected <init> method",
    );
}

#[test]
fn a_missing_class_is_the_hierarchys_error() {
    // Checking that Missing is assignable to Runnable loads... nothing
    // (interfaces take any object); to Other, it loads Other.
    let cast = |ret: &'static str| {
        method_with(move |c| {
            let m = c.class("Missing");
            let mut code = vec![ACONST_NULL, CHECKCAST];
            code.extend(u2(m));
            code.push(ARETURN);
            (ret, code)
        })
    };
    ok(cast("()Ljava/lang/Object;"));
    ok(cast("()LMissing;"));
    let e = rejects(cast("()LOther;"), "java/lang/NoClassDefFoundError", "Other");
    assert!(matches!(e, VerifyError::Linkage(_)));
    ok(cast("()Ljava/lang/Runnable;"));
}

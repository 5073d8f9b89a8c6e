//! String concatenation call sites javac never writes: recipes whose tags
//! do not match the call site's arguments or the constants, bad return
//! types, too many slots, constants of every kind, bootstrap handles with
//! the wrong descriptor or kind. Each is a class whose `main` runs one call
//! site and prints its result; the VM must print what HotSpot 25 prints
//! (recorded below: stdout, or the uncaught exception and its causes,
//! stack frames left out). Where a JDK 25's `java` is at hand, HotSpot runs
//! the same classes and must print the recorded text too, so a record that
//! went stale fails here rather than passing on the VM alone.

use crate::classfile_support;

use std::path::Path;
use std::process::Command;

use classfile_support::asm::{ClassBuilder, Code, MethodSpec};
use fastpath_vm::classfile::bytecode::op::*;

const PS: u16 = 0x0009;
const FACTORY: &str = "java/lang/invoke/StringConcatFactory";
const WITH_CONSTANTS: &str = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;\
                              Ljava/lang/invoke/MethodType;Ljava/lang/String;[Ljava/lang/Object;)\
                              Ljava/lang/invoke/CallSite;";
const PLAIN: &str =
    "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;)\
     Ljava/lang/invoke/CallSite;";

/// A static argument of the bootstrap method.
#[derive(Clone, Copy)]
enum C {
    S(&'static str),
    I(i32),
    J(i64),
    F(f32),
    D(f64),
    Class(&'static str),
}

/// One call site: its class name, the bootstrap method (name, descriptor,
/// handle kind), the site's descriptor, the static arguments, and what
/// HotSpot 25 prints.
struct Case {
    name: &'static str,
    bsm: (&'static str, &'static str, u8),
    site: &'static str,
    args: Vec<C>,
    expected: String,
}

fn with_constants(name: &'static str, site: &'static str, args: Vec<C>, expected: &str) -> Case {
    Case {
        name,
        bsm: ("makeConcatWithConstants", WITH_CONSTANTS, 6),
        site,
        args,
        expected: expected.to_string(),
    }
}

/// The `BootstrapMethodError` HotSpot throws, with its causes.
fn bme(causes: &[&str]) -> String {
    let mut s = "Exception in thread \"main\" java.lang.BootstrapMethodError: bootstrap method \
                 initialization exception\n"
        .to_string();
    for c in causes {
        s += &format!("Caused by: {c}\n");
    }
    s
}

fn mismatch(what: &str) -> String {
    bme(&[&format!(
        "java.lang.invoke.StringConcatException: Mismatched number of concat {what}"
    )])
}

fn generator_failed(param: &str, ret_simple: &str, ret: &str, param_full: &str) -> String {
    bme(&[
        "java.lang.invoke.StringConcatException: Generator failed",
        &format!(
            "java.lang.NoSuchMethodException: no such method: \
             java.lang.StringConcatHelper$Concat1.concat({param}){ret_simple}/invokeVirtual"
        ),
        &format!(
            "java.lang.NoSuchMethodError: '{ret} java.lang.StringConcatHelper$Concat1.concat({param_full})'"
        ),
    ])
}

fn cases() -> Vec<Case> {
    use C::*;
    let uncaught = |e: &str| format!("Exception in thread \"main\" {e}\n");
    vec![
        with_constants(
            "FewerTags",
            "(II)Ljava/lang/String;",
            vec![S("a\u{1}b")],
            &mismatch("arguments: recipe wants 1 arguments, but signature provides 2"),
        ),
        with_constants(
            "MoreTags",
            "(I)Ljava/lang/String;",
            vec![S("a\u{1}b\u{1}c\u{1}")],
            &mismatch("arguments: recipe wants 1 arguments, but signature provides 1"),
        ),
        with_constants(
            "MissingConstant",
            "(I)Ljava/lang/String;",
            vec![S("\u{1}\u{2}\u{2}"), S("x")],
            &mismatch("constants: recipe wants 1 constants, but only 1 are passed"),
        ),
        with_constants(
            "ExtraConstants",
            "(I)Ljava/lang/String;",
            vec![S("\u{1}\u{2}"), S("x"), S("y"), S("z")],
            &mismatch("constants: recipe wants 1 constants, but only 3 are passed"),
        ),
        with_constants(
            "NoTagsAtAll",
            "(ILjava/lang/String;J)Ljava/lang/String;",
            vec![S("Lookup")],
            &mismatch("arguments: recipe wants 0 arguments, but signature provides 3"),
        ),
        with_constants(
            "ReturnsInt",
            "(I)I",
            vec![S("\u{1}")],
            &bme(&[
                "java.lang.invoke.StringConcatException: The return type should be compatible with String, \
                 but it is int",
            ]),
        ),
        with_constants(
            "ReturnsVoid",
            "(I)V",
            vec![S("\u{1}")],
            &bme(&[
                "java.lang.invoke.StringConcatException: The return type should be compatible with String, \
                 but it is void",
            ]),
        ),
        with_constants(
            "ReturnsInteger",
            "(I)Ljava/lang/Integer;",
            vec![S("\u{1}")],
            &bme(&[
                "java.lang.invoke.StringConcatException: The return type should be compatible with String, \
                 but it is class java.lang.Integer",
            ]),
        ),
        with_constants(
            "ReturnsRunnable",
            "(I)Ljava/lang/Runnable;",
            vec![S("\u{1}")],
            &bme(&[
                "java.lang.invoke.StringConcatException: The return type should be compatible with String, \
                 but it is interface java.lang.Runnable",
            ]),
        ),
        with_constants("ObjectBare", "(I)Ljava/lang/Object;", vec![S("\u{1}")], "1\n"),
        with_constants("ObjectPrefixRef", "(Ljava/lang/String;)Ljava/lang/Object;", vec![S("<\u{1}")], "<s\n"),
        with_constants("ObjectNoArgs", "()Ljava/lang/Object;", vec![S("abc")], "abc\n"),
        with_constants(
            "ComparableTwo",
            "(Ljava/lang/String;Ljava/lang/Object;)Ljava/lang/Comparable;",
            vec![S("\u{1}\u{1}x")],
            "snullx\n",
        ),
        with_constants(
            "ObjectIntBoth",
            "(I)Ljava/lang/Object;",
            vec![S("<\u{1}>")],
            &generator_failed("int", "Object", "java.lang.Object", "int"),
        ),
        with_constants(
            "ObjectShortPrefix",
            "(S)Ljava/lang/Object;",
            vec![S("<\u{1}")],
            &generator_failed("int", "Object", "java.lang.Object", "int"),
        ),
        with_constants(
            "ObjectStringBoth",
            "(Ljava/lang/String;)Ljava/lang/Object;",
            vec![S("<\u{1}>")],
            &generator_failed("Object", "Object", "java.lang.Object", "java.lang.Object"),
        ),
        with_constants("StringIntBoth", "(I)Ljava/lang/String;", vec![S("<\u{1}>")], "<1>\n"),
        with_constants(
            "ConstantKinds",
            "(I)Ljava/lang/String;",
            vec![S("\u{1}\u{2}|\u{2}|\u{2}|\u{2}|\u{2}|\u{2}|\u{2}"), S("s"), I(7), J(8), F(1.5), D(2.25), Class("java/lang/String"), Class("java/lang/Runnable")],
            "1s|7|8|1.5|2.25|class java.lang.String|interface java.lang.Runnable\n",
        ),
        with_constants(
            "ConstantArrayClasses",
            "()Ljava/lang/String;",
            vec![S("\u{2}|\u{2}"), Class("[I"), Class("[[Ljava/lang/String;")],
            "class [I|class [[Ljava.lang.String;\n",
        ),
        with_constants(
            "MissingClassConstant",
            "(I)Ljava/lang/String;",
            vec![S("x"), Class("no/such/Thing")],
            // HotSpot adds "Caused by: java.lang.ClassNotFoundException:
            // no.such.Thing", which the VM's loader does not make.
            &uncaught("java.lang.NoClassDefFoundError: no/such/Thing"),
        ),
        with_constants(
            "RecipeNotAString",
            "(I)Ljava/lang/String;",
            vec![I(42)],
            &bme(&[
                "java.lang.ClassCastException: class java.lang.Integer cannot be cast to class java.lang.String \
                 (java.lang.Integer and java.lang.String are in module java.base of loader 'bootstrap')",
            ]),
        ),
        with_constants(
            "NoRecipe",
            "(I)Ljava/lang/String;",
            vec![],
            &bme(&[
                "java.lang.invoke.WrongMethodTypeException: cannot build collector",
                "java.lang.IllegalArgumentException: array length is not legal: -1",
            ]),
        ),
        with_constants(
            "Slots200",
            "(JJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJ)Ljava/lang/String;",
            vec![S("\u{1}".repeat(100).leak())],
            &format!("{}\n", "1".repeat(100)),
        ),
        with_constants(
            "Slots201",
            "(JJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJI)Ljava/lang/String;",
            vec![S("\u{1}".repeat(101).leak())],
            &bme(&["java.lang.invoke.StringConcatException: Too many concat argument slots: 201, can only accept 200"]),
        ),
        Case {
            name: "PlainExtraArgument",
            bsm: ("makeConcat", PLAIN, 6),
            site: "(I)Ljava/lang/String;",
            args: vec![S("x")],
            expected: bme(&[
                "java.lang.invoke.WrongMethodTypeException: cannot convert \
                 MethodHandle(Lookup,String,MethodType)CallSite to (Lookup,String,MethodType,Object)Object",
            ]),
        },
        Case {
            name: "PlainReturnsInt",
            bsm: ("makeConcat", PLAIN, 6),
            site: "(I)I",
            args: vec![],
            expected: bme(&[
                "java.lang.invoke.StringConcatException: The return type should be compatible with String, \
                 but it is int",
            ]),
        },
        Case {
            name: "PlainTwo",
            bsm: ("makeConcat", PLAIN, 6),
            site: "(IJ)Ljava/lang/String;",
            args: vec![],
            expected: "11\n".into(),
        },
        Case {
            name: "HandleDescriptor",
            bsm: (
                "makeConcatWithConstants",
                "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;\
                 Ljava/lang/String;Ljava/lang/Object;)Ljava/lang/invoke/CallSite;",
                6,
            ),
            site: "(I)Ljava/lang/String;",
            args: vec![S("\u{1}"), S("x")],
            expected: uncaught(
                "java.lang.NoSuchMethodError: 'java.lang.invoke.CallSite \
                 java.lang.invoke.StringConcatFactory.makeConcatWithConstants(java.lang.invoke.MethodHandles$Lookup, \
                 java.lang.String, java.lang.invoke.MethodType, java.lang.String, java.lang.Object)'",
            ),
        },
        Case {
            name: "HandleKind",
            bsm: ("makeConcatWithConstants", WITH_CONSTANTS, 5),
            site: "(I)Ljava/lang/String;",
            args: vec![S("\u{1}")],
            expected: uncaught(
                "java.lang.IncompatibleClassChangeError: Expecting non-static method 'java.lang.invoke.CallSite \
                 java.lang.invoke.StringConcatFactory.makeConcatWithConstants(java.lang.invoke.MethodHandles$Lookup, \
                 java.lang.String, java.lang.invoke.MethodType, java.lang.String, java.lang.Object[])'",
            ),
        },
    ]
}

/// The class of `case`: `main` pushes an argument for each parameter of
/// the call site (1, 1L, 1.0f, 1.0, "s"), runs it, and prints its result.
fn class_of(case: &Case) -> Vec<u8> {
    let mut c = ClassBuilder::new(case.name, "java/lang/Object");
    let bsm_ref = c.method_ref(FACTORY, case.bsm.0, case.bsm.1);
    let handle = c.method_handle(case.bsm.2, bsm_ref);
    let args: Vec<u16> = case
        .args
        .iter()
        .map(|a| match *a {
            C::S(s) => c.string(s),
            C::I(v) => c.integer(v),
            C::J(v) => c.long(v),
            C::F(v) => c.float(v),
            C::D(v) => c.double(v),
            C::Class(n) => c.class(n),
        })
        .collect();
    let bsm = c.bootstrap_method(handle, args);
    let site = c.invoke_dynamic(bsm, "concat", case.site);
    let out = c.field_ref("java/lang/System", "out", "Ljava/io/PrintStream;");
    let println = c.method_ref("java/io/PrintStream", "println", "(Ljava/lang/Object;)V");
    let s = c.string("s");
    let md = fastpath_vm::classfile::MethodDescriptor::parse(case.site).unwrap();
    let mut code = Code::new();
    let mut depth = 0u16;
    for p in &md.params {
        use fastpath_vm::classfile::FieldType as F;
        match p {
            F::Long => code.op(LCONST_1),
            F::Float => code.op(FCONST_1),
            F::Double => code.op(DCONST_1),
            F::Object(n) if n == "java/lang/String" => code.op1(LDC, s as u8),
            F::Object(_) | F::Array(_) => code.op(ACONST_NULL),
            _ => code.op(ICONST_1),
        };
        depth += p.slots() as u16;
    }
    code.op2(INVOKEDYNAMIC, site).raw(&[0, 0]);
    match &md.ret {
        None => {}
        Some(t) if t.slots() == 2 => {
            code.op(POP2);
        }
        Some(fastpath_vm::classfile::FieldType::Object(_)) => {
            code.op(ASTORE_0 + 1)
                .op2(GETSTATIC, out)
                .op(ALOAD_0 + 1)
                .op2(INVOKEVIRTUAL, println);
        }
        Some(_) => {
            code.op(POP);
        }
    }
    code.op(RETURN);
    c.method(MethodSpec::new(
        PS,
        "main",
        "([Ljava/lang/String;)V",
        depth.max(2),
        2,
        code.finish(),
    ));
    c.major = 55;
    c.build()
}

/// What a JVM printed, stack frames left out.
fn run(java: &Path, dir: &Path, main: &str) -> String {
    // The one cause HotSpot adds that the VM's loader does not make.
    let loader_cause = "Caused by: java.lang.ClassNotFoundException: ";
    let out = Command::new(java)
        .arg("-cp")
        .arg(dir)
        .arg(main)
        .output()
        .expect("running a JVM");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut shown = String::from_utf8_lossy(&out.stdout).into_owned();
    for line in stderr.lines() {
        let t = line.trim_start();
        let frame = line.starts_with('\t') && (t.starts_with("at ") || t.starts_with("... "));
        if !frame && !line.starts_with(loader_cause) {
            shown += line;
            shown.push('\n');
        }
    }
    shown
}

#[test]
fn concatenation_sites_link_or_fail_as_on_hotspot() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("indy-concat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = cases();
    for case in &cases {
        std::fs::write(dir.join(format!("{}.class", case.name)), class_of(case)).unwrap();
    }
    let vm = Path::new(env!("CARGO_BIN_EXE_fastpath-vm"));
    let java = classfile_support::corpus::find_java().filter(|j| {
        Command::new(j)
            .arg("-version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stderr).contains("\"25"))
    });
    let mut failures = Vec::new();
    for case in &cases {
        let got = run(vm, &dir, case.name);
        if got != case.expected {
            failures.push(format!(
                "{}: the VM printed\n{got}expected\n{}",
                case.name, case.expected
            ));
        }
        if let Some(java) = &java {
            let hs = run(java, &dir, case.name);
            if hs != case.expected {
                failures.push(format!(
                    "{}: HotSpot printed\n{hs}recorded\n{}",
                    case.name, case.expected
                ));
            }
        }
    }
    println!(
        "{} call sites on the VM{}",
        cases.len(),
        if java.is_some() {
            " and HotSpot 25"
        } else {
            " (no JDK 25: HotSpot not run)"
        }
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

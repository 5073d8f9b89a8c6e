//! The VM verifies classes from the class path when it links them, before
//! initialization: a bad class is a `VerifyError` where the program first
//! uses it, catchable, thrown again on every later use (HotSpot verifies
//! again each time), and none of its code runs. Where a JDK's `java` is at
//! hand, HotSpot runs the same classes and must print the same.

use crate::classfile_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use classfile_support::asm::{frame, ClassBuilder, Code, Handler, MethodSpec, Vt};
use fastpath_vm::classfile::bytecode::op::*;

const PS: u16 = 0x0009;

/// `Bad.run()V`: prints "Bad ran" (it never may), then `iadd` on a float.
fn bad_class() -> Vec<u8> {
    let mut c = ClassBuilder::new("Bad", "java/lang/Object");
    let out = c.field_ref("java/lang/System", "out", "Ljava/io/PrintStream;");
    let println = c.method_ref("java/io/PrintStream", "println", "(Ljava/lang/String;)V");
    let msg = c.string("Bad ran");
    let mut code = Code::new();
    code.op2(GETSTATIC, out)
        .op1(LDC, msg as u8)
        .op2(INVOKEVIRTUAL, println);
    code.op(ICONST_1).op(FCONST_1).op(IADD).op(POP).op(RETURN);
    c.method(MethodSpec::new(PS, "run", "()V", 2, 0, code.finish()));
    c.build()
}

/// `Main.main`: calls `Bad.run()` twice, each in a `try` catching
/// `VerifyError` and printing "caught"; then prints "done".
fn main_class() -> Vec<u8> {
    let mut c = ClassBuilder::new("Main", "java/lang/Object");
    let run = c.method_ref("Bad", "run", "()V");
    let out = c.field_ref("java/lang/System", "out", "Ljava/io/PrintStream;");
    let println = c.method_ref("java/io/PrintStream", "println", "(Ljava/lang/String;)V");
    let caught = c.string("caught");
    let done = c.string("done");
    let mut code = Code::new();
    let mut handlers = Vec::new();
    let mut frames = Vec::new();
    for _ in 0..2 {
        let next = code.label();
        let start = code.pc();
        code.op2(INVOKESTATIC, run);
        let end = code.pc();
        code.branch(GOTO, next);
        let handler = code.pc();
        code.op(ASTORE_0 + 1)
            .op2(GETSTATIC, out)
            .op1(LDC, caught as u8)
            .op2(INVOKEVIRTUAL, println);
        let join = code.bind(next);
        handlers.push(Handler {
            start,
            end,
            handler,
            catch: Some("java/lang/VerifyError"),
        });
        frames.push(frame(
            handler,
            vec![Vt::Obj("[Ljava/lang/String;")],
            vec![Vt::Obj("java/lang/VerifyError")],
        ));
        frames.push(frame(join, vec![Vt::Obj("[Ljava/lang/String;")], vec![]));
    }
    code.op2(GETSTATIC, out)
        .op1(LDC, done as u8)
        .op2(INVOKEVIRTUAL, println)
        .op(RETURN);
    c.method(
        MethodSpec::new(PS, "main", "([Ljava/lang/String;)V", 2, 2, code.finish())
            .handlers(handlers)
            .frames(frames),
    );
    c.build()
}

fn write_classes(dir: &Path, classes: &[(&str, Vec<u8>)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, bytes) in classes {
        std::fs::write(dir.join(format!("{name}.class")), bytes).unwrap();
    }
}

fn run(java: &Path, dir: &Path, main: &str) -> (Option<i32>, String, String) {
    let out = Command::new(java)
        .arg("-cp")
        .arg(dir)
        .arg(main)
        .output()
        .expect("running a JVM");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn work_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("verify-linking-{name}-{}", std::process::id()))
}

#[test]
fn a_bad_class_is_a_verify_error_at_each_use_and_never_runs() {
    let dir = work_dir("twice");
    write_classes(&dir, &[("Bad", bad_class()), ("Main", main_class())]);
    let vm = Path::new(env!("CARGO_BIN_EXE_fastpath-vm"));
    let (code, stdout, stderr) = run(vm, &dir, "Main");
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert_eq!(stdout, "caught\ncaught\ndone\n");
    if let Some(java) = classfile_support::corpus::find_java() {
        let (hs_code, hs_stdout, hs_stderr) = run(&java, &dir, "Main");
        assert_eq!(
            (hs_code, hs_stdout.as_str()),
            (code, stdout.as_str()),
            "HotSpot's stderr: {hs_stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_uncaught_verify_error_names_the_method_and_the_check() {
    let dir = work_dir("uncaught");
    let mut main = ClassBuilder::new("Main", "java/lang/Object");
    let run_bad = main.method_ref("Bad", "run", "()V");
    let mut code = Code::new();
    code.op2(INVOKESTATIC, run_bad).op(RETURN);
    main.method(MethodSpec::new(
        PS,
        "main",
        "([Ljava/lang/String;)V",
        0,
        1,
        code.finish(),
    ));
    write_classes(&dir, &[("Bad", bad_class()), ("Main", main.build())]);
    let (code, stdout, stderr) = run(Path::new(env!("CARGO_BIN_EXE_fastpath-vm")), &dir, "Main");
    eprintln!("{stderr}");
    assert_eq!(code, Some(1), "stderr: {stderr}");
    assert_eq!(stdout, "", "Bad.run must not run");
    assert!(
        stderr.contains("java.lang.VerifyError: Bad type on operand stack"),
        "stderr: {stderr}"
    );
    assert!(stderr.contains("Bad.run()V @"), "stderr: {stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `C implements I`, `I extends J`, and `J`'s default method is bad: it
/// runs on a `C` through a vtable slot, so linking `C` verifies `J` even
/// though `I` declares no default method and `J` itself is never
/// initialized before the call.
#[test]
fn an_indirect_superinterface_is_verified_with_its_implementor() {
    let dir = work_dir("interfaces");
    let mut j = ClassBuilder::new("J", "java/lang/Object");
    j.access = 0x0601;
    let out = j.field_ref("java/lang/System", "out", "Ljava/io/PrintStream;");
    let println = j.method_ref("java/io/PrintStream", "println", "(Ljava/lang/String;)V");
    let msg = j.string("J.m ran");
    let mut code = Code::new();
    code.op2(GETSTATIC, out)
        .op1(LDC, msg as u8)
        .op2(INVOKEVIRTUAL, println);
    code.op(ICONST_1).op(FCONST_1).op(IADD).op(POP).op(RETURN);
    j.method(MethodSpec::new(0x0001, "m", "()V", 2, 1, code.finish()));
    let mut i = ClassBuilder::new("I", "java/lang/Object").interface("J");
    i.access = 0x0601;
    let mut c = ClassBuilder::new("C", "java/lang/Object").interface("I");
    c.default_constructor();
    let mut main = ClassBuilder::new("Main", "java/lang/Object");
    let class_c = main.class("C");
    let init = main.method_ref("C", "<init>", "()V");
    let m = main.interface_method_ref("J", "m", "()V");
    let mut code = Code::new();
    code.op2(NEW, class_c).op(DUP).op2(INVOKESPECIAL, init);
    code.op2(INVOKEINTERFACE, m).raw(&[1, 0]).op(RETURN);
    main.method(MethodSpec::new(
        PS,
        "main",
        "([Ljava/lang/String;)V",
        2,
        1,
        code.finish(),
    ));
    write_classes(
        &dir,
        &[
            ("J", j.build()),
            ("I", i.build()),
            ("C", c.build()),
            ("Main", main.build()),
        ],
    );
    let (code, stdout, stderr) = run(Path::new(env!("CARGO_BIN_EXE_fastpath-vm")), &dir, "Main");
    assert_eq!(stdout, "", "J.m must not run; stderr: {stderr}");
    assert_eq!(code, Some(1), "stderr: {stderr}");
    assert!(stderr.contains("java.lang.VerifyError"), "stderr: {stderr}");
    assert!(stderr.contains("J.m()V @"), "stderr: {stderr}");
    if let Some(java) = classfile_support::corpus::find_java() {
        let (hs_code, hs_stdout, hs_stderr) = run(&java, &dir, "Main");
        assert_eq!(
            (hs_code, hs_stdout.as_str()),
            (code, ""),
            "HotSpot's stderr: {hs_stderr}"
        );
        assert!(
            hs_stderr.contains("java.lang.VerifyError"),
            "HotSpot's stderr: {hs_stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

//! The JIT's tiers, seen from the command line: `-Xcomp` compiles every
//! method it runs and refuses none of these programs' methods; the
//! default tiers compile a method past its invocation threshold, and a
//! rarely called method whose loops are hot (the back-edge counter) on
//! its next call; the output is the interpreter's in every tier, with an
//! exception thrown through compiled frames and caught in an interpreted
//! one. The corpus (`FASTPATH_VM_CORPUS_MATRIX=jit`) checks the tiers
//! against HotSpot on every program.

mod harness;

use std::path::PathBuf;
use std::process::Command;

const PROGRAM: &str = r#"
public class Tiers {
    static int calls;

    // Called 3 times, each with 40,000 backward branches: compiled for
    // its second call by the back-edge counter alone.
    static long spin(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += (i ^ (s >>> 3)) & 1023;
        }
        calls++;
        return s;
    }

    static int depth(int n) {
        if (n == 0) {
            throw new IllegalStateException("bottom");
        }
        return depth(n - 1) + 1;
    }

    public static void main(String[] args) {
        long total = 0;
        for (int r = 0; r < 3; r++) {
            total += spin(40_000);
        }
        System.out.println("spin " + total + " calls " + calls);
        int caught = 0;
        for (int r = 0; r < 3000; r++) {
            try {
                depth(r % 7);
            } catch (IllegalStateException e) {
                caught++;
                if (r == 2999) {
                    StackTraceElement[] st = e.getStackTrace();
                    System.out.println(e.getMessage() + " " + st.length + " " + st[0].getMethodName());
                }
            }
        }
        System.out.println("caught " + caught);
    }
}
"#;

fn classes() -> PathBuf {
    let jdk = harness::jdk_dir().expect("these tests need JDK 25 (javac): set FASTPATH_VM_JDK or JAVA_HOME");
    let exe = std::env::current_exe().unwrap();
    let dir = exe.ancestors().nth(3).unwrap().join("fastpath-vm-jit");
    let _ = std::fs::remove_dir_all(&dir);
    let classes = dir.join("classes");
    std::fs::create_dir_all(&classes).unwrap();
    let src = dir.join("Tiers.java");
    std::fs::write(&src, PROGRAM).unwrap();
    let o = Command::new(jdk.join("bin/javac"))
        .args(["--release", "17", "-d"])
        .arg(&classes)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    classes
}

/// Runs `Tiers` with `opts`; stdout and stderr.
fn run(classes: &PathBuf, opts: &[&str]) -> (String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"))
        .env("FASTPATH_VM_JIT_LOG", "1")
        .args(opts)
        .arg("-cp")
        .arg(classes)
        .arg("Tiers")
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    );
    assert!(o.status.success(), "fastpath-vm {opts:?} failed:\n{out}\n{err}");
    (out, err)
}

/// The summary's compiled and refused counts.
fn counts(err: &str) -> (u64, u64) {
    let line = err
        .lines()
        .find(|l| l.starts_with("fastpath-vm jit: "))
        .unwrap_or_else(|| panic!("no JIT summary on stderr:\n{err}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[2].parse().unwrap(), words[5].parse().unwrap())
}

#[test]
fn tiers_agree_and_compile_what_they_should() {
    let classes = classes();
    let (int_out, int_err) = run(&classes, &["-Xint"]);
    assert!(int_out.starts_with("spin "), "{int_out}");
    assert_eq!(counts(&int_err), (0, 0), "-Xint compiled something");

    let (comp_out, comp_err) = run(&classes, &["-Xcomp"]);
    assert_eq!(comp_out, int_out, "-Xcomp printed something else");
    let (compiled, refused) = counts(&comp_err);
    assert!(compiled >= 20, "-Xcomp compiled only {compiled} methods");
    assert_eq!(refused, 0, "-Xcomp refused methods:\n{comp_err}");
    assert!(
        comp_err.contains("jit: Tiers.main("),
        "main not compiled under -Xcomp"
    );

    let (mixed_out, mixed_err) = run(&classes, &[]);
    assert_eq!(mixed_out, int_out, "the default tiers printed something else");
    // depth() is called 3000 times (past 1000 invocations); spin() 3
    // times, compiled by its back edges.
    assert!(
        mixed_err.contains("jit: Tiers.depth(I)I"),
        "depth not compiled:\n{mixed_err}"
    );
    assert!(
        mixed_err.contains("jit: Tiers.spin(I)J"),
        "spin not compiled by its back edges:\n{mixed_err}"
    );
    assert!(
        !mixed_err.contains("jit: Tiers.main("),
        "main (called once, loops of 3 and 3000) compiled"
    );
}

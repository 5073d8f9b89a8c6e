//! `fastpath vm`'s bad options and a bad `FASTPATH_VM_JDK` are refused at
//! once with exit status 2 and a message naming them.
//!
//! Its quick run (one round, no idle before cold starts: a table of each
//! seed's experiment, the rows each table promises, HotSpot's beside them
//! under CI) is checked on `fastpath all --rounds 1 --idle-ms 0`'s report
//! and `vm.json` in `cli.rs`, not run a second time here.

use crate::common::fastpath;

/// Every bad option of `vm` exits 2 before anything runs, naming what is
/// wrong.
#[test]
fn bad_vm_options_exit_2_naming_them() {
    let cases: &[(&[&str], Option<&str>, &str)] = &[
        (&["vm", "--only", "nosuch"], None, "nosuch"),
        (&["vm", "--programs", "NoSuchProgram"], None, "NoSuchProgram"),
        (&["vm", "--rounds", "0"], None, "1..=100"),
        (&["vm", "--steady-iterations", "1"], None, "2..=1000"),
        (&["vm", "--steady-iterations", "1001"], None, "2..=1000"),
        (&["vm", "--idle-ms", "70000"], None, "0..=60000"),
        (
            &["vm", "--vm", "/no/such/fastpath-vm"],
            None,
            "--vm /no/such/fastpath-vm: no such file",
        ),
        (
            &["vm", "--jdk", "/no/such/jdk"],
            None,
            "--jdk /no/such/jdk: not a JDK",
        ),
        (
            &["vm", "--quick"],
            Some("/no/such/jdk"),
            "FASTPATH_VM_JDK /no/such/jdk: not a JDK",
        ),
    ];
    for (args, jdk, expected) in cases {
        let started = std::time::Instant::now();
        let mut cmd = fastpath();
        cmd.args(*args);
        if let Some(j) = jdk {
            cmd.env("FASTPATH_VM_JDK", j);
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: printed a table");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(started.elapsed().as_secs() < 10, "{args:?}: not refused at once");
    }
}

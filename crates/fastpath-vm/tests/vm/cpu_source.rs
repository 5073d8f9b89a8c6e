//! `FASTPATH_VM_CPU_SOURCE` on the real binary: each source starts a
//! program and reads what it names (its `FASTPATH_VM_CPU_LOG` line), and a
//! value that is not a source stops the start with the accepted list.

use crate::harness;

use std::path::PathBuf;
use std::process::Command;

const SOURCES: [&str; 5] = [
    "lazy",
    "cpuid-only",
    "proc-cpuinfo",
    "sysfs-microcode",
    "features-string-with-microcode",
];

/// `Hello` compiled into a directory under the target directory.
fn hello_classes() -> PathBuf {
    let dir = harness::scratch_dir("fastpath-vm-cpu-source");
    harness::javac_sources(
        &dir,
        &dir,
        &[(
            "Hello",
            "public class Hello { public static void main(String[] a) { System.out.println(\"Hello, world!\"); } }\n",
        )],
    );
    dir
}

fn run(classes: &PathBuf, source: &str) -> (String, String, Option<i32>) {
    let o = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"))
        .env("FASTPATH_VM_CPU_SOURCE", source)
        .env("FASTPATH_VM_CPU_LOG", "1")
        .arg("-Xint")
        .arg("-cp")
        .arg(classes)
        .arg("Hello")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

#[test]
fn each_source_starts_the_vm_and_a_bad_one_is_refused() {
    let classes = hello_classes();
    for source in SOURCES {
        let (out, err, status) = run(&classes, source);
        assert_eq!(
            (out.as_str(), status),
            ("Hello, world!\n", Some(0)),
            "{source}: {err}"
        );
        let line = err
            .lines()
            .find(|l| l.starts_with("fastpath-vm cpu: source "))
            .unwrap_or_else(|| panic!("{source}: no identification line in {err:?}"));
        assert!(
            line.starts_with(&format!("fastpath-vm cpu: source {source} in ")),
            "{line}"
        );
        match source {
            "lazy" => assert!(line.ends_with("nothing read at start"), "{line}"),
            "cpuid-only" => assert!(line.contains("family") && !line.contains("microcode"), "{line}"),
            // Each microcode source names what it tried, answered or not.
            "proc-cpuinfo" => assert!(line.contains("proc-cpuinfo (/proc/cpuinfo)"), "{line}"),
            "sysfs-microcode" => {
                assert!(
                    line.contains("sysfs (/sys/devices/system/cpu/cpu0/microcode/version)"),
                    "{line}"
                );
                assert!(!line.contains("/proc/cpuinfo"), "{line}");
            }
            _ => assert!(line.contains("sysfs (") && line.contains(" microcode "), "{line}"),
        }
    }
    for bad in ["proc_cpuinfo", "CPUID"] {
        let (out, err, status) = run(&classes, bad);
        assert_eq!((out.as_str(), status), ("", Some(1)), "{bad}: {err}");
        assert!(
            err.starts_with("Error occurred during initialization of VM\n"),
            "{err}"
        );
        assert!(
            err.contains(&format!("FASTPATH_VM_CPU_SOURCE=\"{bad}\"")),
            "{err}"
        );
        for s in SOURCES {
            assert!(err.contains(s), "{err}");
        }
    }
}

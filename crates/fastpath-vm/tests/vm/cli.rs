//! The `fastpath-vm` command line as java's: the class path (directories
//! and jars, stored and deflated entries), the launch errors and their
//! exit status, option errors, and the program's arguments.

use crate::harness;

use std::path::{Path, PathBuf};
use std::process::Command;

fn jdk() -> PathBuf {
    harness::jdk_dir().expect("these tests need JDK 25 (javac, jar): set FASTPATH_VM_JDK or JAVA_HOME")
}

fn vm() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fastpath-vm"))
}

/// Compiles `sources` (name, text) into a fresh directory under the
/// target directory.
fn compile(tag: &str, sources: &[(&str, &str)]) -> PathBuf {
    let dir = harness::scratch_dir(&format!("fastpath-vm-cli/{tag}"));
    harness::javac_sources(&dir.join("src"), &dir.join("classes"), sources);
    dir
}

fn jar(dir: &Path, name: &str, stored: bool) -> PathBuf {
    let j = dir.join(name);
    let mut cmd = Command::new(jdk().join("bin/jar"));
    cmd.arg(if stored { "--no-compress" } else { "-c" });
    if stored {
        cmd.arg("-c");
    }
    let o = cmd
        .arg("-f")
        .arg(&j)
        .arg("-C")
        .arg(dir.join("classes"))
        .arg(".")
        .output()
        .unwrap();
    assert!(o.status.success(), "jar: {}", String::from_utf8_lossy(&o.stderr));
    j
}

const MAIN: &str = r#"
package app;
public class Main {
    public static void main(String[] args) {
        StringBuilder sb = new StringBuilder();
        for (String a : args) sb.append('[').append(a).append(']');
        System.out.println("args " + args.length + " " + sb + " " + util.Helper.twice(21));
        if (args.length > 0 && args[0].equals("exit")) System.exit(Integer.parseInt(args[1]));
        if (args.length > 0 && args[0].equals("throw")) throw new IllegalStateException("from main");
    }
}
"#;

const HELPER: &str = r#"
package util;
public class Helper {
    public static int twice(int x) { return 2 * x; }
}
"#;

fn run(cmd: &mut Command) -> (String, String, Option<i32>) {
    let o = cmd.output().unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

#[test]
fn runs_from_directories_and_jars_with_arguments() {
    let dir = compile("cp", &[("Main", MAIN), ("Helper", HELPER)]);
    let classes = dir.join("classes");
    let (out, err, code) = run(vm().arg("-cp").arg(&classes).args(["app.Main", "a b", "-x"]));
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        ("args 2 [a b][-x] 42\n", "", Some(0))
    );
    for stored in [false, true] {
        let j = jar(&dir, if stored { "stored.jar" } else { "deflated.jar" }, stored);
        // A missing entry first on the path is skipped, as java skips it.
        let path = format!("{}:{}", dir.join("nope").display(), j.display());
        let (out, err, code) = run(vm().args(["-classpath", &path, "app/Main"]));
        assert_eq!(
            (out.as_str(), err.as_str(), code),
            ("args 0  42\n", "", Some(0)),
            "stored {stored}"
        );
    }
}

/// A stderr whose reader has gone (`fastpath-vm ... 2>&1 | head -1`)
/// loses the VM's messages, as java's: the JIT's log, its dump (written by
/// the compiler thread) and the exit summary neither panic a thread nor
/// hang exit, and the program runs to its own status.
#[test]
fn a_closed_stderr_loses_the_vms_messages_and_nothing_else() {
    let dir = compile("closed-stderr", &[("Main", MAIN), ("Helper", HELPER)]);
    let cp = dir.join("classes");
    for env in [("FASTPATH_VM_JIT_LOG", "1"), ("FASTPATH_VM_JIT_DUMP", "*")] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut child = vm()
            .env(env.0, env.1)
            .arg("-Xcomp")
            .arg("-cp")
            .arg(&cp)
            .args(["app.Main", "exit", "7"])
            .stdout(std::process::Stdio::piped())
            .stderr(writer)
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("{env:?}: fastpath-vm hung with its stderr closed");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        assert_eq!(
            (out.as_str(), status.code()),
            ("args 2 [exit][7] 42\n", Some(7)),
            "{env:?}"
        );
    }
}

#[test]
fn exit_statuses_and_launch_errors_are_javas() {
    let dir = compile("exit", &[("Main", MAIN), ("Helper", HELPER)]);
    let cp = dir.join("classes");
    let (_, _, code) = run(vm().arg("-cp").arg(&cp).args(["app.Main", "exit", "7"]));
    assert_eq!(code, Some(7));
    let (_, err, code) = run(vm().arg("-cp").arg(&cp).args(["app.Main", "throw"]));
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("Exception in thread \"main\" java.lang.IllegalStateException: from main\n\tat app.Main.main(Main.java:"),
        "{err}"
    );
    let (_, err, code) = run(vm().arg("-cp").arg(&cp).arg("app.Nope"));
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "Error: Could not find or load main class app.Nope\nCaused by: java.lang.ClassNotFoundException: app.Nope\n"
    );
    let (_, err, code) = run(vm().arg("-cp").arg(&cp).arg("util.Helper"));
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("Error: Main method not found in class util.Helper"),
        "{err}"
    );
    let (_, err, code) = run(vm().args(["-Xmx12q", "app.Main"]));
    assert_eq!(code, Some(1));
    assert!(err.starts_with("Invalid heap size: -Xmx12q"), "{err}");
    let (_, err, code) = run(vm().args(["--frobnicate", "app.Main"]));
    assert_eq!(code, Some(1));
    assert!(err.starts_with("Unrecognized option: --frobnicate"), "{err}");
    // A bad library setting stops the start, naming the variable.
    for (var, value) in [
        ("FASTPATH_LOCKING_MODE", "stacked"),
        ("FASTPATH_ICACHE_SYNC", "flushall"),
        ("FASTPATH_VM_READ_AHEAD", "8q"),
    ] {
        let (out, err, code) = run(vm().env(var, value).arg("-cp").arg(&cp).arg("app.Main"));
        assert_eq!((out.as_str(), code), ("", Some(1)), "{var}={value}: {err}");
        assert!(
            err.starts_with("Error occurred during initialization of VM\n")
                && err.contains(var)
                && err.contains(value),
            "{var}={value}: {err}"
        );
    }
}

#[test]
fn a_damaged_main_class_is_a_linkage_error_not_a_crash() {
    let dir = compile("damaged", &[("Main", MAIN), ("Helper", HELPER)]);
    let f = dir.join("classes/app/Main.class");
    let mut bytes = std::fs::read(&f).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&f, &bytes).unwrap();
    let (_, err, code) = run(vm().arg("-cp").arg(dir.join("classes")).arg("app.Main"));
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "Error: LinkageError occurred while loading main class app.Main\n\tjava.lang.ClassFormatError: Truncated class file\n"
    );
}

#[test]
fn xx_flags_select_the_librarys_settings_and_bad_ones_are_refused_as_hotspot_refuses_them() {
    let dir = compile("xx", &[("Main", MAIN), ("Helper", HELPER)]);
    let cp = dir.join("classes");
    // The command line wins over the environment; PrintFlagsFinal shows the
    // configuration the library installed.
    let (out, err, code) = run(vm()
        .env("FASTPATH_LOCKING_MODE", "monitor")
        .arg("-cp")
        .arg(&cp)
        .args([
            "-XX:LockingMode=1",
            "-XX:+UseSerialGC",
            "-XX:+PrintFlagsFinal",
            "app.Main",
        ]));
    assert_eq!((err.as_str(), code), ("", Some(0)), "{out}");
    let line = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or("")
            .to_string()
    };
    assert!(
        line("LockingMode").contains("= 1") && line("LockingMode").ends_with("{command line}"),
        "{out}"
    );
    assert!(line("GCBarriers").contains("= serial"), "{out}");
    assert!(out.ends_with("args 0  42\n"), "{out}");
    // Refusals: the same words as HotSpot 25 on the same command line.
    let java = jdk().join("bin/java");
    let refused: &[&[&str]] = &[
        &["-XX:+Frobnicate"],
        &["-XX:+UseShenandoaGC"],
        &["-XX:UseG1GC"],
        &["-XX:+UnlockDiagnosticVMOptions", "-XX:X86ICacheSync=9"],
        &["-XX:X86ICacheSync=2", "-XX:+UnlockDiagnosticVMOptions"],
        &["-XX:MonitorUsedDeflationThreshold=50"],
    ];
    for flags in refused {
        if !cfg!(target_arch = "x86_64") && flags.iter().any(|f| f.contains("X86")) {
            continue;
        }
        let (_, ours, code) = run(vm().args(*flags).arg("-cp").arg(&cp).arg("app.Main"));
        assert_eq!(code, Some(1), "{flags:?}: {ours}");
        let (_, theirs, _) = run(Command::new(&java)
            .args(*flags)
            .arg("-cp")
            .arg(&cp)
            .arg("app.Main"));
        assert_eq!(ours, theirs, "{flags:?}");
    }
    // A value the library cannot use is refused with the library's reason.
    let (_, err, code) = run(vm()
        .args(["-XX:OnSpinWaitInst=spin", "-cp"])
        .arg(&cp)
        .arg("app.Main"));
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("Improperly specified VM option 'OnSpinWaitInst=spin'\n"),
        "{err}"
    );
    let (out, _, code) = run(vm()
        .args([
            "-XX:+IgnoreUnrecognizedVMOptions",
            "-XX:+UseCompressedOops",
            "-cp",
        ])
        .arg(&cp)
        .arg("app.Main"));
    assert_eq!((out.as_str(), code), ("args 0  42\n", Some(0)));
    // -version: java's three lines on stderr, no main class needed.
    let (out, err, code) = run(vm().args(["-Xint", "-version"]));
    assert_eq!((out.as_str(), code), ("", Some(0)));
    assert!(
        err.starts_with("fastpath-vm version \"") && err.contains("interpreted mode"),
        "{err}"
    );
    // The tests run the dev profile's binary, and it says so.
    assert_eq!(err.contains("(dev build "), cfg!(debug_assertions), "{err}");
}

#[test]
fn perf_map_and_jitdump_name_compiled_code_and_a_bad_value_is_refused() {
    let dir = compile(
        "perfmap",
        &[(
            "Mapped",
            "public class Mapped { static int twice(int x) { return 2 * x; } \
             public static void main(String[] a) { System.out.println(twice(21)); } }",
        )],
    );
    let child = vm()
        .env("FASTPATH_VM_PERF_MAP", "1")
        .args(["-Xcomp", "-cp"])
        .arg(dir.join("classes"))
        .arg("Mapped")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout), "42\n");
    let path = PathBuf::from(format!("/tmp/perf-{pid}.map"));
    let map = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    // Every line is perf's `START SIZE NAME`, the entries do not overlap,
    // and the program's main is named (`twice` runs inlined into it).
    let mut ranges: Vec<(usize, usize)> = map
        .lines()
        .map(|l| {
            let mut f = l.splitn(3, ' ');
            let start = usize::from_str_radix(f.next().unwrap(), 16).unwrap();
            let size = usize::from_str_radix(f.next().unwrap(), 16).unwrap();
            assert!(size > 0 && !f.next().unwrap().is_empty(), "{l}");
            (start, start + size)
        })
        .collect();
    ranges.sort();
    assert!(ranges.windows(2).all(|w| w[0].1 <= w[1].0), "{map}");
    let main = "Mapped.main([Ljava/lang/String;)V entry";
    assert!(map.lines().any(|l| l.ends_with(main)), "{main} not in:\n{map}");
    // The jitdump: perf's header, then one code-load record per map line
    // (two compiling threads may write them in different orders), the
    // same address, size and name, the code's bytes non-empty; the
    // records' sizes add up to the file's.
    let path = PathBuf::from(format!("/tmp/jit-{pid}.dump"));
    let dump = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let u32_at = |i: usize| u32::from_le_bytes(dump[i..i + 4].try_into().unwrap());
    let u64_at = |i: usize| u64::from_le_bytes(dump[i..i + 8].try_into().unwrap());
    assert_eq!(
        (u32_at(0), u32_at(4), u32_at(8), u32_at(20)),
        (0x4A69_5444, 1, 40, pid)
    );
    let mut at = 40;
    let mut named = Vec::new();
    while at < dump.len() {
        let (kind, size) = (u32_at(at), u32_at(at + 4) as usize);
        assert_eq!(kind, 0, "a code load at {at}");
        let (addr, code_addr, code_size) = (u64_at(at + 24), u64_at(at + 32), u64_at(at + 40) as usize);
        assert_eq!(addr, code_addr);
        let name_end = dump[at + 56..].iter().position(|&b| b == 0).unwrap() + at + 56;
        let name = String::from_utf8(dump[at + 56..name_end].to_vec()).unwrap();
        assert!(
            code_size > 0 && size == name_end + 1 + code_size - at,
            "{name}: {size} bytes"
        );
        named.push(format!("{addr:x} {code_size:x} {name}"));
        at += size;
    }
    assert_eq!(at, dump.len(), "the records fill the file");
    let mut lines: Vec<&str> = map.lines().collect();
    lines.sort_unstable();
    named.sort_unstable();
    assert_eq!(named, lines, "the dump names what the map names");
    let (_, err, code) = run(vm()
        .env("FASTPATH_VM_PERF_MAP", "yes")
        .arg("-cp")
        .arg(dir.join("classes"))
        .arg("Mapped"));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("FASTPATH_VM_PERF_MAP=yes: expected 0 or 1"), "{err}");
}

const MEMORY: &str = r#"
package app;
public class Memory {
    public static void main(String[] args) {
        Runtime r = Runtime.getRuntime();
        long mib = 1 << 20;
        System.out.println("max " + r.maxMemory() / mib + " total " + r.totalMemory() / mib);
        // 48 MiB kept live: past 60 % of any capacity under 80 MiB.
        byte[][] keep = new byte[48][];
        for (int i = 0; i < keep.length; i++) keep[i] = new byte[1 << 20];
        System.gc();
        long total = r.totalMemory();
        System.out.println("grown " + (total >= 80 * mib) + " free within total " + (r.freeMemory() <= total) + " kept " + keep.length);
    }
}
"#;

/// `-Xms` sets the heap's soft capacity (`Runtime.totalMemory`), by
/// default the evacuation reserve and 16 MiB to allocate (32 MiB of a 256 MiB
/// heap, 80 of a 1 GiB one, at most the whole heap); live data grows it;
/// `-Xms` above `-Xmx` is refused as java refuses it.
#[test]
fn xms_sets_the_soft_capacity_and_live_data_grows_it() {
    let dir = compile("xms", &[("Memory", MEMORY)]);
    let classes = dir.join("classes");
    for (args, first) in [
        (&["-Xmx256m"][..], "max 256 total 32"),
        (&["-Xmx256m", "-Xms100m"][..], "max 256 total 100"),
        (&["-Xmx16m"][..], "max 16 total 16"),
        // 256 regions of 4 MiB: a reserve of 64 MiB, and 16 to allocate.
        (&["-Xmx1g"][..], "max 1024 total 80"),
    ] {
        let (out, err, code) = run(vm().args(args).arg("-cp").arg(&classes).arg("app.Memory"));
        if args == ["-Xmx16m"] {
            // 48 MiB do not fit in 16.
            assert!(out.starts_with(first), "{args:?}: {out}");
            assert!(err.contains("OutOfMemoryError"), "{args:?}: {err}");
            continue;
        }
        assert_eq!(
            (out.as_str(), err.as_str(), code),
            (
                format!("{first}\ngrown true free within total true kept 48\n").as_str(),
                "",
                Some(0)
            ),
            "{args:?}"
        );
    }
    let (_, err, code) = run(vm()
        .args(["-Xmx64m", "-Xms128m", "-cp"])
        .arg(&classes)
        .arg("app.Memory"));
    assert!(
        err.contains("Initial heap size set to a larger value than the maximum heap size"),
        "{err}"
    );
    assert_eq!(code, Some(1));
}

const ALLOCATES: &str = r#"
public class Allocates {
    public static void main(String[] args) {
        long sum = 0;
        // 16 MiB of 64 KiB arrays, none kept.
        for (int i = 0; i < 256; i++) {
            byte[] b = new byte[64 << 10];
            b[i] = 1;
            sum += b.length + b[i];
        }
        System.out.println(sum);
    }
}
"#;

/// The MiB the heap's read-ahead faulted in, from `FASTPATH_VM_GC_STATS`.
fn read_ahead_mib(err: &str) -> f64 {
    let at = err
        .find(" MiB faulted in ahead of allocation")
        .unwrap_or_else(|| panic!("no read-ahead figure in:\n{err}"));
    let start = err[..at].rfind(' ').expect("a number before it") + 1;
    err[start..at].parse().expect("a number")
}

/// The heap's read-ahead (`FASTPATH_VM_READ_AHEAD`): on by default with
/// the passive collector, off with the concurrent one; a size sets it for
/// either, 0 turns it off. Its thread runs in the idle scheduling class,
/// so on a machine busy with other tests a short program may end before
/// it runs at all: where it is on, one of up to five runs must show it
/// faulting; where it is off, every run must show none.
#[test]
fn the_read_ahead_is_the_passive_collectors_by_default_and_the_variable_sets_it() {
    let dir = compile("read-ahead", &[("Allocates", ALLOCATES)]);
    let cp = dir.join("classes");
    let runs: [(&[(&str, &str)], bool); 4] = [
        (&[], true),
        (&[("FASTPATH_GC_MODE", "concurrent")], false),
        (
            &[
                ("FASTPATH_GC_MODE", "concurrent"),
                ("FASTPATH_VM_READ_AHEAD", "4m"),
            ],
            true,
        ),
        (&[("FASTPATH_VM_READ_AHEAD", "0")], false),
    ];
    for (env, on) in runs {
        let attempts = if on { 5 } else { 1 };
        let mut seen = Vec::new();
        for _ in 0..attempts {
            let mut cmd = vm();
            cmd.env("FASTPATH_VM_GC_STATS", "1").envs(env.iter().copied());
            let (out, err, code) = run(cmd.arg("-cp").arg(&cp).arg("Allocates"));
            assert_eq!((out.trim(), code), ("16777472", Some(0)), "{env:?}: {err}");
            seen.push(read_ahead_mib(&err));
            if *seen.last().expect("one run") > 0.0 {
                break;
            }
        }
        let faulted = seen.iter().any(|&mib| mib > 0.0);
        assert_eq!(faulted, on, "{env:?}: MiB read ahead in each run: {seen:?}");
    }
}

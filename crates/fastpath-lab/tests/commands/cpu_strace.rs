//! `fastpath cpu` under strace: the default identification path opens no
//! file under /proc, seen from outside the process.
//!
//! This complements the in-process proof
//! (`fastpath::cpu::fixture_tests::default_path_opens_no_file_and_stays_within_the_cpuid_budget`,
//! which hands the default path a file source that panics when opened and
//! runs everywhere). This test needs `strace`: where it is not installed it
//! says so on stderr and checks nothing; where it is installed but cannot
//! trace (no ptrace permission), it fails, because then the check was
//! asked for and could not be made.
//!
//! One /proc open is expected and allowed: `/proc/self/maps`, read by
//! glibc's `pthread_getattr_np` when Rust's runtime (`std::rt::lang_start`)
//! locates the main thread's stack guard, before `main` runs (seen with
//! `strace -k`). It is the same for every Rust program and not part of the
//! identification.

use std::path::PathBuf;
use std::process::Command;

const RUNTIME_OPEN: &str = "/proc/self/maps";

fn strace_available() -> bool {
    Command::new("strace")
        .arg("-V")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Runs `fastpath <args>` under strace and returns every path it opened.
fn opened_paths(args: &[&str], tag: &str) -> Vec<String> {
    let log = std::env::temp_dir().join(format!("fastpath-strace-{}-{tag}.txt", std::process::id()));
    let out = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,openat2", "-o"])
        .arg(&log)
        .arg(env!("CARGO_BIN_EXE_fastpath"))
        .args(args)
        .output()
        .expect("running strace");
    assert!(
        out.status.success(),
        "strace of `fastpath {}` failed (is ptrace permitted?): {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&log).expect("reading the strace log");
    let _ = std::fs::remove_file(PathBuf::from(&log));
    text.lines()
        .filter(|l| l.contains("open"))
        .filter_map(|l| l.split('"').nth(1).map(str::to_string))
        .collect()
}

#[test]
fn fastpath_cpu_opens_nothing_under_proc() {
    if !strace_available() {
        // CI installs strace (.ci/run), so there a missing strace is a failure,
        // not a silent skip.
        assert!(
            std::env::var_os("CI").is_none(),
            "strace is required under CI (.ci/run installs it)"
        );
        eprintln!(
            "cpu_strace: strace is not installed, so this test checked NOTHING; \
             the in-process file-source test still covers the default path"
        );
        return;
    }
    let opened = opened_paths(&["cpu"], "default");
    assert!(
        !opened.is_empty(),
        "strace saw no open at all: the check is blind"
    );
    let proc_opens: Vec<&String> = opened
        .iter()
        .filter(|p| p.starts_with("/proc/") && p.as_str() != RUNTIME_OPEN)
        .collect();
    assert!(proc_opens.is_empty(), "`fastpath cpu` opened {proc_opens:?}");
    assert!(!opened.iter().any(|p| p == "/proc/cpuinfo"));

    // Positive control: with --microcode the same trace must see the
    // microcode sources being opened, so the check above is not blind to
    // the very file it is about.
    let with_microcode = opened_paths(&["cpu", "--microcode"], "microcode");
    let sysfs = "/sys/devices/system/cpu/cpu0/microcode/version";
    assert!(
        with_microcode.iter().any(|p| p == sysfs),
        "--microcode must try sysfs first: {with_microcode:?}"
    );
    if !std::path::Path::new(sysfs).exists() {
        assert!(
            with_microcode.iter().any(|p| p == "/proc/cpuinfo"),
            "no sysfs microcode here, so --microcode must fall back to /proc/cpuinfo: {with_microcode:?}"
        );
    }
    println!(
        "cpu_strace: RAN strace on `fastpath cpu`: {} opens checked, none under /proc except the \
         Rust runtime's {RUNTIME_OPEN}; `--microcode` opened {} paths (positive control)",
        opened.len(),
        with_microcode.len()
    );
}

//! Wake-ups per SynchronousQueue hand-off between 2 producer/consumer
//! pairs (issues 38, 39): a count, not a time. The class library's queue
//! wakes only a hand-off's partner, so a blocked hand-off costs about one
//! voluntary context switch; a queue that wakes every waiter at each fill
//! and take (one monitor with `notifyAll`) cost 2.6–3.3 at 2 and 4 pairs,
//! on fastpath-vm and on HotSpot alike. The count is the kernel's (the
//! child's `ru_nvcsw` from `wait4`, every thread of it), less a run that
//! starts the same threads and hands nothing off. The bound, 1.5, lies
//! between the two: 1.00 measured with this queue, 2.3 with the old one
//! (`-Xint`, this program).
//!
//! A test binary of its own, not a module of `tests/vm` (the other
//! integration tests' one binary): cargo runs test binaries one after
//! another, so the count is taken with no other test's processes on the
//! CPUs, as the bound was set. Beside them (the corpus alone runs four VMs
//! at a time) a thread descheduled while it spins for its partner can
//! park where it would have found it, and the count would follow the
//! machine's load as well as the queue.

// The harness compiles the corpus with the class-file tests' compile
// (`crate::classfile_support::corpus`); this test uses none of it.
#[allow(dead_code)]
mod classfile_support {
    pub mod corpus;
}
mod harness;

use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"
import java.util.concurrent.SynchronousQueue;

public class HandOffPairs {
    public static void main(String[] args) throws InterruptedException {
        int pairs = 2;
        int each = Integer.parseInt(args[0]);
        SynchronousQueue<Long> q = new SynchronousQueue<>();
        long[] sums = new long[pairs];
        Thread[] ts = new Thread[2 * pairs];
        for (int t = 0; t < ts.length; t++) {
            final int index = t;
            ts[t] = new Thread(() -> {
                try {
                    if (index % 2 == 0) {
                        for (long i = 1; i <= each; i++) q.put(i);
                    } else {
                        long s = 0;
                        for (int i = 0; i < each; i++) s += q.take();
                        sums[index / 2] = s;
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        System.out.println(sums[0] + sums[1]);
    }
}
"#;

/// Runs the program with `each` items per pair; its stdout and the
/// voluntary context switches of the whole process.
// The child is reaped by `wait4` (for its rusage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn run(classes: &Path, each: u64) -> (String, i64) {
    let child = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"))
        .args(["-Xint", "-cp"])
        .arg(classes)
        .args(["HandOffPairs", &each.to_string()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("starting fastpath-vm");
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.expect("piped stdout");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped (the `Child` handle was
    // consumed without waiting, so std never reaps it); both pointers are to
    // live locals of the types wait4 writes.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "fastpath-vm exited with status {status:#x}; stdout: {out}"
    );
    (out, usage.ru_nvcsw)
}

#[test]
fn a_hand_off_wakes_only_its_partner() {
    if harness::jdk_dir().is_none() {
        eprintln!("skipped: no JDK 25 (javac) to compile the program");
        return;
    }
    let dir = harness::scratch_dir("fastpath-vm-handoff-wakeups");
    harness::javac_sources(
        &dir.join("src"),
        &dir.join("classes"),
        &[("HandOffPairs", PROGRAM)],
    );
    let classes = dir.join("classes");
    let each = 3000u64;
    let (idle_out, idle) = run(&classes, 0);
    assert_eq!(idle_out.trim(), "0");
    let (out, busy) = run(&classes, each);
    assert_eq!(
        out.trim(),
        (2 * each * (each + 1) / 2).to_string(),
        "the consumers' sum"
    );
    let hand_offs = 2 * each;
    let per_hand_off = (busy - idle).max(0) as f64 / hand_offs as f64;
    eprintln!("{busy} voluntary switches ({idle} without hand-offs): {per_hand_off:.2} per hand-off");
    assert!(
        per_hand_off < 1.5,
        "{per_hand_off:.2} voluntary context switches per hand-off ({busy} - {idle} over {hand_offs}): \
         waiters are woken for hand-offs that are not theirs"
    );
}

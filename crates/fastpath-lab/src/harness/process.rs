//! Whole-process timing: spawn a command, wait for it with `wait4`, and
//! report wall time plus the child's own user and system CPU time, as
//! hyperfine does.
//!
//! Where it sits: used by experiments whose subject is process start-up
//! (`fastpath startup`). The wall clock runs from just before the spawn to
//! the return of `wait4`, so it includes fork/exec, the dynamic loader and
//! process teardown: the cost a user of a command-line runtime sees. The
//! child's stdout is piped and read after it exits (it writes a line, far
//! below the pipe's capacity, so it never blocks on the parent).

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;

/// One run of a child process.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessSample {
    /// Spawn to reaped.
    pub wall: Duration,
    /// The child's user CPU time (`ru_utime`).
    pub user: Duration,
    /// The child's system CPU time (`ru_stime`).
    pub sys: Duration,
    /// What it wrote to stdout.
    pub stdout: String,
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec as u64) + Duration::from_micros(tv.tv_usec as u64)
}

/// Runs `cmd` to completion; an exit status other than 0 is an error that
/// carries the child's stdout.
pub fn run_timed(cmd: &mut Command) -> anyhow::Result<ProcessSample> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().with_context(|| format!("spawning {cmd:?}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = loop {
        // SAFETY: `pid` is our own unreaped child (std's `Child` never
        // waits unless asked, and we do not ask); `status` and `usage` are
        // valid, writable locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        break r;
    };
    let wall = start.elapsed();
    anyhow::ensure!(
        reaped == pid,
        "wait4({pid}) failed: {}",
        std::io::Error::last_os_error()
    );
    let mut stdout = String::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_string(&mut stdout)
            .context("reading the child's stdout")?;
    }
    let exited_ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    anyhow::ensure!(
        exited_ok,
        "{cmd:?} failed (wait status {status:#x}); stdout: {stdout}"
    );
    Ok(ProcessSample {
        wall,
        user: timeval(usage.ru_utime),
        sys: timeval(usage.ru_stime),
        stdout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_a_child_and_reads_its_output() {
        let s = run_timed(Command::new("sh").args(["-c", "echo hi"])).unwrap();
        assert_eq!(s.stdout.trim(), "hi");
        assert!(s.wall > Duration::ZERO);
        // A child's CPU time cannot exceed its wall time by more than the
        // rusage granularity on one thread.
        assert!(s.user + s.sys <= s.wall + Duration::from_millis(10), "{s:?}");
    }

    #[test]
    fn a_failing_child_is_an_error() {
        let e = run_timed(Command::new("sh").args(["-c", "echo out; exit 3"])).unwrap_err();
        assert!(e.to_string().contains("out"), "{e}");
    }
}

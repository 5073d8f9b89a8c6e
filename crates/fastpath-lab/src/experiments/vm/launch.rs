//! One JVM process, timed as a whole: spawn, wait, the child's CPU time,
//! what it printed, with a deadline.
//!
//! Where it sits: below every table of `fastpath vm`. A table builds a
//! [`Launch`] (a program, its arguments, the environment it adds) and
//! [`Launch::run`] returns an [`Outcome`]; the Harness programs' iteration
//! lines are read from its stdout by [`Outcome::iteration_ns`].
//!
//! Why not `harness::process::run_timed`: a JVM's output is more than a
//! pipe holds (a program prints one line per iteration, a log at trace
//! level thousands), stderr carries what the tables count (monitor
//! inflations, refusals of an option), and a hung program (a deadlocked
//! hand-off) must end the run with an error instead of hanging it. So
//! both pipes are drained by threads while the child runs, and a watchdog
//! kills it at its deadline.
//!
//! The deadline without a race on the pid: the parent first waits with
//! `waitid(WNOWAIT)`, which leaves the exited child unreaped (its pid
//! cannot be reused), marks it done under the watchdog's lock, and only
//! then reaps it with `wait4` (for its rusage). The watchdog kills only a
//! child not marked done, so it never signals a recycled pid.
//!
//! Wall time runs from just before the spawn to the return of `waitid`,
//! as hyperfine's: fork/exec, the loader, the VM's start and its exit.

use std::ffi::OsString;
use std::io::Read as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;

/// A process to start.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Variables added to (or replacing in) the inherited environment.
    pub env: Vec<(String, String)>,
    /// Variables removed from the inherited environment.
    pub env_remove: Vec<String>,
    /// Killed, and an error, after this long.
    pub deadline: Duration,
}

/// What one run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Spawn to exit.
    pub wall: Duration,
    /// The child's user CPU time (`ru_utime`).
    pub user: Duration,
    /// The child's system CPU time (`ru_stime`).
    pub sys: Duration,
    /// Its exit status (`None`: killed by a signal).
    pub status: Option<i32>,
    /// Everything it wrote on stdout.
    pub stdout: String,
    /// Everything it wrote on stderr.
    pub stderr: String,
}

impl Launch {
    /// `program` with `args`, the inherited environment and a deadline of
    /// ten minutes.
    pub fn new(program: impl Into<PathBuf>) -> Launch {
        Launch {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            env_remove: Vec::new(),
            deadline: Duration::from_secs(600),
        }
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Launch
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets a variable in the child's environment.
    pub fn env(mut self, key: &str, value: &str) -> Launch {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// Sets the deadline.
    pub fn deadline(mut self, d: Duration) -> Launch {
        self.deadline = d;
        self
    }

    /// The command line as a shell would show it (environment first), for
    /// error messages and tables.
    pub fn display(&self) -> String {
        let mut words: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        words.push(self.program.display().to_string());
        words.extend(self.args.iter().map(|a| a.to_string_lossy().into_owned()));
        words.join(" ")
    }

    /// Runs it to the end (or the deadline). An error only when it could
    /// not be started or waited for, or ran past its deadline; a non-zero
    /// exit is an [`Outcome`] with that status.
    pub fn run(&self) -> anyhow::Result<Outcome> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for k in &self.env_remove {
            cmd.env_remove(k);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let start = Instant::now();
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", self.display()))?;
        let pid = child.id() as libc::pid_t;
        let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut p) = pipe {
                    let _ = p.read_to_end(&mut bytes);
                }
                String::from_utf8_lossy(&bytes).into_owned()
            })
        };
        let out = drain(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
        );
        let err = drain(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
        );

        // The watchdog: (done, killed) under one lock.
        let state = Arc::new((Mutex::new((false, false)), Condvar::new()));
        let watchdog = {
            let state = Arc::clone(&state);
            let deadline = self.deadline;
            std::thread::spawn(move || {
                let (lock, cv) = &*state;
                let mut g = lock.lock().unwrap_or_else(|e| e.into_inner());
                let until = Instant::now() + deadline;
                while !g.0 {
                    let now = Instant::now();
                    if now >= until {
                        // SAFETY: `pid` is our child, exited or not but
                        // not reaped (the parent reaps only after setting
                        // `done`, which we hold the lock against), so the
                        // pid still names it.
                        unsafe { libc::kill(pid, libc::SIGKILL) };
                        g.1 = true;
                        break;
                    }
                    g = cv
                        .wait_timeout(g, until - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            })
        };
        let waited = wait_exited(pid);
        let wall = start.elapsed();
        let killed = {
            let (lock, cv) = &*state;
            let mut g = lock.lock().unwrap_or_else(|e| e.into_inner());
            g.0 = true;
            cv.notify_all();
            g.1
        };
        let _ = watchdog.join();
        let reaped = reap(pid);
        // `Child` would reap on `wait`; it is never asked to, and dropping
        // it does not wait.
        drop(child);
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        waited.with_context(|| format!("waiting for {}", self.display()))?;
        let (status, usage) = reaped.with_context(|| format!("reaping {}", self.display()))?;
        anyhow::ensure!(
            !killed,
            "{} ran past its deadline of {} s and was killed; stderr: {}",
            self.display(),
            self.deadline.as_secs(),
            tail(&stderr)
        );
        let status = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
        Ok(Outcome {
            wall,
            user: timeval(usage.ru_utime),
            sys: timeval(usage.ru_stime),
            status,
            stdout,
            stderr,
        })
    }

    /// [`Launch::run`], and an error naming the command and its stderr
    /// unless it exited 0.
    pub fn run_ok(&self) -> anyhow::Result<Outcome> {
        let o = self.run()?;
        anyhow::ensure!(
            o.status == Some(0),
            "{} failed ({}): {}",
            self.display(),
            o.status
                .map_or_else(|| "killed by a signal".to_string(), |s| format!("exit {s}")),
            tail(&o.stderr)
        );
        Ok(o)
    }
}

impl Outcome {
    /// The nanoseconds of each `<Benchmark> iteration <i> <ns>` line of the
    /// Harness protocol (`crates/fastpath-vm/bench/java/README.md`), in
    /// order; an error if the lines are not 0, 1, 2, … or a number is bad.
    pub fn iteration_ns(&self) -> anyhow::Result<Vec<f64>> {
        let mut ns = Vec::new();
        for line in self.stdout.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [_, "iteration", i, t] => {
                    let i: usize = i.parse().with_context(|| format!("iteration line `{line}`"))?;
                    anyhow::ensure!(i == ns.len(), "iteration {i} out of order in `{line}`");
                    ns.push(
                        t.parse::<f64>()
                            .with_context(|| format!("iteration line `{line}`"))?,
                    );
                }
                _ => anyhow::bail!("not a Harness line: `{line}`"),
            }
        }
        Ok(ns)
    }
}

/// The last lines of `s` (for an error message).
pub fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = lines.len().saturating_sub(6);
    let t = lines[from..].join(" / ");
    if t.is_empty() {
        "(nothing)".to_string()
    } else {
        t
    }
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec.max(0) as u64) + Duration::from_micros(tv.tv_usec.max(0) as u64)
}

/// Waits until `pid` has exited, leaving it unreaped.
fn wait_exited(pid: libc::pid_t) -> anyhow::Result<()> {
    loop {
        // SAFETY: an all-zero siginfo_t is a valid value of this plain C
        // struct for waitid to fill.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our own unreaped child; `info` is a valid,
        // writable local.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e).context("waitid");
        }
    }
}

/// Reaps the exited `pid`: its wait status and rusage.
fn reap(pid: libc::pid_t) -> anyhow::Result<(libc::c_int, libc::rusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own exited, unreaped child; `status` and
        // `usage` are valid, writable locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let e = std::io::Error::last_os_error();
        if r != -1 || e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e).context("wait4");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_pipes_beyond_their_capacity_and_the_status() {
        // 200 KB on each pipe: more than a pipe holds, so the child would
        // block on a parent that read only after the exit.
        let o = Launch::new("sh")
            .args([
                "-c",
                "head -c 200000 /dev/zero | tr '\\0' a; head -c 200000 /dev/zero | tr '\\0' b >&2; exit 3",
            ])
            .run()
            .unwrap();
        assert_eq!(o.status, Some(3));
        assert_eq!(o.stdout.len(), 200_000);
        assert_eq!(o.stderr.len(), 200_000);
        assert!(o.wall > Duration::ZERO);
    }

    #[test]
    fn a_child_past_its_deadline_is_killed_and_reported() {
        let t = Instant::now();
        let e = Launch::new("sleep")
            .args(["30"])
            .deadline(Duration::from_millis(200))
            .run()
            .unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        assert!(e.to_string().contains("deadline"), "{e}");
    }

    #[test]
    fn run_ok_names_the_command_and_its_stderr() {
        let e = Launch::new("sh")
            .args(["-c", "echo refused >&2; exit 1"])
            .env("X_LAB", "1")
            .run_ok()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("X_LAB=1 sh") && e.contains("refused") && e.contains("exit 1"),
            "{e}"
        );
    }

    #[test]
    fn harness_lines_parse_in_order_and_anything_else_is_an_error() {
        let o = |stdout: &str| Outcome {
            wall: Duration::ZERO,
            user: Duration::ZERO,
            sys: Duration::ZERO,
            status: Some(0),
            stdout: stdout.to_string(),
            stderr: String::new(),
        };
        let ns = o("Richards iteration 0 10\nRichards iteration 1 20\n")
            .iteration_ns()
            .unwrap();
        assert_eq!(ns, [10.0, 20.0]);
        assert!(o("Richards iteration 1 10\n").iteration_ns().is_err());
        assert!(o("Hello, world!\n").iteration_ns().is_err());
        assert!(o("R iteration 0 ten\n").iteration_ns().is_err());
    }
}

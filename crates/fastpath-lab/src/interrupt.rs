//! Stopping a run early: Ctrl-C (SIGINT), SIGTERM, SIGHUP, or the reader of
//! stdout going away (a broken pipe, `fastpath … | head`: noticed when it
//! happens, by [`watch_stdout_reader`], not at the next write).
//!
//! Where it sits: `main` calls [`install`] first, before any thread exists;
//! the CLI registers what a stop must leave behind ([`watch_out_dir`],
//! [`on_stop`]); [`stop`] does it and exits.
//!
//! How: the signals are blocked in the main thread, so every thread spawned
//! after it (the experiments' workers, the collector) inherits the mask and
//! none of them is interrupted mid-operation; one thread waits for them with
//! `sigwait(2)` and calls [`stop`]. A child process starts with an empty
//! mask (the standard library resets it before `exec`), so Ctrl-C in a
//! terminal still reaches the startup experiment's children and Valgrind.
//!
//! What a stop leaves: the `--out` directory removed if this run created it
//! and nothing was written into it (no empty folder), and whatever the
//! registered action writes (`fastpath all`'s partial `report.md`).

use std::path::PathBuf;
use std::sync::Mutex;

/// Exit code after SIGINT, as a shell reports a process it interrupted.
pub const INTERRUPTED: i32 = 130;

/// What a stop writes, given why the run stopped.
type StopAction = Box<dyn FnOnce(&str) + Send>;

/// What a stop must clean up or write.
struct Pending {
    /// The `--out` directory and its ancestors this run created, deepest
    /// first.
    created_out: Vec<PathBuf>,
    /// Run once by [`stop`] (a partial report), then dropped.
    action: Option<StopAction>,
}

static PENDING: Mutex<Pending> = Mutex::new(Pending {
    created_out: Vec::new(),
    action: None,
});

fn pending() -> std::sync::MutexGuard<'static, Pending> {
    // A panic while holding this lock leaves plain data behind: keep going.
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and starts the
/// thread that waits for them. Call it from `main` before any thread is
/// spawned, so that every thread inherits the mask.
pub fn install() {
    let set = signal_set();
    // SAFETY: `set` is an initialised signal set; a null old-mask pointer
    // is allowed.
    let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if rc != 0 {
        // The signals keep their default action: the run still stops, only
        // without cleaning up.
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("fastpath-signals".into())
        .spawn(move || loop {
            let mut sig = 0;
            // SAFETY: `set` is initialised and `sig` is a valid place for
            // the signal number.
            if unsafe { libc::sigwait(&set, &mut sig) } == 0 {
                let what = match sig {
                    libc::SIGINT => "interrupted (Ctrl-C)",
                    libc::SIGTERM => "terminated (SIGTERM)",
                    _ => "hung up (SIGHUP)",
                };
                stop(what, INTERRUPTED);
            }
        });
    if spawned.is_err() {
        // No waiter: unblock, so that Ctrl-C still ends the process.
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

/// When stdout is a pipe, starts a thread that waits for its reader to
/// go away (`fastpath lock | head` once `head` has its lines) and then
/// stops the run quietly, exit 0, as a failed write to the closed pipe
/// would: an experiment that prints its tables only at its end would
/// otherwise measure on for nobody. `poll(2)` on a pipe's write end
/// reports `POLLERR` once every reader has closed it, without a write.
pub fn watch_stdout_reader() {
    // SAFETY: fstat writes into the zeroed `st`, which is a valid place
    // for a `struct stat`; fd 1 may be closed, which fstat reports.
    let is_pipe = unsafe {
        let mut st = std::mem::zeroed::<libc::stat>();
        libc::fstat(1, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFIFO
    };
    if !is_pipe {
        return;
    }
    // A watcher that cannot start leaves the write error to stop the run.
    let _ = std::thread::Builder::new()
        .name("fastpath-stdout".into())
        .spawn(|| loop {
            let mut fd = libc::pollfd {
                fd: 1,
                events: 0,
                revents: 0,
            };
            // SAFETY: `fd` is one valid pollfd; a negative timeout waits
            // until an event.
            let n = unsafe { libc::poll(&mut fd, 1, -1) };
            if n > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
                stop("", 0);
            }
            if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return;
            }
        });
}

fn signal_set() -> libc::sigset_t {
    // SAFETY: sigemptyset initialises the set it is given; sigaddset takes
    // valid signal numbers.
    unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGHUP);
        set
    }
}

/// Remembers the directories this run created for `--out DIR` (`DIR` and
/// its missing ancestors, deepest first): a stop (or a failed run, through
/// [`remove_out_if_empty`]) removes them again if nothing was written
/// there.
pub fn watch_out_dir(created: Vec<PathBuf>) {
    pending().created_out = created;
}

/// Registers what a stop must write, given why the run stopped
/// (`fastpath all`'s partial report). Replaces any earlier action.
pub fn on_stop(action: impl FnOnce(&str) + Send + 'static) {
    pending().action = Some(Box::new(action));
}

/// Forgets the registered action (the run finished and wrote its own).
pub fn clear_on_stop() {
    pending().action = None;
}

/// The name of the empty file [`prepare_out`](crate::cli::prepare_out)
/// writes and removes to prove `--out` is writable (the process id keeps two
/// runs sharing a folder apart).
pub fn out_probe_name() -> String {
    format!(".fastpath-write-test-{}", std::process::id())
}

/// Removes the `--out` directory this run created if it is still empty
/// (but for this run's own write probe, which a stop right after creating
/// the directory can leave behind).
pub fn remove_out_if_empty() {
    let created = std::mem::take(&mut pending().created_out);
    if let Some(deepest) = created.first() {
        let _ = std::fs::remove_file(deepest.join(out_probe_name()));
    }
    for dir in created {
        // remove_dir fails on a directory that has anything in it: exactly
        // the directories to keep (and then their ancestors too).
        if std::fs::remove_dir(&dir).is_err() {
            break;
        }
    }
}

/// Ends the run now: runs the registered action with `why`, removes an
/// empty `--out` directory this run created, says why on stderr (unless
/// `why` is empty) and exits with `code`.
///
/// Two stops can race (the stdout watcher and a failed write both notice a
/// closed pipe): the first one does all of it, and any later caller waits
/// here for the exit. Otherwise the second could remove the `--out`
/// directory and exit while the first is still writing the partial report
/// into it. A caller must therefore hold no lock the action takes (`all`'s
/// state).
pub fn stop(why: &str, code: i32) -> ! {
    static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    // Relaxed: only one caller may pass; the winner's own work is ordered
    // by program order, and the losers read nothing it writes.
    if STOPPING.swap(true, std::sync::atomic::Ordering::Relaxed) {
        loop {
            std::thread::park();
        }
    }
    let action = pending().action.take();
    if let Some(action) = action {
        action(why);
    }
    remove_out_if_empty();
    if !why.is_empty() {
        eprintln!("fastpath: {why}: stopped");
    }
    std::process::exit(code)
}

/// Serialises the tests that set the process-wide `--out` bookkeeping.
#[cfg(test)]
pub(crate) static OUT_TEST_LOCK: Mutex<()> = Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_out_directory_is_removed_with_a_left_over_write_probe() {
        let _serial = OUT_TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let base = std::env::temp_dir().join(format!("fastpath-out-probe-{}", std::process::id()));
        let nested = base.join("a");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(nested.join(out_probe_name()), b"").unwrap();
        watch_out_dir(vec![nested.clone(), base.clone()]);
        remove_out_if_empty();
        assert!(!base.exists(), "the created folders and the probe are gone");

        // A folder holding anything else is kept, with its ancestors.
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(nested.join("lock.json"), b"{}").unwrap();
        watch_out_dir(vec![nested.clone(), base.clone()]);
        remove_out_if_empty();
        assert!(nested.join("lock.json").exists());
        let _ = std::fs::remove_dir_all(&base);
    }
}

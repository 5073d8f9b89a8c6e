//! The lab's way of writing to stdout: every table goes through
//! [`print_out`] (and the [`outln!`](crate::outln) macro), so that
//! `fastpath … | head` ends quietly: once the reader has gone (a broken
//! pipe), printing stops and the run stops the way a stop does
//! ([`interrupt::stop`](crate::interrupt::stop): what was kept stays
//! kept).
//!
//! Where it sits: below everything that prints (the CLI, an experiment's
//! [`Context`](crate::experiment::Context) printing a kept table), above
//! [`interrupt`](crate::interrupt).

use std::io::{self, Write as _};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout has failed (its reader left): nothing more is printed.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);
/// Set when a write to stdout failed for any reason but a closed pipe (a
/// full disk, `> /dev/full`): the command exits with a failure.
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to stdout. A closed pipe (`fastpath … | head`: the reader
/// has what it wanted) stops the run quietly, exit 0, through
/// [`interrupt::stop`](crate::interrupt::stop), which keeps what a stop
/// keeps (`all`'s partial report). Any other write error is reported once
/// on stderr, printing stops, and [`stdout_failed`] makes the command fail
/// at its end.
pub fn print_out(args: std::fmt::Arguments<'_>) {
    // Relaxed: flags with no data behind them; a thread that misses the
    // store tries one more write, which fails the same way.
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        drop(out);
        if e.kind() == io::ErrorKind::BrokenPipe {
            STDOUT_GONE.store(true, Ordering::Relaxed);
            crate::interrupt::stop("", 0);
        }
        if !STDOUT_GONE.swap(true, Ordering::Relaxed) {
            STDOUT_FAILED.store(true, Ordering::Relaxed);
            eprintln!("fastpath: writing to stdout: {e}");
        }
    }
}

/// Whether a write to stdout failed (other than a closed pipe): the
/// command's output is incomplete, so it must not exit 0.
pub fn stdout_failed() -> bool {
    // Relaxed: read by `main` after the work that wrote is done.
    STDOUT_FAILED.load(Ordering::Relaxed)
}

/// `println!` through [`print_out`]: quiet on a closed pipe.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::print_out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::print_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` through [`print_out`]: quiet on a closed pipe.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::print_out(format_args!($($arg)*))
    };
}

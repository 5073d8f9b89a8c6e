//! fastpath-vm: a JVM built from the fastpath library's public API.
//!
//! javac's class files run on an interpreter whose objects are
//! `fastpath::gc` heap objects (the header a `fastpath::sync` header), whose
//! `synchronized` is `fastpath::sync`, whose threads are native threads with
//! their thread block and mutator, and whose `Thread.onSpinWait()` is
//! `fastpath::spin::pause()`.
//!
//! | module | what |
//! |---|---|
//! | [`classfile`] | class-file parsing and format checks (the verifier in `classfile/verify/`) |
//! | [`link`] | loading, linking, dispatch tables, resolution, `invokedynamic` |
//! | [`object`] | Java objects and arrays as `fastpath::gc` heap objects |
//! | [`interp`] | pre-decoding, reference maps, frames, the dispatch loop |
//! | [`jit`] | Cranelift-compiled methods with fastpath's fast paths inlined |
//! | [`runtime`] | the VM, threads, exceptions, initialization, natives, launch |
//! | [`cli`] | `java`'s command line |

#![warn(missing_docs)]

/// `eprintln!` for the VM's own messages (errors, logs, statistics, the
/// JIT's dumps): a stderr whose reader has gone (`java ... 2>&1 | head`)
/// loses the line instead of panicking the printing thread, as a JVM's
/// `tty` output does. Thread-safe: the line is written under stderr's lock.
#[macro_export]
macro_rules! diag {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        // A failed write (the reader closed the pipe) is not the program's
        // error: the message is dropped.
        let _ = ::std::writeln!(::std::io::stderr().lock(), $($arg)*);
    }};
}

/// `eprint!` as [`diag!`] writes it: no newline added.
#[macro_export]
macro_rules! diag_text {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::write!(::std::io::stderr().lock(), $($arg)*);
    }};
}

pub mod classfile;
pub mod cli;
pub mod interp;
pub mod jit;
pub mod link;
pub mod object;
pub mod runtime;

/// The built-in class library (`classlib/`, compiled by `build.rs`).
pub static CLASSLIB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/classlib.fpvm"));

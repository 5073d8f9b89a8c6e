//! Natives: the class library's `native` methods, in Rust.
//!
//! Where it sits: the interpreter links a native method on its first call
//! with [`lookup`] (class, name, descriptor → function) and calls it with
//! its arguments in place on the caller's operand stack
//! ([`crate::interp::Args`]); a method with no entry here throws
//! `UnsatisfiedLinkError` naming it. The class library (`classlib/`) keeps
//! to Java what Java does well and declares `native` only what needs the
//! VM: identity, monitors, threads, time, output, class metadata, stack
//! traces, bit conversions, and number formatting that must match
//! OpenJDK's digits.
//!
//! | file | classes |
//! |---|---|
//! | `lang.rs` | Object, Class, System, Runtime, String, Throwable, StackTraceElement |
//! | `numbers.rs` | Float, Double, Math, StrictMath, the formatter's digits |
//! | `thread.rs` | Thread, and the VM's thread start and exit |
//! | `park.rs` | LockSupport: each thread's parking permit |
//! | `io.rs` | the standard streams |
//! | `misc.rs` | arrays of a class, Unicode properties, `parseFloat`, records, atomics |
//! | `numeric.rs` | `Character.getNumericValue`'s Unicode numbers beyond the digits |
//! | `collections.rs` | what `HashMap`'s tree bins ask of a key's class |

pub mod collections;
pub mod io;
pub mod lang;
pub mod misc;
pub mod numbers;
pub mod numeric;
pub mod park;
pub mod thread;

use fastpath::gc::BarrierSet;

use crate::interp::NativeFn;

/// The native implementation of `class.name descriptor`, if the VM has one.
pub fn lookup<B: BarrierSet>(class: &str, name: &str, desc: &str) -> Option<NativeFn<B>> {
    lang::lookup::<B>(class, name, desc)
        .or_else(|| numbers::lookup::<B>(class, name, desc))
        .or_else(|| thread::lookup::<B>(class, name, desc))
        .or_else(|| park::lookup::<B>(class, name, desc))
        .or_else(|| io::lookup::<B>(class, name, desc))
        .or_else(|| misc::lookup::<B>(class, name, desc))
        .or_else(|| collections::lookup::<B>(class, name, desc))
}

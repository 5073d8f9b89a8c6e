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

#![warn(missing_docs)]

pub mod classfile;

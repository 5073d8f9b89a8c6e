//! The runtime: the VM, threads, exceptions, class initialization,
//! natives, and the embedded class library.
//!
//! | file | what |
//! |---|---|
//! | `vm.rs` | the VM: registry, heap, global roots, options |
//! | `thread.rs` | a Java thread: mutator, stack, scanner |
//! | `globals.rs` | global roots at stable addresses |
//! | `error.rs` | exceptions described before they are objects |
//! | `exception.rs` | throwing: exception objects, stack traces, OOM |
//! | `init.rs` | class initialization (JVMS 5.5) |
//! | `launch.rs` | the main thread, class and method; the exit rule |
//! | `natives/` | the class library's native methods |

pub mod error;
pub mod exception;
pub mod globals;
pub mod init;
pub mod launch;
pub mod natives;
pub mod thread;
pub mod vm;

pub use error::Error;
pub use thread::{JResult, JThread, Thrown};
pub use vm::Vm;

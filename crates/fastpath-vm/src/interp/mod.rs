//! The interpreter: pre-decoded instructions, reference maps, frames on a
//! per-thread slot stack, and the dispatch loop.
//!
//! | file | what |
//! |---|---|
//! | `insn.rs` | the pre-decoded instruction set (16 bytes each, operands resolved) |
//! | `decode.rs` | bytecode → instructions, when a method first runs |
//! | `builder_fusion.rs` | `StringBuilder` chains fused into one concatenation before decoding (C2's `OptimizeStringConcat`) |
//! | `oopmap.rs` | which slots hold references at each instruction (for the collector) |
//! | `stack.rs` | the slot stack, frame headers, the root scanner |
//! | `exec.rs` | the dispatch loop, calls from Rust, natives' calling convention |
//! | `profile.rs` | each call site's count and the receiver classes seen at each virtual and interface call (for the JIT) |
//! | `npe.rs` | helpful `NullPointerException` messages (JEP 358) |

pub mod builder_fusion;
pub mod decode;
pub mod exec;
pub mod insn;
pub mod npe;
pub mod oopmap;
pub mod profile;
pub mod stack;

pub use decode::Decoded;
pub use exec::{Args, NativeFn};
pub use insn::Insn;

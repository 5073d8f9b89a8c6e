//! Loading, linking, resolution and initialization (JVMS chapter 5).
//!
//! | file | what |
//! |---|---|
//! | `class.rs` | `Class`, `Field`, `Method`: the linked metadata, at stable addresses |
//! | `class_space.rs` | where classes live: one reserved space, so that a 30-bit tag names each |
//! | `loader.rs` | finding, parsing and linking classes: layout, vtables, itables |
//! | `archive.rs` | the built-in class library, embedded in the binary |
//! | `classpath.rs` | directories and jars of `-cp` |
//! | `jar.rs` | ZIP directories and inflate |
//! | `resolve.rs` | symbolic references to classes, fields, methods |
//! | `indy.rs` | `invokedynamic`: lambdas, string concatenation, records |
//! | `synth.rs` | the classes the VM writes (for `indy.rs`) |

pub mod archive;
pub mod class;
pub mod class_space;
pub mod classpath;
pub mod indy;
pub mod jar;
pub mod loader;
pub mod resolve;
pub mod synth;

pub use class::{Class, ClassKind, Field, InitState, Kind, Method};
pub use loader::Loader;

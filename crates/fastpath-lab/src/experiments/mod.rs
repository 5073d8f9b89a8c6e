//! The experiments, one file (or folder) per seed, each registered by name
//! in [`registry`].
//!
//! Where it sits: an experiment drives one subsystem of the `fastpath`
//! library through the `harness` and keeps each finished table through
//! its [`Context`](crate::experiment::Context) (see
//! [`experiment`](crate::experiment)). The CLI makes each one a subcommand
//! (`fastpath <name> [--quick] [--out DIR] [its own options]`), and
//! `fastpath all` runs every one in quick mode.

pub mod gc;
pub mod icache;
pub mod jit;
pub mod lock;
pub mod spin;
pub mod startup;
pub mod vm;

use crate::experiment::Experiment;

/// Every experiment, in the order `fastpath all` runs them.
pub fn registry() -> Vec<&'static dyn Experiment> {
    vec![
        &startup::Startup,
        &spin::Spin,
        &icache::ICache,
        &lock::Lock,
        &gc::Gc,
        &jit::Jit,
        &vm::Vm,
    ]
}

//! The lab's binary as a user runs it: each module starts `fastpath` (the
//! debug build of this package's binary) as a child process and checks
//! what it prints, writes and exits with. One test binary for all of them,
//! so that its tests run side by side on every CPU (each child is a whole
//! process, so they share no state) where separate binaries would run one
//! after another, and the binary is linked once. The tests that run an
//! experiment inside the test process (icache, spin, perfnorm) keep their
//! own binaries, and the README's walk-through (`walkthrough.rs`) runs in
//! the release build from `.ci/run`.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod cpu_strace;
mod gc_smoke;
mod jit_smoke;
mod lock_smoke;
mod startup_smoke;
mod table_width;
mod vm_smoke;

//! Process-wide publication of changed code: after [`publish`] returns,
//! every thread of the process has serialized its instruction stream, so
//! none can still run bytes it fetched before the change.
//!
//! Where it sits: after [`CodeCache::patch`](super::CodeCache::patch) (or an
//! install into memory that other threads ran before it was freed). The
//! per-thread alternative is [`cross_modify_fence`](super::cross_modify_fence),
//! executed by each thread that runs the code; `publish` does it for all of
//! them at once from the writer's side, the way HotSpot uses a handshake or
//! safepoint after patching.
//!
//! Mechanism: Linux `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE)`
//! (4.16+): the kernel interrupts every CPU currently running a thread of this
//! process and guarantees each executes a core-serializing instruction before
//! returning to user space; threads not running serialize on their way back
//! in. The process must register its intent once
//! (`MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE`); [`publish`] does
//! that on first use.
//!
//! Fallbacks, reported as a [`PublishGuarantee`] so the caller knows what it
//! got:
//! - the kernel or architecture lacks SYNC_CORE (it is implemented for x86,
//!   arm64, ...; a seccomp policy may also refuse it): register and use
//!   `MEMBARRIER_CMD_PRIVATE_EXPEDITED` (4.14+), which guarantees a full
//!   memory barrier on every running thread but promises no core
//!   serialization: [`PublishGuarantee::MemoryBarrier`];
//! - no usable membarrier at all: nothing is done,
//!   [`PublishGuarantee::Nothing`]. Each thread must then call
//!   `cross_modify_fence` before running changed code.

use std::io;
use std::sync::OnceLock;

use rustix::thread::{membarrier, MembarrierCommand};

/// What [`publish`] guaranteed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PublishGuarantee {
    /// Every thread of the process executed a core-serializing instruction
    /// (and a full memory barrier) before `publish` returned.
    SyncCore,
    /// Every running thread executed a full memory barrier; serialization of
    /// instruction fetch is not promised. Runners must also call
    /// `cross_modify_fence`.
    MemoryBarrier,
    /// Nothing happened (no membarrier); runners must call
    /// `cross_modify_fence`.
    Nothing,
}

impl PublishGuarantee {
    /// Whether the guarantee covers cross-modified code on its own.
    pub fn serializes_all_threads(self) -> bool {
        self == PublishGuarantee::SyncCore
    }
}

/// Which expedited command this process registered for.
static REGISTERED: OnceLock<PublishGuarantee> = OnceLock::new();

/// Makes code changed by this thread safe for every thread of the process
/// to execute; registers with the kernel on first call. See the module docs
/// for what the returned value promises.
pub fn publish() -> PublishGuarantee {
    let level = *REGISTERED.get_or_init(|| register(&mut |cmd| membarrier(cmd).map_err(Into::into)));
    run(level, &mut |cmd| membarrier(cmd).map_err(Into::into))
}

/// The guarantee [`publish`] gives in this process (registering if needed),
/// without issuing a barrier.
pub fn guarantee() -> PublishGuarantee {
    *REGISTERED.get_or_init(|| register(&mut |cmd| membarrier(cmd).map_err(Into::into)))
}

/// Registers for the strongest expedited command the kernel accepts.
fn register(sys: &mut dyn FnMut(MembarrierCommand) -> io::Result<()>) -> PublishGuarantee {
    if sys(MembarrierCommand::RegisterPrivateExpeditedSyncCore).is_ok() {
        PublishGuarantee::SyncCore
    } else if sys(MembarrierCommand::RegisterPrivateExpedited).is_ok() {
        PublishGuarantee::MemoryBarrier
    } else {
        PublishGuarantee::Nothing
    }
}

/// Issues the barrier for `level`; a refusal after a successful registration
/// (not expected from Linux) degrades to what was actually achieved.
fn run(
    level: PublishGuarantee,
    sys: &mut dyn FnMut(MembarrierCommand) -> io::Result<()>,
) -> PublishGuarantee {
    match level {
        PublishGuarantee::SyncCore => {
            if sys(MembarrierCommand::PrivateExpeditedSyncCore).is_ok() {
                PublishGuarantee::SyncCore
            } else {
                run(PublishGuarantee::MemoryBarrier, sys)
            }
        }
        PublishGuarantee::MemoryBarrier => {
            if sys(MembarrierCommand::PrivateExpedited).is_ok() {
                PublishGuarantee::MemoryBarrier
            } else {
                PublishGuarantee::Nothing
            }
        }
        PublishGuarantee::Nothing => PublishGuarantee::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel_accepting(
        accepted: &'static [MembarrierCommand],
    ) -> impl FnMut(MembarrierCommand) -> io::Result<()> {
        move |cmd| {
            if accepted.contains(&cmd) {
                Ok(())
            } else {
                Err(io::Error::from_raw_os_error(libc::EINVAL))
            }
        }
    }

    #[test]
    fn registers_the_strongest_command_the_kernel_accepts() {
        use MembarrierCommand::*;
        let mut full = kernel_accepting(&[
            RegisterPrivateExpeditedSyncCore,
            PrivateExpeditedSyncCore,
            RegisterPrivateExpedited,
            PrivateExpedited,
        ]);
        assert_eq!(register(&mut full), PublishGuarantee::SyncCore);
        assert_eq!(
            run(PublishGuarantee::SyncCore, &mut full),
            PublishGuarantee::SyncCore
        );

        let mut no_sync_core = kernel_accepting(&[RegisterPrivateExpedited, PrivateExpedited]);
        let level = register(&mut no_sync_core);
        assert_eq!(level, PublishGuarantee::MemoryBarrier);
        assert!(!level.serializes_all_threads());
        assert_eq!(run(level, &mut no_sync_core), PublishGuarantee::MemoryBarrier);

        let mut none = kernel_accepting(&[]);
        assert_eq!(register(&mut none), PublishGuarantee::Nothing);
        // A refusal after registration degrades instead of lying.
        assert_eq!(
            run(PublishGuarantee::SyncCore, &mut none),
            PublishGuarantee::Nothing
        );
    }

    #[test]
    fn this_kernel_gives_sync_core() {
        // Linux ≥ 4.16 on x86-64 implements SYNC_CORE; the project's CI runs
        // on 6.x. If this fails, the fallback is in use: read the docs above.
        let g = publish();
        assert_eq!(g, PublishGuarantee::SyncCore, "membarrier fallback in use");
        assert_eq!(publish(), g);
        assert_eq!(guarantee(), g);
    }
}

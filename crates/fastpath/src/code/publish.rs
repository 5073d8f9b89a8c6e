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
//!   arm64, ...; a seccomp policy may also refuse it), at registration or
//!   at any later call: use `MEMBARRIER_CMD_PRIVATE_EXPEDITED` (4.14+),
//!   which guarantees a full memory barrier on every running thread but
//!   promises no core serialization: [`PublishGuarantee::MemoryBarrier`].
//!   It needs its own registration (the kernel keeps one "ready" bit per
//!   command, and refuses an unregistered one with `EPERM`), so [`publish`]
//!   registers both on first use, and the step-down is real;
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

/// Which expedited commands this process registered for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Registered {
    /// `MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE`.
    sync_core: bool,
    /// `MEMBARRIER_CMD_PRIVATE_EXPEDITED`.
    expedited: bool,
}

impl Registered {
    /// The strongest guarantee the registered commands can give.
    fn guarantee(self) -> PublishGuarantee {
        if self.sync_core {
            PublishGuarantee::SyncCore
        } else if self.expedited {
            PublishGuarantee::MemoryBarrier
        } else {
            PublishGuarantee::Nothing
        }
    }
}

static REGISTERED: OnceLock<Registered> = OnceLock::new();

fn registered() -> Registered {
    *REGISTERED.get_or_init(|| register(&mut |cmd| membarrier(cmd).map_err(Into::into)))
}

/// Makes code changed by this thread safe for every thread of the process
/// to execute; registers with the kernel on first call. See the module docs
/// for what the returned value promises.
pub fn publish() -> PublishGuarantee {
    run(registered(), &mut |cmd| membarrier(cmd).map_err(Into::into))
}

/// The guarantee [`publish`] gives in this process (registering if needed),
/// without issuing a barrier.
pub fn publish_guarantee() -> PublishGuarantee {
    registered().guarantee()
}

/// Registers for both expedited commands the kernel accepts: SYNC_CORE for
/// the guarantee, and the plain one for the step-down when a SYNC_CORE call
/// is refused later (each needs its own registration; one more system call,
/// once per process).
fn register(sys: &mut dyn FnMut(MembarrierCommand) -> io::Result<()>) -> Registered {
    Registered {
        sync_core: sys(MembarrierCommand::RegisterPrivateExpeditedSyncCore).is_ok(),
        expedited: sys(MembarrierCommand::RegisterPrivateExpedited).is_ok(),
    }
}

/// Issues the strongest registered barrier; a refusal (not expected from
/// Linux after a successful registration, but a seccomp policy may refuse
/// one command) steps down to what was actually achieved.
fn run(registered: Registered, sys: &mut dyn FnMut(MembarrierCommand) -> io::Result<()>) -> PublishGuarantee {
    if registered.sync_core && sys(MembarrierCommand::PrivateExpeditedSyncCore).is_ok() {
        PublishGuarantee::SyncCore
    } else if registered.expedited && sys(MembarrierCommand::PrivateExpedited).is_ok() {
        PublishGuarantee::MemoryBarrier
    } else {
        PublishGuarantee::Nothing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake kernel with Linux's rules: a command runs only if accepted
    /// (by the "kernel" or a seccomp policy) and its own registration was
    /// made first, else `EPERM`; an unaccepted registration is `EINVAL`.
    fn kernel_accepting(
        accepted: &'static [MembarrierCommand],
    ) -> impl FnMut(MembarrierCommand) -> io::Result<()> {
        use MembarrierCommand::*;
        let mut ready: Vec<MembarrierCommand> = Vec::new();
        move |cmd| {
            let registration_of = match cmd {
                PrivateExpeditedSyncCore => Some(RegisterPrivateExpeditedSyncCore),
                PrivateExpedited => Some(RegisterPrivateExpedited),
                _ => None,
            };
            if !accepted.contains(&cmd) {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            match registration_of {
                Some(reg) if !ready.contains(&reg) => Err(io::Error::from_raw_os_error(libc::EPERM)),
                Some(_) => Ok(()),
                None => {
                    ready.push(cmd);
                    Ok(())
                }
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
        let reg = register(&mut full);
        assert_eq!(reg.guarantee(), PublishGuarantee::SyncCore);
        assert_eq!(run(reg, &mut full), PublishGuarantee::SyncCore);

        let mut no_sync_core = kernel_accepting(&[RegisterPrivateExpedited, PrivateExpedited]);
        let reg = register(&mut no_sync_core);
        assert_eq!(reg.guarantee(), PublishGuarantee::MemoryBarrier);
        assert!(!reg.guarantee().serializes_all_threads());
        assert_eq!(run(reg, &mut no_sync_core), PublishGuarantee::MemoryBarrier);

        let mut none = kernel_accepting(&[]);
        let reg = register(&mut none);
        assert_eq!(reg.guarantee(), PublishGuarantee::Nothing);
        assert_eq!(run(reg, &mut none), PublishGuarantee::Nothing);
        // A refusal after registration degrades instead of lying.
        let both = Registered {
            sync_core: true,
            expedited: true,
        };
        assert_eq!(run(both, &mut none), PublishGuarantee::Nothing);
    }

    #[test]
    fn a_refused_sync_core_call_steps_down_to_the_registered_memory_barrier() {
        use MembarrierCommand::*;
        // SYNC_CORE registers but its command is refused (a seccomp policy
        // filtering that one command): the step-down to PRIVATE_EXPEDITED
        // works only because `register` registered that command too.
        let mut filtered = kernel_accepting(&[
            RegisterPrivateExpeditedSyncCore,
            RegisterPrivateExpedited,
            PrivateExpedited,
        ]);
        let reg = register(&mut filtered);
        assert_eq!(reg.guarantee(), PublishGuarantee::SyncCore);
        assert_eq!(run(reg, &mut filtered), PublishGuarantee::MemoryBarrier);
        // And the fake kernel does enforce registration, as Linux does.
        let mut unregistered = kernel_accepting(&[PrivateExpedited]);
        assert_eq!(
            unregistered(PrivateExpedited).unwrap_err().raw_os_error(),
            Some(libc::EPERM)
        );
    }

    #[test]
    fn this_kernel_gives_sync_core() {
        // Linux ≥ 4.16 on x86-64 implements SYNC_CORE; the project's CI runs
        // on 6.x. If this fails, the fallback is in use: read the docs above.
        let g = publish();
        assert_eq!(g, PublishGuarantee::SyncCore, "membarrier fallback in use");
        assert_eq!(publish(), g);
        assert_eq!(publish_guarantee(), g);
    }
}

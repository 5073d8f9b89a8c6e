//! `FASTPATH_LOCKING_MODE`: how object monitors are locked, owned here.
//!
//! Where it sits: under every file of `sync` that picks a path by mode
//! (`thread.rs` reads [`LOCKING_MODE`] for a thread that chose none with
//! [`super::set_current_thread_locking_mode`]); `config` only lists it.
//! Every value runs on every CPU.

use crate::cpu::CpuInfo;
use crate::setting::{self, Choice, Choices, ProcessValue};

/// How object monitors are locked (HotSpot `-XX:LockingMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LockingMode {
    /// Fast-locking with a per-thread lock-stack (HotSpot LockingMode=2,
    /// `LM_LIGHTWEIGHT`).
    #[default]
    Lightweight,
    /// Stack-locking with displaced headers (HotSpot LockingMode=1, `LM_LEGACY`).
    Legacy,
    /// Every lock is a full monitor (HotSpot LockingMode=0, `LM_MONITOR`).
    Monitor,
}

impl Choices for LockingMode {
    const VAR: &'static str = "FASTPATH_LOCKING_MODE";
    const TABLE: &'static [Choice<Self>] = &[
        Choice {
            aliases: &["2"],
            ..Choice::everywhere(LockingMode::Lightweight, "lightweight")
        },
        Choice {
            aliases: &["1"],
            ..Choice::everywhere(LockingMode::Legacy, "legacy")
        },
        Choice {
            aliases: &["0"],
            ..Choice::everywhere(LockingMode::Monitor, "monitor")
        },
    ];
    fn check(self, _cpu: &CpuInfo) -> Result<(), String> {
        Ok(())
    }
}

setting::choices_setting!(
    LockingMode,
    "how object monitors are locked (HotSpot -XX:LockingMode)"
);
setting::choices_api!(LockingMode);

/// The process-wide locking mode: what a thread uses unless it chose
/// another. (Under loom every thread is lightweight: `thread.rs`.)
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static LOCKING_MODE: ProcessValue<LockingMode> = ProcessValue::new();

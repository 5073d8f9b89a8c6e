//! What the synchronizer's one dispatch on the locking mode hands a
//! locking protocol's slow path: the operation ([`Op`]) and, for an enter,
//! who holds the lock ([`Holder`]).
//!
//! The protocols answer with an [`Outcome`], one word, so that it comes
//! back in a register through the dispatch's calls.
//!
//! Where it sits: below the synchronizer and the protocols
//! (`lightweight.rs`, `legacy.rs`, `monitor_mode.rs`), which all speak it.

use super::error::SyncError;
use super::record::LockRecord;

/// What a slow path is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// `monitorenter`: with `wait` false, one attempt that never waits for
    /// an owner (`try_enter`), which fails with [`SyncError::WouldBlock`].
    Enter { wait: bool, holder: Holder },
    /// `monitorexit` of one level (a raw one, or a guard's that has no
    /// record of its own).
    Exit,
}

/// Who a lock is taken for: where a legacy thread's lock record goes (the
/// other modes take no record, and return none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holder {
    /// The raw API: a record from the thread's record stack, where the raw
    /// `exit` finds it.
    Raw,
    /// A guard: an arena record the guard owns, returned to it.
    Guard,
}

/// What a slow path did, in one word: the record a legacy guard's lock
/// owns (null for every other lock and for an exit), or an error. Records
/// are 8-byte aligned, so the small values naming the errors never name
/// one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub(crate) struct Outcome(usize);

/// [`Outcome`]'s encoding of [`SyncError::WouldBlock`].
const WOULD_BLOCK: usize = 1;
/// [`Outcome`]'s encoding of [`SyncError::IllegalMonitorState`].
const ILLEGAL_MONITOR_STATE: usize = 2;

impl Outcome {
    /// Done, with no record.
    pub(crate) const DONE: Outcome = Outcome(0);
    /// A `try` enter found the object held by another thread.
    pub(crate) const WOULD_BLOCK: Outcome = Outcome(WOULD_BLOCK);
    /// An exit of an object the thread does not hold.
    pub(crate) const ILLEGAL_MONITOR_STATE: Outcome = Outcome(ILLEGAL_MONITOR_STATE);

    /// Done, with the record a legacy guard owns (or null).
    #[inline]
    pub(crate) fn record(r: *const LockRecord) -> Outcome {
        debug_assert!(r as usize % 8 == 0, "records are aligned");
        Outcome(r as usize)
    }

    /// An exit's result (a slow exit fails only one way).
    #[inline]
    pub(crate) fn exited(r: Result<(), SyncError>) -> Outcome {
        match r {
            Ok(()) => Outcome::DONE,
            Err(e) => {
                debug_assert_eq!(e, SyncError::IllegalMonitorState);
                Outcome::ILLEGAL_MONITOR_STATE
            }
        }
    }

    /// As a `Result`.
    #[inline]
    pub(crate) fn get(self) -> Result<*const LockRecord, SyncError> {
        match self.0 {
            WOULD_BLOCK => Err(SyncError::WouldBlock),
            ILLEGAL_MONITOR_STATE => Err(SyncError::IllegalMonitorState),
            r => Ok(r as *const LockRecord),
        }
    }
}

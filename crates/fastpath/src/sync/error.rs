//! The error every monitor operation returns: [`SyncError`].
//!
//! Where it sits: at the bottom of `sync`, beside `atomic.rs`: every layer
//! returns it, none needs more than the type.

/// Why a monitor operation did not do what was asked. Each leaves the
/// object's state unchanged (except that `wait` has re-acquired the lock).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncError {
    /// The current thread does not hold the object (Java's
    /// `IllegalMonitorStateException`).
    IllegalMonitorState,
    /// `wait` was interrupted ([`interrupt`](super::interrupt)); the interrupt status is
    /// cleared, as `InterruptedException` does.
    Interrupted,
    /// `wait`'s timeout expired without a notification.
    TimedOut,
    /// [`Synchronized::lock`](super::Synchronized::lock) on a thread that already holds it (a second
    /// guard would alias the value).
    AlreadyHeld,
    /// [`Synchronized::try_lock`](super::Synchronized::try_lock): another thread holds it (std's
    /// `TryLockError::WouldBlock`).
    WouldBlock,
}

impl core::fmt::Display for SyncError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            SyncError::IllegalMonitorState => "the current thread does not hold the object's lock",
            SyncError::Interrupted => "the wait was interrupted",
            SyncError::TimedOut => "the wait timed out",
            SyncError::AlreadyHeld => "the current thread already holds this Synchronized value",
            SyncError::WouldBlock => "another thread holds the lock",
        })
    }
}

impl std::error::Error for SyncError {}

//! Taking an idle [`Monitor`] back (HotSpot's asynchronous deflation,
//! JDK 15+; the protocol is in the parent module's header comment,
//! "Deflation"): the deflater's pre-check, its two CASes and their undo.
//!
//! Where it sits: [`super::super::deflate`]'s pass and the exit that
//! deflates a contention monitor call [`Monitor::try_deflate`]; every
//! enter that finds [`DEFLATED`] re-reads the header and retries.

use super::*;

impl Monitor {
    /// Whether any thread owns the monitor, or is queued, waiting or
    /// spinning here (a snapshot: the deflater's pre-check, and tests).
    pub(crate) fn is_busy(&self) -> bool {
        // Relaxed: a hint; `try_deflate` re-checks under its own orderings.
        self.contentions.load(Ordering::Relaxed) != 0
            || !self.entry_list.load(Ordering::Relaxed).is_null()
            || self.owner() != NO_OWNER
    }

    /// The deflater's half of async deflation (HotSpot
    /// `ObjectMonitor::deflate_monitor`, JDK 21). `true`: the monitor is
    /// deflated for good (owner [`DEFLATER_MARKER`], contentions
    /// [`DEFLATED`]): every later `enter` fails and re-reads the header, and
    /// the caller must put the displaced header back into the object.
    /// `false`: it is in use; nothing changed (a contender that arrived
    /// meanwhile was woken if it needs to be).
    pub(crate) fn try_deflate(&self) -> bool {
        if self.is_busy() {
            return false;
        }
        // SeqCst (here and below): the deflater's side of the handshake
        // with `enter_contended`'s SeqCst increment and with the hash's
        // check in `hash.rs`; a single total order decides who saw whom.
        // 1. Make every `try_lock` fail.
        if self
            .owner
            .compare_exchange(NO_OWNER, DEFLATER_MARKER, Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        // 2. A contender that incremented before our CAS is seen now...
        if self.contentions.load(Ordering::SeqCst) != 0 || !self.entry_list.load(Ordering::SeqCst).is_null() {
            self.abandon_deflation();
            return false;
        }
        // 3. ...and one that increments after this CAS sees DEFLATED.
        if self
            .contentions
            .compare_exchange(0, DEFLATED, Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
            self.abandon_deflation();
            return false;
        }
        true
    }

    /// Step 2 or 3 of `try_deflate` lost to a contender: give the monitor
    /// back, and wake a queued contender as an exiting owner would (it may
    /// have parked while the owner was the marker: nobody else would).
    fn abandon_deflation(&self) {
        // Release: as an exit; nothing was written under the marker.
        self.owner.store(NO_OWNER, Ordering::Release);
        self.wake_after_release(DEFLATER_MARKER);
    }

    /// Whether the monitor has been deflated (its object's header may still
    /// point to it until the deflater or a helper restores it).
    pub(crate) fn is_deflated(&self) -> bool {
        // An RMW, not a load: it reads the latest value in `contentions`'
        // modification order, so against the deflater's CAS to DEFLATED it
        // either comes first (and the deflater's later RMW read of the
        // displaced header sees what we wrote before this) or sees
        // DEFLATED. The hash's re-check (`hash.rs`) relies on exactly that;
        // a SeqCst load would too in theory, an RMW needs no total order.
        is_deflated_count(self.contentions.fetch_add(0, Ordering::SeqCst))
    }
}

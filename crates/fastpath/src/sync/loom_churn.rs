//! Loom models of monitor churn: young monitors
//! (`registry.rs`, "Young monitors") freed by their thread's header drop
//! with one CAS and no registry lock, against everything else that may
//! reach them: a deflation pass that adopts them, another thread dropping
//! the header (it steals the monitor from the slot), the thread's own next
//! inflation (which moves the older one into the set), a thread exit
//! releasing a monitor it holds, and a thread that fills its slot and
//! exits while a pass adopts every young monitor. Each model ends with no monitor left
//! registered or young (`live_monitors`), and loom flags any access to a
//! freed monitor's atomics.

use core::pin::Pin;

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;

use super::loom_tests::model;
use super::*;

fn monitor_mode() {
    set_current_thread_locking_mode(super::LockingMode::Monitor).unwrap();
}

/// A header locked and unlocked once in monitor mode: left with an idle
/// monitor, young in the calling thread's slot.
fn inflated_idle() -> Pin<Box<Header>> {
    let h = Box::pin(Header::new());
    enter(h.as_ref());
    exit(h.as_ref()).unwrap();
    assert!(h.is_inflated());
    h
}

/// A header another thread may use until it says it is done, then handed
/// back to the owner, who drops it (a loom `Arc` cannot give `&mut` back).
struct Lent {
    header: *const Header,
    done: AtomicBool,
}
// SAFETY: `header` points to a pinned header that its owner keeps alive
// until it has seen `done` (Acquire), after the borrower's last use.
unsafe impl Send for Lent {}
// SAFETY: as above.
unsafe impl Sync for Lent {}

impl Lent {
    fn header(&self) -> Pin<&Header> {
        // SAFETY: see the `Send` impl; the header is pinned by its box.
        unsafe { Pin::new_unchecked(&*self.header) }
    }
    fn give_back(&self) {
        self.done.store(true, Ordering::Release);
    }
    fn wait_returned(&self) {
        while !self.done.load(Ordering::Acquire) {
            thread::yield_now();
        }
    }
}

/// Lends a fresh header to a new model thread running `borrower` (which
/// calls [`Lent::give_back`] when done with it), waits until it is given
/// back, and returns the header, for the caller to drop, and the thread.
fn lend(borrower: impl FnOnce(&Lent) + Send + 'static) -> (Pin<Box<Header>>, thread::JoinHandle<()>) {
    let h = Box::pin(Header::new());
    let lent = Arc::new(Lent {
        header: &*h,
        done: AtomicBool::new(false),
    });
    let lent2 = lent.clone();
    let t = thread::spawn(move || borrower(&lent2));
    lent.wait_returned();
    (h, t)
}

/// The churn path against a deflation pass: the owner drops its header
/// (lock-free, if its young monitor is still in its slot) while a pass
/// adopts young monitors and may deflate this one (restoring the header
/// under the lock). Exactly one of them frees it: the CAS on the slot
/// decides, and a drop that loses waits for the lock.
#[test]
fn loom_young_drop_races_deflation() {
    model(|| {
        monitor_mode();
        let h = inflated_idle();
        let t = thread::spawn(deflate_idle_monitors);
        drop(h);
        let report = t.join().unwrap();
        assert!(report.deflated <= 1);
        assert_eq!(live_monitors(), 0);
    });
}

/// A header inflated by one thread and dropped by another: the dropper
/// finds the monitor in no set, steals it from the inflater's slot under
/// the lock and frees it, while the inflater installs its next monitor
/// (moving the older one out of its slot, if still there, under the same
/// lock) and drops that one on its own lock-free path.
#[test]
fn loom_cross_thread_drop_steals_young() {
    model(|| {
        let (h, t) = lend(|lent| {
            monitor_mode();
            enter(lent.header());
            exit(lent.header()).unwrap();
            lent.give_back();
            drop(inflated_idle());
        });
        assert!(h.is_inflated());
        drop(h);
        t.join().unwrap();
        assert_eq!(live_monitors(), 0);
    });
}

/// Thread exit against a header drop elsewhere: the exiting thread still
/// holds (a leaked lock) the young monitor it installed, and releases it
/// after adopting every young monitor; meanwhile the header's owner drops
/// it. The drop either finds the monitor owned (and leaves it, object
/// forgotten, for a later pass) or released (and frees it); never while
/// the exit still touches it.
#[test]
fn loom_thread_exit_releases_young_while_dropped() {
    model(|| {
        let (h, t) = lend(|lent| {
            monitor_mode();
            enter(lent.header());
            lent.give_back(); // still holding it
            super::lifecycle::release_on_thread_exit_for_model();
        });
        drop(h);
        t.join().unwrap();
        deflate_idle_monitors(); // frees a monitor left with its object forgotten
        assert_eq!(live_monitors(), 0);
    });
}

/// A thread fills its young slot and exits while a deflation pass adopts
/// every young monitor: the pass empties the slot, the thread installs a
/// monitor into it (lock-free: the slot is empty) and ends, and the pass
/// must still find that monitor before it forgets the dead thread's slot.
/// A monitor in no registry place is invisible to passes and thread exits,
/// and its header's drop finds it nowhere (`Registry::adopt`). Another
/// thread's slot is listed after the exiting one's in some executions, so
/// the pass has a scheduling point between emptying the slot and deciding
/// whether its thread is gone.
#[test]
fn loom_young_filled_by_exiting_thread_during_adoption() {
    model(|| {
        let t = thread::spawn(|| {
            monitor_mode();
            // The slot exists (and is empty again: the drop's lock-free path
            // or a pass took the monitor out).
            drop(locked_once());
            locked_once()
        });
        monitor_mode();
        drop(locked_once()); // this thread's slot
        deflate_idle_monitors();
        let h = t.join().unwrap();
        // Deflated by the pass (after adopting it), or still installed and
        // then registered or young.
        assert_eq!(
            live_monitors(),
            usize::from(h.is_inflated()),
            "the exited thread's monitor is registered or young"
        );
        drop(h);
        assert_eq!(live_monitors(), 0);
    });
}

/// A header locked and unlocked once in monitor mode (inflated, unless a
/// pass running meanwhile deflated it already).
fn locked_once() -> Pin<Box<Header>> {
    let h = Box::pin(Header::new());
    enter(h.as_ref());
    exit(h.as_ref()).unwrap();
    h
}

//! The degenerate request's hand-off between a mutator that ran dry
//! and the collector, as `HeapInner::wait_for_cycle` and the cycle's
//! pauses do it, rebuilt on loom's primitives: the mutator reads the
//! release and cycle counts under the control lock, then raises the
//! flag, requests a cycle and waits until a count moves; the collector
//! runs a cycle per request, clearing the flag in init-update-refs and
//! then counting a release, clearing it again in the cycle's last pause
//! and then counting the cycle's end. Whatever the interleaving, the
//! wait ends (loom fails a model where a thread blocks for good), so a
//! request the collector cleared unseen still woke its mutator.

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;

#[derive(Default)]
struct Control {
    cycles_done: u64,
    releases: u64,
    requested: bool,
    /// The mutator's wait ended (the model's shutdown).
    finished: bool,
}

#[derive(Default)]
struct Shared {
    degenerate: AtomicBool,
    control: Mutex<Control>,
    cv: Condvar,
}

impl Shared {
    /// A pause clears the flag; then the count moves.
    fn clear_then_count(&self, release: bool) {
        self.degenerate.store(false, Ordering::SeqCst);
        let mut c = self.control.lock().unwrap();
        if release {
            c.releases += 1;
        } else {
            c.cycles_done += 1;
        }
        self.cv.notify_all();
    }
}

#[test]
fn loom_a_cleared_request_still_ends_the_wait() {
    loom::model(|| {
        let s = Arc::new(Shared::default());
        let collector = {
            let s = s.clone();
            thread::spawn(move || loop {
                {
                    let mut c = s.control.lock().unwrap();
                    while !c.requested && !c.finished {
                        c = s.cv.wait(c).unwrap();
                    }
                    if c.finished {
                        return;
                    }
                    c.requested = false;
                }
                // Init-update-refs (a release), then the last pause.
                s.clear_then_count(true);
                s.clear_then_count(false);
            })
        };
        // The mutator: its refill failed.
        let mut c = s.control.lock().unwrap();
        let (target, releases) = (c.cycles_done + 1, c.releases);
        s.degenerate.store(true, Ordering::SeqCst);
        c.requested = true;
        s.cv.notify_all();
        while c.cycles_done < target && c.releases == releases {
            c = s.cv.wait(c).unwrap();
        }
        c.finished = true;
        s.cv.notify_all();
        drop(c);
        collector.join().unwrap();
    });
}

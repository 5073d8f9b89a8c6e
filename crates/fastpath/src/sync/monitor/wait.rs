//! `Object.wait` and `notify` on a [`Monitor`]: the owner-protected wait
//! set and the WAITING -> NOTIFIED / LEFT race that keeps a notification
//! from being lost on a waiter that times out or is interrupted (the
//! protocol is in the parent module's header comment, "Wait/notify").
//!
//! Where it sits: [`super::super::synchronizer`]'s `wait` and `notify`
//! call these on an inflated object's monitor; a notified waiter goes back
//! through the entry list ([`Monitor::enqueue`]) and re-enters as a
//! successor.

use super::*;

impl Monitor {
    /// `Object.wait`: the caller owns the monitor.
    pub(crate) fn wait(&self, me: &Arc<ThreadState>, timeout: Option<Duration>) -> Result<(), SyncError> {
        // AcqRel: consuming the interrupt status pairs with the interrupter.
        if me.interrupted.swap(0, Ordering::AcqRel) != 0 {
            return Err(SyncError::Interrupted);
        }
        // Relaxed: we own the monitor, so the deflater leaves it alone
        // until we release it below, which publishes this (Release).
        self.contentions.fetch_add(1, Ordering::Relaxed);
        let node = Node::new(me, WAITING);
        self.wait_set_push(&node);
        // Relaxed: owner-only fields. The guard mark leaves with us: an
        // owner that gets the monitor meanwhile must not find it.
        let saved = self.recursions.swap(0, Ordering::Relaxed);
        let saved_guard = self.guard_held.swap(0, Ordering::Relaxed);
        self.release_and_wake(me.id);

        let start = Instant::now();
        let mut outcome;
        loop {
            // Acquire: a notifier's writes before notify are visible once
            // we see NOTIFIED (we re-acquire the monitor anyway).
            if node.state.load(Ordering::Acquire) == NOTIFIED {
                outcome = Ok(());
                break;
            }
            // Acquire: pairs with the interrupter's swap.
            if me.interrupted.load(Ordering::Acquire) != 0 {
                outcome = Err(SyncError::Interrupted);
                break;
            }
            let Some(remaining) = time_left(timeout, start) else {
                outcome = Err(SyncError::TimedOut);
                break;
            };
            // A notification within the spin's budget needs no park, nor
            // the wake-up's cost (`wait_spin.rs`). The spin stays in the
            // thread's critical section, as the monitor's enter spins do:
            // it is bounded (30 µs by default), where a park is not.
            // Acquire: as above.
            if super::super::wait_spin::spin_until(remaining, || {
                node.state.load(Ordering::Acquire) == NOTIFIED || me.interrupted.load(Ordering::Acquire) != 0
            }) {
                continue;
            }
            me.critical.quiescent(|| me.park.park(remaining));
            // loom has no clock: a timed park that returns models the
            // deadline passing (at any moment the model chooses); the CAS
            // below still lets a racing notify win.
            #[cfg(loom)]
            if remaining.is_some() {
                outcome = Err(SyncError::TimedOut);
                break;
            }
        }
        // AcqRel on the CAS: it decides the race with a notifier (module
        // docs), Acquire on failure to see the notifier's enqueue.
        if outcome.is_err()
            && node
                .state
                .compare_exchange(WAITING, LEFT, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
        {
            // A notifier won the race: we were notified after all, and our
            // node is on the entry list.
            outcome = Ok(());
        }
        // A woken successor that does not retry right away must clear the
        // hint (see `enter_loop`); then fence before looking at `owner`.
        // Relaxed: a hint, published by the fence.
        if self.succ.load(Ordering::Relaxed) == me.id {
            self.succ.store(NO_OWNER, Ordering::Relaxed);
        }
        fence(Ordering::SeqCst);
        if outcome.is_ok() {
            self.enter_loop(&node, me);
        } else {
            // Our own `contentions` count keeps the monitor from deflation,
            // so this enter cannot fail.
            if !self.try_lock(me.id) {
                let entered = self.enter_contended(me, Some(&node));
                debug_assert!(entered);
            }
            // We own the monitor: drop our wait-set entry if a notifier has
            // not already popped it.
            self.wait_set_remove(&node);
        }
        // Relaxed: owner-only field; and the deflater's count, which it
        // reads only while the owner is NO_OWNER (our release publishes).
        self.recursions.store(saved, Ordering::Relaxed);
        self.guard_held.store(saved_guard, Ordering::Relaxed);
        self.contentions.fetch_sub(1, Ordering::Relaxed);
        if outcome == Err(SyncError::Interrupted) {
            // Consume the status, as InterruptedException does (a swap: see
            // `sync::interrupt` on loom and plain stores).
            me.interrupted.swap(0, Ordering::AcqRel);
        }
        outcome
    }

    fn wait_set_push(&self, node: &Node) {
        let mut ws = self.wait_set.lock().unwrap_or_else(|e| e.into_inner());
        ws.push_back(NodeRef(node));
    }

    fn wait_set_remove(&self, node: &Node) {
        let mut ws = self.wait_set.lock().unwrap_or_else(|e| e.into_inner());
        ws.retain(|n| !core::ptr::eq(n.0, node));
    }

    /// `Object.notify` (`all = false`) or `notifyAll`: the caller owns the
    /// monitor. Moves waiters to the entry list; they are woken as
    /// successors once the caller exits.
    pub(crate) fn notify(&self, all: bool) -> usize {
        let mut ws = self.wait_set.lock().unwrap_or_else(|e| e.into_inner());
        let mut moved = 0;
        while let Some(n) = ws.pop_front() {
            // SAFETY: the waiter is blocked in `wait` until it owns the
            // monitor, which we hold; its node is alive.
            let node = unsafe { &*n.0 };
            // AcqRel: decides the race with a leaving waiter (module docs).
            if node
                .state
                .compare_exchange(WAITING, NOTIFIED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                self.enqueue(node);
                moved += 1;
                if !all {
                    break;
                }
            }
        }
        moved
    }
}

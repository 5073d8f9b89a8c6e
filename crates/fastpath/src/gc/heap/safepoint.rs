//! Safepoints: stopping every mutator for a pause.
//!
//! Where it sits: between [`super::mutator`] (which polls) and
//! [`crate::gc::collector::cycle`] (which requests pauses). A mutator is either
//! *running* (it may touch the heap and hold raw object addresses) or
//! *stopped* (at a poll, or in a safe region: blocked in native code or on a
//! lock, holding no raw address). A pause begins when every registered
//! mutator is stopped and ends by releasing them; a mutator leaving a safe
//! region during a pause waits for it to end (HotSpot's thread-state
//! transitions, `ThreadStateTransition`).
//!
//! A pause has three parts, the ones `-Xlog:safepoint` reports: *reaching
//! the safepoint* (TTSP: from the request until the last mutator stopped),
//! *at the safepoint* (the operation itself) and, after the release, the
//! time each mutator takes to run again (HotSpot does not log that one; it
//! is the scheduler's, and on an oversubscribed machine it dominates).
//!
//! The stop: under one mutex, each arriving mutator counts itself; only the
//! last one wakes the requester (not every arrival: each needless wake-up
//! costs the requester a context switch while it still waits).
//!
//! The release, by default ([`SafepointWait::Futex`]): stopped mutators wait
//! on a 32-bit *epoch* word with a futex, outside the mutex; the requester
//! bumps the epoch and wakes them all with one `FUTEX_WAKE` broadcast, and a
//! woken mutator returns without touching the mutex again (the requester
//! already un-counted every waiter). [`SafepointWait::Condvar`] is the
//! earlier design (a condition variable, every woken mutator re-taking the
//! mutex one after the other); [`SafepointWait::SpinThenFutex`] spins on the
//! epoch briefly before the futex (cheap when every thread has its own CPU,
//! stolen from the collector when not). The lab measures the three.
//!
//! Memory order: whatever a mutator wrote before stopping happens-before
//! the pause's work (the mutex: it counted itself under it, the requester
//! read the count under it); the pause's writes (roots, the GC state byte)
//! happen-before the mutator's next access (the epoch's Release increment,
//! read with Acquire by the woken mutator; or the mutex, in the condvar and
//! safe-region paths). That is why the barriers may read the GC state byte
//! with a plain load.
//!
//! The poll (HotSpot's thread-local handshake poll): each registered
//! mutator's thread block has a poll word ([`crate::thread::ThreadBlock`],
//! bit 0), which [`Safepoint::begin`] arms for every registered mutator and
//! [`Safepoint::end`] disarms, both under the mutex; a mutator's poll is one
//! Relaxed load of its own word and a test, as generated code's `testb $1,
//! poll(thread) ; jnz`. The word is only a hint, which is why Relaxed
//! suffices on both sides: whether to stop is decided under the mutex
//! (`arrive_and_wait` re-checks `requested`), which orders every datum the
//! pause relies on; a mutator that misses a fresh arm stops at a later poll
//! (the store becomes visible in finite time, and the pause waits for it),
//! and one that sees a stale arm after the release takes the mutex, finds
//! no request and goes on. Arming and disarming run under the mutex, as do
//! registering and unregistering a word, so no word is written after its
//! mutator left: a word's memory (its thread's block) is valid from
//! [`Safepoint::register`] until [`Safepoint::deregister`] or
//! [`Safepoint::thread_exited`] returns.

use std::time::{Duration, Instant};

use crate::gc::atomic::{AtomicU32, AtomicU64, AtomicUsize, Condvar, Mutex, MutexGuard, Ordering};

/// The poll word's armed value (bit 0; `crate::thread::POLL_ARMED`).
pub(crate) const POLL_ARMED: usize = 1;

/// How stopped mutators wait for a pause to end (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SafepointWait {
    /// Park on a futex at once; one broadcast wakes every mutator.
    #[default]
    Futex,
    /// Spin up to [`SPIN_LIMIT`] on the epoch, then park on the futex.
    SpinThenFutex,
    /// A condition variable under the safepoint mutex (the earlier design).
    Condvar,
}

/// How long [`SafepointWait::SpinThenFutex`] spins before parking.
pub const SPIN_LIMIT: Duration = Duration::from_micros(50);

#[derive(Default)]
struct State {
    registered: usize,
    /// Stopped at a poll (or collecting: a passive pause's own mutator),
    /// waiting for the release; zeroed by the release.
    at_poll: usize,
    /// In a safe region.
    in_safe: usize,
    requested: bool,
    /// Each registered mutator's poll word, by mutator id; null once its
    /// thread exited while still registered (a leaked mutator: it stays
    /// counted, as it never stops, but its word is gone).
    polls: Vec<(u32, PollWord)>,
}

/// A registered mutator's poll word.
#[derive(Clone, Copy)]
struct PollWord(*const AtomicUsize);

// SAFETY: the word is an atomic, made to be written from another thread;
// the registration protocol (module docs) keeps it valid while it is in a
// `State`, and it is only touched under the safepoint mutex.
unsafe impl Send for PollWord {}

impl PollWord {
    fn set(self, v: usize) {
        if !self.0.is_null() {
            // SAFETY: non-null: registered and its thread has not exited
            // (module docs); the caller holds the safepoint mutex.
            let w = unsafe { &*self.0 };
            // Relaxed: the word is a hint (module docs).
            w.store(v, Ordering::Relaxed);
        }
    }
}

impl State {
    fn all_stopped(&self) -> bool {
        self.at_poll + self.in_safe >= self.registered
    }
}

/// What a mutator that waited for a pause learns when released: which
/// pause, and when the release happened (to measure its own resume).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Released {
    /// The index of the pause in `GcStats::pauses`.
    pub(crate) pause: usize,
    /// When the requester released the mutators.
    pub(crate) at: Instant,
}

/// The heap's safepoint synchronizer.
pub(crate) struct Safepoint {
    wait: SafepointWait,
    state: Mutex<State>,
    to_requester: Condvar,
    to_mutators: Condvar,
    /// Bumped at every release (under the mutex, Release).
    epoch: AtomicU32,
    /// The last release: its pause's index and time since `base`, written
    /// before the epoch's bump (which publishes them) and not again before
    /// every woken mutator has stopped anew.
    released_pause: AtomicUsize,
    released_ns: AtomicU64,
    base: Instant,
}

impl Safepoint {
    pub(crate) fn new(wait: SafepointWait) -> Safepoint {
        Safepoint {
            wait,
            state: Mutex::new(State::default()),
            to_requester: Condvar::new(),
            to_mutators: Condvar::new(),
            epoch: AtomicU32::new(0),
            released_pause: AtomicUsize::new(0),
            released_ns: AtomicU64::new(0),
            base: Instant::now(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // No code panics while holding this lock; a poisoned lock would mean
        // a bug elsewhere, and the state itself is still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits, the mutex released, until the epoch moves past `seen`.
    fn wait_for_release<'a>(&'a self, s: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        // Relaxed: read under the mutex, which the release also holds.
        let seen = self.epoch.load(Ordering::Relaxed);
        if self.wait == SafepointWait::Condvar {
            let mut s = s;
            while self.epoch.load(Ordering::Relaxed) == seen {
                s = self.to_mutators.wait(s).unwrap_or_else(|e| e.into_inner());
            }
            return s;
        }
        drop(s);
        self.wait_epoch(seen);
        self.lock()
    }

    /// Waits until the epoch is no longer `seen`, without the mutex.
    fn wait_epoch(&self, seen: u32) {
        // Acquire (every load here): pairs with the release's Release
        // increment, so the pause's writes are visible once we see it.
        #[cfg(not(loom))]
        if self.wait == SafepointWait::SpinThenFutex {
            let start = Instant::now();
            while self.epoch.load(Ordering::Acquire) == seen {
                if start.elapsed() >= SPIN_LIMIT {
                    break;
                }
                std::hint::spin_loop();
            }
        }
        while self.epoch.load(Ordering::Acquire) == seen {
            self.block(seen);
        }
    }

    #[cfg(not(loom))]
    fn block(&self, seen: u32) {
        use rustix::thread::futex;
        // Returns at once if the epoch already moved (no lost wake-up);
        // EINTR and spurious returns re-check.
        let _ = futex::wait(&self.epoch, futex::Flags::PRIVATE, seen, None);
    }

    /// Loom has no futex: a waiter yields until the epoch moves (the spin
    /// is not modelled either: it only delays the same check).
    #[cfg(loom)]
    fn block(&self, _seen: u32) {
        loom::thread::yield_now();
    }

    fn wake_all(&self) {
        #[cfg(not(loom))]
        {
            use rustix::thread::futex;
            // The count is an `int` to the kernel: `i32::MAX` means all
            // (`u32::MAX` would read as -1, waking one).
            let _ = futex::wake(&self.epoch, futex::Flags::PRIVATE, i32::MAX as u32);
        }
    }

    fn released(&self) -> Released {
        // Relaxed: published by the epoch's Release bump, which the caller
        // observed with Acquire (or under the mutex).
        let ns = self.released_ns.load(Ordering::Relaxed);
        Released {
            pause: self.released_pause.load(Ordering::Relaxed),
            at: self.base + Duration::from_nanos(ns),
        }
    }

    fn notify_requester_if_all_stopped(&self, s: &State) {
        if s.requested && s.all_stopped() {
            self.to_requester.notify_one();
        }
    }

    /// A new mutator `id` joins, after any pause in progress; later pauses
    /// arm `poll`, which must stay valid until [`Safepoint::deregister`] or
    /// [`Safepoint::thread_exited`] for `id` returns.
    pub(crate) fn register(&self, id: u32, poll: *const AtomicUsize) {
        let mut s = self.lock();
        while s.requested {
            s = self.wait_for_release(s);
        }
        s.registered += 1;
        s.polls.push((id, PollWord(poll)));
    }

    /// How many mutators are registered.
    pub(crate) fn registered(&self) -> usize {
        self.lock().registered
    }

    /// Mutator `id` leaves (it must be running, not stopped); its poll
    /// word is never written again.
    pub(crate) fn deregister(&self, id: u32) {
        let mut s = self.lock();
        s.registered -= 1;
        s.polls.retain(|p| p.0 != id);
        self.notify_requester_if_all_stopped(&s);
    }

    /// Mutator `id`'s thread exits while it is still registered (the
    /// mutator was leaked): its poll word is never written again. It stays
    /// counted: a mutator that never stops holds every pause, as before
    /// its thread exited.
    pub(crate) fn thread_exited(&self, id: u32) {
        let mut s = self.lock();
        for p in s.polls.iter_mut().filter(|p| p.0 == id) {
            p.1 = PollWord(core::ptr::null());
        }
    }

    /// A mutator at a poll: stops until the pause is over. `Some` if it
    /// waited for a pause.
    pub(crate) fn arrive_and_wait(&self) -> Option<Released> {
        let mut s = self.lock();
        if !s.requested {
            return None;
        }
        s.at_poll += 1;
        self.notify_requester_if_all_stopped(&s);
        // Relaxed: read under the mutex, which the release also holds.
        let seen = self.epoch.load(Ordering::Relaxed);
        if self.wait == SafepointWait::Condvar {
            drop(self.wait_for_release(s));
        } else {
            drop(s);
            // The release un-counted us (`at_poll = 0`): nothing to undo.
            self.wait_epoch(seen);
        }
        Some(self.released())
    }

    /// The number of pauses released so far (wrapping). A mutator that
    /// reads it while running and again after leaving a safe region learns
    /// whether a pause ran meanwhile: none can end while it runs.
    pub(crate) fn epoch(&self) -> u32 {
        // Acquire: as a woken mutator's read (the release's writes are
        // visible after it).
        self.epoch.load(Ordering::Acquire)
    }

    /// A mutator enters a safe region.
    pub(crate) fn enter_safe(&self) {
        let mut s = self.lock();
        s.in_safe += 1;
        self.notify_requester_if_all_stopped(&s);
    }

    /// A mutator leaves a safe region, after any pause in progress; `Some`
    /// if it waited for one.
    pub(crate) fn leave_safe(&self) -> Option<Released> {
        let mut s = self.lock();
        let mut waited = false;
        while s.requested {
            s = self.wait_for_release(s);
            waited = true;
        }
        s.in_safe -= 1;
        waited.then(|| self.released())
    }

    /// Begins a pause: returns once every registered mutator is stopped.
    /// `as_mutator` counts the caller as stopped (a mutator collecting
    /// itself). Returns `false`, doing nothing, when another pause was
    /// requested first; a mutator caller must then stop at a poll instead.
    pub(crate) fn begin(&self, as_mutator: bool) -> bool {
        let mut s = self.lock();
        if s.requested {
            if as_mutator {
                return false;
            }
            while s.requested {
                s = self.wait_for_release(s);
            }
        }
        s.requested = true;
        for p in &s.polls {
            p.1.set(POLL_ARMED);
        }
        if as_mutator {
            s.in_safe += 1;
        }
        while !s.all_stopped() {
            s = self.to_requester.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        true
    }

    /// Ends the pause begun by [`Safepoint::begin`], recorded as `pause` in
    /// the heap's statistics; returns the moment of the release.
    pub(crate) fn end(&self, as_mutator: bool, pause: usize) -> Instant {
        let mut s = self.lock();
        s.requested = false;
        for p in &s.polls {
            p.1.set(0);
        }
        if as_mutator {
            s.in_safe -= 1;
        }
        s.at_poll = 0;
        let at = Instant::now();
        // Relaxed: published by the epoch's Release bump just below.
        self.released_pause.store(pause, Ordering::Relaxed);
        self.released_ns
            .store(at.duration_since(self.base).as_nanos() as u64, Ordering::Relaxed);
        // Release: the pause's writes happen-before a woken mutator's
        // Acquire read of the new epoch.
        self.epoch.fetch_add(1, Ordering::Release);
        drop(s);
        // Woken after unlocking: a woken mutator that the scheduler runs at
        // once on this CPU must not find the mutex still held by us. One
        // broadcast for every waiter.
        if self.wait == SafepointWait::Condvar {
            self.to_mutators.notify_all();
        } else {
            self.wake_all();
        }
        at
    }
}

// In the models, Relaxed is the poll word's own ordering (a hint); the
// data the protocol must order is in loom `UnsafeCell`s, so loom reports a
// race if the stop or the release fails to order it.
#[cfg(all(test, loom))]
mod loom_tests {
    //! Models of a stop and a release: one requester and one mutator that
    //! stops at a poll, or sits in a safe region, for each way of waiting.

    use super::*;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;

    struct World {
        sp: Safepoint,
        /// The mutator's poll word (its thread block's, in the library).
        poll: AtomicUsize,
        /// Written by the mutator before it stops, read by the pause.
        before_stop: UnsafeCell<usize>,
        /// Written by the pause, read by the released mutator.
        in_pause: UnsafeCell<usize>,
    }

    fn world(wait: SafepointWait) -> Arc<World> {
        let w = Arc::new(World {
            sp: Safepoint::new(wait),
            poll: AtomicUsize::new(0),
            before_stop: UnsafeCell::new(0),
            in_pause: UnsafeCell::new(0),
        });
        let poll: *const AtomicUsize = &w.poll;
        w.sp.register(1, poll);
        w
    }

    /// The requester's side: one pause that reads the mutator's write and
    /// makes its own.
    fn pause(w: &World, expect_mutator_write: bool) {
        assert!(w.sp.begin(false));
        // SAFETY: every mutator is stopped: the stop ordered its writes
        // before this read, and none runs until `end` (loom checks both).
        let seen = w.before_stop.with(|p| unsafe { *p });
        if expect_mutator_write {
            assert_eq!(seen, 1, "the pause sees what the mutator wrote before stopping");
        }
        // SAFETY: as above.
        w.in_pause.with_mut(|p| unsafe { *p = 7 });
        w.sp.end(false, 0);
    }

    fn stop_at_a_poll(wait: SafepointWait) {
        loom::model(move || {
            let w = world(wait);
            let w2 = w.clone();
            let mutator = thread::spawn(move || {
                // SAFETY: the mutator runs: no pause can read this now.
                w2.before_stop.with_mut(|p| unsafe { *p = 1 });
                loop {
                    // Relaxed: the poll word is a hint (module docs): the
                    // mutator's own word, armed by the requester.
                    if w2.poll.load(Ordering::Relaxed) & POLL_ARMED != 0 {
                        if let Some(r) = w2.sp.arrive_and_wait() {
                            assert_eq!(r.pause, 0);
                            // SAFETY: released: the release ordered the
                            // pause's write before this read.
                            let v = w2.in_pause.with(|p| unsafe { *p });
                            assert_eq!(v, 7, "the released mutator sees the pause's write");
                            // Relaxed is enough here: the disarm precedes
                            // the release, which this mutator acquired.
                            let armed = w2.poll.load(Ordering::Relaxed) & POLL_ARMED;
                            assert_eq!(armed, 0, "disarmed before the release");
                            break;
                        }
                    }
                    thread::yield_now();
                }
                w2.sp.deregister(1);
            });
            pause(&w, true);
            mutator.join().unwrap();
        });
    }

    /// A mutator at a poll, released by the futex epoch: the stop and the
    /// release order both sides' writes, and the mutator is never left
    /// waiting (a lost wake-up would spin forever and fail the model).
    #[test]
    fn loom_poll_stop_and_futex_release() {
        stop_at_a_poll(SafepointWait::Futex);
    }

    /// The same with the condvar release.
    #[test]
    fn loom_poll_stop_and_condvar_release() {
        stop_at_a_poll(SafepointWait::Condvar);
    }

    /// A mutator that leaves (drops) while a pause is requested: the pause
    /// goes on without it, and its poll word is never armed after it left
    /// (the mutator clears the word after unregistering, as a block's
    /// detach does; a late arm would leave it set).
    #[test]
    fn loom_deregister_while_a_pause_arms() {
        loom::model(|| {
            let w = world(SafepointWait::Futex);
            let w2 = w.clone();
            let mutator = thread::spawn(move || {
                w2.sp.deregister(1);
                // Relaxed: as the block's detach (thread/gc.rs).
                w2.poll.store(0, Ordering::Relaxed);
            });
            assert!(w.sp.begin(false));
            w.sp.end(false, 0);
            mutator.join().unwrap();
            // Relaxed: after the join, which orders every write.
            assert_eq!(w.poll.load(Ordering::Relaxed), 0, "armed after it left");
            assert_eq!(w.sp.registered(), 0);
        });
    }

    /// A mutator in a safe region: the pause runs without it stopping at a
    /// poll; leaving the region during the pause waits for the release and
    /// then sees the pause's write; leaving before or after passes.
    #[test]
    fn loom_safe_region_and_futex_release() {
        loom::model(|| {
            let w = world(SafepointWait::Futex);
            let w2 = w.clone();
            let mutator = thread::spawn(move || {
                w2.sp.enter_safe();
                if w2.sp.leave_safe().is_some() {
                    // SAFETY: it waited for the release, which ordered the
                    // pause's write before this read.
                    let v = w2.in_pause.with(|p| unsafe { *p });
                    assert_eq!(v, 7);
                }
                w2.sp.deregister(1);
            });
            pause(&w, false);
            mutator.join().unwrap();
        });
    }
}

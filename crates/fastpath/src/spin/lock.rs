//! A spin-then-park mutual-exclusion lock: the seed's `synchronized`
//! LinkedHashMap (Caffeine GetPutBenchmark `LinkedHashMap_Lru`), where ISB
//! in HotSpot's monitor spinning was worth +14–29% on Graviton 2.
//!
//! Where it sits: a runtime's internal lock, and the lock the lab's LRU
//! table runs under. (HotSpot's own VM `Mutex`/`Monitor`,
//! `runtime/mutex.cpp`, no longer spin: after one `try_lock` they block on
//! the platform mutex; the spinning that `SpinPause`/`onSpinWait` tune is in
//! `ObjectMonitor` and in the lock-free queues. This lock has the
//! spin-then-park shape of parking_lot's `RawMutex` and of the seed's
//! `synchronized` block.) It lives here rather than in the
//! lab because it is the composition of this module's parts (strategy,
//! calibration, [`super::SpinWait`], `park`) that a runtime would use for
//! its own VM-internal locks; the object monitors of `sync` are a different
//! thing (locking of arbitrary objects through their header word), and do
//! not depend on it.
//!
//! Theory of operation: one `AtomicU64`, bit 0 LOCKED and the rest a count
//! of parked waiters (each adds 2). Lock: CAS 0 → LOCKED (Acquire); if that
//! fails, spin with the [`super::SpinWait`] (re-reading the word and trying
//! the CAS only when it looks free: test-and-test-and-set), then park with
//! the count raised. Unlock: `fetch_sub(LOCKED)` (Release); if the count it
//! returns is non-zero, wake one waiter. A woken waiter competes with
//! newcomers (barging, as HotSpot and parking_lot allow): throughput over
//! fairness. Why no wake-up is lost is argued once, in `park`.
//!
//! ```
//! use fastpath::spin::SpinParkMutex;
//! use fastpath::spin::{calibration, Budget, ConfiguredPause};
//! let m = SpinParkMutex::new(0u64, ConfiguredPause, Budget::DEFAULT.limits(calibration()));
//! std::thread::scope(|s| {
//!     for _ in 0..2 {
//!         s.spawn(|| for _ in 0..1000 { *m.lock() += 1 });
//!     }
//! });
//! assert_eq!(*m.lock(), 2000);
//! ```

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::Ordering;

use super::park::Parking;
use super::primitives::AtomicU64;
use super::strategy::PauseStrategy;
use super::wait::{SpinLimits, SpinWait, Step};

const LOCKED: u64 = 1;
const WAITER: u64 = 2;

/// The lock word and its parking; guards no data itself (see
/// [`SpinParkMutex`] for the one that does).
pub struct SpinParkLock<S: PauseStrategy> {
    state: AtomicU64,
    parking: Parking,
    strategy: S,
    limits: SpinLimits,
}

/// Holds a [`SpinParkLock`]; unlocks when dropped.
#[must_use = "the lock is released when the guard is dropped"]
pub struct SpinParkLockGuard<'a, S: PauseStrategy> {
    lock: &'a SpinParkLock<S>,
}

impl<S: PauseStrategy> SpinParkLock<S> {
    /// An unlocked lock whose waiters spin with `strategy` for `limits`.
    pub fn new(strategy: S, limits: SpinLimits) -> Self {
        SpinParkLock {
            state: AtomicU64::new(0),
            parking: Parking::new(),
            strategy,
            limits,
        }
    }

    /// Acquires the lock, spinning and then parking while another thread
    /// holds it.
    #[inline]
    pub fn lock(&self) -> SpinParkLockGuard<'_, S> {
        // Acquire on success: pairs with the Release of the previous unlock.
        // Relaxed on failure: nothing is read then.
        if self
            .state
            .compare_exchange_weak(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.lock_slow();
        }
        SpinParkLockGuard { lock: self }
    }

    /// Acquires the lock if it is free now.
    #[inline]
    pub fn try_lock(&self) -> Option<SpinParkLockGuard<'_, S>> {
        // `then`, not `then_some`: a guard built eagerly would unlock on drop.
        self.try_acquire().then(|| SpinParkLockGuard { lock: self })
    }

    /// Times a waiter went to sleep.
    pub fn parks(&self) -> u64 {
        self.parking.parks()
    }

    #[inline]
    fn try_acquire(&self) -> bool {
        // Relaxed: only decides whether to try the CAS, which re-checks.
        let mut s = self.state.load(Ordering::Relaxed);
        while s & LOCKED == 0 {
            // Acquire on success: pairs with the unlock's Release.
            match self
                .state
                .compare_exchange_weak(s, s | LOCKED, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => s = now,
            }
        }
        false
    }

    #[cold]
    #[inline(never)]
    fn lock_slow(&self) {
        let mut wait = SpinWait::with_limits(self.strategy, self.limits);
        loop {
            if self.try_acquire() {
                return;
            }
            if wait.spin() == Step::Park {
                return self
                    .parking
                    .park_until(&self.state, WAITER, || self.try_acquire().then_some(()));
            }
        }
    }

    #[inline]
    fn unlock(&self) {
        // Release: the critical section happens-before the next acquire.
        let prev = self.state.fetch_sub(LOCKED, Ordering::Release);
        if prev >= WAITER {
            self.parking.unpark_one();
        }
    }
}

impl<S: PauseStrategy> Drop for SpinParkLockGuard<'_, S> {
    #[inline]
    fn drop(&mut self) {
        self.lock.unlock();
    }
}

/// Data behind a [`SpinParkLock`], as `std::sync::Mutex` (without
/// poisoning: a panicking holder just unlocks).
pub struct SpinParkMutex<T, S: PauseStrategy> {
    lock: SpinParkLock<S>,
    data: UnsafeCell<T>,
}

// SAFETY: the lock hands out access to `data` to one thread at a time, so
// sharing the mutex only ever moves `T` between threads: `T: Send` suffices,
// as for `std::sync::Mutex`.
unsafe impl<T: Send, S: PauseStrategy> Sync for SpinParkMutex<T, S> {}

/// Access to the data of a [`SpinParkMutex`]; unlocks when dropped.
#[must_use = "the lock is released when the guard is dropped"]
pub struct SpinParkMutexGuard<'a, T, S: PauseStrategy> {
    _held: SpinParkLockGuard<'a, S>,
    data: &'a UnsafeCell<T>,
}

impl<T, S: PauseStrategy> SpinParkMutex<T, S> {
    /// `data` behind an unlocked lock.
    pub fn new(data: T, strategy: S, limits: SpinLimits) -> Self {
        SpinParkMutex {
            lock: SpinParkLock::new(strategy, limits),
            data: UnsafeCell::new(data),
        }
    }

    /// Locks and returns access to the data.
    #[inline]
    pub fn lock(&self) -> SpinParkMutexGuard<'_, T, S> {
        SpinParkMutexGuard {
            _held: self.lock.lock(),
            data: &self.data,
        }
    }

    /// Times a waiter went to sleep.
    pub fn parks(&self) -> u64 {
        self.lock.parks()
    }

    /// The data, when no one else can hold the lock.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T, S: PauseStrategy> Deref for SpinParkMutexGuard<'_, T, S> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock, so no other reference to the data
        // exists until it is dropped.
        unsafe { &*self.data.get() }
    }
}

impl<T, S: PauseStrategy> DerefMut for SpinParkMutexGuard<'_, T, S> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`; `&mut self` makes this the only access
        // through the guard.
        unsafe { &mut *self.data.get() }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::spin::{calibration, Budget, ConfiguredPause};
    use std::time::{Duration, Instant};

    #[test]
    fn try_lock_fails_while_held() {
        let l = SpinParkLock::new(ConfiguredPause, Budget::DEFAULT.limits(calibration()));
        let g = l.lock();
        assert!(l.try_lock().is_none());
        drop(g);
        assert!(l.try_lock().is_some());
    }

    /// Four threads (oversubscribing two cores on purpose) increment a
    /// plain counter under the lock for a bounded time, with a budget small
    /// enough that they park; the count must match the operations done.
    #[test]
    fn stress_mutual_exclusion() {
        let m = SpinParkMutex::new(
            (0u64, false),
            ConfiguredPause,
            Budget::new(500, 1).limits(calibration()),
        );
        let deadline = Instant::now() + Duration::from_millis(400);
        let done: u64 = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        let mut n = 0u64;
                        while Instant::now() < deadline {
                            let mut g = m.lock();
                            assert!(!g.1, "two holders at once");
                            g.1 = true;
                            g.0 += 1;
                            std::hint::black_box(&mut *g);
                            g.1 = false;
                            n += 1;
                        }
                        n
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        let parks = m.parks();
        let (count, _) = m.into_inner();
        assert_eq!(count, done);
        println!("lock stress: {done} critical sections checked, {parks} parks");
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::spin::NoPause;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;

    fn model(limits: SpinLimits) {
        loom::model(move || {
            let shared = Arc::new((SpinParkLock::new(NoPause, limits), UnsafeCell::new(0u32)));
            let other = shared.clone();
            // A scheduling point inside the critical section. Without one, a
            // waiter's spin (which yields to loom) can only be followed by
            // the holder's unlock, so a waiter with a spin budget never
            // parked and `loom_lock_spins_then_parks` passed with the
            // unlock's wake-up deleted.
            let inside = || loom::thread::yield_now();
            let t = loom::thread::spawn(move || {
                let _g = other.0.lock();
                inside();
                // SAFETY: the lock is held; loom checks that no other access
                // overlaps.
                other.1.with_mut(|p| unsafe { *p += 1 });
            });
            {
                let _g = shared.0.lock();
                inside();
                // SAFETY: as above.
                shared.1.with_mut(|p| unsafe { *p += 1 });
            }
            t.join().unwrap();
            let _g = shared.0.lock();
            // SAFETY: as above.
            assert_eq!(shared.1.with(|p| unsafe { *p }), 2);
        });
    }

    #[test]
    fn loom_lock_parks_at_once() {
        model(SpinLimits::new(0, 0));
    }

    #[test]
    fn loom_lock_spins_then_parks() {
        model(SpinLimits::new(1, 0));
    }

    /// Two waiters can be parked at once, so `unpark_one` must wake one per
    /// unlock and never strand the second (a wake-up consumed by a waiter
    /// that then loses the race to a barging thread is the classic way).
    #[test]
    fn loom_lock_three_threads_park_at_once() {
        loom::model(|| {
            let lock = Arc::new(SpinParkLock::new(NoPause, SpinLimits::new(0, 0)));
            let threads: Vec<_> = (0..2)
                .map(|_| {
                    let lock = lock.clone();
                    loom::thread::spawn(move || drop(lock.lock()))
                })
                .collect();
            drop(lock.lock());
            for t in threads {
                t.join().unwrap();
            }
        });
    }
}

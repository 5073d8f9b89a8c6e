//! Per-thread critical sections and the grace period over them (RCU-style
//! quiescent-state tracking), with the reader side made cheap by an
//! asymmetric barrier (Linux `membarrier`).
//!
//! Where it sits: in the thread layer, below `sync`. Each thread's
//! [`Critical`] word belongs to its [`super::ThreadState`], and the thread
//! block caches a pointer to it for the inline paths. A thread that may
//! dereference a pointer another thread may free (`sync`'s monitors, read
//! from headers) does so inside a *critical section* ([`Critical::enter`],
//! or the flat [`Critical::section`] of the inline paths); the freeing side
//! (`sync`'s deflater) makes the object unreachable, calls
//! [`wait_for_readers`], and frees it only after that. HotSpot keeps the
//! same per-thread state in `JavaThread` (its thread state says whether a
//! thread may hold such pointers; a handshake waits for it).
//!
//! Why this scheme, and not HotSpot's: HotSpot frees deflated monitors after
//! a *handshake* with every Java thread, which is free for it because Java
//! threads already poll for safepoints. A library has no safepoint polls.
//! Epoch-based reclamation would need the reader to publish its epoch and
//! fence on every slow path; hazard pointers would need a published pointer
//! per monitor access and a fence each. Here the reader's fence is replaced
//! by `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)` on the (rare) freeing
//! side: a reader only bumps its own sequence word (odd: inside) with plain
//! stores and compiler fences; the freer's membarrier forces a full
//! barrier on every running thread, after which it sees every reader that
//! might hold a stale pointer as "inside" and waits for each to leave. When
//! membarrier is unavailable (or under loom), readers use a real SeqCst
//! fence instead; the choice is fixed before the first grace period.
//!
//! Only the outermost section of a thread touches `seq`: its parity says
//! "inside", so a nested section sees an odd word and does nothing. The
//! inline inflated paths' sections ([`Critical::section`]) are therefore
//! one load, one store and the barrier on entry and one store on exit,
//! with no depth counter; the slow paths' nestable [`Critical::enter`]
//! counts only the levels nested inside another section. Whether readers
//! may rely on the freer's membarrier is cached in each thread's own
//! word once seen (it never goes back), beside `seq`.
//!
//! A thread blocked in `park` leaves its critical section for the duration
//! ([`Critical::quiescent`]): the one monitor it blocks on is kept alive by
//! its `contentions` count, which stops that monitor's deflation, and it
//! holds no other monitor pointer. So a thread waiting forever never stalls
//! reclamation.

use std::sync::{Arc, Weak};

use crate::primitives::{fence, AtomicUsize, Ordering};

/// A thread's critical-section state. Only its thread writes it.
///
/// The parity of `seq` alone says "inside": a section entered while the
/// thread is already inside (odd) changes nothing there, so the inline
/// inflated paths ([`Critical::section`]) need no depth counter, only the
/// one word the deflater reads. [`Critical::enter`]/[`Critical::exit`],
/// the slow paths' nestable pair, count their nested levels in `nested`.
pub(crate) struct Critical {
    /// Odd while the thread is inside a critical section; bumped on every
    /// outermost entry and exit, so a waiter sees a change even if the
    /// thread left and re-entered.
    seq: AtomicUsize,
    /// [`Critical::enter`]s made while already inside, not yet exited
    /// (owner-only; a std atomic only to be `Sync`).
    nested: std::sync::atomic::AtomicUsize,
    /// This thread has seen [`ASYMMETRIC`] set (owner-only): the inline
    /// paths' barrier tests this word, beside `seq`, rather than the
    /// global through its address. `false` only costs a real fence (and a
    /// look at the global, which once set stays set).
    #[cfg_attr(loom, allow(dead_code))]
    asymmetric_seen: std::sync::atomic::AtomicBool,
}

/// A critical section entered by [`Critical::section`], left when dropped
/// (also on unwind). Not `Send`: only its thread may leave it.
#[must_use = "the critical section ends when this is dropped"]
pub(crate) struct Section<'a> {
    critical: &'a Critical,
    /// The odd `seq` this section stored as it entered; 0 (never odd) if
    /// the thread was inside already, and this section changes nothing.
    entered: usize,
    _not_send: core::marker::PhantomData<*const ()>,
}

impl Drop for Section<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        if self.entered != 0 {
            // Release: as in `bump_release`, the deflater that sees us
            // outside also sees that we are done with every monitor we read.
            self.critical
                .seq
                .store(self.entered.wrapping_add(1), Ordering::Release);
        }
    }
}

/// Whether readers may rely on the deflater's membarrier (set once, before
/// any deflation, if the registration succeeded).
#[cfg_attr(loom, allow(dead_code))]
static ASYMMETRIC: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(not(loom))]
static SLOTS: std::sync::Mutex<Vec<Weak<Critical>>> = std::sync::Mutex::new(Vec::new());

#[cfg(loom)]
loom::lazy_static! {
    static ref SLOTS: loom::sync::Mutex<Vec<Weak<Critical>>> = loom::sync::Mutex::new(Vec::new());
}

fn slots() -> impl core::ops::DerefMut<Target = Vec<Weak<Critical>>> {
    // Poisoning: the list is consistent after every single push or prune.
    SLOTS.lock().unwrap_or_else(|e| e.into_inner())
}

impl Critical {
    /// A fresh, registered slot (one per thread state).
    pub(crate) fn new_registered() -> Arc<Critical> {
        let c = Arc::new(Critical {
            seq: AtomicUsize::new(0),
            nested: std::sync::atomic::AtomicUsize::new(0),
            asymmetric_seen: std::sync::atomic::AtomicBool::new(false),
        });
        let mut s = slots();
        s.retain(|w| w.strong_count() > 0);
        s.push(Arc::downgrade(&c));
        c
    }

    /// Whether this thread is inside a critical section (owner only).
    #[inline(always)]
    fn inside(&self) -> bool {
        // Relaxed: only this thread writes `seq`; it reads its own writes.
        self.seq.load(Ordering::Relaxed) & 1 != 0
    }

    /// Enters a critical section (nestable); monitors read from headers
    /// after this stay allocated until the matching [`Critical::exit`].
    #[inline]
    pub(crate) fn enter(&self) {
        if self.inside() {
            // Relaxed (`nested`): owner-only.
            let n = self.nested.load(std::sync::atomic::Ordering::Relaxed);
            self.nested.store(n + 1, std::sync::atomic::Ordering::Relaxed);
        } else {
            self.bump();
            reader_barrier();
        }
    }

    /// Leaves a critical section.
    #[inline]
    pub(crate) fn exit(&self) {
        debug_assert!(self.inside(), "unbalanced critical section");
        // Relaxed: owner-only.
        let n = self.nested.load(std::sync::atomic::Ordering::Relaxed);
        if n > 0 {
            self.nested.store(n - 1, std::sync::atomic::Ordering::Relaxed);
        } else {
            self.bump_release();
        }
    }

    /// The inline paths' critical section (flat, see [`Critical`]): one
    /// load of `seq`, and if the thread was outside, its store and the
    /// reader's barrier now and one store when the [`Section`] drops. No
    /// call and no closure: the inflated paths inline it.
    #[inline(always)]
    pub(crate) fn section(&self) -> Section<'_> {
        // Relaxed: own word (see `inside`).
        let s = self.seq.load(Ordering::Relaxed);
        let entered = if s & 1 == 0 {
            let odd = s.wrapping_add(1);
            // Relaxed: ordered before our later loads by `reader_barrier`
            // (or the deflater's membarrier), as in `bump`.
            self.seq.store(odd, Ordering::Relaxed);
            self.reader_barrier_cached();
            odd
        } else {
            0 // inside already: the enclosing section covers us
        };
        Section {
            critical: self,
            entered,
            _not_send: core::marker::PhantomData,
        }
    }

    /// Runs `f` (a park) outside any critical section this thread is in,
    /// and re-enters afterwards (module docs).
    pub(crate) fn quiescent<R>(&self, f: impl FnOnce() -> R) -> R {
        let inside = self.inside();
        if inside {
            self.bump_release();
        }
        let r = f();
        if inside {
            self.bump();
            reader_barrier();
        }
        r
    }

    /// [`reader_barrier`], with the global's value cached in this thread's
    /// own word once it reads `true`. All inline: a cold call for the
    /// uncached case would make the inline paths save registers around it
    /// (measured: 119 -> 133 instructions per raw inflated pair).
    #[inline(always)]
    fn reader_barrier_cached(&self) {
        #[cfg(not(loom))]
        // Relaxed: owner-only; a `true` was read from `ASYMMETRIC`, which
        // never goes back to `false`.
        if self.asymmetric_seen.load(std::sync::atomic::Ordering::Relaxed) {
            // The deflater's membarrier supplies the hardware barrier.
            core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
            return;
        }
        fence(Ordering::SeqCst);
        #[cfg(not(loom))]
        // Relaxed: a reader that still misses it fences for real next time.
        if ASYMMETRIC.load(std::sync::atomic::Ordering::Relaxed) {
            // Relaxed: owner-only.
            self.asymmetric_seen
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Odd → even or even → odd, on entry.
    #[inline]
    fn bump(&self) {
        // Relaxed load (own word); the store is ordered before our later
        // loads by `reader_barrier` (or the deflater's membarrier).
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s.wrapping_add(1), Ordering::Relaxed);
    }

    /// On exit: Release, so the deflater that sees us outside also sees
    /// that we are done with every monitor we read.
    #[inline]
    fn bump_release(&self) {
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s.wrapping_add(1), Ordering::Release);
    }
}

/// The reader's half of the StoreLoad ordering between "I am inside" and
/// "I read a monitor pointer from a header".
#[inline(always)]
fn reader_barrier() {
    #[cfg(not(loom))]
    if ASYMMETRIC.load(std::sync::atomic::Ordering::Relaxed) {
        // The deflater's membarrier supplies the hardware barrier.
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
        return;
    }
    fence(Ordering::SeqCst);
}

/// Switches readers to compiler fences if this process can use
/// `membarrier(PRIVATE_EXPEDITED)`. Called by the deflation thread as it
/// starts, and by every pass (before its first grace period), never on a
/// locking thread's path: the registration waits for a scheduler grace
/// period, milliseconds. A reader that still sees `false` fences for real,
/// which is always safe.
pub(crate) fn init_asymmetric_barrier() {
    #[cfg(not(loom))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            use rustix::thread::{membarrier, MembarrierCommand};
            if membarrier(MembarrierCommand::RegisterPrivateExpedited).is_ok() {
                // Relaxed: readers that miss it fence for real.
                ASYMMETRIC.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        });
    }
}

/// How many thread states are alive (the deflation ceiling's thread count).
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn live_threads() -> usize {
    slots().iter().filter(|w| w.strong_count() > 0).count()
}

/// The grace period: returns once every thread that was inside a critical
/// section when it was called has left it. Whatever the caller made
/// unreachable before calling (a monitor taken out of its header and the
/// registry) can be freed afterwards.
pub(crate) fn wait_for_readers() {
    // The deflater's half of the StoreLoad ordering: after this, a reader
    // that read the old header is seen inside, and one that enters later
    // reads the new header.
    #[cfg(not(loom))]
    {
        if ASYMMETRIC.load(std::sync::atomic::Ordering::Relaxed) {
            use rustix::thread::{membarrier, MembarrierCommand};
            if membarrier(MembarrierCommand::PrivateExpedited).is_err() {
                // Registered, so this cannot fail; if it did, readers that
                // rely on it would be unprotected: stop rather than free.
                eprintln!("fastpath::sync: membarrier failed after registration; aborting");
                std::process::abort();
            }
        }
    }
    fence(Ordering::SeqCst);
    let inside: Vec<(Arc<Critical>, usize)> = slots()
        .iter()
        .filter_map(|w| w.upgrade())
        .filter_map(|c| {
            // Acquire: pairs with the reader's Release on exit.
            let s = c.seq.load(Ordering::Acquire);
            (s & 1 == 1).then_some((c, s))
        })
        .collect();
    for (c, s) in inside {
        let mut spins = 0u32;
        // Acquire: as above.
        while c.seq.load(Ordering::Acquire) == s {
            spins += 1;
            if spins < 64 {
                spin_pause();
            } else {
                yield_now();
            }
        }
    }
}

/// One spin of the grace period's wait (a scheduling point under loom).
#[inline]
fn spin_pause() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    crate::spin::pause();
}

#[cfg(not(loom))]
fn yield_now() {
    std::thread::yield_now();
}

#[cfg(loom)]
fn yield_now() {
    loom::thread::yield_now();
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// Readers and the deflater agree on the barrier scheme; on a Linux
    /// with `membarrier` (4.14+) readers get away with compiler fences.
    #[test]
    fn asymmetric_barrier_is_set_up_once() {
        init_asymmetric_barrier();
        let on = ASYMMETRIC.load(std::sync::atomic::Ordering::Relaxed);
        println!("membarrier(PRIVATE_EXPEDITED) in use: {on}");
        // Whichever it is, a grace period with nobody inside returns.
        wait_for_readers();
        init_asymmetric_barrier();
        assert_eq!(ASYMMETRIC.load(std::sync::atomic::Ordering::Relaxed), on);
    }

    /// Only the outermost section moves `seq`: a flat
    /// section inside a nestable one, and nestable ones inside a flat one
    /// or each other, leave the thread inside until the outermost ends.
    #[test]
    fn nested_sections_keep_the_thread_inside() {
        let c = Critical::new_registered();
        assert!(!c.inside());
        {
            let _outer = c.section();
            assert!(c.inside());
            c.enter();
            c.enter();
            {
                let _flat = c.section();
            }
            c.exit();
            assert!(c.inside(), "nested exits leave the thread inside");
            c.exit();
            assert!(c.inside());
        }
        assert!(!c.inside());
        c.enter();
        {
            let _flat = c.section();
        }
        assert!(c.inside(), "a nested flat section changes nothing");
        c.quiescent(|| assert!(!c.inside()));
        assert!(c.inside());
        c.exit();
        assert!(!c.inside());
        // Two outermost sections: the deflater sees two changes of `seq`.
        let before = c.seq.load(Ordering::Relaxed);
        drop(c.section());
        assert_eq!(c.seq.load(Ordering::Relaxed), before + 2);
    }
}

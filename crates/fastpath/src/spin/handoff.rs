//! A one-slot handoff between one producer and one consumer, spinning with
//! a pause strategy and then parking: the seed's `SynchronousQueue`
//! microbenchmark (JDK-8267502), where `Thread.onSpinWait()` in the spin
//! phase was worth 2.9× on Graviton 2 once it executed ISB.
//!
//! Where it sits: a small but complete user of [`super::SpinWait`] and the
//! parking half (`park`), shaped like the transfer a runtime does between a
//! mutator and a service thread (a compile request, a handshake); the lab's
//! handoff table drives it per strategy and per spin budget.
//!
//! Theory of operation: the whole protocol is one `AtomicU64`:
//!
//! ```text
//!  63            32 31          3   2        1                 0
//! [ token (0=empty) | unused       | CLOSED | consumer parked | producer parked ]
//! ```
//!
//! The producer waits until the token field is zero, then adds its token
//! (one `fetch_add`, Release: everything it wrote before is visible to the
//! consumer that reads the token). The consumer waits until the token field
//! is non-zero, then clears it (one `fetch_and`, AcqRel). Each side only
//! ever writes the token field in one direction, so neither RMW can
//! conflict with the other's. A side that runs out of spin budget parks
//! with its bit added to the word (see `park` for why no wake-up is lost);
//! the other side's RMW returns the word as it was, and it wakes the
//! sleeper only if that bit was set, so the fast path never takes a lock.
//! Dropping either end sets CLOSED, so the other end never waits forever.
//!
//! ```
//! use fastpath::spin::{calibration, handoff_channel, Budget, ConfiguredPause};
//! use std::num::NonZeroU32;
//! let (mut tx, mut rx) = handoff_channel(ConfiguredPause, Budget::DEFAULT.limits(calibration()));
//! let t = std::thread::spawn(move || {
//!     for i in 1..=3 {
//!         tx.put(NonZeroU32::new(i).unwrap()).unwrap();
//!     }
//! });
//! let got: Vec<u32> = std::iter::from_fn(|| rx.take()).map(|t| t.get()).collect();
//! t.join().unwrap();
//! assert_eq!(got, [1, 2, 3]);
//! ```

use std::num::NonZeroU32;
use std::sync::atomic::Ordering;

use super::park::Parking;
use super::primitives::{Arc, AtomicU64};
use super::strategy::PauseStrategy;
use super::wait::{SpinLimits, SpinWait, Step};

const PRODUCER_PARKED: u64 = 1;
const CONSUMER_PARKED: u64 = 1 << 1;
const CLOSED: u64 = 1 << 2;
const TOKEN_SHIFT: u32 = 32;
const FLAGS: u64 = (1 << TOKEN_SHIFT) - 1;

struct Slot {
    state: AtomicU64,
    parking: Parking,
}

/// The consumer is gone; the token was not delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandoffClosed(pub NonZeroU32);

impl std::fmt::Display for HandoffClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "handoff closed: token {} not delivered", self.0)
    }
}

impl std::error::Error for HandoffClosed {}

/// The sending end (exactly one: it is not `Clone`).
pub struct HandoffProducer<S: PauseStrategy> {
    slot: Arc<Slot>,
    strategy: S,
    limits: SpinLimits,
}

/// The receiving end (exactly one: it is not `Clone`).
pub struct HandoffConsumer<S: PauseStrategy> {
    slot: Arc<Slot>,
    strategy: S,
    limits: SpinLimits,
}

/// A handoff whose two ends each spin with `strategy` for `limits` before
/// parking.
pub fn handoff_channel<S: PauseStrategy>(
    strategy: S,
    limits: SpinLimits,
) -> (HandoffProducer<S>, HandoffConsumer<S>) {
    let slot = Arc::new(Slot {
        state: AtomicU64::new(0),
        parking: Parking::new(),
    });
    (
        HandoffProducer {
            slot: slot.clone(),
            strategy,
            limits,
        },
        HandoffConsumer {
            slot,
            strategy,
            limits,
        },
    )
}

impl Slot {
    /// Waits until `ready(state)`, spinning then parking with `flag`;
    /// returns the state seen ready.
    #[inline]
    fn wait<S: PauseStrategy>(
        &self,
        strategy: S,
        limits: SpinLimits,
        flag: u64,
        ready: impl Fn(u64) -> bool,
    ) -> u64 {
        // Acquire: pairs with the other side's Release RMW, so what it wrote
        // before handing over is visible once the state says so.
        let s = self.state.load(Ordering::Acquire);
        if ready(s) {
            return s;
        }
        let mut wait = SpinWait::with_limits(strategy, limits);
        loop {
            if wait.spin() == Step::Park {
                return self.parking.park_until(&self.state, flag, || {
                    // Acquire: as above.
                    let s = self.state.load(Ordering::Acquire);
                    ready(s).then_some(s)
                });
            }
            // Acquire: as above.
            let s = self.state.load(Ordering::Acquire);
            if ready(s) {
                return s;
            }
        }
    }

    fn close(&self) {
        // AcqRel: the other side's final reads of the word see CLOSED after
        // everything this side did.
        let prev = self.state.fetch_or(CLOSED, Ordering::AcqRel);
        if prev & (PRODUCER_PARKED | CONSUMER_PARKED) != 0 {
            self.parking.unpark_all();
        }
    }
}

impl<S: PauseStrategy> HandoffProducer<S> {
    /// Hands `token` over: waits (spin, then park) until the slot is empty,
    /// then fills it and returns without waiting for the consumer to take
    /// it. Fails if the consumer was dropped.
    pub fn put(&mut self, token: NonZeroU32) -> Result<(), HandoffClosed> {
        let s = self.slot.wait(self.strategy, self.limits, PRODUCER_PARKED, |s| {
            s >> TOKEN_SHIFT == 0 || s & CLOSED != 0
        });
        if s & CLOSED != 0 {
            return Err(HandoffClosed(token));
        }
        // Release: publishes the producer's writes before the handover. The
        // token field is zero and only this (single) producer fills it, so
        // the add cannot carry into another field.
        let prev = self
            .slot
            .state
            .fetch_add(u64::from(token.get()) << TOKEN_SHIFT, Ordering::Release);
        if prev & CONSUMER_PARKED != 0 {
            self.slot.parking.unpark_all();
        }
        Ok(())
    }

    /// Times a side of this handoff went to sleep (both sides counted).
    pub fn parks(&self) -> u64 {
        self.slot.parking.parks()
    }
}

impl<S: PauseStrategy> HandoffConsumer<S> {
    /// Takes the next token: waits (spin, then park) until the slot is
    /// full. `None` once the producer was dropped and the slot is empty.
    pub fn take(&mut self) -> Option<NonZeroU32> {
        let s = self.slot.wait(self.strategy, self.limits, CONSUMER_PARKED, |s| {
            s >> TOKEN_SHIFT != 0 || s & CLOSED != 0
        });
        if s >> TOKEN_SHIFT == 0 {
            return None;
        }
        // AcqRel: Acquire to see what the producer wrote before `put`;
        // Release so the producer's next `put`, which waits for this empty
        // slot, comes after this side is done with the token.
        let prev = self.slot.state.fetch_and(FLAGS, Ordering::AcqRel);
        if prev & PRODUCER_PARKED != 0 {
            self.slot.parking.unpark_all();
        }
        // Only this (single) consumer empties the slot, and it saw it full.
        NonZeroU32::new((prev >> TOKEN_SHIFT) as u32)
    }

    /// Times a side of this handoff went to sleep (both sides counted).
    pub fn parks(&self) -> u64 {
        self.slot.parking.parks()
    }
}

impl<S: PauseStrategy> Drop for HandoffProducer<S> {
    fn drop(&mut self) {
        self.slot.close();
    }
}

impl<S: PauseStrategy> Drop for HandoffConsumer<S> {
    fn drop(&mut self) {
        self.slot.close();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::spin::{calibration, Budget, ConfiguredPause};
    use std::time::{Duration, Instant};

    #[test]
    fn closing_either_end_releases_the_other() {
        let (tx, mut rx) = handoff_channel(ConfiguredPause, Budget::PARK_AT_ONCE.limits(calibration()));
        let t = std::thread::spawn(move || rx.take());
        std::thread::sleep(Duration::from_millis(20));
        drop(tx);
        assert_eq!(t.join().unwrap(), None);

        let (mut tx, rx) = handoff_channel(ConfiguredPause, Budget::PARK_AT_ONCE.limits(calibration()));
        let one = NonZeroU32::new(1).unwrap();
        tx.put(one).unwrap();
        let t = std::thread::spawn(move || tx.put(NonZeroU32::new(2).unwrap()));
        std::thread::sleep(Duration::from_millis(20));
        drop(rx);
        assert_eq!(t.join().unwrap(), Err(HandoffClosed(NonZeroU32::new(2).unwrap())));
    }

    /// Passes a counter through the slot for a bounded time, half of it with
    /// a budget so small that both sides park most of the time; every token
    /// must arrive exactly once and in order.
    #[test]
    fn stress_no_token_lost_or_duplicated() {
        let mut checked = 0u64;
        let mut parks = 0u64;
        for budget in [Budget::new(200, 0), Budget::DEFAULT] {
            let (mut tx, mut rx) = handoff_channel(ConfiguredPause, budget.limits(calibration()));
            let deadline = Instant::now() + Duration::from_millis(500);
            let producer = std::thread::spawn(move || {
                let mut sent = 0u32;
                while Instant::now() < deadline {
                    for _ in 0..64 {
                        sent += 1;
                        tx.put(NonZeroU32::new(sent).unwrap()).unwrap();
                    }
                }
                (sent, tx.parks())
            });
            let mut expected = 1u32;
            while let Some(t) = rx.take() {
                assert_eq!(t.get(), expected, "token lost or duplicated");
                expected += 1;
            }
            let (sent, p) = producer.join().unwrap();
            assert_eq!(expected - 1, sent, "tokens sent but never received");
            checked += u64::from(sent);
            parks += p;
        }
        println!("handoff stress: {checked} tokens checked, {parks} parks");
        assert!(checked > 0);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::spin::NoPause;

    use loom::cell::UnsafeCell;

    /// Two tokens, each with a payload the producer writes (plain memory)
    /// before handing the token over and the consumer reads after taking
    /// it: loom checks both that no token is lost or duplicated and that the
    /// handover orders the payload (the Release of `put` against the
    /// Acquire of `take`), which the tokens alone could not show.
    fn model_two_tokens(limits: SpinLimits) {
        loom::model(move || {
            let (mut tx, mut rx) = handoff_channel(NoPause, limits);
            let payload = Arc::new([UnsafeCell::new(0u32), UnsafeCell::new(0u32)]);
            let written = payload.clone();
            let t = loom::thread::spawn(move || {
                for (i, cell) in written.iter().enumerate() {
                    // SAFETY: the consumer reads cell i only after taking
                    // token i + 1, which this thread puts after this write;
                    // loom reports any overlap.
                    cell.with_mut(|p| unsafe { *p = 10 + i as u32 });
                    tx.put(NonZeroU32::new(i as u32 + 1).unwrap()).unwrap();
                }
            });
            for (i, cell) in payload.iter().enumerate() {
                assert_eq!(rx.take().map(NonZeroU32::get), Some(i as u32 + 1));
                // SAFETY: as above; token i + 1 was taken.
                assert_eq!(cell.with(|p| unsafe { *p }), 10 + i as u32);
            }
            assert_eq!(rx.take(), None);
            t.join().unwrap();
        });
    }

    #[test]
    fn loom_handoff_parks_at_once() {
        model_two_tokens(SpinLimits::new(0, 0));
    }

    #[test]
    fn loom_handoff_spins_then_parks() {
        model_two_tokens(SpinLimits::new(1, 0));
    }
}

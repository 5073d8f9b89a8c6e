//! The identity hash, and the word that carries it (HotSpot
//! `ObjectSynchronizer::FastHashCode`, synchronizer.cpp).
//!
//! Where it sits: beside the synchronizer, below the safe API. It reads the
//! header and, when a monitor is installed, the monitor's displaced header;
//! it never locks. A hash is installed by CAS into whichever word currently
//! carries the object's hash and spare bits:
//!
//! | header state | where the hash lives | how it is installed |
//! |---|---|---|
//! | unlocked (01) | the header | CAS the header |
//! | fast-locked (00, lightweight) | the header | CAS the header, no inflation (JDK 23) |
//! | stack-locked by me (00, legacy) | my record's displaced header | read only: inflate, then as below |
//! | stack-locked by another thread | its record (unreadable to me) | inflate, then as below |
//! | INFLATING | — | wait for the monitor |
//! | has monitor (10) | the monitor's displaced header | CAS the displaced header |
//! | 11 (a GC's) | — | wait for the GC |
//!
//! A failed CAS (a lock, an unlock, an inflation or another hash raced us)
//! re-reads the header and starts over, so every path converges on the one
//! hash that won.

use super::atomic::{spin_pause, Ordering};
use super::deflate::restore_deflated;
use super::header::{Header, Mark, HASH_VALUE_MASK, SPARE_MASK};
use super::inflate::{inflate_stack_locked, monitor_of};
use super::legacy;
use super::record;
use super::stats::InflateCause;
use super::thread;

impl Header {
    /// The object's spare bits (from the displaced header when inflated).
    pub fn spare_bits(&self) -> usize {
        displaced_or_current(self).0 & SPARE_MASK
    }
}

/// The object's identity hash: 31 bits, never 0, stable for the object's
/// life. Installed by CAS on first use; works while the object is unlocked,
/// fast-locked (without inflating, JDK 23) or inflated (in the displaced
/// header).
pub fn identity_hash(obj: &Header) -> u32 {
    loop {
        // Acquire: we may read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if mark.is_unlocked() || mark.is_fast_locked() {
            if mark.hash() != 0 {
                return mark.hash();
            }
            let hash = next_hash();
            // Relaxed: the hash publishes no other data; a failed CAS
            // (locking, inflation, another hash) reloads.
            if obj
                .cas(mark, mark.with_hash(hash), Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                return hash;
            }
        } else if mark.is_stack_locked() {
            if record::is_mine(mark) {
                let displaced = legacy::my_displaced_header(mark);
                if displaced.hash() != 0 {
                    return displaced.hash();
                }
            }
            // A record's displaced header is never written after the lock
            // (only its owner may even read it): move the lock into a
            // monitor, whose displaced header takes the hash. Retry either
            // way.
            let _ = inflate_stack_locked(obj, mark, InflateCause::IdentityHash);
        } else if mark.has_monitor() {
            if let Some(hash) = thread::with_current(|_| hash_in_monitor(obj)) {
                return hash;
            }
        } else {
            spin_pause();
        }
    }
}

/// The hash of an object with a monitor, read or installed in the
/// monitor's displaced header; `None` if the header changed, or the monitor
/// was deflated before our hash was known to be carried back into the
/// object (then nobody has seen that hash: retry from the header). Runs in
/// a critical section (the monitor is not freed under it).
fn hash_in_monitor(obj: &Header) -> Option<u32> {
    // Acquire: we read the monitor next.
    let mark = obj.load(Ordering::Acquire);
    if !mark.has_monitor() {
        return None;
    }
    let m = monitor_of(obj, mark);
    // The CAS below is ordered against the deflater, which CASes
    // `contentions` to DEFLATED and then reads this word with an RMW. If our
    // `is_deflated` RMW comes first in `contentions`' order, the deflater's
    // read sees our hash; else we see DEFLATED and retry. Relaxed here: the
    // CAS validates what we read.
    let mut displaced = Mark(m.header.load(Ordering::Relaxed));
    loop {
        if displaced.hash() != 0 {
            // Already carried by whichever word the object ends up with.
            return Some(displaced.hash());
        }
        let hash = next_hash();
        match m.header.compare_exchange(
            displaced.0,
            displaced.with_hash(hash).0,
            Ordering::SeqCst,
            Ordering::SeqCst,
        ) {
            Ok(_) if m.is_deflated() => {
                // HotSpot FastHashCode: help put the header back, retry.
                restore_deflated(obj, m);
                return None;
            }
            Ok(_) => return Some(hash),
            Err(now) => displaced = Mark(now),
        }
    }
}

/// The word carrying the object's hash and spare bits: the displaced header
/// if inflated, else the header itself.
pub(crate) fn displaced_or_current(obj: &Header) -> Mark {
    loop {
        // Acquire: we may read the monitor next; Relaxed on the displaced
        // header, which carries no other data.
        let mark = obj.load(Ordering::Acquire);
        if mark.has_monitor() {
            // Spare bits never change; a deflated monitor's copy is as good.
            let word = thread::with_current(|_| {
                // Acquire: as above, inside the critical section.
                let mark = obj.load(Ordering::Acquire);
                mark.has_monitor()
                    .then(|| Mark(monitor_of(obj, mark).header.load(Ordering::Relaxed)))
            });
            if let Some(word) = word {
                return word;
            }
        } else if record::is_mine(mark) {
            return legacy::my_displaced_header(mark);
        } else if mark.is_stack_locked() {
            // Another thread's record: only a monitor makes it readable.
            let _ = inflate_stack_locked(obj, mark, InflateCause::IdentityHash);
        } else if mark.is_unlocked() || mark.is_fast_locked() {
            return mark;
        } else {
            spin_pause(); // INFLATING, or 11 (a GC)
        }
    }
}

/// A new hash: Marsaglia's xor-shift per thread (HotSpot `hashCode=5`, the
/// default), reduced to 31 bits, never 0.
fn next_hash() -> u32 {
    std::thread_local! {
        static STATE: core::cell::Cell<u32> = const { core::cell::Cell::new(0) };
    }
    STATE
        .try_with(|s| {
            let mut x = s.get();
            if x == 0 {
                // Seed from the thread's stack address and a counter, so two
                // threads start apart.
                static SEED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0x9E37_79B9);
                // Relaxed: any distinct value will do.
                x = SEED.fetch_add(0x6D2B_79F5, std::sync::atomic::Ordering::Relaxed)
                    ^ (s as *const _ as u32);
                x |= 1;
            }
            loop {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let h = x & HASH_VALUE_MASK as u32;
                if h != 0 {
                    s.set(x);
                    return h;
                }
            }
        })
        .unwrap_or(0x5EED)
}

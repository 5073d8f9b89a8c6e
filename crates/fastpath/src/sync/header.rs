//! The header word: one machine word at the start of every object, whose
//! address is the object's identity.
//!
//! Where it sits: the fast paths in [`super::synchronizer`] CAS its two lock
//! bits; [`super::inflate`] swings it to a tagged monitor pointer;
//! [`super::hash`] installs the identity hash into it. The layout follows
//! HotSpot's 64-bit `markWord` (markWord.hpp), minus the bits a GC owns:
//!
//! ```text
//!  63 62                    39 38                              8 7        2 1 0
//! +--+------------------------+---------------------------------+----------+---+
//! | 1|    spare (24 bits)     |      identity hash (31 bits)    | spare (6)| 01|  unlocked
//! +--+------------------------+---------------------------------+----------+---+
//! | 1|    spare (24 bits)     |      identity hash (31 bits)    | spare (6)| 00|  fast-locked
//! +--+------------------------+---------------------------------+----------+---+
//! | 0|      pointer to the owner's LockRecord (8-byte aligned)             | 00|  stack-locked
//! +--+---------------------------------------------------------------------+---+
//! |                              0                                         | 00|  INFLATING
//! +------------------------------------------------------------------------+---+
//! |              pointer to the Monitor (8-byte aligned)                   | 10|  has monitor
//! +------------------------------------------------------------------------+---+
//! |                         reserved for a GC (forwarding)                 | 11|
//! +------------------------------------------------------------------------+---+
//! ```
//!
//! - **Unlocked (01)** and **fast-locked (00)** differ only in the lock bits:
//!   fast-locking (HotSpot lightweight locking, JDK 21+, PR 10590/10907)
//!   overloads nothing, the owner is found on the owning thread's lock-stack.
//!   So the hash (and the spare bits) stay readable and installable while an
//!   object is fast-locked, without inflating (HotSpot JDK 23,
//!   JDK-8315884-era `LightweightSynchronizer`).
//! - **Stack-locked (00, bit 63 clear)**: legacy stack-locking (HotSpot
//!   `LM_LEGACY`, see `legacy.rs`): the word is the address of the owner's
//!   [`LockRecord`](super::LockRecord), which holds the displaced header.
//!   Bit 63 ([`OWN_WORD_BIT`]) tells the two 00 forms apart: it is set in
//!   every word that is the object's own (unlocked, fast-locked, displaced),
//!   and clear in every user-space address on x86_64 and aarch64. HotSpot
//!   needs no such bit because one process runs one locking mode; here
//!   threads of different modes may share objects.
//! - **INFLATING (0)**: a thread is moving a stack-locked object into a
//!   monitor (HotSpot `markWord::INFLATING()`); readers wait for it to end.
//! - **Has monitor (10)**: the word is `monitor address | 0b10`; the word the
//!   object had before inflation (its *displaced header*, with hash and spare
//!   bits, in unlocked form) lives in the monitor, where the hash is read and
//!   installed instead.
//! - **11** is never written by `sync`; a reader that sees it waits for the
//!   GC to finish, as HotSpot's readers of a forwarded mark do.
//!
//! A hash of 0 means "not yet assigned"; assigned hashes are never 0.

use core::marker::PhantomPinned;

use super::atomic::{AtomicUsize, Ordering};

/// Mask of the two lock bits.
pub(crate) const LOCK_MASK: usize = 0b11;
/// Lock bits of a fast-locked object.
pub(crate) const FAST_LOCKED: usize = 0b00;
/// Lock bits of an unlocked object.
pub(crate) const UNLOCKED: usize = 0b01;
/// Lock bits of an object with a monitor.
pub(crate) const MONITOR: usize = 0b10;
/// Lock bits reserved for a GC.
pub(crate) const GC_RESERVED: usize = 0b11;

/// Position of the identity hash.
pub(crate) const HASH_SHIFT: u32 = 8;
/// Width of the identity hash (HotSpot's 64-bit `hash_bits`).
pub(crate) const HASH_BITS: u32 = 31;
/// The hash field's value mask (before shifting).
pub(crate) const HASH_VALUE_MASK: usize = (1 << HASH_BITS) - 1;
/// The hash field in place.
pub(crate) const HASH_MASK: usize = HASH_VALUE_MASK << HASH_SHIFT;
/// Set in every word that is the object's own (unlocked, fast-locked or
/// displaced), clear in a stack-locked word (a user-space address).
pub(crate) const OWN_WORD_BIT: usize = 1 << 63;
/// The word of a stack-locked object being inflated (HotSpot `INFLATING`).
pub(crate) const INFLATING: usize = 0;
/// Bits that belong to neither the lock nor the hash: kept verbatim.
pub const SPARE_MASK: usize = !(HASH_MASK | LOCK_MASK | OWN_WORD_BIT);
/// The neutral word of [`Header::new`]: unlocked, no hash, no spare bits.
/// The fast paths' guess when the caller has none.
pub(crate) const NEUTRAL: usize = OWN_WORD_BIT | UNLOCKED;

const _: () = assert!(
    usize::BITS == 64,
    "the header layout assumes a 64-bit word (x86_64, aarch64)"
);

/// A snapshot of a header word, with the field accessors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mark(pub(crate) usize);

impl Mark {
    #[inline(always)]
    pub(crate) fn lock_bits(self) -> usize {
        self.0 & LOCK_MASK
    }
    #[inline(always)]
    pub(crate) fn is_unlocked(self) -> bool {
        self.lock_bits() == UNLOCKED
    }
    /// Lock bits 00 in the object's own word (lightweight fast-locking).
    #[inline(always)]
    pub(crate) fn is_fast_locked(self) -> bool {
        self.0 & (LOCK_MASK | OWN_WORD_BIT) == (FAST_LOCKED | OWN_WORD_BIT)
    }
    /// Lock bits 00 holding a lock record's address (legacy stack-locking).
    #[inline(always)]
    pub(crate) fn is_stack_locked(self) -> bool {
        self.0 & (LOCK_MASK | OWN_WORD_BIT) == FAST_LOCKED && self.0 != INFLATING
    }
    /// A stack-locked object being inflated.
    #[inline(always)]
    pub(crate) fn is_inflating(self) -> bool {
        self.0 == INFLATING
    }
    /// The lock record a stack-locked word points to.
    #[inline(always)]
    pub(crate) fn record(self) -> usize {
        debug_assert!(self.is_stack_locked());
        self.0
    }
    /// The word that stack-locks with the record at `record`.
    #[inline(always)]
    pub(crate) fn stack_locked_by(record: usize) -> Mark {
        debug_assert_eq!(
            record & (LOCK_MASK | OWN_WORD_BIT),
            0,
            "records are aligned user addresses"
        );
        Mark(record)
    }
    #[inline(always)]
    pub(crate) fn has_monitor(self) -> bool {
        self.lock_bits() == MONITOR
    }
    /// The same word with lock bits 00.
    #[inline(always)]
    pub(crate) fn set_fast_locked(self) -> Mark {
        Mark(self.0 & !LOCK_MASK)
    }
    /// The same word with lock bits 01.
    #[inline(always)]
    pub(crate) fn set_unlocked(self) -> Mark {
        Mark((self.0 & !LOCK_MASK) | UNLOCKED)
    }
    /// The identity hash, 0 if none was assigned (not for `10` words).
    #[inline(always)]
    pub(crate) fn hash(self) -> u32 {
        ((self.0 >> HASH_SHIFT) & HASH_VALUE_MASK) as u32
    }
    /// The same word carrying `hash`.
    pub(crate) fn with_hash(self, hash: u32) -> Mark {
        Mark((self.0 & !HASH_MASK) | ((hash as usize & HASH_VALUE_MASK) << HASH_SHIFT))
    }
}

/// What a header currently says, for diagnostics and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockState {
    /// Lock bits 01.
    Unlocked,
    /// Lock bits 00: held by the thread whose lock-stack lists it
    /// (lightweight), or by the thread whose lock record the word points
    /// to (legacy stack-locking; also while such a lock is being inflated).
    FastLocked,
    /// Lock bits 10: a monitor is installed (held or not).
    Inflated,
    /// Lock bits 11: reserved for a GC.
    GcReserved,
}

/// The header word an object embeds. Its address is the object's identity,
/// so the lock operations take it pinned (`Pin<&Header>`): a thread's
/// lock-stack remembers that address, and pinning guarantees it is neither
/// moved nor reused before the header's `Drop` has run (see
/// the `lifecycle` module for what `Drop` does with a header still locked).
/// `repr(C)`: the word is at offset 0, so the address is the word's, as
/// generated code (`fastpath-jit`) addresses it.
#[repr(C)]
pub struct Header {
    pub(crate) word: AtomicUsize,
    _pinned: PhantomPinned,
}

impl Header {
    /// An unlocked header with no hash.
    pub fn new() -> Header {
        Self::with_spare_bits(0)
    }

    /// An unlocked header whose spare bits ([`SPARE_MASK`]) are `spare`
    /// (other bits of `spare` are ignored). A runtime keeps its own per-object
    /// bits here (HotSpot keeps the GC age); locking never changes them.
    pub fn with_spare_bits(spare: usize) -> Header {
        Header {
            word: AtomicUsize::new(Header::neutral_word(spare)),
            _pinned: PhantomPinned,
        }
    }

    /// The word a header made by [`with_spare_bits(spare)`](Self::with_spare_bits)
    /// holds until it is first hashed or locked: its *neutral* word
    /// (HotSpot's `markWord::prototype`). [`Header::new`]'s is
    /// `neutral_word(0)`. A runtime that keeps per-class bits in the spare
    /// bits passes its class's neutral word to
    /// [`enter_guessing`](crate::sync::enter_guessing), so that the lock
    /// guesses the header instead of loading it.
    pub const fn neutral_word(spare: usize) -> usize {
        (spare & SPARE_MASK) | OWN_WORD_BIT | UNLOCKED
    }

    /// The raw word, as it is now.
    #[inline]
    pub fn raw(&self) -> usize {
        // Relaxed: a diagnostic snapshot; it orders nothing.
        self.word.load(Ordering::Relaxed)
    }

    /// The lock state, as it is now.
    #[inline]
    pub fn lock_state(&self) -> LockState {
        match Mark(self.raw()).lock_bits() {
            UNLOCKED => LockState::Unlocked,
            FAST_LOCKED => LockState::FastLocked,
            MONITOR => LockState::Inflated,
            bits => {
                debug_assert_eq!(bits, GC_RESERVED);
                LockState::GcReserved
            }
        }
    }

    /// Whether a monitor is installed.
    #[inline]
    pub fn is_inflated(&self) -> bool {
        self.lock_state() == LockState::Inflated
    }

    /// The identity of the object: the header's address.
    #[inline(always)]
    pub(crate) fn addr(&self) -> usize {
        self as *const Header as usize
    }

    #[inline(always)]
    pub(crate) fn load(&self, order: Ordering) -> Mark {
        Mark(self.word.load(order))
    }

    /// CAS the word from `current` to `new`; returns the witnessed value on
    /// failure.
    #[inline(always)]
    pub(crate) fn cas(
        &self,
        current: Mark,
        new: Mark,
        success: Ordering,
        failure: Ordering,
    ) -> Result<(), Mark> {
        self.word
            .compare_exchange(current.0, new.0, success, failure)
            .map(|_| ())
            .map_err(Mark)
    }
}

impl Default for Header {
    fn default() -> Self {
        Header::new()
    }
}

impl core::fmt::Debug for Header {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Header")
            .field("word", &format_args!("{:#x}", self.raw()))
            .field("state", &self.lock_state())
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn layout_fields_do_not_overlap() {
        assert_eq!(SPARE_MASK & HASH_MASK, 0);
        assert_eq!(SPARE_MASK & LOCK_MASK, 0);
        assert_eq!(SPARE_MASK & OWN_WORD_BIT, 0);
        assert_eq!(SPARE_MASK | HASH_MASK | LOCK_MASK | OWN_WORD_BIT, usize::MAX);
        assert_eq!(HASH_MASK.count_ones(), 31);
    }

    #[test]
    fn lock_bit_transitions_keep_hash_and_spare_bits() {
        let m = Mark(OWN_WORD_BIT | UNLOCKED | (0xABC << 40) | (0b101 << 2)).with_hash(0x7fff_fffe);
        assert!(m.is_unlocked());
        let locked = m.set_fast_locked();
        assert!(locked.is_fast_locked());
        assert_eq!(locked.hash(), 0x7fff_fffe);
        assert_eq!(locked.set_unlocked(), m);
        assert_eq!(m.0 & SPARE_MASK, (0xABC << 40) | (0b101 << 2));
        assert!(!locked.is_stack_locked() && !locked.is_inflating());
        let stack = Mark::stack_locked_by(0x7ffd_1234_5670);
        assert!(stack.is_stack_locked() && !stack.is_fast_locked() && !stack.is_unlocked());
        assert!(Mark(INFLATING).is_inflating() && !Mark(INFLATING).is_stack_locked());
    }

    #[test]
    fn new_header_is_unlocked_with_spare_bits() {
        let h = Header::with_spare_bits(0b11_0100 | (1 << 62) | (1 << 63));
        assert_eq!(h.lock_state(), LockState::Unlocked);
        assert_eq!(h.spare_bits(), 0b11_0100 | (1 << 62), "bit 63 is not spare");
        assert_eq!(Mark(h.raw()).hash(), 0);
    }
}

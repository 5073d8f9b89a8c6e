//! The monitor: a full Java-semantics lock, installed in a header when
//! fast-locking cannot express the state (HotSpot `ObjectMonitor`,
//! objectMonitor.cpp, as of JDK 24: one entry list, no separate `cxq`).
//!
//! Where it sits: [`super::inflate`] creates and installs it;
//! [`super::synchronizer`] enters, exits, waits and notifies through it. It
//! never touches the object's header word (except through the displaced
//! header it keeps), so it neither knows nor cares how it was inflated.
//!
//! Theory of operation:
//! - `owner` is a thread id, [`NO_OWNER`], [`ANONYMOUS_OWNER`] (the object
//!   was fast-locked when a contender inflated it; the real owner finds it on
//!   its lock-stack at its next exit, wait or notify and claims it with
//!   [`Monitor::claim_anonymous`]) or a lock record's address tagged with
//!   [`RECORD_OWNER`] (it was stack-locked; the thread whose record it is
//!   claims it the same way, HotSpot's `set_owner_from_BasicLock`). `recursions` is only touched by the owner.
//! - `guard_held` is owner-only too: set while the owner holds the monitor
//!   through a live [`SynchronizedGuard`](super::SynchronizedGuard) (`Synchronized::lock` on
//!   an inflated object), so that the thread-exit release keeps that lock
//!   (see [`super::thread`]) without a per-thread list of guarded objects.
//!   `wait` saves and restores it with `recursions`.
//! - Contenders that fail to spin push a stack-allocated [`Node`] on
//!   `entry_list` with a CAS (a Treiber push; any thread). Only the owner
//!   removes nodes, so the list below the head is stable for it. The exiting
//!   owner wakes the *oldest* node (the tail), which then competes with
//!   barging threads (see eventual fairness below).
//!   Owners keep the tail and `prev` links, filled in lazily from the head
//!   down to the part already linked (JDK 24 `_entry_list_tail`, a doubly
//!   linked list the owner completes): waking the tail and unlinking a woken
//!   node are O(1) instead of a walk of the list at every hand-over.
//!   A woken thread is not removed; it unlinks itself once it owns the lock
//!   (HotSpot `UnlinkAfterAcquire`).
//! - `succ` (successor) names a thread that is awake and about to retry (a
//!   woken node or a spinner). An exiting owner that sees one wakes nobody:
//!   no futile wake-ups. Whoever clears `succ` must fence and retry the lock
//!   before parking, or a wake-up could be lost.
//! - The lost-wake-up trap: exit stores `owner = NO_OWNER` and then reads
//!   `entry_list`/`succ`; a contender pushes itself and then reads `owner`.
//!   Each side is a store followed by a load of another location, which x86
//!   (store buffer) and Arm may reorder: both would miss each other, the
//!   contender parks and nobody wakes it. A StoreLoad fence on both sides
//!   (Dekker) guarantees at least one sees the other. Modelled in loom
//!   (`loom_exit_racing_contender_*`).
//!   An exit's common part is inline ([`Monitor::exit_inline`]: the
//!   recursions test, the hand-off request test, the release store, the
//!   fence, the entry-list test); whatever it finds to do beyond that (a
//!   hand-off, a successor to wake) is [`Monitor::finish_exit`]'s, cold.
//! - Adaptive spinning before parking, with HotSpot's knobs as the start
//!   (`Knob_PreSpin` 10, `Knob_SpinLimit` 5000, `Knob_Poverty` 1000,
//!   `Knob_Bonus`/`BonusB` 100, `Knob_Penalty` 200): a per-monitor spin
//!   duration grows when spinning acquired the lock and shrinks when it did
//!   not. Two changes from HotSpot, after parking_lot's RawMutex:
//!   a newcomer spins only while the entry list is empty (once threads
//!   park, a spin has already been shown too short, and on a machine with
//!   more threads than CPUs it burns the CPU a preempted owner needs), and
//!   every try loads `owner` before its CAS (test-and-test-and-set: waiters
//!   share the line instead of stealing it from the owner).
//! - Eventual fairness (parking_lot's fair unlock; WebKit's WTF::Lock
//!   barging-versus-fairness analysis): barging keeps the lock with running
//!   threads, which is what makes it fast, but can pass a queued thread over
//!   for ever. A woken thread that loses again after waiting
//!   [`FAIR_AFTER_NS`] puts its node in `hand_off_to`; the next exit gives
//!   it the monitor directly (`owner` goes from the exiter's id to its id,
//!   never through NO_OWNER, so no barging thread and no deflater can come
//!   in between) and unparks it. At most one such hand-off per
//!   [`FAIR_AFTER_NS`] per monitor: each costs a wake-up latency with the
//!   lock idle, so barging stays the common case.
//! - Wait/notify: a waiter's node goes on the owner-protected wait set, the
//!   monitor is released fully (all recursions) and the waiter parks. Notify
//!   CASes the node's state WAITING→NOTIFIED and pushes it on the entry list
//!   (it is woken as a successor when the notifier exits, as HotSpot does, so
//!   it does not wake only to block on the notifier). A waiter that times out
//!   or is interrupted CASes WAITING→LEFT instead; exactly one of the two
//!   wins, so a notification is never lost on a thread that is leaving: a
//!   notified thread always reports `Ok`, even if its timeout also expired.
//!
//! - Deflation (HotSpot's async protocol, JDK 15+): an idle monitor is
//!   taken back by [`Monitor::try_deflate`]: owner NO_OWNER →
//!   [`DEFLATER_MARKER`] (every `try_lock` fails), then `contentions`
//!   0 → [`DEFLATED`]. `contentions` is the reference count of threads in
//!   `enter`'s slow path or `wait`: a contender increments it first, and
//!   either the deflater's CAS sees that (and backs off, waking a queued
//!   contender as an exiting owner would), or the contender sees DEFLATED
//!   and its `enter` returns `false`: it re-reads the header and retries.
//!
//! Memory: monitors are boxed and never move. One installed in a header is
//! freed by that header's `Drop` (under the registry lock), or, deflated,
//! by the deflater after a grace period (`thread/critical.rs`): every thread that
//! touches a monitor does so inside a critical section (or, at thread exit,
//! under the registry lock), so a monitor outlives every reader.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[cfg(not(loom))]
use super::atomic::spin_pause;
use super::atomic::{fence, AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use super::error::SyncError;
use super::header::{Mark, LOCK_MASK, MONITOR};
use super::thread::note_monitor_owner;
use crate::thread::{ThreadState, FIRST_THREAD_ID};

/// Monitor owner value: no owner.
pub(crate) const NO_OWNER: usize = 0;
/// Monitor owner value: fast-locked by a thread not yet known (the
/// contender that inflated does not know who holds the lock).
pub(crate) const ANONYMOUS_OWNER: usize = 1;
/// Monitor owner value while the deflater takes the monitor away (HotSpot
/// `DEFLATER_MARKER`): every `try_lock` fails on it.
pub(crate) const DEFLATER_MARKER: usize = 2;
/// Monitor owner tag: the rest of the word is the address of the lock
/// record that stack-locked the object before a contender inflated it
/// (thread ids never reach bit 63).
pub(crate) const RECORD_OWNER: usize = 1 << 63;

const _: () = assert!(
    NO_OWNER < FIRST_THREAD_ID && ANONYMOUS_OWNER < FIRST_THREAD_ID && DEFLATER_MARKER < FIRST_THREAD_ID,
    "an owner value is never a thread's id"
);

/// The header word's monitor form (`10`): the monitor's side of [`Mark`].
impl Mark {
    /// The monitor a `10` word points to.
    #[inline(always)]
    pub(crate) fn monitor(self) -> *const Monitor {
        debug_assert!(self.has_monitor());
        (self.0 & !LOCK_MASK) as *const Monitor
    }
    /// Whether this is a `10` word, and the monitor it points to if so (a
    /// meaningless pointer otherwise): one subtraction and one test (the tag
    /// taken off is the tag tested), for the inline inflated paths.
    #[inline(always)]
    pub(crate) fn as_monitor(self) -> (bool, *const Monitor) {
        let untagged = self.0.wrapping_sub(MONITOR);
        (untagged & LOCK_MASK == 0, untagged as *const Monitor)
    }
    /// The word that installs `monitor`.
    pub(crate) fn encode_monitor(monitor: *const Monitor) -> Mark {
        debug_assert_eq!(monitor as usize & LOCK_MASK, 0, "monitors are 8-byte aligned");
        Mark(monitor as usize | MONITOR)
    }
}

/// `contentions` of a deflated monitor (HotSpot sets `INT_MIN`): negative
/// whatever late contenders add.
pub(crate) const DEFLATED: usize = isize::MIN as usize;

/// Whether a `contentions` value says "deflated".
#[inline]
fn is_deflated_count(c: usize) -> bool {
    (c as isize) < 0
}

/// What an exit leaves to its cold part ([`Monitor::exit_inline`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[must_use]
pub(crate) enum ExitRest {
    /// Nothing: a recursion level released, or the monitor released with
    /// nobody queued.
    Done,
    /// Not released: a queued thread asked for a direct hand-off.
    HandOff,
    /// Released, and somebody is queued: wake a successor unless one is
    /// awake already.
    Wake,
}

/// Node states.
const ENTERING: u32 = 0;
const WAITING: u32 = 1;
const NOTIFIED: u32 = 2;
const LEFT: u32 = 3;

/// A blocked thread's place in a monitor's lists; lives on that thread's
/// stack until it owns the monitor and has unlinked it.
pub(crate) struct Node {
    thread: Arc<ThreadState>,
    /// Next (older) node on the entry list.
    next: AtomicPtr<Node>,
    /// Previous (newer) node, filled in lazily by owners
    /// (`link_backwards`); null for the head or where not yet known.
    /// Owner-only.
    prev: AtomicPtr<Node>,
    state: AtomicU32,
}

impl Node {
    fn new(thread: &Arc<ThreadState>, state: u32) -> Node {
        Node {
            thread: thread.clone(),
            next: AtomicPtr::new(core::ptr::null_mut()),
            prev: AtomicPtr::new(core::ptr::null_mut()),
            state: AtomicU32::new(state),
        }
    }
}

/// A wait-set entry.
struct NodeRef(*const Node);
// SAFETY: a NodeRef is only dereferenced by the monitor's owner, while the
// node's thread is blocked in `wait` (which does not return before removing
// the reference); Node itself is Sync (atomics and an Arc).
unsafe impl Send for NodeRef {}

// Spinning knobs (HotSpot objectMonitor.cpp).
#[cfg(not(loom))]
const PRE_SPIN: u32 = 10;
const SPIN_LIMIT: i32 = 5000;
const POVERTY: i32 = 1000;
const BONUS: i32 = 100;
const BONUS_B: i32 = 100;
const PENALTY: i32 = 200;

/// How long a queued thread may be passed over before it asks for a direct
/// hand-off, and the least time between two hand-offs on one monitor
/// (parking_lot's fair unlock comes every 0–1 ms; this one every
/// ~0.5–1 ms so that least/most-served stays ≥ 0.25 over 200 ms).
const FAIR_AFTER_NS: u64 = 500_000;

/// The fairness rule's clock: when a thread queued. Under loom there is no
/// clock (a model must be deterministic): a thread is overdue as soon as it
/// has been passed over once, so the models explore the hand-off.
#[derive(Clone, Copy)]
struct FairClock(#[cfg(not(loom))] u64);

impl FairClock {
    /// Now, in nanoseconds since the first call in this process.
    #[cfg(not(loom))]
    fn now() -> FairClock {
        static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        let epoch = *EPOCH.get_or_init(Instant::now);
        FairClock(epoch.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64)
    }

    #[cfg(loom)]
    fn now() -> FairClock {
        FairClock()
    }

    /// `Some(now)` once [`FAIR_AFTER_NS`] has passed since `self`.
    #[cfg(not(loom))]
    fn overdue(self) -> Option<u64> {
        let now = FairClock::now().0;
        (now.saturating_sub(self.0) >= FAIR_AFTER_NS).then_some(now)
    }

    #[cfg(loom)]
    fn overdue(self) -> Option<u64> {
        Some(0)
    }
}

/// Bytes between the owner's fields and the contenders' beyond the cold
/// fields that already separate them (see [`Monitor`]'s layout and the
/// test that checks it).
const CONTENDER_GAP: usize = 64;

/// The monitor.
///
/// Layout (`repr(C)`, after objectMonitor.hpp's padding, JDK 24): the
/// fields an uncontended enter and exit touch come first, then the cold
/// ones, then padding, then the fields contenders write (`entry_list`,
/// `succ`, `contentions`, the spin and fairness heuristics). The contenders'
/// fields start at least 128 bytes after the owner's end, so no cache line
/// (nor an adjacent-line prefetch pair) holds both: a thread queueing or
/// spinning does not take the owner's line away from it. No
/// over-alignment: monitors come from the ordinary allocator, and a
/// churning runtime allocates one per contended object (an aligned
/// allocation was slower there).
#[repr(C)]
pub(crate) struct Monitor {
    owner: AtomicUsize,
    /// A queued thread's node asking to be handed the monitor at the next
    /// exit (eventual fairness, see the module docs); null if none. Set by
    /// that thread (CAS from null), cleared only by an owner. Read at every
    /// exit, so it lives beside `owner`.
    hand_off_to: AtomicPtr<Node>,
    /// Owner-only.
    recursions: AtomicUsize,
    /// Owner-only: 1 while the owner holds the monitor through a live
    /// `SynchronizedGuard` (module docs), else 0. At most one guard per monitor,
    /// since `Synchronized::lock` refuses an object its thread holds.
    guard_held: AtomicUsize,
    /// 1: the monitor was installed for a contention, and its last owner's
    /// exit deflates it once it is idle (`deflate.rs`, deflation on exit).
    /// Set before the monitor is published, read by every exit, on the
    /// owner's line.
    deflate_on_exit: AtomicUsize,

    // Cold fields, between the owner's and the contenders'.
    /// The object's header before inflation (unlocked form): hash and spare
    /// bits live here while the monitor is installed.
    pub(crate) header: AtomicUsize,
    /// The header's address: thread exit skips the monitors of objects held
    /// through live `SynchronizedGuard`s by it; the deflater restores the header
    /// through it.
    /// 0 once the object is gone (its header dropped while another thread
    /// owned the monitor): the deflater then frees the monitor without
    /// touching a header. Written and read under the registry lock (a std
    /// atomic only to be shared).
    object: std::sync::atomic::AtomicUsize,
    /// 1 once an exiting owner deflated the monitor and put the displaced
    /// header back (deflation on exit): the next pass frees it without
    /// touching the object, which may be gone by then.
    deflated_by_owner: AtomicUsize,
    /// Fair hand-offs done on this monitor (tests and diagnostics; a std
    /// atomic: it orders nothing).
    hand_offs: std::sync::atomic::AtomicU64,
    /// The oldest node on the entry list, if an owner has found it since
    /// the list last changed at that end (JDK 24 `_entry_list_tail`): exits
    /// wake it without walking the list. Owner-only.
    entry_list_tail: AtomicPtr<Node>,
    /// Owner-only (the mutex is never contended: it only makes the queue
    /// `Sync` without more unsafe code).
    wait_set: std::sync::Mutex<VecDeque<NodeRef>>,
    _gap: [u8; CONTENDER_GAP],

    // Written by contenders.
    entry_list: AtomicPtr<Node>,
    succ: AtomicUsize,
    /// Threads inside `enter`'s slow path or `wait`: the deflater's "is
    /// anyone here" test, and a reference count that keeps the monitor
    /// alive for them; [`DEFLATED`] once deflated.
    contentions: AtomicUsize,
    /// The earliest time (nanoseconds on [`FairClock`]) at which a passed-over
    /// thread may ask for the next hand-off: at most one per
    /// [`FAIR_AFTER_NS`], so fairness costs one wake-up latency per interval,
    /// not per exit (a heuristic: std atomic, not modelled).
    next_fair: std::sync::atomic::AtomicU64,
    /// Adaptive spin budget (a heuristic: std atomic, not modelled).
    spin_duration: std::sync::atomic::AtomicI32,
}

impl Monitor {
    /// A monitor for the object at `object` whose pre-inflation word was
    /// `displaced`, owned by `owner`.
    pub(crate) fn new(displaced: Mark, owner: usize, object: usize) -> Box<Monitor> {
        Box::new(Monitor {
            header: AtomicUsize::new(displaced.set_unlocked().0),
            owner: AtomicUsize::new(owner),
            hand_off_to: AtomicPtr::new(core::ptr::null_mut()),
            recursions: AtomicUsize::new(0),
            guard_held: AtomicUsize::new(0),
            deflate_on_exit: AtomicUsize::new(0),
            deflated_by_owner: AtomicUsize::new(0),
            entry_list: AtomicPtr::new(core::ptr::null_mut()),
            succ: AtomicUsize::new(NO_OWNER),
            wait_set: std::sync::Mutex::new(VecDeque::new()),
            spin_duration: std::sync::atomic::AtomicI32::new(POVERTY),
            next_fair: std::sync::atomic::AtomicU64::new(0),
            hand_offs: std::sync::atomic::AtomicU64::new(0),
            entry_list_tail: AtomicPtr::new(core::ptr::null_mut()),
            contentions: AtomicUsize::new(0),
            object: std::sync::atomic::AtomicUsize::new(object),
            _gap: [0; CONTENDER_GAP],
        })
    }

    /// Marks a monitor about to be installed for a contention as one its
    /// last owner's exit deflates once idle (`deflate.rs`).
    pub(crate) fn set_deflate_on_exit(&self) {
        // Relaxed: before the monitor is published (the installing CAS
        // releases it).
        self.deflate_on_exit.store(1, Ordering::Relaxed);
    }

    /// Whether an exit that released the monitor should try to deflate it
    /// ([`set_deflate_on_exit`](Self::set_deflate_on_exit)).
    #[inline(always)]
    pub(crate) fn deflates_on_exit(&self) -> bool {
        // Relaxed: written once, before the monitor was published.
        self.deflate_on_exit.load(Ordering::Relaxed) != 0
    }

    /// The exiting owner deflated the monitor and restored the header:
    /// the next pass frees it.
    pub(crate) fn set_deflated_by_owner(&self) {
        // Release: the pass that sees it (Acquire) also sees the header
        // restored, so it frees the monitor without looking at the object.
        self.deflated_by_owner.store(1, Ordering::Release);
    }

    /// Whether an exiting owner deflated the monitor (and restored the
    /// header). Under the registry lock, by a pass.
    pub(crate) fn is_deflated_by_owner(&self) -> bool {
        // Acquire: pairs with `set_deflated_by_owner`.
        self.deflated_by_owner.load(Ordering::Acquire) != 0
    }

    /// The owner word now.
    #[inline]
    pub(crate) fn owner(&self) -> usize {
        // Relaxed: a thread asking whether *it* owns the monitor reads its
        // own earlier write (program order); any other reader uses this as a
        // hint only.
        self.owner.load(Ordering::Relaxed)
    }

    /// The object's header address, 0 if the object is gone (see the
    /// field). Under the registry lock, or by a thread in a call on the
    /// object.
    pub(crate) fn object(&self) -> usize {
        // Relaxed: ordered by the registry lock (or the header's borrow).
        self.object.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The object is gone; the monitor stays (owned by another thread).
    /// Under the registry lock.
    pub(crate) fn forget_object(&self) {
        // Relaxed: as in `object`.
        self.object.store(0, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether thread `id` owns the monitor.
    #[inline]
    pub(crate) fn is_owned_by(&self, id: usize) -> bool {
        self.owner() == id
    }

    /// Whether the owner is `ANONYMOUS_OWNER` (fast-locked by a thread not
    /// yet known).
    pub(crate) fn is_anonymous(&self) -> bool {
        self.owner() == ANONYMOUS_OWNER
    }

    /// The caller found the object on its own lock-stack (`entries` times)
    /// while the monitor is anonymously owned: it is the owner.
    pub(crate) fn claim_anonymous(&self, me: &ThreadState, entries: usize) {
        debug_assert!(self.is_anonymous());
        self.take_over(me, entries.saturating_sub(1));
    }

    /// The stack-locker's record, if the monitor is owned by one (a
    /// contender inflated a stack-locked object: HotSpot's owner is then the
    /// `BasicLock` address until its thread claims it).
    #[inline]
    pub(crate) fn owner_record(&self) -> Option<usize> {
        let o = self.owner();
        (o & RECORD_OWNER != 0).then_some(o & !RECORD_OWNER)
    }

    /// The caller owns the monitor under another name (anonymous, or one of
    /// its lock records): make the owner its id, with `recursions`.
    pub(crate) fn take_over(&self, me: &ThreadState, recursions: usize) {
        note_monitor_owner();
        // Relaxed: we already own the lock (since our fast-lock or
        // stack-lock CAS); other threads only ever compare `owner` with
        // NO_OWNER, which none of the names is.
        self.owner.store(me.id, Ordering::Relaxed);
        self.recursions.store(recursions, Ordering::Relaxed);
    }

    /// Sets the recursion count (owner only, at inflation).
    pub(crate) fn set_recursions(&self, recursions: usize) {
        // Relaxed: owner-only field.
        self.recursions.store(recursions, Ordering::Relaxed);
    }

    /// The owner (the caller, just after acquiring) holds the monitor
    /// through a `SynchronizedGuard` now.
    #[inline]
    pub(crate) fn set_guard_held(&self) {
        // Relaxed: owner-only field; the next owner acquires `owner` after
        // our release, which orders this store (and `take_guard_held`'s)
        // before its own accesses.
        self.guard_held.store(1, Ordering::Relaxed);
    }

    /// The owner's `SynchronizedGuard` is being dropped: clears the mark and says
    /// whether it was set (if not, the guard's lock was taken another way).
    #[inline]
    pub(crate) fn take_guard_held(&self) -> bool {
        // Relaxed: owner-only field (see `set_guard_held`). A load and a
        // plain store, not a swap: no other thread writes it.
        let held = self.guard_held.load(Ordering::Relaxed) != 0;
        if held {
            self.guard_held.store(0, Ordering::Relaxed);
        }
        held
    }

    /// Whether the owner holds the monitor through a live `SynchronizedGuard`:
    /// only meaningful to the owner (thread exit's release).
    #[inline]
    pub(crate) fn is_guard_held(&self) -> bool {
        // Relaxed: owner-only field.
        self.guard_held.load(Ordering::Relaxed) != 0
    }

    /// One CAS of a free monitor by the thread whose owner id is `id`
    /// (which noted itself as a possible owner): never a re-entry.
    #[inline]
    pub(crate) fn try_lock(&self, id: usize) -> bool {
        // Acquire: see the previous owner's critical section.
        self.owner
            .compare_exchange(NO_OWNER, id, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// One attempt that never blocks or spins: `true` if the caller now owns
    /// the monitor (acquired, or re-entered one more level). `false` says
    /// only that this attempt failed: the owner may be another thread or
    /// [`DEFLATER_MARKER`] (the monitor is being deflated; the caller
    /// re-reads the header).
    #[inline]
    pub(crate) fn try_enter(&self, me: &ThreadState) -> bool {
        note_monitor_owner();
        self.try_enter_as(me.id)
    }

    /// [`try_enter`](Self::try_enter) by the thread whose owner id is `id`,
    /// which has noted itself as a possible monitor owner already (the
    /// inline paths set their block's flag themselves).
    #[inline(always)]
    pub(crate) fn try_enter_as(&self, id: usize) -> bool {
        // Acquire: see the previous owner's critical section.
        match self
            .owner
            .compare_exchange(NO_OWNER, id, Ordering::Acquire, Ordering::Relaxed)
        {
            Ok(_) => true,
            // Ours already (only we store our id, or an exit hands it to a
            // thread parked, which we are not): one level more. Relaxed,
            // and a load and a store rather than a locked add: owner-only.
            Err(owner) if owner == id => {
                let r = self.recursions.load(Ordering::Relaxed);
                self.recursions.store(r + 1, Ordering::Relaxed);
                true
            }
            Err(_) => false,
        }
    }

    /// Acquires the monitor (reentrant). Blocks. `false`: the monitor was
    /// deflated under the caller, which must re-read the header and retry
    /// (HotSpot `ObjectMonitor::enter` returning false).
    #[must_use]
    #[inline]
    pub(crate) fn enter(&self, me: &Arc<ThreadState>) -> bool {
        if self.try_enter(me) {
            return true;
        }
        self.enter_contended(me, None)
    }

    /// The slow part of enter: spin, then queue and park. `node` is a wait
    /// node being re-used by a waiter that left the wait set by itself.
    /// `false` if the monitor turned out deflated (nothing was changed).
    #[cold]
    fn enter_contended(&self, me: &Arc<ThreadState>, node: Option<&Node>) -> bool {
        // SeqCst: the contender's half of the deflation handshake. Either
        // the deflater's CAS of `contentions` 0 → DEFLATED sees our
        // increment (and backs off), or we see DEFLATED here and retry.
        let before = self.contentions.fetch_add(1, Ordering::SeqCst);
        if is_deflated_count(before) {
            // Deflated: the count stays negative whatever we add; give it
            // back anyway, as HotSpot does, to keep it readable.
            self.contentions.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        if !self.spin_unless_queued(me.id) {
            let own;
            let node = match node {
                Some(n) => n,
                None => {
                    own = Node::new(me, ENTERING);
                    &own
                }
            };
            self.enqueue(node);
            // StoreLoad: our push must be visible before we re-read `owner`
            // in the loop (the contender's half of the Dekker pair; see the
            // module docs).
            fence(Ordering::SeqCst);
            self.enter_loop(node, me);
        }
        // Release: we own the monitor now (so it is not idle), and our
        // accesses through it are done being "contended".
        self.contentions.fetch_sub(1, Ordering::Release);
        true
    }

    /// Pushes `node` on the entry list.
    fn enqueue(&self, node: &Node) {
        let node_ptr = node as *const Node as *mut Node;
        // Relaxed: published by the Release CAS below. A wait node may come
        // back to the list: forget its old place.
        node.prev.store(core::ptr::null_mut(), Ordering::Relaxed);
        // Relaxed: the CAS below validates it.
        let mut head = self.entry_list.load(Ordering::Relaxed);
        loop {
            // Relaxed: published by the Release CAS.
            node.next.store(head, Ordering::Relaxed);
            // Release: the owner that walks from the head must see `next`
            // and the node's fields.
            match self
                .entry_list
                .compare_exchange_weak(head, node_ptr, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(h) => head = h,
            }
        }
    }

    /// Parks until the lock is acquired, by its own CAS or by an exiting
    /// owner's hand-off; `node` is on the entry list.
    fn enter_loop(&self, node: &Node, me: &Arc<ThreadState>) {
        let queued = FairClock::now();
        let mut asked = false;
        loop {
            if self.owned_or_taken(me.id) {
                break;
            }
            // Outside the critical section while blocked: `contentions`
            // keeps this monitor alive (see `thread/critical.rs`).
            me.critical.quiescent(|| me.park.park(None));
            if self.owned_or_taken(me.id) {
                break;
            }
            if self.try_spin(me.id) {
                break;
            }
            // Woken and passed over again: past the fairness bound, ask the
            // next exit to hand the monitor to us.
            if !asked {
                asked = self.ask_for_hand_off(node, queued);
            }
            // Relaxed: `succ` is a hint; the fence below orders clearing it
            // before our next look at `owner`.
            if self.succ.load(Ordering::Relaxed) == me.id {
                self.succ.store(NO_OWNER, Ordering::Relaxed);
            }
            // StoreLoad: after clearing `succ` we must retry the lock before
            // parking (the successor's half of the Dekker pair with exit).
            fence(Ordering::SeqCst);
        }
        if asked {
            // We own the monitor. If we took it ourselves, our request is
            // still there: withdraw it before our node dies (an owner would
            // hand the monitor to a dead node). Relaxed: only owners clear
            // the field, and we are the owner; the CAS fails harmlessly if
            // the request was honoured (cleared) or replaced.
            let mine = node as *const Node as *mut Node;
            let _ = self.hand_off_to.compare_exchange(
                mine,
                core::ptr::null_mut(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
        self.unlink(node);
        // Relaxed: a hint we set or were given; the fence below publishes
        // the clearing.
        if self.succ.load(Ordering::Relaxed) == me.id {
            self.succ.store(NO_OWNER, Ordering::Relaxed);
        }
        // Make the cleared `succ` visible before we run the critical section,
        // so our own exit (or another's) does not see a stale successor.
        fence(Ordering::SeqCst);
    }

    /// Whether thread `id` owns the monitor: handed to it by an exiting
    /// owner, or free and taken now by its CAS.
    #[inline]
    fn owned_or_taken(&self, id: usize) -> bool {
        // Acquire: pairs with `hand_off`'s Release store of our id, so the
        // previous owner's critical section is visible to us.
        let o = self.owner.load(Ordering::Acquire);
        o == id || (o == NO_OWNER && self.try_lock(id))
    }

    /// Eventual fairness (parking_lot's fair unlock, WebKit WTF::Lock's
    /// analysis): a queued thread that was woken and lost the lock to a
    /// barging one, after waiting [`FAIR_AFTER_NS`] since it queued, asks the
    /// next exit to hand the monitor over directly, so it cannot be passed
    /// over for ever. At most one request per [`FAIR_AFTER_NS`] per monitor:
    /// each hand-off costs a wake-up latency during which nobody runs the
    /// critical section, so barging stays the common case. Returns whether
    /// the request was placed.
    fn ask_for_hand_off(&self, node: &Node, queued: FairClock) -> bool {
        let Some(now) = queued.overdue() else {
            return false;
        };
        // Relaxed: a rate-limiting heuristic; a race lets two requests
        // through, or delays one by an interval.
        if now < self.next_fair.load(std::sync::atomic::Ordering::Relaxed) {
            return false;
        }
        let mine = node as *const Node as *mut Node;
        // Release: the owner that honours the request dereferences the node
        // (its thread handle) after its Acquire load. Relaxed on failure:
        // another request is pending; we ask again later.
        let placed = self
            .hand_off_to
            .compare_exchange(core::ptr::null_mut(), mine, Ordering::Release, Ordering::Relaxed)
            .is_ok();
        if placed {
            self.next_fair.store(
                now.saturating_add(FAIR_AFTER_NS),
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        placed
    }

    /// The oldest node on the entry list (null if it is empty): the cached
    /// tail, or found once by linking the list backwards. Owner only.
    fn tail(&self) -> *const Node {
        // Relaxed: owner-only field; ownership hand-overs order it.
        let t = self.entry_list_tail.load(Ordering::Relaxed);
        if !t.is_null() {
            return t;
        }
        self.link_backwards();
        self.entry_list_tail.load(Ordering::Relaxed)
    }

    /// Fills in `prev` from the head down to the first node already linked
    /// to the one above it (everything below was linked by an earlier call:
    /// nodes are only ever pushed at the head, and `unlink` keeps the links
    /// it touches consistent), or to the end, setting the cached tail, if
    /// it is not known (JDK 24 `entry_list_build_dll`). Owner only. The
    /// first walk after a burst of pushes costs what the old tail walk did;
    /// after it each hand-over is O(1).
    fn link_backwards(&self) {
        // Relaxed: owner-only field.
        let tail_known = !self.entry_list_tail.load(Ordering::Relaxed).is_null();
        // Acquire: pairs with the pushers' Release CAS (a chain of RMWs, so
        // it covers every node below the head too).
        let mut w = self.entry_list.load(Ordering::Acquire);
        let mut above: *mut Node = core::ptr::null_mut();
        while !w.is_null() {
            // SAFETY: nodes on the entry list stay alive until their thread
            // owns the monitor and unlinks them; we own it now.
            let n = unsafe { &*w };
            // Relaxed (`prev`, `next`): owner-only links, or pushers' fields
            // covered by the Acquire above.
            if tail_known && !above.is_null() && n.prev.load(Ordering::Relaxed) == above {
                return;
            }
            n.prev.store(above, Ordering::Relaxed);
            above = w;
            w = n.next.load(Ordering::Relaxed);
        }
        if !tail_known {
            // Relaxed: owner-only field. `above` is the last node (or null).
            self.entry_list_tail.store(above, Ordering::Relaxed);
        }
    }

    /// Removes `node` from the entry list (JDK 24 `unlink_after_acquire`).
    /// Owner only.
    fn unlink(&self, node: &Node) {
        let node_ptr = node as *const Node as *mut Node;
        // Relaxed loads of `next`/`prev` and stores to them and to the
        // tail: owner-only links (see `link_backwards`).
        let next = node.next.load(Ordering::Relaxed);
        // The head: pop it, unless a push came first. AcqRel: pushers may
        // be racing on the head.
        if self
            .entry_list
            .compare_exchange(node_ptr, next, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            if next.is_null() {
                self.entry_list_tail
                    .store(core::ptr::null_mut(), Ordering::Relaxed);
            } else {
                // SAFETY: `next` is on the list (see `link_backwards`).
                unsafe { (*next).prev.store(core::ptr::null_mut(), Ordering::Relaxed) };
            }
            return;
        }
        // Below the head: its `prev` is known once the list is linked.
        self.link_backwards();
        let prev = node.prev.load(Ordering::Relaxed);
        debug_assert!(!prev.is_null(), "a node below the head without a prev link");
        if prev.is_null() {
            // Unreachable by the invariants above. Were they broken, leaving
            // the node on the list would leave a dangling pointer: forget the
            // links instead, and find the tail afresh next time.
            self.entry_list_tail
                .store(core::ptr::null_mut(), Ordering::Relaxed);
            return self.unlink_by_walking(node_ptr, next);
        }
        // SAFETY: `prev` and `next` are on the list (see `link_backwards`).
        unsafe { (*prev).next.store(next, Ordering::Relaxed) };
        if next.is_null() {
            self.entry_list_tail.store(prev, Ordering::Relaxed);
        } else {
            // SAFETY: as above.
            unsafe { (*next).prev.store(prev, Ordering::Relaxed) };
        }
    }

    /// `unlink`'s fallback: find the predecessor from the head.
    #[cold]
    fn unlink_by_walking(&self, node: *mut Node, next: *mut Node) {
        // Acquire: as in `link_backwards`.
        let mut p = self.entry_list.load(Ordering::Acquire);
        while !p.is_null() {
            // SAFETY: as in `link_backwards`.
            let pn = unsafe { &(*p).next };
            // Relaxed: owner-only links.
            let n = pn.load(Ordering::Relaxed);
            if n == node {
                pn.store(next, Ordering::Relaxed);
                return;
            }
            p = n;
        }
    }

    /// Releases one level (the caller owns the monitor).
    #[inline]
    pub(crate) fn exit(&self, me: &ThreadState) {
        let rest = self.exit_inline();
        if rest != ExitRest::Done {
            self.finish_exit(rest, me.id);
        }
    }

    /// The part of [`exit`](Self::exit) every exit runs, inline (HotSpot's
    /// compiled `fast_unlock`'s `inflated` label: the recursions test, the
    /// release store, the StoreLoad fence, the entry-list test; ours tests
    /// the fairness hand-off request first, in the owner's line). What it
    /// returns, unless [`ExitRest::Done`], goes to
    /// [`finish_exit`](Self::finish_exit), by the caller (the owner), while
    /// the monitor cannot be freed under it.
    #[inline(always)]
    pub(crate) fn exit_inline(&self) -> ExitRest {
        // Relaxed: owner-only field.
        let r = self.recursions.load(Ordering::Relaxed);
        if r > 0 {
            self.recursions.store(r - 1, Ordering::Relaxed);
            return ExitRest::Done;
        }
        self.release_inline()
    }

    /// The cold rest of an exit, after [`exit_inline`](Self::exit_inline)
    /// (or the release of `exit_fully`/`wait`) returned `rest`.
    #[cold]
    #[inline(never)]
    pub(crate) fn finish_exit(&self, rest: ExitRest, id: usize) {
        match rest {
            ExitRest::Done => {}
            ExitRest::HandOff => {
                // Acquire: as in `release_inline`. Still set: only owners
                // clear it, and we still own the monitor.
                self.hand_off(self.hand_off_to.load(Ordering::Acquire));
            }
            ExitRest::Wake => self.wake_queued(id),
        }
    }

    /// Releases fully, whatever the recursion count (thread exit), and
    /// whatever guard held it: the next owner never finds a stale mark.
    pub(crate) fn exit_fully(&self, me: &ThreadState) {
        // Relaxed: owner-only fields (the caller owns the monitor).
        self.recursions.store(0, Ordering::Relaxed);
        self.guard_held.store(0, Ordering::Relaxed);
        self.release_and_wake(me.id);
    }

    /// Clears the owner and, unless someone else is responsible, hands the
    /// monitor's wake-up to the oldest queued thread (HotSpot `exit` +
    /// `ExitEpilog`).
    #[inline]
    fn release_and_wake(&self, id: usize) {
        let rest = self.release_inline();
        if rest != ExitRest::Done {
            self.finish_exit(rest, id);
        }
    }

    /// The release, recursions aside: a queued thread that asked for a
    /// hand-off gets the monitor (the caller does it: [`ExitRest::HandOff`],
    /// nothing changed yet); else `owner` is cleared, and if anyone is
    /// queued the caller sees whether to wake a successor
    /// ([`ExitRest::Wake`]).
    #[inline(always)]
    fn release_inline(&self) -> ExitRest {
        // Acquire: pairs with the requester's Release CAS; `hand_off`
        // dereferences the node. A request placed after this load is seen
        // by a later exit (the requester parks until then).
        if !self.hand_off_to.load(Ordering::Acquire).is_null() {
            return ExitRest::HandOff;
        }
        // Release: publishes the critical section to the next owner.
        self.owner.store(NO_OWNER, Ordering::Release);
        if self.anyone_queued() {
            ExitRest::Wake
        } else {
            ExitRest::Done
        }
    }

    /// Gives the monitor to the thread whose node asked for it
    /// (`ask_for_hand_off`), without ever releasing it: no barging thread,
    /// and no deflater (whose CAS needs NO_OWNER), can come in between.
    #[cold]
    fn hand_off(&self, node: *mut Node) {
        // Relaxed: only owners clear the request; the new owner reads it
        // after our Release store below.
        self.hand_off_to.store(core::ptr::null_mut(), Ordering::Relaxed);
        // SAFETY: a requesting node stays on the entry list, alive, until
        // its thread owns the monitor; we own it, and a thread that took it
        // by itself withdrew its request before unlinking. Clone the handle
        // before the store: from then on the new owner may run, unlink and
        // return, and its node dies with its frame.
        let wakee = unsafe { (*node).thread.clone() };
        // Relaxed: a statistic (counted while we still own the monitor).
        self.hand_offs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        super::stats::count_fair_hand_off();
        // Release: publishes our critical section to the new owner's
        // Acquire load in `owned_or_taken`.
        self.owner.store(wakee.id, Ordering::Release);
        wakee.park.unpark();
    }

    /// After `owner` was set to NO_OWNER by `id` (the deflater backing
    /// off): wake a successor unless someone else will.
    fn wake_after_release(&self, id: usize) {
        if self.anyone_queued() {
            self.wake_queued(id);
        }
    }

    /// After the caller stored `owner = NO_OWNER`: whether anyone is queued
    /// (then a successor may need waking).
    #[inline(always)]
    fn anyone_queued(&self) -> bool {
        // StoreLoad: the exit half of the Dekker pair (module docs).
        fence(Ordering::SeqCst);
        // Relaxed: ordered after the fence; a stale non-null head only
        // costs a futile wake-up, a stale null is excluded by the fence.
        !self.entry_list.load(Ordering::Relaxed).is_null()
    }

    /// After a release that saw somebody queued
    /// ([`anyone_queued`](Self::anyone_queued)): wake the oldest unless an
    /// awake successor or a new owner will.
    #[cold]
    #[inline(never)]
    fn wake_queued(&self, id: usize) {
        loop {
            // Relaxed: ordered after `anyone_queued`'s fence.
            if self.succ.load(Ordering::Relaxed) != NO_OWNER {
                return; // an awake successor will retry
            }
            // Someone waits and nobody is awake to take over: become the
            // owner again to pick a successor. If that fails, the new owner
            // is responsible for the wake-up.
            if !self.try_lock(id) {
                return;
            }
            let w = self.tail();
            if w.is_null() {
                // Raced with an unlink: nothing to wake. Release again, and
                // look again as an exit does.
                self.owner.store(NO_OWNER, Ordering::Release);
                if !self.anyone_queued() {
                    return;
                }
                continue;
            }
            // SAFETY: `w` is on the entry list and we own the monitor.
            // Clone the thread handle *before* releasing: once the owner is
            // cleared the wakee may acquire, unlink and return, and its node
            // dies with its stack frame (HotSpot's ExitEpilog "hygiene").
            let wakee = unsafe { (*w).thread.clone() };
            // Relaxed: published by the Release store below.
            self.succ.store(wakee.id, Ordering::Relaxed);
            // Release: as above.
            self.owner.store(NO_OWNER, Ordering::Release);
            wakee.park.unpark();
            return;
        }
    }

    /// A newcomer's spin: only while nobody is queued (parking_lot's rule:
    /// spin only while no thread is parked). A queue means the lock has been
    /// busy for longer than a spin lasts, and, where threads outnumber
    /// CPUs, a spinner may be burning the very CPU the descheduled owner
    /// needs; one look, then queue. A woken successor still spins
    /// (`enter_loop`): it is the one thread exits leave the lock to.
    #[inline]
    fn spin_unless_queued(&self, id: usize) -> bool {
        // Relaxed: a hint; a stale answer costs one spin or one park, and
        // the queueing path re-checks `owner` after its own fence.
        if self.entry_list.load(Ordering::Relaxed).is_null() {
            self.try_spin(id)
        } else {
            self.try_lock_if_free(id)
        }
    }

    /// Test-and-test-and-set: CAS only when `owner` reads free, so a waiting
    /// thread reads a shared copy of the line instead of taking it away
    /// from the owner at every try.
    #[inline]
    fn try_lock_if_free(&self, id: usize) -> bool {
        self.owner() == NO_OWNER && self.try_lock(id)
    }

    /// Adaptive spinning (HotSpot `TrySpin`). Returns whether it acquired.
    #[cfg(not(loom))]
    fn try_spin(&self, id: usize) -> bool {
        // Relaxed on `spin_duration`: a heuristic; races only mis-tune it.
        let sd = &self.spin_duration;
        for _ in 0..=PRE_SPIN {
            if self.try_lock_if_free(id) {
                let x = sd.load(std::sync::atomic::Ordering::Relaxed);
                if x < SPIN_LIMIT {
                    sd.store(x.max(POVERTY) + BONUS_B, std::sync::atomic::Ordering::Relaxed);
                }
                return true;
            }
            spin_pause();
        }
        let mut ctr = sd.load(std::sync::atomic::Ordering::Relaxed);
        if ctr <= 0 {
            return false;
        }
        // Tell exiting owners that a thread is awake and about to take the
        // lock, so they wake nobody. Relaxed: a hint; whoever clears it
        // fences before its next look at `owner`.
        let _ = self
            .succ
            .compare_exchange(NO_OWNER, id, Ordering::Relaxed, Ordering::Relaxed);
        let mut prev = NO_OWNER;
        let mut acquired = false;
        let mut penalize = true;
        while ctr > 0 {
            ctr -= 1;
            let o = self.owner();
            if o == NO_OWNER || o == id {
                // Free, or handed to us (`hand_off`) while we spun.
                if o == id {
                    // Acquire: our Relaxed load read `hand_off`'s Release
                    // store; see the previous owner's critical section.
                    fence(Ordering::Acquire);
                }
                acquired = o == id || self.try_lock(id);
                penalize = false;
                break; // won, or lost the CAS: stop spinning either way
            }
            if prev != NO_OWNER && o != prev {
                penalize = false;
                break; // ownership changed hands: contention is high
            }
            prev = o;
            spin_pause();
        }
        if acquired {
            // Relaxed: a hint (see above); we own the lock now.
            if self.succ.load(Ordering::Relaxed) == id {
                self.succ.store(NO_OWNER, Ordering::Relaxed);
            }
            let x = sd.load(std::sync::atomic::Ordering::Relaxed);
            if x < SPIN_LIMIT {
                sd.store(x.max(POVERTY) + BONUS, std::sync::atomic::Ordering::Relaxed);
            }
            return true;
        }
        if penalize {
            let x = sd.load(std::sync::atomic::Ordering::Relaxed);
            sd.store((x - PENALTY).max(0), std::sync::atomic::Ordering::Relaxed);
        }
        // Relaxed: a hint, published by the fence below.
        if self.succ.load(Ordering::Relaxed) == id {
            self.succ.store(NO_OWNER, Ordering::Relaxed);
            // After clearing `succ` we must retry before parking (see
            // `enter_loop`).
            fence(Ordering::SeqCst);
            return self.try_lock(id);
        }
        false
    }

    /// Under loom spinning only multiplies interleavings: one try.
    #[cfg(loom)]
    fn try_spin(&self, id: usize) -> bool {
        let _ = (SPIN_LIMIT, POVERTY, BONUS, BONUS_B, PENALTY, &self.spin_duration);
        self.try_lock(id)
    }

    /// The recursion count (tests, read by the owner).
    #[cfg(test)]
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn debug_recursions(&self) -> usize {
        // Relaxed: owner-only field, read by the owner.
        self.recursions.load(Ordering::Relaxed)
    }

    /// Fair hand-offs done so far (tests).
    #[cfg(test)]
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn hand_offs(&self) -> u64 {
        // Relaxed: a statistic.
        self.hand_offs.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether a queued thread's hand-off request is pending (tests).
    #[cfg(test)]
    pub(crate) fn has_hand_off_request(&self) -> bool {
        // Relaxed: read after the joins that order every writer.
        !self.hand_off_to.load(Ordering::Relaxed).is_null()
    }
}

/// How long a timed wait may still park (`Some(None)`: no bound), or `None`
/// once its timeout has passed since `start`.
#[cfg(not(loom))]
fn time_left(timeout: Option<Duration>, start: Instant) -> Option<Option<Duration>> {
    match timeout {
        None => Some(None),
        Some(d) => d.checked_sub(start.elapsed()).filter(|r| !r.is_zero()).map(Some),
    }
}

/// loom has no clock, and a model must not read the real one (its runs must
/// be deterministic): the timed park itself decides when time is up.
#[cfg(loom)]
fn time_left(timeout: Option<Duration>, _start: Instant) -> Option<Option<Duration>> {
    Some(timeout)
}

mod deflation;
mod wait;

#[cfg(all(test, not(loom)))]
mod tests;

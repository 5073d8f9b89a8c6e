//! Lock records (HotSpot `BasicLock`, basicLock.hpp): the per-lock slot that
//! legacy stack-locking parks an object's displaced header in, and the
//! per-thread arena that provides one when the caller does not.
//!
//! Where it sits: below [`super::legacy`], which writes and reads records,
//! and beside [`super::thread`]. A record is the caller's in HotSpot (a slot
//! in the compiled frame). Here:
//! - a runtime passes its own, pinned on its stack, to
//!   [`enter_with_record`](super::enter_with_record) /
//!   [`exit_with_record`](super::exit_with_record), exactly as compiled code
//!   passes a `BasicLock`;
//! - a [`HeaderGuard`](super::HeaderGuard) taken in legacy mode owns one from this
//!   thread's arena (a guard moves, so it cannot embed a record whose
//!   address the header holds);
//! - the record-less raw [`enter`](super::enter)/[`exit`](super::exit)
//!   keep a per-thread *record stack* of arena records: `enter` pushes one,
//!   `exit(obj)` takes the most recent record for `obj`, or, if the raw
//!   stack has none, a record of a live guard on `obj` (as in the other
//!   modes, where a guard's level is any level: a raw `exit` releases it
//!   and the guard's drop then releases another level, or finds none).
//!
//! A record's `displaced` word is what HotSpot keeps in a `BasicLock`:
//! the object's unlocked header (this record stack-locked it), `0`
//! ([`RECURSIVE`]: the object was already stack-locked by this thread) or
//! [`UNUSED_MARK`] (the lock went through a monitor). Only the owner writes
//! it; one other thread reads it: an inflater that has swung the header to
//! INFLATING, which stops the owner from finishing an unlock until it is done.
//!
//! The recursive records nested under the record holding the displaced
//! header (its *owner*) are counted: the owner's exit must know whether
//! levels remain (then it inflates instead of unlocking, see
//! [`super::legacy`]), and a claim of the monitor a contender installed
//! meanwhile how many recursions it holds ([`take_nested_under`]). A record
//! stays two words (the C ABI's `fastpath_lock_record` has its size), so
//! the count lives in the thread's arena ([`add_nested`]) and the owner
//! carries only a flag, [`NESTED`], the low bit of its `obj` word (objects
//! are word-aligned): an owner with levels nested under it then fails the
//! in-order exit's first comparison, so that exit costs what it did without
//! the count. Both are owner-only: no other thread reads them.
//!
//! "Is this record mine?" (`owns_record`) never dereferences a record: a
//! record address in a header may belong to another thread whose frame is
//! gone. As HotSpot's `JavaThread::is_lock_owned`, it compares addresses: the
//! current thread's stack bounds (after the JIT's quick "within a page above
//! the stack pointer" test) and the current thread's arena chunks.

use core::cell::{Cell, RefCell};
use core::marker::{PhantomData, PhantomPinned};
use core::mem::ManuallyDrop;
use core::pin::Pin;

use super::atomic::{AtomicUsize, Ordering};
use super::header::Mark;

/// `displaced` of a record that found its object already stack-locked by
/// this thread (HotSpot: a null displaced header).
pub(crate) const RECURSIVE: usize = 0;
/// `displaced` of a record whose lock went through a monitor (HotSpot
/// `markWord::unused_mark()`: lock bits 11, never a real header).
pub(crate) const UNUSED_MARK: usize = 0b11;
/// Flag in an owner record's `obj` word: recursive records are nested under
/// it (their count is in the arena, see [`NestedCounts`]).
const NESTED: usize = 1;

/// A lock record for legacy stack-locking (HotSpot `BasicLock`). Pin it for
/// as long as a lock taken with it is held:
///
/// ```
/// use std::pin::pin;
/// use fastpath::sync::{self, Header, LockRecord};
///
/// let obj = pin!(Header::new());
/// let rec = pin!(LockRecord::new());
/// sync::enter_with_record(obj.as_ref(), rec.as_ref());
/// assert!(sync::holds_lock(&obj) && rec.is_in_use());
/// sync::exit_with_record(obj.as_ref(), rec.as_ref()).unwrap();
/// assert!(!rec.is_in_use());
/// ```
///
/// Dropping a record whose lock is still held would leave the object's
/// header pointing at freed memory, so it aborts the process with a message
/// (as a header dropped while another thread holds it does): exit first.
pub struct LockRecord {
    /// The displaced header, [`RECURSIVE`] or [`UNUSED_MARK`].
    pub(crate) displaced: AtomicUsize,
    /// The address of the object locked with this record (0 when idle),
    /// with [`NESTED`] set while it holds the displaced header and
    /// recursive records are nested under it. Owner-only.
    obj: Cell<usize>,
    _pinned: PhantomPinned,
    /// Not `Send`/`Sync`: a lock is released by the thread that took it, and
    /// `owns_record` identifies a thread's records by address.
    _not_send: PhantomData<*const ()>,
}

impl LockRecord {
    /// An idle record.
    pub fn new() -> LockRecord {
        LockRecord {
            displaced: AtomicUsize::new(RECURSIVE),
            obj: Cell::new(0),
            _pinned: PhantomPinned,
            _not_send: PhantomData,
        }
    }

    /// Whether a lock taken with this record is held.
    pub fn is_in_use(&self) -> bool {
        self.obj.get() != 0
    }

    #[inline(always)]
    pub(crate) fn addr(&self) -> usize {
        self as *const LockRecord as usize
    }

    /// The object this record locks (0: idle).
    #[inline(always)]
    pub(crate) fn object(&self) -> usize {
        self.obj.get() & !NESTED
    }

    /// The `obj` word as it is: the object's address only if no record is
    /// nested under this one (the in-order exit's one comparison).
    #[inline(always)]
    pub(crate) fn object_word(&self) -> usize {
        self.obj.get()
    }

    /// Locks `obj` (its address) with this record, nothing nested; 0: idle.
    #[inline(always)]
    pub(crate) fn set_object(&self, obj: usize) {
        self.obj.set(obj);
    }

    /// Whether recursive records are nested under this owner record.
    #[inline(always)]
    pub(crate) fn has_nested(&self) -> bool {
        self.obj.get() & NESTED != 0
    }

    fn set_has_nested(&self, yes: bool) {
        let o = self.object();
        self.obj.set(if yes { o | NESTED } else { o });
    }

    /// The `displaced` word, read by the owner.
    #[inline(always)]
    pub(crate) fn displaced(&self) -> usize {
        // Relaxed: only the owner writes it, and the owner is reading.
        self.displaced.load(Ordering::Relaxed)
    }

    #[inline(always)]
    pub(crate) fn set_displaced(&self, word: usize) {
        // Relaxed: published to an inflater by the owner's AcqRel CAS that
        // installs this record's address in the header (see `legacy`).
        self.displaced.store(word, Ordering::Relaxed);
    }

    /// The displaced header, read by an inflater that swung the header from
    /// this record's address to INFLATING.
    pub(crate) fn displaced_header_for_inflater(&self) -> Mark {
        // Relaxed: the inflater's Acquire CAS read the word the owner's
        // Release CAS wrote after storing this field.
        Mark(self.displaced.load(Ordering::Relaxed))
    }
}

impl Default for LockRecord {
    fn default() -> Self {
        LockRecord::new()
    }
}

impl core::fmt::Debug for LockRecord {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LockRecord")
            .field("object", &format_args!("{:#x}", self.object()))
            .field("has_nested", &self.has_nested())
            .field("displaced", &format_args!("{:#x}", self.displaced()))
            .finish()
    }
}

impl Drop for LockRecord {
    fn drop(&mut self) {
        // A recursive record holds nothing the header points to; dropping
        // one in use forgets its level, which the thread then holds until
        // it exits (as a forgotten level of any mode).
        if self.is_in_use() && self.displaced() != RECURSIVE {
            eprintln!(
                "fastpath::sync: lock record dropped while it still holds object {:#x}; aborting",
                self.object()
            );
            std::process::abort();
        }
    }
}

/// Records per arena chunk.
const CHUNK: usize = 16;

type Chunk = [LockRecord; CHUNK];

/// A thread's record arena: chunks that never move while the thread lives,
/// a free list, and the raw API's record stack.
struct Arena {
    /// Boxed so that a chunk never moves when the vector grows: headers
    /// hold its records' addresses.
    #[allow(clippy::vec_box)]
    chunks: Vec<Box<Chunk>>,
    free: Vec<*const LockRecord>,
    /// Records taken by the record-less raw `enter`, oldest first.
    raw: Vec<*const LockRecord>,
    /// Caller records in use by this thread that lie neither on its stack
    /// nor in this arena: a boxed record, one inside the caller's own
    /// structure, or a stack slot that AddressSanitizer moved to its fake
    /// stack. HotSpot's address test cannot see those, so they are listed
    /// while in use ([`note_caller_record_in_use`]).
    off_stack: Vec<usize>,
    /// The recursive records of this thread nested under its owner records.
    nested: NestedCounts,
}

/// `(owner record, object, count)`.
type Nested = (usize, usize, usize);

/// How many recursive records of this thread are nested under each of its
/// owner records whose [`NESTED`] flag is set: an entry with a count exists
/// exactly while its owner is this thread's, flagged and in use (every path
/// that makes an owner idle takes its entry: its exits, a claim,
/// [`retire_for`], thread exit). The owner recursed on last is `top`, the
/// others (interleaved recursion on several objects) are listed in `rest`,
/// so the usual case, recursion on one object, is a comparison and an add.
struct NestedCounts {
    /// Count 0: nobody's (its owner fields are a stale cache).
    top: Nested,
    rest: Vec<Nested>,
}

impl NestedCounts {
    const fn new() -> NestedCounts {
        NestedCounts {
            top: (0, 0, 0),
            rest: Vec::new(),
        }
    }

    /// Whether `top` counts for `owner` (locking `obj`).
    #[inline(always)]
    fn top_is(&self, owner: usize, obj: usize) -> bool {
        self.top.0 == owner && self.top.1 == obj && self.top.2 > 0
    }

    /// The entry counting for `owner` (locking `obj`), if any.
    fn find(&mut self, owner: usize, obj: usize) -> Option<&mut Nested> {
        if self.top_is(owner, obj) {
            return Some(&mut self.top);
        }
        self.rest.iter_mut().find(|e| e.0 == owner && e.1 == obj)
    }

    /// One more level under `owner` (locking `obj`), whose entry is not
    /// `top`: in `rest`, or a new entry that becomes `top`.
    #[cold]
    fn add_not_top(&mut self, owner: usize, obj: usize) {
        if let Some(e) = self.rest.iter_mut().find(|e| e.0 == owner && e.1 == obj) {
            e.2 += 1;
            return;
        }
        if self.top.2 > 0 {
            self.rest.push(self.top);
        }
        self.top = (owner, obj, 1);
    }

    /// Drops the entry for `owner` (its count reached 0 or moved away).
    fn forget(&mut self, owner: usize, obj: usize) {
        if self.top.0 == owner && self.top.1 == obj {
            self.top.2 = 0;
        } else {
            self.rest.retain(|e| !(e.0 == owner && e.1 == obj));
        }
    }
}

// `ManuallyDrop`: no destructor, so the arena stays usable from every other
// thread-local destructor (the thread-exit release, late guards); the exit
// release frees it when no record is in use.
#[cfg(not(loom))]
std::thread_local! {
    static ARENA: ManuallyDrop<RefCell<Arena>> = const {
        ManuallyDrop::new(RefCell::new(Arena { chunks: Vec::new(), free: Vec::new(), raw: Vec::new(), off_stack: Vec::new(), nested: NestedCounts::new() }))
    };
}

#[cfg(loom)]
loom::thread_local! {
    static ARENA: ManuallyDrop<RefCell<Arena>> =
        ManuallyDrop::new(RefCell::new(Arena { chunks: Vec::new(), free: Vec::new(), raw: Vec::new(), off_stack: Vec::new(), nested: NestedCounts::new() }));
}

fn with_arena<R>(f: impl FnOnce(&mut Arena) -> R) -> R {
    ARENA.with(|a| f(&mut a.borrow_mut()))
}

/// An idle record from this thread's arena (for a guard or the raw API).
pub(crate) fn alloc() -> *const LockRecord {
    with_arena(|a| {
        if let Some(r) = a.free.pop() {
            return r;
        }
        let chunk: Box<Chunk> = Box::new(core::array::from_fn(|_| LockRecord::new()));
        let base = chunk.as_ptr();
        a.chunks.push(chunk);
        // The chunk's first record is returned; the rest go on the free list
        // (in reverse, so they are handed out in address order).
        // SAFETY: indices within the chunk just allocated.
        a.free.extend((1..CHUNK).rev().map(|i| unsafe { base.add(i) }));
        base
    })
}

/// Gives an idle arena record back.
pub(crate) fn free(rec: *const LockRecord) {
    // A record may be freed after the thread's exit release (a late guard):
    // the arena is destructor-free, so it is still there.
    with_arena(|a| a.free.push(rec));
}

/// The raw API's `enter`: a record pushed on the record stack.
pub(crate) fn push_raw() -> *const LockRecord {
    let r = alloc();
    keep_raw(r);
    r
}

/// The raw API's `try_enter` succeeded with `r`, an arena record from
/// [`alloc`]: it goes on the record stack, as [`push_raw`]'s would have.
pub(crate) fn keep_raw(r: *const LockRecord) {
    with_arena(|a| a.raw.push(r));
}

/// Calls `f` with the object of each record on this thread's raw record
/// stack (the legacy locks the record-less raw `enter` took), oldest
/// first; nothing once the thread's arena is gone. For the collector's
/// view of what a stopping mutator holds (`gc/heap/mutator.rs`); `f` must
/// not use the arena.
#[cfg(not(loom))] // its one user, the heap, is not built under loom
pub(crate) fn for_each_raw_object(mut f: impl FnMut(usize)) {
    let _ = ARENA.try_with(|a| {
        for &r in a.borrow().raw.iter() {
            // SAFETY: records on the raw stack are arena records of this
            // thread, which live as long as the arena.
            f(unsafe { (*r).object() });
        }
    });
}

/// The raw API's `exit(obj)`: takes the most recent record for the object at
/// `obj` off the record stack.
pub(crate) fn take_raw(obj: usize) -> Option<*const LockRecord> {
    with_arena(|a| {
        // SAFETY: records on the raw stack are arena records of this thread.
        let i = a.raw.iter().rposition(|&r| unsafe { (*r).object() } == obj)?;
        Some(a.raw.remove(i))
    })
}

/// The raw API's `exit(obj)` when the record stack has no record for `obj`:
/// a record of this thread's live guards that locks it (one not holding
/// the displaced header if there is one, so that no inflation is needed).
/// It stays out of the free list: its guard frees it when dropped.
pub(crate) fn take_guard_level(obj: usize) -> Option<*const LockRecord> {
    with_arena(|a| {
        let mut found = None;
        for r in a
            .chunks
            .iter()
            .flat_map(|c| c.iter())
            .filter(|r| r.object() == obj)
        {
            found = Some(r as *const LockRecord);
            if matches!(r.displaced(), RECURSIVE | UNUSED_MARK) {
                break;
            }
        }
        found
    })
}

/// A recursive record of this thread was nested under `owner`, the record
/// holding the object's displaced header. Out of line: a recursive enter's
/// cost, kept off the inlined enter.
#[inline(never)]
pub(crate) fn add_nested(owner: &LockRecord) {
    let (addr, obj) = (owner.addr(), owner.object());
    // Not flagged yet: nothing counted (no entry has a count then).
    debug_assert!(owner.has_nested() || with_arena(|a| a.nested.find(addr, obj).is_none()));
    owner.set_has_nested(true);
    with_arena(|a| {
        // `top` with a count of 0 is a cache of the last owner: counting
        // from 0 again for the same owner needs no new entry.
        if a.nested.top.0 == addr && a.nested.top.1 == obj {
            a.nested.top.2 += 1;
        } else {
            a.nested.add_not_top(addr, obj);
        }
    });
}

/// A recursive record of the object at `obj` exits while the object is
/// stack-locked by the record at `owner`: one level fewer nested under it.
/// `false` (nothing changed) if this thread counts none there, which is
/// also how a record that is not this thread's is told apart (see
/// [`NestedCounts`]).
pub(crate) fn remove_nested_under(owner: usize, obj: usize) -> bool {
    with_arena(|a| {
        let e = if a.nested.top_is(owner, obj) {
            &mut a.nested.top
        } else if let Some(e) = a.nested.find(owner, obj) {
            e
        } else {
            return false;
        };
        e.2 -= 1;
        if e.2 == 0 {
            a.nested.forget(owner, obj);
            // SAFETY: the count says the record is this thread's and holds
            // the lock (see `NestedCounts`), so it is alive and only this
            // thread writes its `obj` word.
            unsafe { &*(owner as *const LockRecord) }.set_has_nested(false);
        }
        true
    })
}

/// Every level nested under `owner`, taken off the count (it moves into a
/// monitor's recursions).
pub(crate) fn take_nested(owner: &LockRecord) -> usize {
    if !owner.has_nested() {
        return 0;
    }
    let (addr, obj) = (owner.addr(), owner.object());
    owner.set_has_nested(false);
    with_arena(|a| {
        let n = a.nested.find(addr, obj).map_or(0, |e| e.2);
        a.nested.forget(addr, obj);
        n
    })
}

/// [`take_nested`] of this thread's record at `addr`, which holds an
/// object's displaced header (the owner a monitor names: see
/// [`super::inflate::claim_from_record`]).
pub(crate) fn take_nested_under(addr: usize) -> usize {
    // SAFETY: the caller checked `owns_record(addr)`, and a record named as
    // a monitor's owner holds its lock, so it is alive (a record is never
    // dropped in use) and only this thread writes it.
    take_nested(unsafe { &*(addr as *const LockRecord) })
}

/// How many recursive records are nested under `owner` (tests).
/// Whether `mark` is a stack-lock by one of the current thread's records
/// (legacy stack-locking; any mode may hold one through a caller's record).
#[inline]
pub(crate) fn is_mine(mark: Mark) -> bool {
    mark.is_stack_locked() && owns_record(mark.record())
}

#[cfg(all(test, not(loom)))]
pub(crate) fn nested_count(owner: &LockRecord) -> usize {
    if !owner.has_nested() {
        return 0;
    }
    with_arena(|a| a.nested.find(owner.addr(), owner.object()).map_or(0, |e| e.2))
}

/// Whether this thread holds locks through raw-API records.
pub(crate) fn raw_is_empty() -> bool {
    with_arena(|a| a.raw.is_empty())
}

/// Whether the record at `addr` belongs to the current thread (HotSpot
/// `is_lock_owned`): on its stack or in its arena. Never dereferences it.
#[inline]
pub(crate) fn owns_record(addr: usize) -> bool {
    on_my_stack(addr)
        || with_arena(|a| a.chunks.iter().any(|c| chunk_contains(c, addr)) || a.off_stack.contains(&addr))
}

/// A caller's record (from [`super::enter_with_record`]) is about to hold a
/// lock for this thread: list it if the address test would not find it.
#[inline]
pub(crate) fn note_caller_record_in_use(addr: usize) {
    if !on_my_stack(addr) {
        with_arena(|a| a.off_stack.push(addr));
    }
}

/// A caller's record went idle (its `exit_with_record` succeeded).
#[inline]
pub(crate) fn note_caller_record_idle(addr: usize) {
    if !on_my_stack(addr) {
        with_arena(|a| {
            if let Some(i) = a.off_stack.iter().rposition(|&r| r == addr) {
                a.off_stack.swap_remove(i);
            }
        });
    }
}

fn chunk_contains(c: &Chunk, addr: usize) -> bool {
    let lo = c.as_ptr() as usize;
    (lo..lo + core::mem::size_of::<Chunk>()).contains(&addr)
}

/// Whether `addr` lies on the current thread's stack.
#[cfg(not(loom))]
#[inline]
fn on_my_stack(addr: usize) -> bool {
    // The JIT's test first: a record within a page above this frame is in a
    // caller's frame on this stack.
    let here = &addr as *const usize as usize;
    if addr.wrapping_sub(here) < 4096 {
        return true;
    }
    let (lo, hi) = stack_bounds();
    (lo..hi).contains(&addr)
}

/// loom runs model threads on stacks of its own: models lock through arena
/// records only.
#[cfg(loom)]
fn on_my_stack(_addr: usize) -> bool {
    false
}

/// This thread's stack, `[lo, hi)`, asked of the C library once per thread.
#[cfg(not(loom))]
fn stack_bounds() -> (usize, usize) {
    std::thread_local! {
        static BOUNDS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    }
    let cached = BOUNDS.try_with(|b| b.get()).unwrap_or((0, 0));
    if cached.1 != 0 {
        return cached;
    }
    let bounds = query_stack_bounds();
    let _ = BOUNDS.try_with(|b| b.set(bounds));
    bounds
}

#[cfg(not(loom))]
fn query_stack_bounds() -> (usize, usize) {
    // SAFETY: `attr` is initialised by pthread_getattr_np before it is read
    // and destroyed once; the out-pointers are valid locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = core::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return (0, 0);
        }
        let mut base: *mut libc::c_void = core::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut base, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        if ok {
            (base as usize, base as usize + size)
        } else {
            (0, 0)
        }
    }
}

/// Every arena record of this thread that holds a lock (thread exit).
pub(crate) fn in_use() -> Vec<*const LockRecord> {
    with_arena(|a| {
        a.chunks
            .iter()
            .flat_map(|c| c.iter())
            .filter(|r| r.is_in_use())
            .map(|r| r as *const LockRecord)
            .collect()
    })
}

/// The object at `obj` is being dropped: every arena record locking it goes
/// idle (and back on the free list), so nothing touches the dead header
/// later. A forgotten guard's record is the usual case.
pub(crate) fn retire_for(obj: usize) {
    // Counts of levels nested under the object's owner record (which may be
    // the caller's, retired by `lifecycle`).
    with_arena(|a| {
        if a.nested.top.1 == obj {
            a.nested.top.2 = 0;
        }
        a.nested.rest.retain(|e| e.1 != obj);
    });
    // Most threads never stack-lock: no arena, nothing to scan or collect.
    if with_arena(|a| a.chunks.is_empty()) {
        return;
    }
    let retired: Vec<*const LockRecord> = with_arena(|a| {
        a.raw.retain(|&r| {
            // SAFETY: records on the raw stack are arena records of this
            // thread.
            unsafe { (*r).object() != obj }
        });
        a.chunks
            .iter()
            .flat_map(|c| c.iter())
            .filter(|r| r.object() == obj)
            .map(|r| {
                r.set_object(0);
                r as *const LockRecord
            })
            .collect()
    });
    for r in retired {
        free(r);
    }
}

/// Thread exit, after the release (every record idle): the raw stack's
/// records go back on the free list, and the arena is freed if every record
/// is back. A guard still alive past the release (in a later thread-local
/// destructor) keeps its record, and with it the arena, leaked.
pub(crate) fn free_arena_at_exit() {
    with_arena(|a| {
        let raw = core::mem::take(&mut a.raw);
        a.free.extend(raw);
        a.nested = NestedCounts::new();
        if a.free.len() == a.chunks.len() * CHUNK {
            a.free = Vec::new();
            a.chunks = Vec::new();
        }
    });
}

/// A pinned reference to an arena record (which never moves).
pub(crate) fn pinned(rec: *const LockRecord) -> Pin<&'static LockRecord> {
    // SAFETY: arena records live in boxed chunks that are freed only when
    // no record is in use at thread exit, and never move; callers use the
    // reference only while the record is theirs.
    unsafe { Pin::new_unchecked(&*rec) }
}

//! The monitor registry: who owns every installed monitor's memory, and
//! so who may free it.
//!
//! Where it sits: [`super::inflate`] registers each monitor it installs;
//! a header's `Drop` (`lifecycle.rs`), a deflation pass (`deflate.rs`) and
//! thread exit (`lifecycle.rs`) take monitors out of it to free them.
//!
//! Every installed monitor is in the registry until it is freed: by its
//! header's `Drop` (when no thread can be inside a call on that object; see
//! `lifecycle.rs`), or by a deflation pass (`deflate.rs`: under the
//! registry lock it deflates idle monitors and puts their displaced headers
//! back, then frees them after a grace period, `thread/critical.rs`). A monitor
//! still *owned by another thread* when its object is dropped (only
//! possible after leaking a guard) stays in the registry with its object
//! forgotten: that thread's exit releases it, and a later deflation pass
//! frees it. Every slow path reloads the header and loops, so a monitor
//! deflated under it is simply retried.
//!
//! ## Young monitors
//!
//! The registry is a lock and two places: a set of addresses
//! ([`MonitorSet`]), and one *young slot* per thread. Invariant: every
//! installed, unfreed monitor is in exactly one of them. A new monitor goes
//! into its installer's slot (a plain store into an empty slot: only the
//! slot's thread ever fills it), and the one that was young there moves
//! into the set under the lock. Monitor churn (HotSpot's single-use
//! `StringBuffer` locks, in monitor mode) then never takes the lock: its
//! header drop finds the monitor in its own slot, unowned, and takes it out
//! with one CAS (`free_young_on_drop`). Before, each object took the
//! process-wide lock twice (insert, remove), a third of the operation
//! (the benchmarks notebook, `docs/benchmarks-log-2026.md`, "Locking, sync-churn"). HotSpot once kept per-thread
//! monitor lists too (`omInUseList`, until JDK 15), walked at safepoints;
//! this library has no safepoints, so the others *steal*:
//! - Under the lock, a slot is emptied only by a CAS (`steal`), and its
//!   thread's own CAS (the drop) competes with it: exactly one wins, so a
//!   monitor is freed once and never while the other side uses it.
//! - The deflater and thread exit adopt every young monitor into the set
//!   first ([`registry_all`]): a pass deflates idle young monitors like any
//!   other, and an exiting thread releases monitors it owns wherever they
//!   were young. A drop that then finds its slot empty takes the lock.
//! - A header dropped on another thread than its monitor's installer: the
//!   drop takes the lock and steals that monitor from its slot ([`Registry::adopt`]).
//! - The owner check before the drop's CAS cannot be fooled by a thread
//!   exit releasing the monitor meanwhile: the exit steals first, so if
//!   the drop's CAS (Release) won, the exit's failed steal (Acquire) came
//!   after it, and so did its release.
//! - The drop reads the slot inside a critical section (`thread/critical.rs`), so
//!   a pass that steals and deflates the monitor at that moment waits for
//!   it before freeing.
//!
//! Loom models: `loom_churn.rs`. Young monitors are invisible only to
//! [`Registry::iter`] (the set), which nobody walks without adopting first.

use std::sync::Arc;

use super::atomic::{fence, AtomicUsize, Ordering};
use super::monitor::{Monitor, NO_OWNER};
use super::stats;

/// The registry's contents: the address of every installed monitor, in an
/// open-addressing table (linear probing, Fibonacci hashing, deletion by
/// backward shift: Knuth, TAOCP vol. 3, 6.4, Algorithm R).
///
/// Why not a `HashSet`: monitor churn inserts and removes one key per
/// object, under the registry lock. std's SipHash cost a quarter of a churn
/// operation's instructions, and hashbrown with a one-multiply hasher still
/// spent about 130 instructions per insert + remove on its group probing and
/// duplicate checks; this table, kept at most half full, usually finds the
/// slot at the first probe (the benchmarks notebook, "Locking, sync-churn"). Keys are
/// heap addresses, never 0, which marks an empty slot.
pub(crate) struct MonitorSet {
    slots: Vec<usize>,
    len: usize,
    /// `64 − log2(capacity)`: the hash's top bits index the table.
    shift: u32,
}

/// 2^64 / φ, odd: multiplying spreads an address's low bits (where
/// monitors differ) into the product's top bits (Knuth's multiplicative
/// hashing).
const FIBONACCI: u64 = 0x9e37_79b9_7f4a_7c15;

/// The smallest table (a power of two).
const MIN_CAPACITY: usize = 16;

impl MonitorSet {
    /// An empty set (no allocation).
    pub(crate) const fn new() -> MonitorSet {
        MonitorSet {
            slots: Vec::new(),
            len: 0,
            shift: 64,
        }
    }

    /// Monitors in the set.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The key's home slot.
    #[inline]
    fn home(&self, key: usize) -> usize {
        ((key as u64).wrapping_mul(FIBONACCI) >> self.shift) as usize
    }

    /// Adds `key` (not 0, not present: a monitor is registered once).
    #[inline]
    pub(crate) fn insert(&mut self, key: usize) {
        debug_assert!(key != 0 && !self.contains(key));
        if (self.len + 1) * 2 > self.slots.len() {
            self.resize((self.len + 1) * 2);
        }
        let mut i = self.home(key);
        while self.slots[i] != 0 {
            i = (i + 1) & self.mask();
        }
        self.slots[i] = key;
        self.len += 1;
    }

    /// The slot holding `key`, if any.
    #[inline]
    fn find(&self, key: usize) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let mut i = self.home(key);
        loop {
            match self.slots[i] {
                0 => return None,
                k if k == key => return Some(i),
                _ => i = (i + 1) & self.mask(),
            }
        }
    }

    /// Whether `key` is in the set.
    pub(crate) fn contains(&self, key: usize) -> bool {
        self.find(key).is_some()
    }

    /// Removes `key`; whether it was there. Backward shift: every key after
    /// the hole in its probe run that may move back (its home is not in
    /// the cyclic range `(hole, its slot]`) fills the hole, so no
    /// tombstones are needed and probes stay short.
    #[inline]
    pub(crate) fn remove(&mut self, key: usize) -> bool {
        let Some(mut hole) = self.find(key) else {
            return false;
        };
        let mask = self.mask();
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let k = self.slots[j];
            if k == 0 {
                break;
            }
            // Cyclic distances from the hole: `k` may fill it unless its
            // home lies in (hole, j], past the hole.
            let home_dist = self.home(k).wrapping_sub(hole) & mask;
            let slot_dist = j.wrapping_sub(hole) & mask;
            if home_dist == 0 || home_dist > slot_dist {
                self.slots[hole] = k;
                hole = j;
            }
        }
        self.slots[hole] = 0;
        self.len -= 1;
        true
    }

    /// Every key, in table order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.slots.iter().copied().filter(|&k| k != 0)
    }

    /// Keeps the keys `keep` accepts (a deflation pass: rare, and a walk of
    /// the whole table anyway), then fits the table to what is left.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let old = core::mem::take(&mut self.slots);
        let kept: Vec<usize> = old.into_iter().filter(|&k| k != 0 && keep(k)).collect();
        self.len = 0;
        self.shift = 64;
        self.resize(kept.len() * 2);
        for k in kept {
            self.insert(k);
        }
    }

    /// Rebuilds the table with room for at least `min` slots (a power of
    /// two, at least `MIN_CAPACITY`).
    fn resize(&mut self, min: usize) {
        let cap = min.max(MIN_CAPACITY).next_power_of_two();
        let old = core::mem::replace(&mut self.slots, vec![0; cap]);
        self.shift = 64 - cap.trailing_zeros();
        self.len = 0;
        for k in old.into_iter().filter(|&k| k != 0) {
            let mut i = self.home(k);
            while self.slots[i] != 0 {
                i = (i + 1) & self.mask();
            }
            self.slots[i] = k;
            self.len += 1;
        }
    }
}

/// The registry: every installed monitor is in exactly one of two places,
/// `set`, or the young slot of the thread that installed it (module docs,
/// "Young monitors").
pub(crate) struct Registry {
    set: MonitorSet,
    /// Every thread's young slot (a thread's own `YOUNG` holds the other
    /// reference; a slot whose thread is gone is emptied and dropped by the
    /// next [`Registry::adopt_all_young`]).
    young: Vec<Arc<AtomicUsize>>,
}

impl Registry {
    const fn new() -> Registry {
        Registry {
            set: MonitorSet::new(),
            young: Vec::new(),
        }
    }

    /// Monitors installed and not freed, young ones included.
    pub(crate) fn len(&self) -> usize {
        // Relaxed: a count for triggers and tests; exact once the threads
        // that churn monitors are quiet.
        self.set.len()
            + self
                .young
                .iter()
                .filter(|s| s.load(Ordering::Relaxed) != 0)
                .count()
    }

    /// The registered (not young) monitors' addresses.
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.set.iter()
    }

    /// Keeps the registered monitors `keep` accepts (see [`MonitorSet::retain`]).
    pub(crate) fn retain(&mut self, keep: impl FnMut(usize) -> bool) {
        self.set.retain(keep);
    }

    /// Removes a registered monitor (header drop, under this lock).
    pub(crate) fn remove(&mut self, m: *const Monitor) {
        self.set.remove(m as usize);
    }

    /// Moves every young monitor into `set`, so the lock holder sees them
    /// all and their owners' lock-free drop paths fail (they come here and
    /// wait for the lock). The deflater and thread exit call this before
    /// they walk or release monitors; it also forgets the slots of threads
    /// that have exited.
    pub(crate) fn adopt_all_young(&mut self) {
        let set = &mut self.set;
        self.young.retain(|slot| {
            // Whether the slot's thread is gone is read *before* the slot
            // is emptied: a thread may fill its slot (lock-free, once it is
            // empty) and exit while this walk is between the two, so a slot
            // seen live when stolen from may be dead with a monitor in it
            // by the end of the walk. A slot is forgotten only when its
            // thread was gone before the steal: its last fill came before
            // it dropped its `Young`, so the steal below takes that fill.
            // Only this list then holds the slot, and nobody fills it again.
            let gone = Arc::strong_count(slot) == 1;
            let m = if gone {
                // Acquire: pairs with the Release decrement of the `Arc`'s
                // count by the thread's `Young` drop, which came after its
                // last fill of the slot. The swap (an RMW, where `steal`
                // loads first) reads that fill even in a model checker that
                // does not see the `Arc`'s count synchronize (loom).
                fence(Ordering::Acquire);
                // AcqRel: as `steal`'s CAS.
                Some(slot.swap(0, Ordering::AcqRel)).filter(|&m| m != 0)
            } else {
                steal(slot, None)
            };
            if let Some(m) = m {
                set.insert(m);
            }
            !gone
        });
    }

    /// Makes sure `m` (installed in a header the caller is dropping) is in
    /// `set`: it is there already, or young in some thread's slot, which
    /// gives it up.
    pub(crate) fn adopt(&mut self, m: *const Monitor) {
        if self.set.contains(m as usize) {
            return;
        }
        let stolen = self.young.iter().find_map(|slot| steal(slot, Some(m as usize)));
        debug_assert!(stolen.is_some(), "an installed monitor is registered or young");
        if let Some(m) = stolen {
            self.set.insert(m);
        }
    }
}

/// Empties `slot` if it holds a monitor (`only`: if it holds that one) and
/// returns it. Under the registry lock, so the only other writer is the
/// slot's thread: its lock-free drop (monitor → 0) and its lock-free fill
/// (0 → monitor); a failed CAS is one of those, and the loop settles.
fn steal(slot: &AtomicUsize, only: Option<usize>) -> Option<usize> {
    // Acquire (load and both CAS orderings): a monitor taken here is
    // dereferenced next, so its fields must be visible (its thread stored
    // it with Release after installing it); and a failed CAS that reads
    // the thread's drop (monitor → 0, Release) orders that thread's owner
    // check before whatever the caller does next (`free_young_on_drop`).
    let mut m = slot.load(Ordering::Acquire);
    loop {
        if m == 0 || only.is_some_and(|o| o != m) {
            return None;
        }
        match slot.compare_exchange(m, 0, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Some(m),
            Err(now) => m = now,
        }
    }
}

/// This thread's young slot: the monitor it installed last, not yet in
/// the registry's set; 0 if none. Only this thread stores a monitor into
/// it; others only empty it, under the registry lock.
struct Young(Arc<AtomicUsize>);

impl Young {
    fn registered() -> Young {
        let slot = Arc::new(AtomicUsize::new(0));
        registry().young.push(slot.clone());
        Young(slot)
    }
}

#[cfg(not(loom))]
std::thread_local! {
    static YOUNG: Young = Young::registered();
}

#[cfg(loom)]
loom::thread_local! {
    static YOUNG: Young = Young::registered();
}

#[cfg(not(loom))]
static REGISTRY: std::sync::Mutex<Registry> = std::sync::Mutex::new(Registry::new());

// Under loom the registry is a model-checked mutex: thread exit holds it
// while it releases monitors (loom scheduling points), which a std mutex
// would turn into a real deadlock of the single OS thread loom runs on.
#[cfg(loom)]
loom::lazy_static! {
    static ref REGISTRY: loom::sync::Mutex<Registry> = loom::sync::Mutex::new(Registry::new());
}

/// The registry, locked. Held by whoever may free a monitor it reached
/// through a header (header `Drop`'s slow path) or touches monitors it did
/// not reach through a borrowed header (thread exit, deflation), so that
/// none frees a monitor under another.
pub(crate) fn registry() -> impl core::ops::DerefMut<Target = Registry> {
    // A poisoned lock only means a panic elsewhere while it was held; the
    // set itself is always consistent (single insert/remove operations).
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// The registry, locked, with every young monitor adopted
/// ([`Registry::adopt_all_young`]): for the deflater and thread exit.
pub(crate) fn registry_all() -> impl core::ops::DerefMut<Target = Registry> {
    let mut reg = registry();
    reg.adopt_all_young();
    reg
}

/// A monitor was just installed: it becomes this thread's young monitor,
/// and the one that was young before (if any) moves into the set.
pub(crate) fn register(m: *const Monitor) {
    let young = YOUNG.try_with(|y| {
        // Relaxed: only this thread makes its slot non-empty, so a 0 read
        // here stays 0 until our store (others only empty it); a stale
        // non-zero read just takes the locked path.
        if y.0.load(Ordering::Relaxed) == 0 {
            // Release: a thread that steals it reads its fields.
            y.0.store(m as usize, Ordering::Release);
            return;
        }
        let mut reg = registry();
        // Relaxed: under the lock nobody else writes our slot.
        let older = y.0.load(Ordering::Relaxed);
        // Release: as above.
        y.0.store(m as usize, Ordering::Release);
        if older != 0 {
            reg.set.insert(older);
        }
    });
    if young.is_err() {
        // This thread's thread-locals are being destroyed.
        registry().set.insert(m as usize);
    }
}

/// Header `Drop`'s lock-free path: `m`, installed in the header being
/// dropped, is this thread's young monitor and nobody owns it. Takes it out
/// of the slot and frees it; `false` (nothing done) in every other case,
/// which the caller handles under the registry lock.
///
/// Why no lock is needed: `&mut Header` keeps every thread out of calls on
/// this object; the deflater and thread exit see a young monitor only by
/// stealing it from the slot (under the lock) first, and the CAS below
/// fails if they did. The owner check happens before the CAS, and a thread
/// exit that releases `m` steals it first: if our CAS wins, its steal
/// fails after reading our Release, so the owner we read was not its
/// release's NO_OWNER (it owned `m`, and we would not have reached the
/// CAS). The critical section keeps `m` allocated while we look at it even
/// if a deflater steals it meanwhile (loom found the version that read the
/// slot before entering it: a pass could steal, deflate and free `m` in
/// between).
pub(crate) fn free_young_on_drop(m: *const Monitor) -> bool {
    let taken = YOUNG.try_with(|y| {
        // The slot is read inside the critical section: a deflater that
        // steals `m` after this read waits for us before freeing it; one
        // that stole it before, we see (its CAS and our entry are ordered
        // by the reclamation barriers, `thread/critical.rs`).
        super::thread::with_current(|_| {
            // Relaxed: ordered by the barrier above; a stale `m` only sends
            // us to the CAS, which decides.
            if y.0.load(Ordering::Relaxed) != m as usize {
                return false;
            }
            // SAFETY: `m` was in our slot inside this critical section: only
            // a deflation pass can free it now (after stealing it), and it
            // waits for us to leave.
            let owner = unsafe { (*m).owner() };
            // Release: see the function's docs (pairs with `steal`).
            owner == NO_OWNER
                && y.0
                    .compare_exchange(m as usize, 0, Ordering::Release, Ordering::Relaxed)
                    .is_ok()
        })
    });
    if !taken.unwrap_or(false) {
        return false;
    }
    // SAFETY: allocated by `install`, out of the header (being dropped) and
    // of every registry place: nobody else can reach it.
    drop(unsafe { Box::from_raw(m as *mut Monitor) });
    stats::count_monitor_freed();
    true
}

/// The header addresses in `[lo, hi)` of the objects of every installed
/// monitor (the caller's memory: a heap region), or `None` if more than
/// `limit` monitors are installed (the caller then finds them another
/// way). For a collector freeing a region: a dead object there whose
/// header names a monitor must have its header dropped (which frees the
/// monitor), and only such objects need it, so the registry's list
/// replaces a read of every object in the region while the list is short
/// against the region. Under the registry lock
/// with every young monitor adopted, so the list is every installed
/// monitor's. A monitor its owner deflated on exit waits here for the next
/// pass with its header restored and its `object` stale (the object may be
/// gone and its memory reused): skipped, as is any monitor whose header
/// word, read in `[lo, hi)`, does not name it.
#[cfg(not(loom))]
pub(crate) fn monitored_headers_in(lo: usize, hi: usize, limit: usize) -> Option<Vec<usize>> {
    let reg = registry_all();
    if reg.len() > limit {
        return None;
    }
    // SAFETY: registered monitors stay allocated until they leave the
    // registry, which takes the lock held here; `[lo, hi)` is the caller's.
    Some(unsafe { headers_naming(reg.iter(), lo, hi) })
}

/// [`monitored_headers_in`]'s filter over the monitors at `monitors`.
///
/// # Safety
/// Every address in `monitors` is an allocated [`Monitor`] for the whole
/// call, and `[lo, hi)` is mapped memory whose words may be read
/// atomically.
#[cfg(not(loom))]
unsafe fn headers_naming(monitors: impl Iterator<Item = usize>, lo: usize, hi: usize) -> Vec<usize> {
    use super::header::{Header, Mark};
    monitors
        .filter_map(|m| {
            // SAFETY: the contract: `m` is an allocated monitor.
            let monitor = unsafe { &*(m as *const Monitor) };
            if monitor.is_deflated_by_owner() {
                return None;
            }
            let obj = monitor.object();
            if !(lo..hi).contains(&obj) || obj % core::mem::align_of::<Header>() != 0 {
                return None;
            }
            // SAFETY: `obj` is an aligned word of `[lo, hi)`, readable (the
            // contract), and a header's word is an atomic: reading it is
            // sound whatever the object's state.
            let word = Mark(unsafe { &*(obj as *const Header) }.raw());
            (word.has_monitor() && word.monitor() == m as *const Monitor).then_some(obj)
        })
        .collect()
}

/// Number of monitors installed and not freed (for tests and the lab).
pub fn live_monitors() -> usize {
    registry().len()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::MonitorSet;
    use std::collections::HashSet;

    /// A collector freeing a region asks for the monitored headers in it:
    /// a monitor whose object's header names it is one; one its owner
    /// deflated (the header restored, the object possibly gone and its
    /// memory reused, here a word that reads as fast-locked) is not, nor is
    /// one whose header word no longer names it, nor one whose object lies
    /// outside the range. Monitors made by hand, never registered.
    #[test]
    fn headers_naming_skips_owner_deflated_and_stale_monitors() {
        use super::super::header::{Mark, MONITOR, NEUTRAL};
        use super::super::monitor::Monitor;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let words: Vec<AtomicUsize> = (0..8).map(|_| AtomicUsize::new(NEUTRAL)).collect();
        let (lo, hi) = (words.as_ptr() as usize, words.as_ptr() as usize + 8 * words.len());
        let at = |i: usize| lo + 8 * i;
        let outside = 0x1000; // an aligned address outside the range
        let monitors: Vec<*mut Monitor> = [at(1), at(3), at(5), outside]
            .into_iter()
            .map(|obj| Box::into_raw(Monitor::new(Mark(NEUTRAL), super::NO_OWNER, obj)))
            .collect();
        for (i, &m) in monitors.iter().take(3).enumerate() {
            words[1 + 2 * i].store(m as usize | MONITOR, Ordering::Relaxed);
        }
        let addresses = || monitors.iter().map(|&m| m as usize);
        // SAFETY: the monitors are boxes alive until the end of the test;
        // `words` is this test's, alive too.
        let found = || unsafe { super::headers_naming(addresses(), lo, hi) };
        assert_eq!(found(), vec![at(1), at(3), at(5)]);

        // SAFETY: a live box.
        unsafe { &*monitors[0] }.set_deflated_by_owner();
        words[1].store(0, Ordering::Relaxed); // reused: reads as fast-locked
        assert_eq!(found(), vec![at(3), at(5)]);
        words[3].store(0, Ordering::Relaxed); // names no monitor any more
        words[5].store(monitors[1] as usize | MONITOR, Ordering::Relaxed); // another's
        assert!(found().is_empty());
        for m in monitors {
            // SAFETY: from `Box::into_raw` above, used by nothing else.
            drop(unsafe { Box::from_raw(m) });
        }
    }

    /// The table against std's set, through random inserts, removals and
    /// lookups of keys crowded into a few slots (aligned addresses from a
    /// small range, so probe runs are long and wrap around the table's end),
    /// through growth and through `retain`.
    #[test]
    fn monitor_set_matches_a_hash_set() {
        let mut set = MonitorSet::new();
        let mut model = HashSet::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            // xorshift64*: deterministic, so a failure reproduces.
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let mut checked = 0u64;
        for round in 0..20_000u64 {
            let key = 0x7f00_0000_0000 + ((next() % 96) as usize) * 16;
            match next() % 3 {
                0 if !model.contains(&key) => {
                    set.insert(key);
                    model.insert(key);
                }
                1 => assert_eq!(set.remove(key), model.remove(&key), "remove {key:#x}"),
                _ => assert_eq!(set.contains(key), model.contains(&key), "contains {key:#x}"),
            }
            assert_eq!(set.len(), model.len());
            if round % 1000 == 999 {
                set.retain(|k| k % 32 == 0);
                model.retain(|k| k % 32 == 0);
            }
            let mut listed: Vec<usize> = set.iter().collect();
            listed.sort_unstable();
            let mut expected: Vec<usize> = model.iter().copied().collect();
            expected.sort_unstable();
            assert_eq!(listed, expected);
            checked += 1;
        }
        println!("monitor set: {checked} operations checked against HashSet");
        assert!(set.slots.len() >= 2 * set.len(), "kept at most half full");
    }
}

//! The heap's read-ahead: the pages of the regions the mutators are about
//! to take, faulted in by a thread of their own before a mutator writes
//! them.
//!
//! Where it sits: beside the free list (`space.rs`) and the soft capacity
//! (`capacity.rs`). A region's pages cost their first write: the kernel's
//! fault, a zeroed page and, in a virtual machine, the host's own fault
//! (0.54–0.72 ns a byte on the guests of BENCHMARKS.md, against 0.03 ns to
//! write memory already touched). A mutator that allocates into fresh
//! regions pays that inside its own time: Sieve's first iterations after
//! compilation ran 10.5 ms against its 8.8 ms peak until its first
//! collection had it reuse memory, 2 ms an iteration of faults. HotSpot's
//! answer is `AlwaysPreTouch`, every page at start-up, off by default for
//! its cost in start-up time and memory; this one touches only what the
//! mutators are about to use, on another CPU, after they have shown they
//! allocate.
//!
//! Which regions: refills take the lowest free region first (the free list
//! is kept in descending order), so the memory mutators have touched is
//! about the regions below the highest one taken so far, the high-water
//! mark. The read-ahead keeps the regions from there up to `ahead` regions
//! past it faulted in, never past the soft capacity (whose regions the
//! mutators can reach; in passive mode they stop there), and follows the
//! capacity when a collection grows it. Nothing runs until the mutators
//! take their second region: a program that allocates less than one region
//! costs no thread and no memory.
//!
//! How: `madvise(MADV_POPULATE_WRITE)` (Linux 5.14), which faults pages in
//! writable without writing them, so a page a mutator writes meanwhile
//! keeps what it wrote, and a page already present costs a page-table
//! walk. A region is populated in pieces of at most [`PIECE_BYTES`], the
//! stop flag tested between them. Where the system refuses the advice
//! (an older kernel, another system), or accepts it and faults nothing in
//! (qemu-user ignores `madvise`: the first region's first page is checked
//! with `mincore`), the read-ahead stops for good: nothing depends on it
//! but the time of the first writes.
//!
//! Invariants:
//! - the thread touches only `[base, base + regions * region_bytes)`, the
//!   heap's mapping;
//! - once [`ReadAhead::stop`] returns, the thread has ended (joined):
//!   `Space`'s drop calls it before unmapping the block;
//! - `done <= target <= regions` (the state's), and `done` only grows.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// The largest piece populated between two looks at the stop flag.
pub(crate) const PIECE_BYTES: usize = 64 << 10;

/// The thread's name.
pub(crate) const THREAD_NAME: &str = "fastpath-gc read-ahead";

/// What the mutators' side asks for and the thread has done.
#[derive(Debug, Default)]
struct State {
    /// Regions `[0, target)` should be faulted in.
    target: usize,
    /// Regions `[0, done)` have been (or were below the high-water mark
    /// when the read-ahead began).
    done: usize,
    /// The heap is going away, or the kernel refused the advice.
    stop: bool,
}

/// What the thread and the heap share.
#[derive(Debug)]
struct Shared {
    base: usize,
    region_bytes: usize,
    state: Mutex<State>,
    wake: Condvar,
    /// Regions populated by the thread (a statistic).
    populated: AtomicUsize,
    /// The system refused the advice, or took it and left the first
    /// region's pages out (a statistic, and why the thread stopped).
    refused: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics under this lock.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The read-ahead of one heap ([`Space`](super::space::Space)'s).
#[derive(Debug)]
pub(crate) struct ReadAhead {
    /// Regions kept faulted in past the high-water mark (0: off).
    ahead: usize,
    /// The heap's regions.
    regions: usize,
    /// One past the highest region taken, ever: written under the
    /// allocation lock.
    high_water: AtomicUsize,
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl ReadAhead {
    /// A read-ahead of `ahead` regions for the heap of `regions` regions of
    /// `region_bytes` at `base`; 0 turns it off.
    pub(crate) fn new(base: usize, region_bytes: usize, regions: usize, ahead: usize) -> ReadAhead {
        ReadAhead {
            ahead,
            regions,
            high_water: AtomicUsize::new(0),
            shared: Arc::new(Shared {
                base,
                region_bytes,
                state: Mutex::new(State::default()),
                wake: Condvar::new(),
                populated: AtomicUsize::new(0),
                refused: AtomicBool::new(false),
            }),
            thread: Mutex::new(None),
        }
    }

    /// A refill took region `r`, the capacity being `capacity` regions;
    /// under the allocation lock.
    #[inline]
    pub(crate) fn taken(&self, r: usize, capacity: usize) {
        if self.ahead == 0 {
            return;
        }
        // Relaxed: written and read under the allocation lock only.
        if r < self.high_water.load(Ordering::Relaxed) {
            return;
        }
        self.high_water.store(r + 1, Ordering::Relaxed);
        self.follow(capacity);
    }

    /// The capacity is now `capacity` regions; under the allocation lock.
    pub(crate) fn capacity_set(&self, capacity: usize) {
        if self.ahead != 0 {
            self.follow(capacity);
        }
    }

    /// Moves the target to `ahead` past the high-water mark within
    /// `capacity`, and starts the thread the first time there is work.
    #[cold]
    fn follow(&self, capacity: usize) {
        // Relaxed: under the allocation lock, as in `taken`.
        let high = self.high_water.load(Ordering::Relaxed);
        if high < 2 {
            return;
        }
        let target = (high + self.ahead).min(capacity.max(high)).min(self.regions);
        let mut s = self.shared.lock();
        if s.stop || target <= s.target {
            return;
        }
        if s.target == 0 {
            // The first request: what the mutators touched is theirs.
            s.done = high.min(target);
        }
        s.target = target;
        drop(s);
        self.shared.wake.notify_one();
        let mut thread = self.thread.lock().unwrap_or_else(|e| e.into_inner());
        if thread.is_none() {
            let shared = Arc::clone(&self.shared);
            match std::thread::Builder::new()
                .name(THREAD_NAME.into())
                .spawn(move || run(&shared))
            {
                Ok(h) => *thread = Some(h),
                // No thread: the mutators fault their pages themselves.
                Err(_) => self.shared.lock().stop = true,
            }
        }
    }

    /// Stops the thread and waits for it: afterwards nothing touches the
    /// heap's memory on the read-ahead's behalf.
    pub(crate) fn stop(&self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_all();
        let handle = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = handle {
            let _ = h.join();
        }
    }

    /// Regions the thread has populated so far.
    pub(crate) fn populated(&self) -> usize {
        // Relaxed: a statistic.
        self.shared.populated.load(Ordering::Relaxed)
    }

    /// Whether the system refused or ignored the advice (the read-ahead
    /// stopped).
    pub(crate) fn refused(&self) -> bool {
        // Relaxed: a statistic.
        self.shared.refused.load(Ordering::Relaxed)
    }

    /// Regions `[0, n)` are faulted in or were below the high-water mark
    /// when the read-ahead began: `n` (tests).
    #[cfg(test)]
    pub(crate) fn done(&self) -> usize {
        self.shared.lock().done
    }

    /// The regions the read-ahead aims for (tests).
    #[cfg(test)]
    pub(crate) fn target(&self) -> usize {
        self.shared.lock().target
    }
}

/// Puts the calling thread in Linux's idle scheduling class
/// (`SCHED_IDLE`): it runs only on a CPU nothing else wants. The
/// read-ahead is work ahead of need; on a machine whose CPUs the mutators
/// and the collector keep busy it must not take one from them (at normal
/// priority, on 2 vCPUs, it delayed the concurrent collector's starts:
/// GcTrees at 64 MiB ran 12 degenerated cycles in 25 runs, none without
/// the read-ahead). Refused, the thread keeps its priority.
fn idle_priority() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `sched_setscheduler` reads `param`, a valid `sched_param`;
    // pid 0 is the calling thread.
    let _ = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
}

/// Whether the page at `addr` (page-aligned, in the heap's mapping) is
/// in memory.
fn resident(addr: usize) -> bool {
    let mut v = 0u8;
    // SAFETY: one page at `addr`, which the caller keeps mapped; `v`
    // receives the one byte `mincore` writes for it.
    let rc = unsafe { libc::mincore(addr as *mut libc::c_void, 1, &mut v) };
    rc == 0 && v & 1 != 0
}

/// The thread: populates the next region below the target, or waits.
/// After the first region it checks that the advice took (an emulator
/// such as qemu-user accepts it and does nothing): if not, it stops as
/// on a refusal.
fn run(shared: &Shared) {
    idle_priority();
    let first = shared.lock().done;
    loop {
        let r = {
            let mut s = shared.lock();
            while !s.stop && s.done >= s.target {
                s = shared.wake.wait(s).unwrap_or_else(|e| e.into_inner());
            }
            if s.stop {
                return;
            }
            s.done
        };
        let start = shared.base + r * shared.region_bytes;
        let mut at = start;
        while at < start + shared.region_bytes {
            // Between pieces: an uncontended lock, against a piece's
            // tens of microseconds of faults.
            if shared.lock().stop {
                return;
            }
            let len = PIECE_BYTES.min(start + shared.region_bytes - at);
            // SAFETY: `[at, at + len)` lies in region `r` of the heap's
            // mapping (`r < target <= regions`), which stays mapped until
            // `ReadAhead::stop` has joined this thread. The advice changes
            // no byte of it: it only faults its pages in, writable.
            let advised = unsafe {
                rustix::mm::madvise(
                    at as *mut std::ffi::c_void,
                    len,
                    rustix::mm::Advice::LinuxPopulateWrite,
                )
            };
            if advised.is_err() || (r == first && !resident(at)) {
                // Relaxed: a statistic; the lock below ends the thread.
                shared.refused.store(true, Ordering::Relaxed);
                shared.lock().stop = true;
                return;
            }
            at += len;
        }
        // Relaxed: a statistic.
        shared.populated.fetch_add(1, Ordering::Relaxed);
        let mut s = shared.lock();
        s.done = s.done.max(r + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gc::heap::space::{Pool, Space};
    use std::time::{Duration, Instant};

    /// Pages of `[start, start + len)` the kernel holds in memory.
    fn resident_pages(start: usize, len: usize) -> usize {
        let page = rustix::param::page_size();
        let mut vec = vec![0u8; len.div_ceil(page)];
        // SAFETY: `[start, start + len)` is mapped (a region of the test's
        // heap, page-aligned) and `vec` has one byte per page of it.
        let rc = unsafe { libc::mincore(start as *mut libc::c_void, len, vec.as_mut_ptr()) };
        assert_eq!(rc, 0, "mincore: {}", std::io::Error::last_os_error());
        vec.iter().filter(|&&b| b & 1 != 0).count()
    }

    /// A space of 128 regions of 64 KiB with a read-ahead of `ahead`
    /// regions and a soft capacity of `capacity`.
    fn space(ahead: usize, capacity: usize) -> Space {
        let mut s = Space::small_for_test();
        s.read_ahead = ReadAhead::new(s.base, s.region_bytes, s.regions.len(), ahead);
        s.set_capacity(&mut s.lock_alloc(), capacity);
        s
    }

    /// Waits (5 s at most) until the read-ahead has done what it aims for,
    /// or stopped.
    fn settle(s: &Space) -> usize {
        let deadline = Instant::now() + Duration::from_secs(5);
        while s.read_ahead.done() < s.read_ahead.target()
            && !s.read_ahead.refused()
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        s.read_ahead.done()
    }

    /// Whether the system faults pages in on the advice: on x86-64 (the
    /// tests' native machines, Linux 5.14 or later) it must; the aarch64
    /// tests run under qemu-user, which ignores `madvise`, and there the
    /// tests check the logic that does not depend on memory
    /// (`a_read_ahead_whose_advice_took_nothing_stops_and_says_so` checks
    /// the stop).
    fn advice_works(s: &Space) -> bool {
        let works = !s.read_ahead.refused();
        assert!(
            works || !cfg!(target_arch = "x86_64"),
            "MADV_POPULATE_WRITE refused or ignored on x86-64"
        );
        works
    }

    /// Takes `n` whole regions for the mutators (without writing them).
    fn take(s: &Space, n: usize) {
        for _ in 0..n {
            s.carve(s.region_bytes, s.region_bytes, Pool::Mutator)
                .expect("a free region");
        }
    }

    /// The regions from the highest one taken up to `ahead` past it are
    /// faulted in, those above are not; the regions the mutators had
    /// taken when it began (and did not write, here) are left to them.
    #[test]
    fn the_regions_past_the_highest_taken_are_faulted_in_ahead() {
        let s = space(8, 128);
        let pages = s.region_bytes / rustix::param::page_size();
        take(&s, 3);
        // Under emulation the thread may have stopped at the second take.
        let target = s.read_ahead.target();
        settle(&s);
        if !advice_works(&s) {
            return;
        }
        assert_eq!(target, 11, "8 past the 3 taken");
        assert_eq!(s.read_ahead.done(), 11, "the read-ahead reached its target");
        // Region 2 too: it was ahead when the second region was taken.
        assert_eq!(s.read_ahead.populated(), 9);
        for r in 2..11 {
            assert_eq!(
                resident_pages(s.regions[r].bottom, s.region_bytes),
                pages,
                "region {r}"
            );
        }
        for r in [0, 11, 12, 60] {
            assert_eq!(
                resident_pages(s.regions[r].bottom, s.region_bytes),
                0,
                "region {r}"
            );
        }
        // The mutators move on: the target follows.
        take(&s, 2);
        assert_eq!(s.read_ahead.target(), 13);
        assert_eq!(settle(&s), 13);
        assert_eq!(resident_pages(s.regions[12].bottom, s.region_bytes), pages);
        s.read_ahead.stop();
        assert!(!s.read_ahead.refused(), "the kernel took MADV_POPULATE_WRITE");
    }

    /// Where the system took the advice and faulted nothing in, the thread
    /// stops after the first region and says so: the first region it
    /// populates here is region 2, which nothing writes, so it is in
    /// memory exactly when the advice worked (natively; not under
    /// qemu-user).
    #[test]
    fn a_read_ahead_whose_advice_took_nothing_stops_and_says_so() {
        let s = space(4, 128);
        take(&s, 2);
        settle(&s);
        let populated = resident_pages(s.regions[2].bottom, s.region_bytes) > 0;
        assert_eq!(
            s.read_ahead.refused(),
            !populated,
            "refused exactly when region 2 was left out"
        );
        if s.read_ahead.refused() {
            assert_eq!(s.read_ahead.populated(), 0, "no region counted");
            assert!(
                s.read_ahead.done() < s.read_ahead.target(),
                "the thread stopped short"
            );
        } else {
            assert_eq!(s.read_ahead.populated(), 4);
        }
    }

    /// Nothing runs before the mutators take their second region; the
    /// target stops at the soft capacity and follows it when it grows.
    #[test]
    fn the_read_ahead_waits_for_a_second_region_and_stays_within_the_capacity() {
        let s = space(8, 6);
        take(&s, 1);
        assert_eq!(s.read_ahead.target(), 0, "one region: nothing to do");
        assert!(s.read_ahead.thread.lock().unwrap().is_none(), "and no thread");
        take(&s, 1);
        assert_eq!(s.read_ahead.target(), 6, "the capacity, not 2 + 8");
        settle(&s);
        let works = advice_works(&s);
        if works {
            assert_eq!(s.read_ahead.done(), 6);
            assert_eq!(resident_pages(s.regions[6].bottom, s.region_bytes), 0);
        }
        s.set_capacity(&mut s.lock_alloc(), 40);
        if works {
            assert_eq!(s.read_ahead.target(), 10, "the capacity grew: 8 past the 2 taken");
            assert_eq!(settle(&s), 10);
            assert_eq!(s.read_ahead.populated(), 8);
        } else {
            assert_eq!(
                s.read_ahead.target(),
                6,
                "a stopped read-ahead takes no more work"
            );
        }
    }

    /// A stopped read-ahead has joined its thread and takes no more work;
    /// one of 0 regions never starts.
    #[test]
    fn a_stopped_read_ahead_has_ended_and_an_empty_one_never_starts() {
        let s = space(64, 128);
        take(&s, 2);
        s.read_ahead.stop();
        assert!(s.read_ahead.thread.lock().unwrap().is_none(), "joined");
        let done = s.read_ahead.done();
        take(&s, 4);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(s.read_ahead.done(), done, "no work after the stop");
        let s = space(0, 128);
        take(&s, 10);
        assert_eq!(s.read_ahead.target(), 0);
        assert!(s.read_ahead.thread.lock().unwrap().is_none());
    }
}

//! `fastpath lock --prof perfnorm`: the counted cost of each lock's fast
//! path, per lock+unlock pair, beside the CAS pair's.
//!
//! Where it sits: between the timed tables and the harness's profiler
//! ([`crate::harness::perfnorm`]). Each table, after timing its rows,
//! hands every row to [`profile_row`] with the row's [`Region`]: the same
//! `#[inline(never)]` loop the timed row runs, on state the region owns
//! (so the Valgrind child, `fastpath __perfnorm lock <id> <ops>`, can build
//! it again from the id alone through `Lock::perfnorm_region`).
//!
//! The pairs table's explicit-thread row ([`ON_ROW`]) is defined here, its
//! loop beside its region.
//!
//! Region ids: `pairs/<row>` for the pairs table, `workloads/<workload>/<mode>`
//! for seed 001's suite, `contended/<row>/<threads>t` for the contended
//! table. Rows of more than one thread are marked [`Region::threads`], so
//! the profiler refuses them with its note (hardware counters follow one
//! thread; Valgrind serialises threads); rows that cannot be re-run as a
//! loop of counted operations say why instead ([`not_profiled`]).

use fastpath::sync;
use fastpath::sync::LockingMode;

use std::pin::Pin;

use fastpath::sync::Header;
use fastpath::thread::ThreadBlock;

use crate::harness::black_box;
use crate::harness::perfnorm::{Profile, ProfileTable, Profiler, Region};
use crate::report::BenchResult;

/// Operations one profiled run counts: about a millisecond natively for the
/// slowest single-threaded row (monitor churn), a second or so under
/// Valgrind. The fixed costs of a run (a mode switch, an outer hold) are
/// spread over these.
pub const PROFILED_OPS: u64 = 20_000;

/// A row's region, or why the row has none.
pub type RowRegion = Result<Region<'static>, String>;

/// The calling thread in a locking mode until dropped, then back in the
/// mode it ran before. A region owns one, so that its loop runs in the
/// row's mode on the thread that counts it (the timed rows use a fresh
/// thread instead; counters follow the calling thread).
pub struct ModeScope(LockingMode);

impl ModeScope {
    /// Switches the calling thread to `mode`. Fails if the thread holds a
    /// fast-lock (the library refuses: the entry would be orphaned).
    pub fn enter(mode: LockingMode) -> Result<ModeScope, String> {
        let before = sync::current_thread_locking_mode();
        sync::set_current_thread_locking_mode(mode)
            .map_err(|e| format!("switching this thread to {} mode: {e}", mode.name()))?;
        Ok(ModeScope(before))
    }
}

impl Drop for ModeScope {
    fn drop(&mut self) {
        // The region's loops release every lock they take, so the thread
        // holds none here and the switch back cannot be refused.
        let _ = sync::set_current_thread_locking_mode(self.0);
    }
}

/// The region of a row of `threads` threads, which the profiler refuses
/// before running it (see [`Profiler::profile`]): its loop is never
/// called, so it is left empty rather than spawn threads for nothing.
pub fn multi_threaded(threads: u32) -> RowRegion {
    Ok(Region::new(1, |_| {}).threads(threads))
}

/// Why a row is not profiled, for rows that are not a loop of counted
/// operations on the calling thread.
pub fn not_profiled(why: impl Into<String>) -> RowRegion {
    Err(why.into())
}

/// Profiles row `id` with `region` (or records why it has none), adds it
/// to `table`, and returns `result` with the row's counters attached.
pub fn profile_row(
    prof: &Profiler,
    table: &mut ProfileTable,
    id: &str,
    region: RowRegion,
    result: BenchResult,
) -> BenchResult {
    let profile = match region {
        Ok(region) => prof.profile(id, region),
        Err(why) => Profile {
            id: id.to_string(),
            per_op: Err(why),
            source: prof.source().ok(),
            ops: 0,
            multiplexed: false,
        },
    };
    let result = profile.attach(result);
    table.push(profile);
    result
}

/// The pairs table's row of a runtime that carries its thread (as HotSpot
/// passes `JavaThread*`): `uncontended` through `sync::enter_on` /
/// `exit_on`, with the thread block loaded once, as a JIT loads it into
/// its thread register.
pub const ON_ROW: &str = "uncontended-on";

/// [`ON_ROW`]'s loop: the pair with `thread`, the calling thread's block,
/// passed in.
#[inline(never)]
pub fn lock_pairs_on(thread: &ThreadBlock, h: Pin<&Header>, n: u64) {
    for _ in 0..n {
        let h = black_box(h);
        sync::enter_on(thread, h);
        let _ = sync::exit_on(thread, h);
    }
}

/// The region of a pairs row defined here (`None` for any other row).
pub fn pair_region(row: &str) -> Option<RowRegion> {
    match row {
        ON_ROW => {
            let h = Box::pin(Header::new());
            // The block is the running thread's, looked up once per call.
            Some(Ok(Region::new(PROFILED_OPS, move |n| {
                lock_pairs_on(fastpath::thread::current(), h.as_ref(), n)
            })))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mode_scope_switches_the_thread_and_puts_it_back() {
        std::thread::spawn(|| {
            let before = sync::current_thread_locking_mode();
            {
                let _m = ModeScope::enter(LockingMode::Monitor).unwrap();
                assert_eq!(sync::current_thread_locking_mode(), LockingMode::Monitor);
            }
            assert_eq!(sync::current_thread_locking_mode(), before);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_thread_holding_a_fast_lock_cannot_enter_a_mode_scope() {
        std::thread::spawn(|| {
            let h = std::pin::pin!(sync::Header::new());
            let _g = sync::lock(h.as_ref());
            if sync::current_thread_locking_mode() == LockingMode::Monitor {
                return; // a monitor-mode thread holds no fast-lock
            }
            let e = ModeScope::enter(LockingMode::Monitor).err().expect("refused");
            assert!(e.contains("monitor"), "{e}");
        })
        .join()
        .unwrap();
    }
}

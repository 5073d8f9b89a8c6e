//! `java.util.concurrent.locks.LockSupport`: each Java thread's parking
//! permit, what `java.util.concurrent` blocks threads with.
//!
//! Where it sits: between the class library's `LockSupport` and the
//! library's permit (`fastpath::sync::park`/`unpark`, HotSpot's `Parker`:
//! one bit that `unpark` sets and `park` consumes; an interrupt unparks).
//! `park0` turns `Unsafe.park`'s time into a timeout and blocks the current
//! thread in a safe region (the collector does not wait for it);
//! `unpark0` unparks a started thread through its
//! [`ThreadRecord`](super::thread::ThreadRecord), or, while the thread is
//! started but not yet bound to its `sync` identity, leaves the unpark
//! pending for it to deliver to itself (`thread.rs`). `setBlocker0` and
//! `getBlocker0` write and read `Thread.parkBlocker`, which the class
//! library keeps private to `java.lang`.
//!
//! A park may return early (the library's spurious returns, or a deadline
//! past the longest timeout the library takes in one wait): callers re-check
//! their condition in a loop, as `LockSupport`'s contract asks.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fastpath::gc::BarrierSet;
use fastpath::sync;

use crate::interp::{Args, NativeFn};
use crate::runtime::{JResult, JThread};

/// How long `park` may block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParkTime {
    /// Until unparked or interrupted.
    Indefinite,
    /// At most this long.
    For(Duration),
    /// Not at all: the time has already run out.
    Elapsed,
}

impl ParkTime {
    /// `Unsafe.park(isAbsolute, time)`'s time: `time` nanoseconds from now,
    /// or with `absolute` the millisecond since the epoch to wake at
    /// (`epoch_ms` is now); a relative 0 waits indefinitely, a negative
    /// time or an absolute one not in the future does not wait.
    pub fn from_java(absolute: bool, time: i64, epoch_ms: i64) -> ParkTime {
        if time < 0 || (absolute && time == 0) {
            return ParkTime::Elapsed;
        }
        if !absolute && time == 0 {
            return ParkTime::Indefinite;
        }
        if absolute {
            match time.checked_sub(epoch_ms) {
                Some(ms) if ms > 0 => ParkTime::For(Duration::from_millis(ms as u64)),
                _ => ParkTime::Elapsed,
            }
        } else {
            ParkTime::For(Duration::from_nanos(time as u64))
        }
    }
}

/// `LockSupport.park0(absolute, time)`: parks the current thread.
fn park0<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (absolute, time) = (a.int(0) != 0, a.long(1));
    let epoch_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let timeout = match ParkTime::from_java(absolute, time, epoch_ms) {
        ParkTime::Elapsed => return Ok(0),
        ParkTime::Indefinite => None,
        ParkTime::For(d) => Some(d),
    };
    t.m.safe_region(|| sync::park(timeout));
    Ok(0)
}

/// `LockSupport.unpark0(thread)`: gives `thread` its permit. A thread not
/// started has no record yet and gets nothing (`LockSupport.unpark`'s
/// contract allows it).
fn unpark0<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    if let Some(record) = t.started_thread_record(a.obj(0)) {
        record.unpark();
    }
    Ok(0)
}

/// `LockSupport.setBlocker0(thread, blocker)`: `thread.parkBlocker = blocker`.
fn set_blocker0<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (thread, blocker) = (a.obj(0), a.obj(1));
    t.store_ref(thread, super::thread::park_blocker_field(t.vm), blocker);
    Ok(0)
}

/// `LockSupport.getBlocker0(thread)`: `thread.parkBlocker`.
fn get_blocker0<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    Ok(t.load_ref(a.obj(0), super::thread::park_blocker_field(t.vm)) as u64)
}

/// The natives of this file.
pub fn lookup<B: BarrierSet>(class: &str, name: &str, desc: &str) -> Option<NativeFn<B>> {
    if class != "java/util/concurrent/locks/LockSupport" {
        return None;
    }
    Some(match (name, desc) {
        ("park0", "(ZJ)V") => park0::<B>,
        ("unpark0", "(Ljava/lang/Thread;)V") => unpark0::<B>,
        ("setBlocker0", "(Ljava/lang/Thread;Ljava/lang/Object;)V") => set_blocker0::<B>,
        ("getBlocker0", "(Ljava/lang/Thread;)Ljava/lang/Object;") => get_blocker0::<B>,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_times() {
        let at = |absolute, time| ParkTime::from_java(absolute, time, 1_000);
        assert_eq!(at(false, 0), ParkTime::Indefinite);
        assert_eq!(at(false, -1), ParkTime::Elapsed);
        assert_eq!(at(false, 5_000), ParkTime::For(Duration::from_nanos(5_000)));
        assert_eq!(at(true, 0), ParkTime::Elapsed);
        assert_eq!(at(true, 999), ParkTime::Elapsed);
        assert_eq!(at(true, 1_000), ParkTime::Elapsed);
        assert_eq!(at(true, 1_250), ParkTime::For(Duration::from_millis(250)));
        assert_eq!(at(true, i64::MIN), ParkTime::Elapsed);
        assert_eq!(
            at(true, i64::MAX),
            ParkTime::For(Duration::from_millis((i64::MAX - 1_000) as u64))
        );
    }
}

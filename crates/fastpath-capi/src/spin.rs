//! Spinning from C: the configured pause instruction, its calibration, and
//! a spin-wait on a word with a time budget (over `fastpath::spin`, seed
//! 004).
//!
//! Where it sits: a C runtime's own locks and handshakes spin with
//! `fastpath_spin_pause` (the PAUSE/ISB/... chosen at start-up), or hand
//! the whole spin-then-yield phase to `fastpath_spin_wait_u32`, which
//! returns when the budget is spent so the caller parks on its own
//! primitive (a futex, a condition variable).

use std::sync::atomic::{AtomicU32, Ordering};

use fastpath_core::spin::{self, Budget, SpinWait, Step};

use crate::status::fastpath_status::{self, *};
use crate::status::{aligned, copy_out, ffi, put};

/// The pause's calibration (`fastpath_spin_get_calibration`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct fastpath_spin_calibration {
    /// Nanoseconds per pause (positive, finite).
    pub ns_per_pause: f64,
    /// Hardware-counter ticks per pause (TSC, CNTVCT_EL0); 0 if none.
    pub ticks_per_pause: f64,
    /// That counter's frequency in Hz; 0 if none.
    pub counter_hz: f64,
    /// Pauses executed by the calibration.
    pub pauses_timed: u64,
    /// Nanoseconds the calibration took.
    pub took_ns: u64,
}

/// One pause: the configured spin-wait instruction (PAUSE, TPAUSE, ISB,
/// ...), repeated as configured. Any thread; never fails.
#[no_mangle]
pub extern "C" fn fastpath_spin_pause() {
    spin::pause();
}

/// The calibration of the configured pause on this CPU (measured once, on
/// first use, in about 100 µs).
#[no_mangle]
pub extern "C" fn fastpath_spin_get_calibration(out: *mut fastpath_spin_calibration) -> fastpath_status {
    ffi(|| {
        let c = spin::calibration();
        put(
            out,
            fastpath_spin_calibration {
                ns_per_pause: c.ns_per_pause,
                ticks_per_pause: c.ticks_per_pause.unwrap_or(0.0),
                counter_hz: c.counter_hz.unwrap_or(0.0),
                pauses_timed: c.pauses_timed,
                took_ns: u64::try_from(c.took.as_nanos()).unwrap_or(u64::MAX),
            },
        )
    })
}

/// The pause in use, `auto` resolved (e.g. `"pause"`, `"isb:2"`), copied
/// into `buf` with the `snprintf` convention.
#[no_mangle]
pub extern "C" fn fastpath_spin_pause_name(
    buf: *mut core::ffi::c_char,
    cap: usize,
    needed: *mut usize,
) -> fastpath_status {
    ffi(|| copy_out(&spin::active().to_string(), buf, cap, needed))
}

/// Spins until the 32-bit word at `word` equals `value` (read with acquire
/// ordering, so what its writer stored before the word is visible), for at
/// most about `spin_ns` nanoseconds of pauses and then `yields`
/// `sched_yield`s. `FASTPATH_OK` once equal; `FASTPATH_ERR_TIMED_OUT` when
/// the budget is spent: park now. The word must be 4-byte aligned and
/// written atomically by others (C11 `atomic_store` or `__atomic_store_n`).
#[no_mangle]
pub extern "C" fn fastpath_spin_wait_u32(
    word: *const u32,
    value: u32,
    spin_ns: u64,
    yields: u32,
) -> fastpath_status {
    ffi(|| {
        aligned::<_, AtomicU32>(word, "the word")?;
        // SAFETY: non-NULL and aligned; the caller's contract: the word is
        // valid for the call and only accessed atomically meanwhile.
        let word = unsafe { AtomicU32::from_ptr(word.cast_mut()) };
        let mut wait = SpinWait::with_budget(Budget::new(spin_ns, yields));
        // Acquire: the waiter goes on to read what the writer published
        // before storing `value`.
        while word.load(Ordering::Acquire) != value {
            if wait.spin() == Step::Park {
                return Err(FASTPATH_ERR_TIMED_OUT);
            }
        }
        Ok(())
    })
}

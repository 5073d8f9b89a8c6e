//! Spin pauses (seed 004). Skeleton: the spin-pause issue replaces this with
//! the configured strategies and calibration; until then one pause is the
//! standard library's hint.

/// One spin-wait pause.
#[inline(always)]
pub fn pause() {
    core::hint::spin_loop();
}

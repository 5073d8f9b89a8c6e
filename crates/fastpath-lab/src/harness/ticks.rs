//! The CPU's free-running tick counter, read in order: what an experiment
//! reports beside nanoseconds when a row's cost is a handful of cycles (a
//! pause instruction) and `Instant`'s own cost would blur it.
//!
//! Where it sits: inside timed regions, around a whole batch (never per
//! operation). It reads the same counter as the library's spin calibration
//! (`fastpath::spin::calibration()` measures its rate against
//! CLOCK_MONOTONIC), so ticks here and `counter_hz` there describe one
//! clock. The library keeps its reader private; the lab owns this one.
//!
//! Ordering: on x86-64 an LFENCE before RDTSC keeps earlier instructions
//! from retiring after the read (Intel SDM, RDTSC); on AArch64 an ISB before
//! reading CNTVCT_EL0 does the same (Arm ARM, "Reading the generic timer").

/// The counter's name, for table notes.
pub const NAME: &str = if cfg!(target_arch = "aarch64") {
    "CNTVCT_EL0"
} else if cfg!(target_arch = "x86_64") {
    "TSC"
} else {
    "none (0 on this architecture)"
};

/// The counter now (TSC on x86-64, CNTVCT_EL0 on AArch64, 0 elsewhere).
#[inline(always)]
pub fn read() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        fastpath::arch::x86_64::lfence();
        fastpath::arch::x86_64::rdtsc()
    }
    #[cfg(target_arch = "aarch64")]
    {
        fastpath::arch::aarch64::isb();
        fastpath::arch::aarch64::cntvct_el0()
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn the_counter_advances_across_a_sleep() {
        let a = super::read();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = super::read();
        assert!(b > a, "{a} then {b}");
    }
}

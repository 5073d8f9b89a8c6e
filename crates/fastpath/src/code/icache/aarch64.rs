//! AArch64 backend: the compiler-rt `__clear_cache` sequence, with the cache
//! geometry read from CTR_EL0 once per process.
//!
//! The sequence is written to the Arm ARM (D7.5.9, "Ordering and completion
//! of data and instruction cache instructions") and LLVM compiler-rt
//! `lib/builtins/clear_cache.c`. The CTR_EL0 decoding is tested everywhere
//! with recorded values. The sequence itself runs only under QEMU user-mode
//! emulation (`.ci/aarch64`, `tests/aarch64_cpu_models.rs`): CTR_EL0 read
//! from each emulated model (64-, 256- and 32-byte lines), DC CVAU / IC IVAU
//! executed on the code cache's RX addresses without a fault, and freshly
//! installed code called. What emulation cannot show is that the sequence
//! makes a rewrite visible: QEMU 7.2 ignores IC IVAU and keeps running its
//! first translation of code rewritten through another mapping, so in-place
//! patching is checked only on hardware (that test's `rewrite=seen`).
//!
//! ```text
//! if !CTR_EL0.IDC { DC CVAU each data line }   clean D to the point of unification
//! DSB ISH                                      ... and wait for it
//! if !CTR_EL0.DIC { IC IVAU each insn line }   invalidate I to PoU (broadcast, inner shareable)
//! DSB ISH                                      ... and wait for it
//! ISB                                          this core refetches
//! ```
//!
//! A batch runs each loop over every range and each barrier once. Other
//! cores still need an ISB (or an exception return) before they run the new
//! code: `cross_modify_fence` or `publish`.

/// Cache line sizes and coherence shortcuts of the data and instruction
/// caches. On x86-64 both lines are CPUID's CLFLUSH line size and the
/// shortcuts are false.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheGeometry {
    /// Smallest data cache line in bytes (CTR_EL0.DminLine).
    pub dline: u32,
    /// Smallest instruction cache line in bytes (CTR_EL0.IminLine).
    pub iline: u32,
    /// CTR_EL0.IDC: data cleaning to PoU is not required.
    pub idc: bool,
    /// CTR_EL0.DIC: instruction invalidation to PoU is not required.
    pub dic: bool,
}

impl CacheGeometry {
    /// Decodes CTR_EL0: IminLine \[3:0\] and DminLine \[19:16\] are log2 of
    /// the line size in 4-byte words; IDC is bit 28, DIC bit 29.
    pub const fn from_ctr_el0(ctr: u64) -> CacheGeometry {
        CacheGeometry {
            dline: 4 << ((ctr >> 16) & 0xf),
            iline: 4 << (ctr & 0xf),
            idc: (ctr >> 28) & 1 != 0,
            dic: (ctr >> 29) & 1 != 0,
        }
    }
}

/// The geometry of this CPU, reading CTR_EL0 on first use only.
#[cfg(target_arch = "aarch64")]
pub(super) fn geometry() -> &'static CacheGeometry {
    static GEOMETRY: std::sync::OnceLock<CacheGeometry> = std::sync::OnceLock::new();
    GEOMETRY.get_or_init(|| CacheGeometry::from_ctr_el0(crate::arch::aarch64::ctr_el0()))
}

/// The compiler-rt sequence over every range, each barrier once.
///
/// # Safety
/// Every range is mapped in this process.
#[cfg(target_arch = "aarch64")]
pub(super) unsafe fn dc_ic(g: &CacheGeometry, ranges: &[(*const u8, usize)]) {
    use crate::arch::aarch64 as isa;
    if !g.idc {
        // SAFETY: the caller guarantees the ranges are mapped; Linux enables
        // EL0 cache maintenance (SCTLR_EL1.UCI).
        unsafe { super::each_line(ranges, g.dline as usize, |p| isa::dc_cvau(p)) };
    }
    isa::dsb_ish();
    if !g.dic {
        // SAFETY: as above.
        unsafe { super::each_line(ranges, g.iline as usize, |p| isa::ic_ivau(p)) };
        isa::dsb_ish();
    }
    isa::isb();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_recorded_ctr_el0_values() {
        // Cortex-A72 (Raspberry Pi 4): 64-byte lines, no IDC/DIC.
        let a72 = CacheGeometry::from_ctr_el0(0x8444_c004);
        assert_eq!((a72.dline, a72.iline, a72.idc, a72.dic), (64, 64, false, false));
        // The same with IDC and DIC set (as Neoverse N1 reports them).
        let n1 = CacheGeometry::from_ctr_el0(0xb444_c004);
        assert_eq!((n1.dline, n1.iline, n1.idc, n1.dic), (64, 64, true, true));
        // 128-byte data lines, 32-byte instruction lines.
        let odd = CacheGeometry::from_ctr_el0(0x0005_0003);
        assert_eq!((odd.dline, odd.iline), (128, 32));
    }
}

//! AArch64 instruction wrappers. Each is one instruction; the ones that need
//! an optional feature (or the kernel's emulation of a trapped register) are
//! `unsafe fn` with the HWCAP bit named.
//!
//! What is verified: every wrapper is built for `aarch64-unknown-linux-gnu`
//! and executed by the library's tests under QEMU user-mode emulation
//! (`.ci/aarch64`, CPU models `neoverse-n1`, `cortex-a72`, `cortex-a76`,
//! `a64fx`, `max`; SB only on `max`, the one model reporting FEAT_SB). What
//! is not: timing (QEMU's ISB, YIELD and SB take no time a real core would),
//! and ordering under a weak memory model, since QEMU's TCG runs guest
//! barriers on the host's stronger one; loom models check the orderings.

use core::arch::asm;

/// `ISB` (`D5033FDF`): instruction synchronization barrier. HotSpot's
/// OnSpinWaitInst=isb spin pause on Neoverse cores, and the last step of
/// instruction-cache maintenance.
#[inline(always)]
pub fn isb() {
    // SAFETY: ISB is in the base architecture and only flushes the pipeline.
    unsafe { asm!("isb", options(nostack, preserves_flags)) }
}

/// `YIELD` (`D503203F`): a hint that this is a spin loop; a NOP on most cores.
#[inline(always)]
pub fn yield_hint() {
    // SAFETY: YIELD is a hint in the base architecture with no effect.
    unsafe { asm!("yield", options(nomem, nostack, preserves_flags)) }
}

/// `PRFM PLDL1KEEP, [addr]`: asks for the cache line of `addr` in L1 for a
/// load; a hint, so any address is allowed (a prefetch never faults). The
/// collector's marking loop asks for an object's line some scans before it
/// reads the object (`gc/collector/marking.rs`).
#[inline(always)]
pub fn prefetch_read(addr: usize) {
    // SAFETY: PRFM is in the base architecture; it reads nothing
    // architecturally and never faults, whatever the address.
    unsafe { asm!("prfm pldl1keep, [{}]", in(reg) addr, options(nostack, preserves_flags, readonly)) }
}

/// `NOP` (`D503201F`).
#[inline(always)]
pub fn nop() {
    // SAFETY: NOP does nothing.
    unsafe { asm!("nop", options(nomem, nostack, preserves_flags)) }
}

/// `SB` (`D50330FF`): speculation barrier.
///
/// # Safety
/// HWCAP_SB (AT_HWCAP bit 29) must be set, otherwise the instruction is
/// undefined.
#[inline(always)]
pub unsafe fn sb() {
    // SAFETY: the caller guarantees FEAT_SB. Spelled as .inst so that no
    // assembler target feature is needed.
    unsafe { asm!(".inst 0xd50330ff", options(nostack, preserves_flags)) }
}

/// `DC CVAU, Xt` (`D50B7B20 | Rt`, an alias of `SYS #3, C7, C11, #1, Xt`):
/// clean the data cache line containing `addr` to the point of unification.
///
/// # Safety
/// `addr` must be mapped in this process (user access to DC CVAU is enabled
/// by Linux via SCTLR_EL1.UCI).
#[inline(always)]
pub unsafe fn dc_cvau(addr: *const u8) {
    // SAFETY: the caller guarantees `addr` is mapped.
    unsafe { asm!("dc cvau, {0}", in(reg) addr, options(nostack, preserves_flags)) }
}

/// `IC IVAU, Xt` (`D50B7520 | Rt`, an alias of `SYS #3, C7, C5, #1, Xt`):
/// invalidate the instruction cache line containing `addr` to the point of
/// unification.
///
/// # Safety
/// `addr` must be mapped in this process.
#[inline(always)]
pub unsafe fn ic_ivau(addr: *const u8) {
    // SAFETY: the caller guarantees `addr` is mapped.
    unsafe { asm!("ic ivau, {0}", in(reg) addr, options(nostack, preserves_flags)) }
}

/// `DSB ISH` (`D5033B9F`): data synchronization barrier, inner shareable
/// domain. Base architecture.
#[inline(always)]
pub fn dsb_ish() {
    // SAFETY: a barrier has no effect besides ordering.
    unsafe { asm!("dsb ish", options(nostack, preserves_flags)) }
}

/// `DMB ISH` (`D5033BBF`): data memory barrier, inner shareable domain.
/// Base architecture.
#[inline(always)]
pub fn dmb_ish() {
    // SAFETY: a barrier has no effect besides ordering.
    unsafe { asm!("dmb ish", options(nostack, preserves_flags)) }
}

/// `MRS Xt, CTR_EL0` (`D53B0020 | Rt`): cache type register (IminLine,
/// DminLine, IDC, DIC). Base architecture.
/// Linux traps or permits EL0 access and always returns a usable value.
#[inline]
pub fn ctr_el0() -> u64 {
    let v: u64;
    // SAFETY: CTR_EL0 is readable at EL0 on Linux (trapped and emulated
    // where the hardware does not permit it).
    unsafe { asm!("mrs {0}, ctr_el0", out(reg) v, options(nomem, nostack, preserves_flags)) }
    v
}

/// `MRS Xt, MIDR_EL1` (`D5380000 | Rt`): main ID register (implementer,
/// variant, part, revision) of the core this thread runs on.
///
/// # Safety
/// HWCAP_CPUID (AT_HWCAP bit 11) must be set: EL0 access to the ID
/// registers traps, and Linux emulates the trap (Documentation/arch/arm64/
/// cpu-feature-registers.rst) only when it advertises that bit; otherwise
/// the instruction is undefined (SIGILL).
#[inline]
pub unsafe fn midr_el1() -> u64 {
    let v: u64;
    // SAFETY: the caller guarantees HWCAP_CPUID, so the kernel emulates the
    // read and returns the register with every field visible.
    unsafe { asm!("mrs {0}, midr_el1", out(reg) v, options(nomem, nostack, preserves_flags)) }
    v
}

/// `MRS Xt, CNTVCT_EL0` (`D53BE040 | Rt`): the virtual counter. Base
/// architecture.
#[inline(always)]
pub fn cntvct_el0() -> u64 {
    let v: u64;
    // SAFETY: CNTVCT_EL0 is readable at EL0 on Linux.
    unsafe { asm!("mrs {0}, cntvct_el0", out(reg) v, options(nomem, nostack, preserves_flags)) }
    v
}

/// `MRS Xt, CNTFRQ_EL0` (`D53BE000 | Rt`): frequency of the counter in Hz.
/// Base architecture.
#[inline]
pub fn cntfrq_el0() -> u64 {
    let v: u64;
    // SAFETY: CNTFRQ_EL0 is readable at EL0 on Linux.
    unsafe { asm!("mrs {0}, cntfrq_el0", out(reg) v, options(nomem, nostack, preserves_flags)) }
    v
}

//! x86-64 instruction wrappers.
//!
//! Each wrapper is one instruction (or a fixed, documented sequence), marked
//! `#[inline(always)]` so that a caller's fast path contains exactly the
//! instruction and nothing else. The wrappers do not check whether the CPU
//! implements the instruction: the ones that can fault with `#UD` on some CPUs
//! are `unsafe fn` whose contract is "the CPUID bit named in the docs is set".
//! Callers establish that through [`crate::cpu::info`] (or a strategy value
//! that was validated against it) before the first call, which is how the
//! project keeps its promise of a configuration error instead of SIGILL.
//!
//! Instructions present on every x86-64 CPU that touch no memory the caller
//! names (PAUSE, MFENCE, SFENCE, LFENCE, RDTSC, CPUID, RDSSP) are safe
//! functions, and so is the conditional card mark, whose only memory is an
//! `AtomicU8` the caller lends. CLFLUSH is SSE2-baseline too, but it is an `unsafe fn` like
//! CLFLUSHOPT and CLWB: flushing an unmapped address faults, so its contract
//! is that the line is mapped.
//!
//! Encodings are written out in each doc comment so that a reader of a
//! disassembly (`objdump -d`, callgrind annotate) can find them.

use core::arch::asm;

/// The four registers CPUID returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CpuidResult {
    /// EAX after CPUID.
    pub eax: u32,
    /// EBX after CPUID.
    pub ebx: u32,
    /// ECX after CPUID.
    pub ecx: u32,
    /// EDX after CPUID.
    pub edx: u32,
}

/// `CPUID` (`0F A2`) with EAX = `leaf`, ECX = `subleaf`.
///
/// Always present on x86-64. Serializing, and under a hypervisor it is an
/// unconditional VM exit (on the KVM guest this project runs on, about 4 µs
/// as measured by `fastpath cpu --timing`), which is why [`crate::cpu`] counts how many it executes.
#[inline]
pub fn cpuid(leaf: u32, subleaf: u32) -> CpuidResult {
    let (eax, ebx, ecx, edx);
    // SAFETY: CPUID exists on every x86-64 CPU and only writes the four
    // registers named below. RBX is reserved by LLVM, so it is saved in a
    // scratch register around the instruction.
    unsafe {
        asm!(
            "mov {rbx_save:r}, rbx",
            "cpuid",
            "xchg {rbx_save:r}, rbx",
            rbx_save = out(reg) ebx,
            inout("eax") leaf => eax,
            inout("ecx") subleaf => ecx,
            out("edx") edx,
            options(nostack, preserves_flags),
        );
    }
    CpuidResult { eax, ebx, ecx, edx }
}

/// `XGETBV` (`0F 01 D0`) with ECX = `xcr`: reads an extended control register.
///
/// # Safety
/// CPUID.1:ECX.OSXSAVE\[bit 27\] must be set, otherwise XGETBV raises `#UD`.
#[inline]
pub unsafe fn xgetbv(xcr: u32) -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: the caller guarantees OSXSAVE; XGETBV writes EDX:EAX only.
    unsafe {
        asm!("xgetbv", in("ecx") xcr, out("eax") lo, out("edx") hi,
             options(nomem, nostack, preserves_flags));
    }
    (u64::from(hi) << 32) | u64::from(lo)
}

/// `PAUSE` (`F3 90`): the spin-wait hint.
///
/// Present on every x86-64 CPU (it decodes as `REP NOP` on CPUs that predate
/// it). Its latency varies by generation: about 10 cycles before Skylake, up
/// to about 140 cycles on Skylake and later Intel cores, which is why
/// [`crate::spin`] calibrates it.
#[inline(always)]
pub fn pause() {
    // SAFETY: PAUSE has no architectural effect besides delaying.
    unsafe { asm!("pause", options(nomem, nostack, preserves_flags)) }
}

/// `TPAUSE r32` (`66 0F AE /6`): timed pause until the TSC reaches `deadline`.
///
/// `deep` selects C0.1 (false, faster wake-up) or C0.2 (true, lower power).
/// Returns true if the OS time limit (IA32_UMWAIT_CONTROL) ended the wait
/// before the deadline (CF set).
///
/// # Safety
/// CPUID.7.0:ECX.WAITPKG\[bit 5\] must be set, otherwise TPAUSE raises `#UD`.
#[inline(always)]
pub unsafe fn tpause(deadline: u64, deep: bool) -> bool {
    let ctrl: u32 = if deep { 0 } else { 1 };
    let cf: u8;
    // SAFETY: the caller guarantees WAITPKG. TPAUSE reads EDX:EAX as the
    // deadline and the control word from the register operand, and writes
    // only RFLAGS.
    unsafe {
        asm!(
            "tpause ecx",
            "setc {cf}",
            cf = out(reg_byte) cf,
            in("ecx") ctrl,
            in("eax") deadline as u32,
            in("edx") (deadline >> 32) as u32,
            options(nomem, nostack),
        );
    }
    cf != 0
}

/// `SERIALIZE` (`0F 01 E8`): serializes instruction execution without the
/// side effects (and the VM exit) of CPUID.
///
/// # Safety
/// CPUID.7.0:EDX.SERIALIZE\[bit 14\] must be set, otherwise `#UD`.
#[inline(always)]
pub unsafe fn serialize() {
    // SAFETY: the caller guarantees SERIALIZE; it has no register effects.
    // It is declared as touching memory so the compiler keeps it ordered
    // with the surrounding stores of patched code.
    unsafe { asm!("serialize", options(nostack, preserves_flags)) }
}

/// `IRETQ` to the next instruction ("IRET to self"): a serializing
/// instruction that every x86-64 CPU has and that, unlike CPUID, is not a VM
/// exit under a hypervisor. Linux's `sync_core()` uses the same sequence when
/// SERIALIZE is absent (arch/x86/include/asm/sync_core.h, `iret_to_self`).
///
/// Builds the five-word interrupt frame of the current context (SS, RSP,
/// RFLAGS, CS, RIP of the label after IRETQ) and returns through it, so the
/// only architectural effect is serialization: RSP, RFLAGS, CS and SS come
/// back unchanged.
///
/// # Safety
/// No user-mode shadow stack (CET SHSTK) may be active in the calling thread:
/// with one, IRET pops a shadow-stack frame that this sequence never pushed
/// and the CPU raises `#CP`. Shadow-stack status is per thread:
/// `code::icache` checks the executing thread's with [`rdssp`] before every
/// use.
#[inline(always)]
pub unsafe fn iret_to_self() {
    // SAFETY: the caller guarantees no shadow stack. The sequence pushes 40
    // bytes below RSP (allowed: no `nostack`, so the compiler keeps the red
    // zone free) and IRETQ pops exactly those 40 bytes, so RSP is restored;
    // the pushed RFLAGS are the current ones, so IRETQ at CPL 3 changes no
    // flag. Declared as touching memory so that it stays ordered with the
    // stores of new code around it.
    unsafe {
        asm!(
            "mov {tmp:e}, ss",
            "push {tmp}",
            "mov {tmp}, rsp",
            "add {tmp}, 8",
            "push {tmp}",
            "pushfq",
            "mov {tmp:e}, cs",
            "push {tmp}",
            "lea {tmp}, [rip + 2f]",
            "push {tmp}",
            "iretq",
            "2:",
            tmp = out(reg) _,
        );
    }
}

/// `RDSSPQ r64` (`F3 REX.W 0F 1E /1`, register form): the calling thread's
/// shadow-stack pointer if a CET user shadow stack is active on it, else 0.
/// Shadow stacks are per thread, and this reads the current state: no system
/// call, no cache that could go stale.
///
/// Always safe to execute: where shadow stacks are not enabled (CPUs without
/// CET, kernels without support, threads without one) it is a NOP, since it
/// sits in the hint-NOP space `0F 1E` like ENDBR64, so the zeroed register
/// comes back unchanged (glibc's `_get_ssp` relies on the same). Emitted as
/// bytes so that no assembler target feature is needed.
#[inline(always)]
pub fn rdssp() -> u64 {
    let mut ssp: u64 = 0;
    // SAFETY: RDSSPQ RAX (F3 48 0F 1E C8) only writes RAX, declared as an
    // in/out operand; it reads no memory and leaves the flags alone; where
    // it is not enabled it executes as a NOP (see above).
    unsafe {
        asm!(
            ".byte 0xf3, 0x48, 0x0f, 0x1e, 0xc8",
            inout("rax") ssp,
            options(nomem, nostack, preserves_flags)
        );
    }
    ssp
}

/// `CLFLUSH m8` (`0F AE /7`): writes back and invalidates the cache line
/// containing `addr`, ordered with respect to other CLFLUSHes and stores
/// (not to CLFLUSHOPT); HotSpot brackets a loop of them with MFENCE.
///
/// # Safety
/// CPUID.1:EDX.CLFSH\[bit 19\] must be set (always true on x86-64, where SSE2
/// implies it, but checked by the caller anyway). `addr` may be any address
/// mapped readable in this process; an unmapped address faults.
#[inline(always)]
pub unsafe fn clflush(addr: *const u8) {
    // SAFETY: the caller guarantees the feature and that `addr` is mapped.
    unsafe { asm!("clflush [{0}]", in(reg) addr, options(nostack, preserves_flags)) }
}

/// `CLFLUSHOPT m8` (`66 0F AE /7`): like CLFLUSH but weakly ordered; bracket
/// a loop of them with SFENCE (HotSpot X86ICacheSync=2).
///
/// # Safety
/// CPUID.7.0:EBX.CLFLUSHOPT\[bit 23\] must be set; `addr` must be mapped.
#[inline(always)]
pub unsafe fn clflushopt(addr: *const u8) {
    // SAFETY: the caller guarantees the feature and that `addr` is mapped.
    unsafe { asm!("clflushopt [{0}]", in(reg) addr, options(nostack, preserves_flags)) }
}

/// `CLWB m8` (`66 0F AE /6`): writes the line back and may keep it cached;
/// weakly ordered like CLFLUSHOPT (HotSpot X86ICacheSync=3).
///
/// # Safety
/// CPUID.7.0:EBX.CLWB\[bit 24\] must be set; `addr` must be mapped.
#[inline(always)]
pub unsafe fn clwb(addr: *const u8) {
    // SAFETY: the caller guarantees the feature and that `addr` is mapped.
    unsafe { asm!("clwb [{0}]", in(reg) addr, options(nostack, preserves_flags)) }
}

/// `MFENCE` (`0F AE F0`): full fence, orders all loads, stores and CLFLUSHes.
#[inline(always)]
pub fn mfence() {
    // SAFETY: a fence has no effect besides ordering.
    unsafe { asm!("mfence", options(nostack, preserves_flags)) }
}

/// `SFENCE` (`0F AE F8`): orders stores, CLFLUSHOPT and CLWB.
#[inline(always)]
pub fn sfence() {
    // SAFETY: a fence has no effect besides ordering.
    unsafe { asm!("sfence", options(nostack, preserves_flags)) }
}

/// `LFENCE` (`0F AE E8`): waits for prior instructions to complete locally;
/// used to stop RDTSC from being executed early.
#[inline(always)]
pub fn lfence() {
    // SAFETY: a fence has no effect besides ordering.
    unsafe { asm!("lfence", options(nostack, preserves_flags)) }
}

/// `PREFETCHT0` (`0F 18 /1`): asks for the cache line of `addr` in every
/// cache level; a hint, so any address is allowed (a prefetch never faults).
/// The collector's marking loop asks for an object's line some scans before
/// it reads the object (`gc/collector/marking.rs`).
#[inline(always)]
pub fn prefetch_read(addr: usize) {
    // SAFETY: PREFETCHT0 is in the x86-64 base (SSE); it reads nothing
    // architecturally and never faults, whatever the address.
    unsafe { asm!("prefetcht0 [{}]", in(reg) addr, options(nostack, preserves_flags, readonly)) }
}

/// `RDTSC` (`0F 31`): the time-stamp counter, not ordered with surrounding
/// instructions; pair it with [`lfence`] when that matters.
#[inline(always)]
pub fn rdtsc() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: RDTSC exists on every x86-64 CPU (CR4.TSD is not set by Linux
    // for user space) and writes EDX:EAX only.
    unsafe { asm!("rdtsc", out("eax") lo, out("edx") hi, options(nomem, nostack, preserves_flags)) }
    (u64::from(hi) << 32) | u64::from(lo)
}

/// `RDTSCP` (`0F 01 F9`): the time-stamp counter after all prior instructions
/// have executed, and IA32_TSC_AUX (the CPU number on Linux).
///
/// # Safety
/// CPUID.80000001H:EDX.RDTSCP\[bit 27\] must be set.
#[inline(always)]
pub unsafe fn rdtscp() -> (u64, u32) {
    let (lo, hi, aux): (u32, u32, u32);
    // SAFETY: the caller guarantees RDTSCP; it writes EDX:EAX and ECX only.
    unsafe {
        asm!("rdtscp", out("eax") lo, out("edx") hi, out("ecx") aux,
             options(nomem, nostack, preserves_flags));
    }
    ((u64::from(hi) << 32) | u64::from(lo), aux)
}

/// HotSpot's conditional card mark (`UseCondCardMark`): `cmpb $0x0,(m)` (`80
/// 38 00`), `je` past the store, `movb $0x0,(m)` (`c6 00 00`): writes 0 into
/// `byte` unless it holds 0 already, so a card that is dirty stays a
/// shared cache line.
///
/// Why asm: `rustc` never folds an atomic load into a compare (it emits
/// `movzbl` + `test`, one more instruction on the barrier's fast path), and a
/// plain load would race with other threads' stores. The asm's accesses are
/// byte-sized, hence single-copy atomic on x86-64: exactly a Relaxed load
/// and a Relaxed store of the `AtomicU8`, no more ordered than those. Without
/// `nomem` the block is also a compiler barrier, so a store the caller made
/// before stays before the mark.
#[inline(always)]
pub fn clear_byte_unless_clear(byte: &core::sync::atomic::AtomicU8) {
    // SAFETY: `byte` is a live `AtomicU8` borrowed for the call; the asm
    // reads and writes only that byte, with byte-sized accesses (atomic on
    // x86-64, so it races with other threads' accesses to the same atomic no
    // more than Relaxed accesses do), uses no stack and clobbers only the
    // flags (not declared preserved).
    unsafe {
        asm!(
            "cmp byte ptr [{m}], 0",
            "je 2f",
            "mov byte ptr [{m}], 0",
            "2:",
            m = in(reg) byte.as_ptr(),
            options(nostack),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditional_card_mark_clears_a_set_byte_and_leaves_a_clear_one() {
        let b = core::sync::atomic::AtomicU8::new(0xff);
        clear_byte_unless_clear(&b);
        assert_eq!(b.into_inner(), 0);
        let c = core::sync::atomic::AtomicU8::new(0);
        clear_byte_unless_clear(&c);
        assert_eq!(c.into_inner(), 0);
    }

    #[test]
    fn cpuid_leaf0_names_a_vendor() {
        let r = cpuid(0, 0);
        assert!(r.eax >= 1, "max basic leaf {}", r.eax);
        let mut v = [0u8; 12];
        v[..4].copy_from_slice(&r.ebx.to_le_bytes());
        v[4..8].copy_from_slice(&r.edx.to_le_bytes());
        v[8..].copy_from_slice(&r.ecx.to_le_bytes());
        assert!(v.iter().all(|b| b.is_ascii_graphic() || *b == b' '), "{v:?}");
    }

    #[test]
    fn tsc_advances() {
        let a = rdtsc();
        for _ in 0..100 {
            pause();
        }
        lfence();
        let b = rdtsc();
        assert!(b > a);
    }

    #[test]
    fn flushes_of_a_local_line_do_not_fault() {
        let buf = [1u8; 256];
        mfence();
        let leaf7 = cpuid(7, 0);
        for line in buf.chunks(64) {
            // SAFETY: CLFLUSH is baseline on x86-64 and `line` is mapped.
            unsafe { clflush(line.as_ptr()) };
            if leaf7.ebx & (1 << 23) != 0 {
                // SAFETY: CLFLUSHOPT checked just above; `line` is mapped.
                unsafe { clflushopt(line.as_ptr()) };
            }
            if leaf7.ebx & (1 << 24) != 0 {
                // SAFETY: CLWB checked just above; `line` is mapped.
                unsafe { clwb(line.as_ptr()) };
            }
        }
        sfence();
        if leaf7.edx & (1 << 14) != 0 {
            // SAFETY: SERIALIZE checked just above.
            unsafe { serialize() };
        }
        // Test binaries are not built with shadow stacks (the ELF lacks the
        // SHSTK property, so the loader never enables them).
        assert_eq!(rdssp(), 0);
        // SAFETY: no shadow stack on this thread (just checked).
        unsafe { iret_to_self() };
        assert_eq!(buf.iter().map(|&b| u32::from(b)).sum::<u32>(), 256);
    }
}

//! x86-64 backend of the sync strategies: the line loops and the
//! serializing instructions, as HotSpot's `x86_generate_icache_flush_insn`
//! and `x86_generate_icache_fence` emit them (JDK-8353558).

use std::sync::OnceLock;

use super::{LineFlush, Serializer};
use crate::arch::x86_64 as isa;

/// Runs `op` over every line of every range, bracketed once by the fence the
/// instruction's ordering rules need: MFENCE for CLFLUSH (ordered with
/// stores and other CLFLUSHes, so the fences order it with the surrounding
/// code writes), SFENCE for CLFLUSHOPT and CLWB (weakly ordered; SFENCE
/// orders them with the stores before and after).
///
/// # Safety
/// The CPU has `op`'s feature (checked by `Strategy::new`); every range is
/// mapped readable; `line` is a power of two.
#[inline]
pub(super) unsafe fn flush_lines(op: LineFlush, ranges: &[(*const u8, usize)], line: usize) {
    debug_assert!(line.is_power_of_two());
    match op {
        LineFlush::Clflush => {
            isa::mfence();
            // SAFETY: forwarded contract (CLFSH present, ranges mapped).
            unsafe { each_line(ranges, line, |p| isa::clflush(p)) };
            isa::mfence();
        }
        LineFlush::Clflushopt => {
            isa::sfence();
            // SAFETY: forwarded contract (CLFLUSHOPT present, ranges mapped).
            unsafe { each_line(ranges, line, |p| isa::clflushopt(p)) };
            isa::sfence();
        }
        LineFlush::Clwb => {
            isa::sfence();
            // SAFETY: forwarded contract (CLWB present, ranges mapped).
            unsafe { each_line(ranges, line, |p| isa::clwb(p)) };
            isa::sfence();
        }
    }
}

/// Calls `f` with the first address of each line the ranges touch.
///
/// # Safety
/// `f` must be sound to call on any address inside a range.
#[inline(always)]
unsafe fn each_line(ranges: &[(*const u8, usize)], line: usize, f: impl Fn(*const u8)) {
    for &(addr, len) in ranges {
        if len == 0 {
            continue;
        }
        // Line addresses are derived from the range's own pointer so that
        // they keep its provenance; the first may lie before `addr` in the
        // same line, which is still mapped (mappings are page-granular).
        let end = addr as usize + len;
        let mut p = addr.wrapping_sub(addr as usize & (line - 1));
        while (p as usize) < end {
            f(p);
            p = p.wrapping_add(line);
        }
    }
}

/// Executes one serializing instruction.
///
/// # Safety
/// The CPU has it (SERIALIZE: CPUID.7.0:EDX\[14\]); for IRET-to-self, no
/// user shadow stack is active.
#[inline]
pub(super) unsafe fn serialize_with(s: Serializer) {
    match s {
        Serializer::Cpuid => {
            // HotSpot X86ICacheSync=4: CPUID with EAX = 0.
            std::hint::black_box(isa::cpuid(0, 0));
        }
        // SAFETY: forwarded contract.
        Serializer::Serialize => unsafe { isa::serialize() },
        // SAFETY: forwarded contract.
        Serializer::IretToSelf => unsafe { isa::iret_to_self() },
    }
}

/// Whether a CET user shadow stack is active in this process, which makes
/// IRET-to-self fault. Asked once, with `arch_prctl(ARCH_SHSTK_STATUS)`;
/// kernels without shadow-stack support reject the call, which means "no".
///
/// Shadow stacks are enabled by the dynamic loader at start-up, for binaries
/// whose every object is marked SHSTK-compatible, and are inherited by new
/// threads, so the answer does not change after `main` starts.
pub(super) fn shadow_stack_active() -> bool {
    static ACTIVE: OnceLock<bool> = OnceLock::new();
    *ACTIVE.get_or_init(|| {
        const ARCH_SHSTK_STATUS: libc::c_long = 0x5005;
        const ARCH_SHSTK_SHSTK: u64 = 1;
        let mut features: u64 = 0;
        // SAFETY: ARCH_SHSTK_STATUS writes one u64 through the pointer,
        // which points at a live local; it has no other effect.
        let rc = unsafe { libc::syscall(libc::SYS_arch_prctl, ARCH_SHSTK_STATUS, &mut features as *mut u64) };
        rc == 0 && features & ARCH_SHSTK_SHSTK != 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_line_visits_every_touched_line_once() {
        let buf = [0u8; 512];
        let base = buf.as_ptr();
        let visited = std::cell::RefCell::new(Vec::new());
        let r = [(base.wrapping_add(10), 100), (base.wrapping_add(300), 1)];
        // SAFETY: the closure only records addresses.
        unsafe { each_line(&r, 64, |p| visited.borrow_mut().push(p as usize)) };
        let v = visited.into_inner();
        let line0 = (base as usize + 10) & !63;
        let expect_first = (line0..base as usize + 110).step_by(64).count();
        assert_eq!(v.len(), expect_first + 1);
        assert!(v.iter().all(|a| a % 64 == 0));
        assert_eq!(v[0], line0);
    }

    #[test]
    fn this_test_binary_has_no_shadow_stack() {
        assert!(!shadow_stack_active());
    }
}

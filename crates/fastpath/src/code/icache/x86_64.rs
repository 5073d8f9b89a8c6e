//! x86-64 backend of the sync strategies: the line loops and the
//! serializing instructions, as HotSpot's `x86_generate_icache_flush_insn`
//! and `x86_generate_icache_fence` emit them (JDK-8353558).

#[cfg(test)]
use core::cell::Cell;

use super::{each_line, LineFlush, Serializer};
use crate::arch::x86_64 as isa;
use crate::cpu::Feature;

/// Runs `op` over every line of every range, bracketed once by the fence the
/// instruction's ordering rules need: MFENCE for CLFLUSH (ordered with
/// stores and other CLFLUSHes, so the fences order it with the surrounding
/// code writes), SFENCE for CLFLUSHOPT and CLWB (weakly ordered; SFENCE
/// orders them with the stores before and after).
///
/// # Safety
/// The CPU has `op`'s feature (checked by `ICacheStrategy::new`); every range is
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

/// Executes one serializing instruction and returns the one it executed:
/// `s`, except that IRET-to-self on a thread with an active user shadow
/// stack (where it would fault) becomes SERIALIZE if the CPU has it, else
/// CPUID. The check is per call and per thread, because shadow-stack status
/// is per thread ([`shadow_stack_active`]): a strategy resolved to IRET on
/// one thread stays safe on every other. Its cost is one RDSSP (a NOP here)
/// and a branch, next to an IRETQ of about 45 ns.
///
/// # Safety
/// The CPU has `s` (SERIALIZE: CPUID.7.0:EDX\[14\]).
#[inline]
pub(super) unsafe fn serialize_with(s: Serializer) -> Serializer {
    match s {
        Serializer::Cpuid => {
            // HotSpot X86ICacheSync=4: CPUID with EAX = 0.
            std::hint::black_box(isa::cpuid(0, 0));
        }
        // SAFETY: forwarded contract.
        Serializer::Serialize => unsafe { isa::serialize() },
        Serializer::IretToSelf => {
            if shadow_stack_active() {
                return serialize_without_iret();
            }
            // SAFETY: no shadow stack is active on this thread (read just
            // above, from the CPU).
            unsafe { isa::iret_to_self() }
        }
    }
    s
}

/// IRET's replacement on a thread with a shadow stack: SERIALIZE if present,
/// else CPUID (HotSpot's `cross_modify_fence` choices).
#[cold]
#[inline(never)]
fn serialize_without_iret() -> Serializer {
    if crate::cpu::info().has(Feature::Serialize) {
        // SAFETY: the CPU has SERIALIZE (checked just above).
        unsafe { isa::serialize() };
        Serializer::Serialize
    } else {
        std::hint::black_box(isa::cpuid(0, 0));
        Serializer::Cpuid
    }
}

/// Whether a CET user shadow stack is active *on the calling thread*, which
/// makes IRET-to-self fault. Linux keeps shadow-stack status per thread
/// (`arch_prctl(ARCH_SHSTK_ENABLE/DISABLE)` act on the caller; a new thread
/// inherits its creator's), so it is read at every use, with RDSSP: the
/// shadow-stack pointer, 0 where none is active (a NOP on CPUs without CET).
/// One instruction, no system call, and nothing cached that could go stale.
#[inline(always)]
pub(super) fn shadow_stack_active() -> bool {
    #[cfg(test)]
    if PRETEND_SHADOW_STACK.with(Cell::get) {
        return true;
    }
    isa::rdssp() != 0
}

#[cfg(test)]
std::thread_local! {
    static PRETEND_SHADOW_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Tests: make this thread behave as if it had a shadow stack (the test
/// binary cannot have a real one: its ELF lacks the SHSTK property).
#[cfg(test)]
pub(super) fn pretend_shadow_stack_on_this_thread() {
    PRETEND_SHADOW_STACK.with(|c| c.set(true));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_test_binary_has_no_shadow_stack() {
        assert!(!shadow_stack_active());
    }

    #[test]
    fn iret_falls_back_per_thread_when_a_shadow_stack_is_active() {
        let fallback = if crate::cpu::info().has(Feature::Serialize) {
            Serializer::Serialize
        } else {
            Serializer::Cpuid
        };
        std::thread::spawn(move || {
            pretend_shadow_stack_on_this_thread();
            assert!(shadow_stack_active());
            // SAFETY: IRET's arm checks this thread's status; the fallback
            // only uses an instruction the CPU has.
            assert_eq!(unsafe { serialize_with(Serializer::IretToSelf) }, fallback);
        })
        .join()
        .unwrap();
        // Another thread's status is not ours.
        assert!(!shadow_stack_active());
        // SAFETY: no shadow stack on this thread (checked just above).
        let ran = unsafe { serialize_with(Serializer::IretToSelf) };
        assert_eq!(ran, Serializer::IretToSelf);
    }
}

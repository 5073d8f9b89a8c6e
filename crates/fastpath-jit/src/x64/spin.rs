//! x86-64 on-spin-wait ([`crate::template::spin`]): the resolved pause
//! repeated its count:
//! - `pause`: `PAUSE` (`F3 90`), clobbers nothing;
//! - `none`: no instruction (the baseline);
//! - `tpause`: `rdtsc; add eax, 128; adc edx, 0; mov ecx, 1; tpause ecx`
//!   (C0.1 with a 128-tick deadline, as `fastpath::spin::Tpause`), clobbers
//!   rax, rcx, rdx ([`SpinWait::new`](crate::SpinWait::new) refuses it
//!   unless the CPU has WAITPKG: a value error, never `#UD`).

use dynasmrt::{dynasm, x64::X64Relocation};
use fastpath::spin::PauseInstruction;

use super::X64Asm;
use crate::isa::Isa;
use crate::template::Labels;
use crate::template::{Emit, SpinWait, TemplateError};

/// TSC ticks to the TPAUSE deadline: `fastpath::spin::Tpause::DEADLINE_TICKS`
/// (about one PAUSE), so template and Rust pause alike.
pub const TPAUSE_DEADLINE_TICKS: i32 = 128;

impl Emit<X64Relocation> for SpinWait {
    /// Never branches: `labels` is unused.
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, _labels: Labels) -> Result<(), TemplateError> {
        let pause = self.pause();
        if self.per_pause(Isa::X64).is_none() {
            return Err(TemplateError::Unsupported {
                what: pause.instruction.name(),
                isa: Isa::X64,
            });
        }
        for _ in 0..pause.repeat {
            match pause.instruction {
                PauseInstruction::Pause => dynasm!(ops ; .arch x64 ; pause),
                PauseInstruction::Tpause => {
                    dynasm!(ops
                        ; .arch x64
                        ; rdtsc
                        ; add eax, TPAUSE_DEADLINE_TICKS
                        ; adc edx, 0
                        ; mov ecx, 1
                    );
                    // TPAUSE ecx: 66 0F AE /6, ModRM 11 110 001.
                    ops.extend([0x66u8, 0x0F, 0xAE, 0xF1]);
                }
                _ => {}
            }
        }
        Ok(())
    }
}

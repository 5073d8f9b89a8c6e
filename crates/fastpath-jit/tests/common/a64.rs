//! AArch64 register names and a template's instruction words, on any host
//! (emitting is bit manipulation).

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath_jit::aarch64::{Template, TemplateError};
use fastpath_jit::reg::Reg;
use fastpath_jit::Labels;

pub const X0: Reg = Reg(0);
pub const X1: Reg = Reg(1);
pub const X2: Reg = Reg(2);
pub const X3: Reg = Reg(3);
pub const X4: Reg = Reg(4);
pub const X9: Reg = Reg(9);

/// The template's words, with `slow` and `done` bound right after it;
/// checks the count within the budget.
pub fn words<T: Template>(t: &T) -> Result<Vec<u32>, TemplateError> {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    t.emit(&mut ops, labels)?;
    let n = ops.offset().0 / 4;
    dynasm!(ops ; .arch aarch64 ; =>labels.slow ; =>labels.done ; brk 0);
    let code = ops.finalize().unwrap();
    let w: Vec<u32> = code
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!(w.len() == n + 1);
    println!("aarch64 {}: {n} instructions, budget {}", t.name(), t.budget());
    assert!(n <= t.budget());
    Ok(w[..n].to_vec())
}

/// Instructions `emit` writes (every AArch64 instruction is one word).
pub fn count(emit: &dyn Fn(&mut VecAssembler<Aarch64Relocation>, Labels)) -> usize {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    emit(&mut ops, labels);
    ops.offset().0 / 4
}

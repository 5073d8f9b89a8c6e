//! On-spin-wait for Cranelift JITs. CLIF has no pause instruction and
//! Cranelift no inline assembly (wasmtime#1041), so the configured pause
//! (`fastpath::spin::active()`: PAUSE×n, TPAUSE, ISB, YIELD…) is the dynasm
//! template's bytes followed by `ret`, installed once in the code cache by
//! [`install_pause`], and [`spin_wait`] is a call to it: the call and the
//! return are the cost over an inlined template (a spin loop waits anyway).

use cranelift_codegen::ir::{FuncRef, InstBuilder};
use cranelift_frontend::FunctionBuilder;
use dynasmrt::{DynasmApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};

use crate::Error;

/// Installs `pause; ret` for the process's configured pause in `cache`:
/// the function [`spin_wait`]'s import resolves to.
pub fn install_pause(cache: &CodeCache) -> Result<Entry, Error> {
    let bytes = pause_bytes();
    cache.install(&bytes).map_err(Error::Install)
}

#[cfg(target_arch = "x86_64")]
fn pause_bytes() -> Vec<u8> {
    use fastpath_jit::x64::Template;
    let mut ops = VecAssembler::<dynasmrt::x64::X64Relocation>::new(0);
    let labels = fastpath_jit::Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    fastpath_jit::x64::SpinWait::configured().emit(&mut ops, labels);
    ops.push(0xC3); // ret
    ops.finalize().expect("no label is referenced")
}

#[cfg(target_arch = "aarch64")]
fn pause_bytes() -> Vec<u8> {
    use fastpath_jit::aarch64::Template;
    let mut ops = VecAssembler::<dynasmrt::aarch64::Aarch64Relocation>::new(0);
    let labels = fastpath_jit::Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    fastpath_jit::aarch64::SpinWait::configured()
        .emit(&mut ops, labels)
        .expect("the configured pause is an AArch64 one");
    ops.push_u32(0xD65F_03C0); // ret
    ops.finalize().expect("no label is referenced")
}

/// One on-spin-wait: a call to the function [`install_pause`] installed,
/// imported by the JIT as a no-argument function
/// (`import_slow_path(b, index, 0, true)`: colocated, a PC-relative call).
pub fn spin_wait(b: &mut FunctionBuilder<'_>, pause: FuncRef) {
    b.ins().call(pause, &[]);
}

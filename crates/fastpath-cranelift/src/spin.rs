//! On-spin-wait for Cranelift JITs. CLIF has no pause instruction and
//! Cranelift no inline assembly (wasmtime#1041), so the configured pause
//! (`fastpath::spin::active()`: PAUSE×n, TPAUSE, ISB, YIELD…) is the dynasm
//! template's bytes followed by `ret`, installed once in the code cache by
//! [`install_pause`], and [`spin_wait`] is a call to it: the call and the
//! return are the cost over an inlined template (a spin loop waits anyway).

use cranelift_codegen::ir::{FuncRef, InstBuilder};
use cranelift_frontend::FunctionBuilder;
use dynasmrt::VecAssembler;
use fastpath::code::{CodeCache, Entry};
use fastpath_jit::{Emit, Isa, SpinWait};

use crate::link::Error;

/// Installs `pause; ret` for the process's configured pause in `cache`:
/// the function [`spin_wait`]'s import resolves to.
pub fn install_pause(cache: &CodeCache) -> Result<Entry, Error> {
    let bytes = pause_bytes();
    cache.install(&bytes).map_err(Error::Install)
}

/// The configured pause's template bytes and a return.
fn pause_bytes() -> Vec<u8> {
    #[cfg(target_arch = "x86_64")]
    type Host = dynasmrt::x64::X64Relocation;
    #[cfg(target_arch = "aarch64")]
    type Host = dynasmrt::aarch64::Aarch64Relocation;
    let mut ops = VecAssembler::<Host>::new(0);
    let labels = fastpath_jit::Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    SpinWait::configured()
        .emit(&mut ops, labels)
        .expect("the configured pause is the host's");
    // x86-64 `ret` (C3); AArch64 `ret` (D65F03C0).
    let ret: &[u8] = match <Host as fastpath_jit::Arch>::ISA {
        Isa::X64 => &[0xC3],
        Isa::Aarch64 => &[0xC0, 0x03, 0x5F, 0xD6],
    };
    ops.extend(ret.iter().copied());
    ops.finalize().expect("no label is referenced")
}

/// One on-spin-wait: a call to the function [`install_pause`] installed,
/// imported by the JIT as a no-argument function
/// (`import_slow_path(b, index, 0, true)`: colocated, a PC-relative call).
pub fn spin_wait(b: &mut FunctionBuilder<'_>, pause: FuncRef) {
    b.ins().call(pause, &[]);
}

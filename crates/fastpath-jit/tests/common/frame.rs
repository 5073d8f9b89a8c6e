//! What a test function around templates needs from its ISA (a frame that
//! keeps the stack pointer 16-byte aligned where templates and stubs run,
//! its return, a jump), and the layout a JIT gives a barrier whose idle
//! test has an out-of-line medium path, written once over them. Emitting
//! is bit manipulation: both ISAs build on every host; a binary runs its
//! host's.

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath_jit::reg::Reg;
use fastpath_jit::{Arch, EmitStub, Emitter, Labels, SlowStub};

/// An ISA's pieces of a test function.
pub trait Frame: Arch + Sized {
    /// Opens the frame: the stack pointer 16-byte aligned after it.
    fn prologue(ops: &mut VecAssembler<Self>);
    /// Moves `result` (if any) into the return register, closes the frame
    /// and returns.
    fn epilogue(ops: &mut VecAssembler<Self>, result: Option<Reg>);
    /// An unconditional jump to `to`.
    fn jump(ops: &mut VecAssembler<Self>, to: DynamicLabel);
}

impl Frame for X64Relocation {
    fn prologue(ops: &mut VecAssembler<Self>) {
        dynasm!(ops ; .arch x64 ; push rbx);
    }
    fn epilogue(ops: &mut VecAssembler<Self>, result: Option<Reg>) {
        if let Some(r) = result.filter(|r| r.0 != 0) {
            dynasm!(ops ; .arch x64 ; mov rax, Rq(r.0));
        }
        dynasm!(ops ; .arch x64 ; pop rbx ; ret);
    }
    fn jump(ops: &mut VecAssembler<Self>, to: DynamicLabel) {
        dynasm!(ops ; .arch x64 ; jmp =>to);
    }
}

impl Frame for Aarch64Relocation {
    fn prologue(ops: &mut VecAssembler<Self>) {
        dynasm!(ops ; .arch aarch64 ; stp x29, x30, [sp, #-16]! ; mov x29, sp);
    }
    fn epilogue(ops: &mut VecAssembler<Self>, result: Option<Reg>) {
        if let Some(r) = result.filter(|r| r.0 != 0) {
            dynasm!(ops ; .arch aarch64 ; mov x0, X(r.0));
        }
        dynasm!(ops ; .arch aarch64 ; ldp x29, x30, [sp], #16 ; ret);
    }
    fn jump(ops: &mut VecAssembler<Self>, to: DynamicLabel) {
        dynasm!(ops ; .arch aarch64 ; b =>to);
    }
}

/// A barrier as a JIT lays it out: `idle` inline, then `at_done` (the rest
/// of the function, bound at the idle test's `done`); out of line the
/// `medium` path at the idle test's `slow` label, falling through to a
/// jump back to `done`, and `stub` at the medium path's `slow` label,
/// resuming at `done`.
pub fn idle_then_medium<R: Frame>(
    ops: &mut VecAssembler<R>,
    idle: &dyn Emitter<R>,
    medium: &dyn Emitter<R>,
    stub: &SlowStub,
    at_done: impl FnOnce(&mut VecAssembler<R>),
) where
    SlowStub: EmitStub<R>,
{
    let (medium_at, slow, done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    idle.emit_into(
        ops,
        Labels {
            slow: medium_at,
            done,
        },
    )
    .unwrap();
    ops.dynamic_label(done);
    at_done(ops);
    ops.dynamic_label(medium_at);
    medium.emit_into(ops, Labels { slow, done }).unwrap();
    R::jump(ops, done);
    stub.emit(ops, slow, done).unwrap();
}

/// A whole function of [`idle_then_medium`] in `R`'s frame, returning
/// `result`, installed in `cache`.
pub fn idle_then_medium_function<R: Frame>(
    cache: &CodeCache,
    idle: &dyn Emitter<R>,
    medium: &dyn Emitter<R>,
    stub: &SlowStub,
    result: Option<Reg>,
) -> Entry
where
    SlowStub: EmitStub<R>,
{
    let mut ops = VecAssembler::<R>::new(0);
    R::prologue(&mut ops);
    idle_then_medium(&mut ops, idle, medium, stub, |ops| R::epilogue(ops, result));
    cache.install(&ops.finalize().unwrap()).unwrap()
}

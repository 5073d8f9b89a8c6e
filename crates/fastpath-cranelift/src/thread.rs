//! The thread-block tests as CLIF (the templates described in
//! `fastpath_jit::template::thread`): the safepoint poll and the SATB and
//! LRB idle tests, a byte of the thread block tested and, when set, a cold
//! block calling the slow path. Cranelift loads the byte into a register
//! first: one instruction more than the x86-64 template (`tests/run.rs`
//! counts them).

use cranelift_codegen::ir::{types::I32, FuncRef, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use fastpath_jit::ThreadLayout;

use crate::slow::cold_call;

/// `if [thread+off] & mask != 0 { call slow(args) }` with the call in a
/// cold block; the builder continues in the block after it.
fn test_and_call(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    off: i32,
    mask: u8,
    slow: FuncRef,
    args: &[Value],
) {
    let cold = b.create_block();
    let cont = b.create_block();
    // The byte is thread-private state, read as the Rust fast path reads it.
    let v = b.ins().uload8(I32, MemFlagsData::trusted(), thread, off);
    let bit = b.ins().band_imm_u(v, i64::from(mask));
    b.ins().brif(bit, cold, &[], cont, &[]);
    cold_call(b, cold, slow, args, cont);
    b.switch_to_block(cont);
}

/// The safepoint poll: `slow(thread)` when the poll bit is set.
pub fn safepoint_poll(b: &mut FunctionBuilder<'_>, thread: Value, layout: &ThreadLayout, slow: FuncRef) {
    test_and_call(b, thread, layout.poll, layout.poll_bit, slow, &[thread]);
}

/// The SATB idle test: `slow(thread, previous)` while marking.
pub fn satb_pre_barrier(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    previous: Value,
    layout: &ThreadLayout,
    slow: FuncRef,
) {
    test_and_call(
        b,
        thread,
        layout.gc_state,
        layout.marking_bit,
        slow,
        &[thread, previous],
    );
}

/// The LRB idle test: `slow(thread, obj)` while forwarded objects exist
/// (a slow path that resolves in place: the object's copy is found by the
/// caller's next read through the barrier).
pub fn lrb_idle_test(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    layout: &ThreadLayout,
    slow: FuncRef,
) {
    test_and_call(
        b,
        thread,
        layout.gc_state,
        layout.has_forwarded_bit,
        slow,
        &[thread, obj],
    );
}

//! Compiled frames and the context compiled code reaches the VM through.
//!
//! Where it sits: between the interpreter's slot stack (`interp/stack.rs`)
//! and the code `translate.rs` emits. A compiled method keeps its values
//! in Cranelift's registers and native stack, and also owns a frame on the
//! thread's slot stack with exactly the interpreter's layout (locals, a
//! [`FrameHeader`], operand stack), which it fills only at safepoints:
//!
//! ```text
//!  locals[0 .. max_locals]     a reference local is stored here before a safepoint
//!  FrameHeader                 method, caller (bit 0: entered from Rust),
//!                              caller_pc (when the caller is interpreted),
//!                              link = the position, flags = COMPILED,
//!                              sync_obj (zeroed before the entry poll)
//!  operand stack[0 .. max_stack]
//! ```
//!
//! Before every call that can reach a safepoint, compiled code writes its
//! position (the instruction index, with [`IN_CALL`] while a callee owns
//! the arguments) into `link`, stores every reference the interpreter's
//! reference map names at that instruction into its slot, and publishes
//! the frame as the thread's top frame; after the call it reloads those
//! references (the collector may have moved them). A throw whose
//! exception leaves the compiled method stores and reloads none: its
//! frames' positions carry [`UNWINDING`], and the scanner passes over
//! their slots. So the root scanner,
//! stack traces and the unwinder walk one chain of frames, interpreted and
//! compiled alike, and read a compiled frame with the interpreter's maps
//! (the scheme Cranelift's user stack maps implement, with the spill
//! slots in the slot stack instead of the native frame: no native stack
//! walking, and the same layout on x86-64 and AArch64).
//!
//! An inlined callee (`translate.rs`) has its frame where the call would
//! have put it, and writes it, header included, only at its own
//! safepoints, its callers' frames with it: between safepoints no one
//! reads the slot stack, so a frame that is never published costs
//! nothing. A safepoint leaves out the words an earlier one on the same
//! path left holding the same value (`facts.rs`, `frame_words`): the
//! headers of the method's frames, which no callee writes (a callee's
//! frame starts at its arguments, above them), and the references its
//! reload read, which nothing writes before the next stop; so of two calls
//! in a row the second writes only its position. A loop's head keeps the
//! header words of the frames around the loop that every way into it
//! wrote (`Translator::loop_header_words`), and an inlined callee with a
//! call in a loop writes its header where it is entered, so a call in the
//! loop writes its position and references alone, every trip. A leaf method (small, its calls all inlined or on paths that
//! only throw, `Translator::is_leaf`) does nearly the same with its own
//! header: its entry checks the slot stack and stores only the caller,
//! and each of its safepoints, all on cold paths, stores the method and
//! `COMPILED` with the frame.
//!
//! On-stack replacement turns an interpreted frame into a compiled one in
//! place: the layout is the same, so the interpreter (`entry.rs`,
//! `JThread::osr_enter`) only rewrites the header's `flags` to
//! `COMPILED`, tags `caller` with [`CALLER_ENTRY`] when the frame was
//! entered from Rust, sets `link` to the entry's position, and calls the
//! method's OSR entry (`translate.rs`, `prologue_osr`) with the frame,
//! which loads the live locals from their slots and runs on; when it
//! returns, the interpreter restores the header and pops the frame.
//!
//! Compiled code holds the thread block (the fast paths' state at its
//! published offsets) in Cranelift's pinned register (r15 on x86-64, x21
//! on AArch64), as HotSpot's compiled code holds its `JavaThread` in r15:
//! every lock, barrier, poll and allocation addresses it directly. The
//! block's runtime context word (`fastpath::thread::RUNTIME_CONTEXT_OFFSET`)
//! names the thread's slot stack, set by every entry from Rust; the stack
//! holds [`JitCtx`], what the rest of the VM's per-thread state compiled
//! code and its helpers need (as wasmtime's `vmctx`): the slot stack's
//! limits, the thread.

use std::cell::Cell;

use fastpath::thread::ThreadBlock;

use crate::interp::stack::{FrameHeader, ThreadStack};

/// `FrameHeader::flags`: a compiled frame (its `link` is its position).
pub const COMPILED: usize = 2;

/// In a compiled frame's position: a call is in progress, so the callee
/// owns the arguments (the scanner leaves them to the callee's frame).
/// Above every instruction index (a method has at most 65535 bytes of
/// code) and below 2^31, so that a position with it is a sign-extended
/// 32-bit immediate: one `mov $imm32, mem` on x86-64 where a wider
/// constant takes a `movabs` into a register first.
pub const IN_CALL: usize = 1 << 30;

/// In a compiled frame's position: an exception thrown at the position
/// leaves the frame (no handler of the compiled method covers it), so its
/// locals and operands hold no roots: the throw's stop stores none of
/// them, and the scanner reads none (the `sync_obj` word stays a root,
/// which the unlock on the way out reads). Stack traces read the
/// position's index as at any other stop. Above every instruction index
/// and below [`IN_CALL`].
pub const UNWINDING: usize = 1 << 29;

/// The position word's instruction index.
pub const POSITION_MASK: usize = UNWINDING - 1;

/// In a compiled frame's `caller` word: the frame was entered from Rust
/// (its caller's operands are all live, as below an interpreter entry
/// frame).
pub const CALLER_ENTRY: usize = 1;

/// The per-thread context of compiled code and its helpers (inside the
/// slot stack the thread block's runtime context word names).
#[repr(C)]
pub struct JitCtx {
    /// The thread block, which every entry from Rust puts in the pinned
    /// register (the attaching thread's: a `JThread` runs on no other).
    pub block: Cell<*const ThreadBlock>,
    /// The highest slot address a compiled frame may end at (the slot
    /// stack's end less the reserve kept for throwing
    /// `StackOverflowError`, or the end itself while one is made).
    pub limit: Cell<usize>,
    /// The lowest native stack address compiled code may grow to.
    pub native_limit: Cell<usize>,
    /// The `JThread` running on this thread (set at every entry from
    /// Rust: it is the same object, at the same address, for the thread's
    /// whole life in Java code).
    pub thread: Cell<*mut ()>,
}

/// Byte offsets compiled code reads.
pub mod off {
    use super::*;

    /// `ThreadStack::jit`: the context, from the slot stack that the
    /// thread block's runtime context word names.
    pub const STACK_CTX: i32 = std::mem::offset_of!(ThreadStack, jit) as i32;
    /// `JitCtx::limit`, from the slot stack.
    pub const STACK_LIMIT: i32 = STACK_CTX + std::mem::offset_of!(JitCtx, limit) as i32;
    /// `JitCtx::native_limit`, from the slot stack.
    pub const STACK_NATIVE_LIMIT: i32 = STACK_CTX + std::mem::offset_of!(JitCtx, native_limit) as i32;
    /// `ThreadStack::top_frame`.
    pub const STACK_TOP_FRAME: i32 = std::mem::offset_of!(ThreadStack, top_frame) as i32;
    /// `ThreadStack::sp`.
    pub const STACK_SP: i32 = std::mem::offset_of!(ThreadStack, sp) as i32;
    /// `ThreadStack::pending`.
    pub const STACK_PENDING: i32 = std::mem::offset_of!(ThreadStack, pending) as i32;
    /// `FrameHeader::method`.
    pub const FRAME_METHOD: i32 = std::mem::offset_of!(FrameHeader, method) as i32;
    /// `FrameHeader::caller`.
    pub const FRAME_CALLER: i32 = std::mem::offset_of!(FrameHeader, caller) as i32;
    /// `FrameHeader::link`.
    pub const FRAME_LINK: i32 = std::mem::offset_of!(FrameHeader, link) as i32;
    /// `FrameHeader::flags`.
    pub const FRAME_FLAGS: i32 = std::mem::offset_of!(FrameHeader, flags) as i32;
    /// `FrameHeader::sync_obj`.
    pub const FRAME_SYNC_OBJ: i32 = std::mem::offset_of!(FrameHeader, sync_obj) as i32;
}

/// How deep the native stack may grow below the address of a local of the
/// function that attaches a thread: its size less a margin for the Rust
/// frames (the interpreter's, the natives') between two checks.
pub fn native_limit_below(top: usize, native_stack_bytes: usize) -> usize {
    const MARGIN: usize = 512 << 10;
    top.saturating_sub(native_stack_bytes.saturating_sub(MARGIN))
}

/// The status an on-stack-replacement entry returns when its stack checks
/// fail before it ran anything (the interpreter keeps the frame).
pub const OSR_NOT_ENTERED: u64 = 2;

/// What a compiled method returns through an adapter, and a helper that
/// runs Java for compiled code: the result's bits as an interpreter slot
/// holds them, and 0 (normal) or 1 (an exception is pending).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Ret {
    /// The value (long and double whole, int sign-extended, float bits).
    pub value: u64,
    /// 0, or 1 when an exception is pending.
    pub status: u64,
}

//! A thread's Java stack: one contiguous array of 64-bit slots holding
//! every interpreted frame, and the root scanner that reports the frames'
//! references to the collector.
//!
//! Where it sits: the interpreter (`exec.rs`) pushes and pops frames here
//! and publishes its position (top frame, current instruction, first free
//! slot) before every point where the thread may stop for the collector;
//! the collector calls [`StackScanner`]'s `scan` in its pauses (registered on
//! the thread's mutator as a `fastpath::gc::RootScanner`).
//!
//! A frame (HotSpot's interpreter frame, simplified):
//!
//! ```text
//!  locals[0 .. max_locals]        the caller's pushed arguments are locals 0..
//!  FrameHeader (HEADER_SLOTS)     method, caller frame, caller instruction,
//!                                 link (caller locals, or a compiled frame's
//!                                 position), flags, the synchronized lock
//!  operand stack[0 .. max_stack]
//! ```
//!
//! References are found exactly from each frame's reference map
//! (`oopmap.rs`) at its current instruction: the top frame's on entry to
//! the instruction it is executing (every instruction makes its safepoints
//! before it overwrites a slot), a caller's on entry to its invoke less
//! the arguments (they are the callee's locals, reported once, there),
//! except below a frame entered from Rust (`ENTRY`): that caller is in
//! the middle of an instruction whose operands are all still live (a
//! native's arguments, the operands of a `new` running `<clinit>`).
//!
//! Compiled frames (`jit/frame.rs`) have the same layout and flag
//! `COMPILED`: each says its own position (`link`), the instruction whose
//! map names the references it stored there at its last safepoint, with
//! `IN_CALL` when a callee owns its arguments, and with `UNWINDING` when
//! an exception is leaving it (no slot of it a root).

use std::cell::{Cell, UnsafeCell};

use super::insn::Insn;
use crate::jit::frame::{JitCtx, CALLER_ENTRY, COMPILED, IN_CALL, POSITION_MASK, UNWINDING};
use crate::link::Method;

/// Slots a frame header takes.
pub const HEADER_SLOTS: usize = 6;

/// The frame was entered from Rust (a nested interpreter loop): its return
/// ends that loop, and its caller's operands are all live.
pub const ENTRY: usize = 1;

/// A frame's header, in the slot array between its locals and its operand
/// stack.
#[repr(C)]
pub struct FrameHeader {
    /// The frame's method.
    pub method: &'static Method,
    /// The calling frame (null at the bottom).
    pub caller: *mut FrameHeader,
    /// The caller's current instruction (the invoke, or the instruction
    /// that called into Rust).
    pub caller_pc: *const Insn,
    /// An interpreted frame's caller's locals (a `*mut u64`); a compiled
    /// frame's position (`jit::frame`).
    pub link: usize,
    /// [`ENTRY`], `jit::frame::COMPILED`, or 0.
    pub flags: usize,
    /// The object a synchronized method locked (0 otherwise): a root.
    pub sync_obj: usize,
}

const _: () = assert!(std::mem::size_of::<FrameHeader>() == HEADER_SLOTS * 8);

impl FrameHeader {
    /// Whether compiled code runs this frame.
    #[inline]
    pub fn is_compiled(&self) -> bool {
        self.flags & COMPILED != 0
    }

    /// The calling frame (a compiled frame tags its caller word).
    #[inline]
    pub fn caller_frame(&self) -> *mut FrameHeader {
        (self.caller as usize & !CALLER_ENTRY) as *mut FrameHeader
    }

    /// Whether the frame was entered from Rust (its caller's operands are
    /// all live).
    #[inline]
    pub fn entered_from_rust(&self) -> bool {
        self.flags & ENTRY != 0 || (self.is_compiled() && self.caller as usize & CALLER_ENTRY != 0)
    }

    /// A compiled frame's current instruction, and whether a callee owns
    /// its call's arguments.
    #[inline]
    pub fn compiled_position(&self) -> (usize, bool) {
        (self.link & POSITION_MASK, self.link & IN_CALL != 0)
    }

    /// Whether a compiled frame is leaving by an exception, its slots
    /// holding no roots (`jit::frame::UNWINDING`).
    #[inline]
    pub fn compiled_unwinding(&self) -> bool {
        self.link & UNWINDING != 0
    }
}

/// The slot array and the published position of the interpreter in it.
pub struct ThreadStack {
    base: *mut u64,
    limit: *mut u64,
    /// The top frame (null: none).
    pub top_frame: Cell<*mut FrameHeader>,
    /// The top frame's current instruction, published before a safepoint.
    pub top_pc: Cell<*const Insn>,
    /// The first free slot (where a call from Rust puts its arguments).
    pub sp: Cell<*mut u64>,
    /// References Rust code keeps across a safepoint (natives, the VM).
    pub temp_roots: UnsafeCell<Vec<usize>>,
    /// The exception being thrown (0: none).
    pub pending: Cell<usize>,
    /// The `java.lang.Thread` object of the thread (0 until made).
    pub thread_obj: Cell<usize>,
    /// A `StackOverflowError` is being made: frames may use the reserve
    /// below the stack's end (the interpreter's yellow zone).
    pub in_overflow: Cell<bool>,
    /// The context compiled code runs with (`jit/frame.rs`).
    pub jit: JitCtx,
    /// The instruction a backward branch of the interpreter's current
    /// frame asks on-stack replacement at (`exec.rs`), or
    /// `exec::NO_OSR`: kept here, out of the dispatch loop's registers.
    pub osr_at: Cell<usize>,
    _mem: Box<[u64]>,
}

// SAFETY: a `ThreadStack` is written only by its thread while that thread
// runs (not stopped, not in a safe region); the collector reads and
// rewrites the slots only while the thread is stopped at a safepoint, and
// the safepoint protocol orders the two (its mutex and epoch word). No two
// threads ever access it at once.
unsafe impl Sync for ThreadStack {}
// SAFETY: as `Sync`: the raw pointers point into `_mem`, owned by the value.
unsafe impl Send for ThreadStack {}

impl ThreadStack {
    /// A stack of `bytes` (rounded down to slots, at least 4 KiB).
    pub fn new(bytes: usize) -> ThreadStack {
        let slots = (bytes / 8).max(512);
        let mut mem = vec![0u64; slots].into_boxed_slice();
        let base = mem.as_mut_ptr();
        // SAFETY: one past the end of the allocation.
        let limit = unsafe { base.add(slots) };
        ThreadStack {
            base,
            limit,
            top_frame: Cell::new(std::ptr::null_mut()),
            top_pc: Cell::new(std::ptr::null()),
            sp: Cell::new(base),
            temp_roots: UnsafeCell::new(Vec::new()),
            pending: Cell::new(0),
            thread_obj: Cell::new(0),
            in_overflow: Cell::new(false),
            osr_at: Cell::new(super::exec::NO_OSR),
            jit: JitCtx {
                block: Cell::new(std::ptr::null()),
                limit: Cell::new(0),
                native_limit: Cell::new(0),
                thread: Cell::new(std::ptr::null_mut()),
            },
            _mem: mem,
        }
    }

    /// The lowest slot.
    pub fn base(&self) -> *mut u64 {
        self.base
    }

    /// One past the highest slot.
    pub fn limit(&self) -> *mut u64 {
        self.limit
    }

    /// Pushes a temporary root; returns its index for [`ThreadStack::temp`].
    pub fn push_temp(&self, v: usize) -> usize {
        // SAFETY: only this thread touches `temp_roots` outside pauses.
        let t = unsafe { &mut *self.temp_roots.get() };
        t.push(v);
        t.len() - 1
    }

    /// The current value of temporary root `i`.
    pub fn temp(&self, i: usize) -> usize {
        // SAFETY: as `push_temp`.
        unsafe { (&*self.temp_roots.get())[i] }
    }

    /// Sets temporary root `i`.
    pub fn set_temp(&self, i: usize, v: usize) {
        // SAFETY: as `push_temp`.
        unsafe { (&mut *self.temp_roots.get())[i] = v }
    }

    /// Pops temporary roots down to `len`.
    pub fn truncate_temps(&self, len: usize) {
        // SAFETY: as `push_temp`.
        unsafe { (&mut *self.temp_roots.get()).truncate(len) }
    }

    /// Number of temporary roots.
    pub fn temps_len(&self) -> usize {
        // SAFETY: as `push_temp`.
        unsafe { (&*self.temp_roots.get()).len() }
    }

    /// Visits every reference of the frames, the temporary roots and the
    /// pending exception (the scanner's work; in a pause).
    pub fn visit_roots(&self, visit: &mut dyn FnMut(&mut usize)) {
        let mut v = |slot: *mut u64| {
            // SAFETY: `slot` is inside this stack's memory; the thread is
            // stopped, so nothing else touches it meanwhile.
            let r = unsafe { &mut *(slot as *mut usize) };
            if *r != 0 {
                visit(r);
            }
        };
        let mut fp = self.top_frame.get();
        let mut pc = self.top_pc.get();
        let mut callee_args = 0usize;
        let mut full = true;
        while !fp.is_null() {
            // SAFETY: `fp` is a frame header the interpreter wrote, linked
            // from the published top frame.
            let h = unsafe { &mut *fp };
            let m = h.method;
            if h.is_compiled() {
                // A compiled frame: the references its position's map
                // names, stored there at its last safepoint (a callee owns
                // the call's arguments).
                if let Some(Ok(d)) = m.decoded.get() {
                    let (idx, in_call) = h.compiled_position();
                    if idx < d.insns.len() && !h.compiled_unwinding() {
                        let maps = &d.maps;
                        let locals = (fp as *mut u64).wrapping_sub(d.max_locals as usize);
                        for i in 0..d.max_locals as usize {
                            if maps.local_is_ref(idx, i) {
                                v(locals.wrapping_add(i));
                            }
                        }
                        let depth = maps.depth[idx] as usize;
                        let live = if in_call {
                            depth.saturating_sub(call_arg_slots(&d.insns[idx]))
                        } else {
                            depth
                        };
                        let stack = (fp as *mut u64).wrapping_add(HEADER_SLOTS);
                        for j in 0..live {
                            if maps.stack_is_ref(idx, j) {
                                v(stack.wrapping_add(j));
                            }
                        }
                    }
                }
                if m.is_synchronized() && h.sync_obj != 0 {
                    v(&mut h.sync_obj as *mut usize as *mut u64);
                }
                callee_args = m.arg_slots as usize;
                full = h.entered_from_rust();
                pc = h.caller_pc;
                fp = h.caller_frame();
                continue;
            }
            if m.is_native() {
                // A native called from Rust: its reference arguments, by
                // its descriptor, below the header.
                let args = (fp as *mut u64).wrapping_sub(m.arg_slots as usize);
                let mut k = 0;
                if !m.is_static() {
                    v(args);
                    k = 1;
                }
                for p in &m.desc.params {
                    if p.is_reference() {
                        v(args.wrapping_add(k));
                    }
                    k += p.slots();
                }
            } else if let Some(Ok(d)) = m.decoded.get() {
                let insns = d.insns.as_ptr();
                let idx = (pc as usize).wrapping_sub(insns as usize) / std::mem::size_of::<Insn>();
                if !pc.is_null() && idx < d.insns.len() {
                    let maps = &d.maps;
                    let locals = (fp as *mut u64).wrapping_sub(d.max_locals as usize);
                    for i in 0..d.max_locals as usize {
                        if maps.local_is_ref(idx, i) {
                            v(locals.wrapping_add(i));
                        }
                    }
                    let depth = maps.depth[idx] as usize;
                    let live = if full {
                        depth
                    } else {
                        depth.saturating_sub(callee_args)
                    };
                    let stack = (fp as *mut u64).wrapping_add(HEADER_SLOTS);
                    for j in 0..live {
                        if maps.stack_is_ref(idx, j) {
                            v(stack.wrapping_add(j));
                        }
                    }
                }
            }
            if h.sync_obj != 0 {
                v(&mut h.sync_obj as *mut usize as *mut u64);
            }
            callee_args = m.arg_slots as usize;
            full = h.entered_from_rust();
            pc = h.caller_pc;
            fp = h.caller_frame();
        }
        // SAFETY: the thread is stopped (as above).
        for r in unsafe { &mut *self.temp_roots.get() }.iter_mut() {
            v(r as *mut usize as *mut u64);
        }
        v(self.pending.as_ptr() as *mut u64);
        v(self.thread_obj.as_ptr() as *mut u64);
    }
}

/// The argument slots of the call at a compiled frame's position.
fn call_arg_slots(insn: &Insn) -> usize {
    match *insn {
        Insn::InvokeStatic(m) | Insn::InvokeDirect(m) => m.arg_slots as usize,
        Insn::InvokeVirtual { method, .. } | Insn::InvokeInterface { method, .. } => {
            method.arg_slots as usize
        }
        _ => 0,
    }
}

/// The root scanner of one thread's stack.
pub struct StackScanner(pub std::sync::Arc<ThreadStack>);

impl fastpath::gc::RootScanner for StackScanner {
    fn scan(&self, visit: &mut dyn FnMut(&mut usize)) {
        self.0.visit_roots(visit);
    }
}

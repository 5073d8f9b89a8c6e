//! The dispatch loop: runs pre-decoded frames on the thread's slot stack.
//!
//! Where it sits: [`JThread::call`] (Rust calling Java: `main`, `<clinit>`,
//! constructors of exceptions the VM throws, `Thread.run`) pushes an entry
//! frame and runs the loop until that frame returns; Java-to-Java calls
//! and returns stay inside the loop (no Rust recursion), natives are called
//! from it with their arguments in place on the caller's operand stack.
//!
//! The loop keeps the frame's state in locals (`pc`, `sp`, `locals`, `fp`)
//! and publishes it to the thread's stack (`top_frame` on every call and
//! return, `top_pc` and `sp` before every point that can reach a
//! safepoint or throw: allocations, calls, polls, monitors), so the root
//! scanner and stack traces see every frame at its current instruction.
//! Each instruction makes all its possible safepoints before it overwrites
//! a slot, so a frame's reference map on entry to its instruction is exact
//! at any of them (`stack.rs`). Safepoint polls: method entry, backward
//! branches and switches, allocation (the mutator polls in `alloc`).
//! Backward branches also count toward the JIT's thresholds and, in a
//! hot method, move the running frame into compiled code by on-stack
//! replacement (`jump!`, `jit/entry.rs`).

use std::sync::atomic::{fence, Ordering};

use fastpath::gc::BarrierSet;

use super::decode::{Decoded, BACKWARD};
use super::insn::{Arith, Conv, Insn, Switch};
use super::stack::{FrameHeader, ThreadStack, ENTRY, HEADER_SLOTS};
use crate::link::{Class, Kind, Method};
use crate::object::{load_kind, store_kind};
use crate::runtime::{JResult, JThread, Thrown};

/// Slots kept free below the stack's end for the work of throwing
/// `StackOverflowError` itself (its constructor and stack trace), as
/// HotSpot's yellow zone.
pub const STACK_RESERVE: usize = 16 * 1024;

/// Past the OSR threshold, every this many backward branches of a method
/// ask for on-stack replacement at the branch's target (HotSpot's
/// interpreter notifies its policy every 2^`Tier0BackedgeNotifyFreqLog`,
/// 1024, too): a frame enters compiled code at most this many iterations
/// late, and a loop whose entry is refused costs one lookup per this many.
const OSR_NOTIFY: u32 = 1024;

/// `ThreadStack::osr_at` when no on-stack replacement is asked for.
pub const NO_OSR: usize = usize::MAX;

/// Whether a backward branch to `at`, the `n`th of its method, asks for
/// on-stack replacement: past the threshold, with an empty operand stack
/// at the target. Out of line: the dispatch loop's branches keep only
/// the count's test.
#[cold]
#[inline(never)]
fn osr_due(threshold: u32, n: u32, d: &Decoded, at: usize) -> bool {
    n > threshold && d.maps.depth.get(at) == Some(&0)
}

/// A native method: the thread and a pointer to its argument slots (the
/// receiver first), returning its result as a slot value (long and double
/// in one `u64`).
pub type NativeFn<B> = fn(&mut JThread<B>, Args) -> JResult<u64>;

/// A native's arguments, in place on the caller's operand stack (roots: a
/// reference argument read after a safepoint is the collector's updated
/// one).
#[derive(Clone, Copy)]
pub struct Args(pub *mut u64);

impl Args {
    /// Raw slot `i`.
    #[inline(always)]
    pub fn slot(self, i: usize) -> u64 {
        // SAFETY: natives read only the slots of their own descriptor,
        // which the caller pushed.
        unsafe { *self.0.add(i) }
    }
    /// Slot `i` as an int.
    #[inline(always)]
    pub fn int(self, i: usize) -> i32 {
        self.slot(i) as i32
    }
    /// Slots `i`, `i+1` as a long.
    #[inline(always)]
    pub fn long(self, i: usize) -> i64 {
        self.slot(i) as i64
    }
    /// Slot `i` as a float.
    #[inline(always)]
    pub fn float(self, i: usize) -> f32 {
        f32::from_bits(self.slot(i) as u32)
    }
    /// Slots `i`, `i+1` as a double.
    #[inline(always)]
    pub fn double(self, i: usize) -> f64 {
        f64::from_bits(self.slot(i))
    }
    /// Slot `i` as a reference (0 = null), current as of now.
    #[inline(always)]
    pub fn obj(self, i: usize) -> usize {
        self.slot(i) as usize
    }
}

#[inline(always)]
fn decoded_of(m: &'static Method) -> &'static Decoded {
    match m.decoded.get() {
        Some(Ok(d)) => d,
        _ => unreachable!("a method with a frame is decoded"),
    }
}

impl<B: BarrierSet> JThread<B> {
    /// The decoded form of `m`, decoding it on first use; a method that
    /// cannot be decoded throws its `VerifyError` (each time).
    fn ensure_decoded(&mut self, m: &'static Method) -> JResult<&'static Decoded> {
        let r = m.decoded.get_or_init(|| self.decode(m));
        match r {
            Ok(d) => Ok(d),
            Err(e) => {
                let e = e.clone();
                Err(self.throw_error(&e))
            }
        }
    }

    /// The native implementation of `m`, linked on first use.
    fn native_of(&mut self, m: &'static Method) -> JResult<NativeFn<B>> {
        let f = *m.native.get_or_init(|| {
            crate::runtime::natives::lookup::<B>(&m.class.name, &m.name, &m.descriptor)
                .map_or(0, |f| f as usize)
        });
        if f == 0 {
            let msg = format!(
                "'{}'",
                crate::link::resolve::pretty_method(m.class, &m.name, &m.descriptor)
            );
            return Err(self.throw_new("java/lang/UnsatisfiedLinkError", Some(&msg)));
        }
        // SAFETY: `f` was stored from a `NativeFn<B>` by this same code;
        // the VM runs one barrier set type per process (`main.rs` picks
        // it once), so every thread reads a pointer of its own type.
        Ok(unsafe { std::mem::transmute::<usize, NativeFn<B>>(f) })
    }

    /// Calls `m` with `args` (raw slot values, the receiver first; long
    /// and double take two slots, the value in the first) and returns its
    /// result slot. Reference arguments must be current (read from a root
    /// since the last safepoint).
    pub fn call(&mut self, m: &'static Method, args: &[u64]) -> JResult<u64> {
        let base = self.stack.sp.get();
        let limit = self.stack.limit() as usize;
        if (base as usize) + (args.len() + HEADER_SLOTS + 64) * 8 > limit {
            return Err(self.throw_stack_overflow());
        }
        // SAFETY: `base` is the first free slot and the check above leaves
        // room for the arguments.
        unsafe { std::ptr::copy_nonoverlapping(args.as_ptr(), base, args.len()) };
        self.call_at(m, base)
    }

    /// Calls `m` with its arguments already in the slots at `base` (the
    /// first free slot, or a compiled caller's argument slots) and returns
    /// its result slot: an entry frame above the current top frame, run
    /// by the interpreter or by compiled code.
    pub(crate) fn call_at(&mut self, m: &'static Method, base: *mut u64) -> JResult<u64> {
        let st: &ThreadStack = &self.stack;
        let (saved_frame, saved_pc) = (st.top_frame.get(), st.top_pc.get());
        let nargs = m.arg_slots as usize;
        let limit = st.limit() as usize;
        if (base as usize) + (nargs + HEADER_SLOTS + 64) * 8 > limit {
            return Err(self.throw_stack_overflow());
        }
        if m.is_native() {
            let f = self.native_of(m)?;
            let st: &ThreadStack = &self.stack;
            // A frame with no code: its header follows the arguments, and
            // the scanner reports the reference arguments by descriptor.
            // SAFETY: room checked above.
            let fp = unsafe { base.add(nargs) } as *mut FrameHeader;
            // SAFETY: `fp` is inside the stack, above every live slot.
            unsafe {
                fp.write(FrameHeader {
                    method: m,
                    caller: saved_frame,
                    caller_pc: saved_pc,
                    link: 0,
                    flags: ENTRY,
                    sync_obj: 0,
                });
            }
            st.top_frame.set(fp);
            st.top_pc.set(std::ptr::null());
            // SAFETY: as above.
            st.sp.set(unsafe { (fp as *mut u64).add(HEADER_SLOTS) });
            let r = f(self, Args(base));
            let st: &ThreadStack = &self.stack;
            st.top_frame.set(saved_frame);
            st.top_pc.set(saved_pc);
            st.sp.set(base);
            return r;
        }
        let d = self.ensure_decoded(m)?;
        let st: &ThreadStack = &self.stack;
        let frame_end = base as usize + (d.max_locals as usize + HEADER_SLOTS + d.max_stack as usize) * 8;
        if frame_end > self.stack_limit() {
            return Err(self.throw_stack_overflow());
        }
        // SAFETY: within the stack (checked above).
        let fp = unsafe { base.add(d.max_locals as usize) } as *mut FrameHeader;
        // SAFETY: `fp` is inside the stack, above every live slot.
        unsafe {
            fp.write(FrameHeader {
                method: m,
                caller: saved_frame,
                caller_pc: saved_pc,
                link: 0,
                flags: ENTRY,
                sync_obj: 0,
            });
        }
        st.top_frame.set(fp);
        st.top_pc.set(d.insns.as_ptr());
        // The frame reports the arguments (its locals) while the method may
        // be compiled, in a safe region; compiled code then takes the same
        // place, entered from Rust.
        let entry = self.jit_entry(m, d);
        if entry != 0 {
            let st: &ThreadStack = &self.stack;
            st.top_frame.set(saved_frame);
            st.top_pc.set(saved_pc);
            let r = self.call_compiled(m, entry, base, saved_frame, saved_pc, true);
            let st: &ThreadStack = &self.stack;
            st.top_frame.set(saved_frame);
            st.top_pc.set(saved_pc);
            st.sp.set(base);
            return r;
        }
        let r = match self.enter_frame(m, fp) {
            Ok(()) => self.run(),
            Err(t) => {
                let st: &ThreadStack = &self.stack;
                st.top_frame.set(saved_frame);
                st.top_pc.set(saved_pc);
                Err(t)
            }
        };
        let st: &ThreadStack = &self.stack;
        st.sp.set(base);
        debug_assert_eq!(st.top_frame.get(), saved_frame);
        r
    }

    /// The entry steps of a new frame: the safepoint poll, then a
    /// synchronized method's lock (the receiver, or the class's mirror).
    #[inline]
    fn enter_frame(&mut self, m: &'static Method, fp: *mut FrameHeader) -> JResult<()> {
        self.m.safepoint_poll();
        if m.is_synchronized() {
            let obj = if m.is_static() {
                self.mirror_of(m.class)?
            } else {
                // SAFETY: local 0 of an instance method is its receiver.
                unsafe { *(fp as *mut u64).sub(decoded_of(m).max_locals as usize) as usize }
            };
            // SAFETY: `fp` is the current frame; the lock object is a root
            // there before the enter can safepoint.
            unsafe { (*fp).sync_obj = obj };
            // SAFETY: `obj` is a live object of this heap.
            unsafe { self.m.monitor_enter_unchecked(obj) };
        }
        Ok(())
    }

    /// Where frames must end: the reserve below the stack's end is kept
    /// for making a `StackOverflowError`, and used while one is made.
    #[inline]
    fn stack_limit(&self) -> usize {
        let limit = self.stack.limit() as usize;
        if self.stack.in_overflow.get() {
            limit
        } else {
            limit.saturating_sub(STACK_RESERVE * 8)
        }
    }

    /// Throws `StackOverflowError`, made in the stack's reserve; an
    /// overflow while making it throws the one made at start-up.
    #[cold]
    pub(crate) fn throw_stack_overflow(&mut self) -> Thrown {
        if self.stack.in_overflow.get() {
            // Acquire: the preallocated error's initialization.
            let pre = self
                .vm
                .preallocated_soe
                .get()
                .map_or(0, |s| s.load(Ordering::Acquire));
            return self.set_pending(pre);
        }
        self.stack.in_overflow.set(true);
        let soft = self.stack.jit.limit.replace(self.stack.limit() as usize);
        let t = self.throw_new("java/lang/StackOverflowError", None);
        self.stack.jit.limit.set(soft);
        self.stack.in_overflow.set(false);
        t
    }

    /// Runs from the current top frame (an entry frame at its first
    /// instruction) until the entry frame returns.
    #[allow(clippy::cognitive_complexity)]
    fn run(&mut self) -> JResult<u64> {
        let st: *const ThreadStack = &*self.stack;
        // SAFETY: for every raw access below, `fp`, `locals` and `sp`
        // point into this thread's slot stack, within the current frame
        // (locals below `fp`, the operand stack above it, `max_stack` deep
        // at most: the reference-map analysis bounded every instruction's
        // depth); `pc` points into the current method's instructions, and
        // every branch target is an instruction (checked by the decoder).
        // Only this thread writes the stack while it runs; `st` outlives
        // the loop (the thread owns an `Arc` of it).
        unsafe {
            let mut fp: *mut FrameHeader = (*st).top_frame.get();
            let mut method: &'static Method = (*fp).method;
            let mut d: &'static Decoded = decoded_of(method);
            let mut locals: *mut u64 = (fp as *mut u64).sub(d.max_locals as usize);
            let mut sp: *mut u64 = (fp as *mut u64).add(HEADER_SLOTS);
            let mut pc: *const Insn = d.insns.as_ptr();
            let soft_limit = self.stack_limit();
            let jit_counting = self.vm.jit.enabled();
            let jit_threshold = self.vm.jit.invoke_threshold;
            let jit_backedges = self.vm.jit.backedge_threshold;

            macro_rules! push {
                ($v:expr) => {{
                    *sp = $v;
                    sp = sp.add(1);
                }};
            }
            macro_rules! pop {
                () => {{
                    sp = sp.sub(1);
                    *sp
                }};
            }
            macro_rules! push2 {
                ($v:expr) => {{
                    *sp = $v;
                    sp = sp.add(2);
                }};
            }
            macro_rules! pop2 {
                () => {{
                    sp = sp.sub(2);
                    *sp
                }};
            }
            macro_rules! save {
                () => {{
                    (*st).top_pc.set(pc.sub(1));
                    (*st).sp.set(sp);
                }};
            }

            // The index of the instruction being run (`pc` is past it).
            macro_rules! insn_index {
                () => {
                    (pc as usize).wrapping_sub(d.insns.as_ptr() as usize) / std::mem::size_of::<Insn>() - 1
                };
            }

            'dispatch: loop {
                let insn: &Insn = &*pc;
                pc = pc.add(1);
                let thrown: Thrown = 'op: {
                    macro_rules! throw {
                        ($e:expr) => {{
                            save!();
                            break 'op $e;
                        }};
                    }
                    // A branch; a backward one polls, counts, and every
                    // `OSR_NOTIFY`th past the OSR threshold leaves the
                    // instruction for on-stack replacement at the target
                    // (an empty operand stack), handled once, out of the
                    // way, where exceptions are (`ThreadStack::osr_at`:
                    // in memory, not a register of this loop).
                    macro_rules! jump {
                        ($t:expr) => {{
                            let t: u32 = $t;
                            let at = (t & !BACKWARD) as usize;
                            pc = d.insns.as_ptr().add(at);
                            if t & BACKWARD != 0 {
                                (*st).top_pc.set(pc);
                                self.m.safepoint_poll();
                                if jit_counting {
                                    // Relaxed: a heuristic count (as invocations).
                                    let c = &method.jit.backedges;
                                    let n = c.load(Ordering::Relaxed).wrapping_add(1);
                                    c.store(n, Ordering::Relaxed);
                                    if n % OSR_NOTIFY == 0 && osr_due(self.vm.jit.osr_threshold, n, d, at) {
                                        (*st).osr_at.set(at);
                                        break 'op Thrown;
                                    }
                                }
                            }
                        }};
                    }
                    macro_rules! null_check {
                        ($o:expr) => {{
                            if $o == 0 {
                                save!();
                                break 'op self.throw_npe(pc.sub(1), d);
                            }
                        }};
                    }
                    macro_rules! aload {
                        ($k:expr, $push:ident) => {{
                            let i = pop!() as i32;
                            let arr = pop!() as usize;
                            null_check!(arr);
                            let len = self.array_len(arr);
                            if i as u32 >= len as u32 {
                                throw!(self.throw_aioobe(i, len));
                            }
                            let v = load_kind(self.elem_ptr(arr, $k, i as usize), $k, Ordering::Relaxed);
                            $push!(v);
                        }};
                    }
                    macro_rules! astore {
                        ($k:expr, $pop:ident) => {{
                            let v = $pop!();
                            let i = pop!() as i32;
                            let arr = pop!() as usize;
                            null_check!(arr);
                            let len = self.array_len(arr);
                            if i as u32 >= len as u32 {
                                throw!(self.throw_aioobe(i, len));
                            }
                            store_kind(
                                self.elem_ptr_mut(arr, $k, i as usize),
                                $k,
                                v,
                                Ordering::Relaxed,
                            );
                        }};
                    }
                    macro_rules! getfield {
                        ($off:expr, $k:expr, $push:ident) => {{
                            let obj = pop!() as usize;
                            null_check!(obj);
                            let v = load_kind(self.data(obj).add($off as usize), $k, Ordering::Relaxed);
                            $push!(v);
                        }};
                    }
                    macro_rules! putfield {
                        ($off:expr, $k:expr, $pop:ident) => {{
                            let v = $pop!();
                            let obj = pop!() as usize;
                            null_check!(obj);
                            store_kind(
                                self.data_mut(obj).add($off as usize),
                                $k,
                                v,
                                Ordering::Relaxed,
                            );
                        }};
                    }
                    match *insn {
                        Insn::Nop => {}
                        Insn::Iconst(v) => push!(v as i64 as u64),
                        Insn::Fconst(b) => push!(b as u64),
                        Insn::Lconst(v) => push2!(v as u64),
                        Insn::Dconst(b) => push2!(b),
                        Insn::Null => push!(0),
                        Insn::LdcString(lit) => {
                            // Acquire: the string's initialization.
                            let v = lit.slot.load(Ordering::Acquire);
                            if v != 0 {
                                push!(v as u64);
                            } else {
                                save!();
                                match self.literal(lit) {
                                    Ok(s) => push!(s as u64),
                                    Err(t) => break 'op t,
                                }
                            }
                        }
                        Insn::LdcClass(c) => {
                            save!();
                            match self.mirror_of(c) {
                                Ok(m) => push!(m as u64),
                                Err(t) => break 'op t,
                            }
                        }
                        Insn::Load(n) => push!(*locals.add(n as usize)),
                        Insn::Load2(n) => {
                            *sp = *locals.add(n as usize);
                            *sp.add(1) = *locals.add(n as usize + 1);
                            sp = sp.add(2);
                        }
                        Insn::Store(n) => *locals.add(n as usize) = pop!(),
                        Insn::Store2(n) => {
                            sp = sp.sub(2);
                            *locals.add(n as usize) = *sp;
                            *locals.add(n as usize + 1) = *sp.add(1);
                        }
                        Insn::Iinc(n, c) => {
                            let p = locals.add(n as usize);
                            *p = (*p as i32).wrapping_add(c as i32) as i64 as u64;
                        }
                        Insn::ALoad4 => aload!(Kind::Int, push),
                        Insn::ALoad8 => aload!(Kind::Long, push2),
                        Insn::ALoadI8 => aload!(Kind::Byte, push),
                        Insn::ALoadU16 => aload!(Kind::Char, push),
                        Insn::ALoadI16 => aload!(Kind::Short, push),
                        Insn::ALoadRef => {
                            let i = pop!() as i32;
                            let arr = pop!() as usize;
                            null_check!(arr);
                            let len = self.nrefs(arr);
                            if i as u32 as usize >= len {
                                throw!(self.throw_aioobe(i, len as i32));
                            }
                            push!(self.load_ref(arr, i as usize) as u64);
                        }
                        Insn::AStore4 => astore!(Kind::Int, pop),
                        Insn::AStore8 => astore!(Kind::Long, pop2),
                        Insn::AStore16 => astore!(Kind::Char, pop),
                        Insn::AStore8Bit => {
                            let v = pop!();
                            let i = pop!() as i32;
                            let arr = pop!() as usize;
                            null_check!(arr);
                            let len = self.array_len(arr);
                            if i as u32 >= len as u32 {
                                throw!(self.throw_aioobe(i, len));
                            }
                            let k = if self.class_of(arr).elem_kind() == Some(Kind::Boolean) {
                                Kind::Boolean
                            } else {
                                Kind::Byte
                            };
                            store_kind(self.elem_ptr_mut(arr, k, i as usize), k, v, Ordering::Relaxed);
                        }
                        Insn::AStoreRef => {
                            let v = pop!() as usize;
                            let i = pop!() as i32;
                            let arr = pop!() as usize;
                            null_check!(arr);
                            let len = self.nrefs(arr);
                            if i as u32 as usize >= len {
                                throw!(self.throw_aioobe(i, len as i32));
                            }
                            if v != 0 {
                                let ac = self.class_of(arr);
                                let vc = self.class_of(v);
                                if let Some(comp) = ac.component {
                                    if !std::ptr::eq(vc, comp) && !vc.is_subclass_of(comp) {
                                        throw!(self.throw_new(
                                            "java/lang/ArrayStoreException",
                                            Some(&vc.java_name())
                                        ));
                                    }
                                }
                            }
                            self.store_ref(arr, i as usize, v);
                        }
                        Insn::Pop => sp = sp.sub(1),
                        Insn::Pop2 => sp = sp.sub(2),
                        Insn::Dup => {
                            *sp = *sp.sub(1);
                            sp = sp.add(1);
                        }
                        Insn::DupX1 => {
                            let (a, b) = (*sp.sub(1), *sp.sub(2));
                            *sp.sub(2) = a;
                            *sp.sub(1) = b;
                            *sp = a;
                            sp = sp.add(1);
                        }
                        Insn::DupX2 => {
                            let (a, b, c) = (*sp.sub(1), *sp.sub(2), *sp.sub(3));
                            *sp.sub(3) = a;
                            *sp.sub(2) = c;
                            *sp.sub(1) = b;
                            *sp = a;
                            sp = sp.add(1);
                        }
                        Insn::Dup2 => {
                            *sp = *sp.sub(2);
                            *sp.add(1) = *sp.sub(1);
                            sp = sp.add(2);
                        }
                        Insn::Dup2X1 => {
                            let (a, b, c) = (*sp.sub(1), *sp.sub(2), *sp.sub(3));
                            *sp.sub(3) = b;
                            *sp.sub(2) = a;
                            *sp.sub(1) = c;
                            *sp = b;
                            *sp.add(1) = a;
                            sp = sp.add(2);
                        }
                        Insn::Dup2X2 => {
                            let (a, b, c, e) = (*sp.sub(1), *sp.sub(2), *sp.sub(3), *sp.sub(4));
                            *sp.sub(4) = b;
                            *sp.sub(3) = a;
                            *sp.sub(2) = e;
                            *sp.sub(1) = c;
                            *sp = b;
                            *sp.add(1) = a;
                            sp = sp.add(2);
                        }
                        Insn::Swap => {
                            let (a, b) = (*sp.sub(1), *sp.sub(2));
                            *sp.sub(1) = b;
                            *sp.sub(2) = a;
                        }
                        Insn::IArith(op) => {
                            let b = pop!() as i32;
                            let a = pop!() as i32;
                            let r = match op {
                                Arith::Add => a.wrapping_add(b),
                                Arith::Sub => a.wrapping_sub(b),
                                Arith::Mul => a.wrapping_mul(b),
                                Arith::Div | Arith::Rem => {
                                    if b == 0 {
                                        throw!(self
                                            .throw_new("java/lang/ArithmeticException", Some("/ by zero")));
                                    }
                                    if op == Arith::Div {
                                        a.wrapping_div(b)
                                    } else {
                                        a.wrapping_rem(b)
                                    }
                                }
                                Arith::Shl => a.wrapping_shl(b as u32 & 31),
                                Arith::Shr => a.wrapping_shr(b as u32 & 31),
                                Arith::Ushr => ((a as u32) >> (b as u32 & 31)) as i32,
                                Arith::And => a & b,
                                Arith::Or => a | b,
                                Arith::Xor => a ^ b,
                            };
                            push!(r as i64 as u64);
                        }
                        Insn::LArith(op) => {
                            let r = match op {
                                Arith::Shl | Arith::Shr | Arith::Ushr => {
                                    let b = pop!() as u32 & 63;
                                    let a = pop2!() as i64;
                                    match op {
                                        Arith::Shl => a.wrapping_shl(b),
                                        Arith::Shr => a.wrapping_shr(b),
                                        _ => ((a as u64) >> b) as i64,
                                    }
                                }
                                _ => {
                                    let b = pop2!() as i64;
                                    let a = pop2!() as i64;
                                    match op {
                                        Arith::Add => a.wrapping_add(b),
                                        Arith::Sub => a.wrapping_sub(b),
                                        Arith::Mul => a.wrapping_mul(b),
                                        Arith::Div | Arith::Rem => {
                                            if b == 0 {
                                                throw!(self.throw_new(
                                                    "java/lang/ArithmeticException",
                                                    Some("/ by zero")
                                                ));
                                            }
                                            if op == Arith::Div {
                                                a.wrapping_div(b)
                                            } else {
                                                a.wrapping_rem(b)
                                            }
                                        }
                                        Arith::And => a & b,
                                        Arith::Or => a | b,
                                        _ => a ^ b,
                                    }
                                }
                            };
                            push2!(r as u64);
                        }
                        Insn::FArith(op) => {
                            let b = f32::from_bits(pop!() as u32);
                            let a = f32::from_bits(pop!() as u32);
                            let r = match op {
                                Arith::Add => a + b,
                                Arith::Sub => a - b,
                                Arith::Mul => a * b,
                                Arith::Div => a / b,
                                _ => a % b,
                            };
                            push!(r.to_bits() as u64);
                        }
                        Insn::DArith(op) => {
                            let b = f64::from_bits(pop2!());
                            let a = f64::from_bits(pop2!());
                            push2!(op.double(a, b).to_bits());
                        }
                        Insn::INeg => {
                            let a = pop!() as i32;
                            push!(a.wrapping_neg() as i64 as u64);
                        }
                        Insn::LNeg => {
                            let a = pop2!() as i64;
                            push2!(a.wrapping_neg() as u64);
                        }
                        Insn::FNeg => {
                            let a = f32::from_bits(pop!() as u32);
                            push!((-a).to_bits() as u64);
                        }
                        Insn::DNeg => {
                            let a = f64::from_bits(pop2!());
                            push2!((-a).to_bits());
                        }
                        Insn::Convert(c) => match c {
                            Conv::I2L => {
                                let a = pop!() as i32;
                                push2!(a as i64 as u64);
                            }
                            Conv::I2F => {
                                let a = pop!() as i32;
                                push!((a as f32).to_bits() as u64);
                            }
                            Conv::I2D => {
                                let a = pop!() as i32;
                                push2!((a as f64).to_bits());
                            }
                            Conv::L2I => {
                                let a = pop2!() as i64;
                                push!(a as i32 as i64 as u64);
                            }
                            Conv::L2F => {
                                let a = pop2!() as i64;
                                push!((a as f32).to_bits() as u64);
                            }
                            Conv::L2D => {
                                let a = pop2!() as i64;
                                push2!((a as f64).to_bits());
                            }
                            Conv::F2I => {
                                let a = f32::from_bits(pop!() as u32);
                                push!(a as i32 as i64 as u64);
                            }
                            Conv::F2L => {
                                let a = f32::from_bits(pop!() as u32);
                                push2!(a as i64 as u64);
                            }
                            Conv::F2D => {
                                let a = f32::from_bits(pop!() as u32);
                                push2!((a as f64).to_bits());
                            }
                            Conv::D2I => {
                                let a = f64::from_bits(pop2!());
                                push!(a as i32 as i64 as u64);
                            }
                            Conv::D2L => {
                                let a = f64::from_bits(pop2!());
                                push2!(a as i64 as u64);
                            }
                            Conv::D2F => {
                                let a = f64::from_bits(pop2!());
                                push!((a as f32).to_bits() as u64);
                            }
                            Conv::I2B => {
                                let a = pop!() as i32;
                                push!(a as i8 as i64 as u64);
                            }
                            Conv::I2C => {
                                let a = pop!() as i32;
                                push!(a as u16 as u64);
                            }
                            Conv::I2S => {
                                let a = pop!() as i32;
                                push!(a as i16 as i64 as u64);
                            }
                        },
                        Insn::LCmp => {
                            let b = pop2!() as i64;
                            let a = pop2!() as i64;
                            push!(a.cmp(&b) as i32 as i64 as u64);
                        }
                        Insn::FCmp(g) => {
                            let b = f32::from_bits(pop!() as u32);
                            let a = f32::from_bits(pop!() as u32);
                            push!(fcmp(a as f64, b as f64, g) as i64 as u64);
                        }
                        Insn::DCmp(g) => {
                            let b = f64::from_bits(pop2!());
                            let a = f64::from_bits(pop2!());
                            push!(fcmp(a, b, g) as i64 as u64);
                        }
                        Insn::If(c, t) => {
                            let a = pop!() as i32;
                            if c.test(a, 0) {
                                jump!(t);
                            }
                        }
                        Insn::IfICmp(c, t) => {
                            let b = pop!() as i32;
                            let a = pop!() as i32;
                            if c.test(a, b) {
                                jump!(t);
                            }
                        }
                        Insn::IfACmp(eq, t) => {
                            let b = pop!() as usize;
                            let a = pop!() as usize;
                            let same = a == b
                                || (a != 0 && b != 0 && self.m.same(Some(self.obj(a)), Some(self.obj(b))));
                            if same == eq {
                                jump!(t);
                            }
                        }
                        Insn::IfNull(is_null, t) => {
                            let a = pop!();
                            if (a == 0) == is_null {
                                jump!(t);
                            }
                        }
                        Insn::Goto(t) => jump!(t),
                        Insn::TableSwitch(i) | Insn::LookupSwitch(i) => {
                            let key = pop!() as i32;
                            let t = match &d.switches[i as usize] {
                                Switch::Table {
                                    default,
                                    low,
                                    targets,
                                } => {
                                    let k = (key as i64) - (*low as i64);
                                    if k >= 0 && (k as usize) < targets.len() {
                                        targets[k as usize]
                                    } else {
                                        *default
                                    }
                                }
                                Switch::Lookup {
                                    default,
                                    keys,
                                    targets,
                                } => match keys.binary_search(&key) {
                                    Ok(j) => targets[j],
                                    Err(_) => *default,
                                },
                            };
                            pc = d.insns.as_ptr().add(t as usize);
                            (*st).top_pc.set(pc);
                            self.m.safepoint_poll();
                        }
                        Insn::Return | Insn::Return1 | Insn::Return2 => {
                            let (v, n) = match *insn {
                                Insn::Return1 => (*sp.sub(1), 1),
                                Insn::Return2 => (*sp.sub(2), 2),
                                _ => (0, 0),
                            };
                            if (*fp).sync_obj != 0 {
                                save!();
                                let obj = (*fp).sync_obj;
                                if self.m.monitor_exit_unchecked(obj).is_err() {
                                    break 'op self.throw_new("java/lang/IllegalMonitorStateException", None);
                                }
                                (*fp).sync_obj = 0;
                            }
                            let h = &*fp;
                            if h.flags & ENTRY != 0 {
                                (*st).top_frame.set(h.caller);
                                (*st).top_pc.set(h.caller_pc);
                                // A reference result is current: no
                                // safepoint between here and the caller.
                                return Ok(v);
                            }
                            sp = locals;
                            if n > 0 {
                                *sp = v;
                                sp = sp.add(n);
                            }
                            locals = h.link as *mut u64;
                            pc = h.caller_pc.add(1);
                            fp = h.caller;
                            method = (*fp).method;
                            d = decoded_of(method);
                            (*st).top_frame.set(fp);
                        }
                        Insn::GetStatic {
                            class,
                            slot,
                            kind,
                            volatile,
                        } => {
                            if !class.is_initialized() {
                                save!();
                                if let Err(t) = self.ensure_initialized(class) {
                                    break 'op t;
                                }
                            }
                            let order = if volatile {
                                Ordering::SeqCst
                            } else {
                                Ordering::Relaxed
                            };
                            let v = class.statics[slot as usize].load(order);
                            if kind.slots() == 2 {
                                push2!(v);
                            } else {
                                push!(v);
                            }
                        }
                        Insn::PutStatic {
                            class,
                            slot,
                            kind,
                            volatile,
                        } => {
                            if !class.is_initialized() {
                                save!();
                                if let Err(t) = self.ensure_initialized(class) {
                                    break 'op t;
                                }
                            }
                            let v = if kind.slots() == 2 { pop2!() } else { pop!() };
                            let v = normalize(kind, v);
                            let order = if volatile {
                                Ordering::SeqCst
                            } else {
                                Ordering::Release
                            };
                            class.statics[slot as usize].store(v, order);
                        }
                        Insn::LoadLoad(a, b) => {
                            *sp = *locals.add(a as usize);
                            *sp.add(1) = *locals.add(b as usize);
                            sp = sp.add(2);
                            pc = pc.add(1);
                        }
                        Insn::Load2Load2(a, b) => {
                            *sp = *locals.add(a as usize);
                            *sp.add(1) = *locals.add(a as usize + 1);
                            *sp.add(2) = *locals.add(b as usize);
                            *sp.add(3) = *locals.add(b as usize + 1);
                            sp = sp.add(4);
                            pc = pc.add(1);
                        }
                        Insn::IfICmpLL { a, b, c, t } => {
                            let x = *locals.add(a as usize) as i32;
                            let y = *locals.add(b as usize) as i32;
                            pc = pc.add(2);
                            if c.test(x, y) {
                                jump!(t);
                            }
                        }
                        Insn::IfICmpLC { a, c, v, t } => {
                            let x = *locals.add(a as usize) as i32;
                            pc = pc.add(2);
                            if c.test(x, v) {
                                jump!(t);
                            }
                        }
                        Insn::IfL(a, c, t) => {
                            let x = *locals.add(a as usize) as i32;
                            pc = pc.add(1);
                            if c.test(x, 0) {
                                jump!(t);
                            }
                        }
                        Insn::IArithLL(op, a, b) => {
                            let x = *locals.add(a as usize) as i32;
                            let y = *locals.add(b as usize) as i32;
                            pc = pc.add(2);
                            push!(op.int_nothrow(x, y) as i64 as u64);
                        }
                        Insn::IArithLC(op, a, v) => {
                            let x = *locals.add(a as usize) as i32;
                            pc = pc.add(2);
                            push!(op.int_nothrow(x, v) as i64 as u64);
                        }
                        Insn::GetFieldRefL(a, off) => {
                            let obj = *locals.add(a as usize) as usize;
                            pc = pc.add(1);
                            if obj == 0 {
                                // The getfield's own state: its operand (null)
                                // on the stack its reference map describes.
                                *sp = 0;
                                save!();
                                break 'op self.throw_npe(pc.sub(1), d);
                            }
                            push!(self.load_ref(obj, off as usize) as u64);
                        }
                        Insn::GetField4L(a, off) => {
                            let obj = *locals.add(a as usize) as usize;
                            pc = pc.add(1);
                            if obj == 0 {
                                *sp = 0;
                                save!();
                                break 'op self.throw_npe(pc.sub(1), d);
                            }
                            push!(load_kind(
                                self.data(obj).add(off as usize),
                                Kind::Int,
                                Ordering::Relaxed
                            ));
                        }
                        Insn::GetField8L(a, off) => {
                            let obj = *locals.add(a as usize) as usize;
                            pc = pc.add(1);
                            if obj == 0 {
                                *sp = 0;
                                save!();
                                break 'op self.throw_npe(pc.sub(1), d);
                            }
                            push2!(load_kind(
                                self.data(obj).add(off as usize),
                                Kind::Long,
                                Ordering::Relaxed
                            ));
                        }
                        Insn::DArithLL(op, a, b) => {
                            let x = f64::from_bits(*locals.add(a as usize));
                            let y = f64::from_bits(*locals.add(b as usize));
                            pc = pc.add(2);
                            push2!(op.double(x, y).to_bits());
                        }
                        Insn::GetFieldRef(off) => {
                            let obj = pop!() as usize;
                            null_check!(obj);
                            push!(self.load_ref(obj, off as usize) as u64);
                        }
                        Insn::GetField4(off) => getfield!(off, Kind::Int, push),
                        Insn::GetField8(off) => getfield!(off, Kind::Long, push2),
                        Insn::GetFieldI8(off) => getfield!(off, Kind::Byte, push),
                        Insn::GetFieldU8(off) => getfield!(off, Kind::Boolean, push),
                        Insn::GetFieldU16(off) => getfield!(off, Kind::Char, push),
                        Insn::GetFieldI16(off) => getfield!(off, Kind::Short, push),
                        Insn::PutFieldRef(off) => {
                            let v = pop!() as usize;
                            let obj = pop!() as usize;
                            null_check!(obj);
                            self.store_ref(obj, off as usize, v);
                        }
                        Insn::PutField4(off) => putfield!(off, Kind::Int, pop),
                        Insn::PutField8(off) => putfield!(off, Kind::Long, pop2),
                        Insn::PutField1(off) => putfield!(off, Kind::Byte, pop),
                        Insn::PutFieldBool(off) => putfield!(off, Kind::Boolean, pop),
                        Insn::PutField2(off) => putfield!(off, Kind::Char, pop),
                        Insn::GetFieldVolatile { off, kind } => {
                            let obj = pop!() as usize;
                            null_check!(obj);
                            if kind == Kind::Ref {
                                // Acquire (the reference load), and the
                                // SeqCst fence after each volatile store
                                // orders it after those.
                                push!(self.load_ref(obj, off as usize) as u64);
                            } else {
                                let v = load_kind(self.data(obj).add(off as usize), kind, Ordering::SeqCst);
                                if kind.slots() == 2 {
                                    push2!(v);
                                } else {
                                    push!(v);
                                }
                            }
                        }
                        Insn::PutFieldVolatile { off, kind } => {
                            let v = if kind.slots() == 2 { pop2!() } else { pop!() };
                            let obj = pop!() as usize;
                            null_check!(obj);
                            if kind == Kind::Ref {
                                self.store_ref(obj, off as usize, v as usize);
                                // The JMM's StoreLoad after a volatile store.
                                fence(Ordering::SeqCst);
                            } else {
                                store_kind(self.data_mut(obj).add(off as usize), kind, v, Ordering::SeqCst);
                            }
                        }
                        Insn::InvokeStatic(_)
                        | Insn::InvokeDirect(_)
                        | Insn::InvokeVirtual { .. }
                        | Insn::InvokeInterface { .. } => {
                            if jit_counting {
                                d.calls.count(insn_index!());
                            }
                            let callee: &'static Method = match *insn {
                                Insn::InvokeStatic(m) => {
                                    if !m.class.is_initialized() {
                                        save!();
                                        if let Err(t) = self.ensure_initialized(m.class) {
                                            break 'op t;
                                        }
                                    }
                                    m
                                }
                                Insn::InvokeDirect(m) => {
                                    let recv = *sp.sub(m.arg_slots as usize) as usize;
                                    null_check!(recv);
                                    m
                                }
                                Insn::InvokeVirtual { method: m, index } => {
                                    let recv = *sp.sub(m.arg_slots as usize) as usize;
                                    null_check!(recv);
                                    let rc = self.class_of(recv);
                                    if jit_counting {
                                        d.calls.record(insn_index!(), rc);
                                    }
                                    match rc.vtable_method(index as usize) {
                                        Some(t) => t,
                                        None => throw!(self.throw_new(
                                            "java/lang/AbstractMethodError",
                                            Some(&m.java_name())
                                        )),
                                    }
                                }
                                Insn::InvokeInterface { method: m, index } => {
                                    let recv = *sp.sub(m.arg_slots as usize) as usize;
                                    null_check!(recv);
                                    let rc = self.class_of(recv);
                                    if jit_counting {
                                        d.calls.record(insn_index!(), rc);
                                    }
                                    match rc.itable_method(m.class, index as usize) {
                                        Some(t) => t,
                                        None => {
                                            save!();
                                            break 'op self.interface_call_failed(rc, m);
                                        }
                                    }
                                }
                                _ => unreachable!("invoke instructions"),
                            };
                            if callee.is_abstract() {
                                throw!(self.throw_new(
                                    "java/lang/AbstractMethodError",
                                    Some(&format!(
                                        "Receiver class {} does not define or inherit an implementation of the resolved method '{}'",
                                        self.class_of(*sp.sub(callee.arg_slots as usize) as usize).java_name(),
                                        crate::link::resolve::pretty_method(callee.class, &callee.name, &callee.descriptor)
                                    ))
                                ));
                            }
                            let args = sp.sub(callee.arg_slots as usize);
                            if callee.is_native() {
                                save!();
                                let f = match self.native_of(callee) {
                                    Ok(f) => f,
                                    Err(t) => break 'op t,
                                };
                                match f(self, Args(args)) {
                                    Ok(v) => {
                                        sp = args;
                                        match callee.ret_slots {
                                            0 => {}
                                            1 => push!(v),
                                            _ => push2!(v),
                                        }
                                    }
                                    Err(t) => break 'op t,
                                }
                                continue 'dispatch;
                            }
                            let cd = match callee.decoded.get() {
                                Some(Ok(cd)) => cd,
                                _ => {
                                    save!();
                                    match self.ensure_decoded(callee) {
                                        Ok(cd) => cd,
                                        Err(t) => break 'op t,
                                    }
                                }
                            };
                            let mut entry = callee.jit.entry();
                            if entry == 0 && jit_counting {
                                // Relaxed: a heuristic count (jit/entry.rs).
                                let n = callee.jit.invocations.load(Ordering::Relaxed).wrapping_add(1);
                                callee.jit.invocations.store(n, Ordering::Relaxed);
                                if n > jit_threshold
                                    || callee.jit.backedges.load(Ordering::Relaxed) > jit_backedges
                                {
                                    // The arguments stay in this frame's
                                    // operand stack, reported, meanwhile.
                                    save!();
                                    entry = self.jit_compile(callee, cd);
                                }
                            }
                            if entry != 0 {
                                save!();
                                let r = self.call_compiled(callee, entry, args, fp, pc.sub(1), false);
                                (*st).top_frame.set(fp);
                                match r {
                                    Ok(v) => {
                                        sp = args;
                                        match callee.ret_slots {
                                            0 => {}
                                            1 => push!(v),
                                            _ => push2!(v),
                                        }
                                    }
                                    Err(t) => break 'op t,
                                }
                                continue 'dispatch;
                            }
                            let new_fp = args.add(cd.max_locals as usize) as *mut FrameHeader;
                            if (new_fp as usize) + (HEADER_SLOTS + cd.max_stack as usize) * 8 > soft_limit {
                                save!();
                                break 'op self.throw_stack_overflow();
                            }
                            new_fp.write(FrameHeader {
                                method: callee,
                                caller: fp,
                                caller_pc: pc.sub(1),
                                link: locals as usize,
                                flags: 0,
                                sync_obj: 0,
                            });
                            fp = new_fp;
                            locals = args;
                            sp = (fp as *mut u64).add(HEADER_SLOTS);
                            method = callee;
                            d = cd;
                            pc = d.insns.as_ptr();
                            (*st).top_frame.set(fp);
                            (*st).top_pc.set(pc);
                            (*st).sp.set(sp);
                            if let Err(t) = self.enter_frame(method, fp) {
                                break 'op t;
                            }
                        }
                        Insn::New(c) => {
                            save!();
                            if !c.is_initialized() {
                                if let Err(t) = self.ensure_initialized(c) {
                                    break 'op t;
                                }
                            }
                            match self.alloc_object(c) {
                                Ok(o) => push!(o as u64),
                                Err(t) => break 'op t,
                            }
                        }
                        Insn::NewArray(ac) | Insn::ANewArray(ac) => {
                            save!();
                            let n = *sp.sub(1) as i32;
                            match self.alloc_array(ac, n) {
                                Ok(o) => *sp.sub(1) = o as u64,
                                Err(t) => break 'op t,
                            }
                        }
                        Insn::MultiANewArray(c, dims) => {
                            save!();
                            let counts: Vec<i32> = (0..dims as usize)
                                .map(|k| *sp.sub(dims as usize - k) as i32)
                                .collect();
                            match self.multi_array(c, &counts) {
                                Ok(o) => {
                                    sp = sp.sub(dims as usize);
                                    push!(o as u64);
                                }
                                Err(t) => break 'op t,
                            }
                        }
                        Insn::ArrayLength => {
                            let arr = pop!() as usize;
                            null_check!(arr);
                            push!(self.array_len(arr) as i64 as u64);
                        }
                        Insn::AThrow => {
                            let e = *sp.sub(1) as usize;
                            null_check!(e);
                            save!();
                            break 'op self.set_pending(e);
                        }
                        Insn::CheckCast(c) => {
                            let o = *sp.sub(1) as usize;
                            if o != 0 {
                                let oc = self.class_of(o);
                                if !oc.is_subclass_of(c) {
                                    throw!(self.throw_class_cast(oc, c));
                                }
                            }
                        }
                        Insn::InstanceOf(c) => {
                            let o = pop!() as usize;
                            push!((o != 0 && self.class_of(o).is_subclass_of(c)) as u64);
                        }
                        Insn::MonitorEnter => {
                            let o = *sp.sub(1) as usize;
                            null_check!(o);
                            save!();
                            // The object stays on the stack (a root) while
                            // a contended enter waits in a safe region.
                            self.m.monitor_enter_unchecked(o);
                            sp = sp.sub(1);
                        }
                        Insn::MonitorExit => {
                            let o = pop!() as usize;
                            null_check!(o);
                            if self.m.monitor_exit_unchecked(o).is_err() {
                                throw!(self.throw_new("java/lang/IllegalMonitorStateException", None));
                            }
                        }
                        Insn::Throw(i) => {
                            let e = d.errors[i as usize].clone();
                            throw!(self.throw_error(&e));
                        }
                    }
                    continue 'dispatch;
                };
                // An exception is pending: find a handler in this frame or
                // its callers (JVMS 2.10), unlocking synchronized methods'
                // locks on the way out.
                let _ = thrown;
                if (*st).osr_at.get() != NO_OSR {
                    // Not an exception: a backward branch to `osr_at`
                    // (`pc`) asks to move the frame into compiled code,
                    // which runs it to its end: its result returns to the
                    // caller, its uncaught exception goes to the caller's
                    // handlers (`jit/entry.rs`).
                    let target = (*st).osr_at.replace(NO_OSR);
                    (*st).sp.set(sp);
                    let Some(r) = self.osr_enter(method, d, fp, target) else {
                        continue 'dispatch;
                    };
                    let h = &*fp;
                    if h.flags & ENTRY != 0 {
                        (*st).top_frame.set(h.caller);
                        (*st).top_pc.set(h.caller_pc);
                        // A reference result is current: no safepoint
                        // since it returned.
                        return r;
                    }
                    // The frame is popped as by a return (the result may
                    // overwrite its header).
                    let (ret_slots, caller_pc) = (method.ret_slots, h.caller_pc);
                    sp = locals;
                    locals = h.link as *mut u64;
                    fp = h.caller;
                    pc = caller_pc.add(1);
                    method = (*fp).method;
                    d = decoded_of(method);
                    (*st).top_frame.set(fp);
                    (*st).top_pc.set(caller_pc);
                    if let Ok(v) = r {
                        match ret_slots {
                            0 => {}
                            1 => push!(v),
                            _ => push2!(v),
                        }
                        continue 'dispatch;
                    }
                    // Its exception: dispatched at the caller's invoke, below.
                }
                let mut at = pc.sub(1);
                loop {
                    let exc = self.pending();
                    // An exception while entering a frame is at no
                    // instruction of it (`at` is then before the first).
                    let idx =
                        (at as usize).wrapping_sub(d.insns.as_ptr() as usize) / std::mem::size_of::<Insn>();
                    let ec = self.class_of(exc);
                    let found = d.handlers.iter().find(|h| {
                        (h.start as usize..h.end as usize).contains(&idx)
                            && !h.unresolved
                            && h.catch.is_none_or(|c| ec.is_subclass_of(c))
                    });
                    if let Some(h) = found {
                        sp = (fp as *mut u64).add(HEADER_SLOTS);
                        push!(self.take_pending() as u64);
                        pc = d.insns.as_ptr().add(h.handler as usize);
                        continue 'dispatch;
                    }
                    if (*fp).sync_obj != 0 {
                        let _ = self.m.monitor_exit_unchecked((*fp).sync_obj);
                        (*fp).sync_obj = 0;
                    }
                    let h = &*fp;
                    if h.flags & ENTRY != 0 {
                        (*st).top_frame.set(h.caller);
                        (*st).top_pc.set(h.caller_pc);
                        return Err(Thrown);
                    }
                    at = h.caller_pc;
                    locals = h.link as *mut u64;
                    fp = h.caller;
                    method = (*fp).method;
                    d = decoded_of(method);
                    (*st).top_frame.set(fp);
                    (*st).top_pc.set(at);
                }
            }
        }
    }

    /// `ArrayIndexOutOfBoundsException` with HotSpot's message.
    #[cold]
    pub(crate) fn throw_aioobe(&mut self, i: i32, len: i32) -> Thrown {
        self.throw_new(
            "java/lang/ArrayIndexOutOfBoundsException",
            Some(&format!("Index {i} out of bounds for length {len}")),
        )
    }

    /// `ClassCastException` with HotSpot's message.
    #[cold]
    pub(crate) fn throw_class_cast(&mut self, from: &'static Class, to: &'static Class) -> Thrown {
        let place = |c: &Class| {
            if c.is_boot {
                "module java.base of loader 'bootstrap'".to_string()
            } else {
                "unnamed module of loader 'app'".to_string()
            }
        };
        let (pf, pt) = (place(from), place(to));
        let msg = if pf == pt {
            format!(
                "class {} cannot be cast to class {} ({} and {} are in {})",
                from.java_name(),
                to.java_name(),
                from.java_name(),
                to.java_name(),
                pf
            )
        } else {
            format!(
                "class {} cannot be cast to class {} ({} is in {}; {} is in {})",
                from.java_name(),
                to.java_name(),
                from.java_name(),
                pf,
                to.java_name(),
                pt
            )
        };
        self.throw_new("java/lang/ClassCastException", Some(&msg))
    }

    #[cold]
    pub(crate) fn interface_call_failed(&mut self, rc: &'static Class, m: &'static Method) -> Thrown {
        if !rc.is_subclass_of(m.class) {
            self.throw_new(
                "java/lang/IncompatibleClassChangeError",
                Some(&format!(
                    "Class {} does not implement the requested interface {}",
                    rc.java_name(),
                    m.class.java_name()
                )),
            )
        } else {
            self.throw_new(
                "java/lang/AbstractMethodError",
                Some(&format!(
                    "Receiver class {} does not define or inherit an implementation of the resolved method '{}'",
                    rc.java_name(),
                    crate::link::resolve::pretty_method(m.class, &m.name, &m.descriptor)
                )),
            )
        }
    }

    /// `multianewarray`: nested arrays, each level kept in a temporary
    /// root while the next is allocated.
    pub(crate) fn multi_array(&mut self, c: &'static Class, counts: &[i32]) -> JResult<usize> {
        if let Some(&n) = counts.iter().find(|&&n| n < 0) {
            return Err(self.throw_new("java/lang/NegativeArraySizeException", Some(&n.to_string())));
        }
        let outer = self.alloc_array(c, counts[0])?;
        if counts.len() == 1 || counts[0] == 0 {
            return Ok(outer);
        }
        let comp = c.component.expect("an array class");
        let mark = self.stack.temps_len();
        let t = self.stack.push_temp(outer);
        for i in 0..counts[0] as usize {
            let inner = match self.multi_array(comp, &counts[1..]) {
                Ok(a) => a,
                Err(e) => {
                    self.stack.truncate_temps(mark);
                    return Err(e);
                }
            };
            let outer = self.stack.temp(t);
            self.store_ref(outer, i, inner);
        }
        let outer = self.stack.temp(t);
        self.stack.truncate_temps(mark);
        Ok(outer)
    }
}

/// `fcmpl`/`fcmpg` (`g`: NaN compares as greater).
#[inline(always)]
fn fcmp(a: f64, b: f64, g: bool) -> i32 {
    if a > b {
        1
    } else if a == b {
        0
    } else if a < b {
        -1
    } else if g {
        1
    } else {
        -1
    }
}

/// A value stored into a static field of `kind`, narrowed as the field
/// holds it (JVMS 6.5 `putstatic`: boolean by `& 1`).
#[inline(always)]
fn normalize(kind: Kind, v: u64) -> u64 {
    match kind {
        Kind::Boolean => v & 1,
        Kind::Byte => v as i8 as i64 as u64,
        Kind::Char => v as u16 as u64,
        Kind::Short => v as i16 as i64 as u64,
        Kind::Int => v as i32 as i64 as u64,
        Kind::Float => v as u32 as u64,
        _ => v,
    }
}

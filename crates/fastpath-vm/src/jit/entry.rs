//! Entering compiled code from the interpreter and from Rust, and the
//! way back: the adapters, and the `JThread` side of both directions.
//!
//! Where it sits: the interpreter's invoke (`interp/exec.rs`) and
//! `JThread::call` ask [`JThread::jit_entry`] for a callee's compiled
//! entry (which counts the call and compiles a hot method) and enter it
//! with `JThread::call_compiled`; compiled code calls a method without
//! compiled code through the `Invoke` helper, which lands in
//! `JThread::invoke_from_compiled`.
//!
//! An adapter is compiled once per signature shape: `(block, entry, args,
//! caller) -> (value, status)`, it keeps the caller's pinned register,
//! sets the thread block there, loads the arguments from the interpreter's
//! slots (`args`, the callee's locals 0..) into registers, calls the
//! entry and returns the result as slot bits.
//!
//! On-stack replacement (`JThread::osr_enter`, from the interpreter's
//! backward branches): an OSR adapter per result kind, `(block, entry, fp,
//! 0) -> (value, status)`, calls a method's OSR entry with the header of
//! the interpreted frame it continues; the interpreter makes the frame
//! compiled for the call (`frame.rs`) and takes the result as the
//! frame's return or its uncaught exception.
//!
//! Every entry sets the thread block's runtime context word to the
//! thread's slot stack, where compiled code finds it (`frame.rs`), and
//! puts back what it found there once the call returns, so an entry of
//! another thread's code nested on this OS thread (another VM's) leaves
//! its caller's context as it was.

use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, MemFlagsData, Signature, UserFuncName, Value};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use fastpath::gc::BarrierSet;

use fastpath::thread::ThreadBlock;

use super::frame::{Ret, CALLER_ENTRY, COMPILED, OSR_NOT_ENTERED};
use super::ops::K;
use super::translate::{java_signature, osr_signature, ty};
use super::OsrLookup;
use crate::interp::stack::{FrameHeader, ENTRY, HEADER_SLOTS};
use crate::interp::{Decoded, Insn};
use crate::link::Method;
use crate::runtime::{JResult, JThread, Thrown};

/// The adapter function for `m`'s signature shape: `(ctx, entry, args,
/// caller) -> (value, status)`; it loads the arguments from the slots at
/// `args` and calls the compiled entry with them and `caller`.
pub fn adapter(m: &Method, frontend: cranelift_codegen::isa::TargetFrontendConfig) -> Function {
    adapter_shell(m, 2, frontend, |b, target, args, caller| {
        let flags = MemFlagsData::trusted();
        let mut call_args = vec![args, caller];
        let mut slot = 0i32;
        let mut kinds: Vec<K> = Vec::new();
        if !m.is_static() {
            kinds.push(K::R);
        }
        kinds.extend(m.desc.params.iter().map(K::of_type));
        for k in kinds {
            // Slots hold ints sign-extended and floats as their bits in the
            // low half (little-endian: at the slot's address).
            call_args.push(b.ins().load(ty(k), flags, args, slot * 8));
            slot += k.slots() as i32;
        }
        let sigref = b.import_signature(java_signature(m));
        b.ins().call_indirect(sigref, target, &call_args)
    })
}

/// The OSR adapter for `m`'s result kind: `(block, entry, fp, 0) -> (value,
/// status)`; it calls the OSR entry with `fp`.
pub fn osr_adapter(m: &Method, frontend: cranelift_codegen::isa::TargetFrontendConfig) -> Function {
    adapter_shell(m, 4, frontend, |b, target, fp, _| {
        let sigref = b.import_signature(osr_signature(m));
        b.ins().call_indirect(sigref, target, &[fp])
    })
}

/// What every adapter shares: the [`AdapterFn`] signature, the caller's
/// pinned register kept and the thread block set there around the call `call`
/// emits (given the target and the last two parameters), and the result
/// returned as slot bits with the status.
fn adapter_shell(
    m: &Method,
    namespace: u32,
    frontend: cranelift_codegen::isa::TargetFrontendConfig,
    call: impl FnOnce(&mut FunctionBuilder, Value, Value, Value) -> cranelift_codegen::ir::Inst,
) -> Function {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.extend([AbiParam::new(I64); 4]);
    sig.returns.extend([AbiParam::new(I64); 2]);
    let mut func = Function::with_name_signature(UserFuncName::user(namespace, m.id), sig);
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (block, target, third, fourth) = (p[0], p[1], p[2], p[3]);
    let saved = b.ins().get_pinned_reg(I64);
    b.ins().set_pinned_reg(block);
    let inst = call(&mut b, target, third, fourth);
    let r = b.inst_results(inst).to_vec();
    b.ins().set_pinned_reg(saved);
    let bits = slot_bits(&mut b, m, r[0]);
    b.ins().return_(&[bits, r[1]]);
    b.seal_all_blocks();
    b.finalize(frontend);
    func
}

/// `m`'s result `v` as the bits an interpreter slot holds.
fn slot_bits(b: &mut FunctionBuilder, m: &Method, v: Value) -> Value {
    match m.desc.ret.as_ref().map(K::of_type) {
        Some(K::I) => b.ins().sextend(I64, v),
        Some(K::F) => {
            let i = b.ins().bitcast(I32, MemFlagsData::new(), v);
            b.ins().uextend(I64, i)
        }
        Some(K::D) => b.ins().bitcast(I64, MemFlagsData::new(), v),
        _ => v,
    }
}

/// A thread block whose runtime context word names a `JThread`'s slot
/// stack while compiled code runs (`JThread::enter_context`); dropped,
/// it puts back the word it replaced.
struct EnteredContext {
    block: &'static ThreadBlock,
    saved: usize,
}

impl Drop for EnteredContext {
    fn drop(&mut self) {
        self.block.set_runtime_context(self.saved);
    }
}

/// An adapter's type.
type AdapterFn = unsafe extern "C" fn(*const ThreadBlock, usize, *mut u64, usize) -> Ret;

fn decoded_of(m: &'static Method) -> Option<&'static Decoded> {
    match m.decoded.get() {
        Some(Ok(d)) => Some(d),
        _ => None,
    }
}

impl<B: BarrierSet> JThread<B> {
    /// `m`'s compiled entry, or 0. Counts an interpreted invocation, and
    /// asks for `m`'s compilation ([`JThread::jit_compile`]: queued, or
    /// compiled at once) when it is hot (past the invocation threshold, or
    /// past the back-edge threshold with the loops of earlier
    /// invocations), or at once under `-Xcomp`; the caller's frame must be
    /// published (a compilation on this thread runs in a safe region).
    #[inline]
    pub fn jit_entry(&mut self, m: &'static Method, d: &'static Decoded) -> usize {
        let e = m.jit.entry();
        if e != 0 {
            return e;
        }
        let jit = &self.vm.jit;
        // Relaxed: a heuristic count; lost increments only delay a compile.
        let n = m
            .jit
            .invocations
            .load(std::sync::atomic::Ordering::Relaxed)
            .wrapping_add(1);
        m.jit.invocations.store(n, std::sync::atomic::Ordering::Relaxed);
        if n <= jit.invoke_threshold
            && m.jit.backedges.load(std::sync::atomic::Ordering::Relaxed) <= jit.backedge_threshold
        {
            return 0;
        }
        self.jit_compile(m, d)
    }

    /// Asks for `m`'s compilation: queues it for the compiler thread
    /// ([`super::Jit::background`]; 0: interpret on meanwhile), or
    /// compiles it now (in a safe region: compiling reads no heap object,
    /// and may take milliseconds another thread's pause must not wait
    /// for). Returns `m`'s entry, 0 if it has none yet.
    #[cold]
    #[inline(never)]
    pub fn jit_compile(&mut self, m: &'static Method, d: &'static Decoded) -> usize {
        // Relaxed: a hint; a compiled method's entry is read through
        // `entry()` (Acquire), and `compile` decides the race itself.
        if m.jit.state.load(std::sync::atomic::Ordering::Relaxed) != super::State::Interpreted as u8 {
            return m.jit.entry();
        }
        let vm = self.vm;
        if vm.jit.background {
            if let Some(entry) = vm.jit.enqueue(m, d) {
                return entry;
            }
        }
        if vm.jit.mode == super::Mode::Comp {
            self.decode_callees(d, super::inlining::MAX_INLINE_DEPTH);
        }
        self.m.safe_region(|| vm.jit.compile(m, d))
    }

    /// Decodes the small statically bound callees of `d`, and the
    /// implementations class-hierarchy analysis finds for a virtual or
    /// interface call (`cha.rs`), `depth` calls
    /// deep, so that `-Xcomp`, which compiles a method before its callees
    /// first run, can inline them (the translator inlines only decoded
    /// methods: decoding resolves, which may load classes, and cannot run
    /// in the compilation's safe region). Resolution errors stay in the
    /// decoded form and are thrown where the interpreter would throw them.
    fn decode_callees(&mut self, d: &'static Decoded, depth: usize) {
        if depth == 0 {
            return;
        }
        let classes = super::cha::Classes(&self.vm.loader);
        for insn in d.insns.iter() {
            let callees: Vec<&'static Method> = match *insn {
                Insn::InvokeStatic(c) | Insn::InvokeDirect(c) => vec![c],
                Insn::InvokeVirtual { method, .. }
                    if method.is_private()
                        || method.flags & crate::classfile::access::FINAL != 0
                        || method.class.flags & crate::classfile::access::FINAL != 0 =>
                {
                    vec![method]
                }
                Insn::InvokeVirtual { method, index } => {
                    super::cha::implementations(classes, method, index, super::translate::MAX_GUARDED_TARGETS)
                        .unwrap_or_default()
                }
                Insn::InvokeInterface { method, index } => super::cha::interface_receivers(
                    classes,
                    method,
                    index,
                    super::translate::MAX_GUARDED_RECEIVERS,
                )
                .map(|rs| rs.into_iter().map(|(_, t)| t).collect())
                .unwrap_or_default(),
                _ => continue,
            };
            for callee in callees {
                let small = callee
                    .code
                    .as_ref()
                    .is_some_and(|c| c.code.len() <= super::inlining::MAX_INLINE_BYTES);
                if !small || callee.is_native() || callee.is_abstract() || callee.decoded.get().is_some() {
                    continue;
                }
                if let Ok(cd) = callee.decoded.get_or_init(|| self.decode(callee)) {
                    self.decode_callees(cd, depth - 1);
                }
            }
        }
    }

    /// The thread block compiled code runs with, its runtime context
    /// word set to this thread's slot stack until the guard drops, which
    /// puts back the word it found (the caller's, another VM's, or 0).
    #[inline]
    fn enter_context(&self) -> EnteredContext {
        let block = self.stack.jit.block.get();
        // SAFETY: `attach` set `block` to the attaching thread's block,
        // and a `JThread` runs on that thread only (its mutator is bound
        // to it); the block lives as long as the thread.
        let b: &'static ThreadBlock = unsafe { &*block };
        let saved = b.runtime_context();
        b.set_runtime_context(std::sync::Arc::as_ptr(&self.stack) as usize);
        EnteredContext { block: b, saved }
    }

    /// Calls compiled `m` at `entry` with its arguments in the slots at
    /// `args` (its locals 0..), from the frame `caller` at `caller_pc`
    /// (an interpreted caller's invoke) or from Rust (`from_rust`: the
    /// caller's operands are all live). Returns the result as slot bits.
    pub(crate) fn call_compiled(
        &mut self,
        m: &'static Method,
        entry: usize,
        args: *mut u64,
        caller: *mut FrameHeader,
        caller_pc: *const Insn,
        from_rust: bool,
    ) -> JResult<u64> {
        let d = decoded_of(m).expect("a compiled method is decoded");
        let fp = args.wrapping_add(d.max_locals as usize) as *mut FrameHeader;
        // The header's caller_pc is written before the callee's own stack
        // check: check that much here.
        if (fp as usize) + HEADER_SLOTS * 8 > self.stack.jit.limit.get() {
            return Err(self.throw_stack_overflow());
        }
        // SAFETY: `fp` is inside the slot stack (checked above), above
        // every live slot of the caller (the callee's frame).
        unsafe { (*fp).caller_pc = caller_pc };
        let me = self as *mut Self as *mut ();
        self.stack.jit.thread.set(me);
        let a = m.jit.adapter.load(std::sync::atomic::Ordering::Acquire);
        // SAFETY: the adapter was compiled for `m`'s shape and installed
        // before `entry` was published (Release/Acquire); `entry` is `m`'s
        // compiled code, which stays installed for the process's life.
        let f: AdapterFn = unsafe { std::mem::transmute::<usize, AdapterFn>(a) };
        let tag = if from_rust { CALLER_ENTRY } else { 0 };
        if self.vm.jit.logging() {
            // Relaxed: statistics.
            self.vm
                .jit
                .stats
                .compiled_calls
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let entered = self.enter_context();
        // SAFETY: the adapter's contract: this thread's block, naming this
        // thread's slot stack, `args` holding `m`'s arguments, `caller` a
        // frame of this stack.
        let r = unsafe { f(entered.block, entry, args, caller as usize | tag) };
        drop(entered);
        if r.status != 0 {
            Err(Thrown)
        } else {
            Ok(r.value)
        }
    }

    /// Moves the interpreted frame `fp` of `m`, at a backward branch to
    /// instruction `at` (an empty operand stack; the frame published at
    /// `at`), into `m`'s OSR entry there, compiling it first when it was
    /// never asked for (in a safe region). `None`: no entry (refused,
    /// being compiled by another thread, or no room for its frames): the
    /// interpreter goes on. Otherwise the frame has run to its end in
    /// compiled code: its result, or its exception, which no handler of
    /// the frame catches (pending; the caller's handlers come next), and
    /// a synchronized method's lock released once, by the compiled code
    /// (`sync_obj` cleared). The header is the interpreted frame's again.
    #[cold]
    #[inline(never)]
    pub(crate) fn osr_enter(
        &mut self,
        m: &'static Method,
        d: &'static Decoded,
        fp: *mut FrameHeader,
        at: usize,
    ) -> Option<JResult<u64>> {
        // Relaxed: a hint (a method the JIT refused has no OSR entry either).
        if m.jit.state.load(std::sync::atomic::Ordering::Relaxed) == super::State::Failed as u8 {
            return None;
        }
        let vm = self.vm;
        let code = match vm.jit.osr_lookup(m, at) {
            OsrLookup::Ready(e) => e,
            OsrLookup::Unavailable => return None,
            OsrLookup::Missing if vm.jit.background => match vm.jit.enqueue_osr(m, d, at) {
                Ok(e) => e?,
                Err(_) => self.m.safe_region(|| vm.jit.compile_osr(m, d, at))?,
            },
            OsrLookup::Missing => self.m.safe_region(|| vm.jit.compile_osr(m, d, at))?,
        };
        // The frame is there already; the entry's own check covers the
        // native stack and repeats this one.
        if (fp as usize) + code.extent > self.stack.jit.limit.get() {
            return None;
        }
        // SAFETY: `fp` is the interpreter's current frame on this thread's
        // slot stack; nothing else reads its header until the compiled
        // code's first safepoint, which sees it compiled.
        let (caller, link, flags) = unsafe { ((*fp).caller, (*fp).link, (*fp).flags) };
        let tag = if flags & ENTRY != 0 { CALLER_ENTRY } else { 0 };
        // SAFETY: as above.
        unsafe {
            (*fp).flags = COMPILED;
            (*fp).caller = (caller as usize | tag) as *mut FrameHeader;
            (*fp).link = at;
        }
        let me = self as *mut Self as *mut ();
        self.stack.jit.thread.set(me);
        // SAFETY: the OSR adapter was compiled for `m`'s result kind and
        // both it and the entry stay installed for the process's life.
        let f: AdapterFn = unsafe { std::mem::transmute::<usize, AdapterFn>(code.adapter) };
        let entered = self.enter_context();
        // SAFETY: the OSR entry's contract: this thread's block, naming
        // this thread's slot stack, `fp` a frame of `m` at `at` made
        // compiled, its locals holding the kinds the entry loads.
        let r = unsafe { f(entered.block, code.entry, fp as *mut u64, 0) };
        drop(entered);
        // SAFETY: the frame is still there (the compiled code returned;
        // it pops nothing of its own).
        unsafe {
            (*fp).flags = flags;
            (*fp).caller = caller;
            (*fp).link = link;
        }
        if r.status == OSR_NOT_ENTERED {
            return None;
        }
        // SAFETY: as above; the compiled code released the method's lock.
        unsafe { (*fp).sync_obj = 0 };
        // Relaxed: statistics.
        self.vm
            .jit
            .stats
            .osr_entries
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(if r.status != 0 { Err(Thrown) } else { Ok(r.value) })
    }

    /// The `Invoke` helper's work: calls `m` (no compiled code: an
    /// interpreted, native or abstract method) with its arguments in the
    /// compiled caller's slots at `args`.
    pub(crate) fn invoke_from_compiled(&mut self, m: &'static Method, args: *mut u64) -> JResult<u64> {
        if m.is_abstract() {
            // SAFETY: an instance method's receiver is in slot 0.
            let recv = unsafe { *args } as usize;
            let msg = format!(
                "Receiver class {} does not define or inherit an implementation of the resolved method '{}'",
                self.class_of(recv).java_name(),
                crate::link::resolve::pretty_method(m.class, &m.name, &m.descriptor)
            );
            return Err(self.throw_new("java/lang/AbstractMethodError", Some(&msg)));
        }
        self.call_at(m, args)
    }
}

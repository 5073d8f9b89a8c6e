//! A Java thread's VM side: its mutator on the heap (TLAB, barriers,
//! polls), its slot stack with the root scanner registered on the mutator,
//! and the VM.
//!
//! Where it sits: every native thread that runs Java code owns one
//! [`JThread`]; the interpreter, the natives and the object model are its
//! methods. Generic over the heap's barrier set, so every barrier fast path
//! is compiled into the interpreter for the set the process runs.

use std::sync::Arc;

use fastpath::gc::{BarrierSet, Mutator};

use super::vm::Vm;
use crate::interp::stack::{StackScanner, ThreadStack};

/// The native stack every thread that runs Java has at least (the
/// main thread's default, 8 MiB; threads the VM starts get more): compiled
/// code keeps its frames within it.
pub const NATIVE_STACK_BYTES: usize = 8 << 20;

/// An exception is being thrown: the object is in the thread's pending
/// slot (a root). Returned by everything that can throw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thrown;

/// What Java code and natives return.
pub type JResult<T> = Result<T, Thrown>;

/// A thread that runs Java code.
pub struct JThread<B: BarrierSet> {
    /// The VM.
    pub vm: &'static Vm,
    /// The thread's mutator.
    pub m: Mutator<B>,
    /// Its Java stack (shared with its root scanner).
    pub stack: Arc<ThreadStack>,
    /// A number unique among the VM's threads (class initialization's
    /// owner).
    pub id: usize,
}

impl<B: BarrierSet> JThread<B> {
    /// Attaches the calling native thread to the VM: a mutator and a stack
    /// of `-Xss` bytes whose frames the collector scans.
    pub fn attach(vm: &'static Vm) -> Result<JThread<B>, String> {
        let mut m = vm.heap.mutator::<B>().map_err(|e| e.to_string())?;
        let stack = Arc::new(ThreadStack::new(vm.options.stack_bytes));
        m.set_root_scanner(Some(Arc::new(StackScanner(stack.clone()))));
        // The context compiled code runs with (`jit/frame.rs`).
        let here = 0u8;
        let ctx = &stack.jit;
        ctx.block.set(fastpath::thread::current());
        ctx.limit
            .set((stack.limit() as usize).saturating_sub(crate::interp::exec::STACK_RESERVE * 8));
        ctx.native_limit.set(crate::jit::frame::native_limit_below(
            &here as *const u8 as usize,
            NATIVE_STACK_BYTES,
        ));
        if let Err(e) = vm.jit.init(&mut m, vm) {
            return Err(format!("the JIT cannot run: {e}"));
        }
        // Relaxed: a unique number, nothing else.
        let id = vm
            .threads
            .started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        Ok(JThread { vm, m, stack, id })
    }

    /// The pending exception (0: none).
    pub fn pending(&self) -> usize {
        self.stack.pending.get()
    }

    /// Takes the pending exception.
    pub fn take_pending(&self) -> usize {
        self.stack.pending.replace(0)
    }

    /// Makes `exc` the pending exception; returns the marker.
    pub fn set_pending(&self, exc: usize) -> Thrown {
        self.stack.pending.set(exc);
        Thrown
    }
}

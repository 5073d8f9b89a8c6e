//! fastpath's fast paths as machine code a JIT inlines: templates emitted
//! through dynasm-rs's `DynasmApi`/`DynasmLabelApi` traits into the JIT's
//! own buffer, so any dynasm user can call them.
//!
//! Where it sits: beside the library's Rust fast paths, with the same
//! protocols and slow paths. Generated code holds the thread block in a
//! register the JIT chooses (HotSpot: r15) and reads it at the offsets of a
//! [`ThreadLayout`] the caller supplies; each template declares what it
//! clobbers, branches to a `slow` label the JIT binds to a [`x64::SlowStub`]
//! (HotSpot's late expansion), and resumes at `done`. The JIT installs the
//! result in fastpath's W^X `CodeCache` (with relocations, if it has any).
//!
//! ```text
//!  JIT ── registers, labels ─▶ Template::emit ─▶ dynasm buffer ─┐
//!                                SlowStub::emit (out of line) ──┤
//!                                                               ▼
//!                      fastpath::code::CodeCache::install(_relocated) ─▶ callable code
//! ```
//!
//! | module | concept |
//! |---|---|
//! | [`reg`] | registers by number, register sets (clobbers) |
//! | [`layout`] | the thread block's offsets and constants, the layout version check |
//! | [`slow`] | the library's monitor, SATB, LRB, Brooks write barrier and G1 card slow paths as `extern "C"` functions |
//! | [`x64`] | x86-64 templates and the slow-path stub |
//! | [`aarch64`] | AArch64 templates and stub (emitted on any host; encodings checked against reference words on every host, run from the `CodeCache` on AArch64 and under qemu) |
//!
//! A ten-line JIT: a function that polls for a safepoint and counts, the
//! poll's slow path a Rust `extern "C"` function reached through the stub.
//!
//! ```
//! # #[cfg(target_arch = "x86_64")] {
//! use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler, x64::X64Relocation};
//! use fastpath_jit::{reg::x64::*, reg::RegSet, x64::*, ThreadLayout};
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! #[repr(C)] struct Thread { poll: u8 }
//! static SLOW: AtomicU64 = AtomicU64::new(0);
//! extern "C" fn at_safepoint(_t: *mut Thread) { SLOW.fetch_add(1, Ordering::Relaxed); }
//! let layout = ThreadLayout { gc_state: 0, marking_bit: 0, has_forwarded_bit: 0, poll: 0, poll_bit: 1,
//!     card_table_base: 0, card_shift: 9, dirty_card: 0, tlab_top: 0, tlab_end: 0 };
//!
//! let mut ops = VecAssembler::<X64Relocation>::new(0);
//! let labels = Labels { slow: ops.new_dynamic_label(), done: ops.new_dynamic_label() };
//! // fn(thread, n) -> n + 1, polling first; rdi = thread, rsi = n.
//! dynasm!(ops ; .arch x64 ; push rbx ; mov rbx, rsi);          // rsp is 16-aligned after the push
//! SafepointPoll { thread: RDI, layout }.emit(&mut ops, labels);
//! dynasm!(ops ; .arch x64 ; =>labels.done ; lea rax, [rbx + 1] ; pop rbx ; ret);
//! SlowStub { func: at_safepoint as *const () as usize, args: vec![RDI], ret: None, live: RegSet::of(&[RDI]) }
//!     .emit(&mut ops, labels.slow, labels.done).unwrap();
//!
//! let cache = fastpath::code::CodeCache::new(4096).unwrap();
//! let entry = cache.install(&ops.finalize().unwrap()).unwrap();
//! // SAFETY: the code above is a complete extern "C" fn(*mut Thread, u64) -> u64.
//! let f: extern "C" fn(*mut Thread, u64) -> u64 = unsafe { entry.as_fn() };
//! let mut t = Thread { poll: 0 };
//! assert_eq!((f(&mut t, 41), SLOW.load(Ordering::Relaxed)), (42, 0));
//! t.poll = 1; // arm the poll
//! assert_eq!((f(&mut t, 1), SLOW.load(Ordering::Relaxed)), (2, 1));
//! # }
//! ```

//! A JIT that inlines `synchronized (obj) { *counter += 1 }`: the lightweight
//! enter and exit on the real thread block, their stubs calling the library.
//!
//! ```
//! # #[cfg(target_arch = "x86_64")] {
//! use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler, x64::X64Relocation};
//! use fastpath::{sync::{self, Header}, thread::{self, ThreadBlock}};
//! use fastpath_jit::{reg::x64::*, reg::RegSet, slow, x64::*, Labels, LockStackLayout};
//!
//! let layout = LockStackLayout::fastpath().unwrap(); // checks the block's layout version
//! let regs = LockRegs::new(RDI, RSI, R8, R9).unwrap(); // thread, object, two temporaries
//! let mut ops = VecAssembler::<X64Relocation>::new(0);
//! let mut labels = || Labels { slow: ops.new_dynamic_label(), done: ops.new_dynamic_label() };
//! let (enter, exit) = (labels(), labels());
//! // extern "C" fn(thread, obj, counter): rdi, rsi, rdx.
//! dynasm!(ops ; .arch x64 ; push rbx);                  // rsp 16-aligned for the stubs' calls
//! LockEnter { regs, layout }.emit(&mut ops, enter);
//! dynasm!(ops ; .arch x64 ; =>enter.done ; add QWORD [rdx], 1);
//! LockExit { regs, layout }.emit(&mut ops, exit);
//! dynasm!(ops ; .arch x64 ; =>exit.done ; pop rbx ; ret);
//! let live = RegSet::of(&[RDI, RSI, RDX]);
//! SlowStub { func: slow::monitor_enter as *const () as usize, args: vec![RDI, RSI], ret: None, live }
//!     .emit(&mut ops, enter.slow, enter.done).unwrap();
//! SlowStub { func: slow::monitor_exit as *const () as usize, args: vec![RDI, RSI], ret: None, live }
//!     .emit(&mut ops, exit.slow, exit.done).unwrap();
//!
//! let cache = fastpath::code::CodeCache::new(4096).unwrap();
//! let entry = cache.install(&ops.finalize().unwrap()).unwrap();
//! // SAFETY: a complete extern "C" fn; called with this thread's block and a pinned header.
//! let f: extern "C" fn(*const ThreadBlock, *const Header, *mut u64) = unsafe { entry.as_fn() };
//! let obj = Box::pin(Header::new());
//! let mut counter = 0u64;
//! f(thread::current().as_ptr(), &*obj, &mut counter); // thin: the fast paths alone
//! let held = sync::lock(obj.as_ref()); // held by Rust: the JIT's enter is a recursion
//! f(thread::current().as_ptr(), &*obj, &mut counter);
//! assert!(sync::holds_lock(&obj));
//! drop(held);
//! assert_eq!((counter, sync::holds_lock(&obj)), (2, false));
//! # }
//! ```

// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

pub mod aarch64;
pub mod layout;
pub mod reg;
pub mod slow;
pub mod x64;

pub use layout::{check_layout_version, LayoutMismatch, LockStackLayout, ThreadLayout};

/// The labels a template branches to; the JIT creates and binds them.
#[derive(Clone, Copy, Debug)]
pub struct Labels {
    /// The uncommon case: where the JIT emits the slow-path stub.
    pub slow: dynasmrt::DynamicLabel,
    /// Where the stub resumes.
    pub done: dynasmrt::DynamicLabel,
}

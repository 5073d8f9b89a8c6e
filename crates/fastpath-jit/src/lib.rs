//! fastpath's fast paths as machine code a JIT inlines: templates emitted
//! through dynasm-rs's `DynasmApi`/`DynasmLabelApi` traits into the JIT's
//! own buffer, so any dynasm user can call them.
//!
//! Where it sits: beside the library's Rust fast paths, with the same
//! protocols and slow paths. Generated code holds the thread block in a
//! register the JIT chooses (HotSpot: r15, x28) and reads it at the offsets
//! of a [`ThreadLayout`] the caller supplies. Each template is described
//! once ([`template`]: its roles, what it clobbers and its budget on each
//! ISA, its slow call) and emitted by one emitter per ISA ([`x64`],
//! [`aarch64`]), chosen by the assembler's relocation type. A template
//! branches to a `slow` label the JIT binds to a [`SlowStub`] (HotSpot's
//! late expansion) and resumes at `done`. The JIT installs the result in
//! fastpath's W^X `CodeCache` (with relocations, if it has any).
//!
//! ```text
//!  JIT ── description (registers, layout) ─▶ Emit::emit ─▶ dynasm buffer ─┐
//!          SlowCall ─▶ SlowStub ─▶ EmitStub::emit (out of line) ──────────┤
//!                                                                         ▼
//!                      fastpath::code::CodeCache::install(_relocated) ─▶ callable code
//! ```
//!
//! | module | concept |
//! |---|---|
//! | [`template`] | one description per template, the [`Template`] contract, the [`Emit`] emitters and their object form [`Emitter`] |
//! | [`isa`] | the ISAs ([`Isa`]) and what each fixes about registers; [`Arch`], the relocation type naming an emitter's ISA |
//! | [`reg`] | registers by number and name, register sets (clobbers), the calling conventions' sets |
//! | [`layout`] | the thread block's offsets and constants, the SATB queue and collection-set map, the heap object's offsets, its reference slots' width ([`RefWidth`]) and where each cell format records a copy ([`Forwardee`]), the layout version checks |
//! | [`slow`] | the library's monitor, SATB, LRB, Brooks write barrier and G1 card slow paths as `extern "C"` functions, and as data ([`slow::LibraryPath`]) |
//! | [`x64`] | the x86-64 emitters and stub |
//! | [`aarch64`] | the AArch64 emitters and stub (emitted on any host; encodings checked against reference words on every host, run from the `CodeCache` on AArch64 and under qemu) |
//!
//! A ten-line JIT: a function that polls for a safepoint and counts, the
//! poll's slow path a Rust `extern "C"` function reached through the stub.
//!
//! ```
//! # #[cfg(target_arch = "x86_64")] {
//! use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler, x64::X64Relocation};
//! use fastpath_jit::{reg::x64::*, reg::RegSet, Emit, EmitStub, Labels, SafepointPoll, SlowStub, ThreadLayout};
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
//! SafepointPoll { thread: RDI, tmp: RAX, layout }.emit(&mut ops, labels).unwrap(); // tmp: AArch64's
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
//! use fastpath_jit::{reg::x64::*, reg::RegSet, slow, Emit, EmitStub, Labels, LockEnter, LockExit, LockRegs};
//! use fastpath_jit::{LockStackLayout, Template};
//!
//! let layout = LockStackLayout::fastpath().unwrap(); // checks the block's layout version
//! let regs = LockRegs::new(RDI, RSI, &[R8, R9]).unwrap(); // thread, object, x86-64's two temporaries
//! let mut ops = VecAssembler::<X64Relocation>::new(0);
//! let mut labels = || Labels { slow: ops.new_dynamic_label(), done: ops.new_dynamic_label() };
//! let (enter, exit) = (labels(), labels());
//! // extern "C" fn(thread, obj, counter): rdi, rsi, rdx.
//! dynasm!(ops ; .arch x64 ; push rbx);                  // rsp 16-aligned for the stubs' calls
//! let (lock, unlock) = (LockEnter { regs, layout }, LockExit { regs, layout });
//! lock.emit(&mut ops, enter).unwrap();
//! dynasm!(ops ; .arch x64 ; =>enter.done ; add QWORD [rdx], 1);
//! unlock.emit(&mut ops, exit).unwrap();
//! dynasm!(ops ; .arch x64 ; =>exit.done ; pop rbx ; ret);
//! let live = RegSet::of(&[RDI, RSI, RDX]);
//! for (t, l) in [(&lock as &dyn Template, enter), (&unlock, exit)] {
//!     // Each template's slow call: the library's enter or exit on (thread, obj).
//!     let call = t.slow_call().unwrap();
//!     let fastpath_jit::SlowPath::Library(path) = call.path else { unreachable!() };
//!     call.stub(path.addr(), &[], live).unwrap().emit(&mut ops, l.slow, l.done).unwrap();
//! }
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
pub mod isa;
pub mod layout;
pub mod reg;
pub mod slow;
pub mod template;
pub mod x64;

pub use isa::{Arch, Isa};
pub use layout::{
    check_layout_version, check_object_layout_version, CellFormat, CsetMap, Forwardee, LayoutMismatch,
    LockStackLayout, ObjectLayout, RefWidth, SatbQueueLayout, ThreadLayout,
};
pub use template::{
    BrooksReadBarrier, BrooksStoreVal, BrooksWriteBarrier, CardBase, CardMark, CasRef, DataBarrier, DataLoad,
    DataStore, DataWidth, Emit, EmitStub, Emitter, G1Card, GcBarrier, GcStateTest, Labels, LockEnter,
    LockEnterGuessing, LockExit, LockExitExpecting, LockRegs, LrbCset, SafepointPoll, SatbEnqueue, SlowArg,
    SlowCall, SlowPath, SlowStub, SpinWait, StubError, Template, TemplateError, TlabAlloc,
};

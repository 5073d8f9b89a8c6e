//! fastpath's fast paths as Cranelift IR: emitters that add the safepoint
//! poll and the SATB/LRB idle tests ([`thread`]), lightweight monitor
//! enter and exit ([`lock`]), the card post-barrier (plain and
//! conditional), G1's filtered card post-barrier, the Brooks read and
//! write barriers, the reference CAS, TLAB bump allocation, the SATB and
//! LRB barriers whole ([`barrier`]), data loads and stores with the
//! set's barrier ([`data`]) and on-spin-wait ([`spin`]) to the
//! caller's `FunctionBuilder`; the slow paths' imports and cold calls
//! ([`slow`]); and [`install`] ([`link`]), which compiles a function with
//! cranelift-codegen and installs it with its relocations in fastpath's
//! W^X `CodeCache`.
//!
//! Where it sits: for Cranelift JITs (wasmtime-style), which have no inline
//! assembly, this is the way to inline the fast paths; the thread block is
//! a `Value` (a `vmctx`-like parameter or the pinned register's value) read
//! at a [`ThreadLayout`]'s offsets, the uncommon case a cold block calling
//! the slow path's `FuncRef`. cranelift-jit cannot install into a
//! dual-mapped cache (it runs code where it wrote it), so [`install`]
//! does the linking: cranelift's relocations become
//! [`fastpath::code::Reloc`]s applied at the executable address.
//!
//! Each emitter is the CLIF form of a template described once in
//! `fastpath_jit::template`: the description's roles are the emitter's
//! `Value`s (its scratch roles have no counterpart: Cranelift allocates),
//! its protocol and budget the template's, its slow call the same
//! arguments. A JIT imports the library's slow path with
//! [`import_library_slow_path`] (signature from `fastpath_jit::slow::LibraryPath`)
//! and resolves it to [`LibraryPath::addr`](fastpath_jit::slow::LibraryPath::addr)
//! in [`install`]:
//!
//! | emitter | description | slow call |
//! |---|---|---|
//! | [`safepoint_poll`] | `SafepointPoll` | the runtime's safepoint `(thread)` |
//! | [`satb_pre_barrier`], [`lrb_idle_test`] | `GcStateTest` | `SatbEnqueue` `(thread, previous)`; the runtime's `(thread, obj)` |
//! | [`lock_enter`], [`lock_exit`], [`lock_exit_expecting`], [`lock_enter_guessing`], [`lock_exit_guessing`] (and their `_or` forms, whose misses jump to the caller's block) | `LockEnter` (guessing: `emit_guessing`), `LockExit`, `LockExitExpecting` | `MonitorEnter` `(thread, obj)`; `MonitorExit` `(thread, obj) -> status` |
//! | [`lock_stack_top_is`] | the exits' first test, as a value (lock coarsening's proof that a lock may be kept) | none |
//! | [`card_mark`] | `CardMark` | none |
//! | [`g1_card`] | `G1Card` | `G1Card` `(thread, field)` |
//! | [`brooks_read_barrier`] | `BrooksReadBarrier` | none |
//! | [`brooks_write_barrier`] | `BrooksWriteBarrier` then `BrooksStoreVal` | `BrooksWb` `(thread, obj) -> obj` |
//! | [`cas_ref`] | `CasRef` | `CasRef` `(thread, field, expected, new) -> expected, or the witness` |
//! | [`data_load`], [`data_store`] | `DataLoad`, `DataStore` | `BrooksWb` `(thread, obj) -> obj` (the store under the Brooks write barrier) |
//! | [`tlab_alloc`] | `TlabAlloc` | the runtime's refill `(thread, size) -> address` |
//! | [`satb_enqueue`] | `GcStateTest` then `SatbEnqueue` | `SatbEnqueue` `(thread, previous)` |
//! | [`load_reference_barrier`] | `GcStateTest` then `LrbCset` | `Lrb` `(thread, obj, field) -> the reference` |
//!
//! Shapes (x86-64 after lowering, cranelift 0.135 `opt_level=speed`):
//! - poll: `movzx r, byte [thread+poll]; test r, bit; jnz cold` (Cranelift
//!   loads into a register first: one instruction more than the template;
//!   the count is checked in the tests);
//! - SATB / LRB idle: the same on `gc_state`;
//! - lock enter 20 instructions on a first-level lock, exit 18 on a
//!   last-level unlock (the templates: 15 and 12): Cranelift copies the CAS
//!   operands into rax and compares its result again instead of branching
//!   on ZF, and loads the own-word constant from its constant pool
//!   (counted and listed by `tests/fast_paths.rs`); the guessing forms
//!   16 and 15 (15 and 15 with a guess that fits a 32-bit immediate), with
//!   no load of the header or of the constant pool after a locked
//!   instruction and no taken branch: the CAS's test is `sub new, old; cmp
//!   imm8; jne` on a 64-bit guess, and a wrong guess's blocks are cold;
//! - on-spin-wait: a call to the installed pause template ([`spin`]).
//!
//! ```
//! # #[cfg(target_arch = "x86_64")] {
//! use cranelift_codegen::ir::{types::I64, AbiParam, Function, InstBuilder, Signature, UserFuncName};
//! use cranelift_codegen::isa::CallConv;
//! use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
//! use fastpath_cranelift::{host_isa, install, safepoint_poll, import_slow_path};
//! use fastpath_jit::ThreadLayout;
//!
//! #[repr(C)] struct Thread { poll: u8 }
//! extern "C" fn at_safepoint(t: *mut Thread) {
//!     // SAFETY: the generated code passes the live thread block it was given.
//!     unsafe { (*t).poll = 0 } // disarm
//! }
//! let layout = ThreadLayout { gc_state: 0, marking_bit: 1, has_forwarded_bit: 4, poll: 0, poll_bit: 1,
//!     card_table_base: 0, card_shift: 9, dirty_card: 0, tlab_top: 0, tlab_end: 0 };
//! let mut sig = Signature::new(CallConv::SystemV);
//! sig.params.extend([AbiParam::new(I64), AbiParam::new(I64)]);
//! sig.returns.push(AbiParam::new(I64));
//! let mut func = Function::with_name_signature(UserFuncName::user(0, 0), sig);
//! let mut fctx = FunctionBuilderContext::new();
//! let mut b = FunctionBuilder::new(&mut func, &mut fctx);
//! let entry = b.create_block();
//! b.append_block_params_for_function_params(entry);
//! b.switch_to_block(entry);
//! let (thread, x) = (b.block_params(entry)[0], b.block_params(entry)[1]);
//! let slow = import_slow_path(&mut b, 0, 1, false);
//! safepoint_poll(&mut b, thread, &layout, slow);         // inlined; cold block calls at_safepoint
//! let r = b.ins().iadd_imm_s(x, 1);
//! b.ins().return_(&[r]);
//! b.seal_all_blocks();
//! b.finalize(host_isa().frontend_config());
//!
//! let cache = fastpath::code::CodeCache::new(4096).unwrap();
//! let entry = install(&cache, &*host_isa(), func, |_index| at_safepoint as *const () as usize).unwrap();
//! // SAFETY: the function has this signature and stays installed.
//! let f: extern "C" fn(*mut Thread, u64) -> u64 = unsafe { entry.as_fn() };
//! let mut t = Thread { poll: 1 };
//! assert_eq!(f(&mut t, 41), 42);
//! assert_eq!(t.poll, 0, "the armed poll called the slow path");
//! # }
//! ```

pub use fastpath_jit::{
    CellFormat, CsetMap, Forwardee, LockStackLayout, ObjectLayout, SatbQueueLayout, ThreadLayout,
};

pub mod barrier;
pub mod compile;
pub mod data;
pub mod link;
pub mod lock;
pub mod preserve;
pub mod slow;
pub mod spin;
pub mod thread;

pub use barrier::{
    brooks_read_barrier, brooks_write_barrier, brooks_write_barrier_with_state, card_mark, cas_ref, g1_card,
    load_gc_state, load_reference_barrier, load_reference_barrier_at, load_reference_barrier_at_with_state,
    satb_enqueue, satb_enqueue_slot_with_state, satb_enqueue_with_state, tlab_alloc, CardTable,
};
pub use data::{data_load, data_store};
pub use link::{host_isa, install, Error};
pub use lock::{
    lock_enter, lock_enter_guessing, lock_enter_guessing_or, lock_enter_with_mark, lock_exit,
    lock_exit_expecting, lock_exit_guessing, lock_exit_guessing_or, lock_stack_top_is,
};
pub use slow::{
    call_slow, import_library_slow_path, import_slow_path, import_slow_path_with_result, ARG_BLOCK_KEY,
    RESULT_BLOCK_KEY,
};
pub use spin::{install_pause, spin_wait};
pub use thread::{lrb_idle_test, safepoint_poll, satb_pre_barrier};

//! fastpath's fast paths as Cranelift IR: emitters that add the safepoint
//! poll, the SATB/LRB idle tests, lightweight monitor enter and exit
//! ([`lock`]), the card post-barrier (plain and conditional), G1's
//! filtered card post-barrier, the Brooks read and write barriers, the
//! reference CAS, TLAB bump allocation, the SATB and LRB barriers whole
//! ([`barrier`]) and on-spin-wait ([`spin`]) to the caller's
//! `FunctionBuilder`, and [`install`], which compiles a function with
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
//! | [`lock_enter`], [`lock_exit`], [`lock_exit_expecting`] | `LockEnter`, `LockExit`, `LockExitExpecting` | `MonitorEnter` `(thread, obj)`; `MonitorExit` `(thread, obj) -> status` |
//! | [`card_mark`] | `CardMark` | none |
//! | [`g1_card`] | `G1Card` | `G1Card` `(thread, field)` |
//! | [`brooks_read_barrier`] | `BrooksReadBarrier` | none |
//! | [`brooks_write_barrier`] | `BrooksWriteBarrier` then `BrooksStoreVal` | `BrooksWb` `(thread, obj) -> obj` |
//! | [`cas_ref`] | `CasRef` | the runtime's retry `(thread, addr, expected, new) -> witnessed` |
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
//!   (counted and listed by `tests/fast_paths.rs`);
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

use cranelift_codegen::binemit::Reloc as ClifReloc;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{
    self, types::I32, types::I64, AbiParam, ExtFuncData, ExternalName, FuncRef, InstBuilder, MemFlagsData,
    Signature, UserExternalName, Value,
};
use cranelift_codegen::isa::{CallConv, OwnedTargetIsa, TargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, FinalizedRelocTarget};
use cranelift_frontend::FunctionBuilder;
use fastpath::code::{Blob, CodeCache, Entry, Reloc, RelocKind, Target};
use fastpath_jit::slow::{LibraryPath, SlowResult};
pub use fastpath_jit::{LockStackLayout, ThreadLayout};

pub mod barrier;
pub mod lock;
pub mod spin;

pub use barrier::{
    brooks_read_barrier, brooks_write_barrier, card_mark, cas_ref, g1_card, load_reference_barrier,
    satb_enqueue, tlab_alloc, CardTable,
};
pub use fastpath_jit::{CsetMap, SatbQueueLayout};
pub use lock::{lock_enter, lock_enter_with_mark, lock_exit, lock_exit_expecting};
pub use spin::{install_pause, spin_wait};

/// Why a function could not be compiled or installed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// cranelift-codegen refused the function.
    Compile(String),
    /// A relocation this installer does not map (named in the message).
    Unsupported(String),
    /// The code cache refused the code.
    Install(fastpath::code::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Compile(e) => write!(f, "cranelift: {e}"),
            Error::Unsupported(e) => write!(f, "unsupported relocation: {e}"),
            Error::Install(e) => write!(f, "code cache: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// An ISA for the host with `opt_level=speed`.
pub fn host_isa() -> OwnedTargetIsa {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").expect("a known setting");
    let triple = if cfg!(target_arch = "aarch64") {
        "aarch64-unknown-linux-gnu"
    } else {
        "x86_64-unknown-linux-gnu"
    };
    cranelift_codegen::isa::lookup_by_name(triple)
        .expect("cranelift built with host-arch")
        .finish(settings::Flags::new(flags))
        .expect("valid flags")
}

/// Imports an `extern "C" fn(thread)`-shaped slow path (a pointer-sized
/// argument per `args`, no result) named `(namespace 1, index)`; `install`'s
/// `resolve` maps `index` to its address. `colocated` asks Cranelift for a
/// PC-relative call (a veneer if the function is out of range) instead of
/// an absolute address in a register.
pub fn import_slow_path(b: &mut FunctionBuilder<'_>, index: u32, args: usize, colocated: bool) -> FuncRef {
    import(b, index, args, None, colocated)
}

/// As [`import_slow_path`], for a slow path returning a value of type `ret`
/// (`I32` for `fastpath_jit::slow::monitor_exit`'s status, `I64` for an
/// address or a witnessed reference).
pub fn import_slow_path_with_result(
    b: &mut FunctionBuilder<'_>,
    index: u32,
    args: usize,
    ret: ir::Type,
    colocated: bool,
) -> FuncRef {
    import(b, index, args, Some(ret), colocated)
}

/// Imports the library's slow path `path` named `(namespace 1, index)`,
/// with its signature (its arguments, and a `u32` status as `I32` or a word
/// as `I64`); `install`'s `resolve` maps `index` to `path.addr()`.
pub fn import_library_slow_path(
    b: &mut FunctionBuilder<'_>,
    index: u32,
    path: LibraryPath,
    colocated: bool,
) -> FuncRef {
    let ret = path.result().map(|r| match r {
        SlowResult::Status => I32,
        SlowResult::Word => I64,
    });
    import(b, index, path.args().len(), ret, colocated)
}

fn import(
    b: &mut FunctionBuilder<'_>,
    index: u32,
    args: usize,
    ret: Option<ir::Type>,
    colocated: bool,
) -> FuncRef {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.extend((0..args).map(|_| AbiParam::new(I64)));
    sig.returns.extend(ret.map(AbiParam::new));
    let signature = b.import_signature(sig);
    let name = b
        .func
        .declare_imported_user_function(UserExternalName { namespace: 1, index });
    b.import_function(ExtFuncData {
        name: ExternalName::user(name),
        signature,
        colocated,
        patchable: false,
    })
}

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

/// Fills `block` (marked cold; the builder may already be in it, with the
/// arguments computed there): `slow(args)`, then a jump to `cont` with the
/// call's result as its argument if `cont` takes one. Returns the result,
/// if any.
fn cold_call(
    b: &mut FunctionBuilder<'_>,
    block: ir::Block,
    slow: FuncRef,
    args: &[Value],
    cont: ir::Block,
) -> Option<Value> {
    b.set_cold_block(block);
    if b.current_block() != Some(block) {
        b.switch_to_block(block);
    }
    let call = b.ins().call(slow, args);
    let r = b.inst_results(call).first().copied();
    let pass: Vec<ir::BlockArg> = if b.func.dfg.num_block_params(cont) > 0 {
        r.into_iter().map(Into::into).collect()
    } else {
        Vec::new()
    };
    b.ins().jump(cont, &pass);
    r
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

/// Compiles `func` for `isa` and installs it in `cache`, linking every call
/// to an imported user function `(1, index)` to `resolve(index)`: Cranelift's
/// `Abs8` becomes [`RelocKind::Abs64`], `X86CallPCRel4`/`X86CallPLTRel4`
/// [`RelocKind::X86Branch32`] (veneer when far), `Arm64Call`
/// [`RelocKind::Aarch64Branch26`].
pub fn install(
    cache: &CodeCache,
    isa: &dyn TargetIsa,
    func: ir::Function,
    resolve: impl Fn(u32) -> usize,
) -> Result<Entry, Error> {
    let names = func.params.user_named_funcs().clone();
    let mut ctx = Context::for_function(func);
    let code = ctx
        .compile(isa, &mut ControlPlane::default())
        .map_err(|e| Error::Compile(format!("{:?}", e.inner)))?;
    let bytes = code.code_buffer().to_vec();
    let mut relocs = Vec::new();
    for r in code.buffer.relocs() {
        let target = match &r.target {
            FinalizedRelocTarget::ExternalName(ExternalName::User(name)) => {
                let user = &names[*name];
                Target::Addr(resolve(user.index))
            }
            FinalizedRelocTarget::Func(off) => Target::Blob {
                index: 0,
                offset: *off as usize,
            },
            other => return Err(Error::Unsupported(format!("{other:?}"))),
        };
        // Cranelift: value = S + A − P. fastpath's rel32: S + A' − (P + 4).
        let (kind, addend) = match r.kind {
            ClifReloc::Abs8 => (RelocKind::Abs64, r.addend),
            ClifReloc::X86CallPCRel4 | ClifReloc::X86CallPLTRel4 => (RelocKind::X86Branch32, r.addend + 4),
            ClifReloc::X86PCRel4 => (RelocKind::X86PcRel32, r.addend + 4),
            ClifReloc::Arm64Call => (RelocKind::Aarch64Branch26, r.addend),
            k => return Err(Error::Unsupported(format!("{k:?}"))),
        };
        relocs.push(Reloc {
            offset: r.offset as usize,
            kind,
            target,
            addend,
        });
    }
    cache
        .install_relocated(&[Blob {
            code: &bytes,
            relocs: &relocs,
        }])
        .map(|mut v| v.remove(0))
        .map_err(Error::Install)
}

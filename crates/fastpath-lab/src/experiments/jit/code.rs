//! The generated loops of `fastpath jit`: each a function written with
//! dynasm-rs, one fastpath-jit template (or two) inlined in its body, and
//! installed in fastpath's W^X `CodeCache`, as a JIT would install a
//! compiled method.
//!
//! Where it sits: [`super`] times these loops and hands them to the
//! profiler as regions; the templates come from `fastpath_jit` (its x86-64 emitters)
//! unchanged, their slow-path stubs out of line after the loop (HotSpot's
//! late expansion).
//!
//! Every loop is `extern "C" fn(thread, obj, aux, n, proto)` (rdi, rsi,
//! rdx, rcx, r8): `n` operations, each one trip of
//! ```text
//!   push rbx                      ; rsp 16-aligned for the stubs' calls
//!   test rcx, rcx ; jz end
//! top:
//!   <body>                        ; the template(s) and the access they guard
//!   dec rcx ; jnz top             ; 2 instructions of loop per operation
//! end:
//!   pop rbx ; ret
//!   <stubs>
//! ```
//! so an operation's instructions are the body's plus two; the `empty`
//! loop (no body) measures those two.

use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath::sync::Header;
use fastpath::thread::ThreadBlock;
use fastpath_jit::reg::{x64::*, RegSet};
use fastpath_jit::{
    slow, BrooksReadBarrier, CardBase, CardMark, Emit, EmitStub, GcBarrier, GcStateTest, Labels, LockEnter,
    LockExit, LockRegs, LockStackLayout, SafepointPoll, SlowStub, ThreadLayout,
};

/// The signature of every generated loop: thread block, object, an
/// auxiliary pointer (the counter, the value stored), operations, and a
/// prototype header word (the churn loop's fresh object).
pub type LoopFn = extern "C" fn(*const ThreadBlock, *const u8, *mut u64, u64, *const u64);

/// Which loop to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// No body: the loop's own two instructions.
    Empty,
    /// Lightweight enter, `*aux += 1`, lightweight exit expecting enter's
    /// mark register (`LockExit::emit_expecting`), on `obj` (a `Header`).
    /// Held by the caller beforehand, it is the recursive row.
    LockPair,
    /// The same on a fresh header per operation: the prototype word copied
    /// into a stack slot (HotSpot's churn allocates the object instead).
    LockChurn,
    /// The safepoint poll on the thread block.
    Poll,
    /// A reference store `[obj+8] = aux` without a barrier.
    Store,
    /// The SATB idle test before the store.
    SatbStore,
    /// The store, then the card mark of `obj` (the biased base an
    /// immediate, as HotSpot embeds the byte map base).
    CardStore(u64),
    /// A reference load `[obj+8]` and a data read through it (`[ref+16]`)
    /// without a barrier.
    Load,
    /// The same with the LRB idle test on the loaded reference.
    LrbLoad,
    /// The Brooks read barrier on `obj` (forwarding word at −8) before
    /// the load.
    BrooksLoad,
}

/// Counts the slow-path calls of the loops whose slow path should never
/// run in this experiment (poll and barriers: nothing arms the poll or
/// starts a GC cycle): a non-zero count is reported, not hidden.
pub static SLOW_CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The slow path of every generated poll and barrier loop (the dynasm,
/// Cranelift and graph loops): counts the call.
extern "C" fn count_slow(_thread: *const ThreadBlock, _value: usize) {
    // Relaxed: a tally read after the loops ran, on this thread.
    SLOW_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// [`count_slow`]'s address, for the stubs of the Cranelift and graph
/// loops.
pub(crate) fn count_slow_ptr() -> usize {
    count_slow as *const () as usize
}

/// A generated loop, installed; callable while this lives.
pub struct Installed {
    // Declared before the cache: the entry is only an address in it.
    entry: Entry,
    _cache: CodeCache,
    /// Bytes of machine code.
    pub len: usize,
}

impl Installed {
    /// Wraps an installed loop of the [`LoopFn`] signature.
    pub(crate) fn new(entry: Entry, cache: CodeCache, len: usize) -> Installed {
        Installed {
            entry,
            _cache: cache,
            len,
        }
    }

    /// The loop as a function.
    pub fn func(&self) -> LoopFn {
        // SAFETY: every loop of this file is a complete function of the
        // `LoopFn` signature (see `generate`), installed in `_cache`, which
        // lives as long as `self`.
        unsafe { self.entry.as_fn::<LoopFn>() }
    }
}

/// Emits `body` as a loop and installs it in a cache of its own.
pub fn generate(body: Body) -> anyhow::Result<Installed> {
    let lock_layout = LockStackLayout::fastpath().map_err(|e| anyhow::anyhow!("{e}"))?;
    let layout = ThreadLayout::fastpath().map_err(|e| anyhow::anyhow!("{e}"))?;
    let regs = LockRegs::new(RDI, RSI, &[R9, R10]).map_err(|e| anyhow::anyhow!("{e}"))?;
    // What the loop keeps across each operation: the arguments.
    let live = RegSet::of(&[RDI, RSI, RDX, RCX, R8, R11]);
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let mut labels = || Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let (first, second) = (labels(), labels());
    let top = ops.new_dynamic_label();
    let end = ops.new_dynamic_label();
    dynasm!(ops
        ; .arch x64
        ; push rbx
        ; xor r11d, r11d
        ; test rcx, rcx
        ; jz =>end
    );
    if body == Body::LockChurn {
        // One 16-byte slot keeps rsp 16-aligned: the fresh header lives there.
        dynasm!(ops ; .arch x64 ; sub rsp, 16);
    }
    // The loop's first instruction on a 64-byte boundary, as compilers align
    // hot loop heads: the timing does not depend on where the prologue ended.
    dynasm!(ops ; .arch x64 ; .align 64, 0x90 ; =>top);
    // (label, slow-path function, its arguments) of each stub to emit.
    let mut stubs: Vec<(Labels, usize, Vec<fastpath_jit::reg::Reg>)> = Vec::new();
    let count = count_slow as *const () as usize;
    match body {
        Body::Empty => {}
        Body::LockPair | Body::LockChurn => {
            if body == Body::LockChurn {
                dynasm!(ops ; .arch x64 ; mov rax, QWORD [r8] ; mov QWORD [rsp], rax ; mov rsi, rsp);
            }
            LockEnter {
                regs,
                layout: lock_layout,
            }
            .emit(&mut ops, first)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            dynasm!(ops ; .arch x64 ; =>first.done ; add QWORD [rdx], 1);
            // The critical section makes no call, so enter's mark register
            // (r10) still holds the word its CAS stored: the exit expects
            // it instead of loading the header after enter's locked CAS.
            LockExit {
                regs,
                layout: lock_layout,
            }
            .emit_expecting(&mut ops, second, R10)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            dynasm!(ops ; .arch x64 ; =>second.done);
            stubs.push((first, slow::monitor_enter as *const () as usize, vec![RDI, RSI]));
            stubs.push((second, slow::monitor_exit as *const () as usize, vec![RDI, RSI]));
        }
        Body::Poll => {
            SafepointPoll {
                thread: RDI,
                tmp: RAX,
                layout,
            }
            .emit(&mut ops, first)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            dynasm!(ops ; .arch x64 ; =>first.done);
            stubs.push((first, count, vec![RDI]));
        }
        Body::Store => {
            dynasm!(ops ; .arch x64 ; mov QWORD [rsi + 8], rdx);
        }
        Body::SatbStore => {
            GcStateTest {
                barrier: GcBarrier::Satb,
                thread: RDI,
                tmp: RAX,
                layout,
            }
            .emit(&mut ops, first)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            dynasm!(ops ; .arch x64 ; =>first.done ; mov QWORD [rsi + 8], rdx);
            stubs.push((first, count, vec![RDI, RSI]));
        }
        Body::CardStore(base) => {
            dynasm!(ops ; .arch x64 ; mov QWORD [rsi + 8], rdx ; mov r9, rsi);
            CardMark {
                addr: R9,
                tmp: R10,
                tmp2: R10,
                base: CardBase::Imm(base),
                conditional: false,
                layout,
            }
            .emit(&mut ops, first)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            dynasm!(ops ; .arch x64 ; =>first.done);
        }
        Body::Load => {
            dynasm!(ops ; .arch x64 ; mov rax, QWORD [rsi + 8] ; add r11, QWORD [rax + 16]);
        }
        Body::LrbLoad => {
            dynasm!(ops ; .arch x64 ; mov rax, QWORD [rsi + 8]);
            GcStateTest {
                barrier: GcBarrier::Lrb,
                thread: RDI,
                tmp: R10,
                layout,
            }
            .emit(&mut ops, first)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            dynasm!(ops ; .arch x64 ; =>first.done ; add r11, QWORD [rax + 16]);
            stubs.push((first, count, vec![RDI, RAX]));
        }
        Body::BrooksLoad => {
            dynasm!(ops ; .arch x64 ; mov r9, rsi);
            BrooksReadBarrier {
                obj: R9,
                forwarding: -8,
            }
            .emit(&mut ops, first)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            dynasm!(ops ; .arch x64 ; mov rax, QWORD [r9 + 8] ; add r11, QWORD [rax + 16]);
        }
    }
    dynasm!(ops
        ; .arch x64
        ; dec rcx
        ; jnz =>top
    );
    if body == Body::LockChurn {
        dynasm!(ops ; .arch x64 ; add rsp, 16);
    }
    dynasm!(ops ; .arch x64 ; =>end);
    if matches!(body, Body::Load | Body::LrbLoad | Body::BrooksLoad) {
        // The loads' sum goes to *aux: the reads have a use.
        dynasm!(ops ; .arch x64 ; mov QWORD [rdx], r11);
    }
    dynasm!(ops ; .arch x64 ; pop rbx ; ret);
    for (l, func, args) in stubs {
        SlowStub {
            func,
            args,
            ret: None,
            live: live.with(RAX),
        }
        .emit(&mut ops, l.slow, l.done)
        .map_err(|e| anyhow::anyhow!("slow stub: {e}"))?;
    }
    let code = ops
        .finalize()
        .map_err(|e| anyhow::anyhow!("assembling the {body:?} loop: {e:?}"))?;
    let cache = CodeCache::new(code.len().max(4096)).map_err(|e| anyhow::anyhow!("code cache: {e}"))?;
    let entry = cache
        .install(&code)
        .map_err(|e| anyhow::anyhow!("installing the {body:?} loop: {e}"))?;
    Ok(Installed {
        entry,
        _cache: cache,
        len: code.len(),
    })
}

/// The unlocked word of a fresh header, read by the churn loop's machine
/// code (never by Rust) as its prototype.
pub fn fresh_header() -> std::pin::Pin<Box<Header>> {
    Box::pin(Header::new())
}

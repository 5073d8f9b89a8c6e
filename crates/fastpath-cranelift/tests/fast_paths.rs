//! Every Cranelift emitter beyond the poll and idle tests compiled with
//! cranelift-codegen for the host, installed through
//! `CodeCache::install_relocated` (the slow paths reached through
//! relocated calls) and run: lightweight monitor enter and exit through
//! the same differential (header × lock-stack states against the Rust
//! path), mixed and deflater-stress tests as the dynasm templates
//! (`lock_world`, shared with fastpath-jit's tests); card (plain,
//! conditional, immediate base), Brooks read barrier, Brooks write
//! barrier (`brooks_world`'s differential against the Rust model, and
//! `brooks_real`'s run on a concurrent heap with the library's slow path,
//! both shared with fastpath-jit's tests), G1's filtered card barrier (`g1_world`'s
//! differential against the library's Rust barrier on a real heap, the
//! slow path the library's), reference CAS, TLAB
//! bump and on-spin-wait against plain memory.

#[path = "../../fastpath-jit/tests/common/brooks_real.rs"]
mod brooks_real;
#[path = "../../fastpath-jit/tests/common/brooks_world.rs"]
mod brooks_world;
#[path = "../../fastpath-jit/tests/common/g1_world.rs"]
mod g1_world;
#[path = "../../fastpath-jit/tests/common/lock_world.rs"]
#[allow(dead_code)] // the parts the dynasm harnesses use too
mod lock_world;

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use cranelift_codegen::ir::{
    types::I32, types::I64, AbiParam, Function, InstBuilder, Signature, Type, UserFuncName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use fastpath::code::{CodeCache, Entry};
use fastpath::sync::Header;
use fastpath::thread::{self as fthread, ThreadBlock};
use fastpath_cranelift::*;
use fastpath_jit::slow;
use lock_world::{Guess, Op, Run};

/// Compiles `fn(i64 × params) -> ret?` whose body `body` emits (returning
/// the result value), links import `i` to `imports[i]`, installs it.
fn compile(
    cache: &CodeCache,
    params: usize,
    ret: Option<Type>,
    imports: &[usize],
    body: impl FnOnce(&mut FunctionBuilder<'_>, &[Value]) -> Option<Value>,
) -> Entry {
    let isa = host_isa();
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.extend((0..params).map(|_| AbiParam::new(I64)));
    sig.returns.extend(ret.map(AbiParam::new));
    let mut func = Function::with_name_signature(UserFuncName::user(0, 0), sig);
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let args = b.block_params(entry).to_vec();
    let r = body(&mut b, &args);
    b.ins().return_(r.as_slice());
    b.seal_all_blocks();
    b.finalize(isa.frontend_config());
    install(cache, &*isa, func, |i| imports[i as usize]).unwrap()
}

// ---------------------------------------------------------------------
// Lock enter and exit.

thread_local! {
    /// The cold block ran on this thread (set by the test slow paths).
    static REACHED_SLOW: Cell<bool> = const { Cell::new(false) };
}

/// Records the slow label and changes nothing (the differential's harness).
extern "C" fn mark_slow(_t: *const ThreadBlock, _o: *const Header) -> u32 {
    REACHED_SLOW.with(|r| r.set(true));
    0
}

/// Records the slow label and runs the library's enter.
extern "C" fn enter_slow(t: *const ThreadBlock, o: *const Header) {
    REACHED_SLOW.with(|r| r.set(true));
    // SAFETY: the compiled code passes this thread's block and the header
    // the harness was given (live, pinned).
    unsafe { slow::monitor_enter(t, o) }
}

/// Records the slow label and runs the library's exit.
extern "C" fn exit_slow(t: *const ThreadBlock, o: *const Header) -> u32 {
    REACHED_SLOW.with(|r| r.set(true));
    // SAFETY: as in `enter_slow`.
    unsafe { slow::monitor_exit(t, o) }
}

/// `fn(thread, obj) -> status` with the emitter inlined.
struct Harness {
    _cache: CodeCache,
    entry: Entry,
    op: Op,
}

impl Harness {
    /// The exit with its expected word made as `kind` says.
    fn guessed(kind: Guess) -> Harness {
        let layout = LockStackLayout::fastpath().unwrap();
        let cache = CodeCache::new(64 * 1024).unwrap();
        let entry = compile(
            &cache,
            2,
            Some(I32),
            &[mark_slow as *const () as usize],
            |b, a| {
                let f = import_slow_path_with_result(b, 0, 2, I32, true);
                let flags = cranelift_codegen::ir::MemFlagsData::trusted();
                let word = match kind {
                    Guess::Loaded => b.ins().load(I64, flags, a[1], 0),
                    Guess::LoadedInflated => {
                        let w = b.ins().load(I64, flags, a[1], 0);
                        let w = b.ins().band_imm_s(w, -4);
                        b.ins().bor_imm_u(w, 2)
                    }
                    Guess::Zero => b.ins().iconst(I64, 0),
                    Guess::Ones => b.ins().iconst(I64, -1),
                    Guess::Other => {
                        let w = b.ins().load(I64, flags, a[1], 0);
                        let bit = b.ins().iconst(I64, 0x100);
                        b.ins().bxor(w, bit)
                    }
                };
                Some(lock_exit_expecting(b, a[0], a[1], word, &layout, f))
            },
        );
        Harness {
            _cache: cache,
            entry,
            op: Op::Exit,
        }
    }

    fn new(op: Op, with_slow_path: bool) -> Harness {
        let layout = LockStackLayout::fastpath().unwrap();
        let cache = CodeCache::new(64 * 1024).unwrap();
        let slow = match (op, with_slow_path) {
            (_, false) => mark_slow as *const () as usize,
            (Op::Enter, true) => enter_slow as *const () as usize,
            (Op::Exit, true) => exit_slow as *const () as usize,
        };
        let entry = compile(&cache, 2, Some(I32), &[slow], |b, a| {
            Some(match op {
                Op::Enter => {
                    let f = import_slow_path(b, 0, 2, false);
                    lock_enter(b, a[0], a[1], &layout, f);
                    b.ins().iconst(I32, 0)
                }
                Op::Exit => {
                    let f = import_slow_path_with_result(b, 0, 2, I32, true);
                    lock_exit(b, a[0], a[1], &layout, f)
                }
            })
        });
        Harness {
            _cache: cache,
            entry,
            op,
        }
    }
}

impl Run for Harness {
    /// 0 fell through; 1 the cold block ran (with the slow path: it
    /// succeeded); 2 the exit slow path reported an error.
    fn run(&self, obj: &Header) -> u64 {
        REACHED_SLOW.with(|r| r.set(false));
        // SAFETY: `Harness::new` compiled an `extern "C" fn(*const
        // ThreadBlock, *const Header) -> u32`, installed while `self`
        // lives; this thread's block, a live pinned header.
        let status = unsafe {
            let f: extern "C" fn(*const ThreadBlock, *const Header) -> u32 = self.entry.as_fn();
            f(fthread::current().as_ptr(), obj)
        };
        let slow = REACHED_SLOW.with(|r| r.get());
        match (self.op, status) {
            (Op::Exit, 1) => 2,
            (_, 0) => u64::from(slow),
            (_, s) => panic!("status {s}"),
        }
    }
}

#[test]
fn lock_differential_against_the_rust_path() {
    let mut checked = 0;
    for op in [Op::Enter, Op::Exit] {
        checked += lock_world::differential(op, &Harness::new(op, false), "cranelift");
    }
    println!("cranelift differential: {checked} (operation, state) cases, each against a Rust twin");
}

/// Every guess against the Rust exit: the right ones reach the table's
/// labels, the wrong ones send fast exits to the cold block, every outcome
/// equals Rust's.
#[test]
fn guessed_exit_agrees_with_rust_whatever_the_guess() {
    let (mut checked, mut to_slow) = (0, 0);
    for kind in [
        Guess::Loaded,
        Guess::LoadedInflated,
        Guess::Zero,
        Guess::Ones,
        Guess::Other,
    ] {
        let right = matches!(kind, Guess::Loaded | Guess::LoadedInflated);
        let (c, sl) = lock_world::differential_guessed(
            &Harness::guessed(kind),
            &format!("cranelift, guess {kind:?}"),
            right,
        );
        if matches!(kind, Guess::Ones | Guess::Other) {
            assert!(sl > 0, "a wrong guess ({kind:?}) never failed the CAS");
        }
        checked += c;
        to_slow += sl;
    }
    println!("cranelift guessed exit: {checked} (guess, state) cases against the Rust exit; {to_slow} wrong guesses sent a fast exit to slow");
}

/// `lock_enter_with_mark`'s result as `lock_exit_expecting`'s guess in one
/// function: the pair takes both fast paths (first-level and, inside a
/// Rust enter, recursive) and leaves the header and lock-stack as found.
#[test]
fn enter_mark_feeds_the_expecting_exit() {
    let layout = LockStackLayout::fastpath().unwrap();
    let cache = CodeCache::new(64 * 1024).unwrap();
    let imports = [mark_slow as *const () as usize, mark_slow as *const () as usize];
    let e = compile(&cache, 2, Some(I32), &imports, |b, a| {
        let enter_slow = import_slow_path(b, 0, 2, false);
        let exit_slow = import_slow_path_with_result(b, 1, 2, I32, true);
        let mark = lock_enter_with_mark(b, a[0], a[1], &layout, enter_slow);
        Some(lock_exit_expecting(b, a[0], a[1], mark, &layout, exit_slow))
    });
    // SAFETY: a complete `extern "C" fn(*const ThreadBlock, *const
    // Header) -> u32`, installed while `cache` lives.
    let pair: extern "C" fn(*const ThreadBlock, *const Header) -> u32 = unsafe { e.as_fn() };
    // A thread's lock-stack holds its above-end sentinel until the
    // thread's first lock operation sets its locking mode up.
    let scratch = Box::pin(Header::new());
    fastpath::sync::enter(scratch.as_ref());
    fastpath::sync::exit(scratch.as_ref()).unwrap();
    assert!(lock_world::lock_stack().0 as usize <= fthread::LOCK_STACK_END_OFFSET);
    let x = Box::pin(Header::new());
    for recursive in [false, true] {
        if recursive {
            fastpath::sync::enter(x.as_ref());
        }
        let (before, stack) = (x.raw(), lock_world::lock_stack());
        REACHED_SLOW.with(|r| r.set(false));
        assert_eq!(pair(fthread::current().as_ptr(), &*x), 0);
        assert!(
            !REACHED_SLOW.with(|r| r.get()),
            "recursive {recursive}: a slow path ran"
        );
        assert_eq!(
            (x.raw(), lock_world::lock_stack()),
            (before, stack),
            "recursive {recursive}"
        );
        if recursive {
            fastpath::sync::exit(x.as_ref()).unwrap();
        }
    }
}

#[test]
fn lock_mixed_with_the_rust_path() {
    lock_world::mixed(&Harness::new(Op::Enter, true), &Harness::new(Op::Exit, true));
}

#[test]
fn lock_stress_with_the_deflater() {
    lock_world::stress(&Harness::new(Op::Enter, true), &Harness::new(Op::Exit, true), 400);
}

// ---------------------------------------------------------------------
// Barriers, allocation, spin.

#[repr(C)]
#[derive(Default)]
struct TestThread {
    gc_state: u8,
    poll: u8,
    card_base: usize,
    tlab_top: usize,
    tlab_end: usize,
}

fn layout() -> ThreadLayout {
    use std::mem::offset_of;
    ThreadLayout {
        gc_state: offset_of!(TestThread, gc_state) as i32,
        marking_bit: 1,
        has_forwarded_bit: 4,
        poll: offset_of!(TestThread, poll) as i32,
        poll_bit: 1,
        card_table_base: offset_of!(TestThread, card_base) as i32,
        card_shift: 9,
        dirty_card: 0,
        tlab_top: offset_of!(TestThread, tlab_top) as i32,
        tlab_end: offset_of!(TestThread, tlab_end) as i32,
    }
}

#[test]
fn card_marks_dirty_the_card_plain_conditional_and_immediate() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    for (table, conditional, dirty) in [
        (None, false, 0u8),
        (None, true, 0),
        (None, true, 0x5a),
        (Some(()), false, 0),
        (Some(()), true, 0x5a),
    ] {
        let heap = vec![0u64; 4 * 512 / 8];
        let mut cards = vec![0xffu8; 5];
        let heap_base = heap.as_ptr() as usize & !511;
        let biased = (cards.as_mut_ptr() as usize).wrapping_sub(heap_base >> 9);
        let mut t = TestThread {
            card_base: biased,
            ..TestThread::default()
        };
        let l = ThreadLayout {
            dirty_card: dirty,
            ..layout()
        };
        let table = match table {
            None => CardTable::Thread,
            Some(()) => CardTable::Base(biased),
        };
        let e = compile(&cache, 2, None, &[], |b, a| {
            card_mark(b, a[0], a[1], &l, table, conditional);
            None
        });
        // SAFETY: an `extern "C" fn(*mut TestThread, usize)` storing into
        // the card of the address given, inside `cards`.
        let f: extern "C" fn(*mut TestThread, usize) = unsafe { e.as_fn() };
        f(&mut t, heap_base + 2 * 512 + 8);
        f(&mut t, heap_base + 2 * 512 + 16); // already dirty: the conditional form skips
        f(&mut t, heap_base + 3 * 512);
        assert_eq!(
            cards,
            [0xff, 0xff, dirty, dirty, 0xff],
            "{table:?} conditional {conditional}"
        );
    }
}

#[test]
fn brooks_read_barrier_follows_the_forwarding_word() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let e = compile(&cache, 1, Some(I64), &[], |b, a| {
        Some(brooks_read_barrier(b, a[0], -8))
    });
    // SAFETY: an `extern "C" fn(u64) -> u64` loading the word at obj − 8.
    let f: extern "C" fn(u64) -> u64 = unsafe { e.as_fn() };
    let to = [0u64; 2];
    let from = [to.as_ptr() as u64 + 8, 0];
    assert_eq!(f(from.as_ptr() as u64 + 8), to.as_ptr() as u64 + 8);
}

/// The CAS slow path's calls (Relaxed: read by the thread that made them).
static CAS_SLOW: AtomicU64 = AtomicU64::new(0);

/// Retries on "resolved copies": here the resolved expected value is the
/// field's current one when it equals `expected | 1` (the test's stand-in
/// for the other copy of the same object).
extern "C" fn cas_slow(_t: *mut TestThread, addr: *mut u64, expected: u64, new: u64) -> u64 {
    CAS_SLOW.fetch_add(1, Ordering::Relaxed);
    // SAFETY: the compiled code passes the field it was given, a live u64
    // only this test's thread touches.
    unsafe {
        let now = addr.read();
        if now == expected | 1 {
            addr.write(new);
            expected
        } else {
            now
        }
    }
}

#[test]
fn reference_cas_succeeds_fails_and_calls_the_slow_path_only_when_forwarded() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let l = layout();
    let e = compile(&cache, 4, Some(I64), &[cas_slow as *const () as usize], |b, a| {
        let slow = import_slow_path_with_result(b, 0, 4, I64, false);
        Some(cas_ref(b, a[0], a[1], a[2], a[3], &l, slow))
    });
    // SAFETY: an `extern "C" fn(*mut TestThread, *mut u64, u64, u64) -> u64`
    // CASing the field given.
    let f: extern "C" fn(*mut TestThread, *mut u64, u64, u64) -> u64 = unsafe { e.as_fn() };
    let mut t = TestThread::default();
    let mut field = 0x1000u64;
    assert_eq!(f(&mut t, &mut field, 0x1000, 0x2000), 0x1000);
    assert_eq!(field, 0x2000, "success");
    assert_eq!(f(&mut t, &mut field, 0x3000, 0x4000), 0x2000);
    assert_eq!(field, 0x2000, "genuine failure: witnessed value, nothing written");
    field = 0x3001; // "the other copy" of 0x3000
    assert_eq!(
        f(&mut t, &mut field, 0x3000, 0x4000),
        0x3001,
        "idle GC: no slow path"
    );
    assert_eq!(CAS_SLOW.load(Ordering::Relaxed), 0);
    t.gc_state = 4; // forwarded objects exist
    assert_eq!(f(&mut t, &mut field, 0x3000, 0x4000), 0x3000);
    assert_eq!(
        (field, CAS_SLOW.load(Ordering::Relaxed)),
        (0x4000, 1),
        "resolved retry"
    );
}

/// The TLAB slow path's allocations (Relaxed: as `CAS_SLOW`).
static TLAB_SLOW: AtomicU64 = AtomicU64::new(0);
extern "C" fn tlab_slow(_t: *mut TestThread, size: u64) -> u64 {
    TLAB_SLOW.fetch_add(1, Ordering::Relaxed);
    0xdead_0000 + size
}

#[test]
fn tlab_bump_allocates_until_the_end_then_calls_the_slow_path() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let l = layout();
    let e = compile(
        &cache,
        1,
        Some(I64),
        &[tlab_slow as *const () as usize],
        |b, a| {
            let slow = import_slow_path_with_result(b, 0, 2, I64, true);
            Some(tlab_alloc(b, a[0], 32, &l, slow))
        },
    );
    // SAFETY: an `extern "C" fn(*mut TestThread) -> u64` bumping the test TLAB.
    let f: extern "C" fn(*mut TestThread) -> u64 = unsafe { e.as_fn() };
    let mut t = TestThread {
        tlab_top: 0x1000,
        tlab_end: 0x1040,
        ..TestThread::default()
    };
    assert_eq!((f(&mut t), f(&mut t)), (0x1000, 0x1020));
    assert_eq!(t.tlab_top, 0x1040, "exactly full");
    assert_eq!(TLAB_SLOW.load(Ordering::Relaxed), 0);
    assert_eq!(f(&mut t), 0xdead_0020, "exhausted: the slow path's object");
    assert_eq!((t.tlab_top, TLAB_SLOW.load(Ordering::Relaxed)), (0x1040, 1));
}

#[test]
fn spin_wait_calls_the_installed_pause() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let pause = install_pause(&cache).unwrap();
    let e = compile(&cache, 1, Some(I64), &[pause.addr() as usize], |b, a| {
        let p = import_slow_path(b, 0, 0, true);
        for _ in 0..3 {
            spin_wait(b, p);
        }
        Some(b.ins().iadd_imm_s(a[0], 1))
    });
    // SAFETY: an `extern "C" fn(u64) -> u64` calling the pause thrice.
    let f: extern "C" fn(u64) -> u64 = unsafe { e.as_fn() };
    assert_eq!(f(41), 42);
    println!(
        "pause {:?}: {} bytes installed",
        fastpath::spin::active(),
        pause.len()
    );
}

/// The compiled lock functions decoded: one locked instruction (the CAS)
/// each, and the common path's length (the templates: 15 and 12).
#[cfg(target_arch = "x86_64")]
#[test]
fn compiled_lock_paths_have_one_locked_cas() {
    use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter};
    for op in [Op::Enter, Op::Exit] {
        let h = Harness::new(op, true);
        // SAFETY: the entry's bytes are mapped readable while `h` lives.
        let code = unsafe { std::slice::from_raw_parts(h.entry.addr(), h.entry.len()) };
        let (mut listing, mut locked, mut fmt) = (String::new(), 0, IntelFormatter::new());
        let insns: Vec<_> = Decoder::with_ip(64, code, 0, DecoderOptions::NONE)
            .iter()
            .collect();
        // The common path is the fall-through from the entry to the first
        // `ret`: the prologue (push rbp; mov rbp, rsp) and the epilogue
        // (xor eax, eax; mov rsp, rbp; pop rbp; ret) are not the fast path's.
        let ret = insns
            .iter()
            .position(|i| i.mnemonic() == iced_x86::Mnemonic::Ret)
            .expect("a ret");
        assert!(
            insns[..ret]
                .iter()
                .all(|i| i.mnemonic() != iced_x86::Mnemonic::Jmp),
            "{op:?}: the common path falls through"
        );
        let common = ret - 2 - 3;
        for insn in insns {
            listing.push_str(&format!("{:3x}: ", insn.ip()));
            fmt.format(&insn, &mut listing);
            listing.push('\n');
            if insn.has_lock_prefix() {
                assert_eq!(insn.mnemonic(), iced_x86::Mnemonic::Cmpxchg, "{listing}");
                locked += 1;
            }
        }
        assert_eq!(locked, 1, "{op:?}: one locked CAS\n{listing}");
        println!("cranelift {op:?}: common path {common} instructions\n{listing}");
        // cranelift is pinned (=0.135.8): its lowering is stable.
        assert_eq!(common, if op == Op::Enter { 20 } else { 18 }, "{listing}");
    }
}

// ---------------------------------------------------------------------
// SATB and LRB, whole: idle test, medium path, slow call.

#[repr(C)]
struct GcThread {
    gc_state: u8,
    satb_index: usize,
    satb_buffer: *mut u64,
    buffer: [u64; 4],
}

fn gc_layout() -> (ThreadLayout, SatbQueueLayout) {
    use std::mem::offset_of;
    (
        ThreadLayout {
            gc_state: offset_of!(GcThread, gc_state) as i32,
            ..layout()
        },
        SatbQueueLayout {
            index: offset_of!(GcThread, satb_index) as i32,
            buffer: offset_of!(GcThread, satb_buffer) as i32,
        },
    )
}

/// The SATB slow path's values: a flushed buffer (oldest first), then the
/// value that did not fit.
static SATB_SEEN: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());

extern "C" fn satb_flush(t: *mut GcThread, prev: u64) {
    // SAFETY: the compiled code passes the live test block it was given.
    let t = unsafe { &mut *t };
    let mut seen = SATB_SEEN.lock().unwrap();
    seen.extend(t.buffer[t.satb_index / 8..].iter().rev());
    seen.push(prev);
    t.satb_index = 32;
}

#[test]
fn satb_barrier_records_every_overwritten_non_null_value_once() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let (l, q) = gc_layout();
    let e = compile(&cache, 2, None, &[satb_flush as *const () as usize], |b, a| {
        let slow = import_slow_path(b, 0, 2, true);
        satb_enqueue(b, a[0], a[1], &l, &q, slow);
        None
    });
    // SAFETY: an `extern "C" fn(*mut GcThread, *mut u64)` reading the
    // field and the block, writing the block's queue.
    let barrier: extern "C" fn(*mut GcThread, *mut u64) = unsafe { e.as_fn() };
    let mut t = Box::new(GcThread {
        gc_state: 0,
        satb_index: 32,
        satb_buffer: std::ptr::null_mut(),
        buffer: [0; 4],
    });
    t.satb_buffer = t.buffer.as_mut_ptr();
    let mut field = 7u64;
    barrier(&mut *t, &mut field);
    assert_eq!(t.satb_index, 32, "idle: nothing enqueued");
    t.gc_state = 1; // marking
    let mut expected = Vec::new();
    for v in 1..=11u64 {
        barrier(&mut *t, &mut field);
        if field != 0 {
            expected.push(field);
        }
        field = if v % 3 == 0 { 0 } else { 100 + v };
    }
    let mut got = SATB_SEEN.lock().unwrap().clone();
    got.extend(t.buffer[t.satb_index / 8..].iter().rev());
    assert_eq!(got, expected, "every non-null old value, once, in order");
    assert!(
        SATB_SEEN.lock().unwrap().len() > 4,
        "the full buffer reached the slow path"
    );
}

/// The LRB slow path's evacuations: forwards to the next region.
static LRB_EVACUATED: AtomicU64 = AtomicU64::new(0);
extern "C" fn lrb_evacuate(_t: *mut GcThread, obj: u64) -> u64 {
    LRB_EVACUATED.fetch_add(1, Ordering::Relaxed);
    // SAFETY: `obj` is one of the test heap's objects, its forwarding word
    // 8 bytes below it.
    unsafe { ((obj - 8) as *mut u64).write(obj + 4096) };
    obj + 4096
}

#[test]
fn load_reference_barrier_resolves_forwarded_and_evacuates_through_the_slow_path() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let (l, _) = gc_layout();
    let mut heap = vec![0u64; 5 * 4096 / 8];
    let base = (heap.as_mut_ptr() as usize + 4095) & !4095;
    let mut map = [0u8, 1, 0, 0];
    let cset = CsetMap {
        biased: (map.as_mut_ptr() as usize).wrapping_sub(base >> 12),
        region_shift: 12,
    };
    let obj = |region: usize, i: usize| (base + region * 4096 + 16 + 32 * i) as u64;
    let set_fwd = |o: u64, to: u64| {
        // SAFETY: inside the test heap, 8 bytes below an object.
        unsafe { ((o - 8) as *mut u64).write(to) }
    };
    let (a, b_, c, d) = (obj(0, 0), obj(1, 0), obj(1, 1), obj(2, 0));
    for o in [a, b_, c, d] {
        set_fwd(o, o);
    }
    set_fwd(b_, d);
    let e = compile(
        &cache,
        2,
        Some(I64),
        &[lrb_evacuate as *const () as usize],
        |b, args| {
            let slow = import_slow_path_with_result(b, 0, 2, I64, true);
            Some(load_reference_barrier(b, args[0], args[1], &l, &cset, -8, slow))
        },
    );
    // SAFETY: an `extern "C" fn(*mut GcThread, u64) -> u64` reading the
    // block, the map and the forwarding words.
    let lrb: extern "C" fn(*mut GcThread, u64) -> u64 = unsafe { e.as_fn() };
    let mut t = GcThread {
        gc_state: 0,
        satb_index: 0,
        satb_buffer: std::ptr::null_mut(),
        buffer: [0; 4],
    };
    assert_eq!(lrb(&mut t, b_), b_, "idle");
    t.gc_state = 4; // has forwarded objects
    assert_eq!(lrb(&mut t, 0), 0, "null");
    assert_eq!(lrb(&mut t, a), a, "outside the collection set");
    assert_eq!(lrb(&mut t, b_), d, "forwarded: the copy");
    assert_eq!(LRB_EVACUATED.load(Ordering::Relaxed), 0);
    assert_eq!(lrb(&mut t, c), c + 4096, "not copied yet: the slow path");
    assert_eq!(lrb(&mut t, c), c + 4096, "then forwarded");
    assert_eq!(LRB_EVACUATED.load(Ordering::Relaxed), 1);
    drop(heap);
}

// ---------------------------------------------------------------------
// The Brooks write barrier.

/// `fn(block, obj, val, out)`: `brooks_write_barrier` on `obj` (the
/// block's GC-state byte at `gc_state`) calling `slow`, `out` = [object to
/// write, value to store].
fn brooks_wb_function(cache: &CodeCache, gc_state: i32, slow: usize) -> Entry {
    use brooks_world::{EVACUATION, HAS_FORWARDED};
    compile(cache, 4, None, &[slow], |b, args| {
        let slow = import_slow_path_with_result(b, 0, 2, I64, true);
        let (o, v) = brooks_write_barrier(
            b,
            args[0],
            args[1],
            args[2],
            gc_state,
            EVACUATION | HAS_FORWARDED,
            -8,
            slow,
        );
        let flags = cranelift_codegen::ir::MemFlagsData::trusted();
        b.ins().store(flags, o, args[3], 0);
        b.ins().store(flags, v, args[3], 8);
        None
    })
}

#[test]
fn brooks_write_barrier_matches_the_rust_barrier_on_every_case() {
    use brooks_world::TestThread;
    let cache = CodeCache::new(64 * 1024).unwrap();
    let gc_state = std::mem::offset_of!(TestThread, gc_state) as i32;
    let e = brooks_wb_function(&cache, gc_state, brooks_world::slow_entry as *const () as usize);
    // SAFETY: a complete `extern "C" fn(*mut TestThread, usize, usize,
    // *mut [usize; 2])` reading the block and the forwarding words,
    // writing `out` (and the world through the slow path).
    let wb: brooks_world::Wb = unsafe { e.as_fn() };
    brooks_world::differential(wb);
}

/// The same function on the real block with the library's slow path
/// (`fastpath_jit::slow::brooks_wb`, counted) on a concurrent
/// `shenandoah-2017` heap: the slow call copies or finds the copy, the
/// original forwards to it (`brooks_real`, shared with fastpath-jit).
#[test]
fn brooks_write_barrier_reaches_the_library_on_a_concurrent_heap() {
    std::thread::spawn(|| {
        let cache = CodeCache::new(64 * 1024).unwrap();
        let gc_state = fthread::GC_STATE_OFFSET as i32;
        let e = brooks_wb_function(&cache, gc_state, brooks_real::slow_counted as *const () as usize);
        // SAFETY: a complete `extern "C" fn(*const ThreadBlock, usize,
        // usize, *mut [usize; 2])`, called by `brooks_real` on this thread
        // with its block, on objects of its mutator's heap, between its
        // stops.
        let wb: brooks_real::Wb = unsafe { e.as_fn() };
        brooks_real::copies_through_the_stub(wb);
    })
    .join()
    .unwrap();
}

// ---------------------------------------------------------------------
// G1's filtered card post-barrier.

#[test]
fn g1_card_matches_the_rust_barrier_on_every_filter_case() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let layout = ThreadLayout::fastpath().unwrap();
    let shift = g1_world::region_shift();
    // fn(block, field, value): the store, then the barrier.
    let e = compile(
        &cache,
        3,
        None,
        &[g1_world::slow_counted as *const () as usize],
        |b, a| {
            let slow = import_slow_path(b, 0, 2, true);
            let flags = cranelift_codegen::ir::MemFlagsData::trusted();
            b.ins().store(flags, a[2], a[1], 0);
            g1_card(b, a[0], a[1], a[2], &layout, CardTable::Thread, shift, slow);
            None
        },
    );
    // SAFETY: a complete `extern "C" fn(block, field, value)` storing into
    // the field and running the barrier; `g1_world` calls it with this
    // thread's block, on fields of its mutator's heap, between its stops.
    let f: g1_world::Store = unsafe { e.as_fn() };
    assert_eq!(g1_world::differential(f), 5);
}

/// The compiled G1 barrier on x86-64: instructions to each exit (same
/// region, null, a dirty card falling through), counted after the frame's
/// prologue; the template's are 4, 6 and 11 (Cranelift tests the shifted
/// value and the card byte with a separate `test` each, and loads the
/// base into a register first).
#[cfg(target_arch = "x86_64")]
#[test]
fn compiled_g1_card_exits() {
    use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter, Mnemonic};
    let cache = CodeCache::new(64 * 1024).unwrap();
    let layout = ThreadLayout::fastpath().unwrap();
    let e = compile(
        &cache,
        3,
        None,
        &[g1_world::slow_counted as *const () as usize],
        |b, a| {
            let slow = import_slow_path(b, 0, 2, true);
            g1_card(b, a[0], a[1], a[2], &layout, CardTable::Thread, 16, slow);
            None
        },
    );
    // SAFETY: the entry's bytes are mapped readable while `e` lives.
    let code = unsafe { std::slice::from_raw_parts(e.addr(), e.len()) };
    let insns: Vec<_> = Decoder::with_ip(64, code, 0, DecoderOptions::NONE)
        .iter()
        .collect();
    let (mut fmt, mut listing) = (IntelFormatter::new(), String::new());
    for insn in &insns {
        listing.push_str(&format!("{:3x}: ", insn.ip()));
        fmt.format(insn, &mut listing);
        listing.push('\n');
    }
    // The prologue (push rbp; mov rbp, rsp), then the barrier up to the
    // epilogue (mov rsp, rbp; pop rbp; ret) that every exit reaches.
    let ret = insns
        .iter()
        .position(|i| i.mnemonic() == Mnemonic::Ret)
        .expect("a ret");
    let body = &insns[2..ret - 2];
    let exits: Vec<usize> = body
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i.mnemonic(), Mnemonic::Je | Mnemonic::Jne))
        .map(|(n, _)| n + 1)
        .collect();
    println!("cranelift G1 card: exits after {exits:?} instructions\n{listing}");
    // cranelift is pinned (=0.135.8): its lowering is stable.
    assert_eq!(exits, [5, 7, 13], "{listing}");
    assert_eq!(body.len(), 13, "{listing}");
}

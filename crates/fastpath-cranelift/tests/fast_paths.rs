//! Every Cranelift emitter beyond the poll and idle tests compiled with
//! cranelift-codegen for the host, installed through
//! `CodeCache::install_relocated` (the slow paths reached through
//! relocated calls) and run on the scenarios the dynasm templates run
//! (fastpath-jit's test worlds and cases, `common`): lightweight monitor
//! enter and exit through the same differential (header × lock-stack
//! states against the Rust path), mixed and deflater-stress tests
//! (`lock_world`); the SATB and LRB barriers whole (`gc_world`'s
//! scenarios in both cell formats and `lrb_real`'s runs on concurrent
//! heaps of both formats, the cases `gc_medium_tests!`); the Brooks write barrier
//! (`brooks_world`'s differential against the Rust model and
//! `brooks_real`'s run on a concurrent heap with the library's slow path,
//! the cases `brooks_wb_tests!`); G1's filtered card barrier
//! (`g1_world`'s differential against the library's Rust barrier on a
//! real heap); the data loads and stores (`data_world`'s runs against the
//! Rust accessors in every preset and during evacuation, the cases
//! `data_access_tests!`); the reference CAS's false failures retried by
//! the library's slow entry on a concurrent heap (`cas_real`, the cases
//! `cas_ref_tests!`); card (plain, conditional, immediate base), Brooks
//! read barrier, reference CAS, TLAB bump and on-spin-wait against plain
//! memory.

mod common;

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use common::block::{layout, TestThread};
use common::lock_world::{self, Guess, Op, Run};
use common::{brooks_world, compile, g1_world, gc_world};
use cranelift_codegen::ir::{types::I32, types::I64, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use fastpath::code::{CodeCache, Entry};
use fastpath::sync::Header;
use fastpath::thread::{self as fthread, ThreadBlock};
use fastpath_cranelift::*;
use fastpath_jit::slow::{self, LibraryPath};

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
                let f = import_library_slow_path(b, 0, LibraryPath::MonitorExit, true);
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
                    let f = import_library_slow_path(b, 0, LibraryPath::MonitorEnter, false);
                    lock_enter(b, a[0], a[1], &layout, f);
                    b.ins().iconst(I32, 0)
                }
                Op::Exit => {
                    let f = import_library_slow_path(b, 0, LibraryPath::MonitorExit, true);
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

impl Harness {
    /// The guessing enter or exit (`lock_enter_guessing`,
    /// `lock_exit_guessing`) with `neutral` as the guess; with `miss_block`
    /// their `_or` forms instead, whose miss block (built here) calls the
    /// same slow path and joins the locked or unlocked path with its status.
    fn guessing(op: Op, neutral: u64, with_slow_path: bool, miss_block: bool) -> Harness {
        let layout = LockStackLayout::fastpath().unwrap();
        let cache = CodeCache::new(64 * 1024).unwrap();
        let slow = match (op, with_slow_path) {
            (_, false) => mark_slow as *const () as usize,
            (Op::Enter, true) => enter_slow as *const () as usize,
            (Op::Exit, true) => exit_slow as *const () as usize,
        };
        let entry = compile(&cache, 2, Some(I32), &[slow], |b, a| {
            if miss_block {
                let (miss, join) = (b.create_block(), b.create_block());
                let status = b.append_block_param(join, I32);
                let f = match op {
                    Op::Enter => {
                        let f = import_library_slow_path(b, 0, LibraryPath::MonitorEnter, false);
                        lock_enter_guessing_or(b, a[0], a[1], neutral, &layout, miss);
                        f
                    }
                    Op::Exit => {
                        let f = import_library_slow_path(b, 0, LibraryPath::MonitorExit, true);
                        lock_exit_guessing_or(b, a[0], a[1], neutral, &layout, miss);
                        f
                    }
                };
                let zero = b.ins().iconst(I32, 0);
                b.ins().jump(join, &[zero.into()]);
                b.switch_to_block(miss);
                b.set_cold_block(miss);
                let call = b.ins().call(f, &[a[0], a[1]]);
                let slow_status = match op {
                    Op::Enter => b.ins().iconst(I32, 0),
                    Op::Exit => b.inst_results(call)[0],
                };
                b.ins().jump(join, &[slow_status.into()]);
                b.switch_to_block(join);
                return Some(status);
            }
            Some(match op {
                Op::Enter => {
                    let f = import_library_slow_path(b, 0, LibraryPath::MonitorEnter, false);
                    lock_enter_guessing(b, a[0], a[1], neutral, &layout, f);
                    b.ins().iconst(I32, 0)
                }
                Op::Exit => {
                    let f = import_library_slow_path(b, 0, LibraryPath::MonitorExit, true);
                    lock_exit_guessing(b, a[0], a[1], neutral, &layout, f)
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
    let (checked, to_slow) = lock_world::every_guess("cranelift", Harness::guessed);
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

/// The guessing enter and exit: every state against the Rust path, with
/// the right guess (a fresh header's word, with and without its lock bits)
/// and wrong ones (0, all ones, another hash bit, spare bits the header
/// lacks): a miss goes on from the word the failed CAS found, so every
/// label is the table's and every outcome Rust's. Then the guessing pair
/// mixed with the Rust path, and under the deflater's stress.
#[test]
fn guessing_pair_agrees_with_rust_whatever_the_guess() {
    let fresh = Header::new().raw() as u64;
    let guesses = [
        fresh,
        fresh & !0b11,
        0,
        u64::MAX,
        fresh ^ (1 << 8),
        fresh | (1 << 40),
    ];
    let mut checked = 0;
    for miss_block in [false, true] {
        for guess in guesses {
            for op in [Op::Enter, Op::Exit] {
                let h = Harness::guessing(op, guess, false, miss_block);
                let what = format!("cranelift guessing, {guess:#x}, miss block {miss_block}");
                checked += lock_world::differential(op, &h, &what);
            }
        }
    }
    println!("cranelift guessing pair and its _or form: {checked} (form, guess, operation, state) cases, each against a Rust twin");
    for miss_block in [false, true] {
        let (enter, exit) = (
            Harness::guessing(Op::Enter, fresh, true, miss_block),
            Harness::guessing(Op::Exit, fresh, true, miss_block),
        );
        lock_world::mixed(&enter, &exit);
        lock_world::stress(&enter, &exit, 100);
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

/// `lock_stack_top_is` run against the Rust path's locks: true for the
/// latest fast-lock only (a recursive one included), false once it is
/// released or another lock is taken after it; and false for a thread in
/// legacy mode, whose inactive lock-stack's `top` the test keeps inside
/// the thread block.
#[test]
fn lock_stack_top_is_the_latest_fast_lock_only() {
    let layout = LockStackLayout::fastpath().unwrap();
    let cache = CodeCache::new(64 * 1024).unwrap();
    let e = compile(&cache, 2, Some(I32), &[], |b, a| {
        let on_top = lock_stack_top_is(b, a[0], a[1], &layout);
        Some(b.ins().uextend(I32, on_top))
    });
    // SAFETY: an `extern "C" fn(*const ThreadBlock, *const Header) -> u32`
    // that reads the thread block's lock-stack; installed while `cache`
    // lives, called with this thread's block.
    let f: extern "C" fn(*const ThreadBlock, *const Header) -> u32 = unsafe { e.as_fn() };
    let on_top = move |h: &Header| f(fthread::current().as_ptr(), h) == 1;
    std::thread::spawn(move || {
        use fastpath::sync::{lock, set_current_thread_locking_mode, LockingMode};
        let (h, g) = (Box::pin(Header::new()), Box::pin(Header::new()));
        set_current_thread_locking_mode(LockingMode::Lightweight).unwrap();
        assert!(!on_top(&h), "unlocked");
        {
            let _a = lock(h.as_ref());
            assert!(on_top(&h), "h locked");
            {
                let _b = lock(g.as_ref());
                assert!(!on_top(&h) && on_top(&g), "g locked after h");
                let _c = lock(g.as_ref());
                assert!(on_top(&g), "g again (recursive)");
            }
            assert!(on_top(&h) && !on_top(&g), "g released");
        }
        assert!(!on_top(&h), "h released");
        set_current_thread_locking_mode(LockingMode::Legacy).unwrap();
        let _a = lock(h.as_ref());
        assert!(!on_top(&h), "a legacy stack-lock is on no lock-stack");
    })
    .join()
    .unwrap();
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
/// Which of `insns` (decoded from offset 0) control flow reaches from
/// the first: branches followed to their targets, calls to the next
/// instruction, a `ret` or a jump out of the code ending its way.
#[cfg(target_arch = "x86_64")]
fn reachable(insns: &[iced_x86::Instruction]) -> Vec<bool> {
    use iced_x86::FlowControl;
    let at = |ip: u64| insns.iter().position(|i| i.ip() == ip);
    let mut seen = vec![false; insns.len()];
    let mut work = vec![0];
    while let Some(k) = work.pop() {
        if k >= insns.len() || seen[k] {
            continue;
        }
        seen[k] = true;
        let i = &insns[k];
        match i.flow_control() {
            FlowControl::Return | FlowControl::IndirectBranch => {}
            FlowControl::UnconditionalBranch => work.extend(at(i.near_branch_target())),
            FlowControl::ConditionalBranch => {
                work.extend(at(i.near_branch_target()));
                work.push(k + 1);
            }
            _ => work.push(k + 1),
        }
    }
    seen
}

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
        // Only the instructions control reaches from the entry: the bytes
        // after the code (constants, the calls' veneers holding the slow
        // path's address) decode as anything, a `lock` prefix among them.
        let reached = reachable(&insns);
        for (insn, _) in insns.into_iter().zip(reached).filter(|(_, r)| *r) {
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
        // cranelift is pinned (=0.135.8): its lowering is stable. The exit
        // loads `top` 32 bits wide and masks it in a register (two
        // instructions more than a byte load: the mask and a copy; the
        // emitter's `exit_top_tests` says why).
        assert_eq!(common, 20, "{op:?}\n{listing}");
    }
}

/// The guessing forms decoded: the common path (the guess right: the
/// recursion test fails, the first CAS wins) is the fall-through from the
/// entry to the first `ret` (the miss path's blocks are cold, out of line);
/// it has one locked CAS, no load of the header (no memory operand on the
/// object's register but the CAS's), no constant-pool operand (a
/// RIP-relative load after the locked instruction) and no jump; in both
/// the emitters' forms (their own slow call, the caller's miss block).
#[cfg(target_arch = "x86_64")]
#[test]
fn compiled_guessing_paths_load_no_header() {
    use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter, Mnemonic, OpKind, Register};
    // The neutral word the library's headers start with (64-bit: needs the
    // subtracting test) and one that fits a 32-bit immediate (the exit's
    // expected word has the own-word bit, 1 << 63, set: always wide).
    for (neutral, miss_block) in [Header::new().raw() as u64, 0x1234_5601]
        .into_iter()
        .flat_map(|n| [(n, false), (n, true)])
    {
        for op in [Op::Enter, Op::Exit] {
            let wide = op == Op::Exit || i32::try_from(neutral as i64).is_err();
            let h = Harness::guessing(op, neutral, true, miss_block);
            // SAFETY: the entry's bytes are mapped readable while `h` lives.
            let code = unsafe { std::slice::from_raw_parts(h.entry.addr(), h.entry.len()) };
            let (mut listing, mut fmt) = (String::new(), IntelFormatter::new());
            let insns: Vec<_> = Decoder::with_ip(64, code, 0, DecoderOptions::NONE)
                .iter()
                .collect();
            for insn in &insns {
                listing.push_str(&format!("{:3x}: ", insn.ip()));
                fmt.format(insn, &mut listing);
                listing.push('\n');
            }
            let ret = insns
                .iter()
                .position(|i| i.mnemonic() == Mnemonic::Ret)
                .expect("a ret");
            let path = &insns[..ret];
            let what = format!("{op:?} guessing {neutral:#x}, miss block {miss_block}\n{listing}");
            assert_eq!(path.iter().filter(|i| i.has_lock_prefix()).count(), 1, "{what}");
            // The object is the second argument (rsi): only the CAS touches it.
            let header_loads = path
                .iter()
                .filter(|i| {
                    (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory)
                        && i.memory_base() == Register::RSI
                        && !i.has_lock_prefix()
                })
                .count();
            assert_eq!(header_loads, 0, "the header is loaded: {what}");
            assert!(
                path.iter().all(|i| !i.is_ip_rel_memory_operand()),
                "a constant-pool operand: {what}"
            );
            assert!(
                path.iter().all(|i| i.mnemonic() != Mnemonic::Jmp),
                "a jump: {what}"
            );
            // After the CAS: `sub new, old; cmp, imm8; jne miss` for a wide
            // guess, `cmp old, imm32; jne miss` for a narrow one.
            let cas = path.iter().position(|i| i.has_lock_prefix()).unwrap();
            let test: Vec<_> = path[cas + 1..].iter().take(3).map(|i| i.mnemonic()).collect();
            let expected: &[Mnemonic] = if wide {
                &[Mnemonic::Sub, Mnemonic::Cmp, Mnemonic::Jne]
            } else {
                &[Mnemonic::Cmp, Mnemonic::Jne]
            };
            assert_eq!(&test[..expected.len()], expected, "{what}");
            // Less the frame (push rbp; mov rbp, rsp) and the epilogue (xor eax,
            // eax; mov rsp, rbp; pop rbp), as `compiled_lock_paths_have_one_locked_cas`.
            let common = path.len() - 2 - 3;
            println!("cranelift guessing {op:?} {neutral:#x}, miss block {miss_block}: common path {common} instructions\n{listing}");
            // cranelift is pinned (=0.135.8): its lowering is stable.
            let counted = match op {
                Op::Enter => 15,
                Op::Exit => 16, // the wide load of `top` and its mask, as above
            } + usize::from(wide);
            assert_eq!(common, counted, "{what}");
        }
    }
}

// ---------------------------------------------------------------------
// SATB and LRB, whole: idle test, medium path, slow call.

/// `fn(thread, field)`: the SATB barrier of a store to `field`, on
/// `gc_world`'s block and queue, its slow path `gc_world::satb_flush`.
fn satb_function(cache: &CodeCache) -> Entry {
    let (l, q) = (gc_world::layout(), gc_world::queue());
    let flush = gc_world::satb_flush as *const () as usize;
    compile(cache, 2, None, &[flush], |b, a| {
        let slow = import_library_slow_path(b, 0, LibraryPath::SatbEnqueue, true);
        satb_enqueue(b, a[0], a[1], &l, &q, slow);
        None
    })
}

/// `fn(thread, obj, field) -> obj as the caller may use it`: the whole
/// load-reference barrier on a block of `l` and on `cset`, resolving
/// copies through `forwardee`, its slow path `slow` (the library's
/// signature).
fn lrb_function(
    cache: &CodeCache,
    l: ThreadLayout,
    cset: CsetMap,
    forwardee: Forwardee,
    slow: usize,
) -> Entry {
    lrb_function_on(cache, l, cset, forwardee, slow, |_, obj, _| obj)
}

/// [`lrb_function`] on the reference `reference(b, obj, field)` gives.
fn lrb_function_on(
    cache: &CodeCache,
    l: ThreadLayout,
    cset: CsetMap,
    forwardee: Forwardee,
    slow: usize,
    reference: impl Fn(&mut FunctionBuilder, Value, Value) -> Value,
) -> Entry {
    compile(cache, 3, Some(I64), &[slow], |b, a| {
        let slow = import_library_slow_path(b, 0, LibraryPath::Lrb, true);
        let obj = reference(b, a[1], a[2]);
        Some(load_reference_barrier(
            b, a[0], obj, a[2], &l, &cset, forwardee, slow,
        ))
    })
}

common::cases::gc_medium_tests!(satb_function, lrb_function);

/// `fn(thread, obj, field) -> the reference to use`: the reference slot at
/// `field` of a heap whose slots are `refs` wide loaded (`data_load`, its
/// `obj` argument ignored) and passed through the whole load-reference
/// barrier on a block of `l` and on `cset`, resolving copies through
/// `forwardee`, its slow path `slow` (the library's signature).
fn lrb_load_function(
    refs: fastpath_jit::RefWidth,
    cache: &CodeCache,
    l: ThreadLayout,
    cset: CsetMap,
    forwardee: Forwardee,
    slow: usize,
) -> Entry {
    use fastpath_jit::{DataBarrier, DataWidth};
    lrb_function_on(cache, l, cset, forwardee, slow, move |b, _, field| {
        data_load(b, field, None, 0, DataWidth::Ref(refs), DataBarrier::None).unwrap()
    })
}

/// The load of a 4-byte slot, compressed and unscaled, and the LRB on a
/// concurrent `shenandoah` heap of those slots in each cell format, each
/// on its own thread (`lrb_real`): copies resolved inline, the rest
/// evacuated by the library, which heals the slot with the copy's
/// encoding. Half the targets are tagged with a reference 0 in their
/// layout word's 8 bytes, which the compact format's test of a copy must
/// read past.
#[test]
fn lrb_after_a_four_byte_load_resolves_real_copies() {
    use fastpath_jit::{CellFormat, RefWidth};
    for refs in [RefWidth::Compressed, RefWidth::Unscaled] {
        for format in [CellFormat::Compact, CellFormat::Brooks] {
            let build = move |cache: &CodeCache, l, cset, forwardee, slow| {
                lrb_load_function(refs, cache, l, cset, forwardee, slow)
            };
            std::thread::spawn(move || common::lrb_real::lrb_resolves_real_copies_in(build, format, refs))
                .join()
                .unwrap();
        }
    }
}

/// `fn(thread, field)`: the SATB barrier of a store to the reference slot
/// at `field` of a heap whose slots are `refs` wide, on `gc_world`'s block
/// and queue, its slow path `gc_world::satb_flush`.
fn satb_slot_function(cache: &CodeCache, refs: fastpath::gc::layout::RefWidth) -> Entry {
    let (l, q) = (gc_world::layout(), gc_world::queue());
    let flush = gc_world::satb_flush as *const () as usize;
    compile(cache, 2, None, &[flush], |b, a| {
        let slow = import_library_slow_path(b, 0, LibraryPath::SatbEnqueue, true);
        let state = load_gc_state(b, a[0], l.gc_state);
        satb_enqueue_slot_with_state(
            b,
            state,
            a[0],
            a[1],
            refs,
            cranelift_codegen::ir::MemFlagsData::trusted(),
            &l,
            &q,
            slow,
        );
        None
    })
}

/// The SATB barrier on a 4-byte reference slot, compressed (the address
/// shifted right by 3) and unscaled (the address itself, below 4 GiB):
/// idle, nothing is enqueued; marking, the slot's 32 bits are read (not
/// the next slot's beside them) and the decoded address enqueued; a null
/// slot enqueues nothing.
#[test]
fn satb_on_a_four_byte_slot_enqueues_the_decoded_address() {
    use fastpath::gc::layout::RefWidth;
    use gc_world::{TestThread as GcThread, MARKING, SLOTS};
    let cache = CodeCache::new(64 * 1024).unwrap();
    for (refs, object) in [
        (RefWidth::Compressed, 0x7_6543_2108u64),
        (RefWidth::Unscaled, 0xf654_3218u64),
    ] {
        let e = satb_slot_function(&cache, refs);
        // SAFETY: an `extern "C" fn(*mut GcThread, *mut u32)` reading the
        // slot and the test block, writing the block's queue.
        let barrier: extern "C" fn(*mut GcThread, *mut u32) = unsafe { e.as_fn() };
        let mut t = Box::new(GcThread {
            gc_state: 0,
            satb_index: SLOTS * 8,
            satb_buffer: std::ptr::null_mut(),
            buffer: [0; SLOTS],
        });
        t.satb_buffer = t.buffer.as_mut_ptr();
        let encoded = u32::try_from(refs.encode(object as usize)).unwrap();
        let mut slots: [u32; 2] = [encoded, 0xdead_beef];
        barrier(&mut *t, slots.as_mut_ptr());
        assert_eq!(t.satb_index, SLOTS * 8, "{refs:?}: idle, nothing enqueued");
        t.gc_state = MARKING;
        barrier(&mut *t, slots.as_mut_ptr());
        assert_eq!(t.satb_index, SLOTS * 8 - 8, "{refs:?}");
        assert_eq!(t.buffer[SLOTS - 1], object, "{refs:?}: the decoded address");
        slots[0] = 0;
        barrier(&mut *t, slots.as_mut_ptr());
        assert_eq!(t.satb_index, SLOTS * 8 - 8, "{refs:?}: null, nothing enqueued");
    }
}

/// The SATB barrier on the slots of real heaps of every reference width
/// (`gc_world`'s scenario: the middle slot of three between two naming
/// another object, every non-null previous value recorded once, decoded).
#[test]
fn satb_records_decoded_previous_values_of_real_slots_in_every_width() {
    use fastpath::gc::layout::RefWidth;
    let cache = CodeCache::new(64 * 1024).unwrap();
    for refs in [RefWidth::Full, RefWidth::Compressed, RefWidth::Unscaled] {
        let e = satb_slot_function(&cache, refs);
        // SAFETY: an `extern "C" fn(*mut TestThread, *mut u64)` reading the
        // field (a real slot of `refs`' width) and the test block, writing
        // the block and its buffer.
        let barrier: gc_world::SatbFn = unsafe { e.as_fn() };
        std::thread::spawn(move || gc_world::satb_records_decoded_values_of_real_slots(barrier, refs))
            .join()
            .unwrap();
    }
}

// ---------------------------------------------------------------------
// The Brooks write barrier.

/// `fn(block, obj, val, out)`: `brooks_write_barrier` on `obj` (the
/// block's GC-state byte at `gc_state`) calling `slow`, `out` = [object to
/// write, value to store].
fn wb_function<F: Copy>(cache: &CodeCache, gc_state: i32, slow: usize) -> F {
    use brooks_world::{EVACUATION, HAS_FORWARDED};
    let e = compile(cache, 4, None, &[slow], |b, args| {
        let slow = import_library_slow_path(b, 0, LibraryPath::BrooksWb, true);
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
    });
    // SAFETY: a complete `extern "C" fn(block, usize, usize, *mut [usize;
    // 2])` (`F`, the caller's block type) reading the block's GC-state byte
    // and the objects' forwarding words, writing only `out` (and the heap
    // through the slow path).
    unsafe { e.as_fn() }
}

common::cases::brooks_wb_tests!(wb_function);

/// The `_with_state` forms, each given the GC-state byte `load_gc_state`
/// loaded before it, on the same cases as the forms that load it.
mod with_state {
    use super::*;
    use fastpath_cranelift::{
        brooks_write_barrier_with_state, load_gc_state, load_reference_barrier_at_with_state,
        satb_enqueue_with_state,
    };

    fn satb_function(cache: &CodeCache) -> Entry {
        let (l, q) = (gc_world::layout(), gc_world::queue());
        let flush = gc_world::satb_flush as *const () as usize;
        compile(cache, 2, None, &[flush], |b, a| {
            let slow = import_library_slow_path(b, 0, LibraryPath::SatbEnqueue, true);
            let state = load_gc_state(b, a[0], l.gc_state);
            satb_enqueue_with_state(b, state, a[0], a[1], &l, &q, slow);
            None
        })
    }

    fn lrb_function(
        cache: &CodeCache,
        l: ThreadLayout,
        cset: CsetMap,
        forwardee: Forwardee,
        slow: usize,
    ) -> Entry {
        compile(cache, 3, Some(I64), &[slow], |b, a| {
            let slow = import_library_slow_path(b, 0, LibraryPath::Lrb, true);
            let state = load_gc_state(b, a[0], l.gc_state);
            Some(load_reference_barrier_at_with_state(
                b, state, a[0], a[1], a[2], 0, &l, &cset, forwardee, slow,
            ))
        })
    }

    common::cases::gc_medium_tests!(satb_function, lrb_function);

    fn wb_function<F: Copy>(cache: &CodeCache, gc_state: i32, slow: usize) -> F {
        use brooks_world::{EVACUATION, HAS_FORWARDED};
        let e = compile(cache, 4, None, &[slow], |b, args| {
            let slow = import_library_slow_path(b, 0, LibraryPath::BrooksWb, true);
            let state = load_gc_state(b, args[0], gc_state);
            let (o, v) = brooks_write_barrier_with_state(
                b,
                state,
                args[0],
                args[1],
                args[2],
                EVACUATION | HAS_FORWARDED,
                -8,
                slow,
            );
            let flags = cranelift_codegen::ir::MemFlagsData::trusted();
            b.ins().store(flags, o, args[3], 0);
            b.ins().store(flags, v, args[3], 8);
            None
        });
        // SAFETY: as `super::wb_function`'s: a complete `extern "C"
        // fn(block, usize, usize, *mut [usize; 2])` reading the block's
        // GC-state byte and the objects' forwarding words, writing only
        // `out` (and the heap through the slow path).
        unsafe { e.as_fn() }
    }

    common::cases::brooks_wb_tests!(wb_function);
}

// ---------------------------------------------------------------------
// Data loads and stores, and the reference CAS on a real heap.

/// `fn(block, obj, index) -> value`: `data_load` for `a`.
fn data_load_function(cache: &CodeCache, a: common::data_world::Access) -> common::data_world::LoadFn {
    let e = compile(cache, 3, Some(I64), &[], |b, args| {
        let index = a.indexed.then_some(args[2]);
        Some(data_load(b, args[1], index, a.offset, a.width, a.barrier).unwrap())
    });
    // SAFETY: a complete `extern "C" fn(block, obj, index) -> u64` reading
    // the object (and its forwarding word).
    unsafe { e.as_fn() }
}

/// `fn(block, obj, index, value) -> the object written`: `data_store` for
/// `a`, its slow path `slow` (the library's Brooks entry's signature).
fn data_store_function(
    cache: &CodeCache,
    a: common::data_world::Access,
    slow: usize,
) -> common::data_world::StoreFn {
    let e = compile(cache, 4, Some(I64), &[slow], |b, args| {
        let slow = import_library_slow_path(b, 0, LibraryPath::BrooksWb, true);
        let index = a.indexed.then_some(args[2]);
        Some(
            data_store(
                b,
                args[0],
                args[1],
                index,
                a.offset,
                a.width,
                args[3],
                a.barrier,
                Some(slow),
            )
            .unwrap(),
        )
    });
    // SAFETY: a complete `extern "C" fn(block, obj, index, value) -> obj`
    // writing the object's data (and through the slow path the heap).
    unsafe { e.as_fn() }
}

common::cases::data_access_tests!(data_load_function, data_store_function);
common::cases::reference_access_tests!(data_load_function, data_store_function);

/// `fn(block, field, expected, new) -> expected or the witness`: `cas_ref`
/// on fastpath's block, its slow path `slow` (the library's signature).
fn cas_function(cache: &CodeCache, slow: usize) -> common::cas_real::CasFn {
    let l = ThreadLayout::fastpath().unwrap();
    let e = compile(cache, 4, Some(I64), &[slow], |b, a| {
        let slow = import_library_slow_path(b, 0, LibraryPath::CasRef, true);
        Some(cas_ref(b, a[0], a[1], a[2], a[3], &l, slow))
    });
    // SAFETY: a complete `extern "C" fn(block, field, expected, new) ->
    // usize` CASing the field, calling `slow` on a failure while forwarded.
    unsafe { e.as_fn() }
}

common::cases::cas_ref_tests!(cas_function);

/// A misaligned offset, the write barrier on a load, and the write
/// barrier without its slow path are errors, not code.
#[test]
fn data_accesses_refuse_what_the_description_refuses() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let wb = fastpath_jit::DataBarrier::BrooksWrite {
        gc_state: 4,
        state_bits: 6,
        forwarding: -8,
    };
    let _unused = compile(&cache, 3, Some(I64), &[], |b, a| {
        use fastpath_jit::{DataBarrier, DataWidth};
        assert!(data_load(b, a[1], None, 17, DataWidth::U16, DataBarrier::None).is_err());
        assert!(data_load(b, a[1], None, 16, DataWidth::U16, wb).is_err());
        assert!(data_store(b, a[0], a[1], None, 16, DataWidth::U8, a[2], wb, None).is_err());
        let nobit = fastpath_jit::DataBarrier::BrooksWrite {
            gc_state: 4,
            state_bits: 0,
            forwarding: -8,
        };
        assert!(data_store(b, a[0], a[1], None, 16, DataWidth::U8, a[2], nobit, None).is_err());
        Some(a[2])
    });
}

// ---------------------------------------------------------------------
// G1's filtered card post-barrier.

/// `fn(block, field, value)`: with `store`, the store of the value into
/// the field, then `g1_card` for regions of `1 << region_shift` bytes, its
/// slow path `g1_world::slow_counted` (the library's, counted).
fn g1_function(cache: &CodeCache, region_shift: u8, store: bool) -> Entry {
    let layout = ThreadLayout::fastpath().unwrap();
    let slow = g1_world::slow_counted as *const () as usize;
    compile(cache, 3, None, &[slow], |b, a| {
        let slow = import_library_slow_path(b, 0, LibraryPath::G1Card, true);
        if store {
            let flags = cranelift_codegen::ir::MemFlagsData::trusted();
            b.ins().store(flags, a[2], a[1], 0);
        }
        g1_card(
            b,
            a[0],
            a[1],
            a[2],
            &layout,
            CardTable::Thread,
            region_shift,
            slow,
        );
        None
    })
}

#[test]
fn g1_card_matches_the_rust_barrier_on_every_filter_case() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let e = g1_function(&cache, g1_world::region_shift(), true);
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
    let e = g1_function(&cache, 16, false);
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

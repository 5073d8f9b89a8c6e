//! Every x86-64 template run from fastpath's `CodeCache` in a harness that
//! loads a `#[repr(C)]` test thread block into the thread register, sets
//! every other register to a known value, and reports which label the
//! template reached and every register's final value; and every template
//! decoded with iced-x86 (registers written ⊆ declared clobbers,
//! instruction count within budget, the only memory writes the expected
//! ones).
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

use std::mem::offset_of;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::x64::barrier::CardBase;
use fastpath_jit::x64::thread::GcBarrier;
use fastpath_jit::x64::*;
use fastpath_jit::ThreadLayout;
use iced_x86::{Decoder, DecoderOptions, InstructionInfoFactory, OpAccess};

/// A plain thread block for the tests (the real one publishes its offsets
/// the same way).
#[repr(C)]
#[derive(Default)]
struct TestThread {
    gc_state: u8,
    poll: u8,
    card_base: usize,
    tlab_top: usize,
    tlab_end: usize,
}

const MARKING: u8 = 1;
const HAS_FORWARDED: u8 = 4;

fn layout() -> ThreadLayout {
    ThreadLayout {
        gc_state: offset_of!(TestThread, gc_state) as i32,
        marking_bit: MARKING,
        has_forwarded_bit: HAS_FORWARDED,
        poll: offset_of!(TestThread, poll) as i32,
        poll_bit: 1,
        card_table_base: offset_of!(TestThread, card_base) as i32,
        card_shift: 9,
        dirty_card: 0,
        tlab_top: offset_of!(TestThread, tlab_top) as i32,
        tlab_end: offset_of!(TestThread, tlab_end) as i32,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reached {
    FellThrough,
    Done,
    Slow,
}

struct Outcome {
    reached: Reached,
    regs: [u64; 16],
}

fn initial(r: usize) -> u64 {
    0x5EED_0000_0000_0000 | (r as u64) << 8 | 0x11
}

/// Serializes the slow-path call records.
static SLOW_LOCK: Mutex<()> = Mutex::new(());

/// Assembles harness + template (+ stub), installs it, runs it on `thread`.
fn run<T: Template>(
    t: &T,
    thread_reg: Reg,
    thread: *mut TestThread,
    set: &[(Reg, u64)],
    stub: Option<&SlowStub>,
) -> Outcome {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let (slow, done) = (labels.slow, labels.done);
    let mut init = [0u64; 16];
    for (r, v) in init.iter_mut().enumerate() {
        *v = initial(r);
    }
    for &(r, v) in set {
        init[r.0 as usize] = v;
    }
    dynasm!(ops
        ; .arch x64
        ; push rbp ; push rbx ; push r12 ; push r13 ; push r14 ; push r15
        ; push rsi ; push 0 ; sub rsp, 8
        ; mov Rq(thread_reg.0), rdi
    );
    for r in 0..16u8 {
        if r != RSP.0 && r != thread_reg.0 {
            let v = init[r as usize] as i64;
            dynasm!(ops ; .arch x64 ; mov Rq(r), QWORD v);
        }
    }
    t.emit(&mut ops, labels);
    dynasm!(ops ; .arch x64 ; mov QWORD [rsp + 8], 0 ; jmp >exit);
    if stub.is_none() {
        dynasm!(ops ; .arch x64 ; =>slow ; mov QWORD [rsp + 8], 2 ; jmp >exit);
    }
    dynasm!(ops
        ; .arch x64
        ; =>done ; mov QWORD [rsp + 8], 1
        ; exit:
        ; push rax
        ; mov rax, [rsp + 24]
    );
    for r in 1..16u8 {
        if r != RSP.0 {
            let off = 8 * r as i32;
            dynasm!(ops ; .arch x64 ; mov [rax + off], Rq(r));
        }
    }
    dynasm!(ops
        ; .arch x64
        ; pop rcx ; mov [rax], rcx
        ; add rsp, 8 ; pop rax ; add rsp, 8
        ; pop r15 ; pop r14 ; pop r13 ; pop r12 ; pop rbx ; pop rbp
        ; ret
    );
    if let Some(s) = stub {
        s.emit(&mut ops, slow, done).unwrap();
    }
    let code = ops.finalize().unwrap();
    let cache = CodeCache::new(64 * 1024).unwrap();
    let entry = cache.install(&code).unwrap();
    // SAFETY: the harness is a complete extern "C" fn(*mut TestThread, *mut
    // [u64; 16]) -> u64 that saves and restores every callee-saved register
    // and keeps rsp 16-aligned at the template and its stub.
    let f: extern "C" fn(*mut TestThread, *mut [u64; 16]) -> u64 = unsafe { entry.as_fn() };
    let mut regs = [0u64; 16];
    let label = f(thread, &mut regs);
    cache.free(entry).unwrap();
    let reached = match label {
        0 => Reached::FellThrough,
        1 => Reached::Done,
        2 => Reached::Slow,
        l => panic!("harness returned {l}"),
    };
    // Every register outside the clobbers (and the thread register, which
    // holds the block) kept its value.
    let mut expect_kept = RegSet(0xFFFF & !(1 << RSP.0) & !(1 << thread_reg.0) & !t.clobbers().0);
    if let Some(s) = stub {
        expect_kept = RegSet(expect_kept.0 & (s.saved().0 | !fastpath_jit::x64::stub::CALLER_SAVED.0));
        if let Some(r) = s.ret {
            expect_kept = RegSet(expect_kept.0 & !(1 << r.0));
        }
    }
    for r in expect_kept.iter() {
        assert_eq!(
            regs[r.0 as usize],
            init[r.0 as usize],
            "{} changed {r:?}",
            t.name()
        );
    }
    assert_eq!(regs[thread_reg.0 as usize], thread as u64);
    Outcome { reached, regs }
}

/// Decodes the template alone: returns (instructions, memory-writing
/// instructions' mnemonics) after checking writes ⊆ clobbers.
fn decode<T: Template>(t: &T) -> (usize, Vec<String>) {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    t.emit(&mut ops, labels);
    let end = ops.offset().0;
    dynasm!(ops ; .arch x64 ; =>labels.slow ; =>labels.done ; int3);
    let code = ops.finalize().unwrap();
    let mut decoder = Decoder::with_ip(64, &code[..end], 0, DecoderOptions::NONE);
    let mut factory = InstructionInfoFactory::new();
    let (mut count, mut mem_writes) = (0, Vec::new());
    let mut written = RegSet::EMPTY;
    for insn in decoder.iter() {
        assert!(!insn.is_invalid(), "{}: undecodable bytes", t.name());
        count += 1;
        let info = factory.info(&insn);
        for u in info.used_registers() {
            if matches!(
                u.access(),
                OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite
            ) {
                let full = u.register().full_register();
                assert!(full.is_gpr64(), "{}: writes {:?}", t.name(), u.register());
                written = written.with(Reg(full.number() as u8));
            }
        }
        if info.used_memory().iter().any(|m| {
            matches!(
                m.access(),
                OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite
            )
        }) {
            let lock = if insn.has_lock_prefix() { "lock " } else { "" };
            mem_writes.push(format!("{lock}{:?}", insn.mnemonic()).to_lowercase());
        }
    }
    assert!(
        written.is_subset(t.clobbers()),
        "{} writes {written:?}, declares {:?}",
        t.name(),
        t.clobbers()
    );
    println!(
        "{}: {count} instructions, budget {}, writes {written:?}",
        t.name(),
        t.budget()
    );
    (count, mem_writes)
}

#[test]
fn safepoint_poll_runs_reaches_slow_only_when_armed_and_its_stub_calls_rust() {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    static ARG: AtomicU64 = AtomicU64::new(0);
    extern "C" fn at_safepoint(t: *mut TestThread) {
        // Relaxed: the test reads these after the call returned on this thread.
        ARG.store(t as u64, Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
    }
    let _g = SLOW_LOCK.lock().unwrap();
    for thread_reg in [R15, RBX, R9] {
        let poll = SafepointPoll {
            thread: thread_reg,
            layout: layout(),
        };
        let mut t = TestThread::default();
        assert_eq!(
            run(&poll, thread_reg, &mut t, &[], None).reached,
            Reached::FellThrough
        );
        t.poll = 0xFE; // other bits do not arm it
        assert_eq!(
            run(&poll, thread_reg, &mut t, &[], None).reached,
            Reached::FellThrough
        );
        t.poll = 1;
        assert_eq!(run(&poll, thread_reg, &mut t, &[], None).reached, Reached::Slow);
        let stub = SlowStub {
            func: at_safepoint as *const () as usize,
            args: vec![thread_reg],
            ret: None,
            live: RegSet(0xFFFF & !(1 << RSP.0)),
        };
        let before = CALLS.load(Ordering::Relaxed);
        assert_eq!(
            run(&poll, thread_reg, &mut t, &[], Some(&stub)).reached,
            Reached::Done
        );
        assert_eq!(CALLS.load(Ordering::Relaxed), before + 1);
        assert_eq!(ARG.load(Ordering::Relaxed), &mut t as *mut TestThread as u64);
    }
    let (n, w) = decode(&SafepointPoll {
        thread: R15,
        layout: layout(),
    });
    assert_eq!((n, w.len()), (2, 0));
}

#[test]
fn satb_and_lrb_idle_tests_branch_on_their_own_bit_and_the_lrb_stub_resolves() {
    extern "C" fn resolve(_t: *mut TestThread, obj: u64) -> u64 {
        obj + 0x100
    }
    for (barrier, bit, other) in [
        (GcBarrier::Satb, MARKING, HAS_FORWARDED),
        (GcBarrier::Lrb, HAS_FORWARDED, MARKING),
    ] {
        let test = GcStateTest {
            barrier,
            thread: R15,
            layout: layout(),
        };
        let mut t = TestThread::default();
        assert_eq!(run(&test, R15, &mut t, &[], None).reached, Reached::FellThrough);
        t.gc_state = other | 2;
        assert_eq!(run(&test, R15, &mut t, &[], None).reached, Reached::FellThrough);
        t.gc_state = bit;
        assert_eq!(run(&test, R15, &mut t, &[], None).reached, Reached::Slow);
        let (n, w) = decode(&test);
        assert_eq!((n, w.len()), (2, 0), "{barrier:?}");
    }
    let lrb = GcStateTest {
        barrier: GcBarrier::Lrb,
        thread: R15,
        layout: layout(),
    };
    let mut t = TestThread {
        gc_state: HAS_FORWARDED,
        ..TestThread::default()
    };
    let stub = SlowStub {
        func: resolve as *const () as usize,
        args: vec![R15, R10],
        ret: Some(R10),
        live: RegSet(0xFFFF & !(1 << RSP.0)),
    };
    let out = run(&lrb, R15, &mut t, &[(R10, 0x1000)], Some(&stub));
    assert_eq!((out.reached, out.regs[10]), (Reached::Done, 0x1100));
}

#[test]
fn brooks_read_barrier_follows_the_forwarding_word() {
    let mut obj = [0u64; 2];
    obj[0] = 0xC0FF_EE00; // the forwarding word, 8 bytes before the object
    let addr = &mut obj[1] as *mut u64 as u64;
    let rb = BrooksReadBarrier {
        obj: R8,
        forwarding: -8,
    };
    let mut t = TestThread::default();
    let out = run(&rb, R15, &mut t, &[(R8, addr)], None);
    assert_eq!((out.reached, out.regs[8]), (Reached::FellThrough, 0xC0FF_EE00));
    assert_eq!(decode(&rb), (1, vec![]));
}

#[test]
fn card_mark_dirties_exactly_the_card_of_the_address() {
    let heap_base = 0x4000_0000u64;
    for conditional in [false, true] {
        for imm in [false, true] {
            let mut cards = vec![0xFFu8; 64];
            let biased = (cards.as_mut_ptr() as u64).wrapping_sub(heap_base >> 9);
            let base = if imm {
                CardBase::Imm(biased)
            } else {
                CardBase::Thread(R15)
            };
            let card = CardMark {
                addr: RSI,
                tmp: R11,
                base,
                conditional,
                layout: layout(),
            };
            let mut t = TestThread {
                card_base: biased as usize,
                ..TestThread::default()
            };
            let addr = heap_base + 5 * 512 + 17;
            let out = run(&card, R15, &mut t, &[(RSI, addr)], None);
            assert_eq!(out.reached, Reached::FellThrough);
            for (i, &c) in cards.iter().enumerate() {
                assert_eq!(c, if i == 5 { 0 } else { 0xFF }, "card {i}");
            }
            if conditional {
                // Already dirty: straight to `done`, no store.
                assert_eq!(
                    run(&card, R15, &mut t, &[(RSI, addr)], None).reached,
                    Reached::Done
                );
            }
            let (n, w) = decode(&card);
            assert_eq!((n, w), (card.budget(), vec!["mov".to_string()]));
        }
    }
}

#[test]
fn reference_cas_succeeds_fails_and_sends_forwarded_failures_slow() {
    let cas = CasRef {
        thread: R15,
        addr: RDI,
        new: R9,
        layout: layout(),
    };
    let mut field = 0xAAAAu64;
    let p = &mut field as *mut u64 as u64;
    let mut t = TestThread::default();
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RAX, 0xAAAA), (R9, 0xBBBB)], None);
    assert_eq!((out.reached, field), (Reached::Done, 0xBBBB));
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RAX, 0xAAAA), (R9, 0xCCCC)], None);
    assert_eq!(
        (out.reached, out.regs[0], field),
        (Reached::FellThrough, 0xBBBB, 0xBBBB)
    );
    t.gc_state = HAS_FORWARDED;
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RAX, 0xAAAA), (R9, 0xCCCC)], None);
    assert_eq!((out.reached, field), (Reached::Slow, 0xBBBB));
    let (n, w) = decode(&cas);
    assert!(cas.budget() <= n, "the common path is a prefix");
    assert_eq!(
        (n, w),
        (4, vec!["lock cmpxchg".to_string()]),
        "the only shared write is the locked CAS"
    );
}

#[test]
fn tlab_bump_allocates_until_the_end_then_goes_slow() {
    let mut tlab = vec![0u8; 64];
    let start = tlab.as_mut_ptr() as usize;
    let alloc = TlabAlloc {
        thread: R15,
        obj: RAX,
        end: RCX,
        size: 24,
        layout: layout(),
    };
    let mut t = TestThread {
        tlab_top: start,
        tlab_end: start + 64,
        ..TestThread::default()
    };
    for k in 0..2 {
        let out = run(&alloc, R15, &mut t, &[], None);
        assert_eq!(
            (out.reached, out.regs[0]),
            (Reached::FellThrough, (start + 24 * k) as u64)
        );
    }
    assert_eq!(t.tlab_top, start + 48);
    assert_eq!(run(&alloc, R15, &mut t, &[], None).reached, Reached::Slow);
    assert_eq!(t.tlab_top, start + 48, "a failed bump leaves the TLAB alone");
    let (n, w) = decode(&alloc);
    assert_eq!((n, w), (5, vec!["mov".to_string()]));
}

#[test]
fn spin_wait_emits_the_configured_pause_and_refuses_what_the_cpu_lacks() {
    use fastpath::spin::strategy::{PauseInstruction, SpinPause};
    let configured = SpinWait::configured();
    let mut t = TestThread::default();
    assert_eq!(
        run(&configured, R15, &mut t, &[], None).reached,
        Reached::FellThrough
    );
    assert_eq!(decode(&configured).0, configured.budget());
    for (instruction, repeat, per) in [(PauseInstruction::Pause, 3, 1), (PauseInstruction::None, 1, 0)] {
        let s = SpinWait::new(SpinPause { instruction, repeat }).unwrap();
        assert_eq!(run(&s, R15, &mut t, &[], None).reached, Reached::FellThrough);
        assert_eq!(decode(&s), (per * repeat as usize, vec![]));
    }
    let tpause = SpinWait::new(SpinPause {
        instruction: PauseInstruction::Tpause,
        repeat: 1,
    });
    if fastpath::cpu::info().has(fastpath::cpu::Feature::Waitpkg) {
        let s = tpause.unwrap();
        assert_eq!(run(&s, R15, &mut t, &[], None).reached, Reached::FellThrough);
        assert_eq!(decode(&s).0, 5);
    } else {
        let e = tpause.unwrap_err();
        assert!(e.to_string().contains("FASTPATH_SPIN_PAUSE"), "{e}");
    }
    assert!(SpinWait::new(SpinPause {
        instruction: PauseInstruction::Isb,
        repeat: 1
    })
    .is_err());
}

#[test]
fn stub_refuses_bad_shapes() {
    use fastpath_jit::x64::stub::StubError;
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let (a, b) = (ops.new_dynamic_label(), ops.new_dynamic_label());
    let s = SlowStub {
        func: 0,
        args: vec![RAX; 7],
        ret: None,
        live: RegSet::EMPTY,
    };
    assert_eq!(s.emit(&mut ops, a, b), Err(StubError::TooManyArgs(7)));
    let s = SlowStub {
        func: 0,
        args: vec![RSP],
        ret: None,
        live: RegSet::EMPTY,
    };
    assert_eq!(s.emit(&mut ops, a, b), Err(StubError::StackPointer));
}

/// The decoder check catches a template that writes a register it does
/// not declare (a Brooks barrier claiming to clobber nothing).
#[test]
fn decoder_check_catches_an_undeclared_write() {
    struct Lying(BrooksReadBarrier);
    impl Template for Lying {
        fn name(&self) -> &'static str {
            "lying"
        }
        fn clobbers(&self) -> RegSet {
            RegSet::EMPTY
        }
        fn budget(&self) -> usize {
            1
        }
        fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
            self.0.emit(ops, labels)
        }
    }
    let lying = Lying(BrooksReadBarrier {
        obj: R8,
        forwarding: -8,
    });
    let caught = std::panic::catch_unwind(|| decode(&lying)).unwrap_err();
    let msg = caught.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("lying writes {r8}"), "{msg}");
}

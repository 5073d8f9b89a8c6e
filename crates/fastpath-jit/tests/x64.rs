//! Every x86-64 thread-block, barrier and spin template run from
//! fastpath's `CodeCache` in the harness of `common::x64` (a test thread
//! block in the thread register, every other register set to a known
//! value; the label reached and every register's final value), and
//! decoded with iced-x86 (registers written ⊆ declared clobbers,
//! instruction count within budget, the only memory writes the expected
//! ones).
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use common::block::{layout, TestThread, HAS_FORWARDED, MARKING};
use common::x64::{check_stub_code, decode, run, stub_code, Reached};
use dynasmrt::{x64::X64Relocation, VecAssembler};
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::*;

/// Serializes the slow-path call records.
static SLOW_LOCK: Mutex<()> = Mutex::new(());

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
            tmp: RAX,
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
    let (n, w) = summary(&SafepointPoll {
        thread: R15,
        tmp: RAX,
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
            tmp: RAX,
            layout: layout(),
        };
        let mut t = TestThread::default();
        assert_eq!(run(&test, R15, &mut t, &[], None).reached, Reached::FellThrough);
        t.gc_state = other | 2;
        assert_eq!(run(&test, R15, &mut t, &[], None).reached, Reached::FellThrough);
        t.gc_state = bit;
        assert_eq!(run(&test, R15, &mut t, &[], None).reached, Reached::Slow);
        let (n, w) = summary(&test);
        assert_eq!((n, w.len()), (2, 0), "{barrier:?}");
    }
    let lrb = GcStateTest {
        barrier: GcBarrier::Lrb,
        thread: R15,
        tmp: RAX,
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
    assert_eq!(summary(&rb), (1, vec![]));
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
                tmp2: R11,
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
            let (n, w) = summary(&card);
            assert_eq!((n, w), (card.budget(Isa::X64), vec!["mov".to_string()]));
        }
    }
}

#[test]
fn reference_cas_succeeds_fails_and_sends_forwarded_failures_slow() {
    let cas = CasRef::x64(R15, RDI, RDX, R9, layout());
    let mut field = 0xAAAAu64;
    let p = &mut field as *mut u64 as u64;
    let mut t = TestThread::default();
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RDX, 0xAAAA), (R9, 0xBBBB)], None);
    assert_eq!((out.reached, out.regs[0], field), (Reached::Done, 0xAAAA, 0xBBBB));
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RDX, 0xAAAA), (R9, 0xCCCC)], None);
    assert_eq!(
        (out.reached, out.regs[0], out.regs[2], field),
        (Reached::FellThrough, 0xBBBB, 0xAAAA, 0xBBBB),
        "the witness in rax, expected kept"
    );
    t.gc_state = HAS_FORWARDED;
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RDX, 0xAAAA), (R9, 0xCCCC)], None);
    assert_eq!((out.reached, field), (Reached::Slow, 0xBBBB));
    let (n, w) = summary(&cas);
    assert!(cas.budget(Isa::X64) <= n, "the common path is a prefix");
    assert_eq!(
        (n, w),
        (5, vec!["lock cmpxchg".to_string()]),
        "the only shared write is the locked CAS"
    );
    let call = cas.slow_call().unwrap();
    assert_eq!(call.path, SlowPath::Library(slow::LibraryPath::CasRef));
    assert_eq!(call.ret, Some(RAX));
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    assert!(
        CasRef::x64(R15, RDI, RAX, R9, layout())
            .emit(&mut ops, l)
            .is_err(),
        "expected in rax: lost to the witness"
    );
    assert!(
        CasRef { old: RCX, ..cas }.emit(&mut ops, l).is_err(),
        "the witness is rax's"
    );
}

/// The reference CAS `cas` (thread r15, field rdi, expected rdx, new r9)
/// on a real `shenandoah` heap whose slots are `cas.refs` wide, on the
/// middle slot of three (between two naming another object; the heap
/// below the width's address limit): a success stores `new`'s encoding, a
/// failure leaves the witness (decoded) in rax and `expected` kept, a
/// failure while forwarded objects exist goes slow (a success does not);
/// null stored, then a null slot's witness null, then null expected; the
/// neighbours untouched. Each message names the width.
fn cas_on_a_real_slot(cas: CasRef) {
    use fastpath::gc::{BarrierBits, Dynamic};
    let refs = cas.refs;
    assert_eq!((cas.thread, cas.addr, cas.expected, cas.new), (R15, RDI, RDX, R9));
    let heap = common::ref_slots::heap_of(BarrierBits::SHENANDOAH, refs);
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let h = m.alloc(3, 0).unwrap();
    let objs: Vec<_> = (0..3).map(|_| m.alloc(0, 1).unwrap()).collect();
    let holder = m.get(h).unwrap();
    let [a, b, c] = [0, 1, 2].map(|k| m.get(objs[k]).unwrap());
    m.store(holder, 0, Some(c)).unwrap();
    m.store(holder, 1, Some(a)).unwrap();
    m.store(holder, 2, Some(c)).unwrap();
    let (a, b, c) = (a.addr() as u64, b.addr() as u64, c.addr() as u64);
    let limit = refs.address_limit() as u64;
    assert!(
        [a, b, c].iter().all(|&x| x < limit),
        "{refs:?}: the heap lies below {limit:#x}"
    );
    // The slot's bits naming address `x`.
    let enc = |x: u64| x >> refs.shift();
    let p = (holder.addr() + refs.ref_offset(1)) as u64;
    // SAFETY: the holder's slot 1, no stop since `get`.
    let slot = || unsafe { common::ref_slots::raw_slot(refs, p as usize) };
    let mut t = TestThread::default();
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RDX, a), (R9, b)], None);
    assert_eq!(
        (out.reached, out.regs[0], slot()),
        (Reached::Done, a, enc(b)),
        "{refs:?}: a success"
    );
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RDX, a), (R9, c)], None);
    assert_eq!(
        (out.reached, out.regs[0], out.regs[2], slot()),
        (Reached::FellThrough, b, a, enc(b)),
        "{refs:?}: the witness (decoded) in rax, expected kept"
    );
    t.gc_state = HAS_FORWARDED;
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RDX, a), (R9, c)], None);
    assert_eq!(
        (out.reached, out.regs[0], slot()),
        (Reached::Slow, b, enc(b)),
        "{refs:?}: a failure while forwarded objects exist"
    );
    // A success goes to `done` whatever the state (it does not read it).
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RDX, b), (R9, 0)], None);
    assert_eq!(
        (out.reached, out.regs[0], slot()),
        (Reached::Done, b, 0),
        "{refs:?}: null stored"
    );
    t.gc_state = 0;
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RDX, c), (R9, b)], None);
    assert_eq!(
        (out.reached, out.regs[0], slot()),
        (Reached::FellThrough, 0, 0),
        "{refs:?}: a null slot: the witness null"
    );
    let out = run(&cas, R15, &mut t, &[(RDI, p), (RDX, 0), (R9, a)], None);
    assert_eq!(
        (out.reached, out.regs[0], slot()),
        (Reached::Done, 0, enc(a)),
        "{refs:?}: null expected"
    );
    let at = |k| m.load(holder, k).unwrap().map(|o| o.addr() as u64);
    assert_eq!(
        [at(0), at(1), at(2)],
        [Some(c), Some(a), Some(c)],
        "{refs:?}: the slots as the Rust accessors read them"
    );
}

/// The compressed form on a real compressed heap's slot
/// ([`cas_on_a_real_slot`]: a success stores the encoded new value, a
/// failure leaves the decoded witness in rax): the dword `lock cmpxchg`
/// the only memory write, 9 instructions to the slow branch (7 on
/// success), the encoded value's scratch not rax.
#[test]
fn compressed_reference_cas_swaps_encoded_values_and_decodes_the_witness() {
    let cas = CasRef::x64_compressed(R15, RDI, RDX, R9, R10, layout());
    assert_eq!(cas.refs, RefWidth::Compressed);
    cas_on_a_real_slot(cas);
    let (n, w) = summary(&cas);
    assert_eq!(cas.budget(Isa::X64), 7);
    assert_eq!((n, w), (9, vec!["lock cmpxchg".to_string()]));
    assert_eq!(cas.clobbers(Isa::X64), RegSet::of(&[RAX, R10]));
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    assert!(
        CasRef::x64_compressed(R15, RDI, RDX, R9, RAX, layout())
            .emit(&mut ops, l)
            .is_err(),
        "the encoded value's scratch is not rax"
    );
}

/// The unscaled form on a real unscaled heap's slot
/// ([`cas_on_a_real_slot`]; the heap below 4 GiB): the slot holds the
/// address itself, CASed as a dword, the witness zero-extended; the dword
/// `lock cmpxchg` of `new`'s low half the only memory write, 5
/// instructions to the slow branch (3 on success, the full form's), rax
/// the only register written and `tmp` not an operand.
#[test]
fn unscaled_reference_cas_swaps_addresses_in_a_dword_slot() {
    let cas = CasRef {
        refs: RefWidth::Unscaled,
        ..CasRef::x64(R15, RDI, RDX, R9, layout())
    };
    cas_on_a_real_slot(cas);
    let d = decode(&cas);
    assert_eq!(cas.budget(Isa::X64), 3);
    assert_eq!((d.count(), d.mnemonics()), (5, vec!["lock cmpxchg".to_string()]));
    assert_eq!(
        d.mem_writes[0].text, "lock cmpxchg [rdi],r9d",
        "a dword CAS of new's low half"
    );
    assert_eq!(d.written, RegSet::of(&[RAX]));
    assert_eq!(cas.clobbers(Isa::X64), RegSet::of(&[RAX]));
    assert_eq!(cas.operands(Isa::X64), vec![R15, RDI, RDX, R9, RAX], "no scratch");
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    assert!(
        CasRef { expected: RAX, ..cas }.emit(&mut ops, l).is_err(),
        "expected in rax: lost to the witness"
    );
}

/// `fn(block rdi, field rsi, expected rdx, new rcx) -> expected on success,
/// else the witness`: the template on fastpath's block, its own slow call
/// (the library's retry, or `slow` with its signature) in its stub.
fn cas_function(cache: &fastpath::code::CodeCache, slow: usize) -> common::cas_real::CasFn {
    cas_function_in(cache, RefWidth::Full, slow)
}

/// [`cas_function`] on slots of width `refs` (compressed: r8 the encoded
/// new value; unscaled: the full form's registers).
fn cas_function_in(
    cache: &fastpath::code::CodeCache,
    refs: RefWidth,
    slow: usize,
) -> common::cas_real::CasFn {
    use dynasmrt::{dynasm, DynasmLabelApi};
    let layout = ThreadLayout::fastpath().unwrap();
    let cas = match refs {
        RefWidth::Full => CasRef::x64(RDI, RSI, RDX, RCX, layout),
        RefWidth::Compressed => CasRef::x64_compressed(RDI, RSI, RDX, RCX, R8, layout),
        RefWidth::Unscaled => CasRef {
            refs,
            ..CasRef::x64(RDI, RSI, RDX, RCX, layout)
        },
    };
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    dynasm!(ops ; .arch x64 ; push rbx); // rsp 16-aligned for the stub's call
    cas.emit(&mut ops, l).unwrap();
    dynasm!(ops ; .arch x64 ; =>l.done ; pop rbx ; ret);
    cas.slow_call()
        .unwrap()
        .stub(slow, &[], RegSet::of(&[RDI, RSI, RDX, RCX]))
        .unwrap()
        .emit(&mut ops, l.slow, l.done)
        .unwrap();
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, field, expected, new) ->
    // usize`, the CAS on the field, the stub calling `slow`.
    unsafe { e.as_fn() }
}

common::cases::cas_ref_tests!(cas_function);
common::cases::cas_ref_width_tests!(cas_function_in);

#[test]
fn tlab_bump_allocates_until_the_end_then_goes_slow() {
    let mut tlab = vec![0u8; 64];
    let start = tlab.as_mut_ptr() as usize;
    let alloc = TlabAlloc {
        thread: R15,
        obj: RAX,
        end: RCX,
        tmp: RDX,
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
    let (n, w) = summary(&alloc);
    assert_eq!((n, w), (5, vec!["mov".to_string()]));
}

#[test]
fn spin_wait_emits_the_configured_pause_and_refuses_what_the_cpu_lacks() {
    use fastpath::spin::{PauseInstruction, SpinPause};
    let configured = SpinWait::configured();
    let mut t = TestThread::default();
    assert_eq!(
        run(&configured, R15, &mut t, &[], None).reached,
        Reached::FellThrough
    );
    assert_eq!(summary(&configured).0, configured.budget(Isa::X64));
    for (instruction, repeat, per) in [(PauseInstruction::Pause, 3, 1), (PauseInstruction::None, 1, 0)] {
        let s = SpinWait::new(SpinPause { instruction, repeat }).unwrap();
        assert_eq!(run(&s, R15, &mut t, &[], None).reached, Reached::FellThrough);
        assert_eq!(summary(&s), (per * repeat as usize, vec![]));
    }
    let tpause = SpinWait::new(SpinPause {
        instruction: PauseInstruction::Tpause,
        repeat: 1,
    });
    if fastpath::cpu::info().has(fastpath::cpu::Feature::Waitpkg) {
        let s = tpause.unwrap();
        assert_eq!(run(&s, R15, &mut t, &[], None).reached, Reached::FellThrough);
        assert_eq!(summary(&s).0, 5);
    } else {
        let e = tpause.unwrap_err();
        assert!(e.to_string().contains("FASTPATH_SPIN_PAUSE"), "{e}");
    }
    let isb = SpinPause {
        instruction: PauseInstruction::Isb,
        repeat: 1,
    };
    assert!(SpinWait::new(isb).is_err());
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    assert_eq!(
        SpinWait::for_instruction(isb).emit(&mut ops, l),
        Err(TemplateError::Unsupported {
            what: "isb",
            isa: Isa::X64
        }),
        "an AArch64 pause is refused when emitted for x86-64"
    );
}

#[test]
fn stub_refuses_bad_shapes() {
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
    assert_eq!(s.emit(&mut ops, a, b), Err(StubError::Reserved(RSP)));
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
        fn operands(&self, isa: Isa) -> Vec<Reg> {
            self.0.operands(isa)
        }
        fn clobbers(&self, _isa: Isa) -> RegSet {
            RegSet::EMPTY
        }
        fn budget(&self, _isa: Isa) -> usize {
            1
        }
        fn slow_call(&self) -> Option<SlowCall> {
            None
        }
    }
    impl Emit<X64Relocation> for Lying {
        fn emit_checked<A: x64::X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
            self.0.emit(ops, labels)
        }
    }
    let lying = Lying(BrooksReadBarrier {
        obj: R8,
        forwarding: -8,
    });
    let caught = std::panic::catch_unwind(|| summary(&lying)).unwrap_err();
    let msg = caught.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("lying writes {r8}"), "{msg}");
}

/// (instructions, memory-writing instructions' mnemonics) of a template,
/// after the decoder's checks (writes ⊆ clobbers).
fn summary<T: Emit<X64Relocation>>(t: &T) -> (usize, Vec<String>) {
    let d = decode(t);
    (d.count(), d.mnemonics())
}

/// The stub check catches a stub that does not save a live caller-saved
/// register it declares (the bytes of one made without it).
#[test]
fn stub_check_catches_an_unsaved_register() {
    let declared = SlowStub {
        func: 0x1234,
        args: vec![RDI, RSI],
        ret: Some(RSI),
        live: RegSet::of(&[RDI, RSI, RCX, R8]),
    };
    assert_eq!(
        check_stub_code(&declared, &stub_code(&declared)),
        RegSet::of(&[RCX, RDI, R8])
    );
    let forgetful = SlowStub {
        live: RegSet::of(&[RDI, RSI, R8]),
        ..declared.clone()
    };
    let caught = std::panic::catch_unwind(|| check_stub_code(&declared, &stub_code(&forgetful))).unwrap_err();
    let msg = caught.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("saves first"), "{msg}");
}

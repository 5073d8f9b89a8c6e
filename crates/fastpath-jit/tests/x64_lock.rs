//! The lightweight monitor templates run from fastpath's `CodeCache` with
//! the real thread block (`fastpath::thread::current()`) in the thread
//! register: differential against the Rust path over header × lock-stack
//! states, mixed template/Rust enter and exit, a mixed-thread stress with
//! exact counters, and iced-x86 checks of the machine code.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath::sync::{self, Header, LockState, LockingMode};
use fastpath::thread::{self as fthread, ThreadBlock};
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::x64::{LockEnter, LockExit, LockRegs, SlowStub, Template};
use fastpath_jit::{slow, Labels, LockStackLayout};
use iced_x86::{Decoder, DecoderOptions, FlowControl, InstructionInfoFactory, OpAccess, Register};

/// Register assignments the tests run: HotSpot's (thread in r15), and one
/// with callee-saved object and extended temporaries.
const ASSIGNMENTS: [(Reg, Reg, Reg, Reg); 2] = [(R15, RSI, RCX, RDX), (RBX, R13, R8, R12)];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Enter,
    Exit,
}

/// A harness `extern "C" fn(thread, obj) -> u64`: 0 the template fell
/// through to `done`; without a stub 1 it reached `slow`; with the stub 1
/// the slow path ran (exit: 2 it reported an error).
struct Harness {
    _cache: CodeCache,
    entry: Entry,
}

type HarnessFn = unsafe extern "C" fn(*const ThreadBlock, *const Header) -> u64;

/// Emits a template into a test buffer.
type Emitter = Box<dyn Fn(&mut VecAssembler<X64Relocation>, Labels)>;

fn template(op: Op, regs: LockRegs) -> Emitter {
    let layout = LockStackLayout::fastpath().unwrap();
    match op {
        Op::Enter => Box::new(move |a, l| LockEnter { regs, layout }.emit(a, l)),
        Op::Exit => Box::new(move |a, l| LockExit { regs, layout }.emit(a, l)),
    }
}

impl Harness {
    fn new(op: Op, (t, o, p, m): (Reg, Reg, Reg, Reg), with_stub: bool) -> Harness {
        let regs = LockRegs::new(t, o, p, m).unwrap();
        let mut ops = VecAssembler::<X64Relocation>::new(0);
        let labels = Labels {
            slow: ops.new_dynamic_label(),
            done: ops.new_dynamic_label(),
        };
        let end = ops.new_dynamic_label();
        // Five callee-saved pushes: rsp is 16-aligned where the template runs.
        dynasm!(ops ; .arch x64
            ; push rbx ; push r12 ; push r13 ; push r14 ; push r15
            ; push rdi ; push rsi ; pop Rq(o.0) ; pop Rq(t.0));
        template(op, regs)(&mut ops, labels);
        dynasm!(ops ; .arch x64 ; xor eax, eax ; jmp =>end);
        if with_stub {
            let stub = match op {
                Op::Enter => SlowStub {
                    func: slow::monitor_enter as *const () as usize,
                    args: vec![t, o],
                    ret: None,
                    live: RegSet::of(&[t, o]),
                },
                Op::Exit => SlowStub {
                    func: slow::monitor_exit as *const () as usize,
                    args: vec![t, o],
                    ret: Some(RAX),
                    live: RegSet::of(&[t, o]),
                },
            };
            stub.emit(&mut ops, labels.slow, labels.done).unwrap();
            let ok = if op == Op::Enter { 0 } else { 1 };
            dynasm!(ops ; .arch x64 ; =>labels.done ; add eax, 1 ; imul eax, eax, ok ; add eax, 1 - ok ; jmp =>end);
            // enter: rax is garbage after a void call: eax*0 + 1 = 1; exit: rax (0/1) + 1.
        } else {
            dynasm!(ops ; .arch x64 ; =>labels.slow ; =>labels.done ; mov eax, 1);
        }
        dynasm!(ops ; .arch x64 ; =>end ; pop r15 ; pop r14 ; pop r13 ; pop r12 ; pop rbx ; ret);
        let cache = CodeCache::new(4096).unwrap();
        let entry = cache.install(&ops.finalize().unwrap()).unwrap();
        Harness { _cache: cache, entry }
    }

    /// Runs on the calling thread with its real block.
    fn run(&self, obj: &Header) -> u64 {
        // SAFETY: the harness is a complete `HarnessFn`; it is called on
        // this thread with this thread's block and a live pinned header.
        unsafe {
            let f: HarnessFn = self.entry.as_fn();
            f(fthread::current().as_ptr(), obj)
        }
    }
}

/// The lock-stack as seen from the block: `top` and the live entries.
fn lock_stack() -> (u32, Vec<usize>) {
    let b = fthread::current().as_ptr() as *const u8;
    // SAFETY: reads of this thread's own block at its published offsets
    // (`u32` top, `usize` entries below `top`); nothing else writes them.
    unsafe {
        let top = b.add(fthread::LOCK_STACK_TOP_OFFSET).cast::<u32>().read();
        let mut v = Vec::new();
        if top as usize <= fthread::LOCK_STACK_END_OFFSET {
            let mut off = fthread::LOCK_STACK_OFFSET;
            while off < top as usize {
                v.push(b.add(off).cast::<usize>().read());
                off += 8;
            }
        }
        (top, v)
    }
}

fn pin(h: &Header) -> Pin<&Header> {
    // SAFETY: every header here lives in a `Pin<Box<Header>>`.
    unsafe { Pin::new_unchecked(h) }
}

// ---------------------------------------------------------------------
// Differential: header state × lock-stack state.

#[derive(Clone, Copy, Debug)]
enum Foreign {
    None,
    FastLocked,
    Inflated,
    Legacy,
}

#[derive(Clone, Copy, Debug)]
struct Scenario {
    /// This thread's locking mode.
    mode: LockingMode,
    /// Another thread holds X this way while the operation runs.
    foreign: Foreign,
    /// What this thread holds first, in order: 'X' the target, digits other objects.
    ours: &'static str,
    /// X inflated by this thread (X, a, X) before `ours`.
    inflate_ours: bool,
}

/// The state after the operation, with addresses named (X, a, b…).
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    x_state: LockState,
    x_word: Option<usize>,
    top: u32,
    entries: String,
}

/// Runs `sc` in a fresh thread: setup, the operation (`via`: the
/// template without stub, then the stub's slow path if it reached `slow`;
/// or the Rust `enter_on`/`exit_on`), the state, teardown.
fn run_world(sc: Scenario, op: Op, via: Option<&Harness>) -> (Option<bool>, bool, Outcome) {
    let x = Box::pin(Header::new());
    let others: Vec<Pin<Box<Header>>> = (0..10).map(|_| Box::pin(Header::new())).collect();
    std::thread::scope(|s| {
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (ready_tx, ready_rx) = mpsc::channel::<()>();
        let foreign = sc.foreign;
        let (xr, o0, others) = (&*x, &*others[9], &others);
        let helper = (!matches!(foreign, Foreign::None)).then(|| {
            s.spawn(move || {
                if matches!(foreign, Foreign::Legacy) {
                    sync::set_current_thread_locking_mode(LockingMode::Legacy).unwrap();
                }
                sync::enter(pin(xr));
                if matches!(foreign, Foreign::Inflated) {
                    sync::enter(pin(o0));
                    sync::enter(pin(xr)); // not on top: inflates X
                }
                ready_tx.send(()).unwrap();
                go_rx.recv().unwrap();
                if matches!(foreign, Foreign::Inflated) {
                    sync::exit(pin(xr)).unwrap();
                    sync::exit(pin(o0)).unwrap();
                }
                sync::exit(pin(xr)).unwrap();
            })
        });
        if helper.is_some() {
            ready_rx.recv().unwrap();
        }
        let res = s
            .spawn(move || {
                let me = fthread::current();
                // Another thread holds X: a blocking enter would wait for it,
                // so both sides continue with the non-blocking `try_enter`.
                let contended = !matches!(sc.foreign, Foreign::None);
                sync::set_current_thread_locking_mode(sc.mode).unwrap();
                let name = |a: usize| {
                    if a == xr as *const Header as usize {
                        'X'
                    } else {
                        let i = others
                            .iter()
                            .position(|o| &**o as *const Header as usize == a)
                            .unwrap();
                        (b'a' + i as u8) as char
                    }
                };
                let obj = |c: char| {
                    if c == 'X' {
                        xr
                    } else {
                        &*others[c.to_digit(10).unwrap() as usize]
                    }
                };
                let mut held: Vec<&Header> = Vec::new();
                if sc.inflate_ours {
                    for h in [xr, &*others[8], xr] {
                        sync::enter_on(me, pin(h));
                        held.push(h);
                    }
                }
                for c in sc.ours.chars() {
                    sync::enter_on(me, pin(obj(c)));
                    held.push(obj(c));
                }
                let before = (xr.raw(), lock_stack());
                let (reached, slow_ok) = match via {
                    Some(h) => {
                        let slow = h.run(xr) == 1;
                        if slow {
                            assert_eq!(
                                (xr.raw(), lock_stack()),
                                before,
                                "{sc:?} {op:?}: slow changed state"
                            );
                        }
                        let ok = if !slow {
                            true
                        } else if op == Op::Enter && contended {
                            sync::try_enter(pin(xr))
                        } else if op == Op::Enter {
                            // SAFETY: this thread's block, a live pinned header.
                            unsafe { slow::monitor_enter(me, xr) };
                            true
                        } else {
                            // SAFETY: as above.
                            unsafe { slow::monitor_exit(me, xr) == 0 }
                        };
                        (Some(slow), ok)
                    }
                    None => match op {
                        Op::Enter if contended => (None, sync::try_enter(pin(xr))),
                        Op::Enter => {
                            sync::enter_on(me, pin(xr));
                            (None, true)
                        }
                        Op::Exit => (None, sync::exit_on(me, pin(xr)).is_ok()),
                    },
                };
                let (top, entries) = lock_stack();
                let x_state = xr.lock_state();
                let out = Outcome {
                    x_state,
                    // A monitor's or a legacy record's address differs between twins.
                    x_word: (x_state != LockState::Inflated && xr.raw() >> 63 == 1).then(|| xr.raw()),
                    top,
                    entries: entries.iter().map(|&a| name(a)).collect(),
                };
                // Teardown: undo the operation, then what setup took.
                match (op, slow_ok) {
                    (Op::Enter, true) => sync::exit_on(me, pin(xr)).unwrap(),
                    (Op::Exit, true) => {
                        // X was released once: take it back so teardown's exits pair.
                        sync::enter_on(me, pin(xr))
                    }
                    _ => {}
                }
                for h in held.iter().rev() {
                    sync::exit_on(me, pin(h)).unwrap();
                }
                assert_eq!(lock_stack().1, Vec::<usize>::new());
                (reached, slow_ok, out)
            })
            .join()
            .unwrap();
        let _ = go_tx.send(()); // no helper: nobody listens
        if let Some(h) = helper {
            h.join().unwrap();
        }
        res
    })
}

fn scenarios() -> Vec<(Scenario, [Option<bool>; 2])> {
    use Foreign as F;
    use LockingMode::*;
    let sc = |mode, foreign, ours, inflate_ours| Scenario {
        mode,
        foreign,
        ours,
        inflate_ours,
    };
    // Expected label per operation [enter, exit]: Some(false) done, Some(true) slow.
    let (d, s) = (Some(false), Some(true));
    vec![
        (sc(Lightweight, F::None, "", false), [d, s]),  // unlocked, empty
        (sc(Lightweight, F::None, "0", false), [d, s]), // unlocked, another on top
        (sc(Lightweight, F::None, "01234567", false), [s, s]), // unlocked, full
        (sc(Lightweight, F::None, "X", false), [d, d]), // ours on top
        (sc(Lightweight, F::None, "XX", false), [d, d]), // ours on top, recursive
        (sc(Lightweight, F::None, "0123456X", false), [s, d]), // ours on top, full
        (sc(Lightweight, F::None, "X0", false), [s, s]), // ours deeper
        (sc(Lightweight, F::None, "XX0", false), [s, s]), // ours deeper, recursive
        (sc(Lightweight, F::None, "", true), [s, s]),   // inflated, ours
        (sc(Lightweight, F::FastLocked, "", false), [s, s]), // another thread's fast-lock
        (sc(Lightweight, F::FastLocked, "0", false), [s, s]),
        (sc(Lightweight, F::Inflated, "", false), [s, s]), // another thread's monitor
        (sc(Lightweight, F::Legacy, "", false), [s, s]),   // a legacy record's word
        (sc(Lightweight, F::Legacy, "0", false), [s, s]),
        (sc(Monitor, F::None, "", false), [s, s]), // monitor-only thread
        (sc(Monitor, F::None, "X", false), [s, s]),
        (sc(Legacy, F::None, "", false), [s, s]), // legacy thread
        (sc(Legacy, F::None, "X", false), [s, s]),
    ]
}

#[test]
fn differential_template_and_rust_agree_on_every_state() {
    let mut checked = 0;
    for regs in ASSIGNMENTS {
        for op in [Op::Enter, Op::Exit] {
            let h = Harness::new(op, regs, false);
            for (sc, expect) in scenarios() {
                let want = expect[(op == Op::Exit) as usize];
                // Foreign-held exit: the Rust exit fails; so does the slow path.
                let (reached, t_ok, t_out) = run_world(sc, op, Some(&h));
                let (_, r_ok, r_out) = run_world(sc, op, None);
                assert_eq!(reached, want, "{sc:?} {op:?} with {regs:?}: label");
                assert_eq!(
                    (t_ok, &t_out),
                    (r_ok, &r_out),
                    "{sc:?} {op:?} with {regs:?}: template+slow vs Rust"
                );
                checked += 1;
            }
        }
    }
    println!("differential: {checked} (registers, operation, state) cases, each against a Rust twin");
}

// ---------------------------------------------------------------------
// Mixed: template and Rust paths on the same objects.

fn depth_of(h: &Header) -> usize {
    let a = h as *const Header as usize;
    lock_stack().1.iter().filter(|&&e| e == a).count()
}

#[test]
fn mixed_template_and_rust_enter_and_exit_pair_recursively() {
    let regs = ASSIGNMENTS[0];
    let (enter, exit) = (
        Harness::new(Op::Enter, regs, true),
        Harness::new(Op::Exit, regs, true),
    );
    std::thread::spawn(move || {
        let me = fthread::current();
        sync::set_current_thread_locking_mode(LockingMode::Lightweight).unwrap();
        let x = Box::pin(Header::new());
        let unlocked = x.raw();
        sync::enter_on(me, pin(&x)); // registers the thread
        sync::exit_on(me, pin(&x)).unwrap();
        // Template enter, Rust exit; Rust enter, template exit.
        assert_eq!(enter.run(&x), 0);
        assert_eq!((x.lock_state(), depth_of(&x)), (LockState::FastLocked, 1));
        sync::exit_on(me, pin(&x)).unwrap();
        assert_eq!((x.raw(), depth_of(&x)), (unlocked, 0));
        sync::enter_on(me, pin(&x));
        assert_eq!(exit.run(&x), 0);
        assert_eq!((x.raw(), depth_of(&x)), (unlocked, 0));
        // Recursive, interleaved: T R T enter, then R T R exit.
        assert_eq!(enter.run(&x), 0);
        sync::enter_on(me, pin(&x));
        assert_eq!(enter.run(&x), 0);
        assert_eq!(depth_of(&x), 3);
        sync::exit_on(me, pin(&x)).unwrap();
        assert_eq!(exit.run(&x), 0);
        assert_eq!((x.lock_state(), depth_of(&x)), (LockState::FastLocked, 1));
        sync::exit_on(me, pin(&x)).unwrap();
        assert_eq!((x.raw(), depth_of(&x)), (unlocked, 0));
        // Through the stub: X held below the top is inflated by the slow
        // enter; the template exits reach the stub too, until X is released.
        let a = Box::pin(Header::new());
        assert_eq!(enter.run(&x), 0);
        assert_eq!(enter.run(&a), 0);
        assert_eq!(enter.run(&x), 1, "X below the top: the stub's slow enter");
        assert_eq!(x.lock_state(), LockState::Inflated);
        assert_eq!(exit.run(&x), 1, "inflated: the stub's slow exit");
        assert_eq!(exit.run(&a), 0);
        assert_eq!(exit.run(&x), 1);
        assert!(!sync::holds_lock(&x) && !sync::holds_lock(&a));
        // An exit of an object not held: the slow exit reports the error.
        assert_eq!(exit.run(&a), 2);
        assert_eq!(lock_stack().1, Vec::<usize>::new());
    })
    .join()
    .unwrap();
}

// ---------------------------------------------------------------------
// Stress: threads alternating template and Rust paths on shared objects.

struct Counted {
    header: Pin<Box<Header>>,
    /// Incremented only under the lock, by a non-atomic read-modify-write
    /// (relaxed load, then store): a lost update shows a broken lock.
    count: AtomicU64,
}

#[test]
fn stress_mixed_paths_lose_no_update() {
    const THREADS: usize = 3;
    let regs = ASSIGNMENTS[1];
    let (enter, exit) = (
        Harness::new(Op::Enter, regs, true),
        Harness::new(Op::Exit, regs, true),
    );
    let objs: Vec<Counted> = (0..2)
        .map(|_| Counted {
            header: Box::pin(Header::new()),
            count: AtomicU64::new(0),
        })
        .collect();
    let deadline = Instant::now() + Duration::from_millis(600);
    let stop = AtomicBool::new(false);
    let (ops, slow) = std::thread::scope(|s| {
        let hs: Vec<_> = (0..THREADS)
            .map(|t| {
                let (objs, enter, exit, stop) = (&objs, &enter, &exit, &stop);
                s.spawn(move || {
                    let me = fthread::current();
                    let (mut ops, mut slow, mut rng) = (0u64, 0u64, 0x9e37_79b9_7f4a_7c15u64 ^ t as u64);
                    // Relaxed: a stop flag with no data behind it.
                    while !stop.load(Ordering::Relaxed) {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        let o = &objs[(rng & 1) as usize];
                        let depth = 1 + (rng >> 1) as usize % 2;
                        for d in 0..depth {
                            if rng >> (8 + d) & 1 == 0 {
                                slow += enter.run(&o.header);
                            } else {
                                sync::enter_on(me, pin(&o.header));
                            }
                        }
                        // Relaxed: the lock orders these; a lost update is the failure looked for.
                        let v = o.count.load(Ordering::Relaxed);
                        o.count.store(v + 1, Ordering::Relaxed);
                        for d in 0..depth {
                            if rng >> (12 + d) & 1 == 0 {
                                let r = exit.run(&o.header);
                                assert_ne!(r, 2, "exit of a held object failed");
                                slow += r;
                            } else {
                                sync::exit_on(me, pin(&o.header)).unwrap();
                            }
                        }
                        ops += 1;
                        if t == 0 && ops % 256 == 0 && Instant::now() > deadline {
                            // Relaxed: a stop flag; the joins order the results.
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    (ops, slow)
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap())
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    let counted: u64 = objs.iter().map(|o| o.count.load(Ordering::Relaxed)).sum();
    println!(
        "stress: {THREADS} threads, {ops} critical sections ({slow} template slow paths), {counted} counted"
    );
    assert_eq!(counted, ops, "lost updates");
    assert!(ops > 0);
    for o in &objs {
        assert!(!sync::holds_lock(&o.header));
    }
}

// ---------------------------------------------------------------------
// Machine checks (iced-x86).

struct Decoded {
    /// Instructions when every branch falls through (first-level lock/unlock).
    common: usize,
    /// Instructions when the first branch to a local label is taken (recursive case).
    recursive: usize,
}

fn decode_lock(op: Op, (t, o, p, m): (Reg, Reg, Reg, Reg)) -> Decoded {
    let regs = LockRegs::new(t, o, p, m).unwrap();
    let layout = LockStackLayout::fastpath().unwrap();
    let (clobbers, budget) = match op {
        Op::Enter => (
            LockEnter { regs, layout }.clobbers(),
            LockEnter { regs, layout }.budget(),
        ),
        Op::Exit => (
            LockExit { regs, layout }.clobbers(),
            LockExit { regs, layout }.budget(),
        ),
    };
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    template(op, regs)(&mut ops, labels);
    let end = ops.offset().0;
    dynasm!(ops ; .arch x64 ; =>labels.slow ; =>labels.done ; int3);
    let code = ops.finalize().unwrap();
    let insns: Vec<_> = Decoder::with_ip(64, &code[..end], 0, DecoderOptions::NONE)
        .iter()
        .collect();
    let mut factory = InstructionInfoFactory::new();
    let mut written = RegSet::EMPTY;
    let reg_of = |r: Register| Reg(r.full_register().number() as u8);
    let is_write = |a: OpAccess| {
        matches!(
            a,
            OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite
        )
    };
    let mut locked = 0;
    for insn in &insns {
        assert!(!insn.is_invalid());
        let info = factory.info(insn);
        for u in info.used_registers() {
            if is_write(u.access()) {
                assert!(
                    u.register().full_register().is_gpr64(),
                    "{op:?} writes {:?}",
                    u.register()
                );
                written = written.with(reg_of(u.register()));
            }
        }
        for mem in info.used_memory() {
            if !is_write(mem.access()) {
                continue;
            }
            if insn.has_lock_prefix() {
                assert_eq!(insn.mnemonic(), iced_x86::Mnemonic::Cmpxchg);
                assert_eq!(reg_of(mem.base()), o, "{op:?}: the locked CAS is on the header");
                locked += 1;
            } else {
                assert_eq!(
                    reg_of(mem.base()),
                    t,
                    "{op:?}: an unlocked write outside the thread block: {insn}"
                );
            }
        }
    }
    assert_eq!(locked, 1, "{op:?}: exactly one locked CAS");
    assert!(
        written.is_subset(clobbers),
        "{op:?} writes {written:?}, declares {clobbers:?}"
    );
    // Paths: all fall through; or the first branch to a local target taken.
    let local = insns
        .iter()
        .position(|i| {
            i.flow_control() == FlowControl::ConditionalBranch && (i.near_branch_target() as usize) < end
        })
        .expect("a recursive branch");
    let target = insns[local].near_branch_target();
    let after = insns.iter().filter(|i| i.ip() >= target).count();
    let d = Decoded {
        common: insns.len(),
        recursive: local + 1 + after,
    };
    assert!(
        d.common <= budget,
        "{op:?}: {} instructions, budget {budget}",
        d.common
    );
    println!(
        "{op:?} with {:?}: common path {}, recursive {}, budget {budget}, writes {written:?}",
        (t, o, p, m),
        d.common,
        d.recursive
    );
    d
}

#[test]
fn machine_checks_writes_clobbers_and_counts() {
    for regs in ASSIGNMENTS {
        let e = decode_lock(Op::Enter, regs);
        let x = decode_lock(Op::Exit, regs);
        assert_eq!((e.common, e.recursive), (15, 7));
        assert_eq!((x.common, x.recursive), (14, 8));
    }
}

#[test]
fn bad_registers_are_refused_with_an_error() {
    use fastpath_jit::x64::LockRegError as E;
    assert_eq!(LockRegs::new(R15, RAX, RCX, RDX), Err(E::Reserved(RAX)));
    assert_eq!(LockRegs::new(R15, RSI, RSP, RDX), Err(E::Reserved(RSP)));
    assert_eq!(LockRegs::new(R15, RSI, RSI, RDX), Err(E::Aliased(RSI)));
    assert_eq!(
        LockRegs::new(R15, RSI, RCX, Reg(16)),
        Err(E::NotARegister(Reg(16)))
    );
}

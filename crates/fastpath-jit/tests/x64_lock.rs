//! The lightweight monitor templates run from fastpath's `CodeCache` with
//! the real thread block (`fastpath::thread::current()`) in the thread
//! register: differential against the Rust path over header × lock-stack
//! states, mixed template/Rust enter and exit, a mixed-thread stress with
//! exact counters, and iced-x86 checks of the machine code.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

use std::pin::Pin;
use std::sync::mpsc;

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath::sync::{self, Header, LockState, LockingMode};
use fastpath::thread::{self as fthread, ThreadBlock};
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::x64::{LockEnter, LockExit, LockRegs, SlowStub, Template};
use fastpath_jit::{slow, Labels, LockStackLayout};

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

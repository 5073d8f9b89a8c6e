//! The lightweight monitor templates run from fastpath's `CodeCache` with
//! the real thread block (`fastpath::thread::current()`) in the thread
//! register: differential against the Rust path over header × lock-stack
//! states, mixed template/Rust enter and exit, a mixed-thread stress with
//! the deflater running and exact counters (those three in `lock_world`,
//! shared with the AArch64 binary), and iced-x86 checks of the machine code.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;

use common::lock_world::{self, Guess, Harness, Op};
use common::x64::{decode_bytes, emitted};
use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::{Emit, EmitStub, Isa, Labels, LockEnter, LockExit, LockRegs, LockStackLayout, Template};
use iced_x86::FlowControl;

/// Register assignments the tests run: HotSpot's (thread in r15), and one
/// with callee-saved object and extended temporaries.
const ASSIGNMENTS: [(Reg, Reg, Reg, Reg); 2] = [(R15, RSI, RCX, RDX), (RBX, R13, R8, R12)];

/// Emits a template into a test buffer.
type Emitter = Box<dyn Fn(&mut VecAssembler<X64Relocation>, Labels)>;

fn template(op: Op, regs: LockRegs) -> Emitter {
    let layout = LockStackLayout::fastpath().unwrap();
    match op {
        Op::Enter => Box::new(move |a, l| LockEnter { regs, layout }.emit(a, l).unwrap()),
        Op::Exit => Box::new(move |a, l| LockExit { regs, layout }.emit(a, l).unwrap()),
    }
}

impl Harness {
    fn new(op: Op, regs: (Reg, Reg, Reg, Reg), with_stub: bool) -> Harness {
        Harness::build(op, regs, with_stub, None, None)
    }

    /// The enter whose CAS first tries `header` (`LockEnter::emit_guessing`).
    fn guessing_enter(regs: (Reg, Reg, Reg, Reg), with_stub: bool, header: u64) -> Harness {
        Harness::build(Op::Enter, regs, with_stub, None, Some(header))
    }

    /// The exit with its expected word from `guess.0`, set as `guess.1` says.
    fn guessed((t, o, p, m): (Reg, Reg, Reg, Reg), with_stub: bool, guess: (Reg, Guess)) -> Harness {
        Harness::build(Op::Exit, (t, o, p, m), with_stub, Some(guess), None)
    }

    fn build(
        op: Op,
        (t, o, p, m): (Reg, Reg, Reg, Reg),
        with_stub: bool,
        guess: Option<(Reg, Guess)>,
        enter_guess: Option<u64>,
    ) -> Harness {
        let regs = LockRegs::new(t, o, &[p, m]).unwrap();
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
        match guess {
            None => match enter_guess {
                Some(header) => LockEnter {
                    regs,
                    layout: LockStackLayout::fastpath().unwrap(),
                }
                .emit_guessing(&mut ops, labels, header)
                .unwrap(),
                None => template(op, regs)(&mut ops, labels),
            },
            Some((w, kind)) => {
                let w = w.0;
                match kind {
                    Guess::Loaded => dynasm!(ops ; .arch x64 ; mov Rq(w), QWORD [Rq(o.0)]),
                    Guess::LoadedInflated => dynasm!(ops ; .arch x64
                        ; mov Rq(w), QWORD [Rq(o.0)] ; and Rq(w), -4 ; or Rq(w), 2),
                    Guess::Zero => dynasm!(ops ; .arch x64 ; xor Rd(w), Rd(w)),
                    Guess::Ones => dynasm!(ops ; .arch x64 ; mov Rq(w), -1),
                    Guess::Other => dynasm!(ops ; .arch x64 ; mov Rq(w), QWORD [Rq(o.0)] ; xor Rq(w), 0x100),
                }
                let layout = LockStackLayout::fastpath().unwrap();
                LockExit { regs, layout }
                    .emit_expecting(&mut ops, labels, Reg(w))
                    .unwrap();
            }
        }
        dynasm!(ops ; .arch x64 ; xor eax, eax ; jmp =>end);
        if with_stub {
            // The template's own slow call (the library's enter or exit on
            // thread and object), exit's status in rax.
            let layout = LockStackLayout::fastpath().unwrap();
            let call = match op {
                Op::Enter => LockEnter { regs, layout }.slow_call(),
                Op::Exit => LockExit { regs, layout }.slow_call(),
            }
            .unwrap();
            let fastpath_jit::SlowPath::Library(path) = call.path else {
                panic!("{call:?}")
            };
            let mut stub = call.stub(path.addr(), &[], RegSet::of(&[t, o])).unwrap();
            stub.ret = (op == Op::Exit).then_some(RAX);
            stub.emit(&mut ops, labels.slow, labels.done).unwrap();
            let ok = if op == Op::Enter { 0 } else { 1 };
            dynasm!(ops ; .arch x64 ; =>labels.done ; add eax, 1 ; imul eax, eax, ok ; add eax, 1 - ok ; jmp =>end);
            // enter: rax is garbage after a void call: eax*0 + 1 = 1; exit: rax (0/1) + 1.
        } else {
            dynasm!(ops ; .arch x64 ; =>labels.slow ; =>labels.done ; mov eax, 1);
        }
        dynasm!(ops ; .arch x64 ; =>end ; pop r15 ; pop r14 ; pop r13 ; pop r12 ; pop rbx ; ret);
        Harness::install(&ops.finalize().unwrap())
    }
}

#[test]
fn differential_template_and_rust_agree_on_every_state() {
    lock_world::differential_every("", &ASSIGNMENTS, |op, regs| Harness::new(op, regs, false));
}

/// The exit expecting a register's word: every state, five guesses (the
/// loaded word, which is the monitor's when inflated; the same with lock
/// bits 10; 0; all ones; another hash bit), in the mark register, in one
/// outside the template's and in rax, against the Rust exit. The right guesses reach
/// the table's labels; the wrong ones send the fast exits to `slow`, and
/// every outcome equals Rust's.
/// The enter guessing the header: every state, against the Rust enter,
/// with the right guess (a fresh header's word, with and without its lock
/// bits), and wrong ones (0, all ones, another hash bit: each falls back to
/// the loaded form's checks on the word the failed CAS found). The labels
/// and every outcome equal the loaded form's and Rust's. Then the guessing
/// enter paired with the Rust exit and the template exit expecting its
/// word, recursively and on fresh objects.
#[test]
fn guessing_enter_agrees_with_rust_whatever_the_guess() {
    let fresh = fastpath::sync::Header::new().raw() as u64;
    let guesses = [fresh, fresh & !0b11, 0, u64::MAX, fresh ^ (1 << 8)];
    let mut checked = 0;
    for regs in ASSIGNMENTS {
        for guess in guesses {
            let h = Harness::guessing_enter(regs, false, guess);
            checked += lock_world::differential(Op::Enter, &h, &format!("{regs:?}, guess {guess:#x}"));
        }
        let enter = Harness::guessing_enter(regs, true, fresh);
        lock_world::mixed(&enter, &Harness::new(Op::Exit, regs, true));
    }
    println!("guessing enter: {checked} (registers, guess, state) cases, each against a Rust twin");
}

#[test]
fn guessed_exit_agrees_with_rust_whatever_the_guess() {
    lock_world::guessed_every(
        "",
        &ASSIGNMENTS,
        |regs| [regs.3, R11, RAX],
        Harness::guessed,
        |regs| Harness::new(Op::Enter, regs, true),
    );
}

#[test]
fn guessed_exit_refuses_the_top_register_and_rsp() {
    let layout = LockStackLayout::fastpath().unwrap();
    let regs = LockRegs::new(R15, RSI, &[RCX, RDX]).unwrap();
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let exit = LockExit { regs, layout };
    assert!(exit.emit_expecting(&mut ops, l, RCX).is_err(), "top");
    assert!(exit.emit_expecting(&mut ops, l, RSP).is_err(), "rsp");
    assert!(
        exit.emit_expecting(&mut ops, l, Reg(16)).is_err(),
        "not a register"
    );
    assert!(exit.emit_expecting(&mut ops, l, RDX).is_ok(), "mark");
}

#[test]
fn mixed_template_and_rust_enter_and_exit_pair_recursively() {
    let regs = ASSIGNMENTS[0];
    lock_world::mixed(
        &Harness::new(Op::Enter, regs, true),
        &Harness::new(Op::Exit, regs, true),
    );
}

#[test]
fn stress_mixed_paths_with_the_deflater_lose_no_update() {
    let regs = ASSIGNMENTS[1];
    lock_world::stress(
        &Harness::new(Op::Enter, regs, true),
        &Harness::new(Op::Exit, regs, true),
        600,
    );
}

/// The guessing enter (a fresh header's word) with the template exit
/// under the stress's contention and deflation: its guessed CAS loses to
/// other threads' locks, meets inflated headers and the deflater's
/// restored ones, and no counter update is lost.
#[test]
fn stress_guessing_enter_with_the_deflater_loses_no_update() {
    let regs = ASSIGNMENTS[1];
    let fresh = fastpath::sync::Header::new().raw() as u64;
    lock_world::stress(
        &Harness::guessing_enter(regs, true, fresh),
        &Harness::new(Op::Exit, regs, true),
        300,
    );
}

// ---------------------------------------------------------------------
// Machine checks (iced-x86).

struct Decoded {
    /// Instructions when every branch falls through (first-level lock/unlock).
    common: usize,
    /// Instructions when the first branch to a local label is taken (recursive case).
    recursive: usize,
}

fn decode_lock(op: Op, regs: (Reg, Reg, Reg, Reg)) -> Decoded {
    decode_lock_guessed(op, regs, None)
}

/// `guess`: the exit expecting that register's word.
fn decode_lock_guessed(op: Op, (t, o, p, m): (Reg, Reg, Reg, Reg), guess: Option<Reg>) -> Decoded {
    let regs = LockRegs::new(t, o, &[p, m]).unwrap();
    let layout = LockStackLayout::fastpath().unwrap();
    let (clobbers, budget) = match op {
        Op::Enter => (
            LockEnter { regs, layout }.clobbers(Isa::X64),
            LockEnter { regs, layout }.budget(Isa::X64),
        ),
        Op::Exit => (
            LockExit { regs, layout }.clobbers(Isa::X64),
            LockExit { regs, layout }.budget(Isa::X64),
        ),
    };
    let code = emitted(|ops, labels| match guess {
        None => template(op, regs)(ops, labels),
        Some(w) => LockExit { regs, layout }.emit_expecting(ops, labels, w).unwrap(),
    });
    let end = code.len();
    let d = decode_bytes(&format!("{op:?}"), &code, clobbers);
    let mut locked = 0;
    for mem in &d.mem_writes {
        if mem.locked {
            assert_eq!(mem.mnemonic, "lock cmpxchg");
            assert_eq!(mem.base, o, "{op:?}: the locked CAS is on the header");
            locked += 1;
        } else {
            assert_eq!(
                mem.base, t,
                "{op:?}: an unlocked write outside the thread block: {}",
                mem.text
            );
        }
    }
    assert_eq!(locked, 1, "{op:?}: exactly one locked CAS");
    let (insns, written) = (&d.insns, d.written);
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
        assert_eq!((x.common, x.recursive), (12, 6));
        for w in [regs.3, R11, RAX] {
            let g = decode_lock_guessed(Op::Exit, regs, Some(w));
            let n = if w == RAX { 11 } else { 12 };
            assert_eq!((g.common, g.recursive), (n, 6), "exit expecting {w:?}");
        }
    }
}

/// The guessing enter: its writes are the two locked CASes on the header
/// (the second only after the first failed) and the lock-stack push; its
/// registers within the loaded form's clobbers; 11 instructions when the
/// guess is right, 7 on a recursive enter.
#[test]
fn guessing_enter_machine_checks() {
    for (t, o, p, m) in ASSIGNMENTS {
        let regs = LockRegs::new(t, o, &[p, m]).unwrap();
        let layout = LockStackLayout::fastpath().unwrap();
        let enter = LockEnter { regs, layout };
        let code = emitted(|ops, labels| {
            enter
                .emit_guessing(ops, labels, fastpath::sync::Header::new().raw() as u64)
                .unwrap()
        });
        let end = code.len() as u64;
        let d = decode_bytes("guessing enter", &code, enter.clobbers(Isa::X64));
        for mem in &d.mem_writes {
            if mem.locked {
                assert_eq!(
                    (mem.mnemonic.as_str(), mem.base),
                    ("lock cmpxchg", o),
                    "{}",
                    mem.text
                );
            } else {
                assert_eq!(
                    mem.base, t,
                    "an unlocked write outside the thread block: {}",
                    mem.text
                );
            }
        }
        assert_eq!(d.mem_writes.iter().filter(|w| w.locked).count(), 2);
        // The right guess: the branch after the first CAS is taken to the push.
        let insns = &d.insns;
        let first_cas = insns.iter().position(|i| i.has_lock_prefix()).unwrap();
        let je = &insns[first_cas + 1];
        assert_eq!(je.flow_control(), FlowControl::ConditionalBranch);
        let push = je.near_branch_target();
        assert!(push < end);
        let common = first_cas + 2 + insns.iter().filter(|i| i.ip() >= push).count();
        // Recursive: the first local branch (the on-top check) taken.
        let recursive_branch = insns
            .iter()
            .position(|i| i.flow_control() == FlowControl::ConditionalBranch && i.near_branch_target() < end)
            .unwrap();
        let recursive = recursive_branch + 1 + insns.iter().filter(|i| i.ip() >= push).count();
        assert_eq!((common, recursive), (11, 7), "{:?}", (t, o, p, m));
    }
}

/// x86-64's rules for the lock templates' registers: rax (`cmpxchg`'s)
/// and rsp in no role, 0–15, one register per role, two temporaries; the
/// description refuses what no ISA accepts, the emitter the rest.
#[test]
fn bad_registers_are_refused_with_an_error() {
    use fastpath_jit::reg::RegError as E;
    use fastpath_jit::TemplateError as T;
    let layout = LockStackLayout::fastpath().unwrap();
    let refused = |t: Reg, o: Reg, temps: &[Reg]| {
        let regs = LockRegs::new(t, o, temps)?;
        let mut ops = VecAssembler::<X64Relocation>::new(0);
        let l = Labels {
            slow: ops.new_dynamic_label(),
            done: ops.new_dynamic_label(),
        };
        LockEnter { regs, layout }.emit(&mut ops, l)
    };
    assert_eq!(refused(R15, RAX, &[RCX, RDX]), Err(T::Register(E::Reserved(RAX))));
    assert_eq!(refused(R15, RSI, &[RSP, RDX]), Err(T::Register(E::Reserved(RSP))));
    assert_eq!(refused(R15, RSI, &[RSI, RDX]), Err(T::Register(E::Aliased(RSI))));
    assert_eq!(
        refused(R15, RSI, &[RCX, Reg(16)]),
        Err(T::Register(E::NotARegister(Reg(16))))
    );
    assert_eq!(refused(R15, RSI, &[RCX]), Err(T::Temps { needed: 2, given: 1 }));
    assert_eq!(refused(R15, RSI, &[RCX, RDX]), Ok(()));
}

/// The guessing enter's description keeps the loaded form's contract
/// (operands, clobbers, slow call: a JIT swaps one for the other without
/// touching its register allocation or stub), its budget the 11 that
/// `guessing_enter_machine_checks` counts on the emitted code.
#[test]
fn the_guessing_description_shares_the_enters_contract() {
    for (t, o, p, m) in ASSIGNMENTS {
        let regs = LockRegs::new(t, o, &[p, m]).unwrap();
        let enter = LockEnter {
            regs,
            layout: LockStackLayout::fastpath().unwrap(),
        };
        let g = enter.guessing(fastpath::gc::layout::INITIAL_HEADER as u64);
        assert_eq!(g.budget(Isa::X64), 11);
        assert_eq!(g.operands(Isa::X64), enter.operands(Isa::X64));
        assert_eq!(g.clobbers(Isa::X64), enter.clobbers(Isa::X64));
        assert_eq!(g.slow_call(), enter.slow_call());
    }
}

//! The AArch64 lightweight monitor templates run from fastpath's
//! `CodeCache` with the real thread block (`fastpath::thread::current()`)
//! in the thread register (on AArch64 hardware, or under
//! `qemu-aarch64 -cpu neoverse-n1` in .ci/aarch64): the same differential
//! against the Rust path over header × lock-stack states, mixed
//! template/Rust enter and exit, and mixed-thread stress with the deflater
//! running as the x86-64 binary (`lock_world`). Emulation checks function,
//! not weak-memory ordering (TCG runs with the host's ordering); the CAS's
//! acquire/release bits are checked word by word in aarch64_lock_encoding.rs.
#![cfg(target_arch = "aarch64")]
// dynasm's dynamic registers (`X(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;

use common::a64::count;
use common::aarch64::{restore_and_return, start};
use common::lock_world::{self, Guess, Harness, Op};
use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath_jit::reg::{aarch64::RTHREAD, Reg, RegSet};
use fastpath_jit::{
    slow, Emit, EmitStub, Isa, Labels, LockEnter, LockExit, LockRegs, LockStackLayout, SlowStub, Template,
};

/// Register assignments the tests run: HotSpot's thread register x28 with
/// the object in an argument register, and an all-callee-saved one (the
/// temporaries by role: top, mark, slot, expected, CAS result).
fn assignments() -> [LockRegs; 2] {
    [
        LockRegs::new(RTHREAD, Reg(1), &[Reg(9), Reg(11), Reg(10), Reg(12), Reg(13)]).unwrap(),
        LockRegs::new(Reg(19), Reg(20), &[Reg(2), Reg(3), Reg(21), Reg(22), Reg(14)]).unwrap(),
    ]
}

impl Harness {
    fn new(op: Op, regs: LockRegs, with_stub: bool) -> Harness {
        Harness::build(op, regs, with_stub, None, None)
    }

    /// The exit with its expected word from `guess.0`, set as `guess.1` says.
    fn guessed(regs: LockRegs, with_stub: bool, guess: (Reg, Guess)) -> Harness {
        Harness::build(Op::Exit, regs, with_stub, Some(guess), None)
    }

    /// The enter whose CAS first tries `header` (`LockEnterGuessing`).
    fn guessing_enter(regs: LockRegs, with_stub: bool, header: u64) -> Harness {
        Harness::build(Op::Enter, regs, with_stub, None, Some(header))
    }

    fn build(
        op: Op,
        regs: LockRegs,
        with_stub: bool,
        guess: Option<(Reg, Guess)>,
        enter_guess: Option<u64>,
    ) -> Harness {
        let layout = LockStackLayout::fastpath().unwrap();
        let (t, o) = (regs.thread().0, regs.obj().0);
        let (mut ops, labels, end) = start();
        dynasm!(ops ; .arch aarch64 ; mov x16, x0 ; mov x17, x1 ; mov X(t), x16 ; mov X(o), x17);
        match (op, guess) {
            (Op::Enter, _) => match enter_guess {
                Some(header) => LockEnter { regs, layout }
                    .guessing(header)
                    .emit(&mut ops, labels)
                    .unwrap(),
                None => LockEnter { regs, layout }.emit(&mut ops, labels).unwrap(),
            },
            (Op::Exit, None) => LockExit { regs, layout }.emit(&mut ops, labels).unwrap(),
            (Op::Exit, Some((w, kind))) => {
                let r = w.0;
                match kind {
                    Guess::Loaded => dynasm!(ops ; .arch aarch64 ; ldr X(r), [X(o)]),
                    Guess::LoadedInflated => dynasm!(ops ; .arch aarch64
                        ; ldr X(r), [X(o)]
                        ; and XSP(r), X(r), #0xffff_ffff_ffff_fffc
                        ; orr XSP(r), X(r), #2),
                    Guess::Zero => dynasm!(ops ; .arch aarch64 ; movz X(r), #0),
                    Guess::Ones => dynasm!(ops ; .arch aarch64 ; movn X(r), #0),
                    Guess::Other => {
                        dynasm!(ops ; .arch aarch64 ; ldr X(r), [X(o)] ; eor XSP(r), X(r), #0x100)
                    }
                }
                LockExit { regs, layout }
                    .emit_expecting(&mut ops, labels, w)
                    .unwrap();
            }
        }
        dynasm!(ops ; .arch aarch64 ; movz x0, #0 ; b =>end);
        if with_stub {
            let (func, ret) = match op {
                Op::Enter => (slow::monitor_enter as *const () as usize, None),
                Op::Exit => (slow::monitor_exit as *const () as usize, Some(Reg(0))),
            };
            let stub = SlowStub {
                func,
                args: vec![regs.thread(), regs.obj()],
                ret,
                live: RegSet::of(&[regs.thread(), regs.obj()]),
            };
            stub.emit(&mut ops, labels.slow, labels.done).unwrap();
            // enter: 1; exit: the slow path's result (0 ok, 1 error) + 1.
            match op {
                Op::Enter => dynasm!(ops ; .arch aarch64 ; =>labels.done ; movz x0, #1 ; b =>end),
                Op::Exit => dynasm!(ops ; .arch aarch64 ; =>labels.done ; add x0, x0, #1 ; b =>end),
            }
        } else {
            dynasm!(ops ; .arch aarch64 ; =>labels.slow ; =>labels.done ; movz x0, #1);
        }
        dynasm!(ops ; .arch aarch64 ; =>end);
        restore_and_return(&mut ops);
        Harness::install(&ops.finalize().unwrap())
    }
}

#[test]
fn differential_template_and_rust_agree_on_every_state() {
    lock_world::differential_every("aarch64 ", &assignments(), |op, regs| {
        Harness::new(op, regs, false)
    });
}

/// Every guess (as x64_lock.rs's), in the mark register, the expected
/// word's register and one outside the template's, against the Rust exit:
/// the right guesses reach the table's labels, the wrong ones send fast
/// exits to `slow`, every outcome equals Rust's.
#[test]
fn guessed_exit_agrees_with_rust_whatever_the_guess() {
    lock_world::guessed_every(
        "aarch64 ",
        &assignments(),
        |regs| {
            let t = regs.temps();
            [t[1], t[3], Reg(15)]
        },
        Harness::guessed,
        |regs| Harness::new(Op::Enter, regs, true),
    );
}

/// The enter guessing the header (x64_lock.rs's test on AArch64): every
/// state, against the Rust enter, with the right guess (a fresh header's
/// word, with and without its lock bits) and wrong ones (0, all ones,
/// another hash bit: each falls back to the loaded form's checks on the
/// word the failed CAS found). Every outcome and label equals Rust's. Then
/// the guessing enter paired with the Rust exit and the template exit,
/// recursively and on fresh objects. Its speed against the loaded form is
/// not measured: qemu says nothing about AArch64 hardware.
#[test]
fn guessing_enter_agrees_with_rust_whatever_the_guess() {
    let fresh = fastpath::sync::Header::new().raw() as u64;
    let guesses = [fresh, fresh & !0b11, 0, u64::MAX, fresh ^ (1 << 8)];
    let mut checked = 0;
    for regs in assignments() {
        for guess in guesses {
            let h = Harness::guessing_enter(regs, false, guess);
            checked +=
                lock_world::differential(Op::Enter, &h, &format!("aarch64 {regs:?}, guess {guess:#x}"));
        }
        let enter = Harness::guessing_enter(regs, true, fresh);
        lock_world::mixed(&enter, &Harness::new(Op::Exit, regs, true));
    }
    println!("aarch64 guessing enter: {checked} (registers, guess, state) cases, each against a Rust twin");
}

#[test]
fn guessed_exit_refuses_the_registers_written_before_the_guess() {
    let layout = LockStackLayout::fastpath().unwrap();
    let regs = assignments()[0];
    let t = regs.temps();
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let exit = LockExit { regs, layout };
    // top, slot, CAS result; sp/zr.
    for r in [t[0], t[2], t[4], Reg(31)] {
        assert!(exit.emit_expecting(&mut ops, l, r).is_err(), "{r:?}");
    }
    assert!(exit.emit_expecting(&mut ops, l, t[1]).is_ok(), "mark");
    assert_eq!(count(&|a, l| exit.emit_expecting(a, l, t[1]).unwrap()), 17);
}

#[test]
fn mixed_template_and_rust_enter_and_exit_pair_recursively() {
    let regs = assignments()[0];
    lock_world::mixed(
        &Harness::new(Op::Enter, regs, true),
        &Harness::new(Op::Exit, regs, true),
    );
}

#[test]
fn stress_mixed_paths_with_the_deflater_lose_no_update() {
    let regs = assignments()[1];
    lock_world::stress(
        &Harness::new(Op::Enter, regs, true),
        &Harness::new(Op::Exit, regs, true),
        600,
    );
}

/// x64_lock.rs's stress of the guessing enter (a fresh header's word)
/// with the template exit, contention and the deflater, on AArch64.
#[test]
fn stress_guessing_enter_with_the_deflater_loses_no_update() {
    let regs = assignments()[1];
    let fresh = fastpath::sync::Header::new().raw() as u64;
    lock_world::stress(
        &Harness::guessing_enter(regs, true, fresh),
        &Harness::new(Op::Exit, regs, true),
        300,
    );
}

#[test]
fn budgets_hold() {
    let layout = LockStackLayout::fastpath().unwrap();
    let regs = assignments()[0];
    for (name, n, budget) in [
        (
            "enter",
            count(&|a, l| LockEnter { regs, layout }.emit(a, l).unwrap()),
            LockEnter { regs, layout }.budget(Isa::Aarch64),
        ),
        (
            "exit",
            count(&|a, l| LockExit { regs, layout }.emit(a, l).unwrap()),
            LockExit { regs, layout }.budget(Isa::Aarch64),
        ),
    ] {
        println!("aarch64 {name}: {n} instructions, budget {budget}");
        assert!(n <= budget);
    }
}

//! The AArch64 thread-block, barrier and spin templates run from
//! fastpath's `CodeCache` (on AArch64 hardware, or under
//! `qemu-aarch64 -cpu neoverse-n1` in .ci/aarch64), in the harness of
//! `common::aarch64` (a test thread block in x28, HotSpot's `rthread`; the
//! label reached and the result register).
#![cfg(target_arch = "aarch64")]
// dynasm's dynamic registers (`X(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;

use common::aarch64::{run, run3, ARG, DONE, FELL_THROUGH, SLOW};
use common::block::{layout, TestThread, HAS_FORWARDED, MARKING};
use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::VecAssembler;
use fastpath_jit::reg::{aarch64::RTHREAD, Reg};
use fastpath_jit::*;

#[test]
fn poll_takes_slow_only_when_armed() {
    let p = SafepointPoll {
        thread: RTHREAD,
        tmp: Reg(10),
        layout: layout(),
    };
    let mut t = TestThread::default();
    assert_eq!(run(&p, &mut t, 7), (false, 7));
    t.poll = 1;
    assert_eq!(run(&p, &mut t, 7), (true, 7));
    t.poll = 2; // another bit: not the armed one
    assert_eq!(run(&p, &mut t, 7), (false, 7));
}

#[test]
fn satb_and_lrb_idle_tests_follow_their_bit() {
    let mut t = TestThread::default();
    for (gc, satb, lrb) in [
        (0, false, false),
        (MARKING, true, false),
        (HAS_FORWARDED, false, true),
        (5, true, true),
    ] {
        t.gc_state = gc;
        for (barrier, want) in [(GcBarrier::Satb, satb), (GcBarrier::Lrb, lrb)] {
            let g = GcStateTest {
                barrier,
                thread: RTHREAD,
                tmp: Reg(10),
                layout: layout(),
            };
            assert_eq!(run(&g, &mut t, 0).0, want, "gc_state {gc:#x} {barrier:?}");
        }
    }
}

/// Plain and conditional, with a zero and a non-zero dirty value: only
/// the address's card is dirtied, the address register becomes the card
/// index, and the conditional form skips a dirty card (to `done`).
#[test]
fn card_mark_dirties_the_card_of_the_address() {
    for (conditional, dirty) in [(false, 0u8), (false, 0x5a), (true, 0), (true, 0x5a)] {
        let heap = vec![0u64; 4 * 512 / 8]; // 4 cards of 512 bytes
        let mut cards = vec![0xffu8; 4];
        let heap_base = heap.as_ptr() as usize & !511;
        let mut t = TestThread {
            card_base: (cards.as_mut_ptr() as usize).wrapping_sub(heap_base >> 9),
            ..TestThread::default()
        };
        let c = CardMark {
            base: CardBase::Thread(RTHREAD),
            addr: ARG,
            tmp: Reg(10),
            tmp2: Reg(11),
            conditional,
            layout: ThreadLayout {
                dirty_card: dirty,
                ..layout()
            },
        };
        let addr = heap_base + 2 * 512 + 40;
        let (label, shifted) = run3(&c, &mut t, [addr as u64, 0, 0]);
        assert_eq!(label, FELL_THROUGH, "clean: stored");
        assert_eq!(shifted, (addr >> 9) as u64, "addr becomes the card index");
        assert_eq!(cards, [0xff, 0xff, dirty, 0xff], "only card 2");
        if conditional {
            assert_eq!(run3(&c, &mut t, [addr as u64, 0, 0]).0, DONE, "dirty: skipped");
        }
    }
}

#[test]
fn brooks_read_barrier_follows_the_forwarding_word() {
    // [forwarding, header…]: the object register points at the header.
    let to = [0u64; 2];
    let from = [to.as_ptr() as u64 + 8, 0];
    let obj = from.as_ptr() as u64 + 8;
    let b = BrooksReadBarrier {
        obj: ARG,
        forwarding: -8,
    };
    assert_eq!(
        run(&b, &mut TestThread::default(), obj),
        (false, to.as_ptr() as u64 + 8)
    );
    // Not forwarded: the forwarding word points at the object itself.
    let mut selfref = Box::new([0u64, 0]);
    let me = selfref.as_ptr() as u64 + 8;
    selfref[0] = me;
    assert_eq!(run(&b, &mut TestThread::default(), me), (false, me));
    std::hint::black_box(&selfref);
}

#[test]
fn spin_wait_runs_the_configured_pause() {
    let s = SpinWait::configured();
    println!("configured pause: {:?}", fastpath::spin::active());
    assert_eq!(run(&s, &mut TestThread::default(), 3), (false, 3));
    for p in ["isb", "yield", "nop", "none"] {
        let pause: fastpath::spin::SpinPause = p.parse().unwrap();
        let s = SpinWait::for_instruction(pause);
        assert_eq!(run(&s, &mut TestThread::default(), 3), (false, 3), "{p}");
    }
}

#[test]
fn reference_cas_succeeds_fails_and_goes_slow_only_when_forwarded() {
    let cas = CasRef {
        thread: RTHREAD,
        addr: ARG,
        expected: Reg(12),
        new: Reg(13),
        old: Reg(14),
        tmp: Reg(15),
        layout: layout(),
        refs: fastpath_jit::RefWidth::Full,
    };
    let mut t = TestThread::default();
    let mut field = Box::new(10u64);
    let p = &mut *field as *mut u64 as u64;
    assert_eq!(run3(&cas, &mut t, [p, 10, 20]), (DONE, p));
    assert_eq!(*field, 20);
    assert_eq!(run3(&cas, &mut t, [p, 10, 30]).0, FELL_THROUGH, "genuine failure");
    t.gc_state = HAS_FORWARDED;
    assert_eq!(run3(&cas, &mut t, [p, 10, 30]).0, SLOW, "maybe a false failure");
    assert_eq!(*field, 20);
}

#[test]
fn tlab_bump_allocates_until_the_end() {
    let a = TlabAlloc {
        thread: RTHREAD,
        obj: ARG,
        end: Reg(10),
        tmp: Reg(11),
        size: 32,
        layout: layout(),
    };
    let mut t = TestThread {
        tlab_top: 0x1000,
        tlab_end: 0x1040,
        ..TestThread::default()
    };
    assert_eq!(run3(&a, &mut t, [0; 3]), (FELL_THROUGH, 0x1000));
    assert_eq!(run3(&a, &mut t, [0; 3]), (FELL_THROUGH, 0x1020));
    assert_eq!(t.tlab_top, 0x1040);
    assert_eq!(run3(&a, &mut t, [0; 3]).0, SLOW, "exhausted");
    assert_eq!(t.tlab_top, 0x1040, "nothing changed");
    let too_big = TlabAlloc { size: 4096, ..a };
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    assert!(matches!(
        too_big.emit(&mut ops, labels),
        Err(TemplateError::Offset { .. })
    ));
}

//! G1's filtered card post-barrier on AArch64 as a JIT lays it out (the
//! x86-64 test's flow, x64_g1_card.rs): a raw reference store, the
//! template inline, the AArch64 slow-path stub calling the library's
//! `fastpath::gc::g1_card_slow_entry`; run from the `CodeCache` (on
//! AArch64, or under qemu in .ci/aarch64) on a real `g1` heap,
//! differentially against the library's Rust `g1-card` barrier over the
//! filter cases (`g1_world`). And the instruction count of each path.
#![cfg(target_arch = "aarch64")]
// dynasm's dynamic registers (`X(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;

use common::g1_world;

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{aarch64::*, RegSet};
use fastpath_jit::*;

fn template(layout: ThreadLayout) -> G1Card {
    G1Card {
        base: CardBase::Thread(X0),
        addr: X1,
        val: X2,
        tmp: X3,
        tmp2: X4,
        region_shift: g1_world::region_shift(),
        layout,
    }
}

#[test]
fn g1_card_template_matches_the_rust_barrier_on_every_filter_case() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    // fn(block x0, field x1, value x2): `str x2, [x1]`, the template, its
    // stub.
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    dynasm!(ops ; .arch aarch64 ; stp x29, x30, [sp, #-16]! ; mov x29, sp ; str x2, [x1]);
    template(ThreadLayout::fastpath().unwrap())
        .emit(&mut ops, l)
        .unwrap();
    dynasm!(ops ; .arch aarch64 ; =>l.done ; ldp x29, x30, [sp], #16 ; ret);
    SlowStub {
        func: g1_world::slow_counted as *const () as usize,
        args: vec![X0, X1],
        ret: None,
        live: RegSet::of(&[X0, X1, X2]),
    }
    .emit(&mut ops, l.slow, l.done)
    .unwrap();
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, field, value)` storing into
    // the field and running the barrier; `g1_world` calls it with this
    // thread's block, on fields of its mutator's heap, between its stops.
    let f: g1_world::Store = unsafe { e.as_fn() };
    assert_eq!(g1_world::differential(f), 5);
}

#[test]
fn g1_card_budgets_and_errors() {
    for (dirty, budget) in [(0u8, 8usize), (0x5a, 9)] {
        let layout = ThreadLayout {
            dirty_card: dirty,
            ..ThreadLayout::fastpath().unwrap()
        };
        let t = template(layout);
        let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
        let l = Labels {
            slow: ops.new_dynamic_label(),
            done: ops.new_dynamic_label(),
        };
        t.emit(&mut ops, l).unwrap();
        let n = ops.offset().0 / 4;
        assert_eq!((n, t.budget(Isa::Aarch64)), (budget, budget), "dirty {dirty:#x}");
        assert_eq!(t.clobbers(Isa::Aarch64), RegSet::of(&[X3, X4]));
    }
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let bad = G1Card {
        region_shift: 0,
        ..template(ThreadLayout::fastpath().unwrap())
    };
    assert!(bad.emit(&mut ops, l).is_err(), "a zero region shift is refused");
}

//! G1's filtered card post-barrier template as a JIT lays it out: a raw
//! reference store, the template inline, the slow-path stub out of line
//! calling the library's `fastpath::gc::g1_card_slow_entry`; run from the
//! `CodeCache` on a real `g1` heap, differentially against the library's
//! Rust `g1-card` barrier over the filter cases (`g1_world`), with the
//! card base from the thread block and as an immediate. And iced-x86
//! checks: per filter, the instructions to its exit; registers written ⊆
//! clobbers; the template writes no memory (the card is written by the
//! library), the stub only its stack slots.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

mod common;

use common::g1_world;
use common::x64::{check, check_stub};

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath_jit::reg::{x64::*, RegSet};
use fastpath_jit::*;

fn template(base: CardBase, region_shift: u8) -> G1Card {
    G1Card {
        addr: RSI,
        val: RDX,
        tmp: RAX,
        tmp2: RCX,
        base,
        region_shift,
        layout: ThreadLayout::fastpath().unwrap(),
    }
}

/// `store(block = rdi, field = rsi, value = rdx)`: `mov [rsi], rdx`, the
/// template, its stub calling `slow`.
fn store_function(cache: &CodeCache, t: &G1Card, slow: usize) -> (Entry, g1_world::Store) {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    // `sub rsp, 8`: rsp 16-aligned where the template runs (the stub's
    // precondition, as in a JIT's frame).
    dynasm!(ops ; .arch x64 ; sub rsp, 8 ; mov QWORD [rsi], rdx);
    t.emit(&mut ops, l).unwrap();
    dynasm!(ops ; .arch x64 ; =>l.done ; add rsp, 8 ; ret);
    SlowStub {
        func: slow,
        args: vec![RDI, RSI],
        ret: None,
        live: RegSet::of(&[RDI, RSI, RDX]),
    }
    .emit(&mut ops, l.slow, l.done)
    .unwrap();
    let e = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: a complete `extern "C" fn(block, field, value)` storing into
    // the field and running the barrier; called by `g1_world` with this
    // thread's block, on fields of its mutator's heap, between its stops.
    let f = unsafe { e.as_fn::<g1_world::Store>() };
    (e, f)
}

#[test]
fn g1_card_template_matches_the_rust_barrier_on_every_filter_case() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let shift = g1_world::region_shift();
    let slow = g1_world::slow_counted as *const () as usize;
    let (_e, f) = store_function(&cache, &template(CardBase::Thread(RDI), shift), slow);
    assert_eq!(g1_world::differential(f), 5);
}

/// The immediate base: the JIT reads the heap's biased base once and
/// embeds it (HotSpot's `byte_map_base`), so one heap, one thread.
#[test]
fn g1_card_template_with_an_immediate_base() {
    std::thread::spawn(|| {
        let h = fastpath::gc::Heap::new(g1_world::config()).unwrap();
        let mut m = h.mutator::<fastpath::gc::G1Barriers>().unwrap();
        let cache = CodeCache::new(64 * 1024).unwrap();
        let t = template(
            CardBase::Imm(g1_world::card_base() as u64),
            g1_world::region_shift(),
        );
        let (_e, f) = store_function(&cache, &t, g1_world::slow_counted as *const () as usize);
        let region = g1_world::config().region_bytes;
        let objs: Vec<_> = (0..4 * region / 32).map(|_| m.alloc(2, 0).unwrap()).collect();
        let addr = |i: usize| m.get(objs[i]).unwrap().addr();
        let f0 = g1_world::ref_field(addr(0), 0);
        let cross = (0..objs.len()).find(|&i| (addr(i) ^ f0) >= region).unwrap();
        let block = fastpath::thread::current().as_ptr();
        let s0 = g1_world::slow_calls();
        f(block, f0, addr(1));
        assert_eq!(
            (g1_world::card_of(f0), g1_world::slow_calls() - s0),
            (g1_world::CLEAN, 0)
        );
        f(block, f0, 0);
        assert_eq!(
            (g1_world::card_of(f0), g1_world::slow_calls() - s0),
            (g1_world::CLEAN, 0)
        );
        f(block, f0, addr(cross));
        assert_eq!(
            (g1_world::card_of(f0), g1_world::slow_calls() - s0),
            (g1_world::DIRTY, 1)
        );
        f(block, f0, addr(cross));
        assert_eq!(
            (g1_world::card_of(f0), g1_world::slow_calls() - s0),
            (g1_world::DIRTY, 1)
        );
        m.collect().unwrap();
        assert_eq!(g1_world::card_of(f0), g1_world::CLEAN, "the card was enqueued");
        drop(m);
        assert_eq!(h.stats().verify_errors, Vec::<String>::new());
    })
    .join()
    .unwrap();
}

#[test]
fn machine_checks_of_the_g1_card_template() {
    let shift = g1_world::region_shift();
    for base in [CardBase::Thread(R15), CardBase::Imm(0x7f00_1234_5000)] {
        let t = G1Card {
            addr: R8,
            val: R9,
            tmp: R10,
            tmp2: R11,
            ..template(base, shift)
        };
        // Same region: 4 (exits at the first `jz`); null: 6; a dirty card:
        // 11 (falls through after the `jne` to the stub). HotSpot's C2:
        // 4, 6 and 12.
        let exits = check(&t, &[]).exits();
        assert_eq!(exits, [4, 6, 11], "{base:?}");
        println!("G1 card post-barrier ({base:?}): same region 4, null 6, dirty card 11 instructions (HotSpot C2: 4, 6, 12)");
        let want = match base {
            CardBase::Thread(_) => RegSet::of(&[R10]),
            CardBase::Imm(_) => RegSet::of(&[R10, R11]),
        };
        assert_eq!(t.clobbers(Isa::X64), want);
    }
}

/// The stub: writes memory only through rsp (its pushes), one call, and
/// saves and restores every live caller-saved register (`check_stub`).
#[test]
fn the_g1_card_stub_writes_only_its_stack() {
    let saved = check_stub(&SlowStub {
        func: fastpath_jit::slow::g1_card as *const () as usize,
        args: vec![R15, R8],
        ret: None,
        live: RegSet::of(&[R15, R8, R9, RAX, RCX]),
    });
    assert_eq!(saved, RegSet::of(&[RAX, RCX, R8, R9]), "r15 is callee-saved");
}

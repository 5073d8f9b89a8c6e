//! The AArch64 lightweight monitor templates checked word by word against
//! reference encodings (GNU as 2.x, `.arch armv8.1-a`, thread x28, object
//! x0, temporaries x9–x13, lock-stack top at 4 and end at 200), with
//! `slow` bound right after the template; and the CAS's ordering bits.

mod common;

use common::a64::{all_words, words};
use fastpath_jit::reg::{aarch64::RTHREAD, Reg, RegError};
use fastpath_jit::{LockEnter, LockExit, LockRegs, LockStackLayout, TemplateError};

const LAYOUT: LockStackLayout = LockStackLayout { top: 4, end: 200 };
/// The temporaries by role: top x9, mark x11, slot x10, expected x12, CAS
/// result x13.
const TEMPS: [Reg; 5] = [Reg(9), Reg(11), Reg(10), Reg(12), Reg(13)];
fn regs() -> LockRegs {
    LockRegs::new(RTHREAD, Reg(0), &TEMPS).unwrap()
}

/// CAS family (`cas{,a,l,al}` 64-bit): its ordering bits.
fn cas_order(w: u32) -> Option<(bool, bool)> {
    (w & 0xffa0_7c00 == 0xc8a0_7c00).then_some((w >> 22 & 1 == 1, w >> 15 & 1 == 1))
}

#[test]
fn enter_matches_the_reference_and_acquires() {
    let w = words(&LockEnter {
        regs: regs(),
        layout: LAYOUT,
    })
    .unwrap();
    let want: [u32; 18] = [
        0xb940_0789, // ldr w9, [x28, #4]
        0x7103_213f, // cmp w9, #200
        0x5400_0202, // b.hs slow
        0x8b09_038a, // add x10, x28, x9
        0xf85f_814b, // ldur x11, [x10, #-8]
        0xeb00_017f, // cmp x11, x0
        0x5400_0120, // b.eq push
        0xf940_000b, // ldr x11, [x0]
        0x3708_014b, // tbnz x11, #1, slow
        0xb240_016c, // orr x12, x11, #1
        0x927f_f96b, // and x11, x11, #~1
        0xaa0c_03ed, // mov x13, x12
        0xc8ed_7c0b, // casa x13, x11, [x0]
        0xeb0c_01bf, // cmp x13, x12
        0x5400_0081, // b.ne slow
        0xf900_0140, // push: str x0, [x10]
        0x1100_2129, // add w9, w9, #8
        0xb900_0789, // str w9, [x28, #4]
    ];
    assert_eq!(w, want, "{:08x?}", w);
    let cas: Vec<_> = w.iter().filter_map(|&w| cas_order(w)).collect();
    assert_eq!(cas, [(true, false)], "one CAS, acquire");
    // Recursive path: 7 up to b.eq, then the 3 of push.
    println!("aarch64 enter: common 18, recursive {}", 7 + 3);
}

#[test]
fn exit_matches_the_reference_and_releases() {
    let w = words(&LockExit {
        regs: regs(),
        layout: LAYOUT,
    })
    .unwrap();
    let want: [u32; 18] = [
        0x3940_1389, // ldrb w9, [x28, #4]
        0x8b09_038a, // add x10, x28, x9
        0xf85f_814b, // ldur x11, [x10, #-8]
        0xeb00_017f, // cmp x11, x0
        0x5400_01c1, // b.ne slow
        0xf85f_014b, // ldur x11, [x10, #-16]
        0xeb00_017f, // cmp x11, x0
        0x5400_0120, // b.eq pop
        0xf940_000c, // ldr x12, [x0]
        0x927e_f58c, // and x12, x12, #~3
        0xb241_018c, // orr x12, x12, #1<<63
        0xb240_018b, // orr x11, x12, #1
        0xaa0c_03ed, // mov x13, x12
        0xc8ad_fc0b, // casl x13, x11, [x0]
        0xeb0c_01bf, // cmp x13, x12
        0x5400_0061, // b.ne slow
        0x5100_2129, // pop: sub w9, w9, #8
        0xb900_0789, // str w9, [x28, #4]
    ];
    assert_eq!(w, want, "{:08x?}", w);
    let cas: Vec<_> = w.iter().filter_map(|&w| cas_order(w)).collect();
    assert_eq!(cas, [(false, true)], "one CAS, release");
    println!("aarch64 exit: common 18, recursive {}", 8 + 2);
}

#[test]
fn bad_registers_and_offsets_are_errors() {
    assert_eq!(
        LockRegs::new(RTHREAD, Reg(0), &[Reg(9), Reg(9), Reg(11), Reg(12), Reg(13)]),
        Err(TemplateError::Register(RegError::Aliased(Reg(9))))
    );
    assert_eq!(
        LockRegs::new(RTHREAD, Reg(31), &TEMPS),
        Err(TemplateError::Register(RegError::NotARegister(Reg(31))))
    );
    let r = regs();
    assert_eq!((r.thread(), r.obj(), r.temps()), (RTHREAD, Reg(0), &TEMPS[..]));
    // x86-64's two temporaries are not enough for AArch64's form.
    let short = LockRegs::new(RTHREAD, Reg(0), &TEMPS[..2]).unwrap();
    assert_eq!(
        words(&LockEnter {
            regs: short,
            layout: LAYOUT
        }),
        Err(TemplateError::Temps { needed: 5, given: 2 })
    );
    let odd = LockStackLayout { top: 2, end: 200 };
    assert!(matches!(
        words(&LockEnter {
            regs: regs(),
            layout: odd
        }),
        Err(TemplateError::Offset { .. })
    ));
    // The published layout emits.
    assert!(words(&LockExit {
        regs: regs(),
        layout: LockStackLayout::fastpath().unwrap()
    })
    .is_ok());
}

/// The enter guessing fastpath's neutral header
/// (`0x8000_0000_0000_0001`): the loaded form's checks, the guess in two
/// words, the guessed `casa` and its hit to the push, then on a miss the
/// loaded form's checks and CAS on the word found (no second load); 17 on
/// the common path, both CASes acquire. Other guesses take one `movk` per
/// further non-zero half, and the budget follows.
#[test]
fn guessing_enter_matches_the_reference_and_acquires() {
    use fastpath_jit::{Isa, Template};
    let enter = LockEnter {
        regs: regs(),
        layout: LAYOUT,
    };
    let neutral = fastpath::gc::layout::INITIAL_HEADER as u64;
    let g = enter.guessing(neutral);
    let w = all_words(&g).unwrap();
    let want: [u32; 25] = [
        0xb940_0789, // ldr w9, [x28, #4]
        0x7103_213f, // cmp w9, #200
        0x5400_02e2, // b.hs slow
        0x8b09_038a, // add x10, x28, x9
        0xf85f_814b, // ldur x11, [x10, #-8]
        0xeb00_017f, // cmp x11, x0
        0x5400_0200, // b.eq push
        0xd280_002c, // movz x12, #1
        0xf2f0_000c, // movk x12, #0x8000, lsl #48
        0xd100_058b, // sub x11, x12, #1
        0xaa0c_03ed, // mov x13, x12
        0xc8ed_7c0b, // casa x13, x11, [x0]
        0xeb0c_01bf, // cmp x13, x12
        0x5400_0120, // b.eq push
        0xaa0d_03eb, // mov x11, x13: the header found
        0x3708_014b, // tbnz x11, #1, slow
        0xb240_016c, // orr x12, x11, #1
        0x927f_f96b, // and x11, x11, #~1
        0xaa0c_03ed, // mov x13, x12
        0xc8ed_7c0b, // casa x13, x11, [x0]
        0xeb0c_01bf, // cmp x13, x12
        0x5400_0081, // b.ne slow
        0xf900_0140, // push: str x0, [x10]
        0x1100_2129, // add w9, w9, #8
        0xb900_0789, // str w9, [x28, #4]
    ];
    assert_eq!(w, want, "{:08x?}", w);
    let cas: Vec<_> = w.iter().filter_map(|&w| cas_order(w)).collect();
    assert_eq!(cas, [(true, false), (true, false)], "two CASes, each acquire");
    // Right guess: 14 up to the hit's b.eq, then the 3 of push.
    assert_eq!(g.budget(Isa::Aarch64), 14 + 3);
    // The lock bits of the guess are forced to 01; each further non-zero
    // half costs a movk.
    assert_eq!(all_words(&enter.guessing(neutral & !3)).unwrap(), want);
    for (guess, n) in [(0u64, 24), (u64::MAX, 27), (0x0001_0002_0003_0005, 27)] {
        let g = enter.guessing(guess);
        assert_eq!(all_words(&g).unwrap().len(), n, "{guess:#x}");
        assert_eq!(
            g.budget(Isa::Aarch64),
            n - 8,
            "{guess:#x}: the miss path's 8 are off it"
        );
    }
}

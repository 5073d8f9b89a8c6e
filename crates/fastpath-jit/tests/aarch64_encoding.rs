//! AArch64 templates checked word by word against reference encodings (Arm
//! ARM, as GNU as assembles them), on any host: emitting is pure bit
//! manipulation. The words also give each template's instruction count.

mod common;

use common::a64::{check_stub_words, stub_words, words};
use fastpath::spin::{PauseInstruction, SpinPause};
use fastpath_jit::reg::{aarch64::*, Reg};
use fastpath_jit::{
    BrooksReadBarrier, BrooksStoreVal, BrooksWriteBarrier, CardBase, CardMark, G1Card, GcBarrier,
    GcStateTest, Isa, SafepointPoll, SpinWait, Template, TemplateError, ThreadLayout,
};

fn layout(dirty_card: u8) -> ThreadLayout {
    ThreadLayout {
        gc_state: 16,
        marking_bit: 1,
        has_forwarded_bit: 4,
        poll: 17,
        poll_bit: 1,
        card_table_base: 8,
        card_shift: 9,
        dirty_card,
        tlab_top: 24,
        tlab_end: 32,
    }
}

#[test]
fn poll_and_idle_tests_are_ldrb_tbnz() {
    let poll = SafepointPoll {
        thread: RTHREAD,
        tmp: X9,
        layout: layout(0),
    };
    // ldrb w9, [x28, #17] ; tbnz w9, #0, .+4
    assert_eq!(words(&poll).unwrap(), [0x3940_4789, 0x3700_0029]);
    let satb = GcStateTest {
        barrier: GcBarrier::Satb,
        thread: RTHREAD,
        tmp: X9,
        layout: layout(0),
    };
    // ldrb w9, [x28, #16] ; tbnz w9, #0, .+4
    assert_eq!(words(&satb).unwrap(), [0x3940_4389, 0x3700_0029]);
    let lrb = GcStateTest {
        barrier: GcBarrier::Lrb,
        ..satb
    };
    // ldrb w9, [x28, #16] ; tbnz w9, #2, .+4
    assert_eq!(words(&lrb).unwrap(), [0x3940_4389, 0x3710_0029]);
    let two_bits = GcStateTest {
        layout: ThreadLayout {
            has_forwarded_bit: 6,
            ..layout(0)
        },
        ..lrb
    };
    assert_eq!(words(&two_bits), Err(TemplateError::NotOneBit(6)));
    let far = SafepointPoll {
        layout: ThreadLayout {
            poll: 4096,
            ..layout(0)
        },
        ..poll
    };
    assert!(matches!(
        words(&far),
        Err(TemplateError::Offset { offset: 4096, .. })
    ));
}

#[test]
fn brooks_read_barrier_is_one_ldur() {
    // ldur x3, [x3, #-8]
    assert_eq!(
        words(&BrooksReadBarrier {
            obj: Reg(3),
            forwarding: -8
        })
        .unwrap(),
        [0xF85F_8063]
    );
    assert!(words(&BrooksReadBarrier {
        obj: Reg(3),
        forwarding: 256
    })
    .is_err());
}

#[test]
fn card_mark_is_lsr_ldr_strb() {
    let card = CardMark {
        base: CardBase::Thread(RTHREAD),
        addr: Reg(1),
        tmp: Reg(11),
        tmp2: Reg(12),
        conditional: false,
        layout: layout(0),
    };
    // lsr x1, x1, #9 ; ldr x11, [x28, #8] ; strb wzr, [x11, x1]
    assert_eq!(words(&card).unwrap(), [0xD349_FC21, 0xF940_078B, 0x3821_697F]);
    let card1 = CardMark {
        layout: layout(1),
        ..card
    };
    // ... ; movz w12, #1 ; strb w12, [x11, x1]
    assert_eq!(
        words(&card1).unwrap(),
        [0xD349_FC21, 0xF940_078B, 0x5280_002C, 0x3821_696C]
    );
    // Conditional: ... ; ldrb w12, [x11, x1] ; cbz w12, done ; strb wzr, [x11, x1]
    let cond = CardMark {
        conditional: true,
        ..card
    };
    assert_eq!(
        words(&cond).unwrap(),
        [0xD349_FC21, 0xF940_078B, 0x3861_696C, 0x3400_004C, 0x3821_697F]
    );
    let misaligned = CardMark {
        layout: ThreadLayout {
            card_table_base: 12,
            ..layout(0)
        },
        ..card
    };
    assert!(words(&misaligned).is_err());
    let immediate = CardMark {
        base: CardBase::Imm(0x1000),
        ..card
    };
    assert_eq!(
        words(&immediate),
        Err(TemplateError::Unsupported {
            what: "an immediate card-table base",
            isa: Isa::Aarch64
        })
    );
}

#[test]
fn g1_card_is_eor_lsr_cbz_cbz_lsr_ldr_ldrb_cbnz() {
    let g1 = G1Card {
        base: CardBase::Thread(RTHREAD),
        addr: Reg(1),
        val: Reg(2),
        tmp: Reg(11),
        tmp2: Reg(12),
        region_shift: 16,
        layout: layout(0),
    };
    // eor x11, x1, x2 ; lsr x11, x11, #16 ; cbz x11, done ; cbz x2, done ;
    // lsr x11, x1, #9 ; ldr x12, [x28, #8] ; ldrb w12, [x12, x11] ;
    // cbnz w12, slow
    assert_eq!(
        words(&g1).unwrap(),
        [
            0xCA02_002B,
            0xD350_FD6B,
            0xB400_00CB,
            0xB400_00A2,
            0xD349_FC2B,
            0xF940_078C,
            0x386B_698C,
            0x3500_002C
        ]
    );
    // A non-zero dirty value: ... ; cmp w12, #0x5a ; b.ne slow.
    let g1_5a = G1Card {
        layout: layout(0x5a),
        ..g1
    };
    assert_eq!(
        words(&g1_5a).unwrap(),
        [
            0xCA02_002B,
            0xD350_FD6B,
            0xB400_00EB,
            0xB400_00C2,
            0xD349_FC2B,
            0xF940_078C,
            0x386B_698C,
            0x7101_699F,
            0x5400_0021
        ]
    );
    for bad in [
        G1Card {
            region_shift: 0,
            ..g1
        },
        G1Card {
            layout: ThreadLayout {
                card_table_base: 12,
                ..layout(0)
            },
            ..g1
        },
    ] {
        assert!(words(&bad).is_err());
    }
}

#[test]
fn spin_wait_words() {
    let cases = [
        (PauseInstruction::Isb, 0xD503_3FDF),
        (PauseInstruction::Yield, 0xD503_203F),
        (PauseInstruction::Nop, 0xD503_201F),
        (PauseInstruction::Sb, 0xD503_30FF),
    ];
    for (instruction, word) in cases {
        let s = SpinWait::for_instruction(SpinPause {
            instruction,
            repeat: 2,
        });
        assert_eq!(words(&s).unwrap(), [word, word]);
    }
    let none = SpinWait::for_instruction(SpinPause {
        instruction: PauseInstruction::None,
        repeat: 3,
    });
    assert!(words(&none).unwrap().is_empty());
    let pause = SpinPause {
        instruction: PauseInstruction::Pause,
        repeat: 1,
    };
    assert_eq!(
        words(&SpinWait::for_instruction(pause)),
        Err(TemplateError::Unsupported {
            what: "pause",
            isa: Isa::Aarch64
        })
    );
}

#[test]
fn brooks_write_barrier_is_ldrb_tbnz_per_bit_ldur() {
    let wb = BrooksWriteBarrier {
        thread: RTHREAD,
        obj: Reg(3),
        tmp: X9,
        gc_state: 16,
        state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
        forwarding: -8,
    };
    // ldrb w9, [x28, #16] ; tbnz w9, #1, .+12 ; tbnz w9, #2, .+8 ;
    // ldur x3, [x3, #-8]
    assert_eq!(
        words(&wb).unwrap(),
        [0x3940_4389, 0x3708_0069, 0x3710_0049, 0xF85F_8063]
    );
    assert_eq!(wb.budget(Isa::Aarch64), 4);
    assert_eq!(
        wb.clobbers(Isa::Aarch64),
        fastpath_jit::reg::RegSet::of(&[Reg(3), X9])
    );
    // cbz x5, .+8 ; ldur x5, [x5, #-8]
    let sv = BrooksStoreVal {
        val: Reg(5),
        forwarding: -8,
    };
    assert_eq!(words(&sv).unwrap(), [0xB400_0045, 0xF85F_80A5]);
    // Values the instructions cannot take: errors, nothing panics.
    assert_eq!(
        words(&BrooksWriteBarrier { state_bits: 0, ..wb }),
        Err(TemplateError::NoBit)
    );
    assert!(words(&BrooksWriteBarrier {
        forwarding: 256,
        ..wb
    })
    .is_err());
    assert!(words(&BrooksWriteBarrier { gc_state: 4096, ..wb }).is_err());
    assert!(words(&BrooksStoreVal {
        forwarding: -257,
        ..sv
    })
    .is_err());
}

/// The slow-path stub as the Brooks write barrier, G1 card, SATB and
/// monitor tests lay it out: saves and restores every live caller-saved
/// register but the result and x30, marshals the arguments, one call
/// (`check_stub_words`); and the check catches a stub that does not save
/// a live register it declares.
#[test]
fn slow_stubs_save_what_they_declare() {
    use fastpath_jit::reg::RegSet;
    use fastpath_jit::SlowStub;
    let stub = |func: usize, args: Vec<Reg>, ret, live| SlowStub {
        func,
        args,
        ret,
        live,
    };
    let brooks = fastpath_jit::slow::brooks_wb as *const () as usize;
    let g1 = fastpath_jit::slow::g1_card as *const () as usize;
    let satb = fastpath_jit::slow::satb_enqueue as *const () as usize;
    for (s, want) in [
        // Brooks WB: (block, object) -> the object to write, in its register.
        (
            stub(brooks, vec![X0, X1], Some(X1), RegSet::of(&[X0, X2, X3])),
            RegSet::of(&[X0, X2, X3]),
        ),
        (
            stub(
                brooks,
                vec![RTHREAD, X9],
                Some(X9),
                RegSet::of(&[RTHREAD, X9, X1, Reg(20)]),
            ),
            RegSet::of(&[X1]),
        ),
        // G1 card: (block, field), no result.
        (
            stub(g1, vec![X0, X1], None, RegSet::of(&[X0, X1, X2])),
            RegSet::of(&[X0, X1, X2]),
        ),
        (
            stub(
                g1,
                vec![RTHREAD, Reg(10)],
                None,
                RegSet::of(&[RTHREAD, Reg(10), Reg(11), Reg(18)]),
            ),
            RegSet::of(&[Reg(10), Reg(11), Reg(18)]),
        ),
        // SATB: (block, previous value); the result in x0 needs no move.
        (
            stub(satb, vec![X0, X2], None, RegSet::of(&[X0, X1])),
            RegSet::of(&[X0, X1]),
        ),
        (
            stub(brooks, vec![X1, X0], Some(X0), RegSet::of(&[X0, X1])),
            RegSet::of(&[X1]),
        ),
    ] {
        assert_eq!(check_stub_words(&s, &stub_words(&s)), want, "{s:?}");
    }
    let declared = stub(brooks, vec![X0, X1], Some(X1), RegSet::of(&[X0, X2, X3]));
    let forgetful = stub(brooks, vec![X0, X1], Some(X1), RegSet::of(&[X0, X3]));
    let caught =
        std::panic::catch_unwind(|| check_stub_words(&declared, &stub_words(&forgetful))).unwrap_err();
    let msg = caught.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("saves first"), "{msg}");
}

/// A template's words with only `slow` bound after them (the data store
/// under the Brooks write barrier binds `done` itself); the count checked
/// against the budget.
fn words_binding_slow<T: fastpath_jit::Emit<dynasmrt::aarch64::Aarch64Relocation>>(
    t: &T,
) -> Result<Vec<u32>, TemplateError> {
    use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
    let mut ops = VecAssembler::<dynasmrt::aarch64::Aarch64Relocation>::new(0);
    let labels = fastpath_jit::Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    t.emit(&mut ops, labels)?;
    let n = ops.offset().0 / 4;
    dynasm!(ops ; .arch aarch64 ; =>labels.slow ; brk 0);
    let code = ops.finalize().unwrap();
    assert!(n <= t.budget(Isa::Aarch64), "{}: {n}", t.name());
    Ok(code[..4 * n]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// The data loads and stores, word by word (GNU as's encodings): the
/// scaled, unscaled and register-offset forms, sign extension, the
/// forwarding load, the Brooks write barrier's test, and the refusals of
/// offsets no form takes.
#[test]
fn data_accesses_are_the_expected_words() {
    use fastpath_jit::{DataBarrier, DataLoad, DataStore, DataWidth};
    let load = |width, index, offset, barrier| DataLoad {
        obj: X1,
        dst: X9,
        index,
        offset,
        width,
        barrier,
    };
    let fwd = DataBarrier::Forwarded { forwarding: -8 };
    let none = DataBarrier::None;
    // ldrb w9, [x1, #24]
    assert_eq!(
        words(&load(DataWidth::U8, None, 24, none)).unwrap(),
        [0x3940_6029]
    );
    // ldur x9, [x1, #-8] ; ldrsb x9, [x9, #24]
    assert_eq!(
        words(&load(DataWidth::I8, None, 24, fwd)).unwrap(),
        [0xf85f_8029, 0x3980_6129]
    );
    // add x9, x1, #32 ; ldrsw x9, [x9, x2, lsl #2]
    assert_eq!(
        words(&load(DataWidth::I32, Some(X2), 32, none)).unwrap(),
        [0x9100_8029, 0xb8a2_7929]
    );
    // ldrh w9, [x1, x2, lsl #1]
    assert_eq!(
        words(&load(DataWidth::U16, Some(X2), 0, none)).unwrap(),
        [0x7862_7829]
    );
    // ldrb w9, [x1, x2]
    assert_eq!(
        words(&load(DataWidth::U8, Some(X2), 0, none)).unwrap(),
        [0x3862_6829]
    );
    // ldur w9, [x1, #-4]
    assert_eq!(
        words(&load(DataWidth::U32, None, -4, none)).unwrap(),
        [0xb85f_c029]
    );
    for (width, index, offset) in [
        (DataWidth::U64, None, 8 * 4096),
        (DataWidth::U16, None, -258),
        (DataWidth::U8, Some(X2), 4096),
        (DataWidth::U8, Some(X2), -8),
    ] {
        assert!(
            matches!(
                words(&load(width, index, offset, none)),
                Err(TemplateError::Offset { .. })
            ),
            "{width:?} {index:?} {offset}"
        );
    }
    let store = |width, index, offset, barrier| DataStore {
        thread: RTHREAD,
        obj: Reg(19),
        src: X3,
        index,
        tmp: Reg(10),
        tmp2: Reg(11),
        offset,
        width,
        barrier,
    };
    let wb = DataBarrier::BrooksWrite {
        gc_state: 4,
        state_bits: 6,
        forwarding: -8,
    };
    // ldrb w10, [x28, #4] ; tbnz w10, #1, slow ; tbnz w10, #2, slow ;
    // ldur x19, [x19, #-8] ; done: add x10, x19, #40 ; strh w3, [x10, x2, lsl #1]
    assert_eq!(
        words_binding_slow(&store(DataWidth::I16, Some(X2), 40, wb)).unwrap(),
        [
            0x3940_138a,
            0x3708_00aa,
            0x3710_008a,
            0xf85f_8273,
            0x9100_a26a,
            0x7822_7943
        ]
    );
    // ldur x19, [x19, #-8] ; str x3, [x19, #16]
    assert_eq!(
        words(&store(DataWidth::U64, None, 16, fwd)).unwrap(),
        [0xf85f_8273, 0xf900_0a63]
    );
    // sturb w3, [x19, #-1]
    assert_eq!(
        words(&store(DataWidth::U8, None, -1, none)).unwrap(),
        [0x381f_f263]
    );
    // strb w3, [x19, x2]
    assert_eq!(
        words(&store(DataWidth::I8, Some(X2), 0, none)).unwrap(),
        [0x3822_6a63]
    );
    let s = store(DataWidth::U8, Some(X2), 8, wb);
    assert_eq!(
        s.operands(Isa::Aarch64),
        [RTHREAD, Reg(19), X3, X2, Reg(10)],
        "the write barrier's state byte and the element address in tmp"
    );
    // Compressed reference slots: a W access, decoded by `lsl #3` after a
    // load, encoded by `lsr #3` into tmp (an element at an offset: tmp2)
    // before a store; full-width ones are the 64-bit access.
    let compressed = DataWidth::Ref(fastpath_jit::RefWidth::Compressed);
    // ldr w9, [x1, #20] ; lsl x9, x9, #3
    assert_eq!(
        words(&load(compressed, None, 20, none)).unwrap(),
        [0xb940_1429, 0xd37d_f129]
    );
    // ldr w9, [x1, x2, lsl #2] ; lsl x9, x9, #3
    assert_eq!(
        words(&load(compressed, Some(X2), 0, none)).unwrap(),
        [0xb862_7829, 0xd37d_f129]
    );
    // lsr x10, x3, #3 ; str w10, [x19, #20]
    assert_eq!(
        words(&store(compressed, None, 20, none)).unwrap(),
        [0xd343_fc6a, 0xb900_166a]
    );
    // lsr x11, x3, #3 ; add x10, x19, #16 ; str w11, [x10, x2, lsl #2]
    assert_eq!(
        words(&store(compressed, Some(X2), 16, none)).unwrap(),
        [0xd343_fc6b, 0x9100_426a, 0xb822_794b]
    );
    assert_eq!(
        store(compressed, Some(X2), 16, none).operands(Isa::Aarch64),
        [Reg(19), X3, X2, Reg(10), Reg(11)],
        "the element's address in tmp, the encoded value in tmp2"
    );
    assert_eq!(
        store(compressed, None, 16, none).operands(Isa::Aarch64),
        [Reg(19), X3, Reg(10)],
        "the encoded value in tmp"
    );
    let full = DataWidth::Ref(fastpath_jit::RefWidth::Full);
    assert_eq!(
        words(&load(full, None, 24, none)).unwrap(),
        words(&load(DataWidth::U64, None, 24, none)).unwrap()
    );
    assert_eq!(
        words(&store(full, Some(X2), 16, none)).unwrap(),
        words(&store(DataWidth::U64, Some(X2), 16, none)).unwrap()
    );
    // Unscaled reference slots: the W access alone, the address itself
    // (no shift, no scratch for the value).
    let unscaled = DataWidth::Ref(fastpath_jit::RefWidth::Unscaled);
    // ldr w9, [x1, #20]
    assert_eq!(words(&load(unscaled, None, 20, none)).unwrap(), [0xb940_1429]);
    // ldr w9, [x1, x2, lsl #2]
    assert_eq!(words(&load(unscaled, Some(X2), 0, none)).unwrap(), [0xb862_7829]);
    // str w3, [x19, #20]
    assert_eq!(words(&store(unscaled, None, 20, none)).unwrap(), [0xb900_1663]);
    // stur w3, [x19, #-4]
    assert_eq!(words(&store(unscaled, None, -4, none)).unwrap(), [0xb81f_c263]);
    // add x10, x19, #16 ; str w3, [x10, x2, lsl #2]
    assert_eq!(
        words(&store(unscaled, Some(X2), 16, none)).unwrap(),
        [0x9100_426a, 0xb822_7943]
    );
    assert_eq!(
        store(unscaled, Some(X2), 16, none).operands(Isa::Aarch64),
        [Reg(19), X3, X2, Reg(10)],
        "the element's address in tmp, no tmp2"
    );
    assert_eq!(
        store(unscaled, None, 16, none).operands(Isa::Aarch64),
        [Reg(19), X3],
        "no scratch"
    );
    for (index, offset) in [(None, 20), (None, -4), (Some(X2), 0), (Some(X2), 16)] {
        for barrier in [none, fwd, wb] {
            let what = format!("{index:?} {offset} {barrier:?}");
            assert_eq!(
                words_binding_slow(&store(unscaled, index, offset, barrier)).unwrap(),
                words_binding_slow(&store(DataWidth::U32, index, offset, barrier)).unwrap(),
                "store {what}"
            );
            if barrier != wb {
                assert_eq!(
                    words(&load(unscaled, index, offset, barrier)).unwrap(),
                    words(&load(DataWidth::U32, index, offset, barrier)).unwrap(),
                    "load {what}"
                );
            }
        }
    }
}

/// The reference CAS in every width, word by word with `slow` and `done`
/// bound after it (GNU as's encodings): the compressed form CASes the
/// encoded values in W registers and decodes the witness before the
/// compare; the unscaled form is the full one with a W `casal` (the
/// witness zero-extended); the success path is the budget (compressed 6,
/// full and unscaled 4).
#[test]
fn reference_cas_words_in_every_width() {
    use common::a64::all_words;
    use fastpath_jit::{CasRef, RefWidth};
    let cas = CasRef {
        thread: RTHREAD,
        addr: X1,
        expected: X2,
        new: X3,
        old: X4,
        tmp: Reg(5),
        layout: layout(0),
        refs: RefWidth::Compressed,
    };
    let tail = [
        0xeb02_009f, // cmp x4, x2
        0x5400_0060, // b.eq done
        0x3940_4385, // ldrb w5, [x28, #16]
        0x3710_0025, // tbnz w5, #2, slow
    ];
    let cases: [(RefWidth, &[u32], usize); 3] = [
        (
            RefWidth::Compressed,
            &[
                0xd343_fc44, // lsr x4, x2, #3
                0xd343_fc65, // lsr x5, x3, #3
                0x88e4_fc25, // casal w4, w5, [x1]
                0xd37d_f084, // lsl x4, x4, #3
            ],
            6,
        ),
        (
            RefWidth::Full,
            &[
                0xaa02_03e4, // mov x4, x2
                0xc8e4_fc23, // casal x4, x3, [x1]
            ],
            4,
        ),
        (
            RefWidth::Unscaled,
            &[
                0xaa02_03e4, // mov x4, x2
                0x88e4_fc23, // casal w4, w3, [x1]
            ],
            4,
        ),
    ];
    for (refs, head, budget) in cases {
        let c = CasRef { refs, ..cas };
        let want: Vec<u32> = head.iter().chain(&tail).copied().collect();
        assert_eq!(all_words(&c).unwrap(), want, "{refs:?}");
        assert_eq!(c.budget(Isa::Aarch64), budget, "{refs:?}");
    }
    let unscaled = CasRef {
        refs: RefWidth::Unscaled,
        ..cas
    };
    assert_eq!(
        unscaled.clobbers(Isa::Aarch64),
        fastpath_jit::reg::RegSet::of(&[X4, Reg(5)]),
        "the witness, the state byte"
    );
}

/// The SATB enqueue's field load in the 4-byte widths: the compressed one
/// a W load, its null test on the W register, then the decoding `lsl`;
/// the unscaled one the W load and its null test alone.
#[test]
fn satb_enqueue_decodes_a_compressed_field() {
    use fastpath_jit::{RefWidth, SatbEnqueue, SatbQueueLayout};
    let satb = SatbEnqueue {
        thread: RTHREAD,
        field: X1,
        prev: X2,
        tmp: X3,
        tmp2: X4,
        queue: SatbQueueLayout {
            index: 32,
            buffer: 40,
        },
        refs: RefWidth::Compressed,
    };
    let w = words(&satb).unwrap();
    assert_eq!(w.len(), 9);
    // ldr w2, [x1] ; cbz w2, done (8 words on) ; lsl x2, x2, #3
    assert_eq!(w[..3], [0xb940_0022, 0x3400_0102, 0xd37d_f042]);
    let unscaled = SatbEnqueue {
        refs: RefWidth::Unscaled,
        ..satb
    };
    let u = words(&unscaled).unwrap();
    assert_eq!((u.len(), unscaled.budget(Isa::Aarch64)), (8, 8));
    // ldr w2, [x1] ; cbz w2, done (7 words on), then the compressed form's
    // words after its `lsl`
    assert_eq!(u[..2], [0xb940_0022, 0x3400_00e2]);
    assert_eq!(u[2..], w[3..]);
}

/// The LRB collection-set path in the compact format, word by word: the
/// null and collection-set tests, then the layout word's 8 bytes loaded,
/// bit 31 tested (`tbz w`: not copied yet, to `slow`), cleared (`and`,
/// the 64-bit logical immediate `~(1 << 31)`) and the halves rotated back
/// into the object's register (`ror #32`): `forwardee_of_layout_word`.
#[test]
fn lrb_cset_compact_decodes_the_forwarded_word() {
    use fastpath_jit::{CellFormat, CsetMap, LrbCset, ObjectLayout};
    let lrb = LrbCset {
        obj: X1,
        tmp: X2,
        tmp2: X3,
        cset: CsetMap {
            biased: 0x1234_5678_9abc,
            region_shift: 19,
        },
        forwardee: ObjectLayout::fastpath(CellFormat::Compact).unwrap().forwardee,
    };
    let w = words(&lrb).unwrap();
    assert_eq!((w.len(), lrb.budget(Isa::Aarch64)), (12, 12));
    assert_eq!(
        w,
        [
            0xb400_0181, // cbz x1, done
            0xd353_fc22, // lsr x2, x1, #19
            0xd293_5783, // movz x3, #0x9abc
            0xf2aa_cf03, // movk x3, #0x5678, lsl #16
            0xf2c2_4683, // movk x3, #0x1234, lsl #32
            0xf2e0_0003, // movk x3, #0, lsl #48
            0x3862_6862, // ldrb w2, [x3, x2]
            0x3600_00a2, // tbz w2, #0, done
            0xf840_8022, // ldur x2, [x1, #8]
            0x36f8_0062, // tbz w2, #31, slow
            0x9260_f842, // and x2, x2, #0xffffffff7fffffff
            0x93c2_8041, // ror x1, x2, #32
        ]
    );
}

//! The SATB enqueue and LRB collection-set medium paths as a JIT lays them
//! out (`common::frame::idle_then_medium`): the idle test inline, the
//! medium path out of line at its `slow` label, the slow-path stub (the
//! medium path's slow call) calling a Rust `extern "C"` function; run on
//! the host's ISA (x86-64; AArch64 natively or under qemu in .ci/aarch64)
//! from the `CodeCache` against a hand-built thread block, SATB buffer,
//! heap in either cell format and collection-set map (`gc_world`'s
//! scenarios), and the LRB with the library's slow path on real concurrent
//! heaps of both formats (`lrb_real`); the Cranelift forms run the same
//! cases. And the machine checks:
//! on x86-64 iced-x86's (registers written ⊆ clobbers, counts within
//! budget, memory written only the thread block and the SATB buffer, the
//! stubs' saves); on every host AArch64's counts against their budgets.
#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

mod common;

use common::a64::count;
use common::frame::idle_then_medium_function;
use common::gc_world::{self, layout, queue};
use fastpath::code::{CodeCache, Entry};
use fastpath_jit::reg::{aarch64, x64, Reg, RegSet};
use fastpath_jit::*;

#[cfg(target_arch = "x86_64")]
type Host = dynasmrt::x64::X64Relocation;
#[cfg(target_arch = "aarch64")]
type Host = dynasmrt::aarch64::Aarch64Relocation;

/// The host's registers: the generated function's first three arguments
/// (thread; the field or the object; the LRB's field) and three scratch.
fn regs() -> ([Reg; 3], [Reg; 3]) {
    match <Host as Arch>::ISA {
        Isa::X64 => ([x64::RDI, x64::RSI, x64::RDX], [x64::RCX, x64::R8, x64::RAX]),
        Isa::Aarch64 => (
            [aarch64::X0, aarch64::X1, aarch64::X2],
            [aarch64::X3, aarch64::X4, Reg(5)],
        ),
    }
}

/// The host's idle test of `barrier` on a block of `layout`: thread and
/// scratch.
fn idle_test(barrier: GcBarrier, layout: ThreadLayout) -> GcStateTest {
    let ([thread, ..], [tmp, ..]) = regs();
    GcStateTest {
        barrier,
        thread,
        tmp,
        layout,
    }
}

/// fn(thread, field) -> void: the SATB barrier of a store to `field`, its
/// stub the enqueue's slow call (`gc_world::satb_flush` in the library's
/// place).
fn satb_function(cache: &CodeCache) -> Entry {
    satb_function_in(cache, RefWidth::Full)
}

/// [`satb_function`] for a field of width `refs`.
fn satb_function_in(cache: &CodeCache, refs: RefWidth) -> Entry {
    let ([thread, field, prev], [tmp, tmp2, _]) = regs();
    let idle = idle_test(GcBarrier::Satb, layout());
    let enqueue = SatbEnqueue {
        thread,
        field,
        prev,
        tmp,
        tmp2,
        queue: queue(),
        refs,
    };
    let flush = gc_world::satb_flush as *const () as usize;
    let stub = enqueue
        .slow_call()
        .unwrap()
        .stub(flush, &[], RegSet::of(&[thread, field]));
    idle_then_medium_function::<Host>(cache, &idle, &enqueue, &stub.unwrap(), None)
}

/// fn(thread, obj, field) -> obj as the caller may use it: the LRB idle
/// test on a block of `layout`, the collection-set medium path on `cset`
/// resolving copies through `forwardee`, its stub the slow call with the
/// thread and the field (`slow`, the library's signature).
fn lrb_function(
    cache: &CodeCache,
    layout: ThreadLayout,
    cset: CsetMap,
    forwardee: Forwardee,
    slow: usize,
) -> Entry {
    let ([thread, obj, field], [tmp, tmp2, _]) = regs();
    let idle = idle_test(GcBarrier::Lrb, layout);
    let medium = LrbCset {
        obj,
        tmp,
        tmp2,
        cset,
        forwardee,
    };
    let live = RegSet::of(&[thread, field]);
    let stub = medium.slow_call().unwrap().stub(slow, &[thread, field], live);
    idle_then_medium_function::<Host>(cache, &idle, &medium, &stub.unwrap(), Some(obj))
}

common::cases::gc_medium_tests!(satb_function, lrb_function);

/// The SATB enqueue on real slots of every width: the previous value
/// decoded from a compressed slot, or read as the address itself from an
/// unscaled one, between two others.
#[test]
fn satb_records_decoded_previous_values_of_real_slots_in_every_width() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    for refs in [RefWidth::Full, RefWidth::Compressed, RefWidth::Unscaled] {
        let e = satb_function_in(&cache, refs);
        // SAFETY: an `extern "C" fn(*mut TestThread, *mut u64)` reading the
        // field (a real slot of `refs`' width) and the test block, writing
        // the block and its buffer.
        let barrier: gc_world::SatbFn = unsafe { e.as_fn() };
        std::thread::spawn(move || gc_world::satb_records_decoded_values_of_real_slots(barrier, refs))
            .join()
            .unwrap();
    }
}

/// fn(thread, _, field) -> the reference to use: the field's reference
/// loaded by the data template at width `refs` (decoded when compressed,
/// zero-extended when unscaled),
/// then the LRB as [`lrb_function`] lays it out.
fn lrb_load_function_in(
    refs: RefWidth,
    cache: &CodeCache,
    layout: ThreadLayout,
    cset: CsetMap,
    forwardee: Forwardee,
    slow: usize,
) -> Entry {
    use common::frame::{idle_then_medium, Frame};
    use dynasmrt::VecAssembler;
    let ([thread, obj, field], [tmp, tmp2, _]) = regs();
    let load = DataLoad {
        obj: field,
        dst: obj,
        index: None,
        offset: 0,
        width: DataWidth::Ref(refs),
        barrier: DataBarrier::None,
    };
    let idle = idle_test(GcBarrier::Lrb, layout);
    let medium = LrbCset {
        obj,
        tmp,
        tmp2,
        cset,
        forwardee,
    };
    let live = RegSet::of(&[thread, field]);
    let stub = medium
        .slow_call()
        .unwrap()
        .stub(slow, &[thread, field], live)
        .unwrap();
    let mut ops = VecAssembler::<Host>::new(0);
    Host::prologue(&mut ops);
    let unused = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    load.emit(&mut ops, unused).unwrap();
    idle_then_medium(&mut ops, &idle, &medium, &stub, |ops| {
        Host::epilogue(ops, Some(obj))
    });
    cache.install(&ops.finalize().unwrap()).unwrap()
}

/// The load at width `refs` ([`lrb_load_function_in`]) and the LRB on a
/// `shenandoah` heap of those slots in each cell format, each on its own
/// thread (`lrb_real`): copies resolved inline, the rest evacuated by the
/// library, which heals the slot with the copy's encoding.
fn lrb_after_a_load_heals_real_slots(refs: RefWidth) {
    for format in [CellFormat::Compact, CellFormat::Brooks] {
        let build = move |cache: &CodeCache, layout, cset, forwardee, slow| {
            lrb_load_function_in(refs, cache, layout, cset, forwardee, slow)
        };
        std::thread::spawn(move || common::lrb_real::lrb_resolves_real_copies_in(build, format, refs))
            .join()
            .unwrap();
    }
}

/// The compressed load and the LRB on a compressed `shenandoah` heap of
/// each cell format: copies resolved inline, the rest evacuated by the
/// library, which heals the slot with the copy's encoding.
#[test]
fn lrb_after_a_compressed_load_heals_real_slots_with_encoded_copies() {
    lrb_after_a_load_heals_real_slots(RefWidth::Compressed);
}

/// The unscaled load (the slot's 32 bits, zero-extended) and the LRB on an
/// unscaled `shenandoah` heap of each cell format: copies resolved inline,
/// the rest evacuated by the library, which heals the 4-byte slot with the
/// copy's address.
#[test]
fn lrb_after_an_unscaled_load_heals_real_slots_with_copies() {
    lrb_after_a_load_heals_real_slots(RefWidth::Unscaled);
}

/// fastpath's words that record a copy, in each cell format.
fn forwardees() -> [Forwardee; 2] {
    [CellFormat::Brooks, CellFormat::Compact].map(|f| ObjectLayout::fastpath(f).unwrap().forwardee)
}

/// The medium paths with fastpath's published queue offsets and a
/// 64-bit map address: each ISA's count equals its budget (all branches
/// falling through: a value buffered, a forwarded object), in each cell
/// format.
#[test]
fn aarch64_counts_are_the_budgets() {
    use aarch64::*;
    let satb = SatbEnqueue {
        thread: RTHREAD,
        field: X1,
        prev: X2,
        tmp: X3,
        tmp2: X4,
        queue: SatbQueueLayout::fastpath().unwrap(),
        refs: fastpath_jit::RefWidth::Full,
    };
    let n = count(&|o, l| satb.emit(o, l).unwrap());
    assert_eq!(n, satb.budget(Isa::Aarch64));
    for (refs, want, why) in [
        (RefWidth::Compressed, 9, "one lsl more"),
        (RefWidth::Unscaled, 8, "the W load is the whole decoding"),
    ] {
        let narrow = SatbEnqueue { refs, ..satb };
        let c = count(&|o, l| narrow.emit(o, l).unwrap());
        assert_eq!((c, narrow.budget(Isa::Aarch64)), (want, want), "{refs:?}: {why}");
    }
    for forwardee in forwardees() {
        let lrb = LrbCset {
            obj: X1,
            tmp: X2,
            tmp2: X3,
            cset: CsetMap {
                biased: 0x1234_5678_9abc,
                region_shift: 19,
            },
            forwardee,
        };
        let m = count(&|o, l| lrb.emit(o, l).unwrap());
        assert_eq!(m, lrb.budget(Isa::Aarch64));
        assert_eq!(m, 12, "{forwardee:?}");
        println!("aarch64 SATB enqueue {n}, LRB collection-set path {m} ({forwardee:?})");
    }
}

/// The word's offset must fit AArch64's `ldur` (−256..256); x86-64 takes
/// any displacement.
#[test]
fn aarch64_refuses_a_word_out_of_ldur_range() {
    for forwardee in [
        Forwardee::BrooksWord { offset: 256 },
        Forwardee::LayoutWord { offset: -257 },
    ] {
        let lrb = LrbCset {
            obj: aarch64::X1,
            tmp: aarch64::X2,
            tmp2: aarch64::X3,
            cset: CsetMap {
                biased: 0,
                region_shift: 19,
            },
            forwardee,
        };
        let mut ops = dynasmrt::VecAssembler::<dynasmrt::aarch64::Aarch64Relocation>::new(0);
        let labels = Labels {
            slow: ops.new_dynamic_label(),
            done: ops.new_dynamic_label(),
        };
        assert!(
            matches!(lrb.emit(&mut ops, labels), Err(TemplateError::Offset { .. })),
            "{forwardee:?}"
        );
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn x64_machine_checks_of_the_medium_paths() {
    use common::x64::check;
    use x64::*;
    let satb = SatbEnqueue {
        thread: R15,
        field: RSI,
        prev: RDX,
        tmp: RCX,
        tmp2: RAX,
        queue: SatbQueueLayout::fastpath().unwrap(),
        refs: fastpath_jit::RefWidth::Full,
    };
    assert_eq!(check(&satb, &[R15, RCX]).count(), 10);
    // The field's load and what sets the flags jz reads.
    for (refs, head, why) in [
        (
            RefWidth::Compressed,
            ["mov edx,[rsi]", "shl rdx,3"],
            "shl sets jz's flags",
        ),
        (
            RefWidth::Unscaled,
            ["mov edx,[rsi]", "test edx,edx"],
            "a dword load and its test",
        ),
    ] {
        let narrow = SatbEnqueue { refs, ..satb };
        let d = check(&narrow, &[R15, RCX]);
        assert_eq!((d.count(), narrow.budget(Isa::X64)), (10, 10), "{refs:?}: {why}");
        assert_eq!(
            [d.insns[0].to_string(), d.insns[1].to_string()],
            head,
            "{refs:?}: {why}"
        );
    }
    for forwardee in forwardees() {
        let lrb = LrbCset {
            obj: RSI,
            tmp: R8,
            tmp2: R9,
            cset: CsetMap {
                biased: 0x1234_5678,
                region_shift: 19,
            },
            forwardee,
        };
        let d = check(&lrb, &[]);
        assert_eq!(d.count(), lrb.budget(Isa::X64), "{forwardee:?}");
        // After the collection-set test: the word's load and the
        // resolution of a copy (a branch by its mnemonic: its target is a
        // label's address).
        let text: Vec<String> = d.insns[7..]
            .iter()
            .map(|i| {
                if i.is_jcc_short_or_near() {
                    format!("{:?}", i.mnemonic()).to_lowercase()
                } else {
                    i.to_string()
                }
            })
            .collect();
        match forwardee {
            Forwardee::BrooksWord { .. } => {
                assert_eq!(text, ["mov r8,[rsi-8]", "cmp r8,rsi", "je", "mov rsi,r8"]);
            }
            Forwardee::LayoutWord { .. } => {
                // Bit 31 tested and cleared, the halves rotated back:
                // `forwardee_of_layout_word`.
                assert_eq!(
                    text,
                    ["mov r8,[rsi+8]", "btr r8,1Fh", "jae", "rol r8,20h", "mov rsi,r8"]
                );
            }
        }
    }
    // The published block's SATB offsets are the ones used.
    let q = SatbQueueLayout::fastpath().unwrap();
    assert_eq!(
        (q.index as usize, q.buffer as usize),
        (
            fastpath::thread::SATB_INDEX_OFFSET,
            fastpath::thread::SATB_BUFFER_OFFSET
        )
    );
}

/// The two stubs as laid out above and as the GC stress lays them out:
/// each saves and restores the live caller-saved registers but its
/// result, writes memory only through rsp, one call (`check_stub`).
#[cfg(target_arch = "x86_64")]
#[test]
fn x64_medium_paths_stubs_save_what_they_declare() {
    use common::x64::check_stub;
    use x64::*;
    let stub = |args: Vec<_>, ret, live| SlowStub {
        func: fastpath_jit::slow::satb_enqueue as *const () as usize,
        args,
        ret,
        live,
    };
    // SATB: (block, previous value), field and value live.
    let satb = stub(vec![RDI, RDX], None, RegSet::of(&[RDI, RSI]));
    assert_eq!(check_stub(&satb), RegSet::of(&[RSI, RDI]));
    let satb = stub(vec![RDI, RCX], None, RegSet::of(&[RDI, RSI, RDX]));
    assert_eq!(check_stub(&satb), RegSet::of(&[RDX, RSI, RDI]));
    // LRB: (block, object, field) -> the reference, in the object's register.
    let lrb = stub(vec![RDI, RSI, RDX], Some(RSI), RegSet::of(&[RDI, RDX]));
    assert_eq!(check_stub(&lrb), RegSet::of(&[RDI, RDX]));
    let lrb = stub(vec![RDI, RAX, RSI], Some(RAX), RegSet::of(&[RDI, RSI, RAX]));
    assert_eq!(check_stub(&lrb), RegSet::of(&[RSI, RDI]));
    // r15 as the thread: callee-saved, not saved by the stub.
    let lrb = stub(vec![R15, R8, R9], Some(R8), RegSet::of(&[R15, R8, R9, RBX]));
    assert_eq!(check_stub(&lrb), RegSet::of(&[R9]));
}

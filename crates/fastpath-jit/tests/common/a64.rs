//! An AArch64 template's instruction words and a slow-path stub's words
//! checked against what it declares, on any host (emitting is bit
//! manipulation).

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath_jit::reg::Reg;
use fastpath_jit::{Emit, EmitStub, Isa, Labels, SlowStub, TemplateError};

/// The template's words, with `slow` and `done` bound right after it;
/// checks the count within the budget.
pub fn words<T: Emit<Aarch64Relocation>>(t: &T) -> Result<Vec<u32>, TemplateError> {
    let w = all_words(t)?;
    println!(
        "aarch64 {}: {} instructions, budget {}",
        t.name(),
        w.len(),
        t.budget(Isa::Aarch64)
    );
    assert!(w.len() <= t.budget(Isa::Aarch64));
    Ok(w)
}

/// The template's words, with `slow` and `done` bound right after it, for
/// a template with instructions off its common path (the guessing enter's
/// miss): the budget is checked on the common path by the caller.
pub fn all_words<T: Emit<Aarch64Relocation>>(t: &T) -> Result<Vec<u32>, TemplateError> {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    t.emit(&mut ops, labels)?;
    let n = ops.offset().0 / 4;
    dynasm!(ops ; .arch aarch64 ; =>labels.slow ; =>labels.done ; brk 0);
    let code = ops.finalize().unwrap();
    let w: Vec<u32> = code
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!(w.len() == n + 1);
    Ok(w[..n].to_vec())
}

/// Instructions `emit` writes (every AArch64 instruction is one word).
pub fn count(emit: &dyn Fn(&mut VecAssembler<Aarch64Relocation>, Labels)) -> usize {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let labels = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    emit(&mut ops, labels);
    ops.offset().0 / 4
}

/// The words `s` emits (resuming at a label before them).
pub fn stub_words(s: &SlowStub) -> Vec<u32> {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    let (slow, resume) = (ops.new_dynamic_label(), ops.new_dynamic_label());
    dynasm!(ops ; .arch aarch64 ; =>resume ; ret);
    s.emit(&mut ops, slow, resume).unwrap();
    let code = ops.finalize().unwrap();
    code.chunks(4)
        .skip(1)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `str`/`ldr Xt, [sp, #off]` (64-bit, unsigned offset): (load, t, off).
fn sp_access(w: u32) -> Option<(bool, u8, u32)> {
    let rn = (w >> 5) & 31;
    let kind = w & 0xFFC0_0000;
    (rn == 31 && (kind == 0xF900_0000 || kind == 0xF940_0000))
        .then(|| (kind == 0xF940_0000, (w & 31) as u8, ((w >> 10) & 0xFFF) * 8))
}

/// Checks the words of a slow-path stub against what it declares, as the
/// x86-64 `check_stub`: `sub sp, sp, #frame` first and `add sp, sp,
/// #frame; b` last; before the call (`movz/movk x16; blr x16`), stores of
/// [`SlowStub::saved`] and x30 to
/// their slots, then of the arguments, then loads of the argument slots
/// into x0, x1, …; after it, the result moved from x0 (if elsewhere) and
/// every saved register and x30 loaded from the slot it was stored to.
/// The only memory written is the frame; the registers written are the
/// argument registers, x16, the result and the restored ones. So every
/// live caller-saved register but the result keeps its value. Returns the
/// saved set (x30 not included).
pub fn check_stub_words(s: &SlowStub, w: &[u32]) -> fastpath_jit::reg::RegSet {
    let frame = match w.first() {
        Some(&x) if x & 0xFFC0_03FF == 0xD100_03FF => (x >> 10) & 0xFFF,
        other => panic!("the stub starts with {other:#x?}, not sub sp, sp, #frame"),
    };
    assert!(frame % 16 == 0, "frame {frame} keeps sp 16-aligned");
    let call = w.iter().position(|&x| x == 0xD63F_0200).expect("blr x16");
    assert_eq!(
        w.iter().filter(|&&x| x & 0xFFFF_FC1F == 0xD63F_0000).count(),
        1,
        "one call"
    );
    let n = w.len();
    assert_eq!(
        w[n - 2],
        0x9100_03FF | frame << 10,
        "add sp, sp, #frame before the jump back"
    );
    assert_eq!(w[n - 1] & 0xFC00_0000, 0x1400_0000, "resumes with b");
    let saved: Vec<Reg> = s.saved(Isa::Aarch64).iter().chain([Reg(30)]).collect();
    let before: Vec<(bool, u8, u32)> = w[1..call].iter().filter_map(|&x| sp_access(x)).collect();
    let stores: Vec<(u8, u32)> = before.iter().filter(|a| !a.0).map(|a| (a.1, a.2)).collect();
    let want: Vec<(u8, u32)> = saved
        .iter()
        .chain(s.args.iter())
        .enumerate()
        .map(|(i, r)| (r.0, 8 * i as u32))
        .collect();
    assert_eq!(stores, want, "saves first, then the arguments");
    let loads: Vec<(u8, u32)> = before.iter().filter(|a| a.0).map(|a| (a.1, a.2)).collect();
    let want: Vec<(u8, u32)> = (0..s.args.len())
        .map(|j| (j as u8, 8 * (saved.len() + j) as u32))
        .collect();
    assert_eq!(loads, want, "arguments loaded into x0, x1, …");
    // Between the loads and the call: the function's address into x16
    // (`movz`/`movk`, 64-bit).
    let movs = &w[1 + before.len()..call];
    assert!(
        movs.iter()
            .all(|&x| x & 0xFF80_001F == 0xD280_0010 || x & 0xFF80_001F == 0xF280_0010),
        "only movz/movk x16 before the call: {movs:#x?}"
    );
    let mut after = &w[call + 1..n - 2];
    if let Some(r) = s.ret.filter(|r| r.0 != 0) {
        assert_eq!(after[0], 0xAA00_03E0 | u32::from(r.0), "mov ret, x0");
        after = &after[1..];
    }
    let restored: Vec<(u8, u32)> = after
        .iter()
        .map(|&x| match sp_access(x) {
            Some((true, t, off)) => (t, off),
            _ => panic!("after the call only restores: {x:#x}"),
        })
        .collect();
    let want: Vec<(u8, u32)> = saved
        .iter()
        .enumerate()
        .map(|(i, r)| (r.0, 8 * i as u32))
        .collect();
    assert_eq!(restored, want, "restores what it saved");
    for r in s.live.iter() {
        assert!(
            r.0 >= 19 || s.saved(Isa::Aarch64).contains(r) || s.ret == Some(r),
            "live {r:?} is neither saved nor callee-saved"
        );
    }
    s.saved(Isa::Aarch64)
}

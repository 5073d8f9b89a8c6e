//! The JIT templates' machine code for C JITs (over `fastpath_jit`): the
//! bytes of one fast path for the registers the JIT chooses, emitted into
//! the caller's buffer, plus where its branches to the slow path (and to
//! `done`) are, for the JIT to point at its own out-of-line stub.
//!
//! Where it sits: a C JIT calls `fastpath_jit_emit` while it generates a
//! method, copies nothing (the bytes land in its buffer), emits its stub
//! (saving what it must, calling e.g. `fastpath_monitor_enter_on`) and
//! patches each recorded site; then it installs the whole method with
//! `fastpath_code_install`.
//!
//! Contract: each site is the offset, from the start of the emitted
//! bytes, of a branch to the slow path (or to `done`); point it at a label
//! with `fastpath_jit_patch` (x86-64: the 4-byte `rel32` field of a
//! `jcc`/`jmp`, relative to the field's end; AArch64: the `b.cond`, `cbz`,
//! `tbz`/`tbnz` or `b` instruction, its offset field rewritten), both
//! offsets in the same buffer, installed as one blob. As emitted, every
//! branch points at the end of the template (the fall-through): a JIT
//! must patch every slow site. The templates read the calling thread's
//! block (`fastpath_thread_block()`) at the published offsets
//! (`FASTPATH_THREAD_*`, layout version checked here), write only the
//! `clobbers` registers and the flags, and need nothing else.

use dynasmrt::{DynasmLabelApi, VecAssembler};
use fastpath_jit::reg::Reg;
use fastpath_jit::{Labels, LockStackLayout, ThreadLayout};

use crate::status::fastpath_status::{self, *};
use crate::status::{fail, ffi, put};

/// The fast paths `fastpath_jit_emit` emits; the roles of
/// `fastpath_jit_regs` for each are in brackets, x86-64 first, AArch64
/// after "a64:" where they differ.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum fastpath_jit_template {
    /// Lightweight monitor enter [thread, obj = the header's address,
    /// tmp0, tmp1; rax too; a64: tmp0–tmp4]; slow: call
    /// `fastpath_monitor_enter_on(thread, obj)`.
    FASTPATH_JIT_LOCK_ENTER = 0,
    /// Lightweight monitor exit [as enter]; slow: `fastpath_monitor_exit_on`.
    FASTPATH_JIT_LOCK_EXIT = 1,
    /// Safepoint poll [thread; a64: tmp0 too].
    FASTPATH_JIT_SAFEPOINT_POLL = 2,
    /// SATB pre-barrier idle test [thread; a64: tmp0 too].
    FASTPATH_JIT_SATB_IDLE = 3,
    /// Load-reference-barrier idle test [thread; a64: tmp0 too].
    FASTPATH_JIT_LRB_IDLE = 4,
    /// Card post-barrier [thread, obj = the address stored to (clobbered),
    /// tmp0; a64: tmp1 too]; no branch.
    FASTPATH_JIT_CARD_MARK = 5,
    /// Conditional card post-barrier (`UseCondCardMark`) [as the card
    /// mark]; a done site (already dirty).
    FASTPATH_JIT_CARD_MARK_CONDITIONAL = 6,
    /// Brooks read barrier [obj, replaced by its copy; imm = the forwarding
    /// word's offset, e.g. -8]; no branch.
    FASTPATH_JIT_BROOKS_READ_BARRIER = 7,
    /// Reference CAS [thread, obj = the field's address, tmp0 = the new
    /// value; expected in rax, the witnessed value in rax after; a64:
    /// tmp0 = expected, tmp1 = new, tmp2 receives the witnessed value,
    /// tmp3 scratch]: a done site (success) and a slow site (a failure
    /// while forwarded objects exist); a genuine failure falls through.
    FASTPATH_JIT_CAS_REF = 8,
    /// TLAB bump allocation [thread, obj = receives the address, tmp0;
    /// a64: tmp1 too, imm below 4096; imm = bytes].
    FASTPATH_JIT_TLAB_ALLOC = 9,
    /// On-spin-wait: the process's configured pause; no register.
    FASTPATH_JIT_SPIN_WAIT = 10,
    /// Brooks write barrier (Shenandoah 2017) [thread, obj = the object
    /// written to, replaced by its forwardee; a64: tmp0 scratch; imm = the
    /// forwarding word's offset, e.g. -8]: a slow site while evacuation
    /// runs or forwarded objects exist, where the JIT's stub resolves the
    /// object (evacuating it if in the collection set) and the stored
    /// value.
    FASTPATH_JIT_BROOKS_WRITE_BARRIER = 11,
    /// Lightweight monitor exit with its expected header word in a
    /// register instead of loaded from the header [as the exit; imm = the
    /// register holding the word, normally enter's tmp1 (a64: tmp2) kept
    /// live since the enter; x86-64: not tmp0 or rsp, a64: not tmp0,
    /// tmp1 or tmp4]; any value is safe (a wrong one takes the slow
    /// site); slow: `fastpath_monitor_exit_on`.
    FASTPATH_JIT_LOCK_EXIT_EXPECTING = 12,
    /// G1's filtered card post-barrier after a reference store [thread,
    /// obj = the field's address (kept), tmp0 = the value stored (kept),
    /// tmp1 scratch; a64: tmp2 too; imm = log2 of the region size,
    /// 1..63]: done sites for a store within a region and for null, a slow
    /// site for a card not dirty (the stub dirties and enqueues it: G1's
    /// StoreLoad fence, re-check, dirty, enqueue); a dirty card falls
    /// through.
    FASTPATH_JIT_G1_CARD = 13,
}

/// Registers by encoding number (x86-64: 0 rax … 15 r15; AArch64: 0 x0 …
/// 30 x30) and an immediate; which are used depends on the template (see
/// `fastpath_jit_template`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct fastpath_jit_regs {
    /// The thread block's register (HotSpot: r15).
    pub thread: u8,
    /// The object, header or address operand.
    pub obj: u8,
    /// First temporary.
    pub tmp0: u8,
    /// Second temporary.
    pub tmp1: u8,
    /// Third temporary (AArch64).
    pub tmp2: u8,
    /// Fourth temporary (AArch64).
    pub tmp3: u8,
    /// Fifth temporary (AArch64).
    pub tmp4: u8,
    /// Offset or size, per template.
    pub imm: i32,
}

/// Most sites of one kind a template has.
pub const FASTPATH_JIT_MAX_SITES: usize = 4;

/// What `fastpath_jit_emit` emitted.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct fastpath_jit_code {
    /// Bytes written (on `FASTPATH_ERR_BUFFER_TOO_SMALL`: bytes needed).
    pub len: usize,
    /// Sites of the branches to the slow path (`rel32` field offsets).
    pub slow_sites: [u32; FASTPATH_JIT_MAX_SITES],
    /// Entries used in `slow_sites`.
    pub n_slow: u32,
    /// Sites of the branches to `done` (where the fast path resumes).
    pub done_sites: [u32; FASTPATH_JIT_MAX_SITES],
    /// Entries used in `done_sites`.
    pub n_done: u32,
    /// Registers the template may write, bit n = register n (flags always).
    pub clobbers: u32,
    /// Most instructions on its common path.
    pub budget: u32,
}

/// Emits `template` for `regs` into `buf` (`cap` bytes) and describes it in
/// `out`. `FASTPATH_ERR_INVALID_ARGUMENT`: an unknown template, a register
/// outside the architecture's (x86-64: above 15, or rsp; AArch64: above
/// 30, or x16/x17, the slow-path stubs' call scratch), two roles in one
/// register (x86-64 lock templates: rax too), an immediate out of range;
/// `FASTPATH_ERR_BUFFER_TOO_SMALL`: `out->len` says how many bytes it
/// needs and nothing was written; `FASTPATH_ERR_UNSUPPORTED`: neither
/// x86-64 nor AArch64, or another thread-block layout than the templates
/// know.
#[no_mangle]
pub extern "C" fn fastpath_jit_emit(
    template: i32,
    regs: *const fastpath_jit_regs,
    buf: *mut u8,
    cap: usize,
    out: *mut fastpath_jit_code,
) -> fastpath_status {
    ffi(|| {
        crate::status::aligned::<_, fastpath_jit_regs>(regs, "regs")?;
        crate::status::out_ptr(out)?;
        // SAFETY: non-NULL and aligned (checked); the caller's contract: a
        // readable `fastpath_jit_regs`.
        let regs = unsafe { *regs };
        let code = emit(template, regs)?;
        if code.bytes.len() > cap {
            put(
                out,
                fastpath_jit_code {
                    len: code.bytes.len(),
                    ..code.info
                },
            )?;
            return Err(fail(
                FASTPATH_ERR_BUFFER_TOO_SMALL,
                format_args!(
                    "the template needs {} bytes, the buffer has {cap}",
                    code.bytes.len()
                ),
            ));
        }
        if buf.is_null() {
            return Err(fail(FASTPATH_ERR_NULL, "buf is NULL"));
        }
        // SAFETY: `buf` is non-NULL and, by the caller's contract, valid for
        // `cap` ≥ `len` bytes of writes; the source is our own vector.
        unsafe { core::ptr::copy_nonoverlapping(code.bytes.as_ptr(), buf, code.bytes.len()) };
        put(out, code.info)
    })
}

struct Emitted {
    bytes: Vec<u8>,
    info: fastpath_jit_code,
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn emit(_template: i32, _regs: fastpath_jit_regs) -> Result<Emitted, fastpath_status> {
    Err(fail(
        FASTPATH_ERR_UNSUPPORTED,
        "fastpath_jit_emit offers x86-64 and AArch64 templates only",
    ))
}

#[cfg(target_arch = "x86_64")]
fn emit(template: i32, regs: fastpath_jit_regs) -> Result<Emitted, fastpath_status> {
    describe(&X64::new(template, regs)?)
}

#[cfg(target_arch = "aarch64")]
fn emit(template: i32, regs: fastpath_jit_regs) -> Result<Emitted, fastpath_status> {
    describe(&A64::new(template, regs)?)
}

/// A checked template of the host's architecture.
trait Shape {
    /// How far a label moves to find the branches to it: one byte
    /// (x86-64) or one instruction (AArch64).
    const STEP: usize;
    /// The template with `slow` bound `slow_at` bytes after its end and
    /// `done` `done_at` bytes after it (padding between: a trap).
    fn bytes(&self, slow_at: usize, done_at: usize) -> Result<Vec<u8>, fastpath_status>;
    fn clobbers(&self) -> u32;
    fn budget(&self) -> u32;
}

/// The bytes and the sites. Where the template branches to `slow` and
/// `done` shows by moving one label `STEP` bytes and seeing which bytes
/// change: every such branch has a PC-relative offset field whose lowest
/// bits change (x86-64: a rel32's low byte, a carry perhaps into the next
/// ones; AArch64: the instruction's offset field). A site is the first
/// changed byte (AArch64: its instruction), and the 4 bytes from it are
/// one field.
fn describe<T: Shape>(t: &T) -> Result<Emitted, fastpath_status> {
    let plain = t.bytes(0, 0)?;
    let len = plain.len();
    let moved = |slow_at, done_at| -> Result<Vec<u32>, fastpath_status> {
        let other = t.bytes(slow_at, done_at)?;
        let mut sites = Vec::new();
        let mut i = 0;
        while i < len {
            if other[i] != plain[i] {
                let site = i - i % T::STEP;
                sites.push(site as u32);
                i = site + 4;
            } else {
                i += 1;
            }
        }
        if sites.len() > FASTPATH_JIT_MAX_SITES || sites.iter().any(|&s| s as usize + 4 > len) {
            return Err(fail(
                FASTPATH_ERR_PANIC,
                "a template's branch sites are not 4-byte fields",
            ));
        }
        Ok(sites)
    };
    let (slow, done) = (moved(T::STEP, 0)?, moved(0, T::STEP)?);
    let mut info = fastpath_jit_code {
        len,
        n_slow: slow.len() as u32,
        n_done: done.len() as u32,
        clobbers: t.clobbers(),
        budget: t.budget(),
        ..fastpath_jit_code::default()
    };
    info.slow_sites[..slow.len()].copy_from_slice(&slow);
    info.done_sites[..done.len()].copy_from_slice(&done);
    Ok(Emitted { bytes: plain, info })
}

/// The G1 card template's region shift from `imm` (1..63).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn region_shift(imm: i32) -> Result<u8, fastpath_status> {
    u8::try_from(imm)
        .ok()
        .filter(|s| (1..64).contains(s))
        .ok_or_else(|| fail(FASTPATH_ERR_INVALID_ARGUMENT, "imm: the region shift, 1..63"))
}

/// Binds `labels` `slow_at`/`done_at` bytes after the current end, padding
/// with `trap` (of `step` bytes).
fn bind_after<A: DynasmLabelApi>(
    ops: &mut A,
    labels: Labels,
    slow_at: usize,
    done_at: usize,
    step: usize,
    trap: &[u8],
) {
    let pad = slow_at.max(done_at);
    let mut i = 0;
    loop {
        if i == slow_at {
            ops.dynamic_label(labels.slow);
        }
        if i == done_at {
            ops.dynamic_label(labels.done);
        }
        if i >= pad {
            break;
        }
        ops.extend(trap.iter().copied());
        i += step;
    }
}

/// One x86-64 template, checked.
#[cfg(target_arch = "x86_64")]
enum X64 {
    Enter(fastpath_jit::x64::LockEnter),
    Exit(fastpath_jit::x64::LockExit),
    Poll(fastpath_jit::x64::SafepointPoll),
    Gc(fastpath_jit::x64::GcStateTest),
    Card(fastpath_jit::x64::CardMark),
    Brooks(fastpath_jit::x64::BrooksReadBarrier),
    Cas(fastpath_jit::x64::CasRef),
    Tlab(fastpath_jit::x64::TlabAlloc),
    Spin(fastpath_jit::x64::SpinWait),
    BrooksWb(fastpath_jit::x64::BrooksWriteBarrier),
    ExitExpecting(fastpath_jit::x64::LockExit, Reg),
    G1(fastpath_jit::x64::G1Card),
}

#[cfg(target_arch = "x86_64")]
impl X64 {
    fn new(template: i32, r: fastpath_jit_regs) -> Result<X64, fastpath_status> {
        use fastpath_jit::x64::{self as x, thread::GcBarrier};
        let bad = |what: &str| fail(FASTPATH_ERR_INVALID_ARGUMENT, what);
        let layout = || ThreadLayout::fastpath().map_err(|e| fail(FASTPATH_ERR_UNSUPPORTED, e));
        // Distinct general registers, none rsp.
        let regs = |rs: &[u8]| -> Result<Vec<Reg>, fastpath_status> {
            for (i, &n) in rs.iter().enumerate() {
                if n > 15 || n == 4 || rs[..i].contains(&n) {
                    return Err(bad("registers: 0-15, not rsp (4), one role each"));
                }
            }
            Ok(rs.iter().map(|&n| Reg(n)).collect())
        };
        Ok(match template {
            0 | 1 => {
                let lr = x::LockRegs::new(Reg(r.thread), Reg(r.obj), Reg(r.tmp0), Reg(r.tmp1))
                    .map_err(|e| fail(FASTPATH_ERR_INVALID_ARGUMENT, e))?;
                let layout = LockStackLayout::fastpath().map_err(|e| fail(FASTPATH_ERR_UNSUPPORTED, e))?;
                if template == 0 {
                    X64::Enter(x::LockEnter { regs: lr, layout })
                } else {
                    X64::Exit(x::LockExit { regs: lr, layout })
                }
            }
            2 => X64::Poll(x::SafepointPoll {
                thread: regs(&[r.thread])?[0],
                layout: layout()?,
            }),
            3 | 4 => X64::Gc(x::GcStateTest {
                barrier: if template == 3 {
                    GcBarrier::Satb
                } else {
                    GcBarrier::Lrb
                },
                thread: regs(&[r.thread])?[0],
                layout: layout()?,
            }),
            5 | 6 => {
                let v = regs(&[r.thread, r.obj, r.tmp0])?;
                X64::Card(x::CardMark {
                    addr: v[1],
                    tmp: v[2],
                    base: x::barrier::CardBase::Thread(v[0]),
                    conditional: template == 6,
                    layout: layout()?,
                })
            }
            7 => X64::Brooks(x::BrooksReadBarrier {
                obj: regs(&[r.obj])?[0],
                forwarding: r.imm,
            }),
            8 => {
                let v = regs(&[r.thread, r.obj, r.tmp0, 0])?;
                X64::Cas(x::CasRef {
                    thread: v[0],
                    addr: v[1],
                    new: v[2],
                    layout: layout()?,
                })
            }
            9 => {
                let v = regs(&[r.thread, r.obj, r.tmp0])?;
                X64::Tlab(x::TlabAlloc {
                    thread: v[0],
                    obj: v[1],
                    end: v[2],
                    size: r.imm,
                    layout: layout()?,
                })
            }
            10 => X64::Spin(x::SpinWait::configured()),
            11 => {
                let v = regs(&[r.thread, r.obj])?;
                X64::BrooksWb(x::BrooksWriteBarrier {
                    thread: v[0],
                    obj: v[1],
                    gc_state: layout()?.gc_state,
                    state_bits: x::BrooksWriteBarrier::FASTPATH_STATE_BITS,
                    forwarding: r.imm,
                })
            }
            12 => {
                let lr = x::LockRegs::new(Reg(r.thread), Reg(r.obj), Reg(r.tmp0), Reg(r.tmp1))
                    .map_err(|e| fail(FASTPATH_ERR_INVALID_ARGUMENT, e))?;
                let layout = LockStackLayout::fastpath().map_err(|e| fail(FASTPATH_ERR_UNSUPPORTED, e))?;
                let word = u8::try_from(r.imm)
                    .ok()
                    .filter(|&n| n <= 15 && n != 4 && n != r.tmp0)
                    .ok_or_else(|| bad("imm: the expected word's register, 0-15, not rsp (4) or tmp0"))?;
                X64::ExitExpecting(x::LockExit { regs: lr, layout }, Reg(word))
            }
            13 => {
                let v = regs(&[r.thread, r.obj, r.tmp0, r.tmp1])?;
                X64::G1(x::G1Card {
                    addr: v[1],
                    val: v[2],
                    tmp: v[3],
                    tmp2: v[3],
                    base: x::barrier::CardBase::Thread(v[0]),
                    region_shift: region_shift(r.imm)?,
                    layout: layout()?,
                })
            }
            _ => return Err(bad("unknown template")),
        })
    }

    fn emit(&self, ops: &mut VecAssembler<dynasmrt::x64::X64Relocation>, l: Labels) {
        use fastpath_jit::x64::Template;
        match self {
            X64::BrooksWb(t) => t.emit(ops, l),
            X64::ExitExpecting(t, word) => t
                .emit_expecting(ops, l, *word)
                .expect("the word register was checked"),
            X64::G1(t) => t.emit(ops, l),
            X64::Enter(t) => t.emit(ops, l),
            X64::Exit(t) => t.emit(ops, l),
            X64::Poll(t) => t.emit(ops, l),
            X64::Gc(t) => t.emit(ops, l),
            X64::Card(t) => t.emit(ops, l),
            X64::Brooks(t) => t.emit(ops, l),
            X64::Cas(t) => t.emit(ops, l),
            X64::Tlab(t) => t.emit(ops, l),
            X64::Spin(t) => t.emit(ops, l),
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Shape for X64 {
    const STEP: usize = 1;

    fn bytes(&self, slow_at: usize, done_at: usize) -> Result<Vec<u8>, fastpath_status> {
        let mut ops = VecAssembler::<dynasmrt::x64::X64Relocation>::new(0);
        let labels = Labels {
            slow: ops.new_dynamic_label(),
            done: ops.new_dynamic_label(),
        };
        self.emit(&mut ops, labels);
        bind_after(&mut ops, labels, slow_at, done_at, 1, &[0xCC]);
        Ok(ops.finalize().expect("both labels are bound"))
    }

    fn clobbers(&self) -> u32 {
        use fastpath_jit::x64::Template;
        match self {
            X64::Enter(t) => t.clobbers(),
            X64::Exit(t) => t.clobbers(),
            X64::Poll(t) => t.clobbers(),
            X64::Gc(t) => t.clobbers(),
            X64::Card(t) => t.clobbers(),
            X64::Brooks(t) => t.clobbers(),
            X64::Cas(t) => t.clobbers(),
            X64::Tlab(t) => t.clobbers(),
            X64::Spin(t) => t.clobbers(),
            X64::BrooksWb(t) => t.clobbers(),
            X64::ExitExpecting(t, _) => t.clobbers(),
            X64::G1(t) => t.clobbers(),
        }
        .0
    }

    fn budget(&self) -> u32 {
        use fastpath_jit::x64::Template;
        (match self {
            X64::Enter(t) => t.budget(),
            X64::Exit(t) => t.budget(),
            X64::Poll(t) => t.budget(),
            X64::Gc(t) => t.budget(),
            X64::Card(t) => t.budget(),
            X64::Brooks(t) => t.budget(),
            X64::Cas(t) => t.budget(),
            X64::Tlab(t) => t.budget(),
            X64::Spin(t) => t.budget(),
            X64::BrooksWb(t) => t.budget(),
            X64::ExitExpecting(t, _) => t.budget(),
            X64::G1(t) => t.budget(),
        }) as u32
    }
}

/// One AArch64 template, checked.
#[cfg(target_arch = "aarch64")]
enum A64 {
    Enter(fastpath_jit::aarch64::LockEnter),
    Exit(fastpath_jit::aarch64::LockExit),
    Poll(fastpath_jit::aarch64::SafepointPoll),
    Gc(fastpath_jit::aarch64::GcStateTest),
    Card(fastpath_jit::aarch64::CardMark),
    Brooks(fastpath_jit::aarch64::BrooksReadBarrier),
    Cas(fastpath_jit::aarch64::CasRef),
    Tlab(fastpath_jit::aarch64::TlabAlloc),
    Spin(fastpath_jit::aarch64::SpinWait),
    BrooksWb(fastpath_jit::aarch64::BrooksWriteBarrier),
    ExitExpecting(fastpath_jit::aarch64::LockExit, Reg),
    G1(fastpath_jit::aarch64::G1Card),
}

#[cfg(target_arch = "aarch64")]
impl A64 {
    fn new(template: i32, r: fastpath_jit_regs) -> Result<A64, fastpath_status> {
        use fastpath_jit::aarch64::{self as a, thread::GcBarrier};
        let bad = |what: &str| fail(FASTPATH_ERR_INVALID_ARGUMENT, what);
        let layout = || ThreadLayout::fastpath().map_err(|e| fail(FASTPATH_ERR_UNSUPPORTED, e));
        // Distinct x0–x30, not x16/x17 (a stub's call scratch).
        let regs = |rs: &[u8]| -> Result<Vec<Reg>, fastpath_status> {
            for (i, &n) in rs.iter().enumerate() {
                if n > 30 || n == 16 || n == 17 || rs[..i].contains(&n) {
                    return Err(bad("registers: x0-x30, not x16/x17, one role each"));
                }
            }
            Ok(rs.iter().map(|&n| Reg(n)).collect())
        };
        Ok(match template {
            0 | 1 => {
                let v = regs(&[r.thread, r.obj, r.tmp0, r.tmp1, r.tmp2, r.tmp3, r.tmp4])?;
                let lr = a::LockRegs::new(v[0], v[1], [v[2], v[3], v[4], v[5], v[6]])
                    .map_err(|e| fail(FASTPATH_ERR_INVALID_ARGUMENT, e))?;
                let layout = LockStackLayout::fastpath().map_err(|e| fail(FASTPATH_ERR_UNSUPPORTED, e))?;
                if template == 0 {
                    A64::Enter(a::LockEnter { regs: lr, layout })
                } else {
                    A64::Exit(a::LockExit { regs: lr, layout })
                }
            }
            2 => {
                let v = regs(&[r.thread, r.tmp0])?;
                A64::Poll(a::SafepointPoll {
                    thread: v[0],
                    tmp: v[1],
                    layout: layout()?,
                })
            }
            3 | 4 => {
                let v = regs(&[r.thread, r.tmp0])?;
                A64::Gc(a::GcStateTest {
                    barrier: if template == 3 {
                        GcBarrier::Satb
                    } else {
                        GcBarrier::Lrb
                    },
                    thread: v[0],
                    tmp: v[1],
                    layout: layout()?,
                })
            }
            5 | 6 => {
                let v = regs(&[r.thread, r.obj, r.tmp0, r.tmp1])?;
                A64::Card(a::CardMark {
                    thread: v[0],
                    addr: v[1],
                    tmp: v[2],
                    tmp2: v[3],
                    conditional: template == 6,
                    layout: layout()?,
                })
            }
            7 => A64::Brooks(a::BrooksReadBarrier {
                obj: regs(&[r.obj])?[0],
                forwarding: r.imm,
            }),
            8 => {
                let v = regs(&[r.thread, r.obj, r.tmp0, r.tmp1, r.tmp2, r.tmp3])?;
                A64::Cas(a::CasRef {
                    thread: v[0],
                    addr: v[1],
                    expected: v[2],
                    new: v[3],
                    old: v[4],
                    tmp: v[5],
                    layout: layout()?,
                })
            }
            9 => {
                let v = regs(&[r.thread, r.obj, r.tmp0, r.tmp1])?;
                A64::Tlab(a::TlabAlloc {
                    thread: v[0],
                    obj: v[1],
                    end: v[2],
                    tmp: v[3],
                    size: r.imm,
                    layout: layout()?,
                })
            }
            10 => A64::Spin(a::SpinWait::configured()),
            11 => {
                let v = regs(&[r.thread, r.obj, r.tmp0])?;
                A64::BrooksWb(a::BrooksWriteBarrier {
                    thread: v[0],
                    obj: v[1],
                    tmp: v[2],
                    gc_state: layout()?.gc_state,
                    state_bits: a::BrooksWriteBarrier::FASTPATH_STATE_BITS,
                    forwarding: r.imm,
                })
            }
            12 => {
                let v = regs(&[r.thread, r.obj, r.tmp0, r.tmp1, r.tmp2, r.tmp3, r.tmp4])?;
                let lr = a::LockRegs::new(v[0], v[1], [v[2], v[3], v[4], v[5], v[6]])
                    .map_err(|e| fail(FASTPATH_ERR_INVALID_ARGUMENT, e))?;
                let layout = LockStackLayout::fastpath().map_err(|e| fail(FASTPATH_ERR_UNSUPPORTED, e))?;
                let word = u8::try_from(r.imm)
                    .ok()
                    .filter(|&n| n <= 30 && ![r.tmp0, r.tmp1, r.tmp4].contains(&n))
                    .ok_or_else(|| {
                        bad("imm: the expected word's register, x0-x30, not tmp0, tmp1 or tmp4")
                    })?;
                A64::ExitExpecting(a::LockExit { regs: lr, layout }, Reg(word))
            }
            13 => {
                let v = regs(&[r.thread, r.obj, r.tmp0, r.tmp1, r.tmp2])?;
                A64::G1(a::G1Card {
                    thread: v[0],
                    addr: v[1],
                    val: v[2],
                    tmp: v[3],
                    tmp2: v[4],
                    region_shift: region_shift(r.imm)?,
                    layout: layout()?,
                })
            }
            _ => return Err(bad("unknown template")),
        })
    }

    fn emit(
        &self,
        ops: &mut VecAssembler<dynasmrt::aarch64::Aarch64Relocation>,
        l: Labels,
    ) -> Result<(), fastpath_jit::aarch64::TemplateError> {
        use fastpath_jit::aarch64::Template;
        match self {
            A64::Enter(t) => t.emit(ops, l),
            A64::Exit(t) => t.emit(ops, l),
            A64::Poll(t) => t.emit(ops, l),
            A64::Gc(t) => t.emit(ops, l),
            A64::Card(t) => t.emit(ops, l),
            A64::Brooks(t) => t.emit(ops, l),
            A64::Cas(t) => t.emit(ops, l),
            A64::Tlab(t) => t.emit(ops, l),
            A64::Spin(t) => t.emit(ops, l),
            A64::BrooksWb(t) => t.emit(ops, l),
            A64::ExitExpecting(t, word) => t.emit_expecting(ops, l, *word).map_err(|e| match e {
                fastpath_jit::aarch64::ExpectingError::Template(e) => e,
                fastpath_jit::aarch64::ExpectingError::Register(_) => {
                    unreachable!("the word register was checked")
                }
            }),
            A64::G1(t) => t.emit(ops, l),
        }
    }
}

#[cfg(target_arch = "aarch64")]
impl Shape for A64 {
    const STEP: usize = 4;

    fn bytes(&self, slow_at: usize, done_at: usize) -> Result<Vec<u8>, fastpath_status> {
        let mut ops = VecAssembler::<dynasmrt::aarch64::Aarch64Relocation>::new(0);
        let labels = Labels {
            slow: ops.new_dynamic_label(),
            done: ops.new_dynamic_label(),
        };
        self.emit(&mut ops, labels)
            .map_err(|e| fail(FASTPATH_ERR_INVALID_ARGUMENT, e))?;
        // brk #0
        bind_after(
            &mut ops,
            labels,
            slow_at,
            done_at,
            4,
            &0xD420_0000u32.to_le_bytes(),
        );
        Ok(ops.finalize().expect("both labels are bound"))
    }

    fn clobbers(&self) -> u32 {
        use fastpath_jit::aarch64::Template;
        match self {
            A64::Enter(t) => t.clobbers(),
            A64::Exit(t) => t.clobbers(),
            A64::Poll(t) => t.clobbers(),
            A64::Gc(t) => t.clobbers(),
            A64::Card(t) => t.clobbers(),
            A64::Brooks(t) => t.clobbers(),
            A64::Cas(t) => t.clobbers(),
            A64::Tlab(t) => t.clobbers(),
            A64::Spin(t) => t.clobbers(),
            A64::BrooksWb(t) => t.clobbers(),
            A64::ExitExpecting(t, _) => t.clobbers(),
            A64::G1(t) => t.clobbers(),
        }
        .0
    }

    fn budget(&self) -> u32 {
        use fastpath_jit::aarch64::Template;
        (match self {
            A64::Enter(t) => t.budget(),
            A64::Exit(t) => t.budget(),
            A64::Poll(t) => t.budget(),
            A64::Gc(t) => t.budget(),
            A64::Card(t) => t.budget(),
            A64::Brooks(t) => t.budget(),
            A64::Cas(t) => t.budget(),
            A64::Tlab(t) => t.budget(),
            A64::Spin(t) => t.budget(),
            A64::BrooksWb(t) => t.budget(),
            A64::ExitExpecting(t, _) => t.budget(),
            A64::G1(t) => t.budget(),
        }) as u32
    }
}

/// Points the branch at `site` of `code` (`len` bytes; a site
/// `fastpath_jit_emit` reported, rebased to where the template's bytes lie
/// in `code`) at offset `target` of the same buffer. `FASTPATH_ERR_INVALID_ARGUMENT`:
/// the site is not inside `code`, is not a branch this library emits
/// (AArch64), or the target is out of the branch's range or (AArch64) not
/// 4-byte aligned relative to it.
#[no_mangle]
pub extern "C" fn fastpath_jit_patch(
    code: *mut u8,
    len: usize,
    site: usize,
    target: usize,
) -> fastpath_status {
    ffi(|| {
        if code.is_null() {
            return Err(fail(FASTPATH_ERR_NULL, "code is NULL"));
        }
        if site.checked_add(4).is_none_or(|end| end > len) || target > len {
            return Err(fail(
                FASTPATH_ERR_INVALID_ARGUMENT,
                format_args!("site {site} or target {target} outside the {len} bytes"),
            ));
        }
        // SAFETY: non-NULL; by the caller's contract `code` is valid for
        // `len` bytes of reads and writes, and `site + 4 <= len`.
        let field = unsafe { core::slice::from_raw_parts_mut(code.add(site), 4) };
        let word = u32::from_le_bytes([field[0], field[1], field[2], field[3]]);
        let patched = patch_word(word, site, target)?;
        field.copy_from_slice(&patched.to_le_bytes());
        Ok(())
    })
}

#[cfg(target_arch = "x86_64")]
fn patch_word(_word: u32, site: usize, target: usize) -> Result<u32, fastpath_status> {
    i32::try_from(target as i64 - (site as i64 + 4))
        .map(|rel| rel as u32)
        .map_err(|_| fail(FASTPATH_ERR_INVALID_ARGUMENT, "target out of rel32 range"))
}

#[cfg(target_arch = "aarch64")]
fn patch_word(word: u32, site: usize, target: usize) -> Result<u32, fastpath_status> {
    let delta = target as i64 - site as i64;
    if delta % 4 != 0 {
        return Err(fail(
            FASTPATH_ERR_INVALID_ARGUMENT,
            "target not 4-byte aligned to the site",
        ));
    }
    let imm = delta / 4;
    // (mask, value, field's low bit, width): B.cond, CBZ/CBNZ, TBZ/TBNZ, B.
    let forms: [(u32, u32, u32, u32); 4] = [
        (0xFF00_0010, 0x5400_0000, 5, 19),
        (0x7E00_0000, 0x3400_0000, 5, 19),
        (0x7E00_0000, 0x3600_0000, 5, 14),
        (0xFC00_0000, 0x1400_0000, 0, 26),
    ];
    let Some(&(_, _, lo, width)) = forms.iter().find(|f| word & f.0 == f.1) else {
        return Err(fail(
            FASTPATH_ERR_INVALID_ARGUMENT,
            format_args!("the word at the site ({word:#010x}) is not a branch"),
        ));
    };
    let limit = 1i64 << (width - 1);
    if !(-limit..limit).contains(&imm) {
        return Err(fail(
            FASTPATH_ERR_INVALID_ARGUMENT,
            "target out of the branch's range",
        ));
    }
    let mask = ((1u32 << width) - 1) << lo;
    Ok(word & !mask | ((imm as u32) << lo) & mask)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn patch_word(_word: u32, _site: usize, _target: usize) -> Result<u32, fastpath_status> {
    Err(fail(
        FASTPATH_ERR_UNSUPPORTED,
        "no templates on this architecture",
    ))
}

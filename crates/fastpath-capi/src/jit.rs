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
    /// value, tmp1 = the expected value (kept; not rax), the witnessed value
    /// in rax after; a64: tmp0 = expected, tmp1 = new, tmp2 receives the
    /// witnessed value, tmp3 scratch]: a done site (success) and a slow site
    /// (a failure while forwarded objects exist, maybe a false one: the
    /// field holds the other copy of the expected object), where the JIT's
    /// stub retries on resolved copies with (thread, field, expected, new)
    /// and puts its result (expected on success, else the witnessed value)
    /// in the witness register (on fastpath's heap the Rust library's
    /// `gc::cas_ref_slow_entry` is that retry; this header does not bind
    /// the GC slow entries); a genuine failure falls through. For a heap
    /// with full-width (8-byte) reference slots; a compressed heap's is
    /// `FASTPATH_JIT_CAS_REF_COMPRESSED`.
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
    /// Lightweight monitor enter whose CAS first tries a guessed header
    /// word instead of one loaded from the header [as the enter; `guess`
    /// = the neutral header word of the object's kind, e.g. a fresh
    /// `fastpath_header`'s, its lock bits ignored (01 is tried)]; any
    /// guess is safe: a wrong one costs the failed CAS, then the enter
    /// goes on from the word that CAS found as the loaded form does; slow:
    /// `fastpath_monitor_enter_on`.
    FASTPATH_JIT_LOCK_ENTER_GUESSING = 14,
    /// Reference CAS on a heap with compressed references
    /// (`fastpath_gc_ref_slot_bytes` says 4) [as `FASTPATH_JIT_CAS_REF`,
    /// and x86-64's tmp2 scratch (not rax): it receives the new value's
    /// encoded form; a64: tmp3 receives it, then the GC-state byte]: the
    /// 4-byte slot is compared and swapped as encoded values (the address
    /// shifted right by `FASTPATH_GC_COMPRESSED_REF_SHIFT`: x86-64 a dword
    /// `lock cmpxchg`, AArch64 `casal` on W registers) and the witness
    /// decoded, so expected, new, the witness and the stub's arguments and
    /// result are addresses as in the full form, and witness == expected
    /// still says the CAS took place. `FASTPATH_JIT_CAS_REF` is the form
    /// for 8-byte slots only.
    FASTPATH_JIT_CAS_REF_COMPRESSED = 15,
    /// Reference CAS on a heap with unscaled references
    /// (`fastpath_gc_ref_slot_bytes` says 4 and `fastpath_gc_ref_shift`
    /// 0) [as `FASTPATH_JIT_CAS_REF`]: the 4-byte slot holds the address
    /// itself (every address of such a heap is below
    /// `FASTPATH_GC_UNSCALED_ADDRESS_LIMIT`), compared and swapped as 32
    /// bits (x86-64 a dword `lock cmpxchg`, AArch64 `casal` on W
    /// registers), the witness zero-extended.
    FASTPATH_JIT_CAS_REF_UNSCALED = 16,
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
    /// Third temporary (AArch64; x86-64's compressed reference CAS).
    pub tmp2: u8,
    /// Fourth temporary (AArch64).
    pub tmp3: u8,
    /// Fifth temporary (AArch64).
    pub tmp4: u8,
    /// Offset or size, per template.
    pub imm: i32,
    /// The guessed header word (`FASTPATH_JIT_LOCK_ENTER_GUESSING`).
    pub guess: u64,
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

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn emit(template: i32, regs: fastpath_jit_regs) -> Result<Emitted, fastpath_status> {
    describe(&*host::build(template, &regs)?)
}

/// The templates of the host's ISA, by `fastpath_jit_template` value: one
/// row each, filling the template's description
/// (`fastpath_jit::template`) from `fastpath_jit_regs`; the description
/// checks its registers for the ISA and its emitter writes the bytes.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod host {
    use fastpath_jit::reg::{aarch64, Reg};
    use fastpath_jit::*;

    use super::fastpath_jit_regs;
    use crate::status::fail;
    use crate::status::fastpath_status::{self, *};

    /// The relocation type of the host's assembler, which selects its
    /// emitters.
    #[cfg(target_arch = "x86_64")]
    pub(super) type Host = dynasmrt::x64::X64Relocation;
    #[cfg(target_arch = "aarch64")]
    pub(super) type Host = dynasmrt::aarch64::Aarch64Relocation;

    /// The host's ISA.
    pub(super) const ISA: Isa = <Host as Arch>::ISA;

    /// A template filled from the C registers.
    pub(super) type Built = Box<dyn Emitter<Host>>;

    /// One row: the description of a template from the C registers.
    type Row = fn(&fastpath_jit_regs) -> Result<Built, fastpath_status>;

    /// The rows, indexed by `fastpath_jit_template`; the roles each takes
    /// from `fastpath_jit_regs` are the ones its C documentation lists.
    const TABLE: [Row; 17] = [
        // FASTPATH_JIT_LOCK_ENTER
        |r| {
            let LockExit { regs, layout } = lock(r)?;
            obj(LockEnter { regs, layout })
        },
        // FASTPATH_JIT_LOCK_EXIT
        |r| obj(lock(r)?),
        // FASTPATH_JIT_SAFEPOINT_POLL
        |r| {
            obj(SafepointPoll {
                thread: Reg(r.thread),
                tmp: Reg(r.tmp0),
                layout: layout()?,
            })
        },
        // FASTPATH_JIT_SATB_IDLE
        |r| idle(r, GcBarrier::Satb),
        // FASTPATH_JIT_LRB_IDLE
        |r| idle(r, GcBarrier::Lrb),
        // FASTPATH_JIT_CARD_MARK
        |r| card(r, false),
        // FASTPATH_JIT_CARD_MARK_CONDITIONAL
        |r| card(r, true),
        // FASTPATH_JIT_BROOKS_READ_BARRIER
        |r| {
            obj(BrooksReadBarrier {
                obj: Reg(r.obj),
                forwarding: r.imm,
            })
        },
        // FASTPATH_JIT_CAS_REF
        |r| cas_ref(r, RefWidth::Full),
        // FASTPATH_JIT_TLAB_ALLOC
        |r| {
            obj(TlabAlloc {
                thread: Reg(r.thread),
                obj: Reg(r.obj),
                end: Reg(r.tmp0),
                tmp: Reg(r.tmp1),
                size: r.imm,
                layout: layout()?,
            })
        },
        // FASTPATH_JIT_SPIN_WAIT
        |_| obj(SpinWait::configured()),
        // FASTPATH_JIT_BROOKS_WRITE_BARRIER
        |r| {
            obj(BrooksWriteBarrier {
                thread: Reg(r.thread),
                obj: Reg(r.obj),
                tmp: Reg(r.tmp0),
                gc_state: layout()?.gc_state,
                state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
                forwarding: r.imm,
            })
        },
        // FASTPATH_JIT_LOCK_EXIT_EXPECTING
        |r| {
            let word = u8::try_from(r.imm).map_err(|_| invalid("imm: the expected word's register"))?;
            obj(lock(r)?.expecting(Reg(word)))
        },
        // FASTPATH_JIT_G1_CARD
        |r| {
            let region_shift = u8::try_from(r.imm).map_err(|_| invalid("imm: the region shift, 1..63"))?;
            obj(G1Card {
                addr: Reg(r.obj),
                val: Reg(r.tmp0),
                tmp: Reg(r.tmp1),
                tmp2: Reg(r.tmp2),
                base: CardBase::Thread(Reg(r.thread)),
                region_shift,
                layout: layout()?,
            })
        },
        // FASTPATH_JIT_LOCK_ENTER_GUESSING
        |r| {
            let LockExit { regs, layout } = lock(r)?;
            obj(LockEnter { regs, layout }.guessing(r.guess))
        },
        // FASTPATH_JIT_CAS_REF_COMPRESSED
        |r| cas_ref(r, RefWidth::Compressed),
        // FASTPATH_JIT_CAS_REF_UNSCALED
        |r| cas_ref(r, RefWidth::Unscaled),
    ];

    // One row per `fastpath_jit_template` value, in order.
    const _: () =
        assert!(TABLE.len() == super::fastpath_jit_template::FASTPATH_JIT_CAS_REF_UNSCALED as usize + 1);

    /// Template `template` for `r`, its registers checked for the host:
    /// `FASTPATH_ERR_INVALID_ARGUMENT` for an unknown template or a
    /// register a role or the ISA refuses (and on AArch64 x16/x17, the
    /// scratch of the C JIT's stubs as of fastpath's).
    pub(super) fn build(template: i32, r: &fastpath_jit_regs) -> Result<Built, fastpath_status> {
        let row = usize::try_from(template)
            .ok()
            .and_then(|i| TABLE.get(i))
            .ok_or_else(|| invalid("unknown template"))?;
        let t = row(r)?;
        t.check(ISA).map_err(|e| fail(FASTPATH_ERR_INVALID_ARGUMENT, e))?;
        let scratch = [aarch64::X16, aarch64::X17];
        if ISA == Isa::Aarch64 && t.operands(ISA).iter().any(|r| scratch.contains(r)) {
            return Err(invalid("x16/x17 are the slow-path stubs' call scratch"));
        }
        Ok(t)
    }

    fn obj<T: Emitter<Host> + 'static>(t: T) -> Result<Built, fastpath_status> {
        Ok(Box::new(t))
    }

    fn invalid(what: &str) -> fastpath_status {
        fail(FASTPATH_ERR_INVALID_ARGUMENT, what)
    }

    fn layout() -> Result<ThreadLayout, fastpath_status> {
        ThreadLayout::fastpath().map_err(|e| fail(FASTPATH_ERR_UNSUPPORTED, e))
    }

    /// The lock templates' registers: x86-64's temporaries tmp0 (top) and
    /// tmp1 (mark); AArch64's tmp0 (top), tmp1 (slot), tmp2 (mark), tmp3
    /// (expected), tmp4 (CAS result), in the description's order of roles.
    fn lock(r: &fastpath_jit_regs) -> Result<LockExit, fastpath_status> {
        let temps = match ISA {
            Isa::X64 => vec![r.tmp0, r.tmp1],
            Isa::Aarch64 => vec![r.tmp0, r.tmp2, r.tmp1, r.tmp3, r.tmp4],
        };
        let temps: Vec<Reg> = temps.into_iter().map(Reg).collect();
        let regs = LockRegs::new(Reg(r.thread), Reg(r.obj), &temps)
            .map_err(|e| fail(FASTPATH_ERR_INVALID_ARGUMENT, e))?;
        let layout = LockStackLayout::fastpath().map_err(|e| fail(FASTPATH_ERR_UNSUPPORTED, e))?;
        Ok(LockExit { regs, layout })
    }

    /// The reference CAS on slots of width `refs`: x86-64 tmp0 new, tmp1
    /// expected, the witness in rax (compressed: tmp2 the encoded new);
    /// AArch64 tmp0 expected, tmp1 new, tmp2 the witness, tmp3 scratch.
    fn cas_ref(r: &fastpath_jit_regs, refs: RefWidth) -> Result<Built, fastpath_status> {
        let layout = layout()?;
        let (thread, addr) = (Reg(r.thread), Reg(r.obj));
        obj(match (ISA, refs) {
            (Isa::X64, RefWidth::Full) => CasRef::x64(thread, addr, Reg(r.tmp1), Reg(r.tmp0), layout),
            (Isa::X64, RefWidth::Unscaled) => CasRef {
                refs: RefWidth::Unscaled,
                ..CasRef::x64(thread, addr, Reg(r.tmp1), Reg(r.tmp0), layout)
            },
            (Isa::X64, RefWidth::Compressed) => {
                CasRef::x64_compressed(thread, addr, Reg(r.tmp1), Reg(r.tmp0), Reg(r.tmp2), layout)
            }
            (Isa::Aarch64, refs) => CasRef {
                thread,
                addr,
                expected: Reg(r.tmp0),
                new: Reg(r.tmp1),
                old: Reg(r.tmp2),
                tmp: Reg(r.tmp3),
                layout,
                refs,
            },
        })
    }

    fn idle(r: &fastpath_jit_regs, barrier: GcBarrier) -> Result<Built, fastpath_status> {
        obj(GcStateTest {
            barrier,
            thread: Reg(r.thread),
            tmp: Reg(r.tmp0),
            layout: layout()?,
        })
    }

    fn card(r: &fastpath_jit_regs, conditional: bool) -> Result<Built, fastpath_status> {
        obj(CardMark {
            addr: Reg(r.obj),
            tmp: Reg(r.tmp0),
            tmp2: Reg(r.tmp1),
            base: CardBase::Thread(Reg(r.thread)),
            conditional,
            layout: layout()?,
        })
    }

    /// How far a label moves to find the branches to it: one byte
    /// (x86-64) or one instruction (AArch64).
    pub(super) const STEP: usize = match ISA {
        Isa::X64 => 1,
        Isa::Aarch64 => 4,
    };

    /// `t` with `slow` bound `slow_at` bytes after its end and `done`
    /// `done_at` bytes after it (padding between: a trap, `int3` or `brk
    /// #0`).
    pub(super) fn bytes(
        t: &dyn Emitter<Host>,
        slow_at: usize,
        done_at: usize,
    ) -> Result<Vec<u8>, fastpath_status> {
        use dynasmrt::{DynasmLabelApi, VecAssembler};
        let trap: &[u8] = match ISA {
            Isa::X64 => &[0xCC],
            Isa::Aarch64 => &[0x00, 0x00, 0x20, 0xD4],
        };
        let mut ops = VecAssembler::<Host>::new(0);
        let labels = Labels {
            slow: ops.new_dynamic_label(),
            done: ops.new_dynamic_label(),
        };
        t.emit_into(&mut ops, labels)
            .map_err(|e| fail(FASTPATH_ERR_INVALID_ARGUMENT, e))?;
        let mut i = 0;
        loop {
            if i == slow_at {
                ops.dynamic_label(labels.slow);
            }
            if i == done_at {
                ops.dynamic_label(labels.done);
            }
            if i >= slow_at.max(done_at) {
                break;
            }
            ops.extend(trap.iter().copied());
            i += STEP;
        }
        Ok(ops.finalize().expect("both labels are bound"))
    }
}

/// The bytes and the sites. Where the template branches to `slow` and
/// `done` shows by moving one label `STEP` bytes and seeing which bytes
/// change: every such branch has a PC-relative offset field whose lowest
/// bits change (x86-64: a rel32's low byte, a carry perhaps into the next
/// ones; AArch64: the instruction's offset field). A site is the first
/// changed byte (AArch64: its instruction), and the 4 bytes from it are
/// one field.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn describe(t: &dyn fastpath_jit::Emitter<host::Host>) -> Result<Emitted, fastpath_status> {
    use host::STEP;
    let plain = host::bytes(t, 0, 0)?;
    let len = plain.len();
    let moved = |slow_at, done_at| -> Result<Vec<u32>, fastpath_status> {
        let other = host::bytes(t, slow_at, done_at)?;
        let mut sites = Vec::new();
        let mut i = 0;
        while i < len {
            if other[i] != plain[i] {
                // The instruction's start (x86-64: STEP is 1, the byte itself).
                #[allow(clippy::modulo_one)]
                let site = i - i % STEP;
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
    let (slow, done) = (moved(STEP, 0)?, moved(0, STEP)?);
    let mut info = fastpath_jit_code {
        len,
        n_slow: slow.len() as u32,
        n_done: done.len() as u32,
        clobbers: t.clobbers(host::ISA).0,
        budget: t.budget(host::ISA) as u32,
        ..fastpath_jit_code::default()
    };
    info.slow_sites[..slow.len()].copy_from_slice(&slow);
    info.done_sites[..done.len()].copy_from_slice(&done);
    Ok(Emitted { bytes: plain, info })
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

//! `fastpath jit --only pair`: where the inlined lock + unlock pair's time
//! goes. The shipped template pair and variants of it, each one change
//! away, generated as loops like [`super::code`]'s and timed interleaved
//! (every row one short sample per round, rounds in a fresh random order)
//! with the Rust baselines of the same run: a variant that moves the time
//! names the cause, one that does not rules it out.
//!
//! Every variant keeps the lock protocol of the template (the header's CAS
//! 01→00 and 00→01, the lock-stack push and pop in the thread block) and
//! its slow paths (the library's enter and exit through the template's
//! stubs), except the controls: the header's CAS pair alone with two
//! loads (the template's) or one (Rust's `cas-pair`), and parking_lot's
//! shape (CASes against constants, no load), as generated code.
//!
//! What the variants show on x86-64: a locked instruction is a full
//! fence, so a load after it (the header word, the lock-stack's top and
//! entries) cannot complete before it has, and the next locked instruction
//! waits for those loads: each load between two CASes adds its latency to
//! the pair. parking_lot's pair has none (its expected values are
//! constants); the lightweight protocol (HotSpot's and the Rust fast
//! path's alike) has the header load and the lock-stack loads before each
//! CAS.

use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{x64::*, RegSet};
use fastpath_jit::{slow, Emit, EmitStub, Labels, LockEnter, LockExit, LockRegs, LockStackLayout, SlowStub};

use super::code::Installed;

/// The page size whose address bits a load is compared on against the
/// store buffer (4 KiB aliasing, below).
pub const PAGE: usize = 4096;

/// Where `--only pair` puts the lock rows' header and counter: each a byte
/// offset past the running thread's block, modulo [`PAGE`], or wherever
/// the allocator put them (`None`).
///
/// What it tests, 4 KiB aliasing: an Intel core decides whether a load
/// may pass the stores still in its store buffer by comparing address
/// bits 11:0 only, so a load whose low bits match an older store's is held
/// (or replayed) as if it depended on it, though the full addresses
/// differ. The pair stores to the lock-stack entry it pushes (at the block
/// plus `top`), to the `top` field
/// ([`fastpath::thread::LOCK_STACK_TOP_OFFSET`]) and to the counter, and
/// loads the header after them; parking_lot's pair loads nothing between
/// its stores and CASes. Measured on an Intel guest, only a header at the
/// `top` field's offset costs (the next enter's header load behind the
/// exit's store to `top`: the pair with the exit expecting enter's word
/// about 15 % slower); the allocator's placement is the same in every
/// process of one command and environment (heap and TLS move by pages).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// The header's offset past the thread block, modulo 4096.
    pub header: Option<u16>,
    /// The counter's offset past the thread block, modulo 4096.
    pub counter: Option<u16>,
}

/// Which of the pair's stores a header `header` bytes past the thread
/// block (modulo [`PAGE`]) aliases, if any: the lock-stack top field, the
/// entry the pair pushes (at the block + `top`) or the counter (at
/// `counter`). Only the top field's has been measured to cost (the header
/// load of the next enter waits behind the exit's store to `top`).
pub fn aliased_store(header: usize, top: usize, counter: usize) -> Option<&'static str> {
    let overlaps = |a: usize, alen: usize, b: usize, blen: usize| {
        b.wrapping_sub(a) % PAGE < alen || a.wrapping_sub(b) % PAGE < blen
    };
    let top_field = fastpath::thread::LOCK_STACK_TOP_OFFSET;
    if overlaps(header, 8, top_field, 4) {
        Some("the lock-stack top field")
    } else if overlaps(header, 8, top, 8) {
        Some("the pushed lock-stack entry")
    } else if overlaps(header, 8, counter, 8) {
        Some("the counter")
    } else {
        None
    }
}

/// Where an unplaced row's header goes if the allocator's address aliases
/// one of the pair's stores: past the block's hot fields, away from
/// everything the pair stores to (the sweep's control offset).
pub const UNALIASED_HEADER: u16 = 0x400;

/// A value at a chosen offset from an address modulo [`PAGE`]: one element
/// of a boxed slice long enough to hold every 8-byte residue.
pub struct Placed<T> {
    slots: Box<[T]>,
    index: usize,
}

impl<T> Placed<T> {
    /// `make()`'s value at `from + at` modulo [`PAGE`] (`at` a multiple of
    /// `T`'s size, `from` aligned to it), or in a box of its own without
    /// `at`.
    pub fn new(from: usize, at: Option<u16>, mut make: impl FnMut() -> T) -> Placed<T> {
        let size = std::mem::size_of::<T>();
        assert!(size > 0 && PAGE % size == 0, "placed values divide the page");
        let n = if at.is_some() { PAGE / size + 1 } else { 1 };
        let slots: Box<[T]> = (0..n).map(|_| make()).collect();
        let index = match at {
            None => 0,
            Some(at) => {
                let want = from.wrapping_add(at as usize);
                let index = want.wrapping_sub(slots.as_ptr() as usize) % PAGE / size;
                assert_eq!(
                    (slots.as_ptr() as usize + index * size) % PAGE,
                    want % PAGE,
                    "offset {at} from {from:#x} is not a multiple of the {size}-byte element"
                );
                index
            }
        };
        Placed { slots, index }
    }

    /// The placed value.
    pub fn get(&self) -> &T {
        &self.slots[self.index]
    }

    /// The placed value, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.slots[self.index]
    }

    /// Its address.
    pub fn addr(&self) -> usize {
        self.get() as *const T as usize
    }

    /// Its address's offset past `from`, modulo [`PAGE`].
    pub fn offset_from(&self, from: usize) -> usize {
        self.addr().wrapping_sub(from) % PAGE
    }
}

impl Placed<fastpath::sync::Header> {
    /// The placed header, pinned.
    pub fn pinned(&self) -> std::pin::Pin<&fastpath::sync::Header> {
        // SAFETY: the header is an element of a boxed slice this value owns
        // and never replaces or hands out mutably, so it stays at this
        // address until the slice is dropped in place with it.
        unsafe { std::pin::Pin::new_unchecked(self.get()) }
    }
}

/// One generated pair loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Row name.
    pub name: &'static str,
    /// What the row changes against `template`.
    pub what: &'static str,
    /// The shipped templates (else the hand-written copy below, changed).
    pub shipped: bool,
    /// `top` written back from the register (`add`/`sub` on the register,
    /// a 32-bit store) instead of an `add`/`sub` on memory.
    pub store_top: bool,
    /// Exit reads `top` as the 32-bit word enter wrote, not its low byte.
    pub exit_dword: bool,
    /// Exit reads `top` back from memory at all (else it keeps enter's
    /// register: what a JIT that knows the pair is adjacent could emit).
    pub exit_reload: bool,
    /// Exit's expected header word is the one enter's CAS stored, kept in
    /// its register (no load of the header after enter's locked CAS): with
    /// `shipped`, `LockExit::emit_expecting` (safe whatever the register
    /// holds); in the copy, the word used unmasked, which is only right
    /// after a first-level fast enter (a measurement, not a template).
    pub exit_word_reg: bool,
    /// Enter's CAS first tries the fresh header's word
    /// (`LockEnter::emit_guessing`), no load of the header before it.
    pub enter_guess: bool,
    /// `add qword [counter], 1` between enter and exit.
    pub counter: bool,
    /// What is locked.
    pub shape: Shape,
    /// Bytes of `nop` after the 64-byte-aligned loop head, before the body.
    pub shift: u8,
}

/// What a variant's pair does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The lightweight lock: lock-stack and the header's CASes.
    Lock,
    /// The header's CASes alone, each after a load of the header (the
    /// template's two loads after a locked instruction).
    CasTwoLoads,
    /// The header's CASes, one load: the second CAS expects the word the
    /// first stored (Rust's `cas-pair` baseline).
    CasOneLoad,
    /// parking_lot's raw mutex as generated code: CAS 0→1 and 1→0 on a
    /// word of its own, expected values constants, no load at all.
    ParkingLot,
}

const BASE: Variant = Variant {
    name: "template",
    what: "fastpath-jit's LockEnter + add qword [counter], 1 + LockExit (loading the header), loop head 64-aligned",
    shipped: true,
    store_top: false,
    exit_dword: false,
    exit_reload: true,
    exit_word_reg: false,
    enter_guess: false,
    counter: true,
    shape: Shape::Lock,
    shift: 0,
};

/// The rows, `template` first.
pub const VARIANTS: &[Variant] = &[
    BASE,
    Variant {
        name: "template-expecting",
        what: "the shipped LockEnter + LockExit::emit_expecting(mark): exit's expected word from enter's mark register, no header load after enter's CAS",
        exit_word_reg: true,
        ..BASE
    },
    Variant {
        name: "template-guessing",
        what: "the shipped LockEnter::emit_guessing(fresh header) + LockExit::emit_expecting(mark): no header load between the pair's CASes, as a JIT that knows the class's neutral header emits",
        exit_word_reg: true,
        enter_guess: true,
        ..BASE
    },
    Variant {
        name: "copy",
        what: "the hand-written copy of the template (must time as `template`)",
        shipped: false,
        ..BASE
    },
    Variant {
        name: "store-top",
        what: "top updated in the register and stored (mov), not add/sub on memory",
        shipped: false,
        store_top: true,
        ..BASE
    },
    Variant {
        name: "exit-dword",
        what: "exit loads top as a dword (as enter stored it), not movzx byte",
        shipped: false,
        exit_dword: true,
        ..BASE
    },
    Variant {
        name: "store-top+dword",
        what: "both of the above",
        shipped: false,
        store_top: true,
        exit_dword: true,
        ..BASE
    },
    Variant {
        name: "no-reload",
        what: "exit keeps enter's top register (no load of top, no load of the entry it just pushed)",
        shipped: false,
        store_top: true,
        exit_reload: false,
        ..BASE
    },
    Variant {
        name: "no-counter",
        what: "template without the increment",
        shipped: false,
        counter: false,
        ..BASE
    },
    Variant {
        name: "exit-word-reg",
        what: "the copy, its exit's expected word enter's register unmasked (right only after a first-level fast enter): the bound of template-expecting",
        shipped: false,
        store_top: true,
        exit_reload: false,
        exit_word_reg: true,
        ..BASE
    },
    Variant {
        name: "cas-2-loads",
        what: "no lock-stack: the header loaded before each of its two CASes (the template's memory chain without the lock-stack)",
        shipped: false,
        shape: Shape::CasTwoLoads,
        ..BASE
    },
    Variant {
        name: "cas-1-load",
        what: "no lock-stack: one header load, the second CAS expects the word the first stored (Rust's cas-pair as generated code)",
        shipped: false,
        shape: Shape::CasOneLoad,
        ..BASE
    },
    Variant {
        name: "pl-shape",
        what: "parking_lot's raw mutex as generated code: CAS 0→1, increment, CAS 1→0 on a word of its own, no load",
        shipped: false,
        shape: Shape::ParkingLot,
        ..BASE
    },
    Variant {
        name: "shift-16",
        what: "template, loop body 16 bytes after the 64-aligned head",
        shift: 16,
        ..BASE
    },
    Variant {
        name: "shift-32",
        what: "template, loop body 32 bytes after the 64-aligned head",
        shift: 32,
        ..BASE
    },
];

/// Generates `v`'s loop (the [`super::code::LoopFn`] signature: thread,
/// header, counter, n) and installs it.
pub fn generate(v: &Variant) -> anyhow::Result<Installed> {
    let layout = LockStackLayout::fastpath().map_err(|e| anyhow::anyhow!("{e}"))?;
    let regs = LockRegs::new(RDI, RSI, &[R9, R10]).map_err(|e| anyhow::anyhow!("{e}"))?;
    let live = RegSet::of(&[RDI, RSI, RDX, RCX, R8, R11, RAX]);
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let enter = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let exit = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    let (top, end) = (ops.new_dynamic_label(), ops.new_dynamic_label());
    let (top_off, stack_end) = (layout.top, layout.end);
    dynasm!(ops
        ; .arch x64
        ; push rbx
        ; test rcx, rcx
        ; jz =>end
        ; .align 64, 0x90
    );
    for _ in 0..v.shift {
        dynasm!(ops ; .arch x64 ; nop);
    }
    dynasm!(ops ; .arch x64 ; =>top);
    match v.shape {
        Shape::Lock if v.shipped && v.enter_guess => LockEnter { regs, layout }
            .emit_guessing(&mut ops, enter, fastpath::sync::Header::new().raw() as u64)
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        Shape::Lock if v.shipped => LockEnter { regs, layout }
            .emit(&mut ops, enter)
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        Shape::Lock => {
            dynasm!(ops
                ; .arch x64
                ; mov r9d, DWORD [rdi + top_off]
                ; cmp r9d, stack_end
                ; jae =>enter.slow
                ; cmp rsi, QWORD [rdi + r9 - 8]
                ; je >push
                ; mov r10, QWORD [rsi]
                ; test r10d, 2
                ; jnz =>enter.slow
                ; mov rax, r10
                ; or rax, 1
                ; and r10, -2
                ; lock cmpxchg QWORD [rsi], r10
                ; jne =>enter.slow
                ; push:
                ; mov QWORD [rdi + r9], rsi
            );
            if v.store_top {
                dynasm!(ops ; .arch x64 ; add r9d, 8 ; mov DWORD [rdi + top_off], r9d);
            } else {
                dynasm!(ops ; .arch x64 ; add DWORD [rdi + top_off], 8);
            }
        }
        Shape::CasTwoLoads | Shape::CasOneLoad => {
            dynasm!(ops
                ; .arch x64
                ; mov r10, QWORD [rsi]
                ; test r10d, 2
                ; jnz =>enter.slow
                ; mov rax, r10
                ; or rax, 1
                ; and r10, -2
                ; lock cmpxchg QWORD [rsi], r10
                ; jne =>enter.slow
            );
        }
        Shape::ParkingLot => {
            dynasm!(ops
                ; .arch x64
                ; xor eax, eax
                ; mov r10d, 1
                ; lock cmpxchg QWORD [r8], r10
                ; jne =>enter.slow
            );
        }
    }
    dynasm!(ops ; .arch x64 ; =>enter.done);
    if v.counter {
        dynasm!(ops ; .arch x64 ; add QWORD [rdx], 1);
    }
    match v.shape {
        Shape::Lock if v.shipped && v.exit_word_reg => LockExit { regs, layout }
            .emit_expecting(&mut ops, exit, R10)
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        Shape::Lock if v.shipped => LockExit { regs, layout }
            .emit(&mut ops, exit)
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        Shape::Lock => {
            if !v.exit_reload {
                // r9 holds enter's top + 8 (store_top); the entry is rsi.
                dynasm!(ops
                    ; .arch x64
                    ; cmp rsi, QWORD [rdi + r9 - 16]
                    ; je >pop
                );
            } else {
                if v.exit_dword {
                    dynasm!(ops ; .arch x64 ; mov r9d, DWORD [rdi + top_off]);
                } else {
                    dynasm!(ops ; .arch x64 ; movzx r9d, BYTE [rdi + top_off]);
                }
                dynasm!(ops
                    ; .arch x64
                    ; cmp rsi, QWORD [rdi + r9 - 8]
                    ; jne =>exit.slow
                    ; cmp rsi, QWORD [rdi + r9 - 16]
                    ; je >pop
                );
            }
            if v.exit_word_reg {
                // Not recursive, so enter took its CAS path: r10 is the
                // word it stored.
                dynasm!(ops ; .arch x64 ; mov rax, r10);
            } else {
                dynasm!(ops
                    ; .arch x64
                    ; mov rax, QWORD [rsi]
                    ; and rax, -4
                    ; bts rax, 63
                );
            }
            dynasm!(ops
                ; .arch x64
                ; lea r10, [rax + 1]
                ; lock cmpxchg QWORD [rsi], r10
                ; jne =>exit.slow
                ; pop:
            );
            if v.store_top {
                dynasm!(ops ; .arch x64 ; sub r9d, 8 ; mov DWORD [rdi + top_off], r9d);
            } else {
                dynasm!(ops ; .arch x64 ; sub DWORD [rdi + top_off], 8);
            }
        }
        Shape::CasTwoLoads => {
            dynasm!(ops
                ; .arch x64
                ; mov rax, QWORD [rsi]
                ; and rax, -4
                ; bts rax, 63
                ; lea r10, [rax + 1]
                ; lock cmpxchg QWORD [rsi], r10
                ; jne =>exit.slow
            );
        }
        Shape::CasOneLoad => {
            dynasm!(ops
                ; .arch x64
                ; mov rax, r10
                ; lea r10, [rax + 1]
                ; lock cmpxchg QWORD [rsi], r10
                ; jne =>exit.slow
            );
        }
        Shape::ParkingLot => {
            dynasm!(ops
                ; .arch x64
                ; mov eax, 1
                ; xor r10d, r10d
                ; lock cmpxchg QWORD [r8], r10
                ; jne =>exit.slow
            );
        }
    }
    dynasm!(ops
        ; .arch x64
        ; =>exit.done
        ; dec rcx
        ; jnz =>top
        ; =>end
        ; pop rbx
        ; ret
    );
    // The library's enter and exit: never reached uncontended (the table
    // reports the lock-stack's depth after each run), and correct if they
    // were for every `Lock` variant; the others do not lock through the
    // library, so their stubs only count.
    let (fe, fx) = if v.shape == Shape::Lock {
        (
            slow::monitor_enter as *const () as usize,
            slow::monitor_exit as *const () as usize,
        )
    } else {
        (super::code::count_slow_ptr(), super::code::count_slow_ptr())
    };
    for (l, func) in [(enter, fe), (exit, fx)] {
        SlowStub {
            func,
            args: vec![RDI, RSI],
            ret: None,
            live,
        }
        .emit(&mut ops, l.slow, l.done)
        .map_err(|e| anyhow::anyhow!("slow stub: {e}"))?;
    }
    let code = ops
        .finalize()
        .map_err(|e| anyhow::anyhow!("assembling the {} loop: {e:?}", v.name))?;
    let cache = CodeCache::new(code.len().max(4096)).map_err(|e| anyhow::anyhow!("code cache: {e}"))?;
    let entry = cache
        .install(&code)
        .map_err(|e| anyhow::anyhow!("installing the {} loop: {e}", v.name))?;
    Ok(Installed::new(entry, cache, code.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placed_values_land_at_every_asked_offset_from_any_base() {
        let mut checked = 0;
        for base in [0x1000usize, 0x7f00_1234_5008, 0x55aa_0c08] {
            for at in (0..PAGE as u16).step_by(8) {
                let p = Placed::new(base, Some(at), || 0u64);
                assert_eq!(p.offset_from(base), at as usize, "base {base:#x}, at {at}");
                assert_eq!(p.addr() % 8, 0);
                checked += 1;
            }
        }
        let unplaced = Placed::new(0x1000, None, || 7u64);
        assert_eq!(*unplaced.get(), 7);
        assert_eq!(checked, 3 * PAGE / 8);
    }

    #[test]
    fn aliasing_is_an_overlap_of_the_low_12_bits() {
        let top = fastpath::thread::LOCK_STACK_OFFSET;
        let field = fastpath::thread::LOCK_STACK_TOP_OFFSET;
        assert_eq!(aliased_store(field, top, 0x800), Some("the lock-stack top field"));
        // A word starting 7 bytes below the 4-byte field still overlaps it;
        // one starting at its end does not.
        assert_eq!(
            aliased_store(field.wrapping_sub(7) % PAGE, top, 0x800),
            Some("the lock-stack top field")
        );
        assert_eq!(aliased_store(field + 4, top, 0x800), None);
        assert_eq!(
            aliased_store(top, top, 0x800),
            Some("the pushed lock-stack entry")
        );
        assert_eq!(aliased_store(top + 8, top, 0x800), None);
        assert_eq!(aliased_store(0x800, top, 0x800), Some("the counter"));
        assert_eq!(aliased_store(0x804, top, 0x800), Some("the counter"));
        assert_eq!(aliased_store(UNALIASED_HEADER as usize, top, 0x800), None);
    }
}

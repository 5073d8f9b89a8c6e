//! `fastpath jit --only pair`: where the inlined lock + unlock pair's time
//! goes. The shipped template pair in its three forms (`template`: the
//! exit loads the header; `template-expecting`: the exit expects the word
//! enter's CAS stored; `template-guessing`: enter's CAS also expects the
//! class's neutral header, so no load sits between the two locked CASes)
//! and the `template` loop shifted against its 64-byte-aligned head,
//! generated as loops like [`super::code`]'s and timed interleaved (every
//! row one short sample per round, rounds in a fresh random order) with
//! the Rust baselines of the same run, each row's header and counter where
//! the allocator put them or at a [`Placement`] from the thread block.
//!
//! What the forms show on x86-64: a locked instruction is a full fence, so
//! a load after it (the header word) cannot complete before it has, and the
//! next locked instruction waits for that load: each load between two CASes
//! adds its latency to the pair. parking_lot's pair has none (its expected
//! values are constants); the lightweight protocol (HotSpot's and the Rust
//! fast path's alike) loads the header before each CAS, which the
//! expecting and guessing forms remove one at a time. Hand-written
//! variants one change away from the template (the lock-stack's loads and
//! stores, the increment, the header CASes alone) located it and are
//! recorded in the benchmarks notebook (`docs/benchmarks-log-2026.md`).

use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::CodeCache;
use fastpath_jit::reg::{x64::*, RegSet};
use fastpath_jit::{slow, Emit, EmitStub, Labels, LockEnter, LockExit, LockRegs, LockStackLayout, SlowStub};

use fastpath::sync::{self, Header};

use super::code::{self, Installed};

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

/// One generated pair loop: the shipped templates, in one of their forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Row name.
    pub name: &'static str,
    /// What the row is.
    pub what: &'static str,
    /// Exit's expected header word is the one enter's CAS stored, kept in
    /// its register (`LockExit::emit_expecting`, safe whatever the register
    /// holds): no load of the header after enter's locked CAS.
    pub exit_expecting: bool,
    /// Enter's CAS first tries the fresh header's word
    /// (`LockEnter::emit_guessing`), no load of the header before it.
    pub enter_guess: bool,
    /// Bytes of `nop` after the 64-byte-aligned loop head, before the body.
    pub shift: u8,
}

const BASE: Variant = Variant {
    name: "template",
    what: "fastpath-jit's LockEnter + add qword [counter], 1 + LockExit (loading the header), loop head 64-aligned",
    exit_expecting: false,
    enter_guess: false,
    shift: 0,
};

/// The rows, `template` first.
pub const VARIANTS: &[Variant] = &[
    BASE,
    Variant {
        name: "template-expecting",
        what: "LockEnter + LockExit::emit_expecting(mark): exit's expected word from enter's mark register, no header load after enter's CAS",
        exit_expecting: true,
        ..BASE
    },
    Variant {
        name: "template-guessing",
        what: "LockEnter::emit_guessing(fresh header) + LockExit::emit_expecting(mark): no header load between the pair's CASes, as a JIT that knows the class's neutral header emits",
        exit_expecting: true,
        enter_guess: true,
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
/// header, counter, n; the fifth argument unused) and installs it.
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
    if v.enter_guess {
        LockEnter { regs, layout }
            .emit_guessing(&mut ops, enter, fastpath::sync::Header::new().raw() as u64)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    } else {
        LockEnter { regs, layout }
            .emit(&mut ops, enter)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    dynasm!(ops
        ; .arch x64
        ; =>enter.done
        ; add QWORD [rdx], 1
    );
    if v.exit_expecting {
        LockExit { regs, layout }
            .emit_expecting(&mut ops, exit, R10)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    } else {
        LockExit { regs, layout }
            .emit(&mut ops, exit)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
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
    // were.
    for (l, func) in [
        (enter, slow::monitor_enter as *const () as usize),
        (exit, slow::monitor_exit as *const () as usize),
    ] {
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

/// A pair row's loop on a header and a counter of its own, each where
/// the allocator put it or at a [`Placement`] from the thread block.
pub(super) struct PairFixture {
    name: &'static str,
    code: code::Installed,
    /// The block of the thread the fixture was placed for (and runs on).
    thread: *const fastpath::thread::ThreadBlock,
    header: Placed<Header>,
    counter: Placed<u64>,
}

impl PairFixture {
    pub(super) fn new(v: &Variant, place: Placement) -> anyhow::Result<PairFixture> {
        // One lock through the library registers the thread for
        // lightweight locking (an unregistered thread's lock-stack top is
        // the inactive value, which sends the templates' enter to the slow
        // path, and the variants that keep enter's registers for the exit
        // need the fast one).
        let h = Box::pin(Header::new());
        drop(sync::lock(h.as_ref()));
        let thread = fastpath::thread::current().as_ptr();
        let (header, counter) = placed_pair(place);
        Ok(PairFixture {
            name: v.name,
            code: generate(v)?,
            thread,
            header,
            counter,
        })
    }

    /// The header's and the counter's offsets past the thread block,
    /// modulo 4096.
    pub(super) fn offsets(&self) -> (usize, usize) {
        let t = self.thread as usize;
        (self.header.offset_from(t), self.counter.offset_from(t))
    }

    pub(super) fn run(&mut self, n: u64) {
        let thread = fastpath::thread::current().as_ptr();
        assert_eq!(
            thread, self.thread,
            "a pair fixture runs on the thread it was placed for"
        );
        let obj: *const u8 = (self.header.get() as *const Header).cast();
        let before = lock_stack_top(fastpath::thread::current());
        (self.code.func())(thread, obj, self.counter.get_mut(), n, std::ptr::null());
        let after = lock_stack_top(fastpath::thread::current());
        assert_eq!(
            before, after,
            "the {} pair left the lock-stack's top at {after:#x} (was {before:#x})",
            self.name
        );
    }
}

/// A lock row's header and counter at `place` from the current thread's
/// block; where `place` leaves the header to the allocator and the
/// allocator's address aliases one of the pair's stores (4 KiB aliasing,
/// [`Placement`]), the header goes to [`UNALIASED_HEADER`]
/// instead, so an unplaced row times the common case whatever the
/// environment's size did to the heap's layout.
pub(super) fn placed_pair(place: Placement) -> (Placed<Header>, Placed<u64>) {
    let t = fastpath::thread::current();
    let at = t.as_ptr() as usize;
    let counter = Placed::new(at, place.counter, || 0u64);
    let header = Placed::new(at, place.header, Header::new);
    let aliased = aliased_store(
        header.offset_from(at),
        lock_stack_top(t) as usize,
        counter.offset_from(at),
    );
    if place.header.is_none() && aliased.is_some() {
        let header = Placed::new(at, Some(UNALIASED_HEADER), Header::new);
        return (header, counter);
    }
    (header, counter)
}

/// The lock-stack top of the current thread's block `t` (its published
/// `u32`; the entry a pair pushes is at the block + this).
pub(super) fn lock_stack_top(t: &fastpath::thread::ThreadBlock) -> u32 {
    // SAFETY: the current thread's block, which lives as long as the
    // thread; the lock-stack top is a u32 at its published offset, written
    // only by this thread.
    unsafe {
        (t.as_ptr() as *const u8)
            .add(fastpath::thread::LOCK_STACK_TOP_OFFSET)
            .cast::<u32>()
            .read()
    }
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

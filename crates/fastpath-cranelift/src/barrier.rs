//! Object barriers and TLAB allocation as CLIF, the shapes of the
//! templates described in `fastpath_jit::template::barrier` and
//! `template::thread::TlabAlloc`:
//!
//! - [`card_mark`]: `idx = addr >> shift; base = [thread+card_table_base]`
//!   (or an immediate base, as HotSpot embeds it); `store8 dirty,
//!   [base+idx]`; conditional (`UseCondCardMark`): an already dirty card is
//!   not written again. A plain byte store, as the Rust barrier's.
//! - [`g1_card`] (G1's filtered post-barrier, the shape of
//!   `fastpath_jit::G1Card`): `(addr ^ val) >> region_shift == 0`
//!   (same region), `val == 0`, then the card `[base + (addr >>
//!   card_shift)]` compared with dirty; a clean card calls `slow(thread,
//!   addr)` in a cold block (fastpath's: `fastpath_jit::slow::g1_card`:
//!   StoreLoad fence, re-check, dirty, enqueue). Only loads inline.
//! - [`brooks_read_barrier`]: `load [obj+forwarding]`.
//! - [`brooks_write_barrier`] (Shenandoah 2017, the Rust `brooks-wb`
//!   barrier's shape): the GC-state byte tested for the evacuation and
//!   has-forwarded bits, otherwise `load [obj+forwarding]`; when set, a
//!   cold block calls `slow(thread, obj) -> object to write` (fastpath's:
//!   `fastpath_jit::slow::brooks_wb`) and resolves the stored value
//!   through its forwarding word (null kept). Only loads inline.
//! - [`cas_ref`]: `atomic_cas [addr], expected → new`; a failure while
//!   forwarded objects exist (`gc_state` has-forwarded bit) may be a false
//!   one, so it calls the slow path, which retries on resolved copies
//!   (Shenandoah's CAS barrier; fastpath's: `fastpath_jit::slow::cas_ref`,
//!   returning `expected` on success); otherwise the witnessed value is
//!   the result. The CAS is the only shared write inline.
//! - [`tlab_alloc`]: bump `[thread+tlab_top]` by `size` unless it passes
//!   `[thread+tlab_end]`, else the slow path's allocation.
//! - [`satb_enqueue`], [`load_reference_barrier`]: the SATB and LRB
//!   barriers whole, the idle test inline and the medium paths of
//!   `fastpath_jit::template::gc_medium` (the queue push; the
//!   collection-set test and the resolution of a copy in the heap's cell
//!   format, `fastpath_jit::Forwardee`: the Brooks forwarding word compared
//!   with the object, or the compact layout word's 8 bytes with bit 31
//!   tested, then cleared and the word rotated by 32) in cold blocks
//!   before the slow call.
//! - The Brooks emitters ([`brooks_read_barrier`], [`brooks_write_barrier`]
//!   and their `_with_state` form, and `data`'s `DataBarrier::Forwarded`
//!   and `BrooksWrite`) read the forwarding word, which objects have only
//!   on a heap of the Brooks cell format
//!   (`fastpath::gc::Heap::cell_format`; a set with `brooks-rb` or
//!   `brooks-wb` always has it): their `forwarding` offset is
//!   `fastpath_jit::ObjectLayout::brooks_forwarding`'s, which refuses a
//!   compact-format layout.
//! - [`load_gc_state`] and the `_with_state` forms of the barriers that
//!   test the GC-state byte ([`satb_enqueue_with_state`],
//!   [`load_reference_barrier_at_with_state`],
//!   [`brooks_write_barrier_with_state`]): one load of the byte that
//!   several barriers test, for a JIT that knows no stop for the
//!   collector lies between them (the byte changes only there:
//!   `fastpath::gc`'s `heap/mutator.rs`; C2 commons the `gc_state` loads
//!   of one region the same way). The forms without the suffix load it
//!   themselves.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types::I32, types::I64, types::I8, Block, BlockArg, FuncRef, InstBuilder, MemFlagsData, Value,
};
use cranelift_frontend::FunctionBuilder;
use fastpath::gc::layout::{RefWidth, COMPRESSED_REF_SHIFT, LAYOUT_FORWARDED_BIT as FORWARDED_BIT};
use fastpath_jit::{CsetMap, Forwardee, SatbQueueLayout, ThreadLayout};

// The compact form tests the forwarded bit as the sign of the layout
// word's low half.
const _: () = assert!(FORWARDED_BIT == 1 << 31);

/// The reference in the slot at `addr + offset` of a heap whose slots are
/// `refs` wide, as an address (a plain load: for a previous value only
/// its identity matters, as the Rust SATB barrier's Relaxed load).
fn load_slot(
    b: &mut FunctionBuilder<'_>,
    refs: RefWidth,
    flags: MemFlagsData,
    addr: Value,
    offset: i32,
) -> Value {
    match refs {
        RefWidth::Full => b.ins().load(I64, flags, addr, offset),
        RefWidth::Compressed => {
            let narrow = b.ins().uload32(flags, addr, offset);
            b.ins().ishl_imm_s(narrow, i64::from(COMPRESSED_REF_SHIFT))
        }
        RefWidth::Unscaled => b.ins().uload32(flags, addr, offset),
    }
}

use crate::preserve::{preserving_call, preserving_call_displaced};
use crate::slow::cold_call;

/// Where the card post-barrier finds the biased card-table base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardTable {
    /// Loaded from the thread block (`ThreadLayout::card_table_base`).
    Thread,
    /// An immediate: the JIT knows the biased base when it compiles.
    Base(usize),
}

/// The card post-barrier on the address stored to (or the object's).
pub fn card_mark(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    addr: Value,
    layout: &ThreadLayout,
    table: CardTable,
    conditional: bool,
) {
    let trusted = MemFlagsData::trusted();
    let idx = b.ins().ushr_imm_u(addr, i64::from(layout.card_shift));
    let base = match table {
        CardTable::Thread => b.ins().load(I64, trusted, thread, layout.card_table_base),
        CardTable::Base(base) => b.ins().iconst(I64, base as i64),
    };
    let card = b.ins().iadd(base, idx);
    let dirty = b.ins().iconst(I8, i64::from(layout.dirty_card));
    if conditional {
        let (store, cont) = (b.create_block(), b.create_block());
        let now = b.ins().load(I8, trusted, card, 0);
        let clean = b.ins().icmp(IntCC::NotEqual, now, dirty);
        b.ins().brif(clean, store, &[], cont, &[]);
        b.switch_to_block(store);
        b.ins().store(trusted, dirty, card, 0);
        b.ins().jump(cont, &[]);
        b.switch_to_block(cont);
    } else {
        b.ins().store(trusted, dirty, card, 0);
    }
}

/// G1's filtered card post-barrier after a store of `val` into the field
/// at `addr`: a non-null store across regions (addresses that differ above
/// bit `region_shift`) into a card that is not dirty calls `slow(thread,
/// addr)` in a cold block; see the module docs.
#[allow(clippy::too_many_arguments)] // the template's fields, one per argument
pub fn g1_card(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    addr: Value,
    val: Value,
    layout: &ThreadLayout,
    table: CardTable,
    region_shift: u8,
    slow: FuncRef,
) {
    let trusted = MemFlagsData::trusted();
    let (not_null, card, call, cont) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    let x = b.ins().bxor(addr, val);
    let cross = b.ins().ushr_imm_u(x, i64::from(region_shift));
    b.ins().brif(cross, not_null, &[], cont, &[]);

    b.switch_to_block(not_null);
    b.ins().brif(val, card, &[], cont, &[]);

    b.switch_to_block(card);
    let idx = b.ins().ushr_imm_u(addr, i64::from(layout.card_shift));
    let base = match table {
        CardTable::Thread => b.ins().load(I64, trusted, thread, layout.card_table_base),
        CardTable::Base(base) => b.ins().iconst(I64, base as i64),
    };
    let at = b.ins().iadd(base, idx);
    let now = b.ins().uload8(I32, trusted, at, 0);
    let clean = b
        .ins()
        .icmp_imm_u(IntCC::NotEqual, now, i64::from(layout.dirty_card));
    b.ins().brif(clean, call, &[], cont, &[]);

    cold_call(b, call, slow, &[thread, addr], cont);
    b.switch_to_block(cont);
}

/// The Brooks read barrier: the copy to use of `obj`, whose forwarding word
/// is at `obj + forwarding` (Brooks: −8). Brooks-format heaps only.
pub fn brooks_read_barrier(b: &mut FunctionBuilder<'_>, obj: Value, forwarding: i32) -> Value {
    b.ins().load(I64, MemFlagsData::trusted(), obj, forwarding)
}

/// The Brooks write barrier of a write of `val` into `obj`: the object to
/// write (its copy) and the value to store, `(obj', val')`. Inline: the
/// test of `state_bits` in the GC-state byte at `thread + gc_state` and
/// the load of `obj`'s forwarding word (at `obj + forwarding`, Brooks:
/// −8), `val` unchanged. When a bit is set, in cold blocks:
/// `slow(thread, obj) -> obj'` and `val`'s forwarding word (null kept).
/// `state_bits` for fastpath: `fastpath_jit::BrooksWriteBarrier::FASTPATH_STATE_BITS`.
/// Brooks-format heaps only.
#[allow(clippy::too_many_arguments)] // the template's fields, one per argument
pub fn brooks_write_barrier(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    val: Value,
    gc_state: i32,
    state_bits: u8,
    forwarding: i32,
    slow: FuncRef,
) -> (Value, Value) {
    let state = load_gc_state(b, thread, gc_state);
    brooks_write_barrier_with_state(b, state, thread, obj, val, state_bits, forwarding, slow)
}

/// [`brooks_write_barrier`] testing `state`, the GC-state byte
/// [`load_gc_state`] loaded where nothing between it and this barrier
/// stops for the collector.
#[allow(clippy::too_many_arguments)] // the template's fields, one per argument
pub fn brooks_write_barrier_with_state(
    b: &mut FunctionBuilder<'_>,
    state: Value,
    thread: Value,
    obj: Value,
    val: Value,
    state_bits: u8,
    forwarding: i32,
    slow: FuncRef,
) -> (Value, Value) {
    let trusted = MemFlagsData::trusted();
    let (fast, call, resolve, cont) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    let (obj_out, val_out) = (b.append_block_param(cont, I64), b.append_block_param(cont, I64));
    let active = b.ins().band_imm_u(state, i64::from(state_bits));
    b.ins().brif(active, call, &[], fast, &[]);

    b.switch_to_block(fast);
    // As the read barrier: the accesses through the copy depend on its
    // address (the Rust `forwardee`'s Acquire).
    let to = b.ins().load(I64, trusted, obj, forwarding);
    b.ins().jump(cont, &[to.into(), val.into()]);

    for cold in [call, resolve] {
        b.set_cold_block(cold);
    }
    b.switch_to_block(call);
    let c = b.ins().call(slow, &[thread, obj]);
    let o = b.inst_results(c)[0];
    b.ins().brif(val, resolve, &[], cont, &[o.into(), val.into()]);

    b.switch_to_block(resolve);
    let v = b.ins().load(I64, trusted, val, forwarding);
    b.ins().jump(cont, &[o.into(), v.into()]);

    b.switch_to_block(cont);
    (obj_out, val_out)
}

/// The reference CAS on the field at `addr`: the witnessed value (equal to
/// `expected` on success); `slow(thread, addr, expected, new) -> expected
/// on success, else the witness` in a cold block on a failure while
/// forwarded objects exist (fastpath's: `import_library_slow_path` of
/// `LibraryPath::CasRef`, the library's retry of a false failure).
pub fn cas_ref(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    addr: Value,
    expected: Value,
    new: Value,
    layout: &ThreadLayout,
    slow: FuncRef,
) -> Value {
    let trusted = MemFlagsData::trusted();
    let (failed, cold, cont) = (b.create_block(), b.create_block(), b.create_block());
    let result = b.append_block_param(cont, I64);
    let old = b.ins().atomic_cas(trusted, addr, expected, new);
    let won = b.ins().icmp(IntCC::Equal, old, expected);
    b.ins().brif(won, cont, &[old.into()], failed, &[]);

    b.switch_to_block(failed);
    let gc = b.ins().uload8(I64, trusted, thread, layout.gc_state);
    let forwarded = b.ins().band_imm_u(gc, i64::from(layout.has_forwarded_bit));
    b.ins().brif(forwarded, cold, &[], cont, &[old.into()]);

    preserving_cold_call(b, cold, slow, &[thread, addr, expected, new], cont);
    b.switch_to_block(cont);
    result
}

/// TLAB bump allocation of `size` bytes (aligned as the heap requires):
/// the new object's address, from the TLAB or from `slow(thread, size) ->
/// address` in a cold block when the TLAB is exhausted.
pub fn tlab_alloc(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    size: i32,
    layout: &ThreadLayout,
    slow: FuncRef,
) -> Value {
    let trusted = MemFlagsData::trusted();
    let (fast, cold, cont) = (b.create_block(), b.create_block(), b.create_block());
    let result = b.append_block_param(cont, I64);
    let top = b.ins().load(I64, trusted, thread, layout.tlab_top);
    let new_top = b.ins().iadd_imm_s(top, i64::from(size));
    let end = b.ins().load(I64, trusted, thread, layout.tlab_end);
    let over = b.ins().icmp(IntCC::UnsignedGreaterThan, new_top, end);
    b.ins().brif(over, cold, &[], fast, &[]);

    b.switch_to_block(fast);
    b.ins().store(trusted, new_top, thread, layout.tlab_top);
    b.ins().jump(cont, &[top.into()]);

    b.switch_to_block(cold);
    let size = b.ins().iconst(I64, i64::from(size));
    cold_call(b, cold, slow, &[thread, size], cont);
    b.switch_to_block(cont);
    result
}

/// The whole SATB pre-barrier of a store to the field at `field`: the
/// idle test inline, then in cold blocks the medium path of
/// `fastpath_jit::SatbEnqueue` (load the previous value, skip null,
/// push it on the thread's `SATBMarkQueue` at `queue`'s offsets) and, when
/// the buffer is full, `slow(thread, previous)`.
pub fn satb_enqueue(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    field: Value,
    layout: &ThreadLayout,
    queue: &SatbQueueLayout,
    slow: FuncRef,
) {
    let state = load_gc_state(b, thread, layout.gc_state);
    satb_enqueue_with_state(b, state, thread, field, layout, queue, slow);
}

/// [`satb_enqueue`] testing `state`, the GC-state byte [`load_gc_state`]
/// loaded where nothing between it and this barrier stops for the
/// collector.
pub fn satb_enqueue_with_state(
    b: &mut FunctionBuilder<'_>,
    state: Value,
    thread: Value,
    field: Value,
    layout: &ThreadLayout,
    queue: &SatbQueueLayout,
    slow: FuncRef,
) {
    satb_enqueue_slot_with_state(
        b,
        state,
        thread,
        field,
        RefWidth::Full,
        MemFlagsData::trusted(),
        layout,
        queue,
        slow,
    );
}

/// [`satb_enqueue_with_state`] of a store to the reference slot at `field`
/// of a heap whose slots are `refs` wide (`fastpath::gc::Heap::ref_width`):
/// a compressed slot's previous value is loaded as 32 bits and decoded
/// (shifted left by `COMPRESSED_REF_SHIFT`) before the queue gets it, so
/// the marker sees addresses in either heap. `slot` is the flags of that
/// load, those of the caller's own accesses to the slot: trusted, and
/// the slot's alias region where the caller gives its heap's memory
/// regions (Cranelift's alias analysis asks one region of every access to
/// a location; `MemFlagsData::trusted()` where it gives none).
#[allow(clippy::too_many_arguments)] // the template's fields, one per argument
pub fn satb_enqueue_slot_with_state(
    b: &mut FunctionBuilder<'_>,
    state: Value,
    thread: Value,
    field: Value,
    refs: RefWidth,
    slot: MemFlagsData,
    layout: &ThreadLayout,
    queue: &SatbQueueLayout,
    slow: FuncRef,
) {
    let trusted = MemFlagsData::trusted();
    let (medium, check, push, call, cont) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    let marking = b.ins().band_imm_u(state, i64::from(layout.marking_bit));
    b.ins().brif(marking, medium, &[], cont, &[]);

    for cold in [medium, check, push] {
        b.set_cold_block(cold);
    }
    b.switch_to_block(medium);
    let prev = load_slot(b, refs, slot, field, 0);
    b.ins().brif(prev, check, &[], cont, &[]);

    b.switch_to_block(check);
    let index = b.ins().load(I64, trusted, thread, queue.index);
    b.ins().brif(index, push, &[], call, &[]);

    b.switch_to_block(push);
    let next = b.ins().iadd_imm_s(index, -8);
    b.ins().store(trusted, next, thread, queue.index);
    let buffer = b.ins().load(I64, trusted, thread, queue.buffer);
    let slot = b.ins().iadd(buffer, next);
    b.ins().store(trusted, prev, slot, 0);
    b.ins().jump(cont, &[]);

    preserving_cold_call(b, call, slow, &[thread, prev], cont);
    b.switch_to_block(cont);
}

/// The whole load-reference barrier of a reference `obj` just loaded from
/// the field at `field`: the idle test inline, then in cold blocks the
/// collection-set test on `cset`'s byte map and the resolution of a copy
/// through the word `forwardee` names (the heap's cell format:
/// `fastpath_jit::ObjectLayout::fastpath(heap.cell_format())?.forwardee`),
/// and `slow(thread, obj, field) -> copy` for an object in the collection
/// set not copied yet (the library's `fastpath_jit::slow::lrb`, which
/// also heals the field). Returns the reference to use.
#[allow(clippy::too_many_arguments)] // the template's fields, one per argument
pub fn load_reference_barrier(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    field: Value,
    layout: &ThreadLayout,
    cset: &CsetMap,
    forwardee: Forwardee,
    slow: FuncRef,
) -> Value {
    let state = load_gc_state(b, thread, layout.gc_state);
    lrb(b, state, thread, obj, (field, 0), layout, cset, forwardee, slow)
}

/// [`load_reference_barrier`] of a reference loaded from the field at
/// `base + offset`: the field's address is computed in the cold block that
/// calls the slow path, so the fast path, whose load folds `offset` into
/// its address, computes nothing more and keeps no address live.
#[allow(clippy::too_many_arguments)] // the template's fields, one per argument
pub fn load_reference_barrier_at(
    b: &mut FunctionBuilder<'_>,
    thread: Value,
    obj: Value,
    base: Value,
    offset: i32,
    layout: &ThreadLayout,
    cset: &CsetMap,
    forwardee: Forwardee,
    slow: FuncRef,
) -> Value {
    let state = load_gc_state(b, thread, layout.gc_state);
    lrb(
        b,
        state,
        thread,
        obj,
        (base, offset),
        layout,
        cset,
        forwardee,
        slow,
    )
}

/// [`load_reference_barrier_at`] testing `state`, the GC-state byte
/// [`load_gc_state`] loaded where nothing between it and this barrier
/// stops for the collector.
#[allow(clippy::too_many_arguments)] // the template's fields, one per argument
pub fn load_reference_barrier_at_with_state(
    b: &mut FunctionBuilder<'_>,
    state: Value,
    thread: Value,
    obj: Value,
    base: Value,
    offset: i32,
    layout: &ThreadLayout,
    cset: &CsetMap,
    forwardee: Forwardee,
    slow: FuncRef,
) -> Value {
    lrb(
        b,
        state,
        thread,
        obj,
        (base, offset),
        layout,
        cset,
        forwardee,
        slow,
    )
}

#[allow(clippy::too_many_arguments)] // the template's fields, one per argument
fn lrb(
    b: &mut FunctionBuilder<'_>,
    state: Value,
    thread: Value,
    obj: Value,
    (base, offset): (Value, i32),
    layout: &ThreadLayout,
    cset: &CsetMap,
    forwardee: Forwardee,
    slow: FuncRef,
) -> Value {
    let trusted = MemFlagsData::trusted();
    let (medium, test, fwd, call, done, cont) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    let result = b.append_block_param(cont, I64);
    let resolved = b.append_block_param(done, I64);
    let forwarded = b.ins().band_imm_u(state, i64::from(layout.has_forwarded_bit));
    b.ins().brif(forwarded, medium, &[], cont, &[obj.into()]);

    for cold in [medium, test, fwd, done] {
        b.set_cold_block(cold);
    }
    // Every cold way ends in `done`, whose one edge into `cont` is the
    // join's only other one: the fast path's value and the result can
    // share a register, and the fast edge needs no move.
    b.switch_to_block(medium);
    b.ins().brif(obj, test, &[], done, &[obj.into()]);

    b.switch_to_block(test);
    let region = b.ins().ushr_imm_u(obj, i64::from(cset.region_shift));
    let map = b.ins().iconst(I64, cset.biased as i64);
    let at = b.ins().iadd(map, region);
    let byte = b.ins().uload8(I64, trusted, at, 0);
    let in_cset = b.ins().band_imm_u(byte, 1);
    b.ins().brif(in_cset, fwd, &[], done, &[obj.into()]);

    b.switch_to_block(fwd);
    // The word is published by the evacuating CAS's release; the reads
    // through the copy depend on its address (through the `band` and
    // `rotl` in the compact format).
    match forwardee {
        Forwardee::BrooksWord { offset } => {
            // The object's own address until it is copied, then the copy's.
            let to = b.ins().load(I64, trusted, obj, offset);
            let not_copied = b.ins().icmp(IntCC::Equal, to, obj);
            b.ins().brif(not_copied, call, &[], done, &[to.into()]);
        }
        Forwardee::LayoutWord { offset } => {
            // The object's own layout word (bit 31 clear, untagged or
            // tagged, whatever a tagged word's next 4 bytes hold) until it
            // is copied, then the copy with its halves swapped and bit 31
            // set (`fastpath::gc::layout::forwarded_layout_word`).
            // The bit is the low half's sign: a 32-bit test (x86-64 `test
            // r32, r32; js`), with no 64-bit mask to materialise.
            let word = b.ins().load(I64, trusted, obj, offset);
            let low = b.ins().ireduce(I32, word);
            let copied = b.ins().icmp_imm_s(IntCC::SignedLessThan, low, 0);
            let bare = b.ins().band_imm_u(word, !FORWARDED_BIT as i64);
            let to = b.ins().rotl_imm_u(bare, 32);
            b.ins().brif(copied, done, &[to.into()], call, &[]);
        }
    }

    b.set_cold_block(call);
    b.switch_to_block(call);
    let r = preserving_call_displaced(b, slow, &[thread, obj, base], offset).expect("the LRB's result");
    b.ins().jump(done, &[r.into()]);
    b.switch_to_block(done);
    b.ins().jump(cont, &[resolved.into()]);
    b.switch_to_block(cont);
    result
}

/// The GC-state byte at `thread + gc_state` (an i8), which the SATB, LRB
/// and Brooks write barriers test for their bits (the idle test: a byte
/// `test` of this value and a branch). The byte changes only while its
/// thread is stopped for the collector (`fastpath::gc`'s
/// `Mutator::refresh_gc_state`, on every way out of a stop), so one load
/// serves every barrier up to the next call that may stop: a safepoint
/// poll, an allocation's slow path, a call of Java code or of the
/// runtime. The barriers' own slow calls do not stop (the contract of
/// `fastpath::gc`'s `satb_slow_entry`).
pub fn load_gc_state(b: &mut FunctionBuilder<'_>, thread: Value, gc_state: i32) -> Value {
    b.ins().load(I8, MemFlagsData::trusted(), thread, gc_state)
}

/// Fills the cold `block`: `slow(args)` through [`preserving_call`] (no
/// register destroyed), then a jump to `cont`, with the result when `cont`
/// takes one. The cold block of every barrier here: the values live
/// across a barrier keep their registers on its fast path.
fn preserving_cold_call(
    b: &mut FunctionBuilder<'_>,
    block: Block,
    slow: FuncRef,
    args: &[Value],
    cont: Block,
) {
    b.set_cold_block(block);
    if b.current_block() != Some(block) {
        b.switch_to_block(block);
    }
    let r = preserving_call(b, slow, args);
    let pass: Vec<BlockArg> = if b.func.dfg.num_block_params(cont) > 0 {
        r.into_iter().map(Into::into).collect()
    } else {
        Vec::new()
    };
    b.ins().jump(cont, &pass);
}

//! The thread-block templates against the library's real `gc::Mutator`,
//! which keeps its TLAB, SATB queue and biased card base in the thread
//! block: the TLAB template bumps the mutator's TLAB (and the mutator's
//! next allocation comes after it), the SATB medium path pushes onto the
//! mutator's queue (which a collection then flushes), the card template
//! dirties the card the block's base names.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath::gc::{BarrierBits, BarrierSet, GcMode, Heap, HeapConfig, Mutator, SerialBarriers};
use fastpath::thread;
use fastpath_jit::reg::x64::*;
use fastpath_jit::reg::RegSet;
use fastpath_jit::*;

/// Installs in `cache` the code `body` emits with a pair of labels.
fn install(cache: &CodeCache, body: impl FnOnce(&mut VecAssembler<X64Relocation>, Labels)) -> Entry {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    };
    body(&mut ops, l);
    cache.install(&ops.finalize().unwrap()).unwrap()
}

/// On a thread of its own: a passive heap of `bits` with this thread's
/// mutator of set `B`, the block's layout and a code cache, handed to `f`.
fn on_a_mutator<B: BarrierSet>(
    bits: BarrierBits,
    f: impl FnOnce(&mut Mutator<B>, ThreadLayout, &CodeCache) + Send + 'static,
) {
    std::thread::spawn(move || {
        let heap = Heap::new(HeapConfig::new(4 << 20, bits, GcMode::Passive)).unwrap();
        let mut m = heap.mutator::<B>().unwrap();
        let cache = CodeCache::new(64 * 1024).unwrap();
        f(&mut m, ThreadLayout::fastpath().unwrap(), &cache);
    })
    .join()
    .unwrap();
}

/// The word at `off` of this thread's block.
fn at(off: usize) -> usize {
    // SAFETY: this thread's block (alive while it runs) at a published,
    // aligned word offset; only this thread writes the fields read here.
    unsafe {
        (thread::current().as_ptr() as *const u8)
            .add(off)
            .cast::<usize>()
            .read_volatile()
    }
}

#[test]
fn templates_share_the_real_mutators_block_fields() {
    on_a_mutator::<SerialBarriers>(BarrierBits::SERIAL, |m, layout, cache| {
        let a = m.alloc(1, 1).unwrap();
        let oa = m.get(a).unwrap().addr();
        // TLAB: fn(block) -> object or 0.
        let e = install(cache, |ops, l| {
            TlabAlloc {
                thread: RDI,
                obj: RAX,
                end: RCX,
                tmp: RDX,
                size: 48,
                layout,
            }
            .emit(ops, l)
            .unwrap();
            dynasm!(ops ; .arch x64 ; ret ; =>l.slow ; =>l.done ; xor eax, eax ; ret);
        });
        // SAFETY: a complete `extern "C" fn(block) -> object or 0`, called
        // on this thread with its block.
        let f: extern "C" fn(*const thread::ThreadBlock) -> usize = unsafe { e.as_fn() };
        let top0 = at(thread::TLAB_TOP_OFFSET);
        let t = f(thread::current().as_ptr());
        assert_eq!(t, top0, "the template bumps the mutator's TLAB");
        assert_eq!(at(thread::TLAB_TOP_OFFSET), top0 + 48);
        let b = m.alloc(1, 1).unwrap();
        let ob = m.get(b).unwrap().addr();
        assert!(
            ob >= t + 48,
            "the mutator allocates after the template's object: {ob:#x} vs {t:#x}"
        );
        // SATB: the template enqueues into the block's queue.
        let e = install(cache, |ops, l| {
            let queue = SatbQueueLayout::fastpath().unwrap();
            SatbEnqueue {
                thread: RDI,
                field: RSI,
                prev: R8,
                tmp: R9,
                tmp2: R9,
                queue,
                refs: fastpath_jit::RefWidth::Full,
            }
            .emit(ops, l)
            .unwrap();
            dynasm!(ops ; .arch x64 ; xor eax, eax ; ret ; =>l.done ; mov eax, 1 ; ret ; =>l.slow ; mov eax, 2 ; ret);
        });
        // SAFETY: a complete `extern "C" fn(block, field) -> label`; the
        // block's queue is the attached mutator's.
        let g: extern "C" fn(*const thread::ThreadBlock, *const usize) -> u32 = unsafe { e.as_fn() };
        let idx0 = at(thread::SATB_INDEX_OFFSET);
        let field = oa;
        assert_eq!(g(thread::current().as_ptr(), &field), 0);
        let idx = at(thread::SATB_INDEX_OFFSET);
        assert_eq!(idx, idx0 - 8);
        let buf = at(thread::SATB_BUFFER_OFFSET);
        // SAFETY: the queue's buffer, `idx` below its size (the template
        // just wrote that slot).
        assert_eq!(unsafe { ((buf + idx) as *const usize).read() }, oa);
        // Card: the template dirties the card the block's base names.
        let e = install(cache, |ops, l| {
            let base = CardBase::Thread(RDI);
            CardMark {
                addr: RSI,
                tmp: RCX,
                tmp2: RCX,
                base,
                conditional: false,
                layout,
            }
            .emit(ops, l)
            .unwrap();
            dynasm!(ops ; .arch x64 ; =>l.done ; ret);
        });
        // SAFETY: a complete `extern "C" fn(block, address)`; the address
        // is in the heap the block's card base covers.
        let c: extern "C" fn(*const thread::ThreadBlock, usize) = unsafe { e.as_fn() };
        c(thread::current().as_ptr(), ob);
        let base = at(thread::CARD_TABLE_BASE_OFFSET);
        // SAFETY: the card of a heap address, inside the heap's card table.
        assert_eq!(unsafe { ((base + (ob >> 9)) as *const u8).read() }, 0);
        // The mutator goes on: a collection flushes the template's SATB entry.
        m.collect().unwrap();
        println!("real mutator: TLAB {t:#x}, SATB index {idx0}->{idx}, card of {ob:#x} dirty; collect ok, index now {}", at(thread::SATB_INDEX_OFFSET));
    });
}

/// The Brooks write barrier template on a `shenandoah-2017` heap's real
/// objects (passive: the state stays idle), its stub bound to the
/// library's `brooks_wb_slow_entry`: the fast path resolves through the
/// object's real forwarding word (its own address), before and after a
/// collection; the entry itself, called as the stub calls it, resolves an
/// object outside the collection set to itself.
#[test]
fn brooks_write_barrier_on_the_real_mutators_objects() {
    on_a_mutator::<fastpath::gc::Shenandoah2017Barriers>(BarrierBits::SHENANDOAH_2017, |m, layout, cache| {
        let a = m.alloc(1, 1).unwrap();
        let oa = m.get(a).unwrap().addr();
        // fn(block, obj) -> object to write, the stub the template's slow call.
        let e = install(cache, |ops, l| {
            dynasm!(ops ; .arch x64 ; push rbx);
            let wb = BrooksWriteBarrier {
                thread: RDI,
                obj: RSI,
                tmp: RAX,
                gc_state: layout.gc_state,
                state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
                forwarding: -8,
            };
            wb.emit(ops, l).unwrap();
            dynasm!(ops ; .arch x64 ; =>l.done ; mov rax, rsi ; pop rbx ; ret);
            let call = wb.slow_call().unwrap();
            assert_eq!(call.path, SlowPath::Library(slow::LibraryPath::BrooksWb));
            let stub = call
                .stub(slow::LibraryPath::BrooksWb.addr(), &[], RegSet::EMPTY)
                .unwrap();
            stub.emit(ops, l.slow, l.done).unwrap();
        });
        // SAFETY: a complete `extern "C" fn(block, obj) -> obj`, called on
        // this thread with its block and a live object of its mutator's
        // heap (no allocation or stop in between).
        let wb: extern "C" fn(*const thread::ThreadBlock, usize) -> usize = unsafe { e.as_fn() };
        // SAFETY: this thread's block, alive while it runs; its GC-state
        // byte at the published offset, written only by this thread.
        let state = unsafe {
            (thread::current().as_ptr() as *const u8)
                .add(thread::GC_STATE_OFFSET)
                .read_volatile()
        };
        assert_eq!(state, 0, "passive: the state is idle");
        assert_eq!(
            wb(thread::current().as_ptr(), oa),
            oa,
            "not forwarded: the object itself"
        );
        // The stub's slow path, called as the stub calls it: outside the
        // collection set, the forwardee (itself).
        assert_eq!(fastpath_jit::slow::brooks_wb(thread::current().as_ptr(), oa), oa);
        m.collect().unwrap();
        let oa2 = m.get(a).unwrap().addr();
        assert_eq!(wb(thread::current().as_ptr(), oa2), oa2, "after a collection");
        println!("real mutator: Brooks WB on {oa:#x} (then {oa2:#x}) through the real forwarding word and slow entry");
    });
}

/// A tagged object allocated inline, as a JIT allocates an instance of a
/// class whose tag it defined (`Mutator::define_tag`): the TLAB template
/// bumps the cell's tagged size (`CellFormat::tagged_cell_bytes_in`), then
/// the cell is written as `fastpath::gc::layout` says (the forwarding word
/// in the Brooks format, the header, one 8-byte store of the zero-extended
/// 4-byte tagged word, which clears the 4 bytes after it, and every other
/// byte 0). The heap then reads it as an object of the tag's counts: its
/// tag, shape, reference 1 (from the tagged offset: 16 with 4-byte slots,
/// reference 0 at 12) and data word (after 3 slots of 4 bytes: at 24, where
/// an untagged object's is at 32) through the Rust accessors, across a
/// collection that moves it (the collector sizing it through the tag
/// table), in each cell format and reference width; the mutator's next
/// object starts where its cell ends.
#[test]
fn a_tagged_object_allocated_inline_is_the_heaps() {
    use fastpath::gc::layout::{self as gl, RefWidth};
    use fastpath::gc::{Dynamic, Obj};
    for (bits, refs) in [
        (BarrierBits::SERIAL, RefWidth::Full),
        (BarrierBits::SHENANDOAH, RefWidth::Compressed),
        (BarrierBits::SHENANDOAH, RefWidth::Unscaled),
        (BarrierBits::SHENANDOAH_2017, RefWidth::Compressed),
        (BarrierBits::SHENANDOAH_2017, RefWidth::Full),
    ] {
        std::thread::spawn(move || {
            let mut c = HeapConfig::new(4 << 20, bits, GcMode::Passive);
            c.refs = refs;
            // Every region with live objects evacuated: the object moves.
            c.aggressive = true;
            c.verify = true;
            let heap = Heap::new(c).unwrap();
            let mut m = heap.mutator::<Dynamic>().unwrap();
            let format = m.cell_format();
            let what = format!("{bits} ({format:?}, {refs:?})");
            let cache = CodeCache::new(64 * 1024).unwrap();
            let layout = ThreadLayout::fastpath().unwrap();
            let (tag, nrefs, ndata) = (0x1234u32, 3usize, 1usize);
            m.define_tag(tag, nrefs, ndata).unwrap();
            let size = format.tagged_cell_bytes_in(refs, nrefs, ndata);
            let e = install(&cache, |ops, l| {
                TlabAlloc {
                    thread: RDI,
                    obj: RAX,
                    end: RCX,
                    tmp: RDX,
                    size: size as i32,
                    layout,
                }
                .emit(ops, l)
                .unwrap();
                dynasm!(ops ; .arch x64 ; ret ; =>l.slow ; =>l.done ; xor eax, eax ; ret);
            });
            // SAFETY: a complete `extern "C" fn(block) -> cell or 0`, called
            // on this thread with its block.
            let f: extern "C" fn(*const thread::ThreadBlock) -> usize = unsafe { e.as_fn() };
            // A fresh mutator's TLAB is empty: the first bump refills it.
            m.alloc(0, 0).unwrap();
            let cell = f(thread::current().as_ptr());
            assert_ne!(cell, 0, "{what}: the TLAB has room");
            let obj = cell + format.cell_to_object();
            let word = gl::tagged_layout_word(tag).unwrap();
            // SAFETY: the `size` bytes the template took from this thread's
            // TLAB, not yet an object: written here only, no stop between.
            unsafe {
                std::ptr::write_bytes(cell as *mut u8, 0, size);
                if format.has_forwarding_word() {
                    ((obj as isize + gl::FORWARDING_OFFSET) as *mut usize).write(obj);
                }
                ((obj + gl::HEADER_OFFSET) as *mut usize).write(gl::INITIAL_HEADER);
                ((obj + gl::LAYOUT_WORD_OFFSET) as *mut usize).write(word);
            }
            // SAFETY: `obj` is now a whole object of this heap, no stop
            // since its allocation.
            let o = unsafe { Obj::from_addr(obj) };
            let h = m.root(o).unwrap();
            let target = m.alloc(0, 0).unwrap();
            let next = m.get(target).unwrap().addr();
            assert_eq!(next - format.cell_to_object(), cell + size, "{what}: cells end to end");
            let (o, t) = (m.get(h).unwrap(), m.get(target).unwrap());
            assert_eq!((m.tag(o).unwrap(), m.shape(o).unwrap()), (Some(tag), (nrefs, ndata)));
            m.store(o, 1, Some(t)).unwrap();
            m.write(o, 0, 0x5eed).unwrap();
            let slot = obj + refs.tagged_ref_offset(1);
            // SAFETY: reference 1 of the live object, at the heap's width.
            let raw = unsafe {
                match refs {
                    RefWidth::Full => (slot as *const usize).read(),
                    _ => (slot as *const u32).read() as usize,
                }
            };
            assert_eq!(refs.decode(raw), t.addr(), "{what}: reference 1 where the tagged offset says");
            // SAFETY: data word 0 of the live object.
            let data = unsafe { ((obj + refs.tagged_data_offset(nrefs, 0)) as *const usize).read() };
            assert_eq!(data, 0x5eed, "{what}: data word 0 where the tagged offset says");
            m.collect().unwrap();
            let o = m.get(h).unwrap();
            assert_ne!(o.addr(), obj, "{what}: the collection moved it");
            assert_eq!((m.tag(o).unwrap(), m.shape(o).unwrap()), (Some(tag), (nrefs, ndata)));
            assert_eq!(m.read(o, 0).unwrap(), 0x5eed, "{what}");
            let t = m.get(target).unwrap();
            assert!(m.same(m.load(o, 1).unwrap(), Some(t)), "{what}: reference 1 moved with it");
            assert!(m.load(o, 0).unwrap().is_none(), "{what}: reference 0 null");
            assert!(m.load(o, 2).unwrap().is_none(), "{what}: reference 2 null");
            assert_eq!(heap.stats().verify_errors, Vec::<String>::new());
            println!("real mutator: {what}: a tagged object of {size} bytes allocated inline, moved by a collection");
        })
        .join()
        .unwrap();
    }
}

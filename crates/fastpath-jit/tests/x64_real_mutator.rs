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
use fastpath::code::CodeCache;
use fastpath::gc::{BarrierBits, GcMode, Heap, HeapConfig, SerialBarriers};
use fastpath::thread;
use fastpath_jit::reg::x64::*;
use fastpath_jit::reg::RegSet;
use fastpath_jit::x64::*;
use fastpath_jit::{Labels, ThreadLayout};

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
    std::thread::spawn(|| {
        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::SERIAL, GcMode::Passive)).unwrap();
        let mut m = heap.mutator::<SerialBarriers>().unwrap();
        let layout = ThreadLayout::fastpath().unwrap();
        let cache = CodeCache::new(64 * 1024).unwrap();
        let a = m.alloc(1, 1).unwrap();
        let oa = m.get(a).unwrap().addr();
        // TLAB: fn(block) -> object or 0.
        let mut ops = VecAssembler::<X64Relocation>::new(0);
        let l = Labels { slow: ops.new_dynamic_label(), done: ops.new_dynamic_label() };
        TlabAlloc { thread: RDI, obj: RAX, end: RCX, size: 48, layout }.emit(&mut ops, l);
        dynasm!(ops ; .arch x64 ; ret ; =>l.slow ; =>l.done ; xor eax, eax ; ret);
        let e = cache.install(&ops.finalize().unwrap()).unwrap();
        // SAFETY: a complete `extern "C" fn(block) -> object or 0`, called
        // on this thread with its block.
        let f: extern "C" fn(*const thread::ThreadBlock) -> usize = unsafe { e.as_fn() };
        let top0 = at(thread::TLAB_TOP_OFFSET);
        let t = f(thread::current().as_ptr());
        assert_eq!(t, top0, "the template bumps the mutator's TLAB");
        assert_eq!(at(thread::TLAB_TOP_OFFSET), top0 + 48);
        let b = m.alloc(1, 1).unwrap();
        let ob = m.get(b).unwrap().addr();
        assert!(ob >= t + 48, "the mutator allocates after the template's object: {ob:#x} vs {t:#x}");
        // SATB: the template enqueues into the block's queue.
        let mut ops = VecAssembler::<X64Relocation>::new(0);
        let l = Labels { slow: ops.new_dynamic_label(), done: ops.new_dynamic_label() };
        SatbEnqueue { thread: RDI, field: RSI, prev: RDX, tmp: RCX, queue: SatbQueueLayout::fastpath().unwrap() }.emit(&mut ops, l);
        dynasm!(ops ; .arch x64 ; xor eax, eax ; ret ; =>l.done ; mov eax, 1 ; ret ; =>l.slow ; mov eax, 2 ; ret);
        let e = cache.install(&ops.finalize().unwrap()).unwrap();
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
        let mut ops = VecAssembler::<X64Relocation>::new(0);
        let l = Labels { slow: ops.new_dynamic_label(), done: ops.new_dynamic_label() };
        CardMark { addr: RSI, tmp: RCX, base: barrier::CardBase::Thread(RDI), conditional: false, layout }.emit(&mut ops, l);
        dynasm!(ops ; .arch x64 ; =>l.done ; ret);
        let e = cache.install(&ops.finalize().unwrap()).unwrap();
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
        drop(m);
    }).join().unwrap();
}

/// The Brooks write barrier template on a `shenandoah-2017` heap's real
/// objects (passive: the state stays idle), its stub bound to the
/// library's `brooks_wb_slow_entry`: the fast path resolves through the
/// object's real forwarding word (its own address), before and after a
/// collection; the entry itself, called as the stub calls it, resolves an
/// object outside the collection set to itself.
#[test]
fn brooks_write_barrier_on_the_real_mutators_objects() {
    std::thread::spawn(|| {
        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH_2017, GcMode::Passive)).unwrap();
        let mut m = heap.mutator::<fastpath::gc::Shenandoah2017Barriers>().unwrap();
        let layout = ThreadLayout::fastpath().unwrap();
        let cache = CodeCache::new(64 * 1024).unwrap();
        let a = m.alloc(1, 1).unwrap();
        let oa = m.get(a).unwrap().addr();
        // fn(block, obj) -> object to write.
        let mut ops = VecAssembler::<X64Relocation>::new(0);
        let l = Labels { slow: ops.new_dynamic_label(), done: ops.new_dynamic_label() };
        dynasm!(ops ; .arch x64 ; push rbx);
        BrooksWriteBarrier {
            thread: RDI,
            obj: RSI,
            gc_state: layout.gc_state,
            state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
            forwarding: -8,
        }
        .emit(&mut ops, l);
        dynasm!(ops ; .arch x64 ; =>l.done ; mov rax, rsi ; pop rbx ; ret);
        SlowStub { func: fastpath_jit::slow::brooks_wb as *const () as usize, args: vec![RDI, RSI], ret: Some(RSI), live: RegSet::EMPTY }
            .emit(&mut ops, l.slow, l.done)
            .unwrap();
        let e = cache.install(&ops.finalize().unwrap()).unwrap();
        // SAFETY: a complete `extern "C" fn(block, obj) -> obj`, called on
        // this thread with its block and a live object of its mutator's
        // heap (no allocation or stop in between).
        let wb: extern "C" fn(*const thread::ThreadBlock, usize) -> usize = unsafe { e.as_fn() };
        // SAFETY: this thread's block, alive while it runs; its GC-state
        // byte at the published offset, written only by this thread.
        let state = unsafe { (thread::current().as_ptr() as *const u8).add(thread::GC_STATE_OFFSET).read_volatile() };
        assert_eq!(state, 0, "passive: the state is idle");
        assert_eq!(wb(thread::current().as_ptr(), oa), oa, "not forwarded: the object itself");
        // The stub's slow path, called as the stub calls it: outside the
        // collection set, the forwardee (itself).
        assert_eq!(fastpath_jit::slow::brooks_wb(thread::current().as_ptr(), oa), oa);
        m.collect().unwrap();
        let oa2 = m.get(a).unwrap().addr();
        assert_eq!(wb(thread::current().as_ptr(), oa2), oa2, "after a collection");
        println!("real mutator: Brooks WB on {oa:#x} (then {oa2:#x}) through the real forwarding word and slow entry");
        drop(m);
    })
    .join()
    .unwrap();
}

//! The data templates' reference accesses (`DataWidth::Ref`, the heap's
//! slot width from `ObjectLayout::of`) against the Rust accessors on real
//! heaps of every reference width, shared by every form's test binary
//! (x86-64, AArch64 under qemu): each builds `LoadFn`s and `StoreFn`s with
//! `data_world`'s builders, and [`references_round_trip_real_objects`]
//! runs them.
//!
//! In each width (full: 8-byte slots holding addresses; compressed: 4-byte
//! slots holding `address >> 3`, packed, the data words after them;
//! unscaled: 4-byte slots holding the address itself, packed the same, on
//! a heap below 4 GiB) and each of three presets in passive mode (the LRB
//! set, the Brooks set with its data barriers on the holder, G1), a holder
//! with an odd number of references (so a 4-byte holder's last slot shares
//! its word with padding) and two data words: every slot, as a field and
//! as an element of the slot array, is loaded (the address the Rust
//! `store` put there, decoded), stored through (the Rust `load` sees the
//! object, the slot's raw bits are the width's encoding, every other slot
//! and data word is unchanged), and null round-trips as 0 in both
//! directions.
//!
//! The template stores skip the reference barriers (card, SATB), which the
//! JIT places around them: no collection runs in between.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use fastpath::code::CodeCache;
use fastpath::gc::layout::RefWidth;
use fastpath::gc::{BarrierBits, Dynamic, GcMode, Heap, HeapConfig, Mutator, Obj};
use fastpath::thread;
use fastpath_jit::{DataBarrier, ObjectLayout, ThreadLayout};

use super::data_world::{brooks_wb_counted, Access, BuildLoad, BuildStore};

const NREFS: usize = 5;
const NDATA: usize = 2;

/// The raw value of the reference slot at `addr`, `width`'s bytes of it.
///
/// # Safety
/// A slot of the calling thread's mutator's heap, of that width, read since
/// the mutator's last stop.
pub unsafe fn raw_slot(width: RefWidth, addr: usize) -> u64 {
    match width {
        // SAFETY: per the contract: an 8-byte, 8-aligned slot.
        RefWidth::Full => unsafe { (*(addr as *const AtomicU64)).load(Ordering::Acquire) },
        RefWidth::Compressed | RefWidth::Unscaled => {
            // SAFETY: per the contract: a 4-byte, 4-aligned slot.
            let raw = unsafe { (*(addr as *const AtomicU32)).load(Ordering::Acquire) };
            u64::from(raw)
        }
    }
}

/// The reference in the slot at `addr`, decoded.
///
/// # Safety
/// As [`raw_slot`].
pub unsafe fn slot(width: RefWidth, addr: usize) -> usize {
    // SAFETY: per the contract.
    width.decode(unsafe { raw_slot(width, addr) } as usize)
}

/// A heap of `set` in passive mode whose reference slots are `refs` wide.
pub fn heap_of(set: BarrierBits, refs: RefWidth) -> Heap {
    let mut c = HeapConfig::new(4 << 20, set, GcMode::Passive);
    c.refs = refs;
    let heap = Heap::new(c).unwrap();
    assert_eq!(heap.ref_width(), refs);
    heap
}

/// The holder's references and data words as the Rust accessors read
/// them, against the model.
fn check_holder(m: &Mutator<Dynamic>, holder: Obj, model: &[usize], what: &str) {
    for (k, &want) in model.iter().enumerate() {
        let got = m.load(holder, k).unwrap().map_or(0, |o| o.addr());
        assert_eq!(got, want, "{what}: slot {k}");
    }
    for j in 0..NDATA {
        assert_eq!(
            m.read(holder, j).unwrap(),
            0xDA7A_0000 + j,
            "{what}: data word {j}"
        );
    }
}

/// See the module docs; returns the accesses checked.
pub fn references_round_trip_real_objects(load: BuildLoad, store: BuildStore) -> usize {
    let cache = CodeCache::new(4 << 20).unwrap();
    let tl = ThreadLayout::fastpath().unwrap();
    let block = thread::current().as_ptr();
    let mut checked = 0;
    for refs in [RefWidth::Full, RefWidth::Compressed, RefWidth::Unscaled] {
        for set in [
            BarrierBits::SHENANDOAH,
            BarrierBits::SHENANDOAH_2017,
            BarrierBits::G1,
        ] {
            let heap = heap_of(set, refs);
            let mut m = heap.mutator::<Dynamic>().unwrap();
            let ol = ObjectLayout::of(&m).unwrap();
            assert_eq!(ol.ref_width, refs);
            let h = m.alloc(NREFS, NDATA).unwrap();
            let targets: Vec<_> = (0..NREFS)
                .map(|k| {
                    let t = m.alloc(0, 1).unwrap();
                    let o = m.get(t).unwrap();
                    m.write(o, 0, 100 + k).unwrap();
                    t
                })
                .collect();
            let holder = m.get(h).unwrap();
            for j in 0..NDATA {
                m.write(holder, j, 0xDA7A_0000 + j).unwrap();
            }
            let addrs: Vec<usize> = targets.iter().map(|&t| m.get(t).unwrap().addr()).collect();
            assert!(
                addrs.iter().all(|&a| a < refs.address_limit()),
                "{refs:?}: the heap lies below its width's limit"
            );
            let mut model = addrs.clone();
            for (k, &t) in targets.iter().enumerate() {
                let o = m.get(t).unwrap();
                m.store(holder, k, Some(o)).unwrap();
            }
            for i in 0..NREFS {
                let field = Access {
                    width: ol.reference(),
                    barrier: DataBarrier::None,
                    offset: ol.ref_offset(i as u32).unwrap(),
                    indexed: false,
                };
                let element = Access {
                    offset: ol.ref_offset(0).unwrap(),
                    indexed: true,
                    ..field
                };
                for (place, index) in [(field, 0), (element, i)] {
                    let read = Access {
                        barrier: DataBarrier::read(set, &ol).unwrap(),
                        ..place
                    };
                    let write = Access {
                        barrier: DataBarrier::write(set, &tl, &ol).unwrap(),
                        ..place
                    };
                    let lf = load(&cache, read);
                    let sf = store(&cache, write, brooks_wb_counted as *const () as usize);
                    let what = format!("{refs:?} {set} slot {i} ({place:?})");
                    let at = holder.addr() + ol.ref_offset(i as u32).unwrap() as usize;
                    assert_eq!(lf(block, holder.addr(), index), model[i] as u64, "load {what}");
                    // Another object, then null, then the slot's own again.
                    let other = addrs[(i + 1) % NREFS];
                    for value in [other, 0, addrs[i]] {
                        assert_eq!(
                            sf(block, holder.addr(), index, value as u64),
                            holder.addr(),
                            "store {what}"
                        );
                        model[i] = value;
                        // SAFETY: the holder's slot `i`, no stop since `get`.
                        let raw = unsafe { raw_slot(refs, at) };
                        assert_eq!(raw, refs.encode(value) as u64, "store {what}: the slot's bits");
                        check_holder(&m, holder, &model, &what);
                        assert_eq!(lf(block, holder.addr(), index), value as u64, "reload {what}");
                        checked += 2;
                    }
                    // The Rust store of null, loaded by the template.
                    m.store(holder, i, None).unwrap();
                    assert_eq!(lf(block, holder.addr(), index), 0, "null {what}");
                    let o = m.get(targets[i]).unwrap();
                    m.store(holder, i, Some(o)).unwrap();
                    checked += 1;
                }
            }
            for (k, &t) in targets.iter().enumerate() {
                let o = m.get(t).unwrap();
                assert_eq!(m.read(o, 0).unwrap(), 100 + k, "{refs:?} {set}: target {k}");
            }
            drop(m);
        }
    }
    println!("reference accesses: {checked} loads and stores on real heaps of every width");
    checked
}

//! The heap object layout compiled code reads and writes, and what the
//! translator needs to know of the VM's own structures.
//!
//! Where it sits: the values here are those `fastpath::gc`'s cell layout
//! gives every object (`[forwarding][Header][layout][refs][data]`, the
//! object's address its header's) and `object/mod.rs` gives Java values on
//! it (the class word first in the data area, an array's length after
//! it); `tests` checks them against the library at run time, and
//! [`check`] does at start-up, so a layout change in the library refuses
//! to compile rather than miscompiles.

use crate::link::{Class, Method};

/// The forwarding word, from the object's address (Brooks: `obj - 8`).
pub const FORWARDING: i32 = -8;
/// The layout word (`nrefs | ndata << 32`), immutable.
pub const LAYOUT: i32 = 8;
/// Reference field 0.
pub const REFS: i32 = 16;
/// Words of a cell before its reference fields (forwarding, header, layout).
pub const CELL_OVERHEAD_WORDS: usize = 3;
/// The class word's offset in the data area (`object::CLASS_WORD`).
pub const CLASS_WORD: i32 = crate::object::CLASS_WORD as i32;
/// The array length's offset in the data area (`object::LENGTH_WORD`).
pub const LENGTH_WORD: i32 = crate::object::LENGTH_WORD as i32;
/// A primitive array's first element, from its data area.
pub const ELEMENTS: i32 = crate::object::ELEMENTS as i32;

/// An unlocked, unhashed header: what a new object's header holds, and
/// the word the guessing lock enter expects.
pub fn neutral_header() -> u64 {
    fastpath::sync::Header::new().raw() as u64
}

/// Where a `Vec`'s data pointer and length lie in it (the class's vtable is
/// one; compiled code reads the receiver class's vtable through them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VecLayout {
    /// The pointer's byte offset in the `Vec`.
    pub ptr: i32,
    /// The length's byte offset.
    pub len: i32,
}

impl VecLayout {
    /// Found by looking at a `Vec` of known pointer and length (Rust does
    /// not fix a `Vec`'s field order), checked on a second one; `sample`
    /// is any method (the vectors hold copies of it).
    pub fn probe(sample: &'static Method) -> Option<VecLayout> {
        fn find(v: &Vec<&'static Method>) -> Option<(usize, usize)> {
            // SAFETY: a `Vec` is three words (asserted below); reading them
            // as words reads its pointer, capacity and length in some order.
            let words: [usize; 3] = unsafe { std::mem::transmute_copy(v) };
            let p = words.iter().position(|&w| w == v.as_ptr() as usize)?;
            let l = words
                .iter()
                .enumerate()
                .position(|(i, &w)| i != p && w == v.len() && w != v.capacity())?;
            Some((p, l))
        }
        const _: () = assert!(std::mem::size_of::<Vec<&Method>>() == 24);
        let a: Vec<&'static Method> = Vec::with_capacity(7);
        let a = {
            let mut a = a;
            a.extend(std::iter::repeat_n(sample, 3));
            a
        };
        let mut b: Vec<&'static Method> = Vec::with_capacity(11);
        b.extend(std::iter::repeat_n(sample, 5));
        let (p, l) = find(&a)?;
        if find(&b)? != (p, l) {
            return None;
        }
        let base = std::mem::offset_of!(Class, vtable);
        Some(VecLayout {
            ptr: (base + 8 * p) as i32,
            len: (base + 8 * l) as i32,
        })
    }
}

/// Checks the layout constants against the library on one live object:
/// `Err` names the first that differs.
pub fn check<B: fastpath::gc::BarrierSet>(m: &mut fastpath::gc::Mutator<B>) -> Result<(), String> {
    let o = m.alloc_unrooted(2, 3).map_err(|e| e.to_string())?;
    let addr = o.addr();
    // SAFETY: a fresh object of this heap with 2 references.
    let data = unsafe { m.data_unchecked(fastpath::gc::Obj::from_addr(addr), 2) } as usize;
    if data != addr + REFS as usize + 16 {
        return Err(format!(
            "data area at {:+} from the object, expected {:+}",
            data as isize - addr as isize,
            REFS + 16
        ));
    }
    // SAFETY: the layout word and the forwarding word of a fresh object.
    let (layout, fwd) = unsafe {
        (
            ((addr as isize + LAYOUT as isize) as *const u64).read(),
            ((addr as isize + FORWARDING as isize) as *const usize).read(),
        )
    };
    if layout != 2 | (3 << 32) {
        return Err(format!("layout word {layout:#x}"));
    }
    if fwd != addr {
        return Err(format!("forwarding word {fwd:#x} for object {addr:#x}"));
    }
    // SAFETY: the header word of a fresh object.
    let header = unsafe { (addr as *const u64).read() };
    if header != neutral_header() {
        return Err(format!("a new object's header {header:#x}"));
    }
    Ok(())
}

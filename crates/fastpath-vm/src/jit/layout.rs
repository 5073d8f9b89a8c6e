//! The heap object layout compiled code reads and writes, and what the
//! translator needs to know of the VM's own structures.
//!
//! Where it sits: the cell words (`[header][layout][refs][data]`, after a
//! forwarding word in the Brooks format; the object's address its
//! header's) are the library's published layout,
//! `fastpath::gc::layout`, whose version [`check`] compares with the one
//! these constants were written against before anything is compiled (as
//! `fastpath_jit::ThreadLayout::fastpath` checks the thread block's). The
//! Java values are the VM's own (`object/mod.rs`): an instance's class in
//! its layout word's tag (the tagged form), an array's class word and
//! length on its first data words (the untagged form). [`check`] also reads the
//! words of one live object at start-up, so a library whose objects do not
//! match what it publishes refuses to compile rather than miscompiles.

use fastpath::gc::layout as heap;

use crate::link::{Class, Method};

/// The forwarding word, from the object's address, in the Brooks format
/// (`obj - 8`; the heap's `CellFormat` says whether objects have one).
pub const FORWARDING: i32 = heap::FORWARDING_OFFSET as i32;
/// The header word (`fastpath::sync::Header`, the word the lock CASes).
pub const HEADER: i32 = heap::HEADER_OFFSET as i32;
/// The layout word (an instance's tagged, 4 bytes; an array's untagged, 8),
/// immutable.
pub const LAYOUT: i32 = heap::LAYOUT_WORD_OFFSET as i32;
/// An array's element 0 (a reference array's) or data words: reference 0
/// of an untagged object. An instance's reference 0 is at
/// `RefWidth::tagged_ref_offset(0)` (12 with 4-byte slots).
pub const REFS: i32 = heap::REFS_OFFSET as i32;
/// An array's class word's offset in its data area (`object::CLASS_WORD`).
pub const CLASS_WORD: i32 = crate::object::CLASS_WORD as i32;
/// The array length's offset in the data area (`object::LENGTH_WORD`).
pub const LENGTH_WORD: i32 = crate::object::LENGTH_WORD as i32;
/// A primitive array's first element, from its data area.
pub const ELEMENTS: i32 = crate::object::ELEMENTS as i32;

/// The heap-object layout version the constants above were written
/// against (`fastpath::gc::layout::OBJECT_LAYOUT_VERSION` then). The
/// reference slots' width is the heap's (`CompileEnv::refs`): a field's
/// offset, an element's scale and the data words' place follow it.
pub const EXPECTED_OBJECT_LAYOUT_VERSION: u32 = 6;

// The translator adds an array's `nrefs` (its untagged word's low 32 bits,
// loaded as a `u32`) scaled to reach its data words, reads an instance's
// class from its 4-byte tagged word (the tagged bit, bit 30, and the tag
// below it, shifted left: `link/class_space.rs`), and an instance's
// reference count from its class.
const _: () = assert!(heap::LAYOUT_NREFS_MASK == 0xffff_ffff && heap::LAYOUT_NDATA_SHIFT == 32);
const _: () = assert!(heap::LAYOUT_TAGGED_BIT == 1 << 30 && heap::LAYOUT_TAG_MASK == (1 << 30) - 1);
const _: () = assert!(heap::TAGGED_WORD_BYTES == 4 && heap::TAGGED_COMPRESSED_REFS_OFFSET == 12);
const _: () = assert!(heap::WORD_BYTES == 8);
// The lock emitters CAS the word at the object's address.
const _: () = assert!(HEADER == 0);

/// An unlocked, unhashed header: what a new object's header holds, and
/// the word the guessing lock enter expects.
pub fn neutral_header() -> u64 {
    heap::INITIAL_HEADER as u64
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
        let (p, l) = probe_words(sample)?;
        let base = std::mem::offset_of!(Class, vtable);
        Some(VecLayout {
            ptr: (base + 8 * p) as i32,
            len: (base + 8 * l) as i32,
        })
    }

    /// The class display's (`Class::supers`) layout, found as
    /// [`VecLayout::probe`]'s on a `Vec` of classes (`sample` any class),
    /// once per process.
    pub fn supers(sample: &'static Class) -> Option<VecLayout> {
        static SUPERS: std::sync::OnceLock<Option<VecLayout>> = std::sync::OnceLock::new();
        *SUPERS.get_or_init(|| {
            let (p, l) = probe_words(sample)?;
            let base = std::mem::offset_of!(Class, supers);
            Some(VecLayout {
                ptr: (base + 8 * p) as i32,
                len: (base + 8 * l) as i32,
            })
        })
    }
}

/// The word indices of a `Vec<&T>`'s pointer and length, found on two
/// vectors of known pointer and length (Rust does not fix a `Vec`'s field
/// order); `sample` fills them.
fn probe_words<T>(sample: &'static T) -> Option<(usize, usize)> {
    fn find<T>(v: &Vec<&'static T>) -> Option<(usize, usize)> {
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
    const _: () = assert!(std::mem::size_of::<Vec<&Class>>() == 24);
    let mut a: Vec<&'static T> = Vec::with_capacity(7);
    a.extend(std::iter::repeat_n(sample, 3));
    let mut b: Vec<&'static T> = Vec::with_capacity(11);
    b.extend(std::iter::repeat_n(sample, 5));
    let (p, l) = find(&a)?;
    if find(&b)? != (p, l) {
        return None;
    }
    Some((p, l))
}

/// Checks the layout constants against the library on one live object:
/// `Err` names the first that differs.
pub fn check<B: fastpath::gc::BarrierSet>(m: &mut fastpath::gc::Mutator<B>) -> Result<(), String> {
    let found = heap::object_layout_version();
    if found != EXPECTED_OBJECT_LAYOUT_VERSION {
        return Err(format!(
            "the library's heap-object layout is version {found}, the JIT was written against {EXPECTED_OBJECT_LAYOUT_VERSION}"
        ));
    }
    let o = m.alloc_unrooted(2, 3).map_err(|e| e.to_string())?;
    let addr = o.addr();
    // SAFETY: a fresh object of this heap with 2 references.
    let data = unsafe { m.data_unchecked(fastpath::gc::Obj::from_addr(addr), 2) } as usize;
    let refs = m.ref_width();
    if data != addr + refs.data_offset(2, 0) {
        return Err(format!(
            "data area at {:+} from the object, expected {:+}",
            data as isize - addr as isize,
            refs.data_offset(2, 0)
        ));
    }
    // SAFETY: the layout word of a fresh object.
    let layout = unsafe { ((addr as isize + LAYOUT as isize) as *const u64).read() };
    if layout as usize != heap::layout_word(2, 3) {
        return Err(format!("layout word {layout:#x}"));
    }
    if m.cell_format().has_forwarding_word() {
        // SAFETY: the forwarding word of a fresh object of a Brooks-format heap.
        let fwd = unsafe { ((addr as isize + FORWARDING as isize) as *const usize).read() };
        if fwd != addr {
            return Err(format!("forwarding word {fwd:#x} for object {addr:#x}"));
        }
    }
    // SAFETY: the header word of a fresh object.
    let header = unsafe { ((addr as isize + HEADER as isize) as *const u64).read() };
    if header != neutral_header() || header != fastpath::sync::Header::new().raw() as u64 {
        return Err(format!("a new object's header {header:#x}"));
    }
    // An instance's word: the tagged form, 4 bytes, its data words after
    // its references from the tagged offset (the allocation may stop at a
    // safepoint: `addr` is not read after it). The tag is the top one, which
    // no class of the class space reaches.
    let tag = heap::MAX_LAYOUT_TAG;
    let t = m.alloc_unrooted_tagged(3, 2, tag).map_err(|e| e.to_string())?;
    let taddr = t.addr();
    // SAFETY: the layout word of a fresh object.
    let tagged = unsafe { ((taddr as isize + LAYOUT as isize) as *const u32).read() } as usize;
    if heap::tagged_layout_word(tag) != Some(tagged) {
        return Err(format!("tagged layout word {tagged:#x}"));
    }
    // SAFETY: a fresh object of this heap with 3 references.
    let tdata = unsafe { m.data_unchecked(fastpath::gc::Obj::from_addr(taddr), 3) } as usize;
    if tdata != taddr + refs.tagged_data_offset(3, 0) {
        return Err(format!(
            "a tagged object's data area at {:+} from it, expected {:+}",
            tdata as isize - taddr as isize,
            refs.tagged_data_offset(3, 0)
        ));
    }
    Ok(())
}

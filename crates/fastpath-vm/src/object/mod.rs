//! Java objects and arrays as `fastpath::gc` heap objects.
//!
//! Where it sits: under the interpreter and the natives, over the
//! mutator's raw access (`fastpath::gc::Mutator::alloc_unrooted`,
//! `data_unchecked`, `load_unchecked`…), which runs the heap's barrier set
//! on every access.
//!
//! Layout (a `fastpath::gc` cell is `[Header][layout word][refs][data]`,
//! with a forwarding word first under the Brooks barrier sets):
//!
//! ```text
//!  instance of C:  layout word tagged with C (`link/class_space.rs`'s tag)
//!                  refs = C's reference fields (superclass's first)
//!                  data = C's primitive fields packed by size
//!  T[] (T a reference type):  untagged   refs = the elements   data = [class word][length]
//!  p[] (p primitive):         untagged   refs = none           data = [class word][length][elements packed]
//! ```
//!
//! An instance's class is the layout word's tag (`fastpath::gc::layout`'s
//! tagged form, 4 bytes): a compressed pointer into the class space, so
//! dispatch and type checks load 4 bytes of the object, and an instance
//! carries no class word; with 4-byte reference slots its first reference
//! shares the layout word's 8 bytes, as a field follows HotSpot's
//! compressed class pointer (a `Node` of a `long` and a reference: 24
//! bytes, HotSpot's size; its reference count, which the heap keeps per
//! tag, comes from the class: `Class::nrefs`). Arrays take the
//! untagged form, whose counts reach the heap's largest object, and keep
//! the class in their first data word; [`JThread::class_of`] tests the
//! layout word's tagged bit to tell the two apart. Not the header's spare
//! bits: the header is `fastpath::sync`'s, displaced by legacy stack-locks
//! and by monitors, so a class kept there would need the monitor or the
//! lock record to be read whenever the object is locked, and every
//! object's neutral header would differ, which the JIT's guessing lock
//! enter relies on being `Header::new()`.
//!
//! Every address here is valid until the thread's next safepoint
//! (`fastpath::gc::Obj`'s rule): callers keep references in frame slots or
//! temporary roots across one.

pub mod strings;

use std::sync::atomic::{
    AtomicI16, AtomicI32, AtomicI8, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering,
};

use fastpath::gc::{BarrierSet, GcError, Obj};

use crate::link::{Class, Kind};
use crate::runtime::{JResult, JThread};

/// Byte offset of an array's class word in its data area.
pub const CLASS_WORD: usize = 0;
/// Byte offset of an array's length.
pub const LENGTH_WORD: usize = 8;
/// Byte offset of a primitive array's first element.
pub const ELEMENTS: usize = 16;
/// The longest array (as HotSpot's limit: `Integer.MAX_VALUE - 2`).
pub const MAX_ARRAY_LENGTH: i32 = i32::MAX - 2;

/// Loads a value of `kind` at `p` (sign- or zero-extended into a slot).
///
/// # Safety
///
/// `p` points into an object's data area at a field of that kind.
#[inline(always)]
pub unsafe fn load_kind(p: *const u8, kind: Kind, order: Ordering) -> u64 {
    // SAFETY: the caller's contract; each field is naturally aligned
    // (`loader.rs` aligns fields to their size, arrays' elements start at
    // 16), so the atomic types' alignment holds.
    unsafe {
        match kind {
            Kind::Boolean => (*(p as *const AtomicU8)).load(order) as u64,
            Kind::Byte => (*(p as *const AtomicI8)).load(order) as i64 as u64,
            Kind::Char => (*(p as *const AtomicU16)).load(order) as u64,
            Kind::Short => (*(p as *const AtomicI16)).load(order) as i64 as u64,
            Kind::Int => (*(p as *const AtomicI32)).load(order) as i64 as u64,
            Kind::Float => (*(p as *const AtomicU32)).load(order) as u64,
            Kind::Long | Kind::Double | Kind::Ref => (*(p as *const AtomicU64)).load(order),
        }
    }
}

/// Stores a slot's value of `kind` at `p` (only the kind's bytes: Java
/// forbids word tearing between neighbouring fields and elements).
///
/// # Safety
///
/// As [`load_kind`].
#[inline(always)]
pub unsafe fn store_kind(p: *mut u8, kind: Kind, v: u64, order: Ordering) {
    // SAFETY: as `load_kind`.
    unsafe {
        match kind {
            Kind::Boolean => (*(p as *const AtomicU8)).store(v as u8 & 1, order),
            Kind::Byte => (*(p as *const AtomicU8)).store(v as u8, order),
            Kind::Char | Kind::Short => (*(p as *const AtomicU16)).store(v as u16, order),
            Kind::Int | Kind::Float => (*(p as *const AtomicU32)).store(v as u32, order),
            Kind::Long | Kind::Double | Kind::Ref => (*(p as *const AtomicU64)).store(v, order),
        }
    }
}

impl<B: BarrierSet> JThread<B> {
    /// The `Obj` of an address.
    #[inline(always)]
    pub fn obj(&self, addr: usize) -> Obj<'_> {
        // SAFETY: every address the VM passes here is an object of this
        // heap read since the last safepoint (module docs).
        unsafe { Obj::from_addr(addr) }
    }

    /// Reference fields of `obj` (for arrays of references, the length).
    #[inline(always)]
    pub fn nrefs(&self, obj: usize) -> usize {
        // SAFETY: as `obj`.
        unsafe { self.m.shape_unchecked(self.obj(obj)).0 }
    }

    /// The class of instance `obj`, or `None` for an array (untagged).
    #[inline(always)]
    fn instance_class(&self, obj: usize) -> Option<&'static Class> {
        // SAFETY: as `obj`; a tagged object the VM allocated holds its
        // class's tag (`alloc_object`).
        unsafe {
            self.m
                .tag_unchecked(self.obj(obj))
                .map(|tag| crate::link::class_space::class_of_tag(tag))
        }
    }

    /// The data area of `obj`, to read: an instance's after its class's
    /// reference slots, an array's after its elements' (its layout word's
    /// count).
    #[inline(always)]
    pub fn data(&self, obj: usize) -> *const u8 {
        let o = self.obj(obj);
        // SAFETY: as `obj`; an instance's class gives its reference count,
        // an array's layout word the real one.
        unsafe {
            match self.instance_class(obj) {
                Some(c) => self.m.tagged_data_unchecked(o, c.nrefs as usize),
                None => self.m.data_unchecked(o, self.m.shape_unchecked(o).0),
            }
        }
    }

    /// The data area of `obj`, to write.
    #[inline(always)]
    pub fn data_mut(&self, obj: usize) -> *mut u8 {
        let o = self.obj(obj);
        // SAFETY: as `data`.
        unsafe {
            match self.instance_class(obj) {
                Some(c) => self.m.tagged_data_mut_unchecked(o, c.nrefs as usize),
                None => self.m.data_mut_unchecked(o, self.m.shape_unchecked(o).0),
            }
        }
    }

    /// The class of `obj`: an instance's tag, an array's class word.
    #[inline(always)]
    pub fn class_of(&self, obj: usize) -> &'static Class {
        // SAFETY: as `obj`; the tag of an object the VM allocated is its
        // class's (`alloc_object`), and an untagged object is an array,
        // whose data word 0 holds the class word, written at allocation
        // before the object was published and never changed; classes live
        // for the whole process.
        unsafe {
            match self.m.tag_unchecked(self.obj(obj)) {
                Some(tag) => crate::link::class_space::class_of_tag(tag),
                None => &*((self.data(obj) as *const usize).read() as *const Class),
            }
        }
    }

    /// The length of array `arr`.
    #[inline(always)]
    pub fn array_len(&self, arr: usize) -> i32 {
        // SAFETY: `arr` is an array (the caller checked, or the verifier
        // guarantees it): its length word follows the class word.
        unsafe { (self.data(arr).add(LENGTH_WORD) as *const i32).read() }
    }

    /// Reference field (or element) `i` of `obj`, through the barriers.
    #[inline(always)]
    pub fn load_ref(&self, obj: usize, i: usize) -> usize {
        // SAFETY: `i` is below `obj`'s reference count (the caller's
        // bounds check for arrays; the field layout for instances).
        unsafe { self.m.load_unchecked(self.obj(obj), i).map_or(0, |o| o.addr()) }
    }

    /// Stores reference `v` (0 = null) into field (element) `i` of `obj`.
    #[inline(always)]
    pub fn store_ref(&self, obj: usize, i: usize, v: usize) {
        let val = (v != 0).then(|| self.obj(v));
        // SAFETY: as `load_ref`; `v` is null or an object of this heap.
        unsafe { self.m.store_unchecked(self.obj(obj), i, val) }
    }

    /// Makes an allocation failure the pending Java error.
    #[cold]
    pub fn alloc_failed(&mut self, e: GcError) -> crate::runtime::Thrown {
        match e {
            GcError::OutOfMemory { .. } | GcError::ObjectTooLarge { .. } => self.throw_oom("Java heap space"),
            other => self.throw_new("java/lang/InternalError", Some(&format!("heap: {other}"))),
        }
    }

    /// A new instance of `c` (its fields zero), tagged with its class.
    #[inline]
    pub fn alloc_object(&mut self, c: &'static Class) -> JResult<usize> {
        let tag = crate::link::class_space::tag(c);
        match self
            .m
            .alloc_unrooted_tagged(c.nrefs as usize, c.data_bytes as usize / 8, tag)
        {
            Ok(o) => Ok(o.addr()),
            Err(e) => Err(self.alloc_failed(e)),
        }
    }

    /// A new array of class `ac` with `len` elements (zero), or
    /// `NegativeArraySizeException`/`OutOfMemoryError`.
    pub fn alloc_array(&mut self, ac: &'static Class, len: i32) -> JResult<usize> {
        if len < 0 {
            return Err(self.throw_new("java/lang/NegativeArraySizeException", Some(&len.to_string())));
        }
        if len > MAX_ARRAY_LENGTH {
            return Err(self.throw_oom("Requested array size exceeds VM limit"));
        }
        let elem = ac.elem_kind().expect("an array class");
        let (nrefs, ndata) = if elem == Kind::Ref {
            (len as usize, 2)
        } else {
            (0, 2 + (len as usize * elem.size()).div_ceil(8))
        };
        let addr = match self.m.alloc_unrooted(nrefs, ndata) {
            Ok(o) => o.addr(),
            Err(e) => return Err(self.alloc_failed(e)),
        };
        // SAFETY: a fresh array with this layout, unpublished.
        unsafe {
            let p = self.m.data_mut_unchecked(self.obj(addr), nrefs);
            (p as *mut usize).write(ac as *const Class as usize);
            (p.add(LENGTH_WORD) as *mut u64).write(len as u32 as u64);
        }
        Ok(addr)
    }

    /// Address of element `i` of primitive array `arr` (kind `k`), to read.
    #[inline(always)]
    pub fn elem_ptr(&self, arr: usize, k: Kind, i: usize) -> *const u8 {
        // SAFETY: `i` is in bounds (the caller checked); primitive arrays
        // have no references, so their data starts at the known place.
        unsafe {
            self.m
                .data_unchecked(self.obj(arr), 0)
                .add(ELEMENTS + i * k.size())
        }
    }

    /// Address of element `i` of primitive array `arr`, to write.
    #[inline(always)]
    pub fn elem_ptr_mut(&self, arr: usize, k: Kind, i: usize) -> *mut u8 {
        // SAFETY: as `elem_ptr`.
        unsafe {
            self.m
                .data_mut_unchecked(self.obj(arr), 0)
                .add(ELEMENTS + i * k.size())
        }
    }

    /// A primitive field at data byte `off` of `obj`.
    #[inline(always)]
    pub fn get_prim(&self, obj: usize, off: u32, k: Kind) -> u64 {
        // SAFETY: `off` is a field of `obj`'s class of kind `k` (resolved
        // by the pre-decoder; the verifier checks the object's class).
        unsafe { load_kind(self.data(obj).add(off as usize), k, Ordering::Relaxed) }
    }

    /// Sets a primitive field.
    #[inline(always)]
    pub fn put_prim(&self, obj: usize, off: u32, k: Kind, v: u64) {
        // SAFETY: as `get_prim`.
        unsafe { store_kind(self.data_mut(obj).add(off as usize), k, v, Ordering::Relaxed) }
    }

    /// A shallow copy of `obj` (`Object.clone`; arrays and `Cloneable`
    /// instances), through the barriers.
    pub fn clone_object(&mut self, obj_slot: usize) -> JResult<usize> {
        let mark = self.stack.temps_len();
        let t = self.stack.push_temp(obj_slot);
        let obj = self.stack.temp(t);
        let (nrefs, ndata) = self.m.shape(self.obj(obj)).expect("a heap object");
        let tag = self.m.tag(self.obj(obj)).expect("a heap object");
        let fresh = match tag {
            Some(tag) => self.m.alloc_unrooted_tagged(nrefs, ndata, tag),
            None => self.m.alloc_unrooted(nrefs, ndata),
        };
        let copy = match fresh {
            Ok(o) => o.addr(),
            Err(e) => {
                self.stack.truncate_temps(mark);
                return Err(self.alloc_failed(e));
            }
        };
        let obj = self.stack.temp(t);
        self.stack.truncate_temps(mark);
        for i in 0..nrefs {
            let v = self.load_ref(obj, i);
            self.store_ref(copy, i, v);
        }
        // SAFETY: both objects have `ndata` data words; the copy is fresh.
        unsafe {
            let from = self.m.data_unchecked(self.obj(obj), nrefs) as *const AtomicU64;
            let to = self.m.data_mut_unchecked(self.obj(copy), nrefs) as *mut u64;
            for j in 0..ndata {
                to.add(j).write((*from.add(j)).load(Ordering::Relaxed));
            }
        }
        Ok(copy)
    }
}

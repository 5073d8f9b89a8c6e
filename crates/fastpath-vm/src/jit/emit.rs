//! The object model in compiled code: field and array accesses with the
//! heap's barrier set, TLAB allocation, monitors, type checks and the
//! dispatch of virtual and interface calls.
//!
//! Where it sits: methods of the translator (`translate.rs`) for the
//! instructions that touch objects. Every barrier is the library's
//! Cranelift form (`fastpath_cranelift`), composed for the set the heap
//! runs as the library's Rust barriers compose it (`fastpath::gc`'s
//! `barriers/mod.rs` table): Brooks read barrier before a read, Brooks
//! write barrier before a write, SATB before a reference store, the card
//! barriers after it, the load-reference barrier after a reference load.
//! Object addresses follow `layout.rs`.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32, F64, I16, I32, I64, I8, I8X16};
use cranelift_codegen::ir::{AliasRegion, AliasRegionData, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::Variable;
use fastpath::gc::Barrier;
use fastpath_cranelift::CardTable;
use fastpath_jit::slow::LibraryPath;

use super::helpers::Helper;
use super::layout::{CLASS_WORD, ELEMENTS, FORWARDING, LAYOUT, LENGTH_WORD, REFS};
use super::ops::K;
use super::translate::Translator;
use crate::link::{Class, Kind, Method};
use fastpath::gc::layout as heap;
use fastpath::gc::layout::RefWidth;

/// What an object is known to be where compiled code reads its class or
/// data area: an instance has a tagged layout word, an array an untagged
/// one (`object/mod.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// Not an array: the verifier's type is a class other than `Object`.
    Instance,
    /// An array.
    Array,
    /// Either (an `Object`, an interface type, or unverified).
    Either,
}

/// Which memory of the heap a plain load or store reaches: its alias
/// region, so that Cranelift's alias analysis forwards a stored value to
/// a later load of it and reuses a load across stores to other regions
/// (field-based type-based alias analysis: Diwan, McKinley and Moss,
/// "Type-Based Alias Analysis", PLDI 1998; HotSpot's C2 slices its
/// memory graph by field the same way, `Compile::alias_type`).
///
/// Cranelift's analysis asks that every access to one location carry one
/// region (an access without a region reads through stores made under
/// one). Here each location of an object's fields and elements has
/// exactly one: an instance field is named by its declaring class and
/// its offset in the data area (a primitive) or its reference index,
/// which within one object name one field; every access to it, whatever
/// the static type it goes through, names that declaring class (field
/// resolution's, `Translator::current_field`; the receiver's class's
/// hierarchy where a loop hoists its fields, `declaring_class`; `String`
/// in the intrinsics of its methods). Primitive fields are reached only
/// through `read_data` and `write_data`, reference fields only through
/// `load_ref_raw` and `store_ref_at` (and the SATB barrier's load of the
/// value a store replaces, given the same flags); a primitive array's
/// elements through `array_load`, `array_store` and `arraycopy`'s inline
/// copy, a reference array's through `array_load` and `array_store`.
/// Headers, static fields and everything outside the heap keep no region:
/// a store without one is a fence to the analysis, and a load without one
/// never reaches these regions' locations. Accesses that order memory
/// (volatile fields, CAS, the lock) are atomic instructions, fences to the
/// analysis too, as are calls. Within a stretch with none of these no
/// location changes object: the collector moves and frees objects only at
/// safepoints, which are calls, and zeroes new objects' memory with
/// stores that have no region.
#[derive(Clone, Copy)]
pub(super) enum HeapRegion {
    /// The primitive field of the declaring class at this byte offset of
    /// the data area.
    Data(&'static Class, i32),
    /// A primitive array's elements, every kind.
    PrimElements,
    /// The reference field of the declaring class at this index.
    Ref(&'static Class, i64),
    /// A reference array's elements.
    RefElements,
}

impl HeapRegion {
    /// What names the region: its kind, the declaring class's address and
    /// the field's offset or index.
    fn key(self) -> (u8, usize, i64) {
        match self {
            HeapRegion::PrimElements => (0, 0, 0),
            HeapRegion::RefElements => (1, 0, 0),
            HeapRegion::Data(c, off) => (2, c as *const Class as usize, i64::from(off)),
            HeapRegion::Ref(c, i) => (3, c as *const Class as usize, i),
        }
    }
}

impl std::fmt::Debug for HeapRegion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeapRegion::PrimElements => f.write_str("primitive array elements"),
            HeapRegion::RefElements => f.write_str("reference array elements"),
            HeapRegion::Data(c, off) => write!(f, "{} data +{off}", c.name),
            HeapRegion::Ref(c, i) => write!(f, "{} reference {i}", c.name),
        }
    }
}

impl PartialEq for HeapRegion {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for HeapRegion {}

impl std::hash::Hash for HeapRegion {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

/// Whether class `c` itself declares the instance field at `off` (a
/// reference index when `is_ref`, else a data byte offset).
fn declares(c: &Class, off: u32, is_ref: bool) -> bool {
    c.fields
        .iter()
        .any(|f| !f.is_static() && f.offset == off && (f.kind == Kind::Ref) == is_ref)
}

/// A primitive instance field as compiled code reaches it: the class that
/// declares it, its byte offset in the data area and its kind.
#[derive(Clone, Copy, Debug)]
pub(super) struct DataField {
    /// The declaring class (the field's alias region's, [`HeapRegion`]).
    pub holder: &'static Class,
    /// The byte offset in the data area.
    pub off: i32,
    /// The field's kind (primitive).
    pub kind: Kind,
}

impl DataField {
    /// The field of `holder` at data byte `off`, of kind `kind`.
    pub fn new(holder: &'static Class, off: u32, kind: Kind) -> Self {
        Self {
            holder,
            off: off as i32,
            kind,
        }
    }
}

/// The class of `c`'s hierarchy (`c` or a superclass) that declares the
/// instance field at `off` (a reference index when `is_ref`, else a data
/// byte offset): within one object each offset is one field's.
pub(super) fn declaring_class(c: &'static Class, off: u32, is_ref: bool) -> Option<&'static Class> {
    let mut at = Some(c);
    while let Some(k) = at {
        if declares(k, off, is_ref) {
            return Some(k);
        }
        at = k.super_class;
    }
    None
}

/// Arrays longer than this are allocated by the runtime (no inline
/// zeroing loop of megabytes; the size computation cannot overflow).
const INLINE_ARRAY_MAX: i64 = 1 << 16;

impl Translator<'_, '_> {
    pub(super) fn has(&self, b: Barrier) -> bool {
        self.env.barriers.has(b)
    }

    /// The flags of a plain access to the heap memory `r`: trusted
    /// (aligned, cannot trap) and in `r`'s alias region.
    pub(super) fn heap_flags(&mut self, r: HeapRegion) -> MemFlagsData {
        let region = self.heap_region(r);
        MemFlagsData::trusted().with_alias_region(Some(region))
    }

    /// The alias region of the heap memory `r` in this function (its id
    /// the order in which the function first named it).
    pub(super) fn heap_region(&mut self, r: HeapRegion) -> AliasRegion {
        debug_assert!(
            match r {
                HeapRegion::Data(c, off) => declares(c, off as u32, false),
                HeapRegion::Ref(c, i) => declares(c, i as u32, true),
                _ => true,
            },
            "{r:?}: not a field its class declares"
        );
        let next = self.region_ids.len() as u32;
        let user_id = *self.region_ids.entry(r).or_insert(next);
        self.b.func.dfg.alias_regions.insert(AliasRegionData {
            user_id,
            description: format!("{r:?}").into(),
        })
    }

    /// Offset of reference field `i` from its object, a tagged instance:
    /// the heap's slot width apart from the tagged form's reference 0
    /// (`gc::layout::RefWidth::tagged_ref_offset`).
    pub(super) fn ref_field_offset(&self, i: i64) -> i32 {
        self.env.refs.tagged_ref_offset(i as usize) as i32
    }

    /// log2 of a reference slot's bytes: an array element index's scale.
    fn slot_shift(&self) -> i64 {
        i64::from(self.env.refs.slot_bytes().trailing_zeros())
    }

    /// Bytes the slots of `nrefs` references take (a 64-bit count), padded
    /// to a word: what lies between the layout word and the data words.
    fn ref_bytes(&mut self, nrefs: Value) -> Value {
        match self.env.refs {
            RefWidth::Full => self.b.ins().ishl_imm_s(nrefs, 3),
            RefWidth::Compressed | RefWidth::Unscaled => {
                // 4 * n rounded up to 8: the words, (n + 1) / 2, scaled by
                // 8, a shift an x86-64 address folds into its index.
                let n1 = self.b.ins().iadd_imm_s(nrefs, 1);
                let words = self.b.ins().ushr_imm_s(n1, 1);
                self.b.ins().ishl_imm_s(words, 3)
            }
        }
    }

    /// The copy of `obj` to read (`brooks-rb`: through its forwarding word).
    pub(super) fn resolve_read(&mut self, obj: Value) -> Value {
        if self.has(Barrier::BrooksRb) {
            fastpath_cranelift::brooks_read_barrier(&mut self.b, obj, FORWARDING)
        } else {
            obj
        }
    }

    /// The copy of `obj` to write, and `val` resolved as a stored value
    /// must be (`brooks-wb`: the copy, evacuating it while evacuation runs;
    /// else the read barrier's).
    pub(super) fn resolve_write(&mut self, obj: Value, val: Value) -> (Value, Value) {
        if self.has(Barrier::BrooksWb) {
            let slow = self.library_ref(LibraryPath::BrooksWb);
            let thread = self.thread_here();
            let state = self.gc_state();
            let (from, first) = (self.here(), self.blocks_so_far());
            let r = fastpath_cranelift::brooks_write_barrier_with_state(
                &mut self.b,
                state,
                thread,
                obj,
                val,
                fastpath_jit::BrooksWriteBarrier::FASTPATH_STATE_BITS,
                FORWARDING,
                slow,
            );
            // The join: the slow path evacuates at most (no stop, no
            // Java field written).
            self.seal_since(first);
            self.continue_from(from);
            r
        } else {
            (self.resolve_read(obj), val)
        }
    }

    /// The GC-state byte the barriers test: the one loaded since the last
    /// call or safepoint on the way here (`facts.rs`), else loaded here.
    pub(super) fn gc_state(&mut self) -> Value {
        if let Some(v) = self.facts().gc_state {
            return v;
        }
        let thread = self.thread_here();
        let v = fastpath_cranelift::load_gc_state(&mut self.b, thread, self.env.thread.gc_state);
        self.facts().gc_state = Some(v);
        v
    }

    /// The address of data word 0 of the resolved array `o`: the one
    /// computed on the way here (`facts.rs`), else `o` plus its references
    /// (an array's layout word is untagged: the count is its low 32 bits).
    /// A primitive array's (`Translator::known_arrays`) has no references:
    /// its data words follow the layout word at a fixed offset, with no
    /// load.
    pub(super) fn array_data(&mut self, o: Value) -> Value {
        let nrefs = match self.array_form(o) {
            Some(true) => Some(0),
            _ => None,
        };
        self.data_of_known(o, nrefs, true)
    }

    /// Whether the array `a` has primitive elements (`Some(true)`) or
    /// references (`Some(false)`), where the translator knows: from the
    /// type that made it (`Translator::known_arrays`: a field's, a
    /// parameter's, a `newarray`'s), or from its declared type
    /// (`declared.rs`), which an array in a local keeps across a stop's
    /// join where the value itself is a new one (a `hashCode` call
    /// between `tab = table` and `tab.length`).
    pub(super) fn array_form(&mut self, a: Value) -> Option<bool> {
        let key = self.key(a);
        self.known_arrays.get(&key).copied().or_else(|| {
            matches!(
                self.declared.get(&key),
                Some(super::declared::Declared::ArrayOf { .. })
            )
            .then_some(false)
        })
    }

    /// The address of data word 0 of the resolved instance `o`
    /// ([`Translator::data_of_known`], with no count from the caller).
    pub(super) fn instance_data(&mut self, o: Value) -> Value {
        self.data_of_known(o, None, false)
    }

    /// The address of data word 0 of the resolved object `o`, an array or
    /// an instance as `array` says: the one
    /// computed on the way here (`facts.rs`); else `o` plus its references
    /// when their count is known (`nrefs`, or `o` is a `new`'s result:
    /// [`Translator::known_nrefs`]), with no load; else from the count:
    /// an array's untagged layout word's low 32 bits, an instance's class's
    /// `nrefs` (its tagged word holds only the class).
    fn data_of_known(&mut self, o: Value, nrefs: Option<u32>, array: bool) -> Value {
        let key = self.key(o);
        if let Some(&d) = self.facts().data.get(&key) {
            return d;
        }
        let d = match nrefs.or_else(|| self.known_nrefs.get(&key).copied()) {
            Some(n) => {
                let offset = if array {
                    self.env.refs.data_offset(n as usize, 0)
                } else {
                    self.env.refs.tagged_data_offset(n as usize, 0)
                };
                self.b.ins().iadd_imm_s(o, offset as i64)
            }
            None => {
                // The layout word and a class's counts never change:
                // read-only loads.
                let flags = MemFlagsData::trusted().with_readonly();
                let (bytes, first) = if array {
                    let n = self.b.ins().uload32(flags, o, LAYOUT);
                    (self.ref_bytes(n), REFS)
                } else {
                    // An instance's count is odd on a compressed heap
                    // (`Class::ref_fields`): its slots, from the tagged
                    // reference 0, end on a word with no rounding.
                    let class = self.instance_class_of(o);
                    let nrefs = std::mem::offset_of!(Class, nrefs) as i32;
                    let n = self.b.ins().uload32(flags, class, nrefs);
                    let shift = self.slot_shift();
                    let first = self.env.refs.tagged_ref_offset(0) as i32;
                    (self.b.ins().ishl_imm_s(n, shift), first)
                };
                let base = self.b.ins().iadd(o, bytes);
                self.b.ins().iadd_imm_s(base, i64::from(first))
            }
        };
        self.facts().data.insert(key, d);
        d
    }

    /// The class of the object `obj` (not null), an instance or an array
    /// (an instance when [`Translator::instances`] says so).
    pub(super) fn class_of(&mut self, obj: Value) -> Value {
        let form = if self.instances.contains(&self.key(obj)) {
            Form::Instance
        } else {
            Form::Either
        };
        self.class_of_form(obj, form)
    }

    /// The class of the instance `obj` (not null, not an array: the
    /// verifier's type of a receiver of a class's method, or a thrown
    /// object's): its layout word's tag.
    pub(super) fn instance_class_of(&mut self, obj: Value) -> Value {
        self.class_of_form(obj, Form::Instance)
    }

    /// The class of the array `obj` (not null): its class word.
    pub(super) fn array_class_of(&mut self, obj: Value) -> Value {
        self.class_of_form(obj, Form::Array)
    }

    /// The class of `obj` (not null) of `form`: an instance's is its layout
    /// word's tag decoded (`link/class_space.rs`), an array's its class
    /// word; an object of either form tests the layout word's tagged bit
    /// first.
    fn class_of_form(&mut self, obj: Value, form: Form) -> Value {
        let o = self.resolve_read(obj);
        let ro = MemFlagsData::trusted().with_readonly();
        if form == Form::Array {
            let data = self.array_data(o);
            return self.b.ins().load(I64, ro, data, CLASS_WORD);
        }
        // The 4 bytes of the tagged form, or an untagged word's low half
        // (its reference count).
        let w = self.b.ins().uload32(ro, o, LAYOUT);
        if form == Form::Instance {
            return self.class_of_tagged(w);
        }
        // A diamond that neither calls nor stops: the join keeps the
        // facts of the way here.
        let (from, first) = (self.here(), self.blocks_so_far());
        let (tagged, array, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let class = self.b.append_block_param(join, I64);
        let bit = self.b.ins().band_imm_s(w, heap::LAYOUT_TAGGED_BIT as i64);
        self.b.ins().brif(bit, tagged, &[], array, &[]);
        self.b.switch_to_block(tagged);
        let c = self.class_of_tagged(w);
        self.b.ins().jump(join, &[c.into()]);
        // The array's class word after its references (the untagged word's
        // low 32 bits count them); out of line, as arrays are the rare
        // receivers, operands of `instanceof` and stored values.
        self.b.set_cold_block(array);
        self.b.switch_to_block(array);
        let bytes = self.ref_bytes(w);
        let data = self.b.ins().iadd(o, bytes);
        let c = self.b.ins().load(I64, ro, data, REFS + CLASS_WORD);
        self.b.ins().jump(join, &[c.into()]);
        self.b.switch_to_block(join);
        self.seal_since(first);
        self.continue_from(from);
        class
    }

    /// The class a tagged layout word `w` (its 4 bytes, zero-extended)
    /// names: the word (the tagged bit and the tag) shifted left by the
    /// class space's slot log2, plus the space's decode offset (0 when the
    /// space sits at its preferred base: `link/class_space.rs`).
    fn class_of_tagged(&mut self, w: Value) -> Value {
        let shift = i64::from(crate::link::class_space::SLOT_SHIFT);
        let c = self.b.ins().ishl_imm_s(w, shift);
        match self.env.class_decode_offset {
            0 => c,
            off => self.b.ins().iadd_imm_s(c, off),
        }
    }

    /// The non-null `obj`'s layout word's first 4 bytes: for an instance,
    /// its tagged word (the tagged bit and the tag); an array's untagged
    /// word has the tagged bit clear there. Compared with a class's
    /// [`Translator::exact_class_tag`], it tests that `obj` is an instance
    /// of exactly that class in one load and the compare, with no test of
    /// the form (C2's receiver check against a profiled klass,
    /// `GraphKit::type_check_receiver`).
    pub(super) fn exact_class_key(&mut self, obj: Value) -> Value {
        let o = self.resolve_read(obj);
        let ro = MemFlagsData::trusted().with_readonly();
        self.b.ins().uload32(ro, o, LAYOUT)
    }

    /// The value [`Translator::exact_class_key`] has for an instance of
    /// `class`: its tagged layout word; none for an array class (its
    /// instances' words are untagged).
    pub(super) fn exact_class_tag(&self, class: &'static Class) -> Option<i64> {
        if class.is_array() {
            return None;
        }
        heap::tagged_layout_word(crate::link::class_space::tag(class)).map(|w| w as i64)
    }

    /// Whether `a` and `b` are the same object (i8): with Brooks barriers
    /// two copies of one object compare by their forwardees.
    pub(super) fn same_object(&mut self, a: Value, b: Value) -> Value {
        let eq = self.b.ins().icmp(IntCC::Equal, a, b);
        if !(self.has(Barrier::BrooksRb) || self.has(Barrier::BrooksWb)) {
            return eq;
        }
        let (diff, both, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let r = self.b.append_block_param(join, I8);
        self.b.ins().brif(eq, join, &[eq.into()], diff, &[]);
        self.b.switch_to_block(diff);
        let az = self.b.ins().icmp_imm_s(IntCC::Equal, a, 0);
        let bz = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
        let any = self.b.ins().bor(az, bz);
        let no = self.b.ins().iconst(I8, 0);
        self.b.ins().brif(any, join, &[no.into()], both, &[]);
        self.b.switch_to_block(both);
        let fa = self.b.ins().load(I64, MemFlagsData::trusted(), a, FORWARDING);
        let fb = self.b.ins().load(I64, MemFlagsData::trusted(), b, FORWARDING);
        let same = self.b.ins().icmp(IntCC::Equal, fa, fb);
        self.b.ins().jump(join, &[same.into()]);
        self.b.switch_to_block(join);
        r
    }

    // ---- references ----------------------------------------------------------------

    /// Loads the reference at `base + offset` (a field of a resolved
    /// object, or an array element's address less the array's header)
    /// through the barriers.
    fn load_ref_at(&mut self, base: Value, offset: i32, region: HeapRegion) -> Value {
        let v = self.load_ref_raw(base, offset, region);
        self.lrb(v, base, offset)
    }

    /// The reference at `base + offset`, loaded without the load-reference
    /// barrier: an address (a compressed slot's 32 bits decoded).
    pub(super) fn load_ref_raw(&mut self, base: Value, offset: i32, region: HeapRegion) -> Value {
        let field = self.b.ins().iadd_imm_s(base, i64::from(offset));
        let flags = self.heap_flags(region);
        // Acquire: the referenced object's initialization (the Rust
        // barrier's ordering; a plain load on x86-64).
        match self.env.refs {
            RefWidth::Full => self.b.ins().atomic_load(I64, flags, field),
            w @ (RefWidth::Compressed | RefWidth::Unscaled) => {
                // x86-64: a zero-extending 32-bit `mov` (every load is an
                // acquire under TSO, as the full-width `atomic_load`
                // lowers to a plain `mov` too); AArch64: `ldar` and the
                // extension. Unscaled slots are then the address; compressed
                // ones are shifted.
                let wide = if cfg!(target_arch = "x86_64") {
                    self.b.ins().uload32(flags, field, 0)
                } else {
                    let narrow = self.b.ins().atomic_load(I32, flags, field);
                    self.b.ins().uextend(I64, narrow)
                };
                match w.shift() {
                    0 => wide,
                    shift => self.b.ins().ishl_imm_s(wide, i64::from(shift)),
                }
            }
        }
    }

    /// The load-reference barrier (`lrb`) of `v`, loaded from `base +
    /// offset`: the reference to use.
    pub(super) fn lrb(&mut self, v: Value, base: Value, offset: i32) -> Value {
        if !self.has(Barrier::Lrb) {
            return v;
        }
        let slow = self.library_ref(LibraryPath::Lrb);
        let thread = self.thread_here();
        let state = self.gc_state();
        let first = self.blocks_so_far();
        // The field's address is computed on the slow path only.
        let r = fastpath_cranelift::load_reference_barrier_at_with_state(
            &mut self.b,
            state,
            thread,
            v,
            base,
            offset,
            &self.env.thread,
            &self.env.cset,
            fastpath_jit::Forwardee::fastpath(self.env.format),
            slow,
        );
        self.seal_since(first);
        r
    }

    /// Whether the value the current instruction pushes is only tested
    /// against null: the next instruction is `ifnull`/`ifnonnull` and
    /// nothing else enters it (not a leader: its operand is this value).
    /// Such a value needs no load-reference barrier (C2's elision for
    /// values only compared with null: forwarding keeps null null and
    /// non-null non-null).
    fn only_null_tested(&self) -> bool {
        let next = self.s.idx + 1;
        next < self.s.ops.len()
            && self.s.blocks[next].is_none()
            && matches!(self.s.ops[next], super::ops::Op::IfNull(..))
    }

    /// `getfield` of a reference: field `i` of `obj` (not null), declared
    /// by `holder`. A plain
    /// field loaded since the last write or call that may change it
    /// (`facts.rs`) is that load's value; a volatile one is always loaded
    /// and orders what follows. A plain field whose value is only tested
    /// against null is loaded without the load-reference barrier, which
    /// the next use of the field that needs the reference applies to the
    /// same loaded value.
    pub(super) fn load_ref_field(
        &mut self,
        obj: Value,
        holder: &'static Class,
        i: i64,
        volatile: bool,
    ) -> Value {
        let key = (self.key(obj), i);
        let offset = self.ref_field_offset(i);
        let lazy = !volatile && self.has(Barrier::Lrb) && self.only_null_tested();
        if !volatile {
            if let Some(&v) = self.facts().ref_fields.get(&key) {
                return v;
            }
            if let Some(&(raw, o)) = self.facts().raw_ref_fields.get(&key) {
                if lazy {
                    return raw;
                }
                let from = self.here();
                let v = self.lrb(raw, o, offset);
                self.continue_from(from);
                self.facts().raw_ref_fields.remove(&key);
                self.facts().ref_fields.insert(key, v);
                // Forwarding keeps a non-null reference non-null: the
                // null test of the raw value holds for the barrier's.
                let raw_key = self.key(raw);
                if self.facts().nonnull.contains(&raw_key) {
                    let v_key = self.key(v);
                    self.facts().nonnull.insert(v_key);
                }
                return v;
            }
        }
        let from = self.here();
        let o = self.resolve_read(obj);
        let raw = self.load_ref_raw(o, offset, HeapRegion::Ref(holder, i));
        if lazy {
            self.facts().raw_ref_fields.insert(key, (raw, o));
            return raw;
        }
        let v = self.lrb(raw, o, offset);
        // The barrier's join: its cold paths heal the field at most.
        self.continue_from(from);
        if volatile {
            self.facts().forget_memory();
        } else {
            self.facts().ref_fields.insert(key, v);
        }
        v
    }

    /// Stores `val` into the reference at `field` of the resolved object
    /// `o`, memory of `region`: SATB before (unless `old_null`: the field
    /// is known to hold null, `facts.rs`), the card barrier after.
    fn store_ref_at(&mut self, o: Value, field: Value, val: Value, old_null: bool, region: HeapRegion) {
        let flags = self.heap_flags(region);
        if self.has(Barrier::Satb) && !old_null {
            let slow = self.library_ref(LibraryPath::SatbEnqueue);
            let thread = self.thread_here();
            let state = self.gc_state();
            let (from, first) = (self.here(), self.blocks_so_far());
            fastpath_cranelift::satb_enqueue_slot_with_state(
                &mut self.b,
                state,
                thread,
                field,
                self.env.refs,
                flags,
                &self.env.thread,
                &self.env.satb,
                slow,
            );
            // The join: the cold paths push on the thread's SATB queue
            // (no stop, no Java field written).
            self.seal_since(first);
            self.continue_from(from);
        }
        // Release: publishes the stored object's initialization.
        match self.env.refs {
            RefWidth::Full => self.release_store(val, field, flags),
            w @ (RefWidth::Compressed | RefWidth::Unscaled) => {
                let shifted = match w.shift() {
                    0 => val,
                    shift => self.b.ins().ushr_imm_s(val, i64::from(shift)),
                };
                let narrow = self.b.ins().ireduce(I32, shifted);
                self.release_store(narrow, field, flags);
            }
        }
        if self.has(Barrier::Card) || self.has(Barrier::CardCond) {
            // The card of the object's start, as the Rust barrier marks
            // (HotSpot's imprecise marking for instance fields).
            let cond = !self.has(Barrier::Card);
            let thread = self.thread_here();
            fastpath_cranelift::card_mark(&mut self.b, thread, o, &self.env.thread, CardTable::Thread, cond);
        } else if self.has(Barrier::G1Card) {
            let slow = self.library_ref(LibraryPath::G1Card);
            let thread = self.thread_here();
            fastpath_cranelift::g1_card(
                &mut self.b,
                thread,
                field,
                val,
                &self.env.thread,
                CardTable::Thread,
                self.env.cset.region_shift,
                slow,
            );
        }
    }

    /// `v`, a reference being stored into the heap, is reachable from it
    /// now: the fields of an object this method allocated are no longer
    /// its alone (`facts.rs`, `null_fields`).
    pub(super) fn escapes_to_heap(&mut self, v: Value) {
        if self.const_of(v) == Some(0) {
            // Null names no object.
            return;
        }
        let key = self.key(v);
        self.facts().published(key);
    }

    /// A store other threads may read without a lock, ordered after every
    /// earlier store (what makes an object's initialization visible before
    /// a reference to it): x86-64's plain `mov` (TSO keeps stores in
    /// order), AArch64's `stlr` (Cranelift's `atomic_store`). Cranelift's
    /// `atomic_store` is sequentially consistent, which x86-64 lowers to
    /// `mov` + `mfence`: Java asks that of volatile stores only, which add
    /// their own fence. `flags`: trusted, with the memory's alias region
    /// if it has one ([`HeapRegion`]).
    pub(super) fn release_store(&mut self, v: Value, addr: Value, flags: MemFlagsData) {
        if cfg!(target_arch = "x86_64") {
            self.b.ins().store(flags, v, addr, 0);
        } else {
            self.b.ins().atomic_store(flags, v, addr);
        }
    }

    /// `putfield` of a reference: into a field of an object this method
    /// allocated that still holds the allocation's null (`facts.rs`,
    /// `null_fields`), without the SATB pre-barrier, and not at all when
    /// the value is the constant null.
    pub(super) fn store_ref_field(&mut self, obj: Value, holder: &'static Class, i: i64, val: Value) {
        let key = self.key(obj);
        let old_null = self.facts().field_still_null(key, i);
        if old_null && self.const_of(val) == Some(0) {
            // Null over the null the allocation left: memory is unchanged
            // (a constructor's `this.next = null`).
            return;
        }
        self.facts().forget_ref_field(i);
        self.escapes_to_heap(val);
        let (o, v) = self.resolve_write(obj, val);
        let offset = self.ref_field_offset(i);
        let field = self.b.ins().iadd_imm_s(o, i64::from(offset));
        self.store_ref_at(o, field, v, old_null, HeapRegion::Ref(holder, i));
    }

    // ---- primitive data ------------------------------------------------------------

    fn load_kind(&mut self, kind: Kind, region: HeapRegion, addr: Value, off: i32, volatile: bool) -> Value {
        let f = self.heap_flags(region);
        if volatile {
            let t = match kind {
                Kind::Boolean | Kind::Byte => I8,
                Kind::Char | Kind::Short => I16,
                Kind::Int | Kind::Float => I32,
                _ => I64,
            };
            let a = self.b.ins().iadd_imm_s(addr, i64::from(off));
            let raw = self.b.ins().atomic_load(t, f, a);
            self.facts().forget_memory();
            return match kind {
                Kind::Boolean | Kind::Char => self.b.ins().uextend(I32, raw),
                Kind::Byte | Kind::Short => self.b.ins().sextend(I32, raw),
                Kind::Float => self.b.ins().bitcast(F32, MemFlagsData::new(), raw),
                Kind::Double => self.b.ins().bitcast(F64, MemFlagsData::new(), raw),
                _ => raw,
            };
        }
        match kind {
            Kind::Boolean => self.b.ins().uload8(I32, f, addr, off),
            Kind::Byte => self.b.ins().sload8(I32, f, addr, off),
            Kind::Char => self.b.ins().uload16(I32, f, addr, off),
            Kind::Short => self.b.ins().sload16(I32, f, addr, off),
            Kind::Int => self.b.ins().load(I32, f, addr, off),
            Kind::Float => self.b.ins().load(F32, f, addr, off),
            Kind::Long | Kind::Ref => self.b.ins().load(I64, f, addr, off),
            Kind::Double => self.b.ins().load(F64, f, addr, off),
        }
    }

    fn store_kind(
        &mut self,
        kind: Kind,
        region: HeapRegion,
        addr: Value,
        off: i32,
        v: Value,
        volatile: bool,
    ) {
        let f = self.heap_flags(region);
        // A constant narrow value is stored as an immediate (`movb $1,
        // mem`): `istore8` of an `int` constant has no immediate form in
        // Cranelift's x86-64 lowering, which would materialise the
        // constant in a register first (a sieve's `a[k] = true`).
        let narrow = match kind {
            Kind::Boolean => Some((I8, 1)),
            Kind::Byte => Some((I8, 0xff)),
            Kind::Char | Kind::Short => Some((I16, 0xffff)),
            _ => None,
        };
        if let (Some((ty, mask)), Some(c), false) = (narrow, self.const_of(v), volatile) {
            let imm = self.b.ins().iconst(ty, c & mask);
            self.b.ins().store(f, imm, addr, off);
            return;
        }
        let v = if kind == Kind::Boolean {
            self.b.ins().band_imm_s(v, 1)
        } else {
            v
        };
        if volatile {
            let a = self.b.ins().iadd_imm_s(addr, i64::from(off));
            let narrow = match kind {
                Kind::Boolean | Kind::Byte => self.b.ins().ireduce(I8, v),
                Kind::Char | Kind::Short => self.b.ins().ireduce(I16, v),
                Kind::Float => self.b.ins().bitcast(I32, MemFlagsData::new(), v),
                Kind::Double => self.b.ins().bitcast(I64, MemFlagsData::new(), v),
                _ => v,
            };
            self.release_store(narrow, a, f);
            // The JMM's StoreLoad after a volatile store.
            self.b.ins().fence();
            self.facts().forget_memory();
            return;
        }
        match kind {
            Kind::Boolean | Kind::Byte => {
                self.b.ins().istore8(f, v, addr, off);
            }
            Kind::Char | Kind::Short => {
                self.b.ins().istore16(f, v, addr, off);
            }
            _ => {
                self.b.ins().store(f, v, addr, off);
            }
        }
    }

    /// Primitive field `f` of `obj` (not null); `nrefs` its reference
    /// count when the field's class fixes it
    /// ([`Translator::final_holder_nrefs`]).
    pub(super) fn read_data(
        &mut self,
        obj: Value,
        f: DataField,
        volatile: bool,
        nrefs: Option<u32>,
    ) -> Value {
        let DataField { holder, off, kind } = f;
        let nrefs = nrefs.or_else(|| self.declared_final_nrefs(obj));
        let o = self.resolve_read(obj);
        let (base, disp) = self.instance_field_base(o, nrefs);
        self.load_kind(kind, HeapRegion::Data(holder, off), base, disp + off, volatile)
    }

    /// Where the resolved instance `o`'s data fields are addressed from:
    /// the data address computed on the way here (`facts.rs`) with no
    /// displacement; else, when the count of its references is known,
    /// `o` itself with the data's offset as the displacement, so that a
    /// field's load or store is one addressing of `o` and no separate
    /// `o + offset` value exists (Cranelift would copy that sum into each
    /// block that uses it, and its lowering materialised the offset in a
    /// register where it fused a field load into an `add`: Bounce's
    /// `bounce`, two `mov $16` a ball); else as
    /// [`Translator::data_of_known`] computes it from the layout word.
    fn instance_field_base(&mut self, o: Value, nrefs: Option<u32>) -> (Value, i32) {
        let key = self.key(o);
        if let Some(&d) = self.facts().data.get(&key) {
            return (d, 0);
        }
        match nrefs.or_else(|| self.known_nrefs.get(&key).copied()) {
            Some(n) => (o, self.env.refs.tagged_data_offset(n as usize, 0) as i32),
            None => (self.data_of_known(o, None, false), 0),
        }
    }

    /// Sets primitive field `f` of `obj` to `v` (`nrefs` as for
    /// [`Translator::read_data`]).
    pub(super) fn write_data(
        &mut self,
        obj: Value,
        f: DataField,
        v: Value,
        volatile: bool,
        nrefs: Option<u32>,
    ) {
        let DataField { holder, off, kind } = f;
        let nrefs = nrefs.or_else(|| self.declared_final_nrefs(obj));
        let zero = self.b.ins().iconst(I64, 0);
        let (o, _) = self.resolve_write(obj, zero);
        let (base, disp) = self.instance_field_base(o, nrefs);
        self.store_kind(kind, HeapRegion::Data(holder, off), base, disp + off, v, volatile);
    }

    /// The reference count of `obj` when its declared type
    /// (`declared.rs`) is a final class: the verifier proved it an
    /// instance of that class or null, and a final class has no
    /// subclass to add references before its data words. A receiver
    /// whose field's declaring class is not final but whose own declared
    /// class is (a `LinkedHashMap` field read on a final subclass's
    /// instance) has its data words at a fixed offset too.
    fn declared_final_nrefs(&self, obj: Value) -> Option<u32> {
        self.declared
            .get(&self.key(obj))
            .and_then(|&d| super::declared::final_nrefs(d))
    }

    /// The reference count of every object the current `getfield` or
    /// `putfield` can reach, when the field's declaring class is final:
    /// no subclass can add references before its data words (the loader
    /// refuses a final class's subclass). Read from the class's resolved
    /// constant-pool entry (the interpreter resolved it when it decoded
    /// the method); `None` otherwise.
    pub(super) fn final_holder_nrefs(&self) -> Option<u32> {
        let (holder, _) = self.current_field()?;
        (holder.flags & crate::classfile::access::FINAL != 0).then_some(holder.nrefs)
    }

    /// Whether the reference field the current `getfield` reads is
    /// declared with a class type other than `Object` (not an interface,
    /// not an array): what it holds is an instance ([`Translator::instances`]).
    pub(super) fn field_holds_instances(&self) -> bool {
        self.current_field().is_some_and(|(_, f)| {
            f.descriptor
                .strip_prefix('L')
                .and_then(|d| d.strip_suffix(';'))
                .is_some_and(|name| self.names_instance_class(name))
        })
    }

    /// The element form of the current `getfield`'s field when its declared
    /// type is an array type (`true`: primitive elements), which the
    /// verifier keeps every value stored there to (null aside).
    pub(super) fn field_array_form(&self) -> Option<bool> {
        self.field_array_form_at(self.s.idx)
    }

    /// [`Translator::field_array_form`] of the `getfield` or `putfield`
    /// at instruction `idx`.
    pub(super) fn field_array_form_at(&self, idx: usize) -> Option<bool> {
        let (_, f) = self.field_at(idx)?;
        let component = f.descriptor.strip_prefix('[')?;
        Some(!component.starts_with(['L', '[']))
    }

    /// The declaring class and the field of the current `getfield` or
    /// `putfield`, from its resolved constant-pool entry (the interpreter
    /// resolved it when it decoded the method); `None` otherwise.
    pub(super) fn current_field(&self) -> Option<(&'static Class, &'static crate::link::Field)> {
        self.field_at(self.s.idx)
    }

    /// [`Translator::current_field`] of the instruction at `idx`.
    pub(super) fn field_at(&self, idx: usize) -> Option<(&'static Class, &'static crate::link::Field)> {
        let m = self.s.m;
        let code = &m.code.as_ref()?.code;
        let bci = *self.s.d.bcis.get(idx)? as usize;
        let index = u16::from_be_bytes([*code.get(bci + 1)?, *code.get(bci + 2)?]);
        match m.class.resolved.get(index as usize)?.get()? {
            crate::link::resolve::Resolved::Field(holder, f) => Some((holder, f)),
            _ => None,
        }
    }

    /// The class that declares the field the current `getfield` or
    /// `putfield` names (its alias region's, `HeapRegion`).
    pub(super) fn current_holder(&self) -> Result<&'static Class, super::translate::Unsupported> {
        self.current_field().map(|(holder, _)| holder).ok_or_else(|| {
            super::translate::Unsupported(format!("field access at {}: not resolved", self.s.idx))
        })
    }

    /// The primitive field at data byte `off` of kind `kind` that the
    /// current `getfield` or `putfield` names, with its declaring class.
    pub(super) fn current_data_field(
        &self,
        off: u32,
        kind: Kind,
    ) -> Result<DataField, super::translate::Unsupported> {
        Ok(DataField::new(self.current_holder()?, off, kind))
    }

    /// Whether `name` is a loaded class other than `Object` and not an
    /// interface: a value the verifier types as it is never an array (an
    /// unloaded class has no instances, so no value of it reaches a class
    /// read; it is left out all the same).
    pub(super) fn names_instance_class(&self, name: &str) -> bool {
        name != "java/lang/Object"
            && self
                .env
                .classes
                .0
                .find_loaded(name)
                .is_some_and(|c| !c.is_interface() && !c.is_array())
    }

    // ---- arrays ----------------------------------------------------------------------

    /// The length of array `a` (not null), reference or primitive: where
    /// its form is known (`Translator::known_arrays`), read where that form
    /// keeps it, else at the data words its layout word locates.
    pub(super) fn array_length(&mut self, a: Value) -> Value {
        let form = self.array_form(a);
        let o = self.resolve_read(a);
        match form {
            Some(true) => return self.prim_array_length(o),
            Some(false) => return self.ref_array_length(o),
            None => {}
        }
        let key = self.key(o);
        if let Some(&len) = self.facts().lengths.get(&key) {
            return len;
        }
        let data = self.array_data(o);
        let len = self
            .b
            .ins()
            .load(I32, MemFlagsData::trusted().with_readonly(), data, LENGTH_WORD);
        self.facts().lengths.insert(key, len);
        len
    }

    /// Whether the array access being translated has its array proven
    /// non-null and its index in bounds (`ranges.rs`): it needs no checks.
    fn in_range(&self) -> bool {
        self.s.in_range.access(self.s.idx)
    }

    /// Whether the array access being translated has its array proven
    /// non-null and its index below the length (`ranges.rs`): it needs
    /// only [`Translator::index_sign`].
    fn below_length(&self) -> bool {
        self.s.in_range.below_length(self.s.idx)
    }

    /// The bounds check of an index proven below the length of the
    /// resolved array `o`: `i >= 0`, the length loaded on the throwing
    /// path only (the exception's message names it). `len_at` is the
    /// length word's offset from `o`.
    fn index_sign(&mut self, o: Value, i: Value, len_at: i32) {
        let from = self.here();
        let ok = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, i, 0);
        let (bad, cont) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, cont, &[], bad, &[]);
        self.b.set_cold_block(bad);
        self.b.switch_to_block(bad);
        let len = self
            .b
            .ins()
            .load(I32, MemFlagsData::trusted().with_readonly(), o, len_at);
        self.throw_index(i, len);
        self.b.switch_to_block(cont);
        self.continue_from(from);
    }

    /// Throws `ArrayIndexOutOfBoundsException` for index `i` of an array
    /// of length `len`, from the cold block being translated. The two go
    /// as one word made here: passed as they are, the call's fixed
    /// argument registers became regalloc2's hints for the hot path's
    /// values too, and a loop moved its array's length between registers
    /// around each check (`Helper::ThrowIndex`).
    fn throw_index(&mut self, i: Value, len: Value) {
        let lo = self.b.ins().uextend(I64, i);
        let hi = self.b.ins().uextend(I64, len);
        let hi = self.b.ins().ishl_imm_u(hi, 32);
        let packed = self.b.ins().bor(lo, hi);
        self.throw_with(Helper::ThrowIndex, &[packed]);
    }

    /// Bounds check of `i` against `len`, throwing from a cold block; none
    /// when an earlier check on the way here proved it.
    fn bounds(&mut self, i: Value, len: Value) {
        let key = (self.key(i), self.key(len));
        if self.facts().in_bounds.contains(&key) {
            return;
        }
        let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, len);
        self.check_or(ok, |t| t.throw_index(i, len));
        self.facts().in_bounds.insert(key);
    }

    /// The length of a reference array `o` (resolved): its reference count.
    fn ref_array_length(&mut self, o: Value) -> Value {
        let key = self.key(o);
        if let Some(&len) = self.facts().lengths.get(&key) {
            return len;
        }
        let len = self
            .b
            .ins()
            .load(I32, MemFlagsData::trusted().with_readonly(), o, LAYOUT);
        self.facts().lengths.insert(key, len);
        len
    }

    /// The length of a primitive array `o` (resolved).
    fn prim_array_length(&mut self, o: Value) -> Value {
        let key = self.key(o);
        if let Some(&len) = self.facts().lengths.get(&key) {
            return len;
        }
        let len = self.b.ins().load(
            I32,
            MemFlagsData::trusted().with_readonly(),
            o,
            REFS + LENGTH_WORD,
        );
        self.facts().lengths.insert(key, len);
        len
    }

    /// The first element's address and the length (zero-extended to 64
    /// bits) of the primitive array `o` (resolved): the pointer and count a
    /// leaf routine over the elements takes.
    pub(super) fn prim_array_span(&mut self, o: Value) -> (Value, Value) {
        let len = self.prim_array_length(o);
        let len = self.b.ins().uextend(I64, len);
        let first = self.b.ins().iadd_imm_s(o, i64::from(REFS + ELEMENTS));
        (first, len)
    }

    /// The address of element `i` of the primitive array `o` (resolved).
    ///
    /// Every element address is formed as `scaled index + object +
    /// offset`, the index zero-extended: the index is checked (or proven)
    /// in `0..length` before any access, so its zero and sign extensions
    /// agree, and the zero extension is a plain 32-bit move. The scaled
    /// index on the left of the add is what Cranelift's x86-64 address
    /// matcher takes as the address's index (`amode_imm_reg_reg_shift`
    /// prefers a shift on its left), so the object, a decoded compressed
    /// reference (itself a shift), is its base and stays in a register
    /// across a loop, where the other order scaled the reference and
    /// shifted the index by hand at every access. Callgrind per iteration,
    /// both together: Permute -7.7 %, Towers -6.2 %, GcLruCache -4.2 %,
    /// LruCache -2.2 %, Havlak -2.0 %, Json -1.9 %, Queens -1.7 %, CD,
    /// Richards, DeltaBlue -1.0 to -1.2 %, no program higher.
    fn prim_elem(&mut self, o: Value, i: Value, size: usize) -> Value {
        let i64v = self.b.ins().uextend(I64, i);
        let scaled = if size > 1 {
            self.b.ins().ishl_imm_s(i64v, size.trailing_zeros() as i64)
        } else {
            i64v
        };
        let a = self.b.ins().iadd(scaled, o);
        self.b.ins().iadd_imm_s(a, i64::from(REFS + ELEMENTS))
    }

    pub(super) fn array_load(&mut self, k: Kind) {
        let i = self.pop_v();
        let a = self.pop_v();
        // The checks report the instruction's entry state (both operands).
        self.s.stack.push(K::R);
        self.s.stack.push(K::I);
        let proven = self.in_range();
        let below = !proven && self.below_length();
        if !proven && !below {
            self.null_check(a);
        }
        let o = self.resolve_read(a);
        let v = if k == Kind::Ref {
            if below {
                self.index_sign(o, i, LAYOUT);
            } else if !proven {
                let len = self.ref_array_length(o);
                self.bounds(i, len);
            }
            let i64v = self.b.ins().uextend(I64, i);
            let shift = self.slot_shift();
            let off = self.b.ins().ishl_imm_s(i64v, shift);
            let f = self.b.ins().iadd(off, o);
            if self.has(Barrier::Lrb) && self.only_null_tested() {
                // Only tested against null: no barrier (`only_null_tested`).
                self.load_ref_raw(f, REFS, HeapRegion::RefElements)
            } else {
                let from = self.here();
                let v = self.load_ref_at(f, REFS, HeapRegion::RefElements);
                // The barrier's join: its cold paths heal the element at
                // most, which no fact names.
                self.continue_from(from);
                v
            }
        } else {
            if below {
                self.index_sign(o, i, REFS + LENGTH_WORD);
            } else if !proven {
                let len = self.prim_array_length(o);
                self.bounds(i, len);
            }
            let addr = self.prim_elem(o, i, k.size());
            self.load_kind(k, HeapRegion::PrimElements, addr, 0, false)
        };
        self.s.stack.truncate(self.s.stack.len() - 2);
        self.push(K::of(k), v);
    }

    pub(super) fn array_store(&mut self, k: Kind) {
        let (vk, v) = self.pop();
        let i = self.pop_v();
        let a = self.pop_v();
        self.s.stack.push(K::R);
        self.s.stack.push(K::I);
        self.s.stack.push(vk);
        if vk.slots() == 2 {
            self.s.stack.push(K::Hi);
        }
        let proven = self.in_range();
        let below = !proven && self.below_length();
        if !proven && !below {
            self.null_check(a);
        }
        if k == Kind::Ref {
            if below {
                let ro = self.resolve_read(a);
                self.index_sign(ro, i, LAYOUT);
            } else if !proven {
                let ro = self.resolve_read(a);
                let len = self.ref_array_length(ro);
                self.bounds(i, len);
            }
            self.array_store_check(a, v);
            self.escapes_to_heap(v);
            let (o, v) = self.resolve_write(a, v);
            let i64v = self.b.ins().uextend(I64, i);
            let shift = self.slot_shift();
            let off = self.b.ins().ishl_imm_s(i64v, shift);
            let f = self.b.ins().iadd(off, o);
            let field = self.b.ins().iadd_imm_s(f, i64::from(REFS));
            self.store_ref_at(o, field, v, false, HeapRegion::RefElements);
        } else {
            if below {
                let ro = self.resolve_read(a);
                self.index_sign(ro, i, REFS + LENGTH_WORD);
            } else if !proven {
                let ro = self.resolve_read(a);
                let len = self.prim_array_length(ro);
                self.bounds(i, len);
            }
            let zero = self.b.ins().iconst(I64, 0);
            let (o, _) = self.resolve_write(a, zero);
            let addr = self.prim_elem(o, i, k.size());
            let v = if k == Kind::Byte && !matches!(self.const_of(v), Some(0 | 1)) {
                // `bastore` into a boolean array stores `& 1` (which a
                // constant 0 or 1 is already: `true` and `false`).
                let class = self.array_class_of(a);
                let is_bool = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::Equal, class, self.env.bool_array as i64);
                let masked = self.b.ins().band_imm_s(v, 1);
                self.b.ins().select(is_bool, masked, v)
            } else {
                v
            };
            let store_as = match k {
                Kind::Char | Kind::Short => Kind::Char,
                other => other,
            };
            self.store_kind(store_as, HeapRegion::PrimElements, addr, 0, v, false);
        }
        let n = 2 + vk.slots();
        self.s.stack.truncate(self.s.stack.len() - n);
    }

    /// `aastore`'s check: a non-null value's class must be the array's
    /// component class or a subtype (`ArrayStoreException`). Nothing is
    /// emitted where the declared types prove the store fits
    /// (`declared.rs`).
    fn array_store_check(&mut self, a: Value, v: Value) {
        let (ka, kv) = (self.key(a), self.key(v));
        if super::declared::store_fits(self.declared.get(&ka).copied(), self.declared.get(&kv).copied()) {
            return;
        }
        let (nonnull, check, cont) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let t = self.null_test(v);
        self.b.ins().brif(t, nonnull, &[], cont, &[]);
        self.b.switch_to_block(nonnull);
        let ac = self.array_class_of(a);
        let comp = self.b.ins().load(
            I64,
            MemFlagsData::trusted().with_readonly(),
            ac,
            std::mem::offset_of!(Class, component) as i32,
        );
        // An `Object[]` takes any value: the value's class is not read
        // (HotSpot's store check ends there too).
        if let Some(object) = self.env.classes.0.find_loaded("java/lang/Object") {
            let rest = self.b.create_block();
            let any = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, comp, object as *const Class as i64);
            self.b.ins().brif(any, cont, &[], rest, &[]);
            self.b.switch_to_block(rest);
        }
        let vc = self.class_of(v);
        let same = self.b.ins().icmp(IntCC::Equal, comp, vc);
        if let Some(d) = super::layout::VecLayout::supers(self.s.m.class) {
            // The display test inline, the component's depth read at run
            // time: `vc.supers[comp.depth] == comp` proves `vc <: comp` (a
            // display holds only superclasses), so a store into an
            // `Object[]` (depth 0) or a superclass's array calls nothing.
            // Not found (an interface or array component, or not a
            // subtype): the helper decides.
            let (display, test) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(same, cont, &[], display, &[]);
            self.b.switch_to_block(display);
            let ro = MemFlagsData::trusted().with_readonly();
            let depth = self
                .b
                .ins()
                .load(I64, ro, comp, std::mem::offset_of!(Class, depth) as i32);
            let len = self.b.ins().load(I64, ro, vc, d.len);
            let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, depth, len);
            self.b.ins().brif(inside, test, &[], check, &[]);
            self.b.switch_to_block(test);
            let supers = self.b.ins().load(I64, ro, vc, d.ptr);
            let at = self.b.ins().ishl_imm_u(depth, 3);
            let slot = self.b.ins().iadd(supers, at);
            let found = self.b.ins().load(I64, ro, slot, 0);
            let sub = self.b.ins().icmp(IntCC::Equal, found, comp);
            self.b.ins().brif(sub, cont, &[], check, &[]);
        } else {
            self.b.ins().brif(same, cont, &[], check, &[]);
        }
        self.b.set_cold_block(check);
        self.b.switch_to_block(check);
        let is = self
            .call_helper(Helper::IsSubclass, &[vc, comp])
            .expect("a result");
        self.check_or_throw(is, Helper::ThrowStore, &[v]);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    // ---- allocation -------------------------------------------------------------------

    /// Bumps the TLAB by `bytes` (a value): the cell, or from a cold
    /// block the runtime's `slow()` result (already an object).
    fn tlab_bump(
        &mut self,
        bytes: Value,
        init: impl FnOnce(&mut Self, Value),
        slow: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        let l = self.env.thread;
        let trusted = MemFlagsData::trusted();
        let (fast, cold, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let result = self.b.append_block_param(join, I64);
        let thread = self.thread_here();
        let top = self.b.ins().load(I64, trusted, thread, l.tlab_top);
        let new_top = self.b.ins().iadd(top, bytes);
        let end = self.b.ins().load(I64, trusted, thread, l.tlab_end);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, new_top, end);
        let before = self.stop_branch(cold);
        self.b.ins().brif(over, cold, &[], fast, &[]);

        self.b.switch_to_block(fast);
        self.b.ins().store(trusted, new_top, thread, l.tlab_top);
        let format = self.env.format;
        // The cell: forwarding word (its own address; Brooks format only),
        // header, layout.
        let obj = if format.has_forwarding_word() {
            let obj = self.b.ins().iadd_imm_s(top, format.cell_to_object() as i64);
            self.b.ins().store(trusted, obj, top, 0);
            obj
        } else {
            top
        };
        let neutral = self.b.ins().iconst(I64, self.env.neutral as i64);
        self.b.ins().store(trusted, neutral, obj, 0);
        init(self, obj);
        self.b.ins().jump(join, &[obj.into()]);

        self.b.set_cold_block(cold);
        self.b.switch_to_block(cold);
        // Sealed: the slow path's spill reads the branch's values.
        self.seal(cold);
        let o = slow(self);
        let cold_end = self.here();
        self.b.ins().jump(join, &[o.into()]);
        self.b.switch_to_block(join);
        self.stop_join(before, cold_end, Vec::new(), join);
        result
    }

    /// Stores zero in the words `[from, to)` (8-aligned addresses, at
    /// least 16 bytes apart), 16 bytes a store: up to 32 bytes
    /// by the first and the last 16 (overlapping where fewer), longer
    /// runs 32 bytes a loop step from `from` and then the last 32 bytes
    /// (overlapping the loop's last step where the length is not a
    /// multiple of 32). Every store lies inside the range, which nothing
    /// has written yet, so an overlap stores zero over zero. HotSpot's
    /// x86 `MacroAssembler::xmm_clear_mem` (`UseXMMForObjInit`) clears a
    /// new object with vector stores likewise, 32 or 64 bytes a step.
    pub(super) fn zero_words(&mut self, from: Value, to: Value) {
        let flags = MemFlagsData::new().with_notrap();
        let bytes = self.b.func.dfg.constants.insert(vec![0u8; 16].into());
        let zero = self.b.ins().vconst(I8X16, bytes);
        let total = self.b.ins().isub(to, from);
        let (short, long, body, tail, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let fits = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, total, 32);
        self.b.ins().brif(fits, short, &[], long, &[]);

        self.b.switch_to_block(short);
        self.b.seal_block(short);
        self.b.ins().store(flags, zero, from, 0);
        self.b.ins().store(flags, zero, to, -16);
        self.b.ins().jump(done, &[]);

        self.b.switch_to_block(long);
        self.b.seal_block(long);
        let last = self.b.ins().iadd_imm_s(to, -32);
        self.b.ins().jump(body, &[from.into()]);
        self.b.switch_to_block(body);
        let p = self.b.append_block_param(body, I64);
        self.b.ins().store(flags, zero, p, 0);
        self.b.ins().store(flags, zero, p, 16);
        let next = self.b.ins().iadd_imm_s(p, 32);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, next, last);
        self.b.ins().brif(more, body, &[next.into()], tail, &[]);
        self.b.seal_block(body);

        // The last 32 bytes, from `to - 32 >= from`.
        self.b.switch_to_block(tail);
        self.b.seal_block(tail);
        self.b.ins().store(flags, zero, last, 0);
        self.b.ins().store(flags, zero, last, 16);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
    }

    /// `new c` (initialized): the TLAB bump inline, the runtime otherwise.
    pub(super) fn alloc_instance(&mut self, c: &'static Class) -> Value {
        let nrefs = c.nrefs as usize;
        let ndata = c.data_bytes as usize / 8;
        // The words after the layout word's 8 bytes (which the tagged
        // word's store clears past its 4: reference 0 with 4-byte slots).
        let body = (self.env.refs.tagged_data_offset(nrefs, ndata) - heap::REFS_OFFSET) / 8;
        let bytes = self.env.format.tagged_cell_bytes_in(self.env.refs, nrefs, ndata);
        let bytes = self.b.ins().iconst(I64, bytes as i64);
        let idx = self.s.idx;
        // The loader defined the class's tag with its counts in the heap
        // (`Loader::set_heap`), as an inline allocation needs.
        let word = heap::tagged_layout_word(crate::link::class_space::tag(c))
            .expect("a class space's tags are in the heap's range");
        let obj = self.tlab_bump(
            bytes,
            |t, obj| {
                let trusted = MemFlagsData::trusted();
                let layout = t.b.ins().iconst(I64, word as i64);
                t.b.ins().store(trusted, layout, obj, LAYOUT);
                let zero = t.b.ins().iconst(I64, 0);
                for w in 0..body {
                    t.b.ins().store(trusted, zero, obj, REFS + 8 * w as i32);
                }
            },
            |t| {
                let cv = t.b.ins().iconst(I64, c as *const Class as i64);
                let s = t.safepoint(idx, None);
                let o = t.call_helper(Helper::New, &[cv]).expect("a result");
                t.reload(s);
                t.check_result(o);
                o
            },
        );
        let key = self.key(obj);
        self.known_nrefs.insert(key, c.nrefs);
        self.instances.insert(key);
        // At the join of the inline and the runtime's allocation: either
        // made the object, not null, its reference fields null.
        self.facts().nonnull.insert(key);
        self.facts().allocated(key, nrefs);
        obj
    }

    /// `newarray`/`anewarray` of `n` elements of array class `ac`, its
    /// elements zeroed when `zero` (else left as the TLAB had them for a
    /// copy that fills them, `fill.rs`: only a primitive array's, and
    /// only on the inline path; the runtime's arrays come zeroed).
    pub(super) fn alloc_array(&mut self, ac: &'static Class, n: Value, zero: bool) -> Value {
        let elem = ac.elem_kind().expect("an array class");
        let idx = self.s.idx;
        let (inline, slow_b, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let result = self.b.append_block_param(join, I64);
        // Negative and large lengths go to the runtime.
        let small = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, n, INLINE_ARRAY_MAX);
        let before = self.stop_branch(slow_b);
        self.set_facts(inline, before);
        self.b.ins().brif(small, inline, &[], slow_b, &[]);

        self.b.switch_to_block(inline);
        self.seal(inline);
        let n64 = self.b.ins().uextend(I64, n);
        let (nrefs, ndata) = if elem == Kind::Ref {
            (n64, self.b.ins().iconst(I64, 2))
        } else {
            // 2 + ceil(n * size / 8) data words.
            let bytes = self.b.ins().imul_imm_s(n64, elem.size() as i64);
            let w = self.b.ins().iadd_imm_s(bytes, 7);
            let w = self.b.ins().ushr_imm_s(w, 3);
            (self.b.ins().iconst(I64, 0), self.b.ins().iadd_imm_s(w, 2))
        };
        // The slots' words: `nrefs`, or half of it rounded up when
        // compressed.
        let rb = self.ref_bytes(nrefs);
        let ref_words = self.b.ins().ushr_imm_s(rb, 3);
        let words = self.b.ins().iadd(ref_words, ndata);
        let total = self
            .b
            .ins()
            .iadd_imm_s(words, self.env.format.header_words() as i64);
        let bytes = self.b.ins().ishl_imm_s(total, 3);
        let o = self.tlab_bump(
            bytes,
            |t, obj| {
                let trusted = MemFlagsData::trusted();
                let hi = t.b.ins().ishl_imm_s(ndata, 32);
                let layout = t.b.ins().bor(nrefs, hi);
                t.b.ins().store(trusted, layout, obj, LAYOUT);
                let from = t.b.ins().iadd_imm_s(obj, i64::from(REFS));
                if zero {
                    let wb = t.b.ins().ishl_imm_s(words, 3);
                    let to = t.b.ins().iadd(from, wb);
                    t.zero_words(from, to);
                }
                let data = t.b.ins().iadd(from, rb);
                let cv = t.b.ins().iconst(I64, ac as *const Class as i64);
                t.b.ins().store(trusted, cv, data, CLASS_WORD);
                t.b.ins().store(trusted, n64, data, LENGTH_WORD);
            },
            |t| t.array_slow(ac, n, idx),
        );
        let inline_end = self.here();
        self.b.ins().jump(join, &[o.into()]);

        self.b.set_cold_block(slow_b);
        self.b.switch_to_block(slow_b);
        self.seal(slow_b);
        let o = self.array_slow(ac, n, idx);
        let slow_end = self.here();
        self.b.ins().jump(join, &[o.into()]);
        self.b.switch_to_block(join);
        self.seal(join);
        // The inline path's join knows what the branch did and the
        // variables both its ways reloaded (`tlab_bump`); the runtime's
        // path what its reload left: what both know holds here.
        let mut f = self.facts_of(inline_end).clone();
        f.meet(self.facts_of(slow_end));
        // Either way made the array (the runtime's throws for a negative
        // `n`): not null, `n` long.
        let key = self.key(result);
        f.nonnull.insert(key);
        f.lengths.insert(key, n);
        self.set_facts(join, f);
        result
    }

    fn array_slow(&mut self, ac: &'static Class, n: Value, idx: usize) -> Value {
        let cv = self.b.ins().iconst(I64, ac as *const Class as i64);
        let s = self.safepoint(idx, None);
        let o = self.call_helper(Helper::NewArray, &[cv, n]).expect("a result");
        self.reload(s);
        self.check_result(o);
        o
    }

    // ---- type checks -------------------------------------------------------------------

    /// Whether the non-null `obj`'s class is `c` or a subtype (i8 or i32).
    fn is_instance(&mut self, obj: Value, c: &'static Class) -> Value {
        let oc = self.class_of(obj);
        let cv = self.b.ins().iconst(I64, c as *const Class as i64);
        let exact = self.b.ins().icmp(IntCC::Equal, oc, cv);
        if c.flags & crate::classfile::access::FINAL != 0 && !c.is_array() {
            return exact;
        }
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        let r = self.b.append_block_param(join, I8);
        self.b.ins().brif(exact, join, &[exact.into()], slow, &[]);
        self.b.switch_to_block(slow);
        let display = super::layout::VecLayout::supers(c);
        let is = match display {
            Some(d) if !c.is_interface() && !c.is_array() => {
                // A class: `Class::is_subclass_of`'s display test inline,
                // `oc.supers[c.depth] == c` (the display of a class holds
                // its superclasses by depth, itself at its own). Both
                // classes' displays are immutable once linked.
                let ro = MemFlagsData::trusted().with_readonly();
                let (inside, test) = (self.b.create_block(), self.b.create_block());
                let len = self.b.ins().load(I64, ro, oc, d.len);
                let deep = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThan, len, c.depth as i64);
                let no = self.b.ins().iconst(I8, 0);
                self.b.ins().brif(deep, inside, &[], join, &[no.into()]);
                self.b.switch_to_block(inside);
                let supers = self.b.ins().load(I64, ro, oc, d.ptr);
                let at = self.b.ins().load(I64, ro, supers, (c.depth * 8) as i32);
                let same = self.b.ins().icmp(IntCC::Equal, at, cv);
                self.b.ins().jump(test, &[]);
                self.b.switch_to_block(test);
                same
            }
            _ => {
                let is = self.call_helper(Helper::IsSubclass, &[oc, cv]).expect("a result");
                self.b.ins().ireduce(I8, is)
            }
        };
        self.b.ins().jump(join, &[is.into()]);
        self.b.switch_to_block(join);
        r
    }

    pub(super) fn check_cast(&mut self, o: Value, c: &'static Class) {
        let (nonnull, cont) = (self.b.create_block(), self.b.create_block());
        let t = self.null_test(o);
        self.b.ins().brif(t, nonnull, &[], cont, &[]);
        self.b.switch_to_block(nonnull);
        let ok = self.is_instance(o, c);
        let cv = self.b.ins().iconst(I64, c as *const Class as i64);
        self.check_or_throw(ok, Helper::ThrowCast, &[o, cv]);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    pub(super) fn instance_of(&mut self, o: Value, c: &'static Class) -> Value {
        let (nonnull, join) = (self.b.create_block(), self.b.create_block());
        let r = self.b.append_block_param(join, I32);
        let zero = self.b.ins().iconst(I32, 0);
        let t = self.null_test(o);
        self.b.ins().brif(t, nonnull, &[], join, &[zero.into()]);
        self.b.switch_to_block(nonnull);
        let is = self.is_instance(o, c);
        let is = self.b.ins().uextend(I32, is);
        self.b.ins().jump(join, &[is.into()]);
        self.b.switch_to_block(join);
        r
    }

    // ---- dispatch ------------------------------------------------------------------------

    /// The method a virtual call of `m` (vtable `index`) on the non-null
    /// `recv` runs.
    pub(super) fn vtable_target(&mut self, recv: Value, index: u32, m: &'static Method) -> Value {
        // The verifier's type of the receiver is `m`'s class: an array
        // only when that is `Object`.
        let class = if m.class.super_class.is_none() {
            self.class_of(recv)
        } else {
            self.instance_class_of(recv)
        };
        let ro = MemFlagsData::trusted().with_readonly();
        let vl = self.env.vtable;
        // A receiver declared an instance of a class whose vtable has the
        // entry has it too: a subclass's vtable extends its superclass's.
        let declared = self.declared.get(&self.key(recv)).copied();
        let has_entry = matches!(declared, Some(super::declared::Declared::Instance(d))
            if d.vtable.len() > index as usize);
        if !has_entry {
            let len = self.b.ins().load(I64, ro, class, vl.len);
            let ok = self
                .b
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThan, len, i64::from(index));
            let mv = self.b.ins().iconst(I64, m as *const Method as i64);
            self.check_or_throw(ok, Helper::ThrowAbstract, &[recv, mv]);
        }
        if (index as usize) < crate::link::class::VTABLE_HEAD {
            // The class's own copy of the entry (`Class::vtable_head`):
            // one load from the class.
            let head = std::mem::offset_of!(Class, vtable_head) as i32;
            return self.b.ins().load(I64, ro, class, head + (index * 8) as i32);
        }
        let table = self.b.ins().load(I64, ro, class, vl.ptr);
        self.b.ins().load(I64, ro, table, (index * 8) as i32)
    }

    /// The method an interface call of `m` (its `index` among its
    /// interface's methods) on the non-null `recv` runs: the site's inline
    /// cache's method when the receiver's class is the cached one, else
    /// the `Itable` helper's lookup (cold), which fills an empty cache
    /// (`runtime::ItableCache`).
    pub(super) fn itable_target(&mut self, recv: Value, index: u32, m: &'static Method) -> Value {
        let class = self.class_of(recv);
        // The miss's throw goes to the instruction's dispatch block, which
        // other instructions share: made before `first`, so that sealing
        // this check's blocks leaves it open for them.
        self.dispatch_block(self.s.idx);
        let (from, first) = (self.here(), self.blocks_so_far());
        let cache = super::runtime::ItableCache::leak();
        let cv = self.b.ins().iconst(I64, cache as *const _ as i64);
        // Acquire: the entry's words were written before its pointer.
        let entry = self.b.ins().atomic_load(I64, MemFlagsData::trusted(), cv);
        let (check, hit, miss, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let t = self.b.append_block_param(join, I64);
        self.b.ins().brif(entry, check, &[], miss, &[]);

        self.b.switch_to_block(check);
        let ro = MemFlagsData::trusted().with_readonly();
        let cached = self
            .b
            .ins()
            .load(I64, ro, entry, super::runtime::ItableCache::CLASS);
        let same = self.b.ins().icmp(IntCC::Equal, cached, class);
        self.b.ins().brif(same, hit, &[], miss, &[]);

        self.b.switch_to_block(hit);
        let method = self
            .b
            .ins()
            .load(I64, ro, entry, super::runtime::ItableCache::METHOD);
        self.b.ins().jump(join, &[method.into()]);

        self.b.set_cold_block(miss);
        self.b.switch_to_block(miss);
        let iface = self.b.ins().iconst(I64, m.class as *const Class as i64);
        let iv = self.b.ins().iconst(I64, i64::from(index));
        let found = self
            .call_helper(Helper::Itable, &[class, iface, iv, cv])
            .expect("a result");
        let mv = self.b.ins().iconst(I64, m as *const Method as i64);
        let ok = self.b.ins().icmp_imm_s(IntCC::NotEqual, found, 0);
        self.check_or_throw(ok, Helper::ThrowInterface, &[class, mv]);
        self.b.ins().jump(join, &[found.into()]);

        self.b.switch_to_block(join);
        // Neither way writes a Java field or stops for the collector.
        self.seal_since(first);
        self.continue_from(from);
        t
    }

    // ---- monitors ----------------------------------------------------------------------
    //
    // With lightweight locking (`CompileEnv::inline_locks`), `monitorenter`
    // and `monitorexit` are `fastpath_cranelift`'s guessing enter and exit
    // inline, on the object resolved for writing (its to-space copy),
    // guessing the neutral header every object starts with:
    //
    //   enter: lock_enter_guessing_or(obj, neutral, miss)  locked: done
    //          miss: safepoint; MonitorEnter; reload; done
    //   exit:  lock_exit_guessing_or(obj, neutral, miss)   unlocked: done
    //          miss: MonitorExit (status tested where it may throw); done
    //
    // A miss is its own edge out of the emitter (the `_or` forms): the
    // enter's leaves the lock-stack and the header as they were (its push
    // undone), the exit's both untouched, so the runtime's call there
    // starts from the state it would have met without the inline path, and
    // the locked path carries no test of which way it came. The runtime's
    // `MonitorEnter` runs at a safepoint published only on the miss (it may
    // block in a safe region, where the collector moves objects), so the
    // uncontended path stores nothing to the frame. The inline pair is the
    // header CAS and the lock-stack push, the CAS and the pop: C2's two
    // locked instructions. Nothing else records the lock: a fast-locked object
    // stays where its lock-stack entry says because the thread's mutator
    // pins the lock-stack's regions at each of its stops, the only points
    // where a pause can run, and one the runtime inflated stays where its
    // monitor says because the runtime call flags its region
    // (`fastpath::gc`'s `collector/cycle.rs`, "Locked objects"). So an exit
    // of either kind matches an enter of either kind.
    //
    // A coarsened lock's release calls the runtime's exit as `SpanExit`,
    // the same function through the register-preserving stub: the loop's
    // values stay in registers across the paths that join it. The plain
    // `MonitorEnter` and `MonitorExit` stay System V calls, which an
    // inflated monitor makes at every enter and exit (`Helper::call_conv`).
    //
    // In the legacy and monitor modes the lock-stack is inactive (its top
    // above the end, so the inline paths would always miss): both call the
    // runtime directly.

    /// Acquires `obj`'s monitor (not null); `idx` is the instruction whose
    /// reference map the slow path's safepoint publishes (the caller keeps
    /// `obj` in a root there: the operand stack or the frame's `sync_obj`).
    /// Returns the frame variables that hold one value after it because
    /// they held one reference before it (`Translator::stop_join`).
    pub(super) fn monitor_enter_obj(&mut self, obj: Value, idx: usize) -> Vec<(Variable, Variable)> {
        self.facts().forget_memory();
        if !self.env.inline_locks {
            let s = self.safepoint(idx, None);
            self.call_helper(Helper::MonitorEnter, &[obj]);
            self.reload(s);
            return Vec::new();
        }
        let lock = self.env.lock;
        let zero = self.b.ins().iconst(I64, 0);
        let (o, _) = self.resolve_write(obj, zero);
        // The inline enter's blocks define no frame variable and do not
        // stop: the facts here hold at its end and on its cold path.
        let before = self.facts().clone();
        let thread = self.thread_here();
        let first = self.blocks_so_far();
        let cold = self.b.create_block();
        fastpath_cranelift::lock_enter_guessing_or(&mut self.b, thread, o, self.env.neutral, &lock, cold);
        // The emitter's blocks and the miss are all entered by now: sealed,
        // a read of a variable below them (the cold path's spill) is the
        // value before the enter, which the facts name.
        self.seal_since(first);
        let join = self.b.create_block();
        self.b.ins().jump(join, &[]);
        self.set_facts(cold, before.clone());

        self.b.set_cold_block(cold);
        self.b.switch_to_block(cold);
        let s = self.safepoint(idx, None);
        self.call_helper(Helper::MonitorEnter, &[obj]);
        let shared = self.reload_sharing(s);
        let cold_end = self.here();
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.stop_join(before, cold_end, shared, join)
    }

    /// Releases `obj`'s monitor; with `throws`, a thread that does not
    /// hold it throws `IllegalMonitorStateException` (a synchronized
    /// method's exit cannot fail: its enter succeeded).
    pub(super) fn monitor_exit_obj(&mut self, obj: Value, throws: bool) {
        self.monitor_exit_via(obj, throws, Helper::MonitorExit);
    }

    /// [`Self::monitor_exit_obj`] whose runtime call is `exit`:
    /// `MonitorExit`, or `SpanExit` at a coarsened lock's release (the
    /// same function, through the register-preserving stub: `helpers.rs`).
    pub(super) fn monitor_exit_via(&mut self, obj: Value, throws: bool, exit: Helper) {
        self.facts().forget_memory();
        if !self.env.inline_locks {
            let st = self.call_helper(exit, &[obj]).expect("a status");
            if throws {
                let ok = self.b.ins().icmp_imm_s(IntCC::Equal, st, 0);
                self.check_or_throw(ok, Helper::ThrowMonitorState, &[]);
            }
            return;
        }
        let lock = self.env.lock;
        let zero = self.b.ins().iconst(I64, 0);
        let (o, _) = self.resolve_write(obj, zero);
        // Neither the inline exit nor its cold path defines a frame
        // variable or stops (`MonitorExit` is no safepoint; a throw leaves
        // for the dispatch): what holds here holds at the join.
        let before = self.facts().clone();
        let thread = self.thread_here();
        let first = self.blocks_so_far();
        let cold = self.b.create_block();
        fastpath_cranelift::lock_exit_guessing_or(&mut self.b, thread, o, self.env.neutral, &lock, cold);
        // Every edge into the emitter's blocks and the miss is there.
        self.seal_since(first);
        let join = self.b.create_block();
        self.b.ins().jump(join, &[]);

        self.b.set_cold_block(cold);
        self.b.switch_to_block(cold);
        let st = self.call_helper(exit, &[obj]).expect("a status");
        if throws {
            let ok = self.b.ins().icmp_imm_s(IntCC::Equal, st, 0);
            self.check_or_throw(ok, Helper::ThrowMonitorState, &[]);
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        // Both edges are there: sealed, a read of a variable below is the
        // value both bring, not a parameter of the join.
        self.seal(join);
        self.set_facts(join, before);
    }
}

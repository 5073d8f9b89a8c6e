//! What the translator has proven at the current point of a compiled
//! method: values checked non-null, array lengths loaded, index checks
//! passed, objects' data addresses computed, reference fields loaded,
//! the GC-state byte loaded. A later instruction that needs one reuses
//! it instead of emitting the check or the load again.
//!
//! Where it sits: the translator (`translate.rs`, `emit.rs`) consults and
//! records facts as it emits null checks, bounds checks, `arraylength`,
//! field accesses and barriers; Cranelift cannot find these itself (a
//! reference load goes through the load-reference barrier, whose slow
//! path is a call, and a check is a branch to a cold block, so neither is
//! a pure value its GVN merges; its alias analysis forgets a load at a
//! store to the load's region (`emit.rs`, `HeapRegion`), at any store
//! outside the heap's regions and at any atomic access or call, and the
//! layout word's `uload32` is no pure load to it).
//!
//! A null check records its value non-null after it; `ifnull` and
//! `ifnonnull` record their operand non-null on the edge where it is
//! (`Translator::cond_branch_facts`), and the load-reference barrier's
//! result of a value so tested is non-null too (forwarding keeps a
//! reference non-null).
//!
//! An inlined callee's first block starts with the facts at its call
//! when nothing else enters it (`Translator::inline_call`): its
//! arguments are the caller's values.
//!
//! Scope: a fact holds in the Cranelift block where it was recorded, and
//! is carried only into blocks that block dominates and that are sealed
//! with that block their only way in: a check's continuation, the join
//! of a barrier's cold paths (`Facts::carry`), and a bytecode branch's
//! target or fall-through that no other edge enters (`Facts::set`, the
//! facts at the branch). A forward join, a leader every edge into which
//! is a forward branch or fall-through, the continuation of an
//! inlined callee's returns, and the join after a call inlined behind
//! guards (each guard's way starts with the facts before it), start with
//! the facts every edge into them carries (`BlockFacts::meet`, the
//! intersection, keys and values alike; on each edge into a forward join
//! or a guarded call's join, what is known of a live reference local's
//! value is first recorded of the local too, `Translator::lift_local_facts`,
//! so that a local reloaded on one way and checked on another stays known),
//! once every edge is translated and the block is sealed: the SSA values
//! the edges agree on are defined where they dominate the join, and a
//! variable every edge reaches with one value reads that value there. A
//! block starts with none otherwise: facts never cross a loop head, a
//! handler, a switch's targets or a call's continuation, except the
//! facts a loop's preheader gives its head (`loops.rs`: loads done before
//! the loop, which nothing in it writes and whose values a stop's way
//! back, through the preheader, loads again). Keys are SSA
//! values with aliases resolved; an eagerly
//! sealed single-predecessor block reads a variable as its predecessor's
//! value, so `this` and an index local keep their value along the chain.
//!
//! Across a stop on a cold path that joins the hot one again (an
//! allocation's, a monitor's, a class initialisation's or a poll's
//! runtime call: `Translator::stop_branch`, `stop_join`) the join keeps
//! the branch's pure facts and what every cold end knows of the frame's
//! variables (`BlockFacts::nonnull_vars`, `length_vars`, `declared_vars`): the reload gives
//! a variable a new value there and the join a third, its block
//! parameter, which no value fact names, so the facts follow the variable
//! and a read of it turns them into facts of the value read. A loop head
//! whose every way in from outside is an edge the translator records
//! starts with the variables the loop only reads that are non-null on all
//! of them, and those of one declared type on all of them (`loop_vars.rs`);
//! at any other join a variable keeps the declared type every edge into it
//! gave it (a definition records its value's, `Translator::def_frame_var`).
//!
//! Invariants:
//! - Pure facts (`nonnull`, `lengths`, `in_bounds`, `data`) depend on
//!   values only: a value, once proven non-null or below a length, stays
//!   so, an array's length never changes, and an object's layout word
//!   (from which its data address is computed) is written once, when the
//!   object is made (`fastpath::gc`'s `Space::init_object`, or the
//!   inline allocation), and copied unchanged with it by evacuation
//!   (`copy_object`): the lock CASes the header, a word of its own, and
//!   forwarding writes the word before the object. A key is a resolved
//!   object, one address: after a stop for the collector the translator
//!   reloads every reference, so a key never names a moved object.
//! - `gc_state`, the GC-state byte loaded from the thread block, holds
//!   until a call or a safepoint (`forget_memory`): the byte changes only
//!   while its thread is stopped for the collector, which the thread
//!   itself writes on every way out of a stop and nowhere else
//!   (`fastpath::gc`'s `Mutator::refresh_gc_state`, called from
//!   `stop_at_safepoint`, `safe_region` and the passive `collect`, all
//!   behind a call of the runtime from compiled code). The barriers' own
//!   slow calls (SATB enqueue, LRB, Brooks write barrier), which a
//!   barrier's join carries facts across, never stop (the contract of
//!   `fastpath::gc`'s `satb_slow_entry`). HotSpot's C2 expands the
//!   barriers' `gc_state` tests as loads of the thread-local byte
//!   (`gc/shenandoah/c2/shenandoahSupport.cpp`), which its GVN commons
//!   within a region the same way.
//! - Memory facts (`ref_fields`, `raw_ref_fields`) hold until anything may write the field
//!   or orders memory: a `putfield` of a reference at the same index on
//!   any object (two values may be one object), any call (helpers, Java
//!   calls, safepoints: the collector moves objects there and the
//!   translator reloads every reference), monitors and volatile accesses
//!   (the Java memory model orders plain accesses around them). Reusing a
//!   plain field load with none of these in between is what the JMM
//!   allows a compiler (HotSpot's C2 does it in its memory graph);
//!   volatile fields are never cached.
//! - `null_fields` names the reference fields of an object this method
//!   allocated that nothing has written since: the allocation's zeroing,
//!   inline or the runtime's, left them null. Every `putfield` of a
//!   reference at an index clears that index in every entry (two values
//!   may be one object, through a join's parameter), and a value of the
//!   object stored anywhere as a reference removes every entry of it
//!   (another thread that reads it from the heap may write its fields).
//!   A store into a field still null needs no SATB pre-barrier: SATB logs
//!   the value a field held when marking began, and marking begins only
//!   at a safepoint, where the field held null (HotSpot's C2 removes the
//!   pre-barrier of a store an allocation's initialization captures,
//!   `G1BarrierSetC2::g1_can_remove_pre_barrier`). It is a memory fact,
//!   forgotten with the others at a safepoint, except that an object no
//!   other code can reach (`NullFields::unreachable`: no reference the map
//!   does not name has been stored into the heap since its allocation)
//!   keeps its null fields through a call passed no reference, under each
//!   value it is reloaded as (`Translator::spill`): only this method could
//!   write them, and the collector keeps a null null.
//! - `frame_words` names slot-stack words (by offset from the method's
//!   own frame) that hold a known value: a header word of one of the
//!   method's frames, or a reference slot, as the last safepoint's spill
//!   stored it or its reload read it. It survives `forget_memory`, since
//!   only the method's own code writes those words between its stops; a
//!   stop keeps only the header words of the frames below the callee and
//!   the references it reloaded (`Translator::reload_as`), since a callee,
//!   the runtime it calls and the collector write every other word.
//! - A value in `raw_ref_fields` has not been through the load-reference
//!   barrier: it may be a from-space copy. Its only use so far was a null
//!   test (which forwarding cannot change, C2's elision of the barrier
//!   on values only compared with null); it is never in `ref_fields`, and
//!   whatever reads it otherwise gets the barrier's result instead.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::{Block, Value};
use cranelift_frontend::Variable;

use super::declared::Declared;

/// The facts of the blocks being filled (see the module comment).
#[derive(Default)]
pub(super) struct Facts {
    by_block: HashMap<Block, BlockFacts>,
}

/// The facts holding at the end of one block so far.
#[derive(Default, Clone)]
pub(super) struct BlockFacts {
    /// Values checked non-null.
    pub(super) nonnull: HashSet<Value>,
    /// Array (resolved) to its length.
    pub(super) lengths: HashMap<Value, Value>,
    /// (index, length) pairs with index < length, unsigned.
    pub(super) in_bounds: HashSet<(Value, Value)>,
    /// Resolved object to the address of its data word 0.
    pub(super) data: HashMap<Value, Value>,
    /// The GC-state byte (i8), loaded since the last call or safepoint.
    pub(super) gc_state: Option<Value>,
    /// (object, reference field index) to the value loaded from it.
    pub(super) ref_fields: HashMap<(Value, i64), Value>,
    /// (object, reference field index) to the value loaded from it whose
    /// load-reference barrier is still to come, and the resolved object
    /// it was loaded from: a load whose only use was a null test. The
    /// next use that needs the reference applies the barrier to this
    /// value (no second load) and moves it to `ref_fields`.
    pub(super) raw_ref_fields: HashMap<(Value, i64), (Value, Value)>,
    /// Object allocated by this method (its key) to the reference fields
    /// nothing has written since its allocation: null.
    pub(super) null_fields: HashMap<Value, NullFields>,
    /// Frame variables (locals and operand-stack slots, by index) whose value is
    /// non-null on every path here, whatever SSA value a read of them
    /// returns: a reference reloaded after a stop on a cold path is a new
    /// value there, and the join's read of the variable a third (the
    /// frontend's block parameter), which no value fact names. A read of
    /// the variable records its value non-null (`Translator::use_frame_var`);
    /// a definition of the variable drops it.
    pub(super) nonnull_vars: HashSet<usize>,
    /// Frame variables holding an array of this length (an SSA value
    /// defined before the stop, where it dominates the join) on every path
    /// here, as `nonnull_vars`.
    pub(super) length_vars: HashMap<usize, Value>,
    /// Frame variables holding a value of this declared type
    /// (`declared.rs`) on every path here, as `nonnull_vars`: a join's
    /// block parameter of values that all had it has it too.
    pub(super) declared_vars: HashMap<usize, Declared>,
    /// Words of the slot stack known to hold a value, by their offset from
    /// the compiled method's own frame: a frame header's caller, method,
    /// flags and position, and reference slots, as the last safepoint's
    /// spill wrote them or its reload read them (`Translator::spill`,
    /// `reload_as`). A spill leaves out the store of a value its word
    /// already holds: at the second of two calls in a row, only what
    /// changed (the position) is written again.
    pub(super) frame_words: HashMap<i64, FrameWord>,
}

/// What a slot-stack word holds (`BlockFacts::frame_words`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FrameWord {
    /// An SSA value (a reference spilled or reloaded).
    Value(Value),
    /// A constant (a method, the flags, a position).
    Const(i64),
    /// The address of the frame at this offset from the method's own (a
    /// caller link).
    Frame(i64),
}

/// The reference fields of an object this method allocated that still
/// hold the allocation's null (`BlockFacts::null_fields`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NullFields {
    /// The object's value at its allocation: every key that names it (its
    /// values reloaded after safepoints) has the same.
    pub(super) object: Value,
    /// Bit `i`: reference field `i` (for `i` below 64).
    pub(super) mask: u64,
    /// No reference this method did not track has been stored into the
    /// heap since the object's allocation (one could be the object under
    /// another value, a join's parameter): no other code can reach it, so
    /// its null fields stay null through a call that is not passed a
    /// reference (`Translator::spill`).
    pub(super) unreachable: bool,
}

impl Facts {
    /// The facts holding in `block`: those recorded or carried there.
    /// Another block's facts stay where they are: a cold path's checks
    /// and calls change nothing on the path it branched from.
    pub(super) fn at(&mut self, block: Block) -> &mut BlockFacts {
        self.by_block.entry(block).or_default()
    }

    /// Moves the facts of `from` to `to`, a block `from` dominates, sealed,
    /// whose only predecessors lie in the region `from` starts (a check's
    /// continuation, a barrier's join) and none of whose paths from
    /// `from` calls anything that writes a Java field or stops for the
    /// collector: what holds at the end of `from` holds on entry to `to`.
    pub(super) fn carry(&mut self, from: Block, to: Block) {
        let f = self.by_block.remove(&from).unwrap_or_default();
        self.by_block.insert(to, f);
    }

    /// Sets the facts holding on entry to `block`, entered only by an
    /// edge from a block where `f` held when it branched.
    pub(super) fn set(&mut self, block: Block, f: BlockFacts) {
        self.by_block.insert(block, f);
    }
}

impl BlockFacts {
    /// Forgets every memory fact and the GC-state byte (a call, a
    /// safepoint, a monitor, a volatile access). The frame words stay:
    /// only this method's own safepoints write them, and each leaves the
    /// ones it kept (`Translator::reload_as`).
    pub(super) fn forget_memory(&mut self) {
        self.ref_fields.clear();
        self.raw_ref_fields.clear();
        self.null_fields.clear();
        self.gc_state = None;
    }

    /// Takes `stopped`'s facts about frame variables (`nonnull_vars`,
    /// `length_vars`, `declared_vars`) for these: at a join after a stop
    /// on one way, whose reload marked each variable whose value was
    /// known there, where the other way holds the same values.
    pub(super) fn adopt_frame_var_facts(&mut self, stopped: &BlockFacts) {
        self.nonnull_vars = stopped.nonnull_vars.clone();
        self.length_vars = stopped.length_vars.clone();
        self.declared_vars = stopped.declared_vars.clone();
    }

    /// Keeps only the facts `other` holds too, with the same values: the
    /// facts on entry to a join are those every edge into it carries.
    pub(super) fn meet(&mut self, other: &BlockFacts) {
        self.nonnull.retain(|v| other.nonnull.contains(v));
        self.lengths.retain(|a, len| other.lengths.get(a) == Some(len));
        self.in_bounds.retain(|p| other.in_bounds.contains(p));
        self.data.retain(|o, d| other.data.get(o) == Some(d));
        if self.gc_state != other.gc_state {
            self.gc_state = None;
        }
        self.ref_fields.retain(|k, v| other.ref_fields.get(k) == Some(v));
        self.raw_ref_fields
            .retain(|k, v| other.raw_ref_fields.get(k) == Some(v));
        self.nonnull_vars.retain(|v| other.nonnull_vars.contains(v));
        self.length_vars
            .retain(|v, len| other.length_vars.get(v) == Some(len));
        self.declared_vars
            .retain(|v, d| other.declared_vars.get(v) == Some(d));
        self.frame_words
            .retain(|o, w| other.frame_words.get(o) == Some(w));
        self.null_fields.retain(|o, n| match other.null_fields.get(o) {
            Some(m) if m.object == n.object => {
                n.mask &= m.mask;
                n.unreachable &= m.unreachable;
                n.mask != 0
            }
            _ => false,
        });
    }

    /// Drops what was known of frame variable `var`, about to be defined.
    pub(super) fn redefine(&mut self, var: Variable) {
        self.nonnull_vars.remove(&var.index());
        self.length_vars.remove(&var.index());
        self.declared_vars.remove(&var.index());
    }

    /// Whether frame variable `var` is non-null on every path here.
    pub(super) fn nonnull_var(&self, var: Variable) -> bool {
        self.nonnull_vars.contains(&var.index())
    }

    /// Records frame variable `var` non-null on every path here.
    pub(super) fn set_nonnull_var(&mut self, var: Variable) {
        self.nonnull_vars.insert(var.index());
    }

    /// The length of the array frame variable `var` holds on every path
    /// here, if known.
    pub(super) fn length_var(&self, var: Variable) -> Option<Value> {
        self.length_vars.get(&var.index()).copied()
    }

    /// Records of frame variable `to` what is known of `from`: `to` was
    /// just defined with `from`'s value.
    pub(super) fn copy_var(&mut self, from: Variable, to: Variable) {
        if self.nonnull_var(from) {
            self.set_nonnull_var(to);
        }
        if let Some(d) = self.declared_var(from) {
            self.set_declared_var(to, d);
        }
        if let Some(len) = self.length_var(from) {
            self.set_length_var(to, len);
        }
    }

    /// Records frame variable `var` an array of length `len` on every path
    /// here.
    pub(super) fn set_length_var(&mut self, var: Variable, len: Value) {
        self.length_vars.insert(var.index(), len);
    }

    /// The declared type of frame variable `var`'s value on every path
    /// here, if known.
    pub(super) fn declared_var(&self, var: Variable) -> Option<Declared> {
        self.declared_vars.get(&var.index()).copied()
    }

    /// Records frame variable `var`'s value of declared type `d` on every
    /// path here.
    pub(super) fn set_declared_var(&mut self, var: Variable, d: Declared) {
        self.declared_vars.insert(var.index(), d);
    }

    /// Forgets the reference fields at index `i` of every object (a
    /// `putfield` there).
    pub(super) fn forget_ref_field(&mut self, i: i64) {
        self.ref_fields.retain(|k, _| k.1 != i);
        self.raw_ref_fields.retain(|k, _| k.1 != i);
        if let Some(bit) = null_field_bit(i) {
            self.null_fields.retain(|_, n| {
                n.mask &= !bit;
                n.mask != 0
            });
        }
    }

    /// Whether reference field `i` of `obj` (a key) still holds the null
    /// its allocation left there.
    pub(super) fn field_still_null(&self, obj: Value, i: i64) -> bool {
        match (self.null_fields.get(&obj), null_field_bit(i)) {
            (Some(n), Some(bit)) => n.mask & bit != 0,
            _ => false,
        }
    }

    /// Records `obj` (a key) as just allocated with `nrefs` reference
    /// fields, all null (the first 64 are tracked).
    pub(super) fn allocated(&mut self, obj: Value, nrefs: usize) {
        let mask = if nrefs >= 64 { !0 } else { (1u64 << nrefs) - 1 };
        if mask != 0 {
            let n = NullFields {
                object: obj,
                mask,
                unreachable: true,
            };
            self.null_fields.insert(obj, n);
        }
    }

    /// `v` (a key) was stored into the heap: the object it names is no
    /// longer this method's alone, and a value it does not track may be
    /// one of its objects under another name.
    pub(super) fn published(&mut self, v: Value) {
        match self.null_fields.get(&v) {
            Some(n) => {
                let object = n.object;
                self.null_fields.retain(|_, n| n.object != object);
            }
            None => {
                for n in self.null_fields.values_mut() {
                    n.unreachable = false;
                }
            }
        }
    }
}

/// The bit of reference field `i` in a `null_fields` mask, if tracked.
fn null_field_bit(i: i64) -> Option<u64> {
    (0..64).contains(&i).then(|| 1u64 << i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_hold_in_their_block_and_where_carried() {
        let (a, b, c) = (Block::from_u32(0), Block::from_u32(1), Block::from_u32(2));
        let (x, y, z) = (Value::from_u32(1), Value::from_u32(2), Value::from_u32(3));
        let mut f = Facts::default();
        f.at(a).nonnull.insert(x);
        f.at(a).ref_fields.insert((x, 0), y);
        // A cold block's facts and forgetting leave `a`'s alone.
        f.at(c).nonnull.insert(y);
        f.at(c).forget_memory();
        f.carry(a, b);
        assert!(f.at(b).nonnull.contains(&x));
        assert!(!f.at(b).nonnull.contains(&y));
        assert_eq!(f.at(b).ref_fields.get(&(x, 0)), Some(&y));
        // Carried away: `a` holds nothing more.
        assert!(f.at(a).nonnull.is_empty());
        f.at(b).forget_ref_field(1);
        assert!(f.at(b).ref_fields.contains_key(&(x, 0)));
        f.at(b).raw_ref_fields.insert((x, 0), (y, x));
        f.at(b).raw_ref_fields.insert((x, 1), (y, x));
        f.at(b).forget_ref_field(0);
        assert!(f.at(b).ref_fields.is_empty());
        assert!(!f.at(b).raw_ref_fields.contains_key(&(x, 0)));
        f.at(b).data.insert(x, y);
        f.at(b).gc_state = Some(z);
        f.at(b).forget_memory();
        assert!(f.at(b).raw_ref_fields.is_empty());
        assert!(f.at(b).nonnull.contains(&x));
        // The data address is pure; the GC-state byte is not.
        assert_eq!(f.at(b).data.get(&x), Some(&y));
        assert_eq!(f.at(b).gc_state, None);
    }

    #[test]
    fn an_allocated_objects_fields_stay_null_until_written_or_published() {
        let (x, y, z) = (Value::from_u32(1), Value::from_u32(2), Value::from_u32(3));
        let mut f = BlockFacts::default();
        f.allocated(x, 3);
        f.allocated(y, 70);
        // An object without reference fields has nothing to track.
        f.allocated(z, 0);
        assert!(!f.null_fields.contains_key(&z));
        assert!((0..3).all(|i| f.field_still_null(x, i)));
        assert!(!f.field_still_null(x, 3));
        assert!(!f.field_still_null(x, -1));
        // Fields past 64 are not tracked.
        assert!(f.field_still_null(y, 63));
        assert!(!f.field_still_null(y, 64));
        // A store at index 1, into any object, clears it in every entry.
        f.forget_ref_field(1);
        assert!(f.field_still_null(x, 0) && !f.field_still_null(x, 1));
        assert!(!f.field_still_null(y, 1) && f.field_still_null(y, 2));
        f.forget_ref_field(0);
        f.forget_ref_field(2);
        // Nothing null left: the entry goes.
        assert!(!f.null_fields.contains_key(&x));
        // Another value stored into the heap may be an object under another
        // name: the objects stay tracked, but no longer unreachable.
        assert!(f.null_fields[&y].unreachable);
        f.published(z);
        assert!(f.field_still_null(y, 5) && !f.null_fields[&y].unreachable);
        // One of the object's own values stored: every value naming it goes.
        let y2 = Value::from_u32(4);
        let named = f.null_fields[&y];
        f.null_fields.insert(y2, named);
        f.published(y);
        assert!(!f.field_still_null(y, 5) && !f.field_still_null(y2, 5));
        f.allocated(x, 2);
        f.forget_memory();
        assert!(!f.field_still_null(x, 0));
        // A join keeps the fields null on every edge.
        let (mut left, mut right) = (BlockFacts::default(), BlockFacts::default());
        left.allocated(x, 3);
        left.allocated(y, 2);
        right.allocated(x, 3);
        right.forget_ref_field(0);
        right.null_fields.get_mut(&x).unwrap().unreachable = false;
        left.meet(&right);
        assert!(!left.field_still_null(x, 0) && left.field_still_null(x, 1));
        assert!(!left.null_fields[&x].unreachable);
        assert!(!left.null_fields.contains_key(&y));
        // The same value naming two allocations on two edges: not a fact.
        let (mut a, mut b) = (BlockFacts::default(), BlockFacts::default());
        a.allocated(x, 1);
        b.allocated(x, 1);
        b.null_fields.get_mut(&x).unwrap().object = y;
        a.meet(&b);
        assert!(a.null_fields.is_empty());
    }

    #[test]
    fn a_join_keeps_what_every_edge_carries() {
        let (x, y, z, len) = (
            Value::from_u32(1),
            Value::from_u32(2),
            Value::from_u32(3),
            Value::from_u32(4),
        );
        let mut left = BlockFacts::default();
        left.nonnull.extend([x, y]);
        left.lengths.insert(x, len);
        left.in_bounds.insert((z, len));
        left.ref_fields.insert((x, 0), y);
        left.ref_fields.insert((x, 1), z);
        let mut right = BlockFacts::default();
        right.nonnull.insert(x);
        right.lengths.insert(x, len);
        right.ref_fields.insert((x, 0), y);
        // The same field, another value: not a fact at the join.
        right.ref_fields.insert((x, 1), y);
        left.data.insert(x, y);
        right.data.insert(x, y);
        left.data.insert(y, z);
        right.data.insert(y, len);
        left.gc_state = Some(z);
        right.gc_state = Some(z);
        let mut other_state = right.clone();
        other_state.gc_state = Some(len);
        let mut no_state = right.clone();
        no_state.gc_state = None;
        let (mut a, mut b) = (left.clone(), left.clone());
        a.meet(&other_state);
        b.meet(&no_state);
        assert_eq!((a.gc_state, b.gc_state), (None, None));
        left.meet(&right);
        assert_eq!(left.gc_state, Some(z));
        assert_eq!(left.data, HashMap::from([(x, y)]));
        assert_eq!(left.nonnull, HashSet::from([x]));
        assert_eq!(left.lengths.get(&x), Some(&len));
        assert!(left.in_bounds.is_empty());
        assert_eq!(left.ref_fields.get(&(x, 0)), Some(&y));
        assert!(!left.ref_fields.contains_key(&(x, 1)));
    }
}

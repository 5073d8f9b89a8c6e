//! The passive-mode workloads of `fastpath gc`, and the count of the heap
//! accesses each operation issues.
//!
//! Where it sits: under [`super::passive`], which times them per barrier
//! set and hands them to the profiler, and beside
//! [`super::per_execution`], which turns their access counts into barrier
//! executions. Two workloads:
//!
//! - `xml`: reference-heavy, shaped like the seed's XmlValidation (SPECjvm
//!   2008). One operation builds a DOM-like tree from the same generated
//!   document (elements with attribute lists, children linked through
//!   first-child/next-sibling references) and validates it by walking it
//!   against a schema held in the heap: each element's type is looked up
//!   (and cached into the element by a reference CAS, as a lazily resolved
//!   field), its attributes are checked for the required one, its children's
//!   tags against the type's allowed set. The same document every operation,
//!   as the seed validates the same file every operation: so every operation
//!   issues exactly the same accesses.
//! - `graph`: store-heavy. One operation rewires a 1000-node graph of
//!   4-edge nodes: two nodes are picked, edges are swapped between them
//!   (stores), one is replaced by a CAS, a visit counter is bumped.
//!
//! Both are generic over a [`Tally`]: the timed and profiled rows run them
//! with [`NoTally`] (which compiles away), and [`count_accesses`] runs them
//! once with [`Counts`], which counts every access on the mutator's side,
//! outside the barrier fast paths, so that the barrier executions per
//! operation are counted rather than guessed from the counter deltas (the
//! seed took "extra branches" as the number of barriers).

use std::cell::Cell;

use fastpath::gc::{BarrierSet, GcError, Handle, Heap, Mutator, NoBarriers};

/// A kind of heap access, each of which runs its own barriers (see the
/// table in `fastpath::gc::mutator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A reference load.
    Load,
    /// A reference store.
    Store,
    /// A reference compare-and-swap.
    Cas,
    /// A data-word read.
    Read,
    /// A data-word write.
    Write,
}

/// Hears of every access a workload issues.
pub trait Tally {
    /// One access of kind `a`.
    fn count(&self, a: Access);
}

/// The timed rows' tally: nothing, inlined away.
pub struct NoTally;

impl Tally for NoTally {
    #[inline(always)]
    fn count(&self, _: Access) {}
}

/// Accesses by kind, counted.
#[derive(Default, Debug)]
pub struct Counts {
    /// One cell per [`Access`], in declaration order.
    by_kind: [Cell<u64>; 5],
}

impl Tally for Counts {
    fn count(&self, a: Access) {
        let c = &self.by_kind[a as usize];
        c.set(c.get() + 1);
    }
}

impl Counts {
    /// Accesses of kind `a` so far.
    pub fn get(&self, a: Access) -> u64 {
        self.by_kind[a as usize].get()
    }
}

/// Accesses per operation, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerOp {
    /// Reference loads.
    pub loads: f64,
    /// Reference stores.
    pub stores: f64,
    /// Reference CASes.
    pub cas: f64,
    /// Data reads.
    pub reads: f64,
    /// Data writes.
    pub writes: f64,
}

/// A passive-mode workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Build and validate a DOM-like tree (reference-heavy).
    Xml,
    /// Rewire a graph (store-heavy).
    Graph,
}

impl Workload {
    /// Both, in table order.
    pub const ALL: [Workload; 2] = [Workload::Xml, Workload::Graph];

    /// The name in row ids and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Xml => "xml",
            Workload::Graph => "graph",
        }
    }

    /// The workload named `s`.
    pub fn from_name(s: &str) -> Option<Workload> {
        Self::ALL.into_iter().find(|w| w.name() == s)
    }

    /// What one operation is, for the table titles.
    pub fn about(self) -> &'static str {
        match self {
            Workload::Xml => {
                "build + validate one DOM-like tree (reference-heavy, the seed's XmlValidation shape)"
            }
            Workload::Graph => "rewire a 1000-node graph (store-heavy)",
        }
    }

    /// The heap it runs on: enough for the live set, with room for many
    /// operations' garbage between passive collections.
    pub fn heap_bytes(self) -> usize {
        match self {
            Workload::Xml => 32 << 20,
            Workload::Graph => 16 << 20,
        }
    }
}

/// Elements of the generated document.
pub const ELEMENTS: usize = 96;
/// Distinct element tags (types of the schema).
const TAGS: usize = 8;
/// Element fields: references, then data words.
const E_CHILD: usize = 0;
const E_SIBLING: usize = 1;
const E_ATTRS: usize = 2;
const E_TYPE: usize = 3;
const E_REFS: usize = 4;
const E_TAG: usize = 0;
const E_TEXT: usize = 1;
const E_DATA: usize = 2;
/// Type fields (data): allowed child tags as a bit set, the required
/// attribute name.
const T_ALLOWED: usize = 0;
const T_REQUIRED: usize = 1;
/// Graph nodes and their edges.
pub const NODES: usize = 1000;
const EDGES: usize = 4;

/// xorshift64: the documents' and the rewires' choices.
#[inline(always)]
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// The schema of the `xml` workload: one type object per tag, in an array.
pub fn xml_setup<B: BarrierSet>(m: &mut Mutator<B>) -> Result<Handle, GcError> {
    let types = m.alloc(TAGS, 0)?;
    for tag in 0..TAGS {
        let d = m.roots_len();
        let ty = m.alloc(0, 2)?;
        let (a, o) = (m.get(types)?, m.get(ty)?);
        // Every tag allows every child tag but its own parent's (so a few
        // children of each document are invalid and counted as errors).
        m.write(o, T_ALLOWED, !(1usize << ((tag + 1) % TAGS)))?;
        m.write(o, T_REQUIRED, tag % 3)?;
        m.store(a, tag, Some(o))?;
        m.truncate_roots(d);
    }
    Ok(types)
}

/// `n` operations of the `xml` workload: each builds the document and
/// validates it; returns a digest (errors found, attribute values).
#[inline(never)]
pub fn xml_documents<B: BarrierSet, T: Tally>(
    m: &mut Mutator<B>,
    types: Handle,
    n: u64,
    t: &T,
) -> Result<usize, GcError> {
    let mut digest = 0usize;
    for _ in 0..n {
        let d = m.roots_len();
        let root = build_document(m, t)?;
        digest = digest.wrapping_add(validate(m, types, root, t)?);
        m.truncate_roots(d);
    }
    Ok(digest)
}

/// Builds the document (the same one every call: a fixed seed) and
/// returns its root element's handle.
fn build_document<B: BarrierSet, T: Tally>(m: &mut Mutator<B>, t: &T) -> Result<Handle, GcError> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let root = m.alloc(E_REFS, E_DATA)?;
    m.write(m.get(root)?, E_TAG, 0)?;
    t.count(Access::Write);
    let mut open = vec![root];
    for _ in 1..ELEMENTS {
        let r = next(&mut x);
        let tag = (r % TAGS as u64) as usize;
        let e = m.alloc(E_REFS, E_DATA)?;
        let o = m.get(e)?;
        m.write(o, E_TAG, tag)?;
        m.write(o, E_TEXT, (r >> 8) as usize)?;
        t.count(Access::Write);
        t.count(Access::Write);
        for a in 0..(r >> 16) % 3 {
            let attr = m.alloc(1, 2)?;
            let (o, ao) = (m.get(e)?, m.get(attr)?);
            m.write(ao, 0, a as usize)?;
            m.write(ao, 1, (r >> (20 + a)) as usize)?;
            let old = m.load(o, E_ATTRS)?;
            m.store(ao, 0, old)?;
            m.store(o, E_ATTRS, Some(ao))?;
            t.count(Access::Write);
            t.count(Access::Write);
            t.count(Access::Load);
            t.count(Access::Store);
            t.count(Access::Store);
        }
        // Link it first among its parent's children.
        let parent = *open.last().expect("the root stays open");
        let (p, o) = (m.get(parent)?, m.get(e)?);
        let first = m.load(p, E_CHILD)?;
        m.store(o, E_SIBLING, first)?;
        m.store(p, E_CHILD, Some(o))?;
        t.count(Access::Load);
        t.count(Access::Store);
        t.count(Access::Store);
        // Descend into it, stay, or close the parent.
        match (r >> 24) % 4 {
            0 | 1 if open.len() < 6 => open.push(e),
            3 if open.len() > 1 => {
                open.pop();
            }
            _ => {}
        }
    }
    Ok(root)
}

/// Walks the tree from `root`, checking each element against its type.
fn validate<B: BarrierSet, T: Tally>(
    m: &Mutator<B>,
    types: Handle,
    root: Handle,
    t: &T,
) -> Result<usize, GcError> {
    let types = m.get(types)?;
    let mut stack = vec![m.get(root)?];
    let mut digest = 0usize;
    while let Some(e) = stack.pop() {
        let tag = m.read(e, E_TAG)?;
        t.count(Access::Read);
        // The element's type, resolved once and cached by a CAS.
        let ty = match m.load(e, E_TYPE)? {
            Some(ty) => ty,
            None => {
                let ty = m.load(types, tag % TAGS)?.expect("every tag has a type");
                m.cas(e, E_TYPE, None, Some(ty))?;
                t.count(Access::Load);
                t.count(Access::Cas);
                ty
            }
        };
        t.count(Access::Load);
        let (allowed, required) = (m.read(ty, T_ALLOWED)?, m.read(ty, T_REQUIRED)?);
        t.count(Access::Read);
        t.count(Access::Read);
        let mut found = false;
        let mut a = m.load(e, E_ATTRS)?;
        t.count(Access::Load);
        while let Some(ao) = a {
            found |= m.read(ao, 0)? == required;
            digest = digest.wrapping_add(m.read(ao, 1)?);
            a = m.load(ao, 0)?;
            t.count(Access::Read);
            t.count(Access::Read);
            t.count(Access::Load);
        }
        digest += usize::from(!found);
        let mut c = m.load(e, E_CHILD)?;
        t.count(Access::Load);
        while let Some(co) = c {
            let ctag = m.read(co, E_TAG)?;
            digest += usize::from(allowed & (1 << ctag) == 0);
            stack.push(co);
            c = m.load(co, E_SIBLING)?;
            t.count(Access::Read);
            t.count(Access::Load);
        }
    }
    Ok(digest)
}

/// The graph of the `graph` workload: an array of [`NODES`] nodes, each
/// edge pointing at another node.
pub fn graph_setup<B: BarrierSet>(m: &mut Mutator<B>) -> Result<Handle, GcError> {
    let array = m.alloc(NODES, 0)?;
    for i in 0..NODES {
        let d = m.roots_len();
        let n = m.alloc(EDGES, 1)?;
        let (a, o) = (m.get(array)?, m.get(n)?);
        m.store(a, i, Some(o))?;
        m.truncate_roots(d);
    }
    let a = m.get(array)?;
    for i in 0..NODES {
        let x = m.load(a, i)?.expect("filled above");
        for k in 0..EDGES {
            let y = m.load(a, (i * 7 + k * 131 + 1) % NODES)?;
            m.store(x, k, y)?;
        }
    }
    Ok(array)
}

/// `n` operations of the `graph` workload; returns a digest. Every
/// operation issues the same accesses (no access depends on the data).
#[inline(never)]
pub fn graph_rewires<B: BarrierSet, T: Tally>(
    m: &Mutator<B>,
    array: Handle,
    n: u64,
    seed: &mut u64,
    t: &T,
) -> Result<usize, GcError> {
    let arr = m.get(array)?;
    let mut digest = 0usize;
    for _ in 0..n {
        let r = next(seed) as usize;
        let (a, b) = (
            m.load(arr, r % NODES)?.expect("full"),
            m.load(arr, (r >> 11) % NODES)?.expect("full"),
        );
        let (s, u) = ((r >> 22) % EDGES, (r >> 24) % EDGES);
        // Swap edge s of a with edge u of b.
        let (ea, eb) = (m.load(a, s)?, m.load(b, u)?);
        m.store(a, s, eb)?;
        m.store(b, u, ea)?;
        // Point a's next edge at b, unless another mutator got there first.
        let k = (s + 1) % EDGES;
        let cur = m.load(a, k)?;
        digest += usize::from(m.cas(a, k, cur, Some(b))?);
        m.write(b, 0, m.read(b, 0)?.wrapping_add(1))?;
        t.count(Access::Load);
        t.count(Access::Load);
        t.count(Access::Load);
        t.count(Access::Load);
        t.count(Access::Load);
        t.count(Access::Store);
        t.count(Access::Store);
        t.count(Access::Cas);
        t.count(Access::Read);
        t.count(Access::Write);
    }
    Ok(digest)
}

/// The accesses one operation of `w` issues, counted over `ops` operations
/// on a heap without barriers (the accesses do not depend on the set: in
/// passive mode no barrier changes what the workload does).
pub fn count_accesses(w: Workload, ops: u64) -> Result<PerOp, GcError> {
    let mut config = fastpath::gc::HeapConfig::new(
        w.heap_bytes(),
        fastpath::gc::BarrierBits::NONE,
        fastpath::gc::GcMode::Passive,
    );
    // Full-width slots, whatever `FASTPATH_GC_REFS` says: `NoBarriers`
    // is a type of that width (the counts do not depend on it).
    config.refs = fastpath::gc::layout::RefWidth::Full;
    let heap = Heap::new(config)?;
    let mut m = heap.mutator::<NoBarriers>()?;
    let counts = Counts::default();
    match w {
        Workload::Xml => {
            let types = xml_setup(&mut m)?;
            xml_documents(&mut m, types, ops, &counts)?;
        }
        Workload::Graph => {
            let array = graph_setup(&mut m)?;
            graph_rewires(&m, array, ops, &mut 0x9E37_79B9, &counts)?;
        }
    }
    let per = |a| counts.get(a) as f64 / ops.max(1) as f64;
    Ok(PerOp {
        loads: per(Access::Load),
        stores: per(Access::Store),
        cas: per(Access::Cas),
        reads: per(Access::Read),
        writes: per(Access::Write),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_issues_the_same_accesses() {
        for w in Workload::ALL {
            let one = count_accesses(w, 1).unwrap();
            let many = count_accesses(w, 7).unwrap();
            assert_eq!(one, many, "{w:?}");
            assert!(
                one.loads >= 1.0 && one.stores >= 1.0 && one.cas >= 1.0,
                "{w:?} {one:?}"
            );
        }
        let g = count_accesses(Workload::Graph, 3).unwrap();
        assert_eq!(
            (g.loads, g.stores, g.cas, g.reads, g.writes),
            (5.0, 2.0, 1.0, 1.0, 1.0)
        );
        // Each element but the root is linked once (1 load + 2 stores).
        let x = count_accesses(Workload::Xml, 1).unwrap();
        assert!(x.stores >= 2.0 * (ELEMENTS - 1) as f64, "{x:?}");
        assert_eq!(x.cas, ELEMENTS as f64, "one type CAS per element");
    }

    #[test]
    fn the_workloads_run_with_every_barrier_and_agree() {
        use fastpath::gc::{BarrierBits, GcMode, HeapConfig, ShenandoahBarriers};
        // The digest does not depend on the barriers in passive mode.
        let run = |shen: bool| -> usize {
            let bits = if shen {
                BarrierBits::SHENANDOAH
            } else {
                BarrierBits::NONE
            };
            let heap = Heap::new(HeapConfig::new(Workload::Xml.heap_bytes(), bits, GcMode::Passive)).unwrap();
            if shen {
                let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
                let types = xml_setup(&mut m).unwrap();
                xml_documents(&mut m, types, 3, &NoTally).unwrap()
            } else {
                let mut m = heap.mutator::<NoBarriers>().unwrap();
                let types = xml_setup(&mut m).unwrap();
                xml_documents(&mut m, types, 3, &NoTally).unwrap()
            }
        };
        assert_eq!(run(true), run(false));
    }
}

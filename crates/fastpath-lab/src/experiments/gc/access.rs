//! Table 4 of `fastpath gc` (`--only access`): the mutator's own cost per
//! heap access when no GC runs, checked API beside the unchecked one, in
//! the shape of `peers/jvm` `GcAccess.java` (HotSpot's side).
//!
//! Where it sits: drives `fastpath::gc`'s access API alone. One heap
//! (passive, `shenandoah` barriers, monomorphised: SATB and the LRB idle,
//! as HotSpot's Shenandoah barriers are with no cycle), one mutator, a
//! table of 1024 nodes (2 references, 4 data words; each node's first
//! reference points at the next), and one `#[inline(never)]` loop per row
//! making one access per iteration on node `i & 1023`: a data read, a
//! reference load (and a null test), a reference store (the next node) or
//! a data write, through the checked API (`Mutator::read`…: ownership,
//! layout and bounds checks, a `Result`) or the unchecked one
//! (`Mutator::read_unchecked`…: the same barriers, no checks). The `table`
//! row is the loop alone (index, table load); `handle + read` is what a
//! runtime holding only handles pays (`Mutator::get`, then `read`). Rows
//! are interleaved round by round, so a loaded machine's drift spreads over
//! all of them; the ratio `checked / unchecked` is taken within each round.
//! With `--prof perfnorm` each row also gets its instructions per access
//! (Callgrind where there is no PMU), the profiler re-running the row from
//! its id alone (`access/<row>`, [`region`]).

use std::time::Instant;

use fastpath::gc::{BarrierBits, GcMode, Handle, Heap, HeapConfig, Mutator, Obj, ShenandoahBarriers};

use super::passive::paired_ratio;
use crate::harness::black_box;
use crate::harness::perfnorm::{ProfileTable, Profiler, Region};
use crate::report::table::num;
use crate::report::{BenchResult, Mode, Table};
use crate::stats::Stats;

type M = Mutator<ShenandoahBarriers>;

/// Nodes in the table (a power of two: the index is masked).
const NODES: usize = 1024;
const MASK: usize = NODES - 1;
/// The node: 2 references, 4 data words (the pause workload's and
/// `GcAccess.java`'s).
const NREFS: usize = 2;
const NDATA: usize = 4;

type Nodes<'m> = [Obj<'m>; NODES];

/// A row's loop: `n` accesses, returning a sum that depends on them.
type Loop = for<'m> fn(&'m M, &Nodes<'m>, &[Handle; NODES], u64) -> usize;

/// (row id, access, path, loop).
const ROWS: &[(&str, &str, &str, Loop)] = &[
    ("table", "(loop alone)", "-", table_only),
    ("read-checked", "data read", "checked", read_checked),
    ("read-unchecked", "data read", "unchecked", read_unchecked),
    ("load-checked", "ref load", "checked", load_checked),
    ("load-unchecked", "ref load", "unchecked", load_unchecked),
    ("store-checked", "ref store", "checked", store_checked),
    ("store-unchecked", "ref store", "unchecked", store_unchecked),
    ("write-checked", "data write", "checked", write_checked),
    ("write-unchecked", "data write", "unchecked", write_unchecked),
    ("handle-read", "handle + data read", "checked", handle_read),
];

#[inline(never)]
fn table_only<'m>(_m: &'m M, t: &Nodes<'m>, _h: &[Handle; NODES], n: u64) -> usize {
    let mut s = 0usize;
    for i in 0..n {
        s = s.wrapping_add(t[i as usize & MASK].addr());
    }
    s
}

#[inline(never)]
fn read_checked<'m>(m: &'m M, t: &Nodes<'m>, _h: &[Handle; NODES], n: u64) -> usize {
    let mut s = 0usize;
    for i in 0..n {
        if let Ok(v) = m.read(t[i as usize & MASK], 0) {
            s = s.wrapping_add(v);
        }
    }
    s
}

#[inline(never)]
fn read_unchecked<'m>(m: &'m M, t: &Nodes<'m>, _h: &[Handle; NODES], n: u64) -> usize {
    let mut s = 0usize;
    for i in 0..n {
        // SAFETY: every node is this heap's, with NREFS references and NDATA
        // data words (allocated so in `instance`).
        s = s.wrapping_add(unsafe { m.read_unchecked(t[i as usize & MASK], NREFS, 0) });
    }
    s
}

#[inline(never)]
fn load_checked<'m>(m: &'m M, t: &Nodes<'m>, _h: &[Handle; NODES], n: u64) -> usize {
    let mut s = 0usize;
    for i in 0..n {
        if let Ok(Some(_)) = m.load(t[i as usize & MASK], 0) {
            s += 1;
        }
    }
    s
}

#[inline(never)]
fn load_unchecked<'m>(m: &'m M, t: &Nodes<'m>, _h: &[Handle; NODES], n: u64) -> usize {
    let mut s = 0usize;
    for i in 0..n {
        // SAFETY: as read_unchecked; field 0 < NREFS.
        if unsafe { m.load_unchecked(t[i as usize & MASK], 0) }.is_some() {
            s += 1;
        }
    }
    s
}

#[inline(never)]
fn store_checked<'m>(m: &'m M, t: &Nodes<'m>, _h: &[Handle; NODES], n: u64) -> usize {
    let mut s = 0usize;
    for i in 0..n {
        let i = i as usize;
        s += m.store(t[i & MASK], 0, Some(t[(i + 1) & MASK])).is_ok() as usize;
    }
    s
}

#[inline(never)]
fn store_unchecked<'m>(m: &'m M, t: &Nodes<'m>, _h: &[Handle; NODES], n: u64) -> usize {
    for i in 0..n {
        let i = i as usize;
        // SAFETY: as load_unchecked; the value is a node of this heap.
        unsafe { m.store_unchecked(t[i & MASK], 0, Some(t[(i + 1) & MASK])) };
    }
    n as usize
}

#[inline(never)]
fn write_checked<'m>(m: &'m M, t: &Nodes<'m>, _h: &[Handle; NODES], n: u64) -> usize {
    let mut s = 0usize;
    for i in 0..n {
        s += m.write(t[i as usize & MASK], 0, i as usize).is_ok() as usize;
    }
    s
}

#[inline(never)]
fn write_unchecked<'m>(m: &'m M, t: &Nodes<'m>, _h: &[Handle; NODES], n: u64) -> usize {
    for i in 0..n {
        // SAFETY: as read_unchecked.
        unsafe { m.write_unchecked(t[i as usize & MASK], NREFS, 0, i as usize) };
    }
    n as usize
}

#[inline(never)]
fn handle_read<'m>(m: &'m M, _t: &Nodes<'m>, h: &[Handle; NODES], n: u64) -> usize {
    let mut s = 0usize;
    for i in 0..n {
        if let Ok(o) = m.get(h[i as usize & MASK]) {
            if let Ok(v) = m.read(o, 0) {
                s = s.wrapping_add(v);
            }
        }
    }
    s
}

/// The heap, its one mutator (a thread is the mutator of one heap at a
/// time, so every row runs on this one) and the node table's handles.
struct Bench {
    m: M,
    handles: [Handle; NODES],
    // Dropped after the mutator.
    _heap: Heap,
}

impl Bench {
    fn new() -> anyhow::Result<Bench> {
        let mut config = HeapConfig::new(16 << 20, BarrierBits::SHENANDOAH, GcMode::Passive);
        // The access paths of `ShenandoahBarriers`, a full-width type,
        // whatever `FASTPATH_GC_REFS` says.
        config.refs = fastpath::gc::layout::RefWidth::Full;
        let heap = Heap::new(config)?;
        let mut m = heap.mutator::<ShenandoahBarriers>()?;
        let mut handles = Vec::with_capacity(NODES);
        for k in 0..NODES {
            let h = m.alloc(NREFS, NDATA)?;
            m.write(m.get(h)?, 0, k)?;
            handles.push(h);
        }
        for k in 0..NODES {
            let (a, b) = (m.get(handles[k])?, m.get(handles[(k + 1) & MASK])?);
            m.store(a, 0, Some(b))?;
        }
        let handles: [Handle; NODES] = handles.try_into().expect("NODES handles");
        Ok(Bench {
            m,
            handles,
            _heap: heap,
        })
    }

    /// `n` accesses of the row `f`.
    fn run(&self, f: Loop, n: u64) {
        let m = &self.m;
        // No allocation and no poll in the loops: the `Obj`s stay valid.
        let t: Nodes<'_> = std::array::from_fn(|k| m.get(self.handles[k]).expect("a live handle"));
        black_box(f(m, &t, &self.handles, n));
    }
}

/// A row's loop on its own heap: `n` accesses per call.
pub type Instance = Box<dyn FnMut(u64)>;

/// A heap, the calling thread's mutator and the loop of `f`.
fn instance(f: Loop) -> anyhow::Result<Instance> {
    let b = Bench::new()?;
    Ok(Box::new(move |n| b.run(f, n)))
}

/// The profiler's region for row `id` (`access/<row>`).
pub fn region(id: &str) -> Option<Region<'static>> {
    let row = id.strip_prefix("access/")?;
    let (_, _, _, f) = ROWS.iter().find(|r| r.0 == row)?;
    let run = instance(*f).ok()?;
    Some(Region::new(profiled_ops(), run))
}

/// Accesses one profiled run counts: a few million instructions.
fn profiled_ops() -> u64 {
    if cfg!(debug_assertions) {
        20_000
    } else {
        1_000_000
    }
}

/// The table: ns per access (median over rounds) and, profiled, the
/// instructions per access.
pub fn access(
    quick: bool,
    prof: Option<&Profiler>,
    results: &mut Vec<BenchResult>,
) -> anyhow::Result<Vec<Table>> {
    let rounds = if quick { 3 } else { 11 };
    let n: u64 = if cfg!(debug_assertions) {
        20_000
    } else if quick {
        1_000_000
    } else {
        5_000_000
    };
    let ns = {
        let bench = Bench::new()?;
        let bar = crate::harness::progress(rounds as u64 + 1, "gc access");
        for r in ROWS {
            bench.run(r.3, n / 10); // warm-up
        }
        bar.inc(1);
        let mut ns: Vec<Vec<f64>> = vec![Vec::new(); ROWS.len()];
        for _ in 0..rounds {
            for (k, r) in ROWS.iter().enumerate() {
                let start = Instant::now();
                bench.run(r.3, n);
                ns[k].push(start.elapsed().as_nanos() as f64 / n as f64);
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        ns
        // The bench's mutator drops here: the profiler's regions below
        // each make their own (in this thread, for the hardware path).
    };
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let mut instructions: Vec<Option<f64>> = Vec::new();
    let mut counters = ProfileTable::new("gc access");
    for (k, r) in ROWS.iter().enumerate() {
        let mut result = BenchResult::new(
            "gc",
            &format!("access-{}", r.0),
            Mode::AverageTime,
            &Stats::from_samples(ns[k].clone()),
            "ns/op",
        );
        let mut insns = None;
        if let Some(prof) = prof {
            let id = format!("access/{}", r.0);
            let Some(region) = region(&id) else {
                anyhow::bail!("row {id} has no region");
            };
            let p = prof.profile(&id, region);
            result = p.attach(result);
            counters.push(p.clone());
            insns = p
                .per_op
                .as_ref()
                .ok()
                .and_then(|v| v.iter().find(|(e, _)| *e == "instructions").map(|(_, s)| s.mean));
        }
        instructions.push(insns);
        results.push(result);
    }
    let mut t = Table::new(
        "Access path: cost per heap access, no GC running (passive heap, shenandoah barriers idle)",
        &[
            "access",
            "path",
            "ns/access",
            "checked / unchecked",
            "insns/access",
        ],
    );
    for (k, (id, access, path, _)) in ROWS.iter().enumerate() {
        let ratio = if *path == "checked" {
            ROWS.iter()
                .position(|r| r.1 == *access && r.2 == "unchecked")
                .map_or("-".to_string(), |u| {
                    format!("{:.2}x", paired_ratio(&ns[k], &ns[u]))
                })
        } else {
            "-".to_string()
        };
        let insns = instructions[k];
        t.row(vec![
            access.to_string(),
            if *id == "handle-read" {
                "checked (get + read)".into()
            } else {
                path.to_string()
            },
            format!("{:.2}", median(&ns[k])),
            ratio,
            insns.map_or("-".into(), num),
        ]);
    }
    t.note(format!(
        "median of {rounds} rounds of {n} accesses per row, rows interleaved; checked / unchecked: the median of the per-round ratios"
    ));
    t.note("every row's loop indexes a table of 1024 `Obj`s (as GcAccess.java's rows load from a Node[]), and the compiler unrolls each differently, so insns/access is the whole loop's per access, compared as such with HotSpot's; `(loop alone)` sums the addresses (vectorised: a lower bound)");
    t.note("HotSpot's side: peers/jvm GcAccess.java (java -XX:+UseShenandoahGC -cp ... fastpath.peers.GcAccess), same shape; BENCHMARKS.md sets the two side by side");
    if prof.is_none() {
        t.note("insns/access: run with --prof perfnorm (Callgrind where there is no PMU)");
    }
    if cfg!(debug_assertions) {
        t.note("DEBUG BUILD: timings are meaningless; run with --release");
    }
    let mut tables = vec![t];
    if let Some(prof) = prof {
        tables.push(counters.finish(prof));
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row runs, and each row's region exists under its id.
    #[test]
    fn every_row_runs_and_has_a_region() {
        for (id, _, _, f) in ROWS {
            let mut run = instance(*f).unwrap();
            run(3000);
            drop(run);
            assert!(region(&format!("access/{id}")).is_some(), "{id}");
        }
        assert!(region("access/nothing").is_none());
        assert!(region("passive/xml/none").is_none());
    }

    /// The checked and unchecked loops of one access compute the same sum.
    #[test]
    fn checked_and_unchecked_loops_agree() {
        let heap = Heap::new(HeapConfig::new(
            16 << 20,
            BarrierBits::SHENANDOAH,
            GcMode::Passive,
        ))
        .unwrap();
        let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
        let mut hs = Vec::new();
        for k in 0..NODES {
            let h = m.alloc(NREFS, NDATA).unwrap();
            m.write(m.get(h).unwrap(), 0, k * 3).unwrap();
            hs.push(h);
        }
        let hs: [Handle; NODES] = hs.try_into().unwrap();
        let t: Nodes<'_> = std::array::from_fn(|k| m.get(hs[k]).unwrap());
        let n = 5000;
        assert_eq!(read_checked(&m, &t, &hs, n), read_unchecked(&m, &t, &hs, n));
        assert_eq!(read_checked(&m, &t, &hs, n), handle_read(&m, &t, &hs, n));
        assert_eq!(load_checked(&m, &t, &hs, n), 0, "no references yet");
        assert_eq!(store_checked(&m, &t, &hs, n), n as usize);
        assert_eq!(load_checked(&m, &t, &hs, n), load_unchecked(&m, &t, &hs, n));
        assert_eq!(load_unchecked(&m, &t, &hs, n), n as usize);
        store_unchecked(&m, &t, &hs, n);
        write_unchecked(&m, &t, &hs, n);
        assert_eq!(m.read(t[7], 0).unwrap(), (n as usize - 1) & !MASK | 7);
        assert_eq!(write_checked(&m, &t, &hs, n), n as usize);
    }
}

//! `fastpath jit`: the fast paths as a JIT runs them. Each operation is
//! timed (and, with `--prof perfnorm`, counted) in up to four forms:
//!
//! - `template`: fastpath-jit's x86-64 template inlined in a loop generated
//!   with dynasm-rs and installed in fastpath's `CodeCache` ([`code`]);
//! - `cranelift`: the same loop as CLIF with fastpath-cranelift's emitter,
//!   compiled by cranelift-codegen and installed with its relocations
//!   ([`clif`]), where that crate has the fast path (locks, poll, SATB and
//!   LRB idle tests);
//! - `rust`: the library called from Rust (`sync::enter_on`/`exit_on`,
//!   `Synchronized::lock`, `Mutator::safepoint_poll`, the barrier probes of
//!   `fastpath::gc::probe`) ([`rust`]);
//! - `hotspot-c2`: the same shapes compiled by C2 (peers/jvm `JitBench`),
//!   read from its JMH JSON ([`hotspot`]), or a "not run" row saying how
//!   to produce it.
//!
//! Four tables (`--only locks|poll|barriers|graph` runs one): seed 001's
//! locking shapes (uncontended, recursive, churn) with the CAS pair and
//! parking_lot's uncontended pair as this run's baselines; the safepoint
//! poll against the empty loop; seed 003's barriers, idle as in passive
//! mode (the thread block's GC state is idle outside pauses), against the
//! same access without a barrier; and seed 003's whole-workload question
//! of JIT code: the graph workload's kernel generated with the barriers
//! inlined, per barrier set, passive ([`graph`]). Every generated loop trip is one
//! operation plus two loop instructions (`dec; jnz`), which the
//! `empty-loop` row measures.
//!
//! Goals (the issue's): the inlined lock+unlock pair at most 1.0× HotSpot
//! C2's on this machine, and at most 1.05× parking_lot's uncontended pair
//! called from Rust.

pub mod clif;
pub mod code;
pub mod graph;
pub mod hotspot;
pub mod pair;
pub mod rust;

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::{value_parser, Arg, ArgMatches, Command};
use fastpath::gc::{probe, Barrier};
use fastpath::sync::{self, Header, Synchronized};

use super::{Context, Experiment};
use crate::harness::perfnorm::{Profile, ProfileTable, Profiler, Region};
use crate::harness::{measure_ns_per_op, progress, Settings};
use crate::report::table::{num, ratio, score};
use crate::report::{BenchResult, Mode, Report, Table};
use crate::stats::Stats;
use code::Body;

/// The experiment.
pub struct Jit;

const NAME: &str = "jit";

/// Operations a profiled run counts: a few milliseconds natively for the
/// slowest row (Rust churn), about a second under Callgrind.
const PROFILED_OPS: u64 = 100_000;

/// The tables, in order.
const GROUPS: [&str; 4] = ["locks", "poll", "barriers", "graph"];

/// The largest `--header-offset`/`--counter-offset`: the last word of a
/// 4 KiB page.
const MAX_OFFSET: u16 = (pair::PAGE - 8) as u16;

/// What `--only` takes: a table of [`GROUPS`], or `pair`, the lock pair's
/// variants ([`pair`]), which only `--only pair` runs.
const ONLY: [&str; 5] = ["locks", "poll", "barriers", "graph", "pair"];

/// (table, operation, form) of every row, in table order. The first row
/// of each table is its baseline.
const ROWS: &[(&str, &str, &str)] = &[
    ("locks", "cas-pair", "rust"),
    ("locks", "cas-pair", "hotspot-c2"),
    ("locks", "parking-lot", "rust"),
    ("locks", "uncontended", "template"),
    ("locks", "uncontended", "template-guessing"),
    ("locks", "uncontended", "cranelift"),
    ("locks", "uncontended", "rust"),
    ("locks", "uncontended", "rust-synchronized"),
    ("locks", "uncontended", "hotspot-c2"),
    ("locks", "recursive", "template"),
    ("locks", "recursive", "cranelift"),
    ("locks", "recursive", "rust"),
    ("locks", "recursive", "hotspot-c2"),
    ("locks", "churn", "template"),
    ("locks", "churn", "cranelift"),
    ("locks", "churn", "rust"),
    ("locks", "churn", "hotspot-c2"),
    ("poll", "empty-loop", "template"),
    ("poll", "poll", "template"),
    ("poll", "poll", "cranelift"),
    ("poll", "poll", "rust"),
    ("poll", "poll", "hotspot-c2"),
    ("barriers", "store", "template"),
    ("barriers", "store", "rust"),
    ("barriers", "store", "hotspot-c2"),
    ("barriers", "satb-store", "template"),
    ("barriers", "satb-store", "cranelift"),
    ("barriers", "satb-store", "rust"),
    ("barriers", "satb-store", "hotspot-c2"),
    ("barriers", "card-store", "template"),
    ("barriers", "card-store", "rust"),
    ("barriers", "card-store", "hotspot-c2"),
    ("barriers", "load", "template"),
    ("barriers", "load", "rust"),
    ("barriers", "load", "hotspot-c2"),
    ("barriers", "lrb-load", "template"),
    ("barriers", "lrb-load", "cranelift"),
    ("barriers", "lrb-load", "rust"),
    ("barriers", "lrb-load", "hotspot-c2"),
    ("barriers", "brooks-load", "template"),
    ("barriers", "brooks-load", "rust"),
    ("barriers", "brooks-load", "hotspot-c2"),
    ("graph", "graph", "none"),
    ("graph", "graph", "card"),
    ("graph", "graph", "card-cond"),
    ("graph", "graph", "g1-card"),
    ("graph", "graph", "satb"),
    ("graph", "graph", "brooks-rb"),
    ("graph", "graph", "brooks-wb"),
    ("graph", "graph", "lrb"),
    ("graph", "graph", "cas"),
    ("graph", "graph", "shenandoah"),
    ("graph", "graph", "shenandoah-2017"),
    ("graph", "graph", "g1"),
];

/// The most measured iterations `--iterations` takes.
pub const MAX_ITERATIONS: u32 = 1000;

/// The object the generated barrier loops access: a forwarding word (to
/// the object itself, as a Brooks pointer of an object not copied), then
/// the object: a header word, a reference field (pointing to the object
/// itself) and a data word.
struct BarrierObject {
    words: Pin<Box<[u64; 4]>>,
    /// The card table the card loop marks; its biased base is embedded in
    /// the code as an immediate.
    cards: Vec<u8>,
}

impl BarrierObject {
    fn new() -> BarrierObject {
        let mut words = Box::pin([0u64; 4]);
        let base = words.as_ptr() as u64;
        let obj = base + 8;
        words.as_mut().copy_from_slice(&[obj, 0, obj, 1]);
        BarrierObject {
            words,
            cards: vec![1u8; 2],
        }
    }

    fn obj(&self) -> *const u8 {
        // The object starts after the forwarding word.
        self.words.as_ptr().wrapping_add(1).cast()
    }

    /// `cards − (obj >> 9)`: the card of `obj` is `cards[0]` (the object's
    /// 24 bytes may end on the next card, which `cards[1]` covers).
    fn biased_card_base(&self) -> u64 {
        (self.cards.as_ptr() as u64).wrapping_sub(self.obj() as u64 >> 9)
    }
}

/// What a generated (dynasm or Cranelift) loop runs on.
struct Fixture {
    func: code::LoopFn,
    /// Keeps the code installed.
    _code: Box<dyn std::any::Any>,
    header: Pin<Box<Header>>,
    proto: Pin<Box<Header>>,
    object: BarrierObject,
    counter: Box<u64>,
    sum: Box<u64>,
    body: Body,
    /// Hold the header from Rust around each run (the recursive row).
    hold: bool,
}

impl Fixture {
    fn new(body: Body, cranelift: bool, hold: bool) -> anyhow::Result<Fixture> {
        let object = BarrierObject::new();
        let body = match body {
            Body::CardStore(_) => Body::CardStore(object.biased_card_base()),
            b => b,
        };
        let (func, code): (code::LoopFn, Box<dyn std::any::Any>) = if cranelift {
            let c = clif::compile(body)?;
            (c.func(), Box::new(c))
        } else {
            let c = code::generate(body)?;
            (c.func(), Box::new(c))
        };
        Ok(Fixture {
            func,
            _code: code,
            header: Box::pin(Header::new()),
            proto: code::fresh_header(),
            object,
            counter: Box::new(0),
            sum: Box::new(0),
            body,
            hold,
        })
    }

    fn run(&mut self, n: u64) {
        let thread = fastpath::thread::current().as_ptr();
        let proto: *const u64 = (&*self.proto as *const Header).cast();
        let (obj, aux): (*const u8, *mut u64) = match self.body {
            Body::LockPair | Body::LockChurn | Body::Empty | Body::Poll => {
                ((&*self.header as *const Header).cast(), &mut *self.counter)
            }
            // The stored reference is the object itself.
            Body::Store | Body::SatbStore | Body::CardStore(_) => {
                (self.object.obj(), self.object.obj() as *mut u64)
            }
            Body::Load | Body::LrbLoad | Body::BrooksLoad => (self.object.obj(), &mut *self.sum),
        };
        let _held = self.hold.then(|| sync::lock(self.header.as_ref()));
        (self.func)(thread, obj, aux, n, proto);
    }
}

/// A pair variant's loop on a header and a counter of its own, each where
/// the allocator put it or at a [`pair::Placement`] from the thread block.
struct PairFixture {
    name: &'static str,
    code: code::Installed,
    /// The block of the thread the fixture was placed for (and runs on).
    thread: *const fastpath::thread::ThreadBlock,
    header: pair::Placed<Header>,
    counter: pair::Placed<u64>,
    /// parking_lot's shape's lock word (0: unlocked).
    word: Box<AtomicUsize>,
}

impl PairFixture {
    fn new(v: &pair::Variant, place: pair::Placement) -> anyhow::Result<PairFixture> {
        // One lock through the library registers the thread for
        // lightweight locking (an unregistered thread's lock-stack top is
        // the inactive value, which sends the templates' enter to the slow
        // path, and the variants that keep enter's registers for the exit
        // need the fast one).
        let h = Box::pin(Header::new());
        drop(sync::lock(h.as_ref()));
        let thread = fastpath::thread::current().as_ptr();
        let (header, counter) = placed_pair(place);
        Ok(PairFixture {
            name: v.name,
            code: pair::generate(v)?,
            thread,
            header,
            counter,
            word: Box::new(AtomicUsize::new(0)),
        })
    }

    /// The header's and the counter's offsets past the thread block,
    /// modulo 4096.
    fn offsets(&self) -> (usize, usize) {
        let t = self.thread as usize;
        (self.header.offset_from(t), self.counter.offset_from(t))
    }

    fn run(&mut self, n: u64) {
        let thread = fastpath::thread::current().as_ptr();
        assert_eq!(
            thread, self.thread,
            "a pair fixture runs on the thread it was placed for"
        );
        let obj: *const u8 = (self.header.get() as *const Header).cast();
        let word: *const u64 = (&*self.word as *const AtomicUsize).cast();
        let before = lock_stack_top(fastpath::thread::current());
        (self.code.func())(thread, obj, self.counter.get_mut(), n, word);
        let after = lock_stack_top(fastpath::thread::current());
        assert_eq!(
            before, after,
            "the {} pair left the lock-stack's top at {after:#x} (was {before:#x})",
            self.name
        );
    }
}

/// A lock row's header and counter at `place` from the current thread's
/// block; where `place` leaves the header to the allocator and the
/// allocator's address aliases one of the pair's stores (4 KiB aliasing,
/// [`pair::Placement`]), the header goes to [`pair::UNALIASED_HEADER`]
/// instead, so an unplaced row times the common case whatever the
/// environment's size did to the heap's layout.
fn placed_pair(place: pair::Placement) -> (pair::Placed<Header>, pair::Placed<u64>) {
    let t = fastpath::thread::current();
    let at = t.as_ptr() as usize;
    let counter = pair::Placed::new(at, place.counter, || 0u64);
    let header = pair::Placed::new(at, place.header, Header::new);
    let aliased = pair::aliased_store(
        header.offset_from(at),
        lock_stack_top(t) as usize,
        counter.offset_from(at),
    );
    if place.header.is_none() && aliased.is_some() {
        let header = pair::Placed::new(at, Some(pair::UNALIASED_HEADER), Header::new);
        return (header, counter);
    }
    (header, counter)
}

/// The lock-stack top of the current thread's block `t` (its published
/// `u32`; the entry a pair pushes is at the block + this).
fn lock_stack_top(t: &fastpath::thread::ThreadBlock) -> u32 {
    // SAFETY: the current thread's block, which lives as long as the
    // thread; the lock-stack top is a u32 at its published offset, written
    // only by this thread.
    unsafe {
        (t.as_ptr() as *const u8)
            .add(fastpath::thread::LOCK_STACK_TOP_OFFSET)
            .cast::<u32>()
            .read()
    }
}

/// `--only pair`: the template pair's variants and the Rust baselines,
/// interleaved (every row one short sample per round, in a fresh order
/// each round), each against parking_lot's pair and the Rust fast path of
/// the same run.
///
/// The lock rows (the generated pairs and the Rust fast path) put their
/// header and counter at `place` from the thread block (else where the
/// allocator does), and the table gives each one's offsets modulo 4096.
fn pair_table(
    quick: bool,
    place: pair::Placement,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> anyhow::Result<Table> {
    use crate::harness::interleave::{measure_rows, row, Sampler};
    let baselines: [(&str, &str, &str); 3] = [
        (
            "parking-lot",
            "rust",
            "parking_lot::Mutex<u64> lock, += 1, unlock, from Rust",
        ),
        (
            "uncontended",
            "rust",
            "sync::enter_on / exit_on around += 1 (the Rust fast path)",
        ),
        ("cas-pair", "rust", "the header's two CASes around += 1 in Rust"),
    ];
    let mut ids: Vec<(String, String, String)> = baselines
        .iter()
        .map(|(o, f, w)| (o.to_string(), f.to_string(), w.to_string()))
        .collect();
    ids.extend(
        pair::VARIANTS
            .iter()
            .map(|v| ("pair".to_string(), v.name.to_string(), v.what.to_string())),
    );
    let mut counted = Vec::new();
    let mut samplers: Vec<Sampler<'_>> = Vec::new();
    let thread = fastpath::thread::current().as_ptr() as usize;
    // Per row, the header's and the counter's offsets past the thread
    // block modulo 4096, where the row places them.
    let mut offsets: Vec<Option<(usize, usize)>> = Vec::new();
    for (op, form, _) in &ids {
        if op == "pair" {
            let v = pair::VARIANTS
                .iter()
                .find(|v| v.name == form.as_str())
                .ok_or_else(|| anyhow::anyhow!("pair/{form}: no such variant"))?;
            let mut f = PairFixture::new(v, place)?;
            offsets.push(Some(f.offsets()));
            samplers.push(row(move |n| f.run(n)));
            continue;
        }
        if (op.as_str(), form.as_str()) == ("uncontended", "rust") {
            let (h, mut c) = placed_pair(place);
            offsets.push(Some((h.offset_from(thread), c.offset_from(thread))));
            samplers.push(row(move |n| {
                rust::enter_exit_on(fastpath::thread::current(), h.pinned(), c.get_mut(), n)
            }));
            continue;
        }
        offsets.push(None);
        let mut region = match region(op, form) {
            Some(Ok(r)) => r,
            Some(Err(why)) => anyhow::bail!("{op}/{form}: {why}"),
            None => anyhow::bail!("{op}/{form}: no such row"),
        };
        samplers.push(row(move |n| (region.run)(n)));
    }
    let plan = short_plan(quick);
    let stats = measure_rows(&plan, 0x9A1E, &mut samplers).map_err(|e| anyhow::anyhow!(e))?;
    drop(samplers);
    for (op, form, _) in &ids {
        counted.push(match (prof, region(op, form)) {
            (Some(p), Some(Ok(r))) => {
                let profile = p.profile(&format!("{op}/{form}"), r);
                let v = match &profile.per_op {
                    Ok(v) => v
                        .iter()
                        .find(|(n, _)| *n == "instructions")
                        .map(|(_, s)| num(s.mean))
                        .unwrap_or_else(|| "n/a".into()),
                    Err(e) => e.clone(),
                };
                counters.push(profile);
                v
            }
            _ => "-".into(),
        });
    }
    let median = |i: usize| stats[i].median;
    let (pl, rust) = (median(0), median(1));
    let top = lock_stack_top(fastpath::thread::current()) as usize;
    let mut t = Table::new(
        "The uncontended lock + unlock pair: the template, variants one change away, and the Rust baselines, interleaved; ns/op (median of short samples)",
        &[
            "row",
            "form",
            "ns/op (median)",
            "× parking-lot",
            "× rust fast path",
            "instr/op",
            "header, counter at",
            "what",
        ],
    );
    for (i, (op, form, what)) in ids.iter().enumerate() {
        t.row(vec![
            op.clone(),
            form.clone(),
            num(median(i)),
            ratio(median(i), pl),
            ratio(median(i), rust),
            counted[i].clone(),
            offsets[i].map_or_else(
                || "-".into(),
                |(h, c)| match pair::aliased_store(h, top, c) {
                    Some(store) => format!("+{h:#x}, +{c:#x} (aliases {store})"),
                    None => format!("+{h:#x}, +{c:#x}"),
                },
            ),
            what.clone(),
        ]);
    }
    t.note(format!(
        "header, counter at: their offsets past the thread block modulo 4096 ({}; the block itself at {:#x} modulo 4096; instruction counts are of unplaced copies); the pair stores to the block's lock-stack top (+{:#x}) and the entry it pushes (+{:#x}) and to the counter, and loads the header after them: an offset equal to one of those is 4 KiB aliasing (a load held behind a store whose address bits 11:0 match; a header at the top field's offset times about 15 % slower in template-expecting on the Intel guest): a row the allocator put there is moved to +{:#x}",
        match (place.header, place.counter) {
            (None, None) => "where the allocator put them".to_string(),
            (h, c) => format!(
                "placed: --header-offset {}, --counter-offset {}",
                h.map_or_else(|| "none".into(), |h| h.to_string()),
                c.map_or_else(|| "none".into(), |c| c.to_string())
            ),
        },
        thread % pair::PAGE,
        fastpath::thread::LOCK_STACK_TOP_OFFSET,
        top,
        pair::UNALIASED_HEADER,
    ));
    t.note(format!(
        "{} rounds after {} warm-up, samples of {:?}, each round's rows in a fresh random order; every generated row is a loop of `dec rcx; jnz` trips (2 instructions per pair)",
        plan.rounds, plan.warmup_rounds, plan.sample_time
    ));
    Ok(t)
}

/// The generated loop's body of operation `op`.
fn body_of(op: &str) -> Option<Body> {
    Some(match op {
        "empty-loop" => Body::Empty,
        "uncontended" | "recursive" => Body::LockPair,
        "churn" => Body::LockChurn,
        "poll" => Body::Poll,
        "store" => Body::Store,
        "satb-store" => Body::SatbStore,
        "card-store" => Body::CardStore(0),
        "load" => Body::Load,
        "lrb-load" => Body::LrbLoad,
        "brooks-load" => Body::BrooksLoad,
        _ => return None,
    })
}

/// A row's measured loop as a region (id `<op>/<form>`): `None` for an
/// unknown id, `Err(why)` for a row that has no loop here (HotSpot's,
/// Cranelift's where the crate has no emitter).
fn region(op: &str, form: &str) -> Option<Result<Region<'static>, String>> {
    let err = |e: anyhow::Error| Some(Err(format!("{e:#}")));
    let r = |run: Box<dyn FnMut(u64)>| Some(Ok(Region::new(PROFILED_OPS, run)));
    if op == "pair" {
        let v = pair::VARIANTS.iter().find(|v| v.name == form)?;
        return match PairFixture::new(v, pair::Placement::default()) {
            Ok(mut f) => r(Box::new(move |n| f.run(n))),
            Err(e) => err(e),
        };
    }
    if (op, form) == ("uncontended", "template-guessing") {
        // The same loop as `--only pair`'s row of that name.
        let v = pair::VARIANTS.iter().find(|v| v.name == form)?;
        return match PairFixture::new(v, pair::Placement::default()) {
            Ok(mut f) => r(Box::new(move |n| f.run(n))),
            Err(e) => err(e),
        };
    }
    if op == "graph" {
        let set = *graph::SETS.iter().find(|s| s.name == form)?;
        return match graph::Kernel::new(set) {
            Ok(mut k) => r(Box::new(move |n| k.run(n))),
            Err(e) => err(e),
        };
    }
    match form {
        "template" | "cranelift" => {
            let body = body_of(op)?;
            let cranelift = form == "cranelift";
            if cranelift && !clif::has(body) {
                return Some(Err("fastpath-cranelift has no emitter for it".into()));
            }
            match Fixture::new(body, cranelift, op == "recursive") {
                Ok(mut f) => r(Box::new(move |n| f.run(n))),
                Err(e) => err(e),
            }
        }
        "rust" | "rust-synchronized" => rust_region(op, form),
        "hotspot-c2" => Some(Err(
            "HotSpot's row: JMH's -prof perfnorm counts it (peers/jvm)".into()
        )),
        _ => None,
    }
}

fn rust_region(op: &str, form: &str) -> Option<Result<Region<'static>, String>> {
    use rust::PassiveObject;
    let ok = |run: Box<dyn FnMut(u64)>| Some(Ok(Region::new(PROFILED_OPS, run)));
    let err = |e: anyhow::Error| Some(Err(format!("{e:#}")));
    macro_rules! barrier {
        ($bits:expr, $probe:path) => {
            match PassiveObject::<{ $bits }>::new() {
                Ok(o) => ok(Box::new(move |n| o.run($probe, n))),
                Err(e) => err(e),
            }
        };
    }
    match (op, form) {
        ("cas-pair", "rust") => {
            let (word, mut c) = (AtomicUsize::new(1), 0u64);
            ok(Box::new(move |n| rust::cas_pair(&word, &mut c, n)))
        }
        ("parking-lot", "rust") => {
            let m = parking_lot::Mutex::new(0u64);
            ok(Box::new(move |n| rust::parking_lot_pairs(&m, n)))
        }
        ("uncontended", "rust") | ("recursive", "rust") => {
            let (h, mut c, hold) = (Box::pin(Header::new()), 0u64, op == "recursive");
            ok(Box::new(move |n| {
                let _held = hold.then(|| sync::lock(h.as_ref()));
                rust::enter_exit_on(fastpath::thread::current(), h.as_ref(), &mut c, n)
            }))
        }
        ("uncontended", "rust-synchronized") => {
            let v = Box::pin(Synchronized::new(0u64));
            ok(Box::new(move |n| rust::synchronized_pairs(v.as_ref(), n)))
        }
        ("churn", "rust") => {
            let mut c = 0u64;
            ok(Box::new(move |n| {
                rust::churn_on(fastpath::thread::current(), &mut c, n)
            }))
        }
        ("poll", "rust") => match rust::PassiveMutator::new() {
            Ok(mut m) => ok(Box::new(move |n| m.polls(n))),
            Err(e) => err(e),
        },
        ("store", "rust") => barrier!(0, probe::probe_store_none),
        ("satb-store", "rust") => barrier!(Barrier::Satb.bit(), probe::probe_store_satb),
        ("card-store", "rust") => barrier!(Barrier::Card.bit(), probe::probe_store_card),
        ("load", "rust") => barrier!(0, probe::probe_load_none),
        ("lrb-load", "rust") => barrier!(Barrier::Lrb.bit(), probe::probe_load_lrb),
        ("brooks-load", "rust") => barrier!(Barrier::BrooksRb.bit(), probe::probe_load_brooks_rb),
        _ => None,
    }
}

/// One measured (or read) row.
struct Row {
    op: &'static str,
    form: &'static str,
    /// ns/op, or why none.
    ns: Result<Stats, String>,
    /// Instructions per operation, or why none.
    insns: Result<f64, String>,
}

impl Experiment for Jit {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "JIT-inlined fast paths: templates in generated loops, Cranelift, Rust calls and HotSpot C2 (locks, poll, barriers)"
    }

    fn args(&self, cmd: Command) -> Command {
        cmd.arg(
            Arg::new("only")
                .long("only")
                .value_name("TABLE")
                .value_parser(ONLY)
                .help("Run one table: locks (seed 001's shapes), poll, barriers (seed 003's, idle as in passive mode), graph (the graph workload as JIT code, per barrier set) or pair (the uncontended lock pair's variants against the Rust baselines, interleaved; not part of the default run)"),
        )
        .arg(
            Arg::new("iterations")
                .long("iterations")
                .value_name("N")
                .value_parser(value_parser!(u32).range(2..=MAX_ITERATIONS as i64))
                .help("Measured iterations per row, 2 to 1000 (default 10, 5 with --quick)"),
        )
        .arg(
            Arg::new("hotspot")
                .long("hotspot")
                .action(clap::ArgAction::SetTrue)
                .help("Run HotSpot's JitBench lock shapes first (peers/jvm's benchmarks jar, built with Maven if missing; a JDK 21-25), 2 ms iterations summarised by their median as the lab's rows, into jit-locks.json in the --jvm folder, so the hotspot-c2 lock rows are timed in this invocation beside the template's"),
        )
        .arg(
            Arg::new("header-offset")
                .long("header-offset")
                .value_name("BYTES")
                .value_parser(value_parser!(u16).range(0..=MAX_OFFSET as i64))
                .help("With --only pair: put the lock rows' header (the generated pairs' and the Rust fast path's) this many bytes past the thread block modulo 4096, a multiple of 8 from 0 to 4088 (the table's notes give the lock-stack's offsets), to time the pair with its header load aliasing a store's 4 KiB offset or not"),
        )
        .arg(
            Arg::new("counter-offset")
                .long("counter-offset")
                .value_name("BYTES")
                .value_parser(value_parser!(u16).range(0..=MAX_OFFSET as i64))
                .help("With --only pair: put the lock rows' counter this many bytes past the thread block modulo 4096, a multiple of 8 from 0 to 4088"),
        )
        .arg(
            Arg::new("jvm")
                .long("jvm")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .help("Folder of peers/jvm's results holding jit.json (default fastpath-report/jvm, where `ONLY=jit peers/jvm/run.sh` writes)"),
        )
    }

    fn check(&self, matches: &ArgMatches, _quick: bool) -> Result<(), String> {
        let pair = matches
            .try_get_one::<String>("only")
            .ok()
            .flatten()
            .map(String::as_str)
            == Some("pair");
        for name in ["header-offset", "counter-offset"] {
            match matches.try_get_one::<u16>(name).ok().flatten() {
                Some(_) if !pair => {
                    return Err(format!(
                        "--{name} places the pair table's rows: it needs --only pair"
                    ))
                }
                Some(n) if n % 8 != 0 => {
                    return Err(format!(
                        "--{name} {n}: not a multiple of 8 (the header and the counter are words)"
                    ))
                }
                _ => {}
            }
        }
        // With --hotspot the folder is made (run.sh writes into it).
        let made_here = matches.try_get_one::<bool>("hotspot").ok().flatten() == Some(&true);
        match matches.try_get_one::<PathBuf>("jvm").ok().flatten() {
            Some(dir) if !made_here && !dir.is_dir() => Err(format!(
                "--jvm {}: not a folder (it holds peers/jvm's jit.json: {})",
                dir.display(),
                hotspot::HOW
            )),
            _ => Ok(()),
        }
    }

    fn perfnorm_region(&self, id: &str) -> Option<Region<'static>> {
        let (op, form) = id.split_once('/')?;
        region(op, form)?.ok()
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<Report> {
        let prof = ctx.profiler(self.name())?;
        let only = ctx.option::<String>("only");
        let mut s = ctx.settings();
        if let Some(i) = ctx.option::<u32>("iterations") {
            s.iterations = i as usize;
        }
        let dir = ctx
            .option::<PathBuf>("jvm")
            .unwrap_or_else(|| PathBuf::from(hotspot::DEFAULT_DIR));
        if ctx.option::<bool>("hotspot").unwrap_or(false) {
            hotspot::run_jitbench(&dir, ctx.quick)?;
        }
        let jvm = hotspot::HotSpot::read(&dir);
        let mut report = Report {
            tables: vec![],
            results: vec![],
            plots: vec![],
        };
        let mut counters = ProfileTable::new("JIT fast paths");
        code::SLOW_CALLS.store(0, Ordering::Relaxed);
        if only.as_deref() == Some("pair") {
            let place = pair::Placement {
                header: ctx.option::<u16>("header-offset"),
                counter: ctx.option::<u16>("counter-offset"),
            };
            report
                .tables
                .push(pair_table(ctx.quick, place, prof.as_ref(), &mut counters)?);
            if let Some(p) = prof {
                report.tables.push(counters.finish(&p));
            }
            return Ok(report);
        }
        for group in GROUPS {
            if only.as_deref().is_some_and(|o| o != group) {
                continue;
            }
            if group == "graph" {
                let (measured, results) = measure_graph(ctx.quick, prof.as_ref(), &mut counters)?;
                report.results.extend(results);
                report.tables.push(graph_table(&measured));
                continue;
            }
            if group == "locks" {
                let (measured, results) = measure_locks(ctx.quick, &s, &jvm, prof.as_ref(), &mut counters)?;
                report.results.extend(results);
                report.tables.push(table(group, &measured, &jvm));
                continue;
            }
            let rows: Vec<_> = ROWS.iter().filter(|r| r.0 == group).collect();
            let bar = progress(rows.len() as u64, &format!("jit {group}"));
            let mut measured = Vec::new();
            for &&(_, op, form) in &rows {
                bar.set_message(format!("{op} {form}"));
                let (row, result) = measure(op, form, &s, &jvm, prof.as_ref(), &mut counters);
                measured.push(row);
                report.results.extend(result);
                bar.inc(1);
            }
            bar.finish_and_clear();
            report.tables.push(if group == "graph" {
                graph_table(&measured)
            } else {
                table(group, &measured, &jvm)
            });
        }
        // Relaxed: written by this thread's loops only.
        let slow = code::SLOW_CALLS.load(Ordering::Relaxed);
        if let Some(t) = report.tables.last_mut() {
            t.note(format!(
                "slow paths of the poll and barrier loops taken: {slow} (0 expected: nothing armed the poll or started a GC cycle)"
            ));
        }
        if let Some(p) = prof {
            report.tables.push(counters.finish(&p));
        }
        Ok(report)
    }
}

/// The interleaved tables' plan: samples of 0.5 ms whatever the mode (a
/// short sample is mostly not preempted on a loaded machine, so the median
/// is the unpreempted cost; 10 ms samples there are mostly preempted), 60
/// rounds (`--quick`) or 200.
fn short_plan(quick: bool) -> crate::harness::interleave::Plan {
    let sample = std::time::Duration::from_micros(500);
    crate::harness::interleave::Plan {
        warmup_rounds: if quick { 5 } else { 10 },
        rounds: if quick { 60 } else { 200 },
        sample_time: sample,
        threaded_sample_time: sample,
    }
}

/// The lock table's rows, interleaved ([`measure_rows`]): every timed row
/// one short sample per round, in a fresh order each round, so the ratios
/// (against the CAS pair and parking_lot's pair) are of samples taken side
/// by side; HotSpot's rows are read (`measure`), and each timed row is
/// profiled afterwards if asked.
///
/// [`measure_rows`]: crate::harness::interleave::measure_rows
fn measure_locks(
    quick: bool,
    s: &Settings,
    jvm: &hotspot::HotSpot,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> anyhow::Result<(Vec<Row>, Vec<BenchResult>)> {
    use crate::harness::interleave::{measure_rows, row, Sampler};
    let plan = short_plan(quick);
    let rows: Vec<(&'static str, &'static str)> = ROWS
        .iter()
        .filter(|r| r.0 == "locks")
        .map(|r| (r.1, r.2))
        .collect();
    // The timed rows' samplers, and why the others have none.
    let mut timed = Vec::new();
    let mut samplers: Vec<Sampler<'_>> = Vec::new();
    let mut why: Vec<Option<String>> = Vec::new();
    for &(op, form) in &rows {
        if form == "hotspot-c2" {
            why.push(None);
            continue;
        }
        match region(op, form) {
            Some(Ok(mut r)) => {
                timed.push(why.len());
                why.push(None);
                samplers.push(row(move |n| (r.run)(n)));
            }
            Some(Err(e)) => why.push(Some(e)),
            None => why.push(Some("no loop for this row".into())),
        }
    }
    let stats = measure_rows(&plan, 0x10C5, &mut samplers).map_err(|e| anyhow::anyhow!(e))?;
    drop(samplers);
    let mut out = Vec::new();
    let mut results = Vec::new();
    for (i, &(op, form)) in rows.iter().enumerate() {
        if form == "hotspot-c2" {
            let (r, res) = measure(op, form, s, jvm, None, counters);
            out.push(r);
            results.extend(res);
            continue;
        }
        let Some(k) = timed.iter().position(|&t| t == i) else {
            let w = why[i].clone().unwrap_or_default();
            out.push(Row {
                op,
                form,
                ns: Err(w.clone()),
                insns: Err(w),
            });
            continue;
        };
        let (row, result) = timed_row(op, form, stats[k].clone(), prof, counters);
        out.push(row);
        results.push(result);
    }
    Ok((out, results))
}

/// A timed row of the interleaved tables, its result, and, if asked, its
/// loop profiled on this thread (instructions per operation from the
/// profile, its counters added to the result and to `counters`).
fn timed_row(
    op: &'static str,
    form: &'static str,
    stats: Stats,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> (Row, BenchResult) {
    let mut result = BenchResult::new(NAME, op, Mode::AverageTime, &stats, "ns/op").param("form", form);
    let mut insns = Err("-".to_string());
    if let Some(p) = prof {
        if let Some(Ok(r)) = region(op, form) {
            let profile = p.profile(&format!("{op}/{form}"), r);
            insns = match &profile.per_op {
                Ok(v) => v
                    .iter()
                    .find(|(n, _)| *n == "instructions")
                    .map(|(_, s)| s.mean)
                    .ok_or_else(|| "n/a".to_string()),
                Err(e) => Err(e.clone()),
            };
            result = profile.attach(result);
            counters.push(profile);
        }
    }
    let row = Row {
        op,
        form,
        ns: Ok(stats),
        insns,
    };
    (row, result)
}

/// The graph table's rows, interleaved ([`measure_rows`]): each set's
/// kernel on a thread of its own (a thread is the mutator of one heap at a
/// time), every round one short sample of each in a fresh order, so the
/// machine's load lands on every set alike; then each profiled, if asked,
/// on this thread.
///
/// [`measure_rows`]: crate::harness::interleave::measure_rows
fn measure_graph(
    quick: bool,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> anyhow::Result<(Vec<Row>, Vec<BenchResult>)> {
    use crate::harness::interleave::{batched, measure_rows, Plan, Sampler};
    use std::sync::mpsc;
    let plan = short_plan(quick);
    let sets: Vec<&'static str> = ROWS.iter().filter(|r| r.0 == "graph").map(|r| r.2).collect();
    let mut threads = Vec::new();
    let mut samplers: Vec<Sampler<'_>> = Vec::new();
    for &name in &sets {
        let set = *graph::SETS
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| anyhow::anyhow!("no graph set {name}"))?;
        let (ask, asked) = mpsc::channel::<Plan>();
        let (tell, told) = mpsc::channel::<Result<f64, String>>();
        threads.push(std::thread::spawn(move || {
            let mut k = match graph::Kernel::new(set) {
                Ok(k) => k,
                Err(e) => {
                    let _ = tell.send(Err(format!("{e:#}")));
                    return;
                }
            };
            let mut sample = batched(move |n| k.run(n));
            while let Ok(plan) = asked.recv() {
                if tell.send(Ok(sample(&plan))).is_err() {
                    return;
                }
            }
        }));
        samplers.push(Box::new(move |plan: &Plan| {
            ask.send(*plan)
                .map_err(|_| "the kernel's thread ended".to_string())?;
            told.recv().map_err(|_| "the kernel's thread ended".to_string())?
        }));
    }
    let stats = measure_rows(&plan, 0x6EA9, &mut samplers).map_err(|e| anyhow::anyhow!(e));
    drop(samplers);
    for t in threads {
        let _ = t.join();
    }
    let stats = stats?;
    let mut rows = Vec::new();
    let mut results = Vec::new();
    for (&form, stats) in sets.iter().zip(stats) {
        let (row, result) = timed_row("graph", form, stats, prof, counters);
        rows.push(row);
        results.push(result);
    }
    Ok((rows, results))
}

/// Times (or reads) one row, and profiles it if asked.
fn measure(
    op: &'static str,
    form: &'static str,
    s: &Settings,
    jvm: &hotspot::HotSpot,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> (Row, Option<BenchResult>) {
    if form == "hotspot-c2" {
        let Some((method, gc)) = hotspot::method_of(op) else {
            let why = format!("not run: {}", hotspot::why_none(op));
            return (
                Row {
                    op,
                    form,
                    ns: Err(why.clone()),
                    insns: Err(why),
                },
                None,
            );
        };
        return match jvm.row(method, gc) {
            Ok(r) => {
                let m = &r.primary_metric;
                // The median of JMH's iterations where it wrote them
                // (`--hotspot`'s short ones: the lab's own statistic),
                // else the mean.
                let median = m.score_percentiles.get("50.0").copied().unwrap_or(m.score);
                let stats = Stats {
                    mean: m.score,
                    error: m.score_error,
                    median,
                    ..Stats::from_samples(vec![median])
                };
                let insns = r
                    .secondary_metrics
                    .get("instructions")
                    .map(|m| m.score)
                    .ok_or_else(|| "n/a (JMH ran without -prof perfnorm: no PMU here)".to_string());
                (
                    Row {
                        op,
                        form,
                        ns: Ok(stats),
                        insns,
                    },
                    None,
                )
            }
            Err(why) => (
                Row {
                    op,
                    form,
                    ns: Err(why.clone()),
                    insns: Err("-".into()),
                },
                None,
            ),
        };
    }
    let mut region = match region(op, form) {
        Some(Ok(r)) => r,
        other => {
            let why = match other {
                Some(Err(why)) => why,
                _ => "no loop for this row".to_string(),
            };
            return (
                Row {
                    op,
                    form,
                    ns: Err(why.clone()),
                    insns: Err(why),
                },
                None,
            );
        }
    };
    let stats = measure_ns_per_op(s, |n| (region.run)(n));
    // The profiled run builds its own region: this one (its heap and
    // mutator, its code) goes first, as a thread has one mutator at a time.
    drop(region);
    let mut result = BenchResult::new(NAME, op, Mode::AverageTime, &stats, "ns/op").param("form", form);
    let mut insns = Err("-".to_string());
    if let Some(p) = prof {
        let profile: Profile = match self::region(op, form) {
            Some(Ok(r)) => p.profile(&format!("{op}/{form}"), r),
            _ => Profile {
                id: format!("{op}/{form}"),
                per_op: Err("no region".into()),
                source: p.source().ok(),
                ops: 0,
                multiplexed: false,
            },
        };
        insns = match &profile.per_op {
            Ok(v) => v
                .iter()
                .find(|(n, _)| *n == "instructions")
                .map(|(_, s)| s.mean)
                .ok_or_else(|| "n/a".to_string()),
            Err(e) => Err(e.clone()),
        };
        result = profile.attach(result);
        counters.push(profile);
    }
    (
        Row {
            op,
            form,
            ns: Ok(stats),
            insns,
        },
        Some(result),
    )
}

/// The table of `group`: ns/op, instructions/op, and the ratio against the
/// baseline of the same form (the CAS pair; the empty loop; the access
/// without a barrier), plus the goals.
fn table(group: &str, rows: &[Row], jvm: &hotspot::HotSpot) -> Table {
    let title = match group {
        "locks" => "JIT-inlined lock + unlock pairs (seed 001's shapes), ns/op; ratio against the CAS pair of the same form",
        "poll" => "Safepoint poll per loop trip, ns/op; ratio against the empty generated loop",
        _ => "Barriers idle (passive mode) per access, ns/op; ratio against the same access without a barrier, same form",
    };
    let locks = group == "locks";
    let mut headers = vec!["operation", "form", "ns/op", "median", "instr/op", "ratio"];
    if locks {
        headers.push("× parking-lot");
    }
    headers.push("note");
    let mut t = Table::new(title, &headers);
    let find = |op: &str, form: &str| {
        rows.iter()
            .find(|r| r.op == op && r.form == form)
            .and_then(|r| r.ns.as_ref().ok())
            .map(|s| s.median)
    };
    let base_of = |r: &Row| -> Option<f64> {
        let form = if r.form == "rust-synchronized" {
            "rust"
        } else {
            r.form
        };
        match group {
            "locks" => find(
                "cas-pair",
                if matches!(form, "template" | "template-guessing" | "cranelift") {
                    "rust"
                } else {
                    form
                },
            ),
            "poll" => find("empty-loop", "template"),
            _ => match r.op {
                "store" | "satb-store" | "card-store" => {
                    find("store", if form == "cranelift" { "template" } else { form })
                }
                _ => find("load", if form == "cranelift" { "template" } else { form }),
            },
        }
    };
    let pl = find("parking-lot", "rust");
    for r in rows {
        let (ns, median) = match &r.ns {
            Ok(s) => (score(s.mean, s.error), num(s.median)),
            Err(_) => ("-".into(), "-".into()),
        };
        let insns = match &r.insns {
            Ok(v) => num(*v),
            Err(_) => "-".into(),
        };
        let m = r.ns.as_ref().ok().map(|s| s.median);
        let rat = match (m, base_of(r)) {
            (Some(v), Some(b)) => ratio(v, b),
            _ => "-".into(),
        };
        let to_pl = match (m, pl) {
            (Some(v), Some(p)) if r.form != "hotspot-c2" => ratio(v, p),
            _ => "-".into(),
        };
        let note = match (&r.ns, &r.insns) {
            (Err(why), _) => why.clone(),
            (Ok(_), Err(why)) if why != "-" && r.form != "hotspot-c2" => why.clone(),
            _ => String::new(),
        };
        let mut cells = vec![r.op.to_string(), r.form.to_string(), ns, median, insns, rat];
        if locks {
            cells.push(to_pl);
        }
        cells.push(note);
        t.row(cells);
    }
    if rows
        .iter()
        .any(|r| r.form == "hotspot-c2" && r.ns.is_ok() && r.insns.is_err())
    {
        t.note("hotspot-c2 instr/op: only where JMH ran with -prof perfnorm (hardware counters; none on this machine)");
    }
    match group {
        "locks" => {
            let tpl = find("uncontended", "template");
            let guessing = find("uncontended", "template-guessing");
            let c2 = find("uncontended", "hotspot-c2");
            let mut verdicts = Vec::new();
            let mut judged = true;
            if let (Some(v), Some(g), Some(p)) = (tpl, guessing, pl) {
                // The goal is met by an inlined pair a JIT can emit: the
                // guessing one where it knows the class's neutral header.
                let (x, y) = (v / p, g / p);
                verdicts.push((
                    x.min(y) <= 1.05,
                    format!("inlined pair {x:.2}× parking_lot's, guessing {y:.2}× (goal ≤ 1.05×)"),
                ));
            }
            match (tpl, c2) {
                (Some(v), Some(c)) => {
                    let x = v / c;
                    verdicts.push((x <= 1.0, format!("{x:.2}× HotSpot C2's (goal ≤ 1.00×)")));
                }
                _ => judged = false,
            }
            if !verdicts.is_empty() {
                let pass = verdicts.iter().all(|v| v.0);
                let text: Vec<String> = verdicts.into_iter().map(|v| v.1).collect();
                t.note(format!(
                    "{}: uncontended {}",
                    if pass { "PASS" } else { "FAIL" },
                    text.join("; ")
                ));
            }
            if !judged {
                t.note(format!(
                    "the goal against HotSpot C2 is not judged: {}",
                    jvm.missing().unwrap_or("its uncontended row is missing")
                ));
            }
            t.note("measured interleaved: every timed row one short sample per round, in a fresh order each round; ns/op's median column is the ratios'");
            t.note("template: fastpath-jit's LockEnter and LockExit::emit_expecting(mark) (the exit's expected header word from enter's mark register, as a JIT emits a call-free synchronized block; the plain exit, which loads the header, is `--only pair`'s `template` row) inlined around `add qword [counter], 1` in a dynasm loop; rust: sync::enter_on/exit_on (the thread block passed in) around the same increment; rust-synchronized: Synchronized<u64>::lock; ratio: against cas-pair/rust for template and rust rows, against HotSpot's own casPair for hotspot-c2");
            t.note("template-guessing: LockEnter::emit_guessing(the fresh header's word) + LockExit::emit_expecting(mark), `--only pair`'s loop of that name: no load of the header between the pair's locked CASes, where a JIT knows the class's neutral header (a wrong guess costs a failed CAS and takes the loaded path)");
            t.note("recursive: the object held from Rust around the loop (the lock-stack's top entry), each pair a recursive enter/exit; churn: the template and cranelift loops write a fresh header into a stack slot per pair, HotSpot's allocates an Object (JitBench runs with -XX:-EliminateLocks so every pair is real)");
            t.note("cranelift: the template's loop as CLIF, fastpath-cranelift's lock_enter/lock_exit around a load, add and store of the counter (compiled to the same `add qword [counter], 1`), their slow paths fastpath_jit::slow::monitor_enter/monitor_exit in cold blocks; ratio against cas-pair/rust; churn's fresh header is a 16-byte explicit stack slot the prototype word is copied into per pair, as the template's [rsp] slot; its extra instructions per pair over the template's are Cranelift's loop control (7 per trip against `dec; jnz`: the count in a callee-saved register, block-parameter copies, `test; je` and a `jmp` back), register copies around each `lock cmpxchg`, the exit's 1<<63 ORed from the constant pool and its zero status materialised");
        }
        "poll" => {
            t.note("each trip of every generated loop is its body plus `dec rcx; jnz`: the empty loop's instr/op is that overhead (2) and the poll adds the template's `test byte [thread+poll], 1; jnz`; cranelift's form loads the byte into a register first (one more)");
            t.note("rust: gc::Mutator::safepoint_poll inlined into a Rust loop (its heap's flag, not the thread block's)");
        }
        _ => {
            t.note("template: the access and fastpath-jit's barrier in a dynasm loop on an object of the lab's (forwarding word, header, reference field, data word); card-store embeds the biased card-table base as an immediate, as HotSpot embeds the byte map base; load reads a data word through the loaded reference, as JitBench's refLoad");
            t.note("rust: a call of fastpath::gc::probe's #[inline(never)] bare access on a passive-mode heap with that one barrier (the store's reference is the object itself); hotspot-c2: JitBench refStore/refLoad over 1024 array elements under Epsilon (no barrier), Serial (card), Shenandoah passive + SATB or + LoadRef, with -XX:-UseCompressedOops -XX:-UseSuperWord");
            t.note("scope: per-access fast paths; the graph workload as JIT code is the next table (`--only graph`); seed 003's XML validation is not generated as machine code (a parser and validator, not a kernel a template set covers): its C2 form is peers/jvm's XmlValidationBench, its Rust form `fastpath gc --only passive`");
        }
    }
    if let (Some(w), "locks") = (jvm.written, group) {
        if let Ok(age) = w.elapsed() {
            t.note(format!(
                "hotspot-c2 rows: {} (written {:.1} h before this run; `--hotspot` times the lock shapes in this invocation, 2 ms JMH iterations summarised by their median; run.sh's are 1 s iterations' mean, which on a loaded machine carries the preemptions)",
                jvm.path.display(),
                age.as_secs_f64() / 3600.0
            ));
        }
    }
    t
}

/// Seed 003's table of JIT code: the graph kernel per barrier set, its
/// cost against the set without barriers, and the extra instructions per
/// barrier execution.
fn graph_table(rows: &[Row]) -> Table {
    let mut t = Table::new(
        "The graph workload as JIT code, barriers idle (passive mode), ns/op; ratio against no barriers",
        &[
            "barriers",
            "ns/op",
            "median",
            "ratio",
            "instr/op",
            "executions/op",
            "Δinstr/execution",
        ],
    );
    let none = rows.iter().find(|r| r.form == "none");
    let base_ns = none.and_then(|r| r.ns.as_ref().ok()).map(|s| s.median);
    let base_insns = none.and_then(|r| r.insns.as_ref().ok()).copied();
    for r in rows {
        let set = graph::SETS.iter().find(|s| s.name == r.form);
        let executions = set.map_or(0.0, graph::Set::executions);
        let (ns, median, rat) = match &r.ns {
            Ok(s) => (
                score(s.mean, s.error),
                num(s.median),
                base_ns.map_or("-".into(), |b| ratio(s.median, b)),
            ),
            Err(why) => (why.clone(), "-".into(), "-".into()),
        };
        let insns = r.insns.as_ref().ok().copied();
        let delta = match (insns, base_insns) {
            (Some(i), Some(b)) if executions > 0.0 => num((i - b) / executions),
            _ => "-".into(),
        };
        t.row(vec![
            r.form.into(),
            ns,
            median,
            rat,
            insns.map_or("-".into(), num),
            num(executions),
            delta,
        ]);
    }
    t.note("measured interleaved: each set's kernel on a thread of its own, one short sample of every set per round in a fresh order; ratio: of the medians");
    t.note("one operation: the gc experiment's graph rewire (2 node loads from the array, an edge swap, a CAS of the next edge, a visit count) generated with dynasm, fastpath-jit's templates inlined at each guarded access, over a 1000-node graph allocated in a fastpath Heap in passive mode with the row's barrier set (its mutator on the measuring thread: the thread block's GC state idle, the heap's card table and object layout)");
    t.note("executions/op: LRB after each of the 5 reference loads; SATB before and the card mark after each of the 2 stores and the CAS; card and card-cond mark the object's card (HotSpot's imprecise mark; the heap's biased card base an immediate) through a copy of its address (`mov rbx, obj`, one instruction more than the template); g1-card and g1 run G1's filtered card template on the field (`lea rbx, field`, one instruction more; the base from the thread block): same-region and null stores stop at its filters, a cross-region store into a clean card takes the stub to the library's slow path (StoreLoad fence, dirty, enqueue) once per card, after which the card stays dirty (no collection runs) and the store ends at the card test; brooks-rb resolves the 2 objects accessed once each (as C2 hoists it); brooks-wb and shenandoah-2017 resolve them through the Brooks write barrier instead (state test and forwarding load; both objects are written, and C2 drops a read barrier a write barrier dominates); cas: the CAS template's success path (`je done` after the lock cmpxchg) instead of the bare CAS");
    t.note("Δinstr/execution needs --prof perfnorm (instructions counted by Callgrind); the seed's reading: instructions grow by the fast path's length per execution, the rest is the machine's");
    t.note("the Rust form of this workload, on the fastpath heap: `fastpath gc --only passive`; C2's form: peers/jvm's XmlValidationBench (run.sh ONLY=xml)");
    t
}

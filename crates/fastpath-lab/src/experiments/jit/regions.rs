//! Every timed row of `fastpath jit` as a measured loop (a perfnorm
//! [`Region`], id `<op>/<form>`): the generated loops on their fixtures,
//! the pair table's loops, the graph kernels and the Rust calls.
//!
//! Where it sits: the tables time these loops interleaved (or one at a
//! time), `--prof perfnorm` counts them, and its Valgrind child re-runs one
//! by id ([`crate::experiment::Experiment::perfnorm_region`]).

use std::sync::atomic::AtomicUsize;

use fastpath::gc::{probe, Barrier};
use fastpath::sync::{self, Header, Synchronized};

use super::code::Body;
use super::fixture::Fixture;
use super::pair::{PairFixture, Placement, VARIANTS};
use super::{clif, graph, rust};
use crate::harness::baseline::cas_pair;
use crate::harness::black_box;
use crate::harness::perfnorm::Region;

/// The generated loop's body of operation `op`.
pub(super) fn body_of(op: &str) -> Option<Body> {
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
pub(super) fn region(op: &str, form: &str) -> Option<Result<Region<'static>, String>> {
    let err = |e: anyhow::Error| Some(Err(format!("{e:#}")));
    let r = |run: Box<dyn FnMut(u64)>| Some(Ok(Region::new(super::PROFILED_OPS, run)));
    if op == "pair" {
        let v = VARIANTS.iter().find(|v| v.name == form)?;
        return match PairFixture::new(v, Placement::default()) {
            Ok(mut f) => r(Box::new(move |n| f.run(n))),
            Err(e) => err(e),
        };
    }
    if (op, form) == ("uncontended", "template-guessing") {
        // The same loop as `--only pair`'s row of that name.
        let v = VARIANTS.iter().find(|v| v.name == form)?;
        return match PairFixture::new(v, Placement::default()) {
            Ok(mut f) => r(Box::new(move |n| f.run(n))),
            Err(e) => err(e),
        };
    }
    if (op, form) == ("uncontended", "cranelift-guessing") {
        return match Fixture::cranelift_guessing() {
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
    let ok = |run: Box<dyn FnMut(u64)>| Some(Ok(Region::new(super::PROFILED_OPS, run)));
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
            ok(Box::new(move |n| cas_pair(&word, n, || *black_box(&mut c) += 1)))
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

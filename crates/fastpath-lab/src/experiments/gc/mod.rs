//! `fastpath gc`: seed 003 (Shipilev, "Shenandoah WB fastpath and
//! optimizations", shenandoah-dev, Dec 2017), on `fastpath::gc`.
//!
//! Where it sits: drives the `fastpath::gc` library. One file per table:
//!
//! 1. [`passive`]: *throughput per barrier set in passive mode* (the seed's
//!    setting: the barriers run, no cycle ever reaches a slow path) on two
//!    workloads ([`workloads`]: a reference-heavy XML-validation shape and a
//!    store-heavy graph rewire), in ops/min and as a change against the
//!    `none` set of the same run. With `--prof perfnorm`, the counters per
//!    operation of every row, then the seed's analysis per barrier
//!    execution ([`per_execution`]).
//! 2. [`fast_paths`]: *fast-path instructions from the disassembly* of this
//!    very binary (`objdump -d`), probe by probe ([`fastpath::gc::probe`]),
//!    beside HotSpot's counts. `--check` fails if a count grows past its
//!    limit.
//! 3. [`pauses`]: *concurrent mode*: mutators on a heap kept half live, the
//!    collector running; throughput and p50/p99/max of every pause, per
//!    barrier set concurrent mode accepts.
//! 4. [`access`]: *the mutator's cost per access* with no GC running,
//!    checked API beside the unchecked one (HotSpot's: `GcAccess.java`).

pub mod access;
pub mod fast_paths;
pub mod passive;
pub mod pauses;
pub mod per_execution;
pub mod workloads;

use clap::{Arg, ArgAction, Command as ClapCommand};

use crate::experiment::{Context, Experiment};
use crate::harness::perfnorm::Region;
use crate::report::Report;

/// The experiment.
pub struct Gc;

impl Experiment for Gc {
    fn name(&self) -> &'static str {
        "gc"
    }

    fn about(&self) -> &'static str {
        "GC barrier sets (seed 003): passive throughput per set, fast-path instructions, concurrent pauses"
    }

    fn args(&self, cmd: ClapCommand) -> ClapCommand {
        cmd.arg(
            Arg::new("only")
                .long("only")
                .value_parser(["throughput", "fast-paths", "pauses", "access"])
                .help("Run one table only (throughput: the passive tables)"),
        )
        .arg(
            Arg::new("sets")
                .long("sets")
                .value_delimiter(',')
                .value_parser(clap::builder::PossibleValuesParser::new(passive::SETS))
                .help(
                    "Barrier sets of the passive tables (default: all; `none`, the baseline, is always run)",
                ),
        )
        .arg(
            Arg::new("rounds")
                .long("rounds")
                .value_parser(ranged(1, 10_000))
                .help("Measured rounds of the passive tables, 1 to 10000 (default 15, quick 5)"),
        )
        .arg(
            Arg::new("check")
                .long("check")
                .action(ArgAction::SetTrue)
                .help("Fail if a fast path exceeds its instruction limit"),
        )
        .arg(
            Arg::new("heap-mib")
                .long("heap-mib")
                .value_parser(ranged(MIN_HEAP_MIB, 65_536))
                .help("Heap size of the pause table in MiB, 16 to 65536, at least 4 per mutator (default 256, quick 32)"),
        )
        .arg(
            Arg::new("mutators")
                .long("mutators")
                .value_parser(ranged(1, 256))
                .help("Mutator threads of the pause table, 1 to 256, each with 4 MiB of heap (default 4; quick: at most the CPUs)"),
        )
        .arg(
            Arg::new("seconds")
                .long("seconds")
                .value_parser(clap::builder::RangedI64ValueParser::<u64>::new().range(1..=3600))
                .help("Seconds of churn per row of the pause table, 1 to 3600 (default 10, quick 1)"),
        )
        .arg(
            Arg::new("waits")
                .long("waits")
                .value_delimiter(',')
                .value_parser(clap::builder::PossibleValuesParser::new(
                    pauses::WAITS.iter().map(|w| w.0),
                ))
                .help("Pause table: how stopped mutators wait for the release, each a row (default futex)"),
        )
        .arg(
            Arg::new("pacing")
                .long("pacing")
                .value_delimiter(',')
                .value_parser(["on", "off"])
                .help("Pause table: allocation pacing, each a row (default on)"),
        )
        .arg(
            Arg::new("assists")
                .long("assists")
                .value_delimiter(',')
                .value_parser(["on", "off"])
                .help("Pause table: mutator assists (with pacing), each a row (default off, as HeapConfig's)"),
        )
    }

    fn perfnorm_region(&self, id: &str) -> Option<Region<'static>> {
        passive::region(id).or_else(|| access::region(id))
    }

    fn check(&self, m: &clap::ArgMatches, quick: bool) -> Result<(), String> {
        let heap = m.try_get_one::<usize>("heap-mib").ok().flatten().copied();
        let mutators = m.try_get_one::<usize>("mutators").ok().flatten().copied();
        check_pause_sizes(heap, mutators, quick)
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<()> {
        let only: Option<String> = ctx.option("only");
        let check = ctx.option::<bool>("check").unwrap_or(false);
        let prof = ctx.profiler(self.name())?;
        let want = |t: &str| only.as_deref().is_none_or(|o| o == t);
        // Each table (or group of tables) is kept as soon as it is measured.
        let keep = |tables: Vec<crate::report::Table>, results: Vec<crate::report::BenchResult>| {
            ctx.keep(Report {
                tables,
                results,
                plots: Vec::new(),
            })
        };
        let mut counts = fast_paths::Counts::new();
        // The per-execution table needs the fast-path counts too.
        if want("fast-paths") || (want("throughput") && prof.is_some()) {
            let (t, c) = fast_paths::fast_paths(check)?;
            counts = c;
            if want("fast-paths") {
                keep(vec![t], Vec::new())?;
            }
        }
        if want("throughput") {
            let plan = passive::Plan {
                rounds: ctx
                    .option("rounds")
                    .unwrap_or(if ctx.quick { 5 } else { 15 })
                    .max(1),
                sets: sets(
                    ctx.matches
                        .try_get_many::<String>("sets")
                        .ok()
                        .flatten()
                        .map(|v| v.cloned().collect()),
                ),
            };
            let mut results = Vec::new();
            let t = passive::run(&plan, ctx.quick, prof.as_ref(), &counts, &mut results)?;
            keep(t, results)?;
        }
        if want("pauses") {
            let list = |id: &str| -> Option<Vec<String>> {
                ctx.matches
                    .try_get_many::<String>(id)
                    .ok()
                    .flatten()
                    .map(|v| v.cloned().collect())
            };
            let asked = list("sets");
            let waits = list("waits").unwrap_or_else(|| vec!["futex".into()]);
            let pacing = list("pacing").unwrap_or_else(|| vec!["on".into()]);
            let assists = list("assists").unwrap_or_else(|| vec!["off".into()]);
            let combos: Vec<(bool, bool)> = pacing
                .iter()
                .flat_map(|p| assists.iter().map(move |a| (p == "on", a == "on")))
                .collect();
            let plan = pauses::Plan {
                baseline: true,
                heap_mib: ctx.option("heap-mib"),
                mutators: ctx.option("mutators"),
                seconds: ctx.option("seconds"),
                sets: pauses::SETS
                    .iter()
                    .filter(|s| asked.as_ref().is_none_or(|a| a.iter().any(|x| x == *s)))
                    .map(|s| s.to_string())
                    .collect(),
                variants: combos
                    .iter()
                    .flat_map(|&(pacing, assists)| {
                        waits.iter().map(move |w| pauses::Variant {
                            wait: pauses::WAITS
                                .iter()
                                .find(|(n, _)| n == w)
                                .expect("clap checked")
                                .1,
                            pacing,
                            assists,
                        })
                    })
                    .collect(),
            };
            let mut results = Vec::new();
            let t = pauses::pauses(ctx.quick, &plan, &mut results)?;
            keep(t, results)?;
        }
        if want("access") {
            let mut results = Vec::new();
            let t = access::access(ctx.quick, prof.as_ref(), &mut results)?;
            keep(t, results)?;
        }
        Ok(())
    }
}

/// The smallest `--heap-mib`: the smallest heap the pause table is tested
/// with.
const MIN_HEAP_MIB: usize = 16;
/// Heap per mutator of the pause table: each builds its share of a live set
/// that fills half the heap, in 4000-node chunks, through its own TLAB; with
/// less than this, building the live set runs the heap out of memory.
const MIB_PER_MUTATOR: usize = 4;

/// A `usize` option's parser with its range, which clap prints on refusal
/// (a negative number too: it is parsed as an `i64` first).
fn ranged(lo: usize, hi: usize) -> clap::builder::RangedI64ValueParser<usize> {
    clap::builder::RangedI64ValueParser::<usize>::new().range(lo as i64..=hi as i64)
}

/// `--heap-mib` and `--mutators` together, the other at its default where
/// not given (the defaults the pause table uses: heap 256 MiB, quick 32;
/// 4 mutators, quick at most the CPUs).
pub fn check_pause_sizes(
    heap_mib: Option<usize>,
    mutators: Option<usize>,
    quick: bool,
) -> Result<(), String> {
    if heap_mib.is_none() && mutators.is_none() {
        return Ok(());
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let heap = heap_mib.unwrap_or(if quick { 32 } else { 256 });
    let n = mutators.unwrap_or(if quick { cpus.min(4) } else { 4 });
    if heap < n * MIB_PER_MUTATOR {
        return Err(format!(
            "the pause table needs {MIB_PER_MUTATOR} MiB of heap per mutator: {n} mutators need --heap-mib {} or more, the heap is {heap} MiB{}; or use --mutators {} or fewer",
            n * MIB_PER_MUTATOR,
            if heap_mib.is_none() { " (the default)" } else { "" },
            (heap / MIB_PER_MUTATOR).max(1)
        ));
    }
    Ok(())
}

/// The passive tables' sets: those asked for (all by default), `none`
/// first and once, in [`passive::SETS`] order.
pub fn sets(asked: Option<Vec<String>>) -> Vec<String> {
    passive::SETS
        .iter()
        .filter(|s| **s == "none" || asked.as_ref().is_none_or(|a| a.iter().any(|x| x == *s)))
        .map(|s| s.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_keep_none_first_and_follow_the_table() {
        assert_eq!(sets(None).len(), passive::SETS.len());
        assert_eq!(
            sets(Some(vec!["lrb".into(), "satb".into()])),
            vec!["none", "satb", "lrb"]
        );
        assert_eq!(sets(Some(vec!["none".into()])), vec!["none"]);
    }

    #[test]
    fn every_row_has_a_region_and_runs() {
        for w in workloads::Workload::ALL {
            for set in passive::SETS {
                let id = format!("passive/{}/{set}", w.name());
                let mut r = passive::region(&id).unwrap_or_else(|| panic!("{id}"));
                (r.run)(2);
            }
        }
        assert!(passive::region("passive/xml/nonsense").is_none());
        assert!(passive::region("pauses/xml/none").is_none());
    }
}

//! `fastpath compare BASELINE CHANGE`: the subcommand, and pairing two
//! folders of result files by name; the comparison itself is
//! [`report::compare`].

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};

use crate::outln;
use crate::report;

/// The `compare` subcommand.
pub fn command() -> Command {
    Command::new("compare")
        .about("Compare two JMH-format result files: baseline, change and % per row")
        .after_help(
            "A result file is what `fastpath <experiment> --out DIR` writes \
                 (DIR/<experiment>.json) or what JMH writes with -rf json (peers/jvm/run.sh). \
                 Exits 1 when no row pairs.\n\n\
                 Whole-run shifts: a process can run faster or slower as a whole (the CAS \
                 pair 18% faster than in the run before, most rows with it), which no \
                 interval from inside a run sees. A row measured against a baseline row of \
                 its own run (a `ratio_to_<row>` metric: the lock pairs table's rows against \
                 cas-pair) is judged on its own figures (`%`) and on its ratio to that row \
                 (`ratio %`: the median of the per-round ratios of the two rows' samples, \
                 taken side by side, with its 99.9% interval), and has moved only when both \
                 moved, the same way: a shift that moves the row with its baseline leaves the \
                 ratio, one that passes the row by leaves its figure, a change of the row \
                 moves both. A header line above the table gives the baseline row's change \
                 (`whole-run shift: baseline row cas-pair +16.1% …`), and the baseline row \
                 says `reference`. Rows with no baseline row in their run (other tables, JMH \
                 files) are judged on their own figures, `ratio %` `-`, and the header counts \
                 them. --raw judges every row on its own figures alone.",
        )
        .arg(
            Arg::new("baseline")
                .required(true)
                .value_name("BASELINE.json")
                .help("The reference run (its unit is the table's)")
                .value_parser(value_parser!(PathBuf)),
        )
        .arg(
            Arg::new("change")
                .required(true)
                .value_name("CHANGE.json")
                .help("The run compared against it")
                .value_parser(value_parser!(PathBuf)),
        )
        .arg(
            Arg::new("by-workload")
                .long("by-workload")
                .action(ArgAction::SetTrue)
                .help(
                    "Pair rows by workload name and threads, e.g. a fastpath run against \
                         its HotSpot peer from peers/jvm (casPair = cas-pair, onSpinWait = \
                         latency, lruGetPut = lru); parameters pair only where both rows have \
                         them, and units of one kind are converted (ops/us to ops/s)",
                ),
        )
        .arg(Arg::new("raw").long("raw").action(ArgAction::SetTrue).help(
            "Judge every row on its own figures, also rows that have a baseline \
                         row in their run, so that a shift of the whole run moves them (the \
                         header still states the shift)",
        ))
        .arg(
            Arg::new("min-change")
                .long("min-change")
                .value_name("PCT")
                .value_parser(parse_min_change)
                .default_value("10")
                .help(
                    "The least change, in % of the baseline (0 to 1000), for a row to \
                         count as moved; it must also leave both 99.9% intervals. Two runs of \
                         one build differ by several % on a shared machine: the default 10 \
                         keeps them `same` and still reports a 20% regression",
                ),
        )
}

/// The `*.json` files directly in `dir`, by file name.
fn json_files(dir: &Path) -> anyhow::Result<std::collections::BTreeMap<String, PathBuf>> {
    let mut files = std::collections::BTreeMap::new();
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry
            .with_context(|| format!("reading {}", dir.display()))?
            .path();
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
                files.insert(name.to_string(), path.clone());
            }
        }
    }
    Ok(files)
}

/// `--min-change`: a percentage from 0 to 1000.
fn parse_min_change(v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(x) if (0.0..=1000.0).contains(&x) => Ok(x),
        _ => Err(format!("{v:?} is not a percentage from 0 to 1000")),
    }
}

/// `fastpath compare BASELINE CHANGE`: two result files, or two folders
/// (what `--out` or `all` wrote), whose `*.json` files are paired by name
/// and compared one pair at a time. Fails when nothing pairs.
pub fn run_compare(m: &ArgMatches) -> anyhow::Result<()> {
    let a = m.get_one::<PathBuf>("baseline").expect("required");
    let b = m.get_one::<PathBuf>("change").expect("required");
    let by = if m.get_flag("by-workload") {
        report::compare::MatchBy::Workload
    } else {
        report::compare::MatchBy::Exact
    };
    let pairs: Vec<(String, PathBuf, PathBuf)> = match (a.is_dir(), b.is_dir()) {
        (false, false) => vec![(String::new(), a.clone(), b.clone())],
        (true, true) => {
            let (fa, fb) = (json_files(a)?, json_files(b)?);
            let only_a: Vec<&str> = fa
                .keys()
                .filter(|n| !fb.contains_key(*n))
                .map(String::as_str)
                .collect();
            let only_b: Vec<&str> = fb
                .keys()
                .filter(|n| !fa.contains_key(*n))
                .map(String::as_str)
                .collect();
            for (dir, only) in [(a, only_a), (b, only_b)] {
                if !only.is_empty() {
                    eprintln!(
                        "fastpath: compare: only in {}: {}",
                        dir.display(),
                        only.join(", ")
                    );
                }
            }
            let both: Vec<_> = fa
                .iter()
                .filter_map(|(n, pa)| fb.get(n).map(|pb| (n.clone(), pa.clone(), pb.clone())))
                .collect();
            anyhow::ensure!(
                !both.is_empty(),
                "{} and {} have no JSON result file of the same name",
                a.display(),
                b.display()
            );
            both
        }
        _ => anyhow::bail!(
            "compare takes two files or two folders; {} is a folder and {} is not",
            if a.is_dir() { a.display() } else { b.display() },
            if a.is_dir() { b.display() } else { a.display() }
        ),
    };
    let mut compared = 0;
    let mut told = std::collections::BTreeSet::new();
    for (name, pa, pb) in &pairs {
        let (ra, rb) = (report::jmh::read_results(pa)?, report::jmh::read_results(pb)?);
        let run = |r: &[report::BenchResult]| r.iter().find_map(|x| x.run.clone());
        if let (Some(x), Some(y)) = (run(&ra), run(&rb)) {
            let d = x.differences(&y);
            if !d.is_empty() && told.insert(d.clone()) {
                eprintln!(
                    "fastpath: compare: warning: the two runs differ in more than the change: {} (baseline run {}, change run {})",
                    d.join("; "),
                    x.date,
                    y.date
                );
            }
        }
        let rule = report::compare::Rule {
            min_change_percent: *m.get_one::<f64>("min-change").expect("has a default"),
            raw: m.get_flag("raw"),
        };
        let c = report::compare::pair_with(&ra, &rb, by, &rule);
        // A pair of files with no row in common prints no table: only
        // the warnings, which name the rows.
        if c.compared + c.incompatible_units > 0 {
            if !name.is_empty() {
                outln!("== {name} ==");
            }
            for line in c.header() {
                outln!("{line}");
            }
            outln!("{}", c.table.to_text());
        }
        let label = if name.is_empty() {
            String::new()
        } else {
            format!("{name}: ")
        };
        for w in c.warnings() {
            eprintln!("fastpath: compare: {label}{w}");
        }
        compared += c.compared;
    }
    anyhow::ensure!(compared > 0, "nothing to compare");
    Ok(())
}

//! HotSpot C2's column of `fastpath jit`: the rows of peers/jvm's
//! `JitBench`, read from the JMH JSON that `peers/jvm/run.sh` writes
//! (`ONLY=jit`: `<dir>/jit.json`), as `fastpath compare` reads the other
//! peers' files.
//!
//! Where it sits: [`super`] asks for each operation's row; a missing file
//! or row is a "not run" row that says how to run it, never a number.

use std::path::{Path, PathBuf};

use crate::report::BenchResult;

/// Where run.sh writes by default (its `OUT`, from the repository root).
pub const DEFAULT_DIR: &str = "fastpath-report/jvm";

/// The file JitBench's rows are merged into.
pub const FILE: &str = "jit.json";

/// How to produce the file.
pub const HOW: &str =
    "`fastpath jit --hotspot` (the lock shapes, in this invocation) or cd peers/jvm && ONLY=jit ./run.sh (every shape; writes fastpath-report/jvm/jit.json; --jvm DIR reads another folder)";

/// The file `--hotspot` writes: JitBench's lock shapes, timed in the
/// lab's way (many short iterations, their median).
pub const LOCKS_FILE: &str = "jit-locks.json";

/// `peers/jvm`, from the source tree this binary was built from (else from
/// the working directory, for a binary moved elsewhere).
fn peers_dir() -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../peers/jvm");
    if built.join("pom.xml").is_file() {
        built
    } else {
        PathBuf::from("peers/jvm")
    }
}

/// The JDK to run: `JAVA_HOME`, else the newest 21–25 under /usr/lib/jvm
/// (by its `release` file), as run.sh picks it.
fn java_home() -> anyhow::Result<PathBuf> {
    if let Some(h) = std::env::var_os("JAVA_HOME") {
        return Ok(PathBuf::from(h));
    }
    let major = |d: &Path| -> Option<u32> {
        let text = std::fs::read_to_string(d.join("release")).ok()?;
        let v = text.lines().find_map(|l| l.strip_prefix("JAVA_VERSION=\""))?;
        v.split(['.', '"']).next()?.parse().ok()
    };
    let mut best: Option<(u32, PathBuf)> = None;
    for e in std::fs::read_dir("/usr/lib/jvm").into_iter().flatten().flatten() {
        let d = e.path();
        if let Some(m) = major(&d).filter(|m| (21..=25).contains(m)) {
            if d.join("bin/java").is_file() && best.as_ref().is_none_or(|(b, _)| m > *b) {
                best = Some((m, d));
            }
        }
    }
    best.map(|(_, d)| d).ok_or_else(|| {
        anyhow::anyhow!("--hotspot: no JDK 21-25 (set JAVA_HOME, or install one under /usr/lib/jvm)")
    })
}

/// Runs JitBench's lock shapes now and writes [`LOCKS_FILE`] into `dir`
/// (created), so that the HotSpot rows of this invocation are timed
/// minutes, not hours, from the lab's rows, and summarised as the lab
/// summarises its own: many short iterations (2 ms; 300, or 100 with
/// `quick`, after a second of warm-up iterations, so C2 has compiled the
/// loop) and their median, which on a loaded machine is the unpreempted
/// cost, where a 1 s iteration's mean carries every preemption. Builds the
/// benchmarks with Maven first if their jar is missing; JMH's output goes
/// to stderr.
pub fn run_jitbench(dir: &Path, quick: bool) -> anyhow::Result<()> {
    let peers = peers_dir();
    let jar = peers.join("target/benchmarks.jar");
    let home = java_home()?;
    let status = |what: &str, r: std::io::Result<std::process::ExitStatus>| -> anyhow::Result<()> {
        match r {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => anyhow::bail!("--hotspot: {what} failed ({s}); its output is above"),
            Err(e) => anyhow::bail!("--hotspot: cannot run {what}: {e}"),
        }
    };
    if !jar.is_file() {
        eprintln!("jit: building {} (mvn package)", jar.display());
        status(
            "mvn package",
            std::process::Command::new("mvn")
                .args(["-q", "-B", "package", "-DskipTests"])
                .current_dir(&peers)
                .env("JAVA_HOME", &home)
                .stdout(std::process::Stdio::from(std::io::stderr()))
                .status(),
        )?;
    }
    std::fs::create_dir_all(dir)?;
    let out = std::fs::canonicalize(dir)?.join(LOCKS_FILE);
    let iterations = if quick { "100" } else { "300" };
    eprintln!(
        "jit: running HotSpot's JitBench lock shapes ({}) into {}",
        home.display(),
        out.display()
    );
    status(
        "JMH",
        std::process::Command::new(home.join("bin/java"))
            .arg("-jar")
            .arg(&jar)
            .arg(r"JitBench\.(casPair|uncontended|recursive|churn)$")
            .args([
                "-wi", "500", "-w", "2ms", "-i", iterations, "-r", "2ms", "-f", "1",
            ])
            .args(["-p", "gc=default", "-jvmArgsAppend", "-XX:-EliminateLocks"])
            .args(["-rf", "json", "-rff"])
            .arg(&out)
            .stdout(std::process::Stdio::from(std::io::stderr()))
            .status(),
    )?;
    Ok(())
}

/// JitBench's results, or why there are none.
pub struct HotSpot {
    results: Result<Vec<BenchResult>, String>,
    /// The file read (or looked for).
    pub path: PathBuf,
    /// When it was written, for the table's note.
    pub written: Option<std::time::SystemTime>,
}

impl HotSpot {
    /// Reads `<dir>/jit-locks.json` (`--hotspot`'s, whose rows come
    /// first) and `<dir>/jit.json` (run.sh's).
    pub fn read(dir: &Path) -> HotSpot {
        let locks = dir.join(LOCKS_FILE);
        let path = if locks.is_file() {
            locks.clone()
        } else {
            dir.join(FILE)
        };
        let written = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        let mut results: Result<Vec<BenchResult>, String> = Ok(Vec::new());
        let mut found = false;
        for p in [locks, dir.join(FILE)] {
            if !p.is_file() {
                continue;
            }
            found = true;
            match (crate::report::jmh::read_results(&p), &mut results) {
                (Ok(rows), Ok(all)) => all.extend(rows),
                (Err(e), _) => {
                    results = Err(format!("{e:#}"));
                    break;
                }
                _ => {}
            }
        }
        if !found {
            results = Err(format!("not run: no {}; {HOW}", dir.join(FILE).display()));
        }
        HotSpot {
            results,
            path,
            written,
        }
    }

    /// Why the file gave nothing, if it did not.
    pub fn missing(&self) -> Option<&str> {
        self.results.as_ref().err().map(String::as_str)
    }

    /// The row of `JitBench.<method>` with parameter `gc` (`None`: the
    /// locking rows, labelled `default`).
    pub fn row(&self, method: &str, gc: Option<&str>) -> Result<&BenchResult, String> {
        let results = self.results.as_ref().map_err(Clone::clone)?;
        let gc = gc.unwrap_or("default");
        results
            .iter()
            .find(|r| {
                r.benchmark.rsplit('.').next() == Some(method)
                    && r.benchmark.contains("JitBench")
                    && r.params.get("gc").is_some_and(|g| g == gc)
            })
            .ok_or_else(|| {
                format!(
                    "not run: {} has no JitBench.{method} (gc={gc}) row; {HOW}",
                    self.path.display()
                )
            })
    }
}

/// JitBench's method and `gc` label for the lab's operation `op`; `None`
/// for operations C2 has no separable form of.
pub fn method_of(op: &str) -> Option<(&'static str, Option<&'static str>)> {
    Some(match op {
        "cas-pair" => ("casPair", None),
        "uncontended" => ("uncontended", None),
        "recursive" => ("recursive", None),
        "churn" => ("churn", None),
        "store" => ("refStore", Some("epsilon")),
        "satb-store" => ("refStore", Some("passive-satb")),
        "card-store" => ("refStore", Some("serial")),
        "load" => ("refLoad", Some("epsilon")),
        "lrb-load" => ("refLoad", Some("passive-lrb")),
        _ => return None,
    })
}

/// Why an operation has no HotSpot row.
pub fn why_none(op: &str) -> &'static str {
    match op {
        "poll" | "empty-loop" => {
            "C2 polls at a counted loop's back-edge once per strip of LoopStripMiningIter (1000) trips: no per-trip poll to time"
        }
        "brooks-load" => "JDK 25's Shenandoah has no Brooks read barrier (replaced by the LRB in JDK 13)",
        "parking-lot" => "a Rust crate",
        _ => "no JitBench shape",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_says_how_to_run_it() {
        let h = HotSpot::read(Path::new("/nonexistent/jvm"));
        let why = h.missing().unwrap();
        assert!(
            why.starts_with("not run") && why.contains("ONLY=jit ./run.sh"),
            "{why}"
        );
        assert!(h.row("uncontended", None).unwrap_err().contains("not run"));
    }

    #[test]
    fn rows_are_found_by_method_and_gc_label() {
        let dir = std::env::temp_dir().join(format!("fastpath-jit-hotspot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let row = |m: &str, gc: &str, score: f64| {
            format!(
                r#"{{"jmhVersion":"1.37","benchmark":"fastpath.peers.JitBench.{m}","mode":"avgt","threads":1,"forks":1,
                "params":{{"gc":"{gc}"}},"primaryMetric":{{"score":{score},"scoreError":0.1,"scoreUnit":"ns/op","rawData":[[{score}]]}},
                "secondaryMetrics":{{}}}}"#
            )
        };
        let text = format!(
            "[{},{},{}]",
            row("uncontended", "default", 5.5),
            row("refStore", "epsilon", 0.3),
            row("refStore", "serial", 0.6)
        );
        std::fs::write(dir.join(FILE), text).unwrap();
        let h = HotSpot::read(&dir);
        assert!(h.missing().is_none());
        assert_eq!(h.row("uncontended", None).unwrap().primary_metric.score, 5.5);
        let (m, gc) = method_of("card-store").unwrap();
        assert_eq!(h.row(m, gc).unwrap().primary_metric.score, 0.6);
        assert!(h.row("churn", None).unwrap_err().contains("no JitBench.churn"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

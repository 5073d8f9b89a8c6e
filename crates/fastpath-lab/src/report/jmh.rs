//! Results in JMH's JSON result format, so that existing JMH tooling (JMH
//! Visualizer, jmh-benchmark-comparison scripts) reads them, and so that
//! `fastpath compare` can diff a fastpath run against a HotSpot one.
//!
//! A file is a JSON array of [`BenchResult`]; field names are JMH's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::stats::Stats;

/// The secondary metric that marks a row's counters as Callgrind's
/// simulation (`--prof perfnorm` without hardware counters): deterministic
/// counts, exact without an error estimate.
pub const SIMULATED_MARKER: &str = "perfnorm:callgrind-simulated";

/// JMH benchmark mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// Average time per operation.
    #[serde(rename = "avgt")]
    AverageTime,
    /// Operations per unit of time.
    #[serde(rename = "thrpt")]
    Throughput,
    /// Single-shot time.
    #[serde(rename = "ss")]
    SingleShot,
    /// Sampled time per operation (JMH `SampleTime`; its raw data is a
    /// histogram, `rawDataHistogram`, which is not read).
    #[serde(rename = "sample")]
    SampleTime,
}

impl Mode {
    /// Whether a larger score is better.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Mode::Throughput)
    }
}

/// One metric: a score with its error and raw data, JMH's `primaryMetric`
/// shape (also used for each secondary metric).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metric {
    /// Mean.
    #[serde(with = "jmh_number")]
    pub score: f64,
    /// 99.9% confidence half-width ("NaN" when not computable).
    #[serde(with = "jmh_number")]
    pub score_error: f64,
    /// `[score − error, score + error]`.
    #[serde(default, with = "jmh_number::vec")]
    pub score_confidence: Vec<f64>,
    /// Percentiles: keys "0.0", "50.0", "90.0", "100.0" as JMH writes them.
    #[serde(default, with = "jmh_number::map")]
    pub score_percentiles: BTreeMap<String, f64>,
    /// Unit, such as "ns/op" or "ops/s".
    pub score_unit: String,
    /// Raw samples per fork: one fork here.
    #[serde(default, with = "jmh_number::vec_vec")]
    pub raw_data: Vec<Vec<f64>>,
}

impl Metric {
    /// A metric from statistics.
    pub fn from_stats(stats: &Stats, unit: &str) -> Metric {
        // JSON has no NaN: with no error (one sample) the interval collapses
        // to the score, which JMH readers accept.
        let (lo, hi) = if stats.error.is_finite() {
            stats.confidence()
        } else {
            (stats.mean, stats.mean)
        };
        let mut pct = BTreeMap::new();
        for p in [0.0, 50.0, 90.0, 95.0, 99.0, 100.0] {
            pct.insert(format!("{p:.1}"), stats.percentile(p));
        }
        Metric {
            score: stats.mean,
            score_error: stats.error,
            score_confidence: vec![lo, hi],
            score_percentiles: pct,
            score_unit: unit.to_string(),
            raw_data: vec![stats.samples.clone()],
        }
    }

    /// A metric with a single value and no error (a counter, a derived ratio).
    pub fn single(value: f64, unit: &str) -> Metric {
        Metric::from_stats(&Stats::from_samples(vec![value]), unit)
    }
}

/// One row of results: JMH's per-benchmark object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchResult {
    /// Which tool wrote it ("fastpath 0.1.0").
    #[serde(default)]
    pub jmh_version: String,
    /// Fully qualified name, `fastpath.<experiment>.<workload>`.
    pub benchmark: String,
    /// Mode.
    pub mode: Mode,
    /// Threads that ran the workload.
    pub threads: u32,
    /// Forks (processes): 1 unless a harness says otherwise.
    #[serde(default = "one")]
    pub forks: u32,
    /// Warm-up iterations.
    #[serde(default)]
    pub warmup_iterations: u32,
    /// Measured iterations.
    #[serde(default)]
    pub measurement_iterations: u32,
    /// Parameters (strategy, size, ...).
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    /// The score.
    pub primary_metric: Metric,
    /// Secondary metrics (perfnorm-style counters, derived figures).
    #[serde(default)]
    pub secondary_metrics: BTreeMap<String, Metric>,
    /// The run that measured it (CPU, configuration, quick or full, commit,
    /// date): fastpath's own field, absent from JMH's files.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "fastpathRun")]
    pub run: Option<super::run_info::RunInfo>,
}

fn one() -> u32 {
    1
}

impl BenchResult {
    /// A result for `experiment.workload` from statistics.
    pub fn new(experiment: &str, workload: &str, mode: Mode, stats: &Stats, unit: &str) -> BenchResult {
        BenchResult {
            jmh_version: format!("fastpath {}", env!("CARGO_PKG_VERSION")),
            benchmark: format!("fastpath.{experiment}.{workload}"),
            mode,
            threads: 1,
            forks: 1,
            warmup_iterations: 0,
            measurement_iterations: stats.samples.len() as u32,
            params: BTreeMap::new(),
            primary_metric: Metric::from_stats(stats, unit),
            secondary_metrics: BTreeMap::new(),
            run: None,
        }
    }

    /// Adds a parameter.
    pub fn param(mut self, key: &str, value: impl ToString) -> BenchResult {
        self.params.insert(key.to_string(), value.to_string());
        self
    }

    /// Sets the thread count.
    pub fn threads(mut self, threads: u32) -> BenchResult {
        self.threads = threads;
        self
    }

    /// Adds a secondary metric.
    pub fn secondary(mut self, name: &str, metric: Metric) -> BenchResult {
        self.secondary_metrics.insert(name.to_string(), metric);
        self
    }

    /// The key that identifies "the same row" across two runs: benchmark,
    /// thread count and parameters.
    pub fn key(&self) -> String {
        let params: Vec<String> = self.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!(
            "{} [threads={}] {}",
            self.benchmark,
            self.threads,
            params.join(",")
        )
    }
}

/// Serializes results as a pretty JSON array.
pub fn to_json(results: &[BenchResult]) -> String {
    serde_json::to_string_pretty(results).expect("results serialize")
}

/// Parses a JMH (or fastpath) result file.
pub fn from_json(text: &str) -> Result<Vec<BenchResult>, serde_json::Error> {
    serde_json::from_str(text)
}

/// JMH writes every non-finite double as a string ("NaN", "+INF", "-INF":
/// JSONResultFormat's `emit`), in scores, errors, confidence bounds,
/// percentiles and raw data alike; serde_json would write `null`. These
/// helpers write and read JMH's spelling wherever a metric holds a double.
mod jmh_number {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// One double, in JMH's spelling.
    struct Num(f64);

    impl Serialize for Num {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let v = self.0;
            if v.is_finite() {
                s.serialize_f64(v)
            } else if v.is_nan() {
                s.serialize_str("NaN")
            } else if v > 0.0 {
                s.serialize_str("+INF")
            } else {
                s.serialize_str("-INF")
            }
        }
    }

    impl<'de> Deserialize<'de> for Num {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
            #[derive(Deserialize)]
            #[serde(untagged)]
            enum NumOrStr {
                Num(f64),
                Str(String),
            }
            match NumOrStr::deserialize(d)? {
                NumOrStr::Num(n) => Ok(Num(n)),
                // Rust's parser reads "NaN", "+INF" and "-INF" (any case).
                NumOrStr::Str(s) => s.trim().parse().map(Num).map_err(|_| {
                    serde::de::Error::custom(format!("expected a number, \"NaN\" or \"±INF\", found {s:?}"))
                }),
            }
        }
    }

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        Num(*v).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Num::deserialize(d).map(|n| n.0)
    }

    pub mod vec {
        use super::*;

        pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|&x| Num(x)))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            Ok(Vec::<Num>::deserialize(d)?.into_iter().map(|n| n.0).collect())
        }
    }

    pub mod vec_vec {
        use super::*;

        pub fn serialize<S: Serializer>(v: &[Vec<f64>], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(
                v.iter()
                    .map(|row| row.iter().map(|&x| Num(x)).collect::<Vec<_>>()),
            )
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<f64>>, D::Error> {
            Ok(Vec::<Vec<Num>>::deserialize(d)?
                .into_iter()
                .map(|row| row.into_iter().map(|n| n.0).collect())
                .collect())
        }
    }

    pub mod map {
        use super::*;

        pub fn serialize<S: Serializer>(v: &BTreeMap<String, f64>, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(v.iter().map(|(k, &x)| (k, Num(x))))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, f64>, D::Error> {
            Ok(BTreeMap::<String, Num>::deserialize(d)?
                .into_iter()
                .map(|(k, n)| (k, n.0))
                .collect())
        }
    }
}

/// The most `compare` reads of one file. A full run's largest result file
/// is well under 1 MiB; anything past this is not a result file (and
/// `/dev/zero` or a FIFO that never ends must not be read forever).
pub const MAX_RESULT_BYTES: u64 = 16 << 20;

/// Reads a JMH-format result file (for `compare`), at most
/// [`MAX_RESULT_BYTES`]; the error names the file.
pub fn read_results(path: &std::path::Path) -> anyhow::Result<Vec<BenchResult>> {
    use anyhow::Context as _;
    use std::io::Read as _;
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_RESULT_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    anyhow::ensure!(
        bytes.len() as u64 <= MAX_RESULT_BYTES,
        "{} is larger than {} MiB: not a result file",
        path.display(),
        MAX_RESULT_BYTES >> 20
    );
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{} is not a JMH result file: not UTF-8 text", path.display()))?;
    from_json(&text).with_context(|| format!("{} is not a JMH result file", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_reads_jmh_output() {
        let r = BenchResult::new(
            "spin",
            "pause",
            Mode::AverageTime,
            &Stats::from_samples(vec![1.0, 2.0, 3.0]),
            "ns/op",
        )
        .param("strategy", "pause")
        .secondary("cycles", Metric::single(40.0, "#/op"));
        let json = to_json(std::slice::from_ref(&r));
        let back = from_json(&json).unwrap();
        assert_eq!(back[0].key(), r.key());
        assert_eq!(back[0].primary_metric.score, 2.0);

        // Trimmed from a real JMH 1.37 result file.
        let jmh = r#"[{"jmhVersion":"1.37","benchmark":"org.sample.Lock.uncontended","mode":"avgt",
            "threads":1,"forks":1,"params":{"mode":"2"},
            "primaryMetric":{"score":12.5,"scoreError":"NaN","scoreConfidence":[1,2],
            "scorePercentiles":{"0.0":12.5},"scoreUnit":"ns/op","rawData":[[12.5]]},
            "secondaryMetrics":{}}]"#;
        let parsed = from_json(jmh).unwrap();
        assert!(parsed[0].primary_metric.score_error.is_nan());
        assert_eq!(parsed[0].mode, Mode::AverageTime);
    }

    /// JMH's JSONResultFormat writes every non-finite double as a string:
    /// a one-iteration run has `"scoreConfidence": ["NaN", "NaN"]`, and a
    /// secondary metric may be NaN or infinite anywhere. SampleTime rows
    /// say `"mode": "sample"` and carry `rawDataHistogram` instead of
    /// `rawData`.
    #[test]
    fn reads_jmh_non_finite_numbers_and_sample_mode() {
        let jmh = r#"[{"jmhVersion":"1.37","benchmark":"org.sample.Lock.one","mode":"ss",
            "threads":1,"forks":1,
            "primaryMetric":{"score":"NaN","scoreError":"NaN","scoreConfidence":["NaN","NaN"],
            "scorePercentiles":{"0.0":"NaN","100.0":"+INF"},"scoreUnit":"us/op","rawData":[["NaN"]]},
            "secondaryMetrics":{"gc.alloc.rate":{"score":"-INF","scoreError":"NaN",
            "scoreConfidence":["NaN","NaN"],"scorePercentiles":{},"scoreUnit":"MB/sec","rawData":[["-INF"]]}}},
            {"jmhVersion":"1.37","benchmark":"org.sample.Lock.sampled","mode":"sample","threads":2,
            "primaryMetric":{"score":20.5,"scoreError":1.5,"scoreConfidence":[19.0,22.0],
            "scorePercentiles":{"50.0":20.0},"scoreUnit":"ns/op",
            "rawDataHistogram":[[[[20.0,3],[21.0,1]]]]},"secondaryMetrics":{}}]"#;
        let parsed = from_json(jmh).unwrap();
        let m = &parsed[0].primary_metric;
        assert!(m.score.is_nan() && m.score_confidence.iter().all(|x| x.is_nan()));
        assert_eq!(m.score_percentiles["100.0"], f64::INFINITY);
        assert_eq!(
            parsed[0].secondary_metrics["gc.alloc.rate"].score,
            f64::NEG_INFINITY
        );
        assert_eq!(parsed[1].mode, Mode::SampleTime);
        assert!(parsed[1].primary_metric.raw_data.is_empty());
        // Written back in JMH's spelling, never as `null`, and read again.
        let json = to_json(&parsed);
        assert!(!json.contains("null"), "{json}");
        assert!(json.contains("\"+INF\"") && json.contains("\"-INF\""), "{json}");
        let again = from_json(&json).unwrap();
        assert_eq!(again[1], parsed[1]);
        assert_eq!(
            again[0].secondary_metrics["gc.alloc.rate"].score,
            f64::NEG_INFINITY
        );
        // A string that is not a number is still an error, naming it.
        let bad = jmh.replacen(r#""score":20.5"#, r#""score":"fast""#, 1);
        let err = from_json(&bad).unwrap_err().to_string();
        assert!(err.contains("\"fast\""), "{err}");
    }
}

//! Results in JMH's JSON result format, so that existing JMH tooling (JMH
//! Visualizer, jmh-benchmark-comparison scripts) reads them, and so that
//! `fastpath compare` can diff a fastpath run against a HotSpot one.
//!
//! A file is a JSON array of [`BenchResult`]; field names are JMH's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::harness::Stats;

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
    pub score: f64,
    /// 99.9% confidence half-width ("NaN" when not computable).
    #[serde(with = "nan_as_string")]
    pub score_error: f64,
    /// `[score − error, score + error]`.
    #[serde(default)]
    pub score_confidence: Vec<f64>,
    /// Percentiles: keys "0.0", "50.0", "90.0", "100.0" as JMH writes them.
    #[serde(default)]
    pub score_percentiles: BTreeMap<String, f64>,
    /// Unit, such as "ns/op" or "ops/s".
    pub score_unit: String,
    /// Raw samples per fork: one fork here.
    #[serde(default)]
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

/// JMH writes a NaN error as the string "NaN"; accept both that and numbers.
mod nan_as_string {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_str("NaN")
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum NumOrStr {
            Num(f64),
            Str(String),
        }
        Ok(match NumOrStr::deserialize(d)? {
            NumOrStr::Num(n) => n,
            NumOrStr::Str(s) => s.parse().unwrap_or(f64::NAN),
        })
    }
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
}

//! What a result file says about the run that wrote it: the CPU, the
//! configuration (`FASTPATH_*`), quick or full, the commit the lab was built
//! from (when built from a git checkout) and the date. Every row of a
//! fastpath result file carries it as `fastpathRun` (JMH readers ignore a
//! field they do not know); `fastpath compare` warns when two runs differ in
//! any of the first four, since their figures then differ for reasons other
//! than the change being compared.

use serde::{Deserialize, Serialize};

/// The run behind a result file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// `fastpath cpu`'s one-line description of the CPU.
    pub cpu: String,
    /// The configuration in force (`FASTPATH_LOCKING_MODE=… …`).
    pub configuration: String,
    /// `quick` or `full`.
    pub mode: String,
    /// The commit the lab was built from; absent outside a git checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// When the run ended, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date: String,
    /// The 1-minute load average (`/proc/loadavg`) when the results were
    /// written: how many threads wanted the CPUs during the run's last
    /// minute. Absent where the system has no such file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<String>,
}

impl RunInfo {
    /// This process's run: `quick` as the experiment ran.
    pub fn current(quick: bool) -> RunInfo {
        RunInfo {
            cpu: cpu_line(),
            configuration: fastpath::config::global().to_string(),
            mode: if quick { "quick" } else { "full" }.to_string(),
            commit: option_env!("LAB_BUILD_COMMIT").map(str::to_string),
            date: utc_now(),
            load: load_average(),
        }
    }

    /// How `other` differs from `self`, one phrase per field that differs
    /// (the date aside: two runs always differ in it).
    pub fn differences(&self, other: &RunInfo) -> Vec<String> {
        let mut d = Vec::new();
        let mut field = |name: &str, a: &str, b: &str| {
            if a != b {
                d.push(format!("{name}: {a} vs {b}"));
            }
        };
        field("CPU", &self.cpu, &other.cpu);
        field("configuration", &self.configuration, &other.configuration);
        field("mode", &self.mode, &other.mode);
        let none = "(not a git checkout)".to_string();
        field(
            "commit",
            self.commit.as_ref().unwrap_or(&none),
            other.commit.as_ref().unwrap_or(&none),
        );
        if let (Some(a), Some(b)) = (&self.load, &other.load) {
            if loads_differ(a, b) {
                d.push(format!(
                    "machine load (1-minute average): {a} vs {b}; rows that start threads measure it as well as the code"
                ));
            }
        }
        d
    }
}

/// The first field of `/proc/loadavg`, if it reads.
fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let first = text.split_whitespace().next()?;
    first.parse::<f64>().ok()?;
    Some(first.to_string())
}

/// Whether two load averages differ enough to change what threads get:
/// by at least one runnable thread and by half of the lower one.
fn loads_differ(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(a), Ok(b)) => (a - b).abs() >= 1.0 && a.max(b) >= 1.5 * a.min(b),
        _ => false,
    }
}

/// The CPU in one line: brand, family/model/stepping, logical CPUs and the
/// hypervisor, if any.
pub fn cpu_line() -> String {
    let c = fastpath::cpu::info();
    format!(
        "{} family {} model {} stepping {}, {} logical CPUs{}",
        if c.brand.is_empty() {
            &c.vendor_string
        } else {
            &c.brand
        },
        c.family,
        c.model,
        c.stepping,
        c.logical_cpus,
        c.hypervisor
            .as_ref()
            .map(|h| format!(", hypervisor {h}"))
            .unwrap_or_default()
    )
}

/// The system's 1-, 5- and 15-minute load averages (`/proc/loadavg`).
pub fn load_averages() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|v| v.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// The load averages as `1.20 0.95 0.70` (1, 5, 15 min), or `unknown`: to
/// read a noisy row by, on a shared machine.
pub fn load_average_line() -> String {
    load_averages().map_or_else(
        || "unknown".to_string(),
        |[a, b, c]| format!("{a:.2} {b:.2} {c:.2}"),
    )
}

/// What a missed timing goal says about the machine it ran on: the load
/// average beside the CPU count, and on a busy machine (a 1-minute load
/// above the CPUs) that the miss may be the machine's, to be repeated on
/// a quiet one.
pub fn busy_machine_note() -> String {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    match load_averages() {
        Some([one, five, _]) if one > cpus as f64 => format!(
            "measured at load {one:.1} over the last minute, {five:.1} over five, on {cpus} CPUs, this run's threads \
             included: a busy machine misses timing goals for its own sake; repeat on a quiet machine before trusting this FAIL"
        ),
        Some([one, five, _]) => {
            format!("measured at load {one:.1} over the last minute, {five:.1} over five, on {cpus} CPUs")
        }
        None => format!("load unknown, {cpus} CPUs"),
    }
}

/// Now, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// `secs` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (the proleptic
/// Gregorian calendar; Howard Hinnant's `civil_from_days`).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_match_known_instants() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day of a century leap year), 12:34:56.
        assert_eq!(utc(951_827_696), "2000-02-29T12:34:56Z");
        assert_eq!(utc(1_795_609_800), "2026-11-25T12:30:00Z");
    }

    #[test]
    fn differences_name_each_field_but_the_date() {
        let a = RunInfo {
            cpu: "A".into(),
            configuration: "x".into(),
            mode: "quick".into(),
            commit: Some("c1".into()),
            date: "d1".into(),
            load: Some("2.10".into()),
        };
        let mut b = a.clone();
        b.date = "d2".into();
        // 2.1 against 2.9 or 3.0: within one thread or less than half more.
        b.load = Some("2.90".into());
        assert!(a.differences(&b).is_empty());
        b.load = Some("3.10".into());
        assert!(a.differences(&b).is_empty(), "1.48x the lower");
        b.load = Some("9.80".into());
        assert!(a.differences(&b)[0].contains("2.10 vs 9.80"));
        b.load = Some("2.10".into());
        b.mode = "full".into();
        b.commit = None;
        let d = a.differences(&b);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(
            d[0].contains("quick vs full") && d[1].contains("not a git checkout"),
            "{d:?}"
        );
    }
}

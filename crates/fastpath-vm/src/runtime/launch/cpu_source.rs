//! How a start identifies the CPU (`FASTPATH_VM_CPU_SOURCE`): seed 002's
//! switch, so that cold and warm starts can be timed per source on a whole
//! VM as JDK-8283199 timed them on HotSpot.
//!
//! Where it sits: [`run_main`](super::run_main) calls [`identify`] once,
//! before the main thread's `Thread` is made, where HotSpot's `VM_Version`
//! builds its features string. Every source is the library's own code
//! (`fastpath::cpu`); the VM only chooses which to run at start:
//!
//! | value | what a start does | whose behaviour |
//! |---|---|---|
//! | `lazy` (default) | nothing; `fastpath::cpu::info()` runs (CPUID only) when something first asks | the library's default path |
//! | `cpuid-only` | `fastpath::cpu::info()`: CPUID, no file | HotSpot's feature detection without the microcode |
//! | `proc-cpuinfo` | CPUID, then the microcode from `/proc/cpuinfo` only | HotSpot before JDK-8283199 |
//! | `sysfs-microcode` | CPUID, then the microcode from sysfs only | the fix's first choice, no fallback |
//! | `features-string-with-microcode` | CPUID, then the whole features string with the microcode: sysfs, falling back to `/proc/cpuinfo` | HotSpot after JDK-8283199 |
//!
//! The names are those of the lab's `fastpath startup`, which times the same
//! sources in a minimal process. A microcode source that does not answer (no
//! sysfs file on most KVM guests) is an error value in the
//! [`Identification`], as HotSpot prints "microcode unavailable": the VM
//! starts all the same. A value that is not a source stops the start with
//! the accepted list. `FASTPATH_VM_CPU_LOG=1` prints what the start read,
//! and how long it took, on stderr.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use fastpath::cpu::testing::{read_microcode, NativeFiles};
use fastpath::cpu::{self, Microcode, MicrocodeError, MicrocodeSource};

/// The variable that selects the source.
pub const VAR: &str = "FASTPATH_VM_CPU_SOURCE";

/// The variable that asks for the identification's line on stderr.
pub const LOG_VAR: &str = "FASTPATH_VM_CPU_LOG";

/// What a start reads to identify the CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CpuSource {
    /// Nothing at start; CPUID when the library is first asked.
    #[default]
    Lazy,
    /// CPUID at start, no file.
    CpuidOnly,
    /// CPUID, then the microcode from `/proc/cpuinfo` only.
    ProcCpuinfo,
    /// CPUID, then the microcode from sysfs only.
    SysfsMicrocode,
    /// CPUID, then the features string with the microcode (sysfs, then
    /// `/proc/cpuinfo`).
    FeaturesStringWithMicrocode,
}

impl CpuSource {
    /// Every source, the default first.
    pub const ALL: [CpuSource; 5] = [
        CpuSource::Lazy,
        CpuSource::CpuidOnly,
        CpuSource::ProcCpuinfo,
        CpuSource::SysfsMicrocode,
        CpuSource::FeaturesStringWithMicrocode,
    ];

    /// The value's name.
    pub fn name(self) -> &'static str {
        match self {
            CpuSource::Lazy => "lazy",
            CpuSource::CpuidOnly => "cpuid-only",
            CpuSource::ProcCpuinfo => "proc-cpuinfo",
            CpuSource::SysfsMicrocode => "sysfs-microcode",
            CpuSource::FeaturesStringWithMicrocode => "features-string-with-microcode",
        }
    }

    /// The microcode sources it reads, in order (none for the CPUID-only
    /// sources).
    pub fn microcode_order(self) -> &'static [MicrocodeSource] {
        match self {
            CpuSource::Lazy | CpuSource::CpuidOnly => &[],
            CpuSource::ProcCpuinfo => &[MicrocodeSource::ProcCpuinfo],
            CpuSource::SysfsMicrocode => &[MicrocodeSource::Sysfs],
            CpuSource::FeaturesStringWithMicrocode => &MicrocodeSource::DEFAULT_ORDER,
        }
    }

    /// The source the environment names: the default when [`VAR`] is unset
    /// or empty, an error naming the value and the accepted ones when it is
    /// not a source.
    pub fn from_env() -> Result<CpuSource, CpuSourceError> {
        match std::env::var(VAR) {
            Ok(v) if v.trim().is_empty() => Ok(CpuSource::default()),
            Ok(v) => v.parse(),
            Err(std::env::VarError::NotPresent) => Ok(CpuSource::default()),
            Err(std::env::VarError::NotUnicode(v)) => Err(CpuSourceError {
                value: v.to_string_lossy().into_owned(),
            }),
        }
    }
}

impl fmt::Display for CpuSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CpuSource {
    type Err = CpuSourceError;

    fn from_str(s: &str) -> Result<CpuSource, CpuSourceError> {
        let wanted = s.trim();
        CpuSource::ALL
            .into_iter()
            .find(|c| c.name() == wanted)
            .ok_or_else(|| CpuSourceError { value: s.to_string() })
    }
}

/// A value of [`VAR`] that is not a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuSourceError {
    /// The value given.
    pub value: String,
}

impl fmt::Display for CpuSourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{VAR}={:?}: not a CPU-identification source; accepted: ",
            self.value
        )?;
        for (i, s) in CpuSource::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(s.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for CpuSourceError {}

/// What one start's identification read and what it cost.
#[derive(Clone, Debug)]
pub struct Identification {
    /// The source run.
    pub source: CpuSource,
    /// The features string (HotSpot's shape), with the microcode part when
    /// the source reads it; empty for `lazy`, which reads nothing.
    pub features: String,
    /// The microcode revision or why none, when the source reads it.
    pub microcode: Option<Result<Microcode, MicrocodeError>>,
    /// Wall-clock time of the whole identification.
    pub elapsed: Duration,
}

impl fmt::Display for Identification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fastpath-vm cpu: source {} in {:.1} µs",
            self.source,
            self.elapsed.as_secs_f64() * 1e6
        )?;
        match &self.microcode {
            None => {}
            Some(Ok(m)) => {
                write!(f, "; microcode {:#x} from {}", m.revision, m.source)?;
                for a in &m.attempts {
                    write!(f, "; tried {a}")?;
                }
            }
            Some(Err(e)) => write!(f, "; {e}")?,
        }
        if self.source == CpuSource::Lazy {
            f.write_str("; nothing read at start")
        } else {
            write!(f, "; {}", self.features)
        }
    }
}

/// Identifies the CPU by `source`, as a start does.
pub fn identify(source: CpuSource) -> Identification {
    let start = Instant::now();
    let (features, microcode) = match source {
        CpuSource::Lazy => (String::new(), None),
        CpuSource::CpuidOnly => (cpu::info().features_string(None), None),
        CpuSource::ProcCpuinfo | CpuSource::SysfsMicrocode => {
            let info = cpu::info();
            let m = read_microcode(&NativeFiles, source.microcode_order());
            (info.features_string(Some(&m)), Some(m))
        }
        CpuSource::FeaturesStringWithMicrocode => {
            // The library's own lazy revision: sysfs, then /proc/cpuinfo.
            let m = cpu::microcode();
            (cpu::info().features_string(Some(&m)), Some(m))
        }
    };
    Identification {
        source,
        features,
        microcode,
        elapsed: start.elapsed(),
    }
}

/// Whether [`LOG_VAR`] asks for the identification's line.
pub fn logging() -> bool {
    std::env::var_os(LOG_VAR).is_some_and(|v| v == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_and_a_bad_one_lists_the_accepted() {
        for s in CpuSource::ALL {
            assert_eq!(s.name().parse::<CpuSource>(), Ok(s));
        }
        assert_eq!(" proc-cpuinfo\n".parse::<CpuSource>(), Ok(CpuSource::ProcCpuinfo));
        let e = "proc_cpuinfo".parse::<CpuSource>().unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("FASTPATH_VM_CPU_SOURCE=\"proc_cpuinfo\""),
            "{text}"
        );
        for s in CpuSource::ALL {
            assert!(text.contains(s.name()), "{text}");
        }
        assert!("".parse::<CpuSource>().is_err());
    }

    #[test]
    fn each_source_reads_what_it_names() {
        for source in CpuSource::ALL {
            let id = identify(source);
            assert_eq!(id.source, source);
            let attempts: Vec<MicrocodeSource> = match &id.microcode {
                None => Vec::new(),
                Some(Ok(m)) => m.attempts.iter().map(|a| a.source).collect(),
                Some(Err(e)) => e.attempts.iter().map(|a| a.source).collect(),
            };
            match source {
                CpuSource::Lazy => {
                    assert!(id.microcode.is_none() && id.features.is_empty());
                }
                CpuSource::CpuidOnly => {
                    assert!(id.microcode.is_none());
                    assert!(id.features.contains("family"), "{}", id.features);
                    assert!(!id.features.contains("microcode"), "{}", id.features);
                }
                CpuSource::ProcCpuinfo | CpuSource::SysfsMicrocode => {
                    assert_eq!(attempts, source.microcode_order(), "{id}");
                    assert!(id.features.contains(" microcode "), "{}", id.features);
                }
                CpuSource::FeaturesStringWithMicrocode => {
                    // sysfs first; /proc/cpuinfo only where sysfs failed.
                    assert_eq!(attempts.first(), Some(&MicrocodeSource::Sysfs), "{id}");
                    assert!(attempts.len() <= 2, "{id}");
                    assert!(id.features.contains(" microcode "), "{}", id.features);
                }
            }
            assert!(id.to_string().contains(source.name()));
        }
    }
}

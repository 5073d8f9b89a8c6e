//! The microcode revision: lazy, separate from identification, each source
//! timed.
//!
//! Where it sits: nothing on the startup path asks for it. It exists for
//! the features string (when a caller asks for the microcode part) and for
//! diagnostics, and is the subject of the cold-start experiment
//! (`fastpath startup`).
//!
//! History (seed 002, JDK-8283199): HotSpot's Linux
//! `os::cpu_microcode_revision()` opened /proc/cpuinfo during startup to
//! print the features string, and on kernels 5.4-5.15 the first read of
//! /proc/cpuinfo after a second of quiet stalled for about 20 ms (the
//! kernel refreshed per-CPU APERF/MPERF frequency samples, sleeping for
//! them). The fix reads `/sys/devices/system/cpu/cpu0/microcode/version`
//! first. This module does the same, and keeps /proc/cpuinfo only as the
//! fallback for machines without the sysfs file (most KVM guests, where the
//! microcode driver does not load). It goes further than the fix in one way:
//! the revision is never computed unless asked for.
//!
//! Every attempt is recorded with its source, its outcome and what it cost,
//! so that a caller (and `fastpath cpu --microcode`) can show where the time
//! went; a missing or unparsable file is an error value naming each failure.

use std::fmt;
use std::io::{self, BufRead};
use std::time::{Duration, Instant};

use super::files::FileSource;

/// Where the kernel's microcode driver publishes CPU 0's revision.
pub(crate) const SYSFS_PATH: &str = "/sys/devices/system/cpu/cpu0/microcode/version";
/// The fallback, whose first read after a quiet second stalled on 5.x.
pub(crate) const PROC_CPUINFO_PATH: &str = "/proc/cpuinfo";

/// A place the revision can be read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MicrocodeSource {
    /// `/sys/devices/system/cpu/cpu0/microcode/version`: one small file, one hex number.
    Sysfs,
    /// `/proc/cpuinfo`: the first `microcode : 0x...` line.
    ProcCpuinfo,
}

impl MicrocodeSource {
    /// The default order: sysfs, then /proc/cpuinfo (as JDK-8283199).
    pub const DEFAULT_ORDER: [MicrocodeSource; 2] = [MicrocodeSource::Sysfs, MicrocodeSource::ProcCpuinfo];

    /// The file it reads.
    pub fn path(self) -> &'static str {
        match self {
            MicrocodeSource::Sysfs => SYSFS_PATH,
            MicrocodeSource::ProcCpuinfo => PROC_CPUINFO_PATH,
        }
    }

    /// A short name ("sysfs", "proc-cpuinfo").
    pub fn name(self) -> &'static str {
        match self {
            MicrocodeSource::Sysfs => "sysfs",
            MicrocodeSource::ProcCpuinfo => "proc-cpuinfo",
        }
    }
}

impl fmt::Display for MicrocodeSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why one source did not answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MicrocodeAttemptError {
    /// Opening or reading failed (NotFound where the driver is absent).
    Io {
        /// The error's kind.
        kind: io::ErrorKind,
        /// The error's text.
        message: String,
    },
    /// /proc/cpuinfo has no `microcode` line in its first record (aarch64,
    /// some hypervisors).
    NoMicrocodeLine,
    /// The value is not a hexadecimal number.
    Unparsable(String),
}

impl fmt::Display for MicrocodeAttemptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MicrocodeAttemptError::Io { message, .. } => f.write_str(message),
            MicrocodeAttemptError::NoMicrocodeLine => f.write_str("no `microcode` line"),
            MicrocodeAttemptError::Unparsable(v) => write!(f, "unparsable value {v:?}"),
        }
    }
}

/// One source tried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MicrocodeAttempt {
    /// Which.
    pub source: MicrocodeSource,
    /// Wall-clock time the attempt took (open, read, parse).
    pub elapsed: Duration,
    /// The revision, or why not.
    pub outcome: Result<u64, MicrocodeAttemptError>,
}

impl fmt::Display for MicrocodeAttempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): ", self.source, self.source.path())?;
        match &self.outcome {
            Ok(v) => write!(f, "{v:#x}")?,
            Err(e) => write!(f, "{e}")?,
        }
        write!(f, " in {:.1} µs", self.elapsed.as_secs_f64() * 1e6)
    }
}

/// The revision, where it came from, and every attempt made to get it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Microcode {
    /// The revision ("microcode : 0x1000065" → 0x1000065).
    pub revision: u64,
    /// The source that answered.
    pub source: MicrocodeSource,
    /// Every source tried, in order, the last one being `source`.
    pub attempts: Vec<MicrocodeAttempt>,
}

impl Microcode {
    /// Total time of all attempts.
    pub fn elapsed(&self) -> Duration {
        self.attempts.iter().map(|a| a.elapsed).sum()
    }
}

/// No source answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MicrocodeError {
    /// Every source tried and why each failed.
    pub attempts: Vec<MicrocodeAttempt>,
}

impl fmt::Display for MicrocodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("microcode revision unavailable")?;
        for (i, a) in self.attempts.iter().enumerate() {
            f.write_str(if i == 0 { ": " } else { "; " })?;
            write!(f, "{a}")?;
        }
        Ok(())
    }
}

impl std::error::Error for MicrocodeError {}

/// Tries each source in `order` until one answers.
pub fn read_microcode(
    files: &dyn FileSource,
    order: &[MicrocodeSource],
) -> Result<Microcode, MicrocodeError> {
    let mut attempts = Vec::with_capacity(order.len());
    for &source in order {
        let start = Instant::now();
        let outcome = read_one(files, source);
        let answered = outcome.as_ref().ok().copied();
        attempts.push(MicrocodeAttempt {
            source,
            elapsed: start.elapsed(),
            outcome,
        });
        if let Some(revision) = answered {
            return Ok(Microcode {
                revision,
                source,
                attempts,
            });
        }
    }
    Err(MicrocodeError { attempts })
}

fn io_error(e: io::Error) -> MicrocodeAttemptError {
    MicrocodeAttemptError::Io {
        kind: e.kind(),
        message: e.to_string(),
    }
}

fn read_one(files: &dyn FileSource, source: MicrocodeSource) -> Result<u64, MicrocodeAttemptError> {
    let mut reader = files.open(source.path()).map_err(io_error)?;
    match source {
        MicrocodeSource::Sysfs => {
            let mut line = String::new();
            reader.read_line(&mut line).map_err(io_error)?;
            parse_hex(&line)
        }
        MicrocodeSource::ProcCpuinfo => {
            // As HotSpot's os_linux_x86.cpp `os::cpu_microcode_revision()`
            // did before JDK-8283199 (and still does as its fallback):
            // fgets line by line until the first line mentioning
            // "microcode", then `%x` after the ':'. One difference: where
            // the first processor's record has no such line, this stops at
            // the record's end instead of reading one record per CPU.
            let mut line = String::new();
            let mut seen_fields = false;
            loop {
                line.clear();
                if reader.read_line(&mut line).map_err(io_error)? == 0 {
                    return Err(MicrocodeAttemptError::NoMicrocodeLine);
                }
                let Some((key, value)) = line.split_once(':') else {
                    if seen_fields && line.trim().is_empty() {
                        return Err(MicrocodeAttemptError::NoMicrocodeLine);
                    }
                    continue;
                };
                seen_fields = true;
                if key.trim() == "microcode" {
                    return parse_hex(value);
                }
            }
        }
    }
}

/// "0x1000065", " 0x1\n" or "1000065" (HotSpot's `%x`) → the number.
fn parse_hex(s: &str) -> Result<u64, MicrocodeAttemptError> {
    let t = s.trim();
    let digits = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    u64::from_str_radix(digits, 16).map_err(|_| MicrocodeAttemptError::Unparsable(t.to_string()))
}

#[cfg(test)]
mod tests {
    use super::super::files::{OpenLog, RecordedFiles};
    use super::*;

    /// The first record of this machine's /proc/cpuinfo (AMD EPYC family
    /// 26 KVM guest, Linux 6.18), trimmed after the microcode line, then a
    /// second record that must never be reached.
    const THIS_GUEST: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n\
        model\t\t: 2\nmodel name\t: AMD EPYC\nstepping\t: 1\nmicrocode\t: 0x1000065\n\
        cpu MHz\t\t: 2596.118\n\nprocessor\t: 1\nmicrocode\t: 0xdead\n";

    #[test]
    fn falls_back_to_proc_cpuinfo_when_sysfs_is_absent() {
        let files = RecordedFiles::new().with(PROC_CPUINFO_PATH, THIS_GUEST);
        let log = OpenLog::new(&files);
        let m = read_microcode(&log, &MicrocodeSource::DEFAULT_ORDER).unwrap();
        assert_eq!(m.revision, 0x1000065);
        assert_eq!(m.source, MicrocodeSource::ProcCpuinfo);
        assert_eq!(m.attempts.len(), 2);
        assert!(matches!(
            m.attempts[0].outcome,
            Err(MicrocodeAttemptError::Io {
                kind: io::ErrorKind::NotFound,
                ..
            })
        ));
        assert_eq!(log.opened(), [SYSFS_PATH, PROC_CPUINFO_PATH]);
    }

    #[test]
    fn prefers_sysfs_and_never_opens_proc_when_it_answers() {
        let files = RecordedFiles::new()
            .with(SYSFS_PATH, "0x2b000603\n")
            .with(PROC_CPUINFO_PATH, THIS_GUEST);
        let log = OpenLog::new(&files);
        let m = read_microcode(&log, &MicrocodeSource::DEFAULT_ORDER).unwrap();
        assert_eq!((m.revision, m.source), (0x2b00_0603, MicrocodeSource::Sysfs));
        assert_eq!(log.opened(), [SYSFS_PATH]);
    }

    #[test]
    fn the_issue_guest_says_0x1() {
        let files = RecordedFiles::new().with(PROC_CPUINFO_PATH, "processor : 0\nmicrocode : 0x1\n");
        assert_eq!(
            read_microcode(&files, &MicrocodeSource::DEFAULT_ORDER)
                .unwrap()
                .revision,
            1
        );
    }

    #[test]
    fn missing_and_unparsable_are_error_values() {
        let none = read_microcode(&RecordedFiles::new(), &MicrocodeSource::DEFAULT_ORDER).unwrap_err();
        assert_eq!(none.attempts.len(), 2);
        let text = none.to_string();
        assert!(text.contains("sysfs") && text.contains("proc-cpuinfo"), "{text}");

        let garbage = RecordedFiles::new().with(SYSFS_PATH, "zz\n");
        let e = read_microcode(&garbage, &[MicrocodeSource::Sysfs]).unwrap_err();
        assert_eq!(
            e.attempts[0].outcome,
            Err(MicrocodeAttemptError::Unparsable("zz".into()))
        );

        // aarch64's /proc/cpuinfo has no microcode line: stop at the end
        // of the first record.
        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nmicrocode : 0x5\n";
        let files = RecordedFiles::new().with(PROC_CPUINFO_PATH, arm);
        let e = read_microcode(&files, &[MicrocodeSource::ProcCpuinfo]).unwrap_err();
        assert_eq!(e.attempts[0].outcome, Err(MicrocodeAttemptError::NoMicrocodeLine));
    }

    #[test]
    fn parses_the_forms_the_kernel_and_hotspot_accept() {
        assert_eq!(parse_hex(" 0x1000065\n"), Ok(0x1000065));
        assert_eq!(parse_hex("0XAB"), Ok(0xab));
        assert_eq!(parse_hex("ab"), Ok(0xab));
        assert!(parse_hex("").is_err());
        assert!(parse_hex("0x").is_err());
    }
}

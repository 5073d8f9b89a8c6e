//! Where CPUID answers come from: the CPU, or a recorded machine.
//!
//! Where it sits: [`super::x86::decode`] asks a [`CpuidSource`] for leaves
//! and never executes CPUID itself. Every source counts what it executes
//! ([`CpuidSource::executed`]), so that the number of CPUID
//! instructions identification costs is a measured fact (each one is a VM
//! exit under a hypervisor, about 4 µs on the KVM guest this project runs
//! on) and the unit tests can hold it to a budget. Tests hand it a
//! [`RecordedCpuid`] parsed from a published dump, so the decoder is checked
//! against CPUs this machine is not.
//!
//! The recorded format is the one AIDA64 writes and InstLatx64 publishes
//! (`CPUID 00000007: 00000002-F3BFBFFB-BB417FEE-FFDD4430 [SL 00]`: leaf,
//! then EAX-EBX-ECX-EDX, then the subleaf for leaves that have them), so a
//! new fixture is a copy of a published file. [`dump_cpuid`] writes the same
//! format from any source, which is how this machine's fixture was made
//! (`fastpath cpu --dump`).
//!
//! The source is pure data on every target; only [`NativeCpuid`] needs
//! x86-64. This lets the decoder's tests run on any host.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The four registers one CPUID returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Leaf {
    /// EAX.
    pub eax: u32,
    /// EBX.
    pub ebx: u32,
    /// ECX.
    pub ecx: u32,
    /// EDX.
    pub edx: u32,
}

/// Something that answers CPUID (and XGETBV, which qualifies the AVX bits),
/// and counts the CPUID instructions it executed (or, for a recorded
/// machine, would have executed).
pub trait CpuidSource {
    /// CPUID with EAX = `leaf`, ECX = `subleaf`.
    fn cpuid(&self, leaf: u32, subleaf: u32) -> Leaf;

    /// XCR0, the register state the OS saves (XGETBV with ECX = 0), or
    /// `None` when OSXSAVE is clear (XGETBV would fault). Costs one CPUID
    /// (leaf 1, for the OSXSAVE bit) unless leaf 1 was already asked.
    fn xcr0(&self) -> Option<u64>;

    /// CPUID instructions executed so far through this source.
    fn executed(&self) -> u32;
}

/// Book-keeping shared by the sources: the CPUID count, and the OSXSAVE
/// bit of the last leaf 1 seen so that [`CpuidSource::xcr0`] need not ask
/// again.
#[derive(Debug, Default)]
struct Tally {
    executed: Cell<u32>,
    osxsave: Cell<Option<bool>>,
}

impl Tally {
    fn saw(&self, leaf: u32, l: Leaf) -> Leaf {
        self.executed.set(self.executed.get() + 1);
        if leaf == 1 {
            self.osxsave.set(Some(l.ecx & (1 << 27) != 0));
        }
        l
    }

    fn osxsave(&self, src: &dyn CpuidSource) -> bool {
        match self.osxsave.get() {
            Some(b) => b,
            None => src.cpuid(1, 0).ecx & (1 << 27) != 0,
        }
    }
}

/// The CPU this process runs on.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Default)]
pub struct NativeCpuid {
    tally: Tally,
}

#[cfg(target_arch = "x86_64")]
impl NativeCpuid {
    /// A source with a zero count.
    pub fn new() -> NativeCpuid {
        NativeCpuid::default()
    }
}

#[cfg(target_arch = "x86_64")]
impl CpuidSource for NativeCpuid {
    #[inline]
    fn cpuid(&self, leaf: u32, subleaf: u32) -> Leaf {
        let r = crate::arch::x86_64::cpuid(leaf, subleaf);
        self.tally.saw(
            leaf,
            Leaf {
                eax: r.eax,
                ebx: r.ebx,
                ecx: r.ecx,
                edx: r.edx,
            },
        )
    }

    fn xcr0(&self) -> Option<u64> {
        // OSXSAVE (CPUID.1:ECX[27]) says the OS set CR4.OSXSAVE, which is
        // what makes XGETBV legal. The bit comes from a CPUID this source
        // executed itself, never from the caller, so a confused caller
        // cannot turn this into #UD.
        if !self.tally.osxsave(self) {
            return None;
        }
        // SAFETY: OSXSAVE was checked just above.
        Some(unsafe { crate::arch::x86_64::xgetbv(0) })
    }

    fn executed(&self) -> u32 {
        self.tally.executed.get()
    }
}

/// A recorded machine: CPUID leaves parsed from an AIDA64/InstLatx64 dump.
///
/// Lookup: the exact (leaf, subleaf) entry; else the leaf's entry without a
/// subleaf (leaves whose answer ignores ECX are recorded that way); else
/// zeros, which is what a dump that omits an all-zero subleaf (AIDA64 skips
/// them in leaf 0xD) or an unimplemented leaf means.
#[derive(Debug, Default)]
pub struct RecordedCpuid {
    leaves: BTreeMap<(u32, Option<u32>), Leaf>,
    xcr0: Option<u64>,
    tally: Tally,
}

/// A line of a dump that is neither a recognised record nor ignorable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuidDumpError {
    /// 1-based line number; 0 when the dump as a whole is wrong (it holds
    /// no CPUID record).
    pub line: usize,
    /// What was wrong.
    pub reason: String,
}

impl std::fmt::Display for CpuidDumpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "CPUID dump: {}", self.reason)
        } else {
            write!(f, "CPUID dump line {}: {}", self.line, self.reason)
        }
    }
}

impl std::error::Error for CpuidDumpError {}

impl RecordedCpuid {
    /// Parses the first logical CPU of a dump.
    ///
    /// Recognised lines: `CPUID LLLLLLLL: EAX-EBX-ECX-EDX [SL nn] ...` and
    /// this project's extension `XCR0 HHHHHHHHHHHHHHHH` (XGETBV(0), which
    /// AIDA64 does not record). Every other line (AIDA64 headers, cache
    /// summaries, `#` comments) is ignored; parsing stops at the second
    /// `Logical CPU #` header. Without an `XCR0` line the OS is assumed to
    /// enable every state component the CPU supports (CPUID.0xD.0:EDX:EAX)
    /// when OSXSAVE is set: true of any current Linux.
    pub fn parse(text: &str) -> Result<RecordedCpuid, CpuidDumpError> {
        let mut rec = RecordedCpuid::default();
        let mut cpu_headers = 0;
        for (i, line) in text.lines().enumerate() {
            let err = |reason: &str| CpuidDumpError {
                line: i + 1,
                reason: format!("{reason}: {line:?}"),
            };
            let line = line.trim();
            if line.contains("Logical CPU #") {
                cpu_headers += 1;
                if cpu_headers > 1 {
                    break;
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix("XCR0 ") {
                let v = u64::from_str_radix(rest.trim(), 16).map_err(|_| err("bad XCR0 value"))?;
                rec.xcr0 = Some(v);
                continue;
            }
            let Some(rest) = line.strip_prefix("CPUID ") else {
                continue;
            };
            let (leaf, rest) = rest.split_once(':').ok_or_else(|| err("no ':' after the leaf"))?;
            let leaf = u32::from_str_radix(leaf.trim(), 16).map_err(|_| err("bad leaf"))?;
            let mut words = rest.split_whitespace();
            let regs = words.next().ok_or_else(|| err("no registers"))?;
            let regs: Vec<u32> = regs
                .split('-')
                .map(|r| u32::from_str_radix(r, 16))
                .collect::<Result<_, _>>()
                .map_err(|_| err("bad register value"))?;
            let [eax, ebx, ecx, edx] = regs[..] else {
                return Err(err("expected four registers EAX-EBX-ECX-EDX"));
            };
            let subleaf = match (words.next(), words.next()) {
                (Some("[SL"), Some(sl)) => {
                    Some(u32::from_str_radix(sl.trim_end_matches(']'), 16).map_err(|_| err("bad subleaf"))?)
                }
                _ => None,
            };
            rec.leaves.insert((leaf, subleaf), Leaf { eax, ebx, ecx, edx });
        }
        if rec.leaves.is_empty() {
            return Err(CpuidDumpError {
                line: 0,
                reason: "no CPUID records".to_string(),
            });
        }
        Ok(rec)
    }

    /// How many records were parsed.
    pub fn len(&self) -> usize {
        self.leaves.len()
    }

    /// Whether nothing was recorded (never true of a parsed dump).
    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }
}

impl CpuidSource for RecordedCpuid {
    fn cpuid(&self, leaf: u32, subleaf: u32) -> Leaf {
        let l = self
            .leaves
            .get(&(leaf, Some(subleaf)))
            .or_else(|| self.leaves.get(&(leaf, None)))
            .copied()
            .unwrap_or_default();
        self.tally.saw(leaf, l)
    }

    fn xcr0(&self) -> Option<u64> {
        if !self.tally.osxsave(self) {
            return None;
        }
        self.xcr0.or_else(|| {
            // Looked up directly: a real machine would not execute this.
            let d = self
                .leaves
                .get(&(0xd, Some(0)))
                .or_else(|| self.leaves.get(&(0xd, None)))
                .copied()
                .unwrap_or_default();
            Some((u64::from(d.edx) << 32) | u64::from(d.eax))
        })
    }

    fn executed(&self) -> u32 {
        self.tally.executed.get()
    }
}

/// The subleaves worth recording for `leaf`, given its subleaf 0, or `None`
/// for a leaf that ignores ECX.
fn subleaves(src: &dyn CpuidSource, leaf: u32, sl0: Leaf) -> Option<Vec<u32>> {
    // Leaves enumerated until a terminator: cache descriptors (type 0 ends
    // them) and topology levels (level type 0 ends them).
    let until = |done: fn(Leaf) -> bool, cap: u32| {
        (0..cap)
            .take_while(|&s| s == 0 || !done(src.cpuid(leaf, s)))
            .collect::<Vec<_>>()
    };
    let upto = |max: u32, cap: u32| (0..=max.min(cap)).collect::<Vec<_>>();
    Some(match leaf {
        4 | 0x8000_001d => until(|l| l.eax & 0x1f == 0, 16),
        0xb | 0x1f | 0x8000_0026 => until(|l| (l.ecx >> 8) & 0xff == 0, 8),
        7 | 0x14 | 0x17 | 0x18 | 0x1d | 0x20 => upto(sl0.eax, 15),
        0xd => (0..64)
            .filter(|&s| s < 2 || src.cpuid(leaf, s) != Leaf::default())
            .collect(),
        0xf | 0x10 | 0x12 | 0x8000_0020 => upto(3, 3),
        _ => return None,
    })
}

/// Writes every leaf `src` implements in the AIDA64/InstLatx64 format that
/// [`RecordedCpuid::parse`] reads, plus an `XCR0` line.
///
/// This is a scan of a hundred-odd leaves: a diagnostic for recording a
/// machine (`fastpath cpu --dump`), never part of identification.
pub fn dump_cpuid(src: &dyn CpuidSource) -> String {
    let mut out = String::from("------[ CPUID Registers / Logical CPU #0 ]------\n\n");
    let mut line = |leaf: u32, sl: Option<u32>, l: Leaf| {
        let _ = write!(
            out,
            "CPUID {leaf:08X}: {:08X}-{:08X}-{:08X}-{:08X}",
            l.eax, l.ebx, l.ecx, l.edx
        );
        if let Some(s) = sl {
            let _ = write!(out, " [SL {s:02X}]");
        }
        out.push('\n');
    };
    let l1 = src.cpuid(1, 0);
    let mut ranges = vec![(0u32, src.cpuid(0, 0).eax.min(0xff))];
    if l1.ecx & (1 << 31) != 0 {
        let top = src.cpuid(0x4000_0000, 0).eax;
        let top = if (0x4000_0000..=0x4000_00ff).contains(&top) {
            top
        } else {
            0x4000_0000
        };
        ranges.push((0x4000_0000, top));
    }
    let ext = src.cpuid(0x8000_0000, 0).eax;
    if (0x8000_0000..=0x8000_00ff).contains(&ext) {
        ranges.push((0x8000_0000, ext));
    }
    for (first, last) in ranges {
        for leaf in first..=last {
            let sl0 = src.cpuid(leaf, 0);
            match subleaves(src, leaf, sl0) {
                None => line(leaf, None, sl0),
                Some(subs) => {
                    for s in subs {
                        line(leaf, Some(s), src.cpuid(leaf, s));
                    }
                }
            }
        }
    }
    if let Some(x) = src.xcr0() {
        let _ = writeln!(out, "XCR0 {x:016X}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
# a comment
------[ Logical CPU #0 ]------
CPUID 00000000: 0000000D-756E6547-6C65746E-49656E69 [GenuineIntel]
CPUID 00000001: 000306C3-00100800-7FFAFBFF-BFEBFBFF
CPUID 00000004: 1C004121-01C0003F-0000003F-00000000 [SL 00]
CPUID 00000004: 1C004122-01C0003F-0000003F-00000000 [SL 01]
CPUID 0000000D: 00000007-00000340-00000340-00000000 [SL 00]
L1    Data Cache:    32 KB,  8-way Associative, 64-byte Line
------[ Logical CPU #1 ]------
CPUID 00000000: FFFFFFFF-756E6547-6C65746E-49656E69 [GenuineIntel]
";

    #[test]
    fn parses_the_first_cpu_of_an_aida64_dump() {
        let r = RecordedCpuid::parse(SAMPLE).unwrap();
        assert_eq!(r.len(), 5);
        assert_eq!(r.cpuid(0, 0).eax, 0xd, "stopped at CPU #1");
        assert_eq!(r.cpuid(1, 7).eax, 0x306c3, "leaf without subleaves ignores ECX");
        assert_eq!(r.cpuid(4, 1).eax, 0x1c004122);
        assert_eq!(r.cpuid(4, 2), Leaf::default(), "unrecorded subleaf is zero");
        assert_eq!(r.xcr0(), Some(7), "derived from leaf 0xD when not recorded");
    }

    #[test]
    fn rejects_malformed_records() {
        let e = RecordedCpuid::parse("CPUID 00000000: 1-2-3\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.reason.contains("four registers"), "{e}");
        assert!(RecordedCpuid::parse("CPUID zz: 0-0-0-0\n").is_err());
        let none = RecordedCpuid::parse("nothing here\n").unwrap_err();
        assert_eq!(none.line, 0);
        assert_eq!(none.to_string(), "CPUID dump: no CPUID records");
    }

    #[test]
    fn counts_every_cpuid_and_reuses_leaf_1_for_xcr0() {
        let r = RecordedCpuid::parse(SAMPLE).unwrap();
        r.xcr0();
        assert_eq!(r.executed(), 1, "XCR0 without leaf 1 in hand asks for it");
        let r = RecordedCpuid::parse(SAMPLE).unwrap();
        r.cpuid(0, 0);
        r.cpuid(1, 0);
        assert_eq!(r.executed(), 2);
        r.xcr0();
        assert_eq!(r.executed(), 2, "leaf 1 already seen");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn native_source_counts_and_agrees_with_itself() {
        let n = NativeCpuid::new();
        let a = n.cpuid(0, 0);
        assert_eq!(n.cpuid(0, 0), a);
        assert_eq!(n.executed(), 2);
        // x86-64 has SSE, so every OS enables at least x87|SSE in XCR0
        // when it enables XSAVE at all.
        if let Some(x) = n.xcr0() {
            assert_eq!(x & 3, 3, "{x:#x}");
        }
    }

    #[test]
    fn dump_round_trips() {
        let r = RecordedCpuid::parse(SAMPLE).unwrap();
        let again = RecordedCpuid::parse(&dump_cpuid(&r)).unwrap();
        for (leaf, sub) in [(0, 0), (1, 0), (4, 0), (4, 1), (0xd, 0)] {
            assert_eq!(again.cpuid(leaf, sub), r.cpuid(leaf, sub), "leaf {leaf:#x}.{sub}");
        }
        assert_eq!(again.xcr0(), Some(7));
    }
}

//! AArch64 identification: HWCAP, MIDR_EL1 and CTR_EL0 → [`CpuInfo`].
//!
//! Where it sits: the aarch64 counterpart of [`super::x86`], called once
//! per process by [`super::first_identification`] on aarch64 Linux. The decoder is
//! plain data and compiles (and is tested) on every target; only
//! `NativeAarch64`, which reads the auxiliary vector, CTR_EL0 and MIDR_EL1,
//! is compiled on aarch64. The decoding is unit-tested everywhere with
//! recorded register values; the native source runs in the aarch64 build's
//! tests under QEMU user-mode emulation, once per emulated CPU model
//! (`tests/aarch64_cpu_models.rs`: MIDR, HWCAP and CTR_EL0 as each model
//! reports them), never on aarch64 hardware by this project.
//!
//! Sources, none under /proc:
//! - features from `getauxval(AT_HWCAP)` / `AT_HWCAP2` (the kernel's own
//!   sanitised view; a libc call that reads process memory, no system call),
//! - MIDR_EL1 from `/sys/devices/system/cpu/cpu0/regs/identification/midr_el1`
//!   (Linux 4.11+), through a [`FileSource`] so tests feed it; where that
//!   file is absent (kernels before 4.11, containers without sysfs, a
//!   user-mode emulator on a host of another architecture) from `MRS
//!   MIDR_EL1`, which traps at EL0 and is emulated by the kernel only when
//!   HWCAP_CPUID is set, so it is executed only then. sysfs comes first
//!   because it names CPU 0, while MRS names whichever core the thread is on
//!   (they differ on big.LITTLE parts),
//! - line sizes from CTR_EL0 (readable at EL0 on Linux), which also carries
//!   IDC/DIC: whether D-cache clean / I-cache invalidate are needed for
//!   instruction-data coherence, which the `code` subsystem wants.

use std::io::BufRead as _;

use super::files::FileSource;
use super::{CpuInfo, Feature, Features, Vendor};

/// Where MIDR_EL1 of CPU 0 is published.
pub const MIDR_PATH: &str = "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1";

/// HWCAP bits (Linux arch/arm64/include/uapi/asm/hwcap.h).
mod hwcap {
    pub const ASIMD: u64 = 1 << 1;
    pub const ATOMICS: u64 = 1 << 8;
    /// The kernel emulates EL0 reads of the ID registers (read only by
    /// the native source, hence unused elsewhere).
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    pub const CPUID: u64 = 1 << 11;
    pub const DCPOP: u64 = 1 << 16;
    pub const SB: u64 = 1 << 29;
}

/// HWCAP2 bits (same header).
mod hwcap2 {
    pub const WFXT: u64 = 1 << 31;
}

/// CTR_EL0 fields (Arm ARM D19.2.34).
mod ctr {
    /// log2(words) of the smallest I-cache line, bits \[3:0\].
    pub fn imin_line_bytes(v: u64) -> u32 {
        4 << (v & 0xf)
    }
    /// log2(words) of the smallest D-cache line, bits [19:16].
    pub fn dmin_line_bytes(v: u64) -> u32 {
        4 << ((v >> 16) & 0xf)
    }
    /// IDC: D-cache clean to PoU not required for I/D coherence.
    pub const IDC: u64 = 1 << 28;
    /// DIC: I-cache invalidation to PoU not required for I/D coherence.
    pub const DIC: u64 = 1 << 29;
}

/// The registers the identification reads.
pub trait Aarch64Source {
    /// `getauxval(AT_HWCAP)`.
    fn hwcap(&self) -> u64;
    /// `getauxval(AT_HWCAP2)`.
    fn hwcap2(&self) -> u64;
    /// CTR_EL0.
    fn ctr_el0(&self) -> u64;
    /// `MRS MIDR_EL1` where the kernel emulates it (HWCAP_CPUID), else
    /// `None`. Asked only when the sysfs file is missing.
    fn midr_el1(&self) -> Option<u64>;
}

/// The CPU this process runs on.
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug, Default)]
pub struct NativeAarch64;

#[cfg(target_arch = "aarch64")]
impl Aarch64Source for NativeAarch64 {
    fn hwcap(&self) -> u64 {
        // SAFETY: getauxval reads the process's auxiliary vector; it has no
        // preconditions and returns 0 for an absent entry.
        unsafe { libc::getauxval(libc::AT_HWCAP) }
    }
    fn hwcap2(&self) -> u64 {
        // SAFETY: as above.
        unsafe { libc::getauxval(libc::AT_HWCAP2) }
    }
    fn ctr_el0(&self) -> u64 {
        crate::arch::aarch64::ctr_el0()
    }
    fn midr_el1(&self) -> Option<u64> {
        if self.hwcap() & hwcap::CPUID == 0 {
            return None;
        }
        // SAFETY: HWCAP_CPUID is set, so the kernel emulates the trapped
        // MRS (the wrapper's contract).
        Some(unsafe { crate::arch::aarch64::midr_el1() })
    }
}

/// Recorded register values, for tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordedAarch64 {
    /// AT_HWCAP.
    pub hwcap: u64,
    /// AT_HWCAP2.
    pub hwcap2: u64,
    /// CTR_EL0.
    pub ctr_el0: u64,
    /// What `MRS MIDR_EL1` would read (`None`: no HWCAP_CPUID).
    pub midr_el1: Option<u64>,
}

impl Aarch64Source for RecordedAarch64 {
    fn hwcap(&self) -> u64 {
        self.hwcap
    }
    fn hwcap2(&self) -> u64 {
        self.hwcap2
    }
    fn ctr_el0(&self) -> u64 {
        self.ctr_el0
    }
    fn midr_el1(&self) -> Option<u64> {
        self.midr_el1
    }
}

/// The fields of MIDR_EL1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Midr {
    /// Implementer, bits \[31:24\] (0x41 Arm, 0xc0 Ampere, ...).
    pub implementer: u32,
    /// Variant (major revision), bits \[23:20\].
    pub variant: u32,
    /// Part number, bits \[15:4\].
    pub part: u32,
    /// Revision (minor), bits \[3:0\].
    pub revision: u32,
}

impl Midr {
    /// Splits a raw MIDR_EL1.
    pub fn new(raw: u64) -> Midr {
        let raw = raw as u32;
        Midr {
            implementer: raw >> 24,
            variant: (raw >> 20) & 0xf,
            part: (raw >> 4) & 0xfff,
            revision: raw & 0xf,
        }
    }
}

/// A few well-known cores by (implementer, part), from Linux's
/// arch/arm64/include/asm/cputype.h, for a readable brand.
fn part_name(implementer: u32, part: u32) -> Option<&'static str> {
    Some(match (implementer, part) {
        (0x41, 0xd03) => "Cortex-A53",
        (0x41, 0xd07) => "Cortex-A57",
        (0x41, 0xd08) => "Cortex-A72",
        (0x41, 0xd0b) => "Cortex-A76",
        (0x41, 0xd0c) => "Neoverse-N1",
        (0x41, 0xd40) => "Neoverse-V1",
        (0x41, 0xd49) => "Neoverse-N2",
        (0x41, 0xd4f) => "Neoverse-V2",
        (0x46, 0x001) => "A64FX",
        (0xc0, 0xac3) => "Ampere-1",
        _ => return None,
    })
}

/// Reads and parses MIDR_EL1 from sysfs ("0x00000000413fd0c1").
pub(crate) fn read_midr(files: &dyn FileSource) -> Option<u64> {
    let mut line = String::new();
    files.open(MIDR_PATH).ok()?.read_line(&mut line).ok()?;
    let hex = line.trim().strip_prefix("0x")?;
    u64::from_str_radix(hex, 16).ok()
}

/// Decodes the CPU behind `src` (and MIDR from `files`, else from `src`).
///
/// Family/model/stepping carry MIDR's variant/part/revision, the numbers
/// HotSpot's aarch64 features string prints (`0x41:0x3:0xd0c:1`).
pub(crate) fn decode(src: &dyn Aarch64Source, files: &dyn FileSource, logical_cpus: u32) -> CpuInfo {
    let hw = src.hwcap();
    let hw2 = src.hwcap2();
    let ctr_el0 = src.ctr_el0();
    let mut f = Features::default();
    let mut set = |present: bool, feature| {
        if present {
            f.insert(feature);
        }
    };
    set(hw & hwcap::ASIMD != 0, Feature::Asimd);
    set(hw & hwcap::ATOMICS != 0, Feature::Lse);
    set(hw & hwcap::DCPOP != 0, Feature::Dcpop);
    set(hw & hwcap::SB != 0, Feature::Sb);
    set(hw2 & hwcap2::WFXT != 0, Feature::Wfxt);
    set(ctr_el0 & ctr::IDC != 0, Feature::Idc);
    set(ctr_el0 & ctr::DIC != 0, Feature::Dic);

    let midr = read_midr(files).or_else(|| src.midr_el1());
    let m = Midr::new(midr.unwrap_or(0));
    let vendor = match (midr, m.implementer) {
        (None, _) => Vendor::Other,
        (_, 0x41) => Vendor::Arm,
        (_, 0xc0) => Vendor::Ampere,
        _ => Vendor::Other,
    };
    let dline = ctr::dmin_line_bytes(ctr_el0);
    CpuInfo {
        vendor,
        vendor_string: midr.map(|_| format!("{:#x}", m.implementer)).unwrap_or_default(),
        family: m.variant,
        model: m.part,
        stepping: m.revision,
        brand: part_name(m.implementer, m.part).unwrap_or_default().to_string(),
        features: f,
        clflush_line_size: dline,
        cache_line_size: dline,
        icache_line_size: ctr::imin_line_bytes(ctr_el0),
        logical_cpus,
        threads_per_core: 1,
        cores_per_package: logical_cpus.max(1),
        hypervisor: None,
        midr,
    }
}

#[cfg(test)]
mod tests {
    use super::super::files::{OpenLog, RecordedFiles};
    use super::*;

    /// A Neoverse-N1 r3p1 identity, built from documented field layouts
    /// rather than recorded from a machine (this project has no aarch64
    /// host): MIDR 0x413fd0c1 is what Linux's cputype.h MIDR_NEOVERSE_N1
    /// matches at r3p1; CTR_EL0 is constructed with IDC set, DIC clear and
    /// 64-byte lines (DminLine = IminLine = 4, i.e. 4 words << 4); HWCAP has
    /// fp..cpuid (bits 0-11), dcpop (16), asimddp (20) and ssbs (28).
    fn graviton2() -> (RecordedAarch64, RecordedFiles) {
        (
            RecordedAarch64 {
                hwcap: 0xfff | (1 << 16) | (1 << 20) | (1 << 28),
                hwcap2: 0,
                ctr_el0: 0x9444_c004,
                midr_el1: None,
            },
            RecordedFiles::new().with(MIDR_PATH, "0x00000000413fd0c1\n"),
        )
    }

    #[test]
    fn decodes_a_neoverse_n1() {
        let (regs, files) = graviton2();
        let log = OpenLog::new(&files);
        let c = decode(&regs, &log, 64);
        assert_eq!(c.vendor, Vendor::Arm);
        assert_eq!(c.vendor_string, "0x41");
        assert_eq!((c.family, c.model, c.stepping), (3, 0xd0c, 1));
        assert_eq!(c.brand, "Neoverse-N1");
        assert_eq!(c.midr, Some(0x413f_d0c1));
        assert_eq!((c.cache_line_size, c.icache_line_size), (64, 64));
        assert!(c.has(Feature::Asimd) && c.has(Feature::Lse) && c.has(Feature::Dcpop));
        assert!(c.has(Feature::Idc) && !c.has(Feature::Dic));
        assert!(!c.has(Feature::Sb), "SB is Armv8.5, the N1 is v8.2");
        assert!(!c.has(Feature::Wfxt));
        let v87 = RecordedAarch64 {
            hwcap: regs.hwcap | (1 << 29),
            hwcap2: 1 << 31,
            ..regs
        };
        let c = decode(&v87, &files, 64);
        assert!(c.has(Feature::Sb) && c.has(Feature::Wfxt));
        assert!(
            c.features_string(None)
                .starts_with("0x41:0x3:0xd0c:1, asimd, lse, dcpop, sb, idc, wfxt"),
            "{}",
            c.features_string(None)
        );
        assert_eq!(log.opened(), [MIDR_PATH], "sysfs only, never /proc");
    }

    #[test]
    fn missing_or_garbled_midr_is_not_an_identity() {
        let (regs, _) = graviton2();
        let c = decode(&regs, &RecordedFiles::new(), 1);
        assert_eq!((c.vendor, c.midr), (Vendor::Other, None));
        let garbled = RecordedFiles::new().with(MIDR_PATH, "banana\n");
        assert_eq!(read_midr(&garbled), None);
    }

    /// Without the sysfs file the MRS read (where the kernel emulates it)
    /// gives the identity; with the file, the file wins (CPU 0, not
    /// whichever core the thread is on). The values are what QEMU 7.2's
    /// `cortex-a72` and `neoverse-n1` models report.
    #[test]
    fn midr_falls_back_to_the_register_when_sysfs_lacks_it() {
        let (regs, files) = graviton2();
        let a72 = RecordedAarch64 {
            midr_el1: Some(0x410f_d083),
            ..regs
        };
        let log_empty = RecordedFiles::new();
        let log = OpenLog::new(&log_empty);
        let c = decode(&a72, &log, 4);
        assert_eq!((c.vendor, c.midr), (Vendor::Arm, Some(0x410f_d083)));
        assert_eq!((c.model, c.brand.as_str()), (0xd08, "Cortex-A72"));
        assert_eq!(log.opened(), [MIDR_PATH], "sysfs is tried first");
        let c = decode(&a72, &files, 4);
        assert_eq!(c.midr, Some(0x413f_d0c1), "sysfs wins over the register");
    }
}

//! CPU identification at startup (seed 002: /proc/cpuinfo stalls cold start).
//!
//! Where it sits: [`info`] is the first thing any strategy resolution asks
//! (`config` validates requested instructions against it, `spin` and `code`
//! pick `auto` from it). It must therefore be cheap, and it must never touch
//! /proc: the first call executes at most 13 CPUID instructions (each a VM
//! exit under a hypervisor, about 4 µs on this project's KVM guest) and one
//! `sched_getaffinity`, and caches the result for the life of the process.
//! On aarch64 it reads HWCAP from the auxiliary vector, CTR_EL0, and MIDR_EL1
//! from sysfs.
//!
//! What it does not do at startup: read the microcode revision. That is
//! [`microcode()`], a separate lazy call (sysfs first, /proc/cpuinfo as the
//! fallback, each attempt timed), and [`features_string`] asks for it only
//! when told to. This is the lesson of JDK-8283199, taken one step further
//! than the fix: nothing on the default path needs the revision, so the
//! default path never pays for it.
//!
//! Layout, one concept per file:
//!
//! | file (private; the API is re-exported here) | what |
//! |---|---|
//! | `cpuid.rs` | `CpuidSource`: the CPU, or a recorded AIDA64/InstLatx64 dump; counts CPUIDs; `dump_cpuid` |
//! | `x86.rs` | CPUID leaves → [`CpuInfo`] |
//! | `aarch64.rs` | HWCAP, MIDR, CTR_EL0 → [`CpuInfo`] (native source run under QEMU only) |
//! | `files.rs` | `FileSource`: the file system, or recorded files; `OpenLog` |
//! | `microcode.rs` | the lazy revision ([`microcode()`]), sources and costs |
//! | `affinity.rs` | logical CPU count by `sched_getaffinity` ([`available_cpus`]) |
//!
//! Everything the identification reads goes through a source trait, so the
//! tests decode recorded machines (fixtures under `cpu/fixtures/`) and prove
//! what the default path touched: the CPUID count and the files opened are
//! part of every [`MeasuredIdentification`]. Those sources, and the
//! identification run on them, are the [`testing`] module: a runtime's own
//! tests can decode a recorded CPU the same way.

mod aarch64;
mod affinity;
mod cpuid;
mod files;
mod microcode;
mod x86;

#[cfg(test)]
mod fixture_tests;

use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::Duration;

pub use affinity::available_cpus;
pub use microcode::{Microcode, MicrocodeAttempt, MicrocodeAttemptError, MicrocodeError, MicrocodeSource};

/// The seams of the identification, for tests (this crate's, the lab's, a
/// runtime's): the sources it reads (the CPU or a recording), the
/// identification run on chosen sources with its cost, and the recording
/// format. The default path ([`info`]) uses the native sources.
pub mod testing {
    #[cfg(target_arch = "aarch64")]
    pub use super::aarch64::NativeAarch64;
    pub use super::aarch64::{Aarch64Source, RecordedAarch64, MIDR_PATH};
    #[cfg(target_arch = "x86_64")]
    pub use super::cpuid::NativeCpuid;
    pub use super::cpuid::{dump_cpuid, CpuidDumpError, CpuidSource, Leaf, RecordedCpuid};
    pub use super::files::{FileSource, NativeFiles, OpenLog, RecordedFiles};
    pub use super::microcode::read_microcode;

    use super::{available_cpus, MeasuredIdentification};

    /// The default path with injected sources (x86-64): decodes `cpuid`, asks
    /// the kernel for the affinity mask, and is handed `files` so a test can
    /// prove it opens none.
    pub fn identify_x86_with(cpuid: &dyn CpuidSource, files: &dyn FileSource) -> MeasuredIdentification {
        let start = std::time::Instant::now();
        let log = OpenLog::new(files);
        let before = cpuid.executed();
        let info = super::x86::decode(cpuid, available_cpus());
        MeasuredIdentification {
            info,
            cpuid_instructions: cpuid.executed() - before,
            files_opened: log.opened(),
            elapsed: start.elapsed(),
        }
    }

    /// The default path with injected sources (aarch64). Compiled on every
    /// target so that its tests run on the x86-64 machines this project has;
    /// only the native source is aarch64-only.
    pub fn identify_aarch64_with(regs: &dyn Aarch64Source, files: &dyn FileSource) -> MeasuredIdentification {
        let start = std::time::Instant::now();
        let log = OpenLog::new(files);
        let info = super::aarch64::decode(regs, &log, available_cpus());
        MeasuredIdentification {
            info,
            cpuid_instructions: 0,
            files_opened: log.opened(),
            elapsed: start.elapsed(),
        }
    }
}

/// CPU vendor, from CPUID leaf 0 (x86) or MIDR implementer (aarch64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Vendor {
    /// "GenuineIntel".
    Intel,
    /// "AuthenticAMD" or "HygonGenuine".
    Amd,
    /// Arm Ltd. (MIDR implementer 0x41).
    Arm,
    /// Ampere Computing (MIDR implementer 0xc0).
    Ampere,
    /// Anything else.
    Other,
}

/// The instruction set a [`CpuInfo`] describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Isa {
    /// x86-64, identified by CPUID.
    X86_64,
    /// AArch64, identified by HWCAP/MIDR/CTR_EL0.
    Aarch64,
    /// Anything else: nothing identified.
    Other,
}

/// The instruction-set features the project gates instructions on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Feature {
    /// SSE2 (baseline on x86-64).
    Sse2,
    /// AVX (CPUID.1:ECX\[28\], and XCR0 saves YMM state).
    Avx,
    /// AVX2 (CPUID.7.0:EBX\[5\], and XCR0 saves YMM state).
    Avx2,
    /// AVX-512 Foundation (CPUID.7.0:EBX\[16\], and XCR0 saves ZMM state).
    Avx512f,
    /// CLFLUSH (CPUID.1:EDX\[19\]).
    Clflush,
    /// CLFLUSHOPT (CPUID.7.0:EBX\[23\]).
    Clflushopt,
    /// CLWB (CPUID.7.0:EBX\[24\]).
    Clwb,
    /// SERIALIZE (CPUID.7.0:EDX\[14\]).
    Serialize,
    /// WAITPKG: UMONITOR/UMWAIT/TPAUSE (CPUID.7.0:ECX\[5\]).
    Waitpkg,
    /// RDTSCP (CPUID.80000001H:EDX\[27\]).
    Rdtscp,
    /// Running under a hypervisor (CPUID.1:ECX\[31\]).
    Hypervisor,
    /// AArch64 speculation barrier (HWCAP_SB).
    Sb,
    /// SSE3 (CPUID.1:ECX\[0\]).
    Sse3,
    /// SSSE3 (CPUID.1:ECX\[9\]).
    Ssse3,
    /// SSE4.1 (CPUID.1:ECX\[19\]).
    Sse41,
    /// SSE4.2 (CPUID.1:ECX\[20\]).
    Sse42,
    /// POPCNT (CPUID.1:ECX\[23\]).
    Popcnt,
    /// LZCNT (CPUID.80000001H:ECX\[5\]: ABM on AMD, LZCNT on Intel).
    Lzcnt,
    /// CMPXCHG16B (CPUID.1:ECX\[13\]).
    Cx16,
    /// FMA3 (CPUID.1:ECX\[12\], and XCR0 saves YMM state).
    Fma,
    /// BMI1 (CPUID.7.0:EBX\[3\]).
    Bmi1,
    /// BMI2 (CPUID.7.0:EBX\[8\]).
    Bmi2,
    /// Enhanced REP MOVSB/STOSB (CPUID.7.0:EBX\[9\]).
    Erms,
    /// Fast short REP MOV (CPUID.7.0:EDX\[4\]).
    Fsrm,
    /// AVX-512 DQ (CPUID.7.0:EBX\[17\]).
    Avx512dq,
    /// AVX-512 BW (CPUID.7.0:EBX\[30\]).
    Avx512bw,
    /// AVX-512 VL (CPUID.7.0:EBX\[31\]).
    Avx512vl,
    /// AArch64 Advanced SIMD (HWCAP_ASIMD).
    Asimd,
    /// AArch64 large system extensions: LDADD/CAS (HWCAP_ATOMICS).
    Lse,
    /// AArch64 DC CVAP (HWCAP_DCPOP).
    Dcpop,
    /// AArch64 CTR_EL0.IDC: no D-cache clean needed for I/D coherence.
    Idc,
    /// AArch64 CTR_EL0.DIC: no I-cache invalidate needed for I/D coherence.
    Dic,
    /// AArch64 WFET/WFIT, wait with a timeout (HWCAP2_WFXT, FEAT_WFxT).
    Wfxt,
}

impl Feature {
    /// Every feature, in the order the features string prints them
    /// (HotSpot's `VM_Version` order where it has the feature).
    pub const ALL: [Feature; 33] = [
        Feature::Sse2,
        Feature::Sse3,
        Feature::Ssse3,
        Feature::Sse41,
        Feature::Sse42,
        Feature::Popcnt,
        Feature::Lzcnt,
        Feature::Cx16,
        Feature::Avx,
        Feature::Avx2,
        Feature::Fma,
        Feature::Avx512f,
        Feature::Avx512dq,
        Feature::Avx512bw,
        Feature::Avx512vl,
        Feature::Bmi1,
        Feature::Bmi2,
        Feature::Erms,
        Feature::Fsrm,
        Feature::Rdtscp,
        Feature::Clflush,
        Feature::Clflushopt,
        Feature::Clwb,
        Feature::Serialize,
        Feature::Waitpkg,
        Feature::Asimd,
        Feature::Lse,
        Feature::Dcpop,
        Feature::Sb,
        Feature::Idc,
        Feature::Dic,
        Feature::Wfxt,
        Feature::Hypervisor,
    ];

    const fn bit(self) -> u64 {
        1 << (self as u32)
    }

    /// The name HotSpot's features string (or Linux's cpuinfo flags) uses.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Sse2 => "sse2",
            Feature::Avx => "avx",
            Feature::Avx2 => "avx2",
            Feature::Avx512f => "avx512f",
            Feature::Clflush => "clflush",
            Feature::Clflushopt => "clflushopt",
            Feature::Clwb => "clwb",
            Feature::Serialize => "serialize",
            Feature::Waitpkg => "waitpkg",
            Feature::Rdtscp => "rdtscp",
            Feature::Hypervisor => "hv",
            Feature::Sb => "sb",
            Feature::Sse3 => "sse3",
            Feature::Ssse3 => "ssse3",
            Feature::Sse41 => "sse4.1",
            Feature::Sse42 => "sse4.2",
            Feature::Popcnt => "popcnt",
            Feature::Lzcnt => "lzcnt",
            Feature::Cx16 => "cx16",
            Feature::Fma => "fma",
            Feature::Bmi1 => "bmi1",
            Feature::Bmi2 => "bmi2",
            Feature::Erms => "erms",
            Feature::Fsrm => "fsrm",
            Feature::Avx512dq => "avx512dq",
            Feature::Avx512bw => "avx512bw",
            Feature::Avx512vl => "avx512vl",
            Feature::Asimd => "asimd",
            Feature::Lse => "lse",
            Feature::Dcpop => "dcpop",
            Feature::Idc => "idc",
            Feature::Dic => "dic",
            Feature::Wfxt => "wfxt",
        }
    }
}

/// A set of [`Feature`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Features(u64);

impl Features {
    /// Whether `f` is present.
    #[inline]
    pub const fn has(self, f: Feature) -> bool {
        self.0 & f.bit() != 0
    }

    /// Adds `f`.
    pub fn insert(&mut self, f: Feature) {
        self.0 |= f.bit();
    }

    /// The present features, in [`Feature::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.into_iter().filter(move |f| self.has(*f))
    }
}

/// What the process knows about the CPU it runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CpuInfo {
    /// Vendor.
    pub vendor: Vendor,
    /// The raw vendor string ("GenuineIntel", ...), or the MIDR implementer in hex.
    pub vendor_string: String,
    /// x86: display family (base + extended, as Linux prints it).
    /// aarch64: MIDR variant.
    pub family: u32,
    /// x86: display model (base + extended << 4 where applicable).
    /// aarch64: MIDR part number.
    pub model: u32,
    /// x86: stepping. aarch64: MIDR revision.
    pub stepping: u32,
    /// Brand string, trimmed ("" where the CPU has none; a known core's
    /// name on aarch64).
    pub brand: String,
    /// Feature bits.
    pub features: Features,
    /// CLFLUSH line size in bytes (CPUID.1:EBX\[15:8\] × 8); the data cache
    /// line on aarch64 (CTR_EL0.DminLine).
    pub clflush_line_size: u32,
    /// L1 data cache line size in bytes.
    pub cache_line_size: u32,
    /// L1 instruction cache line size in bytes (CTR_EL0.IminLine on
    /// aarch64).
    pub icache_line_size: u32,
    /// Logical CPUs available to this process (its affinity mask).
    pub logical_cpus: u32,
    /// Hardware threads per core (1 where unknown).
    pub threads_per_core: u32,
    /// Cores per package, as CPUID reports the package (1 where unknown).
    pub cores_per_package: u32,
    /// Hypervisor vendor signature (CPUID leaf 0x4000_0000: "KVMKVMKVM",
    /// "Microsoft Hv", ...), when the hypervisor bit is set.
    pub hypervisor: Option<String>,
    /// MIDR_EL1 on aarch64.
    pub midr: Option<u64>,
}

impl CpuInfo {
    /// Whether `f` is present.
    #[inline]
    pub fn has(&self, f: Feature) -> bool {
        self.features.has(f)
    }

    /// Which instruction set this describes.
    pub fn isa(&self) -> Isa {
        if matches!(self.vendor, Vendor::Arm | Vendor::Ampere) || self.midr.is_some() {
            Isa::Aarch64
        } else if self.has(Feature::Sse2) {
            Isa::X86_64
        } else if cfg!(target_arch = "aarch64") {
            Isa::Aarch64
        } else {
            Isa::Other
        }
    }

    /// A readable hypervisor name for well-known signatures, else the
    /// signature itself.
    pub fn hypervisor_name(&self) -> Option<&str> {
        let sig = self.hypervisor.as_deref()?;
        Some(match sig {
            "KVMKVMKVM" | "Linux KVM Hv" => "KVM",
            "Microsoft Hv" => "Hyper-V",
            "VMwareVMware" => "VMware",
            "XenVMMXenVMM" => "Xen",
            "TCGTCGTCGTCG" => "QEMU TCG",
            "VBoxVBoxVBox" => "VirtualBox",
            "ACRNACRNACRN" => "ACRN",
            "bhyve bhyve" => "bhyve",
            // The hypervisor bit without a signature at 0x4000_0000.
            "" => "unknown",
            other => other,
        })
    }

    /// HotSpot's one-line VM features string, e.g.
    /// `(2 cores per cpu, 1 threads per core) family 26 model 2 stepping 1
    /// microcode 0x1000065, sse2, ..., hv`. The microcode part is printed
    /// only if `microcode` is given (an error prints as "unavailable"); on
    /// aarch64 the prefix is HotSpot's `0xIMPL:0xVARIANT:0xPART:REV`.
    pub fn features_string(&self, microcode: Option<&Result<Microcode, MicrocodeError>>) -> String {
        let mut s = String::new();
        if self.isa() == Isa::Aarch64 {
            let _ = write!(
                s,
                "{}:{:#x}:{:#x}:{}",
                if self.vendor_string.is_empty() {
                    "0x0"
                } else {
                    &self.vendor_string
                },
                self.family,
                self.model,
                self.stepping
            );
        } else {
            let _ = write!(
                s,
                "({} cores per cpu, {} threads per core) family {} model {} stepping {}",
                self.cores_per_package, self.threads_per_core, self.family, self.model, self.stepping
            );
        }
        match microcode {
            None => {}
            Some(Ok(m)) => {
                let _ = write!(s, " microcode {:#x}", m.revision);
            }
            Some(Err(_)) => s.push_str(" microcode unavailable"),
        }
        for f in self.features.iter() {
            s.push_str(", ");
            s.push_str(f.name());
        }
        s
    }
}

/// One identification and what it cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeasuredIdentification {
    /// The result.
    pub info: CpuInfo,
    /// CPUID instructions executed (0 on aarch64).
    pub cpuid_instructions: u32,
    /// Every file opened, in order (none on x86-64; the MIDR file on
    /// aarch64).
    pub files_opened: Vec<String>,
    /// Wall-clock time, including the affinity system call.
    pub elapsed: Duration,
}

static FIRST_IDENTIFICATION: OnceLock<MeasuredIdentification> = OnceLock::new();

/// The CPU this process runs on, identified on first call and cached.
#[inline]
pub fn info() -> &'static CpuInfo {
    &first_identification().info
}

/// The identification [`info`] returns, with its cost: the CPUID count and
/// the time the first call took.
#[inline]
pub fn first_identification() -> &'static MeasuredIdentification {
    FIRST_IDENTIFICATION.get_or_init(identify_fresh)
}

/// A fresh, uncached identification of this CPU by the default path (what
/// the first [`info`] call does). For measuring it; everything else should
/// call [`info`].
#[cold]
pub fn identify_fresh() -> MeasuredIdentification {
    #[cfg(target_arch = "x86_64")]
    {
        testing::identify_x86_with(&cpuid::NativeCpuid::new(), &files::NativeFiles)
    }
    #[cfg(target_arch = "aarch64")]
    {
        testing::identify_aarch64_with(&aarch64::NativeAarch64, &files::NativeFiles)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let start = Instant::now();
        let logical = available_cpus();
        MeasuredIdentification {
            info: CpuInfo {
                vendor: Vendor::Other,
                vendor_string: String::new(),
                family: 0,
                model: 0,
                stepping: 0,
                brand: String::new(),
                features: Features::default(),
                clflush_line_size: 64,
                cache_line_size: 64,
                icache_line_size: 64,
                logical_cpus: logical,
                threads_per_core: 1,
                cores_per_package: logical,
                hypervisor: None,
                midr: None,
            },
            cpuid_instructions: 0,
            files_opened: Vec::new(),
            elapsed: start.elapsed(),
        }
    }
}

static MICROCODE: OnceLock<Result<Microcode, MicrocodeError>> = OnceLock::new();

/// The microcode revision of CPU 0: sysfs first, /proc/cpuinfo as the
/// fallback, computed on first call (never by [`info`]) and cached. The
/// result carries each attempt's source and cost; a missing or unparsable
/// file is an error value.
pub fn microcode() -> Result<Microcode, MicrocodeError> {
    MICROCODE
        .get_or_init(|| microcode::read_microcode(&files::NativeFiles, &MicrocodeSource::DEFAULT_ORDER))
        .clone()
}

/// HotSpot's VM features string for this CPU; the microcode part (and its
/// file access) only if `with_microcode`.
pub fn features_string(with_microcode: bool) -> String {
    let mc = with_microcode.then(microcode);
    info().features_string(mc.as_ref())
}

//! CPU identification at startup (seed 002: /proc/cpuinfo stalls cold start).
//!
//! Where it sits: [`info`] is the first thing any strategy resolution asks
//! (`config` validates requested instructions against it, `spin`, `code` pick
//! `auto` from it). It must therefore be cheap and must never touch /proc:
//! the first call executes a handful of CPUID instructions (each a VM exit
//! under a hypervisor) and caches the result for the life of the process.
//!
//! NOTE: skeleton. The foundation issue completes this module (injectable
//! sources, recorded-machine fixtures, microcode, the features string,
//! aarch64); the public shape below is what the other subsystems rely on.

use std::sync::OnceLock;

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

/// The instruction-set features the project gates instructions on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Feature {
    /// SSE2 (baseline on x86-64).
    Sse2,
    /// AVX.
    Avx,
    /// AVX2.
    Avx2,
    /// AVX-512 Foundation.
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
}

impl Feature {
    const fn bit(self) -> u64 {
        1 << (self as u32)
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
}

/// What the process knows about the CPU it runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CpuInfo {
    /// Vendor.
    pub vendor: Vendor,
    /// The raw vendor string ("GenuineIntel", ...), or the MIDR implementer in hex.
    pub vendor_string: String,
    /// Display family (base + extended, as Linux prints it).
    pub family: u32,
    /// Display model (base + extended << 4 where applicable).
    pub model: u32,
    /// Stepping.
    pub stepping: u32,
    /// Brand string, trimmed ("" where the CPU has none).
    pub brand: String,
    /// Feature bits.
    pub features: Features,
    /// CLFLUSH line size in bytes (CPUID.1:EBX\[15:8\] × 8); the data cache
    /// line on aarch64 (CTR_EL0.DminLine).
    pub clflush_line_size: u32,
    /// Data cache line size in bytes.
    pub cache_line_size: u32,
    /// Instruction cache line size in bytes (CTR_EL0.IminLine on aarch64;
    /// equal to the data line on x86).
    pub icache_line_size: u32,
    /// Logical CPUs available to this process.
    pub logical_cpus: u32,
    /// Hypervisor vendor signature (CPUID leaf 0x4000_0000), when one is present.
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
}

static INFO: OnceLock<CpuInfo> = OnceLock::new();

/// The CPU this process runs on, identified on first call and cached.
pub fn info() -> &'static CpuInfo {
    INFO.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> CpuInfo {
    use crate::arch::x86_64::cpuid;
    let l0 = cpuid(0, 0);
    let mut vs = Vec::with_capacity(12);
    for r in [l0.ebx, l0.edx, l0.ecx] {
        vs.extend_from_slice(&r.to_le_bytes());
    }
    let vendor_string = String::from_utf8_lossy(&vs).into_owned();
    let vendor = match vendor_string.as_str() {
        "GenuineIntel" => Vendor::Intel,
        "AuthenticAMD" | "HygonGenuine" => Vendor::Amd,
        _ => Vendor::Other,
    };
    let l1 = cpuid(1, 0);
    let base_family = (l1.eax >> 8) & 0xf;
    let ext_family = (l1.eax >> 20) & 0xff;
    let base_model = (l1.eax >> 4) & 0xf;
    let ext_model = (l1.eax >> 16) & 0xf;
    let family = if base_family == 0xf {
        base_family + ext_family
    } else {
        base_family
    };
    let model = if base_family == 0x6 || base_family == 0xf {
        (ext_model << 4) | base_model
    } else {
        base_model
    };
    let mut f = Features::default();
    let mut set = |cond: bool, feat| {
        if cond {
            f.insert(feat)
        }
    };
    set(l1.edx & (1 << 26) != 0, Feature::Sse2);
    set(l1.edx & (1 << 19) != 0, Feature::Clflush);
    set(l1.ecx & (1 << 28) != 0, Feature::Avx);
    set(l1.ecx & (1 << 31) != 0, Feature::Hypervisor);
    if l0.eax >= 7 {
        let l7 = cpuid(7, 0);
        set(l7.ebx & (1 << 5) != 0, Feature::Avx2);
        set(l7.ebx & (1 << 16) != 0, Feature::Avx512f);
        set(l7.ebx & (1 << 23) != 0, Feature::Clflushopt);
        set(l7.ebx & (1 << 24) != 0, Feature::Clwb);
        set(l7.ecx & (1 << 5) != 0, Feature::Waitpkg);
        set(l7.edx & (1 << 14) != 0, Feature::Serialize);
    }
    let ext = cpuid(0x8000_0000, 0);
    if ext.eax >= 0x8000_0001 {
        set(cpuid(0x8000_0001, 0).edx & (1 << 27) != 0, Feature::Rdtscp);
    }
    let mut brand = String::new();
    if ext.eax >= 0x8000_0004 {
        let mut b = Vec::with_capacity(48);
        for leaf in 0x8000_0002..=0x8000_0004 {
            let r = cpuid(leaf, 0);
            for x in [r.eax, r.ebx, r.ecx, r.edx] {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        brand = String::from_utf8_lossy(&b).trim_matches(['\0', ' ']).to_string();
    }
    let hypervisor = f.has(Feature::Hypervisor).then(|| {
        let h = cpuid(0x4000_0000, 0);
        let mut b = Vec::with_capacity(12);
        for x in [h.ebx, h.ecx, h.edx] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        String::from_utf8_lossy(&b).trim_matches(['\0', ' ']).to_string()
    });
    let line = ((l1.ebx >> 8) & 0xff) * 8;
    let line = if line == 0 { 64 } else { line };
    CpuInfo {
        vendor,
        vendor_string,
        family,
        model,
        stepping: l1.eax & 0xf,
        brand,
        features: f,
        clflush_line_size: line,
        cache_line_size: line,
        icache_line_size: line,
        logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        hypervisor,
        midr: None,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> CpuInfo {
    CpuInfo {
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
        logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        hypervisor: None,
        midr: None,
    }
}

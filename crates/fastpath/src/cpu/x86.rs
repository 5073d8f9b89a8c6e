//! x86-64 identification: CPUID leaves → [`CpuInfo`].
//!
//! Where it sits: called once per process by [`super::first_identification`]
//! with the real CPU, and by the tests with recorded machines. It asks a
//! [`CpuidSource`] for a fixed, short list of leaves and decodes them; it
//! opens no file and makes no system call (the caller supplies the logical
//! CPU count).
//!
//! Theory of operation: every CPUID is a VM exit under a hypervisor (about
//! 4 µs on this project's KVM guest per `fastpath cpu --timing`, against
//! tens to hundreds of cycles on bare metal), so the decoder executes each
//! leaf it needs exactly once, in the order below, and none it does not.
//! HotSpot's `VM_Version::get_processor_features` executes dozens, and its
//! `check_virtualizations` scans 0x4000_0000 + 0x100·i for up to 256 leaves
//! looking for a known signature (Linux's `hypervisor_cpuid_base` does the
//! same scan for KVM, whose interface may sit at 0x4000_0100 when it also
//! offers Hyper-V's at 0x4000_0000). Naming the hypervisor needs only the
//! signature at 0x4000_0000, so this asks that one leaf:
//!
//! | leaf | why | when |
//! |---|---|---|
//! | 0 | max leaf, vendor | always |
//! | 1 | signature, SSE*/AVX/CLFLUSH bits, CLFLUSH line, hypervisor bit | always |
//! | 7.0 | AVX2, AVX-512F, CLFLUSHOPT, CLWB, WAITPKG, SERIALIZE | max ≥ 7 |
//! | 0xB.0, 0xB.1 | threads per core, logical CPUs per package | max ≥ 0xB |
//! | 4.0, 4.1 | L1 data / instruction line size (Intel and others) | not AMD, max ≥ 4 |
//! | 0x8000_0000 | max extended leaf | always |
//! | 0x8000_0001 | RDTSCP | ext ≥ 0x8000_0001 |
//! | 0x8000_0002..4 | brand string | ext ≥ 0x8000_0004 |
//! | 0x8000_0005 | L1 data / instruction line size (AMD, Hygon) | AMD |
//! | 0x4000_0000 | hypervisor vendor | hypervisor bit set |
//!
//! At most 13 CPUIDs (Intel with a hypervisor); XGETBV (read with leaf 1
//! already in hand) is not a CPUID and does not exit.
//!
//! AVX and AVX-512 are reported only when XCR0 says the OS saves their
//! registers (Intel SDM vol. 1 §14.3, "Detection of AVX instructions"), as
//! HotSpot and std_detect do: a CPU bit without OS support would be SIGILL
//! in the making.

use super::cpuid::{CpuidSource, Leaf};
use super::{CpuInfo, Feature, Features, Vendor};

/// Bits of CPUID.1:ECX.
mod l1_ecx {
    pub const SSE3: u32 = 1 << 0;
    pub const SSSE3: u32 = 1 << 9;
    pub const FMA: u32 = 1 << 12;
    pub const CX16: u32 = 1 << 13;
    pub const SSE41: u32 = 1 << 19;
    pub const SSE42: u32 = 1 << 20;
    pub const POPCNT: u32 = 1 << 23;
    pub const OSXSAVE: u32 = 1 << 27;
    pub const AVX: u32 = 1 << 28;
    pub const HYPERVISOR: u32 = 1 << 31;
}

/// Bits of CPUID.1:EDX.
mod l1_edx {
    pub const CLFSH: u32 = 1 << 19;
    pub const SSE2: u32 = 1 << 26;
    pub const HTT: u32 = 1 << 28;
}

/// Bits of CPUID.7.0:EBX / ECX / EDX.
mod l7 {
    pub const EBX_BMI1: u32 = 1 << 3;
    pub const EBX_AVX2: u32 = 1 << 5;
    pub const EBX_BMI2: u32 = 1 << 8;
    pub const EBX_ERMS: u32 = 1 << 9;
    pub const EBX_AVX512F: u32 = 1 << 16;
    pub const EBX_AVX512DQ: u32 = 1 << 17;
    pub const EBX_CLFLUSHOPT: u32 = 1 << 23;
    pub const EBX_CLWB: u32 = 1 << 24;
    pub const EBX_AVX512BW: u32 = 1 << 30;
    pub const EBX_AVX512VL: u32 = 1 << 31;
    pub const ECX_WAITPKG: u32 = 1 << 5;
    pub const EDX_FSRM: u32 = 1 << 4;
    pub const EDX_SERIALIZE: u32 = 1 << 14;
}

/// CPUID.80000001H:EDX.RDTSCP.
const EXT1_EDX_RDTSCP: u32 = 1 << 27;
/// CPUID.80000001H:ECX: LZCNT (AMD's ABM bit).
const EXT1_ECX_LZCNT: u32 = 1 << 5;

/// XCR0 state components: SSE (XMM) and AVX (upper YMM) state.
const XCR0_AVX: u64 = 0b110;
/// XCR0 state components for AVX-512: opmask, ZMM_Hi256, Hi16_ZMM, plus
/// the AVX ones.
const XCR0_AVX512: u64 = 0b1110_0110;

/// The four-byte chunks of registers as text, NULs and padding trimmed.
fn ascii(regs: &[u32]) -> String {
    let bytes: Vec<u8> = regs.iter().flat_map(|r| r.to_le_bytes()).collect();
    String::from_utf8_lossy(&bytes)
        .trim_matches(|c: char| c == '\0' || c.is_whitespace())
        .to_string()
}

/// Decodes the CPU behind `src`. `logical_cpus` is what the OS lets this
/// process run on (the caller asks the kernel; CPUID cannot know).
pub(crate) fn decode(src: &dyn CpuidSource, logical_cpus: u32) -> CpuInfo {
    let l0 = src.cpuid(0, 0);
    let max_leaf = l0.eax;
    let vendor_string = ascii(&[l0.ebx, l0.edx, l0.ecx]);
    let vendor = match vendor_string.as_str() {
        "GenuineIntel" => Vendor::Intel,
        // Hygon's Dhyana is a licensed Zen: AMD's leaves mean the same.
        "AuthenticAMD" | "HygonGenuine" => Vendor::Amd,
        _ => Vendor::Other,
    };

    let l1 = if max_leaf >= 1 {
        src.cpuid(1, 0)
    } else {
        Leaf::default()
    };
    let (family, model, stepping) = signature(l1.eax);

    let mut f = Features::default();
    let mut set = |present: bool, feature| {
        if present {
            f.insert(feature);
        }
    };
    let has = |reg: u32, bit: u32| reg & bit != 0;
    set(has(l1.edx, l1_edx::SSE2), Feature::Sse2);
    set(has(l1.edx, l1_edx::CLFSH), Feature::Clflush);
    set(has(l1.ecx, l1_ecx::SSE3), Feature::Sse3);
    set(has(l1.ecx, l1_ecx::SSSE3), Feature::Ssse3);
    set(has(l1.ecx, l1_ecx::SSE41), Feature::Sse41);
    set(has(l1.ecx, l1_ecx::SSE42), Feature::Sse42);
    set(has(l1.ecx, l1_ecx::POPCNT), Feature::Popcnt);
    set(has(l1.ecx, l1_ecx::CX16), Feature::Cx16);
    set(has(l1.ecx, l1_ecx::HYPERVISOR), Feature::Hypervisor);

    // Leaf 1 is in hand, so the source reads XCR0 without another CPUID.
    let xcr0 = if has(l1.ecx, l1_ecx::OSXSAVE) {
        src.xcr0().unwrap_or(0)
    } else {
        0
    };
    let avx_os = xcr0 & XCR0_AVX == XCR0_AVX;
    let avx512_os = xcr0 & XCR0_AVX512 == XCR0_AVX512;
    set(avx_os && has(l1.ecx, l1_ecx::AVX), Feature::Avx);
    set(avx_os && has(l1.ecx, l1_ecx::FMA), Feature::Fma);

    if max_leaf >= 7 {
        let l7 = src.cpuid(7, 0);
        set(avx_os && has(l7.ebx, l7::EBX_AVX2), Feature::Avx2);
        set(avx512_os && has(l7.ebx, l7::EBX_AVX512F), Feature::Avx512f);
        set(avx512_os && has(l7.ebx, l7::EBX_AVX512DQ), Feature::Avx512dq);
        set(avx512_os && has(l7.ebx, l7::EBX_AVX512BW), Feature::Avx512bw);
        set(avx512_os && has(l7.ebx, l7::EBX_AVX512VL), Feature::Avx512vl);
        set(has(l7.ebx, l7::EBX_BMI1), Feature::Bmi1);
        set(has(l7.ebx, l7::EBX_BMI2), Feature::Bmi2);
        set(has(l7.ebx, l7::EBX_ERMS), Feature::Erms);
        set(has(l7.ebx, l7::EBX_CLFLUSHOPT), Feature::Clflushopt);
        set(has(l7.ebx, l7::EBX_CLWB), Feature::Clwb);
        set(has(l7.ecx, l7::ECX_WAITPKG), Feature::Waitpkg);
        set(has(l7.edx, l7::EDX_FSRM), Feature::Fsrm);
        set(has(l7.edx, l7::EDX_SERIALIZE), Feature::Serialize);
    }

    let (threads_per_core, logical_per_package) = topology(src, max_leaf, l1);

    let ext_max = src.cpuid(0x8000_0000, 0).eax;
    let ext_max = if ext_max & 0x8000_0000 != 0 { ext_max } else { 0 };
    if ext_max >= 0x8000_0001 {
        let ext1 = src.cpuid(0x8000_0001, 0);
        set(has(ext1.edx, EXT1_EDX_RDTSCP), Feature::Rdtscp);
        set(has(ext1.ecx, EXT1_ECX_LZCNT), Feature::Lzcnt);
    }
    let brand = if ext_max >= 0x8000_0004 {
        let mut regs = Vec::with_capacity(12);
        for leaf in 0x8000_0002..=0x8000_0004 {
            let l = src.cpuid(leaf, 0);
            regs.extend_from_slice(&[l.eax, l.ebx, l.ecx, l.edx]);
        }
        ascii(&regs)
    } else {
        String::new()
    };

    // CLFLUSH line: CPUID.1:EBX[15:8] in 8-byte units.
    let clflush = ((l1.ebx >> 8) & 0xff) * 8;
    let clflush_line_size = if clflush == 0 { 64 } else { clflush };
    let (dline, iline) = l1_lines(src, vendor, max_leaf, ext_max);
    let cache_line_size = dline.unwrap_or(clflush_line_size);
    let icache_line_size = iline.unwrap_or(cache_line_size);

    // One CPUID, not HotSpot's scan of up to 256 leaves: the primary
    // signature is always at 0x4000_0000 (a KVM that also emulates
    // Hyper-V answers "Microsoft Hv" there, which is what it presents).
    let hypervisor = f
        .has(Feature::Hypervisor)
        .then(|| {
            let h = src.cpuid(0x4000_0000, 0);
            ascii(&[h.ebx, h.ecx, h.edx])
        })
        .map(|s| {
            s.chars()
                .filter(|c| c.is_ascii_graphic() || *c == ' ')
                .collect::<String>()
        });

    CpuInfo {
        vendor,
        vendor_string,
        family,
        model,
        stepping,
        brand,
        features: f,
        clflush_line_size,
        cache_line_size,
        icache_line_size,
        logical_cpus,
        threads_per_core,
        cores_per_package: (logical_per_package / threads_per_core).max(1),
        hypervisor,
        midr: None,
    }
}

/// (family, model, stepping) from CPUID.1:EAX, as Linux prints them
/// (arch/x86/lib/cpu.c `x86_family`/`x86_model`): the extended family is
/// added only when the base family is 0xF, and the extended model is
/// prepended when the family is 6 or above 0xF.
pub(crate) fn signature(eax: u32) -> (u32, u32, u32) {
    let stepping = eax & 0xf;
    let base_model = (eax >> 4) & 0xf;
    let base_family = (eax >> 8) & 0xf;
    let ext_model = (eax >> 16) & 0xf;
    let ext_family = (eax >> 20) & 0xff;
    let family = if base_family == 0xf {
        base_family + ext_family
    } else {
        base_family
    };
    let model = if family >= 6 {
        (ext_model << 4) | base_model
    } else {
        base_model
    };
    (family, model, stepping)
}

/// (threads per core, logical CPUs per package).
///
/// Leaf 0xB (x2APIC topology, Intel since Nehalem, AMD since Zen 2 via
/// TOPOEXT): subleaf 0 is the SMT level, subleaf 1 the core level, each
/// reporting the logical processors at and below it in EBX[15:0]. Without
/// it, CPUID.1:EBX[23:16] (logical IDs per package, when HTT is set) with
/// one thread per core: HotSpot's fallback too.
fn topology(src: &dyn CpuidSource, max_leaf: u32, l1: Leaf) -> (u32, u32) {
    const SMT: u32 = 1;
    const CORE: u32 = 2;
    let level_type = |l: Leaf| (l.ecx >> 8) & 0xff;
    let count = |l: Leaf| l.ebx & 0xffff;
    if max_leaf >= 0xb {
        let smt = src.cpuid(0xb, 0);
        if level_type(smt) == SMT && count(smt) != 0 {
            let core = src.cpuid(0xb, 1);
            if level_type(core) == CORE && count(core) >= count(smt) {
                return (count(smt), count(core));
            }
            return (count(smt), count(smt));
        }
    }
    let logical = if l1.edx & l1_edx::HTT != 0 {
        ((l1.ebx >> 16) & 0xff).max(1)
    } else {
        1
    };
    (1, logical)
}

/// L1 data and instruction line sizes, one or two CPUIDs.
fn l1_lines(
    src: &dyn CpuidSource,
    vendor: Vendor,
    max_leaf: u32,
    ext_max: u32,
) -> (Option<u32>, Option<u32>) {
    let nonzero = |v: u32| (v != 0).then_some(v);
    if vendor == Vendor::Amd {
        // AMD APM vol. 3, CPUID Fn8000_0005: ECX[7:0] L1 data line size,
        // EDX[7:0] L1 instruction line size, in bytes.
        if ext_max >= 0x8000_0005 {
            let l = src.cpuid(0x8000_0005, 0);
            return (nonzero(l.ecx & 0xff), nonzero(l.edx & 0xff));
        }
        return (None, None);
    }
    // Intel SDM, CPUID leaf 4 (deterministic cache parameters): EAX[4:0]
    // is the type (1 data, 2 instruction, 3 unified), EBX[11:0] + 1 the
    // line size. Subleaves 0 and 1 are the L1 caches on every Intel part.
    let (mut d, mut i) = (None, None);
    if max_leaf >= 4 {
        for sub in 0..2 {
            let l = src.cpuid(4, sub);
            let line = (l.ebx & 0xfff) + 1;
            match l.eax & 0x1f {
                1 => d = d.or(Some(line)),
                2 => i = i.or(Some(line)),
                3 => {
                    d = d.or(Some(line));
                    i = i.or(Some(line));
                }
                _ => {}
            }
        }
    }
    (d, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_decode_as_linux_prints_them() {
        // Sapphire Rapids 0x806F8: family 6, model 0x8F = 143, stepping 8.
        assert_eq!(signature(0x0008_06F8), (6, 143, 8));
        // Zen 4 Genoa 0xA10F11: family 0xF + 0xA = 25, model 0x11.
        assert_eq!(signature(0x00A1_0F11), (25, 0x11, 1));
        // This project's own Zen 5 guest, 0xB00F21: family 0xF + 0xB = 26,
        // model 2, stepping 1.
        assert_eq!(signature(0x00B0_0F21), (26, 2, 1));
        // A Pentium (family 5): no extended model.
        assert_eq!(signature(0x0000_0543), (5, 4, 3));
    }
}

//! CPU identification from C: the cached identification as a struct, the
//! feature names, HotSpot's features string, and the microcode revision on
//! request (over `fastpath::cpu`, seed 002: identification never opens a
//! file; only the microcode does).

use core::ffi::c_char;

use fastpath_core::cpu::{self, Feature, Isa, Vendor};

use crate::status::fastpath_status::{self, *};
use crate::status::{copy_out, fail, ffi, put};

/// CPU vendor.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum fastpath_cpu_vendor {
    /// Anything else.
    FASTPATH_VENDOR_OTHER = 0,
    /// "GenuineIntel".
    FASTPATH_VENDOR_INTEL = 1,
    /// "AuthenticAMD" or "HygonGenuine".
    FASTPATH_VENDOR_AMD = 2,
    /// Arm Ltd.
    FASTPATH_VENDOR_ARM = 3,
    /// Ampere Computing.
    FASTPATH_VENDOR_AMPERE = 4,
}

/// Instruction set.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum fastpath_isa {
    /// Nothing identified.
    FASTPATH_ISA_OTHER = 0,
    /// x86-64.
    FASTPATH_ISA_X86_64 = 1,
    /// AArch64.
    FASTPATH_ISA_AARCH64 = 2,
}

/// The CPU this process runs on (`fastpath_cpu_get_info`). Strings are
/// NUL-terminated and truncated to fit.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct fastpath_cpu_info {
    /// Vendor.
    pub vendor: fastpath_cpu_vendor,
    /// Instruction set.
    pub isa: fastpath_isa,
    /// x86: display family; aarch64: MIDR variant.
    pub family: u32,
    /// x86: display model; aarch64: MIDR part number.
    pub model: u32,
    /// x86: stepping; aarch64: MIDR revision.
    pub stepping: u32,
    /// CLFLUSH line (x86) or data cache line (aarch64), bytes.
    pub clflush_line_size: u32,
    /// L1 data cache line, bytes.
    pub cache_line_size: u32,
    /// L1 instruction cache line, bytes.
    pub icache_line_size: u32,
    /// Logical CPUs available to this process.
    pub logical_cpus: u32,
    /// Hardware threads per core.
    pub threads_per_core: u32,
    /// Cores per package.
    pub cores_per_package: u32,
    /// Feature bits: bit `i` set if the CPU has feature `i`, named by
    /// `fastpath_cpu_feature_name(i)`.
    pub features: u64,
    /// MIDR_EL1 on aarch64, else 0.
    pub midr: u64,
    /// Whether a hypervisor was detected (its signature in `hypervisor`).
    pub has_hypervisor: bool,
    /// The raw vendor string ("AuthenticAMD", ...).
    pub vendor_string: [c_char; 16],
    /// The brand string.
    pub brand: [c_char; 64],
    /// The hypervisor's signature ("KVMKVMKVM"), "" if none.
    pub hypervisor: [c_char; 16],
}

/// Number of feature bits defined (`fastpath_cpu_feature_name`).
pub const FASTPATH_CPU_FEATURES: u32 = 33;
const _: () = assert!(FASTPATH_CPU_FEATURES as usize == Feature::ALL.len());

/// The features by C bit number: bit `i` of `fastpath_cpu_info::features`
/// is `C_BITS[i]`. A feature the library adds takes the next bit, so a C
/// program's bit numbers stay valid across versions (the features string
/// prints in [`Feature::ALL`]'s order, which may place it elsewhere).
const C_BITS: [Feature; FASTPATH_CPU_FEATURES as usize] = [
    Feature::Sse2,
    Feature::Sse3,
    Feature::Ssse3,
    Feature::Sse41,
    Feature::Sse42,
    Feature::Popcnt,
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
    Feature::Lzcnt,
];

/// `text` as a NUL-terminated, truncated C array.
fn fixed<const N: usize>(text: &str) -> [c_char; N] {
    let mut out = [0 as c_char; N];
    for (o, b) in out.iter_mut().zip(text.bytes().take(N - 1)) {
        *o = b as c_char;
    }
    out
}

/// Fills `*out` with the CPU's identification (cached after the first
/// call, which executes CPUID, no file access). Thread-safe.
#[no_mangle]
pub extern "C" fn fastpath_cpu_get_info(out: *mut fastpath_cpu_info) -> fastpath_status {
    ffi(|| {
        let i = cpu::info();
        let features = C_BITS
            .iter()
            .enumerate()
            .filter(|(_, f)| i.has(**f))
            .fold(0u64, |acc, (bit, _)| acc | 1 << bit);
        put(
            out,
            fastpath_cpu_info {
                vendor: match i.vendor {
                    Vendor::Intel => fastpath_cpu_vendor::FASTPATH_VENDOR_INTEL,
                    Vendor::Amd => fastpath_cpu_vendor::FASTPATH_VENDOR_AMD,
                    Vendor::Arm => fastpath_cpu_vendor::FASTPATH_VENDOR_ARM,
                    Vendor::Ampere => fastpath_cpu_vendor::FASTPATH_VENDOR_AMPERE,
                    _ => fastpath_cpu_vendor::FASTPATH_VENDOR_OTHER,
                },
                isa: match i.isa() {
                    Isa::X86_64 => fastpath_isa::FASTPATH_ISA_X86_64,
                    Isa::Aarch64 => fastpath_isa::FASTPATH_ISA_AARCH64,
                    _ => fastpath_isa::FASTPATH_ISA_OTHER,
                },
                family: i.family,
                model: i.model,
                stepping: i.stepping,
                clflush_line_size: i.clflush_line_size,
                cache_line_size: i.cache_line_size,
                icache_line_size: i.icache_line_size,
                logical_cpus: i.logical_cpus,
                threads_per_core: i.threads_per_core,
                cores_per_package: i.cores_per_package,
                features,
                midr: i.midr.unwrap_or(0),
                has_hypervisor: i.hypervisor.is_some(),
                vendor_string: fixed(&i.vendor_string),
                brand: fixed(&i.brand),
                hypervisor: fixed(i.hypervisor.as_deref().unwrap_or("")),
            },
        )
    })
}

/// The name of feature bit `bit` (e.g. `"sse2"`), static; NULL if `bit` is
/// not defined.
#[no_mangle]
pub extern "C" fn fastpath_cpu_feature_name(bit: u32) -> *const c_char {
    // Names are static Rust strings without NULs; keep NUL-terminated
    // copies, built once.
    static NAMES: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        C_BITS
            .iter()
            .map(|f| std::ffi::CString::new(f.name()).unwrap_or_default())
            .collect()
    });
    names.get(bit as usize).map_or(core::ptr::null(), |n| n.as_ptr())
}

/// HotSpot's one-line VM features string (`(2 cores per cpu, 1 threads per
/// core) family 26 ... sse2, ...`), copied into `buf` with the `snprintf`
/// convention. `with_microcode` adds the microcode revision (reads a file,
/// once).
#[no_mangle]
pub extern "C" fn fastpath_cpu_features_string(
    with_microcode: bool,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> fastpath_status {
    ffi(|| copy_out(&cpu::features_string(with_microcode), buf, cap, needed))
}

/// The microcode revision of CPU 0 (sysfs, else /proc/cpuinfo; read on the
/// first call only). `FASTPATH_ERR_UNAVAILABLE` with every attempt in
/// `fastpath_last_error()` where neither answers.
#[no_mangle]
pub extern "C" fn fastpath_cpu_microcode(out: *mut u64) -> fastpath_status {
    ffi(|| match cpu::microcode() {
        Ok(m) => put(out, m.revision),
        Err(e) => Err(fail(FASTPATH_ERR_UNAVAILABLE, e)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::ffi::CStr;

    #[test]
    fn feature_names_match_the_library() {
        // Every feature has one bit.
        for f in Feature::ALL {
            assert_eq!(C_BITS.iter().filter(|&&g| g == f).count(), 1, "{f:?}");
        }
        // The bits C programs were built against keep their features.
        assert_eq!(
            (C_BITS[0], C_BITS[5], C_BITS[31]),
            (Feature::Sse2, Feature::Popcnt, Feature::Hypervisor)
        );
        for (i, f) in C_BITS.iter().enumerate() {
            // SAFETY: non-NULL for defined bits, static, NUL-terminated.
            let name = unsafe { CStr::from_ptr(fastpath_cpu_feature_name(i as u32)) };
            assert_eq!(name.to_str(), Ok(f.name()));
        }
        assert!(fastpath_cpu_feature_name(FASTPATH_CPU_FEATURES).is_null());
    }

    #[test]
    fn long_strings_are_truncated_with_a_nul() {
        let a: [c_char; 4] = fixed("abcdef");
        assert_eq!(a, [b'a' as c_char, b'b' as c_char, b'c' as c_char, 0]);
    }
}

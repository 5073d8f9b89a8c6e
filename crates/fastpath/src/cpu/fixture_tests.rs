//! Decoding recorded machines (`cpu/fixtures/`), and what the default path
//! may touch.
//!
//! Each fixture is a real CPUID dump: this project's own KVM guest
//! (recorded with `fastpath cpu --dump`) and four bare-metal CPUs published
//! by InstLatx64 (source cited at the top of each file). The expected values
//! below were read off the dumps by hand against the Intel SDM / AMD APM
//! bit definitions, not produced by the decoder.

use super::cpuid::{CpuidSource, RecordedCpuid};
use super::files::{FileSource, RecordedFiles};
use super::microcode::{self, MicrocodeSource};
use super::{x86, CpuInfo, Feature, Vendor};

const THIS_MACHINE: &str = include_str!("fixtures/this_machine_amd_zen5_kvm.txt");
const SAPPHIRE_RAPIDS: &str = include_str!("fixtures/intel_sapphire_rapids_w7_2475x.txt");
const GENOA: &str = include_str!("fixtures/amd_zen4_genoa_epyc_9654.txt");
const HASWELL: &str = include_str!("fixtures/intel_haswell_i7_4770.txt");
const SKYLAKE: &str = include_str!("fixtures/intel_skylake_i5_6400t.txt");

const ALL: [(&str, &str); 5] = [
    ("this machine", THIS_MACHINE),
    ("Sapphire Rapids", SAPPHIRE_RAPIDS),
    ("Genoa", GENOA),
    ("Haswell", HASWELL),
    ("Skylake", SKYLAKE),
];

/// The CPUID budget of the default path (the goal: each one is a
/// ~4 µs VM exit on this project's KVM guest).
const CPUID_BUDGET: u32 = 20;

/// Decodes a fixture; returns the result and the CPUIDs it took.
fn decode(text: &str) -> (CpuInfo, u32) {
    let src = RecordedCpuid::parse(text).expect("fixture parses");
    let info = x86::decode(&src, 4);
    (info, src.executed())
}

fn assert_features(c: &CpuInfo, present: &[Feature], absent: &[Feature]) {
    for f in present {
        assert!(c.has(*f), "{} should have {f:?}: {:?}", c.brand, c.features);
    }
    for f in absent {
        assert!(!c.has(*f), "{} should lack {f:?}: {:?}", c.brand, c.features);
    }
}

#[test]
fn this_machine_amd_zen5_kvm_guest() {
    let (c, cpuids) = decode(THIS_MACHINE);
    assert_eq!(c.vendor, Vendor::Amd);
    assert_eq!(c.vendor_string, "AuthenticAMD");
    assert_eq!((c.family, c.model, c.stepping), (26, 2, 1));
    assert_eq!(c.brand, "AMD EPYC");
    assert_features(
        &c,
        &[
            Feature::Sse2,
            Feature::Sse42,
            Feature::Avx,
            Feature::Avx2,
            Feature::Fma,
            Feature::Avx512f,
            Feature::Avx512vl,
            Feature::Clflush,
            Feature::Clflushopt,
            Feature::Clwb,
            Feature::Rdtscp,
            Feature::Lzcnt,
            Feature::Fsrm,
            Feature::Hypervisor,
        ],
        &[Feature::Serialize, Feature::Waitpkg, Feature::Sb],
    );
    assert_eq!(
        (c.cache_line_size, c.icache_line_size, c.clflush_line_size),
        (64, 64, 64)
    );
    assert_eq!(c.hypervisor.as_deref(), Some("KVMKVMKVM"));
    assert_eq!(c.hypervisor_name(), Some("KVM"));
    assert_eq!((c.cores_per_package, c.threads_per_core), (2, 1));
    // 0, 1, 7, 0xB×2, 0x8000_0000/1/2/3/4/5, 0x4000_0000.
    assert_eq!(cpuids, 12);
}

#[test]
fn intel_sapphire_rapids() {
    let (c, cpuids) = decode(SAPPHIRE_RAPIDS);
    assert_eq!(c.vendor, Vendor::Intel);
    assert_eq!((c.family, c.model, c.stepping), (6, 143, 8));
    assert_eq!(c.brand, "Intel(R) Xeon(R) w7-2475X");
    assert_features(
        &c,
        &[
            Feature::Avx512f,
            Feature::Avx512bw,
            Feature::Clflushopt,
            Feature::Clwb,
            Feature::Serialize,
            Feature::Waitpkg,
            Feature::Rdtscp,
            Feature::Lzcnt,
            Feature::Erms,
        ],
        &[Feature::Hypervisor],
    );
    assert_eq!(c.hypervisor, None, "bare metal: leaf 0x4000_0000 not asked");
    assert_eq!(
        (c.cache_line_size, c.icache_line_size, c.clflush_line_size),
        (64, 64, 64)
    );
    assert_eq!((c.cores_per_package, c.threads_per_core), (20, 2));
    // 0, 1, 7, 0xB×2, 4×2, 0x8000_0000/1/2/3/4.
    assert_eq!(cpuids, 12);
}

#[test]
fn amd_zen4_genoa() {
    let (c, cpuids) = decode(GENOA);
    assert_eq!(c.vendor, Vendor::Amd);
    assert_eq!((c.family, c.model, c.stepping), (25, 0x11, 1));
    assert_eq!(c.brand, "AMD EPYC 9654 96-Core Processor");
    assert_features(
        &c,
        &[
            Feature::Avx512f,
            Feature::Clflushopt,
            Feature::Clwb,
            Feature::Rdtscp,
            Feature::Lzcnt,
            Feature::Fsrm,
        ],
        &[Feature::Serialize, Feature::Waitpkg, Feature::Hypervisor],
    );
    assert_eq!(c.hypervisor, None);
    assert_eq!((c.cache_line_size, c.icache_line_size), (64, 64));
    assert_eq!((c.cores_per_package, c.threads_per_core), (96, 2));
    assert_eq!(cpuids, 11);
}

#[test]
fn intel_haswell_without_serialize_or_clwb() {
    let (c, cpuids) = decode(HASWELL);
    assert_eq!(c.vendor, Vendor::Intel);
    assert_eq!((c.family, c.model, c.stepping), (6, 60, 3));
    assert_eq!(c.brand, "Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz");
    assert_features(
        &c,
        &[
            Feature::Avx,
            Feature::Avx2,
            Feature::Fma,
            Feature::Bmi2,
            Feature::Clflush,
            Feature::Rdtscp,
            Feature::Lzcnt,
        ],
        &[
            Feature::Clflushopt,
            Feature::Clwb,
            Feature::Serialize,
            Feature::Waitpkg,
            Feature::Avx512f,
            Feature::Hypervisor,
        ],
    );
    assert_eq!((c.cache_line_size, c.clflush_line_size), (64, 64));
    assert_eq!((c.cores_per_package, c.threads_per_core), (4, 2));
    assert_eq!(cpuids, 12);
}

#[test]
fn intel_skylake_client_has_clflushopt_but_not_clwb() {
    let (c, _) = decode(SKYLAKE);
    assert_eq!((c.family, c.model, c.stepping), (6, 94, 3));
    assert_features(
        &c,
        &[Feature::Avx2, Feature::Clflushopt, Feature::Lzcnt],
        &[Feature::Clwb, Feature::Serialize, Feature::Avx512f],
    );
    assert_eq!((c.cores_per_package, c.threads_per_core), (4, 1));
}

#[test]
fn lzcnt_is_the_extended_leaf_s_abm_bit() {
    // The Haswell dump with CPUID.80000001H:ECX bit 5 (LZCNT/ABM) cleared,
    // LAHF/SAHF (bit 0) kept: the feature follows the bit alone.
    let row = "CPUID 80000001: 00000000-00000000-00000021-2C100000";
    assert!(HASWELL.contains(row));
    let text = HASWELL.replace(row, "CPUID 80000001: 00000000-00000000-00000001-2C100000");
    let (c, cpuids) = decode(&text);
    assert_features(&c, &[Feature::Rdtscp, Feature::Bmi1], &[Feature::Lzcnt]);
    assert_eq!(cpuids, decode(HASWELL).1, "the bit costs no CPUID of its own");
}

#[test]
fn avx_needs_the_os_to_save_ymm_state() {
    // The Haswell dump with an XCR0 that saves only x87|SSE (an OS
    // without AVX support): the CPU bits are set, the features are not.
    let text = format!("{HASWELL}\nXCR0 0000000000000003\n");
    let (c, _) = decode(&text);
    assert_features(
        &c,
        &[Feature::Sse42],
        &[Feature::Avx, Feature::Avx2, Feature::Fma],
    );
    // And AVX-512 needs the opmask/ZMM components on top.
    let text = format!("{SAPPHIRE_RAPIDS}\nXCR0 0000000000000007\n");
    let (c, _) = decode(&text);
    assert_features(&c, &[Feature::Avx2], &[Feature::Avx512f, Feature::Avx512vl]);
}

#[test]
fn every_fixture_decodes_within_the_cpuid_budget() {
    for (name, text) in ALL {
        let (c, cpuids) = decode(text);
        assert!(cpuids <= CPUID_BUDGET, "{name}: {cpuids} CPUIDs");
        assert!(c.has(Feature::Sse2), "{name}");
    }
}

#[test]
fn features_string_is_hotspot_shaped_and_microcode_only_when_given() {
    let (c, _) = decode(SAPPHIRE_RAPIDS);
    let plain = c.features_string(None);
    assert!(
        plain.starts_with("(20 cores per cpu, 2 threads per core) family 6 model 143 stepping 8, sse2, "),
        "{plain}"
    );
    assert!(
        plain.contains("serialize") && !plain.contains("microcode"),
        "{plain}"
    );

    let files = RecordedFiles::new().with(microcode::SYSFS_PATH, "0x2b000603\n");
    let mc = microcode::read_microcode(&files, &MicrocodeSource::DEFAULT_ORDER);
    let with = c.features_string(Some(&mc));
    assert!(with.contains("stepping 8 microcode 0x2b000603, sse2"), "{with}");

    let missing = microcode::read_microcode(&RecordedFiles::new(), &MicrocodeSource::DEFAULT_ORDER);
    assert!(c
        .features_string(Some(&missing))
        .contains("microcode unavailable"));

    let (kvm, _) = decode(THIS_MACHINE);
    assert!(kvm.features_string(None).ends_with(", hv"));
}

/// A file source that fails the test if anything is opened through it.
struct NoFiles;

impl FileSource for NoFiles {
    fn open(&self, path: &str) -> std::io::Result<Box<dyn std::io::BufRead + '_>> {
        panic!("the default identification path opened {path}");
    }
}

#[test]
fn default_path_opens_no_file_and_stays_within_the_cpuid_budget() {
    for (name, text) in ALL {
        let src = RecordedCpuid::parse(text).unwrap();
        let id = super::testing::identify_x86_with(&src, &NoFiles);
        assert!(id.files_opened.is_empty(), "{name}: {:?}", id.files_opened);
        assert!(
            id.cpuid_instructions <= CPUID_BUDGET,
            "{name}: {}",
            id.cpuid_instructions
        );
        assert_eq!(id.cpuid_instructions, src.executed(), "{name}");
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_real_cpu_through_the_default_path() {
    let native = super::cpuid::NativeCpuid::new();
    let id = super::testing::identify_x86_with(&native, &NoFiles);
    assert!(id.files_opened.is_empty());
    assert!(
        (1..=CPUID_BUDGET).contains(&id.cpuid_instructions),
        "{} CPUIDs",
        id.cpuid_instructions
    );
    println!(
        "default path on this CPU: {} CPUID instructions, {:?}, no file opened",
        id.cpuid_instructions, id.elapsed
    );

    // The cached path agrees with a fresh one, and counts the same.
    let cached = super::first_identification();
    assert_eq!(cached.info, id.info);
    assert_eq!(cached.cpuid_instructions, id.cpuid_instructions);
    assert!(std::ptr::eq(super::info(), super::info()));

    // Dumping the real CPU and decoding the dump gives the same answer:
    // the recorded-machine path is the real path.
    let recorded =
        RecordedCpuid::parse(&super::cpuid::dump_cpuid(&super::cpuid::NativeCpuid::new())).unwrap();
    assert_eq!(x86::decode(&recorded, id.info.logical_cpus), id.info);
}

#[test]
fn aarch64_default_path_opens_only_the_midr_file() {
    use super::aarch64::{RecordedAarch64, MIDR_PATH};
    let regs = RecordedAarch64 {
        hwcap: 0b11 | (1 << 8),
        hwcap2: 0,
        ctr_el0: 0x8444_c004,
        midr_el1: None,
    };
    let files = RecordedFiles::new()
        .with(MIDR_PATH, "0x00000000413fd0c1\n")
        .with(microcode::PROC_CPUINFO_PATH, "processor : 0\n");
    let id = super::testing::identify_aarch64_with(&regs, &files);
    assert_eq!(id.files_opened, [MIDR_PATH]);
    assert_eq!(id.cpuid_instructions, 0);
    assert_eq!(id.info.isa(), super::Isa::Aarch64);
    assert_eq!(id.info.brand, "Neoverse-N1");
}

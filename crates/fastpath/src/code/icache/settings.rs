//! `FASTPATH_ICACHE_SYNC`: the icache setting, owned here.
//!
//! Where it sits: this table says how each value is spelled, which
//! architecture and CPUs run it, and whether this CPU can;
//! [`super::ICacheStrategy::new`] turns the value into what executes, and
//! [`super::ICacheStrategy::from_config`] reads the process-wide value
//! ([`ICACHE_SYNC`]). The check ([`Choices::check`]) is `ICacheStrategy`'s own
//! resolution, so `config::init` refuses exactly what `CodeCache::new`
//! would, including `iret` on a thread with a CET user shadow stack.

use crate::cpu::{CpuInfo, Feature};
use crate::setting::{self, Choice, Choices, ProcessValue};

/// How newly written code is made visible to instruction fetch
/// (HotSpot `-XX:X86ICacheSync`, extended).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ICacheSync {
    /// The best choice for this CPU, resolved by `code`.
    #[default]
    Auto,
    /// No flush at all: the baseline (x86 snoops its instruction cache, so
    /// this is what the hardware guarantees for same-thread execution).
    None,
    /// MFENCE; CLFLUSH per line; MFENCE (X86ICacheSync=1).
    Clflush,
    /// SFENCE; CLFLUSHOPT per line; SFENCE (X86ICacheSync=2).
    Clflushopt,
    /// SFENCE; CLWB per line; SFENCE (X86ICacheSync=3).
    Clwb,
    /// One CPUID (X86ICacheSync=4).
    Cpuid,
    /// One SERIALIZE (X86ICacheSync=5).
    Serialize,
    /// One IRET to the next instruction: architecturally serializing, no VM
    /// exit, no SERIALIZE needed (Linux's `sync_core()` fallback). Refused
    /// while a CET user shadow stack is active on the calling thread.
    Iret,
    /// AArch64: DC CVAU, DSB ISH, IC IVAU, DSB ISH, ISB (as compiler-rt's
    /// `__clear_cache`).
    DcIc,
}

const X86: bool = cfg!(target_arch = "x86_64");
const ARM: bool = cfg!(target_arch = "aarch64");

impl Choices for ICacheSync {
    const VAR: &'static str = "FASTPATH_ICACHE_SYNC";
    const TABLE: &'static [Choice<Self>] = &[
        Choice::new(ICacheSync::Auto, "auto", true, "every CPU"),
        Choice::new(ICacheSync::None, "none", true, "every CPU"),
        Choice::new(ICacheSync::Clflush, "clflush", X86, "every x86-64 CPU"),
        Choice::new(
            ICacheSync::Clflushopt,
            "clflushopt",
            X86,
            "x86-64 CPUs with CLFLUSHOPT (Intel Skylake, AMD Zen and later)",
        ),
        Choice::new(
            ICacheSync::Clwb,
            "clwb",
            X86,
            "x86-64 CPUs with CLWB (Intel Skylake-SP/Ice Lake, AMD Zen 2 and later)",
        ),
        Choice::new(
            ICacheSync::Cpuid,
            "cpuid",
            X86,
            "every x86-64 CPU (a VM exit under a hypervisor)",
        ),
        Choice::new(
            ICacheSync::Serialize,
            "serialize",
            X86,
            "x86-64 CPUs with SERIALIZE (Intel Alder Lake, Sapphire Rapids and later)",
        ),
        Choice::new(
            ICacheSync::Iret,
            "iret",
            X86,
            "every x86-64 CPU, on threads without a CET user shadow stack",
        ),
        Choice::new(ICacheSync::DcIc, "dc-ic", ARM, "aarch64 CPUs"),
    ];

    fn check(self, cpu: &CpuInfo) -> Result<(), String> {
        super::resolve(self, cpu).map(|_| ())
    }
}

setting::choices_setting!(
    ICacheSync,
    "how new code is made visible to instruction fetch (HotSpot -XX:X86ICacheSync)"
);
setting::choices_api!(ICacheSync);

/// The process-wide strategy (`FASTPATH_ICACHE_SYNC`, or what
/// `config::init`/`set` installed).
pub(crate) static ICACHE_SYNC: ProcessValue<ICacheSync> = ProcessValue::new();

impl ICacheSync {
    /// The CPU feature this strategy executes, if any.
    pub fn required_feature(self) -> Option<Feature> {
        match self {
            ICacheSync::Clflush => Some(Feature::Clflush),
            ICacheSync::Clflushopt => Some(Feature::Clflushopt),
            ICacheSync::Clwb => Some(Feature::Clwb),
            ICacheSync::Serialize => Some(Feature::Serialize),
            _ => None,
        }
    }
}

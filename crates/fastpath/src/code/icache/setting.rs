//! `FASTPATH_ICACHE_SYNC`: the icache setting, owned here.
//!
//! Where it sits: `config` reads the variable and asks this table (through
//! [`Choices`]) how each value is spelled, which architecture and CPUs run
//! it, and whether this CPU can; [`super::Strategy::new`] turns the value
//! into what executes. The check ([`Choices::check`]) is `Strategy`'s own
//! resolution, so `config::init` refuses exactly what `CodeCache::new`
//! would, including `iret` on a thread with a CET user shadow stack.

use std::fmt;
use std::str::FromStr;

use crate::config::{
    count_on_this_arch, names_on_this_arch, parse_choice, validate_choice, variable_for, Choice, Choices,
    ConfigError, Setting, Variable,
};
use crate::cpu::{CpuInfo, Feature};

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

const fn choice(
    value: ICacheSync,
    name: &'static str,
    on_this_arch: bool,
    runs_on: &'static str,
) -> Choice<ICacheSync> {
    Choice {
        value,
        name,
        aliases: &[],
        on_this_arch,
        runs_on,
    }
}

impl Choices for ICacheSync {
    const VAR: &'static str = "FASTPATH_ICACHE_SYNC";
    const TABLE: &'static [Choice<Self>] = &[
        choice(ICacheSync::Auto, "auto", true, "every CPU"),
        choice(ICacheSync::None, "none", true, "every CPU"),
        choice(ICacheSync::Clflush, "clflush", X86, "every x86-64 CPU"),
        choice(
            ICacheSync::Clflushopt,
            "clflushopt",
            X86,
            "x86-64 CPUs with CLFLUSHOPT (Intel Skylake, AMD Zen and later)",
        ),
        choice(
            ICacheSync::Clwb,
            "clwb",
            X86,
            "x86-64 CPUs with CLWB (Intel Skylake-SP/Ice Lake, AMD Zen 2 and later)",
        ),
        choice(
            ICacheSync::Cpuid,
            "cpuid",
            X86,
            "every x86-64 CPU (a VM exit under a hypervisor)",
        ),
        choice(
            ICacheSync::Serialize,
            "serialize",
            X86,
            "x86-64 CPUs with SERIALIZE (Intel Alder Lake, Sapphire Rapids and later)",
        ),
        choice(
            ICacheSync::Iret,
            "iret",
            X86,
            "every x86-64 CPU, on threads without a CET user shadow stack",
        ),
        choice(ICacheSync::DcIc, "dc-ic", ARM, "aarch64 CPUs"),
    ];

    fn check(self, cpu: &CpuInfo) -> Result<(), String> {
        super::resolve(self, cpu).map(|_| ())
    }
}

impl Setting for ICacheSync {
    const VAR: &'static str = <Self as Choices>::VAR;
    fn parse_setting(value: &str) -> Result<Self, ConfigError> {
        parse_choice(value)
    }
    fn validate(self, cpu: &CpuInfo) -> Result<(), ConfigError> {
        validate_choice(self, cpu)
    }
    fn variable() -> Variable {
        variable_for::<Self>("how new code is made visible to instruction fetch (HotSpot -XX:X86ICacheSync)")
    }
}

impl ICacheSync {
    /// The environment variable.
    pub const VAR: &'static str = <Self as Choices>::VAR;
    /// Accepted spellings on this architecture (from the table).
    pub const ACCEPTED: &'static [&'static str] =
        &names_on_this_arch::<_, { count_on_this_arch(<Self as Choices>::TABLE) }>(<Self as Choices>::TABLE);

    /// The canonical name.
    pub fn name(self) -> &'static str {
        self.choice().name
    }

    /// Every value of every architecture, in the table's order.
    pub fn all() -> impl Iterator<Item = ICacheSync> {
        <Self as Choices>::TABLE.iter().map(|c| c.value)
    }

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

impl FromStr for ICacheSync {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        parse_choice(s)
    }
}

impl fmt::Display for ICacheSync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

//! Instruction-cache sync strategies: what runs after new code is written and
//! before it is executed (HotSpot `ICache::invalidate_range`, seed 000).
//!
//! Where it sits: between its setting (`setting.rs`) and the code cache. [`ICacheStrategy::new`]
//! turns a requested [`ICacheSync`] into a resolved method, checking it
//! against the CPU; [`ICacheStrategy::sync_range`] runs it over the executable
//! addresses of the bytes that changed; [`ICacheStrategy::sync_ranges`] runs it
//! once over many (a batch: one fence pair, one serializing instruction, one
//! AArch64 barrier sequence). The instructions live in `arch`; this module
//! only decides which, how often, and over which lines.
//!
//! A [`ICacheStrategy`] can only be built through [`ICacheStrategy::new`], which refuses
//! an instruction the CPU lacks with a [`ConfigError`]; that is what makes
//! the `unsafe` instruction wrappers sound to call from the safe
//! [`ICacheStrategy::sync`]. Asking for `serialize` on a CPU without SERIALIZE is
//! an error value, never SIGILL.
//!
//! # The x86-64 strategies (`FASTPATH_ICACHE_SYNC`)
//!
//! | name | sequence | HotSpot |
//! |---|---|---|
//! | `none` | nothing | X86ICacheSync=0 |
//! | `clflush` | MFENCE; CLFLUSH per line; MFENCE | =1 |
//! | `clflushopt` | SFENCE; CLFLUSHOPT per line; SFENCE | =2 |
//! | `clwb` | SFENCE; CLWB per line; SFENCE | =3 |
//! | `cpuid` | one CPUID leaf 0 | =4 |
//! | `serialize` | one SERIALIZE | =5 |
//! | `iret` | one IRETQ to the next instruction (SERIALIZE, else CPUID, on a thread with a CET user shadow stack) | - (Linux `sync_core()`) |
//! | `auto` | see below | - |
//!
//! Which CPUs run each value is in the setting's table
//! (`code/icache/setting.rs`).
//!
//! The line size is CPUID's CLFLUSH line size ([`CpuInfo::clflush_line_size`]),
//! not a hard-coded 64.
//!
//! # What `auto` picks, and why
//!
//! The seed's table has two columns for a reason: a line flush is paid
//! twice, once in the loop and again by the next read of those lines.
//! CLFLUSH and CLFLUSHOPT evict them (their read-back is a refetch from
//! memory, about 2× the unflushed one at 256 KiB); CLWB keeps them on Zen 5
//! (read-back equal to `none` from 16 KiB up) but reads that follow at once
//! wait for the write-backs still in flight (about 190 ns against 30 ns at
//! 256 B; the seed's Zen 3 shows the same shape). A serializing instruction
//! leaves the caches alone, so its read-back is the `none` read-back and its
//! cost is one constant: IRET-to-self (about 50 ns) beats every line loop at
//! every size from 256 B to 256 KiB on a Zen 5 KVM guest without SERIALIZE,
//! while CPUID is a VM exit of microseconds there (BENCHMARKS.md, "icache
//! sync").
//!
//! So `auto` on x86-64 is one serializing instruction, chosen by features:
//!
//! 1. SERIALIZE if present (Intel Sapphire Rapids and later, and AMD parts
//!    that report CPUID.7.0:EDX\[14\]): no VM exit, no side effects;
//! 2. else IRET-to-self (`Serializer::IretToSelf`, Linux's `sync_core()`
//!    fallback), unless a user shadow stack is active on the thread that
//!    builds the strategy (IRET would then fault). Shadow stacks are per
//!    thread, so every IRET-to-self also reads the executing thread's status
//!    (one RDSSP per call, nothing cached) and runs SERIALIZE, else CPUID,
//!    on a thread that has one;
//! 3. else CPUID, only when no hypervisor is present (bare metal: about
//!    60 ns on the seed's Zen 3);
//! 4. else (hypervisor, shadow stack, no SERIALIZE) the cheapest line loop:
//!    CLWB, else CLFLUSHOPT, else CLFLUSH. `auto` never executes CPUID under
//!    a hypervisor.
//!
//! The rule depends on features, not on the vendor: an Intel and an AMD part
//! with the same features resolve alike. `fastpath icache` prints, from its own run, whether `auto`
//! stays within 1.1× of the fastest explicit strategy at every size, so a
//! reader on other hardware can see whether the rule still holds there.
//!
//! Either kind is enough for the writing thread on x86, whose instruction
//! fetch is coherent with its own stores; neither makes the change visible to
//! a thread on another core that already fetched the old bytes. That is
//! [`cross_modify_fence`]'s and [`publish`](super::publish())'s job.
//!
//! # AArch64 (written to the architecture manual and compiler-rt's
//! `__clear_cache`; run under qemu-user in CI, which checks function, not
//! the hardware's timing or ordering: ARCHITECTURE.md, "aarch64: what is verified")
//!
//! `dc-ic` (and `auto`): `DC CVAU` per data line unless CTR_EL0.IDC, `DSB ISH`,
//! `IC IVAU` per instruction line unless CTR_EL0.DIC, `DSB ISH`, `ISB`.
//! CTR_EL0 is read once when the strategy is built; a batch issues one pass
//! of each loop and one of each barrier.

#[cfg(target_arch = "x86_64")]
mod x86_64;

mod settings;

// Compiled everywhere: the CTR_EL0 decoding is plain arithmetic and is
// unit-tested on the x86-64 CI; only the instruction loop is aarch64-only.
mod aarch64;

#[cfg(target_arch = "x86_64")]
use std::sync::OnceLock;

use crate::cpu::CpuInfo;
#[cfg(target_arch = "x86_64")]
use crate::cpu::Feature;
use crate::setting::{refused, validate_choice, ConfigError};

pub use aarch64::CacheGeometry;
pub use settings::ICacheSync;
pub(crate) use settings::ICACHE_SYNC;

/// Calls `f` with the first address of each line the ranges touch.
///
/// # Safety
/// `f` must be sound to call on any address inside a range.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
unsafe fn each_line(ranges: &[(*const u8, usize)], line: usize, f: impl Fn(*const u8)) {
    for &(addr, len) in ranges {
        if len == 0 {
            continue;
        }
        // Line addresses are derived from the range's own pointer so that
        // they keep its provenance; the first may lie before `addr` in the
        // same line, which is still mapped (mappings are page-granular).
        let end = addr as usize + len;
        let mut p = addr.wrapping_sub(addr as usize & (line - 1));
        while (p as usize) < end {
            f(p);
            p = p.wrapping_add(line);
        }
    }
}

/// A per-line cache maintenance instruction for the x86 line loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineFlush {
    /// CLFLUSH, bracketed by MFENCE.
    Clflush,
    /// CLFLUSHOPT, bracketed by SFENCE.
    Clflushopt,
    /// CLWB, bracketed by SFENCE.
    Clwb,
}

impl LineFlush {
    /// The setting value that names this loop.
    pub fn setting(self) -> ICacheSync {
        match self {
            LineFlush::Clflush => ICacheSync::Clflush,
            LineFlush::Clflushopt => ICacheSync::Clflushopt,
            LineFlush::Clwb => ICacheSync::Clwb,
        }
    }
}

/// A serializing instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Serializer {
    /// CPUID leaf 0: always present; a VM exit under a hypervisor.
    Cpuid,
    /// SERIALIZE (CPUID.7.0:EDX\[14\]).
    Serialize,
    /// IRETQ to the next instruction; present everywhere, no VM exit, not
    /// usable with a user shadow stack.
    IretToSelf,
}

impl Serializer {
    /// The setting value that names this instruction.
    pub fn setting(self) -> ICacheSync {
        match self {
            Serializer::Cpuid => ICacheSync::Cpuid,
            Serializer::Serialize => ICacheSync::Serialize,
            Serializer::IretToSelf => ICacheSync::Iret,
        }
    }
}

/// What a resolved strategy executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Nothing.
    None,
    /// A fence, the instruction once per line, a fence.
    Lines(LineFlush),
    /// One serializing instruction, whatever the size.
    Serializing(Serializer),
    /// AArch64 DC CVAU / DSB / IC IVAU / DSB / ISB.
    DcIc,
}

/// A resolved, CPU-checked instruction-cache sync strategy.
///
/// Fields are private: the only constructor checks that every instruction
/// the method executes exists on the CPU, which is what lets [`sync`]
/// be safe.
///
/// [`sync`]: ICacheStrategy::sync
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ICacheStrategy {
    requested: ICacheSync,
    method: Method,
    geometry: CacheGeometry,
}

impl ICacheStrategy {
    /// Resolves `requested` for the CPU this process runs on
    /// ([`crate::cpu::info`]; `auto` becomes a concrete method). Fails,
    /// naming the setting and the accepted values, when the CPU lacks an
    /// instruction the strategy needs or the strategy belongs to another
    /// architecture.
    ///
    /// There is deliberately no constructor taking a [`CpuInfo`]: a
    /// `ICacheStrategy` executes its instructions, so it is only ever checked
    /// against the real CPU (a doctored `CpuInfo` could otherwise claim
    /// SERIALIZE and turn a safe `sync` into SIGILL). Use
    /// [`testing::icache_method_for`](crate::code::testing::icache_method_for)
    /// to ask what a recorded machine would get.
    pub fn new(requested: ICacheSync) -> Result<ICacheStrategy, ConfigError> {
        let cpu = crate::cpu::info();
        let method = ICacheStrategy::method_for(requested, cpu)?;
        Ok(ICacheStrategy {
            requested,
            method,
            geometry: geometry_for(cpu),
        })
    }

    /// What `requested` would resolve to on `cpu` (any machine, recorded or
    /// real), or why it is refused there. Executes nothing.
    pub(crate) fn method_for(requested: ICacheSync, cpu: &CpuInfo) -> Result<Method, ConfigError> {
        resolve(requested, cpu).map_err(|why| refused(requested, why, cpu))
    }

    /// The strategy of the process-wide configuration, for this CPU.
    pub fn from_config() -> Result<ICacheStrategy, ConfigError> {
        ICacheStrategy::new(ICACHE_SYNC.get())
    }

    /// Every strategy name this CPU can run (`auto` last), for experiments
    /// and tests.
    pub fn supported() -> Vec<ICacheSync> {
        ICacheStrategy::supported_on(crate::cpu::info())
    }

    /// Every strategy name `cpu` could run (`auto` last).
    pub fn supported_on(cpu: &CpuInfo) -> Vec<ICacheSync> {
        // `auto` last: the table lists it first.
        let mut all: Vec<ICacheSync> = ICacheSync::all()
            .filter(|&s| validate_choice(s, cpu).is_ok())
            .collect();
        all.retain(|&s| s != ICacheSync::Auto);
        all.push(ICacheSync::Auto);
        all
    }

    /// What was asked for.
    pub fn requested(&self) -> ICacheSync {
        self.requested
    }

    /// What runs.
    pub(crate) fn method(&self) -> Method {
        self.method
    }

    /// Cache line sizes used by the loops.
    pub fn geometry(&self) -> CacheGeometry {
        self.geometry
    }

    /// A short description of the method in the setting's words, e.g.
    /// `clwb loop` or `iret`.
    pub fn describe(&self) -> String {
        match self.method {
            Method::None => ICacheSync::None.name().into(),
            Method::Lines(l) => format!("{} loop", l.setting()),
            Method::Serializing(s) => s.setting().name().into(),
            Method::DcIc => format!(
                "dc cvau{} / ic ivau{}",
                if self.geometry.idc { " (skipped: IDC)" } else { "" },
                if self.geometry.dic { " (skipped: DIC)" } else { "" }
            ),
        }
    }

    /// Makes `code` (bytes in executable memory, or any readable memory for
    /// measurement) coherent with instruction fetch on this core.
    #[inline]
    pub fn sync(&self, code: &[u8]) {
        // SAFETY: a slice is mapped and readable for its whole length.
        unsafe { self.sync_range(code.as_ptr(), code.len()) }
    }

    /// [`sync`](Self::sync) over a raw range.
    ///
    /// # Safety
    /// `addr..addr + len` must be mapped readable in this process (cache
    /// maintenance on an unmapped address faults).
    #[inline]
    pub unsafe fn sync_range(&self, addr: *const u8, len: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { self.sync_ranges(&[(addr, len)]) }
    }

    /// Syncs many ranges as one: one fence pair around all lines, or one
    /// serializing instruction (the seed's "do it more nicely for temporally
    /// close uses"). The method is the one resolved by [`ICacheStrategy::new`]
    /// (for `auto`, fixed by the CPU's features, whatever the ranges' size).
    ///
    /// # Safety
    /// Every range must be mapped readable in this process.
    pub unsafe fn sync_ranges(&self, ranges: &[(*const u8, usize)]) {
        match self.method {
            Method::None => {}
            #[cfg(target_arch = "x86_64")]
            Method::Lines(op) => {
                // SAFETY: `new` checked the instruction; the caller
                // guarantees the ranges are mapped.
                unsafe { x86_64::flush_lines(op, ranges, self.geometry.dline as usize) }
            }
            #[cfg(target_arch = "x86_64")]
            Method::Serializing(s) => {
                // SAFETY: `new` checked the instruction; IRET checks this
                // thread's shadow stack itself.
                unsafe { x86_64::serialize_with(s) };
            }
            #[cfg(target_arch = "aarch64")]
            Method::DcIc => {
                // SAFETY: the caller guarantees the ranges are mapped; the
                // geometry was read from CTR_EL0 by `new`.
                unsafe { aarch64::dc_ic(&self.geometry, ranges) }
            }
            // Methods of the other architecture cannot be resolved here
            // (`resolve` refuses them), so this arm is unreachable in
            // practice; doing nothing is the safe reading.
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }
}

fn geometry_for(cpu: &CpuInfo) -> CacheGeometry {
    #[cfg(target_arch = "aarch64")]
    {
        let _ = cpu;
        *aarch64::geometry()
    }
    #[cfg(not(target_arch = "aarch64"))]
    {
        let line = cpu.clflush_line_size.max(16).next_power_of_two();
        CacheGeometry {
            dline: line,
            iline: line,
            idc: false,
            dic: false,
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn resolve(requested: ICacheSync, cpu: &CpuInfo) -> Result<Method, String> {
    let need = |f: Feature, m: Method| {
        if cpu.has(f) {
            Ok(m)
        } else {
            Err(format!("this CPU lacks {f:?}"))
        }
    };
    match requested {
        ICacheSync::None => Ok(Method::None),
        ICacheSync::Clflush => need(Feature::Clflush, Method::Lines(LineFlush::Clflush)),
        ICacheSync::Clflushopt => need(Feature::Clflushopt, Method::Lines(LineFlush::Clflushopt)),
        ICacheSync::Clwb => need(Feature::Clwb, Method::Lines(LineFlush::Clwb)),
        ICacheSync::Cpuid => Ok(Method::Serializing(Serializer::Cpuid)),
        ICacheSync::Serialize => need(Feature::Serialize, Method::Serializing(Serializer::Serialize)),
        ICacheSync::Iret if x86_64::shadow_stack_active() => {
            Err("IRET-to-self would fault: a CET user shadow stack is active".into())
        }
        ICacheSync::Iret => Ok(Method::Serializing(Serializer::IretToSelf)),
        ICacheSync::DcIc => Err("`dc-ic` does not exist on x86_64".into()),
        ICacheSync::Auto => Ok(resolve_auto(cpu, x86_64::shadow_stack_active())),
    }
}

/// The `auto` rule on x86-64 (module docs), as a pure function of the CPU's
/// features and whether a user shadow stack is active.
#[cfg(target_arch = "x86_64")]
pub fn resolve_auto(cpu: &CpuInfo, shadow_stack: bool) -> Method {
    if cpu.has(Feature::Serialize) {
        Method::Serializing(Serializer::Serialize)
    } else if !shadow_stack {
        Method::Serializing(Serializer::IretToSelf)
    } else if !cpu.has(Feature::Hypervisor) {
        Method::Serializing(Serializer::Cpuid)
    } else if cpu.has(Feature::Clwb) {
        Method::Lines(LineFlush::Clwb)
    } else if cpu.has(Feature::Clflushopt) {
        Method::Lines(LineFlush::Clflushopt)
    } else if cpu.has(Feature::Clflush) {
        Method::Lines(LineFlush::Clflush)
    } else {
        // Not a real x86-64 CPU (CLFLUSH is baseline); the writing thread
        // needs nothing on x86.
        Method::None
    }
}

#[cfg(target_arch = "aarch64")]
fn resolve(requested: ICacheSync, _cpu: &CpuInfo) -> Result<Method, String> {
    match requested {
        ICacheSync::None => Ok(Method::None),
        ICacheSync::DcIc | ICacheSync::Auto => Ok(Method::DcIc),
        other => Err(format!("`{}` does not exist on aarch64", other.name())),
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn resolve(requested: ICacheSync, _cpu: &CpuInfo) -> Result<Method, String> {
    match requested {
        ICacheSync::None | ICacheSync::Auto => Ok(Method::None),
        other => Err(format!(
            "`{}` is not implemented on this architecture",
            other.name()
        )),
    }
}

/// The serializing instruction [`cross_modify_fence`] uses on the calling
/// thread: SERIALIZE if present, else IRET-to-self unless a user shadow
/// stack is active on this thread (shadow stacks are per thread), else
/// CPUID. (HotSpot's `OrderAccess::cross_modify_fence` uses SERIALIZE else
/// CPUID; IRET-to-self is Linux's `sync_core()` choice and avoids CPUID's VM
/// exit, microseconds against tens of nanoseconds under KVM.)
#[cfg(target_arch = "x86_64")]
pub fn cross_modify_serializer() -> Serializer {
    match cross_modify_choice() {
        Serializer::IretToSelf if x86_64::shadow_stack_active() => Serializer::Cpuid,
        s => s,
    }
}

/// SERIALIZE if present, else IRET-to-self, which `serialize_with` replaces
/// on a thread where a shadow stack is active (by CPUID then, since this CPU
/// lacks SERIALIZE). Only the CPU's answer is cached here; the shadow-stack
/// status is read at every [`cross_modify_fence`], by `serialize_with`.
#[cfg(target_arch = "x86_64")]
fn cross_modify_choice() -> Serializer {
    static CHOICE: OnceLock<Serializer> = OnceLock::new();
    *CHOICE.get_or_init(|| {
        if crate::cpu::info().has(Feature::Serialize) {
            Serializer::Serialize
        } else {
            Serializer::IretToSelf
        }
    })
}

/// Serializes this thread's instruction stream: call it in a thread that is
/// about to run code another thread changed, when no [`publish`] covered it
/// (HotSpot `OrderAccess::cross_modify_fence`). x86-64: SERIALIZE, else
/// IRET-to-self, else CPUID (see
/// [`testing::cross_modify_serializer`](crate::code::testing::cross_modify_serializer));
/// AArch64: ISB.
///
/// [`publish`]: super::publish()
#[inline]
pub fn cross_modify_fence() {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `cross_modify_choice` only returns an instruction the
        // CPU has; `serialize_with` checks IRET against this thread's
        // shadow stack.
        unsafe { x86_64::serialize_with(cross_modify_choice()) };
    }
    #[cfg(target_arch = "aarch64")]
    crate::arch::aarch64::isb();
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn each_line_visits_every_touched_line_once() {
        let buf = [0u8; 512];
        let base = buf.as_ptr();
        let visited = std::cell::RefCell::new(Vec::new());
        let r = [(base.wrapping_add(10), 100), (base.wrapping_add(300), 1)];
        // SAFETY: the closure only records addresses.
        unsafe { each_line(&r, 64, |p| visited.borrow_mut().push(p as usize)) };
        let v = visited.into_inner();
        let line0 = (base as usize + 10) & !63;
        let expect_first = (line0..base as usize + 110).step_by(64).count();
        assert_eq!(v.len(), expect_first + 1);
        assert!(v.iter().all(|a| a % 64 == 0));
        assert_eq!(v[0], line0);
    }
    #[cfg(target_arch = "x86_64")]
    use crate::cpu::Features;

    #[cfg(target_arch = "x86_64")]
    fn cpu_with(features: &[Feature]) -> CpuInfo {
        let mut c = crate::cpu::info().clone();
        c.features = Features::default();
        for &f in features {
            c.features.insert(f);
        }
        c
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn explicit_strategies_the_cpu_lacks_are_refused() {
        let bare = cpu_with(&[Feature::Sse2]);
        for s in [
            ICacheSync::Clflush,
            ICacheSync::Clflushopt,
            ICacheSync::Clwb,
            ICacheSync::Serialize,
            ICacheSync::DcIc,
        ] {
            let e = ICacheStrategy::method_for(s, &bare).unwrap_err();
            assert_eq!(e.setting, "FASTPATH_ICACHE_SYNC");
            assert_eq!(e.value, s.name());
        }
        for s in [ICacheSync::None, ICacheSync::Cpuid, ICacheSync::Auto] {
            ICacheStrategy::method_for(s, &bare).unwrap();
        }
        let mut baseline = vec![ICacheSync::None, ICacheSync::Cpuid, ICacheSync::Auto];
        if !x86_64::shadow_stack_active() {
            baseline.insert(2, ICacheSync::Iret);
        }
        assert_eq!(ICacheStrategy::supported_on(&bare), baseline);
    }

    /// The setting's validation (what `config::init()` asks) is this
    /// module's resolution on the calling thread: `iret` under a CET user
    /// shadow stack is refused there, not only later in `CodeCache::new`.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn setting_validation_refuses_iret_under_a_shadow_stack() {
        use crate::setting::{read, Setting};
        assert!(ICacheSync::Iret.validate(crate::cpu::info()).is_ok());
        std::thread::spawn(move || {
            x86_64::pretend_shadow_stack_on_this_thread();
            let e = ICacheSync::Iret.validate(crate::cpu::info()).unwrap_err();
            assert_eq!(e.setting, "FASTPATH_ICACHE_SYNC");
            assert!(e.reason.contains("shadow stack"), "{e}");
            assert!(!e.accepted.contains(&"iret"), "{e}");
            assert!(e.accepted.contains(&"auto"), "{e}");
            // Reading the variable with this CPU refuses it too.
            let got = read::<ICacheSync>(
                &mut |k| (k == "FASTPATH_ICACHE_SYNC").then(|| "iret".to_string()),
                Some(crate::cpu::info()),
            );
            assert!(matches!(got, Some(Err(_))), "{got:?}");
        })
        .join()
        .unwrap();
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_doctored_cpu_info_cannot_build_an_executable_strategy() {
        // A recorded or doctored machine may claim SERIALIZE; `method_for`
        // answers for it, but `new` checks the CPU the code runs on.
        let mut claims = crate::cpu::info().clone();
        claims.features.insert(Feature::Serialize);
        assert_eq!(
            ICacheStrategy::method_for(ICacheSync::Serialize, &claims).unwrap(),
            Method::Serializing(Serializer::Serialize)
        );
        let real = ICacheStrategy::new(ICacheSync::Serialize);
        assert_eq!(real.is_ok(), crate::cpu::info().has(Feature::Serialize));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn auto_rule_per_feature_set() {
        use Feature::*;
        let zen5_guest = cpu_with(&[Clflush, Clflushopt, Clwb, Hypervisor]);
        assert_eq!(
            resolve_auto(&zen5_guest, false),
            Method::Serializing(Serializer::IretToSelf)
        );
        // With a shadow stack and a hypervisor, never CPUID: the best loop.
        assert_eq!(resolve_auto(&zen5_guest, true), Method::Lines(LineFlush::Clwb));
        let spr_guest = cpu_with(&[Clflush, Clflushopt, Clwb, Serialize, Hypervisor]);
        for shstk in [false, true] {
            assert_eq!(
                resolve_auto(&spr_guest, shstk),
                Method::Serializing(Serializer::Serialize)
            );
        }
        let old_bare = cpu_with(&[Clflush]);
        assert_eq!(
            resolve_auto(&old_bare, true),
            Method::Serializing(Serializer::Cpuid)
        );
        let old_guest = cpu_with(&[Clflush, Clflushopt, Hypervisor]);
        assert_eq!(
            resolve_auto(&old_guest, true),
            Method::Lines(LineFlush::Clflushopt)
        );
        for cpu in [&zen5_guest, &spr_guest, &old_bare, &old_guest] {
            for shstk in [false, true] {
                let m = resolve_auto(cpu, shstk);
                if cpu.has(Hypervisor) {
                    assert_ne!(m, Method::Serializing(Serializer::Cpuid));
                }
            }
        }
    }

    #[test]
    fn every_supported_strategy_syncs_a_buffer() {
        let buf = vec![0x90u8; 5000];
        for s in ICacheStrategy::supported() {
            let st = ICacheStrategy::new(s).unwrap();
            st.sync(&buf);
            st.sync(&buf[..10]);
            st.sync(&[]);
            // SAFETY: both ranges lie inside `buf`.
            unsafe { st.sync_ranges(&[(buf.as_ptr(), 100), (buf.as_ptr().wrapping_add(4000), 1000)]) };
            assert!(!st.describe().is_empty());
        }
        cross_modify_fence();
    }
}

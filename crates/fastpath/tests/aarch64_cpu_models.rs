//! The aarch64 identification and the `auto` choices on the CPU this runs
//! on, checked against what that CPU is said to be.
//!
//! Where it sits: the end-to-end check of `cpu::aarch64` (MIDR, HWCAP,
//! CTR_EL0 read natively), `spin`'s per-core `auto` (HotSpot's
//! rule), FEAT_SB gating, and `code` (CTR_EL0 geometry, `dc-ic` sync of code
//! installed and patched in a `CodeCache`). Built for aarch64 only.
//!
//! `.ci/aarch64` runs this binary once per QEMU CPU model (`qemu-aarch64
//! -cpu MODEL`) with that model's expectation in `FASTPATH_EXPECT_CPU`, a
//! list of `key=value` words:
//!
//! | key | meaning |
//! |---|---|
//! | `midr` | MIDR_EL1, hex (`0x414fd0c1`) |
//! | `brand` | the name the decoder gives the part (`-` for none) |
//! | `pause` | what `FASTPATH_SPIN_PAUSE=auto` resolves to (`isb`, `none`, `isb:2`) |
//! | `sb` | `yes`/`no`: FEAT_SB reported (HWCAP_SB) |
//! | `dline`, `iline` | CTR_EL0 DminLine / IminLine in bytes |
//! | `idc`, `dic` | `yes`/`no`: CTR_EL0.IDC / DIC |
//! | `rewrite` | `seen`/`stale`: whether code rewritten in place runs as rewritten (see [`dc_ic_patched_code_runs_as_patched`]) |
//!
//! The expected values are written by hand from QEMU's model definitions
//! (`target/arm/cpu64.c`: `midr`, `ctr`, the ID registers behind HWCAP)
//! and HotSpot's `vm_version_aarch64.cpp`, not read from the library.
//! Without `FASTPATH_EXPECT_CPU` (a real aarch64 machine) each test checks
//! what holds on every core: the library's answers agree with the registers
//! read here and with HotSpot's rule for the MIDR found.
//!
//! Not checkable here: timing (QEMU's ISB takes no time a core's would) and
//! weak-memory reordering (QEMU's TCG runs on the host's memory model).
#![cfg(target_arch = "aarch64")]

use std::collections::HashMap;

use fastpath::code::testing::{icache_method, icache_method_for, Method};
use fastpath::code::{CodeCache, ICacheStrategy, ICacheSync};
use fastpath::cpu::{self, Feature, Vendor};
use fastpath::spin::{PauseInstruction, SpinPause};
use fastpath::spin::{PauseStrategy, Sb};

/// The expectation passed in, if any.
fn expected() -> Option<HashMap<String, String>> {
    let spec = std::env::var("FASTPATH_EXPECT_CPU").ok()?;
    let map: HashMap<String, String> = spec
        .split_whitespace()
        .map(|w| {
            let (k, v) = w
                .split_once('=')
                .unwrap_or_else(|| panic!("FASTPATH_EXPECT_CPU: `{w}` is not key=value"));
            (k.to_string(), v.to_string())
        })
        .collect();
    println!("expected CPU: {spec}");
    Some(map)
}

fn get<'a>(e: &'a HashMap<String, String>, key: &str) -> &'a str {
    e.get(key)
        .unwrap_or_else(|| panic!("FASTPATH_EXPECT_CPU lacks `{key}`"))
}

fn yes(e: &HashMap<String, String>, key: &str) -> bool {
    match get(e, key) {
        "yes" => true,
        "no" => false,
        v => panic!("FASTPATH_EXPECT_CPU: {key}={v} is neither yes nor no"),
    }
}

fn num(e: &HashMap<String, String>, key: &str) -> u64 {
    let v = get(e, key);
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    parsed.unwrap_or_else(|_| panic!("FASTPATH_EXPECT_CPU: {key}={v} is not a number"))
}

fn hwcap() -> u64 {
    // SAFETY: getauxval reads the auxiliary vector; no preconditions.
    unsafe { libc::getauxval(libc::AT_HWCAP) }
}

/// CTR_EL0 read here, independently of the library.
fn ctr_el0() -> u64 {
    let v: u64;
    // SAFETY: CTR_EL0 is readable at EL0 on Linux.
    unsafe { std::arch::asm!("mrs {0}, ctr_el0", out(reg) v, options(nomem, nostack)) };
    v
}

#[test]
fn midr_identifies_the_core() {
    let id = cpu::first_identification();
    let info = &id.info;
    println!(
        "midr {:?}, brand {:?}, features {}",
        info.midr.map(|m| format!("{m:#x}")),
        info.brand,
        info.features_string(None)
    );
    assert_eq!(id.cpuid_instructions, 0);
    assert!(
        id.files_opened.iter().all(|f| !f.starts_with("/proc")),
        "{:?}",
        id.files_opened
    );
    // Every model QEMU offers and every Linux since 4.11 gives a MIDR (sysfs,
    // or the register where HWCAP_CPUID says the kernel emulates it).
    let midr = info.midr.expect("a MIDR from sysfs or MRS");
    assert_eq!(info.model as u64, (midr >> 4) & 0xfff, "part number");
    assert_eq!(info.family as u64, (midr >> 20) & 0xf, "variant");
    assert_eq!(info.stepping as u64, midr & 0xf, "revision");
    let implementer = midr >> 24;
    assert_eq!(info.vendor_string, format!("{implementer:#x}"));
    match implementer {
        0x41 => assert_eq!(info.vendor, Vendor::Arm),
        0xc0 => assert_eq!(info.vendor, Vendor::Ampere),
        _ => assert_eq!(info.vendor, Vendor::Other),
    }
    let Some(e) = expected() else { return };
    assert_eq!(midr, num(&e, "midr"), "MIDR_EL1 {midr:#x}");
    let brand = match get(&e, "brand") {
        "-" => "",
        b => b,
    };
    assert_eq!(info.brand, brand);
}

#[test]
fn auto_pause_is_hotspots_choice_for_this_core() {
    let info = cpu::info();
    let auto = SpinPause::default().resolve(info).expect("auto always resolves");
    assert_eq!(auto, fastpath::spin::testing::aarch64_auto_for_midr(info.midr));
    assert_ne!(auto.instruction, PauseInstruction::Sb, "auto never picks SB");
    // The process-wide pause is the same (the CI leaves FASTPATH_SPIN_PAUSE
    // unset) and runs.
    if std::env::var_os("FASTPATH_SPIN_PAUSE").is_none() {
        for _ in 0..1000 {
            fastpath::spin::pause();
        }
        assert_eq!(fastpath::spin::active(), auto);
    }
    println!("auto pause: {auto}");
    let Some(e) = expected() else { return };
    let want: SpinPause = get(&e, "pause").parse().expect("a FASTPATH_SPIN_PAUSE spelling");
    assert_eq!(auto, want);
}

#[test]
fn sb_only_where_feat_sb_is_reported() {
    let info = cpu::info();
    const HWCAP_SB: u64 = 1 << 29;
    let has_sb = hwcap() & HWCAP_SB != 0;
    assert_eq!(info.has(Feature::Sb), has_sb, "Feature::Sb follows HWCAP_SB");
    let explicit = SpinPause {
        instruction: PauseInstruction::Sb,
        repeat: 3,
    };
    match Sb::new(info) {
        Ok(sb) => {
            assert!(has_sb);
            for _ in 0..1000 {
                sb.pause();
            }
            assert_eq!(explicit.resolve(info), Ok(explicit));
        }
        Err(e) => {
            assert!(!has_sb);
            let refused = explicit.resolve(info).expect_err("sb refused");
            assert_eq!(refused.setting, "FASTPATH_SPIN_PAUSE");
            assert!(!refused.accepted.iter().any(|a| *a == "sb"), "{e}");
        }
    }
    println!("FEAT_SB: {has_sb}");
    let Some(e) = expected() else { return };
    assert_eq!(has_sb, yes(&e, "sb"));
}

#[test]
fn ctr_el0_geometry_comes_from_the_register() {
    let info = cpu::info();
    let ctr = ctr_el0();
    let dline = 4u32 << ((ctr >> 16) & 0xf);
    let iline = 4u32 << (ctr & 0xf);
    let (idc, dic) = ((ctr >> 28) & 1 != 0, (ctr >> 29) & 1 != 0);
    let s = ICacheStrategy::new(ICacheSync::Auto).expect("auto resolves");
    assert_eq!(icache_method(&s), Method::DcIc);
    let g = s.geometry();
    assert_eq!((g.dline, g.iline, g.idc, g.dic), (dline, iline, idc, dic));
    assert_eq!((info.cache_line_size, info.icache_line_size), (dline, iline));
    assert_eq!(info.has(Feature::Idc), idc);
    assert_eq!(info.has(Feature::Dic), dic);
    println!("CTR_EL0 {ctr:#x}: {}", s.describe());
    let Some(e) = expected() else { return };
    assert_eq!(dline as u64, num(&e, "dline"));
    assert_eq!(iline as u64, num(&e, "iline"));
    assert_eq!(idc, yes(&e, "idc"));
    assert_eq!(dic, yes(&e, "dic"));
}

/// A64 encodings (Arm ARM C6): `ADD W0, W0, W1`, `SUB W0, W0, W1`,
/// `MOVZ W0, #imm16`, `RET`, `NOP`.
const ADD_W0_W0_W1: u32 = 0x0b01_0000;
const SUB_W0_W0_W1: u32 = 0x4b01_0000;
const fn movz_w0(imm: u16) -> u32 {
    0x5280_0000 | ((imm as u32) << 5)
}
const RET: u32 = 0xd65f_03c0;
const NOP: u32 = 0xd503_201f;

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|w| w.to_le_bytes()).collect()
}

type BinOp = extern "C" fn(i32, i32) -> i32;

/// A cache syncing with `dc-ic` (what `auto` resolves to on aarch64), and
/// a body length that spans more than two of its lines, so that the
/// maintenance loops cover several lines per install.
fn dc_ic_cache() -> (CodeCache, usize) {
    let s = ICacheStrategy::new(ICacheSync::DcIc).unwrap();
    assert_eq!(icache_method(&s), Method::DcIc);
    let g = s.geometry();
    let nops = 2 * g.dline.max(g.iline) as usize / 4 + 1;
    (CodeCache::with_strategy(1 << 20, s).unwrap(), nops)
}

/// Code installed in a `CodeCache` and synced with `dc-ic` runs: many
/// functions, each at a fresh address (all stay live), each returning its
/// own constant after a run of NOPs, so a wrong entry address, a missing
/// sync or cache maintenance on an unmapped (RW instead of RX) address
/// shows as a wrong value or a fault.
#[test]
fn dc_ic_installs_and_calls_fresh_code() {
    let (cache, nops) = dc_ic_cache();
    let mut entries = Vec::new();
    for k in 0..64u16 {
        let mut body = vec![NOP; nops];
        body.extend([movz_w0(1000 + k), RET]);
        entries.push((k, cache.install(&words(&body)).unwrap()));
    }
    let blobs: Vec<Vec<u8>> = (0..16u16).map(|k| words(&[movz_w0(2000 + k), RET])).collect();
    let refs: Vec<&[u8]> = blobs.iter().map(|b| b.as_slice()).collect();
    let batch = cache.install_batch(&refs).unwrap();
    for (k, e) in &entries {
        // SAFETY: a complete `extern "C" fn(i32, i32) -> i32` (AAPCS64:
        // result in W0), installed while called.
        let f: BinOp = unsafe { e.as_fn() };
        assert_eq!(f(0, 0), 1000 + i32::from(*k));
    }
    for (k, e) in batch.iter().enumerate() {
        // SAFETY: as above.
        let f: BinOp = unsafe { e.as_fn() };
        assert_eq!(f(0, 0), 2000 + k as i32);
    }
    println!(
        "{} functions installed and called through {}",
        entries.len() + batch.len(),
        cache.strategy().describe()
    );
}

/// Code patched in place (written through the cache's RW mapping, synced
/// on its RX addresses) runs as patched, and code installed where freed
/// code ran runs as installed.
///
/// With `rewrite=stale` in `FASTPATH_EXPECT_CPU` the runner is known not to
/// show rewrites: QEMU 7.2's user mode keeps its translation of a guest
/// page until the guest writes to that page's own address, and ignores
/// IC IVAU (QEMU 8.1 made IC IVAU drop translations, for JITs that write
/// through a second mapping as this cache does). Then only what such a
/// runner guarantees is checked: each patch succeeds and every call runs a
/// complete function (the old one or the new one).
#[test]
fn dc_ic_patched_code_runs_as_patched() {
    let seen = match expected() {
        Some(e) => match get(&e, "rewrite") {
            "seen" => true,
            "stale" => false,
            v => panic!("FASTPATH_EXPECT_CPU: rewrite={v} is neither seen nor stale"),
        },
        None => true,
    };
    let (cache, nops) = dc_ic_cache();
    let mut body = vec![NOP; nops];
    body.extend([ADD_W0_W0_W1, RET]);
    let op = (body.len() - 2) * 4;
    let entry = cache.install(&words(&body)).unwrap();
    // SAFETY: the entry holds a complete `extern "C" fn(i32, i32) -> i32`
    // (AAPCS64: arguments in W0/W1, result in W0) and every patch below
    // replaces one aligned instruction with another of that shape; the entry
    // stays installed while `f` is called.
    let f: BinOp = unsafe { entry.as_fn() };
    let (mut as_patched, mut calls) = (0, 0);
    for round in 0..50 {
        for (insn, want) in [(SUB_W0_W0_W1, -2), (movz_w0(7), 7), (ADD_W0_W0_W1, 42)] {
            cache.patch(&entry, op, &insn.to_le_bytes()).unwrap();
            let got = f(20, 22);
            calls += 1;
            if seen {
                assert_eq!(got, want, "round {round}: {insn:#010x} after the patch");
            } else {
                assert!([42, -2, 7].contains(&got), "round {round}: {got}");
            }
            as_patched += usize::from(got == want);
        }
    }
    // Reinstalling where freed code ran.
    let addr = entry.addr();
    cache.free(entry).unwrap();
    let again = cache.install(&words(&[movz_w0(9), RET])).unwrap();
    // SAFETY: a complete `extern "C" fn(i32, i32) -> i32`, installed while
    // called.
    let g: BinOp = unsafe { again.as_fn() };
    let got = g(1, 2);
    if seen {
        assert_eq!(got, 9, "code installed where freed code ran");
    }
    println!(
        "{calls} calls after in-place patches, {as_patched} ran the patched code; reinstalled at {} returned {got} ({})",
        if again.addr() == addr { "the same address" } else { "another address" },
        if seen { "checked" } else { "rewrite=stale: not checked" }
    );
}

/// The spellings this architecture accepts and refuses, on the CPU this
/// runs on: every x86-64 name is refused with a `ConfigError` that names
/// the setting and lists only aarch64 values; every base-architecture
/// aarch64 name is accepted (SB: see [`sb_only_where_feat_sb_is_reported`]).
/// The aarch64 counterpart of the x86-64 refusal tests in `code::icache`
/// and `spin`'s settings.
#[test]
fn aarch64_spellings_are_accepted_and_x86_64_ones_refused() {
    let info = cpu::info();
    for name in ["auto", "none", "dc-ic"] {
        let s: ICacheSync = name.parse().expect("an aarch64 spelling parses");
        icache_method_for(s, info).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for name in ["clflush", "clflushopt", "clwb", "cpuid", "serialize", "iret"] {
        // Refused by the parser (the name exists, not on this architecture),
        // and by the checked constructor for a value built in code.
        let e = name
            .parse::<ICacheSync>()
            .expect_err("an x86-64 spelling is refused");
        assert!(e.reason.contains("does not exist on aarch64"), "{e}");
        let s = ICacheSync::all()
            .find(|s| s.name() == name)
            .expect("in the table");
        let e2 = ICacheStrategy::new(s).expect_err("an x86-64 strategy is refused on aarch64");
        assert_eq!(e.accepted, e2.accepted);
        assert_eq!(e.setting, "FASTPATH_ICACHE_SYNC");
        assert!(!e.accepted.contains(&name), "{name} listed as accepted: {e}");
        assert!(e.accepted.contains(&"dc-ic"), "{e}");
    }
    for name in ["auto", "none", "isb", "yield", "nop", "isb:2", "yield:7"] {
        let s: SpinPause = name.parse().expect("an aarch64 spelling parses");
        s.resolve(info).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for name in ["pause", "pause:7", "tpause"] {
        let e = match name.parse::<SpinPause>() {
            Ok(s) => s.resolve(info).expect_err("an x86-64 pause is refused"),
            Err(e) => e,
        };
        assert_eq!(e.setting, "FASTPATH_SPIN_PAUSE");
        assert!(e.reason.contains("x86-64"), "{e}");
        assert!(!e.accepted.iter().any(|a| *a == "pause" || *a == "tpause"), "{e}");
    }
}

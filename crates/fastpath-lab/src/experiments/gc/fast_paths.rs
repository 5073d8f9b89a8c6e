//! Table 2 of `fastpath gc`: each barrier's fast path as this very binary's
//! disassembly (`objdump -d`) shows it, probe by probe
//! ([`fastpath::gc::probe`]), beside HotSpot's counts. The per-barrier
//! counts also feed the per-execution table ([`super::per_execution`]), so
//! a measured cost can be set against what the fast path says it costs.

use std::process::Command;

use anyhow::{bail, Context as _};
use fastpath::gc::{probe, Barrier};

use crate::harness::black_box;
use crate::report::Table;

/// A probe's fast path: the instructions from its entry to its first `ret`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FastPath {
    /// The probe's name.
    pub probe: String,
    /// Its instructions, as objdump prints them (mnemonic and operands).
    pub instructions: Vec<String>,
}

/// Extracts every `fastpath::gc::probe::probe_*` fast path from the text of
/// `objdump -d --no-show-raw-insn -C`.
pub fn parse_fast_paths(objdump: &str) -> Vec<FastPath> {
    let mut out = Vec::new();
    let mut current: Option<FastPath> = None;
    let mut done = false;
    for line in objdump.lines() {
        if let Some(start) = line.find("<fastpath::gc::probe::probe_") {
            if line.trim_end().ends_with(">:") {
                out.extend(current.take());
                let name = &line[start + "<fastpath::gc::probe::".len()..line.trim_end().len() - 2];
                current = Some(FastPath {
                    probe: name.to_string(),
                    instructions: Vec::new(),
                });
                done = false;
                continue;
            }
        }
        let Some(fp) = current.as_mut() else { continue };
        if done {
            continue;
        }
        if line.trim().is_empty() {
            done = true;
            continue;
        }
        // "  1c:\tmov    %rdx,0x10(%rsi)"
        let Some((_, insn)) = line.split_once(":\t") else {
            continue;
        };
        let insn = insn
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if insn.is_empty() {
            continue;
        }
        let is_ret = insn == "ret" || insn.starts_with("ret ");
        fp.instructions.push(insn);
        if is_ret {
            done = true;
        }
    }
    out.extend(current);
    out
}

/// (barrier, access, what the row times, HotSpot's count, our limit): the
/// row's probe is the access's probe with that barrier alone, its baseline
/// the same access's with none ([`probe::PROBES`]).
const FAST_PATH_ROWS: &[(Barrier, &str, &str, &str, usize)] = &[
    (Barrier::Satb, "store", "(idle)", "2", 2),
    (Barrier::Lrb, "load", "(idle)", "2", 2),
    (Barrier::BrooksRb, "load", "", "1", 1),
    (Barrier::BrooksWb, "write", "(data write: the seed's)", "4", 4),
    (Barrier::BrooksWb, "store", "(ref store)", "4", 4),
    (Barrier::Card, "store", "", "2-3", 3),
    (Barrier::CardCond, "store", "", "4-5", 5),
    (Barrier::G1Card, "store", "(filters, clean card)", "~11", 12),
    (Barrier::Cas, "cas", "(success)", "0", 1),
];

/// The probe of `access` with `barrier` alone (`None`: with no barrier).
fn probe_of(access: &str, barrier: Option<Barrier>) -> Option<&'static str> {
    probe::PROBES
        .iter()
        .find(|p| p.1 == access && p.2 == barrier)
        .map(|p| p.0)
}

/// Each barrier's fast-path length in instructions (the probe's minus its
/// baseline's), by barrier name; a barrier with two probes (`brooks-wb`:
/// data write and reference store) has both.
pub type Counts = Vec<(&'static str, usize)>;

/// Table 2, and the counts it found.
pub fn fast_paths(check: bool) -> anyhow::Result<(Table, Counts)> {
    let mut counts = Counts::new();
    black_box(probe::addresses()); // keeps every probe linked in
    let exe = std::env::current_exe().context("locating this binary")?;
    let mut t = Table::new(
        "Barrier fast paths, x86-64 instructions from objdump of this binary (release build)",
        &[
            "barrier",
            "probe",
            "fast path",
            "baseline",
            "barrier insns",
            "HotSpot",
            "limit",
            "instructions",
        ],
    );
    let bar = crate::harness::progress(1, "gc fast paths");
    bar.set_message("objdump -d of this binary");
    let out = Command::new("objdump")
        .args(["-d", "--no-show-raw-insn", "-C"])
        .arg(&exe)
        .output();
    bar.finish_and_clear();
    let text = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        _ => {
            if check {
                bail!("objdump (binutils) is needed for --check");
            }
            t.note("objdump not found: install binutils");
            return Ok((t, counts));
        }
    };
    let paths = parse_fast_paths(&text);
    let find = |name: &str| paths.iter().find(|p| p.probe == name);
    let mut failures = Vec::new();
    for &(barrier, access, what, hotspot, limit) in FAST_PATH_ROWS {
        let label = format!("{barrier} {what}").trim_end().to_string();
        let (Some(probe_name), Some(base_name)) = (probe_of(access, Some(barrier)), probe_of(access, None))
        else {
            failures.push(format!("no {access} probe for {barrier}"));
            continue;
        };
        let (Some(p), Some(b)) = (find(probe_name), find(base_name)) else {
            failures.push(format!(
                "{probe_name} or {base_name} not found in the disassembly"
            ));
            continue;
        };
        let extra = p.instructions.len().saturating_sub(b.instructions.len());
        counts.push((barrier.name(), extra));
        if extra > limit {
            failures.push(format!("{label}: {extra} instructions > limit {limit}"));
        }
        // The barrier's own instructions, jump targets shortened to "slow".
        let body: Vec<String> = p
            .instructions
            .iter()
            .filter(|i| !b.instructions.contains(i))
            .map(|i| match i.split_once(' ') {
                Some((op, _)) if op.starts_with('j') => format!("{op} slow"),
                _ => i.clone(),
            })
            .collect();
        t.row(vec![
            label,
            probe_name.into(),
            p.instructions.len().to_string(),
            b.instructions.len().to_string(),
            extra.to_string(),
            hotspot.into(),
            limit.to_string(),
            body.join(" ; "),
        ]);
    }
    t.note(
        "barrier insns = the probe's fast path (entry to first ret) minus the same access's with no barrier;",
    );
    t.note("the state byte, the card base and the SATB queue are the thread block's (the probe's second argument, %rsi), read at the published offsets (fastpath::thread::GC_STATE_OFFSET...), as HotSpot reads its per-thread copies at offsets from r15.");
    if cfg!(debug_assertions) {
        t.note("DEBUG BUILD: counts are meaningless; run with --release");
        if check {
            bail!("--check needs a release build");
        }
    }
    if check && !failures.is_empty() {
        bail!("fast paths over their limits: {}", failures.join("; "));
    }
    // The goal (no longer than HotSpot's), as the report's summary
    // reads it: a note starting with PASS or FAIL. A debug build has none.
    if !cfg!(debug_assertions) {
        if failures.is_empty() {
            t.note("PASS: every barrier fast path within its limit (HotSpot's length, but g1-card's 12 against HotSpot's ~11)");
        } else {
            t.note(format!("FAIL: {}", failures.join("; ")));
        }
    }
    Ok((t, counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_its_probe_and_baseline() {
        for &(barrier, access, ..) in FAST_PATH_ROWS {
            let p = probe_of(access, Some(barrier)).unwrap_or_else(|| panic!("{barrier} {access}"));
            let b = probe_of(access, None).unwrap_or_else(|| panic!("{access} baseline"));
            assert!(p.starts_with(&format!("probe_{access}_")) && p != b, "{p} {b}");
        }
        assert_eq!(
            probe_of("store", Some(Barrier::G1Card)),
            Some("probe_store_g1_card")
        );
    }

    #[test]
    fn parses_objdump_fast_paths() {
        let text = "\
0000000000001000 <fastpath::gc::probe::probe_load_lrb>:
    1000:\tmov    0x10(%rsi),%rax
    1004:\tmov    0x10(%rdi),%rcx
    1008:\ttestb  $0x4,(%rcx)
    100b:\tjne    100e <fastpath::gc::probe::probe_load_lrb+0xe>
    100d:\tret
    100e:\tjmp    *0x0(%rip)        # 1014 <x>

0000000000002000 <fastpath::gc::probe::probe_load_none>:
    2000:\tmov    0x10(%rsi),%rax
    2004:\tret
";
        let p = parse_fast_paths(text);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].probe, "probe_load_lrb");
        assert_eq!(p[0].instructions.len(), 5);
        assert_eq!(p[0].instructions[2], "testb $0x4,(%rcx)");
        assert_eq!(p[1].instructions, vec!["mov 0x10(%rsi),%rax", "ret"]);
    }
}

//! The corpus: Java programs compiled by javac at test time, each run on
//! fastpath-vm and on HotSpot; stdout, stderr and the exit status must be
//! byte-identical.
//!
//! `cargo test -p fastpath-vm --test vm -- corpus::` runs every program
//! once, with the default settings. The matrix runs (CI) are chosen by environment:
//!
//! | variable | effect |
//! |---|---|
//! | `FASTPATH_VM_CORPUS_MATRIX=locking` | programs tagged `monitor` in each locking mode |
//! | `FASTPATH_VM_CORPUS_MATRIX=jit` | every program under `-Xint` and under the default tiers with a compile threshold of 2 invocations; the `XCOMP` set under `-Xcomp` and under two tiers (`FASTPATH_VM_JIT_TIERS=2`) at that threshold; programs tagged `monitor` after 2 calls in the legacy and monitor locking modes; programs tagged `gc` under `-Xcomp` with the passive (evacuating, at safepoints) and the concurrent collector, a 16 MiB heap and the heap verifier after every cycle, and the concurrent one again with `-XX:-UseCompressedOops` (full-width reference slots; the VM's default is unscaled compressed ones, `+UseCompressedOops` the zero-based form) |
//! | `FASTPATH_VM_CORPUS_MATRIX=gc` | programs tagged `gc` under every barrier preset, passive and concurrent, with a 16 MiB heap (each run must collect) and the heap verifier after every cycle; the Shenandoah presets also with full-width reference slots (`FASTPATH_GC_REFS=full`; the VM's default is unscaled compressed ones) |
//! | `FASTPATH_VM_CORPUS_ONLY=A,B` | only these programs |
//! | `FASTPATH_VM_CORPUS_TIMES=1` | every run's time in the summary, not only the five slowest |
//! | `FASTPATH_VM_CORPUS=DIR` | the corpus directory (default `tests/java`) |
//! | `FASTPATH_VM_JDK=DIR` | the JDK (default `JAVA_HOME`, then Temurin 25's Debian path) |
//!
//! The default run and the `locking` and `gc` matrices use the VM's
//! default tiers (interpreted, compiled after 1000 invocations); the `jit`
//! matrix adds the interpreter alone (`-Xint`) and the JIT's other forms.
//!
//! The programs' conventions (header lines, expected outputs recorded from
//! JDK 25) are in `tests/java/README.md`. Programs are compiled by release
//! group with the compile the class-file tests share
//! (`classfile_support/corpus.rs`: 18 javac runs, cached under `target/`
//! by a hash of the group's sources, the release and the javac), and
//! HotSpot's outputs are cached by a hash of the source, the release and
//! the JDK, so a second run compiles and runs HotSpot only for what
//! changed. HotSpot's output is also checked against `expected/` (the
//! oracle recorded when the program was written): a JDK that prints
//! something else is reported as such, not as a VM failure.

use crate::harness;

use harness::{corpus_dir, jdk_dir, load_programs, run_all, Run};

/// The programs the `jit` matrix also runs under `-Xcomp` (every method,
/// the class library's included, compiled before its first run: seconds of
/// Cranelift per program in the debug build, so a set covering each kind
/// of bytecode rather than the whole corpus).
const XCOMP: [&str; 15] = [
    "IntArith",
    "LongArith",
    "FloatDouble",
    "Conversions",
    "ControlFlow23",
    "Switches",
    "ArrayKinds",
    "Dispatch",
    "ExceptionFlow",
    "StackTraces",
    "SyncCounter",
    "NullPointerMessages",
    "RangeLoops",
    "AliasedFields",
    "GuardedReceivers",
];

#[test]
fn corpus_matches_hotspot() {
    let dir = corpus_dir();
    let jdk = jdk_dir().expect(
        "the corpus needs JDK 25 (javac and java): set FASTPATH_VM_JDK or JAVA_HOME, or install Temurin 25",
    );
    let programs = load_programs(&dir);
    assert!(!programs.is_empty(), "no programs in {}", dir.display());
    let matrix = std::env::var("FASTPATH_VM_CORPUS_MATRIX").unwrap_or_default();
    let mut runs: Vec<Run> = Vec::new();
    for p in &programs {
        match matrix.as_str() {
            "" => runs.push(Run::default_for(p)),
            "jit" => {
                // Every program with methods compiled after 2 calls: calls
                // both ways between the tiers at every depth, exceptions
                // unwinding through compiled frames, compiled frames in
                // stack traces and the collector's root scan.
                runs.push(Run::default_for(p).vm_arg("-Xint"));
                // `-Xbatch`: compiled at once, as hot, whatever the timing.
                runs.push(Run::with_env(p, &[("FASTPATH_VM_JIT_THRESHOLD", "2")]).vm_arg("-Xbatch"));
                if XCOMP.contains(&p.name.as_str()) {
                    runs.push(Run::default_for(p).vm_arg("-Xcomp"));
                    // Two tiers in the background at the same threshold
                    // (off by default, so the `-Xcomp` set's kinds of
                    // bytecode rather than the whole corpus): each hot
                    // method runs the first tier's code (no inlining,
                    // `opt_level` `none`), then the second's, when the
                    // compiler threads install them, frames of both in
                    // one stack.
                    runs.push(Run::with_env(
                        p,
                        &[("FASTPATH_VM_JIT_THRESHOLD", "2"), ("FASTPATH_VM_JIT_TIERS", "2")],
                    ));
                }
                if p.tags.iter().any(|t| t == "monitor") {
                    // Compiled monitors in the other locking modes (the
                    // runs above use the default, lightweight).
                    for mode in ["legacy", "monitor"] {
                        runs.push(
                            Run::with_env(
                                p,
                                &[
                                    ("FASTPATH_VM_JIT_THRESHOLD", "2"),
                                    ("FASTPATH_LOCKING_MODE", mode),
                                ],
                            )
                            .vm_arg("-Xbatch"),
                        );
                    }
                }
                if p.tags.iter().any(|t| t == "gc") {
                    // GC stress with compiled code: a small heap, the
                    // evacuating collector at safepoints (passive) and the
                    // concurrent one, the verifier after every cycle; the
                    // zero-based compressed references `+UseCompressedOops`
                    // selects (the VM's default for a heap this small is
                    // unscaled, which every other run has), then
                    // (concurrent) the full-width slots
                    // `-XX:-UseCompressedOops` selects.
                    for (mode, oops) in [
                        ("passive", "+UseCompressedOops"),
                        ("concurrent", "+UseCompressedOops"),
                        ("concurrent", "-UseCompressedOops"),
                    ] {
                        runs.push(
                            Run::with_env(
                                p,
                                &[
                                    ("FASTPATH_GC_BARRIERS", "shenandoah"),
                                    ("FASTPATH_GC_MODE", mode),
                                    ("FASTPATH_VM_VERIFY_HEAP", "1"),
                                ],
                            )
                            .vm_arg(&format!("-XX:{oops}"))
                            .vm_arg("-Xcomp")
                            .collecting(p, "16m"),
                        );
                    }
                }
            }
            "locking" => {
                if p.tags.iter().any(|t| t == "monitor") {
                    for mode in ["lightweight", "legacy", "monitor"] {
                        runs.push(Run::with_env(p, &[("FASTPATH_LOCKING_MODE", mode)]));
                    }
                }
            }
            "gc" => {
                if p.tags.iter().any(|t| t == "gc") {
                    for set in ["none", "serial", "g1", "shenandoah-2017", "shenandoah"] {
                        for mode in ["passive", "concurrent"] {
                            if mode == "concurrent" && !matches!(set, "shenandoah" | "shenandoah-2017") {
                                continue; // concurrent mode needs SATB, CAS and LRB or Brooks
                            }
                            runs.push(
                                Run::with_env(
                                    p,
                                    &[
                                        ("FASTPATH_GC_BARRIERS", set),
                                        ("FASTPATH_GC_MODE", mode),
                                        ("FASTPATH_VM_VERIFY_HEAP", "1"),
                                    ],
                                )
                                .collecting(p, "16m"),
                            );
                            if set.starts_with("shenandoah") {
                                // Full-width reference slots (the runs
                                // above have the VM's unscaled ones).
                                runs.push(
                                    Run::with_env(
                                        p,
                                        &[
                                            ("FASTPATH_GC_BARRIERS", set),
                                            ("FASTPATH_GC_MODE", mode),
                                            ("FASTPATH_VM_VERIFY_HEAP", "1"),
                                            ("FASTPATH_GC_REFS", "full"),
                                        ],
                                    )
                                    .collecting(p, "16m"),
                                );
                            }
                        }
                    }
                }
            }
            other => panic!("unknown FASTPATH_VM_CORPUS_MATRIX={other} (locking, gc, jit)"),
        }
    }
    let report = run_all(&jdk, &programs, &runs);
    println!("{}", report.summary);
    assert!(
        report.failures.is_empty(),
        "{} of {} runs differ from HotSpot:\n{}",
        report.failures.len(),
        runs.len(),
        report.failures.join("\n")
    );
}

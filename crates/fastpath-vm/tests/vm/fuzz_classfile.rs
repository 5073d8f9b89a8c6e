//! A mutation fuzzer over the corpus's class files: every mutated class
//! must parse to a `ClassFormatError`/`UnsupportedClassVersionError`, or
//! verify to a `VerifyError`/`ClassFormatError`/linkage error, or pass;
//! never panic, never hang.
//!
//! Mutations (deterministic: case `i` of seed `s` is always the same
//! class and the same edits), aimed with a map of the class file
//! (`classfile_support::layout`):
//! - truncation at a random length;
//! - byte flips, anywhere or inside code;
//! - constant-pool index corruption: an index held by a constant, the
//!   class header, a member or an instruction replaced by 0, the last,
//!   one past the end, 0xFFFF or a random one;
//! - operand type swaps: an opcode replaced by another of the same length
//!   (`iadd` by `fadd`, `iload` by `aload`, `getfield` by `invokestatic`…);
//! - branch target shifts by -4..4;
//! - `StackMapTable` corruption: a byte of the table set to a frame-type
//!   boundary, a verification tag or a random value;
//! - `max_stack`/`max_locals` and exception-table edits;
//! - one to three of the above at once.
//!
//! Then some of the mutated classes that verified run in the VM (the
//! `fastpath-vm` binary, in a child process with a time limit), in place
//! of their original, running their program: the run must throw a
//! `LinkageError` (`VerifyError`, `ClassFormatError`,
//! `NoClassDefFoundError`, `NoSuchMethodError`, ...), or print what the
//! unmutated program prints, or print what HotSpot prints running the same
//! mutated class (a verified mutation may well change what a program does:
//! `iadd` into `isub`); never crash, panic, or hang where HotSpot does not.
//! A mutant first gets a budget in the VM of a few times its program's
//! unmutated run; one past it runs in HotSpot for a few seconds, and only
//! where HotSpot finishes is the VM given the whole 20 s limit before the
//! case fails as a hang (a mutant that runs on in both costs seconds, not
//! two full limits). The summary names the slowest case.
//! A run where HotSpot throws a resolution-time `LinkageError` (a
//! bootstrap method refusing its arguments, a missing method) and the VM
//! goes on is the VM's resolution being lenient, not the verifier's or the
//! parser's fault: it is listed, not failed; where HotSpot throws a
//! `VerifyError` or `ClassFormatError` the VM must too.
//! Only programs whose unmutated run in the VM prints their recorded
//! output are used. A few refused mutants run too: the VM must refuse
//! them (a `ClassFormatError` or `VerifyError`) or never load them.
//!
//! `FASTPATH_VM_FUZZ_CASES` sets the number of cases (default 20,000),
//! `FASTPATH_VM_FUZZ_RUNS` how many verified ones run (default 30),
//! `FASTPATH_VM_FUZZ_SEED` the seed, `FASTPATH_VM_FUZZ_DUMP` a directory
//! to write every case the parser accepts to (`case-N.class`, and a line
//! of `index.tsv`: case, class, its program's class directory, outcome,
//! message), which `classfile_support/HotSpotVerify.java` runs through
//! HotSpot's verifier for a differential check. Each case has a time limit; a case
//! past it aborts the process naming the case, so a hang fails the test
//! instead of stalling it.

use crate::classfile_support;

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use classfile_support::class_path::ClassPath;
use classfile_support::corpus;
use classfile_support::jimage::{find_modules, Jimage};
use classfile_support::layout::{scan, Layout};
use fastpath_vm::classfile::verify::verify_class;
use fastpath_vm::classfile::ClassFile;

/// A case running longer than this is a hang (debug build, loaded machine).
const CASE_LIMIT: Duration = Duration::from_secs(20);

/// SplitMix64: a small, good, deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> Option<T> {
        if xs.is_empty() {
            None
        } else {
            Some(xs[self.below(xs.len())])
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mutation {
    Truncate,
    FlipBytes,
    ConstantPoolIndex,
    OperandTypeSwap,
    BranchShift,
    StackMapTable,
    CodeHeaderOrHandlers,
}

const MUTATIONS: [Mutation; 7] = [
    Mutation::Truncate,
    Mutation::FlipBytes,
    Mutation::ConstantPoolIndex,
    Mutation::OperandTypeSwap,
    Mutation::BranchShift,
    Mutation::StackMapTable,
    Mutation::CodeHeaderOrHandlers,
];

fn put_u2(b: &mut [u8], at: usize, v: u16) {
    if at + 2 <= b.len() {
        b[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
}

/// Opcodes an opcode may be swapped with: same length, other operand types.
fn swap_family(op: u8) -> &'static [u8] {
    const ONE_BYTE: &[u8] = &[
        0x00, 0x01, 0x02, 0x03, 0x09, 0x0b, 0x0e, 0x1a, 0x1e, 0x22, 0x26, 0x2a, 0x2b, 0x2e, 0x2f, 0x30, 0x31,
        0x32, 0x33, 0x34, 0x35, 0x3b, 0x3f, 0x43, 0x47, 0x4b, 0x4f, 0x50, 0x51, 0x52, 0x53, 0x54, 0x57, 0x58,
        0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62, 0x63, 0x68, 0x74, 0x75, 0x76, 0x77, 0x78,
        0x79, 0x85, 0x86, 0x87, 0x88, 0x8b, 0x8e, 0x91, 0x94, 0x95, 0x97, 0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1,
        0xbe, 0xbf, 0xc2, 0xc3,
    ];
    const LOCALS: &[u8] = &[
        0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3a, 0xa9, 0x10, 0x12, 0xbc,
    ];
    const CP: &[u8] = &[
        0x13, 0x14, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xbb, 0xbd, 0xc0, 0xc1, 0x11,
    ];
    const BRANCHES: &[u8] = &[
        0x99, 0x9a, 0x9b, 0x9f, 0xa0, 0xa5, 0xa6, 0xa7, 0xa8, 0xc6, 0xc7, 0xb4, 0xb8, 0x84,
    ];
    match op {
        0x00..=0x0f | 0x1a..=0x35 | 0x3b..=0x83 | 0x85..=0x98 | 0xac..=0xb1 | 0xbe | 0xbf | 0xc2 | 0xc3 => {
            ONE_BYTE
        }
        0x10 | 0x12 | 0x15..=0x19 | 0x36..=0x3a | 0xa9 | 0xbc => LOCALS,
        0x11 | 0x13 | 0x14 | 0xb2..=0xb8 | 0xbb | 0xbd | 0xc0 | 0xc1 => CP,
        0x99..=0xa8 | 0xc6 | 0xc7 | 0x84 => BRANCHES,
        _ => &[],
    }
}

/// Applies one `mutation` to `b` (whose layout is `l`); returns a short
/// description.
fn mutate(b: &mut Vec<u8>, l: &Layout, mutation: Mutation, rng: &mut Rng) -> String {
    match mutation {
        Mutation::Truncate => {
            let at = rng.below(b.len());
            b.truncate(at);
            format!("truncate to {at}")
        }
        Mutation::FlipBytes => {
            let n = 1 + rng.below(4);
            let mut at = Vec::new();
            for _ in 0..n {
                let code = rng.pick(&l.codes.iter().collect::<Vec<_>>());
                let p = match code {
                    Some(c) if rng.below(2) == 0 && c.code_len > 0 => c.code + rng.below(c.code_len),
                    _ => rng.below(b.len()),
                };
                if let Some(byte) = b.get_mut(p) {
                    *byte ^= 1 + rng.below(255) as u8;
                    at.push(p);
                }
            }
            format!("flip bytes at {at:?}")
        }
        Mutation::ConstantPoolIndex => {
            let mut places: Vec<usize> = l.cp_references.clone();
            for c in &l.codes {
                places.extend(&c.cp_operands);
                places.extend(&c.cp_operands); // instructions twice as likely
            }
            let Some(at) = rng.pick(&places) else {
                return "nothing".into();
            };
            let count = l.cp_count;
            let v = match rng.below(5) {
                0 => 0,
                1 => count - 1,
                2 => count,
                3 => 0xFFFF,
                _ => 1 + rng.below(count.max(2) as usize - 1) as u16,
            };
            put_u2(b, at, v);
            format!("constant-pool index at {at} := {v}")
        }
        Mutation::OperandTypeSwap => {
            let ops: Vec<usize> = l.codes.iter().flat_map(|c| c.opcodes.iter().copied()).collect();
            let Some(at) = rng.pick(&ops) else {
                return "nothing".into();
            };
            let Some(&old) = b.get(at) else {
                return "nothing".into();
            };
            let Some(new) = rng.pick(swap_family(old)) else {
                return "nothing".into();
            };
            b[at] = new;
            format!("opcode at {at}: {old:#04x} -> {new:#04x}")
        }
        Mutation::BranchShift => {
            let branches: Vec<(usize, bool)> =
                l.codes.iter().flat_map(|c| c.branches.iter().copied()).collect();
            let Some((at, wide)) = rng.pick(&branches) else {
                return "nothing".into();
            };
            let delta = [-4i32, -3, -2, -1, 1, 2, 3, 4][rng.below(8)];
            if at + if wide { 4 } else { 2 } > b.len() {
                return "nothing".into();
            }
            if wide {
                let v = i32::from_be_bytes(b[at..at + 4].try_into().unwrap()).wrapping_add(delta);
                b[at..at + 4].copy_from_slice(&v.to_be_bytes());
            } else {
                let v = i16::from_be_bytes([b[at], b[at + 1]]).wrapping_add(delta as i16);
                b[at..at + 2].copy_from_slice(&v.to_be_bytes());
            }
            format!("branch offset at {at} {delta:+}")
        }
        Mutation::StackMapTable => {
            let tables: Vec<(usize, usize)> = l.codes.iter().filter_map(|c| c.stack_map).collect();
            let Some((start, len)) = rng.pick(&tables) else {
                return "nothing".into();
            };
            if len == 0 {
                return "nothing".into();
            }
            let at = start + rng.below(len);
            if at >= b.len() {
                return "nothing".into();
            }
            let v = match rng.below(4) {
                0 => [0u8, 63, 64, 127, 128, 246, 247, 248, 250, 251, 252, 254, 255][rng.below(13)],
                1 => rng.below(9) as u8,
                2 => b[at].wrapping_add(1),
                _ => rng.next() as u8,
            };
            b[at] = v;
            format!("StackMapTable byte at {at} := {v}")
        }
        Mutation::CodeHeaderOrHandlers => {
            let Some(c) = rng.pick(&l.codes.iter().collect::<Vec<_>>()) else {
                return "nothing".into();
            };
            match rng.below(3) {
                0 => {
                    let v = rng.below(6) as u16;
                    put_u2(b, c.header, v);
                    format!("max_stack := {v}")
                }
                1 => {
                    let v = rng.below(6) as u16;
                    put_u2(b, c.header + 2, v);
                    format!("max_locals := {v}")
                }
                _ => {
                    let (start, n) = c.exception_table;
                    if n == 0 {
                        return "nothing".into();
                    }
                    let field = start + 8 * rng.below(n) + 2 * rng.below(4);
                    let v = if field % 8 == (start + 6) % 8 {
                        rng.below(l.cp_count as usize + 1) as u16
                    } else {
                        rng.below(c.code_len + 2) as u16
                    };
                    put_u2(b, field, v);
                    format!("exception table word at {field} := {v}")
                }
            }
        }
    }
}

/// How a case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Refused by the parser.
    Parse,
    /// Refused by the verifier: VerifyError.
    Verify,
    /// Refused by the verifier: ClassFormatError.
    VerifyFormat,
    /// A class the verifier needed could not be loaded.
    Linkage,
    /// Verified.
    Passed,
}

#[test]
fn mutated_classes_are_refused_or_verified_never_a_crash() {
    let programs = match corpus::compiled() {
        Ok(p) => p,
        Err(why) => return corpus::unavailable(&why),
    };
    let jdk = match find_modules() {
        Some(p) => Some(Rc::new(Jimage::open(&p, &["java.base"]).unwrap())),
        None => {
            assert!(
                std::env::var_os("CI").is_none(),
                "a JDK's lib/modules is needed under CI"
            );
            eprintln!("no JDK lib/modules: classes outside the corpus are missing to the verifier");
            None
        }
    };
    let cases: usize = std::env::var("FASTPATH_VM_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let seed: u64 = std::env::var("FASTPATH_VM_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_F00D);

    // Every class with its program and layout.
    let mut inputs = Vec::new();
    for (pi, p) in programs.iter().enumerate() {
        for (name, bytes) in &p.classes {
            let layout = scan(bytes).unwrap_or_else(|| panic!("{name}: layout scan failed"));
            inputs.push((pi, name.as_str(), bytes.as_slice(), layout));
        }
    }
    assert!(!inputs.is_empty());

    // The watchdog: the case number and its start, in ms since `epoch`.
    let epoch = Instant::now();
    let current = Arc::new(AtomicU64::new(u64::MAX));
    let started_ms = Arc::new(AtomicU64::new(0));
    {
        let (current, started_ms) = (current.clone(), started_ms.clone());
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            // Relaxed: the two values are read for a diagnosis only; a torn
            // pair at worst delays the abort by one period.
            let case = current.load(Ordering::Relaxed);
            if case == u64::MAX {
                continue;
            }
            let since = epoch.elapsed().as_millis() as u64 - started_ms.load(Ordering::Relaxed);
            if since > CASE_LIMIT.as_millis() as u64 {
                eprintln!("fuzz case {case} (seed {seed}) ran {since} ms: a hang");
                std::process::abort();
            }
        });
    }

    let dump = std::env::var_os("FASTPATH_VM_FUZZ_DUMP").map(std::path::PathBuf::from);
    let mut index = dump.as_ref().map(|d| {
        std::fs::create_dir_all(d).unwrap();
        std::io::BufWriter::new(std::fs::File::create(d.join("index.tsv")).unwrap())
    });
    let mut verified_cases: Vec<RunCase> = Vec::new();
    // Every 97th refused case, in place of its original class.
    let mut refused_cases: Vec<RunCase> = Vec::new();
    let mut class_paths: HashMap<usize, ClassPath> = HashMap::new();
    let mut table: BTreeMap<(Mutation, Outcome), usize> = BTreeMap::new();
    let mut panics = Vec::new();
    let mut slowest = (Duration::ZERO, 0usize);
    let started = Instant::now();
    for case in 0..cases {
        let mut rng = Rng(seed ^ (case as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
        let (pi, name, original, layout) = &inputs[rng.below(inputs.len())];
        let mut bytes = original.to_vec();
        let n = [1, 1, 1, 2, 3][rng.below(5)];
        let mut what = Vec::new();
        let mut first = None;
        for _ in 0..n {
            let m = MUTATIONS[rng.below(MUTATIONS.len())];
            first.get_or_insert(m);
            what.push(mutate(&mut bytes, layout, m, &mut rng));
        }
        let first = first.unwrap();
        let path = class_paths.entry(*pi).or_insert_with(|| {
            let program = programs[*pi]
                .classes
                .iter()
                .map(|(n, b)| (n.clone(), Rc::from(b.as_slice())))
                .collect();
            ClassPath::new(program, jdk.clone())
        });
        // Relaxed: see the watchdog.
        started_ms.store(epoch.elapsed().as_millis() as u64, Ordering::Relaxed);
        current.store(case as u64, Ordering::Relaxed);
        let t = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| match ClassFile::parse(&bytes) {
            Err(_) => (Outcome::Parse, None),
            Ok(class) => {
                path.set_override(&class);
                let r = verify_class(&class, path);
                path.clear_override();
                let outcome = match &r {
                    Ok(()) => Outcome::Passed,
                    Err(e) => match e.java_class() {
                        "java/lang/VerifyError" => Outcome::Verify,
                        "java/lang/ClassFormatError" => Outcome::VerifyFormat,
                        _ => Outcome::Linkage,
                    },
                };
                let message = r.err().map(|e| e.message().to_string()).unwrap_or_default();
                (outcome, Some((class.this_class, message)))
            }
        }));
        current.store(u64::MAX, Ordering::Relaxed);
        let took = t.elapsed();
        if took > slowest.0 {
            slowest = (took, case);
        }
        match result {
            Ok((outcome, parsed)) => {
                *table.entry((first, outcome)).or_default() += 1;
                if outcome == Outcome::Passed {
                    verified_cases.push(RunCase {
                        first,
                        case,
                        program: *pi,
                        class: parsed.as_ref().map(|(c, _)| c.clone()).unwrap_or_default(),
                        bytes: bytes.clone(),
                        what: what.join("; "),
                    });
                } else if case % 97 == 0 {
                    refused_cases.push(RunCase {
                        first,
                        case,
                        program: *pi,
                        class: name.to_string(),
                        bytes: bytes.clone(),
                        what: what.join("; "),
                    });
                }
                if let (Some(dir), Some((class, message))) = (&dump, parsed) {
                    std::fs::write(dir.join(format!("case-{case}.class")), &bytes).unwrap();
                    let line = format!(
                        "{case}\t{}\t{}\t{outcome:?}\t{}\n",
                        class.replace(['\t', '\n', '\r'], "?"),
                        programs[*pi].class_dir.display(),
                        message.replace(['\t', '\n', '\r'], " ")
                    );
                    std::io::Write::write_all(index.as_mut().unwrap(), line.as_bytes()).unwrap();
                }
            }
            Err(_) => {
                path.clear_override();
                panics.push(format!("case {case}: {name}: {}", what.join("; ")));
            }
        }
    }
    let elapsed = started.elapsed();
    eprintln!(
        "{cases} cases (seed {seed:#x}) over {} classes in {elapsed:.2?}; slowest case {} took {:.2?}",
        inputs.len(),
        slowest.1,
        slowest.0
    );
    eprintln!(
        "{:<22} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "first mutation", "parse", "verify", "v-cfe", "linkage", "passed"
    );
    for m in MUTATIONS {
        let count = |o| table.get(&(m, o)).copied().unwrap_or(0);
        eprintln!(
            "{:<22} {:>7} {:>7} {:>7} {:>7} {:>7}",
            format!("{m:?}"),
            count(Outcome::Parse),
            count(Outcome::Verify),
            count(Outcome::VerifyFormat),
            count(Outcome::Linkage),
            count(Outcome::Passed)
        );
    }
    assert!(
        panics.is_empty(),
        "{} cases panicked:\n{}",
        panics.len(),
        panics.join("\n")
    );
    // The mutations reach the verifier, and it refuses some of them.
    let verified: usize = table
        .iter()
        .filter(|((_, o), _)| *o != Outcome::Parse)
        .map(|(_, n)| n)
        .sum();
    assert!(
        verified > cases / 4,
        "only {verified} of {cases} cases got past the parser"
    );
    assert!(table.keys().any(|(_, o)| *o == Outcome::Verify));

    let runs: usize = std::env::var("FASTPATH_VM_FUZZ_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let mut runnable = HashMap::new();
    run_cases(programs, &verified_cases, runs, "verified", &mut runnable);
    run_cases(programs, &refused_cases, runs / 3, "refused", &mut runnable);
}

/// A mutated class to run in the VM: one that verified, or one that the
/// parser or the verifier refused (then the VM must refuse it too, or
/// never load it).
struct RunCase {
    /// The first mutation (semantic ones run first).
    first: Mutation,
    case: usize,
    program: usize,
    /// Its name (where the class path puts it: the mutated class's own
    /// name, or the original's for a class that does not parse).
    class: String,
    bytes: Vec<u8>,
    what: String,
}

/// How a run ended.
#[derive(Debug)]
enum Run {
    /// Exited by itself: its status (`None`: killed by a signal), stdout
    /// and stderr.
    Exited(Option<i32>, Vec<u8>, String),
    /// Still running at the time limit.
    TimedOut,
}

/// The longest a run may take before it counts as a hang (a debug VM on a
/// loaded machine): the VM gets it before a run fails as hung where
/// HotSpot finishes.
const RUN_LIMIT: Duration = Duration::from_secs(20);
/// A case's first budget in the VM, as a multiple of its program's
/// unmutated run there, plus [`CASE_BUDGET_SLACK`] (start-up, a loaded
/// machine), at least [`CASE_BUDGET_FLOOR`] and at most [`RUN_LIMIT`]. A
/// mutant past it is run in HotSpot; only if HotSpot finishes is the VM
/// given the whole [`RUN_LIMIT`] before the case fails (see
/// [`run_in_vm_then_hotspot`]).
const CASE_BUDGET_FACTOR: u32 = 3;
const CASE_BUDGET_SLACK: Duration = Duration::from_secs(1);
const CASE_BUDGET_FLOOR: Duration = Duration::from_secs(2);
/// HotSpot's budget for a mutant the VM did not finish within its case
/// budget: HotSpot (a release build that compiles hot loops) runs every
/// corpus program in well under a second, start-up included; a mutant it
/// has not finished in this long is one that runs on (a loop whose exit a
/// mutation removed), and the two VMs agree.
const HOTSPOT_CONFIRM_LIMIT: Duration = Duration::from_secs(4);
/// Output past this much is cut off (a mutated loop may print forever).
const OUTPUT_LIMIT: u64 = 4 << 20;

/// Runs `cmd` with its output in files under `dir`, killed at `limit` or
/// when its output passes [`OUTPUT_LIMIT`] (then it counts as timed out:
/// it would not have ended).
fn run(mut cmd: std::process::Command, dir: &std::path::Path, limit: Duration) -> Run {
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    let mut child = cmd.spawn().expect("spawning a JVM");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let stdout = std::fs::read(&out).unwrap_or_default();
            let stderr = String::from_utf8_lossy(&std::fs::read(&err).unwrap_or_default()).into_owned();
            return Run::Exited(status.code(), stdout, stderr);
        }
        let flooding = std::fs::metadata(&out).map_or(0, |m| m.len()) > OUTPUT_LIMIT
            || std::fs::metadata(&err).map_or(0, |m| m.len()) > OUTPUT_LIMIT;
        if start.elapsed() > limit || flooding {
            let _ = child.kill();
            let _ = child.wait();
            return Run::TimedOut;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A case's first budget in the VM for a program whose unmutated run took
/// `original` there (see [`CASE_BUDGET_FACTOR`]).
fn case_budget(original: Duration) -> Duration {
    (original * CASE_BUDGET_FACTOR + CASE_BUDGET_SLACK).clamp(CASE_BUDGET_FLOOR, RUN_LIMIT)
}

/// A mutant's runs: the VM's, HotSpot's where the VM's needs judging
/// against it, and whether the VM's is a second run with the whole
/// [`RUN_LIMIT`].
#[derive(Debug)]
struct Runs {
    vm: Run,
    hotspot: Option<Run>,
    full_limit_rerun: bool,
}

/// Runs a mutant in the VM (`vm`, given its time limit) within `budget`,
/// then, where `needs_hotspot` says the VM's run must be judged against
/// HotSpot's, in HotSpot (`hotspot`): with [`RUN_LIMIT`] after a VM run
/// that ended, with the shorter [`HOTSPOT_CONFIRM_LIMIT`] after one that
/// ran past its budget. If the VM ran past a budget shorter than
/// [`RUN_LIMIT`] and HotSpot finished (or there is no HotSpot to ask), the
/// VM runs again with the whole [`RUN_LIMIT`], and that run is the one
/// judged: a hang in the VM where HotSpot finishes fails only after the
/// full limit, and a mutant that runs on in both costs a budget and a
/// confirmation instead of two full limits.
fn run_in_vm_then_hotspot(
    vm: &dyn Fn(Duration) -> Run,
    hotspot: Option<impl FnOnce(Duration) -> Run>,
    budget: Duration,
    needs_hotspot: impl Fn(&Run) -> bool,
) -> Runs {
    let mut runs = Runs {
        vm: vm(budget),
        hotspot: None,
        full_limit_rerun: false,
    };
    if !needs_hotspot(&runs.vm) {
        return runs;
    }
    let cut_short = matches!(runs.vm, Run::TimedOut) && budget < RUN_LIMIT;
    let hotspot_finished = match hotspot {
        Some(hotspot) => {
            let limit = if matches!(runs.vm, Run::TimedOut) {
                HOTSPOT_CONFIRM_LIMIT
            } else {
                RUN_LIMIT
            };
            let h = hotspot(limit);
            let finished = matches!(h, Run::Exited(..));
            runs.hotspot = Some(h);
            finished
        }
        None => true,
    };
    if cut_short && hotspot_finished {
        runs.vm = vm(RUN_LIMIT);
        runs.full_limit_rerun = true;
    }
    runs
}

#[test]
fn a_run_past_its_budget_gets_the_whole_limit_where_hotspot_finishes() {
    use std::cell::RefCell;
    let exited = || Run::Exited(Some(0), b"done\n".to_vec(), String::new());
    let budget = case_budget(Duration::from_millis(500));
    assert_eq!(budget, Duration::from_millis(2500));
    assert_eq!(case_budget(Duration::ZERO), CASE_BUDGET_FLOOR);
    assert_eq!(case_budget(Duration::from_secs(30)), RUN_LIMIT);
    let differs = |_: &Run| true;
    // The VM never ends, HotSpot finishes: the VM is given RUN_LIMIT (and
    // still times out there, so the case fails on the pair).
    let vm_limits = RefCell::new(Vec::new());
    let vm = |limit| {
        vm_limits.borrow_mut().push(limit);
        Run::TimedOut
    };
    let hs_limit = RefCell::new(None);
    let r = run_in_vm_then_hotspot(
        &vm,
        Some(|limit| {
            *hs_limit.borrow_mut() = Some(limit);
            exited()
        }),
        budget,
        differs,
    );
    assert_eq!(*vm_limits.borrow(), [budget, RUN_LIMIT]);
    assert_eq!(*hs_limit.borrow(), Some(HOTSPOT_CONFIRM_LIMIT));
    assert!(matches!(r.vm, Run::TimedOut) && matches!(r.hotspot, Some(Run::Exited(..))));
    assert!(r.full_limit_rerun);
    // Neither ends: one budget in the VM, one confirmation in HotSpot.
    vm_limits.borrow_mut().clear();
    let r = run_in_vm_then_hotspot(&vm, Some(|_| Run::TimedOut), budget, differs);
    assert_eq!(*vm_limits.borrow(), [budget]);
    assert!(matches!(r.hotspot, Some(Run::TimedOut)) && !r.full_limit_rerun);
    // No HotSpot to ask: the VM gets the whole limit before failing.
    vm_limits.borrow_mut().clear();
    let r = run_in_vm_then_hotspot(&vm, None::<fn(Duration) -> Run>, budget, differs);
    assert_eq!(*vm_limits.borrow(), [budget, RUN_LIMIT]);
    assert!(r.hotspot.is_none() && r.full_limit_rerun);
    // The VM ends with other output: HotSpot gets the whole limit.
    let r = run_in_vm_then_hotspot(
        &|_| exited(),
        Some(|limit| {
            assert_eq!(limit, RUN_LIMIT);
            Run::TimedOut
        }),
        budget,
        differs,
    );
    assert!(matches!(r.vm, Run::Exited(..)) && !r.full_limit_rerun);
    // A run that needs no judging asks nobody.
    let r = run_in_vm_then_hotspot(
        &|_| exited(),
        Some(|_: Duration| -> Run { panic!("HotSpot asked") }),
        budget,
        |_| false,
    );
    assert!(r.hotspot.is_none());
}

/// The `LinkageError`s a run may end with instead of its output.
const LINKAGE_ERRORS: &[&str] = &[
    "java.lang.LinkageError",
    "java.lang.VerifyError",
    "java.lang.ClassFormatError",
    "java.lang.UnsupportedClassVersionError",
    "java.lang.NoClassDefFoundError",
    "java.lang.ClassCircularityError",
    "java.lang.IncompatibleClassChangeError",
    "java.lang.AbstractMethodError",
    "java.lang.IllegalAccessError",
    "java.lang.InstantiationError",
    "java.lang.NoSuchFieldError",
    "java.lang.NoSuchMethodError",
    "java.lang.UnsatisfiedLinkError",
    "java.lang.ExceptionInInitializerError",
    "java.lang.BootstrapMethodError",
];

/// The errors that refuse a class at loading or linking.
const REFUSALS: [&str; 3] = [
    "java.lang.VerifyError",
    "java.lang.ClassFormatError",
    "java.lang.UnsupportedClassVersionError",
];

/// The `LinkageError` (other than `VerifyError`, `ClassFormatError`,
/// `UnsupportedClassVersionError`) a JVM's stderr says ended `main`: a
/// resolution-time error.
/// `out` with each identity hash of `Object.toString`'s form (`Name@` and
/// 1 to 8 lowercase hex digits) replaced by `#`: a mutant that prints an
/// object (a mutated `toString` call, a program that prints what it
/// caught) prints a hash that is each VM's own choice, as HotSpot's
/// differs from run to run.
fn mask_identity_hashes(out: &[u8]) -> Vec<u8> {
    let name = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b';' | b'[');
    let hex = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
    let mut masked = Vec::with_capacity(out.len());
    let mut i = 0;
    while i < out.len() {
        masked.push(out[i]);
        if out[i] == b'@' && i > 0 && name(out[i - 1]) {
            let digits = out[i + 1..].iter().take_while(|&&c| hex(c)).count();
            let after = out.get(i + 1 + digits).copied();
            if (1..=8).contains(&digits) && !after.is_some_and(name) {
                masked.push(b'#');
                i += 1 + digits;
                continue;
            }
        }
        i += 1;
    }
    masked
}

#[test]
fn identity_hashes_are_masked_and_nothing_else() {
    assert_eq!(
        mask_identity_hashes(b"Fragile@1b6d3586 and [I@7a81197d\n"),
        b"Fragile@# and [I@#\n"
    );
    assert_eq!(
        mask_identity_hashes(b"Fragile@5e2de80c"),
        mask_identity_hashes(b"Fragile@1b6d3586")
    );
    for kept in [
        &b"a@b.example"[..],
        b"x @1f",
        b"p@123456789",
        b"q@12g",
        b"@ab",
        b"n@",
    ] {
        assert_eq!(
            mask_identity_hashes(kept),
            kept,
            "{}",
            String::from_utf8_lossy(kept)
        );
    }
}

fn resolution_error(stderr: &str) -> Option<String> {
    let first = stderr.lines().next()?;
    let thrown = first.strip_prefix("Exception in thread \"main\" ")?;
    let class = thrown.split([':', ' ']).next()?;
    let format = [
        "java.lang.VerifyError",
        "java.lang.ClassFormatError",
        "java.lang.UnsupportedClassVersionError",
    ];
    (LINKAGE_ERRORS.contains(&class) && !format.contains(&class)).then(|| thrown.to_string())
}

/// Runs up to `runs` of `cases` (spread over them) in the VM, and in
/// HotSpot where the VM's output is not the original's (module docs);
/// `kind` names them in the summary; `runnable` remembers which programs
/// the VM runs as recorded and how long their unmutated run took there
/// (`None`: not as recorded; checked once each).
fn run_cases(
    programs: &[corpus::Program],
    cases: &[RunCase],
    runs: usize,
    kind: &str,
    runnable: &mut HashMap<usize, Option<Duration>>,
) {
    if runs == 0 || cases.is_empty() {
        return;
    }
    let vm = env!("CARGO_BIN_EXE_fastpath-vm");
    let java = corpus::find_java();
    if java.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "a JDK's java is needed under CI"
        );
        eprintln!("no java (set FASTPATH_VM_JDK): VM runs are compared with the original output only");
    }
    let work =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-runs-{}", std::process::id()));
    let command = |program: &corpus::Program, jvm: &str, overlay: &std::path::Path| {
        let mut c = std::process::Command::new(jvm);
        c.args(&program.jvm_args)
            .arg("-cp")
            .arg(format!("{}:{}", overlay.display(), program.class_dir.display()))
            .arg(&program.name);
        c
    };
    let (mut done, mut same, mut linkage, mut as_hotspot) = (0, 0, 0, 0);
    // Mutants that ran past their budget in both VMs, and those the VM was
    // given the whole RUN_LIMIT for (HotSpot finished them).
    let (mut both_ran_on, mut full_limit_runs) = (0, 0);
    // The slowest case: its time, number, class and how it ended.
    let mut slowest: Option<(Duration, usize, String, String)> = None;
    let mut lenient = Vec::new();
    let mut failures = Vec::new();
    let started = Instant::now();
    // Mutations that change what code does first (opcodes, constants,
    // bytes, branches), then those that mostly change what the verifier
    // sees (tables, max_stack); spread over the cases within each.
    let semantic = |m: Mutation| !matches!(m, Mutation::StackMapTable | Mutation::CodeHeaderOrHandlers);
    let mut order: Vec<usize> = Vec::with_capacity(cases.len());
    for pass in [true, false] {
        let group: Vec<usize> = (0..cases.len())
            .filter(|&i| semantic(cases[i].first) == pass)
            .collect();
        let step = (group.len() / runs).max(1);
        order.extend((0..step).flat_map(|offset| group.iter().copied().skip(offset).step_by(step)));
    }
    for i in order {
        if done == runs {
            break;
        }
        let c = &cases[i];
        let p = &programs[c.program];
        let Some(expected) = &p.expected_out else { continue };
        let original = *runnable.entry(c.program).or_insert_with(|| {
            let dir = work.join(format!("original-{}", c.program));
            std::fs::create_dir_all(&dir).unwrap();
            let t = Instant::now();
            matches!(run(command(p, vm, &dir), &dir, RUN_LIMIT),
                Run::Exited(code, out, _) if code == Some(p.exit) && out == *expected)
            .then(|| t.elapsed())
        });
        let Some(original) = original else { continue };
        let budget = case_budget(original);
        let case_started = Instant::now();
        done += 1;
        let dir = work.join(format!("case-{}", c.case));
        let class_file = dir.join("classes").join(format!("{}.class", c.class));
        std::fs::create_dir_all(class_file.parent().unwrap()).unwrap();
        std::fs::write(&class_file, &c.bytes).unwrap();
        let overlay = dir.join("classes");
        let describe = |r: &Run| match r {
            Run::Exited(code, out, err) => format!(
                "exit {code:?}, {} bytes of stdout, stderr {:?}",
                out.len(),
                err.chars().take(300).collect::<String>()
            ),
            Run::TimedOut => "timed out".into(),
        };
        let Runs {
            vm: in_vm,
            hotspot: on_hotspot,
            full_limit_rerun,
        } = run_in_vm_then_hotspot(
            &|limit| run(command(p, vm, &overlay), &dir, limit),
            java.as_ref().map(|java| {
                let hs_dir = dir.join("hotspot");
                std::fs::create_dir_all(&hs_dir).unwrap();
                let overlay = &overlay;
                move |limit| run(command(p, java.to_str().unwrap(), overlay), &hs_dir, limit)
            }),
            budget,
            // The runs the verdict below judges against HotSpot.
            |r: &Run| match r {
                Run::Exited(code, out, err) => {
                    let crashed = code.is_none() || *code == Some(101) || err.contains("panicked at");
                    let refused = LINKAGE_ERRORS.iter().any(|l| err.contains(l));
                    let as_recorded = *code == Some(p.exit) && out == expected;
                    !(crashed || refused || as_recorded)
                }
                Run::TimedOut => true,
            },
        );
        if full_limit_rerun {
            full_limit_runs += 1;
        }
        let verdict = match &in_vm {
            Run::Exited(code, _, err)
                if code.is_none() || *code == Some(101) || err.contains("panicked at") =>
            {
                Err("the VM crashed or panicked".to_string())
            }
            Run::Exited(_, _, err) if LINKAGE_ERRORS.iter().any(|l| err.contains(l)) => {
                linkage += 1;
                Ok(())
            }
            Run::Exited(code, out, _) if *code == Some(p.exit) && out == expected => {
                same += 1;
                Ok(())
            }
            _ => match &on_hotspot {
                None => Err("the output differs from the original's".to_string()),
                Some(on_hotspot) => {
                    match (&in_vm, on_hotspot) {
                        (Run::TimedOut, Run::TimedOut) => {
                            as_hotspot += 1;
                            both_ran_on += 1;
                            Ok(())
                        }
                        (Run::Exited(a, out_a, _), Run::Exited(b, out_b, _))
                            if a == b && mask_identity_hashes(out_a) == mask_identity_hashes(out_b) =>
                        {
                            as_hotspot += 1;
                            Ok(())
                        }
                        // A program that catches the error and prints it (ClinitErrors,
                        // InterfaceInit): both refused the class with the same error, in
                        // words that differ (HotSpot's VerifyError details, its class name
                        // in a constant-pool message).
                        (Run::Exited(_, out_a, err_a), Run::Exited(_, out_b, err_b))
                            if REFUSALS.iter().any(|&k| {
                                let has = |out: &[u8]| out.windows(k.len()).any(|w| w == k.as_bytes());
                                (has(out_a) || err_a.contains(k))
                                    && (has(out_b) || err_b.contains(k))
                                    && !has(expected)
                            }) =>
                        {
                            linkage += 1;
                            Ok(())
                        }
                        (Run::Exited(Some(_), _, _), Run::Exited(_, _, hs_err))
                            if resolution_error(hs_err).is_some() =>
                        {
                            lenient.push(format!(
                                "case {} ({}: {}): HotSpot threw {}",
                                c.case,
                                c.class,
                                c.what,
                                resolution_error(hs_err).unwrap_or_default()
                            ));
                            Ok(())
                        }
                        _ => Err(format!("HotSpot: {}", describe(on_hotspot))),
                    }
                }
            },
        };
        let took = case_started.elapsed();
        if slowest.as_ref().is_none_or(|s| took > s.0) {
            let ended = match (&in_vm, &on_hotspot) {
                (Run::TimedOut, Some(Run::TimedOut)) => {
                    format!("ran past {budget:.1?} in the VM and {HOTSPOT_CONFIRM_LIMIT:?} in HotSpot")
                }
                (Run::TimedOut, _) => "ran past the VM's limit".to_string(),
                (r, Some(_)) => format!(
                    "{}, then HotSpot",
                    describe(r).chars().take(60).collect::<String>()
                ),
                (r, None) => describe(r).chars().take(60).collect(),
            };
            slowest = Some((took, c.case, c.class.clone(), ended));
        }
        if let Err(why) = verdict {
            failures.push(format!(
                "case {} ({}: {}): {why}; the VM: {}",
                c.case,
                c.class,
                c.what,
                describe(&in_vm)
            ));
        } else {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    eprintln!(
        "{done} {kind} mutants run in the VM in {:.2?}: {same} printed the original output, {linkage} threw a \
         LinkageError, {as_hotspot} did what HotSpot does ({both_ran_on} ran past their budget in both VMs; \
         {full_limit_runs} given the VM's whole {RUN_LIMIT:?} because HotSpot finished them); {} programs tried, \
         {} runnable",
        started.elapsed(),
        runnable.len(),
        runnable.values().filter(|r| r.is_some()).count()
    );
    if let Some((took, case, class, ended)) = &slowest {
        eprintln!("slowest {kind} case: {case} ({class}), {took:.2?}: {ended}");
    }
    if !lenient.is_empty() {
        eprintln!(
            "{} runs where the VM went on past a LinkageError HotSpot threw while resolving:\n{}",
            lenient.len(),
            lenient.join("\n")
        );
    }
    assert!(
        failures.is_empty(),
        "{} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&work);
    }
}

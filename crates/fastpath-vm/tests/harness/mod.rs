// Shared by the test binaries (`vm`, `handoff_wakeups`), each using a part
// of it.
#![allow(dead_code)]

//! The corpus harness: headers, compilation and HotSpot runs (cached), VM
//! runs with a time limit, byte comparison. Programs are compiled by
//! release group with the class-file tests' compile (`corpus_build`), so
//! one compile serves every test.

use crate::classfile_support::corpus as corpus_build;

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One corpus program and its header lines.
#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    pub source: PathBuf,
    pub tags: Vec<String>,
    pub release: String,
    pub args: Vec<String>,
    pub exit: i32,
}

/// One run of a program on the VM, with its environment.
#[derive(Clone, Debug)]
pub struct Run {
    pub program: String,
    pub env: Vec<(String, String)>,
    /// VM options added before the program's own.
    pub vm_args: Vec<String>,
    /// The run must have collected (the VM's `FASTPATH_VM_GC_STATS` line,
    /// taken off stderr before the comparison, says how often).
    pub expect_gc: bool,
}

impl Run {
    pub fn default_for(p: &Program) -> Run {
        Run {
            program: p.name.clone(),
            env: Vec::new(),
            vm_args: Vec::new(),
            expect_gc: false,
        }
    }
    pub fn with_env(p: &Program, env: &[(&str, &str)]) -> Run {
        Run {
            program: p.name.clone(),
            env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            vm_args: Vec::new(),
            expect_gc: false,
        }
    }

    /// Adds a VM option (before the program's own).
    pub fn vm_arg(mut self, a: &str) -> Run {
        self.vm_args.push(a.to_string());
        self
    }

    /// This run must collect: with a small heap (unless the program sets
    /// its own) and the VM's collection statistics checked.
    pub fn collecting(mut self, p: &Program, heap: &str) -> Run {
        if !p.args.iter().any(|a| a.starts_with("-Xmx")) {
            self.vm_args.push(format!("-Xmx{heap}"));
        }
        self.env.push(("FASTPATH_VM_GC_STATS".into(), "1".into()));
        self.expect_gc = true;
        self
    }
    fn label(&self) -> String {
        let mut e: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        e.extend(self.vm_args.iter().cloned());
        if e.is_empty() {
            self.program.clone()
        } else {
            format!("{} [{}]", self.program, e.join(" "))
        }
    }
}

/// What a process printed and returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: Option<i32>,
}

pub fn corpus_dir() -> PathBuf {
    std::env::var_os("FASTPATH_VM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java"))
}

/// The JDK 25 home (its `bin/javac` and `bin/java`).
pub fn jdk_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("FASTPATH_VM_JDK").map(PathBuf::from),
        std::env::var_os("JAVA_HOME").map(PathBuf::from),
        Some(PathBuf::from("/usr/lib/jvm/temurin-25-jdk-amd64")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("bin/javac").is_file() && d.join("bin/java").is_file() && is_jdk25(d))
}

/// A fresh directory `name` (a relative path) under the target
/// directory, emptied first.
pub fn scratch_dir(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.ancestors().nth(3).unwrap().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles `files` with JDK 25's javac (`--release 17`, then `extra`)
/// into `classes`; panics with javac's messages if it fails.
pub fn javac(classes: &Path, files: &[PathBuf], extra: &[&str]) {
    let jdk = jdk_dir().expect("these tests need JDK 25 (javac): set FASTPATH_VM_JDK or JAVA_HOME");
    std::fs::create_dir_all(classes).unwrap();
    let o = Command::new(jdk.join("bin/javac"))
        .args(extra)
        .args(["--release", "17", "-d"])
        .arg(classes)
        .args(files)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Writes `sources` (class name, text) as `NAME.java` files into `src`
/// and compiles them into `classes` ([`javac`]).
pub fn javac_sources(src: &Path, classes: &Path, sources: &[(&str, &str)]) {
    std::fs::create_dir_all(src).unwrap();
    let files: Vec<PathBuf> = sources
        .iter()
        .map(|(name, text)| {
            let f = src.join(format!("{name}.java"));
            std::fs::write(&f, text).unwrap();
            f
        })
        .collect();
    javac(classes, &files, &[]);
}

fn is_jdk25(d: &Path) -> bool {
    Command::new(d.join("bin/java"))
        .arg("-version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stderr).contains("\"25"))
        .unwrap_or(false)
}

fn header(text: &str, key: &str) -> Option<String> {
    let prefix = format!("// {key}:");
    text.lines()
        .take_while(|l| l.starts_with("//") || l.trim().is_empty())
        .find_map(|l| l.strip_prefix(&prefix).map(|v| v.trim().to_string()))
}

pub fn load_programs(dir: &Path) -> Vec<Program> {
    let only: Option<Vec<String>> = std::env::var("FASTPATH_VM_CORPUS_ONLY")
        .ok()
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "java") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let (Some(tags), Some(release)) = (header(&text, "tags"), header(&text, "release")) else {
            panic!("{} lacks its // tags: or // release: line", path.display());
        };
        out.push(Program {
            name,
            tags: tags.split_whitespace().map(str::to_string).collect(),
            release,
            args: header(&text, "args")
                .map_or(Vec::new(), |a| a.split_whitespace().map(str::to_string).collect()),
            exit: header(&text, "exit").map_or(0, |e| e.parse().expect("an exit status")),
            source: path,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn cache_root() -> PathBuf {
    // target/<profile>/deps/vm-... → target/fastpath-vm-corpus
    let exe = std::env::current_exe().unwrap();
    let target = exe.ancestors().nth(3).unwrap().to_path_buf();
    target.join("fastpath-vm-corpus")
}

fn key(p: &Program, jdk: &Path) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::fs::read(&p.source).unwrap().hash(&mut h);
    p.release.hash(&mut h);
    p.args.hash(&mut h);
    jdk.hash(&mut h);
    format!("{}-{:016x}", p.name, h.finish())
}

/// The number before `what` in the JIT's summary line's comma-separated
/// parts (`FASTPATH_VM_JIT_LOG=1`: `... 3 OSR compiled, ...`); panics
/// when the summary has no such part.
pub fn summary_count(summary: &str, what: &str) -> u64 {
    summary
        .split(&[',', ':'][..])
        .map(str::trim)
        .find_map(|p| p.strip_suffix(what))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no '{what}' in {summary}"))
}

/// Runs `cmd` with empty stdin, killing it after `limit`.
pub fn run_with_limit(mut cmd: Command, limit: Duration) -> Result<Output, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("cannot start: {e}"))?;
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("timed out after {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ok(Output {
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
        status: status.code(),
    })
}

/// Held while a program's HotSpot output is recorded for the cache, so
/// that two runs of one program never write its cache files at once.
static CACHE: Mutex<()> = Mutex::new(());

/// HotSpot's output for `p` (cached).
fn hotspot(p: &Program, jdk: &Path, classes: &Path) -> Result<Output, String> {
    let dir = cache_root().join(key(p, jdk));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let f = |n: &str| dir.join(n);
    if let (Ok(o), Ok(e), Ok(s)) = (
        std::fs::read(f("hotspot.out")),
        std::fs::read(f("hotspot.err")),
        std::fs::read_to_string(f("hotspot.status")),
    ) {
        return Ok(Output {
            stdout: o,
            stderr: e,
            status: s.trim().parse().ok(),
        });
    }
    let mut cmd = Command::new(jdk.join("bin/java"));
    cmd.args(&p.args).arg("-cp").arg(classes).arg(&p.name);
    let out = run_with_limit(cmd, Duration::from_secs(120)).map_err(|e| format!("HotSpot: {e}"))?;
    std::fs::write(f("hotspot.out"), &out.stdout).unwrap();
    std::fs::write(f("hotspot.err"), &out.stderr).unwrap();
    std::fs::write(
        f("hotspot.status"),
        out.status.map_or("none".into(), |s| s.to_string()),
    )
    .unwrap();
    Ok(out)
}

/// Removes the VM's `fastpath-vm gc: N cycles ...` line from the end of
/// stderr; returns N.
fn take_gc_stats(stderr: &mut Vec<u8>) -> Option<u64> {
    let text = String::from_utf8_lossy(stderr).to_string();
    let start = text.rfind("fastpath-vm gc: ")?;
    let line = &text[start..];
    let cycles = line["fastpath-vm gc: ".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    stderr.truncate(start);
    Some(cycles)
}

/// The first line where two outputs differ, for the report.
fn first_difference(what: &str, vm: &[u8], hs: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(vm), String::from_utf8_lossy(hs));
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    for i in 0..la.len().max(lb.len()) {
        if la.get(i) != lb.get(i) {
            return format!(
                "{what} line {}:\n      vm:      {:?}\n      hotspot: {:?}",
                i + 1,
                la.get(i).copied().unwrap_or("<end>"),
                lb.get(i).copied().unwrap_or("<end>")
            );
        }
    }
    format!("{what}: differ in line endings")
}

pub struct Report {
    pub failures: Vec<String>,
    pub summary: String,
}

/// Compiles and runs everything (programs in parallel), comparing each VM
/// run with HotSpot's output.
pub fn run_all(jdk: &Path, programs: &[Program], runs: &[Run]) -> Report {
    let vm = PathBuf::from(env!("CARGO_BIN_EXE_fastpath-vm"));
    let by_name: HashMap<&str, &Program> = programs.iter().map(|p| (p.name.as_str(), p)).collect();
    // The release groups of the programs that run, compiled (or found
    // compiled) before any run starts.
    let releases: std::collections::BTreeSet<u32> = runs
        .iter()
        .filter_map(|r| by_name[r.program.as_str()].release.parse().ok())
        .collect();
    let dir = programs
        .first()
        .and_then(|p| p.source.parent())
        .map_or_else(corpus_dir, Path::to_path_buf);
    let class_dirs = corpus_build::release_dirs(&jdk.join("bin/javac"), &dir, |r| releases.contains(&r));
    let compile = |p: &Program| -> Result<PathBuf, String> {
        p.release
            .parse::<u32>()
            .ok()
            .and_then(|r| class_dirs.get(&r).cloned())
            .ok_or_else(|| format!("no compiled release group for `// release: {}`", p.release))
    };
    let failures = Mutex::new(Vec::new());
    let timings = Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(run) = runs.get(i) else { break };
                let p = by_name[run.program.as_str()];
                let fail = |m: String| failures.lock().unwrap().push(format!("  {}: {m}", run.label()));
                let classes = match compile(p) {
                    Ok(c) => c,
                    Err(e) => {
                        fail(e);
                        continue;
                    }
                };
                let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
                let hs = match hotspot(p, jdk, &classes) {
                    Ok(o) => o,
                    Err(e) => {
                        fail(e);
                        continue;
                    }
                };
                drop(cache);
                // The oracle itself: HotSpot against the recorded expectation.
                let expected_dir = p.source.parent().unwrap().join("expected");
                if let Ok(exp) = std::fs::read(expected_dir.join(format!("{}.out", p.name))) {
                    let exp_err =
                        std::fs::read(expected_dir.join(format!("{}.err", p.name))).unwrap_or_default();
                    if exp != hs.stdout || exp_err != hs.stderr || hs.status != Some(p.exit) {
                        fail(format!(
                            "the JDK at {} does not print the recorded expectation (is it JDK 25?)",
                            jdk.display()
                        ));
                        continue;
                    }
                }
                let mut cmd = Command::new(&vm);
                cmd.args(&run.vm_args)
                    .args(&p.args)
                    .arg("-cp")
                    .arg(&classes)
                    .arg(&p.name);
                for (k, v) in &run.env {
                    cmd.env(k, v);
                }
                let t0 = Instant::now();
                let mut out = match run_with_limit(cmd, Duration::from_secs(120)) {
                    Ok(o) => o,
                    Err(e) => {
                        fail(format!("fastpath-vm {e}"));
                        continue;
                    }
                };
                if run.expect_gc {
                    match take_gc_stats(&mut out.stderr) {
                        Some(cycles) if cycles > 0 => {}
                        Some(_) => fail("no collection ran (the run was to collect)".into()),
                        None => fail("no collection statistics on stderr".into()),
                    }
                }
                timings.lock().unwrap().push((run.label(), t0.elapsed()));
                let mut diffs = Vec::new();
                if out.status != hs.status {
                    diffs.push(format!(
                        "exit status: vm {:?}, hotspot {:?}",
                        out.status, hs.status
                    ));
                }
                if out.stdout != hs.stdout {
                    diffs.push(first_difference("stdout", &out.stdout, &hs.stdout));
                }
                if out.stderr != hs.stderr {
                    diffs.push(first_difference("stderr", &out.stderr, &hs.stderr));
                }
                if !diffs.is_empty() {
                    fail(diffs.join("\n    "));
                }
            });
        }
    });
    let mut timings = timings.into_inner().unwrap();
    timings.sort_by_key(|t| std::cmp::Reverse(t.1));
    let shown = if std::env::var_os("FASTPATH_VM_CORPUS_TIMES").is_some() {
        timings.len()
    } else {
        5
    };
    let slowest: Vec<String> = timings
        .iter()
        .take(shown)
        .map(|(l, d)| format!("{l} {:.2} s", d.as_secs_f64()))
        .collect();
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    Report {
        summary: format!(
            "corpus: {} runs of {} programs in {:.1} s, {} differ; slowest: {}",
            runs.len(),
            programs.len(),
            start.elapsed().as_secs_f64(),
            failures.len(),
            slowest.join(", ")
        ),
        failures,
    }
}

/// A run's environment and options (a tier: `-Xcomp`, a threshold, ...).
pub type Tier = (&'static [(&'static str, &'static str)], &'static [&'static str]);

/// Runs `main` from `classes` under `tier` with `extra` environment
/// variables, checks that it exits 0, and returns its stdout and stderr.
pub fn run_in_tier(
    classes: &Path,
    main: &str,
    (env, opts): Tier,
    extra: &[(&str, &str)],
) -> (String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"));
    cmd.envs(extra.iter().copied())
        .envs(env.iter().copied())
        .args(opts)
        .arg("-cp")
        .arg(classes)
        .arg(main);
    let o = run_with_limit(cmd, Duration::from_secs(300)).unwrap_or_else(|e| panic!("{env:?} {opts:?}: {e}"));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(
        o.status,
        Some(0),
        "fastpath-vm {env:?} {opts:?} failed:\n{out}\n{err}"
    );
    (out, err)
}

/// `-Xcomp` with a 16 MiB heap that must collect and the heap verifier
/// after every cycle, under the passive and then the concurrent collector.
pub const XCOMP_COLLECTING: [Tier; 2] = [
    (
        &[("FASTPATH_GC_MODE", "passive"), ("FASTPATH_VM_VERIFY_HEAP", "1")],
        &["-Xcomp", "-Xmx16m"],
    ),
    (
        &[
            ("FASTPATH_GC_MODE", "concurrent"),
            ("FASTPATH_VM_VERIFY_HEAP", "1"),
        ],
        &["-Xcomp", "-Xmx16m"],
    ),
];

/// Checks the `fastpath-vm gc:` summary a run with `FASTPATH_VM_GC_STATS=1`
/// printed on `stderr` (`what` names the run): the heap collected at least
/// twice and the verifier found no error.
pub fn assert_collected_cleanly(stderr: &str, what: &str) {
    let stats = stderr
        .lines()
        .find(|l| l.starts_with("fastpath-vm gc: "))
        .unwrap_or_else(|| panic!("no GC summary under {what}:\n{stderr}"));
    let cycles: u64 = stats.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(cycles >= 2, "the heap did not collect under {what}: {stats}");
    assert!(stats.contains(" 0 errors"), "{stats}");
}

/// Runs `main` from `classes` under each tier and checks that it exits 0,
/// prints `want` on stdout and nothing on stderr.
pub fn expect_in_tiers(classes: &Path, main: &str, tiers: &[Tier], want: &str) {
    for &(env, opts) in tiers {
        let (out, err) = run_in_tier(classes, main, (env, opts), &[]);
        assert_eq!(out, want, "stdout under {env:?} {opts:?}");
        assert_eq!(err, "", "stderr under {env:?} {opts:?}");
    }
}

/// Boots a VM in this process with `-Xcomp` on `classes` and runs `main`
/// to its end (status 0) under the Shenandoah barrier set, leaving every
/// method it ran compiled for a test to decode.
/// The runtime helpers' table of the barrier set type
/// [`run_xcomp_in_process`] ran `vm`'s program with (its heap's reference
/// width decides it): the addresses compiled code calls.
pub fn helper_table(vm: &fastpath_vm::runtime::Vm) -> fastpath_vm::jit::helpers::HelperTable {
    match vm.heap.ref_width() {
        fastpath::gc::layout::RefWidth::Compressed => {
            fastpath_vm::jit::runtime::table::<fastpath::gc::ShenandoahCompressedBarriers>()
        }
        fastpath::gc::layout::RefWidth::Unscaled => {
            fastpath_vm::jit::runtime::table::<fastpath::gc::ShenandoahUnscaledBarriers>()
        }
        fastpath::gc::layout::RefWidth::Full => {
            fastpath_vm::jit::runtime::table::<fastpath::gc::ShenandoahBarriers>()
        }
    }
}

pub fn run_xcomp_in_process(classes: &Path, main: &str) -> &'static fastpath_vm::runtime::Vm {
    let args: Vec<String> = ["-Xcomp", "-cp", classes.to_str().unwrap(), main]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut cmd = fastpath_vm::cli::parse(&args).unwrap();
    // The decoders read the Shenandoah set's barriers, which the passive
    // collector does not take by default (`runtime::vm::ergonomic_settings`):
    // named here as a command line names it, for every VM this process
    // boots (the library's settings are the process's).
    cmd.options
        .xx
        .settings
        .push((fastpath::gc::BarrierBits::VAR, "shenandoah".to_string()));
    let vm = fastpath_vm::runtime::Vm::boot(cmd.options, Some(fastpath_vm::CLASSLIB)).unwrap();
    assert_eq!(
        vm.heap.config().barriers,
        fastpath::gc::BarrierBits::SHENANDOAH,
        "the decoders read the Shenandoah set's barriers"
    );
    let status = match vm.heap.ref_width() {
        fastpath::gc::layout::RefWidth::Compressed => fastpath_vm::runtime::launch::run_main::<
            fastpath::gc::ShenandoahCompressedBarriers,
        >(vm, main, &[]),
        fastpath::gc::layout::RefWidth::Full => {
            fastpath_vm::runtime::launch::run_main::<fastpath::gc::ShenandoahBarriers>(vm, main, &[])
        }
        fastpath::gc::layout::RefWidth::Unscaled => {
            fastpath_vm::runtime::launch::run_main::<fastpath::gc::ShenandoahUnscaledBarriers>(vm, main, &[])
        }
    };
    assert_eq!(status, 0, "{main} under -Xcomp");
    vm
}

/// The compiled entry of `class.name` (`desc`) in `vm` and its installed
/// code, decoded up to the end of the last instruction that control flow
/// from the entry reaches (Cranelift's constants follow the code, and
/// their bytes decode as anything, a `ret` among them): for the tests
/// that read what the JIT emitted.
#[cfg(target_arch = "x86_64")]
pub fn compiled_code(
    vm: &fastpath_vm::runtime::Vm,
    class: &str,
    name: &str,
    desc: &str,
) -> (usize, Vec<iced_x86::Instruction>) {
    use iced_x86::{Code, Decoder, DecoderOptions, Mnemonic};
    let c = vm
        .loader
        .load(class)
        .unwrap_or_else(|_| panic!("{class} is not loaded"));
    let m = fastpath_vm::link::resolve::find_method(c, name, desc)
        .unwrap_or_else(|| panic!("{class}.{name}{desc}"));
    let entry = m.jit.entry();
    assert_ne!(entry, 0, "{class}.{name} was not compiled under -Xcomp");
    let (start, end) = vm.jit.code_range(entry).expect("an installed method");
    // SAFETY: `[start, end)` is the method's installed code, mapped
    // readable and executable for the VM's life (the VM is leaked), and
    // never rewritten once installed.
    let bytes = unsafe { std::slice::from_raw_parts(start as *const u8, end - start) };
    let mut code: Vec<_> = Decoder::with_ip(64, bytes, start as u64, DecoderOptions::NONE)
        .iter()
        .collect();
    assert!(
        code.iter().any(|i| i.mnemonic() == Mnemonic::Ret),
        "{class}.{name}: no ret"
    );
    let reached = reachable(&code);
    let last = reached.iter().rposition(|&r| r).expect("the entry is reached");
    code.truncate(last + 1);
    if let Some(bad) = code.iter().position(|i| i.code() == Code::INVALID) {
        let at = code[bad].ip() as usize - start;
        panic!(
            "{class}.{name}: undecodable bytes at +{at:#x} of {:#x}: {:02x?}\n{}",
            end - start,
            &bytes[at.saturating_sub(16)..(at + 16).min(bytes.len())],
            listing(&code)
        );
    }
    (entry, code)
}

/// Which instructions of `code` (decoded from its entry, `code[0]`)
/// control flow reaches from the entry ([`successors`]).
#[cfg(target_arch = "x86_64")]
fn reachable(code: &[iced_x86::Instruction]) -> Vec<bool> {
    let succ = successors(code);
    let mut seen = vec![false; code.len()];
    let mut work = vec![0usize];
    while let Some(k) = work.pop() {
        if k < code.len() && !seen[k] {
            seen[k] = true;
            work.extend(&succ[k]);
        }
    }
    seen
}

/// Each decoded instruction's successors in `code` (indices; a branch
/// target outside `code` is none): nothing after a `ret`, a trap (`ud2`, `int3`)
/// or an indirect jump, the target of
/// a jump, both ways of a conditional branch, the next one otherwise.
#[cfg(target_arch = "x86_64")]
pub fn successors(code: &[iced_x86::Instruction]) -> Vec<Vec<usize>> {
    use iced_x86::FlowControl;
    let index: HashMap<u64, usize> = code.iter().enumerate().map(|(k, i)| (i.ip(), k)).collect();
    code.iter()
        .enumerate()
        .map(|(k, i)| {
            let target = || index.get(&i.near_branch_target()).copied();
            match i.flow_control() {
                // A trap (`ud2`, `int3`) and an indirect jump (no target
                // here) end the path too.
                FlowControl::Return
                | FlowControl::IndirectBranch
                | FlowControl::Interrupt
                | FlowControl::Exception => vec![],
                FlowControl::UnconditionalBranch => target().into_iter().collect(),
                FlowControl::ConditionalBranch => target().into_iter().chain([k + 1]).collect(),
                _ => vec![k + 1],
            }
        })
        .collect()
}

/// `code` one instruction a line with its address, for a failing
/// decoded-code assertion's message.
#[cfg(target_arch = "x86_64")]
pub fn listing(code: &[iced_x86::Instruction]) -> String {
    code.iter().map(|i| format!("{:x}: {i}\n", i.ip())).collect()
}

/// The calls in `code` whose target is `target` (`mov reg, imm64; call
/// reg`, or a direct call).
#[cfg(target_arch = "x86_64")]
pub fn calls_to(code: &[iced_x86::Instruction], target: u64) -> usize {
    (0..code.len())
        .filter(|&k| {
            let c = &code[k];
            if !is_call(c) {
                return false;
            }
            match c.op0_kind() {
                iced_x86::OpKind::Register => code[..k]
                    .iter()
                    .rev()
                    .find(|i| i.mnemonic() == iced_x86::Mnemonic::Mov && i.op0_register() == c.op0_register())
                    .is_some_and(|i| {
                        i.op1_kind() == iced_x86::OpKind::Immediate64 && i.immediate64() == target
                    }),
                _ => c.near_branch_target() == target,
            }
        })
        .count()
}

/// Whether `i` is a jump (conditional or not) to itself or an earlier
/// address: a loop's back edge, or a rare path laid out after the code
/// joining it again.
#[cfg(target_arch = "x86_64")]
pub fn is_backward_jump(i: &iced_x86::Instruction) -> bool {
    matches!(
        i.flow_control(),
        iced_x86::FlowControl::UnconditionalBranch | iced_x86::FlowControl::ConditionalBranch
    ) && i.near_branch_target() <= i.ip()
}

/// Whether `i` is a direct or indirect call.
#[cfg(target_arch = "x86_64")]
pub fn is_call(i: &iced_x86::Instruction) -> bool {
    matches!(
        i.flow_control(),
        iced_x86::FlowControl::Call | iced_x86::FlowControl::IndirectCall
    )
}

/// Whether some path from the entry to a `ret` (each conditional branch
/// taken either way) passes only calls that `allowed` accepts (by index),
/// and at least one when `needs_call`.
#[cfg(target_arch = "x86_64")]
pub fn path_to_ret(
    code: &[iced_x86::Instruction],
    allowed: &dyn Fn(usize) -> bool,
    needs_call: bool,
) -> bool {
    let succ = successors(code);
    // States: (instruction, whether a call was passed); forward search.
    let mut seen = vec![[false; 2]; code.len()];
    let mut stack = vec![(0usize, false)];
    while let Some((k, called)) = stack.pop() {
        if k >= code.len() || seen[k][called as usize] {
            continue;
        }
        seen[k][called as usize] = true;
        let i = &code[k];
        let called = if is_call(i) {
            if !allowed(k) {
                continue;
            }
            true
        } else {
            called
        };
        if i.mnemonic() == iced_x86::Mnemonic::Ret && (called || !needs_call) {
            return true;
        }
        stack.extend(succ[k].iter().map(|&n| (n, called)));
    }
    false
}

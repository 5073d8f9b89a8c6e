//! What `fastpath vm` needs before it measures: the Java programs compiled
//! by javac, the `fastpath-vm` binary, HotSpot, and what each VM accepts.
//!
//! Where it sits: first in the experiment's run; every table reads the
//! [`Setup`] it makes.
//!
//! **The VM is its own binary, found or built, never this one.** The lab
//! runs `fastpath-vm` as a user runs it, a process started with java's
//! command line, exactly as it runs HotSpot: every table drives both VMs
//! through the same switches (`-Xint`, `-Xcomp`, `-Xmx`) and selects
//! fastpath's strategies through the `FASTPATH_*` variables the VM reads.
//! Start-up (seeds 000 and 002) is timed on that binary, a 14 MB
//! executable that links the library and the interpreter only: linking the
//! VM into the lab and starting it through a hidden subcommand of this
//! 50 MB binary (Cranelift, the JIT templates, every experiment) would time
//! the lab's loading and relocation beside the VM's start, the very cost
//! those seeds measure. It also keeps the lab out of the VM's launcher:
//! whatever `fastpath-vm`'s `main` does (its options, a JIT's switches) is
//! what runs.
//!
//! Where the binary comes from, in order: `--vm PATH`; else, when the
//! source tree this lab was built from is present and cargo can be run,
//! `cargo build -p fastpath-vm --bin fastpath-vm` in the lab's own
//! profile (a no-op of a fraction of a second when it is up to date, and
//! the only staleness check that is right: cargo's); else a `fastpath-vm`
//! beside this executable, or on `PATH`.
//!
//! HotSpot: `--jdk DIR`, else `FASTPATH_VM_JDK` (the VM's tests' variable),
//! `JAVA_HOME`, Temurin 25's Debian path, the newest JDK under
//! `/usr/lib/jvm`; its major version decides which columns it can fill
//! (21 or newer for `-XX:LockingMode`, the flags each table probes first).
//! The programs are compiled once per run by that JDK's javac, or any
//! javac (`JAVAC`, `PATH`), as `--release 17`, into a scratch folder
//! removed at the end.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context as _;

use super::launch::{tail, Launch};

/// The variable naming the JDK, shared with fastpath-vm's tests.
pub const JDK_VAR: &str = "FASTPATH_VM_JDK";

/// Where the benchmark programs are, in the source tree the lab was built
/// from.
pub const JAVA_SOURCES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fastpath-vm/bench/java");

/// The workspace the lab was built from.
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Everything the tables use.
pub struct Setup {
    /// The `fastpath-vm` binary.
    pub vm: PathBuf,
    /// How it was found (for the tables' notes).
    pub vm_origin: String,
    /// Whether it is a dev-profile (unoptimised library) build.
    pub vm_is_debug: bool,
    /// `Ok` when the VM accepts `-Xcomp` (its JIT is built in), else what
    /// it answered.
    pub jit: Result<(), String>,
    /// Whether the VM takes `-Xmixed` (its default tiers named on the
    /// command line): its JIT columns then pass it, so that no
    /// `FASTPATH_VM_JIT` in the environment turns them into interpreter
    /// runs.
    pub mixed_switch: bool,
    /// HotSpot, or why there is none.
    pub hotspot: Result<HotSpot, String>,
    /// The compiled programs.
    pub classes: Classes,
}

/// A JDK's `java`.
pub struct HotSpot {
    /// `bin/java`.
    pub java: PathBuf,
    /// Its major version.
    pub major: u32,
    /// `java -version`'s second line (runtime and build).
    pub version: String,
    /// Flag sets already asked about: `Ok` or HotSpot's refusal.
    accepted: Mutex<HashMap<Vec<String>, Result<(), String>>>,
}

/// The class files, in a scratch folder removed on drop.
pub struct Classes {
    /// The folder (`-cp`).
    pub dir: PathBuf,
}

impl Drop for Classes {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The options that locate things, from the command line.
#[derive(Clone, Debug, Default)]
pub struct Locations {
    /// `--vm PATH`.
    pub vm: Option<PathBuf>,
    /// `--jdk DIR`.
    pub jdk: Option<PathBuf>,
}

impl Setup {
    /// Finds (or builds) the VM, finds HotSpot and javac, compiles the
    /// programs, and asks the VM whether it has a JIT. `say` reports a
    /// step that may take a while (a build).
    pub fn prepare(loc: &Locations, say: &dyn Fn(&str)) -> anyhow::Result<Setup> {
        let candidates = jdk_candidates(loc.jdk.as_deref());
        let mut hotspot = Err(format!(
            "no JDK found (--jdk, {JDK_VAR}, JAVA_HOME, /usr/lib/jvm): HotSpot columns are not run"
        ));
        let mut jdk = candidates.first().cloned();
        for (i, dir) in candidates.iter().enumerate() {
            match HotSpot::at(dir) {
                Ok(h) => {
                    hotspot = Ok(h);
                    jdk = Some(dir.clone());
                    break;
                }
                Err(e) if i == 0 => hotspot = Err(e),
                Err(_) => {}
            }
        }
        // A JDK the user named must be usable; one found by looking
        // around may be too old, and HotSpot's columns are then left out.
        let named = loc.jdk.is_some() || std::env::var_os(JDK_VAR).is_some();
        if let (true, Err(e)) = (named, &hotspot) {
            anyhow::bail!("HotSpot: {e}");
        }
        let javac = find_javac(jdk.as_deref()).context(
            "javac not found: the programs are Java (install a JDK 17 or newer, e.g. Temurin 25, or set JAVAC, JAVA_HOME or --jdk)",
        )?;
        let classes = compile(&javac)?;
        let (vm, vm_origin, vm_is_debug) = locate_vm(loc.vm.as_deref(), say)?;
        let hello = Launch::new(&vm)
            .args([
                "-Xcomp".into(),
                OsString::from("-cp"),
                classes.dir.clone().into_os_string(),
                "Hello".into(),
            ])
            .deadline(Duration::from_secs(300))
            .run()?;
        let jit = if hello.status == Some(0) && hello.stdout == "Hello, world!\n" {
            Ok(())
        } else {
            Err(format!("`fastpath-vm -Xcomp` answers: {}", tail(&hello.stderr)))
        };
        let mixed_switch = jit.is_ok()
            && Launch::new(&vm)
                .args([
                    "-Xmixed".into(),
                    OsString::from("-cp"),
                    classes.dir.clone().into_os_string(),
                    "Hello".into(),
                ])
                .deadline(Duration::from_secs(300))
                .run()
                .is_ok_and(|o| o.status == Some(0) && o.stdout == "Hello, world!\n");
        // The VM must run a program at all; everything after relies on it.
        let o = Launch::new(&vm)
            .args([
                OsString::from("-cp"),
                classes.dir.clone().into_os_string(),
                "Hello".into(),
            ])
            .deadline(Duration::from_secs(300))
            .run_ok()?;
        anyhow::ensure!(
            o.stdout == "Hello, world!\n",
            "{} printed {:?}, not \"Hello, world!\"",
            vm.display(),
            o.stdout
        );
        Ok(Setup {
            vm,
            vm_origin,
            vm_is_debug,
            jit,
            mixed_switch,
            hotspot,
            classes,
        })
    }

    /// The sentence every JIT column says when there is no JIT.
    pub fn no_jit_note(&self) -> Option<String> {
        self.jit
            .as_ref()
            .err()
            .map(|why| format!("fastpath-vm JIT: not in this build ({why}); its columns are left out, not filled with interpreter figures"))
    }

    /// Notes on where the VMs came from.
    pub fn origin_notes(&self) -> Vec<String> {
        let mut n = vec![format!("fastpath-vm: {} ({})", self.vm.display(), self.vm_origin)];
        if self.vm_is_debug {
            n.push("fastpath-vm is a dev-profile build (the library unoptimised): its figures are not the release build's; run the lab with --release".into());
        }
        match &self.hotspot {
            Ok(h) => n.push(format!("HotSpot: {} ({})", h.java.display(), h.version)),
            Err(e) => n.push(format!("HotSpot: {e}")),
        }
        n
    }
}

impl HotSpot {
    fn at(dir: &Path) -> Result<HotSpot, String> {
        let java = dir.join("bin/java");
        let o = Launch::new(&java)
            .args(["-version"])
            .deadline(Duration::from_secs(120))
            .run()
            .map_err(|e| format!("{e:#}"))?;
        let major = parse_major(&o.stderr)
            .ok_or_else(|| format!("{}: no version in `{}`", java.display(), tail(&o.stderr)))?;
        if major < 21 {
            return Err(format!(
                "{} is JDK {major}; HotSpot's columns need JDK 21 or newer (-XX:LockingMode, Shenandoah's passive mode): set --jdk or {JDK_VAR}",
                dir.display()
            ));
        }
        let version = o.stderr.lines().nth(1).unwrap_or("").trim().to_string();
        Ok(HotSpot {
            java,
            major,
            version,
            accepted: Mutex::new(HashMap::new()),
        })
    }

    /// Whether this JDK starts with `flags` (`java FLAGS -version`), or its
    /// refusal; asked once per flag set.
    pub fn accepts(&self, flags: &[String]) -> Result<(), String> {
        let mut cache = self.accepted.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = cache.get(flags) {
            return r.clone();
        }
        let r = match Launch::new(&self.java)
            .args(flags.iter().cloned().chain(["-version".to_string()]))
            .deadline(Duration::from_secs(120))
            .run()
        {
            Ok(o) if o.status == Some(0) => Ok(()),
            // HotSpot prints some refusals on stdout.
            Ok(o) => Err(refusal(&format!("{}\n{}", o.stdout, o.stderr))),
            Err(e) => Err(format!("{e:#}")),
        };
        cache.insert(flags.to_vec(), r.clone());
        r
    }
}

/// HotSpot's refusal, without its generic last lines.
fn refusal(output: &str) -> String {
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("Error: Could not create the Java Virtual Machine")
                && !l.starts_with("Error: A fatal exception has occurred")
                && !l.contains("warning: Option LockingMode was deprecated")
        })
        .collect();
    if lines.is_empty() {
        "refused without a message".into()
    } else {
        lines.join(" / ")
    }
}

/// The major version in `java -version`'s output: `25` from
/// `openjdk version "25.0.3"`, `8` from `"1.8.0_402"`.
pub fn parse_major(version_output: &str) -> Option<u32> {
    let quoted = version_output.split('"').nth(1)?;
    let mut parts = quoted.split(['.', '-', '+', '_']);
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

fn is_jdk(dir: &Path) -> bool {
    dir.join("bin/java").is_file()
}

/// A JDK folder named by `what` (`--jdk`, [`JDK_VAR`]) must hold
/// `bin/java`: a named JDK that is not one is an error, never a silent
/// fall-back to another JDK.
pub fn check_jdk_dir(dir: &Path, what: &str) -> Result<(), String> {
    if is_jdk(dir) {
        Ok(())
    } else {
        Err(format!(
            "{what} {}: not a JDK (no bin/java there); name a JDK 21 or newer, e.g. /usr/lib/jvm/temurin-25-jdk-amd64",
            dir.display()
        ))
    }
}

/// The JDKs to try for HotSpot, in order: the option alone, else
/// [`JDK_VAR`] alone (a JDK the user names is the one used), else
/// `JAVA_HOME`, Temurin 25's Debian paths, then every JDK under
/// /usr/lib/jvm, newest first by the version in the folder's name
/// (`temurin-25-jdk-…`, `java-17-openjdk-…`: cheaper than starting each).
/// The first that is JDK 21 or newer is HotSpot.
fn jdk_candidates(option: Option<&Path>) -> Vec<PathBuf> {
    if let Some(d) = option {
        return vec![d.to_path_buf()];
    }
    if let Some(d) = std::env::var_os(JDK_VAR) {
        return vec![PathBuf::from(d)];
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/jvm")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|d| is_jdk(d) && !d.is_symlink())
        .filter_map(|d| {
            let name = d.file_name()?.to_string_lossy().into_owned();
            let v = name.split(['-', '.']).find_map(|w| w.parse::<u32>().ok())?;
            Some((v, d))
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut all: Vec<PathBuf> = std::env::var_os("JAVA_HOME")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            PathBuf::from("/usr/lib/jvm/temurin-25-jdk-amd64"),
            PathBuf::from("/usr/lib/jvm/temurin-25-jdk-arm64"),
        ])
        .chain(found.into_iter().map(|(_, d)| d))
        .filter(|d| is_jdk(d))
        .collect();
    all.dedup();
    all
}

/// javac: the JDK's, `JAVAC`, or the first on `PATH`.
fn find_javac(jdk: Option<&Path>) -> Option<PathBuf> {
    jdk.map(|d| d.join("bin/javac"))
        .filter(|p| p.is_file())
        .or_else(|| {
            std::env::var_os("JAVAC")
                .map(PathBuf::from)
                .filter(|p| p.is_file())
        })
        .or_else(|| on_path("javac"))
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Compiles every program into a fresh scratch folder.
fn compile(javac: &Path) -> anyhow::Result<Classes> {
    let src = Path::new(JAVA_SOURCES);
    let mut files: Vec<PathBuf> = std::fs::read_dir(src)
        .with_context(|| {
            format!(
                "the benchmark programs are read from the source tree the lab was built from, {}",
                src.display()
            )
        })?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .collect();
    files.sort();
    anyhow::ensure!(!files.is_empty(), "no .java files in {}", src.display());
    let dir = std::env::temp_dir().join(format!("fastpath-lab-vm-classes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let classes = Classes { dir };
    Launch::new(javac)
        .args(["-nowarn", "-encoding", "UTF-8", "--release", "17", "-d"])
        .args([classes.dir.as_os_str()])
        .args(files.iter().map(|f| f.as_os_str()))
        .deadline(Duration::from_secs(600))
        .run_ok()
        .context("compiling the benchmark programs")?;
    Ok(classes)
}

/// The VM binary, how it was found, and whether it is a dev build.
fn locate_vm(option: Option<&Path>, say: &dyn Fn(&str)) -> anyhow::Result<(PathBuf, String, bool)> {
    let debug = cfg!(debug_assertions);
    if let Some(p) = option {
        anyhow::ensure!(p.is_file(), "--vm {}: no such file", p.display());
        let dev = dev_build(p).with_context(|| format!("--vm {}", p.display()))?;
        return Ok((p.to_path_buf(), "--vm".into(), dev));
    }
    let workspace = Path::new(WORKSPACE);
    let cargo = std::env::var_os("CARGO")
        .map(PathBuf::from)
        .or_else(|| on_path("cargo"));
    if let (true, Some(cargo)) = (workspace.join("crates/fastpath-vm/Cargo.toml").is_file(), cargo) {
        let profile = if debug { "dev" } else { "release" };
        say(&format!(
            "vm: building fastpath-vm if needed (cargo build --profile {profile} -p fastpath-vm -p fastpath-lab --bin fastpath-vm)"
        ));
        // The lab's package is selected beside the VM's, only its binary
        // built: Cargo unifies dependencies' features over the selected
        // packages, so the VM's dependencies (dynasm through the lab's
        // syn features, Cranelift) are the ones the lab itself was built
        // with, by `cargo run -p fastpath-lab` or `cargo test --workspace`,
        // and are not compiled a second time. .ci/run runs this command
        // after the test build and fails if it compiles anything: change
        // both together.
        let o = Launch::new(&cargo)
            .args([
                "build",
                "--profile",
                profile,
                "-p",
                "fastpath-vm",
                "-p",
                "fastpath-lab",
                "--bin",
                "fastpath-vm",
            ])
            .args(["--message-format", "json-render-diagnostics"])
            .deadline(Duration::from_secs(3600))
            .run()?;
        // Build progress and diagnostics went to stderr; pass on what
        // failed.
        anyhow::ensure!(
            o.status == Some(0),
            "cargo build -p fastpath-vm failed (pass --vm PATH to use a built one): {}",
            tail(&o.stderr)
        );
        let exe = built_executable(&o.stdout).context("cargo build reported no fastpath-vm executable")?;
        return Ok((
            exe,
            format!("cargo build --profile {profile}, from {}", workspace.display()),
            debug,
        ));
    }
    let exe = std::env::current_exe().ok();
    let beside = exe
        .iter()
        .flat_map(|e| e.ancestors().skip(1).take(2))
        .map(|d| d.join("fastpath-vm"))
        .find(|p| p.is_file());
    if let Some(p) = beside {
        let dev = dev_build(&p).with_context(|| format!("{}", p.display()))?;
        return Ok((
            p,
            "beside the lab's binary (no source tree or cargo to rebuild it)".into(),
            dev,
        ));
    }
    if let Some(p) = on_path("fastpath-vm") {
        let dev = dev_build(&p).with_context(|| format!("{}", p.display()))?;
        return Ok((p, "from PATH".into(), dev));
    }
    anyhow::bail!(
        "fastpath-vm not found: build it (cargo build --release -p fastpath-vm) and pass --vm target/release/fastpath-vm"
    )
}

/// Whether the fastpath-vm at `vm` is a dev-profile build: its `-version`
/// says `dev build` where a release build says `build`. A binary whose
/// `-version` fails, or prints no fastpath-vm version, is refused: every
/// table would time it.
fn dev_build(vm: &Path) -> anyhow::Result<bool> {
    let o = Launch::new(vm)
        .args(["-version"])
        .deadline(Duration::from_secs(60))
        .run_ok()
        .context("-version failed")?;
    dev_build_in(&o.stderr)
        .with_context(|| format!("-version printed no fastpath-vm build line: {}", tail(&o.stderr)))
}

/// [`dev_build`]'s reading of `-version`'s text (`None`: not fastpath-vm's).
fn dev_build_in(version: &str) -> Option<bool> {
    let line = version
        .lines()
        .find(|l| l.starts_with("fastpath-vm ") && l.contains("-Bit VM ("))?;
    Some(line.contains("(dev build "))
}

/// The `executable` of the `fastpath-vm` binary in cargo's JSON messages.
fn built_executable(json_lines: &str) -> Option<PathBuf> {
    json_lines.lines().find_map(|l| {
        let v: serde_json::Value = serde_json::from_str(l).ok()?;
        (v["reason"] == "compiler-artifact" && v["target"]["name"] == "fastpath-vm")
            .then(|| v["executable"].as_str().map(PathBuf::from))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dev_build_is_told_by_its_version_line() {
        let release = "fastpath-vm version \"0.1.0\"\nfastpath-vm runtime: x\nfastpath-vm 64-Bit VM (build 0.1.0, mixed mode)\n";
        let dev = release.replace("(build ", "(dev build ");
        assert_eq!(dev_build_in(release), Some(false));
        assert_eq!(dev_build_in(&dev), Some(true));
        assert_eq!(
            dev_build_in("openjdk version \"25\"\nOpenJDK 64-Bit Server VM (build 25+36, mixed mode)"),
            None
        );
        assert_eq!(dev_build_in(""), None);
    }

    #[test]
    fn java_versions_parse_old_and_new() {
        assert_eq!(parse_major("openjdk version \"25.0.3\" 2026-04-21 LTS"), Some(25));
        assert_eq!(parse_major("openjdk version \"17.0.12\" 2024-07-16"), Some(17));
        assert_eq!(parse_major("java version \"1.8.0_402\""), Some(8));
        assert_eq!(parse_major("openjdk version \"26-ea\" 2026-09-15"), Some(26));
        assert_eq!(parse_major("no version here"), None);
    }

    #[test]
    fn the_executable_comes_from_cargos_artifact_message() {
        let msgs = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"fastpath","kind":["lib"]},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"fastpath-vm","kind":["bin"]},"executable":"/t/release/fastpath-vm"}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
        );
        assert_eq!(
            built_executable(msgs),
            Some(PathBuf::from("/t/release/fastpath-vm"))
        );
        assert_eq!(built_executable(r#"{"reason":"build-finished"}"#), None);
    }

    #[test]
    fn refusals_drop_the_generic_lines() {
        let r = refusal("int X86ICacheSync=6 is outside the allowed range [ -1 ... 5 ]\nImproperly specified VM option 'X86ICacheSync=6'\nError: Could not create the Java Virtual Machine.\nError: A fatal exception has occurred. Program will exit.\n");
        assert_eq!(
            r,
            "int X86ICacheSync=6 is outside the allowed range [ -1 ... 5 ] / Improperly specified VM option 'X86ICacheSync=6'"
        );
    }
}

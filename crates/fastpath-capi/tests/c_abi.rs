//! The C ABI exercised from C and C++, as a runtime would use it: this test
//! builds `libfastpath.a` / `libfastpath.so` (same profile as the test),
//! compiles the programs under `tests/c/`, `examples/c/` and `bench/` with
//! the system compilers (`$CC`/`$CXX`, default `cc`/`c++`), links them,
//! runs them, and asserts their exit status and the "passed N checks" line
//! each prints (printed here too, so the count of checks shows in the log).
//!
//! Cargo does not build a `cdylib`/`staticlib` for integration tests (they
//! cannot link it), so [`library`] runs `cargo build -p fastpath-capi`
//! itself, once per test binary; the outer cargo has released the target
//! directory's lock by the time tests run.
//!
//! Cross-built (`.ci/aarch64`): `CARGO_BUILD_TARGET` makes that inner build
//! build for the same target, `$CC`/`$CXX` name the cross compilers, and the
//! programs run through the runner cargo runs this test with, read from
//! `CARGO_TARGET_<TRIPLE>_RUNNER` (see [`program`]).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The built libraries.
struct Library {
    static_lib: PathBuf,
    shared_lib: PathBuf,
}

impl Library {
    fn dir(&self) -> &Path {
        self.shared_lib.parent().expect("a file has a directory")
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds the libraries with the test's own profile and reads their paths
/// from cargo's JSON messages.
fn library() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args([
            "build",
            "-p",
            "fastpath-capi",
            "--lib",
            "--message-format=json-render-diagnostics",
        ]);
        if !cfg!(debug_assertions) {
            cmd.arg("--release");
        }
        let out = cmd.output().expect("run cargo build");
        assert!(
            out.status.success(),
            "cargo build -p fastpath-capi failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let files: Vec<PathBuf> = stdout
            .lines()
            .filter(|l| l.contains("\"reason\":\"compiler-artifact\"") && l.contains("\"cdylib\""))
            .filter_map(|l| {
                let start = l.find("\"filenames\":[")? + "\"filenames\":[".len();
                let end = start + l[start..].find(']')?;
                Some(
                    l[start..end]
                        .split('"')
                        .filter(|s| s.len() > 1)
                        .map(PathBuf::from)
                        .collect::<Vec<_>>(),
                )
            })
            .next_back()
            .expect("cargo reported the fastpath-capi artifacts");
        let find = |ext: &str| {
            files
                .iter()
                .find(|f| f.extension().is_some_and(|e| e == ext))
                .unwrap_or_else(|| panic!("no .{ext} among {files:?}"))
                .clone()
        };
        Library {
            static_lib: find("a"),
            shared_lib: find("so"),
        }
    })
}

#[derive(Clone, Copy)]
enum Link {
    /// `libfastpath.a` and the system libraries Rust's std needs.
    Static,
    /// `-lfastpath` from the build directory, found at run time by rpath.
    Shared,
}

/// The system libraries a Rust staticlib needs on Linux (what `rustc
/// --print native-static-libs` lists, minus libc).
const NATIVE_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm", "-lrt", "-lutil"];

/// Compiles `sources` (relative to the repository) into an executable named
/// `name`, C++ if the first source ends in `.cpp`.
fn compile(name: &str, sources: &[&str], link: Link) -> PathBuf {
    let lib = library();
    let cpp = sources[0].ends_with(".cpp");
    let compiler = if cpp {
        std::env::var("CXX").unwrap_or_else(|_| "c++".into())
    } else {
        std::env::var("CC").unwrap_or_else(|_| "cc".into())
    };
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let mut cmd = Command::new(&compiler);
    cmd.arg(if cpp { "-std=c++17" } else { "-std=c11" })
        .args(["-Wall", "-Wextra", "-Werror", "-O2", "-pthread"])
        .arg("-I")
        .arg(repo().join("include"))
        .arg("-I")
        .arg(repo().join("crates/fastpath-capi/tests/c"))
        .args(sources.iter().map(|s| repo().join(s)))
        .arg("-o")
        .arg(&exe);
    match link {
        Link::Static => {
            cmd.arg(&lib.static_lib).args(NATIVE_LIBS);
        }
        Link::Shared => {
            cmd.arg("-L")
                .arg(lib.dir())
                .arg("-lfastpath")
                .arg(format!("-Wl,-rpath,{}", lib.dir().display()));
        }
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("run {compiler}: {e} (install a C/C++ compiler)"));
    assert!(
        out.status.success(),
        "{compiler} failed for {sources:?}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// The variable naming cargo's runner for the target this test was built
/// for (cargo's own spelling).
#[cfg(target_arch = "aarch64")]
const RUNNER_VAR: &str = "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER";
#[cfg(not(target_arch = "aarch64"))]
const RUNNER_VAR: &str = "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER";

/// A command running `exe`, a program built for this test's target: through
/// cargo's runner when the environment gives one (a cross build under a
/// user-mode emulator such as `qemu-aarch64`, where the host kernel cannot
/// execute the program itself), else directly.
fn program(exe: &Path) -> Command {
    let runner = std::env::var(RUNNER_VAR).unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(first) => {
            let mut cmd = Command::new(first);
            cmd.args(words).arg(exe);
            cmd
        }
        None => Command::new(exe),
    }
}

/// Runs `exe` with `args`; asserts exit status 0 and returns stdout. The
/// settings whose defaults the programs check are removed from the
/// environment (test_gc.c checks each barrier set's own cell format).
fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = program(exe)
        .args(args)
        .env_remove("FASTPATH_LOCKING_MODE")
        .env_remove("FASTPATH_ICACHE_SYNC")
        .env_remove("FASTPATH_SPIN_PAUSE")
        .env_remove("FASTPATH_GC_CELL_FORMAT")
        .env_remove("FASTPATH_GC_REFS")
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", exe.display()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "{} exited with {}",
        exe.display(),
        out.status
    );
    stdout
}

/// The count in the program's "<what>: passed N checks" line.
fn passed(stdout: &str, what: &str) -> u64 {
    let prefix = format!("{what}: passed ");
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix)?.strip_suffix(" checks")?.parse().ok())
        .unwrap_or_else(|| panic!("no `{prefix}N checks` line in:\n{stdout}"))
}

#[test]
fn every_function_from_c_static() {
    let exe = compile(
        "test_api_static",
        &["crates/fastpath-capi/tests/c/test_api.c"],
        Link::Static,
    );
    let out = run(&exe, &[], &[]);
    assert!(passed(&out, "test_api") >= 150);
}

#[test]
fn every_function_from_c_shared() {
    let exe = compile(
        "test_api_shared",
        &["crates/fastpath-capi/tests/c/test_api.c"],
        Link::Shared,
    );
    let out = run(&exe, &[], &[]);
    assert!(passed(&out, "test_api") >= 150);
}

#[test]
fn pthreads_mutual_exclusion_wait_notify_interrupt_and_exit_holding_a_lock() {
    let exe = compile(
        "test_threads",
        &["crates/fastpath-capi/tests/c/test_threads.c"],
        Link::Static,
    );
    // The process's locking mode: the default, then the two others (the
    // inline pair is the call there); the others on x86-64 only, whose run
    // is native (aarch64's is emulated in CI, and the modes' C is the same).
    let modes: &[Option<&str>] = if cfg!(target_arch = "x86_64") {
        &[None, Some("monitor"), Some("legacy")]
    } else {
        &[None]
    };
    for &mode in modes {
        let env: Vec<(&str, &str)> = mode.map(|m| ("FASTPATH_LOCKING_MODE", m)).into_iter().collect();
        let out = run(&exe, &[], &env);
        assert!(passed(&out, "test_threads") >= 10);
        assert!(out.contains("increments checked: 80000"), "{out}");
        assert!(out.contains("legacy increments checked: 80000"), "{out}");
        assert!(out.contains("inline increments checked: 80000"), "{out}");
    }
}

#[test]
fn gc_heap_from_c_keeps_a_linked_list_and_tags_across_collections_and_locks_objects() {
    let exe = compile(
        "test_gc",
        &["crates/fastpath-capi/tests/c/test_gc.c"],
        Link::Static,
    );
    // Full reference slots, then (x86-64, whose run is native) compressed
    // and unscaled ones: the same lists, tags and locks on 4-byte slots.
    let widths: &[Option<&str>] = if cfg!(target_arch = "x86_64") {
        &[None, Some("compressed"), Some("unscaled")]
    } else {
        &[None]
    };
    for &refs in widths {
        let env: Vec<(&str, &str)> = refs.map(|r| ("FASTPATH_GC_REFS", r)).into_iter().collect();
        let out = run(&exe, &[], &env);
        assert!(passed(&out, "test_gc") >= 100);
        assert_eq!(out.matches(" nodes intact after ").count(), 5, "{out}");
        assert_eq!(out.matches(" tags intact after ").count(), 3, "{out}");
        assert!(out.contains("locked increments checked: 3000"), "{out}");
        let (bytes, shift) = match refs {
            None => (8, 0),
            Some("compressed") => (4, 3),
            Some(_) => (4, 0),
        };
        assert!(
            out.contains(&format!("reference slots: {bytes} bytes, shift {shift}")),
            "{out}"
        );
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn code_cache_installs_patches_and_calls_x86_64_from_c() {
    let exe = compile(
        "test_code",
        &["crates/fastpath-capi/tests/c/test_code.c"],
        Link::Static,
    );
    let out = run(&exe, &[], &[]);
    assert!(passed(&out, "test_code") >= 40);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn jit_template_bytes_patched_installed_and_run_from_c() {
    let exe = compile(
        "test_jit",
        &["crates/fastpath-capi/tests/c/test_jit.c"],
        Link::Static,
    );
    let out = run(&exe, &[], &[]);
    assert!(passed(&out, "test_jit") >= 60);
}

#[test]
fn configuration_by_name_before_first_use() {
    let exe = compile(
        "test_config",
        &["crates/fastpath-capi/tests/c/test_config.c"],
        Link::Static,
    );
    let out = run(&exe, &[], &[]);
    assert!(passed(&out, "test_config") >= 10);
    // The environment's way in, strict: a bad value is an error code.
    let out = run(&exe, &["--env"], &[("FASTPATH_SPIN_PAUSE", "pasue")]);
    assert!(passed(&out, "test_config --env") >= 2);
}

#[test]
fn cpp_raii_wrappers() {
    let exe = compile(
        "test_raii",
        &["crates/fastpath-capi/tests/c/test_raii.cpp"],
        Link::Static,
    );
    let out = run(&exe, &[], &[]);
    assert!(passed(&out, "test_raii") >= 110);
}

#[test]
fn five_minute_example_runs() {
    let exe = compile("fastpath_example", &["examples/c/example.c"], Link::Static);
    let out = run(&exe, &[], &[]);
    assert!(
        out.contains("balance 40000 after 40000 deposits from 4 threads"),
        "{out}"
    );
    #[cfg(target_arch = "x86_64")]
    assert!(out.contains("installed add(20, 22) = 42"), "{out}");
}

/// `fastpath.pc` (written by build.rs beside the libraries) gives the flags
/// that build the example against the shared library, its lock-path
/// flags (`lockpath_cflags`) included.
#[test]
fn pkg_config_file_builds_the_example() {
    let lib = library();
    let pkg_config = |args: &[&str]| {
        let pc = Command::new("pkg-config")
            .args(args)
            .arg("fastpath")
            .env("PKG_CONFIG_PATH", lib.dir())
            .output()
            .expect("pkg-config is installed (.ci/run installs it)");
        assert!(pc.status.success(), "{}", String::from_utf8_lossy(&pc.stderr));
        String::from_utf8_lossy(&pc.stdout).into_owned()
    };
    let lock_path = pkg_config(&["--variable=lockpath_cflags"]);
    assert_eq!(lock_path.trim(), "-fno-plt");
    let flags = pkg_config(&["--cflags", "--libs"]) + " " + &lock_path;
    assert!(flags.contains("-lfastpath"), "{flags}");
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fastpath_example_pc");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c11", "-O2", "-pthread"])
        .arg(repo().join("examples/c/example.c"))
        .arg("-o")
        .arg(&exe)
        .args(flags.split_whitespace())
        .status()
        .expect("run the C compiler");
    assert!(status.success());
    let out = run(
        &exe,
        &[],
        &[("LD_LIBRARY_PATH", &lib.dir().display().to_string())],
    );
    assert!(out.contains("balance 40000"), "{out}");
}

/// The benchmark program builds and reports a figure (the figures
/// themselves come from `bench/enter_exit.sh`, in release mode).
#[test]
fn enter_exit_benchmark_runs() {
    let exe = compile(
        "bench_enter_exit",
        &["crates/fastpath-capi/bench/enter_exit.c"],
        Link::Static,
    );
    for (mode, line) in [
        (None, "c_enter_exit_ns "),
        (Some("on"), "c_enter_exit_on_ns "),
        (Some("inline"), "c_enter_exit_inline_ns "),
    ] {
        let mut args = vec!["10000", "3"];
        args.extend(mode);
        let out = run(&exe, &args, &[]);
        assert_eq!(out.lines().filter(|l| l.starts_with(line)).count(), 3, "{out}");
    }
}

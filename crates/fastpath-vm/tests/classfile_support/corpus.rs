//! The Java corpus (`tests/java`, or the directory `FASTPATH_VM_CORPUS`
//! names), compiled with each program's `// release:` by a JDK's javac,
//! as `tests/java/check-hotspot.sh` compiles it.
//!
//! Programs of one release are compiled together (18 javac runs for the
//! whole corpus); the class files are kept under the target directory
//! keyed by a hash of the sources, the release and the javac used, so only
//! a changed release group is compiled again, and the corpus harness
//! (`tests/harness`, which runs the programs from these directories) and
//! the class-file tests share one compile. A class belongs to the program
//! whose source its `SourceFile` attribute names.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use fastpath_vm::classfile::ClassFile;

/// One program of the corpus, compiled.
#[derive(Debug)]
pub struct Program {
    /// The main class (the file's name).
    pub name: String,
    /// Its `// release:`.
    pub release: u32,
    /// The directory holding its class files (shared with the other
    /// programs of its release).
    pub class_dir: PathBuf,
    /// Its classes: internal name and bytes, by name.
    pub classes: Vec<(String, Vec<u8>)>,
    /// Its `// args:` (JVM options).
    pub jvm_args: Vec<String>,
    /// Its `// exit:` status (0 if absent).
    pub exit: i32,
    /// The recorded stdout (`expected/<name>.out`), if any.
    pub expected_out: Option<Vec<u8>>,
}

/// The corpus directory.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("FASTPATH_VM_CORPUS") {
        Some(d) => d.into(),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java"),
    }
}

/// javac: `FASTPATH_VM_JDK`'s, else Temurin 25's (javac 25 takes every
/// `--release` from 8), else the one on the PATH.
pub fn find_javac() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(h) = std::env::var_os("FASTPATH_VM_JDK") {
        candidates.push(PathBuf::from(h).join("bin/javac"));
    }
    candidates.push("/usr/lib/jvm/temurin-25-jdk-amd64/bin/javac".into());
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("javac")));
    }
    candidates.into_iter().find(|p| p.is_file())
}

/// java for running the corpus: `FASTPATH_VM_JDK`'s, else Temurin 25's
/// (it runs every release), else the one on the PATH.
pub fn find_java() -> Option<PathBuf> {
    let javac = find_javac()?;
    let java = javac.with_file_name("java");
    java.is_file().then_some(java)
}

/// The value of the first `// key: value` line of a source.
fn header<'a>(source: &'a str, key: &str) -> Option<&'a str> {
    let prefix = format!("// {key}:");
    source
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map(str::trim)
}

/// Why the corpus could not be had.
#[derive(Clone, Debug)]
pub enum Unavailable {
    /// No javac on this machine.
    NoJavac,
    /// No programs in the corpus directory.
    NoPrograms(PathBuf),
}

/// The compiled corpus (compiled once per test process).
pub fn compiled() -> Result<&'static [Program], Unavailable> {
    static CORPUS: OnceLock<Result<Vec<Program>, Unavailable>> = OnceLock::new();
    CORPUS.get_or_init(compile_all).as_deref().map_err(Clone::clone)
}

/// The corpus's sources by release: path and text.
fn sources_by_release(dir: &Path) -> BTreeMap<u32, Vec<(PathBuf, String)>> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "java"))
                .collect()
        })
        .unwrap_or_default();
    sources.sort();
    let mut by_release: BTreeMap<u32, Vec<(PathBuf, String)>> = BTreeMap::new();
    for path in sources {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let release: u32 = header(&text, "release")
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("{}: no `// release: N` line", path.display()));
        by_release.entry(release).or_default().push((path, text));
    }
    by_release
}

/// The class directory of each release group of the corpus in `dir` that
/// `wanted` names, compiled by `javac` unless already there.
///
/// Every test that needs the corpus compiled calls this (the fuzzer, the
/// verifier's tests and the corpus harness), and the cache is keyed by the
/// canonical javac, the release and every source of the group, so a fresh
/// machine compiles each group once for all of them. They run side by
/// side in one test process: a second caller waits for the first's
/// compile (`COMPILING`) and finds its groups done, where both would
/// compile a group into the same `.tmp<pid>` directory.
pub fn release_dirs(javac: &Path, dir: &Path, wanted: impl Fn(u32) -> bool) -> BTreeMap<u32, PathBuf> {
    static COMPILING: Mutex<()> = Mutex::new(());
    // A caller that panicked (javac failed) left nothing half-renamed:
    // the next one checks every group's `.done` again.
    let _compiling = COMPILING.lock().unwrap_or_else(|e| e.into_inner());
    let by_release = sources_by_release(dir);
    let javac_key = std::fs::canonicalize(javac).unwrap_or_else(|_| javac.to_path_buf());
    let cache_root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fastpath-vm-corpus");
    let mut dirs = BTreeMap::new();
    let mut jobs = Vec::new();
    for (release, files) in by_release.iter().filter(|(r, _)| wanted(**r)) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        javac_key.hash(&mut h);
        release.hash(&mut h);
        for (p, text) in files {
            p.file_name().hash(&mut h);
            text.hash(&mut h);
        }
        let out = cache_root.join(format!("release-{release}-{:016x}", h.finish()));
        if !out.join(".done").is_file() {
            jobs.push((
                *release,
                files.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(),
                out.clone(),
            ));
        }
        dirs.insert(*release, out);
    }
    // Three javac processes at a time.
    for chunk in jobs.chunks(3) {
        let children: Vec<_> = chunk
            .iter()
            .map(|(release, files, out)| {
                let tmp = out.with_extension(format!("tmp{}", std::process::id()));
                let _ = std::fs::remove_dir_all(&tmp);
                std::fs::create_dir_all(&tmp).unwrap();
                let child = Command::new(javac)
                    .args([
                        "-J-XX:TieredStopAtLevel=1",
                        "-J-Xshare:auto",
                        "-Xlint:-options",
                        "-encoding",
                        "UTF-8",
                    ])
                    .arg("--release")
                    .arg(release.to_string())
                    .arg("-d")
                    .arg(&tmp)
                    .args(files)
                    .output();
                (release, tmp, out, child)
            })
            .collect();
        for (release, tmp, out, result) in children {
            let output = result.unwrap_or_else(|e| panic!("running {}: {e}", javac.display()));
            assert!(
                output.status.success(),
                "javac --release {release} failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            std::fs::write(tmp.join(".done"), b"").unwrap();
            let _ = std::fs::remove_dir_all(out);
            if std::fs::rename(&tmp, out).is_err() {
                // Another test process compiled the same group meanwhile.
                let _ = std::fs::remove_dir_all(&tmp);
            }
        }
    }
    dirs
}

fn compile_all() -> Result<Vec<Program>, Unavailable> {
    let dir = corpus_dir();
    let by_release = sources_by_release(&dir);
    if by_release.is_empty() {
        return Err(Unavailable::NoPrograms(dir));
    }
    let javac = find_javac().ok_or(Unavailable::NoJavac)?;
    let dirs = release_dirs(&javac, &dir, |_| true);
    let mut programs = Vec::new();
    for (release, files) in &by_release {
        let out = &dirs[release];
        let mut by_source: HashMap<String, Vec<(String, Vec<u8>)>> = HashMap::new();
        for class_file in walk(out) {
            let bytes = std::fs::read(&class_file).unwrap();
            let class = ClassFile::parse(&bytes)
                .unwrap_or_else(|e| panic!("javac's {} does not parse: {e}", class_file.display()));
            let source = class.source_file.clone().unwrap_or_default();
            by_source
                .entry(source)
                .or_default()
                .push((class.this_class, bytes));
        }
        for (path, text) in files {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let mut classes = by_source.remove(&format!("{name}.java")).unwrap_or_default();
            classes.sort_by(|a, b| a.0.cmp(&b.0));
            let expected = dir.join("expected").join(format!("{name}.out"));
            programs.push(Program {
                name,
                release: *release,
                class_dir: out.clone(),
                classes,
                jvm_args: header(text, "args")
                    .map(|a| a.split_whitespace().map(str::to_string).collect())
                    .unwrap_or_default(),
                exit: header(text, "exit").and_then(|e| e.parse().ok()).unwrap_or(0),
                expected_out: std::fs::read(expected).ok(),
            });
        }
    }
    programs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(programs)
}

/// Every `.class` file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                pending.push(p);
            } else if p.extension().is_some_and(|x| x == "class") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What a test that needs the corpus does without it: under CI (`CI`
/// set) it fails; elsewhere it says why on stderr and checks nothing.
pub fn unavailable(why: &Unavailable) {
    let msg = match why {
        Unavailable::NoJavac => "no javac (set FASTPATH_VM_JDK to a JDK home)".to_string(),
        Unavailable::NoPrograms(d) => format!("no Java programs in {}", d.display()),
    };
    assert!(
        std::env::var_os("CI").is_none(),
        "the corpus is needed under CI: {msg}"
    );
    eprintln!("corpus unavailable: {msg}: nothing checked");
}

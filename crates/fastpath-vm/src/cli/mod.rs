//! `java`'s command line: `fastpath-vm [-cp|-classpath|--class-path PATH]
//! [-Xmx SIZE] [-Xms SIZE] [-Xss SIZE] [-Xint|-Xcomp|-Xmixed] [-Xbatch] [-XX:FLAG ...]
//! [-version|--version|-showversion|--show-version] MAINCLASS [ARGS...]`
//! (the `-XX:` flags with a counterpart here: [`xx`]), and
//! what the VM reads from the environment besides the library's
//! `FASTPATH_*` settings (`FASTPATH_VM_VERIFY_HEAP=1`: the collector's
//! verifier after every cycle; `FASTPATH_VM_JIT=int|mixed|comp`: the tiers
//! when the command line names none; `FASTPATH_VM_JIT_THRESHOLD=N`: the
//! invocations before a method is compiled; `FASTPATH_VM_JIT_LOG=1`: each
//! compilation on stderr, and at exit the summary and the ten methods
//! that ran most in the interpreter without a compiled entry; `FASTPATH_VM_JIT_DUMP=Class.method,...`: those
//! methods' optimised IR and machine code on stderr, `jit::dump`;
//! `FASTPATH_VM_CPU_SOURCE`: how a start identifies
//! the CPU, `runtime::launch::cpu_source`).

pub mod xx;

use crate::runtime::vm::Options;

/// Where `-version` and its kin print, and whether the VM goes on to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// `-version`: to stderr, then exit.
    Exit,
    /// `--version`: to stdout, then exit.
    ExitStdout,
    /// `-showversion`: to stderr, then run.
    Show,
    /// `--show-version`: to stdout, then run.
    ShowStdout,
}

/// A parsed command line.
#[derive(Debug)]
pub struct Command {
    /// The VM's options.
    pub options: Options,
    /// The main class (binary name, dots or slashes).
    pub main_class: String,
    /// The program's arguments.
    pub args: Vec<String>,
    /// A version switch, if one was given.
    pub version: Option<Version>,
}

/// `-Xmx512m`-style sizes: a number with an optional k/m/g suffix.
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1usize << 10),
        'm' | 'M' => (&s[..s.len() - 1], 1 << 20),
        'g' | 'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<usize>().ok()?.checked_mul(mul)
}

const USAGE: &str =
    "Usage: fastpath-vm [-cp <class search path>] [-Xmx<size>] [-Xms<size>] [-Xss<size>] [-Xint|-Xcomp|-Xmixed] [-Xbatch] [-XX:<flag>...] [-version] <mainclass> [args...]";

/// Parses `args` (without the program name). `Err` holds the message java
/// prints for a bad command line.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let mut options = Options {
        class_path: std::env::var("CLASSPATH").unwrap_or_else(|_| ".".into()),
        verify_heap: std::env::var("FASTPATH_VM_VERIFY_HEAP").is_ok_and(|v| v == "1"),
        read_ahead_bytes: match std::env::var("FASTPATH_VM_READ_AHEAD") {
            Ok(v) => Some(parse_size(&v).ok_or_else(|| {
                format!("Error occurred during initialization of VM\nFASTPATH_VM_READ_AHEAD={v}: expected a size (bytes, or a number with k, m or g; 0: off)")
            })?),
            Err(_) => None,
        },
        jit: crate::jit::Mode::from_env()?.unwrap_or(crate::jit::Mode::Mixed),
        ..Options::default()
    };
    let mut xx: Vec<&str> = Vec::new();
    let mut version = None;
    let mut i = 0;
    let main = loop {
        if i >= args.len() {
            break None;
        }
        let a = args[i].as_str();
        match a {
            "-cp" | "-classpath" | "--class-path" => {
                i += 1;
                options.class_path = args
                    .get(i)
                    .ok_or_else(|| format!("Error: {a} requires class path specification\n{USAGE}"))?
                    .clone();
            }
            "-Xint" => options.jit = crate::jit::Mode::Int,
            "-Xcomp" => options.jit = crate::jit::Mode::Comp,
            "-Xmixed" => options.jit = crate::jit::Mode::Mixed,
            // HotSpot's alias.
            "-Xbatch" => xx.push("-BackgroundCompilation"),
            "-server" | "-client" => {}
            "-version" => version = Some(Version::Exit),
            "--version" => version = Some(Version::ExitStdout),
            "-showversion" => version = version.or(Some(Version::Show)),
            "--show-version" => version = version.or(Some(Version::ShowStdout)),
            _ if a.starts_with("-XX:") => xx.push(&a[4..]),
            _ if a.starts_with("-Xmx") || a.starts_with("-Xss") || a.starts_with("-Xms") => {
                let size = parse_size(&a[4..]).filter(|&n| n > 0).ok_or_else(|| {
                    let what = if a.starts_with("-Xss") {
                        "thread stack size"
                    } else {
                        "heap size"
                    };
                    format!("Invalid {what}: {a}\nError: Could not create the Java Virtual Machine.\nError: A fatal exception has occurred. Program will exit.")
                })?;
                if a.starts_with("-Xmx") {
                    options.heap_bytes = size;
                } else if a.starts_with("-Xms") {
                    options.initial_heap_bytes = Some(size);
                } else if a.starts_with("-Xss") {
                    options.stack_bytes = size.max(64 << 10);
                }
            }
            _ if a.starts_with("-D") || a == "-ea" || a == "-da" || a.starts_with("-ea:") => {}
            _ if a.starts_with('-') => {
                return Err(format!("Unrecognized option: {a}\nError: Could not create the Java Virtual Machine.\nError: A fatal exception has occurred. Program will exit."));
            }
            _ => break Some(i),
        }
        i += 1;
    };
    options.xx = xx::parse(&xx)?;
    if options.xx.verify_after_gc {
        options.verify_heap = true;
    }
    let exits = matches!(version, Some(Version::Exit | Version::ExitStdout));
    match main {
        Some(i) => Ok(Command {
            options,
            main_class: args[i].clone(),
            args: args[i + 1..].to_vec(),
            version,
        }),
        None if exits => Ok(Command {
            options,
            main_class: String::new(),
            args: Vec::new(),
            version,
        }),
        None => Err(USAGE.to_string()),
    }
}

/// What `-version` prints (java's three lines, in fastpath-vm's words;
/// the last names the tiers as java does, and a build without
/// optimisation as HotSpot names its debug builds: `dev build`, so that
/// whoever times it, the lab's `--vm` included, can tell).
pub fn version_text(jit: crate::jit::Mode) -> String {
    let v = env!("CARGO_PKG_VERSION");
    let build = if cfg!(debug_assertions) {
        "dev build"
    } else {
        "build"
    };
    let mode = match jit {
        crate::jit::Mode::Int => "interpreted mode",
        crate::jit::Mode::Mixed => "mixed mode",
        crate::jit::Mode::Comp => "compiled mode",
    };
    format!(
        "fastpath-vm version \"{v}\"\nfastpath-vm runtime: class files up to Java 25 on the fastpath library {v}\nfastpath-vm {}-Bit VM ({build} {v}, {mode})\n",
        usize::BITS
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn parses_javas_options() {
        let c = parse(&v(&[
            "-cp", "a:b.jar", "-Xmx64m", "-Xms16m", "-Xss2m", "-Xint", "Main", "x", "-y",
        ]))
        .unwrap();
        assert_eq!(c.options.class_path, "a:b.jar");
        assert_eq!(c.options.heap_bytes, 64 << 20);
        assert_eq!(c.options.initial_heap_bytes, Some(16 << 20));
        assert_eq!(c.options.stack_bytes, 2 << 20);
        assert_eq!(c.main_class, "Main");
        assert_eq!(c.args, v(&["x", "-y"]));
        assert!(parse(&v(&["-Xmxfoo", "M"]))
            .unwrap_err()
            .contains("Invalid heap size"));
        assert!(parse(&v(&["-cp"])).is_err());
        assert!(parse(&v(&["--bogus", "M"]))
            .unwrap_err()
            .starts_with("Unrecognized option"));
        assert!(parse(&v(&[])).is_err());
        let c = parse(&v(&[
            "-XX:LockingMode=1",
            "-XX:+UnlockDiagnosticVMOptions",
            "-XX:+VerifyAfterGC",
            "M",
        ]))
        .unwrap();
        assert_eq!(
            c.options.xx.settings,
            [("FASTPATH_LOCKING_MODE", "legacy".to_string())]
        );
        assert!(c.options.verify_heap);
        assert!(parse(&v(&["-XX:+UseFoo", "M"]))
            .unwrap_err()
            .starts_with("Unrecognized VM option 'UseFoo'"));
        // -version needs no main class; -showversion does.
        assert_eq!(parse(&v(&["-version"])).unwrap().version, Some(Version::Exit));
        assert!(parse(&v(&["-showversion"])).is_err());
        assert_eq!(
            parse(&v(&["-showversion", "M"])).unwrap().version,
            Some(Version::Show)
        );
        assert!(version_text(crate::jit::Mode::Int).contains("interpreted mode"));
        // -Xbatch is HotSpot's -XX:-BackgroundCompilation.
        assert!(parse(&v(&["-Xbatch", "M"])).unwrap().options.xx.no_background);
        assert!(!parse(&v(&["M"])).unwrap().options.xx.no_background);
        assert_eq!(parse_size("1g"), Some(1 << 30));
        assert_eq!(parse_size("12k"), Some(12 << 10));
    }
}

//! `java`'s command line: `fastpath-vm [-cp|-classpath|--class-path PATH]
//! [-Xmx SIZE] [-Xss SIZE] [-Xint|-Xcomp|-Xmixed] MAINCLASS [ARGS...]`, and
//! what the VM reads from the environment besides the library's
//! `FASTPATH_*` settings (`FASTPATH_VM_VERIFY_HEAP=1`: the collector's
//! verifier after every cycle; `FASTPATH_VM_JIT=int|mixed|comp`: the tiers
//! when the command line names none; `FASTPATH_VM_JIT_THRESHOLD=N`: the
//! invocations before a method is compiled; `FASTPATH_VM_JIT_LOG=1`: each
//! compilation on stderr; `FASTPATH_VM_CPU_SOURCE`: how a start identifies
//! the CPU, `runtime::launch::cpu_source`).

use crate::runtime::vm::Options;

/// A parsed command line.
#[derive(Debug)]
pub struct Command {
    /// The VM's options.
    pub options: Options,
    /// The main class (binary name, dots or slashes).
    pub main_class: String,
    /// The program's arguments.
    pub args: Vec<String>,
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
    "Usage: fastpath-vm [-cp <class search path>] [-Xmx<size>] [-Xss<size>] [-Xint|-Xcomp|-Xmixed] <mainclass> [args...]";

/// Parses `args` (without the program name). `Err` holds the message java
/// prints for a bad command line.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let mut options = Options {
        class_path: std::env::var("CLASSPATH").unwrap_or_else(|_| ".".into()),
        verify_heap: std::env::var("FASTPATH_VM_VERIFY_HEAP").is_ok_and(|v| v == "1"),
        jit: crate::jit::Mode::from_env()?.unwrap_or(crate::jit::Mode::Mixed),
        ..Options::default()
    };
    let mut i = 0;
    while i < args.len() {
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
            "-server" | "-client" => {}
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
                } else if a.starts_with("-Xss") {
                    options.stack_bytes = size.max(64 << 10);
                }
            }
            _ if a.starts_with("-D")
                || a.starts_with("-XX:")
                || a == "-ea"
                || a == "-da"
                || a.starts_with("-ea:") => {}
            _ if a.starts_with('-') => {
                return Err(format!("Unrecognized option: {a}\nError: Could not create the Java Virtual Machine.\nError: A fatal exception has occurred. Program will exit."));
            }
            _ => {
                return Ok(Command {
                    options,
                    main_class: a.to_string(),
                    args: args[i + 1..].to_vec(),
                })
            }
        }
        i += 1;
    }
    Err(USAGE.to_string())
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
            "-cp", "a:b.jar", "-Xmx64m", "-Xss2m", "-Xint", "Main", "x", "-y",
        ]))
        .unwrap();
        assert_eq!(c.options.class_path, "a:b.jar");
        assert_eq!(c.options.heap_bytes, 64 << 20);
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
        assert_eq!(parse_size("1g"), Some(1 << 30));
        assert_eq!(parse_size("12k"), Some(12 << 10));
    }
}

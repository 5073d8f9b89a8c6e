//! `FASTPATH_VM_PERF_MAP=1`: names compiled code for Linux `perf`.
//!
//! Where it sits: `dump::installed` reports every method entry and OSR
//! entry the JIT installs; with the variable set, each becomes a line of
//! `/tmp/perf-<pid>.map`, the file `perf report` and `perf script` read to
//! name samples in code no ELF file describes (the convention of the
//! kernel's `tools/perf/Documentation/jit-interface.txt`, which HotSpot's
//! `-XX:+DumpPerfMapAtExit` and wasmtime's `--profile=perfmap` also
//! follow): `START SIZE NAME`, addresses in hex without a prefix.
//!
//! The line is written when the code is installed, before any thread can
//! run it, so a sample in it always finds its name, also for a process
//! that dies; the file stays after the process, as perf needs it.

use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

/// The variable that turns the map on.
pub const VAR: &str = "FASTPATH_VM_PERF_MAP";

/// Whether the map is wanted: `Ok(false)` unless the variable is `1`;
/// another value than `0` or `1` is an error for the VM's start.
pub fn from_env() -> Result<bool, String> {
    match std::env::var(VAR) {
        Ok(v) if v == "1" => Ok(true),
        Ok(v) if v == "0" || v.is_empty() => Ok(false),
        Ok(v) => Err(format!("{VAR}={v}: expected 0 or 1")),
        Err(std::env::VarError::NotPresent) => Ok(false),
        Err(std::env::VarError::NotUnicode(v)) => Err(format!("{VAR}={v:?}: expected 0 or 1")),
    }
}

/// The open map, or `None` when it is off or could not be created (said
/// once on stderr).
fn map() -> Option<&'static Mutex<File>> {
    static MAP: OnceLock<Option<Mutex<File>>> = OnceLock::new();
    MAP.get_or_init(|| {
        if !from_env().unwrap_or(false) {
            return None;
        }
        let path = format!("/tmp/perf-{}.map", std::process::id());
        match File::create(&path) {
            Ok(f) => Some(Mutex::new(f)),
            Err(e) => {
                eprintln!("fastpath-vm: {VAR}: cannot create {path}: {e}");
                None
            }
        }
    })
    .as_ref()
}

/// One map line: `START SIZE NAME`.
pub fn line(addr: usize, len: usize, name: &str) -> String {
    // perf splits at the first two spaces; the name may hold more.
    format!("{addr:x} {len:x} {name}\n")
}

/// Records `[addr, addr + len)` as `name`, when the map is on.
pub fn record(addr: usize, len: usize, name: impl FnOnce() -> String) {
    let Some(map) = map() else {
        return;
    };
    let text = line(addr, len, &name());
    let mut f = map.lock().unwrap_or_else(|e| e.into_inner());
    // A failed write loses a name, not the run.
    let _ = f.write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_perfs_format() {
        assert_eq!(
            line(0x7f00_1234_5000, 0x1a0, "Permute.swap(I)V entry"),
            "7f0012345000 1a0 Permute.swap(I)V entry\n"
        );
    }
}

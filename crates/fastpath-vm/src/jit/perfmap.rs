//! `FASTPATH_VM_PERF_MAP=1`: names compiled code for Linux `perf`, two
//! ways.
//!
//! Where it sits: `dump::installed` reports every method entry and OSR
//! entry the JIT installs, with its bytes; with the variable set, each
//! becomes
//!
//! - a line of `/tmp/perf-<pid>.map` (the convention of the kernel's
//!   `tools/perf/Documentation/jit-interface.txt`, which HotSpot's
//!   `-XX:+DumpPerfMapAtExit` and wasmtime's `--profile=perfmap` also
//!   follow): `START SIZE NAME`, addresses in hex without a prefix. perf
//!   reads it only for samples in anonymous executable memory, and the
//!   code cache's execute view is a shared mapping of a memfd
//!   (`fastpath::code`: two views, so no page is ever writable and
//!   executable), which perf names `memfd:fastpath-code (deleted)` and
//!   does not look up in the map: the map names the addresses `perf
//!   script` prints;
//! - a record of `/tmp/jit-<pid>.dump`, perf's jitdump (the kernel's
//!   `tools/perf/Documentation/jitdump-specification.txt`, which V8's
//!   `--perf-prof` and the JVM's perf agents write): the code's name,
//!   address and bytes. perf finds the file by this process's mapping of
//!   it (made here, readable and executable, as the specification asks),
//!   and `perf inject --jit` makes each record an ELF image that names the
//!   samples in that code wherever it is mapped:
//!
//! ```text
//! perf record -k 1 -e cpu-clock fastpath-vm ...   (-k 1: CLOCK_MONOTONIC, the records' clock)
//! perf inject --jit -i perf.data -o perf.jit.data
//! perf report -i perf.jit.data
//! ```
//!
//! Both are written when the code is installed, before any thread can
//! run it, so a sample in it always finds its name, also for a process
//! that dies; the files stay after the process, as perf needs them. A
//! file that cannot be made is said once on stderr and the run goes on.

use std::fs::{File, OpenOptions};
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
                crate::diag!("fastpath-vm: {VAR}: cannot create {path}: {e}");
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

/// Records `code`, installed at its own address, as `name`, when the
/// map is on: a map line and a jitdump record.
pub fn record(code: &[u8], name: impl FnOnce() -> String) {
    let Some(map) = map() else {
        return;
    };
    let name = name();
    let addr = code.as_ptr() as usize;
    let text = line(addr, code.len(), &name);
    {
        let mut f = map.lock().unwrap_or_else(|e| e.into_inner());
        // A failed write loses a name, not the run.
        let _ = f.write_all(text.as_bytes());
    }
    if let Some(dump) = jitdump() {
        let mut d = dump.lock().unwrap_or_else(|e| e.into_inner());
        let index = d.next_index;
        d.next_index += 1;
        let tid = rustix::thread::gettid().as_raw_nonzero().get() as u32;
        let rec = code_load(std::process::id(), tid, code, index, &name, monotonic_ns());
        let _ = d.file.write_all(&rec);
    }
}

/// jitdump's magic (`'JiTD'` as a little-endian `u32`, which tells a reader
/// the file's byte order) and version.
pub const JITDUMP_MAGIC: u32 = 0x4A69_5444;
/// The jitdump version written.
pub const JITDUMP_VERSION: u32 = 1;
/// The record kind of a code load (`JIT_CODE_LOAD`).
pub const JIT_CODE_LOAD: u32 = 0;
/// The file header's size in bytes.
pub const JITDUMP_HEADER_BYTES: usize = 40;

/// The ELF machine of the code (`EM_X86_64`, `EM_AARCH64`).
#[cfg(target_arch = "x86_64")]
const ELF_MACHINE: u32 = 62;
#[cfg(target_arch = "aarch64")]
const ELF_MACHINE: u32 = 183;
/// `EM_NONE` on the architectures the JIT has no back end for here.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const ELF_MACHINE: u32 = 0;

/// The open jitdump: the file, and the next record's code index.
struct JitDump {
    file: File,
    next_index: u64,
}

/// `CLOCK_MONOTONIC` in nanoseconds: the clock `perf record -k 1` stamps
/// its samples with, which the records' timestamps must match.
fn monotonic_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    (t.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(t.tv_nsec as u64)
}

/// The file header: magic, version, its own size, the ELF machine, a pad,
/// the process, a timestamp, no flags.
pub fn jitdump_header(pid: u32, timestamp: u64) -> [u8; JITDUMP_HEADER_BYTES] {
    let mut h = [0u8; JITDUMP_HEADER_BYTES];
    h[0..4].copy_from_slice(&JITDUMP_MAGIC.to_le_bytes());
    h[4..8].copy_from_slice(&JITDUMP_VERSION.to_le_bytes());
    h[8..12].copy_from_slice(&(JITDUMP_HEADER_BYTES as u32).to_le_bytes());
    h[12..16].copy_from_slice(&ELF_MACHINE.to_le_bytes());
    h[20..24].copy_from_slice(&pid.to_le_bytes());
    h[24..32].copy_from_slice(&timestamp.to_le_bytes());
    h
}

/// A `JIT_CODE_LOAD` record: the record header (kind, total size,
/// timestamp), the process and thread, the code's address twice (where it
/// runs and where its bytes are: the same here), its size and index, the
/// name with its NUL, and the bytes.
pub fn code_load(pid: u32, tid: u32, code: &[u8], index: u64, name: &str, timestamp: u64) -> Vec<u8> {
    let addr = code.as_ptr() as u64;
    let total = 16 + 8 + 8 * 4 + name.len() + 1 + code.len();
    let mut r = Vec::with_capacity(total);
    r.extend_from_slice(&JIT_CODE_LOAD.to_le_bytes());
    r.extend_from_slice(&(total as u32).to_le_bytes());
    r.extend_from_slice(&timestamp.to_le_bytes());
    r.extend_from_slice(&pid.to_le_bytes());
    r.extend_from_slice(&tid.to_le_bytes());
    r.extend_from_slice(&addr.to_le_bytes());
    r.extend_from_slice(&addr.to_le_bytes());
    r.extend_from_slice(&(code.len() as u64).to_le_bytes());
    r.extend_from_slice(&index.to_le_bytes());
    r.extend_from_slice(name.as_bytes());
    r.push(0);
    r.extend_from_slice(code);
    r
}

/// The open jitdump, or `None` when the map is off or the dump could not
/// be made (said once on stderr).
fn jitdump() -> Option<&'static Mutex<JitDump>> {
    static DUMP: OnceLock<Option<Mutex<JitDump>>> = OnceLock::new();
    DUMP.get_or_init(|| {
        let pid = std::process::id();
        let path = format!("/tmp/jit-{pid}.dump");
        let made = (|| -> std::io::Result<File> {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)?;
            file.write_all(&jitdump_header(pid, monotonic_ns()))?;
            // perf finds the dump by this mapping's event: a page of the
            // file, readable and executable. It stays for the process's
            // life (its unmapping would only add an event).
            // SAFETY: a fresh private mapping of our own file at an
            // address the kernel chooses; it aliases no Rust object, and
            // nothing reads or writes through it.
            unsafe {
                rustix::mm::mmap(
                    std::ptr::null_mut(),
                    rustix::param::page_size(),
                    rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::EXEC,
                    rustix::mm::MapFlags::PRIVATE,
                    &file,
                    0,
                )
            }?;
            Ok(file)
        })();
        match made {
            Ok(file) => Some(Mutex::new(JitDump { file, next_index: 0 })),
            Err(e) => {
                crate::diag!("fastpath-vm: {VAR}: cannot make {path}: {e}");
                None
            }
        }
    })
    .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header and a record, field by field, as the specification
    /// lays them out.
    #[test]
    fn jitdump_records_are_the_specifications() {
        let h = jitdump_header(4242, 77);
        let u32_at = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        assert_eq!(&h[0..4], b"DTiJ", "the magic as bytes on a little-endian machine");
        assert_eq!(
            (u32_at(&h, 4), u32_at(&h, 8), u32_at(&h, 12)),
            (1, 40, ELF_MACHINE)
        );
        assert_eq!(
            (u32_at(&h, 16), u32_at(&h, 20), u64_at(&h, 24), u64_at(&h, 32)),
            (0, 4242, 77, 0)
        );
        let code = [0xc3u8, 0x90, 0x90];
        let r = code_load(4242, 4243, &code, 5, "A.b()V entry", 99);
        assert_eq!(r.len(), 56 + "A.b()V entry".len() + 1 + 3);
        assert_eq!(
            (u32_at(&r, 0), u32_at(&r, 4) as usize, u64_at(&r, 8)),
            (JIT_CODE_LOAD, r.len(), 99)
        );
        assert_eq!((u32_at(&r, 16), u32_at(&r, 20)), (4242, 4243));
        let addr = code.as_ptr() as u64;
        assert_eq!(
            (u64_at(&r, 24), u64_at(&r, 32), u64_at(&r, 40), u64_at(&r, 48)),
            (addr, addr, 3, 5)
        );
        assert_eq!(&r[56..56 + 13], b"A.b()V entry\0");
        assert_eq!(&r[69..], &code);
    }

    #[test]
    fn lines_are_perfs_format() {
        assert_eq!(
            line(0x7f00_1234_5000, 0x1a0, "Permute.swap(I)V entry"),
            "7f0012345000 1a0 Permute.swap(I)V entry\n"
        );
    }
}

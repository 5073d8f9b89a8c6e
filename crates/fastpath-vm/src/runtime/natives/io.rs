//! The standard streams: `System.out` and `System.err` write through
//! `java.io.PrintStream`'s natives into the process's file descriptors 1
//! and 2, encoded as UTF-8 (the `stdout.encoding` java picks under a UTF-8
//! locale; under any other locale java writes `?` for what ASCII cannot
//! hold, and so does this: the same test runs give the same bytes).
//! Standard output is buffered and flushed at exit and when standard error
//! is written (so the two interleave on a terminal as java's do).

use std::io::Write;
use std::sync::Mutex;

use fastpath::gc::BarrierSet;

use crate::interp::{Args, NativeFn};
use crate::link::Kind;
use crate::runtime::{JResult, JThread};

static STDOUT: Mutex<Option<std::io::BufWriter<std::io::Stdout>>> = Mutex::new(None);

fn utf8_locale() -> bool {
    static UTF8: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *UTF8.get_or_init(|| {
        let v = ["LC_ALL", "LC_CTYPE", "LANG"]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
            .unwrap_or_default()
            .to_ascii_lowercase();
        v.contains("utf-8") || v.contains("utf8")
    })
}

/// Encodes UTF-16 as the stream's encoding (module docs).
pub fn encode(units: &[u16]) -> Vec<u8> {
    if utf8_locale() {
        let mut out = Vec::with_capacity(units.len());
        for c in char::decode_utf16(units.iter().copied()) {
            let c = c.unwrap_or('?');
            let mut b = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        }
        out
    } else {
        char::decode_utf16(units.iter().copied())
            .map(|c| match c {
                Ok(c) if c.is_ascii() => c as u8,
                _ => b'?',
            })
            .collect()
    }
}

/// Writes bytes to fd 1 or 2.
pub fn write_fd(fd: i32, bytes: &[u8]) {
    if fd == 2 {
        flush_stdout();
        let _ = std::io::stderr().write_all(bytes);
    } else {
        let mut g = STDOUT.lock().unwrap_or_else(|e| e.into_inner());
        let w = g.get_or_insert_with(|| std::io::BufWriter::with_capacity(1 << 16, std::io::stdout()));
        let _ = w.write_all(bytes);
    }
}

/// Flushes standard output (exit, `System.out.flush()`, before stderr).
pub fn flush_stdout() {
    let mut g = STDOUT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(w) = g.as_mut() {
        let _ = w.flush();
    }
}

fn write_string<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let fd = a.int(0);
    let s = a.obj(1);
    let units = if s == 0 {
        "null".encode_utf16().collect()
    } else {
        t.string_units(s)
    };
    write_fd(fd, &encode(&units));
    Ok(0)
}

fn write_chars<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (fd, arr, off, len) = (a.int(0), a.obj(1), a.int(2), a.int(3));
    if arr == 0 {
        return Err(t.throw_new("java/lang/NullPointerException", None));
    }
    let n = t.array_len(arr);
    if off < 0 || len < 0 || off as i64 + len as i64 > n as i64 {
        return Err(t.throw_new("java/lang/IndexOutOfBoundsException", None));
    }
    let p = t.elem_ptr(arr, Kind::Char, off as usize) as *const u16;
    // SAFETY: `len` chars from `off`, in bounds (checked).
    let units = unsafe { std::slice::from_raw_parts(p, len as usize) }.to_vec();
    write_fd(fd, &encode(&units));
    Ok(0)
}

fn write_bytes<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let (fd, arr, off, len) = (a.int(0), a.obj(1), a.int(2), a.int(3));
    if arr == 0 {
        return Err(t.throw_new("java/lang/NullPointerException", None));
    }
    let n = t.array_len(arr);
    if off < 0 || len < 0 || off as i64 + len as i64 > n as i64 {
        return Err(t.throw_new("java/lang/IndexOutOfBoundsException", None));
    }
    let p = t.elem_ptr(arr, Kind::Byte, off as usize);
    // SAFETY: in bounds (checked).
    let bytes = unsafe { std::slice::from_raw_parts(p, len as usize) }.to_vec();
    write_fd(fd, &bytes);
    Ok(0)
}

fn flush<B: BarrierSet>(_t: &mut JThread<B>, a: Args) -> JResult<u64> {
    if a.int(0) == 1 {
        flush_stdout();
    }
    Ok(0)
}

/// The natives of this file.
pub fn lookup<B: BarrierSet>(class: &str, name: &str, desc: &str) -> Option<NativeFn<B>> {
    Some(match (class, name, desc) {
        ("java/io/PrintStream", "writeString", "(ILjava/lang/String;)V") => write_string::<B>,
        ("java/io/PrintStream", "writeChars", "(I[CII)V") => write_chars::<B>,
        ("java/io/PrintStream", "writeBytes", "(I[BII)V") => write_bytes::<B>,
        ("java/io/PrintStream", "flush0", "(I)V") => flush::<B>,
        _ => return None,
    })
}

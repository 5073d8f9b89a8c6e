//! The Cranelift emitters compiled with cranelift-codegen, installed with
//! relocations in fastpath's `CodeCache` (absolute and PC-relative calls to
//! the slow paths), run against a `#[repr(C)]` test thread block, and the
//! fast path's instructions counted in the decoded code.
#![cfg(target_arch = "x86_64")]

use std::sync::atomic::{AtomicU64, Ordering};

mod common;

use common::compile;
use cranelift_codegen::ir::{types::I64, InstBuilder};
use fastpath::code::{CodeCache, Entry};
use fastpath_cranelift::{import_slow_path, lrb_idle_test, safepoint_poll, satb_pre_barrier, ThreadLayout};
use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter, Mnemonic};

#[repr(C)]
struct Thread {
    gc_state: u8,
    poll: u8,
}

const LAYOUT: ThreadLayout = ThreadLayout {
    gc_state: 0,
    marking_bit: 1,
    has_forwarded_bit: 4,
    poll: 1,
    poll_bit: 1,
    card_table_base: 0,
    card_shift: 9,
    dirty_card: 0,
    tlab_top: 0,
    tlab_end: 0,
};

#[derive(Clone, Copy, Debug)]
enum Which {
    Poll,
    Satb,
    Lrb,
}

/// One counter per test (the tests run in parallel).
static CALLS: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];
/// Relaxed: each counter is read by the thread that made the calls.
extern "C" fn slow1(_t: *mut Thread) {
    CALLS[0].fetch_add(1, Ordering::Relaxed);
}
extern "C" fn slow2(_t: *mut Thread, v: u64) {
    CALLS[v as usize].fetch_add(1, Ordering::Relaxed);
}

/// `fn(thread, x) -> x + 1` with the fast path first.
fn build(which: Which, colocated: bool, cache: &CodeCache) -> Entry {
    let slow = [slow1 as *const () as usize, slow2 as *const () as usize];
    compile(cache, 2, Some(I64), &slow, |b, a| {
        let (thread, x) = (a[0], a[1]);
        match which {
            Which::Poll => {
                let slow = import_slow_path(b, 0, 1, colocated);
                safepoint_poll(b, thread, &LAYOUT, slow);
            }
            Which::Satb => {
                let slow = import_slow_path(b, 1, 2, colocated);
                let one = b.ins().iconst(I64, 1);
                satb_pre_barrier(b, thread, one, &LAYOUT, slow);
            }
            Which::Lrb => {
                let slow = import_slow_path(b, 1, 2, colocated);
                let two = b.ins().iconst(I64, 2);
                lrb_idle_test(b, thread, two, &LAYOUT, slow);
            }
        }
        Some(b.ins().iadd_imm_s(x, 1))
    })
}

fn call(e: &Entry, t: &mut Thread, x: u64) -> u64 {
    // SAFETY: `build` makes an `extern "C" fn(*mut Thread, u64) -> u64`,
    // installed while called.
    let f: extern "C" fn(*mut Thread, u64) -> u64 = unsafe { e.as_fn() };
    f(t, x)
}

/// Instructions from the test of the thread byte to its branch, inclusive,
/// and the listing.
fn fast_path_len(e: &Entry, off: i32) -> (usize, String) {
    // SAFETY: the entry's bytes are mapped readable.
    let code = unsafe { std::slice::from_raw_parts(e.addr(), e.len()) };
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut fmt = IntelFormatter::new();
    let (mut listing, mut start, mut len) = (String::new(), None, None);
    for (i, insn) in decoder.iter().enumerate() {
        fmt.format(&insn, &mut listing);
        listing.push('\n');
        if start.is_none()
            && insn.memory_base() == iced_x86::Register::RDI
            && insn.memory_displacement64() == off as u64
        {
            start = Some(i);
        }
        if let (Some(s), None) = (start, len) {
            if matches!(insn.mnemonic(), Mnemonic::Jne | Mnemonic::Je) {
                len = Some(i - s + 1);
            }
        }
    }
    (
        len.unwrap_or_else(|| panic!("no test-and-branch in\n{listing}")),
        listing,
    )
}

#[test]
fn cranelift_fast_paths_run_from_the_code_cache() {
    let cache = CodeCache::new(64 * 1024).unwrap();
    for (k, which) in [Which::Poll, Which::Satb, Which::Lrb].into_iter().enumerate() {
        let (off, armed, other) = match which {
            Which::Poll => (1, 1u8, 0xFEu8),
            Which::Satb => (0, 1, 4 | 2),
            Which::Lrb => (0, 4, 1 | 2),
        };
        for colocated in [false, true] {
            let e = build(which, colocated, &cache);
            let mut t = Thread { gc_state: 0, poll: 0 };
            let set = |t: &mut Thread, v: u8| if off == 1 { t.poll = v } else { t.gc_state = v };
            let before = CALLS[k].load(Ordering::Relaxed);
            assert_eq!(call(&e, &mut t, 41), 42);
            set(&mut t, other);
            assert_eq!(call(&e, &mut t, 1), 2);
            assert_eq!(
                CALLS[k].load(Ordering::Relaxed),
                before,
                "{which:?}: idle must not call"
            );
            set(&mut t, armed);
            assert_eq!(call(&e, &mut t, 7), 8);
            assert_eq!(
                CALLS[k].load(Ordering::Relaxed),
                before + 1,
                "{which:?}: armed must call"
            );
            let (n, listing) = fast_path_len(&e, off);
            println!("cranelift {which:?} (colocated {colocated}): fast path {n} instructions\n{listing}");
            assert!(n <= 3, "{which:?}: {n} instructions\n{listing}");
        }
    }
}

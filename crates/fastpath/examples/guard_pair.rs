//! What a `Synchronized` lock + unlock costs once its object is inflated,
//! beside the raw inflated pair (`sync::enter` + `sync::exit` on an
//! inflated object) and the thin `Synchronized` pair, on one thread.
//!
//! Every object an inflated `Synchronized` guards stays inflated after its
//! first contention, so this is the per-operation cost of every contended
//! row in `fastpath lock --only contended`.
//!
//! Each round times `n` pairs of each loop back to back and the example
//! prints the median over rounds of the per-round ratios (inflated
//! `Synchronized` ÷ raw inflated, thin `Synchronized` ÷ raw inflated):
//! paired rounds see the same load on a shared machine. `ratio-thread`
//! runs the rounds on a fresh thread, the objects inflated by the main one
//! (as the lab's contended rows are). `IN=25 OUT=125` (units of the lab's
//! `work`, about 5 ns and 25 ns here) adds the contended table's work
//! inside and outside the lock to every pair. Instructions per pair come
//! from Callgrind on one loop alone (`count` mode):
//!
//! ```text
//! cargo build --release -p fastpath --example guard_pair
//! valgrind --tool=callgrind --toggle-collect='guard_pair::sync_inflated' \
//!     target/release/examples/guard_pair count sync-inflated 100000
//! # also: sync_thin / sync-thin, raw_inflated / raw-inflated,
//! # raw_thin / raw-thin, the thread block passed in: raw_thin_on /
//! # raw-thin-on and sync_thin_on / sync-thin-on, and bare / bare (the loop
//! # and its work calls alone)
//! target/release/examples/guard_pair ratio 200
//! IN=25 OUT=125 target/release/examples/guard_pair ratio-thread 50
//! ```

use std::pin::{pin, Pin};
use std::time::{Duration, Instant};

use fastpath::sync::{self, Header, Synchronized};

#[inline(never)]
fn sync_inflated(s: Pin<&Synchronized<u64>>, n: u64) {
    sync_pairs(s, n);
}

/// `n` lock, increment, unlock; its own symbol per object state, so that
/// Callgrind can count each alone.
#[inline(always)]
fn sync_pairs(s: Pin<&Synchronized<u64>>, n: u64) {
    for _ in 0..n {
        let s = std::hint::black_box(s);
        let mut g = s.lock().expect("not held");
        *g += 1;
        work(inside());
        drop(g);
        work(outside());
    }
}

/// Work units inside and outside the lock per pair (`IN`, `OUT`).
static IN: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
static OUT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
fn inside() -> u32 {
    IN.load(std::sync::atomic::Ordering::Relaxed)
}
fn outside() -> u32 {
    OUT.load(std::sync::atomic::Ordering::Relaxed)
}
/// The lab's `work`: `units` dependent multiply-adds.
#[inline(never)]
fn work(units: u32) {
    let mut x = std::hint::black_box(1u64);
    for _ in 0..units {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
    }
    std::hint::black_box(x);
}

#[inline(never)]
fn sync_thin(s: Pin<&Synchronized<u64>>, n: u64) {
    // Not the same machine code as `sync_inflated`, which the linker would
    // fold into one symbol, leaving Callgrind nothing to count here.
    std::hint::black_box(1u8);
    sync_pairs(s, n);
}

/// The raw pair on an object that stays thin (fast-locked).
#[inline(never)]
fn raw_thin(h: Pin<&Header>, n: u64) {
    std::hint::black_box(2u8); // see `sync_thin`
    raw_pairs(h, n);
}

/// [`raw_thin`] with the thread block passed in (`sync::enter_on`), as
/// a runtime that carries its thread: no thread-local access in the loop.
#[inline(never)]
fn raw_thin_on(h: Pin<&Header>, n: u64) {
    let me = fastpath::thread::current();
    for _ in 0..n {
        let h = std::hint::black_box(h);
        sync::enter_on(me, h);
        work(inside());
        let _ = sync::exit_on(me, h);
        work(outside());
    }
}

/// [`sync_thin`] with the thread block passed in (`Synchronized::lock_on`).
#[inline(never)]
fn sync_thin_on(s: Pin<&Synchronized<u64>>, n: u64) {
    let me = fastpath::thread::current();
    for _ in 0..n {
        let s = std::hint::black_box(s);
        let mut g = s.lock_on(me).expect("not held");
        *g += 1;
        work(inside());
        drop(g);
        work(outside());
    }
}

/// The loop alone, with its `work` calls: what the other loops' counts
/// include besides the pair.
#[inline(never)]
fn bare(n: u64) {
    for _ in 0..n {
        work(inside());
        work(outside());
    }
}

#[inline(never)]
fn raw_inflated(h: Pin<&Header>, n: u64) {
    raw_pairs(h, n);
}

/// `n` raw enter, work, exit; see `sync_pairs`.
#[inline(always)]
fn raw_pairs(h: Pin<&Header>, n: u64) {
    for _ in 0..n {
        let h = std::hint::black_box(h);
        sync::enter(h);
        work(inside());
        let _ = sync::exit(h);
        work(outside());
    }
}

/// Inflates `s`'s object, owned by nobody afterwards (a zero-timeout wait
/// inflates; the monitor stays until a deflation pass, which an owned or
/// recently used monitor survives only by chance: checked per round).
fn inflate(s: Pin<&Synchronized<u64>>) {
    let mut g = s.lock().expect("not held");
    let _ = g.wait(Some(Duration::from_millis(
        std::env::var("WAIT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
    )));
}

fn inflate_raw(h: Pin<&Header>) {
    sync::enter(h);
    let _ = sync::wait(h, Some(Duration::ZERO));
    let _ = sync::exit(h);
}

fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_nanos() as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let units = |v: &str| std::env::var(v).ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    IN.store(units("IN"), std::sync::atomic::Ordering::Relaxed);
    OUT.store(units("OUT"), std::sync::atomic::Ordering::Relaxed);
    let mode = args.first().map(String::as_str).unwrap_or("ratio");
    let inflated = pin!(Synchronized::new(0u64));
    let thin = pin!(Synchronized::new(0u64));
    let raw = pin!(Header::new());
    let thin_raw = pin!(Header::new());
    inflate(inflated.as_ref());
    inflate_raw(raw.as_ref());
    match mode {
        "count" => {
            // A deflation pass first sets up the readers' barrier (membarrier
            // where the kernel has it) as a long run's deflation thread
            // would: otherwise whether the counted loop pays a real fence
            // per critical section depends on when that thread starts.
            sync::deflate_idle_monitors();
            inflate(inflated.as_ref());
            inflate_raw(raw.as_ref());
            let which = args.get(1).map(String::as_str).unwrap_or("sync-inflated");
            let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
            match which {
                "sync-inflated" => sync_inflated(inflated.as_ref(), n),
                "sync-thin" => sync_thin(thin.as_ref(), n),
                "raw-inflated" => raw_inflated(raw.as_ref(), n),
                "raw-thin" => raw_thin(thin_raw.as_ref(), n),
                "raw-thin-on" => raw_thin_on(thin_raw.as_ref(), n),
                "sync-thin-on" => sync_thin_on(thin.as_ref(), n),
                "bare" => bare(n),
                other => {
                    eprintln!(
                        "unknown loop {other:?}: sync-inflated | sync-thin | sync-thin-on | raw-inflated | raw-thin | raw-thin-on | bare"
                    );
                    std::process::exit(2);
                }
            }
            assert!(inflated.header().is_inflated() || which != "sync-inflated");
            println!("{which}: {n} pairs");
        }
        "ratio" | "ratio-thread" => {
            let rounds: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200);
            if mode == "ratio-thread" {
                // The lab's contended rows: the objects inflated here, the
                // pairs timed on a fresh thread.
                let (inflated, thin, raw) = (inflated.as_ref(), thin.as_ref(), raw.as_ref());
                std::thread::scope(|s| {
                    s.spawn(move || ratio(rounds, inflated, thin, raw));
                });
            } else {
                ratio(rounds, inflated.as_ref(), thin.as_ref(), raw.as_ref());
            }
        }
        other => {
            eprintln!("unknown mode {other:?}: count | ratio | ratio-thread");
            std::process::exit(2);
        }
    }
}

/// Prints the median per-round ratios (module docs).
fn ratio(rounds: usize, inflated: Pin<&Synchronized<u64>>, thin: Pin<&Synchronized<u64>>, raw: Pin<&Header>) {
    {
        {
            let n = 20_000;
            let (mut inf, mut thn) = (Vec::new(), Vec::new());
            for _ in 0..rounds {
                if !inflated.header().is_inflated() {
                    inflate(inflated); // deflated by the deflation thread
                }
                if !raw.get_ref().is_inflated() {
                    inflate_raw(raw);
                }
                let r = time(|| raw_inflated(raw, n));
                let i = time(|| sync_inflated(inflated, n));
                let t = time(|| sync_thin(thin, n));
                inf.push(i / r);
                thn.push(t / r);
            }
            println!(
                "{rounds} rounds of {n} pairs: sync-inflated / raw-inflated = {:.3} (median), sync-thin / raw-inflated = {:.3}",
                median(inf),
                median(thn)
            );
        }
    }
}

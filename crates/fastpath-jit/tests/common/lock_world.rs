//! The lightweight monitor templates' differential, mixed and stress
//! tests, shared by every architecture's test binary (x64_lock.rs,
//! aarch64_lock.rs): each gives a harness per operation that runs the
//! template from fastpath's `CodeCache` with the real thread block
//! (`fastpath::thread::current()`) in its thread register.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use fastpath::code::{CodeCache, Entry};
use fastpath::sync::{self, Header, LockState, LockingMode};
use fastpath::thread as fthread;
use fastpath_jit::reg::Reg;
use fastpath_jit::slow;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Enter,
    Exit,
}

/// A template harness on the calling thread: 0 the template fell through
/// to `done`; without a stub 1 it reached `slow`; with the stub 1 the slow
/// path ran (exit: 2 it reported an error).
pub trait Run: Sync {
    fn run(&self, obj: &Header) -> u64;
}

/// A generated `extern "C" fn(thread, obj) -> u64` (see [`Run`]), run on
/// the calling thread with its real block; alive as long as its cache.
pub struct Harness {
    _cache: CodeCache,
    entry: Entry,
}

type HarnessFn = unsafe extern "C" fn(*const fthread::ThreadBlock, *const Header) -> u64;

impl Harness {
    /// Installs `code`, a complete `HarnessFn`.
    pub fn install(code: &[u8]) -> Harness {
        let cache = CodeCache::new(4096).unwrap();
        let entry = cache.install(code).unwrap();
        Harness { _cache: cache, entry }
    }
}

impl Run for Harness {
    fn run(&self, obj: &Header) -> u64 {
        // SAFETY: the harness is a complete `HarnessFn` (`install`'s
        // contract); it is called on this thread with this thread's block
        // and a live pinned header.
        unsafe {
            let f: HarnessFn = self.entry.as_fn();
            f(fthread::current().as_ptr(), obj)
        }
    }
}

/// What a guessed exit's harness puts in the guess register before the
/// template runs (`LockExit::emit_expecting`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guess {
    /// The header's word: right when fast-locked, the monitor's word when
    /// inflated (the guess that must not be trusted).
    Loaded,
    /// The header's word with lock bits 10 (an inflated-looking word): the
    /// template forces the bits to 00, so it is the right guess too.
    LoadedInflated,
    /// 0: masked, the word of a header with no hash (right for a fresh
    /// header, wrong for a hashed one).
    Zero,
    /// All ones: never a header's word.
    Ones,
    /// The header's word with another hash bit: wrong.
    Other,
}

/// [`stress`]'s deflater deflates every idle monitor of the process, the
/// twin worlds of a scenario test running beside it included (a test
/// binary runs its tests on several threads): `stress` runs alone (write),
/// the scenario tests beside each other (read).
static DEFLATION: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Held by a scenario test while it runs (a test that failed while
/// holding it does not fail the others).
fn beside_each_other() -> std::sync::RwLockReadGuard<'static, ()> {
    DEFLATION.read().unwrap_or_else(|e| e.into_inner())
}

/// The lock-stack as seen from the block: `top` and the live entries.
pub fn lock_stack() -> (u32, Vec<usize>) {
    let b = fthread::current().as_ptr() as *const u8;
    // SAFETY: reads of this thread's own block at its published offsets
    // (`u32` top, `usize` entries below `top`); nothing else writes them.
    unsafe {
        let top = b.add(fthread::LOCK_STACK_TOP_OFFSET).cast::<u32>().read();
        let mut v = Vec::new();
        if top as usize <= fthread::LOCK_STACK_END_OFFSET {
            let mut off = fthread::LOCK_STACK_OFFSET;
            while off < top as usize {
                v.push(b.add(off).cast::<usize>().read());
                off += 8;
            }
        }
        (top, v)
    }
}

pub fn pin(h: &Header) -> Pin<&Header> {
    // SAFETY: every header here lives in a `Pin<Box<Header>>`.
    unsafe { Pin::new_unchecked(h) }
}

// ---------------------------------------------------------------------
// Differential: header state × lock-stack state.

#[derive(Clone, Copy, Debug)]
pub enum Foreign {
    None,
    FastLocked,
    Inflated,
    Legacy,
}

#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    /// This thread's locking mode.
    mode: LockingMode,
    /// Another thread holds X this way while the operation runs.
    foreign: Foreign,
    /// What this thread holds first, in order: 'X' the target, digits other objects.
    ours: &'static str,
    /// X inflated by this thread (X, a, X) before `ours`.
    inflate_ours: bool,
}

/// The state after the operation, with addresses named (X, a, b…).
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    x_state: LockState,
    x_word: Option<usize>,
    top: u32,
    entries: String,
}

/// Runs `sc` in a fresh thread: setup, the operation (`via`: the
/// template without stub, then the stub's slow path if it reached `slow`;
/// or the Rust `enter_on`/`exit_on`), the state, teardown.
pub fn run_world(sc: Scenario, op: Op, via: Option<&dyn Run>) -> (Option<bool>, bool, Outcome) {
    let x = Box::pin(Header::new());
    let others: Vec<Pin<Box<Header>>> = (0..10).map(|_| Box::pin(Header::new())).collect();
    std::thread::scope(|s| {
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (ready_tx, ready_rx) = mpsc::channel::<()>();
        let foreign = sc.foreign;
        let (xr, o0, others) = (&*x, &*others[9], &others);
        let helper = (!matches!(foreign, Foreign::None)).then(|| {
            s.spawn(move || {
                if matches!(foreign, Foreign::Legacy) {
                    sync::set_current_thread_locking_mode(LockingMode::Legacy).unwrap();
                }
                sync::enter(pin(xr));
                if matches!(foreign, Foreign::Inflated) {
                    sync::enter(pin(o0));
                    sync::enter(pin(xr)); // not on top: inflates X
                }
                ready_tx.send(()).unwrap();
                go_rx.recv().unwrap();
                if matches!(foreign, Foreign::Inflated) {
                    sync::exit(pin(xr)).unwrap();
                    sync::exit(pin(o0)).unwrap();
                }
                sync::exit(pin(xr)).unwrap();
            })
        });
        if helper.is_some() {
            ready_rx.recv().unwrap();
        }
        let res = s
            .spawn(move || {
                let me = fthread::current();
                // Another thread holds X: a blocking enter would wait for it,
                // so both sides continue with the non-blocking `try_enter`.
                let contended = !matches!(sc.foreign, Foreign::None);
                sync::set_current_thread_locking_mode(sc.mode).unwrap();
                let name = |a: usize| {
                    if a == xr as *const Header as usize {
                        'X'
                    } else {
                        let i = others
                            .iter()
                            .position(|o| &**o as *const Header as usize == a)
                            .unwrap();
                        (b'a' + i as u8) as char
                    }
                };
                let obj = |c: char| {
                    if c == 'X' {
                        xr
                    } else {
                        &*others[c.to_digit(10).unwrap() as usize]
                    }
                };
                let mut held: Vec<&Header> = Vec::new();
                if sc.inflate_ours {
                    for h in [xr, &*others[8], xr] {
                        sync::enter_on(me, pin(h));
                        held.push(h);
                    }
                }
                for c in sc.ours.chars() {
                    sync::enter_on(me, pin(obj(c)));
                    held.push(obj(c));
                }
                let before = (xr.raw(), lock_stack());
                let (reached, slow_ok) = match via {
                    Some(h) => {
                        let slow = h.run(xr) == 1;
                        if slow {
                            assert_eq!(
                                (xr.raw(), lock_stack()),
                                before,
                                "{sc:?} {op:?}: slow changed state"
                            );
                        }
                        let ok = if !slow {
                            true
                        } else if op == Op::Enter && contended {
                            sync::try_enter(pin(xr))
                        } else if op == Op::Enter {
                            // SAFETY: this thread's block, a live pinned header.
                            unsafe { slow::monitor_enter(me, xr) };
                            true
                        } else {
                            // SAFETY: as above.
                            unsafe { slow::monitor_exit(me, xr) == 0 }
                        };
                        (Some(slow), ok)
                    }
                    None => match op {
                        Op::Enter if contended => (None, sync::try_enter(pin(xr))),
                        Op::Enter => {
                            sync::enter_on(me, pin(xr));
                            (None, true)
                        }
                        Op::Exit => (None, sync::exit_on(me, pin(xr)).is_ok()),
                    },
                };
                let (top, entries) = lock_stack();
                let x_state = xr.lock_state();
                let out = Outcome {
                    x_state,
                    // A monitor's or a legacy record's address differs between twins.
                    x_word: (x_state != LockState::Inflated && xr.raw() >> 63 == 1).then(|| xr.raw()),
                    top,
                    entries: entries.iter().map(|&a| name(a)).collect(),
                };
                // Teardown: undo the operation, then what setup took.
                match (op, slow_ok) {
                    (Op::Enter, true) => sync::exit_on(me, pin(xr)).unwrap(),
                    (Op::Exit, true) => {
                        // X was released once: take it back so teardown's exits pair.
                        sync::enter_on(me, pin(xr))
                    }
                    _ => {}
                }
                for h in held.iter().rev() {
                    sync::exit_on(me, pin(h)).unwrap();
                }
                assert_eq!(lock_stack().1, Vec::<usize>::new());
                (reached, slow_ok, out)
            })
            .join()
            .unwrap();
        let _ = go_tx.send(()); // no helper: nobody listens
        if let Some(h) = helper {
            h.join().unwrap();
        }
        res
    })
}

pub fn scenarios() -> Vec<(Scenario, [Option<bool>; 2])> {
    use Foreign as F;
    use LockingMode::*;
    let sc = |mode, foreign, ours, inflate_ours| Scenario {
        mode,
        foreign,
        ours,
        inflate_ours,
    };
    // Expected label per operation [enter, exit]: Some(false) done, Some(true) slow.
    let (d, s) = (Some(false), Some(true));
    vec![
        (sc(Lightweight, F::None, "", false), [d, s]),  // unlocked, empty
        (sc(Lightweight, F::None, "0", false), [d, s]), // unlocked, another on top
        (sc(Lightweight, F::None, "01234567", false), [s, s]), // unlocked, full
        (sc(Lightweight, F::None, "X", false), [d, d]), // ours on top
        (sc(Lightweight, F::None, "XX", false), [d, d]), // ours on top, recursive
        (sc(Lightweight, F::None, "0123456X", false), [s, d]), // ours on top, full
        (sc(Lightweight, F::None, "X0", false), [s, s]), // ours deeper
        (sc(Lightweight, F::None, "XX0", false), [s, s]), // ours deeper, recursive
        (sc(Lightweight, F::None, "", true), [s, s]),   // inflated, ours
        (sc(Lightweight, F::FastLocked, "", false), [s, s]), // another thread's fast-lock
        (sc(Lightweight, F::FastLocked, "0", false), [s, s]),
        (sc(Lightweight, F::Inflated, "", false), [s, s]), // another thread's monitor
        (sc(Lightweight, F::Legacy, "", false), [s, s]),   // a legacy record's word
        (sc(Lightweight, F::Legacy, "0", false), [s, s]),
        (sc(Monitor, F::None, "", false), [s, s]), // monitor-only thread
        (sc(Monitor, F::None, "X", false), [s, s]),
        (sc(Legacy, F::None, "", false), [s, s]), // legacy thread
        (sc(Legacy, F::None, "X", false), [s, s]),
    ]
}

/// Every scenario through `h` (template, then the slow path if it reached
/// `slow`) and through Rust on a twin; outcome, header and lock-stack must
/// match, and the label the table expects. Returns the cases checked.
pub fn differential(op: Op, h: &dyn Run, what: &str) -> usize {
    let _alone_from_the_deflater = beside_each_other();
    let mut checked = 0;
    for (sc, expect) in scenarios() {
        let want = expect[(op == Op::Exit) as usize];
        let (reached, t_ok, t_out) = run_world(sc, op, Some(h));
        let (_, r_ok, r_out) = run_world(sc, op, None);
        assert_eq!(reached, want, "{sc:?} {op:?} with {what}: label");
        assert_eq!(
            (t_ok, &t_out),
            (r_ok, &r_out),
            "{sc:?} {op:?} with {what}: template+slow vs Rust"
        );
        checked += 1;
    }
    checked
}

/// [`differential`] of both operations for every register assignment,
/// each through the harness `build` makes; prints and returns the cases.
pub fn differential_every<R: Copy + std::fmt::Debug, H: Run>(
    arch: &str,
    assignments: &[R],
    build: impl Fn(Op, R) -> H,
) -> usize {
    let mut checked = 0;
    for &regs in assignments {
        for op in [Op::Enter, Op::Exit] {
            checked += differential(op, &build(op, regs), &format!("{regs:?}"));
        }
    }
    println!("{arch}differential: {checked} (registers, operation, state) cases, each against a Rust twin");
    checked
}

/// [`differential_guessed`] for every [`Guess`], each through the exit
/// `guessed(guess)` makes (no stub): the right guesses reach the table's
/// labels, each wrong one sends some fast exit to `slow`. Returns the
/// cases checked and the fast exits the wrong guesses sent to `slow`.
pub fn every_guess<H: Run>(what: &str, guessed: impl Fn(Guess) -> H) -> (usize, usize) {
    let (mut checked, mut to_slow) = (0, 0);
    for kind in [
        Guess::Loaded,
        Guess::LoadedInflated,
        Guess::Zero,
        Guess::Ones,
        Guess::Other,
    ] {
        let right = matches!(kind, Guess::Loaded | Guess::LoadedInflated);
        let (c, s) = differential_guessed(&guessed(kind), &format!("{what}, guess {kind:?}"), right);
        if matches!(kind, Guess::Ones | Guess::Other) {
            assert!(s > 0, "{what}: a wrong guess ({kind:?}) never failed the CAS");
        }
        checked += c;
        to_slow += s;
    }
    (checked, to_slow)
}

/// [`every_guess`] for every register assignment and every guess
/// register `guess_regs` names for it, through the exit `guessed(regs,
/// guess)` makes; then [`mixed`] with `enter(regs)` and the right guess in
/// the first guess register of the first assignment (`guessed_with_stub`).
pub fn guessed_every<R: Copy + std::fmt::Debug, H: Run>(
    arch: &str,
    assignments: &[R],
    guess_regs: impl Fn(R) -> [Reg; 3],
    guessed: impl Fn(R, bool, (Reg, Guess)) -> H,
    enter: impl Fn(R) -> H,
) {
    let (mut checked, mut to_slow) = (0, 0);
    for &regs in assignments {
        for w in guess_regs(regs) {
            let (c, s) = every_guess(&format!("{regs:?}, in {w:?}"), |kind| {
                guessed(regs, false, (w, kind))
            });
            checked += c;
            to_slow += s;
        }
    }
    println!("{arch}guessed exit: {checked} (registers, guess, state) cases against the Rust exit; {to_slow} wrong guesses sent a fast exit to slow, none changed anything");
    // The mixed pairs with the right guess kept in the mark register.
    let regs = assignments[0];
    mixed(
        &enter(regs),
        &guessed(regs, true, (guess_regs(regs)[0], Guess::Loaded)),
    );
}

/// [`differential`] for an exit whose expected word is a guess: the
/// outcome (template, then the slow path if it went there) must equal the
/// Rust twin's in every scenario, and the label the table's, except that a
/// wrong guess (`exact` false) may send a fast exit to `slow`.
pub fn differential_guessed(h: &dyn Run, what: &str, exact: bool) -> (usize, usize) {
    let _alone_from_the_deflater = beside_each_other();
    let (mut checked, mut to_slow) = (0, 0);
    for (sc, expect) in scenarios() {
        let want = expect[1];
        let (reached, t_ok, t_out) = run_world(sc, Op::Exit, Some(h));
        let (_, r_ok, r_out) = run_world(sc, Op::Exit, None);
        if reached != want {
            assert!(
                !exact && want == Some(false) && reached == Some(true),
                "{sc:?} exit with {what}: label {reached:?}, the table's {want:?}"
            );
            to_slow += 1;
        }
        assert_eq!(
            (t_ok, &t_out),
            (r_ok, &r_out),
            "{sc:?} exit with {what}: template+slow vs Rust"
        );
        checked += 1;
    }
    (checked, to_slow)
}

// ---------------------------------------------------------------------
// Mixed: template and Rust paths on the same objects.

pub fn depth_of(h: &Header) -> usize {
    let a = h as *const Header as usize;
    lock_stack().1.iter().filter(|&&e| e == a).count()
}

/// Template enter with Rust exit and the reverse, recursively interleaved,
/// and through the stubs; `enter`/`exit` are harnesses with stubs.
pub fn mixed(enter: &dyn Run, exit: &dyn Run) {
    let _alone_from_the_deflater = beside_each_other();
    std::thread::scope(|s| {
        s.spawn(move || {
            let me = fthread::current();
            sync::set_current_thread_locking_mode(LockingMode::Lightweight).unwrap();
            let x = Box::pin(Header::new());
            let unlocked = x.raw();
            sync::enter_on(me, pin(&x)); // registers the thread
            sync::exit_on(me, pin(&x)).unwrap();
            // Template enter, Rust exit; Rust enter, template exit.
            assert_eq!(enter.run(&x), 0);
            assert_eq!((x.lock_state(), depth_of(&x)), (LockState::FastLocked, 1));
            sync::exit_on(me, pin(&x)).unwrap();
            assert_eq!((x.raw(), depth_of(&x)), (unlocked, 0));
            sync::enter_on(me, pin(&x));
            assert_eq!(exit.run(&x), 0);
            assert_eq!((x.raw(), depth_of(&x)), (unlocked, 0));
            // Recursive, interleaved: T R T enter, then R T R exit.
            assert_eq!(enter.run(&x), 0);
            sync::enter_on(me, pin(&x));
            assert_eq!(enter.run(&x), 0);
            assert_eq!(depth_of(&x), 3);
            sync::exit_on(me, pin(&x)).unwrap();
            assert_eq!(exit.run(&x), 0);
            assert_eq!((x.lock_state(), depth_of(&x)), (LockState::FastLocked, 1));
            sync::exit_on(me, pin(&x)).unwrap();
            assert_eq!((x.raw(), depth_of(&x)), (unlocked, 0));
            // Through the stub: X held below the top is inflated by the slow
            // enter; the template exits reach the stub too, until X is released.
            let a = Box::pin(Header::new());
            assert_eq!(enter.run(&x), 0);
            assert_eq!(enter.run(&a), 0);
            assert_eq!(enter.run(&x), 1, "X below the top: the stub's slow enter");
            assert_eq!(x.lock_state(), LockState::Inflated);
            assert_eq!(exit.run(&x), 1, "inflated: the stub's slow exit");
            assert_eq!(exit.run(&a), 0);
            assert_eq!(exit.run(&x), 1);
            assert!(!sync::holds_lock(&x) && !sync::holds_lock(&a));
            // An exit of an object not held: the slow exit reports the error.
            assert_eq!(exit.run(&a), 2);
            assert_eq!(lock_stack().1, Vec::<usize>::new());
        })
        .join()
        .unwrap()
    });
}

// ---------------------------------------------------------------------
// Stress: threads alternating template and Rust paths on shared objects.

pub struct Counted {
    header: Pin<Box<Header>>,
    /// Incremented only under the lock, by a non-atomic read-modify-write
    /// (relaxed load, then store): a lost update shows a broken lock.
    count: AtomicU64,
}

/// Threads alternating template and Rust enter/exit at random depths on
/// two shared objects for about `ms` milliseconds (`FASTPATH_STRESS_MS`
/// overrides), while a deflater thread
/// deflates idle monitors every millisecond: no lost update (the counters
/// equal the critical sections), nothing left held. Returns (critical
/// sections, template slow paths, monitors deflated).
pub fn stress(enter: &dyn Run, exit: &dyn Run, ms: u64) -> (u64, u64, usize) {
    let _alone = DEFLATION.write().unwrap_or_else(|e| e.into_inner());
    const THREADS: usize = 3;
    let ms = std::env::var("FASTPATH_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ms);
    let objs: Vec<Counted> = (0..2)
        .map(|_| Counted {
            header: Box::pin(Header::new()),
            count: AtomicU64::new(0),
        })
        .collect();
    let deadline = Instant::now() + Duration::from_millis(ms);
    // The deflater may not have run by the deadline on a slow machine
    // (emulation, a loaded CI): the workers go on until it has deflated,
    // up to a cap that only a deflater that never runs reaches (the test
    // then fails on the deflation count).
    let hard_deadline = Instant::now() + Duration::from_millis(ms) + Duration::from_secs(300);
    let stop = AtomicBool::new(false);
    let deflated = AtomicU64::new(0);
    let (ops, slow) = std::thread::scope(|s| {
        let deflater = {
            let (stop, deflated) = (&stop, &deflated);
            s.spawn(move || {
                // Relaxed: a stop flag with no data behind it.
                while !stop.load(Ordering::Relaxed) {
                    let r = sync::deflate_idle_monitors();
                    // Relaxed: a counter read after the join.
                    deflated.fetch_add(r.deflated as u64, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
        };
        let hs: Vec<_> = (0..THREADS)
            .map(|t| {
                let (objs, stop, deflated) = (&objs, &stop, &deflated);
                s.spawn(move || {
                    let me = fthread::current();
                    let (mut ops, mut slow, mut rng) = (0u64, 0u64, 0x9e37_79b9_7f4a_7c15u64 ^ t as u64);
                    // Relaxed: a stop flag with no data behind it.
                    while !stop.load(Ordering::Relaxed) {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        let o = &objs[(rng & 1) as usize];
                        let depth = 1 + (rng >> 1) as usize % 2;
                        for d in 0..depth {
                            if rng >> (8 + d) & 1 == 0 {
                                slow += enter.run(&o.header);
                            } else {
                                sync::enter_on(me, pin(&o.header));
                            }
                        }
                        // Relaxed: the lock orders these; a lost update is the failure looked for.
                        let v = o.count.load(Ordering::Relaxed);
                        o.count.store(v + 1, Ordering::Relaxed);
                        for d in 0..depth {
                            if rng >> (12 + d) & 1 == 0 {
                                let r = exit.run(&o.header);
                                assert_ne!(r, 2, "exit of a held object failed");
                                slow += r;
                            } else {
                                sync::exit_on(me, pin(&o.header)).unwrap();
                            }
                        }
                        ops += 1;
                        if t == 0 && ops % 256 == 0 {
                            let now = Instant::now();
                            // Relaxed: a progress counter; only a stop condition.
                            let done = now > deadline && deflated.load(Ordering::Relaxed) > 0;
                            if done || now > hard_deadline {
                                // Relaxed: a stop flag; the joins order the results.
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    (ops, slow)
                })
            })
            .collect();
        let r = hs
            .into_iter()
            .map(|h| h.join().unwrap())
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        deflater.join().unwrap();
        r
    });
    let counted: u64 = objs.iter().map(|o| o.count.load(Ordering::Relaxed)).sum();
    // Relaxed: read after the deflater's join.
    let deflated = deflated.load(Ordering::Relaxed) as usize;
    println!(
        "stress: 3 threads, {ops} critical sections ({slow} template slow paths), {counted} counted, \
         {deflated} monitors deflated meanwhile"
    );
    assert_eq!(counted, ops, "lost updates");
    assert!(ops > 0);
    assert!(deflated > 0, "the deflater ran during the stress");
    for o in &objs {
        assert!(!sync::holds_lock(&o.header));
    }
    (ops, slow, deflated)
}

//! The inlining policy: which calls of a compiled method are inlined,
//! decided before the method is translated, from the call-site profile.
//!
//! Where it sits: `translate.rs` asks [`plan`] once per translation of a
//! method at the inlining tier (its entry or an on-stack-replacement
//! entry) and inlines a call only where the plan accepts it
//! (`Translator::inline_candidate`, `guarded_of`); the plan reads each
//! method's call-site counts and interpreted invocations
//! (`interp/profile.rs`, `MethodJit::invocations`), and the targets of
//! virtual and interface calls as the translator finds them
//! (class-hierarchy analysis, `cha.rs`, else the receiver-type profile).
//!
//! The rules are HotSpot C2's (`InlineTree::should_inline`,
//! `should_not_inline`, `try_to_inline`, `opto/bytecodeInfo.cpp`):
//!
//! - A call site's frequency is its count over its method's interpreted
//!   invocations (per run of that method, `freq`); a site in an inlined
//!   callee runs the product of the frequencies on its way per run of the
//!   compiled method (C2's `site_invoke_ratio`,
//!   `InlineTree::compute_callee_frequency`).
//! - Below [`MIN_FREQ_RATIO`] (C2's `MinInlineFrequencyRatio`) a site is
//!   cold: it stays a call ("low call site frequency"), unless its callee
//!   is trivial, at most [`MAX_TRIVIAL_BYTES`] (`MaxTrivialSize`: a
//!   getter's body is smaller than the call). A site that never ran while
//!   its method was profiled is different here: C2 compiles its path as
//!   an uncommon trap and recompiles when the path runs after all, a JIT
//!   without deoptimisation keeps the code it made, and a profile taken in
//!   a program's first phase misses its later ones. Such a site takes a
//!   callee up to [`MAX_INLINE_BYTES`], [`MAX_INLINE_DEPTH`] deep, with
//!   the budget the sites that ran left (its frequency, 0, queues it
//!   last). LruCache's `afterNodeInsertion` ran 819 times interpreted
//!   while the cache was filling, never evicting, so `HashMap.putVal`
//!   left its `hash(key)` of every eviction a call: Callgrind per
//!   iteration LruCache 151.2 -> 148.1 M, GcLruCache 88.8 -> 86.9,
//!   DeltaBlue 400.1 -> 397.2, Richards 357.5 -> 354.7, Json and
//!   GcListChurn unchanged, GcStrings 514.8 -> 516.1.
//! - At or above [`HOT_FREQ_RATIO`] (`InlineFrequencyRatio`) it is hot:
//!   a callee up to [`HOT_INLINE_BYTES`] (`FreqInlineSize`), nested up to
//!   [`MAX_HOT_INLINE_DEPTH`] inlined frames (`MaxInlineLevel`).
//! - A hot site that runs at least [`LOOP_FREQ`] times per run of the
//!   compiled method (a loop's body) takes a callee up to
//!   [`FREQ_INLINE_BYTES`], C2's `FreqInlineSize` itself. Such a callee
//!   brings its own tree: once accepted it raises the budget by
//!   [`BIG_CALLEE_ALLOWANCE`] times its bytes, depths below it count from
//!   it, and its own compiled code's size does not keep it a call
//!   ([`INLINE_SMALL_CODE`]), so it inlines what its own compilation
//!   would, and the call it was, whose price grows with the frames the
//!   caller writes and reloads, is gone. A call site in such a callee
//!   that never ran while profiled but whose target has compiled code
//!   since is no cold site but one of a later phase, and is hot too
//!   (its frequency, 0, queues it last). LruCache's loop inlines
//!   `HashMap.put`'s `putVal` (300 bytes) and, under its
//!   `afterNodeInsertion`, the eviction's `removeNode` (291 bytes, never
//!   run while the cache filled). Callgrind per iteration (M, the
//!   8-iteration run less the 2-iteration run, over 6): LruCache 144.1
//!   -> 133.2, CD 192.2 -> 160.8 (its `collidesWith`, 183 bytes, and
//!   `Aircraft.step`, 161), GcStrings 479.4 -> 454.5 (`parseInt`, 176),
//!   DeltaBlue, Richards, Json, Towers, Havlak, Permute, Queens within
//!   0.1 %; GcLruCache loses, 84.3 -> 88.5: with `putVal` inlined, its
//!   loop's `new Value(k)`, whose fill loop is inlined in the same
//!   function, reloads `k` from a spill slot for every element (register
//!   pressure in a bigger function, which no byte count foresees). The
//!   alternatives: the size at every hot site, frequent or not, put
//!   `putVal` into `put`'s own compilation, whose code then passed
//!   [`INLINE_SMALL_CODE`] and stayed a call in LruCache's loop (144.0),
//!   and Json's parser inlined its recursion and `parseNumber` (318),
//!   compiled late: 60.7 -> 81.5 (one run per run: 68.8); an allowance
//!   of 1 or 2 times the callee left its own callees calls (LruCache
//!   169.1, 143.6; 2.5 and 6 times: 133.2, 132.9); depths from the
//!   compiled method left `putVal`'s `afterNodeAccess` calls (154.6); no
//!   later-phase rule left `removeNode` a call (139.4, GcLruCache 92.6);
//!   the code-size rule waived at every frequent site, not only for the
//!   big callee, inlined DeltaBlue's compiled planners whole (390.3 ->
//!   595.7).
//!   A big callee whose loops ran [`MAX_BIG_CALLEE_TRIPS`] times per
//!   run while profiled stays a call: NBody's `advance` (319 bytes, 20
//!   back edges a run) inlined in its driver's loop, where the driver's
//!   values stayed live around its loops, took NBody from 106.1 to
//!   111.6.
//! - In between, warm: up to [`MAX_INLINE_BYTES`] (`MaxInlineSize`),
//!   [`MAX_INLINE_DEPTH`] deep; a leaf (`is_leaf`: no calls but on paths
//!   that only throw, intrinsics and trivial callees) up to
//!   [`HOT_INLINE_BYTES`]. C2 has no such rule; its calls cost a few
//!   instructions, where a call here writes the caller's frames and
//!   reloads its references, and the callee checks both stacks and writes
//!   its own frame: LruCache's `LinkedHashMap.moveToEnd` (104 bytes, run
//!   by one `get` in eight while the profile was taken, one in three
//!   later) was that price on every reordering `get`. Callgrind per
//!   iteration: LruCache 161.1 -> 151.2 M; GcLruCache, DeltaBlue, Json,
//!   Richards, GcStrings, GcListChurn within 0.1 %. That leaf keeps the
//!   warm depth. Deeper, up to [`MAX_HOT_INLINE_DEPTH`], only a leaf up
//!   to [`MAX_INLINE_BYTES`] that does not allocate (`allocates`): every
//!   small leaf there took rarely run ones (a `StringBuilder`'s `grow`,
//!   whose allocation is a TLAB bump, zeroing and a runtime call's block)
//!   into callees whose compiled code then passed [`INLINE_SMALL_CODE`],
//!   and Json lost 2 %. One that does not allocate is LruCache's
//!   `Integer.equals`, three deep under `get` and `getNode`, run by one
//!   `get` in seventy while profiled and one in seven later. Callgrind
//!   per iteration: LruCache 147.8 -> 145.2 M, GcStrings 516.1 -> 515.2,
//!   Json 62.3 -> 62.5, GcLruCache, DeltaBlue, Richards within 0.05 %.
//! - A callee whose own compiled code is bigger than
//!   [`INLINE_SMALL_CODE`] (`InlineSmallCode`) stays a call, at a warm
//!   site one bigger than a quarter of it: it inlined a tree of its own,
//!   which every caller would translate and compile again.
//! - A string concatenation's spun method (`link/indy/concat.rs`) stays
//!   a call, compiled on its own: its many small `StringConcatHelper`
//!   calls, inlined there under its own budget, would otherwise spend the
//!   caller's (the JDK marks them `@ForceInline`, which C2's budget of
//!   8000 bytes absorbs). GcStrings' loop, whose `"name-" + id` took 78
//!   bytes of its budget and left its helpers, `parseInt`s and the
//!   `String` constructors calls: Callgrind per iteration 595.2 M inlined
//!   against 556.9 M not.
//! - A site's low count is a measurement only when its method ran often
//!   enough to tell (`1 / MIN_FREQ_RATIO` runs, C2's `min_freq` is bounded
//!   by `1 / CompilationPolicy::min_invocations()` the same way): a method
//!   compiled for its loops in its first runs has code that never ran
//!   interpreted, and a call there is not cold but unknown (C2 treats an
//!   immature profile as reached, `InlineTree::is_not_reached`).
//!
//! - The budget ([`INLINE_BUDGET_BYTES`]) is spent by a callee's bytes
//!   outside its throw-only instructions (`cold.rs`): a check's `throw
//!   new IllegalStateException("..." + x)` is compiled, but on a cold path
//!   whose calls stay calls, and it runs once if ever, so it takes no
//!   room from the calls on the way to the return. The size limits
//!   ([`MAX_INLINE_BYTES`] and the others) still count every byte. Towers'
//!   `push` (56 bytes, 21 of them its throw) and `pop` (42, 14) fit under
//!   its recursion's third inlined `move` with it. Callgrind per
//!   iteration (passive, `-Xbatch`, the 4-iteration run less the
//!   2-iteration run, halved, M instructions): Towers 417.5 -> 362.0
//!   (-13.3 %), Havlak 175.8 -> 171.9, GcStrings 341.6 -> 334.0, CD 141.6
//!   -> 138.9, DeltaBlue 340.2 -> 335.9, GcTrees -0.5 %, LruCache -0.2 %,
//!   GcLruCache +0.4 %, Json +0.2 %, the other ten within 0.03 %; the
//!   compiled bytes 0.4-2.5 % more, the compile times within their noise.
//!
//! Where it differs: C2 decides in bytecode order under a cap of 8000
//! bytecode bytes per compilation (`DesiredMethodLimit`); Cranelift's
//! compile time grows with the code inlined, and the cap here,
//! [`INLINE_BUDGET_BYTES`], is smaller, so it is spent hottest first:
//! the candidates wait in a priority queue by frequency, and a callee's
//! own calls become candidates once the callee is accepted (a call is
//! inlined only inside an inlined caller). A deep chain of warm calls
//! then cannot spend the budget before a hot loop's call is reached. At
//! equal frequency (a loop body's straight-line calls) the smaller callee
//! goes first: every inlined call saves one call, whatever its size, so a
//! budget spent smallest first removes the most calls (GcStrings' loop
//! had its `String` constructors, `length()` and range checks left calls
//! behind two `parseInt`s: Callgrind per iteration 613.9 M against 577.4
//! M, DeltaBlue 447.1 against 438.3, the others within 0.2 %).
//!
//! Without a profile (`-Xcomp`, whose methods compile before the
//! interpreter runs them; C2 uses no counts without `UseInterpreter`),
//! and at an unknown site, a call is warm in depth, a call in a loop (or
//! the compiled method's recursive call) first: [`LOOP_GUESS`] runs per
//! run, one elsewhere; a callee compiled on its own (hot) up to
//! [`HOT_INLINE_BYTES`], another up to [`MAX_INLINE_BYTES`].
//!
//! The thresholds, measured with Callgrind per iteration (`-Xbatch`, the
//! 4-iteration run less the 2-iteration run, halved, M instructions;
//! `docs/benchmarks-log-2026.md`, 30 Nov): C2's two ratios as they are;
//! a budget of 480 bytes against 360 (Json 75.0 against 77.3, LruCache
//! 165.8 against 169.4) and 720 (Havlak 203.0 against 224.2; Towers
//! loses, 476.5 against 419.0: its recursion's third pair of inner calls
//! no longer fits); hot sites 5 deep against 3 (LruCache 165.8 against
//! 177.8); `INLINE_SMALL_CODE` 8000 against none (DeltaBlue 461 against
//! 583: its constructors inlined the constraint solver's compiled
//! methods whole), the maturity rule against none (DeltaBlue's tests,
//! compiled for their first loop, left their later loops' calls as cold
//! ones).

use std::collections::{BinaryHeap, HashSet};
use std::sync::atomic::Ordering;

use super::ops::{Dispatch, Op};
use super::translate::{
    in_loops, is_intrinsic, statically_bound, MAX_GUARDED_RECEIVERS, MAX_GUARDED_TARGETS,
    MAX_RECURSIVE_INLINE_LEVEL,
};
use super::CompileEnv;
use crate::interp::profile::Seen;
use crate::interp::Decoded;
use crate::link::Method;

/// The largest callee inlined at a warm call site, in bytecode bytes
/// (HotSpot's `MaxInlineSize` is 35; a callee's cold paths, a message's
/// concatenation, count in its size).
pub const MAX_INLINE_BYTES: usize = 60;

/// The largest callee inlined at a hot call site, in bytecode bytes
/// (HotSpot's `FreqInlineSize` is 325), but for one in a loop
/// ([`FREQ_INLINE_BYTES`]).
pub const HOT_INLINE_BYTES: usize = 160;

/// The largest callee inlined at a hot call site in a loop, one that
/// runs at least [`LOOP_FREQ`] times per run of the compiled method, in
/// bytecode bytes (HotSpot's `FreqInlineSize`).
pub const FREQ_INLINE_BYTES: usize = 325;

/// Runs per run of the compiled method from which a hot call site takes
/// a callee up to [`FREQ_INLINE_BYTES`]: a loop's body.
pub const LOOP_FREQ: f64 = 8.0;

/// A callee bigger than [`HOT_INLINE_BYTES`], once accepted, raises the
/// compilation's budget by this many times its bytes: for itself and the
/// callees its own compilation would inline.
pub const BIG_CALLEE_ALLOWANCE: usize = 3;

/// Loop iterations (back edges) per run, while profiled, from which a
/// callee bigger than [`HOT_INLINE_BYTES`] stays a call: a call is a
/// small part of such a run, and inlined, its loops run with the
/// caller's live values around them (NBody's `advance`, 20; GcStrings'
/// `Integer.parseInt`, 8, whose inlining pays).
pub const MAX_BIG_CALLEE_TRIPS: u32 = 16;

/// A callee this small is inlined at any call site, cold or not
/// (HotSpot's `MaxTrivialSize`).
pub const MAX_TRIVIAL_BYTES: usize = 6;

/// Runs per run of its method at and above which a call site is hot
/// (HotSpot's `InlineFrequencyRatio`).
pub const HOT_FREQ_RATIO: f64 = 0.25;

/// Runs per run of its method below which a call site is cold, left a
/// call (HotSpot's `MinInlineFrequencyRatio`).
pub const MIN_FREQ_RATIO: f64 = 0.0085;

/// How many inlined frames nest at a warm call site.
pub const MAX_INLINE_DEPTH: usize = 2;

/// How many inlined frames nest at a hot call site.
pub const MAX_HOT_INLINE_DEPTH: usize = 5;

/// The bytecode bytes inlined into one compiled method, at most, plus
/// the allowances of its callees bigger than [`HOT_INLINE_BYTES`]
/// ([`BIG_CALLEE_ALLOWANCE`]). A callee spends only its bytes outside
/// the instructions from which it can only throw (`hot_bytes`).
pub const INLINE_BUDGET_BYTES: usize = 480;

/// The machine code bytes of a callee's own compiled entry past which it
/// is not inlined (HotSpot's `InlineSmallCode`, 2500 on x86-64 with
/// tiers: "already compiled into a big method"), and a quarter of which a
/// warm call site's callee may have ("already compiled into a medium
/// method"). A method compiled big inlined a tree of callees of its own,
/// which inlining it would translate and compile again in every caller.
pub const INLINE_SMALL_CODE: usize = 8000;

/// Without a profile: the runs of a call in a loop per run of its method.
pub const LOOP_GUESS: f64 = 2.0;

/// One step of the way from the compiled method to an inlined callee:
/// the call's instruction in its method and the method inlined there.
pub type Step = (u32, usize);

/// The calls a compiled method inlines, each by its way from the
/// compiled method (the steps of its callers, then its own).
#[derive(Debug, Default)]
pub struct Plan {
    accepted: HashSet<Vec<Step>>,
    /// Bytecode bytes accepted.
    pub bytes: usize,
    /// Call sites of the compiled method and its inlined callees left
    /// calls for being cold (each target counted).
    pub cold: usize,
}

impl Plan {
    /// Whether the call at `path`'s last step inlines its method there.
    pub fn allows(&self, path: &[Step]) -> bool {
        self.accepted.contains(path)
    }

    /// Whether the call at instruction `idx` of the method `prefix` leads
    /// to inlines any target.
    pub fn any_at(&self, prefix: &[Step], idx: u32) -> bool {
        self.accepted
            .iter()
            .any(|p| p.len() == prefix.len() + 1 && p.starts_with(prefix) && p[prefix.len()].0 == idx)
    }
}

/// The one step of `path` for the call at `idx` inlining `m`.
pub fn step(idx: usize, m: &'static Method) -> Step {
    (idx as u32, m as *const Method as usize)
}

/// A call's target waiting to be accepted.
struct Candidate {
    /// Runs per run of the compiled method.
    freq: f64,
    /// The callee's bytecode bytes: at equal frequency the smaller goes
    /// first (each inlined call saves one call's cost, whatever its
    /// size, so the budget buys the most calls smallest first).
    bytes: usize,
    /// Order of discovery (bytecode order within a method): remaining
    /// ties go to the earlier.
    seq: usize,
    path: Vec<Step>,
    /// The length of the way to the innermost callee bigger than
    /// [`HOT_INLINE_BYTES`] on it (0: none), from which depths count.
    base: usize,
    /// The methods on the way, the compiled method first, then `m`.
    chain: Vec<&'static Method>,
    m: &'static Method,
}

impl PartialEq for Candidate {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Candidate {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.freq
            .total_cmp(&o.freq)
            .then(o.bytes.cmp(&self.bytes))
            .then(o.seq.cmp(&self.seq))
    }
}

/// What the profile says of a site: runs per run of its method, and
/// whether that is a measurement (`false`: a guess without a profile).
#[derive(Clone, Copy)]
struct Ratio {
    freq: f64,
    measured: bool,
}

/// The plan for compiling `m` (decoded as `d`, its ops `ops`).
pub fn plan(env: &CompileEnv, m: &'static Method, d: &'static Decoded, ops: &[Op]) -> Plan {
    let mut p = Plan::default();
    let mut queue = BinaryHeap::new();
    let mut seq = 0;
    let mut budget = INLINE_BUDGET_BYTES;
    let cold = super::cold::throw_only(ops, &d.switches);
    candidates(
        env,
        &mut p,
        &mut queue,
        &mut seq,
        &[],
        &[m],
        1.0,
        m,
        d,
        ops,
        &cold,
        0,
    );
    while let Some(c) = queue.pop() {
        let bytes = c.m.code.as_ref().map_or(usize::MAX, |c| c.code.len());
        let big = bytes > HOT_INLINE_BYTES;
        let allowance = if big { BIG_CALLEE_ALLOWANCE * bytes } else { 0 };
        let Some((cd, cops)) = body(c.m) else {
            continue;
        };
        let cold = super::cold::throw_only(&cops, &cd.switches);
        let spent = hot_bytes(c.m, cd, &cold);
        if p.bytes + spent > budget + allowance {
            continue;
        }
        budget += allowance;
        p.bytes += spent;
        p.accepted.insert(c.path.clone());
        let base = if big { c.path.len() } else { c.base };
        candidates(
            env, &mut p, &mut queue, &mut seq, &c.path, &c.chain, c.freq, c.m, cd, &cops, &cold, base,
        );
    }
    p
}

/// Queues the targets of the calls in `m` (at `path`, `freq` runs per
/// run of the compiled method) that its frequency and size rules admit;
/// depths count from `path`'s first `base` steps (the innermost callee
/// bigger than [`HOT_INLINE_BYTES`], which inlines its own callees as its
/// own compilation would).
#[allow(clippy::too_many_arguments)]
fn candidates(
    env: &CompileEnv,
    p: &mut Plan,
    queue: &mut BinaryHeap<Candidate>,
    seq: &mut usize,
    path: &[Step],
    chain: &[&'static Method],
    freq: f64,
    m: &'static Method,
    d: &'static Decoded,
    ops: &[Op],
    cold: &[bool],
    base: usize,
) {
    if !ops.iter().any(|op| matches!(op, Op::Invoke(..))) {
        return;
    }
    let in_loop = in_loops(ops);
    let profiled = env.use_profile && has_profile(m, d);
    // Relaxed: a heuristic count.
    let runs = f64::from(m.jit.invocations.load(Ordering::Relaxed).max(1));
    let root = chain[0];
    let depth = path.len() + 1 - base;
    for (idx, op) in ops.iter().enumerate() {
        let Op::Invoke(dispatch, callee) = *op else {
            continue;
        };
        if cold[idx] || is_intrinsic(dispatch, callee) {
            continue;
        }
        let measured = f64::from(d.calls.count_at(idx)) / runs;
        // Too few runs to tell a rare call from one not reached yet (a
        // method compiled for its loops during its first runs, whose later
        // code ran compiled): a low count is no measurement.
        let mature = runs * MIN_FREQ_RATIO >= 1.0;
        let ratio = if profiled && (mature || measured >= MIN_FREQ_RATIO) {
            Ratio {
                freq: measured,
                measured: true,
            }
        } else {
            let looping = in_loop[idx] || (path.is_empty() && std::ptr::eq(callee, root));
            Ratio {
                freq: if looping { LOOP_GUESS } else { 1.0 },
                measured: false,
            }
        };
        for t in targets(env, d, idx, dispatch, callee) {
            if crate::link::indy::is_concat_class(t.class) {
                continue;
            }
            let Some(bytes) = t.code.as_ref().map(|c| c.code.len()) else {
                continue;
            };
            let trivial = bytes <= MAX_TRIVIAL_BYTES;
            // Never reached while profiled, but its target has compiled
            // code since: the site's path ran in a later phase, as hot as
            // the calls around it (LruCache's evictions).
            let stale = ratio.measured
                && d.calls.count_at(idx) == 0
                && freq >= LOOP_FREQ
                && t.jit.state.load(Ordering::Relaxed) == super::State::Compiled as u8;
            let (limit, max_depth) = if !ratio.measured {
                let limit = if std::ptr::eq(t, root) {
                    HOT_INLINE_BYTES
                } else {
                    inline_limit(t)
                };
                (limit, MAX_INLINE_DEPTH)
            } else if stale || (ratio.freq >= HOT_FREQ_RATIO && freq * ratio.freq >= LOOP_FREQ) {
                (FREQ_INLINE_BYTES, MAX_HOT_INLINE_DEPTH)
            } else if ratio.freq >= HOT_FREQ_RATIO || trivial {
                (HOT_INLINE_BYTES, MAX_HOT_INLINE_DEPTH)
            } else if ratio.freq >= MIN_FREQ_RATIO {
                if bytes <= HOT_INLINE_BYTES && bytes > MAX_INLINE_BYTES && is_leaf(t) {
                    (HOT_INLINE_BYTES, MAX_INLINE_DEPTH)
                } else if depth > MAX_INLINE_DEPTH && is_leaf(t) && !allocates(t) {
                    (MAX_INLINE_BYTES, MAX_HOT_INLINE_DEPTH)
                } else {
                    (MAX_INLINE_BYTES, MAX_INLINE_DEPTH)
                }
            } else if d.calls.count_at(idx) == 0 && bytes <= MAX_INLINE_BYTES {
                // Never reached while profiled: a small callee takes what
                // the budget has left after every site that ran (its
                // frequency, 0, queues it last).
                (MAX_INLINE_BYTES, MAX_INLINE_DEPTH)
            } else {
                p.cold += 1;
                continue;
            };
            let on_chain = chain.iter().filter(|c| std::ptr::eq(**c, t)).count();
            if bytes > HOT_INLINE_BYTES && loops_long(t) {
                continue;
            }
            if bytes > limit || depth > max_depth || on_chain > MAX_RECURSIVE_INLINE_LEVEL {
                continue;
            }
            // Relaxed: a heuristic; 0 until the callee has compiled code.
            let code = t.jit.code_len.load(Ordering::Relaxed) as usize;
            let hot = !ratio.measured || ratio.freq >= HOT_FREQ_RATIO || stale;
            // A callee bigger than HOT_INLINE_BYTES is translated with the
            // callees its own compilation inlined, under its allowance.
            let small = bytes > HOT_INLINE_BYTES
                || code <= INLINE_SMALL_CODE && (hot || trivial || code <= INLINE_SMALL_CODE / 4);
            if !small {
                continue;
            }
            let mut cpath = path.to_vec();
            cpath.push(step(idx, t));
            let mut cchain = chain.to_vec();
            cchain.push(t);
            *seq += 1;
            queue.push(Candidate {
                freq: freq * ratio.freq,
                bytes,
                seq: *seq,
                path: cpath,
                base,
                chain: cchain,
                m: t,
            });
        }
    }
}

/// Whether `m`'s loops ran at least [`MAX_BIG_CALLEE_TRIPS`] back
/// edges per run while it was profiled.
fn loops_long(m: &'static Method) -> bool {
    // Relaxed: heuristic counts.
    let runs = m.jit.invocations.load(Ordering::Relaxed).max(1);
    m.jit.backedges.load(Ordering::Relaxed) / runs >= MAX_BIG_CALLEE_TRIPS
}

/// Whether the interpreter ran `m`: counted invocations, back edges or
/// calls.
fn has_profile(m: &'static Method, d: &'static Decoded) -> bool {
    // Relaxed: heuristic counts.
    m.jit.invocations.load(Ordering::Relaxed) > 0
        || m.jit.backedges.load(Ordering::Relaxed) > 0
        || (0..d.insns.len()).any(|i| d.calls.count_at(i) > 0)
}

/// The methods a call of `m` by `dispatch` at instruction `idx` of a
/// method decoded as `d` may inline, as the translator finds them
/// (`Translator::invoke`): the one method of a statically bound call;
/// else the implementations class-hierarchy analysis finds among the
/// loaded classes, else those of the receiver classes the profile saw.
fn targets(
    env: &CompileEnv,
    d: &'static Decoded,
    idx: usize,
    dispatch: Dispatch,
    m: &'static Method,
) -> Vec<&'static Method> {
    if statically_bound(dispatch, m) {
        return vec![m];
    }
    let mut ts = match dispatch {
        Dispatch::Virtual(index) => super::cha::implementations(env.classes, m, index, MAX_GUARDED_TARGETS),
        Dispatch::Interface(index) => {
            super::cha::interface_receivers(env.classes, m, index, MAX_GUARDED_RECEIVERS)
                .map(|rs| rs.into_iter().map(|(_, t)| t).collect())
        }
        Dispatch::Static | Dispatch::Direct => None,
    }
    .unwrap_or_else(|| {
        let (first, second) = match d.calls.seen(idx) {
            Seen::Classes(a, b) => (a, b),
            _ => return Vec::new(),
        };
        std::iter::once(first)
            .chain(second)
            .filter_map(|c| match dispatch {
                Dispatch::Virtual(index) => c.vtable_method(index as usize),
                Dispatch::Interface(index) => c.itable_method(m.class, index as usize),
                Dispatch::Static | Dispatch::Direct => None,
            })
            .collect()
    });
    let mut seen = Vec::with_capacity(ts.len());
    ts.retain(|t| {
        let new = !seen.iter().any(|s| std::ptr::eq(*s, *t));
        seen.push(*t);
        new
    });
    ts
}

/// Whether `m` is a leaf for inlining: it can be inlined ([`body`]) and
/// its every call is on a path that only throws, an intrinsic, or a
/// statically bound call of a trivial method (at most
/// [`MAX_TRIVIAL_BYTES`], inlined at any site). Inlined at a warm site, a
/// leaf brings no call of its own into its caller, and removes the call's
/// whole price here: the caller's frame written and its references
/// reloaded around the call, the callee's frame and stack checks
/// (`translate.rs`), which C2's calls, whose sizes `MaxInlineSize` was
/// tuned against, do not pay.
fn is_leaf(m: &'static Method) -> bool {
    let Some((d, ops)) = body(m) else {
        return false;
    };
    let cold = super::cold::throw_only(&ops, &d.switches);
    ops.iter().enumerate().all(|(idx, op)| match *op {
        Op::Invoke(dispatch, callee) => {
            cold[idx]
                || is_intrinsic(dispatch, callee)
                || (statically_bound(dispatch, callee)
                    && callee
                        .code
                        .as_ref()
                        .is_some_and(|c| c.code.len() <= MAX_TRIVIAL_BYTES))
        }
        _ => true,
    })
}

/// Whether `m` allocates on a path that does not only throw (`new`,
/// `newarray`, `anewarray`, `multianewarray`): its inlined code holds a
/// TLAB bump, the zeroing and a runtime call's block. A method whose body
/// the translator cannot inline counts as allocating.
fn allocates(m: &'static Method) -> bool {
    body(m).is_none_or(|(d, ops)| {
        let cold = super::cold::throw_only(&ops, &d.switches);
        ops.iter()
            .zip(cold)
            .any(|(op, cold)| !cold && matches!(op, Op::New(_) | Op::NewArray(_) | Op::MultiANewArray(..)))
    })
}

/// `m`'s decoded form and ops, when the translator can inline it: it has
/// bytecode, is decoded (it ran: decoding resolves, which may load
/// classes, and a compilation runs in a safe region), not synchronized,
/// without monitor instructions.
pub(super) fn body(m: &'static Method) -> Option<(&'static Decoded, Vec<Op>)> {
    if m.is_native() || m.is_abstract() || m.is_synchronized() {
        return None;
    }
    let d = match m.decoded.get() {
        Some(Ok(d)) => d,
        _ => return None,
    };
    let ops = super::ops::ops_of(m, d).ok()?;
    if ops.is_empty()
        || ops
            .iter()
            .any(|op| matches!(op, Op::MonitorEnter | Op::MonitorExit))
    {
        return None;
    }
    Some((d, ops))
}

/// The bytecode bytes of `m` (decoded as `d`) outside the instructions
/// from which it can only throw (`cold`, `cold.rs`'s `throw_only`).
fn hot_bytes(m: &'static Method, d: &'static Decoded, cold: &[bool]) -> usize {
    let len = m.code.as_ref().map_or(0, |c| c.code.len());
    let mut bytes = 0;
    for (i, &at) in d.bcis.iter().enumerate() {
        let next = d.bcis.get(i + 1).map_or(len, |&b| b as usize);
        if !cold.get(i).copied().unwrap_or(false) {
            bytes += next.saturating_sub(at as usize);
        }
    }
    bytes
}

/// The largest `m` inlined at a call site without a profile, in bytecode
/// bytes: [`HOT_INLINE_BYTES`] once `m` has compiled code of its own (it
/// is hot), [`MAX_INLINE_BYTES`] otherwise.
fn inline_limit(m: &Method) -> usize {
    // Relaxed: a heuristic; the state only moves from interpreted to
    // compiled once, and either answer inlines correct code.
    if m.jit.state.load(Ordering::Relaxed) == super::State::Compiled as u8 {
        HOT_INLINE_BYTES
    } else {
        MAX_INLINE_BYTES
    }
}

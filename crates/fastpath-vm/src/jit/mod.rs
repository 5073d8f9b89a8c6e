//! The JIT: hot Java methods compiled by Cranelift, with fastpath's fast
//! paths inlined.
//!
//! Where it sits: beside the interpreter, which stays the semantic
//! reference. Methods start interpreted; the interpreter counts each
//! method's invocations and backward branches and, past
//! [`Jit::invoke_threshold`] or [`Jit::backedge_threshold`], asks for its
//! compilation: by default it queues the method for the compiler thread
//! and interprets on until the compiled entry is installed (`broker.rs`,
//! [`Jit::background`]), or with `FASTPATH_VM_JIT_TIERS=2` in two tiers
//! ([`Jit::tiered`]): a quick compile without inlining first, so that the
//! method leaves the interpreter within a millisecond or two of being
//! queued, then the inlined, optimised one, which replaces it; with
//! `-Xbatch` (`-XX:-BackgroundCompilation`)
//! it compiles the method itself, in a safe region (compiling reads class
//! metadata only, never the heap), and runs the compiled code at once. A
//! method the translator cannot compile stays interpreted for good.
//! `-Xint` never compiles; `-Xcomp` compiles each method on its calling
//! thread before its first run.
//!
//! On-stack replacement moves a running interpreted frame into compiled
//! code: past [`Jit::osr_threshold`] backward branches, every 1024th
//! backward branch (HotSpot's interpreter notifies its compilation policy
//! at the same rate, `Tier0BackedgeNotifyFreqLog` 10) whose target has an
//! empty operand stack asks for the method's OSR entry at that target
//! ([`Jit::compile_osr`], cached per method and instruction; a refusal is
//! remembered; queued for the compiler thread as a method is, the frame
//! interpreting on meanwhile, with the method's normal entry
//! queued behind it for the method's next call) and continues the frame there (`entry.rs`,
//! `JThread::osr_enter`); what the entry returns, a value or a pending
//! exception, is the frame's. A target with operands on the stack is
//! never an OSR entry (javac's loops have none). Monitors the frame holds
//! stay held across the entry (the tiers lock alike). `-Xint` never
//! replaces a frame, nor `-Xcomp`, where a method is compiled before its
//! first run, so an interpreted frame is one the JIT refused.
//! `FASTPATH_VM_JIT_LOG=1` prints each OSR compilation (`OSR at bci N`)
//! and the summary counts OSR compilations, refusals and entries.
//!
//! Where a program's warm-up goes: `FASTPATH_VM_JIT_TRACE=1` prints each
//! tier transition with its time since the JIT's creation (a method or
//! OSR entry queued, with its counters and the queue's length; its
//! compilation's start, with the time it waited; its installation, with
//! the time it took; each frame's move into OSR code), to be read beside
//! the program's own iteration times; the summary counts the time tasks
//! waited in the queue.
//!
//! | file | what |
//! |---|---|
//! | `ops.rs` | the instructions, typed for the JIT |
//! | `kinds.rs` | the kind of every slot at every instruction (dataflow) |
//! | `cha.rs` | class-hierarchy analysis: a virtual call's one implementation |
//! | `inlining.rs` | the inlining policy: which calls are inlined, by call-site frequency, hottest first |
//! | `dump.rs` | `FASTPATH_VM_JIT_DUMP`: a method's optimised IR and machine code |
//! | `perfmap.rs` | `FASTPATH_VM_PERF_MAP`: names of compiled code for `perf` |
//! | `translate.rs` | bytecode to Cranelift IR: SSA, safepoints, exceptions, calls |
//! | `emit.rs` | fields, arrays, allocation, monitors, type checks, dispatch |
//! | `intrinsics.rs` | library calls replaced by inline code (`System.arraycopy`, `String.hashCode`) |
//! | `math.rs` | natives that are one machine operation (`Math.sqrt`, the raw bit moves of `Double`, `Float`) |
//! | `digit.rs` | the `Character.digit` intrinsic: inline for ASCII, a leaf call otherwise |
//! | `index_of.rs` | the `String.indexOf(int, int)` intrinsic: a leaf call of a word-at-a-time scan |
//! | `facts.rs` | checks and loads already done, which the translator reuses |
//! | `loops.rs` | loop-invariant field loads before a loop's head; counted loops' polls per strip |
//! | `coarsen.rs` | lock coarsening: a loop's release deferred to its next enter |
//! | `cold.rs` | the instructions that can only lead to a throw (not inlined into) |
//! | `liveness.rs` | the locals live at each instruction: a stop stores and reloads only those |
//! | `declared.rs` | reference values' declared types: `aastore` checks they prove pass |
//! | `frame.rs` | compiled frames on the slot stack, the per-thread context |
//! | `layout.rs` | the heap object layout compiled code reads |
//! | `helpers.rs` | the runtime functions compiled code calls, as data |
//! | `runtime.rs` | their implementations |
//! | `preserve.rs` | the register-preserving stubs: the poll's stop, the lock slow paths that join a loop |
//! | `entry.rs` | calls from the interpreter and from Rust into compiled code |
//! | `broker.rs` | the compile queue and the compiler thread |
//!
//! Calls between the tiers: compiled code calls a callee's compiled entry
//! (`MethodJit::entry`, non-zero once installed) with the arguments in
//! registers, or the `Invoke` helper when it has none; the interpreter
//! and Rust call compiled code through an adapter per signature shape
//! (`entry.rs`), which loads the arguments from the slots where the
//! interpreter keeps them and sets the context register.

pub mod bounded;
pub mod broker;
pub mod cha;
pub mod coarsen;
pub mod cold;
pub mod declared;
pub mod digit;
pub mod dump;
pub mod emit;
pub mod entry;
pub mod facts;
pub mod fill;
pub mod frame;
pub mod get_chars;
pub mod helpers;
pub mod index_of;
pub mod inlining;
pub mod intrinsics;
pub mod kinds;
pub mod layout;
pub mod liveness;
pub mod loop_vars;
pub mod loops;
pub mod math;
pub mod ops;
pub mod perfmap;
pub mod predict;
pub mod preserve;
pub mod promote;
pub mod ranges;
pub mod runtime;
pub mod string_equals;
pub mod translate;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use cranelift_codegen::isa::{CallConv, OwnedTargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use fastpath::code::{CodeCache, Entry};
use fastpath::gc::{BarrierBits, BarrierSet};
use fastpath_jit::slow::LibraryPath;
use fastpath_jit::{CsetMap, LockStackLayout, SatbQueueLayout, ThreadLayout};

use crate::interp::Decoded;
use crate::link::Method;
use helpers::{Helper, HelperTable};
use layout::VecLayout;

/// Which tiers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `-Xint`: the interpreter only.
    Int,
    /// The default: interpreted first, compiled when hot.
    Mixed,
    /// `-Xcomp`: every method compiled before its first run.
    Comp,
}

impl Mode {
    /// The mode named by `FASTPATH_VM_JIT` (`int`, `mixed`, `comp`), if set.
    pub fn from_env() -> Result<Option<Mode>, String> {
        match std::env::var("FASTPATH_VM_JIT") {
            Ok(v) => match v.as_str() {
                "int" => Ok(Some(Mode::Int)),
                "mixed" => Ok(Some(Mode::Mixed)),
                "comp" => Ok(Some(Mode::Comp)),
                other => Err(format!("FASTPATH_VM_JIT={other}: expected int, mixed or comp")),
            },
            Err(_) => Ok(None),
        }
    }
}

/// A method's JIT state, in its `Method` (compiled code reads `entry`).
#[derive(Debug, Default)]
#[repr(C)]
pub struct MethodJit {
    /// The compiled code's address (0: none; calls go to the interpreter).
    pub entry: AtomicUsize,
    /// The adapter that calls `entry` from the interpreter and Rust.
    pub adapter: AtomicUsize,
    /// Interpreted invocations (racy increments: a heuristic).
    pub invocations: AtomicU32,
    /// Backward branches taken while interpreted.
    pub backedges: AtomicU32,
    /// [`State`] as a byte.
    pub state: AtomicU8,
    /// The installed entry's machine code bytes (0: none): the inlining
    /// policy does not inline a method whose own code is big
    /// (`inlining.rs`).
    pub code_len: AtomicU32,
}

impl MethodJit {
    /// `entry`'s byte offset (compiled callers load it).
    pub const ENTRY_OFFSET: usize = std::mem::offset_of!(MethodJit, entry);

    /// The compiled entry (0: none).
    #[inline(always)]
    pub fn entry(&self) -> usize {
        // Acquire: the code was installed (and published) before the
        // Release store of its address.
        self.entry.load(Ordering::Acquire)
    }
}

/// The methods a run left without a compiled entry that ran the most in
/// the interpreter, hottest first, at most `n` lines (`FASTPATH_VM_JIT_LOG`'s
/// report at exit): each with its interpreted invocations and backward
/// branches (a method whose loop moved to OSR code counts none past the
/// move), and why it has no entry (refused, being compiled, or not compiled yet: below
/// the thresholds or waiting in the queue).
/// Heat is HotSpot's tiered-policy sum, invocations plus back edges.
pub fn interpreted_report(methods: &[&'static Method], n: usize) -> Vec<String> {
    // Relaxed: statistics read at exit.
    let mut left: Vec<(&Method, u32, u32)> = methods
        .iter()
        .filter(|m| m.jit.entry() == 0)
        .map(|m| {
            (
                *m,
                m.jit.invocations.load(Ordering::Relaxed),
                m.jit.backedges.load(Ordering::Relaxed),
            )
        })
        .filter(|&(_, i, b)| i > 0 || b > 0)
        .collect();
    left.sort_by_key(|&(m, i, b)| (std::cmp::Reverse(u64::from(i) + u64::from(b)), m.name.clone()));
    left.iter()
        .take(n)
        .map(|&(m, i, b)| {
            let why = match m.jit.state.load(Ordering::Relaxed) {
                s if s == State::Failed as u8 => "refused",
                s if s == State::Compiling as u8 => "being compiled",
                _ => "not compiled yet",
            };
            format!(
                "fastpath-vm jit: no compiled entry: {}.{}{}: {i} interpreted calls, {b} interpreted back edges ({why})",
                m.class.name, m.name, m.descriptor
            )
        })
        .collect()
}

/// A method's compilation state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum State {
    /// Not compiled (yet).
    Interpreted = 0,
    /// A thread is compiling it.
    Compiling = 1,
    /// Compiled: `entry` is set.
    Compiled = 2,
    /// The JIT could not compile it: it stays interpreted.
    Failed = 3,
}

/// What the translator needs of the VM and the heap, fixed for the
/// process (built once the barrier set's type is known).
#[derive(Debug)]
pub struct CompileEnv {
    /// The runtime helpers' addresses.
    pub helpers: HelperTable,
    /// The thread block's offsets.
    pub thread: ThreadLayout,
    /// The lock-stack's.
    pub lock: LockStackLayout,
    /// The SATB queue's.
    pub satb: SatbQueueLayout,
    /// The collection-set map (and the region size, for G1's filter).
    pub cset: CsetMap,
    /// The heap's barrier set.
    pub barriers: BarrierBits,
    /// The heap's cell format (the barrier set's): whether a new object
    /// has a forwarding word, and where a copy is recorded.
    pub format: fastpath::gc::layout::CellFormat,
    /// The width of the heap's reference slots: where a reference field,
    /// an array element and the data words after them lie, and how a slot
    /// is read and written (compressed: 32 bits, `address >> 3`).
    pub refs: fastpath::gc::layout::RefWidth,
    /// Where `Class::vtable`'s pointer and length lie.
    pub vtable: VecLayout,
    /// `boolean[]`'s class (a `bastore` into it stores `& 1`).
    pub bool_array: usize,
    /// What an instance's class is beside its tagged layout word shifted
    /// by the class space's slot log2: 0
    /// when the class space sits at its preferred base
    /// (`link/class_space.rs`).
    pub class_decode_offset: i64,
    /// A new object's header.
    pub neutral: u64,
    /// The class registry (class-hierarchy analysis, `cha.rs`).
    pub classes: cha::Classes,
    /// The counter a guarded inlined call's miss increments, when the
    /// JIT logs (`None`: misses are not counted).
    pub guard_misses: Option<&'static AtomicU64>,
    /// The counter a miss of the guards inlined from a receiver-type
    /// profile increments, when the JIT logs.
    pub profile_misses: Option<&'static AtomicU64>,
    /// Whether monitors are entered and exited inline (the process runs
    /// lightweight locking); `false`: every `monitorenter` and
    /// `monitorexit` calls the runtime.
    pub inline_locks: bool,
    /// A `monitorexit` followed by local work and a `monitorenter` of the
    /// same object keeps the lock for a few rounds (`coarsen.rs`;
    /// `-XX:-EliminateLocks` turns it off, as HotSpot's C2).
    pub coarsen_locks: bool,
    /// Whether the interpreter's call-site counts guide inlining
    /// (`inlining.rs`); `false` under `-Xcomp`, whose methods compile
    /// before they run (HotSpot's C2 uses no counts without
    /// `UseInterpreter`).
    pub use_profile: bool,
}

/// What one compilation inlined (its `FASTPATH_VM_JIT_LOG` line).
#[derive(Clone, Copy, Debug)]
struct Inlining {
    /// Calls inlined.
    calls: usize,
    /// Of them, implementations inlined behind a guard.
    guarded: usize,
    /// Call targets left calls for being cold (`inlining.rs`).
    cold: usize,
}

/// Counters of the JIT's work.
#[derive(Debug, Default)]
pub struct JitStats {
    /// Methods compiled.
    pub compiled: AtomicU64,
    /// Methods the JIT refused (they stay interpreted).
    pub failed: AtomicU64,
    /// Nanoseconds spent compiling.
    pub nanos: AtomicU64,
    /// Bytes of code installed.
    pub bytes: AtomicU64,
    /// Calls inlined into the methods compiled.
    pub inlined: AtomicU64,
    /// On-stack-replacement entries compiled.
    pub osr_compiled: AtomicU64,
    /// On-stack-replacement entries the JIT refused.
    pub osr_failed: AtomicU64,
    /// Interpreted frames moved into compiled code.
    pub osr_entries: AtomicU64,
    /// Implementations of virtual and interface calls inlined behind a
    /// guard (on the receiver's vtable entry or class), one per guard.
    pub guarded: AtomicU64,
    /// Guarded inlined calls whose receiver passed none of their guards
    /// and made the ordinary call (counted
    /// only with `FASTPATH_VM_JIT_LOG=1`).
    pub guard_misses: AtomicU64,
    /// Of the guard misses, those of guards inlined from a receiver-type
    /// profile (`translate.rs`, `profiled_candidates`; counted only with
    /// `FASTPATH_VM_JIT_LOG=1`).
    pub profile_misses: AtomicU64,
    /// Compilations (methods and OSR entries) the compiler thread ran.
    pub background: AtomicU64,
    /// Queued compilations dropped at VM exit.
    pub dropped: AtomicU64,
    /// Nanoseconds the compiler thread's tasks waited in its queue.
    pub queue_nanos: AtomicU64,
    /// Calls from the interpreter and Rust into compiled code (counted
    /// only with `FASTPATH_VM_JIT_LOG=1`).
    pub compiled_calls: AtomicU64,
    /// `monitorexit`s compiled with a deferred release (`coarsen.rs`).
    pub coarsened: AtomicU64,
    /// Fields kept in variables across a coarsened lock (`promote.rs`).
    pub promoted: AtomicU64,
    /// Of the methods compiled, those compiled at the first tier
    /// ([`Jit::tiered`]).
    pub quick: AtomicU64,
    /// Methods compiled again at the second tier over their first
    /// tier's code.
    pub recompiled: AtomicU64,
}

/// Which of a method's compilations ([`Jit::tiered`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// The first: no inlining, Cranelift's `opt_level` `none`.
    Quick,
    /// The second (the only one untiered): inlining, `opt_level` `speed`.
    Full,
}

impl Tier {
    /// How the log and the trace name it after the method.
    fn label(self) -> &'static str {
        match self {
            Tier::Quick => " tier 1",
            Tier::Full => " tier 2",
        }
    }
}

/// An installed on-stack-replacement entry (`translate.rs`,
/// `prologue_osr`).
#[derive(Clone, Copy, Debug)]
pub struct OsrEntry {
    /// The code's address.
    pub entry: usize,
    /// The adapter that calls it (`entry::osr_adapter`).
    pub adapter: usize,
    /// The slot-stack bytes past the frame pointer the code's frames
    /// reach.
    pub extent: usize,
}

/// An OSR entry's state, per method and instruction.
#[derive(Clone, Copy, Debug)]
enum OsrState {
    /// A thread is compiling it.
    Compiling,
    /// Installed.
    Ready(OsrEntry),
    /// The JIT refused it: the frame stays interpreted.
    Failed,
    /// Asked for once while another entry of the method was installed:
    /// queued at the next ask ([`Jit::enqueue_osr`]).
    Asked,
}

/// What [`Jit::osr_lookup`] found.
#[derive(Clone, Copy, Debug)]
pub enum OsrLookup {
    /// The entry, installed.
    Ready(OsrEntry),
    /// Refused, or being compiled by another thread: interpret on.
    Unavailable,
    /// Never asked for: compile it.
    Missing,
}

/// The VM's JIT.
pub struct Jit {
    /// Which tiers run.
    pub mode: Mode,
    /// Interpreted invocations before a method is compiled.
    pub invoke_threshold: u32,
    /// Backward branches taken in a method's interpreted runs before its
    /// next invocation is compiled (a method called rarely whose loops are
    /// hot; the running invocation moves into compiled code by on-stack
    /// replacement, [`Jit::osr_threshold`]).
    pub backedge_threshold: u32,
    /// A method's backward branches (all its interpreted frames') past
    /// which an interpreted frame of it moves into compiled code at a
    /// loop head (`u32::MAX`: never).
    pub osr_threshold: u32,
    /// Hot methods and loops are compiled by the compiler thread while
    /// the interpreter runs on (`-XX:+BackgroundCompilation`, the default
    /// of the mixed tiers); otherwise by the thread that finds them hot,
    /// which waits (`-Xbatch`, and `-Xcomp` always).
    pub background: bool,
    /// Lock coarsening in compiled code (`coarsen.rs`;
    /// `-XX:-EliminateLocks` turns it off).
    pub eliminate_locks: bool,
    /// A method queued for the compiler thread is compiled twice: first
    /// quickly, without inlining and unoptimised, then again with
    /// inlining and optimised, by a second compiler thread with a queue of
    /// its own, which OSR entries share (HotSpot's tiers: C1 first, C2
    /// when hot, each with its threads; here the second compile is due at
    /// once, the first tier having no counters).
    /// On with `FASTPATH_VM_JIT_TIERS=2`; off by default (`1`: each
    /// method compiled once, the second way): on this project's 2-vCPU
    /// guest the second compiler thread and the first tier's compile time
    /// (Havlak's 244 M instructions beside the second's 462 M) cost the
    /// Java thread about what the first tier's code saves (warm-up to
    /// 90 % of peak, quiet: Bounce and Havlak longer, CD and Permute
    /// shorter, the rest within 2 %; BENCHMARKS.md, Tiers). Only
    /// background compilation in the mixed tiers has tiers:
    /// `-Xbatch` and `-Xcomp` compile once; an OSR entry, which a frame
    /// keeps for the rest of its loop, is compiled once, the second way.
    pub tiered: bool,
    /// The compile queue (`broker.rs`): with tiers, the first tier's.
    broker: broker::Broker<broker::Task>,
    /// With tiers, the second tier's compile queue: recompilations and
    /// OSR entries (`broker.rs`).
    broker2: broker::Broker<broker::Task>,
    isa: OwnedTargetIsa,
    /// The first tier's (`jit_isa`'s `none`).
    quick_isa: OwnedTargetIsa,
    cache: OnceLock<CodeCache>,
    env: OnceLock<CompileEnv>,
    entries: Mutex<Vec<Entry>>,
    adapters: Mutex<HashMap<String, usize>>,
    /// OSR entries by method address and instruction index.
    osr: Mutex<HashMap<(usize, u32), OsrState>>,
    /// Counters.
    pub stats: JitStats,
    /// Print each compilation (`FASTPATH_VM_JIT_LOG=1`).
    log: bool,
    /// `FASTPATH_VM_JIT_TRACE=1`: the JIT's creation, from which each
    /// traced event's time is counted.
    trace: Option<Instant>,
}

/// The code cache's size.
const CODE_CACHE_BYTES: usize = 128 << 20;

/// The instruction-set extensions Cranelift may use, by the CPU feature
/// that allows each: what `fastpath::cpu` identified at start-up, as
/// HotSpot's `VM_Version` turns CPUID into its `UseAVX`, `UseBMI1Instructions`,
/// `UsePopCountInstruction` and the rest. Without them Cranelift targets
/// the x86-64 baseline (SSE2): `popcnt`, `lzcnt`, `tzcnt` and SSE4.1's
/// `round*` become sequences (`clz` a `bsr` and a zero test), shifts need
/// `cl`, float code is two-operand. AVX-512 is left off (Cranelift uses it
/// for vector lanes this JIT does not emit).
#[cfg(target_arch = "x86_64")]
const ISA_FEATURES: [(fastpath::cpu::Feature, &str); 11] = {
    use fastpath::cpu::Feature as F;
    [
        (F::Sse3, "has_sse3"),
        (F::Ssse3, "has_ssse3"),
        (F::Sse41, "has_sse41"),
        (F::Sse42, "has_sse42"),
        (F::Popcnt, "has_popcnt"),
        (F::Lzcnt, "has_lzcnt"),
        (F::Avx, "has_avx"),
        (F::Avx2, "has_avx2"),
        (F::Fma, "has_fma"),
        (F::Bmi1, "has_bmi1"),
        (F::Bmi2, "has_bmi2"),
    ]
};

/// As [`ISA_FEATURES`], for AArch64: the large system extensions' atomics
/// (`cas`, `ldadd`) instead of exclusive-pair loops.
#[cfg(target_arch = "aarch64")]
const ISA_FEATURES: [(fastpath::cpu::Feature, &str); 1] = [(fastpath::cpu::Feature::Lse, "has_lse")];

/// The ISA compiled code is generated for: the host's, with the thread
/// block in the pinned register and the extensions the CPU has
/// ([`ISA_FEATURES`]); optimizing (`opt_level` `speed`), or for the
/// quick first tier `none` (no e-graph pass: the instructions as
/// translated, register-allocated).
fn jit_isa(opt_level: &str) -> OwnedTargetIsa {
    let mut flags = settings::builder();
    flags.set("opt_level", opt_level).expect("a known setting");
    flags.set("enable_pinned_reg", "true").expect("a known setting");
    flags
        .set(
            "enable_verifier",
            if cfg!(debug_assertions) { "true" } else { "false" },
        )
        .expect("a known setting");
    let triple = if cfg!(target_arch = "aarch64") {
        "aarch64-unknown-linux-gnu"
    } else {
        "x86_64-unknown-linux-gnu"
    };
    let mut isa = cranelift_codegen::isa::lookup_by_name(triple).expect("cranelift built with host-arch");
    let cpu = fastpath::cpu::info();
    for (feature, setting) in ISA_FEATURES {
        if cpu.has(feature) {
            isa.enable(setting).expect("a known ISA setting");
        }
    }
    isa.finish(settings::Flags::new(flags)).expect("valid flags")
}

/// The library slow path's index among the library imports.
pub fn library_index(p: LibraryPath) -> u32 {
    match p {
        LibraryPath::MonitorEnter => 0,
        LibraryPath::MonitorExit => 1,
        LibraryPath::SatbEnqueue => 2,
        LibraryPath::Lrb => 3,
        LibraryPath::BrooksWb => 4,
        LibraryPath::G1Card => 5,
        LibraryPath::CasRef => 6,
    }
}

const LIBRARY_PATHS: [LibraryPath; 7] = [
    LibraryPath::MonitorEnter,
    LibraryPath::MonitorExit,
    LibraryPath::SatbEnqueue,
    LibraryPath::Lrb,
    LibraryPath::BrooksWb,
    LibraryPath::G1Card,
    LibraryPath::CasRef,
];

impl Jit {
    /// A JIT in `mode` (`FASTPATH_VM_JIT_THRESHOLD` overrides the
    /// invocation threshold).
    pub fn new(mode: Mode) -> Result<Jit, String> {
        let threshold = match std::env::var("FASTPATH_VM_JIT_THRESHOLD") {
            Ok(v) => v
                .parse::<u32>()
                .map_err(|_| format!("FASTPATH_VM_JIT_THRESHOLD={v}: expected a number"))?,
            Err(_) => 1000,
        };
        let tiered = match std::env::var("FASTPATH_VM_JIT_TIERS") {
            Ok(v) if v == "2" => true,
            Ok(v) if v == "1" => false,
            Ok(v) => return Err(format!("FASTPATH_VM_JIT_TIERS={v}: expected 1 or 2")),
            Err(_) => false,
        };
        perfmap::from_env()?;
        Ok(Jit {
            mode,
            invoke_threshold: match mode {
                Mode::Int => u32::MAX,
                Mode::Mixed => threshold.max(1),
                Mode::Comp => 0,
            },
            // A backward branch weighs 1/16 of an invocation (HotSpot's
            // tiers weigh it less still: Tier3InvocationThreshold 200,
            // Tier3BackEdgeThreshold 60000).
            backedge_threshold: match mode {
                Mode::Int => u32::MAX,
                Mode::Mixed => threshold.max(1).saturating_mul(16),
                Mode::Comp => 0,
            },
            // The back-edge threshold, which also compiles the method for
            // its next call (HotSpot's OnStackReplacePercentage makes its
            // OSR threshold a multiple of the back-edge one).
            osr_threshold: match mode {
                Mode::Mixed => threshold.max(1).saturating_mul(16),
                Mode::Int | Mode::Comp => u32::MAX,
            },
            background: mode == Mode::Mixed,
            eliminate_locks: true,
            broker: broker::Broker::default(),
            broker2: broker::Broker::named(broker::THREAD_NAME_2),
            isa: jit_isa("speed"),
            quick_isa: jit_isa("none"),
            tiered: mode == Mode::Mixed && tiered,
            cache: OnceLock::new(),
            env: OnceLock::new(),
            entries: Mutex::new(Vec::new()),
            adapters: Mutex::new(HashMap::new()),
            osr: Mutex::new(HashMap::new()),
            stats: JitStats::default(),
            log: std::env::var_os("FASTPATH_VM_JIT_LOG").is_some_and(|v| v == "1"),
            trace: match std::env::var("FASTPATH_VM_JIT_TRACE") {
                Ok(v) if v == "1" => Some(Instant::now()),
                Ok(v) if v == "0" => None,
                Ok(v) => return Err(format!("FASTPATH_VM_JIT_TRACE={v}: expected 0 or 1")),
                Err(_) => None,
            },
        })
    }

    /// Whether methods are ever compiled.
    pub fn enabled(&self) -> bool {
        self.mode != Mode::Int
    }

    /// Sets up what compiling needs for barrier set `B` (its helpers), once
    /// per process, from the first thread that runs Java. `Err`: the JIT
    /// cannot run here (the VM then interprets everything).
    pub fn init<B: BarrierSet>(
        &self,
        m: &mut fastpath::gc::Mutator<B>,
        vm: &'static crate::runtime::Vm,
    ) -> Result<(), String> {
        if !self.enabled() || self.env.get().is_some() {
            return Ok(());
        }
        layout::check(m)?;
        let object = vm.object_class();
        let sample = *object.vtable.first().ok_or("java.lang.Object has no methods")?;
        let vtable = VecLayout::probe(sample).ok_or("a Vec's layout could not be found")?;
        let bool_array = vm.loader.load("[Z").map_err(|e| e.to_string())? as *const _ as usize;
        let cache = CodeCache::new(CODE_CACHE_BYTES).map_err(|e| e.to_string())?;
        // Registers the process for the membarrier every installation
        // issues (`fastpath::code::publish`) now, on the first Java thread,
        // before the compiler thread starts: the kernel's registration in
        // a process of several threads waits for an RCU grace period
        // (7-8 ms each of its two commands measured on the compiler
        // thread's first compilation, microseconds with one thread).
        let _ = fastpath::code::publish_guarantee();
        let mut helpers = runtime::table::<B>();
        let pause = fastpath_cranelift::install_pause(&cache).map_err(|e| e.to_string())?;
        helpers.0[Helper::SpinPause as usize] = pause.addr() as usize;
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).push(pause);
        // The locking mode is fixed at start: inline monitors where the
        // lock-stack is live (elsewhere the inline enter only fails over
        // to the runtime, a test and a branch more per lock).
        // `FASTPATH_VM_JIT_INLINE_LOCKS=0` calls the runtime for every
        // enter and exit (the baseline the lock benchmarks compare with).
        let inline = match std::env::var("FASTPATH_VM_JIT_INLINE_LOCKS") {
            Ok(v) if v == "0" => false,
            Ok(v) if v == "1" => true,
            Ok(v) => return Err(format!("FASTPATH_VM_JIT_INLINE_LOCKS={v}: expected 0 or 1")),
            Err(_) => true,
        };
        let lightweight = inline
            && fastpath::sync::current_thread_locking_mode() == fastpath::sync::LockingMode::Lightweight;
        // The helpers called with `preserve_all` (the poll's stop; with
        // inline monitors, their misses and a coarsened lock's release):
        // their runtime functions behind the register-preserving stubs.
        for h in Helper::ALL {
            if h.call_conv(lightweight) != CallConv::PreserveAll {
                continue;
            }
            let stub = preserve::preserving_stub(h, helpers.addr(h), self.isa.frontend_config());
            let stub =
                fastpath_cranelift::install(&cache, &*self.isa, stub, |_| 0).map_err(|e| e.to_string())?;
            helpers.0[h as usize] = stub.addr() as usize;
            self.entries.lock().unwrap_or_else(|e| e.into_inner()).push(stub);
        }
        let env = CompileEnv {
            helpers,
            thread: ThreadLayout::fastpath().map_err(|e| e.to_string())?,
            lock: LockStackLayout::fastpath().map_err(|e| e.to_string())?,
            satb: SatbQueueLayout::fastpath().map_err(|e| e.to_string())?,
            cset: CsetMap::of(m),
            barriers: vm.heap.config().barriers,
            format: vm.heap.cell_format(),
            refs: vm.heap.ref_width(),
            vtable,
            bool_array,
            class_decode_offset: crate::link::class_space::decode_offset()?,
            neutral: layout::neutral_header(),
            inline_locks: lightweight,
            coarsen_locks: self.eliminate_locks,
            use_profile: self.mode == Mode::Mixed,
            classes: cha::Classes(&vm.loader),
            guard_misses: self.log.then_some(&vm.jit.stats.guard_misses),
            profile_misses: self.log.then_some(&vm.jit.stats.profile_misses),
        };
        let _ = self.cache.set(cache);
        let _ = self.env.set(env);
        Ok(())
    }

    fn ready(&self) -> Option<(&CodeCache, &CompileEnv)> {
        Some((self.cache.get()?, self.env.get()?))
    }

    /// Compiles `m` (decoded as `d`) unless another thread does or did;
    /// returns its entry, 0 if it has none.
    pub fn compile(&self, m: &'static Method, d: &'static Decoded) -> usize {
        if self.ready().is_none() || !Self::claim(m) {
            return m.jit.entry();
        }
        self.compile_claimed(m, d)
    }

    /// Makes the caller the one thread that compiles `m` (or queues it):
    /// its state goes from `Interpreted` to `Compiling`.
    fn claim(m: &'static Method) -> bool {
        // Acquire/Relaxed: the winner of the CAS compiles; a loser reads
        // `entry` (Acquire) for whatever is there.
        m.jit
            .state
            .compare_exchange(
                State::Interpreted as u8,
                State::Compiling as u8,
                Ordering::Acquire,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    /// Queues `m` (decoded as `d`) for the compiler thread unless another
    /// thread did or compiled it; returns its entry if it has one already
    /// (the caller interprets on otherwise). `None`: the compiler thread
    /// could not be started, nothing was claimed; the caller compiles
    /// synchronously ([`Jit::compile`]).
    pub fn enqueue(&'static self, m: &'static Method, d: &'static Decoded) -> Option<usize> {
        if self.ready().is_none() || !Self::claim(m) {
            return Some(m.jit.entry());
        }
        if self.trace.is_some() {
            self.trace_event(format_args!(
                "queue {m:?} ({} calls, {} back edges; {} queued before it)",
                m.jit.invocations.load(Ordering::Relaxed),
                m.jit.backedges.load(Ordering::Relaxed),
                self.broker.queued()
            ));
        }
        match self.offer(broker::Task::Method(m, d)) {
            // Refused at exit: the method stays `Compiling`, interpreted.
            Ok(()) | Err(broker::Refused::Shut) => Some(0),
            Err(broker::Refused::NoThread) => {
                // Release: undoes the claim (nothing was published).
                m.jit.state.store(State::Interpreted as u8, Ordering::Release);
                None
            }
        }
    }

    /// The queue `task` goes to: the only one untiered; with tiers the
    /// first tier's compilations to one, the rest, long, to the other.
    fn broker_for(&self, task: &broker::Task) -> &broker::Broker<broker::Task> {
        match task {
            broker::Task::Method(..) => &self.broker,
            broker::Task::Osr(..) | broker::Task::Recompile(..) if self.tiered => &self.broker2,
            broker::Task::Osr(..) | broker::Task::Recompile(..) => &self.broker,
        }
    }

    /// Queues `task` ([`Jit::broker_for`]) for its compiler thread.
    fn offer(&'static self, task: broker::Task) -> Result<(), broker::Refused> {
        self.broker_for(&task)
            .offer(task, move |t, w| self.run_task(t, w))
    }

    /// The compiler thread's work on `task`.
    fn run_task(&'static self, task: broker::Task, waited: std::time::Duration) {
        if !matches!(task, broker::Task::Recompile(..)) {
            // Relaxed: statistics. The time a method or loop waited
            // interpreted (a recompilation's method runs compiled).
            self.stats
                .queue_nanos
                .fetch_add(waited.as_nanos() as u64, Ordering::Relaxed);
        }
        if self.trace.is_some() {
            let (m, what) = match task {
                broker::Task::Method(m, _) if self.tiered => (m, Tier::Quick.label().to_string()),
                broker::Task::Method(m, _) => (m, String::new()),
                broker::Task::Osr(m, d, at) => (m, format!(" OSR at bci {}", d.bcis[at])),
                broker::Task::Recompile(m, _) => (m, Tier::Full.label().to_string()),
            };
            self.trace_event(format_args!(
                "start {m:?}{what} after {:.3} ms queued",
                waited.as_secs_f64() * 1e3
            ));
        }
        match task {
            broker::Task::Method(m, d) if self.tiered => {
                if self.compile_claimed_at(m, d, Tier::Quick) != 0 {
                    // Refused (the VM exits, or the second thread could
                    // not start): the first tier's code stays.
                    let _ = self.offer(broker::Task::Recompile(m, d));
                }
            }
            broker::Task::Method(m, d) => {
                self.compile_claimed(m, d);
            }
            broker::Task::Osr(m, d, at) => {
                self.compile_osr_claimed(m, d, at);
            }
            broker::Task::Recompile(m, d) => self.recompile(m, d),
        }
    }

    /// Compiles `m`, which the caller claimed ([`Jit::claim`]), and
    /// installs it; returns its entry, 0 if the JIT refused it.
    pub(crate) fn compile_claimed(&self, m: &'static Method, d: &'static Decoded) -> usize {
        self.compile_claimed_at(m, d, Tier::Full)
    }

    /// [`Jit::compile_claimed`] at `tier`.
    fn compile_claimed_at(&self, m: &'static Method, d: &'static Decoded, tier: Tier) -> usize {
        let s = &m.jit.state;
        let Some((cache, env)) = self.ready() else {
            // Release: as a refusal's.
            s.store(State::Failed as u8, Ordering::Release);
            return 0;
        };
        if Self::on_compiler_thread() {
            // Relaxed: statistics.
            self.stats.background.fetch_add(1, Ordering::Relaxed);
        }
        let start = Instant::now();
        let result = self.compile_now(cache, env, m, d, tier);
        let nanos = start.elapsed().as_nanos() as u64;
        // Relaxed: statistics.
        self.stats.nanos.fetch_add(nanos, Ordering::Relaxed);
        match result {
            Ok((entry, adapter, len, inl)) => {
                self.stats.compiled.fetch_add(1, Ordering::Relaxed);
                self.stats.bytes.fetch_add(len as u64, Ordering::Relaxed);
                if tier == Tier::Quick {
                    self.stats.quick.fetch_add(1, Ordering::Relaxed);
                }
                self.log_installed(m, tier, len, nanos, inl);
                self.trace_event(format_args!(
                    "installed {m:?}{} after {} us compiling",
                    tier.label(),
                    nanos / 1000
                ));
                // Relaxed: a heuristic read by later compilations.
                m.jit.code_len.store(len as u32, Ordering::Relaxed);
                // Release: the adapter before the entry that names it.
                m.jit.adapter.store(adapter, Ordering::Release);
                m.jit.entry.store(entry, Ordering::Release);
                s.store(State::Compiled as u8, Ordering::Release);
                entry
            }
            Err(why) => {
                self.stats.failed.fetch_add(1, Ordering::Relaxed);
                if self.log {
                    crate::diag!("jit: {m:?} not compiled: {why}");
                }
                // Release: as the success path's, so a reader that sees
                // Failed sees nothing half-installed.
                s.store(State::Failed as u8, Ordering::Release);
                0
            }
        }
    }

    /// Prints a compilation's line (`FASTPATH_VM_JIT_LOG=1`): the
    /// method, its tier when tiered, its code's size and the time it took.
    fn log_installed(&self, m: &'static Method, tier: Tier, len: usize, nanos: u64, inl: Inlining) {
        if self.log {
            let mut note = String::new();
            if inl.calls > 0 || inl.cold > 0 {
                note = format!(", {} calls inlined, {} cold calls left", inl.calls, inl.cold);
            }
            if inl.guarded > 0 {
                note += &format!(", {} calls inlined behind a guard", inl.guarded);
            }
            let tier = if self.tiered { tier.label() } else { "" };
            crate::diag!("jit: {m:?}{tier} {len} bytes in {} us{note}", nanos / 1000);
        }
    }

    /// Compiles `m`'s normal entry again at the second tier and installs
    /// it in place of its first tier's (the compiler thread's
    /// [`broker::Task::Recompile`]): calls that load the entry from then
    /// on run the new code; frames in the old code finish there (code is
    /// never freed). A refusal keeps the first tier's code.
    fn recompile(&self, m: &'static Method, d: &'static Decoded) {
        let Some((cache, env)) = self.ready() else {
            return;
        };
        // Relaxed: statistics.
        self.stats.background.fetch_add(1, Ordering::Relaxed);
        let start = Instant::now();
        let result = self.compile_now(cache, env, m, d, Tier::Full);
        let nanos = start.elapsed().as_nanos() as u64;
        self.stats.nanos.fetch_add(nanos, Ordering::Relaxed);
        match result {
            Ok((entry, adapter, len, inl)) => {
                self.stats.recompiled.fetch_add(1, Ordering::Relaxed);
                self.stats.bytes.fetch_add(len as u64, Ordering::Relaxed);
                self.log_installed(m, Tier::Full, len, nanos, inl);
                self.trace_event(format_args!(
                    "installed {m:?}{} after {} us compiling",
                    Tier::Full.label(),
                    nanos / 1000
                ));
                // Relaxed: a heuristic read by later compilations.
                m.jit.code_len.store(len as u32, Ordering::Relaxed);
                // Release: the adapter (the shape's, as the first tier's)
                // before the entry, which publishes the new code.
                m.jit.adapter.store(adapter, Ordering::Release);
                m.jit.entry.store(entry, Ordering::Release);
            }
            Err(why) => {
                if self.log {
                    crate::diag!(
                        "jit: {m:?}{} not compiled: {why} (the first tier's code stays)",
                        Tier::Full.label()
                    );
                }
            }
        }
    }

    fn compile_now(
        &self,
        cache: &CodeCache,
        env: &CompileEnv,
        m: &'static Method,
        d: &'static Decoded,
        tier: Tier,
    ) -> Result<(usize, usize, usize, Inlining), String> {
        if m.is_native() || m.is_abstract() {
            return Err("no bytecode".into());
        }
        let adapter = self.adapter_for(cache, m)?;
        let mut fctx = FunctionBuilderContext::new();
        let isa = match tier {
            Tier::Quick => &self.quick_isa,
            Tier::Full => &self.isa,
        };
        let t = translate::translate(
            env,
            m,
            d,
            None,
            tier == Tier::Full,
            &mut fctx,
            isa.frontend_config(),
        )
        .map_err(|e| e.0)?;
        // Relaxed: statistics.
        self.stats.inlined.fetch_add(t.inlined as u64, Ordering::Relaxed);
        self.stats.guarded.fetch_add(t.guarded as u64, Ordering::Relaxed);
        self.stats
            .coarsened
            .fetch_add(t.coarsened as u64, Ordering::Relaxed);
        self.stats
            .promoted
            .fetch_add(t.promoted as u64, Ordering::Relaxed);
        dump::maybe_dump(m, "entry", &t.func, &**isa);
        let entry = self.install(cache, env, &**isa, t.func)?;
        let (addr, len) = (entry.addr() as usize, entry.len());
        // SAFETY: the entry's `len` bytes at its address are the code just
        // installed, readable through the cache's execute view, which stays
        // mapped as long as the cache (a freed block is overwritten, never
        // unmapped); no thread writes them before the entry is published,
        // after this.
        dump::installed(m, "entry", unsafe {
            std::slice::from_raw_parts(entry.addr(), len)
        });
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
        let inl = Inlining {
            calls: t.inlined,
            guarded: t.guarded,
            cold: t.cold,
        };
        Ok((addr, adapter, len, inl))
    }

    /// `m`'s OSR entry at instruction `at`, if installed, refused, or
    /// never asked for.
    pub fn osr_lookup(&self, m: &'static Method, at: usize) -> OsrLookup {
        let map = self.osr.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(&(m as *const Method as usize, at as u32)) {
            Some(OsrState::Ready(e)) => {
                if self.trace.is_some() {
                    self.trace_event(format_args!(
                        "enter {m:?} OSR at instruction {at} ({} calls, {} back edges)",
                        m.jit.invocations.load(Ordering::Relaxed),
                        m.jit.backedges.load(Ordering::Relaxed)
                    ));
                }
                OsrLookup::Ready(*e)
            }
            Some(OsrState::Compiling | OsrState::Failed) => OsrLookup::Unavailable,
            Some(OsrState::Asked) | None => OsrLookup::Missing,
        }
    }

    /// Compiles `m`'s OSR entry at instruction `at` (decoded as `d`)
    /// unless another thread does or did; `None` if it has none (a
    /// refusal is remembered: never compiled again).
    pub fn compile_osr(&self, m: &'static Method, d: &'static Decoded, at: usize) -> Option<OsrEntry> {
        self.ready()?;
        match self.claim_osr(m, at) {
            Ok(()) => self.compile_osr_claimed(m, d, at),
            Err(e) => e,
        }
    }

    /// Makes the caller the one thread that compiles `m`'s OSR entry at
    /// `at` (recorded as compiling); `Err` with the entry, or `None`, if
    /// another thread did or does.
    fn claim_osr(&self, m: &'static Method, at: usize) -> Result<(), Option<OsrEntry>> {
        let key = (m as *const Method as usize, at as u32);
        let mut map = self.osr.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(&key) {
            Some(OsrState::Ready(e)) => Err(Some(*e)),
            Some(OsrState::Compiling | OsrState::Failed) => Err(None),
            Some(OsrState::Asked) | None => {
                map.insert(key, OsrState::Compiling);
                Ok(())
            }
        }
    }

    /// Queues `m`'s OSR entry at `at` for the compiler thread unless
    /// another thread did or compiled it, or another entry of `m` is
    /// queued or being compiled; returns the entry if installed (the frame
    /// interprets on otherwise). `Err`: the compiler thread could not be
    /// started, nothing was claimed; the caller compiles synchronously
    /// ([`Jit::compile_osr`]).
    ///
    /// One OSR compilation of a method at a time: a frame that interprets
    /// on while its loop's entry is compiled reaches the method's other
    /// loops, and each entry is a compilation of the whole method; the
    /// frame asks again at its next notification. For the same reason an
    /// entry asked for while another of the method is installed is queued
    /// at its second ask only: a notification falls on whichever loop's
    /// back edge is the 1024th, so a frame in a nest whose inner loop has
    /// its entry may first ask at an outer loop's head, and enters the
    /// inner entry at its next notification; a frame that moved on to
    /// another loop asks there again and gets it.
    ///
    /// The method's normal entry is queued behind the OSR entry when it
    /// has none: a method hot in its loops is hot for its next call too
    /// (the back-edge threshold is the OSR threshold), and queued only at
    /// that call it would run interpreted, or in OSR code, once more: a
    /// method called once per long run (a benchmark's iteration) would
    /// spend a second run there. HotSpot's policy likewise checks, at a
    /// loop's overflow, whether the method is due for a normal
    /// compilation (`CompilationPolicy::method_back_branch_event`).
    pub fn enqueue_osr(
        &'static self,
        m: &'static Method,
        d: &'static Decoded,
        at: usize,
    ) -> Result<Option<OsrEntry>, broker::Refused> {
        if self.ready().is_none() {
            return Ok(None);
        }
        let method = m as *const Method as usize;
        if self
            .osr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|(&(k, _), s)| k == method && matches!(s, OsrState::Compiling))
        {
            return Ok(None);
        }
        {
            let key = (method, at as u32);
            let mut map = self.osr.lock().unwrap_or_else(|e| e.into_inner());
            let other_ready = map
                .iter()
                .any(|(&(k, i), s)| k == method && i != at as u32 && matches!(s, OsrState::Ready(_)));
            if other_ready && !map.contains_key(&key) {
                map.insert(key, OsrState::Asked);
                return Ok(None);
            }
        }
        if let Err(e) = self.claim_osr(m, at) {
            return Ok(e);
        }
        if self.trace.is_some() {
            self.trace_event(format_args!(
                "queue {m:?} OSR at bci {} ({} calls, {} back edges; {} queued before it)",
                d.bcis[at],
                m.jit.invocations.load(Ordering::Relaxed),
                m.jit.backedges.load(Ordering::Relaxed),
                self.broker_for(&broker::Task::Osr(m, d, at)).queued()
            ));
        }
        match self.offer(broker::Task::Osr(m, d, at)) {
            Ok(()) => {
                // Relaxed: a hint; `enqueue` claims the method itself.
                if m.jit.state.load(Ordering::Relaxed) == State::Interpreted as u8 {
                    // `None` (no compiler thread) cannot follow the offer
                    // that started it; the call compiles it otherwise.
                    let _ = self.enqueue(m, d);
                }
                Ok(None)
            }
            Err(broker::Refused::Shut) => Ok(None),
            Err(broker::Refused::NoThread) => {
                self.osr
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&(m as *const Method as usize, at as u32));
                Err(broker::Refused::NoThread)
            }
        }
    }

    /// Compiles `m`'s OSR entry at `at`, which the caller claimed, and
    /// installs it (or records the refusal).
    pub(crate) fn compile_osr_claimed(
        &self,
        m: &'static Method,
        d: &'static Decoded,
        at: usize,
    ) -> Option<OsrEntry> {
        let key = (m as *const Method as usize, at as u32);
        let Some((cache, env)) = self.ready() else {
            self.osr
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key, OsrState::Failed);
            return None;
        };
        if Self::on_compiler_thread() {
            // Relaxed: statistics.
            self.stats.background.fetch_add(1, Ordering::Relaxed);
        }
        let start = Instant::now();
        let result = self.compile_osr_now(cache, env, m, d, at);
        let nanos = start.elapsed().as_nanos() as u64;
        // Relaxed: statistics.
        self.stats.nanos.fetch_add(nanos, Ordering::Relaxed);
        let bci = d.bcis.get(at).copied().unwrap_or(u32::MAX);
        let (state, out) = match result {
            Ok((e, len)) => {
                self.stats.osr_compiled.fetch_add(1, Ordering::Relaxed);
                self.stats.bytes.fetch_add(len as u64, Ordering::Relaxed);
                if self.log {
                    crate::diag!("jit: {m:?} OSR at bci {bci} {len} bytes in {} us", nanos / 1000);
                }
                self.trace_event(format_args!(
                    "installed {m:?} OSR at bci {bci} after {} us compiling",
                    nanos / 1000
                ));
                (OsrState::Ready(e), Some(e))
            }
            Err(why) => {
                self.stats.osr_failed.fetch_add(1, Ordering::Relaxed);
                if self.log {
                    crate::diag!("jit: {m:?} OSR at bci {bci} not compiled: {why}");
                }
                (OsrState::Failed, None)
            }
        };
        self.osr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, state);
        out
    }

    fn compile_osr_now(
        &self,
        cache: &CodeCache,
        env: &CompileEnv,
        m: &'static Method,
        d: &'static Decoded,
        at: usize,
    ) -> Result<(OsrEntry, usize), String> {
        if m.is_native() || m.is_abstract() {
            return Err("no bytecode".into());
        }
        let adapter = self.osr_adapter_for(cache, m)?;
        let mut fctx = FunctionBuilderContext::new();
        let t = translate::translate(env, m, d, Some(at), true, &mut fctx, self.isa.frontend_config())
            .map_err(|e| e.0)?;
        // Relaxed: statistics.
        self.stats.inlined.fetch_add(t.inlined as u64, Ordering::Relaxed);
        self.stats.guarded.fetch_add(t.guarded as u64, Ordering::Relaxed);
        self.stats
            .coarsened
            .fetch_add(t.coarsened as u64, Ordering::Relaxed);
        self.stats
            .promoted
            .fetch_add(t.promoted as u64, Ordering::Relaxed);
        dump::maybe_dump(m, &format!("OSR entry at {at}"), &t.func, &*self.isa);
        let entry = self.install(cache, env, &*self.isa, t.func)?;
        let (addr, len) = (entry.addr() as usize, entry.len());
        // SAFETY: as for a method's entry (`compile_now`).
        let code = unsafe { std::slice::from_raw_parts(entry.addr(), len) };
        dump::installed(m, &format!("OSR entry at {at}"), code);
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
        Ok((
            OsrEntry {
                entry: addr,
                adapter,
                extent: t.extent,
            },
            len,
        ))
    }

    /// Compiles `func` for `isa` and installs it, resolving helper and
    /// library imports.
    fn install(
        &self,
        cache: &CodeCache,
        env: &CompileEnv,
        isa: &dyn cranelift_codegen::isa::TargetIsa,
        func: cranelift_codegen::ir::Function,
    ) -> Result<Entry, String> {
        let entry = fastpath_cranelift::install(cache, isa, func, |index| {
            if index < helpers::LIBRARY_BASE {
                env.helpers.addr(Helper::ALL[index as usize])
            } else {
                LIBRARY_PATHS[(index - helpers::LIBRARY_BASE) as usize].addr()
            }
        })
        .map_err(|e| e.to_string())?;
        // Other threads may call the code as soon as its address is stored:
        // make every core's instruction stream see it (a serializing
        // membarrier where the kernel has it).
        let _ = fastpath::code::publish();
        Ok(entry)
    }

    /// The adapter for `m`'s signature shape, compiled on first need.
    fn adapter_for(&self, cache: &CodeCache, m: &'static Method) -> Result<usize, String> {
        self.cached_adapter(cache, translate::shape_key(m), || {
            entry::adapter(m, self.isa.frontend_config())
        })
    }

    /// The OSR adapter for `m`'s result kind, compiled on first need.
    fn osr_adapter_for(&self, cache: &CodeCache, m: &'static Method) -> Result<usize, String> {
        let key = format!(
            "osr){}",
            translate::shape_key(m).rsplit(')').next().unwrap_or("V")
        );
        self.cached_adapter(cache, key, || entry::osr_adapter(m, self.isa.frontend_config()))
    }

    /// The adapter cached under `key`, or the one `build` makes, installed
    /// and cached.
    fn cached_adapter(
        &self,
        cache: &CodeCache,
        key: String,
        build: impl FnOnce() -> cranelift_codegen::ir::Function,
    ) -> Result<usize, String> {
        let mut map = self.adapters.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(a) = map.get(&key) {
            return Ok(*a);
        }
        let env = self.env.get().ok_or("not initialized")?;
        let e = self.install(cache, env, &*self.isa, build())?;
        let a = e.addr() as usize;
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).push(e);
        map.insert(key, a);
        Ok(a)
    }

    /// The installed code `[start, end)` that `entry` (a method's
    /// `MethodJit::entry`) begins, for disassembly and tests.
    pub fn code_range(&self, entry: usize) -> Option<(usize, usize)> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let e = entries.iter().find(|e| e.addr() as usize == entry)?;
        Some((entry, entry + e.len()))
    }

    /// Stops the compiler thread for VM exit: queued compilations are
    /// dropped, the one under way finishes (`broker.rs`); later requests
    /// leave their methods interpreted.
    pub fn shutdown(&self) {
        let dropped = self.broker.shutdown() + self.broker2.shutdown();
        // Relaxed: statistics.
        self.stats.dropped.fetch_add(dropped as u64, Ordering::Relaxed);
    }

    /// Compilations queued and not yet started.
    pub fn queued(&self) -> usize {
        self.broker.queued() + self.broker2.queued()
    }

    /// Whether this thread is the compiler thread.
    fn on_compiler_thread() -> bool {
        std::thread::current()
            .name()
            .is_some_and(|n| n == broker::THREAD_NAME || n == broker::THREAD_NAME_2)
    }

    /// Whether each compilation and the summary at exit are printed
    /// (`FASTPATH_VM_JIT_LOG=1`).
    pub fn logging(&self) -> bool {
        self.log
    }

    /// Prints one tier-transition event, `jit-trace: +MS ms WHAT`, the
    /// time counted from the JIT's creation (`FASTPATH_VM_JIT_TRACE=1`:
    /// where a program's warm-up goes, beside its own iteration times).
    #[cold]
    fn trace_event(&self, what: std::fmt::Arguments<'_>) {
        if let Some(start) = self.trace {
            let ms = start.elapsed().as_secs_f64() * 1e3;
            crate::diag!("jit-trace: +{ms:.3} ms {what}");
        }
    }

    /// A one-line summary (`FASTPATH_VM_JIT_LOG`).
    pub fn summary(&self) -> String {
        let s = &self.stats;
        // Relaxed: statistics read at exit.
        format!(
            "fastpath-vm jit: {} methods compiled, {} refused, {} calls inlined, {} bytes, {} ms compiling, \
             {} OSR compiled, {} OSR refused, {} OSR entries, {} calls inlined behind a guard, {} guard misses, {} of profiled guards, \
             {} compiled in the background, {} ms queued, {} dropped at exit, {} calls into compiled code, \
             {} lock exits coarsened, {} fields promoted, {} methods compiled at tier 1, {} recompiled at tier 2",
            s.compiled.load(Ordering::Relaxed),
            s.failed.load(Ordering::Relaxed),
            s.inlined.load(Ordering::Relaxed),
            s.bytes.load(Ordering::Relaxed),
            s.nanos.load(Ordering::Relaxed) / 1_000_000,
            s.osr_compiled.load(Ordering::Relaxed),
            s.osr_failed.load(Ordering::Relaxed),
            s.osr_entries.load(Ordering::Relaxed),
            s.guarded.load(Ordering::Relaxed),
            s.guard_misses.load(Ordering::Relaxed),
            s.profile_misses.load(Ordering::Relaxed),
            s.background.load(Ordering::Relaxed),
            s.queue_nanos.load(Ordering::Relaxed) / 1_000_000,
            s.dropped.load(Ordering::Relaxed),
            s.compiled_calls.load(Ordering::Relaxed),
            s.coarsened.load(Ordering::Relaxed),
            s.promoted.load(Ordering::Relaxed),
            s.quick.load(Ordering::Relaxed),
            s.recompiled.load(Ordering::Relaxed)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ISA compiled code targets has each extension of
    /// [`ISA_FEATURES`] exactly when the CPU identification found it, at
    /// both optimisation levels.
    #[test]
    fn the_isa_has_the_extensions_the_cpu_has() {
        let cpu = fastpath::cpu::info();
        for level in ["speed", "none"] {
            let isa = jit_isa(level);
            let flags = isa.isa_flags();
            for (feature, setting) in ISA_FEATURES {
                let value = flags
                    .iter()
                    .find(|v| v.name == setting)
                    .and_then(|v| v.as_bool())
                    .unwrap_or_else(|| panic!("{setting} is a boolean ISA setting"));
                assert_eq!(
                    value,
                    cpu.has(feature),
                    "{setting} at opt_level {level} (CPU: {})",
                    cpu.features_string(None)
                );
            }
        }
    }
}

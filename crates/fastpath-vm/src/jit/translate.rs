//! Bytecode to Cranelift IR: one compiled function per Java method.
//!
//! Where it sits: `mod.rs` hands a decoded method here and installs the
//! function it gets back. The translation is the interpreter's semantics
//! instruction by instruction, from the typed [`Op`]s (`ops.rs`) and the
//! entry kinds of every slot (`kinds.rs`):
//!
//! - SSA from the stack machine with `cranelift-frontend` variables, one
//!   per slot (local or operand-stack position) and value kind, as
//!   wasmtime's translator keeps wasm locals; a block per branch target,
//!   handler and fall-through after a branch.
//! - Safepoints (`safepoint`): the position and the references the
//!   interpreter's map names are stored into the method's slot-stack frame
//!   before the call and reloaded after it (`frame.rs`); the frame is
//!   published as the thread's top frame for the runtime, and for a call
//!   to compiled code not at all (the callee publishes its own, `spill`).
//! - Exceptions: every instruction that can throw branches, with the
//!   exception pending in the thread, to the dispatch block of its handler
//!   ranges (`dispatch`), which tests the handlers in table order and
//!   either jumps to one with the exception pushed or returns status 1
//!   (the caller dispatches in turn).
//! - Calls: to the callee's compiled entry when it has one (a load of
//!   `Method::jit`'s entry and an indirect call with the arguments in
//!   registers), else through the `Invoke` helper (interpreted, native,
//!   abstract), with the arguments in the slots where the interpreter
//!   keeps them. A statically bound call of the method itself from its
//!   own entry is a direct call to the function's start (`call_self`).
//!   An interface call finds its target through the site's inline cache
//!   (`emit.rs`, `itable_target`).
//! - Inlining (`inline_call`): a statically bound callee (static,
//!   private, `invokespecial`, a final method or a final class's) that has
//!   run (it is decoded) is translated into the caller's function in place
//!   of the call: its locals are variables fed by the arguments, its
//!   returns jump to the call's continuation, an exception it does not
//!   catch goes to the caller's dispatch at the call. Its frame is where
//!   the call would have put it on the slot stack, above the caller's live
//!   operands, and is written only at the callee's safepoints: there the
//!   callers are spilled as at a call (position with `IN_CALL`, their
//!   references less the arguments) and every inlined frame's header
//!   (method, caller, `COMPILED`) is stored, so the root scanner, stack
//!   traces and helpful `NullPointerException` messages see the same
//!   chain of frames as without inlining; a path with no safepoint (a
//!   getter, a field store) costs no frame at all. The prologue's stack
//!   check covers the deepest inlined frame. Which calls are inlined,
//!   at what depth and with callees how big, the inlining policy decides
//!   before the translation from the call-site profile (`inlining.rs`:
//!   hot sites deeper and with bigger callees, cold ones left calls, the
//!   method's budget spent hottest first); the translator inlines where
//!   its plan says. A recursive call is inlined once
//!   (`MAX_RECURSIVE_INLINE_LEVEL`): the inlined body's own recursive
//!   calls stay calls (of the compiled method itself, `call_self`).
//!   Without `-Xcomp`, a callee that never ran is not decoded and stays a
//!   call (HotSpot's C2 leaves a call it has never seen taken to an
//!   uncommon trap); `-Xcomp` decodes the small statically bound callees,
//!   and the implementations class-hierarchy analysis finds, before
//!   compiling (`entry.rs`).
//!
//!   A virtual call that is not statically bound is inlined behind
//!   guards (`guarded_inline_call`) when class-hierarchy analysis
//!   (`cha.rs`) finds at most `MAX_GUARDED_TARGETS` implementations among
//!   the classes loaded at compile time: the receiver's vtable entry at
//!   the call's index is loaded (class word, vtable pointer, entry: the
//!   load chain the call itself needs) and compared with each
//!   implementation in turn; equal, its body runs inlined; none equal,
//!   the ordinary virtual call (a cold block when every implementation
//!   is inlined). An interface call is inlined the same way behind
//!   guards on the receiver's class when at most `MAX_GUARDED_RECEIVERS`
//!   loaded classes implement its interface, its miss the inline-cached
//!   interface call. That is the inline-cache answer to the choice the
//!   alternative, class-hierarchy analysis with deoptimisation, poses:
//!   CHA alone would drop the guard and record a dependency, and a class
//!   loaded later that overrides the method would have to deoptimise
//!   every compiled method that inlined it, rebuilding its running
//!   frames as interpreted ones, including frames stopped inside an
//!   inlined body with values only in registers (HotSpot keeps a
//!   debug-info scope per inlined frame at every safepoint for that). A
//!   guard costs a compare and a predicted branch on a value the call
//!   loads anyway; in return the compiled code is correct after any
//!   class load with nothing recorded or invalidated, and a site that
//!   turns megamorphic keeps its inlined paths for the old receivers.
//!   HotSpot's C2 inlines one or two profiled receivers behind class
//!   checks the same way where CHA proves nothing (`doCall.cpp`,
//!   bimorphic inlining); comparing the method instead of the class lets
//!   every receiver class that inherits it take the inlined path.
//!   Where CHA finds more implementations than that, the one or two
//!   receiver classes the interpreter's profile saw at the call
//!   (`interp/profile.rs`) are inlined behind the same guards
//!   (`profiled_candidates`), the miss the ordinary call.
//!
//! - On-stack replacement (`prologue_osr`): the same translation with
//!   another entry block, which takes an interpreted frame of the method
//!   stopped at a loop head (a backward branch's target with an empty
//!   operand stack), defines the variable of every local live there (its
//!   kind from `kinds.rs`) from the frame's slot, and jumps to the loop
//!   head's block. The frame already has the compiled layout, so nothing
//!   is copied or moved: the code runs on in the interpreter's frame and
//!   returns as the method would. The rest of the method is translated
//!   too (the code after the loop runs compiled); what only the normal
//!   entry reaches is unreachable and left out by Cranelift.
//!
//! The object model, barriers and allocation are in `emit.rs`.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F64, I16, I32, I64, I8};
use cranelift_codegen::ir::{
    self, AbiParam, Block, ExtFuncData, ExternalName, FuncRef, Function, InstBuilder, MemFlagsData, SigRef,
    Signature, Type, UserExternalName, UserFuncName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};

use super::frame::{off, COMPILED, IN_CALL, UNWINDING};
use super::helpers::Helper;
use super::kinds::Kinds;
use super::ops::{Const, Dispatch, Op, Target, K};
use super::CompileEnv;
use crate::interp::insn::{Arith, Cond, Conv, Switch};
use crate::interp::stack::HEADER_SLOTS;
use crate::interp::Decoded;
use crate::link::{Class, Kind, Method};

/// Whether `m` is `java.lang.Thread.onSpinWait()`, which compiled code
/// runs as the configured spin pause.
fn is_on_spin_wait(m: &Method) -> bool {
    &*m.name == "onSpinWait" && &*m.descriptor == "()V" && &*m.class.name == "java/lang/Thread"
}

/// Why a method was not compiled (it stays interpreted).
#[derive(Debug)]
pub struct Unsupported(pub String);

/// The Cranelift type of a kind's values.
pub fn ty(k: K) -> Type {
    match k {
        K::I => I32,
        K::F => F32,
        K::D => F64,
        _ => I64,
    }
}

/// The compiled signature of a method: `(sp, caller, args...) -> (value,
/// status)`, SystemV, the thread block in the pinned register.
pub fn java_signature(m: &Method) -> Signature {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.push(AbiParam::new(I64));
    sig.params.push(AbiParam::new(I64));
    if !m.is_static() {
        sig.params.push(AbiParam::new(I64));
    }
    for p in &m.desc.params {
        sig.params.push(AbiParam::new(ty(K::of_type(p))));
    }
    sig.returns.push(AbiParam::new(ret_type(m)));
    sig.returns.push(AbiParam::new(I64));
    sig
}

/// The type of a method's first result (I64 for void).
pub fn ret_type(m: &Method) -> Type {
    m.desc.ret.as_ref().map_or(I64, |t| ty(K::of_type(t)))
}

/// A key for a method's compiled signature (adapters are shared by it).
pub fn shape_key(m: &Method) -> String {
    let mut s = String::new();
    if !m.is_static() {
        s.push('L');
    }
    for p in &m.desc.params {
        s.push(kind_letter(K::of_type(p)));
    }
    s.push(')');
    s.push(m.desc.ret.as_ref().map_or('V', |t| kind_letter(K::of_type(t))));
    s
}

fn kind_letter(k: K) -> char {
    match k {
        K::I => 'I',
        K::J => 'J',
        K::F => 'F',
        K::D => 'D',
        _ => 'L',
    }
}

/// What a safepoint spilled, to reload after the call: each variable
/// with its frame pointer, slot offset and its frame's offset from the
/// method's own, what is known of the object it held, which its reloaded
/// value holds too, and the frame words known after the spill's stores
/// (`BlockFacts::frame_words`), of which the reload keeps those no callee
/// writes.
pub(super) struct Spilled(
    Vec<(Variable, Value, i32, i64)>,
    Vec<Carried>,
    HashMap<i64, super::facts::FrameWord>,
);

/// What stays known of a spilled reference through a safepoint, where the
/// collector may move the object but changes neither its nullness, its
/// class nor an array's length (and keeps a null field null).
#[derive(Clone, Copy)]
pub(super) struct Carried {
    /// Checked non-null (`facts.rs`), or never null (`Translator::nonnull`).
    nonnull: bool,
    /// An array's length, an SSA value defined before the safepoint.
    length: Option<Value>,
    /// An instance, never an array (`Translator::instances`).
    instance: bool,
    /// Its reference count (`Translator::known_nrefs`).
    nrefs: Option<u32>,
    /// Its array form (`Translator::known_arrays`).
    array: Option<bool>,
    /// Its declared type (`Translator::declared`).
    declared: Option<super::declared::Declared>,
    /// The earlier spilled variable that held the same value, whose
    /// reload this one shares: the collector moves an object once, so
    /// two slots that held one reference hold one after the stop.
    same_as: Option<usize>,
    /// The reference fields still null of an object this method
    /// allocated that no other code can reach through the call
    /// (`Translator::spill`).
    null_fields: Option<super::facts::NullFields>,
}

/// A method's translation state: the compiled method's, or an inlined
/// callee's while its body is translated into the caller's function
/// (the caller's waits in [`Outer`]).
pub(super) struct Scope {
    pub(super) m: &'static Method,
    pub(super) d: &'static Decoded,
    pub(super) ops: Vec<Op>,
    kinds: Kinds,
    /// `max_locals`: stack slot j is variable slot `ml + j`.
    ml: usize,
    /// Slots of the frame (locals, header, operand stack).
    frame_slots: usize,
    vars: Vec<[Option<Variable>; 5]>,
    pub(super) blocks: Vec<Option<Block>>,
    /// The operand stack's kinds at the current point.
    pub(super) stack: Vec<K>,
    /// The frame's base on the slot stack.
    pub(super) fp: Value,
    dispatch: HashMap<DispatchKey, Block>,
    /// The instruction being translated.
    pub(super) idx: usize,
    /// The current block has its terminator.
    filled: bool,
    /// Back-edge poll blocks to fill: (block, target index, target block,
    /// the frame words around the loop known at the back edge).
    polls: Vec<(Block, usize, Block, FrameWords)>,
    /// In an inlined callee: where its body leaves.
    exit: Option<InlineExit>,
    /// The frame's offset from the compiled method's frame, in bytes.
    fp_offset: i64,
    /// An instance method that never stores into local 0: the local
    /// holds the receiver (or, after a safepoint, its reloaded address),
    /// which every caller checked for null.
    receiver_fixed: bool,
    /// By local: the array form of a parameter of an array type that the
    /// method never stores into (`true`: primitive elements), which every
    /// read of the local has (`array_param_forms`).
    array_params: Vec<Option<bool>>,
    /// By local: the declared type of a parameter the method never
    /// stores into, which every read of the local has
    /// (`declared_params`).
    declared_params: Vec<Option<super::declared::Declared>>,
    /// Leaders entered by one forward edge only (not the first
    /// instruction, no handler, no switch or backward target): the block
    /// the edge leaves dominates theirs, whose facts it inherits.
    single_pred: Vec<bool>,
    /// The facts holding on such an edge, by the leader it enters,
    /// recorded when the branch is emitted.
    entry_facts: HashMap<usize, super::facts::BlockFacts>,
    /// Instructions from which the method can only throw (`cold.rs`):
    /// no call there is inlined.
    throw_only: Vec<bool>,
    /// Which way of each branch stays in its loop (`predict.rs`).
    prediction: super::predict::Prediction,
    /// Per leader, the edges into it when it is a forward join (two or
    /// more forward branches and fall-throughs, nothing else): its facts
    /// are their intersection once all are translated (`facts.rs`);
    /// 0 for every other instruction.
    join_edges: Vec<u32>,
    /// The facts met so far on the edges into such a join, and how many
    /// edges they came from.
    join_facts: HashMap<usize, (super::facts::BlockFacts, u32)>,
    /// Loop heads entered from outside by forward edges only (no handler,
    /// switch, entry or OSR entry): how many, and the reference locals
    /// the loop reads and never stores (`loop_vars.rs`).
    loop_vars: HashMap<usize, (u32, Vec<u16>)>,
    /// The locals live at each instruction (`liveness.rs`): a stop stores
    /// and reloads only those.
    live: super::liveness::LiveLocals,
    /// Per such head, what each of its locals was on every forward edge
    /// recorded so far, the enclosing frames' header words every one of
    /// those edges had written (`Translator::loop_header_words`), and how
    /// many edges there were.
    loop_entry: HashMap<usize, (Vec<LoopLocalEntry>, FrameWords, u32)>,
    /// In an inlined callee: the facts every return translated so far
    /// carries to the caller's continuation.
    ret_facts: Option<super::facts::BlockFacts>,
    /// Array accesses with their array proven non-null and their index
    /// in bounds (`ranges.rs`): no checks (`emit.rs`); comparisons'
    /// non-negative operands (`bounded.rs`).
    pub(super) in_range: super::ranges::Proofs,
    /// The loops that load fields and the GC-state byte once before their
    /// head (`loops.rs`).
    loops: super::loops::Plan,
    /// Per such loop head translated so far: the head proper (which the
    /// back edges enter), the hoisted fields' values and a strip-mined
    /// loop's strip end (`loops.rs`, `Strip`).
    heads: HashMap<usize, (Block, Vec<Value>, Option<Variable>)>,
    /// The last `lcmp`, `fcmp<op>` or `dcmp<op>` translated: its
    /// instruction, its two operands, its result and its kind, which an
    /// `if<cond>` right after it that tests that result compares as the
    /// operands themselves (one compare, no -1, 0 or 1 computed: the
    /// compare's sign is `<cond>`'s answer on the operands; C2's `CmpL3`
    /// and `CmpD3` under a `Bool` fold the same way).
    last_cmp: Option<(usize, Value, Value, Value, Compare)>,
}

/// What the compare [`Scope::last_cmp`] names compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compare {
    /// `lcmp`: two longs.
    Long,
    /// `fcmpl`/`dcmpl` (`nan_greater` false: NaN gives -1) or
    /// `fcmpg`/`dcmpg` (true: NaN gives 1).
    Float { nan_greater: bool },
}

/// Where an inlined callee's body leaves: its returns jump to `ret` with
/// the result, an exception it does not catch to `unwind` (the caller's
/// dispatch at the call).
#[derive(Clone, Copy)]
struct InlineExit {
    ret: Block,
    unwind: Block,
    /// Whether an exception unwinding to `unwind` leaves the compiled
    /// method ([`Translator::exception_leaves`] at the call).
    leaves: bool,
}

/// A caller suspended at an inlined call: its scope, and the argument
/// slots its callee owns.
struct Outer {
    scope: Scope,
    arg_slots: usize,
}

/// The most implementations of a virtual call inlined behind guards on
/// the receiver's vtable entry (`Translator::guarded_candidates`): more
/// and the call stays a call (megamorphic).
pub const MAX_GUARDED_TARGETS: usize = 3;

/// The most receiver classes of an interface call inlined behind guards
/// on the class (`Translator::interface_candidates`); HotSpot's C2
/// inlines two from a profile (bimorphic, `TypeProfileWidth`).
pub const MAX_GUARDED_RECEIVERS: usize = 2;

/// How many times a method already on the inlined chain (the compiled
/// method and the callees being inlined into it) is inlined again: a
/// recursive call is inlined once, its own recursive calls stay calls
/// (HotSpot's `MaxRecursiveInlineLevel`, 1, `bytecodeInfo.cpp`). A
/// recursion's every other call is then inlined, halving its calls.
pub const MAX_RECURSIVE_INLINE_LEVEL: usize = 1;

/// The translation of one method.
pub(super) struct Translator<'e, 'f> {
    pub(super) env: &'e CompileEnv,
    pub(super) b: FunctionBuilder<'f>,
    /// The method whose bytecode is being translated.
    pub(super) s: Scope,
    /// The thread block as last read from the pinned register, and the
    /// block it was read in (`thread_here`).
    thread_read: Option<(Block, Value)>,
    imports: HashMap<u32, FuncRef>,
    sigs: HashMap<String, SigRef>,
    /// Values read from such a local 0, whose null checks are left out.
    nonnull: std::collections::HashSet<Value>,
    /// Checks and loads done on the way to the current point (`facts.rs`).
    facts: super::facts::Facts,
    /// Objects whose reference count is known wherever they are used:
    /// `new`'s results (an SSA value names one object, whose class
    /// never changes), for `data_of` (no layout-word load).
    pub(super) known_nrefs: HashMap<Value, u32>,
    /// The receivers of the guarded inlines being translated (innermost
    /// last): a type their callees' code gives them holds on the guard's
    /// path only, so none is recorded in `declared`, which holds for a
    /// value wherever it is used (`guarded_inline_call`).
    guarded_receivers: Vec<Value>,
    /// The alias regions the function names, with their ids
    /// (`emit.rs`, `HeapRegion`).
    pub(super) region_ids: HashMap<super::emit::HeapRegion, u32>,
    /// Values that are instances, never arrays, wherever they are used
    /// (`new`'s results, the arguments and reference fields whose declared
    /// type is a class other than `Object`: the verifier's types of a
    /// class are exact about arrays), so that reading one's class needs
    /// no test of the layout word's form (`emit.rs`, `Form`). Only values
    /// so defined: a value merely checked (`checkcast`) on one path may
    /// reach another unchecked.
    pub(super) instances: std::collections::HashSet<Value>,
    /// Values that are arrays of a known element form wherever they are
    /// used (`true`: primitive elements; `false`: references): reads of
    /// parameters (never stored into) and fields whose declared type is an
    /// array type, and
    /// `newarray`/`anewarray`'s results, as the verifier types them, so
    /// that `arraylength` reads the length where that form keeps it
    /// (`emit.rs`, `array_length`) with no layout-word load first.
    pub(super) known_arrays: HashMap<Value, bool>,
    /// Reference values' declared types wherever they are used
    /// (`declared.rs`).
    pub(super) declared: HashMap<Value, super::declared::Declared>,
    /// Blocks sealed before the end (`seal_since`, `continue_from`).
    sealed: std::collections::HashSet<Block>,
    /// The callers of the inlined callee being translated, outermost
    /// (the compiled method) first.
    outer: Vec<Outer>,
    /// The slot-stack bytes past the compiled method's frame pointer its
    /// frame and its inlined callees' frames reach.
    extent: i64,
    /// The `iconst` of `extent` in the prologue's stack check, set once
    /// every callee is inlined.
    extent_inst: Option<ir::Inst>,
    /// Whether this is the method's own entry (not an on-stack-replacement
    /// entry): then a statically bound call of the method itself is a
    /// direct call to the start of this function (`call_self`).
    own_entry: bool,
    /// The import of this function itself, once declared.
    self_ref: Option<FuncRef>,
    /// The calls to inline (`inlining.rs`).
    plan: super::inlining::Plan,
    /// Calls inlined so far.
    inlined_calls: usize,
    /// Of them, implementations inlined behind a guard (one per guard).
    guarded_calls: usize,
    /// Lock coarsening in the compiled method (`coarsen.rs`), when it
    /// has a coarsenable `monitorexit`.
    coarsening: Option<super::coarsen::Coarsening>,
    /// A leaf entry (`is_leaf`): its entry stores only the header's
    /// `caller` (so that the parameter is not kept live through the
    /// function for the safepoints), and every safepoint stores the
    /// method and `COMPILED`.
    leaf: bool,
    /// Whether the entry is to be a leaf entry if the method allows
    /// (`is_leaf`).
    try_leaf: bool,
    /// A call was made from an instruction of the compiled method and of
    /// every inlined callee on the way that does not only throw: the
    /// method is not a leaf.
    hot_call: bool,
    /// A new array whose elements its coupled copy writes (`fill.rs`).
    pub(super) unzeroed: Option<super::fill::Unzeroed>,
    /// Whether calls may be inlined (`translate`'s `inline`).
    inline: bool,
}

/// The largest method, in bytecode bytes, whose entry may be a leaf entry
/// (`Translator::is_leaf`), which leaves out the native stack check: its
/// native frame, with at most
/// [`INLINE_BUDGET_BYTES`](super::inlining::INLINE_BUDGET_BYTES) inlined, holds a few
/// kilobytes of spill slots at most and stays far inside the margin
/// `frame::native_limit_below` keeps for the frames between two checks
/// (its caller checked at its own entry).
pub const LEAF_MAX_BYTES: usize = 200;

/// The signature of an on-stack-replacement entry: `(fp) -> (value,
/// status)`, SystemV, the thread block in the pinned register. `fp` is the
/// header of the interpreter's frame the code continues; status
/// [`OSR_NOT_ENTERED`](super::frame::OSR_NOT_ENTERED) says the stack
/// checks failed before anything ran.
pub fn osr_signature(m: &Method) -> Signature {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.push(AbiParam::new(I64));
    sig.returns.push(AbiParam::new(ret_type(m)));
    sig.returns.push(AbiParam::new(I64));
    sig
}

/// A translated method.
pub struct Translated {
    /// The function.
    pub func: Function,
    /// Calls inlined into it.
    pub inlined: usize,
    /// Of them, implementations of virtual and interface calls inlined
    /// behind a guard (one per guard).
    pub guarded: usize,
    /// Call targets the inlining policy left calls for being cold.
    pub cold: usize,
    /// `monitorexit`s whose release it may defer (`coarsen.rs`).
    pub coarsened: usize,
    /// Fields it keeps in variables across a coarsened lock
    /// (`promote.rs`).
    pub promoted: usize,
    /// The slot-stack bytes past its frame pointer that its frame and its
    /// inlined callees' frames reach (an on-stack-replacement entry's
    /// caller checks them before entering).
    pub extent: usize,
}

/// Translates `m` into a Cranelift function: its entry (`osr` `None`,
/// named `(0, m.id)`, signature [`java_signature`]), or the
/// on-stack-replacement entry at instruction `osr` (named `(3, m.id)`,
/// signature [`osr_signature`]): it continues an interpreted frame of `m`
/// at that instruction, a backward branch's target with an empty operand
/// stack, from the frame's locals (`prologue_osr`).
///
/// A small method's entry is first translated as a leaf entry
/// (`Translator::is_leaf`); when the translation makes a call on a path
/// that does not only throw (a callee it did not inline), it is
/// translated again with the ordinary entry.
///
/// `inline` false translates every call as a call (the JIT's quick first
/// tier, `mod.rs`): the function is the method's own bytecode only, and
/// its compilation takes a fraction of the inlined one's time.
pub fn translate(
    env: &CompileEnv,
    m: &'static Method,
    d: &'static Decoded,
    osr: Option<usize>,
    inline: bool,
    fctx: &mut FunctionBuilderContext,
    frontend: cranelift_codegen::isa::TargetFrontendConfig,
) -> Result<Translated, Unsupported> {
    if osr.is_none() && inline && leaf_candidate(m, d) {
        // A context of its own: a dropped translation leaves a builder
        // context in the state it had, which the next one cannot reuse.
        let mut leaf_fctx = FunctionBuilderContext::new();
        if let Some(t) = translate_as(env, m, d, osr, inline, &mut leaf_fctx, frontend, true)? {
            return Ok(t);
        }
    }
    Ok(translate_as(env, m, d, osr, inline, fctx, frontend, false)?
        .expect("an ordinary entry is always kept"))
}

/// Whether `m` may have a leaf entry: at most [`LEAF_MAX_BYTES`] of
/// bytecode, not synchronized, no monitor instruction, and every call
/// one the translator may inline (statically bound, or virtual, which
/// class-hierarchy analysis may bind) or on a path that only throws.
/// Whether the calls are inlined is known only once translated.
fn leaf_candidate(m: &'static Method, d: &'static Decoded) -> bool {
    let small = m.code.as_ref().is_some_and(|c| c.code.len() <= LEAF_MAX_BYTES);
    if !small || m.is_synchronized() {
        return false;
    }
    let Ok(ops) = super::ops::ops_of(m, d) else {
        return false;
    };
    let cold = super::cold::throw_only(&ops, &d.switches);
    ops.iter().enumerate().all(|(i, op)| match *op {
        Op::MonitorEnter | Op::MonitorExit => false,
        Op::Invoke(dispatch, callee) => {
            cold[i]
                || (!std::ptr::eq(callee, m)
                    && (statically_bound(dispatch, callee)
                        || matches!(dispatch, Dispatch::Virtual(_) | Dispatch::Interface(_))))
        }
        _ => true,
    })
}

/// [`translate`] with a leaf entry (`leaf`) or the ordinary one; `None`
/// when a leaf entry was asked for and the method makes a call on a path
/// that does not only throw.
#[allow(clippy::too_many_arguments)]
fn translate_as(
    env: &CompileEnv,
    m: &'static Method,
    d: &'static Decoded,
    osr: Option<usize>,
    inline: bool,
    fctx: &mut FunctionBuilderContext,
    frontend: cranelift_codegen::isa::TargetFrontendConfig,
    leaf: bool,
) -> Result<Option<Translated>, Unsupported> {
    let mut ops = super::ops::ops_of(m, d).map_err(Unsupported)?;
    if ops.is_empty() {
        return Err(Unsupported("no code".into()));
    }
    ops.shrink_to_fit();
    let kinds = super::kinds::compute(m, d, &ops).map_err(Unsupported)?;
    if let Some(at) = osr {
        match kinds.stacks.get(at) {
            Some(Some(stack)) if stack.is_empty() => {}
            Some(Some(_)) => return Err(Unsupported(format!("OSR at {at}: operands on the stack"))),
            _ => return Err(Unsupported(format!("OSR at {at}: not a reachable instruction"))),
        }
    }
    let (name, sig) = match osr {
        None => (UserFuncName::user(0, m.id), java_signature(m)),
        Some(_) => (UserFuncName::user(3, m.id), osr_signature(m)),
    };
    let mut func = Function::with_name_signature(name, sig);
    let b = FunctionBuilder::new(&mut func, fctx);
    let ml = d.max_locals as usize;
    let mut t = Translator {
        env,
        b,
        s: Scope {
            m,
            d,
            kinds,
            ml,
            frame_slots: ml + HEADER_SLOTS + d.max_stack as usize,
            vars: vec![[None; 5]; ml + d.max_stack as usize + 2],
            blocks: vec![None; ops.len()],
            ops,
            stack: Vec::new(),
            fp: Value::from_u32(0),
            dispatch: HashMap::new(),
            idx: 0,
            filled: false,
            polls: Vec::new(),
            exit: None,
            fp_offset: 0,
            receiver_fixed: false,
            array_params: Vec::new(),
            declared_params: Vec::new(),
            single_pred: Vec::new(),
            entry_facts: HashMap::new(),
            throw_only: Vec::new(),
            prediction: Default::default(),
            in_range: super::ranges::Proofs::default(),
            join_edges: Vec::new(),
            join_facts: HashMap::new(),
            loop_vars: HashMap::new(),
            live: Default::default(),
            loop_entry: HashMap::new(),
            ret_facts: None,
            loops: super::loops::Plan::default(),
            heads: HashMap::new(),
            last_cmp: None,
        },
        thread_read: None,
        imports: HashMap::new(),
        sigs: HashMap::new(),
        nonnull: std::collections::HashSet::new(),
        facts: super::facts::Facts::default(),
        known_nrefs: HashMap::new(),
        guarded_receivers: Vec::new(),
        region_ids: HashMap::new(),
        known_arrays: HashMap::new(),
        declared: HashMap::new(),
        instances: std::collections::HashSet::new(),
        sealed: std::collections::HashSet::new(),
        outer: Vec::new(),
        extent: 0,
        extent_inst: None,
        own_entry: osr.is_none(),
        self_ref: None,
        plan: super::inlining::Plan::default(),
        inlined_calls: 0,
        guarded_calls: 0,
        coarsening: None,
        leaf: false,
        try_leaf: leaf,
        hot_call: false,
        unzeroed: None,
        inline,
    };
    t.extent = ((HEADER_SLOTS + d.max_stack as usize) * 8) as i64;
    if inline {
        t.plan = super::inlining::plan(env, m, d, &t.s.ops);
    }
    t.make_blocks();
    if env.inline_locks && env.coarsen_locks {
        t.coarsening = super::coarsen::Coarsening::new(&t.s.ops, &t.s.d.handlers, &t.s.d.switches, &mut t.b);
    }
    match osr {
        None => t.prologue(),
        Some(at) => t.prologue_osr(at)?,
    }
    for i in 0..t.s.ops.len() {
        t.instruction(i)?;
    }
    if !t.s.filled {
        // Only an unreachable tail can end without a terminator.
        t.b.ins().trap(ir::TrapCode::unwrap_user(1));
    }
    t.finish_polls();
    t.finish_dispatch();
    if let Some(inst) = t.extent_inst {
        // The stack check covers the deepest inlined frame.
        t.b.func.replace(inst).iconst(I64, t.extent);
    }
    let (inlined, guarded, cold) = (t.inlined_calls, t.guarded_calls, t.plan.cold);
    let coarsened = t
        .coarsening
        .as_ref()
        .map_or(0, |c| c.plan.exits.iter().filter(|&&x| x).count());
    let promoted = t
        .coarsening
        .as_ref()
        .and_then(|c| c.promotion.as_ref())
        .map_or(0, |p| p.plan.fields.len());
    let extent = t.extent as usize;
    if t.leaf && t.hot_call {
        return Ok(None);
    }
    t.b.seal_all_blocks();
    t.b.finalize(frontend);
    super::cold::cold_blocks(&mut func);
    Ok(Some(Translated {
        func,
        inlined,
        guarded,
        cold,
        coarsened,
        promoted,
        extent,
    }))
}

impl<'e, 'f> Translator<'e, 'f> {
    // ---- structure -----------------------------------------------------------

    fn make_blocks(&mut self) {
        let n = self.s.ops.len();
        let mut leader = vec![false; n];
        // Edges into each instruction, and whether one of them is one a
        // block's facts cannot follow (entry, handler, switch, back edge).
        let mut edges_in = vec![0u32; n + 1];
        let mut no_carry = vec![false; n + 1];
        // The backward branches into each leader, and the leaders entered
        // where the translator records no facts (the entry, a handler, a
        // switch's target).
        let mut back_in = vec![0u32; n + 1];
        let mut opaque = vec![false; n + 1];
        leader[0] = true;
        no_carry[0] = true;
        opaque[0] = true;
        for h in self.s.d.handlers.iter() {
            leader[h.handler as usize] = true;
            no_carry[h.handler as usize] = true;
            opaque[h.handler as usize] = true;
        }
        for (i, op) in self.s.ops.iter().enumerate() {
            let mut targets: Vec<u32> = Vec::new();
            let falls_through = !matches!(
                op,
                Op::Goto(_) | Op::Switch(_) | Op::Return(_) | Op::AThrow | Op::Throw(_)
            );
            if falls_through {
                edges_in[i + 1] += 1;
            }
            let ends = match *op {
                Op::If(_, t) | Op::IfICmp(_, t) | Op::IfACmp(_, t) | Op::IfNull(_, t) => {
                    targets.push(t.index);
                    edges_in[t.index as usize] += 1;
                    no_carry[t.index as usize] |= t.backward;
                    back_in[t.index as usize] += u32::from(t.backward);
                    true
                }
                Op::Goto(t) => {
                    targets.push(t.index);
                    edges_in[t.index as usize] += 1;
                    no_carry[t.index as usize] |= t.backward;
                    back_in[t.index as usize] += u32::from(t.backward);
                    true
                }
                Op::Switch(k) => {
                    match &self.s.d.switches[k as usize] {
                        Switch::Table {
                            default, targets: ts, ..
                        }
                        | Switch::Lookup {
                            default, targets: ts, ..
                        } => {
                            targets.extend(ts.iter().copied());
                            targets.push(*default);
                        }
                    }
                    for &t in &targets {
                        no_carry[t as usize] = true;
                        opaque[t as usize] = true;
                    }
                    true
                }
                Op::Return(_) | Op::AThrow | Op::Throw(_) => true,
                _ => false,
            };
            for t in targets {
                leader[t as usize] = true;
            }
            if ends && i + 1 < n {
                leader[i + 1] = true;
            }
        }
        for (i, l) in leader.iter().enumerate() {
            if *l && self.s.kinds.stacks[i].is_some() {
                self.s.blocks[i] = Some(self.b.create_block());
            }
        }
        // An inlined callee's first instruction that no branch or handler
        // enters is entered by the call's jump alone: the facts at the
        // call hold there (`inline_call`).
        let only_called =
            self.s.exit.is_some() && edges_in[0] == 0 && !self.s.d.handlers.iter().any(|h| h.handler == 0);
        self.s.single_pred = (0..n)
            .map(|i| (leader[i] && !no_carry[i] && edges_in[i] == 1) || (i == 0 && only_called))
            .collect();
        self.s.join_edges = (0..n)
            .map(|i| {
                if leader[i] && !no_carry[i] && edges_in[i] >= 2 {
                    edges_in[i]
                } else {
                    0
                }
            })
            .collect();
        self.s.prediction = super::predict::Prediction::of(&self.s.ops, &self.s.d.switches);
        self.s.live =
            super::liveness::compute(&self.s.ops, &self.s.d.handlers, &self.s.d.switches, self.s.ml);
        self.s.loop_vars = super::loop_vars::plan(&self.s.ops, &self.s.d.handlers, &self.s.d.switches)
            .into_iter()
            .filter(|&(h, _)| {
                leader[h] && !opaque[h] && self.s.blocks[h].is_some() && edges_in[h] > back_in[h]
            })
            .map(|(h, locals)| (h, (edges_in[h] - back_in[h], locals)))
            .collect();
        self.s.in_range = super::ranges::in_range(&self.s.ops, &self.s.kinds, self.s.d);
        let receiver_fixed = !self.s.m.is_static() && !stores_local_0(&self.s.ops);
        self.s.array_params = array_param_forms(self.s.m, &self.s.ops);
        self.s.declared_params = declared_params(self.env, self.s.m, &self.s.ops);
        self.s.loops = super::loops::plan(
            &self.s.ops,
            &self.s.d.handlers,
            &self.s.d.switches,
            receiver_fixed,
            self.tests_gc_state(),
        );
        // Each hoisted field is named by its declaring class (its alias
        // region, `emit.rs`'s `HeapRegion`): one of the receiver's class's
        // hierarchy, which its `getfield`s resolved to.
        let class = self.s.m.class;
        self.s.loops.heads.retain(|_, hoist| {
            hoist
                .fields
                .iter()
                .all(|(f, _)| super::emit::declaring_class(class, f.off, f.kind == Kind::Ref).is_some())
        });
        for hoist in self.s.loops.heads.values_mut() {
            let Some(strip) = hoist.strip else { continue };
            if strip.short() && self.s.in_range.nonneg_operands(strip.test).0 {
                hoist.strip = None;
                hoist.unpolled = true;
            }
        }
        // A loop that may stop is planned only to go unpolled.
        self.s
            .loops
            .heads
            .retain(|_, hoist| !hoist.may_stop || hoist.unpolled);
        for strip in self.s.loops.heads.values().filter_map(|h| h.strip) {
            // The body is entered by the head's test against the strip's
            // end too: a join of two edges.
            let body = strip.test + 1;
            if self.s.single_pred[body] {
                self.s.single_pred[body] = false;
                self.s.join_edges[body] = 2;
            }
        }
    }

    /// The entry block: the frame header, the stack checks, the poll, a
    /// synchronized method's lock; then the first instruction's block.
    ///
    /// A leaf entry (`is_leaf`: a small method whose calls are all
    /// inlined or on paths that only throw) has only the slot-stack
    /// check: no native stack check, no poll, and of the header only the
    /// caller. It writes the rest at each of its safepoints instead
    /// (`spill`), which are all on cold paths, as an inlined callee's: nothing reads a compiled
    /// frame's header but the stack walks that start at a safepoint of
    /// the frame itself or of a frame it called, and every call is made
    /// from a safepoint. It needs no entry poll: a run of it between two
    /// polls is straight-line code or a loop whose back edge polls, and
    /// the method it returns to polled at its own entry; it polls before
    /// each call on its throwing paths (`invoke`) (HotSpot's C2
    /// leaves the stack bang out of small leaf methods for the same
    /// reason, and polls at returns and back edges only).
    fn prologue(&mut self) {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let params: Vec<Value> = self.b.block_params(entry).to_vec();
        let (sp, caller) = (params[0], params[1]);
        let trusted = MemFlagsData::trusted();
        let leaf = self.is_leaf();
        let stack = self.stack_here();
        // The frame's address, `sp` plus the locals' size, as an opaque
        // value: a bit-for-bit copy of the sum, which lowering makes no
        // instruction of. As the sum itself the e-graph would recompute
        // it in every block that addresses the frame (its remat of an
        // addition with a constant), each copy reading `sp` from the
        // entry, so `sp` lived through the function beside the frame's
        // address wherever that was kept (and the constant too, but for
        // `fastpath_cranelift::compile`'s pass); the copy is one value
        // from the entry on.
        // Against the sum, both with the constants made local, Callgrind
        // per iteration: Bounce -4.3 %, Queens -1.3 %, LruCache -0.9 %,
        // Towers -0.5 %.
        let sum = self.b.ins().iadd_imm_s(sp, (self.s.ml * 8) as i64);
        self.s.fp = self.b.ins().bitcast(I64, MemFlagsData::new(), sum);
        let extent = self.b.ins().iconst(I64, self.extent);
        self.extent_inst = self.b.func.dfg.value_def(extent).inst();
        let end = self.b.ins().iadd(self.s.fp, extent);
        let limit = self.b.ins().load(I64, trusted, stack, off::STACK_LIMIT);
        let overflow = self.b.create_block();
        let setup = self.b.create_block();
        if leaf {
            let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, limit);
            self.b.ins().brif(over, overflow, &[], setup, &[]);
        } else {
            let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, limit);
            let native = self.b.create_block();
            self.b.ins().brif(over, overflow, &[], native, &[]);
            self.b.switch_to_block(native);
            let nsp = self.b.ins().get_stack_pointer(I64);
            let nlimit = self.b.ins().load(I64, trusted, stack, off::STACK_NATIVE_LIMIT);
            let deep = self.b.ins().icmp(IntCC::UnsignedLessThan, nsp, nlimit);
            self.b.ins().brif(deep, overflow, &[], setup, &[]);
        }

        self.b.set_cold_block(overflow);
        self.b.switch_to_block(overflow);
        let untagged = self.b.ins().band_imm_s(caller, !1i64);
        self.call_helper(Helper::ThrowStackOverflow, &[untagged, sp]);
        self.return_thrown();

        self.b.switch_to_block(setup);
        // The header (a leaf's safepoints write its method and flags), known
        // to the safepoints after it (`facts.rs`, `frame_words`).
        let mut words = std::mem::take(&mut self.facts().frame_words);
        let frame = (self.s.fp, self.s.fp_offset);
        let caller_word = super::facts::FrameWord::Value(caller);
        store_word(
            &mut self.b,
            &mut words,
            frame,
            off::FRAME_CALLER,
            caller_word,
            Some(caller),
        );
        if leaf {
            self.leaf = true;
        } else {
            write_method_and_flags(&mut self.b, &mut words, frame, self.s.m);
        }
        self.facts().frame_words = words;
        if self.s.m.is_synchronized() {
            // The root scanner reads a synchronized frame's `sync_obj`
            // from its first safepoint on, the entry poll below, which
            // comes before the lock: it must hold no stale slot bits
            // (a previous frame's) by then.
            let zero = self.b.ins().iconst(I64, 0);
            self.b.ins().store(trusted, zero, self.s.fp, off::FRAME_SYNC_OBJ);
        }
        // The arguments are locals 0..
        let mut n = 0usize;
        let mut p = 2;
        if !self.s.m.is_static() {
            self.def_local(0, K::R, params[p]);
            if self.s.m.class.super_class.is_some() {
                // The receiver of a method of a class other than `Object`
                // (or of an interface, which no array implements).
                self.instances.insert(params[p]);
            }
            self.s.receiver_fixed = !stores_local_0(&self.s.ops);
            p += 1;
            n = 1;
        }
        for t in &self.s.m.desc.params {
            let k = K::of_type(t);
            self.def_local(n, k, params[p]);
            if let crate::classfile::FieldType::Object(name) = t {
                if self.names_instance_class(name) {
                    self.instances.insert(params[p]);
                }
            }
            p += 1;
            n += k.slots();
        }
        // The entry poll (the interpreter's, at a frame's entry), reported
        // at the first instruction, whose map holds the arguments.
        if !leaf {
            self.poll(0);
        }
        if self.s.m.is_synchronized() {
            self.lock_method();
        }
        self.coarsening_entry();
        let first = self.s.blocks[0].expect("instruction 0 is reachable");
        // The caller's facts, into a first block nothing else enters.
        self.record_edge_facts(0);
        self.b.ins().jump(first, &[]);
        self.s.filled = true;
    }

    /// Whether the method's entry is a leaf entry (`prologue`): asked for
    /// by [`translate`], which checked [`leaf_candidate`] and drops the
    /// translation if a call it makes turns out not to be on a path that
    /// only throws (`hot_call`). A leaf's only safepoints are then on
    /// cold paths (the back edges' polls, allocation's and the barriers'
    /// slow paths, the throws and the calls that build what they throw).
    fn is_leaf(&mut self) -> bool {
        self.try_leaf && self.own_entry
    }

    /// Records a call made here (`hot_call`) unless the instruction, or
    /// the call of an inlined callee it is in, only throws.
    fn note_call(&mut self) {
        let cold_here = |s: &Scope| s.throw_only.get(s.idx).copied().unwrap_or(false);
        if !cold_here(&self.s) && !self.outer.iter().any(|o| cold_here(&o.scope)) {
            self.hot_call = true;
        }
    }

    /// The entry block of an on-stack-replacement entry at instruction
    /// `at`: the stack checks (on failure, status `OSR_NOT_ENTERED`:
    /// nothing ran, the interpreter goes on), then every local live at
    /// `at`, by its kind there, loaded from the interpreter's frame at
    /// `fp`, and a jump to `at`'s block. The interpreter has made the
    /// frame compiled (flags, tagged caller, position) and keeps a
    /// synchronized method's lock, in the header's `sync_obj`, which the
    /// compiled method releases on its way out as its own; monitors the
    /// frame's `monitorenter`s hold stay held (compiled `monitorexit`s
    /// release them as the interpreter's would: both use the same header
    /// and lock-stack, and neither pins per lock). No entry poll: the interpreter polled at
    /// the back edge that led here.
    fn prologue_osr(&mut self, at: usize) -> Result<(), Unsupported> {
        let target =
            self.s.blocks[at].ok_or_else(|| Unsupported(format!("OSR at {at}: not a branch target")))?;
        // The entry's jump is one more edge into `at`: no facts flow there.
        self.s.single_pred[at] = false;
        self.s.join_edges[at] = 0;
        self.s.loop_vars.remove(&at);
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let fp = self.b.block_params(entry)[0];
        let trusted = MemFlagsData::trusted();
        let stack = self.stack_here();
        self.s.fp = fp;
        let extent = self.b.ins().iconst(I64, self.extent);
        self.extent_inst = self.b.func.dfg.value_def(extent).inst();
        let end = self.b.ins().iadd(fp, extent);
        let limit = self.b.ins().load(I64, trusted, stack, off::STACK_LIMIT);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, limit);
        let (refuse, native, setup) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(over, refuse, &[], native, &[]);
        self.b.switch_to_block(native);
        let nsp = self.b.ins().get_stack_pointer(I64);
        let nlimit = self.b.ins().load(I64, trusted, stack, off::STACK_NATIVE_LIMIT);
        let deep = self.b.ins().icmp(IntCC::UnsignedLessThan, nsp, nlimit);
        self.b.ins().brif(deep, refuse, &[], setup, &[]);

        self.b.set_cold_block(refuse);
        self.b.switch_to_block(refuse);
        let rt = ret_type(self.s.m);
        let z = self.zero(rt);
        let status = self.b.ins().iconst(I64, super::frame::OSR_NOT_ENTERED as i64);
        self.b.ins().return_(&[z, status]);

        self.b.switch_to_block(setup);
        let locals = self.s.kinds.locals[at]
            .clone()
            .expect("a reachable instruction has a state");
        for (n, &k) in locals.iter().enumerate() {
            if matches!(k, K::Hi | K::X) {
                continue;
            }
            // Slots hold ints sign-extended, floats as their bits in the
            // low half, longs and doubles whole in their low slot
            // (little-endian: the value's type loads from the slot).
            let offset = (n as i64 - self.s.ml as i64) * 8;
            let v = self.b.ins().load(ty(k), trusted, fp, offset as i32);
            self.def_local(n, k, v);
        }
        self.s.receiver_fixed = !self.s.m.is_static() && !stores_local_0(&self.s.ops);
        self.coarsening_entry();
        self.b.ins().jump(target, &[]);
        self.s.filled = true;
        Ok(())
    }

    /// A synchronized method's lock: the receiver or the class mirror,
    /// kept in the header's `sync_obj` (a root) until the method ends.
    fn lock_method(&mut self) {
        let trusted = MemFlagsData::trusted();
        let obj = if self.s.m.is_static() {
            let class = self.b.ins().iconst(I64, self.s.m.class as *const _ as i64);
            let sp = self.safepoint(0, None);
            let r = self.call_helper(Helper::Mirror, &[class]).expect("a result");
            self.reload(sp);
            // An exception while entering is at no instruction: no handler.
            let ok = self.b.create_block();
            let fail = self.b.create_block();
            self.b.ins().brif(r, ok, &[], fail, &[]);
            self.b.set_cold_block(fail);
            self.b.switch_to_block(fail);
            self.return_thrown();
            self.b.switch_to_block(ok);
            r
        } else {
            self.use_local(0, K::R)
        };
        self.b.ins().store(trusted, obj, self.s.fp, off::FRAME_SYNC_OBJ);
        // A root from here on (the slow path's safepoint publishes it).
        self.monitor_enter_obj(obj, 0);
    }

    /// Unlocks a synchronized method's lock (before a return or an
    /// exception's way out); the object is reloaded from the header.
    fn unlock_method(&mut self) {
        let obj = self
            .b
            .ins()
            .load(I64, MemFlagsData::trusted(), self.s.fp, off::FRAME_SYNC_OBJ);
        self.monitor_exit_obj(obj, false);
    }

    // ---- variables and the operand stack ----------------------------------------

    fn var(&mut self, slot: usize, k: K) -> Variable {
        var_in(&mut self.b, &mut self.s.vars, slot, k)
    }

    pub(super) fn def_local(&mut self, n: usize, k: K, v: Value) {
        let var = self.var(n, k);
        self.def_frame_var(var, v);
    }

    pub(super) fn use_local(&mut self, n: usize, k: K) -> Value {
        let var = self.var(n, k);
        self.use_frame_var(var)
    }

    /// Defines frame variable `var` (a local or an operand-stack slot):
    /// what the facts knew of it goes, and the declared type of `v`, if
    /// it has one, becomes the variable's (so that a join every edge of
    /// which brings a value of that type has it too).
    fn def_frame_var(&mut self, var: Variable, v: Value) {
        let declared = self.declared.get(&self.key(v)).copied();
        let f = self.facts();
        f.redefine(var);
        if let Some(d) = declared {
            f.set_declared_var(var, d);
        }
        self.b.def_var(var, v);
    }

    /// Reads frame variable `var`; what the facts know of the variable
    /// (`BlockFacts::nonnull_vars`, `length_vars`, `declared_vars`)
    /// becomes known of the value read.
    fn use_frame_var(&mut self, var: Variable) -> Value {
        let v = self.b.use_var(var);
        let f = self.facts();
        if f.nonnull_vars.is_empty() && f.length_vars.is_empty() && f.declared_vars.is_empty() {
            return v;
        }
        let key = self.key(v);
        let f = self.facts();
        if f.nonnull_var(var) {
            f.nonnull.insert(key);
        }
        if let Some(len) = f.length_var(var) {
            f.lengths.insert(key, len);
        }
        if let Some(d) = f.declared_var(var) {
            if !self.guarded_receivers.contains(&key) {
                self.declared.entry(key).or_insert(d);
            }
        }
        v
    }

    /// The value in operand-stack slot `pos` (0: the bottom), of kind `k`.
    pub(super) fn stack_slot(&mut self, pos: usize, k: K) -> Value {
        self.use_local(self.s.ml + pos, k)
    }

    /// The compiled method's lock coarsening, while its own instructions
    /// are translated (an inlined callee's are not planned).
    pub(super) fn coarsening(&self) -> Option<&super::coarsen::Coarsening> {
        self.coarsening.as_ref().filter(|_| self.outer.is_empty())
    }

    // ---- facts ------------------------------------------------------------------

    /// The facts holding at the current point (`facts.rs`).
    pub(super) fn facts(&mut self) -> &mut super::facts::BlockFacts {
        let block = self.b.current_block().expect("translating into a block");
        self.facts.at(block)
    }

    /// `v` with its aliases resolved: the key of a fact about it.
    pub(super) fn key(&self, v: Value) -> Value {
        self.b.func.dfg.resolve_aliases(v)
    }

    /// Seals the current block, entered only from the region `from`
    /// starts (a check's continuation, a barrier's join), and carries
    /// `from`'s facts into it (`Facts::carry` says when that holds).
    /// Nothing when no block was started since `from` (which may still
    /// gain predecessors: it is left unsealed).
    pub(super) fn continue_from(&mut self, from: Block) {
        let to = self.b.current_block().expect("translating into a block");
        if to == from {
            return;
        }
        self.seal(to);
        self.facts.carry(from, to);
    }

    /// The facts of `block` (another than the current one).
    pub(super) fn facts_of(&mut self, block: Block) -> &mut super::facts::BlockFacts {
        self.facts.at(block)
    }

    /// Sets the facts holding on entry to `block` (`Facts::set`).
    pub(super) fn set_facts(&mut self, block: Block, f: super::facts::BlockFacts) {
        self.facts.set(block, f);
    }

    /// The facts at a branch to a cold path that stops for the collector
    /// (an allocation's or a monitor's runtime call, a poll's stop), for
    /// [`Self::stop_join`]: they hold on entry to the cold block too,
    /// which `cold` is given, so that its safepoint carries them through
    /// the stop (`spill`, `reload`).
    pub(super) fn stop_branch(&mut self, cold: Block) -> super::facts::BlockFacts {
        let before = self.facts().clone();
        self.facts.set(cold, before.clone());
        before
    }

    /// The facts on entry to `join`, where the hot path from a branch
    /// whose facts were `before` ([`Self::stop_branch`]), which defines no
    /// frame variable and neither calls nor stops, meets the cold path
    /// ending in `cold_end`, which stopped and reloaded the frame's
    /// references: the value facts of the branch (pure ones: a value's
    /// nullness, an array's length and an index's bounds do not change
    /// across the stop; the memory facts go, the cold path called), and
    /// what the cold end knows of a variable (its reload's facts, given
    /// the variable also on the hot path: the spill read them from the
    /// branch's facts), which a read of the variable at the join turns
    /// into facts of the value it reads; and the `shared` pairs
    /// ([`Self::reload_sharing`]'s, none for a plain reload), one value
    /// again. Called on the join, both its edges in; returns `shared`.
    pub(super) fn stop_join(
        &mut self,
        mut before: super::facts::BlockFacts,
        cold_end: Block,
        shared: Vec<(Variable, Variable)>,
        join: Block,
    ) -> Vec<(Variable, Variable)> {
        debug_assert_eq!(self.b.current_block(), Some(join), "stop_join starts the join");
        before.forget_memory();
        let f = self.facts.at(cold_end);
        before.adopt_frame_var_facts(f);
        // A frame word holds its value at the join if it does on both
        // ways: the cold path's stop kept only some (`reload_as`).
        before.frame_words.retain(|o, w| f.frame_words.get(o) == Some(w));
        self.facts.set(join, before);
        // Every edge into the join is there: sealed, a read of a variable
        // is the value every edge brings or the one parameter for them.
        self.seal(join);
        // Variables that held one reference at the branch (the spill read
        // them there) hold one value on each edge: the hot path defines
        // none, the cold end reloaded them as one. One parameter for them
        // all, where each would get its own (javac's copy of a
        // `synchronized` block's lock beside the local it came from, a
        // `dup`ed reference): one value fewer live after the join.
        self.share_values(&shared);
        shared
    }

    /// Gives each `(leader, member)` pair's member the leader's value in
    /// the current block, a join every edge of which brings one value for
    /// both (the caller's proof): the frontend would give each variable
    /// its own block parameter, two values live where one is.
    pub(super) fn share_values(&mut self, pairs: &[(Variable, Variable)]) {
        for &(leader, member) in pairs {
            let v = self.use_frame_var(leader);
            self.def_frame_var(member, v);
            self.facts().copy_var(leader, member);
        }
    }

    /// Seals the blocks created since the function had `first` of them:
    /// an emitter's region (a barrier's cold paths and join), which it
    /// left filled and which nothing outside it enters. Sealed at once,
    /// a join that every path reaches with a variable's same value reads
    /// that value, not a block parameter (no copies on its edges, and the
    /// facts about the value hold there).
    pub(super) fn seal_since(&mut self, first: usize) {
        let now = self.b.func.dfg.num_blocks();
        for i in first..now {
            self.seal(Block::from_u32(i as u32));
        }
    }

    /// Seals `block` unless it is already.
    pub(super) fn seal(&mut self, block: Block) {
        if self.sealed.insert(block) {
            self.b.seal_block(block);
        }
    }

    /// The number of blocks created so far (for [`Self::seal_since`]).
    pub(super) fn blocks_so_far(&self) -> usize {
        self.b.func.dfg.num_blocks()
    }

    /// The current block.
    pub(super) fn here(&self) -> Block {
        self.b.current_block().expect("translating into a block")
    }

    /// Pushes `v` of kind `k`.
    pub(super) fn push(&mut self, k: K, v: Value) {
        let pos = self.s.stack.len();
        let var = self.var(self.s.ml + pos, k);
        self.def_frame_var(var, v);
        self.s.stack.push(k);
        if k.slots() == 2 {
            self.s.stack.push(K::Hi);
        }
    }

    /// Pops a value (a whole long or double).
    pub(super) fn pop(&mut self) -> (K, Value) {
        let mut k = self.s.stack.pop().expect("the analysis bounded the stack");
        if k == K::Hi {
            k = self.s.stack.pop().expect("a wide value's low slot");
        }
        let pos = self.s.stack.len();
        let var = self.var(self.s.ml + pos, k);
        (k, self.use_frame_var(var))
    }

    pub(super) fn pop_v(&mut self) -> Value {
        self.pop().1
    }

    /// Copies stack slot `from` to slot `to` (a wide value moves by its
    /// low slot; its high slot carries nothing).
    fn copy_slot(&mut self, from: usize, to: usize, kinds: &[K]) {
        let k = kinds[from];
        if k == K::Hi || k == K::X {
            return;
        }
        let fv = self.var(self.s.ml + from, k);
        let v = self.b.use_var(fv);
        let tv = self.var(self.s.ml + to, k);
        self.def_frame_var(tv, v);
        // The same value: what is known of `from` is known of `to`.
        self.facts().copy_var(fv, tv);
    }

    // ---- imports ----------------------------------------------------------------

    fn import(&mut self, index: u32, params: &[Type], returns: &[Type], conv: CallConv) -> FuncRef {
        if let Some(f) = self.imports.get(&index) {
            return *f;
        }
        let mut sig = Signature::new(conv);
        sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        sig.returns.extend(returns.iter().map(|&t| AbiParam::new(t)));
        let sigref = self.b.import_signature(sig);
        let name = self
            .b
            .func
            .declare_imported_user_function(UserExternalName { namespace: 1, index });
        let f = self.b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature: sigref,
            colocated: false,
            patchable: false,
        });
        self.imports.insert(index, f);
        f
    }

    /// The import of a helper.
    pub(super) fn helper_ref(&mut self, h: Helper) -> FuncRef {
        let conv = h.call_conv(self.env.inline_locks);
        let (p, r) = h.import_signature(conv);
        self.import(h.index(), &p, &r, conv)
    }

    /// Calls `h`, the context first when it takes one; its first result.
    pub(super) fn call_helper(&mut self, h: Helper, args: &[Value]) -> Option<Value> {
        self.call_helper_all(h, args).first().copied()
    }

    /// Calls `h`; all its results.
    pub(super) fn call_helper_all(&mut self, h: Helper, args: &[Value]) -> Vec<Value> {
        self.facts().forget_memory();
        let f = self.helper_ref(h);
        let takes_ctx = !matches!(
            h,
            Helper::IsSubclass | Helper::Itable | Helper::Drem | Helper::Frem
        );
        let mut all = Vec::with_capacity(args.len() + 1);
        if takes_ctx {
            let ctx = self.ctx_here();
            all.push(ctx);
        }
        all.extend_from_slice(args);
        // A `preserve_all` helper's results come back through memory.
        fastpath_cranelift::call_slow(&mut self.b, f, &all, h.signature().1)
    }

    /// A library slow path's import (the fast paths' uncommon case).
    pub(super) fn library_ref(&mut self, path: fastpath_jit::slow::LibraryPath) -> FuncRef {
        let index = super::helpers::LIBRARY_BASE + super::library_index(path);
        if let Some(f) = self.imports.get(&index) {
            return *f;
        }
        let f = fastpath_cranelift::import_library_slow_path(&mut self.b, index, path, false);
        self.imports.insert(index, f);
        f
    }

    fn java_sigref(&mut self, m: &'static Method) -> SigRef {
        let key = shape_key(m);
        if let Some(s) = self.sigs.get(&key) {
            return *s;
        }
        let s = self.b.import_signature(java_signature(m));
        self.sigs.insert(key, s);
        s
    }

    // ---- the context ---------------------------------------------------------------

    /// The thread block: the pinned register, which holds it for the whole
    /// of compiled code (HotSpot's r15), so the hot paths that address it
    /// (the load-reference barrier's GC-state test, the back-edge poll,
    /// allocation, the lock-stack) neither keep it in one of the four
    /// callee-saved registers nor reload it from a spill slot. Cranelift
    /// copies the register into a value at each read (`get_pinned_reg`
    /// has side effects, so no two reads are one value), and redundant
    /// load elimination only sees two loads as one through one base
    /// value: one read serves a whole block. Against the block's pointer
    /// loaded once at entry and kept in a value (wall, 7 interleaved
    /// rounds of 20 iterations, Xeon 167): LruCache −10 %, Towers −4 %,
    /// GcLruCache −2.7 %, GcStrings −2.1 %, DeltaBlue equal; Callgrind
    /// counts 0.2–2 % more instructions (the copies, where a spilled
    /// pointer cost a load), reading the register at every use 2–13 %.
    pub(super) fn thread_here(&mut self) -> Value {
        let here = self.b.current_block().expect("translating in a block");
        if let Some((block, v)) = self.thread_read {
            if block == here {
                return v;
            }
        }
        let v = self.b.ins().get_pinned_reg(I64);
        self.thread_read = Some((here, v));
        v
    }

    /// The slot stack: the thread block's runtime context word
    /// (`fastpath::thread::RUNTIME_CONTEXT_OFFSET`), one load, which the
    /// entry from Rust set (`entry.rs`) and which no compiled code
    /// writes. It is not kept live across the function: at a call every
    /// register but the callee-saved ones is lost, and a loop around a
    /// call keeps its own values in those.
    fn stack_here(&mut self) -> Value {
        let thread = self.thread_here();
        let readonly = MemFlagsData::trusted().with_readonly();
        self.b.ins().load(
            I64,
            readonly,
            thread,
            fastpath::thread::RUNTIME_CONTEXT_OFFSET as i32,
        )
    }

    /// The context the runtime's helpers take ([`super::frame::JitCtx`],
    /// inside the slot stack): used on cold paths (helper calls, exception
    /// dispatch), where its load and add cost nothing that matters.
    pub(super) fn ctx_here(&mut self) -> Value {
        let stack = self.stack_here();
        self.b.ins().iadd_imm_s(stack, off::STACK_CTX as i64)
    }

    // ---- safepoints ---------------------------------------------------------------

    /// Publishes the frame at instruction `idx` and stores the references
    /// its map names: all of them, or with `call_args`, all but the
    /// topmost `call_args` stack slots (a callee's arguments, which it
    /// owns). In an inlined callee, its callers' frames are written too,
    /// each at its call with the callee owning the arguments, and the
    /// inlined frames' headers (written only here: an inlined frame exists
    /// on the slot stack only while it is published). Returns what to
    /// reload after the call.
    pub(super) fn safepoint(&mut self, idx: usize, call_args: Option<usize>) -> Spilled {
        let spilled = self.spill(idx, call_args);
        self.publish();
        spilled
    }

    /// [`Self::safepoint`] without the publication: the frames written
    /// for a call whose callee is compiled code. The callee publishes its
    /// own frame, whose header names this one as its caller, at each of
    /// its safepoints, and that is the only place the thread's stack is
    /// walked from while it runs (a stack overflow in its prologue
    /// publishes its caller itself, `throw_stack_overflow`). Once it has
    /// returned, the published frame is stale until this method's next
    /// safepoint publishes again, and nothing reads it before then: the
    /// code between calls only calls helpers that do not walk the stack.
    pub(super) fn spill(&mut self, idx: usize, call_args: Option<usize>) -> Spilled {
        self.spill_as(idx, call_args, false)
    }

    /// [`Self::safepoint`] for a throw whose exception leaves the compiled
    /// method ([`Self::exception_leaves`]): the frames' headers and
    /// positions, with `UNWINDING` (`frame.rs`), and no reference, as
    /// nothing of theirs is read again; nothing to reload.
    fn safepoint_unwinding(&mut self, idx: usize) {
        let spilled = self.spill_as(idx, None, true);
        debug_assert!(spilled.0.is_empty(), "an unwinding stop stores no reference");
        self.publish();
    }

    fn spill_as(&mut self, idx: usize, call_args: Option<usize>, unwinding: bool) -> Spilled {
        // An object this method allocated that no other code can reach
        // (`NullFields::unreachable`: no reference it does not track went
        // into the heap since) keeps its null fields through a call passed
        // no reference: nothing but this method can write them, and the
        // collector, which may move the object, keeps a null null. Each
        // value it is reloaded as inherits them (`reload`). SATB needs the
        // pre-barrier only for the value a field held when marking began,
        // here at a stop inside the call: null.
        let null_fields = std::mem::take(&mut self.facts().null_fields);
        // The collector may move objects here: every loaded reference is
        // reloaded from the frame after the call.
        self.facts().forget_memory();
        // The words the frames hold already are not stored again; until
        // the reload says which survive the call, none is known.
        let mut words = std::mem::take(&mut self.facts().frame_words);
        let mut out = Vec::new();
        if self.leaf {
            let root = self.outer.first().map_or(&self.s, |o| &o.scope);
            let (fp, fp_offset, m) = (root.fp, root.fp_offset, root.m);
            write_method_and_flags(&mut self.b, &mut words, (fp, fp_offset), m);
        }
        for k in 0..self.outer.len() {
            let caller = if k == 0 {
                None
            } else {
                let c = &self.outer[k - 1].scope;
                Some((c.fp, c.fp_offset))
            };
            let o = &mut self.outer[k];
            let s = &mut o.scope;
            if let Some(c) = caller {
                write_header(&mut self.b, &mut words, (s.fp, s.fp_offset), s.m, c);
            }
            spill_frame(
                &mut self.b,
                &mut words,
                &mut s.vars,
                s.d,
                &s.live,
                s.ml,
                (s.fp, s.fp_offset),
                s.idx,
                Some(o.arg_slots),
                unwinding,
                &mut out,
            );
        }
        if let Some(o) = self.outer.last() {
            let c = (o.scope.fp, o.scope.fp_offset);
            write_header(
                &mut self.b,
                &mut words,
                (self.s.fp, self.s.fp_offset),
                self.s.m,
                c,
            );
        }
        spill_frame(
            &mut self.b,
            &mut words,
            &mut self.s.vars,
            self.s.d,
            &self.s.live,
            self.s.ml,
            (self.s.fp, self.s.fp_offset),
            idx,
            call_args,
            unwinding,
            &mut out,
        );
        // The callee's arguments: the innermost frame's topmost `call_args`
        // operand slots (which spill_frame leaves to the callee). Any one
        // a reference, and it may be one of the objects under another
        // name: none keeps its null fields.
        let maps = &self.s.d.maps;
        let depth = maps.depth[idx] as usize;
        let passes_reference =
            (depth - call_args.unwrap_or(0).min(depth)..depth).any(|j| maps.stack_is_ref(idx, j));
        let mut carried = Vec::with_capacity(out.len());
        let mut first_of: HashMap<Value, usize> = HashMap::new();
        for (k, &(var, _, _, _)) in out.iter().enumerate() {
            let v = self.b.use_var(var);
            let key = self.key(v);
            let same_as = match first_of.entry(key) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(k);
                    None
                }
            };
            let null_fields = null_fields
                .get(&key)
                .filter(|f| f.unreachable && !passes_reference)
                .copied();
            let f = self.facts();
            let length = f.lengths.get(&key).copied().or_else(|| f.length_var(var));
            let nonnull = f.nonnull.contains(&key) || f.nonnull_var(var) || self.nonnull.contains(&v);
            carried.push(Carried {
                nonnull,
                length,
                instance: self.instances.contains(&key),
                nrefs: self.known_nrefs.get(&key).copied(),
                array: self.known_arrays.get(&key).copied(),
                declared: self.declared.get(&key).copied(),
                null_fields,
                same_as,
            });
        }
        Spilled(out, carried, words)
    }

    /// Publishes the innermost frame as the thread's top frame, its end as
    /// the slot stack's top: where the runtime and the collector start.
    fn publish(&mut self) {
        let trusted = MemFlagsData::trusted();
        let stack = self.stack_here();
        self.b
            .ins()
            .store(trusted, self.s.fp, stack, off::STACK_TOP_FRAME);
        let end = self
            .b
            .ins()
            .iadd_imm_s(self.s.fp, ((self.s.frame_slots - self.s.ml) * 8) as i64);
        self.b.ins().store(trusted, end, stack, off::STACK_SP);
    }

    /// Reloads what a safepoint spilled, each variable from its slot.
    pub(super) fn reload(&mut self, s: Spilled) {
        self.reload_as(s, false);
    }

    /// [`Self::reload`] with one load for the variables that held one
    /// reference (`Carried::same_as`), which then hold one value again, as
    /// they did before the stop; returns those `(leader, member)` pairs,
    /// for [`Self::stop_join`] to give them one parameter at the join, if
    /// nothing defines them between. For the stops whose join is
    /// `stop_join`'s (a `synchronized` block's lock and javac's copy of it
    /// around a loop: `emit.rs`'s monitor enter); elsewhere the shared
    /// value cost more than the load it saved (regalloc2 copied it into
    /// both variables' registers at a loop's edges: GcLruCache's inlined
    /// fill loop gained two moves an element when every reload shared).
    pub(super) fn reload_sharing(&mut self, s: Spilled) -> Vec<(Variable, Variable)> {
        self.reload_as(s, true)
    }

    fn reload_as(&mut self, s: Spilled, share: bool) -> Vec<(Variable, Variable)> {
        let trusted = MemFlagsData::trusted();
        let mut values: Vec<Value> = Vec::with_capacity(s.0.len());
        let mut aliases = Vec::new();
        for (&(var, fp, offset, _), c) in s.0.iter().zip(&s.1) {
            let v = match c.same_as.filter(|_| share) {
                Some(j) => {
                    aliases.push((s.0[j].0, var));
                    values[j]
                }
                None => self.b.ins().load(I64, trusted, fp, offset),
            };
            self.def_frame_var(var, v);
            values.push(v);
        }
        // What the frames hold now: each reloaded reference, and the
        // headers of this method's frames, which lie below every callee's
        // (a callee's frame starts at the arguments it owns, and whatever
        // the runtime ran in the call started above the published frame);
        // any other word, a callee's or the collector's, is unknown.
        let mut words = s.2;
        let frames: Vec<i64> = self
            .outer
            .iter()
            .map(|o| o.scope.fp_offset)
            .chain(std::iter::once(self.s.fp_offset))
            .collect();
        let headers = [
            off::FRAME_CALLER,
            off::FRAME_METHOD,
            off::FRAME_FLAGS,
            off::FRAME_LINK,
        ];
        words.retain(|at, _| {
            frames
                .iter()
                .any(|f| headers.iter().any(|h| f + i64::from(*h) == *at))
        });
        for (&v, &(_, _, offset, fp_offset)) in values.iter().zip(&s.0) {
            words.insert(fp_offset + i64::from(offset), super::facts::FrameWord::Value(v));
        }
        self.facts().frame_words = words;
        for ((v, c), &(var, _, _, _)) in values.into_iter().zip(s.1).zip(&s.0) {
            // Known of the value and of its variable: the join after a
            // cold stop reads the variable as a new value (`stop_join`).
            if c.nonnull {
                self.facts().nonnull.insert(v);
                self.facts().set_nonnull_var(var);
            }
            if let Some(len) = c.length {
                self.facts().lengths.insert(v, len);
                self.facts().set_length_var(var, len);
            }
            if c.instance {
                self.instances.insert(v);
            }
            if let Some(n) = c.nrefs {
                self.known_nrefs.insert(v, n);
            }
            if let Some(primitive) = c.array {
                self.known_arrays.insert(v, primitive);
            }
            if let Some(d) = c.declared {
                self.declared.insert(v, d);
                self.facts().set_declared_var(var, d);
            }
            if let Some(fields) = c.null_fields {
                self.facts().null_fields.insert(v, fields);
            }
        }
        aliases
    }

    /// A safepoint poll reported at instruction `idx`: the thread block's
    /// poll byte tested inline, the stop in a cold block.
    ///
    /// The stop's call clobbers no register (`preserve.rs`): the values live
    /// around a loop need no callee-saved register or stack slot for its
    /// sake. The references the safepoint spills are reloaded after it.
    pub(super) fn poll(&mut self, idx: usize) {
        let cont = self.b.create_block();
        // Leaves the builder on `cont`.
        self.poll_to(idx, cont, cont, true);
    }

    /// The strip-mined loop whose own test is instruction `idx`, with its
    /// strip end's variable.
    fn strip_at(&self, idx: usize) -> Option<(super::loops::Strip, Variable)> {
        self.s.loops.heads.iter().find_map(|(h, hoist)| {
            let strip = hoist.strip.filter(|s| s.test == idx)?;
            Some((strip, self.s.heads.get(h)?.2?))
        })
    }

    /// Whether the heap's barriers test the GC-state byte.
    fn tests_gc_state(&self) -> bool {
        use fastpath::gc::Barrier;
        [Barrier::Lrb, Barrier::Satb, Barrier::BrooksWb]
            .into_iter()
            .any(|b| self.env.barriers.has(b))
    }

    /// At the head `h` of a loop `loops.rs` planned, in its block (the
    /// preheader: every edge from outside the loop and every stopped poll
    /// of its back edges enters it): loads the planned values, then starts
    /// the head proper, which only the back edges' hot paths enter, with
    /// them as its facts. Local 0 is the receiver there (the loop never
    /// stores it, and its only stop, the poll, goes to the preheader).
    fn enter_loop(&mut self, h: usize) {
        let hoist = self.s.loops.heads[&h].clone();
        // A copy of an object read through its forwarding word is not
        // kept: its data address and length are facts of the resolved
        // value, which a Brooks read barrier loads anew at each use.
        let keyed = !self.has(fastpath::gc::Barrier::BrooksRb);
        let mut head_facts = super::facts::BlockFacts::default();
        let gc = hoist.gc_state.then(|| self.gc_state());
        let this = (!hoist.fields.is_empty() || hoist.receiver_data).then(|| {
            let this = self.use_local(0, K::R);
            self.nonnull.insert(this);
            this
        });
        let mut values = Vec::new();
        for (k, &(f, array)) in hoist.fields.iter().enumerate() {
            let this = this.expect("fields are the receiver's");
            let holder = super::emit::declaring_class(self.s.m.class, f.off, f.kind == Kind::Ref)
                .expect("a loop whose fields have no declaring class is not planned");
            let v = if f.kind == Kind::Ref {
                // Always through the load-reference barrier: the loop's
                // uses take it as a resolved reference.
                let offset = self.ref_field_offset(i64::from(f.off));
                let from = self.here();
                let o = self.resolve_read(this);
                let raw =
                    self.load_ref_raw(o, offset, super::emit::HeapRegion::Ref(holder, i64::from(f.off)));
                let v = self.lrb(raw, o, offset);
                self.continue_from(from);
                v
            } else {
                self.read_data(
                    this,
                    super::emit::DataField::new(holder, f.off, f.kind),
                    false,
                    None,
                )
            };
            values.push(v);
            // The field's declared array type, from any of its hoisted
            // `getfield`s (one field, one descriptor), as `getfield`
            // records it: a primitive array's data words and length lie
            // at fixed offsets.
            let form = self
                .s
                .loops
                .loads
                .iter()
                .find(|&(_, &at)| at == (h, k))
                .and_then(|(&g, _)| self.field_array_form_at(g));
            if let Some(primitive) = form {
                let key = self.key(v);
                self.known_arrays.insert(key, primitive);
            }
            if array && keyed {
                // The array's data address and length, where it is one
                // (the loop's own null check of it comes first at each
                // use, so the zeros are never read).
                let (nn, join) = (self.b.create_block(), self.b.create_block());
                let d = self.b.append_block_param(join, I64);
                let len = self.b.append_block_param(join, I32);
                let (z64, z32) = (self.b.ins().iconst(I64, 0), self.b.ins().iconst(I32, 0));
                let t = self.null_test(v);
                self.b.ins().brif(t, nn, &[], join, &[z64.into(), z32.into()]);
                self.b.switch_to_block(nn);
                self.seal(nn);
                let data = self.array_data(v);
                let length = self.array_length(v);
                self.b.ins().jump(join, &[data.into(), length.into()]);
                self.b.switch_to_block(join);
                self.seal(join);
                let k = self.key(v);
                head_facts.data.insert(k, d);
                head_facts.lengths.insert(k, len);
            }
        }
        if let (Some(this), true, true) = (this, hoist.receiver_data, keyed) {
            let d = self.instance_data(this);
            head_facts.data.insert(self.key(this), d);
        }
        head_facts.gc_state = gc;
        // The loop's locals that entered non-null stay so at the head
        // proper too: its back edges keep them (`loop_vars.rs`), and a
        // stop's way back goes through here.
        head_facts.nonnull_vars = self.facts().nonnull_vars.clone();
        head_facts.declared_vars = self.facts().declared_vars.clone();
        head_facts.frame_words = self.loop_header_words();
        // A strip-mined loop's first strip ends at once: its first
        // iteration runs the loop's own test, which sets the end.
        let strip_end = hoist.strip.map(|_| {
            let var = self.b.declare_var(I32);
            let min = self.b.ins().iconst(I32, i64::from(i32::MIN));
            self.b.def_var(var, min);
            var
        });
        let head = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        if let Some(this) = this {
            self.def_local(0, K::R, this);
        }
        self.facts.set(head, head_facts);
        self.s.heads.insert(h, (head, values, strip_end));
        if let (Some(strip), Some(var)) = (hoist.strip, strip_end) {
            self.strip_head(h, strip, var);
        }
    }

    /// The head of a strip-mined loop (`loops.rs`, `Strip`), in the head
    /// proper: the index below the strip's end goes straight to the body;
    /// otherwise the loop polls (after a stop: the preheader) and goes on
    /// in a block where the head's own instructions are translated, the
    /// test included (`strip_test`).
    fn strip_head(&mut self, h: usize, strip: super::loops::Strip, var: Variable) {
        let body = self.s.blocks[strip.test + 1].expect("the instruction after a branch is a leader");
        let i = self.use_local(strip.index as usize, K::I);
        let end = self.b.use_var(var);
        let past = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, i, end);
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        // `i < end <= bound`: the loop's test holds, and where the bound
        // is an array's length the index is below it (`bounded.rs`).
        // The array is not null there either: a strip ends at once
        // (`MIN`) until the loop's own test passed, its null check
        // included, and the preheader starts a new one after each stop.
        let pair = self.strip_pair(strip, i);
        let added = pair.is_some_and(|(_, p)| self.facts().in_bounds.insert(p));
        let checked = pair.is_some_and(|(a, _)| self.facts().nonnull.insert(a));
        self.record_edge_facts(strip.test + 1);
        if let Some((a, p)) = pair {
            if added {
                self.facts().in_bounds.remove(&p);
            }
            if checked {
                self.facts().nonnull.remove(&a);
            }
        }
        let head = self.here();
        self.b.ins().brif(past, slow, &[], body, &[]);
        self.b.switch_to_block(slow);
        self.seal(slow);
        self.facts.carry(head, slow);
        let preheader = self.s.blocks[h].expect("a loop head is a leader");
        self.poll_to(h, cont, preheader, false);
        self.b.switch_to_block(cont);
        self.seal(cont);
        // No stop on the way here: the head's facts hold.
        self.facts.carry(slow, cont);
    }

    /// At the head of a strip-mined loop whose index `i` is `>= 0` and
    /// whose bound is a hoisted field's array length (a fact of the head):
    /// the array, and the pair `(index, length)` proven below.
    fn strip_pair(&mut self, strip: super::loops::Strip, i: Value) -> Option<(Value, (Value, Value))> {
        let (index_nonneg, _) = self.s.in_range.nonneg_operands(strip.test);
        if !index_nonneg {
            return None;
        }
        let g = strip.test - 2;
        let &(h, k) = self.s.loops.loads.get(&g)?;
        let v = self.s.heads.get(&h)?.1[k];
        let key = self.key(v);
        let len = *self.facts().lengths.get(&key)?;
        Some((key, (self.key(i), self.key(len))))
    }

    /// At a strip-mined loop's own test (`index < bound`, `x` and `y`):
    /// the next strip's end, `min(bound, index + 1000 * step, MAX - step +
    /// 1)`: no index in the strip wraps and at most `STRIP_ITERATIONS`
    /// run; where `index + 1000 * step` overflows the end is `MIN`, so
    /// every iteration tests and polls (the index is then within 1000
    /// steps of `MAX`).
    ///
    /// The strip's span (`1000 * step`) and `MAX - step + 1` are
    /// constants of the loop, computed here; a span past `MAX` makes every
    /// strip end at `MIN`. The sum is computed with the overflow-reporting
    /// addition, which Cranelift keeps where it is (two results: no
    /// loop-invariant hoisting), so the values stay in this block, which
    /// runs once a strip, and hold no register through the loop.
    fn strip_test(&mut self, strip: super::loops::Strip, var: Variable, x: Value, y: Value) {
        let step = i64::from(strip.step);
        let min = self.b.ins().iconst(I32, i64::from(i32::MIN));
        let far = match i32::try_from(step * super::loops::STRIP_ITERATIONS) {
            Ok(span) => {
                let span = self.b.ins().iconst(I32, i64::from(span));
                let (far, over) = self.b.ins().sadd_overflow(x, span);
                self.b.ins().select(over, min, far)
            }
            Err(_) => min,
        };
        let end = self.b.ins().smin(y, far);
        // `MAX - step + 1`, which a step of 1 makes `MAX`: no bound at all.
        let end = if step == 1 {
            end
        } else {
            let top = self.b.ins().iconst(I32, i64::from(i32::MAX) - step + 1);
            self.b.ins().smin(end, top)
        };
        self.b.def_var(var, end);
    }

    /// The poll, going on to `hot` when no stop is asked for, else to
    /// `cold_to` after the stop: [`Self::poll`] passes a new block for
    /// both, which it joins and leaves the builder on; a back edge passes
    /// its loop's head for both, or the head proper and the preheader of
    /// a loop with one, which are translated on their own (a filled
    /// block: no join here).
    fn poll_to(&mut self, idx: usize, hot: Block, cold_to: Block, join: bool) {
        let layout = self.env.thread;
        let thread = self.thread_here();
        let v = self
            .b
            .ins()
            .uload8(I32, MemFlagsData::trusted(), thread, layout.poll);
        let bit = self.b.ins().band_imm_s(v, i64::from(layout.poll_bit));
        let cold = self.b.create_block();
        let before = self.stop_branch(cold);
        self.b.ins().brif(bit, cold, &[], hot, &[]);
        self.b.set_cold_block(cold);
        self.b.switch_to_block(cold);
        // Sealed (its one edge is there): the spill reads each variable as
        // the branch's value, which the facts name.
        self.seal(cold);
        // Fields a deferred lock's span holds go to memory before the
        // stop, and stay in their variables (`promote.rs`).
        self.promotion_flush(true);
        let s = self.safepoint(idx, None);
        self.call_helper(Helper::Poll, &[]);
        // A plain poll's stop joins where it started (`stop_join` below).
        let shared = if join {
            self.reload_sharing(s)
        } else {
            self.reload(s);
            Vec::new()
        };
        let cold_end = self.here();
        self.b.ins().jump(cold_to, &[]);
        // A plain poll's continuation is entered by these two edges alone
        // (a loop's back edge goes on to its head and preheader, whose
        // facts `enter_loop` and `strip_head` set).
        if join {
            self.b.switch_to_block(hot);
            self.stop_join(before, cold_end, shared, hot);
        }
    }

    // ---- exceptions -------------------------------------------------------------

    /// Returns with status 1 (an exception is pending); in an inlined
    /// callee, goes to its caller's dispatch instead.
    pub(super) fn return_thrown(&mut self) {
        if let Some(exit) = self.s.exit {
            self.b.ins().jump(exit.unwind, &[]);
            return;
        }
        let rt = ret_type(self.s.m);
        let z = self.zero(rt);
        let one = self.b.ins().iconst(I64, 1);
        self.b.ins().return_(&[z, one]);
    }

    pub(super) fn zero(&mut self, t: Type) -> Value {
        match t {
            F32 => self.b.ins().f32const(0.0),
            F64 => self.b.ins().f64const(0.0),
            t => self.b.ins().iconst(t, 0),
        }
    }

    /// The block that dispatches an exception thrown at instruction `idx`:
    /// one per set of handlers covering it, and per whether it releases a
    /// deferred lock first (an accessor's call in a coarsened lock's
    /// tail, `coarsen.rs`).
    pub(super) fn dispatch_block(&mut self, idx: usize) -> Block {
        let handlers: Vec<u32> = self
            .s
            .d
            .handlers
            .iter()
            .enumerate()
            .filter(|(_, h)| (h.start as usize..h.end as usize).contains(&idx))
            .map(|(k, _)| k as u32)
            .collect();
        let key = (handlers, self.releases_in_dispatch(idx));
        if let Some(b) = self.s.dispatch.get(&key) {
            return *b;
        }
        let b = self.b.create_block();
        self.b.set_cold_block(b);
        self.s.dispatch.insert(key, b);
        b
    }

    /// Jumps to the dispatch of the current instruction.
    pub(super) fn jump_dispatch(&mut self) {
        let b = self.dispatch_block(self.s.idx);
        self.b.ins().jump(b, &[]);
    }

    /// Fills the dispatch blocks: the handlers of each, in table order.
    fn finish_dispatch(&mut self) {
        let all: Vec<(DispatchKey, Block)> = self.s.dispatch.iter().map(|(k, b)| (k.clone(), *b)).collect();
        let trusted = MemFlagsData::trusted();
        for ((key, release), block) in all {
            self.b.switch_to_block(block);
            if release {
                self.coarsening_dispatch();
            }
            let stack = self.stack_here();
            let exc = self.b.ins().load(I64, trusted, stack, off::STACK_PENDING);
            let mut class = None;
            let mut caught_all = false;
            for k in key {
                let h = self.s.d.handlers[k as usize];
                if h.unresolved {
                    continue;
                }
                let Some(target) = self.s.blocks[h.handler as usize] else {
                    continue;
                };
                let Some(c) = h.catch else {
                    self.take_exception(exc, target);
                    caught_all = true;
                    break;
                };
                let ec = match class {
                    Some(v) => v,
                    None => {
                        let v = self.instance_class_of(exc);
                        class = Some(v);
                        v
                    }
                };
                let cv = self.b.ins().iconst(I64, c as *const _ as i64);
                let is = self.call_helper(Helper::IsSubclass, &[ec, cv]).expect("a result");
                let (take, next) = (self.b.create_block(), self.b.create_block());
                self.b.set_cold_block(take);
                self.b.set_cold_block(next);
                self.b.ins().brif(is, take, &[], next, &[]);
                self.b.switch_to_block(take);
                self.take_exception(exc, target);
                self.b.switch_to_block(next);
            }
            if caught_all {
                continue;
            }
            if self.s.m.is_synchronized() {
                self.unlock_method();
            }
            self.return_thrown();
        }
    }

    /// Fills the back edges' poll blocks. A loop that loads values before
    /// its head (`loops.rs`) continues at its head proper, and after a
    /// stop at its preheader, which loads them again.
    fn finish_polls(&mut self) {
        for (pb, target, block, words) in std::mem::take(&mut self.s.polls) {
            self.b.switch_to_block(pb);
            // What the back edge knew of the frames around the loop: its
            // stop stores none of those words again.
            self.facts().frame_words = words;
            if let Some(&(head, _, _)) = self.s.heads.get(&target) {
                self.poll_to(target, head, block, false);
            } else {
                // Both ways go to the head itself, which takes the
                // reloaded references as its own values: with a join
                // block between, each way's values would pass through
                // two sets of block parameters, and regalloc2 moved them
                // twice a trip (`ListBenchmark.tail`'s `shorter` loops:
                // two registers swapped and swapped back). The head's
                // facts hold on both ways (`loop_vars.rs`: a reference
                // reloaded after a stop is the same object, non-null if
                // it was).
                self.poll_to(target, block, block, false);
            }
        }
    }

    fn take_exception(&mut self, exc: Value, target: Block) {
        let zero = self.b.ins().iconst(I64, 0);
        let stack = self.stack_here();
        self.b
            .ins()
            .store(MemFlagsData::trusted(), zero, stack, off::STACK_PENDING);
        let var = self.var(self.s.ml, K::R);
        self.def_frame_var(var, exc);
        self.b.ins().jump(target, &[]);
    }

    /// Throws with `h(args)` (which makes the exception pending) at the
    /// current instruction, from a cold block the caller is in.
    pub(super) fn throw_with(&mut self, h: Helper, args: &[Value]) {
        self.coarsening_throw();
        self.promotion_throw();
        // Where the exception leaves the compiled method, nothing reads a
        // frame variable or slot on the way out: the stop writes the
        // frames' positions alone and reloads nothing (Havlak's
        // `findLoops`: 97 throws among its 185 stops, each storing and
        // reloading 7-11 references, a sixth of its IR). The helpers read
        // a reference argument before they allocate.
        if self.exception_leaves(self.s.idx) {
            self.safepoint_unwinding(self.s.idx);
            self.call_helper(h, args);
        } else {
            let s = self.safepoint(self.s.idx, None);
            self.call_helper(h, args);
            self.reload(s);
        }
        self.jump_dispatch();
    }

    /// Whether an exception thrown at instruction `idx` leaves the
    /// compiled method: no handler covers `idx` (resolved or not), its
    /// dispatch releases no deferred lock (`coarsen.rs`, which reads the
    /// lock's variable), and the same holds at each inlined caller's call.
    /// Its dispatch then only returns the pending exception (a
    /// `synchronized` method's unlock reads its frame's lock word, not a
    /// variable).
    pub(super) fn exception_leaves(&self, idx: usize) -> bool {
        let covered = self
            .s
            .d
            .handlers
            .iter()
            .any(|h| (h.start as usize..h.end as usize).contains(&idx));
        !covered && !self.releases_in_dispatch(idx) && self.s.exit.is_none_or(|e| e.leaves)
    }

    /// A value that is zero exactly when the reference `obj` is null, for
    /// a branch or a compare with zero. On x86-64, whether `obj` is at
    /// least 8, unsigned: every object's address is 8-aligned and not
    /// zero (`fastpath::gc::layout`; a compressed reference is tested
    /// decoded), so that is "not null". It lowers to `cmp $8, obj` and
    /// the branch, one use of the register, where a branch on `obj`
    /// itself lowers to `test obj, obj`, two uses of one value in one
    /// instruction, which regalloc2 serves with two registers (a copy, or
    /// two reloads where `obj` lives in a spill slot: LruCache's lambda
    /// reloaded its cache twice at each of its null checks). `test $-8,
    /// obj`, the other one-use form, is a 7-byte instruction to `cmp`'s 4,
    /// and ran Queens 10 % slower than `cmp` in wall time, same
    /// instructions (9 interleaved rounds, one CPU, Xeon 167); `cmp` ran
    /// it as fast as before (within the noise). AArch64's `cbz`/`cbnz`
    /// test one register already, where a compare would add an
    /// instruction: there it is `obj`. Compiled code runs on the machine
    /// that compiles it (`jit_isa`), so the host decides.
    pub(super) fn null_test(&mut self, obj: Value) -> Value {
        if cfg!(target_arch = "x86_64") {
            self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, obj, 8)
        } else {
            obj
        }
    }

    /// Branches to a cold block that throws `NullPointerException` when
    /// `obj` is null; continues in the non-null block. The receiver read
    /// from a local 0 never stored into needs no check.
    pub(super) fn null_check(&mut self, obj: Value) {
        let key = self.key(obj);
        if self.nonnull.contains(&obj) || self.facts().nonnull.contains(&key) {
            return;
        }
        let from = self.here();
        let (npe, ok) = (self.b.create_block(), self.b.create_block());
        let t = self.null_test(obj);
        self.b.ins().brif(t, ok, &[], npe, &[]);
        self.b.set_cold_block(npe);
        self.b.switch_to_block(npe);
        let m = self.b.ins().iconst(I64, self.s.m as *const Method as i64);
        let i = self.b.ins().iconst(I64, self.s.idx as i64);
        self.throw_with(Helper::ThrowNpe, &[m, i]);
        self.b.switch_to_block(ok);
        self.continue_from(from);
        self.facts().nonnull.insert(key);
    }

    /// Continues when `ok` (an i8 condition) holds; otherwise throws with
    /// `h(args)` from a cold block.
    pub(super) fn check_or_throw(&mut self, ok: Value, h: Helper, args: &[Value]) {
        self.check_or(ok, |t| t.throw_with(h, args));
    }

    /// [`Self::check_or_throw`] with the cold block's code `throw`'s own
    /// (which ends in a throw): for a throw whose arguments are made on
    /// the cold path.
    pub(super) fn check_or(&mut self, ok: Value, throw: impl FnOnce(&mut Self)) {
        let from = self.here();
        let (bad, cont) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, cont, &[], bad, &[]);
        self.b.set_cold_block(bad);
        self.b.switch_to_block(bad);
        throw(self);
        self.b.switch_to_block(cont);
        self.continue_from(from);
    }

    /// After a helper returning 0 for "an exception is pending": continue
    /// when `r` is non-zero.
    pub(super) fn check_result(&mut self, r: Value) {
        let from = self.here();
        let (bad, cont) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(r, cont, &[], bad, &[]);
        self.b.set_cold_block(bad);
        self.b.switch_to_block(bad);
        self.jump_dispatch();
        self.b.switch_to_block(cont);
        // Entered by the test's edge alone: what held before it holds.
        self.continue_from(from);
    }

    /// After a status (0: normal): continue when it is 0.
    pub(super) fn check_status(&mut self, st: Value) {
        let from = self.here();
        let (bad, cont) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(st, bad, &[], cont, &[]);
        self.b.set_cold_block(bad);
        self.b.switch_to_block(bad);
        self.jump_dispatch();
        self.b.switch_to_block(cont);
        // Entered by the test's edge alone: what held before it holds.
        self.continue_from(from);
    }

    // ---- instructions ---------------------------------------------------------------

    fn instruction(&mut self, i: usize) -> Result<(), Unsupported> {
        let Some(stack) = self.s.kinds.stacks[i].clone() else {
            return Ok(());
        };
        if let Some(block) = self.s.blocks[i] {
            if !self.s.filled {
                self.record_edge_facts(i);
                self.b.ins().jump(block, &[]);
            }
            self.b.switch_to_block(block);
            self.s.filled = false;
            if let Some(f) = self.s.entry_facts.remove(&i) {
                // Its one edge is emitted: nothing else enters it.
                self.seal(block);
                self.facts.set(block, f);
            } else if let Some((f, edges)) = self.s.join_facts.remove(&i) {
                if edges == self.s.join_edges[i] {
                    // Every edge into the join is emitted.
                    self.seal(block);
                    self.facts.set(block, f);
                }
            } else if let Some((all, words, edges)) = self.s.loop_entry.remove(&i) {
                let (expected, locals) = self.s.loop_vars[&i].clone();
                if edges == expected {
                    // Every edge from outside is emitted; the back edges
                    // keep what they enter with (`loop_vars.rs`), and the
                    // enclosing frames' header words.
                    let mut f = super::facts::BlockFacts {
                        frame_words: words,
                        ..Default::default()
                    };
                    for (n, (nonnull, declared)) in locals.into_iter().zip(all) {
                        let var = self.var(usize::from(n), K::R);
                        if nonnull {
                            f.set_nonnull_var(var);
                        }
                        if let Some(d) = declared {
                            f.set_declared_var(var, d);
                        }
                    }
                    self.facts.set(block, f);
                }
            }
        } else if self.s.filled {
            // Unreachable by fall-through and not a leader: skipped (a
            // reachable instruction after a terminator is a leader).
            return Ok(());
        }
        if self.s.loops.heads.contains_key(&i) {
            self.s.idx = i;
            self.enter_loop(i);
        }
        self.s.stack = stack.to_vec();
        self.s.idx = i;
        self.coarsening_before(i);
        let op = self.s.ops[i];
        let element = match op {
            Op::ALoad(Kind::Ref) => self
                .stack_value(1)
                .and_then(|a| self.declared.get(&a).copied())
                .and_then(super::declared::element_of),
            _ => None,
        };
        self.op(op)?;
        self.note_declared(op, element);
        Ok(())
    }

    /// The reference `depth` slots below the top of the operand stack (0:
    /// the top), with its aliases resolved; `None` if that slot holds no
    /// reference.
    fn stack_value(&mut self, depth: usize) -> Option<Value> {
        let pos = self.s.stack.len().checked_sub(depth + 1)?;
        if self.s.stack[pos] != K::R {
            return None;
        }
        let var = self.var(self.s.ml + pos, K::R);
        let v = self.b.use_var(var);
        Some(self.key(v))
    }

    /// Records the declared type of the reference `op` pushed, if the
    /// code says one (`declared.rs`); `element` is an `aaload`'s, from
    /// its array's.
    fn note_declared(&mut self, op: Op, element: Option<super::declared::Declared>) {
        use super::declared;
        if self.s.filled || self.s.stack.last() != Some(&K::R) {
            return;
        }
        let loader = self.env.classes.0;
        let d = match op {
            Op::Invoke(_, m) => m.desc.ret.as_ref().and_then(|t| declared::of_type(loader, t)),
            Op::GetField { kind: Kind::Ref, .. } | Op::GetStatic { kind: Kind::Ref, .. } => self
                .current_field()
                .and_then(|(_, f)| declared::of_descriptor(loader, &f.descriptor)),
            Op::ALoad(Kind::Ref) => element,
            Op::New(c) => Some(declared::Declared::Instance(c)),
            Op::NewArray(ac) => declared::of_new_array(ac),
            Op::LdcString(_) => loader
                .find_loaded("java/lang/String")
                .map(declared::Declared::Instance),
            Op::Load(K::R, n) => self.s.declared_params.get(usize::from(n)).copied().flatten(),
            _ => None,
        };
        let Some(d) = d else {
            return;
        };
        if let Some(v) = self.stack_value(0) {
            if self.guarded_receivers.contains(&v) {
                return;
            }
            self.declared.entry(v).or_insert(d);
            let var = self.var(self.s.ml + self.s.stack.len() - 1, K::R);
            self.facts().set_declared_var(var, d);
        }
    }

    fn branch_to(&mut self, t: Target) -> Block {
        self.s.blocks[t.index as usize].expect("a branch target is a leader")
    }

    /// The block to branch to for `t`: the target itself, or for a back
    /// edge a block that polls first (reported at the target).
    fn edge(&mut self, t: Target) -> Block {
        let target = self.branch_to(t);
        if !t.backward {
            return target;
        }
        let at = t.index as usize;
        if let Some(&(head, _, strip_end)) = self.s.heads.get(&at) {
            if strip_end.is_some() || self.s.loops.heads[&at].unpolled {
                // A strip-mined loop's back edge (the poll is at the
                // strip's end, `strip_head`), or a short counted loop's.
                return head;
            }
        }
        // Filled once the current block ends (a block is built whole).
        let pb = self.b.create_block();
        let words = self.loop_header_words();
        self.s.polls.push((pb, t.index as usize, target, words));
        pb
    }

    fn cond_branch(&mut self, c: Value, t: Target) {
        self.cond_branch_facts(c, t, None, None);
    }

    /// `cond_branch`, with `below`'s pair (`bounded.rs`) added to the
    /// `in_bounds` facts of its edge (`true`: the taken one) only, and
    /// `nonnull`'s value (an `ifnull`/`ifnonnull` operand) to the
    /// `nonnull` facts of its edge only.
    fn cond_branch_facts(
        &mut self,
        c: Value,
        t: Target,
        below: Option<(bool, (Value, Value))>,
        nonnull: Option<(bool, Value)>,
    ) {
        let target = self.edge(t);
        let next = self.s.blocks[self.s.idx + 1].expect("the instruction after a branch is a leader");
        // Each edge's facts before the branch that ends the block: a loop
        // head's entry reads the frame's variables here (`use_var`).
        for (to, taken) in [(t.index as usize, true), (self.s.idx + 1, false)] {
            let pair = below.filter(|b| b.0 == taken).map(|b| b.1);
            let added = pair.is_some_and(|p| self.facts().in_bounds.insert(p));
            let v = nonnull.filter(|n| n.0 == taken).map(|n| n.1);
            let checked = v.is_some_and(|v| self.facts().nonnull.insert(v));
            self.record_edge_facts(to);
            if added {
                self.facts().in_bounds.remove(&pair.expect("added"));
            }
            if checked {
                self.facts().nonnull.remove(&v.expect("added"));
            }
        }
        if self.s.prediction.prefer_target(self.s.idx, t.index as usize) {
            // The target stays in the loop, the fall-through leaves it:
            // the target becomes the `brif`'s not-taken way, laid out
            // next (`predict.rs`).
            let not = self.negate_condition(c);
            self.b.ins().brif(not, next, &[], target, &[]);
        } else {
            self.b.ins().brif(c, target, &[], next, &[]);
        }
        self.s.filled = true;
    }

    /// The negation of the branch condition `c`: the complement of the
    /// compare that made it where there is one, so that the branch stays
    /// one compare.
    fn negate_condition(&mut self, c: Value) -> Value {
        use cranelift_codegen::ir::condcodes::CondCode;
        use cranelift_codegen::ir::{InstructionData, Opcode, ValueDef};
        if let ValueDef::Result(inst, 0) = self.b.func.dfg.value_def(c) {
            match self.b.func.dfg.insts[inst] {
                InstructionData::IntCompare {
                    opcode: Opcode::Icmp,
                    cond,
                    args,
                } => {
                    return self.b.ins().icmp(cond.complement(), args[0], args[1]);
                }
                InstructionData::FloatCompare {
                    opcode: Opcode::Fcmp,
                    cond,
                    args,
                } => {
                    return self.b.ins().fcmp(cond.complement(), args[0], args[1]);
                }
                _ => {}
            }
        }
        self.b.ins().icmp_imm_s(IntCC::Equal, c, 0)
    }

    /// Records the current block's facts for the leader `to` it branches
    /// to, when that edge is the leader's only way in.
    fn record_edge_facts(&mut self, to: usize) {
        if to > self.s.idx {
            self.record_loop_entry(to);
        }
        if self.s.single_pred.get(to).copied().unwrap_or(false) {
            let f = self.facts().clone();
            self.s.entry_facts.insert(to, f);
        } else if self.s.join_edges.get(to).is_some_and(|&n| n > 0) {
            // One of a forward join's edges: met with the others.
            self.lift_local_facts(to);
            let f = self.facts().clone();
            match self.s.join_facts.entry(to) {
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    let (met, edges) = e.get_mut();
                    met.meet(&f);
                    *edges += 1;
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert((f, 1));
                }
            }
        }
    }

    /// On an edge into a join at instruction `to` (a forward join, or the
    /// join after a call inlined behind guards): what the facts know of the
    /// value each reference local live there holds (non-null, its declared
    /// type, an array's length) becomes known of the local itself
    /// (`BlockFacts::nonnull_vars`, `declared_vars`, `length_vars`), so
    /// that the join keeps it where another edge brings the local a
    /// different value it knows the same of: a value reloaded after a call
    /// on one way (which the reload marks by the variable) and the value
    /// checked before it on the other (which the check marks by value).
    /// `getNode`'s `tab`, checked non-null, then a ternary around
    /// `key.hashCode()`: the join kept neither the check nor the array's
    /// form, and the code tested `tab` again and read its length through
    /// its layout word.
    fn lift_local_facts(&mut self, to: usize) {
        for n in 0..self.s.ml {
            if !self.s.d.maps.local_is_ref(to, n) || !self.s.live.is_live(to, n) {
                continue;
            }
            let var = self.var(n, K::R);
            let v = self.b.use_var(var);
            let key = self.key(v);
            let nonnull = self.nonnull.contains(&v);
            let declared = self.declared.get(&key).copied();
            let f = self.facts();
            if nonnull || f.nonnull.contains(&key) {
                f.set_nonnull_var(var);
            }
            if let Some(&len) = f.lengths.get(&key) {
                f.set_length_var(var, len);
            }
            if let (Some(d), None) = (declared, f.declared_var(var)) {
                f.set_declared_var(var, d);
            }
        }
    }

    /// On a forward edge into a loop head `loop_vars` keeps: which of the
    /// loop's locals are non-null on it, and their declared types there.
    fn record_loop_entry(&mut self, to: usize) {
        let Some((_, locals)) = self.s.loop_vars.get(&to) else {
            return;
        };
        // Read before the block's branch (a filled block takes no
        // `use_var`): every caller records its edges first.
        debug_assert!(!self.s.filled, "the edge into {to} recorded after its branch");
        let locals = locals.clone();
        let mut here = Vec::with_capacity(locals.len());
        for n in locals {
            let var = self.var(usize::from(n), K::R);
            let v = self.b.use_var(var);
            let key = self.key(v);
            let declared = self.declared.get(&key).copied();
            let known_nonnull = self.nonnull.contains(&v);
            let f = self.facts();
            let nonnull = f.nonnull_var(var) || f.nonnull.contains(&key) || known_nonnull;
            here.push((nonnull, f.declared_var(var).or(declared)));
        }
        let words = self.loop_header_words();
        match self.s.loop_entry.entry(to) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert((here, words, 1));
            }
            std::collections::hash_map::Entry::Occupied(mut e) => {
                let (all, met, edges) = e.get_mut();
                for (all, now) in all.iter_mut().zip(here) {
                    all.0 &= now.0;
                    if all.1 != now.1 {
                        all.1 = None;
                    }
                }
                met.retain(|at, w| words.get(at) == Some(w));
                *edges += 1;
            }
        }
    }

    /// Of the frame words known here, those a loop of the current scope
    /// keeps on every way around it: the caller, method and flags of the
    /// scope's own frame and of its inlined callers' frames, and those
    /// callers' positions (each is its call of the callee the loop is in).
    /// Only this method's code writes them (a callee's frame, and whatever
    /// the runtime runs in a call, lie above them: `reload_as` keeps them
    /// across every stop), and it writes each with the one value: a
    /// frame's header is its method's, and a caller's position moves only
    /// when control leaves the callee, or when an exception leaves the
    /// compiled method (`UNWINDING`), which leaves the loop too. The
    /// scope's own position, which each of its safepoints sets, and the
    /// reference slots, which hold the value of the last reload, are not
    /// kept. A loop head that starts with these stores none of them again
    /// at the safepoints in the loop.
    fn loop_header_words(&mut self) -> FrameWords {
        let own = self.s.fp_offset;
        let callers: Vec<i64> = self.outer.iter().map(|o| o.scope.fp_offset).collect();
        let kept = |at: i64| {
            let header = [off::FRAME_CALLER, off::FRAME_METHOD, off::FRAME_FLAGS];
            header.iter().any(|&h| own + i64::from(h) == at)
                || callers.iter().any(|&c| {
                    header
                        .iter()
                        .chain(std::iter::once(&off::FRAME_LINK))
                        .any(|&h| c + i64::from(h) == at)
                })
        };
        let mut words = self.facts().frame_words.clone();
        words.retain(|&at, _| kept(at));
        words
    }

    fn int_cond(c: Cond) -> IntCC {
        match c {
            Cond::Eq => IntCC::Equal,
            Cond::Ne => IntCC::NotEqual,
            Cond::Lt => IntCC::SignedLessThan,
            Cond::Ge => IntCC::SignedGreaterThanOrEqual,
            Cond::Gt => IntCC::SignedGreaterThan,
            Cond::Le => IntCC::SignedLessThanOrEqual,
        }
    }

    /// The float compare of `x` and `y` that holds where `if<c>` on the
    /// three-way `fcmp`/`dcmp` of them branches: `nan_greater` (`…cmpg`)
    /// gives NaN 1, else (`…cmpl`) -1 (JVMS §6.5 `dcmp<op>`), so an
    /// unordered pair takes the branch exactly where that value does.
    fn float_cond(c: Cond, nan_greater: bool) -> FloatCC {
        match (c, nan_greater) {
            (Cond::Eq, _) => FloatCC::Equal,
            (Cond::Ne, _) => FloatCC::NotEqual,
            (Cond::Lt, true) => FloatCC::LessThan,
            (Cond::Lt, false) => FloatCC::UnorderedOrLessThan,
            (Cond::Ge, true) => FloatCC::UnorderedOrGreaterThanOrEqual,
            (Cond::Ge, false) => FloatCC::GreaterThanOrEqual,
            (Cond::Gt, true) => FloatCC::UnorderedOrGreaterThan,
            (Cond::Gt, false) => FloatCC::GreaterThan,
            (Cond::Le, true) => FloatCC::LessThanOrEqual,
            (Cond::Le, false) => FloatCC::UnorderedOrLessThanOrEqual,
        }
    }

    fn op(&mut self, op: Op) -> Result<(), Unsupported> {
        match op {
            Op::Nop => {}
            Op::Const(c) => match c {
                Const::I(v) => {
                    let x = self.b.ins().iconst(I32, i64::from(v));
                    self.push(K::I, x);
                }
                Const::J(v) => {
                    let x = self.b.ins().iconst(I64, v);
                    self.push(K::J, x);
                }
                Const::F(bits) => {
                    let x = self.b.ins().f32const(f32::from_bits(bits));
                    self.push(K::F, x);
                }
                Const::D(bits) => {
                    let x = self.b.ins().f64const(f64::from_bits(bits));
                    self.push(K::D, x);
                }
                Const::Null => {
                    let x = self.b.ins().iconst(I64, 0);
                    self.push(K::R, x);
                }
            },
            Op::LdcString(lit) => {
                let slot = self.b.ins().iconst(I64, lit.slot as *const _ as i64);
                // Acquire: the string's initialization (an x86-64 load).
                let v = self.b.ins().atomic_load(I64, MemFlagsData::trusted(), slot);
                let (slow, join) = (self.b.create_block(), self.b.create_block());
                let r = self.b.append_block_param(join, I64);
                let before = self.stop_branch(slow);
                self.b.ins().brif(v, join, &[v.into()], slow, &[]);
                self.b.set_cold_block(slow);
                self.b.switch_to_block(slow);
                self.seal(slow);
                let l = self.b.ins().iconst(I64, lit as *const _ as i64);
                let s = self.safepoint(self.s.idx, None);
                let o = self.call_helper(Helper::LdcString, &[l]).expect("a result");
                self.reload(s);
                self.check_result(o);
                let cold_end = self.here();
                self.b.ins().jump(join, &[o.into()]);
                self.b.switch_to_block(join);
                self.stop_join(before, cold_end, Vec::new(), join);
                self.push(K::R, r);
            }
            Op::LdcClass(c) => {
                let cv = self.b.ins().iconst(I64, c as *const _ as i64);
                let s = self.safepoint(self.s.idx, None);
                let o = self.call_helper(Helper::Mirror, &[cv]).expect("a result");
                self.reload(s);
                self.check_result(o);
                self.push(K::R, o);
            }
            Op::Load(k, n) => {
                let v = self.use_local(n as usize, k);
                if n == 0 && k == K::R && self.s.receiver_fixed {
                    self.nonnull.insert(v);
                }
                if let Some(&Some(primitive)) = self.s.array_params.get(n as usize) {
                    let key = self.key(v);
                    self.known_arrays.insert(key, primitive);
                }
                self.push(k, v);
            }
            Op::Store(k, n) => {
                let (_, v) = self.pop();
                self.def_local(n as usize, k, v);
            }
            Op::Iinc(n, c) => {
                let v = self.use_local(n as usize, K::I);
                let r = self.b.ins().iadd_imm_s(v, i64::from(c));
                self.def_local(n as usize, K::I, r);
            }
            Op::ALoad(k) => self.array_load(k),
            Op::AStore(k) => self.array_store(k),
            Op::Pop => {
                self.s.stack.pop();
            }
            Op::Pop2 => {
                self.s.stack.pop();
                self.s.stack.pop();
            }
            Op::Dup | Op::DupX1 | Op::DupX2 | Op::Dup2 | Op::Dup2X1 | Op::Dup2X2 | Op::Swap => {
                self.shuffle(op);
            }
            Op::Arith(k, a) => self.arith(k, a),
            Op::Neg(k) => {
                let v = self.pop_v();
                let r = match k {
                    K::F | K::D => self.b.ins().fneg(v),
                    _ => self.b.ins().ineg(v),
                };
                self.push(k, r);
            }
            Op::Conv(c) => self.convert(c),
            Op::LCmp => {
                let b = self.pop_v();
                let a = self.pop_v();
                let gt = self.b.ins().icmp(IntCC::SignedGreaterThan, a, b);
                let lt = self.b.ins().icmp(IntCC::SignedLessThan, a, b);
                let gt = self.b.ins().uextend(I32, gt);
                let lt = self.b.ins().uextend(I32, lt);
                let r = self.b.ins().isub(gt, lt);
                self.s.last_cmp = Some((self.s.idx, a, b, r, Compare::Long));
                self.push(K::I, r);
            }
            Op::FCmp(g) | Op::DCmp(g) => {
                let b = self.pop_v();
                let a = self.pop_v();
                let one = self.b.ins().iconst(I32, 1);
                let zero = self.b.ins().iconst(I32, 0);
                let minus = self.b.ins().iconst(I32, -1);
                let eq = self.b.ins().fcmp(FloatCC::Equal, a, b);
                let r = if g {
                    // NaN compares greater: < gives -1, == 0, else 1.
                    let lt = self.b.ins().fcmp(FloatCC::LessThan, a, b);
                    let r = self.b.ins().select(eq, zero, one);
                    self.b.ins().select(lt, minus, r)
                } else {
                    let gt = self.b.ins().fcmp(FloatCC::GreaterThan, a, b);
                    let r = self.b.ins().select(eq, zero, minus);
                    self.b.ins().select(gt, one, r)
                };
                self.s.last_cmp = Some((self.s.idx, a, b, r, Compare::Float { nan_greater: g }));
                self.push(K::I, r);
            }
            Op::If(c, t) => {
                let a = self.pop_v();
                // Right after the compare whose result it tests (the same
                // value: no join in between), the operands' own compare;
                // the three-way compare's instructions are then dead.
                let r = match self.s.last_cmp.take() {
                    Some((at, x, y, r, kind)) if at + 1 == self.s.idx && r == a => match kind {
                        Compare::Long => self.b.ins().icmp(Self::int_cond(c), x, y),
                        Compare::Float { nan_greater } => {
                            self.b.ins().fcmp(Self::float_cond(c, nan_greater), x, y)
                        }
                    },
                    _ => self.b.ins().icmp_imm_s(Self::int_cond(c), a, 0),
                };
                self.cond_branch(r, t);
            }
            Op::IfICmp(c, t) => {
                let b = self.pop_v();
                let a = self.pop_v();
                if let Some((strip, var)) = self.strip_at(self.s.idx) {
                    self.strip_test(strip, var, a, b);
                }
                let r = self.b.ins().icmp(Self::int_cond(c), a, b);
                let below = self.index_below(c, a, b);
                self.cond_branch_facts(r, t, below, None);
            }
            Op::IfACmp(eq, t) => {
                let b = self.pop_v();
                let a = self.pop_v();
                let same = self.same_object(a, b);
                let r = if eq {
                    same
                } else {
                    self.b.ins().bxor_imm_s(same, 1)
                };
                self.cond_branch(r, t);
            }
            Op::IfNull(is_null, t) => {
                let a = self.pop_v();
                let cc = if is_null { IntCC::Equal } else { IntCC::NotEqual };
                let bits = self.null_test(a);
                let r = self.b.ins().icmp_imm_s(cc, bits, 0);
                // The edge on which `a` is not null: `ifnull`'s fall-through,
                // `ifnonnull`'s target.
                let key = self.key(a);
                self.cond_branch_facts(r, t, None, Some((!is_null, key)));
            }
            Op::Goto(t) => {
                let target = self.edge(t);
                self.record_edge_facts(t.index as usize);
                self.b.ins().jump(target, &[]);
                self.s.filled = true;
            }
            Op::Switch(k) => self.switch(k),
            Op::Return(k) => {
                let v = match k {
                    Some(_) => self.pop_v(),
                    None => self.b.ins().iconst(I64, 0),
                };
                if let Some(exit) = self.s.exit {
                    // An inlined callee (never synchronized): its result
                    // goes to the caller's continuation.
                    let args: Vec<ir::BlockArg> = k.map(|_| v.into()).into_iter().collect();
                    let f = self.facts().clone();
                    match &mut self.s.ret_facts {
                        Some(met) => met.meet(&f),
                        none => *none = Some(f),
                    }
                    self.b.ins().jump(exit.ret, &args);
                    self.s.filled = true;
                    return Ok(());
                }
                if self.s.m.is_synchronized() {
                    self.unlock_method();
                }
                let zero = self.b.ins().iconst(I64, 0);
                self.b.ins().return_(&[v, zero]);
                self.s.filled = true;
            }
            Op::GetStatic {
                class,
                slot,
                kind,
                volatile,
            } => {
                self.init_check(class);
                let addr = self
                    .b
                    .ins()
                    .iconst(I64, class.statics.as_ptr() as i64 + i64::from(slot) * 8);
                let k = K::of(kind);
                let flags = MemFlagsData::trusted();
                let v = if volatile {
                    let w = self.b.ins().atomic_load(I64, flags, addr);
                    self.facts().forget_memory();
                    self.value_of_slot_bits(k, w)
                } else {
                    self.b.ins().load(ty(k), flags, addr, 0)
                };
                self.push(k, v);
            }
            Op::PutStatic {
                class,
                slot,
                kind,
                volatile,
            } => {
                self.init_check(class);
                let v = self.pop_v();
                let addr = self
                    .b
                    .ins()
                    .iconst(I64, class.statics.as_ptr() as i64 + i64::from(slot) * 8);
                if kind == Kind::Ref {
                    self.escapes_to_heap(v);
                }
                let bits = self.static_bits(kind, v);
                // Release, as the interpreter's (SeqCst for volatile).
                self.release_store(bits, addr, MemFlagsData::trusted());
                if volatile {
                    self.b.ins().fence();
                    self.facts().forget_memory();
                }
            }
            Op::GetField { off, kind, volatile } => {
                let obj = self.pop_v();
                let promoted = self.promoted_get(self.s.idx);
                if promoted.is_none() {
                    self.null_check(obj);
                }
                let hoisted = self
                    .s
                    .loops
                    .loads
                    .get(&self.s.idx)
                    .and_then(|&(h, k)| self.s.heads.get(&h).map(|(_, values, _)| values[k]));
                let v = if let Some(v) = promoted {
                    // A field of the locked object held in its variable
                    // (`promote.rs`): no load, no null check. What it holds
                    // is of the field's type, as a load's value is (the
                    // verifier checked each store into it).
                    v
                } else if let Some(v) = hoisted {
                    // The receiver's field, loaded before the loop
                    // (`loops.rs`): `obj` is the receiver.
                    v
                } else if kind == Kind::Ref {
                    let holder = self.current_holder()?;
                    self.load_ref_field(obj, holder, off as i64, volatile)
                } else {
                    let f = self.current_data_field(off, kind)?;
                    let nrefs = self.final_holder_nrefs();
                    self.read_data(obj, f, volatile, nrefs)
                };
                if kind == Kind::Ref && self.field_holds_instances() {
                    let key = self.key(v);
                    self.instances.insert(key);
                }
                if let Some(primitive) = self.field_array_form() {
                    let key = self.key(v);
                    self.known_arrays.insert(key, primitive);
                }
                self.push(K::of(kind), v);
            }
            Op::PutField { off, kind, volatile } => {
                let v = self.pop_v();
                let obj = self.pop_v();
                if self.promoted_put(self.s.idx, v) {
                    // Held in its variable (`promote.rs`).
                    return Ok(());
                }
                self.null_check(obj);
                if kind == Kind::Ref {
                    let holder = self.current_holder()?;
                    self.store_ref_field(obj, holder, off as i64, v);
                    if volatile {
                        self.b.ins().fence();
                        self.facts().forget_memory();
                    }
                } else {
                    let f = self.current_data_field(off, kind)?;
                    let nrefs = self.final_holder_nrefs();
                    self.write_data(obj, f, v, volatile, nrefs);
                }
            }
            Op::Invoke(Dispatch::Static, m) if is_on_spin_wait(m) => {
                // `Thread.onSpinWait()`: the configured pause, no frame.
                let pause = self.helper_ref(Helper::SpinPause);
                fastpath_cranelift::spin_wait(&mut self.b, pause);
                // A spin waits for another thread's write.
                self.facts().forget_memory();
            }
            Op::Invoke(Dispatch::Static, m) if super::intrinsics::is_arraycopy(m) => self.arraycopy(m)?,
            Op::Invoke(Dispatch::Static, m) if super::math::unary(m).is_some() => {
                let op = super::math::unary(m).expect("the guard found it");
                self.unary_native(m, op);
            }
            Op::Invoke(Dispatch::Static, m) if super::math::binary(m).is_some() => {
                let op = super::math::binary(m).expect("the guard found it");
                self.binary_native(m, op);
            }
            Op::Invoke(Dispatch::Static, m) if super::digit::is_character_digit(m) => {
                self.character_digit(m)?
            }
            Op::Invoke(Dispatch::Static, m) if super::get_chars::is_integer_get_chars(m) => {
                self.integer_get_chars(m)?
            }
            Op::Invoke(d @ (Dispatch::Virtual(_) | Dispatch::Direct), m)
                if super::intrinsics::is_string_hash_code(m) =>
            {
                self.string_hash_code(d, m)?
            }
            Op::Invoke(d @ (Dispatch::Virtual(_) | Dispatch::Direct), m)
                if super::index_of::is_string_index_of(m) =>
            {
                self.string_index_of(d, m)?
            }
            Op::Invoke(d @ (Dispatch::Virtual(_) | Dispatch::Direct), m)
                if super::string_equals::is_string_equals(m) =>
            {
                self.string_equals(d, m)?
            }
            Op::Invoke(dispatch, m) => self.invoke(dispatch, m)?,
            Op::New(c) => {
                self.init_check(c);
                let o = self.alloc_instance(c);
                self.push(K::R, o);
            }
            Op::NewArray(ac) => {
                let n = self.pop_v();
                let o = self.new_array(ac, n);
                if let Some(elem) = ac.elem_kind() {
                    let key = self.key(o);
                    self.known_arrays.insert(key, elem != Kind::Ref);
                }
                self.push(K::R, o);
            }
            Op::MultiANewArray(c, dims) => {
                // The counts stay in the frame's operand slots (the
                // helper reads them there, as the interpreter's).
                let base = self.s.stack.len() - dims as usize;
                let trusted = MemFlagsData::trusted();
                let mut vals = Vec::new();
                for _ in 0..dims {
                    vals.push(self.pop_v());
                }
                vals.reverse();
                for (j, v) in vals.into_iter().enumerate() {
                    let w = self.b.ins().sextend(I64, v);
                    let offset = ((HEADER_SLOTS + base + j) * 8) as i32;
                    self.b.ins().store(trusted, w, self.s.fp, offset);
                    let at = self.s.fp_offset + i64::from(offset);
                    self.facts().frame_words.remove(&at);
                }
                let counts = self
                    .b
                    .ins()
                    .iadd_imm_s(self.s.fp, ((HEADER_SLOTS + base) * 8) as i64);
                let cv = self.b.ins().iconst(I64, c as *const _ as i64);
                let dv = self.b.ins().iconst(I64, i64::from(dims));
                let s = self.safepoint(self.s.idx, None);
                let o = self
                    .call_helper(Helper::MultiNewArray, &[cv, dv, counts])
                    .expect("a result");
                self.reload(s);
                self.check_result(o);
                self.push(K::R, o);
            }
            Op::ArrayLength => {
                let a = self.pop_v();
                self.null_check(a);
                let len = self.array_length(a);
                self.push(K::I, len);
            }
            Op::AThrow => {
                let e = *self.s.stack.last().expect("athrow's operand");
                debug_assert_eq!(e, K::R);
                let pos = self.s.stack.len() - 1;
                let var = self.var(self.s.ml + pos, K::R);
                let exc = self.b.use_var(var);
                self.null_check(exc);
                self.throw_with(Helper::Throw, &[exc]);
                self.s.filled = true;
            }
            Op::CheckCast(c) => {
                let pos = self.s.stack.len() - 1;
                let var = self.var(self.s.ml + pos, K::R);
                let o = self.b.use_var(var);
                self.check_cast(o, c);
            }
            Op::InstanceOf(c) => {
                let o = self.pop_v();
                let r = self.instance_of(o, c);
                self.push(K::I, r);
            }
            Op::MonitorEnter => {
                let pos = self.s.stack.len() - 1;
                let var = self.var(self.s.ml + pos, K::R);
                let o = self.b.use_var(var);
                self.null_check(o);
                // The object stays on the stack (a root) through the enter.
                if self.coarsened_enter_at(self.s.idx) {
                    self.coarsened_enter(o, self.s.idx);
                } else {
                    self.monitor_enter_obj(o, self.s.idx);
                }
                self.s.stack.pop();
            }
            Op::MonitorExit => {
                let o = self.pop_v();
                if !self.promotes_exit_at(self.s.idx) {
                    self.null_check(o);
                }
                if self.coarsened_exit_at(self.s.idx) {
                    self.coarsened_exit(o, self.s.idx);
                } else {
                    self.monitor_exit_obj(o, true);
                }
            }
            Op::Throw(e) => {
                let m = self.b.ins().iconst(I64, self.s.m as *const Method as i64);
                let ev = self.b.ins().iconst(I64, i64::from(e));
                self.throw_with(Helper::ThrowError, &[m, ev]);
                self.s.filled = true;
            }
        }
        // A fall-through into a leader is added by the next instruction.
        Ok(())
    }

    fn shuffle(&mut self, op: Op) {
        let before = self.s.stack.clone();
        let n = before.len();
        // (source slot, destination slot) copies, applied in an order
        // that reads every source before it is overwritten: all reads
        // first, through temporaries.
        let moves: Vec<(usize, usize)> = match op {
            Op::Dup => vec![(n - 1, n)],
            Op::DupX1 => vec![(n - 1, n), (n - 2, n - 1), (n, n - 2)],
            Op::DupX2 => vec![(n - 1, n), (n - 2, n - 1), (n - 3, n - 2), (n, n - 3)],
            Op::Dup2 => vec![(n - 2, n), (n - 1, n + 1)],
            Op::Dup2X1 => vec![
                (n - 2, n),
                (n - 1, n + 1),
                (n - 3, n - 1),
                (n, n - 3),
                (n + 1, n - 2),
            ],
            Op::Dup2X2 => vec![
                (n - 2, n),
                (n - 1, n + 1),
                (n - 3, n - 1),
                (n - 4, n - 2),
                (n, n - 4),
                (n + 1, n - 3),
            ],
            Op::Swap => vec![(n - 1, n), (n - 2, n - 1), (n, n - 2)],
            _ => unreachable!("stack shuffles"),
        };
        // Simulate on kinds, copying variables in the same order (each
        // move reads the kind its source holds at that moment).
        let mut kinds = before.clone();
        kinds.resize(n + 2, K::X);
        for (from, to) in moves {
            let k = kinds[from];
            self.copy_slot(from, to, &kinds);
            kinds[to] = k;
        }
        let new_len = match op {
            Op::Dup | Op::DupX1 | Op::DupX2 => n + 1,
            Op::Dup2 | Op::Dup2X1 | Op::Dup2X2 => n + 2,
            _ => n,
        };
        kinds.truncate(new_len);
        self.s.stack = kinds;
    }

    fn arith(&mut self, k: K, a: Arith) {
        let y = self.pop_v();
        let x = self.pop_v();
        let r = match k {
            K::I | K::J => match a {
                Arith::Add => self.b.ins().iadd(x, y),
                Arith::Sub => self.b.ins().isub(x, y),
                Arith::Mul => self.b.ins().imul(x, y),
                Arith::Div | Arith::Rem => self.int_divide(k, a, x, y),
                Arith::Shl => self.b.ins().ishl(x, y),
                Arith::Shr => self.b.ins().sshr(x, y),
                Arith::Ushr => self.b.ins().ushr(x, y),
                Arith::And => self.b.ins().band(x, y),
                Arith::Or => self.b.ins().bor(x, y),
                Arith::Xor => self.b.ins().bxor(x, y),
            },
            _ => match a {
                Arith::Add => self.b.ins().fadd(x, y),
                Arith::Sub => self.b.ins().fsub(x, y),
                // `2.0 * x` is `x + x` bit for bit (doubling is exact, and
                // both round an overflow to the same infinity, keep a NaN
                // a NaN and the sign of zero): no constant to load.
                Arith::Mul if self.float_const(y) == Some(2.0) => self.b.ins().fadd(x, x),
                Arith::Mul if self.float_const(x) == Some(2.0) => self.b.ins().fadd(y, y),
                Arith::Mul => self.b.ins().fmul(x, y),
                Arith::Div => self.b.ins().fdiv(x, y),
                _ => {
                    let h = if k == K::F { Helper::Frem } else { Helper::Drem };
                    self.call_helper(h, &[x, y]).expect("a result")
                }
            },
        };
        self.push(k, r);
    }

    /// Java's `/` and `%`: division by zero throws; `MIN / -1` is `MIN`
    /// and `MIN % -1` is 0 (Cranelift's would trap).
    fn int_divide(&mut self, k: K, a: Arith, x: Value, y: Value) -> Value {
        let t = ty(k);
        if let Some(c) = self.const_of(y) {
            if c != 0 && c != -1 {
                return if a == Arith::Div {
                    self.b.ins().sdiv(x, y)
                } else {
                    self.b.ins().srem(x, y)
                };
            }
        }
        let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, y, 0);
        self.check_or_throw(nz, Helper::ThrowDivide, &[]);
        let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
        let one = self.b.ins().iconst(t, 1);
        let safe = self.b.ins().select(m1, one, y);
        if a == Arith::Div {
            let q = self.b.ins().sdiv(x, safe);
            let neg = self.b.ins().ineg(x);
            self.b.ins().select(m1, neg, q)
        } else {
            let r = self.b.ins().srem(x, safe);
            let zero = self.b.ins().iconst(t, 0);
            self.b.ins().select(m1, zero, r)
        }
    }

    /// The value of `v` when it is a float or double constant.
    fn float_const(&self, v: Value) -> Option<f64> {
        let dfg = &self.b.func.dfg;
        let v = dfg.resolve_aliases(v);
        let ir::ValueDef::Result(inst, _) = dfg.value_def(v) else {
            return None;
        };
        match dfg.insts[inst] {
            ir::InstructionData::UnaryIeee64 {
                opcode: ir::Opcode::F64const,
                imm,
            } => Some(f64::from_bits(imm.bits())),
            ir::InstructionData::UnaryIeee32 {
                opcode: ir::Opcode::F32const,
                imm,
            } => Some(f64::from(f32::from_bits(imm.bits()))),
            _ => None,
        }
    }

    pub(super) fn const_of(&self, v: Value) -> Option<i64> {
        let dfg = &self.b.func.dfg;
        let v = dfg.resolve_aliases(v);
        match dfg.value_def(v) {
            ir::ValueDef::Result(inst, _) => match dfg.insts[inst] {
                ir::InstructionData::UnaryImm {
                    opcode: ir::Opcode::Iconst,
                    imm,
                } => {
                    let t = dfg.value_type(v);
                    let raw = imm.bits();
                    Some(if t == I32 { raw as i32 as i64 } else { raw })
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn convert(&mut self, c: Conv) {
        let v = self.pop_v();
        let r = match c {
            Conv::I2L => self.b.ins().sextend(I64, v),
            Conv::I2F => self.b.ins().fcvt_from_sint(F32, v),
            Conv::I2D => self.b.ins().fcvt_from_sint(F64, v),
            Conv::L2I => self.b.ins().ireduce(I32, v),
            Conv::L2F => self.b.ins().fcvt_from_sint(F32, v),
            Conv::L2D => self.b.ins().fcvt_from_sint(F64, v),
            Conv::F2I | Conv::D2I => self.b.ins().fcvt_to_sint_sat(I32, v),
            Conv::F2L | Conv::D2L => self.b.ins().fcvt_to_sint_sat(I64, v),
            Conv::F2D => self.b.ins().fpromote(F64, v),
            Conv::D2F => self.b.ins().fdemote(F32, v),
            Conv::I2B => self.narrow(Kind::Byte, v),
            Conv::I2C => self.narrow(Kind::Char, v),
            Conv::I2S => self.narrow(Kind::Short, v),
        };
        self.push(super::kinds::conv_result(c), r);
    }

    /// The `int` `v` as a field or element of kind `k` keeps it, widened
    /// back to `int` (JVMS `i2b`, `i2c`, `i2s`; a boolean keeps its low
    /// bit, as `putfield` and `bastore` store it); other kinds unchanged.
    pub(super) fn narrow(&mut self, k: Kind, v: Value) -> Value {
        match k {
            Kind::Boolean => self.b.ins().band_imm_s(v, 1),
            Kind::Byte => {
                let n = self.b.ins().ireduce(I8, v);
                self.b.ins().sextend(I32, n)
            }
            Kind::Char => {
                let n = self.b.ins().ireduce(I16, v);
                self.b.ins().uextend(I32, n)
            }
            Kind::Short => {
                let n = self.b.ins().ireduce(I16, v);
                self.b.ins().sextend(I32, n)
            }
            _ => v,
        }
    }

    fn switch(&mut self, k: u32) {
        let key = self.pop_v();
        let sw = self.s.d.switches[k as usize].clone();
        let here = self.s.idx;
        let backward = move |t: u32| t as usize <= here;
        let target = |s: &mut Self, t: u32| {
            s.edge(Target {
                index: t,
                backward: backward(t),
            })
        };
        match sw {
            Switch::Table {
                default,
                low,
                targets,
            } => {
                let def = target(self, default);
                let mut calls = Vec::with_capacity(targets.len());
                for &t in targets.iter() {
                    let b = target(self, t);
                    calls.push(self.b.func.dfg.block_call(b, &[]));
                }
                let def_call = self.b.func.dfg.block_call(def, &[]);
                let jt = self.b.create_jump_table(ir::JumpTableData::new(def_call, &calls));
                let idx = if low != 0 {
                    self.b.ins().iadd_imm_s(key, -i64::from(low))
                } else {
                    key
                };
                // Indices below `low` wrap to large unsigned values: the
                // table's bounds check sends them to the default.
                self.b.ins().br_table(idx, jt);
            }
            Switch::Lookup {
                default,
                keys,
                targets,
            } => {
                let def = target(self, default);
                for (&kv, &t) in keys.iter().zip(targets.iter()) {
                    let b = target(self, t);
                    let hit = self.b.ins().icmp_imm_s(IntCC::Equal, key, i64::from(kv));
                    let next = self.b.create_block();
                    self.b.ins().brif(hit, b, &[], next, &[]);
                    self.b.switch_to_block(next);
                }
                self.b.ins().jump(def, &[]);
            }
        }
        self.s.filled = true;
    }

    /// A value as the interpreter's slot holds it (`u64` bits).
    pub(super) fn slot_bits_of(&mut self, k: K, v: Value) -> Value {
        match k {
            K::I => self.b.ins().sextend(I64, v),
            K::F => {
                let i = self.b.ins().bitcast(I32, MemFlagsData::new(), v);
                self.b.ins().uextend(I64, i)
            }
            K::D => self.b.ins().bitcast(I64, MemFlagsData::new(), v),
            _ => v,
        }
    }

    /// A value of kind `k` from slot bits.
    pub(super) fn value_of_slot_bits(&mut self, k: K, w: Value) -> Value {
        match k {
            K::I => self.b.ins().ireduce(I32, w),
            K::F => {
                let i = self.b.ins().ireduce(I32, w);
                self.b.ins().bitcast(F32, MemFlagsData::new(), i)
            }
            K::D => self.b.ins().bitcast(F64, MemFlagsData::new(), w),
            _ => w,
        }
    }

    /// A static field's slot value (narrowed as the field holds it: JVMS
    /// `putstatic`, booleans `& 1`).
    fn static_bits(&mut self, kind: Kind, v: Value) -> Value {
        match kind {
            Kind::Boolean | Kind::Byte | Kind::Char | Kind::Short | Kind::Int => {
                let n = self.narrow(kind, v);
                self.b.ins().sextend(I64, n)
            }
            Kind::Float => {
                let i = self.b.ins().bitcast(I32, MemFlagsData::new(), v);
                self.b.ins().uextend(I64, i)
            }
            Kind::Double => self.b.ins().bitcast(I64, MemFlagsData::new(), v),
            Kind::Long | Kind::Ref => v,
        }
    }

    /// `class` initialized, or initialized now (a class initialized when
    /// the method was compiled stays so: no check).
    pub(super) fn init_check(&mut self, class: &'static crate::link::Class) {
        if class.is_initialized() {
            return;
        }
        let state = self.b.ins().iconst(I64, &class.init_state as *const _ as i64);
        // Acquire: the statics `<clinit>` wrote (an x86-64 load).
        let s = self.b.ins().atomic_load(I8, MemFlagsData::trusted(), state);
        let done = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, s, crate::link::InitState::Initialized as i64);
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let before = self.stop_branch(slow);
        self.b.ins().brif(done, cont, &[], slow, &[]);
        self.b.set_cold_block(slow);
        self.b.switch_to_block(slow);
        self.seal(slow);
        let cv = self.b.ins().iconst(I64, class as *const _ as i64);
        let sp = self.safepoint(self.s.idx, None);
        let st = self.call_helper(Helper::InitClass, &[cv]).expect("a status");
        self.reload(sp);
        self.check_status(st);
        let cold_end = self.here();
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        self.stop_join(before, cold_end, Vec::new(), cont);
    }

    // ---- calls -------------------------------------------------------------------

    pub(super) fn invoke(&mut self, dispatch: Dispatch, m: &'static Method) -> Result<(), Unsupported> {
        if self.s.throw_only.is_empty() {
            self.s.throw_only = super::cold::throw_only(&self.s.ops, &self.s.d.switches);
        }
        let cold = self.s.throw_only[self.s.idx];
        if cold && self.leaf {
            // A leaf polls before each call it makes (all on paths that
            // only throw, `prologue`): a run of leaves calling leaves
            // between two polls, each calling from handlers of what the
            // last one threw, could otherwise grow with no bound.
            self.poll(self.s.idx);
        }
        if dispatch == Dispatch::Static {
            self.init_check(m.class);
        }
        let nargs = m.desc.params.len() + usize::from(dispatch != Dispatch::Static);
        let mut args: Vec<(K, Value)> = Vec::with_capacity(nargs);
        for _ in 0..nargs {
            args.push(self.pop());
        }
        args.reverse();
        let depth_after = self.s.stack.len();
        if dispatch != Dispatch::Static {
            // The receiver is checked with the arguments still on the
            // stack (the interpreter's state for the exception).
            self.stack_restore(&args);
            self.null_check(args[0].1);
            self.s.stack.truncate(depth_after);
        }
        if let Some(callee) = self.inline_candidate(dispatch, m).filter(|_| !cold) {
            return self.inline_call(m, callee, args, depth_after);
        }
        if !cold {
            let guarded = match dispatch {
                Dispatch::Virtual(index) => self.guarded_candidates(m, index),
                Dispatch::Interface(index) => self.interface_candidates(m, index),
                Dispatch::Static | Dispatch::Direct => None,
            };
            let guarded = guarded.or_else(|| self.profiled_candidates(m, dispatch));
            if let Some(g) = guarded {
                return self.guarded_inline_call(m, dispatch, g, args, depth_after);
            }
        }
        if self.is_self_call(dispatch, m) {
            self.call_self(m, &args, depth_after);
            return Ok(());
        }
        let target = match dispatch {
            Dispatch::Static | Dispatch::Direct => self.b.ins().iconst(I64, m as *const Method as i64),
            Dispatch::Virtual(index) => {
                let recv = args[0].1;
                self.stack_restore(&args);
                let t = self.vtable_target(recv, index, m);
                self.s.stack.truncate(depth_after);
                t
            }
            Dispatch::Interface(index) => {
                let recv = args[0].1;
                self.stack_restore(&args);
                let t = self.itable_target(recv, index, m);
                self.s.stack.truncate(depth_after);
                t
            }
        };
        self.call_method(m, target, &args, depth_after);
        Ok(())
    }

    /// Whether a call of `m` by `dispatch` is a call of the method this
    /// function is the entry of, statically bound (static, private or
    /// `invokespecial`, or a final method or a final class's, which no
    /// receiver overrides): a self-recursive call.
    fn is_self_call(&self, dispatch: Dispatch, m: &'static Method) -> bool {
        let root = self.outer.first().map_or(self.s.m, |o| o.scope.m);
        if !self.own_entry || !std::ptr::eq(root, m) {
            return false;
        }
        statically_bound(dispatch, m)
    }

    /// A self-recursive call (`is_self_call`): a direct call to this
    /// function's own start, which the installer links to the code's own
    /// address (`fastpath_cranelift::link`, a name equal to the function's
    /// own). The function is running, so it is installed and `m`'s
    /// compiled entry: nothing to load from `Method::jit`, no interpreted
    /// way to keep. Compiled code is never freed or replaced in place, so
    /// the call stays right for as long as the code runs. Otherwise as
    /// `call_method`'s compiled path: the frame spilled (not published),
    /// the callee's frame above the live operands, the result pushed.
    fn call_self(&mut self, m: &'static Method, args: &[(K, Value)], depth_after: usize) {
        self.note_call();
        let sp_args = self
            .b
            .ins()
            .iadd_imm_s(self.s.fp, ((HEADER_SLOTS + depth_after) * 8) as i64);
        let spilled = self.spill(self.s.idx, Some(m.arg_slots as usize));
        let f = match self.self_ref {
            Some(f) => f,
            None => {
                let sig = self.b.import_signature(java_signature(m));
                let name = self.b.func.declare_imported_user_function(UserExternalName {
                    namespace: 0,
                    index: m.id,
                });
                let f = self.b.import_function(ExtFuncData {
                    name: ExternalName::user(name),
                    signature: sig,
                    colocated: true,
                    patchable: false,
                });
                self.self_ref = Some(f);
                f
            }
        };
        let mut cargs = vec![sp_args, self.s.fp];
        cargs.extend(args.iter().map(|a| a.1));
        let call = self.b.ins().call(f, &cargs);
        let res: Vec<Value> = self.b.inst_results(call).to_vec();
        self.reload(spilled);
        self.check_status(res[1]);
        if let Some(t) = &m.desc.ret {
            self.push(K::of_type(t), res[0]);
        }
    }

    /// Calls `target` (a `Method` of `m`'s signature shape) with `args`,
    /// the operand stack `depth_after` deep below them: its compiled
    /// entry when it has one, else the `Invoke` helper; pushes the result.
    fn call_method(&mut self, m: &'static Method, target: Value, args: &[(K, Value)], depth_after: usize) {
        self.note_call();
        let arg_slots = m.arg_slots as usize;
        let trusted = MemFlagsData::trusted();
        let sp_args = self
            .b
            .ins()
            .iadd_imm_s(self.s.fp, ((HEADER_SLOTS + depth_after) * 8) as i64);
        // Published only for the interpreter (`spill` says why).
        let spilled = self.spill(self.s.idx, Some(arg_slots));
        let entry = self.b.ins().load(
            I64,
            trusted,
            target,
            (std::mem::offset_of!(Method, jit) + super::MethodJit::ENTRY_OFFSET) as i32,
        );
        let (compiled, interp, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let rt = ret_type(m);
        let rv = self.b.append_block_param(join, rt);
        let st = self.b.append_block_param(join, I64);
        self.b.ins().brif(entry, compiled, &[], interp, &[]);

        self.b.switch_to_block(compiled);
        let sig = self.java_sigref(m);
        let mut cargs = vec![sp_args, self.s.fp];
        cargs.extend(args.iter().map(|a| a.1));
        let call = self.b.ins().call_indirect(sig, entry, &cargs);
        let res: Vec<Value> = self.b.inst_results(call).to_vec();
        self.b.ins().jump(join, &[res[0].into(), res[1].into()]);

        self.b.switch_to_block(interp);
        self.publish();
        let mut slot = 0;
        for (k, v) in args {
            let bits = self.slot_bits_of(*k, *v);
            self.b.ins().store(trusted, bits, sp_args, (slot * 8) as i32);
            slot += k.slots();
        }
        let results = self.call_helper_all(Helper::Invoke, &[target, sp_args, self.s.fp]);
        let v = match m.desc.ret.as_ref() {
            Some(t) => self.value_of_slot_bits(K::of_type(t), results[0]),
            None => results[0],
        };
        self.b.ins().jump(join, &[v.into(), results[1].into()]);

        self.b.switch_to_block(join);
        self.reload(spilled);
        self.check_status(st);
        if let Some(t) = &m.desc.ret {
            self.push(K::of_type(t), rv);
        }
    }

    /// A virtual or interface call of `m` that class-hierarchy analysis
    /// bound to a few implementations (`g`): each inlined behind its
    /// guard, tested in turn, and the ordinary call of `dispatch` where
    /// none holds (a class loaded since, or an implementation too big to
    /// inline). A virtual call's guard compares the receiver's vtable
    /// entry at the call's index with the implementation (the load chain
    /// the call itself needs, and every receiver class inheriting the
    /// method passes it); an interface call's compares the receiver's
    /// class (its itable lookup is the inline cache's, a load more and
    /// a compare per miss). The ordinary call is a cold block when every
    /// implementation is inlined. Every way pushes the result and meets
    /// after the call.
    fn guarded_inline_call(
        &mut self,
        m: &'static Method,
        dispatch: Dispatch,
        g: Guarded,
        args: Vec<(K, Value)>,
        depth_after: usize,
    ) -> Result<(), Unsupported> {
        let recv = args[0].1;
        let recv_key = self.key(recv);
        self.stack_restore(&args);
        let key = match dispatch {
            _ if g.by_class => self.exact_class_key(recv),
            Dispatch::Virtual(index) => self.vtable_target(recv, index, m),
            _ => self.class_of(recv),
        };
        self.s.stack.truncate(depth_after);
        let join = self.b.create_block();
        // The facts every way into the join carries (`BlockFacts::meet`):
        // what the receiver's and the arguments' checks proved, and what
        // each way knows of the frame's variables, survive the call.
        let mut met: Option<super::facts::BlockFacts> = None;
        let mut meet = |f: &super::facts::BlockFacts| match &mut met {
            Some(m) => m.meet(f),
            None => met = Some(f.clone()),
        };
        // The instruction after the call, where the join goes on.
        let after = self.s.idx + 1;
        let n = g.cases.len();
        for (expected, t, callee) in g.cases {
            let expected = if g.by_class {
                // SAFETY: a `by_class` case's key is a `&'static Class`
                // (`all_exact_keys`).
                let c = unsafe { &*(expected as *const Class) };
                self.exact_class_tag(c)
                    .expect("a by_class case names an instance class")
            } else {
                expected
            };
            let hit = self.b.ins().icmp_imm_s(IntCC::Equal, key, expected);
            let (inlined, next) = (self.b.create_block(), self.b.create_block());
            let from = self.here();
            let before = self.facts().clone();
            self.b.ins().brif(hit, inlined, &[], next, &[]);
            // Each way is entered by the guard's edge alone: what held
            // before the call holds on it (the receiver's null check, the
            // arguments' facts, the frame's variables').
            self.b.switch_to_block(inlined);
            self.seal(inlined);
            self.facts.set(inlined, before);
            // The callee's code types its receiver as its own class (and
            // what it inlines, as theirs), which only the guard proves:
            // an instance of another class takes the other ways with the
            // same value. (A failed inline fails the whole compile, which
            // drops the translator with this entry.)
            self.guarded_receivers.push(recv_key);
            self.inline_call(t, callee, args.clone(), depth_after)?;
            self.guarded_receivers.pop();
            self.lift_local_facts(after);
            meet(self.facts());
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(next);
            self.continue_from(from);
            self.s.stack.truncate(depth_after);
        }
        let miss = self.b.current_block().expect("translating into a block");
        if g.complete {
            self.b.set_cold_block(miss);
        }
        let profile_misses = self.env.profile_misses.filter(|_| g.profiled);
        for counter in self.env.guard_misses.into_iter().chain(profile_misses) {
            // Statistics (logging runs only): a racy add is enough.
            let addr = self.b.ins().iconst(I64, counter as *const _ as i64);
            let flags = MemFlagsData::trusted();
            let n = self.b.ins().load(I64, flags, addr, 0);
            let n = self.b.ins().iadd_imm_s(n, 1);
            self.b.ins().store(flags, n, addr, 0);
        }
        let target = match dispatch {
            Dispatch::Interface(index) => {
                self.stack_restore(&args);
                let t = self.itable_target(recv, index, m);
                self.s.stack.truncate(depth_after);
                t
            }
            Dispatch::Virtual(index) if g.by_class => {
                self.stack_restore(&args);
                let t = self.vtable_target(recv, index, m);
                self.s.stack.truncate(depth_after);
                t
            }
            _ => key,
        };
        self.call_method(m, target, &args, depth_after);
        self.lift_local_facts(after);
        meet(self.facts());
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(join);
        // Every edge into the join is emitted.
        self.seal(join);
        if let Some(f) = met {
            self.facts.set(join, f);
        }
        self.guarded_calls += n;
        Ok(())
    }

    /// Puts popped values back on the abstract stack (their variables
    /// still hold them), for a check that reports the instruction's entry
    /// state.
    fn stack_restore(&mut self, args: &[(K, Value)]) {
        for &(k, _) in args {
            self.s.stack.push(k);
            if k.slots() == 2 {
                self.s.stack.push(K::Hi);
            }
        }
    }

    // ---- inlining -------------------------------------------------------------------

    /// The implementations of a virtual call of `m` (vtable index
    /// `index`) that is not statically bound, to inline behind guards on
    /// the receiver's vtable entry: those class-hierarchy analysis finds
    /// among the loaded classes (`cha.rs`, at most
    /// [`MAX_GUARDED_TARGETS`]) that pass [`Translator::inline_candidate`]'s
    /// tests (the inlining plan accepts them).
    fn guarded_candidates(&self, m: &'static Method, index: u32) -> Option<Guarded> {
        if !self.plan.any_at(&self.path(), self.s.idx as u32) {
            return None;
        }
        let ts = super::cha::implementations(self.env.classes, m, index, MAX_GUARDED_TARGETS)?;
        self.guarded_of(ts.into_iter().map(|t| (t as *const Method as i64, t)))
    }

    /// The implementations of an interface call of `m` (`index` among its
    /// interface's methods), to inline behind guards on the receiver's
    /// class: the loaded classes implementing the interface
    /// (`cha.rs`, at most [`MAX_GUARDED_RECEIVERS`]) whose methods pass
    /// [`Translator::inline_candidate`]'s tests (the inlining plan accepts
    /// them).
    fn interface_candidates(&self, m: &'static Method, index: u32) -> Option<Guarded> {
        if !self.plan.any_at(&self.path(), self.s.idx as u32) {
            return None;
        }
        let rs = super::cha::interface_receivers(self.env.classes, m, index, MAX_GUARDED_RECEIVERS)?;
        let mut g = self.guarded_of(rs.into_iter().map(|(c, t)| (c as *const Class as i64, t)))?;
        g.by_class = self.all_exact_keys(&g);
        Some(g)
    }

    /// The implementations to inline behind guards at a virtual or
    /// interface call that class-hierarchy analysis left open (too many
    /// implementations loaded): those of the one or two receiver classes
    /// the interpreter's profile saw at the call (`interp/profile.rs`),
    /// as HotSpot's C2 inlines a call site's one or two profiled
    /// receivers behind class checks (`doCall.cpp`, monomorphic and
    /// bimorphic inlining). Each guard is on the receiver's exact class
    /// (its layout tag), except a virtual call's two classes sharing one
    /// implementation, guarded once on the vtable entry (every class
    /// inheriting it passes); the miss is the ordinary call, never cold
    /// (the profile is a sample of what ran, not a proof).
    fn profiled_candidates(&self, m: &'static Method, dispatch: Dispatch) -> Option<Guarded> {
        if !self.plan.any_at(&self.path(), self.s.idx as u32) {
            return None;
        }
        let (first, second) = match self.s.d.calls.seen(self.s.idx) {
            crate::interp::profile::Seen::Classes(a, b) => (a, b),
            _ => return None,
        };
        let mut targets: Vec<(i64, &'static Method)> = Vec::new();
        let mut classes: Vec<(i64, &'static Method)> = Vec::new();
        for c in std::iter::once(first).chain(second) {
            let (key, t) = match dispatch {
                Dispatch::Virtual(index) => {
                    let t = c.vtable_method(index as usize)?;
                    (t as *const Method as i64, t)
                }
                Dispatch::Interface(index) => (
                    c as *const Class as i64,
                    c.itable_method(m.class, index as usize)?,
                ),
                Dispatch::Static | Dispatch::Direct => return None,
            };
            if !targets.iter().any(|&(k, _)| k == key) {
                targets.push((key, t));
                classes.push((c as *const Class as i64, t));
            }
        }
        // A virtual call's profiled receivers with a method each are
        // guarded on their classes, as C2 guards a profiled receiver
        // (`GraphKit::maybe_cast_profiled_receiver`: the klass word
        // compared): the layout tag's one compare instead of the vtable's
        // loads. Two receivers sharing one method keep the one vtable
        // guard that both pass.
        let exact = matches!(dispatch, Dispatch::Virtual(_)) && classes.len() == targets.len();
        let mut g = if exact {
            let mut g = self.guarded_of(classes.into_iter())?;
            g.by_class = self.all_exact_keys(&g);
            if !g.by_class {
                g = self.guarded_of(targets.into_iter())?;
            }
            g
        } else {
            let mut g = self.guarded_of(targets.into_iter())?;
            g.by_class = matches!(dispatch, Dispatch::Interface(_)) && self.all_exact_keys(&g);
            g
        };
        g.complete = false;
        g.profiled = true;
        Some(g)
    }

    /// The guarded cases of `targets` (guard key, implementation): those
    /// [`Translator::inline_candidate`] accepts (one method's body decoded
    /// once per case that names it); `None` when none does.
    fn guarded_of(&self, targets: impl Iterator<Item = (i64, &'static Method)>) -> Option<Guarded> {
        let mut cases = Vec::new();
        let mut complete = true;
        for (key, t) in targets {
            match self.inline_candidate(Dispatch::Direct, t) {
                Some(c) => cases.push((key, t, c)),
                None => complete = false,
            }
        }
        (!cases.is_empty()).then_some(Guarded {
            cases,
            complete,
            profiled: false,
            by_class: false,
        })
    }

    /// Whether every case of `g` is keyed by an instance class that
    /// [`Translator::exact_class_tag`] names.
    fn all_exact_keys(&self, g: &Guarded) -> bool {
        g.cases.iter().all(|&(key, _, _)| {
            // SAFETY: every key here is a `&'static Class` from the class
            // table or the receiver profile, cast to an integer.
            let c = unsafe { &*(key as *const Class) };
            self.exact_class_tag(c).is_some()
        })
    }

    /// The way from the compiled method to the method being translated:
    /// per inlined callee, the call's instruction in its caller and the
    /// callee (`inlining::Plan`'s key without its last step).
    fn path(&self) -> Vec<super::inlining::Step> {
        let mut p = Vec::with_capacity(self.outer.len() + 1);
        for (i, o) in self.outer.iter().enumerate() {
            let callee = self.outer.get(i + 1).map_or(self.s.m, |n| n.scope.m);
            p.push(super::inlining::step(o.scope.idx, callee));
        }
        p
    }

    /// `m`'s body to inline at this call, or `None` for a real call: a
    /// statically bound callee (static, private or `invokespecial`, a final
    /// method or a final class's) with bytecode, not synchronized, no
    /// monitor instructions, already decoded (it has run: decoding
    /// resolves, which may load classes, and a compilation runs in a safe
    /// region), that the inlining plan accepts at this call.
    fn inline_candidate(&self, dispatch: Dispatch, m: &'static Method) -> Option<Callee> {
        if !self.inline || !statically_bound(dispatch, m) {
            return None;
        }
        let mut path = self.path();
        path.push(super::inlining::step(self.s.idx, m));
        if !self.plan.allows(&path) {
            return None;
        }
        let (d, ops) = super::inlining::body(m)?;
        let kinds = super::kinds::compute(m, d, &ops).ok()?;
        kinds.stacks.first()?.as_ref()?;
        Some(Callee { d, ops, kinds })
    }

    /// Translates `m`'s body in place of a call, with `args` its locals
    /// 0.. and its frame where the call would put it (above the caller's
    /// live operands): returns jump to a continuation with the result; an
    /// exception it does not catch goes to the caller's dispatch at the
    /// call. Its frame is written only at its safepoints (`safepoint`),
    /// so stack traces and the root scanner see it as a called frame.
    fn inline_call(
        &mut self,
        m: &'static Method,
        c: Callee,
        args: Vec<(K, Value)>,
        depth_after: usize,
    ) -> Result<(), Unsupported> {
        let ml = c.d.max_locals as usize;
        let ms = c.d.max_stack as usize;
        let rel = ((HEADER_SLOTS + depth_after + ml) * 8) as i64;
        let fp = self.b.ins().iadd_imm_s(self.s.fp, rel);
        let fp_offset = self.s.fp_offset + rel;
        self.extent = self.extent.max(fp_offset + ((HEADER_SLOTS + ms) * 8) as i64);
        let unwind = self.dispatch_block(self.s.idx);
        let leaves = self.exception_leaves(self.s.idx);
        let ret = self.b.create_block();
        let rk = m.desc.ret.as_ref().map(K::of_type);
        let rv = rk.map(|k| self.b.append_block_param(ret, ty(k)));
        let n = c.ops.len();
        // The receiver was checked by the call, which dominates the body.
        let receiver_fixed = !m.is_static() && !stores_local_0(&c.ops);
        let array_params = array_param_forms(m, &c.ops);
        let declared_params = declared_params(self.env, m, &c.ops);
        // A parameter the callee never stores into holds its argument at
        // every read: the argument's declared type, where it says more,
        // is the parameter's (an inlined `HashMap` method's receiver is
        // the caller's `Lru`, a final class: its data words sit at a
        // fixed offset).
        let unstored = never_stored_params(m, &c.ops, Some(()), |_| Some(()));
        let mut arg_declared = Vec::new();
        for &(k, v) in &args {
            let d = self.declared.get(&self.key(v)).copied().filter(|_| k == K::R);
            arg_declared.push(d);
            if k.slots() == 2 {
                arg_declared.push(None);
            }
        }
        let mut scope = Scope {
            m,
            d: c.d,
            ops: c.ops,
            kinds: c.kinds,
            ml,
            frame_slots: ml + HEADER_SLOTS + ms,
            vars: vec![[None; 5]; ml + ms + 2],
            blocks: vec![None; n],
            stack: Vec::new(),
            fp,
            dispatch: HashMap::new(),
            idx: 0,
            filled: false,
            polls: Vec::new(),
            exit: Some(InlineExit { ret, unwind, leaves }),
            fp_offset,
            receiver_fixed,
            array_params,
            declared_params,
            single_pred: Vec::new(),
            entry_facts: HashMap::new(),
            throw_only: Vec::new(),
            prediction: Default::default(),
            in_range: super::ranges::Proofs::default(),
            join_edges: Vec::new(),
            join_facts: HashMap::new(),
            loop_vars: HashMap::new(),
            live: Default::default(),
            loop_entry: HashMap::new(),
            ret_facts: None,
            loops: super::loops::Plan::default(),
            heads: HashMap::new(),
            last_cmp: None,
        };
        std::mem::swap(&mut self.s, &mut scope);
        self.outer.push(Outer {
            scope,
            arg_slots: m.arg_slots as usize,
        });
        self.inlined_calls += 1;
        self.make_blocks();
        for (slot, d) in arg_declared.into_iter().enumerate() {
            if let (Some(d), Some(Some(()))) = (d, unstored.get(slot)) {
                let own = &mut self.s.declared_params[slot];
                *own = Some(own.map_or(d, |own| super::declared::narrower(own, d)));
            }
        }
        let mut slot = 0;
        for (k, v) in args {
            self.def_local(slot, k, v);
            slot += k.slots();
        }
        if calls_in_a_loop(&self.s.ops) {
            // The frame's header now, once per inlined call, rather than at
            // the first safepoint, which a loop's would repeat every trip: a
            // loop head keeps the header words written before it
            // (`loop_header_words`). The caller's position is left to the
            // first safepoint: a store of it here saves no instruction a
            // trip (Callgrind counts the same) and moved regalloc2's
            // spills into Queens' hot loop (9.1 -> 12.2 ms a round).
            let caller = self.outer.last().map(|o| (o.scope.fp, o.scope.fp_offset));
            let caller = caller.expect("an inlined callee has a caller");
            let mut words = std::mem::take(&mut self.facts().frame_words);
            write_header(
                &mut self.b,
                &mut words,
                (self.s.fp, self.s.fp_offset),
                self.s.m,
                caller,
            );
            self.facts().frame_words = words;
        }
        let first = self.s.blocks[0].expect("instruction 0 is reachable");
        // The caller's facts, into a first block nothing else enters.
        self.record_edge_facts(0);
        self.b.ins().jump(first, &[]);
        self.s.filled = true;
        let mut result = Ok(());
        for i in 0..n {
            result = self.instruction(i);
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            if !self.s.filled {
                self.b.ins().trap(ir::TrapCode::unwrap_user(1));
            }
            self.finish_polls();
            self.finish_dispatch();
        }
        let ret_facts = self.s.ret_facts.take();
        let outer = self.outer.pop().expect("pushed above");
        let mut scope = outer.scope;
        std::mem::swap(&mut self.s, &mut scope);
        result?;
        self.b.switch_to_block(ret);
        if let Some(f) = ret_facts {
            // Every return of the callee is translated: they are all the
            // edges into its continuation.
            self.seal(ret);
            self.facts.set(ret, f);
        }
        if let (Some(k), Some(v)) = (rk, rv) {
            self.push(k, v);
        }
        Ok(())
    }
}

/// Per instruction of `ops`: whether it lies in a loop, between a
/// backward branch's target and the branch (the natural loop's extent in
/// javac's layout, where a loop's body is contiguous).
pub(super) fn in_loops(ops: &[Op]) -> Vec<bool> {
    let mut in_loop = vec![false; ops.len()];
    for (j, op) in ops.iter().enumerate() {
        let t = match *op {
            Op::If(_, t) | Op::IfICmp(_, t) | Op::IfACmp(_, t) | Op::IfNull(_, t) | Op::Goto(t) => t,
            _ => continue,
        };
        if t.backward {
            let from = (t.index as usize).min(j);
            in_loop[from..=j].iter_mut().for_each(|x| *x = true);
        }
    }
    in_loop
}

/// Whether a call lies in one of `ops`'s loops (`in_loops`): a safepoint
/// on every trip that takes it.
fn calls_in_a_loop(ops: &[Op]) -> bool {
    let in_loop = in_loops(ops);
    ops.iter()
        .zip(in_loop)
        .any(|(op, looped)| looped && matches!(op, Op::Invoke(..)))
}

/// Whether a method's ops store into local 0 (a reference store: `this`
/// replaced).
fn stores_local_0(ops: &[Op]) -> bool {
    ops.iter().any(|op| matches!(op, Op::Store(_, 0)))
}

/// By local of `m`: `of` each parameter's declared type (`receiver` for
/// an instance method's local 0), kept only for the locals `ops` never
/// store into, so that every read of the local is the argument, which
/// the verifier typed as declared (or null).
fn never_stored_params<T: Copy>(
    m: &Method,
    ops: &[Op],
    receiver: Option<T>,
    of: impl Fn(&crate::classfile::FieldType) -> Option<T>,
) -> Vec<Option<T>> {
    let mut per_local = Vec::new();
    if !m.is_static() {
        per_local.push(receiver);
    }
    for t in &m.desc.params {
        per_local.push(of(t));
        if K::of_type(t).slots() == 2 {
            per_local.push(None);
        }
    }
    for op in ops {
        if let Op::Store(_, n) = op {
            if let Some(p) = per_local.get_mut(*n as usize) {
                *p = None;
            }
        }
    }
    per_local
}

/// By local of `m`: the array form of each parameter of an array type
/// (`Some(true)`: primitive elements) that `ops` never store into.
fn array_param_forms(m: &Method, ops: &[Op]) -> Vec<Option<bool>> {
    use crate::classfile::FieldType;
    never_stored_params(m, ops, None, |t| match t {
        FieldType::Array(component) => {
            Some(!matches!(**component, FieldType::Object(_) | FieldType::Array(_)))
        }
        _ => None,
    })
}

/// What a loop's local (`loop_vars.rs`) is on the forward edges into its
/// head recorded so far: non-null on all of them, and the declared type
/// they all give it.
type LoopLocalEntry = (bool, Option<super::declared::Declared>);

/// By local of `m`: the declared type (`declared.rs`) of each reference
/// parameter that `ops` never store into; the receiver is an instance of
/// the method's class or a subclass (of an implementing class, for an
/// interface's default method, which is left out).
fn declared_params(env: &CompileEnv, m: &Method, ops: &[Op]) -> Vec<Option<super::declared::Declared>> {
    let receiver = super::declared::of_receiver(m.class);
    never_stored_params(m, ops, receiver, |t| super::declared::of_type(env.classes.0, t))
}

/// The guarded cases of a virtual or interface call: each guard's key (a
/// `Method` for a vtable entry's guard, a `Class` for a receiver class's)
/// with the implementation inlined behind it; `complete` when every
/// implementation class-hierarchy analysis found is among them.
struct Guarded {
    cases: Vec<(i64, &'static Method, Callee)>,
    complete: bool,
    /// The cases are a receiver-type profile's (`profiled_candidates`),
    /// not class-hierarchy analysis's.
    profiled: bool,
    /// The cases' keys are instance classes, each compared with the
    /// receiver's layout tag (`Translator::exact_class_key`), rather
    /// than methods compared with its vtable entry.
    by_class: bool,
}

/// A callee to inline: its decoded form, ops and kinds.
struct Callee {
    d: &'static Decoded,
    ops: Vec<Op>,
    kinds: Kinds,
}

/// The variable of slot `slot` and kind `k` in `vars` (declared on first
/// use).
fn var_in(b: &mut FunctionBuilder, vars: &mut Vec<[Option<Variable>; 5]>, slot: usize, k: K) -> Variable {
    if slot >= vars.len() {
        vars.resize(slot + 1, [None; 5]);
    }
    let i = k.index();
    if let Some(v) = vars[slot][i] {
        return v;
    }
    let v = b.declare_var(ty(k));
    vars[slot][i] = Some(v);
    v
}

/// Whether a call of `m` by `dispatch` is translated as an intrinsic
/// (`Translator::op`'s cases before the ordinary `invoke`): never
/// inlined.
pub(super) fn is_intrinsic(dispatch: Dispatch, m: &'static Method) -> bool {
    match dispatch {
        Dispatch::Static => {
            is_on_spin_wait(m)
                || super::intrinsics::is_arraycopy(m)
                || super::math::unary(m).is_some()
                || super::math::binary(m).is_some()
                || super::digit::is_character_digit(m)
                || super::get_chars::is_integer_get_chars(m)
        }
        Dispatch::Virtual(_) | Dispatch::Direct => {
            super::intrinsics::is_string_hash_code(m)
                || super::index_of::is_string_index_of(m)
                || super::string_equals::is_string_equals(m)
        }
        Dispatch::Interface(_) => false,
    }
}

/// Whether a call of `m` by `dispatch` has one target whatever the
/// receiver: static, private or `invokespecial`, or a final method or a
/// final class's, which no receiver overrides.
pub(super) fn statically_bound(dispatch: Dispatch, m: &'static Method) -> bool {
    match dispatch {
        Dispatch::Static | Dispatch::Direct => true,
        Dispatch::Virtual(_) => {
            m.is_private()
                || m.flags & crate::classfile::access::FINAL != 0
                || m.class.flags & crate::classfile::access::FINAL != 0
        }
        Dispatch::Interface(_) => false,
    }
}

/// What an exception dispatch block is for: the handlers covering its
/// instructions, in table order, and whether it releases a deferred lock
/// first (`Translator::dispatch_block`).
type DispatchKey = (Vec<u32>, bool);

/// Frame words known to hold a value (`BlockFacts::frame_words`).
type FrameWords = HashMap<i64, super::facts::FrameWord>;

/// Stores `word` (`value`, or the constant it names) at `offset` from the
/// frame `frame` (its pointer and its offset from the method's own),
/// unless `words` knows the word holds it already.
fn store_word(
    b: &mut FunctionBuilder,
    words: &mut FrameWords,
    frame: (Value, i64),
    offset: i32,
    word: super::facts::FrameWord,
    value: Option<Value>,
) {
    let at = frame.1 + i64::from(offset);
    if words.get(&at) == Some(&word) {
        return;
    }
    let v = match (value, word) {
        (Some(v), _) => v,
        (None, super::facts::FrameWord::Const(c)) => b.ins().iconst(I64, c),
        (None, _) => unreachable!("a value or a constant to store"),
    };
    b.ins().store(MemFlagsData::trusted(), v, frame.0, offset);
    words.insert(at, word);
}

/// Writes a frame's header: its method, its caller, compiled (at each
/// safepoint for an inlined frame; the words `words` knows hold their
/// values are left).
fn write_header(
    b: &mut FunctionBuilder,
    words: &mut FrameWords,
    frame: (Value, i64),
    m: &'static Method,
    caller: (Value, i64),
) {
    let w = super::facts::FrameWord::Frame(caller.1);
    store_word(b, words, frame, off::FRAME_CALLER, w, Some(caller.0));
    write_method_and_flags(b, words, frame, m);
}

/// Writes a frame header's method and `COMPILED` (a leaf entry's
/// safepoints: its entry stored the caller).
fn write_method_and_flags(
    b: &mut FunctionBuilder,
    words: &mut FrameWords,
    frame: (Value, i64),
    m: &'static Method,
) {
    use super::facts::FrameWord::Const;
    store_word(
        b,
        words,
        frame,
        off::FRAME_METHOD,
        Const(m as *const Method as i64),
        None,
    );
    store_word(b, words, frame, off::FRAME_FLAGS, Const(COMPILED as i64), None);
}

/// Stores a frame's position at instruction `idx` (with `IN_CALL` when a
/// callee owns the topmost `call_args` slots) and every reference its map
/// names there that is live (`live`), adding each to `out` for the
/// reload, and a null for each dead one (`liveness.rs`); a word `words`
/// knows holds its value already is not stored again. An `unwinding`
/// frame (an exception leaving the method) gets its position alone, with
/// `UNWINDING`.
#[allow(clippy::too_many_arguments)]
fn spill_frame(
    b: &mut FunctionBuilder,
    words: &mut FrameWords,
    vars: &mut Vec<[Option<Variable>; 5]>,
    d: &Decoded,
    live: &super::liveness::LiveLocals,
    ml: usize,
    frame: (Value, i64),
    idx: usize,
    call_args: Option<usize>,
    unwinding: bool,
    out: &mut Vec<(Variable, Value, i32, i64)>,
) {
    let pos = idx | if call_args.is_some() { IN_CALL } else { 0 } | if unwinding { UNWINDING } else { 0 };
    let w = super::facts::FrameWord::Const(pos as i64);
    store_word(b, words, frame, off::FRAME_LINK, w, None);
    if unwinding {
        // The scanner reads none of the frame's slots.
        return;
    }
    let maps = &d.maps;
    let depth = maps.depth[idx] as usize;
    let stack_live = depth - call_args.unwrap_or(0).min(depth);
    let mut slots: Vec<(usize, i32)> = Vec::new();
    for i in 0..ml {
        if maps.local_is_ref(idx, i) {
            let offset = -(((ml - i) * 8) as i32);
            if live.is_live(idx, i) {
                slots.push((i, offset));
            } else {
                // The root scanner reads the slot as a reference: a null,
                // not whatever an earlier stop left there.
                store_word(b, words, frame, offset, super::facts::FrameWord::Const(0), None);
            }
        }
    }
    for j in 0..stack_live {
        if maps.stack_is_ref(idx, j) {
            slots.push((ml + j, ((HEADER_SLOTS + j) * 8) as i32));
        }
    }
    for (slot, offset) in slots {
        let var = var_in(b, vars, slot, K::R);
        let v = b.use_var(var);
        store_word(
            b,
            words,
            frame,
            offset,
            super::facts::FrameWord::Value(v),
            Some(v),
        );
        out.push((var, frame.0, offset, frame.1));
    }
}

//! The runtime functions compiled code calls (`helpers.rs` lists them),
//! generic over the barrier set: each finds the thread's `JThread`
//! through the context and does what the interpreter does for the same
//! instruction, with the same errors and messages.
//!
//! Where it sits: called from compiled code only, on the thread that owns
//! the context, with the calling frame published (its position, its
//! references spilled, the top frame and first free slot set) before any
//! that can reach a safepoint. A helper returning an object returns 0 when
//! it left an exception pending; one returning a status returns 1 then.

use fastpath::gc::BarrierSet;

use super::frame::{JitCtx, Ret};
use super::helpers::{Helper, HelperTable};
use crate::interp::stack::FrameHeader;
use crate::interp::Decoded;
use crate::link::{Class, Method};
use crate::runtime::vm::Literal;
use crate::runtime::{JResult, JThread};

/// The thread of a context.
///
/// # Safety
///
/// `ctx` is the calling thread's context, whose `thread` was set by the
/// entry into compiled code to its `JThread<B>`, which is suspended in
/// that entry (nothing else uses it until the helper returns).
unsafe fn thread<'a, B: BarrierSet>(ctx: *const JitCtx) -> &'a mut JThread<B> {
    // SAFETY: the function's contract.
    unsafe { &mut *((*ctx).thread.get() as *mut JThread<B>) }
}

fn obj_or_zero(r: JResult<usize>) -> usize {
    r.unwrap_or(0)
}

fn decoded(m: &'static Method) -> &'static Decoded {
    match m.decoded.get() {
        Some(Ok(d)) => d,
        _ => unreachable!("a compiled method is decoded"),
    }
}

extern "C" fn poll<B: BarrierSet>(ctx: *const JitCtx) {
    // SAFETY: called by compiled code with its context (module docs).
    let t = unsafe { thread::<B>(ctx) };
    t.m.safepoint_poll();
}

extern "C" fn new<B: BarrierSet>(ctx: *const JitCtx, c: &'static Class) -> usize {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    if !c.is_initialized() && t.ensure_initialized(c).is_err() {
        return 0;
    }
    obj_or_zero(t.alloc_object(c))
}

extern "C" fn new_array<B: BarrierSet>(ctx: *const JitCtx, ac: &'static Class, len: i32) -> usize {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    obj_or_zero(t.alloc_array(ac, len))
}

extern "C" fn multi_new_array<B: BarrierSet>(
    ctx: *const JitCtx,
    c: &'static Class,
    dims: usize,
    counts: *const u64,
) -> usize {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    // SAFETY: compiled code stored `dims` counts there.
    let v: Vec<i32> = (0..dims).map(|i| unsafe { *counts.add(i) } as i32).collect();
    obj_or_zero(t.multi_array(c, &v))
}

extern "C" fn init_class<B: BarrierSet>(ctx: *const JitCtx, c: &'static Class) -> u64 {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    u64::from(t.ensure_initialized(c).is_err())
}

extern "C" fn ldc_string<B: BarrierSet>(ctx: *const JitCtx, lit: &'static Literal) -> usize {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    obj_or_zero(t.literal(lit))
}

extern "C" fn mirror<B: BarrierSet>(ctx: *const JitCtx, c: &'static Class) -> usize {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    obj_or_zero(t.mirror_of(c))
}

extern "C" fn throw_npe<B: BarrierSet>(ctx: *const JitCtx, m: &'static Method, idx: usize) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    let d = decoded(m);
    let at = d.insns[idx.min(d.insns.len() - 1)..].as_ptr();
    t.throw_npe(at, d);
}

extern "C" fn throw_index<B: BarrierSet>(ctx: *const JitCtx, index_and_length: u64) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    t.throw_aioobe(
        index_and_length as u32 as i32,
        (index_and_length >> 32) as u32 as i32,
    );
}

extern "C" fn throw_divide<B: BarrierSet>(ctx: *const JitCtx) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    t.throw_new("java/lang/ArithmeticException", Some("/ by zero"));
}

extern "C" fn throw_cast<B: BarrierSet>(ctx: *const JitCtx, obj: usize, c: &'static Class) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    let from = t.class_of(obj);
    t.throw_class_cast(from, c);
}

extern "C" fn throw_store<B: BarrierSet>(ctx: *const JitCtx, v: usize) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    let name = t.class_of(v).java_name();
    t.throw_new("java/lang/ArrayStoreException", Some(&name));
}

extern "C" fn throw_error<B: BarrierSet>(ctx: *const JitCtx, m: &'static Method, e: usize) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    let err = decoded(m).errors[e].clone();
    t.throw_error(&err);
}

extern "C" fn throw_monitor_state<B: BarrierSet>(ctx: *const JitCtx) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    t.throw_new("java/lang/IllegalMonitorStateException", None);
}

extern "C" fn throw<B: BarrierSet>(ctx: *const JitCtx, exc: usize) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    t.set_pending(exc);
}

extern "C" fn throw_stack_overflow<B: BarrierSet>(
    ctx: *const JitCtx,
    caller: *mut FrameHeader,
    sp: *mut u64,
) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    // The frame that overflowed was never set up: the error is its
    // caller's, made above the caller's operands.
    t.stack.top_frame.set(caller);
    t.stack.sp.set(sp);
    t.throw_stack_overflow();
}

extern "C" fn throw_interface<B: BarrierSet>(ctx: *const JitCtx, rc: &'static Class, m: &'static Method) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    t.interface_call_failed(rc, m);
}

extern "C" fn throw_abstract<B: BarrierSet>(ctx: *const JitCtx, _recv: usize, m: &'static Method) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    t.throw_new("java/lang/AbstractMethodError", Some(&m.java_name()));
}

extern "C" fn is_subclass(sub: &'static Class, c: &'static Class) -> u32 {
    u32::from(sub.is_subclass_of(c))
}

extern "C" fn invoke<B: BarrierSet>(
    ctx: *const JitCtx,
    m: &'static Method,
    args: *mut u64,
    _caller: *mut FrameHeader,
) -> Ret {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    match t.invoke_from_compiled(m, args) {
        Ok(v) => Ret { value: v, status: 0 },
        Err(_) => Ret { value: 0, status: 1 },
    }
}

/// An interface call site's monomorphic inline cache: the receiver class
/// it last resolved and the method that class runs there, or null. The
/// compiled site (`emit.rs`, `itable_target`) compares the receiver's
/// class with the entry's and calls the entry's method when they match;
/// otherwise it calls [`Helper::Itable`], which looks the method up and
/// fills an empty cache. Invariants: the entry is set at most once (by a
/// compare-and-swap from null, so a site that turns polymorphic keeps its
/// first receiver class's entry and calls the helper for the others, and
/// there is one entry per site, never freed, never changed); an entry is
/// immutable once published, and is published with release ordering and
/// read with acquire, so a reader that sees the pointer sees both words.
/// Two words behind one pointer, not two words in the site: a pair
/// written in place could be read half old, half new.
#[repr(C)]
pub struct ItableCache {
    /// The entry, or null.
    pub entry: std::sync::atomic::AtomicPtr<ItableEntry>,
}

/// A resolved interface call: the receiver class, the method it runs.
#[repr(C)]
pub struct ItableEntry {
    /// The receiver's class.
    pub class: usize,
    /// The method.
    pub method: usize,
}

impl ItableCache {
    /// A new empty cache for one call site, leaked: compiled code, which
    /// holds its address, is never freed.
    pub fn leak() -> &'static ItableCache {
        Box::leak(Box::new(ItableCache {
            entry: std::sync::atomic::AtomicPtr::new(std::ptr::null_mut()),
        }))
    }

    /// `ItableEntry::class`'s byte offset.
    pub const CLASS: i32 = std::mem::offset_of!(ItableEntry, class) as i32;
    /// `ItableEntry::method`'s byte offset.
    pub const METHOD: i32 = std::mem::offset_of!(ItableEntry, method) as i32;

    /// Publishes `class -> method` if the cache is empty.
    #[cold]
    fn fill(&self, class: usize, method: usize) {
        use std::sync::atomic::Ordering;
        // Relaxed: only an empty cache is filled; a stale null read makes
        // the exchange below fail, which is harmless.
        if !self.entry.load(Ordering::Relaxed).is_null() {
            return;
        }
        let e = Box::into_raw(Box::new(ItableEntry { class, method }));
        // Release on success: the entry's words before its pointer (the
        // compiled reader loads the pointer with acquire). Relaxed on
        // failure: nothing is read through the pointer found.
        if self
            .entry
            .compare_exchange(std::ptr::null_mut(), e, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            // SAFETY: `e` came from `Box::into_raw` above and was never
            // published (the exchange failed).
            drop(unsafe { Box::from_raw(e) });
        }
    }
}

extern "C" fn itable(
    c: &'static Class,
    iface: &'static Class,
    index: usize,
    cache: &'static ItableCache,
) -> usize {
    match c.itable_method(iface, index) {
        Some(m) => {
            let m = m as *const Method as usize;
            cache.fill(c as *const Class as usize, m);
            m
        }
        None => 0,
    }
}

extern "C" fn monitor_enter<B: BarrierSet>(ctx: *const JitCtx, obj: usize) {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    // SAFETY: `obj` is a live object of this heap (compiled code read it
    // from a root since its last safepoint and spilled it in its frame).
    unsafe { t.m.monitor_enter_unchecked(obj) };
}

extern "C" fn monitor_exit<B: BarrierSet>(ctx: *const JitCtx, obj: usize) -> u32 {
    // SAFETY: as `poll`.
    let t = unsafe { thread::<B>(ctx) };
    // SAFETY: as `monitor_enter`.
    u32::from(unsafe { t.m.monitor_exit_unchecked(obj) }.is_err())
}

extern "C" fn drem(a: f64, b: f64) -> f64 {
    a % b
}

extern "C" fn frem(a: f32, b: f32) -> f32 {
    a % b
}

/// The helpers' addresses for barrier set `B`.
pub fn table<B: BarrierSet>() -> HelperTable {
    let addr = |h: Helper| -> usize {
        match h {
            Helper::Poll => poll::<B> as *const () as usize,
            Helper::New => new::<B> as *const () as usize,
            Helper::NewArray => new_array::<B> as *const () as usize,
            Helper::MultiNewArray => multi_new_array::<B> as *const () as usize,
            Helper::InitClass => init_class::<B> as *const () as usize,
            Helper::LdcString => ldc_string::<B> as *const () as usize,
            Helper::Mirror => mirror::<B> as *const () as usize,
            Helper::ThrowNpe => throw_npe::<B> as *const () as usize,
            Helper::ThrowIndex => throw_index::<B> as *const () as usize,
            Helper::ThrowDivide => throw_divide::<B> as *const () as usize,
            Helper::ThrowCast => throw_cast::<B> as *const () as usize,
            Helper::ThrowStore => throw_store::<B> as *const () as usize,
            Helper::ThrowError => throw_error::<B> as *const () as usize,
            Helper::ThrowMonitorState => throw_monitor_state::<B> as *const () as usize,
            Helper::Throw => throw::<B> as *const () as usize,
            Helper::ThrowStackOverflow => throw_stack_overflow::<B> as *const () as usize,
            Helper::ThrowInterface => throw_interface::<B> as *const () as usize,
            Helper::ThrowAbstract => throw_abstract::<B> as *const () as usize,
            Helper::IsSubclass => is_subclass as *const () as usize,
            Helper::Invoke => invoke::<B> as *const () as usize,
            Helper::Itable => itable as *const () as usize,
            Helper::MonitorEnter => monitor_enter::<B> as *const () as usize,
            Helper::MonitorExit | Helper::SpanExit => monitor_exit::<B> as *const () as usize,
            Helper::Drem => drem as *const () as usize,
            Helper::Frem => frem as *const () as usize,
            // Installed in the code cache by `Jit::init`, which sets it.
            Helper::SpinPause => 0,
        }
    };
    let mut t = [0usize; Helper::ALL.len()];
    for h in Helper::ALL {
        t[h as usize] = addr(h);
    }
    HelperTable(t)
}

//! The runtime functions compiled code calls, as data: each [`Helper`]'s
//! C signature (for the translator's imports) and whether it can reach a
//! safepoint (then the call site spills and reloads the frame's
//! references). Their implementations, generic over the barrier set, are
//! in `runtime.rs`; [`HelperTable`] holds their addresses for one set.
//!
//! Where it sits: the translator is not generic (one copy of Cranelift
//! code, whatever the barrier set): it names a helper by this enum and
//! `install` resolves the name through the table.

use cranelift_codegen::ir::types::{F32, F64, I32, I64};
use cranelift_codegen::ir::Type;
use cranelift_codegen::isa::CallConv;

/// A runtime function compiled code calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Helper {
    /// `(ctx)`: stop for a safepoint (the poll was armed); called with
    /// the `preserve_all` convention (`preserve.rs`).
    Poll,
    /// `(ctx, class) -> obj` (0: an exception is pending): `new`, with the
    /// class's initialization.
    New,
    /// `(ctx, array class, length: i32) -> obj`.
    NewArray,
    /// `(ctx, array class, dims, counts) -> obj`.
    MultiNewArray,
    /// `(ctx, class) -> status`: initializes `class`.
    InitClass,
    /// `(ctx, literal) -> obj`: the interned string.
    LdcString,
    /// `(ctx, class) -> obj`: the class's `java.lang.Class`.
    Mirror,
    /// `(ctx, method, index)`: `NullPointerException` at that instruction.
    ThrowNpe,
    /// `(ctx, index | length << 32)`: `ArrayIndexOutOfBoundsException`,
    /// the two 32-bit values in one word, packed on the cold path
    /// (`emit.rs`, `throw_index`), so that no argument register is asked
    /// of the values the hot path keeps (Permute's and Queens' loops moved
    /// an array's length between registers at every check: −8 % of their
    /// instructions).
    ThrowIndex,
    /// `(ctx)`: `ArithmeticException: / by zero`.
    ThrowDivide,
    /// `(ctx, obj, class)`: `ClassCastException`.
    ThrowCast,
    /// `(ctx, value)`: `ArrayStoreException`.
    ThrowStore,
    /// `(ctx, method, error index)`: the method's resolution error.
    ThrowError,
    /// `(ctx)`: `IllegalMonitorStateException`.
    ThrowMonitorState,
    /// `(ctx, exception)`: makes it pending (`athrow`).
    Throw,
    /// `(ctx, caller frame, sp)`: `StackOverflowError` in the caller.
    ThrowStackOverflow,
    /// `(ctx, receiver class, method)`: a failed interface call.
    ThrowInterface,
    /// `(ctx, receiver, method)`: `AbstractMethodError`.
    ThrowAbstract,
    /// `(sub, class) -> i32`: whether `sub` is `class` or a subtype.
    IsSubclass,
    /// `(ctx, method, args, caller frame) -> (value, status)`: calls a
    /// method with no compiled code (interpreted, native, abstract).
    Invoke,
    /// `(class, interface, index, cache) -> method` (0: none); fills the
    /// call site's empty [`ItableCache`](super::runtime::ItableCache).
    Itable,
    /// `(ctx, obj)`: `monitorenter` (blocks in a safe region when contended).
    MonitorEnter,
    /// `(ctx, obj) -> status` (1: not the owner).
    MonitorExit,
    /// `(f64, f64) -> f64`: `drem`.
    Drem,
    /// `(f32, f32) -> f32`: `frem`.
    Frem,
    /// `()`: the configured spin pause (`Thread.onSpinWait`), installed in
    /// the code cache by `Jit::init` (`fastpath_cranelift::install_pause`).
    SpinPause,
    /// `(ctx, obj) -> status`: `MonitorExit` where a coarsened lock is
    /// released (`coarsen.rs`: its budget spent, or a way out), which runs
    /// once per span of rounds while the loop's values are live around
    /// it; the same runtime function, called with `preserve_all`.
    SpanExit,
}

impl Helper {
    /// Every helper, in index order.
    pub const ALL: [Helper; 27] = [
        Helper::Poll,
        Helper::New,
        Helper::NewArray,
        Helper::MultiNewArray,
        Helper::InitClass,
        Helper::LdcString,
        Helper::Mirror,
        Helper::ThrowNpe,
        Helper::ThrowIndex,
        Helper::ThrowDivide,
        Helper::ThrowCast,
        Helper::ThrowStore,
        Helper::ThrowError,
        Helper::ThrowMonitorState,
        Helper::Throw,
        Helper::ThrowStackOverflow,
        Helper::ThrowInterface,
        Helper::ThrowAbstract,
        Helper::IsSubclass,
        Helper::Invoke,
        Helper::Itable,
        Helper::MonitorEnter,
        Helper::MonitorExit,
        Helper::Drem,
        Helper::Frem,
        Helper::SpinPause,
        Helper::SpanExit,
    ];

    /// Its arguments' and results' Cranelift types.
    pub fn signature(self) -> (&'static [Type], &'static [Type]) {
        match self {
            Helper::Poll | Helper::ThrowDivide | Helper::ThrowMonitorState => (&[I64], &[]),
            Helper::New | Helper::LdcString | Helper::Mirror => (&[I64, I64], &[I64]),
            Helper::InitClass => (&[I64, I64], &[I64]),
            Helper::NewArray => (&[I64, I64, I32], &[I64]),
            Helper::MultiNewArray => (&[I64, I64, I64, I64], &[I64]),
            Helper::ThrowNpe | Helper::ThrowError => (&[I64, I64, I64], &[]),
            Helper::ThrowIndex => (&[I64, I64], &[]),
            Helper::ThrowCast | Helper::ThrowInterface | Helper::ThrowAbstract => (&[I64, I64, I64], &[]),
            Helper::ThrowStore | Helper::Throw => (&[I64, I64], &[]),
            Helper::ThrowStackOverflow => (&[I64, I64, I64], &[]),
            Helper::IsSubclass => (&[I64, I64], &[I32]),
            Helper::Invoke => (&[I64, I64, I64, I64], &[I64, I64]),
            Helper::Itable => (&[I64, I64, I64, I64], &[I64]),
            Helper::MonitorEnter => (&[I64, I64], &[]),
            Helper::MonitorExit | Helper::SpanExit => (&[I64, I64], &[I32]),
            Helper::Drem => (&[F64, F64], &[F64]),
            Helper::Frem => (&[F32, F32], &[F32]),
            Helper::SpinPause => (&[], &[]),
        }
    }

    /// The calling convention compiled code calls it with, `inline_locks`
    /// telling whether monitors are inline (`CompileEnv::inline_locks`).
    /// `preserve_all` (through the stub `preserve.rs` compiles, which
    /// `Jit::init` installs in its table slot) where its calls sit on cold
    /// paths that join the hot one and run rarely: the poll's stop and a
    /// coarsened lock's release. System V for every other helper, the runtime's
    /// `MonitorEnter` and `MonitorExit` included: an inflated monitor (one
    /// that was waited on, or contended) misses the inline paths at every
    /// enter and exit, and the stub's register saves (some 60
    /// instructions) would then be paid at each, while a coarsened loop
    /// gains its registers from the release's stub alone (the enter's
    /// adds nothing there). A coarsened loop on an inflated monitor, which
    /// no lock-stack holds, keeps no round and releases it every round: it
    /// pays the stub there as well, beside the runtime's enter and exit.
    /// BENCHMARKS.md has each choice's instruction counts.
    pub fn call_conv(self, inline_locks: bool) -> CallConv {
        match self {
            Helper::Poll => CallConv::PreserveAll,
            Helper::SpanExit if inline_locks => CallConv::PreserveAll,
            _ => CallConv::SystemV,
        }
    }

    /// Its arguments' and results' types as compiled code calls it with
    /// `conv`: [`Self::signature`] for System V; for `preserve_all`, whose
    /// signatures return nothing, the results go by memory (the address of
    /// the caller's result block after the arguments, `fastpath_cranelift::
    /// slow`'s convention).
    pub fn import_signature(self, conv: CallConv) -> (Vec<Type>, Vec<Type>) {
        let (params, returns) = self.signature();
        if conv != CallConv::PreserveAll || returns.is_empty() {
            return (params.to_vec(), returns.to_vec());
        }
        let mut params = params.to_vec();
        params.push(I64);
        (params, Vec::new())
    }

    /// Whether a call can reach a safepoint (allocate, run Java, block):
    /// the call site publishes its frame and spills its references first.
    pub fn safepoint(self) -> bool {
        !matches!(
            self,
            Helper::IsSubclass
                | Helper::Itable
                | Helper::MonitorExit
                | Helper::SpanExit
                | Helper::Drem
                | Helper::Frem
                | Helper::SpinPause
        )
    }

    /// The import index (`install` resolves it through [`HelperTable`]).
    pub fn index(self) -> u32 {
        self as u32
    }
}

/// The library's slow paths compiled code calls from the inlined fast
/// paths, after the helpers in the import index space.
pub const LIBRARY_BASE: u32 = Helper::ALL.len() as u32;

/// The address of each helper, for one barrier set.
#[derive(Clone, Debug)]
pub struct HelperTable(pub [usize; Helper::ALL.len()]);

impl HelperTable {
    /// The address of `h`.
    pub fn addr(&self, h: Helper) -> usize {
        self.0[h as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preserving_helpers_return_through_memory() {
        for h in Helper::ALL {
            let (params, returns) = h.signature();
            let (ip, ir) = h.import_signature(h.call_conv(true));
            if h.call_conv(true) == CallConv::PreserveAll {
                assert!(ir.is_empty(), "{h:?}");
                assert_eq!(ip.len(), params.len() + usize::from(!returns.is_empty()), "{h:?}");
            } else {
                assert_eq!((ip.as_slice(), ir.as_slice()), (params, returns), "{h:?}");
            }
        }
        assert_eq!(Helper::SpanExit.call_conv(false), CallConv::SystemV);
        assert_eq!(Helper::SpanExit.call_conv(true), CallConv::PreserveAll);
        assert_eq!(Helper::MonitorExit.call_conv(true), CallConv::SystemV);
    }

    #[test]
    fn helpers_are_listed_in_index_order() {
        for (i, h) in Helper::ALL.iter().enumerate() {
            assert_eq!(h.index() as usize, i, "{h:?}");
        }
    }
}

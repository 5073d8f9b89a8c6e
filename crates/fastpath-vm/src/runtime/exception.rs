//! Throwing: Java exceptions made by the VM (from bytecodes, natives,
//! linkage), their stack traces, and the uncaught-exception report.
//!
//! Where it sits: the interpreter and the natives call [`JThread::throw_new`]
//! and friends, which build the exception object by running its Java
//! constructor (so `Throwable.fillInStackTrace`, a native, records the
//! frames) and leave it pending; the dispatch loop then unwinds to a
//! handler (`exec.rs`).

use std::sync::atomic::Ordering;

use fastpath::gc::BarrierSet;

use super::{Error, JThread, Thrown};
use crate::interp::stack::FrameHeader;
use crate::interp::Insn;
use crate::link::Class;

impl<B: BarrierSet> JThread<B> {
    /// Throws a new `class` (internal name) with `message`.
    #[cold]
    pub fn throw_new(&mut self, class: &str, message: Option<&str>) -> Thrown {
        let c = match self.vm.loader.load(class) {
            Ok(c) => c,
            Err(e) if class != e.class => return self.throw_error(&e),
            Err(e) => panic!("the class library lacks {}: {e}", class),
        };
        self.throw_instance_of(c, message)
    }

    /// Throws a linkage-style error described by `e` (with its causes).
    #[cold]
    pub fn throw_error(&mut self, e: &Error) -> Thrown {
        match &e.cause {
            None => self.throw_new(e.class, e.message.as_deref()),
            Some(cause) => self.throw_caused(e, cause),
        }
    }

    /// Throws `e` with `cause` (made first) set by `Throwable.initCause`.
    #[cold]
    fn throw_caused(&mut self, e: &Error, cause: &Error) -> Thrown {
        let t = self.throw_error(cause);
        let cause_obj = self.take_pending();
        if cause_obj == 0 {
            return t;
        }
        let mark = self.stack.temps_len();
        let ct = self.stack.push_temp(cause_obj);
        let t = self.throw_new(e.class, e.message.as_deref());
        let obj = self.take_pending();
        let ot = self.stack.push_temp(obj);
        let init_cause = self
            .vm
            .loader
            .find_loaded("java/lang/Throwable")
            .and_then(|c| c.declared_method("initCause", "(Ljava/lang/Throwable;)Ljava/lang/Throwable;"));
        let made = obj != 0 && self.class_of(obj).name.as_ref() == e.class;
        if let (Some(m), true) = (init_cause, made) {
            let (o, c) = (self.stack.temp(ot), self.stack.temp(ct));
            if let Err(t) = self.call(m, &[o as u64, c as u64]) {
                self.stack.truncate_temps(mark);
                return t;
            }
        }
        let obj = self.stack.temp(ot);
        self.stack.truncate_temps(mark);
        if obj == 0 {
            return t;
        }
        self.set_pending(obj)
    }

    /// Throws a new instance of `c`, constructed with `message` (its
    /// `(String)` constructor, or `()` when `message` is `None` and it has
    /// one).
    #[cold]
    pub fn throw_instance_of(&mut self, c: &'static Class, message: Option<&str>) -> Thrown {
        if self.ensure_initialized(c).is_err() {
            return Thrown;
        }
        let mark = self.stack.temps_len();
        let msg = match message {
            Some(m) => match self.new_string_from(m) {
                Ok(s) => s,
                Err(t) => return t,
            },
            None => 0,
        };
        let mt = self.stack.push_temp(msg);
        let obj = match self.alloc_object(c) {
            Ok(o) => o,
            Err(t) => {
                self.stack.truncate_temps(mark);
                return t;
            }
        };
        let ot = self.stack.push_temp(obj);
        let with_string = c.declared_method("<init>", "(Ljava/lang/String;)V");
        let r = match (with_string, message) {
            (Some(ctor), _) => {
                let (o, m) = (self.stack.temp(ot), self.stack.temp(mt));
                self.call(ctor, &[o as u64, m as u64])
            }
            (None, _) => match c.declared_method("<init>", "()V") {
                Some(ctor) => {
                    let o = self.stack.temp(ot);
                    self.call(ctor, &[o as u64])
                }
                None => Ok(0),
            },
        };
        let obj = self.stack.temp(ot);
        self.stack.truncate_temps(mark);
        match r {
            Ok(_) => self.set_pending(obj),
            Err(t) => t,
        }
    }

    /// Throws `OutOfMemoryError(message)`; when even that cannot be
    /// allocated, the preallocated one (HotSpot's `_out_of_memory_error_java_heap`).
    #[cold]
    pub fn throw_oom(&mut self, message: &str) -> Thrown {
        // Making the error allocates; a collection just ran, so usually it
        // fits. If not, fall back to the one made at start-up.
        let depth = self.stack.temps_len();
        let t = self.throw_new("java/lang/OutOfMemoryError", Some(message));
        let p = self.pending();
        if p != 0
            && std::ptr::eq(
                self.class_of(p),
                self.vm
                    .loader
                    .find_loaded("java/lang/OutOfMemoryError")
                    .unwrap_or(self.class_of(p)),
            )
        {
            return t;
        }
        self.stack.truncate_temps(depth);
        // Acquire: the preallocated error's initialization.
        let pre = self
            .vm
            .preallocated_oom
            .get()
            .map_or(0, |s| s.load(Ordering::Acquire));
        if pre != 0 {
            return self.set_pending(pre);
        }
        t
    }

    /// The frames of the current stack as (method, bytecode offset), top
    /// first, for `Throwable.fillInStackTrace`.
    pub fn backtrace(&self) -> Vec<(&'static crate::link::Method, u32)> {
        let mut out = Vec::new();
        let mut fp = self.stack.top_frame.get();
        let mut pc = self.stack.top_pc.get();
        while !fp.is_null() {
            // SAFETY: frames linked from the published top frame.
            let h: &FrameHeader = unsafe { &*fp };
            let bci = match h.method.decoded.get() {
                Some(Ok(d)) => {
                    let idx = if h.is_compiled() {
                        h.compiled_position().0
                    } else {
                        (pc as usize).wrapping_sub(d.insns.as_ptr() as usize) / std::mem::size_of::<Insn>()
                    };
                    d.bcis.get(idx).copied().unwrap_or(u32::MAX)
                }
                _ => u32::MAX,
            };
            out.push((h.method, bci));
            pc = h.caller_pc;
            fp = h.caller_frame();
        }
        out
    }
}

//! Class initialization (JVMS 5.5): once per class, in order (superclass
//! first, then every superinterface, direct or indirect, that declares a
//! non-abstract instance method: see `JThread::initialize_super_interfaces`),
//! thread-safe, with the recursive request of the initializing thread allowed, other
//! threads waiting (in a safe region, so collections go on), and a failed
//! `<clinit>` making the class erroneous (`ExceptionInInitializerError`
//! the first time, `NoClassDefFoundError` after).
//!
//! Where it sits: the interpreter calls [`JThread::ensure_initialized`] on
//! the first execution of `new`, `getstatic`, `putstatic`,
//! `invokestatic` for a class not yet initialized (one byte load on the
//! common path: `Class::is_initialized`), natives and `main` likewise.

use std::sync::atomic::Ordering;

use fastpath::gc::BarrierSet;

use super::{JResult, JThread};
use crate::classfile::Constant;
use crate::link::{Class, InitState, Kind};

impl<B: BarrierSet> JThread<B> {
    /// Initializes `c` if needed.
    #[inline]
    pub fn ensure_initialized(&mut self, c: &'static Class) -> JResult<()> {
        if c.is_initialized() {
            return Ok(());
        }
        self.initialize(c)
    }

    #[cold]
    fn initialize(&mut self, c: &'static Class) -> JResult<()> {
        let me = self.id;
        // Steps 1-5: take the class, or wait for the thread that has it.
        loop {
            let (lock, cv) = &c.init_lock;
            let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
            match c.state() {
                InitState::Initialized => return Ok(()),
                InitState::Erroneous => {
                    drop(guard);
                    return Err(self.throw_new(
                        "java/lang/NoClassDefFoundError",
                        Some(&format!("Could not initialize class {}", c.java_name())),
                    ));
                }
                // Relaxed: written under the lock we hold.
                InitState::Initializing if c.init_thread.load(Ordering::Relaxed) == me => return Ok(()),
                InitState::Initializing => {
                    drop(guard);
                    // Wait in a safe region: the initializing thread may
                    // need a collection to finish.
                    self.m.safe_region(|| {
                        let mut g = lock.lock().unwrap_or_else(|e| e.into_inner());
                        while c.state() == InitState::Initializing {
                            g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
                        }
                    });
                    continue;
                }
                InitState::Linked => {
                    // Relaxed: under the lock; readers of the state use it.
                    c.init_thread.store(me, Ordering::Relaxed);
                    c.init_state
                        .store(InitState::Initializing as u8, Ordering::Release);
                    break;
                }
            }
        }
        // Linking's verification (JVMS 5.4.1), before anything of the class
        // runs. Outside the heap: a safe region, so collections go on. A
        // class that fails goes back to Linked: every use throws again.
        let vm = self.vm;
        if let Err(e) = self
            .m
            .safe_region(|| crate::classfile::verify::linker::verify_linked(&vm.loader, c))
        {
            {
                let (lock, cv) = &c.init_lock;
                let _g = lock.lock().unwrap_or_else(|e| e.into_inner());
                c.init_state.store(InitState::Linked as u8, Ordering::Release);
                cv.notify_all();
            }
            return Err(self.throw_error(&e));
        }
        // Step 7: the superclass, then the superinterfaces.
        let mut result = Ok(());
        if !c.is_interface() {
            if let Some(s) = c.super_class {
                result = self.ensure_initialized(s);
            }
            if result.is_ok() {
                result = self.initialize_super_interfaces(c, &mut Vec::new());
            }
        }
        // Step 9: constant values, then <clinit>.
        if result.is_ok() {
            result = self.set_constant_values(c);
        }
        if result.is_ok() {
            if let Some(clinit) = c.declared_method("<clinit>", "()V") {
                result = self.call(clinit, &[]).map(|_| ());
                if result.is_err() {
                    // Step 11: an exception that is not an Error is wrapped.
                    let exc = self.pending();
                    let error = self.vm.loader.find_loaded("java/lang/Error");
                    let is_error = error.is_some_and(|e| self.class_of(exc).is_subclass_of(e));
                    if !is_error {
                        self.wrap_in_initializer_error();
                    }
                }
            }
        }
        let (lock, cv) = &c.init_lock;
        let _g = lock.lock().unwrap_or_else(|e| e.into_inner());
        let state = if result.is_ok() {
            InitState::Initialized
        } else {
            InitState::Erroneous
        };
        // Release: `<clinit>`'s writes before the state (step 10).
        c.init_state.store(state as u8, Ordering::Release);
        cv.notify_all();
        result
    }

    /// JVMS 5.5 step 7's superinterfaces of `c`: every interface `c`
    /// implements, directly or through other interfaces, that declares a
    /// non-abstract, non-static method (a default or a private instance
    /// method). The order is HotSpot's (`InstanceKlass::
    /// initialize_super_interfaces`): for each direct superinterface in
    /// declaration order, its own superinterfaces first (depth first, so
    /// the top of each hierarchy initializes first), then itself.
    /// Interfaces reached twice (a diamond) are walked once: a second walk
    /// would find them initialized, or being initialized by this thread.
    /// The superclass's interfaces are the superclass's initialization's.
    fn initialize_super_interfaces(
        &mut self,
        c: &'static Class,
        walked: &mut Vec<&'static Class>,
    ) -> JResult<()> {
        for &i in &c.interfaces {
            if walked.iter().any(|w| std::ptr::eq(*w, i)) {
                continue;
            }
            walked.push(i);
            self.initialize_super_interfaces(i, walked)?;
            if declares_defaults(i) {
                self.ensure_initialized(i)?;
            }
        }
        Ok(())
    }

    /// Replaces the pending exception by an `ExceptionInInitializerError`
    /// caused by it.
    fn wrap_in_initializer_error(&mut self) {
        let cause = self.take_pending();
        let mark = self.stack.temps_len();
        let t = self.stack.push_temp(cause);
        let Ok(c) = self.vm.loader.load("java/lang/ExceptionInInitializerError") else {
            self.set_pending(self.stack.temp(t));
            self.stack.truncate_temps(mark);
            return;
        };
        if self.ensure_initialized(c).is_err() {
            self.stack.truncate_temps(mark);
            return;
        }
        let obj = match self.alloc_object(c) {
            Ok(o) => o,
            Err(_) => {
                self.stack.truncate_temps(mark);
                return;
            }
        };
        let ot = self.stack.push_temp(obj);
        if let Some(ctor) = c.declared_method("<init>", "(Ljava/lang/Throwable;)V") {
            let (o, cause) = (self.stack.temp(ot), self.stack.temp(t));
            if self.call(ctor, &[o as u64, cause as u64]).is_err() {
                self.stack.truncate_temps(mark);
                return;
            }
        }
        let obj = self.stack.temp(ot);
        self.stack.truncate_temps(mark);
        self.set_pending(obj);
    }

    /// JVMS 5.5 step 9's `ConstantValue` statics.
    fn set_constant_values(&mut self, c: &'static Class) -> JResult<()> {
        for f in c.fields.iter().filter(|f| f.is_static()) {
            let Some(i) = f.constant_value else { continue };
            let v: u64 = match c.cp().get(i) {
                Ok(Constant::Integer(v)) => *v as i64 as u64,
                Ok(Constant::Float(v)) => v.to_bits() as u64,
                Ok(Constant::Long(v)) => *v as u64,
                Ok(Constant::Double(v)) => v.to_bits(),
                Ok(Constant::String { utf8 }) => {
                    let units = c.cp().utf8_entry(*utf8).map(|u| u.to_utf16()).unwrap_or_default();
                    let lit = self.vm.literal(units);
                    self.literal(lit)? as u64
                }
                _ => continue,
            };
            let v = match f.kind {
                Kind::Boolean => v & 1,
                Kind::Byte => v as i8 as i64 as u64,
                Kind::Char => v as u16 as u64,
                Kind::Short => v as i16 as i64 as u64,
                _ => v,
            };
            // Release: as any static store before the class is initialized.
            c.statics[f.offset as usize].store(v, Ordering::Release);
        }
        Ok(())
    }
}

/// Whether interface `i` declares a non-abstract, non-static method (JVMS
/// 5.5 step 7; HotSpot's `declares_nonstatic_concrete_methods`).
fn declares_defaults(i: &Class) -> bool {
    i.methods.iter().any(|m| !m.is_static() && !m.is_abstract())
}

//! Natives of `java.lang.Thread`: each Java thread is a native thread with
//! its own thread block, `fastpath::sync` registration and heap mutator.
//!
//! Where it sits: `Thread.start()` (Java) calls `start0`, which registers
//! the thread as alive and non-daemon (if so), and spawns the native
//! thread; that thread attaches to the VM ([`JThread::attach`]), runs
//! `run()`, reports an uncaught exception through
//! `Thread.dispatchUncaughtException`, marks itself terminated, wakes its
//! joiners (`notifyAll` on the `Thread` object: `join` is Java's
//! `while (isAlive()) wait()`), and detaches. Blocking natives (`sleep`)
//! block in a safe region. Interrupts are `fastpath::sync`'s (they wake
//! a `wait`); an interrupt sent before the thread registered is kept and
//! delivered when it does.

use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use fastpath::gc::{BarrierSet, Obj};
use fastpath::sync::{self, SyncError, SyncThread};

use crate::interp::{Args, NativeFn};
use crate::link::Kind;
use crate::runtime::{JResult, JThread, Vm};

/// The VM side of a `java.lang.Thread` (its `eetop` field points here).
///
/// An interrupt or an unpark can reach a thread that is started but not
/// yet bound to its `sync` identity (`sync` is set by the new thread
/// itself). Such a signal is left pending and delivered exactly once, by
/// whichever side claims it: the sender stores the pending flag, then
/// looks for `sync`; the new thread sets `sync`, then looks for the flag;
/// a SeqCst fence between each side's store and load (Dekker's pattern)
/// makes at least one side see the other's store, and the side whose
/// `swap` takes the flag from true delivers it.
#[derive(Default)]
pub struct ThreadRecord {
    /// The thread's `sync` identity, once it runs.
    pub sync: OnceLock<SyncThread>,
    /// An interrupt not yet delivered to `sync`.
    interrupt_pending: AtomicBool,
    /// A `LockSupport.unpark` not yet delivered to `sync`.
    unpark_pending: AtomicBool,
}

impl ThreadRecord {
    /// Sets `flag`, then delivers it through `deliver` if the thread is
    /// bound and the flag is still there to take (type docs).
    fn signal(&self, flag: &AtomicBool, deliver: fn(&SyncThread)) {
        // SeqCst (store and fence): Dekker's pattern with `bind` (type docs).
        flag.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        if let Some(s) = self.sync.get() {
            if flag.swap(false, Ordering::SeqCst) {
                deliver(s);
            }
        }
    }

    /// `Thread.interrupt` on this thread.
    pub fn interrupt(&self) {
        self.signal(&self.interrupt_pending, sync::interrupt);
    }

    /// `LockSupport.unpark` of this thread.
    pub fn unpark(&self) {
        self.signal(&self.unpark_pending, sync::unpark);
    }
}

/// `Thread`'s field offsets.
struct ThreadFields {
    eetop: u32,
    status: u32,
    daemon: u32,
    park_blocker: u32,
}

fn fields(vm: &'static Vm) -> &'static ThreadFields {
    static F: OnceLock<ThreadFields> = OnceLock::new();
    F.get_or_init(|| {
        let c = vm.loader.load("java/lang/Thread").expect("java.lang.Thread");
        let f = |n: &str, d: &str| {
            c.declared_field(n, d)
                .unwrap_or_else(|| panic!("Thread.{n}"))
                .offset
        };
        ThreadFields {
            eetop: f("eetop", "J"),
            status: f("threadStatus", "I"),
            daemon: f("daemon", "Z"),
            park_blocker: f("parkBlocker", "Ljava/lang/Object;"),
        }
    })
}

/// The reference index of `Thread.parkBlocker` (`LockSupport`'s blocker,
/// `park.rs`).
pub(super) fn park_blocker_field(vm: &'static Vm) -> usize {
    fields(vm).park_blocker as usize
}

/// `threadStatus` values (as `Thread.State`: NEW, RUNNABLE, TERMINATED).
pub const STATUS_NEW: i32 = 0;
/// Started, not ended.
pub const STATUS_ALIVE: i32 = 1;
/// Ended.
pub const STATUS_TERMINATED: i32 = 2;

impl<B: BarrierSet> JThread<B> {
    /// The record of `Thread` object `t`, made if it has none. Threads
    /// racing to make the first record of one `Thread` agree on one: the
    /// first to publish it in `eetop` wins and the others free theirs, so
    /// an interrupt or an unpark marked on a record is never lost to a
    /// record made beside it.
    pub fn thread_record(&self, t: usize) -> &'static ThreadRecord {
        if let Some(r) = self.started_thread_record(t) {
            return r;
        }
        let fresh = Box::into_raw(Box::<ThreadRecord>::default());
        // AcqRel on success: publishes the record's initialised fields to
        // whoever reads `eetop` with Acquire (`started_thread_record`);
        // Acquire on failure: reads the winner's record the same way.
        match self
            .eetop_cell(t)
            .compare_exchange(0, fresh as u64, Ordering::AcqRel, Ordering::Acquire)
        {
            // SAFETY: `fresh` came from `Box::into_raw` and is now
            // published for the process's life (never freed).
            Ok(_) => unsafe { &*fresh },
            Err(winner) => {
                // SAFETY: `fresh` was never published; this is its only
                // owner.
                drop(unsafe { Box::from_raw(fresh) });
                // SAFETY: a non-zero `eetop` holds a leaked `ThreadRecord`.
                unsafe { &*(winner as usize as *const ThreadRecord) }
            }
        }
    }

    /// The record of `Thread` object `t` if it has one (it was started,
    /// interrupted or asked for its record before).
    pub fn started_thread_record(&self, t: usize) -> Option<&'static ThreadRecord> {
        // Acquire: pairs with the publishing exchange in `thread_record`.
        let p = self.eetop_cell(t).load(Ordering::Acquire) as usize;
        // SAFETY: a non-zero `eetop` holds a leaked `ThreadRecord`
        // (`thread_record`).
        (p != 0).then(|| unsafe { &*(p as *const ThreadRecord) })
    }

    /// `t`'s `eetop` field as an atomic cell, valid until the next
    /// safepoint (the callers use it before one).
    fn eetop_cell(&self, t: usize) -> &AtomicU64 {
        // SAFETY: `eetop` is a `long` field of every `Thread` object, at an
        // 8-aligned data offset; `data_mut` resolves `t` for writing (its
        // to-space copy), whose data area lives until the next safepoint,
        // and the reference does not outlive `&self`'s use before one.
        unsafe { &*(self.data_mut(t).add(fields(self.vm).eetop as usize) as *const AtomicU64) }
    }

    /// Makes this native thread's `sync` identity the record's, delivering
    /// an interrupt or an unpark that arrived before.
    pub fn bind_thread_record(&self, r: &'static ThreadRecord) {
        let me = sync::current_sync_thread();
        let _ = r.sync.set(me.clone());
        // SeqCst (fence and swaps): Dekker's pattern with `ThreadRecord::signal`.
        fence(Ordering::SeqCst);
        if r.interrupt_pending.swap(false, Ordering::SeqCst) {
            sync::interrupt(&me);
        }
        if r.unpark_pending.swap(false, Ordering::SeqCst) {
            sync::unpark(&me);
        }
    }

    /// The `Thread` object of this thread.
    pub fn current_thread_obj(&self) -> usize {
        self.stack.thread_obj.get()
    }
}

fn current_thread<B: BarrierSet>(t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    Ok(t.current_thread_obj() as u64)
}

fn start0<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let this = a.obj(0);
    let vm = t.vm;
    let f = fields(vm);
    let record = t.thread_record(this);
    let daemon = t.get_prim(this, f.daemon, Kind::Boolean) != 0;
    t.put_prim(this, f.status, Kind::Int, STATUS_ALIVE as u64);
    if !daemon {
        *vm.threads.non_daemon.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }
    let slot = vm
        .globals
        .alloc(this)
        .expect("the VM's global roots are exhausted");
    let spawn = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || thread_main::<B>(vm, slot, record, daemon));
    if let Err(e) = spawn {
        vm.globals.free(slot);
        let this = a.obj(0);
        t.put_prim(this, f.status, Kind::Int, STATUS_NEW as u64);
        if !daemon {
            thread_ended(vm);
        }
        return Err(t.throw_oom(&format!("unable to create native thread: {e}")));
    }
    Ok(0)
}

fn thread_ended(vm: &'static Vm) {
    let mut n = vm.threads.non_daemon.lock().unwrap_or_else(|e| e.into_inner());
    *n -= 1;
    vm.threads.ended.notify_all();
}

/// A started thread's life (module docs).
fn thread_main<B: BarrierSet>(
    vm: &'static Vm,
    slot: &'static std::sync::atomic::AtomicUsize,
    record: &'static ThreadRecord,
    daemon: bool,
) {
    let mut t = match JThread::<B>::attach(vm) {
        Ok(t) => t,
        Err(e) => {
            crate::diag!("fastpath-vm: cannot attach a thread: {e}");
            if !daemon {
                thread_ended(vm);
            }
            return;
        }
    };
    // Acquire: the parent's writes to the Thread object.
    t.stack.thread_obj.set(slot.load(Ordering::Acquire));
    vm.globals.free(slot);
    t.bind_thread_record(record);
    let this = t.current_thread_obj();
    let run = t
        .class_of(this)
        .vtable
        .iter()
        .copied()
        .find(|m| m.matches("run", "()V"));
    if let Some(run) = run {
        if t.call(run, &[this as u64]).is_err() {
            t.report_uncaught();
        }
    }
    // Terminated: wake the joiners.
    let this = t.current_thread_obj();
    t.put_prim(this, fields(vm).status, Kind::Int, STATUS_TERMINATED as u64);
    // SAFETY: `this` is the thread's own object, a root of its stack.
    unsafe {
        t.m.monitor_enter_unchecked(this);
        let this = t.current_thread_obj();
        let _ = t.m.monitor_notify_unchecked(Obj::from_addr(this), true);
        let _ = t.m.monitor_exit_unchecked(this);
    }
    drop(t);
    if !daemon {
        thread_ended(vm);
    }
}

impl<B: BarrierSet> JThread<B> {
    /// Reports the pending exception as uncaught in this thread
    /// (`Thread.dispatchUncaughtException`, which prints
    /// `Exception in thread "name" ...` and the stack trace).
    pub fn report_uncaught(&mut self) {
        let exc = self.take_pending();
        let this = self.current_thread_obj();
        let tc = self.class_of(this);
        let m = tc
            .vtable
            .iter()
            .copied()
            .find(|m| m.matches("dispatchUncaughtException", "(Ljava/lang/Throwable;)V"));
        let m = m.or_else(|| {
            crate::link::resolve::find_method(tc, "dispatchUncaughtException", "(Ljava/lang/Throwable;)V")
        });
        if let Some(m) = m {
            if self.call(m, &[this as u64, exc as u64]).is_err() {
                let _ = self.take_pending();
            }
        }
    }
}

fn sleep<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let ms = a.long(0);
    if ms < 0 {
        return Err(t.throw_new(
            "java/lang/IllegalArgumentException",
            Some("timeout value is negative"),
        ));
    }
    if sync::interrupted() {
        return Err(t.throw_new("java/lang/InterruptedException", Some("sleep interrupted")));
    }
    // An interruptible timed block: a wait on a private object, which only
    // an interrupt wakes early.
    let obj = t.alloc_object(t.vm.object_class())?;
    let mark = t.stack.temps_len();
    let k = t.stack.push_temp(obj);
    let deadline = std::time::Instant::now() + Duration::from_millis(ms as u64);
    let mut result = Ok(0);
    // SAFETY: `obj` is rooted in the temporary roots for the whole block,
    // and re-read after each call that may reach a safepoint.
    unsafe {
        t.m.monitor_enter_unchecked(t.stack.temp(k));
        loop {
            let now = std::time::Instant::now();
            if now >= deadline && ms > 0 {
                break;
            }
            let left = if ms == 0 { Duration::ZERO } else { deadline - now };
            match t
                .m
                .monitor_wait_unchecked(t.stack.temp(k), Some(left.max(Duration::from_nanos(1))))
            {
                Err(SyncError::Interrupted) => {
                    result = Err(());
                    break;
                }
                _ if ms == 0 => break,
                _ => {}
            }
        }
        let _ = t.m.monitor_exit_unchecked(t.stack.temp(k));
    }
    t.stack.truncate_temps(mark);
    match result {
        Ok(v) => Ok(v),
        Err(()) => Err(t.throw_new("java/lang/InterruptedException", Some("sleep interrupted"))),
    }
}

fn interrupt0<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    t.thread_record(a.obj(0)).interrupt();
    Ok(0)
}

fn is_interrupted<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let r = t.thread_record(a.obj(0));
    Ok(
        (r.sync.get().is_some_and(SyncThread::is_interrupted) || r.interrupt_pending.load(Ordering::Acquire))
            as u64,
    )
}

fn interrupted<B: BarrierSet>(_t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    Ok(sync::interrupted() as u64)
}

fn yield_now<B: BarrierSet>(_t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    std::thread::yield_now();
    Ok(0)
}

fn on_spin_wait<B: BarrierSet>(_t: &mut JThread<B>, _a: Args) -> JResult<u64> {
    fastpath::spin::pause();
    Ok(0)
}

fn holds_lock<B: BarrierSet>(t: &mut JThread<B>, a: Args) -> JResult<u64> {
    let o = a.obj(0);
    if o == 0 {
        return Err(t.throw_npe_plain());
    }
    // SAFETY: a live object of this heap.
    Ok(unsafe { t.m.holds_monitor_unchecked(Obj::from_addr(o)) } as u64)
}

/// The natives of this file.
pub fn lookup<B: BarrierSet>(class: &str, name: &str, desc: &str) -> Option<NativeFn<B>> {
    if class != "java/lang/Thread" {
        return None;
    }
    Some(match (name, desc) {
        ("currentThread", "()Ljava/lang/Thread;") => current_thread::<B>,
        ("start0", "()V") => start0::<B>,
        ("sleep0", "(J)V") => sleep::<B>,
        ("interrupt0", "()V") => interrupt0::<B>,
        ("isInterrupted", "()Z") => is_interrupted::<B>,
        ("interrupted", "()Z") => interrupted::<B>,
        ("yield", "()V") => yield_now::<B>,
        ("onSpinWait", "()V") => on_spin_wait::<B>,
        ("holdsLock", "(Ljava/lang/Object;)Z") => holds_lock::<B>,
        _ => return None,
    })
}

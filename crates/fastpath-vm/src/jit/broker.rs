//! The compile queue and the compiler thread that serves it: background
//! compilation (HotSpot's `CompileBroker` with `-XX:+BackgroundCompilation`).
//!
//! Where it sits: between the interpreter's counters and the JIT. A hot
//! method (`JThread::jit_compile`) or a hot loop (`JThread::osr_enter`)
//! is claimed by the thread that finds it hot (the method's state goes
//! `Interpreted` → `Compiling`, or its OSR entry is recorded as being
//! compiled: a task is queued once) and queued here; that thread goes on
//! interpreting. The compiler thread takes the tasks in order, compiles
//! each ([`Jit::compile_claimed`], [`Jit::compile_osr_claimed`]) and
//! installs it; the interpreter finds the entry at the method's next call
//! (`MethodJit::entry`, published Release/Acquire) or the OSR entry at
//! the loop's next notification.
//!
//! Why the compiler thread needs no place in the heap: a compilation reads
//! class metadata (methods, decoded instructions, the class registry for
//! class-hierarchy analysis), never a heap object, and loads no class
//! (the translator inlines only callees already decoded); which is also
//! why a Java thread compiles in a safe region. So the thread is not a
//! mutator: a safepoint never waits for it, and it waits for no safepoint.
//! The locks it takes are the JIT's own (the adapter cache, the OSR
//! table, the installed entries) and the class registry's, each held
//! briefly and never across a wait for a Java thread; the queue's lock is
//! never held while compiling.
//!
//! Invariants:
//! - a task is queued by the thread that claimed it, so a method or an
//!   OSR entry is queued at most once;
//! - once [`Broker::shutdown`] returns, the queue is empty, no compile
//!   runs and none starts (a task offered later is refused: its method
//!   stays interpreted, which at exit is harmless);
//! - [`Broker::offer`] never waits for a compilation: it takes the queue's
//!   lock, which no one holds while compiling.
//!
//! The thread starts at the first task (a program that compiles nothing
//! has none). At VM exit [`Broker::shutdown`] drops the queued tasks and
//! waits for the one being compiled, which is bounded by one compilation;
//! the thread then ends.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

use super::Jit;
use crate::interp::Decoded;
use crate::link::Method;

/// The compiler thread's name.
pub const THREAD_NAME: &str = "fastpath-vm compiler";

/// One compilation the compiler thread owes.
#[derive(Clone, Copy, Debug)]
pub enum Task {
    /// A method's normal entry (its state is `Compiling`).
    Method(&'static Method, &'static Decoded),
    /// A method's OSR entry at an instruction (recorded as compiling).
    Osr(&'static Method, &'static Decoded, usize),
}

/// The queue's state, under its lock.
#[derive(Debug, Default)]
struct Queue {
    tasks: VecDeque<Task>,
    /// The compiler thread is compiling a task it took.
    busy: bool,
    /// The compiler thread was started.
    started: bool,
    /// The VM is exiting: take no task, start no compile.
    shut: bool,
}

/// The compile queue (one per VM, in its [`Jit`]).
#[derive(Debug, Default)]
pub struct Broker {
    queue: Mutex<Queue>,
    /// Signalled when a task is queued or the VM exits.
    work: Condvar,
    /// Signalled when the compiler thread finishes a task.
    done: Condvar,
}

/// Why a task was not queued: the caller compiles it itself, or drops it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The VM is exiting.
    Shut,
    /// The compiler thread could not be started.
    NoThread,
}

impl Broker {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `task` (claimed by the caller) for `jit`'s compiler thread,
    /// starting the thread at the first task.
    pub fn offer(&self, jit: &'static Jit, task: Task) -> Result<(), Refused> {
        let mut q = self.lock();
        if q.shut {
            return Err(Refused::Shut);
        }
        if !q.started {
            std::thread::Builder::new()
                .name(THREAD_NAME.into())
                .spawn(move || jit.broker.serve(jit))
                .map_err(|_| Refused::NoThread)?;
            q.started = true;
        }
        q.tasks.push_back(task);
        self.work.notify_one();
        Ok(())
    }

    /// The compiler thread's loop: takes tasks until the VM exits.
    fn serve(&self, jit: &'static Jit) {
        let mut q = self.lock();
        loop {
            if q.shut {
                return;
            }
            let Some(task) = q.tasks.pop_front() else {
                q = self.work.wait(q).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            q.busy = true;
            drop(q);
            match task {
                Task::Method(m, d) => {
                    jit.compile_claimed(m, d);
                }
                Task::Osr(m, d, at) => {
                    jit.compile_osr_claimed(m, d, at);
                }
            }
            q = self.lock();
            q.busy = false;
            self.done.notify_all();
        }
    }

    /// Stops compiling for VM exit: drops the queued tasks and waits for
    /// the compilation under way, if any (one compilation at most). Later
    /// offers are refused. Returns how many queued tasks were dropped.
    pub fn shutdown(&self) -> usize {
        let mut q = self.lock();
        q.shut = true;
        let dropped = q.tasks.len();
        q.tasks.clear();
        self.work.notify_all();
        while q.busy {
            q = self.done.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        dropped
    }

    /// Tasks queued and not yet taken (tests and the log).
    pub fn queued(&self) -> usize {
        self.lock().tasks.len()
    }
}

//! The compile queue and the compiler thread that serves it: background
//! compilation (HotSpot's `CompileBroker` with `-XX:+BackgroundCompilation`).
//!
//! Where it sits: between the interpreter's counters and the JIT. A hot
//! method (`JThread::jit_compile`) or a hot loop (`JThread::osr_enter`)
//! is claimed by the thread that finds it hot (the method's state goes
//! `Interpreted` → `Compiling`, or its OSR entry is recorded as being
//! compiled: a task is queued once) and queued here; that thread goes on
//! interpreting. The compiler thread takes the hottest task first,
//! compiles it (`Jit::compile_claimed`, `Jit::compile_osr_claimed`) and
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
//! Which task first: the one whose method's interpreted events (calls
//! and back edges, [`Heat`]) grew fastest since it was queued, the
//! oldest among equals (HotSpot's `CompilationPolicy::select_task`
//! takes the task of the highest event rate the same way). A method
//! that went on running interpreted while queued costs the most per
//! millisecond it waits; one whose frames moved into OSR code, or that
//! was called a thousand times once and no more, can wait. With
//! several tasks queued at once (a program's first hot methods all
//! cross the threshold within a few milliseconds) first-in-first-out
//! order leaves the hottest behind the first.
//!
//! With tiers (`Jit::tiered`) the JIT has two queues, each with its
//! thread (HotSpot's C1 and C2 compiler threads): the first tier's
//! compilations, a millisecond or two each, in one; the second tier's
//! recompilations and the OSR entries, tens of milliseconds each with
//! inlining, in the other. A method queued while a long compilation runs
//! waits for none: in one queue Towers' `push` and `pop`, hot just after
//! `move`, waited 37 ms behind `move`'s second tier, interpreted, called
//! from `move`'s first-tier code. A recompilation's heat is flat (its
//! method runs compiled), so an OSR entry whose frame interprets on
//! goes first.
//!
//! The thread starts at the first task (a program that compiles nothing
//! has none). At VM exit [`Broker::shutdown`] drops the queued tasks and
//! waits for the one being compiled, which is bounded by one compilation;
//! the thread then ends.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::interp::Decoded;
use crate::link::Method;

/// The compiler thread's name (with tiers, the first tier's; the second
/// tier's is [`THREAD_NAME_2`]).
pub const THREAD_NAME: &str = "fastpath-vm compiler";

/// The second tier's compiler thread's name (it begins with
/// [`THREAD_NAME`]).
pub const THREAD_NAME_2: &str = "fastpath-vm compiler 2";

/// One compilation the compiler thread owes.
#[derive(Clone, Copy, Debug)]
pub enum Task {
    /// A method's normal entry (its state is `Compiling`).
    Method(&'static Method, &'static Decoded),
    /// A method's OSR entry at an instruction (recorded as compiling).
    Osr(&'static Method, &'static Decoded, usize),
    /// A method's normal entry again, at the second tier, its first-tier
    /// code installed (`Jit::tiered`; queued by the first tier's compiler
    /// thread once that code is in, so at most once per method).
    Recompile(&'static Method, &'static Decoded),
}

/// How hot a queued task's subject is: a count that grows while it runs
/// uncompiled (the queue orders tasks by its growth per millisecond).
pub trait Heat {
    /// The count now.
    fn heat(&self) -> u64;
}

impl Heat for Task {
    /// The method's interpreted calls and back edges (HotSpot's `i + b`);
    /// none for a recompilation, whose method runs compiled (a frame of
    /// it still interpreting waits for its OSR entry, a task of its own).
    fn heat(&self) -> u64 {
        match *self {
            Task::Method(m, _) | Task::Osr(m, _, _) => {
                // Relaxed: heuristic counts.
                m.jit.invocations.load(Ordering::Relaxed) as u64
                    + m.jit.backedges.load(Ordering::Relaxed) as u64
            }
            Task::Recompile(..) => 0,
        }
    }
}

/// A queued task, with what its ordering needs.
#[derive(Debug)]
struct Queued<T> {
    task: T,
    /// When it was queued.
    at: Instant,
    /// Its [`Heat`] then.
    heat: u64,
}

impl<T: Heat> Queued<T> {
    /// Events per millisecond since it was queued (a task queued under a
    /// millisecond ago counts as one millisecond old: its rate is not
    /// yet meaningful).
    fn rate(&self, now: Instant) -> f64 {
        let ms = (now.saturating_duration_since(self.at).as_secs_f64() * 1e3).max(1.0);
        self.task.heat().saturating_sub(self.heat) as f64 / ms
    }
}

/// The queue's state, under its lock.
#[derive(Debug)]
struct Queue<T> {
    /// The tasks, oldest first.
    tasks: VecDeque<Queued<T>>,
    /// The compiler thread is compiling a task it took.
    busy: bool,
    /// The compiler thread was started.
    started: bool,
    /// The VM is exiting: take no task, start no compile.
    shut: bool,
}

/// A compile queue (in a VM's `Jit`, of [`Task`]s: one, or one per tier).
#[derive(Debug)]
pub struct Broker<T> {
    /// Its thread's name.
    name: &'static str,
    queue: Mutex<Queue<T>>,
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

/// Runs [`Broker::finish`] when the compilation it guards returns or
/// unwinds.
struct Finished<'a, T: Heat + Send + 'static>(&'a Broker<T>);

impl<T: Heat + Send + 'static> Drop for Finished<'_, T> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

impl<T> Default for Broker<T> {
    /// A queue whose thread is [`THREAD_NAME`].
    fn default() -> Self {
        Broker::named(THREAD_NAME)
    }
}

impl<T> Broker<T> {
    /// A queue whose thread is named `name`.
    pub fn named(name: &'static str) -> Self {
        Broker {
            name,
            queue: Mutex::new(Queue {
                tasks: VecDeque::new(),
                busy: false,
                started: false,
                shut: false,
            }),
            work: Condvar::new(),
            done: Condvar::new(),
        }
    }
}

impl<T: Heat + Send + 'static> Broker<T> {
    fn lock(&self) -> MutexGuard<'_, Queue<T>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `task` (claimed by the caller) for the compiler thread,
    /// starting the thread, which runs `compile` on each task with the
    /// time it waited in the queue, at the first task (later offers'
    /// `compile` is not used).
    pub fn offer(
        &'static self,
        task: T,
        compile: impl Fn(T, Duration) + Send + 'static,
    ) -> Result<(), Refused> {
        let mut q = self.lock();
        if q.shut {
            return Err(Refused::Shut);
        }
        if !q.started {
            std::thread::Builder::new()
                .name(self.name.into())
                .spawn(move || self.serve(compile))
                .map_err(|_| Refused::NoThread)?;
            q.started = true;
        }
        let heat = task.heat();
        q.tasks.push_back(Queued {
            task,
            at: Instant::now(),
            heat,
        });
        self.work.notify_one();
        Ok(())
    }

    /// The compiler thread's loop: takes tasks until the VM exits.
    fn serve(&self, compile: impl Fn(T, Duration)) {
        let mut q = self.lock();
        loop {
            if q.shut {
                return;
            }
            let Some(next) = Self::hottest(&q.tasks).and_then(|i| q.tasks.remove(i)) else {
                q = self.work.wait(q).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let Queued { task, at: queued, .. } = next;
            q.busy = true;
            drop(q);
            let finished = Finished(self);
            compile(task, queued.elapsed());
            drop(finished);
            q = self.lock();
        }
    }

    /// Ends the compilation under way: clears `busy` and wakes
    /// [`Broker::shutdown`]. After a compilation that panicked (a JIT bug,
    /// which the panic hook has reported), the compiler thread is gone:
    /// the queue is shut as at exit, so the queued tasks are dropped, later
    /// offers are refused (their methods stay interpreted) and exit does not
    /// wait for a compilation that will never finish.
    fn finish(&self) {
        let mut q = self.lock();
        q.busy = false;
        if std::thread::panicking() {
            q.shut = true;
            q.tasks.clear();
        }
        self.done.notify_all();
    }

    /// The index of the task of the highest rate, the oldest among
    /// equals; `None` if there is none.
    fn hottest(tasks: &VecDeque<Queued<T>>) -> Option<usize> {
        let now = Instant::now();
        let mut best: Option<(usize, f64)> = None;
        for (i, t) in tasks.iter().enumerate() {
            let r = t.rate(now);
            if best.is_none_or(|(_, b)| r > b) {
                best = Some((i, r));
            }
        }
        best.map(|(i, _)| i)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU64};

    /// A test task: its heat is fixed (the queue is first-in-first-out).
    impl Heat for u64 {
        fn heat(&self) -> u64 {
            0
        }
    }

    /// Offering threads race the compiler thread and a shutdown: every
    /// task runs at most once, none after `shutdown` returns, each offer
    /// is run, dropped at shutdown or refused, and `shutdown` waits for
    /// one task at most. Bounded by time; prints what it checked.
    #[test]
    fn tasks_run_once_and_none_after_shutdown() {
        const OFFERERS: u64 = 3;
        const TASK: Duration = Duration::from_micros(200);
        let broker: &'static Broker<u64> = Box::leak(Box::default());
        let ran: &'static Mutex<Vec<u64>> = Box::leak(Box::new(Mutex::new(Vec::new())));
        let shut: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
        let late: &'static AtomicU64 = Box::leak(Box::new(AtomicU64::new(0)));
        let compile = move |t: u64, _waited: Duration| {
            // SeqCst: ordered against the store after `shutdown` returns.
            if shut.load(Ordering::SeqCst) {
                late.fetch_add(1, Ordering::SeqCst);
            }
            std::thread::sleep(TASK);
            ran.lock().unwrap().push(t);
        };
        let deadline = Instant::now() + Duration::from_millis(200);
        let offerers: Vec<_> = (0..OFFERERS)
            .map(|k| {
                std::thread::spawn(move || {
                    let (mut queued, mut refused) = (0u64, 0u64);
                    let mut n = 0u64;
                    while Instant::now() < deadline || n < 10 {
                        match broker.offer(k << 32 | n, compile) {
                            Ok(()) => queued += 1,
                            Err(Refused::Shut) => refused += 1,
                            Err(Refused::NoThread) => panic!("no compiler thread"),
                        }
                        n += 1;
                        if n % 8 == 0 {
                            std::thread::sleep(TASK);
                        }
                    }
                    (queued, refused)
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(100));
        let start = Instant::now();
        let dropped = broker.shutdown() as u64;
        let waited = start.elapsed();
        shut.store(true, Ordering::SeqCst);
        let (mut queued, mut refused) = (0, 0);
        for h in offerers {
            let (q, r) = h.join().unwrap();
            queued += q;
            refused += r;
        }
        // The compiler thread has nothing left; give it time to show a
        // late task if shutdown let one through.
        std::thread::sleep(Duration::from_millis(5));
        let mut ran = ran.lock().unwrap().clone();
        let count = ran.len() as u64;
        ran.sort_unstable();
        ran.dedup();
        assert_eq!(ran.len() as u64, count, "a task ran twice");
        assert_eq!(
            late.load(Ordering::SeqCst),
            0,
            "a task ran after shutdown returned"
        );
        assert_eq!(
            count + dropped,
            queued,
            "queued {queued}: ran {count}, dropped {dropped}"
        );
        assert!(waited < Duration::from_secs(5), "shutdown waited {waited:?}");
        assert!(count > 0 && refused > 0, "ran {count}, refused {refused}");
        eprintln!(
            "broker: {queued} queued by {OFFERERS} threads, {count} run once each, {dropped} dropped at shutdown, \
             {refused} refused after it; shutdown waited {waited:?}"
        );
    }

    /// A compilation that panics ends the compiler thread without hanging
    /// exit: the queue shuts, the task queued behind it never runs, later
    /// offers are refused and `shutdown` returns at once.
    #[test]
    fn a_panicking_compile_shuts_the_queue() {
        let broker: &'static Broker<u64> = Box::leak(Box::new(Broker::named("fastpath-test-panic")));
        let ran: &'static AtomicU64 = Box::leak(Box::new(AtomicU64::new(0)));
        let gate: &'static (Mutex<bool>, Condvar) = Box::leak(Box::new((Mutex::new(false), Condvar::new())));
        let compile = move |t: u64, _: Duration| {
            let (open, cv) = gate;
            let mut g = open.lock().unwrap();
            while !*g {
                g = cv.wait(g).unwrap();
            }
            drop(g);
            assert_ne!(t, 1, "the test's compile bug");
            ran.fetch_add(1, Ordering::SeqCst);
        };
        broker.offer(1, compile).unwrap();
        // Queued behind the first, which the gate holds (or about to be).
        broker.offer(2, compile).unwrap();
        {
            let (open, cv) = gate;
            *open.lock().unwrap() = true;
            cv.notify_all();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while broker.offer(3, compile) != Err(Refused::Shut) {
            assert!(Instant::now() < deadline, "the queue never shut");
            std::thread::sleep(Duration::from_millis(1));
        }
        let start = Instant::now();
        broker.shutdown();
        assert!(start.elapsed() < Duration::from_secs(5));
        // Task 1, the oldest at equal heat, ran first and panicked; 2,
        // queued behind it, and the offers of 3 queued before the panic
        // were dropped unrun.
        assert_eq!(ran.load(Ordering::SeqCst), 0, "a task ran after the panic");
        assert_eq!(broker.queued(), 0);
    }

    /// A task whose heat a test sets.
    #[derive(Debug)]
    struct Probe(u32, &'static AtomicU64);

    impl Heat for Probe {
        fn heat(&self) -> u64 {
            // SeqCst: a test's counter, read once per pick.
            self.1.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    /// The compiler thread takes the task whose heat grew fastest since
    /// it was queued, the oldest among equals: with the thread held on a
    /// first task, three are queued and the last one's heat grows.
    #[test]
    fn hottest_task_first() {
        let broker: &'static Broker<Probe> = Box::leak(Box::default());
        let ran: &'static Mutex<Vec<u32>> = Box::leak(Box::new(Mutex::new(Vec::new())));
        let gate: &'static (Mutex<bool>, Condvar) = Box::leak(Box::new((Mutex::new(false), Condvar::new())));
        let heats: [&'static AtomicU64; 4] =
            std::array::from_fn(|_| &*Box::leak(Box::new(AtomicU64::new(0))));
        let compile = move |t: Probe, _: Duration| {
            if t.0 == 0 {
                let mut open = gate.0.lock().unwrap();
                while !*open {
                    open = gate.1.wait(open).unwrap();
                }
            }
            ran.lock().unwrap().push(t.0);
        };
        broker.offer(Probe(0, heats[0]), compile).unwrap();
        // The first task is taken (the thread then waits at the gate).
        let deadline = Instant::now() + Duration::from_secs(10);
        while broker.queued() > 0 {
            assert!(Instant::now() < deadline, "the compiler thread never took a task");
            std::thread::yield_now();
        }
        for k in 1..=3 {
            broker.offer(Probe(k, heats[k as usize]), compile).unwrap();
        }
        heats[3].store(5000, std::sync::atomic::Ordering::SeqCst);
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        while ran.lock().unwrap().len() < 4 {
            assert!(
                Instant::now() < deadline,
                "tasks never ran: {:?}",
                ran.lock().unwrap()
            );
            std::thread::yield_now();
        }
        broker.shutdown();
        assert_eq!(
            *ran.lock().unwrap(),
            [0, 3, 1, 2],
            "hottest first, then oldest first"
        );
    }
}

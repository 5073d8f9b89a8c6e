//! Launching a program as `java` does: the main thread's `Thread` object,
//! the main class and method (JDK 25's launch protocol: `static
//! main(String[])`, then `static main()`, then an instance `main` with a
//! no-argument constructor, JEP 512), the uncaught-exception report, and
//! `DestroyJavaVM`'s wait for the non-daemon threads before the exit.
//! Before the main thread, the start identifies the CPU by the source
//! `FASTPATH_VM_CPU_SOURCE` names ([`cpu_source`]), where HotSpot's
//! `VM_Version` does.

pub mod cpu_source;

use std::sync::atomic::Ordering;

use fastpath::gc::{BarrierSet, PauseKind};

use super::{JThread, Vm};
use crate::link::{ClassKind, Method};

/// Runs `main_class` with `args` on the calling thread and returns the
/// process's exit status (0; 1 after an uncaught exception or a launch
/// error). Never returns for `System.exit`, which exits at once.
pub fn run_main<B: BarrierSet>(vm: &'static Vm, main_class: &str, args: &[String]) -> i32 {
    let source = match cpu_source::CpuSource::from_env() {
        Ok(s) => s,
        Err(e) => {
            crate::diag!("Error occurred during initialization of VM\n{e}");
            return 1;
        }
    };
    let identification = cpu_source::identify(source);
    if cpu_source::logging() {
        crate::diag!("{identification}");
    }
    let mut t = match JThread::<B>::attach(vm) {
        Ok(t) => t,
        Err(e) => {
            crate::diag!("Error occurred during initialization of VM\n{e}");
            return 1;
        }
    };
    if let Err(msg) = t.boot_thread() {
        crate::diag!("Error occurred during initialization of VM\n{msg}");
        return 1;
    }
    let status = t.run_main_class(main_class, args);
    // DestroyJavaVM: wait (in a safe region) for every non-daemon thread.
    t.m.safe_region(|| {
        let mut n = vm.threads.non_daemon.lock().unwrap_or_else(|e| e.into_inner());
        while *n > 0 {
            n = vm.threads.ended.wait(n).unwrap_or_else(|e| e.into_inner());
        }
    });
    // No compilation runs past this point (nor while the summaries are
    // read); the wait for the one under way is a safe region too.
    t.m.safe_region(|| vm.jit.shutdown());
    super::natives::io::flush_stdout();
    if std::env::var_os("FASTPATH_VM_GC_STATS").is_some() {
        // One line on stderr, read by the `gc` table of `benches/hotspot.rs`
        // and the tests' harness:
        // `fastpath-vm gc: C cycles, D degenerated, F full compactions, N
        // pauses, at safepoint p50 A us p99 B us max M us, cpu p99 P us max Q
        // us, total p99 T us max U us, E objects evacuated, verifier V cycles
        // R errors`. "At safepoint" is each pause's work with every mutator
        // stopped, wall time (HotSpot's `-Xlog:safepoint` "At safepoint");
        // "cpu" is the CPU time the pausing thread spent on that work (less
        // than the wall time where it lost its CPU); "total" adds the time
        // to reach the safepoint and to release it. Percentiles are nearest
        // rank over the run's pauses; 0 when there were none.
        let s = vm.heap.stats();
        let mut at_safepoint: Vec<_> = s.pauses.iter().map(|p| p.work).collect();
        let mut cpu: Vec<_> = s.pauses.iter().map(|p| p.work_cpu_time).collect();
        let mut total: Vec<_> = s.pauses.iter().map(|p| p.duration).collect();
        at_safepoint.sort_unstable();
        cpu.sort_unstable();
        total.sort_unstable();
        let us = |sorted: &[std::time::Duration], q: f64| {
            // Nearest rank: the smallest value with at least q of them at or below it.
            let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
            sorted.get(rank - 1).map_or(0.0, |d| d.as_secs_f64() * 1e6)
        };
        crate::diag!(
            "fastpath-vm gc: {} cycles, {} degenerated, {} full compactions, {} pauses, at safepoint p50 {:.1} us p99 {:.1} us max {:.1} us, cpu p99 {:.1} us max {:.1} us, total p99 {:.1} us max {:.1} us, {} objects evacuated, verifier {} cycles {} errors",
            s.cycles,
            s.degenerated_cycles,
            s.full_compactions,
            s.pauses.len(),
            us(&at_safepoint, 0.5),
            us(&at_safepoint, 0.99),
            us(&at_safepoint, 1.0),
            us(&cpu, 0.99),
            us(&cpu, 1.0),
            us(&total, 0.99),
            us(&total, 1.0),
            s.evacuated_by_collector + s.evacuated_by_mutators,
            s.verified_cycles,
            s.verify_errors.len()
        );
        // A second line, for people (the harnesses drop it with the first):
        // how early cycles began and what the pacer and the assists did.
        let config = vm.heap.config();
        let mib = |regions: f64| regions * config.region_bytes as f64 / f64::from(1 << 20);
        let began_free = s.free_regions_at_start as f64 / s.cycles.max(1) as f64;
        crate::diag!(
            "fastpath-vm gc pacing: cycles began with {:.1} MiB free of {:.1} on average (soft capacity {:.1} MiB at exit, {:.1} MiB faulted in ahead of allocation{}), ran dry in marking {}, evacuation {}, update-refs {}, {} abbreviated, {} refills paced for {:.2} ms (longest {:.1} us), {} assist slices for {:.2} ms",
            mib(began_free),
            config.heap_bytes as f64 / f64::from(1 << 20),
            vm.heap.capacity_bytes() as f64 / f64::from(1 << 20),
            mib(s.regions_read_ahead as f64),
            if s.read_ahead_refused {
                ", the system refused or ignored the read-ahead"
            } else {
                ""
            },
            s.phases.mark.ran_dry,
            s.phases.evacuation.ran_dry,
            s.phases.update_refs.ran_dry,
            s.abbreviated_cycles,
            s.paced_refills,
            s.paced_time.as_secs_f64() * 1e3,
            s.longest_paced_wait.as_secs_f64() * 1e6,
            s.assist_slices,
            s.assist_time.as_secs_f64() * 1e3,
        );
        // A third: each concurrent phase's wall and CPU time on the
        // collector thread and the regions the mutators took meanwhile,
        // averaged over the cycles (what the trigger's start has to cover).
        let per_cycle = |p: &fastpath::gc::PhaseTime| {
            let n = s.cycles.max(1) as f64;
            format!(
                "{:.2} ms ({:.2} cpu, {:.1} regions)",
                p.wall.as_secs_f64() * 1e3 / n,
                p.cpu.as_secs_f64() * 1e3 / n,
                p.regions_taken as f64 / n
            )
        };
        crate::diag!(
            "fastpath-vm gc phases per cycle: reset {}, mark {}, evacuation {}, update-refs {}; {:.1} regions freed, {:.1} in the set; collector cpu {:.2} ms in all; objects evacuated by the collector {}, by mutators {}",
            per_cycle(&s.phases.reset),
            per_cycle(&s.phases.mark),
            per_cycle(&s.phases.evacuation),
            per_cycle(&s.phases.update_refs),
            s.regions_freed as f64 / s.cycles.max(1) as f64,
            s.cset_regions as f64 / s.cycles.max(1) as f64,
            s.collector_cpu_time.as_secs_f64() * 1e3,
            s.evacuated_by_collector,
            s.evacuated_by_mutators,
        );
        // A fourth: each kind of pause's count, median and longest at the
        // safepoint (which pause a high p99 is).
        // Kinds in the order their first pause came.
        let mut kinds: Vec<(PauseKind, Vec<std::time::Duration>)> = Vec::new();
        for p in &s.pauses {
            match kinds.iter_mut().find(|(k, _)| *k == p.kind) {
                Some((_, works)) => works.push(p.work),
                None => kinds.push((p.kind, vec![p.work])),
            }
        }
        let by_kind: Vec<String> = kinds
            .iter_mut()
            .map(|(kind, works)| {
                works.sort_unstable();
                format!(
                    "{kind:?} {} p50 {:.1} us max {:.1} us",
                    works.len(),
                    us(works, 0.5),
                    us(works, 1.0)
                )
            })
            .collect();
        crate::diag!("fastpath-vm gc pauses by kind: {}", by_kind.join(", "));
    }
    if std::env::var_os("FASTPATH_VM_SYNC_STATS").is_some() {
        // The library's monitor counters for the whole run (the lab's
        // `fastpath vm` locking table reads this line).
        crate::diag!("fastpath-vm sync: {}", fastpath::sync::stats());
        let spin = fastpath::sync::fast_lock_spin::fast_lock_spin_stats();
        crate::diag!(
            "fastpath-vm fast-lock spin: acquired {}, saw a monitor {}, gave up {}",
            spin.acquired,
            spin.saw_monitor,
            spin.gave_up
        );
    }
    if vm.jit.logging() {
        crate::diag!("{}", vm.jit.summary());
        let mut methods = Vec::new();
        vm.loader
            .for_each_class(|c| methods.extend(c.methods.iter().copied()));
        for line in crate::jit::interpreted_report(&methods, 10) {
            crate::diag!("{line}");
        }
    }
    // The main thread keeps its mutator: the process ends here (daemon
    // threads with it), so nothing waits for the heap to be torn down.
    std::mem::forget(t);
    status
}

impl<B: BarrierSet> JThread<B> {
    /// Makes the main thread's `java.lang.Thread` and the preallocated
    /// `OutOfMemoryError`.
    fn boot_thread(&mut self) -> Result<(), String> {
        let vm = self.vm;
        let tc = vm.class("java/lang/Thread").map_err(|e| e.to_string())?;
        let ctor = tc
            .declared_method("<init>", "(Ljava/lang/String;Z)V")
            .ok_or("java.lang.Thread lacks its VM constructor")?;
        let describe = |t: &mut Self| {
            let e = t.take_pending();
            if e == 0 {
                "an exception".to_string()
            } else {
                t.class_of(e).java_name()
            }
        };
        if self.ensure_initialized(tc).is_err() {
            return Err(describe(self));
        }
        let obj = self.alloc_object(tc).map_err(|_| describe(self))?;
        self.stack.thread_obj.set(obj);
        let name = self.new_string_from("main").map_err(|_| describe(self))?;
        let obj = self.stack.thread_obj.get();
        if self.call(ctor, &[obj as u64, name as u64, 1]).is_err() {
            return Err(describe(self));
        }
        let record = self.thread_record(self.stack.thread_obj.get());
        self.bind_thread_record(record);
        // The preallocated OutOfMemoryError.
        let oom = vm
            .class("java/lang/OutOfMemoryError")
            .map_err(|e| e.to_string())?;
        let _ = self.throw_instance_of(oom, Some("Java heap space"));
        let e = self.take_pending();
        if e != 0 && std::ptr::eq(self.class_of(e), oom) {
            let slot = vm.globals.alloc(e).ok_or("no global slot")?;
            let _ = vm.preallocated_oom.set(slot);
        }
        let soe = vm
            .class("java/lang/StackOverflowError")
            .map_err(|e| e.to_string())?;
        let _ = self.throw_instance_of(soe, None);
        let e = self.take_pending();
        if e != 0 && std::ptr::eq(self.class_of(e), soe) {
            let slot = vm.globals.alloc(e).ok_or("no global slot")?;
            let _ = vm.preallocated_soe.set(slot);
        }
        Ok(())
    }

    fn run_main_class(&mut self, name: &str, args: &[String]) -> i32 {
        let internal = name.replace('.', "/");
        let class = match self.vm.loader.load(&internal) {
            Ok(c) if matches!(c.kind, ClassKind::Instance) => c,
            Ok(_) => {
                crate::diag!("Error: Could not find or load main class {name}\nCaused by: java.lang.ClassNotFoundException: {name}");
                return 1;
            }
            Err(e)
                if e.class == "java/lang/NoClassDefFoundError"
                    && e.message.as_deref() == Some(internal.as_str()) =>
            {
                crate::diag!("Error: Could not find or load main class {name}\nCaused by: java.lang.ClassNotFoundException: {name}");
                return 1;
            }
            Err(e) => {
                crate::diag!("Error: LinkageError occurred while loading main class {name}\n\t{e}");
                return 1;
            }
        };
        let find = |n: &str, d: &str, want_static: bool| -> Option<&'static Method> {
            crate::link::resolve::find_method(class, n, d)
                .filter(|m| m.is_static() == want_static && !m.is_private() && !m.is_abstract())
        };
        let sa = "([Ljava/lang/String;)V";
        let (method, with_args, instance) = if let Some(m) = find("main", sa, true) {
            (m, true, false)
        } else if let Some(m) = find("main", "()V", true) {
            (m, false, false)
        } else if let Some(m) = find("main", sa, false) {
            (m, true, true)
        } else if let Some(m) = find("main", "()V", false) {
            (m, false, true)
        } else {
            crate::diag!(
                "Error: Main method not found in class {name}, please define the main method as:\n   public static void main(String[] args)\nor a JavaFX application class must extend javafx.application.Application"
            );
            return 1;
        };
        if self.ensure_initialized(class).is_err() {
            self.report_uncaught();
            return 1;
        }
        let mark = self.stack.temps_len();
        let mut call_args: Vec<u64> = Vec::new();
        let receiver_slot = if instance {
            let Some(ctor) = class.declared_method("<init>", "()V").filter(|m| !m.is_private()) else {
                crate::diag!("Error: Non-static main() method requires a no-arg constructor in class {name}");
                return 1;
            };
            let obj = match self.alloc_object(class) {
                Ok(o) => o,
                Err(_) => {
                    self.report_uncaught();
                    return 1;
                }
            };
            let k = self.stack.push_temp(obj);
            if self.call(ctor, &[obj as u64]).is_err() {
                self.report_uncaught();
                return 1;
            }
            Some(k)
        } else {
            None
        };
        let args_slot = if with_args {
            match self.string_array(args) {
                Ok(a) => Some(self.stack.push_temp(a)),
                Err(_) => {
                    self.report_uncaught();
                    return 1;
                }
            }
        } else {
            None
        };
        if let Some(k) = receiver_slot {
            call_args.push(self.stack.temp(k) as u64);
        }
        if let Some(k) = args_slot {
            call_args.push(self.stack.temp(k) as u64);
        }
        self.stack.truncate_temps(mark);
        match self.call(method, &call_args) {
            Ok(_) => 0,
            Err(_) => {
                self.report_uncaught();
                1
            }
        }
    }

    /// A `String[]` of `items`.
    pub fn string_array(&mut self, items: &[String]) -> super::JResult<usize> {
        let sc = self.vm.string_class();
        let ac = self.vm.loader.array_of(sc).map_err(|e| self.throw_error(&e))?;
        let arr = self.alloc_array(ac, items.len() as i32)?;
        let mark = self.stack.temps_len();
        let k = self.stack.push_temp(arr);
        for (i, s) in items.iter().enumerate() {
            let js = match self.new_string_from(s) {
                Ok(js) => js,
                Err(e) => {
                    self.stack.truncate_temps(mark);
                    return Err(e);
                }
            };
            let arr = self.stack.temp(k);
            self.store_ref(arr, i, js);
        }
        let arr = self.stack.temp(k);
        self.stack.truncate_temps(mark);
        Ok(arr)
    }
}

/// Whether the preallocated error is set (tests).
pub fn has_preallocated_oom(vm: &Vm) -> bool {
    vm.preallocated_oom
        .get()
        .is_some_and(|s| s.load(Ordering::Relaxed) != 0)
}

//! The Java programs (`crates/fastpath-vm/bench/java`) as the tables use
//! them: each one's name for the Harness, its kind, whether it takes a
//! thread count, and the work of one iteration in quick and full runs.
//!
//! Where it sits: a catalogue read by every table that runs programs.
//!
//! Sizes: each program's `inner` (the Harness's work per iteration, linear
//! in every program but Mandelbrot, whose side it is) is chosen so that an
//! iteration takes about 120 ms on fastpath-vm's interpreter in a full run
//! and about 25 ms in a quick one, measured on the project's 2-vCPU Xeon
//! guest; C2 runs the same work 5–50× faster, which is why the compiling
//! tiers run three times the iterations (the first half of every process
//! is its warm-up). The thread programs split `inner` over the threads
//! (or producer/consumer pairs): an iteration at 1, 2 and 4 threads does
//! the same work.

/// One benchmark program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Program {
    /// Its name for `Harness`.
    pub name: &'static str,
    /// What it exercises (the README's "kind").
    pub kind: &'static str,
    /// Whether it takes a thread count; `pairs` when the count is of
    /// producer/consumer pairs.
    pub threads: Threads,
    /// `inner` in a full run.
    pub full_inner: u32,
    /// `inner` in a quick run.
    pub quick_inner: u32,
}

/// How a program uses the Harness's thread count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// Single-threaded.
    One,
    /// That many worker threads.
    Workers,
    /// That many producer/consumer pairs (twice the threads).
    Pairs,
}

impl Program {
    /// `inner` for a quick or full run.
    pub fn inner(&self, quick: bool) -> u32 {
        if quick {
            self.quick_inner
        } else {
            self.full_inner
        }
    }

    /// Whether it takes a thread count.
    pub fn threaded(&self) -> bool {
        self.threads != Threads::One
    }

    /// The thread count as a table shows it (`2`, `2 pairs`).
    pub fn threads_label(&self, n: u32) -> String {
        match self.threads {
            Threads::Pairs => format!("{n} pair{}", if n == 1 { "" } else { "s" }),
            _ => n.to_string(),
        }
    }
}

const fn p(
    name: &'static str,
    kind: &'static str,
    threads: Threads,
    full_inner: u32,
    quick_inner: u32,
) -> Program {
    Program {
        name,
        kind,
        threads,
        full_inner,
        quick_inner,
    }
}

/// Every program, the Are We Fast Yet kinds first.
pub const ALL: [Program; 20] = [
    p("Bounce", "objects, fields", Threads::One, 150, 30),
    p("List", "recursion on lists", Threads::One, 150, 30),
    p("Permute", "recursion, arrays", Threads::One, 30, 6),
    p("Queens", "backtracking", Threads::One, 100, 20),
    p("Sieve", "array loops", Threads::One, 300, 60),
    p("Storage", "array allocation", Threads::One, 20, 4),
    p("Towers", "recursion, stacks", Threads::One, 30, 6),
    p("Richards", "virtual dispatch", Threads::One, 5, 1),
    p("DeltaBlue", "polymorphism", Threads::One, 2000, 400),
    p("Json", "strings, HashMap", Threads::One, 8, 2),
    p("NBody", "double arithmetic", Threads::One, 25_000, 5_000),
    p("Mandelbrot", "double loops", Threads::One, 250, 100),
    p("CD", "HashMap, HashSet", Threads::One, 30, 6),
    p("Havlak", "graph code", Threads::One, 2, 1),
    p(
        "SyncCounter",
        "synchronized counter",
        Threads::Workers,
        500_000,
        100_000,
    ),
    p("WaitNotifyQueue", "wait/notifyAll", Threads::Pairs, 20_000, 4_000),
    p(
        "LruCache",
        "synchronized LRU (seed 004)",
        Threads::Workers,
        100_000,
        20_000,
    ),
    p(
        "HandOff",
        "SynchronousQueue (seed 004)",
        Threads::Pairs,
        5_000,
        1_000,
    ),
    p("GcTrees", "allocation, live tree", Threads::Workers, 100, 20),
    p(
        "GcListChurn",
        "allocation, live lists",
        Threads::One,
        10_000,
        2_000,
    ),
];

/// The program named `name`.
pub fn by_name(name: &str) -> Option<&'static Program> {
    ALL.iter().find(|p| p.name == name)
}

/// The names `--programs` accepts.
pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|p| p.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue and the Harness agree: every program here is one the
    /// Harness creates by that name.
    #[test]
    fn every_program_is_one_the_harness_knows() {
        let harness =
            std::fs::read_to_string(format!("{}/Harness.java", super::super::setup::JAVA_SOURCES)).unwrap();
        for p in &ALL {
            assert!(
                harness.contains(&format!("case \"{}\":", p.name)),
                "{} is not in Harness.java",
                p.name
            );
            assert!(p.quick_inner >= 1 && p.quick_inner <= p.full_inner, "{}", p.name);
        }
        assert_eq!(by_name("HandOff").unwrap().threads_label(2), "2 pairs");
        assert_eq!(by_name("SyncCounter").unwrap().threads_label(1), "1");
    }
}

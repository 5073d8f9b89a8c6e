//! `FASTPATH_GC_BARRIERS` and `FASTPATH_GC_MODE` reach a heap made with
//! `HeapConfig::from_config`, in a process of its own (the settings are
//! process-wide and fixed once read); and a barrier set that cannot run
//! the concurrent mode asked for gives one configuration (passive, the set
//! kept) and one report, whichever of `config::global`, `config::init`,
//! `HeapConfig::from_config` and `Heap::new` reads the settings first: each
//! order runs in a child process of this binary.
//!
//! The first test sets the variables before anything in this process reads
//! them; the second reads nothing here (its children read theirs).

use std::process::Command;
use std::sync::{Arc, Mutex};

use fastpath::config::{self, ConfigError};
use fastpath::gc::{with_barrier_set, BarrierBits, BarrierSet, GcMode, Heap, HeapConfig, WithBarrierSet};

/// Allocates and stores through a mutator of the set's own type.
struct Use<'h>(&'h Heap);

impl WithBarrierSet for Use<'_> {
    type Output = Option<u16>;
    fn run<B: BarrierSet>(self, _bits: BarrierBits) -> Option<u16> {
        let mut m = self.0.mutator::<B>().expect("the heap's own set");
        let a = m.alloc(1, 0).unwrap();
        let b = m.alloc(0, 1).unwrap();
        let (oa, ob) = (m.get(a).unwrap(), m.get(b).unwrap());
        m.store(oa, 0, Some(ob)).unwrap();
        assert!(m.load(oa, 0).unwrap().is_some());
        B::BITS
    }
}

#[test]
fn the_environment_reaches_a_heap_made_from_the_configuration() {
    std::env::set_var("FASTPATH_GC_BARRIERS", "shenandoah-2017");
    std::env::set_var("FASTPATH_GC_MODE", "concurrent");

    let config = HeapConfig::from_config(8 << 20);
    assert_eq!(config.barriers, BarrierBits::SHENANDOAH_2017);
    assert_eq!(config.mode, GcMode::Concurrent);
    let heap = Heap::new(config).unwrap();
    assert_eq!(heap.config().barriers, BarrierBits::SHENANDOAH_2017);
    assert_eq!(heap.config().mode, GcMode::Concurrent);
    // The set, chosen at run time, runs monomorphised.
    assert_eq!(
        with_barrier_set(heap.config().barriers, Use(&heap)),
        Some(BarrierBits::SHENANDOAH_2017.0)
    );

    // The gathered configuration says the same, and the strict entry point
    // accepts it.
    let c = fastpath::config::global();
    assert_eq!(
        (c.gc_barriers, c.gc_mode),
        (BarrierBits::SHENANDOAH_2017, GcMode::Concurrent)
    );
    assert_eq!(fastpath::config::init().unwrap(), c);
    println!("{c}");
}

/// The readers the order test puts first, second...
const READERS: [&str; 4] = ["global", "init", "from_config", "heap"];

/// Every order of the four readers (for `none`) and each reader first (for
/// three other sets the concurrent mode cannot run with), each in a child
/// process running [`readers_in_the_given_order`].
#[test]
fn every_order_of_first_readers_gives_one_configuration_and_one_report() {
    let mut orders: Vec<(&str, Vec<&str>)> =
        permutations(&READERS).into_iter().map(|p| ("none", p)).collect();
    for set in ["serial", "g1", "satb,lrb"] {
        for first in 0..4 {
            orders.push((set, (0..4).map(|k| READERS[(first + k) % 4]).collect()));
        }
    }
    for (set, order) in &orders {
        let mut child = self_command();
        child.args([
            "--ignored",
            "--exact",
            "readers_in_the_given_order",
            "--nocapture",
            "--test-threads=1",
        ]);
        for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("FASTPATH_")) {
            child.env_remove(k);
        }
        let out = child
            .env("FASTPATH_GC_BARRIERS", set)
            .env("FASTPATH_GC_MODE", "concurrent")
            .env("FASTPATH_TEST_READERS", order.join(","))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "{set} read by {order:?}: {}\n{text}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    println!(
        "{} orders: each gave the set passive and one report",
        orders.len()
    );
}

/// The variable naming cargo's runner for the target this test binary was
/// built for (`CARGO_TARGET_<TRIPLE>_RUNNER`, cargo's own spelling).
#[cfg(target_arch = "aarch64")]
const RUNNER_VAR: &str = "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER";
#[cfg(not(target_arch = "aarch64"))]
const RUNNER_VAR: &str = "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER";

/// A command that runs this test binary again, as a child process: through
/// cargo's runner when one is given (a cross-built binary under a user-mode
/// emulator, which the host kernel cannot execute: the child would exit 127
/// without a word), directly otherwise.
fn self_command() -> Command {
    let exe = std::env::current_exe().unwrap();
    let runner = std::env::var(RUNNER_VAR).unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut cmd = Command::new(program);
            cmd.args(words).arg(exe);
            cmd
        }
        None => Command::new(exe),
    }
}

/// Every order of `items`.
fn permutations(items: &[&'static str]) -> Vec<Vec<&'static str>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for (k, &first) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(k);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// One order of first readers (`FASTPATH_TEST_READERS`), in a process of
/// its own: every reader gives `FASTPATH_GC_BARRIERS`' set in passive mode
/// (`init` refuses the pair instead when it comes first, and nothing read
/// the settings yet), and the pair is reported once, to the hook.
#[test]
#[ignore = "a child process of every_order_of_first_readers_gives_one_configuration_and_one_report"]
fn readers_in_the_given_order() {
    let order = std::env::var("FASTPATH_TEST_READERS").expect("run by the order test, which sets the order");
    let set: BarrierBits = std::env::var("FASTPATH_GC_BARRIERS").unwrap().parse().unwrap();
    let reports: Arc<Mutex<Vec<ConfigError>>> = Arc::default();
    let sink = reports.clone();
    assert!(config::on_invalid_variable(move |e| sink
        .lock()
        .unwrap()
        .push(e.clone())));
    for (k, reader) in order.split(',').enumerate() {
        let got = match reader {
            "global" => (config::global().gc_barriers, config::global().gc_mode),
            "init" => match config::init() {
                Ok(c) => (c.gc_barriers, c.gc_mode),
                Err(e) => {
                    assert_eq!(k, 0, "init refuses only as the first reader: {e}");
                    assert_eq!(e.setting, "FASTPATH_GC_BARRIERS", "{e}");
                    assert!(e.reason.contains("concurrent mode needs"), "{e}");
                    println!("init, first: refused ({e})");
                    continue;
                }
            },
            "from_config" => {
                let c = HeapConfig::from_config(8 << 20);
                (c.barriers, c.mode)
            }
            "heap" => {
                let heap = Heap::new(HeapConfig::from_config(8 << 20)).expect("the defaults make a heap");
                (heap.config().barriers, heap.config().mode)
            }
            other => panic!("no reader {other}"),
        };
        println!("{reader}: {} {}", got.0, got.1);
        assert_eq!(got, (set, GcMode::Passive), "{reader}, reader {k} of {order}");
    }
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].setting, "FASTPATH_GC_BARRIERS");
    assert!(
        reports[0].reason.contains("concurrent mode needs"),
        "{}",
        reports[0]
    );
    println!("one report: {}", reports[0]);
}

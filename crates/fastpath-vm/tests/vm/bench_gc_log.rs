//! The `gc` table's readers (`benches/hotspot/gc_log.rs`) against a
//! fastpath-vm `FASTPATH_VM_GC_STATS` line and HotSpot `-Xlog:gc,safepoint`
//! lines, so that a change to either format fails here and not silently in
//! a benchmark run. No VM runs.

use crate::gc_log::{iterations, nearest_rank, FastpathGc, HotspotGc};

#[test]
fn reads_the_gc_stats_line() {
    let stderr = "something else\nfastpath-vm gc: 22 cycles, 1 degenerated, 2 full compactions, 88 pauses, at safepoint p50 44.3 us p99 215.9 us max 216.0 us, cpu p99 120.5 us max 130.0 us, total p99 9327.5 us max 9400.1 us, 171229 objects evacuated, verifier 0 cycles 0 errors\n";
    let g = FastpathGc::parse(stderr).unwrap();
    assert_eq!(
        g,
        FastpathGc {
            cycles: 22,
            degenerated: 1,
            full: 2,
            pauses: 88,
            at_safepoint_us: [44.3, 215.9, 216.0],
            cpu_us: [120.5, 130.0],
            total_us: [9327.5, 9400.1],
        }
    );
    assert!(FastpathGc::parse("fastpath-vm gc: 3 cycles").is_err());
    assert!(FastpathGc::parse("no line").is_err());
}

#[test]
fn reads_shenandoah_safepoints_and_cycles() {
    let log = "\
[0.016s][info][gc] Using Shenandoah
[0.538s][info][gc] GC(0) Concurrent reset (unload classes) 0.043ms
[0.541s][info][gc] GC(0) Pause Init Mark (unload classes) 0.043ms
[0.541s][info][safepoint] Safepoint \"ShenandoahInitMark\", Time since last: 484199953 ns, Reaching safepoint: 2196954 ns, At safepoint: 91585 ns, Leaving safepoint: 4024 ns, Total: 2292563 ns, Threads: 1 runnable, 10 total
[0.565s][info][gc       ] GC(0) Pause Final Mark (unload classes) 0.074ms
[0.565s][info][safepoint] Safepoint \"ShenandoahFinalMarkStartEvac\", Time since last: 23842973 ns, Reaching safepoint: 107294 ns, At safepoint: 85823 ns, Leaving safepoint: 1415 ns, Total: 194532 ns, Threads: 1 runnable, 10 total
[0.700s][info][safepoint] Safepoint \"Cleanup\", Time since last: 1000 ns, Reaching safepoint: 1000 ns, At safepoint: 5000000 ns, Leaving safepoint: 1000 ns, Total: 5002000 ns, Threads: 1 runnable, 10 total
[0.900s][info][gc       ] GC(1) Pause Degenerated GC (Mark) 64M->60M(64M) 12.000ms
[0.950s][info][gc       ] GC(2) Pause Full 64M->20M(64M) 40.000ms
";
    let g = HotspotGc::parse(log).unwrap();
    assert_eq!(g.cycles, 3);
    assert_eq!((g.degenerated, g.full), (1, 1));
    // The non-GC `Cleanup` safepoint is not a collector pause.
    assert_eq!(g.at_safepoint_us, vec![91.585, 85.823]);
    assert_eq!(g.total_us, vec![2292.563, 194.532]);
    let bad = "[0.5s][info][safepoint] Safepoint \"ShenandoahInitMark\", Reaching safepoint: 1 ns";
    assert!(HotspotGc::parse(bad).is_err());
}

#[test]
fn nearest_rank_percentiles() {
    let v: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(nearest_rank(&v, 0.5), 50.0);
    assert_eq!(nearest_rank(&v, 0.99), 99.0);
    assert_eq!(nearest_rank(&v, 1.0), 100.0);
    assert_eq!(nearest_rank(&[7.0], 0.99), 7.0);
    assert_eq!(nearest_rank(&[], 0.5), 0.0);
}

#[test]
fn reads_checksum_iterations() {
    let out = "GcTrees iteration 0 9354880 590179892\nGcTrees iteration 1 9430349 -5\n";
    assert_eq!(
        iterations(out).unwrap(),
        vec![(9354880.0, 590179892), (9430349.0, -5)]
    );
    assert!(iterations("GcTrees iteration 0 9354880\n").is_err());
    assert!(iterations("GcTrees iteration 1 9354880 1\n").is_err());
}

/// The VM's own format string (`runtime/launch.rs`), each placeholder
/// filled with its ordinal, reads back field by field: a field added,
/// dropped or moved there fails here.
#[test]
fn reads_the_line_launch_rs_prints() {
    let source = include_str!("../../src/runtime/launch.rs");
    let start = source
        .find("\"fastpath-vm gc: ")
        .expect("launch.rs prints the `fastpath-vm gc:` line");
    let format = &source[start + 1..];
    let format = &format[..format.find('"').unwrap()];
    let mut line = String::new();
    let mut rest = format;
    let mut ordinal = 0;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').unwrap();
        ordinal += 1;
        line.push_str(&rest[..open]);
        line.push_str(&ordinal.to_string());
        rest = &rest[close + 1..];
    }
    line.push_str(rest);
    assert_eq!(ordinal, 14, "placeholders in `{format}`");
    let g = FastpathGc::parse(&line).unwrap();
    assert_eq!(
        g,
        FastpathGc {
            cycles: 1,
            degenerated: 2,
            full: 3,
            pauses: 4,
            at_safepoint_us: [5.0, 6.0, 7.0],
            cpu_us: [8.0, 9.0],
            total_us: [10.0, 11.0],
        }
    );
}

//! The lab's terminal output fits 120 columns: quick runs of the
//! experiments whose tables carry long free text (the icache serializing
//! primitives' descriptions, the GC barrier fast paths' instruction
//! sequences, the JIT tables' "not run" reasons with a path in them, the
//! GC pause tables' two dozen columns) print no line wider than
//! `TEXT_WIDTH`, and the wrapped cells lose no word.

use crate::common::{fastpath, scratch, stdout_of};
use fastpath_lab::report::table::TEXT_WIDTH;

/// `fastpath args…`'s stdout, after checking it succeeded.
fn run(args: &[&str]) -> String {
    stdout_of(fastpath().args(args))
}

/// Every line of `text` within `TEXT_WIDTH` characters; the number of
/// lines checked.
fn assert_fits(what: &str, text: &str) -> usize {
    let wide: Vec<&str> = text.lines().filter(|l| l.chars().count() > TEXT_WIDTH).collect();
    assert!(
        wide.is_empty(),
        "{what}: {} line(s) over {TEXT_WIDTH} columns:\n{}\n\nin:\n{text}",
        wide.len(),
        wide.join("\n")
    );
    let n = text.lines().count();
    assert!(n > 5, "{what}: no table printed:\n{text}");
    eprintln!("{what}: {n} lines within {TEXT_WIDTH} columns");
    n
}

#[test]
fn icache_tables_fit_120_columns() {
    let text = run(&["icache", "--quick", "--iterations", "20", "--stubs", "300"]);
    assert_fits("icache", &text);
    assert!(text.contains("Serializing primitives"), "{text}");
}

#[test]
fn gc_fast_path_sequences_fit_120_columns() {
    let text = run(&["gc", "--quick", "--only", "fast-paths"]);
    assert_fits("gc fast-paths", &text);
    // Where objdump found the probes, the sequences are there: too long
    // beside seven columns, each goes under its row, full width.
    let rows = text
        .lines()
        .skip_while(|l| !l.starts_with("---"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| !l.starts_with(' '))
        .count();
    if rows > 0 {
        assert!(
            text.lines().any(|l| l.starts_with("    instructions: ")),
            "no instruction sequence under its row:\n{text}"
        );
    }
}

#[test]
fn gc_pause_tables_fit_120_columns_in_blocks() {
    // The mutators' side has 23 columns of figures: no wrap fits them, so
    // they print in blocks, each opening with the set.
    let text = run(&[
        "gc",
        "--quick",
        "--only",
        "pauses",
        "--mutators",
        "1",
        "--heap-mib",
        "16",
        "--seconds",
        "1",
    ]);
    assert_fits("gc pauses", &text);
    let side = text
        .split("the mutators' side")
        .nth(1)
        .unwrap_or_else(|| panic!("no mutators' side table:\n{text}"));
    let blocks = side.lines().filter(|l| l.starts_with("---")).count();
    assert!(blocks >= 2, "{side}");
    let keyed = side.lines().filter(|l| l.starts_with("shenandoah-2017 ")).count();
    assert_eq!(keyed, blocks, "each block repeats the row's set:\n{side}");
}

#[test]
fn jit_not_run_rows_fit_120_columns() {
    // An empty --jvm folder: every hotspot-c2 row says "not run", naming
    // the missing file's path and how to produce it.
    let dir = scratch("width-jvm");
    std::fs::create_dir_all(&dir).unwrap();
    let text = run(&[
        "jit",
        "--quick",
        "--iterations",
        "2",
        "--only",
        "locks",
        "--jvm",
        dir.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_fits("jit locks", &text);
    // The reason is all there, across its lines.
    let words: Vec<&str> = text.split_whitespace().collect();
    assert!(
        words.windows(2).any(|w| w == ["not", "run:"]),
        "no not-run row:\n{text}"
    );
}

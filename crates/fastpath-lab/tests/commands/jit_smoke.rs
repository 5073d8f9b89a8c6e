//! `fastpath jit` as a user meets it: a quick run prints its three tables
//! with every generated loop timed (the loops really run: a template that
//! faulted or looped would fail here), reads HotSpot's rows from a
//! JitBench JSON file or says how to produce it, and refuses options out
//! of range before anything runs (exit 2, naming the range). With valgrind
//! (or hardware counters), the profiled poll table has the instruction
//! counts the loops' shapes imply, and the Cranelift lock rows run the
//! inline fast path (the template's branches per pair, no slow-path call);
//! `--prof-rows` keeps those runs to the rows they read.

use crate::common::{fastpath, scratch, stdout_of};

#[test]
fn a_quick_run_prints_every_table_and_writes_its_json() {
    let dir = scratch("jit-quick");
    std::fs::create_dir_all(&dir).unwrap();
    let out = fastpath()
        .args(["jit", "--quick", "--iterations", "2", "--jvm"])
        .arg(&dir)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}\n{text}");
    for needle in [
        "JIT-inlined lock + unlock pairs",
        "Safepoint poll per loop trip",
        "Barriers idle (passive mode)",
        "The graph workload as JIT code",
        // No jit.json in --jvm: HotSpot's rows say how to produce it.
        "not run: no ",
        "ONLY=jit ./run.sh",
    ] {
        assert!(text.contains(needle), "{needle}:\n{text}");
    }
    // The poll, barrier and graph tables' loops never took a slow path.
    assert_eq!(
        text.matches("slow paths of this table's generated loops taken: 0 ")
            .count(),
        3,
        "{text}"
    );
    for (op, form) in [
        ("uncontended", "template"),
        ("uncontended", "template-guessing"),
        ("recursive", "template"),
        ("churn", "template"),
        ("uncontended", "cranelift"),
        ("uncontended", "cranelift-guessing"),
        ("recursive", "cranelift"),
        ("churn", "cranelift"),
        ("poll", "cranelift"),
        ("lrb-load", "cranelift"),
        ("brooks-load", "template"),
    ] {
        let timed = text.lines().any(|l| {
            let mut w = l.split_whitespace();
            w.next() == Some(op)
                && w.next() == Some(form)
                && w.next().is_some_and(|ns| ns.parse::<f64>().is_ok())
        });
        assert!(timed, "{op} {form} has no timed row:\n{text}");
    }
    let json = std::fs::read_to_string(dir.join("out/jit.json")).unwrap();
    let rows = fastpath_lab::report::jmh::from_json(&json).unwrap();
    // Every measured row (template, cranelift where it has the fast path,
    // rust); HotSpot's are read, not measured, and absent here.
    assert_eq!(rows.len(), 44, "{json}");
    assert!(rows
        .iter()
        .all(|r| r.primary_metric.score.is_finite() && r.primary_metric.score > 0.0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_pair_table_times_every_form_beside_the_baselines() {
    let text = stdout_of(fastpath().args(["jit", "--quick", "--only", "pair"]));
    for form in [
        "template",
        "template-expecting",
        "template-guessing",
        "shift-16",
        "shift-32",
    ] {
        let timed = text.lines().any(|l| {
            let mut w = l.split_whitespace();
            w.next() == Some("pair")
                && w.next() == Some(form)
                && w.next().is_some_and(|ns| ns.parse::<f64>().is_ok())
        });
        assert!(timed, "pair {form} has no timed row:\n{text}");
    }
    assert!(
        text.lines().any(|l| {
            let mut w = l.split_whitespace();
            w.next() == Some("parking-lot") && w.next() == Some("rust")
        }),
        "{text}"
    );
    assert!(
        !text.contains("JIT-inlined lock + unlock pairs"),
        "--only pair ran another table"
    );
}

/// `--header-offset`/`--counter-offset` put every lock row's header and
/// counter at those offsets from the thread block modulo 4096 (the
/// column says where each landed), and a header at the lock-stack top
/// field's offset is flagged as aliasing it.
#[test]
fn the_pair_table_places_headers_and_counters_where_asked() {
    for (header, counter, aliased) in [("1024", "2048", false), ("0", "2048", true)] {
        let text = stdout_of(
            fastpath()
                .args(["jit", "--quick", "--only", "pair", "--header-offset", header])
                .args(["--counter-offset", counter]),
        );
        let want = format!(
            "+{:#x}, +{:#x}",
            header.parse::<u32>().unwrap(),
            counter.parse::<u32>().unwrap()
        );
        let mut placed = 0;
        for l in text.lines() {
            let w: Vec<&str> = l.split_whitespace().collect();
            // Every generated pair row, and the Rust fast path's.
            let lock_row = matches!(w.as_slice(), ["pair", ..] | ["uncontended", "rust", ..]);
            if lock_row {
                assert!(l.contains(&want), "{want} not in {l}");
                assert_eq!(l.contains("(aliases the lock-stack top field)"), aliased, "{l}");
                placed += 1;
            }
        }
        assert_eq!(placed, 6, "{text}");
    }
}

#[test]
fn hotspot_rows_come_from_jitbench_json() {
    let dir = scratch("jit-hotspot");
    std::fs::create_dir_all(&dir).unwrap();
    let row = |m: &str, gc: &str, score: f64| {
        format!(
            r#"{{"jmhVersion":"1.37","benchmark":"fastpath.peers.JitBench.{m}","mode":"avgt","threads":1,"forks":1,
            "params":{{"gc":"{gc}"}},"primaryMetric":{{"score":{score},"scoreError":0.5,"scoreUnit":"ns/op","rawData":[[{score}]]}},
            "secondaryMetrics":{{}}}}"#
        )
    };
    std::fs::write(
        dir.join("jit.json"),
        format!(
            "[{},{}]",
            row("casPair", "default", 4.25),
            row("uncontended", "default", 1500.0)
        ),
    )
    .unwrap();
    let out = fastpath()
        .args(["jit", "--quick", "--iterations", "2", "--only", "locks", "--jvm"])
        .arg(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("1500"), "{text}");
    // A C2 pair of 1.2 µs: the inlined pair is far below it, and the
    // verdict says so against both goals.
    assert!(text.contains("HotSpot C2's (goal ≤ 1.00×)"), "{text}");
    assert!(text.contains("no JitBench.churn"), "{text}");
    assert!(!text.contains("Safepoint poll"), "--only locks ran another table");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn options_out_of_range_exit_2_before_anything_runs() {
    for (args, needle) in [
        (&["--iterations", "1"][..], "2..=1000"),
        (&["--iterations", "1001"][..], "2..=1000"),
        (&["--only", "gc"][..], "locks"),
        (&["--jvm", "/nonexistent/jvm-results"][..], "not a folder"),
        (&["--only", "pair", "--header-offset", "4096"][..], "0..=4088"),
        (&["--only", "pair", "--counter-offset", "12"][..], "multiple of 8"),
        (
            &["--only", "locks", "--header-offset", "8"][..],
            "needs --only pair",
        ),
        (&["--counter-offset", "8"][..], "needs --only pair"),
        (
            &["--prof", "perfnorm", "--prof-rows", "uncontended"][..],
            "--prof-rows uncontended: no such row",
        ),
        (&["--prof-rows", "poll/template"][..], "--prof <PROFILER>"),
    ] {
        let out = fastpath().arg("jit").args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} measured something");
    }
}

#[test]
fn profiled_poll_rows_count_the_loop_and_the_template() {
    if !crate::common::can_profile("profiled_poll_rows_count_the_loop_and_the_template") {
        return;
    }
    let text = profiled("poll", "empty-loop/template,poll/template");
    // The counter table: `dec; jnz` per trip, plus the poll's two.
    assert_eq!(insns(&text, "empty-loop/template"), 2.0, "{text}");
    assert_eq!(insns(&text, "poll/template"), 4.0, "{text}");
    // The graph kernel: each idle SATB or LRB test adds its 2 instructions
    // per execution (3 stores and CASes, 5 reference loads).
    let text = profiled("graph", "graph/none,graph/satb,graph/lrb,graph/brooks-wb");
    let none = insns(&text, "graph/none");
    assert_eq!(insns(&text, "graph/satb") - none, 2.0 * 3.0, "{text}");
    assert_eq!(insns(&text, "graph/lrb") - none, 2.0 * 5.0, "{text}");
    // The Brooks write barrier: its 3 instructions (state test, branch,
    // forwarding load) on each of the 2 objects.
    assert_eq!(insns(&text, "graph/brooks-wb") - none, 3.0 * 2.0, "{text}");
}

#[test]
fn profiled_cranelift_lock_rows_take_the_templates_fast_path() {
    if !crate::common::can_profile("profiled_cranelift_lock_rows_take_the_templates_fast_path") {
        return;
    }
    let text = profiled(
        "locks",
        "uncontended/template,uncontended/cranelift,recursive/template,recursive/cranelift,churn/template,churn/cranelift",
    );
    // The rows not asked for are timed, not counted, and say so.
    assert!(text.contains("not counted: not in --prof-rows"), "{text}");
    for op in ["uncontended", "recursive", "churn"] {
        let (tpl, cl) = (format!("{op}/template"), format!("{op}/cranelift"));
        // The same branches per pair as the template: the inline fast
        // path, no slow-path call (the library's enter alone has more).
        assert_eq!(column(&text, &cl, 2), column(&text, &tpl, 2), "{op}:\n{text}");
        // Fewer than twice the template's instructions: register copies
        // and loop control, no call.
        let (t, c) = (insns(&text, &tpl), insns(&text, &cl));
        assert!(c >= t && c < 2.0 * t, "{op}: {c} against {t}:\n{text}");
    }
}

/// `fastpath jit --quick --iterations 2 --only TABLE --prof perfnorm
/// --prof-rows ROWS`'s stdout, after checking it succeeded: only the rows
/// a test reads are counted (each counted row is a Valgrind run of the
/// debug binary, seconds each).
fn profiled(table: &str, rows: &str) -> String {
    stdout_of(fastpath().args([
        "jit",
        "--quick",
        "--iterations",
        "2",
        "--only",
        table,
        "--prof",
        "perfnorm",
        "--prof-rows",
        rows,
    ]))
}

/// The `:instructions` cell of row `id` in a perfnorm counter table.
fn insns(text: &str, id: &str) -> f64 {
    column(text, id, 1)
}

/// Cell `n` (0: the row's id) of row `id` in a perfnorm counter table.
fn column(text: &str, id: &str, n: usize) -> f64 {
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(id))
        .unwrap_or_else(|| panic!("{id}:\n{text}"));
    line.split_whitespace().nth(n).unwrap().parse().unwrap()
}

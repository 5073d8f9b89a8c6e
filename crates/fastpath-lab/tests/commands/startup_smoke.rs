//! `fastpath startup --quick` runs, prints its table, and writes JMH JSON
//! with a cold and a warm row per identification source.

use std::process::Command;

#[test]
fn startup_quick_writes_every_row() {
    let out_dir = std::env::temp_dir().join(format!("fastpath-startup-smoke-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_fastpath"))
        .args(["startup", "--quick", "--out"])
        .arg(&out_dir)
        .output()
        .expect("running fastpath startup");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("cpuid-only (baseline)"), "{stdout}");
    assert!(
        stdout.contains("NOT seed-faithful"),
        "quick mode says what it does: {stdout}"
    );

    let json = std::fs::read_to_string(out_dir.join("startup.json")).expect("startup.json");
    let results = fastpath_lab::report::jmh::from_json(&json).expect("JMH JSON parses");
    let _ = std::fs::remove_dir_all(&out_dir);
    for source in [
        "cpuid-only",
        "proc-cpuinfo",
        "sysfs-microcode",
        "features-string-with-microcode",
    ] {
        for phase in ["cold", "warm"] {
            let row = results
                .iter()
                .find(|r| {
                    r.params.get("source").map(String::as_str) == Some(source)
                        && r.params.get("phase").map(String::as_str) == Some(phase)
                })
                .unwrap_or_else(|| panic!("no {source}/{phase} row"));
            assert!(row.primary_metric.score > 0.0, "{source}/{phase}");
            assert!(row.secondary_metrics.contains_key("median_ratio_vs_cpuid_only"));
        }
    }
    assert_eq!(results.len(), 8);
}

#[test]
fn unknown_child_source_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_fastpath"))
        .args(["__identify", "tea-leaves"])
        .output()
        .expect("running fastpath");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn cpu_json_parses_and_names_the_cpu() {
    let out = Command::new(env!("CARGO_BIN_EXE_fastpath"))
        .args(["cpu", "--json", "--timing"])
        .output()
        .expect("running fastpath cpu");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(v["logical_cpus"].as_u64().unwrap() >= 1);
    assert!(v["features_string"].as_str().unwrap().contains("family"));
    let t = &v["timing"];
    assert!(t["fresh_identification_ns"]["median"].as_f64().unwrap() > 0.0);
    #[cfg(target_arch = "x86_64")]
    {
        let n = t["fresh_identification_cpuid"].as_u64().unwrap();
        assert!((1..=20).contains(&n), "{n} CPUIDs");
        assert_eq!(t["files_opened"].as_array().unwrap().len(), 0);
    }
    assert!(v.get("microcode").is_none(), "no microcode unless asked");
}

#[test]
fn cpu_decodes_a_recorded_dump() {
    let dump = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fastpath/src/cpu/fixtures/intel_sapphire_rapids_w7_2475x.txt"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_fastpath"))
        .args(["cpu", "--json", "--from-dump", dump])
        .output()
        .expect("running fastpath cpu --from-dump");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["model"], 143);
    assert!(v["features"].as_array().unwrap().iter().any(|f| f == "serialize"));

    let out = Command::new(env!("CARGO_BIN_EXE_fastpath"))
        .args(["cpu", "--from-dump", "/nonexistent/dump.txt"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/dump.txt"));
}

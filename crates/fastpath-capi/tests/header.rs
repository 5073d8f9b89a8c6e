//! `include/fastpath.h` is what cbindgen generates from this crate today:
//! regenerating it must not change it (the issue's "CI fails if
//! regenerating it changes it", checked by `cargo test`, no installed
//! cbindgen needed). `FASTPATH_BLESS=1` rewrites the checked-in header.

use std::path::Path;

#[test]
fn checked_in_header_matches_cbindgen() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");

    let path = crate_dir.join("../../include/fastpath.h");
    if std::env::var_os("FASTPATH_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/fastpath.h");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/fastpath.h differs from what cbindgen generates from crates/fastpath-capi; \
         regenerate it with `FASTPATH_BLESS=1 cargo test -p fastpath-capi --test header` and commit it"
    );
    assert!(generated.contains("fastpath_status fastpath_monitor_enter(struct fastpath_header *h);"));
}

/// "Every function" is tested from C: each function the header declares is
/// called by at least one of the C/C++ test programs.
#[test]
fn every_declared_function_is_called_by_a_c_test() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header =
        std::fs::read_to_string(crate_dir.join("../../include/fastpath.h")).expect("read the header");
    let declared: Vec<&str> = header
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('#') && !l.starts_with("typedef"))
        .filter_map(|l| {
            let name = l.split('(').next()?.rsplit([' ', '*']).next()?;
            (name.starts_with("fastpath_") && l.contains('(')).then_some(name)
        })
        .collect();
    assert!(declared.len() >= 50, "found only {declared:?}");
    let mut tests = String::new();
    for entry in std::fs::read_dir(crate_dir.join("tests/c")).expect("tests/c") {
        tests += &std::fs::read_to_string(entry.expect("entry").path()).expect("read a test");
    }
    let untested: Vec<&&str> = declared
        .iter()
        .filter(|f| !tests.contains(&format!("{f}(")))
        .collect();
    assert!(untested.is_empty(), "not called by any C test: {untested:?}");
    println!("{} declared functions, each called from C", declared.len());
}

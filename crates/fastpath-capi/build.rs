//! Writes `fastpath.pc` (pkg-config) next to `libfastpath.so` and
//! `libfastpath.a` in the profile's output directory (`target/debug`,
//! `target/release`), pointing at that directory and at the repository's
//! `include/`: `PKG_CONFIG_PATH=target/release pkg-config --cflags --libs
//! fastpath`. An installer copies the libraries, the headers and this file
//! and edits the two paths.
//!
//! The variable `lockpath_cflags` holds the flags for C code that calls
//! the monitor functions of `libfastpath.so` on its lock path (`-fno-plt`:
//! the calls go through the GOT with no PLT stub; why and by how much:
//! `fastpath_monitor_enter`'s comment in `fastpath.h`).

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out.
    let Some(lib_dir) = out_dir.ancestors().nth(3) else {
        return;
    };
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let include = manifest.join("../../include");
    let include = include.canonicalize().unwrap_or(include);
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let pc = format!(
        "libdir={lib}\nincludedir={inc}\nlockpath_cflags=-fno-plt\n\n\
         Name: fastpath\n\
         Description: Fast paths of a managed runtime (object monitors, code cache, spin pauses, CPU identification): C ABI\n\
         Version: {version}\n\
         Cflags: -I${{includedir}}\n\
         Libs: -L${{libdir}} -lfastpath\n\
         Libs.private: -lpthread -ldl -lm -lrt\n",
        lib = lib_dir.display(),
        inc = include.display(),
    );
    write_if_changed(&lib_dir.join("fastpath.pc"), &pc);
}

fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        // A read-only target directory only loses the convenience file.
        let _ = std::fs::write(path, text);
    }
}

//! Compiles the class library (`classlib/**/*.java`) with the JDK's javac
//! and packs the class files into the archive the binary embeds
//! (`link/archive.rs` reads it). A JDK is required: javac from `JAVAC`,
//! `JAVA_HOME`, Temurin 25 at its Debian path, or `PATH`, in that order.
//! The library is compiled as Java 8 source against itself only
//! (`-bootclasspath classlib`), so it references nothing it does not
//! define.

use std::path::{Path, PathBuf};
use std::process::Command;

fn javac() -> Option<PathBuf> {
    if let Ok(j) = std::env::var("JAVAC") {
        return Some(PathBuf::from(j));
    }
    if let Ok(h) = std::env::var("JAVA_HOME") {
        let p = Path::new(&h).join("bin/javac");
        if p.is_file() {
            return Some(p);
        }
    }
    let temurin = Path::new("/usr/lib/jvm/temurin-25-jdk-amd64/bin/javac");
    if temurin.is_file() {
        return Some(temurin.to_path_buf());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("javac"))
            .find(|p| p.is_file())
    })
}

fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let src = root.join("classlib");
    println!("cargo:rerun-if-changed=classlib");
    println!("cargo:rerun-if-env-changed=JAVAC");
    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let classes = out.join("classlib-classes");
    let _ = std::fs::remove_dir_all(&classes);
    std::fs::create_dir_all(&classes).expect("create the class output directory");
    let mut sources = Vec::new();
    collect(&src, "java", &mut sources);
    sources.sort();
    let javac = javac().unwrap_or_else(|| {
        panic!(
            "fastpath-vm needs a JDK to compile its class library: install one (Debian: apt-get install openjdk-17-jdk-headless) or set JAVAC or JAVA_HOME"
        )
    });
    let status = Command::new(&javac)
        .args([
            "-source",
            "8",
            "-target",
            "8",
            "-Xlint:-options",
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-g:source,lines",
        ])
        .arg("-bootclasspath")
        .arg(&src)
        .arg("-d")
        .arg(&classes)
        .args(&sources)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", javac.display()));
    assert!(
        status.success(),
        "javac failed on the class library ({})",
        javac.display()
    );
    let mut files = Vec::new();
    collect(&classes, "class", &mut files);
    let mut entries: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&classes).expect("under the output directory");
            let name = rel.with_extension("").to_string_lossy().replace('\\', "/");
            (name, std::fs::read(f).expect("read a class file"))
        })
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    // The archive format of `src/link/archive.rs`.
    let mut archive = Vec::new();
    archive.extend_from_slice(b"FPVMCL01");
    archive.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    let blob_at = 12 + entries.len() * 16;
    let mut blob = Vec::new();
    for (name, data) in &entries {
        let no = blob_at + blob.len();
        blob.extend_from_slice(name.as_bytes());
        let doff = blob_at + blob.len();
        blob.extend_from_slice(data);
        for v in [no, name.len(), doff, data.len()] {
            archive.extend_from_slice(&(v as u32).to_le_bytes());
        }
    }
    archive.extend_from_slice(&blob);
    std::fs::write(out.join("classlib.fpvm"), archive).expect("write the archive");
}

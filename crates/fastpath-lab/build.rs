//! Records the commit the lab is built from (`LAB_BUILD_COMMIT`), so that
//! each result file can say which code measured it. Outside a git checkout
//! (a crates.io package, a source tarball) nothing is recorded and the
//! result files carry no commit.

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(dir).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let dir = Path::new(&dir);
    // Rebuild when HEAD moves: HEAD itself (a checkout) and the ref it
    // names (a commit on the branch); packed refs too.
    for path in ["HEAD", "packed-refs"] {
        if let Some(p) = git(dir, &["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={}", dir.join(p).display());
        }
    }
    if let Some(r) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(dir, &["rev-parse", "--git-path", &r]) {
            println!("cargo:rerun-if-changed={}", dir.join(p).display());
        }
    }
    if let Some(commit) = git(dir, &["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=LAB_BUILD_COMMIT={commit}");
    }
}

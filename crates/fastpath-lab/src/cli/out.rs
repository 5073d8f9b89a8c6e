//! `--out DIR`, checked before anything is measured: created if missing,
//! refused with its path named if it cannot be written, and never holding
//! an earlier run's results that this run would replace unless `--force`
//! says to replace them.
//!
//! Where it sits: the CLI calls [`prepare_out`] before it runs an
//! experiment or `all`; what the run then writes there is the
//! experiments' result files ([`result_files`]) and `all`'s `report.md`.
//!
//! The rule: a finished result is never destroyed without the user asking.
//! Without `--force`, a folder that holds a file this run would write is
//! refused (exit 1, naming the files and when they were written). With
//! `--force`, those files are removed before the run starts, so that a run
//! stopped half-way leaves only its own results there, never a mix of two
//! runs. Other files in the folder (another experiment's results, HotSpot's
//! `jvm/`) are left alone.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::experiment::result_files;

/// `all`'s report, beside the experiments' result files.
pub const REPORT: &str = "report.md";

/// What a run writes under `--out`.
#[derive(Clone, Copy, Debug)]
pub struct Writes<'a> {
    /// The experiments whose result files it writes.
    pub experiments: &'a [&'a str],
    /// Whether it writes [`REPORT`] (`all`).
    pub report: bool,
}

impl Writes<'_> {
    /// The files of `dir` this run would write over: what an earlier run
    /// left there.
    pub fn earlier_results(&self, dir: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        if self.report && dir.join(REPORT).is_file() {
            files.push(dir.join(REPORT));
        }
        for e in self.experiments {
            files.extend(result_files(dir, e));
        }
        files
    }
}

/// Checks `--out DIR` before anything runs: creates it if missing, makes
/// sure a file can be written there, and refuses it (or, with `force`,
/// clears it of them) when it holds results this run would write over
/// (see the module's docs). The error names the path and what is wrong
/// with it, once.
///
/// A directory this creates is handed to
/// [`interrupt::watch_out_dir`](crate::interrupt::watch_out_dir): if the
/// run is interrupted or fails before writing anything there, it is
/// removed again.
pub fn prepare_out(dir: &Path, writes: Writes<'_>, force: bool) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!("--out {}: exists and is not a directory", dir.display());
    }
    let earlier = writes.earlier_results(dir);
    if !earlier.is_empty() {
        if !force {
            anyhow::bail!(
                "--out {}: holds the results of an earlier run, which this run would replace: {} (written {}); \
                 add --force to replace them, or give another --out folder",
                dir.display(),
                names(&earlier),
                written(&earlier)
            );
        }
        for f in &earlier {
            fs::remove_file(f).with_context(|| format!("--force: removing {}", f.display()))?;
        }
        eprintln!(
            "fastpath: --force: removed the earlier results in {}: {}",
            dir.display(),
            names(&earlier)
        );
    }
    if !dir.exists() {
        // The directories this run creates: `dir` and its missing
        // ancestors, deepest first.
        let mut created = vec![dir.to_path_buf()];
        while let Some(parent) = created.last().and_then(|d| d.parent()) {
            if parent.as_os_str().is_empty() || parent.exists() {
                break;
            }
            created.push(parent.to_path_buf());
        }
        crate::interrupt::watch_out_dir(created);
    }
    fs::create_dir_all(dir)
        .with_context(|| format!("--out {}: cannot create the directory", dir.display()))?;
    let probe = dir.join(crate::interrupt::out_probe_name());
    fs::write(&probe, b"").with_context(|| format!("--out {}: cannot write a file there", dir.display()))?;
    let _ = fs::remove_file(&probe);
    Ok(())
}

/// The files' names, joined.
fn names(files: &[PathBuf]) -> String {
    files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// When the newest of `files` was written, in UTC.
fn written(files: &[PathBuf]) -> String {
    files
        .iter()
        .filter_map(|f| fs::metadata(f).and_then(|m| m.modified()).ok())
        .max()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or_else(
            || "at an unknown time".into(),
            |d| crate::report::run_info::utc(d.as_secs()),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fastpath-out-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_bad_directory_is_named_and_a_missing_one_created() {
        let _serial = crate::interrupt::OUT_TEST_LOCK
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let base = scratch("create");
        let nested = base.join("a/b");
        let none = Writes {
            experiments: &["lock"],
            report: false,
        };
        prepare_out(&nested, none, false).unwrap();
        assert!(nested.is_dir());
        assert_eq!(
            fs::read_dir(&nested).unwrap().count(),
            0,
            "the probe file is removed"
        );
        let file = base.join("f");
        fs::write(&file, "").unwrap();
        let e = prepare_out(&file, none, false).unwrap_err().to_string();
        assert!(
            e.contains(&file.display().to_string()) && e.contains("not a directory"),
            "{e}"
        );
        let _ = fs::remove_dir_all(&base);
    }

    #[test]
    fn an_earlier_result_is_refused_unless_forced_and_others_are_kept() {
        let dir = scratch("earlier");
        fs::create_dir_all(dir.join("jvm")).unwrap();
        for f in [
            "lock.json",
            "icache.json",
            "icache-flush.svg",
            "report.md",
            "notes.txt",
        ] {
            fs::write(dir.join(f), "x").unwrap();
        }
        let lock = Writes {
            experiments: &["lock"],
            report: false,
        };
        let e = prepare_out(&dir, lock, false).unwrap_err().to_string();
        assert!(
            e.contains("lock.json") && !e.contains("icache") && e.contains("--force"),
            "{e}"
        );
        assert!(
            dir.join("lock.json").exists(),
            "nothing is touched without --force"
        );
        let all = Writes {
            experiments: &["lock", "icache", "spin"],
            report: true,
        };
        let e = prepare_out(&dir, all, false).unwrap_err().to_string();
        assert!(e.contains("report.md") && e.contains("icache-flush.svg"), "{e}");
        prepare_out(&dir, all, true).unwrap();
        let mut left: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["jvm", "notes.txt"],
            "--force removes this run's files only"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}

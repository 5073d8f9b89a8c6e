//! `--out DIR`, checked before anything is measured: created if missing,
//! refused with its path named if it cannot be written, and never holding
//! an earlier run's results that this run would replace unless `--force`
//! says to replace them.
//!
//! Where it sits: the CLI calls [`prepare_out`] before it runs an
//! experiment or `all`; what the run then writes there is the
//! experiments' result files ([`result_files`]) and `all`'s `report.md`.
//!
//! The rule: a finished result is never destroyed without the user asking,
//! and a folder never mixes two runs. What happens to the files an earlier
//! run left there, which this run would write ([`OnEarlier`]):
//! - `--out DIR` named on the command line: refused (exit 1, naming the
//!   files and when they were written), unless `--force`;
//! - `--force`: those files are removed before the run starts, so that a
//!   run stopped half-way leaves only its own results there;
//! - the default folder (`all` without `--out`): those files are moved into
//!   `earlier/<UTC time they were written>/` inside it before the run
//!   starts, so the README's main command can be run again and again, the
//!   newest run always at the same place and every earlier one kept.
//!
//! Other files in the folder (another experiment's results, HotSpot's
//! `jvm/`, `earlier/`) are left alone.

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

/// What [`prepare_out`] does with the results an earlier run left in the
/// folder, which this run would write over (see the module's docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnEarlier {
    /// Refuse the folder, naming the files (`--out DIR` without `--force`).
    Refuse,
    /// Remove them first (`--force`).
    Replace,
    /// Move them into `earlier/<when they were written>/` (the default
    /// folder, without `--force`).
    Keep,
}

/// Subfolder of the default `--out` that holds earlier runs' results.
pub const EARLIER: &str = "earlier";

/// Checks `--out DIR` before anything runs: creates it if missing, makes
/// sure a file can be written there, and deals with results this run would
/// write over as `on_earlier` says (see the module's docs). The error names
/// the path and what is wrong with it, once.
///
/// A directory this creates is handed to
/// [`interrupt::watch_out_dir`](crate::interrupt::watch_out_dir): if the
/// run is interrupted or fails before writing anything there, it is
/// removed again.
pub fn prepare_out(dir: &Path, writes: Writes<'_>, on_earlier: OnEarlier) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!("--out {}: exists and is not a directory", dir.display());
    }
    let earlier = writes.earlier_results(dir);
    if !earlier.is_empty() {
        match on_earlier {
            OnEarlier::Refuse => anyhow::bail!(
                "--out {}: holds the results of an earlier run, which this run would replace: {} (written {}); \
                 add --force to replace them, or give another --out folder",
                dir.display(),
                names(&earlier),
                written(&earlier)
            ),
            OnEarlier::Replace => {
                for f in &earlier {
                    fs::remove_file(f).with_context(|| format!("--force: removing {}", f.display()))?;
                }
                eprintln!(
                    "fastpath: --force: removed the earlier results in {}: {}",
                    dir.display(),
                    names(&earlier)
                );
            }
            OnEarlier::Keep => {
                let to = keep_dir(dir, &earlier);
                fs::create_dir_all(&to).with_context(|| format!("--out {}: cannot create {}", dir.display(), to.display()))?;
                for f in &earlier {
                    let name = f.file_name().expect("a result file has a name");
                    fs::rename(f, to.join(name))
                        .with_context(|| format!("moving {} into {}", f.display(), to.display()))?;
                }
                eprintln!(
                    "fastpath: the earlier results in {} ({}) are kept in {}",
                    dir.display(),
                    names(&earlier),
                    to.display()
                );
            }
        }
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

/// `dir/earlier/<when the newest of files was written>`, with `-2`, `-3`,
/// ... added where that folder exists already (two runs in one second).
fn keep_dir(dir: &Path, files: &[PathBuf]) -> PathBuf {
    // `:` is refused by some file systems and tools (tar, scp): the
    // time's `HH-MM-SS`.
    let stamp = written(files).replace(':', "-").replace(' ', "_");
    let base = dir.join(EARLIER).join(&stamp);
    let mut to = base.clone();
    let mut n = 2;
    while to.exists() {
        to = PathBuf::from(format!("{}-{n}", base.display()));
        n += 1;
    }
    to
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
        prepare_out(&nested, none, OnEarlier::Refuse).unwrap();
        assert!(nested.is_dir());
        assert_eq!(
            fs::read_dir(&nested).unwrap().count(),
            0,
            "the probe file is removed"
        );
        let file = base.join("f");
        fs::write(&file, "").unwrap();
        let e = prepare_out(&file, none, OnEarlier::Refuse)
            .unwrap_err()
            .to_string();
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
        let e = prepare_out(&dir, lock, OnEarlier::Refuse)
            .unwrap_err()
            .to_string();
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
        let e = prepare_out(&dir, all, OnEarlier::Refuse).unwrap_err().to_string();
        assert!(e.contains("report.md") && e.contains("icache-flush.svg"), "{e}");
        prepare_out(&dir, all, OnEarlier::Replace).unwrap();
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

    #[test]
    fn the_default_folder_keeps_an_earlier_run_in_earlier() {
        let _serial = crate::interrupt::OUT_TEST_LOCK
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let dir = scratch("keep");
        fs::create_dir_all(dir.join("jvm")).unwrap();
        fs::write(dir.join(REPORT), "first run").unwrap();
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        let all = Writes {
            experiments: &[],
            report: true,
        };
        prepare_out(&dir, all, OnEarlier::Keep).unwrap();
        assert!(
            !dir.join(REPORT).exists(),
            "the earlier report is moved out of the way"
        );
        let kept: Vec<PathBuf> = fs::read_dir(dir.join(EARLIER))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(kept.len(), 1, "one folder per earlier run: {kept:?}");
        assert_eq!(fs::read_to_string(kept[0].join(REPORT)).unwrap(), "first run");
        assert!(
            dir.join("notes.txt").is_file() && dir.join("jvm").is_dir(),
            "other files stay"
        );
        // A second earlier run written in the same second gets its own folder.
        fs::write(dir.join(REPORT), "second run").unwrap();
        prepare_out(&dir, all, OnEarlier::Keep).unwrap();
        assert_eq!(fs::read_dir(dir.join(EARLIER)).unwrap().count(), 2);
        let _ = fs::remove_dir_all(&dir);
    }
}

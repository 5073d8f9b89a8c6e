//! Reports: what an experiment hands back, and how it is written.
//!
//! Where it sits: at the end of the data flow. An experiment returns a
//! [`Report`] (text tables, JMH-format results, optional SVG plots); the CLI
//! prints the tables, and with `--out DIR` (always, under `fastpath all`)
//! writes `<experiment>.json`, the SVGs and a section of `report.md`.
//!
//! A goal's verdict is a table note beginning with `PASS` or `FAIL`
//! ([`Table::note`]); [`Report::goals`] collects them for the summary that
//! opens `report.md`.

pub mod compare;
pub mod jmh;
pub mod perfnorm_diff;
pub mod run_info;
pub mod svg;
pub mod table;

use std::fs;
use std::path::Path;

pub use jmh::{BenchResult, Metric, Mode};
pub use run_info::RunInfo;
pub use table::Table;

/// The note of a timing goal's verdict: `PASS: {text}`, or `FAIL: {text}`
/// followed by the machine's load ([`run_info::busy_machine_note`]), so
/// that a miss on a loaded machine says so.
pub fn timing_verdict(pass: bool, text: &str) -> String {
    if pass {
        format!("PASS: {text}")
    } else {
        format!("FAIL: {text}; {}", run_info::busy_machine_note())
    }
}

/// Everything one experiment produced.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Tables, printed in order.
    pub tables: Vec<Table>,
    /// Machine-readable results.
    pub results: Vec<BenchResult>,
    /// SVG plots: (file name, document).
    pub plots: Vec<(String, String)>,
}

impl Report {
    /// The tables as terminal text.
    pub fn to_text(&self) -> String {
        self.tables
            .iter()
            .map(|t| t.to_text())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The goal checks the experiment made: every table note that begins
    /// with `PASS` or `FAIL` (the convention for a goal's verdict, as the
    /// icache table's "auto within 1.1×" line), for the summary at the top
    /// of `report.md`.
    pub fn goals(&self) -> Vec<String> {
        self.tables
            .iter()
            .flat_map(|t| &t.notes)
            .filter(|n| n.starts_with("PASS") || n.starts_with("FAIL"))
            .cloned()
            .collect()
    }

    /// The tables (and links to plots) as Markdown.
    pub fn to_markdown(&self) -> String {
        let mut s: Vec<String> = self.tables.iter().map(|t| t.to_markdown()).collect();
        for (name, _) in &self.plots {
            s.push(format!("![{name}]({name})\n"));
        }
        s.join("\n")
    }

    /// Writes `<name>.json` (each row stamped with `run`) and the plots into
    /// `dir` (created if needed).
    pub fn write(&self, name: &str, dir: &Path, run: &RunInfo) -> std::io::Result<()> {
        fs::create_dir_all(dir)?;
        let results: Vec<BenchResult> = self
            .results
            .iter()
            .map(|r| BenchResult {
                run: Some(run.clone()),
                ..r.clone()
            })
            .collect();
        fs::write(dir.join(format!("{name}.json")), jmh::to_json(&results))?;
        for (file, svg) in &self.plots {
            fs::write(dir.join(file), svg)?;
        }
        Ok(())
    }
}

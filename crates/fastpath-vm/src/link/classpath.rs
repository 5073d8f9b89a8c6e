//! The application class path: directories and jar files, searched in
//! order for `name.class` (java's `-cp`).

use std::path::PathBuf;

use super::jar::Jar;

/// One class-path entry.
pub enum Entry {
    /// A directory of class files laid out by package.
    Dir(PathBuf),
    /// A jar, its directory read when the path was opened.
    Jar(Box<Jar>),
    /// An entry that could not be opened (java ignores such entries).
    Missing,
}

/// The class path.
#[derive(Default)]
pub struct ClassPath {
    entries: Vec<Entry>,
}

impl ClassPath {
    /// Parses a `-cp` value (entries separated by `:`); jars are opened
    /// now, a missing or unreadable entry is skipped as java skips it.
    pub fn parse(spec: &str) -> ClassPath {
        let entries = spec
            .split(':')
            .map(|e| if e.is_empty() { "." } else { e })
            .map(|e| {
                let p = PathBuf::from(e);
                if p.is_dir() {
                    Entry::Dir(p)
                } else if p.is_file() {
                    match std::fs::read(&p).map_err(|e| e.to_string()).and_then(Jar::open) {
                        Ok(j) => Entry::Jar(Box::new(j)),
                        Err(_) => Entry::Missing,
                    }
                } else {
                    Entry::Missing
                }
            })
            .collect();
        ClassPath { entries }
    }

    /// The bytes of class `name` (internal form) from the first entry that
    /// has it; `Err` when an entry has it but cannot read it.
    pub fn find(&self, name: &str) -> Option<Result<Vec<u8>, String>> {
        let file = format!("{name}.class");
        for e in &self.entries {
            match e {
                Entry::Dir(d) => {
                    let p = d.join(&file);
                    if p.is_file() {
                        return Some(std::fs::read(&p).map_err(|e| e.to_string()));
                    }
                }
                Entry::Jar(j) => {
                    if let Some(r) = j.read(&file) {
                        return Some(r);
                    }
                }
                Entry::Missing => {}
            }
        }
        None
    }
}

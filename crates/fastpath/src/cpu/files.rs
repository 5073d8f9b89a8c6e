//! File access for identification, behind a trait so tests feed recorded
//! machines and can prove which files a path opened.
//!
//! Where it sits: [`super::microcode`](mod@super::microcode) reads sysfs and (as a fallback)
//! /proc/cpuinfo through a [`FileSource`]; the aarch64 identification reads
//! MIDR_EL1 from sysfs through one. The x86 default path is handed one too
//! and never calls it, which [`OpenLog`] lets a test assert rather than
//! assume.
//!
//! Files are opened as buffered readers rather than read whole: HotSpot's
//! pre-fix `os::cpu_microcode_revision()` stopped at the first `microcode`
//! line of /proc/cpuinfo, and reading the whole file (one record per CPU)
//! would cost more than the code being reproduced.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor};

/// Opens files for reading.
pub trait FileSource {
    /// Opens `path` for buffered reading.
    fn open(&self, path: &str) -> io::Result<Box<dyn BufRead + '_>>;
}

/// The real file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct NativeFiles;

impl FileSource for NativeFiles {
    fn open(&self, path: &str) -> io::Result<Box<dyn BufRead + '_>> {
        Ok(Box::new(BufReader::new(File::open(path)?)))
    }
}

/// A recorded machine: path → contents. A path not in the map does not
/// exist (`NotFound`), as sysfs microcode does not on most guests.
#[derive(Clone, Debug, Default)]
pub struct RecordedFiles {
    files: BTreeMap<String, String>,
}

impl RecordedFiles {
    /// No files at all.
    pub fn new() -> RecordedFiles {
        RecordedFiles::default()
    }

    /// Adds (or replaces) a file.
    pub fn with(mut self, path: &str, contents: &str) -> RecordedFiles {
        self.files.insert(path.to_string(), contents.to_string());
        self
    }
}

impl FileSource for RecordedFiles {
    fn open(&self, path: &str) -> io::Result<Box<dyn BufRead + '_>> {
        match self.files.get(path) {
            Some(s) => Ok(Box::new(Cursor::new(s.as_bytes()))),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{path}: not in the recorded machine"),
            )),
        }
    }
}

/// Wraps a [`FileSource`] and records every path opened (successfully or
/// not), so a test can assert what a code path touched.
pub struct OpenLog<'a> {
    inner: &'a dyn FileSource,
    opened: RefCell<Vec<String>>,
}

impl<'a> OpenLog<'a> {
    /// Logs the opens made through `inner`.
    pub fn new(inner: &'a dyn FileSource) -> OpenLog<'a> {
        OpenLog {
            inner,
            opened: RefCell::new(Vec::new()),
        }
    }

    /// Every path opened so far, in order.
    pub fn opened(&self) -> Vec<String> {
        self.opened.borrow().clone()
    }
}

impl FileSource for OpenLog<'_> {
    fn open(&self, path: &str) -> io::Result<Box<dyn BufRead + '_>> {
        self.opened.borrow_mut().push(path.to_string());
        self.inner.open(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_files_answer_and_miss() {
        let f = RecordedFiles::new().with("/a", "x\ny\n");
        let log = OpenLog::new(&f);
        let lines: Vec<String> = log.open("/a").unwrap().lines().map(|l| l.unwrap()).collect();
        assert_eq!(lines, ["x", "y"]);
        let err = log.open("/b").err().expect("missing file");
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert_eq!(log.opened(), ["/a", "/b"]);
    }
}

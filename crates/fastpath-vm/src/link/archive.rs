//! The built-in class library's archive: every class file of `classlib/`,
//! compiled by `build.rs` and embedded in the binary, found by binary
//! search on its name without reading anything else (start-up loads only
//! the classes a program touches).
//!
//! Format (all integers little-endian u32):
//!
//! ```text
//! "FPVMCL01"  count
//! count × (name_offset, name_len, data_offset, data_len)   sorted by name
//! blob (names and class files)
//! ```

/// A read-only view of an archive.
pub struct Archive {
    bytes: &'static [u8],
    count: usize,
}

const MAGIC: &[u8; 8] = b"FPVMCL01";
const HEADER: usize = 12;
const ENTRY: usize = 16;

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize
}

impl Archive {
    /// Opens `bytes`; `None` if it is not an archive (or is damaged).
    pub fn open(bytes: &'static [u8]) -> Option<Archive> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return None;
        }
        let count = u32_at(bytes, 8);
        if bytes.len() < HEADER + count * ENTRY {
            return None;
        }
        let a = Archive { bytes, count };
        // Every entry's ranges inside the archive.
        for i in 0..count {
            let e = HEADER + i * ENTRY;
            let (no, nl, doff, dl) = (
                u32_at(bytes, e),
                u32_at(bytes, e + 4),
                u32_at(bytes, e + 8),
                u32_at(bytes, e + 12),
            );
            if no + nl > bytes.len() || doff + dl > bytes.len() {
                return None;
            }
        }
        Some(a)
    }

    fn name(&self, i: usize) -> &'static [u8] {
        let e = HEADER + i * ENTRY;
        let (off, len) = (u32_at(self.bytes, e), u32_at(self.bytes, e + 4));
        &self.bytes[off..off + len]
    }

    /// The class file of `name` (internal form), if the archive has it.
    pub fn get(&self, name: &str) -> Option<&'static [u8]> {
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.name(mid).cmp(name.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let e = HEADER + mid * ENTRY;
                    let (off, len) = (u32_at(self.bytes, e + 8), u32_at(self.bytes, e + 12));
                    return Some(&self.bytes[off..off + len]);
                }
            }
        }
        None
    }

    /// Number of classes.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Builds an archive from (name, class file) pairs (`build.rs` writes
    /// the same format; tests build small ones).
    pub fn build(mut entries: Vec<(String, Vec<u8>)>) -> Vec<u8> {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        let mut blob_at = HEADER + entries.len() * ENTRY;
        let mut blob = Vec::new();
        for (name, data) in &entries {
            let no = blob_at + blob.len();
            blob.extend_from_slice(name.as_bytes());
            let doff = blob_at + blob.len();
            blob.extend_from_slice(data);
            for v in [no, name.len(), doff, data.len()] {
                out.extend_from_slice(&(v as u32).to_le_bytes());
            }
        }
        blob_at = out.len();
        debug_assert_eq!(blob_at, HEADER + entries.len() * ENTRY);
        out.extend_from_slice(&blob);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_entry_and_nothing_else() {
        let bytes = Archive::build(vec![
            ("java/lang/String".into(), vec![2, 2]),
            ("java/lang/Object".into(), vec![1]),
            ("Z".into(), vec![]),
        ]);
        let a = Archive::open(Box::leak(bytes.into_boxed_slice())).unwrap();
        assert_eq!(a.get("java/lang/Object"), Some(&[1u8][..]));
        assert_eq!(a.get("java/lang/String"), Some(&[2u8, 2][..]));
        assert_eq!(a.get("Z"), Some(&[][..]));
        assert_eq!(a.get("java/lang/Strin"), None);
        assert!(Archive::open(b"nope").is_none());
    }
}

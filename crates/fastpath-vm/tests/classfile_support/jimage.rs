//! A reader for a JDK's `lib/modules` (the jimage format of
//! `jdk.internal.jimage.BasicImageReader`), enough to list and read the
//! classes of a module without the `jimage` tool.
//!
//! Layout: a header of seven u32 (magic 0xCAFEDADA, version, flags,
//! resource count, table length, locations size, strings size) in the
//! image's byte order; then the redirect table (i32 per slot), the
//! offsets table (u32 per slot, into the locations), the locations
//! (attribute streams), the strings (NUL-terminated UTF-8); then the
//! resources. A location's attribute stream is a sequence of bytes
//! `kind << 3 | (length - 1)` each followed by a big-endian value of
//! `length` bytes, ended by a byte below 8: module, parent, base and
//! extension (string offsets), then content offset, compressed size and
//! uncompressed size. A resource's name is `/module/parent/base.extension`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// An opened image: its bytes and the resources of the modules asked for.
pub struct Jimage {
    bytes: Vec<u8>,
    /// Resource name (`java/lang/Object.class`, without the module) to
    /// (offset in `bytes`, size).
    resources: HashMap<String, (usize, usize)>,
}

const ATTRIBUTE_MODULE: usize = 1;
const ATTRIBUTE_PARENT: usize = 2;
const ATTRIBUTE_BASE: usize = 3;
const ATTRIBUTE_EXTENSION: usize = 4;
const ATTRIBUTE_OFFSET: usize = 5;
const ATTRIBUTE_COMPRESSED: usize = 6;
const ATTRIBUTE_UNCOMPRESSED: usize = 7;

impl Jimage {
    /// Opens `path` and indexes the resources of `modules`.
    pub fn open(path: &Path, modules: &[&str]) -> Result<Jimage, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bad = |what: &str| format!("{}: not a jimage ({what})", path.display());
        if bytes.len() < 28 {
            return Err(bad("short header"));
        }
        let little = u32::from_le_bytes(bytes[0..4].try_into().unwrap()) == 0xCAFE_DADA;
        if !little && u32::from_be_bytes(bytes[0..4].try_into().unwrap()) != 0xCAFE_DADA {
            return Err(bad("magic"));
        }
        let u32_at = |i: usize| -> Result<u32, String> {
            let b: [u8; 4] = bytes
                .get(i..i + 4)
                .ok_or_else(|| bad("truncated"))?
                .try_into()
                .unwrap();
            Ok(if little {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b)
            })
        };
        let table_length = u32_at(16)? as usize;
        let locations_size = u32_at(20)? as usize;
        let strings_size = u32_at(24)? as usize;
        let offsets_start = 28 + 4 * table_length;
        let locations_start = offsets_start + 4 * table_length;
        let strings_start = locations_start + locations_size;
        let index_size = strings_start + strings_size;
        if index_size > bytes.len() {
            return Err(bad("index past the end"));
        }
        let string = |offset: u64| -> Result<&str, String> {
            let start = strings_start + offset as usize;
            let tail = bytes.get(start..index_size).ok_or_else(|| bad("string offset"))?;
            let end = tail
                .iter()
                .position(|&b| b == 0)
                .ok_or_else(|| bad("unterminated string"))?;
            std::str::from_utf8(&tail[..end]).map_err(|_| bad("string encoding"))
        };
        let mut resources = HashMap::new();
        for slot in 0..table_length {
            let location = u32_at(offsets_start + 4 * slot)? as usize;
            let mut attributes = [0u64; 8];
            let mut i = locations_start + location;
            loop {
                let byte = *bytes.get(i).ok_or_else(|| bad("location past the end"))?;
                i += 1;
                if byte < 8 {
                    break;
                }
                let (kind, length) = ((byte >> 3) as usize, (byte & 7) as usize + 1);
                let mut value = 0u64;
                for _ in 0..length {
                    value =
                        value << 8 | u64::from(*bytes.get(i).ok_or_else(|| bad("attribute past the end"))?);
                    i += 1;
                }
                if kind < attributes.len() {
                    attributes[kind] = value;
                }
            }
            let module = string(attributes[ATTRIBUTE_MODULE])?;
            if !modules.contains(&module) {
                continue;
            }
            let parent = string(attributes[ATTRIBUTE_PARENT])?;
            let base = string(attributes[ATTRIBUTE_BASE])?;
            let extension = string(attributes[ATTRIBUTE_EXTENSION])?;
            if attributes[ATTRIBUTE_COMPRESSED] != 0 {
                return Err(format!(
                    "{}: compressed resources (jlink --compress) are not supported",
                    path.display()
                ));
            }
            let mut name = String::new();
            if !parent.is_empty() {
                name.push_str(parent);
                name.push('/');
            }
            name.push_str(base);
            if !extension.is_empty() {
                name.push('.');
                name.push_str(extension);
            }
            let start = index_size + attributes[ATTRIBUTE_OFFSET] as usize;
            let size = attributes[ATTRIBUTE_UNCOMPRESSED] as usize;
            if start + size > bytes.len() {
                return Err(bad("resource past the end"));
            }
            resources.insert(name, (start, size));
        }
        Ok(Jimage { bytes, resources })
    }

    /// The class `name` (internal form), if the indexed modules have it.
    pub fn class(&self, name: &str) -> Option<&[u8]> {
        let &(start, size) = self.resources.get(&format!("{name}.class"))?;
        Some(&self.bytes[start..start + size])
    }

    /// The internal names of every class of the indexed modules, sorted,
    /// `module-info` left out.
    pub fn class_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .resources
            .keys()
            .filter_map(|k| k.strip_suffix(".class"))
            .filter(|n| *n != "module-info")
            .map(str::to_string)
            .collect();
        names.sort();
        names
    }
}

/// The `lib/modules` of a JDK to read `java.base` from: `FASTPATH_VM_JDK`
/// (a JDK's home), else Temurin 25, else the JDK of `java` on the PATH.
pub fn find_modules() -> Option<PathBuf> {
    let mut homes: Vec<PathBuf> = Vec::new();
    if let Some(h) = std::env::var_os("FASTPATH_VM_JDK") {
        homes.push(h.into());
    }
    homes.push("/usr/lib/jvm/temurin-25-jdk-amd64".into());
    if let Ok(java) = which("java") {
        if let Ok(real) = std::fs::canonicalize(java) {
            if let Some(home) = real.parent().and_then(Path::parent) {
                homes.push(home.to_path_buf());
            }
        }
    }
    homes
        .into_iter()
        .map(|h| h.join("lib/modules"))
        .find(|p| p.is_file())
}

fn which(command: &str) -> Result<PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path)
        .map(|d| d.join(command))
        .find(|p| p.is_file())
        .ok_or(())
}

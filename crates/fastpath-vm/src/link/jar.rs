//! Jar files on the class path: the ZIP central directory (PKWARE APPNOTE
//! 4.3.12, 4.3.16), and entries stored or deflated (RFC 1951, inflated by
//! the canonical two-table Huffman decoder of zlib's `puff.c`, written
//! here from the RFC).
//!
//! Where it sits: `classpath.rs` opens each jar once (its directory read
//! into a map) and reads a class's entry when the loader asks for it.
//! A damaged jar is an error value, never a panic.

use std::collections::HashMap;

/// An opened jar: its bytes and where each entry's local header is.
pub struct Jar {
    bytes: Vec<u8>,
    entries: HashMap<String, EntryInfo>,
}

#[derive(Clone, Copy)]
struct EntryInfo {
    method: u16,
    compressed: usize,
    size: usize,
    local_header: usize,
}

fn u16_at(b: &[u8], at: usize) -> Option<usize> {
    Some(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]) as usize)
}

fn u32_at(b: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes([*b.get(at)?, *b.get(at + 1)?, *b.get(at + 2)?, *b.get(at + 3)?]) as usize)
}

impl Jar {
    /// Reads the central directory of a jar's bytes.
    pub fn open(bytes: Vec<u8>) -> Result<Jar, String> {
        // The end-of-central-directory record: signature 0x06054b50 within
        // the last 64 KiB + 22 bytes (a trailing comment).
        let n = bytes.len();
        if n < 22 {
            return Err("not a zip file".into());
        }
        let lowest = n.saturating_sub(22 + 65535);
        let eocd = (lowest..=n - 22)
            .rev()
            .find(|&i| bytes[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])
            .ok_or("no end of central directory")?;
        let count = u16_at(&bytes, eocd + 10).ok_or("truncated")?;
        let mut at = u32_at(&bytes, eocd + 16).ok_or("truncated")?;
        let mut entries = HashMap::with_capacity(count);
        for _ in 0..count {
            if u32_at(&bytes, at) != Some(0x0201_4b50) {
                return Err("bad central directory entry".into());
            }
            let method = u16_at(&bytes, at + 10).ok_or("truncated")?;
            let compressed = u32_at(&bytes, at + 20).ok_or("truncated")?;
            let size = u32_at(&bytes, at + 24).ok_or("truncated")?;
            let name_len = u16_at(&bytes, at + 28).ok_or("truncated")?;
            let extra_len = u16_at(&bytes, at + 30).ok_or("truncated")?;
            let comment_len = u16_at(&bytes, at + 32).ok_or("truncated")?;
            let local_header = u32_at(&bytes, at + 42).ok_or("truncated")?;
            let name = bytes.get(at + 46..at + 46 + name_len).ok_or("truncated")?;
            let name = String::from_utf8_lossy(name).into_owned();
            entries.insert(
                name,
                EntryInfo {
                    method: method as u16,
                    compressed,
                    size,
                    local_header,
                },
            );
            at += 46 + name_len + extra_len + comment_len;
        }
        Ok(Jar { bytes, entries })
    }

    /// The contents of entry `name`, if present.
    pub fn read(&self, name: &str) -> Option<Result<Vec<u8>, String>> {
        let e = *self.entries.get(name)?;
        Some(self.read_entry(e))
    }

    fn read_entry(&self, e: EntryInfo) -> Result<Vec<u8>, String> {
        let b = &self.bytes;
        let h = e.local_header;
        if u32_at(b, h) != Some(0x0403_4b50) {
            return Err("bad local header".into());
        }
        let name_len = u16_at(b, h + 26).ok_or("truncated")?;
        let extra_len = u16_at(b, h + 28).ok_or("truncated")?;
        let start = h + 30 + name_len + extra_len;
        let data = b.get(start..start + e.compressed).ok_or("truncated entry")?;
        match e.method {
            0 => Ok(data.to_vec()),
            8 => {
                let out = inflate(data, e.size)?;
                if out.len() != e.size {
                    return Err("inflated size differs from the directory's".into());
                }
                Ok(out)
            }
            m => Err(format!("unsupported compression method {m}")),
        }
    }
}

/// A Huffman code: symbol counts per length and symbols sorted by code.
struct Huffman {
    counts: [u16; 16],
    symbols: Vec<u16>,
}

impl Huffman {
    /// Builds from code lengths; an over-subscribed set is an error
    /// (incomplete sets are allowed, as RFC 1951 permits for one-code
    /// distance trees).
    fn new(lengths: &[u8]) -> Result<Huffman, String> {
        let mut counts = [0u16; 16];
        for &l in lengths {
            counts[l as usize] += 1;
        }
        let mut left: i32 = 1;
        for &c in &counts[1..] {
            left = left * 2 - c as i32;
            if left < 0 {
                return Err("over-subscribed Huffman code".into());
            }
        }
        let mut offs = [0u16; 16];
        for len in 1..15 {
            offs[len + 1] = offs[len] + counts[len];
        }
        let mut symbols = vec![0u16; lengths.len()];
        for (sym, &l) in lengths.iter().enumerate() {
            if l != 0 {
                symbols[offs[l as usize] as usize] = sym as u16;
                offs[l as usize] += 1;
            }
        }
        counts[0] = 0;
        Ok(Huffman { counts, symbols })
    }
}

struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    bit_buf: u32,
    bit_count: u32,
}

impl Bits<'_> {
    fn bits(&mut self, need: u32) -> Result<u32, String> {
        let mut val = self.bit_buf;
        while self.bit_count < need {
            let byte = *self.data.get(self.pos).ok_or("deflate data truncated")? as u32;
            self.pos += 1;
            val |= byte << self.bit_count;
            self.bit_count += 8;
        }
        self.bit_buf = if need == 32 { 0 } else { val >> need };
        self.bit_count -= need;
        Ok(if need == 32 { val } else { val & ((1 << need) - 1) })
    }

    fn decode(&mut self, h: &Huffman) -> Result<u16, String> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..16 {
            code |= self.bits(1)? as i32;
            let count = h.counts[len] as i32;
            if code - count < first {
                return Ok(h.symbols[(index + (code - first)) as usize]);
            }
            index += count;
            first += count;
            first <<= 1;
            code <<= 1;
        }
        Err("bad Huffman code".into())
    }
}

const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
    227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
    4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];

/// Inflates a raw deflate stream (RFC 1951); `expected` sizes the output.
pub fn inflate(data: &[u8], expected: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(expected.min(64 << 20));
    let mut s = Bits {
        data,
        pos: 0,
        bit_buf: 0,
        bit_count: 0,
    };
    loop {
        let last = s.bits(1)?;
        match s.bits(2)? {
            0 => {
                s.bit_buf = 0;
                s.bit_count = 0;
                let len = u16_at(data, s.pos).ok_or("truncated stored block")?;
                let nlen = u16_at(data, s.pos + 2).ok_or("truncated stored block")?;
                if len != !nlen & 0xffff {
                    return Err("stored block length check failed".into());
                }
                s.pos += 4;
                out.extend_from_slice(data.get(s.pos..s.pos + len).ok_or("truncated stored block")?);
                s.pos += len;
            }
            1 => {
                let mut lengths = [0u8; 288];
                lengths[..144].fill(8);
                lengths[144..256].fill(9);
                lengths[256..280].fill(7);
                lengths[280..].fill(8);
                let lit = Huffman::new(&lengths)?;
                let dist = Huffman::new(&[5u8; 30])?;
                codes(&mut s, &mut out, &lit, &dist)?;
            }
            2 => {
                let nlen = s.bits(5)? as usize + 257;
                let ndist = s.bits(5)? as usize + 1;
                let ncode = s.bits(4)? as usize + 4;
                if nlen > 286 || ndist > 30 {
                    return Err("bad dynamic block counts".into());
                }
                const ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
                let mut cl = [0u8; 19];
                for &o in &ORDER[..ncode] {
                    cl[o] = s.bits(3)? as u8;
                }
                let clh = Huffman::new(&cl)?;
                let mut lengths = vec![0u8; nlen + ndist];
                let mut i = 0;
                while i < nlen + ndist {
                    let sym = s.decode(&clh)?;
                    if sym < 16 {
                        lengths[i] = sym as u8;
                        i += 1;
                    } else {
                        let (val, rep) = match sym {
                            16 => {
                                if i == 0 {
                                    return Err("repeat with no first length".into());
                                }
                                (lengths[i - 1], 3 + s.bits(2)?)
                            }
                            17 => (0, 3 + s.bits(3)?),
                            _ => (0, 11 + s.bits(7)?),
                        };
                        for _ in 0..rep {
                            if i >= nlen + ndist {
                                return Err("too many lengths".into());
                            }
                            lengths[i] = val;
                            i += 1;
                        }
                    }
                }
                if lengths[256] == 0 {
                    return Err("no end-of-block code".into());
                }
                let lit = Huffman::new(&lengths[..nlen])?;
                let dist = Huffman::new(&lengths[nlen..])?;
                codes(&mut s, &mut out, &lit, &dist)?;
            }
            _ => return Err("invalid block type".into()),
        }
        if last == 1 {
            return Ok(out);
        }
        if out.len() > expected.saturating_mul(2) + (1 << 20) {
            return Err("inflated data larger than announced".into());
        }
    }
}

fn codes(s: &mut Bits<'_>, out: &mut Vec<u8>, lit: &Huffman, dist: &Huffman) -> Result<(), String> {
    loop {
        let sym = s.decode(lit)? as usize;
        if sym < 256 {
            out.push(sym as u8);
        } else if sym == 256 {
            return Ok(());
        } else {
            let k = sym - 257;
            if k >= 29 {
                return Err("bad length symbol".into());
            }
            let len = LEN_BASE[k] as usize + s.bits(LEN_EXTRA[k] as u32)? as usize;
            let d = s.decode(dist)? as usize;
            if d >= 30 {
                return Err("bad distance symbol".into());
            }
            let distance = DIST_BASE[d] as usize + s.bits(DIST_EXTRA[d] as u32)? as usize;
            if distance > out.len() {
                return Err("distance too far back".into());
            }
            let from = out.len() - distance;
            for k in 0..len {
                let b = out[from + k];
                out.push(b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflates_stored_fixed_and_dynamic_blocks() {
        // Stored: "hi".
        assert_eq!(inflate(&[1, 2, 0, 0xfd, 0xff, b'h', b'i'], 2).unwrap(), b"hi");
        // Fixed Huffman, from `printf 'aaaaaaaaaa' | gzip` (raw deflate part).
        let fixed = [0x4b, 0x4c, 0x84, 0x01, 0x00];
        assert_eq!(inflate(&fixed, 10).unwrap(), b"aaaaaaaaaa");
        assert!(inflate(&[0xff], 1).is_err());
        assert!(inflate(&[], 1).is_err());
    }
}

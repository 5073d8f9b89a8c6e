//! A bounds-checked big-endian reader over a class file's bytes.
//!
//! Where it sits: the bottom of [`super`]; every read past the end is a
//! `ClassFormatError` ("Truncated class file"), never a panic.

use super::error::{ClassFileError, Result};

/// A cursor over a byte slice.
#[derive(Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    /// The offset of the next byte.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Whether every byte was read.
    pub fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    fn truncated() -> ClassFileError {
        ClassFileError::format("Truncated class file")
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(Self::truncated());
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// One byte.
    pub fn u1(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }

    /// A big-endian u16.
    pub fn u2(&mut self) -> Result<u16> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// A big-endian u32.
    pub fn u4(&mut self) -> Result<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A big-endian u64.
    pub fn u8(&mut self) -> Result<u64> {
        let hi = self.u4()? as u64;
        let lo = self.u4()? as u64;
        Ok(hi << 32 | lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_big_endian_and_refuses_past_the_end() {
        let mut r = Reader::new(&[0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x01, 0x02]);
        assert_eq!(r.u4().unwrap(), 0xCAFE_BABE);
        assert_eq!(r.u2().unwrap(), 1);
        assert!(r.u2().is_err());
        assert_eq!(r.u1().unwrap(), 2);
        assert!(r.at_end());
        assert!(r.u1().is_err());
    }
}

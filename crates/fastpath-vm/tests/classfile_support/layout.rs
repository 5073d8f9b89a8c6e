//! Where things are in a well-formed class file's bytes: constant-pool
//! entries, each method's `Code` attribute, its instructions' opcodes,
//! constant-pool operands and branch offsets, its exception table and
//! its `StackMapTable`. The fuzzer aims its mutations with it.

use fastpath_vm::classfile::bytecode::{decode_all, Operands};

/// One `Code` attribute.
#[derive(Debug, Default)]
pub struct CodeLayout {
    /// Offset of `max_stack` (then `max_locals`, then `code_length`).
    pub header: usize,
    /// Offset of the first bytecode.
    pub code: usize,
    pub code_len: usize,
    /// Offsets of opcodes (of `wide` instructions: the modified opcode).
    pub opcodes: Vec<usize>,
    /// Offsets of two-byte constant-pool operands.
    pub cp_operands: Vec<usize>,
    /// Offsets of branch offsets: (position, 4 bytes wide).
    pub branches: Vec<(usize, bool)>,
    /// Offset of the first exception-table entry, and how many.
    pub exception_table: (usize, usize),
    /// The `StackMapTable` body: offset and length.
    pub stack_map: Option<(usize, usize)>,
}

/// A class file's layout.
#[derive(Debug, Default)]
pub struct Layout {
    /// The constant-pool count.
    pub cp_count: u16,
    /// Offsets of each constant's tag byte.
    pub constants: Vec<usize>,
    /// Offsets of two-byte constant-pool indices held by constants,
    /// fields, methods and the class header.
    pub cp_references: Vec<usize>,
    pub codes: Vec<CodeLayout>,
}

struct R<'a> {
    b: &'a [u8],
    p: usize,
}

impl R<'_> {
    fn u1(&mut self) -> Option<u8> {
        let v = *self.b.get(self.p)?;
        self.p += 1;
        Some(v)
    }
    fn u2(&mut self) -> Option<u16> {
        Some(u16::from(self.u1()?) << 8 | u16::from(self.u1()?))
    }
    fn u4(&mut self) -> Option<u32> {
        Some(u32::from(self.u2()?) << 16 | u32::from(self.u2()?))
    }
    fn skip(&mut self, n: usize) -> Option<()> {
        if self.p + n > self.b.len() {
            return None;
        }
        self.p += n;
        Some(())
    }
}

/// The layout of `bytes` (`None` if it is not well-formed enough to walk).
pub fn scan(bytes: &[u8]) -> Option<Layout> {
    let mut r = R { b: bytes, p: 8 };
    let mut l = Layout {
        cp_count: r.u2()?,
        ..Layout::default()
    };
    let mut utf8 = std::collections::HashMap::new();
    let mut i = 1;
    while i < l.cp_count {
        l.constants.push(r.p);
        let t = r.u1()?;
        match t {
            1 => {
                let n = r.u2()? as usize;
                let s = bytes.get(r.p..r.p + n)?;
                utf8.insert(i, s.to_vec());
                r.skip(n)?;
            }
            3 | 4 => r.skip(4)?,
            5 | 6 => {
                r.skip(8)?;
                i += 1;
            }
            7 | 8 | 16 | 19 | 20 => {
                l.cp_references.push(r.p);
                r.skip(2)?;
            }
            9..=12 | 17 | 18 => {
                if t != 17 && t != 18 {
                    l.cp_references.push(r.p);
                }
                l.cp_references.push(r.p + 2);
                r.skip(4)?;
            }
            15 => {
                r.skip(1)?;
                l.cp_references.push(r.p);
                r.skip(2)?;
            }
            _ => return None,
        }
        i += 1;
    }
    r.skip(2)?; // access
    l.cp_references.extend([r.p, r.p + 2]);
    r.skip(4)?;
    let n = r.u2()?;
    for _ in 0..n {
        l.cp_references.push(r.p);
        r.skip(2)?;
    }
    for members in 0..2 {
        let n = r.u2()?;
        for _ in 0..n {
            r.skip(2)?;
            l.cp_references.extend([r.p, r.p + 2]);
            r.skip(4)?;
            let attrs = r.u2()?;
            for _ in 0..attrs {
                l.cp_references.push(r.p);
                let name = r.u2()?;
                let len = r.u4()? as usize;
                let start = r.p;
                if members == 1 && utf8.get(&name).map(Vec::as_slice) == Some(b"Code") {
                    l.codes.push(scan_code(bytes, start, len, &utf8)?);
                }
                r.skip(len)?;
            }
        }
    }
    Some(l)
}

fn scan_code(
    bytes: &[u8],
    start: usize,
    len: usize,
    utf8: &std::collections::HashMap<u16, Vec<u8>>,
) -> Option<CodeLayout> {
    let mut r = R {
        b: bytes.get(..start + len)?,
        p: start,
    };
    let mut c = CodeLayout {
        header: start,
        ..CodeLayout::default()
    };
    r.skip(4)?;
    c.code_len = r.u4()? as usize;
    c.code = r.p;
    let code = bytes.get(c.code..c.code + c.code_len)?;
    if let Ok(insns) = decode_all(code) {
        for insn in insns {
            let pc = c.code + insn.pc as usize;
            c.opcodes.push(if insn.wide { pc + 1 } else { pc });
            match insn.operands {
                Operands::Cp(_) | Operands::Interface(..) | Operands::MultiArray(..) if insn.len >= 3 => {
                    c.cp_operands.push(pc + 1)
                }
                Operands::Branch(_) => c.branches.push((pc + 1, insn.len == 5)),
                _ => {}
            }
        }
    }
    r.skip(c.code_len)?;
    let n = r.u2()? as usize;
    c.exception_table = (r.p, n);
    r.skip(8 * n)?;
    let attrs = r.u2()?;
    for _ in 0..attrs {
        let name = r.u2()?;
        let len = r.u4()? as usize;
        if utf8.get(&name).map(Vec::as_slice) == Some(b"StackMapTable") {
            c.stack_map = Some((r.p, len));
        }
        r.skip(len)?;
    }
    Some(c)
}

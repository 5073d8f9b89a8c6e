//! Relocations: how code a JIT assembled at no particular address is fixed
//! up for the executable address it is installed at (the linker step of
//! wasmtime's code memory and of HotSpot's `CodeBuffer::relocate_code_to`).
//!
//! Where it sits: between a JIT's assembler and
//! [`CodeCache::install_relocated`](super::CodeCache::install_relocated). The JIT
//! hands over bytes plus a list of [`Reloc`]s (where a field lies, how it
//! is encoded, what it refers to); the cache allocates blocks, learns their
//! executable (RX) addresses, and [`link`] computes every field against those
//! addresses, building the block's image before a single byte reaches the
//! writable view. The image is then copied through the RW view and synced
//! once per batch.
//!
//! Algorithm:
//! 1. [`validate`] (no address needed): every field lies inside the code,
//!    no two fields overlap, AArch64 fields are 4-byte aligned and hold a
//!    `B`/`BL`, every [`RelocTarget::Blob`] names a blob and an offset inside it.
//! 2. [`reserved_len`]: the block holds the code, then (16-aligned) one
//!    16-byte veneer slot per branch relocation, so a branch can always
//!    be routed through a veneer in its own block, which is in range.
//! 3. [`link`] at the block's RX address: a branch whose target is in range
//!    is patched directly; one out of range goes through a veneer (one per
//!    distinct target) that loads the 64-bit target and jumps to it. A
//!    PC-relative data reference out of range is an error: data cannot go
//!    through a veneer.
//!
//! Veneers (both keep every register the callee sees, so they work for
//! calls and tail jumps alike):
//! - x86-64: `jmp qword [rip+0]; .quad target` (14 bytes, padded with INT3).
//! - AArch64: `ldr x16, #8; br x16; .quad target` (16 bytes); x16 is IP0,
//!   which AAPCS64 reserves for exactly this (linker veneers).

use std::collections::HashMap;
use std::fmt;

/// How a relocation's field is encoded; each variant states its patch.
///
/// `P` is the executable address of the field's first byte, `S` the
/// target's address and `A` the [`Reloc::addend`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RelocKind {
    /// x86-64 `call rel32`, `jmp rel32` or `jcc rel32`, the field being the
    /// instruction's last 4 bytes: `i32 = S + A − (P + 4)` (little-endian),
    /// i.e. relative to the next instruction. Out of ±2 GiB the branch goes
    /// to a veneer in the same block.
    X86Branch32,
    /// x86-64 RIP-relative data (`lea`, `mov reg, [rip+disp32]`): `i32 =
    /// S + A − (P + 4)`; when an immediate follows the field, the addend
    /// subtracts its size. Out of ±2 GiB is [`RelocProblem::OutOfRange`].
    X86PcRel32,
    /// Any architecture: the 8 bytes at the field become `u64 = S + A`
    /// (little-endian), such as the immediate of `mov r64, imm64` or a
    /// literal-pool word.
    Abs64,
    /// AArch64 `B` or `BL` (the 4-byte instruction at the field):
    /// `imm26 = (S + A − P) / 4`, other bits kept. Out of ±128 MiB the
    /// branch goes to a veneer in the same block.
    Aarch64Branch26,
}

impl RelocKind {
    /// Bytes of the field.
    pub fn size(self) -> usize {
        match self {
            RelocKind::X86Branch32 | RelocKind::X86PcRel32 | RelocKind::Aarch64Branch26 => 4,
            RelocKind::Abs64 => 8,
        }
    }

    /// Whether an out-of-range target may be reached through a veneer.
    pub fn is_branch(self) -> bool {
        matches!(self, RelocKind::X86Branch32 | RelocKind::Aarch64Branch26)
    }
}

/// What a relocation refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelocTarget {
    /// An absolute address: a Rust `extern "C"` function, an entry already
    /// installed ([`Entry::addr`](super::Entry::addr)), a data word.
    Addr(usize),
    /// `offset` bytes into blob `index` of the same install batch (itself
    /// included), resolved to that blob's executable address.
    Blob {
        /// Index of the blob in the batch.
        index: usize,
        /// Offset inside that blob's code.
        offset: usize,
    },
}

/// One field to patch at install time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Offset of the field's first byte within the blob's code.
    pub offset: usize,
    /// Encoding of the field.
    pub kind: RelocKind,
    /// What the field refers to.
    pub target: RelocTarget,
    /// Added to the target address (see [`RelocKind`]).
    pub addend: i64,
}

impl Reloc {
    /// A relocation with addend 0.
    pub fn new(offset: usize, kind: RelocKind, target: RelocTarget) -> Reloc {
        Reloc {
            offset,
            kind,
            target,
            addend: 0,
        }
    }
}

/// Code plus the relocations it needs, as a JIT hands it over.
#[derive(Clone, Copy, Debug)]
pub struct Blob<'a> {
    /// The machine code, assembled for any address.
    pub code: &'a [u8],
    /// Fields to patch once the address is known.
    pub relocs: &'a [Reloc],
}

/// Which relocation was refused and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelocError {
    /// Index of the blob in the batch.
    pub blob: usize,
    /// Index of the relocation in the blob's list.
    pub reloc: usize,
    /// What is wrong with it.
    pub problem: RelocProblem,
}

/// What is wrong with a relocation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RelocProblem {
    /// The field does not lie inside the code.
    OutOfBounds {
        /// Field offset.
        offset: usize,
        /// Field size.
        size: usize,
        /// Bytes of code.
        code_len: usize,
    },
    /// The field overlaps the field of relocation `other`.
    Overlap {
        /// Index of the other relocation.
        other: usize,
    },
    /// An AArch64 field not on a 4-byte boundary, or a branch whose
    /// displacement is not a multiple of 4.
    Unaligned {
        /// The misaligned offset or displacement.
        value: i64,
    },
    /// An [`RelocKind::Aarch64Branch26`] field that holds no `B`/`BL`.
    NotABranch {
        /// The instruction word found.
        insn: u32,
    },
    /// A [`RelocTarget::Blob`] naming no blob, or an offset outside it.
    BadTarget {
        /// The blob index named.
        index: usize,
        /// The offset named.
        offset: usize,
    },
    /// A PC-relative data reference whose target is out of the field's
    /// range (which only branches can leave through a veneer).
    OutOfRange {
        /// The field's encoding.
        kind: RelocKind,
        /// The target minus field address (before the encoding's bias).
        distance: i128,
    },
}

impl fmt::Display for RelocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "relocation {} of blob {}: ", self.reloc, self.blob)?;
        match &self.problem {
            RelocProblem::OutOfBounds {
                offset,
                size,
                code_len,
            } => write!(
                f,
                "field of {size} bytes at offset {offset} does not fit {code_len} bytes of code"
            ),
            RelocProblem::Overlap { other } => write!(f, "field overlaps relocation {other}"),
            RelocProblem::Unaligned { value } => {
                write!(f, "{value} is not a multiple of 4 (AArch64 instructions)")
            }
            RelocProblem::NotABranch { insn } => {
                write!(f, "instruction {insn:#010x} is not an AArch64 B or BL")
            }
            RelocProblem::BadTarget { index, offset } => {
                write!(f, "target offset {offset} of blob {index} is not in the batch")
            }
            RelocProblem::OutOfRange { kind, distance } => write!(
                f,
                "target {distance:+} bytes away is out of range of {kind:?} (±2 GiB) and data cannot use a veneer"
            ),
        }
    }
}

impl std::error::Error for RelocError {}

/// Bytes of one veneer slot (both architectures).
pub(crate) const VENEER_SIZE: usize = 16;

/// `imm26` of an AArch64 `B`/`BL` reaches ±128 MiB.
pub(crate) const AARCH64_BRANCH26_RANGE: i64 = 128 << 20;

/// Checks everything about `blobs` that needs no address.
pub(crate) fn validate(blobs: &[Blob<'_>]) -> Result<(), RelocError> {
    for (b, blob) in blobs.iter().enumerate() {
        let err = |reloc, problem| RelocError {
            blob: b,
            reloc,
            problem,
        };
        let mut fields: Vec<(usize, usize, usize)> = Vec::with_capacity(blob.relocs.len());
        for (i, r) in blob.relocs.iter().enumerate() {
            let size = r.kind.size();
            if r.offset.checked_add(size).is_none_or(|end| end > blob.code.len()) {
                return Err(err(
                    i,
                    RelocProblem::OutOfBounds {
                        offset: r.offset,
                        size,
                        code_len: blob.code.len(),
                    },
                ));
            }
            if r.kind == RelocKind::Aarch64Branch26 {
                if r.offset % 4 != 0 {
                    return Err(err(
                        i,
                        RelocProblem::Unaligned {
                            value: r.offset as i64,
                        },
                    ));
                }
                let insn = read_u32(blob.code, r.offset);
                if !is_aarch64_b_or_bl(insn) {
                    return Err(err(i, RelocProblem::NotABranch { insn }));
                }
            }
            if let RelocTarget::Blob { index, offset } = r.target {
                if blobs.get(index).is_none_or(|t| offset >= t.code.len()) {
                    return Err(err(i, RelocProblem::BadTarget { index, offset }));
                }
            }
            fields.push((r.offset, r.offset + size, i));
        }
        fields.sort_unstable();
        for w in fields.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(err(w[1].2, RelocProblem::Overlap { other: w[0].2 }));
            }
        }
    }
    Ok(())
}

/// Bytes a block needs for `blob`: the code, and when it has branch
/// relocations, a 16-aligned veneer area with one slot per branch.
pub(crate) fn reserved_len(blob: &Blob<'_>) -> usize {
    let branches = blob.relocs.iter().filter(|r| r.kind.is_branch()).count();
    if branches == 0 {
        blob.code.len()
    } else {
        blob.code.len().next_multiple_of(VENEER_SIZE) + branches * VENEER_SIZE
    }
}

/// The linked image of blob `blob_index` (a validated blob) placed at executable
/// address `at`: the code with every field patched, followed by the veneers
/// it uses. The image is at most [`reserved_len`] bytes; its length is the
/// entry's length. `resolve` gives a [`RelocTarget::Blob`]'s address.
pub(crate) fn link(
    blob_index: usize,
    blob: &Blob<'_>,
    at: u64,
    resolve: impl Fn(usize, usize) -> u64,
) -> Result<Vec<u8>, RelocError> {
    let mut image = blob.code.to_vec();
    let veneer_base = blob.code.len().next_multiple_of(VENEER_SIZE);
    let mut veneers: HashMap<(RelocKind, u64), u64> = HashMap::new();
    for (i, r) in blob.relocs.iter().enumerate() {
        let target = match r.target {
            RelocTarget::Addr(a) => a as u64,
            RelocTarget::Blob { index, offset } => resolve(index, offset),
        }
        .wrapping_add(r.addend as u64);
        let p = at + r.offset as u64;
        let err = |problem| RelocError {
            blob: blob_index,
            reloc: i,
            problem,
        };
        match r.kind {
            RelocKind::Abs64 => image[r.offset..r.offset + 8].copy_from_slice(&target.to_le_bytes()),
            RelocKind::X86PcRel32 => {
                let rel = x86_rel32(p, target).ok_or_else(|| {
                    err(RelocProblem::OutOfRange {
                        kind: r.kind,
                        distance: target as i128 - p as i128,
                    })
                })?;
                image[r.offset..r.offset + 4].copy_from_slice(&rel.to_le_bytes());
            }
            RelocKind::X86Branch32 => {
                let rel = match x86_rel32(p, target) {
                    Some(rel) => rel,
                    None => {
                        let v = veneer(&mut image, &mut veneers, veneer_base, at, r.kind, target);
                        x86_rel32(p, v).expect("a veneer in the same block is within ±2 GiB")
                    }
                };
                image[r.offset..r.offset + 4].copy_from_slice(&rel.to_le_bytes());
            }
            RelocKind::Aarch64Branch26 => {
                let insn = read_u32(&image, r.offset);
                let patched = match aarch64_branch26(insn, p, target) {
                    Ok(w) => w,
                    Err(Branch26Error::Unaligned(d)) => {
                        return Err(err(RelocProblem::Unaligned { value: d }))
                    }
                    Err(Branch26Error::OutOfRange(_)) => {
                        let v = veneer(&mut image, &mut veneers, veneer_base, at, r.kind, target);
                        aarch64_branch26(insn, p, v).expect("a veneer in the same block is within ±128 MiB")
                    }
                };
                image[r.offset..r.offset + 4].copy_from_slice(&patched.to_le_bytes());
            }
        }
    }
    Ok(image)
}

/// The address of the veneer to `target` (for branches of `kind`),
/// appending it to `image` the first time.
fn veneer(
    image: &mut Vec<u8>,
    veneers: &mut HashMap<(RelocKind, u64), u64>,
    base: usize,
    at: u64,
    kind: RelocKind,
    target: u64,
) -> u64 {
    *veneers.entry((kind, target)).or_insert_with(|| {
        let slot = base.max(image.len());
        image.resize(slot, TRAP_FILL[kind_arch(kind)]);
        image.extend_from_slice(&veneer_bytes(kind, target));
        at + slot as u64
    })
}

/// Padding before the veneer area: x86 INT3, AArch64 `UDF #0`.
const TRAP_FILL: [u8; 2] = [0xCC, 0x00];

fn kind_arch(kind: RelocKind) -> usize {
    usize::from(kind == RelocKind::Aarch64Branch26)
}

/// One veneer slot jumping to `target`, for branches of `kind`.
pub(crate) fn veneer_bytes(kind: RelocKind, target: u64) -> [u8; VENEER_SIZE] {
    let mut v = [0u8; VENEER_SIZE];
    match kind {
        RelocKind::Aarch64Branch26 => {
            v[0..4].copy_from_slice(&AARCH64_LDR_X16_PC8.to_le_bytes());
            v[4..8].copy_from_slice(&AARCH64_BR_X16.to_le_bytes());
            v[8..16].copy_from_slice(&target.to_le_bytes());
        }
        _ => {
            // jmp qword [rip+0] ; .quad target ; int3 int3
            v[0..6].copy_from_slice(&[0xFF, 0x25, 0, 0, 0, 0]);
            v[6..14].copy_from_slice(&target.to_le_bytes());
            v[14..16].copy_from_slice(&[0xCC, 0xCC]);
        }
    }
    v
}

/// `ldr x16, #8` (LDR literal, 64-bit: `0x58000000 | imm19 << 5 | Rt`).
pub(crate) const AARCH64_LDR_X16_PC8: u32 = 0x5800_0000 | (2 << 5) | 16;
/// `br x16` (`0xD61F0000 | Rn << 5`).
pub(crate) const AARCH64_BR_X16: u32 = 0xD61F_0000 | (16 << 5);

/// The x86-64 rel32 of a 4-byte field at `field` reaching `target`
/// (relative to the field's end), or `None` out of ±2 GiB.
#[inline]
pub(crate) fn x86_rel32(field: u64, target: u64) -> Option<i32> {
    let rel = target as i128 - (field as i128 + 4);
    i32::try_from(rel).ok()
}

/// Why an AArch64 branch cannot be encoded directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Branch26Error {
    /// Displacement not a multiple of 4.
    Unaligned(i64),
    /// Displacement outside ±128 MiB.
    OutOfRange(i128),
}

/// `insn` (a `B` or `BL`) at address `pc` re-encoded to branch to
/// `target`: bits 25..0 get `(target − pc) / 4`, bits 31..26 are kept.
#[inline]
pub(crate) fn aarch64_branch26(insn: u32, pc: u64, target: u64) -> Result<u32, Branch26Error> {
    let d = target as i128 - pc as i128;
    if !(-(AARCH64_BRANCH26_RANGE as i128)..AARCH64_BRANCH26_RANGE as i128).contains(&d) {
        return Err(Branch26Error::OutOfRange(d));
    }
    let d = d as i64;
    if d % 4 != 0 {
        return Err(Branch26Error::Unaligned(d));
    }
    Ok((insn & 0xFC00_0000) | (((d >> 2) as u32) & 0x03FF_FFFF))
}

/// The displacement in bytes an AArch64 `B`/`BL` encodes (sign-extended
/// `imm26 × 4`).
#[cfg(test)]
pub(crate) fn aarch64_branch26_displacement(insn: u32) -> i64 {
    (((insn & 0x03FF_FFFF) << 6) as i32 >> 6) as i64 * 4
}

/// Whether `insn` is an AArch64 `B` (`000101…`) or `BL` (`100101…`).
#[inline]
pub(crate) fn is_aarch64_b_or_bl(insn: u32) -> bool {
    insn & 0x7C00_0000 == 0x1400_0000
}

fn read_u32(code: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(code[at..at + 4].try_into().expect("4 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: u32 = 0x1400_0000;
    const BL: u32 = 0x9400_0000;

    #[test]
    fn branch26_encodes_forward_backward_and_limits() {
        assert_eq!(aarch64_branch26(BL, 0x1000, 0x1008), Ok(BL | 2));
        let back = aarch64_branch26(B, 0x1000, 0x0FFC).unwrap();
        assert_eq!(back, B | 0x03FF_FFFF);
        assert_eq!(aarch64_branch26_displacement(back), -4);
        let max = 0x1000 + AARCH64_BRANCH26_RANGE as u64 - 4;
        let w = aarch64_branch26(BL, 0x1000, max).unwrap();
        assert_eq!(aarch64_branch26_displacement(w), AARCH64_BRANCH26_RANGE - 4);
        assert_eq!(w & 0xFC00_0000, BL);
        let min = 0x1000 + (1u64 << 40) - AARCH64_BRANCH26_RANGE as u64;
        let w = aarch64_branch26(B, 0x1000 + (1 << 40), min).unwrap();
        assert_eq!(aarch64_branch26_displacement(w), -AARCH64_BRANCH26_RANGE);
        assert_eq!(
            aarch64_branch26(B, 0x1000, max + 4),
            Err(Branch26Error::OutOfRange(AARCH64_BRANCH26_RANGE as i128))
        );
        assert_eq!(
            aarch64_branch26(B, 0x1000, 0x1002),
            Err(Branch26Error::Unaligned(2))
        );
        assert!(is_aarch64_b_or_bl(B) && is_aarch64_b_or_bl(BL | 5));
        assert!(!is_aarch64_b_or_bl(0xD503_201F), "NOP");
        assert!(!is_aarch64_b_or_bl(0x5400_0000), "B.cond");
    }

    #[test]
    fn veneer_words() {
        // Reference encodings (GNU as): ldr x16, .+8 ; br x16.
        assert_eq!(AARCH64_LDR_X16_PC8, 0x5800_0050);
        assert_eq!(AARCH64_BR_X16, 0xD61F_0200);
        let v = veneer_bytes(RelocKind::Aarch64Branch26, 0x1122_3344_5566_7788);
        assert_eq!(&v[8..], &0x1122_3344_5566_7788u64.to_le_bytes());
        let x = veneer_bytes(RelocKind::X86Branch32, 0xAB);
        assert_eq!(&x[..7], &[0xFF, 0x25, 0, 0, 0, 0, 0xAB]);
    }

    fn blob<'a>(code: &'a [u8], relocs: &'a [Reloc]) -> Blob<'a> {
        Blob { code, relocs }
    }

    #[test]
    fn validation_errors_are_values() {
        let code = [0u8; 16];
        let abs = |o| Reloc::new(o, RelocKind::Abs64, RelocTarget::Addr(1));
        let problem = |blobs: &[Blob<'_>]| validate(blobs).unwrap_err().problem;
        assert!(matches!(
            problem(&[blob(&code, &[abs(9)])]),
            RelocProblem::OutOfBounds {
                offset: 9,
                size: 8,
                code_len: 16
            }
        ));
        assert!(matches!(
            problem(&[blob(&code, &[abs(usize::MAX)])]),
            RelocProblem::OutOfBounds { .. }
        ));
        let e = validate(&[blob(&code, &[abs(0), abs(8), abs(4)])]).unwrap_err();
        assert_eq!(
            (e.reloc, e.problem.clone()),
            (2, RelocProblem::Overlap { other: 0 })
        );
        assert!(e.to_string().contains("overlaps"), "{e}");
        let mut a64 = [0u8; 8];
        a64[4..].copy_from_slice(&BL.to_le_bytes());
        let br = |o| Reloc::new(o, RelocKind::Aarch64Branch26, RelocTarget::Addr(0));
        assert_eq!(
            problem(&[blob(&a64, &[br(2)])]),
            RelocProblem::Unaligned { value: 2 }
        );
        assert_eq!(
            problem(&[blob(&a64, &[br(0)])]),
            RelocProblem::NotABranch { insn: 0 }
        );
        validate(&[blob(&a64, &[br(4)])]).unwrap();
        let to = |index, offset| Reloc::new(0, RelocKind::Abs64, RelocTarget::Blob { index, offset });
        assert_eq!(
            problem(&[blob(&code, &[to(1, 0)])]),
            RelocProblem::BadTarget { index: 1, offset: 0 }
        );
        assert_eq!(
            problem(&[blob(&code, &[to(0, 16)])]),
            RelocProblem::BadTarget { index: 0, offset: 16 }
        );
        validate(&[blob(&code, &[to(0, 15), abs(8)])]).unwrap();
    }

    #[test]
    fn link_routes_far_branches_through_one_veneer_per_target() {
        // Two BLs and one B to the same far target, one to a near target.
        let mut code = Vec::new();
        for w in [BL, B, BL, 0xD65F_03C0u32 /* ret */] {
            code.extend_from_slice(&w.to_le_bytes());
        }
        let at = 0x7000_0000_0000u64;
        let far = at + (1 << 30);
        let relocs = [
            Reloc::new(0, RelocKind::Aarch64Branch26, RelocTarget::Addr(far as usize)),
            Reloc::new(4, RelocKind::Aarch64Branch26, RelocTarget::Addr(far as usize)),
            Reloc::new(
                8,
                RelocKind::Aarch64Branch26,
                RelocTarget::Blob { index: 0, offset: 12 },
            ),
        ];
        let b = blob(&code, &relocs);
        validate(&[b]).unwrap();
        assert_eq!(reserved_len(&b), 16 + 3 * VENEER_SIZE);
        let image = link(0, &b, at, |_, o| at + o as u64).unwrap();
        assert_eq!(
            image.len(),
            16 + VENEER_SIZE,
            "one veneer for the shared far target"
        );
        let w = |i: usize| read_u32(&image, i);
        assert_eq!(aarch64_branch26_displacement(w(0)), 16);
        assert_eq!(aarch64_branch26_displacement(w(4)), 12);
        assert_eq!(w(0) & 0xFC00_0000, BL);
        assert_eq!(w(4) & 0xFC00_0000, B);
        assert_eq!(aarch64_branch26_displacement(w(8)), 4);
        assert_eq!(w(16), AARCH64_LDR_X16_PC8);
        assert_eq!(w(20), AARCH64_BR_X16);
        assert_eq!(&image[24..32], &far.to_le_bytes());
    }

    #[test]
    fn link_x86_near_far_and_data_out_of_range() {
        // call rel32 ; jmp rel32 ; lea rax,[rip+disp32]
        let code = [0xE8, 0, 0, 0, 0, 0xE9, 0, 0, 0, 0, 0x48, 0x8D, 0x05, 0, 0, 0, 0];
        let at = 0x10_0000_0000u64;
        let near = at + 0x1000;
        let far = at + (3 << 30);
        let relocs = [
            Reloc::new(1, RelocKind::X86Branch32, RelocTarget::Addr(near as usize)),
            Reloc::new(6, RelocKind::X86Branch32, RelocTarget::Addr(far as usize)),
            Reloc::new(13, RelocKind::X86PcRel32, RelocTarget::Addr(near as usize)),
        ];
        let b = blob(&code, &relocs);
        let image = link(0, &b, at, |_, _| unreachable!()).unwrap();
        let rel = |o: usize| i32::from_le_bytes(image[o..o + 4].try_into().unwrap()) as i64;
        assert_eq!(at as i64 + 5 + rel(1), near as i64);
        let veneer = at as i64 + 10 + rel(6);
        assert_eq!(
            veneer as u64,
            at + 32,
            "veneer area starts 16-aligned after the code"
        );
        assert_eq!(&image[32..46], &veneer_bytes(RelocKind::X86Branch32, far)[..14]);
        assert_eq!(at as i64 + 17 + rel(13), near as i64);
        let data_far = [Reloc::new(
            13,
            RelocKind::X86PcRel32,
            RelocTarget::Addr(far as usize),
        )];
        let e = link(3, &blob(&code, &data_far), at, |_, _| 0).unwrap_err();
        assert_eq!((e.blob, e.reloc), (3, 0));
        assert!(matches!(
            e.problem,
            RelocProblem::OutOfRange {
                kind: RelocKind::X86PcRel32,
                ..
            }
        ));
        assert!(e.to_string().contains("out of range"), "{e}");
    }
}

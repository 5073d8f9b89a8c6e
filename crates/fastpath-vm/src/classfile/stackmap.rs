//! The `StackMapTable` attribute (JVMS 4.7.4): frames as the class file
//! stores them (deltas, chops, appends) with verification types, and their
//! expansion into full frames at absolute offsets.
//!
//! Where it sits: parsed with a method's `Code` attribute ([`super::Code`]);
//! the type-checking verifier (`classfile/verify/`) consumes the expanded
//! frames.

use super::error::{ClassFileError, Result};
use super::reader::Reader;

/// A verification type (JVMS 4.10.1.2, as stored: `Object` names a
/// `CONSTANT_Class` index, `Uninitialized` the offset of its `new`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VType {
    /// `Top_variable_info`
    Top,
    /// `Integer_variable_info`
    Integer,
    /// `Float_variable_info`
    Float,
    /// `Double_variable_info` (its second slot is implicit)
    Double,
    /// `Long_variable_info` (its second slot is implicit)
    Long,
    /// `Null_variable_info`
    Null,
    /// `UninitializedThis_variable_info`
    UninitializedThis,
    /// `Object_variable_info`: a `CONSTANT_Class` index.
    Object(u16),
    /// `Uninitialized_variable_info`: the offset of the `new` instruction.
    Uninitialized(u16),
}

impl VType {
    fn parse(r: &mut Reader<'_>) -> Result<VType> {
        Ok(match r.u1()? {
            0 => VType::Top,
            1 => VType::Integer,
            2 => VType::Float,
            3 => VType::Double,
            4 => VType::Long,
            5 => VType::Null,
            6 => VType::UninitializedThis,
            7 => VType::Object(r.u2()?),
            8 => VType::Uninitialized(r.u2()?),
            t => {
                return Err(ClassFileError::format(format!(
                    "Invalid verification type tag {t} in StackMapTable"
                )))
            }
        })
    }

    /// Whether the type takes two slots (long, double).
    pub fn is_wide(self) -> bool {
        matches!(self, VType::Long | VType::Double)
    }
}

/// One stored frame: its kind and offset delta (JVMS 4.7.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackMapFrame {
    /// The stored `offset_delta` (the first frame's offset is the delta;
    /// each later one is the previous offset + delta + 1).
    pub offset_delta: u16,
    /// What the frame says relative to the previous one.
    pub kind: FrameKind,
}

/// The frame kinds of JVMS 4.7.4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// `same_frame` / `same_frame_extended`: the previous locals, empty stack.
    Same,
    /// `same_locals_1_stack_item_frame(_extended)`: previous locals, one stack item.
    SameLocals1StackItem(VType),
    /// `chop_frame`: the previous locals less the last `k` (1 to 3), empty stack.
    Chop(u8),
    /// `append_frame`: the previous locals plus 1 to 3 more, empty stack.
    Append(Vec<VType>),
    /// `full_frame`.
    Full {
        /// The locals (a wide type's second slot implicit).
        locals: Vec<VType>,
        /// The stack (a wide type's second slot implicit).
        stack: Vec<VType>,
    },
}

/// A frame expanded: its absolute offset and its locals and stack as the
/// class file lists them (wide types once; the verifier adds their `Top`
/// halves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FullFrame {
    /// The bytecode offset the frame describes.
    pub offset: u32,
    /// Locals, as listed.
    pub locals: Vec<VType>,
    /// Stack, as listed.
    pub stack: Vec<VType>,
}

/// Parses the attribute's body.
pub fn parse(body: &[u8]) -> Result<Vec<StackMapFrame>> {
    let mut r = Reader::new(body);
    let n = r.u2()?;
    let mut frames = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let t = r.u1()?;
        let frame = match t {
            0..=63 => StackMapFrame {
                offset_delta: t as u16,
                kind: FrameKind::Same,
            },
            64..=127 => StackMapFrame {
                offset_delta: (t - 64) as u16,
                kind: FrameKind::SameLocals1StackItem(VType::parse(&mut r)?),
            },
            247 => {
                let d = r.u2()?;
                StackMapFrame {
                    offset_delta: d,
                    kind: FrameKind::SameLocals1StackItem(VType::parse(&mut r)?),
                }
            }
            248..=250 => StackMapFrame {
                offset_delta: r.u2()?,
                kind: FrameKind::Chop(251 - t),
            },
            251 => StackMapFrame {
                offset_delta: r.u2()?,
                kind: FrameKind::Same,
            },
            252..=254 => {
                let d = r.u2()?;
                let mut locals = Vec::new();
                for _ in 0..t - 251 {
                    locals.push(VType::parse(&mut r)?);
                }
                StackMapFrame {
                    offset_delta: d,
                    kind: FrameKind::Append(locals),
                }
            }
            255 => {
                let d = r.u2()?;
                let nl = r.u2()?;
                let mut locals = Vec::with_capacity(nl.min(256) as usize);
                for _ in 0..nl {
                    locals.push(VType::parse(&mut r)?);
                }
                let ns = r.u2()?;
                let mut stack = Vec::with_capacity(ns.min(256) as usize);
                for _ in 0..ns {
                    stack.push(VType::parse(&mut r)?);
                }
                StackMapFrame {
                    offset_delta: d,
                    kind: FrameKind::Full { locals, stack },
                }
            }
            _ => {
                return Err(ClassFileError::format(format!(
                    "reserved frame type {t} in StackMapTable"
                )))
            }
        };
        frames.push(frame);
    }
    if !r.at_end() {
        return Err(ClassFileError::format("StackMapTable attribute has wrong length"));
    }
    Ok(frames)
}

/// Expands stored frames into full ones at absolute offsets, starting from
/// the method's initial locals (`initial`, as the verifier derives them
/// from the descriptor). Chopping more locals than there are is an error;
/// offsets are not checked against instruction boundaries here (the
/// verifier does that).
pub fn expand(frames: &[StackMapFrame], initial: &[VType]) -> Result<Vec<FullFrame>> {
    let mut out: Vec<FullFrame> = Vec::with_capacity(frames.len());
    let mut locals: Vec<VType> = initial.to_vec();
    let mut offset: i64 = -1;
    for f in frames {
        offset = if out.is_empty() {
            f.offset_delta as i64
        } else {
            offset + f.offset_delta as i64 + 1
        };
        let stack = match &f.kind {
            FrameKind::Same => Vec::new(),
            FrameKind::SameLocals1StackItem(t) => vec![*t],
            FrameKind::Chop(k) => {
                let k = *k as usize;
                if k > locals.len() {
                    return Err(ClassFileError::format(
                        "StackMapTable chops more locals than there are",
                    ));
                }
                locals.truncate(locals.len() - k);
                Vec::new()
            }
            FrameKind::Append(more) => {
                locals.extend_from_slice(more);
                Vec::new()
            }
            FrameKind::Full { locals: l, stack } => {
                locals = l.clone();
                stack.clone()
            }
        };
        out.push(FullFrame {
            offset: offset as u32,
            locals: locals.clone(),
            stack,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_kind_and_expands() {
        let body = [
            0,
            5, // 5 frames
            3, // same, delta 3
            64 + 2,
            1, // same_locals_1_stack_item Integer, delta 2
            252,
            0,
            4,
            7,
            0,
            9, // append 1 Object(#9), delta 4
            250,
            0,
            1, // chop 1, delta 1
            255,
            0,
            0,
            0,
            1,
            4,
            0,
            1,
            5, // full: locals [Long], stack [Null], delta 0
        ];
        let frames = parse(&body).unwrap();
        assert_eq!(frames.len(), 5);
        let full = expand(&frames, &[VType::Integer]).unwrap();
        let offsets: Vec<u32> = full.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, [3, 6, 11, 13, 14]);
        assert_eq!(full[2].locals, [VType::Integer, VType::Object(9)]);
        assert_eq!(full[3].locals, [VType::Integer]);
        assert_eq!(full[4].stack, [VType::Null]);
        assert!(parse(&[0, 1, 128]).is_err());
        assert!(parse(&[0, 1, 3, 0]).is_err());
        assert!(expand(&parse(&[0, 1, 248, 0, 0]).unwrap(), &[]).is_err());
    }
}

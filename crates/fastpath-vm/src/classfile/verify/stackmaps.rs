//! A method's `StackMapTable` (JVMS 4.7.4) as the type checker uses it:
//! one full [`Frame`] per entry, at an absolute offset, in offset order.
//!
//! Where it sits: `super::method` reads the table once before checking
//! the code, then matches the current frame against [`StackMap::at`]
//! wherever control can reach an offset other than by falling through
//! (branch targets, exception handlers, the instruction after an
//! unconditional transfer).
//!
//! Reading follows HotSpot's `StackMapReader`: each entry is relative to
//! the previous one (the first to the method's initial frame); long and
//! double take two slots; `chop` removes values (two slots for a long or
//! double); `flagThisUninit` is set when the frame's locals or stack hold
//! `uninitializedThis`. Checks, with HotSpot's error kinds:
//! - an `Object` type names a `CONSTANT_Class` (ClassFormatError "bad class index");
//! - an `Uninitialized(Offset)` names a `new` instruction (ClassFormatError);
//! - locals fit in `max_locals` and the stack in `max_stack`, and a chop
//!   removes no more than there is (ClassFormatError "bad type array size");
//! - each offset is an instruction's start inside the code (VerifyError
//!   "StackMapTable error: bad offset"); offsets strictly increase by
//!   construction (each is the previous one plus a delta plus one).

use super::error::VerifyError;
use super::frame::Frame;
use super::types::Type;
use crate::classfile::stackmap::{FrameKind, StackMapFrame, VType};

/// What [`StackMap::read`] needs to know about the code.
pub struct CodeShape<'a> {
    /// Per byte of code: 0 inside an instruction, 1 at an instruction's
    /// start, 2 at a `new` instruction's start.
    pub starts: &'a [u8],
    /// `max_locals`.
    pub max_locals: usize,
    /// `max_stack`.
    pub max_stack: usize,
}

/// `CodeShape::starts` for an instruction start.
pub const INSTRUCTION: u8 = 1;
/// `CodeShape::starts` for the start of a `new`.
pub const NEW_INSTRUCTION: u8 = 2;

/// The frames of a method's `StackMapTable`, in increasing offset order.
#[derive(Debug, Default)]
pub struct StackMap {
    offsets: Vec<u32>,
    frames: Vec<Frame>,
}

fn format_error(what: &str) -> VerifyError {
    VerifyError::format(format!("StackMapTable format error: {what}"))
}

impl StackMap {
    /// Reads `table` (absent: no frames). `initial` is the method's frame
    /// at offset 0 and `initial_slots` how many of its locals the
    /// parameters fill; `class_type` turns a `CONSTANT_Class` index into a
    /// type (or `None` if the index names no class).
    pub fn read(
        table: Option<&[StackMapFrame]>,
        initial: &Frame,
        initial_slots: usize,
        code: &CodeShape<'_>,
        class_type: &mut dyn FnMut(u16) -> Option<Type>,
    ) -> Result<StackMap, VerifyError> {
        let Some(table) = table else {
            return Ok(StackMap::default());
        };
        let mut map = StackMap {
            offsets: Vec::with_capacity(table.len()),
            frames: Vec::with_capacity(table.len()),
        };
        // The previous frame's locals, in slots, as many as it lists.
        let mut locals: Vec<Type> = initial.locals[..initial_slots].to_vec();
        let mut types = |v: &VType, out: &mut Vec<Type>| -> Result<(), VerifyError> {
            match *v {
                VType::Top => out.push(Type::Top),
                VType::Integer => out.push(Type::Integer),
                VType::Float => out.push(Type::Float),
                VType::Long => out.extend([Type::Long, Type::Long2]),
                VType::Double => out.extend([Type::Double, Type::Double2]),
                VType::Null => out.push(Type::Null),
                VType::UninitializedThis => out.push(Type::UninitializedThis),
                VType::Object(index) => {
                    out.push(class_type(index).ok_or_else(|| format_error("bad class index"))?)
                }
                VType::Uninitialized(offset) => {
                    if code.starts.get(offset as usize) != Some(&NEW_INSTRUCTION) {
                        return Err(format_error("bad offset for Uninitialized"));
                    }
                    out.push(Type::Uninitialized(offset));
                }
            }
            Ok(())
        };
        let size_check = |len: usize, max: usize| {
            if len > max {
                Err(format_error("bad type array size"))
            } else {
                Ok(())
            }
        };
        let mut previous: Option<u32> = None;
        for entry in table {
            let offset = match previous {
                None => u32::from(entry.offset_delta),
                Some(p) => p + u32::from(entry.offset_delta) + 1,
            };
            let mut stack = Vec::new();
            match &entry.kind {
                FrameKind::Same => {}
                FrameKind::SameLocals1StackItem(t) => {
                    types(t, &mut stack)?;
                    size_check(stack.len(), code.max_stack)?;
                }
                FrameKind::Chop(k) => {
                    for _ in 0..*k {
                        let Some(last) = locals.pop() else {
                            return Err(format_error("bad type array size"));
                        };
                        if last.is_category2_2nd() {
                            locals.pop();
                        }
                    }
                }
                FrameKind::Append(more) => {
                    for t in more {
                        types(t, &mut locals)?;
                    }
                    size_check(locals.len(), code.max_locals)?;
                }
                FrameKind::Full { locals: l, stack: s } => {
                    locals.clear();
                    for t in l {
                        types(t, &mut locals)?;
                    }
                    size_check(locals.len(), code.max_locals)?;
                    for t in s {
                        types(t, &mut stack)?;
                    }
                    size_check(stack.len(), code.max_stack)?;
                }
            }
            // Same and same-locals frames after a chop or append keep the
            // locals they inherit, which fit by the checks above; the
            // initial locals fit by the parser's check.
            debug_assert!(locals.len() <= code.max_locals);
            if code.starts.get(offset as usize).is_none_or(|&s| s == 0) {
                return Err(VerifyError::verify("StackMapTable error: bad offset").at_bci(offset));
            }
            let mut frame = Frame::new(code.max_locals);
            frame.locals[..locals.len()].clone_from_slice(&locals);
            frame.this_uninit = locals.iter().chain(&stack).any(|t| *t == Type::UninitializedThis);
            frame.stack = stack;
            map.offsets.push(offset);
            map.frames.push(frame);
            previous = Some(offset);
        }
        Ok(map)
    }

    /// The frame at `offset`, if the table has one.
    #[inline]
    pub fn at(&self, offset: u32) -> Option<&Frame> {
        self.offsets.binary_search(&offset).ok().map(|i| &self.frames[i])
    }

    /// The `i`th frame's offset and frame.
    pub fn get(&self, i: usize) -> Option<(u32, &Frame)> {
        Some((*self.offsets.get(i)?, self.frames.get(i)?))
    }

    /// How many frames.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the table has no frames.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

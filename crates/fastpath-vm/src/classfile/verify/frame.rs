//! A type state: the types of the locals and of the operand stack at one
//! offset, and the `flagThisUninit` flag (JVMS 4.10.1.3, HotSpot's
//! `StackMapFrame`).
//!
//! Where it sits: `super::method` keeps one current frame and steps it
//! through the code; [`super::stackmaps`] builds one per `StackMapTable`
//! entry, which the current frame must be assignable to wherever control
//! reaches that offset.
//!
//! Invariants (checked by [`Frame::verify`] in debug builds):
//! - `locals.len()` is the method's `max_locals`; locals nobody set are top;
//! - `stack.len() <= max_stack`;
//! - a long/double first slot is followed by its second slot, in the
//!   locals and on the stack; a second slot is preceded by its first
//!   (stores that split a pair turn the other half into top, as HotSpot's
//!   `set_local` does);
//! - `this_uninit` is set while `this` is uninitialized in a constructor;
//!   a constructor may not return with it set, and a frame with it set is
//!   assignable only to a stack map frame that has it too.

use super::error::VerifyError;
use super::types::{Assignability, Type};

/// The type state at one offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The locals, `max_locals` of them.
    pub locals: Vec<Type>,
    /// The operand stack, bottom first.
    pub stack: Vec<Type>,
    /// JVMS `flagThisUninit`.
    pub this_uninit: bool,
}

fn bad_type(found: &Type, wanted: &str) -> impl FnOnce() -> String {
    let found = format!("{found}");
    let wanted = wanted.to_string();
    move || format!("Type {found} is not assignable to {wanted}")
}

/// What a pop accepts beyond one exact type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want<'t> {
    /// A value assignable to this type.
    Type(&'t Type),
    /// Any one-slot value (`pop`, `dup`, `swap`).
    Category1,
    /// A long/double first slot (below its second slot).
    Category2,
    /// Any reference or uninitialized object (`astore`, `if_acmpeq`,
    /// `monitorenter`: JVMS `reference`).
    Reference,
}

impl std::fmt::Display for Want<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Want::Type(t) => t.fmt(f),
            Want::Category1 => f.write_str("category1"),
            Want::Category2 => f.write_str("category2"),
            Want::Reference => f.write_str("reference type"),
        }
    }
}

impl Frame {
    /// A frame with `max_locals` top locals and an empty stack.
    pub fn new(max_locals: usize) -> Frame {
        Frame {
            locals: vec![Type::Top; max_locals],
            stack: Vec::new(),
            this_uninit: false,
        }
    }

    /// Pushes `t`; an overflow past `max_stack` is a `VerifyError`.
    #[inline]
    pub fn push(&mut self, t: Type, max_stack: usize) -> Result<(), VerifyError> {
        if self.stack.len() >= max_stack {
            return Err(VerifyError::verify("Operand stack overflow"));
        }
        self.stack.push(t);
        Ok(())
    }

    /// Pushes a long/double (`first`) as its two slots.
    pub fn push2(&mut self, first: Type, max_stack: usize) -> Result<(), VerifyError> {
        let second = first.second_half().expect("push2 of a two-slot type");
        self.push(first, max_stack)?;
        self.push(second, max_stack)
    }

    /// Pushes the slots of one value (one, or two for long and double).
    pub fn push_slots(&mut self, slots: &[Type], max_stack: usize) -> Result<(), VerifyError> {
        for t in slots {
            self.push(t.clone(), max_stack)?;
        }
        Ok(())
    }

    /// Pops whatever is on top.
    pub fn pop_any(&mut self) -> Result<Type, VerifyError> {
        self.stack
            .pop()
            .ok_or_else(|| VerifyError::verify("Operand stack underflow"))
    }

    /// Pops a value `want` accepts and returns it.
    #[inline]
    pub fn pop(&mut self, want: Want<'_>, a: &mut Assignability<'_>) -> Result<Type, VerifyError> {
        let top = self.pop_any()?;
        let ok = match want {
            Want::Type(t) => a.is_assignable(t, &top)?,
            Want::Category1 => top.is_category1(),
            Want::Category2 => top.is_category2(),
            Want::Reference => top.is_reference() || top.is_uninitialized(),
        };
        if ok {
            Ok(top)
        } else {
            Err(VerifyError::verify("Bad type on operand stack")
                .with_reason(bad_type(&top, &want.to_string())))
        }
    }

    /// Pops a value of exactly type `t` (a primitive: no hierarchy needed).
    #[inline]
    pub fn pop_primitive(&mut self, t: Type) -> Result<(), VerifyError> {
        let top = self.pop_any()?;
        if top == t {
            Ok(())
        } else {
            Err(VerifyError::verify("Bad type on operand stack").with_reason(bad_type(&top, &format!("{t}"))))
        }
    }

    /// Pops a long or double (`first` is `Long` or `Double`): its second
    /// slot, then its first.
    pub fn pop2(&mut self, first: Type) -> Result<(), VerifyError> {
        let second = first.second_half().expect("pop2 of a two-slot type");
        self.pop_primitive(second)?;
        self.pop_primitive(first)
    }

    /// Pops values of the slots `slots` (the last slot first).
    pub fn pop_slots(&mut self, slots: &[Type], a: &mut Assignability<'_>) -> Result<(), VerifyError> {
        for t in slots.iter().rev() {
            self.pop(Want::Type(t), a)?;
        }
        Ok(())
    }

    fn local_index(&self, index: usize) -> Result<usize, VerifyError> {
        if index >= self.locals.len() {
            Err(VerifyError::verify("Local variable table overflow"))
        } else {
            Ok(index)
        }
    }

    /// The type of local `index`, which `want` must accept (`iload`,
    /// `aload`, `iinc`).
    pub fn get_local(
        &self,
        index: usize,
        want: Want<'_>,
        a: &mut Assignability<'_>,
    ) -> Result<Type, VerifyError> {
        let t = &self.locals[self.local_index(index)?];
        let ok = match want {
            Want::Type(w) => a.is_assignable(w, t)?,
            Want::Reference => t.is_reference() || t.is_uninitialized(),
            Want::Category1 | Want::Category2 => unreachable!("locals are read by type"),
        };
        if ok {
            Ok(t.clone())
        } else {
            Err(VerifyError::verify("Bad local variable type").with_reason(bad_type(t, &format!("{want}"))))
        }
    }

    /// Checks that locals `index` and `index + 1` hold a long/double
    /// (`first` is `Long` or `Double`): `lload`, `dload`.
    pub fn get_local2(&self, index: usize, first: Type) -> Result<(), VerifyError> {
        if index + 1 >= self.locals.len() {
            return Err(VerifyError::verify("get long/double overflows locals"));
        }
        let second = first.second_half().expect("two-slot type");
        if self.locals[index] != first || self.locals[index + 1] != second {
            return Err(VerifyError::verify("Bad local variable type")
                .with_reason(bad_type(&self.locals[index], &format!("{first}"))));
        }
        Ok(())
    }

    /// Stores a one-slot value of type `t` into local `index`; a long or
    /// double it overwrites half of loses its other half.
    pub fn set_local(&mut self, index: usize, t: Type) -> Result<(), VerifyError> {
        let index = self.local_index(index)?;
        self.break_pair_at(index);
        self.locals[index] = t;
        Ok(())
    }

    /// Stores a long/double (`first`) into locals `index` and `index + 1`.
    pub fn set_local2(&mut self, index: usize, first: Type) -> Result<(), VerifyError> {
        if index + 1 >= self.locals.len() {
            return Err(VerifyError::verify("Local variable table overflow"));
        }
        self.break_pair_at(index);
        self.break_pair_at(index + 1);
        let second = first.second_half().expect("two-slot type");
        self.locals[index] = first;
        self.locals[index + 1] = second;
        Ok(())
    }

    /// Before local `index` is overwritten: the other half of a long or
    /// double it holds half of becomes top.
    fn break_pair_at(&mut self, index: usize) {
        if self.locals[index].is_category2() {
            if let Some(next) = self.locals.get_mut(index + 1) {
                *next = Type::Top;
            }
        } else if self.locals[index].is_category2_2nd() && index > 0 {
            self.locals[index - 1] = Type::Top;
        }
    }

    /// Replaces every `old` (an uninitialized type) by `new` after its
    /// `<init>` ran; initializing `this` clears `this_uninit` (HotSpot's
    /// `initialize_object`).
    pub fn initialize_object(&mut self, old: &Type, new: &Type) {
        for t in self.locals.iter_mut().chain(self.stack.iter_mut()) {
            if t == old {
                *t = new.clone();
            }
        }
        if *old == Type::UninitializedThis {
            self.this_uninit = false;
        }
    }

    /// Whether this frame may flow into `target` (JVMS `frameIsAssignable`,
    /// HotSpot's `StackMapFrame::is_assignable_to`): same stack depth,
    /// every local and stack slot assignable, and `this_uninit` only if
    /// the target has it. `Some(reason)` says which part disagrees.
    pub fn check_assignable_to(
        &self,
        target: &Frame,
        a: &mut Assignability<'_>,
    ) -> Result<Option<String>, VerifyError> {
        check_assignable(&self.locals, &self.stack, self.this_uninit, target, a)
    }

    /// Checks the invariants in the module documentation.
    pub fn verify(&self, max_stack: usize) {
        assert!(self.stack.len() <= max_stack, "stack deeper than max_stack");
        for slots in [&self.locals, &self.stack] {
            for (i, t) in slots.iter().enumerate() {
                if t.is_category2() {
                    assert_eq!(
                        slots.get(i + 1),
                        t.second_half().as_ref(),
                        "first half without its second at {i}"
                    );
                }
                if t.is_category2_2nd() {
                    assert!(
                        i > 0 && slots[i - 1].second_half().as_ref() == Some(t),
                        "second half alone at {i}"
                    );
                }
            }
        }
    }
}

/// [`Frame::check_assignable_to`] for a frame given by parts (an exception
/// handler's view of the current frame: its locals, the exception alone on
/// the stack).
pub fn check_assignable(
    locals: &[Type],
    stack: &[Type],
    this_uninit: bool,
    target: &Frame,
    a: &mut Assignability<'_>,
) -> Result<Option<String>, VerifyError> {
    if stack.len() != target.stack.len() {
        return Ok(Some(format!(
            "Current frame's stack size {} doesn't match stackmap {}.",
            stack.len(),
            target.stack.len()
        )));
    }
    for (i, (from, to)) in locals.iter().zip(&target.locals).enumerate() {
        if !a.is_assignable(to, from)? {
            return Ok(Some(format!(
                "Type {from} (current frame, locals[{i}]) is not assignable to {to} (stack map, locals[{i}])"
            )));
        }
    }
    for (i, (from, to)) in stack.iter().zip(&target.stack).enumerate() {
        if !a.is_assignable(to, from)? {
            return Ok(Some(format!(
                "Type {from} (current frame, stack[{i}]) is not assignable to {to} (stack map, stack[{i}])"
            )));
        }
    }
    if this_uninit && !target.this_uninit {
        return Ok(Some(
            "Current frame's flags are not assignable to stack map frame's.".to_string(),
        ));
    }
    Ok(None)
}
